//! Validates an adoption file and prints every problem like a compiler.
//!
//! ```text
//! cargo run --example validate -- assets/backpack.adoption.json [--tuning FILE] [--prose DIR]
//! ```
//!
//! Exits 0 when there are no errors, 1 when there are, 2 when a file could
//! not be read. Warnings never fail it.

use std::path::PathBuf;
use std::process::ExitCode;

use bevy_container::adoption::{self, Context, Format, ProblemKind, Tuning, ValueSource};
use bevy_container::rules::Rules;

fn main() -> ExitCode {
    let mut file = None;
    let mut tuning_file = None;
    let mut prose = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--tuning" => tuning_file = args.next().map(PathBuf::from),
            "--prose" => prose = args.next().map(PathBuf::from),
            _ if file.is_none() => file = Some(PathBuf::from(arg)),
            _ => {
                eprintln!("usage: validate FILE [--tuning FILE] [--prose DIR]");
                return ExitCode::from(2);
            }
        }
    }
    let Some(file) = file else {
        eprintln!("usage: validate FILE [--tuning FILE] [--prose DIR]");
        return ExitCode::from(2);
    };
    let name = file.display().to_string();
    let bytes = match std::fs::read(&file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{name}: cannot read: {e}");
            return ExitCode::from(2);
        }
    };
    let tuning = match &tuning_file {
        None => None,
        Some(t) => {
            let tname = t.display().to_string();
            let Ok(tb) = std::fs::read(t) else {
                eprintln!("{tname}: cannot read");
                return ExitCode::from(2);
            };
            match Tuning::read(&tb, Format::of_path(t)) {
                Ok(t) => Some(t),
                Err(report) => {
                    print!("{}", report.render(&tname));
                    println!("{tname}: {}", report.summary());
                    return ExitCode::from(2);
                }
            }
        }
    };
    let cx = Context {
        tuning: tuning.as_ref(),
        prose: prose.as_deref(),
    };
    let (mut report, adoption) = adoption::check(&bytes, Format::of_path(&file), cx);
    if tuning.is_none()
        && let Some(a) = &adoption
    {
        // without the game's tuning, a reference is checked for form only:
        // say so for each, rather than a clean "0 warnings"
        for (value, source) in &a.values {
            if let ValueSource::Tuning { tuning: key } = source {
                report.warning(
                    ProblemKind::UnknownTuningKey,
                    format!("/values/{value}"),
                    format!(
                        "{value} uses tuning key \"{key}\", which was not checked; pass --tuning FILE to check it and the rules that use it"
                    ),
                );
            }
        }
    }
    print!("{}", report.render(&name));
    let mut summary = report.summary();
    if let (Some(a), Some(t)) = (&adoption, &tuning)
        && let Ok(rules) = Rules::compile(a, t)
    {
        summary.push_str(&format!(
            "; {} with {} rows",
            rules.capacity,
            rules.rows.len()
        ));
    }
    println!("{name}: {summary}");
    if report.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
