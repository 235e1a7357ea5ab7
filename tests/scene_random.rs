//! Random worlds through a scene save (issue 17, randomized). For each of
//! twenty fixed seeds (SplitMix64, so a failure reproduces), a world of three
//! to five containers of different adoptions (the seed backpack, an
//! oldest-first chest, a slotless size-budget deck, a by-slot armory, a
//! newest-first stash that sends its leftovers to its store) is built in an
//! app: random `OverflowStore` links (loops allowed, never a container to
//! itself), a torn strap (`Resize` to fewer slots than the adoption), random
//! deliveries and takes, one delivery far past a container's room, and a
//! loose pickup placed by hand. It is saved with `scene::save_containers`,
//! loaded with `scene::load_containers` into a fresh app holding the same
//! adoptions under the same fixed handles, and compared:
//!
//! - every container: its full engine state as a save sees it
//!   (`ContentsState::saved`, a `SavedContents`: the stacks with their
//!   `began` and `last-received` counters, the container's draw-order
//!   `counter`, the capacity in force and whether it is the container's own),
//!   its mirror, capacity text, limits, size used and slot rules;
//! - every store link and store's list of sources, after mapping entities;
//! - the loose pickups: the multiset of (item, amount), and each saved
//!   pickup as itself in the loaded world.
//!
//! Then fifty random requests (deliveries, pickups, takes, transfers, moves,
//! sorts, resizes, an owner gone, a take from an entity that is no
//! container), one to three a frame, go to both worlds with their entities
//! mapped. Every outcome event is observed in order; with every entity named
//! by its role (container 2, pickup 0, the bystander, or the n-th new entity
//! in order of appearance), the outcomes of each frame must be identical, and
//! the worlds must stay equal after every frame.
//!
//! Planted bugs make it fail:
//!
//! - The draw-order counter dropped from the save (`Contents::save` writing
//!   `counter: 0`, or the load not restoring it): the assertion "world …,
//!   container … loaded: the loaded world's contents differ" fails, since
//!   the loaded container's `SavedContents` has another `counter`. Any other
//!   field the save or the load ignores (`resized`, the slot count in force,
//!   a stack's `began` or `last-received`) fails the same assertion. Were the
//!   views not compared, "… is answered alike in the loaded world" would
//!   catch it: an oldest-first or newest-first take draws from another slot.
//! - `OverflowStore` not remapped on load (its entity mapping dropped): the
//!   assertion "world … loaded: the store links differ" fails, since the
//!   loaded container names the saved world's entity (no container of the
//!   loaded world) instead of the loaded store.
#![cfg(feature = "scene")]

mod common;

use std::collections::{BTreeMap, HashMap};

use bevy::asset::uuid::Uuid;
use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy_container::adoption::Adoption;
use bevy_container::contents::{Cause, ItemType, Limits, SlotRules, TransferRequest};
use bevy_container::decimal::Decimal;
use bevy_container::plugin::scene;
use bevy_container::plugin::*;
use bevy_container::save::SavedContents;
use common::{Rng, adoption_json, kinds, read, send, slot_answers};
use serde_json::json;

/// How many random worlds.
const WORLDS: u64 = 20;
/// How many random requests go to both worlds after the load.
const REQUESTS: usize = 50;
/// Every item type the requests name (each container lists some of them).
const ITEMS: [&str; 10] = [
    "berries", "axe", "letter", "potion", "arrow", "fireball", "shield", "token", "helmet", "gem",
];

/// The adoptions a world's containers are drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Bag,
    Chest,
    Deck,
    Armory,
    Stash,
}

const KINDS: [Kind; 5] = [
    Kind::Bag,
    Kind::Chest,
    Kind::Deck,
    Kind::Armory,
    Kind::Stash,
];

