//! Saving and loading contents (the format is in [`crate::save`]).

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use super::forced::Target;
use super::{Cause, Contents, ForcedOut, ItemType, Limits, SlotRules, Stack};
use crate::rules::{Rules, WhenForcedOut};
use crate::save::{AdoptionId, SAVE_FORMAT, SavedContents, SavedRow, SavedStack};

/// A loaded container and what the load had to move.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The contents, under the current rules.
    pub contents: Contents,
    /// Whether the adoption changed since the save (its hash differs).
    pub adoption_changed: bool,
    /// What left because the current rules could not hold it (cause
    /// [`Cause::Loaded`]); empty when everything fit. Settle its portions
    /// like any forced removal.
    pub migrated: ForcedOut,
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

fn saved(s: &Stack) -> SavedStack {
    SavedStack {
        item: s.item.as_str().to_string(),
        amount: s.amount,
        began: s.began,
        last_received: s.last_received,
        props: s.props.clone(),
    }
}

/// Whether a saved stack is `s`, without building the saved form.
#[cfg(feature = "replicon")]
fn same(s: Option<&Stack>, saved: Option<&SavedStack>) -> bool {
    match (s, saved) {
        (None, None) => true,
        (Some(s), Some(v)) => {
            s.amount == v.amount
                && s.began == v.began
                && s.last_received == v.last_received
                && s.item.as_str() == v.item
                && s.props == v.props
        }
        _ => false,
    }
}

impl Contents {
    /// How many slots a save lists.
    pub(crate) fn saved_slot_len(&self) -> usize {
        self.slot_len().min(self.slots.len())
    }

    /// Slot `i` as a save lists it.
    #[cfg(feature = "replicon")]
    pub(crate) fn saved_slot(&self, i: usize) -> Option<SavedStack> {
        self.slots.get(i)?.as_ref().map(saved)
    }

    /// The holdings as a save lists them.
    #[cfg(feature = "replicon")]
    pub(crate) fn saved_holdings(&self) -> Vec<SavedStack> {
        self.holdings.values().map(saved).collect()
    }

    /// The capacity in force as a save lists it: whether it is the
    /// container's own (a torn strap), the slot count, the budget's text.
    #[cfg(feature = "replicon")]
    pub(crate) fn saved_capacity(&self) -> (bool, u32, String) {
        saved_capacity(&self.limits, &self.rules)
    }
}

/// What a network replica compares with the contents (feature `replicon`).
#[cfg(feature = "replicon")]
impl Contents {
    /// Whether slot `i` is `was` (as saved), without building its saved form.
    pub(crate) fn slot_is(&self, i: usize, was: Option<&SavedStack>) -> bool {
        same(self.slots.get(i).and_then(Option::as_ref), was)
    }

    /// Whether the holdings are `was` (as saved, in kind order).
    pub(crate) fn holdings_are(&self, was: &[SavedStack]) -> bool {
        self.holdings.len() == was.len()
            && self
                .holdings
                .values()
                .zip(was)
                .all(|(s, v)| same(Some(s), Some(v)))
    }

    /// The container-wide counter of the draw-order bookkeeping.
    pub(crate) fn counter(&self) -> u64 {
        self.counter
    }
}

/// The capacity `limits` as a save lists it under `rules`: whether it is
/// the container's own (a torn strap), not the rules', the slot count, the
/// budget's text.
fn saved_capacity(limits: &Limits, rules: &Rules) -> (bool, u32, String) {
    let resized = limits.slot_count != rules.slot_count || limits.size_budget != rules.size_budget;
    (resized, limits.slot_count, limits.size_budget.to_string())
}

/// What a save needs of a container, taken without making the save: its
/// stacks go into a list shared by many containers (no allocation of its
/// own), the rest is a few words. The persistence takes these on the game
/// thread, and makes the saves on its writer thread.
#[derive(Clone, Debug)]
pub(crate) struct SaveHead {
    /// The container's capacity when it is its own, not the rules' (a torn
    /// strap): rare, so it is boxed and the head stays four words (the
    /// persistence hands a thousand heads a frame to another thread, and
    /// every byte it writes there costs the game thread).
    own: Option<Box<Limits>>,
    counter: u64,
    slot_len: u32,
    /// The occupied slots in `stacks[start..mid]` (slot, stack), the
    /// holdings in `stacks[mid..end]`.
    start: u32,
    mid: u32,
    end: u32,
}

