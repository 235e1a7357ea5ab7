//! Worlds that save (issue 17): every container, store link and loose pickup
//! of a world written the Bevy way (`DynamicWorld` in RON) and read into a
//! fresh app comes back exactly; a game's own `DynamicWorld` save keeps the
//! contents too; a changed adoption migrates with cause `loaded`; a refused
//! migration or a missing adoption keeps the save attached; bad scene data
//! loads nothing.
//!
//! Adoptions are kept under fixed UUID handles (as `scenario::ecs` does), so
//! a saved world names them the same in every app.
#![cfg(feature = "scene")]

mod common;

use std::collections::BTreeMap;

use bevy::asset::uuid::Uuid;
use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy::world_serialization::DynamicWorldBuilder;
use bevy::world_serialization::serde::WorldDeserializer;
use bevy_container::adoption::{Adoption, ValueSource};
use bevy_container::contents::{Cause, Landing, Limits, SlotRules, Taken};
use bevy_container::decimal::Decimal;
use bevy_container::plugin::scene::{self, SceneError};
use bevy_container::plugin::*;
use bevy_container::save::SavedContents;
use common::{Seen, kinds, seed, send};
use serde::de::DeserializeSeed;

const BAG: u128 = 0x5CE4_E000_0001;
const CHEST: u128 = 0x5CE4_E000_0002;
const DECK: u128 = 0x5CE4_E000_0003;
const ARMORY: u128 = 0x5CE4_E000_0004;
const NAMES: [&str; 4] = ["bag", "chest", "deck", "armory"];

fn handle(n: u128) -> Handle<AdoptionAsset> {
    Handle::from(Uuid::from_u128(n))
}

/// Every `ContainerSaveRefused` message seen.
#[derive(Resource, Default)]
struct Refusals(Vec<ContainerSaveRefused>);

fn collect_refusals(mut r: MessageReader<ContainerSaveRefused>, mut out: ResMut<Refusals>) {
    out.0.extend(r.read().cloned());
}

/// A headless app (plugin, outcome and refusal collectors) with `adoptions`
/// inserted under their fixed handles.
fn game(adoptions: &[(u128, Adoption)]) -> App {
    let mut app = common::app();
    app.init_resource::<Refusals>()
        .add_systems(Last, collect_refusals);
    let mut assets = app.world_mut().resource_mut::<Assets<AdoptionAsset>>();
    for (n, a) in adoptions {
        assets
            .insert(handle(*n).id(), AdoptionAsset::new(a.clone()))
            .unwrap();
    }
    app
}

fn originals() -> Vec<(u128, Adoption)> {
    vec![
        (BAG, seed()),
        (CHEST, kinds::oldest_first_chest()),
        (DECK, kinds::point_deck()),
        (ARMORY, kinds::armory()),
    ]
}

/// The seed backpack with `slots` slots.
fn seed_with(slots: f64) -> Adoption {
    let mut a = seed();
    a.values
        .insert("slot-count".into(), ValueSource::Number(slots));
    a
}

/// A torn-strap bag (9 of 12 slots) sending overflow to the chest, the
/// chest filled at different times, the deck, the rack, and two pickups
/// (a leftover left where it is, and one placed by hand).
fn filled_world() -> (App, [Entity; 4]) {
    let mut app = game(&originals());
    let w = app.world_mut();
    let chest = w
        .spawn((Name::new("chest"), Container::new(handle(CHEST))))
        .id();
    let bag = w
        .spawn((
            Name::new("bag"),
            Container::new(handle(BAG)),
            OverflowStore(chest),
            Transform::from_xyz(4.0, 0.0, 0.0),
        ))
        .id();
    let deck = w.spawn(Container::new(handle(DECK))).id();
    let rack = ContainerSlotRules(vec![
        vec!["helmet".into()],
        vec!["potion".into()],
        vec!["potion".into(), "helmet".into()],
    ]);
    let armory = w.spawn((Container::new(handle(ARMORY)), rack)).id();
    app.update();
    send(
        &mut app,
        Resize {
            container: bag,
            slot_count: Some(9),
            size_budget: None,
        },
    );
    // bag: berries 20, 20, 5; two axes; three letters; then 40 berries: 5
    // of them do not fit and are left where they are
    for (c, item, n) in [
        (bag, "berries", 45),
        (bag, "axe", 2),
        (bag, "letter", 3),
        (bag, "berries", 40),
        (chest, "potion", 5),
        (chest, "arrow", 30),
        (chest, "potion", 5),
    ] {
        send(&mut app, Deliver::new(c, item, n));
    }
    // the first potions leave slot 0; the newest potions land there
    send(&mut app, Take::new(chest, "potion", 5).from_slot(0));
    for (c, item, n) in [
        (chest, "arrow", 5),
        (chest, "potion", 4),
        (deck, "fireball", 5),
        (deck, "shield", 3),
        (deck, "token", 50),
        (armory, "potion", 7),
        (armory, "helmet", 1),
    ] {
        send(&mut app, Deliver::new(c, item, n));
    }
    app.world_mut().spawn((
        LoosePickup {
            item: "axe".into(),
            props: Default::default(),
            amount: 1,
        },
        Transform::from_xyz(-3.0, 0.0, 0.0),
    ));
    app.update();
    (app, [bag, chest, deck, armory])
}