impl Kind {
    /// Its adoption's fixed handle, the same in every app.
    fn handle(self) -> Handle<AdoptionAsset> {
        Handle::from(Uuid::from_u128(0x5CE4_E7A0_0001 + self as u128))
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Bag => "bag",
            Kind::Chest => "chest",
            Kind::Deck => "deck",
            Kind::Armory => "armory",
            Kind::Stash => "stash",
        }
    }

    /// The adoption's slot count (0: slotless).
    fn slots(self) -> u32 {
        match self {
            Kind::Bag => 12,
            Kind::Chest => 6,
            Kind::Deck => 0,
            Kind::Armory => 3,
            Kind::Stash => 4,
        }
    }

    /// The types its adoption lists.
    fn items(self) -> &'static [&'static str] {
        match self {
            Kind::Bag => &["berries", "axe", "letter"],
            Kind::Chest => &["potion", "arrow"],
            Kind::Deck => &["fireball", "shield", "token"],
            Kind::Armory => &["helmet", "potion"],
            Kind::Stash => &["berries", "axe", "gem"],
        }
    }

    fn adoption(self) -> Adoption {
        match self {
            Kind::Bag => common::seed(),
            Kind::Chest => kinds::oldest_first_chest(),
            Kind::Deck => kinds::point_deck(),
            Kind::Armory => kinds::armory(),
            Kind::Stash => stash(),
        }
    }
}

/// A small stash: its leftovers go to its store, its takes newest-first.
fn stash() -> Adoption {
    let mut answers = slot_answers("another-store");
    answers["draw-order"] = json!("newest-first");
    read(&adoption_json(
        answers,
        4,
        0.0,
        json!([
            {"id": "berries", "stack-limit": 20, "when-forced-out": "moved-to-another-store", "forced-out-order": 1},
            {"id": "axe", "stack-limit": 1, "when-forced-out": "destroyed", "forced-out-order": 2},
            {"id": "gem", "stack-limit": 3, "when-forced-out": "dropped-nearby", "forced-out-order": 3},
        ]),
    ))
}

/// The armory's slots: a helmet, a potion, either.
fn rack() -> ContainerSlotRules {
    ContainerSlotRules(vec![
        vec!["helmet".into()],
        vec!["potion".into()],
        vec!["potion".into(), "helmet".into()],
    ])
}

/// One outcome event of any kind, as an observer saw it. Most fields are
/// read only through `Debug` (the two worlds' outcomes compare as text).
#[allow(dead_code)]
#[derive(Debug, Clone)]
enum Answer {
    Delivered(ItemsDelivered),
    Taken(ItemsTaken),
    Transferred(ItemsTransferred),
    ForcedOut(ItemsForcedOut),
    Rearranged(ContainerRearranged),
    Unanswered(RequestUnanswered),
}

/// Every outcome event, whatever its kind, in the order observed.
#[derive(Resource, Default)]
struct Answers(Vec<Answer>);

/// One observer per outcome event, all pushing into [`Answers`], so the
/// order across kinds is kept (as in `plugin_ledger`).
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
        .add_observer(|e: On<RequestUnanswered>, mut a: ResMut<Answers>| {
            a.0.push(Answer::Unanswered(e.event().clone()));
        });
}

/// Where an answer says items that left or never entered ended up.
fn settled(a: &Answer) -> &[Settled] {
    match a {
        Answer::Delivered(d) => d.settled.as_slice(),
        Answer::ForcedOut(f) => f.settled.as_slice(),
        _ => &[],
    }
}

/// A headless app (plugin, outcome observers) with every kind's adoption
/// inserted under its fixed handle.
fn game() -> App {
    let mut app = common::app();
    listen(&mut app);
    {
        let mut assets = app.world_mut().resource_mut::<Assets<AdoptionAsset>>();
        for k in KINDS {
            assets
                .insert(k.handle().id(), AdoptionAsset::new(k.adoption()))
                .expect("an adoption goes under its fixed handle");
        }
    }
    app
}

fn contents(app: &App, e: Entity) -> &ContainerContents {
    app.world()
        .get::<ContainerContents>(e)
        .unwrap_or_else(|| panic!("{e} is a container"))
}

