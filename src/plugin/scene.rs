//! Saving a world's containers the Bevy way (feature `scene`).
//!
//! Containers are part of the world's reflected state: a game that saves
//! its world with a `DynamicWorld` keeps every container's contents
//! ([`super::ContentsState`]), its store link ([`super::OverflowStore`],
//! remapped on load) and its loose pickups, with no code of its own. This
//! module is the ready-made version for a game without its own save
//! system: [`save_containers`] writes every container, store link and
//! loose pickup as RON text, and [`load_containers`] reads it into a world
//! (a fresh one, or the same game after a restart). Loaded containers get
//! their contents back once their adoption is loaded, under its rules as
//! [`super::Containers::load`] does.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_container::adoption::{self, Format};
//! use bevy_container::plugin::{scene, *};
//!
//! fn app(adoption: &AdoptionAsset, at: Handle<AdoptionAsset>) -> App {
//!     let mut app = App::new();
//!     app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()));
//!     app.world_mut().resource_mut::<Assets<AdoptionAsset>>().insert(at.id(), adoption.clone()).unwrap();
//!     app
//! }
//! let bytes = std::fs::read("assets/backpack.adoption.json").unwrap();
//! let backpack = AdoptionAsset::new(adoption::read(&bytes, Format::Json, Default::default()).unwrap());
//! // an adoption kept under a fixed id (a file loaded by path works the same)
//! let id: Handle<AdoptionAsset> = Handle::from(bevy::asset::uuid::Uuid::from_u128(7));
//!
//! let mut game = app(&backpack, id.clone());
//! let bag = game.world_mut().spawn(Container::new(id.clone())).id();
//! game.update();
//! game.world_mut().write_message(ContainerRequest::from(Deliver::new(bag, "berries", 25)));
//! game.update();
//! let text = scene::save_containers(game.world_mut()).unwrap();
//!
//! let mut restarted = app(&backpack, id);
//! let map = scene::load_containers(restarted.world_mut(), &text).unwrap();
//! restarted.update(); // the rules attach and the save loads
//! let contents = restarted.world().get::<ContainerContents>(map[&bag]).unwrap();
//! assert_eq!(contents.count("berries"), 25);
//! ```

use bevy::ecs::entity::EntityHashMap;
use bevy::prelude::*;
use bevy::world_serialization::serde::WorldDeserializer;
use bevy::world_serialization::{DynamicWorld, DynamicWorldBuilder};
use serde::de::DeserializeSeed;

use super::components::{
    Container, ContainerContents, ContainerSlotRules, DespawnPolicy, LoosePickup, OverflowSources,
    OverflowStore,
};

/// Why a world's containers did not save or load. Nothing is written to
/// the world when a load fails.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SceneError {
    /// The world could not be written as text.
    #[error("could not write the containers: {0}")]
    Write(String),
    /// The text is not a saved world, or a value in it is wrong; the
    /// message names the place (line and column, and the field).
    #[error("the saved containers do not read: {0}")]
    Read(String),
    /// The text read, but its entities could not be written to the world.
    #[error("the saved containers could not be put in the world: {0}")]
    Spawn(String),
}

/// Makes sure the types a container save holds are registered.
fn register(world: &mut World) {
    let registry = world.resource::<AppTypeRegistry>().clone();
    let mut r = registry.write();
    r.register::<Container>();
    r.register::<ContainerContents>();
    r.register::<ContainerSlotRules>();
    r.register::<OverflowStore>();
    r.register::<OverflowSources>();
    r.register::<DespawnPolicy>();
    r.register::<LoosePickup>();
    r.register::<Name>();
    r.register::<Transform>();
}

