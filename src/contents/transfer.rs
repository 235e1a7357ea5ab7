//! Transfers between two containers, and dry runs of what a container
//! would accept (the guide's [`guide::transfers`](crate::guide::transfers)).
//!
//! A transfer is a take from one container and a delivery to another,
//! answered as one request: what the target cannot take stays in the source,
//! in the slots it was in, and the target's leftover destination never
//! applies. A refused transfer changes neither container.

use serde::{Deserialize, Serialize};

use super::{
    AnyShape, Contents, ItemType, Landing, Landings, LimitedBy, Props, Reason, Stack, TypeTerms,
};
use crate::decimal::Decimal;
use crate::props::KindLabel;
use crate::rules::{DrawOrder, PartialAcceptance};

/// What to move: from a source slot or a type (or both, the type then
/// checking the slot), into a target slot or by the target's fill order.
///
/// ```
/// use bevy_container::contents::TransferRequest;
/// // drag slot 2 of the chest onto slot 0 of the bag, 5 items
/// let drag = TransferRequest::from_slot(2, 5).to_slot(0);
/// // "move 10 arrows to the bag", wherever its fill order puts them
/// let by_type = TransferRequest::item("arrow", 10);
/// assert_eq!(drag.to_slot, Some(0));
/// assert_eq!(by_type.from_slot, None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransferRequest {
    /// The type to move; with `from_slot`, it must be that slot's type.
    pub item: Option<ItemType>,
    /// The kind to move: with `from_slot`, they must be that stack's
    /// properties (else [`Reason::WrongType`]); without, only stacks with
    /// exactly these. `None`: the source slot's kind, or the kind of the
    /// type's first stack in the source's draw order.
    #[serde(default)]
    pub props: Option<Props>,
    /// The source slot (the player's choice); without it, the type's stacks
    /// are used in the source's draw order.
    pub from_slot: Option<u32>,
    /// The target slot; without it, the target's fill order decides.
    pub to_slot: Option<u32>,
    /// How many to move.
    pub amount: u32,
}

impl TransferRequest {
    /// Moves up to `amount` from one source slot, whatever it holds.
    pub fn from_slot(slot: u32, amount: u32) -> TransferRequest {
        TransferRequest {
            item: None,
            props: None,
            from_slot: Some(slot),
            to_slot: None,
            amount,
        }
    }

    /// Moves up to `amount` of `item`, drawn in the source's draw order.
    pub fn item(item: impl Into<ItemType>, amount: u32) -> TransferRequest {
        TransferRequest {
            item: Some(item.into()),
            props: None,
            from_slot: None,
            to_slot: None,
            amount,
        }
    }

    /// Lands in one target slot instead of by the target's fill order.
    pub fn to_slot(mut self, slot: u32) -> TransferRequest {
        self.to_slot = Some(slot);
        self
    }

    /// Also names the type (checked against the source slot).
    pub fn of(mut self, item: impl Into<ItemType>) -> TransferRequest {
        self.item = Some(item.into());
        self
    }

    /// Moves only items with exactly these properties (checked against
    /// the source slot when one is named).
    ///
    /// ```
    /// use bevy_container::contents::TransferRequest;
    /// use bevy_container::props::Props;
    /// let sharp = Props::new([("edge", "keen")]).unwrap();
    /// let req = TransferRequest::item("axe", 1).with_props(sharp.clone());
    /// assert_eq!(req.props, Some(sharp));
    /// ```
    pub fn with_props(mut self, props: Props) -> TransferRequest {
        self.props = Some(props);
        self
    }
}

/// The stack a swap sent from the target slot back to the source slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Swapped {
    /// Its type.
    pub item: ItemType,
    /// Its properties.
    #[serde(default)]
    pub props: Props,
    /// How many.
    pub amount: u32,
}

