//! Criterion benchmarks of the workloads behind `examples/perf.rs`: each
//! figure's subject next to its baseline, so `cargo bench` shows both.
//!
//! ```text
//! cargo bench --bench container --all-features
//! ```

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bevy::prelude::{App, Entity};
use bevy_container::adoption::{self, Context, Format, Tuning};
use bevy_container::contents::Contents;
use bevy_container::rules::Rules;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

mod workloads;
use workloads::*;

/// One criterion group: the same day on the engine and on the baseline.
fn bench_day(
    c: &mut Criterion,
    group: &str,
    samples: usize,
    (engine, base): (&Contents, &Baseline),
    names: &[String],
    ops: &[Op],
) {
    let mut g = c.benchmark_group(group);
    g.sample_size(samples);
    g.bench_function("engine", |b| {
        b.iter_batched_ref(
            || engine.clone(),
            |e| play(e, names, ops),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("baseline", |b| {
        b.iter_batched_ref(
            || base.clone(),
            |e| play(e, names, ops),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn day_12(c: &mut Criterion) {
    let (rules, _) = seed_rules();
    let names: Vec<String> = ["berries", "axe", "letter", "flint"]
        .map(String::from)
        .to_vec();
    let limits: Vec<(String, u32)> = rules
        .rows
        .iter()
        .map(|r| (r.id.clone(), r.stack_limit))
        .collect();
    let ops = day(names.len(), 2_000, 12, 25, Takes::BySlot(12));
    let engine = Contents::new(Arc::new(rules.clone()));
    let base = Baseline::new(rules.slot_count as usize, &limits);
    let pair = (&engine, &base);
    bench_day(c, "day-12-slots-2000-ops", 100, pair, &names, &ops);
}

fn day_10k(c: &mut Criterion) {
    let (rules, limits) = bank_rules(1000, 10_000);
    let names: Vec<String> = (0..1000).map(|i| format!("item-{i}")).collect();
    let ops = day(names.len(), 2_000, 10, 60, Takes::ByType);
    let mut engine = Contents::new(Arc::new(rules.clone()));
    let mut base = Baseline::new(10_000, &limits);
    for i in 0..6_000 {
        engine.deliver(&names[i % 1000], 1);
        base.deliver(&names[i % 1000], 1);
    }
    let pair = (&engine, &base);
    bench_day(c, "day-10k-slots-2000-ops", 20, pair, &names, &ops);
}

fn forced_removal_10k(c: &mut Criterion) {
    let (rules, _) = bank_rules(1000, 10_000);
    let names: Vec<String> = (0..1000).map(|i| format!("item-{i}")).collect();
    let full = full_bank(&Arc::new(rules), &names);
    let stacks: Vec<(u32, u32)> = full
        .slots()
        .flatten()
        .map(|s| (s.amount, s.item.as_str().len() as u32))
        .collect();
    let mut g = c.benchmark_group("forced-removal-10k-to-5k");
    g.sample_size(20);
    g.bench_function("shrink", |b| {
        b.iter_batched_ref(
            || full.clone(),
            |e| black_box(e.resize(Some(5_000), None)),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("sort-10k-stacks", |b| {
        b.iter_batched_ref(
            || stacks.clone(),
            |v| v.sort_unstable(),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

/// `iters` frames of [`write_requests`] on `app`, only the frames timed.
fn request_frames(app: &mut App, bags: &[Entity], iters: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        write_requests(app, bags);
        let t = Instant::now();
        app.update();
        total += t.elapsed();
    }
    total
}

fn ecs_frame(c: &mut Criterion) {
    let (mut app, bags) = backpack_app(10_000);
    let (mut floor, floor_bags) = floor_app(10_000);
    let mut engines = backpack_engines(10_000);
    let mut g = c.benchmark_group("10k-backpacks-deliver-and-take");
    g.sample_size(10);
    g.bench_function("ecs-frame", |b| {
        b.iter_custom(|iters| request_frames(&mut app, &bags, iters))
    });
    // the least a Bevy system can do with the same requests (no plugin)
    g.bench_function("ecs-floor-frame", |b| {
        b.iter_custom(|iters| request_frames(&mut floor, &floor_bags, iters))
    });
    g.bench_function("engine-direct", |b| {
        b.iter(|| engine_requests(&mut engines))
    });
    g.finish();
}

/// A frame of 100,000 requests over 10,000 independent backpacks, answered
/// serially and with two and three threads (`ContainerParallelism`).
fn parallel_frame(c: &mut Criterion) {
    use bevy_container::plugin::ContainerParallelism;
    use std::num::NonZeroUsize;
    let mut g = c.benchmark_group("10k-backpacks-100k-requests-one-frame");
    g.sample_size(10);
    let modes = [
        ("serial", ContainerParallelism::Serial),
        (
            "2-threads",
            ContainerParallelism::Threads(NonZeroUsize::new(2).unwrap()),
        ),
        (
            "3-threads",
            ContainerParallelism::Threads(NonZeroUsize::new(3).unwrap()),
        ),
    ];
    for (name, mode) in modes {
        let (mut app, bags) = backpack_app_with(10_000, mode);
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    write_rounds(&mut app, &bags, 5);
                    let t = Instant::now();
                    app.update();
                    total += t.elapsed();
                }
                total
            })
        });
    }
    g.finish();
}

/// A frame in which nothing happens to containers: a bare Bevy app, and
/// one with the plugin and 10,000 ready backpacks (the plugin's systems
/// have run conditions, so they should add next to nothing).
fn idle_frame(c: &mut Criterion) {
    let mut g = c.benchmark_group("idle-frame");
    let mut bare = bare_app();
    g.bench_function("bare-bevy", |b| b.iter(|| bare.update()));
    let (mut app, _bags) = backpack_app(10_000);
    g.bench_function("plugin-10k-backpacks", |b| b.iter(|| app.update()));
    g.finish();
}

fn drags(c: &mut Criterion) {
    let (chest, bag, drags) = drag_day(1_000);
    let mut g = c.benchmark_group("1k-drags-chest-and-backpack");
    g.bench_function("transfer", |b| {
        b.iter_batched(
            || (chest.clone(), bag.clone()),
            |(mut c, mut b)| play_transfers(&mut c, &mut b, &drags),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("take-then-deliver", |b| {
        b.iter_batched(
            || (chest.clone(), bag.clone()),
            |(mut c, mut b)| play_take_deliver(&mut c, &mut b, &drags),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn load_seed(c: &mut Criterion) {
    let (_, bytes) = seed_rules();
    let mut g = c.benchmark_group("seed-adoption");
    g.bench_function("read-validate-compile", |b| {
        b.iter(|| {
            let a = adoption::read(&bytes, Format::Json, Context::default()).unwrap();
            black_box(Rules::compile(&a, &Tuning::default()).unwrap())
        })
    });
    g.bench_function("serde-json-value", |b| {
        b.iter(|| black_box(serde_json::from_slice::<serde_json::Value>(&bytes).unwrap()))
    });
    g.finish();
}

criterion_group!(
    benches,
    day_12,
    day_10k,
    forced_removal_10k,
    ecs_frame,
    parallel_frame,
    idle_frame,
    drags,
    load_seed
);
criterion_main!(benches);
