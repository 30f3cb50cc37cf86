use super::*;

/// Every part type in one circuit (and a hose and an unknown type).
/// Parts (name, type) and nodes.
type Drawing = (Vec<(String, String)>, Vec<(Domain, Vec<String>)>);

pub(crate) fn every_type() -> Drawing {
    let parts = [
        ("tank", "Tank"),
        ("engine", "Inertia"),
        ("pump", "FixedDisplacementPump"),
        ("check", "CheckValve"),
        ("relief", "ReliefValve"),
        ("line", "Chamber"),
        ("acc", "Accumulator"),
        ("spool", "Spool"),
        ("valve", "DirectionalValve"),
        ("cbv", "CounterbalanceValve"),
        ("boom", "ChamberCylinder"),
        ("payload", "Mass"),
        ("spool2", "Spool"),
        ("valve2", "DirectionalValve"),
        ("throttle", "Orifice"),
        ("motor", "FixedDisplacementMotor"),
        ("drum", "Inertia"),
        ("supply", "PressureSource"),
        ("hose", "HoseSegment"),
        ("feed", "ConstantFlowPump"),
        ("ram", "Cylinder"),
        ("sled", "Mass"),
        ("gadget", "Gizmo"),
    ];
    let h = Domain::Hydraulic;
    let nodes = [
        (h, "tank.T pump.T relief.T valve.T valve2.T feed.T"),
        (h, "pump.P check.A"),
        (h, "check.B line.A relief.P acc.A valve.P valve2.P"),
        (Domain::Signal, "spool.Us valve.Us"),
        (h, "valve.A boom.A cbv.pilot"),
        (h, "valve.B cbv.out"),
        (h, "cbv.load boom.B"),
        (Domain::Translational, "boom.rod payload.rod"),
        (Domain::Signal, "spool2.Us valve2.Us"),
        (h, "valve2.A throttle.A"),
        (h, "throttle.B motor.A"),
        (h, "valve2.B motor.B"),
        (Domain::Rotational, "motor.shaft drum.shaft"),
        (Domain::Rotational, "engine.shaft pump.shaft"),
        (h, "supply.P hose.A"),
        (h, "hose.B gadget.in"),
        (h, "gadget.out ram.A"),
        (h, "feed.P ram.B"),
        (Domain::Translational, "ram.rod sled.rod"),
        (Domain::Signal, "gadget.cmd spool2.U"),
    ];
    (
        parts
            .iter()
            .map(|(n, t)| ((*n).to_owned(), (*t).to_owned()))
            .collect(),
        nodes
            .iter()
            .map(|(d, m)| (*d, m.split(' ').map(str::to_owned).collect()))
            .collect(),
    )
}

fn save(name: &str, svg: &str) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../target/schematic");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(format!("{dir}/{name}.svg"), svg).unwrap();
}

#[test]
fn pump_relief_draws() {
    let text = include_str!("../../examples/pump_relief.toml");
    let c = crate::read(text, "pump_relief.toml").unwrap();
    save("pump_relief", &c.schematic_svg());
    let (parts, nodes) = every_type();
    save("every_type", &svg(&parts, &nodes));
}

fn pump_relief() -> crate::Circuit {
    let text = include_str!("../../examples/pump_relief.toml");
    crate::read(text, "pump_relief.toml").unwrap()
}

/// Parses `svg` as XML; panics at the first error, returns the element
/// names in document order and every text node.
fn parse(svg: &str) -> (Vec<String>, Vec<String>) {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(svg);
    let (mut elements, mut texts, mut open) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                let name = e.name().as_ref().to_owned();
                for a in e.attributes() {
                    a.expect("a well-formed attribute");
                }
                open.push(name.clone());
                elements.push(name);
            }
            Ok(Event::Empty(e)) => {
                for a in e.attributes() {
                    a.expect("a well-formed attribute");
                }
                elements.push(e.name().as_ref().to_owned());
            }
            Ok(Event::End(e)) => {
                let name = e.name().as_ref().to_owned();
                assert_eq!(
                    open.pop().as_deref(),
                    Some(name.as_str()),
                    "mismatched end tag"
                );
            }
            Ok(Event::Text(t)) => texts.push(t.xml10_content().into_owned()),
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("not well-formed at {}: {e}", reader.buffer_position()),
        }
    }
    assert!(open.is_empty(), "unclosed {open:?}");
    assert_eq!(elements.first().map(String::as_str), Some("svg"));
    (elements, texts)
}

fn overlap(a: (i32, i32, i32, i32), b: (i32, i32, i32, i32)) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

fn sketches(parts: &[(String, String)]) -> Vec<Sketch> {
    parts
        .iter()
        .map(|(n, t)| Sketch {
            name: n.clone(),
            type_name: t.clone(),
            ports: Vec::new(),
        })
        .collect()
}

#[test]
fn every_registry_type_draws_its_symbol_alone() {
    for t in crate::registry::part_types() {
        let svg = svg(&[("it".into(), t.name.into())], &[]);
        let (elements, texts) = parse(&svg);
        assert!(texts.iter().any(|s| s == "it") && texts.iter().any(|s| s == t.name));
        assert!(svg.contains(&format!("data-type=\"{}\"", t.name)));
        // its own symbol, not the box for unknown types
        assert!(symbols::DRAWN.contains(&t.name), "{} has no symbol", t.name);
        assert!(elements.len() > 6, "{}: {elements:?}", t.name);
    }
    // an unknown type: a box with its label inside
    let svg = svg(&[("w".into(), "Widget".into())], &[]);
    assert!(svg.contains("rx=\"3\"") && svg.contains(">Widget</text>"));
}

