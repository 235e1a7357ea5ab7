//! The public conformance cases (copied from `../shared/conformance`, with
//! its `moves/`, `frames/` and `world/` folders), run through the engine and
//! through the plugin, and compared field by field as `check.py` does.

use std::path::Path;

use bevy_container::scenario::Scenario;
use serde_json::Value;

const FIXED: [&str; 11] = [
    "type-restriction",
    "no-size",
    "slot-rules",
    "no-reserved-slot",
    "does-not-fit",
    "ambiguous-draw",
    "too-few-can-leave",
    "wrong-type",
    "empty-slot",
    "occupied",
    "no-slots",
];

fn same_number(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

fn same_refusal(want: &Value, got: &Value) -> bool {
    if want.is_null() || got.is_null() {
        return want.is_null() && got.is_null();
    }
    if let Some(a) = want.get("amount")
        && Some(a) != got.get("amount")
    {
        return false;
    }
    match want.get("reason").and_then(Value::as_str) {
        Some(r) if FIXED.contains(&r) => got.get("reason").and_then(Value::as_str) == Some(r),
        _ => true,
    }
}

fn nonzero(v: &Value) -> Vec<(String, Value)> {
    v.as_object()
        .map(|o| {
            o.iter()
                .filter(|(_, n)| n.as_u64() != Some(0))
                .map(|(k, n)| (k.clone(), n.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// Compares one expected line with one produced line; returns what differs.
pub fn differences(want: &Value, got: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    let Some(want) = want.as_object() else {
        return vec!["expected line is not an object".into()];
    };
    for (k, v) in want {
        let Some(g) = got.get(k) else {
            bad.push(format!("missing {k}"));
            continue;
        };
        let same = match k.as_str() {
            "refused" => same_refusal(v, g),
            "size-used" => same_number(v, g),
            "holdings" => nonzero(v) == nonzero(g),
            "world" => {
                bad.extend(world_differences(v, g));
                true
            }
            _ => v == g,
        };
        if !same {
            bad.push(format!("{k}: want {v} got {g}"));
        }
    }
    bad
}

/// A world line's `world`: containers by name (no more, no fewer, each
/// compared as a one-container state), and the tallies ignoring zeros.
fn world_differences(want: &Value, got: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    for (k, v) in want.as_object().into_iter().flatten() {
        let Some(g) = got.get(k) else {
            bad.push(format!("missing world.{k}"));
            continue;
        };
        if k == "containers" {
            let (Some(w), Some(g)) = (v.as_object(), g.as_object()) else {
                bad.push("world.containers: not an object".into());
                continue;
            };
            if w.keys().ne(g.keys()) {
                bad.push(format!(
                    "world.containers: want {:?} got {:?}",
                    w.keys(),
                    g.keys()
                ));
            }
            for (name, state) in w {
                if let Some(gs) = g.get(name) {
                    for d in differences(state, gs) {
                        bad.push(format!("world.containers.{name}.{d}"));
                    }
                }
            }
        } else if nonzero(v) != nonzero(g) {
            bad.push(format!("world.{k}: want {v} got {g}"));
        }
    }
    bad
}

/// Every case in `dir` (not its subfolders), sorted.
fn cases(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".json") && !n.ends_with(".adoption.json")
        })
        .collect();
    names.sort();
    names
}

/// Runs every case of `dir` through `run` and lists what differs.
fn check(dir: &str, run: fn(&Scenario) -> Result<Vec<Value>, String>) -> (usize, Vec<String>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance")
        .join(dir);
    let names = cases(&dir);
    let mut failures = Vec::new();
    for case in &names {
        let expected: Vec<Value> = std::fs::read_to_string(case.with_extension("expected.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let got = match Scenario::read(case).and_then(|s| run(&s)) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{}: {e}", case.display()));
                continue;
            }
        };
        if got.len() != expected.len() {
            failures.push(format!(
                "{}: {} lines, want {}",
                case.display(),
                got.len(),
                expected.len()
            ));
            continue;
        }
        for (w, g) in expected.iter().zip(&got) {
            let d = differences(w, g);
            if !d.is_empty() {
                failures.push(format!(
                    "{} step {}: {}",
                    case.display(),
                    w["step"],
                    d.join("; ")
                ));
                break;
            }
        }
    }
    (names.len(), failures)
}

#[test]
fn moves_and_frames_pass_through_the_engine_and_the_plugin() {
    for dir in ["moves", "frames"] {
        for (mode, run) in [
            ("engine", Scenario::run as fn(&Scenario) -> _),
            ("plugin", Scenario::run_ecs),
        ] {
            let (n, failures) = check(dir, run);
            // the frames folder holds one world case, which only the plugin runs
            let failures: Vec<_> = failures
                .into_iter()
                .filter(|f| !(mode == "engine" && f.contains("runs through the plugin")))
                .collect();
            assert!(n >= 2, "{dir}: the public cases are here");
            assert!(
                failures.is_empty(),
                "{dir} through the {mode}:\n{}",
                failures.join("\n")
            );
        }
    }
}

#[test]
fn world_cases_pass_through_the_plugin() {
    let (n, failures) = check("world", Scenario::run_ecs);
    assert_eq!(n, 17, "the 17 public world cases are here");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_case_passes_through_a_saved_world() {
    for (dir, n) in [(".", 22), ("moves", 3), ("frames", 2), ("world", 17)] {
        let (got, failures) = check(dir, Scenario::run_through_scene);
        assert_eq!(got, n, "{dir}");
        assert!(failures.is_empty(), "{dir}:\n{}", failures.join("\n"));
    }
}

#[test]
fn one_container_cases_pass_through_the_plugin() {
    let (n, failures) = check(".", Scenario::run_ecs);
    assert_eq!(n, 22);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_public_case_passes() {
    let (n, failures) = check(".", Scenario::run);
    assert_eq!(n, 22, "the 22 public cases are here");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_case_passes_through_a_server_and_a_client() {
    for (dir, n) in [(".", 22), ("moves", 3), ("frames", 2), ("world", 17)] {
        let (got, failures) = check(dir, Scenario::run_replicon);
        assert_eq!(got, n, "{dir}");
        assert!(failures.is_empty(), "{dir}:\n{}", failures.join("\n"));
    }
}

/// One of the runner's modes.
type Run = fn(&Scenario) -> Result<Vec<Value>, String>;

#[test]
fn items_with_properties_pass_in_every_mode() {
    let modes: [(&str, Run); 4] = [
        ("engine", Scenario::run),
        ("plugin", Scenario::run_ecs),
        ("saved world", Scenario::run_through_scene),
        ("server and client", Scenario::run_replicon),
    ];
    for (mode, run) in modes {
        let (n, failures) = check("props", run);
        // world cases settle in a world: the plain engine refuses them
        let failures: Vec<_> = failures
            .into_iter()
            .filter(|f| !(mode == "engine" && f.contains("runs through the plugin")))
            .collect();
        assert_eq!(n, 15, "the 15 public cases with properties are here");
        assert!(
            failures.is_empty(),
            "props through the {mode}:\n{}",
            failures.join("\n")
        );
    }
}

/// Properties the format cannot hold make the scenario malformed: the
/// error names the step and the key, and nothing runs.
#[test]
fn malformed_properties_name_the_step_and_the_key() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let adoption = std::fs::read_to_string(dir.join("props/props-append-per-kind.json")).unwrap();
    let adoption: Value = serde_json::from_str(&adoption).unwrap();
    let long = "x".repeat(257);
    let many: serde_json::Map<String, Value> =
        (0..17).map(|i| (format!("k{i}"), Value::from(i))).collect();
    let bad: Vec<(Value, &str)> = vec![
        (
            serde_json::json!({"quality": {"a": 1}}),
            "/steps/1/props/quality",
        ),
        (
            serde_json::json!({"quality": [1]}),
            "/steps/1/props/quality",
        ),
        (
            serde_json::json!({"quality": null}),
            "/steps/1/props/quality",
        ),
        (
            serde_json::json!({"quality": 0.0000001}),
            "/steps/1/props/quality",
        ),
        (
            serde_json::json!({"quality": 1e16}),
            "/steps/1/props/quality",
        ),
        (serde_json::json!({"note": long}), "/steps/1/props/note"),
        (serde_json::json!({"Quality": 1}), "/steps/1/props/Quality"),
        (Value::Object(many), "/steps/1/props"),
        (serde_json::json!(3), "/steps/1/props"),
    ];
    for (props, at) in bad {
        let scenario = serde_json::json!({
            "adoption": adoption["adoption"],
            "steps": [
                {"op": "deliver", "item": "potion", "amount": 1},
                {"op": "deliver", "item": "potion", "amount": 1, "props": props},
            ],
        });
        let path = std::env::temp_dir().join(format!("bad-props-{}.json", std::process::id()));
        std::fs::write(&path, serde_json::to_vec(&scenario).unwrap()).unwrap();
        let err = Scenario::read(&path).expect_err("malformed properties are refused");
        let _ = std::fs::remove_file(&path);
        assert!(err.contains(at), "{props}: the error names {at}: {err}");
    }
}
