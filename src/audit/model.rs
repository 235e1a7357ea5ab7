//! An independent statement of entry, delivery and take (the guide's [`guide::adoption`](crate::guide::adoption), [`guide::requests`](crate::guide::requests)): plain vectors, linear scans, integer millionths, no indexes. The audit
//! compares the engine with it; none of its code is shared with the engine.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::contents::{Contents, Reason, SlotRules};
use crate::rules::{
    CapacityLimit, DrawOrder, FillOrder, LeftoverDestination, PartialAcceptance, Rules,
    TypeRestriction,
};

/// The safety ceiling of slots for `no-limit` containers (README, limits).
pub(crate) const CEILING: u32 = 1 << 20;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MStack {
    pub item: String,
    pub amount: u32,
    pub began: u64,
    pub last: u64,
}

/// What the rules say a delivery does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Delivery {
    pub accepted: u32,
    pub landed: Vec<(u32, u32)>,
    pub refused: Option<(u32, Reason)>,
    pub leftover: Option<(u32, LeftoverDestination)>,
}

/// What the rules say a take does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Draw {
    pub taken: u32,
    pub shortfall: u32,
    pub from: Vec<(u32, u32)>,
    pub refused: Option<Reason>,
}

/// How one type may be held.
struct Terms {
    limit: u32,
    size: u128,
    reserved: Option<u32>,
}

#[derive(Clone, Debug)]
pub(crate) struct Model {
    rules: Arc<Rules>,
    slot_rules: Option<SlotRules>,
    /// Current slot count (slot-limited containers).
    slot_count: u32,
    /// Current budget in millionths (budget-limited containers).
    budget: u128,
    pub slots: Vec<Option<MStack>>,
    pub holdings: BTreeMap<String, u32>,
    counter: u64,
}

impl Model {
    pub(crate) fn new(rules: Arc<Rules>, slot_rules: Option<SlotRules>) -> Model {
        let slot_count = rules.slot_count;
        let budget = rules.size_budget.micros();
        let mut m = Model {
            rules,
            slot_rules,
            slot_count,
            budget,
            slots: Vec::new(),
            holdings: BTreeMap::new(),
            counter: 0,
        };
        if m.slot_limited() {
            m.slots = vec![None; slot_count as usize];
        }
        m
    }

    fn slot_limited(&self) -> bool {
        matches!(
            self.rules.capacity,
            CapacityLimit::SlotCount | CapacityLimit::SlotsAndSize
        )
    }

    fn slotless(&self) -> bool {
        self.rules.capacity == CapacityLimit::SizeBudget
    }

    fn budgeted(&self) -> bool {
        matches!(
            self.rules.capacity,
            CapacityLimit::SizeBudget | CapacityLimit::SlotsAndSize
        )
    }

    /// Slot indices that may ever be used.
    fn space(&self) -> u32 {
        if self.slotless() {
            0
        } else if self.slot_limited() {
            self.slot_count
        } else {
            CEILING
        }
    }

    /// The size of one item of `item`, in millionths (0 for unlisted types).
    pub(crate) fn size_of(&self, item: &str) -> u128 {
        self.rules
            .rows
            .iter()
            .find(|r| r.id == item)
            .map_or(0, |r| r.size.micros())
    }

    /// Total size held, recomputed from the stacks.
    pub(crate) fn used(&self) -> u128 {
        let slots: u128 = self
            .slots
            .iter()
            .flatten()
            .map(|s| u128::from(s.amount) * self.size_of(&s.item))
            .sum();
        let held: u128 = self
            .holdings
            .iter()
            .map(|(k, &n)| u128::from(n) * self.size_of(k))
            .sum();
        slots + held
    }

    /// Section 3: may the type enter, and on what terms.
    fn terms(&self, item: &str) -> Result<Terms, Reason> {
        let row = self.rules.rows.iter().position(|r| r.id == item);
        if row.is_none() && self.rules.restriction == TypeRestriction::OnlyThese {
            return Err(Reason::TypeRestriction);
        }
        if row.is_none() && self.budgeted() {
            return Err(Reason::NoSize);
        }
        if self.rules.restriction == TypeRestriction::BySlot {
            let Some(sr) = &self.slot_rules else {
                return Err(Reason::NoSlotRules);
            };
            if !(0..self.space().min(sr.accepts.len() as u32)).any(|s| sr.accepts(s, item)) {
                return Err(Reason::SlotRules);
            }
        }
        let mut reserved = None;
        if !self.slotless() && self.rules.fill == FillOrder::NotApplicable {
            match row {
                Some(k) if (k as u64) < u64::from(self.space()) => reserved = Some(k as u32),
                _ => return Err(Reason::NoReservedSlot),
            }
        }
        let (limit, size) = match row {
            Some(k) => (
                self.rules.rows[k].stack_limit,
                self.rules.rows[k].size.micros(),
            ),
            None if self.slotless() => (u32::MAX, 0),
            None => (1, 0),
        };
        Ok(Terms {
            limit,
            size,
            reserved,
        })
    }

