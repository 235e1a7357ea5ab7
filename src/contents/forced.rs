//! Forced removal: items leaving without a take (the guide's [`guide::requests`](crate::guide::requests)).
//!
//! One mechanism serves every cause: a shrink (slot count or budget
//! lowered), a change of rules (reload, tuning) and an owner gone. The
//! contents are laid out under the new terms; what cannot stay leaves in
//! forced-out order, only as much as needed; if too few items can leave,
//! nothing changes.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{
    AnyShape, Cause, Contents, ForcedOut, ItemType, Limits, Portion, Shortfall, SlotRules, Stack,
    TypeTerms, accepts_under, terms_under,
};
use crate::decimal::Decimal;
use crate::limits::MAX_SLOTS;
use crate::rules::{Rules, WhenForcedOut};

/// A part of a stack as laid out under the new terms: a stack over a
/// lowered limit splits into several pieces.
#[derive(Clone, Debug)]
struct Piece {
    stack: Stack,
    old_slot: Option<u32>,
    /// The first piece of its old stack (the one that may keep the slot).
    first: bool,
    /// Its type's terms, an index into [`Layout::kinds`].
    kind: usize,
}

/// A type's terms under the new rules (`None`: it may not stay), and
/// `(forced-out order, row)` with its destination when it is movable.
type Kind = (Option<TypeTerms>, Option<((i64, usize), WhenForcedOut)>);

/// The terms a reshape lays the contents out under.
pub(super) struct Target {
    pub(super) rules: Arc<Rules>,
    pub(super) limits: Limits,
    pub(super) slot_rules: Option<Arc<SlotRules>>,
    /// Forced-out rules of types neither rule set lists, as a save recorded
    /// them: (type, destination, forced-out order).
    pub(super) earlier: Vec<(String, WhenForcedOut, Option<i64>)>,
}

impl Contents {
    /// Changes the container's capacity (a torn strap, a budget lowered or
    /// raised). Values not given stay. Items the new capacity cannot hold
    /// leave by their rows' forced-out rules, or the change is refused and
    /// nothing changes.
    pub fn resize(&mut self, slot_count: Option<u32>, size_budget: Option<Decimal>) -> ForcedOut {
        let limits = Limits {
            slot_count: slot_count.unwrap_or(self.limits.slot_count),
            size_budget: size_budget.unwrap_or(self.limits.size_budget),
        };
        if let Some(out) = self.shrink_in_place(limits) {
            return out;
        }
        let target = Target {
            rules: self.rules.clone(),
            limits,
            slot_rules: self.slot_rules.clone(),
            earlier: Vec::new(),
        };
        self.reshape(Cause::Shrink, target)
    }

    /// The common shrink, done in place: same rules, slots only, no slot
    /// rules or reserved slots, nothing over the budget. Whole stacks leave
    /// in forced-out order, last slot first, and stacks past the new end
    /// move to the first free slots in old-slot order: what [`Self::reshape`]
    /// does, without laying out the stacks that stay. `None` when the case
    /// is not that simple or too few can leave (the general path decides).
    fn shrink_in_place(&mut self, limits: Limits) -> Option<ForcedOut> {
        let rules = self.rules.clone();
        let simple = rules.has_slot_limit()
            && !rules.has_budget()
            && rules.restriction != crate::rules::TypeRestriction::BySlot
            && rules.fill != crate::rules::FillOrder::NotApplicable
            && limits.size_budget == self.limits.size_budget;
        if !simple {
            return None;
        }
        let new_len = limits.slot_count;
        let held = self.occ.count() as u64;
        let mut need = held.saturating_sub(u64::from(new_len));
        // plan the removals first, so a refusal changes nothing: per type,
        // how many of its stacks leave (always its last ones)
        let mut leaving: Vec<(&crate::rules::TypeRule, usize)> = Vec::new();
        for row in rules.forced_out_sequence() {
            if need == 0 {
                break;
            }
            let slots = self.by_type.slots(row.id.as_str());
            let k = (slots.len() as u64).min(need);
            if k > 0 {
                leaving.push((row, k as usize));
                need -= k;
            }
        }
        if need > 0 {
            return None;
        }
        let mut portions = Vec::with_capacity(leaving.iter().map(|l| l.1).sum());
        for (row, k) in leaving {
            // the type's last `k` stacks, last first
            let cut = self.by_type.cut_last(row.id.as_str(), k);
            for &s in cut.iter().rev() {
                if let Some(stack) = self.slots.get_mut(s as usize).and_then(Option::take) {
                    self.occ.clear(s);
                    portions.push(Portion {
                        item: stack.item,
                        props: stack.props,
                        amount: stack.amount,
                        slot: Some(s),
                        to: row.when_forced_out,
                    });
                }
            }
        }
        let movers: Vec<u32> = self.occ.occupied_from(new_len).collect();
        let mut next = 0;
        for old in movers {
            // `need == 0` left no more stacks than slots, so a free slot is
            // always found; were it not, the stack stays where it was.
            let Some(slot) = self.occ.next_free(next, new_len) else {
                continue;
            };
            next = slot + 1;
            self.move_stack(old, slot);
        }
        self.limits = limits;
        self.set_slot_len(new_len as usize);
        Some(ForcedOut {
            cause: Cause::Shrink,
            portions,
            refused: None,
        })
    }