/// Everything of a container a save must keep.
#[derive(Debug, PartialEq)]
struct View {
    slots: Vec<Option<(String, u32, u64, u64)>>,
    holdings: Vec<(String, u32)>,
    limits: Limits,
    size_used: Decimal,
    slot_rules: Option<SlotRules>,
    capacity: String,
    saved: Option<SavedContents>,
}

fn view(app: &App, e: Entity) -> View {
    let c = app
        .world()
        .get::<ContainerContents>(e)
        .expect("a container");
    let engine = c.engine().expect("its rules attached and its save loaded");
    View {
        slots: engine
            .slots()
            .map(|s| s.map(|s| (s.item.to_string(), s.amount, s.began, s.last_received)))
            .collect(),
        holdings: engine.holdings().map(|(k, n)| (k.to_string(), n)).collect(),
        limits: engine.limits(),
        size_used: engine.size_used(),
        slot_rules: engine.slot_rules().cloned(),
        capacity: c.capacity().to_string(),
        saved: c.state().saved(),
    }
}

/// Asserts that the containers `got` of `app` are the containers `ids` of `a`.
fn assert_same(app: &App, got: [Entity; 4], a: &App, ids: [Entity; 4], when: &str) {
    for i in 0..4 {
        assert_eq!(view(app, got[i]), view(a, ids[i]), "{} {when}", NAMES[i]);
    }
}

fn contents(app: &App, e: Entity) -> &ContainerContents {
    app.world()
        .get::<ContainerContents>(e)
        .expect("a container")
}

/// The loose pickups as a sorted multiset of (item, amount).
fn ground(app: &mut App) -> Vec<(String, u32)> {
    let mut v: Vec<_> = common::pickups(app)
        .into_iter()
        .map(|(_, p, _)| (p.item, p.amount))
        .collect();
    v.sort();
    v
}

/// A fresh app with `adoptions`, the saved world loaded and one frame run.
fn reload(text: &str, adoptions: &[(u128, Adoption)]) -> (App, EntityHashMap<Entity>) {
    let mut app = game(adoptions);
    let map = scene::load_containers(app.world_mut(), text).expect("the saved world loads");
    app.update();
    (app, map)
}

const TAKES: [(usize, &str, u32); 4] = [
    (0, "berries", 25),
    (1, "potion", 2),
    (2, "shield", 1),
    (3, "potion", 6),
];

/// One take by draw order from each container, in one frame.
fn take_each(app: &mut App, ids: [Entity; 4]) -> Vec<Taken> {
    for (i, item, n) in TAKES {
        app.world_mut()
            .write_message(ContainerRequest::from(Take::new(ids[i], item, n)));
    }
    app.update();
    let seen = &app.world().resource::<Seen>().taken;
    let last = &seen[seen.len() - TAKES.len()..];
    for (t, (i, _, _)) in last.iter().zip(TAKES) {
        assert_eq!(t.container, ids[i], "every take is answered, in order");
    }
    last.iter().map(|t| t.outcome.clone()).collect()
}

