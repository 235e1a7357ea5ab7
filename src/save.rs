//! Saving and loading a container's contents.
//!
//! A save holds the stacks with their slot positions, the draw-order
//! bookkeeping and the capacity in force, together with the adoption it was
//! made under: its path and a SHA-256 content hash. Loading under the same
//! adoption restores the exact state (a capacity of the container's own,
//! such as a torn strap, included; otherwise the capacity is what the rules
//! and tuning say now); under a changed adoption (fewer
//! slots, a lower stack limit, a type no longer allowed, a smaller budget)
//! the forced-removal rules of spec section 6 settle what no longer fits and
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
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::adoption::source::{self, Format};
use crate::adoption::{MAX_SLOTS, ProblemKind, Report};
use crate::contents::ForcedOut;
use crate::decimal::Decimal;
use crate::rules::WhenForcedOut;

/// The save format this crate writes and reads.
pub const SAVE_FORMAT: u32 = 1;

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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The save as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The save as pretty RON.
    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default()).unwrap_or_default()
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

/// A load that would have to remove items that never leave: nothing was
/// loaded and the save is untouched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadRefused {
    /// The refused forced removal, with how much was short and which types
    /// held it.
    pub forced: ForcedOut,
}

impl fmt::Display for LoadRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the save does not fit the changed adoption and too few items may leave: {}; \
             give those types a when-forced-out other than never, or keep the old capacity",
            self.forced
        )
    }
}

impl std::error::Error for LoadRefused {}

fn from_value(v: &Value, r: &mut Report) -> Option<SavedContents> {
    let Some(obj) = v.as_object() else {
        r.error(
            ProblemKind::WrongType,
            "",
            "a save is an object with format, adoption, slot-count, size-budget, counter, slots and holdings",
        );
        return None;
    };
    const KEYS: [&str; 9] = [
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
    for k in obj.keys() {
        if !KEYS.contains(&k.as_str()) {
            r.error(
                ProblemKind::Unknown,
                format!("/{k}"),
                format!("\"{k}\" is not part of a save; remove it"),
            );
        }
    }
    let format = uint(obj, "format", "", u64::from(u32::MAX), r);
    if let Some(f) = format
        && f != u64::from(SAVE_FORMAT)
    {
        r.error(
            ProblemKind::WrongContract,
            "/format",
            format!("save format {f} is not one this crate reads ({SAVE_FORMAT})"),
        );
    }
    let adoption = match obj.get("adoption").and_then(Value::as_object) {
        Some(a) => {
            let path = text(a, "path", "/adoption", r);
            let hash = text(a, "hash", "/adoption", r);
            if let Some(h) = &hash
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
            path.zip(hash).map(|(path, hash)| AdoptionId { path, hash })
        }
        None => {
            r.error(
                ProblemKind::Missing,
                "/adoption",
                "the save names no adoption: it needs {\"path\", \"hash\"}",
            );
            None
        }
    };
    let slot_count = uint(obj, "slot-count", "", u64::from(MAX_SLOTS), r);
    let size_budget = match obj.get("size-budget") {
        Some(Value::String(s)) => match s.parse::<Decimal>() {
            Ok(_) => Some(s.clone()),
            Err(e) => {
                r.error(ProblemKind::Inexact, "/size-budget", format!("{e}"));
                None
            }
        },
        Some(_) => {
            r.error(
                ProblemKind::WrongType,
                "/size-budget",
                "the size budget is decimal text such as \"7.5\"",
            );
            None
        }
        None => {
            r.error(ProblemKind::Missing, "/size-budget", "missing size-budget");
            None
        }
    };
    let counter = uint(obj, "counter", "", u64::MAX, r);
    let slots = match obj.get("slots") {
        Some(Value::Array(list)) if list.len() > MAX_SLOTS as usize => {
            r.error(
                ProblemKind::TooLarge,
                "/slots",
                format!(
                    "{} slots; no container has more than {MAX_SLOTS}",
                    list.len()
                ),
            );
            None
        }
        Some(Value::Array(list)) => Some(
            list.iter()
                .enumerate()
                .map(|(i, s)| match s {
                    Value::Null => None,
                    s => stack(s, &format!("/slots/{i}"), counter, r),
                })
                .collect::<Vec<_>>(),
        ),
        _ => {
            r.error(
                ProblemKind::WrongType,
                "/slots",
                "slots is a list, one entry per slot (null when empty)",
            );
            None
        }
    };
    let holdings = match obj.get("holdings") {
        Some(Value::Array(list)) => {
            let mut seen = BTreeSet::new();
            let mut out = Vec::new();
            for (i, s) in list.iter().enumerate() {
                let at = format!("/holdings/{i}");
                if let Some(st) = stack(s, &at, counter, r) {
                    if !seen.insert(st.item.clone()) {
                        r.error(
                            ProblemKind::Duplicate,
                            format!("{at}/item"),
                            format!(
                                "{} is held twice; a slotless container holds one amount per type",
                                st.item
                            ),
                        );
                    }
                    out.push(st);
                }
            }
            Some(out)
        }
        _ => {
            r.error(
                ProblemKind::WrongType,
                "/holdings",
                "holdings is a list of stacks",
            );
            None
        }
    };
    let rows = match obj.get("rows") {
        Some(Value::Array(list)) => Some(
            list.iter()
                .enumerate()
                .filter_map(|(i, row)| saved_row(row, &format!("/rows/{i}"), r))
                .collect::<Vec<_>>(),
        ),
        _ => {
            r.error(
                ProblemKind::WrongType,
                "/rows",
                "rows is a list of {item, when-forced-out, forced-out-order}",
            );
            None
        }
    };
    let resized = match obj.get("resized") {
        Some(Value::Bool(b)) => Some(*b),
        _ => {
            r.error(
                ProblemKind::WrongType,
                "/resized",
                "resized is true or false: whether the capacity was the container's own",
            );
            None
        }
    };
    Some(SavedContents {
        resized: resized?,
        rows: rows?,
        format: format? as u32,
        adoption: adoption?,
        slot_count: slot_count? as u32,
        size_budget: size_budget?,
        counter: counter?,
        slots: slots?,
        holdings: holdings?,
    })
}

fn uint(obj: &Map<String, Value>, key: &str, at: &str, max: u64, r: &mut Report) -> Option<u64> {
    let path = format!("{at}/{key}");
    match obj.get(key) {
        Some(v) => match v.as_u64() {
            Some(n) if n <= max => Some(n),
            _ => {
                r.error(
                    ProblemKind::OutOfRange,
                    path,
                    format!("{key} is {v}; it must be a whole number from 0 to {max}"),
                );
                None
            }
        },
        None => {
            r.error(
                ProblemKind::Missing,
                path,
                format!("missing {key}: the save is incomplete"),
            );
            None
        }
    }
}

fn text(obj: &Map<String, Value>, key: &str, at: &str, r: &mut Report) -> Option<String> {
    match obj.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => {
            r.error(
                ProblemKind::WrongType,
                format!("{at}/{key}"),
                format!("{key} must be text"),
            );
            None
        }
    }
}

