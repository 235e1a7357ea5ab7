//! Containers in PostgreSQL shared by several servers (feature
//! `postgres`): hand-overs exactly once, fencing of a server that lost a
//! container, errors that name the fix, a database restarted under a
//! running server. Each test starts its own throwaway cluster (or a fresh
//! database in `BEVY_CONTAINER_PG`).
#![cfg(feature = "postgres")]

mod common;

use std::time::Duration;

use bevy::prelude::*;
use bevy_container::persist::{
    ClaimFrom, ClaimRefused, ContainerArrived, ContainerDatabase, ContainerDatabasePlugin,
    ContainerLost, DatabaseError, DatabaseWriter, HandOver, PersistentEntities, PersistentId,
    ServerClaimed, ServerId, ThrowawayPostgres,
};
use bevy_container::plugin::*;
use bevy_container::props::Props;

/// A database `name` for one test, and the cluster it lives in (kept
/// alive by the caller).
fn database(name: &str) -> (Option<ThrowawayPostgres>, String) {
    ThrowawayPostgres::url_for_tests(name).unwrap_or_else(|e| panic!("{e}"))
}

/// Every message of type `M` the app sent, kept.
#[derive(Resource)]
struct Heard<M: Message + Clone>(Vec<M>);

fn hear<M: Message + Clone>(mut heard: ResMut<Heard<M>>, mut reader: MessageReader<M>) {
    heard.0.extend(reader.read().cloned());
}

/// A server `server` on `url`, with the crate's assets.
fn server(url: &str, server: &str) -> App {
    let db = ContainerDatabase::open_as(url, ServerId::new(server)).expect("the database opens");
    server_on(db)
}

fn server_on(db: ContainerDatabase) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        common::crate_assets(),
        ContainerPlugin::default(),
        ContainerDatabasePlugin::new(db),
    ))
    .insert_resource(Heard::<ContainerArrived>(Vec::new()))
    .insert_resource(Heard::<ContainerLost>(Vec::new()))
    .insert_resource(Heard::<ServerClaimed>(Vec::new()))
    .insert_resource(Heard::<ClaimRefused>(Vec::new()))
    .add_systems(
        Last,
        (
            hear::<ContainerArrived>,
            hear::<ContainerLost>,
            hear::<ServerClaimed>,
            hear::<ClaimRefused>,
        ),
    );
    app.update();
    app
}

/// Runs frames until `done` holds (bounded).
fn until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    for _ in 0..3_000 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("{what} never happened");
}

fn entity(app: &App, id: &str) -> Option<Entity> {
    app.world().resource::<PersistentEntities>().get(id)
}

fn contents<'a>(app: &'a App, id: &str) -> Option<&'a ContainerContents> {
    entity(app, id).and_then(|e| app.world().get::<ContainerContents>(e))
}

fn ready(app: &App, id: &str) -> bool {
    contents(app, id).is_some_and(ContainerContents::is_ready)
}

