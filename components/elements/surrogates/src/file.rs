//! The weights file: what ships in an FMU's `resources/` folder.
//!
//! A UTF-8 text file, one item per line, words separated by single spaces,
//! every line ending in `\n`. Numbers are written in Rust's shortest
//! round-trip form (`{:?}` of `f64`: `0.0001`, `-1.5e-7`, `3.0`), so a file
//! read back gives the same bits. `n` is the number of inputs, `m` of
//! outputs.
//!
//! ```text
//! fluidfmu-surrogate 1
//! kind mlp                        (or: kind lolimot)
//! slot valve-drive/pv             (free identifier of the place the model fits)
//! period 0.0001                   (sample period in s it was trained for; 0 = static map)
//! inputs 5 Qv Q3 B Vv pv_prev     (count, then the names)
//! outputs 1 pv
//! input_lo <n numbers>            (the physical range of each input ...)
//! input_hi <n numbers>
//! output_lo <m numbers>           (... and output, mapped to [-1, 1])
//! output_hi <m numbers>
//! layers 5 40 40 1                (mlp only: n, hidden widths..., m)
//! weights 1921                    (mlp only: the count, then the numbers,
//! <8 numbers per line>             8 per line, in the layout of `Mlp`)
//! ...
//! models 12                       (lolimot only, once per output in output order:
//! <c_1 (n) sigma_1 (n) w_1 (n+1)>  the count, then one line per local model:
//! ...                              center, sigma, offset and slopes)
//! note <free text, one line>      (how it was trained)
//! sha256 <64 lowercase hex digits: SHA-256 of every byte before this line>
//! ```
//!
//! Reading ([`Surrogate::parse`]) checks everything and never panics: the
//! error names the line and what is wrong. A file whose checksum does not
//! match is refused: it is corrupt or was edited.

use std::fmt::Write as _;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::surrogate::check_token;
use crate::{Lolimot, MAX_INPUTS, MAX_MODELS, MAX_OUTPUTS, Mlp, Model, Scaling, Surrogate};

/// First word of the first line of a weights file.
pub const MAGIC: &str = "fluidfmu-surrogate";
/// The format version this crate writes and reads.
pub const VERSION: u32 = 1;
/// Numbers per line in long lists (the MLP weights).
const PER_LINE: usize = 8;

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn push_numbers(out: &mut String, key: &str, values: &[f64]) {
    out.push_str(key);
    for v in values {
        let _ = write!(out, " {v:?}");
    }
    out.push('\n');
}

/// Shortens a line for an error message.
fn show(line: &str) -> String {
    const MAX: usize = 60;
    let mut s: String = line.chars().take(MAX).collect();
    if line.chars().count() > MAX {
        s.push_str("...");
    }
    s.escape_debug().to_string()
}

/// The lines of the body (everything before the checksum line).
struct Reader<'a> {
    lines: Vec<&'a str>,
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Line number (1-based) of the next line.
    fn lineno(&self) -> usize {
        self.pos + 1
    }

    fn next(&mut self, expect: &str) -> Result<&'a str, String> {
        match self.lines.get(self.pos) {
            Some(l) => {
                self.pos += 1;
                Ok(l)
            }
            None => Err(format!(
                "line {}: expected {expect}, but the file ends there (is it truncated?)",
                self.lineno()
            )),
        }
    }

    /// The next line, which must be `key` alone or `key` and a space; returns
    /// what follows the key.
    fn keyed(&mut self, key: &str, what: &str) -> Result<&'a str, String> {
        let n = self.lineno();
        let line = self.next(&format!("the '{key}' line ({what})"))?;
        if line == key {
            return Ok("");
        }
        match line.strip_prefix(key).and_then(|r| r.strip_prefix(' ')) {
            Some(rest) => Ok(rest),
            None => {
                let numbers = line
                    .split_whitespace()
                    .next()
                    .is_some_and(|t| t.parse::<f64>().is_ok());
                let hint = if numbers {
                    " (a line of numbers: does a count above match?)"
                } else {
                    ""
                };
                Err(format!(
                    "line {n}: expected the '{key}' line ({what}), found '{}'{hint}",
                    show(line)
                ))
            }
        }
    }
}

fn parse_number(tok: &str, lineno: usize, what: &str) -> Result<f64, String> {
    let v: f64 = tok
        .parse()
        .map_err(|_| format!("line {lineno}: '{}' in {what} is not a number", show(tok)))?;
    if !v.is_finite() {
        return Err(format!(
            "line {lineno}: a value in {what} is not finite ('{tok}')"
        ));
    }
    Ok(v)
}

