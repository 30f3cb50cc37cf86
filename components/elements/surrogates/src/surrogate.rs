//! The wrapper a circuit uses: a model with its scalings, names and header.

use crate::{Lolimot, MAX_INPUTS, MAX_OUTPUTS, Mlp, Scaling};

/// Which kind of model a surrogate holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A feed-forward network ([`Mlp`]).
    Mlp,
    /// One local linear model tree per output ([`Lolimot`]).
    Lolimot,
}

impl Kind {
    /// The name used in the weights file: `mlp` or `lolimot`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Mlp => "mlp",
            Kind::Lolimot => "lolimot",
        }
    }
}

/// The model inside a [`Surrogate`], in normalized space.
#[derive(Debug, Clone, PartialEq)]
pub enum Model {
    /// One network for all outputs.
    Mlp(Mlp),
    /// One local linear model tree per output, in output order.
    Lolimot(Vec<Lolimot>),
}

impl Model {
    /// The kind of model.
    pub fn kind(&self) -> Kind {
        match self {
            Model::Mlp(_) => Kind::Mlp,
            Model::Lolimot(_) => Kind::Lolimot,
        }
    }
}

/// A trained model as a circuit uses it: maps physical inputs to physical
/// outputs through the input [`Scaling`], the normalized-space [`Model`] and
/// the inverse output scaling. It also carries the weights file's header:
/// the slot (a free identifier of the place in a circuit that the model
/// fits, e.g. `valve-drive/pv`), the sample period it was trained for (s; 0
/// for a static map), the input and output names, and a one-line note.
///
/// Inputs outside the training range are not clamped: the model
/// extrapolates.
#[derive(Debug, Clone, PartialEq)]
pub struct Surrogate {
    model: Model,
    input_scaling: Scaling,
    output_scaling: Scaling,
    input_names: Vec<String>,
    output_names: Vec<String>,
    slot: String,
    period: f64,
    note: String,
}

/// Checks that `name` can stand in the weights file as one token.
pub(crate) fn check_token(what: &str, name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("{what} is empty"));
    }
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "{what} '{}' contains white space or a control character",
            name.escape_debug()
        ));
    }
    Ok(())
}

impl Surrogate {
    /// A surrogate from a model, its input and output names and scalings.
    /// The slot starts as `unassigned`, the period as 0 and the note empty
    /// (see the setters). Fails if the counts disagree, exceed
    /// [`MAX_INPUTS`] or [`MAX_OUTPUTS`], or a name is empty, contains white
    /// space or repeats.
    pub fn new(
        model: Model,
        input_names: Vec<String>,
        output_names: Vec<String>,
        input_scaling: Scaling,
        output_scaling: Scaling,
    ) -> Result<Self, String> {
        let (n_in, n_out) = match &model {
            Model::Mlp(m) => (m.n_inputs(), m.n_outputs()),
            Model::Lolimot(trees) => {
                let Some(first) = trees.first() else {
                    return Err("a LOLIMOT surrogate needs at least one output".into());
                };
                let n_in = first.n_inputs();
                if let Some(k) = trees.iter().position(|t| t.n_inputs() != n_in) {
                    return Err(format!(
                        "LOLIMOT output {k} has {} inputs, output 0 has {n_in}",
                        trees[k].n_inputs()
                    ));
                }
                (n_in, trees.len())
            }
        };
        if n_in > MAX_INPUTS {
            return Err(format!("{n_in} inputs, at most {MAX_INPUTS} are supported"));
        }
        if n_out > MAX_OUTPUTS {
            return Err(format!(
                "{n_out} outputs, at most {MAX_OUTPUTS} are supported"
            ));
        }
        for (what, names, n, scaling) in [
            ("input", &input_names, n_in, &input_scaling),
            ("output", &output_names, n_out, &output_scaling),
        ] {
            if names.len() != n {
                return Err(format!(
                    "the model has {n} {what}s but {} {what} names were given",
                    names.len()
                ));
            }
            if scaling.len() != n {
                return Err(format!(
                    "the model has {n} {what}s but the {what} scaling has {} columns",
                    scaling.len()
                ));
            }
            for (k, name) in names.iter().enumerate() {
                check_token(&format!("{what} name {k}"), name)?;
                if names[..k].contains(name) {
                    return Err(format!("{what} name '{name}' appears twice"));
                }
            }
        }
        Ok(Self {
            model,
            input_scaling,
            output_scaling,
            input_names,
            output_names,
            slot: "unassigned".into(),
            period: 0.0,
            note: String::new(),
        })
    }

    /// Sets the slot: a free identifier of the place the model fits (one
    /// token, no white space), e.g. `valve-drive/pv`.
    pub fn set_slot(&mut self, slot: &str) -> Result<(), String> {
        check_token("the slot", slot)?;
        self.slot = slot.to_string();
        Ok(())
    }

