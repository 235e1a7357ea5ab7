//! Requests: imperatives, one [`ContainerRequest`] message each, so the
//! requests of a frame are answered in the order they were written,
//! whatever their kind (the guide's [`guide::world`](crate::guide::world)).
//! Their outcomes are in [`super::messages`].

use bevy::prelude::*;

use crate::contents::{ItemType, PropsAt, TransferRequest};
use crate::decimal::Decimal;
use crate::props::Props;

/// One request to the plugin. Write it with a `MessageWriter`, from
/// `Commands` (`commands.write_message(...)`), or with
/// [`super::ContainerCommandsExt`]; the typed requests convert into it.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::{ContainerRequest, Deliver, Take};
///
/// fn craft(bag: Single<Entity, With<bevy_container::plugin::Container>>, mut requests: MessageWriter<ContainerRequest>) {
///     // answered in this order: the herbs leave before the sword arrives
///     requests.write(Take::new(*bag, "herb", 10).into());
///     requests.write(Deliver::new(*bag, "sword", 1).into());
/// }
/// # let _ = craft;
/// ```
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub enum ContainerRequest {
    /// A delivery.
    Deliver(Deliver),
    /// A loose pickup picked up.
    PickUp(PickUp),
    /// A take.
    Take(Take),
    /// A transfer between two containers.
    Transfer(Transfer),
    /// A move between two slots of one container.
    Move(MoveItems),
    /// A sort.
    Sort(Sort),
    /// A capacity change.
    Resize(Resize),
    /// The owner is gone.
    EmptyForGoneOwner(EmptyForGoneOwner),
    /// A change of items' properties.
    SetProps(SetProps),
}

impl ContainerRequest {
    /// The container the request is about (a transfer's source), where its
    /// refusal ([`super::RequestUnanswered`]) is reported.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::plugin::{ContainerRequest, Take};
    ///
    /// let pouch = Entity::from_bits(3);
    /// assert_eq!(ContainerRequest::from(Take::new(pouch, "herb", 2)).container(), pouch);
    /// ```
    pub fn container(&self) -> Entity {
        match self {
            ContainerRequest::Deliver(r) => r.container,
            ContainerRequest::PickUp(r) => r.container,
            ContainerRequest::Take(r) => r.container,
            ContainerRequest::Transfer(r) => r.from,
            ContainerRequest::Move(r) => r.container,
            ContainerRequest::Sort(r) => r.container,
            ContainerRequest::Resize(r) => r.container,
            ContainerRequest::EmptyForGoneOwner(r) => r.container,
            ContainerRequest::SetProps(r) => r.container,
        }
    }
}

macro_rules! into_request {
    ($($t:ident => $v:ident),* $(,)?) => {$(
        impl From<$t> for ContainerRequest {
            fn from(r: $t) -> ContainerRequest {
                ContainerRequest::$v(r)
            }
        }
    )*};
}

into_request!(
    Deliver => Deliver,
    PickUp => PickUp,
    Take => Take,
    Transfer => Transfer,
    MoveItems => Move,
    Sort => Sort,
    Resize => Resize,
    EmptyForGoneOwner => EmptyForGoneOwner,
    SetProps => SetProps,
);

/// Deliver `amount` of `item` to `container`. With a `sender`, leftovers
/// that go back to the sender return to it: a [`super::LoosePickup`] sender
/// gives up only what is accepted, a container sender gets the rest
/// re-delivered.
///
/// `item` is an [`ItemType`]: `"berries".into()` makes one, and a game that
/// keeps the ids of its items clones them into requests without allocating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deliver {
    /// The container.
    pub container: Entity,
    /// The item type.
    pub item: ItemType,
    /// The items' properties (empty for plain items): their kind is
    /// `item` with these.
    pub props: Props,
    /// How many.
    pub amount: u32,
    /// Whatever offered the items.
    pub sender: Option<Entity>,
}

impl Deliver {
    /// A delivery with no sender.
    pub fn new(container: Entity, item: impl Into<ItemType>, amount: u32) -> Deliver {
        Deliver {
            container,
            item: item.into(),
            props: Props::EMPTY,
            amount,
            sender: None,
        }
    }

