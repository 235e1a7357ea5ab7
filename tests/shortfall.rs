//! Outcomes that explain a shortfall: a delivery, a pick-up and a transfer
//! that accept fewer items than offered name the limit they ran into
//! (`limited_by`), and `would_accept_why` names it before the drop. Each
//! limit is named on each path: the engine's delivery and transfer, and
//! the plugin's pick-up and transfer.

mod common;

use std::sync::Arc;

use bevy::prelude::*;
use bevy_container::adoption::{Adoption, Tuning};
use bevy_container::contents::{Contents, LimitedBy, Reason, SlotRules, TransferRequest};
use bevy_container::plugin::*;
use bevy_container::rules::Rules;
use common::*;
use serde_json::{Value, json};

// ---- the containers ----

/// One answer set with a capacity, a fill order and a type restriction
/// (a leftover is left where it is).
fn answers(capacity: &str, partial: &str, fill: &str, restriction: &str) -> Value {
    let mut a = json!({
        "capacity-limit": capacity, "partial-acceptance": partial, "fill-order": fill,
        "draw-order": "first-in-order", "type-restriction": restriction,
    });
    if partial == "fill-what-fits" {
        a["leftover-destination"] = json!("left-where-it-is");
    }
    a
}

/// Arrows stacking to 5 in `slots` slots (`fill-what-fits` or
/// `all-or-nothing`).
fn quiver(slots: u32, partial: &str) -> Adoption {
    read(&adoption_json(
        answers("slot-count", partial, "top-up-then-first-empty", "any-item"),
        slots,
        0.0,
        json!([{"id": "arrow", "stack-limit": 5, "when-forced-out": "dropped-nearby", "forced-out-order": 1}]),
    ))
}

/// Fill order `not-applicable`: each listed type keeps its own slot; a
/// ring's slot (slot 2) holds 2.
fn jewel_box() -> Adoption {
    let mut a = answers(
        "slot-count",
        "fill-what-fits",
        "not-applicable",
        "only-these",
    );
    a["draw-order"] = json!("not-applicable");
    read(&adoption_json(
        a,
        3,
        0.0,
        json!([
            {"id": "helmet", "stack-limit": 1, "when-forced-out": "dropped-nearby", "forced-out-order": 1},
            {"id": "boots", "stack-limit": 1, "when-forced-out": "dropped-nearby", "forced-out-order": 2},
            {"id": "ring", "stack-limit": 2, "when-forced-out": "never"}
        ]),
    ))
}

/// Four slots and a weight budget of 12.5: anvils (10) and ingots (0.5)
/// only.
fn anvil_bag() -> Adoption {
    read(&adoption_json(
        answers(
            "slots-and-size",
            "fill-what-fits",
            "top-up-then-first-empty",
            "only-these",
        ),
        4,
        12.5,
        json!([
            {"id": "anvil", "stack-limit": 1, "size": 10, "when-forced-out": "dropped-nearby", "forced-out-order": 1},
            {"id": "ingot", "stack-limit": 10, "size": 0.5, "when-forced-out": "dropped-nearby", "forced-out-order": 2}
        ]),
    ))
}

/// `by-slot` equipment: slot 0 takes a helmet, slots 1 and 2 potions.
fn equipment() -> Contents {
    let adoption = read(&adoption_json(
        answers(
            "slot-count",
            "fill-what-fits",
            "first-slot-that-fits",
            "by-slot",
        ),
        3,
        0.0,
        json!([
            {"id": "helmet", "slot-rules-declared-in": "02-mechanics.md#equipment", "stack-limit": 1,
             "when-forced-out": "dropped-nearby", "forced-out-order": 1},
            {"id": "potion", "slot-rules-declared-in": "02-mechanics.md#equipment", "stack-limit": 5,
             "when-forced-out": "never"}
        ]),
    ));
    engine(&adoption).with_slot_rules(SlotRules::new([
        vec!["helmet"],
        vec!["potion"],
        vec!["potion"],
    ]))
}

/// A slotless deck (budget 30) of zero-size tokens, all or nothing.
fn token_deck() -> Adoption {
    read(&json!({
        "contract": "container", "version": 1,
        "answers": {"capacity-limit": "size-budget", "partial-acceptance": "all-or-nothing",
                    "draw-order": "not-applicable", "type-restriction": "any-item"},
        "values": {"slot-count": 0, "size-budget": 30},
        "rows": {"items": [
            {"id": "token", "size": 0, "when-forced-out": "dropped-nearby", "forced-out-order": 1}
        ]},
    }))
}

