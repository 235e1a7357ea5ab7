//! Validation: every problem in an adoption file, found in one pass.
//!
//! The checks follow the guide's [`guide::adoption`](crate::guide::adoption) chapter and are driven by the
//! embedded contract text: questions and their `when`, the declared values,
//! the row record schema, and the rules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value};

use super::citation::Citation;
use super::contract::{self, Contract, Field, FieldType, RowList, When};
use super::expr::{Rational, Rule};
use super::model::Adoption;
use super::report::{ProblemKind, Report, segment};
use super::source::fields::{
    Kebab, Obj, did_you_mean, is_kebab, key_path, kind_of, one_of, unknown_keys, wrong_type,
};
use super::tuning::Tuning;
use crate::decimal::Decimal;

use crate::limits::MAX_SLOTS;

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
pub const TEST_NAMES: [&str; 10] = super::contract_tests::ContractTest::names();

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
    let Some(obj) = Obj::of(
        root,
        "",
        "an adoption file is one object with contract, version, answers, values and rows",
        &mut r,
    ) else {
        return r;
    };
    let obj = obj.map();
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

/// A section of the file that must be an object (`answers`, `values`,
/// `rows`): `None` when it is missing or not an object, reported as
/// `missing`, or as `wrong` followed by what it is.
fn section<'v>(
    v: Option<&'v Value>,
    path: &str,
    missing: &str,
    wrong: &str,
    r: &mut Report,
) -> Option<&'v Map<String, Value>> {
    match v {
        None => {
            r.error(ProblemKind::Missing, path, missing);
            None
        }
        Some(Value::Object(m)) => Some(m),
        Some(other) => {
            r.error(
                ProblemKind::WrongType,
                path,
                format!("{wrong}, not {}", kind_of(other)),
            );
            None
        }
    }
}

fn top_level(obj: &Map<String, Value>, c: &Contract, r: &mut Report) {
    let known: Vec<&str> = TOP_LEVEL
        .iter()
        .chain(contract::TEXT_FIELDS.iter())
        .copied()
        .collect();
    for key in unknown_keys(obj, &known) {
        r.warning(
            ProblemKind::Unknown,
            key_path("", key),
            format!(
                "\"{key}\" is not part of a container-1 adoption and is ignored{}",
                did_you_mean(key, known.iter().copied())
            ),
        );
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
    let given = section(
        v,
        "/answers",
        "add \"answers\": one answer per question",
        "answers must be an object of question to option",
        r,
    )
    .unwrap_or(&empty);
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
    let known: Vec<&str> = c.questions.iter().map(|q| q.key.as_str()).collect();
    for key in unknown_keys(given, &known) {
        r.error(
            ProblemKind::Unknown,
            key_path("/answers", key),
            format!(
                "container-1 has no question \"{key}\"{}",
                did_you_mean(key, known.iter().copied())
            ),
        );
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
    let given = section(
        v,
        "/values",
        &format!("add \"values\" with {}", c.values.join(" and ")),
        "values must be an object of name to number",
        r,
    )
    .unwrap_or(&empty);
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
        if let Some(resolved) = value(name, v, &path, cx, r) {
            out.insert(name.clone(), resolved);
        }
    }
    let known: Vec<&str> = c.values.iter().map(String::as_str).collect();
    for key in unknown_keys(given, &known) {
        r.error(
            ProblemKind::Unknown,
            key_path("/values", key),
            format!(
                "container-1 declares no value \"{key}\"{}",
                did_you_mean(key, known.iter().copied())
            ),
        );
    }
    out
}

/// One value: a number, or a tuning reference (resolved when the game's
/// tuning is known; `None` without a problem when it is not).
fn value(name: &str, v: &Value, path: &str, cx: Context<'_>, r: &mut Report) -> Option<Resolved> {
    let (f, from_key) = match v {
        Value::Number(n) => (n.as_f64(), None),
        Value::Object(o) if o.len() == 1 && o.contains_key("tuning") => {
            let (f, key) = tuning_ref(name, &o["tuning"], path, cx, r)?;
            (Some(f), Some(key))
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
            return None;
        }
    };
    match f.and_then(exact) {
        Some((number, text)) => Some(Resolved {
            number,
            text,
            from_key,
        }),
        None => {
            r.error(
                ProblemKind::Inexact,
                path,
                format!(
                    "{name} must be an exact number with at most six decimals, no larger than 10^15"
                ),
            );
            None
        }
    }
}

/// A value's `{"tuning": KEY}`: the key's number and the key, when the
/// tuning is known and has it.
fn tuning_ref(
    name: &str,
    key: &Value,
    path: &str,
    cx: Context<'_>,
    r: &mut Report,
) -> Option<(f64, String)> {
    let tpath = format!("{path}/tuning");
    let Some(key) = key.as_str() else {
        r.error(
            ProblemKind::WrongType,
            tpath,
            "a tuning reference names a key as text: {\"tuning\": \"backpack-slots\"}",
        );
        return None;
    };
    if !is_kebab(key) {
        r.error(
            ProblemKind::Pattern,
            tpath,
            format!("tuning key \"{key}\" must be kebab-case, like backpack-slots"),
        );
        return None;
    }
    // without the game's tuning, a reference is checked for form only
    let tuning = cx.tuning?;
    match tuning.get(key) {
        Some(f) => Some((f, key.to_string())),
        None => {
            r.error(
                ProblemKind::UnknownTuningKey,
                tpath,
                format!(
                    "{name} uses tuning key \"{key}\", which the game's tuning does not have; add it to the tuning or set a number here{}",
                    did_you_mean(key, tuning.values.keys().map(String::as_str))
                ),
            );
            None
        }
    }
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
    let given = section(
        v,
        "/rows",
        "add \"rows\": {\"items\": [...]}",
        "rows must be an object of list name to rows",
        r,
    )
    .unwrap_or(&empty);
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
        let mut check = RowCheck {
            answers,
            cx,
            seen: BTreeMap::new(),
        };
        for (i, row) in items.iter().enumerate() {
            check.row(list, row, i, &format!("{lpath}/{i}"), r);
        }
    }
    for key in given.keys() {
        if !c.rows.iter().any(|l| &l.key == key) {
            r.error(
                ProblemKind::Unknown,
                key_path("/rows", key),
                format!("container-1 declares no row list \"{key}\"; its rows go in \"items\""),
            );
        }
    }
    facts
}

