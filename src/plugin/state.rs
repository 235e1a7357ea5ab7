//! A container's engine state as reflection sees it: one opaque value that
//! saves as the container's [`SavedContents`] (format 1, with the adoption's
//! path and hash), so a world saved the Bevy way (`DynamicWorld`, or any
//! reflection-based save) keeps every container's contents.

use std::any::Any;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy::prelude::*;
use bevy::reflect::utility::NonGenericTypeInfoCell;
use bevy::reflect::{
    ApplyError, FromReflect, FromType, GetTypeRegistration, OpaqueInfo, PartialReflect,
    ReflectCloneError, ReflectFromPtr, ReflectFromReflect, ReflectKind, ReflectMut, ReflectOwned,
    ReflectRef, TypeInfo, TypePath, TypeRegistration,
};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::status::ContainerStatus;
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
/// Applied by reflection onto a container that already holds items (a
/// scene written onto a live entity), a different save never replaces
/// them: the items stay, and the save is set aside and handed out with
/// [`super::ContainerSaveSetAside`].
///
/// Bad data fails the whole read with the path inside the save and the
/// fix, so nothing half-loads.
///
/// ```
/// use bevy::reflect::PartialReflect;
/// use bevy_container::plugin::ContentsState;
///
/// // a state with nothing in it takes whatever is applied to it
/// let mut state = ContentsState::default();
/// state.apply(&ContentsState::default());
/// assert!(state.saved().is_none() && state.set_aside().is_none());
/// ```
#[derive(Clone, Debug, Default, TypePath)]
#[repr(C)]
pub struct ContentsState {
    /// Which setting of `adoption` this is (`None` before the first):
    /// unique in the process, so a reader that saw the same stamp knows the
    /// adoption unchanged without comparing its text (the persistence does,
    /// for every container it writes). First, beside the engine's head:
    /// the persistence reads both for every container a frame changed.
    adoption_stamp: Option<NonZeroU64>,
    /// Kept in the component itself, not behind a pointer: a request reads
    /// the component and its engine together.
    pub(crate) engine: Option<Contents>,
    /// Set only through [`ContentsState::set_adoption`], with the stamp.
    adoption: Option<AdoptionId>,
    /// Boxed, as is `set_aside`: rare, and large, they would otherwise
    /// widen every container's component.
    pub(crate) pending: Option<Box<SavedContents>>,
    /// A save applied onto this state while it held items: not applied,
    /// waiting to be reported.
    pub(crate) set_aside: Option<Box<SavedContents>>,
    /// Why the rules did not attach (the adoption or the save was
    /// refused), while they have not: what
    /// [`super::ContainerContents::status`] reports. Boxed: rare.
    pub(crate) refusal: Option<Box<ContainerStatus>>,
}

impl ContentsState {
    /// Records the adoption the rules now come from, with a new stamp.
    pub(crate) fn set_adoption(&mut self, id: AdoptionId) {
        static STAMPS: AtomicU64 = AtomicU64::new(1);
        self.adoption = Some(id);
        // starts at 1 and would take centuries to wrap
        self.adoption_stamp = NonZeroU64::new(STAMPS.fetch_add(1, Ordering::Relaxed));
    }

    /// The adoption the rules come from, once they attach.
    pub(crate) fn adoption(&self) -> Option<&AdoptionId> {
        self.adoption.as_ref()
    }

    /// Which setting of the adoption this is (see `set_adoption`), once
    /// there is one.
    #[cfg(feature = "persist")]
    pub(crate) fn adoption_stamp(&self) -> Option<NonZeroU64> {
        self.adoption_stamp
    }

    /// What a save of this state holds: the save still waiting to load, or
    /// the engine's contents; `None` before the rules attach with nothing
    /// to load.
    pub fn saved(&self) -> Option<SavedContents> {
        match (&self.pending, &self.engine, &self.adoption) {
            (Some(p), _, _) => Some(SavedContents::clone(p)),
            (None, Some(e), Some(id)) => Some(e.save(id)),
            _ => None,
        }
    }

    /// The save waiting for the rules to attach, if any.
    pub fn pending(&self) -> Option<&SavedContents> {
        self.pending.as_deref()
    }

    /// A save applied onto this state while it held items, not yet
    /// reported (the plugin reports it with
    /// [`super::ContainerSaveSetAside`] in its next run).
    pub fn set_aside(&self) -> Option<&SavedContents> {
        self.set_aside.as_deref()
    }

    /// Whether there are items here that an applied save would replace:
    /// an attached engine holding any, or a save waiting to load.
    fn holds_items(&self) -> bool {
        self.pending.is_some() || self.engine.as_ref().is_some_and(|e| !e.is_empty())
    }

