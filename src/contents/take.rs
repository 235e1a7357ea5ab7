//! Take: the game or the player asks for items (the guide's [`guide::requests`](crate::guide::requests)).

use super::outcome::KindsTaken;
use super::{Contents, ItemType, Kind, Landing, Landings, Props, Reason, Taken};
use crate::decimal::Decimal;
use crate::item::same_text;
use crate::rules::DrawOrder;

impl Contents {
    /// Takes up to `amount` of `item`, drawing from matching stacks in the
    /// adoption's draw order (the game choosing for its own rules). Asking
    /// for more than is held yields what is held and reports the shortfall.
    pub fn take(&mut self, item: &str, amount: u32) -> Taken {
        self.take_inner(item, amount, None)
    }

    /// Takes up to `amount` of `item` from one slot the player chose.
    pub fn take_from(&mut self, item: &str, amount: u32, slot: u32) -> Taken {
        self.take_inner(item, amount, Some(slot))
    }

    /// [`Contents::take`] or [`Contents::take_from`], by whether a slot is given.
    pub fn take_inner(&mut self, item: &str, amount: u32, slot: Option<u32>) -> Taken {
        self.take_kind(item, None, amount, slot)
    }

    /// Takes up to `amount` of `item`: with `props`, only items of that
    /// kind (`Some(&Props::EMPTY)` is the plain kind only); without, every
    /// kind of the type in the draw order. With a slot, that slot's stack
    /// when it matches, else nothing.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// use bevy_container::props::Props;
    /// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
    /// let strong = Props::new([("quality", 3)]).unwrap();
    /// backpack.deliver("berries", 4);
    /// backpack.deliver_kind("berries", &strong, 4);
    /// let t = backpack.take_kind("berries", Some(&strong), 6, None);
    /// assert_eq!((t.taken, t.shortfall), (4, 2));
    /// assert_eq!(backpack.count("berries"), 4);
    /// ```
    pub fn take_kind(
        &mut self,
        item: &str,
        props: Option<&Props>,
        amount: u32,
        slot: Option<u32>,
    ) -> Taken {
        // the player's click on a stack of that type: no lookup by name
        if let Some(s) = slot
            && let Some(stack) = self.stack(s)
            && same_text(stack.item.as_str(), item)
            && props.is_none_or(|p| *p == stack.props)
        {
            let id = stack.item.clone();
            let kind = (!stack.props.is_empty()).then(|| stack.props.clone());
            let mut out = self.take_stack(id, s, amount, kind);
            if props.is_some() {
                out.set_asked(props);
            }
            return out;
        }
        // one lookup for the shared id and the stacks to draw from, copied
        // into the reused scratch list
        let mut order = std::mem::take(&mut self.scratch);
        order.clear();
        let (id, at) = match self.by_type.find(item) {
            Some((at, k)) => {
                if slot.is_none() {
                    order.extend(self.by_type.list(at));
                    if let Some(p) = props {
                        let slots = &self.slots;
                        order.retain(|&s| {
                            slots
                                .get(s as usize)
                                .and_then(Option::as_ref)
                                .is_some_and(|st| st.props == *p)
                        });
                    }
                }
                (k.clone(), Some(at))
            }
            None => (self.item_type(item), None),
        };
        self.draw(id, props, at, amount, slot, order)
    }

    /// Takes up to `amount` from `slot`, of whatever type it holds: the
    /// player clicking a slot. The same as [`Contents::take_from`] with the
    /// slot's type; `None` when the slot is empty or past the last.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
    /// backpack.deliver("berries", 5);
    /// let eaten = backpack.take_slot(0, 2).unwrap();
    /// assert_eq!((eaten.item.as_str(), eaten.taken), ("berries", 2));
    /// assert!(backpack.take_slot(1, 2).is_none());
    /// ```
    pub fn take_slot(&mut self, slot: u32, amount: u32) -> Option<Taken> {
        let stack = self.stack(slot)?;
        let id = stack.item.clone();
        // only a stack with properties is noted: plain takes stay plain
        let kind = (!stack.props.is_empty()).then(|| stack.props.clone());
        Some(self.take_stack(id, slot, amount, kind))
    }

