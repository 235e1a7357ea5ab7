//! Sort and rearranging by hand (spec section 7).

use std::collections::BTreeMap;

use super::{Contents, ItemType, Rearranged, Reason, Stack};

impl Contents {
    /// Sorts: each type's contents are merged and re-delivered, type by type,
    /// into the emptied container by its fill order. The order is `order`,
    /// then the rows' order for the rest, then by id. Refused, changing
    /// nothing, when the re-delivery would not fit. A slotless container's
    /// sort changes nothing.
    pub fn sort(&mut self, order: &[&str]) -> Rearranged {
        if !self.rules.has_slots() || self.occ.is_empty() {
            return Rearranged { refused: None };
        }
        let totals: BTreeMap<ItemType, u64> = self.totals();
        let mut sequence: Vec<ItemType> = Vec::new();
        let push = |t: &ItemType, seq: &mut Vec<ItemType>| {
            if !seq.contains(t) {
                seq.push(t.clone());
            }
        };
        for name in order {
            if let Some((t, _)) = totals.get_key_value(*name) {
                push(t, &mut sequence);
            }
        }
        for row in &self.rules.rows {
            if let Some((t, _)) = totals.get_key_value(row.id.as_str()) {
                push(t, &mut sequence);
            }
        }
        for t in totals.keys() {
            push(t, &mut sequence);
        }
        let mut sorted = self.clone();
        let len = sorted.slots.len();
        for s in sorted.occ.occupied().collect::<Vec<_>>() {
            sorted.clear_slot(s);
        }
        sorted.set_slot_len(
            sorted
                .fixed_slot_len()
                .max(if sorted.rules.has_slot_limit() {
                    0
                } else {
                    len
                }),
        );
        sorted.size_used = crate::decimal::Decimal::ZERO;
        for t in &sequence {
            let mut left = totals.get(t).copied().unwrap_or(0);
            while left > 0 {
                let chunk = u32::try_from(left).unwrap_or(u32::MAX);
                let d = sorted.deliver(t.as_str(), chunk);
                if d.accepted != chunk {
                    return Rearranged {
                        refused: Some(d.refused.map_or(Reason::DoesNotFit, |r| r.reason)),
                    };
                }
                left -= u64::from(chunk);
            }
        }
        *self = sorted;
        Rearranged { refused: None }
    }

    /// Moves `amount` (all when `None`) from one slot to another: into an
    /// empty slot, onto a stack of the same type up to its limit, or, for a
    /// whole stack, swapping with another type's stack. Each slot's entry
    /// rule is respected; anything else is refused with the reason.
    pub fn move_items(&mut self, from: u32, to: u32, amount: Option<u32>) -> Rearranged {
        match self.try_move(from, to, amount) {
            Ok(()) => Rearranged { refused: None },
            Err(r) => Rearranged { refused: Some(r) },
        }
    }

    fn try_move(&mut self, from: u32, to: u32, amount: Option<u32>) -> Result<(), Reason> {
        if !self.rules.has_slots() {
            return Err(Reason::Slotless);
        }
        let limit_len = if self.rules.has_slot_limit() {
            self.slots.len() as u32
        } else {
            crate::adoption::MAX_SLOTS
        };
        if from >= limit_len || to >= limit_len {
            return Err(Reason::NoSuchSlot);
        }
        if from == to {
            return Err(Reason::SameSlot);
        }
        let src = self.stack(from).cloned().ok_or(Reason::EmptySlot)?;
        let n = amount.unwrap_or(src.amount);
        if n == 0 || n > src.amount {
            return Err(Reason::NotEnough);
        }
        let src_terms = self.terms(src.item.as_str())?;
        match self.stack(to).cloned() {
            None => {
                if !self.accepts(to, src.item.as_str(), &src_terms) {
                    return Err(entry_reason(&src_terms));
                }
                if n > src_terms.limit {
                    return Err(Reason::OverStackLimit);
                }
                if n == src.amount {
                    let stack = self.clear_slot(from).ok_or(Reason::EmptySlot)?;
                    self.put_stack(to, stack);
                } else {
                    self.slots[from as usize]
                        .as_mut()
                        .ok_or(Reason::EmptySlot)?
                        .amount -= n;
                    self.put_stack(to, Stack { amount: n, ..src });
                }
            }
            Some(dst) if dst.item == src.item => {
                if dst.amount.saturating_add(n) > src_terms.limit {
                    return Err(Reason::OverStackLimit);
                }
                let counter = self.next_counter();
                if n == src.amount {
                    self.clear_slot(from);
                } else if let Some(s) = self.slots[from as usize].as_mut() {
                    s.amount -= n;
                }
                if let Some(d) = self.slots[to as usize].as_mut() {
                    d.amount += n;
                    d.last_received = counter;
                }
            }
            Some(dst) => {
                if n != src.amount {
                    return Err(Reason::OtherType);
                }
                let dst_terms = self.terms(dst.item.as_str())?;
                if !self.accepts(to, src.item.as_str(), &src_terms) {
                    return Err(entry_reason(&src_terms));
                }
                if !self.accepts(from, dst.item.as_str(), &dst_terms) {
                    return Err(entry_reason(&dst_terms));
                }
                let a = self.clear_slot(from).ok_or(Reason::EmptySlot)?;
                let b = self.clear_slot(to).ok_or(Reason::EmptySlot)?;
                self.put_stack(to, a);
                self.put_stack(from, b);
            }
        }
        Ok(())
    }
}

fn entry_reason(terms: &super::TypeTerms) -> Reason {
    if terms.reserved.is_some() {
        Reason::NoReservedSlot
    } else {
        Reason::SlotRules
    }
}
