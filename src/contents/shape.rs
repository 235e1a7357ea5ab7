//! Shapes: the answers of a container's rules that a delivery branches on
//! at every step (its capacity limit, its fill order, whether its slots
//! have rules of their own), either read from the rules or known when the
//! delivery is compiled.
//!
//! A delivery asks these answers again and again: planning each slot,
//! checking each empty slot's entry rules, capping by the budget, naming
//! the limit. Compiled for a shape whose answers are known, every one of
//! those questions is answered before the program runs, and what they
//! guard (the reserved slot, the slot rules, the budget's sums) is not in
//! the code at all. [`Backpack`] is the commonest container's shape; any
//! other container's delivery reads its answers ([`AnyShape`]). A plan
//! outside a delivery (a transfer's target, a change of properties) picks
//! its copy the same way (`Contents::plan_shaped`).
//! Both copies are the same code: only what the compiler may leave out
//! differs.

use crate::rules::{CapacityLimit, FillOrder, Rules, TypeRestriction};

/// The answers a delivery branches on, for the shape it is compiled for.
/// Every answer is the rules' own; a shape only says which ones are known
/// before the rules are read.
pub(crate) trait Shape {
    /// What makes the container full.
    fn capacity(rules: &Rules) -> CapacityLimit;

    /// Which slot gets a new item.
    fn fill(rules: &Rules) -> FillOrder;

    /// Whether each slot has its own entry rule (`by-slot`).
    fn by_slot(rules: &Rules) -> bool;

    /// Whether the container has slots.
    #[inline(always)]
    fn has_slots(rules: &Rules) -> bool {
        Self::capacity(rules).has_slots()
    }

    /// Whether a size budget limits the container.
    #[inline(always)]
    fn has_budget(rules: &Rules) -> bool {
        Self::capacity(rules).has_budget()
    }

    /// Whether the slot count limits the container.
    #[inline(always)]
    fn has_slot_limit(rules: &Rules) -> bool {
        Self::capacity(rules).has_slot_limit()
    }
}

/// Any container: every answer is read from its rules.
pub(crate) enum AnyShape {}

impl Shape for AnyShape {
    #[inline(always)]
    fn capacity(rules: &Rules) -> CapacityLimit {
        rules.capacity
    }

    #[inline(always)]
    fn fill(rules: &Rules) -> FillOrder {
        rules.fill
    }

    #[inline(always)]
    fn by_slot(rules: &Rules) -> bool {
        rules.restriction == TypeRestriction::BySlot
    }
}

/// A backpack or a chest: a count of slots (`slot-count`), filled by
/// `top-up-then-first-empty`, that any type the restriction admits may use
/// (`any-item` or `only-these`, not `by-slot`). Its partial acceptance and
/// leftover destination are still read from the rules.
pub(crate) enum Backpack {}

impl Backpack {
    /// Whether `rules` have this shape.
    #[inline(always)]
    pub(crate) fn fits(rules: &Rules) -> bool {
        rules.capacity == CapacityLimit::SlotCount
            && rules.fill == FillOrder::TopUpThenFirstEmpty
            && rules.restriction != TypeRestriction::BySlot
    }
}

impl Shape for Backpack {
    #[inline(always)]
    fn capacity(rules: &Rules) -> CapacityLimit {
        debug_assert!(
            Backpack::fits(rules),
            "a delivery compiled for another shape"
        );
        CapacityLimit::SlotCount
    }

    #[inline(always)]
    fn fill(_: &Rules) -> FillOrder {
        FillOrder::TopUpThenFirstEmpty
    }

    #[inline(always)]
    fn by_slot(_: &Rules) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::adoption::{self, Context, Tuning};
    use crate::contents::{Contents, Props};

    fn adopt(answers: serde_json::Value, slots: u32) -> Rules {
        let v = serde_json::json!({
            "contract": "container", "version": 1, "answers": answers,
            "values": {"slot-count": slots, "size-budget": 10},
            "rows": {"items": [
                {"id": "berries", "stack-limit": 20, "size": 1, "when-forced-out": "dropped-nearby",
                 "forced-out-order": 1},
                {"id": "arrows", "stack-limit": 7, "size": 1, "when-forced-out": "dropped-nearby",
                 "forced-out-order": 2},
                {"id": "axe", "stack-limit": 1, "size": 1, "when-forced-out": "never"}
            ]}
        });
        let mut v = v;
        if answers_by_slot(&v) {
            for row in v["rows"]["items"].as_array_mut().into_iter().flatten() {
                row["slot-rules-declared-in"] = "02-mechanics.md#equipment".into();
            }
        }
        let (report, a) = adoption::validate(&v, Context::default());
        let a = a.unwrap_or_else(|| panic!("{answers}: {report:?}", answers = v["answers"]));
        Rules::compile(&a, &Tuning::default()).expect("compiles")
    }

