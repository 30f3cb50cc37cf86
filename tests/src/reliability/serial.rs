//! Categories 6 and 7 of the report: serialized FMU states that are
//! truncated, corrupted, random, of other models, of other structural
//! parameter values or of the other FMI version, and forged states with a
//! valid checksum.
//!
//! The layout of this project's serialized state: `b"FLUIDFMU"`, u32
//! format version, u64 token hash, u32 number of states NX, u32 number of
//! value slots, then f64 values (value slots, NX states, time, start time,
//! stop time (NaN = none), carried step size, last successful time), five
//! u64 statistics and a u64 FNV-1a-64 checksum of everything before it, all
//! little endian. The value slots are the inputs, outputs and parameters in
//! value-reference order (outputs written as 0); the mapping is verified on
//! a real state before anything is forged.

use super::api::{Inst, Lib, OK, Ptr, WARNING, status_name};
use super::report::{Event, emit};
use super::suite::{Ctx, MID, Rng, Stage, check_refusal, outside_range, reseal};
use super::xml::{Ty, Var};

/// Bytes before the first f64.
const HEADER: usize = 28;

/// A serialized state from elsewhere, to be fed to this FMU.
pub(crate) struct Foreign {
    /// What it is, for the case name.
    pub(crate) what: String,
    /// The bytes, or why they could not be produced.
    pub(crate) bytes: Result<Vec<u8>, String>,
}

/// Serializes the state of a fresh instance of `lib` after `MID` steps
/// of its default step size, optionally with one Integer parameter set
/// first (FMI 3 structural parameters in Configuration Mode).
pub(crate) fn produce_state(lib: &Lib, set: Option<(&Var, i32)>) -> Result<Vec<u8>, String> {
    let inst = lib.instantiate("producer").map_err(|e| e.to_string())?;
    let ok = |what: &str, s: i32| inst.expect_ok(what, s);
    if let Some((var, value)) = set {
        let configure = lib.fmi3() && var.structural;
        if configure {
            ok("enterConfigurationMode", inst.enter_config())?;
        }
        ok(
            &format!("setting {} = {value}", var.name),
            inst.set_int(var.vr, value),
        )?;
        if configure {
            ok("exitConfigurationMode", inst.exit_config())?;
        }
    }
    let h = lib.desc.step_size.filter(|h| *h > 0.0).unwrap_or(1e-3);
    ok("enterInitializationMode", inst.enter_init(0.0))?;
    ok("exitInitializationMode", inst.exit_init())?;
    let mut t = 0.0;
    for _ in 0..MID {
        ok("doStep", inst.do_step(t, h))?;
        t += h;
    }
    inst.serialize_now().map_err(|e| e.to_string())
}

/// The instance that accepted states are tried on.
struct Trial<'a> {
    inst: Option<Inst<'a>>,
    /// Buffers deserialize accepted.
    accepted: usize,
}

impl<'a> Trial<'a> {
    /// Sets an accepted state into the trial instance and steps three
    /// times from its time: OK must never come with non-finite outputs.
    fn try_state(&mut self, ctx: &Ctx<'a>, source: &Inst, mut st: Ptr) -> Result<(), String> {
        let result = self.run(ctx, st);
        source.free_state(&mut st);
        result
    }

    fn run(&mut self, ctx: &Ctx<'a>, st: Ptr) -> Result<(), String> {
        for attempt in 0..2 {
            if self.inst.is_none() {
                self.inst = Some(ctx.at(Stage::Step(MID + 1))?);
            }
            let inst = self.inst.as_ref().expect("set above");
            let s = inst.set_state(st);
            if s != OK && s != WARNING {
                // Perhaps the trial instance is unusable after an earlier
                // state: once more on a fresh one.
                self.inst = None;
                if attempt == 0 {
                    continue;
                }
                return Ok(());
            }
            ctx.check_outputs(inst, "right after setFMUstate of the accepted state")?;
            let time_vr = ctx
                .desc()
                .variables
                .iter()
                .find(|v| v.causality == "independent")
                .map_or(0, |v| v.vr);
            let (s, t) = inst.get(Ty::Real, &[time_vr]);
            if s != OK {
                return Ok(());
            }
            let mut t = t[0];
            for k in 0..3 {
                let s = inst.do_step(t, ctx.h);
                if s != OK && s != WARNING {
                    self.inst = None;
                    return Ok(());
                }
                ctx.check_outputs(
                    inst,
                    &format!(
                        "after doStep {} from the accepted state ({})",
                        k + 1,
                        status_name(s)
                    ),
                )?;
                t += ctx.h;
            }
            return Ok(());
        }
        Ok(())
    }
}