/// Spawns three to five containers of different kinds at random places,
/// and links about half of them to a random other one's store (at least
/// one link; loops allowed).
fn spawn_containers(app: &mut App, rng: &mut Rng) -> (Vec<Entity>, Vec<Kind>) {
    let mut pool = KINDS.to_vec();
    let n = 3 + rng.below(3);
    let mut kinds = Vec::with_capacity(n);
    for _ in 0..n {
        kinds.push(pool.swap_remove(rng.below(pool.len())));
    }
    let mut ids = Vec::with_capacity(n);
    for &k in &kinds {
        let at = Vec3::new(rng.below(200) as f32, rng.below(200) as f32, 0.0);
        let mut e = app.world_mut().spawn((
            Name::new(k.name()),
            Container::new(k.handle()),
            Transform::from_translation(at),
        ));
        if k == Kind::Armory {
            e.insert(rack());
        }
        ids.push(e.id());
    }
    let mut linked = false;
    for i in 0..n {
        if rng.below(2) == 0 {
            let j = (i + 1 + rng.below(n - 1)) % n;
            app.world_mut()
                .entity_mut(ids[i])
                .insert(OverflowStore(ids[j]));
            linked = true;
        }
    }
    if !linked {
        app.world_mut()
            .entity_mut(ids[0])
            .insert(OverflowStore(ids[1]));
    }
    (ids, kinds)
}

/// Tears the strap of a random container with slots, while it is empty (so
/// nothing is refused): fewer slots than its adoption. Returns the
/// container's index and its new slot count.
fn tear_a_strap(app: &mut App, ids: &[Entity], kinds: &[Kind], rng: &mut Rng) -> (usize, u32) {
    let slotted: Vec<usize> = (0..ids.len()).filter(|&i| kinds[i].slots() > 0).collect();
    let i = slotted[rng.below(slotted.len())];
    let base = kinds[i].slots();
    let slots = base - 1 - rng.below((base / 2) as usize) as u32;
    send(
        app,
        Resize {
            container: ids[i],
            slot_count: Some(slots),
            size_budget: None,
        },
    );
    (i, slots)
}

/// Random deliveries (mostly of a type the container lists) and takes, one
/// to four a frame; then a delivery far past one container's room (its
/// leftover lies on the ground, goes to its store, or is refused) and a take
/// from it.
fn fill(app: &mut App, ids: &[Entity], kinds: &[Kind], rng: &mut Rng) {
    let requests = 15 + rng.below(15);
    let mut written = 0;
    while written < requests {
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(ids.len());
            let own = kinds[i].items();
            let item = if rng.below(4) > 0 {
                own[rng.below(own.len())]
            } else {
                ITEMS[rng.below(ITEMS.len())]
            };
            let r: ContainerRequest = if rng.below(5) == 0 {
                Take::new(ids[i], item, 1 + rng.below(10) as u32).into()
            } else {
                Deliver::new(ids[i], item, 1 + rng.below(60) as u32).into()
            };
            app.world_mut().write_message(r);
            written += 1;
        }
        app.update();
    }
    let i = rng.below(ids.len());
    let item = kinds[i].items()[0];
    send(app, Deliver::new(ids[i], item, 500));
    send(app, Take::new(ids[i], item, 1 + rng.below(100) as u32));
}

/// A world built from one seed, settled.
struct Built {
    app: App,
    /// The containers, in spawn order.
    ids: Vec<Entity>,
    kinds: Vec<Kind>,
    /// Whether building it left items in a loose pickup through a delivery
    /// or a forced removal (not only the pickup placed by hand).
    dropped: bool,
}

fn build_world(rng: &mut Rng, seed: u64) -> Built {
    let mut app = game();
    let (ids, kinds) = spawn_containers(&mut app, rng);
    app.update();
    for (i, &c) in ids.iter().enumerate() {
        assert!(
            contents(&app, c).is_ready(),
            "world {seed:#x}: container {i} ({}) is ready",
            kinds[i].name()
        );
    }
    let torn = tear_a_strap(&mut app, &ids, &kinds, rng);
    fill(&mut app, &ids, &kinds, rng);
    let at = Vec3::new(rng.below(200) as f32, rng.below(200) as f32, 0.0);
    let pickup = LoosePickup {
        item: ITEMS[rng.below(ITEMS.len())].into(),
        props: Default::default(),
        amount: 1 + rng.below(9) as u32,
    };
    app.world_mut()
        .spawn((pickup, Transform::from_translation(at)));
    app.update();
    app.update();
    check_built(&mut app, &ids, &kinds, torn, seed);
    let dropped = app.world().resource::<Answers>().0.iter().any(|a| {
        settled(a)
            .iter()
            .any(|s| matches!(s, Settled::Pickup { .. }))
    });
    Built {
        app,
        ids,
        kinds,
        dropped,
    }
}