/// The outcome of a transfer: `asked = moved + shortfall + what stayed
/// because the target had no room`; a refusal changed nothing. What
/// stayed because of the target says why in `limited_by`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transferred {
    /// The type moved (`None` when the source slot was empty and no type
    /// was named).
    pub item: Option<ItemType>,
    /// The properties of what moved: a transfer moves one kind.
    #[serde(default)]
    pub props: Props,
    /// How many were asked for.
    pub asked: u32,
    /// How many moved.
    pub moved: u32,
    /// How many the source did not have (asked minus available).
    pub shortfall: u32,
    /// The source slots used and how many each gave (empty when slotless).
    pub from: Landings,
    /// The target slots that received them (empty when slotless).
    pub landed: Landings,
    /// Set when the two stacks changed places: the target's stack, now in
    /// the source slot.
    pub swapped: Option<Swapped>,
    /// Why nothing moved, when refused.
    pub refused: Option<Reason>,
    /// What limited the target when it took fewer than the source had
    /// available (or refused them for a limit: `does-not-fit`, an entry
    /// rule, an `occupied` slot): `None` when the target took everything
    /// available, or when the refusal is about the request itself. A
    /// source that had too few is the `shortfall`, not a limit.
    #[serde(default)]
    pub limited_by: Option<LimitedBy>,
}

impl Transferred {
    fn nothing(item: Option<ItemType>, asked: u32) -> Transferred {
        Transferred {
            item,
            props: Props::EMPTY,
            asked,
            moved: 0,
            shortfall: 0,
            from: Landings::default(),
            landed: Landings::default(),
            swapped: None,
            refused: None,
            limited_by: None,
        }
    }

    /// Refused for `reason`, with the limit the reason names by itself.
    fn refused(item: Option<ItemType>, asked: u32, reason: Reason) -> Transferred {
        Transferred {
            shortfall: asked,
            refused: Some(reason),
            limited_by: LimitedBy::of_refusal(reason),
            ..Transferred::nothing(item, asked)
        }
    }
}

/// Reads like a log line: `moved 5 of 5 arrow`. When the target took
/// fewer than the source had, or refused them for a limit, what limited
/// it follows ([`LimitedBy`], in a player's words): `moved 2 of 5
/// berries: the stack is full: it is at its stack limit`.
///
/// ```
/// # use std::sync::Arc;
/// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
/// use bevy_container::contents::TransferRequest;
/// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
/// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
/// # let rules = Arc::new(Rules::compile(&a, &Tuning::default()).unwrap());
/// let (mut chest, mut backpack) = (Contents::new(rules.clone()), Contents::new(rules));
/// chest.deliver("berries", 5);
/// backpack.deliver("berries", 18);
/// let t = chest.transfer(&mut backpack, &TransferRequest::from_slot(0, 5).to_slot(0));
/// assert_eq!(t.to_string(), "moved 2 of 5 berries: the stack is full: it is at its stack limit");
/// ```
impl std::fmt::Display for Transferred {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let item = match &self.item {
            Some(i) => KindLabel(i.as_str(), &self.props).to_string(),
            None => "items".to_string(),
        };
        if let Some(r) = self.refused {
            write!(f, "transfer of {} {item} refused ({r})", self.asked)?;
        } else {
            write!(f, "moved {} of {} {item}", self.moved, self.asked)?;
        }
        if let Some(s) = &self.swapped {
            write!(
                f,
                ", swapped with {} {}",
                s.amount,
                KindLabel(s.item.as_str(), &s.props)
            )?;
        }
        // why the target did not take the rest (set only when it did not)
        if let Some(why) = self.limited_by {
            write!(f, ": {why}")?;
        }
        Ok(())
    }
}

/// Where the items of a source are: the type and the slots to draw from,
/// in order, with how many are available.
struct Source {
    item: ItemType,
    props: Props,
    available: u32,
    /// The stack in the named source slot (for a swap).
    whole: Option<u32>,
}

