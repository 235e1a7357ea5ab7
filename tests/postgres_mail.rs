//! Mail between servers (feature `postgres`): items sent to a container
//! another server owns land once, what does not fit comes back, a target
//! handed over with mail in flight gets it at its new owner, a target that
//! is gone sends it all back, and the ledger (containers + pickups + mail
//! in flight) balances at every frame boundary. Each test starts its own
//! throwaway cluster (or a fresh database in `BEVY_CONTAINER_PG`).
#![cfg(feature = "postgres")]

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use bevy::prelude::*;
use bevy_container::adoption::Format;
use bevy_container::persist::*;
use bevy_container::plugin::*;
use bevy_container::save::SavedContents;

/// Every mail message a server sent, kept.
#[derive(Resource, Default)]
struct Post {
    sent: Vec<MailSent>,
    not_sent: Vec<MailNotSent>,
    received: Vec<MailReceived>,
    answered: Vec<MailAnswered>,
}

fn hear(
    mut post: ResMut<Post>,
    mut sent: MessageReader<MailSent>,
    mut not_sent: MessageReader<MailNotSent>,
    mut received: MessageReader<MailReceived>,
    mut answered: MessageReader<MailAnswered>,
) {
    post.sent.extend(sent.read().cloned());
    post.not_sent.extend(not_sent.read().cloned());
    post.received.extend(received.read().cloned());
    post.answered.extend(answered.read().cloned());
}

fn server(url: &str, name: &str) -> App {
    let db = ContainerDatabase::open_as(url, ServerId::new(name)).expect("the database opens");
    let mut app = app_on(db);
    app.update();
    app
}

/// A headless app persisting in `db`, hearing its mail.
fn app_on(db: ContainerDatabase) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        common::crate_assets(),
        ContainerPlugin::default(),
        ContainerDatabasePlugin::new(db),
    ))
    .init_resource::<Post>()
    .add_systems(Last, hear);
    app
}