/// The world is what the test means it to be: the torn strap in force and
/// saved as the container's own capacity, items on the ground.
fn check_built(app: &mut App, ids: &[Entity], kinds: &[Kind], torn: (usize, u32), seed: u64) {
    let (i, slots) = torn;
    let c = contents(app, ids[i]);
    let limits = c
        .engine()
        .expect("a ready container has its engine")
        .limits();
    assert_eq!(
        limits.slot_count,
        slots,
        "world {seed:#x}: the torn strap of container {i} ({}) is in force",
        kinds[i].name()
    );
    assert!(
        c.state().saved().is_some_and(|s| s.resized),
        "world {seed:#x}: container {i} ({}) saves its torn strap as its own capacity",
        kinds[i].name()
    );
    assert!(
        !ground(app).is_empty(),
        "world {seed:#x}: items lie on the ground"
    );
}

/// Everything of a container a save must keep.
#[derive(Debug, PartialEq)]
struct View {
    ready: bool,
    mirror: Vec<Option<(String, u32)>>,
    capacity: String,
    limits: Option<Limits>,
    size_used: Option<Decimal>,
    slot_rules: Option<SlotRules>,
    /// The full engine state, draw-order counters included.
    saved: Option<SavedContents>,
}

fn view(app: &App, e: Entity) -> View {
    let c = contents(app, e);
    let engine = c.engine();
    View {
        ready: c.is_ready(),
        mirror: c
            .slots()
            .iter()
            .map(|s| s.as_ref().map(|(k, n)| (k.to_string(), *n)))
            .collect(),
        capacity: c.capacity().to_string(),
        limits: engine.map(|en| en.limits()),
        size_used: engine.map(|en| en.size_used()),
        slot_rules: engine.and_then(|en| en.slot_rules().cloned()),
        saved: c.state().saved(),
    }
}

/// Per container (in the order of `ids`): the store it names and the
/// containers that name it, each by its index in `ids`.
fn links(app: &App, ids: &[Entity]) -> Vec<(Option<String>, Vec<String>)> {
    let role = |e: Entity| match ids.iter().position(|&c| c == e) {
        Some(i) => format!("container {i}"),
        None => format!("{e}, no container of this world"),
    };
    let w = app.world();
    ids.iter()
        .map(|&c| {
            let store = w.get::<OverflowStore>(c).map(|s| role(s.0));
            let mut sources: Vec<String> = w
                .get::<OverflowSources>(c)
                .map(|s| s.iter().map(&role).collect())
                .unwrap_or_default();
            sources.sort();
            (store, sources)
        })
        .collect()
}

/// The loose pickups as a sorted multiset of (item, amount).
fn ground(app: &mut App) -> Vec<(String, u32)> {
    let mut v: Vec<_> = common::pickups(app)
        .into_iter()
        .map(|(_, p, _)| (p.item, p.amount))
        .collect();
    v.sort();
    v
}

fn all_ready(app: &mut App) -> bool {
    let mut q = app.world_mut().query::<&ContainerContents>();
    q.iter(app.world()).all(ContainerContents::is_ready)
}

/// A fresh app with every adoption, the saved world loaded, run until every
/// container is ready (at most five frames).
fn reload(text: &str, seed: u64) -> (App, EntityHashMap<Entity>) {
    let mut app = game();
    let map = scene::load_containers(app.world_mut(), text)
        .unwrap_or_else(|e| panic!("world {seed:#x}: the saved world loads: {e}"));
    for _ in 0..5 {
        app.update();
        if all_ready(&mut app) {
            break;
        }
    }
    (app, map)
}

fn mapped(map: &EntityHashMap<Entity>, e: Entity, seed: u64) -> Entity {
    *map.get(&e)
        .unwrap_or_else(|| panic!("world {seed:#x}: {e} of the saved world was loaded"))
}

/// Names for the entities in an outcome's text: each known entity by its
/// role, any other (a pickup spawned since) by its order of first
/// appearance, so the two worlds' outcomes compare as text.
struct Labels {
    names: HashMap<String, String>,
    fresh: usize,
}

impl Labels {
    fn new(containers: &[Entity], pickups: &[Entity], bystander: Entity) -> Labels {
        let mut names = HashMap::new();
        for (i, e) in containers.iter().enumerate() {
            names.insert(e.to_string(), format!("container{i}"));
        }
        for (k, e) in pickups.iter().enumerate() {
            names.insert(e.to_string(), format!("pickup{k}"));
        }
        names.insert(bystander.to_string(), "bystander".to_string());
        Labels { names, fresh: 0 }
    }

