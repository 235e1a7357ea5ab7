//! Workloads shared by the criterion benchmarks (`benches/container.rs`)
//! and the side-by-side ratios of `examples/perf.rs`: a hand-rolled
//! baseline container, a day of mixed requests, the seed backpack and a
//! 10,000-slot bank.
#![allow(dead_code)]

#[path = "../../src/splitmix.rs"]
mod splitmix;

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;

use bevy::prelude::*;
use bevy_container::adoption::{self, Context, Format, Tuning};
use bevy_container::contents::{Contents, ItemType, Props, TransferRequest};
use bevy_container::plugin::*;
use bevy_container::rules::Rules;
use serde_json::json;

pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        splitmix::next(&mut self.0)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        splitmix::below(&mut self.0, n.max(1))
    }
}

/// The hand-rolled container.
#[derive(Clone)]
pub struct Baseline {
    slots: Vec<Option<(u32, u32)>>,
    ids: HashMap<String, u32>,
    limits: Vec<u32>,
}

impl Baseline {
    pub fn new(slots: usize, limits: &[(String, u32)]) -> Baseline {
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

    pub fn deliver(&mut self, item: &str, amount: u32) -> u32 {
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

    /// Takes up to `amount` from one slot, whatever it holds.
    pub fn take_from(&mut self, slot: usize, amount: u32) -> u32 {
        let Some(Some((_, n))) = self.slots.get_mut(slot) else {
            return 0;
        };
        let k = (*n).min(amount);
        *n -= k;
        if *n == 0 {
            self.slots[slot] = None;
        }
        k
    }

    pub fn take(&mut self, item: &str, amount: u32) -> u32 {
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
pub enum Op {
    /// Deliver an amount of a type.
    Deliver(usize, u32),
    /// Take an amount of a type, in the draw order.
    Take(usize, u32),
    /// The player clicks a slot and takes an amount of what it holds.
    TakeFrom(usize, u32),
}

/// How a day's takes choose what to take.
#[derive(Clone, Copy)]
pub enum Takes {
    /// By type, in the container's draw order (a bank, a crafting step).
    ByType,
    /// By a slot the player clicks, among this many (the seed backpack:
    /// its draw order is `not-applicable`, the player names the slot).
    BySlot(usize),
}

/// `ops` requests, 55% deliveries and 45% takes, of 1 to `max` items of
/// one of `types` types.
pub fn day(types: usize, ops: usize, seed: u64, max: u64, takes: Takes) -> Vec<Op> {
    let mut rng = Rng(seed);
    (0..ops)
        .map(|_| {
            let t = rng.below(types as u64) as usize;
            let a = 1 + rng.below(max) as u32;
            match (rng.below(100) < 55, takes) {
                (true, _) => Op::Deliver(t, a),
                (false, Takes::ByType) => Op::Take(t, a),
                (false, Takes::BySlot(slots)) => Op::TakeFrom(rng.below(slots as u64) as usize, a),
            }
        })
        .collect()
}

pub fn bank_rules(types: usize, slots: u32) -> (Rules, Vec<(String, u32)>) {
    let a = bank_adoption(types, slots);
    let rules = Rules::compile(&a, &Tuning::default()).unwrap();
    let limits = rules
        .rows
        .iter()
        .map(|r| (r.id.clone(), r.stack_limit))
        .collect();
    (rules, limits)
}

/// A bank of `slots` slots and `types` types (`item-0`, ...), stack limits
/// 1 to 50.
pub fn bank_adoption(types: usize, slots: u32) -> adoption::Adoption {
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
    a.unwrap_or_else(|| panic!("{report}"))
}

/// The seed backpack's adoption.
pub fn seed_adoption() -> adoption::Adoption {
    let bytes = std::fs::read("assets/backpack.adoption.json").expect("run from the crate root");
    adoption::read(&bytes, Format::Json, Context::default()).unwrap()
}

pub fn seed_rules() -> (Rules, Vec<u8>) {
    let bytes = std::fs::read("assets/backpack.adoption.json").expect("run from the crate root");
    let a = adoption::read(&bytes, Format::Json, Context::default()).unwrap();
    (Rules::compile(&a, &Tuning::default()).unwrap(), bytes)
}

/// What a day of mixed requests needs from a container. Outcomes go to
/// `black_box` by reference, so neither side pays for copying its outcome
/// into the black box (a transfer's outcome is large enough that the copy
/// was a `memcpy` call, 7% of the transfer race).
pub trait Holder: Clone {
    fn put(&mut self, item: &str, amount: u32);
    fn draw(&mut self, item: &str, amount: u32);
    fn draw_from(&mut self, slot: usize, amount: u32);
}

impl Holder for Contents {
    fn put(&mut self, item: &str, amount: u32) {
        black_box(&self.deliver(item, amount));
    }
    fn draw(&mut self, item: &str, amount: u32) {
        black_box(&self.take(item, amount));
    }
    fn draw_from(&mut self, slot: usize, amount: u32) {
        // the player clicks the slot and takes what it holds
        black_box(&self.take_slot(slot as u32, amount));
    }
}

impl Holder for Baseline {
    fn put(&mut self, item: &str, amount: u32) {
        black_box(&self.deliver(item, amount));
    }
    fn draw(&mut self, item: &str, amount: u32) {
        black_box(&self.take(item, amount));
    }
    fn draw_from(&mut self, slot: usize, amount: u32) {
        black_box(&self.take_from(slot, amount));
    }
}

/// The bank filled to every one of its 10,000 slots.
pub fn full_bank(bank: &Arc<Rules>, names: &[String]) -> Contents {
    let mut full = Contents::new(bank.clone());
    let mut i = 0;
    while full.slots().flatten().count() < 10_000 {
        let name = &names[i % names.len()];
        let limit = bank.row(name).map_or(1, |r| r.stack_limit);
        full.deliver(name, limit);
        i += 1;
    }
    full
}

/// Berries in each backpack before the timed frames, so a frame's
/// deliver-2, take-2-from-slot-0 keeps every backpack in the same state.
pub const PREFILL: u32 = 10;

/// The app of [`backpack_app`] without the plugin: Bevy's own frame.
pub fn bare_app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default()));
    app.update();
    app
}

/// An engine on an entity with nothing around it: no mirror, no store,
/// no observer, no readiness. The component [`floor_app`] answers on.
#[derive(Component)]
pub struct BareEngine(pub Contents);

/// The least a Bevy system can do to answer [`write_requests`]: per
/// request, find the container's component, call its engine, and write
/// the plugin's outcome message. No rule of the plugin around it (stores,
/// senders, observers, mirrors, readiness, linked requests), so it is the
/// floor of any plugin answering requests as messages: Bevy's frame, its
/// message queues and its component lookups, plus the engine.
fn answer_on_bare_engines(
    mut requests: MessageReader<ContainerRequest>,
    mut engines: Query<&mut BareEngine>,
    mut delivered: MessageWriter<ItemsDelivered>,
    mut taken: MessageWriter<ItemsTaken>,
) {
    for r in requests.read() {
        match r {
            ContainerRequest::Deliver(d) => {
                if let Ok(mut e) = engines.get_mut(d.container) {
                    let outcome = e.0.deliver(d.item.as_str(), d.amount);
                    delivered.write(ItemsDelivered {
                        container: d.container,
                        sender: None,
                        outcome,
                        settled: Vec::new(),
                        warnings: Vec::new(),
                    });
                }
            }
            ContainerRequest::Take(t) => {
                if let Ok(mut e) = engines.get_mut(t.container) {
                    let outcome = match t.slot {
                        Some(slot) => e.0.take_from(t.item.as_str(), t.amount, slot),
                        None => e.0.take(t.item.as_str(), t.amount),
                    };
                    taken.write(ItemsTaken {
                        container: t.container,
                        outcome,
                    });
                }
            }
            _ => {}
        }
    }
}

/// A headless app of `n` [`BareEngine`]s holding [`PREFILL`] berries
/// (the engines of [`backpack_engines`]), answered by the floor system
/// above instead of the plugin.
pub fn floor_app(n: usize) -> (App, Vec<Entity>) {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_message::<ContainerRequest>()
        .add_message::<ItemsDelivered>()
        .add_message::<ItemsTaken>()
        .add_systems(Update, answer_on_bare_engines);
    let bags = backpack_engines(n)
        .into_iter()
        .map(|e| app.world_mut().spawn(BareEngine(e)).id())
        .collect();
    app.update();
    (app, bags)
}

/// A headless app with `n` seed backpacks holding [`PREFILL`] berries.
pub fn backpack_app(n: usize) -> (App, Vec<Entity>) {
    backpack_app_with(n, ContainerParallelism::default())
}

/// [`backpack_app`], answering requests as `parallelism` says.
pub fn backpack_app_with(n: usize, parallelism: ContainerParallelism) -> (App, Vec<Entity>) {
    backpack_app_built(n, parallelism, |_| {})
}

/// [`backpack_app`], with `more` plugins added after the container plugin.
#[allow(dead_code)]
pub fn backpack_app_then(n: usize, more: impl FnOnce(&mut App)) -> (App, Vec<Entity>) {
    backpack_app_built(n, ContainerParallelism::default(), more)
}

fn backpack_app_built(
    n: usize,
    parallelism: ContainerParallelism,
    more: impl FnOnce(&mut App),
) -> (App, Vec<Entity>) {
    let bytes = std::fs::read("assets/backpack.adoption.json").expect("run from the crate root");
    let a = adoption::read(&bytes, Format::Json, Context::default()).unwrap();
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
    ));
    more(&mut app);
    app.insert_resource(parallelism);
    let handle = app
        .world_mut()
        .resource_mut::<Assets<AdoptionAsset>>()
        .add(AdoptionAsset::new(a));
    let bags: Vec<Entity> = (0..n)
        .map(|_| app.world_mut().spawn(Container::new(handle.clone())).id())
        .collect();
    app.update();
    for &bag in &bags {
        app.world_mut()
            .write_message(ContainerRequest::from(Deliver::new(
                bag, "berries", PREFILL,
            )));
    }
    app.update();
    (app, bags)
}