#[test]
fn a_saved_world_restores_every_container_exactly() {
    let (mut a, ids) = filled_world();
    // the world is what the test means it to be
    let bag = view(&a, ids[0]);
    assert_eq!(bag.limits.slot_count, 9, "the torn strap is in force");
    assert!(bag.saved.as_ref().unwrap().resized);
    assert_eq!(view(&a, ids[2]).size_used, Decimal::from_units(29));
    assert_eq!(
        common::slots(&a, ids[3]),
        [
            Some(("helmet".to_string(), 1)),
            Some(("potion".to_string(), 5)),
            Some(("potion".to_string(), 2))
        ]
    );
    let on_ground = vec![("axe".to_string(), 1), ("berries".to_string(), 5)];
    assert_eq!(ground(&mut a), on_ground);

    let text = scene::save_containers(a.world_mut()).expect("the world saves");
    let (mut b, map) = reload(&text, &originals());
    let in_b = ids.map(|e| map[&e]);
    // a second round: the loaded world saved again and loaded once more
    let text2 = scene::save_containers(b.world_mut()).expect("the loaded world saves");
    let (mut c, map2) = reload(&text2, &originals());
    let in_c = in_b.map(|e| map2[&e]);
    for (app, got) in [(&mut b, in_b), (&mut c, in_c)] {
        assert_same(app, got, &a, ids, "loaded");
        let world = app.world();
        assert_eq!(
            world.get::<OverflowStore>(got[0]),
            Some(&OverflowStore(got[1]))
        );
        let sources: Vec<Entity> = world
            .get::<OverflowSources>(got[1])
            .unwrap()
            .iter()
            .collect();
        assert_eq!(sources, [got[0]], "the new stash lists the new bag");
        assert_eq!(
            world.get::<ContainerSlotRules>(got[3]),
            a.world().get::<ContainerSlotRules>(ids[3])
        );
        assert_eq!(ground(app), on_ground);
    }

    // the draw-order bookkeeping survived: the same takes leave the same slots
    let taken = take_each(&mut a, ids);
    assert_eq!(
        taken[1].from,
        vec![Landing { slot: 3, amount: 2 }],
        "oldest-first draws the potions delivered first, in slot 3, not slot 0"
    );
    assert_eq!(take_each(&mut b, in_b), taken);
    assert_eq!(take_each(&mut c, in_c), taken);
    assert_same(&b, in_b, &a, ids, "after the take");
    assert_same(&c, in_c, &a, ids, "after the take");
}

#[test]
fn a_game_s_own_dynamic_world_save_keeps_the_contents() {
    let (mut a, ids) = filled_world();
    let world = a.world_mut();
    let mut q = world.query_filtered::<Entity, With<ContainerContents>>();
    let containers: Vec<Entity> = q.iter(world).collect();
    assert_eq!(containers.len(), 4);
    let registry = world.resource::<AppTypeRegistry>().clone();
    let text = {
        let registry = registry.read();
        DynamicWorldBuilder::from_world(world, &registry)
            .extract_entities(containers.into_iter())
            .build()
            .serialize(&registry)
            .expect("the world serializes")
    };

    let mut b = game(&originals());
    let world = b.world_mut();
    let registry = world.resource::<AppTypeRegistry>().clone();
    let mut server = world.resource::<AssetServer>().clone();
    let saved = {
        let registry = registry.read();
        let mut de = ron::Deserializer::from_str(&text).expect("RON");
        WorldDeserializer {
            type_registry: &registry,
            load_from_path: &mut server,
        }
        .deserialize(&mut de)
        .expect("the saved world reads")
    };
    let mut map = EntityHashMap::default();
    saved
        .write_to_world(world, &mut map)
        .expect("written to the world");
    b.update();
    let got = ids.map(|e| map[&e]);
    assert_same(&b, got, &a, ids, "loaded");
    assert_eq!(
        b.world().get::<OverflowStore>(got[0]),
        Some(&OverflowStore(got[1]))
    );
}

