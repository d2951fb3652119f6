//! Config paths: `a.b`, `items[0].name`, `services["sidecar.port"]` (a JSON string for a
//! literal key). Parsing refuses empty segments, trailing dots and stray characters;
//! [`ConfigPath::render`] writes the canonical form, which parses back to the same path.

use std::fmt;

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// A parsed path: at least one segment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConfigPath(pub Vec<Segment>);

/// Characters a key may use without quotes.
fn bare_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '$' | '@' | '/' | ':' | '+' | '~')
}

impl ConfigPath {
    /// Parses the path syntax; the error says what is wrong and where.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut segments = Vec::new();
        let mut rest = text;
        let mut after_dot = false;
        while !rest.is_empty() {
            let at = text.len() - rest.len();
            if let Some(inner) = rest.strip_prefix('[') {
                if after_dot {
                    return Err(format!(
                        "`{text}`: `.` must be followed by a key (byte {at})"
                    ));
                }
                let (segment, used) =
                    bracket(inner).map_err(|m| format!("`{text}`: {m} (byte {at})"))?;
                segments.push(segment);
                rest = &inner[used..];
            } else {
                if !segments.is_empty() && !after_dot {
                    return Err(format!("`{text}`: expected `.` or `[` at byte {at}"));
                }
                let len = rest.find(|c: char| !bare_char(c)).unwrap_or(rest.len());
                if len == 0 {
                    let c = rest.chars().next().unwrap_or(' ');
                    return Err(format!(
                        "`{text}`: `{c}` at byte {at} cannot start a key; quote the key as [\"...\"]"
                    ));
                }
                segments.push(Segment::Key(rest[..len].to_owned()));
                rest = &rest[len..];
            }
            after_dot = false;
            if let Some(next) = rest.strip_prefix('.') {
                after_dot = true;
                rest = next;
            }
        }
        if after_dot {
            return Err(format!("`{text}`: the path ends with `.`"));
        }
        if segments.is_empty() {
            return Err("the config path is empty".into());
        }
        Ok(Self(segments))
    }

    /// The canonical text of the path.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Index(n) => out.push_str(&format!("[{n}]")),
                Segment::Key(k) if !k.is_empty() && k.chars().all(bare_char) => {
                    if i > 0 {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Segment::Key(k) => {
                    let quoted = serde_json::to_string(k).unwrap_or_default();
                    out.push_str(&format!("[{quoted}]"));
                }
            }
        }
        out
    }

    /// The path of the first `n` segments.
    pub fn prefix(&self, n: usize) -> ConfigPath {
        ConfigPath(self.0[..n].to_vec())
    }
}

impl fmt::Display for ConfigPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// After a `[`: an index `N]` or a JSON string `"…"]`. Returns the segment and the bytes used.
fn bracket(inner: &str) -> Result<(Segment, usize), String> {
    if inner.starts_with('"') {
        let end = closing_quote(inner).ok_or("unterminated quoted key")?;
        let key: String =
            serde_json::from_str(&inner[..=end]).map_err(|e| format!("bad quoted key: {e}"))?;
        if !inner[end + 1..].starts_with(']') {
            return Err("a quoted key must be followed by `]`".into());
        }
        return Ok((Segment::Key(key), end + 2));
    }
    let digits = inner
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(inner.len());
    if digits == 0 || !inner[digits..].starts_with(']') {
        return Err("`[` takes an index (`[0]`) or a quoted key (`[\"a.b\"]`)".into());
    }
    let index = inner[..digits]
        .parse()
        .map_err(|_| "the index is too large".to_owned())?;
    Ok((Segment::Index(index), digits + 1))
}

/// The byte of the quote closing the JSON string that starts `text`.
fn closing_quote(text: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i),
            _ => {}
        }
    }
    None
}
