//! The hostile master itself: one FMU in one FMI version, every category
//! generated from the FMU's model description. Runs inside a child process
//! (see `super::run_child`), so a crash or a hang ends only this FMU's run.
//!
//! The yardstick for "nothing changed" is an untouched twin: the suite's
//! standard path (instantiate, enter and exit Initialization Mode, `STEPS`
//! communication steps of the default experiment's step size, terminate)
//! is recorded once on a fresh instance as fingerprints (every variable of
//! every type, bit for bit, with the get status) after each call. An
//! instance that refused a call is driven along the rest of the same path
//! and must match the recording at every point.

use super::api::{DISCARD, ERROR, FATAL, Inst, Lib, OK, WARNING, status_name};
use super::report::Tally;
use super::xml::{Description, Ty, Var};
use std::collections::BTreeMap;

/// Communication steps of the standard path.
pub(crate) const STEPS: usize = 5;
/// The Step Mode point where hostile calls in Step Mode happen.
pub(crate) const MID: usize = 2;

/// Options of one child run.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Byte positions flipped in a serialized state at most.
    pub(crate) flip_sample: usize,
    /// Random buffers per FMU.
    pub(crate) random_buffers: usize,
    /// doSteps per instance in the concurrency scenario.
    pub(crate) concurrency_steps: usize,
    /// Cycles of the RSS check (0: skipped).
    pub(crate) rss_cycles: usize,
    /// RSS growth allowed between the first tenth and the end (bytes).
    pub(crate) rss_bound: u64,
    /// Seed of every random choice.
    pub(crate) seed: u64,
}

/// A point of the standard path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// After instantiate.
    Instantiated,
    /// FMI 3 Configuration Mode (entered from Instantiated).
    Config,
    /// Initialization Mode.
    Init,
    /// Step Mode after `k` communication steps.
    Step(usize),
    /// After terminate.
    Terminated,
}

impl Stage {
    pub(crate) fn name(self) -> String {
        match self {
            Stage::Instantiated => "Instantiated".into(),
            Stage::Config => "Configuration Mode".into(),
            Stage::Init => "Initialization Mode".into(),
            Stage::Step(k) => format!("Step Mode (after {k} steps)"),
            Stage::Terminated => "Terminated".into(),
        }
    }
}

/// Every variable of every type, as bits, with the status of each get.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fingerprint(Vec<(Ty, i32, Vec<u64>)>);

/// SplitMix64: the suite's seeded random numbers.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// FNV-1a 64 (the checksum of the serialized states).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Rewrites the trailing checksum of a serialized state.
pub(crate) fn reseal(bytes: &mut [u8]) {
    let n = bytes.len();
    let sum = fnv1a(&bytes[..n - 8]);
    bytes[n - 8..].copy_from_slice(&sum.to_le_bytes());
}

/// The next float above / below.
fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// Values just outside a variable's declared range: the next float beyond
/// each bound and the bound moved by 1e-6 of its size (1e-6 for a zero
/// bound).
pub(crate) fn outside_range(var: &Var) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    let step = |b: f64| if b == 0.0 { 1e-6 } else { 1e-6 * b.abs() };
    if let Some(min) = var.min {
        out.push((format!("next float below min {min:e}"), next_down(min)));
        out.push((format!("min {min:e} - 1e-6*|min|"), min - step(min)));
    }
    if let Some(max) = var.max {
        out.push((format!("next float above max {max:e}"), next_up(max)));
        out.push((format!("max {max:e} + 1e-6*|max|"), max + step(max)));
    }
    out
}

/// The odd values each setter gets, by type.
pub(crate) fn odd_values(var: &Var, fmi3: bool) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = Vec::new();
    match var.ty {
        Ty::Real => {
            for (label, x) in [
                ("NaN", f64::NAN),
                ("+Inf", f64::INFINITY),
                ("-Inf", f64::NEG_INFINITY),
                ("1e300", 1e300),
                ("-1e300", -1e300),
                ("5e-324 (denormal)", 5e-324),
                ("-1", -1.0),
                ("0", 0.0),
            ] {
                v.push((label.into(), x));
            }
            v.extend(outside_range(var));
        }
        Ty::Integer => {
            v.push(("i32::MIN".into(), f64::from(i32::MIN)));
            v.push(("i32::MAX".into(), f64::from(i32::MAX)));
            v.push(("-1".into(), -1.0));
            v.push(("0".into(), 0.0));
            if let Some(min) = var.min
                && min > f64::from(i32::MIN)
            {
                v.push((format!("min-1 = {}", min - 1.0), min - 1.0));
            }
            if let Some(max) = var.max
                && max < f64::from(i32::MAX)
            {
                v.push((format!("max+1 = {}", max + 1.0), max + 1.0));
            }
        }
        Ty::Boolean => {
            if fmi3 {
                v.push(("byte 2".into(), 2.0));
                v.push(("byte 255".into(), 255.0));
            } else {
                v.push(("2".into(), 2.0));
                v.push(("-1".into(), -1.0));
                v.push(("i32::MAX".into(), f64::from(i32::MAX)));
            }
        }
    }
    // One case per distinct value.
    let mut seen = std::collections::HashSet::new();
    v.retain(|(_, x)| seen.insert(x.to_bits()));
    v
}

