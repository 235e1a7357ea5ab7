//! `bevy-container`, the designers' command-line tool: `validate`, `audit`,
//! `replay` and `scenario`, without a game or a window. The same tool as
//! bevy_container's own `bevy-container` binary (feature `cli`), built
//! without the crate's default features, so it builds no window, image or
//! GPU-data crate. `bevy-container help` lists the commands; see
//! `bevy_container::cli`.

use std::process::ExitCode;

fn main() -> ExitCode {
    bevy_container::cli::run(std::env::args().skip(1))
}