    /// `text` (a `Debug` rendering) with every entity (`{index}v{generation}`,
    /// a whole alphanumeric token) replaced by its name.
    fn relabel(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut token = String::new();
        for ch in text.chars() {
            if ch.is_ascii_alphanumeric() {
                token.push(ch);
            } else {
                self.flush(&mut token, &mut out);
                out.push(ch);
            }
        }
        self.flush(&mut token, &mut out);
        out
    }

    fn flush(&mut self, token: &mut String, out: &mut String) {
        if is_entity(token) {
            if !self.names.contains_key(token.as_str()) {
                self.fresh += 1;
                let name = format!("new-entity{}", self.fresh);
                self.names.insert(token.clone(), name);
            }
            out.push_str(&self.names[token.as_str()]);
        } else {
            out.push_str(token);
        }
        token.clear();
    }
}

/// Whether `token` is how an `Entity` displays: digits, `v`, digits.
fn is_entity(token: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    token
        .split_once('v')
        .is_some_and(|(index, generation)| digits(index) && digits(generation))
}

/// The saved world and the loaded one, side by side.
struct Twins {
    seed: u64,
    a: App,
    b: App,
    kinds: Vec<Kind>,
    /// The containers in `a`, in spawn order.
    ids: Vec<Entity>,
    /// The same containers in `b`.
    ids_b: Vec<Entity>,
    /// The pickups of `a` when it was saved.
    pickups: Vec<Entity>,
    /// An entity of `a` that is no container.
    bystander: Entity,
    /// `a`'s containers, saved pickups and bystander to `b`'s.
    to_b: EntityHashMap<Entity>,
    labels_a: Labels,
    labels_b: Labels,
}

/// Saves the built world as scene text and loads it into a fresh app.
fn save_and_load(built: Built, seed: u64) -> Twins {
    let Built {
        app: mut a,
        ids,
        kinds,
        ..
    } = built;
    let pickups: Vec<Entity> = common::pickups(&mut a)
        .into_iter()
        .map(|(e, _, _)| e)
        .collect();
    let text = scene::save_containers(a.world_mut())
        .unwrap_or_else(|e| panic!("world {seed:#x}: the world saves: {e}"));
    let (mut b, mut to_b) = reload(&text, seed);
    assert_eq!(
        to_b.len(),
        ids.len() + pickups.len(),
        "world {seed:#x}: the save holds every container and pickup, and nothing else"
    );
    let ids_b: Vec<Entity> = ids.iter().map(|&e| mapped(&to_b, e, seed)).collect();
    let pickups_b: Vec<Entity> = pickups.iter().map(|&e| mapped(&to_b, e, seed)).collect();
    let bystander = a.world_mut().spawn_empty().id();
    let bystander_b = b.world_mut().spawn_empty().id();
    to_b.insert(bystander, bystander_b);
    let labels_a = Labels::new(&ids, &pickups, bystander);
    let labels_b = Labels::new(&ids_b, &pickups_b, bystander_b);
    Twins {
        seed,
        a,
        b,
        kinds,
        ids,
        ids_b,
        pickups,
        bystander,
        to_b,
        labels_a,
        labels_b,
    }
}

/// Asserts that the two worlds hold the same: every container's view, the
/// store links, the loose pickups.
fn assert_same(t: &mut Twins, when: &str) {
    let seed = t.seed;
    for (i, (&ea, &eb)) in t.ids.iter().zip(&t.ids_b).enumerate() {
        assert_eq!(
            view(&t.b, eb),
            view(&t.a, ea),
            "world {seed:#x}, container {i} ({}) {when}: the loaded world's contents differ",
            t.kinds[i].name()
        );
    }
    assert_eq!(
        links(&t.b, &t.ids_b),
        links(&t.a, &t.ids),
        "world {seed:#x} {when}: the store links differ (per container: the store it names, the containers naming it)"
    );
    assert_eq!(
        ground(&mut t.b),
        ground(&mut t.a),
        "world {seed:#x} {when}: the loose pickups (item, amount) differ"
    );
}

