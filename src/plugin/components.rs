//! The components a game puts on its entities.

use super::status::ContainerStatus;
use bevy::prelude::*;

use super::asset::AdoptionAsset;
use super::state::ContentsState;
use crate::contents::{Acceptance, Contents, ItemType, Reason, SlotRules};
use crate::save::AdoptionId;

/// A container on any entity: attach it with the adoption's handle and the
/// plugin brings its [`ContainerContents`], filled in once the adoption is
/// loaded.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::Container;
///
/// fn spawn_backpack(mut commands: Commands, server: Res<AssetServer>) {
///     commands.spawn((
///         Container::new(server.load("backpack.adoption.json")),
///         Transform::default(),
///     ));
/// }
/// # let _ = spawn_backpack;
/// ```
#[derive(Component, Reflect, Debug, Clone)]
#[reflect(Component)]
#[require(ContainerContents, Transform)]
pub struct Container {
    /// The adoption file that governs it. Swapped for another, that
    /// file's rules are put in force as a reload of the file would (once
    /// it is loaded): what they no longer hold is forced out, reported as
    /// an [`ItemsForcedOut`](super::ItemsForcedOut) with the cause
    /// `RulesChanged`, and a persisted container's row names the new file.
    /// When that forced removal is refused (an item that never leaves has
    /// no room under the new file), the old rules stay, the refusal is the
    /// message's, and the swap is tried again each time the contents
    /// change (a player takes that item out), until it goes through.
    pub adoption: Handle<AdoptionAsset>,
}

impl Container {
    /// A container governed by `adoption`.
    pub fn new(adoption: Handle<AdoptionAsset>) -> Container {
        Container { adoption }
    }

    /// This container holding `saved`, loaded once its adoption is ready:
    /// spawn what it returns. The save loads as [`super::Containers::load`]
    /// loads one (under a changed adoption what the rules no longer hold is
    /// forced out, [`super::ItemsForcedOut`] with cause `loaded`); until
    /// then the container answers no requests and saves as `saved`. A save
    /// that does not load is reported with [`super::ContainerSaveRefused`]
    /// and stays attached, unchanged, so nothing is lost.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::plugin::{Container, ContainerReady};
    /// use bevy_container::save::SavedContents;
    ///
    /// #[derive(Resource)]
    /// struct SavedBackpack(String);
    ///
    /// fn load_game(mut commands: Commands, server: Res<AssetServer>, saved: Res<SavedBackpack>) {
    ///     let Ok(save) = SavedContents::from_json(&saved.0) else {
    ///         warn!("the saved backpack is not a save; it stays on disk as it is");
    ///         return;
    ///     };
    ///     commands
    ///         .spawn(Container::new(server.load("backpack.adoption.json")).with_save(save))
    ///         .observe(|ready: On<ContainerReady>| {
    ///             info!("backpack {} is back", ready.container);
    ///         });
    /// }
    /// # let _ = load_game;
    /// ```
    ///
    /// The guide's chapter [`guide::saves`](crate::guide::saves) runs a whole
    /// save and load.
    pub fn with_save(self, saved: crate::save::SavedContents) -> (Container, ContainerContents) {
        (self, ContainerContents::with_pending(saved))
    }
}

/// What a container holds. The engine state sits inside (empty until the
/// adoption is loaded); read it with [`ContainerContents::engine`], or the
/// mirror with [`ContainerContents::slots`]. Both are read-only: contents
/// change only through requests, so every rule applies. The component is
/// marked changed only when its contents or capacity changed (a refused
/// request leaves it alone), so `Changed<ContainerContents>` is a good
/// trigger for redrawing a UI.
///
/// It is part of the world's reflected state: a world saved with Bevy's
/// `DynamicWorld` (or any reflection-based save) keeps the contents as a
/// [`super::ContentsState`], and loaded into a fresh app they come back
/// once the adoption is loaded. An inspector shows the mirror, the
/// capacity and the size used; editing them changes nothing: the plugin
/// rewrites a mirror edited outside it at the head of its next run, with a
/// warning. A scene written onto a container that holds items never
/// replaces them ([`super::ContainerSaveSetAside`]).
#[derive(Component, Reflect, Debug, Clone, Default)]
#[reflect(Component, Default)]
#[repr(C)]
pub struct ContainerContents {
    /// The engine, its adoption, or a save waiting for them. First: see
    /// [`ContentsState`]'s order.
    pub(crate) state: ContentsState,
    /// The mirror of the contents an inspector shows.
    #[reflect(skip_serializing)]
    mirror: Mirror,
}