    /// Takes `other` in, unless that would replace items this state holds
    /// with different ones: then `other`'s save is set aside instead.
    fn take_in(&mut self, other: &ContentsState) {
        if !self.holds_items() {
            *self = other.clone();
            return;
        }
        let incoming = other.saved();
        if incoming.is_none() || incoming == self.saved() {
            return;
        }
        self.set_aside = incoming.map(Box::new);
    }
}

// Reflection is written by hand (it is what `#[reflect(opaque)]` derives)
// for one difference: applying a value goes through `take_in`, so a scene
// written onto a live container never drops the items it holds.

impl bevy::reflect::Typed for ContentsState {
    fn type_info() -> &'static TypeInfo {
        static CELL: NonGenericTypeInfoCell = NonGenericTypeInfoCell::new();
        CELL.get_or_set(|| TypeInfo::Opaque(OpaqueInfo::new::<Self>()))
    }
}

impl GetTypeRegistration for ContentsState {
    fn get_type_registration() -> TypeRegistration {
        let mut registration = TypeRegistration::of::<Self>();
        registration.insert::<ReflectFromPtr>(FromType::<Self>::from_type());
        registration.insert::<ReflectFromReflect>(FromType::<Self>::from_type());
        registration.insert::<ReflectDefault>(FromType::<Self>::from_type());
        registration.insert::<ReflectSerialize>(FromType::<Self>::from_type());
        registration.insert::<ReflectDeserialize>(FromType::<Self>::from_type());
        registration
    }
}

impl PartialReflect for ContentsState {
    fn get_represented_type_info(&self) -> Option<&'static TypeInfo> {
        Some(<Self as bevy::reflect::Typed>::type_info())
    }

    fn into_partial_reflect(self: Box<Self>) -> Box<dyn PartialReflect> {
        self
    }

    fn as_partial_reflect(&self) -> &dyn PartialReflect {
        self
    }

    fn as_partial_reflect_mut(&mut self) -> &mut dyn PartialReflect {
        self
    }

    fn try_into_reflect(self: Box<Self>) -> Result<Box<dyn Reflect>, Box<dyn PartialReflect>> {
        Ok(self)
    }

    fn try_as_reflect(&self) -> Option<&dyn Reflect> {
        Some(self)
    }

    fn try_as_reflect_mut(&mut self) -> Option<&mut dyn Reflect> {
        Some(self)
    }

    fn try_apply(&mut self, value: &dyn PartialReflect) -> Result<(), ApplyError> {
        let Some(other) = value.try_downcast_ref::<Self>() else {
            return Err(ApplyError::MismatchedTypes {
                from_type: value.reflect_type_path().into(),
                to_type: Self::type_path().into(),
            });
        };
        self.take_in(other);
        Ok(())
    }

    fn reflect_kind(&self) -> ReflectKind {
        ReflectKind::Opaque
    }

    fn reflect_ref(&self) -> ReflectRef<'_> {
        ReflectRef::Opaque(self)
    }

    fn reflect_mut(&mut self) -> ReflectMut<'_> {
        ReflectMut::Opaque(self)
    }

    fn reflect_owned(self: Box<Self>) -> ReflectOwned {
        ReflectOwned::Opaque(self)
    }

    fn to_dynamic(&self) -> Box<dyn PartialReflect> {
        Box::new(self.clone())
    }

    fn reflect_clone(&self) -> Result<Box<dyn Reflect>, ReflectCloneError> {
        Ok(Box::new(self.clone()))
    }

    fn debug(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

impl Reflect for ContentsState {
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn into_reflect(self: Box<Self>) -> Box<dyn Reflect> {
        self
    }

    fn as_reflect(&self) -> &dyn Reflect {
        self
    }

    fn as_reflect_mut(&mut self) -> &mut dyn Reflect {
        self
    }

    fn set(&mut self, value: Box<dyn Reflect>) -> Result<(), Box<dyn Reflect>> {
        let other = value.take::<Self>()?;
        self.take_in(&other);
        Ok(())
    }
}

impl FromReflect for ContentsState {
    fn from_reflect(value: &dyn PartialReflect) -> Option<Self> {
        value.try_downcast_ref::<Self>().cloned()
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
            pending: Some(Box::new(saved)),
            ..ContentsState::default()
        })
    }
}

#[cfg(test)]
mod layout {
    use std::mem::offset_of;

    use super::ContentsState;

    /// The stamp and the engine's head come first (`#[repr(C)]`): the
    /// persistence reads them for every container a frame changed, and
    /// the adoption's text only when the stamp changed.
    #[test]
    fn the_stamp_and_the_engine_come_first() {
        assert_eq!(offset_of!(ContentsState, adoption_stamp), 0);
        assert!(offset_of!(ContentsState, engine) <= 16);
        assert!(offset_of!(ContentsState, adoption) > offset_of!(ContentsState, engine));
    }
}