/// The loaded world right after the load: every container ready, nothing
/// moved by the load, each saved pickup itself, everything equal.
fn check_loaded(t: &mut Twins) {
    let seed = t.seed;
    for (i, &c) in t.ids_b.iter().enumerate() {
        assert!(
            contents(&t.b, c).is_ready(),
            "world {seed:#x}: loaded container {i} ({}) is ready",
            t.kinds[i].name()
        );
    }
    for x in &t.b.world().resource::<Answers>().0 {
        let nothing_moved = matches!(x, Answer::ForcedOut(f)
            if f.outcome.cause == Cause::Loaded
                && f.outcome.portions.is_empty()
                && f.outcome.refused.is_none());
        assert!(
            nothing_moved,
            "world {seed:#x}: a load under the same adoptions moves nothing, but {x:?}"
        );
    }
    for (k, &p) in t.pickups.iter().enumerate() {
        let saved = t.a.world().get::<LoosePickup>(p);
        assert!(
            saved.is_some(),
            "world {seed:#x}: pickup {k} ({p}) was saved"
        );
        let loaded = t.b.world().get::<LoosePickup>(t.to_b[&p]);
        assert_eq!(
            loaded, saved,
            "world {seed:#x}: pickup {k} ({p}) loads as itself"
        );
    }
    assert_same(t, "loaded");
}

/// A random transfer from `from` to `to`: by slot and/or type, into a named
/// slot or by the target's fill order (as in `plugin_ledger`).
fn random_transfer(rng: &mut Rng, from: Entity, to: Entity) -> Transfer {
    let item = (rng.below(3) > 0).then(|| ItemType::from(ITEMS[rng.below(ITEMS.len())]));
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
            props: None,
            from_slot,
            to_slot,
            amount,
        },
    }
}