    /// Sets the sample period (s) the model was trained for; 0 for a static
    /// map. Must be finite and >= 0.
    pub fn set_period(&mut self, period: f64) -> Result<(), String> {
        if !(period.is_finite() && period >= 0.0) {
            return Err(format!(
                "the period must be finite and >= 0 s, it is {period:?}"
            ));
        }
        self.period = period;
        Ok(())
    }

    /// Sets the one-line note (how the model was trained). Line breaks and
    /// other control characters are replaced by spaces; leading and trailing
    /// white space is dropped.
    pub fn set_note(&mut self, note: &str) {
        let one_line: String = note
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        self.note = one_line.trim().to_string();
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The kind of model.
    pub fn kind(&self) -> Kind {
        self.model.kind()
    }

    /// The input scaling (physical to normalized).
    pub fn input_scaling(&self) -> &Scaling {
        &self.input_scaling
    }

    /// The output scaling (physical to normalized).
    pub fn output_scaling(&self) -> &Scaling {
        &self.output_scaling
    }

    /// The input names, in order.
    pub fn input_names(&self) -> &[String] {
        &self.input_names
    }

    /// The output names, in order.
    pub fn output_names(&self) -> &[String] {
        &self.output_names
    }

    /// The slot the model fits.
    pub fn slot(&self) -> &str {
        &self.slot
    }

    /// The sample period (s) the model was trained for; 0 for a static map.
    pub fn period(&self) -> f64 {
        self.period
    }

    /// The one-line note.
    pub fn note(&self) -> &str {
        &self.note
    }

    /// Number of inputs.
    pub fn n_inputs(&self) -> usize {
        self.input_names.len()
    }

    /// Number of outputs.
    pub fn n_outputs(&self) -> usize {
        self.output_names.len()
    }

    /// The physical outputs at physical inputs. Allocates nothing.
    ///
    /// # Panics
    /// If a slice has the wrong length.
    pub fn eval(&self, physical_inputs: &[f64], physical_outputs: &mut [f64]) {
        let (n_in, n_out) = (self.n_inputs(), self.n_outputs());
        assert_eq!(
            physical_inputs.len(),
            n_in,
            "surrogate: wrong number of inputs"
        );
        assert_eq!(
            physical_outputs.len(),
            n_out,
            "surrogate: wrong number of outputs"
        );
        let mut u = [0.0f64; MAX_INPUTS];
        let mut v = [0.0f64; MAX_OUTPUTS];
        self.input_scaling
            .forward_slice(physical_inputs, &mut u[..n_in]);
        match &self.model {
            Model::Mlp(m) => m.eval(&u[..n_in], &mut v[..n_out]),
            Model::Lolimot(trees) => {
                for (k, t) in trees.iter().enumerate() {
                    v[k] = t.eval(&u[..n_in]);
                }
            }
        }
        self.output_scaling
            .inverse_slice(&v[..n_out], physical_outputs);
    }

    /// Like [`eval`](Self::eval), and also `jac[k * n_in + j] = d y_k / d x_j`
    /// (row-major `n_out x n_in`) in physical units: the model's Jacobian
    /// times the scalings' derivative factors. Allocates nothing.
    ///
    /// # Panics
    /// If a slice has the wrong length.
    pub fn eval_with_jacobian(
        &self,
        physical_inputs: &[f64],
        physical_outputs: &mut [f64],
        jac: &mut [f64],
    ) {
        let (n_in, n_out) = (self.n_inputs(), self.n_outputs());
        assert_eq!(
            physical_inputs.len(),
            n_in,
            "surrogate: wrong number of inputs"
        );
        assert_eq!(
            physical_outputs.len(),
            n_out,
            "surrogate: wrong number of outputs"
        );
        assert_eq!(jac.len(), n_out * n_in, "surrogate: wrong Jacobian length");
        let mut u = [0.0f64; MAX_INPUTS];
        let mut v = [0.0f64; MAX_OUTPUTS];
        self.input_scaling
            .forward_slice(physical_inputs, &mut u[..n_in]);
        match &self.model {
            Model::Mlp(m) => m.eval_with_jacobian(&u[..n_in], &mut v[..n_out], jac),
            Model::Lolimot(trees) => {
                for (k, t) in trees.iter().enumerate() {
                    v[k] = t.eval_with_jacobian(&u[..n_in], &mut jac[k * n_in..(k + 1) * n_in]);
                }
            }
        }
        self.output_scaling
            .inverse_slice(&v[..n_out], physical_outputs);
        for k in 0..n_out {
            let fk = self.output_scaling.inverse_factor(k);
            for j in 0..n_in {
                jac[k * n_in + j] *= fk * self.input_scaling.factor(j);
            }
        }
    }
}
