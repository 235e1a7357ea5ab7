//! Saving and loading a container's contents.
//!
//! A save holds the stacks with their slot positions, the draw-order
//! bookkeeping and the capacity in force, together with the adoption it was
//! made under: its path and a SHA-256 content hash. Loading under the same
//! adoption restores the exact state (a capacity of the container's own,
//! such as a torn strap, included; otherwise the capacity is what the rules
//! and tuning say now); under a changed adoption (fewer
//! slots, a lower stack limit, a type no longer allowed, a smaller budget)
//! the forced-removal rules of the guide's [`guide::requests`](crate::guide::requests) settle what no longer fits and
//! the load reports what moved. A migration that would have to remove items
//! that never leave is refused: the load returns the refusal and the save is
//! untouched.
//!
//! ```
//! use std::sync::Arc;
//! use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
//! use bevy_container::save::{AdoptionId, SavedContents};
//!
//! let bytes = std::fs::read("assets/backpack.adoption.json")?;
//! let id = AdoptionId::of("backpack.adoption.json", &bytes);
//! let a = adoption::read(&bytes, adoption::Format::Json, Default::default())?;
//! let rules = Arc::new(Rules::compile(&a, &Tuning::default())?);
//!
//! let mut backpack = Contents::new(rules.clone());
//! backpack.deliver("berries", 25);
//! let text = backpack.save(&id).to_ron();
//!
//! let saved = SavedContents::read(text.as_bytes(), adoption::Format::Ron)?;
//! let loaded = Contents::load(rules, None, &saved, &id)?;
//! assert!(loaded.migrated.portions.is_empty());
//! assert_eq!(loaded.contents.count("berries"), 25);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::adoption::source;
use crate::adoption::source::fields::{
    Bool, DecimalText, Int, Kebab, List, Obj, Object, OneOf, PropsField, Text, Whole,
};
use crate::adoption::{MAX_SLOTS, ProblemKind, Report};
use crate::decimal::Decimal;
use crate::props::Props;
use crate::rules::WhenForcedOut;

/// The text formats a save is read in (the same as an adoption file's).
pub use crate::adoption::source::Format;

/// The save format this crate writes and reads.
pub const SAVE_FORMAT: u32 = 1;

/// The fields of a saved stack (`props` may be left out).
const STACK_FIELDS: [&str; 5] = ["item", "amount", "began", "last-received", "props"];

/// The longest item type id a save may hold.
pub const MAX_ID_LEN: usize = 256;

/// Which adoption a save was made under.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdoptionId {
    /// Its path (an asset path in a Bevy game).
    pub path: String,
    /// `sha256:` and the hex digest of the file's bytes.
    pub hash: String,
}

impl AdoptionId {
    /// The id of an adoption file from its path and bytes.
    pub fn of(path: impl Into<String>, bytes: &[u8]) -> AdoptionId {
        AdoptionId {
            path: path.into(),
            hash: crate::hash::sha256_hex(bytes),
        }
    }
}

/// One saved stack.
///
/// Its properties are written as their canonical text (exact, in every
/// format), and only when there are any in text formats: a plain stack is
/// saved as before properties existed, and a save from before reads as
/// plain. Binary formats (the replication wire) always carry the field.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SavedStack {
    /// The type.
    pub item: String,
    /// How many (at least one).
    pub amount: u32,
    /// The container counter when the stack began.
    pub began: u64,
    /// The container counter when it last received items.
    pub last_received: u64,
    /// The properties every item of the stack carries.
    #[serde(default)]
    pub props: Props,
}

impl Serialize for SavedStack {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let short = serializer.is_human_readable() && self.props.is_empty();
        let mut st = serializer.serialize_struct("SavedStack", if short { 4 } else { 5 })?;
        st.serialize_field("item", &self.item)?;
        st.serialize_field("amount", &self.amount)?;
        st.serialize_field("began", &self.began)?;
        st.serialize_field("last-received", &self.last_received)?;
        if short {
            st.skip_field("props")?;
        } else {
            st.serialize_field("props", &self.props)?;
        }
        st.end()
    }
}

/// A container's contents as saved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SavedContents {
    /// [`SAVE_FORMAT`].
    pub format: u32,
    /// The adoption the contents were saved under.
    pub adoption: AdoptionId,
    /// Whether the capacity in force was the container's own (a torn strap)
    /// rather than its adoption's values.
    pub resized: bool,
    /// The slot count in force.
    pub slot_count: u32,
    /// The size budget in force, as exact decimal text (`"7.5"`).
    pub size_budget: String,
    /// The container-wide counter of the draw-order bookkeeping.
    pub counter: u64,
    /// Each slot, `None` when empty (containers with slots).
    pub slots: Vec<Option<SavedStack>>,
    /// The holdings by type (slotless containers).
    pub holdings: Vec<SavedStack>,
    /// The forced-out rule each held, listed type had when saved: a type a
    /// changed adoption no longer lists still leaves by its old rule.
    pub rows: Vec<SavedRow>,
}