/// One FMU under attack.
pub(crate) struct Ctx<'a> {
    pub(crate) lib: &'a Lib,
    pub(crate) h: f64,
    /// Communication points of the standard path (`times[k]` after k steps).
    pub(crate) times: Vec<f64>,
    /// Value references of every variable, by type.
    pub(crate) vrs: BTreeMap<Ty, Vec<u32>>,
    /// Real outputs (value reference, name).
    pub(crate) outputs: Vec<(u32, String)>,
    /// Per type, aligned with `vrs`: whether the variable is a local (the
    /// solver's work counters), which a discarded step may legitimately
    /// advance.
    pub(crate) locals: BTreeMap<Ty, Vec<bool>>,
    /// Fingerprints of the standard path: Init, after exit, after each
    /// step, Terminated.
    pub(crate) reference: Vec<Fingerprint>,
    pub(crate) opts: Options,
    pub(crate) tally: Tally,
}

/// The status a refusal must have: Error (or Discard where allowed) with a
/// message logged during the call.
pub(crate) fn check_refusal(
    status: i32,
    messages_before: usize,
    inst: &Inst,
    discard_ok: bool,
) -> Result<(), String> {
    match status {
        ERROR => {}
        DISCARD if discard_ok => {}
        OK | WARNING => {
            return Err(format!(
                "accepted (returned {}) but must be refused",
                status_name(status)
            ));
        }
        FATAL => return Err("returned Fatal for a refusable call".into()),
        other => return Err(format!("returned {}", status_name(other))),
    }
    if inst.messages() <= messages_before {
        return Err(format!(
            "refused with {} but logged no message through the callback",
            status_name(status)
        ));
    }
    Ok(())
}

impl<'a> Ctx<'a> {
    /// Records the standard path twice (the second time checks that the
    /// FMU is deterministic, without which no twin comparison means
    /// anything).
    pub(crate) fn new(lib: &'a Lib, opts: Options) -> Result<Self, String> {
        let desc = &lib.desc;
        let h = desc.step_size.filter(|h| *h > 0.0).unwrap_or(1e-3);
        let mut times = vec![0.0];
        for k in 0..STEPS + 20 {
            times.push(times[k] + h);
        }
        let mut vrs = BTreeMap::new();
        for ty in Ty::ALL {
            let mut list: Vec<u32> = desc.of_type(ty).map(|v| v.vr).collect();
            list.sort_unstable();
            if !list.is_empty() {
                vrs.insert(ty, list);
            }
        }
        let locals = vrs
            .iter()
            .map(|(ty, list)| {
                let flags = list
                    .iter()
                    .map(|vr| {
                        desc.variables
                            .iter()
                            .any(|v| v.vr == *vr && v.ty == *ty && v.causality == "local")
                    })
                    .collect();
                (*ty, flags)
            })
            .collect();
        let outputs = desc
            .variables
            .iter()
            .filter(|v| v.ty == Ty::Real && v.causality == "output")
            .map(|v| (v.vr, v.name.clone()))
            .collect();
        let mut ctx = Ctx {
            lib,
            h,
            times,
            vrs,
            outputs,
            locals,
            reference: Vec::new(),
            opts,
            tally: Tally::default(),
        };
        let mut first = Vec::new();
        let inst = lib.instantiate("reference").map_err(|e| e.to_string())?;
        ctx.walk(&inst, Stage::Instantiated, Some(&mut first))
            .map_err(|e| format!("the standard path fails on an untouched instance: {e}"))?;
        drop(inst);
        let mut second = Vec::new();
        let inst = lib.instantiate("reference2").map_err(|e| e.to_string())?;
        ctx.walk(&inst, Stage::Instantiated, Some(&mut second))
            .map_err(|e| format!("the standard path fails on a second instance: {e}"))?;
        if first != second {
            return Err(
                "two untouched instances differ along the standard path: the FMU is not \
                        deterministic, no twin comparison is possible"
                    .into(),
            );
        }
        ctx.reference = first;
        Ok(ctx)
    }

