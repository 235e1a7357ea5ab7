//! Forced removal: items leaving without a take (spec section 6).
//!
//! One mechanism serves every cause: a shrink (slot count or budget
//! lowered), a change of rules (reload, tuning) and an owner gone. The
//! contents are laid out under the new terms; what cannot stay leaves in
//! forced-out order, only as much as needed; if too few items can leave,
//! nothing changes.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::{
    Cause, Contents, ForcedOut, ItemType, Limits, Portion, Shortfall, SlotRules, Stack, TypeTerms,
    accepts_under, terms_under,
};
use crate::adoption::MAX_SLOTS;
use crate::decimal::Decimal;
use crate::rules::{Rules, WhenForcedOut};

/// A part of a stack as laid out under the new terms: a stack over a
/// lowered limit splits into several pieces.
#[derive(Clone, Debug)]
struct Piece {
    stack: Stack,
    old_slot: Option<u32>,
    /// The first piece of its old stack (the one that may keep the slot).
    first: bool,
    /// Its type's terms, an index into the reshape's table of [`Kind`]s.
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
            let Some(list) = self.by_type.slots_mut(row.id.as_str()) else {
                continue;
            };
            let cut = list.len() - k;
            for &s in list[cut..].iter().rev() {
                if let Some(stack) = self.slots.get_mut(s as usize).and_then(Option::take) {
                    self.occ.clear(s);
                    portions.push(Portion {
                        item: stack.item,
                        amount: stack.amount,
                        slot: Some(s),
                        to: row.when_forced_out,
                    });
                }
            }
            list.truncate(cut);
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

