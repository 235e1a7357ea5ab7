//! An occurrence list, an item registry and a holders file (three parts
//! of the input, split at 0xFF bytes) read, checked against each other
//! and replayed into the sample campaign's containers. What must hold: no
//! panic; every refusal names at least one problem with a message; a
//! replay gives one line per occurrence and renders.
#![no_main]

use std::path::{Path, PathBuf};

use bevy_container::occurrences::{self, Holders};
use libfuzzer_sys::fuzz_target;

fn dnd() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/dnd")).to_path_buf()
}

/// The holders file may name only the campaign's own adoption files: a
/// fuzzed path could name a device that never ends.
fn known(path: &Path) -> bool {
    let dir = dnd();
    [
        "party-pack.adoption.ron",
        "bram-belt.adoption.ron",
        "camp-chest.adoption.ron",
    ]
    .iter()
    .any(|f| path == dir.join(f))
}

fn refused(problems: &[occurrences::InputProblem]) {
    assert!(!problems.is_empty(), "a refusal says why");
    for p in problems {
        assert!(!p.message.is_empty());
    }
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0xFF);
    let (list, registry, holders) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    let list = match occurrences::read_occurrences(list) {
        Ok(list) => list,
        Err(p) => return refused(&p),
    };
    match occurrences::read_registry(registry) {
        Ok(registry) => {
            for p in occurrences::ground(&list, &registry) {
                assert!(p.path.starts_with("/occurrences/"), "{p:?}");
            }
        }
        Err(p) => refused(&p),
    }
    let holders = match Holders::parse(holders, &dnd()) {
        Ok(h) => h,
        Err(p) => return refused(&p),
    };
    if !holders.holders.values().all(|p| known(p)) {
        return;
    }
    match occurrences::replay(&list, &holders) {
        Ok(replay) => {
            assert_eq!(replay.lines.len(), list.len(), "one line per occurrence");
            assert!(!replay.render().is_empty());
        }
        Err(p) => refused(&p),
    }
});
