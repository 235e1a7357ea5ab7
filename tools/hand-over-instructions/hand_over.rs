//! The persisted frame of `examples/perf` (`persist-frame-vs-frame`):
//! 10,000 persisted backpacks on a SQLite file, all systems on one
//! thread, and frames in which a different thousand of them get a
//! delivery and a take. `tools/hand-over-instructions` runs it twice under
//! callgrind, counting only `send_frame` (the game thread's hand-over),
//! once with `FIRST` frames and once with `FIRST + MEASURED`: the
//! difference over `MEASURED` frames and 1,000 changed containers is what
//! one changed container costs the game thread, the first frames' naming
//! of every id left out. Copied into a checkout's `examples/` by the tool.
//!
//! It also prints the hand-over's times over the frames after the first
//! four (`tools/hand-over-instructions/time` runs it natively, 400 frames,
//! commits in turn): one app, so no other app's frames cool its caches
//! as in `examples/perf`'s race, where the same hand-over reads about a
//! quarter slower.

use bevy::ecs::schedule::{Schedules, SingleThreadedExecutor};
use bevy_container::persist::{
    ContainerDatabase, ContainerDatabasePlugin, DatabaseWriter, PersistentId,
};

#[path = "../benches/workloads/mod.rs"]
#[allow(dead_code)]
mod workloads;

use workloads::*;

/// The frames that name every id, left out of the times.
const FIRST: usize = 4;

fn main() {
    let frames: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(4);
    let dir = std::env::temp_dir().join(format!("hand-over-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let db = ContainerDatabase::open(&dir.join("bags.db")).expect("a new file");
    let (mut app, bags) = backpack_app_then(10_000, |app| {
        app.add_plugins(ContainerDatabasePlugin::new(db));
    });
    let mut schedules = app.world_mut().resource_mut::<Schedules>();
    for (_, schedule) in schedules.iter_mut() {
        schedule.set_executor(SingleThreadedExecutor::new());
    }
    for (i, &bag) in bags.iter().enumerate() {
        app.world_mut()
            .entity_mut(bag)
            .insert(PersistentId::new(format!("bag-{i}")));
    }
    let mut took = Vec::new();
    for frame in 0..frames {
        let start = (frame * 1_000) % bags.len();
        write_requests(&mut app, &bags[start..start + 1_000]);
        app.update();
        app.world()
            .resource::<DatabaseWriter>()
            .flush()
            .expect("written");
        if frame >= FIRST {
            let stages = app
                .world()
                .resource::<DatabaseWriter>()
                .last_hand_over_stages();
            took.push(stages.total().as_secs_f64() * 1e6);
        }
        // as in `examples/perf`: the next frame does not start the
        // instant the writer is done
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    took.sort_by(f64::total_cmp);
    let at = |q: f64| took[((took.len() - 1) as f64 * q).round() as usize];
    if !took.is_empty() {
        println!(
            "hand-over of 1,000 changed containers: median {:.1} us (fastest {:.1}, quartiles {:.1} and {:.1}; {} frames)",
            at(0.5),
            at(0.0),
            at(0.25),
            at(0.75),
            took.len()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
