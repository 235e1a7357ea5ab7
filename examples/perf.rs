//! Performance figures, each measured side by side in one run against a
//! baseline, printed as `ratio NAME VALUE` (and `time NAME VALUE UNIT`).
//!
//! ```text
//! cargo run --release --example perf
//! ```
//!
//! The baseline is a hand-rolled container written the way a developer
//! would: a `Vec<Option<(u32, u32)>>` of (type id, amount), type ids from a
//! `HashMap<String, u32>`, top up then first empty, linear scans, no rules
//! and no outcomes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_container::adoption::{self, Context, Format, Tuning};
use bevy_container::contents::Contents;
use bevy_container::plugin::*;
use bevy_container::rules::Rules;
use serde_json::json;

/// Counts live heap bytes, for `bytes-per-backpack`.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new as isize - layout.size() as isize, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The hand-rolled container.
#[derive(Clone)]
struct Baseline {
    slots: Vec<Option<(u32, u32)>>,
    ids: HashMap<String, u32>,
    limits: Vec<u32>,
}

impl Baseline {
    fn new(slots: usize, limits: &[(String, u32)]) -> Baseline {
        Baseline {
            slots: vec![None; slots],
            ids: limits
                .iter()
                .enumerate()
                .map(|(i, (n, _))| (n.clone(), i as u32))
                .collect(),
            limits: limits.iter().map(|(_, l)| *l).collect(),
        }
    }

    fn id(&mut self, item: &str) -> u32 {
        if let Some(&id) = self.ids.get(item) {
            return id;
        }
        let id = self.limits.len() as u32;
        self.ids.insert(item.to_string(), id);
        self.limits.push(1);
        id
    }

    fn deliver(&mut self, item: &str, amount: u32) -> u32 {
        let id = self.id(item);
        let limit = self.limits[id as usize];
        let mut left = amount;
        for s in self.slots.iter_mut() {
            if let Some((t, n)) = s
                && *t == id
                && *n < limit
            {
                let k = (limit - *n).min(left);
                *n += k;
                left -= k;
                if left == 0 {
                    return amount;
                }
            }
        }
        for s in self.slots.iter_mut() {
            if s.is_none() {
                let k = limit.min(left);
                *s = Some((id, k));
                left -= k;
                if left == 0 {
                    return amount;
                }
            }
        }
        amount - left
    }

    fn take(&mut self, item: &str, amount: u32) -> u32 {
        let id = self.id(item);
        let mut left = amount;
        for s in self.slots.iter_mut() {
            if let Some((t, n)) = s
                && *t == id
            {
                let k = (*n).min(left);
                *n -= k;
                left -= k;
                if *n == 0 {
                    *s = None;
                }
                if left == 0 {
                    break;
                }
            }
        }
        amount - left
    }
}

#[derive(Clone, Copy)]
enum Op {
    Deliver(usize, u32),
    Take(usize, u32),
}

fn day(types: usize, ops: usize, seed: u64, max: u64) -> Vec<Op> {
    let mut rng = Rng(seed);
    (0..ops)
        .map(|_| {
            let t = rng.below(types as u64) as usize;
            let a = 1 + rng.below(max) as u32;
            if rng.below(100) < 55 {
                Op::Deliver(t, a)
            } else {
                Op::Take(t, a)
            }
        })
        .collect()
}

/// The fastest of `rounds` runs of `run` on a fresh `setup()`; the setup
/// is not timed.
fn best_of<T, R>(
    rounds: usize,
    mut setup: impl FnMut() -> T,
    mut run: impl FnMut(T) -> R,
) -> Duration {
    (0..rounds)
        .map(|_| {
            let input = setup();
            let t = Instant::now();
            let out = run(input);
            let took = t.elapsed();
            drop(black_box(out));
            took
        })
        .min()
        .unwrap_or_default()
}

