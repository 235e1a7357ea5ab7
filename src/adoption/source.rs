//! Reading JSON and RON text into one tree, with line and column on syntax
//! errors and limits on size and depth.

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
        Format::Json => match serde_json::from_str::<Value>(text) {
            Ok(v) => Ok(v),
            Err(e) => {
                let msg = e.to_string();
                let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
                report.syntax(e.line(), e.column(), format!("malformed JSON: {msg}"));
                Err(report)
            }
        },
        Format::Ron => {
            let options = ron::Options::default().with_recursion_limit(MAX_DEPTH);
            match options.from_str::<ron::Value>(text) {
                Ok(v) => match from_ron(v, 0) {
                    Ok(v) => Ok(v),
                    Err(msg) => {
                        report.error(ProblemKind::WrongType, "", msg);
                        Err(report)
                    }
                },
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

fn from_ron(v: ron::Value, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH} levels"));
    }
    Ok(match v {
        ron::Value::Bool(b) => Value::Bool(b),
        ron::Value::Char(c) => Value::String(c.to_string()),
        ron::Value::String(s) => Value::String(s),
        ron::Value::Unit => Value::Null,
        ron::Value::Option(None) => Value::Null,
        ron::Value::Option(Some(inner)) => from_ron(*inner, depth + 1)?,
        ron::Value::Bytes(b) => Value::Array(b.into_iter().map(Value::from).collect()),
        ron::Value::Seq(items) => Value::Array(
            items
                .into_iter()
                .map(|i| from_ron(i, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        ron::Value::Map(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                let key = match k {
                    ron::Value::String(s) => s,
                    ron::Value::Char(c) => c.to_string(),
                    other => {
                        return Err(format!(
                            "a map key must be a string or a field name, found {other:?}"
                        ));
                    }
                };
                out.insert(key, from_ron(v, depth + 1)?);
            }
            Value::Object(out)
        }
        ron::Value::Number(n) => {
            use ron::value::Number as N;
            let number = match n {
                N::I8(i) => Number::from(i),
                N::I16(i) => Number::from(i),
                N::I32(i) => Number::from(i),
                N::I64(i) => Number::from(i),
                N::U8(i) => Number::from(i),
                N::U16(i) => Number::from(i),
                N::U32(i) => Number::from(i),
                N::U64(i) => Number::from(i),
                N::F32(f) => Number::from_f64(f64::from(f.get()))
                    .ok_or("a number is NaN or infinite; use a finite number")?,
                N::F64(f) => Number::from_f64(f.get())
                    .ok_or("a number is NaN or infinite; use a finite number")?,
                _ => return Err("a number is out of range".into()),
            };
            Value::Number(number)
        }
    })
}
