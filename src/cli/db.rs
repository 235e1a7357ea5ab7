//! `bevy-container db`: the operator's commands on a shared PostgreSQL
//! database (features `cli` and `postgres`).
//!
//! ```text
//! bevy-container db status URL
//! bevy-container db audit URL
//! bevy-container db claim URL --from GONE --to TAKER
//! bevy-container db register URL SERVER
//! ```

use std::process::ExitCode;

use crate::persist::ServerId;
use crate::persist::operator::{self, Counts};

/// What `bevy-container db` prints on a wrong call.
pub const USAGE: &str = "\
usage: bevy-container db status URL
       bevy-container db audit URL
       bevy-container db claim URL --from GONE --to TAKER
       bevy-container db register URL SERVER
";

/// Runs `db`: `args` are the arguments after `db`. Exits 0 when done, 1
/// when the audit found a bad row or the database refused, 2 on a wrong
/// call.
///
/// ```no_run
/// # use bevy_container::cli;
/// let code = cli::db::run(["status".into(), "postgresql:///world".into()]);
/// ```
pub fn run(args: impl IntoIterator<Item = String>) -> ExitCode {
    let args: Vec<String> = args.into_iter().collect();
    let strs: Vec<&str> = args.iter().map(String::as_str).collect();
    let outcome = match strs.as_slice() {
        ["status", url] => status(url),
        ["audit", url] => audit(url),
        ["claim", url, rest @ ..] => match (flag(rest, "--from"), flag(rest, "--to")) {
            (Some(from), Some(to)) if rest.len() == 4 => claim(url, from, to),
            _ => return wrong("claim needs --from GONE --to TAKER"),
        },
        ["register", url, id] => register(url, id),
        _ => return wrong("unknown or incomplete db command"),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("bevy-container db: {e}");
            ExitCode::from(1)
        }
    }
}

fn wrong(why: &str) -> ExitCode {
    eprint!("bevy-container db: {why}\n\n{USAGE}");
    ExitCode::from(2)
}

/// The value after `name` in `args`.
fn flag<'a>(args: &[&'a str], name: &str) -> Option<&'a str> {
    args.windows(2).find(|w| w[0] == name).map(|w| w[1])
}

type Done = Result<ExitCode, crate::persist::DatabaseError>;

fn status(url: &str) -> Done {
    let s = operator::status(url)?;
    println!("schema version {}", s.schema);
    println!("server            frame  generation  containers  pickups  running");
    for v in &s.servers {
        println!(
            "{:<16} {:>6}  {:>10}  {:>10}  {:>7}  {}",
            v.id,
            v.frame,
            v.generation,
            v.containers,
            v.pickups,
            if v.running { "yes" } else { "no" }
        );
    }
    println!("mail in flight: {}", s.mail);
    println!("hand-overs in flight: {}", s.handovers);
    for (id, owner) in &s.orphans {
        println!("orphan: {id} owned by unknown server \"{owner}\"");
    }
    Ok(ExitCode::SUCCESS)
}

fn print_counts(what: &str, counts: &Counts) {
    let line: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
    println!(
        "{what}: {}",
        if line.is_empty() {
            "none".into()
        } else {
            line.join(", ")
        }
    );
}

fn audit(url: &str) -> Done {
    let a = operator::audit(url)?;
    print_counts("in containers", &a.containers);
    print_counts("in loose pickups", &a.pickups);
    print_counts("in flight as mail", &a.mail);
    print_counts("total", &a.totals());
    for p in &a.problems {
        println!("problem: {p}");
    }
    if a.problems.is_empty() {
        println!("every row reads");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{} problems", a.problems.len());
        Ok(ExitCode::from(1))
    }
}

fn claim(url: &str, from: &str, to: &str) -> Done {
    let c = operator::claim(url, &ServerId::new(from), &ServerId::new(to))?;
    println!(
        "{to} took over {} containers and {} pickups of {from}",
        c.containers, c.pickups
    );
    Ok(ExitCode::SUCCESS)
}

fn register(url: &str, id: &str) -> Done {
    let new = operator::register(url, &ServerId::new(id))?;
    println!(
        "{id} {}",
        if new {
            "registered"
        } else {
            "was already known"
        }
    );
    Ok(ExitCode::SUCCESS)
}
