//! The randomized ledger: many containers, pickups and stores through
//! thousands of mixed requests, reloads, tuning changes and despawns. After
//! every frame, every item ever offered is in a container, in a pickup, with
//! the caller, taken, or reported destroyed, each exactly once.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_container::adoption::{Adoption, Tuning, ValueSource};
use bevy_container::contents::Cause;
use bevy_container::decimal::Decimal;
use bevy_container::plugin::*;
use bevy_container::save::SavedContents;
use common::*;
use serde_json::json;

const ITEMS: [&str; 5] = ["berries", "axe", "gem", "letter", "flint"];

fn adoptions() -> Vec<Adoption> {
    let mut seed = seed();
    seed.values.insert(
        "slot-count".into(),
        ValueSource::Tuning {
            tuning: "backpack-slots".into(),
        },
    );
    vec![
        seed,
        read(&adoption_json(
            slot_answers("another-store"),
            6,
            0.0,
            json!([
                {"id": "berries", "stack-limit": 20, "when-forced-out": "moved-to-another-store", "forced-out-order": 1},
                {"id": "axe", "stack-limit": 1, "when-forced-out": "destroyed", "forced-out-order": 2},
                {"id": "gem", "stack-limit": 3, "when-forced-out": "dropped-nearby", "forced-out-order": 3},
            ]),
        )),
        read(&adoption_json(
            json!({"capacity-limit": "no-limit", "fill-order": "append", "draw-order": "last-in-order", "type-restriction": "any-item"}),
            0,
            0.0,
            json!([{"id": "berries", "stack-limit": 50, "when-forced-out": "never"}]),
        )),
        read(&adoption_json(
            json!({"capacity-limit": "size-budget", "partial-acceptance": "fill-what-fits",
                   "leftover-destination": "back-to-the-sender", "draw-order": "not-applicable",
                   "type-restriction": "any-item"}),
            0,
            10.0,
            json!([
                {"id": "berries", "size": 0.5, "when-forced-out": "dropped-nearby", "forced-out-order": 1},
                {"id": "axe", "size": 3, "when-forced-out": "moved-to-another-store", "forced-out-order": 2},
                {"id": "gem", "size": 0, "when-forced-out": "destroyed", "forced-out-order": 3},
            ]),
        )),
        read(&adoption_json(
            json!({"capacity-limit": "slots-and-size", "partial-acceptance": "all-or-nothing",
                   "fill-order": "first-slot-that-fits", "draw-order": "newest-first",
                   "type-restriction": "only-these"}),
            3,
            7.5,
            json!([
                {"id": "gem", "stack-limit": 2, "size": 1.5, "when-forced-out": "moved-to-another-store", "forced-out-order": 1},
                {"id": "axe", "stack-limit": 1, "size": 2, "when-forced-out": "destroyed", "forced-out-order": 2},
            ]),
        )),
        read(&adoption_json(
            slot_answers("left-where-it-is"),
            1,
            0.0,
            json!([{"id": "berries", "stack-limit": 5, "when-forced-out": "dropped-nearby", "forced-out-order": 1}]),
        )),
        read(&adoption_json(
            slot_answers("another-store"),
            2,
            0.0,
            json!([{"id": "gem", "stack-limit": 2, "when-forced-out": "moved-to-another-store", "forced-out-order": 1}]),
        )),
    ]
}

#[derive(Default)]
struct Books {
    injected: BTreeMap<String, i128>,
    gone: BTreeMap<String, i128>,
    seen_delivered: usize,
    seen_taken: usize,
    seen_forced: usize,
}

fn add(map: &mut BTreeMap<String, i128>, k: &str, n: i128) {
    *map.entry(k.to_string()).or_insert(0) += n;
}

fn account(app: &App, books: &mut Books, picked: &BTreeSet<Entity>) {
    let seen = app.world().resource::<Seen>();
    for d in &seen.delivered[books.seen_delivered..] {
        let item = d.outcome.item.as_str();
        if !d.sender.is_some_and(|s| picked.contains(&s)) {
            add(&mut books.injected, item, i128::from(d.outcome.offered));
        }
        for s in &d.settled {
            match s {
                Settled::Caller { amount, .. } | Settled::Destroyed { amount, .. } => {
                    add(&mut books.gone, item, i128::from(*amount))
                }
                _ => {}
            }
        }
    }
    books.seen_delivered = seen.delivered.len();
    for t in &seen.taken[books.seen_taken..] {
        add(
            &mut books.gone,
            t.outcome.item.as_str(),
            i128::from(t.outcome.taken),
        );
    }
    books.seen_taken = seen.taken.len();
    for f in &seen.forced[books.seen_forced..] {
        for s in &f.settled {
            if let Settled::Destroyed { item, amount } = s {
                add(&mut books.gone, item, i128::from(*amount));
            }
        }
    }
    books.seen_forced = seen.forced.len();
}

