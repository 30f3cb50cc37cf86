//! Lines between ports: each node a tree of horizontal and vertical
//! segments on the grid, grown from port to port by a shortest path
//! (bends and crossings cost extra) that keeps off the symbols, never runs
//! along another node's line and never turns or joins where another
//! node's line passes.

use super::symbols::GRID;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A grid point (column, row).
pub(crate) type Point = (i32, i32);

const STEP: u32 = 2;
const BEND: u32 = 9;
const CROSS: u32 = 14;

/// One port to join: where its line leaves the symbol (the port) and the
/// first free grid point outside the symbol's box (the stub's end).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Terminal {
    pub port: Point,
    pub exit: Point,
    /// A pilot port: the path from it is drawn dashed.
    pub pilot: bool,
}

/// A node's drawn tree: its unit edges, and which of them are pilot lines.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tree {
    pub edges: Vec<(Point, Point, bool)>,
}

/// The grid: what is blocked and which node uses each point, per axis.
pub(crate) struct Grid {
    cols: i32,
    rows: i32,
    blocked: Vec<bool>,
    /// Node + 1 using the point horizontally, vertically (0: none).
    h: Vec<usize>,
    v: Vec<usize>,
}

impl Grid {
    /// A grid of `width` x `height` px with the boxes (page px) blocked.
    pub(crate) fn new(width: i32, height: i32, boxes: &[(i32, i32, i32, i32)]) -> Grid {
        let cols = width / GRID + 1;
        let rows = height / GRID + 1;
        let mut blocked = vec![false; (cols * rows) as usize];
        for &(x0, y0, x1, y1) in boxes {
            for r in (y0 / GRID).max(0)..=(y1 / GRID).min(rows - 1) {
                for c in (x0 / GRID).max(0)..=(x1 / GRID).min(cols - 1) {
                    blocked[(r * cols + c) as usize] = true;
                }
            }
        }
        let n = blocked.len();
        Grid {
            cols,
            rows,
            blocked,
            h: vec![0; n],
            v: vec![0; n],
        }
    }

    fn index(&self, p: Point) -> Option<usize> {
        (p.0 >= 0 && p.1 >= 0 && p.0 < self.cols && p.1 < self.rows)
            .then(|| (p.1 * self.cols + p.0) as usize)
    }

    /// Marks an edge as node `id`'s.
    fn take(&mut self, a: Point, b: Point, id: usize) {
        let horizontal = a.1 == b.1;
        for p in [a, b] {
            if let Some(i) = self.index(p) {
                if horizontal {
                    self.h[i] = id + 1;
                } else {
                    self.v[i] = id + 1;
                }
            }
        }
    }

    /// Reserves the stub ends of every terminal for their nodes, so that
    /// no other line passes there before they are joined.
    pub(crate) fn reserve(&mut self, id: usize, exit: Point) {
        if let Some(i) = self.index(exit) {
            self.h[i] = id + 1;
            self.v[i] = id + 1;
        }
    }

    fn other(&self, used: usize, id: usize) -> bool {
        used != 0 && used != id + 1
    }

