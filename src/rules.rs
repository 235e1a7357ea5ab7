//! Compiled rules: an adoption's answers as enums, rows indexed by type,
//! values resolved against the tuning, sizes as exact decimals.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::adoption::{self, Adoption, Context, Report, Tuning, ValueSource};
use crate::decimal::Decimal;
use crate::hash::FxHashMap;

macro_rules! answer_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[derive(bevy::reflect::Reflect)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// The option's word in the contract.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// The option for a contract word.
            pub fn from_word(word: &str) -> Option<$name> {
                match word { $($text => Some($name::$variant),)+ _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

answer_enum! {
    /// What makes the container full.
    CapacityLimit {
        /// A fixed number of slots.
        SlotCount = "slot-count",
        /// A size budget, no slots.
        SizeBudget = "size-budget",
        /// Both a slot limit and a size budget.
        SlotsAndSize = "slots-and-size",
        /// It never fills.
        NoLimit = "no-limit",
    }
}

impl CapacityLimit {
    /// Whether a container of this capacity has slots (every one but
    /// `size-budget`).
    #[inline(always)]
    pub(crate) const fn has_slots(self) -> bool {
        !matches!(self, CapacityLimit::SizeBudget)
    }

    /// Whether a size budget limits it.
    #[inline(always)]
    pub(crate) const fn has_budget(self) -> bool {
        matches!(
            self,
            CapacityLimit::SizeBudget | CapacityLimit::SlotsAndSize
        )
    }

    /// Whether its slot count limits it.
    #[inline(always)]
    pub(crate) const fn has_slot_limit(self) -> bool {
        matches!(self, CapacityLimit::SlotCount | CapacityLimit::SlotsAndSize)
    }
}

answer_enum! {
    /// What goes in when not everything fits.
    PartialAcceptance {
        /// The whole delivery is refused.
        AllOrNothing = "all-or-nothing",
        /// Everything that fits goes in.
        FillWhatFits = "fill-what-fits",
    }
}

answer_enum! {
    /// Where a leftover goes.
    LeftoverDestination {
        /// Back to whatever offered it.
        BackToTheSender = "back-to-the-sender",
        /// A loose pickup beside the container.
        LeftWhereItIs = "left-where-it-is",
        /// Delivered to another store the game names.
        AnotherStore = "another-store",
        /// Destroyed, and reported.
        Destroyed = "destroyed",
    }
}

answer_enum! {
    /// Which slot gets a new item.
    FillOrder {
        /// Matching stacks first, then the first empty slot.
        TopUpThenFirstEmpty = "top-up-then-first-empty",
        /// The first slot that can hold it.
        FirstSlotThatFits = "first-slot-that-fits",
        /// After everything already held.
        Append = "append",
        /// Each row has its reserved slot.
        NotApplicable = "not-applicable",
    }
}

answer_enum! {
    /// Which matching slot the game takes from.
    DrawOrder {
        /// Ascending slot order.
        FirstInOrder = "first-in-order",
        /// Descending slot order.
        LastInOrder = "last-in-order",
        /// The stack that received items most recently.
        NewestFirst = "newest-first",
        /// The stack that began first.
        OldestFirst = "oldest-first",
        /// The game never chooses: several matching stacks make a take ambiguous.
        NotApplicable = "not-applicable",
    }
}

answer_enum! {
    /// Which item types may enter.
    TypeRestriction {
        /// Only listed types.
        OnlyThese = "only-these",
        /// Every type (unlisted ones by the defaults).
        AnyItem = "any-item",
        /// Each slot has its own rule.
        BySlot = "by-slot",
    }
}

answer_enum! {
    /// What becomes of a type in a forced removal.
    WhenForcedOut {
        /// It stays; the removal is refused if it must leave.
        Never = "never",
        /// A loose pickup beside the container.
        DroppedNearby = "dropped-nearby",
        /// Delivered to another store the game names.
        MovedToAnotherStore = "moved-to-another-store",
        /// Destroyed, and reported.
        Destroyed = "destroyed",
    }
}

/// The compiled rule for one listed item type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TypeRule {
    /// The type.
    pub id: String,
    /// Its position in the rows (a reserved slot under fill-order
    /// `not-applicable`).
    pub row: usize,
    /// How many fit in one slot (`u32::MAX` when the container has no slots).
    pub stack_limit: u32,
    /// How much budget one item uses (zero without a budget).
    pub size: Decimal,
    /// What becomes of it in a forced removal.
    pub when_forced_out: WhenForcedOut,
    /// Its turn in a forced removal (movable types).
    pub forced_out_order: Option<i64>,
    /// Under `by-slot`, the citation of the slot rules.
    pub slot_rules_declared_in: Option<String>,
}

/// An adoption compiled for the engine: typed answers, rows indexed by type,
/// values resolved.
///
/// ```
/// use bevy_container::adoption::{self, Tuning};
/// use bevy_container::rules::{Rules, CapacityLimit, FillOrder};
///
/// let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
/// let adoption = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
/// let rules = Rules::compile(&adoption, &Tuning::default()).unwrap();
/// assert_eq!(rules.capacity, CapacityLimit::SlotCount);
/// assert_eq!(rules.fill, FillOrder::TopUpThenFirstEmpty);
/// assert_eq!(rules.slot_count, 12);
/// assert_eq!(rules.row("berries").unwrap().stack_limit, 20);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rules {
    /// What makes it full.
    pub capacity: CapacityLimit,
    /// What goes in when not all fits (`FillWhatFits` under `no-limit`, where
    /// only the safety ceiling can stop a delivery).
    pub partial: PartialAcceptance,
    /// Where leftovers go (`fill-what-fits` only).
    pub leftover: Option<LeftoverDestination>,
    /// Which slot fills first (`Append` for slotless containers, unused).
    pub fill: FillOrder,
    /// Which stack a take draws from.
    pub draw: DrawOrder,
    /// Which types may enter.
    pub restriction: TypeRestriction,
    /// Slot count (0 when slots do not limit it).
    pub slot_count: u32,
    /// Size budget (zero when size does not limit it).
    pub size_budget: Decimal,
    /// Listed types in row order.
    pub rows: Vec<TypeRule>,
    /// Type to index in `rows`.
    index: FxHashMap<String, usize>,
    /// Each row's type as a shared id, so containers need not allocate one.
    #[serde(skip)]
    interned: Vec<crate::item::ItemType>,
    /// Row positions of the movable types in forced-out order.
    #[serde(skip)]
    forced_order: Vec<usize>,
    /// Value name to the tuning key it was resolved from.
    pub tuned: BTreeMap<String, String>,
}

impl Rules {
    /// Compiles a read adoption against the game's tuning. Problems that
    /// depend on the tuning (an unknown key, a rule that fails with the tuned
    /// numbers) are reported here.
    pub fn compile(adoption: &Adoption, tuning: &Tuning) -> Result<Rules, Report> {
        // Validate the parts that matter, with the tuning resolved. The
        // embedded contract text was checked when the file was read.
        let part = |v: Result<serde_json::Value, serde_json::Error>| v.unwrap_or_default();
        let mut value = serde_json::Map::new();
        value.insert("contract".into(), adoption.contract.clone().into());
        value.insert("version".into(), adoption.version.into());
        value.insert(
            "answers".into(),
            part(serde_json::to_value(&adoption.answers)),
        );
        value.insert(
            "values".into(),
            part(serde_json::to_value(&adoption.values)),
        );
        value.insert("rows".into(), part(serde_json::to_value(&adoption.rows)));
        if !adoption.verification.is_empty() {
            value.insert(
                "verification".into(),
                part(serde_json::to_value(&adoption.verification)),
            );
        }
        let cx = Context {
            tuning: Some(tuning),
            prose: None,
        };
        let report = adoption::validate::problems(&serde_json::Value::Object(value), cx);
        if report.has_errors() {
            return Err(report);
        }
        Ok(Self::build(adoption, tuning))
    }

    fn build(a: &Adoption, tuning: &Tuning) -> Rules {
        let word = |q: &str| a.answers.get(q).map(String::as_str).unwrap_or_default();
        let capacity =
            CapacityLimit::from_word(word("capacity-limit")).unwrap_or(CapacityLimit::NoLimit);
        let has_slots = capacity != CapacityLimit::SizeBudget;
        let has_budget = matches!(
            capacity,
            CapacityLimit::SizeBudget | CapacityLimit::SlotsAndSize
        );
        let partial = if capacity == CapacityLimit::NoLimit {
            PartialAcceptance::FillWhatFits
        } else {
            PartialAcceptance::from_word(word("partial-acceptance"))
                .unwrap_or(PartialAcceptance::FillWhatFits)
        };
        let leftover = (partial == PartialAcceptance::FillWhatFits
            && capacity != CapacityLimit::NoLimit)
            .then(|| LeftoverDestination::from_word(word("leftover-destination")))
            .flatten();
        let fill = if has_slots {
            FillOrder::from_word(word("fill-order")).unwrap_or(FillOrder::Append)
        } else {
            FillOrder::Append
        };
        let mut tuned = BTreeMap::new();
        let mut resolve = |name: &str| -> Decimal {
            match a.values.get(name) {
                Some(ValueSource::Number(f)) => Decimal::from_f64(*f).unwrap_or_default(),
                Some(ValueSource::Tuning { tuning: key }) => {
                    tuned.insert(name.to_string(), key.clone());
                    tuning
                        .get(key)
                        .and_then(|f| Decimal::from_f64(f).ok())
                        .unwrap_or_default()
                }
                None => Decimal::ZERO,
            }
        };
        let slots = resolve("slot-count");
        let budget = resolve("size-budget");
        let slot_count = if matches!(
            capacity,
            CapacityLimit::SlotCount | CapacityLimit::SlotsAndSize
        ) {
            u32::try_from(slots.micros() / 1_000_000).unwrap_or(u32::MAX)
        } else {
            0
        };
        let rows = type_rules(a, has_slots, has_budget);
        let index = rows.iter().map(|r| (r.id.clone(), r.row)).collect();
        let interned = rows
            .iter()
            .map(|r| crate::item::ItemType::from(r.id.as_str()))
            .collect();
        let forced_order = forced_order(&rows);
        Rules {
            capacity,
            partial,
            leftover,
            fill,
            draw: DrawOrder::from_word(word("draw-order")).unwrap_or(DrawOrder::NotApplicable),
            restriction: TypeRestriction::from_word(word("type-restriction"))
                .unwrap_or(TypeRestriction::OnlyThese),
            slot_count,
            size_budget: if has_budget { budget } else { Decimal::ZERO },
            rows,
            index,
            interned,
            forced_order,
            tuned,
        }
    }

    /// The row of a listed type.
    #[inline]
    pub fn row(&self, item: &str) -> Option<&TypeRule> {
        self.row_index(item).map(|i| &self.rows[i])
    }

    /// The position of a listed type's row: a scan for a few rows (faster
    /// than hashing short ids), the index for many.
    #[inline]
    pub(crate) fn row_index(&self, item: &str) -> Option<usize> {
        if self.rows.len() <= 8 {
            // the shared ids, when made, compare by pointer first
            if self.interned.len() == self.rows.len() {
                return self
                    .interned
                    .iter()
                    .position(|k| crate::item::same_text(k.as_str(), item));
            }
            self.rows.iter().position(|r| r.id == item)
        } else {
            self.index.get(item).copied()
        }
    }

    /// The shared id of a listed type.
    pub(crate) fn interned(&self, item: &str) -> Option<&crate::item::ItemType> {
        self.row_index(item).and_then(|i| self.interned.get(i))
    }

    /// Whether the container has slots.
    #[inline]
    pub fn has_slots(&self) -> bool {
        self.capacity.has_slots()
    }

    /// Whether a size budget limits the container.
    #[inline]
    pub fn has_budget(&self) -> bool {
        self.capacity.has_budget()
    }

    /// Whether the slot count limits the container.
    #[inline]
    pub fn has_slot_limit(&self) -> bool {
        self.capacity.has_slot_limit()
    }

    /// Movable listed types in the order they leave a forced removal.
    pub fn forced_out_sequence(&self) -> Vec<&TypeRule> {
        if self.forced_order.is_empty() && !self.rows.is_empty() {
            // rules read back with serde: work it out
            return forced_order(&self.rows)
                .into_iter()
                .map(|i| &self.rows[i])
                .collect();
        }
        self.forced_order.iter().map(|&i| &self.rows[i]).collect()
    }
}

/// The adoption's item rows, compiled: stack limits only with slots (at
/// least one), sizes only with a budget, forced-out orders only for movable
/// types.
fn type_rules(a: &Adoption, has_slots: bool, has_budget: bool) -> Vec<TypeRule> {
    let Some(items) = a.rows.get("items") else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .map(|(row, r)| {
            let when = WhenForcedOut::from_word(&r.when_forced_out).unwrap_or(WhenForcedOut::Never);
            TypeRule {
                id: r.id.clone(),
                row,
                stack_limit: if has_slots {
                    r.stack_limit.unwrap_or(1).max(1)
                } else {
                    u32::MAX
                },
                size: if has_budget {
                    r.size
                        .and_then(|s| Decimal::from_f64(s).ok())
                        .unwrap_or_default()
                } else {
                    Decimal::ZERO
                },
                when_forced_out: when,
                forced_out_order: (when != WhenForcedOut::Never)
                    .then_some(r.forced_out_order)
                    .flatten(),
                slot_rules_declared_in: r.slot_rules_declared_in.clone(),
            }
        })
        .collect()
}

/// Row positions of the movable types, by forced-out order then row.
fn forced_order(rows: &[TypeRule]) -> Vec<usize> {
    let mut movable: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].when_forced_out != WhenForcedOut::Never)
        .collect();
    movable.sort_by_key(|&i| (rows[i].forced_out_order.unwrap_or(i64::MAX), rows[i].row));
    movable
}
