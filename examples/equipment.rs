//! An equipment screen: each slot takes its own kinds of item (head, body,
//! two hands), dragging from the bag equips, a drop onto a worn item swaps
//! the two, and a sword dropped on the body is refused with the rule
//! (a swap the rules forbid is refused `occupied`).
//!
//! ```text
//! cargo run --example equipment
//! ```
//!
//! The equipment is `assets/examples/equipment.adoption.json` (type
//! restriction `by-slot`); which slot takes what is the game's
//! [`ContainerSlotRules`], as its design notes list them. The bag is the
//! seed backpack.

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_container::adoption::{self, Format};
use bevy_container::contents::TransferRequest;
use bevy_container::plugin::*;

/// The equipment's slots, in order, and what each takes.
const SLOTS: [(&str, &[&str]); 4] = [
    ("head", &["helmet", "hood"]),
    ("body", &["armour"]),
    ("left hand", &["sword", "shield"]),
    ("right hand", &["sword", "shield"]),
];

fn main() {
    for line in run() {
        println!("{line}");
    }
}

/// Equips and swaps, and returns what happened, line by line.
pub fn run() -> Vec<String> {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        ContainerPlugin::default(),
    ));
    let read = |text: &[u8]| {
        adoption::read(text, Format::Json, Default::default()).expect("a valid adoption")
    };
    let equipment_rules = read(include_bytes!("../assets/examples/equipment.adoption.json"));
    let bag_rules = read(include_bytes!("../assets/backpack.adoption.json"));
    let mut assets = app.world_mut().resource_mut::<Assets<AdoptionAsset>>();
    let (equipment_rules, bag_rules) = (
        assets.add(AdoptionAsset::new(equipment_rules)),
        assets.add(AdoptionAsset::new(bag_rules)),
    );
    let slot_rules = ContainerSlotRules(
        SLOTS
            .iter()
            .map(|(_, takes)| takes.iter().map(|t| t.to_string()).collect())
            .collect(),
    );
    let worn = app
        .world_mut()
        .spawn((Container::new(equipment_rules), slot_rules))
        .id();
    let bag = app.world_mut().spawn(Container::new(bag_rules)).id();
    app.update();
    for item in ["helmet", "hood", "sword", "shield", "armour"] {
        app.world_mut()
            .write_message(ContainerRequest::from(Deliver::new(bag, item, 1)));
    }
    app.update();
    let mut lines = vec![show(&app, worn, bag)];
    // drags: (what, from the bag's slot or the equipment's, to which slot)
    let drags = [
        ("put the helmet on", bag, 0, worn, 0),
        ("wear the sword on the body", bag, 2, worn, 1),
        ("take the sword in the left hand", bag, 2, worn, 2),
        ("take the shield in the right hand", bag, 3, worn, 3),
        ("put the hood on over the helmet", bag, 1, worn, 0),
        ("swap hands", worn, 2, worn, 3),
        (
            "wear the armour on the hand holding the shield",
            bag,
            4,
            worn,
            2,
        ),
        ("wear the armour", bag, 4, worn, 1),
    ];
    for (what, from, from_slot, to, to_slot) in drags {
        let request = TransferRequest::from_slot(from_slot, 1).to_slot(to_slot);
        let moved = app
            .world_mut()
            .run_system_once(move |mut c: Containers| c.transfer(from, to, &request))
            .expect("the drag runs");
        let said = match moved {
            Ok(t) => match (t.outcome.refused, &t.outcome.swapped) {
                (Some(reason), _) => format!("refused ({reason})"),
                (None, Some(s)) => format!("done, the {} came back", s.item),
                (None, None) => "done".to_string(),
            },
            Err(why) => format!("not answered: {why}"),
        };
        lines.push(format!("{what}: {said}"));
        lines.push(show(&app, worn, bag));
    }
    lines
}

/// The equipment slot by slot, then the bag.
fn show(app: &App, worn: Entity, bag: Entity) -> String {
    let slots = |e: Entity| {
        app.world()
            .get::<ContainerContents>(e)
            .expect("a container")
            .slots()
            .to_vec()
    };
    let on: Vec<String> = SLOTS
        .iter()
        .zip(slots(worn))
        .map(|((name, _), s)| {
            let item = s.map_or("-".to_string(), |(item, _)| item.to_string());
            format!("{name}: {item}")
        })
        .collect();
    let carried: Vec<String> = slots(bag)
        .into_iter()
        .flatten()
        .map(|(item, _)| item.to_string())
        .collect();
    format!("  worn [{}]; bag [{}]", on.join(", "), carried.join(", "))
}
