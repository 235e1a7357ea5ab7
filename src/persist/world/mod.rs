//! The world's side of persistence: the ids entities carry, what changed
//! in a frame handed to the writer, what a database holds spawned at
//! start, and the plugin that puts it together.

pub(crate) mod database_writer;
pub(crate) mod entities;
pub(crate) mod fence;
pub(crate) mod id;
pub(crate) mod load;
pub(crate) mod plugin;
pub(crate) mod stopped;
pub(crate) mod track;
pub(crate) mod tracked;
