//! Settling in the world: every leftover and forced-out path, with its
//! fallback, through the plugin in a headless app.

mod common;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_container::plugin::*;
use common::*;
use serde_json::json;

fn arrows(leftover: &str, slots: u32) -> bevy_container::adoption::Adoption {
    read(&adoption_json(
        slot_answers(leftover),
        slots,
        0.0,
        json!([{"id": "arrow", "stack-limit": 5, "when-forced-out": "dropped-nearby", "forced-out-order": 1}]),
    ))
}

#[test]
fn left_where_it_is_becomes_a_pickup_beside_the_container() {
    let mut app = app();
    let (bag, _) = spawn(
        &mut app,
        arrows("left-where-it-is", 1),
        Vec3::new(100.0, 50.0, 0.0),
    );
    let out = deliver(&mut app, bag, "arrow", 8, None);
    assert_eq!(out.outcome.accepted, 5);
    let p = pickups(&mut app);
    assert_eq!(p.len(), 1);
    assert_eq!((p[0].1.item.as_str(), p[0].1.amount), ("arrow", 3));
    assert!(
        p[0].2.distance(Vec3::new(100.0, 50.0, 0.0)) < 80.0,
        "beside the bag: {}",
        p[0].2
    );
    assert_eq!(
        out.settled,
        vec![Settled::Pickup {
            pickup: p[0].0,
            item: "arrow".into(),
            props: Default::default(),
            amount: 3
        }]
    );
}

#[test]
fn picking_up_leaves_the_rest_in_the_pickup_and_a_whole_pickup_despawns() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, arrows("back-to-the-sender", 1), Vec3::ZERO);
    let pickup = app
        .world_mut()
        .spawn(LoosePickup {
            item: "arrow".into(),
            props: Default::default(),
            amount: 8,
        })
        .id();
    send(
        &mut app,
        PickUp {
            container: bag,
            pickup,
        },
    );
    assert_eq!(app.world().get::<LoosePickup>(pickup).unwrap().amount, 3);
    assert_eq!(slots(&app, bag), vec![Some(("arrow".into(), 5))]);
    send(
        &mut app,
        Take {
            container: bag,
            item: "arrow".into(),
            props: None,
            amount: 5,
            slot: None,
        },
    );
    send(
        &mut app,
        PickUp {
            container: bag,
            pickup,
        },
    );
    assert!(
        app.world().get_entity(pickup).is_err(),
        "a pickup taken whole despawns"
    );
    assert_eq!(slots(&app, bag), vec![Some(("arrow".into(), 3))]);
}

#[test]
fn another_store_delivers_under_the_stores_rules() {
    let mut app = app();
    let (stash, _) = spawn(&mut app, arrows("destroyed", 4), Vec3::ZERO);
    let (bag, _) = spawn(&mut app, arrows("another-store", 1), Vec3::ZERO);
    app.world_mut().entity_mut(bag).insert(OverflowStore(stash));
    let out = deliver(&mut app, bag, "arrow", 30, None);
    assert_eq!(out.outcome.accepted, 5);
    assert_eq!(
        app.world()
            .get::<ContainerContents>(stash)
            .unwrap()
            .count("arrow"),
        20
    );
    assert_eq!(
        out.settled,
        vec![
            Settled::Container {
                container: stash,
                item: "arrow".into(),
                props: Default::default(),
                amount: 20
            },
            Settled::Destroyed {
                item: "arrow".into(),
                props: Default::default(),
                amount: 5
            },
        ]
    );
}

#[test]
fn no_store_named_falls_back_to_a_pickup_with_a_warning() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, arrows("another-store", 1), Vec3::ZERO);
    let out = deliver(&mut app, bag, "arrow", 7, None);
    assert_eq!(pickups(&mut app)[0].1.amount, 2);
    assert!(
        out.warnings[0].to_string().contains("OverflowStore"),
        "{:?}",
        out.warnings
    );
}