fn parse_count(tok: Option<&str>, lineno: usize, what: &str) -> Result<usize, String> {
    let tok = tok.ok_or_else(|| format!("line {lineno}: {what} is missing"))?;
    tok.parse::<usize>().map_err(|_| {
        format!(
            "line {lineno}: {what} '{}' is not a whole number",
            show(tok)
        )
    })
}

/// Exactly `n` numbers after `key` on one line.
fn numbers_line(r: &mut Reader, key: &str, n: usize, what: &str) -> Result<Vec<f64>, String> {
    let lineno = r.lineno();
    let rest = r.keyed(key, what)?;
    let toks: Vec<&str> = rest.split_whitespace().collect();
    if toks.len() != n {
        return Err(format!(
            "line {lineno}: '{key}' must have {n} numbers ({what}), it has {}",
            toks.len()
        ));
    }
    toks.iter()
        .map(|t| parse_number(t, lineno, &format!("'{key}'")))
        .collect()
}

/// A count and that many names: `inputs 2 a b`.
fn names_line(r: &mut Reader, key: &str, max: usize) -> Result<Vec<String>, String> {
    let lineno = r.lineno();
    let rest = r.keyed(key, &format!("the number of {key} and their names"))?;
    let mut toks = rest.split_whitespace();
    let n = parse_count(toks.next(), lineno, &format!("the number of {key}"))?;
    if n == 0 || n > max {
        return Err(format!(
            "line {lineno}: the file declares {n} {key}, 1 to {max} are supported"
        ));
    }
    let names: Vec<String> = toks.map(str::to_string).collect();
    if names.len() != n {
        return Err(format!(
            "line {lineno}: '{key} {n}' is followed by {} names",
            names.len()
        ));
    }
    for (k, name) in names.iter().enumerate() {
        if names[..k].contains(name) {
            return Err(format!("line {lineno}: {key} name '{name}' appears twice"));
        }
    }
    Ok(names)
}

fn scaling(
    lo: Vec<f64>,
    hi: Vec<f64>,
    names: &[String],
    what: &str,
    lineno: usize,
) -> Result<Scaling, String> {
    for (j, (l, h)) in lo.iter().zip(&hi).enumerate() {
        if h < l {
            return Err(format!(
                "line {lineno}: {what} {j} ('{}') has hi < lo (lo {l:?}, hi {h:?})",
                names[j]
            ));
        }
    }
    Scaling::new(lo, hi).map_err(|e| format!("line {lineno}: {what} {e}"))
}

/// Where the checksum line is and what it says.
enum Checksum {
    /// No checksum line.
    Missing,
    /// A malformed checksum line (the message).
    Malformed(String),
    /// Present, with the computed and the stated digest.
    Present { actual: String, stated: String },
}

