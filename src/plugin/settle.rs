//! Settling in the world (the guide's [`guide::requests`](crate::guide::requests), [`guide::world`](crate::guide::world)): where the items
//! that leave a container, or never enter it, end up. Every rule word maps
//! to a [`Destination`] and one dispatcher, [`Containers::send`], puts the
//! items there. Every fallback ends in a loose pickup and a [`Fallback`],
//! never a lost item.

use bevy::prelude::*;

use super::components::{LoosePickup, OverflowStore};
use super::containers::Containers;
use super::messages::{Fallback, Settled};
use crate::contents::{Delivered, ForcedOut, ItemType, Props, Reason};
use crate::rules::{LeftoverDestination, WhenForcedOut};

/// Where loose pickups go around the container they leave, in world space
/// from the container's world position (its `GlobalTransform`, computed
/// fresh, so a backpack parented to a moving player drops beside the
/// player). Each pickup takes the next offset of the list, so pickups
/// dropped together do not hide each other.
///
/// The default is a row along the X axis, one unit apart (right, left,
/// further right, ...), which lies flat in both 2D (XY) and 3D (XZ)
/// worlds; pick the spacing for your units, or a ring:
///
/// ```
/// use bevy::prelude::*;
/// use bevy_container::plugin::PickupPlacement;
///
/// let mut pixels = PickupPlacement::ring_2d(48.0); // a sprite game
/// assert_eq!(pixels.next_offset(), Vec3::new(48.0, 0.0, 0.0));
/// let mut metres = PickupPlacement::ring_3d(0.75); // a 3D game: on the ground plane
/// assert_eq!(metres.next_offset().y, 0.0);
/// let mut row = PickupPlacement::default();
/// assert_eq!((row.next_offset(), row.next_offset()), (Vec3::X, -Vec3::X));
/// ```
///
/// A game that places pickups its own way observes `On<Add, LoosePickup>`
/// and moves them.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct PickupPlacement {
    offsets: Vec<Vec3>,
    next: usize,
}

impl Default for PickupPlacement {
    fn default() -> PickupPlacement {
        PickupPlacement::row(1.0)
    }
}

impl PickupPlacement {
    /// Pickups at these offsets in turn (none given: all at the container).
    pub fn new(offsets: Vec<Vec3>) -> PickupPlacement {
        let offsets = if offsets.is_empty() {
            vec![Vec3::ZERO]
        } else {
            offsets
        };
        PickupPlacement { offsets, next: 0 }
    }

    /// A row along X, `spacing` apart: +1, -1, +2, -2, +3, -3, +4, -4.
    pub fn row(spacing: f32) -> PickupPlacement {
        PickupPlacement::new(
            (1..=4)
                .flat_map(|k| [k as f32, -(k as f32)])
                .map(|x| Vec3::X * x * spacing)
                .collect(),
        )
    }

    /// Eight places on a circle of `radius` in the XY plane (2D).
    pub fn ring_2d(radius: f32) -> PickupPlacement {
        PickupPlacement::new(ring(radius, |c, s| Vec3::new(c, s, 0.0)))
    }

    /// Eight places on a circle of `radius` in the XZ plane (3D, Y up).
    pub fn ring_3d(radius: f32) -> PickupPlacement {
        PickupPlacement::new(ring(radius, |c, s| Vec3::new(c, 0.0, s)))
    }

    /// The offset of the next pickup.
    pub fn next_offset(&mut self) -> Vec3 {
        let at = self.offsets[self.next % self.offsets.len()];
        self.next = (self.next + 1) % self.offsets.len();
        at
    }
}

fn ring(radius: f32, point: impl Fn(f32, f32) -> Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|k| {
            let angle = k as f32 * std::f32::consts::TAU / 8.0;
            // exact zeros on the axes, not 1e-8 noise
            let (s, c) = angle.sin_cos();
            point(
                (c * 1e6).round() / 1e6 * radius,
                (s * 1e6).round() / 1e6 * radius,
            )
        })
        .collect()
}

/// Where one settlement put items, and the fallbacks it took.
#[derive(Default)]
pub(super) struct Ledger {
    pub settled: Vec<Settled>,
    pub warnings: Vec<Fallback>,
}

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
        if let Ok(mut pk) = self.pickups.get_mut(s)
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

/// Spawns a loose pickup near `base` (a world position).
pub(crate) fn spawn_pickup(
    commands: &mut Commands,
    placement: &mut PickupPlacement,
    base: Vec3,
    item: &str,
    props: &Props,
    amount: u32,
) -> Entity {
    let at = base + placement.next_offset();
    let name = if props.is_empty() {
        format!("{amount} {item}")
    } else {
        format!("{amount} {item}{props}")
    };
    commands
        .spawn((
            Name::new(name),
            LoosePickup {
                item: item.to_string(),
                props: props.clone(),
                amount,
            },
            Transform::from_translation(at),
        ))
        .id()
}
