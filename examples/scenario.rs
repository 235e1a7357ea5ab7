//! The scenario runner of the guide's [`guide::scenarios`](crate::guide::scenarios) chapter: replays a scenario file's
//! requests against one container and prints one JSON line per step.
//!
//! ```text
//! cargo run --example scenario --all-features -- FILE.json
//! cargo run --example scenario --all-features -- --ecs FILE.json
//! ```
//!
//! Designers run the same runner as the `bevy-container` binary
//! (`cargo install --locked --path tools/bevy-container-cli`, with
//! `--features replicon` for `--replicon` and `scene` for
//! `--through-scene`): `bevy-container scenario [--ecs] FILE.json`. This example
//! calls it (`bevy_container::cli::scenario`) and is built with every mode.
//!
//! With `--ecs` the steps go through the Bevy plugin in a headless `App`
//! (requests as messages, one `app.update()` per frame) and print the same
//! lines; world scenarios (several containers), whose leftovers settle in a
//! world, always run through the plugin. With
//! `--ecs --through-scene` the whole world is saved as a `DynamicWorld` and
//! read into a fresh app before every frame. With `--ecs --replicon` a
//! server app and a client app run in one process: the client sends every
//! step a player could (deliveries are the server's), reads the outcome
//! from the server's answer, and its replicated view must equal the
//! server's after every frame. Any other flag
//! is refused, so a mode that does not exist never runs as another.
//!
//! Exits 0 after printing every step; 2 with a message on stderr when the
//! scenario file itself is malformed.

use std::process::ExitCode;

fn main() -> ExitCode {
    bevy_container::cli::scenario::run(std::env::args().skip(1))
}
