//! The Bevy plugin: containers on entities, settled by systems.
//!
//! [`ContainerPlugin`] adds, in its schedule (default `Update`):
//!
//! | set | systems |
//! | --- | --- |
//! | [`ContainerSystems::Rules`] | give new containers their engine once the adoption loads ([`ContainerReady`]); recompile on hot reload, tuning change or new slot rules (a forced removal, reported as [`ItemsForcedOut`]); report adoptions that fail to load ([`AdoptionRejected`], and on each container: [`ContainerContents::status`]) or load with warnings ([`AdoptionWarned`]) |
//! | [`ContainerSystems::Requests`] | answer every [`ContainerRequest`] of the frame in the order written, each with one outcome |
//!
//! and an observer that settles a despawned container's items by its
//! [`DespawnPolicy`] ([`ContainerSpilled`] or [`ContainerLeftWorld`]).
//! Each system has a run condition that says when it has work (a request
//! written, a file loaded or changed, a container added or edited), so a
//! frame in which nothing happens to containers runs none of them.
//!
//! **Requests in one frame** are answered in the order they were written,
//! whatever their kind: a take written before a delivery is answered first,
//! and the delivery sees the slots it freed (the guide's [`guide::world`](crate::guide::world)). Write them
//! with a `MessageWriter<ContainerRequest>`, with `commands.write_message`,
//! or with [`ContainerCommandsExt`] (written when the commands apply). The
//! [`Containers`] system parameter answers the same requests at once, in
//! the calling system, and returns the outcome message it writes; a call
//! there is not queued behind the frame's messages.
//!
//! **Outcomes** ([`ItemsDelivered`], [`ItemsTaken`], [`ItemsTransferred`],
//! [`ItemsForcedOut`], [`ContainerRearranged`], [`PropsChanged`],
//! [`RequestUnanswered`]) come out in the same order, each as a message and
//! as an entity event on its container, so
//! `commands.entity(chest).observe(|d: On<ItemsDelivered>| ..)` sees that
//! chest's outcomes only. Each names its `container` and reads as a log
//! line (`Display`, or `describe(&names)` with entities by their `Name`),
//! saying what limited it when not everything was accepted.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_container::adoption::{self, Format};
//! use bevy_container::plugin::*;
//!
//! // a pouch with three slots of five herbs, already full
//! let bytes = br#"{"contract": "container", "version": 1,
//!   "answers": {"capacity-limit": "slot-count", "partial-acceptance": "fill-what-fits",
//!     "leftover-destination": "left-where-it-is", "fill-order": "top-up-then-first-empty",
//!     "draw-order": "first-in-order", "type-restriction": "any-item"},
//!   "values": {"slot-count": 3, "size-budget": 0},
//!   "rows": {"items": [{"id": "herb", "stack-limit": 5, "when-forced-out": "never"},
//!                      {"id": "sword", "stack-limit": 1, "when-forced-out": "never"}]}}"#;
//! let pouch_rules = adoption::read(bytes, Format::Json, Default::default()).unwrap();
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()));
//! let handle = app.world_mut().resource_mut::<Assets<AdoptionAsset>>().add(AdoptionAsset::new(pouch_rules));
//! let pouch = app.world_mut().spawn(Container::new(handle)).id();
//! app.update(); // the rules attach: ContainerReady
//! app.world_mut().write_message(ContainerRequest::from(Deliver::new(pouch, "herb", 15)));
//! app.update();
//!
//! // the craft, in one frame: take ten herbs, then deliver the sword made of them
//! app.world_mut().write_message(ContainerRequest::from(Take::new(pouch, "herb", 10)));
//! app.world_mut().write_message(ContainerRequest::from(Deliver::new(pouch, "sword", 1)));
//! app.update();
//!
//! let contents = app.world().get::<ContainerContents>(pouch).unwrap();
//! assert_eq!(contents.count("sword"), 1); // it landed in a freed slot, not on the ground
//! assert_eq!(contents.count("herb"), 5);
//! assert!(app.world_mut().query::<&LoosePickup>().iter(app.world()).next().is_none());
//! ```

mod answer;
mod asset;
mod commands;
mod components;
mod containers;
mod frame;
mod guard;
mod messages;
mod notice;
mod placement;
mod requests;
#[cfg(feature = "scene")]
pub mod scene;
mod settle;
mod state;
mod status;
mod systems;
mod watch;

use bevy::ecs::schedule::{InternedScheduleLabel, ScheduleLabel};
use bevy::prelude::*;

pub use asset::{AdoptionAsset, AdoptionLoadError, AdoptionLoader};
pub use commands::ContainerCommandsExt;
pub use components::{
    Container, ContainerContents, ContainerSlotRules, DespawnPolicy, LoosePickup, OverflowSources,
    OverflowStore,
};
pub use containers::{Containers, LoadError};
pub use frame::{ContainerFrameStats, ContainerParallelism};
pub use messages::*;
pub use placement::PickupPlacement;
pub use state::ContentsState;
pub use status::ContainerStatus;
#[cfg(feature = "replicon")]
pub(crate) use systems::{AnsweredByServer, CompiledRules, attach_engines, handle_requests};

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
            .init_resource::<ContainerParallelism>()
            .init_resource::<frame::FrameScratch>()
            .init_resource::<ContainerFrameStats>()
            .init_resource::<systems::CompiledRules>()
            .init_resource::<systems::LoadedSaves>()
            .init_resource::<systems::AttachWaiting>()
            .init_resource::<systems::AdoptionsPending>()
            .init_resource::<watch::OutcomeKeys>()
            .init_resource::<watch::Watched>()
            .init_resource::<guard::PluginWrites>()
            .register_asset_reflect::<AdoptionAsset>()
            .register_type::<Container>()
            .register_type::<ContainerContents>()
            .register_type::<OverflowStore>()
            .register_type::<ContainerSlotRules>()
            .register_type::<LoosePickup>()
            .register_type::<OverflowSources>()
            .register_type::<DespawnPolicy>()
            .add_plugins(messages::register)
            .configure_sets(
                self.schedule,
                (ContainerSystems::Rules, ContainerSystems::Requests).chain(),
            )
            .add_systems(
                self.schedule,
                systems::rules_systems().in_set(ContainerSystems::Rules),
            )
            .add_systems(
                self.schedule,
                systems::request_systems().in_set(ContainerSystems::Requests),
            )
            .add_observer(systems::spill_on_despawn);
    }
}
