//! The randomized ledger: many containers, pickups and stores through more
//! than ten thousand mixed requests (deliveries, pickups, takes, transfers,
//! moves, sorts, resizes), reloads, tuning changes and despawns. After every
//! frame, every item ever offered is in a container, in a pickup, with the
//! caller, taken, reported destroyed, or gone with a container that left the
//! world (`DespawnPolicy::LeaveWithContents`), each exactly once.
//!
//! And the frame order (spec section 13): a frame of mixed requests is
//! answered exactly as the same requests one frame each.

mod common;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_container::adoption::{Adoption, Tuning, ValueSource};
use bevy_container::contents::{Cause, ItemType, Kind, Props, PropsAt, TransferRequest};
use bevy_container::decimal::Decimal;
use bevy_container::plugin::*;
use bevy_container::save::SavedContents;
use common::*;
use serde_json::json;

const ITEMS: [&str; 5] = ["berries", "axe", "gem", "letter", "flint"];

/// The properties items of the ledger carry (canonical text; `{}` is
/// plain): a few kinds per type, so stacks of one type and other kinds
/// meet in every container.
const PROPS: [&str; 4] = ["{}", r#"{"q":1}"#, r#"{"q":2}"#, r#"{"to":"Ilsa"}"#];

/// A random kind's properties: plain half the time.
fn random_props(rng: &mut Rng) -> Props {
    if rng.below(2) == 0 {
        return Props::EMPTY;
    }
    Props::parse(PROPS[rng.below(PROPS.len())]).expect("the ledger's properties are valid")
}

/// A kind's label (`axe{"q":1}`): the ledger's books are kept per kind.
fn label(item: &ItemType, props: &Props) -> String {
    Kind::new(item.clone(), props.clone()).to_string()
}

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

/// A container despawned holding items, whose spill or departure is still
/// to be reported: what its engine held right before the despawn.
#[derive(Debug)]
struct Despawned {
    container: Entity,
    /// What its engine held, by kind.
    totals: BTreeMap<String, i128>,
    /// Every stack, in slot order (slotless: in kind order).
    stacks: Vec<(Kind, u32)>,
}

/// What the transfers did, over the whole run.
#[derive(Default, Debug)]
struct TransferTally {
    answered: usize,
    refused: usize,
    moving: usize,
    moved: u64,
    within: usize,
    within_moving: usize,
    swaps: usize,
}

#[derive(Default)]
struct Books {
    injected: BTreeMap<String, i128>,
    gone: BTreeMap<String, i128>,
    seen_delivered: usize,
    seen_taken: usize,
    seen_forced: usize,
    seen_transferred: usize,
    seen_spilled: usize,
    seen_left: usize,
    seen_props: usize,
    /// Items whose properties changed, over the run.
    props_changed: u64,
    /// Despawns under `DespawnPolicy::Spill` (or none) awaiting their
    /// `ContainerSpilled`, in despawn order.
    spills: VecDeque<Despawned>,
    /// Despawns under `DespawnPolicy::LeaveWithContents` awaiting their
    /// `ContainerLeftWorld`, in despawn order.
    leaving: VecDeque<Despawned>,
    transfers: TransferTally,
}

/// Every `ContainerLeftWorld` seen, in order (a message only: the entity
/// is gone).
#[derive(Resource, Default)]
struct LeftWorld(Vec<ContainerLeftWorld>);

fn collect_left(mut read: MessageReader<ContainerLeftWorld>, mut left: ResMut<LeftWorld>) {
    left.0.extend(read.read().cloned());
}

/// The `ItemsTransferred` events observed: once on the source (`container
/// == from`), and once more on the target when it is another container.
#[derive(Resource, Default, Debug)]
struct TransferEvents {
    on_from: usize,
    on_to: usize,
    stray: usize,
}

fn add(map: &mut BTreeMap<String, i128>, k: &str, n: i128) {
    // no allocation for a type already listed: the world is walked every frame
    match map.get_mut(k) {
        Some(v) => *v += n,
        None => {
            map.insert(k.to_string(), n);
        }
    }
}

/// Stacks summed by kind (zeros dropped).
fn tally(stacks: impl IntoIterator<Item = (Kind, u64)>) -> BTreeMap<String, i128> {
    let mut out = BTreeMap::new();
    for (k, n) in stacks {
        add(&mut out, &k.to_string(), i128::from(n));
    }
    out.retain(|_, v| *v != 0);
    out
}

/// A transfer's outcome is plausible: the message names the source, a
/// refusal moved nothing, and what moved is what the source slots gave and
/// the target slots received. (Transfers move items between containers, so
/// the world's totals say nothing of them: the balance checks the rest.)
fn check_transfer(t: &ItemsTransferred, count: &mut TransferTally) {
    let o = &t.outcome;
    assert_eq!(
        t.container, t.from,
        "the message is written for the source: {t:?}"
    );
    let moved = u64::from(o.moved);
    let gave: u64 = o.from.iter().map(|l| u64::from(l.amount)).sum();
    let got: u64 = o.landed.iter().map(|l| u64::from(l.amount)).sum();
    count.answered += 1;
    if t.from == t.to {
        count.within += 1;
    }
    if o.refused.is_some() {
        assert!(
            o.moved == 0
                && o.shortfall == o.asked
                && o.from.is_empty()
                && o.landed.is_empty()
                && o.swapped.is_none(),
            "a refused transfer moved nothing (moved 0, shortfall = asked): {t:?}"
        );
        count.refused += 1;
        return;
    }
    assert!(
        moved + u64::from(o.shortfall) <= u64::from(o.asked),
        "moved + shortfall <= asked: {t:?}"
    );
    assert!(
        o.from.is_empty() || gave == moved,
        "the source slots gave what moved: {t:?}"
    );
    assert!(
        o.landed.is_empty() || got == moved,
        "the target slots got what moved: {t:?}"
    );
    assert!(
        o.moved == 0 || o.item.is_some(),
        "what moved has a type: {t:?}"
    );
    if o.swapped.is_some() {
        assert!(o.moved > 0, "a swap moves the source stack: {t:?}");
        count.swaps += 1;
    }
    if o.moved > 0 {
        count.moving += 1;
        count.moved += moved;
        if t.from == t.to {
            count.within_moving += 1;
        }
    }
}

fn account(app: &App, books: &mut Books, picked: &BTreeSet<Entity>) {
    let seen = app.world().resource::<Seen>();
    account_deliveries(seen, books, picked);
    account_takes(seen, books);
    account_forced_out(seen, books);
    account_props_changes(seen, books);
    account_transfers(seen, books);
    account_spills(seen, books);
    account_departures(app.world().resource::<LeftWorld>(), books);
}

/// Books the deliveries not yet seen: what was offered (but not by a
/// picked-up pickup) comes in, what settled with the caller or destroyed
/// goes out.
fn account_deliveries(seen: &Seen, books: &mut Books, picked: &BTreeSet<Entity>) {
    for d in &seen.delivered[books.seen_delivered..] {
        let kind = label(&d.outcome.item, &d.outcome.props);
        if !d.sender.is_some_and(|s| picked.contains(&s)) {
            add(&mut books.injected, &kind, i128::from(d.outcome.offered));
        }
        for s in &d.settled {
            match s {
                Settled::Caller {
                    item,
                    props,
                    amount,
                    ..
                }
                | Settled::Destroyed {
                    item,
                    props,
                    amount,
                } => {
                    assert_eq!(
                        label(item, props),
                        kind,
                        "what settles is of the kind delivered"
                    );
                    add(&mut books.gone, &kind, i128::from(*amount))
                }
                Settled::Pickup { item, props, .. } | Settled::Container { item, props, .. } => {
                    assert_eq!(
                        label(item, props),
                        kind,
                        "what settles is of the kind delivered"
                    );
                }
            }
        }
    }
    books.seen_delivered = seen.delivered.len();
}

/// Books the takes not yet seen: every portion taken goes out, of the kind
/// asked for.
fn account_takes(seen: &Seen, books: &mut Books) {
    for t in &seen.taken[books.seen_taken..] {
        let kinds = t.outcome.kinds();
        assert_eq!(
            kinds.iter().map(|(_, n)| u64::from(*n)).sum::<u64>(),
            u64::from(t.outcome.taken),
            "a take lists every portion it took: {t:?}"
        );
        for (props, n) in kinds {
            if let Some(asked) = t.outcome.asked_kind() {
                assert_eq!(*asked, props, "a take of one kind takes that kind: {t:?}");
            }
            add(
                &mut books.gone,
                &label(&t.outcome.item, &props),
                i128::from(n),
            );
        }
    }
    books.seen_taken = seen.taken.len();
}

/// Books the forced-out items not yet seen: what was destroyed goes out.
fn account_forced_out(seen: &Seen, books: &mut Books) {
    for f in &seen.forced[books.seen_forced..] {
        for s in &f.settled {
            if let Settled::Destroyed {
                item,
                props,
                amount,
            } = s
            {
                add(&mut books.gone, &label(item, props), i128::from(*amount));
            }
        }
    }
    books.seen_forced = seen.forced.len();
}

/// Books the property changes not yet seen: the items changed leave one
/// kind for another.
fn account_props_changes(seen: &Seen, books: &mut Books) {
    // a change of properties: those items leave one kind for another
    for p in &seen.props_changed[books.seen_props..] {
        let o = &p.outcome;
        if o.changed > 0 {
            let item = o.item.as_ref().expect("changed items have a type");
            add(
                &mut books.gone,
                &label(item, &o.from),
                i128::from(o.changed),
            );
            add(
                &mut books.injected,
                &label(item, &o.to),
                i128::from(o.changed),
            );
            books.props_changed += u64::from(o.changed);
        }
    }
    books.seen_props = seen.props_changed.len();
}

/// Checks and tallies the transfers not yet seen (the books do not change).
fn account_transfers(seen: &Seen, books: &mut Books) {
    // transfers: items change containers, the books do not change
    for t in &seen.transferred[books.seen_transferred..] {
        check_transfer(t, &mut books.transfers);
    }
    books.seen_transferred = seen.transferred.len();
}

/// Matches the spills not yet seen to the despawns awaiting them: each
/// spilled on the ground exactly what its container held.
fn account_spills(seen: &Seen, books: &mut Books) {
    // Spill: the items lie on the ground (the world's pickups count them)
    for s in &seen.spilled[books.seen_spilled..] {
        let d = books.spills.pop_front().unwrap_or_else(|| {
            panic!(
                "{} spilled, but no despawned container holding items was waiting",
                s.container
            )
        });
        assert_eq!(s.container, d.container, "spills come in despawn order");
        let mut spilled = BTreeMap::new();
        for x in &s.settled {
            match x {
                Settled::Pickup {
                    item,
                    props,
                    amount,
                    ..
                } => add(&mut spilled, &label(item, props), i128::from(*amount)),
                other => panic!("a spill lies on the ground, not {other:?}"),
            }
        }
        spilled.retain(|_, v| *v != 0);
        assert_eq!(spilled, d.totals, "{} spilled what it held", d.container);
    }
    books.seen_spilled = seen.spilled.len();
    assert!(
        books.spills.is_empty(),
        "containers despawned holding items were spilled: {:?}",
        books.spills
    );
}

/// Matches the departures not yet seen to the despawns awaiting them: each
/// listed exactly what its container held, and it goes out of the books.
fn account_departures(left: &LeftWorld, books: &mut Books) {
    // LeaveWithContents: the items left the world, listed
    for l in &left.0[books.seen_left..] {
        let d = books.leaving.pop_front().unwrap_or_else(|| {
            panic!(
                "{} left the world with {:?}, but no despawned container holding items was waiting",
                l.container, l.contents
            )
        });
        assert_eq!(l.container, d.container, "departures come in despawn order");
        assert_eq!(
            tally(l.contents.iter().map(|(k, n)| (k.clone(), u64::from(*n)))),
            d.totals,
            "{} left with exactly what its engine held",
            d.container
        );
        assert_eq!(
            l.contents, d.stacks,
            "{} lists every stack, in slot order",
            d.container
        );
        for (kind, n) in &l.contents {
            add(&mut books.gone, &kind.to_string(), i128::from(*n));
        }
    }
    books.seen_left = left.0.len();
    assert!(
        books.leaving.is_empty(),
        "containers despawned under LeaveWithContents holding items reported it: {:?}",
        books.leaving
    );
}

fn world_totals(app: &mut App) -> BTreeMap<String, i128> {
    let mut out = BTreeMap::new();
    let mut q = app.world_mut().query::<&ContainerContents>();
    for c in q.iter(app.world()) {
        if let Some(e) = c.engine() {
            if e.rules().has_slots() {
                let mirror = c.slots();
                let same =
                    mirror.len() == e.slots().count()
                        && mirror.iter().zip(e.slots()).enumerate().all(|(i, (m, s))| {
                            match (m, s) {
                                (None, None) => true,
                                (Some((k, n)), Some(s)) => {
                                    k.as_str() == s.item.as_str()
                                        && *n == s.amount
                                        && *c.props(i) == s.props
                                }
                                _ => false,
                            }
                        });
                assert!(
                    same,
                    "the mirror shows the engine's slots and their properties: {:?} {:?} against {:?}",
                    mirror,
                    (0..mirror.len()).map(|i| c.props(i)).collect::<Vec<_>>(),
                    e.slots().collect::<Vec<_>>()
                );
            } else {
                // slotless: one entry per kind, in kind order
                let mirror: Vec<(String, u32)> = (0..c.slots().len())
                    .filter_map(|i| {
                        let (k, n) = c.slots()[i].as_ref()?;
                        Some((label(k, c.props(i)), *n))
                    })
                    .collect();
                let held: Vec<(String, u32)> =
                    e.holdings().map(|(k, n)| (k.to_string(), n)).collect();
                assert_eq!(
                    mirror, held,
                    "the mirror shows the engine's holdings, kind by kind"
                );
            }
            for (k, v) in e.kind_totals() {
                add(&mut out, &k.to_string(), i128::from(v));
            }
            // (the per-kind balance below is what shows nothing merged
            // across kinds); every stack holds at least one item
            for s in e.slots().flatten() {
                assert!(s.amount > 0, "a stack holds at least one item");
            }
        }
    }
    let mut p = app.world_mut().query::<&LoosePickup>();
    for pk in p.iter(app.world()) {
        add(
            &mut out,
            &label(&ItemType::from(pk.item.as_str()), &pk.props),
            i128::from(pk.amount),
        );
    }
    out.retain(|_, v| *v != 0);
    out
}

/// Spawns a container of a random adoption; a third of them leave the
/// world with their contents when despawned (a level unloading), the rest
/// spill (the policy named, or the default).
fn spawn_container(app: &mut App, handles: &[Handle<AdoptionAsset>], rng: &mut Rng) -> Entity {
    let h = handles[rng.below(handles.len())].clone();
    let at = Vec3::new(rng.below(500) as f32, rng.below(500) as f32, 0.0);
    let policy = match rng.below(3) {
        0 => Some(DespawnPolicy::LeaveWithContents),
        1 => Some(DespawnPolicy::Spill),
        _ => None,
    };
    let mut e = app
        .world_mut()
        .spawn((Container::new(h), Transform::from_translation(at)));
    if let Some(p) = policy {
        e.insert(p);
    }
    e.id()
}

/// What `c` holds right before it is despawned, queued for the outcome its
/// policy promises (nothing is reported for a container holding nothing or
/// not ready yet).
fn before_despawn(w: &World, c: Entity, books: &mut Books) {
    let Some(e) = w.get::<ContainerContents>(c).and_then(|cc| cc.engine()) else {
        return;
    };
    let totals = tally(e.kind_totals());
    if totals.is_empty() {
        return;
    }
    let stacks: Vec<(Kind, u32)> = e
        .slots()
        .flatten()
        .map(|s| (Kind::new(s.item.clone(), s.props.clone()), s.amount))
        .chain(e.holdings().map(|(k, n)| (k.clone(), n)))
        .collect();
    let d = Despawned {
        container: c,
        totals,
        stacks,
    };
    if w.get::<DespawnPolicy>(c) == Some(&DespawnPolicy::LeaveWithContents) {
        books.leaving.push_back(d);
    } else {
        books.spills.push_back(d);
    }
}

/// A random transfer request from `from` to `to`: by slot and/or type,
/// into a named slot or by the target's fill order; amounts from 0 to far
/// more than any container holds.
fn random_transfer(rng: &mut Rng, from: Entity, to: Entity) -> Transfer {
    let item = (rng.below(3) > 0).then(|| ItemType::from(ITEMS[rng.below(ITEMS.len())]));
    let props = (rng.below(3) == 0).then(|| random_props(rng));
    let from_slot = (rng.below(2) == 0).then(|| rng.below(13) as u32);
    let to_slot = (rng.below(2) == 0).then(|| rng.below(13) as u32);
    let amount = match rng.below(20) {
        0 => 0,
        1 => 100_000,
        _ => 1 + rng.below(30) as u32,
    };
    Transfer {
        from,
        to,
        request: TransferRequest {
            item,
            props,
            from_slot,
            to_slot,
            amount,
        },
    }
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
            let held: Vec<(Kind, u32)> = e.holdings().map(|(k, n)| (k.clone(), n)).collect();
            for (slot, item, n) in slots {
                let _ = cs.take(target, &item, n, Some(slot));
            }
            for (kind, n) in held {
                let _ = cs.take_kind(target, kind.item.as_str(), Some(&kind.props), n, None);
            }
        }
        cs.load(target, &save).map(|_| save.clone())
    });
    if let Ok(Ok(save)) = loaded {
        *loads += 1;
        for s in save.slots.iter().flatten().chain(&save.holdings) {
            let kind = label(&ItemType::from(s.item.as_str()), &s.props);
            add(&mut books.injected, &kind, i128::from(s.amount));
        }
    }
}