/// A dry run's answer with its reasons
/// ([`Contents::would_accept_why`]): how many would be accepted, why none
/// would when the delivery or drop would be refused, and what limits it
/// when not all would be.
///
/// ```
/// use bevy_container::contents::{Acceptance, LimitedBy, Reason};
/// let heavy = Acceptance { accepted: 2, refused: None, limited_by: Some(LimitedBy::SizeBudget) };
/// assert_eq!(heavy.result(), Ok(2));
/// let shop = Acceptance { accepted: 0, refused: Some(Reason::DoesNotFit), limited_by: Some(LimitedBy::Slots) };
/// assert_eq!(shop.result(), Err(Reason::DoesNotFit));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acceptance {
    /// How many would be accepted (0 when refused).
    pub accepted: u32,
    /// Why none would be accepted, when the answer is a refusal.
    pub refused: Option<Reason>,
    /// What would stop the items short, when fewer than offered would be
    /// accepted (a refusal for a limit included, such as `does-not-fit`):
    /// `None` when all would be, or the refusal is about the request.
    pub limited_by: Option<LimitedBy>,
}

impl Acceptance {
    /// The answer as [`Contents::would_accept`] gives it: `Ok(accepted)`,
    /// or `Err(reason)` for a refusal.
    pub fn result(&self) -> Result<u32, Reason> {
        match self.refused {
            Some(r) => Err(r),
            None => Ok(self.accepted),
        }
    }

    /// All `n` would be accepted.
    fn all(n: u32) -> Acceptance {
        Acceptance {
            accepted: n,
            refused: None,
            limited_by: None,
        }
    }

    /// Refused for `reason`, with the limit it names by itself.
    fn refusal(reason: Reason) -> Acceptance {
        Acceptance {
            accepted: 0,
            refused: Some(reason),
            limited_by: LimitedBy::of_refusal(reason),
        }
    }
}

/// How many the target admits.
enum Admit {
    /// This many, by the fill order (planned into the caller's list) or
    /// into the named slot.
    Fits(u32),
    /// The named slot holds another type; a swap may be possible.
    Other(Stack),
}

impl Contents {
    /// How many of `amount` items of `item` this container would accept now,
    /// by its fill order or into `slot`, without changing anything: a dry
    /// run of a delivery (the all-or-nothing rule included) or of the target
    /// side of a transfer. [`Contents::would_accept_why`] also says what
    /// would stop the items short (the slots, a stack limit, the budget, an
    /// entry rule).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::{Contents, Reason}, rules::Rules};
    /// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
    /// backpack.deliver("berries", 15);
    /// assert_eq!(backpack.would_accept("berries", 8, Some(0)), Ok(5)); // room for 5 on the 15
    /// assert_eq!(backpack.would_accept("berries", 8, None), Ok(8));
    /// assert_eq!(backpack.would_accept("axe", 1, Some(0)), Err(Reason::Occupied));
    /// ```
    pub fn would_accept(&self, item: &str, amount: u32, slot: Option<u32>) -> Result<u32, Reason> {
        self.would_accept_kind(item, &Props::EMPTY, amount, slot)
    }

    /// [`Contents::would_accept`] for items of one kind (`item` with
    /// `props`): only stacks of that kind take more.
    pub fn would_accept_kind(
        &self,
        item: &str,
        props: &Props,
        amount: u32,
        slot: Option<u32>,
    ) -> Result<u32, Reason> {
        self.would_accept_kind_why(item, props, amount, slot)
            .result()
    }