/// Writes one deliver and one take request per bag: 2 berries in, and the
/// player takes 2 from slot 0 (the seed's draw order is `not-applicable`).
/// The requests share one id, as a game that keeps its items' ids does.
pub fn write_requests(app: &mut App, bags: &[Entity]) {
    let world = app.world_mut();
    let berries = ItemType::from("berries");
    for &bag in bags {
        world.write_message(ContainerRequest::from(Deliver::new(
            bag,
            berries.clone(),
            2,
        )));
        world.write_message(ContainerRequest::from(
            Take::new(bag, berries.clone(), 2).from_slot(0),
        ));
    }
}

/// `rounds` rounds of [`write_requests`] in one frame: with 10,000 bags
/// and 5 rounds, a frame of 100,000 requests.
pub fn write_rounds(app: &mut App, bags: &[Entity], rounds: usize) {
    for _ in 0..rounds {
        write_requests(app, bags);
    }
}

/// `rounds` rounds of [`engine_requests`]: the requests of
/// [`write_rounds`] on engines directly.
pub fn engine_rounds(engines: &mut [Contents], rounds: usize) {
    for _ in 0..rounds {
        engine_requests(engines);
    }
}

/// The same requests as [`write_requests`] on engines directly.
pub fn engine_requests(engines: &mut [Contents]) {
    for c in engines.iter_mut() {
        black_box(&c.deliver("berries", 2));
        black_box(&c.take_from("berries", 2, 0));
    }
}