impl SaveHead {
    /// Where this head's stacks are in their list: the first and how many.
    #[cfg(feature = "persist")]
    pub(crate) fn stacks_place(&self) -> (usize, usize) {
        (
            self.start as usize,
            self.end.saturating_sub(self.start) as usize,
        )
    }

    /// Copies this head's stacks from `from` into `into`: into `room` (a
    /// place in `into`, the first stack and how many fit) when they fit,
    /// else onto the end of `into`. Returns the head for them in `into`,
    /// and the room they were put in. A head whose stacks are not all in
    /// `from` keeps those that are.
    #[cfg(feature = "persist")]
    pub(crate) fn copied(
        &self,
        from: &[(u32, Stack)],
        into: &mut Vec<(u32, Stack)>,
        room: Option<(usize, usize)>,
    ) -> (SaveHead, (usize, usize)) {
        let (start, mid, end) = (self.start as usize, self.mid as usize, self.end as usize);
        let slots = from.get(start..mid).unwrap_or_default();
        let held = from.get(mid..end).unwrap_or_default();
        let n = slots.len() + held.len();
        let fits = room
            .filter(|&(_, len)| len >= n)
            .and_then(|(at, len)| Some((at, len, into.get_mut(at..at + n)?)));
        let room = match fits {
            Some((at, len, place)) => {
                place[..slots.len()].clone_from_slice(slots);
                place[slots.len()..].clone_from_slice(held);
                (at, len)
            }
            None => {
                let at = into.len();
                into.extend_from_slice(slots);
                into.extend_from_slice(held);
                (at, n)
            }
        };
        let head = SaveHead {
            own: self.own.clone(),
            counter: self.counter,
            slot_len: self.slot_len,
            start: room.0 as u32,
            mid: (room.0 + slots.len()) as u32,
            end: (room.0 + n) as u32,
        };
        (head, room)
    }

    /// The save of the container this was taken from, whose rules are
    /// `rules`, made under `adoption`; `stacks` is the list it was taken
    /// into.
    pub(crate) fn save(
        &self,
        stacks: &[(u32, Stack)],
        rules: &Rules,
        adoption: &AdoptionId,
    ) -> SavedContents {
        let rules_limits;
        let limits = match &self.own {
            Some(own) => &**own,
            None => {
                rules_limits = Limits {
                    slot_count: rules.slot_count,
                    size_budget: rules.size_budget,
                };
                &rules_limits
            }
        };
        let (resized, slot_count, size_budget) = saved_capacity(limits, rules);
        let (start, mid, end) = (self.start as usize, self.mid as usize, self.end as usize);
        let mut slots = vec![None; self.slot_len as usize];
        for (i, st) in &stacks[start..mid] {
            if let Some(slot) = slots.get_mut(*i as usize) {
                *slot = Some(saved(st));
            }
        }
        let held = &stacks[mid..end];
        let items: BTreeSet<&ItemType> =
            stacks[start..end].iter().map(|(_, st)| &st.item).collect();
        SavedContents {
            format: SAVE_FORMAT,
            adoption: adoption.clone(),
            resized,
            slot_count,
            size_budget,
            counter: self.counter,
            slots,
            holdings: held.iter().map(|(_, st)| saved(st)).collect(),
            rows: items
                .into_iter()
                .filter_map(|item| rules.row(item.as_str()))
                .map(|r| SavedRow {
                    item: r.id.clone(),
                    when_forced_out: r.when_forced_out.as_str().to_string(),
                    forced_out_order: r.forced_out_order,
                })
                .collect(),
        }
    }
}

impl Contents {
    /// The contents as a save, made under `adoption`.
    pub fn save(&self, adoption: &AdoptionId) -> SavedContents {
        let mut stacks = Vec::new();
        self.save_head(&mut stacks)
            .save(&stacks, &self.rules, adoption)
    }

