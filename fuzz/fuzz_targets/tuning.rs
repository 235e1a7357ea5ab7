//! A tuning table's bytes, JSON or RON (the first byte chooses), read and
//! then used to compile the seed backpack. What must hold: no panic; a
//! refusal names a path for every problem but the whole-file ones; what
//! reads holds only finite numbers within 10^15, and compiling the seed
//! under it gives rules or a report that says why.
#![no_main]

use std::sync::OnceLock;

use bevy_container::adoption::{self, Adoption, Format, Tuning};
use bevy_container::rules::Rules;
use libfuzzer_sys::fuzz_target;

mod common;

fn seed() -> &'static Adoption {
    static SEED: OnceLock<Adoption> = OnceLock::new();
    SEED.get_or_init(|| {
        let bytes = include_bytes!("../../assets/backpack.adoption.json");
        adoption::read(bytes, Format::Json, Default::default()).expect("the seed reads")
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((format, bytes)) = common::format_first(data) else {
        return;
    };
    match Tuning::read(bytes, format) {
        Ok(tuning) => {
            for (key, &value) in &tuning.values {
                assert!(value.is_finite(), "{key} is {value}");
                assert!(value.abs() <= 1e15, "{key} is {value}");
            }
            if let Err(report) = Rules::compile(seed(), &tuning) {
                assert!(!report.to_string().is_empty(), "a refusal says why");
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
