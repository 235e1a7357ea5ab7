//! The name of a persisted entity: the id a game gives it, the same on
//! every run.

use bevy::prelude::*;

/// The name of a container (or loose pickup) in the database: given by the
/// game and the same on every run, unlike an `Entity`. At most 256 bytes.
///
/// The component is immutable: to rename an entity, insert a new id (the
/// row under the old name goes in the same frame). The persistence learns
/// of new ids as they are inserted, so it never scans every persisted
/// entity for them.
///
/// ```
/// use bevy_container::persist::PersistentId;
/// let id = PersistentId::new("backpack-of-ilsa");
/// assert_eq!(id.as_str(), "backpack-of-ilsa");
/// ```
#[derive(Component, Reflect, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[component(immutable, on_insert = crate::persist::world::tracked::id_inserted)]
#[reflect(Component)]
pub struct PersistentId(pub String);

impl PersistentId {
    /// The id `id`.
    pub fn new(id: impl Into<String>) -> PersistentId {
        PersistentId(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}