fn engine(adoption: &Adoption) -> Contents {
    let rules = Rules::compile(adoption, &Tuning::default()).expect("test rules compile");
    Contents::new(Arc::new(rules))
}

fn backpack() -> Contents {
    engine(&seed())
}

// ---- deliveries ----

#[test]
fn a_delivery_that_fits_names_no_limit() {
    let mut bag = backpack();
    assert_eq!(bag.deliver("berries", 25).limited_by, None);
    assert_eq!(bag.deliver("axe", 0).limited_by, None);
    assert_eq!(bag.would_accept_why("berries", 5, None).limited_by, None);
}

#[test]
fn a_full_backpack_is_limited_by_its_slots() {
    let mut bag = backpack();
    let d = bag.deliver("berries", 250);
    assert_eq!(d.accepted, 240, "12 slots of 20");
    assert_eq!(d.leftover.as_ref().map(|l| l.amount), Some(10));
    assert_eq!(d.limited_by, Some(LimitedBy::Slots));
    let dry = bag.would_accept_why("axe", 1, None);
    assert_eq!((dry.accepted, dry.limited_by), (0, Some(LimitedBy::Slots)));
}

#[test]
fn a_types_own_slot_full_at_its_limit_is_the_stack_limit() {
    let mut jewels = engine(&jewel_box());
    let d = jewels.deliver("ring", 3);
    assert_eq!(d.accepted, 2);
    assert_eq!(d.limited_by, Some(LimitedBy::StackLimit));
    let dry = jewels.would_accept_why("ring", 1, None);
    assert_eq!(
        (dry.accepted, dry.limited_by),
        (0, Some(LimitedBy::StackLimit))
    );
}

#[test]
fn a_spent_budget_is_the_size_budget_even_with_free_slots() {
    let mut bag = engine(&anvil_bag());
    assert_eq!(bag.deliver("anvil", 1).limited_by, None);
    let d = bag.deliver("anvil", 1);
    assert_eq!((d.accepted, d.limited_by), (0, Some(LimitedBy::SizeBudget)));
    assert_eq!(
        d.limited_by.map(|l| l.to_string()).as_deref(),
        Some("too heavy: the size budget is spent")
    );
    let d = bag.deliver("ingot", 8);
    assert_eq!((d.accepted, d.limited_by), (5, Some(LimitedBy::SizeBudget)));
}

#[test]
fn a_type_kept_out_is_an_entry_rule() {
    let mut bag = engine(&anvil_bag());
    let d = bag.deliver("lantern", 1);
    assert_eq!(d.refused.map(|r| r.reason), Some(Reason::TypeRestriction));
    assert_eq!(d.limited_by, Some(LimitedBy::EntryRule));
    // by-slot: the helmet's one slot is taken and the free ones take potions
    let mut gear = equipment();
    assert_eq!(gear.deliver("helmet", 1).limited_by, None);
    let d = gear.deliver("helmet", 1);
    assert_eq!((d.accepted, d.limited_by), (0, Some(LimitedBy::EntryRule)));
    assert_eq!(
        gear.would_accept_why("helmet", 1, None).limited_by,
        Some(LimitedBy::EntryRule)
    );
    // with no free slot left it is the slots
    assert_eq!(gear.deliver("potion", 10).accepted, 10);
    assert_eq!(gear.deliver("potion", 1).limited_by, Some(LimitedBy::Slots));
}

#[test]
fn a_holding_at_the_most_it_counts_is_a_ceiling() {
    let mut deck = engine(&token_deck());
    assert_eq!(deck.deliver("token", u32::MAX).accepted, u32::MAX);
    let d = deck.deliver("token", 1);
    assert_eq!(d.refused.map(|r| r.reason), Some(Reason::DoesNotFit));
    assert_eq!(d.limited_by, Some(LimitedBy::Ceiling));
}

#[test]
fn all_or_nothing_refuses_with_the_limit_that_made_it_refuse() {
    let mut quiver = engine(&quiver(1, "all-or-nothing"));
    quiver.deliver("arrow", 3);
    let d = quiver.deliver("arrow", 4);
    assert_eq!(d.refused.map(|r| r.reason), Some(Reason::DoesNotFit));
    assert_eq!(d.limited_by, Some(LimitedBy::Slots));
    let dry = quiver.would_accept_why("arrow", 4, None);
    assert_eq!(dry.refused, Some(Reason::DoesNotFit));
    assert_eq!(dry.limited_by, Some(LimitedBy::Slots));
    assert_eq!(dry.result(), quiver.would_accept("arrow", 4, None));
}

