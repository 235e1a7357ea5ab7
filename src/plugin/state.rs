//! A container's engine state as reflection sees it: one opaque value that
//! saves as the container's [`SavedContents`] (format 1, with the adoption's
//! path and hash), so a world saved the Bevy way (`DynamicWorld`, or any
//! reflection-based save) keeps every container's contents.

use bevy::prelude::*;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::adoption::Format;
use crate::contents::Contents;
use crate::save::{AdoptionId, SavedContents};

/// The engine behind a [`super::ContainerContents`], with the adoption its
/// rules come from, or a save waiting for its adoption to load.
///
/// Reflection sees it as one opaque value: inspectors show it read-only,
/// and reflection-based saves write it through serde as the contents'
/// [`SavedContents`]. Read back, it holds that save until the container's
/// rules attach; the save then loads under them as
/// [`super::Containers::load`] does (what the rules no longer hold is
/// forced out with cause `loaded`; a refused migration keeps the save
/// attached and reports [`super::ContainerSaveRefused`]).
///
/// Bad data fails the whole read with the path inside the save and the
/// fix, so nothing half-loads.
#[derive(Clone, Debug, Default, Reflect)]
#[reflect(opaque)]
#[reflect(Debug, Default, Serialize, Deserialize)]
pub struct ContentsState {
    pub(crate) engine: Option<Box<Contents>>,
    pub(crate) adoption: Option<AdoptionId>,
    pub(crate) pending: Option<SavedContents>,
}

impl ContentsState {
    /// What a save of this state holds: the save still waiting to load, or
    /// the engine's contents; `None` before the rules attach with nothing
    /// to load.
    pub fn saved(&self) -> Option<SavedContents> {
        match (&self.pending, &self.engine, &self.adoption) {
            (Some(p), _, _) => Some(p.clone()),
            (None, Some(e), Some(id)) => Some(e.save(id)),
            _ => None,
        }
    }

    /// The save waiting for the rules to attach, if any.
    pub fn pending(&self) -> Option<&SavedContents> {
        self.pending.as_ref()
    }
}

impl Serialize for ContentsState {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // as a plain tree of maps, lists and numbers, so any self-describing
        // format (RON, JSON) carries it
        let value = self
            .saved()
            .map(|saved| serde_json::to_value(saved).map_err(serde::ser::Error::custom))
            .transpose()?;
        value.serialize(s)
    }
}

impl<'de> Deserialize<'de> for ContentsState {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ContentsState, D::Error> {
        let Some(value) = Option::<serde_json::Value>::deserialize(d)? else {
            return Ok(ContentsState::default());
        };
        // the same strict reader as a save file: every field checked
        let bytes = serde_json::to_vec(&value).map_err(D::Error::custom)?;
        let saved = SavedContents::read(&bytes, Format::Json).map_err(|report| {
            D::Error::custom(format!(
                "ContainerContents.state is not a valid save; fix or remove it:\n{}",
                report.render("ContainerContents.state")
            ))
        })?;
        Ok(ContentsState {
            engine: None,
            adoption: None,
            pending: Some(saved),
        })
    }
}