/// What an inspector shows of a container: written from the engine after
/// every change, never read back.
#[derive(Reflect, Debug, Clone, Default, PartialEq)]
pub(crate) struct Mirror {
    /// One entry per slot: `None` for empty, or the type and amount. For a
    /// slotless container, one entry per kind held, in kind order. Types
    /// are shared ids (a pointer copy), not a new text per slot.
    slots: Vec<Option<(ItemType, u32)>>,
    /// Each entry's properties (empty for plain items and empty slots),
    /// beside `slots`.
    props: Vec<crate::props::Props>,
    /// The capacity in force, in words (`12 slots`, `7.5 size`).
    capacity: String,
    /// The size held, where there is a budget.
    size_used: String,
}

impl ContainerContents {
    /// The mirror of the contents: one entry per slot (`None` for empty, or
    /// the type and amount), or for a slotless container one entry per type
    /// held, sorted by type. Empty until the adoption is loaded.
    pub fn slots(&self) -> &[Option<(ItemType, u32)>] {
        &self.mirror.slots
    }

    /// The properties of the items in entry `i` of [`Self::slots`] (empty
    /// for plain items and for an empty or missing entry).
    pub fn props(&self, i: usize) -> &crate::props::Props {
        self.mirror
            .props
            .get(i)
            .unwrap_or(const { &crate::props::Props::EMPTY })
    }

    /// How many items of one kind (`item` with exactly `props`) it holds.
    pub fn count_kind(&self, item: &str, props: &crate::props::Props) -> u64 {
        self.state
            .engine
            .as_ref()
            .map_or(0, |e| e.count_kind(item, props))
    }

    /// Whether the rules are attached and requests are answered
    /// ([`super::ContainerReady`] is triggered when this becomes true).
    pub fn is_ready(&self) -> bool {
        self.state.engine.is_some()
    }

    /// Where the container stands: [`ContainerStatus::Waiting`] for its
    /// adoption, [`ContainerStatus::Ready`], or refused with the reason
    /// (its adoption file, or its save). A refused adoption shows here
    /// whether or not the game logs or reads [`super::AdoptionRejected`].
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::plugin::{ContainerContents, ContainerStatus};
    ///
    /// // a game's own check: name every container that will never answer
    /// fn check(containers: Query<(Entity, &ContainerContents)>) {
    ///     for (e, contents) in &containers {
    ///         if let ContainerStatus::AdoptionRefused { reason } = contents.status() {
    ///             error!("container {e} has no rules: {reason}");
    ///         }
    ///     }
    /// }
    /// # let _ = check;
    /// ```
    pub fn status(&self) -> ContainerStatus {
        if self.state.engine.is_some() {
            return ContainerStatus::Ready;
        }
        match self.state.refusal.as_deref() {
            Some(refusal) => refusal.clone(),
            None => ContainerStatus::Waiting,
        }
    }

    /// Why a request to this container, the entity `container`, does not
    /// reach its engine: its adoption was refused, or it is not ready yet.
    /// A refusal is answered with the first line of the status's reason:
    /// the file and where its problems are. Every unanswered request is
    /// logged, and each problem with its fix was reported once already
    /// (`AdoptionRejected`); the status keeps the whole text.
    pub(crate) fn not_ready(&self, container: Entity) -> super::NotAnswered {
        match self.state.refusal.as_deref() {
            Some(ContainerStatus::AdoptionRefused { reason }) => {
                let headline = reason.lines().next().unwrap_or_default();
                super::NotAnswered::AdoptionRefused {
                    container,
                    reason: headline.trim_end_matches(':').to_string(),
                }
            }
            _ => super::NotAnswered::NotReady(container),
        }
    }

    /// The engine, once the adoption is loaded.
    pub fn engine(&self) -> Option<&Contents> {
        self.state.engine.as_ref()
    }

    /// The capacity in force, in words (`12 slots`, `7.5 size`), once the
    /// rules attach.
    pub fn capacity(&self) -> &str {
        &self.mirror.capacity
    }

    /// The engine state as saves see it.
    pub fn state(&self) -> &ContentsState {
        &self.state
    }

    /// The adoption (path and hash) whose rules are in force, once loaded.
    pub fn adoption(&self) -> Option<&AdoptionId> {
        self.state.adoption()
    }

