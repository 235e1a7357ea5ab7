//! A test game (issue 16): a chest standing in the world and the seed
//! backpack parented (`ChildOf`) to a walking player, driven the way a game
//! drives them. Drags between slots are `Transfer` requests; each container's
//! UI listens with its own observers; pickups drop beside the player wherever
//! he is in the frame they fall; a level unloads with its chests, every item
//! they held listed.

mod common;

use std::collections::BTreeMap;

use bevy::prelude::*;
use bevy_container::adoption::Adoption;
use bevy_container::contents::{
    ItemType, Kind, Landings, Reason, Swapped, TransferRequest, Transferred,
};
use bevy_container::plugin::*;
use common::*;
use serde_json::json;

/// A four-slot chest with the seed backpack's rows: berries stack to 20,
/// axes (dropped when forced out) and letters do not stack.
fn chest_rules() -> Adoption {
    read(&adoption_json(
        slot_answers("left-where-it-is"),
        4,
        0.0,
        json!([
            {"id": "berries", "stack-limit": 20, "when-forced-out": "never"},
            {"id": "axe", "stack-limit": 1, "when-forced-out": "dropped-nearby", "forced-out-order": 1},
            {"id": "letter", "stack-limit": 1, "when-forced-out": "never"},
        ]),
    ))
}

#[derive(Component)]
struct Player;

fn walk(mut players: Query<&mut Transform, With<Player>>) {
    for mut t in &mut players {
        t.translation.x += 1.0;
    }
}

/// The game: a player walking right with the seed backpack (twelve slots,
/// leftovers left where they are) on his back, and a chest in the world.
/// Returns the chest and the backpack.
fn game() -> (App, Entity, Entity) {
    let mut app = app();
    app.add_systems(Update, walk);
    let player = app
        .world_mut()
        .spawn((Player, Transform::from_xyz(100.0, 50.0, 0.0)))
        .id();
    let (chest, _) = spawn(&mut app, chest_rules(), Vec3::new(200.0, 50.0, 0.0));
    let (backpack, _) = spawn(&mut app, seed(), Vec3::ZERO);
    app.world_mut().entity_mut(backpack).insert(ChildOf(player));
    (app, chest, backpack)
}

/// A container's slots, exactly, as one line: `berries 8, _, axe 1`.
fn show(app: &App, e: Entity) -> String {
    let one =
        |s: &Option<(String, u32)>| s.as_ref().map_or("_".into(), |(i, n)| format!("{i} {n}"));
    slots(app, e).iter().map(one).collect::<Vec<_>>().join(", ")
}

/// Drags `request` from one container to another in one frame; the outcome.
fn drag(app: &mut App, from: Entity, to: Entity, request: TransferRequest) -> Transferred {
    send(app, Transfer { from, to, request });
    let seen = app.world().resource::<Seen>();
    seen.transferred
        .last()
        .expect("one outcome")
        .outcome
        .clone()
}

/// The source slot of a drag and how many.
fn slot(slot: u32, amount: u32) -> TransferRequest {
    TransferRequest::from_slot(slot, amount)
}

fn tally(t: &Transferred) -> (u32, u32, Option<Reason>) {
    (t.moved, t.shortfall, t.refused)
}

fn spots(l: &Landings) -> Vec<(u32, u32)> {
    l.iter().map(|l| (l.slot, l.amount)).collect()
}

#[test]
fn a_drag_moves_part_of_a_chest_stack_into_the_chosen_backpack_slot() {
    let (mut app, chest, backpack) = game();
    deliver(&mut app, chest, "berries", 25, None);
    deliver(&mut app, chest, "axe", 1, None);
    assert_eq!(show(&app, chest), "berries 20, berries 5, axe 1, _");

    // 12 of the chest's first stack onto the backpack's fourth slot
    let t = drag(&mut app, chest, backpack, slot(0, 12).to_slot(3));
    assert_eq!(tally(&t), (12, 0, None));
    assert_eq!(
        (spots(&t.from), spots(&t.landed)),
        (vec![(0, 12)], vec![(3, 12)])
    );
    assert_eq!(show(&app, chest), "berries 8, berries 5, axe 1, _");
    let bag = "_, _, _, berries 12, _, _, _, _, _, _, _, _";
    assert_eq!(show(&app, backpack), bag);

    // "move the axe to the backpack": no slot named, its fill order decides
    let t = drag(&mut app, chest, backpack, TransferRequest::item("axe", 1));
    assert_eq!(spots(&t.landed), [(0, 1)]);
    assert_eq!(show(&app, chest), "berries 8, berries 5, _, _");
    let bag = "axe 1, _, _, berries 12, _, _, _, _, _, _, _, _";
    assert_eq!(show(&app, backpack), bag);
    assert!(pickups(&mut app).is_empty());
    assert_eq!(app.world().resource::<Seen>().transferred.len(), 2);
}