    /// The owner is gone: everything must leave, by each row's forced-out
    /// rule. Refused (nothing leaves) when a type that never leaves is held.
    pub fn owner_gone(&mut self) -> ForcedOut {
        let target = Target {
            rules: self.rules.clone(),
            limits: self.limits,
            slot_rules: self.slot_rules.clone(),
            earlier: Vec::new(),
        };
        self.reshape(Cause::OwnerGone, target)
    }

    /// New rules for this container (a reloaded adoption, new tuning): its
    /// capacity becomes the new rules' values. Items the new rules cannot
    /// hold leave, or the change is refused and the old rules stay.
    pub fn change_rules(&mut self, rules: Arc<Rules>) -> ForcedOut {
        let target = Target {
            limits: Limits {
                slot_count: rules.slot_count,
                size_budget: rules.size_budget,
            },
            rules,
            slot_rules: self.slot_rules.clone(),
            earlier: Vec::new(),
        };
        self.reshape(Cause::RulesChanged, target)
    }

    /// New slot rules for a `by-slot` container; stacks a slot no longer
    /// accepts move or leave.
    pub fn change_slot_rules(&mut self, slot_rules: SlotRules) -> ForcedOut {
        let target = Target {
            rules: self.rules.clone(),
            limits: self.limits,
            slot_rules: Some(Arc::new(slot_rules)),
            earlier: Vec::new(),
        };
        self.reshape(Cause::RulesChanged, target)
    }

    /// Lays the contents out under `target` and removes what cannot stay,
    /// or refuses and changes nothing. The steps, each its own function:
    /// the pieces under the new terms ([`Self::layout`]), (a) what must leave
    /// ([`Layout::must_leave`]), (b) what leaves for room
    /// ([`Layout::leave_for_room`]), (c) where the kept pieces go
    /// ([`Layout::place`]), (d) apply ([`Self::apply`]). Nothing changes
    /// until (d).
    pub(super) fn reshape(&mut self, cause: Cause, target: Target) -> ForcedOut {
        let mut layout = match self.layout(&target) {
            Ok(layout) => layout,
            Err(short) => return refused(cause, short),
        };
        match layout.plan(cause == Cause::OwnerGone, &target) {
            Ok((leaving, placed)) => self.apply(cause, target, layout, leaving, placed),
            Err(short) => refused(cause, short),
        }
    }