/// What to do when a buffer is accepted.
#[derive(Clone, Copy, PartialEq)]
enum Policy {
    /// It must be refused.
    Refuse,
    /// It may be accepted; then stepping from it must stay finite.
    Tolerate,
}

/// Deserializes `bytes` into the main instance `main` (at `Step(MID)`):
/// a refusal must log a message and leave `main` unchanged.
fn feed<'a>(
    ctx: &Ctx<'a>,
    main: &Inst,
    trial: &mut Trial<'a>,
    bytes: &[u8],
    policy: Policy,
) -> Result<(), String> {
    let before = main.messages();
    let (s, st) = main.deserialize(bytes);
    if s == OK || s == WARNING {
        trial.accepted += 1;
        if st.is_null() {
            return Err(format!("returned {} but no FMU state", status_name(s)));
        }
        return match policy {
            Policy::Refuse => {
                let mut st = st;
                main.free_state(&mut st);
                Err(format!("accepted (returned {})", status_name(s)))
            }
            Policy::Tolerate => trial.try_state(ctx, main, st),
        };
    }
    check_refusal(s, before, main, false)?;
    let fp = ctx.fingerprint(main);
    ctx.compare(Stage::Step(MID), &fp)
        .map_err(|e| format!("refused, but the instance changed: {e}"))
}

/// Category "serialized states".
pub(crate) fn serialized(
    ctx: &mut Ctx,
    others: &[Foreign],
    structural: &[Foreign],
    cross: Option<Foreign>,
) {
    let cat = "serialized states";
    ctx.tally.begin(cat);
    let stage = Stage::Step(MID);
    let main = match ctx.at(stage) {
        Ok(i) => i,
        Err(e) => {
            ctx.tally.case(cat, "setting up", Err(e));
            ctx.tally.end(cat);
            return;
        }
    };
    let base = match main.serialize_now() {
        Ok(b) => b,
        Err(e) => {
            ctx.tally
                .case(cat, "serializing a state", Err(e.to_string()));
            ctx.tally.end(cat);
            return;
        }
    };
    let mut trial = Trial {
        inst: None,
        accepted: 0,
    };

    // The untouched state round-trips into an instance that is elsewhere.
    let r = (|| {
        let other = ctx.at(Stage::Step(MID + 2))?;
        let (s, mut st) = other.deserialize(&base);
        if s != OK {
            return Err(format!(
                "deserialize of an untouched state returned {}",
                status_name(s)
            ));
        }
        let s = other.set_state(st);
        other.free_state(&mut st);
        if s != OK {
            return Err(format!(
                "setFMUstate of an untouched state returned {}",
                status_name(s)
            ));
        }
        ctx.walk(&other, stage, None)
            .map_err(|e| format!("restored instance differs from the original: {e}"))
    })();
    ctx.tally.case(cat, "round trip of an untouched state", r);

    let len = base.len();
    for cut in 0..len {
        let r = feed(ctx, &main, &mut trial, &base[..cut], Policy::Refuse);
        ctx.tally
            .case(cat, format!("truncated to {cut} of {len} bytes"), r);
    }
    let mut rng = Rng::new(ctx.opts.seed);
    let positions: Vec<usize> = if len <= ctx.opts.flip_sample {
        (0..len).collect()
    } else {
        let mut all: Vec<usize> = (0..len).collect();
        for i in 0..ctx.opts.flip_sample {
            let j = i + rng.below(len - i);
            all.swap(i, j);
        }
        all.truncate(ctx.opts.flip_sample);
        all.sort_unstable();
        all
    };
    for p in positions {
        let mut b = base.clone();
        b[p] ^= 0xff;
        let r = feed(ctx, &main, &mut trial, &b, Policy::Refuse);
        ctx.tally.case(cat, format!("byte {p} of {len} flipped"), r);
    }
    for k in 0..ctx.opts.random_buffers {
        let n = if k % 2 == 0 { len } else { rng.below(2 * len) };
        let mut b: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
        if k % 4 == 1 && n >= 8 {
            // Past the magic bytes, to reach the later checks.
            b[..8].copy_from_slice(b"FLUIDFMU");
        }
        let r = feed(ctx, &main, &mut trial, &b, Policy::Refuse);
        ctx.tally.case(
            cat,
            format!("random buffer {k} ({n} bytes, seed {})", ctx.opts.seed),
            r,
        );
    }
    for f in others.iter().chain(structural) {
        let r = match &f.bytes {
            Ok(b) => feed(ctx, &main, &mut trial, b, Policy::Refuse),
            Err(e) => Err(format!("could not produce the state: {e}")),
        };
        ctx.tally.case(cat, f.what.clone(), r);
    }
    let r = ctx
        .walk(&main, stage, None)
        .map_err(|e| format!("after all refused states the instance differs from its twin: {e}"));
    ctx.tally.case(
        cat,
        "after every refused state: steps like an untouched twin",
        r,
    );
    if let Some(cross) = cross {
        // Supported on purpose (README, "Use an FMU"): both binaries run the
        // same instance code on the same format.
        let r = cross_check(ctx, &main, &base, &cross);
        ctx.tally.case(
            cat,
            format!(
                "{}: restores and steps like this version's twin",
                cross.what
            ),
            r,
        );
    }
    ctx.tally.end(cat);
}

