//! Where settled items are put: the loose pickups a settlement spawns,
//! where they lie ([`PickupPlacement`]), and the ledger one settlement
//! writes. Apart from [`super::settle`], so the requests' answers and the
//! settlement both use them without using each other.

use bevy::prelude::*;

use super::components::LoosePickup;
use super::messages::{Fallback, Settled};
use crate::props::Props;

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