impl Surrogate {
    /// The weights file's text, ending with its checksum line. See the
    /// [`file`](mod@crate::file) module for the format.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{MAGIC} {VERSION}");
        let _ = writeln!(s, "kind {}", self.kind().as_str());
        let _ = writeln!(s, "slot {}", self.slot());
        let _ = writeln!(s, "period {:?}", self.period());
        for (key, names) in [
            ("inputs", self.input_names()),
            ("outputs", self.output_names()),
        ] {
            let _ = write!(s, "{key} {}", names.len());
            for n in names {
                let _ = write!(s, " {n}");
            }
            s.push('\n');
        }
        push_numbers(&mut s, "input_lo", self.input_scaling().lo());
        push_numbers(&mut s, "input_hi", self.input_scaling().hi());
        push_numbers(&mut s, "output_lo", self.output_scaling().lo());
        push_numbers(&mut s, "output_hi", self.output_scaling().hi());
        match self.model() {
            Model::Mlp(m) => {
                s.push_str("layers");
                for n in m.sizes() {
                    let _ = write!(s, " {n}");
                }
                s.push('\n');
                let _ = writeln!(s, "weights {}", m.params().len());
                for chunk in m.params().chunks(PER_LINE) {
                    let mut first = true;
                    for v in chunk {
                        if !first {
                            s.push(' ');
                        }
                        first = false;
                        let _ = write!(s, "{v:?}");
                    }
                    s.push('\n');
                }
            }
            Model::Lolimot(trees) => {
                for t in trees {
                    let _ = writeln!(s, "models {}", t.n_models());
                    for i in 0..t.n_models() {
                        let nums = t.center(i).iter().chain(t.sigma(i)).chain(t.weights(i));
                        let mut first = true;
                        for v in nums {
                            if !first {
                                s.push(' ');
                            }
                            first = false;
                            let _ = write!(s, "{v:?}");
                        }
                        s.push('\n');
                    }
                }
            }
        }
        if self.note().is_empty() {
            s.push_str("note\n");
        } else {
            let _ = writeln!(s, "note {}", self.note());
        }
        let digest = sha256_hex(s.as_bytes());
        let _ = writeln!(s, "sha256 {digest}");
        s
    }

    /// Reads a weights file's text. Checks the magic line and version, every
    /// count, number and size limit, and the checksum; the error says which
    /// line is wrong and how. Never panics.
    pub fn parse(text: &str) -> Result<Self, String> {
        // Lines with the byte offset of their start.
        let mut lines: Vec<(usize, &str)> = Vec::new();
        let mut start = 0;
        for piece in text.split_inclusive('\n') {
            let body = piece.strip_suffix('\n').unwrap_or(piece);
            let body = body.strip_suffix('\r').unwrap_or(body);
            lines.push((start, body));
            start += piece.len();
        }
        // The checksum line is the last line that is not blank.
        let last = lines.iter().rposition(|(_, l)| !l.trim().is_empty());
        let (body_end, checksum) = match last {
            Some(k) if lines[k].1.starts_with("sha256") => {
                let (offset, line) = lines[k];
                let stated = line.strip_prefix("sha256 ").unwrap_or("");
                let well_formed = stated.len() == 64
                    && stated
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
                let c = if well_formed {
                    Checksum::Present {
                        actual: sha256_hex(&text.as_bytes()[..offset]),
                        stated: stated.to_string(),
                    }
                } else {
                    Checksum::Malformed(format!(
                        "line {}: the checksum line must be 'sha256' and 64 lowercase hex \
                             digits, it is '{}' (is the file truncated?)",
                        k + 1,
                        show(line)
                    ))
                };
                (k, c)
            }
            Some(k) => {
                if let Some(s) = lines[..k]
                    .iter()
                    .rposition(|(_, l)| l.starts_with("sha256 "))
                {
                    return Err(format!(
                        "line {}: text after the checksum line (line {}): '{}'",
                        s + 2,
                        s + 1,
                        show(lines[s + 1].1)
                    ));
                }
                (k + 1, Checksum::Missing)
            }
            None => return Err("the weights file is empty".into()),
        };
        let mut reader = Reader {
            lines: lines[..body_end].iter().map(|(_, l)| *l).collect(),
            pos: 0,
        };
        let crlf_hint = if text.contains('\r') {
            " (it has CRLF line ends: was it converted by git or an editor?)"
        } else {
            ""
        };
        let parsed = parse_body(&mut reader);
        let mismatch = match &checksum {
            Checksum::Present { actual, stated } if actual != stated => Some(format!(
                "the file is corrupt or was edited: its SHA-256 is {actual}, the file says \
                 {stated}{crlf_hint}"
            )),
            _ => None,
        };
        let surrogate = match parsed {
            Ok(s) => s,
            Err(e) => {
                return Err(match mismatch {
                    Some(m) => format!("{e}; besides, {m}"),
                    None => e,
                });
            }
        };
        match checksum {
            Checksum::Missing => Err(format!(
                "the weights file has no checksum line (its last line must be 'sha256' and \
                 64 hex digits, after line {}): it is truncated or was not written by \
                 Surrogate::to_text",
                body_end
            )),
            Checksum::Malformed(msg) => Err(msg),
            Checksum::Present { .. } => match mismatch {
                Some(m) => Err(m),
                None => Ok(surrogate),
            },
        }
    }

    /// Parses a weights file's bytes (as read from an FMU's resources) and
    /// checks that it fits `slot` with these inputs and outputs
    /// ([`check_shape`](Self::check_shape)); errors start with the file's
    /// `name`.
    pub fn load(
        bytes: &[u8],
        name: &str,
        slot: &str,
        inputs: &[&str],
        outputs: &[&str],
    ) -> Result<Self, String> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            format!(
                "weights file {name}: not UTF-8 text (at byte {})",
                e.valid_up_to()
            )
        })?;
        let s = Self::parse(text).map_err(|e| format!("weights file {name}: {e}"))?;
        s.check_shape(slot, inputs, outputs)
            .map_err(|e| format!("weights file {name}: {e}"))?;
        Ok(s)
    }

    /// Reads and parses a weights file; errors name the path.
    pub fn read_file(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the weights file {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("weights file {}: {e}", path.display()))
    }

    /// Writes [`to_text`](Self::to_text) to a file.
    pub fn write_file(&self, path: &Path) -> Result<(), String> {
        std::fs::write(path, self.to_text())
            .map_err(|e| format!("cannot write the weights file {}: {e}", path.display()))
    }

    /// Checks that the model fits the place that wants it: the same slot,
    /// inputs and outputs (names, order and count). The error names the first
    /// difference, e.g. "the weights file is for slot 'orifice-chain/p2', this
    /// FMU needs 'valve-drive/pv'" or "input 3 is 'B', expected 'Vv'"
    /// (inputs and outputs counted from 0).
    pub fn check_shape(&self, slot: &str, inputs: &[&str], outputs: &[&str]) -> Result<(), String> {
        if self.slot() != slot {
            return Err(format!(
                "the weights file is for slot '{}', this FMU needs '{slot}'",
                self.slot()
            ));
        }
        for (what, have, want) in [
            ("input", self.input_names(), inputs),
            ("output", self.output_names(), outputs),
        ] {
            if have.len() != want.len() {
                return Err(format!(
                    "the weights file has {} {what}s ({}), this FMU needs {} ({})",
                    have.len(),
                    have.join(" "),
                    want.len(),
                    want.join(" ")
                ));
            }
            for (k, (h, w)) in have.iter().zip(want).enumerate() {
                if h != w {
                    return Err(format!("{what} {k} is '{h}', expected '{w}'"));
                }
            }
        }
        Ok(())
    }
}