/// An app for the ledger: the backpack tuning set, departures collected,
/// and every `ItemsTransferred` event counted by the end it was heard on.
fn ledger_app() -> App {
    let mut app = app();
    app.insert_resource(ContainerTuning(
        Tuning::default().with("backpack-slots", 12.0),
    ));
    app.init_resource::<LeftWorld>()
        .add_systems(Last, collect_left)
        .init_resource::<TransferEvents>()
        .add_observer(|t: On<ItemsTransferred>, mut n: ResMut<TransferEvents>| {
            if t.container == t.from {
                n.on_from += 1;
            } else if t.container == t.to {
                n.on_to += 1;
            } else {
                n.stray += 1;
            }
        });
    app
}

/// Adds every adoption of [`adoptions`] as an asset: their handles, in order.
fn add_adoptions(app: &mut App) -> Vec<Handle<AdoptionAsset>> {
    adoptions()
        .into_iter()
        .map(|a| {
            app.world_mut()
                .resource_mut::<Assets<AdoptionAsset>>()
                .add(AdoptionAsset::new(a))
        })
        .collect()
}

/// The randomized ledger's world and books, carried from request to
/// request and frame to frame.
struct Ledger {
    app: App,
    handles: Vec<Handle<AdoptionAsset>>,
    rng: Rng,
    /// The containers in the world (a despawned one is replaced in place).
    containers: Vec<Entity>,
    books: Books,
    /// Every pickup a pickup request named.
    picked: BTreeSet<Entity>,
    /// Request messages written (reloads, tuning, saves and despawns are
    /// not).
    requests: usize,
    /// An entity that is no container.
    bystander: Entity,
    saves: Vec<(Entity, SavedContents)>,
    /// Saves loaded back.
    loads: usize,
}