    /// How many of `item` it holds.
    pub fn count(&self, item: &str) -> u64 {
        self.state.engine.as_ref().map_or(0, |e| e.count(item))
    }

    /// A dry run of a delivery (or of a drop on the target side of a
    /// transfer) of `amount` of `item`, by the fill order or into `slot`
    /// (counted from 0), changing nothing: how many would be accepted, the
    /// refusal when it would be one, and what would stop the items short
    /// ([`LimitedBy`](crate::contents::LimitedBy)), so a UI can say "too
    /// heavy" or "that stack is full" while the player is still dragging.
    /// The engine's [`Contents::would_accept_why`], with the same
    /// arguments; before the rules attach, a refusal
    /// [`Reason::NotReady`](crate::contents::Reason::NotReady).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::prelude::*;
    ///
    /// let bytes = std::fs::read("assets/backpack.adoption.json")?;
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()));
    /// let rules = AdoptionAsset::new(Adoption::read_json(&bytes)?);
    /// let rules = app.world_mut().resource_mut::<Assets<AdoptionAsset>>().add(rules);
    /// let bag = app.world_mut().spawn(Container::new(rules)).id();
    /// app.update(); // the rules attach
    /// app.world_mut().write_message(ContainerRequest::from(Deliver::new(bag, "berries", 15)));
    /// app.update();
    ///
    /// let contents = app.world().get::<ContainerContents>(bag).unwrap();
    /// // dropped on the stack of 15 in slot 0: 5 fit, its stack limit stops the rest
    /// let onto = contents.would_accept_why("berries", 8, Some(0));
    /// assert_eq!((onto.accepted, onto.limited_by), (5, Some(LimitedBy::StackLimit)));
    /// assert_eq!(onto.limited_by.unwrap().to_string(), "the stack is full: it is at its stack limit");
    /// // by the fill order all 8 fit
    /// assert_eq!(contents.would_accept_why("berries", 8, None).limited_by, None);
    /// // an axe onto the berries: another kind holds that slot
    /// assert_eq!(contents.would_accept_why("axe", 1, Some(0)).refused, Some(Reason::Occupied));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn would_accept_why(&self, item: &str, amount: u32, slot: Option<u32>) -> Acceptance {
        self.would_accept_kind_why(item, &crate::props::Props::EMPTY, amount, slot)
    }

    /// [`Self::would_accept_why`] for items of one kind (`item` with
    /// `props`): only stacks of that kind take more. The engine's
    /// [`Contents::would_accept_kind_why`].
    pub fn would_accept_kind_why(
        &self,
        item: &str,
        props: &crate::props::Props,
        amount: u32,
        slot: Option<u32>,
    ) -> Acceptance {
        match self.state.engine.as_ref() {
            Some(e) => e.would_accept_kind_why(item, props, amount, slot),
            None => Acceptance {
                accepted: 0,
                refused: Some(Reason::NotReady),
                limited_by: None,
            },
        }
    }

    /// The engine and its mirror, to answer a request and refresh the
    /// mirror after it; `None` when not ready.
    #[cfg(feature = "parallel")]
    pub(crate) fn engine_and_mirror(&mut self) -> Option<(&mut Contents, &mut Mirror)> {
        let e = self.state.engine.as_mut()?;
        Some((e, &mut self.mirror))
    }

    /// The mirror and the engine, to refresh the one from the other.
    pub(crate) fn parts(&mut self) -> Option<(&mut Mirror, &Contents)> {
        let e = self.state.engine.as_ref()?;
        Some((&mut self.mirror, e))
    }

    /// A container whose contents are `save`, loaded once its rules attach.
    pub(crate) fn with_pending(save: crate::save::SavedContents) -> ContainerContents {
        let mut c = ContainerContents::default();
        c.state.pending = Some(Box::new(save));
        c
    }

    /// Drops the engine and waits for the rules to load `save`.
    #[cfg(any(feature = "replicon", feature = "persist"))]
    pub(crate) fn set_pending(&mut self, save: crate::save::SavedContents) {
        self.state.engine = None;
        self.state.pending = Some(Box::new(save));
        self.state.refusal = None;
        self.mirror.slots.clear();
        self.mirror.props.clear();
    }

    /// Replaces the engine with `save` loaded under `rules` (the adoption
    /// `id`); a save that does not load waits as pending.
    #[cfg(any(feature = "replicon", feature = "persist"))]
    pub(crate) fn replace_engine(
        &mut self,
        rules: std::sync::Arc<crate::rules::Rules>,
        slot_rules: Option<&ContainerSlotRules>,
        save: &crate::save::SavedContents,
        id: &AdoptionId,
    ) {
        let slot_rules = slot_rules.map(ContainerSlotRules::to_rules);
        match Contents::load(rules, slot_rules, save, id) {
            Ok(loaded) => {
                self.state.engine = Some(loaded.contents);
                self.state.set_adoption(id.clone());
                self.state.pending = None;
                self.state.refusal = None;
                self.refresh();
            }
            Err(_) => self.set_pending(save.clone()),
        }
    }

    /// Whether the mirror differs from what the engine would write (an
    /// edit from outside the plugin).
    pub(crate) fn mirror_is_stale(&self) -> bool {
        let mut fresh = Mirror::default();
        if let Some(e) = self.state.engine.as_ref() {
            fresh.refresh(e);
        }
        fresh != self.mirror
    }

    pub(crate) fn refresh(&mut self) {
        match self.state.engine.as_ref() {
            Some(e) => self.mirror.refresh(e),
            None => {
                self.mirror.slots.clear();
                self.mirror.props.clear();
            }
        }
    }
}

