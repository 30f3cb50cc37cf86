//! Unit tests: Jacobians against finite differences, the weights file and
//! its errors, training.

use crate::file::sha256_hex;
use crate::*;

fn random_mlp(rng: &mut Rng, sizes: &[usize], spread: f64) -> Mlp {
    let n = Mlp::param_count(sizes);
    let params = (0..n).map(|_| spread * rng.normal()).collect();
    Mlp::new(sizes.to_vec(), params).unwrap()
}

fn random_lolimot(rng: &mut Rng, n: usize, m: usize) -> Lolimot {
    let centers = (0..m * n).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let sigmas = (0..m * n).map(|_| rng.uniform(0.15, 0.8)).collect();
    let weights = (0..m * (n + 1)).map(|_| rng.normal()).collect();
    Lolimot::new(n, centers, sigmas, weights).unwrap()
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|j| format!("{prefix}{j}")).collect()
}

/// A surrogate with physical scalings far from [-1, 1] (pressures,
/// flows) and one constant input column.
fn mlp_surrogate(rng: &mut Rng) -> Surrogate {
    let mlp = random_mlp(rng, &[4, 12, 9, 2], 0.8);
    let si = Scaling::new(vec![0.0, 1e5, -2e-3, 7.0], vec![5e-4, 2.1e7, 3e-3, 7.0]).unwrap();
    let so = Scaling::new(vec![1e5, -0.2], vec![3e7, 0.4]).unwrap();
    let mut s = Surrogate::new(
        Model::Mlp(mlp),
        vec!["Qv".into(), "p3".into(), "x".into(), "c".into()],
        vec!["pv".into(), "v".into()],
        si,
        so,
    )
    .unwrap();
    s.set_slot("valve-drive/pv").unwrap();
    s.set_period(1e-4).unwrap();
    s.set_note("test network, seed 7");
    s
}

fn lolimot_surrogate(rng: &mut Rng) -> Surrogate {
    let trees = vec![random_lolimot(rng, 3, 7), random_lolimot(rng, 3, 2)];
    let si = Scaling::new(vec![-1e-3, 2e5, 0.0], vec![1e-3, 2.5e7, 0.02]).unwrap();
    let so = Scaling::new(vec![0.0, -5.0], vec![2e7, 5.0]).unwrap();
    let mut s = Surrogate::new(
        Model::Lolimot(trees),
        names("u", 3),
        vec!["p2".into(), "F".into()],
        si,
        so,
    )
    .unwrap();
    s.set_slot("orifice-chain/p2").unwrap();
    s
}

/// Central differences of `f` (n inputs, m outputs) at `x`, step relative
/// to `h[j]`; row-major m x n.
fn fd_jacobian(f: &dyn Fn(&[f64], &mut [f64]), x: &[f64], m: usize, h: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut jac = vec![0.0; m * n];
    let mut xp = x.to_vec();
    let mut yp = vec![0.0; m];
    let mut ym = vec![0.0; m];
    for j in 0..n {
        xp[j] = x[j] + h[j];
        f(&xp, &mut yp);
        xp[j] = x[j] - h[j];
        f(&xp, &mut ym);
        xp[j] = x[j];
        for k in 0..m {
            jac[k * n + j] = (yp[k] - ym[k]) / (2.0 * h[j]);
        }
    }
    jac
}

fn assert_close(a: &[f64], b: &[f64], rel: f64, abs: f64, what: &str) {
    assert_eq!(a.len(), b.len());
    for (q, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= abs + rel * x.abs().max(y.abs()),
            "{what}: entry {q}: analytic {x:e} vs finite differences {y:e}\n{a:?}\n{b:?}"
        );
    }
}

// ---------------------------------------------------------------- scaling

#[test]
fn scaling_maps_the_range_to_minus_one_one_and_back() {
    let s = Scaling::new(vec![1e5, 2.0, -3.0], vec![2e7, 2.0, 5.0]).unwrap();
    assert_eq!(s.forward(0, 1e5), -1.0);
    assert_eq!(s.forward(0, 2e7), 1.0);
    assert_eq!(s.forward(2, 1.0), 0.0);
    assert_eq!(s.forward(1, 123.0), 0.0, "constant column maps to 0");
    assert_eq!(s.factor(1), 0.0);
    assert_eq!(s.inverse(1, 0.7), 2.0);
    assert_eq!(s.factor(2), 0.25);
    assert_eq!(s.inverse_factor(2), 4.0);
    for x in [1e5, 3.3e6, 2e7, 2.5e7] {
        let back = s.inverse(0, s.forward(0, x));
        assert!((back - x).abs() <= 1e-9 * x.abs(), "{x} -> {back}");
    }
    assert!(
        Scaling::new(vec![1.0], vec![0.0])
            .unwrap_err()
            .contains("hi < lo")
    );
    assert!(
        Scaling::new(vec![f64::NAN], vec![0.0])
            .unwrap_err()
            .contains("not finite")
    );
    assert!(Scaling::new(vec![0.0, 1.0], vec![1.0]).is_err());
}

// -------------------------------------------------------------- Jacobians

