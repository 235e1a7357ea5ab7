//! The engine: a container's contents and the operations on them.
//!
//! [`Contents`] holds one container's stacks under compiled [`Rules`] and
//! settles deliveries, takes, forced removals, sorts, moves and transfers
//! exactly as the guide's chapters on requests and transfers say ([`guide::requests`](crate::guide::requests), [`guide::transfers`](crate::guide::transfers)). It runs no systems and
//! touches no world (its only Bevy trait is `Reflect` on [`Reason`], so
//! outcomes can be shown in an inspector): every operation returns an
//! outcome that tells the caller where each item went, and the engine
//! itself never loses one.
//!
//! ```
//! use std::sync::Arc;
//! use bevy_container::adoption::{self, Tuning};
//! use bevy_container::contents::Contents;
//! use bevy_container::rules::{Rules, LeftoverDestination};
//!
//! let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
//! let adoption = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
//! let rules = Arc::new(Rules::compile(&adoption, &Tuning::default()).unwrap());
//! let mut backpack = Contents::new(rules);
//!
//! let berries = backpack.deliver("berries", 25);
//! assert_eq!(berries.accepted, 25);
//! assert_eq!(backpack.stack(0).unwrap().amount, 20);
//! assert_eq!(backpack.stack(1).unwrap().amount, 5);
//!
//! let eaten = backpack.take_from("berries", 4, 1);
//! assert_eq!(eaten.taken, 4);
//!
//! let lots = backpack.deliver("berries", 400);
//! assert_eq!(lots.leftover.unwrap().to, LeftoverDestination::LeftWhereItIs);
//! ```

mod deliver;
mod forced;
mod index;
mod landings;
pub use landings::{Landing, Landings};
mod occupancy;
mod outcome;
mod rearrange;
mod restore;
#[cfg(feature = "persist")]
pub(crate) use restore::SaveHead;
pub use restore::{LoadRefused, Loaded};
mod set_props;
mod shape;
pub use set_props::{PropsAt, PropsSet};
mod take;
mod transfer;
pub use transfer::{Acceptance, Swapped, TransferRequest, Transferred};

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use outcome::{
    Cause, Delivered, ForcedOut, Leftover, LimitedBy, Portion, Rearranged, Reason, Refused,
    Shortfall, Taken,
};

use crate::decimal::Decimal;
pub use crate::item::ItemType;
use crate::limits::MAX_SLOTS;
pub use crate::props::{Kind, Props};
use crate::rules::{FillOrder, Rules, TypeRestriction, WhenForcedOut};
use shape::{AnyShape, Shape};

/// One slot's contents: one kind (a type and its properties), an amount
/// of at least one, and the draw order bookkeeping.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stack {
    /// The type.
    pub item: ItemType,
    /// How many (at least one).
    pub amount: u32,
    /// The properties every item of the stack carries (empty for plain
    /// items; a save written before properties reads as empty).
    #[serde(default)]
    pub props: Props,
    /// The container counter when this stack began.
    pub began: u64,
    /// The container counter when this stack last received items.
    pub last_received: u64,
}

/// Under `by-slot`, the types each slot accepts, as the game's prose lists
/// them (slot `k` is `accepts[k]`; slots past the list accept nothing).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotRules {
    /// Per slot, the accepted types.
    pub accepts: Vec<BTreeSet<String>>,
}

impl SlotRules {
    /// Slot rules from one list of accepted types per slot.
    ///
    /// ```
    /// use bevy_container::contents::SlotRules;
    /// let rules = SlotRules::new([vec!["helmet"], vec!["potion", "elixir"]]);
    /// assert!(rules.accepts(1, "elixir"));
    /// assert!(!rules.accepts(0, "potion"));
    /// assert!(!rules.accepts(7, "helmet"));
    /// ```
    pub fn new<I, L, S>(slots: I) -> SlotRules
    where
        I: IntoIterator<Item = L>,
        L: IntoIterator<Item = S>,
        S: Into<String>,
    {
        SlotRules {
            accepts: slots
                .into_iter()
                .map(|l| l.into_iter().map(Into::into).collect())
                .collect(),
        }
    }

    /// Whether slot `slot` accepts `item`.
    #[inline]
    pub fn accepts(&self, slot: u32, item: &str) -> bool {
        self.accepts
            .get(slot as usize)
            .is_some_and(|s| s.contains(item))
    }
}

/// The capacity currently in force: the adoption's values, or a
/// per-container change such as a torn strap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Slots (containers with a slot limit).
    pub slot_count: u32,
    /// Budget (containers with a size budget).
    pub size_budget: Decimal,
}

