//! The `bevy-container` binary (feature `cli`), run as a designer runs it:
//! its exit codes, what it prints, and that its dependency tree has no
//! window, renderer or network crate; the tool crate's
//! (`tools/bevy-container-cli`, a workspace member) has no window, image
//! or GPU-data crate at all.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The crate's folder: the binary runs there, as from a checkout.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the built binary with `args` in the crate's folder.
fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bevy-container"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the bevy-container binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The seed backpack with its fill-order answered `fill-up`, which is not
/// one of the question's options, written as `name` in a temporary folder.
fn broken_adoption(name: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join("assets/backpack.adoption.json")).unwrap();
    let answer = "\"fill-order\": \"top-up-then-first-empty\"";
    assert!(text.contains(answer), "the seed answers fill-order");
    let text = text.replace(answer, "\"fill-order\": \"fill-up\"");
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The summary line of `file` (`FILE: 1 error, 0 warnings`), not one of its
/// problem lines (`FILE: error at ...`).
fn summary_line<'a>(stdout: &'a str, file: &str) -> Option<(usize, &'a str)> {
    let prefix = format!("{file}: ");
    stdout.lines().enumerate().find(|(_, l)| {
        l.strip_prefix(&prefix).is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_digit()) && rest.contains(" error")
        })
    })
}