#[test]
fn mlp_jacobian_matches_finite_differences() {
    let mut rng = Rng::new(11);
    for sizes in [
        &[3, 7, 2][..],
        &[5, 40, 40, 1],
        &[4, 9, 6, 5, 3],
        &[1, 64, 8],
    ] {
        let mlp = random_mlp(&mut rng, sizes, 0.7);
        let (n, m) = (mlp.n_inputs(), mlp.n_outputs());
        for _ in 0..10 {
            let x: Vec<f64> = (0..n).map(|_| rng.uniform(-1.2, 1.2)).collect();
            let mut y = vec![0.0; m];
            let mut y2 = vec![0.0; m];
            let mut jac = vec![0.0; m * n];
            mlp.eval_with_jacobian(&x, &mut y, &mut jac);
            mlp.eval(&x, &mut y2);
            assert_eq!(y, y2, "eval and eval_with_jacobian agree");
            let fd = fd_jacobian(&|x, y| mlp.eval(x, y), &x, m, &vec![1e-5; n]);
            assert_close(&jac, &fd, 1e-6, 1e-8, &format!("MLP {sizes:?}"));
        }
    }
}

#[test]
fn mlp_eval_matches_a_hand_computed_network() {
    // 2 inputs, 2 hidden neurons, 1 output; layout: W1 [2x2], b1, W2 [1x2], b2.
    let params = vec![1.0, -2.0, 0.5, 0.25, 0.1, -0.3, 2.0, -1.0, 0.7];
    let mlp = Mlp::new(vec![2, 2, 1], params).unwrap();
    let x = [0.3, -0.8];
    let sig = |a: f64| 1.0 / (1.0 + (-a).exp());
    let h0 = sig(1.0 * 0.3 - 2.0 * -0.8 + 0.1);
    let h1 = sig(0.5 * 0.3 + 0.25 * -0.8 - 0.3);
    let expected = 2.0 * h0 - h1 + 0.7;
    let mut y = [0.0];
    mlp.eval(&x, &mut y);
    assert!((y[0] - expected).abs() < 1e-15, "{} vs {expected}", y[0]);
}

#[test]
fn lolimot_eval_matches_the_formula_and_its_jacobian_finite_differences() {
    let mut rng = Rng::new(5);
    for (n, m) in [(1, 1), (2, 5), (3, 12), (5, 30)] {
        let t = random_lolimot(&mut rng, n, m);
        for _ in 0..10 {
            let u: Vec<f64> = (0..n).map(|_| rng.uniform(-1.3, 1.3)).collect();
            // The formula, computed naively.
            let (mut num, mut den) = (0.0, 0.0);
            for i in 0..m {
                let mut q = 0.0;
                let mut yi = t.weights(i)[0];
                for j in 0..n {
                    q += ((u[j] - t.center(i)[j]) / t.sigma(i)[j]).powi(2);
                    yi += t.weights(i)[j + 1] * u[j];
                }
                let mu = (-0.5 * q).exp();
                num += mu * yi;
                den += mu;
            }
            let y = t.eval(&u);
            assert!(
                (y - num / den).abs() < 1e-12 * (1.0 + y.abs()),
                "{y} vs {}",
                num / den
            );
            let mut grad = vec![0.0; n];
            let y2 = t.eval_with_jacobian(&u, &mut grad);
            assert_eq!(y, y2);
            let fd = fd_jacobian(&|x, y| y[0] = t.eval(x), &u, 1, &vec![1e-6; n]);
            assert_close(&grad, &fd, 1e-6, 1e-7, &format!("LOLIMOT n {n} m {m}"));
        }
    }
}

#[test]
fn lolimot_stays_finite_far_from_every_center() {
    let mut rng = Rng::new(9);
    let t = random_lolimot(&mut rng, 3, 8);
    for u in [[40.0, -30.0, 55.0], [1e3, 1e3, -1e3], [-1e150, 0.0, 1e150]] {
        let mut g = [0.0; 3];
        let y = t.eval_with_jacobian(&u, &mut g);
        assert!(
            y.is_finite() && g.iter().all(|v| v.is_finite()),
            "{u:?}: {y} {g:?}"
        );
        assert_eq!(y, t.eval(&u));
    }
    // At 40 sigma from every center the naive formula is 0/0; the guarded
    // one is the dominant model's linear output (checked by finite
    // differences).
    let u = [40.0, -30.0, 55.0];
    let mut g = [0.0; 3];
    t.eval_with_jacobian(&u, &mut g);
    let fd = fd_jacobian(&|x, y| y[0] = t.eval(x), &u, 1, &[1e-6; 3]);
    assert_close(&g, &fd, 1e-5, 1e-6, "far away");
}

#[test]
fn surrogate_jacobian_in_physical_units_matches_finite_differences() {
    let mut rng = Rng::new(21);
    for s in [mlp_surrogate(&mut rng), lolimot_surrogate(&mut rng)] {
        let (n, m) = (s.n_inputs(), s.n_outputs());
        let sc = s.input_scaling().clone();
        for _ in 0..10 {
            let x: Vec<f64> = (0..n)
                .map(|j| sc.inverse(j, rng.uniform(-1.1, 1.1)))
                .collect();
            let mut y = vec![0.0; m];
            let mut y2 = vec![0.0; m];
            let mut jac = vec![0.0; m * n];
            s.eval_with_jacobian(&x, &mut y, &mut jac);
            s.eval(&x, &mut y2);
            assert_eq!(y, y2);
            // Steps of 1e-6 of each input's range (1e-6 absolute for a
            // constant column, whose derivative must be 0).
            let range = |j: usize| {
                let r = sc.hi()[j] - sc.lo()[j];
                if r > 0.0 { r } else { 1.0 }
            };
            let h: Vec<f64> = (0..n).map(|j| 1e-6 * range(j)).collect();
            let fd = fd_jacobian(&|x, y| s.eval(x, y), &x, m, &h);
            // Scale-aware comparison: d y_k / d x_j against y_k's range over
            // x_j's range.
            for k in 0..m {
                for j in 0..n {
                    let ry = s.output_scaling().hi()[k] - s.output_scaling().lo()[k];
                    let rx = range(j);
                    let (a, b) = (jac[k * n + j], fd[k * n + j]);
                    assert!(
                        (a - b).abs() * rx / ry < 1e-6,
                        "{:?} d{}/d{}: {a:e} vs {b:e}",
                        s.kind(),
                        s.output_names()[k],
                        s.input_names()[j]
                    );
                }
            }
            if s.kind() == Kind::Mlp {
                for k in 0..m {
                    assert_eq!(jac[k * n + 3], 0.0, "constant input has no effect");
                }
            }
        }
    }
}

