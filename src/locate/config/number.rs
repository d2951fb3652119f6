//! Numbers as given: a JSON value's numbers are written with the digits of the payload
//! (`1.5e3`, `3.141592653589793238462643`), not as `serde_json` prints the parsed `f64`. The
//! texts of one payload are made known for the duration of one plan ([`given`]); a number the
//! payload spells two ways, or one the target cannot read as written, falls back to the parsed
//! value's text.

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::Number;

thread_local! {
    /// The parsed value's text → the payload's text, for the plan running on this thread.
    static GIVEN: RefCell<HashMap<String, Option<String>>> = RefCell::new(HashMap::new());
}

/// Runs `f` with the numbers of the JSON text `raw` known to [`yaml`] and [`toml`].
pub fn given<T>(raw: &str, f: impl FnOnce() -> T) -> T {
    let mut map: HashMap<String, Option<String>> = HashMap::new();
    for token in tokens(raw) {
        let Ok(n) = serde_json::from_str::<Number>(token) else {
            continue;
        };
        let entry = map.entry(n.to_string()).or_insert(Some(token.to_owned()));
        if entry.as_deref() != Some(token) {
            *entry = None;
        }
    }
    let previous = GIVEN.with(|g| std::mem::replace(&mut *g.borrow_mut(), map));
    let out = f();
    GIVEN.with(|g| *g.borrow_mut() = previous);
    out
}

/// The number tokens of a JSON text, outside strings, in order.
fn tokens(raw: &str) -> Vec<&str> {
    let bytes = raw.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                out.push(&raw[start..i]);
            }
            _ => i += 1,
        }
    }
    out
}

fn text_of(n: &Number) -> Option<String> {
    GIVEN.with(|g| g.borrow().get(&n.to_string()).cloned().flatten())
}

/// `n` for TOML: as given (TOML reads JSON's number syntax, and a value out of its range is
/// refused by the result check).
pub fn toml(n: &Number) -> String {
    text_of(n).unwrap_or_else(|| n.to_string())
}

/// `n` for YAML: as given, with an exponent written so YAML 1.1 readers also see a float
/// (`1.5e3` → `1.5e+3`, `1e3` → `1.0e+3`).
pub fn yaml(n: &Number) -> String {
    let Some(text) = text_of(n) else {
        return n.to_string();
    };
    let Some(at) = text.find(['e', 'E']) else {
        return text;
    };
    let (mantissa, e, exponent) = (&text[..at], &text[at..at + 1], &text[at + 1..]);
    let mantissa = if mantissa.contains('.') {
        mantissa.to_owned()
    } else {
        format!("{mantissa}.0")
    };
    let sign = if exponent.starts_with(['+', '-']) {
        ""
    } else {
        "+"
    };
    format!("{mantissa}{e}{sign}{exponent}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(text: &str) -> Number {
        serde_json::from_str(text).expect("number")
    }

    #[test]
    fn numbers_keep_the_payload_digits() {
        let raw = "[1.5e3, 3.141592653589793238462643, \"2e5\", -7, 1E-2]";
        given(raw, || {
            assert_eq!(toml(&number("1.5e3")), "1.5e3");
            assert_eq!(yaml(&number("1.5e3")), "1.5e+3");
            assert_eq!(yaml(&number("1E-2")), "1.0E-2");
            assert_eq!(
                toml(&number("3.141592653589793238462643")),
                "3.141592653589793238462643"
            );
            assert_eq!(yaml(&number("-7")), "-7");
            // Inside a string: not a number of the payload.
            assert_eq!(toml(&number("2e5")), "200000.0");
        });
        assert_eq!(
            toml(&number("1.5e3")),
            "1500.0",
            "known only inside `given`"
        );
        given("[1500.0, 1.5e3]", || {
            assert_eq!(toml(&number("1.5e3")), "1500.0")
        });
    }
}
