//! The crate's hard limits, shared by validation, the engine and the save
//! format.
//!
//! A leaf module: the engine reads its limits here rather than from
//! [`crate::adoption`], so the engine does not depend on validation. The
//! public path stays `bevy_container::adoption::MAX_SLOTS`.

/// The most slots a container may have, also the safety ceiling of a
/// `no-limit` container: 1,048,576.
pub const MAX_SLOTS: u32 = 1 << 20;
