//! Runs the contract's tests against an adoption file and prints the list.
//!
//! Designers run it as the `bevy-container` binary:
//!
//! ```text
//! cargo install --locked --path tools/bevy-container-cli
//! bevy-container audit assets/backpack.adoption.json --prose assets/design [--tuning FILE]
//! ```
//!
//! In a checkout, this example is the same command
//! (`bevy_container::cli::audit`):
//!
//! ```text
//! cargo run --example audit --features cli -- assets/backpack.adoption.json --prose assets/design [--tuning FILE]
//! ```
//!
//! Exits 0 when no test failed, 1 when one did, 2 when the file could not
//! be read or has errors.

use std::process::ExitCode;

fn main() -> ExitCode {
    bevy_container::cli::audit::run(std::env::args().skip(1))
}