// ---- transfers ----

#[test]
fn a_drop_onto_a_stack_is_limited_by_its_stack_limit() {
    let (mut chest, mut bag) = (backpack(), backpack());
    chest.deliver("berries", 5);
    bag.deliver("berries", 18);
    let req = TransferRequest::from_slot(0, 5).to_slot(0);
    let dry = bag.would_accept_why("berries", 5, Some(0));
    let t = chest.transfer(&mut bag, &req);
    assert_eq!((t.moved, t.shortfall), (2, 0));
    assert_eq!(t.limited_by, Some(LimitedBy::StackLimit));
    assert_eq!((dry.accepted, dry.limited_by), (t.moved, t.limited_by));
    assert_eq!(chest.count("berries"), 3, "the rest stayed in the chest");
}

#[test]
fn a_transfer_to_a_full_target_is_limited_by_its_slots() {
    let (mut chest, mut target) = (
        engine(&quiver(4, "fill-what-fits")),
        engine(&quiver(1, "fill-what-fits")),
    );
    chest.deliver("arrow", 8);
    target.deliver("arrow", 5);
    let t = chest.transfer(&mut target, &TransferRequest::item("arrow", 8));
    assert_eq!((t.moved, t.refused), (0, None));
    assert_eq!(t.limited_by, Some(LimitedBy::Slots));
    assert_eq!(chest.count("arrow"), 8);
    // a named slot holding another type: refused occupied, the slots
    let (mut chest, mut bag) = (backpack(), backpack());
    chest.deliver("berries", 5);
    bag.deliver("letter", 1);
    let t = chest.transfer(&mut bag, &TransferRequest::from_slot(0, 3).to_slot(0));
    assert_eq!(t.refused, Some(Reason::Occupied));
    assert_eq!(t.limited_by, Some(LimitedBy::Slots));
}

#[test]
fn a_transfer_into_a_spent_budget_is_too_heavy() {
    let (mut chest, mut bag) = (backpack(), engine(&anvil_bag()));
    chest.deliver("anvil", 1);
    bag.deliver("anvil", 1);
    let dry = bag.would_accept_why("anvil", 1, None);
    let t = chest.transfer(&mut bag, &TransferRequest::item("anvil", 1));
    assert_eq!((t.moved, t.refused), (0, None));
    assert_eq!(t.limited_by, Some(LimitedBy::SizeBudget));
    assert_eq!((dry.accepted, dry.limited_by), (0, t.limited_by));
    // into a named empty slot: the budget too, not the stack
    let t = chest.transfer(&mut bag, &TransferRequest::from_slot(0, 1).to_slot(3));
    assert_eq!((t.moved, t.limited_by), (0, Some(LimitedBy::SizeBudget)));
}

#[test]
fn a_transfer_the_target_keeps_out_is_an_entry_rule() {
    let (mut chest, mut bag) = (backpack(), engine(&anvil_bag()));
    chest.deliver("berries", 5);
    let t = chest.transfer(&mut bag, &TransferRequest::item("berries", 5));
    assert_eq!(t.refused, Some(Reason::TypeRestriction));
    assert_eq!(t.limited_by, Some(LimitedBy::EntryRule));
    // a slot of another type's own
    let (mut chest, mut jewels) = (engine(&jewel_box()), engine(&jewel_box()));
    chest.deliver("ring", 1);
    let t = chest.transfer(&mut jewels, &TransferRequest::from_slot(2, 1).to_slot(0));
    assert_eq!(t.refused, Some(Reason::NoReservedSlot));
    assert_eq!(t.limited_by, Some(LimitedBy::EntryRule));
    let dry = jewels.would_accept_why("ring", 1, Some(0));
    assert_eq!((dry.refused, dry.limited_by), (t.refused, t.limited_by));
}

#[test]
fn a_source_with_too_few_is_a_shortfall_not_a_limit() {
    let (mut chest, mut bag) = (backpack(), backpack());
    chest.deliver("berries", 3);
    let t = chest.transfer(&mut bag, &TransferRequest::from_slot(0, 10));
    assert_eq!((t.moved, t.shortfall, t.limited_by), (3, 7, None));
}