fn until(apps: &mut [&mut App], what: &str, mut done: impl FnMut(&mut [&mut App]) -> bool) {
    for _ in 0..3_000 {
        for app in apps.iter_mut() {
            app.update();
        }
        if done(apps) {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("{what} never happened");
}

fn entity(app: &App, id: &str) -> Option<Entity> {
    app.world().resource::<PersistentEntities>().get(id)
}

fn count(app: &App, id: &str, item: &str) -> Option<u64> {
    let e = entity(app, id)?;
    app.world()
        .get::<ContainerContents>(e)
        .filter(|c| c.is_ready())
        .map(|c| c.count(item))
}

fn spawn(app: &mut App, id: &str, adoption: &str) -> Entity {
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load(adoption.to_string());
    let e = app
        .world_mut()
        .spawn((PersistentId::new(id), Container::new(handle)))
        .id();
    until(&mut [app], "the adoption loading", |apps| {
        apps[0]
            .world()
            .get::<ContainerContents>(e)
            .is_some_and(ContainerContents::is_ready)
    });
    e
}

fn flush(app: &App) {
    app.world()
        .resource::<DatabaseWriter>()
        .flush()
        .expect("every frame written");
}

fn post(app: &App) -> &Post {
    app.world().resource::<Post>()
}

/// Every item in the database by type: containers, pickups, and mail in
/// flight.
fn ledger(url: &str) -> BTreeMap<String, u64> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    let mut total = BTreeMap::new();
    for row in c
        .query("SELECT contents FROM containers", &[])
        .expect("reads")
    {
        let text: String = row.get(0);
        let saved = SavedContents::read(text.as_bytes(), Format::Json).expect("a save");
        for s in saved.slots.iter().flatten().chain(&saved.holdings) {
            *total.entry(s.item.clone()).or_default() += u64::from(s.amount);
        }
    }
    for q in [
        "SELECT item, amount FROM pickups",
        "SELECT item, amount FROM mail",
    ] {
        for row in c.query(q, &[]).expect("reads") {
            let (item, n): (String, i64) = (row.get(0), row.get(1));
            *total.entry(item).or_default() += n as u64;
        }
    }
    total
}

fn in_flight(url: &str) -> i64 {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    c.query_one("SELECT count(*) FROM mail", &[])
        .expect("reads")
        .get(0)
}

#[test]
fn mail_lands_once_and_what_does_not_fit_comes_back() {
    let (_pg, url) = ThrowawayPostgres::url_for_tests("mail").unwrap_or_else(|e| panic!("{e}"));
    let mut north = server(&url, "north");
    let mut south = server(&url, "south");
    let pack = spawn(&mut north, "pack-of-ilsa", "backpack.adoption.json");
    let chest = spawn(&mut south, "guild-chest", "guild-chest.adoption.json");
    north
        .world_mut()
        .write_message(ContainerRequest::from(Deliver::new(pack, "berries", 20)));
    south
        .world_mut()
        .write_message(ContainerRequest::from(Deliver::new(chest, "berries", 25)));
    north.update();
    south.update();
    flush(&north);
    flush(&south);
    let before = ledger(&url);
    assert_eq!(before.get("berries"), Some(&45));

    // 20 berries mailed to a chest with room for 15
    north
        .world_mut()
        .write_message(SendMail::new(pack, "guild-chest", "berries", 20).from_slot(0));
    north.update();
    flush(&north);
    let sent = &post(&north).sent;
    assert_eq!(sent.len(), 1, "{:?}", post(&north).not_sent);
    assert_eq!((sent[0].amount, sent[0].to.as_str()), (20, "guild-chest"));
    let mail = sent[0].mail.clone();
    assert_eq!(
        count(&north, "pack-of-ilsa", "berries"),
        Some(0),
        "they left"
    );
    assert_eq!(in_flight(&url), 1);
    assert_eq!(ledger(&url), before, "in flight, not lost");

    until(&mut [&mut north, &mut south], "the answer", |apps| {
        !post(apps[0]).answered.is_empty()
    });
    flush(&north);
    flush(&south);
    let received = &post(&south).received;
    assert_eq!(received.len(), 1, "received once");
    assert_eq!(received[0].mail, mail);
    assert_eq!((received[0].landed, received[0].came_back), (15, 5));
    assert_eq!(received[0].from.as_str(), "north");
    let answered = &post(&north).answered[0];
    assert_eq!(answered.mail, mail);
    assert_eq!(
        (
            answered.landed,
            answered.came_back,
            answered.kept,
            answered.dropped
        ),
        (15, 5, 5, 0)
    );
    assert_eq!(count(&south, "guild-chest", "berries"), Some(40));
    assert_eq!(count(&north, "pack-of-ilsa", "berries"), Some(5));
    assert_eq!(in_flight(&url), 0, "every row applied and deleted");
    assert_eq!(ledger(&url), before);

    // nothing is applied twice, however long the servers run
    for _ in 0..100 {
        north.update();
        south.update();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(post(&south).received.len(), 1);
    assert_eq!(post(&north).answered.len(), 1);
    assert_eq!(count(&south, "guild-chest", "berries"), Some(40));
}

#[test]
fn a_target_handed_over_with_mail_in_flight_gets_it_once_at_its_new_owner() {
    let (_pg, url) =
        ThrowawayPostgres::url_for_tests("mail_handover").unwrap_or_else(|e| panic!("{e}"));
    let mut north = server(&url, "north");
    let mut south = server(&url, "south");
    let pack = spawn(&mut north, "pack", "backpack.adoption.json");
    let chest = spawn(&mut south, "chest", "guild-chest.adoption.json");
    north
        .world_mut()
        .write_message(ContainerRequest::from(Deliver::new(pack, "berries", 12)));
    north.update();
    flush(&north);
    // south hands the chest to east (registered ahead: it has not started
    // yet); mail is sent to it meanwhile
    assert!(operator::register(&url, &ServerId::new("east")).expect("registers"));
    south.world_mut().write_message(HandOver {
        container: chest,
        to: ServerId::new("east"),
    });
    until(&mut [&mut south], "the chest handed over", |apps| {
        entity(apps[0], "chest").is_none()
    });
    flush(&south);
    north
        .world_mut()
        .write_message(SendMail::new(pack, "chest", "berries", 12));
    north.update();
    flush(&north);
    assert_eq!(in_flight(&url), 1);
    let before = ledger(&url);
    let mut east = server(&url, "east");
    until(
        &mut [&mut north, &mut south, &mut east],
        "the answer",
        |apps| !post(apps[0]).answered.is_empty(),
    );
    assert_eq!(count(&east, "chest", "berries"), Some(12), "landed at east");
    assert!(post(&south).received.is_empty(), "south no longer owns it");
    assert_eq!(post(&east).received.len(), 1);
    for app in [&north, &south, &east] {
        flush(app);
    }
    assert_eq!(in_flight(&url), 0);
    assert_eq!(ledger(&url), before);
}

#[test]
fn mail_to_a_container_that_is_gone_comes_back_whole() {
    let (_pg, url) =
        ThrowawayPostgres::url_for_tests("mail_gone").unwrap_or_else(|e| panic!("{e}"));
    let mut north = server(&url, "north");
    let pack = spawn(&mut north, "pack", "backpack.adoption.json");
    north
        .world_mut()
        .write_message(ContainerRequest::from(Deliver::new(pack, "berries", 7)));
    north.update();
    north
        .world_mut()
        .write_message(SendMail::new(pack, "nobody-has-this", "berries", 7));
    north.update();
    flush(&north);
    let before = ledger(&url);
    assert_eq!(before.get("berries"), Some(&7));
    until(&mut [&mut north], "the answer", |apps| {
        !post(apps[0]).answered.is_empty()
    });
    let a = &post(&north).answered[0];
    assert_eq!((a.landed, a.came_back, a.kept), (0, 7, 7));
    assert_eq!(count(&north, "pack", "berries"), Some(7));
    flush(&north);
    assert_eq!(in_flight(&url), 0);
    assert_eq!(ledger(&url), before);
}

#[test]
fn mail_on_a_sqlite_file_is_refused_and_nothing_leaves() {
    let dir =
        std::env::temp_dir().join(format!("bevy_container-mail-sqlite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a folder");
    let db = ContainerDatabase::open(dir.join("world.db")).expect("opens");
    let mut app = app_on(db);
    let pack = spawn(&mut app, "pack", "backpack.adoption.json");
    app.world_mut()
        .write_message(ContainerRequest::from(Deliver::new(pack, "berries", 5)));
    app.update();
    app.world_mut()
        .write_message(SendMail::new(pack, "far-chest", "berries", 5));
    app.update();
    let refused = &post(&app).not_sent;
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].why, MailRefused::NotShared);
    assert!(refused[0].why.to_string().contains("postgresql://"));
    assert_eq!(count(&app, "pack", "berries"), Some(5), "nothing left");
    drop(app);
    let _ = std::fs::remove_dir_all(&dir);
}