impl Mirror {
    /// Updates the mirror after a delivery, a take or a transfer of `item`:
    /// only the slots it touched, so a big container's mirror costs nothing
    /// per request. A delivery or a take never changes the kind of a slot
    /// that stays occupied, so an occupied entry only needs its amount: a
    /// slotted container without a size budget whose touched slots stayed
    /// occupied (most requests) is answered here, in the caller's line;
    /// everything else in [`Self::refresh_slots_fully`].
    #[inline]
    pub(crate) fn refresh_slots(
        &mut self,
        e: &Contents,
        item: &str,
        touched: impl IntoIterator<Item = u32> + Clone,
    ) {
        let len = e.slot_len();
        let plain = !e.rules().has_budget()
            && e.rules().has_slots()
            && self.slots.len() == len
            && self.props.len() == len;
        if plain
            && touched.clone().into_iter().all(|s| {
                match (self.slots.get_mut(s as usize), e.stack(s)) {
                    (Some(Some((_, n))), Some(st)) => {
                        *n = st.amount;
                        true
                    }
                    _ => false,
                }
            })
        {
            return;
        }
        self.refresh_slots_fully(e, item, touched);
    }

    /// [`Self::refresh_slots`] for any container and any touched slot: the
    /// size used, a slotless container's entries of `item` (one per kind;
    /// entries are in kind order, so a type's kinds sit together), a slot
    /// count that changed, and slots emptied or newly filled.
    #[inline(never)]
    fn refresh_slots_fully(
        &mut self,
        e: &Contents,
        item: &str,
        touched: impl IntoIterator<Item = u32>,
    ) {
        if e.rules().has_budget() {
            self.size_used = e.size_used().to_string();
        }
        if !e.rules().has_slots() {
            let start = self.slots.partition_point(|x| entry_type(x) < item);
            let end = self.slots.partition_point(|x| entry_type(x) <= item);
            let held: Vec<(&crate::props::Kind, u32)> =
                e.holdings_of(item).map(|(k, st)| (k, st.amount)).collect();
            self.slots.splice(
                start..end,
                held.iter().map(|(k, n)| Some((k.item.clone(), *n))),
            );
            self.props
                .splice(start..end, held.iter().map(|(k, _)| k.props.clone()));
            return;
        }
        let len = e.slot_len();
        self.slots.resize(len, None);
        self.props.resize(len, crate::props::Props::EMPTY);
        for s in touched {
            let (Some(entry), Some(props)) = (
                self.slots.get_mut(s as usize),
                self.props.get_mut(s as usize),
            ) else {
                continue;
            };
            match (entry.as_mut(), e.stack(s)) {
                (Some((_, n)), Some(st)) => *n = st.amount,
                (_, st) => {
                    *entry = st.map(|st| (st.item.clone(), st.amount));
                    *props = st.map(|st| st.props.clone()).unwrap_or_default();
                }
            }
        }
    }

