#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod adoption;
pub mod audit;
pub mod contents;
pub mod decimal;
mod hash;
pub mod occurrences;
pub mod plugin;
pub mod rules;
pub mod save;
pub mod scenario;

/// The types most games need.
pub mod prelude {
    pub use crate::adoption::{Adoption, Report, Tuning};
    pub use crate::contents::{Contents, ItemType, SlotRules};
    pub use crate::plugin::{
        Container, ContainerPlugin, ContainerSystems, ContainerTuning, Containers, LoosePickup,
        OverflowStore,
    };
    pub use crate::rules::Rules;
}
