//! The scenario runner of `scenario-format.md`: replays a scenario file's
//! requests against one container and prints one JSON line per step.
//!
//! ```text
//! cargo run --example scenario -- FILE.json
//! cargo run --example scenario -- --ecs FILE.json
//! ```
//!
//! With `--ecs` the steps go through the Bevy plugin in a headless `App`
//! (requests as messages, one `app.update()` per step) and print the same
//! lines.
//!
//! Exits 0 after printing every step; 2 with a message on stderr when the
//! scenario file itself is malformed.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use bevy_container::scenario::Scenario;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
    else {
        eprintln!("usage: scenario FILE.json");
        return ExitCode::from(2);
    };
    let scenario = match Scenario::read(&file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let ecs = args.iter().any(|a| a == "--ecs");
    let lines = match if ecs {
        scenario.run_ecs()
    } else {
        scenario.run()
    } {
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