// --------------------------------------------------------------- the file

/// Recomputes the checksum line of an edited file.
fn resign(text: &str) -> String {
    let body_end = text.rfind("sha256 ").unwrap();
    let body = &text[..body_end];
    format!("{body}sha256 {}\n", sha256_hex(body.as_bytes()))
}

/// Replaces the first line starting with `key` by `new` (and re-signs).
fn edit_line(text: &str, key: &str, new: &str) -> String {
    let mut done = false;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            if !done && l.starts_with(key) {
                done = true;
                new.to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(done, "no line starts with {key}");
    resign(&(lines.join("\n") + "\n"))
}

fn parse_err(text: &str) -> String {
    match Surrogate::parse(text) {
        Ok(_) => panic!("parsed:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn file_round_trip_is_bit_exact() {
    let mut rng = Rng::new(3);
    for s in [mlp_surrogate(&mut rng), lolimot_surrogate(&mut rng)] {
        let text = s.to_text();
        let back = Surrogate::parse(&text).unwrap();
        assert_eq!(back, s, "every field, every bit");
        assert_eq!(back.to_text(), text);
        let n = s.n_inputs();
        let m = s.n_outputs();
        for _ in 0..20 {
            let x: Vec<f64> = (0..n)
                .map(|j| s.input_scaling().inverse(j, rng.uniform(-1.0, 1.0)))
                .collect();
            let (mut y1, mut y2) = (vec![0.0; m], vec![0.0; m]);
            let (mut j1, mut j2) = (vec![0.0; m * n], vec![0.0; m * n]);
            s.eval_with_jacobian(&x, &mut y1, &mut j1);
            back.eval_with_jacobian(&x, &mut y2, &mut j2);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&y1), bits(&y2));
            assert_eq!(bits(&j1), bits(&j2));
        }
    }
}

#[test]
fn file_layout_is_as_documented() {
    let mut rng = Rng::new(3);
    let text = mlp_surrogate(&mut rng).to_text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "fluidfmu-surrogate 1");
    assert_eq!(lines[1], "kind mlp");
    assert_eq!(lines[2], "slot valve-drive/pv");
    assert_eq!(lines[3], "period 0.0001");
    assert_eq!(lines[4], "inputs 4 Qv p3 x c");
    assert_eq!(lines[5], "outputs 2 pv v");
    assert_eq!(lines[6], "input_lo 0.0 100000.0 -0.002 7.0");
    assert_eq!(lines[7], "input_hi 0.0005 21000000.0 0.003 7.0");
    assert_eq!(lines[10], "layers 4 12 9 2");
    assert_eq!(
        lines[11],
        format!("weights {}", 4 * 12 + 12 + 12 * 9 + 9 + 9 * 2 + 2)
    );
    assert_eq!(lines[12].split(' ').count(), 8);
    let note = lines[lines.len() - 2];
    assert_eq!(note, "note test network, seed 7");
    let sha = lines[lines.len() - 1];
    let body_len = text.len() - sha.len() - 1;
    assert_eq!(
        sha,
        format!("sha256 {}", sha256_hex(&text.as_bytes()[..body_len]))
    );

    let text = lolimot_surrogate(&mut rng).to_text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[1], "kind lolimot");
    assert_eq!(lines[3], "period 0.0");
    assert_eq!(lines[10], "models 7");
    assert_eq!(lines[11].split(' ').count(), 3 * 3 + 1);
    assert_eq!(lines[18], "models 2");
    assert_eq!(lines[21], "note");
}

#[test]
fn a_flipped_digit_is_reported_as_a_corrupt_file() {
    let mut rng = Rng::new(3);
    for s in [mlp_surrogate(&mut rng), lolimot_surrogate(&mut rng)] {
        let text = s.to_text();
        // Flip a digit in the middle of the numbers.
        let mid = text.len() / 2;
        let pos = mid
            + text[mid..]
                .find(|c: char| c.is_ascii_digit() && c != '9')
                .unwrap();
        let mut bytes = text.clone().into_bytes();
        bytes[pos] += 1;
        let edited = String::from_utf8(bytes).unwrap();
        let e = parse_err(&edited);
        assert!(
            e.starts_with("the file is corrupt or was edited: its SHA-256 is "),
            "{e}"
        );
        let actual = sha256_hex(&edited.as_bytes()[..edited.rfind("sha256").unwrap()]);
        let stated = &text[text.rfind("sha256 ").unwrap() + 7..text.len() - 1];
        assert_eq!(
            e,
            format!(
                "the file is corrupt or was edited: its SHA-256 is {actual}, the file says {stated}"
            )
        );
    }
    // A converted line end gets a hint.
    let text = mlp_surrogate(&mut rng).to_text().replace('\n', "\r\n");
    assert!(parse_err(&text).contains("CRLF"));
}

