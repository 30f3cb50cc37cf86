//! The circuit as a picture: a schematic in ISO 1219-1 symbols, as one
//! self-contained SVG (no fonts, scripts or styles from outside).
//!
//! Every part is drawn as the symbol of its type (a labelled box for a
//! type without one) with its name and type beside it; every node as
//! lines joining its ports: hydraulic lines solid (pilot lines dashed),
//! signal lines dashed, shafts and rods as double lines, a dot where three
//! or more lines meet. Pumps sit at the bottom, actuators at the top,
//! tanks underneath everything; the lines run on a grid around the
//! symbols. The same input always gives the same text.

mod layout;
mod routing;
mod symbols;

use crate::{Circuit, InputTarget};
use fmu_core::compose::Domain;
use std::fmt::Write as _;
use symbols::GRID;

/// The ink.
const INK: &str = "#1d2329";

/// A part to draw: its name, its type and its ports (name, domain).
#[derive(Debug, Clone, PartialEq)]
pub struct Sketch {
    /// The part's name.
    pub name: String,
    /// The part type's name (as the registry spells it).
    pub type_name: String,
    /// Its ports; ports named by the nodes but missing here are added.
    pub ports: Vec<(String, Domain)>,
}

/// The schematic of parts (name, type name) joined by nodes (domain, the
/// ports `part.port` each joins).
pub fn svg(parts: &[(String, String)], nodes: &[(Domain, Vec<String>)]) -> String {
    let sketches: Vec<Sketch> = parts
        .iter()
        .map(|(name, type_name)| Sketch {
            name: name.clone(),
            type_name: type_name.clone(),
            ports: Vec::new(),
        })
        .collect();
    draw(&sketches, nodes, &[])
}

/// The schematic of `parts` joined by `nodes`, with the FMU inputs
/// `inputs` (name, `part.port`) drawn as arrows into the ports no node
/// holds.
pub fn draw<'a>(
    parts: &[Sketch],
    nodes: &'a [(Domain, Vec<String>)],
    inputs: &'a [(String, String)],
) -> String {
    let find = |member: &'a str| find_port(parts, member);
    let (placed, members) = arrange(parts, nodes, inputs);

    let width = placed.iter().map(|p| p.page_box().2).max().unwrap_or(0) + layout::MARGIN;
    let height = placed.iter().map(|p| p.page_box().3).max().unwrap_or(0) + layout::MARGIN;
    let boxes: Vec<_> = placed.iter().map(|p| p.page_box()).collect();
    let mut grid = routing::Grid::new(width, height, &boxes);
    let terminal = |k: usize, j: usize| {
        let p = &placed[k];
        let at = &p.symbol.ports[j];
        let port = ((p.x + at.x) / GRID, (p.y + at.y) / GRID);
        let (dx, dy) = at.side.step();
        let (x0, y0, x1, y1) = boxes[k];
        let mut exit = port;
        while (x0 / GRID..=x1 / GRID).contains(&exit.0) && (y0 / GRID..=y1 / GRID).contains(&exit.1)
        {
            exit = (exit.0 + dx, exit.1 + dy);
        }
        routing::Terminal {
            port,
            exit,
            pilot: at.pilot,
        }
    };
    let terminals: Vec<Vec<routing::Terminal>> = members
        .iter()
        .map(|(_, ms)| ms.iter().map(|&(k, j)| terminal(k, j)).collect())
        .collect();
    for (id, ts) in terminals.iter().enumerate() {
        for t in ts {
            grid.reserve(id, t.exit);
        }
    }
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by_key(|&id| (members[id].0 != Domain::Hydraulic, id));
    let mut trees = vec![routing::Tree::default(); members.len()];
    for id in order {
        if terminals[id].len() >= 2 {
            trees[id] = grid.route(id, &terminals[id]);
        }
    }

    // The inputs' arrows, and room for their names beyond the symbols.
    let mut arrows = Vec::new();
    for (name, at) in inputs {
        let Some((k, port)) = find(at) else { continue };
        let Some(j) = placed[k].symbol.ports.iter().position(|p| p.name == port) else {
            continue;
        };
        if members
            .iter()
            .any(|(_, ms)| ms.len() > 1 && ms.contains(&(k, j)))
        {
            continue;
        }
        arrows.push((name, terminal(k, j), placed[k].symbol.ports[j].side));
    }
    let (mut left, mut right, mut top, mut bottom) = (0, width, 0, height);
    for (name, t, side) in &arrows {
        let reach = 3 * GRID + 4 + name.chars().count() as i32 * 8;
        // Upwards or downwards: the arrow's two grid steps and a line of
        // text.
        let rise = 3 * GRID + 16;
        match side {
            symbols::Side::Left => left = left.min(t.exit.0 * GRID - reach - GRID),
            symbols::Side::Right => right = right.max(t.exit.0 * GRID + reach + GRID),
            symbols::Side::Up => top = top.min(t.exit.1 * GRID - rise),
            symbols::Side::Down => bottom = bottom.max(t.exit.1 * GRID + rise),
        }
    }
    let shift = symbols::round_up(-left);
    let width = right + shift;
    let lift = symbols::round_up(-top);
    let height = bottom + lift;

    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"schematic\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" style=\"max-width:100%;height:auto;background:#fff\" \
         font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" role=\"img\" \
         aria-label=\"Hydraulic schematic in ISO 1219-1 symbols\">\n\
         <title>Hydraulic schematic ({} parts, ISO 1219-1 symbols)</title>\n\
         <g transform=\"translate({shift} {lift})\">\n",
        parts.len()
    );
    for (id, tree) in trees.iter().enumerate() {
        write_node(&mut out, id, members[id].0, tree);
    }
    for (k, p) in placed.iter().enumerate() {
        write_part(&mut out, &parts[k], p);
    }
    for (name, t, side) in arrows {
        write_input(&mut out, name, t, side);
    }
    out.push_str("</g>\n");
    out.push_str("</svg>\n");
    out
}

