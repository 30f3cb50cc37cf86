//! Category 5: doStep with bad step sizes and communication points, and
//! the divergence check of the fixed-step explicit solvers.

use super::api::{OK, WARNING, status_name};
use super::suite::{Ctx, MID, Stage};
use super::xml::Ty;

/// Category 5.
pub(crate) fn do_step_args(ctx: &mut Ctx) {
    let cat = "doStep args";
    ctx.tally.begin(cat);
    let stage = Stage::Step(MID);
    let t = ctx.times[MID];
    let h = ctx.h;
    // (label, t, h, may be accepted)
    let cases: Vec<(String, f64, f64, bool)> = vec![
        ("step size 0".into(), t, 0.0, true),
        ("step size -h".into(), t, -h, false),
        ("step size NaN".into(), t, f64::NAN, false),
        ("step size +Inf".into(), t, f64::INFINITY, false),
        ("step size -Inf".into(), t, f64::NEG_INFINITY, false),
        ("step size 1e-300".into(), t, 1e-300, true),
        ("step size 1e6".into(), t, 1e6, true),
        ("communication point one step early".into(), t - h, h, false),
        ("communication point one step late".into(), t + h, h, false),
        ("communication point NaN".into(), f64::NAN, h, false),
        ("communication point +Inf".into(), f64::INFINITY, h, false),
    ];
    for (label, tt, hh, may_accept) in cases {
        let r = ctx.attack(stage, may_accept, true, |i| i.do_step(tt, hh));
        ctx.tally
            .case(cat, format!("doStep: {label} in {}", stage.name()), r);
    }
    divergence(ctx, cat);
    ctx.tally.end(cat);
}

/// Each explicit solver (every value of the `solver` parameter other than
/// its default) at its largest fixed step, with communication steps of
/// that size: OK must never come with non-finite outputs.
fn divergence(ctx: &mut Ctx, cat: &str) {
    let desc = ctx.desc();
    let Some(solver) = desc.var("solver").filter(|v| v.ty == Ty::Integer).cloned() else {
        return;
    };
    let step_var = desc.var("explicit_step").cloned();
    let (Some(lo), Some(hi)) = (solver.min, solver.max) else {
        return;
    };
    let step = step_var
        .as_ref()
        .and_then(|v| v.max)
        .unwrap_or(ctx.h)
        .min(1e3);
    let steps = 20;
    // Inputs at their start values, and a second run with every Real input
    // that starts at 0 pushed to 1 (inside its range): a system at rest
    // stays at rest under any solver, a pushed one shows whether the
    // explicit step is stable.
    let kicked: Vec<(u32, f64)> = desc
        .variables
        .iter()
        .filter(|v| v.ty == Ty::Real && v.causality == "input" && v.start.unwrap_or(0.0) == 0.0)
        .map(|v| {
            let mut x: f64 = 1.0;
            if let Some(max) = v.max {
                x = x.min(max);
            }
            if let Some(min) = v.min {
                x = x.max(min);
            }
            (v.vr, x)
        })
        .filter(|(_, x)| *x != 0.0)
        .collect();
    let variants: Vec<(&str, Vec<(u32, f64)>)> = if kicked.is_empty() {
        vec![("inputs at start", Vec::new())]
    } else {
        vec![
            ("inputs at start", Vec::new()),
            ("zero inputs set to 1", kicked),
        ]
    };
    for code in (lo as i32)..=(hi as i32) {
        if Some(f64::from(code)) == solver.start {
            continue;
        }
        for (variant, inputs) in &variants {
            let r = (|| {
                let inst = ctx.at(Stage::Instantiated)?;
                let s = inst.set_int(solver.vr, code);
                if s != OK {
                    return Err(format!(
                        "setting solver = {code} returned {}",
                        status_name(s)
                    ));
                }
                if let Some(v) = &step_var {
                    let s = inst.set_real(v.vr, step);
                    if s != OK {
                        return Err(format!(
                            "setting explicit_step = {step} returned {}",
                            status_name(s)
                        ));
                    }
                }
                for (vr, x) in inputs {
                    if inst.set_real(*vr, *x) != OK {
                        return Ok(());
                    }
                }
                if inst.enter_init(0.0) != OK || inst.exit_init() != OK {
                    return Ok(());
                }
                let mut t = 0.0;
                for k in 0..steps {
                    let s = inst.do_step(t, step);
                    if s != OK && s != WARNING {
                        return Ok(());
                    }
                    ctx.check_outputs(
                        &inst,
                        &format!("after doStep {} ({})", k + 1, status_name(s)),
                    )?;
                    t += step;
                }
                Ok(())
            })();
            ctx.tally.case(
                cat,
                format!(
                    "divergence: solver = {code}, explicit_step = {step} s, {steps} steps of {step} s, {variant}"
                ),
                r,
            );
        }
    }
}