fn world_totals(app: &mut App) -> BTreeMap<String, i128> {
    let mut out = BTreeMap::new();
    let mut q = app.world_mut().query::<&ContainerContents>();
    for c in q.iter(app.world()) {
        if let Some(e) = c.engine() {
            if e.rules().has_slots() {
                let engine_view: Vec<Option<(String, u32)>> = e
                    .slots()
                    .map(|s| s.map(|s| (s.item.to_string(), s.amount)))
                    .collect();
                assert_eq!(c.slots, engine_view, "the mirror shows the engine's slots");
            }
            for (k, v) in e.totals() {
                add(&mut out, k.as_str(), i128::from(v));
            }
        }
    }
    let mut p = app.world_mut().query::<&LoosePickup>();
    for pk in p.iter(app.world()) {
        add(&mut out, &pk.item, i128::from(pk.amount));
    }
    out.retain(|_, v| *v != 0);
    out
}

fn spawn_container(app: &mut App, handles: &[Handle<AdoptionAsset>], rng: &mut Rng) -> Entity {
    let h = handles[rng.below(handles.len())].clone();
    let at = Vec3::new(rng.below(500) as f32, rng.below(500) as f32, 0.0);
    app.world_mut()
        .spawn((Container::new(h), Transform::from_translation(at)))
        .id()
}

/// Saves `c`; sometimes restores an earlier save (maybe made under other
/// rules since, maybe of a container since despawned, maybe into `other`, a
/// container of another adoption): empties the target by takes, then loads.
/// Loaded items enter the books as offered.
#[allow(clippy::too_many_arguments)]
fn save_and_restore(
    w: &mut World,
    c: Entity,
    other: Entity,
    saves: &mut Vec<(Entity, SavedContents)>,
    books: &mut Books,
    rng: &mut Rng,
    loads: &mut usize,
) {
    if let Ok(Ok(save)) = w.run_system_once(move |cs: Containers| cs.save(c)) {
        saves.push((c, save));
    }
    if saves.is_empty() || rng.below(2) == 0 {
        return;
    }
    let (mut target, save) = saves.swap_remove(rng.below(saves.len()));
    if rng.below(2) == 0 {
        target = other;
    }
    let loaded = w.run_system_once(move |mut cs: Containers| {
        if let Some(e) = cs.contents(target) {
            let slots: Vec<(u32, String, u32)> = e
                .slots()
                .enumerate()
                .filter_map(|(i, s)| s.map(|s| (i as u32, s.item.to_string(), s.amount)))
                .collect();
            let held: Vec<(String, u32)> = e.holdings().map(|(k, n)| (k.to_string(), n)).collect();
            for (slot, item, n) in slots {
                let _ = cs.take(target, &item, n, Some(slot));
            }
            for (item, n) in held {
                let _ = cs.take(target, &item, n, None);
            }
        }
        cs.load(target, &save).map(|_| save.clone())
    });
    if let Ok(Ok(save)) = loaded {
        *loads += 1;
        for s in save.slots.iter().flatten().chain(&save.holdings) {
            add(&mut books.injected, &s.item, i128::from(s.amount));
        }
    }
}