fn write_node(out: &mut String, id: usize, domain: Domain, tree: &routing::Tree) {
    let (solid, pilot, junctions) = routing::draw(tree);
    if solid.is_empty() && pilot.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<g class=\"node\" data-node=\"{id}\" data-domain=\"{}\" fill=\"none\" stroke=\"{INK}\" stroke-width=\"1.6\">",
        domain.name()
    );
    match domain {
        Domain::Hydraulic => {
            let _ = write!(out, "<path d=\"{solid}\"/>");
        }
        Domain::Signal => {
            let _ = write!(
                out,
                "<path d=\"{solid}\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\"/>"
            );
        }
        Domain::Translational | Domain::Rotational => {
            let _ = write!(
                out,
                "<path d=\"{solid}\" stroke-width=\"6\"/><path d=\"{solid}\" stroke=\"#fff\" stroke-width=\"3\"/>"
            );
        }
    }
    if !pilot.is_empty() {
        let _ = write!(out, "<path d=\"{pilot}\" stroke-dasharray=\"5 3\"/>");
    }
    for (x, y) in junctions {
        let _ = write!(
            out,
            "<circle class=\"junction\" cx=\"{}\" cy=\"{}\" r=\"3.2\" fill=\"{INK}\" stroke=\"none\"/>",
            x * GRID,
            y * GRID
        );
    }
    out.push_str("</g>\n");
}

fn write_part(out: &mut String, part: &Sketch, p: &layout::Placed) {
    let name = escape(&part.name);
    let type_name = escape(&part.type_name);
    let _ = write!(
        out,
        "<g class=\"part\" data-part=\"{name}\" data-type=\"{type_name}\" transform=\"translate({} {})\" \
         fill=\"none\" stroke=\"{INK}\" stroke-width=\"1.6\" color=\"{INK}\">{}",
        p.x, p.y, p.symbol.body
    );
    let (lx, ly, anchor) = p.label;
    let _ = writeln!(
        out,
        "<text class=\"label\" data-part=\"{name}\" x=\"{lx}\" y=\"{ly}\" font-size=\"13\" font-weight=\"bold\" \
         text-anchor=\"{anchor}\" fill=\"{INK}\" stroke=\"none\">{name}</text>\
         <text class=\"type\" x=\"{lx}\" y=\"{}\" font-size=\"10\" text-anchor=\"{anchor}\" fill=\"#57606a\" \
         stroke=\"none\">{type_name}</text></g>",
        ly + 13
    );
}