/// A backpack holding `stock`, in an app with the seed adoption; returns the
/// app, the bag, its save as the state would write it, and the world saved.
fn saved_backpack(stock: &[(&str, u32)]) -> (App, Entity, SavedContents, String) {
    let mut app = game(&[(BAG, seed())]);
    let bag = app.world_mut().spawn(Container::new(handle(BAG))).id();
    app.update();
    for (item, n) in stock {
        send(&mut app, Deliver::new(bag, *item, *n));
    }
    let saved = contents(&app, bag).state().saved().expect("a save");
    let text = scene::save_containers(app.world_mut()).expect("the world saves");
    (app, bag, saved, text)
}

#[test]
fn a_changed_adoption_migrates_and_reports_loaded() {
    let stock = [("berries", 45), ("axe", 2), ("letter", 3)]; // 8 slots
    let (_, bag, _, text) = saved_backpack(&stock);
    // same handle, seven slots: one axe (dropped-nearby) must leave
    let (mut b, map) = reload(&text, &[(BAG, seed_with(7.0))]);
    let nb = map[&bag];
    let seen = b.world().resource::<Seen>();
    let forced = seen
        .forced
        .iter()
        .find(|f| f.container == nb)
        .expect("a forced removal");
    assert_eq!(forced.outcome.cause, Cause::Loaded);
    assert!(forced.outcome.refused.is_none());
    let left: Vec<(String, u32)> = forced
        .outcome
        .portions
        .iter()
        .map(|p| (p.item.to_string(), p.amount))
        .collect();
    assert_eq!(left, [("axe".to_string(), 1)]);
    let c = contents(&b, nb);
    assert!(c.is_ready());
    assert_eq!(c.engine().unwrap().slots().count(), 7);
    let mut totals: BTreeMap<String, u64> = c
        .engine()
        .unwrap()
        .totals()
        .into_iter()
        .map(|(k, n)| (k.to_string(), n))
        .collect();
    let on_ground = ground(&mut b);
    assert_eq!(on_ground, [("axe".to_string(), 1)], "what left lies nearby");
    for (item, n) in on_ground {
        *totals.entry(item).or_default() += u64::from(n);
    }
    let want: BTreeMap<String, u64> = stock
        .iter()
        .map(|(k, n)| (k.to_string(), u64::from(*n)))
        .collect();
    assert_eq!(totals, want, "nothing lost");
}

#[test]
fn a_refused_migration_keeps_the_save_attached() {
    // six slots of items that never leave
    let (a, bag, original, text) = saved_backpack(&[("berries", 45), ("letter", 3), ("axe", 1)]);
    let (mut b, map) = reload(&text, &[(BAG, seed_with(2.0))]);
    b.update();
    b.update();
    let nb = map[&bag];
    let c = contents(&b, nb);
    assert!(!c.is_ready());
    assert!(c.engine().is_none());
    assert_eq!(
        c.state().pending(),
        Some(&original),
        "kept attached, unchanged"
    );
    let refusals = &b.world().resource::<Refusals>().0;
    assert_eq!(refusals.len(), 1, "reported once: {refusals:?}");
    assert_eq!(refusals[0].container, nb);
    assert!(refusals[0].error.forced.refused.is_some());
    assert!(refusals[0].error.forced.portions.is_empty());
    assert!(ground(&mut b).is_empty(), "nothing dropped");
    assert!(b.world().resource::<Seen>().forced.is_empty());

    // saved again as it was: the original adoption restores it all
    let text2 = scene::save_containers(b.world_mut()).expect("the world saves");
    let (c_app, map2) = reload(&text2, &[(BAG, seed())]);
    assert_eq!(view(&c_app, map2[&nb]), view(&a, bag));
}

fn entity_count(world: &mut World) -> usize {
    world.query::<Entity>().iter(world).count()
}

/// Loads `text` into a fresh app, expecting it to fail and to add nothing.
fn refused_load(text: &str) -> SceneError {
    let mut app = game(&[(BAG, seed())]);
    let world = app.world_mut();
    let before = entity_count(world);
    let err = scene::load_containers(world, text).expect_err("bad data does not load");
    assert_eq!(entity_count(world), before, "nothing half-loaded: {err}");
    app.update();
    let world = app.world_mut();
    let mut q = world.query_filtered::<(), Or<(With<ContainerContents>, With<LoosePickup>)>>();
    assert_eq!(q.iter(world).count(), 0);
    err
}

