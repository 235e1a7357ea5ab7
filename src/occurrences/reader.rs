//! The strict reader for `notarius_dnd_item_occurrences_v1`.

use serde::Serialize;
use serde_json::Value;

use crate::adoption::source::fields::{List, NonEmptyText, Obj, OneOf, Whole};
use crate::adoption::{Format, ProblemKind, Report, source};

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

/// The words of [`Kind`], in its order.
const KINDS: [&str; 5] = ["discovered", "acquired", "lost", "consumed", "transferred"];

/// The fields of a source reference.
const REF_FIELDS: [&str; 3] = ["source_id", "start_unit_id", "end_unit_id"];

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
    let root = source::parse(bytes, Format::Json).map_err(|report| {
        // a syntax problem's line and column are in its whole text
        report
            .problems
            .iter()
            .map(|p| InputProblem {
                path: String::new(),
                message: p.to_string(),
            })
            .collect::<Vec<_>>()
    })?;
    let mut r = Report::default();
    let list = occurrences(&root, &mut r);
    if r.has_errors() {
        Err(input_problems(&r))
    } else {
        Ok(list)
    }
}

/// A report's problems as the occurrence reader gives them: path and
/// message.
fn input_problems(r: &Report) -> Vec<InputProblem> {
    r.problems
        .iter()
        .map(|p| InputProblem {
            path: p.path.clone(),
            message: p.message.clone(),
        })
        .collect()
}

/// The list: every occurrence that reads, every problem in `r`.
fn occurrences(root: &Value, r: &mut Report) -> Vec<Occurrence> {
    let mut out = Vec::new();
    let Some(obj) = Obj::of(root, "", "v1 is one JSON object with \"occurrences\"", r) else {
        return out;
    };
    obj.refuse_unknown(&["occurrences"], r);
    let Some(list) = obj.required(
        "occurrences",
        List("a list of occurrences (it may be empty)"),
        r,
    ) else {
        return out;
    };
    for (i, o) in list.iter().enumerate() {
        let at = format!("/occurrences/{i}");
        let Some(o) = Obj::of(o, &at, "an occurrence is an object", r) else {
            continue;
        };
        if let Some(first) = list[..i]
            .iter()
            .position(|p| p.as_object() == Some(o.map()))
        {
            r.error(
                ProblemKind::Duplicate,
                o.at(),
                format!("exact duplicate of occurrence {first}"),
            );
        }
        if let Some(occ) = occurrence(&o, r) {
            out.push(occ);
        }
    }
    out
}

/// One occurrence; `None` when it has any problem.
fn occurrence(o: &Obj<'_>, r: &mut Report) -> Option<Occurrence> {
    let before = r.problems.len();
    o.refuse_unknown(&FIELDS, r);
    let item_id = o.required("item_id", NonEmptyText, r);
    let name = o.required("name", NonEmptyText, r);
    let kind = o
        .required("kind", OneOf(&KINDS), r)
        .and_then(Kind::from_word);
    let quantity = o
        .optional("quantity", Whole::between(1, u64::from(u32::MAX)), r)
        .flatten();
    let from = o.optional("from", NonEmptyText, r).flatten();
    let to = o.optional("to", NonEmptyText, r).flatten();
    if let Some(kind) = kind {
        holders(o, kind, from, to, r);
    }
    let source_refs = source_refs(o, r);
    if r.problems.len() > before {
        return None;
    }
    Some(Occurrence {
        item_id: item_id?.to_string(),
        name: name?.to_string(),
        kind: kind?,
        quantity,
        from: from.map(str::to_string),
        to: to.map(str::to_string),
        source_refs,
    })
}

/// The holders a kind needs: `from` and `to` given exactly when the kind
/// has them, and a transfer between two holders other than the party.
fn holders(o: &Obj<'_>, kind: Kind, from: Option<&str>, to: Option<&str>, r: &mut Report) {
    let (need_from, need_to) = match kind {
        Kind::Discovered => (false, false),
        Kind::Acquired => (false, true),
        Kind::Lost | Kind::Consumed => (true, false),
        Kind::Transferred => (true, true),
    };
    for (key, need) in [("from", need_from), ("to", need_to)] {
        match (need, o.has(key)) {
            (true, false) => r.error(
                ProblemKind::Missing,
                o.path(key),
                format!("{} requires \"{key}\"", kind.as_str()),
            ),
            (false, true) => r.error(
                ProblemKind::NotApplicable,
                o.path(key),
                format!("{} does not permit \"{key}\"", kind.as_str()),
            ),
            _ => {}
        }
    }
    if kind == Kind::Transferred {
        if from.is_some() && from == to {
            r.error(
                ProblemKind::Duplicate,
                o.path("to"),
                "transferred needs two distinct holders",
            );
        }
        for (key, v) in [("from", from), ("to", to)] {
            if v == Some("party") {
                r.error(
                    ProblemKind::NotAnOption,
                    o.path(key),
                    "transferred holders may not be \"party\"",
                );
            }
        }
    }
}

/// `source_refs`: a non-empty list of unit ranges.
fn source_refs(o: &Obj<'_>, r: &mut Report) -> Vec<SourceRef> {
    let Some(list) = o.required(
        "source_refs",
        List("a non-empty list of source references"),
        r,
    ) else {
        return Vec::new();
    };
    let at = o.path("source_refs");
    if list.is_empty() {
        r.error(
            ProblemKind::Missing,
            &at,
            "\"source_refs\" must be a non-empty list of source references; add where the transcript says so",
        );
    }
    list.iter()
        .enumerate()
        .filter_map(|(j, v)| source_ref(v, &format!("{at}/{j}"), r))
        .collect()
}

/// One source reference: a transcript and an inclusive range of its units.
fn source_ref(v: &Value, at: &str, r: &mut Report) -> Option<SourceRef> {
    let s = Obj::of(v, at, "a source reference is an object", r)?;
    s.refuse_unknown(&REF_FIELDS, r);
    let source_id = s.required("source_id", NonEmptyText, r);
    let unit = Whole::between(1, u64::MAX);
    let start = s.required("start_unit_id", unit, r);
    let end = s.required("end_unit_id", unit, r);
    if let (Some(a), Some(b)) = (start, end)
        && a > b
    {
        r.error(
            ProblemKind::OutOfRange,
            s.path("end_unit_id"),
            format!("the range starts at {a} and may not end before it, at {b}"),
        );
    }
    Some(SourceRef {
        source_id: source_id?.to_string(),
        start_unit_id: start?,
        end_unit_id: end?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_words_are_the_kinds() {
        for w in KINDS {
            assert_eq!(Kind::from_word(w).map(Kind::as_str), Some(w));
        }
    }
}
