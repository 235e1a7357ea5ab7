//! `bevy-container audit FILE [--prose DIR] [--tuning FILE]`: runs the
//! contract's tests against an adoption file and prints the list.
//!
//! Exits 0 when no test failed, 1 when one did, 2 when the file could not
//! be read or has errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::adoption::{Format, Tuning};
use crate::audit::{self, AuditError, AuditOptions};

/// The command's usage line.
pub const USAGE: &str = "usage: audit FILE [--prose DIR] [--tuning FILE]";

/// Audits the adoption file the arguments name (see
/// [`audit::audit_file`]) and prints the list of tests: passed, failed with
/// a seed and a replayable scenario, not applicable, or cannot run. Exits 0
/// when no test failed, 1 when one did, 2 on bad arguments or when the
/// file (or the tuning) could not be read or has errors.
///
/// ```no_run
/// # use bevy_container::cli;
/// let code = cli::audit::run([
///     "assets/backpack.adoption.json".to_string(),
///     "--prose".to_string(),
///     "assets/design".to_string(),
/// ]);
/// ```
pub fn run(args: impl IntoIterator<Item = String>) -> ExitCode {
    let args: Vec<String> = args.into_iter().collect();
    let (file, options) = match parse(&args) {
        Ok(parsed) => parsed,
        Err(code) => return code,
    };
    match audit::audit_file(&file, &options) {
        Ok(report) => {
            println!("{report}");
            if report.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e @ (AuditError::Unreadable { .. } | AuditError::Invalid { .. })) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
        Err(AuditError::Failed(report)) => {
            println!("{report}");
            ExitCode::from(1)
        }
    }
}

/// The adoption file and the audit's options (the tuning read); exit code
/// 2, with a message, when the arguments are not the usage's or the tuning
/// cannot be read.
fn parse(args: &[String]) -> Result<(PathBuf, AuditOptions), ExitCode> {
    let mut file = None;
    let mut options = AuditOptions::default();
    let mut i = 0;
    while i < args.len() {
        match (args[i].as_str(), args.get(i + 1)) {
            ("--prose", Some(dir)) => {
                options.prose = Some(PathBuf::from(dir));
                i += 1;
            }
            ("--tuning", Some(t)) => {
                options.tuning = read_tuning(t)?;
                i += 1;
            }
            (arg, _) if file.is_none() && !arg.starts_with("--") => file = Some(PathBuf::from(arg)),
            _ => {
                eprintln!("{USAGE}");
                return Err(ExitCode::from(2));
            }
        }
        i += 1;
    }
    match file {
        Some(file) => Ok((file, options)),
        None => {
            eprintln!("{USAGE}");
            Err(ExitCode::from(2))
        }
    }
}

/// The tuning file `name`; exit code 2, with the problems on stderr, when it
/// cannot be read or has errors.
fn read_tuning(name: &str) -> Result<Tuning, ExitCode> {
    let bytes = match std::fs::read(name) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{name}: cannot read: {e}");
            return Err(ExitCode::from(2));
        }
    };
    Tuning::read(&bytes, Format::of_path(Path::new(name))).map_err(|report| {
        eprint!("{}", report.render(name));
        ExitCode::from(2)
    })
}
