//! Hostile input everywhere the crate reads data: adoption files (JSON and
//! RON), tuning, saves, scenarios, occurrence lists, registries and holders
//! files. Nothing panics, nothing reads without bound, and every refusal
//! says what was wrong. The limits tested here are the ones in README.md.

use std::path::Path;

use bevy_container::adoption::{self, Context, Format, MAX_SLOTS, Tuning, source};
use bevy_container::occurrences::{Holders, read_occurrences, read_registry};
use bevy_container::save::SavedContents;
use bevy_container::scenario::Scenario;

type Reader = Box<dyn Fn(&[u8]) -> Result<(), String>>;

/// Every reader, with a valid sample of its input.
fn readers() -> Vec<(&'static str, Reader, Vec<u8>)> {
    let mut all = adoption_readers();
    all.extend(save_readers());
    all.extend(content_readers());
    all
}

/// Reads a sample file the crate ships, panicking if it is missing.
fn read_sample(p: &str) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

/// The adoption and tuning readers (JSON and RON), with valid samples.
fn adoption_readers() -> Vec<(&'static str, Reader, Vec<u8>)> {
    vec![
        (
            "adoption.json",
            Box::new(|b: &[u8]| {
                adoption::read(b, Format::Json, Context::default())
                    .map(drop)
                    .map_err(|r| r.to_string())
            }) as Reader,
            read_sample("assets/backpack.adoption.json"),
        ),
        (
            "adoption.ron",
            Box::new(|b: &[u8]| {
                adoption::read(b, Format::Ron, Context::default())
                    .map(drop)
                    .map_err(|r| r.to_string())
            }),
            read_sample("assets/backpack.adoption.ron"),
        ),
        (
            "tuning.json",
            Box::new(|b: &[u8]| {
                Tuning::read(b, Format::Json)
                    .map(drop)
                    .map_err(|r| r.to_string())
            }),
            br#"{"backpack-slots": 12, "stash-slots": 400}"#.to_vec(),
        ),
        (
            "tuning.ron",
            Box::new(|b: &[u8]| {
                Tuning::read(b, Format::Ron)
                    .map(drop)
                    .map_err(|r| r.to_string())
            }),
            br#"{"backpack-slots": 12}"#.to_vec(),
        ),
    ]
}

/// The save readers (JSON and RON), with a saved backpack as their sample.
fn save_readers() -> Vec<(&'static str, Reader, Vec<u8>)> {
    let save = {
        let bytes = read_sample("assets/backpack.adoption.json");
        let a = adoption::read(&bytes, Format::Json, Context::default()).unwrap();
        let rules = std::sync::Arc::new(
            bevy_container::rules::Rules::compile(&a, &Tuning::default()).unwrap(),
        );
        let mut c = bevy_container::contents::Contents::new(rules);
        c.deliver("berries", 30);
        c.deliver("axe", 1);
        c.save(&bevy_container::save::AdoptionId::of(
            "backpack.adoption.json",
            &bytes,
        ))
    };
    vec![
        (
            "save.json",
            Box::new(|b: &[u8]| {
                SavedContents::read(b, Format::Json)
                    .map(drop)
                    .map_err(|r| r.to_string())
            }) as Reader,
            save.to_json().into_bytes(),
        ),
        (
            "save.ron",
            Box::new(|b: &[u8]| {
                SavedContents::read(b, Format::Ron)
                    .map(drop)
                    .map_err(|r| r.to_string())
            }),
            save.to_ron().into_bytes(),
        ),
    ]
}

