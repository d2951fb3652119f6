//! One symbol notation: every spelling a user, an agent or another tool's output uses for a
//! declaration is read into the canonical form `read` prints, so `read`, `patch --symbol`,
//! `edit --symbol` and plan `symbol` fields accept the same names.
//!
//! Canonical form, in every language: enclosing names and the member joined by `.`, no call
//! parentheses (`Greeter.greet`, `Greeter.$count`, `Greeter.PREFIX`, `Processor.process_data`).
//! Accepted as well: PHP's `::` and `->` separators (`Greeter::greet()`, `Greeter::$count`,
//! `Greeter::PREFIX`), a trailing `()`, a leading `\`, and a namespace
//! (`App\Service\Greeter::greet()`), which must then be the file's own.

/// A symbol as written, read into the canonical form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spelled {
    /// The namespace it names (`App\Service`), if any.
    pub namespace: Option<String>,
    /// `Greeter.greet`.
    pub canonical: String,
}

/// Reads any accepted spelling.
pub fn read(symbol: &str) -> Spelled {
    let s = symbol.trim().trim_start_matches('\\');
    let s = s.strip_suffix("()").unwrap_or(s).trim();
    let dotted = s.replace("::", ".").replace("->", ".");
    let (head, rest) = match dotted.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (dotted.as_str(), None),
    };
    let (namespace, head) = match head.rsplit_once('\\') {
        Some((ns, name)) => (Some(ns.to_owned()), name),
        None => (None, head),
    };
    let canonical = match rest {
        Some(rest) => format!("{head}.{rest}"),
        None => head.to_owned(),
    };
    Spelled {
        namespace,
        canonical,
    }
}

/// A symbol of the PHP declaration model (`App\Service\Greeter::greet()`) in canonical form,
/// with its namespace when `qualified`.
pub fn canonical_php(symbol: &str, qualified: bool) -> String {
    let spelled = read(symbol);
    match spelled.namespace.filter(|_| qualified) {
        Some(ns) => format!("{ns}\\{}", spelled.canonical),
        None => spelled.canonical,
    }
}

/// Whether `text` (a PHP file) declares `namespace` (`namespace App\Service;` or a braced one).
pub fn declares_namespace(text: &str, namespace: &str) -> bool {
    text.lines().any(|line| {
        line.trim_start()
            .strip_prefix("namespace ")
            .map(|rest| rest.trim_end_matches(|c: char| c == ';' || c == '{' || c.is_whitespace()))
            .is_some_and(|name| name.trim_start_matches('\\') == namespace)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_php_spelling_reads_into_one_form() {
        for s in [
            "Greeter.greet",
            "Greeter::greet",
            "Greeter::greet()",
            "Greeter->greet()",
            " \\Greeter::greet() ",
        ] {
            assert_eq!(read(s).canonical, "Greeter.greet", "{s}");
            assert_eq!(read(s).namespace, None, "{s}");
        }
        assert_eq!(read("Greeter::$count").canonical, "Greeter.$count");
        assert_eq!(read("Greeter::PREFIX").canonical, "Greeter.PREFIX");
        let q = read("App\\Svc\\Greeter::greet()");
        assert_eq!(q.canonical, "Greeter.greet");
        assert_eq!(q.namespace.as_deref(), Some("App\\Svc"));
        assert_eq!(read("helper()").canonical, "helper");
        assert_eq!(read("Outer.Inner.method").canonical, "Outer.Inner.method");
        assert_eq!(
            canonical_php("App\\Svc\\Greeter::greet()", true),
            "App\\Svc\\Greeter.greet"
        );
        assert_eq!(
            canonical_php("App\\Svc\\Greeter::greet()", false),
            "Greeter.greet"
        );
    }

    #[test]
    fn namespaces_are_read_from_the_file() {
        assert!(declares_namespace(
            "<?php\nnamespace App\\Svc;\n",
            "App\\Svc"
        ));
        assert!(declares_namespace(
            "<?php\nnamespace App\\Svc {\n}",
            "App\\Svc"
        ));
        assert!(!declares_namespace(
            "<?php\nnamespace App\\Other;\n",
            "App\\Svc"
        ));
    }
}
