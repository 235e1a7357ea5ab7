//! `bevy-container scenario [--ecs [--through-scene | --replicon]]
//! FILE.json`: the scenario runner of the guide's
//! [`guide::scenarios`](crate::guide::scenarios) chapter. It replays a
//! scenario file's requests against one container and prints one JSON line
//! per step.
//!
//! With `--ecs` the steps go through the Bevy plugin in a headless `App`
//! (requests as messages, one `app.update()` per frame) and print the same
//! lines; world scenarios (several containers), whose leftovers settle in a
//! world, always run through the plugin. With `--ecs --through-scene` the
//! whole world is saved as a `DynamicWorld` and read into a fresh app
//! before every frame (feature `scene`). With `--ecs --replicon` a server
//! app and a client app run in one process: the client sends every step a
//! player could (deliveries are the server's), reads the outcome from the
//! server's answer, and its replicated view must equal the server's after
//! every frame (feature `replicon`). Any other flag is refused, so a mode
//! that does not exist never runs as another; a mode whose feature was not
//! built is refused with the feature to add.
//!
//! Exits 0 after printing every step; 2 with a message on stderr when the
//! scenario file itself is malformed or the mode cannot run.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Value;

use crate::scenario::Scenario;

/// The command's usage line.
pub const USAGE: &str = "usage: scenario [--ecs [--through-scene | --replicon]] FILE.json";

/// Where the steps run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// The engine (a world scenario runs through the plugin).
    Engine,
    /// The plugin in a headless app (`--ecs`).
    Ecs,
    /// The plugin, the world saved and read back before every frame
    /// (`--ecs --through-scene`).
    ThroughScene,
    /// A server and a client (`--ecs --replicon`).
    Replicon,
}

/// The flags and the file as given.
struct Args {
    ecs: bool,
    through_scene: bool,
    replicon: bool,
    file: PathBuf,
}

/// Runs the scenario file the arguments name in the mode the flags choose
/// and prints one JSON line per step. Exits 0 after printing every step; 2,
/// with a message on stderr, on bad arguments, a malformed scenario file, a
/// mode this build lacks the feature for, or a step that cannot run.
///
/// ```no_run
/// # use bevy_container::cli;
/// let args = ["--ecs", "tests/conformance/backpack-day-out.json"];
/// let code = cli::scenario::run(args.map(String::from));
/// ```
pub fn run(args: impl IntoIterator<Item = String>) -> ExitCode {
    let args = match parse(args) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let scenario = match Scenario::read(&args.file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mode = match choose_mode(&args) {
        Ok(m) => m,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let lines = match lines_in(&scenario, mode) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{}: {e}", args.file.display());
            return ExitCode::from(2);
        }
    };
    let mut out = std::io::stdout().lock();
    for line in lines {
        if writeln!(out, "{line}").is_err() {
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

/// The flags and the one file; exit code 2, with a message, otherwise.
fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, ExitCode> {
    let (mut ecs, mut through_scene, mut replicon) = (false, false, false);
    let mut file = None;
    for a in args {
        match a.as_str() {
            "--ecs" => ecs = true,
            "--through-scene" => through_scene = true,
            "--replicon" => replicon = true,
            flag if flag.starts_with("--") => {
                eprintln!(
                    "scenario: unknown flag {flag}; the modes are the engine (no flag), --ecs, --ecs --through-scene and --ecs --replicon"
                );
                return Err(ExitCode::from(2));
            }
            _ if file.is_some() => {
                eprintln!("usage: scenario [--ecs] FILE.json (one file)");
                return Err(ExitCode::from(2));
            }
            _ => file = Some(PathBuf::from(a)),
        }
    }
    let Some(file) = file else {
        eprintln!("usage: scenario [--ecs] FILE.json");
        return Err(ExitCode::from(2));
    };
    Ok(Args {
        ecs,
        through_scene,
        replicon,
        file,
    })
}

/// The mode the flags choose, or why they choose none: a combination that
/// does not exist, or a mode whose feature this build lacks.
fn choose_mode(args: &Args) -> Result<Mode, String> {
    if args.through_scene && !args.ecs {
        return Err("scenario: --through-scene needs --ecs (it saves the plugin's world)".into());
    }
    if args.replicon && (!args.ecs || args.through_scene) {
        return Err(
            "scenario: --replicon goes with --ecs alone (it runs the plugin on a server)".into(),
        );
    }
    let mode = match (args.ecs, args.through_scene, args.replicon) {
        (true, _, true) => Mode::Replicon,
        (true, true, false) => Mode::ThroughScene,
        (true, false, false) => Mode::Ecs,
        (false, _, _) => Mode::Engine,
    };
    match missing_feature(mode) {
        Some(message) => Err(message),
        None => Ok(mode),
    }
}

/// When `mode` needs a feature this build was made without: the message
/// that names it and the install command that adds it.
fn missing_feature(mode: Mode) -> Option<String> {
    let (flags, feature) = match mode {
        Mode::ThroughScene if !cfg!(feature = "scene") => ("--ecs --through-scene", "scene"),
        Mode::Replicon if !cfg!(feature = "replicon") => ("--ecs --replicon", "replicon"),
        _ => return None,
    };
    Some(format!(
        "scenario: {flags} needs the `{feature}` feature, which this build of bevy-container was made without; \
         install it from a checkout with `cargo install --locked --path tools/bevy-container-cli --features {feature}` \
         (or run `cargo run --example scenario --all-features -- {flags} FILE.json` there)"
    ))
}

/// The scenario's lines in `mode`.
fn lines_in(scenario: &Scenario, mode: Mode) -> Result<Vec<Value>, String> {
    match mode {
        #[cfg(feature = "replicon")]
        Mode::Replicon => scenario.run_replicon(),
        #[cfg(feature = "scene")]
        Mode::ThroughScene => scenario.run_through_scene(),
        // refused by `choose_mode` before it gets here
        #[cfg(not(feature = "replicon"))]
        Mode::Replicon => Err(missing_feature(mode).unwrap_or_default()),
        #[cfg(not(feature = "scene"))]
        Mode::ThroughScene => Err(missing_feature(mode).unwrap_or_default()),
        Mode::Ecs => scenario.run_ecs(),
        // settling in a world lives in the plugin: a world scenario without
        // a mode runs there (the lines are the same as --ecs)
        Mode::Engine if scenario.world => scenario.run_ecs(),
        Mode::Engine => scenario.run(),
    }
}