    fn accepts(&self, slot: u32, item: &str, t: &Terms) -> bool {
        if t.reserved.is_some_and(|r| r != slot) {
            return false;
        }
        if self.rules.restriction == TypeRestriction::BySlot {
            return self
                .slot_rules
                .as_ref()
                .is_some_and(|sr| sr.accepts(slot, item));
        }
        true
    }

    fn at(&self, slot: u32) -> Option<&MStack> {
        self.slots.get(slot as usize).and_then(Option::as_ref)
    }

    /// Room for `item` in `slot`.
    fn room(&self, slot: u32, item: &str, t: &Terms) -> u32 {
        if slot >= self.space() || !self.accepts(slot, item, t) {
            return 0;
        }
        match self.at(slot) {
            None => t.limit,
            Some(s) if s.item == item => t.limit.saturating_sub(s.amount),
            Some(_) => 0,
        }
    }

    /// Where the fill order puts up to `want` items (the guide's [`guide::requests`](crate::guide::requests)).
    fn plan(&self, item: &str, t: &Terms, want: u32) -> Vec<(u32, u32)> {
        let mut plan = Vec::new();
        let mut left = want;
        let mut put = |slot: u32, room: u32, plan: &mut Vec<(u32, u32)>| {
            let n = room.min(left);
            if n > 0 {
                plan.push((slot, n));
                left -= n;
            }
            left == 0
        };
        let end = self.space();
        // by-slot containers never use slots past their slot rules
        let end = match (&self.slot_rules, self.rules.restriction) {
            (Some(sr), TypeRestriction::BySlot) => end.min(sr.accepts.len() as u32),
            _ => end,
        };
        match self.rules.fill {
            FillOrder::TopUpThenFirstEmpty => {
                for s in 0..end {
                    if self.at(s).is_some_and(|st| st.item == item)
                        && put(s, self.room(s, item, t), &mut plan)
                    {
                        return plan;
                    }
                }
                for s in 0..end {
                    if self.at(s).is_none() && put(s, self.room(s, item, t), &mut plan) {
                        return plan;
                    }
                }
            }
            FillOrder::FirstSlotThatFits => {
                for s in 0..end {
                    if put(s, self.room(s, item, t), &mut plan) {
                        return plan;
                    }
                }
            }
            FillOrder::Append => {
                let last = (0..self.slots.len() as u32)
                    .rev()
                    .find(|&s| self.at(s).is_some());
                let start = match last {
                    Some(l) => {
                        if self.at(l).is_some_and(|st| st.item == item)
                            && put(l, self.room(l, item, t), &mut plan)
                        {
                            return plan;
                        }
                        l + 1
                    }
                    None => 0,
                };
                for s in start..end {
                    if put(s, self.room(s, item, t), &mut plan) {
                        return plan;
                    }
                }
            }
            FillOrder::NotApplicable => {
                if let Some(r) = t.reserved {
                    put(r, self.room(r, item, t), &mut plan);
                }
            }
        }
        plan
    }

    /// What a delivery of `amount` of `item` does, applied to the model.
    pub(crate) fn deliver(&mut self, item: &str, amount: u32) -> Delivery {
        let mut out = Delivery {
            accepted: 0,
            landed: Vec::new(),
            refused: None,
            leftover: None,
        };
        if amount == 0 {
            return out;
        }
        let t = match self.terms(item) {
            Ok(t) => t,
            Err(r) => {
                out.refused = Some((amount, r));
                return out;
            }
        };
        let mut want = amount;
        if self.budgeted() && t.size > 0 {
            let free = self.budget.saturating_sub(self.used());
            want = want.min(u32::try_from(free / t.size).unwrap_or(u32::MAX));
        }
        let (plan, placed) = if self.slotless() {
            let held = self.holdings.get(item).copied().unwrap_or(0);
            (Vec::new(), want.min(u32::MAX - held))
        } else {
            let plan = self.plan(item, &t, want);
            let placed = plan.iter().map(|&(_, n)| n).sum();
            (plan, placed)
        };
        let rest = amount - placed;
        if rest > 0 {
            let limited = self.slot_limited() || self.budgeted();
            if !limited {
                let reason = if self.rules.restriction == TypeRestriction::BySlot {
                    Reason::SlotRules
                } else {
                    Reason::SlotCeiling
                };
                out.refused = Some((rest, reason));
            } else if self.rules.partial == PartialAcceptance::AllOrNothing {
                out.refused = Some((amount, Reason::DoesNotFit));
                return out;
            } else {
                let to = self
                    .rules
                    .leftover
                    .unwrap_or(LeftoverDestination::LeftWhereItIs);
                out.leftover = Some((rest, to));
            }
        }
        out.accepted = placed;
        if self.slotless() {
            if placed > 0 {
                *self.holdings.entry(item.to_string()).or_insert(0) += placed;
            }
        } else {
            for &(slot, n) in &plan {
                self.counter += 1;
                let c = self.counter;
                let s = slot as usize;
                if s >= self.slots.len() {
                    self.slots.resize(s + 1, None);
                }
                match &mut self.slots[s] {
                    Some(st) => {
                        st.amount += n;
                        st.last = c;
                    }
                    empty => {
                        *empty = Some(MStack {
                            item: item.to_string(),
                            amount: n,
                            began: c,
                            last: c,
                        })
                    }
                }
            }
        }
        out.landed = plan;
        out
    }