    /// The contents as pieces under the new terms, in slot order and then
    /// the slotless holdings. A stack over its type's new stack limit splits
    /// into pieces of at most that limit, in order; only its first piece may
    /// keep the old slot. Each type's terms and forced-out rule are worked
    /// out once. More pieces than any container has slots ([`MAX_SLOTS`])
    /// could never stay, and are no removal to make in one go (a save of
    /// 79 million letters under a stack limit of 1): that is refused whole,
    /// counted before any piece is made, with the types that split.
    fn layout(&self, target: &Target) -> Result<Layout, Shortfall> {
        let rules = &target.rules;
        let has_slots = rules.has_slots();
        let available = if rules.has_slot_limit() {
            target.limits.slot_count
        } else if has_slots {
            MAX_SLOTS
        } else {
            0
        };
        let sr = target.slot_rules.as_deref();
        let mut layout = Layout {
            pieces: Vec::with_capacity(self.occ.count() as usize + self.holdings.len()),
            kinds: Vec::new(),
            has_slots,
            available,
        };
        let olds = self
            .occ
            .occupied()
            .filter_map(|s| self.stack(s).map(|st| (Some(s), st)))
            .chain(self.holdings.values().map(|st| (None, st)));
        let mut known: crate::hash::FxHashMap<&str, usize> = Default::default();
        let mut stacks = Vec::with_capacity(layout.pieces.capacity());
        let (mut pieces, mut split) = (0u64, BTreeSet::new());
        for (old_slot, st) in olds {
            let item = st.item.as_str();
            let kind = *known.entry(item).or_insert_with(|| {
                let terms =
                    terms_under::<AnyShape>(rules, sr, available, item, rules.row(item)).ok();
                layout
                    .kinds
                    .push((terms, leaves_of(target, &self.rules, item)));
                layout.kinds.len() - 1
            });
            let n = layout.piece_count(st, kind);
            if n > 1 {
                split.insert(st.item.clone());
            }
            pieces += n;
            stacks.push((old_slot, st, kind));
        }
        if pieces > u64::from(MAX_SLOTS) {
            return Err(Shortfall {
                slots: pieces - u64::from(layout.available),
                size: Decimal::ZERO,
                held_by: split.into_iter().collect(),
            });
        }
        for (old_slot, st, kind) in stacks {
            layout.split(old_slot, st, kind);
        }
        Ok(layout)
    }

    /// (d) Apply: the contents become the kept pieces in their slots (or
    /// merged into one holding per type when slotless) under the target's
    /// rules, capacity and slot rules; the removed portions, in the order
    /// they were chosen, are the outcome.
    fn apply(
        &mut self,
        cause: Cause,
        target: Target,
        layout: Layout,
        leaving: Leaving,
        placed: Placement,
    ) -> ForcedOut {
        let portions = layout.portions(&leaving);
        let old_len = self.slots.len();
        self.rules = target.rules;
        self.limits = target.limits;
        self.slot_rules = target.slot_rules;
        self.slots.clear();
        self.occ = Default::default();
        self.by_type.clear();
        self.holdings.clear();
        self.size_used = Decimal::ZERO;
        let len = if self.rules.has_slot_limit() {
            self.limits.slot_count as usize
        } else if layout.has_slots && cause != Cause::RulesChanged {
            old_len
        } else {
            0
        };
        self.set_slot_len(len);
        for (s, i) in placed {
            let stack = &layout.pieces[i].stack;
            self.size_used = self.size_used.plus(layout.size(i).times(stack.amount));
            self.put_stack(s, stack.clone());
        }
        if !layout.has_slots {
            for (i, p) in layout.pieces.iter().enumerate() {
                if leaving.gone[i] {
                    continue;
                }
                self.size_used = self.size_used.plus(layout.size(i).times(p.stack.amount));
                let entry = self
                    .holdings
                    .entry(crate::props::Kind::new(
                        p.stack.item.clone(),
                        p.stack.props.clone(),
                    ))
                    .or_insert_with(|| Stack {
                        amount: 0,
                        ..p.stack.clone()
                    });
                entry.amount += p.stack.amount;
            }
        }
        ForcedOut {
            cause,
            portions,
            refused: None,
        }
    }
}

/// A type's forced-out rule: `(forced-out order, row)` and destination when
/// it is movable, `None` for `never` and for types no rule lists. The new
/// rules' row counts, else the old rules' row, else the row a save recorded
/// (ordered after every listed row).
fn leaves_of(target: &Target, old: &Rules, item: &str) -> Option<((i64, usize), WhenForcedOut)> {
    let Some(row) = target.rules.row(item).or_else(|| old.row(item)) else {
        let i = target.earlier.iter().position(|e| e.0 == item)?;
        let (_, when, order) = &target.earlier[i];
        return (*when != WhenForcedOut::Never)
            .then_some(((order.unwrap_or(i64::MAX), usize::MAX / 2 + i), *when));
    };
    (row.when_forced_out != WhenForcedOut::Never).then_some((
        (row.forced_out_order.unwrap_or(i64::MAX), row.row),
        row.when_forced_out,
    ))
}