fn spawn_backpack(app: &mut App, id: &str) -> Entity {
    let adoption = app
        .world()
        .resource::<AssetServer>()
        .load("backpack.adoption.json");
    let e = app
        .world_mut()
        .spawn((PersistentId::new(id), Container::new(adoption)))
        .id();
    until(app, "the backpack's adoption loading", |app| {
        app.world()
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

fn request(app: &mut App, r: impl Into<ContainerRequest>) {
    app.world_mut().write_message(r.into());
    app.update();
}

/// A row as the database holds it: owner, epoch, contents.
fn row(url: &str, id: &str) -> Option<(String, i64, String)> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connects");
    c.query_opt(
        "SELECT owner, epoch, contents FROM containers WHERE id = $1",
        &[&id],
    )
    .expect("reads")
    .map(|r| (r.get(0), r.get(1), r.get(2)))
}

#[test]
fn a_container_handed_over_leaves_one_server_and_arrives_at_the_other_once() {
    let (_pg, url) = database("handover");
    let mut north = server(&url, "north");
    let pack = spawn_backpack(&mut north, "pack-of-ilsa");
    request(&mut north, Deliver::new(pack, "berries", 25));
    request(&mut north, Deliver::new(pack, "axe", 1));
    flush(&north);
    let mut south = server(&url, "south");
    assert_eq!(
        entity(&south, "pack-of-ilsa"),
        None,
        "south loads only what it owns"
    );

    north.world_mut().write_message(HandOver {
        container: pack,
        to: ServerId::new("south"),
    });
    // south opened a moment ago: north goes once its listener has read
    // the servers again (a quarter of a second at most)
    until(&mut north, "the hand-over", |app| {
        entity(app, "pack-of-ilsa").is_none()
    });
    flush(&north);
    north.update();
    assert!(
        north.world().get_entity(pack).is_err(),
        "it left north's world"
    );
    assert_eq!(entity(&north, "pack-of-ilsa"), None);
    let (owner, epoch, _) = row(&url, "pack-of-ilsa").expect("the row stays");
    assert_eq!(
        (owner.as_str(), epoch),
        ("south", 2),
        "one owner, the next epoch"
    );

    until(&mut south, "the arrival", |app| ready(app, "pack-of-ilsa"));
    let there = contents(&south, "pack-of-ilsa").expect("arrived");
    assert_eq!((there.count("berries"), there.count("axe")), (25, 1));
    for _ in 0..20 {
        south.update();
        std::thread::sleep(Duration::from_millis(5));
    }
    let arrived = &south.world().resource::<Heard<ContainerArrived>>().0;
    assert_eq!(arrived.len(), 1, "arrived once: {arrived:?}");

    // south changes it; north, restarted, does not get it back
    let there = entity(&south, "pack-of-ilsa").expect("in south");
    request(&mut south, Take::new(there, "berries", 5).from_slot(0));
    flush(&south);
    drop(north);
    let north = server(&url, "north");
    assert_eq!(
        entity(&north, "pack-of-ilsa"),
        None,
        "north no longer owns it"
    );
    let (owner, _, text) = row(&url, "pack-of-ilsa").expect("the row");
    assert_eq!(owner, "south");
    assert!(text.contains("15") || text.contains("berries"), "{text}");
}

#[test]
fn a_server_that_lost_a_container_writes_nothing_of_it_and_puts_back_what_it_touched() {
    let (_pg, url) = database("fence");
    let mut north = server(&url, "north");
    let lost = spawn_backpack(&mut north, "pack-lost");
    let kept = spawn_backpack(&mut north, "pack-kept");
    request(&mut north, Deliver::new(lost, "berries", 10));
    request(&mut north, Deliver::new(kept, "berries", 2));
    flush(&north);
    let (_, _, before_kept) = row(&url, "pack-kept").expect("written");

    // another server takes the lost pack (as a claim would) and changes it
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    c.execute(
        "UPDATE containers SET owner = 'south', epoch = epoch + 1, contents = contents WHERE id = 'pack-lost'",
        &[],
    )
    .expect("taken");
    let (_, _, south_state) = row(&url, "pack-lost").expect("there");

    // north, unaware, moves berries from the lost pack into the kept one
    request(
        &mut north,
        Transfer {
            from: lost,
            to: kept,
            request: bevy_container::contents::TransferRequest::item("berries", 5),
        },
    );
    assert_eq!(
        contents(&north, "pack-kept").map(|c| c.count("berries")),
        Some(7)
    );
    flush(&north);
    north.update();
    north.update();
    let heard = &north.world().resource::<Heard<ContainerLost>>().0;
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(heard[0].lost.id, "pack-lost");
    assert_eq!(heard[0].lost.owner, Some(ServerId::new("south")));
    assert!(
        north.world().get_entity(lost).is_err(),
        "the lost pack left north's world"
    );
    until(&mut north, "the kept pack put back", |app| {
        contents(app, "pack-kept").is_some_and(|c| c.is_ready() && c.count("berries") == 2)
    });
    // nothing north did since reaches the database, and north goes on
    assert_eq!(row(&url, "pack-lost").expect("there").2, south_state);
    assert_eq!(row(&url, "pack-kept").expect("there").2, before_kept);
    request(&mut north, Deliver::new(kept, "axe", 1));
    flush(&north);
    let (owner, _, text) = row(&url, "pack-kept").expect("there");
    assert_eq!(owner, "north");
    assert!(text.contains("axe"), "north writes again: {text}");
}

#[test]
fn a_claim_takes_a_paused_servers_containers_and_its_later_writes_are_refused() {
    let (_pg, url) = database("claim");
    let mut north = server(&url, "north");
    let pack = spawn_backpack(&mut north, "pack-1");
    request(&mut north, Deliver::new(pack, "berries", 4));
    flush(&north);
    // north is "paused"; south claims what north owns
    let db = ContainerDatabase::open_as(&url, ServerId::new("south"))
        .and_then(|db| db.claim_from(&ServerId::new("north")))
        .expect("claimed");
    assert_eq!(db.containers().len(), 1);
    let mut south = server_on(db);
    until(&mut south, "the claimed pack", |app| ready(app, "pack-1"));
    let there = entity(&south, "pack-1").expect("claimed");
    request(&mut south, Deliver::new(there, "axe", 1));
    flush(&south);
    let (owner, epoch, claimed) = row(&url, "pack-1").expect("there");
    assert_eq!((owner.as_str(), epoch), ("south", 2));
    // north comes back and writes: refused, reported, nothing written
    request(&mut north, Deliver::new(pack, "berries", 1));
    flush(&north);
    until(&mut north, "the loss reported", |app| {
        !app.world().resource::<Heard<ContainerLost>>().0.is_empty()
    });
    let heard = &north.world().resource::<Heard<ContainerLost>>().0;
    assert_eq!(heard.len(), 1, "{heard:?}");
    assert_eq!(
        row(&url, "pack-1").expect("there").2,
        claimed,
        "the claimer's state exactly"
    );
    assert!(north.world().resource::<DatabaseWriter>().stats().fenced >= 1);
}

#[test]
fn a_running_server_claims_a_gone_servers_containers_and_pickups() {
    let (_pg, url) = database("claim_running");
    let mut north = server(&url, "north");
    let pack = spawn_backpack(&mut north, "pack-1");
    request(&mut north, Deliver::new(pack, "berries", 4));
    north.world_mut().spawn((
        PersistentId::new("berries-by-the-well"),
        LoosePickup {
            item: "berries".into(),
            amount: 3,
            props: Props::EMPTY,
        },
        Transform::from_xyz(2.0, 0.0, 1.0),
    ));
    north.update();
    flush(&north);
    // north mailed 2 berries from its pack to a chest that is gone; the
    // mail is still on its way back when north stops answering
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    c.execute(
        "INSERT INTO mail (id, target, item, props, amount, reply_to, origin, answers, landed)
         VALUES ('mail-north-99', 'chest-gone', 'berries', '', 2, 'pack-1', 'north', NULL, 0)",
        &[],
    )
    .expect("mail in flight");
    // south runs with a bag of its own
    let mut south = server(&url, "south");
    spawn_backpack(&mut south, "bag-s");
    south.world_mut().write_message(ClaimFrom {
        from: ServerId::new("north"),
    });
    until(&mut south, "the claim", |app| {
        !app.world().resource::<Heard<ServerClaimed>>().0.is_empty()
    });
    let claimed = south.world().resource::<Heard<ServerClaimed>>().0[0].clone();
    assert_eq!(claimed.from, ServerId::new("north"));
    assert_eq!(claimed.containers.len(), 1);
    assert_eq!(claimed.pickups.len(), 1);
    until(&mut south, "the claimed pack", |app| ready(app, "pack-1"));
    let there = entity(&south, "pack-1").expect("claimed");
    assert_eq!(claimed.containers[0], there);
    // the claimer answers north's mail: it comes back into the pack, once
    until(&mut south, "the mail back in the pack", |app| {
        contents(app, "pack-1").is_some_and(|c| c.count("berries") == 6)
    });
    until(&mut south, "the mail rows gone", |app| {
        flush(app);
        c.query_one("SELECT count(*) FROM mail", &[])
            .is_ok_and(|r| r.get::<_, i64>(0) == 0)
    });
    assert_eq!(
        contents(&south, "pack-1").expect("there").count("berries"),
        6,
        "applied once"
    );
    let arrived = &south.world().resource::<Heard<ContainerArrived>>().0;
    assert!(arrived.iter().any(|a| a.id == "pack-1"), "{arrived:?}");
    let pickup = entity(&south, "berries-by-the-well").expect("the pickup claimed");
    assert_eq!(
        south.world().get::<LoosePickup>(pickup).map(|p| p.amount),
        Some(3)
    );
    assert!(ready(&south, "bag-s"), "south's own bag stays");
    // south writes the claimed pack; a second claim finds nothing more
    request(&mut south, Deliver::new(there, "axe", 1));
    flush(&south);
    let (owner, epoch, kept) = row(&url, "pack-1").expect("there");
    assert_eq!((owner.as_str(), epoch), ("south", 2));
    south.world_mut().write_message(ClaimFrom {
        from: ServerId::new("north"),
    });
    until(&mut south, "the second claim", |app| {
        app.world().resource::<Heard<ServerClaimed>>().0.len() == 2
    });
    let again = &south.world().resource::<Heard<ServerClaimed>>().0[1];
    assert!(
        again.containers.is_empty() && again.pickups.is_empty(),
        "{again:?}"
    );
    // north comes back and writes: refused, reported, nothing written
    request(&mut north, Deliver::new(pack, "berries", 1));
    flush(&north);
    until(&mut north, "the loss reported", |app| {
        !app.world().resource::<Heard<ContainerLost>>().0.is_empty()
    });
    assert_eq!(row(&url, "pack-1").expect("there").2, kept);
    assert!(north.world().resource::<Heard<ClaimRefused>>().0.is_empty());
}

#[test]
fn a_claim_on_a_sqlite_file_is_refused_with_the_fix() {
    let dir = std::env::temp_dir().join(format!(
        "bevy_container-claim-sqlite-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a folder");
    let mut app = server_on(ContainerDatabase::open(dir.join("world.db")).expect("opens"));
    app.world_mut().write_message(ClaimFrom {
        from: ServerId::new("north"),
    });
    app.update();
    let refused = &app.world().resource::<Heard<ClaimRefused>>().0;
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].to_string().contains("use PostgreSQL"),
        "{}",
        refused[0]
    );
    assert!(app.world().resource::<Heard<ServerClaimed>>().0.is_empty());
    drop(app);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_name_what_is_wrong_and_the_fix() {
    let pg = ThrowawayPostgres::start().unwrap_or_else(|e| panic!("{e}"));
    // nothing listens there
    let nowhere = format!(
        "postgresql://postgres@/x?host={}/nowhere",
        pg.socket_dir().display()
    );
    match ContainerDatabase::open(&nowhere) {
        Err(DatabaseError::Connect { message, .. }) => assert!(!message.is_empty()),
        Err(e) => panic!("a connect error, not {e}"),
        Ok(_) => panic!("nothing listens there"),
    }
    // a wrong password
    let url = pg.database("auth").expect("a database");
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    c.batch_execute("CREATE ROLE game LOGIN PASSWORD 'right'; GRANT ALL ON DATABASE auth TO game; ALTER DATABASE auth OWNER TO game")
        .expect("a role");
    // PostgreSQL's own advice: a database or a role that does not exist,
    // a permission missing
    let dir = pg.socket_dir().display().to_string();
    let advice = [
        (
            format!("postgresql://postgres@/no_such_world?host={dir}"),
            "createdb",
        ),
        (format!("postgresql://ghost@/auth?host={dir}"), "createuser"),
        (format!("postgresql://player@/auth?host={dir}"), "GRANT"),
    ];
    // (PostgreSQL 15 grants no CREATE on `public`; older ones must be told)
    c.batch_execute("CREATE ROLE player LOGIN; REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        .expect("a role without rights");
    for (target, fix) in advice {
        match ContainerDatabase::open(&target) {
            Err(e @ DatabaseError::Refused { .. }) => {
                let text = e.to_string();
                assert!(text.contains(fix), "{target}: {text}");
                assert!(!text.contains("check the path and its folder"), "{text}");
            }
            Err(e) => panic!("{target}: PostgreSQL's refusal, not {e}"),
            Ok(_) => panic!("{target} opened"),
        }
    }
    wrong_password_is_named_and_hidden(&pg, &mut c);
    let right = format!(
        "postgresql://game:right@/auth?host={}",
        pg.socket_dir().display()
    );
    let first = ContainerDatabase::open_as(&right, ServerId::new("north")).expect("opens");
    // the same server twice
    match ContainerDatabase::open_as(&right, ServerId::new("north")) {
        Err(DatabaseError::ServerInUse { server, .. }) => assert_eq!(server, "north"),
        Err(e) => panic!("server in use, not {e}"),
        Ok(_) => panic!("two processes as one server"),
    }
    drop(first);
    invalid_requests_say_their_own_fix(&url);
    // a newer schema
    c.batch_execute("UPDATE container_schema SET version = 99")
        .expect("edits");
    assert!(matches!(
        ContainerDatabase::open(&url),
        Err(DatabaseError::Newer { found: 99, .. })
    ));
    // another program's tables
    let foreign = pg.database("foreign").expect("a database");
    let mut f = postgres::Client::connect(&foreign, postgres::NoTls).expect("connects");
    f.batch_execute("CREATE TABLE containers (x INT)")
        .expect("a table");
    match ContainerDatabase::open(&foreign) {
        Err(e @ DatabaseError::Damaged { .. }) => {
            assert!(e.to_string().contains("containers"), "{e}")
        }
        Err(e) => panic!("damaged, not {e}"),
        Ok(_) => panic!("a foreign schema"),
    }
}

/// A wrong password is an authentication error that names the password
/// and never shows it.
fn wrong_password_is_named_and_hidden(pg: &ThrowawayPostgres, c: &mut postgres::Client) {
    let hba = pg.socket_dir().join("data").join("pg_hba.conf");
    std::fs::write(
        &hba,
        "local all postgres trust\nlocal all all scram-sha-256\n",
    )
    .expect("hba");
    c.batch_execute("SELECT pg_reload_conf()").expect("reloads");
    std::thread::sleep(Duration::from_millis(300));
    let wrong = format!(
        "postgresql://game:wrong@/auth?host={}",
        pg.socket_dir().display()
    );
    match ContainerDatabase::open(&wrong) {
        Err(e @ DatabaseError::Authentication { .. }) => {
            let text = e.to_string();
            assert!(!text.contains("wrong"), "the password is hidden: {text}");
            assert!(text.contains("password"), "{text}");
        }
        Err(e) => panic!("an authentication error, not {e}"),
        Ok(_) => panic!("a wrong password"),
    }
}

/// What was asked cannot be done as asked: said with its own fix, and
/// never SQLite's advice about a path.
fn invalid_requests_say_their_own_fix(url: &str) {
    let long = ServerId::new("s".repeat(ServerId::LONGEST + 1));
    let claim_for = |to: &str| {
        let (north, to) = (ServerId::new("north"), ServerId::new(to));
        bevy_container::persist::operator::claim(url, &north, &to).err()
    };
    let invalid = [
        (
            ContainerDatabase::open_as(url, long.clone()).err(),
            "choose an id",
        ),
        (
            ContainerDatabase::open(format!("{url}&no_such_option=1")).err(),
            "postgresql://USER@HOST",
        ),
        (
            bevy_container::persist::operator::register(url, &long).err(),
            "choose an id",
        ),
        (claim_for("nobody"), "db register"),
        (claim_for("north"), "another than"),
    ];
    for (i, (error, fix)) in invalid.into_iter().enumerate() {
        match error {
            Some(e @ DatabaseError::Invalid { .. }) => {
                let text = e.to_string();
                assert!(text.contains(fix), "case {i}: {text}");
                assert!(!text.contains("check the path"), "case {i}: {text}");
            }
            other => panic!("case {i}: an invalid request, not {other:?}"),
        }
    }
}

#[test]
fn a_database_restarted_under_a_running_server_loses_no_frame() {
    let pg = ThrowawayPostgres::start().unwrap_or_else(|e| panic!("{e}"));
    let url = pg.database("restart").expect("a database");
    let mut north = server(&url, "north");
    let pack = spawn_backpack(&mut north, "pack-1");
    request(&mut north, Deliver::new(pack, "berries", 3));
    flush(&north);
    pg.restart().expect("restarts");
    for n in 0..5 {
        request(&mut north, Deliver::new(pack, "berries", 1 + n));
    }
    flush(&north);
    let writer = north.world().resource::<DatabaseWriter>();
    assert!(writer.error().is_none(), "{:?}", writer.error());
    assert!(writer.stats().reconnects >= 1, "{:?}", writer.stats());
    drop(north);
    let again = ContainerDatabase::open_as(&url, ServerId::new("north")).expect("opens");
    let saved = &again.containers()[0].contents;
    let total: u64 = saved
        .slots
        .iter()
        .flatten()
        .map(|s| u64::from(s.amount))
        .sum();
    assert_eq!(
        total,
        3 + 1 + 2 + 3 + 4 + 5,
        "every frame written, in order"
    );
}
