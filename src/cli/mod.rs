//! The designers' command-line tool: the `bevy-container` binary (feature
//! `cli`), which checks adoption files, audits them, replays D&D
//! item-occurrence lists and runs scenario files without a game.
//!
//! ```text
//! # from a checkout: the tool crate, with the engine only
//! cargo install --locked --path tools/bevy-container-cli
//! # once bevy_container is published: cargo install bevy_container --features cli
//!
//! bevy-container validate FILE... [--tuning FILE] [--prose DIR]
//! bevy-container audit FILE [--prose DIR] [--tuning FILE]
//! bevy-container replay OCCURRENCES.json --registry REGISTRY.json --holders HOLDERS.ron [--json]
//! bevy-container scenario [--ecs [--through-scene | --replicon]] FILE.json
//! bevy-container help
//! ```
//!
//! The binary's dependency tree has no windowed or network crate: no
//! winit, wgpu, renderer (`bevy_render`, `bevy_winit`), egui or renet, and
//! none of the crate's dev-dependencies; Bevy is built headless, as the
//! library is (`tests/cli.rs` checks this with `cargo tree`). The tool
//! crate `tools/bevy-container-cli` builds the library without its default
//! features: no `bevy_window`, `bevy_image`, `image` or `wgpu-types`
//! either, which the default `scene` feature brings (Bevy's camera and
//! image types; no GPU backend). `scenario --ecs --through-scene` needs
//! `scene` (`cargo install --path tools/bevy-container-cli --features
//! scene`), and `scenario --ecs --replicon` needs `replicon`, which adds
//! bevy_replicon (no transport).
//!
//! Each command is a module whose `run` takes the arguments after the
//! command's name and returns the exit code; the examples of the same
//! names (`cargo run --example validate --features cli -- FILE`) call them.

pub mod audit;
#[cfg(feature = "postgres")]
pub mod db;
pub mod replay;
pub mod scenario;
pub mod validate;

use std::process::ExitCode;

/// What `bevy-container help` prints: every command with its arguments.
pub const USAGE: &str = "\
usage: bevy-container COMMAND [ARGS...]

commands:
  validate FILE... [--tuning FILE] [--prose DIR]
      check adoption files and print every problem with its path and fix;
      exits 1 when a file has errors, 2 when one cannot be read
  audit FILE [--prose DIR] [--tuning FILE]
      run the contract's tests against an adoption file; exits 1 when one
      failed, 2 when the file cannot be read or has errors
  replay OCCURRENCES.json --registry REGISTRY.json --holders HOLDERS.ron [--json]
      replay a D&D item-occurrence list into containers and list the rules
      the story broke; exits 1 when the input is rejected
  scenario [--ecs [--through-scene | --replicon]] FILE.json
      run a scenario file through the engine (or with --ecs the plugin) and
      print one JSON line per step; exits 2 when the file is malformed
  db status URL | db audit URL | db claim URL --from GONE --to TAKER | db register URL SERVER
      a shared PostgreSQL database, for its operator (feature postgres):
      its servers, every row checked and items totalled per kind (exits 1
      on a bad row), a gone server's rows claimed, a server registered
  help
      print this
";

/// The commands, as an unknown command's message lists them.
pub const COMMANDS: [&str; 6] = ["validate", "audit", "replay", "scenario", "db", "help"];

/// Runs one command: `args` are the arguments after the program's name, the
/// first of them the command (`validate`, `audit`, `replay`, `scenario` or
/// `help`). `help`, `--help` and `-h` print [`USAGE`] and exit 0; no
/// command, or one that does not exist, exits 2 with a message on stderr.
///
/// ```no_run
/// # use bevy_container::cli;
/// let code = cli::run(["validate".to_string(), "assets/backpack.adoption.json".to_string()]);
/// ```
pub fn run(args: impl IntoIterator<Item = String>) -> ExitCode {
    let mut args = args.into_iter();
    let Some(command) = args.next() else {
        eprint!("bevy-container: no command given\n\n{USAGE}");
        return ExitCode::from(2);
    };
    match command.as_str() {
        "validate" => validate::run(args),
        "audit" => audit::run(args),
        "replay" => replay::run(args),
        "scenario" => scenario::run(args),
        #[cfg(feature = "postgres")]
        "db" => db::run(args),
        #[cfg(not(feature = "postgres"))]
        "db" => {
            eprintln!(
                "bevy-container: `db` needs the feature postgres (cargo install --path tools/bevy-container-cli --features postgres)"
            );
            ExitCode::from(2)
        }
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        other => {
            eprintln!(
                "bevy-container: unknown command `{other}`; the commands are {} (`bevy-container help` lists their arguments)",
                COMMANDS.join(", ")
            );
            ExitCode::from(2)
        }
    }
}