    /// Rewrites the entries (and their properties) from `e`.
    fn refresh_entries(&mut self, e: &Contents) {
        if e.rules().has_slots() {
            self.slots = e
                .slots()
                .map(|s| s.map(|s| (s.item.clone(), s.amount)))
                .collect();
            self.props = e
                .slots()
                .map(|s| s.map(|s| s.props.clone()).unwrap_or_default())
                .collect();
        } else {
            self.slots = e
                .holdings()
                .map(|(k, v)| Some((k.item.clone(), v)))
                .collect();
            self.props = e.holdings().map(|(k, _)| k.props.clone()).collect();
        }
    }

    /// Rewrites the whole mirror from `e`.
    pub(crate) fn refresh(&mut self, e: &Contents) {
        self.capacity = match (e.rules().has_slot_limit(), e.rules().has_budget()) {
            (true, true) => format!(
                "{} slots, {} size",
                e.limits().slot_count,
                e.limits().size_budget
            ),
            (true, false) => format!("{} slots", e.limits().slot_count),
            (false, true) => format!("{} size", e.limits().size_budget),
            (false, false) => "no limit".to_string(),
        };
        self.size_used = if e.rules().has_budget() {
            e.size_used().to_string()
        } else {
            String::new()
        };
        self.refresh_entries(e);
    }
}

/// The type an entry of the mirror holds (`""` for an empty slot).
fn entry_type(entry: &Option<(ItemType, u32)>) -> &str {
    entry.as_ref().map_or("", |(k, _)| k.as_str())
}

/// The store the game names for this container's `another-store` leftovers
/// and `moved-to-another-store` forced removals. A Bevy relationship: the
/// store lists the containers that send to it in [`OverflowSources`], and
/// the link is remapped when a scene is loaded. Pointing a container at
/// itself is refused (Bevy warns and removes the link).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::{OverflowSources, OverflowStore};
///
/// let mut world = World::new();
/// let stash = world.spawn_empty().id();
/// let bag = world.spawn(OverflowStore(stash)).id();
/// assert_eq!(world.get::<OverflowSources>(stash).unwrap().iter().collect::<Vec<_>>(), [bag]);
/// ```
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq, Eq)]
#[reflect(Component)]
#[relationship(relationship_target = OverflowSources)]
pub struct OverflowStore(pub Entity);

/// On a store: the containers whose overflow it receives (kept by Bevy from
/// their [`OverflowStore`]s).
#[derive(Component, Reflect, Debug, Default)]
#[reflect(Component)]
#[relationship_target(relationship = OverflowStore)]
pub struct OverflowSources(Vec<Entity>);

/// What happens to a container's items when its entity is despawned.
/// Despawning cannot be refused, so either way nothing vanishes silently.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Component)]
pub enum DespawnPolicy {
    /// Its items fall out as loose pickups where it was
    /// ([`super::ContainerSpilled`]), with a warning to send
    /// [`super::EmptyForGoneOwner`] first next time.
    #[default]
    Spill,
    /// Its items leave the world with it, listed in
    /// [`super::ContainerLeftWorld`]: for unloading a level whose chests
    /// are saved elsewhere.
    LeaveWithContents,
}

/// Under `by-slot`: the types each slot accepts, as the game's prose (the
/// rows' `slot-rules-declared-in` citation) lists them.
#[derive(Component, Reflect, Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "replicon", derive(serde::Serialize, serde::Deserialize))]
#[reflect(Component)]
pub struct ContainerSlotRules(pub Vec<Vec<String>>);

impl ContainerSlotRules {
    pub(crate) fn to_rules(&self) -> SlotRules {
        SlotRules::new(self.0.clone())
    }
}

/// Items lying in the world. Picking it up is a delivery whose sender is
/// this entity.
#[derive(Component, Reflect, Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "replicon", derive(serde::Serialize, serde::Deserialize))]
#[reflect(Component)]
#[require(Transform)]
pub struct LoosePickup {
    /// The item type.
    pub item: String,
    /// How many.
    pub amount: u32,
    /// The items' properties: a pickup holds one kind (a scene saved
    /// before properties reads as plain).
    #[reflect(default)]
    #[cfg_attr(feature = "replicon", serde(default))]
    pub props: crate::props::Props,
}

#[cfg(test)]
mod layout {
    use super::ContainerContents;

    /// The state comes first (`#[repr(C)]`), so its stamp and its engine's
    /// head start the component: the persistence reads them for every
    /// container a frame changed.
    #[test]
    fn the_state_comes_first() {
        assert_eq!(std::mem::offset_of!(ContainerContents, state), 0);
    }
}
