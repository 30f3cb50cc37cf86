//! The reader never panics: random text, and random mutations of a valid
//! description (characters deleted, inserted, replaced; lines swapped).

use proptest::prelude::*;

const VALID: &str = include_str!("../examples/pump_relief.toml");

/// Characters a mutation inserts: TOML syntax, unit text, digits.
const ALPHABET: &[char] = &[
    '[', ']', '"', '=', '.', ',', '\n', ' ', '#', '/', '(', ')', '-', '+', 'e', '0', '1', '9', 'a',
    'P', 'L', 'm', '_', '{', '}', '\'', 'é', '\t',
];

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, usize),
    Replace(usize, usize),
    SwapLines(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..20).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, c)| Edit::Insert(a, c)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, c)| Edit::Replace(a, c)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapLines(a, b)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let n = chars.len().max(1);
        match *e {
            Edit::Delete(a, k) => {
                let a = a % n;
                let end = (a + k).min(chars.len());
                if a < end {
                    chars.drain(a..end);
                }
            }
            Edit::Insert(a, c) => chars.insert(a % (chars.len() + 1), ALPHABET[c % ALPHABET.len()]),
            Edit::Replace(a, c) => {
                if !chars.is_empty() {
                    chars[a % n] = ALPHABET[c % ALPHABET.len()];
                }
            }
            Edit::SwapLines(a, b) => {
                let s: String = chars.iter().collect();
                let mut lines: Vec<&str> = s.lines().collect();
                if !lines.is_empty() {
                    let (a, b) = (a % lines.len(), b % lines.len());
                    lines.swap(a, b);
                }
                chars = lines.join("\n").chars().collect();
            }
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,300}") {
        let _ = circuit_file::read(&text, "r.toml");
    }

    #[test]
    fn mutated_descriptions_never_panic(edits in prop::collection::vec(edit(), 1..6)) {
        let text = apply(VALID, &edits);
        match circuit_file::read(&text, "m.toml") {
            Ok(c) => {
                // A circuit read is usable.
                let n = c.assembly.state_count();
                let u = c.input_starts();
                let mut x = vec![0.0; n];
                c.assembly.initial_state(&u, &mut x);
                let mut dx = vec![0.0; n];
                c.assembly.evaluate(&u, &x, &mut dx, None);
                let mut y = vec![0.0; c.outputs.len()];
                c.output_values(&u, &x, &mut y);
            }
            Err(d) => {
                prop_assert!(!d.is_empty());
                for e in &d {
                    prop_assert!(e.line >= 1 && e.column >= 1);
                    prop_assert!(!e.message.is_empty());
                }
            }
        }
    }
}

#[test]
fn the_example_is_valid() {
    circuit_file::read(VALID, "pump_relief.toml").unwrap();
}
