//! The strict-reader vocabulary: the words every reader of the crate uses to
//! read a parsed tree one field at a time, reporting every mistake into one
//! [`Report`] at its JSON-pointer path.
//!
//! [`parse`](super::parse) turns bytes into a tree; the adoption validator,
//! the save reader, the scenario reader and the occurrence-list reader then
//! read that tree with these words, so a field is read, and a mistake
//! worded, the same way everywhere:
//!
//! | word | reads | the problem when it is wrong |
//! | --- | --- | --- |
//! | [`Obj::required`] | a field that must be there | missing: `add "amount": a whole number from 0 to 4294967295` |
//! | [`Obj::optional`] | a field that may be left out | as its [`Want`] |
//! | [`Whole`] | a whole number in a range | out-of-range: `"amount" is 0; use a whole number from 1 to 4294967295` |
//! | [`Int`] | a whole number that may be negative | out-of-range |
//! | [`Kebab`] | a kebab-case id | pattern: `"Rope" must be kebab-case: ...` |
//! | [`DecimalNumber`], [`DecimalText`] | an exact [`Decimal`], written as a number or as text | inexact, with [`DecimalError`](crate::decimal::DecimalError)'s fix |
//! | [`Text`], [`NonEmptyText`] | text | wrong-type |
//! | [`OneOf`] | one word of a list | not-an-option, naming the options and the likely typo |
//! | [`Bool`] | true or false | wrong-type |
//! | [`List`], [`Object`], [`Any`] | a list, an object, anything (read by the caller) | wrong-type, saying what belongs there |
//! | [`Obj::refuse_unknown`] | the keys of an object | unknown, listing the known keys |
//!
//! A value of the wrong type is always worded `"key" must be WHAT, not
//! KIND` ([`wrong_type`]), where WHAT is the [`Want::describe`] that a
//! missing field's `add "key": WHAT` uses too.
//!
//! Every reading word returns an `Option`: `None` means the problem is
//! already in the report, so `?` skips what depends on the field. A reader
//! that must never half-read a file checks [`Report::has_errors`] at the end
//! rather than trusting that it got a value.
//!
//! ```text
//! let obj = Obj::of(&tree, "", "a save is an object with ...", &mut report)?;
//! obj.refuse_unknown(&["format", "counter"], &mut report);
//! let format = obj.required("format", Whole::U32, &mut report);
//! let counter = obj.required("counter", Whole::U64, &mut report);
//! ```

// The engine-only build (no `replay` or `scenario`) reads adoptions and saves
// only; a few words here are used by the scenario and occurrence readers.
#![cfg_attr(not(all(feature = "replay", feature = "scenario")), allow(dead_code))]

use serde_json::{Map, Value};

use crate::adoption::report::{ProblemKind, Report, segment};
use crate::decimal::Decimal;

/// How much of a long value a message quotes.
const SHOWN_CHARS: usize = 40;

/// What a value is, in a designer's words: `text`, `a number`, `a list`...
pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true/false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Whether `s` is kebab-case: lower-case letters and digits joined by
/// single dashes (`quest-letter`, `item-2`).
pub(crate) fn is_kebab(s: &str) -> bool {
    !s.is_empty()
        && s.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// ` (did you mean "KNOWN"?)` when `got` is a likely typo of a known name,
/// otherwise nothing.
pub(crate) fn did_you_mean<'a>(got: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let best = known.into_iter().map(|k| (edit_distance(got, k), k)).min();
    match best {
        Some((d, k)) if d <= 3 && d < got.len() => format!(" (did you mean \"{k}\"?)"),
        _ => String::new(),
    }
}

/// Levenshtein distance over the first 64 characters of each.
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

/// The start of a long value, for a message.
fn shown(s: &str) -> String {
    s.chars().take(SHOWN_CHARS).collect()
}