fn saved_row(v: &Value, at: &str, r: &mut Report) -> Option<SavedRow> {
    let Some(obj) = v.as_object() else {
        r.error(
            ProblemKind::WrongType,
            at,
            "a row is {item, when-forced-out, forced-out-order}",
        );
        return None;
    };
    let item = text(obj, "item", at, r);
    let when = text(obj, "when-forced-out", at, r);
    if let Some(w) = &when
        && WhenForcedOut::from_word(w).is_none()
    {
        r.error(
            ProblemKind::NotAnOption,
            format!("{at}/when-forced-out"),
            format!("\"{w}\" is not a when-forced-out option (never, dropped-nearby, moved-to-another-store, destroyed)"),
        );
    }
    let order = match obj.get("forced-out-order") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_i64() {
            Some(n) => Some(n),
            None => {
                r.error(
                    ProblemKind::WrongType,
                    format!("{at}/forced-out-order"),
                    "forced-out-order is a whole number or null",
                );
                return None;
            }
        },
    };
    Some(SavedRow {
        item: item?,
        when_forced_out: when?,
        forced_out_order: order,
    })
}

fn stack(v: &Value, at: &str, counter: Option<u64>, r: &mut Report) -> Option<SavedStack> {
    let Some(obj) = v.as_object() else {
        r.error(
            ProblemKind::WrongType,
            at,
            "a stack is {item, amount, began, last-received}",
        );
        return None;
    };
    let item = text(obj, "item", at, r);
    if let Some(i) = &item
        && (i.is_empty() || i.len() > MAX_ID_LEN || !crate::adoption::validate::is_kebab(i))
    {
        r.error(
            ProblemKind::Pattern,
            format!("{at}/item"),
            format!(
                "\"{}\" is not a kebab-case item id of at most {MAX_ID_LEN} characters",
                i.chars().take(40).collect::<String>()
            ),
        );
    }
    let amount = uint(obj, "amount", at, u64::from(u32::MAX), r);
    if amount == Some(0) {
        r.error(
            ProblemKind::OutOfRange,
            format!("{at}/amount"),
            "a stack holds at least one item; write null for an empty slot",
        );
    }
    let began = uint(obj, "began", at, u64::MAX, r);
    let last = uint(obj, "last-received", at, u64::MAX, r);
    if let (Some(b), Some(l), Some(c)) = (began, last, counter)
        && !(b <= l && l <= c)
    {
        r.error(
            ProblemKind::OutOfRange,
            format!("{at}/last-received"),
            format!(
                "began {b} <= last-received {l} <= counter {c} does not hold; the save is corrupt"
            ),
        );
    }
    Some(SavedStack {
        item: item?,
        amount: amount? as u32,
        began: began?,
        last_received: last?,
    })
}
