//! Concurrency (16 instances in 8 threads against the same runs done
//! serially), the life-cycle loop that valgrind watches, and the RSS check.

use super::api::{Inst, Lib, OK, WARNING};
use super::suite::Ctx;
use super::xml::{Ty, Var};

/// One instance running the concurrency scenario step by step: Real inputs
/// swept around their start values (a different phase per variant), every
/// status and output recorded as bits.
struct Scenario<'a> {
    inst: Inst<'a>,
    inputs: Vec<Var>,
    outputs: Vec<u32>,
    variant: usize,
    k: usize,
    t: f64,
    h: f64,
    trace: Vec<u64>,
}

impl<'a> Scenario<'a> {
    fn new(lib: &'a Lib, variant: usize) -> Result<Self, String> {
        let inst = lib
            .instantiate(&format!("concurrent{variant}"))
            .map_err(|e| e.to_string())?;
        let ok = |what: &str, s: i32| inst.expect_ok(what, s);
        ok("enterInitializationMode", inst.enter_init(0.0))?;
        ok("exitInitializationMode", inst.exit_init())?;
        let inputs = lib
            .desc
            .variables
            .iter()
            .filter(|v| v.ty == Ty::Real && v.causality == "input")
            .cloned()
            .collect();
        let outputs = lib
            .desc
            .variables
            .iter()
            .filter(|v| v.ty == Ty::Real && v.causality == "output")
            .map(|v| v.vr)
            .collect();
        Ok(Scenario {
            inst,
            inputs,
            outputs,
            variant,
            k: 0,
            t: 0.0,
            h: lib.desc.step_size.filter(|h| *h > 0.0).unwrap_or(1e-3),
            trace: Vec::new(),
        })
    }

    fn step(&mut self) {
        for (i, v) in self.inputs.iter().enumerate() {
            let start = v.start.unwrap_or(0.0);
            let phase = 0.1 * self.k as f64 + self.variant as f64 + i as f64;
            let mut value = start * (1.0 + 0.02 * phase.sin());
            if let Some(min) = v.min {
                value = value.max(min);
            }
            if let Some(max) = v.max {
                value = value.min(max);
            }
            self.trace.push(self.inst.set_real(v.vr, value) as u64);
        }
        let s = self.inst.do_step(self.t, self.h);
        self.trace.push(s as u64);
        if s == OK {
            self.t += self.h;
        }
        let (s, values) = self.inst.get(Ty::Real, &self.outputs);
        self.trace.push(s as u64);
        self.trace.extend(values.iter().map(|v| v.to_bits()));
        self.k += 1;
    }
}

/// Category "concurrency": 16 instances in 8 threads (two per thread,
/// stepped alternately) against the same 16 runs one after another.
pub(crate) fn concurrency(ctx: &mut Ctx) {
    let cat = "concurrency";
    ctx.tally.begin(cat);
    let lib = ctx.lib;
    let steps = ctx.opts.concurrency_steps;
    let run_serial = |variant: usize| -> Result<Vec<u64>, String> {
        let mut s = Scenario::new(lib, variant)?;
        for _ in 0..steps {
            s.step();
        }
        Ok(s.trace)
    };
    let serial: Vec<Result<Vec<u64>, String>> = (0..16).map(run_serial).collect();
    let parallel: Vec<Result<Vec<u64>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|thread| {
                scope.spawn(move || {
                    let a = Scenario::new(lib, 2 * thread);
                    let b = Scenario::new(lib, 2 * thread + 1);
                    match (a, b) {
                        (Ok(mut a), Ok(mut b)) => {
                            for _ in 0..steps {
                                a.step();
                                b.step();
                            }
                            vec![Ok(a.trace), Ok(b.trace)]
                        }
                        (a, b) => vec![a.map(|s| s.trace), b.map(|s| s.trace)],
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join().unwrap_or_else(|_| {
                    vec![Err("thread panicked".into()), Err("thread panicked".into())]
                })
            })
            .collect()
    });
    for (variant, (s, p)) in serial.iter().zip(&parallel).enumerate() {
        let r = match (s, p) {
            (Ok(s), Ok(p)) if s == p => Ok(()),
            (Ok(s), Ok(p)) => {
                let at = s
                    .iter()
                    .zip(p)
                    .position(|(a, b)| a != b)
                    .unwrap_or(s.len().min(p.len()));
                Err(format!(
                    "the threaded run differs from the serial one at trace entry {at} of {}",
                    s.len()
                ))
            }
            (Err(e), _) | (_, Err(e)) => Err(e.clone()),
        };
        ctx.tally.case(
            cat,
            format!(
                "instance {variant} of 16 in 8 threads, {steps} steps: bit-identical to serial"
            ),
            r,
        );
    }
    ctx.tally.end(cat);
}

