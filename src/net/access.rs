//! Who may view, take from and put into a container: checked on the server
//! for every client request, and the filter that keeps a container's
//! contents from clients that may not view it.

use bevy::prelude::*;
use bevy_replicon::prelude::*;

pub use crate::plugin::Permission;

/// Which clients a permission is given to. Clients are the server-side
/// entities replicon spawns for them (`ClientId::Client(entity)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Reflect)]
pub enum Who {
    /// No client: the server alone.
    #[default]
    Nobody,
    /// The container's owner.
    Owner,
    /// The owner and the listed clients.
    OwnerAndListed,
    /// Every client.
    Anyone,
}

/// Who may view, take from and put into a container (feature `replicon`).
///
/// A container replicates to clients only with this component, and only
/// to the clients it lets view; every client request is checked against
/// it on the server, and a refusal names the permission that was missing.
/// A container without it belongs to the server alone.
///
/// It is immutable (replicon re-evaluates visibility when it is inserted):
/// to change who may do what, insert a new one.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::net::{ContainerAccess, Permission, Who};
///
/// let alice = Entity::from_bits(7); // a client entity on the server
/// let bob = Entity::from_bits(8);
/// let backpack = ContainerAccess::private(alice);
/// assert!(backpack.allows(alice, Permission::Take));
/// assert!(!backpack.allows(bob, Permission::View));
///
/// // a shop: everyone looks and buys (takes); only the owner restocks
/// let shop = ContainerAccess { put: Who::Owner, ..ContainerAccess::public(Some(alice)) };
/// assert!(shop.allows(bob, Permission::Take) && !shop.allows(bob, Permission::Put));
/// ```
#[derive(Component, Debug, Clone, PartialEq, Eq, Reflect)]
#[component(immutable)]
#[reflect(Component)]
pub struct ContainerAccess {
    /// The owning client, if any.
    pub owner: Option<Entity>,
    /// Clients given [`Who::OwnerAndListed`] permissions (party members,
    /// a guild).
    pub listed: Vec<Entity>,
    /// Who sees the contents.
    pub view: Who,
    /// Who takes items out.
    pub take: Who,
    /// Who puts items in.
    pub put: Who,
}

impl ContainerAccess {
    /// Only `owner` views, takes and puts (a backpack).
    pub fn private(owner: Entity) -> ContainerAccess {
        ContainerAccess {
            owner: Some(owner),
            listed: Vec::new(),
            view: Who::Owner,
            take: Who::Owner,
            put: Who::Owner,
        }
    }

    /// `owner` and `listed` view, take and put (a party chest).
    pub fn shared(owner: Entity, listed: Vec<Entity>) -> ContainerAccess {
        ContainerAccess {
            owner: Some(owner),
            listed,
            view: Who::OwnerAndListed,
            take: Who::OwnerAndListed,
            put: Who::OwnerAndListed,
        }
    }

    /// Every client views, takes and puts (a chest in the world).
    pub fn public(owner: Option<Entity>) -> ContainerAccess {
        ContainerAccess {
            owner,
            listed: Vec::new(),
            view: Who::Anyone,
            take: Who::Anyone,
            put: Who::Anyone,
        }
    }

    /// No client views, takes or puts: the server's alone (what a container
    /// without this component is, but replicated to nobody).
    pub fn server_only() -> ContainerAccess {
        ContainerAccess {
            owner: None,
            listed: Vec::new(),
            view: Who::Nobody,
            take: Who::Nobody,
            put: Who::Nobody,
        }
    }

    /// Whether `client` has `permission`. Taking or putting also needs
    /// viewing: a client never acts on what it cannot see.
    pub fn allows(&self, client: Entity, permission: Permission) -> bool {
        let given = |who: Who| match who {
            Who::Nobody => false,
            Who::Owner => self.owner == Some(client),
            Who::OwnerAndListed => self.owner == Some(client) || self.listed.contains(&client),
            Who::Anyone => true,
        };
        given(self.view)
            && match permission {
                Permission::View => true,
                Permission::Take => given(self.take),
                Permission::Put => given(self.put),
            }
    }
}

impl VisibilityFilter for ContainerAccess {
    type ClientComponent = AuthorizedClient;
    type Scope = Entity;

    fn is_visible(&self, client: Entity, _: Option<&AuthorizedClient>) -> bool {
        self.allows(client, Permission::View)
    }
}
