//! The [`Containers`] system parameter: engine operations on container
//! entities, answered at once, their items settled by [`super::settle`] and
//! their outcomes reported like the request messages' outcomes.

use std::sync::Arc;

use bevy::ecs::change_detection::Tick;
use bevy::ecs::entity::Entities;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::transform::helper::TransformHelper;

use super::answer::{
    Answered, Touches, delivery_answered, engine_step, one_container, take_answered,
};
use super::components::{ContainerContents, LoosePickup, OverflowStore};
use super::messages::*;
use super::placement::{Ledger, PickupPlacement};
use super::watch::{OutcomeKind, Watched};
use crate::contents::{
    Acceptance, Contents, Delivered, ForcedOut, LoadRefused, Rearranged, TransferRequest,
    Transferred,
};
use crate::decimal::Decimal;
use crate::props::{Kind, Props};
use crate::rules::Rules;
use crate::save::{AdoptionId, SavedContents};

/// Runs container operations right away and settles their items: for game
/// code that needs the answer now ("take 3 wood: did I get them?"). The
/// request messages go through the same code, so both paths obey the same
/// rules. Every operation also writes its outcome message and triggers its
/// outcome event.
///
/// **Order.** A call here is answered when it is made. Request messages
/// wait for [`super::ContainerSystems::Requests`] and are answered there in
/// the order written. So in a system that runs before that set, a call
/// here is answered before every message of the frame, even one written
/// earlier; write messages only (or calls only) when the order between
/// them matters.
///
/// **Reading beside it.** `Containers` holds every `ContainerContents` and
/// `LoosePickup` mutably (it changes them at once), so a system with
/// `Containers` *and* a `Query<&ContainerContents>` or `Query<&LoosePickup>`
/// is refused by Bevy when it first runs (error B0001, a conflicting
/// access). Read through `Containers` instead: [`Containers::get`],
/// [`Containers::iter`], [`Containers::pickup`], [`Containers::pickups`].
/// A system that only reads, and writes [`ContainerRequest`] messages,
/// needs no `Containers` and may query freely; other components of the
/// same entities (`Name`, `Transform`, your own) query as usual.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::{Containers, ContainerRequest, Deliver, LoosePickup};
///
/// #[derive(Component)]
/// struct Player;
///
/// // answered now: read through `Containers`, beside any other query
/// fn tidy(mut containers: Containers, player: Single<Entity, With<Player>>, names: Query<&Name>) {
///     let near: Vec<Entity> = containers.pickups().map(|(e, _)| e).collect();
///     for pickup in near {
///         let _ = containers.pick_up(*player, pickup);
///     }
///     if let Some(bag) = containers.get(*player) {
///         info!("{:?} holds {} berries", names.get(*player).ok(), bag.count("berries"));
///     }
/// }
///
/// // answered in the frame's request set: query freely, write requests
/// fn gift(
///     pickups: Query<&LoosePickup>,
///     player: Single<Entity, With<Player>>,
///     mut requests: MessageWriter<ContainerRequest>,
/// ) {
///     if pickups.is_empty() {
///         requests.write(Deliver::new(*player, "berries", 1).into());
///     }
/// }
/// # let _ = (tidy, gift);
/// ```
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::Containers;
///
/// #[derive(Component)]
/// struct Workbench { bag: Entity }
///
/// fn craft_plank(mut containers: Containers, bench: Single<&Workbench>) {
///     if containers.count(bench.bag, "wood") >= 3 {
///         let taken = containers.take(bench.bag, "wood", 3, None).unwrap();
///         if taken.outcome.taken == 3 {
///             containers.deliver(bench.bag, "plank", 1, None).unwrap();
///         }
///     }
/// }
/// # let _ = craft_plank;
/// ```
#[derive(SystemParam)]
pub struct Containers<'w, 's> {
    pub(super) contents: Query<
        'w,
        's,
        (
            Entity,
            &'static mut ContainerContents,
            Option<&'static OverflowStore>,
        ),
    >,
    pub(super) pickups:
        Query<'w, 's, (Entity, &'static mut LoosePickup), Without<ContainerContents>>,
    pub(super) entities: &'w Entities,
    pub(super) transforms: TransformHelper<'w, 's>,
    pub(super) globals: Query<'w, 's, &'static GlobalTransform>,
    pub(super) placement: ResMut<'w, PickupPlacement>,
    pub(super) commands: Commands<'w, 's>,
    watched: Res<'w, Watched>,
    delivered: MessageWriter<'w, ItemsDelivered>,
    taken: MessageWriter<'w, ItemsTaken>,
    transferred: MessageWriter<'w, ItemsTransferred>,
    forced: MessageWriter<'w, ItemsForcedOut>,
    rearranged: MessageWriter<'w, ContainerRearranged>,
    props_changed: MessageWriter<'w, PropsChanged>,
    unanswered: MessageWriter<'w, RequestUnanswered>,
}

/// Why a save did not load into a container.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The container cannot take requests.
    #[error(transparent)]
    NotAnswered(#[from] NotAnswered),
    /// The container holds items; a load would replace them.
    #[error(
        "container {0} holds items and a load would replace them; load into an empty container"
    )]
    NotEmpty(Entity),
    /// The migration to the current rules was refused; nothing was loaded.
    #[error(transparent)]
    Refused(#[from] LoadRefused),
}

