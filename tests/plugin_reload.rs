//! Adoption files from disk, hot reloads (one that shrinks, one refused, one
//! invalid), and tuning changes.

mod common;

use bevy::asset::io::{
    AssetSourceBuilder, AssetSourceId,
    memory::{Dir, MemoryAssetReader},
};
use bevy::prelude::*;
use bevy_container::adoption::{Tuning, ValueSource};
use bevy_container::contents::Cause;
use bevy_container::plugin::*;
use common::*;

fn disk_app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, crate_assets(), ContainerPlugin::default()));
    app.init_resource::<Seen>();
    app
}

fn update_until(app: &mut App, mut done: impl FnMut(&mut App) -> bool) {
    for _ in 0..2000 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("not done after 2000 updates");
}

fn ready(app: &App, e: Entity) -> bool {
    app.world()
        .get::<ContainerContents>(e)
        .is_some_and(|c| c.engine().is_some())
}

#[test]
fn the_seed_loads_from_disk_as_json_and_ron() {
    let mut app = disk_app();
    let server = app.world().resource::<AssetServer>().clone();
    let json = app
        .world_mut()
        .spawn(Container::new(server.load("backpack.adoption.json")))
        .id();
    let ron = app
        .world_mut()
        .spawn(Container::new(server.load("backpack.adoption.ron")))
        .id();
    update_until(&mut app, |app| ready(app, json) && ready(app, ron));
    assert_eq!(slots(&app, json).len(), 12);
    let a = app
        .world()
        .get::<ContainerContents>(json)
        .unwrap()
        .engine()
        .unwrap()
        .rules()
        .clone();
    let b = app
        .world()
        .get::<ContainerContents>(ron)
        .unwrap()
        .engine()
        .unwrap()
        .rules()
        .clone();
    assert_eq!(a, b);
}

#[test]
fn an_invalid_file_is_rejected_with_its_report() {
    let dir = Dir::default();
    dir.insert_asset_text(
        std::path::Path::new("broken.adoption.json"),
        r#"{"contract": "container", "version": 1, "answers": {}, "values": {}, "rows": {}}"#,
    );
    let mut app = App::new();
    let d = dir.clone();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || Box::new(MemoryAssetReader { root: d.clone() })),
    );
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
    ));
    app.init_resource::<Seen>();
    let handle: Handle<AdoptionAsset> = app
        .world()
        .resource::<AssetServer>()
        .load("broken.adoption.json");
    let e = app.world_mut().spawn(Container::new(handle)).id();
    let mut seen = Vec::new();
    update_until(&mut app, |app| {
        let msgs = app.world().resource::<Messages<AdoptionRejected>>();
        seen.extend(msgs.get_cursor().read(msgs).cloned());
        !seen.is_empty()
    });
    assert!(
        seen[0].message.contains("/answers/capacity-limit"),
        "{}",
        seen[0].message
    );
    assert!(
        seen[0].message.contains("/rows/items"),
        "every problem: {}",
        seen[0].message
    );
    assert!(!ready(&app, e));
}

fn set_slot_count(app: &mut App, handle: &Handle<AdoptionAsset>, n: f64) {
    let mut assets = app.world_mut().resource_mut::<Assets<AdoptionAsset>>();
    let mut asset = assets.get_mut(handle).unwrap();
    asset
        .adoption
        .values
        .insert("slot-count".into(), ValueSource::Number(n));
}

#[test]
fn a_reload_that_shrinks_forces_items_out() {
    let mut app = app();
    let (bag, handle) = spawn(&mut app, seed(), Vec3::ZERO);
    deliver(&mut app, bag, "axe", 3, None);
    deliver(&mut app, bag, "berries", 20, None);
    set_slot_count(&mut app, &handle, 2.0);
    app.update();
    app.update();
    let forced = last_forced(&app);
    assert_eq!(forced.outcome.cause, Cause::RulesChanged);
    assert_eq!(forced.outcome.portions.len(), 2);
    assert_eq!(
        slots(&app, bag),
        vec![Some(("axe".into(), 1)), Some(("berries".into(), 20))]
    );
    assert_eq!(pickups(&mut app).len(), 2);
}

