//! Settling in the world (the guide's [`guide::requests`](crate::guide::requests), [`guide::world`](crate::guide::world)): where the items
//! that leave a container, or never enter it, end up. Every rule word maps
//! to a [`Destination`] and one dispatcher, [`Containers::send`], puts the
//! items there. Every fallback ends in a loose pickup and a [`Fallback`],
//! never a lost item.

use bevy::prelude::*;

use super::components::OverflowStore;
use super::containers::Containers;
use super::messages::{Fallback, Settled};
use super::placement::{Ledger, spawn_pickup};
use crate::contents::{Delivered, ForcedOut, ItemType, Props, Reason};
use crate::rules::{LeftoverDestination, WhenForcedOut};

/// Where a rule sends items.
enum Destination<'a> {
    /// A loose pickup beside this entity.
    Beside(Entity),
    /// The named store of `container`; `visited` is the chain so far.
    Store {
        container: Entity,
        visited: &'a mut Vec<Entity>,
    },
    /// Back to whatever offered them to `container`.
    Sender {
        container: Entity,
        sender: Option<Entity>,
    },
    /// Gone, by an explicit `destroyed` rule.
    Destroyed,
}

impl Containers<'_, '_> {
    /// Settles what a delivery to `container` did not take in: refused
    /// intact stays with the sender; a leftover goes where the container's
    /// `leftover-destination` says.
    pub(super) fn settle_delivered(
        &mut self,
        container: Entity,
        sender: Option<Entity>,
        outcome: &Delivered,
        ledger: &mut Ledger,
    ) {
        let (item, props) = (&outcome.item, &outcome.props);
        if let Some(r) = &outcome.refused {
            let to = Destination::Sender { container, sender };
            self.send(to, item, props, r.amount, ledger);
        }
        if let Some(l) = &outcome.leftover {
            let mut visited = vec![container];
            let to = match l.to {
                LeftoverDestination::BackToTheSender => Destination::Sender { container, sender },
                LeftoverDestination::LeftWhereItIs => Destination::Beside(container),
                LeftoverDestination::AnotherStore => Destination::Store {
                    container,
                    visited: &mut visited,
                },
                LeftoverDestination::Destroyed => Destination::Destroyed,
            };
            self.send(to, item, props, l.amount, ledger);
        }
    }

    /// Settles the portions of a forced removal by each row's
    /// `when-forced-out`.
    pub(super) fn settle_forced(
        &mut self,
        container: Entity,
        outcome: &ForcedOut,
        ledger: &mut Ledger,
    ) {
        for p in &outcome.portions {
            let mut visited = vec![container];
            let to = match p.to {
                WhenForcedOut::DroppedNearby => Destination::Beside(container),
                WhenForcedOut::MovedToAnotherStore => Destination::Store {
                    container,
                    visited: &mut visited,
                },
                WhenForcedOut::Destroyed => Destination::Destroyed,
                WhenForcedOut::Never => {
                    // the engine never moves a `never` type; keep it anyway
                    ledger.warnings.push(Fallback::NeverLeft {
                        container,
                        item: p.item.clone(),
                        amount: p.amount,
                    });
                    Destination::Beside(container)
                }
            };
            self.send(to, &p.item, &p.props, p.amount, ledger);
        }
    }

    /// The one dispatcher: puts `amount` of `item` where `to` says.
    fn send(
        &mut self,
        to: Destination,
        item: &ItemType,
        props: &Props,
        amount: u32,
        ledger: &mut Ledger,
    ) {
        if amount == 0 {
            return;
        }
        match to {
            Destination::Beside(at) => self.drop_beside(at, item, props, amount, ledger),
            Destination::Store { container, visited } => {
                self.send_to_store(container, item, props, amount, visited, ledger)
            }
            Destination::Sender { container, sender } => {
                self.back_to_sender(container, sender, item, props, amount, ledger)
            }
            Destination::Destroyed => ledger.settled.push(Settled::Destroyed {
                item: item.clone(),
                props: props.clone(),
                amount,
            }),
        }
    }

    /// Lays `amount` items on the ground beside `at` (at the origin when
    /// `None`), as a leftover left where it is: for items that reach this
    /// world outside a request (mail coming back to a container with no
    /// room for it, or one that is gone).
    #[cfg(feature = "persist")]
    pub(crate) fn drop_on_ground(
        &mut self,
        at: Option<Entity>,
        item: &str,
        props: &Props,
        amount: u32,
    ) {
        match at {
            Some(at) => {
                let mut ledger = Ledger::default();
                self.drop_beside(at, &item.into(), props, amount, &mut ledger);
            }
            None if amount > 0 => {
                spawn_pickup(
                    &mut self.commands,
                    &mut self.placement,
                    Vec3::ZERO,
                    item,
                    props,
                    amount,
                );
            }
            None => {}
        }
    }

