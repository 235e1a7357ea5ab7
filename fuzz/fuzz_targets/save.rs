//! A save's bytes read and loaded under the seed backpack's rules. What
//! must hold: no panic; a refusal names a path; a save that reads and
//! loads saves again to text that reads to the same save.
#![no_main]

use std::sync::{Arc, OnceLock};

use bevy_container::adoption::{self, Format, Tuning};
use bevy_container::contents::Contents;
use bevy_container::rules::Rules;
use bevy_container::save::{AdoptionId, SavedContents};
use libfuzzer_sys::fuzz_target;

mod common;

fn seed() -> &'static (Arc<Rules>, AdoptionId) {
    static SEED: OnceLock<(Arc<Rules>, AdoptionId)> = OnceLock::new();
    SEED.get_or_init(|| {
        let bytes = include_bytes!("../../assets/backpack.adoption.json");
        let a = adoption::read(bytes, Format::Json, Default::default()).expect("the seed reads");
        let rules = Rules::compile(&a, &Tuning::default()).expect("the seed compiles");
        (
            Arc::new(rules),
            AdoptionId::of("backpack.adoption.json", bytes),
        )
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((format, bytes)) = common::format_first(data) else {
        return;
    };
    let saved = match SavedContents::read(bytes, format) {
        Ok(s) => s,
        Err(report) => {
            assert!(!report.problems.is_empty());
            return;
        }
    };
    let (rules, id) = seed();
    if let Ok(loaded) = Contents::load(rules.clone(), None, &saved, id) {
        let text = loaded.contents.save(id).to_json();
        let again = SavedContents::read(text.as_bytes(), Format::Json).expect("a save reads back");
        assert_eq!(again.to_json(), text, "a save round-trips to the same text");
    }
});
