//! What one cell of a grid shows ([`Drawn`]) and what an empty slot is for
//! ([`SlotRole`]): the words the grid, the painter and the tooltip share,
//! apart from each of them.

use crate::contents::{Contents, ItemType, Props};
use crate::rules::{FillOrder, TypeRestriction};

/// What an empty slot is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SlotRole {
    /// Any item the rules admit may enter.
    Open,
    /// Past the capacity in force (a torn strap): nothing enters.
    Torn,
    /// Kept for one type (fill order `not-applicable`).
    Reserved(String),
    /// Under `by-slot`: the types it accepts.
    Accepts(Vec<String>),
    /// No type may enter.
    Closed,
}

/// What a slot of `engine` is for: torn past the capacity in force, kept
/// for its type under fill order `not-applicable`, limited by its by-slot
/// rule, or open.
pub(crate) fn role_of(engine: &Contents, slot: u32) -> SlotRole {
    let rules = engine.rules();
    if rules.has_slot_limit() && slot >= engine.limits().slot_count {
        return SlotRole::Torn;
    }
    if rules.fill == FillOrder::NotApplicable {
        return rules
            .rows
            .get(slot as usize)
            .map_or(SlotRole::Closed, |r| SlotRole::Reserved(r.id.clone()));
    }
    if rules.restriction == TypeRestriction::BySlot {
        let accepts = engine
            .slot_rules()
            .and_then(|sr| sr.accepts.get(slot as usize))
            .filter(|set| !set.is_empty());
        return accepts.map_or(SlotRole::Closed, |set| {
            SlotRole::Accepts(set.iter().cloned().collect())
        });
    }
    SlotRole::Open
}

/// What one cell shows; cells are redrawn only when this differs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Drawn {
    /// Past the last slot: hidden.
    Unbound,
    /// A slot, its stack, what it is for, and whether it is selected.
    Slot {
        slot: u32,
        stack: Option<(ItemType, u32, Props)>,
        role: SlotRole,
        selected: bool,
    },
    /// A slotless container's holding of one kind.
    Holding {
        row: u32,
        item: ItemType,
        amount: u32,
        props: Props,
    },
}

impl Drawn {
    /// The slot (or holding row) shown.
    pub(crate) fn bound(&self) -> Option<u32> {
        match self {
            Drawn::Unbound => None,
            Drawn::Slot { slot, .. } => Some(*slot),
            Drawn::Holding { row, .. } => Some(*row),
        }
    }
}