#[test]
fn each_part_is_labelled_once_and_every_node_is_drawn() {
    let (parts, nodes) = every_type();
    let drawn = svg(&parts, &nodes);
    let c = pump_relief();
    for (svg, names, count) in [
        (
            drawn.clone(),
            parts.iter().map(|p| p.0.clone()).collect::<Vec<_>>(),
            nodes.len(),
        ),
        (
            c.schematic_svg(),
            c.parts.iter().map(|p| p.0.clone()).collect(),
            c.assembly.nodes().iter().filter(|n| n.1.len() > 1).count(),
        ),
    ] {
        let (_, texts) = parse(&svg);
        for name in &names {
            let label = format!("class=\"label\" data-part=\"{name}\"");
            assert_eq!(svg.matches(&label).count(), 1, "{name}");
            assert_eq!(texts.iter().filter(|t| *t == name).count(), 1, "{name}");
        }
        assert_eq!(svg.matches("<g class=\"node\"").count(), count);
    }
    // hydraulic solid, signal dashed, rods and shafts double, junctions dotted
    let signal = drawn.find("data-domain=\"signal\"").unwrap();
    assert!(
        drawn[signal..]
            .split("</g>")
            .next()
            .unwrap()
            .contains("stroke-dasharray=\"6 4\"")
    );
    let rod = drawn.find("data-domain=\"translational\"").unwrap();
    assert!(
        drawn[rod..]
            .split("</g>")
            .next()
            .unwrap()
            .contains("stroke=\"#fff\"")
    );
    let tank = drawn.find("data-node=\"0\"").unwrap();
    assert!(
        drawn[tank..]
            .split("</g>")
            .next()
            .unwrap()
            .contains("class=\"junction\"")
    );
    // the pilot line of the counterbalance valve is dashed
    let pilot = drawn.find("data-node=\"4\"").unwrap();
    assert!(
        drawn[pilot..]
            .split("</g>")
            .next()
            .unwrap()
            .contains("stroke-dasharray=\"5 3\"")
    );
    // the input U of the pump-relief circuit is drawn at the spool
    assert!(c.schematic_svg().contains("data-input=\"U\""));
}

#[test]
fn symbols_and_labels_do_not_overlap() {
    let (parts, nodes) = every_type();
    let c = pump_relief();
    let pr_parts: Vec<(String, String)> = c
        .parts
        .iter()
        .map(|(n, t, _)| (n.clone(), t.name.to_owned()))
        .collect();
    let chain_parts: Vec<(String, String)> = (0..30)
        .map(|k| {
            let t = ["PressureSource", "Orifice", "Chamber"][if k == 0 { 0 } else { 1 + k % 2 }];
            (format!("p{k}"), t.to_owned())
        })
        .collect();
    let chain_nodes: Vec<(Domain, Vec<String>)> = (0..29)
        .map(|k| {
            let a = if k == 0 {
                "P"
            } else if k % 2 == 1 {
                "B"
            } else {
                "A"
            };
            let b = "A";
            (
                Domain::Hydraulic,
                vec![format!("p{k}.{a}"), format!("p{}.{b}", k + 1)],
            )
        })
        .collect();
    for (parts, nodes) in [
        (parts, nodes),
        (pr_parts, c.assembly.nodes()),
        (chain_parts, chain_nodes),
    ] {
        let (placed, _) = arrange(&sketches(&parts), &nodes, &[]);
        let boxes: Vec<_> = placed.iter().map(|p| p.page_box()).collect();
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.0 >= 0 && a.1 >= 0, "{a:?}");
            for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                assert!(
                    !overlap(*a, *b),
                    "{} and {} overlap",
                    parts[i].0,
                    parts[j].0
                );
            }
        }
        parse(&svg(&parts, &nodes));
    }
}

#[test]
fn lines_keep_off_the_symbols() {
    let (parts, nodes) = every_type();
    let (placed, members) = arrange(&sketches(&parts), &nodes, &[]);
    let drawn = svg(&parts, &nodes);
    // Every straight run of every node: no point strictly inside a box
    // other than those of the parts the node joins.
    for (id, (_, ms)) in members.iter().enumerate() {
        let at = drawn.find(&format!("data-node=\"{id}\"")).unwrap();
        let group = drawn[at..].split("</g>").next().unwrap();
        let d = group
            .split("d=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        for run in d.split('M').filter(|r| !r.is_empty()) {
            let v: Vec<i32> = run.split(['L', ' ']).map(|x| x.parse().unwrap()).collect();
            let (x0, y0, x1, y1) = (
                v[0].min(v[2]),
                v[1].min(v[3]),
                v[0].max(v[2]),
                v[1].max(v[3]),
            );
            for (k, p) in placed.iter().enumerate() {
                if ms.iter().any(|m| m.0 == k) {
                    continue;
                }
                let b = p.page_box();
                assert!(
                    !overlap((x0, y0, x1 + 1, y1 + 1), (b.0 + 1, b.1 + 1, b.2, b.3)),
                    "node {id} runs through {}",
                    parts[k].0
                );
            }
        }
    }
}

#[test]
fn the_drawing_is_deterministic() {
    let (parts, nodes) = every_type();
    let first = svg(&parts, &nodes);
    for _ in 0..3 {
        assert_eq!(svg(&parts, &nodes), first);
    }
    assert_eq!(pump_relief().schematic_svg(), pump_relief().schematic_svg());
    // names are escaped
    let odd = svg(&[("a<b&\"c\"".into(), "Tank".into())], &[]);
    parse(&odd);
    assert!(odd.contains("a&lt;b&amp;&quot;c&quot;"));
}