/// The fastest of `rounds` runs of `f`.
fn best(rounds: usize, mut f: impl FnMut()) -> Duration {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn bank_rules(types: usize, slots: u32) -> (Rules, Vec<(String, u32)>) {
    let rows: Vec<serde_json::Value> = (0..types)
        .map(|i| {
            json!({"id": format!("item-{i}"), "stack-limit": 1 + (i % 50) as u32,
                   "when-forced-out": "dropped-nearby", "forced-out-order": i})
        })
        .collect();
    let value = json!({
        "contract": "container", "version": 1,
        "answers": {"capacity-limit": "slot-count", "partial-acceptance": "fill-what-fits",
                    "leftover-destination": "left-where-it-is", "fill-order": "top-up-then-first-empty",
                    "draw-order": "first-in-order", "type-restriction": "any-item"},
        "values": {"slot-count": slots, "size-budget": 0},
        "rows": {"items": rows},
    });
    let (report, a) = adoption::validate(&value, Context::default());
    let a = a.unwrap_or_else(|| panic!("{report}"));
    let rules = Rules::compile(&a, &Tuning::default()).unwrap();
    let limits = rules
        .rows
        .iter()
        .map(|r| (r.id.clone(), r.stack_limit))
        .collect();
    (rules, limits)
}

fn seed_rules() -> (Rules, Vec<u8>) {
    let bytes = std::fs::read("assets/backpack.adoption.json").expect("run from the crate root");
    let a = adoption::read(&bytes, Format::Json, Context::default()).unwrap();
    (Rules::compile(&a, &Tuning::default()).unwrap(), bytes)
}

/// What a day of mixed requests needs from a container.
trait Holder: Clone {
    fn put(&mut self, item: &str, amount: u32);
    fn draw(&mut self, item: &str, amount: u32);
}

impl Holder for Contents {
    fn put(&mut self, item: &str, amount: u32) {
        black_box(self.deliver(item, amount));
    }
    fn draw(&mut self, item: &str, amount: u32) {
        black_box(self.take(item, amount));
    }
}

impl Holder for Baseline {
    fn put(&mut self, item: &str, amount: u32) {
        black_box(self.deliver(item, amount));
    }
    fn draw(&mut self, item: &str, amount: u32) {
        black_box(self.take(item, amount));
    }
}

/// The best of 7 runs of `ops` on a fresh copy of `start`.
fn run_day<H: Holder>(start: &H, names: &[String], ops: &[Op]) -> Duration {
    best_of(
        7,
        || start.clone(),
        |mut c| {
            for op in ops {
                match *op {
                    Op::Deliver(t, a) => c.put(&names[t], a),
                    Op::Take(t, a) => c.draw(&names[t], a),
                }
            }
            c
        },
    )
}

/// Runs a day on the engine and on the baseline; returns (engine, baseline)
/// time per op in nanoseconds.
fn engine_vs_baseline(
    rules: Rules,
    limits: Vec<(String, u32)>,
    names: &[String],
    ops: &[Op],
    prefill: usize,
) -> (f64, f64) {
    let rules = Arc::new(rules);
    let mut engine0 = Contents::new(rules.clone());
    let mut base0 = Baseline::new(rules.slot_count as usize, &limits);
    for i in 0..prefill {
        let n = &names[i % names.len()];
        engine0.deliver(n, 1);
        base0.deliver(n, 1);
    }
    let e = run_day(&engine0, names, ops);
    let b = run_day(&base0, names, ops);
    let n = ops.len() as f64;
    (e.as_nanos() as f64 / n, b.as_nanos() as f64 / n)
}

fn main() {
    // engine-vs-baseline-12
    let (seed, seed_bytes) = seed_rules();
    let names12: Vec<String> = ["berries", "axe", "letter", "flint"]
        .map(String::from)
        .to_vec();
    let limits12 = seed
        .rows
        .iter()
        .map(|r| (r.id.clone(), r.stack_limit))
        .collect();
    let ops12 = day(names12.len(), 20_000, 12, 25);
    let (e12, b12) = engine_vs_baseline(seed, limits12, &names12, &ops12, 0);
    println!("time engine-op-12 {e12:.1} ns");
    println!("time baseline-op-12 {b12:.1} ns");
    println!("ratio engine-vs-baseline-12 {:.3}", e12 / b12);

    // engine-vs-baseline-10k
    let (bank, limits_bank) = bank_rules(1000, 10_000);
    let names_bank: Vec<String> = (0..1000).map(|i| format!("item-{i}")).collect();
    let ops_bank = day(names_bank.len(), 20_000, 10, 60);
    let (ebank, bbank) =
        engine_vs_baseline(bank.clone(), limits_bank, &names_bank, &ops_bank, 6_000);
    println!("time engine-op-10k {ebank:.1} ns");
    println!("time baseline-op-10k {bbank:.1} ns");
    println!("ratio engine-vs-baseline-10k {:.3}", ebank / bbank);
    println!("ratio bank-vs-backpack {:.3}", ebank / e12);

    // forced-removal-10k
    let bank = Arc::new(bank);
    let mut full = Contents::new(bank.clone());
    let mut i = 0;
    while full.slots().flatten().count() < 10_000 {
        let name = &names_bank[i % 1000];
        let limit = bank.row(name).unwrap().stack_limit;
        full.deliver(name, limit);
        i += 1;
    }
    let shrink = best_of(
        7,
        || full.clone(),
        |mut c| {
            let out = c.resize(Some(5_000), None);
            assert!(out.refused.is_none());
            (c, out)
        },
    );
    let stacks: Vec<(u32, u32)> = full
        .slots()
        .flatten()
        .map(|s| (s.amount, s.item.as_str().len() as u32))
        .collect();
    let sort = best_of(
        7,
        || stacks.clone(),
        |mut v| {
            v.sort_unstable();
            v
        },
    );
    println!(
        "time forced-removal-10k {:.3} ms",
        shrink.as_secs_f64() * 1e3
    );
    println!("time sort-10k-stacks {:.3} ms", sort.as_secs_f64() * 1e3);
    println!(
        "ratio forced-removal-10k {:.3}",
        shrink.as_secs_f64() / sort.as_secs_f64()
    );

    // ecs-vs-engine
    let (ecs, direct) = ecs_vs_engine();
    println!("time ecs-frame-20k-ops {:.3} ms", ecs.as_secs_f64() * 1e3);
    println!("time engine-20k-ops {:.3} ms", direct.as_secs_f64() * 1e3);
    println!(
        "ratio ecs-vs-engine {:.3}",
        ecs.as_secs_f64() / direct.as_secs_f64()
    );

    // load-vs-parse
    let load = best(50, || {
        let a = adoption::read(&seed_bytes, Format::Json, Context::default()).unwrap();
        black_box(Rules::compile(&a, &Tuning::default()).unwrap());
    });
    let parse = best(50, || {
        black_box(serde_json::from_slice::<serde_json::Value>(&seed_bytes).unwrap());
    });
    println!("time load-seed {:.1} us", load.as_secs_f64() * 1e6);
    println!("time parse-seed {:.1} us", parse.as_secs_f64() * 1e6);
    println!(
        "ratio load-vs-parse {:.3}",
        load.as_secs_f64() / parse.as_secs_f64()
    );

    // bytes-per-backpack
    let (seed, _) = seed_rules();
    let rules = Arc::new(seed);
    let before = LIVE.load(Ordering::Relaxed);
    let backpack = Contents::new(rules.clone());
    let after = LIVE.load(Ordering::Relaxed);
    black_box(&backpack);
    println!("ratio bytes-per-backpack {}", after - before);
}

fn ecs_vs_engine() -> (Duration, Duration) {
    let (rules, _) = seed_rules();
    let adoption_bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
    let a = adoption::read(&adoption_bytes, Format::Json, Context::default()).unwrap();
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
    ));
    let handle = app
        .world_mut()
        .resource_mut::<Assets<AdoptionAsset>>()
        .add(AdoptionAsset::new(a));
    let bags: Vec<Entity> = (0..10_000)
        .map(|_| app.world_mut().spawn(Container::new(handle.clone())).id())
        .collect();
    app.update();
    let frame = |app: &mut App| {
        let world = app.world_mut();
        for &bag in &bags {
            world.write_message(Deliver {
                container: bag,
                item: "berries".into(),
                amount: 3,
                sender: None,
            });
            world.write_message(Take {
                container: bag,
                item: "berries".into(),
                amount: 2,
                slot: None,
            });
        }
        let t = Instant::now();
        app.update();
        t.elapsed()
    };
    for _ in 0..3 {
        frame(&mut app);
    }
    let ecs = (0..7).map(|_| frame(&mut app)).min().unwrap_or_default();
    let rules = Arc::new(rules);
    let mut engines: Vec<Contents> = (0..10_000).map(|_| Contents::new(rules.clone())).collect();
    let direct = best(7, || {
        for c in engines.iter_mut() {
            black_box(c.deliver("berries", 3));
            black_box(c.take("berries", 2));
        }
    });
    (ecs, direct)
}
