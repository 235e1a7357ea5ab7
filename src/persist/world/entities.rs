//! Every persisted entity by its id.

use std::collections::BTreeMap;

use bevy::prelude::*;

/// Every persisted entity by its [`PersistentId`](crate::persist::PersistentId): the containers and
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
    pub(crate) by_id: BTreeMap<String, Entity>,
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
