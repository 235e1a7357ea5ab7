// README is the crate doc when the features its examples use are built
// (docs.rs builds them all): its examples are doctests. Otherwise a short
// doc stands in, so no doctest names a module that is not compiled.
#![cfg_attr(
    all(feature = "replicon", feature = "scene", feature = "persist"),
    doc = include_str!("../README.md")
)]
#![cfg_attr(
    not(all(feature = "replicon", feature = "scene", feature = "persist")),
    doc = "In-game containers (backpacks, chests, shops, hotbars, decks) for Bevy, settled \
           exactly as a container-1 adoption file says.\n\n\
           The engine ([`contents`], [`rules`], [`adoption`], [`save`], [`props`]) and the \
           [`plugin`] are always built, and the [`guide`] explains the rules. Build the \
           docs with `--all-features` for the whole README as this page."
)]
// on docs.rs, each item says which feature it needs
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adoption;
#[cfg(feature = "audit")]
pub mod audit;
#[cfg(feature = "cli")]
pub mod cli;
pub mod contents;
pub mod decimal;
pub mod guide;
mod hash;
pub mod item;
mod limits;
#[cfg(feature = "replicon")]
pub mod net;
#[cfg(feature = "replay")]
pub mod occurrences;
#[cfg(feature = "persist")]
pub mod persist;
pub mod plugin;
pub mod props;
pub mod rules;
pub mod save;
#[cfg(feature = "scenario")]
pub mod scenario;
#[cfg(any(feature = "audit", test))]
mod splitmix;
#[cfg(feature = "ui")]
pub mod ui;

/// The types a game names in its first hour: the plugin, its components,
/// every request and its outcome, the reasons and limits outcomes give,
/// items and their properties, saves, and the engine alone (`Contents`
/// with its `Rules`). With `use bevy::prelude::*;` beside it, the
/// README's and the guide's examples need no other import of this crate.
pub mod prelude {
    pub use crate::adoption::{Adoption, Report, Tuning};
    pub use crate::contents::{
        Acceptance, Cause, Contents, ItemType, LimitedBy, PropsAt, Reason, SlotRules,
        TransferRequest,
    };
    pub use crate::decimal::Decimal;
    pub use crate::plugin::{
        AdoptionAsset, AdoptionRejected, AdoptionWarned, Container, ContainerCommandsExt,
        ContainerContents, ContainerLeftWorld, ContainerPlugin, ContainerReady,
        ContainerRearranged, ContainerRequest, ContainerSaveRefused, ContainerSpilled,
        ContainerStatus, ContainerSystems, ContainerTuning, Containers, Deliver, DespawnPolicy,
        EmptyForGoneOwner, Fallback, ItemsDelivered, ItemsForcedOut, ItemsTaken, ItemsTransferred,
        LoadError, LoosePickup, MoveItems, NotAnswered, OverflowStore, PickUp, PropsChanged,
        RequestUnanswered, Resize, SetProps, Settled, Sort, Take, Transfer,
    };
    // a game that keeps its containers in a database (features `persist`
    // and `postgres`) names these in its first hour
    #[cfg(feature = "persist")]
    pub use crate::persist::{
        ContainerArrived, ContainerDatabase, ContainerDatabasePlugin, ContainerLost,
        DatabaseWriter, HandOver, HandOverRefused, PersistenceStopped, PersistentEntities,
        PersistentId, SendMail, ServerId, ServerReplaced,
    };
    pub use crate::props::{Kind, PropNumber, PropValue, Props};
    pub use crate::rules::{LeftoverDestination, Rules};
    pub use crate::save::{AdoptionId, SavedContents};
}
