//! Unit tests of `forced`.

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

// ---- the steps of a reshape, one at a time ----

use serde_json::{Value, json};

/// A row: `order` is the forced-out order of a movable type.
fn row(id: &str, limit: u32, size: f64, forced: &str, order: i64) -> Value {
    json!({"id": id, "stack-limit": limit, "size": size,
        "when-forced-out": forced, "forced-out-order": order})
}

/// Compiled rules for a hand-written adoption; each row's fields are
/// cut to what `capacity` and `restrict` use, as an adoption has them.
fn rules(capacity: &str, restrict: &str, slots: u32, budget: f64, rows: &[Value]) -> Arc<Rules> {
    let has_slots = capacity != "size-budget";
    let has_budget = matches!(capacity, "size-budget" | "slots-and-size");
    let items: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut r = r.as_object().expect("a row").clone();
            if !has_slots {
                r.remove("stack-limit");
            }
            if !has_budget {
                r.remove("size");
            }
            if r["when-forced-out"] == "never" {
                r.remove("forced-out-order");
            }
            if restrict == "by-slot" {
                r.insert(
                    "slot-rules-declared-in".into(),
                    json!("02-mechanics.md#slots"),
                );
            }
            Value::Object(r)
        })
        .collect();
    let mut answers = json!({"capacity-limit": capacity, "draw-order": "first-in-order",
        "type-restriction": restrict});
    if capacity != "no-limit" {
        answers["partial-acceptance"] = json!("fill-what-fits");
        answers["leftover-destination"] = json!("destroyed");
    }
    if has_slots {
        answers["fill-order"] = json!("first-slot-that-fits");
    }
    let v = json!({"contract": "container", "version": 1, "answers": answers,
        "values": {"slot-count": if has_slots { slots } else { 0 },
            "size-budget": if has_budget { budget } else { 0.0 }},
        "rows": {"items": items}});
    let (report, a) = adoption::validate(&v, Context::default());
    let a = a.unwrap_or_else(|| panic!("test adoption is valid: {report}"));
    Arc::new(Rules::compile(&a, &crate::adoption::Tuning::default()).expect("compiles"))
}

/// Contents under `rules` holding exactly `slots` (slot `k` is
/// `slots[k]`), each stack's counters its slot number.
fn holding(rules: &Arc<Rules>, slots: &[Option<(&str, u32)>]) -> Contents {
    let mut c = Contents::new(rules.clone());
    for (s, st) in slots.iter().enumerate() {
        let Some((item, amount)) = *st else { continue };
        let size = rules.row(item).map_or(Decimal::ZERO, |r| r.size);
        c.size_used = c.size_used.plus(size.times(amount));
        let stack = Stack {
            item: ItemType::from(item),
            amount,
            props: Default::default(),
            began: s as u64,
            last_received: s as u64,
        };
        c.put_stack(s as u32, stack);
    }
    c
}

fn to(rules: &Arc<Rules>, slot_count: u32, size_budget: &str) -> Target {
    Target {
        rules: rules.clone(),
        limits: Limits {
            slot_count,
            size_budget: size_budget.parse().unwrap(),
        },
        slot_rules: None,
        earlier: Vec::new(),
    }
}

/// The pieces as (type, amount, old slot, first piece).
fn pieces(l: &Layout) -> Vec<(&str, u32, Option<u32>, bool)> {
    l.pieces
        .iter()
        .map(|p| (p.stack.item.as_str(), p.stack.amount, p.old_slot, p.first))
        .collect()
}

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn short(slots: u64, size: &str, held_by: &[&str]) -> Shortfall {
    Shortfall {
        slots,
        size: d(size),
        held_by: held_by.iter().map(|&t| ItemType::from(t)).collect(),
    }
}

const Z: &str = "zz-unlisted";

/// Apple (order 2) and bolt (order 1) move; coin never leaves.
fn three(limit: u32) -> [Value; 3] {
    [
        row("apple", limit, 1.0, "dropped-nearby", 2),
        row("bolt", limit, 0.0, "destroyed", 1),
        row("coin", limit, 0.5, "never", 0),
    ]
}

