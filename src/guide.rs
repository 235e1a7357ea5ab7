//! The guide: the rules of the container-1 contract and of this crate, in
//! chapters that ship with the crate (their examples run as doctests).
//!
//! | chapter | what it covers |
//! | --- | --- |
//! | [`adoption`] | the adoption file, question by question, with what each answer does |
//! | [`requests`] | deliveries, takes, forced removal, sorts and moves; nothing lost, same input same result |
//! | [`transfers`] | moving items between two containers, swaps, dry runs |
//! | [`world`] | settling leftovers in the world (pickups, stores, senders), several requests in one frame |
//! | [`properties`] | items that carry properties: kinds, stacking per kind, changing properties |
//! | [`saves`] | saves, loading under a changed adoption, scenes |
//! | [`persistence`] | a server's containers in SQLite, whole at every frame boundary: what survives what, the schema, the errors |
//! | [`servers`] | several servers on one PostgreSQL database: ownership, epochs, hand-over, claiming, what a stale server sees |
//! | [`scenarios`] | scenario files and the runner that replays them |
//! | [`gloot`] | coming from GLoot: how its inventories map to adoption answers, and where they differ |

#[doc = include_str!("../docs/guide/adoption.md")]
pub mod adoption {}

#[doc = include_str!("../docs/guide/requests.md")]
pub mod requests {}

#[doc = include_str!("../docs/guide/transfers.md")]
pub mod transfers {}

#[doc = include_str!("../docs/guide/world.md")]
pub mod world {}

#[doc = include_str!("../docs/guide/properties.md")]
pub mod properties {}

#[doc = include_str!("../docs/guide/saves.md")]
pub mod saves {}

// its examples open databases (feature `persist`)
#[cfg_attr(feature = "persist", doc = include_str!("../docs/guide/persistence.md"))]
#[cfg_attr(
    not(feature = "persist"),
    doc = "Containers in SQLite: this chapter needs the `persist` feature."
)]
pub mod persistence {}

// its examples name the PostgreSQL store (feature `postgres`)
#[cfg_attr(feature = "postgres", doc = include_str!("../docs/guide/servers.md"))]
#[cfg_attr(
    not(feature = "postgres"),
    doc = "Several servers on one PostgreSQL database: this chapter needs the `postgres` feature."
)]
pub mod servers {}

// its examples run the scenario runner (feature `scenario`)
#[cfg_attr(feature = "scenario", doc = include_str!("../docs/guide/scenarios.md"))]
#[cfg_attr(
    not(feature = "scenario"),
    doc = "Scenario files: this chapter needs the `scenario` feature."
)]
pub mod scenarios {}

#[doc = include_str!("../docs/guide/gloot.md")]
pub mod gloot {}
