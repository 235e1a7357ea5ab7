//! Validates adoption files and prints every problem like a compiler.
//!
//! Designers run it as the `bevy-container` binary, which builds no window,
//! renderer or network crate:
//!
//! ```text
//! cargo install --locked --path tools/bevy-container-cli
//! bevy-container validate assets/backpack.adoption.json [MORE FILES...] [--tuning FILE] [--prose DIR]
//! ```
//!
//! In a checkout, this example is the same command
//! (`bevy_container::cli::validate`):
//!
//! ```text
//! cargo run --example validate --features cli -- assets/backpack.adoption.json [--tuning FILE] [--prose DIR]
//! ```
//!
//! Exits 0 when no file has errors, 1 when one has, 2 when a file could
//! not be read (2 wins over 1). Warnings never fail it.

use std::process::ExitCode;

fn main() -> ExitCode {
    bevy_container::cli::validate::run(std::env::args().skip(1))
}
