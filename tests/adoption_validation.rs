//! Adoption files: the seed validates clean, its RON twin compiles to equal
//! rules, and a corpus of broken files each reports its mistake at the exact
//! path with the right kind.

use std::path::{Path, PathBuf};

use bevy_container::adoption::{self, Context, Format, Report, Severity, Tuning};
use bevy_container::rules::Rules;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(path: &Path, cx: Context<'_>) -> Report {
    let bytes = std::fs::read(path).unwrap();
    adoption::check(&bytes, Format::of_path(path), cx).0
}

#[test]
fn the_seed_validates_with_no_problems() {
    let path = root().join("assets/backpack.adoption.json");
    let prose = root().join("assets/design");
    let report = check(
        &path,
        Context {
            tuning: None,
            prose: Some(&prose),
        },
    );
    assert_eq!(report.problems, vec![], "{report}");
}

#[test]
fn the_seed_is_the_export_byte_for_byte() {
    let ours = std::fs::read(root().join("assets/backpack.adoption.json")).unwrap();
    let seed = std::fs::read(root().join("tests/conformance/backpack.adoption.json")).unwrap();
    assert_eq!(ours, seed);
}

#[test]
fn the_ron_twin_compiles_to_equal_rules() {
    let json = std::fs::read(root().join("assets/backpack.adoption.json")).unwrap();
    let ron = std::fs::read(root().join("assets/backpack.adoption.ron")).unwrap();
    let a = adoption::read(&json, Format::Json, Context::default()).unwrap();
    let b = adoption::read(&ron, Format::Ron, Context::default()).unwrap();
    let tuning = Tuning::default();
    assert_eq!(
        Rules::compile(&a, &tuning).unwrap(),
        Rules::compile(&b, &tuning).unwrap()
    );
}

#[test]
fn every_broken_file_reports_its_mistake() {
    let dir = root().join("tests/broken");
    let manifest: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert!(
        manifest.len() >= 25,
        "the corpus holds at least 25 mistakes"
    );
    let mut failures = Vec::new();
    for case in &manifest {
        let file = case["file"].as_str().unwrap();
        let tuning: Option<Tuning> = case
            .get("tuning")
            .map(|t| serde_json::from_value(t.clone()).unwrap());
        let prose = case.get("prose").map(|_| dir.join("prose"));
        let cx = Context {
            tuning: tuning.as_ref(),
            prose: prose.as_deref(),
        };
        let report = check(&dir.join(file), cx);
        let want_path = case["path"].as_str().unwrap();
        let want_kind = &case["kind"];
        let want_severity = &case["severity"];
        let found = report.problems.iter().find(|p| {
            p.path == want_path
                && serde_json::to_value(p.kind).unwrap() == *want_kind
                && serde_json::to_value(p.severity).unwrap() == *want_severity
        });
        match found {
            None => failures.push(format!(
                "{file}: want {want_severity} {want_kind} at {want_path:?}, got:\n{report}"
            )),
            Some(p) => {
                if p.message.len() < 20 {
                    failures.push(format!("{file}: message too terse: {}", p.message));
                }
                if let Some(line) = case.get("line") {
                    if p.position.map(|(l, _)| l as u64) != line.as_u64() {
                        failures.push(format!("{file}: want line {line}, got {:?}", p.position));
                    }
                } else if p.kind == adoption::ProblemKind::Syntax && p.position.is_none() {
                    failures.push(format!("{file}: syntax error without a position"));
                }
                if want_severity == "error" && !report.has_errors() {
                    failures.push(format!("{file}: no error"));
                }
                if want_severity == "warning" && report.has_errors() {
                    failures.push(format!(
                        "{file}: a warning-only mistake made errors:\n{report}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn several_mistakes_are_reported_in_one_run() {
    let report = check(
        &root().join("tests/broken/several-mistakes.json"),
        Context::default(),
    );
    let paths: Vec<&str> = report.errors().map(|p| p.path.as_str()).collect();
    for want in [
        "/answers/fill-order",
        "/values/slot-count",
        "/rows/items/0/stack-limit",
        "/rows/items/2/id",
        "/rows/items/1/when-forced-out",
    ] {
        assert!(paths.contains(&want), "{want} missing from {paths:?}");
    }
    assert!(
        report
            .problems
            .iter()
            .all(|p| p.severity == Severity::Error || p.severity == Severity::Warning)
    );
}

#[test]
fn a_tuning_reference_resolves_and_a_failing_rule_names_its_key() {
    let text = std::fs::read_to_string(root().join("assets/backpack.adoption.json")).unwrap();
    let text = text.replace(
        "\"slot-count\": 12",
        "\"slot-count\": {\"tuning\": \"backpack-slots\"}",
    );
    let a = adoption::read(text.as_bytes(), Format::Json, Context::default()).unwrap();
    let rules = Rules::compile(&a, &Tuning::default().with("backpack-slots", 8.0)).unwrap();
    assert_eq!(rules.slot_count, 8);
    assert_eq!(rules.tuned["slot-count"], "backpack-slots");
    let report = Rules::compile(&a, &Tuning::default().with("backpack-slots", -2.0)).unwrap_err();
    let rule = report
        .at("/rules/slot-count-not-negative")
        .expect("the rule fails");
    assert!(rule.message.contains("backpack-slots"), "{}", rule.message);
    let report = Rules::compile(&a, &Tuning::default()).unwrap_err();
    assert_eq!(report.problems[0].path, "/values/slot-count/tuning");
    assert_eq!(
        report.problems[0].kind,
        adoption::ProblemKind::UnknownTuningKey
    );
}
