//! A shop: buying with coins, all or nothing. The player pays from the
//! coins in their bag and the goods come from the shop's stock; a purchase
//! the bag cannot pay for or hold is refused before anything moves, so a
//! refused purchase changes nothing.
//!
//! ```text
//! cargo run --example shop
//! ```
//!
//! The rules are in `assets/examples/shop.adoption.json` (4 slots, coins
//! stack to 50, potions to 5, a rope takes a slot, all or nothing).

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_container::adoption::{self, Format};
use bevy_container::contents::TransferRequest;
use bevy_container::plugin::*;

/// What the shop sells, and for how many coins apiece.
const PRICES: [(&str, u32); 2] = [("potion", 3), ("rope", 10)];

fn main() {
    for line in run() {
        println!("{line}");
    }
}

/// Plays the shop's afternoon and returns what happened, line by line.
pub fn run() -> Vec<String> {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
    ));
    let text = include_bytes!("../assets/examples/shop.adoption.json");
    let rules = adoption::read(text, Format::Json, Default::default())
        .expect("the shop's adoption is valid");
    let handle = app
        .world_mut()
        .resource_mut::<Assets<AdoptionAsset>>()
        .add(AdoptionAsset::new(rules));
    let shop = app.world_mut().spawn(Container::new(handle.clone())).id();
    let bag = app.world_mut().spawn(Container::new(handle)).id();
    app.update(); // the rules attach
    let mut lines = Vec::new();
    // the shop's stock and the player's purse, delivered as any game would
    for (to, item, n) in [(shop, "potion", 10), (shop, "rope", 1), (bag, "coin", 60)] {
        app.world_mut()
            .write_message(ContainerRequest::from(Deliver::new(to, item, n)));
    }
    app.update();
    lines.push(format!(
        "shop: {}; bag: {}",
        list(&app, shop),
        list(&app, bag)
    ));
    let day = [
        ("potion", 2),
        ("rope", 1),
        ("potion", 8),
        ("potion", 3),
        ("rope", 1),
        ("potion", 20),
    ];
    for (item, n) in day {
        let answer = app
            .world_mut()
            .run_system_once(move |mut c: Containers| buy(&mut c, shop, bag, item, n))
            .expect("the purchase runs");
        lines.push(format!("buy {n} {item}: {answer}"));
        lines.push(format!(
            "  shop: {}; bag: {}",
            list(&app, shop),
            list(&app, bag)
        ));
    }
    lines
}

/// Buys `n` of `item` from `shop` into `bag`, paying with the bag's coins.
/// Everything is checked first (the coins, the stock, the shop's till and
/// the bag's room once the coins are gone); only then do the coins and the
/// goods move, as two transfers. Returns what happened, in words.
fn buy(c: &mut Containers, shop: Entity, bag: Entity, item: &str, n: u32) -> String {
    let Some(price) = PRICES.iter().find(|(i, _)| *i == item).map(|(_, p)| p * n) else {
        return format!("refused: the shop does not sell {item}");
    };
    let (Some(purse), Some(stock)) = (c.contents(bag), c.contents(shop)) else {
        return "refused: the shop is not open yet".into();
    };
    if purse.count("coin") < u64::from(price) {
        return format!(
            "refused: it costs {price} coins and the bag has {}",
            purse.count("coin")
        );
    }
    if stock.count(item) < u64::from(n) {
        return format!("refused: the shop has {} {item}", stock.count(item));
    }
    if stock.would_accept("coin", price, None) != Ok(price) {
        return "refused: the shop's till is full".into();
    }
    // the bag once paid: what it would hold then decides
    let mut paid = purse.clone();
    paid.take("coin", price);
    if paid.would_accept(item, n, None) != Ok(n) {
        return format!("refused: the bag has no room for {n} {item}");
    }
    let coins = c.transfer(bag, shop, &TransferRequest::item("coin", price));
    let goods = c.transfer(shop, bag, &TransferRequest::item(item, n));
    match (coins, goods) {
        (Ok(p), Ok(g)) if p.outcome.moved == price && g.outcome.moved == n => {
            format!("bought for {price} coins")
        }
        // checked above, so never: but say so rather than hide it
        (p, g) => format!("went wrong: paid {p:?}, got {g:?}"),
    }
}

/// A container's contents as `coin 14, potion 2` (slot order, empty slots
/// left out).
fn list(app: &App, container: Entity) -> String {
    let held = app
        .world()
        .get::<ContainerContents>(container)
        .expect("a container");
    let parts: Vec<String> = held
        .slots()
        .iter()
        .flatten()
        .map(|(item, n)| format!("{item} {n}"))
        .collect();
    if parts.is_empty() {
        "empty".into()
    } else {
        parts.join(", ")
    }
}