    /// [`Contents::would_accept`] with its reasons: how many would be
    /// accepted, the refusal when it would be one, and what would stop the
    /// items short ([`LimitedBy`]), so a UI can say "too heavy" or "that
    /// stack is full" before the drop.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// use bevy_container::contents::{LimitedBy, Reason};
    /// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
    /// backpack.deliver("berries", 15);
    /// let onto = backpack.would_accept_why("berries", 8, Some(0));
    /// assert_eq!((onto.accepted, onto.limited_by), (5, Some(LimitedBy::StackLimit)));
    /// assert_eq!(backpack.would_accept_why("berries", 8, None).limited_by, None);
    /// let axe = backpack.would_accept_why("axe", 1, Some(0));
    /// assert_eq!((axe.refused, axe.limited_by), (Some(Reason::Occupied), Some(LimitedBy::Slots)));
    /// ```
    pub fn would_accept_why(&self, item: &str, amount: u32, slot: Option<u32>) -> Acceptance {
        self.would_accept_kind_why(item, &Props::EMPTY, amount, slot)
    }

    /// [`Contents::would_accept_why`] for items of one kind (`item` with
    /// `props`): only stacks of that kind take more.
    pub fn would_accept_kind_why(
        &self,
        item: &str,
        props: &Props,
        amount: u32,
        slot: Option<u32>,
    ) -> Acceptance {
        if amount == 0 {
            return Acceptance::all(0);
        }
        if slot.is_some() && !self.rules.has_slots() {
            return Acceptance::refusal(Reason::NoSlots);
        }
        let (at, row) = self.find_type(item);
        let terms = match self.terms_with(item, row) {
            Ok(t) => t,
            Err(r) => return Acceptance::refusal(r),
        };
        let mut plan = Landings::default();
        let n = match self.admit(item, props, at, &terms, amount, slot, &mut plan) {
            Ok(Admit::Fits(n)) => n,
            Ok(Admit::Other(_)) => return Acceptance::refusal(Reason::Occupied),
            Err(r) => return Acceptance::refusal(r),
        };
        if n >= amount {
            return Acceptance::all(n);
        }
        let limited_by = Some(self.admit_limit(item, props, &terms, amount, slot, n));
        if self.all_or_nothing() {
            return Acceptance {
                limited_by,
                ..Acceptance::refusal(Reason::DoesNotFit)
            };
        }
        Acceptance {
            accepted: n,
            refused: None,
            limited_by,
        }
    }

    /// Transfers items from this container to `target` (the guide's [`guide::transfers`](crate::guide::transfers)):
    /// the source slot's stack or the type's stacks in draw order, into the
    /// target slot or by the target's fill order; what does not fit stays
    /// here. With both slots named, the whole source stack asked for, and
    /// another type in the target slot, the two stacks swap. A refused
    /// transfer changes neither container.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// use bevy_container::contents::TransferRequest;
    /// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
    /// # let rules = Arc::new(Rules::compile(&a, &Tuning::default()).unwrap());
    /// let mut chest = Contents::new(rules.clone());
    /// let mut backpack = Contents::new(rules);
    /// chest.deliver("berries", 20);
    /// backpack.deliver("berries", 15);
    /// // drag the chest's stack onto the backpack's: 5 fit, 15 stay in the chest
    /// let moved = chest.transfer(&mut backpack, &TransferRequest::from_slot(0, 20).to_slot(0));
    /// assert_eq!(moved.moved, 5);
    /// assert_eq!(chest.count("berries"), 15);
    /// assert_eq!(backpack.count("berries"), 20);
    /// ```
    pub fn transfer(&mut self, target: &mut Contents, req: &TransferRequest) -> Transferred {
        let amount = req.amount;
        if amount == 0 {
            return Transferred::nothing(self.named_item(req), 0);
        }
        let src = match self.source(req) {
            Ok(s) => s,
            Err(r) => return Transferred::refused(self.named_item(req), amount, r),
        };
        let item = src.item.clone();
        let props = src.props.clone();
        let refuse = |r| Transferred {
            props: props.clone(),
            ..Transferred::refused(Some(item.clone()), amount, r)
        };
        if req.to_slot.is_some() && !target.rules.has_slots() {
            return refuse(Reason::NoSlots);
        }
        // one lookup by name in the target for the type's row and stacks
        let (at, row) = target.find_type(item.as_str());
        let terms = match target.terms_with(item.as_str(), row) {
            Ok(t) => t,
            Err(r) => return refuse(r),
        };
        // the target's landings are planned into the outcome's own list
        let mut landed = Landings::default();
        let moved = match target.admit(
            item.as_str(),
            &props,
            at,
            &terms,
            src.available,
            req.to_slot,
            &mut landed,
        ) {
            Ok(Admit::Fits(n)) => n,
            Ok(Admit::Other(theirs)) => {
                return match (req.from_slot, req.to_slot, src.whole) {
                    (Some(from), Some(to), Some(whole)) if amount >= whole => self
                        .swap(target, &terms, from, to, theirs)
                        .map_or_else(&refuse, |mut t| {
                            t.asked = amount;
                            t.shortfall = amount - t.moved;
                            t
                        }),
                    _ => refuse(Reason::Occupied),
                };
            }
            Err(r) => return refuse(r),
        };
        // what stayed because of the target, and why (before it changes)
        let limited_by = (moved < src.available).then(|| {
            target.admit_limit(
                item.as_str(),
                &props,
                &terms,
                src.available,
                req.to_slot,
                moved,
            )
        });
        if limited_by.is_some() && target.all_or_nothing() {
            return Transferred {
                limited_by,
                ..refuse(Reason::DoesNotFit)
            };
        }
        let from = self.give(&item, &props, moved, req.from_slot);
        target.land(&item, &props, at, &terms, moved, req.to_slot, &mut landed);
        Transferred {
            item: Some(item),
            props,
            asked: amount,
            moved,
            shortfall: amount - src.available,
            from,
            landed,
            swapped: None,
            refused: None,
            limited_by,
        }
    }

