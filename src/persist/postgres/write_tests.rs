//! A frame's conditional writes against a real cluster.

use bevy::math::Vec3;

use super::{lock, open};
use crate::persist::ThrowawayPostgres;
use crate::persist::frame::rows::PickupRow;
use crate::persist::frame::server_id::ServerId;
use crate::persist::frame::store::{FrameRows, Store, StoreError};
use crate::props::Props;

/// A pickup this server wrote, which another server took since, and
/// whose epoch this process no longer knows (a reread let go of it): a
/// frame that deletes it (its items picked up into a container of this
/// world) is lost, never committed with the row left in place, which
/// would count its items twice.
#[test]
fn a_delete_of_a_row_another_server_took_is_lost_though_its_epoch_was_forgotten() {
    let (_pg, url) = ThrowawayPostgres::url_for_tests("forgotten_delete").expect("a cluster");
    let mut east = open(&url, &ServerId::new("east"))
        .expect("east opens")
        .store;
    let ore = PickupRow {
        id: "pickup-east-1".into(),
        item: "ore".into(),
        amount: 7,
        props: Props::EMPTY,
        translation: Vec3::ZERO,
    };
    let put = FrameRows {
        frame: 1,
        next_pickup: 2,
        pickups: vec![&ore],
        ..FrameRows::default()
    };
    assert!(east.write(&put).is_ok(), "frame 1 written");
    let mut other = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    other
        .execute(
            "UPDATE pickups SET owner = 'south', epoch = epoch + 1 WHERE id = 'pickup-east-1'",
            &[],
        )
        .expect("south takes it");
    lock(&east.epochs).remove("pickup-east-1");
    let delete = FrameRows {
        frame: 2,
        seen: 1,
        next_pickup: 2,
        pickup_deletes: vec!["pickup-east-1"],
        ..FrameRows::default()
    };
    match east.write(&delete) {
        Err(StoreError::Fenced(lost)) => assert_eq!(lost[0].id, "pickup-east-1"),
        Ok(_) => panic!("the delete of south's pickup committed"),
        Err(_) => panic!("the delete of south's pickup failed, not lost"),
    }
    let left = other
        .query_one(
            "SELECT owner, amount FROM pickups WHERE id = 'pickup-east-1'",
            &[],
        )
        .expect("the row is still there");
    assert_eq!(
        (left.get::<_, String>(0), left.get::<_, i64>(1)),
        ("south".into(), 7)
    );
    // an id that never had a row is no loss: the frame commits
    let never = FrameRows {
        frame: 3,
        seen: 1,
        next_pickup: 2,
        pickup_deletes: vec!["pickup-east-2"],
        ..FrameRows::default()
    };
    assert!(east.write(&never).is_ok(), "a delete of nothing commits");
}