/// The contents as pieces under the new terms (see [`Contents::layout`]).
struct Layout {
    pieces: Vec<Piece>,
    /// The types' terms, indexed by [`Piece::kind`].
    kinds: Vec<Kind>,
    /// Whether the new rules have slots.
    has_slots: bool,
    /// How many slot indices the new terms allow.
    available: u32,
}

/// What leaves: `(piece, amount)` in the order the portions are reported,
/// and which pieces leave whole.
#[derive(Debug)]
struct Leaving {
    removed: Vec<(usize, u32)>,
    gone: Vec<bool>,
}

impl Leaving {
    fn none(pieces: usize) -> Leaving {
        Leaving {
            removed: Vec::new(),
            gone: vec![false; pieces],
        }
    }

    /// `amount` of piece `i` leaves; the piece is gone when that is all of
    /// it (`whole`).
    fn take(&mut self, i: usize, amount: u32, whole: bool) {
        self.removed.push((i, amount));
        if whole {
            self.gone[i] = true;
        }
    }
}

/// Where the kept pieces go: `(slot, piece)`.
type Placement = Vec<(u32, usize)>;

impl Layout {
    /// The most items one piece of kind `kind` holds (`amount`: no limit).
    fn piece_limit(&self, kind: usize, amount: u32) -> u32 {
        match (&self.kinds[kind].0, self.has_slots) {
            (Some(t), true) => t.limit.max(1),
            _ => amount,
        }
    }

    /// How many pieces [`Layout::split`] makes of `st`.
    fn piece_count(&self, st: &Stack, kind: usize) -> u64 {
        let limit = self.piece_limit(kind, st.amount).max(1);
        u64::from(st.amount.div_ceil(limit)).max(1)
    }

    /// Adds the pieces of `st` (from `old_slot`, of kind `kind`): one, or
    /// several when it is over its type's new stack limit.
    fn split(&mut self, old_slot: Option<u32>, st: &Stack, kind: usize) {
        let limit = self.piece_limit(kind, st.amount);
        let mut left = st.amount;
        let mut first = true;
        while left > 0 {
            let n = left.min(limit);
            self.pieces.push(Piece {
                stack: Stack {
                    amount: n,
                    ..st.clone()
                },
                old_slot,
                first,
                kind,
            });
            first = false;
            left -= n;
        }
    }

    /// Steps (a) to (c): what leaves and where the rest goes, or the
    /// shortfall that refuses the removal. Only the pieces change (the
    /// amounts left after a partial removal).
    fn plan(
        &mut self,
        everything: bool,
        target: &Target,
    ) -> Result<(Leaving, Placement), Shortfall> {
        let mut leaving = self.must_leave(everything)?;
        self.leave_for_room(&mut leaving, &target.rules, target.limits.size_budget)?;
        let placed = self.place(&mut leaving, &target.rules, target.slot_rules.as_deref())?;
        Ok((leaving, placed))
    }

    /// The new terms for piece `i` (`None`: its type may not stay).
    fn terms(&self, i: usize) -> Option<TypeTerms> {
        self.kinds[self.pieces[i].kind].0
    }

    /// Piece `i`'s forced-out order and destination (`None`: it never leaves).
    fn leaves(&self, i: usize) -> Option<((i64, usize), WhenForcedOut)> {
        self.kinds[self.pieces[i].kind].1
    }

    /// The size of one item of piece `i` under the new terms.
    fn size(&self, i: usize) -> Decimal {
        self.terms(i).map_or(Decimal::ZERO, |t| t.size)
    }

    fn item(&self, i: usize) -> &ItemType {
        &self.pieces[i].stack.item
    }

    /// (a) What must leave in full: everything when `everything` (owner
    /// gone), else every piece of a type the new terms refuse outright. They
    /// leave in forced-out order; refused when any of them never leaves
    /// (short one slot per such piece, held by their types).
    fn must_leave(&self, everything: bool) -> Result<Leaving, Shortfall> {
        let must: Vec<usize> = (0..self.pieces.len())
            .filter(|&i| everything || self.terms(i).is_none())
            .collect();
        let stuck: Vec<usize> = must
            .iter()
            .copied()
            .filter(|&i| self.leaves(i).is_none())
            .collect();
        if !stuck.is_empty() {
            let held_by: BTreeSet<ItemType> = stuck.iter().map(|&i| self.item(i).clone()).collect();
            return Err(Shortfall {
                slots: stuck.len() as u64,
                size: Decimal::ZERO,
                held_by: held_by.into_iter().collect(),
            });
        }
        let mut leaving = Leaving::none(self.pieces.len());
        for i in self.in_leaving_order(must) {
            leaving.take(i, self.pieces[i].stack.amount, true);
        }
        Ok(leaving)
    }