    /// The source side of a transfer: `moved` items of `item` with `props`
    /// leave, from `from_slot` when named (checked by `source`: it holds a
    /// stack of `item`, so straight into the outcome's list, no lookup by
    /// name), else by the draw order. Returns the slots they left.
    fn give(
        &mut self,
        item: &ItemType,
        props: &Props,
        moved: u32,
        from_slot: Option<u32>,
    ) -> Landings {
        match from_slot {
            Some(s) if moved > 0 => {
                let taken = self.take_from_stack(item, s, moved);
                debug_assert_eq!(taken, moved, "the source gives what was planned");
                let mut from = Landings::default();
                from.push(Landing {
                    slot: s,
                    amount: taken,
                });
                from
            }
            _ => {
                self.take_kind(item.as_str(), Some(props), moved, from_slot)
                    .from
            }
        }
    }

    /// A transfer whose source and target are this one container: a move
    /// between two of its slots (the guide's [`guide::requests`](crate::guide::requests)). Without a target slot it
    /// is refused [`Reason::SameSlot`]: the items are already here.
    pub fn transfer_within(&mut self, req: &TransferRequest) -> Transferred {
        let amount = req.amount;
        if amount == 0 {
            return Transferred::nothing(self.named_item(req), 0);
        }
        let src = match self.source(req) {
            Ok(s) => s,
            Err(r) => return Transferred::refused(self.named_item(req), amount, r),
        };
        let item = src.item.clone();
        let kind = src.props.clone();
        let refused = |r| Transferred {
            props: kind.clone(),
            ..Transferred::refused(Some(item.clone()), amount, r)
        };
        if !self.rules.has_slots() {
            return refused(Reason::NoSlots);
        }
        let Some(to) = req.to_slot else {
            return refused(Reason::SameSlot);
        };
        // the first stack the source would draw from
        let from = match req.from_slot {
            Some(s) => s,
            None => {
                let mut order: Vec<u32> = self
                    .by_type
                    .slots(item.as_str())
                    .filter(|&s| self.stack(s).is_some_and(|st| st.props == kind))
                    .collect();
                self.draw_order(&mut order);
                match order.first() {
                    Some(&s) => s,
                    None => {
                        return Transferred {
                            shortfall: amount,
                            props: kind.clone(),
                            ..Transferred::nothing(Some(item.clone()), amount)
                        };
                    }
                }
            }
        };
        let held = self.stack(from).map_or(0, |s| s.amount);
        let before = self.stack(to).cloned();
        // another kind in the target slot; a swap needs both slots named (11.4)
        let other = |b: &Stack| b.item != item || b.props != kind;
        if req.from_slot.is_none() && before.as_ref().is_some_and(other) {
            return refused(Reason::Occupied);
        }
        let moved = match self.try_move(from, to, Some(amount.min(held))) {
            Ok(moved) => moved,
            // a swap that fails any check is refused `occupied` (11.7)
            Err(_) if before.as_ref().is_some_and(other) => {
                return refused(Reason::Occupied);
            }
            Err(r) => return refused(r),
        };
        let swapped = before.filter(other).map(|b| Swapped {
            item: b.item,
            props: b.props,
            amount: b.amount,
        });
        let one = |slot| {
            let mut l = Landings::default();
            l.push(Landing {
                slot,
                amount: moved,
            });
            l
        };
        Transferred {
            item: Some(item),
            props: kind,
            asked: amount,
            moved,
            // a move draws from one stack only
            shortfall: amount - amount.min(held),
            from: one(from),
            landed: one(to),
            swapped,
            refused: None,
            // within one container only the target stack's limit stops a merge
            limited_by: (moved < amount.min(held)).then_some(LimitedBy::StackLimit),
        }
    }

