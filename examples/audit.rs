//! Runs the contract's tests against an adoption file and prints the list.
//!
//! ```text
//! cargo run --example audit --features audit -- assets/backpack.adoption.json --prose assets/design [--tuning FILE]
//! ```
//!
//! Exits 0 when no test failed, 1 when one did, 2 when the file could not
//! be read or has errors.

use std::path::PathBuf;
use std::process::ExitCode;

use bevy_container::adoption::{Format, Tuning};
use bevy_container::audit::{self, AuditError, AuditOptions};

const USAGE: &str = "usage: audit FILE [--prose DIR] [--tuning FILE]";

fn main() -> ExitCode {
    let mut file = None;
    let mut options = AuditOptions::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        match (args[i].as_str(), args.get(i + 1)) {
            ("--prose", Some(dir)) => {
                options.prose = Some(PathBuf::from(dir));
                i += 1;
            }
            ("--tuning", Some(t)) => {
                let bytes = match std::fs::read(t) {
                    Ok(b) => b,
                    Err(e) => {
                        eprintln!("{t}: cannot read: {e}");
                        return ExitCode::from(2);
                    }
                };
                match Tuning::read(&bytes, Format::of_path(t.as_ref())) {
                    Ok(tuning) => options.tuning = tuning,
                    Err(report) => {
                        eprint!("{}", report.render(t));
                        return ExitCode::from(2);
                    }
                }
                i += 1;
            }
            (arg, _) if file.is_none() && !arg.starts_with("--") => file = Some(PathBuf::from(arg)),
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
        i += 1;
    }
    let Some(file) = file else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
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