    /// What [`Contents::save`] needs, its stacks pushed onto `stacks`.
    #[inline]
    pub(crate) fn save_head(&self, stacks: &mut Vec<(u32, Stack)>) -> SaveHead {
        let start = stacks.len();
        let slot_len = self.saved_slot_len();
        // this runs on the game thread for every changed persisted
        // container: room reserved once, no adapter chain
        stacks.reserve(self.occ.count() as usize + self.holdings.len());
        for s in self.occ.occupied() {
            if s as usize >= slot_len {
                break;
            }
            if let Some(st) = self.stack(s) {
                stacks.push((s, st.clone()));
            }
        }
        let mid = stacks.len();
        if !self.holdings.is_empty() {
            stacks.extend(self.holdings.values().map(|st| (u32::MAX, st.clone())));
        }
        let own = self.limits.slot_count != self.rules.slot_count
            || self.limits.size_budget != self.rules.size_budget;
        // a list of the persistence's holds a frame's stacks, far fewer
        // than 2^32; slots are counted in u32 by the rules
        SaveHead {
            own: own.then(|| Box::new(self.limits)),
            counter: self.counter,
            slot_len: slot_len as u32,
            start: start as u32,
            mid: mid as u32,
            end: stacks.len() as u32,
        }
    }

    /// Loads a save under `rules`, the rules of the adoption `current`.
    ///
    /// Under the adoption it was saved with, the state comes back exactly,
    /// a capacity of the container's own such as a torn strap included
    /// (without one, the capacity is the rules' values now). Under a changed
    /// adoption the adoption's capacity applies and whatever the rules no
    /// longer hold leaves by the forced-removal rules, reported in
    /// [`Loaded::migrated`]. When too few items may leave the load is
    /// refused and nothing is loaded.
    pub fn load(
        rules: Arc<Rules>,
        slot_rules: Option<SlotRules>,
        save: &SavedContents,
        current: &AdoptionId,
    ) -> Result<Loaded, LoadRefused> {
        let changed = save.adoption.hash != current.hash;
        let mut c = Contents::new(rules.clone());
        c.set_slot_rules(slot_rules);
        let limits = if changed || !save.resized {
            c.limits
        } else {
            Limits {
                slot_count: save.slot_count,
                size_budget: save.budget(),
            }
        };
        // lay the saved stacks down as they were, then let the forced
        // removal fit them to the current terms
        c.set_slot_len(save.slots.len().max(c.slots.len()));
        for (i, s) in save.slots.iter().enumerate() {
            if let Some(s) = s {
                let item = c.item_type(&s.item);
                c.place_raw(Some(i as u32), item, s);
            }
        }
        for s in &save.holdings {
            let item = c.item_type(&s.item);
            c.place_raw(None, item, s);
        }
        c.counter = c.counter.max(save.counter);
        let target = Target {
            rules,
            limits,
            slot_rules: c.slot_rules.clone(),
            earlier: save
                .rows
                .iter()
                .filter_map(|r| {
                    let when = WhenForcedOut::from_word(&r.when_forced_out)?;
                    Some((r.item.clone(), when, r.forced_out_order))
                })
                .collect(),
        };
        let migrated = c.reshape(Cause::Loaded, target);
        if migrated.refused.is_some() {
            return Err(LoadRefused { forced: migrated });
        }
        Ok(Loaded {
            contents: c,
            adoption_changed: changed,
            migrated,
        })
    }

    /// Puts a saved stack in `slot` (or the holdings) without checking the
    /// rules: the reshape that follows does.
    fn place_raw(&mut self, slot: Option<u32>, item: ItemType, s: &SavedStack) {
        let size = self.rules.row(&s.item).map(|r| r.size).unwrap_or_default();
        let stack = Stack {
            item,
            amount: s.amount,
            props: s.props.clone(),
            began: s.began,
            last_received: s.last_received,
        };
        self.counter = self.counter.max(s.last_received);
        match slot {
            Some(slot) => self.put_stack(slot, stack),
            None => {
                let kind = super::Kind::new(stack.item.clone(), stack.props.clone());
                self.holdings.insert(kind, stack);
            }
        }
        self.size_used = self.size_used.plus(size.times(s.amount));
    }
}