#[test]
fn validate_names_the_file_the_path_and_the_valid_answers() {
    let broken = broken_adoption("cli-fill-up.adoption.json");
    let name = broken.display().to_string();
    let out = bin(&["validate", &name]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    let line = text
        .lines()
        .find(|l| l.contains("/answers/fill-order"))
        .unwrap_or_else(|| panic!("no problem at /answers/fill-order in:\n{text}"));
    assert!(line.starts_with(&format!("{name}: error")), "{line}");
    for answer in ["top-up-then-first-empty", "first-slot-that-fits", "append"] {
        assert!(line.contains(answer), "{answer} is not listed in: {line}");
    }
    let (_, summary) = summary_line(&text, &name).expect("a summary line");
    assert!(!summary.contains(": 0 errors"), "{summary}");
}

#[test]
fn validate_checks_every_file_it_is_given() {
    let broken = broken_adoption("cli-two-files.adoption.json");
    let name = broken.display().to_string();
    let seed = "assets/backpack.adoption.json";
    let out = bin(&["validate", seed, &name]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    let (at_seed, seed_summary) = summary_line(&text, seed)
        .unwrap_or_else(|| panic!("no summary line for the seed in:\n{text}"));
    assert!(
        seed_summary.starts_with(&format!("{seed}: 0 errors")),
        "{seed_summary}"
    );
    let (at_broken, _) = summary_line(&text, &name)
        .unwrap_or_else(|| panic!("no summary line for {name} in:\n{text}"));
    assert!(
        at_seed < at_broken,
        "the files are reported in order:\n{text}"
    );
    // the seed alone is clean
    let out = bin(&["validate", seed]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn validate_exits_2_when_a_file_cannot_be_read() {
    let missing = "assets/no-such-file.adoption.json";
    let out = bin(&["validate", missing]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(missing), "{}", stderr(&out));
    // an unreadable file wins over one with errors, and both are checked
    let broken = broken_adoption("cli-with-missing.adoption.json");
    let name = broken.display().to_string();
    let out = bin(&["validate", &name, missing]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        summary_line(&stdout(&out), &name).is_some(),
        "{}",
        stdout(&out)
    );
    // no file at all is a usage error
    assert_eq!(bin(&["validate"]).status.code(), Some(2));
}

/// The expected lines of a conformance case, and the keys compared exactly
/// (tests/conformance.rs compares the others more loosely).
fn expected_lines(case: &str) -> Vec<Value> {
    let path = root().join(case).with_extension("expected.jsonl");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Checks the scenario runner's output against the case's expected lines:
/// as many lines, each JSON, each key equal as tests/conformance.rs wants
/// it (the loosely compared keys left to that test).
fn assert_matches_expected(case: &str, out: &Output) {
    let text = stdout(out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(out));
    let expected = expected_lines(case);
    let got: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect();
    assert_eq!(got.len(), expected.len(), "one line per step:\n{text}");
    for (want, got) in expected.iter().zip(&got) {
        for (key, value) in want.as_object().expect("expected lines are objects") {
            if ["refused", "size-used", "holdings", "world"].contains(&key.as_str()) {
                continue;
            }
            assert_eq!(got.get(key), Some(value), "step {}: {key}", want["step"]);
        }
    }
}

#[test]
fn scenario_prints_the_expected_line_per_step() {
    let case = "tests/conformance/backpack-day-out.json";
    assert_matches_expected(case, &bin(&["scenario", case]));
    assert_matches_expected(case, &bin(&["scenario", "--ecs", case]));
}

#[cfg(feature = "replicon")]
#[test]
fn scenario_runs_through_a_server_and_a_client() {
    let case = "tests/conformance/backpack-day-out.json";
    assert_matches_expected(case, &bin(&["scenario", "--ecs", "--replicon", case]));
}

#[cfg(not(feature = "replicon"))]
#[test]
fn scenario_names_the_feature_a_mode_needs() {
    let case = "tests/conformance/backpack-day-out.json";
    let out = bin(&["scenario", "--ecs", "--replicon", case]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("--features replicon"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_unknown_command_is_named_and_refused() {
    let out = bin(&["frobnicate", "assets/backpack.adoption.json"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("frobnicate"), "{err}");
    for command in ["validate", "audit", "replay", "scenario", "help"] {
        assert!(err.contains(command), "{command} is not listed in: {err}");
    }
    assert_eq!(bin(&[]).status.code(), Some(2), "no command");
}

#[test]
fn help_lists_every_command() {
    for flag in ["help", "--help", "-h"] {
        let out = bin(&[flag]);
        assert_eq!(out.status.code(), Some(0), "{flag}");
        let text = stdout(&out);
        for command in ["validate", "audit", "replay", "scenario"] {
            assert!(
                text.lines()
                    .any(|l| l.trim_start().starts_with(&format!("{command} "))),
                "{flag}: {command} is not listed in:\n{text}"
            );
        }
    }
}

/// What the binary must not build: windows, the renderer, the GPU stack,
/// the demo's inspector, networking transports and the benchmarks.
const NOT_IN_THE_BINARY: [&str; 9] = [
    "wgpu",
    "winit",
    "egui",
    "bevy_egui",
    "renet",
    "bevy_renet",
    "criterion",
    "bevy_render",
    "bevy_winit",
];

/// The names of the crates `cargo tree` lists for `args` (normal
/// dependencies only), run in the crate's folder; the tree holds
/// bevy_container itself (else it listed something else).
fn tree_names(args: &[&str]) -> (Vec<String>, String) {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree", "-e", "normal", "--prefix", "none", "--format", "{p}",
        ])
        .args(args)
        .current_dir(root())
        .output()
        .expect("cargo runs");
    assert!(out.status.success(), "cargo tree failed:\n{}", stderr(&out));
    let tree = stdout(&out);
    let names = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect::<Vec<String>>();
    assert!(
        names.iter().any(|n| n == "bevy_container"),
        "cargo tree printed the crate:\n{tree}"
    );
    (names, tree)
}

#[test]
fn the_binary_builds_no_window_renderer_or_network_crate() {
    let (names, tree) = tree_names(&["--features", "cli"]);
    // `wgpu-types` is plain data (texture formats and the like) that the
    // default `scene` feature brings through Bevy's camera and image types;
    // no GPU backend comes with it
    let bad: Vec<&String> = names
        .iter()
        .filter(|n| *n != "wgpu-types" && NOT_IN_THE_BINARY.iter().any(|b| n.starts_with(b)))
        .collect();
    assert!(bad.is_empty(), "the cli build pulls in {bad:?}:\n{tree}");
}

/// What the designers' tool as its own crate (tools/bevy-container-cli,
/// bevy_container without default features) does not build either: no
/// window, image or GPU-data crate at all.
const NOT_IN_THE_TOOL: [&str; 4] = ["bevy_window", "bevy_image", "image", "wgpu-types"];

/// Fails when the tree `names` holds a window, image, renderer, egui or
/// renet crate.
fn assert_engine_only(names: &[String], tree: &str, what: &str) {
    let bad: Vec<&String> = names
        .iter()
        .filter(|n| {
            NOT_IN_THE_TOOL.contains(&n.as_str())
                || NOT_IN_THE_BINARY.iter().any(|b| n.starts_with(b))
        })
        .collect();
    assert!(bad.is_empty(), "{what} pulls in {bad:?}:\n{tree}");
}

#[test]
fn the_tool_crate_builds_the_engine_only() {
    let (names, tree) = tree_names(&["-p", "bevy-container-cli"]);
    assert_engine_only(&names, &tree, "the tool crate");
}

#[test]
fn the_operators_tool_builds_no_window_renderer_or_network_crate() {
    // `bevy-container db` (features cli and postgres): the PostgreSQL
    // client comes, and nothing of a window, a renderer, egui or renet
    let (names, tree) = tree_names(&["-p", "bevy-container-cli", "--features", "postgres"]);
    assert!(
        names.iter().any(|n| n == "postgres"),
        "cargo tree printed the client:\n{tree}"
    );
    assert_engine_only(&names, &tree, "the operator's tool");
}