    /// The type a request names, or the type in its source slot.
    fn named_item(&self, req: &TransferRequest) -> Option<ItemType> {
        req.item.clone().or_else(|| {
            req.from_slot
                .and_then(|s| self.stack(s))
                .map(|s| s.item.clone())
        })
    }

    fn all_or_nothing(&self) -> bool {
        self.rules.partial == PartialAcceptance::AllOrNothing
            && (self.rules.has_slot_limit() || self.rules.has_budget())
    }

    /// Step 1 of a transfer: what can leave. Inlined: returned through
    /// memory, its result was read back while still being written (a
    /// store-forwarding stall, about a sixth of the transfer's own time).
    #[inline(always)]
    fn source(&self, req: &TransferRequest) -> Result<Source, Reason> {
        if let Some(slot) = req.from_slot {
            if !self.rules.has_slots() {
                return Err(Reason::NoSlots);
            }
            let stack = self.stack(slot).ok_or(Reason::EmptySlot)?;
            if req.item.as_ref().is_some_and(|t| *t != stack.item)
                || req.props.as_ref().is_some_and(|p| *p != stack.props)
            {
                return Err(Reason::WrongType);
            }
            return Ok(Source {
                item: stack.item.clone(),
                props: stack.props.clone(),
                available: req.amount.min(stack.amount),
                whole: Some(stack.amount),
            });
        }
        let item = req.item.as_ref().ok_or(Reason::EmptySlot)?;
        let props = match &req.props {
            Some(p) => {
                if self.rules.has_slots()
                    && self.rules.draw == DrawOrder::NotApplicable
                    && self
                        .by_type
                        .slots(item.as_str())
                        .filter(|&s| self.stack(s).is_some_and(|st| st.props == *p))
                        .count()
                        > 1
                {
                    return Err(Reason::AmbiguousDraw);
                }
                p.clone()
            }
            None => self.first_kind(item.as_str())?,
        };
        let held = self.count_kind(item.as_str(), &props);
        Ok(Source {
            item: self.item_type(item.as_str()),
            props,
            available: u32::try_from(held).unwrap_or(u32::MAX).min(req.amount),
            whole: None,
        })
    }