/// Every container (its contents, slot rules, store link, despawn policy,
/// name and transform) and every loose pickup of `world`, as a
/// `DynamicWorld` in RON.
pub fn save_containers(world: &mut World) -> Result<String, SceneError> {
    register(world);
    let mut q = world.query_filtered::<Entity, Or<(With<ContainerContents>, With<LoosePickup>)>>();
    let mut entities: Vec<Entity> = q.iter(world).collect();
    entities.sort();
    let registry = world.resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let saved = DynamicWorldBuilder::from_world(world, &registry)
        .allow_component::<Container>()
        .allow_component::<ContainerContents>()
        .allow_component::<ContainerSlotRules>()
        .allow_component::<OverflowStore>()
        .allow_component::<OverflowSources>()
        .allow_component::<DespawnPolicy>()
        .allow_component::<LoosePickup>()
        .allow_component::<Name>()
        .allow_component::<Transform>()
        .extract_entities(entities.into_iter())
        .build();
    saved
        .serialize(&registry)
        .map_err(|e| SceneError::Write(e.to_string()))
}

/// Reads containers saved by [`save_containers`] (or any `DynamicWorld`
/// holding them) into `world`, as new entities; returns the map from the
/// saved entities to the new ones (store links are remapped through it).
/// The text is read whole before anything is written, so bad data loads
/// nothing.
pub fn load_containers(world: &mut World, text: &str) -> Result<EntityHashMap<Entity>, SceneError> {
    register(world);
    let saved = read(world, text)?;
    check_pickups(&saved)?;
    let mut map = EntityHashMap::default();
    saved
        .write_to_world(world, &mut map)
        .map_err(|e| SceneError::Spawn(e.to_string()))?;
    Ok(map)
}

/// Loose pickups hold at least one item of a kebab-case type, as the
/// plugin spawns them; anything else is refused before the world changes.
fn check_pickups(saved: &DynamicWorld) -> Result<(), SceneError> {
    for e in &saved.entities {
        for c in &e.components {
            let is_pickup = c
                .get_represented_type_info()
                .is_some_and(|t| t.type_path() == LoosePickup::type_path());
            if !is_pickup {
                continue;
            }
            let bad = |why: &str| {
                SceneError::Read(format!(
                    "entity {}: LoosePickup {why}; fix or remove the pickup",
                    e.entity
                ))
            };
            let Some(p) = <LoosePickup as FromReflect>::from_reflect(c.as_ref()) else {
                return Err(bad("is not a pickup (item and amount)"));
            };
            if p.amount == 0 {
                return Err(bad("holds 0 items (amount must be at least 1)"));
            }
            if !crate::adoption::source::fields::is_kebab(&p.item) {
                return Err(bad(&format!(
                    "item \"{}\" is not a kebab-case type",
                    p.item
                )));
            }
        }
    }
    Ok(())
}

fn read(world: &mut World, text: &str) -> Result<DynamicWorld, SceneError> {
    let registry = world.resource::<AppTypeRegistry>().clone();
    let registry = registry.read();
    let Some(server) = world.get_resource::<AssetServer>() else {
        return Err(SceneError::Read(
            "the world has no AssetServer to load the adoptions with; add AssetPlugin".into(),
        ));
    };
    let mut server = server.clone();
    let mut de = ron::Deserializer::from_str(text).map_err(|e| SceneError::Read(e.to_string()))?;
    WorldDeserializer {
        type_registry: &registry,
        load_from_path: &mut server,
    }
    .deserialize(&mut de)
    .map_err(|e| {
        let e = de.span_error(e);
        match saved_entity_at(text, e.span.start.line) {
            Some(entity) => SceneError::Read(format!("entity {entity} (as saved): {e}")),
            None => SceneError::Read(e.to_string()),
        }
    })
}

/// The saved entity whose entry encloses line `line` (counted from 1) of a
/// `DynamicWorld` in RON: the last `<id>: (` line at or before it.
fn saved_entity_at(text: &str, line: usize) -> Option<&str> {
    text.lines()
        .take(line)
        .filter_map(|l| {
            let (id, rest) = l.trim().split_once(':')?;
            let is_entry =
                !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) && rest.trim() == "(";
            is_entry.then_some(id)
        })
        .last()
}
