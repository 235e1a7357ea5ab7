//! What the fuzz targets (`fuzz/`) found, each input kept in `tests/fuzz/`
//! and checked by plain `cargo test`. A finding in the crate gets its
//! input here with a test named after what went wrong; so does a finding
//! that showed a promise of the crate to be narrower than a target assumed.

use std::sync::Arc;

use bevy_container::adoption::{self, Format, Tuning};
use bevy_container::contents::Contents;
use bevy_container::rules::Rules;
use bevy_container::save::{AdoptionId, SavedContents};

fn input(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fuzz/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Found by the `save` target after 5.7 million runs (out of memory): a
/// save whose one stack holds 79,316,891 letters, under the seed's stack
/// limit of 1 for letters, made the load split it into 79 million
/// one-letter pieces before finding they could not fit (over 2 GB). A
/// reshape that would need more pieces than any container has slots
/// (1,048,576) is now refused whole, counted before any piece is made.
#[test]
fn save_with_millions_over_the_stack_limit_is_refused_without_splitting() {
    let data = input("save-79-million-letters.ron.bin");
    // the fuzz input's first byte chose RON
    let saved = SavedContents::read(&data[1..], Format::Ron).expect("the save reads");
    assert_eq!(saved.slots[1].as_ref().map(|s| s.amount), Some(79_316_891));
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/backpack.adoption.json"
    ))
    .expect("the seed");
    let a = adoption::read(&bytes, Format::Json, Default::default()).expect("reads");
    let rules = Arc::new(Rules::compile(&a, &Tuning::default()).expect("compiles"));
    let id = AdoptionId::of("backpack.adoption.json", &bytes);
    let Err(refused) = Contents::load(rules, None, &saved, &id) else {
        panic!("79 million letters in 12 slots are refused");
    };
    let short = refused.forced.refused.as_ref().expect("a shortfall");
    assert_eq!(
        short.slots,
        79_316_891 + 3 - 12,
        "every piece past the 12 slots: 79,316,891 letters and 3 axes, one to a slot"
    );
    assert_eq!(
        short.held_by.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        ["axe", "letter"],
        "the types over their stack limit"
    );
}

#[cfg(feature = "scene")]
mod scene {
    use std::collections::BTreeMap;

    use bevy::prelude::*;
    use bevy_container::plugin::scene::{load_containers, save_containers};
    use bevy_container::plugin::{ContainerContents, ContainerPlugin, LoosePickup};

    fn app() -> App {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            AssetPlugin {
                file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/assets").into(),
                ..default()
            },
            ContainerPlugin::default(),
        ));
        app
    }

    /// What a world holds, whatever its entities are numbered: each
    /// container's saved state and each pickup with its place.
    fn held(world: &mut World) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for (c, t) in world
            .query::<(&ContainerContents, &Transform)>()
            .iter(world)
        {
            let key = format!("{:?} at {:?}", c.state(), t.translation);
            *out.entry(key).or_default() += 1;
        }
        for (p, t) in world.query::<(&LoosePickup, &Transform)>().iter(world) {
            let key = format!("{p:?} at {:?}", t.translation);
            *out.entry(key).or_default() += 1;
        }
        out
    }

    /// Found by the `scene` target (its first run, on the seed corpus): a
    /// saved world loaded into a fresh app and saved again lists the same
    /// entities, but under the new world's numbers and in their order, so the
    /// two texts differ. What is promised is the same entities, which this
    /// checks over three round trips.
    #[test]
    fn scene_round_trip_keeps_the_entities_not_their_numbers() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fuzz/scene-entities-renumbered.ron"
        ))
        .expect("the input is kept");
        let mut first = app();
        load_containers(first.world_mut(), &text).expect("the scene loads");
        let held_first = held(first.world_mut());
        assert_eq!(
            held_first.values().sum::<usize>(),
            2,
            "a backpack and a pickup"
        );
        let mut saved = save_containers(first.world_mut()).expect("saves");
        for round in 1..=3 {
            let mut next = app();
            load_containers(next.world_mut(), &saved).expect("a saved world loads");
            assert_eq!(held(next.world_mut()), held_first, "round {round}");
            saved = save_containers(next.world_mut()).expect("saves");
        }
    }
}