#[test]
fn a_store_that_refuses_falls_back_to_a_pickup() {
    let mut app = app();
    let potions_only = read(&adoption_json(
        json!({"capacity-limit": "slot-count", "partial-acceptance": "fill-what-fits",
               "leftover-destination": "destroyed", "fill-order": "append",
               "draw-order": "first-in-order", "type-restriction": "only-these"}),
        4,
        0.0,
        json!([{"id": "potion", "stack-limit": 5, "when-forced-out": "never"}]),
    ));
    let (store, _) = spawn(&mut app, potions_only, Vec3::ZERO);
    let (bag, _) = spawn(&mut app, arrows("another-store", 1), Vec3::ZERO);
    app.world_mut().entity_mut(bag).insert(OverflowStore(store));
    let out = deliver(&mut app, bag, "arrow", 9, None);
    assert_eq!(pickups(&mut app)[0].1.amount, 4);
    assert!(
        out.warnings[0].to_string().contains("refused"),
        "{:?}",
        out.warnings
    );
}

#[test]
fn a_loop_of_stores_falls_back_to_a_pickup() {
    let mut app = app();
    let (a, _) = spawn(&mut app, arrows("another-store", 1), Vec3::ZERO);
    let (b, _) = spawn(&mut app, arrows("another-store", 1), Vec3::ZERO);
    app.world_mut().entity_mut(a).insert(OverflowStore(b));
    app.world_mut().entity_mut(b).insert(OverflowStore(a));
    let out = deliver(&mut app, a, "arrow", 12, None);
    assert_eq!(slots(&app, a), vec![Some(("arrow".into(), 5))]);
    assert_eq!(slots(&app, b), vec![Some(("arrow".into(), 5))]);
    assert_eq!(pickups(&mut app)[0].1.amount, 2);
    assert!(
        out.warnings.iter().any(|w| w.to_string().contains("loop")),
        "{:?}",
        out.warnings
    );
}

#[test]
fn a_sender_that_is_gone_falls_back_to_a_pickup() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, arrows("back-to-the-sender", 1), Vec3::ZERO);
    let chest = app.world_mut().spawn_empty().id();
    app.world_mut().despawn(chest);
    let out = deliver(&mut app, bag, "arrow", 6, Some(chest));
    assert_eq!(pickups(&mut app)[0].1.amount, 1);
    assert!(
        out.warnings[0].to_string().contains("gone"),
        "{:?}",
        out.warnings
    );
}

#[test]
fn back_to_a_sending_container_redelivers_there() {
    let mut app = app();
    let (chest, _) = spawn(&mut app, arrows("destroyed", 4), Vec3::ZERO);
    let (bag, _) = spawn(&mut app, arrows("back-to-the-sender", 1), Vec3::ZERO);
    let out = deliver(&mut app, bag, "arrow", 9, Some(chest));
    assert_eq!(
        app.world()
            .get::<ContainerContents>(chest)
            .unwrap()
            .count("arrow"),
        4
    );
    assert_eq!(
        out.settled,
        vec![Settled::Container {
            container: chest,
            item: "arrow".into(),
            props: Default::default(),
            amount: 4
        }]
    );
}

#[test]
fn a_sender_that_is_not_a_container_keeps_the_rest() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, arrows("back-to-the-sender", 1), Vec3::ZERO);
    let player = app.world_mut().spawn_empty().id();
    let out = deliver(&mut app, bag, "arrow", 9, Some(player));
    assert_eq!(
        out.settled,
        vec![Settled::Caller {
            sender: Some(player),
            item: "arrow".into(),
            props: Default::default(),
            amount: 4
        }]
    );
    assert!(pickups(&mut app).is_empty());
}