#[test]
fn the_ledger_balances_through_thousands_of_requests_reloads_and_despawns() {
    let mut app = app();
    app.insert_resource(ContainerTuning(
        Tuning::default().with("backpack-slots", 12.0),
    ));
    let handles: Vec<Handle<AdoptionAsset>> = adoptions()
        .into_iter()
        .map(|a| {
            app.world_mut()
                .resource_mut::<Assets<AdoptionAsset>>()
                .add(AdoptionAsset::new(a))
        })
        .collect();
    let mut rng = Rng(0x1ED6_E700);
    let mut containers: Vec<Entity> = (0..10)
        .map(|_| spawn_container(&mut app, &handles, &mut rng))
        .collect();
    app.update();
    let mut books = Books::default();
    let mut picked = BTreeSet::new();
    let mut requests = 0;
    let bystander = app.world_mut().spawn_empty().id();
    let mut saves: Vec<(Entity, SavedContents)> = Vec::new();
    let mut loads = 0;
    for frame in 0..700 {
        // stores: random links, loops and dangling ones included
        if frame % 50 == 0 {
            for &c in &containers {
                let s = containers[rng.below(containers.len())];
                if rng.below(3) > 0 {
                    app.world_mut().entity_mut(c).insert(OverflowStore(s));
                }
            }
        }
        for _ in 0..rng.below(8) {
            let c = containers[rng.below(containers.len())];
            let item = ITEMS[rng.below(ITEMS.len())].to_string();
            let w = app.world_mut();
            requests += 1;
            match rng.below(13) {
                0..=2 => {
                    let sender = match rng.below(4) {
                        0 => Some(containers[rng.below(containers.len())]),
                        1 => Some(bystander),
                        _ => None,
                    };
                    let amount = if rng.below(50) == 0 {
                        100_000
                    } else {
                        rng.below(40) as u32
                    };
                    w.write_message(Deliver {
                        container: c,
                        item: item.into(),
                        amount,
                        sender,
                    });
                }
                3 => {
                    let mut q = w.query_filtered::<Entity, With<LoosePickup>>();
                    let all: Vec<Entity> = q.iter(w).collect();
                    if !all.is_empty() {
                        let p = all[rng.below(all.len())];
                        picked.insert(p);
                        w.write_message(PickUp {
                            container: c,
                            pickup: p,
                        });
                    }
                }
                4 | 5 => {
                    let slot = (rng.below(3) == 0).then(|| rng.below(12) as u32);
                    w.write_message(Take {
                        container: c,
                        item: item.into(),
                        amount: rng.below(30) as u32,
                        slot,
                    });
                }
                6 => {
                    w.write_message(MoveItems {
                        container: c,
                        from: rng.below(12) as u32,
                        to: rng.below(12) as u32,
                        amount: None,
                    });
                }
                7 => {
                    w.write_message(Sort {
                        container: c,
                        order: vec![item],
                    });
                }
                8 => {
                    let budget = Decimal::from_units(rng.below(12) as u64);
                    w.write_message(Resize {
                        container: c,
                        slot_count: Some(rng.below(14) as u32),
                        size_budget: Some(budget),
                    });
                }
                9 => {
                    w.write_message(EmptyForGoneOwner { container: c });
                }
                10 => {
                    // a reload: the adoption's slot count or budget changes,
                    // or the reloaded file no longer compiles (a tuning key
                    // it names does not exist): containers keep their rules
                    let h = handles[1 + rng.below(handles.len() - 1)].clone();
                    let n = 1 + rng.below(8);
                    let broken = rng.below(5) == 0;
                    let mut assets = w.resource_mut::<Assets<AdoptionAsset>>();
                    if let Some(mut a) = assets.get_mut(&h) {
                        let key = if a.adoption.answers["capacity-limit"] == "size-budget" {
                            "size-budget"
                        } else {
                            "slot-count"
                        };
                        let value = if broken {
                            ValueSource::Tuning {
                                tuning: "no-such-key".into(),
                            }
                        } else {
                            ValueSource::Number(n as f64)
                        };
                        if a.adoption.answers["capacity-limit"] != "no-limit" {
                            a.adoption.values.insert(key.into(), value);
                        }
                    }
                }
                11 => {
                    let other = containers[rng.below(containers.len())];
                    save_and_restore(w, c, other, &mut saves, &mut books, &mut rng, &mut loads);
                }
                _ => match rng.below(4) {
                    0 if rng.below(4) == 0 => {
                        // a tuning key removed: containers keep their rules
                        w.resource_mut::<ContainerTuning>()
                            .values
                            .remove("backpack-slots");
                    }
                    0 => {
                        w.resource_mut::<ContainerTuning>()
                            .set("backpack-slots", (2 + rng.below(12)) as f64);
                    }
                    _ => {
                        // a container (maybe a store others name) despawned
                        let i = rng.below(containers.len());
                        w.entity_mut(containers[i]).despawn();
                        containers[i] = spawn_container(&mut app, &handles, &mut rng);
                    }
                },
            }
        }
        app.update();
        account(&app, &mut books, &picked);
        let mut expect = books.injected.clone();
        for (k, v) in &books.gone {
            add(&mut expect, k, -v);
        }
        expect.retain(|_, v| *v != 0);
        let got = world_totals(&mut app);
        assert_eq!(got, expect, "frame {frame}: the ledger does not balance");
    }
    let seen = app.world().resource::<Seen>();
    assert!(requests > 2000, "{requests} requests");
    assert!(
        seen.delivered.len() > 500 && seen.taken.len() > 300,
        "a real mix"
    );
    assert!(
        seen.forced
            .iter()
            .any(|f| f.outcome.refused.is_none() && !f.outcome.portions.is_empty())
    );
    assert!(
        seen.delivered.iter().any(|d| !d.warnings.is_empty()),
        "fallbacks were exercised"
    );
    assert!(!seen.spilled.is_empty(), "despawns spilled items");
    assert!(loads > 5, "saves were loaded back ({loads})");
    assert!(
        seen.rejected
            .iter()
            .any(|r| r.message.contains("no-such-key")),
        "a reload that does not compile was reported"
    );
    assert!(
        seen.rejected
            .iter()
            .any(|r| r.message.contains("backpack-slots")),
        "a removed tuning key was reported"
    );
    assert!(
        seen.forced
            .iter()
            .any(|f| f.outcome.cause == Cause::Loaded && !f.outcome.portions.is_empty()),
        "a load migrated items under changed rules"
    );
}
