//! The signature and shape facts of one declaration (`parameters`, `return_type`, ...): a few
//! named strings, kept sorted by name in one vector. A declaration has two or three facts,
//! and a plan of a thousand files holds thousands of declarations for the API guard; a
//! `BTreeMap` would give each its own node of eleven slots (about 450 bytes), this holds
//! what is there.

use std::ops::Index;

/// Facts by name, in name order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts(Vec<(&'static str, String)>);

impl Facts {
    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(n, _)| (*n).cmp(name))
    }

    /// Sets `name` to `value`, returning the value it replaced.
    pub fn insert(&mut self, name: &'static str, value: String) -> Option<String> {
        match self.find(name) {
            Ok(at) => Some(std::mem::replace(&mut self.0[at].1, value)),
            Err(at) => {
                self.0.insert(at, (name, value));
                None
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&String> {
        self.find(name).ok().map(|at| &self.0[at].1)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut String> {
        self.find(name).ok().map(|at| &mut self.0[at].1)
    }

    pub fn remove(&mut self, name: &str) -> Option<String> {
        self.find(name).ok().map(|at| self.0.remove(at).1)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    /// The names, in order.
    pub fn keys(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().map(|(n, _)| *n)
    }

    /// Gives back the room a vector grown one fact at a time kept spare.
    pub fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }
}

impl Index<&str> for Facts {
    type Output = String;

    /// The value of `name`; panics when the declaration has no such fact (as a map would).
    fn index(&self, name: &str) -> &String {
        match self.get(name) {
            Some(value) => value,
            None => panic!("no fact named {name}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Facts;

    #[test]
    fn facts_stay_sorted_and_replace_by_name() {
        let mut facts = Facts::default();
        assert_eq!(facts.insert("type", "int".into()), None);
        assert_eq!(facts.insert("abstract", "yes".into()), None);
        assert_eq!(facts.insert("kind", "class".into()), None);
        assert_eq!(
            facts.insert("type", "string".into()),
            Some("int".to_owned())
        );
        assert_eq!(
            facts.keys().collect::<Vec<_>>(),
            ["abstract", "kind", "type"]
        );
        assert_eq!(facts["type"], "string");
        assert_eq!(facts.remove("kind"), Some("class".to_owned()));
        assert!(!facts.contains_key("kind"));
        facts.get_mut("abstract").expect("present").push('!');
        assert_eq!(facts.get("abstract").map(String::as_str), Some("yes!"));
    }
}
