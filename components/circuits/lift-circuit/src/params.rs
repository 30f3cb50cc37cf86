//! The parameter groups of the lift actuator, declared once for the
//! LiftActuator and LiftHydraulics tables, with the values of Strashnov et
//! al. (2023), Table 1, and the readings of `MODEL.md` (R1-R8).

use crate::drive::{LiftDrive, LiftDriveState};
use crate::piston::{Piston, PistonState};
use hydraulics::{
    Cylinder, DirectionalValve, EndStops, Opening, ProportionalSpool, RegularisedCoulomb,
};

fmu_core::parameters! {
    /// The supply, the servo valve and its spool (L1-L4).
    pub struct ValveParams {
        /// Supply (pump) pressure, ideal source
        p_S: real ["Pa" => "bar"] = 7.6e6, min -1e5;
        /// Tank pressure
        p_T: real ["Pa" => "bar"] = 1e5, min -1e5;
        /// Oil density
        rho: real ["kg/m3"] = 800.0, above 0.0;
        /// Discharge coefficient of the spool's metering edges
        alpha_d: real ["1"] = 0.61, above 0.0;
        /// Spool diameter (its circumference is the edges' width)
        d_v: real ["m" => "mm"] = 0.005, above 0.0;
        /// Spool travel per unit of command: u = 1 puts the spool at K_v,
        /// which the overlaps read as the normalised position 1 (R1)
        K_v: real ["m" => "mm"] = 0.00833, above 0.0;
        /// Natural angular frequency of the spool
        omega_v: real ["rad/s"] = 219.0, above 0.0;
        /// Damping ratio of the spool
        D_v: real ["1"] = 0.9, above 0.0;
        /// Positive overlap of the supply edges, normalised
        c1: real ["1"] = 0.05, min 0.0, max 1.0;
        /// Negative overlap of the tank edges, normalised (both chambers
        /// vent to tank with the spool centred)
        c2: real ["1"] = 0.2, min 0.0, max 1.0;
        /// Transition pressure of the regularised square root (R7)
        p_tr: real ["Pa" => "bar"] = 1e4, above 0.0;
    }
}

fmu_core::parameters! {
    /// The cylinder's chambers and the oil's stiffness (L5).
    pub struct CylinderParams {
        /// Piston area (chamber A)
        S_A: real ["m2" => "cm2"] = 1.18e-3, above 0.0;
        /// Rod-side annulus area (chamber B)
        S_B: real ["m2" => "cm2"] = 1.18e-3, above 0.0;
        /// Volume of chamber A with the piston retracted (x_p = 0)
        V_A: real ["m3" => "cm3"] = 3e-4, above 0.0;
        /// Volume of chamber B with the piston at full stroke (R2: the
        /// printed V_B - x_p S_B is read as V_B + (stroke - x_p) S_B)
        V_B: real ["m3" => "cm3"] = 3e-4, above 0.0;
        /// Stroke: the piston moves between 0 and this
        stroke: real ["m" => "mm"] = 1.0, above 0.0;
        /// Bulk modulus of the oil (constant)
        beta: real ["Pa" => "MPa"] = 1e9, above 0.0;
        /// Initial pressure in chamber A
        pA_0: real ["Pa" => "bar"] = 1e5, min -1e5;
        /// Initial pressure in chamber B
        pB_0: real ["Pa" => "bar"] = 1e5, min -1e5;
    }
}

fmu_core::parameters! {
    /// The piston, its friction and end stops, and the load it lifts (L6).
    pub struct PistonParams {
        /// Piston (and rod) mass
        m: real ["kg"] = 10.0, above 0.0;
        /// Load carried by the rod; it moves with the piston (R3)
        M: real ["kg"] = 100.0, min 0.0;
        /// Gravity along the stroke, against extension (R8: the rod is
        /// vertical and lifts the load)
        g: real ["m/s2"] = 9.81;
        /// Viscous friction coefficient
        k: real ["N.s/m"] = 1000.0, min 0.0;
        /// Largest dry-friction force
        Ff_max: real ["N"] = 300.0, min 0.0;
        /// Regularisation speed of the dry friction (R4): the force is
        /// Ff_max tanh(v_p / v_f)
        v_f: real ["m/s" => "mm/s"] = 1e-3, above 0.0;
        /// End-stop contact stiffness (R5)
        k_s: real ["N/m"] = 1e8, min 0.0;
        /// End-stop contact damping (R5)
        c_s: real ["N.s/m"] = 1e5, min 0.0;
        /// Initial piston position (0: retracted, the load on the lower
        /// stop)
        x_p0: real ["m" => "mm"] = 0.0;
        /// Initial piston velocity
        v_p0: real ["m/s"] = 0.0;
    }
}

impl LiftDrive {
    /// The hydraulics (L1-L5) from their parameter groups; an error for
    /// values that are inconsistent with each other.
    pub fn new(v: &ValveParams, c: &CylinderParams) -> Result<LiftDrive, String> {
        if v.c1 >= 1.0 {
            return Err(format!(
                "c1 = {} leaves no opening at full spool travel (needs c1 < 1)",
                v.c1
            ));
        }
        Ok(LiftDrive {
            ps: v.p_S,
            pt: v.p_T,
            spool: ProportionalSpool {
                gain: v.K_v,
                omega: v.omega_v,
                damping: v.D_v,
            },
            valve: DirectionalValve {
                // L4: c_v = pi d_v alpha_d sqrt(2/rho), per m of opening.
                cv: std::f64::consts::PI * v.d_v * v.alpha_d * (2.0 / v.rho).sqrt(),
                opening: Opening::Overlap {
                    u_nom: v.K_v,
                    c1: v.c1,
                    c2: v.c2,
                },
                p_tr: v.p_tr,
            },
            cylinder: Cylinder {
                a1: c.S_A,
                a2: c.S_B,
                stroke: c.stroke,
                v_dead_a: c.V_A,
                v_dead_b: c.V_B,
            },
            beta: c.beta,
            initial: LiftDriveState::from([0.0, 0.0, c.pA_0, c.pB_0]),
        })
    }
}

impl Piston {
    /// The piston with its load (L6) moving between 0 and `stroke` (m).
    pub fn new(p: &PistonParams, stroke: f64) -> Result<Piston, String> {
        if !(-0.1 * stroke..=1.1 * stroke).contains(&p.x_p0) {
            return Err(format!(
                "x_p0 = {} m is outside the stroke 0 .. {stroke} m by more than 10 %",
                p.x_p0
            ));
        }
        Ok(Piston {
            mass: p.m,
            load: p.M,
            gravity: p.g,
            viscous: p.k,
            friction: RegularisedCoulomb {
                f_max: p.Ff_max,
                v_reg: p.v_f,
            },
            stops: EndStops {
                x_min: 0.0,
                x_max: stroke,
                stiffness: p.k_s,
                damping: p.c_s,
            },
            initial: PistonState::from([p.x_p0, p.v_p0]),
        })
    }
}