/// The path of `key` inside the object at `at`: `/slots/3` and `item` give
/// `/slots/3/item` (the key escaped as a JSON-pointer segment).
pub(crate) fn key_path(at: &str, key: &str) -> String {
    format!("{at}/{}", segment(key))
}

/// The keys of `map` that are not in `known`, in the file's order.
pub(crate) fn unknown_keys<'m>(map: &'m Map<String, Value>, known: &[&str]) -> Vec<&'m str> {
    map.keys()
        .map(String::as_str)
        .filter(|k| !known.contains(k))
        .collect()
}

/// Reports a value of the wrong type: `NAME must be WANT, not GOT`, where
/// NAME is the field (`"amount"`) and GOT what the value is ([`kind_of`]).
pub(crate) fn wrong_type(r: &mut Report, path: &str, name: &str, want: &str, got: &str) {
    r.error(
        ProblemKind::WrongType,
        path,
        format!("{name} must be {want}, not {got}"),
    );
}

/// Checks that `s` is one of `options`; reports `"s" is not one of: ...`
/// with the likely typo when it is not.
pub(crate) fn one_of(s: &str, options: &[&str], path: &str, r: &mut Report) -> bool {
    if options.contains(&s) {
        return true;
    }
    r.error(
        ProblemKind::NotAnOption,
        path,
        format!(
            "\"{s}\" is not one of: {}{}",
            options.join(", "),
            did_you_mean(s, options.iter().copied())
        ),
    );
    false
}

/// What a value must be: how a message describes it, and how it is read.
pub(crate) trait Want<'v> {
    /// What a value reads to.
    type Out;

    /// What belongs there, in a designer's words (`a whole number from 0
    /// to 9`); it follows `add "key": ` and `must be`.
    fn describe(&self) -> String;

    /// Reads `v`, found at `path`; `name` (the field, `"amount"`) starts the
    /// messages. `None` when `v` is wrong, with the problem reported.
    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<Self::Out>;
}

/// An object being read: its entries and where it is in the file.
#[derive(Clone, Debug)]
pub(crate) struct Obj<'v> {
    map: &'v Map<String, Value>,
    at: String,
}

impl<'v> Obj<'v> {
    /// An object already known to be one, found at `at`.
    pub(crate) fn new(map: &'v Map<String, Value>, at: impl Into<String>) -> Obj<'v> {
        Obj { map, at: at.into() }
    }

    /// `v` as an object found at `at`; otherwise a wrong-type problem whose
    /// message is `message`, whole (for a file or a list's entry, which have
    /// no key to name): `a stack is {item, amount, began, last-received}`.
    pub(crate) fn of(v: &'v Value, at: &str, message: &str, r: &mut Report) -> Option<Obj<'v>> {
        match v.as_object() {
            Some(map) => Some(Obj::new(map, at)),
            None => {
                r.error(ProblemKind::WrongType, at, message);
                None
            }
        }
    }

    /// The entries.
    pub(crate) fn map(&self) -> &'v Map<String, Value> {
        self.map
    }

    /// Where the object is: a JSON pointer, empty for the whole file.
    pub(crate) fn at(&self) -> &str {
        &self.at
    }

    /// Where its field `key` is.
    pub(crate) fn path(&self, key: &str) -> String {
        key_path(&self.at, key)
    }

    /// Field `key`, unread: for a field whose absence means something.
    pub(crate) fn get(&self, key: &str) -> Option<&'v Value> {
        self.map.get(key)
    }

