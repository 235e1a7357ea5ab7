//! A card deck with a point budget: no slots, each card costs points
//! (exact decimals: ten sparks of half a point are five points, never
//! 4.999), a card that would pass the budget is refused whole, only the
//! listed cards may enter, and when the budget shrinks the cards leave in
//! the order the designer chose.
//!
//! ```text
//! cargo run --example deck
//! ```
//!
//! The deck is `assets/examples/deck.adoption.json`: a 20-point budget,
//! all or nothing, only fireballs (4), shields (3) and sparks (0.5).

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_container::adoption::{self, Format};
use bevy_container::decimal::Decimal;
use bevy_container::plugin::*;

fn main() {
    for line in run() {
        println!("{line}");
    }
}

/// Builds a deck, plays from it, shrinks its budget, and returns what
/// happened, line by line.
pub fn run() -> Vec<String> {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
    ));
    let text = include_bytes!("../assets/examples/deck.adoption.json");
    let rules = adoption::read(text, Format::Json, Default::default())
        .expect("the deck's adoption is valid");
    let handle = app
        .world_mut()
        .resource_mut::<Assets<AdoptionAsset>>()
        .add(AdoptionAsset::new(rules));
    let deck = app.world_mut().spawn(Container::new(handle)).id();
    app.update();
    let mut lines = Vec::new();
    for (card, n) in [
        ("fireball", 2),
        ("shield", 2),
        ("spark", 10),
        ("dragon", 1),
        ("fireball", 1),
    ] {
        let added = app
            .world_mut()
            .run_system_once(move |mut c: Containers| c.deliver(deck, card, n, None))
            .expect("runs");
        let said = match added {
            Ok(d) => d.outcome.to_string(),
            Err(why) => format!("not answered: {why}"),
        };
        lines.push(format!("add {n} {card}: {said}; {}", show(&app, deck)));
    }
    // play two cards of a kind from the deck
    let played = app
        .world_mut()
        .run_system_once(move |mut c: Containers| c.take(deck, "spark", 4, None))
        .expect("runs");
    if let Ok(t) = played {
        lines.push(format!("play: {}; {}", t.outcome, show(&app, deck)));
    }
    // the deck's budget shrinks to 10 points: cards leave by the rules
    let shrunk = app
        .world_mut()
        .run_system_once(move |mut c: Containers| {
            c.resize(deck, None, Some(Decimal::from_units(10)))
        })
        .expect("runs");
    if let Ok(f) = shrunk {
        lines.push(format!("budget 10: {}; {}", f.outcome, show(&app, deck)));
    }
    lines
}

/// The deck's cards and the points they use.
fn show(app: &App, deck: Entity) -> String {
    let held = app
        .world()
        .get::<ContainerContents>(deck)
        .expect("a container");
    let cards: Vec<String> = held
        .slots()
        .iter()
        .flatten()
        .map(|(card, n)| format!("{card} {n}"))
        .collect();
    let (used, budget) = held.engine().map_or((Decimal::ZERO, Decimal::ZERO), |e| {
        (e.size_used(), e.limits().size_budget)
    });
    format!("deck [{}], {used} of {budget} points", cards.join(", "))
}