/// How one type behaves in this container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TypeTerms {
    /// Items per slot.
    pub limit: u32,
    /// Size of one item.
    pub size: Decimal,
    /// Forced-removal destination; `None` when it never leaves.
    pub leaves_to: Option<WhenForcedOut>,
    /// Its turn in a forced removal.
    pub order: (i64, usize),
    /// Reserved slot under fill-order `not-applicable`.
    pub reserved: Option<u32>,
}

/// A container's contents under its rules: the engine.
///
/// Operations never lose an item: each returns an outcome saying where
/// every offered, taken or removed item went.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Contents {
    // In this order, so what a save reads (the rules, the slots, their
    // occupancy, the counter, the capacity and the holdings) lies in the
    // first three cache lines: a frame that saves a thousand containers
    // reads half as many lines as in the compiler's order.
    rules: Arc<Rules>,
    slots: Vec<Option<Stack>>,
    occ: occupancy::Occupancy,
    counter: u64,
    limits: Limits,
    holdings: BTreeMap<Kind, Stack>,
    slot_rules: Option<Arc<SlotRules>>,
    size_used: Decimal,
    by_type: index::TypeIndex,
    /// Reused for the slots a take draws from, so a take does not allocate.
    scratch: Vec<u32>,
}

impl Contents {
    /// An empty container under `rules`, with the capacity its values give.
    pub fn new(rules: Arc<Rules>) -> Contents {
        let limits = Limits {
            slot_count: rules.slot_count,
            size_budget: rules.size_budget,
        };
        let mut c = Contents {
            rules,
            limits,
            slot_rules: None,
            slots: Vec::new(),
            holdings: BTreeMap::new(),
            by_type: index::TypeIndex::default(),
            occ: occupancy::Occupancy::default(),
            size_used: Decimal::ZERO,
            counter: 0,
            scratch: Vec::new(),
        };
        c.set_slot_len(c.fixed_slot_len());
        c
    }

    /// Supplies the slot rules a `by-slot` container needs, builder style.
    pub fn with_slot_rules(mut self, slot_rules: SlotRules) -> Contents {
        self.slot_rules = Some(Arc::new(slot_rules));
        self
    }

    /// Replaces the slot rules (stacks already in place stay).
    pub fn set_slot_rules(&mut self, slot_rules: Option<SlotRules>) {
        self.slot_rules = slot_rules.map(Arc::new);
    }

    /// The rules in force.
    pub fn rules(&self) -> &Arc<Rules> {
        &self.rules
    }

    /// The capacity in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The slot rules, when supplied.
    pub fn slot_rules(&self) -> Option<&SlotRules> {
        self.slot_rules.as_deref()
    }

    /// The number of slots shown: the slot count, or for `no-limit` up to the
    /// last occupied slot; zero when slotless.
    #[inline]
    pub fn slot_len(&self) -> usize {
        if self.rules.has_slot_limit() {
            self.slots.len()
        } else {
            self.occ.last_occupied().map_or(0, |l| l as usize + 1)
        }
    }

    /// The stack in `slot`, if any.
    #[inline]
    pub fn stack(&self, slot: u32) -> Option<&Stack> {
        self.slots.get(slot as usize).and_then(Option::as_ref)
    }

    /// Every slot in order (`None` for empty), up to [`Contents::slot_len`].
    pub fn slots(&self) -> impl Iterator<Item = Option<&Stack>> {
        self.slots[..self.slot_len().min(self.slots.len())]
            .iter()
            .map(Option::as_ref)
    }

    /// Slotless holdings, by kind in kind order (empty for containers with
    /// slots).
    pub fn holdings(&self) -> impl Iterator<Item = (&Kind, u32)> {
        self.holdings.iter().map(|(k, s)| (k, s.amount))
    }

