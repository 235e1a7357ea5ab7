//! Delivery: items arriving at the container (the guide's [`guide::requests`](crate::guide::requests)).

use super::index::Slots;
use super::{
    Contents, Delivered, Kind, Landing, Landings, Leftover, Props, Reason, Refused, TypeTerms,
};
use crate::rules::{FillOrder, LeftoverDestination, PartialAcceptance, TypeRestriction};

impl Contents {
    /// Delivers `amount` of `item`: entry rules, then the fill order plans
    /// where items land within stack limits, free slots and the budget;
    /// what does not fit is refused (all-or-nothing) or becomes a leftover
    /// for the leftover destination (fill-what-fits).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
    /// let flint = backpack.deliver("flint", 2); // unlisted: one per slot
    /// assert_eq!(flint.landed.len(), 2);
    /// ```
    pub fn deliver(&mut self, item: &str, amount: u32) -> Delivered {
        self.deliver_kind(item, &Props::EMPTY, amount)
    }

    /// Delivers `amount` items of one kind: `item` carrying `props`. The
    /// type's rules apply as to any delivery; only stacks of the same kind
    /// are topped up, and a leftover is of that kind.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// use bevy_container::props::Props;
    /// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
    /// backpack.deliver("berries", 5);
    /// let ripe = Props::new([("ripe", true)]).unwrap();
    /// let d = backpack.deliver_kind("berries", &ripe, 5);
    /// assert_eq!(d.landed[0].slot, 1, "another kind: a stack of its own");
    /// assert_eq!(backpack.stack(1).unwrap().props, ripe);
    /// ```
    pub fn deliver_kind(&mut self, item: &str, props: &Props, amount: u32) -> Delivered {
        // one lookup for the shared id and the type's stacks
        let (id, at) = match self.by_type.find(item) {
            Some((at, k)) => (k.clone(), Some(at)),
            None => (self.item_type(item), None),
        };
        let own = at.map_or(Slots::NONE, |at| self.by_type.list(at));
        if amount == 0 {
            return Delivered::nothing(id, props.clone(), 0);
        }
        // an indexed type's row was found when it was indexed
        let row = match at {
            Some(at) => self.by_type.row(at).and_then(|r| self.rules.rows.get(r)),
            None => self.rules.row(item),
        };
        let terms = match self.terms_with(item, row) {
            Ok(t) => t,
            Err(reason) => return Delivered::refused(id, props.clone(), amount, reason),
        };
        let mut landed = Landings::default();
        let placed = if self.rules.has_slots() {
            let want = self.budget_cap(&terms, amount);
            self.plan_into(item, props, &terms, want, own, &mut landed);
            landed.iter().map(|l| l.amount).sum::<u32>()
        } else {
            let held = self.held_kind(&id, props);
            self.budget_cap(&terms, amount).min(u32::MAX - held)
        };
        let rest = amount - placed;
        let limited = self.rules.has_slot_limit() || self.rules.has_budget();
        let (mut leftover, mut refused) = (None, None);
        if rest > 0 {
            match (self.rules.partial, self.rules.leftover) {
                (PartialAcceptance::AllOrNothing, _) if limited => {
                    return Delivered::refused(id, props.clone(), amount, Reason::DoesNotFit);
                }
                (_, Some(to)) => leftover = Some(Leftover { amount: rest, to }),
                (_, None) if limited => {
                    leftover = Some(Leftover {
                        amount: rest,
                        to: LeftoverDestination::LeftWhereItIs,
                    })
                }
                (_, None) => {
                    // no-limit: only slot rules or the safety ceiling stop it
                    let reason = if self.rules.restriction == TypeRestriction::BySlot {
                        Reason::SlotRules
                    } else {
                        Reason::SlotCeiling
                    };
                    refused = Some(Refused {
                        amount: rest,
                        reason,
                    });
                }
            }
        }
        if self.rules.has_slots() {
            self.add_landings(&id, props, at, &landed, terms.size);
        } else if placed > 0 {
            self.add_holding(&id, props, placed, terms.size);
        }
        // built once, in place: copying a finished outcome cost a fifth of
        // a delivery in the profile
        Delivered {
            item: id,
            props: props.clone(),
            offered: amount,
            accepted: placed,
            landed,
            refused,
            leftover,
        }
    }

    /// Adds the planned landings of `item` (numbered `at` in the type
    /// index, when known), indexing the stacks that begin.
    pub(crate) fn add_landings(
        &mut self,
        item: &super::ItemType,
        props: &Props,
        at: Option<u32>,
        landed: &[Landing],
        size: crate::decimal::Decimal,
    ) {
        let mut at = at;
        for l in landed {
            if self.add_to_slot(l.slot, item, props, l.amount, size) {
                // a stack began: the type's slot list gets it (the type is
                // numbered at its first stack)
                let n = match at {
                    Some(n) => n,
                    None => *at.insert(self.type_number(item)),
                };
                self.by_type.add(n, l.slot);
            }
        }
    }