/// A state of the other FMI version must restore and step bit-identically
/// to this version's twin.
fn cross_check(ctx: &Ctx, main: &Inst, own: &[u8], cross: &Foreign) -> Result<(), String> {
    let bytes = match &cross.bytes {
        Ok(b) => b,
        Err(e) => return Err(format!("not produced: {e}")),
    };
    let identical = bytes == own;
    let before = main.messages();
    let (s, mut st) = main.deserialize(bytes);
    if s != OK {
        let logged = if main.messages() > before {
            format!("message: {}", main.last_message())
        } else {
            "no message".into()
        };
        return Err(format!("refused ({}; {logged})", status_name(s)));
    }
    let r = (|| {
        let inst = ctx.at(Stage::Step(MID + 2))?;
        let s = inst.set_state(st);
        if s != OK {
            return Err(format!("setFMUstate returned {}", status_name(s)));
        }
        ctx.walk(&inst, Stage::Step(MID), None)
    })();
    main.free_state(&mut st);
    let same_bytes = if identical {
        "its bytes are identical to this version's own state"
    } else {
        "its bytes differ from this version's own state"
    };
    r.map_err(|e| format!("accepted; {same_bytes}; but then: {e}"))
}

/// The variables of the value slots, in slot order.
fn slot_vars(ctx: &Ctx) -> Vec<Var> {
    let mut v: Vec<Var> = ctx
        .desc()
        .variables
        .iter()
        .filter(|v| matches!(v.causality.as_str(), "input" | "output" | "parameter"))
        .cloned()
        .collect();
    v.sort_by_key(|v| v.vr);
    v
}

fn u32_at(b: &[u8], o: usize) -> usize {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap_or([0; 4])) as usize
}

/// Checks the slot mapping on a real state: the header counts, the length,
/// a parameter set to a known value found in its slot, outputs written as
/// zero.
fn verify_layout(ctx: &Ctx, slots: &[Var]) -> Result<(Vec<u8>, usize), String> {
    let candidates: Vec<&Var> = slots
        .iter()
        .filter(|v| v.ty == Ty::Real && v.causality == "parameter" && !v.structural)
        .collect();
    for var in candidates {
        let start = var.start.unwrap_or(0.0);
        let value = match (var.min, var.max) {
            (_, Some(max)) if max > start => start + (max - start) * 0.375,
            (Some(min), _) if min < start => start - (start - min) * 0.375,
            (None, None) => start + 0.375,
            _ => continue,
        };
        let inst = ctx.at(Stage::Instantiated)?;
        if inst.set_real(var.vr, value) != OK {
            continue;
        }
        let bytes = inst.serialize_now().map_err(|e| e.to_string())?;
        if bytes.len() < HEADER + 8 || &bytes[..8] != b"FLUIDFMU" {
            return Err("the state does not start with the FLUIDFMU magic".into());
        }
        let nx = u32_at(&bytes, 20);
        let nv = u32_at(&bytes, 24);
        if nv != slots.len() {
            return Err(format!(
                "the state has {nv} value slots, the XML inputs, outputs and parameters are {}",
                slots.len()
            ));
        }
        // values, states, 5 times and step sizes, the real-time
        // integrators' reuse block (5 numbers and the nx x nx Jacobian),
        // stepping ahead's block (6 numbers and 5 vectors of nx), 5
        // counters, the checksum
        let expected =
            HEADER + 8 * (nv + nx + 5) + 8 * (5 + nx * nx) + 8 * (6 + 5 * nx) + 8 * 5 + 8;
        if bytes.len() != expected {
            return Err(format!(
                "{} bytes, the layout gives {expected}",
                bytes.len()
            ));
        }
        let at = |i: usize| {
            f64::from_le_bytes(
                bytes[HEADER + 8 * i..HEADER + 8 * i + 8]
                    .try_into()
                    .unwrap_or([0; 8]),
            )
        };
        let slot = slots.iter().position(|v| v.vr == var.vr).unwrap_or(0);
        if at(slot).to_bits() != value.to_bits() {
            return Err(format!(
                "{} was set to {value} but its slot {slot} holds {}",
                var.name,
                at(slot)
            ));
        }
        for (i, v) in slots.iter().enumerate() {
            if v.causality == "output" && at(i) != 0.0 {
                return Err(format!(
                    "output {} has {} in its slot, not 0",
                    v.name,
                    at(i)
                ));
            }
        }
        return Ok((bytes, nx));
    }
    Err("no Real parameter to verify the slot mapping with".into())
}

