//! Reading descriptions: good circuits against closed forms and against
//! the same circuits built by hand, and every kind of mistake reported
//! where it is.

use circuit_file::{Circuit, InputTarget, OutputSource, read};
use fmu_core::compose::{Builder, Part};
use hydraulics::BulkModulus;
use std::sync::Arc;

const PUMP_RELIEF: &str = r#"[circuit]
name = "PumpRelief"
description = "A pump into a chamber with a relief valve"

[experiment]
stop_time = "10 s"
step_size = "1 ms"

[parts.tank]
type = "Tank"

[parts.pump]
type = "ConstantFlowPump"
Q = "25 L/min"

[parts.line]
type = "Chamber"
V = "0.5 L"
p0 = "1 bar"

[parts.relief]
type = "ReliefValve"
p_crack = "210 bar"
gain = "1e-9 m3/(s Pa)"

[[nodes]]
ports = ["tank.T", "pump.T", "relief.T"]

[[nodes]]
ports = ["pump.P", "line.A", "relief.P"]

[[outputs]]
name = "p_line"
of = "line.p"
display_unit = "bar"

[[outputs]]
name = "q_relief"
of = "relief.P.q"
display_unit = "L/min"
"#;

fn ok(text: &str) -> Circuit {
    match read(text, "c.toml") {
        Ok(c) => c,
        Err(d) => panic!(
            "{}",
            d.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

fn errors(text: &str) -> Vec<String> {
    match read(text, "c.toml") {
        Ok(_) => panic!("the description was accepted:\n{text}"),
        Err(d) => d.iter().map(|d| d.to_string()).collect(),
    }
}

/// Asserts that reading `text` reports, at `line`, a message holding every
/// one of `words`.
fn expect(text: &str, line: usize, words: &[&str]) {
    let all = errors(text);
    let at = format!("c.toml:{line}:");
    assert!(
        all.iter()
            .any(|e| e.starts_with(&at) && words.iter().all(|w| e.contains(w))),
        "no error at line {line} with {words:?}; got:\n{}",
        all.join("\n")
    );
}

/// `PUMP_RELIEF` with `from` replaced by `to` (which must occur).
fn edit(from: &str, to: &str) -> String {
    assert!(PUMP_RELIEF.contains(from), "{from}");
    PUMP_RELIEF.replacen(from, to, 1)
}

fn line_of(text: &str, needle: &str) -> usize {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle}"));
    text[..at].matches('\n').count() + 1
}

#[test]
fn the_pump_relief_circuit_settles_at_the_relief_pressure_for_the_pump_flow() {
    let c = ok(PUMP_RELIEF);
    assert_eq!(c.name, "PumpRelief");
    assert_eq!(c.assembly.state_names(), ["line.p"]);
    assert_eq!(c.experiment.stop_time, Some(10.0));
    assert_eq!(c.experiment.step_size, Some(1e-3));
    assert_eq!(c.outputs[0].source, OutputSource::State(0));
    assert_eq!(c.outputs[0].display_unit.as_ref().unwrap().factor, 1e5);
    let mut x = [0.0];
    c.assembly.initial_state(&[], &mut x);
    assert_eq!(x[0], 1e5);
    // Newton on the rate: steady state.
    let mut p = [2.2e7];
    for _ in 0..50 {
        let (mut dx, mut j) = ([0.0], [0.0]);
        c.assembly.evaluate(&[], &p, &mut dx, Some((&mut j, 1)));
        p[0] -= dx[0] / j[0];
    }
    let q = 25e-3 / 60.0;
    let law = hydraulics::ReliefValve {
        p_crack: 2.1e7,
        gain: 1e-9,
        smoothing: 2e4,
    };
    let expected = law.pressure_for(q);
    assert!(
        (p[0] - expected).abs() < 1e-6 * expected,
        "{} {expected}",
        p[0]
    );
    let mut y = [0.0; 2];
    c.output_values(&[], &p, &mut y);
    assert_eq!(y[0], p[0]);
    assert!((y[1] - q).abs() < 1e-12, "relief flow {}", y[1]);
}

const CHAIN: &str = r#"[circuit]
name = "OrificeChain"

[parts.o1]
type = "Orifice"
d = "1.5 mm"
[parts.c1]
type = "Chamber"
V = "1 L"
p0 = "5 bar"
[parts.o2]
type = "Orifice"
k = 2e-8
p_tr = "0.2 bar"
[parts.c2]
type = "Chamber"
V = "20 cm3"
[parts.o3]
type = "Orifice"
d = "1 mm"
cd = 0.7
rho = "870 kg/m3"
[parts.tank]
type = "Tank"

[[nodes]]
ports = ["o1.B", "c1.A", "o2.A"]
[[nodes]]
ports = ["o2.B", "c2.A", "o3.A"]
[[nodes]]
ports = ["o3.B", "tank.T"]

[[inputs]]
name = "p_supply"
sets = "o1.A"
unit = "Pa"
display_unit = "bar"
start = "100 bar"

[[outputs]]
name = "q_in"
of = "o1.A.q"
[[outputs]]
name = "p_2"
of = "o3.A"
[[outputs]]
name = "q_c2"
of = "c2.A.q"
"#;

#[test]
fn the_orifice_chain_is_the_same_circuit_as_built_by_hand() {
    let c = ok(CHAIN);
    assert_eq!(c.assembly.input_names(), ["p_supply"]);
    assert_eq!(c.inputs[0].start, 1e7);
    assert_eq!(
        c.inputs[0].target,
        InputTarget::Across {
            port: "o1.A".into(),
            variable: "p".into()
        }
    );
    let oil = BulkModulus::reference_oil();
    let mut b = Builder::new();
    let parts: [(&str, Arc<dyn Part>); 6] = [
        (
            "o1",
            Arc::new(parts::Orifice::circular(0.6, 1.5e-3, 900.0, 1e4).unwrap()),
        ),
        ("c1", Arc::new(parts::Chamber::new(1e-3, oil, 5e5).unwrap())),
        ("o2", Arc::new(parts::Orifice::new(2e-8, 2e4).unwrap())),
        (
            "c2",
            Arc::new(parts::Chamber::new(20e-6, oil, 0.0).unwrap()),
        ),
        (
            "o3",
            Arc::new(parts::Orifice::circular(0.7, 1e-3, 870.0, 1e4).unwrap()),
        ),
        ("tank", Arc::new(parts::Tank::vented())),
    ];
    for (n, p) in parts {
        b.part(n, p).unwrap();
    }
    b.connect(&["o1.B", "c1.A", "o2.A"]).unwrap();
    b.connect(&["o2.B", "c2.A", "o3.A"]).unwrap();
    b.connect(&["o3.B", "tank.T"]).unwrap();
    b.input("p_supply", "o1.A", "p").unwrap();
    let hand = b.build().unwrap();
    assert_eq!(hand.state_names(), c.assembly.state_names());
    assert_eq!(hand.nominal(), c.assembly.nominal());
    let (mut x0, mut x1) = ([0.0; 2], [0.0; 2]);
    hand.initial_state(&[1e7], &mut x0);
    c.assembly.initial_state(&[1e7], &mut x1);
    assert_eq!(x0, x1);
    for (u, x) in [
        (1e7, [5e5, 0.0]),
        (2e7, [1.2e7, 3e6]),
        (0.0, [-1e3, 2e3]),
        (3e5, [3e5 - 1.0, 3e5 + 1.0]),
        (-2e5, [4e6, 4e6]),
    ] {
        let (mut d0, mut d1) = ([0.0; 2], [0.0; 2]);
        let (mut j0, mut j1) = ([0.0; 4], [0.0; 4]);
        hand.evaluate(&[u], &x, &mut d0, Some((&mut j0, 2)));
        c.assembly.evaluate(&[u], &x, &mut d1, Some((&mut j1, 2)));
        for k in 0..2 {
            assert_eq!(d0[k].to_bits(), d1[k].to_bits(), "rate {k} at {x:?}");
        }
        for k in 0..4 {
            assert_eq!(j0[k].to_bits(), j1[k].to_bits(), "jacobian {k} at {x:?}");
        }
        // Outputs: the inflow is the first orifice's law; the pressure at
        // o3.A is the second chamber's; the net flow into c2 is its
        // pressure rate times its capacitance.
        let mut y = [0.0; 3];
        c.output_values(&[u], &x, &mut y);
        let law = hydraulics::Orifice::circular(0.6, 1.5e-3, 900.0, 1e4);
        let q = law.flow(u - x[0]);
        assert!((y[0] - q).abs() <= 1e-15 * q.abs().max(1e-9), "{y:?} {q:?}");
        assert_eq!(y[1], x[1]);
        let b2 = oil.value(x[1]);
        assert!((y[2] * b2 / 20e-6 - d1[1]).abs() <= 1e-9 * d1[1].abs().max(1.0));
    }
}

#[test]
fn a_spool_command_input_and_a_mechanical_output_read() {
    let text = r#"[circuit]
name = "Drive"
[parts.spool]
type = "Spool"
wn = "80 Hz"
zeta = 0.7
[parts.valve]
type = "DirectionalValve"
cv = "1e-7 m3/(s V sqrt(Pa))"
ud = "0.1 V"
[parts.supply]
type = "PressureSource"
p_s = "100 bar"
[parts.tank]
type = "Tank"
[parts.cyl]
type = "ChamberCylinder"
A1 = "20 cm2"
A2 = "10 cm2"
stroke = "200 mm"
V_dA = "50 cm3"
V_dB = "50 cm3"
[parts.load]
type = "Mass"
m = "100 kg"
c = "2 kN s/m"
[[nodes]]
ports = ["spool.Us", "valve.Us"]
[[nodes]]
ports = ["supply.P", "valve.P"]
[[nodes]]
ports = ["valve.T", "tank.T"]
[[nodes]]
ports = ["valve.A", "cyl.A"]
[[nodes]]
ports = ["valve.B", "cyl.B"]
[[nodes]]
ports = ["cyl.rod", "load.rod"]
[[inputs]]
name = "U"
sets = "spool.U"
unit = "V"
start = 0.0
[[outputs]]
name = "x"
of = "load.rod.s"
display_unit = "mm"
[[outputs]]
name = "F"
of = "cyl.rod.f"
display_unit = "kN"
"#;
    let c = ok(text);
    assert_eq!(
        c.assembly.state_names(),
        [
            "spool.Us",
            "spool.dUs",
            "cyl.p_A",
            "cyl.p_B",
            "load.s",
            "load.v"
        ]
    );
    assert_eq!(c.inputs[0].unit, "V");
    assert_eq!(c.outputs[0].unit, "m");
    assert_eq!(c.outputs[1].unit, "N");
    let x = [1.0, 0.0, 5e6, 1e6, 0.05, 0.0];
    let mut y = [0.0; 2];
    c.output_values(&[1.0], &x, &mut y);
    assert_eq!(y[0], 0.05);
    // The force at the cylinder's rod port counts positive into the
    // cylinder: minus the hydraulic force it exerts.
    assert!((y[1] + (5e6 * 20e-4 - 1e6 * 10e-4)).abs() < 1e-6, "{y:?}");
}

/// A hose's states are a numbered series (`p<k>`, `q<k>`): an output of
/// one has its unit; its segment count must be a whole number.
#[test]
fn hose_states_have_their_units_and_the_segment_count_is_whole() {
    let text = r#"
[circuit]
name = "Line"
[parts.s]
type = "PressureSource"
p_s = "100 bar"
[parts.hose]
type = "HoseG"
n = 4
[parts.o]
type = "Orifice"
k = 1e-8
[parts.t]
type = "Tank"
[[nodes]]
ports = ["s.P", "hose.A"]
[[nodes]]
ports = ["hose.B", "o.A"]
[[nodes]]
ports = ["o.B", "t.T"]
[[outputs]]
name = "p_end"
of = "hose.p4"
display_unit = "bar"
[[outputs]]
name = "q_in"
of = "hose.q1"
display_unit = "L/min"
"#;
    let c = ok(text);
    assert_eq!(c.assembly.state_count(), 8);
    assert_eq!(c.outputs[0].unit, "Pa");
    assert_eq!(c.outputs[1].unit, "m3/s");
    let all = errors(&text.replace("n = 4", "n = 4.5"));
    assert!(
        all.iter().any(|e| e.contains("whole number from 1 to 14")),
        "{all:?}"
    );
    let all = errors(&text.replace("hose.p4", "hose.p5"));
    assert!(all.iter().any(|e| e.contains("names nothing")), "{all:?}");
}

#[test]
fn every_part_type_builds_from_a_description() {
    // One line of required parameters per type, each checked through the
    // reader (and its constructor).
    let required: &[(&str, &str)] = &[
        ("Tank", ""),
        ("PressureSource", "p_s = \"10 bar\""),
        ("Orifice", "k = 1e-8"),
        ("Chamber", "V = \"1 L\""),
        ("ReliefValve", "p_crack = \"100 bar\"\ngain = 1e-9"),
        (
            "CheckValve",
            "k = 1e-7\np_crack = \"1 bar\"\np_band = \"1 bar\"",
        ),
        (
            "CounterbalanceValve",
            "k_max = 1e-7\np_set = \"150 bar\"\npilot_ratio = 3\np_band = \"10 bar\"\ncheck_k = 1e-7\ncheck_p_crack = \"1 bar\"\ncheck_p_band = \"1 bar\"",
        ),
        ("ConstantFlowPump", "Q = \"10 L/min\""),
        ("FixedDisplacementPump", "D = \"16 cm3/rev\""),
        ("FixedDisplacementMotor", "D = \"32 cm3/rev\""),
        ("Inertia", "J = \"0.1 kg m2\""),
        (
            "Accumulator",
            "p0 = \"50 bar\"\nV0 = \"1 L\"\nV_dead = \"10 cm3\"",
        ),
        ("Cylinder", "A1 = \"20 cm2\"\nA2 = \"10 cm2\""),
        (
            "ChamberCylinder",
            "A1 = \"20 cm2\"\nA2 = \"10 cm2\"\nstroke = \"0.2 m\"\nV_dA = \"10 cm3\"\nV_dB = \"10 cm3\"",
        ),
        (
            "Mass",
            "m = \"10 kg\"\ns_min = 0\ns_max = \"0.2 m\"\nk_stop = \"1e7 N/m\"",
        ),
        ("Spool", "wn = \"500 rad/s\"\nzeta = 0.8"),
        (
            "PressureCompensator",
            "C1 = 4.65e7\nC2 = -1.79e4\nC3 = 4e11\nC5 = \"10 bar\"\nK_max = 5e-8",
        ),
        (
            "LuGreMass",
            "m = \"200 kg\"\nsigma0 = 2.15e6\nFc = \"320 N\"\nFs = \"364 N\"\nvs = \"3.47 mm/s\"\ns_min = 0\ns_max = \"1 m\"\nk_stop = 1e8",
        ),
        (
            "DirectionalValve",
            "cv = 1e-7\nu_nom = \"10 V\"\nc1 = 0.05\nc2 = 0.05",
        ),
        ("HoseH", ""),
        ("HoseG", "n = 3"),
        ("HoseY", "n = 2\nL_hose = \"5 m\""),
        ("HoseZ", "n = 14\nq0 = \"30 L/min\"\np_start = \"100 bar\""),
    ];
    assert_eq!(required.len(), circuit_file::registry::part_types().len());
    for (kind, params) in required {
        let t = circuit_file::registry::part_type(kind).unwrap();
        let text = format!("[circuit]\nname = \"One\"\n[parts.x]\ntype = \"{kind}\"\n{params}\n");
        let all = errors(&text);
        // Only connection problems (or no state) remain: the part built.
        assert!(
            all.iter()
                .all(|e| e.contains("not connected") || e.contains("no state")),
            "{kind}: {all:?}"
        );
        assert_eq!(t.name, *kind);
    }
}

#[test]
fn the_registry_lists_each_parts_states() {
    let c = ok(&CHAIN.replace(
        "[parts.tank]",
        "[parts.acc]\ntype = \"Accumulator\"\np0 = \"50 bar\"\nV0 = \"1 L\"\nV_dead = \"10 cm3\"\n[parts.tank]",
    )
    .replace(
        "ports = [\"o2.B\", \"c2.A\", \"o3.A\"]",
        "ports = [\"o2.B\", \"c2.A\", \"o3.A\"]\n[[nodes]]\nports = [\"acc.A\", \"o4.A\"]\n[[nodes]]\nports = [\"o4.B\", \"tank2.T\"]",
    )
    .replace(
        "[[inputs]]",
        "[parts.o4]\ntype = \"Orifice\"\nk = 1e-8\n[parts.tank2]\ntype = \"Tank\"\n[[inputs]]",
    ));
    for (name, kind, part) in &c.parts {
        let states: Vec<&str> = part.states().iter().map(|s| s.name).collect();
        let listed: Vec<&str> = kind.states.iter().map(|s| s.0).collect();
        assert_eq!(states, listed, "{name}");
    }
}

// ---- Mistakes ---------------------------------------------------------

#[test]
fn toml_syntax_errors_give_the_line() {
    let text = edit("V = \"0.5 L\"", "V = \"0.5 L");
    expect(&text, line_of(&text, "V = \"0.5 L"), &["TOML syntax error"]);
}

#[test]
fn an_unknown_part_type_suggests_the_closest() {
    let text = edit("type = \"Chamber\"", "type = \"Chamer\"");
    expect(
        &text,
        line_of(&text, "Chamer"),
        &[
            "part 'line'",
            "unknown part type \"Chamer\"",
            "did you mean \"Chamber\"",
            "ReliefValve",
        ],
    );
}

#[test]
fn an_unknown_parameter_lists_the_parts_parameters() {
    let text = edit("p0 = \"1 bar\"", "p_0 = \"1 bar\"");
    expect(
        &text,
        line_of(&text, "p_0"),
        &[
            "part 'line' (Chamber) has no parameter 'p_0'",
            "did you mean 'p0'",
            "V (m3, required)",
        ],
    );
}

#[test]
fn a_missing_required_parameter_is_named_with_its_unit() {
    let text = edit("V = \"0.5 L\"\n", "");
    expect(
        &text,
        line_of(&text, "[parts.line]"),
        &[
            "part 'line' (Chamber) is missing required parameter V",
            "m3",
            "add it",
        ],
    );
}

#[test]
fn a_unit_of_the_wrong_dimension_names_both() {
    let text = edit("p_crack = \"210 bar\"", "p_crack = \"25 L/min\"");
    expect(
        &text,
        line_of(&text, "p_crack"),
        &[
            "relief.p_crack",
            "a pressure (Pa)",
            "a volume flow (m3/s)",
            "bar",
        ],
    );
}

#[test]
fn an_unparsable_quantity_says_how_to_write_one() {
    let text = edit("Q = \"25 L/min\"", "Q = \"lots\"");
    expect(
        &text,
        line_of(&text, "lots"),
        &["pump.Q", "not a quantity", "\"210 bar\""],
    );
}

#[test]
fn an_unknown_unit_suggests_the_closest() {
    let text = edit("\"210 bar\"", "\"210 barr\"");
    expect(
        &text,
        line_of(&text, "barr"),
        &["'barr' is not a unit", "did you mean 'bar'"],
    );
}

#[test]
fn a_value_outside_the_parts_range_gives_the_parts_message() {
    let text = edit("V = \"0.5 L\"", "V = \"-0.5 L\"");
    expect(
        &text,
        line_of(&text, "-0.5 L"),
        &[
            "part 'line' (Chamber)",
            "chamber volume",
            "change the value",
        ],
    );
}

#[test]
fn a_parameter_of_the_wrong_type_is_refused() {
    let text = edit("Q = \"25 L/min\"", "Q = true");
    expect(
        &text,
        line_of(&text, "Q = true"),
        &["pump.Q", "must be a number", "a boolean"],
    );
}

#[test]
fn a_port_the_part_does_not_have_lists_its_ports() {
    let text = edit("\"relief.P\"]", "\"relief.X\"]");
    expect(
        &text,
        line_of(&text, "relief.X"),
        &[
            "'relief.X'",
            "part 'relief' (ReliefValve) has no port 'X'",
            "P (hydraulic), T (hydraulic)",
        ],
    );
}

#[test]
fn a_port_of_a_part_that_does_not_exist_lists_the_parts() {
    let text = edit("\"relief.P\"]", "\"relef.P\"]");
    expect(
        &text,
        line_of(&text, "relef.P"),
        &[
            "there is no part 'relef'",
            "did you mean 'relief'",
            "tank, pump, line, relief",
        ],
    );
}

#[test]
fn an_unconnected_port_is_reported_at_its_part() {
    let text = edit(", \"relief.T\"]", "]");
    expect(
        &text,
        line_of(&text, "[parts.relief]"),
        &["port relief.T", "not connected", "[[nodes]]"],
    );
}

#[test]
fn a_port_in_two_nodes_names_the_first() {
    let text = edit(
        "\"pump.T\", \"relief.T\"]",
        "\"pump.T\", \"relief.T\", \"relief.P\"]",
    );
    let first = line_of(&text, "\"relief.P\"]");
    let second = line_of(&text, "\"pump.P\"");
    // The first listing (the tank node) wins; the second is the error.
    assert!(first < second);
    expect(
        &text,
        second,
        &[
            "port relief.P is already in the node at line",
            &first.to_string(),
        ],
    );
}

#[test]
fn a_node_mixing_domains_is_refused() {
    let text = edit(
        "[[nodes]]\nports = [\"pump.P\"",
        "[parts.m]\ntype = \"Mass\"\nm = 1\n[[nodes]]\nports = [\"m.rod\", \"pump.P\"",
    );
    expect(
        &text,
        line_of(&text, "ports = [\"m.rod\""),
        &["translational port m.rod", "hydraulic port", "one domain"],
    );
}

#[test]
fn two_flow_parts_without_a_volume_are_the_causality_conflict() {
    let text = edit(
        "\"pump.P\", \"line.A\", \"relief.P\"",
        "\"pump.P\", \"relief.P\"",
    )
    .replace(
        "[parts.line]\ntype = \"Chamber\"\nV = \"0.5 L\"\np0 = \"1 bar\"\n",
        "",
    )
    .replace("of = \"line.p\"", "of = \"relief.P\"");
    expect(
        &text,
        line_of(&text, "ports = [\"pump.P\""),
        &[
            "causality conflict",
            "'pump' and 'relief'",
            "nothing sets the pressure",
            "Chamber",
        ],
    );
}

#[test]
fn two_volumes_in_one_node_set_its_pressure_twice() {
    let text = edit(
        "\"pump.P\", \"line.A\", \"relief.P\"]",
        "\"pump.P\", \"line.A\", \"relief.P\", \"line2.A\"]\n[parts.line2]\ntype = \"Chamber\"\nV = 1e-4",
    );
    expect(
        &text,
        line_of(&text, "ports = [\"pump.P\""),
        &[
            "the p at the node of",
            "set twice",
            "line.A and line2.A",
            "Orifice",
        ],
    );
}

#[test]
fn an_input_setting_a_pressure_a_chamber_sets_is_refused() {
    let text = format!("{PUMP_RELIEF}[[inputs]]\nname = \"p_in\"\nsets = \"line.A\"\n");
    expect(
        &text,
        line_of(&text, "[[inputs]]"),
        &["set twice", "line.A and input 'p_in'", "drop the input"],
    );
}

#[test]
fn duplicate_names_point_at_the_first() {
    let text = edit("name = \"q_relief\"", "name = \"line\"");
    expect(
        &text,
        line_of(&text, "name = \"line\"") - 1,
        &[
            "the name 'line' is already used at line",
            &line_of(&text, "[parts.line]").to_string(),
        ],
    );
}

#[test]
fn an_illegal_circuit_name_is_refused() {
    let text = edit("name = \"PumpRelief\"", "name = \"1 Pump\"");
    expect(&text, 2, &["'1 Pump' is not a model identifier"]);
}

#[test]
fn an_illegal_part_name_is_refused() {
    let text = PUMP_RELIEF
        .replace("parts.tank]", "parts._tank]")
        .replace("\"tank.T\"", "\"_tank.T\"");
    expect(
        &text,
        line_of(&text, "_tank]"),
        &["part name '_tank' is not allowed", "starting with a letter"],
    );
}

#[test]
fn an_input_that_names_nothing_lists_the_ports() {
    let text = format!("{PUMP_RELIEF}[[inputs]]\nname = \"u\"\nsets = \"line.Z\"\n");
    expect(
        &text,
        line_of(&text, "line.Z"),
        &["input 'u': sets 'line.Z' names nothing", "line.A.{p,q}"],
    );
}

#[test]
fn an_output_that_names_nothing_lists_the_states() {
    let text = edit("of = \"line.p\"", "of = \"line.pressure\"");
    expect(
        &text,
        line_of(&text, "line.pressure"),
        &[
            "output 'p_line': of 'line.pressure' names nothing",
            "its states p",
        ],
    );
}

#[test]
fn a_mechanical_port_needs_its_variable_named() {
    let text = format!(
        "{PUMP_RELIEF}[parts.m]\ntype = \"Mass\"\nm = 1\n[[outputs]]\nname = \"s\"\nof = \"m.rod\"\n"
    );
    expect(
        &text,
        line_of(&text, "\"m.rod\""),
        &["several variables (s, v)", "m.rod.{s,v,f}"],
    );
}

#[test]
fn an_input_unit_of_the_wrong_dimension_is_refused() {
    let text = CHAIN.replace("unit = \"Pa\"", "unit = \"m3/s\"");
    expect(
        &text,
        line_of(&text, "unit = \"m3/s\""),
        &["unit of 'p_supply'", "a volume flow", "is a pressure (Pa)"],
    );
}

#[test]
fn an_input_unit_that_is_not_si_says_to_use_display_unit() {
    let text = CHAIN.replace("unit = \"Pa\"", "unit = \"bar\"");
    expect(
        &text,
        line_of(&text, "unit = \"bar\""),
        &[
            "FMU variables are in SI units",
            "unit = \"Pa\"",
            "display_unit = \"bar\"",
        ],
    );
}

#[test]
fn a_display_unit_of_the_wrong_dimension_is_refused() {
    let text = edit("display_unit = \"L/min\"", "display_unit = \"bar\"");
    expect(
        &text,
        line_of(&text, "name = \"q_relief\"") + 2,
        &[
            "display_unit of 'q_relief'",
            "a pressure",
            "a volume flow (m3/s)",
        ],
    );
}

#[test]
fn an_input_start_of_the_wrong_dimension_is_refused() {
    let text = CHAIN.replace("start = \"100 bar\"", "start = \"100 mm\"");
    expect(
        &text,
        line_of(&text, "100 mm"),
        &["start of input 'p_supply'", "a pressure (Pa)", "a length"],
    );
}

#[test]
fn a_circuit_without_a_state_is_refused() {
    let text = r#"[circuit]
name = "NoState"
[parts.s]
type = "PressureSource"
p_s = "10 bar"
[parts.o]
type = "Orifice"
k = 1e-8
[parts.t]
type = "Tank"
[[nodes]]
ports = ["s.P", "o.A"]
[[nodes]]
ports = ["o.B", "t.T"]
"#;
    expect(text, 1, &["no state", "add a part with states", "Chamber"]);
}

#[test]
fn a_missing_circuit_table_is_reported() {
    let text = PUMP_RELIEF.replace("[circuit]\nname = \"PumpRelief\"\ndescription = \"A pump into a chamber with a relief valve\"\n", "");
    expect(&text, 1, &["no [circuit] table", "name = \"MyCircuit\""]);
}

#[test]
fn an_unknown_top_level_key_suggests_the_closest() {
    let text = format!("{PUMP_RELIEF}[output]\nname = \"x\"\n");
    expect(
        &text,
        line_of(&text, "[output]"),
        &["no key 'output'", "did you mean 'outputs'"],
    );
}

#[test]
fn a_tolerance_the_integrators_do_not_take_is_refused() {
    let text = edit(
        "stop_time = \"10 s\"",
        "stop_time = \"10 s\"\ntolerance = 0.5",
    );
    expect(
        &text,
        line_of(&text, "tolerance = 0.5"),
        &["tolerance 0.5 is outside the relative tolerances the integrators take, 1e-14 to 0.1"],
    );
}

#[test]
fn an_experiment_ending_before_it_starts_is_refused() {
    let text = edit(
        "stop_time = \"10 s\"",
        "stop_time = \"10 s\"\nstart_time = \"20 s\"",
    );
    expect(
        &text,
        line_of(&text, "[experiment]"),
        &["stop_time (10 s) must come after start_time (20 s)"],
    );
}

#[test]
fn a_node_of_one_port_is_refused() {
    let text = edit(
        "ports = [\"tank.T\", \"pump.T\", \"relief.T\"]",
        "ports = [\"tank.T\"]\n[[nodes]]\nports = [\"pump.T\", \"relief.T\", \"tank2.T\"]\n[parts.tank2]\ntype = \"Tank\"",
    );
    expect(
        &text,
        line_of(&text, "[\"tank.T\"]"),
        &["a node joins two ports or more"],
    );
}

#[test]
fn a_constructor_choice_is_explained() {
    let text = CHAIN.replace("k = 2e-8", "k = 2e-8\nd = \"1 mm\"");
    // The part's message names k: the error points at it.
    expect(
        &text,
        line_of(&text, "k = 2e-8"),
        &["part 'o2' (Orifice)", "give either k or d, not both"],
    );
}

#[test]
fn an_unconnected_signal_suggests_an_input() {
    let text = format!("{PUMP_RELIEF}[parts.spool]\ntype = \"Spool\"\nwn = 100\nzeta = 1\n");
    expect(
        &text,
        line_of(&text, "[parts.spool]"),
        &["port spool.U", "not connected", "sets = \"spool.U\""],
    );
}

#[test]
fn independent_problems_are_all_reported() {
    let text = edit("type = \"Chamber\"", "type = \"Chamer\"")
        .replace("Q = \"25 L/min\"", "Q = \"25 bar\"")
        .replace("of = \"line.p\"", "of = \"nowhere.p\"");
    let all = errors(&text);
    assert!(all.iter().any(|e| e.contains("Chamer")), "{all:?}");
    assert!(all.iter().any(|e| e.contains("pump.Q")), "{all:?}");
    assert!(
        all.iter().any(|e| e.contains("no part 'nowhere'")),
        "{all:?}"
    );
    // No cascade: the failed chamber's ports are not reported again.
    assert!(!all.iter().any(|e| e.contains("line.A")), "{all:?}");
}

#[test]
fn columns_count_characters() {
    let text = edit("Q = \"25 L/min\"", "Q   = \"25 bar\"");
    let all = errors(&text);
    let line = line_of(&text, "Q   =");
    assert!(
        all.iter()
            .any(|e| e.starts_with(&format!("c.toml:{line}:7:"))),
        "{all:?}"
    );
}

#[test]
fn one_mistake_in_a_part_gives_one_message() {
    // A volume that does not build leaves its node without what sets the
    // pressure; that follows from the mistake and is not reported again,
    // nor is a parameter given with a wrong unit reported as missing too.
    for (from, to, words) in [
        (
            "V = \"0.5 L\"",
            "V = \"0.5 bar\"",
            &["line.V", "volume", "pressure"][..],
        ),
        (
            "V = \"0.5 L\"",
            "V = \"-0.5 L\"",
            &["part 'line'", "must be positive"][..],
        ),
        ("V = \"0.5 L\"\n", "", &["missing required parameter V"][..]),
    ] {
        let text = edit(from, to);
        let all = errors(&text);
        assert_eq!(all.len(), 1, "{from} -> {to}: {all:#?}");
        assert!(words.iter().all(|w| all[0].contains(w)), "{all:#?}");
    }
    // A misspelt port is one message; its node is not also a conflict.
    let text = edit("\"line.A\"", "\"line.B\"");
    let all = errors(&text);
    assert_eq!(all.len(), 2, "{all:#?}");
    assert!(all[0].contains("has no port 'B'"), "{all:#?}");
    assert!(
        all[1].contains("port line.A") && all[1].contains("not connected"),
        "{all:#?}"
    );
}