    /// The cheapest path from `from` to any point of `tree` (which must be
    /// free of other nodes), or none.
    fn search(&self, from: Point, tree: &[Point], id: usize) -> Option<Vec<Point>> {
        let n = self.blocked.len();
        let mut goal = vec![false; n];
        for &p in tree {
            if let Some(i) = self.index(p)
                && !self.other(self.h[i], id)
                && !self.other(self.v[i], id)
            {
                goal[i] = true;
            }
        }
        let start = self.index(from)?;
        let dirs: [Point; 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
        let mut cost = vec![u32::MAX; n * 5];
        let mut back = vec![usize::MAX; n * 5];
        let mut heap = BinaryHeap::new();
        let s = start * 5 + 4;
        cost[s] = 0;
        heap.push(Reverse((0u32, s)));
        while let Some(Reverse((c, state))) = heap.pop() {
            if c > cost[state] {
                continue;
            }
            let (i, d) = (state / 5, state % 5);
            if goal[i] {
                let mut path = Vec::new();
                let mut at = state;
                while at != usize::MAX {
                    let i = (at / 5) as i32;
                    path.push((i % self.cols, i / self.cols));
                    at = back[at];
                }
                path.reverse();
                return Some(path);
            }
            let p = ((i as i32) % self.cols, (i as i32) / self.cols);
            for (nd, &(dx, dy)) in dirs.iter().enumerate() {
                if d < 4 && (dirs[d].0 == -dx && dirs[d].1 == -dy) {
                    continue;
                }
                let turning = d < 4 && d != nd;
                let axis_h = dy == 0;
                // a turn (or the start) here uses both axes at p
                if (turning || d == 4)
                    && (self.other(self.h[i], id) || self.other(self.v[i], id))
                    && state != s
                {
                    continue;
                }
                let q = (p.0 + dx, p.1 + dy);
                let Some(j) = self.index(q) else { continue };
                if self.blocked[j] && !goal[j] {
                    continue;
                }
                let (same, cross) = if axis_h {
                    (self.h[j], self.v[j])
                } else {
                    (self.v[j], self.h[j])
                };
                let same_here = if axis_h { self.h[i] } else { self.v[i] };
                if self.other(same, id) || self.other(same_here, id) {
                    continue;
                }
                let mut step = STEP + if turning { BEND } else { 0 };
                if self.other(cross, id) {
                    step += CROSS;
                }
                let next = j * 5 + nd;
                let nc = c + step;
                if nc < cost[next] {
                    cost[next] = nc;
                    back[next] = state;
                    heap.push(Reverse((nc, next)));
                }
            }
        }
        None
    }

    /// Joins `terminals` as node `id`: the nearest unjoined terminal to the
    /// tree first; pilot terminals last.
    pub(crate) fn route(&mut self, id: usize, terminals: &[Terminal]) -> Tree {
        let mut tree = Tree::default();
        let mut order: Vec<usize> = (0..terminals.len()).collect();
        order.sort_by_key(|&k| (terminals[k].pilot, terminals[k].exit.1, terminals[k].exit.0));
        let mut points: Vec<Point> = Vec::new();
        let mut todo = order;
        while !todo.is_empty() {
            let pick = if points.is_empty() {
                0
            } else {
                let far = |t: &Terminal| {
                    points
                        .iter()
                        .map(|p| (p.0 - t.exit.0).abs() + (p.1 - t.exit.1).abs())
                        .min()
                        .unwrap_or(0)
                };
                (0..todo.len())
                    .min_by_key(|&k| (terminals[todo[k]].pilot, far(&terminals[todo[k]]), k))
                    .unwrap_or(0)
            };
            let t = terminals[todo.remove(pick)];
            let stub = line(t.port, t.exit);
            for w in stub.windows(2) {
                tree.edges.push((w[0], w[1], t.pilot));
                self.take(w[0], w[1], id);
            }
            if !points.is_empty() {
                let path = self.search(t.exit, &points, id).unwrap_or_else(|| {
                    let near = *points
                        .iter()
                        .min_by_key(|p| (p.0 - t.exit.0).abs() + (p.1 - t.exit.1).abs())
                        .unwrap_or(&t.exit);
                    let mut l = line(t.exit, (near.0, t.exit.1));
                    l.extend(line((near.0, t.exit.1), near).into_iter().skip(1));
                    l
                });
                for w in path.windows(2) {
                    tree.edges.push((w[0], w[1], t.pilot));
                    self.take(w[0], w[1], id);
                }
                points.extend(path);
            }
            points.extend(stub);
        }
        tree
    }
}

/// The grid points of a straight (or L-shaped, horizontal first) line.
fn line(a: Point, b: Point) -> Vec<Point> {
    let mut out = vec![a];
    let mut p = a;
    while p != b {
        if p.0 != b.0 {
            p.0 += (b.0 - p.0).signum();
        } else {
            p.1 += (b.1 - p.1).signum();
        }
        out.push(p);
    }
    out
}

/// The tree as SVG path data of maximal straight runs (px), solid and
/// pilot edges apart, and its junctions (points where 3 or more edges
/// meet).
pub(crate) fn draw(tree: &Tree) -> (String, String, Vec<Point>) {
    let mut solid: Vec<(Point, Point)> = Vec::new();
    let mut dashed: Vec<(Point, Point)> = Vec::new();
    let mut ends: Vec<Point> = Vec::new();
    for &(a, b, pilot) in &tree.edges {
        let e = if a <= b { (a, b) } else { (b, a) };
        let (mine, theirs) = if pilot {
            (&mut dashed, &solid)
        } else {
            (&mut solid, &dashed)
        };
        if !mine.contains(&e) && !theirs.contains(&e) {
            mine.push(e);
            ends.push(a);
            ends.push(b);
        }
    }
    let mut junctions: Vec<Point> = Vec::new();
    for p in &ends {
        let degree = solid
            .iter()
            .chain(dashed.iter())
            .filter(|(a, b)| a == p || b == p)
            .count();
        if degree >= 3 && !junctions.contains(p) {
            junctions.push(*p);
        }
    }
    junctions.sort_unstable();
    (runs(&mut solid), runs(&mut dashed), junctions)
}

/// Merges unit edges into straight runs, as path data in px.
fn runs(edges: &mut [(Point, Point)]) -> String {
    let mut d = String::new();
    edges.sort_unstable_by_key(|(a, b)| {
        if a.1 == b.1 {
            (1, a.1, a.0)
        } else {
            (0, a.0, a.1)
        }
    });
    let mut k = 0;
    while k < edges.len() {
        let (start, mut end) = edges[k];
        let horizontal = start.1 == end.1;
        k += 1;
        while k < edges.len() && edges[k].0 == end && (edges[k].0.1 == edges[k].1.1) == horizontal {
            end = edges[k].1;
            k += 1;
        }
        d += &format!(
            "M{} {}L{} {}",
            start.0 * GRID,
            start.1 * GRID,
            end.0 * GRID,
            end.1 * GRID
        );
    }
    d
}