/// `text` with the number after the first `amount` key replaced by `with`:
/// a saved stack's (`"amount": 25`, inside a container's state) when
/// `quoted`, else a loose pickup's field (`amount: 1`).
fn replace_amount(text: &str, quoted: bool, with: &str) -> String {
    for (at, _) in text.match_indices("amount") {
        let before = text[..at].chars().next_back();
        let after = &text[at + "amount".len()..];
        let after = match (quoted, before) {
            (true, Some('"')) => match after.strip_prefix('"') {
                Some(a) => a,
                None => continue,
            },
            (false, Some(c)) if c.is_whitespace() || c == '(' || c == ',' => after,
            _ => continue,
        };
        let Some(value) = after.trim_start().strip_prefix(':') else {
            continue;
        };
        let value = value.trim_start();
        let digits = value.len() - value.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            continue;
        }
        let start = text.len() - value.len();
        return format!("{}{with}{}", &text[..start], &text[start + digits..]);
    }
    panic!("no amount to edit in the saved world:\n{text}");
}

#[test]
fn bad_scene_data_loads_nothing() {
    let (mut a, bag, _, _) = saved_backpack(&[("berries", 25), ("letter", 1)]);
    let named = format!("entity {} (as saved)", bag.to_bits());
    a.world_mut().spawn(LoosePickup {
        item: "axe".into(),
        props: Default::default(),
        amount: 1,
    });
    let text = scene::save_containers(a.world_mut()).expect("the world saves");
    // the text as saved loads: what fails below is the edit
    let (mut ok, map) = reload(&text, &[(BAG, seed())]);
    assert_eq!(map.len(), 2);
    assert_eq!(ground(&mut ok), [("axe".to_string(), 1)]);

    // (a) truncated
    for cut in [1, text.len() / 3, text.len() / 2, text.len() - 2] {
        let err = refused_load(&text[..cut]);
        assert!(matches!(err, SceneError::Read(_)), "cut at {cut}: {err:?}");
    }
    // (b) a zero amount, an amount past u32: the path inside the save
    for bad in ["0", "4294967296"] {
        let edited = replace_amount(&text, true, bad);
        assert_ne!(edited, text);
        match refused_load(&edited) {
            SceneError::Read(m) => assert!(
                m.contains(&named)
                    && m.contains("ContainerContents.state")
                    && m.contains("/slots/0/amount"),
                "amount {bad}: {m}"
            ),
            other => panic!("amount {bad}: {other:?}"),
        }
    }
    // (c) a string where a number is: in a saved stack, and in a pickup
    match refused_load(&replace_amount(&text, true, "\"twenty\"")) {
        SceneError::Read(m) => assert!(m.contains(&named) && m.contains("/slots/0/amount"), "{m}"),
        other => panic!("{other:?}"),
    }
    let err = refused_load(&replace_amount(&text, false, "\"one\""));
    assert!(matches!(err, SceneError::Read(_)), "{err:?}");
}

#[test]
fn an_adoption_that_cannot_be_found_keeps_the_save_pending() {
    let (a, bag, original, text) = saved_backpack(&[("berries", 25), ("letter", 1), ("axe", 1)]);
    // no asset under the bag's handle
    let (mut b, map) = reload(&text, &[]);
    b.update();
    b.update();
    let nb = map[&bag];
    let c = contents(&b, nb);
    assert!(!c.is_ready());
    assert_eq!(c.state().pending(), Some(&original));
    assert_eq!(
        c.state().saved(),
        Some(original.clone()),
        "a save now keeps it"
    );

    b.world_mut()
        .resource_mut::<Assets<AdoptionAsset>>()
        .insert(handle(BAG).id(), AdoptionAsset::new(seed()))
        .unwrap();
    b.update();
    let c = contents(&b, nb);
    assert!(c.is_ready());
    assert!(c.state().pending().is_none());
    assert_eq!(view(&b, nb), view(&a, bag));
}

