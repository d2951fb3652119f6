//! The provider table: one entry per language, with the node kinds it calls named structures.
//!
//! The outline lists declarations an agent navigates by (functions, methods, types, modules,
//! class-level constants and fields, config keys, headings), not every node: locals,
//! parameters and anonymous functions have no name and so are not listed.

use crate::lang::{NameFn, NameRule, Provider, Structure, names};

/// A structure named by its `name` field.
const fn field(kind: &'static str) -> Structure {
    Structure::new(kind, NameRule::Field("name"))
}

/// A structure named by another field.
const fn by_field(kind: &'static str, field: &'static str) -> Structure {
    Structure::new(kind, NameRule::Field(field))
}

/// A structure named by a function of `names`.
const fn custom(kind: &'static str, name: NameFn) -> Structure {
    Structure::new(kind, NameRule::Custom(name))
}

/// A structure named by a function of `names` that returns the text of a node inside it.
const fn verbatim(kind: &'static str, name: NameFn) -> Structure {
    Structure::new(kind, NameRule::Verbatim(name))
}

/// JavaScript (functions held by variables are named by the variable).
const JS_STRUCTURES: [Structure; 7] = [
    field("function_declaration"),
    field("generator_function_declaration"),
    field("class_declaration"),
    field("method_definition"),
    by_field("field_definition", "property"),
    verbatim("variable_declarator", names::js_variable),
    field("class"),
];

/// TypeScript and TSX: JavaScript's structures (with `public_field_definition` for class
/// fields) plus types, interfaces, namespaces, signatures and interface members.
const TS_STRUCTURES: [Structure; 17] = [
    field("function_declaration"),
    field("generator_function_declaration"),
    field("class_declaration"),
    field("method_definition"),
    field("public_field_definition"),
    verbatim("variable_declarator", names::js_variable),
    field("class"),
    field("abstract_class_declaration"),
    field("interface_declaration"),
    field("type_alias_declaration"),
    field("enum_declaration"),
    field("internal_module"),
    verbatim("module", names::unquoted_name),
    field("function_signature"),
    verbatim("method_signature", names::ts_member),
    field("abstract_method_signature"),
    verbatim("property_signature", names::ts_member),
];

/// C: function definitions and prototypes, tagged types with a body, typedefs, macros.
const C_STRUCTURES: [Structure; 8] = [
    custom("function_definition", names::declarator),
    custom("declaration", names::prototype),
    custom("struct_specifier", names::tagged_type),
    custom("union_specifier", names::tagged_type),
    custom("enum_specifier", names::tagged_type),
    custom("type_definition", names::declarator),
    custom("preproc_def", names::macro_with_value),
    field("preproc_function_def"),
];

/// C++: C's structures plus classes, member declarations, namespaces, aliases, templates.
const CPP_STRUCTURES: [Structure; 13] = [
    custom("function_definition", names::declarator),
    custom("declaration", names::prototype),
    custom("struct_specifier", names::tagged_type),
    custom("union_specifier", names::tagged_type),
    custom("enum_specifier", names::tagged_type),
    custom("type_definition", names::declarator),
    custom("preproc_def", names::macro_with_value),
    field("preproc_function_def"),
    custom("class_specifier", names::tagged_type),
    custom("field_declaration", names::prototype),
    field("namespace_definition"),
    custom("alias_declaration", names::cpp_alias),
    custom("template_declaration", names::cpp_template),
];

