//! The scenario runner of the guide's [`guide::scenarios`](crate::guide::scenarios) chapter: replays a scenario file's
//! requests against one container and prints one JSON line per step.
//!
//! ```text
//! cargo run --example scenario --all-features -- FILE.json
//! cargo run --example scenario --all-features -- --ecs FILE.json
//! ```
//!
//! With `--ecs` the steps go through the Bevy plugin in a headless `App`
//! (requests as messages, one `app.update()` per frame) and print the same
//! lines; world scenarios (several containers), whose leftovers settle in a
//! world, always run through the plugin. With
//! `--ecs --through-scene` the whole world is saved as a `DynamicWorld` and
//! read into a fresh app before every frame. With `--ecs --replicon` a
//! server app and a client app run in one process: the client sends every
//! step a player could (deliveries are the server's), reads the outcome
//! from the server's answer, and its replicated view must equal the
//! server's after every frame. Any other flag
//! is refused, so a mode that does not exist never runs as another.
//!
//! Exits 0 after printing every step; 2 with a message on stderr when the
//! scenario file itself is malformed.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use bevy_container::scenario::Scenario;

fn main() -> ExitCode {
    let mut ecs = false;
    let mut through_scene = false;
    let mut replicon = false;
    let mut file = None;
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--ecs" => ecs = true,
            "--through-scene" => through_scene = true,
            "--replicon" => replicon = true,
            flag if flag.starts_with("--") => {
                eprintln!(
                    "scenario: unknown flag {flag}; the modes are the engine (no flag), --ecs, --ecs --through-scene and --ecs --replicon"
                );
                return ExitCode::from(2);
            }
            _ if file.is_some() => {
                eprintln!("usage: scenario [--ecs] FILE.json (one file)");
                return ExitCode::from(2);
            }
            _ => file = Some(PathBuf::from(a)),
        }
    }
    let Some(file) = file else {
        eprintln!("usage: scenario [--ecs] FILE.json");
        return ExitCode::from(2);
    };
    let scenario = match Scenario::read(&file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if through_scene && !ecs {
        eprintln!("scenario: --through-scene needs --ecs (it saves the plugin's world)");
        return ExitCode::from(2);
    }
    if replicon && (!ecs || through_scene) {
        eprintln!("scenario: --replicon goes with --ecs alone (it runs the plugin on a server)");
        return ExitCode::from(2);
    }
    let lines = match (ecs, through_scene, replicon) {
        (true, _, true) => scenario.run_replicon(),
        (true, true, false) => scenario.run_through_scene(),
        (true, false, false) => scenario.run_ecs(),
        // settling in a world lives in the plugin: a world scenario without
        // a mode runs there (the lines are the same as --ecs)
        (false, _, _) if scenario.world => scenario.run_ecs(),
        (false, _, _) => scenario.run(),
    };
    let lines = match lines {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
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
