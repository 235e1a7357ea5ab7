//! Loading on start: every persisted container, store link and pickup
//! spawned into the world.

use std::collections::BTreeMap;

use bevy::prelude::*;

use super::track::Table;
use super::{ContainerRow, PersistentId, PickupRow};
use crate::plugin::{Container, ContainerContents, LoosePickup, OverflowStore};

/// The rows read when the database was opened, waiting for the first
/// frame.
#[derive(Resource)]
pub(crate) struct Loaded {
    pub(super) containers: Vec<ContainerRow>,
    pub(super) pickups: Vec<PickupRow>,
    pub(super) next_pickup: u64,
}

/// Every persisted entity by its [`PersistentId`]: the containers and
/// pickups loaded from the file, and the ones the game gave an id since.
/// Kept up to date at the end of every frame. A resource.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::persist::PersistentEntities;
///
/// // a client joined: its backpack from the last run, if there was one
/// fn backpack_of(name: &str, ids: &PersistentEntities) -> Option<Entity> {
///     ids.get(&format!("backpack-of-{name}"))
/// }
/// # let _ = backpack_of;
/// ```
#[derive(Resource, Debug, Default, Clone)]
pub struct PersistentEntities {
    pub(super) by_id: BTreeMap<String, Entity>,
}

impl PersistentEntities {
    /// The entity with this id.
    pub fn get(&self, id: &str) -> Option<Entity> {
        self.by_id.get(id).copied()
    }

    /// Every id and its entity, sorted by id.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Entity)> {
        self.by_id.iter().map(|(k, v)| (k.as_str(), *v))
    }

    /// How many persisted entities there are.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }
}

/// Spawns what the file holds. Each container waits for its adoption like
/// a container loaded from a scene: its save loads (and migrates) when the
/// rules attach.
pub(super) fn spawn_persisted(
    mut commands: Commands,
    server: Res<AssetServer>,
    mut ids: ResMut<PersistentEntities>,
    mut tracked: ResMut<super::track::Tracked>,
    loaded: Option<ResMut<Loaded>>,
) {
    let Some(mut loaded) = loaded else {
        return;
    };
    tracked.next_pickup = loaded.next_pickup;
    let mut links = Vec::new();
    for row in std::mem::take(&mut loaded.containers) {
        let e = commands
            .spawn((
                Name::new(row.id.clone()),
                PersistentId(row.id.clone()),
                Container::new(server.load(row.adoption.clone())),
                ContainerContents::with_pending(row.contents),
            ))
            .id();
        tracked.loaded(e, &row.id, Table::Containers);
        ids.by_id.insert(row.id.clone(), e);
        links.push((e, row.store));
    }
    for (e, store) in links {
        if let Some(store) = store.and_then(|s| ids.by_id.get(&s)) {
            commands.entity(e).insert(OverflowStore(*store));
        }
    }
    for row in std::mem::take(&mut loaded.pickups) {
        let e = commands
            .spawn((
                Name::new(format!("{} {}", row.amount, row.item)),
                PersistentId(row.id.clone()),
                LoosePickup {
                    item: row.item,
                    amount: row.amount,
                    props: row.props,
                },
                Transform::from_translation(row.translation),
            ))
            .id();
        tracked.loaded(e, &row.id, Table::Pickups);
        ids.by_id.insert(row.id, e);
    }
    commands.remove_resource::<Loaded>();
}
