//! Unit tests of `props`.

use super::*;

#[test]
fn canonical_text_sorts_keys_and_prints_numbers_plainly() {
    let p = Props::new([
        ("name", PropValue::from("Ilsa's letter")),
        ("durability", PropValue::Number("37.0".parse().unwrap())),
        ("weight", PropValue::Number("0.000001".parse().unwrap())),
        ("zero", PropValue::Number("-0".parse().unwrap())),
        ("ok", PropValue::from(true)),
    ])
    .unwrap();
    assert_eq!(
        p.canonical(),
        r#"{"durability":37,"name":"Ilsa's letter","ok":true,"weight":0.000001,"zero":0}"#
    );
    assert_eq!(Props::parse(p.canonical()).unwrap(), p);
}

#[test]
fn limits_are_refused_with_the_key() {
    let long = "x".repeat(MAX_TEXT_BYTES + 1);
    let e = Props::new([("note", long.as_str())]).unwrap_err();
    assert_eq!(e.key(), Some("note"));
    assert!(matches!(
        Props::new([("Bad", 1)]),
        Err(PropsError::BadKey { .. })
    ));
    let k = "k".repeat(MAX_KEY_BYTES + 1);
    assert!(Props::new([(k.as_str(), 1)]).is_err());
    let many: Vec<(String, i32)> = (0..17).map(|i| (format!("k{i}"), i)).collect();
    assert!(matches!(Props::new(many), Err(PropsError::TooMany { .. })));
    assert!(matches!(
        Props::parse(r#"{"a":1,"a":2}"#),
        Err(PropsError::DuplicateKey { .. })
    ));
    assert!(Props::parse(r#"{"a":1e16}"#).is_err());
    assert!(Props::parse(r#"{"a":-1e16}"#).is_err());
    assert!(Props::parse(r#"{"a":0.0000001}"#).is_err());
    assert!(Props::parse(r#"{"a":null}"#).is_err());
    assert!(Props::parse(r#"{"a":{"b":1}}"#).is_err());
    assert!(Props::parse(r#"{"a":1} x"#).is_err());
    assert!(Props::parse(r#"{"a":"\ud800"}"#).is_err());
    assert!(Props::parse(&"{".repeat(100_000)).is_err());
}

#[test]
fn equality_and_order_follow_the_canonical_text() {
    let a = Props::new([("quality", 3)]).unwrap();
    let b = Props::parse(r#"{"quality":3.000}"#).unwrap();
    assert_eq!(a, b);
    let c = Props::new([("quality", 10)]).unwrap();
    // by bytes: "1" < "3"
    assert!(c < a);
    assert!(Props::EMPTY < c);
    let json = serde_json::to_string(&a).unwrap();
    assert_eq!(json, r#""{\"quality\":3}""#);
    assert_eq!(serde_json::from_str::<Props>(&json).unwrap(), a);
    let ron = ron::to_string(&a).unwrap();
    assert_eq!(ron::from_str::<Props>(&ron).unwrap(), a);
}

#[test]
fn from_json_reads_a_tree_and_names_the_key() {
    let v: serde_json::Value = serde_json::from_str(r#"{"to":"Ilsa","n":2.0}"#).unwrap();
    assert_eq!(
        Props::from_json(&v).unwrap().canonical(),
        r#"{"n":2,"to":"Ilsa"}"#
    );
    let v: serde_json::Value = serde_json::from_str(r#"{"to":["Ilsa"]}"#).unwrap();
    assert_eq!(Props::from_json(&v).unwrap_err().key(), Some("to"));
    assert_eq!(
        Props::from_json(&serde_json::json!({})).unwrap(),
        Props::EMPTY
    );
}

#[test]
fn a_props_is_one_word() {
    assert_eq!(std::mem::size_of::<Props>(), 8);
}