#[test]
fn truncated_files_are_refused() {
    let mut rng = Rng::new(3);
    for s in [mlp_surrogate(&mut rng), lolimot_surrogate(&mut rng)] {
        let text = s.to_text();
        // Every cut, at and between line ends.
        for cut in (0..text.len() - 1).step_by(7) {
            let e = parse_err(&text[..cut]);
            assert!(!e.is_empty());
        }
        // Without the checksum line.
        let no_sha = &text[..text.rfind("sha256").unwrap()];
        assert!(
            parse_err(no_sha).contains("no checksum line"),
            "{}",
            parse_err(no_sha)
        );
        // Cut inside the checksum line.
        let e = parse_err(&text[..text.len() - 10]);
        assert!(e.contains("64 lowercase hex digits"), "{e}");
        // Cut in the middle of the numbers: the line where it ends.
        let half = &text[..text[..text.len() / 2].rfind('\n').unwrap() + 1];
        let e = parse_err(half);
        assert!(e.contains("the file ends there (is it truncated?)"), "{e}");
    }
    assert!(parse_err("").contains("empty"));
}

#[test]
fn wrong_headers_give_specific_errors() {
    let mut rng = Rng::new(3);
    let text = mlp_surrogate(&mut rng).to_text();
    let e = parse_err(&edit_line(&text, "fluidfmu", "fmu-weights 1"));
    assert!(e.contains("not a surrogate weights file"), "{e}");
    let e = parse_err(&edit_line(&text, "fluidfmu", "fluidfmu-surrogate 2"));
    assert!(e.contains("version '2' is not supported"), "{e}");
    let e = parse_err(&edit_line(&text, "kind", "kind gauss"));
    assert!(e.contains("unknown model kind 'gauss'"), "{e}");
    let e = parse_err(&edit_line(&text, "period", "perio 0.1"));
    assert!(e.contains("line 4: expected the 'period' line"), "{e}");
    let e = parse_err(&edit_line(&text, "period", "period -1.0"));
    assert!(e.contains("negative"), "{e}");
    let e = parse_err(&edit_line(&text, "inputs", "inputs 5 Qv p3 x c"));
    assert!(e.contains("'inputs 5' is followed by 4 names"), "{e}");
    let e = parse_err(&edit_line(&text, "inputs", "inputs 4 Qv p3 x x"));
    assert!(e.contains("appears twice"), "{e}");
    let e = parse_err(&edit_line(
        &text,
        "input_hi",
        "input_hi 0.0005 21000000.0 -0.003 7.0",
    ));
    assert!(e.contains("input 2 ('x') has hi < lo"), "{e}");
    let e = parse_err(&edit_line(
        &text,
        "input_lo",
        "input_lo 0.0 100000.0 -0.002",
    ));
    assert!(e.contains("'input_lo' must have 4 numbers"), "{e}");
    let e = parse_err(&edit_line(
        &text,
        "input_lo",
        "input_lo 0.0 1e5x -0.002 7.0",
    ));
    assert!(e.contains("'1e5x' in 'input_lo' is not a number"), "{e}");
    let e = parse_err(&edit_line(&text, "output_lo", "output_lo NaN -0.2"));
    assert!(e.contains("not finite"), "{e}");
    let e = parse_err(&edit_line(&text, "output_hi", "output_hi inf 0.4"));
    assert!(e.contains("not finite"), "{e}");
    // A missing line: the note.
    let no_note: String = text
        .lines()
        .filter(|l| !l.starts_with("note"))
        .map(|l| format!("{l}\n"))
        .collect();
    let e = parse_err(&resign(&no_note));
    assert!(e.contains("expected the 'note' line"), "{e}");
    // A missing line: the slot.
    let no_slot: String = text
        .lines()
        .filter(|l| !l.starts_with("slot"))
        .map(|l| format!("{l}\n"))
        .collect();
    let e = parse_err(&resign(&no_slot));
    assert!(e.contains("line 3: expected the 'slot' line"), "{e}");
    // Text after the checksum line.
    let e = parse_err(&format!("{text}extra\n"));
    assert!(e.contains("text after the checksum line"), "{e}");
}

