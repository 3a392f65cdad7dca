// The syntect grammars (by name) the highlighter uses; build.rs packs only these and what
// they embed. Shared with build.rs by `include!`, so it holds nothing but this list.

/// Every grammar named in `highlight::grammar`'s table.
pub const SYNTECT_GRAMMARS: &[&str] = &[
    "Python",
    "TeX",
    "JavaScript",
    "Java",
    "C",
    "C++",
    "C#",
    "Rust",
    "Go",
    "Ruby",
    "Bourne Again Shell (bash)",
    "JSON",
    "YAML",
    "HTML",
    "XML",
    "CSS",
    "SQL",
    "Diff",
    "Makefile",
    "Haskell",
    "Perl",
    "Lua",
    "Scala",
    "Clojure",
    "Erlang",
    "OCaml",
    "Objective-C",
    "MATLAB",
];