    /// Takes up to `amount` from the stack of `id` in `slot`, which holds
    /// one: what [`Contents::draw`] does for a named slot, without its
    /// general case (no draw order, no refusal, one slot). `kind`: the
    /// stack's properties, when it has any (the caller had the stack in
    /// hand; a plain stack's take never looks at properties). In its two
    /// callers' lines: as a call it saved and restored six registers, 24
    /// instructions of a take's 150.
    #[inline(always)]
    fn take_stack(&mut self, id: ItemType, slot: u32, amount: u32, kind: Option<Props>) -> Taken {
        let mut from = Landings::default();
        let n = if amount == 0 {
            0
        } else {
            let n = self.take_from_stack(&id, slot, amount);
            from.push(Landing { slot, amount: n });
            n
        };
        // built once, in its caller's place: an outcome filled in here and
        // then returned was copied out (22 instructions of a take)
        Taken {
            item: id,
            asked: amount,
            taken: n,
            shortfall: amount - n,
            from,
            refused: None,
            kinds: match kind {
                Some(p) if amount > 0 => KindsTaken::portion(p, n),
                _ => KindsTaken::default(),
            },
        }
    }

    /// Takes up to `amount` (at least one) from the stack of `item` in
    /// `slot`, which holds one; returns how many left the stack. The caller
    /// notes the slot in its outcome from that count (a transfer once read
    /// back a list this call had just written, and stalled on it). A call:
    /// in its callers' lines it took 10 instructions fewer a take, but a
    /// take followed by a delivery was 2 ns slower over twelve layouts.
    pub(crate) fn take_from_stack(&mut self, item: &ItemType, slot: u32, amount: u32) -> u32 {
        let size = if self.rules.has_budget() {
            // the slot holds a stack, so the index knows its type's number
            let at = self.by_type.at_slot(slot);
            at.and_then(|at| self.by_type.row(at))
                .and_then(|r| self.rules.rows.get(r))
                .map(|r| r.size)
                .unwrap_or_default()
        } else {
            Decimal::ZERO
        };
        let (n, emptied) = self.remove_from_slot(slot, amount, size);
        if emptied {
            let at = self.by_type.at_slot(slot);
            self.by_type.unindex_one(at, item.as_str(), slot);
        }
        n
    }

    /// Draws up to `amount` of `id` (numbered `at` in the type index, when
    /// known): from `slot` when given, else from the type's stacks already
    /// copied into `order` (ascending). `order` is the reused scratch list
    /// and goes back to it.
    fn draw(
        &mut self,
        id: ItemType,
        props: Option<&Props>,
        at: Option<u32>,
        amount: u32,
        slot: Option<u32>,
        mut order: Vec<u32>,
    ) -> Taken {
        let mut out = Taken::nothing(id, props.cloned(), amount);
        if amount == 0 {
            self.scratch = order;
            return out;
        }
        let size = if self.rules.has_budget() {
            let item = out.item.as_str();
            self.rules.row(item).map(|r| r.size).unwrap_or_default()
        } else {
            Decimal::ZERO
        };
        if !self.rules.has_slots() {
            self.scratch = order;
            if slot.is_some() {
                out.refused = Some(Reason::NoSlots);
                return out;
            }
            self.draw_held(&mut out, props, amount, size);
            return out;
        }
        if let Err(reason) = self.stacks_to_draw(&out.item, props, slot, &mut order) {
            out.refused = Some(reason);
            self.scratch = order;
            return out;
        }
        if self.draw_stacks(&mut out, &order, amount, size) {
            self.unindex_emptied(&out, at, &mut order);
        }
        self.scratch = order;
        out
    }

