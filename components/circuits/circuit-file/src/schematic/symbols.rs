//! One ISO 1219-1 symbol per part type: its outline in SVG (in its own
//! coordinates, px, origin top left), its size, where its ports are and
//! which way their lines leave. Every port sits on a multiple of
//! [`GRID`] so that the router's lines meet it exactly.

use fmu_core::compose::Domain;
use std::fmt::Write as _;

/// The routing grid, px: symbol sizes and port positions are multiples.
pub(crate) const GRID: i32 = 10;

/// The side of a symbol a port's line leaves from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Up,
    Down,
    Left,
    Right,
}

impl Side {
    /// The unit step (x, y) away from the symbol.
    pub(crate) fn step(self) -> (i32, i32) {
        match self {
            Side::Up => (0, -1),
            Side::Down => (0, 1),
            Side::Left => (-1, 0),
            Side::Right => (1, 0),
        }
    }
}

/// Where a part type sits in the circuit's flow, bottom to top: what the
/// layout stacks the rows by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Tier {
    /// Tanks: the bottom row, under everything.
    Tank,
    /// Pumps and pressure sources.
    Source,
    /// Volumes, restrictions, pressure and check valves on the lines.
    Line,
    /// Directional valves and anything not known.
    Valve,
    /// Load-holding valves between the directional valve and the actuator.
    Holding,
    /// Cylinders and motors.
    Actuator,
}

/// A port of a symbol.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PortAt {
    pub name: String,
    pub x: i32,
    pub y: i32,
    pub side: Side,
    /// A pilot port: its line is drawn dashed (ISO 1219-1 pilot line).
    pub pilot: bool,
}

/// A drawn symbol.
#[derive(Debug, Clone)]
pub(crate) struct Symbol {
    /// Width and height of the outline, px.
    pub w: i32,
    pub h: i32,
    pub ports: Vec<PortAt>,
    /// The outline, SVG elements in the symbol's coordinates.
    pub body: String,
    pub tier: Tier,
    /// Whether the labels go inside the outline (the generic box).
    pub label_inside: bool,
}

fn port(name: &str, x: i32, y: i32, side: Side) -> PortAt {
    PortAt {
        name: name.to_owned(),
        x,
        y,
        side,
        pilot: false,
    }
}

fn symbol(w: i32, h: i32, tier: Tier, ports: Vec<PortAt>, body: String) -> Symbol {
    Symbol {
        w,
        h,
        ports,
        body,
        tier,
        label_inside: false,
    }
}

/// A filled arrow head with its tip at (x, y) pointing along (dx, dy).
fn head(x: f64, y: f64, dx: f64, dy: f64) -> String {
    let n = (dx * dx + dy * dy).sqrt().max(1e-9);
    let (ux, uy) = (dx / n, dy / n);
    let (bx, by) = (x - 7.0 * ux, y - 7.0 * uy);
    format!(
        "<path d=\"M{x:.1} {y:.1}L{:.1} {:.1}L{:.1} {:.1}Z\" fill=\"currentColor\" stroke=\"none\"/>",
        bx - 3.5 * uy,
        by + 3.5 * ux,
        bx + 3.5 * uy,
        by - 3.5 * ux
    )
}

/// A flow arrow from (x0, y0) to (x1, y1), head at the end.
fn arrow(x0: f64, y0: f64, x1: f64, y1: f64) -> String {
    let (dx, dy) = (x1 - x0, y1 - y0);
    let n = (dx * dx + dy * dy).sqrt().max(1e-9);
    format!(
        "<path d=\"M{x0:.1} {y0:.1}L{:.1} {:.1}\"/>{}",
        x1 - 6.0 * dx / n,
        y1 - 6.0 * dy / n,
        head(x1, y1, dx, dy)
    )
}

/// A spring (zigzag) from (x0, y0) to (x1, y1), `n` teeth of half-width 4.
fn spring(x0: f64, y0: f64, x1: f64, y1: f64, n: usize) -> String {
    let (dx, dy) = (x1 - x0, y1 - y0);
    let len = (dx * dx + dy * dy).sqrt().max(1e-9);
    let (nx, ny) = (-dy / len * 4.0, dx / len * 4.0);
    let mut d = format!("M{x0:.1} {y0:.1}");
    for k in 0..n {
        let t = (k as f64 + 0.5) / n as f64;
        let s = if k % 2 == 0 { 1.0 } else { -1.0 };
        let _ = write!(
            d,
            "L{:.1} {:.1}",
            x0 + dx * t + s * nx,
            y0 + dy * t + s * ny
        );
    }
    let _ = write!(d, "L{x1:.1} {y1:.1}");
    format!("<path d=\"{d}\"/>")
}

