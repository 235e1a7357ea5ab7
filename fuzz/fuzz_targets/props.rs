//! Item properties from untrusted text: `Props::parse` (saves, scenes, the
//! replication wire) and `Props::from_json` (scenario files). What must
//! hold: no panic; a refusal names its key when it has one; what reads is
//! within every limit and its canonical text reads back to the same map,
//! byte for byte.
#![no_main]

use bevy_container::props::{MAX_KEY_BYTES, MAX_PROPS, MAX_TEXT_BYTES, PropValue, Props};
use libfuzzer_sys::fuzz_target;

fn check(p: &Props) {
    assert!(p.len() <= MAX_PROPS);
    for (k, v) in p.iter() {
        assert!(!k.is_empty() && k.len() <= MAX_KEY_BYTES, "{k:?}");
        if let PropValue::Text(t) = v {
            assert!(t.len() <= MAX_TEXT_BYTES);
        }
    }
    let again = Props::parse(p.canonical()).expect("canonical text reads back");
    assert_eq!(&again, p);
    assert_eq!(again.canonical(), p.canonical());
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Props::parse(text) {
        Ok(p) => check(&p),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        match Props::from_json(&v) {
            Ok(p) => check(&p),
            Err(e) => {
                if let Some(k) = e.key() {
                    assert!(
                        v.as_object().is_some_and(|o| o
                            .keys()
                            .any(|x| x.starts_with(&k[..k.len().min(80)]))),
                        "{e}"
                    );
                }
            }
        }
    }
});