    /// The slotless holdings of `item`'s kinds, in kind order.
    pub(crate) fn holdings_of<'a>(
        &'a self,
        item: &'a str,
    ) -> impl Iterator<Item = (&'a Kind, &'a Stack)> + 'a {
        let start = Kind::plain(self.item_type(item));
        self.holdings
            .range(start..)
            .take_while(move |(k, _)| k.item.as_str() == item)
    }

    /// Total size held.
    pub fn size_used(&self) -> Decimal {
        self.size_used
    }

    /// How many of `item` the container holds in all, whatever their
    /// properties.
    pub fn count(&self, item: &str) -> u64 {
        if !self.rules.has_slots() {
            return self
                .holdings_of(item)
                .map(|(_, s)| u64::from(s.amount))
                .sum();
        }
        self.by_type
            .slots(item)
            .filter_map(|s| self.stack(s))
            .map(|s| u64::from(s.amount))
            .sum()
    }

    /// How many items of one kind (`item` with exactly `props`) it holds.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// use bevy_container::props::Props;
    /// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
    /// let worn = Props::new([("durability", 12)]).unwrap();
    /// backpack.deliver("axe", 1);
    /// backpack.deliver_kind("axe", &worn, 1);
    /// assert_eq!(backpack.count("axe"), 2);
    /// assert_eq!(backpack.count_kind("axe", &worn), 1);
    /// assert_eq!(backpack.count_kind("axe", &Props::EMPTY), 1);
    /// ```
    pub fn count_kind(&self, item: &str, props: &Props) -> u64 {
        if !self.rules.has_slots() {
            return self
                .holdings_of(item)
                .filter(|(k, _)| k.props == *props)
                .map(|(_, s)| u64::from(s.amount))
                .sum();
        }
        self.by_type
            .slots(item)
            .filter_map(|s| self.stack(s))
            .filter(|s| s.props == *props)
            .map(|s| u64::from(s.amount))
            .sum()
    }

    /// Every type held and its total (all kinds together), sorted by type.
    pub fn totals(&self) -> BTreeMap<ItemType, u64> {
        let mut out = BTreeMap::new();
        for s in self.slots.iter().flatten() {
            *out.entry(s.item.clone()).or_insert(0) += u64::from(s.amount);
        }
        for (k, s) in &self.holdings {
            *out.entry(k.item.clone()).or_insert(0) += u64::from(s.amount);
        }
        out
    }

    /// Every kind held and its total, sorted by kind (type, then kind
    /// order).
    pub fn kind_totals(&self) -> BTreeMap<Kind, u64> {
        let mut out = BTreeMap::new();
        for s in self.slots.iter().flatten() {
            *out.entry(Kind::new(s.item.clone(), s.props.clone()))
                .or_insert(0) += u64::from(s.amount);
        }
        for (k, s) in &self.holdings {
            *out.entry(k.clone()).or_insert(0) += u64::from(s.amount);
        }
        out
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.occ.is_empty() && self.holdings.is_empty()
    }

    // ---- internals shared by the operations ----

    fn fixed_slot_len(&self) -> usize {
        if self.rules.has_slot_limit() {
            self.limits.slot_count as usize
        } else {
            0
        }
    }

    /// Grows or shrinks the slot vector (only empty slots may be cut).
    fn set_slot_len(&mut self, len: usize) {
        // never cut a slot that holds a stack
        let len = len.max(self.occ.last_occupied().map_or(0, |l| l as usize + 1));
        self.slots.resize(len, None);
        self.occ.resize(len as u32);
    }

    /// `item`'s number in the type index (when indexed) and its row in the
    /// rules (when listed), found with one lookup by name: a transfer's
    /// target, a change of properties.
    #[inline]
    pub(crate) fn find_type(&self, item: &str) -> (Option<u32>, Option<&crate::rules::TypeRule>) {
        match self.by_type.find(item) {
            // an indexed type's row was found when it was indexed
            Some((at, _)) => (
                Some(at),
                self.by_type.row(at).and_then(|r| self.rules.rows.get(r)),
            ),
            None => (None, self.rules.row(item)),
        }
    }

    /// The terms for `item`, or why it may not enter at all.
    pub(crate) fn terms(&self, item: &str) -> Result<TypeTerms, Reason> {
        self.terms_with(item, self.rules.row(item))
    }

    /// [`Self::terms`], with the type's row already found.
    #[inline]
    pub(crate) fn terms_with(
        &self,
        item: &str,
        row: Option<&crate::rules::TypeRule>,
    ) -> Result<TypeTerms, Reason> {
        self.terms_in::<AnyShape>(item, row)
    }

    /// [`Self::terms_with`] for a container of the shape `S`.
    #[inline(always)]
    pub(crate) fn terms_in<S: Shape>(
        &self,
        item: &str,
        row: Option<&crate::rules::TypeRule>,
    ) -> Result<TypeTerms, Reason> {
        terms_under::<S>(
            &self.rules,
            self.slot_rules.as_deref(),
            self.slots_available_in::<S>(),
            item,
            row,
        )
    }

    /// How many slot indices may be used.
    #[inline]
    fn slots_available(&self) -> u32 {
        self.slots_available_in::<AnyShape>()
    }

    /// [`Self::slots_available`] for a container of the shape `S`.
    #[inline(always)]
    fn slots_available_in<S: Shape>(&self) -> u32 {
        if S::has_slot_limit(&self.rules) {
            self.limits.slot_count
        } else if S::has_slots(&self.rules) {
            MAX_SLOTS
        } else {
            0
        }
    }

    /// Whether `slot` accepts `item` under the entry rules.
    fn accepts(&self, slot: u32, item: &str, terms: &TypeTerms) -> bool {
        self.accepts_in::<AnyShape>(slot, item, terms)
    }

    /// [`Self::accepts`] for a container of the shape `S`.
    #[inline(always)]
    fn accepts_in<S: Shape>(&self, slot: u32, item: &str, terms: &TypeTerms) -> bool {
        accepts_under::<S>(&self.rules, self.slot_rules.as_deref(), slot, item, terms)
    }

    #[inline]
    fn next_counter(&mut self) -> u64 {
        self.counter += 1;
        self.counter
    }

    /// Adds `amount` of `item` with `props` to `slot` (empty or the same
    /// kind) without touching the per-type index; returns whether a stack
    /// began there (the caller indexes new stacks).
    #[inline]
    fn add_to_slot(
        &mut self,
        slot: u32,
        item: &ItemType,
        props: &Props,
        amount: u32,
        size: Decimal,
    ) -> bool {
        let counter = self.next_counter();
        let s = slot as usize;
        if s >= self.slots.len() {
            self.set_slot_len(s + 1);
        }
        // most items have no size (a container without a budget): no
        // 128-bit sum then
        if size != Decimal::ZERO {
            self.size_used = self.size_used.plus(size.times(amount));
        }
        match &mut self.slots[s] {
            Some(stack) => {
                stack.amount += amount;
                stack.last_received = counter;
                false
            }
            empty => {
                *empty = Some(Stack {
                    item: item.clone(),
                    amount,
                    props: props.clone(),
                    began: counter,
                    last_received: counter,
                });
                self.occ.set(slot);
                true
            }
        }
    }

    /// Removes emptied slots from `item`'s slot list.
    fn unindex(&mut self, item: &str, emptied: &[u32]) {
        self.by_type.unindex(None, item, emptied);
    }

    /// Removes up to `amount` from `slot` without touching the per-type
    /// index; returns how many left and whether the slot is now empty.
    #[inline(always)]
    fn remove_from_slot(&mut self, slot: u32, amount: u32, size: Decimal) -> (u32, bool) {
        let s = slot as usize;
        let Some(stack) = self.slots.get_mut(s).and_then(Option::as_mut) else {
            return (0, false);
        };
        let n = amount.min(stack.amount);
        stack.amount -= n;
        let emptied = stack.amount == 0;
        if emptied {
            self.slots[s] = None;
            self.occ.clear(slot);
        }
        if size != Decimal::ZERO {
            self.size_used = self.size_used.minus(size.times(n));
        }
        (n, emptied)
    }

    /// Empties `slot` without touching the size total; returns its stack.
    fn clear_slot(&mut self, slot: u32) -> Option<Stack> {
        let stack = self.slots.get_mut(slot as usize)?.take()?;
        self.occ.clear(slot);
        self.unindex(stack.item.as_str(), &[slot]);
        Some(stack)
    }

    /// Moves the stack in `from` to the empty slot `to`, keeping its
    /// bookkeeping (one index update, no allocation).
    fn move_stack(&mut self, from: u32, to: u32) {
        let Some(stack) = self.slots.get_mut(from as usize).and_then(Option::take) else {
            return;
        };
        self.occ.clear(from);
        self.by_type.move_slot(stack.item.as_str(), from, to);
        if to as usize >= self.slots.len() {
            self.set_slot_len(to as usize + 1);
        }
        self.occ.set(to);
        self.slots[to as usize] = Some(stack);
    }

    /// Puts a whole stack into an empty slot, keeping its bookkeeping.
    fn put_stack(&mut self, slot: u32, stack: Stack) {
        let s = slot as usize;
        if s >= self.slots.len() {
            self.set_slot_len(s + 1);
        }
        self.occ.set(slot);
        self.index_slot(&stack.item, slot);
        self.slots[s] = Some(stack);
    }

    /// Adds `slot` to `item`'s slot list (cloning the id only for a new type).
    fn index_slot(&mut self, item: &ItemType, slot: u32) {
        let at = self.type_number(item);
        self.by_type.add(at, slot);
    }

    /// `item`'s number in the type index, indexing it with its row in the
    /// rules when new.
    fn type_number(&mut self, item: &ItemType) -> u32 {
        let rules = &self.rules;
        self.by_type.number(item, || rules.row_index(item.as_str()))
    }

    /// The shared id for `item`: the one already held, or a new one.
    fn item_type(&self, item: &str) -> ItemType {
        if let Some((_, k)) = self.by_type.find(item) {
            return k.clone();
        }
        // a listed type's id is the rules' own: no lookup in the
        // process-wide table, which a slotless container would otherwise
        // pay on every request (its holdings are not indexed by name)
        if let Some(k) = self.rules.interned(item) {
            return k.clone();
        }
        ItemType::from(item)
    }
}