/// A held type's forced-out rule at the time of the save.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SavedRow {
    /// The type.
    pub item: String,
    /// Its `when-forced-out` word.
    pub when_forced_out: String,
    /// Its `forced-out-order`, when movable.
    pub forced_out_order: Option<i64>,
}

impl SavedContents {
    /// The save as pretty JSON; [`SavedContents::from_json`] reads it back.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// use bevy_container::save::{AdoptionId, SavedContents};
    /// # let bytes = std::fs::read("assets/backpack.adoption.json")?;
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default())?;
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default())?));
    /// # let id = AdoptionId::of("backpack.adoption.json", &bytes);
    /// backpack.deliver("berries", 25);
    /// let text = backpack.save(&id).to_json();
    /// assert_eq!(SavedContents::from_json(&text)?, backpack.save(&id));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The save as pretty RON; [`SavedContents::from_ron`] reads it back.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// use bevy_container::save::{AdoptionId, SavedContents};
    /// # let bytes = std::fs::read("assets/backpack.adoption.json")?;
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default())?;
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default())?));
    /// # let id = AdoptionId::of("backpack.adoption.json", &bytes);
    /// backpack.deliver("axe", 2);
    /// let text = backpack.save(&id).to_ron();
    /// assert_eq!(SavedContents::from_ron(&text)?, backpack.save(&id));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default()).unwrap_or_default()
    }

    /// Reads a save written as JSON ([`SavedContents::to_json`]), checking
    /// every field as [`SavedContents::read`] does.
    ///
    /// ```
    /// use bevy_container::save::SavedContents;
    ///
    /// // bad data is reported with its path in the save, and nothing is read
    /// let report = SavedContents::from_json(r#"{"format": 1}"#).unwrap_err();
    /// assert!(report.to_string().contains("/adoption"), "{report}");
    /// ```
    pub fn from_json(text: &str) -> Result<SavedContents, Report> {
        SavedContents::read(text.as_bytes(), Format::Json)
    }

    /// Reads a save written as RON ([`SavedContents::to_ron`]), checking
    /// every field as [`SavedContents::read`] does.
    ///
    /// ```
    /// use bevy_container::save::SavedContents;
    ///
    /// let report = SavedContents::from_ron("(format: 1").unwrap_err();
    /// assert!(report.has_errors());
    /// ```
    pub fn from_ron(text: &str) -> Result<SavedContents, Report> {
        SavedContents::read(text.as_bytes(), Format::Ron)
    }

    /// Reads a save, checking every field: malformed or truncated data is
    /// reported with a path into the save and what to do, never half read.
    pub fn read(bytes: &[u8], format: Format) -> Result<SavedContents, Report> {
        let value = source::parse(bytes, format)?;
        let mut r = Report::default();
        let saved = from_value(&value, &mut r);
        match saved {
            Some(s) if !r.has_errors() => Ok(s),
            _ => Err(r),
        }
    }

    /// The budget as a decimal.
    pub fn budget(&self) -> Decimal {
        self.size_budget.parse().unwrap_or(Decimal::ZERO)
    }
}

/// The fields of a save, as it writes them.
const FIELDS: [&str; 9] = [
    "resized",
    "rows",
    "format",
    "adoption",
    "slot-count",
    "size-budget",
    "counter",
    "slots",
    "holdings",
];

/// Every `when-forced-out` a saved row may name.
const WHEN_FORCED_OUT: [WhenForcedOut; 4] = [
    WhenForcedOut::Never,
    WhenForcedOut::DroppedNearby,
    WhenForcedOut::MovedToAnotherStore,
    WhenForcedOut::Destroyed,
];

fn from_value(v: &Value, r: &mut Report) -> Option<SavedContents> {
    let obj = Obj::of(
        v,
        "",
        "a save is an object with format, adoption, slot-count, size-budget, counter, slots and holdings",
        r,
    )?;
    obj.refuse_unknown(&FIELDS, r);
    let format = save_format(&obj, r);
    let adoption = adoption_id(&obj, r);
    let slot_count = obj.required("slot-count", Whole::at_most(u64::from(MAX_SLOTS)), r);
    let size_budget = obj.required("size-budget", DecimalText, r);
    let counter = obj.required("counter", Whole::U64, r);
    let slots = slots(&obj, counter, r);
    let holdings = holdings(&obj, counter, r);
    let rows = obj
        .required(
            "rows",
            List("a list of {item, when-forced-out, forced-out-order}"),
            r,
        )
        .map(|list| {
            list.iter()
                .enumerate()
                .filter_map(|(i, row)| saved_row(row, &format!("/rows/{i}"), r))
                .collect::<Vec<_>>()
        });
    let resized = obj.required("resized", Bool, r);
    Some(SavedContents {
        resized: resized?,
        rows: rows?,
        format: format? as u32,
        adoption: adoption?,
        slot_count: slot_count? as u32,
        size_budget: size_budget?.to_string(),
        counter: counter?,
        slots: slots?,
        holdings: holdings?,
    })
}

