//! `bevy-container validate FILE... [--tuning FILE] [--prose DIR]`: checks
//! adoption files and prints every problem like a compiler, each with the
//! file, the path in it and the fix, then one summary line per file.
//!
//! Exits 0 when no file has errors, 1 when one has, 2 when a file could not
//! be read (2 wins over 1). Warnings never fail it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::adoption::{self, Adoption, Context, Format, ProblemKind, Report, Tuning, ValueSource};
use crate::rules::Rules;

/// The command's usage line.
pub const USAGE: &str = "usage: validate FILE... [--tuning FILE] [--prose DIR]";

/// The command line: the files in order, the tuning file and the prose folder.
struct Args {
    files: Vec<PathBuf>,
    tuning: Option<PathBuf>,
    prose: Option<PathBuf>,
}

/// The arguments, or `None` when they are not the usage's (no file, a flag
/// without its value, an unknown flag).
fn parse(args: impl IntoIterator<Item = String>) -> Option<Args> {
    let mut out = Args {
        files: Vec::new(),
        tuning: None,
        prose: None,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--tuning" => out.tuning = Some(PathBuf::from(args.next()?)),
            "--prose" => out.prose = Some(PathBuf::from(args.next()?)),
            flag if flag.starts_with("--") => return None,
            _ => out.files.push(PathBuf::from(arg)),
        }
    }
    if out.files.is_empty() {
        None
    } else {
        Some(out)
    }
}

/// Checks each file as an adoption: prints every problem with its path and
/// fix (`FILE: error at /answers/fill-order: ...`) and a summary line per
/// file (`FILE: 1 error, 0 warnings`). Exits 1 when any file has errors, 2
/// when the tuning file or an adoption file could not be read, 0 otherwise.
///
/// ```no_run
/// # use bevy_container::cli;
/// let code = cli::validate::run([
///     "assets/backpack.adoption.json".to_string(),
///     "--prose".to_string(),
///     "assets/design".to_string(),
/// ]);
/// ```
pub fn run(args: impl IntoIterator<Item = String>) -> ExitCode {
    let Some(args) = parse(args) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let tuning = match read_tuning(args.tuning.as_deref()) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let cx = Context {
        tuning: tuning.as_ref(),
        prose: args.prose.as_deref(),
    };
    // every file is checked, whatever the ones before it held
    let worst = args
        .files
        .iter()
        .map(|file| check_file(file, cx))
        .fold(0, u8::max);
    ExitCode::from(worst)
}

/// The game's tuning, when `--tuning` names one; exit code 2 when it cannot
/// be read or has errors (they are printed).
fn read_tuning(file: Option<&Path>) -> Result<Option<Tuning>, ExitCode> {
    let Some(file) = file else {
        return Ok(None);
    };
    let name = file.display().to_string();
    let Ok(bytes) = std::fs::read(file) else {
        eprintln!("{name}: cannot read");
        return Err(ExitCode::from(2));
    };
    match Tuning::read(&bytes, Format::of_path(file)) {
        Ok(t) => Ok(Some(t)),
        Err(report) => {
            print!("{}", report.render(&name));
            println!("{name}: {}", report.summary());
            Err(ExitCode::from(2))
        }
    }
}

/// Checks one adoption file and prints its problems and summary line: 0
/// when it has no errors, 1 when it has, 2 when it could not be read.
fn check_file(file: &Path, cx: Context<'_>) -> u8 {
    let name = file.display().to_string();
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{name}: cannot read: {e}");
            return 2;
        }
    };
    let (mut report, adoption) = adoption::check(&bytes, Format::of_path(file), cx);
    if cx.tuning.is_none()
        && let Some(a) = &adoption
    {
        unchecked_tuning(&mut report, a);
    }
    print!("{}", report.render(&name));
    let mut summary = report.summary();
    if let (Some(a), Some(t)) = (&adoption, cx.tuning)
        && let Ok(rules) = Rules::compile(a, t)
    {
        summary.push_str(&format!(
            "; {} with {} rows",
            rules.capacity,
            rules.rows.len()
        ));
    }
    println!("{name}: {summary}");
    u8::from(report.has_errors())
}

/// Without the game's tuning, a reference is checked for form only: says so
/// for each, rather than a clean "0 warnings".
fn unchecked_tuning(report: &mut Report, adoption: &Adoption) {
    for (value, source) in &adoption.values {
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