/// `n` seed backpacks holding [`PREFILL`] berries, without Bevy.
pub fn backpack_engines(n: usize) -> Vec<Contents> {
    let (rules, _) = seed_rules();
    let rules = Arc::new(rules);
    (0..n)
        .map(|_| {
            let mut c = Contents::new(rules.clone());
            c.deliver("berries", PREFILL);
            c
        })
        .collect()
}

/// Runs `ops` on `c`.
pub fn play<H: Holder>(c: &mut H, names: &[String], ops: &[Op]) {
    for op in ops {
        match *op {
            Op::Deliver(t, a) => c.put(&names[t], a),
            Op::Take(t, a) => c.draw(&names[t], a),
            Op::TakeFrom(s, a) => c.draw_from(s, a),
        }
    }
}

/// Runs `ops` on `c` as [`play`] does, with every third delivery's items
/// carrying one of `kinds` in turn (a worn axe, a ripe berry): the same
/// day, a third of its items with properties.
pub fn play_kinds(c: &mut Contents, names: &[String], ops: &[Op], kinds: &[Props]) {
    let mut n = 0usize;
    for op in ops {
        match *op {
            Op::Deliver(t, a) => {
                n += 1;
                if n.is_multiple_of(3) && !kinds.is_empty() {
                    black_box(&c.deliver_kind(&names[t], &kinds[(n / 3) % kinds.len()], a));
                } else {
                    c.put(&names[t], a);
                }
            }
            Op::Take(t, a) => c.draw(&names[t], a),
            Op::TakeFrom(s, a) => c.draw_from(s, a),
        }
    }
}

