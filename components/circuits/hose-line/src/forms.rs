//! The four forms' tables: each form's inputs and outputs are the two ends'
//! pressures and flows in its causality; the hose parameters, with the
//! segment count, are one shared group.

use crate::model::{Ends, FormTable, HoseG, HoseH, HoseY, HoseZ};
use crate::network::Boundary;
use crate::params::HoseParams;

/// Form H: flow in at the inlet, pressure at the outlet.
pub mod h {
    use super::*;

    fmu_core::circuit! {
        model HoseH {
            description: "Hydraulic hose, n lumped segments, causal form H: inputs Q1, p2; outputs p1, Q2",
            documentation: concat!(
                include_str!("../MODEL.md"),
                "\n## Schematic of HoseH\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The inputs `Q1` and `p2` at the hose's two ends.\n\n",
                include_str!("../schematic-HoseH.svg")
            ),
            stop_time: 0.2,
            step_size: 1e-4,
        }
        states { reserve crate::NX; }
        inputs Inputs {
            /// Inflow at the inlet
            Q1: ["m3/s" => "L/min"] = 5e-4;
            /// Outlet pressure
            p2: ["Pa" => "bar"] = 1e7, min -1e5, max 1e9;
        }
        outputs Outputs {
            /// Inlet pressure
            p1: ["Pa" => "bar"];
            /// Outflow at the outlet
            Q2: ["m3/s" => "L/min"];
        }
        parameters Params {}
        groups {
            /// The hose
            hose: HoseParams,
        }
    }

    impl FormTable for HoseH {
        fn boundary(u: &Inputs) -> Boundary {
            Boundary {
                q1: u.Q1,
                p2: u.p2,
                ..Default::default()
            }
        }
        fn read_outputs(ends: &Ends, out: &mut Outputs) {
            (out.p1, out.Q2) = (ends.p1, ends.q2);
        }
        fn hose(p: &Params) -> &HoseParams {
            &p.hose
        }
    }
}

/// Form G: pressure at the inlet, flow out at the outlet.
pub mod g {
    use super::*;

    fmu_core::circuit! {
        model HoseG {
            description: "Hydraulic hose, n lumped segments, causal form G: inputs p1, Q2; outputs Q1, p2",
            documentation: concat!(
                include_str!("../MODEL.md"),
                "\n## Schematic of HoseG\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The inputs `p1` and `Q2` at the hose's two ends.\n\n",
                include_str!("../schematic-HoseG.svg")
            ),
            stop_time: 0.2,
            step_size: 1e-4,
        }
        states { reserve crate::NX; }
        inputs Inputs {
            /// Inlet pressure
            p1: ["Pa" => "bar"] = 1.0075e7, min -1e5, max 1e9;
            /// Outflow at the outlet
            Q2: ["m3/s" => "L/min"] = 5e-4;
        }
        outputs Outputs {
            /// Inflow at the inlet
            Q1: ["m3/s" => "L/min"];
            /// Outlet pressure
            p2: ["Pa" => "bar"];
        }
        parameters Params {}
        groups {
            /// The hose
            hose: HoseParams,
        }
    }

    impl FormTable for HoseG {
        fn boundary(u: &Inputs) -> Boundary {
            Boundary {
                p1: u.p1,
                q2: u.Q2,
                ..Default::default()
            }
        }
        fn read_outputs(ends: &Ends, out: &mut Outputs) {
            (out.Q1, out.p2) = (ends.q1, ends.p2);
        }
        fn hose(p: &Params) -> &HoseParams {
            &p.hose
        }
    }
}

/// Form Y: pressures at both ends.
pub mod y {
    use super::*;

    fmu_core::circuit! {
        model HoseY {
            description: "Hydraulic hose, n lumped segments, causal form Y: inputs p1, p2; outputs Q1, Q2",
            documentation: concat!(
                include_str!("../MODEL.md"),
                "\n## Schematic of HoseY\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The inputs `p1` and `p2` at the hose's two ends.\n\n",
                include_str!("../schematic-HoseY.svg")
            ),
            stop_time: 0.2,
            step_size: 1e-4,
        }
        states { reserve crate::NX; }
        inputs Inputs {
            /// Inlet pressure
            p1: ["Pa" => "bar"] = 1.0075e7, min -1e5, max 1e9;
            /// Outlet pressure
            p2: ["Pa" => "bar"] = 1e7, min -1e5, max 1e9;
        }
        outputs Outputs {
            /// Inflow at the inlet
            Q1: ["m3/s" => "L/min"];
            /// Outflow at the outlet
            Q2: ["m3/s" => "L/min"];
        }
        parameters Params {}
        groups {
            /// The hose
            hose: HoseParams,
        }
    }

    impl FormTable for HoseY {
        fn boundary(u: &Inputs) -> Boundary {
            Boundary {
                p1: u.p1,
                p2: u.p2,
                ..Default::default()
            }
        }
        fn read_outputs(ends: &Ends, out: &mut Outputs) {
            (out.Q1, out.Q2) = (ends.q1, ends.q2);
        }
        fn hose(p: &Params) -> &HoseParams {
            &p.hose
        }
    }
}

/// Form Z: flows at both ends; the pressure level is a parameter.
pub mod z {
    use super::*;

    fmu_core::circuit! {
        model HoseZ {
            description: "Hydraulic hose, n lumped segments, causal form Z: inputs Q1, Q2; outputs p1, p2",
            documentation: concat!(
                include_str!("../MODEL.md"),
                "\n## Schematic of HoseZ\n\nThe circuit in ISO 1219-1 symbols, drawn from its parts by `circuit_file::schematic` (the list is in `components/circuits/circuit-file/tests/hand_written_schematics.rs`). The inputs `Q1` and `Q2` at the hose's two ends.\n\n",
                include_str!("../schematic-HoseZ.svg")
            ),
            stop_time: 0.2,
            step_size: 1e-4,
        }
        states { reserve crate::NX; }
        inputs Inputs {
            /// Inflow at the inlet
            Q1: ["m3/s" => "L/min"] = 5e-4;
            /// Outflow at the outlet
            Q2: ["m3/s" => "L/min"] = 5e-4;
        }
        outputs Outputs {
            /// Inlet pressure
            p1: ["Pa" => "bar"];
            /// Outlet pressure
            p2: ["Pa" => "bar"];
        }
        parameters Params {
            /// Initial outlet pressure (form Z integrates both end
            /// pressures: their level is free)
            p_level: real ["Pa" => "bar"] = 1e7, min 0.0;
        }
        groups {
            /// The hose
            hose: HoseParams,
        }
    }

    impl FormTable for HoseZ {
        fn boundary(u: &Inputs) -> Boundary {
            Boundary {
                q1: u.Q1,
                q2: u.Q2,
                ..Default::default()
            }
        }
        fn read_outputs(ends: &Ends, out: &mut Outputs) {
            (out.p1, out.p2) = (ends.p1, ends.p2);
        }
        fn hose(p: &Params) -> &HoseParams {
            &p.hose
        }
        fn p_level(p: &Params) -> f64 {
            p.p_level
        }
    }
}