#[test]
fn a_drag_onto_a_nearly_full_slot_leaves_the_rest_in_the_chest_not_on_the_ground() {
    let (mut app, chest, backpack) = game();
    deliver(&mut app, chest, "berries", 20, None);
    deliver(&mut app, backpack, "berries", 18, None);

    // the backpack leaves its leftovers where they are, but a transfer
    // never uses that: what does not fit stays in the chest slot
    let t = drag(&mut app, chest, backpack, slot(0, 20).to_slot(0));
    assert_eq!(tally(&t), (2, 0, None));
    assert_eq!(show(&app, chest), "berries 18, _, _, _");
    let bag = "berries 20, _, _, _, _, _, _, _, _, _, _, _";
    assert_eq!(show(&app, backpack), bag);
    assert!(pickups(&mut app).is_empty(), "{:?}", pickups(&mut app));

    // the same by type, into a full-ish one-slot pouch with that rule
    let pouch_rules = read(&adoption_json(
        slot_answers("left-where-it-is"),
        1,
        0.0,
        json!([{"id": "berries", "stack-limit": 20, "when-forced-out": "never"}]),
    ));
    let (pouch, _) = spawn(&mut app, pouch_rules, Vec3::ZERO);
    deliver(&mut app, pouch, "berries", 15, None);
    let t = drag(&mut app, chest, pouch, TransferRequest::item("berries", 18));
    assert_eq!(tally(&t), (5, 0, None));
    assert_eq!(show(&app, chest), "berries 13, _, _, _");
    assert_eq!(show(&app, pouch), "berries 20");
    assert!(pickups(&mut app).is_empty(), "{:?}", pickups(&mut app));

    // while a plain delivery to the full pouch does drop its overflow:
    // the rule is live, the transfer just does not apply it
    deliver(&mut app, pouch, "berries", 4, None);
    let p = pickups(&mut app);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!((p[0].1.item.as_str(), p[0].1.amount), ("berries", 4));
}

#[test]
fn a_whole_stack_dropped_on_another_type_swaps_and_a_partial_one_is_refused() {
    let (mut app, chest, backpack) = game();
    deliver(&mut app, chest, "berries", 25, None);
    deliver(&mut app, backpack, "axe", 1, None);
    deliver(&mut app, backpack, "letter", 1, None);

    // the whole stack of 20 berries onto the axe: they change places
    let t = drag(&mut app, chest, backpack, slot(0, 20).to_slot(0));
    assert_eq!(tally(&t), (20, 0, None));
    let axe = Swapped {
        item: "axe".into(),
        props: Default::default(),
        amount: 1,
    };
    assert_eq!(t.swapped, Some(axe));
    assert_eq!(show(&app, chest), "axe 1, berries 5, _, _");
    let bag = "berries 20, letter 1, _, _, _, _, _, _, _, _, _, _";
    assert_eq!(show(&app, backpack), bag);

    // 3 of the 5 berries onto the letter: not the whole stack, no swap
    let before = (slots(&app, chest), slots(&app, backpack));
    let t = drag(&mut app, chest, backpack, slot(1, 3).to_slot(1));
    assert_eq!(tally(&t), (0, 3, Some(Reason::Occupied)));
    assert_eq!(t.swapped, None);
    assert_eq!((slots(&app, chest), slots(&app, backpack)), before);
    assert!(pickups(&mut app).is_empty());
}

