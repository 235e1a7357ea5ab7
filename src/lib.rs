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
#[cfg(feature = "audit")]
mod splitmix;
#[cfg(feature = "ui")]
pub mod ui;

/// The types most games need.
pub mod prelude {
    pub use crate::adoption::{Adoption, Report, Tuning};
    pub use crate::contents::{Contents, ItemType, SlotRules, TransferRequest};
    pub use crate::plugin::{
        AdoptionAsset, AdoptionRejected, Container, ContainerCommandsExt, ContainerContents,
        ContainerPlugin, ContainerReady, ContainerRequest, ContainerSaveRefused, ContainerSystems,
        ContainerTuning, Containers, Deliver, DespawnPolicy, Fallback, ItemsDelivered,
        ItemsForcedOut, ItemsTaken, ItemsTransferred, LoosePickup, MoveItems, NotAnswered,
        OverflowStore, PickUp, PropsChanged, RequestUnanswered, SetProps, Settled, Take, Transfer,
    };
    pub use crate::props::{PropValue, Props};
    pub use crate::rules::Rules;
    pub use crate::save::SavedContents;
}