/// The scenario, occurrence-list, registry and holders readers, with valid samples.
fn content_readers() -> Vec<(&'static str, Reader, Vec<u8>)> {
    // one folder per call: the tests run in parallel
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = std::env::temp_dir().join(format!("hostile-holders-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    vec![
        (
            "scenario.json",
            Box::new(|b: &[u8]| {
                Scenario::parse(b, Path::new("tests/conformance"))
                    .and_then(|s| s.run())
                    .map(drop)
            }) as Reader,
            read_sample("tests/conformance/backpack-day-out.json"),
        ),
        (
            "occurrences.json",
            Box::new(|b: &[u8]| read_occurrences(b).map(drop).map_err(|p| format!("{p:?}"))),
            read_sample("assets/dnd/occurrences.json"),
        ),
        (
            "registry.json",
            Box::new(|b: &[u8]| read_registry(b).map(drop).map_err(|p| format!("{p:?}"))),
            read_sample("assets/dnd/registry.json"),
        ),
        (
            "holders.ron",
            Box::new(move |b: &[u8]| {
                let path = tmp.join("holders.ron");
                std::fs::write(&path, b).unwrap();
                Holders::read(&path).map(drop).map_err(|p| format!("{p:?}"))
            }),
            read_sample("assets/dnd/holders.ron"),
        ),
    ]
}

#[test]
fn every_reader_accepts_its_valid_sample() {
    for (name, reader, sample) in readers() {
        reader(&sample).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// Inputs no reader may accept, with a word its error must contain.
fn hostile() -> Vec<(&'static str, Vec<u8>, &'static [&'static str])> {
    let mut big = vec![b' '; 100 * 1024 * 1024];
    big.extend_from_slice(b"{}");
    vec![
        ("empty", Vec::new(), &[]),
        ("100 MB", big, &["bytes"]),
        ("deep arrays", "[".repeat(100_000).into_bytes(), &[]),
        ("deep objects", "{\"a\":".repeat(100_000).into_bytes(), &[]),
        ("deep RON", "(a:".repeat(100_000).into_bytes(), &[]),
        (
            "invalid UTF-8",
            b"{\"a\": \"\xc3\x28\"}".to_vec(),
            &["UTF-8"],
        ),
        ("a BOM then garbage", b"\xef\xbb\xbf\xff\xfe".to_vec(), &[]),
        (
            "duplicate keys",
            br#"{"contract": "container", "contract": "container"}"#.to_vec(),
            &["twice"],
        ),
        (
            "truncated",
            br#"{"contract": "container", "version": 1, "answers": {"#.to_vec(),
            &[],
        ),
        (
            "a number past u64",
            br#"{"format": 18446744073709551616123}"#.to_vec(),
            &[],
        ),
        ("a number past f64", br#"{"format": 1e400}"#.to_vec(), &[]),
        ("NaN in RON", b"(format: NaN, counter: inf)".to_vec(), &[]),
        (
            "a 10 MB string",
            format!("{{\"a\": \"{}\"}}", "x".repeat(10 * 1024 * 1024)).into_bytes(),
            &[],
        ),
        ("nul bytes", b"{\0\0\0}".to_vec(), &[]),
    ]
}

#[test]
fn hostile_input_is_refused_with_a_reason_and_never_panics() {
    let readers = readers();
    for (what, bytes, words) in hostile() {
        for (name, reader, _) in &readers {
            let err = match reader(&bytes) {
                Err(e) => e,
                Ok(()) => panic!("{name} accepted {what}"),
            };
            assert!(!err.is_empty(), "{name}: {what}: an empty error");
            for w in words.iter() {
                assert!(
                    err.contains(w),
                    "{name}: {what}: the error should say {w:?}: {err}"
                );
            }
        }
    }
}

#[test]
fn mutated_valid_files_never_panic() {
    let mut state = 0x5EED_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (name, reader, sample) in readers() {
        let cases = if name == "scenario.json" { 150 } else { 400 };
        for _ in 0..cases {
            let mut b = sample.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % b.len().max(1);
                match next() % 5 {
                    0 => b[at] = next() as u8,
                    1 => {
                        b.remove(at);
                    }
                    2 => b.insert(at, b"{}[]\",:()0-9.eE\\"[(next() % 16) as usize]),
                    3 => b.truncate(at),
                    _ => {
                        let digits = b"99999999999999999999999";
                        b.splice(at..at, digits.iter().copied());
                    }
                }
                if b.is_empty() {
                    break;
                }
            }
            // Ok or Err are both fine; a panic fails the test
            let _ = reader(&b);
        }
    }
}

#[test]
fn amounts_at_u32_max_are_exact_and_one_more_is_refused() {
    let scenario = |amount: u64| {
        format!(
            r#"{{"adoption": {{"contract": "container", "version": 1,
                "answers": {{"capacity-limit": "size-budget", "partial-acceptance": "fill-what-fits",
                            "leftover-destination": "destroyed", "draw-order": "first-in-order",
                            "type-restriction": "only-these"}},
                "values": {{"slot-count": 0, "size-budget": 1}},
                "rows": {{"items": [{{"id": "dust", "size": 0, "when-forced-out": "destroyed", "forced-out-order": 1}}]}}}},
              "steps": [{{"op": "deliver", "item": "dust", "amount": {amount}}},
                        {{"op": "deliver", "item": "dust", "amount": {amount}}},
                        {{"op": "take", "item": "dust", "amount": {amount}}}]}}"#
        )
    };
    let lines = Scenario::parse(scenario(u64::from(u32::MAX)).as_bytes(), Path::new("."))
        .unwrap()
        .run()
        .unwrap();
    assert_eq!(lines[0]["accepted"], u32::MAX);
    assert_eq!(lines[1]["accepted"], 0, "a holding never passes u32::MAX");
    assert_eq!(lines[1]["leftover"]["amount"], u32::MAX);
    assert_eq!(lines[2]["taken"], u32::MAX);
    let err =
        Scenario::parse(scenario(u64::from(u32::MAX) + 1).as_bytes(), Path::new(".")).unwrap_err();
    assert!(err.contains("amount"), "{err}");
}

#[test]
fn the_documented_limits_hold() {
    // file size: the limit itself reads, one byte more does not
    let mut at_limit = vec![b' '; source::MAX_FILE_BYTES - 2];
    at_limit.splice(0..0, b"{}".iter().copied());
    assert!(source::parse(&at_limit, Format::Json).is_ok());
    at_limit.push(b' ');
    let r = source::parse(&at_limit, Format::Json).unwrap_err();
    assert!(
        r.to_string().contains(&source::MAX_FILE_BYTES.to_string()),
        "{r}"
    );
    // nesting: 100 levels read, past the limit does not
    let nested = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    assert!(source::parse(nested(100).as_bytes(), Format::Json).is_ok());
    assert!(source::parse(nested(source::MAX_DEPTH + 10).as_bytes(), Format::Json).is_err());
    assert!(source::parse(nested(100).as_bytes(), Format::Ron).is_ok());
    assert!(source::parse(nested(source::MAX_DEPTH + 10).as_bytes(), Format::Ron).is_err());
    // slots: a save past the ceiling is refused by name
    let save = format!(
        r#"{{"format": 1, "adoption": {{"path": "x", "hash": "sha256:{}"}}, "resized": false, "slot-count": 1,
            "size-budget": "0", "counter": 0, "slots": [{}null], "holdings": [], "rows": []}}"#,
        "0".repeat(64),
        "null,".repeat(MAX_SLOTS as usize)
    );
    let r = SavedContents::read(save.as_bytes(), Format::Json).unwrap_err();
    assert!(r.at("/slots").is_some(), "{r}");
}
