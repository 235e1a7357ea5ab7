//! Reading JSON and RON text into one tree, with line and column on syntax
//! errors and limits on size and depth. The crate's readers then read that
//! tree strictly, one field at a time, with the words of `source::fields`.

pub(crate) mod fields;

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use super::report::{ProblemKind, Report};

/// The largest adoption, tuning or scenario file read: 16 MiB.
pub const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

/// The deepest nesting read. serde_json and RON both stop at 128 levels;
/// nothing in an adoption is deeper than 6.
pub const MAX_DEPTH: usize = 128;

/// The text format of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// JSON.
    Json,
    /// RON.
    Ron,
}

impl Format {
    /// The format a path's extension names: `.ron` is RON, anything else JSON.
    pub fn of_path(path: &std::path::Path) -> Format {
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ron"))
        {
            Format::Ron
        } else {
            Format::Json
        }
    }
}

/// Parses bytes into a JSON tree. RON maps, structs and sequences become
/// objects and arrays; struct names are dropped.
pub fn parse(bytes: &[u8], format: Format) -> Result<Value, Report> {
    let mut report = Report::default();
    if bytes.len() > MAX_FILE_BYTES {
        report.error(
            ProblemKind::TooLarge,
            "",
            format!(
                "the file is {} bytes; the largest read is {MAX_FILE_BYTES} bytes",
                bytes.len()
            ),
        );
        return Err(report);
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let (line, column) = line_col(bytes, e.valid_up_to());
            report.syntax(line, column, "the file is not valid UTF-8 text");
            return Err(report);
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match format {
        Format::Json => {
            let mut de = serde_json::Deserializer::from_str(text);
            match Strict::deserialize(&mut de).and_then(|v| de.end().map(|()| v.0)) {
                Ok(v) => Ok(v),
                Err(e) => {
                    let msg = e.to_string();
                    let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
                    report.syntax(e.line(), e.column(), format!("malformed JSON: {msg}"));
                    Err(report)
                }
            }
        }
        Format::Ron => {
            // RON counts two levels per nesting (the value, then its contents)
            let options = ron::Options::default().with_recursion_limit(2 * MAX_DEPTH);
            match options.from_str::<Strict>(text) {
                Ok(v) => Ok(v.0),
                Err(e) => {
                    report.syntax(
                        e.span.start.line,
                        e.span.start.col,
                        format!("malformed RON: {}", e.code),
                    );
                    Err(report)
                }
            }
        }
    }
}

fn line_col(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at.min(bytes.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|b| **b != b'\n').count() + 1;
    (line, column)
}

/// A tree read strictly: a key given twice in one object, a number that is
/// NaN, infinite or past 64 bits, and a map key that is not text are errors
/// (serde_json alone keeps the last of duplicate keys without a word).
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

fn finite<E: de::Error>(f: f64) -> Result<Value, E> {
    Number::from_f64(f)
        .map(Value::Number)
        .ok_or_else(|| E::custom("a number is NaN or infinite; use a finite number"))
}

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        match (i64::try_from(v), u64::try_from(v)) {
            (Ok(i), _) => Ok(Value::from(i)),
            (_, Ok(u)) => Ok(Value::from(u)),
            _ => Err(E::custom(
                "a number is past 64 bits; no value here is that large",
            )),
        }
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        u64::try_from(v)
            .map(Value::from)
            .map_err(|_| E::custom("a number is past 64 bits; no value here is that large"))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        finite(v)
    }
    fn visit_char<E: de::Error>(self, v: char) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Array(v.iter().map(|&b| Value::from(b)).collect()))
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(Strict(key)) = map.next_key()? {
            let key = match key {
                Value::String(s) => s,
                other => {
                    return Err(de::Error::custom(format!(
                        "a map key must be text or a field name, found {other}"
                    )));
                }
            };
            let Strict(value) = map.next_value()?;
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "the key \"{key}\" is given twice in one object; keep one"
                )));
            }
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}