/// An FMU input: an arrow into the port's stub with the input's name.
fn write_input(out: &mut String, name: &str, t: routing::Terminal, side: symbols::Side) {
    let (dx, dy) = side.step();
    let (px, py) = (t.port.0 * GRID, t.port.1 * GRID);
    let (ex, ey) = (
        t.exit.0 * GRID + dx * 2 * GRID,
        t.exit.1 * GRID + dy * 2 * GRID,
    );
    let (tx, ty, anchor) = match side {
        symbols::Side::Left => (ex - 4, ey + 4, "end"),
        symbols::Side::Right => (ex + 4, ey + 4, "start"),
        symbols::Side::Up => (ex, ey - 4, "middle"),
        symbols::Side::Down => (ex, ey + 12, "middle"),
    };
    let (hx, hy) = (px + dx * 7, py + dy * 7);
    let _ = writeln!(
        out,
        "<g class=\"input\" data-input=\"{n}\" fill=\"none\" stroke=\"{INK}\" stroke-width=\"1.2\">\
         <path d=\"M{ex} {ey}L{hx} {hy}\" stroke-dasharray=\"6 4\"/>\
         <path d=\"M{px} {py}L{} {}L{} {}Z\" fill=\"{INK}\" stroke=\"none\"/>\
         <text x=\"{tx}\" y=\"{ty}\" font-size=\"11\" font-style=\"italic\" text-anchor=\"{anchor}\" fill=\"{INK}\" \
         stroke=\"none\">{n}</text></g>",
        hx - dy * 4,
        hy - dx * 4,
        hx + dy * 4,
        hy + dx * 4,
        n = escape(name)
    );
}

/// The symbols placed, and the nodes as (part, port) indices.
#[allow(clippy::type_complexity)]
fn arrange(
    parts: &[Sketch],
    nodes: &[(Domain, Vec<String>)],
    inputs: &[(String, String)],
) -> (Vec<layout::Placed>, Vec<(Domain, Vec<(usize, usize)>)>) {
    let find = |member: &str| find_port(parts, member).map(|(k, p)| (k, p.to_owned()));
    // Every part's ports: its own, then those the nodes name.
    let mut ports: Vec<Vec<(String, Domain)>> = parts.iter().map(|p| p.ports.clone()).collect();
    for (domain, members) in nodes {
        for m in members {
            if let Some((k, port)) = find(m)
                && ports[k].iter().all(|(n, _)| *n != port)
            {
                ports[k].push((port, *domain));
            }
        }
    }
    for (_, at) in inputs {
        if let Some((k, port)) = find(at)
            && ports[k].iter().all(|(n, _)| *n != port)
        {
            ports[k].push((port, Domain::Signal));
        }
    }
    let widths: Vec<i32> = parts
        .iter()
        .map(|p| layout::label_width(&p.name, &p.type_name))
        .collect();
    let symbols: Vec<symbols::Symbol> = parts
        .iter()
        .zip(&ports)
        .zip(&widths)
        .map(|((p, ports), &w)| {
            let list: Vec<(&str, Domain)> = ports.iter().map(|(n, d)| (n.as_str(), *d)).collect();
            symbols::of(&p.type_name, &list, w)
        })
        .collect();
    let port_index = |k: usize, port: &str| symbols[k].ports.iter().position(|p| p.name == port);
    let members: Vec<(Domain, Vec<(usize, usize)>)> = nodes
        .iter()
        .map(|(domain, ms)| {
            let list = ms
                .iter()
                .filter_map(|m| find(m).and_then(|(k, port)| Some((k, port_index(k, &port)?))))
                .collect();
            (*domain, list)
        })
        .collect();
    (layout::place(symbols, &widths, &members), members)
}

/// The part index and port name of `part.port`.
fn find_port<'a>(parts: &[Sketch], member: &'a str) -> Option<(usize, &'a str)> {
    let (part, port) = member.split_once('.')?;
    let k = parts.iter().position(|p| p.name == part)?;
    Some((k, port))
}

/// Escapes text for XML content and attributes (the model description's
/// escaping, which the documentation page uses too).
pub(crate) use model_description::escape_html as escape;

impl Circuit {
    /// The circuit's schematic (see [`svg`]): its parts with their ports,
    /// its nodes, and its FMU inputs on ports no node holds.
    pub fn schematic_svg(&self) -> String {
        let parts: Vec<Sketch> = self
            .parts
            .iter()
            .map(|(name, t, part)| Sketch {
                name: name.clone(),
                type_name: t.name.to_owned(),
                ports: part
                    .ports()
                    .iter()
                    .map(|p| (p.name.to_owned(), p.domain))
                    .collect(),
            })
            .collect();
        let inputs: Vec<(String, String)> = self
            .inputs
            .iter()
            .filter_map(|i| match &i.target {
                InputTarget::Across { port, .. } => Some((i.name.clone(), port.clone())),
                InputTarget::Through { .. } => None,
            })
            .collect();
        draw(&parts, &self.assembly.nodes(), &inputs)
    }
}

#[cfg(test)]
mod tests;