#[test]
fn the_layout_splits_stacks_over_a_lowered_limit_and_knows_each_types_terms() {
    let old = rules("slot-count", "any-item", 4, 0.0, &three(5));
    let c = holding(
        &old,
        &[Some(("apple", 5)), Some((Z, 1)), None, Some(("bolt", 2))],
    );
    let new = rules("slot-count", "only-these", 4, 0.0, &three(2));
    let l = c.layout(&to(&new, 4, "0")).expect("lays out");
    assert_eq!(
        pieces(&l),
        [
            ("apple", 2, Some(0), true),
            ("apple", 2, Some(0), false),
            ("apple", 1, Some(0), false),
            (Z, 1, Some(1), true),
            ("bolt", 2, Some(3), true),
        ]
    );
    assert_eq!(l.kinds.len(), 3, "one kind per type");
    assert_eq!((l.has_slots, l.available), (true, 4));
    assert_eq!(l.terms(0).map(|t| t.limit), Some(2));
    assert_eq!(l.terms(3), None, "only-these refuses the unlisted type");
    assert_eq!(l.leaves(2), Some(((2, 0), WhenForcedOut::DroppedNearby)));
    assert_eq!(l.leaves(4), Some(((1, 1), WhenForcedOut::Destroyed)));
    assert_eq!(l.leaves(3), None, "no rule lists it");
    // a row a save recorded counts after every listed row
    let mut t = to(&new, 4, "0");
    t.earlier = vec![(Z.to_string(), WhenForcedOut::Destroyed, Some(-5))];
    let l = c.layout(&t).expect("lays out");
    assert_eq!(
        l.leaves(3),
        Some(((-5, usize::MAX / 2), WhenForcedOut::Destroyed))
    );
    // under the old rules (and no-limit's ceiling) nothing splits
    let open = rules("no-limit", "any-item", 0, 0.0, &three(5));
    let l = c.layout(&to(&open, 0, "0")).expect("lays out");
    assert_eq!(pieces(&l).len(), 3);
    assert_eq!(l.available, MAX_SLOTS);
}

#[test]
fn what_must_leave_leaves_whole_in_leaving_order_or_refuses() {
    let old = rules("slot-count", "any-item", 4, 0.0, &three(5));
    let c = holding(
        &old,
        &[
            Some(("apple", 5)),
            Some(("bolt", 2)),
            Some(("apple", 3)),
            None,
        ],
    );
    // owner gone: bolt (order 1), then apple from its last slot back
    let l = c.layout(&to(&old, 4, "0")).expect("lays out");
    let out = l.must_leave(true).expect("all movable");
    assert_eq!(out.removed, [(1, 2), (2, 3), (0, 5)]);
    assert_eq!(out.gone, [true; 3]);
    // nothing is refused outright: nothing must leave
    let out = l.must_leave(false).expect("nothing to refuse");
    assert!(out.removed.is_empty() && out.gone == [false; 3]);
    // a type the new rules refuse leaves in full, the rest stays
    let c = holding(
        &old,
        &[Some(("apple", 5)), Some((Z, 1)), Some(("apple", 1))],
    );
    let mut t = to(
        &rules("slot-count", "only-these", 4, 0.0, &three(5)),
        4,
        "0",
    );
    t.earlier = vec![(Z.to_string(), WhenForcedOut::Destroyed, None)];
    let out = c
        .layout(&t)
        .expect("lays out")
        .must_leave(false)
        .expect("it may leave");
    assert_eq!(out.removed, [(1, 1)]);
    assert_eq!(out.gone, [false, true, false]);
    // pieces that never leave refuse: one slot short per piece
    let c = holding(&old, &[Some(("coin", 5)), Some((Z, 1)), Some(("coin", 2))]);
    let l = c.layout(&to(&old, 4, "0")).expect("lays out");
    assert_eq!(l.must_leave(true).unwrap_err(), short(3, "0", &["coin", Z]));
}

#[test]
fn what_leaves_for_room_is_whole_stacks_for_slots_and_items_for_budget() {
    let old = rules("slot-count", "any-item", 6, 0.0, &three(5));
    let c = holding(
        &old,
        &[
            Some(("apple", 1)),
            Some(("bolt", 1)),
            Some(("coin", 1)),
            Some(("apple", 2)),
            Some((Z, 1)),
            Some(("bolt", 1)),
        ],
    );
    // three slots short: bolt from slot 5 back, then apple from slot 3;
    // coin (never) and the unlisted type are skipped
    let mut l = c.layout(&to(&old, 3, "0")).expect("lays out");
    let mut out = l.must_leave(false).unwrap();
    l.leave_for_room(&mut out, &old, Decimal::ZERO)
        .expect("enough leave");
    assert_eq!(out.removed, [(5, 1), (1, 1), (3, 2)]);
    assert_eq!(out.gone, [false, true, false, true, false, true]);
    // five short but only four may leave
    let mut l = c.layout(&to(&old, 1, "0")).expect("lays out");
    let mut out = l.must_leave(false).unwrap();
    let err = l.leave_for_room(&mut out, &old, Decimal::ZERO).unwrap_err();
    assert_eq!(err, short(1, "0", &["coin", Z]));

    // budget: only as many items as close it; bolt (size 0) never helps
    let sized = rules("slots-and-size", "any-item", 4, 10.0, &three(10));
    let c = holding(
        &sized,
        &[
            Some(("apple", 4)),
            Some(("bolt", 3)),
            Some(("apple", 4)),
            Some(("coin", 2)),
        ],
    );
    assert_eq!(c.size_used, d("9"));
    let mut l = c.layout(&to(&sized, 4, "6")).expect("lays out");
    let mut out = l.must_leave(false).unwrap();
    l.leave_for_room(&mut out, &sized, d("6"))
        .expect("apple closes it");
    assert_eq!(out.removed, [(2, 3)]);
    assert_eq!(out.gone, [false; 4], "a partial removal keeps the piece");
    assert_eq!(l.pieces[2].stack.amount, 1, "the piece keeps the rest");
    // too little may leave: coin holds the last half
    let mut l = c.layout(&to(&sized, 4, "0.5")).expect("lays out");
    let mut out = l.must_leave(false).unwrap();
    let err = l.leave_for_room(&mut out, &sized, d("0.5")).unwrap_err();
    assert_eq!(err, short(0, "0.5", &["coin"]));
    assert_eq!(
        out.removed,
        [(2, 4), (0, 4)],
        "whole stacks as far as they went"
    );
}