    /// Delivers items carrying `props` (a sword with its durability).
    pub fn with_props(mut self, props: Props) -> Deliver {
        self.props = props;
        self
    }

    /// Names the sender.
    pub fn from_sender(mut self, sender: Entity) -> Deliver {
        self.sender = Some(sender);
        self
    }
}

/// Pick up a loose pickup into `container`: a delivery of the pickup's
/// items whose sender is the pickup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PickUp {
    /// The container.
    pub container: Entity,
    /// The [`super::LoosePickup`] entity.
    pub pickup: Entity,
}

impl PickUp {
    /// Picks up `pickup` into `container`.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::prelude::*;
    ///
    /// let (bag, berries) = (Entity::from_bits(3), Entity::from_bits(4));
    /// let request = ContainerRequest::from(PickUp::new(bag, berries));
    /// assert_eq!(request.container(), bag);
    /// ```
    pub fn new(container: Entity, pickup: Entity) -> PickUp {
        PickUp { container, pickup }
    }
}

/// Take up to `amount` of `item` from `container`, from `slot` when the
/// player chose one, else by the draw order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Take {
    /// The container.
    pub container: Entity,
    /// The item type.
    pub item: ItemType,
    /// Only items with exactly these properties; `None`: any kind of the
    /// type, in the draw order.
    pub props: Option<Props>,
    /// How many.
    pub amount: u32,
    /// The slot the player chose.
    pub slot: Option<u32>,
}

impl Take {
    /// A take by the draw order.
    pub fn new(container: Entity, item: impl Into<ItemType>, amount: u32) -> Take {
        Take {
            container,
            item: item.into(),
            props: None,
            amount,
            slot: None,
        }
    }

    /// Takes only items with exactly `props` (`Props::EMPTY`: plain ones).
    pub fn with_props(mut self, props: Props) -> Take {
        self.props = Some(props);
        self
    }

    /// Takes from this slot only.
    pub fn from_slot(mut self, slot: u32) -> Take {
        self.slot = Some(slot);
        self
    }
}

/// Move items from one container to another as one request (spec section
/// 11): what the target cannot take stays in `from`; a refused transfer
/// changes neither. `from == to` is a move within one container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer {
    /// The source container.
    pub from: Entity,
    /// The target container.
    pub to: Entity,
    /// What to move and where.
    pub request: TransferRequest,
}

impl Transfer {
    /// Moves what `request` names from `from` to `to`.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::prelude::*;
    ///
    /// let (chest, bag) = (Entity::from_bits(3), Entity::from_bits(4));
    /// // the chest's first stack, dropped on the bag's third slot
    /// let drop = Transfer::new(chest, bag, TransferRequest::from_slot(0, 5).to_slot(2));
    /// assert_eq!(ContainerRequest::from(drop).container(), chest);
    /// ```
    pub fn new(from: Entity, to: Entity, request: TransferRequest) -> Transfer {
        Transfer { from, to, request }
    }
}

/// Change a container's capacity (a torn strap): new slot count and/or size
/// budget. May force items out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resize {
    /// The container.
    pub container: Entity,
    /// New slot count.
    pub slot_count: Option<u32>,
    /// New size budget.
    pub size_budget: Option<Decimal>,
}

impl Resize {
    /// Gives `container` a new slot count and/or size budget (`None`
    /// keeps the one in force), as
    /// [`Containers::resize`](super::Containers::resize) takes them.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::prelude::*;
    ///
    /// let bag = Entity::from_bits(3);
    /// // the strap tears: 12 slots become 5
    /// let torn = Resize::new(bag, Some(5), None);
    /// // the deck's budget shrinks to 10 points
    /// let smaller = Resize::new(bag, None, Some(Decimal::from_units(10)));
    /// assert_eq!((torn.slot_count, smaller.size_budget), (Some(5), Some(Decimal::from_units(10))));
    /// ```
    pub fn new(container: Entity, slot_count: Option<u32>, size_budget: Option<Decimal>) -> Resize {
        Resize {
            container,
            slot_count,
            size_budget,
        }
    }
}