/// Reads `text` (a saved world) and writes it into `app`'s world with the
/// saved bag mapped onto `onto`, an entity that already exists there.
fn write_onto(app: &mut App, text: &str, saved_bag: Entity, onto: Entity) {
    app.register_type::<Transform>().register_type::<Name>();
    let world = app.world_mut();
    let registry = world.resource::<AppTypeRegistry>().clone();
    let mut server = world.resource::<AssetServer>().clone();
    let saved = {
        let registry = registry.read();
        let mut de = ron::Deserializer::from_str(text).expect("RON");
        WorldDeserializer {
            type_registry: &registry,
            load_from_path: &mut server,
        }
        .deserialize(&mut de)
        .expect("the saved world reads")
    };
    let mut map = EntityHashMap::default();
    map.insert(saved_bag, onto);
    saved
        .write_to_world(world, &mut map)
        .expect("written to the world");
}

/// Every `ContainerSaveSetAside` message seen.
#[derive(Resource, Default)]
struct SetAside(Vec<ContainerSaveSetAside>);

fn collect_set_aside(mut r: MessageReader<ContainerSaveSetAside>, mut out: ResMut<SetAside>) {
    out.0.extend(r.read().cloned());
}

#[test]
fn a_scene_written_onto_a_container_holding_items_never_replaces_them() {
    let (_, saved_bag, original, text) = saved_backpack(&[("berries", 25), ("letter", 1)]);

    let mut b = game(&[(BAG, seed())]);
    b.init_resource::<SetAside>()
        .add_systems(Last, collect_set_aside);
    let full = b.world_mut().spawn(Container::new(handle(BAG))).id();
    let empty = b.world_mut().spawn(Container::new(handle(BAG))).id();
    b.update();
    send(&mut b, Deliver::new(full, "flint", 2));
    let before = view(&b, full);

    write_onto(&mut b, &text, saved_bag, full);
    b.update();
    b.update();
    assert_eq!(view(&b, full), before, "the items it held stay");
    assert_eq!(contents(&b, full).count("berries"), 0);
    let set_aside = &b.world().resource::<SetAside>().0;
    assert_eq!(set_aside.len(), 1, "reported once: {set_aside:?}");
    assert_eq!(set_aside[0].container, full);
    assert_eq!(set_aside[0].save, original, "the save, handed over whole");
    assert!(contents(&b, full).state().set_aside().is_none());
    assert!(ground(&mut b).is_empty());

    // onto a container holding nothing, the save loads
    write_onto(&mut b, &text, saved_bag, empty);
    b.update();
    assert_eq!(contents(&b, empty).count("berries"), 25);
    assert_eq!(contents(&b, empty).count("letter"), 1);
    assert_eq!(b.world().resource::<SetAside>().0.len(), 1);

    // the same save again onto the container now holding it changes nothing
    write_onto(&mut b, &text, saved_bag, empty);
    b.update();
    assert_eq!(contents(&b, empty).count("berries"), 25);
    assert_eq!(b.world().resource::<SetAside>().0.len(), 1);
}

#[test]
fn an_edit_of_the_mirror_from_outside_is_undone() {
    use bevy::reflect::GetPath;
    let mut app = game(&[(BAG, seed())]);
    let bag = app.world_mut().spawn(Container::new(handle(BAG))).id();
    app.update();
    send(&mut app, Deliver::new(bag, "berries", 20));
    assert_eq!(contents(&app, bag).slots()[0], Some(("berries".into(), 20)));

    // what an inspector does: write a field through reflection
    {
        let mut c = app
            .world_mut()
            .get_mut::<ContainerContents>(bag)
            .expect("a container");
        *c.path_mut::<u32>("mirror.slots[0].0.1")
            .expect("the mirror's first amount") = 99;
        *c.path_mut::<String>("mirror.capacity")
            .expect("the capacity") = "1000 slots".into();
    }
    assert_eq!(contents(&app, bag).slots()[0], Some(("berries".into(), 99)));
    app.update();
    let c = contents(&app, bag);
    assert_eq!(c.slots()[0], Some(("berries".into(), 20)), "undone");
    assert_eq!(c.capacity(), "12 slots");
    assert_eq!(c.count("berries"), 20, "the engine never saw it");
}