/// `format`: a save format this crate reads.
fn save_format(obj: &Obj<'_>, r: &mut Report) -> Option<u64> {
    let format = obj.required("format", Whole::U32, r)?;
    if format != u64::from(SAVE_FORMAT) {
        r.error(
            ProblemKind::WrongContract,
            "/format",
            format!("save format {format} is not one this crate reads ({SAVE_FORMAT})"),
        );
    }
    Some(format)
}

/// `adoption`: the path and content hash of the adoption the save was made
/// under.
fn adoption_id(obj: &Obj<'_>, r: &mut Report) -> Option<AdoptionId> {
    let a = obj.required(
        "adoption",
        Object("an object {\"path\", \"hash\"} naming the adoption the save was made under"),
        r,
    )?;
    let path = a.required("path", Text, r);
    let hash = a.required("hash", Text, r);
    if let Some(h) = hash
        && !(h.len() == 71
            && h.starts_with("sha256:")
            && h[7..].bytes().all(|b| b.is_ascii_hexdigit()))
    {
        r.error(
            ProblemKind::Pattern,
            "/adoption/hash",
            "the adoption hash is sha256: and 64 hex digits, as the save wrote it",
        );
    }
    Some(AdoptionId {
        path: path?.to_string(),
        hash: hash?.to_string(),
    })
}

/// `slots`: one entry per slot, null when empty.
fn slots(obj: &Obj<'_>, counter: Option<u64>, r: &mut Report) -> Option<Vec<Option<SavedStack>>> {
    let list = obj.required(
        "slots",
        List("a list, one entry per slot (null when empty)"),
        r,
    )?;
    if list.len() > MAX_SLOTS as usize {
        r.error(
            ProblemKind::TooLarge,
            "/slots",
            format!(
                "{} slots; no container has more than {MAX_SLOTS}",
                list.len()
            ),
        );
        return None;
    }
    Some(
        list.iter()
            .enumerate()
            .map(|(i, s)| match s {
                Value::Null => None,
                s => stack(s, &format!("/slots/{i}"), counter, r),
            })
            .collect(),
    )
}

/// `holdings`: a slotless container's stacks, one per kind.
fn holdings(obj: &Obj<'_>, counter: Option<u64>, r: &mut Report) -> Option<Vec<SavedStack>> {
    let list = obj.required("holdings", List("a list of stacks"), r)?;
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (i, s) in list.iter().enumerate() {
        let at = format!("/holdings/{i}");
        if let Some(st) = stack(s, &at, counter, r) {
            if !seen.insert((st.item.clone(), st.props.clone())) {
                r.error(
                    ProblemKind::Duplicate,
                    format!("{at}/item"),
                    format!(
                        "{} is held twice; a slotless container holds one amount per kind",
                        crate::props::Kind::new(st.item.as_str(), st.props.clone())
                    ),
                );
            }
            out.push(st);
        }
    }
    Some(out)
}

fn saved_row(v: &Value, at: &str, r: &mut Report) -> Option<SavedRow> {
    let row = Obj::of(
        v,
        at,
        "a row is {item, when-forced-out, forced-out-order}",
        r,
    )?;
    let item = row.required("item", Text, r);
    let words = WHEN_FORCED_OUT.map(WhenForcedOut::as_str);
    let when = row.required("when-forced-out", OneOf(&words), r);
    let order = match row.get("forced-out-order") {
        None | Some(Value::Null) => None,
        Some(_) => Some(row.required("forced-out-order", Int, r)?),
    };
    Some(SavedRow {
        item: item?.to_string(),
        when_forced_out: when?.to_string(),
        forced_out_order: order,
    })
}

fn stack(v: &Value, at: &str, counter: Option<u64>, r: &mut Report) -> Option<SavedStack> {
    let stack = Obj::of(
        v,
        at,
        "a stack is {item, amount, began, last-received, props?}",
        r,
    )?;
    stack.refuse_unknown(&STACK_FIELDS, r);
    let item = stack.required("item", Kebab(MAX_ID_LEN), r);
    let props = stack.optional("props", PropsField, r);
    let amount = stack.required("amount", Whole::U32, r);
    if amount == Some(0) {
        r.error(
            ProblemKind::OutOfRange,
            stack.path("amount"),
            "a stack holds at least one item; write null for an empty slot",
        );
    }
    let began = stack.required("began", Whole::U64, r);
    let last = stack.required("last-received", Whole::U64, r);
    if let (Some(b), Some(l), Some(c)) = (began, last, counter)
        && !(b <= l && l <= c)
    {
        r.error(
            ProblemKind::OutOfRange,
            stack.path("last-received"),
            format!(
                "began {b} <= last-received {l} <= counter {c} does not hold; the save is corrupt"
            ),
        );
    }
    Some(SavedStack {
        item: item?.to_string(),
        amount: amount? as u32,
        began: began?,
        last_received: last?,
        props: props?.unwrap_or_default(),
    })
}
