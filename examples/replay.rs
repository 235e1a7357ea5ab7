//! Replays a D&D item-occurrence list (`notarius_dnd_item_occurrences_v1`)
//! into containers and reports the inventory it implies and every rule the
//! story broke.
//!
//! ```text
//! cargo run --example replay --features replay -- assets/dnd/occurrences.json \
//!     --registry assets/dnd/registry.json --holders assets/dnd/holders.ron [--json]
//! ```
//!
//! Exits 0 when the replay ran (even if the story broke rules), 1 when the
//! input was rejected, 2 on bad arguments.

use std::path::PathBuf;
use std::process::ExitCode;

use bevy_container::occurrences::{self, Holders, InputProblem};

fn reject(file: &str, problems: &[InputProblem]) -> ExitCode {
    for p in problems {
        eprintln!("{file}: error at {}: {}", p.path, p.message);
    }
    eprintln!("{file}: rejected ({} problem(s))", problems.len());
    ExitCode::from(1)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .map(PathBuf::from)
    };
    let (Some(registry), Some(holders)) = (value("--registry"), value("--holders")) else {
        eprintln!(
            "usage: replay OCCURRENCES.json --registry REGISTRY.json --holders HOLDERS.ron [--json]"
        );
        return ExitCode::from(2);
    };
    let Some(file) = args
        .iter()
        .enumerate()
        .find(|(i, a)| {
            !a.starts_with("--")
                && (*i == 0 || !args[i - 1].starts_with("--r") && !args[i - 1].starts_with("--h"))
        })
        .map(|(_, a)| PathBuf::from(a))
    else {
        eprintln!(
            "usage: replay OCCURRENCES.json --registry REGISTRY.json --holders HOLDERS.ron [--json]"
        );
        return ExitCode::from(2);
    };
    let name = file.display().to_string();
    let Ok(bytes) = std::fs::read(&file) else {
        eprintln!("{name}: cannot read");
        return ExitCode::from(1);
    };
    let list = match occurrences::read_occurrences(&bytes) {
        Ok(l) => l,
        Err(p) => return reject(&name, &p),
    };
    let registry_name = registry.display().to_string();
    let registry = match std::fs::read(&registry)
        .map_err(|e| {
            vec![InputProblem {
                path: String::new(),
                message: e.to_string(),
            }]
        })
        .and_then(|b| occurrences::read_registry(&b))
    {
        Ok(r) => r,
        Err(p) => return reject(&registry_name, &p),
    };
    let grounding = occurrences::ground(&list, &registry);
    if !grounding.is_empty() {
        return reject(&name, &grounding);
    }
    let holders_name = holders.display().to_string();
    let holders = match Holders::read(&holders) {
        Ok(h) => h,
        Err(p) => return reject(&holders_name, &p),
    };
    let replay = match occurrences::replay(&list, &holders) {
        Ok(r) => r,
        Err(p) => return reject(&name, &p),
    };
    let text = if args.iter().any(|a| a == "--json") {
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
