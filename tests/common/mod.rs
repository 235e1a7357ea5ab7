//! Shared helpers for the headless plugin tests.
#![allow(dead_code)]

use bevy::prelude::*;
use bevy_container::adoption::{self, Adoption, Context};
use bevy_container::plugin::*;
use serde_json::{Value, json};

pub mod kinds;

/// Every outcome message seen, in order.
#[derive(Resource, Default, Debug)]
pub struct Seen {
    pub delivered: Vec<ItemsDelivered>,
    pub taken: Vec<ItemsTaken>,
    pub transferred: Vec<ItemsTransferred>,
    pub forced: Vec<ItemsForcedOut>,
    pub rearranged: Vec<ContainerRearranged>,
    pub spilled: Vec<ContainerSpilled>,
    pub unanswered: Vec<RequestUnanswered>,
    pub rejected: Vec<AdoptionRejected>,
    pub props_changed: Vec<PropsChanged>,
}

type Readers<'w, 's> = (
    MessageReader<'w, 's, ItemsDelivered>,
    MessageReader<'w, 's, ItemsTaken>,
    MessageReader<'w, 's, ItemsTransferred>,
    MessageReader<'w, 's, ItemsForcedOut>,
    MessageReader<'w, 's, ContainerRearranged>,
    MessageReader<'w, 's, ContainerSpilled>,
    MessageReader<'w, 's, RequestUnanswered>,
    MessageReader<'w, 's, AdoptionRejected>,
    MessageReader<'w, 's, PropsChanged>,
);

fn collect(mut seen: ResMut<Seen>, readers: Readers) {
    let (mut d, mut t, mut x, mut f, mut r, mut s, mut u, mut j, mut p) = readers;
    seen.props_changed.extend(p.read().cloned());
    seen.delivered.extend(d.read().cloned());
    seen.taken.extend(t.read().cloned());
    seen.transferred.extend(x.read().cloned());
    seen.forced.extend(f.read().cloned());
    seen.rearranged.extend(r.read().cloned());
    seen.spilled.extend(s.read().cloned());
    seen.unanswered.extend(u.read().cloned());
    seen.rejected.extend(j.read().cloned());
}

/// A headless app with the plugin and an outcome collector.
pub fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
    ));
    app.init_resource::<Seen>().add_systems(Last, collect);
    app
}

/// A hand-written adoption; `answers` and `rows` override the defaults.
pub fn adoption_json(answers: Value, slots: u32, budget: f64, rows: Value) -> Value {
    json!({
        "contract": "container", "version": 1,
        "answers": answers,
        "values": {"slot-count": slots, "size-budget": budget},
        "rows": {"items": rows},
    })
}

/// Answers for a slot-count container with the given leftover destination.
pub fn slot_answers(leftover: &str) -> Value {
    json!({
        "capacity-limit": "slot-count", "partial-acceptance": "fill-what-fits",
        "leftover-destination": leftover, "fill-order": "top-up-then-first-empty",
        "draw-order": "first-in-order", "type-restriction": "any-item",
    })
}

pub fn read(value: &Value) -> Adoption {
    let (report, a) = adoption::validate(value, Context::default());
    a.unwrap_or_else(|| panic!("test adoption is valid: {report}"))
}

pub fn seed() -> Adoption {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/backpack.adoption.json"
    ))
    .unwrap();
    adoption::Adoption::read_json(&bytes).unwrap()
}

/// Adds an adoption asset and spawns a container using it at `at`.
pub fn spawn(app: &mut App, adoption: Adoption, at: Vec3) -> (Entity, Handle<AdoptionAsset>) {
    let handle = app
        .world_mut()
        .resource_mut::<Assets<AdoptionAsset>>()
        .add(AdoptionAsset::new(adoption));
    let e = app
        .world_mut()
        .spawn((
            Container::new(handle.clone()),
            Transform::from_translation(at),
        ))
        .id();
    app.update();
    (e, handle)
}

pub fn slots(app: &App, e: Entity) -> Vec<Option<(String, u32)>> {
    app.world()
        .get::<ContainerContents>(e)
        .unwrap()
        .slots()
        .iter()
        .map(|s| s.as_ref().map(|(k, n)| (k.to_string(), *n)))
        .collect()
}

pub fn pickups(app: &mut App) -> Vec<(Entity, LoosePickup, Vec3)> {
    let mut q = app
        .world_mut()
        .query::<(Entity, &LoosePickup, &Transform)>();
    let mut v: Vec<_> = q
        .iter(app.world())
        .map(|(e, p, t)| (e, p.clone(), t.translation))
        .collect();
    v.sort_by_key(|(e, _, _)| *e);
    v
}

pub fn send(app: &mut App, m: impl Into<ContainerRequest>) {
    app.world_mut().write_message(m.into());
    app.update();
}

#[path = "../../src/splitmix.rs"]
mod splitmix;

/// A small deterministic generator (the crate's SplitMix64), so failures
/// reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        splitmix::next(&mut self.0)
    }

    pub fn below(&mut self, n: usize) -> usize {
        splitmix::below(&mut self.0, n.max(1) as u64) as usize
    }
}

/// Sends a delivery, runs a frame, and returns its outcome.
pub fn deliver(
    app: &mut App,
    container: Entity,
    item: &str,
    amount: u32,
    sender: Option<Entity>,
) -> ItemsDelivered {
    send(
        app,
        Deliver {
            container,
            item: item.into(),
            props: Default::default(),
            amount,
            sender,
        },
    );
    app.world()
        .resource::<Seen>()
        .delivered
        .last()
        .cloned()
        .expect("one outcome")
}

/// The last forced removal seen.
pub fn last_forced(app: &App) -> ItemsForcedOut {
    app.world()
        .resource::<Seen>()
        .forced
        .last()
        .cloned()
        .expect("a forced removal")
}

/// The asset plugin reading this crate's `assets/` folder.
pub fn crate_assets() -> AssetPlugin {
    AssetPlugin {
        file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/assets").into(),
        ..default()
    }
}