/// A random request over the containers `cs` of the saved world: mostly
/// deliveries, takes and transfers; moves, sorts, resizes, pickups of the
/// saved pickups (maybe gone since), now and then an owner gone or a take
/// from `bystander`, which is no container.
fn random_request(
    rng: &mut Rng,
    cs: &[Entity],
    pickups: &[Entity],
    bystander: Entity,
) -> ContainerRequest {
    let c = cs[rng.below(cs.len())];
    let item = ItemType::from(ITEMS[rng.below(ITEMS.len())]);
    match rng.below(20) {
        0..=5 => {
            let sender = match rng.below(6) {
                0 => Some(cs[rng.below(cs.len())]),
                1 => Some(bystander),
                _ => None,
            };
            let amount = rng.below(40) as u32;
            Deliver {
                container: c,
                item,
                props: Default::default(),
                amount,
                sender,
            }
            .into()
        }
        6..=8 => {
            let amount = rng.below(20) as u32;
            let slot = (rng.below(3) == 0).then(|| rng.below(12) as u32);
            Take {
                container: c,
                item,
                props: None,
                amount,
                slot,
            }
            .into()
        }
        9..=12 => {
            let to = if rng.below(5) == 0 {
                c
            } else {
                cs[rng.below(cs.len())]
            };
            random_transfer(rng, c, to).into()
        }
        13 | 14 => {
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
        15 => Sort {
            container: c,
            order: vec![item],
        }
        .into(),
        16 | 17 => {
            let slot_count = (rng.below(4) > 0).then(|| 1 + rng.below(12) as u32);
            let size_budget =
                (rng.below(2) == 0).then(|| Decimal::from_units(rng.below(40) as u64));
            Resize {
                container: c,
                slot_count,
                size_budget,
            }
            .into()
        }
        18 if !pickups.is_empty() => PickUp {
            container: c,
            pickup: pickups[rng.below(pickups.len())],
        }
        .into(),
        _ => {
            if rng.below(3) == 0 {
                EmptyForGoneOwner { container: c }.into()
            } else {
                Take::new(bystander, item, 1).into()
            }
        }
    }
}

/// `r` (a request to the saved world) with its entities mapped to the
/// loaded world's.
fn in_b(r: &ContainerRequest, to_b: &EntityHashMap<Entity>, seed: u64) -> ContainerRequest {
    let m = |e: Entity| mapped(to_b, e, seed);
    let mut r = r.clone();
    match &mut r {
        ContainerRequest::Deliver(d) => {
            d.container = m(d.container);
            d.sender = d.sender.map(m);
        }
        ContainerRequest::PickUp(p) => {
            p.container = m(p.container);
            p.pickup = m(p.pickup);
        }
        ContainerRequest::Take(x) => x.container = m(x.container),
        ContainerRequest::SetProps(x) => x.container = m(x.container),
        ContainerRequest::Transfer(x) => {
            x.from = m(x.from);
            x.to = m(x.to);
        }
        ContainerRequest::Move(x) => x.container = m(x.container),
        ContainerRequest::Sort(x) => x.container = m(x.container),
        ContainerRequest::Resize(x) => x.container = m(x.container),
        ContainerRequest::EmptyForGoneOwner(x) => x.container = m(x.container),
    }
    r
}

/// Writes `group` in one frame and returns the outcome events it caused, in
/// order, as text with the entities named by `labels`.
fn answer(app: &mut App, group: &[ContainerRequest], labels: &mut Labels) -> Vec<String> {
    let start = app.world().resource::<Answers>().0.len();
    for r in group {
        app.world_mut().write_message(r.clone());
    }
    app.update();
    app.world().resource::<Answers>().0[start..]
        .iter()
        .map(|x| labels.relabel(&format!("{x:?}")))
        .collect()
}

/// Sends [`REQUESTS`] random requests to both worlds, one to three a frame,
/// and asserts that each frame is answered alike and leaves the worlds
/// equal. Counts the outcomes by kind into `heard`; returns how many of the
/// saved world's outcomes delivered items to another container (a store).
fn answer_alike(t: &mut Twins, rng: &mut Rng, heard: &mut BTreeMap<String, usize>) -> usize {
    let seed = t.seed;
    let start = t.a.world().resource::<Answers>().0.len();
    let (mut written, mut frame) = (0, 0);
    while written < REQUESTS {
        let n = (1 + rng.below(3)).min(REQUESTS - written);
        let mut group = Vec::with_capacity(n);
        for _ in 0..n {
            group.push(random_request(rng, &t.ids, &t.pickups, t.bystander));
        }
        let group_b: Vec<ContainerRequest> = group.iter().map(|r| in_b(r, &t.to_b, seed)).collect();
        let got_a = answer(&mut t.a, &group, &mut t.labels_a);
        let got_b = answer(&mut t.b, &group_b, &mut t.labels_b);
        assert!(
            got_a.len() >= n,
            "world {seed:#x}, request frame {frame}: every request is answered: {group:?} got {got_a:#?}"
        );
        assert_eq!(
            got_b, got_a,
            "world {seed:#x}, request frame {frame}: {group:?} is answered alike in the loaded world (entities named by role)"
        );
        for s in &got_a {
            let kind = s.split('(').next().unwrap_or_default().to_string();
            *heard.entry(kind).or_default() += 1;
        }
        assert_same(t, &format!("after request frame {frame} ({group:?})"));
        written += n;
        frame += 1;
    }
    t.a.world().resource::<Answers>().0[start..]
        .iter()
        .filter(|a| {
            settled(a)
                .iter()
                .any(|s| matches!(s, Settled::Container { .. }))
        })
        .count()
}

#[test]
fn random_worlds_load_equal_and_answer_alike() {
    let mut heard: BTreeMap<String, usize> = BTreeMap::new();
    let (mut dropped, mut stored) = (0usize, 0usize);
    for w in 0..WORLDS {
        let seed = 0x5CE4_E7A0_0000 + w;
        let mut rng = Rng(seed);
        let built = build_world(&mut rng, seed);
        dropped += usize::from(built.dropped);
        let mut t = save_and_load(built, seed);
        check_loaded(&mut t);
        stored += answer_alike(&mut t, &mut rng, &mut heard);
        assert_same(&mut t, "after the requests");
    }
    assert!(
        dropped > 0,
        "some world's building left items on the ground through a delivery or a forced removal"
    );
    assert!(stored > 0, "store links carried items during the requests");
    for kind in [
        "Delivered",
        "Taken",
        "Transferred",
        "ForcedOut",
        "Rearranged",
        "Unanswered",
    ] {
        assert!(
            heard.get(kind).is_some_and(|n| *n > 0),
            "the requests were answered with every kind of outcome ({kind} missing): {heard:?}"
        );
    }
}
