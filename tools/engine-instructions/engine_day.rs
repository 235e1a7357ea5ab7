//! The backpack's day of `examples/perf` (`engine-vs-baseline-12`), run a
//! few times in `run_days` and nothing else: `tools/engine-instructions`
//! counts the instructions of that function under callgrind, a figure a
//! busy machine cannot move. Copied into a checkout's `examples/` by the
//! tool; it uses only what `benches/workloads` has had since before
//! properties (`306a5a1`), so any commit since can be measured.

use std::sync::Arc;

use bevy_container::contents::Contents;

#[path = "../benches/workloads/mod.rs"]
#[allow(dead_code)]
mod workloads;

use workloads::*;

/// The days, each on a fresh copy of `start`; the function callgrind
/// counts.
#[inline(never)]
fn run_days(start: &Contents, names: &[String], ops: &[Op], n: usize) {
    for _ in 0..n {
        let mut c = start.clone();
        play(&mut c, names, ops);
        std::hint::black_box(&c);
    }
}

fn main() {
    let (seed, _) = seed_rules();
    let names: Vec<String> = ["berries", "axe", "letter", "flint"]
        .map(String::from)
        .to_vec();
    let ops = day(names.len(), 20_000, 12, 25, Takes::BySlot(12));
    let engine = Contents::new(Arc::new(seed));
    let days = 5;
    run_days(&engine, &names, &ops, days);
    println!("requests {}", days * ops.len());
}
