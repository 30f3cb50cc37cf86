//! The parts whose phase 1 only copies states to ports
//! (`Part::across_states`): the circuit copies those values itself and never
//! calls `Part::across`, so the list each part declares must be exactly what
//! its `across` does, here checked against it at random states.

use crate::common::oil;
use fmu_core::compose::{Part, Partials};
use hydraulics::GasAccumulator;
use hydraulics::hose::HoseParameters;
use parts::*;

/// The parts that declare their across values as states: a chamber, an
/// accumulator, the cylinder with its chambers, an inertia and the hose in
/// each form (two segments; form Z sets no pressure, its list is empty).
fn declaring() -> Vec<(String, Box<dyn Part>)> {
    let law = GasAccumulator::new(5e6, 4e-3, 1.4, 1.01325e5, 1e5, 1e-4).unwrap();
    let cylinder = hydraulics::Cylinder {
        a1: 8.04e-4,
        a2: 4.24e-4,
        stroke: 0.5,
        v_dead_a: 1e-4,
        v_dead_b: 2e-4,
    };
    let mut parts: Vec<(String, Box<dyn Part>)> = vec![
        (
            "chamber".into(),
            Box::new(Chamber::new(1e-4, oil(), 0.0).unwrap()),
        ),
        (
            "accumulator".into(),
            Box::new(Accumulator::new(law, oil(), 1e6).unwrap()),
        ),
        (
            "chamber cylinder".into(),
            Box::new(ChamberCylinder::new(cylinder, oil(), 1e5, 1e5).unwrap()),
        ),
        (
            "inertia".into(),
            Box::new(Inertia::new(0.05, 0.01, 0.5, 0.1, 2.0, 0.0).unwrap()),
        ),
    ];
    for form in [HoseForm::H, HoseForm::G, HoseForm::Y, HoseForm::Z] {
        let hose = Hose::new(form, &HoseParameters::reference(), 2, 1e-4, 1e6).unwrap();
        parts.push((format!("hose {form:?}"), Box::new(hose)));
    }
    parts
}

#[test]
fn each_declared_list_is_what_its_phase_1_writes() {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for (name, part) in declaring() {
        let pairs = part
            .across_states()
            .unwrap_or_else(|| panic!("{name}: declares no across states"));
        let ns = part.states().len();
        let slots: usize =
            part.ports().iter().map(|p| p.domain.slots()).sum::<usize>() + part.kept();
        for _ in 0..20 {
            let x: Vec<f64> = (0..ns).map(|_| 1e6 * (random() - 0.3)).collect();
            let mut ports = vec![f64::NAN; slots];
            let mut own = vec![0.0; slots * ns];
            let mut none: [f64; 0] = [];
            part.across(
                &x,
                &mut ports,
                Some(&mut Partials::new(&mut own, ns, &mut none, 0)),
            );
            for (slot, value) in ports.iter().enumerate() {
                match pairs.iter().find(|&&(s, _)| s == slot) {
                    Some(&(_, state)) => {
                        assert_eq!(value.to_bits(), x[state].to_bits(), "{name}: slot {slot}");
                        for k in 0..ns {
                            let expected = if k == state { 1.0 } else { 0.0 };
                            assert_eq!(
                                own[slot * ns + k],
                                expected,
                                "{name}: d(slot {slot})/d(x{k})"
                            );
                        }
                    }
                    None => assert!(
                        value.is_nan(),
                        "{name}: phase 1 writes slot {slot}, not declared"
                    ),
                }
            }
        }
    }
}