/// A small port letter (P, T, A, B) beside a port.
fn letter(x: i32, y: i32, text: &str) -> String {
    format!(
        "<text x=\"{x}\" y=\"{y}\" font-size=\"9\" fill=\"currentColor\" stroke=\"none\">{text}</text>"
    )
}

/// The ball-and-seat of a check valve on a vertical line at `x`: the seat's
/// apex at `apex_y`, the ball above it (`up` false: free flow upwards) or
/// below it (`up` true: free flow downwards).
fn ball_and_seat(x: f64, apex_y: f64, up: bool) -> String {
    let s = if up { 1.0 } else { -1.0 };
    let cy = apex_y + s * 8.5;
    format!(
        "<path d=\"M{:.1} {:.1}L{x:.1} {apex_y:.1}L{:.1} {:.1}\"/><circle cx=\"{x:.1}\" cy=\"{cy:.1}\" r=\"6\"/>",
        x - 7.0,
        apex_y + s * 7.0,
        x + 7.0,
        apex_y + s * 7.0
    )
}

fn tank() -> Symbol {
    let body = "<path d=\"M0 10V30H40V10\"/><path d=\"M20 0V24\"/>".to_owned();
    symbol(40, 30, Tier::Tank, vec![port("T", 20, 0, Side::Up)], body)
}

fn pressure_source() -> Symbol {
    let body = "<circle cx=\"20\" cy=\"22\" r=\"18\"/><path d=\"M20 0V4\"/>\
                <path d=\"M20 14L13 26H27Z\" fill=\"currentColor\"/>"
        .to_owned();
    symbol(40, 40, Tier::Source, vec![port("P", 20, 0, Side::Up)], body)
}

/// A pump: a circle with a filled triangle at its rim pointing out to P;
/// `shaft` adds its drive shaft on the right.
fn pump(shaft: bool) -> Symbol {
    let mut body = "<circle cx=\"20\" cy=\"20\" r=\"18\"/><path d=\"M20 0V2M20 38V40\"/>\
                    <path d=\"M20 2L14 13H26Z\" fill=\"currentColor\"/>"
        .to_owned();
    let mut ports = vec![port("P", 20, 0, Side::Up), port("T", 20, 40, Side::Down)];
    if shaft {
        body += "<path d=\"M38 17H50M38 23H50\"/>";
        ports.push(port("shaft", 50, 20, Side::Right));
    }
    symbol(if shaft { 50 } else { 40 }, 40, Tier::Source, ports, body)
}

fn motor() -> Symbol {
    let body = "<circle cx=\"20\" cy=\"20\" r=\"18\"/><path d=\"M20 0V2M20 38V40\"/>\
                <path d=\"M20 27L14 37H26Z\" fill=\"currentColor\"/>\
                <path d=\"M38 17H50M38 23H50\"/>"
        .to_owned();
    let ports = vec![
        port("A", 20, 40, Side::Down),
        port("B", 20, 0, Side::Up),
        port("shaft", 50, 20, Side::Right),
    ];
    symbol(50, 40, Tier::Actuator, ports, body)
}

fn orifice() -> Symbol {
    let body = "<path d=\"M10 0V40\"/><path d=\"M2 12Q12 20 2 28M18 12Q8 20 18 28\"/>".to_owned();
    let ports = vec![port("A", 10, 0, Side::Up), port("B", 10, 40, Side::Down)];
    symbol(20, 40, Tier::Line, ports, body)
}

fn chamber() -> Symbol {
    let body = "<rect x=\"0\" y=\"0\" width=\"60\" height=\"24\" rx=\"12\"/><path d=\"M30 24V30\"/>\
                <text x=\"30\" y=\"16.5\" font-size=\"11\" text-anchor=\"middle\" fill=\"currentColor\" stroke=\"none\">V</text>"
        .to_owned();
    symbol(
        60,
        30,
        Tier::Line,
        vec![port("A", 30, 30, Side::Down)],
        body,
    )
}