    /// Whether field `key` is there.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// A field that must be there: a missing problem
    /// (`add "key": WHAT`) when it is not, else read as `want` says.
    pub(crate) fn required<W: Want<'v>>(
        &self,
        key: &str,
        want: W,
        r: &mut Report,
    ) -> Option<W::Out> {
        match self.map.get(key) {
            None => {
                r.error(
                    ProblemKind::Missing,
                    self.path(key),
                    format!("add \"{key}\": {}", want.describe()),
                );
                None
            }
            Some(v) => want.read(v, &self.path(key), &format!("\"{key}\""), r),
        }
    }

    /// A field that may be left out: `Some(None)` when it is, `Some(Some(_))`
    /// when it is there and reads, `None` when it is there and wrong (the
    /// problem reported), so `?` stops at a wrong value only.
    pub(crate) fn optional<W: Want<'v>>(
        &self,
        key: &str,
        want: W,
        r: &mut Report,
    ) -> Option<Option<W::Out>> {
        match self.map.get(key) {
            None => Some(None),
            Some(v) => want
                .read(v, &self.path(key), &format!("\"{key}\""), r)
                .map(Some),
        }
    }

    /// Refuses every key not in `known`: an unknown problem at each,
    /// listing the known keys (and the likely typo).
    pub(crate) fn refuse_unknown(&self, known: &[&str], r: &mut Report) {
        for key in unknown_keys(self.map, known) {
            r.error(
                ProblemKind::Unknown,
                self.path(key),
                format!(
                    "unknown field \"{key}\"{}; the fields here are {}",
                    did_you_mean(key, known.iter().copied()),
                    known.join(", ")
                ),
            );
        }
    }
}

/// A whole number from `min` to `max`, both included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Whole {
    /// The smallest allowed.
    pub min: u64,
    /// The largest allowed.
    pub max: u64,
}

impl Whole {
    /// Any amount an item count holds: 0 to `u32::MAX`.
    pub(crate) const U32: Whole = Whole::at_most(u32::MAX as u64);
    /// Any whole number within 64 bits: 0 to `u64::MAX`.
    pub(crate) const U64: Whole = Whole::at_most(u64::MAX);

    /// 0 to `max`.
    pub(crate) const fn at_most(max: u64) -> Whole {
        Whole { min: 0, max }
    }

    /// `min` to `max`.
    pub(crate) const fn between(min: u64, max: u64) -> Whole {
        Whole { min, max }
    }
}

impl<'v> Want<'v> for Whole {
    type Out = u64;

    fn describe(&self) -> String {
        match (self.min, self.max) {
            (0, u64::MAX) => "a whole number".into(),
            (min, u64::MAX) => format!("a whole number of at least {min}"),
            (min, max) => format!("a whole number from {min} to {max}"),
        }
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<u64> {
        match v {
            Value::Number(n) => match n.as_u64() {
                Some(n) if (self.min..=self.max).contains(&n) => Some(n),
                _ => {
                    r.error(
                        ProblemKind::OutOfRange,
                        path,
                        format!("{name} is {v}; use {}", self.describe()),
                    );
                    None
                }
            },
            _ => {
                wrong_type(r, path, name, &self.describe(), kind_of(v));
                None
            }
        }
    }
}

/// A whole number within 64 bits that may be negative.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Int;

impl<'v> Want<'v> for Int {
    type Out = i64;

    fn describe(&self) -> String {
        "a whole number".into()
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<i64> {
        match v {
            Value::Number(n) => match n.as_i64() {
                Some(n) => Some(n),
                None => {
                    r.error(
                        ProblemKind::OutOfRange,
                        path,
                        format!(
                            "{name} is {v}; use a whole number from {} to {}",
                            i64::MIN,
                            i64::MAX
                        ),
                    );
                    None
                }
            },
            _ => {
                wrong_type(r, path, name, &self.describe(), kind_of(v));
                None
            }
        }
    }
}

/// Item properties: an object of key to number, text or true/false (as a
/// scenario writes them), or their canonical text (as a save writes them).
/// A problem names the key inside (`/steps/3/props/quality`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PropsField;

impl<'v> Want<'v> for PropsField {
    type Out = crate::props::Props;

