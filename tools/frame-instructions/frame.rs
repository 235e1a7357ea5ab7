//! The frame of `examples/perf`'s `plugin-over-floor`: 10,000 seed
//! backpacks, every one getting a delivery and a take a frame (20,000
//! requests), answered by the plugin (`plugin`) or by the bare system of
//! `floor_app` (`floor`), every system on one thread.
//! `tools/frame-instructions` runs it under callgrind with 2 frames and
//! with 7, for each kind, counting only `App::update` (the frame, not the
//! writing of its requests): the difference over 100,000 requests is what
//! one request costs a frame, the apps' setup left out. Copied into a
//! checkout's `examples/` by the tool.

use bevy::ecs::schedule::{Schedules, SingleThreadedExecutor};

#[path = "../benches/workloads/mod.rs"]
#[allow(dead_code)]
mod workloads;

use workloads::*;

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_default();
    let frames: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2);
    let (mut app, bags) = match kind.as_str() {
        "plugin" => backpack_app(10_000),
        "floor" => floor_app(10_000),
        _ => panic!("say plugin or floor, then a number of frames"),
    };
    // the clock stands still: Bevy's fixed-step schedule, which runs by
    // the clock, would run more often in a run slowed by callgrind
    app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
        std::time::Duration::ZERO,
    ));
    let mut schedules = app.world_mut().resource_mut::<Schedules>();
    for (_, schedule) in schedules.iter_mut() {
        schedule.set_executor(SingleThreadedExecutor::new());
    }
    for _ in 0..frames {
        write_requests(&mut app, &bags);
        app.update();
    }
}