    /// Returns items to whatever offered them (the guide's [`guide::world`](crate::guide::world)).
    fn back_to_sender(
        &mut self,
        container: Entity,
        sender: Option<Entity>,
        item: &ItemType,
        props: &Props,
        amount: u32,
        ledger: &mut Ledger,
    ) {
        let Some(s) = sender else {
            ledger.settled.push(Settled::Caller {
                sender: None,
                item: item.clone(),
                props: props.clone(),
                amount,
            });
            return;
        };
        if let Ok((_, mut pk)) = self.pickups.get_mut(s)
            && pk.item == item.as_str()
            && pk.props == *props
        {
            pk.amount = pk.amount.saturating_add(amount);
            ledger.settled.push(Settled::Pickup {
                pickup: s,
                item: item.clone(),
                props: props.clone(),
                amount,
            });
            return;
        }
        if self.contents.contains(s) && s != container {
            let outcome = self
                .with_engine(s, |e| e.deliver_kind(item.as_str(), props, amount))
                .unwrap_or_else(|_| {
                    Delivered::refused(item.clone(), props.clone(), amount, Reason::NotReady)
                });
            if outcome.accepted > 0 {
                ledger.settled.push(Settled::Container {
                    container: s,
                    item: item.clone(),
                    props: props.clone(),
                    amount: outcome.accepted,
                });
            }
            let rest = amount - outcome.accepted;
            if rest > 0 {
                ledger.warnings.push(Fallback::SenderFull {
                    sender: s,
                    item: item.clone(),
                    amount: rest,
                });
                self.drop_beside(s, item, props, rest, ledger);
            }
            return;
        }
        if self.entities.contains(s) && !self.pickups.contains(s) {
            ledger.settled.push(Settled::Caller {
                sender: Some(s),
                item: item.clone(),
                props: props.clone(),
                amount,
            });
            return;
        }
        ledger.warnings.push(Fallback::SenderGone {
            sender: s,
            container,
            item: item.clone(),
            amount,
        });
        self.drop_beside(container, item, props, amount, ledger);
    }

    /// Delivers to `container`'s named store, under the store's rules.
    fn send_to_store(
        &mut self,
        container: Entity,
        item: &ItemType,
        props: &Props,
        amount: u32,
        visited: &mut Vec<Entity>,
        ledger: &mut Ledger,
    ) {
        let store = self
            .contents
            .get(container)
            .ok()
            .and_then(|(_, _, s)| s.copied());
        let origin = visited[0];
        let Some(OverflowStore(store)) = store else {
            ledger.warnings.push(Fallback::NoStore {
                container,
                item: item.clone(),
                amount,
            });
            self.drop_beside(container, item, props, amount, ledger);
            return;
        };
        if visited.contains(&store) {
            ledger.warnings.push(Fallback::StoreLoop {
                store,
                origin,
                item: item.clone(),
                amount,
            });
            self.drop_beside(origin, item, props, amount, ledger);
            return;
        }
        let outcome =
            match self.with_engine(store, |e| e.deliver_kind(item.as_str(), props, amount)) {
                Ok(o) => o,
                Err(why) => {
                    ledger.warnings.push(Fallback::StoreUnavailable {
                        store,
                        container,
                        item: item.clone(),
                        amount,
                        why,
                    });
                    self.drop_beside(container, item, props, amount, ledger);
                    return;
                }
            };
        visited.push(store);
        if outcome.accepted > 0 {
            ledger.settled.push(Settled::Container {
                container: store,
                item: item.clone(),
                props: props.clone(),
                amount: outcome.accepted,
            });
        }
        if let Some(r) = &outcome.refused {
            ledger.warnings.push(Fallback::StoreRefused {
                store,
                container,
                item: item.clone(),
                amount: r.amount,
                reason: r.reason,
            });
            self.drop_beside(container, item, props, r.amount, ledger);
        }
        if let Some(l) = &outcome.leftover {
            let to = match l.to {
                LeftoverDestination::AnotherStore => Destination::Store {
                    container: store,
                    visited,
                },
                LeftoverDestination::Destroyed => Destination::Destroyed,
                LeftoverDestination::LeftWhereItIs => Destination::Beside(store),
                LeftoverDestination::BackToTheSender => {
                    // the sender is the container that overflowed
                    ledger.warnings.push(Fallback::StoreSendsBack {
                        store,
                        container,
                        item: item.clone(),
                        amount: l.amount,
                    });
                    Destination::Beside(store)
                }
            };
            self.send(to, item, props, l.amount, ledger);
        }
    }

    /// Spawns a loose pickup beside `at`, from its world position.
    fn drop_beside(
        &mut self,
        at: Entity,
        item: &ItemType,
        props: &Props,
        amount: u32,
        ledger: &mut Ledger,
    ) {
        if amount == 0 {
            return;
        }
        // computed fresh from the parents' transforms; when a parent has
        // none, the last propagated world position
        let base = self
            .transforms
            .compute_global_transform(at)
            .ok()
            .or_else(|| self.globals.get(at).ok().copied())
            .map_or(Vec3::ZERO, |g| g.translation());
        let pickup = spawn_pickup(
            &mut self.commands,
            &mut self.placement,
            base,
            item.as_str(),
            props,
            amount,
        );
        ledger.settled.push(Settled::Pickup {
            pickup,
            item: item.clone(),
            props: props.clone(),
            amount,
        });
    }
}