#[test]
fn destroyed_leftovers_are_reported() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, arrows("destroyed", 1), Vec3::ZERO);
    let out = deliver(&mut app, bag, "arrow", 9, None);
    assert_eq!(
        out.settled,
        vec![Settled::Destroyed {
            item: "arrow".into(),
            props: Default::default(),
            amount: 4
        }]
    );
}

#[test]
fn a_torn_strap_drops_axes_and_moves_purses_to_the_store() {
    let mut app = app();
    let (stash, _) = spawn(&mut app, arrows("destroyed", 4), Vec3::ZERO);
    let bag_adoption = read(&adoption_json(
        slot_answers("left-where-it-is"),
        4,
        0.0,
        json!([
            {"id": "axe", "stack-limit": 1, "when-forced-out": "dropped-nearby", "forced-out-order": 1},
            {"id": "purse", "stack-limit": 1, "when-forced-out": "moved-to-another-store", "forced-out-order": 2},
        ]),
    ));
    let (bag, _) = spawn(&mut app, bag_adoption, Vec3::new(10.0, 0.0, 0.0));
    app.world_mut().entity_mut(bag).insert(OverflowStore(stash));
    deliver(&mut app, bag, "axe", 2, None);
    deliver(&mut app, bag, "purse", 2, None);
    send(
        &mut app,
        Resize {
            container: bag,
            slot_count: Some(1),
            size_budget: None,
        },
    );
    let forced = last_forced(&app);
    assert_eq!(forced.outcome.portions.len(), 3);
    assert_eq!(pickups(&mut app).iter().map(|p| p.1.amount).sum::<u32>(), 2);
    assert_eq!(
        app.world()
            .get::<ContainerContents>(stash)
            .unwrap()
            .count("purse"),
        1
    );
    assert_eq!(slots(&app, bag), vec![Some(("purse".into(), 1))]);
}

#[test]
fn a_despawned_container_spills_its_items() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, seed(), Vec3::new(5.0, 5.0, 0.0));
    deliver(&mut app, bag, "berries", 25, None);
    deliver(&mut app, bag, "letter", 1, None);
    app.world_mut().entity_mut(bag).despawn();
    app.update();
    let p = pickups(&mut app);
    let total: u32 = p
        .iter()
        .filter(|p| p.1.item == "berries")
        .map(|p| p.1.amount)
        .sum();
    assert_eq!(total, 25);
    assert_eq!(p.iter().filter(|p| p.1.item == "letter").count(), 1);
    assert_eq!(app.world().resource::<Seen>().spilled.len(), 1);
}

#[test]
fn containers_param_answers_immediately() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, seed(), Vec3::ZERO);
    deliver(&mut app, bag, "berries", 5, None);
    let (taken, left) = app
        .world_mut()
        .run_system_once(move |mut c: Containers| {
            // the same outcome type the message carries, as `deliver` returns `ItemsDelivered`
            let taken: ItemsTaken = c.take(bag, "berries", 3, None).unwrap();
            (taken, c.count(bag, "berries"))
        })
        .unwrap();
    assert_eq!((taken.container, taken.outcome.taken, left), (bag, 3, 2));
    assert_eq!(
        app.world().resource::<Seen>().taken.len(),
        0,
        "collected next frame"
    );
    app.update();
    // what the call returned is the message written
    assert_eq!(app.world().resource::<Seen>().taken, [taken]);
}

#[test]
fn a_take_reads_as_a_log_line() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, seed(), Vec3::ZERO);
    deliver(&mut app, bag, "berries", 25, None); // 20 in slot 0, 5 in slot 1
    send(&mut app, Take::new(bag, "berries", 4).from_slot(1));
    let taken = app
        .world()
        .resource::<Seen>()
        .taken
        .last()
        .cloned()
        .unwrap();
    assert_eq!(
        taken.to_string(),
        format!("container {bag}: took 4 berries from slot 2")
    );
    app.world_mut()
        .entity_mut(bag)
        .insert(Name::new("backpack"));
    let line = app
        .world_mut()
        .run_system_once(move |names: Query<&Name>| taken.describe(&names))
        .unwrap();
    assert_eq!(line, "backpack: took 4 berries from slot 2");
}