    fn describe(&self) -> String {
        "properties (an object of key to number, text or true/false)".into()
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<Self::Out> {
        let read = match v {
            Value::Object(_) => crate::props::Props::from_json(v),
            Value::String(s) => crate::props::Props::parse(s),
            other => {
                wrong_type(r, path, name, "properties (an object)", kind_of(other));
                return None;
            }
        };
        match read {
            Ok(p) => Some(p),
            Err(e) => {
                let at = match e.key() {
                    Some(k) if v.is_object() => key_path(path, k),
                    _ => path.to_string(),
                };
                let kind = match e {
                    crate::props::PropsError::Number { .. }
                    | crate::props::PropsError::TextTooLong { .. }
                    | crate::props::PropsError::TooMany { .. } => ProblemKind::OutOfRange,
                    crate::props::PropsError::BadKey { .. } => ProblemKind::Pattern,
                    crate::props::PropsError::DuplicateKey { .. } => ProblemKind::Duplicate,
                    _ => ProblemKind::WrongType,
                };
                r.error(kind, at, e.to_string());
                None
            }
        }
    }
}

/// Text, empty or not.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Text;

impl<'v> Want<'v> for Text {
    type Out = &'v str;

    fn describe(&self) -> String {
        "text".into()
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<&'v str> {
        let s = v.as_str();
        if s.is_none() {
            wrong_type(r, path, name, "text", kind_of(v));
        }
        s
    }
}

/// Text with at least one character.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NonEmptyText;

impl<'v> Want<'v> for NonEmptyText {
    type Out = &'v str;

    fn describe(&self) -> String {
        "non-empty text".into()
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<&'v str> {
        match v.as_str() {
            Some(s) if !s.is_empty() => Some(s),
            Some(_) => {
                wrong_type(r, path, name, "non-empty text", "empty text");
                None
            }
            None => {
                wrong_type(r, path, name, "non-empty text", kind_of(v));
                None
            }
        }
    }
}

/// A kebab-case id of at most this many bytes ([`Kebab::ANY_LENGTH`] for
/// no limit).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kebab(pub usize);

impl Kebab {
    /// Kebab-case of any length.
    pub(crate) const ANY_LENGTH: Kebab = Kebab(usize::MAX);

    /// Checks text already read: a pattern problem when it is too long or
    /// not kebab-case.
    pub(crate) fn check(&self, s: &str, path: &str, r: &mut Report) -> bool {
        let fix = if s.len() > self.0 {
            format!(
                "is longer than {} characters; use a shorter kebab-case id",
                self.0
            )
        } else if !is_kebab(s) {
            "must be kebab-case: lower-case letters and digits joined by single dashes, like quest-letter".into()
        } else {
            return true;
        };
        r.error(
            ProblemKind::Pattern,
            path,
            format!("\"{}\" {fix}", shown(s)),
        );
        false
    }
}

impl<'v> Want<'v> for Kebab {
    type Out = &'v str;

    fn describe(&self) -> String {
        "a kebab-case id, like quest-letter".into()
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<&'v str> {
        let Some(s) = v.as_str() else {
            wrong_type(r, path, name, &self.describe(), kind_of(v));
            return None;
        };
        self.check(s, path, r).then_some(s)
    }
}

/// One word of a list (`never`, `dropped-nearby`, ...).
#[derive(Clone, Copy, Debug)]
pub(crate) struct OneOf<'a>(pub &'a [&'a str]);

impl<'v> Want<'v> for OneOf<'_> {
    type Out = &'v str;

    fn describe(&self) -> String {
        format!("one of: {}", self.0.join(", "))
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<&'v str> {
        let Some(s) = v.as_str() else {
            wrong_type(r, path, name, &self.describe(), kind_of(v));
            return None;
        };
        one_of(s, self.0, path, r).then_some(s)
    }
}

/// True or false.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bool;

impl<'v> Want<'v> for Bool {
    type Out = bool;

