//! Containers in SQLite (feature `persist`): restarts bring every
//! container, store link and pickup back; a server killed at any moment
//! leaves the file at a frame boundary; damaged files are refused whole,
//! with the table and key.
#![cfg(feature = "persist")]

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use bevy_container::adoption::Adoption;
use bevy_container::contents::{Cause, TransferRequest};
use bevy_container::persist::{
    ContainerDatabase, ContainerDatabasePlugin, ContainerRow, DatabaseError, DatabaseWriter,
    PersistentEntities, PersistentId, SCHEMA_VERSION, Synchronous, WriterScheduling,
};
use bevy_container::plugin::*;
use bevy_container::props::Props;
use bevy_container::save::AdoptionId;
use common::{Rng, adoption_json, slot_answers};
use serde_json::json;

// ---------------------------------------------------------------------------
// The world: a vault and bags that overflow into it.

/// A fresh folder for one test's files (adoptions and database).
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join("bevy_container-persist")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp folder");
    write_adoptions(&dir);
    dir
}

/// The bag (3 slots; leftovers and ore go to its store, berries drop, gems
/// are destroyed when forced out) and the vault (8 slots; leftovers stay
/// with the sender, forced-out items drop).
fn write_adoptions(dir: &Path) {
    let bag = adoption_json(
        slot_answers("another-store"),
        3,
        0.0,
        json!([
            {"id": "ore", "stack-limit": 10, "when-forced-out": "moved-to-another-store", "forced-out-order": 1},
            {"id": "berries", "stack-limit": 20, "when-forced-out": "dropped-nearby", "forced-out-order": 2},
            {"id": "gem", "stack-limit": 1, "when-forced-out": "destroyed", "forced-out-order": 3},
        ]),
    );
    let vault = adoption_json(
        slot_answers("left-where-it-is"),
        8,
        0.0,
        json!([
            {"id": "ore", "stack-limit": 10, "when-forced-out": "dropped-nearby", "forced-out-order": 1},
            {"id": "berries", "stack-limit": 20, "when-forced-out": "dropped-nearby", "forced-out-order": 2},
            {"id": "gem", "stack-limit": 1, "when-forced-out": "dropped-nearby", "forced-out-order": 3},
        ]),
    );
    for (name, a) in [("bag.adoption.json", bag), ("vault.adoption.json", vault)] {
        std::fs::write(dir.join(name), a.to_string()).expect("writes");
    }
}

fn keep_adoptions(world: &mut World) {
    let server = world.resource::<AssetServer>().clone();
    world.insert_resource(Adoptions(vec![
        server.load("bag.adoption.json"),
        server.load("vault.adoption.json"),
    ]));
}

fn app(assets: &Path, db: Option<ContainerDatabase>) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: assets.display().to_string(),
            watch_for_changes_override: Some(false),
            ..default()
        },
        ContainerPlugin::default(),
    ));
    if let Some(db) = db {
        app.add_plugins(ContainerDatabasePlugin::new(db));
    }
    app
}

/// The persisted containers, by id.
fn by_id(world: &mut World) -> BTreeMap<String, Entity> {
    world
        .query_filtered::<(Entity, &PersistentId), With<Container>>()
        .iter(world)
        .map(|(e, id)| (id.0.clone(), e))
        .collect()
}

fn spawn_bag(world: &mut World, id: &str, store: Option<Entity>, x: f32) -> Entity {
    let adoption = world.resource::<AssetServer>().load("bag.adoption.json");
    let mut e = world.spawn((
        PersistentId::new(id),
        Container::new(adoption),
        Transform::from_xyz(x, 0.0, 0.0),
    ));
    if let Some(store) = store {
        e.insert(OverflowStore(store));
    }
    e.id()
}

/// Strong handles to both adoptions for the app's whole life, as a game
/// keeps its assets: a bag spawned just after the last one left would
/// otherwise wait for its adoption to load again, a frame or more later
/// depending on the machine.
#[derive(Resource)]
#[allow(dead_code)]
struct Adoptions(Vec<Handle<AdoptionAsset>>);

/// The vault and four bags (a fresh world).
fn spawn_world(world: &mut World) {
    keep_adoptions(world);
    let adoption = world.resource::<AssetServer>().load("vault.adoption.json");
    let vault = world
        .spawn((
            PersistentId::new("vault"),
            Container::new(adoption),
            Transform::default(),
        ))
        .id();
    for i in 0..4 {
        spawn_bag(world, &format!("bag-{i}"), Some(vault), 2.0 + i as f32);
    }
}

/// A new folder `name` with the adoptions, a new database in it, and an
/// app on that database whose fresh world is ready.
fn fresh_world(name: &str) -> (PathBuf, PathBuf, App) {
    let dir = folder(name);
    let file = dir.join("world.db");
    let mut app = app(&dir, Some(ContainerDatabase::open(&file).expect("new")));
    spawn_world(app.world_mut());
    until_ready(&mut app);
    (dir, file, app)
}

/// Waits for the writer to write every frame handed over, then drops the
/// app (and the writer with it), so the file can be opened again.
fn close(app: App) {
    app.world()
        .resource::<DatabaseWriter>()
        .flush()
        .expect("written");
    drop(app);
}