/// The pressure valve of a relief or counterbalance valve: a square
/// envelope (x0..x0+40, y 20..60), ports on the line at `x0 + 10`, the
/// arrow off that line (normally closed; pointing `down` or up), the
/// spring on top.
fn pressure_valve(x0: i32, down: bool) -> String {
    let (xl, xa, xs) = (f64::from(x0 + 10), f64::from(x0 + 20), f64::from(x0 + 30));
    let (from, to) = if down { (26.0, 54.0) } else { (54.0, 26.0) };
    format!(
        "<rect x=\"{x0}\" y=\"20\" width=\"40\" height=\"40\"/><path d=\"M{xl} 0V20M{xl} 60V80\"/>{}{}",
        arrow(xa, from, xa, to),
        spring(xs, 20.0, xs, 4.0, 5)
    )
}

fn relief_valve() -> Symbol {
    let body = format!(
        "{}<path d=\"M10 72H30V60\" stroke-dasharray=\"4 3\"/>",
        pressure_valve(0, false)
    );
    let ports = vec![port("T", 10, 0, Side::Up), port("P", 10, 80, Side::Down)];
    symbol(40, 80, Tier::Line, ports, body)
}

/// A pressure compensator: a normally open throttle (the pressure valve
/// with its arrow through) held open by its spring and closed by the
/// higher of the two load pressures, chosen by a shuttle (the small circle)
/// from the pilots `LA` and `LB`.
fn compensator() -> Symbol {
    let body = format!(
        "{}<path d=\"M40 40H56M60 30V36M60 44V50M60 30H70M60 50H70\" stroke-dasharray=\"4 3\"/>\
         <circle cx=\"60\" cy=\"40\" r=\"4\"/>",
        pressure_valve(0, true)
    );
    let mut la = port("LA", 70, 30, Side::Right);
    la.pilot = true;
    let mut lb = port("LB", 70, 50, Side::Right);
    lb.pilot = true;
    let ports = vec![
        port("P", 10, 0, Side::Up),
        port("A", 10, 80, Side::Down),
        la,
        lb,
    ];
    symbol(70, 80, Tier::Line, ports, body)
}

fn check_valve() -> Symbol {
    let body = format!(
        "<path d=\"M10 0V22M10 46V70\"/>{}{}",
        ball_and_seat(10.0, 46.0, false),
        spring(14.0, 31.0, 28.0, 12.0, 5)
    );
    let ports = vec![port("B", 10, 0, Side::Up), port("A", 10, 70, Side::Down)];
    symbol(30, 70, Tier::Line, ports, body)
}

/// A counterbalance valve: the pressure valve from load (top) to out
/// (bottom) opened by its pilot, the check valve from out to load beside
/// it, both in one enclosure.
fn counterbalance_valve() -> Symbol {
    let body = format!(
        "{}<path d=\"M80 70H60V60\" stroke-dasharray=\"4 3\"/>\
         <path d=\"M40 74H10V44M10 29V6H40\"/>{}\
         <rect x=\"0\" y=\"2\" width=\"74\" height=\"76\" stroke-width=\"0.8\" stroke-dasharray=\"8 3 2 3\"/>",
        pressure_valve(30, true),
        ball_and_seat(10.0, 44.0, false)
    );
    let mut pilot = port("pilot", 80, 70, Side::Right);
    pilot.pilot = true;
    let ports = vec![
        port("load", 40, 0, Side::Up),
        port("out", 40, 80, Side::Down),
        pilot,
    ];
    symbol(80, 80, Tier::Holding, ports, body)
}

fn accumulator() -> Symbol {
    let body = "<rect x=\"4\" y=\"0\" width=\"32\" height=\"56\" rx=\"16\"/><path d=\"M4 28H36M20 56V70\"/>\
                <path d=\"M20 8L14 18H26Z\"/>"
        .to_owned();
    symbol(
        40,
        70,
        Tier::Line,
        vec![port("A", 20, 70, Side::Down)],
        body,
    )
}

/// A double-acting single-rod cylinder: barrel, piston, rod out to the
/// right, A (piston side) and B (rod side) underneath.
fn cylinder() -> Symbol {
    let body = "<rect x=\"0\" y=\"5\" width=\"90\" height=\"30\"/>\
                <rect x=\"30\" y=\"5\" width=\"5\" height=\"30\" fill=\"currentColor\"/>\
                <rect x=\"35\" y=\"17\" width=\"85\" height=\"6\"/>\
                <path d=\"M10 35V40M80 35V40\"/>"
        .to_owned();
    let ports = vec![
        port("A", 10, 40, Side::Down),
        port("B", 80, 40, Side::Down),
        port("rod", 120, 20, Side::Right),
    ];
    symbol(120, 40, Tier::Actuator, ports, body)
}

