//! Sort and rearranging by hand (the guide's [`guide::requests`](crate::guide::requests)).

use std::collections::BTreeMap;

use super::{Contents, ItemType, Kind, Rearranged, Reason, Stack, entry_reason};

impl Contents {
    /// Sorts: each kind's contents are merged and re-delivered, kind by
    /// kind, into the emptied container by its fill order. Types go in
    /// `order`, then the rows' order for the rest, then by id; a type's
    /// kinds in kind order (plain first). Refused, changing
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
        let kinds: BTreeMap<Kind, u64> = self.kind_totals();
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
            let start = Kind::plain(t.clone());
            for (kind, &total) in kinds.range(start..).take_while(|(k, _)| k.item == *t) {
                let mut left = total;
                while left > 0 {
                    let chunk = u32::try_from(left).unwrap_or(u32::MAX);
                    let d = sorted.deliver_kind(t.as_str(), &kind.props, chunk);
                    if d.accepted != chunk {
                        return Rearranged {
                            refused: Some(d.refused.map_or(Reason::DoesNotFit, |r| r.reason)),
                        };
                    }
                    left -= u64::from(chunk);
                }
            }
        }
        *self = sorted;
        Rearranged { refused: None }
    }

    /// Moves `amount` (all when `None`) from one slot to another: into an
    /// empty slot, onto a stack of the same kind (as much as it has room
    /// for; the rest stays in the source slot, and a full stack refuses with
    /// [`Reason::StackFull`]), or, for a whole stack, swapping with another
    /// kind's stack (a stack of the same type with other properties counts
    /// as another type). Each slot's entry rule is respected; anything else is
    /// refused with the reason.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
    /// backpack.deliver("berries", 26); // 20 in slot 0, 6 in slot 1
    /// backpack.take_from("berries", 12, 0); // 8 left in slot 0
    /// assert!(backpack.move_items(1, 0, None).refused.is_none());
    /// // all 6 fit onto the 8: slot 1 is empty now
    /// assert_eq!(backpack.stack(0).unwrap().amount, 14);
    /// assert!(backpack.stack(1).is_none());
    /// ```
    pub fn move_items(&mut self, from: u32, to: u32, amount: Option<u32>) -> Rearranged {
        match self.try_move(from, to, amount) {
            Ok(_) => Rearranged { refused: None },
            Err(r) => Rearranged { refused: Some(r) },
        }
    }

    /// [`Self::move_items`]; returns how many moved.
    pub(crate) fn try_move(
        &mut self,
        from: u32,
        to: u32,
        amount: Option<u32>,
    ) -> Result<u32, Reason> {
        if !self.rules.has_slots() {
            return Err(Reason::NoSlots);
        }
        let limit_len = if self.rules.has_slot_limit() {
            self.slots.len() as u32
        } else {
            crate::limits::MAX_SLOTS
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
            Some(dst) if dst.item == src.item && dst.props == src.props => {
                // merge what fits; the rest stays in the source slot
                let n = n.min(src_terms.limit.saturating_sub(dst.amount));
                if n == 0 {
                    return Err(Reason::StackFull);
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
                return Ok(n);
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
        Ok(n)
    }
}