    /// `amount`, capped by what the free budget holds.
    #[inline]
    pub(crate) fn budget_cap(&self, terms: &TypeTerms, amount: u32) -> u32 {
        if !self.rules.has_budget() {
            return amount;
        }
        let room = self.limits.size_budget.minus(self.size_used);
        match terms.size.how_many_fit(room) {
            None => amount,
            Some(n) => u32::try_from(n).unwrap_or(u32::MAX).min(amount),
        }
    }

    /// How many of one kind the slotless holdings have.
    pub(crate) fn held_kind(&self, id: &super::ItemType, props: &Props) -> u32 {
        self.holdings
            .get(&Kind::new(id.clone(), props.clone()))
            .map_or(0, |s| s.amount)
    }

    pub(crate) fn add_holding(
        &mut self,
        id: &super::ItemType,
        props: &Props,
        amount: u32,
        size: crate::decimal::Decimal,
    ) {
        let counter = self.next_counter();
        let entry = self
            .holdings
            .entry(Kind::new(id.clone(), props.clone()))
            .or_insert_with(|| super::Stack {
                item: id.clone(),
                amount: 0,
                props: props.clone(),
                began: counter,
                last_received: counter,
            });
        entry.amount += amount;
        entry.last_received = counter;
        self.size_used = self.size_used.plus(size.times(amount));
    }

    /// Where up to `want` items of `item` land, by the fill order, without
    /// changing anything: into `plan` (empty), so a delivery or a transfer
    /// plans into its outcome's own list, not a copy. `own` is the type's
    /// slots, ascending; only those holding `props` are topped up.
    pub(crate) fn plan_into(
        &self,
        item: &str,
        props: &Props,
        terms: &TypeTerms,
        want: u32,
        own: Slots<'_>,
        plan: &mut Landings,
    ) {
        let mut left = want;
        let limit = terms.limit;
        let available = self.slots_available();
        let mut take = |slot: u32, room: u32, plan: &mut Landings| {
            let n = room.min(left);
            if n > 0 {
                plan.push(Landing { slot, amount: n });
                left -= n;
            }
            left == 0
        };
        let room = |slot: u32| -> u32 {
            match self.stack(slot) {
                None if self.accepts(slot, item, terms) => limit,
                Some(s) if s.item.as_str() == item && s.props == *props => {
                    limit.saturating_sub(s.amount)
                }
                _ => 0,
            }
        };
        // a slot in `own` holds this type: only its kind and amount matter
        let own_room = |slot: u32| -> u32 {
            self.stack(slot)
                .filter(|s| s.props == *props)
                .map_or(0, |s| limit.saturating_sub(s.amount))
        };
        if want == 0 {
            return;
        }
        let grow_from = self.slots.len() as u32;
        match self.rules.fill {
            FillOrder::TopUpThenFirstEmpty => {
                // a type that does not stack has no stack to top up
                let own = if limit > 1 { own } else { Slots::NONE };
                for s in own {
                    if take(s, own_room(s), plan) {
                        return;
                    }
                }
                for s in self.occ.frees(available) {
                    if self.accepts(s, item, terms) && take(s, limit, plan) {
                        return;
                    }
                }
                for s in grow_from..available {
                    if self.accepts(s, item, terms) && take(s, limit, plan) {
                        return;
                    }
                }
            }
            FillOrder::FirstSlotThatFits => {
                let mut own = own.peekable();
                let mut free = self.occ.frees(available).peekable();
                loop {
                    let next = match (own.peek(), free.peek()) {
                        (Some(&a), Some(&b)) if a < b => own.next(),
                        (Some(_), Some(_)) | (None, Some(_)) => free.next(),
                        (Some(_), None) => own.next(),
                        (None, None) => break,
                    };
                    if let Some(s) = next
                        && take(s, room(s), plan)
                    {
                        return;
                    }
                }
                for s in grow_from..available {
                    if self.accepts(s, item, terms) && take(s, limit, plan) {
                        return;
                    }
                }
            }
            FillOrder::Append => {
                let start = match self.occ.last_occupied() {
                    Some(last) => {
                        if take(last, room(last), plan) {
                            return;
                        }
                        last + 1
                    }
                    None => 0,
                };
                for s in start..available {
                    if self.accepts(s, item, terms) && take(s, limit, plan) {
                        return;
                    }
                }
            }
            FillOrder::NotApplicable => {
                if let Some(r) = terms.reserved {
                    take(r, room(r), plan);
                }
            }
        }
    }
}