    pub(super) fn reshape(&mut self, cause: Cause, target: Target) -> ForcedOut {
        let everything = cause == Cause::OwnerGone;
        let new_rules = &target.rules;
        let has_slots = new_rules.has_slots();
        let available = if new_rules.has_slot_limit() {
            target.limits.slot_count
        } else if has_slots {
            MAX_SLOTS
        } else {
            0
        };
        let sr = target.slot_rules.as_deref();
        let earlier = &target.earlier;
        let leaves_of = |item: &str| -> Option<((i64, usize), WhenForcedOut)> {
            let Some(row) = new_rules.row(item).or_else(|| self.rules.row(item)) else {
                let i = earlier.iter().position(|e| e.0 == item)?;
                let (_, when, order) = &earlier[i];
                return (*when != WhenForcedOut::Never)
                    .then_some(((order.unwrap_or(i64::MAX), usize::MAX / 2 + i), *when));
            };
            (row.when_forced_out != WhenForcedOut::Never).then_some((
                (row.forced_out_order.unwrap_or(i64::MAX), row.row),
                row.when_forced_out,
            ))
        };

        // 1. The contents as pieces under the new terms.
        let olds: Vec<(Option<u32>, &Stack)> = self
            .occ
            .occupied()
            .filter_map(|s| self.stack(s).map(|st| (Some(s), st)))
            .chain(self.holdings.values().map(|st| (None, st)))
            .collect();
        let mut pieces: Vec<Piece> = Vec::with_capacity(olds.len());
        let mut kinds: Vec<Kind> = Vec::new();
        let mut known: crate::hash::FxHashMap<&str, usize> = Default::default();
        for (old_slot, st) in olds {
            let kind = *known.entry(st.item.as_str()).or_insert_with(|| {
                kinds.push((
                    terms_under(
                        new_rules,
                        sr,
                        available,
                        st.item.as_str(),
                        new_rules.row(st.item.as_str()),
                    )
                    .ok(),
                    leaves_of(st.item.as_str()),
                ));
                kinds.len() - 1
            });
            let terms = kinds[kind].0;
            let limit = match (&terms, has_slots) {
                (Some(t), true) => t.limit.max(1),
                _ => st.amount,
            };
            let mut left = st.amount;
            let mut first = true;
            while left > 0 {
                let n = left.min(limit);
                pieces.push(Piece {
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
        // 2. Types that must leave in full.
        let mut removed: Vec<(usize, u32)> = Vec::new();
        let mut gone = vec![false; pieces.len()];
        let mut stuck: BTreeSet<ItemType> = BTreeSet::new();
        let mut stuck_slots = 0u64;
        let must: Vec<usize> = (0..pieces.len())
            .filter(|&i| everything || kinds[pieces[i].kind].0.is_none())
            .collect();
        for &i in &must {
            if kinds[pieces[i].kind].1.is_none() {
                stuck.insert(pieces[i].stack.item.clone());
                stuck_slots += 1;
            }
        }
        if !stuck.is_empty() {
            return refused(
                cause,
                Shortfall {
                    slots: stuck_slots,
                    size: Decimal::ZERO,
                    held_by: stuck.into_iter().collect(),
                },
            );
        }
        for i in in_leaving_order(&pieces, &kinds, must) {
            removed.push((i, pieces[i].stack.amount));
            gone[i] = true;
        }
        // 3. Only what is needed leaves for slots and budget.
        let size_of = |p: &Piece| kinds[p.kind].0.map_or(Decimal::ZERO, |t| t.size);
        let kept: Vec<usize> = (0..pieces.len()).filter(|&i| !gone[i]).collect();
        let mut need_slots: u64 = if has_slots {
            (kept.len() as u64).saturating_sub(u64::from(available))
        } else {
            0
        };
        let mut need_size = if new_rules.has_budget() {
            kept.iter()
                .fold(Decimal::ZERO, |acc, &i| {
                    acc.plus(size_of(&pieces[i]).times(pieces[i].stack.amount))
                })
                .minus(target.limits.size_budget)
        } else {
            Decimal::ZERO
        };
        let movable: Vec<usize> = kept
            .iter()
            .copied()
            .filter(|&i| kinds[pieces[i].kind].1.is_some())
            .collect();
        for i in in_leaving_order(&pieces, &kinds, movable) {
            if need_slots == 0 && need_size.is_zero() {
                break;
            }
            let p = &pieces[i];
            let size = size_of(p);
            if need_slots > 0 {
                need_slots -= 1;
                need_size = need_size.minus(size.times(p.stack.amount));
                removed.push((i, p.stack.amount));
                gone[i] = true;
            } else if let Some(k) = size.how_many_cover(need_size) {
                let k = u32::try_from(k).unwrap_or(u32::MAX).min(p.stack.amount);
                need_size = need_size.minus(size.times(k));
                removed.push((i, k));
                if k == p.stack.amount {
                    gone[i] = true;
                }
            }
        }
        if need_slots > 0 || !need_size.is_zero() {
            let held_by: BTreeSet<ItemType> = (0..pieces.len())
                .filter(|&i| !gone[i] && kinds[pieces[i].kind].1.is_none())
                .map(|i| pieces[i].stack.item.clone())
                .collect();
            return refused(
                cause,
                Shortfall {
                    slots: need_slots,
                    size: need_size,
                    held_by: held_by.into_iter().collect(),
                },
            );
        }
        for &(i, k) in &removed {
            if !gone[i] {
                pieces[i].stack.amount -= k;
            }
        }
        // 4. Lay out what stays.
        let mut placed: Vec<(u32, usize)> = Vec::new();
        if has_slots {
            let mut taken = Taken::default();
            let stay: Vec<usize> = (0..pieces.len()).filter(|&i| !gone[i]).collect();
            let mut movers = Vec::new();
            for &i in &stay {
                let p = &pieces[i];
                let keeps = p.first
                    && p.old_slot.is_some_and(|s| {
                        s < available
                            && kinds[p.kind].0.is_some_and(|t| {
                                accepts_under(new_rules, sr, s, p.stack.item.as_str(), &t)
                            })
                    });
                match (keeps, p.old_slot) {
                    (true, Some(s)) => {
                        taken.insert(s);
                        placed.push((s, i));
                    }
                    _ => movers.push(i),
                }
            }
            let mut cursor = 0u32;
            for i in movers {
                let p = &pieces[i];
                let Some(t) = kinds[p.kind].0 else { continue };
                let mut s = cursor;
                let slot = loop {
                    if s >= available {
                        break None;
                    }
                    if !taken.has(s) && accepts_under(new_rules, sr, s, p.stack.item.as_str(), &t) {
                        break Some(s);
                    }
                    s += 1;
                };
                match slot {
                    Some(s) => {
                        taken.insert(s);
                        placed.push((s, i));
                        if t.reserved.is_none() && sr.is_none() {
                            cursor = s + 1;
                        }
                    }
                    None if kinds[p.kind].1.is_some() => {
                        removed.push((i, p.stack.amount));
                        gone[i] = true;
                    }
                    None => {
                        return refused(
                            cause,
                            Shortfall {
                                slots: 1,
                                size: Decimal::ZERO,
                                held_by: vec![p.stack.item.clone()],
                            },
                        );
                    }
                }
            }
        }
        // A slotless holding is one amount per type: refuse rather than
        // saturate when merged stacks would pass u32::MAX.
        if !has_slots {
            let mut sums: std::collections::BTreeMap<&ItemType, u64> = Default::default();
            for (i, p) in pieces.iter().enumerate() {
                if !gone[i] {
                    *sums.entry(&p.stack.item).or_default() += u64::from(p.stack.amount);
                }
            }
            if let Some((item, _)) = sums.iter().find(|(_, n)| **n > u64::from(u32::MAX)) {
                return refused(
                    cause,
                    Shortfall {
                        slots: 0,
                        size: Decimal::ZERO,
                        held_by: vec![(*item).clone()],
                    },
                );
            }
        }
        // 5. Apply.
        let portions = removed
            .iter()
            .filter_map(|&(i, k)| {
                let p = &pieces[i];
                kinds[p.kind].1.map(|(_, to)| Portion {
                    item: p.stack.item.clone(),
                    amount: k,
                    slot: p.old_slot,
                    to,
                })
            })
            .collect();
        let old_len = self.slots.len();
        self.rules = target.rules.clone();
        self.limits = target.limits;
        self.slot_rules = target.slot_rules;
        self.slots.clear();
        self.occ = Default::default();
        self.by_type.clear();
        self.holdings.clear();
        self.size_used = Decimal::ZERO;
        let len = if self.rules.has_slot_limit() {
            self.limits.slot_count as usize
        } else if has_slots && cause != Cause::RulesChanged {
            old_len
        } else {
            0
        };
        self.set_slot_len(len);
        for (s, i) in placed {
            let p = &pieces[i];
            self.size_used = self.size_used.plus(size_of(p).times(p.stack.amount));
            self.put_stack(s, p.stack.clone());
        }
        if !has_slots {
            for (i, p) in pieces.iter().enumerate() {
                if gone[i] {
                    continue;
                }
                self.size_used = self.size_used.plus(size_of(p).times(p.stack.amount));
                let entry = self
                    .holdings
                    .entry(p.stack.item.clone())
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

/// Movable pieces in the order they leave: types by forced-out order, and
/// within a type from the last slot backwards. Pieces are built in slot
/// order, so a higher index is a later slot (or a later piece of a split).
fn in_leaving_order(pieces: &[Piece], kinds: &[Kind], which: Vec<usize>) -> Vec<usize> {
    let mut keyed: Vec<((i64, usize), usize)> = which
        .into_iter()
        .map(|i| {
            let order = kinds[pieces[i].kind]
                .1
                .map_or((i64::MAX, usize::MAX), |(o, _)| o);
            (order, i)
        })
        .collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    keyed.into_iter().map(|(_, i)| i).collect()
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
mod tests {
    use super::*;
    use crate::adoption::{self, Context};
    use crate::rules::Rules;

    fn chest(rows: usize) -> Arc<Rules> {
        let items: Vec<serde_json::Value> = (0..rows)
            .map(|i| {
                let forced = if i % 4 == 3 { "never" } else { "dropped-nearby" };
                let mut r = serde_json::json!({"id": format!("t{i}"), "stack-limit": 1 + i % 3, "when-forced-out": forced});
                if forced != "never" {
                    r["forced-out-order"] = serde_json::json!((i * 7) % 13 + 20 * i);
                }
                r
            })
            .collect();
        let v = serde_json::json!({"contract": "container", "version": 1,
            "answers": {"capacity-limit": "slot-count", "partial-acceptance": "fill-what-fits",
                "leftover-destination": "destroyed", "fill-order": "first-slot-that-fits",
                "draw-order": "first-in-order", "type-restriction": "any-item"},
            "values": {"slot-count": 40, "size-budget": 0}, "rows": {"items": items}});
        let a = adoption::validate(&v, Context::default()).1.expect("valid");
        Arc::new(Rules::compile(&a, &crate::adoption::Tuning::default()).expect("compiles"))
    }

    fn view(c: &Contents) -> Vec<Option<(String, u32, u64, u64)>> {
        c.slots()
            .map(|s| s.map(|s| (s.item.to_string(), s.amount, s.began, s.last_received)))
            .collect()
    }

    /// The in-place shrink gives exactly what the general reshape gives.
    #[test]
    fn shrinking_in_place_matches_the_general_reshape() {
        let mut seed = 0x5EEDu64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let mut compared = 0;
        for _ in 0..400 {
            let rules = chest(8);
            let mut c = Contents::new(rules.clone());
            for _ in 0..next(60) {
                let t = format!("t{}", next(9));
                if next(3) == 0 {
                    c.take(&t, next(3) as u32 + 1);
                } else {
                    c.deliver(&t, next(4) as u32 + 1);
                }
            }
            let slots = next(45) as u32;
            let mut fast = c.clone();
            let mut general = c.clone();
            let a = fast.resize(Some(slots), None);
            let target = Target {
                rules: general.rules.clone(),
                limits: Limits {
                    slot_count: slots,
                    size_budget: general.limits.size_budget,
                },
                slot_rules: None,
                earlier: Vec::new(),
            };
            let b = general.reshape(Cause::Shrink, target);
            assert_eq!(a, b, "outcome for {slots} slots");
            assert_eq!(view(&fast), view(&general), "contents for {slots} slots");
            assert_eq!(fast.limits(), general.limits());
            compared += usize::from(a.refused.is_none() && !a.portions.is_empty());
        }
        assert!(compared > 50, "only {compared} shrinks forced items out");
    }
}
