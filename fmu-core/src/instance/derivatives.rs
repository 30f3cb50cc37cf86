//! Directional derivatives: the partial derivatives of the outputs and
//! (Model Exchange) the state derivatives with respect to the inputs and
//! states, analytic where the model gives them, else by central
//! differences.

use super::layout::Slot;
use super::{Instance, Op};
use crate::model::{Known, Model};
use crate::status::{FmiResult, Status};
use crate::table::{OutputRecord, Role};
use nalgebra::{SMatrix, SVector};

/// The perturbed evaluations of one known for a directional derivative:
/// `(step, up, down)` for the outputs and for the rates, each computed at
/// most once.
pub(super) struct Column<O, const NX: usize> {
    outputs: Option<(f64, O, O)>,
    rates: Option<(f64, SVector<f64, NX>, SVector<f64, NX>)>,
}

impl<O, const NX: usize> Default for Column<O, NX> {
    fn default() -> Self {
        Column {
            outputs: None,
            rates: None,
        }
    }
}

/// The rates' derivatives at one point (state, settable values), each
/// computed when first asked for.
pub(super) struct JacobianAt<const NX: usize> {
    x: SVector<f64, NX>,
    /// The settable values' version ([`super::layout::Values::version`]).
    values: u64,
    /// With respect to the states.
    j: Option<nalgebra::SMatrix<f64, NX, NX>>,
    /// With respect to the inputs (`Some(None)`: the model has no analytic
    /// ones).
    inputs: Option<Option<Vec<SVector<f64, NX>>>>,
}

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
    /// A known of a directional derivative: a Real input, or an output that
    /// shows a state.
    fn known(&self, function: &str, vr: u32) -> FmiResult<Known> {
        let name = self
            .row(vr)
            .map_or("?", |r| self.desc.variables[r].name.as_str());
        match self.layout.slot(vr) {
            Some(Slot::Input(i)) => Ok(Known::Input(i)),
            Some(Slot::State(s)) => Ok(Known::State(s)),
            Some(Slot::Output(k)) => match self.rows[self.layout.inputs + k].role {
                Role::Output { state: Some(s), .. } => Ok(Known::State(s)),
                _ => self.fail(
                    Status::Error,
                    function,
                    &format!(
                        "'{name}' is neither a Real input nor a state, so it cannot be a known"
                    ),
                ),
            },
            Some(_) => self.fail(
                Status::Error,
                function,
                &format!("'{name}' is neither a Real input nor a state, so it cannot be a known"),
            ),
            None => self.fail(
                Status::Error,
                function,
                &format!("value reference {vr} does not exist"),
            ),
        }
    }

    /// The partial derivative of output `of` (its index) with respect to
    /// `wrt`, analytic where the model provides it or the output shows a
    /// state, else by central differences (the perturbed outputs kept in
    /// `column` for the next output of the same known).
    fn output_partial(&self, of: usize, wrt: Known, column: &mut Column<M::Outputs, NX>) -> f64 {
        if let Some(d) = self.model.output_partial(&self.inputs, &self.x, of, wrt) {
            return d;
        }
        // An output that shows a state is that state.
        if let Role::Output { state: Some(s), .. } = self.rows[self.layout.inputs + of].role {
            return match wrt {
                Known::State(c) if c == s => 1.0,
                _ => 0.0,
            };
        }
        let (h, up, down) = column.outputs.get_or_insert_with(|| {
            let (h, (up_u, up_x), (down_u, down_x)) = self.perturbed(wrt);
            (
                h,
                self.model.all_outputs(&up_u, &up_x),
                self.model.all_outputs(&down_u, &down_x),
            )
        });
        (up.get(of) - down.get(of)) / (2.0 * *h)
    }

    /// The central-difference step for `wrt` and the inputs and states
    /// perturbed by it up and down.
    #[allow(clippy::type_complexity)]
    fn perturbed(
        &self,
        wrt: Known,
    ) -> (
        f64,
        (M::Inputs, SVector<f64, NX>),
        (M::Inputs, SVector<f64, NX>),
    ) {
        match wrt {
            Known::State(i) => {
                let nominal = self.model.nominal()[i].abs().max(1e-300);
                let h = 1e-6 * self.x[i].abs().max(nominal);
                let mut xp = self.x;
                let mut xm = self.x;
                xp[i] += h;
                xm[i] -= h;
                (h, (self.inputs.clone(), xp), (self.inputs.clone(), xm))
            }
            Known::Input(i) => {
                let v0 = self.values.raw()[i];
                let h = 1e-6 * v0.abs().max(1.0);
                let with = |v: f64| {
                    let mut raw = self.values.raw()[..self.layout.inputs].to_vec();
                    raw[i] = v;
                    self.layout.inputs_of::<M, NX>(&raw)
                };
                (h, (with(v0 + h), self.x), (with(v0 - h), self.x))
            }
        }
    }

    /// Directional derivative: `sensitivity = d(unknowns)/d(knowns) * seed`.
    pub fn directional_derivative(
        &self,
        function: &str,
        unknowns: &[u32],
        knowns: &[u32],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> FmiResult {
        self.check_phase(function, Op::DirectionalDerivative)?;
        if seed.len() != knowns.len() || sensitivity.len() != unknowns.len() {
            return self.fail(
                Status::Error,
                function,
                "seed must have one value per known and sensitivity one per unknown",
            );
        }
        if !seed.iter().all(|v| v.is_finite()) {
            return self.fail(Status::Error, function, "seed values must be finite");
        }
        let mut known_list = Vec::with_capacity(knowns.len());
        for &k in knowns {
            known_list.push(self.known(function, k)?);
        }
        // An unknown is an output or (Model Exchange) a state derivative.
        let mut targets = Vec::with_capacity(unknowns.len());
        for &u in unknowns {
            match self.layout.slot(u) {
                Some(Slot::Output(k)) => targets.push(Ok(k)),
                Some(Slot::Derivative(i)) => targets.push(Err(i)),
                _ => {
                    return self.fail(
                        Status::Error,
                        function,
                        &format!("value reference {u} is neither an output nor a derivative"),
                    );
                }
            }
        }
        // Column by column: each known with a non-zero seed costs one
        // Jacobian (shared by every state known) or one pair of perturbed
        // evaluations, whatever the number of unknowns.
        let mut jacobian = None;
        let mut sum = vec![0.0; unknowns.len()];
        for (j, &k) in known_list.iter().enumerate() {
            if seed[j] == 0.0 {
                continue;
            }
            let mut column = Column::default();
            for (i, target) in targets.iter().enumerate() {
                let d = match *target {
                    Ok(of) => self.output_partial(of, k, &mut column),
                    Err(row) => self.rate_partial(row, k, &mut jacobian, &mut column),
                };
                sum[i] += d * seed[j];
            }
        }
        if let Some(i) = sum.iter().position(|v| !v.is_finite()) {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "the derivative of value reference {} is not finite",
                    unknowns[i]
                ),
            );
        }
        sensitivity.copy_from_slice(&sum);
        Ok(())
    }

    /// The Jacobian of the rates at the present state: the model's
    /// analytic one, else central differences.
    pub(super) fn rate_jacobian(&self) -> SMatrix<f64, NX, NX> {
        let mut j = SMatrix::<f64, NX, NX>::zeros();
        if self
            .model
            .rates_and_jacobian(&self.inputs, &self.x, &mut j)
            .1
        {
            return j;
        }
        let nominal = self.model.nominal();
        for c in 0..self.model.active_states().min(NX) {
            let h = 1e-6 * self.x[c].abs().max(nominal[c].abs().max(1e-300));
            let (mut xp, mut xm) = (self.x, self.x);
            xp[c] += h;
            xm[c] -= h;
            let up = self.model.rates(&self.inputs, &xp);
            let down = self.model.rates(&self.inputs, &xm);
            j.set_column(c, &((up - down) / (2.0 * h)));
        }
        j
    }

    /// The derivatives kept for the present state and settable values
    /// (inputs, parameters): emptied when either has changed since.
    fn at_this_point(&self) -> std::cell::RefMut<'_, JacobianAt<NX>> {
        let version = self.values.version();
        let cache = self.jacobian.borrow_mut();
        std::cell::RefMut::map(cache, |cache| {
            let stale = cache
                .as_ref()
                .is_none_or(|c| c.x != self.x || c.values != version);
            if stale {
                *cache = None;
            }
            cache.get_or_insert_with(|| JacobianAt {
                x: self.x,
                values: version,
                j: None,
                inputs: None,
            })
        })
    }

    /// [`Instance::rate_jacobian`], kept and reused while the state and
    /// the settable values stay the same (a master that asks for the
    /// Jacobian one column per call gets it from one evaluation).
    fn cached_rate_jacobian(&self) -> SMatrix<f64, NX, NX> {
        let mut at = self.at_this_point();
        *at.j.get_or_insert_with(|| self.rate_jacobian())
    }

    /// Column `i` of the rates' analytic derivatives with respect to the
    /// inputs, when the model has them ([`Model::rate_input_jacobian`]),
    /// kept like the Jacobian.
    fn analytic_input_column(&self, i: usize) -> Option<SVector<f64, NX>> {
        let mut at = self.at_this_point();
        at.inputs
            .get_or_insert_with(|| {
                let mut columns = vec![SVector::zeros(); self.layout.inputs];
                self.model
                    .rate_input_jacobian(&self.inputs, &self.x, &mut columns)
                    .then_some(columns)
            })
            .as_ref()
            .and_then(|c| c.get(i).copied())
    }

    /// The partial derivative of the rate of state `row` with respect to
    /// `wrt`: from the Jacobian (evaluated once per call of the directional
    /// derivative, kept in `jacobian`) for a state; for an input from the
    /// model's analytic input derivatives, else by central differences (the
    /// perturbed rates kept in `column` for the next row).
    pub(super) fn rate_partial(
        &self,
        row: usize,
        wrt: Known,
        jacobian: &mut Option<SMatrix<f64, NX, NX>>,
        column: &mut Column<M::Outputs, NX>,
    ) -> f64 {
        match wrt {
            Known::State(c) => {
                jacobian.get_or_insert_with(|| self.cached_rate_jacobian())[(row, c)]
            }
            Known::Input(i) => {
                if let Some(c) = self.analytic_input_column(i) {
                    return c[row];
                }
                let (h, up, down) = column.rates.get_or_insert_with(|| {
                    let (h, (up_u, up_x), (down_u, down_x)) = self.perturbed(wrt);
                    (
                        h,
                        self.model.rates(&up_u, &up_x),
                        self.model.rates(&down_u, &down_x),
                    )
                });
                (up[row] - down[row]) / (2.0 * *h)
            }
        }
    }
}