impl<'w> Containers<'w, '_> {
    /// The writers of deliveries and takes, when no observer watches
    /// either (their messages may then be written a kind at a time, each
    /// kind in the order written).
    #[cfg(feature = "parallel")]
    pub(super) fn unwatched_writers(
        &mut self,
    ) -> Option<(
        &mut MessageWriter<'w, ItemsDelivered>,
        &mut MessageWriter<'w, ItemsTaken>,
    )> {
        if self.watched.has(OutcomeKind::Delivered) || self.watched.has(OutcomeKind::Taken) {
            return None;
        }
        Some((&mut self.delivered, &mut self.taken))
    }
}

impl Containers<'_, '_> {
    /// `container`'s component, as a `Query<&ContainerContents>` reads it
    /// (`None` when the entity has none). A system with `Containers` reads
    /// contents here: a query of its own would conflict (see the type's
    /// docs).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::plugin::Containers;
    ///
    /// fn show_gold(containers: Containers, player: Single<Entity, With<Name>>) {
    ///     if let Some(purse) = containers.get(*player) {
    ///         info!("{} gold", purse.count("gold"));
    ///     }
    /// }
    /// # let _ = show_gold;
    /// ```
    pub fn get(&self, container: Entity) -> Option<&ContainerContents> {
        self.contents.get(container).ok().map(|(_, c, _)| c)
    }

    /// Every container and its component, as `Query<(Entity,
    /// &ContainerContents)>` iterates them.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::plugin::Containers;
    ///
    /// fn total_berries(containers: Containers) {
    ///     let total: u64 = containers.iter().map(|(_, c)| c.count("berries")).sum();
    ///     info!("{total} berries in the world's containers");
    /// }
    /// # let _ = total_berries;
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (Entity, &ContainerContents)> {
        self.contents.iter().map(|(e, c, _)| (e, c))
    }

    /// The loose pickup `pickup` (`None` when the entity is none, or an
    /// emptied one whose despawn waits for the frame's commands).
    pub fn pickup(&self, pickup: Entity) -> Option<&LoosePickup> {
        self.pickups
            .get(pickup)
            .ok()
            .map(|(_, p)| p)
            .filter(|p| p.amount > 0)
    }

    /// Every loose pickup that holds items, as `Query<(Entity,
    /// &LoosePickup)>` iterates them.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::plugin::Containers;
    ///
    /// fn pick_up_everything(mut containers: Containers, player: Single<Entity, With<Name>>) {
    ///     let lying: Vec<Entity> = containers.pickups().map(|(e, _)| e).collect();
    ///     for pickup in lying {
    ///         let _ = containers.pick_up(*player, pickup);
    ///     }
    /// }
    /// # let _ = pick_up_everything;
    /// ```
    pub fn pickups(&self) -> impl Iterator<Item = (Entity, &LoosePickup)> {
        self.pickups.iter().filter(|(_, p)| p.amount > 0)
    }

    /// How many of `item` `container` holds (0 when it is not a container).
    pub fn count(&self, container: Entity, item: &str) -> u64 {
        self.contents
            .get(container)
            .map_or(0, |(_, c, _)| c.count(item))
    }

    /// The engine of `container`, once loaded.
    pub fn contents(&self, container: Entity) -> Option<&Contents> {
        self.contents
            .get(container)
            .ok()
            .and_then(|(_, c, _)| c.engine())
    }

