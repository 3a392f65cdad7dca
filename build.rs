//! Packs the highlighting grammars the renderer uses (src/markdown/grammars.rs), with the
//! grammars they embed, out of syntect's default set: the worker ships these instead of
//! all 75, which keeps the bundle small without changing any highlighted output.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;
use syntect::parsing::syntax_definition::SyntaxDefinition;
use syntect::parsing::{SyntaxSet, SyntaxSetBuilder};

include!("src/markdown/grammars.rs");

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/markdown/grammars.rs");
    // Definitions from a built set refer to each other by syntax index (serde shows the
    // otherwise private `ContextId`); a subset renumbers them.
    let definitions: Vec<Value> = SyntaxSet::load_defaults_newlines()
        .into_builder()
        .syntaxes()
        .iter()
        .map(|definition| serde_json::to_value(definition).expect("a syntax definition serializes"))
        .collect();
    let mut kept: BTreeSet<usize> = definitions
        .iter()
        .enumerate()
        .filter(|(_, d)| d["name"] == "Plain Text" || SYNTECT_GRAMMARS.iter().any(|name| d["name"] == *name))
        .map(|(index, _)| index)
        .collect();
    assert_eq!(kept.len(), SYNTECT_GRAMMARS.len() + 1, "every grammar of src/markdown/grammars.rs is in syntect's set");
    loop {
        let mut embedded = BTreeSet::new();
        kept.iter().for_each(|&index| syntax_indexes(&definitions[index], &mut embedded));
        if embedded.is_subset(&kept) {
            break;
        }
        kept.extend(embedded);
    }
    let renumbered: HashMap<u64, u64> = kept.iter().enumerate().map(|(new, &old)| (old as u64, new as u64)).collect();
    let mut builder = SyntaxSetBuilder::new();
    for &index in &kept {
        let mut definition = definitions[index].clone();
        renumber(&mut definition, &renumbered);
        builder.add(serde_json::from_value::<SyntaxDefinition>(definition).expect("a renumbered definition reads back"));
    }
    let out = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("syntaxes.packdump");
    syntect::dumps::dump_to_file(&builder.build(), out).expect("the packed grammars are written");
}

/// A context id is the only object with both `syntax_index` and `context_index`.
fn context_id(value: &serde_json::Map<String, Value>) -> Option<u64> {
    value.get("context_index")?;
    value.get("syntax_index")?.as_u64()
}

fn syntax_indexes(value: &Value, found: &mut BTreeSet<usize>) {
    match value {
        Value::Object(map) => {
            found.extend(context_id(map).map(|index| index as usize));
            map.values().for_each(|v| syntax_indexes(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| syntax_indexes(v, found)),
        _ => {}
    }
}

fn renumber(value: &mut Value, renumbered: &HashMap<u64, u64>) {
    match value {
        Value::Object(map) => {
            if let Some(old) = context_id(map) {
                map.insert("syntax_index".into(), renumbered[&old].into());
            }
            map.values_mut().for_each(|v| renumber(v, renumbered));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| renumber(v, renumbered)),
        _ => {}
    }
}