impl Ledger {
    /// Ten containers of random adoptions, ready, and a bystander.
    fn new() -> Self {
        let mut app = ledger_app();
        let handles = add_adoptions(&mut app);
        let mut rng = Rng(0x1ED6_E700);
        let containers: Vec<Entity> = (0..10)
            .map(|_| spawn_container(&mut app, &handles, &mut rng))
            .collect();
        app.update();
        let bystander = app.world_mut().spawn_empty().id();
        Ledger {
            app,
            handles,
            rng,
            containers,
            books: Books::default(),
            picked: BTreeSet::new(),
            requests: 0,
            bystander,
            saves: Vec::new(),
            loads: 0,
        }
    }

    /// Plays one frame: now and then relinks the stores, writes 10 to 30
    /// random requests (or reloads, tuning changes, saves and despawns),
    /// updates, and checks the ledger balances.
    fn play_frame(&mut self, frame: u32) {
        // stores: random links, loops and dangling ones included
        if frame.is_multiple_of(50) {
            self.link_stores();
        }
        // the loose pickups at the start of the frame (found when needed)
        let mut loose: Option<Vec<Entity>> = None;
        for _ in 0..10 + self.rng.below(21) {
            self.random_step(&mut loose);
        }
        self.app.update();
        self.check_balance(frame);
    }

    /// Links two containers in three to a random store (itself, or one
    /// whose links loop, included).
    fn link_stores(&mut self) {
        for &c in &self.containers {
            let s = self.containers[self.rng.below(self.containers.len())];
            if self.rng.below(3) > 0 {
                self.app.world_mut().entity_mut(c).insert(OverflowStore(s));
            }
        }
    }

    /// One random step on a random container: a request of any kind, a
    /// reload, a save (maybe restored), a tuning change or a despawn.
    fn random_step(&mut self, loose: &mut Option<Vec<Entity>>) {
        let c = self.containers[self.rng.below(self.containers.len())];
        let item = ITEMS[self.rng.below(ITEMS.len())].to_string();
        match self.rng.below(100) {
            0..=21 => self.deliver(c, item),
            22..=29 => self.pick_up(c, loose),
            30..=40 => self.take(c, item),
            41..=44 => self.set_props(c, item),
            45..=51 => {
                let request = MoveItems {
                    container: c,
                    from: self.rng.below(12) as u32,
                    to: self.rng.below(12) as u32,
                    amount: (self.rng.below(3) == 0).then(|| self.rng.below(20) as u32),
                };
                self.write_request(request);
            }
            52..=56 => self.write_request(Sort {
                container: c,
                order: vec![item.into()],
            }),
            57..=61 => {
                let budget = Decimal::from_units(self.rng.below(12) as u64);
                let request = Resize {
                    container: c,
                    slot_count: Some(self.rng.below(14) as u32),
                    size_budget: Some(budget),
                };
                self.write_request(request);
            }
            62..=64 => self.write_request(EmptyForGoneOwner { container: c }),
            65..=91 => self.transfer(c),
            92 | 93 => self.reload(),
            94..=96 => {
                let other = self.containers[self.rng.below(self.containers.len())];
                save_and_restore(
                    self.app.world_mut(),
                    c,
                    other,
                    &mut self.saves,
                    &mut self.books,
                    &mut self.rng,
                    &mut self.loads,
                );
            }
            _ => self.tune_or_despawn(),
        }
    }