    /// (b) What leaves for room, only as much as needed: movable pieces in
    /// leaving order while slots or budget are short. A slot shortage
    /// removes whole pieces; a budget shortage removes as many items of a
    /// piece as close it (a size-0 type never helps). Refused when too few
    /// can leave, with what is still short and the kept types that never
    /// leave. A partly removed piece keeps the rest.
    fn leave_for_room(
        &mut self,
        leaving: &mut Leaving,
        rules: &Rules,
        budget: Decimal,
    ) -> Result<(), Shortfall> {
        let kept: Vec<usize> = (0..self.pieces.len())
            .filter(|&i| !leaving.gone[i])
            .collect();
        let (mut need_slots, mut need_size) = self.shortage(&kept, rules, budget);
        let movable = kept
            .into_iter()
            .filter(|&i| self.leaves(i).is_some())
            .collect();
        for i in self.in_leaving_order(movable) {
            if need_slots == 0 && need_size.is_zero() {
                break;
            }
            let (size, amount) = (self.size(i), self.pieces[i].stack.amount);
            if need_slots > 0 {
                need_slots -= 1;
                need_size = need_size.minus(size.times(amount));
                leaving.take(i, amount, true);
            } else if let Some(k) = size.how_many_cover(need_size) {
                let k = u32::try_from(k).unwrap_or(u32::MAX).min(amount);
                need_size = need_size.minus(size.times(k));
                leaving.take(i, k, k == amount);
            }
        }
        if need_slots > 0 || !need_size.is_zero() {
            let held_by: BTreeSet<ItemType> = (0..self.pieces.len())
                .filter(|&i| !leaving.gone[i] && self.leaves(i).is_none())
                .map(|i| self.item(i).clone())
                .collect();
            return Err(Shortfall {
                slots: need_slots,
                size: need_size,
                held_by: held_by.into_iter().collect(),
            });
        }
        for &(i, k) in &leaving.removed {
            if !leaving.gone[i] {
                self.pieces[i].stack.amount -= k;
            }
        }
        Ok(())
    }

    /// How many slots and how much size the pieces `kept` are short of
    /// under the new terms (zero for what the rules do not limit).
    fn shortage(&self, kept: &[usize], rules: &Rules, budget: Decimal) -> (u64, Decimal) {
        let slots = if self.has_slots {
            (kept.len() as u64).saturating_sub(u64::from(self.available))
        } else {
            0
        };
        let size = if rules.has_budget() {
            kept.iter()
                .fold(Decimal::ZERO, |acc, &i| {
                    acc.plus(self.size(i).times(self.pieces[i].stack.amount))
                })
                .minus(budget)
        } else {
            Decimal::ZERO
        };
        (slots, size)
    }

    /// (c) Where the kept pieces go. A piece keeps its old slot when it is
    /// its stack's first piece and the slot still exists and accepts it; the
    /// others, in the order of their old slots, take the first free slot
    /// that accepts them, in ascending order (the search starts past the
    /// last slot so given, unless a reserved slot or slot rules make an
    /// earlier one possible). A movable piece with no slot leaves; any other
    /// refuses the removal. Pieces never merge. Slotless: refused when a
    /// type's kept pieces add to more than one holding can hold.
    fn place(
        &self,
        leaving: &mut Leaving,
        rules: &Rules,
        sr: Option<&SlotRules>,
    ) -> Result<Placement, Shortfall> {
        if !self.has_slots {
            self.holdings_fit(leaving)?;
            return Ok(Vec::new());
        }
        let mut taken = Taken::default();
        let mut placed = Vec::new();
        let mut movers = Vec::new();
        for i in (0..self.pieces.len()).filter(|&i| !leaving.gone[i]) {
            match self.kept_slot(i, rules, sr) {
                Some(s) => {
                    taken.insert(s);
                    placed.push((s, i));
                }
                None => movers.push(i),
            }
        }
        let mut cursor = 0u32;
        for i in movers {
            let Some(t) = self.terms(i) else { continue };
            match self.free_slot(i, &t, cursor, &taken, rules, sr) {
                Some(s) => {
                    taken.insert(s);
                    placed.push((s, i));
                    if t.reserved.is_none() && sr.is_none() {
                        cursor = s + 1;
                    }
                }
                None if self.leaves(i).is_some() => {
                    leaving.take(i, self.pieces[i].stack.amount, true);
                }
                None => {
                    return Err(Shortfall {
                        slots: 1,
                        size: Decimal::ZERO,
                        held_by: vec![self.item(i).clone()],
                    });
                }
            }
        }
        Ok(placed)
    }