    /// A dry run of a delivery (or of a drop on the target side of a
    /// transfer) of `amount` of `item` into `container`, by its fill order
    /// or into `slot` (counted from 0), changing nothing: how many would be
    /// accepted, the refusal when it would be one, and what would stop the
    /// items short ([`LimitedBy`](crate::contents::LimitedBy)), so a UI can
    /// say "too heavy" while the player is still dragging. The engine's
    /// [`Contents::would_accept_why`], with the container first; nothing is
    /// written, not even [`RequestUnanswered`].
    ///
    /// Errs when `container` is not a container, or its rules are not
    /// attached (still loading, or its adoption was refused).
    ///
    /// ```
    /// use bevy::ecs::system::RunSystemOnce;
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
    /// // twelve full stacks of 20 berries: the backpack is full
    /// app.world_mut().write_message(ContainerRequest::from(Deliver::new(bag, "berries", 240)));
    /// app.update();
    ///
    /// // the player drags an axe over the backpack: would it go in, and if not, why?
    /// let dry = app
    ///     .world_mut()
    ///     .run_system_once(move |containers: Containers| containers.would_accept_why(bag, "axe", 1, None))
    ///     .unwrap()?;
    /// assert_eq!((dry.accepted, dry.limited_by), (0, Some(LimitedBy::Slots)));
    /// assert_eq!(dry.limited_by.unwrap().to_string(), "no room: every slot it may use is taken");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn would_accept_why(
        &self,
        container: Entity,
        item: &str,
        amount: u32,
        slot: Option<u32>,
    ) -> Result<Acceptance, NotAnswered> {
        let (_, c, _) = self
            .contents
            .get(container)
            .map_err(|_| NotAnswered::NotAContainer(container))?;
        match c.engine() {
            Some(e) => Ok(e.would_accept_why(item, amount, slot)),
            None => Err(c.not_ready(container)),
        }
    }

    /// Runs `op` on `container`'s engine; when the outcome changed
    /// anything, refreshes the mirror (only the slots it names, when it
    /// knows them) and marks the component changed.
    pub(super) fn with_engine<R: Touches>(
        &mut self,
        container: Entity,
        op: impl FnOnce(&mut Contents) -> R,
    ) -> Result<R, NotAnswered> {
        let (_, mut m, _) = self
            .contents
            .get_mut(container)
            .map_err(|_| NotAnswered::NotAContainer(container))?;
        let c = m.bypass_change_detection();
        if c.state.engine.is_none() {
            return Err(c.not_ready(container));
        }
        let Some(engine) = c.state.engine.as_mut() else {
            return Err(NotAnswered::NotReady(container));
        };
        let r = op(engine);
        if let Some((mirror, e)) = c.parts()
            && r.refresh_if_changed(mirror, e)
        {
            m.set_changed();
        }
        Ok(r)
    }

    /// [`Self::with_engine`], reporting a request that does not reach the
    /// engine as [`RequestUnanswered`].
    fn answered<R: Touches>(
        &mut self,
        container: Entity,
        op: impl FnOnce(&mut Contents) -> R,
    ) -> Result<R, NotAnswered> {
        self.with_engine(container, op)
            .inspect_err(|why| self.unanswered(container, why))
    }

    pub(super) fn unanswered(&mut self, container: Entity, why: &NotAnswered) {
        warn!("{why}");
        let event = RequestUnanswered {
            container,
            reason: why.clone(),
        };
        if self.entities.contains(container) && self.watched.has(OutcomeKind::Unanswered) {
            self.commands.trigger(event.clone());
        }
        self.unanswered.write(event);
    }

    /// Delivers `amount` of `item` to `container` and settles what does not
    /// enter. See [`super::Deliver`].
    pub fn deliver(
        &mut self,
        container: Entity,
        item: &str,
        amount: u32,
        sender: Option<Entity>,
    ) -> Result<ItemsDelivered, NotAnswered> {
        self.deliver_kind(container, item, &Props::EMPTY, amount, sender)
    }

    /// Delivers `amount` items of one kind (`item` carrying `props`) to
    /// `container` and settles what does not enter.
    pub fn deliver_kind(
        &mut self,
        container: Entity,
        item: &str,
        props: &Props,
        amount: u32,
        sender: Option<Entity>,
    ) -> Result<ItemsDelivered, NotAnswered> {
        let msg = self.settle_delivery(container, item, props, amount, sender)?;
        self.emit_delivered(msg.clone());
        Ok(msg)
    }

    /// Answers one request message, writing its outcome message only (no
    /// copy for a caller).
    pub(crate) fn answer(&mut self, r: &ContainerRequest) {
        match r {
            ContainerRequest::Deliver(d) if d.sender.is_some() => {
                // the sender may be a pickup the items leave first
                if let Ok(msg) =
                    self.settle_delivery(d.container, d.item.as_str(), &d.props, d.amount, d.sender)
                {
                    self.emit_delivered(msg);
                }
            }
            ContainerRequest::PickUp(p) => drop(self.pick_up(p.container, p.pickup)),
            ContainerRequest::Transfer(t) if t.from != t.to => {
                drop(self.transfer(t.from, t.to, &t.request))
            }
            // the two common requests, their messages built where they are
            // written (no copy through `Answered`)
            ContainerRequest::Deliver(d) => self.answer_delivery(d),
            ContainerRequest::Take(t) => self.answer_take(t),
            _ => {
                let container = one_container(r);
                if let Ok(answered) = self.answered(container, |e| engine_step(r, e)) {
                    self.report(answered);
                }
            }
        }
    }

    /// Answers a delivery with no sender. Its message goes straight into
    /// the queue when it leaves nothing to settle and no observer watches
    /// deliveries (no copy through a `Result` and two calls: `memcpy` of
    /// those 144 bytes was about a sixth of the system's time in a frame
    /// of backpack requests).
    ///
    /// This and [`Self::answer_take`] find the engine and refresh the
    /// mirror in the same words, and write the message themselves when
    /// [`Self::report_delivered`] or [`Self::emit_taken`] would do nothing
    /// else, on purpose: a shared helper returning the message (in an
    /// `Option`), a macro and a callback all measured 8-20% slower on a
    /// serial frame of 100,000 backpack requests, and so did handing every
    /// message to `report_delivered` and `emit_taken` (inlined or not),
    /// in alternating runs.
    #[inline]
    fn answer_delivery(&mut self, d: &Deliver) {
        let Ok((_, mut m, _)) = self.contents.get_mut(d.container) else {
            return self.not_answered(d.container);
        };
        let c = m.bypass_change_detection();
        let Some(engine) = c.state.engine.as_mut() else {
            return self.not_answered(d.container);
        };
        let msg = delivery_answered(d, engine);
        if let Some((mirror, e)) = c.parts()
            && msg.refresh_if_changed(mirror, e)
        {
            m.set_changed();
        }
        if msg.outcome.leaves_items() || self.watched.has(OutcomeKind::Delivered) {
            self.report_delivered(msg);
        } else {
            self.delivered.write(msg);
        }
    }

    /// Answers a take, its message written where it is built (see
    /// [`Self::answer_delivery`]).
    #[inline]
    fn answer_take(&mut self, t: &Take) {
        let Ok((_, mut m, _)) = self.contents.get_mut(t.container) else {
            return self.not_answered(t.container);
        };
        let c = m.bypass_change_detection();
        let Some(engine) = c.state.engine.as_mut() else {
            return self.not_answered(t.container);
        };
        let msg = take_answered(t, engine);
        if let Some((mirror, e)) = c.parts()
            && msg.refresh_if_changed(mirror, e)
        {
            m.set_changed();
        }
        if self.watched.has(OutcomeKind::Taken) {
            self.emit_taken(msg);
        } else {
            self.taken.write(msg);
        }
    }

    /// Reports why a request to `container` did not reach its engine.
    #[cold]
    fn not_answered(&mut self, container: Entity) {
        let why = match self.contents.get(container) {
            Ok((_, c, _)) => c.not_ready(container),
            Err(_) => NotAnswered::NotAContainer(container),
        };
        self.unanswered(container, &why);
    }

    /// Reports a request of one container answered on this thread or
    /// another ([`engine_step`], [`delivery_answered`], [`take_answered`]):
    /// settles what it leaves in the world, then writes (and triggers) its
    /// outcome message.
    #[inline]
    pub(super) fn report(&mut self, answered: Answered) {
        match answered {
            Answered::Delivered(msg) => self.report_delivered(msg),
            Answered::Taken(msg) => self.emit_taken(msg),
            Answered::Transferred(msg) => self.emit_transferred(msg),
            Answered::Rearranged(msg) => self.emit_rearranged(msg),
            Answered::ForcedOut(msg) => self.settle_and_emit_forced(*msg),
            Answered::PropsChanged(msg) => self.emit_props_changed(msg),
        }
    }

    /// Settles what a delivery leaves in the world (a refusal, a
    /// leftover), then writes (and triggers) its message.
    #[inline]
    fn report_delivered(&mut self, mut msg: ItemsDelivered) {
        self.settle_delivery_of(&mut msg);
        self.emit_delivered(msg);
    }

    /// Writes a delivery's message, triggering it first when an observer
    /// watches deliveries. [`Self::answer_delivery`] writes a message with
    /// nothing to settle and no observer itself: keep the two in step.
    #[inline]
    fn emit_delivered(&mut self, msg: ItemsDelivered) {
        if self.watched.has(OutcomeKind::Delivered) {
            self.commands.trigger(msg.clone());
        }
        self.delivered.write(msg);
    }

    /// Writes a change of properties' message, triggering it first when an
    /// observer watches them.
    fn emit_props_changed(&mut self, msg: PropsChanged) {
        if self.watched.has(OutcomeKind::PropsChanged) {
            self.commands.trigger(msg.clone());
        }
        self.props_changed.write(msg);
    }

    /// Gives `amount` items (all when `None`) of the stack or holding `at`
    /// of `container` the properties `to`. See [`super::SetProps`]. Returns
    /// the outcome message it wrote.
    pub fn set_props(
        &mut self,
        container: Entity,
        at: crate::contents::PropsAt,
        amount: Option<u32>,
        to: crate::props::Props,
    ) -> Result<PropsChanged, NotAnswered> {
        let outcome = self.answered(container, |e| e.set_props(at, amount, to))?;
        let msg = PropsChanged { container, outcome };
        self.emit_props_changed(msg.clone());
        Ok(msg)
    }

    /// Writes a take's message, triggering it first when an observer
    /// watches takes. [`Self::answer_take`] writes one no observer watches
    /// itself: keep the two in step.
    #[inline]
    fn emit_taken(&mut self, msg: ItemsTaken) {
        if self.watched.has(OutcomeKind::Taken) {
            self.commands.trigger(msg.clone());
        }
        self.taken.write(msg);
    }

    fn settle_delivery(
        &mut self,
        container: Entity,
        item: &str,
        props: &Props,
        amount: u32,
        sender: Option<Entity>,
    ) -> Result<ItemsDelivered, NotAnswered> {
        // Items offered by a pickup leave it now; what is not accepted goes
        // back into it below.
        let mut offered = amount;
        let pickup = sender.filter(|s| self.pickups.contains(*s));
        if let Some(p) = pickup
            && let Ok((_, mut pk)) = self.pickups.get_mut(p)
        {
            if pk.item != item || pk.props != *props {
                let why = NotAnswered::OtherPickupItem {
                    pickup: p,
                    holds: Kind::new(pk.item.as_str(), pk.props.clone()).to_string(),
                    item: Kind::new(item, props.clone()).to_string(),
                };
                self.unanswered(container, &why);
                return Err(why);
            }
            offered = offered.min(pk.amount);
            pk.amount -= offered;
        }
        let outcome = match self.with_engine(container, |e| e.deliver_kind(item, props, offered)) {
            Ok(o) => o,
            Err(why) => {
                if let Some(p) = pickup
                    && let Ok((_, mut pk)) = self.pickups.get_mut(p)
                {
                    pk.amount += offered;
                }
                self.unanswered(container, &why);
                return Err(why);
            }
        };
        Ok(self.report_delivery(container, sender, outcome, pickup))
    }

    /// Settles what a delivery did not take in; a `pickup` that offered
    /// the items and is now empty is despawned.
    fn report_delivery(
        &mut self,
        container: Entity,
        sender: Option<Entity>,
        outcome: Delivered,
        pickup: Option<Entity>,
    ) -> ItemsDelivered {
        let mut msg = ItemsDelivered::unsettled(container, sender, outcome);
        self.settle_delivery_of(&mut msg);
        if let Some(p) = pickup
            && self.pickups.get(p).is_ok_and(|(_, pk)| pk.amount == 0)
        {
            self.commands.entity(p).despawn();
        }
        msg
    }

    /// Settles what the delivery of `msg` did not take in, into its lists.
    fn settle_delivery_of(&mut self, msg: &mut ItemsDelivered) {
        if !msg.outcome.leaves_items() {
            return;
        }
        let mut ledger = Ledger::default();
        self.settle_delivered(msg.container, msg.sender, &msg.outcome, &mut ledger);
        msg.settled = ledger.settled;
        msg.warnings = ledger.warnings;
    }

    /// Picks up a loose pickup into `container`.
    pub fn pick_up(
        &mut self,
        container: Entity,
        pickup: Entity,
    ) -> Result<ItemsDelivered, NotAnswered> {
        // a pickup emptied earlier in this frame is despawned with the
        // frame's commands: it is no pickup any more
        let Some((_, pk)) = self
            .pickups
            .get(pickup)
            .ok()
            .filter(|(_, pk)| pk.amount > 0)
        else {
            let why = NotAnswered::NotAPickup(pickup);
            self.unanswered(container, &why);
            return Err(why);
        };
        let (item, props, amount) = (pk.item.clone(), pk.props.clone(), pk.amount);
        self.deliver_kind(container, &item, &props, amount, Some(pickup))
    }

    /// Takes up to `amount` of `item` (from `slot` when given); the taken
    /// items are the caller's. Returns the outcome message it wrote, as
    /// [`Self::deliver`] does: `taken.outcome.taken` is how many.
    pub fn take(
        &mut self,
        container: Entity,
        item: &str,
        amount: u32,
        slot: Option<u32>,
    ) -> Result<ItemsTaken, NotAnswered> {
        self.take_kind(container, item, None, amount, slot)
    }

    /// Takes up to `amount` of `item`: with `props`, only items of that
    /// kind; without, any kind of the type in the draw order.
    pub fn take_kind(
        &mut self,
        container: Entity,
        item: &str,
        props: Option<&Props>,
        amount: u32,
        slot: Option<u32>,
    ) -> Result<ItemsTaken, NotAnswered> {
        let outcome = self.answered(container, |e| e.take_kind(item, props, amount, slot))?;
        let msg = ItemsTaken { container, outcome };
        self.emit_taken(msg.clone());
        Ok(msg)
    }

    /// Transfers items from `from` to `to` as one request (spec section
    /// 11); `from == to` is a move within one container. See
    /// [`super::Transfer`].
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::contents::TransferRequest;
    /// use bevy_container::plugin::Containers;
    ///
    /// #[derive(Component)]
    /// struct Loot { chest: Entity, bag: Entity }
    ///
    /// // drag the chest's first stack onto the bag's third slot
    /// fn drag(mut containers: Containers, loot: Single<&Loot>) {
    ///     let moved = containers.transfer(loot.chest, loot.bag, &TransferRequest::from_slot(0, 5).to_slot(2));
    ///     if let Ok(t) = moved {
    ///         info!("{t}"); // "container 3v1 to container 4v1: moved 5 of 5 arrow", or why not
    ///     }
    /// }
    /// # let _ = drag;
    /// ```
    pub fn transfer(
        &mut self,
        from: Entity,
        to: Entity,
        request: &TransferRequest,
    ) -> Result<ItemsTransferred, NotAnswered> {
        let outcome = if from == to {
            self.with_engine(from, |e| e.transfer_within(request))
        } else {
            self.transfer_between(from, to, request)
        };
        let outcome = outcome.inspect_err(|why| {
            let at = match why {
                NotAnswered::NotAContainer(e) | NotAnswered::NotReady(e) => *e,
                NotAnswered::AdoptionRefused { container, .. } => *container,
                _ => from,
            };
            self.unanswered(at, why)
        })?;
        let msg = ItemsTransferred {
            container: from,
            from,
            to,
            outcome,
        };
        self.emit_transferred(msg.clone());
        Ok(msg)
    }

    /// Reports a transfer, as an event on both containers.
    #[inline]
    fn emit_transferred(&mut self, msg: ItemsTransferred) {
        let (from, to) = (msg.from, msg.to);
        if self.watched.has(OutcomeKind::Transferred) {
            self.commands.trigger(msg.clone());
            if from != to {
                self.commands.trigger(ItemsTransferred {
                    container: to,
                    ..msg.clone()
                });
            }
        }
        self.transferred.write(msg);
    }

    fn transfer_between(
        &mut self,
        from: Entity,
        to: Entity,
        request: &TransferRequest,
    ) -> Result<Transferred, NotAnswered> {
        for e in [from, to] {
            match self.contents.get(e) {
                Err(_) => return Err(NotAnswered::NotAContainer(e)),
                Ok((_, c, _)) if !c.is_ready() => return Err(c.not_ready(e)),
                Ok(_) => {}
            }
        }
        let Ok([(_, mut a, _), (_, mut b, _)]) = self.contents.get_many_mut([from, to]) else {
            return Err(NotAnswered::NotAContainer(from));
        };
        let (ca, cb) = (a.bypass_change_detection(), b.bypass_change_detection());
        let (Some(source), Some(target)) = (ca.state.engine.as_mut(), cb.state.engine.as_mut())
        else {
            return Err(NotAnswered::NotReady(from));
        };
        let outcome = source.transfer(target, request);
        if outcome.moved > 0 {
            if let Some((m, e)) = ca.parts() {
                outcome.refresh_side(m, e, &outcome.from);
            }
            if let Some((m, e)) = cb.parts() {
                outcome.refresh_side(m, e, &outcome.landed);
            }
            a.set_changed();
            b.set_changed();
        }
        Ok(outcome)
    }

    /// Changes `container`'s capacity; forced-out items are settled.
    /// Returns the outcome message it wrote, with where they went
    /// (`settled`).
    pub fn resize(
        &mut self,
        container: Entity,
        slot_count: Option<u32>,
        size_budget: Option<Decimal>,
    ) -> Result<ItemsForcedOut, NotAnswered> {
        self.force(container, |e| e.resize(slot_count, size_budget))
    }

    /// Empties `container` because its owner is gone. Returns the outcome
    /// message it wrote.
    pub fn owner_gone(&mut self, container: Entity) -> Result<ItemsForcedOut, NotAnswered> {
        self.force(container, Contents::owner_gone)
    }

    /// Puts new rules in force on `container` (reload, tuning). Returns
    /// the outcome message it wrote.
    pub fn change_rules(
        &mut self,
        container: Entity,
        rules: Arc<Rules>,
    ) -> Result<ItemsForcedOut, NotAnswered> {
        self.force(container, |e| e.change_rules(rules))
    }

    /// Puts new slot rules in force on a `by-slot` container. Returns the
    /// outcome message it wrote.
    pub fn change_slot_rules(
        &mut self,
        container: Entity,
        slot_rules: crate::contents::SlotRules,
    ) -> Result<ItemsForcedOut, NotAnswered> {
        self.force(container, |e| e.change_slot_rules(slot_rules))
    }

    fn force(
        &mut self,
        container: Entity,
        op: impl FnOnce(&mut Contents) -> ForcedOut,
    ) -> Result<ItemsForcedOut, NotAnswered> {
        let outcome = self.answered(container, op)?;
        let mut msg = ItemsForcedOut::unsettled(container, outcome);
        self.settle_forced_of(&mut msg);
        self.emit_forced(msg.clone());
        Ok(msg)
    }

    /// Settles the portions of a forced removal and reports it.
    pub(super) fn report_forced(&mut self, container: Entity, outcome: &ForcedOut) {
        self.settle_and_emit_forced(ItemsForcedOut::unsettled(container, outcome.clone()));
    }

    fn settle_and_emit_forced(&mut self, mut msg: ItemsForcedOut) {
        self.settle_forced_of(&mut msg);
        self.emit_forced(msg);
    }

    /// Settles the portions of the forced removal of `msg`, into its lists.
    fn settle_forced_of(&mut self, msg: &mut ItemsForcedOut) {
        let mut ledger = Ledger::default();
        self.settle_forced(msg.container, &msg.outcome, &mut ledger);
        if let Some(short) = &msg.outcome.refused {
            info!(
                "container {}: forced removal refused, {short} cannot leave",
                msg.container
            );
        }
        msg.settled = ledger.settled;
        msg.warnings = ledger.warnings;
    }

    /// Writes a forced removal's message, triggering it first when an
    /// observer watches them.
    fn emit_forced(&mut self, msg: ItemsForcedOut) {
        if self.watched.has(OutcomeKind::ForcedOut) {
            self.commands.trigger(msg.clone());
        }
        self.forced.write(msg);
    }

    /// Saves `container`'s contents with the adoption in force.
    pub fn save(&self, container: Entity) -> Result<SavedContents, NotAnswered> {
        let (_, c, _) = self
            .contents
            .get(container)
            .map_err(|_| NotAnswered::NotAContainer(container))?;
        match (c.engine(), c.adoption()) {
            (Some(e), Some(id)) => Ok(e.save(id)),
            _ => Err(c.not_ready(container)),
        }
    }

    /// Loads a save into `container`, which must be empty (a load never
    /// replaces items). Under a changed adoption the items its rules no
    /// longer hold leave by their forced-out rules and are settled like any
    /// forced removal ([`ItemsForcedOut`] with cause `loaded`), and the
    /// message it wrote is returned, with where they went (`settled`), as
    /// [`Self::resize`] does. A load from which nothing had to leave sends
    /// no `ItemsForcedOut` and returns one with no portions. A refused
    /// migration loads nothing.
    pub fn load(
        &mut self,
        container: Entity,
        save: &SavedContents,
    ) -> Result<ItemsForcedOut, LoadError> {
        let (_, c, _) = self
            .contents
            .get(container)
            .map_err(|_| NotAnswered::NotAContainer(container))?;
        let (Some(engine), Some(id)) = (c.engine(), c.adoption()) else {
            return Err(c.not_ready(container).into());
        };
        if !engine.is_empty() {
            return Err(LoadError::NotEmpty(container));
        }
        let loaded = Contents::load(
            engine.rules().clone(),
            engine.slot_rules().cloned(),
            save,
            id,
        )?;
        if let Ok((_, mut c, _)) = self.contents.get_mut(container) {
            c.state.engine = Some(loaded.contents);
            c.refresh();
        }
        let mut msg = ItemsForcedOut::unsettled(container, loaded.migrated);
        if !msg.outcome.portions.is_empty() {
            self.settle_forced_of(&mut msg);
            self.emit_forced(msg.clone());
        }
        Ok(msg)
    }

    /// The adoption `container`'s rules came from, once attached.
    pub(crate) fn adoption(&self, container: Entity) -> Option<&AdoptionId> {
        self.contents
            .get(container)
            .ok()
            .and_then(|(_, c, _)| c.adoption())
    }

    /// Puts `rules`, from the adoption `id`, in force on `container` (a
    /// reloaded file, or another file swapped in): a forced removal when
    /// the rules differ. Whether the container now runs under `id` (not
    /// when it has no engine yet, or the forced removal was refused).
    pub(crate) fn adopt(&mut self, container: Entity, rules: Arc<Rules>, id: AdoptionId) -> bool {
        let Some(engine) = self.contents(container) else {
            return false;
        };
        let adopted = **engine.rules() == *rules
            || self
                .change_rules(container, rules)
                .is_ok_and(|out| out.outcome.refused.is_none());
        if adopted && let Ok((_, mut c, _)) = self.contents.get_mut(container) {
            c.bypass_change_detection().state.set_adoption(id);
        }
        adopted
    }

    /// When `container`'s contents last changed, without marking them.
    pub(crate) fn contents_changed_at(&mut self, container: Entity) -> Option<Tick> {
        self.contents
            .get_mut(container)
            .ok()
            .map(|(_, c, _)| c.last_changed())
    }

    /// Marks `container`'s contents changed: its adoption changed though no
    /// item may have moved, and a save (the persistence's row) must name
    /// the new one.
    pub(crate) fn mark_changed(&mut self, container: Entity) {
        if let Ok((_, mut c, _)) = self.contents.get_mut(container) {
            c.set_changed();
        }
    }

    /// Sorts `container`. Returns the outcome message it wrote.
    pub fn sort(
        &mut self,
        container: Entity,
        order: &[&str],
    ) -> Result<ContainerRearranged, NotAnswered> {
        self.rearrange(container, |e| e.sort(order))
    }

    /// Moves items between two slots of `container`. Returns the outcome
    /// message it wrote.
    pub fn move_items(
        &mut self,
        container: Entity,
        from: u32,
        to: u32,
        amount: Option<u32>,
    ) -> Result<ContainerRearranged, NotAnswered> {
        self.rearrange(container, |e| e.move_items(from, to, amount))
    }

    fn rearrange(
        &mut self,
        container: Entity,
        op: impl FnOnce(&mut Contents) -> Rearranged,
    ) -> Result<ContainerRearranged, NotAnswered> {
        let outcome = self.answered(container, op)?;
        let msg = ContainerRearranged { container, outcome };
        self.emit_rearranged(msg.clone());
        Ok(msg)
    }

    #[inline]
    fn emit_rearranged(&mut self, msg: ContainerRearranged) {
        if self.watched.has(OutcomeKind::Rearranged) {
            self.commands.trigger(msg.clone());
        }
        self.rearranged.write(msg);
    }
}