    pub(crate) fn desc(&self) -> &'a Description {
        &self.lib.desc
    }

    pub(crate) fn fmi3(&self) -> bool {
        self.lib.fmi3()
    }

    /// Every variable of every type, as bits.
    pub(crate) fn fingerprint(&self, inst: &Inst) -> Fingerprint {
        Fingerprint(
            self.vrs
                .iter()
                .map(|(ty, vrs)| {
                    let (s, v) = inst.get(*ty, vrs);
                    (*ty, s, v.into_iter().map(f64::to_bits).collect())
                })
                .collect(),
        )
    }

    /// Index into `reference` of a stage where values can be read.
    fn reference_index(stage: Stage) -> Option<usize> {
        match stage {
            Stage::Init => Some(0),
            Stage::Step(k) => Some(1 + k),
            Stage::Terminated => Some(STEPS + 2),
            Stage::Instantiated | Stage::Config => None,
        }
    }

    /// The first difference between a fingerprint and the reference.
    pub(crate) fn compare(&self, stage: Stage, fp: &Fingerprint) -> Result<(), String> {
        self.compare_with(stage, fp, false)
    }

    /// As [`Self::compare`]; `ignore_locals` leaves out the solver's work
    /// counters (after a discarded step, whose work they count).
    pub(crate) fn compare_with(
        &self,
        stage: Stage,
        fp: &Fingerprint,
        ignore_locals: bool,
    ) -> Result<(), String> {
        let Some(i) = Self::reference_index(stage) else {
            return Ok(());
        };
        let Some(reference) = self.reference.get(i) else {
            return Ok(());
        };
        for ((ty, s, bits), (_, rs, rbits)) in fp.0.iter().zip(&reference.0) {
            if s != rs {
                return Err(format!(
                    "in {}: get {:?} returned {} (twin: {})",
                    stage.name(),
                    ty,
                    status_name(*s),
                    status_name(*rs)
                ));
            }
            for (j, (b, rb)) in bits.iter().zip(rbits).enumerate() {
                if ignore_locals && self.locals[ty][j] {
                    continue;
                }
                if b != rb {
                    let vr = self.vrs[ty][j];
                    let name = self
                        .desc()
                        .variables
                        .iter()
                        .find(|v| v.vr == vr && v.ty == *ty)
                        .map_or("?", |v| v.name.as_str());
                    return Err(format!(
                        "in {}: {name} = {} but the untouched twin has {}",
                        stage.name(),
                        f64::from_bits(*b),
                        f64::from_bits(*rb)
                    ));
                }
            }
        }
        Ok(())
    }

    /// Drives `inst` from `from` along the rest of the standard path;
    /// records fingerprints (`record`) or compares them with the reference.
    pub(crate) fn walk(
        &self,
        inst: &Inst,
        from: Stage,
        record: Option<&mut Vec<Fingerprint>>,
    ) -> Result<(), String> {
        self.walk_with(inst, from, record, false)
    }

    /// As [`Self::walk`], optionally without the solver's work counters.
    pub(crate) fn walk_with(
        &self,
        inst: &Inst,
        from: Stage,
        mut record: Option<&mut Vec<Fingerprint>>,
        ignore_locals: bool,
    ) -> Result<(), String> {
        let mut stage = from;
        let check = |stage: Stage, record: &mut Option<&mut Vec<Fingerprint>>| {
            let fp = self.fingerprint(inst);
            match record {
                Some(r) => {
                    r.push(fp);
                    Ok(())
                }
                None => self.compare_with(stage, &fp, ignore_locals),
            }
        };
        if record.is_none() && Self::reference_index(from).is_some() {
            check(from, &mut record)?;
        }
        let ok = |what: &str, s: i32| inst.expect_ok(what, s);
        loop {
            stage = match stage {
                Stage::Config => {
                    ok("exitConfigurationMode", inst.exit_config())?;
                    Stage::Instantiated
                }
                Stage::Instantiated => {
                    ok("enterInitializationMode", inst.enter_init(0.0))?;
                    check(Stage::Init, &mut record)?;
                    Stage::Init
                }
                Stage::Init => {
                    ok("exitInitializationMode", inst.exit_init())?;
                    check(Stage::Step(0), &mut record)?;
                    Stage::Step(0)
                }
                Stage::Step(k) if k < STEPS => {
                    ok(
                        &format!("doStep {}", k + 1),
                        inst.do_step(self.times[k], self.h),
                    )?;
                    check(Stage::Step(k + 1), &mut record)?;
                    Stage::Step(k + 1)
                }
                Stage::Step(_) => {
                    ok("terminate", inst.terminate())?;
                    check(Stage::Terminated, &mut record)?;
                    Stage::Terminated
                }
                Stage::Terminated => return Ok(()),
            };
        }
    }

    /// A fresh instance at `stage` of the standard path.
    pub(crate) fn at(&self, stage: Stage) -> Result<Inst<'a>, String> {
        let inst = self.lib.instantiate("hostile").map_err(|e| e.to_string())?;
        let ok = |what: &str, s: i32| inst.expect_ok(what, s);
        match stage {
            Stage::Instantiated => {}
            Stage::Config => ok("enterConfigurationMode", inst.enter_config())?,
            _ => {
                ok("enterInitializationMode", inst.enter_init(0.0))?;
                if stage != Stage::Init {
                    ok("exitInitializationMode", inst.exit_init())?;
                    let k = match stage {
                        Stage::Step(k) => k,
                        _ => STEPS,
                    };
                    for i in 0..k {
                        ok("doStep", inst.do_step(self.times[i], self.h))?;
                    }
                    if stage == Stage::Terminated {
                        ok("terminate", inst.terminate())?;
                    }
                }
            }
        }
        Ok(inst)
    }

    /// The outputs must not be non-finite when returned with OK/Warning.
    pub(crate) fn check_outputs(&self, inst: &Inst, when: &str) -> Result<(), String> {
        if self.outputs.is_empty() {
            return Ok(());
        }
        let vrs: Vec<u32> = self.outputs.iter().map(|(vr, _)| *vr).collect();
        let (s, values) = inst.get(Ty::Real, &vrs);
        if s == OK || s == WARNING {
            let bad: Vec<String> = self
                .outputs
                .iter()
                .zip(&values)
                .filter(|(_, v)| !v.is_finite())
                .map(|((_, name), v)| format!("{name} = {v}"))
                .collect();
            if !bad.is_empty() {
                return Err(format!(
                    "{} returned with status {} {when}",
                    bad.join(", "),
                    status_name(s)
                ));
            }
        }
        Ok(())
    }

    /// After an accepted odd input: the rest of the standard path from
    /// `from` (plus `extra` steps), checking the outputs wherever the FMU
    /// says OK. A non-OK call ends the run (that is allowed).
    pub(crate) fn run_checked(&self, inst: &Inst, from: Stage, extra: usize) -> Result<(), String> {
        let mut stage = from;
        if matches!(stage, Stage::Init | Stage::Step(_)) {
            self.check_outputs(inst, &format!("right after the call in {}", stage.name()))?;
        }
        loop {
            stage = match stage {
                Stage::Config => {
                    if inst.exit_config() != OK {
                        return Ok(());
                    }
                    Stage::Instantiated
                }
                Stage::Instantiated => {
                    if inst.enter_init(0.0) != OK {
                        return Ok(());
                    }
                    self.check_outputs(inst, "in Initialization Mode")?;
                    Stage::Init
                }
                Stage::Init => {
                    if inst.exit_init() != OK {
                        return Ok(());
                    }
                    self.check_outputs(inst, "after exitInitializationMode")?;
                    Stage::Step(0)
                }
                Stage::Step(k) if k < STEPS + extra => {
                    let s = inst.do_step(self.times[k], self.h);
                    if s != OK && s != WARNING {
                        return Ok(());
                    }
                    self.check_outputs(
                        inst,
                        &format!("after doStep {} ({})", k + 1, status_name(s)),
                    )?;
                    Stage::Step(k + 1)
                }
                _ => return Ok(()),
            };
        }
    }

    /// Runs one hostile call on a fresh instance at `stage`: either it is
    /// refused (Error with a message, then the instance matches the twin),
    /// or, when `may_accept`, it is accepted and nothing non-finite comes
    /// back with OK afterwards.
    pub(crate) fn attack(
        &self,
        stage: Stage,
        may_accept: bool,
        discard_ok: bool,
        call: impl FnOnce(&Inst) -> i32,
    ) -> Result<(), String> {
        let inst = self.at(stage).map_err(|e| format!("setting up: {e}"))?;
        let before = inst.messages();
        let s = call(&inst);
        if may_accept && (s == OK || s == WARNING) {
            return self.run_checked(&inst, stage, 0);
        }
        check_refusal(s, before, &inst, discard_ok)?;
        // A discarded step did work: its counters may have grown, nothing
        // else may differ.
        self.walk_with(&inst, stage, None, s == DISCARD)
            .map_err(|e| {
                format!(
                    "refused ({}), but then differs from an untouched twin: {e}",
                    status_name(s)
                )
            })
    }
}