/// A chest and a backpack (the seed's rules) each holding berries in five
/// stacks, and a list of drags between them: (from the chest?, source
/// slot, amount). Half go each way, so the day keeps its shape.
pub fn drag_day(n: usize) -> (Contents, Contents, Vec<(bool, u32, u32)>) {
    let (rules, _) = seed_rules();
    let rules = Arc::new(rules);
    let mut chest = Contents::new(rules.clone());
    let mut bag = Contents::new(rules);
    chest.deliver("berries", 90);
    bag.deliver("berries", 90);
    let mut rng = Rng(7);
    let drags = (0..n)
        .map(|i| (i % 2 == 0, rng.below(5) as u32, 1 + rng.below(8) as u32))
        .collect();
    (chest, bag, drags)
}

/// The drags as transfers: one request each.
pub fn play_transfers(chest: &mut Contents, bag: &mut Contents, drags: &[(bool, u32, u32)]) {
    for &(from_chest, slot, amount) in drags {
        let r = TransferRequest::from_slot(slot, amount);
        let (from, to) = if from_chest {
            (&mut *chest, &mut *bag)
        } else {
            (&mut *bag, &mut *chest)
        };
        black_box(&from.transfer(to, &r));
    }
}

/// The drags as the pair a transfer replaces: a take from the slot, then a
/// delivery of what was taken (without the dry run that would keep the
/// rest in the source).
pub fn play_take_deliver(chest: &mut Contents, bag: &mut Contents, drags: &[(bool, u32, u32)]) {
    for &(from_chest, slot, amount) in drags {
        let (from, to) = if from_chest {
            (&mut *chest, &mut *bag)
        } else {
            (&mut *bag, &mut *chest)
        };
        if let Some(t) = from.take_slot(slot, amount) {
            black_box(&to.deliver(t.item.as_str(), t.taken));
            black_box(&t);
        }
    }
}