    fn answers_by_slot(v: &serde_json::Value) -> bool {
        v["answers"]["type-restriction"] == "by-slot"
    }

    fn rules(capacity: &str, fill: &str, restriction: &str) -> Rules {
        adopt(
            serde_json::json!({"capacity-limit": capacity, "partial-acceptance": "fill-what-fits",
                "leftover-destination": "left-where-it-is", "fill-order": fill,
                "draw-order": "first-in-order", "type-restriction": restriction}),
            4,
        )
    }

    /// A backpack's known answers are the ones its rules give; rules of
    /// another shape are not taken for one.
    #[test]
    fn the_backpack_shape_answers_as_its_rules_do() {
        for restriction in ["any-item", "only-these"] {
            let r = rules("slot-count", "top-up-then-first-empty", restriction);
            assert!(Backpack::fits(&r), "{restriction}");
            assert_eq!(Backpack::capacity(&r), AnyShape::capacity(&r));
            assert_eq!(Backpack::fill(&r), AnyShape::fill(&r));
            assert_eq!(Backpack::by_slot(&r), AnyShape::by_slot(&r));
            assert_eq!(Backpack::has_budget(&r), r.has_budget());
            assert_eq!(Backpack::has_slot_limit(&r), r.has_slot_limit());
        }
        let others = [
            ("slots-and-size", "top-up-then-first-empty", "any-item"),
            ("no-limit", "top-up-then-first-empty", "any-item"),
            ("size-budget", "top-up-then-first-empty", "any-item"),
            ("slot-count", "first-slot-that-fits", "any-item"),
            ("slot-count", "append", "any-item"),
            ("slot-count", "not-applicable", "any-item"),
            ("slot-count", "top-up-then-first-empty", "by-slot"),
        ];
        for (capacity, fill, restriction) in others {
            let r = rules(capacity, fill, restriction);
            assert!(!Backpack::fits(&r), "{capacity} {fill} {restriction}");
        }
    }

    /// A backpack's delivery compiled for its shape does exactly what the
    /// same delivery reading its rules does: the same outcome, and the
    /// same contents after it (slots, index, counters), over random days
    /// of deliveries and takes, with and without properties, under every
    /// partial acceptance and leftover destination, with listed types,
    /// unlisted ones and (under `only-these`) refused ones.
    #[test]
    fn a_backpack_delivers_as_its_rules_read() {
        let mut seed = 0xBAC4_9ACBu64;
        let mut next = move |n: u64| crate::splitmix::below(&mut seed, n);
        let names = ["berries", "arrows", "axe", "flint", "letter"];
        let ripe = Props::new([("ripe", true)]).expect("props");
        let mut compared = 0;
        for restriction in ["any-item", "only-these"] {
            for partial in ["fill-what-fits", "all-or-nothing"] {
                for leftover in ["left-where-it-is", "back-to-the-sender", "destroyed"] {
                    let rules = Arc::new(adopt(
                        serde_json::json!({"capacity-limit": "slot-count",
                            "partial-acceptance": partial, "leftover-destination": leftover,
                            "fill-order": "top-up-then-first-empty", "draw-order": "first-in-order",
                            "type-restriction": restriction}),
                        6,
                    ));
                    assert!(Backpack::fits(&rules));
                    let mut c = Contents::new(rules);
                    for _ in 0..600 {
                        let item = names[next(names.len() as u64) as usize];
                        let amount = next(30) as u32;
                        if next(5) < 2 {
                            c.take_slot(next(7) as u32, amount);
                            continue;
                        }
                        let props = if next(4) == 0 {
                            ripe.clone()
                        } else {
                            Props::EMPTY
                        };
                        let mut read = c.clone();
                        let known = c.deliver_shaped::<Backpack>(item, &props, amount);
                        let answered = read.deliver_shaped::<AnyShape>(item, &props, amount);
                        assert_eq!(known, answered, "{item} x{amount}");
                        assert_eq!(format!("{c:?}"), format!("{read:?}"), "{item} x{amount}");
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 3000, "{compared} deliveries compared");
    }
}