/// Runs frames until every container is ready (bounded).
fn until_ready(app: &mut App) {
    for _ in 0..2_000 {
        app.update();
        let world = app.world_mut();
        let all = world
            .query::<&ContainerContents>()
            .iter(world)
            .all(ContainerContents::is_ready);
        if all {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("the adoptions never loaded");
}

const ITEMS: [&str; 3] = ["ore", "berries", "gem"];

/// Step `k` of the deterministic stream: written into the world before
/// frame `k`'s update. Deliveries, takes, transfers (bag to bag, bag to
/// vault), forced removals (a bag shrinks: ore to the vault, berries to
/// the ground, gems destroyed), pickups picked up, store links changed,
/// bags despawned (their items spill) and new bags spawned.
fn step(world: &mut World, k: u64) {
    let mut rng = Rng(k.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x00C0_FFEE);
    let ids = by_id(world);
    let list: Vec<(&String, &Entity)> = ids.iter().collect();
    let pick = |rng: &mut Rng| *list[rng.below(list.len())].1;
    let item = |rng: &mut Rng| ITEMS[rng.below(ITEMS.len())];
    for n in 0..1 + rng.below(3) {
        let request: ContainerRequest = match rng.below(20) {
            0..=5 => {
                let mut d = Deliver::new(pick(&mut rng), item(&mut rng), 1 + rng.below(14) as u32);
                if rng.below(4) == 0 {
                    d = d.with_props(Props::new([("q", rng.below(3) as u32)]).expect("valid"));
                }
                d.into()
            }
            6..=8 => Take::new(pick(&mut rng), item(&mut rng), 1 + rng.below(8) as u32).into(),
            9..=13 => Transfer {
                from: pick(&mut rng),
                to: pick(&mut rng),
                request: TransferRequest::item(item(&mut rng), 1 + rng.below(12) as u32),
            }
            .into(),
            14 | 15 => Resize {
                container: pick(&mut rng),
                slot_count: Some(1 + rng.below(4) as u32),
                size_budget: None,
            }
            .into(),
            16 => {
                let mut loose: Vec<(PickupKey, Entity)> = world
                    .query::<(Entity, &LoosePickup, &Transform)>()
                    .iter(world)
                    .map(|(e, p, t)| (pickup_key(&p.item, p.amount, &p.props, t.translation), e))
                    .collect();
                // by what it is, not by entity: the same on every run (two
                // pickups alike in all of it are the same to pick up)
                loose.sort_by(|a, b| a.0.cmp(&b.0));
                let Some(p) = loose.get(rng.below(loose.len().max(1))) else {
                    continue;
                };
                PickUp {
                    container: pick(&mut rng),
                    pickup: p.1,
                }
                .into()
            }
            17 => {
                let (bag, store) = (pick(&mut rng), pick(&mut rng));
                if bag != store {
                    world.entity_mut(bag).insert(OverflowStore(store));
                }
                continue;
            }
            18 => {
                let bag = pick(&mut rng);
                if world
                    .get::<PersistentId>(bag)
                    .is_some_and(|id| id.0 != "vault")
                {
                    world.entity_mut(bag).despawn();
                    // the step's entities are stale now
                    break;
                }
                continue;
            }
            _ => {
                let store = ids.get("vault").copied();
                spawn_bag(world, &format!("bag-k{k}-{n}"), store, k as f32 % 17.0);
                continue;
            }
        };
        world.write_message(request);
    }
}

/// A pickup as the snapshots compare it: what it holds and exactly where.
type PickupKey = (String, u32, String, [u32; 3]);

fn pickup_key(item: &str, amount: u32, props: &Props, at: Vec3) -> PickupKey {
    (
        item.to_string(),
        amount,
        props.canonical().to_string(),
        at.to_array().map(f32::to_bits),
    )
}

/// What a world holds, as the file would: each container's save and store,
/// and the pickups (as a sorted list: their ids are the file's own).
#[derive(Debug, PartialEq)]
struct Snapshot {
    containers: BTreeMap<String, (String, String, Option<String>)>,
    pickups: Vec<PickupKey>,
}

fn snapshot(world: &mut World) -> Snapshot {
    let mut containers = BTreeMap::new();
    let ids: BTreeMap<Entity, String> = world
        .query::<(Entity, &PersistentId)>()
        .iter(world)
        .map(|(e, id)| (e, id.0.clone()))
        .collect();
    for (id, contents, container, store) in world
        .query::<(
            &PersistentId,
            &ContainerContents,
            &Container,
            Option<&OverflowStore>,
        )>()
        .iter(world)
    {
        let (Some(engine), Some(adoption)) = (contents.engine(), contents.adoption()) else {
            continue;
        };
        let path = container
            .adoption
            .path()
            .map(|p| p.to_string())
            .expect("a path");
        let store = store.and_then(|s| ids.get(&s.0).cloned());
        containers.insert(id.0.clone(), (path, engine.save(adoption).to_json(), store));
    }
    let mut pickups: Vec<_> = world
        .query::<(&LoosePickup, &Transform)>()
        .iter(world)
        .map(|(p, t)| pickup_key(&p.item, p.amount, &p.props, t.translation))
        .collect();
    pickups.sort();
    Snapshot {
        containers,
        pickups,
    }
}

/// Asserts two snapshots are equal, naming what differs (not printing
/// whole worlds).
fn assert_same(file: &Snapshot, world: &Snapshot, context: &str) {
    let mut differ = Vec::new();
    let ids: std::collections::BTreeSet<&String> = file
        .containers
        .keys()
        .chain(world.containers.keys())
        .collect();
    for id in ids {
        if file.containers.get(id) != world.containers.get(id) {
            differ.push(format!(
                "container {id}: file {:?}\nworld {:?}",
                file.containers.get(id),
                world.containers.get(id)
            ));
        }
    }
    if file.pickups != world.pickups {
        let only_file: Vec<_> = file
            .pickups
            .iter()
            .filter(|p| !world.pickups.contains(p))
            .collect();
        let only_world: Vec<_> = world
            .pickups
            .iter()
            .filter(|p| !file.pickups.contains(p))
            .collect();
        differ.push(format!(
            "pickups ({} and {}): only in the file {only_file:?}, only in the world {only_world:?}",
            file.pickups.len(),
            world.pickups.len()
        ));
    }
    assert!(differ.is_empty(), "{context}:\n{}", differ.join("\n"));
}

/// What the file holds, in the same shape.
fn file_snapshot(db: &ContainerDatabase) -> Snapshot {
    let containers = db
        .containers()
        .iter()
        .map(|r| {
            (
                r.id.clone(),
                (r.adoption.clone(), r.contents.to_json(), r.store.clone()),
            )
        })
        .collect();
    let mut pickups: Vec<_> = db
        .pickups()
        .iter()
        .map(|p| pickup_key(&p.item, p.amount, &p.props, p.translation))
        .collect();
    pickups.sort();
    Snapshot {
        containers,
        pickups,
    }
}

/// The world after the setup and `steps` steps, without a database.
fn replay(assets: &Path, steps: u64) -> App {
    let mut app = app(assets, None);
    spawn_world(app.world_mut());
    until_ready(&mut app);
    for k in 1..=steps {
        step(app.world_mut(), k);
        app.update();
    }
    app
}

// ---------------------------------------------------------------------------
// Restart

#[test]
fn a_restart_brings_every_container_store_link_and_pickup_back() {
    let dir = folder("restart");
    let file = dir.join("world.db");
    let mut first = app(
        &dir,
        Some(ContainerDatabase::open(&file).expect("a new file")),
    );
    spawn_world(first.world_mut());
    until_ready(&mut first);
    for k in 1..=300 {
        step(first.world_mut(), k);
        first.update();
    }
    let before = snapshot(first.world_mut());
    assert!(
        !before.pickups.is_empty(),
        "the stream dropped items on the ground"
    );
    assert!(
        before.containers.values().any(|c| c.2.is_some()),
        "some store links"
    );
    assert!(
        before.containers.keys().any(|id| id.starts_with("bag-k")),
        "new bags"
    );
    let frame = first.world().resource::<DatabaseWriter>().frame();
    first
        .world()
        .resource::<DatabaseWriter>()
        .flush()
        .expect("written");
    let stats = first.world().resource::<DatabaseWriter>().stats();
    assert_eq!(stats.written_frame, frame);
    assert!(
        stats.rows_deleted > 0,
        "despawned bags and picked-up pickups left the file"
    );
    drop(first);

    // what the file holds is the world, exactly
    let db = ContainerDatabase::open(&file).expect("reopens");
    assert_eq!(db.frame(), frame);
    assert_eq!(file_snapshot(&db), before);
    // and the plugin brings it back into a new world
    let mut second = app(&dir, Some(db));
    keep_adoptions(second.world_mut());
    until_ready(&mut second);
    assert_eq!(snapshot(second.world_mut()), before);
    let ids = second.world().resource::<PersistentEntities>().clone();
    assert_eq!(ids.len(), before.containers.len() + before.pickups.len());
    // it goes on from the frame it stopped at, and keeps writing
    step(second.world_mut(), 301);
    second.update();
    let w = second.world().resource::<DatabaseWriter>();
    assert!(w.frame() > frame);
    w.flush().expect("written");
}

#[test]
fn a_writer_behind_merges_frames_and_drops_nothing() {
    writer_behind("behind", WriterScheduling::default());
}

#[test]
fn an_idle_writer_behind_drops_nothing_either() {
    // the writer runs only on a core nothing else wants: it falls further
    // behind, and the game merges its frames into the newest waiting one
    writer_behind("behind-idle", WriterScheduling::Idle);
}

/// A writer that falls behind the game, scheduled as `scheduling`: every
/// frame is written, and the file ends as the world.
fn writer_behind(name: &str, scheduling: WriterScheduling) {
    let dir = folder(name);
    let file = dir.join("world.db");
    // a queue of one frame and a flush to disk per transaction: the writer
    // may fall behind the game (how often depends on the disk; the
    // writer's own test stalls it to be sure the game merges frames and
    // never waits), and the file must still be the world
    let db = ContainerDatabase::open(&file)
        .expect("new")
        .queue(1)
        .synchronous(Synchronous::Full)
        .scheduling(scheduling);
    let mut app = app(&dir, Some(db));
    if cfg!(target_os = "linux") {
        let now = app.world().resource::<DatabaseWriter>().scheduling();
        assert_eq!(now, scheduling, "the writer runs as asked");
    }
    spawn_world(app.world_mut());
    until_ready(&mut app);
    for k in 1..=200 {
        step(app.world_mut(), k);
        app.update();
    }
    let expected = snapshot(app.world_mut());
    let w = app.world().resource::<DatabaseWriter>();
    w.flush().expect("written");
    let (stats, behind, frame) = (w.stats(), w.merged_while_behind(), w.frame());
    eprintln!(
        "behind: {} transactions for {frame} frames, {} merged, {behind} of them by the game",
        stats.transactions, stats.merged_frames
    );
    assert!(
        behind <= stats.merged_frames,
        "the game's merges are counted"
    );
    assert_eq!(stats.written_frame, frame, "every frame is written");
    drop(app);
    let db = ContainerDatabase::open(&file).expect("reopens");
    assert_same(
        &file_snapshot(&db),
        &expected,
        "after a writer that fell behind",
    );
}

#[test]
fn frames_are_written_without_a_flush_while_they_come_and_after_a_pause() {
    // the writer takes frames on its own naps while they keep coming (the
    // game thread does not wake it), and the game wakes it after it fell
    // asleep: neither way may leave a frame unwritten until a flush
    let dir = folder("no-flush");
    let db = ContainerDatabase::open(dir.join("world.db")).expect("new");
    let mut app = app(&dir, Some(db));
    spawn_world(app.world_mut());
    until_ready(&mut app);
    for k in 1..=20 {
        step(app.world_mut(), k);
        app.update();
    }
    written_without_flush(&app, "while frames keep coming");
    // longer than the writer naps before it sleeps until woken
    std::thread::sleep(Duration::from_millis(400));
    step(app.world_mut(), 21);
    app.update();
    written_without_flush(&app, "after a pause of 0.4 s");
    let expected = snapshot(app.world_mut());
    drop(app);
    let db = ContainerDatabase::open(dir.join("world.db")).expect("reopens");
    assert_same(&file_snapshot(&db), &expected, "written without a flush");
}

/// Waits (up to 10 s, never flushing) until the writer has written every
/// frame handed over; fails saying `when` otherwise.
fn written_without_flush(app: &App, when: &str) {
    let w = app.world().resource::<DatabaseWriter>();
    let started = Instant::now();
    while w.written() < w.frame() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{when}: frame {} handed over, the writer is at {} after 10 s without a flush",
            w.frame(),
            w.written()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

// ---------------------------------------------------------------------------
// The kill test

const CHILD_DB: &str = "BEVY_CONTAINER_KILL_CHILD_DB";

/// The kill test's child process: the stream with the database, until it
/// is killed (or 20,000 frames). Not a test of its own: the kill test
/// runs it in another process.
#[test]
#[ignore = "the kill test's child process, started by kill_test_every_kill_leaves_a_frame_boundary"]
fn kill_test_child() {
    let Ok(file) = std::env::var(CHILD_DB) else {
        return;
    };
    let file = PathBuf::from(file);
    let dir = file.parent().expect("a folder").to_path_buf();
    let db = ContainerDatabase::open(&file)
        .expect("the child opens the file")
        .synchronous(Synchronous::Normal);
    let mut app = app(&dir, Some(db));
    spawn_world(app.world_mut());
    until_ready(&mut app);
    let w = app.world().resource::<DatabaseWriter>();
    w.flush().expect("the setup is written");
    println!("ready {}", w.frame());
    for k in 1..=20_000 {
        step(app.world_mut(), k);
        app.update();
    }
}

#[test]
fn kill_test_every_kill_leaves_a_frame_boundary() {
    let dir = folder("kill");
    let mut rng = Rng(0x005E_ED0F_C0DE);
    let started = Instant::now();
    let mut frames_seen = Vec::new();
    for run in 0..24 {
        let file = dir.join(format!("run-{run}.db"));
        let mut child = Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "kill_test_child",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(CHILD_DB, &file)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the child starts");
        let stdout = child.stdout.take().expect("piped");
        let mut ready = None;
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("reads");
            // the test harness writes its own words before it on the line
            if let Some(at) = line.find("ready ") {
                ready = Some(line[at + 6..].trim().parse::<u64>().expect("a frame"));
                break;
            }
        }
        let ready = ready.expect("the child got ready");
        // a moment from early in the stream to well into it
        std::thread::sleep(Duration::from_millis(5 + rng.below(400) as u64));
        child.kill().expect("SIGKILL");
        let _ = child.wait();

        let db = ContainerDatabase::open(&file).expect("a killed server's file opens");
        let frame = db.frame();
        assert!(frame >= ready, "run {run}: the setup was written");
        let steps = frame - ready;
        let mut replayed = replay(&dir, steps);
        assert_same(
            &file_snapshot(&db),
            &snapshot(replayed.world_mut()),
            &format!(
                "run {run}: the file after a kill at frame {frame} is the world after step {steps}"
            ),
        );
        if run % 6 == 0 {
            // and it loads back through the plugin
            let mut loaded = app(&dir, Some(db));
            until_ready(&mut loaded);
            assert_same(
                &snapshot(loaded.world_mut()),
                &snapshot(replayed.world_mut()),
                &format!("run {run}: loaded back"),
            );
        }
        frames_seen.push(steps);
    }
    frames_seen.sort();
    frames_seen.dedup();
    assert!(
        frames_seen.len() >= 12,
        "the kills fell at different moments: {frames_seen:?}"
    );
    assert!(
        frames_seen.last().is_some_and(|&f| f >= 20),
        "some kills came well into the stream: {frames_seen:?}"
    );
    eprintln!(
        "kill test: 24 kills, steps written {frames_seen:?}, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

// ---------------------------------------------------------------------------
// Damaged databases

/// A file with a world in it, closed.
fn written_file(name: &str) -> (PathBuf, PathBuf) {
    let (dir, file, mut app) = fresh_world(name);
    for k in 1..=60 {
        step(app.world_mut(), k);
        app.update();
    }
    close(app);
    (dir, file)
}

/// Runs SQL on the file as a hand edit would.
fn edit(file: &Path, sql: &str) {
    let c = rusqlite::Connection::open(file).expect("opens");
    c.execute_batch(sql).expect("the edit runs");
}

fn row_error(file: &Path) -> (&'static str, String, String) {
    match ContainerDatabase::open(file) {
        Err(DatabaseError::Row {
            table,
            key,
            message,
            ..
        }) => (table, key, message),
        Err(other) => panic!("a row error, not {other}"),
        Ok(_) => panic!("the damaged file opened"),
    }
}

#[test]
fn a_hand_edited_row_is_refused_with_its_table_and_key_and_nothing_loads() {
    let (_dir, file) = written_file("edited");
    let cases: [(&str, &str, &str, &str); 8] = [
        (
            "UPDATE containers SET contents = '{\"format\": 1, \"slots\": [' WHERE id = 'vault'",
            "containers",
            "vault",
            "column contents is not a save",
        ),
        (
            "UPDATE containers SET contents = X'00FF' WHERE id = 'bag-0'",
            "containers",
            "bag-0",
            "column contents holds a blob",
        ),
        (
            "UPDATE containers SET store = 'nowhere' WHERE id = 'vault'",
            "containers",
            "vault",
            "\"nowhere\", which is not a container",
        ),
        (
            "INSERT INTO pickups VALUES ('pickup-999', 'ore', 0, 0, 0, 0, '')",
            "pickups",
            "pickup-999",
            "column amount is 0",
        ),
        (
            "INSERT INTO pickups VALUES ('pickup-998', 'ore', 'many', 0, 0, 0, '')",
            "pickups",
            "pickup-998",
            "column amount holds text",
        ),
        (
            "INSERT INTO pickups VALUES ('pickup-997', 'Ore Chunk', 1, 0, 0, 0, '')",
            "pickups",
            "pickup-997",
            "not a kebab-case item type",
        ),
        (
            "INSERT INTO pickups VALUES ('vault', 'ore', 1, 0, 0, 0, '')",
            "pickups",
            "vault",
            "also a container's id",
        ),
        (
            "INSERT INTO pickups VALUES ('pickup-996', 'ore', 1, 0, 0, 0, '{\"q\":1e400}')",
            "pickups",
            "pickup-996",
            "column props",
        ),
    ];
    let pristine = std::fs::read(&file).expect("reads");
    for (sql, table, key, says) in cases {
        std::fs::write(&file, &pristine).expect("restores");
        edit(&file, sql);
        let (t, k, message) = row_error(&file);
        assert_eq!((t, k.as_str()), (table, key), "{sql}");
        assert!(message.contains(says), "{sql}: {message}");
        let shown = ContainerDatabase::open(&file)
            .err()
            .expect("refused")
            .to_string();
        assert!(
            shown.contains("world.db")
                && shown.contains(key)
                && shown.contains("fix or delete the row"),
            "the error names the file, the key and the fix: {shown}"
        );
    }
}

#[test]
fn a_truncated_or_foreign_file_is_refused_as_damaged() {
    let (dir, file) = written_file("truncated");
    let bytes = std::fs::read(&file).expect("reads");
    assert!(bytes.len() > 8192, "a file of several pages");
    let cut = dir.join("cut.db");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("writes");
    let cut_error = ContainerDatabase::open(&cut)
        .err()
        .expect("a truncated file is refused");
    assert!(
        matches!(cut_error, DatabaseError::Damaged { .. }),
        "damaged, not {cut_error}"
    );
    let garbage = dir.join("garbage.db");
    std::fs::write(&garbage, vec![0x5Au8; 4096]).expect("writes");
    let e = ContainerDatabase::open(&garbage).err().expect("refused");
    assert!(matches!(e, DatabaseError::Damaged { .. }), "{e}");
    assert!(e.to_string().contains("garbage.db") && e.to_string().contains("backup"));
    // another program's database
    let foreign = dir.join("foreign.db");
    edit(&foreign, "CREATE TABLE songs (title TEXT);");
    let before = std::fs::read(&foreign).expect("reads");
    let e = ContainerDatabase::open(&foreign).err().expect("refused");
    assert!(matches!(e, DatabaseError::Damaged { .. }), "{e}");
    assert!(
        std::fs::read(&foreign).expect("reads") == before,
        "a refused file is left as it was (not switched to WAL)"
    );
    // one of ours with a table gone
    let (_dir, dropped) = written_file("dropped-table");
    edit(&dropped, "DROP TABLE pickups;");
    let e = ContainerDatabase::open(&dropped).err().expect("refused");
    assert!(matches!(e, DatabaseError::Damaged { .. }), "{e}");
    let shown = e.to_string();
    assert!(
        shown.contains("table pickups") && shown.contains("backup"),
        "names the table and the fix: {shown}"
    );
}

#[test]
fn a_file_from_a_newer_version_is_refused() {
    let (_dir, file) = written_file("newer");
    edit(
        &file,
        &format!("PRAGMA user_version = {};", SCHEMA_VERSION + 1),
    );
    match ContainerDatabase::open(&file) {
        Err(DatabaseError::Newer {
            found, supported, ..
        }) => assert_eq!((found, supported), (SCHEMA_VERSION + 1, SCHEMA_VERSION)),
        Err(other) => panic!("newer, not {other}"),
        Ok(_) => panic!("a newer file opened"),
    }
}

#[test]
fn a_version_1_file_is_migrated_and_its_pickups_are_plain() {
    let dir = folder("version-1");
    let file = dir.join("old.db");
    // what the first schema wrote: pickups without properties
    edit(
        &file,
        "CREATE TABLE frame (only INTEGER PRIMARY KEY CHECK (only = 0), frame INTEGER NOT NULL, next_pickup INTEGER NOT NULL);
         INSERT INTO frame VALUES (0, 41, 3);
         CREATE TABLE containers (id TEXT PRIMARY KEY NOT NULL, adoption TEXT NOT NULL, contents TEXT NOT NULL, store TEXT);
         CREATE TABLE pickups (id TEXT PRIMARY KEY NOT NULL, item TEXT NOT NULL, amount INTEGER NOT NULL, x REAL NOT NULL, y REAL NOT NULL, z REAL NOT NULL);
         INSERT INTO pickups VALUES ('pickup-1', 'ore', 4, 1.5, 0, 0), ('pickup-2', 'gem', 1, 0, 2, 0);
         PRAGMA user_version = 1;",
    );
    let db = ContainerDatabase::open(&file).expect("migrates");
    assert_eq!(db.frame(), 41);
    assert_eq!(db.pickups().len(), 2);
    assert!(db.pickups().iter().all(|p| p.props.is_empty()));
    assert_eq!(db.pickups()[0].translation, Vec3::new(1.5, 0.0, 0.0));
    drop(db);
    let c = rusqlite::Connection::open(&file).expect("opens");
    let v: i64 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("reads");
    assert_eq!(v, SCHEMA_VERSION);
}

#[test]
fn a_file_held_by_another_server_is_refused_as_locked() {
    let dir = folder("locked");
    let file = dir.join("world.db");
    let first = ContainerDatabase::open(&file).expect("opens");
    match ContainerDatabase::open(&file) {
        Err(DatabaseError::Locked { path }) => assert!(path.ends_with("world.db")),
        Err(other) => panic!("locked, not {other}"),
        Ok(_) => panic!("two servers on one file"),
    }
    drop(first);
    ContainerDatabase::open(&file).expect("free again once the first closes");
}

#[test]
fn a_file_that_cannot_be_written_is_refused_as_read_only() {
    let dir = folder("read-only");
    let file = dir.join("world.db");
    drop(ContainerDatabase::open(&file).expect("creates"));
    // a read-only file (and, for a user who may write anything, such as
    // root, a file SQLite itself is told it may only read)
    let mut perms = std::fs::metadata(&file).expect("exists").permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&file, perms).expect("chmod");
    let writable = std::fs::OpenOptions::new().write(true).open(&file).is_ok();
    let e = if writable {
        ContainerDatabase::open(format!("file:{}?mode=ro", file.display()))
    } else {
        ContainerDatabase::open(&file)
    }
    .err()
    .expect("refused");
    assert!(
        matches!(e, DatabaseError::ReadOnly { .. }),
        "read-only, not {e}"
    );
    assert!(e.to_string().contains("writable"), "{e}");
}

#[test]
fn a_changed_adoption_migrates_what_the_file_holds_and_reports_it() {
    let (dir, file, mut first) = fresh_world("migrate");
    let vault = by_id(first.world_mut())["vault"];
    for (item, n) in [("ore", 10), ("berries", 20), ("gem", 1), ("gem", 1)] {
        first
            .world_mut()
            .write_message(ContainerRequest::from(Deliver::new(vault, item, n)));
    }
    first.update();
    close(first);
    // the vault now has 2 slots: what no longer fits is forced out, once
    let db = ContainerDatabase::open(&file).expect("opens");
    let vault_held: usize = db
        .containers()
        .iter()
        .find(|r| r.id == "vault")
        .map(|r| r.contents.slots.iter().flatten().count())
        .expect("the vault");
    assert_eq!(vault_held, 4, "the vault holds 4 stacks");
    let text = std::fs::read_to_string(dir.join("vault.adoption.json")).expect("reads");
    std::fs::write(
        dir.join("vault.adoption.json"),
        text.replace("\"slot-count\":8", "\"slot-count\":2"),
    )
    .expect("writes");
    let mut app = app(&dir, Some(db));
    app.init_resource::<Forced>().add_observer(
        |f: On<ItemsForcedOut>, mut seen: ResMut<Forced>| seen.0.push(f.outcome.cause),
    );
    until_ready(&mut app);
    app.update();
    let forced = &app.world().resource::<Forced>().0;
    assert!(
        forced.contains(&Cause::Loaded),
        "forced out with cause loaded: {forced:?}"
    );
    close(app);
    let db = ContainerDatabase::open(&file).expect("reopens");
    let vault = db
        .containers()
        .iter()
        .find(|r| r.id == "vault")
        .expect("kept");
    assert_eq!(
        vault.contents.slots.len(),
        2,
        "the migration is in the file"
    );
}

#[test]
fn what_leaves_or_is_renamed_in_the_first_frame_after_a_load_leaves_no_row_behind() {
    let (dir, file, mut first) = fresh_world("first-frame");
    first.world_mut().spawn((
        LoosePickup {
            item: "berries".into(),
            amount: 3,
            props: Props::EMPTY,
        },
        Transform::from_xyz(1.0, 0.0, 0.0),
    ));
    first.update();
    close(first);
    let db = ContainerDatabase::open(&file).expect("opens");
    assert_eq!(db.pickups().len(), 1, "the pickup is in the file");
    // in the very first frame, before anything was handed over: the
    // pickup is picked up (it leaves), bag-0 is renamed, bag-1 loses its id
    let mut app = app(&dir, Some(db));
    keep_adoptions(app.world_mut());
    app.add_systems(
        Update,
        |mut commands: Commands,
         ids: Res<PersistentEntities>,
         pickups: Query<Entity, With<LoosePickup>>,
         mut done: Local<bool>| {
            if std::mem::replace(&mut *done, true) {
                return;
            }
            for p in &pickups {
                commands.entity(p).despawn();
            }
            let (Some(bag0), Some(bag1)) = (ids.get("bag-0"), ids.get("bag-1")) else {
                panic!("the bags were loaded before the first frame's systems");
            };
            commands
                .entity(bag0)
                .insert(PersistentId::new("bag-renamed"));
            commands.entity(bag1).remove::<PersistentId>();
        },
    );
    until_ready(&mut app);
    close(app);
    let db = ContainerDatabase::open(&file).expect("reopens");
    assert!(db.pickups().is_empty(), "the pickup's row went with it");
    let ids: Vec<&str> = db.containers().iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        ["bag-2", "bag-3", "bag-renamed", "vault"],
        "one row per container, under its id now"
    );
}

fn spawn_pickup(world: &mut World, item: &str, amount: u32, at: Vec3) -> Entity {
    world
        .spawn((
            LoosePickup {
                item: item.into(),
                amount,
                props: Props::EMPTY,
            },
            Transform::from_translation(at),
        ))
        .id()
}

#[test]
fn what_the_file_could_not_read_back_is_not_written_and_the_file_still_opens() {
    let (_dir, file, mut app) = fresh_world("unwritable");
    let world = app.world_mut();
    let lost = spawn_pickup(world, "berries", 2, Vec3::new(f32::NAN, 0.0, 0.0));
    spawn_pickup(world, "gem", 1, Vec3::new(0.0, f32::INFINITY, 0.0));
    spawn_pickup(world, "Berry Bush", 1, Vec3::ZERO);
    let emptied = spawn_pickup(world, "ore", 4, Vec3::X);
    let long = "x".repeat(300);
    let adoption = world.resource::<AssetServer>().load("bag.adoption.json");
    world.spawn((
        PersistentId::new(long.as_str()),
        Container::new(adoption),
        Transform::default(),
    ));
    app.update();
    app.update();
    // the NaN pickup moves somewhere real: written from then on
    app.world_mut()
        .entity_mut(lost)
        .insert(Transform::from_xyz(5.0, 0.0, 0.0));
    // the ore pickup is emptied: its row goes
    app.world_mut()
        .get_mut::<LoosePickup>(emptied)
        .expect("a pickup")
        .amount = 0;
    app.update();
    app.world()
        .resource::<DatabaseWriter>()
        .flush()
        .expect("the writer still writes");
    let emptied_id = app
        .world()
        .get::<PersistentId>(emptied)
        .expect("named")
        .0
        .clone();
    close(app);
    let db = ContainerDatabase::open(&file).expect("the file opens again");
    let mut pickups: Vec<(&str, u32, Vec3)> = db
        .pickups()
        .iter()
        .map(|p| (p.item.as_str(), p.amount, p.translation))
        .collect();
    pickups.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(
        pickups,
        [
            ("berries", 2, Vec3::new(5.0, 0.0, 0.0)),
            ("gem", 1, Vec3::ZERO)
        ],
        "every item the file can hold, a position it cannot at the origin"
    );
    assert!(db.containers().iter().all(|r| r.id != long));
    assert!(db.pickups().iter().all(|p| p.id != emptied_id));
    drop(db);

    // the emptied pickup holds items again: written again
    let dir = file.parent().expect("a folder").to_path_buf();
    let mut app = app_with(&dir, &file);
    until_ready(&mut app);
    let e = spawn_pickup(app.world_mut(), "ore", 1, Vec3::Y);
    app.update();
    app.world_mut()
        .get_mut::<LoosePickup>(e)
        .expect("a pickup")
        .amount = 0;
    app.update();
    app.world_mut()
        .get_mut::<LoosePickup>(e)
        .expect("a pickup")
        .amount = 6;
    app.update();
    close(app);
    let db = ContainerDatabase::open(&file).expect("opens");
    let ore: Vec<u32> = db
        .pickups()
        .iter()
        .filter(|p| p.item == "ore")
        .map(|p| p.amount)
        .collect();
    assert_eq!(ore, [6], "written again under a new key");
}

#[test]
fn ids_already_taken_are_not_given_twice_and_a_freed_id_is_taken_up() {
    let (_dir, file, mut app) = fresh_world("taken-ids");
    let world = app.world_mut();
    // the game names a pickup as the plugin would name the next one
    let named = spawn_pickup(world, "ore", 1, Vec3::X);
    world
        .entity_mut(named)
        .insert(PersistentId::new("pickup-1"));
    app.update();
    let unnamed = spawn_pickup(app.world_mut(), "gem", 1, Vec3::Y);
    app.update();
    app.update();
    let given = app
        .world()
        .get::<PersistentId>(unnamed)
        .expect("named by the plugin")
        .0
        .clone();
    assert_ne!(given, "pickup-1", "a number not taken");
    // a second vault under the vault's id: not persisted while the first
    // holds it, persisted once the first is gone
    let adoption = app
        .world()
        .resource::<AssetServer>()
        .load("vault.adoption.json");
    let second = app
        .world_mut()
        .spawn((
            PersistentId::new("vault"),
            Container::new(adoption),
            Transform::default(),
        ))
        .id();
    until_ready(&mut app);
    app.world_mut()
        .write_message(ContainerRequest::from(Deliver::new(second, "gem", 1)));
    app.update();
    let old = persisted(&app, "vault");
    assert_ne!(old, second, "the first holds the id");
    app.world_mut().entity_mut(old).despawn();
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(
        app.world().resource::<PersistentEntities>().get("vault"),
        Some(second),
        "the second vault took the id up"
    );
    close(app);
    let db = ContainerDatabase::open(&file).expect("opens");
    let ids: Vec<&str> = db.pickups().iter().map(|p| p.id.as_str()).collect();
    assert!(
        ids.contains(&"pickup-1") && ids.contains(&given.as_str()),
        "{ids:?}"
    );
    let vault = db
        .containers()
        .iter()
        .find(|r| r.id == "vault")
        .expect("the vault's row");
    assert_eq!(
        vault.contents.slots.iter().flatten().count(),
        1,
        "the second vault's gem"
    );
}

#[test]
fn an_entity_renamed_onto_a_taken_id_keeps_its_row_until_the_id_is_free() {
    let (_dir, file, mut app) = fresh_world("renamed-onto-taken");
    let ids = by_id(app.world_mut());
    let (bag0, bag1) = (ids["bag-0"], ids["bag-1"]);
    app.world_mut()
        .write_message(ContainerRequest::from(Deliver::new(bag0, "ore", 3)));
    app.update();
    // bag-1 holds the id: bag-0 keeps its row (and its ore) under bag-0
    app.world_mut()
        .entity_mut(bag0)
        .insert(PersistentId::new("bag-1"));
    app.update();
    app.world_mut()
        .write_message(ContainerRequest::from(Deliver::new(bag0, "ore", 1)));
    app.update();
    let held = app.world().resource::<PersistentEntities>().clone();
    assert_eq!(held.get("bag-1"), Some(bag1), "the first holder keeps it");
    assert_eq!(
        held.get("bag-0"),
        Some(bag0),
        "bag-0's row is still its own"
    );
    // bag-1 leaves: bag-0 takes the id up, and its old row goes
    app.world_mut().entity_mut(bag1).despawn();
    for _ in 0..3 {
        app.update();
    }
    let held = app.world().resource::<PersistentEntities>().clone();
    assert_eq!(held.get("bag-1"), Some(bag0));
    assert_eq!(held.get("bag-0"), None);
    close(app);
    let db = ContainerDatabase::open(&file).expect("opens");
    let ore = |id: &str| {
        db.containers().iter().find(|r| r.id == id).map(|r| {
            r.contents
                .slots
                .iter()
                .flatten()
                .filter(|s| s.item.as_str() == "ore")
                .map(|s| s.amount)
                .sum::<u32>()
        })
    };
    assert_eq!(ore("bag-0"), None, "the old row is gone");
    assert_eq!(ore("bag-1"), Some(4), "bag-0's ore, under its new id");
}

#[test]
fn a_pickup_that_becomes_a_container_under_its_id_leaves_one_row() {
    let (_dir, file, mut app) = fresh_world("pickup-to-container");
    let p = spawn_pickup(app.world_mut(), "ore", 2, Vec3::X);
    app.update();
    app.update();
    let id = app.world().get::<PersistentId>(p).expect("named").0.clone();
    let adoption = app
        .world()
        .resource::<AssetServer>()
        .load("vault.adoption.json");
    app.world_mut()
        .entity_mut(p)
        .remove::<LoosePickup>()
        .insert(Container::new(adoption));
    until_ready(&mut app);
    app.update();
    close(app);
    let db = ContainerDatabase::open(&file).expect("opens: the id is in one table");
    assert!(
        db.pickups().iter().all(|r| r.id != id),
        "the pickup's row went"
    );
    assert!(
        db.containers().iter().any(|r| r.id == id),
        "the container's row is there"
    );
}

#[derive(Resource, Default)]
struct Forced(Vec<Cause>);

/// Every `ContainerSaveRefused` seen, by container.
#[derive(Resource, Default)]
struct Refused(Vec<Entity>);

#[test]
fn a_refused_migration_keeps_its_row_unchanged_and_is_reported() {
    let (dir, file, mut first) = fresh_world("refused-migration");
    let vault = by_id(first.world_mut())["vault"];
    // relics have no row: under any-item each takes a slot of its own and
    // never leaves in a forced removal
    first
        .world_mut()
        .write_message(ContainerRequest::from(Deliver::new(vault, "relic", 3)));
    first.update();
    close(first);
    let db = ContainerDatabase::open(&file).expect("opens");
    let before = container_row(&db, "vault");
    assert_eq!(
        before.contents.slots.iter().flatten().count(),
        3,
        "three relics, a slot each"
    );
    let bag_before = container_row(&db, "bag-0");

    // the vault now has 2 slots: the three relics cannot all stay and none
    // may leave, so the migration is refused
    let text = std::fs::read_to_string(dir.join("vault.adoption.json")).expect("reads");
    let two = text.replace("\"slot-count\":8", "\"slot-count\":2");
    assert_ne!(two, text, "the vault had 8 slots");
    std::fs::write(dir.join("vault.adoption.json"), two).expect("writes");
    let mut app = app_watching_refusals(&dir, db);
    for _ in 0..2_000 {
        app.update();
        if !app.world().resource::<Refused>().0.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let vault = persisted(&app, "vault");
    assert_eq!(
        app.world().resource::<Refused>().0,
        [vault],
        "the vault's refusal reported once"
    );
    let contents = app
        .world()
        .get::<ContainerContents>(vault)
        .expect("a container");
    assert!(!contents.is_ready(), "no rules attached to a refused save");
    assert_eq!(
        contents.state().pending(),
        Some(&before.contents),
        "the save kept attached, unchanged"
    );
    assert!(
        app.world().resource::<Forced>().0.is_empty(),
        "nothing forced out"
    );
    // other containers go on being written around it
    let bag = persisted(&app, "bag-0");
    app.world_mut()
        .write_message(ContainerRequest::from(Deliver::new(bag, "berries", 2)));
    for _ in 0..3 {
        app.update();
    }
    close(app);
    let db = ContainerDatabase::open(&file).expect("reopens");
    assert_eq!(
        container_row(&db, "vault"),
        before,
        "the vault's row is as it was"
    );
    assert_ne!(
        container_row(&db, "bag-0"),
        bag_before,
        "bag-0's delivery is written"
    );
    let pickups = db.pickups().len();
    drop(db);

    assert_vault_loads_whole(&dir, &file, &text, pickups);
}

/// The row the file holds for container `id`; panics if there is none.
fn container_row(db: &ContainerDatabase, id: &str) -> ContainerRow {
    db.containers()
        .iter()
        .find(|r| r.id == id)
        .cloned()
        .unwrap_or_else(|| panic!("{id} is in the file"))
}

/// An app on `db` with the adoptions kept, noting forced removals and refused saves.
fn app_watching_refusals(dir: &Path, db: ContainerDatabase) -> App {
    let mut app = app(dir, Some(db));
    keep_adoptions(app.world_mut());
    app.init_resource::<Forced>()
        .init_resource::<Refused>()
        .add_observer(|f: On<ItemsForcedOut>, mut seen: ResMut<Forced>| {
            seen.0.push(f.outcome.cause)
        })
        .add_systems(
            Update,
            |mut r: MessageReader<ContainerSaveRefused>, mut seen: ResMut<Refused>| {
                seen.0.extend(r.read().map(|r| r.container));
            },
        );
    app
}

/// Puts the vault's old adoption `text` back and checks it loads whole, dropping nothing.
fn assert_vault_loads_whole(dir: &Path, file: &Path, text: &str, pickups: usize) {
    // under its old capacity again, the vault loads whole
    std::fs::write(dir.join("vault.adoption.json"), text).expect("writes");
    let mut app = app_with(dir, file);
    until_ready(&mut app);
    let vault = persisted(&app, "vault");
    let contents = app
        .world()
        .get::<ContainerContents>(vault)
        .expect("a container");
    assert_eq!(contents.count("relic"), 3, "every relic is back");
    close(app);
    assert_eq!(
        ContainerDatabase::open(file)
            .expect("reopens")
            .pickups()
            .len(),
        pickups,
        "nothing dropped"
    );
}

/// Replaces the loaded vault adoption with `text` (as a hot reload does),
/// under a new id; returns the id's hash.
fn reload_vault(app: &mut App, text: &str) -> String {
    let adoption = Adoption::read_json(text.as_bytes()).expect("an adoption");
    let id = AdoptionId::of("vault.adoption.json", text.as_bytes());
    let hash = id.hash.clone();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<AdoptionAsset>("vault.adoption.json");
    app.world_mut()
        .resource_mut::<Assets<AdoptionAsset>>()
        .insert(
            &handle,
            AdoptionAsset {
                adoption,
                warnings: Default::default(),
                id,
            },
        )
        .expect("inserted");
    hash
}

/// The vault's row once `app` is gone: its save's adoption hash and slots.
fn vault_row(app: App, file: &Path) -> (String, usize) {
    close(app);
    let db = ContainerDatabase::open(file).expect("reopens");
    let row = db
        .containers()
        .iter()
        .find(|r| r.id == "vault")
        .expect("the vault")
        .clone();
    (row.contents.adoption.hash, row.contents.slots.len())
}

#[test]
fn an_adoption_reloaded_while_running_is_the_one_the_file_names() {
    let (dir, file, mut app) = fresh_world("reload");
    let text = std::fs::read_to_string(dir.join("vault.adoption.json")).expect("reads");
    let vault = by_id(app.world_mut())["vault"];
    app.world_mut()
        .write_message(ContainerRequest::from(Deliver::new(vault, "ore", 5)));
    app.update();
    // new rules (6 slots): the contents change with them, and the row
    // names the new adoption in the same frame
    let six = text.replace("\"slot-count\":8", "\"slot-count\":6");
    assert_ne!(six, text, "the vault had 8 slots");
    let hash = reload_vault(&mut app, &six);
    for _ in 0..3 {
        app.update();
    }
    let (written, slots) = vault_row(app, &file);
    assert_eq!((written, slots), (hash, 6), "the new rules and their id");

    // the same rules under a new id (the file reformatted): the next write
    // names the new id, though the rules did not change
    std::fs::write(dir.join("vault.adoption.json"), &six).expect("writes");
    let mut app = app_with(&dir, &file);
    until_ready(&mut app);
    let vault = persisted(&app, "vault");
    let spaced = six.replacen('{', "{ ", 1);
    let hash = reload_vault(&mut app, &spaced);
    for _ in 0..3 {
        app.update();
    }
    app.world_mut()
        .write_message(ContainerRequest::from(Deliver::new(vault, "ore", 1)));
    app.update();
    let (written, slots) = vault_row(app, &file);
    assert_eq!((written, slots), (hash, 6), "the new id, the same rules");
}

/// The entity persisted under `id` (loaded, or named since).
fn persisted(app: &App, id: &str) -> Entity {
    app.world()
        .resource::<PersistentEntities>()
        .get(id)
        .unwrap_or_else(|| panic!("{id} is persisted"))
}

/// An app on the database `file`, with the test's adoptions kept loaded.
fn app_with(dir: &Path, file: &Path) -> App {
    let mut app = app(dir, Some(ContainerDatabase::open(file).expect("opens")));
    keep_adoptions(app.world_mut());
    app
}

#[test]
fn a_store_that_loses_its_id_or_gets_it_late_leaves_every_link_in_the_file_true() {
    let (_dir, file, mut app) = fresh_world("relink");
    let ids = by_id(app.world_mut());
    // a chest with no id yet becomes bag-0's store
    let adoption = app
        .world()
        .resource::<AssetServer>()
        .load("vault.adoption.json");
    let chest = app
        .world_mut()
        .spawn((Container::new(adoption), Transform::default()))
        .id();
    app.world_mut()
        .entity_mut(ids["bag-0"])
        .insert(OverflowStore(chest));
    until_ready(&mut app);
    app.update();
    // the chest gets its id a frame later: bag-0's row must name it
    app.world_mut()
        .entity_mut(chest)
        .insert(PersistentId::new("chest"));
    app.update();
    // the vault stays in the world but loses its id: its row goes, and no
    // row may name it any more
    app.world_mut()
        .entity_mut(ids["vault"])
        .remove::<PersistentId>();
    app.update();
    app.update();
    close(app);
    let db = ContainerDatabase::open(&file).expect("every store link names a container");
    let stores: BTreeMap<String, Option<String>> = db
        .containers()
        .iter()
        .map(|r| (r.id.clone(), r.store.clone()))
        .collect();
    assert_eq!(stores.get("bag-0"), Some(&Some("chest".to_string())));
    for bag in ["bag-1", "bag-2", "bag-3"] {
        assert_eq!(stores.get(bag), Some(&None), "{bag} names no store");
    }
    assert!(!stores.contains_key("vault"), "the vault's row went");
}

#[test]
fn ids_given_before_the_database_or_renamed_are_the_names_in_the_file() {
    let dir = folder("named");
    let file = dir.join("world.db");
    // the world is spawned, ids and all, before the database plugin is
    // added: no insert of theirs was seen, the first hand-over finds them
    let mut app = app(&dir, None);
    spawn_world(app.world_mut());
    app.add_plugins(ContainerDatabasePlugin::new(
        ContainerDatabase::open(&file).expect("new"),
    ));
    until_ready(&mut app);
    app.update();
    let ids = by_id(app.world_mut());
    // bag-1 is renamed by inserting a new id; bag-2 gets one and loses it
    // in the same frame
    app.world_mut()
        .entity_mut(ids["bag-1"])
        .insert(PersistentId::new("satchel"));
    app.world_mut()
        .entity_mut(ids["bag-2"])
        .insert(PersistentId::new("fleeting"))
        .remove::<PersistentId>();
    app.update();
    app.update();
    let world = snapshot(app.world_mut());
    close(app);
    let db = ContainerDatabase::open(&file).expect("opens");
    let mut names: Vec<String> = db.containers().iter().map(|r| r.id.clone()).collect();
    names.sort();
    assert_eq!(names, ["bag-0", "bag-3", "satchel", "vault"]);
    // the renamed bag's contents are under its new name
    let file_world = file_snapshot(&db);
    assert!(world.containers.contains_key("satchel"));
    assert_eq!(
        file_world.containers.get("satchel"),
        world.containers.get("satchel"),
        "the renamed bag's row holds what it holds"
    );
}

/// Gives `container` the adoption at `path` (as a game swaps the handle);
/// returns the handle.
fn swap_adoption(app: &mut App, container: Entity, path: &str) -> Handle<AdoptionAsset> {
    let handle = app.world().resource::<AssetServer>().load(path.to_string());
    app.world_mut()
        .get_mut::<Container>(container)
        .expect("a container")
        .adoption = handle.clone();
    handle
}

#[test]
fn a_container_given_another_adoption_runs_and_restarts_under_it() {
    let (dir, file, mut app) = fresh_world("swap");
    let vault = by_id(app.world_mut())["vault"];
    app.init_resource::<Forced>().add_observer(
        |f: On<ItemsForcedOut>, mut seen: ResMut<Forced>| seen.0.push(f.outcome.cause),
    );
    // 35 ore in the vault (8 slots); the bag's 3 slots of 10 hold 30
    deliver_ore(&mut app, vault, 35);
    swap_adoption(&mut app, vault, "bag.adoption.json");
    app.update();
    let contents = app
        .world()
        .get::<ContainerContents>(vault)
        .expect("contents");
    assert_eq!(
        (contents.slots().len(), contents.count("ore")),
        (3, 30),
        "the bag's rules, at once"
    );
    assert_eq!(
        contents.adoption().map(|a| a.path.as_str()),
        Some("bag.adoption.json")
    );
    assert_eq!(
        app.world().resource::<Forced>().0,
        [Cause::RulesChanged],
        "what no longer fits is forced out, and said"
    );
    let running = snapshot(app.world_mut());
    let ore_on_ground: u32 = running
        .pickups
        .iter()
        .filter(|p| p.0 == "ore")
        .map(|p| p.1)
        .sum();
    assert_eq!(ore_on_ground, 5, "nothing lost: 30 in the vault, 5 dropped");
    restarts_as_it_ran(app, &dir, &file, &running, 3);
}

/// Closes `app`, then checks that the file holds `running` (the vault's
/// row with `vault_slots` slots) and that a restart brings it back.
fn restarts_as_it_ran(app: App, dir: &Path, file: &Path, running: &Snapshot, vault_slots: usize) {
    close(app);
    let db = ContainerDatabase::open(file).expect("reopens");
    assert_eq!(
        container_row(&db, "vault").contents.slots.len(),
        vault_slots
    );
    assert_eq!(file_snapshot(&db), *running);
    drop(db);
    let mut again = app_with(dir, file);
    until_ready(&mut again);
    assert_eq!(snapshot(again.world_mut()), *running);
    close(again);
}

/// Delivers `amount` ore to `container` and runs the frame.
fn deliver_ore(app: &mut App, container: Entity, amount: u32) {
    app.world_mut()
        .write_message(ContainerRequest::from(Deliver::new(
            container, "ore", amount,
        )));
    app.update();
}

/// Writes an adoption of `slots` slots (leftovers stay with the sender)
/// that holds only ore, 10 a stack, leaving as `when_forced_out` says.
fn write_ore_box(dir: &Path, name: &str, slots: u32, when_forced_out: &str) {
    let a = adoption_json(
        slot_answers("left-where-it-is"),
        slots,
        0.0,
        json!([{"id": "ore", "stack-limit": 10, "when-forced-out": when_forced_out, "forced-out-order": 1}]),
    );
    std::fs::write(dir.join(name), a.to_string()).expect("writes");
}

/// The forced removals a test saw: their cause, and whether each was
/// refused.
#[derive(Resource, Default)]
struct ForcedRefused(Vec<(Cause, bool)>);

#[test]
fn a_refused_swap_keeps_the_old_rules_and_goes_through_once_it_fits() {
    let (dir, file, mut app) = fresh_world("swap-refused");
    let vault = by_id(app.world_mut())["vault"];
    app.init_resource::<ForcedRefused>().add_observer(
        |f: On<ItemsForcedOut>, mut seen: ResMut<ForcedRefused>| {
            seen.0.push((f.outcome.cause, f.outcome.refused.is_some()))
        },
    );
    // 35 ore in the vault (10, 10, 10, 5); the strongbox's 3 slots of 10
    // hold 30, and its ore never leaves
    deliver_ore(&mut app, vault, 35);
    write_ore_box(&dir, "strongbox.adoption.json", 3, "never");
    let handle = swap_adoption(&mut app, vault, "strongbox.adoption.json");
    let deadline = Instant::now() + Duration::from_secs(10);
    while app.world().resource::<ForcedRefused>().0.is_empty() {
        assert!(Instant::now() < deadline, "the swap is tried once loaded");
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        app.world()
            .resource::<Assets<AdoptionAsset>>()
            .contains(&handle)
    );
    let state = |app: &App| {
        let c = app
            .world()
            .get::<ContainerContents>(vault)
            .expect("contents");
        let path = c.adoption().map(|a| a.path.clone()).unwrap_or_default();
        (c.slots().len(), c.count("ore"), path)
    };
    let vault_rules = (8, 35, "vault.adoption.json".to_string());
    assert_eq!(state(&app), vault_rules, "refused: the vault's rules stay");
    assert_eq!(
        app.world().resource::<ForcedRefused>().0,
        [(Cause::RulesChanged, true)],
        "the refusal is said"
    );
    // nothing changed in the vault: the swap is not tried again
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(state(&app), vault_rules);
    assert_eq!(
        app.world().resource::<ForcedRefused>().0.len(),
        1,
        "no retry"
    );
    // the player takes out the 5 that had no room: the swap goes through
    app.world_mut().write_message(ContainerRequest::from(
        Take::new(vault, "ore", 5).from_slot(3),
    ));
    app.update();
    app.update();
    let strongbox_rules = (3, 30, "strongbox.adoption.json".to_string());
    assert_eq!(state(&app), strongbox_rules, "in force once it fits");
    assert_eq!(
        app.world().resource::<ForcedRefused>().0,
        [(Cause::RulesChanged, true), (Cause::RulesChanged, false)]
    );
    let running = snapshot(app.world_mut());
    assert!(running.pickups.is_empty(), "nothing was forced out");
    // the row names the strongbox, and a restart runs under it
    restarts_as_it_ran(app, &dir, &file, &running, 3);
}

#[test]
fn a_swap_to_an_adoption_not_loaded_yet_waits_for_it() {
    let (dir, _file, mut app) = fresh_world("swap-later");
    let vault = by_id(app.world_mut())["vault"];
    deliver_ore(&mut app, vault, 35);
    // a 5-slot chest that nothing has asked the asset server for yet
    write_ore_box(&dir, "chest.adoption.json", 5, "dropped-nearby");
    let handle = swap_adoption(&mut app, vault, "chest.adoption.json");
    let slots = |app: &App| {
        let c = app
            .world()
            .get::<ContainerContents>(vault)
            .expect("contents");
        (c.slots().len(), c.count("ore"))
    };
    // the old rules hold until the file has loaded
    let deadline = Instant::now() + Duration::from_secs(10);
    while app
        .world()
        .resource::<Assets<AdoptionAsset>>()
        .get(&handle)
        .is_none()
    {
        assert_eq!(slots(&app), (8, 35), "the vault's rules while it loads");
        assert!(Instant::now() < deadline, "the chest's file loads");
        app.update();
        std::thread::sleep(Duration::from_millis(1));
    }
    app.update();
    assert_eq!(slots(&app), (5, 35), "the chest's rules once it loaded");
    close(app);
}

// ---------------------------------------------------------------------------
// The frame's end

/// The bag that [`deliver_in_last`] gives 5 ore, once.
#[derive(Resource)]
struct LastDelivery(Option<Entity>);

/// A game's system in `Last` that changes a container.
fn deliver_in_last(mut once: ResMut<LastDelivery>, mut containers: Containers) {
    if let Some(bag) = once.0.take() {
        containers.deliver(bag, "ore", 5, None).expect("delivered");
    }
}

/// The hand-over runs after `Last`: a container a game changes there is
/// written with the frame it changed in, not with the next one (after
/// this frame no other comes, and the file has the ore).
#[test]
fn a_change_made_in_last_is_written_with_its_own_frame() {
    let (_dir, file, mut app) = fresh_world("last");
    let bag = by_id(app.world_mut())["bag-0"];
    app.insert_resource(LastDelivery(Some(bag)))
        .add_systems(Last, deliver_in_last);
    app.update();
    close(app);
    let db = ContainerDatabase::open(&file).expect("opens");
    let ore: u32 = db
        .containers()
        .iter()
        .filter(|r| r.id == "bag-0")
        .flat_map(|r| r.contents.slots.iter().flatten())
        .filter(|s| s.item == "ore")
        .map(|s| s.amount)
        .sum();
    assert_eq!(ore, 5, "the ore delivered in Last is in the file");
}
