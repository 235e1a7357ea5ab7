//! The v1 occurrence reader's rejection rules, registry grounding, and a
//! replay of the sample campaign checked line by line.

use std::path::Path;

use bevy_container::occurrences::{self, Holders, read_occurrences};
use serde_json::{Value, json};

fn good() -> Value {
    json!({"item_id": "item:rope", "name": "Rope (50 feet)", "kind": "acquired", "to": "party",
           "source_refs": [{"source_id": "session-1", "start_unit_id": 2, "end_unit_id": 3}]})
}

/// The problems' paths when `occurrences` is read.
fn paths(doc: Value) -> Vec<String> {
    match read_occurrences(doc.to_string().as_bytes()) {
        Ok(_) => Vec::new(),
        Err(p) => p.into_iter().map(|p| p.path).collect(),
    }
}

fn with(edit: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Value {
    let mut o = good();
    edit(o.as_object_mut().unwrap());
    json!({"occurrences": [o]})
}

#[test]
fn a_good_list_and_an_empty_list_read() {
    assert!(paths(json!({"occurrences": [good()]})).is_empty());
    assert!(paths(json!({"occurrences": []})).is_empty());
}

#[test]
fn each_rejection_rule_names_its_index_and_field() {
    let cases = rejection_cases();
    for (doc, want) in cases {
        let got = paths(doc.clone());
        assert!(
            got.iter().any(|p| p == want),
            "{doc}: want a problem at {want:?}, got {got:?}"
        );
    }
}

/// Every rejection case, in order: a document and the path a problem must name.
fn rejection_cases() -> Vec<(Value, &'static str)> {
    let mut cases = shape_and_field_cases();
    cases.extend(kind_quantity_and_party_cases());
    cases.extend(source_ref_and_index_cases());
    cases
}

/// Cases for the document's shape, unknown fields and missing required fields.
fn shape_and_field_cases() -> Vec<(Value, &'static str)> {
    vec![
        (json!([]), ""),
        (json!({}), "/occurrences"),
        (json!({"occurrences": {}}), "/occurrences"),
        (json!({"occurrences": [], "extra": 1}), "/extra"),
        (json!({"occurrences": [3]}), "/occurrences/0"),
        (
            with(|o| {
                o.insert("note".into(), json!("x"));
            }),
            "/occurrences/0/note",
        ),
        (
            with(|o| {
                o.remove("item_id");
            }),
            "/occurrences/0/item_id",
        ),
        (
            with(|o| {
                o.remove("name");
            }),
            "/occurrences/0/name",
        ),
        (
            with(|o| {
                o.remove("kind");
            }),
            "/occurrences/0/kind",
        ),
        (
            with(|o| {
                o.remove("source_refs");
            }),
            "/occurrences/0/source_refs",
        ),
    ]
}

/// Cases for a bad kind or quantity and for `from`/`to` parties that do not fit the kind.
fn kind_quantity_and_party_cases() -> Vec<(Value, &'static str)> {
    vec![
        (
            with(|o| {
                o.insert("kind".into(), json!("stolen"));
            }),
            "/occurrences/0/kind",
        ),
        (
            with(|o| {
                o.insert("quantity".into(), json!(0));
            }),
            "/occurrences/0/quantity",
        ),
        (
            with(|o| {
                o.insert("quantity".into(), json!(-2));
            }),
            "/occurrences/0/quantity",
        ),
        (
            with(|o| {
                o.insert("quantity".into(), json!(1.5));
            }),
            "/occurrences/0/quantity",
        ),
        (
            with(|o| {
                o.insert("kind".into(), json!("discovered"));
            }),
            "/occurrences/0/to",
        ),
        (
            with(|o| {
                o.remove("to");
            }),
            "/occurrences/0/to",
        ),
        (
            with(|o| {
                o.insert("from".into(), json!("bram"));
            }),
            "/occurrences/0/from",
        ),
        (
            with(|o| {
                o.insert("kind".into(), json!("lost"));
            }),
            "/occurrences/0/from",
        ),
        (
            with(|o| {
                o.insert("kind".into(), json!("consumed"));
                o.insert("from".into(), json!("party"));
            }),
            "/occurrences/0/to",
        ),
        (
            with(|o| {
                o.insert("kind".into(), json!("transferred"));
            }),
            "/occurrences/0/from",
        ),
        (
            with(|o| {
                o.insert("kind".into(), json!("transferred"));
                o.insert("from".into(), json!("bram"));
                o.insert("to".into(), json!("bram"));
            }),
            "/occurrences/0/to",
        ),
        (
            with(|o| {
                o.insert("kind".into(), json!("transferred"));
                o.insert("from".into(), json!("bram"));
            }),
            "/occurrences/0/to",
        ),
    ]
}

/// Cases for bad source references, and for an index past the first occurrence.
fn source_ref_and_index_cases() -> Vec<(Value, &'static str)> {
    vec![
        (
            with(|o| {
                o.insert("source_refs".into(), json!([]));
            }),
            "/occurrences/0/source_refs",
        ),
        (
            with(|o| {
                o["source_refs"][0]["page"] = json!(4);
            }),
            "/occurrences/0/source_refs/0/page",
        ),
        (
            with(|o| {
                o["source_refs"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("source_id");
            }),
            "/occurrences/0/source_refs/0/source_id",
        ),
        (
            with(|o| {
                o["source_refs"][0]["start_unit_id"] = json!(0);
            }),
            "/occurrences/0/source_refs/0/start_unit_id",
        ),
        (
            with(|o| {
                o["source_refs"][0]["start_unit_id"] = json!(9);
            }),
            "/occurrences/0/source_refs/0/end_unit_id",
        ),
        (json!({"occurrences": [good(), good()]}), "/occurrences/1"),
    ]
}

#[test]
fn the_registry_grounds_every_pair() {
    let registry = occurrences::read_registry(
        br#"{"items": [{"item_id": "item:rope", "name": "Rope (50 feet)", "weight": 10}]}"#,
    )
    .unwrap();
    let list = read_occurrences(json!({"occurrences": [good()]}).to_string().as_bytes()).unwrap();
    assert!(occurrences::ground(&list, &registry).is_empty());
    let renamed = with(|o| {
        o.insert("name".into(), json!("Rope"));
    });
    let list = read_occurrences(renamed.to_string().as_bytes()).unwrap();
    assert_eq!(
        occurrences::ground(&list, &registry)[0].path,
        "/occurrences/0/name"
    );
    let unknown = with(|o| {
        o.insert("item_id".into(), json!("item:chain"));
    });
    let list = read_occurrences(unknown.to_string().as_bytes()).unwrap();
    assert_eq!(
        occurrences::ground(&list, &registry)[0].path,
        "/occurrences/0/item_id"
    );
    assert!(occurrences::read_registry(br#"{"things": []}"#).is_err());
}

#[test]
fn the_sample_campaign_replays_line_by_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/dnd");
    let list = read_occurrences(&std::fs::read(dir.join("occurrences.json")).unwrap()).unwrap();
    let registry =
        occurrences::read_registry(&std::fs::read(dir.join("registry.json")).unwrap()).unwrap();
    assert!(occurrences::ground(&list, &registry).is_empty());
    let holders = Holders::read(&dir.join("holders.ron")).unwrap();
    let replay = occurrences::replay(&list, &holders).unwrap();
    let expected = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replay/sample-campaign.expected.txt"),
    )
    .unwrap();
    let got = replay.render();
    for (i, (g, w)) in got.lines().zip(expected.lines()).enumerate() {
        assert_eq!(g, w, "line {}", i + 1);
    }
    assert_eq!(got.lines().count(), expected.lines().count());
    assert_eq!(replay.broken().count(), 3);
    assert_eq!(replay.ground.get("longsword"), Some(&1));
    assert_eq!(
        replay.holders["party"].currency.get("silver-pieces"),
        Some(&15)
    );
}

#[test]
fn a_holder_without_an_adoption_rejects_the_replay() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/dnd");
    let mut holders = Holders::read(&dir.join("holders.ron")).unwrap();
    holders.holders.remove("bram");
    let list = read_occurrences(&std::fs::read(dir.join("occurrences.json")).unwrap()).unwrap();
    let problems = occurrences::replay(&list, &holders).unwrap_err();
    assert_eq!(problems[0].path, "/occurrences/7/to");
}