/// What the observers heard: (the entity observed, the outcome, its
/// `container`), and every transfer a global observer saw.
#[derive(Resource, Default)]
struct Heard {
    by: Vec<(Entity, &'static str, Entity)>,
    every_transfer: Vec<Entity>,
}

/// Puts a delivery and a transfer observer on `on`, as its UI would.
fn listen(app: &mut App, on: Entity) {
    app.world_mut()
        .entity_mut(on)
        .observe(move |d: On<ItemsDelivered>, mut h: ResMut<Heard>| {
            h.by.push((on, "delivered", d.container))
        })
        .observe(move |t: On<ItemsTransferred>, mut h: ResMut<Heard>| {
            h.by.push((on, "transferred", t.container))
        });
}

fn heard_by(app: &App, on: Entity) -> Vec<(&'static str, Entity)> {
    let by = &app.world().resource::<Heard>().by;
    by.iter()
        .filter(|h| h.0 == on)
        .map(|h| (h.1, h.2))
        .collect()
}

#[test]
fn each_container_hears_its_own_outcomes_and_a_transfer_reaches_both_once() {
    let (mut app, chest, backpack) = game();
    app.init_resource::<Heard>()
        .add_observer(|t: On<ItemsTransferred>, mut h: ResMut<Heard>| {
            h.every_transfer.push(t.container)
        });
    listen(&mut app, chest);
    listen(&mut app, backpack);
    let every = |app: &App| app.world().resource::<Heard>().every_transfer.clone();

    // a delivery reaches its own container's observer only
    deliver(&mut app, chest, "berries", 5, None);
    assert_eq!(heard_by(&app, chest), [("delivered", chest)]);
    assert!(heard_by(&app, backpack).is_empty());
    deliver(&mut app, backpack, "letter", 1, None);
    assert_eq!(heard_by(&app, chest), [("delivered", chest)]);
    assert_eq!(heard_by(&app, backpack), [("delivered", backpack)]);
    assert!(every(&app).is_empty());

    // a transfer reaches each side once, naming that side; a global
    // observer sees it once per container; the message is written once
    let t = drag(
        &mut app,
        chest,
        backpack,
        TransferRequest::item("berries", 3),
    );
    assert_eq!(t.moved, 3);
    let chest_heard = [("delivered", chest), ("transferred", chest)];
    assert_eq!(heard_by(&app, chest), chest_heard);
    let backpack_heard = [("delivered", backpack), ("transferred", backpack)];
    assert_eq!(heard_by(&app, backpack), backpack_heard);
    assert_eq!(every(&app), [chest, backpack]);
    let m = &app.world().resource::<Seen>().transferred;
    assert_eq!(m.len(), 1);
    assert_eq!(
        (m[0].container, m[0].from, m[0].to),
        (chest, chest, backpack)
    );

    // a refused drag (an empty chest slot) still tells both sides, once
    let t = drag(&mut app, chest, backpack, slot(3, 1));
    assert_eq!(t.refused, Some(Reason::EmptySlot));
    assert_eq!(heard_by(&app, chest)[2..], [("transferred", chest)]);
    assert_eq!(heard_by(&app, backpack)[2..], [("transferred", backpack)]);
    assert_eq!(every(&app), [chest, backpack, chest, backpack]);
}

/// (observed entity, `container`) for each entity observer, and every
/// `ContainerReady` a global observer saw.
#[derive(Resource, Default)]
struct Ready {
    by: Vec<(Entity, Entity)>,
    all: Vec<Entity>,
}

fn is_ready(app: &App, e: Entity) -> bool {
    app.world().get::<ContainerContents>(e).unwrap().is_ready()
}

#[test]
fn each_container_is_ready_once_when_its_own_rules_attach() {
    let mut app = app();
    app.init_resource::<Ready>()
        .add_observer(|r: On<ContainerReady>, mut log: ResMut<Ready>| log.all.push(r.container));
    // the chest's file is still loading; the backpack's is there
    let assets = app.world().resource::<Assets<AdoptionAsset>>();
    let loading = assets.reserve_handle();
    let mut assets = app.world_mut().resource_mut::<Assets<AdoptionAsset>>();
    let loaded = assets.add(AdoptionAsset::new(seed()));
    let mut spawn_watched = |handle: Handle<AdoptionAsset>| {
        let mut e = app.world_mut().spawn(Container::new(handle));
        let on = e.id();
        e.observe(move |r: On<ContainerReady>, mut log: ResMut<Ready>| {
            log.by.push((on, r.container))
        });
        on
    };
    let chest = spawn_watched(loading.clone());
    let backpack = spawn_watched(loaded);
    for _ in 0..3 {
        app.update();
    }
    let ready = app.world().resource::<Ready>();
    assert_eq!(ready.by, [(backpack, backpack)]);
    assert_eq!(ready.all, [backpack]);
    assert!(!is_ready(&app, chest) && is_ready(&app, backpack));

    // asking too early is answered, not lost
    send(&mut app, Deliver::new(chest, "berries", 5));
    let unanswered = &app.world().resource::<Seen>().unanswered;
    let why = unanswered.last().map(|u| u.reason.clone());
    assert_eq!(why, Some(NotAnswered::NotReady(chest)));

    let mut assets = app.world_mut().resource_mut::<Assets<AdoptionAsset>>();
    assets
        .insert(loading.id(), AdoptionAsset::new(chest_rules()))
        .unwrap();
    for _ in 0..3 {
        app.update();
    }
    let ready = app.world().resource::<Ready>();
    assert_eq!(ready.by, [(backpack, backpack), (chest, chest)]);
    assert_eq!(ready.all, [backpack, chest]);
    assert!(is_ready(&app, chest));
}

fn place(app: &mut App, e: Entity, at: Vec3) {
    app.world_mut().get_mut::<Transform>(e).unwrap().translation = at;
}

fn assert_near(got: Vec3, want: Vec3) {
    assert!(got.distance(want) < 1e-4, "at {got}, expected {want}");
}

#[test]
fn a_torn_strap_drops_beside_the_player_where_he_is_in_that_frame_2d() {
    // no TransformPlugin here: GlobalTransform is never propagated
    let mut app = app();
    app.insert_resource(PickupPlacement::ring_2d(32.0));
    let axes = read(&adoption_json(
        slot_answers("left-where-it-is"),
        2,
        0.0,
        json!([{"id": "axe", "stack-limit": 1, "when-forced-out": "dropped-nearby", "forced-out-order": 1}]),
    ));
    let player = app
        .world_mut()
        .spawn(Transform::from_xyz(100.0, 50.0, 0.0))
        .id();
    // worn a little above the player's origin
    let (bag, _) = spawn(&mut app, axes, Vec3::new(0.0, 8.0, 0.0));
    app.world_mut().entity_mut(bag).insert(ChildOf(player));
    deliver(&mut app, bag, "axe", 2, None);
    place(&mut app, player, Vec3::new(120.0, 50.0, 0.0));
    app.update();

    // the strap tears in the frame the player moves again
    place(&mut app, player, Vec3::new(140.0, 60.0, 0.0));
    let tear = Resize {
        container: bag,
        slot_count: Some(1),
        size_budget: None,
    };
    app.world_mut().write_message(ContainerRequest::from(tear));
    app.update();

    assert_eq!(show(&app, bag), "axe 1");
    let p = pickups(&mut app);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!((p[0].1.item.as_str(), p[0].1.amount), ("axe", 1));
    // the player's world position + the bag's local offset + the first ring offset
    let want = Vec3::new(140.0, 60.0, 0.0) + Vec3::new(0.0, 8.0, 0.0) + Vec3::new(32.0, 0.0, 0.0);
    assert_near(p[0].2, want);
    let dropped = Settled::Pickup {
        pickup: p[0].0,
        item: "axe".into(),
        props: Default::default(),
        amount: 1,
    };
    assert_eq!(last_forced(&app).settled, [dropped]);
}

#[test]
fn a_full_backpack_drops_beside_the_player_where_he_is_in_that_frame_3d() {
    // TransformPlugin (bevy::transform) propagates GlobalTransform in
    // PostUpdate: a frame late for a request answered in Update
    let mut app = app();
    app.add_plugins(TransformPlugin)
        .insert_resource(PickupPlacement::ring_3d(0.5));
    let player = app
        .world_mut()
        .spawn(Transform::from_xyz(10.0, 0.0, -4.0))
        .id();
    let (bag, _) = spawn(&mut app, seed(), Vec3::ZERO);
    app.world_mut().entity_mut(bag).insert(ChildOf(player));
    place(&mut app, player, Vec3::new(11.0, 0.0, -4.0));
    app.update();
    let propagated = app.world().get::<GlobalTransform>(bag).unwrap();
    assert_near(propagated.translation(), Vec3::new(11.0, 0.0, -4.0));

    // he steps up a slope in the frame the 243rd berry arrives (12 x 20 fit)
    place(&mut app, player, Vec3::new(12.0, 1.5, -5.0));
    let berries = Deliver::new(bag, "berries", 243);
    app.world_mut()
        .write_message(ContainerRequest::from(berries));
    app.update();

    let p = pickups(&mut app);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!((p[0].1.item.as_str(), p[0].1.amount), ("berries", 3));
    // the first ring_3d offset is (0.5, 0, 0): on the ground plane, y kept
    assert_near(p[0].2, Vec3::new(12.5, 1.5, -5.0));
}

#[derive(Resource, Default)]
struct LeftWorld(Vec<ContainerLeftWorld>);

fn collect_left(mut left: MessageReader<ContainerLeftWorld>, mut out: ResMut<LeftWorld>) {
    out.0.extend(left.read().cloned());
}

fn sum(stacks: &[(Kind, u32)]) -> BTreeMap<ItemType, u64> {
    let mut out = BTreeMap::new();
    for (kind, n) in stacks {
        *out.entry(kind.item.clone()).or_insert(0) += u64::from(*n);
    }
    out
}

#[test]
fn unloading_a_level_takes_its_containers_out_of_the_world_with_every_item_listed() {
    let mut app = app();
    app.init_resource::<LeftWorld>()
        .add_systems(Last, collect_left);
    let level = (Name::new("level"), Transform::default());
    let level = app.world_mut().spawn(level).id();
    let stocked: [(Adoption, &[(&str, u32)]); 3] = [
        (chest_rules(), &[("berries", 25), ("axe", 1)]),
        (chest_rules(), &[("letter", 1), ("berries", 7)]),
        (seed(), &[("berries", 40), ("axe", 1), ("letter", 1)]),
    ];
    let mut held: BTreeMap<Entity, BTreeMap<ItemType, u64>> = BTreeMap::new();
    for (i, (rules, items)) in stocked.into_iter().enumerate() {
        let (c, _) = spawn(&mut app, rules, Vec3::new(i as f32 * 10.0, 0.0, 0.0));
        let unloads = (DespawnPolicy::LeaveWithContents, ChildOf(level));
        app.world_mut().entity_mut(c).insert(unloads);
        for &(item, n) in items {
            assert_eq!(deliver(&mut app, c, item, n, None).outcome.accepted, n);
        }
        let contents = app.world().get::<ContainerContents>(c).unwrap();
        held.insert(c, contents.engine().unwrap().totals());
    }

    app.world_mut().entity_mut(level).despawn();
    for _ in 0..2 {
        app.update();
    }

    for &c in held.keys() {
        assert!(
            app.world().get_entity(c).is_err(),
            "{c} went with its level"
        );
    }
    assert!(pickups(&mut app).is_empty(), "{:?}", pickups(&mut app));
    assert!(app.world().resource::<Seen>().spilled.is_empty());
    let left = &app.world().resource::<LeftWorld>().0;
    assert_eq!(left.len(), 3, "{left:?}");
    let mut listed: BTreeMap<Entity, BTreeMap<ItemType, u64>> = BTreeMap::new();
    for m in left {
        let twice = listed.insert(m.container, sum(&m.contents));
        assert!(twice.is_none(), "{} listed twice", m.container);
    }
    assert_eq!(listed, held);
    let everything: Vec<_> = left.iter().flat_map(|m| m.contents.clone()).collect();
    let want = [("axe", 2), ("berries", 72), ("letter", 2)].map(|(i, n)| (ItemType::from(i), n));
    assert_eq!(sum(&everything), BTreeMap::from(want));
}
