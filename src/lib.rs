// README is the crate doc when the tooling is built (the default): its
// examples are doctests, and one of them uses `audit`. Without the tooling a
// short doc stands in, so no doctest names a module that is not compiled.
#![cfg_attr(
    all(feature = "audit", feature = "replay", feature = "scenario"),
    doc = include_str!("../README.md")
)]
#![cfg_attr(
    not(all(feature = "audit", feature = "replay", feature = "scenario")),
    doc = "In-game containers (backpacks, chests, shops, hotbars, decks) for Bevy, settled \
           exactly as a container-1 adoption file says.\n\n\
           Built without some of its default features (`audit`, `replay`, `scenario`): \
           the engine ([`contents`], [`rules`], [`adoption`], [`save`]) and the \
           [`plugin`] are all here; see README.md for the whole guide."
)]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adoption;
#[cfg(feature = "audit")]
pub mod audit;
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
        Container, ContainerCommandsExt, ContainerContents, ContainerPlugin, ContainerReady,
        ContainerRequest, ContainerSystems, ContainerTuning, Containers, DespawnPolicy,
        LoosePickup, OverflowStore,
    };
    pub use crate::rules::Rules;
}
