//! Adoption bytes, JSON or RON (the first byte chooses), through read,
//! validate and compile. What must hold: no panic; a refusal is a report
//! whose every problem has a message; what reads compiles or refuses with
//! a message.
#![no_main]

use bevy_container::adoption::{self, Tuning};
use bevy_container::rules::Rules;
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    let Some((format, bytes)) = common::format_first(data) else {
        return;
    };
    match adoption::read(bytes, format, Default::default()) {
        Ok(a) => {
            if let Err(e) = Rules::compile(&a, &Tuning::default()) {
                assert!(!e.to_string().is_empty());
            }
        }
        Err(report) => {
            assert!(!report.problems.is_empty(), "a refusal says why");
            for p in &report.problems {
                assert!(!p.message.is_empty());
            }
        }
    }
});