    /// The stacks a draw of `id` uses, in turn, into `order` (which holds
    /// the type's stacks, ascending, when no slot is named): the named
    /// slot's stack when it matches, else the type's stacks in the draw
    /// order. Refused for a slot past the last, or for several stacks under
    /// draw order `not-applicable` with no slot named.
    fn stacks_to_draw(
        &self,
        id: &ItemType,
        props: Option<&Props>,
        slot: Option<u32>,
        order: &mut Vec<u32>,
    ) -> Result<(), Reason> {
        match slot {
            Some(s) if s as usize >= self.slot_len().max(self.limits.slot_count as usize) => {
                return Err(Reason::NoSuchSlot);
            }
            Some(s) => {
                // ids compare by pointer when interned
                if self
                    .stack(s)
                    .is_some_and(|st| st.item == *id && props.is_none_or(|p| *p == st.props))
                {
                    order.push(s);
                }
            }
            None => self.draw_order(order),
        }
        if slot.is_none() && self.rules.draw == DrawOrder::NotApplicable && order.len() > 1 {
            return Err(Reason::AmbiguousDraw);
        }
        Ok(())
    }

    /// Takes up to `amount` (each item of `size`) from the stacks in
    /// `order`, in turn, noting each portion and the totals in `out`;
    /// whether a stack emptied.
    fn draw_stacks(&mut self, out: &mut Taken, order: &[u32], amount: u32, size: Decimal) -> bool {
        let mut left = amount;
        let mut any_emptied = false;
        for &s in order {
            if left == 0 {
                break;
            }
            let kind = match self.stack(s) {
                Some(st) if !st.props.is_empty() => st.props.clone(),
                _ => Props::EMPTY,
            };
            let (n, emptied) = self.remove_from_slot(s, left, size);
            if n > 0 {
                out.from.push(Landing { slot: s, amount: n });
                out.note_kind(&kind, n, false);
                left -= n;
            }
            any_emptied |= emptied;
        }
        out.taken = amount - left;
        out.shortfall = left;
        any_emptied
    }

    /// The slots the draw `out` emptied leave the type's list (numbered
    /// `at`, when known) in one lookup; `order`, the scratch list, holds
    /// them meanwhile.
    fn unindex_emptied(&mut self, out: &Taken, at: Option<u32>, order: &mut Vec<u32>) {
        order.clear();
        order.extend(
            out.from
                .iter()
                .map(|l| l.slot)
                .filter(|&s| self.stack(s).is_none()),
        );
        if order.len() > 1 {
            order.sort_unstable();
        }
        self.by_type
            .unindex(at, out.item.as_str(), order.as_slice());
    }

    /// A draw from a slotless container's holdings: the type's kinds in
    /// kind order, or the one kind asked for.
    fn draw_held(&mut self, out: &mut Taken, props: Option<&Props>, amount: u32, size: Decimal) {
        let kinds: Vec<Kind> = match props {
            Some(p) => vec![Kind::new(out.item.clone(), p.clone())],
            None => self
                .holdings_of(out.item.as_str())
                .map(|(k, _)| k.clone())
                .collect(),
        };
        let mut left = amount;
        for kind in kinds {
            if left == 0 {
                break;
            }
            let Some(h) = self.holdings.get_mut(&kind) else {
                continue;
            };
            let n = left.min(h.amount);
            h.amount -= n;
            if h.amount == 0 {
                self.holdings.remove(&kind);
            }
            left -= n;
            out.note_kind(&kind.props, n, true);
        }
        let n = amount - left;
        self.size_used = self.size_used.minus(size.times(n));
        out.taken = n;
        out.shortfall = left;
    }

    /// Orders the slots holding a type (ascending) as a draw uses them.
    pub(crate) fn draw_order(&self, slots: &mut [u32]) {
        match self.rules.draw {
            DrawOrder::FirstInOrder | DrawOrder::NotApplicable => {}
            DrawOrder::LastInOrder => slots.reverse(),
            DrawOrder::NewestFirst => slots.sort_by_key(|&s| {
                std::cmp::Reverse(self.stack(s).map_or(0, |st| st.last_received))
            }),
            DrawOrder::OldestFirst => {
                slots.sort_by_key(|&s| self.stack(s).map_or(0, |st| st.began))
            }
        }
    }
}
