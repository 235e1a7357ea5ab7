//! The container-1 contract text this crate implements.
//!
//! The text ships inside the crate (`container-1.json`, taken verbatim from
//! the authoring tool's export). Validation is driven by it: the questions,
//! their options and `when` conditions, the declared values, the row record
//! schema and the rules all come from this text, not from code that copies
//! them.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::Value;

/// The embedded contract text, as exported by the authoring tool.
pub const CONTAINER_1_JSON: &str = include_str!("container-1.json");

/// The contract text's fields that an adoption file may embed.
pub const TEXT_FIELDS: [&str; 7] = [
    "origin",
    "summary",
    "mechanism",
    "questions",
    "declares",
    "rules",
    "pack",
];

/// A `when` condition of a question or a record field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum When {
    /// Always holds.
    Always,
    /// Holds when question `question`'s answer is one of `options`.
    Flag {
        /// The question.
        question: String,
        /// The answers for which it holds.
        options: Vec<String>,
    },
    /// Holds when the same row's `field` is one of `options`.
    Row {
        /// The row field.
        field: String,
        /// The values for which it holds.
        options: Vec<String>,
    },
}

/// One question of the contract.
#[derive(Clone, Debug)]
pub struct Question {
    /// The question's key (`fill-order`).
    pub key: String,
    /// What it asks.
    pub asks: String,
    /// Its options, in the contract's order.
    pub options: Vec<String>,
    /// When it must be answered.
    pub when: When,
}

/// The type of a record field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// A string.
    String,
    /// A whole number.
    Integer,
    /// Any number.
    Number,
    /// A `path#anchor` citation.
    Citation,
}

/// One field of a row record.
#[derive(Clone, Debug)]
pub struct Field {
    /// The field's key (`stack-limit`).
    pub key: String,
    /// Its type.
    pub ty: FieldType,
    /// Required regardless of `when`.
    pub required: bool,
    /// Must be kebab-case.
    pub kebab: bool,
    /// Must differ across rows.
    pub unique: bool,
    /// Allowed values, when restricted.
    pub options: Option<Vec<String>>,
    /// When the field applies (and is then required).
    pub when: When,
    /// What the field means, from the contract text.
    pub description: String,
}

/// A declared row list and its record.
#[derive(Clone, Debug)]
pub struct RowList {
    /// The list's key (`items`).
    pub key: String,
    /// The record's fields in the contract's order.
    pub fields: Vec<Field>,
}

/// The parsed contract text.
#[derive(Debug)]
pub struct Contract {
    /// The whole text as JSON, for structural comparison.
    pub text: BTreeMap<String, Value>,
    /// Questions in the contract's order.
    pub questions: Vec<Question>,
    /// Declared value names in order.
    pub values: Vec<String>,
    /// Declared row lists.
    pub rows: Vec<RowList>,
    /// Named rules (`name`, `expression`) in order.
    pub rules: Vec<(String, String)>,
    /// The contract pack (`sha256:...`).
    pub pack: String,
}

/// The container-1 contract, parsed once.
///
/// ```
/// let c = bevy_container::adoption::contract::container_1();
/// assert_eq!(c.questions.len(), 6);
/// assert_eq!(c.questions[0].key, "capacity-limit");
/// assert!(c.values.contains(&"slot-count".to_string()));
/// ```
pub fn container_1() -> &'static Contract {
    static CONTRACT: OnceLock<Contract> = OnceLock::new();
    CONTRACT.get_or_init(|| {
        let text: BTreeMap<String, Value> =
            serde_json::from_str(CONTAINER_1_JSON).expect("the embedded contract text is JSON");
        parse_contract(text)
    })
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn parse_when(v: Option<&Value>) -> When {
    let Some(obj) = v.and_then(Value::as_object) else {
        return When::Always;
    };
    if let Some((q, opts)) = obj
        .get("flag")
        .and_then(Value::as_object)
        .and_then(|f| f.iter().next())
    {
        return When::Flag {
            question: q.clone(),
            options: strings(opts),
        };
    }
    if let Some((f, opts)) = obj
        .get("row")
        .and_then(Value::as_object)
        .and_then(|f| f.iter().next())
    {
        return When::Row {
            field: f.clone(),
            options: strings(opts),
        };
    }
    When::Always
}

fn parse_contract(text: BTreeMap<String, Value>) -> Contract {
    let empty = serde_json::Map::new();
    let questions = text
        .get("questions")
        .and_then(Value::as_object)
        .unwrap_or(&empty)
        .iter()
        .map(|(key, q)| Question {
            key: key.clone(),
            asks: q["asks"].as_str().unwrap_or_default().to_string(),
            options: q["options"]
                .as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default(),
            when: parse_when(q.get("when")),
        })
        .collect();
    let declares = text.get("declares").cloned().unwrap_or(Value::Null);
    let values = declares["values"]
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    let rows = declares["rows"]
        .as_object()
        .unwrap_or(&empty)
        .iter()
        .map(|(key, list)| RowList {
            key: key.clone(),
            fields: list["record"]
                .as_object()
                .unwrap_or(&empty)
                .iter()
                .map(|(fk, f)| Field {
                    key: fk.clone(),
                    ty: match f["type"].as_str() {
                        Some("integer") => FieldType::Integer,
                        Some("number") => FieldType::Number,
                        Some("citation") => FieldType::Citation,
                        _ => FieldType::String,
                    },
                    required: f["required"].as_bool().unwrap_or(false),
                    kebab: f["pattern"].as_str() == Some("kebab-case"),
                    unique: f["unique"].as_bool().unwrap_or(false),
                    options: f.get("options").map(strings),
                    when: parse_when(f.get("when")),
                    description: f["description"].as_str().unwrap_or_default().to_string(),
                })
                .collect(),
        })
        .collect();
    let rules = text
        .get("rules")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let pack = text
        .get("pack")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    Contract {
        text,
        questions,
        values,
        rows,
        rules,
        pack,
    }
}

/// The first path at which `got` differs from `want`, as a JSON pointer
/// relative to both; `None` when they are equal.
pub fn first_difference(want: &Value, got: &Value) -> Option<String> {
    match (want, got) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                match b.get(k) {
                    None => return Some(format!("/{}", super::report::segment(k))),
                    Some(vb) => {
                        if let Some(rest) = first_difference(va, vb) {
                            return Some(format!("/{}{rest}", super::report::segment(k)));
                        }
                    }
                }
            }
            b.keys()
                .find(|k| !a.contains_key(*k))
                .map(|k| format!("/{}", super::report::segment(k)))
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                if let Some(rest) = first_difference(va, vb) {
                    return Some(format!("/{i}{rest}"));
                }
            }
            (a.len() != b.len()).then(|| format!("/{}", a.len().min(b.len())))
        }
        (Value::Number(a), Value::Number(b)) => (a.as_f64() != b.as_f64()).then(String::new),
        _ => (want != got).then(String::new),
    }
}
