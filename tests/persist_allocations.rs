//! The game thread's side of persistence allocates nothing per unchanged
//! container, and once its lists have room for a frame's changes, nothing
//! per frame at all: the hand-over copies into batches the writer hands
//! back (issue 60's "allocates nothing per unchanged container").
//!
//! Every allocation made on the test's own thread while the app updates
//! is counted; all of the app's schedules run on that thread, so what a
//! frame allocates on the game thread is counted, and the writer's thread
//! is not.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::PathBuf;
use std::time::Duration;

use bevy::ecs::schedule::{Schedules, SingleThreadedExecutor};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_container::persist::{ContainerDatabase, ContainerDatabasePlugin, DatabaseWriter};
use bevy_container::persist::{PersistentId, Synchronous};
use bevy_container::plugin::*;

/// Counts the allocations of a thread that asked for it.
struct CountingOnThisThread;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNTED: Cell<u64> = const { Cell::new(0) };
}

/// One allocation (or reallocation) on this thread, counted when asked.
fn count() {
    // `try_with`: a thread being torn down allocates too
    let on = COUNTING.try_with(Cell::get).unwrap_or(false);
    if on {
        let _ = COUNTED.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: every call is passed to the system allocator unchanged; the
// count touches only this thread's constant-initialised cells.
unsafe impl GlobalAlloc for CountingOnThisThread {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingOnThisThread = CountingOnThisThread;

/// The allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> u64 {
    let before = COUNTED.with(Cell::get);
    COUNTING.with(|on| on.set(true));
    f();
    COUNTING.with(|on| on.set(false));
    COUNTED.with(Cell::get) - before
}

/// A folder of its own for a test's file.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "bevy-container-allocations-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp folder");
    dir
}

/// An app of `n` backpacks holding a few berries, every schedule on this
/// thread; persisted (each with an id) in `db` when one is given.
fn bags(n: usize, db: Option<ContainerDatabase>) -> (App, Vec<Entity>) {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
    ));
    // time stands still: nothing of Bevy's runs by the clock (its fixed
    // schedules), so two apps' frames do the same work every run
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    let persisted = db.is_some();
    if let Some(db) = db {
        app.add_plugins(ContainerDatabasePlugin::new(db));
    }
    let handle = app
        .world_mut()
        .resource_mut::<Assets<AdoptionAsset>>()
        .add(AdoptionAsset::new(common::seed()));
    let bags: Vec<Entity> = (0..n)
        .map(|i| {
            let mut bag = app.world_mut().spawn(Container::new(handle.clone()));
            if persisted {
                bag.insert(PersistentId::new(format!("bag-{i}")));
            }
            bag.id()
        })
        .collect();
    for (_, schedule) in app.world_mut().resource_mut::<Schedules>().iter_mut() {
        schedule.set_executor(SingleThreadedExecutor::new());
    }
    app.update();
    for &bag in &bags {
        app.world_mut()
            .write_message(ContainerRequest::from(Deliver::new(bag, "berries", 5)));
    }
    app.update();
    (app, bags)
}

/// One frame: a delivery and a take for each of `changed`, the frame
/// written before the next (so the writer is never behind).
fn frame(app: &mut App, changed: &[Entity]) -> u64 {
    let made = unwritten_frame(app, changed);
    if let Some(writer) = app.world().get_resource::<DatabaseWriter>() {
        writer.flush().expect("written");
    }
    made
}

/// [`frame`], not waiting for the writer.
fn unwritten_frame(app: &mut App, changed: &[Entity]) -> u64 {
    for &bag in changed {
        let world = app.world_mut();
        world.write_message(ContainerRequest::from(Deliver::new(bag, "berries", 2)));
        world.write_message(ContainerRequest::from(
            Take::new(bag, "berries", 2).from_slot(0),
        ));
    }
    allocations(|| app.update())
}

/// The allocations of `frames` frames that change the first `changed`
/// of `n` backpacks, after as many frames to let every list grow.
fn steady_frames(
    n: usize,
    changed: usize,
    frames: usize,
    db: Option<ContainerDatabase>,
) -> Vec<u64> {
    let (mut app, bags) = bags(n, db);
    for _ in 0..frames {
        frame(&mut app, &bags[..changed]);
    }
    (0..frames)
        .map(|_| frame(&mut app, &bags[..changed]))
        .collect()
}

#[test]
fn a_persisted_frame_allocates_on_the_game_thread_what_a_plain_one_does() {
    // 50 backpacks change a frame, among 200 and among 2,000: a persisted
    // app allocates nothing per unchanged one, and nothing a frame (the
    // batches and their lists come back from the writer with their room)
    let dir = folder("steady");
    for n in [200, 2_000] {
        let plain = steady_frames(n, 50, 30, None);
        let db = ContainerDatabase::open(dir.join(format!("{n}.db")))
            .expect("a new file")
            .synchronous(Synchronous::Off);
        let persisted = steady_frames(n, 50, 30, Some(db));
        assert_eq!(
            persisted, plain,
            "allocations on the game thread in each of 30 frames of {n} backpacks, persisted and not"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "postgres")]
#[test]
fn a_writer_stalled_on_its_standby_costs_the_game_thread_no_allocation() {
    use bevy_container::persist::{Replication, ThrowawayOptions, ThrowawayPostgres};
    let pg = ThrowawayPostgres::start_with(ThrowawayOptions {
        standby: Some(Replication::Synchronous),
        ..ThrowawayOptions::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let url = pg.database("allocations").unwrap_or_else(|e| panic!("{e}"));
    let db = ContainerDatabase::open(&url)
        .unwrap_or_else(|e| panic!("{e}"))
        .queue(2);
    let (mut app, packs) = bags(200, Some(db));
    let changed = &packs[..50];
    let mut made: Vec<u64> = (0..30).map(|_| frame(&mut app, changed)).collect();
    // every commit waits for the standby from here: the queue fills, and
    // each frame after joins the newest waiting one
    pg.stop_standby().unwrap_or_else(|e| panic!("{e}"));
    // dropped before the app: a failed check brings the standby back, so
    // the writer's waiting commit ends and the app's drop does not hang
    let standby = StandbyBack(&pg);
    made.extend((0..60).map(|_| unwritten_frame(&mut app, changed)));
    let writer = app.world().resource::<DatabaseWriter>();
    let merged = writer.merged_while_behind();
    assert!(merged >= 50, "the frames joined the newest: {merged}");
    // once the merged batch has room for the frames' changes, a frame
    // allocates what the same plain frame does (the plugin's own)
    let (mut plain, plain_bags) = bags(200, None);
    let plain: Vec<u64> = (0..90)
        .map(|_| frame(&mut plain, &plain_bags[..50]))
        .collect();
    assert_eq!(
        made[60..],
        plain[60..],
        "allocations in the last 30 of 60 frames merged while the writer waited, and in the same plain frames ({made:?} against {plain:?})"
    );
    drop(standby);
    writer.flush().expect("written once the standby is back");
    assert_eq!(writer.stats().written_frame, writer.frame());
}

/// Brings a stopped standby back when dropped.
#[cfg(feature = "postgres")]
struct StandbyBack<'a>(&'a bevy_container::persist::ThrowawayPostgres);

#[cfg(feature = "postgres")]
impl Drop for StandbyBack<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.0.make_standby() {
            eprintln!("the standby did not come back: {e}");
        }
    }
}
