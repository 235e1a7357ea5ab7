//! Replays a D&D item-occurrence list (`notarius_dnd_item_occurrences_v1`)
//! into containers and reports the inventory it implies and every rule the
//! story broke.
//!
//! Designers run it as the `bevy-container` binary:
//!
//! ```text
//! cargo install --locked --path tools/bevy-container-cli
//! bevy-container replay assets/dnd/occurrences.json \
//!     --registry assets/dnd/registry.json --holders assets/dnd/holders.ron [--json]
//! ```
//!
//! In a checkout, this example is the same command
//! (`bevy_container::cli::replay`):
//!
//! ```text
//! cargo run --example replay --features cli -- assets/dnd/occurrences.json \
//!     --registry assets/dnd/registry.json --holders assets/dnd/holders.ron [--json]
//! ```
//!
//! Exits 0 when the replay ran (even if the story broke rules), 1 when the
//! input was rejected, 2 on bad arguments.

use std::process::ExitCode;

fn main() -> ExitCode {
    bevy_container::cli::replay::run(std::env::args().skip(1))
}