/// Checking the rows of one list: the answers in force, the context, and
/// the values the rows so far gave their unique fields.
struct RowCheck<'a> {
    answers: &'a Answers,
    cx: Context<'a>,
    /// For each unique field, each value given and the first row that gave
    /// it.
    seen: BTreeMap<&'a str, BTreeMap<String, usize>>,
}

impl<'a> RowCheck<'a> {
    /// Row `i` of `list`, found at `rpath`.
    fn row(&mut self, list: &'a RowList, row: &Value, i: usize, rpath: &str, r: &mut Report) {
        let Some(row) = row.as_object() else {
            r.error(
                ProblemKind::WrongType,
                rpath,
                format!(
                    "each row is an object with id and its fields, not {}",
                    kind_of(row)
                ),
            );
            return;
        };
        for f in &list.fields {
            self.field(f, row, i, rpath, r);
        }
        let known: Vec<&str> = list.fields.iter().map(|f| f.key.as_str()).collect();
        for key in unknown_keys(row, &known) {
            r.error(
                ProblemKind::Unknown,
                key_path(rpath, key),
                format!(
                    "a row has no field \"{key}\"{}",
                    did_you_mean(key, known.iter().copied())
                ),
            );
        }
    }

    /// Field `f` of row `i`: present when it must be, of its type, kebab-case,
    /// one of its options and unique when the contract says so, and in the
    /// range the description gives.
    fn field(
        &mut self,
        f: &'a Field,
        row: &Map<String, Value>,
        i: usize,
        rpath: &str,
        r: &mut Report,
    ) {
        let fpath = format!("{rpath}/{}", f.key);
        let applies = when_holds(&f.when, self.answers, Some(row));
        let Some(got) = row.get(&f.key) else {
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
            return;
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
            return;
        }
        if !field_value(f.ty, got, &fpath, &f.key, self.cx, r) {
            return;
        }
        if f.kebab
            && let Some(s) = got.as_str()
        {
            Kebab::ANY_LENGTH.check(s, &fpath, r);
        }
        if let Some(options) = &f.options
            && let Some(s) = got.as_str()
        {
            let options: Vec<&str> = options.iter().map(String::as_str).collect();
            one_of(s, &options, &fpath, r);
        }
        if f.unique {
            self.unique(f, got, i, &fpath, r);
        }
        row_description(&f.key, got, &fpath, r);
    }

    /// A unique field's value, refused when an earlier row gave it.
    fn unique(&mut self, f: &'a Field, got: &Value, i: usize, fpath: &str, r: &mut Report) {
        let key = got.to_string();
        let firsts = self.seen.entry(f.key.as_str()).or_default();
        if let Some(first) = firsts.get(&key) {
            r.error(
                ProblemKind::Duplicate,
                fpath,
                format!(
                    "{} {key} is already used by row {first}; each row needs its own",
                    f.key
                ),
            );
        } else {
            firsts.insert(key, i);
        }
    }
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
        wrong_type(r, path, &format!("\"{key}\""), want, kind_of(got));
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
