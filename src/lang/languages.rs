//! The provider table: one entry per language, with the node kinds it calls named structures.

use crate::lang::{NameRule, Provider, Structure, names};

const fn field(kind: &'static str) -> Structure {
    Structure {
        kind,
        name: NameRule::Field("name"),
    }
}

pub static PROVIDERS: &[Provider] = &[
    Provider {
        name: "python",
        extensions: &["py", "pyi"],
        file_names: &[],
        language: || tree_sitter_python::LANGUAGE.into(),
        structures: &[field("function_definition"), field("class_definition")],
    },
    Provider {
        name: "rust",
        extensions: &["rs"],
        file_names: &[],
        language: || tree_sitter_rust::LANGUAGE.into(),
        structures: &[
            field("function_item"),
            field("struct_item"),
            field("enum_item"),
            field("trait_item"),
            Structure {
                kind: "impl_item",
                name: NameRule::Field("type"),
            },
            field("mod_item"),
        ],
    },
    Provider {
        name: "c",
        extensions: &["c", "h"],
        file_names: &[],
        language: || tree_sitter_c::LANGUAGE.into(),
        structures: &[Structure {
            kind: "function_definition",
            name: NameRule::Custom(names::declarator),
        }],
    },
];