    /// Writes one request message, and counts it.
    fn write_request(&mut self, request: impl Into<ContainerRequest>) {
        self.app.world_mut().write_message(request.into());
        self.requests += 1;
    }

    /// Delivers a random amount of `item` to `c`, from nobody, a container
    /// or the bystander.
    fn deliver(&mut self, c: Entity, item: String) {
        let sender = match self.rng.below(4) {
            0 => Some(self.containers[self.rng.below(self.containers.len())]),
            1 => Some(self.bystander),
            _ => None,
        };
        // now and then far more than any container holds (as
        // often over the run as before requests were raised)
        let amount = if self.rng.below(300) == 0 {
            100_000
        } else {
            self.rng.below(40) as u32
        };
        let request = Deliver {
            container: c,
            item: item.into(),
            props: random_props(&mut self.rng),
            amount,
            sender,
        };
        self.write_request(request);
    }

    /// Has `c` pick up a random pickup on the ground (the pickups are found
    /// once a frame, into `loose`); nothing when there is none.
    fn pick_up(&mut self, c: Entity, loose: &mut Option<Vec<Entity>>) {
        if loose.is_none() {
            let w = self.app.world_mut();
            let mut q = w.query_filtered::<Entity, With<LoosePickup>>();
            *loose = Some(q.iter(w).collect());
        }
        let all = loose.as_deref().unwrap_or_default();
        if !all.is_empty() {
            let p = all[self.rng.below(all.len())];
            self.picked.insert(p);
            self.write_request(PickUp {
                container: c,
                pickup: p,
            });
        }
    }

    /// Takes a random amount of `item` from `c`, maybe of one kind, maybe
    /// from one slot.
    fn take(&mut self, c: Entity, item: String) {
        let slot = (self.rng.below(3) == 0).then(|| self.rng.below(12) as u32);
        let props = (self.rng.below(3) == 0).then(|| random_props(&mut self.rng));
        let request = Take {
            container: c,
            item: item.into(),
            props,
            amount: self.rng.below(30) as u32,
            slot,
        };
        self.write_request(request);
    }

    /// Changes the properties of a slot's stack (mostly one that holds a
    /// stack) or, slotless, of one kind's holding of `item`; whole or part.
    fn set_props(&mut self, c: Entity, item: String) {
        // a change of properties: a slot's stack, or (slotless)
        // one kind's holding; whole or part
        // mostly a slot that holds a stack
        let occupied: Vec<u32> = self
            .app
            .world()
            .get::<ContainerContents>(c)
            .and_then(ContainerContents::engine)
            .map(|e| {
                e.slots()
                    .enumerate()
                    .filter_map(|(i, s)| s.map(|_| i as u32))
                    .collect()
            })
            .unwrap_or_default();
        let at = match self.rng.below(8) {
            0 | 1 => PropsAt::Held(Kind::new(item.as_str(), random_props(&mut self.rng))),
            2 => PropsAt::Slot(self.rng.below(12) as u32),
            _ if !occupied.is_empty() => PropsAt::Slot(occupied[self.rng.below(occupied.len())]),
            _ => PropsAt::Slot(self.rng.below(12) as u32),
        };
        let amount = (self.rng.below(2) == 0).then(|| self.rng.below(25) as u32);
        let request = SetProps {
            container: c,
            at,
            amount,
            to: random_props(&mut self.rng),
        };
        self.write_request(request);
    }

    /// A random transfer from `c`: to another container, within `c` (a
    /// move), or to the bystander, which is no container (unanswered).
    fn transfer(&mut self, c: Entity) {
        // a transfer: to another container, within one (a move),
        // or to an entity that is no container (unanswered)
        let to = match self.rng.below(25) {
            0..=4 => c,
            5 => self.bystander,
            _ => self.containers[self.rng.below(self.containers.len())],
        };
        let request = random_transfer(&mut self.rng, c, to);
        self.write_request(request);
    }

