//! Changing items' properties in place (the guide's chapter on item
//! properties, "Changing properties"): a sword wears down, a letter is
//! sealed. The whole stack changes kind where it is; part of a stack is
//! moved to where a delivery of the new kind would land, all or nothing.

use serde::{Deserialize, Serialize};

use super::{AnyShape, Contents, ItemType, Kind, Landing, Landings, Props, Reason};

/// Which items a [`Contents::set_props`] changes: a slot's stack, or in a
/// slotless container one kind's holding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PropsAt {
    /// The stack in this slot (containers with slots).
    Slot(u32),
    /// The holding of this kind (slotless containers).
    Held(Kind),
}

/// The outcome of a [`Contents::set_props`]: how many items changed kind
/// and where they lie now, or why nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PropsSet {
    /// The type of the items (`None` when the slot was empty).
    pub item: Option<ItemType>,
    /// Their properties before.
    pub from: Props,
    /// Their properties now.
    pub to: Props,
    /// How many changed (0 when refused, asked for none, or the new
    /// properties were the old ones).
    pub changed: u32,
    /// Where the changed items lie (empty when slotless): their own slot
    /// for a whole stack, else the slots a delivery of the new kind filled.
    pub landed: Landings,
    /// Why nothing changed, when refused.
    pub refused: Option<Reason>,
}

impl PropsSet {
    fn nothing(item: Option<ItemType>, from: Props, to: Props) -> PropsSet {
        PropsSet {
            item,
            from,
            to,
            changed: 0,
            landed: Landings::default(),
            refused: None,
        }
    }

    fn refused(self, reason: Reason) -> PropsSet {
        PropsSet {
            refused: Some(reason),
            ..self
        }
    }
}

/// Reads like a log line: `3 axe now {"durability":36} in slot 2`.
impl std::fmt::Display for PropsSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let item = self.item.as_ref().map_or("items", ItemType::as_str);
        if let Some(r) = self.refused {
            return write!(f, "properties of {item} not changed ({r})");
        }
        write!(f, "{} {item} now {}", self.changed, self.to)?;
        match self.landed.as_slice() {
            [] => Ok(()),
            [one] => write!(f, " in slot {}", one.slot + 1),
            many => {
                let parts: Vec<String> = many
                    .iter()
                    .map(|l| format!("{} in slot {}", l.amount, l.slot + 1))
                    .collect();
                write!(f, ": {}", parts.join(", "))
            }
        }
    }
}

impl Contents {
    /// Gives `amount` items (all of them when `None`) of the stack or
    /// holding `at` the properties `to` (a whole map; [`Props::EMPTY`]
    /// clears them). A whole stack changes kind where it is, keeping its
    /// slot and draw-order bookkeeping and merging with nothing; part of a
    /// stack is delivered into this container as the new kind (its fill
    /// order, topping up stacks of that kind) and is refused
    /// [`Reason::NoRoom`], changing nothing, unless every item lands.
    ///
    /// Checks, the first that applies deciding: `amount` 0 changes nothing;
    /// a slot in a slotless container is [`Reason::NoSlots`]; an empty slot
    /// or one past the end (a kind not held) is [`Reason::EmptySlot`]; more
    /// than the stack has is [`Reason::NotEnough`]; properties equal to the
    /// old change nothing.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use bevy_container::{adoption::{self, Tuning}, contents::Contents, rules::Rules};
    /// use bevy_container::contents::PropsAt;
    /// use bevy_container::props::Props;
    /// # let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    /// # let a = adoption::read(&bytes, adoption::Format::Json, Default::default()).unwrap();
    /// # let mut backpack = Contents::new(Arc::new(Rules::compile(&a, &Tuning::default()).unwrap()));
    /// backpack.deliver("berries", 10);
    /// let ripe = Props::new([("ripe", true)]).unwrap();
    /// // four of the ten ripen: they go where a delivery of ripe berries would
    /// let set = backpack.set_props(PropsAt::Slot(0), Some(4), ripe.clone());
    /// assert_eq!((set.changed, set.landed[0].slot), (4, 1));
    /// // the other six too: the whole stack changes where it is
    /// let set = backpack.set_props(PropsAt::Slot(0), None, ripe.clone());
    /// assert_eq!((set.changed, set.landed[0].slot), (6, 0));
    /// assert_eq!(backpack.count_kind("berries", &ripe), 10);
    /// ```
    pub fn set_props(&mut self, at: PropsAt, amount: Option<u32>, to: Props) -> PropsSet {
        match at {
            PropsAt::Slot(slot) => self.set_slot_props(slot, amount, to),
            PropsAt::Held(kind) => self.set_held_props(kind, amount, to),
        }
    }