fn parse_body(r: &mut Reader) -> Result<Surrogate, String> {
    let first = r.next("the first line 'fluidfmu-surrogate 1'")?;
    let mut toks = first.split_whitespace();
    if toks.next() != Some(MAGIC) {
        return Err(format!(
            "not a surrogate weights file: the first line is '{}', expected '{MAGIC} {VERSION}'",
            show(first)
        ));
    }
    let version = toks.next().unwrap_or("");
    if version != VERSION.to_string() || toks.next().is_some() {
        return Err(format!(
            "line 1: weights file version '{}' is not supported (this build reads version \
             {VERSION})",
            show(first.strip_prefix(MAGIC).unwrap_or("").trim())
        ));
    }

    let lineno = r.lineno();
    let kind = r.keyed("kind", "mlp or lolimot")?.trim();
    let is_mlp = match kind {
        "mlp" => true,
        "lolimot" => false,
        other => {
            return Err(format!(
                "line {lineno}: unknown model kind '{}' (expected mlp or lolimot)",
                show(other)
            ));
        }
    };

    let lineno = r.lineno();
    let slot = r.keyed("slot", "the place the model fits")?;
    check_token("the slot", slot).map_err(|e| format!("line {lineno}: {e}"))?;

    let lineno = r.lineno();
    let period_text = r.keyed("period", "the sample period in s")?;
    let period = parse_number(period_text.trim(), lineno, "the period")?;
    if period < 0.0 {
        return Err(format!(
            "line {lineno}: the period {period:?} s is negative"
        ));
    }

    let input_names = names_line(r, "inputs", MAX_INPUTS)?;
    let output_names = names_line(r, "outputs", MAX_OUTPUTS)?;
    let (n, m) = (input_names.len(), output_names.len());

    let input_lo = numbers_line(r, "input_lo", n, "the lower bound of each input")?;
    let lineno = r.lineno();
    let input_hi = numbers_line(r, "input_hi", n, "the upper bound of each input")?;
    let input_scaling = scaling(input_lo, input_hi, &input_names, "input", lineno)?;
    let output_lo = numbers_line(r, "output_lo", m, "the lower bound of each output")?;
    let lineno = r.lineno();
    let output_hi = numbers_line(r, "output_hi", m, "the upper bound of each output")?;
    let output_scaling = scaling(output_lo, output_hi, &output_names, "output", lineno)?;

    let model = if is_mlp {
        parse_mlp(r, n, m)?
    } else {
        parse_lolimot(r, n, &output_names)?
    };

    let lineno = r.lineno();
    let note = r.keyed("note", "one line of free text")?.to_string();
    if r.pos < r.lines.len() {
        return Err(format!(
            "line {}: unexpected line after the note (the next line must be the checksum): '{}'",
            r.lineno(),
            show(r.lines[r.pos])
        ));
    }

    let mut s = Surrogate::new(
        model,
        input_names,
        output_names,
        input_scaling,
        output_scaling,
    )?;
    s.set_slot(slot)?;
    s.set_period(period)?;
    s.set_note(&note);
    if s.note() != note {
        return Err(format!(
            "line {lineno}: the note has leading or trailing white space or control characters"
        ));
    }
    Ok(s)
}