/// The terms for `item` (whose row in `rules` is `row`) under `rules`, or
/// why it may not enter. Always inlined, its `by-slot` check kept apart:
/// called, it returned the terms through memory, and reading them back
/// stalled a delivery (7% of a backpack day).
#[inline(always)]
pub(crate) fn terms_under<S: Shape>(
    rules: &Rules,
    slot_rules: Option<&SlotRules>,
    slots_available: u32,
    item: &str,
    row: Option<&crate::rules::TypeRule>,
) -> Result<TypeTerms, Reason> {
    match (rules.restriction, row) {
        (TypeRestriction::OnlyThese, None) => return Err(Reason::TypeRestriction),
        (_, None) if S::has_budget(rules) => return Err(Reason::NoSize),
        _ => {}
    }
    if S::by_slot(rules) {
        by_slot_entry(slot_rules, slots_available, item)?;
    }
    let reserved = if S::has_slots(rules) && S::fill(rules) == FillOrder::NotApplicable {
        match row {
            Some(r) if (r.row as u64) < u64::from(slots_available) => Some(r.row as u32),
            _ => return Err(Reason::NoReservedSlot),
        }
    } else {
        None
    };
    Ok(match row {
        Some(r) => TypeTerms {
            limit: r.stack_limit,
            size: r.size,
            leaves_to: (r.when_forced_out != WhenForcedOut::Never).then_some(r.when_forced_out),
            order: (r.forced_out_order.unwrap_or(i64::MAX), r.row),
            reserved,
        },
        None => TypeTerms {
            limit: if S::has_slots(rules) { 1 } else { u32::MAX },
            size: Decimal::ZERO,
            leaves_to: None,
            order: (i64::MAX, usize::MAX),
            reserved,
        },
    })
}

