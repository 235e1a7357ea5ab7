use bevy_container::contents::Contents;
use std::sync::Arc;
use std::time::Instant;
#[path = "../benches/workloads/mod.rs"]
mod workloads;
use workloads::*;
fn main() {
    let (bank, _limits) = bank_rules(1000, 10_000);
    let names: Vec<String> = (0..1000).map(|i| format!("item-{i}")).collect();
    let ops = day(names.len(), 20_000, 10, 60, Takes::ByType);
    let mut start = Contents::new(Arc::new(bank));
    for i in 0..6000 {
        start.deliver(&names[i % names.len()], 1);
    }
    let mut best = f64::MAX;
    for _ in 0..200 {
        let mut c = start.clone();
        let t = Instant::now();
        play(&mut c, &names, &ops);
        best = best.min(t.elapsed().as_nanos() as f64 / ops.len() as f64);
    }
    println!("bank best {best:.1} ns/op");
}