#[test]
fn a_reload_that_cannot_be_met_is_refused_and_the_old_rules_stay() {
    let mut app = app();
    let (bag, handle) = spawn(&mut app, seed(), Vec3::ZERO);
    deliver(&mut app, bag, "berries", 60, None);
    set_slot_count(&mut app, &handle, 2.0);
    app.update();
    app.update();
    let forced = last_forced(&app);
    assert!(forced.outcome.refused.is_some());
    assert_eq!(slots(&app, bag).len(), 12, "old capacity stays");
    assert!(pickups(&mut app).is_empty());
    // the player takes a stack out: the two left fit, and the reload is
    // in force at once, as a refused swap would be
    send(&mut app, Take::new(bag, "berries", 20).from_slot(2));
    app.update();
    app.update();
    let now = slots(&app, bag);
    assert_eq!(now.len(), 2, "the reloaded capacity, once it fits");
    assert_eq!(now.iter().flatten().map(|(_, n)| n).sum::<u32>(), 40);
    assert!(last_forced(&app).outcome.refused.is_none());
}

#[test]
fn a_reload_with_errors_keeps_the_old_rules_and_reports() {
    let mut app = app();
    let (bag, handle) = spawn(&mut app, seed(), Vec3::ZERO);
    set_slot_count(&mut app, &handle, -3.0);
    app.update();
    app.update();
    let rejected = &app.world().resource::<Seen>().rejected;
    assert_eq!(rejected.len(), 1);
    let report = rejected[0].report.as_ref().unwrap();
    assert!(
        report.at("/rules/slot-count-not-negative").is_some(),
        "{report}"
    );
    assert_eq!(slots(&app, bag).len(), 12);
}

/// A seed backpack whose slot count is the tuning key `backpack-slots`,
/// tuned to 6.
fn spawn_tuned(app: &mut App) -> (Entity, Handle<AdoptionAsset>) {
    let mut adoption = seed();
    adoption.values.insert(
        "slot-count".into(),
        ValueSource::Tuning {
            tuning: "backpack-slots".into(),
        },
    );
    app.insert_resource(ContainerTuning(
        Tuning::default().with("backpack-slots", 6.0),
    ));
    spawn(app, adoption, Vec3::ZERO)
}

#[test]
fn a_tuning_change_resizes_and_a_removed_key_is_reported() {
    let mut app = app();
    let (bag, _) = spawn_tuned(&mut app);
    assert_eq!(slots(&app, bag).len(), 6);
    deliver(&mut app, bag, "axe", 4, None);
    app.world_mut()
        .resource_mut::<ContainerTuning>()
        .set("backpack-slots", 3.0);
    app.update();
    assert_eq!(slots(&app, bag).len(), 3);
    assert_eq!(pickups(&mut app).len(), 1, "one axe dropped");
    app.world_mut()
        .resource_mut::<ContainerTuning>()
        .values
        .clear();
    app.update();
    app.update();
    let rejected = &app.world().resource::<Seen>().rejected;
    assert!(rejected.last().unwrap().message.contains("backpack-slots"));
    assert_eq!(slots(&app, bag).len(), 3, "rules stay");
}

fn rules_of(app: &App, e: Entity) -> std::sync::Arc<bevy_container::rules::Rules> {
    app.world()
        .get::<ContainerContents>(e)
        .and_then(|c| c.engine())
        .expect("engine attached")
        .rules()
        .clone()
}

fn spawn_on(app: &mut App, handle: &Handle<AdoptionAsset>) -> Entity {
    let e = app
        .world_mut()
        .spawn((Container::new(handle.clone()), Transform::default()))
        .id();
    app.update();
    e
}

#[test]
fn containers_of_one_adoption_share_its_rules_until_it_or_the_tuning_changes() {
    let mut app = app();
    let (first, handle) = spawn_tuned(&mut app);
    let second = spawn_on(&mut app, &handle);
    assert!(
        std::sync::Arc::ptr_eq(&rules_of(&app, first), &rules_of(&app, second)),
        "one compile shared by both"
    );
    assert_eq!(slots(&app, second).len(), 6);

    // a tuning change: a container spawned afterwards gets the new value,
    // not the shared copy of the old rules
    app.world_mut()
        .resource_mut::<ContainerTuning>()
        .set("backpack-slots", 4.0);
    app.update();
    let third = spawn_on(&mut app, &handle);
    assert_eq!(slots(&app, third).len(), 4);
    assert_eq!(slots(&app, first).len(), 4);
    assert!(
        std::sync::Arc::ptr_eq(&rules_of(&app, first), &rules_of(&app, third)),
        "the retuned container and the new one share one compile"
    );

    // a reload: the same
    set_slot_count(&mut app, &handle, 5.0);
    app.update();
    let fourth = spawn_on(&mut app, &handle);
    assert_eq!(slots(&app, fourth).len(), 5);
    assert_eq!(slots(&app, third).len(), 5);
    assert!(
        std::sync::Arc::ptr_eq(&rules_of(&app, fourth), &rules_of(&app, first)),
        "the reloaded container and the new one share one compile"
    );
}
