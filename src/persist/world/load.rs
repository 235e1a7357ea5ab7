//! Loading on start: every persisted container, store link and pickup
//! spawned into the world.

use bevy::prelude::*;

use crate::persist::frame::rows::{ContainerRow, PickupRow};
use crate::persist::servers::ContainerArrived;
use crate::persist::world::entities::PersistentEntities;
use crate::persist::world::id::PersistentId;
use crate::persist::world::tracked::{Table, Tracked};
use crate::plugin::{Container, ContainerContents, LoosePickup, OverflowStore};

/// The rows read when the database was opened, waiting for the first
/// frame.
#[derive(Resource)]
pub(crate) struct Loaded {
    pub(crate) containers: Vec<ContainerRow>,
    pub(crate) pickups: Vec<PickupRow>,
    /// The containers that arrived while this server was down (handed
    /// over, or claimed at open).
    pub(crate) arrived: Vec<String>,
    pub(crate) next_pickup: u64,
    /// How generated pickup ids start (`pickup-`, or `pickup-SERVER-` on
    /// a shared database, where ids are unique across servers).
    pub(crate) pickup_prefix: String,
    /// Whether several servers share the database.
    pub(crate) shared: bool,
}

/// Spawns what the file holds. Each container waits for its adoption like
/// a container loaded from a scene: its save loads (and migrates) when the
/// rules attach.
pub(crate) fn spawn_persisted(
    mut commands: Commands,
    server: Res<AssetServer>,
    mut ids: ResMut<PersistentEntities>,
    mut tracked: ResMut<Tracked>,
    loaded: Option<ResMut<Loaded>>,
    mut arrived: MessageWriter<ContainerArrived>,
) {
    let Some(mut loaded) = loaded else {
        return;
    };
    tracked.next_pickup = loaded.next_pickup;
    tracked.pickup_prefix = std::mem::take(&mut loaded.pickup_prefix);
    tracked.shared = loaded.shared;
    let containers = std::mem::take(&mut loaded.containers);
    let pickups = std::mem::take(&mut loaded.pickups);
    let mut world = Spawner {
        commands: &mut commands,
        server: &server,
        ids: &mut ids,
        tracked: &mut tracked,
    };
    let spawned = world.containers(containers);
    // a game waiting for its player's backpack hears of it, whether it
    // came while this server ran or while it was down
    let came: std::collections::BTreeSet<String> =
        std::mem::take(&mut loaded.arrived).into_iter().collect();
    for (id, container) in spawned {
        if came.contains(&id) {
            arrived.write(ContainerArrived { container, id });
        }
    }
    for row in pickups {
        world.pickup(row);
    }
    commands.remove_resource::<Loaded>();
}

/// What spawning rows into the world reads and changes, as a system
/// parameter: [`Spawning::spawner`] borrows it as a [`Spawner`].
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct Spawning<'w, 's> {
    commands: Commands<'w, 's>,
    server: Res<'w, AssetServer>,
    pub(crate) ids: ResMut<'w, PersistentEntities>,
    tracked: ResMut<'w, Tracked>,
}

impl<'w, 's> Spawning<'w, 's> {
    /// The spawner of these.
    pub(crate) fn spawner(&mut self) -> Spawner<'_, 'w, 's> {
        Spawner {
            commands: &mut self.commands,
            server: &self.server,
            ids: &mut self.ids,
            tracked: &mut self.tracked,
        }
    }
}

/// Spawns rows into the world, tracked from the start.
pub(crate) struct Spawner<'a, 'w, 's> {
    pub(crate) commands: &'a mut Commands<'w, 's>,
    pub(crate) server: &'a AssetServer,
    pub(crate) ids: &'a mut PersistentEntities,
    pub(crate) tracked: &'a mut Tracked,
}

impl Spawner<'_, '_, '_> {
    /// Spawns containers, then links each to its store when the store is
    /// in this world.
    pub(crate) fn containers(&mut self, rows: Vec<ContainerRow>) -> Vec<(String, Entity)> {
        let mut links = Vec::new();
        let mut spawned = Vec::new();
        for row in rows {
            let e = self
                .commands
                .spawn((
                    Name::new(row.id.clone()),
                    PersistentId(row.id.clone()),
                    Container::new(self.server.load(row.adoption.clone())),
                    ContainerContents::with_pending(row.contents),
                ))
                .id();
            self.tracked.loaded(e, &row.id, Table::Containers);
            self.ids.by_id.insert(row.id.clone(), e);
            links.push((e, row.store));
            spawned.push((row.id, e));
        }
        for (e, store) in links {
            if let Some(store) = store.and_then(|s| self.ids.by_id.get(&s)) {
                self.commands.entity(e).insert(OverflowStore(*store));
            }
        }
        spawned
    }

    /// Spawns a loose pickup.
    pub(crate) fn pickup(&mut self, row: PickupRow) -> Entity {
        let e = self
            .commands
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
        self.tracked.loaded(e, &row.id, Table::Pickups);
        self.ids.by_id.insert(row.id, e);
        e
    }
}
