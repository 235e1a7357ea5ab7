//! `bevy-container replay OCCURRENCES.json --registry REGISTRY.json
//! --holders HOLDERS.ron [--json]`: replays a D&D item-occurrence list
//! (`notarius_dnd_item_occurrences_v1`) into containers and reports the
//! inventory it implies and every rule the story broke.
//!
//! Exits 0 when the replay ran (even if the story broke rules), 1 when the
//! input was rejected, 2 on bad arguments.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::occurrences::{self, Holders, InputProblem, Replay};

/// The command's usage line.
pub const USAGE: &str =
    "usage: replay OCCURRENCES.json --registry REGISTRY.json --holders HOLDERS.ron [--json]";

/// The command line.
struct Args {
    /// The occurrence list.
    file: PathBuf,
    /// The item registry.
    registry: PathBuf,
    /// The holders (RON).
    holders: PathBuf,
    /// Print the replay as JSON rather than the readable report.
    json: bool,
}

/// The arguments, or `None` when they are not the usage's.
fn parse(args: &[String]) -> Option<Args> {
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .map(PathBuf::from)
    };
    let registry = value("--registry")?;
    let holders = value("--holders")?;
    let file = args
        .iter()
        .enumerate()
        .find(|(i, a)| {
            !a.starts_with("--")
                && (*i == 0 || !args[i - 1].starts_with("--r") && !args[i - 1].starts_with("--h"))
        })
        .map(|(_, a)| PathBuf::from(a))?;
    Some(Args {
        file,
        registry,
        holders,
        json: args.iter().any(|a| a == "--json"),
    })
}

/// Prints an input's problems and says it was rejected: exit code 1.
fn reject(file: &str, problems: &[InputProblem]) -> ExitCode {
    for p in problems {
        eprintln!("{file}: error at {}: {}", p.path, p.message);
    }
    eprintln!("{file}: rejected ({} problem(s))", problems.len());
    ExitCode::from(1)
}

/// Replays the occurrence list the arguments name into the holders and
/// prints the report (or, with `--json`, the replay as JSON). Exits 0 when
/// the replay ran, even if the story broke rules; 1 when an input was
/// rejected (each problem printed with its file and path); 2 on bad
/// arguments.
///
/// ```no_run
/// # use bevy_container::cli;
/// let args = [
///     "assets/dnd/occurrences.json",
///     "--registry",
///     "assets/dnd/registry.json",
///     "--holders",
///     "assets/dnd/holders.ron",
/// ];
/// let code = cli::replay::run(args.map(String::from));
/// ```
pub fn run(args: impl IntoIterator<Item = String>) -> ExitCode {
    let raw: Vec<String> = args.into_iter().collect();
    let Some(args) = parse(&raw) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let replay = match replay_of(&args) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let text = if args.json {
        match serde_json::to_string_pretty(&replay) {
            Ok(j) => j + "\n",
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        }
    } else {
        replay.render()
    };
    // a closed pipe (| head) is not an error of the replay
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
    ExitCode::SUCCESS
}

/// Reads the three inputs and replays: the replay, or exit code 1 after the
/// rejected input's problems are printed.
fn replay_of(args: &Args) -> Result<Replay, ExitCode> {
    let name = args.file.display().to_string();
    let Ok(bytes) = std::fs::read(&args.file) else {
        eprintln!("{name}: cannot read");
        return Err(ExitCode::from(1));
    };
    let list = occurrences::read_occurrences(&bytes).map_err(|p| reject(&name, &p))?;
    let registry_name = args.registry.display().to_string();
    let registry = std::fs::read(&args.registry)
        .map_err(|e| {
            vec![InputProblem {
                path: String::new(),
                message: e.to_string(),
            }]
        })
        .and_then(|b| occurrences::read_registry(&b))
        .map_err(|p| reject(&registry_name, &p))?;
    let grounding = occurrences::ground(&list, &registry);
    if !grounding.is_empty() {
        return Err(reject(&name, &grounding));
    }
    let holders_name = args.holders.display().to_string();
    let holders = Holders::read(&args.holders).map_err(|p| reject(&holders_name, &p))?;
    occurrences::replay(&list, &holders).map_err(|p| reject(&name, &p))
}