#[test]
fn a_delivery_that_stops_short_says_why_in_its_text() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, arrows("left-where-it-is", 1), Vec3::ZERO);
    // one slot of 5 arrows: 3 are left where they are, for want of a slot
    let out = deliver(&mut app, bag, "arrow", 8, None);
    assert_eq!(
        out.outcome.limited_by,
        Some(bevy_container::contents::LimitedBy::Slots)
    );
    assert_eq!(
        out.outcome.to_string(),
        "8 arrow: 5 to slot 1; 3 left where it is: no room: every slot it may use is taken"
    );
    let line = out.to_string();
    assert!(
        line.starts_with(&format!(
            "container {bag}: 8 arrow: 5 to slot 1; 3 left where it is: no room: every slot it may use is taken ("
        )),
        "{line}"
    );
    // everything accepted: no reason is given
    send(&mut app, Take::new(bag, "arrow", 5));
    let all = deliver(&mut app, bag, "arrow", 2, None);
    assert_eq!(all.outcome.to_string(), "2 arrow: 2 to slot 1");
}

#[test]
fn would_accept_why_on_the_component_agrees_with_the_engine() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, seed(), Vec3::ZERO);
    deliver(&mut app, bag, "berries", 18, None); // slot 0
    deliver(&mut app, bag, "letter", 1, None); // slot 1
    let contents = app.world().get::<ContainerContents>(bag).unwrap();
    let engine = contents.engine().expect("the rules are attached");
    let asks: [(&str, u32, Option<u32>); 6] = [
        ("berries", 5, Some(0)),
        ("berries", 5, None),
        ("berries", 5, Some(1)),
        ("berries", 5, Some(12)),
        ("berries", 500, None),
        ("axe", 0, Some(0)),
    ];
    for (item, amount, slot) in asks {
        assert_eq!(
            contents.would_accept_why(item, amount, slot),
            engine.would_accept_why(item, amount, slot),
            "{amount} {item} into {slot:?}"
        );
    }
    let onto = contents.would_accept_why("berries", 5, Some(0));
    assert_eq!(
        (onto.accepted, onto.limited_by),
        (2, Some(bevy_container::contents::LimitedBy::StackLimit))
    );
    // and through `Containers`, the container named first
    let through = app
        .world_mut()
        .run_system_once(move |c: Containers| c.would_accept_why(bag, "berries", 5, Some(0)))
        .unwrap();
    assert_eq!(through, Ok(onto));
    let nobody = app.world_mut().spawn_empty().id();
    let none = app
        .world_mut()
        .run_system_once(move |c: Containers| c.would_accept_why(nobody, "berries", 5, None))
        .unwrap();
    assert_eq!(none, Err(NotAnswered::NotAContainer(nobody)));
}

#[test]
fn would_accept_why_before_the_rules_attach_is_not_ready() {
    let contents = ContainerContents::default();
    let dry = contents.would_accept_why("berries", 5, None);
    assert_eq!(
        (dry.accepted, dry.refused, dry.limited_by),
        (0, Some(bevy_container::contents::Reason::NotReady), None)
    );
}

#[test]
fn a_request_to_a_non_container_is_unanswered_and_moves_nothing() {
    let mut app = app();
    let nobody = app.world_mut().spawn_empty().id();
    let pickup = app
        .world_mut()
        .spawn(LoosePickup {
            item: "arrow".into(),
            props: Default::default(),
            amount: 3,
        })
        .id();
    send(
        &mut app,
        PickUp {
            container: nobody,
            pickup,
        },
    );
    assert_eq!(app.world().get::<LoosePickup>(pickup).unwrap().amount, 3);
    assert_eq!(app.world().resource::<Seen>().unanswered.len(), 1);
}