#[test]
fn wrong_mlp_sizes_and_counts_give_specific_errors() {
    let mut rng = Rng::new(3);
    let text = mlp_surrogate(&mut rng).to_text();
    let e = parse_err(&edit_line(&text, "weights", "weights 300"));
    assert!(
        e.contains("line 12: the file says 300 weights, layers 4 12 9 2 need 197"),
        "{e}"
    );
    let e = parse_err(&edit_line(&text, "layers", "layers 4 65 9 2"));
    assert!(
        e.contains("hidden layer 1 of the MLP has 65 neurons, 1 to 64"),
        "{e}"
    );
    let e = parse_err(&edit_line(&text, "layers", "layers 4 5 5 5 5 2"));
    assert!(e.contains("4 hidden layers, at most 3"), "{e}");
    let e = parse_err(&edit_line(&text, "layers", "layers 3 12 9 2"));
    assert!(
        e.contains("the network has 3 inputs, the file declares 4"),
        "{e}"
    );
    let e = parse_err(&edit_line(
        &text,
        "inputs",
        "inputs 17 a b c d e f g h i j k l m n o p q",
    ));
    assert!(e.contains("17 inputs, 1 to 16"), "{e}");
    let e = parse_err(&edit_line(&text, "outputs", "outputs 9 a b c d e f g h i"));
    assert!(e.contains("9 outputs, 1 to 8"), "{e}");
    // One weight too many on a line, one too few overall.
    let lines: Vec<&str> = text.lines().collect();
    let w0 = lines.iter().position(|l| l.starts_with("weights")).unwrap() + 1;
    let mut more = lines.clone();
    let longer = format!("{} 1.0", lines[w0 + 24]);
    more[w0 + 24] = &longer;
    let e = parse_err(&resign(&(more.join("\n") + "\n")));
    assert!(
        e.contains(&format!(
            "line {}: more weights than the 197 announced",
            w0 + 25
        )),
        "{e}"
    );
    let mut fewer = lines.clone();
    fewer.remove(w0 + 3);
    let e = parse_err(&resign(&(fewer.join("\n") + "\n")));
    assert!(
        e.contains("expected more weights (189 of 197 read), found 'note"),
        "{e}"
    );
    let mut nan = lines.clone();
    let with_nan = lines[w0 + 2].replacen(' ', " NaN ", 1);
    nan[w0 + 2] = &with_nan;
    let e = parse_err(&resign(&(nan.join("\n") + "\n")));
    assert!(
        e.contains(&format!(
            "line {}: a value in the weights is not finite ('NaN')",
            w0 + 3
        )),
        "{e}"
    );
}

#[test]
fn wrong_lolimot_blocks_give_specific_errors() {
    let mut rng = Rng::new(3);
    let text = lolimot_surrogate(&mut rng).to_text();
    let lines: Vec<&str> = text.lines().collect();
    // The first output claims 8 models but has 7 lines.
    let e = parse_err(&edit_line(&text, "models 7", "models 8"));
    assert!(
        e.contains("local model 7 of output 0 ('p2') must have 10 numbers"),
        "{e}"
    );
    let e = parse_err(&edit_line(&text, "models 7", "models 65"));
    assert!(e.contains("65 local models, 1 to 64"), "{e}");
    let e = parse_err(&edit_line(&text, "models 2", "models 1"));
    assert!(e.contains("line 21: expected the 'note' line"), "{e}");
    assert!(e.contains("does a count above match?"), "{e}");
    let e = parse_err(&edit_line(&text, "models 2", "models 3"));
    assert!(
        e.contains("line 22: local model 2 of output 1 ('F') must have 10 numbers"),
        "{e}"
    );
    // The second block missing.
    let cut: String = lines[..18]
        .iter()
        .chain(&lines[21..22])
        .map(|l| format!("{l}\n"))
        .collect();
    let e = parse_err(&resign(&(cut + "sha256 0\n")));
    assert!(
        e.contains(
            "line 19: expected the 'models' line (the number of local models of output 1 ('F'))"
        ),
        "{e}"
    );
    // A negative and a zero sigma.
    for bad in ["-0.3", "0.0"] {
        let mut toks: Vec<String> = lines[12].split(' ').map(str::to_string).collect();
        toks[4] = bad.into();
        let e = parse_err(&edit_line(&text, lines[12], &toks.join(" ")));
        assert!(
            e.contains(&format!(
                "line 13: sigma 1 of local model 1 of output 0 is {bad}, it must be > 0"
            )),
            "{e}"
        );
    }
}

#[test]
fn check_shape_names_the_difference() {
    let mut rng = Rng::new(3);
    let s = mlp_surrogate(&mut rng);
    assert_eq!(
        s.check_shape("valve-drive/pv", &["Qv", "p3", "x", "c"], &["pv", "v"]),
        Ok(())
    );
    assert_eq!(
        s.check_shape("orifice-chain/p2", &["Qv", "p3", "x", "c"], &["pv", "v"])
            .unwrap_err(),
        "the weights file is for slot 'valve-drive/pv', this FMU needs 'orifice-chain/p2'"
    );
    assert_eq!(
        s.check_shape("valve-drive/pv", &["Qv", "p3", "B", "c"], &["pv", "v"])
            .unwrap_err(),
        "input 2 is 'x', expected 'B'"
    );
    assert_eq!(
        s.check_shape("valve-drive/pv", &["Qv", "p3", "x"], &["pv", "v"])
            .unwrap_err(),
        "the weights file has 4 inputs (Qv p3 x c), this FMU needs 3 (Qv p3 x)"
    );
    assert_eq!(
        s.check_shape("valve-drive/pv", &["Qv", "p3", "x", "c"], &["pv", "w"])
            .unwrap_err(),
        "output 1 is 'v', expected 'w'"
    );
}

#[test]
fn builders_refuse_bad_models() {
    assert!(
        Mlp::new(vec![2, 3, 1], vec![0.0; 12])
            .unwrap_err()
            .contains("13 parameters, 12")
    );
    assert!(
        Mlp::new(vec![2, 1], vec![0.0; 3])
            .unwrap_err()
            .contains("at least one hidden layer")
    );
    let e = Lolimot::new(2, vec![0.0; 4], vec![1.0, 1.0, 1.0, -1.0], vec![0.0; 6]).unwrap_err();
    assert!(e.contains("sigma 1 of local model 1"), "{e}");
    let mut rng = Rng::new(1);
    let mlp = random_mlp(&mut rng, &[2, 3, 1], 1.0);
    let sc2 = Scaling::new(vec![0.0; 2], vec![1.0; 2]).unwrap();
    let sc1 = Scaling::new(vec![0.0], vec![1.0]).unwrap();
    let e = Surrogate::new(
        Model::Mlp(mlp.clone()),
        vec!["a".into(), "b c".into()],
        vec!["y".into()],
        sc2.clone(),
        sc1.clone(),
    )
    .unwrap_err();
    assert!(e.contains("white space"), "{e}");
    let e = Surrogate::new(
        Model::Mlp(mlp),
        names("u", 2),
        names("y", 1),
        sc1.clone(),
        sc1,
    )
    .unwrap_err();
    assert!(e.contains("input scaling has 1 columns"), "{e}");
}

