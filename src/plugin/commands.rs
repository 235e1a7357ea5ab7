//! Writing requests from `Commands`: [`ContainerCommandsExt`] on
//! `EntityCommands`.

use bevy::prelude::*;

use super::messages::{ContainerRequest, Deliver, MoveItems, Take, Transfer};
use crate::contents::{ItemType, TransferRequest};

/// Requests to a container, written from its `EntityCommands`. Each writes
/// a [`ContainerRequest`] when the commands are applied, so it joins the
/// frame's requests at that point: a system that runs before
/// [`super::ContainerSystems::Requests`] gets its requests answered in the
/// same frame, in the order its commands were written.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::ContainerCommandsExt;
///
/// fn loot(mut commands: Commands, chest: Entity, bag: Entity) {
///     commands.entity(chest).deliver_items("gold", 30);
///     commands.entity(chest).transfer_items_to(bag, "gold", 10);
/// }
/// # let _ = loot;
/// ```
pub trait ContainerCommandsExt {
    /// Delivers `amount` of `item` to this container (no sender).
    fn deliver_items(&mut self, item: impl Into<ItemType>, amount: u32) -> &mut Self;
    /// Takes up to `amount` of `item` from this container by its draw order.
    fn take_items(&mut self, item: impl Into<ItemType>, amount: u32) -> &mut Self;
    /// Transfers up to `amount` of `item` from this container to `to`, by
    /// the draw order here and the fill order there.
    fn transfer_items_to(
        &mut self,
        to: Entity,
        item: impl Into<ItemType>,
        amount: u32,
    ) -> &mut Self;
    /// Transfers from this container to `to` as `request` says (slots,
    /// swap).
    fn transfer_to(&mut self, to: Entity, request: TransferRequest) -> &mut Self;
    /// Moves items between two slots of this container.
    fn move_slot_items(&mut self, from: u32, to: u32, amount: Option<u32>) -> &mut Self;
    /// Writes any request (its container is whatever it names).
    fn container_request(&mut self, request: impl Into<ContainerRequest>) -> &mut Self;
}

impl ContainerCommandsExt for EntityCommands<'_> {
    fn deliver_items(&mut self, item: impl Into<ItemType>, amount: u32) -> &mut Self {
        let r = Deliver::new(self.id(), item, amount);
        self.container_request(r)
    }

    fn take_items(&mut self, item: impl Into<ItemType>, amount: u32) -> &mut Self {
        let r = Take::new(self.id(), item, amount);
        self.container_request(r)
    }

    fn transfer_items_to(
        &mut self,
        to: Entity,
        item: impl Into<ItemType>,
        amount: u32,
    ) -> &mut Self {
        self.transfer_to(to, TransferRequest::item(item, amount))
    }

    fn transfer_to(&mut self, to: Entity, request: TransferRequest) -> &mut Self {
        let r = Transfer {
            from: self.id(),
            to,
            request,
        };
        self.container_request(r)
    }

    fn move_slot_items(&mut self, from: u32, to: u32, amount: Option<u32>) -> &mut Self {
        let r = MoveItems {
            container: self.id(),
            from,
            to,
            amount,
        };
        self.container_request(r)
    }

    fn container_request(&mut self, request: impl Into<ContainerRequest>) -> &mut Self {
        self.commands().write_message(request.into());
        self
    }
}