    fn describe(&self) -> String {
        "true or false".into()
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<bool> {
        let b = v.as_bool();
        if b.is_none() {
            wrong_type(r, path, name, "true or false", kind_of(v));
        }
        b
    }
}

/// An exact [`Decimal`] written as a number (`7.5`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct DecimalNumber;

impl<'v> Want<'v> for DecimalNumber {
    type Out = Decimal;

    fn describe(&self) -> String {
        "a number of zero or more with at most six decimals, like 7.5".into()
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<Decimal> {
        let Some(f) = v.as_f64() else {
            wrong_type(r, path, name, &self.describe(), kind_of(v));
            return None;
        };
        Decimal::from_f64(f)
            .map_err(|e| r.error(ProblemKind::Inexact, path, format!("{name} is {v}; {e}")))
            .ok()
    }
}

/// An exact [`Decimal`] written as text (`"7.5"`); reads to the text as
/// written, which is known to parse.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DecimalText;

impl<'v> Want<'v> for DecimalText {
    type Out = &'v str;

    fn describe(&self) -> String {
        "decimal text such as \"7.5\"".into()
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<&'v str> {
        let Some(s) = v.as_str() else {
            wrong_type(r, path, name, &self.describe(), kind_of(v));
            return None;
        };
        match s.parse::<Decimal>() {
            Ok(_) => Some(s),
            Err(e) => {
                r.error(
                    ProblemKind::Inexact,
                    path,
                    format!("{name} is \"{}\"; {e}", shown(s)),
                );
                None
            }
        }
    }
}

/// A list; the text says what belongs in it (`a list of steps`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct List<'a>(pub &'a str);

impl<'v> Want<'v> for List<'_> {
    type Out = &'v [Value];

    fn describe(&self) -> String {
        self.0.to_string()
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<&'v [Value]> {
        let list = v.as_array().map(Vec::as_slice);
        if list.is_none() {
            wrong_type(r, path, name, self.0, kind_of(v));
        }
        list
    }
}

/// An object; the text says what belongs in it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Object<'a>(pub &'a str);

impl<'v> Want<'v> for Object<'_> {
    type Out = Obj<'v>;

    fn describe(&self) -> String {
        self.0.to_string()
    }

    fn read(&self, v: &'v Value, path: &str, name: &str, r: &mut Report) -> Option<Obj<'v>> {
        match v.as_object() {
            Some(map) => Some(Obj::new(map, path)),
            None => {
                wrong_type(r, path, name, self.0, kind_of(v));
                None
            }
        }
    }
}

/// Any value, for the caller to read (a field that may be text or an
/// object); the text says what belongs there when it is missing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Any<'a>(pub &'a str);

impl<'v> Want<'v> for Any<'_> {
    type Out = &'v Value;

    fn describe(&self) -> String {
        self.0.to_string()
    }

