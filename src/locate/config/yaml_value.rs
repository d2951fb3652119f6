//! JSON values written as YAML: plain scalars where they read back as the same string,
//! quoted otherwise (keeping the quote style of the value replaced), multi-line strings as
//! literal block scalars (`|`) in block context, flow collections inline, block collections one
//! entry per line.

use serde_json::Value;

/// How the replaced scalar was quoted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    Plain,
    Single,
    Double,
}

/// Words YAML (1.1 or 1.2) reads as something other than a string.
fn reserved(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", ".nan", ".inf", "-.inf",
        "+.inf",
    ];
    WORDS.contains(&s.to_ascii_lowercase().as_str())
}

fn looks_numeric(s: &str) -> bool {
    let t = s.trim_start_matches(['+', '-']);
    t.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '+' | '-'))
}

/// A string that reads back as itself without quotes (in flow collections, also without `:`).
pub fn plain_safe(s: &str, in_flow: bool) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let indicator = "-?:,[]{}#&*!|>'\"%@`";
    // `-x` is a plain scalar; `- x`, `--` and a lone `-` are not.
    let dash_ok = first == '-' && s.len() > 1 && !s.starts_with("- ") && !s.starts_with("--");
    let starts_badly = indicator.contains(first) && !dash_ok;
    !starts_badly
        && !reserved(s)
        && !looks_numeric(s)
        && s.trim() == s
        && !s.contains(": ")
        && !s.contains(" #")
        && !s.ends_with(':')
        && !s.contains([',', '[', ']', '{', '}'])
        && !s.chars().any(char::is_control)
        && !(in_flow && s.contains([':', '#']))
}

/// A string in the given style (double quotes when the style cannot hold it).
pub fn string(s: &str, quote: Quote, in_flow: bool) -> String {
    match quote {
        Quote::Plain if plain_safe(s, in_flow) => s.to_owned(),
        Quote::Single if !s.chars().any(char::is_control) => format!("'{}'", s.replace('\'', "''")),
        _ => serde_json::to_string(s).unwrap_or_default(),
    }
}

/// A key: plain when safe, double-quoted otherwise.
pub fn key(k: &str) -> String {
    string(k, Quote::Plain, true)
}

/// A non-empty collection (written as a block in block context).
pub fn is_block(v: &Value) -> bool {
    match v {
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        _ => false,
    }
}

/// A value on one line: scalars, and collections in flow style (`in_flow`: inside a flow
/// collection already).
pub fn flow(v: &Value, quote: Quote, in_flow: bool) -> String {
    match v {
        Value::String(s) => string(s, quote, in_flow),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(|i| flow(i, Quote::Plain, true)).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", key(k), flow(v, Quote::Plain, true)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Number(n) => super::number::yaml(n),
        other => other.to_string(),
    }
}

/// A non-empty collection as a block: the first line without indentation, the next lines
/// indented by `indent`; nested collections go `unit` deeper.
pub fn block(v: &Value, indent: &str, unit: &str) -> String {
    let lines: Vec<String> = match v {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                if is_block(v) {
                    let inner = format!("{indent}{unit}");
                    format!("{}:\n{inner}{}", key(k), block(v, &inner, unit))
                } else {
                    let inner = format!("{indent}{unit}");
                    format!("{}: {}", key(k), scalar(v, Quote::Plain, &inner))
                }
            })
            .collect(),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                if is_block(item) {
                    format!("- {}", block(item, &format!("{indent}  "), unit))
                } else {
                    format!("- {}", scalar(item, Quote::Plain, &format!("{indent}  ")))
                }
            })
            .collect(),
        other => vec![scalar(other, Quote::Plain, &format!("{indent}{unit}"))],
    };
    lines.join(&format!("\n{indent}"))
}

/// A value that is not a block collection, in block context: a multi-line string becomes a
/// literal block scalar whose lines are indented by `content_indent`; the rest is [`flow`].
pub fn scalar(v: &Value, quote: Quote, content_indent: &str) -> String {
    match v {
        Value::String(s) => literal(s, content_indent).unwrap_or_else(|| flow(v, quote, false)),
        _ => flow(v, quote, false),
    }
}

/// `|` (one final newline), `|-` (none) and the lines of `s`; `None` when a literal block
/// cannot hold it exactly (no line break, leading whitespace, other control characters,
/// several final newlines).
fn literal(s: &str, indent: &str) -> Option<String> {
    let body = s.strip_suffix('\n').unwrap_or(s);
    let representable = body.contains('\n')
        && !body.ends_with('\n')
        && !s.starts_with([' ', '\t', '\n'])
        && !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t');
    if !representable {
        return None;
    }
    let header = if body.len() < s.len() { "|" } else { "|-" };
    let lines: Vec<String> = body
        .split('\n')
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!("{indent}{line}")
            }
        })
        .collect();
    Some(format!("{header}\n{}", lines.join("\n")))
}