// ---------------------------------------------------------------- the RNG

#[test]
fn rng_is_reproducible_and_uniform_enough() {
    let a: Vec<u64> = {
        let mut r = Rng::new(42);
        (0..5).map(|_| r.next_u64()).collect()
    };
    let b: Vec<u64> = {
        let mut r = Rng::new(42);
        (0..5).map(|_| r.next_u64()).collect()
    };
    assert_eq!(a, b);
    assert_ne!(a, {
        let mut r = Rng::new(43);
        (0..5).map(|_| r.next_u64()).collect::<Vec<_>>()
    });
    let mut r = Rng::new(7);
    let mut counts = [0usize; 10];
    let mut sum = 0.0;
    let mut sum2 = 0.0;
    for _ in 0..100_000 {
        counts[r.below(10) as usize] += 1;
        let x = r.next_f64();
        assert!((0.0..1.0).contains(&x));
        let z = r.normal();
        sum += z;
        sum2 += z * z;
    }
    assert!(
        counts.iter().all(|&c| (9_500..10_500).contains(&c)),
        "{counts:?}"
    );
    assert!((sum / 1e5).abs() < 0.02 && (sum2 / 1e5 - 1.0).abs() < 0.02);
    let mut v: Vec<usize> = (0..100).collect();
    r.shuffle(&mut v);
    assert_ne!(v, (0..100).collect::<Vec<_>>());
    v.sort_unstable();
    assert_eq!(v, (0..100).collect::<Vec<_>>());
}

// ------------------------------------------------------------ data split

#[test]
fn block_split_puts_every_sample_in_exactly_one_set_in_whole_blocks() {
    for (n, block, seed) in [(10_000, 250, 1), (10_001, 97, 2), (30, 10, 3), (1000, 1, 4)] {
        let s = split_blocks(n, block, 0.7, 0.15, seed).unwrap();
        let mut owner = vec![usize::MAX; n];
        for (set, rows) in [&s.train, &s.validation, &s.test].iter().enumerate() {
            assert!(!rows.is_empty());
            assert!(rows.windows(2).all(|w| w[0] < w[1]), "ascending");
            for &r in rows.iter() {
                assert_eq!(owner[r], usize::MAX, "sample {r} in two sets");
                owner[r] = set;
            }
        }
        assert!(
            owner.iter().all(|&o| o != usize::MAX),
            "every sample in a set"
        );
        // Whole blocks: every sample of a block is in the same set.
        for b in 0..n.div_ceil(block) {
            let first = owner[b * block];
            assert!(
                owner[b * block..((b + 1) * block).min(n)]
                    .iter()
                    .all(|&o| o == first)
            );
        }
        let frac = s.train.len() as f64 / n as f64;
        if n / block >= 40 {
            assert!((frac - 0.7).abs() < 0.03, "train share {frac}");
        }
    }
    let a = split_blocks(5000, 100, 0.7, 0.15, 9).unwrap();
    assert_eq!(a, split_blocks(5000, 100, 0.7, 0.15, 9).unwrap());
    assert_ne!(a, split_blocks(5000, 100, 0.7, 0.15, 10).unwrap());
    assert!(
        split_blocks(20, 10, 0.7, 0.15, 1)
            .unwrap_err()
            .contains("at least 3")
    );
    assert!(split_blocks(100, 10, 0.9, 0.15, 1).is_err());
}

// --------------------------------------------------------------- training

/// Samples of a smooth nonlinear map of 3 inputs with physical scales:
/// a flow (m^3/s), a pressure (Pa) and an opening (-); output in Pa.
fn smooth_dataset(n: usize, seed: u64) -> Dataset {
    let mut rng = Rng::new(seed);
    let mut d = Dataset::new(3, 1)
        .unwrap()
        .with_names(&["Q", "p", "x"], &["p_out"])
        .unwrap()
        .with_period(1e-3)
        .unwrap();
    for _ in 0..n {
        let a = rng.uniform(-1.0, 1.0);
        let b = rng.uniform(-1.0, 1.0);
        let c = rng.uniform(0.0, 1.0);
        let y = 1e6 * ((2.0 * a).sin() * (1.0 + 0.5 * b) + 0.8 * a * c + 0.3 * b * b);
        d.push(&[1e-3 * a, 1e5 + 1e7 * (b + 1.0), c], &[y]);
    }
    d
}