/// Under `by-slot`: whether some slot in use accepts `item`.
#[inline(never)]
fn by_slot_entry(
    slot_rules: Option<&SlotRules>,
    slots_available: u32,
    item: &str,
) -> Result<(), Reason> {
    let Some(sr) = slot_rules else {
        return Err(Reason::NoSlotRules);
    };
    let any = sr
        .accepts
        .iter()
        .take(slots_available as usize)
        .any(|s| s.contains(item));
    if any { Ok(()) } else { Err(Reason::SlotRules) }
}

#[inline]
pub(crate) fn accepts_under<S: Shape>(
    rules: &Rules,
    slot_rules: Option<&SlotRules>,
    slot: u32,
    item: &str,
    terms: &TypeTerms,
) -> bool {
    if let Some(r) = terms.reserved
        && r != slot
    {
        return false;
    }
    if S::by_slot(rules) {
        return slot_rules.is_some_and(|sr| sr.accepts(slot, item));
    }
    true
}

/// Why an empty slot refuses a type its container otherwise admits.
pub(crate) fn entry_reason(terms: &TypeTerms) -> Reason {
    if terms.reserved.is_some() {
        Reason::NoReservedSlot
    } else {
        Reason::SlotRules
    }
}

#[cfg(test)]
mod layout {
    use std::mem::{offset_of, size_of};

    use super::*;

    /// The fields a save reads for every container a frame changed stay
    /// in the engine's first three cache lines (`#[repr(C)]`, in the order
    /// written): reordering them makes the persistence's hand-over read
    /// twice as many lines.
    #[test]
    fn what_a_save_reads_lies_in_the_first_three_cache_lines() {
        let ends = [
            offset_of!(Contents, rules) + size_of::<Arc<Rules>>(),
            offset_of!(Contents, slots) + size_of::<Vec<Option<Stack>>>(),
            offset_of!(Contents, occ) + size_of::<occupancy::Occupancy>(),
            offset_of!(Contents, counter) + size_of::<u64>(),
            offset_of!(Contents, limits) + size_of::<Limits>(),
            offset_of!(Contents, holdings) + size_of::<BTreeMap<Kind, Stack>>(),
        ];
        assert!(ends.iter().all(|&end| end <= 3 * 64), "{ends:?}");
    }
}