fn mass() -> Symbol {
    let mut body = "<rect x=\"0\" y=\"0\" width=\"60\" height=\"40\"/>\
                    <text x=\"30\" y=\"25\" font-size=\"13\" font-style=\"italic\" text-anchor=\"middle\" fill=\"currentColor\" stroke=\"none\">m</text>\
                    <path d=\"M-4 42H64\"/>"
        .to_owned();
    for k in 0..7 {
        let x = k * 10 - 2;
        let _ = write!(
            body,
            "<path d=\"M{x} 50L{} 42\" stroke-width=\"0.8\"/>",
            x + 8
        );
    }
    symbol(
        60,
        50,
        Tier::Actuator,
        vec![port("rod", 0, 20, Side::Left)],
        body,
    )
}

fn inertia() -> Symbol {
    let body = "<path d=\"M0 27H20M0 33H20\"/>\
                <rect x=\"20\" y=\"0\" width=\"14\" height=\"60\" fill=\"#e4e8ec\"/>\
                <path d=\"M42 18A14 14 0 0 1 42 42\"/>"
        .to_owned()
        + &head(42.0, 42.0, -3.0, 2.0)
        + "<text x=\"46\" y=\"34\" font-size=\"12\" font-style=\"italic\" fill=\"currentColor\" stroke=\"none\">J</text>";
    symbol(
        60,
        60,
        Tier::Actuator,
        vec![port("shaft", 0, 30, Side::Left)],
        body,
    )
}

fn spool() -> Symbol {
    let body = "<rect x=\"0\" y=\"0\" width=\"70\" height=\"40\"/>\
                <text x=\"35\" y=\"24\" font-size=\"11\" text-anchor=\"middle\" fill=\"currentColor\" stroke=\"none\">ωn, ζ</text>"
        .to_owned();
    let ports = vec![
        port("U", 0, 20, Side::Left),
        port("Us", 70, 20, Side::Right),
    ];
    symbol(70, 40, Tier::Valve, ports, body)
}

/// A 4/3 proportional directional valve: three envelopes (P-A B-T,
/// closed centre, P-B A-T), the proportional solenoid on the left, the
/// centring spring on the right, the ports on the centre envelope.
fn directional_valve() -> Symbol {
    let mut body = String::from(
        "<rect x=\"20\" y=\"10\" width=\"120\" height=\"40\"/><path d=\"M60 10V50M100 10V50\"/>\
         <path d=\"M20 4H140M20 56H140\" stroke-width=\"0.8\"/>\
         <path d=\"M70 0V10M90 0V10M70 50V60M90 50V60\"/>\
         <path d=\"M70 10V17M66 17H74M90 10V17M86 17H94M70 50V43M66 43H74M90 50V43M86 43H94\"/>\
         <rect x=\"4\" y=\"20\" width=\"16\" height=\"20\"/><path d=\"M4 40L20 20M0 30H4\"/>",
    );
    body += &arrow(30.0, 50.0, 30.0, 10.0);
    body += &arrow(50.0, 10.0, 50.0, 50.0);
    body += &arrow(110.0, 50.0, 130.0, 10.0);
    body += &arrow(110.0, 10.0, 130.0, 50.0);
    body += &spring(140.0, 30.0, 160.0, 30.0, 5);
    for (x, y, t) in [(62, 7, "A"), (93, 7, "B"), (62, 59, "P"), (93, 59, "T")] {
        body += &letter(x, y, t);
    }
    let ports = vec![
        port("A", 70, 0, Side::Up),
        port("B", 90, 0, Side::Up),
        port("P", 70, 60, Side::Down),
        port("T", 90, 60, Side::Down),
        port("Us", 0, 30, Side::Left),
    ];
    symbol(160, 60, Tier::Valve, ports, body)
}

/// A flexible hose: a curved line between its two ends.
fn hose(names: &[&str]) -> Symbol {
    let a = names.first().copied().unwrap_or("A");
    let b = names.get(1).copied().unwrap_or("B");
    let body = "<path d=\"M10 0V10C26 22 -6 38 10 50V60\"/>".to_owned();
    let ports = vec![port(a, 10, 0, Side::Up), port(b, 10, 60, Side::Down)];
    symbol(20, 60, Tier::Line, ports, body)
}

