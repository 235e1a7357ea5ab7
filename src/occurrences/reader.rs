//! The strict reader for `notarius_dnd_item_occurrences_v1`.

use serde::Serialize;
use serde_json::{Map, Value};

/// One problem in an occurrence list: where (`/occurrences/3/to`) and what.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputProblem {
    /// A JSON pointer into the file.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for InputProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// The five occurrence kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Found; no holder.
    Discovered,
    /// Came into a holder's possession (`to`).
    Acquired,
    /// Left a holder (`from`).
    Lost,
    /// Used up by a holder (`from`).
    Consumed,
    /// Passed between two holders, neither the party.
    Transferred,
}

impl Kind {
    fn from_word(w: &str) -> Option<Kind> {
        Some(match w {
            "discovered" => Kind::Discovered,
            "acquired" => Kind::Acquired,
            "lost" => Kind::Lost,
            "consumed" => Kind::Consumed,
            "transferred" => Kind::Transferred,
            _ => return None,
        })
    }

    /// The kind's word.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Discovered => "discovered",
            Kind::Acquired => "acquired",
            Kind::Lost => "lost",
            Kind::Consumed => "consumed",
            Kind::Transferred => "transferred",
        }
    }
}

/// An inclusive range of transcript units.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceRef {
    /// The transcript.
    pub source_id: String,
    /// First unit (positive).
    pub start_unit_id: u64,
    /// Last unit (not before the first).
    pub end_unit_id: u64,
}

impl std::fmt::Display for SourceRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} units {}-{}",
            self.source_id, self.start_unit_id, self.end_unit_id
        )
    }
}

/// One item occurrence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Occurrence {
    /// The registry id.
    pub item_id: String,
    /// The registry name.
    pub name: String,
    /// What happened.
    pub kind: Kind,
    /// How many (1 when absent).
    pub quantity: Option<u64>,
    /// The holder it left.
    pub from: Option<String>,
    /// The holder it came to.
    pub to: Option<String>,
    /// Where the transcript says so.
    pub source_refs: Vec<SourceRef>,
}

const FIELDS: [&str; 7] = [
    "item_id",
    "name",
    "kind",
    "quantity",
    "from",
    "to",
    "source_refs",
];