    fn read(&self, v: &'v Value, _: &str, _: &str, _: &mut Report) -> Option<&'v Value> {
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Each problem's kind, path and message.
    fn problems(r: &Report) -> Vec<(ProblemKind, &str, &str)> {
        r.problems
            .iter()
            .map(|p| (p.kind, p.path.as_str(), p.message.as_str()))
            .collect()
    }

    #[test]
    fn a_required_field_is_read_or_reported_missing() {
        let tree = json!({"amount": 3});
        let mut r = Report::default();
        let obj = Obj::of(&tree, "/steps/0", "a step is an object", &mut r).unwrap();
        assert_eq!(obj.required("amount", Whole::U32, &mut r), Some(3));
        assert_eq!(obj.required("slot", Whole::U32, &mut r), None);
        assert_eq!(
            problems(&r),
            [(
                ProblemKind::Missing,
                "/steps/0/slot",
                "add \"slot\": a whole number from 0 to 4294967295"
            )]
        );
    }

    #[test]
    fn an_optional_field_may_be_left_out_but_not_wrong() {
        let tree = json!({"slot": 2, "bad": "x"});
        let mut r = Report::default();
        let obj = Obj::of(&tree, "", "", &mut r).unwrap();
        assert_eq!(obj.optional("slot", Whole::U32, &mut r), Some(Some(2)));
        assert_eq!(obj.optional("other", Whole::U32, &mut r), Some(None));
        assert_eq!(obj.optional("bad", Whole::U32, &mut r), None);
        assert_eq!(
            problems(&r),
            [(
                ProblemKind::WrongType,
                "/bad",
                "\"bad\" must be a whole number from 0 to 4294967295, not text"
            )]
        );
    }

    #[test]
    fn a_whole_number_out_of_range_names_the_range() {
        let mut r = Report::default();
        let at_least_one = Whole::between(1, 9);
        assert_eq!(at_least_one.read(&json!(9), "/n", "\"n\"", &mut r), Some(9));
        for bad in [json!(0), json!(10), json!(-1), json!(1.5)] {
            assert_eq!(at_least_one.read(&bad, "/n", "\"n\"", &mut r), None);
        }
        assert_eq!(r.problems.len(), 4);
        assert!(r.problems.iter().all(|p| p.kind == ProblemKind::OutOfRange));
        assert_eq!(
            r.problems[0].message,
            "\"n\" is 0; use a whole number from 1 to 9"
        );
        assert_eq!(
            Whole::between(1, u64::MAX).describe(),
            "a whole number of at least 1"
        );
        assert_eq!(Whole::U64.describe(), "a whole number");
        assert_eq!(Int.read(&json!(-4), "/o", "\"o\"", &mut r), Some(-4));
        assert_eq!(Int.read(&json!(1.5), "/o", "\"o\"", &mut r), None);
    }

    #[test]
    fn unknown_keys_are_refused_with_the_known_ones() {
        let tree = json!({"item": "a", "amout": 1, "a/b": 2});
        let mut r = Report::default();
        let obj = Obj::of(&tree, "/slots/0", "", &mut r).unwrap();
        obj.refuse_unknown(&["item", "amount"], &mut r);
        assert_eq!(
            problems(&r),
            [
                (
                    ProblemKind::Unknown,
                    "/slots/0/amout",
                    "unknown field \"amout\" (did you mean \"amount\"?); the fields here are item, amount"
                ),
                (
                    ProblemKind::Unknown,
                    "/slots/0/a~1b",
                    "unknown field \"a/b\"; the fields here are item, amount"
                ),
            ]
        );
        assert_eq!(unknown_keys(obj.map(), &["item"]), ["amout", "a/b"]);
    }

    #[test]
    fn kebab_ids_text_and_words() {
        let mut r = Report::default();
        assert_eq!(
            Kebab(8).read(&json!("quest-1"), "/id", "\"id\"", &mut r),
            Some("quest-1")
        );
        assert_eq!(
            Kebab(8).read(&json!("Quest"), "/id", "\"id\"", &mut r),
            None
        );
        assert_eq!(
            Kebab(4).read(&json!("quest"), "/id", "\"id\"", &mut r),
            None
        );
        assert!(Kebab::ANY_LENGTH.check(&"a".repeat(1000), "/id", &mut r));
        assert_eq!(
            problems(&r),
            [
                (
                    ProblemKind::Pattern,
                    "/id",
                    "\"Quest\" must be kebab-case: lower-case letters and digits joined by single dashes, like quest-letter"
                ),
                (
                    ProblemKind::Pattern,
                    "/id",
                    "\"quest\" is longer than 4 characters; use a shorter kebab-case id"
                ),
            ]
        );
        for bad in ["", "-a", "a-", "a--b", "a_b", "Ab"] {
            assert!(!is_kebab(bad), "{bad}");
        }

        let mut r = Report::default();
        assert_eq!(Text.read(&json!(""), "/t", "\"t\"", &mut r), Some(""));
        assert_eq!(NonEmptyText.read(&json!(""), "/t", "\"t\"", &mut r), None);
        assert_eq!(Text.read(&json!(1), "/t", "\"t\"", &mut r), None);
        let words = OneOf(&["never", "destroyed"]);
        assert_eq!(
            words.read(&json!("never"), "/w", "\"w\"", &mut r),
            Some("never")
        );
        assert_eq!(words.read(&json!("nevr"), "/w", "\"w\"", &mut r), None);
        assert_eq!(Bool.read(&json!(true), "/b", "\"b\"", &mut r), Some(true));
        assert_eq!(Bool.read(&json!("yes"), "/b", "\"b\"", &mut r), None);
        assert_eq!(
            problems(&r),
            [
                (
                    ProblemKind::WrongType,
                    "/t",
                    "\"t\" must be non-empty text, not empty text"
                ),
                (
                    ProblemKind::WrongType,
                    "/t",
                    "\"t\" must be text, not a number"
                ),
                (
                    ProblemKind::NotAnOption,
                    "/w",
                    "\"nevr\" is not one of: never, destroyed (did you mean \"never\"?)"
                ),
                (
                    ProblemKind::WrongType,
                    "/b",
                    "\"b\" must be true or false, not text"
                ),
            ]
        );
    }

    #[test]
    fn decimals_are_exact_as_numbers_and_as_text() {
        let mut r = Report::default();
        let half: Decimal = "0.5".parse().unwrap();
        assert_eq!(
            DecimalNumber.read(&json!(0.5), "/d", "\"d\"", &mut r),
            Some(half)
        );
        assert_eq!(
            DecimalText.read(&json!("7.50"), "/d", "\"d\"", &mut r),
            Some("7.50")
        );
        assert!(!r.has_errors());
        assert_eq!(
            DecimalNumber.read(&json!(1e-7), "/d", "\"d\"", &mut r),
            None
        );
        assert_eq!(
            DecimalText.read(&json!("0.0000001"), "/d", "\"d\"", &mut r),
            None
        );
        assert_eq!(DecimalText.read(&json!(7.5), "/d", "\"d\"", &mut r), None);
        let kinds: Vec<ProblemKind> = r.problems.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                ProblemKind::Inexact,
                ProblemKind::Inexact,
                ProblemKind::WrongType
            ]
        );
        assert!(r.problems[1].message.contains("six decimals"), "{r}");
    }