#[test]
fn a_seed_backpack_saved_and_loaded_under_four_slots_forces_out_what_section_6_says() {
    // six slots used: berries 20, 20, 5 and a letter never leave; the two
    // axes (dropped-nearby, forced-out order 1) are all that may
    let stock = [("berries", 45), ("axe", 2), ("letter", 1)];
    let (_, bag, _, text) = saved_backpack(&stock);
    let (mut b, map) = reload(&text, &[(BAG, seed_with(4.0))]);
    let nb = map[&bag];
    let forced: Vec<_> = b
        .world()
        .resource::<Seen>()
        .forced
        .iter()
        .filter(|f| f.container == nb)
        .cloned()
        .collect();
    assert_eq!(forced.len(), 1, "one forced removal, reported once");
    let outcome = &forced[0].outcome;
    assert_eq!(outcome.cause, Cause::Loaded);
    assert!(outcome.refused.is_none());
    let left: Vec<(String, u32)> = outcome
        .portions
        .iter()
        .map(|p| (p.item.to_string(), p.amount))
        .collect();
    // one portion per slot the axes held
    assert_eq!(
        left,
        [("axe".to_string(), 1), ("axe".to_string(), 1)],
        "both axes, nothing else"
    );
    let c = contents(&b, nb);
    let engine = c.engine().expect("loaded");
    assert_eq!(engine.slots().count(), 4);
    assert_eq!(
        (
            engine.count("berries"),
            engine.count("letter"),
            engine.count("axe")
        ),
        (45, 1, 0)
    );
    let one_axe = ("axe".to_string(), 1);
    assert_eq!(
        ground(&mut b),
        [one_axe.clone(), one_axe],
        "the two axes lie nearby"
    );
}

/// A scene written before item properties existed (commit 306a5a1,
/// `tests/fixtures/scene-before-props.ron`): its containers and pickups
/// load as plain items.
#[test]
fn a_scene_written_before_properties_loads_as_plain_items() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/scene-before-props.ron"
    ))
    .unwrap();
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        common::crate_assets(),
        ContainerPlugin::default(),
    ));
    let map = scene::load_containers(app.world_mut(), &text).expect("the old scene loads");
    assert_eq!(map.len(), 2, "a container and a pickup");
    let mut ready = false;
    for _ in 0..2000 {
        app.update();
        let mut q = app.world_mut().query::<&ContainerContents>();
        if q.iter(app.world()).any(ContainerContents::is_ready) {
            ready = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(ready, "the adoption loaded and the contents attached");
    let mut q = app.world_mut().query::<&ContainerContents>();
    let c = q.single(app.world()).unwrap();
    assert_eq!(c.slots()[0], Some(("berries".into(), 7)));
    assert!(c.props(0).is_empty());
    assert_eq!(c.count_kind("berries", &Default::default()), 7);
    let mut p = app.world_mut().query::<&LoosePickup>();
    let pickups: Vec<(String, u32, bool)> = p
        .iter(app.world())
        .map(|p| (p.item.clone(), p.amount, p.props.is_empty()))
        .collect();
    assert_eq!(pickups, [("axe".to_string(), 1, true)]);
}

/// A pickup's and a stack's properties survive a scene round trip.
#[test]
fn properties_survive_a_saved_world() {
    use bevy_container::contents::Props;
    let worn = Props::new([("durability", 37)]).unwrap();
    let mut a = game(&[(BAG, seed())]);
    let bag = a.world_mut().spawn(Container::new(handle(BAG))).id();
    a.update();
    send(&mut a, Deliver::new(bag, "axe", 1).with_props(worn.clone()));
    a.world_mut().spawn(LoosePickup {
        item: "axe".into(),
        props: worn.clone(),
        amount: 1,
    });
    a.update();
    let text = scene::save_containers(a.world_mut()).expect("saves");
    assert!(text.contains("durability"), "{text}");
    let (mut b, _) = reload(&text, &[(BAG, seed())]);
    let mut q = b.world_mut().query::<&ContainerContents>();
    let c = q.single(b.world()).unwrap();
    assert_eq!(c.count_kind("axe", &worn), 1);
    let mut p = b.world_mut().query::<&LoosePickup>();
    let props: Vec<Props> = p.iter(b.world()).map(|p| p.props.clone()).collect();
    assert_eq!(props, [worn]);
}