    /// What a take does (the guide's [`guide::requests`](crate::guide::requests)), applied to the model.
    pub(crate) fn take(&mut self, item: &str, amount: u32, slot: Option<u32>) -> Draw {
        let mut out = Draw {
            taken: 0,
            shortfall: amount,
            from: Vec::new(),
            refused: None,
        };
        if amount == 0 {
            return out;
        }
        if self.slotless() {
            if slot.is_some() {
                out.refused = Some(Reason::NoSlots);
                return out;
            }
            let held = self.holdings.get(item).copied().unwrap_or(0);
            let n = held.min(amount);
            if n == held {
                self.holdings.remove(item);
            } else {
                self.holdings.insert(item.to_string(), held - n);
            }
            out.taken = n;
            out.shortfall = amount - n;
            return out;
        }
        let order: Vec<u32> = match slot {
            Some(s) => {
                let shown = if self.slot_limited() {
                    self.slot_count as usize
                } else {
                    self.shown_len()
                };
                if s as usize >= shown {
                    out.refused = Some(Reason::NoSuchSlot);
                    return out;
                }
                if self.at(s).is_some_and(|st| st.item == item) {
                    vec![s]
                } else {
                    Vec::new()
                }
            }
            None => {
                let mut holding: Vec<u32> = (0..self.slots.len() as u32)
                    .filter(|&s| self.at(s).is_some_and(|st| st.item == item))
                    .collect();
                let key = |s: &u32| self.at(*s).map_or((0, 0), |st| (st.began, st.last));
                match self.rules.draw {
                    DrawOrder::FirstInOrder => {}
                    DrawOrder::LastInOrder => holding.reverse(),
                    DrawOrder::NewestFirst => holding.sort_by_key(|s| std::cmp::Reverse(key(s).1)),
                    DrawOrder::OldestFirst => holding.sort_by_key(|s| key(s).0),
                    DrawOrder::NotApplicable => {
                        if holding.len() > 1 {
                            out.refused = Some(Reason::AmbiguousDraw);
                            return out;
                        }
                    }
                }
                holding
            }
        };
        let mut left = amount;
        for s in order {
            if left == 0 {
                break;
            }
            let Some(st) = self.slots.get_mut(s as usize).and_then(Option::as_mut) else {
                continue;
            };
            let n = st.amount.min(left);
            st.amount -= n;
            left -= n;
            out.from.push((s, n));
            if st.amount == 0 {
                self.slots[s as usize] = None;
            }
        }
        out.taken = amount - left;
        out.shortfall = left;
        out
    }

    /// Slots shown: all of a slot-limited container's, or up to the last
    /// occupied one.
    pub(crate) fn shown_len(&self) -> usize {
        if self.slot_limited() {
            self.slot_count as usize
        } else {
            self.slots
                .iter()
                .rposition(Option::is_some)
                .map_or(0, |l| l + 1)
        }
    }

    /// Takes the engine's state as the model's own after a step the model
    /// does not predict (or a step whose other aspects another test checks),
    /// keeping the model's own draw-order bookkeeping for stacks it knew.
    pub(crate) fn adopt(&mut self, contents: &Contents) {
        let limits = contents.limits();
        self.slot_count = limits.slot_count;
        self.budget = limits.size_budget.micros();
        let shown: Vec<Option<(String, u32)>> = contents
            .slots()
            .map(|s| s.map(|s| (s.item.as_str().to_string(), s.amount)))
            .collect();
        let mut slots = vec![None; shown.len().max(self.shown_len())];
        for (i, s) in shown.into_iter().enumerate() {
            if let Some((item, amount)) = s {
                let known = self.at(i as u32).filter(|m| m.item == item).cloned();
                slots[i] = Some(match known {
                    Some(m) if m.amount == amount => m,
                    Some(m) if m.amount > amount => MStack { amount, ..m },
                    Some(m) => {
                        self.counter += 1;
                        MStack {
                            amount,
                            last: self.counter,
                            ..m
                        }
                    }
                    None => {
                        self.counter += 1;
                        MStack {
                            item,
                            amount,
                            began: self.counter,
                            last: self.counter,
                        }
                    }
                });
            }
        }
        if !self.slot_limited() {
            while slots.last().is_some_and(Option::is_none) {
                slots.pop();
            }
        }
        self.slots = slots;
        self.holdings = contents
            .holdings()
            .map(|(k, n)| (k.to_string(), n))
            .collect();
    }
}

/// Slots as `[[type, amount], null, ...]`.
pub(crate) fn show_slots(slots: &[Option<(&str, u32)>]) -> String {
    let parts: Vec<String> = slots
        .iter()
        .map(|s| match s {
            Some((t, n)) => format!("[{t:?}, {n}]"),
            None => "null".to_string(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}