/// Where a value of `var` is set before initialization: FMI 3 structural
/// parameters in Configuration Mode, everything else in Instantiated.
pub(crate) fn set_stage(ctx: &Ctx, var: &Var) -> Stage {
    if ctx.fmi3() && var.structural {
        Stage::Config
    } else {
        Stage::Instantiated
    }
}

/// Category 1: every input and parameter with odd values, before
/// initialization and (inputs, tunable parameters) in Step Mode.
pub(crate) fn setters(ctx: &mut Ctx) {
    let cat = "setters";
    ctx.tally.begin(cat);
    let fmi3 = ctx.fmi3();
    let vars: Vec<Var> = ctx
        .desc()
        .variables
        .iter()
        .filter(|v| v.settable())
        .cloned()
        .collect();
    for var in &vars {
        for (label, value) in odd_values(var, fmi3) {
            let stage = set_stage(ctx, var);
            let r = ctx.attack(stage, true, false, |i| i.set(var.ty, var.vr, value));
            ctx.tally.case(
                cat,
                format!("set {} = {label} in {}", var.name, stage.name()),
                r,
            );
            if var.tunable_in_step_mode() {
                let stage = Stage::Step(MID);
                let r = ctx.attack(stage, true, false, |i| i.set(var.ty, var.vr, value));
                ctx.tally.case(
                    cat,
                    format!("set {} = {label} in {}", var.name, stage.name()),
                    r,
                );
            }
        }
    }
    ctx.tally.end(cat);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(ty: Ty, min: Option<f64>, max: Option<f64>) -> Var {
        Var {
            name: "v".into(),
            vr: 1,
            ty,
            causality: "parameter".into(),
            variability: "fixed".into(),
            start: Some(1.0),
            min,
            max,
            structural: false,
        }
    }

    #[test]
    fn fnv1a_matches_the_published_vectors() {
        // FNV-1a 64 test vectors (Fowler, Noll, Vo).
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn values_outside_a_range_are_outside_it() {
        let v = var(Ty::Real, Some(0.0), Some(2e5));
        let out = outside_range(&v);
        assert_eq!(out.len(), 4);
        for (label, x) in &out {
            assert!(*x < 0.0 || *x > 2e5, "{label}: {x} is inside [0, 2e5]");
        }
        assert_eq!(out[0].1, -f64::from_bits(1));
        assert_eq!(out[2].1, f64::from_bits(2e5f64.to_bits() + 1));
        let negative = var(Ty::Real, Some(-1e5), None);
        let below = outside_range(&negative);
        assert!(below.iter().all(|(_, x)| *x < -1e5));
    }

    #[test]
    fn odd_values_are_distinct_and_typed() {
        let real = odd_values(&var(Ty::Real, Some(0.0), Some(1.0)), false);
        let mut bits: Vec<u64> = real.iter().map(|(_, x)| x.to_bits()).collect();
        bits.sort_unstable();
        bits.dedup();
        assert_eq!(bits.len(), real.len());
        assert!(real.iter().any(|(_, x)| x.is_nan()));
        let int = odd_values(&var(Ty::Integer, Some(1.0), Some(14.0)), false);
        assert!(int.iter().any(|(_, x)| *x == 0.0) && int.iter().any(|(_, x)| *x == 15.0));
        assert!(int.iter().all(|(_, x)| x.fract() == 0.0));
        let b3 = odd_values(&var(Ty::Boolean, None, None), true);
        assert!(b3.iter().all(|(_, x)| *x > 1.0 && *x <= 255.0));
    }

    #[test]
    fn resealing_an_unchanged_buffer_changes_nothing() {
        let mut b: Vec<u8> = (0..40u8).collect();
        let sum = fnv1a(&b[..32]);
        b[32..].copy_from_slice(&sum.to_le_bytes());
        let before = b.clone();
        reseal(&mut b);
        assert_eq!(b, before);
        b[3] ^= 1;
        reseal(&mut b);
        assert_ne!(b[32..], before[32..]);
    }
}
