//! Validation: every problem in an adoption file, found in one pass.
//!
//! The checks follow `container-1.md` section 1 and are driven by the
//! embedded contract text: questions and their `when`, the declared values,
//! the row record schema, and the rules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value};

use super::citation::Citation;
use super::contract::{self, Contract, FieldType, When};
use super::expr::{Rational, Rule};
use super::model::Adoption;
use super::report::{ProblemKind, Report, segment};
use super::tuning::Tuning;
use crate::decimal::Decimal;

/// The most slots a container may have, also the safety ceiling of a
/// `no-limit` container: 1,048,576.
pub const MAX_SLOTS: u32 = 1 << 20;

/// What validation may check beyond the file itself.
#[derive(Clone, Copy, Debug, Default)]
pub struct Context<'a> {
    /// The game's tuning; without it, tuning references are not checked and
    /// rules that use them are not evaluated.
    pub tuning: Option<&'a Tuning>,
    /// The game's prose folder; without it, citations are checked for form
    /// only.
    pub prose: Option<&'a Path>,
}

const TOP_LEVEL: [&str; 6] = [
    "contract",
    "version",
    "answers",
    "values",
    "rows",
    "verification",
];

/// The contract tests an adoption's `verification` may name.
pub const TEST_NAMES: [&str; 10] = [
    "capacity-holds",
    "fill-order-holds",
    "partial-acceptance-holds",
    "leftover-destination-holds",
    "draw-order-holds",
    "type-restriction-holds",
    "take-shortfall-holds",
    "same-input-same-result",
    "stack-or-size-holds",
    "forced-out-holds",
];

/// Validates a parsed adoption tree and, when it has no errors, returns the
/// model too. Every problem is in the report.
pub fn validate(root: &Value, cx: Context<'_>) -> (Report, Option<Adoption>) {
    let report = problems(root, cx);
    if report.has_errors() {
        return (report, None);
    }
    into_model(root.clone(), report)
}

/// [`validate`] for a tree the caller gives up: no copy is made.
pub(crate) fn validate_owned(root: Value, cx: Context<'_>) -> (Report, Option<Adoption>) {
    let report = problems(&root, cx);
    if report.has_errors() {
        return (report, None);
    }
    into_model(root, report)
}

/// Every problem in a parsed adoption tree.
pub(crate) fn problems(root: &Value, cx: Context<'_>) -> Report {
    let c = contract::container_1();
    let mut r = Report::default();
    let Some(obj) = root.as_object() else {
        r.error(
            ProblemKind::WrongType,
            "",
            "an adoption file is one object with contract, version, answers, values and rows",
        );
        return r;
    };
    top_level(obj, c, &mut r);
    let answers = answers(obj.get("answers"), c, &mut r);
    let values = values(obj.get("values"), c, cx, &mut r);
    rules(c, &values, &mut r);
    let rows = rows(obj.get("rows"), c, &answers, cx, &mut r);
    description(&answers, &values, &rows, &mut r);
    verification(obj.get("verification"), cx, &mut r);
    r
}

