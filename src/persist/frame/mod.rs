//! The frame's rows and the writer: what one frame's transaction holds,
//! the thread that writes it, and what a store is to it. Knows no backend
//! and no world: the stores (`sqlite`, `postgres`) turn rows into their
//! statements, the world side (`world`) fills the batches.

pub(crate) mod error;
#[cfg(test)]
mod fence_tests;
pub(crate) mod merge;
pub(crate) mod rows;
pub(crate) mod scheduling;
pub(crate) mod server_id;
pub(crate) mod store;
pub(crate) mod writer;
