//! The parameter groups of the valve drive and the carriage, declared once
//! for the ValveCylinder, ValveActuator and SlidingMass tables, with the
//! values of the model description (`MODEL.md`: Ustinov et al. 2022, Table
//! 2, and the values that replace the paper's garbled ones).

use crate::drive::{PV_SLOT, SmallVolume};
use crate::{Carriage, ValveDrive};
use fmu_core::Context;
use fmu_core::nalgebra::SVector;
use hydraulics::trained_volume::TrainedVolume;
use hydraulics::{
    BulkModulus, Cylinder, DirectionalValve, EndStops, LogBase, LuGre, Opening,
    PressureCompensator, ProportionalSpool,
};

fmu_core::parameters! {
    /// The hydraulic parameters: supply, compensator, small volume, 4/3
    /// valve, cylinder, oil (V1-V5, V7).
    pub struct DriveParams {
        /// Pump (supply) pressure, ideal source
        ps: real ["Pa" => "bar"] = 1.4e7, min -1e5;
        /// Tank pressure (9 bar back-pressure, Ustinov et al. 2022, Table 2)
        pt: real ["Pa" => "bar"] = 9e5, min -1e5;
        /// Initial pressure in chamber A
        p1_0: real ["Pa" => "bar"] = 9e5, min -1e5;
        /// Initial pressure in chamber B
        p2_0: real ["Pa" => "bar"] = 9e5, min -1e5;
        /// Initial pressure in the small volume Vv
        pv_0: real ["Pa" => "bar"] = 9e5, min -1e5;
        /// Compensator constant C1 (Pa per unit of K, i.e. Pa s sqrt(Pa)/m3)
        C1: real = 4.65e7;
        /// Compensator constant C2, per bar of drop ps - pv (the drop is
        /// taken in bar, V3)
        C2: real = -1.79e4;
        /// Compensator constant C3 (response time ~1 ms; Pa s per unit of K)
        C3: real = 4.0e11, above 0.0;
        /// Compensator margin: pv - max(p1, p2) held while moving
        C5: real ["Pa" => "bar"] = 1e6;
        /// Initial compensator throttle coefficient, m3/(s sqrt(Pa))
        K_0: real = 5e-11, min 0.0;
        /// Largest compensator throttle coefficient (fully open;
        /// anti-windup clamp), m3/(s sqrt(Pa))
        Kmax: real = 5e-8, above 0.0;
        /// Piston area (chamber A), 32 mm bore
        A1: real ["m2" => "mm2"] = 8.04e-4, above 0.0;
        /// Annulus area (chamber B), 22 mm rod
        A2: real ["m2" => "mm2"] = 4.24e-4, above 0.0;
        /// Cylinder stroke
        Sc: real ["m" => "mm"] = 1.0, above 0.0;
        /// Dead volume of each chamber, lines included
        Vdead: real ["m3" => "cm3"] = 1e-3, above 0.0;
        /// Small volume between compensator and valve
        Vv: real ["m3" => "cm3"] = 1e-5, above 0.0;
        /// Valve flow constant, m3/(s V sqrt(Pa))
        Cv: real = 2.315e-9, above 0.0;
        /// Valve deadband (half-width) of the spool signal
        Ud: real ["V"] = 2.0, min 0.0;
        /// Valve gain (spool signal per command)
        Kv: real ["1"] = 0.99;
        /// Natural angular frequency of the spool
        wn: real ["rad/s"] = 331.0, above 0.0;
        /// Damping ratio of the spool
        zeta: real ["1"] = 0.62, above 0.0;
        /// Transition pressure of the regularised orifice law
        p_tr: real ["Pa" => "bar"] = 1e5, above 0.0;
        /// Maximum bulk modulus of the oil
        Emax: real ["Pa" => "MPa"] = 1.8e9, above 0.0;
        /// Maximum system pressure (bulk-modulus law)
        pmax: real ["Pa" => "bar"] = 2.8e7, above 0.0;
        /// Bulk-modulus law constant a1
        a1: real ["1"] = 0.5, above 0.0;
        /// Bulk-modulus law constant a2
        a2: real ["1"] = 90.0, min 0.0;
        /// Bulk-modulus law constant a3 (> 1)
        a3: real ["1"] = 3.0, above 1.0;
        /// Quasi-static small volume (V7): pv from the flow balance Qv = Q3
        /// instead of its stiff pressure equation
        quasi_static: bool = false;
        /// A trained model in place of the small volume's equation: 0 =
        /// none (the physics, V5 or V7), 1 = NARX network (Ustinov et al.
        /// 2022), 2 = LOLIMOT local linear model tree (Štefan et al. 2007).
        /// 1 and 2 read their weights from the FMU's resources
        /// (valve-drive-pv-narx.txt, valve-drive-pv-lolimot.txt) and renew
        /// pv once per their sample period: co-simulation only, stepped by
        /// whole periods
        pv_surrogate: int = 0, min 0, max 2;
        /// Use the edge overlaps of Strashnov et al. (2023) (c1, c2 on
        /// Us/u_nom) instead of the symmetric deadband Ud
        valve_overlap: bool = false;
        /// Spool signal at full stroke (overlap option)
        u_nom: real ["V"] = 10.0, above 0.0;
        /// Positive overlap of the supply edges, normalised (overlap option)
        c1: real ["1"] = 0.05, min 0.0, max 1.0;
        /// Negative overlap of the tank edges, normalised (overlap option)
        c2: real ["1"] = 0.2, min 0.0, max 1.0;
    }
}

