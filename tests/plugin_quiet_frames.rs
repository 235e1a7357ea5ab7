//! The plugin's systems run only when they have work (run conditions), so
//! a quiet frame costs a game next to nothing. These tests check that
//! nothing is missed for it: after a run of quiet frames, every kind of
//! change the systems watch for is still seen, in the frame it happens.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::prelude::*;
use bevy::reflect::GetPath;
use bevy_container::adoption::ValueSource;
use bevy_container::plugin::*;
use common::*;

/// A few frames in which nothing happens.
fn quiet(app: &mut App) {
    for _ in 0..5 {
        app.update();
    }
}

#[test]
fn an_observer_added_after_quiet_frames_sees_the_next_outcome() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, seed(), Vec3::ZERO);
    quiet(&mut app);
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    app.world_mut().add_observer(move |d: On<ItemsDelivered>| {
        counter.fetch_add(d.outcome.accepted as usize, Ordering::SeqCst);
    });
    send(&mut app, Deliver::new(bag, "berries", 3));
    assert_eq!(
        seen.load(Ordering::SeqCst),
        3,
        "the observer saw the delivery"
    );

    // an observer gone: the outcome is still written as a message
    let observers: Vec<Entity> = app
        .world_mut()
        .query_filtered::<Entity, With<bevy::ecs::observer::Observer>>()
        .iter(app.world())
        .collect();
    for o in observers {
        app.world_mut().despawn(o);
    }
    quiet(&mut app);
    send(&mut app, Deliver::new(bag, "berries", 2));
    assert_eq!(seen.load(Ordering::SeqCst), 3, "no observer is left");
    let seen = app.world().resource::<Seen>();
    let accepted: Vec<u32> = seen.delivered.iter().map(|d| d.outcome.accepted).collect();
    assert_eq!(accepted, [3, 2]);
}

/// Spawns a backpack in the middle of the plugin's frame, after its rules
/// were looked at and before its requests: the next frame attaches it.
#[derive(Resource)]
struct SpawnMidFrame(Option<Handle<AdoptionAsset>>);

fn spawn_mid_frame(mut spawn: ResMut<SpawnMidFrame>, mut commands: Commands) {
    if let Some(handle) = spawn.0.take() {
        commands.spawn(Container::new(handle));
    }
}

#[test]
fn a_container_spawned_between_the_plugins_sets_gets_its_rules() {
    let mut app = app();
    let (_, handle) = spawn(&mut app, seed(), Vec3::ZERO);
    app.insert_resource(SpawnMidFrame(None)).add_systems(
        Update,
        spawn_mid_frame
            .after(ContainerSystems::Rules)
            .before(ContainerSystems::Requests),
    );
    quiet(&mut app);
    app.world_mut().resource_mut::<SpawnMidFrame>().0 = Some(handle);
    app.update();
    app.update();
    let mut q = app.world_mut().query::<&ContainerContents>();
    let ready: Vec<bool> = q.iter(app.world()).map(|c| c.is_ready()).collect();
    assert_eq!(ready, [true, true], "both containers are ready");
}

#[test]
fn frame_stats_go_back_to_an_empty_frame() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, seed(), Vec3::ZERO);
    send(&mut app, Deliver::new(bag, "berries", 1));
    assert_eq!(app.world().resource::<ContainerFrameStats>().requests, 1);
    app.update();
    assert_eq!(
        *app.world().resource::<ContainerFrameStats>(),
        ContainerFrameStats::default()
    );
    quiet(&mut app);
    assert_eq!(
        *app.world().resource::<ContainerFrameStats>(),
        ContainerFrameStats::default()
    );
}

#[test]
fn an_edit_from_outside_after_quiet_frames_is_undone() {
    let mut app = app();
    let (bag, _) = spawn(&mut app, seed(), Vec3::ZERO);
    send(&mut app, Deliver::new(bag, "berries", 4));
    quiet(&mut app);
    {
        let mut c = app.world_mut().get_mut::<ContainerContents>(bag).unwrap();
        *c.path_mut::<u32>("mirror.slots[0].0.1")
            .expect("the mirror's first amount") = 99;
    }
    app.update();
    assert_eq!(slots(&app, bag)[0], Some(("berries".into(), 4)), "undone");
}

#[test]
fn a_file_changed_after_quiet_frames_is_put_in_force() {
    let mut app = app();
    let (bag, handle) = spawn(&mut app, seed(), Vec3::ZERO);
    quiet(&mut app);
    let slots_before = slots(&app, bag).len();
    {
        let mut assets = app.world_mut().resource_mut::<Assets<AdoptionAsset>>();
        let mut asset = assets.get_mut(&handle).expect("the seed asset");
        asset
            .adoption
            .values
            .insert("slot-count".into(), ValueSource::Number(20.0));
    }
    // the asset's change is announced after this frame's Update
    app.update();
    app.update();
    assert_ne!(slots_before, 20);
    assert_eq!(slots(&app, bag).len(), 20, "the new slot count is in force");
}