    /// Reloads a random adoption (not the seed): its slot count or budget
    /// changes, or it no longer compiles.
    fn reload(&mut self) {
        // a reload: the adoption's slot count or budget changes,
        // or the reloaded file no longer compiles (a tuning key
        // it names does not exist): containers keep their rules
        let h = self.handles[1 + self.rng.below(self.handles.len() - 1)].clone();
        let n = 1 + self.rng.below(8);
        let broken = self.rng.below(5) == 0;
        let mut assets = self.app.world_mut().resource_mut::<Assets<AdoptionAsset>>();
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

    /// Removes the backpack tuning key, sets it anew, or despawns a random
    /// container and spawns another in its place.
    fn tune_or_despawn(&mut self) {
        let w = self.app.world_mut();
        match self.rng.below(4) {
            0 if self.rng.below(4) == 0 => {
                // a tuning key removed: containers keep their rules
                w.resource_mut::<ContainerTuning>()
                    .values
                    .remove("backpack-slots");
            }
            0 => {
                w.resource_mut::<ContainerTuning>()
                    .set("backpack-slots", (2 + self.rng.below(12)) as f64);
            }
            _ => {
                // a container (maybe a store others name) despawned:
                // its items spill, or leave the world with it
                let i = self.rng.below(self.containers.len());
                before_despawn(w, self.containers[i], &mut self.books);
                w.entity_mut(self.containers[i]).despawn();
                self.containers[i] = spawn_container(&mut self.app, &self.handles, &mut self.rng);
            }
        }
    }

    /// Books the frame's reports, then checks the world holds exactly what
    /// came in and did not go out, kind by kind.
    fn check_balance(&mut self, frame: u32) {
        account(&self.app, &mut self.books, &self.picked);
        let mut expect = self.books.injected.clone();
        for (k, v) in &self.books.gone {
            add(&mut expect, k, -v);
        }
        expect.retain(|_, v| *v != 0);
        let got = world_totals(&mut self.app);
        assert_eq!(got, expect, "frame {frame}: the ledger does not balance");
    }

    /// Checks the run was a real mix: enough requests, deliveries, takes,
    /// forced-out items, fallbacks, spills, departures and loads.
    fn check_the_mix(&self) {
        let seen = self.app.world().resource::<Seen>();
        let requests = self.requests;
        assert!(requests >= 10_000, "{requests} requests");
        assert!(
            seen.delivered.len() > 2000 && seen.taken.len() > 1000,
            "a real mix: {} delivered, {} taken",
            seen.delivered.len(),
            seen.taken.len()
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
        let left = self.app.world().resource::<LeftWorld>();
        assert!(
            left.0.len() > 5,
            "despawns took items out of the world ({} times)",
            left.0.len()
        );
        let loads = self.loads;
        assert!(loads > 5, "saves were loaded back ({loads})");
    }

    /// Checks properties changed and were refused, a take drew several
    /// kinds, broken reloads and removed tuning keys were reported, and a
    /// load migrated items.
    fn check_kinds_and_reports(&self) {
        let seen = self.app.world().resource::<Seen>();
        let books = &self.books;
        assert!(
            books.props_changed > 100
                && seen
                    .props_changed
                    .iter()
                    .any(|p| p.outcome.refused.is_some()),
            "properties changed ({} items) and changes were refused",
            books.props_changed
        );
        assert!(
            seen.taken.iter().any(|t| t.outcome.kinds().len() > 1
                && t.outcome.kinds().windows(2).any(|w| w[0].0 != w[1].0)),
            "a take drew several kinds of one type"
        );
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

    /// Checks the transfers were a real mix, each answered once, its event
    /// heard on both ends.
    fn check_transfers(&self) {
        let seen = self.app.world().resource::<Seen>();
        // transfers: a real mix, each answered once, its event on both ends
        let t = &self.books.transfers;
        assert!(
            t.answered > 1000 && t.moving > 100 && t.refused > 100,
            "transfers were answered, moved items and were refused: {t:?}"
        );
        assert!(
            t.within > 50 && t.within_moving > 0 && t.swaps > 0 && t.moved > t.moving as u64,
            "transfers within one container were answered and moved items, stacks swapped, and transfers moved more than one item: {t:?}"
        );
        let events = self.app.world().resource::<TransferEvents>();
        assert_eq!(
            (events.on_from, events.on_to, events.stray),
            (
                seen.transferred.len(),
                seen.transferred.iter().filter(|x| x.from != x.to).count(),
                0
            ),
            "a transfer's event is triggered on its source, and on its target when that is another container"
        );
    }
}

#[test]
fn the_ledger_balances_through_thousands_of_requests_reloads_and_despawns() {
    let mut ledger = Ledger::new();
    for frame in 0..700 {
        ledger.play_frame(frame);
    }
    ledger.check_the_mix();
    ledger.check_kinds_and_reports();
    ledger.check_transfers();
}

/// One outcome event of any kind, as an observer saw it.
#[derive(Debug, Clone, PartialEq)]
enum Answer {
    Delivered(ItemsDelivered),
    Taken(ItemsTaken),
    Transferred(ItemsTransferred),
    ForcedOut(ItemsForcedOut),
    Rearranged(ContainerRearranged),
    PropsChanged(PropsChanged),
    Unanswered(RequestUnanswered),
}

impl Answer {
    fn kind(&self) -> &'static str {
        match self {
            Answer::Delivered(_) => "delivered",
            Answer::Taken(_) => "taken",
            Answer::Transferred(_) => "transferred",
            Answer::ForcedOut(_) => "forced out",
            Answer::Rearranged(_) => "rearranged",
            Answer::PropsChanged(_) => "properties changed",
            Answer::Unanswered(_) => "unanswered",
        }
    }
}

/// Every outcome event, whatever its kind, in the order observed.
#[derive(Resource, Default)]
struct Answers(Vec<Answer>);

/// One observer per outcome event, all pushing into [`Answers`], so the
/// order across kinds is kept.
fn listen(app: &mut App) {
    app.init_resource::<Answers>()
        .add_observer(|e: On<ItemsDelivered>, mut a: ResMut<Answers>| {
            a.0.push(Answer::Delivered(e.event().clone()));
        })
        .add_observer(|e: On<ItemsTaken>, mut a: ResMut<Answers>| {
            a.0.push(Answer::Taken(e.event().clone()));
        })
        .add_observer(|e: On<ItemsTransferred>, mut a: ResMut<Answers>| {
            a.0.push(Answer::Transferred(e.event().clone()));
        })
        .add_observer(|e: On<ItemsForcedOut>, mut a: ResMut<Answers>| {
            a.0.push(Answer::ForcedOut(e.event().clone()));
        })
        .add_observer(|e: On<ContainerRearranged>, mut a: ResMut<Answers>| {
            a.0.push(Answer::Rearranged(e.event().clone()));
        })
        .add_observer(|e: On<PropsChanged>, mut a: ResMut<Answers>| {
            a.0.push(Answer::PropsChanged(e.event().clone()));
        })
        .add_observer(|e: On<RequestUnanswered>, mut a: ResMut<Answers>| {
            a.0.push(Answer::Unanswered(e.event().clone()));
        });
}

/// One container of an order test: its adoption (an index into
/// [`adoptions`]), position, and store (an index into the test's list).
type Placed = (usize, Vec3, Option<usize>);

/// An app with the containers of `layout`, spawned in order, ready; and an
/// entity that is no container. Two calls give the same entities.
fn order_app(layout: &[Placed]) -> (App, Vec<Entity>, Entity) {
    order_app_with(layout, true)
}

/// [`order_app`], with the outcome observers or without them.
fn order_app_with(layout: &[Placed], observers: bool) -> (App, Vec<Entity>, Entity) {
    let mut app = app();
    if observers {
        listen(&mut app);
    }
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
    let containers: Vec<Entity> = layout
        .iter()
        .map(|(a, at, _)| {
            app.world_mut()
                .spawn((
                    Container::new(handles[*a].clone()),
                    Transform::from_translation(*at),
                ))
                .id()
        })
        .collect();
    for (i, (_, _, store)) in layout.iter().enumerate() {
        if let Some(s) = store {
            app.world_mut()
                .entity_mut(containers[i])
                .insert(OverflowStore(containers[*s]));
        }
    }
    let bystander = app.world_mut().spawn_empty().id();
    app.update();
    for &c in &containers {
        assert!(
            app.world()
                .get::<ContainerContents>(c)
                .is_some_and(ContainerContents::is_ready),
            "container {c} is ready"
        );
    }
    (app, containers, bystander)
}

/// A random request over `cs` of any kind but a pickup (only deliveries
/// while `filling`); now and then one to `bystander`, which is no
/// container.
fn mixed_request(
    rng: &mut Rng,
    cs: &[Entity],
    bystander: Entity,
    filling: bool,
) -> ContainerRequest {
    let c = cs[rng.below(cs.len())];
    let item = ItemType::from(ITEMS[rng.below(ITEMS.len())]);
    let kind = if filling { 0 } else { rng.below(22) };
    match kind {
        0..=5 => random_delivery(rng, c, item, cs, bystander),
        6..=8 => random_take(rng, c, item),
        9..=13 => {
            let to = if rng.below(5) == 0 {
                c
            } else {
                cs[rng.below(cs.len())]
            };
            random_transfer(rng, c, to).into()
        }
        14 | 15 => {
            let from = rng.below(12) as u32;
            let to = rng.below(12) as u32;
            let amount = (rng.below(2) == 0).then(|| 1 + rng.below(10) as u32);
            MoveItems {
                container: c,
                from,
                to,
                amount,
            }
            .into()
        }
        16 => Sort {
            container: c,
            order: vec![item],
        }
        .into(),
        17 => {
            let slot_count = (rng.below(4) > 0).then(|| 1 + rng.below(13) as u32);
            let size_budget =
                (rng.below(2) == 0).then(|| Decimal::from_units(1 + rng.below(12) as u64));
            Resize {
                container: c,
                slot_count,
                size_budget,
            }
            .into()
        }
        18 => EmptyForGoneOwner { container: c }.into(),
        19 | 20 => random_props_change(rng, c, item),
        _ => Take {
            container: bystander,
            item,
            props: None,
            amount: 1,
            slot: None,
        }
        .into(),
    }
}

/// A random delivery of `item` to `c` (up to 24, of a random kind), sent
/// by nobody, by one of `cs`, or by `bystander`.
fn random_delivery(
    rng: &mut Rng,
    c: Entity,
    item: ItemType,
    cs: &[Entity],
    bystander: Entity,
) -> ContainerRequest {
    let sender = match rng.below(5) {
        0 => Some(cs[rng.below(cs.len())]),
        1 => Some(bystander),
        _ => None,
    };
    let amount = rng.below(25) as u32;
    Deliver {
        container: c,
        item,
        props: random_props(rng),
        amount,
        sender,
    }
    .into()
}

/// A random take of `item` from `c` (up to 19), maybe from one slot,
/// maybe of one kind.
fn random_take(rng: &mut Rng, c: Entity, item: ItemType) -> ContainerRequest {
    let amount = rng.below(20) as u32;
    let slot = (rng.below(3) == 0).then(|| rng.below(12) as u32);
    let props = (rng.below(3) == 0).then(|| random_props(rng));
    Take {
        container: c,
        item,
        props,
        amount,
        slot,
    }
    .into()
}

/// A random change of properties in `c`: of a slot's stack, or of one
/// kind's holding of `item`; whole or part.
fn random_props_change(rng: &mut Rng, c: Entity, item: ItemType) -> ContainerRequest {
    let at = if rng.below(4) == 0 {
        PropsAt::Held(Kind::new(item, random_props(rng)))
    } else {
        PropsAt::Slot(rng.below(12) as u32)
    };
    let amount = (rng.below(2) == 0).then(|| rng.below(20) as u32);
    SetProps {
        container: c,
        at,
        amount,
        to: random_props(rng),
    }
    .into()
}

/// The entities a request names as containers.
fn named(r: &ContainerRequest) -> Vec<Entity> {
    match r {
        ContainerRequest::Deliver(r) => vec![r.container],
        ContainerRequest::PickUp(r) => vec![r.container],
        ContainerRequest::Take(r) => vec![r.container],
        ContainerRequest::Transfer(r) => vec![r.from, r.to],
        ContainerRequest::Move(r) => vec![r.container],
        ContainerRequest::Sort(r) => vec![r.container],
        ContainerRequest::Resize(r) => vec![r.container],
        ContainerRequest::EmptyForGoneOwner(r) => vec![r.container],
        ContainerRequest::SetProps(r) => vec![r.container],
    }
}

/// Whether `answer` is the outcome of `request`: its kind, its container,
/// and what it asked.
fn answers_request(request: &ContainerRequest, answer: &Answer) -> bool {
    match (request, answer) {
        (_, Answer::Unanswered(u)) => named(request).contains(&u.container),
        (ContainerRequest::Deliver(r), Answer::Delivered(d)) => {
            d.container == r.container
                && d.sender == r.sender
                && d.outcome.item == r.item
                && d.outcome.props == r.props
                && d.outcome.offered == r.amount
        }
        (ContainerRequest::PickUp(r), Answer::Delivered(d)) => {
            d.container == r.container && d.sender == Some(r.pickup)
        }
        (ContainerRequest::Take(r), Answer::Taken(t)) => {
            t.container == r.container && t.outcome.item == r.item && t.outcome.asked == r.amount
        }
        (ContainerRequest::Transfer(r), Answer::Transferred(t)) => {
            t.container == r.from
                && t.from == r.from
                && t.to == r.to
                && t.outcome.asked == r.request.amount
        }
        (ContainerRequest::Move(r), Answer::Rearranged(m)) => m.container == r.container,
        (ContainerRequest::Sort(r), Answer::Rearranged(m)) => m.container == r.container,
        (ContainerRequest::Resize(r), Answer::ForcedOut(f)) => {
            f.container == r.container && f.outcome.cause == Cause::Shrink
        }
        (ContainerRequest::EmptyForGoneOwner(r), Answer::ForcedOut(f)) => {
            f.container == r.container && f.outcome.cause == Cause::OwnerGone
        }
        (ContainerRequest::SetProps(r), Answer::PropsChanged(p)) => {
            p.container == r.container && p.outcome.to == r.to
        }
        _ => false,
    }
}

/// Every container's mirror, stacks (with their counters), holdings, size
/// and capacity, and every pickup on the ground (entity, items, place).
fn snapshot(app: &mut App, containers: &[Entity]) -> Vec<String> {
    let mut out: Vec<String> = containers
        .iter()
        .map(|&c| {
            let cc = app
                .world()
                .get::<ContainerContents>(c)
                .expect("the containers stay");
            match cc.engine() {
                Some(e) => format!(
                    "{c}: mirror {:?}; stacks {:?}; holdings {:?}; size {:?}; limits {:?}",
                    cc.slots(),
                    e.slots().collect::<Vec<_>>(),
                    e.holdings().collect::<Vec<_>>(),
                    e.size_used(),
                    e.limits()
                ),
                None => format!("{c}: not ready"),
            }
        })
        .collect();
    out.push(format!("on the ground: {:?}", pickups(app)));
    out
}

/// What the groups of an order test were answered with, over all rounds.
#[derive(Default)]
struct MixTally {
    /// Answers heard, by kind.
    heard: BTreeMap<&'static str, usize>,
    /// Items the transfers moved.
    moved: u64,
    groups: usize,
    /// Groups that name some container more than once.
    crowded: usize,
}

impl MixTally {
    /// Checks each request of `group` is answered, in the order written,
    /// by its answer in `answered`, and tallies those answers.
    fn hear(&mut self, group: &[ContainerRequest], answered: &[&Answer], round: u64, g: usize) {
        for (k, (r, ans)) in group.iter().zip(answered).enumerate() {
            assert!(
                answers_request(r, ans),
                "round {round}, group {g}: request {k} ({r:?}) is answered in the order written, not by {ans:?}"
            );
            *self.heard.entry(ans.kind()).or_default() += 1;
            if let Answer::Transferred(t) = ans {
                self.moved += u64::from(t.outcome.moved);
            }
        }
    }

    /// Checks the groups mixed every kind, transfers moved items, and most
    /// groups named a container twice.
    fn check(&self) {
        let MixTally {
            heard,
            moved,
            groups,
            crowded,
        } = self;
        for kind in [
            "delivered",
            "taken",
            "transferred",
            "forced out",
            "rearranged",
            "unanswered",
        ] {
            assert!(
                heard.get(kind).is_some_and(|n| *n > 10),
                "the groups mixed every kind: {heard:?}"
            );
        }
        assert!(*moved > 0, "transfers moved items");
        assert!(
            *crowded * 2 > *groups,
            "most groups name a container twice ({crowded} of {groups})"
        );
    }
}

/// The layout of an order test's round: three to five containers of
/// random adoptions, half of them naming a random store.
fn order_layout(rng: &mut Rng, adoption_count: usize) -> Vec<Placed> {
    let n = 3 + rng.below(3);
    random_layout(rng, n, adoption_count, 2)
}

/// `n` containers of random adoptions at random places, one in
/// `store_one_in` naming a random other one as its store.
fn random_layout(
    rng: &mut Rng,
    n: usize,
    adoption_count: usize,
    store_one_in: usize,
) -> Vec<Placed> {
    (0..n)
        .map(|i| {
            let a = rng.below(adoption_count);
            let at = Vec3::new(rng.below(100) as f32, rng.below(100) as f32, 0.0);
            let store = (rng.below(store_one_in) == 0)
                .then(|| rng.below(n))
                .filter(|&s| s != i);
            (a, at, store)
        })
        .collect()
}

/// The two apps of an order test's round: `one` gets each group in one
/// frame, `each` one request a frame.
struct OrderPair {
    round: u64,
    one: App,
    each: App,
    /// The containers, the same entities in both apps.
    cs: Vec<Entity>,
    /// An entity that is no container.
    by: Entity,
}

impl OrderPair {
    /// Both apps with the containers of `layout`: the same entities, the
    /// same containers.
    fn new(layout: &[Placed], round: u64) -> Self {
        let (mut one, cs, by) = order_app(layout);
        let (mut each, cs_each, by_each) = order_app(layout);
        assert_eq!(
            (&cs, by),
            (&cs_each, by_each),
            "both apps spawned the same entities"
        );
        assert_eq!(snapshot(&mut one, &cs), snapshot(&mut each, &cs));
        OrderPair {
            round,
            one,
            each,
            cs,
            by,
        }
    }

    /// Writes `group` to `one` in one frame and to `each` one request a
    /// frame: where each app's new answers start.
    fn play(&mut self, group: &[ContainerRequest]) -> (usize, usize) {
        let start_one = self.one.world().resource::<Answers>().0.len();
        let start_each = self.each.world().resource::<Answers>().0.len();
        for r in group {
            self.one.world_mut().write_message(r.clone());
        }
        self.one.update();
        for r in group {
            self.each.world_mut().write_message(r.clone());
            self.each.update();
        }
        (start_one, start_each)
    }

    /// Checks group `g` was answered alike in both apps, one answer per
    /// request in the order written, and left the same containers and
    /// ground; tallies it.
    fn check_group(
        &mut self,
        g: usize,
        group: &[ContainerRequest],
        (start_one, start_each): (usize, usize),
        tally: &mut MixTally,
    ) {
        let round = self.round;
        let a = &self.one.world().resource::<Answers>().0[start_one..];
        let b = &self.each.world().resource::<Answers>().0[start_each..];
        assert_eq!(
            a, b,
            "round {round}, group {g}: {group:?} in one frame is answered as one frame each"
        );
        let answered = one_answer_per_request(a, round, g);
        assert_eq!(
            answered.len(),
            group.len(),
            "round {round}, group {g}: one answer per request: {group:?} got {a:?}"
        );
        tally.hear(group, &answered, round, g);
        if names_a_container_twice(group) {
            tally.crowded += 1;
        }
        tally.groups += 1;
        assert_eq!(
            snapshot(&mut self.one, &self.cs),
            snapshot(&mut self.each, &self.cs),
            "round {round}, group {g}: after {group:?} the containers or the ground differ"
        );
    }

    /// Checks both apps wrote the same messages of each kind.
    fn check_messages(&self) {
        let round = self.round;
        let (x, y) = (
            self.one.world().resource::<Seen>(),
            self.each.world().resource::<Seen>(),
        );
        assert_eq!(x.delivered, y.delivered, "round {round}: delivered");
        assert_eq!(x.taken, y.taken, "round {round}: taken");
        assert_eq!(x.transferred, y.transferred, "round {round}: transferred");
        assert_eq!(x.forced, y.forced, "round {round}: forced out");
        assert_eq!(x.rearranged, y.rearranged, "round {round}: rearranged");
        assert_eq!(x.unanswered, y.unanswered, "round {round}: unanswered");
    }
}

/// The answers `a` of one frame, one per request: a transfer between two
/// containers is heard on its source, then (checked, and skipped) on its
/// target.
fn one_answer_per_request(a: &[Answer], round: u64, g: usize) -> Vec<&Answer> {
    let mut answered: Vec<&Answer> = Vec::new();
    let mut i = 0;
    while i < a.len() {
        answered.push(&a[i]);
        if let Answer::Transferred(t) = &a[i]
            && t.from != t.to
        {
            assert!(
                matches!(a.get(i + 1), Some(Answer::Transferred(u))
                    if u.container == t.to && u.from == t.from && u.to == t.to && u.outcome == t.outcome),
                "round {round}, group {g}: the transfer {t:?} is heard on its target next, not {:?}",
                a.get(i + 1)
            );
            i += 1;
        }
        i += 1;
    }
    answered
}

/// Whether some container is named by two requests of `group` (a transfer
/// within one container names it once).
fn names_a_container_twice(group: &[ContainerRequest]) -> bool {
    let mut names: Vec<Entity> = group
        .iter()
        .flat_map(|r| {
            let mut v = named(r);
            v.dedup();
            v
        })
        .collect();
    names.sort();
    names.windows(2).any(|w| w[0] == w[1])
}

/// Spec section 13 (issue 21): requests written in one frame are answered
/// in the order written, whatever their kind, each seeing what the one
/// before left. So a frame of mixed requests gives the same outcomes, in
/// the same order, and the same containers and ground, as the same requests
/// written one frame each.
#[test]
fn a_frame_of_mixed_requests_equals_the_same_requests_one_by_one() {
    let adoption_count = adoptions().len();
    let mut tally = MixTally::default();
    for round in 0..4u64 {
        let mut rng = Rng(0x5EC1_3021 + round);
        let layout = order_layout(&mut rng, adoption_count);
        // `one` gets each group in one frame, `each` one request a frame
        let mut pair = OrderPair::new(&layout, round);
        for g in 0..120 {
            let size = 2 + rng.below(7);
            let group: Vec<ContainerRequest> = (0..size)
                .map(|_| mixed_request(&mut rng, &pair.cs, pair.by, g < 3))
                .collect();
            let starts = pair.play(&group);
            pair.check_group(g, &group, starts, &mut tally);
        }
        // the messages of each kind, too
        pair.check_messages();
    }
    tally.check();
}

/// Issue 20: requests to independent containers are answered across
/// threads, and the answer is the serial one, whatever the thread count:
/// the same outcomes in the same order (events and messages of every kind),
/// the same containers, the same pickups with the same entities.
#[test]
fn a_frame_answered_across_threads_equals_the_serial_answer() {
    let adoption_count = adoptions().len();
    let threads = [2usize, 3, 5];
    let mut on_workers = 0usize;
    for round in 0..2u64 {
        let mut rng = Rng(0x7A2A_11E1 + round);
        // many containers, a few linked by stores
        let n = 400;
        let layout = random_layout(&mut rng, n, adoption_count, 10);
        let (mut serial, cs, by) = order_app(&layout);
        serial.insert_resource(ContainerParallelism::Serial);
        let mut apps: Vec<App> = threads
            .iter()
            .map(|&t| {
                let (mut app, cs_t, by_t) = order_app(&layout);
                assert_eq!((&cs, by), (&cs_t, by_t), "the same entities");
                app.insert_resource(ContainerParallelism::Threads(
                    std::num::NonZeroUsize::new(t).expect("not zero"),
                ));
                app
            })
            .collect();
        for frame in 0..10 {
            let size = 300 + rng.below(500);
            let requests: Vec<ContainerRequest> = (0..size)
                .map(|_| mostly_local(&mut rng, &cs, by, frame < 2))
                .collect();
            let start = serial.world().resource::<Answers>().0.len();
            for r in &requests {
                serial.world_mut().write_message(r.clone());
            }
            serial.update();
            let expected = serial.world().resource::<Answers>().0[start..].to_vec();
            let expected_world = snapshot(&mut serial, &cs);
            assert_eq!(
                serial.world().resource::<ContainerFrameStats>().on_workers,
                0,
                "the serial app answers on its own thread"
            );
            for (app, t) in apps.iter_mut().zip(threads) {
                let start = app.world().resource::<Answers>().0.len();
                for r in &requests {
                    app.world_mut().write_message(r.clone());
                }
                app.update();
                let got = &app.world().resource::<Answers>().0[start..];
                assert_eq!(
                    got,
                    expected.as_slice(),
                    "round {round}, frame {frame}, {t} threads: the outcome events differ from the serial answer"
                );
                let stats = *app.world().resource::<ContainerFrameStats>();
                assert_eq!(stats.requests, size);
                on_workers += stats.on_workers;
                assert_eq!(
                    snapshot(app, &cs),
                    expected_world,
                    "round {round}, frame {frame}, {t} threads: the containers or the ground differ"
                );
            }
        }
        let x = serial.world().resource::<Seen>();
        for (app, t) in apps.iter().zip(threads) {
            let y = app.world().resource::<Seen>();
            assert_eq!(x.delivered, y.delivered, "{t} threads: delivered");
            assert_eq!(x.taken, y.taken, "{t} threads: taken");
            assert_eq!(x.transferred, y.transferred, "{t} threads: transferred");
            assert_eq!(x.forced, y.forced, "{t} threads: forced out");
            assert_eq!(x.rearranged, y.rearranged, "{t} threads: rearranged");
            assert_eq!(x.unanswered, y.unanswered, "{t} threads: unanswered");
        }
    }
    assert!(
        on_workers > 5_000,
        "most requests went to worker threads ({on_workers})"
    );
}

/// With no observer, no linked request and nothing to settle, the threads'
/// deliveries and takes are written a kind at a time, the two kinds side
/// by side: each kind's messages are still those of the serial answer, in
/// its order, whatever the thread count. Frames whose deliveries leave
/// items on the ground take the ordered report instead; both are checked.
#[test]
fn deliveries_and_takes_written_a_kind_at_a_time_equal_the_serial_answer() {
    let threads = [2usize, 3, 5];
    let mut rng = Rng(0x5EED_B47C);
    let n = 400;
    // seed backpacks, whose full slots leave items on the ground, and
    // no-limit chests, which take everything
    let layout: Vec<Placed> = (0..n)
        .map(|_| {
            let at = Vec3::new(rng.below(100) as f32, rng.below(100) as f32, 0.0);
            (2 * rng.below(2), at, None)
        })
        .collect();
    let (mut serial, cs, _) = order_app_with(&layout, false);
    serial.insert_resource(ContainerParallelism::Serial);
    let mut apps: Vec<App> = threads
        .iter()
        .map(|&t| {
            let (mut app, cs_t, _) = order_app_with(&layout, false);
            assert_eq!(cs, cs_t, "the same entities");
            app.insert_resource(ContainerParallelism::Threads(
                std::num::NonZeroUsize::new(t).expect("not zero"),
            ));
            app
        })
        .collect();
    let (mut batched, mut in_order) = (0, 0);
    for frame in 0..16 {
        // the later frames deliver more, and some leave items on the ground
        let (most, kinds) = if frame < 10 {
            (3, 1)
        } else {
            (40, ITEMS.len())
        };
        let requests: Vec<ContainerRequest> = (0..300 + rng.below(500))
            .map(|_| {
                let c = cs[rng.below(cs.len())];
                let item = ITEMS[rng.below(kinds)];
                let amount = 1 + rng.below(most) as u32;
                match rng.below(3) {
                    0 => Take::new(c, item, amount).into(),
                    1 => Take::new(c, item, amount)
                        .from_slot(rng.below(4) as u32)
                        .into(),
                    _ => Deliver::new(c, item, amount).into(),
                }
            })
            .collect();
        let start = serial.world().resource::<Seen>().delivered.len();
        for r in &requests {
            serial.world_mut().write_message(r.clone());
        }
        serial.update();
        let expected_world = snapshot(&mut serial, &cs);
        // whether a delivery of this frame left something to settle
        let settles = serial.world().resource::<Seen>().delivered[start..]
            .iter()
            .any(|d| d.outcome.leftover.is_some() || d.outcome.refused.is_some());
        for (app, t) in apps.iter_mut().zip(threads) {
            for r in &requests {
                app.world_mut().write_message(r.clone());
            }
            app.update();
            let stats = *app.world().resource::<ContainerFrameStats>();
            assert_eq!(
                stats.on_workers,
                requests.len(),
                "frame {frame}, {t} threads: every request is independent"
            );
            assert_eq!(
                snapshot(app, &cs),
                expected_world,
                "frame {frame}, {t} threads: the containers or the ground differ"
            );
            let (x, y) = (
                serial.world().resource::<Seen>(),
                app.world().resource::<Seen>(),
            );
            assert_eq!(
                x.delivered, y.delivered,
                "frame {frame}, {t} threads: delivered"
            );
            assert_eq!(x.taken, y.taken, "frame {frame}, {t} threads: taken");
        }
        if settles {
            in_order += 1;
        } else {
            batched += 1;
        }
    }
    assert!(
        batched >= 5 && in_order >= 2,
        "both ways of writing were used ({batched} batched, {in_order} in order)"
    );
}

/// A [`mixed_request`], but only one in eight links two containers (a
/// transfer between them, a delivery a container sent): the others leave
/// most containers independent.
fn mostly_local(
    rng: &mut Rng,
    cs: &[Entity],
    bystander: Entity,
    filling: bool,
) -> ContainerRequest {
    loop {
        let r = mixed_request(rng, cs, bystander, filling);
        let links = match &r {
            ContainerRequest::Transfer(t) => t.from != t.to,
            ContainerRequest::Deliver(d) => d.sender.is_some_and(|s| cs.contains(&s)),
            _ => false,
        };
        if !links || rng.below(8) == 0 {
            return r;
        }
    }
}

/// A request naming an entity no longer in the world, whose index a live
/// container now holds, must not give that container two numbers in the
/// frame's split (found in review: its requests then ran out of order on
/// two threads). The frame keeps the serial answer: of two one-berry takes
/// around it, the first gets the berry.
#[test]
fn a_frame_naming_a_despawned_entity_keeps_the_serial_answer() {
    let run = |parallelism: ContainerParallelism| {
        let mut app = app();
        app.insert_resource(parallelism);
        let handle = app
            .world_mut()
            .resource_mut::<Assets<AdoptionAsset>>()
            .add(AdoptionAsset::new(seed()));
        let bag = app.world_mut().spawn(Container::new(handle.clone())).id();
        // the bag's index in another generation: an entity despawned
        // before the bag took its index, or one to come
        let gone = Entity::try_from_bits(bag.to_bits() + (1 << 32)).expect("a valid entity");
        assert_eq!((gone.index(), gone == bag), (bag.index(), false));
        let others: Vec<Entity> = (0..300)
            .map(|_| app.world_mut().spawn(Container::new(handle.clone())).id())
            .collect();
        app.update();
        for &c in std::iter::once(&bag).chain(&others) {
            app.world_mut()
                .write_message(ContainerRequest::from(Deliver::new(c, "berries", 1)));
        }
        app.update();
        let take = |c: Entity| ContainerRequest::from(Take::new(c, "berries", 1).from_slot(0));
        let start = app.world().resource::<Seen>().taken.len();
        for r in [take(bag), take(gone), take(bag)]
            .into_iter()
            .chain(others.iter().map(|&c| take(c)))
        {
            app.world_mut().write_message(r);
        }
        app.update();
        let taken: Vec<(Entity, u32)> = app.world().resource::<Seen>().taken[start..]
            .iter()
            .map(|t| (t.container, t.outcome.taken))
            .collect();
        (
            taken,
            app.world()
                .get::<ContainerContents>(bag)
                .map(|c| c.count("berries")),
        )
    };
    let (serial, serial_left) = run(ContainerParallelism::Serial);
    assert_eq!(serial[..2].iter().map(|t| t.1).collect::<Vec<_>>(), [1, 0]);
    for threads in [2, 3] {
        let n = std::num::NonZeroUsize::new(threads).expect("not zero");
        let (got, left) = run(ContainerParallelism::Threads(n));
        assert_eq!(got, serial, "{threads} threads: the takes differ");
        assert_eq!(left, serial_left, "{threads} threads: the bag differs");
    }
}