pub static PROVIDERS: &[Provider] = &[
    Provider {
        name: "php",
        extensions: &["php", "phtml"],
        file_names: &[],
        language: || tree_sitter_php::LANGUAGE_PHP.into(),
        structures: &[
            verbatim("namespace_definition", names::php_namespace),
            field("function_definition"),
            field("class_declaration"),
            field("interface_declaration"),
            field("trait_declaration"),
            field("enum_declaration"),
            field("enum_case"),
            field("method_declaration"),
            verbatim("const_declaration", names::first_declarator),
            verbatim("property_declaration", names::first_declarator),
        ],
    },
    Provider {
        name: "python",
        extensions: &["py", "pyi"],
        file_names: &[],
        language: || tree_sitter_python::LANGUAGE.into(),
        structures: &[
            verbatim("function_definition", names::python_definition),
            verbatim("class_definition", names::python_definition),
            verbatim("decorated_definition", names::python_decorated),
            verbatim("assignment", names::python_assignment),
        ],
    },
    Provider {
        name: "javascript",
        extensions: &["js", "jsx", "mjs", "cjs"],
        file_names: &[],
        language: || tree_sitter_javascript::LANGUAGE.into(),
        structures: &JS_STRUCTURES,
    },
    Provider {
        name: "typescript",
        extensions: &["ts", "mts", "cts"],
        file_names: &[],
        language: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        structures: &TS_STRUCTURES,
    },
    Provider {
        name: "tsx",
        extensions: &["tsx"],
        file_names: &[],
        language: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        structures: &TS_STRUCTURES,
    },
    Provider {
        name: "rust",
        extensions: &["rs"],
        file_names: &[],
        language: || tree_sitter_rust::LANGUAGE.into(),
        structures: &[
            field("function_item"),
            field("function_signature_item"),
            field("struct_item"),
            field("enum_item"),
            field("union_item"),
            field("trait_item"),
            custom("impl_item", names::impl_type),
            field("mod_item"),
            field("type_item"),
            field("const_item"),
            field("static_item"),
            field("macro_definition"),
        ],
    },
    Provider {
        name: "go",
        extensions: &["go"],
        file_names: &[],
        language: || tree_sitter_go::LANGUAGE.into(),
        structures: &[
            field("function_declaration"),
            field("method_declaration"),
            verbatim("type_declaration", names::go_declaration),
            verbatim("type_spec", names::go_spec),
            verbatim("const_declaration", names::go_declaration),
            verbatim("const_spec", names::go_spec),
            verbatim("var_declaration", names::go_declaration),
            verbatim("var_spec", names::go_spec),
            field("method_elem"),
        ],
    },
    Provider {
        name: "java",
        extensions: &["java"],
        file_names: &[],
        language: || tree_sitter_java::LANGUAGE.into(),
        structures: &[
            field("class_declaration"),
            field("interface_declaration"),
            field("enum_declaration"),
            field("record_declaration"),
            field("annotation_type_declaration"),
            field("constructor_declaration"),
            field("compact_constructor_declaration"),
            field("method_declaration"),
            field("annotation_type_element_declaration"),
            verbatim("field_declaration", names::first_declarator),
            verbatim("constant_declaration", names::first_declarator),
        ],
    },
    Provider {
        name: "c",
        extensions: &["c", "h"],
        file_names: &[],
        language: || tree_sitter_c::LANGUAGE.into(),
        structures: &C_STRUCTURES,
    },
    Provider {
        name: "cpp",
        extensions: &["cc", "cpp", "cxx", "c++", "hpp", "hh", "hxx"],
        file_names: &[],
        language: || tree_sitter_cpp::LANGUAGE.into(),
        structures: &CPP_STRUCTURES,
    },
    Provider {
        name: "csharp",
        extensions: &["cs"],
        file_names: &[],
        language: || tree_sitter_c_sharp::LANGUAGE.into(),
        structures: &[
            field("namespace_declaration"),
            field("class_declaration"),
            field("struct_declaration"),
            field("interface_declaration"),
            field("record_declaration"),
            field("enum_declaration"),
            field("delegate_declaration"),
            field("constructor_declaration"),
            field("method_declaration"),
            field("property_declaration"),
            field("event_declaration"),
            field("local_function_statement"),
            verbatim("field_declaration", names::first_declarator),
            verbatim("event_field_declaration", names::first_declarator),
        ],
    },
    Provider {
        name: "ruby",
        extensions: &["rb", "rake", "gemspec"],
        file_names: &["Rakefile", "Gemfile"],
        language: || tree_sitter_ruby::LANGUAGE.into(),
        structures: &[
            field("module"),
            field("class"),
            field("method"),
            field("singleton_method"),
            verbatim("assignment", names::ruby_constant),
        ],
    },
    Provider {
        name: "bash",
        extensions: &["sh", "bash"],
        file_names: &[".bashrc", ".bash_profile", ".profile"],
        language: || tree_sitter_bash::LANGUAGE.into(),
        structures: &[field("function_definition")],
    },
    Provider {
        name: "json",
        // The grammar parses `//` and `/* */` comments, so JSON with comments works too.
        extensions: &["json", "jsonc"],
        file_names: &[],
        language: || tree_sitter_json::LANGUAGE.into(),
        structures: &[
            custom("pair", names::key),
            custom("object", names::json_element),
            custom("array", names::json_element),
        ],
    },
    Provider {
        name: "yaml",
        extensions: &["yml", "yaml"],
        file_names: &[],
        language: || tree_sitter_yaml::LANGUAGE.into(),
        structures: &[
            custom("block_mapping_pair", names::key),
            custom("flow_pair", names::key),
            custom("block_sequence_item", names::yaml_item),
        ],
    },
    Provider {
        name: "toml",
        extensions: &["toml"],
        file_names: &[],
        language: || tree_sitter_toml_ng::LANGUAGE.into(),
        structures: &[
            custom("table", names::toml_name),
            custom("table_array_element", names::toml_array_element),
            custom("pair", names::toml_name),
        ],
    },
    Provider {
        name: "html",
        extensions: &["html", "htm"],
        file_names: &[],
        language: || tree_sitter_html::LANGUAGE.into(),
        structures: &[
            custom("element", names::html_element),
            custom("script_element", names::html_raw_element),
            custom("style_element", names::html_raw_element),
        ],
    },
    Provider {
        name: "css",
        extensions: &["css"],
        file_names: &[],
        language: || tree_sitter_css::LANGUAGE.into(),
        structures: &[
            custom("rule_set", names::css_selectors),
            custom("media_statement", names::css_at_rule),
            custom("supports_statement", names::css_at_rule),
            custom("keyframes_statement", names::css_at_rule),
            custom("at_rule", names::css_at_rule),
        ],
    },
    Provider {
        name: "markdown",
        extensions: &["md", "markdown"],
        file_names: &[],
        language: || tree_sitter_md::LANGUAGE.into(),
        structures: &[
            custom("section", names::md_section),
            custom("setext_heading", names::md_setext),
        ],
    },
];