    /// The kind a transfer of `item` without properties moves: that of the
    /// type's first stack in the draw order (slotless: its first kind in
    /// kind order); plain when none is held. Under draw order
    /// `not-applicable` the type's stacks must be one.
    fn first_kind(&self, item: &str) -> Result<Props, Reason> {
        if !self.rules.has_slots() {
            return Ok(self
                .holdings_of(item)
                .next()
                .map(|(k, _)| k.props.clone())
                .unwrap_or_default());
        }
        let slots = self.by_type.slots(item);
        if self.rules.draw == DrawOrder::NotApplicable && slots.len() > 1 {
            return Err(Reason::AmbiguousDraw);
        }
        // plain items only: the common case needs no draw order
        if slots
            .clone()
            .all(|s| self.stack(s).is_none_or(|st| st.props.is_empty()))
        {
            return Ok(Props::EMPTY);
        }
        let mut order: Vec<u32> = slots.collect();
        self.draw_order(&mut order);
        Ok(order
            .first()
            .and_then(|&s| self.stack(s))
            .map(|st| st.props.clone())
            .unwrap_or_default())
    }

    /// How many of `want` items of `item` (whose terms here are `terms`)
    /// this container admits: into `slot` (step 2 of a transfer, with its
    /// checks in the spec's order), or by the fill order.
    #[allow(clippy::too_many_arguments)]
    fn admit(
        &self,
        item: &str,
        props: &Props,
        at: Option<u32>,
        terms: &TypeTerms,
        want: u32,
        slot: Option<u32>,
        plan: &mut Landings,
    ) -> Result<Admit, Reason> {
        let Some(slot) = slot else {
            if !self.rules.has_slots() {
                let held = self.held_kind(&self.item_type(item), props);
                return Ok(Admit::Fits(
                    self.budget_cap::<AnyShape>(terms, want)
                        .min(u32::MAX - held),
                ));
            }
            let want = self.budget_cap::<AnyShape>(terms, want);
            let own = at.map_or(super::index::Slots::NONE, |at| self.by_type.list(at));
            return Ok(Admit::Fits(
                self.plan_shaped(item, props, terms, want, own, plan),
            ));
        };
        if slot >= self.slots_available() {
            return Err(Reason::NoSuchSlot);
        }
        let room = match self.stack(slot) {
            None if !self.accepts(slot, item, terms) => return Err(super::entry_reason(terms)),
            None => terms.limit,
            Some(s) if s.item.as_str() == item && s.props == *props => {
                terms.limit.saturating_sub(s.amount)
            }
            Some(s) => return Ok(Admit::Other(s.clone())),
        };
        Ok(Admit::Fits(
            self.budget_cap::<AnyShape>(terms, want.min(room)),
        ))
    }

    /// What stopped this container (a target) admitting all `want` items
    /// of `item` when it admitted `admitted`, fewer, before anything
    /// changed: into `slot` (admitted as the budget's cap of the stack's
    /// room), that stack's limit or the budget, whichever was smaller; by
    /// the fill order, what stopped the plan, as for a delivery.
    #[cold]
    #[inline(never)]
    fn admit_limit(
        &self,
        item: &str,
        props: &Props,
        terms: &TypeTerms,
        want: u32,
        slot: Option<u32>,
        admitted: u32,
    ) -> LimitedBy {
        let Some(slot) = slot else {
            let capped = self.budget_cap::<AnyShape>(terms, want);
            return self.limit_of::<AnyShape>(item, props, terms, capped, admitted);
        };
        // the slot is empty or holds this kind (another is `Admit::Other`)
        let room = self
            .stack(slot)
            .map_or(terms.limit, |s| terms.limit.saturating_sub(s.amount));
        if admitted < want.min(room) {
            LimitedBy::SizeBudget
        } else {
            LimitedBy::StackLimit
        }
    }

