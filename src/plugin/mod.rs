//! The Bevy plugin: containers on entities, settled by systems.
//!
//! [`ContainerPlugin`] adds, in its schedule (default `Update`):
//!
//! | set | systems |
//! | --- | --- |
//! | [`ContainerSystems::Rules`] | give new containers their engine once the adoption loads; recompile on hot reload, tuning change or new slot rules (a forced removal, reported as [`ItemsForcedOut`]); report adoptions that fail to load ([`AdoptionRejected`]) |
//! | [`ContainerSystems::Requests`] | answer [`PickUp`], [`Deliver`], [`Take`], [`MoveItems`], [`Sort`], [`Resize`], [`EmptyForGoneOwner`] in that order, each with one outcome message |
//!
//! and an observer that spills a despawned container's items as
//! [`LoosePickup`]s ([`ContainerSpilled`]). The [`Containers`] system
//! parameter answers the same requests immediately, and saves and loads
//! contents ([`Containers::save`], [`Containers::load`]).
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_container::plugin::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()));
//! app.update();
//! assert!(app.world().contains_resource::<ContainerTuning>());
//! ```

mod asset;
mod components;
mod messages;
mod settle;
mod systems;

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;

pub use asset::{AdoptionAsset, AdoptionLoadError, AdoptionLoader};
pub use components::{
    Container, ContainerContents, ContainerSlotRules, LoosePickup, OverflowStore,
};
pub use messages::*;
pub use settle::{Containers, LoadError, NotAnswered, PickupPlacement};

use crate::adoption::Tuning;

/// The game's tuning keys. Changing it re-resolves the values of every
/// container that uses them (which may force items out).
#[derive(Resource, Default, Debug, Clone, PartialEq, Deref, DerefMut)]
pub struct ContainerTuning(pub Tuning);

/// The plugin's system sets, run in this order.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContainerSystems {
    /// Rules: engines attached, reloads and tuning applied.
    Rules,
    /// Requests answered.
    Requests,
}

/// Adds containers to a Bevy app. Add it after `AssetPlugin`.
#[derive(Debug, Clone)]
pub struct ContainerPlugin {
    schedule: InternedScheduleLabel,
}

impl Default for ContainerPlugin {
    fn default() -> ContainerPlugin {
        ContainerPlugin {
            schedule: Update.intern(),
        }
    }
}

impl ContainerPlugin {
    /// Runs the plugin's systems in `schedule` instead of `Update`.
    pub fn in_schedule(schedule: impl ScheduleLabel) -> ContainerPlugin {
        ContainerPlugin {
            schedule: schedule.intern(),
        }
    }
}

impl Plugin for ContainerPlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<AdoptionAsset>()
            .init_asset_loader::<AdoptionLoader>()
            .init_resource::<ContainerTuning>()
            .init_resource::<PickupPlacement>()
            .init_resource::<systems::CompiledRules>()
            .register_type::<Container>()
            .register_type::<ContainerContents>()
            .register_type::<OverflowStore>()
            .register_type::<ContainerSlotRules>()
            .register_type::<LoosePickup>()
            .add_plugins(messages::register)
            .configure_sets(
                self.schedule,
                (ContainerSystems::Rules, ContainerSystems::Requests).chain(),
            )
            .add_systems(
                self.schedule,
                (
                    systems::forget_stale_rules,
                    systems::attach_engines,
                    systems::apply_adoption_changes,
                    systems::apply_tuning_changes,
                    systems::apply_slot_rules_changes,
                )
                    .chain()
                    .in_set(ContainerSystems::Rules),
            )
            .add_systems(
                self.schedule,
                systems::handle_requests.in_set(ContainerSystems::Requests),
            )
            .add_observer(systems::spill_on_despawn);
    }
}
