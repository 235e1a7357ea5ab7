//! `bevy-container`: the designers' command-line tool (feature `cli`):
//! `validate`, `audit`, `replay` and `scenario`, without a game or a window.
//! `bevy-container help` lists the commands; see [`bevy_container::cli`].

use std::process::ExitCode;

fn main() -> ExitCode {
    bevy_container::cli::run(std::env::args().skip(1))
}