#[test]
fn kept_pieces_keep_their_slot_or_move_to_free_slots_in_old_slot_order() {
    let old = rules("slot-count", "any-item", 6, 0.0, &three(4));
    let c = holding(
        &old,
        &[
            Some(("apple", 4)),
            None,
            Some(("bolt", 1)),
            None,
            Some(("apple", 1)),
            Some(("bolt", 4)),
        ],
    );
    // a shrink: slots 4 and 5 move to 1 and 3; apple in 1 does not
    // merge into slot 0
    let l = c.layout(&to(&old, 4, "0")).expect("lays out");
    let mut out = l.must_leave(false).unwrap();
    let placed = l.place(&mut out, &old, None).expect("room for all");
    assert_eq!(placed, [(0, 0), (2, 1), (1, 2), (3, 3)]);
    assert!(out.removed.is_empty());
    // a lowered limit: first pieces keep their slots, the rest fill the
    // free slots in ascending order
    let lower = rules("slot-count", "any-item", 8, 0.0, &three(2));
    let l = c.layout(&to(&lower, 8, "0")).expect("lays out");
    assert_eq!(l.pieces.len(), 6);
    let mut out = l.must_leave(false).unwrap();
    let placed = l.place(&mut out, &lower, None).expect("room for all");
    assert_eq!(placed, [(0, 0), (2, 2), (4, 3), (5, 4), (1, 1), (3, 5)]);
    // too few slots: a movable piece without one leaves whole
    let l = c.layout(&to(&lower, 5, "0")).expect("lays out");
    let mut out = l.must_leave(false).unwrap();
    let placed = l.place(&mut out, &lower, None).expect("bolt may leave");
    assert_eq!(placed, [(0, 0), (2, 2), (4, 3), (1, 1), (3, 4)]);
    assert_eq!(out.removed, [(5, 2)]);
}

#[test]
fn pieces_a_slot_no_longer_accepts_move_leave_or_refuse() {
    let by_slot = |bolt: &str| {
        let rows = [
            row("apple", 3, 0.0, "dropped-nearby", 1),
            row("bolt", 3, 0.0, bolt, 2),
        ];
        rules("slot-count", "by-slot", 3, 0.0, &rows)
    };
    for bolt in ["destroyed", "never"] {
        let r = by_slot(bolt);
        let c = holding(
            &r,
            &[Some(("apple", 1)), Some(("bolt", 1)), Some(("bolt", 2))],
        )
        .with_slot_rules(SlotRules::new([vec!["apple"], vec!["bolt"], vec!["bolt"]]));
        let swapped = SlotRules::new([vec!["bolt"], vec!["apple"], vec!["apple"]]);
        let mut t = to(&r, 3, "0");
        t.slot_rules = Some(Arc::new(swapped.clone()));
        let l = c.layout(&t).expect("lays out");
        let mut out = l.must_leave(false).unwrap();
        let placed = l.place(&mut out, &r, Some(&swapped));
        if bolt == "never" {
            assert_eq!(placed.unwrap_err(), short(1, "0", &["bolt"]));
        } else {
            // every piece moves; with slot rules each search starts at 0
            assert_eq!(placed.unwrap(), [(1, 0), (0, 1)]);
            assert_eq!(out.removed, [(2, 2)]);
        }
    }
}

