//! Where each symbol goes: rows from the pumps at the bottom up to the
//! actuators (tanks underneath everything), each part one row above the
//! highest part of a lower tier it connects to; within a row the parts sit
//! over the parts they connect to below, without overlapping. A part tied
//! by a signal or a shaft or rod to one other part only (a spool, a load)
//! sits beside that part, on the side of its port.

use super::symbols::{GRID, Side, Symbol, Tier, round_up};
use fmu_core::compose::Domain;

/// Room around each symbol that no line crosses, px.
const PAD: i32 = GRID;
/// Gap between two symbols of a row (their padded boxes), px.
const HGAP: i32 = 5 * GRID;
/// Free border around the drawing, px.
pub(crate) const MARGIN: i32 = 4 * GRID;

/// A symbol with its labels' extent.
#[derive(Debug, Clone)]
pub(crate) struct Placed {
    pub symbol: Symbol,
    /// The symbol's origin on the page, px.
    pub x: i32,
    pub y: i32,
    /// The box (labels and padding included) relative to the origin:
    /// x0, y0, x1, y1.
    pub bounds: (i32, i32, i32, i32),
    /// The labels' anchor relative to the origin, and their anchor kind.
    pub label: (i32, i32, &'static str),
}

impl Placed {
    /// The padded box on the page.
    pub fn page_box(&self) -> (i32, i32, i32, i32) {
        let (x0, y0, x1, y1) = self.bounds;
        (self.x + x0, self.y + y0, self.x + x1, self.y + y1)
    }
}

/// Label lines: the name (13 px) and the type (10 px); their widths as the
/// page's sans-serif font sets them, over-estimated.
pub(crate) fn label_width(name: &str, type_name: &str) -> i32 {
    let n = name.chars().count() as f64 * 8.2;
    let t = type_name.chars().count() as f64 * 6.4;
    n.max(t).ceil() as i32
}

/// The labels' place: inside a box, else on the first side of right,
/// above, below, left without a port.
/// A box (x0, y0, x1, y1) and a text anchor (x, y, kind).
type Extent = ((i32, i32, i32, i32), (i32, i32, &'static str));

fn place_label(s: &Symbol, width: i32) -> Extent {
    let outline = (0, 0, s.w, s.h);
    if s.label_inside {
        return (outline, (s.w / 2, s.h / 2 - 3, "middle"));
    }
    let used = |side: Side| s.ports.iter().any(|p| p.side == side);
    let (x0, y0, x1, y1) = outline;
    let h = 28;
    if !used(Side::Right) {
        let top = (s.h / 2 - 14).min(0).max(-h);
        let top = if s.h >= h { s.h / 2 - 14 } else { top };
        (
            (x0, y0.min(top), x1 + 8 + width, y1.max(top + h)),
            (s.w + 8, top + 12, "start"),
        )
    } else if !used(Side::Up) {
        ((x0, -h - 4, x1.max(width), y1), (0, -h + 8, "start"))
    } else if !used(Side::Down) {
        ((x0, y0, x1.max(width), y1 + h + 4), (0, s.h + 16, "start"))
    } else {
        (
            (-8 - width, y0.min(s.h / 2 - 14), x1, y1),
            (-8, s.h / 2 - 2, "end"),
        )
    }
}

/// Which part a satellite hangs on, whether on its left, and the ports
/// (the satellite's, the host's) that join them.
fn satellite(
    k: usize,
    symbols: &[Symbol],
    nodes: &[(Domain, Vec<(usize, usize)>)],
) -> Option<(usize, bool, usize, usize)> {
    let mut host: Option<(usize, bool, usize, usize)> = None;
    let mut linked = false;
    for (domain, members) in nodes {
        if !members.iter().any(|m| m.0 == k) {
            continue;
        }
        linked = true;
        if *domain == Domain::Hydraulic {
            return None;
        }
        let mine = members.iter().find(|m| m.0 == k).map_or(0, |m| m.1);
        for &(other, port) in members.iter().filter(|m| m.0 != k) {
            let left = symbols[other].ports[port].side == Side::Left;
            match host {
                None => host = Some((other, left, mine, port)),
                Some((h, ..)) if h == other => {}
                Some(_) => return None,
            }
        }
    }
    if !linked || symbols[k].tier == Tier::Tank {
        return None;
    }
    host.filter(|(h, ..)| *h != k)
}

/// Places the symbols; `nodes` hold (part, port) indices.
pub(crate) fn place(
    symbols: Vec<Symbol>,
    widths: &[i32],
    nodes: &[(Domain, Vec<(usize, usize)>)],
) -> Vec<Placed> {
    let n = symbols.len();
    let mut adjacent = vec![Vec::new(); n];
    for (_, members) in nodes {
        for a in members {
            for b in members {
                if a.0 != b.0 && !adjacent[a.0].contains(&b.0) {
                    adjacent[a.0].push(b.0);
                }
            }
        }
    }
    let host: Vec<Option<(usize, bool, usize, usize)>> =
        (0..n).map(|k| satellite(k, &symbols, nodes)).collect();
    // A satellite's host, followed to the part that is no satellite.
    let root = |mut k: usize| {
        for _ in 0..n {
            match host[k] {
                Some((h, ..)) => k = h,
                None => break,
            }
        }
        k
    };
    // Rows: each part's distance from the sources along the lines (tanks
    // and satellites aside), then the longest path up (distance, tier).
    let free = |k: usize| host[k].is_none() && symbols[k].tier != Tier::Tank;
    let mut dist = vec![usize::MAX; n];
    let mut queue: std::collections::VecDeque<usize> = (0..n)
        .filter(|&k| free(k) && symbols[k].tier == Tier::Source)
        .collect();
    loop {
        for &k in &queue {
            dist[k] = 0;
        }
        while let Some(k) = queue.pop_front() {
            for &j in &adjacent[k] {
                if free(j) && dist[j] == usize::MAX {
                    dist[j] = dist[k] + 1;
                    queue.push_back(j);
                }
            }
        }
        match (0..n)
            .filter(|&k| free(k) && dist[k] == usize::MAX)
            .min_by_key(|&k| (symbols[k].tier, k))
        {
            Some(k) => queue.push_back(k),
            None => break,
        }
    }
    let key = |k: usize| (dist[k], symbols[k].tier);
    let mut rank = vec![0i32; n];
    let mut order: Vec<usize> = (0..n).filter(|&k| free(k)).collect();
    order.sort_by_key(|&k| (key(k), k));
    for &k in &order {
        rank[k] = adjacent[k]
            .iter()
            .filter(|&&j| free(j) && key(j) < key(k))
            .map(|&j| rank[j] + 1)
            .max()
            .unwrap_or(0);
    }
    for k in 0..n {
        rank[k] = if symbols[k].tier == Tier::Tank {
            -1
        } else {
            rank[root(k)]
        };
    }
    let labels: Vec<_> = symbols
        .iter()
        .zip(widths)
        .map(|(s, &w)| place_label(s, w))
        .collect();
    let mut placed: Vec<Placed> = symbols
        .into_iter()
        .zip(labels)
        .map(|(symbol, (b, label))| Placed {
            symbol,
            x: 0,
            y: 0,
            bounds: (
                -round_up(-b.0) - PAD,
                -round_up(-b.1) - PAD,
                round_up(b.2) + PAD,
                round_up(b.3) + PAD,
            ),
            label,
        })
        .collect();
    let top = rank.iter().copied().max().unwrap_or(0);
    let mut y = MARGIN;
    let nets = nodes.len() as i32;
    let vgap = (6 + nets / 3).min(10) * GRID;
    let mut centre = vec![None::<f64>; n];
    let mut rows: Vec<(i32, Vec<usize>)> = Vec::new();
    for r in (-1..=top).rev() {
        let members: Vec<usize> = (0..n).filter(|&k| rank[k] == r).collect();
        if !members.is_empty() {
            rows.push((r, members));
        }
    }
    // Vertical: rows from the top.
    for (_, members) in &rows {
        // the outlines' bottoms level, so that the lines below start even
        let hs: Vec<i32> = placed.iter().map(|p| p.symbol.h).collect();
        let h = |k: usize| hs[k];
        let up = members
            .iter()
            .map(|&k| h(k) - placed[k].bounds.1)
            .max()
            .unwrap_or(0);
        let down = members
            .iter()
            .map(|&k| placed[k].bounds.3 - h(k))
            .max()
            .unwrap_or(0);
        for &k in members {
            placed[k].y = y + up - h(k);
        }
        y += up + down + vgap;
    }
    // A satellite's port level with its host's, so that the link is straight.
    for _ in 0..n {
        for k in 0..n {
            if let Some((h, _, mine, theirs)) = host[k] {
                let at = placed[h].y + placed[h].symbol.ports[theirs].y;
                placed[k].y = at - placed[k].symbol.ports[mine].y;
            }
        }
    }
    // Horizontal: bottom row first, each next row over its neighbours.
    rows.sort_by_key(|(r, _)| if *r < 0 { i32::MAX } else { *r });
    for (_, members) in &rows {
        let mains: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&k| host[k].is_none())
            .collect();
        let mut wanted: Vec<(f64, usize)> = mains
            .iter()
            .map(|&k| {
                let seen: Vec<f64> = adjacent[k]
                    .iter()
                    .filter_map(|&j| centre[root(j)])
                    .collect();
                let want = if seen.is_empty() {
                    f64::INFINITY
                } else {
                    seen.iter().sum::<f64>() / seen.len() as f64
                };
                (want, k)
            })
            .collect();
        wanted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        // Satellites beside their host, in the row's order.
        let mut line: Vec<(f64, usize)> = Vec::new();
        for &(want, k) in &wanted {
            let mine = |left: bool| -> Vec<(f64, usize)> {
                members
                    .iter()
                    .filter(|&&s| host[s].is_some_and(|h| h.1 == left) && root(s) == k)
                    .map(|&s| (want, s))
                    .collect()
            };
            line.extend(mine(true));
            line.push((want, k));
            line.extend(mine(false));
        }
        let mut right_end = i32::MIN / 2;
        let mut next_free = MARGIN;
        for (want, k) in line {
            let (x0, _, x1, _) = placed[k].bounds;
            let w = x1 - x0;
            let desired = if want.is_finite() && host[k].is_none() {
                round_up((want - f64::from(w) / 2.0) as i32)
            } else {
                next_free
            };
            let left = desired.max(right_end + HGAP).max(MARGIN);
            placed[k].x = left - x0;
            right_end = left + w;
            next_free = right_end + HGAP;
            centre[k] = Some(f64::from(left) + f64::from(w) / 2.0);
        }
    }
    placed
}
