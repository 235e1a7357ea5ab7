//! Thousands of seeded random mutations of the seed adoption (bytes, values,
//! types, deletions, deep nesting, huge numbers): reading never panics and
//! always ends in a report, and whatever reads clean compiles and runs.

mod common;

use common::Rng;

use std::sync::Arc;

use bevy_container::adoption::{self, Context, Format, Tuning};
use bevy_container::contents::Contents;
use bevy_container::rules::Rules;
use serde_json::{Value, json};

fn seed_bytes() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/backpack.adoption.json"
    ))
    .unwrap()
}

/// Reads, and when clean compiles and exercises, one candidate file.
fn exercise(bytes: &[u8], format: Format) -> Result<(), String> {
    let (report, adoption) = adoption::check(bytes, format, Context::default());
    match (&adoption, report.has_errors()) {
        (Some(_), true) => return Err(format!("an adoption came back with errors: {report}")),
        (None, false) => return Err(format!("no adoption and no error: {report}")),
        _ => {}
    }
    for p in &report.problems {
        if p.message.is_empty() {
            return Err("a problem without a message".into());
        }
    }
    if let Some(a) = adoption
        && let Ok(rules) = Rules::compile(&a, &Tuning::default())
    {
        let mut c = Contents::new(Arc::new(rules));
        for item in ["berries", "axe", "letter", "flint"] {
            c.deliver(item, 25);
            c.deliver(item, u32::MAX);
            c.take(item, 3);
        }
        c.resize(Some(3), None);
        c.sort(&[]);
        c.owner_gone();
    }
    Ok(())
}

fn random_value(rng: &mut Rng) -> Value {
    match rng.below(16) {
        0 => json!(1e308),
        1 => json!(-1),
        2 => json!(0),
        3 => json!(1.5),
        4 => json!(4_294_967_296u64),
        5 => serde_json::from_str("18446744073709551616").unwrap(),
        6 => json!(""),
        7 => json!("Not Kebab"),
        8 => Value::Null,
        9 => json!(true),
        10 => json!([]),
        11 => json!({}),
        12 => {
            let mut v = json!(1);
            for _ in 0..100 {
                v = json!([v]);
            }
            v
        }
        13 => json!("x".repeat(10_000)),
        14 => json!({"tuning": "no-such-key"}),
        _ => json!(0.0000001),
    }
}

/// Every path to a node of the tree.
fn paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                at.push(k.clone());
                paths(c, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                at.push(i.to_string());
                paths(c, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn node<'a>(v: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    let mut cur = v;
    for seg in path {
        cur = match cur {
            Value::Object(m) => m.get_mut(seg)?,
            Value::Array(a) => a.get_mut(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

#[test]
fn byte_mutations_never_panic() {
    let seed = seed_bytes();
    let mut rng = Rng(0x5EED_0001);
    for i in 0..3000 {
        let mut b = seed.clone();
        for _ in 0..=rng.below(3) {
            let at = rng.below(b.len());
            match rng.below(5) {
                0 => b[at] = rng.next() as u8,
                1 => {
                    let end = (at + rng.below(200)).min(b.len());
                    b.drain(at..end);
                }
                2 => {
                    let end = (at + rng.below(200)).min(b.len());
                    let copy = b[at..end].to_vec();
                    b.splice(at..at, copy);
                }
                3 => {
                    let depth = 1 + rng.below(400);
                    let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
                    b.splice(at..at, deep.into_bytes());
                }
                _ => {
                    let digits = "9".repeat(1 + rng.below(400));
                    b.splice(at..at, digits.into_bytes());
                }
            }
            if b.is_empty() {
                break;
            }
        }
        exercise(&b, Format::Json).unwrap_or_else(|e| panic!("mutation {i}: {e}"));
        exercise(&b, Format::Ron).unwrap_or_else(|e| panic!("mutation {i} as RON: {e}"));
    }
}

#[test]
fn value_mutations_always_end_in_a_report() {
    let seed: Value = serde_json::from_slice(&seed_bytes()).unwrap();
    let mut all = Vec::new();
    paths(&seed, &mut Vec::new(), &mut all);
    // the answers, values, rows and verification are where designers edit
    let editable: Vec<Vec<String>> = all
        .into_iter()
        .filter(|p| {
            p.first().is_some_and(|k| {
                [
                    "answers",
                    "values",
                    "rows",
                    "verification",
                    "contract",
                    "version",
                    "pack",
                ]
                .contains(&k.as_str())
            }) || p.len() == 1
        })
        .collect();
    let mut rng = Rng(0x5EED_0002);
    let mut clean = 0;
    for i in 0..3000 {
        let mut v = seed.clone();
        for _ in 0..=rng.below(3) {
            let path = editable[rng.below(editable.len())].clone();
            if rng.below(4) == 0 && !path.is_empty() {
                let (last, parent) = path.split_last().unwrap();
                match node(&mut v, parent) {
                    Some(Value::Object(m)) => {
                        m.shift_remove(last);
                    }
                    Some(Value::Array(a)) => {
                        if let Ok(i) = last.parse::<usize>()
                            && i < a.len()
                        {
                            a.remove(i);
                        }
                    }
                    _ => {}
                }
            } else if let Some(n) = node(&mut v, &path) {
                *n = random_value(&mut rng);
            }
        }
        let bytes = serde_json::to_vec(&v).unwrap();
        let (report, _) = adoption::check(&bytes, Format::Json, Context::default());
        if !report.has_errors() {
            clean += 1;
        }
        exercise(&bytes, Format::Json).unwrap_or_else(|e| panic!("mutation {i}: {e}\n{v}"));
    }
    assert!(clean < 3000, "mutations must break something");
}