#[test]
fn mlp_learns_a_smooth_nonlinear_map_reproducibly() {
    let data = smooth_dataset(6000, 1);
    let config = MlpConfig {
        hidden: vec![16, 16],
        block: 100,
        max_epochs: 400,
        patience: 40,
        ..MlpConfig::default()
    };
    let t0 = std::time::Instant::now();
    let (s, report) = train_mlp(&data, &config).unwrap();
    eprintln!(
        "mlp 3-16-16-1 on {} samples: {} epochs, best {}, test RMSE normalized {:.3e}, {:.1} s",
        data.len(),
        report.train_mse.len(),
        report.best_epoch,
        report.test_rmse_normalized[0],
        t0.elapsed().as_secs_f64()
    );
    // Normalized test RMSE below 0.6 % of the output's half-range (this
    // run reaches about 0.31 %; a linear fit about 20 %).
    assert!(report.test_rmse_normalized[0] < 0.006, "{report:?}");
    let half_range = 0.5 * (s.output_scaling().hi()[0] - s.output_scaling().lo()[0]);
    assert!(report.test_rmse[0] < 0.006 * half_range, "{report:?}");
    assert_eq!(report.train_mse.len(), report.validation_mse.len());
    assert!(report.best_epoch >= 1 && report.best_epoch <= report.train_mse.len());
    assert_eq!(
        report.n_train + report.n_validation + report.n_test,
        data.len()
    );
    assert_eq!(s.input_names(), ["Q", "p", "x"]);
    assert_eq!(s.period(), 1e-3);
    assert!(s.note().contains("mlp 3-16-16-1"), "{}", s.note());

    // Same seed: the same bits; another seed: other weights.
    let short = MlpConfig {
        max_epochs: 5,
        ..config.clone()
    };
    let (a, ra) = train_mlp(&data, &short).unwrap();
    let (b, rb) = train_mlp(&data, &short).unwrap();
    let (c, _) = train_mlp(
        &data,
        &MlpConfig {
            seed: 2,
            ..short.clone()
        },
    )
    .unwrap();
    let params = |s: &Surrogate| match s.model() {
        Model::Mlp(m) => m.params().iter().map(|p| p.to_bits()).collect::<Vec<_>>(),
        _ => unreachable!(),
    };
    assert_eq!(params(&a), params(&b));
    assert_eq!(a.to_text(), b.to_text(), "the whole file, note included");
    assert_eq!(ra.train_mse, rb.train_mse);
    assert_ne!(params(&a), params(&c));
}

#[test]
fn mlp_training_stops_early_and_reports_progress() {
    let data = smooth_dataset(2000, 2);
    let mut calls = 0;
    let config = MlpConfig {
        hidden: vec![8],
        block: 50,
        max_epochs: 50,
        ..MlpConfig::default()
    };
    let (_, report) = train_mlp_with_progress(&data, &config, &mut |st| {
        calls += 1;
        assert_eq!(st.epoch, calls);
        st.epoch < 7
    })
    .unwrap();
    assert_eq!(calls, 7);
    assert_eq!(report.train_mse.len(), 7);
    assert_eq!(report.stop_reason, "stopped by the caller");
    // With patience 1 the run ends at the first epoch without a better
    // validation MSE, keeping the weights of the epoch before.
    let config = MlpConfig {
        patience: 1,
        max_epochs: 1000,
        ..config
    };
    let (_, report) = train_mlp(&data, &config).unwrap();
    let last = report.train_mse.len();
    assert!(last < 1000);
    assert_eq!(report.best_epoch, last - 1, "{report:?}");
    assert!(report.validation_mse[last - 1] >= report.best_validation_mse);
}

/// A piecewise-linear map of 2 inputs with kinks along x1 = 0.3 and
/// x2 = -0.2 (physical ranges not [-1, 1]).
fn piecewise_dataset(n: usize, seed: u64) -> Dataset {
    let mut rng = Rng::new(seed);
    let mut d = Dataset::new(2, 2).unwrap();
    for _ in 0..n {
        let a = rng.uniform(-1.0, 1.0);
        let b = rng.uniform(-1.0, 1.0);
        let y1 = 2.0 * (a - 0.3).abs() + 0.5 * b + (b + 0.2).max(0.0);
        let y2 = (3.0 * a).sin() * b;
        d.push(&[10.0 * a + 50.0, 1e6 * b], &[1e5 * y1, y2]);
    }
    d
}

#[test]
fn lolimot_fits_and_improves_with_more_models() {
    let data = piecewise_dataset(8000, 4);
    let config = LolimotConfig {
        max_models: 12,
        block: 100,
        ..LolimotConfig::default()
    };
    let t0 = std::time::Instant::now();
    let (s, report) = train_lolimot(&data, &config).unwrap();
    eprintln!(
        "lolimot 12 models x 2 outputs on {} samples: {:.2} s; {:?}",
        data.len(),
        t0.elapsed().as_secs_f64(),
        report
            .outputs
            .iter()
            .map(|o| (&o.train_rmse, o.test_rmse_normalized))
            .collect::<Vec<_>>()
    );
    for o in &report.outputs {
        assert_eq!(o.train_rmse.len(), 12);
        assert_eq!(o.splits.len(), 11);
        // The error falls as models are added (each step at most a hair
        // worse, since the least squares are local), and by a lot overall.
        for w in o.train_rmse.windows(2) {
            assert!(w[1] <= w[0] * 1.02, "{:?}", o.train_rmse);
        }
        assert!(
            o.train_rmse[11] < 0.25 * o.train_rmse[0],
            "{:?}",
            o.train_rmse
        );
        assert!(
            o.validation_rmse[11] < 0.3 * o.validation_rmse[0],
            "{:?}",
            o.validation_rmse
        );
    }
    // The piecewise-linear output: a few percent of its half-range.
    assert!(report.outputs[0].test_rmse_normalized < 0.03, "{report:?}");
    assert!(report.outputs[1].test_rmse_normalized < 0.06, "{report:?}");
    // The first splits of the piecewise-linear output cut x1 near its kink.
    assert_eq!(report.outputs[0].splits[0].1, 0);
    // Round trip of the trained model, and its Jacobian.
    let back = Surrogate::parse(&s.to_text()).unwrap();
    assert_eq!(back, s);
    assert!(!report.subsampled);

    // Deterministic; subsampling is reported and still deterministic.
    let sub = LolimotConfig {
        max_models: 6,
        max_search_samples: 1000,
        ..config.clone()
    };
    let (a, ra) = train_lolimot(&data, &sub).unwrap();
    let (b, _) = train_lolimot(&data, &sub).unwrap();
    assert_eq!(a.to_text(), b.to_text());
    assert!(ra.subsampled && ra.search_samples == 1000);
    assert!(
        a.note().contains("split search on 1000 training samples"),
        "{}",
        a.note()
    );

    // A target error stops early.
    let target = LolimotConfig {
        target_rmse: 0.1,
        ..config
    };
    let (_, rt) = train_lolimot(&data, &target).unwrap();
    let o = &rt.outputs[0];
    assert!(
        o.train_rmse.len() < 12 && *o.train_rmse.last().unwrap() < 0.1,
        "{o:?}"
    );
    assert!(o.train_rmse[o.train_rmse.len() - 2] >= 0.1);
}