    #[test]
    fn lists_objects_and_whole_files() {
        let tree = json!({"steps": [1], "about": {"x": 1}, "adoption": "a.json"});
        let mut r = Report::default();
        let obj = Obj::of(&tree, "", "a scenario is an object", &mut r).unwrap();
        assert_eq!(
            obj.required("steps", List("a list of steps"), &mut r)
                .map(|l| l.len()),
            Some(1)
        );
        let about = obj.required("about", Object("an object"), &mut r).unwrap();
        assert_eq!(about.at(), "/about");
        assert_eq!(about.path("x"), "/about/x");
        assert!(about.has("x") && about.get("y").is_none());
        assert_eq!(
            obj.required("adoption", Any("a path"), &mut r),
            Some(&json!("a.json"))
        );
        assert_eq!(obj.required("about", List("a list of steps"), &mut r), None);
        assert!(Obj::of(&json!([]), "", "a scenario is an object", &mut r).is_none());
        assert_eq!(
            problems(&r),
            [
                (
                    ProblemKind::WrongType,
                    "/about",
                    "\"about\" must be a list of steps, not an object"
                ),
                (ProblemKind::WrongType, "", "a scenario is an object"),
            ]
        );
    }

    #[test]
    fn a_typo_is_named_only_when_close() {
        assert_eq!(
            did_you_mean("fill-ordr", ["fill-order", "draw-order"]),
            " (did you mean \"fill-order\"?)"
        );
        assert_eq!(did_you_mean("colour", ["fill-order"]), "");
        assert_eq!(kind_of(&json!(null)), "null");
        assert_eq!(key_path("", "a~b"), "/a~0b");
    }
}