/// One life cycle: instantiate, initialize, step (inputs set), get every
/// value, get/serialize/deserialize/set/free FMU states, one refused call,
/// terminate, reset and a second short run, free.
pub(crate) fn cycle(lib: &Lib, k: usize) -> Result<(), String> {
    let inst = lib.instantiate("cycle").map_err(|e| e.to_string())?;
    let ok = |what: &str, s: i32| {
        if s == WARNING {
            Ok(())
        } else {
            inst.expect_ok(what, s)
        }
    };
    let h = lib.desc.step_size.filter(|h| *h > 0.0).unwrap_or(1e-3);
    ok("enterInitializationMode", inst.enter_init(0.0))?;
    ok("exitInitializationMode", inst.exit_init())?;
    let inputs: Vec<&Var> = lib
        .desc
        .variables
        .iter()
        .filter(|v| v.ty == Ty::Real && v.causality == "input")
        .collect();
    let mut t = 0.0;
    for step in 0..3 {
        for v in &inputs {
            let start = v.start.unwrap_or(0.0);
            let value = start * (1.0 + 0.01 * ((k + step) as f64).sin());
            let value = v.min.map_or(value, |m| value.max(m));
            let value = v.max.map_or(value, |m| value.min(m));
            ok("set input", inst.set_real(v.vr, value))?;
        }
        ok("doStep", inst.do_step(t, h))?;
        t += h;
    }
    for ty in Ty::ALL {
        let vrs: Vec<u32> = lib.desc.of_type(ty).map(|v| v.vr).collect();
        if !vrs.is_empty() {
            ok("get", inst.get(ty, &vrs).0)?;
        }
    }
    let (s, mut st) = inst.get_state();
    ok("getFMUstate", s)?;
    let bytes = inst.serialize_state(st).map_err(|e| e.to_string())?;
    let (s, mut st2) = inst.deserialize(&bytes);
    ok("deserializeFMUstate", s)?;
    ok("setFMUstate", inst.set_state(st2))?;
    ok("freeFMUstate", inst.free_state(&mut st))?;
    ok("freeFMUstate", inst.free_state(&mut st2))?;
    // A refused call: its message is allocated and freed too.
    let s = inst.set_real(u32::MAX, 0.0);
    if s == OK {
        return Err("setting value reference 4294967295 was accepted".into());
    }
    ok("doStep", inst.do_step(t, h))?;
    ok("terminate", inst.terminate())?;
    // Once more after a reset.
    ok("reset", inst.reset())?;
    ok("enterInitializationMode", inst.enter_init(0.0))?;
    ok("exitInitializationMode", inst.exit_init())?;
    ok("doStep", inst.do_step(0.0, h))?;
    ok("terminate", inst.terminate())?;
    drop(inst);
    Ok(())
}

/// Resident set size of this process in bytes (`/proc/self/statm`).
pub(crate) fn rss_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

/// Category "RSS": `rss_cycles` life cycles; the resident set may grow by
/// at most `rss_bound` bytes from the end of the first tenth to the end.
pub(crate) fn rss(ctx: &mut Ctx) {
    let cat = "RSS";
    let n = ctx.opts.rss_cycles;
    if n == 0 {
        return;
    }
    ctx.tally.begin(cat);
    let warm = (n / 10).max(1);
    let r = (|| {
        let mut first = None;
        for k in 0..n {
            cycle(ctx.lib, k).map_err(|e| format!("cycle {k}: {e}"))?;
            if k + 1 == warm {
                first = rss_bytes();
            }
        }
        let (Some(a), Some(b)) = (first, rss_bytes()) else {
            return Err("cannot read /proc/self/statm".into());
        };
        let growth = b.saturating_sub(a);
        if growth > ctx.opts.rss_bound {
            Err(format!(
                "RSS grew by {growth} bytes from cycle {warm} ({a} bytes) to cycle {n} ({b} bytes), \
                 more than the {} bytes allowed",
                ctx.opts.rss_bound
            ))
        } else {
            eprintln!("rss: cycle {warm}: {a} bytes, cycle {n}: {b} bytes, growth {growth} bytes");
            Ok(())
        }
    })();
    ctx.tally.case(
        cat,
        format!(
            "{n} life cycles: RSS growth from cycle {warm} to {n} within {} KiB",
            ctx.opts.rss_bound / 1024
        ),
        r,
    );
    ctx.tally.end(cat);
}