#[test]
fn lolimot_with_one_model_is_the_least_squares_plane() {
    // An exactly linear map is fitted exactly by the root model.
    let mut rng = Rng::new(8);
    let mut d = Dataset::new(3, 1).unwrap();
    for _ in 0..600 {
        let x = [
            rng.uniform(0.0, 2.0),
            rng.uniform(-5.0, 5.0),
            rng.uniform(1e5, 2e5),
        ];
        d.push(&x, &[3.0 + 2.0 * x[0] - 0.5 * x[1] + 1e-5 * x[2]]);
    }
    let config = LolimotConfig {
        max_models: 1,
        block: 20,
        ..LolimotConfig::default()
    };
    let (s, r) = train_lolimot(&d, &config).unwrap();
    // Exact but for the ridge term (relative 1e-8).
    assert!(r.outputs[0].test_rmse_normalized < 1e-7, "{r:?}");
    let mut y = [0.0];
    let mut jac = [0.0; 3];
    s.eval_with_jacobian(&[1.0, 1.0, 1.5e5], &mut y, &mut jac);
    assert!((y[0] - 6.0).abs() < 1e-6, "{}", y[0]);
    assert_close(&jac, &[2.0, -0.5, 1e-5], 1e-7, 0.0, "plane slopes");
}

#[test]
fn training_refuses_bad_data_and_settings() {
    let mut d = smooth_dataset(500, 3);
    d.push(&[0.0, f64::NAN, 0.0], &[0.0]);
    assert!(
        train_mlp(&d, &MlpConfig::default())
            .unwrap_err()
            .contains("sample 500 input 1 ('p') is not finite")
    );
    let d = smooth_dataset(500, 3);
    let e = train_mlp(
        &d,
        &MlpConfig {
            hidden: vec![100],
            ..MlpConfig::default()
        },
    )
    .unwrap_err();
    assert!(e.contains("100 neurons"), "{e}");
    let e = train_mlp(
        &d,
        &MlpConfig {
            block: 400,
            ..MlpConfig::default()
        },
    )
    .unwrap_err();
    assert!(e.contains("at least 3"), "{e}");
    let e = train_lolimot(
        &d,
        &LolimotConfig {
            max_models: 65,
            ..LolimotConfig::default()
        },
    )
    .unwrap_err();
    assert!(e.contains("1 to 64"), "{e}");
}

#[test]
fn load_checks_the_shape_and_names_the_file() {
    let mut rng = Rng::new(3);
    let s = mlp_surrogate(&mut rng);
    let text = s.to_text();
    let (inputs, outputs) = (["Qv", "p3", "x", "c"], ["pv", "v"]);
    let ok = Surrogate::load(
        text.as_bytes(),
        "pv.txt",
        "valve-drive/pv",
        &inputs,
        &outputs,
    );
    assert_eq!(ok.unwrap(), s);
    let e = Surrogate::load(
        text.as_bytes(),
        "pv.txt",
        "orifice-chain/p2",
        &inputs,
        &outputs,
    )
    .unwrap_err();
    assert_eq!(
        e,
        "weights file pv.txt: the weights file is for slot 'valve-drive/pv', this FMU needs \
         'orifice-chain/p2'"
    );
    let e = Surrogate::load(
        &text.as_bytes()[..100],
        "pv.txt",
        "valve-drive/pv",
        &inputs,
        &outputs,
    )
    .unwrap_err();
    assert!(e.starts_with("weights file pv.txt: line "), "{e}");
    let mut bad = text.clone().into_bytes();
    bad[30] = 0xff;
    let e = Surrogate::load(&bad, "pv.txt", "valve-drive/pv", &inputs, &outputs).unwrap_err();
    assert_eq!(e, "weights file pv.txt: not UTF-8 text (at byte 30)");

    // Through a file on disk.
    let path = std::env::temp_dir().join(format!("surrogates-test-{}.txt", std::process::id()));
    s.write_file(&path).unwrap();
    let back = Surrogate::read_file(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(back, s);
    let e = Surrogate::read_file(&path).unwrap_err();
    assert!(e.starts_with("cannot read the weights file"), "{e}");
}