fn parse_mlp(r: &mut Reader, n: usize, m: usize) -> Result<Model, String> {
    let lineno = r.lineno();
    let rest = r.keyed("layers", "n_in, the hidden layer widths, n_out")?;
    let sizes = rest
        .split_whitespace()
        .map(|t| parse_count(Some(t), lineno, "a layer size"))
        .collect::<Result<Vec<usize>, String>>()?;
    Mlp::check_sizes(&sizes).map_err(|e| format!("line {lineno}: {e}"))?;
    if sizes[0] != n {
        return Err(format!(
            "line {lineno}: the network has {} inputs, the file declares {n} inputs",
            sizes[0]
        ));
    }
    if sizes[sizes.len() - 1] != m {
        return Err(format!(
            "line {lineno}: the network has {} outputs, the file declares {m} outputs",
            sizes[sizes.len() - 1]
        ));
    }
    let expected = Mlp::param_count(&sizes);

    let lineno = r.lineno();
    let rest = r.keyed("weights", "the number of weights")?;
    let count = parse_count(Some(rest.trim()), lineno, "the number of weights")?;
    if count != expected {
        return Err(format!(
            "line {lineno}: the file says {count} weights, layers {} need {expected}",
            sizes
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    let mut params = Vec::with_capacity(count);
    while params.len() < count {
        let lineno = r.lineno();
        let line = r.next(&format!("more weights ({} of {count} read)", params.len()))?;
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.is_empty() {
            return Err(format!(
                "line {lineno}: empty line among the weights ({} of {count} read)",
                params.len()
            ));
        }
        if toks[0].parse::<f64>().is_err() {
            return Err(format!(
                "line {lineno}: expected more weights ({} of {count} read), found '{}'",
                params.len(),
                show(line)
            ));
        }
        if params.len() + toks.len() > count {
            return Err(format!(
                "line {lineno}: more weights than the {count} announced"
            ));
        }
        for t in toks {
            params.push(parse_number(t, lineno, "the weights")?);
        }
    }
    Ok(Model::Mlp(Mlp::new(sizes, params)?))
}

fn parse_lolimot(r: &mut Reader, n: usize, outputs: &[String]) -> Result<Model, String> {
    let mut trees = Vec::with_capacity(outputs.len());
    for (k, name) in outputs.iter().enumerate() {
        let lineno = r.lineno();
        let rest = r.keyed(
            "models",
            &format!("the number of local models of output {k} ('{name}')"),
        )?;
        let count = parse_count(Some(rest.trim()), lineno, "the number of local models")?;
        if count == 0 || count > MAX_MODELS {
            return Err(format!(
                "line {lineno}: output {k} ('{name}') has {count} local models, 1 to \
                 {MAX_MODELS} are supported"
            ));
        }
        let mut centers = Vec::with_capacity(count * n);
        let mut sigmas = Vec::with_capacity(count * n);
        let mut weights = Vec::with_capacity(count * (n + 1));
        for i in 0..count {
            let lineno = r.lineno();
            let line = r.next(&format!(
                "local model {i} of {count} of output {k} ('{name}')"
            ))?;
            let toks: Vec<&str> = line.split_whitespace().collect();
            if toks.len() != 3 * n + 1 {
                return Err(format!(
                    "line {lineno}: local model {i} of output {k} ('{name}') must have {} \
                     numbers (center {n}, sigma {n}, parameters {}), it has {} (does the \
                     'models {count}' count match?)",
                    3 * n + 1,
                    n + 1,
                    toks.len()
                ));
            }
            let what = format!("local model {i} of output {k}");
            for (q, t) in toks.iter().enumerate() {
                let v = parse_number(t, lineno, &what)?;
                if q < n {
                    centers.push(v);
                } else if q < 2 * n {
                    if v <= 0.0 {
                        return Err(format!(
                            "line {lineno}: sigma {} of {what} is {v:?}, it must be > 0",
                            q - n
                        ));
                    }
                    sigmas.push(v);
                } else {
                    weights.push(v);
                }
            }
        }
        trees.push(
            Lolimot::new(n, centers, sigmas, weights)
                .map_err(|e| format!("output {k} ('{name}'): {e}"))?,
        );
    }
    Ok(Model::Lolimot(trees))
}