    /// The old slot piece `i` keeps, if it may: its stack's first piece, in
    /// a slot that still exists and accepts it.
    fn kept_slot(&self, i: usize, rules: &Rules, sr: Option<&SlotRules>) -> Option<u32> {
        let p = &self.pieces[i];
        let t = self.terms(i)?;
        let s = p.old_slot.filter(|&s| p.first && s < self.available)?;
        accepts_under::<AnyShape>(rules, sr, s, p.stack.item.as_str(), &t).then_some(s)
    }

    /// The first slot from `from` on that is not taken and accepts piece `i`.
    fn free_slot(
        &self,
        i: usize,
        t: &TypeTerms,
        from: u32,
        taken: &Taken,
        rules: &Rules,
        sr: Option<&SlotRules>,
    ) -> Option<u32> {
        let item = self.item(i).as_str();
        (from..self.available)
            .find(|&s| !taken.has(s) && accepts_under::<AnyShape>(rules, sr, s, item, t))
    }

    /// A slotless holding is one amount per kind: refuse rather than
    /// saturate when a kind's kept pieces would pass `u32::MAX` (the first
    /// such kind holds it).
    fn holdings_fit(&self, leaving: &Leaving) -> Result<(), Shortfall> {
        let mut sums: std::collections::BTreeMap<(&ItemType, &crate::props::Props), u64> =
            Default::default();
        for (i, p) in self.pieces.iter().enumerate() {
            if !leaving.gone[i] {
                *sums.entry((&p.stack.item, &p.stack.props)).or_default() +=
                    u64::from(p.stack.amount);
            }
        }
        match sums.into_iter().find(|(_, n)| *n > u64::from(u32::MAX)) {
            Some(((item, _), _)) => Err(Shortfall {
                slots: 0,
                size: Decimal::ZERO,
                held_by: vec![item.clone()],
            }),
            None => Ok(()),
        }
    }

    /// The removed portions, in the order they were chosen.
    fn portions(&self, leaving: &Leaving) -> Vec<Portion> {
        leaving
            .removed
            .iter()
            .filter_map(|&(i, k)| {
                let p = &self.pieces[i];
                self.leaves(i).map(|(_, to)| Portion {
                    item: p.stack.item.clone(),
                    props: p.stack.props.clone(),
                    amount: k,
                    slot: p.old_slot,
                    to,
                })
            })
            .collect()
    }

    /// Movable pieces in the order they leave: types by forced-out order,
    /// and within a type from the last slot backwards. Pieces are built in
    /// slot order, so a higher index is a later slot (or a later piece of a
    /// split).
    fn in_leaving_order(&self, which: Vec<usize>) -> Vec<usize> {
        let mut keyed: Vec<((i64, usize), usize)> = which
            .into_iter()
            .map(|i| (self.leaves(i).map_or((i64::MAX, usize::MAX), |(o, _)| o), i))
            .collect();
        keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        keyed.into_iter().map(|(_, i)| i).collect()
    }
}

/// Slots given out while laying out what stays.
#[derive(Default)]
struct Taken(Vec<bool>);

impl Taken {
    fn insert(&mut self, s: u32) {
        let s = s as usize;
        if s >= self.0.len() {
            self.0.resize(s + 1, false);
        }
        self.0[s] = true;
    }
    fn has(&self, s: u32) -> bool {
        self.0.get(s as usize).copied().unwrap_or(false)
    }
}

fn refused(cause: Cause, short: Shortfall) -> ForcedOut {
    ForcedOut {
        cause,
        portions: Vec::new(),
        refused: Some(short),
    }
}

#[cfg(test)]
mod tests;