/// Reads a v1 occurrence list strictly; every problem is reported with its
/// index and field.
///
/// ```
/// use bevy_container::occurrences::read_occurrences;
///
/// let ok = br#"{"occurrences": [{"item_id": "item:1", "name": "Rope", "kind": "acquired",
///   "to": "party", "source_refs": [{"source_id": "s1", "start_unit_id": 2, "end_unit_id": 2}]}]}"#;
/// assert_eq!(read_occurrences(ok).unwrap().len(), 1);
/// let bad = br#"{"occurrences": [{"item_id": "item:1", "name": "Rope", "kind": "lost",
///   "to": "party", "source_refs": []}]}"#;
/// let problems = read_occurrences(bad).unwrap_err();
/// assert!(problems.iter().any(|p| p.path == "/occurrences/0/from"));
/// assert!(problems.iter().any(|p| p.path == "/occurrences/0/to"));
/// ```
pub fn read_occurrences(bytes: &[u8]) -> Result<Vec<Occurrence>, Vec<InputProblem>> {
    let mut problems = Vec::new();
    let mut problem = |path: String, message: String| problems.push(InputProblem { path, message });
    let root: Value = match crate::adoption::source::parse(bytes, crate::adoption::Format::Json) {
        Ok(v) => v,
        Err(report) => {
            return Err(report
                .problems
                .iter()
                .map(|p| InputProblem {
                    path: String::new(),
                    message: p.to_string(),
                })
                .collect());
        }
    };
    let Some(obj) = root.as_object() else {
        problem(
            String::new(),
            "v1 is one JSON object with \"occurrences\"".into(),
        );
        return Err(problems);
    };
    for k in obj.keys() {
        if k != "occurrences" {
            problem(
                format!("/{k}"),
                format!("unknown field \"{k}\"; v1 has only \"occurrences\""),
            );
        }
    }
    let list = match obj.get("occurrences") {
        None => {
            problem(
                "/occurrences".into(),
                "required; it may be an empty list".into(),
            );
            return Err(problems);
        }
        Some(Value::Array(a)) => a,
        Some(_) => {
            problem("/occurrences".into(), "must be a list".into());
            return Err(problems);
        }
    };
    let mut out = Vec::new();
    for (i, o) in list.iter().enumerate() {
        let at = format!("/occurrences/{i}");
        let Some(o) = o.as_object() else {
            problem(at, "an occurrence is an object".into());
            continue;
        };
        if let Some(first) = list[..i]
            .iter()
            .position(|p| p == &Value::Object(o.clone()))
        {
            problem(at.clone(), format!("exact duplicate of occurrence {first}"));
        }
        if let Some(occ) = occurrence(o, &at, &mut problem) {
            out.push(occ);
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn text(
    o: &Map<String, Value>,
    key: &str,
    at: &str,
    problem: &mut impl FnMut(String, String),
) -> Option<String> {
    match o.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(_) => {
            problem(format!("{at}/{key}"), "must be non-empty text".into());
            None
        }
        None => None,
    }
}

fn occurrence(
    o: &Map<String, Value>,
    at: &str,
    problem: &mut impl FnMut(String, String),
) -> Option<Occurrence> {
    let before = std::cell::Cell::new(false);
    let mut p = |path: String, msg: String| {
        before.set(true);
        problem(path, msg)
    };
    for k in o.keys() {
        if !FIELDS.contains(&k.as_str()) {
            p(format!("{at}/{k}"), format!("unknown field \"{k}\""));
        }
    }
    for k in ["item_id", "name", "kind", "source_refs"] {
        if !o.contains_key(k) {
            p(format!("{at}/{k}"), "required".into());
        }
    }
    let item_id = text(o, "item_id", at, &mut p);
    let name = text(o, "name", at, &mut p);
    let kind = match o.get("kind") {
        Some(Value::String(w)) => Kind::from_word(w).or_else(|| {
            p(
                format!("{at}/kind"),
                format!("\"{w}\" is not one of discovered, acquired, lost, consumed, transferred"),
            );
            None
        }),
        Some(_) => {
            p(format!("{at}/kind"), "must be text".into());
            None
        }
        None => None,
    };
    let quantity = match o.get("quantity") {
        None => None,
        Some(v) => match v.as_u64().filter(|n| (1..=u64::from(u32::MAX)).contains(n)) {
            Some(n) => Some(n),
            None => {
                p(
                    format!("{at}/quantity"),
                    format!("{v} is not a whole number from 1 to {}", u32::MAX),
                );
                None
            }
        },
    };
    let from = text(o, "from", at, &mut p);
    let to = text(o, "to", at, &mut p);
    if let Some(kind) = kind {
        let (need_from, need_to) = match kind {
            Kind::Discovered => (false, false),
            Kind::Acquired => (false, true),
            Kind::Lost | Kind::Consumed => (true, false),
            Kind::Transferred => (true, true),
        };
        for (key, need) in [("from", need_from), ("to", need_to)] {
            match (need, o.contains_key(key)) {
                (true, false) => p(
                    format!("{at}/{key}"),
                    format!("{} requires \"{key}\"", kind.as_str()),
                ),
                (false, true) => p(
                    format!("{at}/{key}"),
                    format!("{} does not permit \"{key}\"", kind.as_str()),
                ),
                _ => {}
            }
        }
        if kind == Kind::Transferred {
            if from.is_some() && from == to {
                p(
                    format!("{at}/to"),
                    "transferred needs two distinct holders".into(),
                );
            }
            for (key, v) in [("from", &from), ("to", &to)] {
                if v.as_deref() == Some("party") {
                    p(
                        format!("{at}/{key}"),
                        "transferred holders may not be \"party\"".into(),
                    );
                }
            }
        }
    }
    let mut refs = Vec::new();
    match o.get("source_refs") {
        None => {}
        Some(Value::Array(a)) if !a.is_empty() => {
            for (j, r) in a.iter().enumerate() {
                let rat = format!("{at}/source_refs/{j}");
                let Some(r) = r.as_object() else {
                    p(rat, "a source reference is an object".into());
                    continue;
                };
                for k in r.keys() {
                    if !["source_id", "start_unit_id", "end_unit_id"].contains(&k.as_str()) {
                        p(format!("{rat}/{k}"), format!("unknown field \"{k}\""));
                    }
                }
                let source_id = match r.get("source_id") {
                    Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
                    _ => {
                        p(format!("{rat}/source_id"), "required non-empty text".into());
                        None
                    }
                };
                let mut unit = |k: &str| match r.get(k).and_then(Value::as_u64).filter(|n| *n >= 1)
                {
                    Some(n) => Some(n),
                    None => {
                        p(
                            format!("{rat}/{k}"),
                            "required positive whole number".into(),
                        );
                        None
                    }
                };
                let (start, end) = (unit("start_unit_id"), unit("end_unit_id"));
                if let (Some(s), Some(e)) = (start, end)
                    && s > e
                {
                    p(
                        format!("{rat}/end_unit_id"),
                        format!("the range starts at {s} and may not end before it, at {e}"),
                    );
                }
                if let (Some(source_id), Some(start_unit_id), Some(end_unit_id)) =
                    (source_id, start, end)
                {
                    refs.push(SourceRef {
                        source_id,
                        start_unit_id,
                        end_unit_id,
                    });
                }
            }
        }
        Some(_) => p(
            format!("{at}/source_refs"),
            "must be a non-empty list of source references".into(),
        ),
    }
    if before.get() {
        return None;
    }
    Some(Occurrence {
        item_id: item_id?,
        name: name?,
        kind: kind?,
        quantity,
        from,
        to,
        source_refs: refs,
    })
}