fn into_model(root: Value, mut r: Report) -> (Report, Option<Adoption>) {
    let Value::Object(mut known) = root else {
        return (r, None);
    };
    known.retain(|k, _| {
        TOP_LEVEL.contains(&k.as_str()) || contract::TEXT_FIELDS.contains(&k.as_str())
    });
    match serde_json::from_value::<Adoption>(Value::Object(known)) {
        Ok(a) => (r, Some(a)),
        Err(e) => {
            r.error(
                ProblemKind::WrongType,
                "",
                format!("the file could not be read: {e}"),
            );
            (r, None)
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true/false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && s.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// The known name closest to `got`, when it is a likely typo.
fn did_you_mean<'a>(got: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let best = known.into_iter().map(|k| (edit_distance(got, k), k)).min();
    match best {
        Some((d, k)) if d <= 3 && d < got.len() => format!(" (did you mean \"{k}\"?)"),
        _ => String::new(),
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().take(64).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

fn top_level(obj: &Map<String, Value>, c: &Contract, r: &mut Report) {
    for key in obj.keys() {
        if !TOP_LEVEL.contains(&key.as_str()) && !contract::TEXT_FIELDS.contains(&key.as_str()) {
            let all = TOP_LEVEL
                .iter()
                .chain(contract::TEXT_FIELDS.iter())
                .copied();
            r.warning(
                ProblemKind::Unknown,
                format!("/{}", segment(key)),
                format!(
                    "\"{key}\" is not part of a container-1 adoption and is ignored{}",
                    did_you_mean(key, all)
                ),
            );
        }
    }
    match obj.get("contract") {
        None => r.error(
            ProblemKind::Missing,
            "/contract",
            "add \"contract\": \"container\"",
        ),
        Some(Value::String(s)) if s == "container" => {}
        Some(v) => r.error(
            ProblemKind::WrongContract,
            "/contract",
            format!("this crate reads the \"container\" contract, not {v}"),
        ),
    }
    match obj.get("version") {
        None => r.error(ProblemKind::Missing, "/version", "add \"version\": 1"),
        Some(v) if v.as_u64() == Some(1) => {}
        Some(v) => r.error(
            ProblemKind::WrongContract,
            "/version",
            format!("this crate reads container version 1, not {v}"),
        ),
    }
    let mut text_matches = true;
    for field in contract::TEXT_FIELDS {
        if field == "pack" {
            continue;
        }
        let (Some(got), Some(want)) = (obj.get(field), c.text.get(field)) else {
            continue;
        };
        if let Some(at) = contract::first_difference(want, got) {
            text_matches = false;
            r.error(
                ProblemKind::ContractTextDiffers,
                format!("/{field}{at}"),
                format!(
                    "the embedded contract text differs from container-1 here; export the adoption again from the authoring tool, or remove \"{field}\" to use the text this crate implements"
                ),
            );
        }
    }
    if let Some(pack) = obj.get("pack")
        && pack.as_str() != Some(c.pack.as_str())
    {
        let msg = format!(
            "the pack {pack} is not the container-1 pack this crate implements ({})",
            c.pack
        );
        if text_matches {
            r.warning(
                ProblemKind::PackDiffers,
                "/pack",
                format!("{msg}; the contract text still matches, so it is read as container-1"),
            );
        } else {
            r.error(ProblemKind::PackDiffers, "/pack", msg);
        }
    }
}

/// Answers in force: only those whose question applies and is answered with
/// an option.
pub(crate) type Answers = BTreeMap<String, String>;

fn when_holds(when: &When, answers: &Answers, row: Option<&Map<String, Value>>) -> bool {
    match when {
        When::Always => true,
        When::Flag { question, options } => answers
            .get(question)
            .is_some_and(|a| options.iter().any(|o| o == a)),
        When::Row { field, options } => row
            .and_then(|r| r.get(field))
            .and_then(Value::as_str)
            .is_some_and(|v| options.iter().any(|o| o == v)),
    }
}

fn describe_when(when: &When) -> String {
    match when {
        When::Always => String::new(),
        When::Flag { question, options } => format!("{question} is {}", options.join(" or ")),
        When::Row { field, options } => format!("{field} is {}", options.join(" or ")),
    }
}

fn answers(v: Option<&Value>, c: &Contract, r: &mut Report) -> Answers {
    let mut in_force = Answers::new();
    let empty = Map::new();
    let given = match v {
        None => {
            r.error(
                ProblemKind::Missing,
                "/answers",
                "add \"answers\": one answer per question",
            );
            &empty
        }
        Some(Value::Object(m)) => m,
        Some(other) => {
            r.error(
                ProblemKind::WrongType,
                "/answers",
                format!(
                    "answers must be an object of question to option, not {}",
                    kind_of(other)
                ),
            );
            &empty
        }
    };
    for q in &c.questions {
        let path = format!("/answers/{}", q.key);
        let holds = when_holds(&q.when, &in_force, None);
        match (holds, given.get(&q.key)) {
            (true, None) => r.error(
                ProblemKind::Missing,
                path,
                format!(
                    "answer \"{}\" ({}) with one of: {}",
                    q.key,
                    q.asks,
                    q.options.join(", ")
                ),
            ),
            (true, Some(Value::String(a))) if q.options.contains(a) => {
                in_force.insert(q.key.clone(), a.clone());
            }
            (true, Some(a)) => r.error(
                ProblemKind::NotAnOption,
                path,
                format!(
                    "{a} is not an answer to \"{}\"; choose one of: {}{}",
                    q.key,
                    q.options.join(", "),
                    a.as_str()
                        .map(|s| did_you_mean(s, q.options.iter().map(String::as_str)))
                        .unwrap_or_default()
                ),
            ),
            (false, Some(_)) => r.warning(
                ProblemKind::NotApplicable,
                path,
                format!(
                    "\"{}\" applies only when {}; this answer is ignored",
                    q.key,
                    describe_when(&q.when)
                ),
            ),
            (false, None) => {}
        }
    }
    for key in given.keys() {
        if !c.questions.iter().any(|q| &q.key == key) {
            r.error(
                ProblemKind::Unknown,
                format!("/answers/{}", segment(key)),
                format!(
                    "container-1 has no question \"{key}\"{}",
                    did_you_mean(key, c.questions.iter().map(|q| q.key.as_str()))
                ),
            );
        }
    }
    in_force
}

/// A resolved value: its exact number and the tuning key it came from.
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    pub number: Rational,
    pub text: String,
    pub from_key: Option<String>,
}

/// Reads a finite JSON number exactly as a rational.
pub(crate) fn exact(f: f64) -> Option<(Rational, String)> {
    if !f.is_finite() {
        return None;
    }
    let text = format!("{f}");
    let (neg, abs) = match text.strip_prefix('-') {
        Some(a) => (true, a),
        None => (false, text.as_str()),
    };
    let d: Decimal = abs.parse().ok()?;
    let micros = i128::try_from(d.micros()).ok()?;
    let n = if neg { -micros } else { micros };
    Some((Rational::new(n, 1_000_000)?, text))
}

type Values = BTreeMap<String, Resolved>;

fn values(v: Option<&Value>, c: &Contract, cx: Context<'_>, r: &mut Report) -> Values {
    let mut out = Values::new();
    let empty = Map::new();
    let given = match v {
        None => {
            r.error(
                ProblemKind::Missing,
                "/values",
                format!("add \"values\" with {}", c.values.join(" and ")),
            );
            &empty
        }
        Some(Value::Object(m)) => m,
        Some(other) => {
            r.error(
                ProblemKind::WrongType,
                "/values",
                format!(
                    "values must be an object of name to number, not {}",
                    kind_of(other)
                ),
            );
            &empty
        }
    };
    for name in &c.values {
        let path = format!("/values/{name}");
        let Some(v) = given.get(name) else {
            r.error(
                ProblemKind::Missing,
                path,
                format!("add \"{name}\": a number, or {{\"tuning\": KEY}} (use 0 when it does not apply)"),
            );
            continue;
        };
        let (f, from_key) = match v {
            Value::Number(n) => (n.as_f64(), None),
            Value::Object(o) if o.len() == 1 && o.contains_key("tuning") => {
                let Some(key) = o["tuning"].as_str() else {
                    r.error(
                        ProblemKind::WrongType,
                        format!("{path}/tuning"),
                        "a tuning reference names a key as text: {\"tuning\": \"backpack-slots\"}",
                    );
                    continue;
                };
                if !is_kebab(key) {
                    r.error(
                        ProblemKind::Pattern,
                        format!("{path}/tuning"),
                        format!("tuning key \"{key}\" must be kebab-case, like backpack-slots"),
                    );
                    continue;
                }
                let Some(tuning) = cx.tuning else {
                    continue;
                };
                match tuning.get(key) {
                    Some(f) => (Some(f), Some(key.to_string())),
                    None => {
                        r.error(
                            ProblemKind::UnknownTuningKey,
                            format!("{path}/tuning"),
                            format!(
                                "{name} uses tuning key \"{key}\", which the game's tuning does not have; add it to the tuning or set a number here{}",
                                did_you_mean(key, tuning.values.keys().map(String::as_str))
                            ),
                        );
                        continue;
                    }
                }
            }
            other => {
                r.error(
                    ProblemKind::WrongType,
                    path,
                    format!(
                        "{name} must be a number or {{\"tuning\": KEY}}, not {}",
                        kind_of(other)
                    ),
                );
                continue;
            }
        };
        match f.and_then(exact) {
            Some((number, text)) => {
                out.insert(
                    name.clone(),
                    Resolved {
                        number,
                        text,
                        from_key,
                    },
                );
            }
            None => r.error(
                ProblemKind::Inexact,
                path,
                format!(
                    "{name} must be an exact number with at most six decimals, no larger than 10^15"
                ),
            ),
        }
    }
    for key in given.keys() {
        if !c.values.contains(key) {
            r.error(
                ProblemKind::Unknown,
                format!("/values/{}", segment(key)),
                format!(
                    "container-1 declares no value \"{key}\"{}",
                    did_you_mean(key, c.values.iter().map(String::as_str))
                ),
            );
        }
    }
    out
}

fn rules(c: &Contract, values: &Values, r: &mut Report) {
    for (name, text) in &c.rules {
        let path = format!("/rules/{name}");
        let rule = match Rule::parse(text) {
            Ok(rule) => rule,
            Err(e) => {
                r.error(
                    ProblemKind::RuleSyntax,
                    path,
                    format!("rule \"{text}\" {e}"),
                );
                continue;
            }
        };
        if rule.names().iter().any(|n| !values.contains_key(*n)) {
            continue; // a value is missing or unresolved; reported elsewhere
        }
        match rule.holds(&|n: &str| values.get(n).map(|v| v.number)) {
            Ok(true) => {}
            Ok(false) => {
                let saw: Vec<String> = rule
                    .names()
                    .iter()
                    .filter_map(|n| {
                        values.get(*n).map(|v| match &v.from_key {
                            Some(k) => format!("{n} is {} (from tuning key \"{k}\")", v.text),
                            None => format!("{n} is {}", v.text),
                        })
                    })
                    .collect();
                r.error(
                    ProblemKind::RuleFailed,
                    path,
                    format!("rule {name} ({text}) fails: {}", saw.join(", ")),
                );
            }
            Err(e) => r.error(
                ProblemKind::RuleFailed,
                path,
                format!("rule {name} ({text}) cannot be checked: {e}"),
            ),
        }
    }
}

/// The rows as seen by the description checks.
struct RowFacts {
    count: usize,
}

fn rows(
    v: Option<&Value>,
    c: &Contract,
    answers: &Answers,
    cx: Context<'_>,
    r: &mut Report,
) -> RowFacts {
    let mut facts = RowFacts { count: 0 };
    let empty = Map::new();
    let given = match v {
        None => {
            r.error(
                ProblemKind::Missing,
                "/rows",
                "add \"rows\": {\"items\": [...]}",
            );
            &empty
        }
        Some(Value::Object(m)) => m,
        Some(other) => {
            r.error(
                ProblemKind::WrongType,
                "/rows",
                format!(
                    "rows must be an object of list name to rows, not {}",
                    kind_of(other)
                ),
            );
            &empty
        }
    };
    for list in &c.rows {
        let lpath = format!("/rows/{}", list.key);
        let items = match given.get(&list.key) {
            None => {
                r.error(
                    ProblemKind::Missing,
                    lpath,
                    format!("add \"{}\": a list of rows (it may be empty)", list.key),
                );
                continue;
            }
            Some(Value::Array(a)) => a,
            Some(other) => {
                r.error(
                    ProblemKind::WrongType,
                    lpath,
                    format!(
                        "\"{}\" must be a list of rows, not {}",
                        list.key,
                        kind_of(other)
                    ),
                );
                continue;
            }
        };
        facts.count = items.len();
        let mut seen: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
        for (i, row) in items.iter().enumerate() {
            let rpath = format!("{lpath}/{i}");
            let Some(row) = row.as_object() else {
                r.error(
                    ProblemKind::WrongType,
                    rpath,
                    format!(
                        "each row is an object with id and its fields, not {}",
                        kind_of(row)
                    ),
                );
                continue;
            };
            for f in &list.fields {
                let fpath = format!("{rpath}/{}", f.key);
                let applies = when_holds(&f.when, answers, Some(row));
                let got = row.get(&f.key);
                let Some(got) = got else {
                    if f.required || (applies && f.when != When::Always) {
                        let why = if f.required {
                            String::new()
                        } else {
                            format!(" (needed because {})", describe_when(&f.when))
                        };
                        r.error(
                            ProblemKind::Missing,
                            fpath,
                            format!(
                                "row {i} needs \"{}\"{why}: {}",
                                f.key,
                                f.description.split(". ").next().unwrap_or_default()
                            ),
                        );
                    }
                    continue;
                };
                if !f.required && !applies {
                    r.warning(
                        ProblemKind::NotApplicable,
                        fpath,
                        format!(
                            "\"{}\" applies only when {}; it is ignored",
                            f.key,
                            describe_when(&f.when)
                        ),
                    );
                    continue;
                }
                if !field_value(f.ty, got, &fpath, &f.key, cx, r) {
                    continue;
                }
                if f.kebab
                    && let Some(s) = got.as_str()
                    && !is_kebab(s)
                {
                    r.error(
                        ProblemKind::Pattern,
                        &fpath,
                        format!("\"{s}\" must be kebab-case: lower-case letters and digits joined by single dashes, like quest-letter"),
                    );
                }
                if let Some(options) = &f.options
                    && let Some(s) = got.as_str()
                    && !options.iter().any(|o| o == s)
                {
                    r.error(
                        ProblemKind::NotAnOption,
                        &fpath,
                        format!(
                            "\"{s}\" is not one of: {}{}",
                            options.join(", "),
                            did_you_mean(s, options.iter().map(String::as_str))
                        ),
                    );
                }
                if f.unique {
                    let key = got.to_string();
                    let firsts = seen.entry(f.key.as_str()).or_default();
                    if let Some(first) = firsts.get(&key) {
                        r.error(
                            ProblemKind::Duplicate,
                            &fpath,
                            format!(
                                "{} {key} is already used by row {first}; each row needs its own",
                                f.key
                            ),
                        );
                    } else {
                        firsts.insert(key, i);
                    }
                }
                row_description(&f.key, got, &fpath, r);
            }
            for key in row.keys() {
                if !list.fields.iter().any(|f| &f.key == key) {
                    r.error(
                        ProblemKind::Unknown,
                        format!("{rpath}/{}", segment(key)),
                        format!(
                            "a row has no field \"{key}\"{}",
                            did_you_mean(key, list.fields.iter().map(|f| f.key.as_str()))
                        ),
                    );
                }
            }
        }
    }
    for key in given.keys() {
        if !c.rows.iter().any(|l| &l.key == key) {
            r.error(
                ProblemKind::Unknown,
                format!("/rows/{}", segment(key)),
                format!("container-1 declares no row list \"{key}\"; its rows go in \"items\""),
            );
        }
    }
    facts
}

/// Checks a field's type; returns whether further checks make sense.
fn field_value(
    ty: FieldType,
    got: &Value,
    path: &str,
    key: &str,
    cx: Context<'_>,
    r: &mut Report,
) -> bool {
    let ok = match ty {
        FieldType::String => got.is_string(),
        FieldType::Citation => got.is_string(),
        FieldType::Integer => {
            got.is_i64() || got.is_u64() || got.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        FieldType::Number => got.is_number(),
    };
    if !ok {
        let want = match ty {
            FieldType::String => "text",
            FieldType::Citation => "a citation (text like 02-mechanics.md#equipment)",
            FieldType::Integer => "a whole number",
            FieldType::Number => "a number",
        };
        r.error(
            ProblemKind::WrongType,
            path,
            format!("\"{key}\" must be {want}, not {}", kind_of(got)),
        );
        return false;
    }
    if ty == FieldType::Citation
        && let Some(text) = got.as_str()
    {
        citation(text, path, cx, r);
    }
    true
}

fn citation(text: &str, path: &str, cx: Context<'_>, r: &mut Report) {
    match Citation::parse(text) {
        Err(e) => r.error(ProblemKind::Citation, path, e.to_string()),
        Ok(c) => {
            if let Some(prose) = cx.prose
                && let Err(e) = c.resolve(prose)
            {
                r.error(
                    ProblemKind::Citation,
                    path,
                    format!("{e} (prose folder {})", prose.display()),
                );
            }
        }
    }
}

fn row_description(key: &str, got: &Value, path: &str, r: &mut Report) {
    match key {
        "stack-limit" => {
            let ok = got
                .as_u64()
                .is_some_and(|n| (1..=u64::from(u32::MAX)).contains(&n));
            if !ok {
                r.error(
                    ProblemKind::OutOfRange,
                    path,
                    format!("stack-limit is {got}; use 1 for an item that does not stack, or another whole number up to {}", u32::MAX),
                );
            }
        }
        "size" => {
            match got.as_f64().map(|f| f < 0.0) {
                Some(true) => r.error(
                    ProblemKind::OutOfRange,
                    path,
                    format!("size is {got}; use zero or more"),
                ),
                _ => {
                    if got
                        .as_f64()
                        .and_then(|f| Decimal::from_f64(f).ok())
                        .is_none()
                    {
                        r.error(
                        ProblemKind::Inexact,
                        path,
                        format!("size {got} must have at most six decimals and be no larger than 10^15"),
                    );
                    }
                }
            }
        }
        "forced-out-order" if got.as_i64().is_none() => {
            r.error(
                    ProblemKind::OutOfRange,
                    path,
                    format!("forced-out-order {got} is too large; any whole number that orders the types will do"),
                );
        }
        _ => {}
    }
}

fn description(answers: &Answers, values: &Values, rows: &RowFacts, r: &mut Report) {
    let capacity = answers.get("capacity-limit").map(String::as_str);
    let has_slots = matches!(capacity, Some("slot-count" | "slots-and-size"));
    let has_budget = matches!(capacity, Some("size-budget" | "slots-and-size"));
    if let Some(slots) = values.get("slot-count") {
        let n = slots.number;
        let whole = Rational::new(n_floor(n), 1) == Some(n);
        let from = slots
            .from_key
            .as_ref()
            .map(|k| format!(" (from tuning key \"{k}\")"))
            .unwrap_or_default();
        if !whole {
            r.error(
                ProblemKind::OutOfRange,
                "/values/slot-count",
                format!(
                    "slot-count is {}{from}; it counts slots, so use a whole number",
                    slots.text
                ),
            );
        } else if has_slots && n_floor(n) < 1 {
            r.error(
                ProblemKind::OutOfRange,
                "/values/slot-count",
                format!("slot-count is {}{from}; a container whose slots set its capacity needs at least one", slots.text),
            );
        } else if has_slots && n_floor(n) > i128::from(MAX_SLOTS) {
            r.error(
                ProblemKind::OutOfRange,
                "/values/slot-count",
                format!(
                    "slot-count is {}{from}; the most slots a container may have is {MAX_SLOTS}",
                    slots.text
                ),
            );
        } else if !has_slots && capacity.is_some() && n_floor(n) != 0 {
            r.warning(
                ProblemKind::Unused,
                "/values/slot-count",
                format!("slot-count is {}{from} but this container has no slot limit; use 0 so nobody mistakes it for a cap", slots.text),
            );
        }
        if has_slots
            && whole
            && answers.get("fill-order").map(String::as_str) == Some("not-applicable")
            && i128::try_from(rows.count).is_ok_and(|c| c > n_floor(n))
        {
            r.error(
                ProblemKind::OutOfRange,
                "/answers/fill-order",
                format!(
                    "fill-order not-applicable reserves one slot per row, but there are {} rows and slot-count is {}; add slots or choose another fill order",
                    rows.count, slots.text
                ),
            );
        }
    }
    if let Some(budget) = values.get("size-budget") {
        let zero = budget.number == Rational::int(0);
        if !has_budget && capacity.is_some() && !zero {
            r.warning(
                ProblemKind::Unused,
                "/values/size-budget",
                format!(
                    "size-budget is {} but size does not limit this container; use 0",
                    budget.text
                ),
            );
        }
        if has_budget
            && budget.number.is_non_negative()
            && Decimal::from_f64(budget.text.parse().unwrap_or(f64::NAN)).is_err()
        {
            r.error(
                ProblemKind::Inexact,
                "/values/size-budget",
                format!(
                    "size-budget {} must have at most six decimals and be no larger than 10^15",
                    budget.text
                ),
            );
        }
    }
}

fn n_floor(n: Rational) -> i128 {
    n.floor()
}

fn verification(v: Option<&Value>, cx: Context<'_>, r: &mut Report) {
    let Some(v) = v else { return };
    let Some(tests) = v.as_object() else {
        r.error(
            ProblemKind::WrongType,
            "/verification",
            "verification is an object of test name to {\"scope\": ..., \"seeds\": [...]}",
        );
        return;
    };
    for (name, t) in tests {
        let path = format!("/verification/{}", segment(name));
        if !TEST_NAMES.contains(&name.as_str()) {
            r.warning(
                ProblemKind::Unknown,
                &path,
                format!(
                    "container-1 has no test \"{name}\"; it is ignored{}",
                    did_you_mean(name, TEST_NAMES)
                ),
            );
            continue;
        }
        let Some(t) = t.as_object() else {
            r.error(
                ProblemKind::WrongType,
                &path,
                "a test's verification is an object with \"scope\" and/or \"seeds\"",
            );
            continue;
        };
        for (k, val) in t {
            let kpath = format!("{path}/{}", segment(k));
            match k.as_str() {
                "scope" => match val.as_str() {
                    Some(s) if looks_like_citation(s) => citation(s, &kpath, cx, r),
                    Some(_) => {}
                    None => r.error(ProblemKind::WrongType, kpath, "scope is text: prose, or a citation like 02-mechanics.md#the-backpack"),
                },
                "seeds" => {
                    let ok = val
                        .as_array()
                        .is_some_and(|a| a.iter().all(|s| s.as_str().is_some_and(|s| !s.is_empty())));
                    if !ok {
                        r.error(ProblemKind::WrongType, kpath, "seeds is a list of seed names, like [\"backpack-audit-a\"]");
                    }
                    let names: Vec<&str> = val
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    let unique: BTreeSet<&&str> = names.iter().collect();
                    if unique.len() != names.len() {
                        r.warning(ProblemKind::Duplicate, format!("{path}/seeds"), "a seed is listed twice; it runs once");
                    }
                }
                _ => r.warning(
                    ProblemKind::Unknown,
                    kpath,
                    format!("a test's verification has \"scope\" and \"seeds\", not \"{k}\"; it is ignored"),
                ),
            }
        }
    }
}

/// Whether a scope is written as a citation (`file.md#anchor`) rather than
/// prose.
pub fn looks_like_citation(s: &str) -> bool {
    !s.chars().any(char::is_whitespace) && Citation::parse(s).is_ok()
}
