//! Delivery: items arriving at the container (the guide's [`guide::requests`](crate::guide::requests)).

use std::marker::PhantomData;

use super::index::Slots;
use super::shape::{AnyShape, Backpack, Shape};
use super::{
    Contents, Delivered, Kind, Landing, Landings, Leftover, LimitedBy, Props, Reason, Refused,
    TypeTerms,
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
        self.deliver_props(item, &Props::EMPTY, amount)
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
        self.deliver_props(item, props, amount)
    }

    /// [`Contents::deliver_kind`], copied into each of its two callers: a
    /// plain delivery's copy knows its items have no properties, and
    /// compares and copies none (about 6 instructions of a delivery's 560
    /// in `examples/perf`'s backpack day). A backpack's delivery runs
    /// compiled for its [shape](super::shape), which leaves out the
    /// questions its rules answer the same way every time (about 70
    /// instructions of a delivery's 530 there).
    #[inline(always)]
    fn deliver_props(&mut self, item: &str, props: &Props, amount: u32) -> Delivered {
        if Backpack::fits(&self.rules) {
            self.deliver_shaped::<Backpack>(item, props, amount)
        } else {
            self.deliver_shaped::<AnyShape>(item, props, amount)
        }
    }

    /// [`Contents::deliver_props`] for a container of the shape `S`.
    #[inline(always)]
    pub(super) fn deliver_shaped<S: Shape>(
        &mut self,
        item: &str,
        props: &Props,
        amount: u32,
    ) -> Delivered {
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
        let terms = match self.terms_in::<S>(item, row) {
            Ok(t) => t,
            Err(reason) => return Delivered::refused(id, props.clone(), amount, reason),
        };
        let mut landed = Landings::default();
        // `capped`: what the free budget lets in; `placed`: what lands
        let (capped, placed) = if S::has_slots(&self.rules) {
            let want = self.budget_cap::<S>(&terms, amount);
            (
                want,
                self.plan_into::<S>(item, props, &terms, want, own, &mut landed),
            )
        } else {
            let held = self.held_kind(&id, props);
            let capped = self.budget_cap::<S>(&terms, amount);
            (capped, capped.min(u32::MAX - held))
        };
        let rest = amount - placed;
        let limited = S::has_slot_limit(&self.rules) || S::has_budget(&self.rules);
        let (mut leftover, mut refused, mut limited_by) = (None, None, None);
        if rest > 0 {
            limited_by = Some(self.limit_of::<S>(item, props, &terms, capped, placed));
            match (self.rules.partial, self.rules.leftover) {
                (PartialAcceptance::AllOrNothing, _) if limited => {
                    return Delivered {
                        limited_by,
                        ..Delivered::refused(id, props.clone(), amount, Reason::DoesNotFit)
                    };
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
                    let reason = if S::by_slot(&self.rules) {
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
        // most deliveries to a full bag place nothing: no call then
        if placed > 0 {
            if S::has_slots(&self.rules) {
                self.add_landings(&id, props, at, &landed, terms.size);
            } else {
                self.add_holding(&id, props, placed, terms.size);
            }
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
            limited_by,
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
    pub(crate) fn budget_cap<S: Shape>(&self, terms: &TypeTerms, amount: u32) -> u32 {
        if !S::has_budget(&self.rules) {
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

    /// [`Self::plan_into`] compiled for the rules' [shape](super::shape):
    /// the backpack's copy when they fit it, the copy that reads them
    /// otherwise. What a plan outside a delivery calls (a transfer's
    /// target, a change of properties); a delivery picks its shape once,
    /// for the whole delivery. In its callers' lines: as a call, a
    /// transfer took 17 instructions more.
    #[inline(always)]
    pub(crate) fn plan_shaped(
        &self,
        item: &str,
        props: &Props,
        terms: &TypeTerms,
        want: u32,
        own: Slots<'_>,
        plan: &mut Landings,
    ) -> u32 {
        if Backpack::fits(&self.rules) {
            self.plan_into::<Backpack>(item, props, terms, want, own, plan)
        } else {
            self.plan_into::<AnyShape>(item, props, terms, want, own, plan)
        }
    }

    /// Where up to `want` items of `item` land, by the fill order, without
    /// changing anything: into `plan` (empty), so a delivery or a transfer
    /// plans into its outcome's own list, not a copy. `own` is the type's
    /// slots, ascending; only those holding `props` are topped up. Returns
    /// how many the plan places (the landings' sum, counted as they are
    /// planned: summing them again was a loop of its own).
    #[inline(always)]
    pub(crate) fn plan_into<S: Shape>(
        &self,
        item: &str,
        props: &Props,
        terms: &TypeTerms,
        want: u32,
        own: Slots<'_>,
        plan: &mut Landings,
    ) -> u32 {
        if want == 0 {
            return 0;
        }
        let mut planner = Planner::<S> {
            contents: self,
            item,
            props,
            terms,
            left: want,
            plan,
            shape: PhantomData,
        };
        match S::fill(&self.rules) {
            FillOrder::TopUpThenFirstEmpty => planner.top_up_then_first_empty(own),
            FillOrder::FirstSlotThatFits => planner.first_slot_that_fits(own),
            FillOrder::Append => planner.append(),
            FillOrder::NotApplicable => planner.reserved(),
        }
        want - planner.left
    }

    /// What stopped `placed` items of `item` short of the amount offered
    /// (the caller knows `placed` is less), where the free budget let
    /// `capped` in: the budget when everything it let in was placed, else
    /// the slots (or a slotless holding's ceiling), whichever stopped the
    /// items first. A full bag is most of the deliveries of a busy day, so
    /// its answer is found here without a call; what needs a look at the
    /// slots is [`Contents::plan_limit`]'s.
    #[inline]
    pub(crate) fn limit_of<S: Shape>(
        &self,
        item: &str,
        props: &Props,
        terms: &TypeTerms,
        capped: u32,
        placed: u32,
    ) -> LimitedBy {
        if placed >= capped {
            LimitedBy::SizeBudget
        } else if !S::has_slots(&self.rules) {
            // a slotless holding at the most it counts
            LimitedBy::Ceiling
        } else if terms.reserved.is_none() && !S::by_slot(&self.rules) {
            // no slot of its own, no slot that refuses it: the slots ran out
            if S::has_slot_limit(&self.rules) {
                LimitedBy::Slots
            } else {
                LimitedBy::Ceiling
            }
        } else {
            self.plan_limit(item, props, terms)
        }
    }

    /// What stopped a plan by the fill order short (asked before the plan
    /// lands): the type's one slot (fill order `not-applicable`), a free
    /// slot within reach that refuses the type (`by-slot`), or no free slot
    /// left (a `no-limit` container: its ceiling).
    #[cold]
    #[inline(never)]
    fn plan_limit(&self, item: &str, props: &Props, terms: &TypeTerms) -> LimitedBy {
        if let Some(r) = terms.reserved {
            return match self.stack(r) {
                // the plan fills the empty slot to the limit, if it may
                None if !self.accepts(r, item, terms) => LimitedBy::EntryRule,
                None => LimitedBy::StackLimit,
                Some(s) if s.item.as_str() == item && s.props == *props => LimitedBy::StackLimit,
                // another kind holds the type's one slot
                Some(_) => LimitedBy::Slots,
            };
        }
        if self.rules.restriction == TypeRestriction::BySlot && self.free_slot_refuses(item, terms)
        {
            return LimitedBy::EntryRule;
        }
        if self.rules.has_slot_limit() {
            LimitedBy::Slots
        } else {
            LimitedBy::Ceiling
        }
    }

    /// Whether a free slot the fill order reaches refuses `item`. A plan
    /// that fell short used every free slot within reach that accepts it,
    /// so one still free refuses it.
    fn free_slot_refuses(&self, item: &str, terms: &TypeTerms) -> bool {
        let available = self.slots_available();
        // `append` reaches only the slots after the last occupied one
        let from = match self.rules.fill {
            FillOrder::Append => self.occ.last_occupied().map_or(0, |l| l + 1),
            _ => 0,
        };
        let refuses = |s: u32| !self.accepts(s, item, terms);
        let grow_from = (self.slots.len() as u32).max(from);
        self.occ
            .frees(available)
            .filter(|&s| s >= from)
            .any(refuses)
            || (grow_from..available).any(refuses)
    }
}

/// A plan in progress: where the items of one delivery (or the target side
/// of a transfer) land, slot by slot, without changing the container.
struct Planner<'a, 'p, S> {
    /// The container planned into.
    contents: &'a Contents,
    /// The type delivered.
    item: &'a str,
    /// Its properties: only stacks of this kind take more.
    props: &'a Props,
    /// The type's terms here.
    terms: &'a TypeTerms,
    /// How many are still to place.
    left: u32,
    /// The landings planned so far.
    plan: &'p mut Landings,
    /// The shape of the container's rules the plan is compiled for.
    shape: PhantomData<S>,
}

impl<S: Shape> Planner<'_, '_, S> {
    /// Plans up to `room` items into `slot`; whether everything is placed.
    #[inline]
    fn take(&mut self, slot: u32, room: u32) -> bool {
        let n = room.min(self.left);
        if n > 0 {
            self.plan.push(Landing { slot, amount: n });
            self.left -= n;
        }
        self.left == 0
    }

    /// The room in any slot: an empty one the entry rules allow takes a
    /// whole stack, a stack of this kind what its limit leaves.
    #[inline]
    fn room(&self, slot: u32) -> u32 {
        let limit = self.terms.limit;
        match self.contents.stack(slot) {
            None if self.contents.accepts_in::<S>(slot, self.item, self.terms) => limit,
            Some(s) if s.item.as_str() == self.item && s.props == *self.props => {
                limit.saturating_sub(s.amount)
            }
            _ => 0,
        }
    }

    /// The room in a slot of the type's own (it holds this type): only its
    /// kind and amount matter.
    #[inline]
    fn own_room(&self, slot: u32) -> u32 {
        self.contents
            .stack(slot)
            .filter(|s| s.props == *self.props)
            .map_or(0, |s| self.terms.limit.saturating_sub(s.amount))
    }

    /// Fills the empty slots `from..to` the entry rules allow, a whole
    /// stack each; whether everything is placed. A container whose slots
    /// all exist has none past them, and most deliveries that get here
    /// (a full bag's) would only pay for the call: the range is looked at
    /// in the caller.
    #[inline(always)]
    fn fill_empty(&mut self, from: u32, to: u32) -> bool {
        from < to && self.fill_empty_range(from, to)
    }

    /// [`Self::fill_empty`] over a range that is not empty.
    #[inline(never)]
    fn fill_empty_range(&mut self, from: u32, to: u32) -> bool {
        let (c, item, terms) = (self.contents, self.item, self.terms);
        for s in from..to {
            if c.accepts_in::<S>(s, item, terms) && self.take(s, terms.limit) {
                return true;
            }
        }
        false
    }

    /// `top-up-then-first-empty`: the kind's stacks first, then the free
    /// slots in order, then the slots past the end. In the delivery's
    /// lines: as a call, the planner it works on was written out to memory
    /// and read back (30 instructions of a backpack's delivery).
    #[inline(always)]
    fn top_up_then_first_empty(&mut self, own: Slots<'_>) {
        let (c, item, terms) = (self.contents, self.item, self.terms);
        let available = c.slots_available_in::<S>();
        // a type that does not stack has no stack to top up
        let own = if terms.limit > 1 { own } else { Slots::NONE };
        for s in own {
            let room = self.own_room(s);
            if self.take(s, room) {
                return;
            }
        }
        for s in c.occ.frees(available) {
            if c.accepts_in::<S>(s, item, terms) && self.take(s, terms.limit) {
                return;
            }
        }
        self.fill_empty(c.slots.len() as u32, available);
    }

    /// `first-slot-that-fits`: the kind's stacks and the free slots
    /// together in slot order, then the slots past the end.
    fn first_slot_that_fits(&mut self, own: Slots<'_>) {
        let c = self.contents;
        let available = c.slots_available_in::<S>();
        for s in ascending(own, c.occ.frees(available)) {
            let room = self.room(s);
            if self.take(s, room) {
                return;
            }
        }
        self.fill_empty(c.slots.len() as u32, available);
    }

    /// `append`: the last occupied slot when it holds this kind, then the
    /// slots after it.
    fn append(&mut self) {
        let c = self.contents;
        let start = match c.occ.last_occupied() {
            Some(last) => {
                let room = self.room(last);
                if self.take(last, room) {
                    return;
                }
                last + 1
            }
            None => 0,
        };
        self.fill_empty(start, c.slots_available_in::<S>());
    }

    /// `not-applicable`: the type's reserved slot only.
    fn reserved(&mut self) {
        if let Some(r) = self.terms.reserved {
            let room = self.room(r);
            self.take(r, room);
        }
    }
}

/// Two ascending lists of slots that share none (the type's own slots and
/// the free ones), as one ascending list.
fn ascending(
    a: impl Iterator<Item = u32>,
    b: impl Iterator<Item = u32>,
) -> impl Iterator<Item = u32> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(&x), Some(&y)) if x < y => a.next(),
        (Some(_), Some(_)) | (None, Some(_)) => b.next(),
        (Some(_), None) => a.next(),
        (None, None) => None,
    })
}