#[test]
fn slotless_holdings_refuse_to_pass_one_amount() {
    let terms = TypeTerms {
        limit: u32::MAX,
        size: Decimal::ZERO,
        leaves_to: None,
        order: (i64::MAX, usize::MAX),
        reserved: None,
    };
    let piece = |amount| Piece {
        stack: Stack {
            item: ItemType::from("apple"),
            amount,
            props: Default::default(),
            began: 0,
            last_received: 0,
        },
        old_slot: None,
        first: true,
        kind: 0,
    };
    let l = Layout {
        pieces: vec![piece(u32::MAX), piece(1)],
        kinds: vec![(Some(terms), Some(((0, 0), WhenForcedOut::Destroyed)))],
        has_slots: false,
        available: 0,
    };
    let r = rules("size-budget", "any-item", 0, 10.0, &three(1));
    let mut out = Leaving::none(2);
    assert_eq!(
        l.place(&mut out, &r, None).unwrap_err(),
        short(0, "0", &["apple"])
    );
    out.take(1, 1, true);
    assert!(l.place(&mut out, &r, None).unwrap().is_empty());
}

#[test]
fn applying_lays_down_the_plan_and_reports_the_portions_in_order() {
    let sized = rules("slots-and-size", "any-item", 4, 10.0, &three(10));
    let mut c = holding(
        &sized,
        &[
            Some(("apple", 4)),
            Some(("bolt", 3)),
            Some(("apple", 4)),
            Some(("coin", 2)),
        ],
    );
    let t = to(&sized, 4, "6");
    let mut l = c.layout(&t).expect("lays out");
    let (out, placed) = l.plan(false, &t).expect("fits");
    let f = c.apply(Cause::Shrink, t, l, out, placed);
    let portion = Portion {
        item: ItemType::from("apple"),
        props: Default::default(),
        amount: 3,
        slot: Some(2),
        to: WhenForcedOut::DroppedNearby,
    };
    assert_eq!(f.portions, [portion]);
    assert_eq!((f.cause, f.refused), (Cause::Shrink, None));
    let want: [(&str, u32, u64); 4] = [
        ("apple", 4, 0),
        ("bolt", 3, 1),
        ("apple", 1, 2),
        ("coin", 2, 3),
    ];
    let want: Vec<Option<(String, u32, u64, u64)>> = want
        .iter()
        .map(|&(t, n, s)| Some((t.to_string(), n, s, s)))
        .collect();
    assert_eq!(view(&c), want, "stacks keep their slots and counters");
    assert_eq!(c.size_used(), d("6"));
    assert_eq!(c.limits().size_budget, d("6"));
    assert_eq!(c.count("apple"), 5);

    // to a slotless container: one holding per type
    let old = rules("slot-count", "any-item", 4, 0.0, &three(5));
    let mut c = holding(
        &old,
        &[Some(("apple", 4)), Some(("apple", 3)), Some(("bolt", 2))],
    );
    let budget = rules("size-budget", "any-item", 0, 100.0, &three(5));
    let t = to(&budget, 0, "100");
    let mut l = c.layout(&t).expect("lays out");
    let (out, placed) = l.plan(false, &t).expect("fits");
    assert!(placed.is_empty());
    let f = c.apply(Cause::RulesChanged, t, l, out, placed);
    assert!(f.portions.is_empty());
    let held: Vec<(String, u32)> = c.holdings().map(|(k, n)| (k.to_string(), n)).collect();
    assert_eq!(held, [("apple".to_string(), 7), ("bolt".to_string(), 2)]);
    assert_eq!(c.size_used(), d("7"));
    assert_eq!(c.slot_len(), 0);
    assert!(Arc::ptr_eq(c.rules(), &budget));
}

#[test]
fn more_pieces_than_any_container_has_slots_are_refused_before_any_is_made() {
    // a stack of u32::MAX arrows under a stack limit of 1 would be four
    // billion pieces: refused whole, counted, not made
    let old = rules(
        "slot-count",
        "any-item",
        4,
        0.0,
        &[row("arrow", u32::MAX, 0.0, "dropped-nearby", 1)],
    );
    let c = holding(&old, &[Some(("arrow", u32::MAX))]);
    let tight = rules(
        "slot-count",
        "any-item",
        4,
        0.0,
        &[row("arrow", 1, 0.0, "dropped-nearby", 1)],
    );
    let Err(short) = c.layout(&to(&tight, 4, "0")) else {
        panic!("a layout of four billion pieces");
    };
    assert_eq!(short.slots, u64::from(u32::MAX) - 4);
    assert_eq!(short.held_by, [ItemType::from("arrow")]);
    // and a million pieces, within any container's slots, still lay out
    let c = holding(&old, &[Some(("arrow", 1 << 20))]);
    let l = c.layout(&to(&tight, 4, "0")).expect("lays out");
    assert_eq!(l.pieces.len(), 1 << 20);
}