/// A headless app with Bevy's UI layout and the container grid, and one
/// container of `rules` shown in a grid of `columns` columns (the camera
/// renders to no target, with its size filled in as a window would).
pub fn grid_app(
    adoption: adoption::Adoption,
    prefill: &[(String, u32)],
    columns: u16,
) -> (App, Entity) {
    use bevy::camera::{CameraPlugin, ComputedCameraValues, RenderTarget, RenderTargetInfo};
    use bevy::ui::IsDefaultUiCamera;
    use bevy_container::ui::{ContainerGrid, ContainerUiPlugin};
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
        TransformPlugin,
        ImagePlugin::default(),
        bevy::image::TextureAtlasPlugin,
        bevy::mesh::MeshPlugin,
        CameraPlugin,
        bevy::text::TextPlugin,
        bevy::ui::UiPlugin,
        bevy::picking::PickingPlugin,
        bevy::picking::InteractionPlugin,
    ))
    .add_plugins(ContainerUiPlugin)
    .init_resource::<ButtonInput<KeyCode>>()
    .init_resource::<ButtonInput<MouseButton>>()
    .init_resource::<bevy::input::touch::Touches>();
    let size = UVec2::new(1280, 720);
    let camera = Camera {
        computed: ComputedCameraValues {
            target_info: Some(RenderTargetInfo {
                physical_size: size,
                scale_factor: 1.0,
            }),
            ..default()
        },
        ..default()
    };
    app.world_mut().spawn((
        Camera2d,
        camera,
        RenderTarget::None { size },
        IsDefaultUiCamera,
    ));
    let handle = app
        .world_mut()
        .resource_mut::<Assets<AdoptionAsset>>()
        .add(AdoptionAsset::new(adoption));
    let container = app.world_mut().spawn(Container::new(handle)).id();
    app.update();
    for (item, amount) in prefill {
        app.world_mut()
            .write_message(ContainerRequest::from(Deliver::new(
                container,
                item.as_str(),
                *amount,
            )));
    }
    app.world_mut()
        .spawn((ContainerGrid::new(container, columns), Node::default()));
    app.update();
    app.update();
    (app, container)
}

/// One frame of a player at a grid: one item of `item` in, then one out of
/// slot 0, so the contents stay as they were; returns the frame's time.
pub fn grid_frame(app: &mut App, container: Entity, item: &str) -> std::time::Duration {
    let world = app.world_mut();
    world.write_message(ContainerRequest::from(Deliver::new(container, item, 1)));
    world.write_message(ContainerRequest::from(
        Take::new(container, item, 1).from_slot(0),
    ));
    let t = std::time::Instant::now();
    app.update();
    t.elapsed()
}

/// A server app and a client app connected in one process (replicon's
/// test connection), sharing the adoption `a`; a public container on the
/// server holding `fill`, seen by the client.
#[cfg(feature = "replicon")]
pub fn replicated_pair(a: adoption::Adoption, fill: &[(String, u32)]) -> (App, App, Entity) {
    use bevy::state::app::StatesPlugin;
    use bevy_container::net::{ContainerAccess, ContainerNetPlugin};
    use bevy_replicon::prelude::*;
    use bevy_replicon::test_app::ServerTestAppExt;
    let side = || {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            StatesPlugin,
            AssetPlugin::default(),
            RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
            ContainerPlugin::default(),
            ContainerNetPlugin,
        ));
        app.finish();
        app.cleanup();
        let handle = app
            .world_mut()
            .resource_mut::<Assets<AdoptionAsset>>()
            .add(AdoptionAsset::new(a.clone()));
        (app, handle)
    };
    let (mut server, handle) = side();
    let (mut client, _) = side();
    server.connect_client(&mut client);
    let e = server
        .world_mut()
        .spawn((Container::new(handle), ContainerAccess::public(None)))
        .id();
    server.update();
    for (item, n) in fill {
        server
            .world_mut()
            .write_message(ContainerRequest::from(Deliver::new(e, item.as_str(), *n)));
    }
    for _ in 0..3 {
        server.update();
        server.exchange_with_client(&mut client);
        client.update();
    }
    (server, client, e)
}

/// The bytes the server sends its client in the tick after one `item` was
/// delivered to `container` (one slot changes), averaged over `rounds`
/// ticks.
#[cfg(feature = "replicon")]
pub fn bytes_per_change(
    server: &mut App,
    client: &mut App,
    container: Entity,
    item: &str,
    rounds: usize,
) -> f64 {
    use bevy_replicon::prelude::*;
    use bevy_replicon::test_app::ServerTestAppExt;
    let mut total = 0usize;
    for _ in 0..rounds {
        server
            .world_mut()
            .write_message(ContainerRequest::from(Deliver::new(container, item, 1)));
        server.update();
        total += server
            .world()
            .resource::<ServerMessages>()
            .iter_sent()
            .map(|(_, _, bytes)| bytes.len())
            .sum::<usize>();
        server.exchange_with_client(client);
        client.update();
    }
    total as f64 / rounds as f64
}
