//! An item catalog's bytes, JSON or RON (the first byte chooses), read
//! strictly. What must hold: no panic; a refusal names problems with
//! messages; every look of a catalog that reads shows items with
//! properties: one tooltip line per property, a bar between 0 and 1.
#![no_main]

use std::sync::OnceLock;

use bevy_container::props::Props;
use bevy_container::ui::ItemCatalog;
use libfuzzer_sys::fuzz_target;

mod common;

fn samples() -> &'static [Props] {
    static SAMPLES: OnceLock<Vec<Props>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        [
            "{}",
            r#"{"durability":30}"#,
            r#"{"durability":-3,"to":"the miller","sealed":true}"#,
            r#"{"weight":999999999999999.999999,"quality":0.5}"#,
        ]
        .iter()
        .map(|t| Props::parse(t).expect("a sample reads"))
        .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((format, bytes)) = common::format_first(data) else {
        return;
    };
    match ItemCatalog::read(bytes, format) {
        Ok(catalog) => {
            for (id, look) in catalog.iter() {
                assert!(!id.is_empty());
                for props in samples() {
                    assert!(
                        look.prop_lines(props).len() >= props.len(),
                        "{id}: a line per property"
                    );
                    if let Some(fill) = look.bar(props) {
                        assert!((0.0..=1.0).contains(&fill), "{id}: bar {fill}");
                    }
                }
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
