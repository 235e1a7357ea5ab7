//! What the persistence knows of the world between frames: each persisted
//! entity's key, id and table, and the adoptions containers were written
//! under.

use std::num::NonZeroU64;
use std::sync::Arc;

use bevy::ecs::entity::EntityHashMap;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use crate::persist::frame::writer::AdoptionRef;
use crate::plugin::AdoptionAsset;
use crate::rules::Rules;
use crate::save::AdoptionId;

/// Which table a persisted entity's row is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Table {
    Containers,
    Pickups,
}

/// A persisted entity: its key (the writer's name for it), its id, its
/// table, and for a container the adoption it was last written under.
pub(crate) struct Entry {
    pub(crate) key: u64,
    pub(crate) id: Box<str>,
    pub(crate) table: Table,
    pub(crate) adoption: Option<Written>,
}

/// The adoption a container was last written under, and how to tell it
/// unchanged without reading its text: the same handle, the same setting
/// of the container's adoption, the same rules.
pub(crate) struct Written {
    pub(crate) handle: AssetId<AdoptionAsset>,
    pub(crate) stamp: NonZeroU64,
    pub(crate) adoption: Arc<AdoptionRef>,
}

/// The persisted entities, to find their ids and delete the rows of those
/// that leave.
#[derive(Resource, Default)]
pub(crate) struct Tracked {
    pub(crate) ids: EntityHashMap<Entry>,
    /// The next key.
    pub(crate) next_key: u64,
    pub(crate) next_pickup: u64,
    /// How generated pickup ids start (`pickup-` on a file of one server,
    /// `pickup-SERVER-` on a shared database).
    pub(crate) pickup_prefix: String,
    /// Whether several servers share the database (hand-overs allowed).
    pub(crate) shared: bool,
    /// Entities already warned about (two entities with one id).
    pub(crate) warned: Vec<Entity>,
    /// The adoptions containers were written under, one shared copy each.
    pub(crate) adoptions: Vec<Arc<AdoptionRef>>,
    /// The entities a [`PersistentId`] was inserted on since the last
    /// hand-over (the component's insert hook lists them).
    pub(crate) named: Vec<Entity>,
    /// Whether the first hand-over has looked at every id (those inserted
    /// before the plugin was added were not listed).
    pub(crate) scanned: bool,
    /// The keys of the entities loaded from the file, named in the next
    /// batch: a loaded entity that leaves, or is renamed, before the first
    /// hand-over still has its row deleted.
    pub(crate) unsent: Vec<(u64, Box<str>)>,
    /// Hand-overs to a server id this server has not heard of yet, each
    /// with the listener's read count when it was asked: it waits for a
    /// read of the servers made after it, then goes or is refused.
    pub(crate) waiting_hand_overs: Vec<(crate::persist::servers::HandOver, u64)>,
}

impl Tracked {
    /// Records `e`, just loaded from the file under `id` in `table`: it has
    /// a row, so it is tracked from the start, not from the first
    /// hand-over.
    pub(crate) fn loaded(&mut self, e: Entity, id: &str, table: Table) {
        let name = self.track(e, id, table);
        self.unsent.push(name);
    }

    /// Tracks `e` under `id` in `table` with the next key; returns the
    /// key's name, for the writer.
    pub(crate) fn track(&mut self, e: Entity, id: &str, table: Table) -> (u64, Box<str>) {
        let key = self.next_key;
        self.next_key += 1;
        self.ids.insert(
            e,
            Entry {
                key,
                id: id.into(),
                table,
                adoption: None,
            },
        );
        (key, id.into())
    }

    /// The shared copy of the adoption at `path` with id `id` and rules
    /// `rules`, made when there is none.
    pub(crate) fn adoption(
        &mut self,
        path: String,
        id: &AdoptionId,
        rules: &Arc<Rules>,
    ) -> Arc<AdoptionRef> {
        if let Some(a) = self
            .adoptions
            .iter()
            .find(|a| Arc::ptr_eq(&a.rules, rules) && a.id == *id && a.path == path)
        {
            return a.clone();
        }
        // the copies no container is written under any more go
        self.adoptions.retain(|a| Arc::strong_count(a) > 1);
        let a = Arc::new(AdoptionRef {
            path,
            id: id.clone(),
            rules: rules.clone(),
        });
        self.adoptions.push(a.clone());
        a
    }
}

/// [`PersistentId`]'s insert hook: the hand-over names the entity anew.
pub(crate) fn id_inserted(mut world: DeferredWorld, context: HookContext) {
    if let Some(mut tracked) = world.get_resource_mut::<Tracked>() {
        tracked.named.push(context.entity);
    }
}
