//! A crafting bench: the ingredients are taken and the product delivered in
//! one frame. Requests written in one frame are answered in the order
//! written, so the potion lands in the slot the herbs just freed, in a
//! pouch that was full before the craft.
//!
//! ```text
//! cargo run --example crafting
//! ```
//!
//! The pouch is `assets/examples/pouch.adoption.json`: 3 slots, only herbs,
//! water and potions, first slot that fits.

use bevy::prelude::*;
use bevy_container::adoption::{self, Format};
use bevy_container::plugin::*;

/// One recipe: what it takes and what it makes.
struct Recipe {
    takes: &'static [(&'static str, u32)],
    makes: (&'static str, u32),
}

const HEALING_POTION: Recipe = Recipe {
    takes: &[("herb", 10), ("water", 1)],
    makes: ("potion", 1),
};

/// A craft asked for by the player, for the bench system to answer.
#[derive(Resource, Default)]
struct Craft(Option<Entity>);

/// What the crafts did, for printing.
#[derive(Resource, Default)]
struct Log(Vec<String>);

fn main() {
    for line in run() {
        println!("{line}");
    }
}

/// Fills a pouch, crafts twice (the second has too few herbs and is refused
/// before anything moves), and returns what happened, line by line.
pub fn run() -> Vec<String> {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
    ))
    .init_resource::<Craft>()
    .init_resource::<Log>()
    // the bench writes its requests before the plugin answers them
    .add_systems(Update, bench.before(ContainerSystems::Requests))
    .add_systems(Update, log_outcomes.after(ContainerSystems::Requests));
    let text = include_bytes!("../assets/examples/pouch.adoption.json");
    let rules = adoption::read(text, Format::Json, Default::default())
        .expect("the pouch's adoption is valid");
    let handle = app
        .world_mut()
        .resource_mut::<Assets<AdoptionAsset>>()
        .add(AdoptionAsset::new(rules));
    let pouch = app.world_mut().spawn(Container::new(handle)).id();
    app.update();
    for (item, n) in [("herb", 10), ("water", 2), ("herb", 5)] {
        app.world_mut()
            .write_message(ContainerRequest::from(Deliver::new(pouch, item, n)));
    }
    app.update();
    app.world_mut().resource_mut::<Log>().0.clear(); // the filling is not a craft
    let mut lines = vec![format!("pouch: {}", list(&app, pouch))];
    for _ in 0..2 {
        app.world_mut().resource_mut::<Craft>().0 = Some(pouch);
        app.update();
        lines.append(&mut app.world_mut().resource_mut::<Log>().0);
        lines.push(format!("pouch: {}", list(&app, pouch)));
    }
    lines
}

/// The crafting bench: when a craft is asked for and the pouch holds every
/// ingredient, it writes the takes and the delivery in one frame; else it
/// refuses and writes nothing.
fn bench(
    mut craft: ResMut<Craft>,
    pouches: Query<&ContainerContents>,
    mut requests: MessageWriter<ContainerRequest>,
    mut log: ResMut<Log>,
) {
    let Some(pouch) = craft.0.take() else {
        return;
    };
    let Ok(held) = pouches.get(pouch) else {
        return;
    };
    let recipe = &HEALING_POTION;
    if let Some((item, n)) = recipe
        .takes
        .iter()
        .find(|(item, n)| held.count(item) < u64::from(*n))
    {
        log.0.push(format!(
            "craft refused: it takes {n} {item} and the pouch has {}",
            held.count(item)
        ));
        return;
    }
    for (item, n) in recipe.takes {
        requests.write(Take::new(pouch, *item, *n).into());
    }
    let (item, n) = recipe.makes;
    requests.write(Deliver::new(pouch, item, n).into());
}

/// Tells each take and delivery, in the order the plugin answered them.
fn log_outcomes(
    mut taken: MessageReader<ItemsTaken>,
    mut delivered: MessageReader<ItemsDelivered>,
    mut log: ResMut<Log>,
) {
    for t in taken.read() {
        log.0.push(format!("  {}", t.outcome));
    }
    for d in delivered.read() {
        log.0.push(format!("  crafted {}", d.outcome));
    }
}

/// The pouch's slots as `herb 10, water 2, herb 5`.
fn list(app: &App, pouch: Entity) -> String {
    let held = app
        .world()
        .get::<ContainerContents>(pouch)
        .expect("a container");
    let parts: Vec<String> = held
        .slots()
        .iter()
        .map(|s| match s {
            Some((item, n)) => format!("{item} {n}"),
            None => "-".into(),
        })
        .collect();
    parts.join(", ")
}