/// The container's owner is gone: everything must leave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmptyForGoneOwner {
    /// The container.
    pub container: Entity,
}

impl EmptyForGoneOwner {
    /// Empties `container` by each row's `when-forced-out`, because its
    /// owner is gone (refused, changing nothing, while it holds a type
    /// that never leaves).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::prelude::*;
    ///
    /// let chest = Entity::from_bits(3);
    /// assert_eq!(ContainerRequest::from(EmptyForGoneOwner::new(chest)).container(), chest);
    /// ```
    pub fn new(container: Entity) -> EmptyForGoneOwner {
        EmptyForGoneOwner { container }
    }
}

/// Sort the container: the named types first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sort {
    /// The container.
    pub container: Entity,
    /// Types to put first, in order.
    pub order: Vec<ItemType>,
}

impl Sort {
    /// Sorts `container` with the types of `order` first, in that order
    /// (then the rows' order, then the rest by name).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::prelude::*;
    ///
    /// let bag = Entity::from_bits(3);
    /// let sort = Sort::new(bag, ["letter", "berries"]);
    /// assert_eq!(sort.order, [ItemType::from("letter"), ItemType::from("berries")]);
    /// // no order of its own: the rows' order
    /// assert!(Sort::new(bag, Vec::<ItemType>::new()).order.is_empty());
    /// ```
    pub fn new<I>(container: Entity, order: I) -> Sort
    where
        I: IntoIterator,
        I::Item: Into<ItemType>,
    {
        Sort {
            container,
            order: order.into_iter().map(Into::into).collect(),
        }
    }
}

/// Give items new properties (a sword wears down, a letter is sealed):
/// the whole stack in `at` changes where it is, or `amount` of it moves to
/// where a delivery of the new kind would land, all or nothing. Answered
/// with [`super::PropsChanged`].
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::contents::PropsAt;
/// use bevy_container::plugin::{ContainerRequest, SetProps};
/// use bevy_container::props::Props;
///
/// fn wear(bag: Entity, slot: u32, durability: i32, mut requests: MessageWriter<ContainerRequest>) {
///     if let Ok(to) = Props::new([("durability", durability)]) {
///         requests.write(SetProps::new(bag, PropsAt::Slot(slot), to).into());
///     }
/// }
/// # let _ = wear;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetProps {
    /// The container.
    pub container: Entity,
    /// The stack (or, slotless, the kind) to change.
    pub at: PropsAt,
    /// How many (the whole stack or holding when `None`).
    pub amount: Option<u32>,
    /// The new properties (a whole map; empty clears them).
    pub to: Props,
}

impl SetProps {
    /// Changes the whole stack or holding `at` to `to`.
    pub fn new(container: Entity, at: PropsAt, to: Props) -> SetProps {
        SetProps {
            container,
            at,
            amount: None,
            to,
        }
    }

    /// Changes only `amount` items.
    pub fn amount(mut self, amount: u32) -> SetProps {
        self.amount = Some(amount);
        self
    }
}

/// Move items between two slots of one container (rearranging by hand).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveItems {
    /// The container.
    pub container: Entity,
    /// From this slot.
    pub from: u32,
    /// To this slot.
    pub to: u32,
    /// How many (the whole stack when `None`).
    pub amount: Option<u32>,
}

impl MoveItems {
    /// Moves the whole stack in slot `from` of `container` to slot `to`
    /// (slots count from 0).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::prelude::*;
    ///
    /// let bag = Entity::from_bits(3);
    /// let whole = MoveItems::new(bag, 1, 0);
    /// let part = MoveItems::new(bag, 1, 0).amount(2);
    /// assert_eq!((whole.amount, part.amount), (None, Some(2)));
    /// ```
    pub fn new(container: Entity, from: u32, to: u32) -> MoveItems {
        MoveItems {
            container,
            from,
            to,
            amount: None,
        }
    }

    /// Moves only `amount` items of the stack.
    pub fn amount(mut self, amount: u32) -> MoveItems {
        self.amount = Some(amount);
        self
    }
}
