//! The whole circuit: the linkage (M1-M7) driven by the hydraulics (F1-F8)
//! through the cylinder, over the state vector
//! `[θ, θ', pp, p1, p2, U, W_h, W_f]` (the two work integrals give the
//! energy balance E1), laid out once in [`FourBarStates`]: the FourBar FMU
//! and its estimation model FourBarTwin take their states from it and
//! evaluate them here.

use crate::{Actuator, HydraulicStates, Linkage};
use fmu_core::blocks::{BlockJacobian, StateGroup};
use fmu_core::nalgebra::{SMatrix, SVector};

fmu_core::states! {
    /// The whole circuit's states, the layout of the FourBar and FourBarTwin
    /// tables (`states { layout FourBarStates; }`): its constants are the
    /// indices this file and the FMUs use.
    pub struct FourBarStates {
        /// Crank angle θ, rad
        theta: nominal 1.0;
        /// Crank rate θ', rad/s
        omega: nominal 1.0;
        /// The hydraulics: pump-line and chamber pressures, spool
        hyd: group HydraulicStates;
        /// Hydraulic work on the piston, J
        W_h: nominal 1e4;
        /// Work dissipated by seal friction, J
        W_f: nominal 1e4;
    }
}

/// Number of states.
pub const NX: usize = FourBarStates::LEN;

const THETA: usize = FourBarStates::theta;
const OMEGA: usize = FourBarStates::omega;
const W_H: usize = FourBarStates::W_h;
const W_F: usize = FourBarStates::W_f;
const P1: usize = FourBarStates::hyd.index(HydraulicStates::p1);
const P2: usize = FourBarStates::hyd.index(HydraulicStates::p2);

/// The start (`MODEL.md`, start): at rest at the linkage's θ0 (where
/// s = s0), p1 holding the linkage against gravity, pp where the relief
/// passes the pump flow, spool closed, no work done yet.
pub fn initial_state(linkage: &Linkage, actuator: &Actuator) -> SVector<f64, NX> {
    let mut x = SVector::<f64, NX>::zeros();
    x[THETA] = linkage.theta0;
    let force = linkage.holding_force(linkage.theta0).unwrap_or(f64::NAN);
    FourBarStates::hyd.write(&mut x, &actuator.initial(force));
    x
}

/// The rates at state `x` with valve command `u_ref` (V), and (when `jac`
/// is given) their analytic Jacobian; NaN rates where the linkage cannot
/// close its loop.
pub fn rates(
    linkage: &Linkage,
    actuator: &Actuator,
    u_ref: f64,
    x: &SVector<f64, NX>,
    jac: Option<&mut SMatrix<f64, NX, NX>>,
) -> SVector<f64, NX> {
    let (theta, omega) = (x[THETA], x[OMEGA]);
    let evaluated = if jac.is_some() {
        linkage
            .dynamics_with_derivatives(theta, omega)
            .map(|(l, d)| (l, Some(d)))
    } else {
        linkage.dynamics(theta, omega).map(|l| (l, None))
    };
    let Ok((l, dl)) = evaluated else {
        return SVector::repeat(f64::NAN);
    };
    let h = FourBarStates::hyd.read(x);
    let a = actuator.eval(u_ref, &h, l.s, l.s_dot);
    let mut dx = SVector::<f64, NX>::zeros();
    dx[THETA] = omega;
    dx[OMEGA] = l.theta_ddot(a.force);
    FourBarStates::hyd.write(&mut dx, &a.rates);
    let piston = x[P1] * actuator.a1 - x[P2] * actuator.a2;
    dx[W_H] = piston * l.s_dot;
    dx[W_F] = a.friction * l.s_dot;
    if let Some(j) = jac {
        j.fill(0.0);
        let d_force = l.dtheta_ddot_dforce();
        j[(THETA, OMEGA)] = 1.0;
        // θ' column: the velocity terms, friction through s' = ds θ', and
        // the hydraulics' dependence on s'.
        j[(OMEGA, OMEGA)] = l.dtheta_ddot_domega + d_force * a.force_sdot * l.ds;
        j.block_column(FourBarStates::hyd, OMEGA)
            .copy_from(&(a.d_sdot * l.ds));
        j[(W_H, OMEGA)] = piston * l.ds;
        // dF_mu/ds' is -dF_h/ds'.
        let friction_v = -a.force_sdot;
        j[(W_F, OMEGA)] = (a.friction + friction_v * l.s_dot) * l.ds;
        // Hydraulic columns.
        j.block(FourBarStates::hyd, FourBarStates::hyd)
            .copy_from(&a.jac);
        j[(OMEGA, P1)] = d_force * actuator.a1;
        j[(OMEGA, P2)] = -d_force * actuator.a2;
        j[(W_H, P1)] = actuator.a1 * l.s_dot;
        j[(W_H, P2)] = -actuator.a2 * l.s_dot;
        // θ column: the geometry (M4, M6) through s, s' = ds θ', the
        // generalised mass and forces.
        if let Some(d) = dl {
            let dsdot = d.dds * omega;
            let dforce = a.force_sdot * dsdot;
            j[(OMEGA, THETA)] = d.theta_ddot(&l, a.force) + d_force * dforce;
            j.block_column(FourBarStates::hyd, THETA)
                .copy_from(&(a.d_s * l.ds + a.d_sdot * dsdot));
            j[(W_H, THETA)] = piston * dsdot;
            j[(W_F, THETA)] = (a.friction + friction_v * l.s_dot) * dsdot;
        }
    }
    dx
}