#[test]
fn an_all_or_nothing_target_refuses_with_its_limit() {
    let (mut chest, mut target) = (
        engine(&quiver(4, "fill-what-fits")),
        engine(&quiver(1, "all-or-nothing")),
    );
    chest.deliver("arrow", 8);
    let t = chest.transfer(&mut target, &TransferRequest::item("arrow", 8));
    assert_eq!(t.refused, Some(Reason::DoesNotFit));
    assert_eq!(t.limited_by, Some(LimitedBy::Slots));
    assert_eq!((chest.count("arrow"), target.count("arrow")), (8, 0));
}

#[test]
fn a_move_within_a_container_stops_at_the_stack_limit() {
    let mut bag = backpack();
    bag.deliver("berries", 26); // 20 in slot 0, 6 in slot 1
    bag.take_from("berries", 3, 0); // 17 in slot 0
    let t = bag.transfer_within(&TransferRequest::from_slot(1, 6).to_slot(0));
    assert_eq!((t.moved, t.limited_by), (3, Some(LimitedBy::StackLimit)));
    let t = bag.transfer_within(&TransferRequest::from_slot(1, 3).to_slot(2));
    assert_eq!((t.moved, t.limited_by), (3, None));
}

// ---- the plugin: pick-ups and transfers ----

/// Spawns a loose pickup of `amount` `item`s and picks it up into
/// `container`; returns the delivery's message.
fn pick_up(app: &mut App, container: Entity, item: &str, amount: u32) -> ItemsDelivered {
    let pickup = app
        .world_mut()
        .spawn(LoosePickup {
            item: item.into(),
            props: Default::default(),
            amount,
        })
        .id();
    send(app, PickUp { container, pickup });
    app.world()
        .resource::<Seen>()
        .delivered
        .last()
        .cloned()
        .expect("the pick-up was answered")
}

#[test]
fn a_pick_up_names_each_limit() {
    let mut app = app();
    let (quiver, _) = spawn(&mut app, quiver(1, "fill-what-fits"), Vec3::ZERO);
    let (jewels, _) = spawn(&mut app, jewel_box(), Vec3::ZERO);
    let (bag, _) = spawn(&mut app, anvil_bag(), Vec3::ZERO);

    let all = pick_up(&mut app, quiver, "arrow", 2);
    assert_eq!((all.outcome.accepted, all.outcome.limited_by), (2, None));

    let slots = pick_up(&mut app, quiver, "arrow", 8);
    assert_eq!(slots.outcome.accepted, 3);
    assert_eq!(slots.outcome.limited_by, Some(LimitedBy::Slots));

    let stack = pick_up(&mut app, jewels, "ring", 3);
    assert_eq!(stack.outcome.accepted, 2);
    assert_eq!(stack.outcome.limited_by, Some(LimitedBy::StackLimit));

    let heavy = pick_up(&mut app, bag, "anvil", 2);
    assert_eq!(heavy.outcome.accepted, 1);
    assert_eq!(heavy.outcome.limited_by, Some(LimitedBy::SizeBudget));

    let kept_out = pick_up(&mut app, bag, "lantern", 1);
    assert_eq!(kept_out.outcome.accepted, 0);
    assert_eq!(kept_out.outcome.limited_by, Some(LimitedBy::EntryRule));
}

#[test]
fn a_transfer_through_the_plugin_says_it_was_too_heavy() {
    let mut app = app();
    let (chest, _) = spawn(&mut app, anvil_bag(), Vec3::ZERO);
    let (bag, _) = spawn(&mut app, anvil_bag(), Vec3::ZERO);
    for container in [chest, bag] {
        deliver(&mut app, container, "anvil", 1, None);
    }
    send(
        &mut app,
        Transfer {
            from: chest,
            to: bag,
            request: TransferRequest::item("anvil", 1),
        },
    );
    let t = app
        .world()
        .resource::<Seen>()
        .transferred
        .last()
        .cloned()
        .expect("the transfer was answered");
    assert_eq!((t.outcome.moved, t.outcome.refused), (0, None));
    assert_eq!(t.outcome.limited_by, Some(LimitedBy::SizeBudget));
    assert_eq!(
        t.outcome.limited_by.map(|l| l.to_string()).as_deref(),
        Some("too heavy: the size budget is spent")
    );
}
