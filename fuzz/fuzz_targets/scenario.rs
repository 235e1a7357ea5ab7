//! A scenario file's bytes read and, when it reads, run through the
//! engine. What must hold: no panic; a refusal is a message; a run prints
//! one line per step.
#![no_main]

use bevy_container::scenario::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets"));
    match Scenario::parse(data, dir) {
        Ok(s) if !s.world && s.steps.len() <= 200 => {
            if let Ok(lines) = s.run() {
                assert_eq!(lines.len(), s.steps.len());
            }
        }
        Ok(_) => {}
        Err(e) => assert!(!e.is_empty()),
    }
});
