//! The checks that keep non-finite numbers from a master: a configured
//! model evaluated once at its initial state, and the first non-finite
//! state or output described for a message.

use super::layout::Decoded;
use crate::context::{Context, ResourceFolder};
use crate::model::Model;
use crate::table::{Number, OutputRecord, Table};
use nalgebra::SVector;

/// Configures `M` from the decoded parameter values and checks what
/// came out: the coefficients the circuit declares ([`Model::derived`]),
/// then one evaluation at the initial state of the decoded inputs
/// (state, rates, analytic Jacobian, outputs), all of which must be finite.
/// Parameter values inside their ranges can still combine into a useless
/// circuit (a transition pressure of 5e-324 Pa, a hose 1e300 m long); this
/// is where that is refused, with a message, before any NaN reaches a
/// master.
pub(super) fn build_model<M: Model<NX>, const NX: usize>(
    decoded: &Decoded<M, NX>,
    resources: &ResourceFolder,
) -> Result<M, String> {
    let model = M::configure(&decoded.params, &Context::new(resources))?;
    for coefficient in model.derived() {
        coefficient.check()?;
    }
    first_evaluation(&model, &decoded.inputs)
        .map_err(|what| format!("these parameter values give {what} at the initial state"))?;
    Ok(model)
}

/// The name of state `i` for messages.
pub(super) fn state_name<M: Table>(i: usize) -> String {
    M::state_names()
        .get(i)
        .map_or_else(|| format!("#{i}"), |n| format!("'{n}'"))
}

/// The first non-finite value among the active states and the outputs at
/// state `x`, described; `None` when all are finite. Allocates only to
/// describe a fault.
pub(super) fn non_finite<M: Model<NX>, const NX: usize>(
    model: &M,
    inputs: &M::Inputs,
    x: &SVector<f64, NX>,
) -> Option<String> {
    non_finite_state(model, x).or_else(|| non_finite_output::<M, NX>(&model.all_outputs(inputs, x)))
}

/// The first non-finite active state, described.
pub(super) fn non_finite_state<M: Model<NX>, const NX: usize>(
    model: &M,
    x: &SVector<f64, NX>,
) -> Option<String> {
    let active = model.active_states().min(NX);
    let i = (0..active).find(|&i| !x[i].is_finite())?;
    Some(format!("state {} = {}", state_name::<M>(i), Number(x[i])))
}

/// The first non-finite output in `out`, described.
pub(super) fn non_finite_output<M: Model<NX>, const NX: usize>(out: &M::Outputs) -> Option<String> {
    let k = (0..<M::Outputs as OutputRecord>::len()).find(|&k| !out.get(k).is_finite())?;
    let mut rows = Vec::new();
    <M::Outputs as OutputRecord>::rows(&mut rows);
    let name = rows.get(k).map_or("?", |r| r.name);
    Some(format!("output '{name}' = {}", Number(out.get(k))))
}

/// One evaluation of a freshly configured model at its initial state:
/// a description of the first non-finite value, if any.
fn first_evaluation<M: Model<NX>, const NX: usize>(
    model: &M,
    inputs: &M::Inputs,
) -> Result<(), String> {
    let x = model.initial_state(inputs);
    let active = model.active_states().min(NX);
    if let Some(what) = non_finite(model, inputs, &x) {
        return Err(what);
    }
    let mut j = nalgebra::SMatrix::<f64, NX, NX>::zeros();
    let (dx, analytic) = model.rates_and_jacobian(inputs, &x, &mut j);
    if let Some(i) = (0..active).find(|&i| !dx[i].is_finite()) {
        return Err(format!(
            "the rate of state {} = {}",
            state_name::<M>(i),
            Number(dx[i])
        ));
    }
    if analytic {
        for c in 0..active {
            if let Some(r) = (0..active).find(|&r| !j[(r, c)].is_finite()) {
                return Err(format!(
                    "the Jacobian entry d(rate of {})/d({}) = {}",
                    state_name::<M>(r),
                    state_name::<M>(c),
                    Number(j[(r, c)])
                ));
            }
        }
    }
    Ok(())
}