/// A labelled box for a type without a symbol: hydraulic ports on top and
/// bottom, signals on the left, mechanical ports on the right.
fn generic(ports: &[(&str, Domain)], label_width: i32) -> Symbol {
    let count = |f: fn(Domain) -> bool| ports.iter().filter(|(_, d)| f(*d)).count() as i32;
    let hydraulic = count(|d| d == Domain::Hydraulic);
    let signal = count(|d| d == Domain::Signal);
    let mechanical = ports.len() as i32 - hydraulic - signal;
    let w = round_up(((hydraulic + 1) / 2 * 2 * GRID + 2 * GRID).max(label_width + 2 * GRID));
    let h = round_up((signal.max(mechanical) * 2 * GRID).max(4 * GRID));
    let (mut top, mut bottom, mut left, mut right) = (0, 0, 0, 0);
    let mut at = Vec::new();
    for (name, domain) in ports {
        let p = match domain {
            Domain::Hydraulic if top <= bottom => {
                top += 1;
                port(name, top * 2 * GRID, 0, Side::Up)
            }
            Domain::Hydraulic => {
                bottom += 1;
                port(name, bottom * 2 * GRID, h, Side::Down)
            }
            Domain::Signal => {
                left += 1;
                port(name, 0, left * 2 * GRID - GRID, Side::Left)
            }
            _ => {
                right += 1;
                port(name, w, right * 2 * GRID - GRID, Side::Right)
            }
        };
        at.push(p);
    }
    let body = format!("<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" rx=\"3\"/>");
    Symbol {
        label_inside: true,
        ..symbol(w, h, Tier::Valve, at, body)
    }
}

/// Rounds up to a multiple of the grid.
pub(crate) fn round_up(v: i32) -> i32 {
    (v + GRID - 1).div_euclid(GRID) * GRID
}

/// The symbol of part type `type_name` with ports `ports` (name, domain):
/// the type's ISO 1219-1 symbol if it has one, else a labelled box. A
/// port the symbol does not know is added on its left side.
pub(crate) fn of(type_name: &str, ports: &[(&str, Domain)], label_width: i32) -> Symbol {
    let names: Vec<&str> = ports.iter().map(|(n, _)| *n).collect();
    let mut s = match type_name {
        "Tank" => tank(),
        "PressureSource" => pressure_source(),
        "Orifice" => orifice(),
        "Chamber" => chamber(),
        "ReliefValve" => relief_valve(),
        "CheckValve" => check_valve(),
        "CounterbalanceValve" => counterbalance_valve(),
        "ConstantFlowPump" => pump(false),
        "FixedDisplacementPump" => pump(true),
        "FixedDisplacementMotor" => motor(),
        "Inertia" => inertia(),
        "Accumulator" => accumulator(),
        "Cylinder" | "ChamberCylinder" => cylinder(),
        "Mass" | "LuGreMass" => mass(),
        "PressureCompensator" => compensator(),
        "Spool" => spool(),
        "DirectionalValve" => directional_valve(),
        "Hose" | "HoseSegment" | "HoseH" | "HoseG" | "HoseY" | "HoseZ" if names.len() <= 2 => {
            hose(&names)
        }
        _ => return generic(ports, label_width),
    };
    let mut y = 0;
    for name in names {
        if s.ports.iter().all(|p| p.name != name) {
            y += 2 * GRID;
            while s.ports.iter().any(|p| p.x == 0 && p.y == y) {
                y += GRID;
            }
            s.ports.push(port(name, 0, y, Side::Left));
            s.h = s.h.max(y);
        }
    }
    s
}

/// Every type with its own symbol (the rest are boxes).
#[cfg(test)]
pub(crate) const DRAWN: [&str; 26] = [
    "Tank",
    "PressureSource",
    "Orifice",
    "Chamber",
    "ReliefValve",
    "CheckValve",
    "CounterbalanceValve",
    "ConstantFlowPump",
    "FixedDisplacementPump",
    "FixedDisplacementMotor",
    "Inertia",
    "Accumulator",
    "Cylinder",
    "ChamberCylinder",
    "Mass",
    "Spool",
    "DirectionalValve",
    "Hose",
    "HoseSegment",
    "HoseH",
    "HoseG",
    "HoseY",
    "HoseZ",
    "LuGreMass",
    "PressureCompensator",
    "Generic",
];