/// Category "forged states": every f64 field set to NaN, +Inf, -1e300, -1
/// (value slots also just outside their variable's range; of the real-time
/// integrators' reuse block its five numbers and the Jacobian's first
/// entry; of stepping ahead's block its six numbers and the first entry of
/// its first vector), checksum recomputed.
pub(crate) fn forged(ctx: &mut Ctx) {
    let cat = "forged states";
    ctx.tally.begin(cat);
    let slots = slot_vars(ctx);
    let layout = verify_layout(ctx, &slots);
    let nx = match &layout {
        Ok((_, nx)) => *nx,
        Err(e) => {
            ctx.tally
                .case(cat, "slot mapping of the serialized state", Err(e.clone()));
            ctx.tally.end(cat);
            return;
        }
    };
    ctx.tally
        .case(cat, "slot mapping of the serialized state", Ok(()));
    let stage = Stage::Step(MID);
    let (main, base) = match ctx.at(stage).and_then(|m| {
        let b = m.serialize_now().map_err(|e| e.to_string())?;
        Ok((m, b))
    }) {
        Ok(x) => x,
        Err(e) => {
            ctx.tally.case(cat, "setting up", Err(e));
            ctx.tally.end(cat);
            return;
        }
    };
    let mut trial = Trial {
        inst: None,
        accepted: 0,
    };
    // (name, variable of a value slot, index of the f64 after the header)
    let mut fields: Vec<(String, Option<&Var>, usize)> = slots
        .iter()
        .enumerate()
        .map(|(i, v)| (format!("value slot of {}", v.name), Some(v), i))
        .collect();
    for j in 0..nx {
        fields.push((format!("state x[{j}]"), None, fields.len()));
    }
    for name in [
        "time",
        "start time",
        "stop time",
        "carried step size",
        "last successful time",
        "reused Jacobian flag",
        "reused Jacobian age",
        "LU factors' step size",
        "LU factors' coefficient",
        "LU factors' uses",
        "reused Jacobian, first entry",
    ] {
        fields.push((name.into(), None, fields.len()));
    }
    // Stepping ahead's block, after the whole Jacobian.
    let ahead = slots.len() + nx + 5 + 5 + nx * nx;
    for (k, name) in [
        "held-inputs flag",
        "substep-ahead flag",
        "substep-ahead length",
        "point inside the substep ahead",
        "earlier substep's length",
        "second earlier substep's length",
        "state two substeps before, first entry",
    ]
    .into_iter()
    .enumerate()
    {
        fields.push((name.into(), None, ahead + k));
    }
    let mut forged_count = 0usize;
    for (name, var, i) in fields.iter().map(|(n, v, i)| (n, v, *i)) {
        let mut values: Vec<(String, f64)> = vec![
            ("NaN".into(), f64::NAN),
            ("+Inf".into(), f64::INFINITY),
            ("-1e300".into(), -1e300),
            ("-1".into(), -1.0),
        ];
        if let Some(v) = var {
            values.extend(outside_range(v));
        }
        for (label, value) in values {
            let mut b = base.clone();
            let o = HEADER + 8 * i;
            b[o..o + 8].copy_from_slice(&value.to_le_bytes());
            reseal(&mut b);
            let before = main.messages();
            forged_count += 1;
            let r = feed(ctx, &main, &mut trial, &b, Policy::Tolerate).and_then(|()| {
                // A forged state must be judged on its content: a refusal
                // for the checksum would mean the suite forged it wrong.
                if main.messages() > before && main.last_message().contains("checksum") {
                    Err(format!(
                        "refused for its checksum ({}): the suite's resealing is wrong",
                        main.last_message()
                    ))
                } else {
                    Ok(())
                }
            });
            ctx.tally.case(cat, format!("{name} = {label}"), r);
        }
    }
    let r = ctx
        .walk(&main, stage, None)
        .map_err(|e| format!("after all forged states the instance differs from its twin: {e}"));
    ctx.tally.case(
        cat,
        "after every forged state: steps like an untouched twin",
        r,
    );
    emit(&Event::Info {
        cat: "forged states".into(),
        case: "forged states that deserialize accepted (each then set and stepped: outputs finite or refused later)".into(),
        outcome: format!("{} of {forged_count}", trial.accepted),
    });
    ctx.tally.end(cat);
}