    /// Lands `amount` of `item` (numbered `at` here, when indexed) as
    /// admitted: into `slot`, by the fill order's plan already in `landed`,
    /// or into the holdings. `landed` ends as the slots that received them.
    #[allow(clippy::too_many_arguments)]
    fn land(
        &mut self,
        item: &ItemType,
        props: &Props,
        at: Option<u32>,
        terms: &TypeTerms,
        amount: u32,
        slot: Option<u32>,
        landed: &mut Landings,
    ) {
        if amount == 0 {
            return;
        }
        if !self.rules.has_slots() {
            self.add_holding(item, props, amount, terms.size);
            return;
        }
        if let Some(slot) = slot {
            landed.push(Landing { slot, amount });
        }
        self.add_landings(item, props, at, landed, terms.size);
    }

    /// Step 4: the source stack in `from` and the target's stack `theirs`
    /// in `to` change places, when each is accepted where it goes.
    fn swap(
        &mut self,
        target: &mut Contents,
        terms: &TypeTerms,
        from: u32,
        to: u32,
        theirs: Stack,
    ) -> Result<Transferred, Reason> {
        let ours = self.stack(from).cloned().ok_or(Reason::EmptySlot)?;
        // ours into the target slot
        if !target.accepts(to, ours.item.as_str(), terms) || ours.amount > terms.limit {
            return Err(Reason::Occupied);
        }
        // theirs into our slot
        let their_terms = self
            .terms(theirs.item.as_str())
            .map_err(|_| Reason::Occupied)?;
        if !self.accepts(from, theirs.item.as_str(), &their_terms)
            || theirs.amount > their_terms.limit
        {
            return Err(Reason::Occupied);
        }
        // budgets after the exchange
        let our_size_there = terms.size.times(ours.amount);
        let their_size_there = target.size_of(theirs.item.as_str()).times(theirs.amount);
        let our_size_here = self.size_of(ours.item.as_str()).times(ours.amount);
        let their_size_here = their_terms.size.times(theirs.amount);
        if !target.fits_after(their_size_there, our_size_there)
            || !self.fits_after(our_size_here, their_size_here)
        {
            return Err(Reason::Occupied);
        }
        self.replace_stack(from, &theirs, our_size_here, their_size_here);
        target.replace_stack(to, &ours, their_size_there, our_size_there);
        let one = |slot, amount| {
            let mut l = Landings::default();
            l.push(Landing { slot, amount });
            l
        };
        Ok(Transferred {
            item: Some(ours.item.clone()),
            props: ours.props.clone(),
            asked: ours.amount,
            moved: ours.amount,
            shortfall: 0,
            from: one(from, ours.amount),
            landed: one(to, ours.amount),
            swapped: Some(Swapped {
                item: theirs.item,
                props: theirs.props,
                amount: theirs.amount,
            }),
            refused: None,
            limited_by: None,
        })
    }

    /// The size of one `item` here (zero for a type without a row).
    fn size_of(&self, item: &str) -> Decimal {
        self.rules.row(item).map(|r| r.size).unwrap_or_default()
    }

    /// Whether the budget holds after `out` leaves and `r#in` arrives.
    fn fits_after(&self, out: Decimal, r#in: Decimal) -> bool {
        !self.rules.has_budget() || self.size_used.minus(out).plus(r#in) <= self.limits.size_budget
    }

    /// Empties `slot` (of size `out`) and puts `arriving` there as a new
    /// stack (of size `r#in`): a take and a delivery, so the new stack gets
    /// the next counter value.
    fn replace_stack(&mut self, slot: u32, arriving: &Stack, out: Decimal, r#in: Decimal) {
        self.clear_slot(slot);
        let counter = self.next_counter();
        let item = self.item_type(arriving.item.as_str());
        self.put_stack(
            slot,
            Stack {
                item,
                amount: arriving.amount,
                props: arriving.props.clone(),
                began: counter,
                last_received: counter,
            },
        );
        self.size_used = self.size_used.minus(out).plus(r#in);
    }
}