fmu_core::parameters! {
    /// The moving mass, its friction and the end stops (V6).
    pub struct CarriageParams {
        /// Moving mass
        m: real ["kg"] = 200.0, above 0.0;
        /// Initial position (the default starts at full stroke, on the end
        /// stop)
        x_0: real ["m" => "mm"] = 1.0;
        /// LuGre bristle stiffness (replaced: the paper's 320 N/m gives
        /// 1.1 m of pre-sliding)
        sigma0: real ["N/m"] = 2.15e6, above 0.0;
        /// LuGre bristle damping
        sigma1: real ["N.s/m"] = 6.368, min 0.0;
        /// Viscous friction coefficient
        kv: real ["N.s/m"] = 1280.0, min 0.0;
        /// Coulomb friction force (replaced: the paper prints 2.15e6 N)
        Fc: real ["N"] = 320.0, above 0.0;
        /// Stiction force (replaced: the paper prints 1.1376e10 N, read as
        /// 1.1376 Fc)
        Fs: real ["N"] = 364.0, above 0.0;
        /// Stribeck velocity (replaced: the paper prints 347 m/s)
        vs: real ["m/s" => "mm/s"] = 3.47e-3, above 0.0;
        /// End-stop contact stiffness (added)
        k_s: real ["N/m"] = 1e8, min 0.0;
        /// End-stop contact damping (added)
        c_s: real ["N.s/m"] = 2e5, min 0.0;
    }
}

impl DriveParams {
    /// The weights files of `pv_surrogate` 1 and 2, in the FMU's
    /// resources.
    pub const PV_SURROGATE_FILES: [&str; 2] =
        ["valve-drive-pv-narx.txt", "valve-drive-pv-lolimot.txt"];

    /// How the small volume's pressure is computed (`quasi_static`,
    /// `pv_surrogate`); a trained model is read from the FMU's resources
    /// and checked (checksum, slot, input and output names).
    fn small_volume(&self, context: &Context) -> Result<SmallVolume, String> {
        match (self.quasi_static, self.pv_surrogate) {
            (false, 0) => Ok(SmallVolume::Dynamic { volume: self.Vv }),
            (true, 0) => Ok(SmallVolume::QuasiStatic),
            (true, _) => Err(
                "quasi_static and pv_surrogate both replace the small volume's equation: \
                 choose one"
                    .into(),
            ),
            (false, k) => {
                let file = Self::PV_SURROGATE_FILES[(k - 1) as usize];
                let (slot, inputs, outputs) = PV_SLOT;
                let model = surrogates::Surrogate::load(
                    &context.read_resource(file)?,
                    file,
                    slot,
                    &inputs,
                    &outputs,
                )?;
                Ok(SmallVolume::Trained(TrainedVolume {
                    volume: self.Vv,
                    model: std::sync::Arc::new(model),
                }))
            }
        }
    }

    /// The drive's elements (V1-V5, V7); an error for values that are
    /// inconsistent with each other, or for a trained model that is
    /// missing from the FMU's resources or does not fit.
    pub fn drive(&self, context: &Context) -> Result<ValveDrive, String> {
        let fluid = BulkModulus {
            e_max: self.Emax,
            p_max: self.pmax,
            a1: self.a1,
            a2: self.a2,
            a3: self.a3,
            log: LogBase::Ten,
        };
        fluid.check()?;
        if self.K_0 > self.Kmax {
            return Err(format!("K_0 = {} exceeds Kmax = {}", self.K_0, self.Kmax));
        }
        let opening = if self.valve_overlap {
            Opening::Overlap {
                u_nom: self.u_nom,
                c1: self.c1,
                c2: self.c2,
            }
        } else {
            Opening::Deadband { ud: self.Ud }
        };
        Ok(ValveDrive {
            ps: self.ps,
            pt: self.pt,
            spool: ProportionalSpool {
                gain: self.Kv,
                omega: self.wn,
                damping: self.zeta,
            },
            compensator: PressureCompensator {
                c1: self.C1,
                c2: self.C2,
                c3: self.C3,
                c5: self.C5,
                k_max: self.Kmax,
                p_tr: self.p_tr,
            },
            valve: DirectionalValve {
                cv: self.Cv,
                opening,
                p_tr: self.p_tr,
            },
            cylinder: Cylinder {
                a1: self.A1,
                a2: self.A2,
                stroke: self.Sc,
                v_dead_a: self.Vdead,
                v_dead_b: self.Vdead,
            },
            fluid,
            small_volume: self.small_volume(context)?,
            initial: SVector::from([0.0, 0.0, self.K_0, self.p1_0, self.p2_0, self.pv_0]),
        })
    }
}

impl CarriageParams {
    /// The carriage (V6) moving between end stops at 0 and `stroke` (m).
    pub fn carriage(&self, stroke: f64) -> Result<Carriage, String> {
        if self.Fs < self.Fc {
            return Err(format!("Fs = {} N must be >= Fc = {} N", self.Fs, self.Fc));
        }
        Ok(Carriage {
            mass: self.m,
            friction: LuGre {
                sigma0: self.sigma0,
                sigma1: self.sigma1,
                kv: self.kv,
                fc: self.Fc,
                fs: self.Fs,
                vs: self.vs,
            },
            stops: EndStops {
                x_min: 0.0,
                x_max: stroke,
                stiffness: self.k_s,
                damping: self.c_s,
            },
            x0: self.x_0,
        })
    }
}