    fn set_slot_props(&mut self, slot: u32, amount: Option<u32>, to: Props) -> PropsSet {
        let found = self
            .stack(slot)
            .map(|s| (s.item.clone(), s.props.clone(), s.amount));
        let out = match &found {
            Some((item, from, _)) => {
                PropsSet::nothing(Some(item.clone()), from.clone(), to.clone())
            }
            None => PropsSet::nothing(None, Props::EMPTY, to.clone()),
        };
        if amount == Some(0) {
            return out;
        }
        if !self.rules.has_slots() {
            return out.refused(Reason::NoSlots);
        }
        let Some((item, from, held)) = found else {
            return out.refused(Reason::EmptySlot);
        };
        let n = amount.unwrap_or(held);
        if n > held {
            return out.refused(Reason::NotEnough);
        }
        if from == to {
            return out;
        }
        if n == held {
            // the whole stack: a new kind where it is
            if let Some(s) = self.slots.get_mut(slot as usize).and_then(Option::as_mut) {
                s.props = to;
            }
            let mut landed = Landings::default();
            landed.push(Landing { slot, amount: n });
            return PropsSet {
                changed: n,
                landed,
                ..out
            };
        }
        // part of it: out of the stack, then delivered as the new kind
        let (at, row) = self.find_type(item.as_str());
        let Ok(terms) = self.terms_with(item.as_str(), row) else {
            return out.refused(Reason::NoRoom);
        };
        self.remove_from_slot(slot, n, terms.size);
        let own = at.map_or(super::index::Slots::NONE, |at| self.by_type.list(at));
        let want = self.budget_cap::<AnyShape>(&terms, n);
        let mut landed = Landings::default();
        if self.plan_shaped(item.as_str(), &to, &terms, want, own, &mut landed) != n {
            // put them back as they were: the stack kept its slot
            let size = terms.size.times(n);
            if let Some(s) = self.slots.get_mut(slot as usize).and_then(Option::as_mut) {
                s.amount += n;
                self.size_used = self.size_used.plus(size);
            }
            return out.refused(Reason::NoRoom);
        }
        self.add_landings(&item, &to, at, &landed, terms.size);
        PropsSet {
            changed: n,
            landed,
            ..out
        }
    }

    fn set_held_props(&mut self, kind: Kind, amount: Option<u32>, to: Props) -> PropsSet {
        let out = PropsSet::nothing(Some(kind.item.clone()), kind.props.clone(), to.clone());
        if amount == Some(0) {
            return out;
        }
        if self.rules.has_slots() {
            // a kind names a holding: a container with slots needs a slot
            return out.refused(Reason::NoSuchSlot);
        }
        let Some(held) = self.holdings.get(&kind).map(|s| s.amount) else {
            return out.refused(Reason::EmptySlot);
        };
        let n = amount.unwrap_or(held);
        if n > held {
            return out.refused(Reason::NotEnough);
        }
        if kind.props == to {
            return out;
        }
        let target = Kind::new(kind.item.clone(), to.clone());
        let there = self.holdings.get(&target).map_or(0, |s| s.amount);
        if there.checked_add(n).is_none() {
            return out.refused(Reason::NoRoom);
        }
        if n == held {
            self.holdings.remove(&kind);
        } else if let Some(h) = self.holdings.get_mut(&kind) {
            h.amount -= n;
        }
        // sizes are per type: the size used does not change
        self.add_holding(&kind.item, &to, n, crate::decimal::Decimal::ZERO);
        PropsSet { changed: n, ..out }
    }
}
