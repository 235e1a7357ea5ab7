//! Multiplayer containers over bevy_replicon and renet netcode (feature
//! `replicon`): a server that owns every container, and clients that see
//! only what each container's `ContainerAccess` lets them see. Headless,
//! UDP on 127.0.0.1 only, unsecure netcode authentication.
//!
//! Three modes:
//!
//! - `--server [--port N] [--db FILE]`: a server on 127.0.0.1:N (default
//!   5000; 0 lets the OS pick). It spawns a public chest, stocked by server
//!   deliveries, and a private backpack for every client that joins, and
//!   prints every outcome. Stop it with Ctrl-C (or kill it). With `--db`
//!   (feature `persist`), every container and pickup is kept in the SQLite
//!   file `FILE`, one transaction per frame: a restarted server brings the
//!   chest back as it was, and gives every client its own backpack back
//!   (clients are told apart by their netcode id, `--id`).
//! - `--client [--port N] [--id N] [--once]`: a client that connects to
//!   127.0.0.1:N, waits until its chest and backpack have replicated and
//!   are ready, moves berries from the chest into its backpack, moves part
//!   of them to another slot, prints what it sees and stays connected
//!   (`--once`: exits after the script).
//! - `--script [--port N]`: what CI runs. A server and two clients in one
//!   process and one thread, each `App` updated in turn, over real UDP
//!   sockets (port N, or one the OS picks), bounded to 20 s and 20,000
//!   updates. Both clients connect and get their own backpack; client 1
//!   moves berries from the chest to its backpack and rearranges them;
//!   client 2 tries to take from client 1's backpack (refused: it was
//!   never sent it) and moves an axe and berries from the chest. Then the
//!   clients' views are checked against the server's, each client must see
//!   its own backpack and not the other's, and the server's item totals
//!   must be conserved. Exit 0 with a short report, 1 with the mismatch or
//!   the timeout. With `--db FILE` (feature `persist`) the server keeps its
//!   containers in `FILE` (a new one); after the checks the server and
//!   both clients are dropped, a new server starts from the file, the
//!   clients reconnect with the same netcode ids, and each must get its
//!   backpack back exactly as it was, and see the chest as it was.
//!
//! ```text
//! cargo run --example multiplayer --features replicon -- --script
//! cargo run --example multiplayer --features replicon -- --server --port 5000
//! cargo run --example multiplayer --features replicon -- --client --port 5000 --once
//! cargo run --example multiplayer --features replicon,persist -- --server --db world.db
//! cargo run --example multiplayer --features replicon,persist -- --client --id 7 --once
//! ```
//!
//! Bad arguments exit with 2. Both containers use the seed adoption
//! (`assets/backpack.adoption.json`: 12 slots, berries stack to 20).

use std::collections::BTreeMap;
use std::fmt::Display;
use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::time::{Duration, Instant, SystemTime};

use bevy::app::ScheduleRunnerPlugin;
use bevy::ecs::system::SystemParam;
use bevy::log::{Level, LogPlugin};
use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_container::contents::{Rearranged, TransferRequest, Transferred};
use bevy_container::net::{
    Answer, ContainerAccess, ContainerNetPlugin, PendingRequests, RequestAnswered,
};
use bevy_container::plugin::{
    AdoptionAsset, Container, ContainerContents, ContainerPlugin, ContainerReady,
    ContainerRearranged, ContainerRequest, ContainerSystems, Deliver, ItemsDelivered, ItemsTaken,
    ItemsTransferred, LoosePickup, MoveItems, NotAnswered, RequestUnanswered, Take, Transfer,
};
use bevy_replicon::prelude::*;
use bevy_replicon::shared::backend::connected_client::NetworkId;
use bevy_replicon::shared::server_entity_map::ServerEntityMap;
use bevy_replicon_renet::netcode::{
    ClientAuthentication, NetcodeClientTransport, NetcodeErrorEvent, NetcodeServerTransport,
    ServerAuthentication, ServerConfig,
};
use bevy_replicon_renet::renet::ConnectionConfig;
use bevy_replicon_renet::{RenetChannelsExt, RenetClient, RenetServer, RepliconRenetPlugins};
use serde::{Deserialize, Serialize};

/// Netcode refuses clients of another protocol id.
const PROTOCOL_ID: u64 = 0xB0C0_7A1E_0000_0001;
const DEFAULT_PORT: u16 = 5000;
const MAX_CLIENTS: usize = 16;
/// One frame of the `--server` and `--client` loops.
const FRAME: Duration = Duration::from_millis(16);
/// There is no chest adoption among the assets: the chest is a 12-slot
/// container under the seed's rules.
const CHEST_ADOPTION: &str = "backpack.adoption.json";
const BACKPACK_ADOPTION: &str = "backpack.adoption.json";
/// What the server delivers into the chest once its rules attach.
const CHEST_STOCK: [(&str, u32); 3] = [("berries", 60), ("axe", 2), ("letter", 1)];
const SCRIPT_DEADLINE: Duration = Duration::from_secs(20);
const SCRIPT_MAX_UPDATES: u32 = 20_000;
const CLIENT_DEADLINE: Duration = Duration::from_secs(30);

const USAGE: &str = "usage:
  cargo run --example multiplayer --features replicon -- --server [--port N] [--db FILE]
  cargo run --example multiplayer --features replicon -- --client [--port N] [--id N] [--once]
  cargo run --example multiplayer --features replicon -- --script [--port N] [--db FILE]
--db needs the persist feature (--features replicon,persist).";

/// The shared chest (replicated with it, so a client can tell it apart).
#[derive(Component, Serialize, Deserialize)]
struct SharedChest;

/// A client's private backpack (replicated to its owner only).
#[derive(Component, Serialize, Deserialize)]
struct Backpack;

/// One entry per slot: the type and amount, or `None`.
type Slots = Vec<Option<(String, u32)>>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Server,
    Client,
    Script,
}

#[derive(Debug)]
struct Args {
    mode: Mode,
    port: Option<u16>,
    once: bool,
    /// The server's database file.
    db: Option<std::path::PathBuf>,
    /// The client's netcode id.
    id: Option<u64>,
}

fn main() -> AppExit {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return AppExit::Success;
        }
        Err(why) => {
            eprintln!("multiplayer: {why}\n\n{USAGE}");
            return AppExit::from_code(2);
        }
    };
    match args.mode {
        Mode::Server => run_server(args.port.unwrap_or(DEFAULT_PORT), args.db),
        Mode::Client => run_client(args.port.unwrap_or(DEFAULT_PORT), args.once, args.id),
        Mode::Script => run_script(args.port.unwrap_or(0), args.db),
    }
}

/// The arguments, or `None` for `--help`.
fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let (mut mode, mut port, mut once, mut db, mut id) = (None, None, false, None, None);
    while let Some(arg) = args.next() {
        let picked = match arg.as_str() {
            "--server" => Mode::Server,
            "--client" => Mode::Client,
            "--script" => Mode::Script,
            "--once" => {
                once = true;
                continue;
            }
            "--port" => {
                let value = args.next().ok_or("--port needs a number")?;
                port = Some(parse_port(&value)?);
                continue;
            }
            "--db" => {
                if !cfg!(feature = "persist") {
                    return Err(
                        "--db needs the persist feature: --features replicon,persist".into(),
                    );
                }
                let value = args.next().ok_or("--db needs a file")?;
                db = Some(std::path::PathBuf::from(value));
                continue;
            }
            "--id" => {
                let value = args.next().ok_or("--id needs a number")?;
                id = Some(
                    value
                        .parse::<u64>()
                        .map_err(|_| format!("--id expects a whole number, got `{value}`"))?,
                );
                continue;
            }
            "-h" | "--help" => return Ok(None),
            other => match other.strip_prefix("--port=") {
                Some(value) => {
                    port = Some(parse_port(value)?);
                    continue;
                }
                None => return Err(format!("unknown argument `{other}`")),
            },
        };
        if mode.is_some_and(|m| m != picked) {
            return Err("choose one of --server, --client and --script".into());
        }
        mode = Some(picked);
    }
    let mode = mode.ok_or("choose one of --server, --client and --script")?;
    if once && mode != Mode::Client {
        return Err("--once goes with --client".into());
    }
    if id.is_some() && mode != Mode::Client {
        return Err("--id goes with --client".into());
    }
    if db.is_some() && mode == Mode::Client {
        return Err("--db goes with --server or --script".into());
    }
    if port == Some(0) && mode == Mode::Client {
        return Err("--client needs the server's port, from 1 to 65535".into());
    }
    Ok(Some(Args {
        mode,
        port,
        once,
        db,
        id,
    }))
}

fn parse_port(value: &str) -> Result<u16, String> {
    value
        .parse::<u16>()
        .map_err(|_| format!("--port expects a number from 0 to 65535, got `{value}`"))
}

// ---------------------------------------------------------------------------
// The apps: the same plugins, in the same order, on every side.

/// A headless app with replicon, renet and the container plugins, in the
/// order `ContainerNetPlugin` asks for (after `ContainerPlugin` and
/// replicon's plugins). `who` names it in what it prints.
fn net_app(who: &'static str, log: Option<Level>) -> App {
    let mut app = App::new();
    // the runner only matters to `--server` and `--client` (`App::run`);
    // `--script` calls `update` itself
    app.add_plugins(MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(FRAME)));
    if let Some(level) = log {
        // one per process: the tracing subscriber is global
        app.add_plugins(LogPlugin { level, ..default() });
    }
    app.add_plugins((
        StatesPlugin,
        AssetPlugin {
            // the crate's assets/, wherever the binary is run from
            file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/assets").to_string(),
            watch_for_changes_override: Some(false),
            ..default()
        },
        // replicate every frame rather than on the fixed timestep
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        RepliconRenetPlugins,
        ContainerPlugin::default(),
        ContainerNetPlugin,
    ))
    .replicate::<SharedChest>()
    .replicate::<Backpack>()
    .insert_resource(Seen::new(who))
    .add_observer(report_network_error)
    .add_systems(Update, collect_outcomes.after(ContainerSystems::Requests));
    app
}

/// Runs the plugins' `finish` and `cleanup`, so replicon's channels and
/// protocol hash are final before the transport is made from them.
fn finish(app: &mut App) {
    app.finish();
    app.cleanup();
}

fn now() -> Result<Duration, String> {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_err(|e| format!("the system clock is before 1970: {e}"))
}

fn connection_config(channels: &RepliconChannels) -> ConnectionConfig {
    ConnectionConfig {
        server_channels_config: channels.server_configs(),
        client_channels_config: channels.client_configs(),
        ..Default::default()
    }
}

/// Makes `app` a netcode server on 127.0.0.1:`port` (0: the OS picks);
/// returns the address it listens on.
fn start_server(app: &mut App, port: u16, max_clients: usize) -> Result<SocketAddr, String> {
    let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let addr = socket
        .local_addr()
        .map_err(|e| format!("the server socket has no address: {e}"))?;
    let config = ServerConfig {
        current_time: now()?,
        max_clients,
        protocol_id: PROTOCOL_ID,
        public_addresses: vec![addr],
        authentication: ServerAuthentication::Unsecure,
    };
    let transport = NetcodeServerTransport::new(config, socket)
        .map_err(|e| format!("cannot start the netcode server: {e}"))?;
    let server = RenetServer::new(connection_config(
        app.world().resource::<RepliconChannels>(),
    ));
    app.insert_resource(server).insert_resource(transport);
    Ok(addr)
}

/// Makes `app` a netcode client of `server`, as `client_id`.
fn start_client(app: &mut App, server: SocketAddr, client_id: u64) -> Result<(), String> {
    let socket = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(|e| format!("cannot open a client socket on 127.0.0.1: {e}"))?;
    let authentication = ClientAuthentication::Unsecure {
        protocol_id: PROTOCOL_ID,
        client_id,
        server_addr: server,
        user_data: None,
    };
    let transport = NetcodeClientTransport::new(now()?, authentication, socket)
        .map_err(|e| format!("cannot start the netcode client: {e}"))?;
    let client = RenetClient::new(connection_config(
        app.world().resource::<RepliconChannels>(),
    ));
    app.insert_resource(client).insert_resource(transport);
    Ok(())
}

/// Why a client app lost its server, if it did.
fn disconnected(world: &World) -> Option<String> {
    let client = world.get_resource::<RenetClient>()?;
    if !client.is_disconnected() {
        return None;
    }
    let netcode = world
        .get_resource::<NetcodeClientTransport>()
        .and_then(|t| t.disconnect_reason());
    Some(format!(
        "was disconnected (renet: {:?}, netcode: {netcode:?})",
        client.disconnect_reason()
    ))
}

fn report_network_error(error: On<NetcodeErrorEvent>, seen: Res<Seen>) {
    eprintln!("[{}] network error: {}", seen.who, *error);
}

// ---------------------------------------------------------------------------
// The server's world: a public chest, a private backpack per client.

/// Spawns the chest (stocked once its rules attach) and gives every client
/// that joins a backpack; returns the chest. With a database, the chest of
/// the last run comes back from it as it was, and is not stocked again.
fn spawn_server_world(app: &mut App) -> Entity {
    app.add_observer(give_backpack).add_observer(client_left);
    if app.world().contains_resource::<PersistentEntities>() {
        // the first frame spawns what the file holds
        app.update();
        let kept = app.world().resource::<PersistentEntities>().get("chest");
        if let Some(chest) = kept {
            app.world_mut()
                .entity_mut(chest)
                .insert((ContainerAccess::public(None), SharedChest));
            println!("[server] the chest is back from the database: {chest}");
            return chest;
        }
    }
    let adoption: Handle<AdoptionAsset> =
        app.world().resource::<AssetServer>().load(CHEST_ADOPTION);
    let chest = app
        .world_mut()
        .spawn((
            Container::new(adoption),
            ContainerAccess::public(None),
            SharedChest,
        ))
        .observe(stock_chest)
        .id();
    if app.world().contains_resource::<PersistentEntities>() {
        persist_as(&mut app.world_mut().commands(), chest, "chest");
    }
    chest
}

fn stock_chest(ready: On<ContainerReady>, mut requests: MessageWriter<ContainerRequest>) {
    for (item, amount) in CHEST_STOCK {
        requests.write(Deliver::new(ready.container, item, amount).into());
    }
}

/// A client passed replicon's protocol check: its own backpack, visible
/// to it alone (with a database: the one it had, if it had one).
fn give_backpack(
    add: On<Add, AuthorizedClient>,
    ids: Query<&NetworkId>,
    server: Res<AssetServer>,
    persisted: Option<Res<PersistentEntities>>,
    mut commands: Commands,
) {
    let client = add.entity;
    let id = ids
        .get(client)
        .map_or_else(|_| "?".to_string(), |id| id.get().to_string());
    let key = format!("backpack-{id}");
    if let Some(backpack) = persisted.as_ref().and_then(|p| p.get(&key)) {
        commands
            .entity(backpack)
            .insert((ContainerAccess::private(client), Backpack));
        println!(
            "[server] client {client} (netcode id {id}) is back: its backpack {backpack} from the database"
        );
        return;
    }
    let adoption: Handle<AdoptionAsset> = server.load(BACKPACK_ADOPTION);
    let backpack = commands
        .spawn((
            Container::new(adoption),
            ContainerAccess::private(client),
            Backpack,
        ))
        .id();
    if persisted.is_some() {
        persist_as(&mut commands, backpack, &key);
    }
    println!(
        "[server] client {client} (netcode id {id}) joined: backpack {backpack}, private to it"
    );
}

// ---------------------------------------------------------------------------
// --db: the containers kept in SQLite (feature `persist`)

#[cfg(feature = "persist")]
use bevy_container::persist::PersistentEntities;

/// Without the `persist` feature, a resource no app has.
#[cfg(not(feature = "persist"))]
#[derive(Resource)]
struct PersistentEntities;

#[cfg(not(feature = "persist"))]
impl PersistentEntities {
    fn get(&self, _: &str) -> Option<Entity> {
        None
    }
}

/// Gives `entity` its name in the database.
fn persist_as(commands: &mut Commands, entity: Entity, id: &str) {
    #[cfg(feature = "persist")]
    commands
        .entity(entity)
        .insert(bevy_container::persist::PersistentId::new(id));
    #[cfg(not(feature = "persist"))]
    let _ = (commands, entity, id);
}

/// Opens the server's database file and adds the plugin that keeps every
/// container and pickup in it, one transaction per frame.
fn persist_to(app: &mut App, file: Option<&std::path::Path>) -> Result<(), String> {
    let Some(file) = file else {
        return Ok(());
    };
    #[cfg(feature = "persist")]
    {
        use bevy_container::persist::{ContainerDatabase, ContainerDatabasePlugin};
        let db = ContainerDatabase::open(file).map_err(|e| e.to_string())?;
        println!(
            "[server] containers kept in {} ({} containers, {} pickups, last frame written {})",
            file.display(),
            db.containers().len(),
            db.pickups().len(),
            db.frame()
        );
        app.add_plugins(ContainerDatabasePlugin::new(db));
        Ok(())
    }
    #[cfg(not(feature = "persist"))]
    {
        let _ = app;
        Err(format!(
            "{}: --db needs the persist feature",
            file.display()
        ))
    }
}

fn client_left(remove: On<Remove, ConnectedClient>) {
    println!(
        "[server] client {} left; its backpack stays on the server",
        remove.entity
    );
}

/// The server's backpack of the client whose netcode id is `netcode_id`.
fn server_backpack_of(world: &mut World, netcode_id: u64) -> Option<Entity> {
    let client = world
        .query::<(Entity, &NetworkId)>()
        .iter(world)
        .find(|(_, id)| id.get() == netcode_id)
        .map(|(e, _)| e)?;
    world
        .query_filtered::<(Entity, &ContainerAccess), With<Backpack>>()
        .iter(world)
        .find(|(_, access)| access.owner == Some(client))
        .map(|(e, _)| e)
}

// ---------------------------------------------------------------------------
// Outcomes, as every side sees them.

/// Every outcome this app saw, printed as it comes.
#[derive(Resource)]
struct Seen {
    who: &'static str,
    transfers: Vec<Transferred>,
    rearranged: Vec<Rearranged>,
    refusals: Vec<NotAnswered>,
}

impl Seen {
    fn new(who: &'static str) -> Seen {
        Seen {
            who,
            transfers: Vec::new(),
            rearranged: Vec::new(),
            refusals: Vec::new(),
        }
    }

    /// How many requests were answered (transfers, moves, refusals).
    fn answers(&self) -> usize {
        self.transfers.len() + self.rearranged.len() + self.refusals.len()
    }

    fn say(&self, line: impl Display) {
        println!("[{}] {line}", self.who);
    }
}

type Names<'w, 's> = Query<
    'w,
    's,
    (
        Has<SharedChest>,
        Has<Backpack>,
        Option<&'static ContainerAccess>,
    ),
>;

#[derive(SystemParam)]
struct Outcomes<'w, 's> {
    delivered: MessageReader<'w, 's, ItemsDelivered>,
    taken: MessageReader<'w, 's, ItemsTaken>,
    transferred: MessageReader<'w, 's, ItemsTransferred>,
    rearranged: MessageReader<'w, 's, ContainerRearranged>,
    unanswered: MessageReader<'w, 's, RequestUnanswered>,
    /// The server's answers (read before replicon sends and drains them).
    answered: MessageReader<'w, 's, ToClients<RequestAnswered>>,
}

fn collect_outcomes(mut seen: ResMut<Seen>, names: Names, mut out: Outcomes) {
    for d in out.delivered.read() {
        seen.say(format_args!(
            "{}: delivered {}",
            label(d.container, &names),
            d.outcome
        ));
    }
    for t in out.taken.read() {
        seen.say(format_args!(
            "{}: {}",
            label(t.container, &names),
            t.outcome
        ));
    }
    for t in out.transferred.read() {
        let (from, to) = (label(t.from, &names), label(t.to, &names));
        seen.say(format_args!("{from} -> {to}: {}", t.outcome));
        seen.transfers.push(t.outcome.clone());
    }
    for r in out.rearranged.read() {
        let what = label(r.container, &names);
        match &r.outcome.refused {
            Some(why) => seen.say(format_args!("{what}: move refused ({why})")),
            None => seen.say(format_args!("{what}: rearranged")),
        }
        seen.rearranged.push(r.outcome.clone());
    }
    for u in out.unanswered.read() {
        seen.say(format_args!(
            "{}: not answered: {}",
            label(u.container, &names),
            u.reason
        ));
        seen.refusals.push(u.reason.clone());
    }
    for ToClients { targets, message } in out.answered.read() {
        if let Answer::Refused(why) = &message.answer {
            seen.say(format_args!(
                "refused request {} ({targets:?}): {why:?}",
                message.id
            ));
        }
    }
}

fn label(entity: Entity, names: &Names) -> String {
    match names.get(entity) {
        Ok((true, _, _)) => "chest".to_string(),
        Ok((false, true, Some(access))) => match access.owner {
            Some(owner) => format!("backpack of client {owner}"),
            None => "backpack".to_string(),
        },
        Ok((false, true, None)) => "my backpack".to_string(),
        _ => format!("entity {entity}"),
    }
}

// ---------------------------------------------------------------------------
// Reading containers.

/// `1:20 berries, 4:1 axe` (slots numbered from 1), or `(empty)`.
fn view(slots: &[Option<(String, u32)>]) -> String {
    let held: Vec<String> = slots
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.as_ref().map(|(item, n)| format!("{}:{n} {item}", i + 1)))
        .collect();
    if held.is_empty() {
        "(empty)".to_string()
    } else {
        held.join(", ")
    }
}

fn show(slots: Option<Slots>) -> String {
    slots.map_or_else(|| "not visible".to_string(), |s| view(&s))
}

fn totals(slots: &[Option<(String, u32)>]) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (item, n) in slots.iter().flatten() {
        *out.entry(item.clone()).or_default() += u64::from(*n);
    }
    out
}

fn total(slots: &[Option<(String, u32)>]) -> u64 {
    totals(slots).values().sum()
}

/// The first replicated container marked `M` whose rules are attached.
fn find_ready<M: Component>(world: &mut World) -> Option<Entity> {
    world
        .query_filtered::<(Entity, &ContainerContents), (With<M>, With<Remote>)>()
        .iter(world)
        .find(|(_, contents)| contents.is_ready())
        .map(|(e, _)| e)
}

fn count_remote<M: Component>(world: &mut World) -> usize {
    world
        .query_filtered::<Entity, (With<M>, With<Remote>)>()
        .iter(world)
        .count()
}

fn slots_at(world: &World, entity: Entity) -> Option<Slots> {
    world
        .get::<ContainerContents>(entity)
        .filter(|c| c.is_ready())
        .map(|c| {
            c.slots()
                .iter()
                .map(|s| s.as_ref().map(|(k, n)| (k.to_string(), *n)))
                .collect()
        })
}

/// What a client sees of its (first) replicated container marked `M`.
fn client_slots<M: Component>(world: &mut World) -> Option<Slots> {
    let entity = find_ready::<M>(world)?;
    slots_at(world, entity)
}

/// The first slot holding `item`, and how many it holds.
fn slot_holding(slots: &[Option<(String, u32)>], item: &str) -> Option<(u32, u32)> {
    slots.iter().enumerate().find_map(|(i, s)| match s {
        Some((held, n)) if held == item => Some((i as u32, *n)),
        _ => None,
    })
}

fn last_empty_slot(slots: &[Option<(String, u32)>]) -> Option<u32> {
    slots.iter().rposition(Option::is_none).map(|i| i as u32)
}

/// Whether `expected` requests were answered and none waits.
fn answered(world: &World, expected: usize) -> bool {
    world.resource::<Seen>().answers() >= expected && world.resource::<PendingRequests>().is_empty()
}

/// Writes a request (a client forwards it to the server).
fn ask(world: &mut World, what: impl Display, request: impl Into<ContainerRequest>) {
    println!("[{}] asks: {what}", world.resource::<Seen>().who);
    world.write_message(request.into());
}

fn print_client_view(world: &mut World, when: &str) {
    let who = world.resource::<Seen>().who;
    let chest = show(client_slots::<SharedChest>(world));
    let backpack = show(client_slots::<Backpack>(world));
    println!("[{who}] {when}: chest {chest}; my backpack {backpack}");
}

// ---------------------------------------------------------------------------
// --server

fn run_server(port: u16, db: Option<std::path::PathBuf>) -> AppExit {
    let mut app = net_app("server", Some(Level::INFO));
    if let Err(why) = persist_to(&mut app, db.as_deref()) {
        eprintln!("[server] {why}");
        return AppExit::error();
    }
    finish(&mut app);
    let addr = match start_server(&mut app, port, MAX_CLIENTS) {
        Ok(addr) => addr,
        Err(why) => {
            eprintln!("[server] {why}");
            return AppExit::error();
        }
    };
    spawn_server_world(&mut app);
    println!("[server] listening on {addr} (protocol id {PROTOCOL_ID:#x}); Ctrl-C stops it");
    app.run()
}

// ---------------------------------------------------------------------------
// --client

fn run_client(port: u16, once: bool, id: Option<u64>) -> AppExit {
    let mut app = net_app("client", Some(Level::INFO));
    finish(&mut app);
    let server = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    // netcode needs a client id no other connected client has; a server
    // with a database knows a client again by it
    let client_id = match id {
        Some(id) => Ok(id),
        None => now().map(|t| (t.as_nanos() as u64) ^ u64::from(std::process::id())),
    };
    if let Err(why) = client_id.and_then(|id| start_client(&mut app, server, id)) {
        eprintln!("[client] {why}");
        return AppExit::error();
    }
    println!("[client] connecting to {server}");
    app.insert_resource(ClientScript {
        step: Step::Waiting,
        once,
        started: Instant::now(),
    })
    .add_systems(PostUpdate, client_script);
    app.run()
}

/// The `--client` script's progress.
#[derive(Resource)]
struct ClientScript {
    step: Step,
    once: bool,
    started: Instant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Waiting for the chest and the backpack to replicate and be ready.
    Waiting,
    /// The transfer was sent after `answers` answers and `transfers`
    /// transfers.
    Transferring { answers: usize, transfers: usize },
    /// The transfer landed in `slot`: waiting for the backpack to show it.
    Arriving { slot: u32, moved: u32 },
    /// The move was sent after `answers` answers.
    Moving { answers: usize },
    /// Frames left for the last changes to replicate.
    Settling(u32),
    /// Done: connected, printing outcomes as they come.
    Idle,
}

fn client_script(world: &mut World) {
    let Some(mut script) = world.remove_resource::<ClientScript>() else {
        return;
    };
    let outcome = if let Some(why) = disconnected(world) {
        Err(format!("lost the server: it {why}"))
    } else if script.step != Step::Idle && script.started.elapsed() > CLIENT_DEADLINE {
        Err(format!(
            "gave up after {} s, at {:?}",
            CLIENT_DEADLINE.as_secs(),
            script.step
        ))
    } else {
        client_step(world, script.step)
    };
    match outcome {
        Ok(Step::Idle) if script.step != Step::Idle => {
            print_client_view(world, "after the script");
            if script.once {
                world.write_message(AppExit::Success);
            } else {
                println!("[client] script done; staying connected (Ctrl-C to leave)");
            }
            script.step = Step::Idle;
        }
        Ok(next) => script.step = next,
        Err(why) => {
            eprintln!("[client] {why}");
            world.write_message(AppExit::error());
            script.step = Step::Idle;
        }
    }
    world.insert_resource(script);
}

fn client_step(world: &mut World, step: Step) -> Result<Step, String> {
    let (Some(chest), Some(backpack)) = (
        find_ready::<SharedChest>(world),
        find_ready::<Backpack>(world),
    ) else {
        return match step {
            Step::Waiting | Step::Idle => Ok(step),
            _ => Err("lost sight of the chest or of my backpack".into()),
        };
    };
    Ok(match step {
        Step::Waiting => {
            print_client_view(world, "connected; I see");
            send_transfer(world, chest, backpack)
        }
        Step::Transferring { answers, transfers } if answered(world, answers + 1) => {
            match world.resource::<Seen>().transfers.get(transfers) {
                Some(t) if t.moved > 0 => Step::Arriving {
                    slot: t.landed.first().map_or(0, |l| l.slot),
                    moved: t.moved,
                },
                // refused or nothing moved: printed already
                _ => Step::Settling(0),
            }
        }
        Step::Arriving { slot, moved } if shows(world, backpack, slot) => {
            send_move(world, backpack, slot, moved)
        }
        Step::Moving { answers } if answered(world, answers + 1) => Step::Settling(30),
        Step::Settling(0) => Step::Idle,
        Step::Settling(n) => Step::Settling(n - 1),
        other => other,
    })
}

fn send_transfer(world: &mut World, chest: Entity, backpack: Entity) -> Step {
    let chest_slots = slots_at(world, chest).unwrap_or_default();
    let Some((slot, held)) = slot_holding(&chest_slots, "berries") else {
        println!("[client] the chest holds no berries: nothing to take");
        return Step::Settling(0);
    };
    let amount = held.min(15);
    let seen = world.resource::<Seen>();
    let next = Step::Transferring {
        answers: seen.answers(),
        transfers: seen.transfers.len(),
    };
    ask(
        world,
        format!(
            "{amount} berries from chest slot {} to my backpack",
            slot + 1
        ),
        Transfer {
            from: chest,
            to: backpack,
            request: TransferRequest::from_slot(slot, amount),
        },
    );
    next
}

fn send_move(world: &mut World, backpack: Entity, slot: u32, moved: u32) -> Step {
    let slots = slots_at(world, backpack).unwrap_or_default();
    let Some(to) = last_empty_slot(&slots) else {
        println!("[client] my backpack has no empty slot to move into");
        return Step::Settling(0);
    };
    let part = (moved / 3).max(1);
    let next = Step::Moving {
        answers: world.resource::<Seen>().answers(),
    };
    ask(
        world,
        format!("move {part} from my slot {} to slot {}", slot + 1, to + 1),
        MoveItems {
            container: backpack,
            from: slot,
            to,
            amount: Some(part),
        },
    );
    next
}

/// Whether the client's copy of `backpack` holds something in `slot`.
fn shows(world: &World, backpack: Entity, slot: u32) -> bool {
    slots_at(world, backpack).is_some_and(|s| s.get(slot as usize).is_some_and(Option::is_some))
}

// ---------------------------------------------------------------------------
// --script

fn run_script(port: u16, db: Option<std::path::PathBuf>) -> AppExit {
    match script(port, db.as_deref()) {
        Ok(report) => {
            println!("{report}");
            AppExit::Success
        }
        Err(why) => {
            eprintln!("[script] FAILED: {why}");
            AppExit::error()
        }
    }
}

fn script(port: u16, db: Option<&std::path::Path>) -> Result<String, String> {
    if let Some(file) = db
        && file.exists()
    {
        return Err(format!(
            "{}: the script starts a new world; remove the file or name another",
            file.display()
        ));
    }
    let mut net = Net::start(port, db, Some(Level::WARN))?;
    connect(&mut net)?;
    client1_turn(&mut net)?;
    let refusal = client2_turn(&mut net)?;
    settle(&mut net)?;
    let report = check(&mut net, &refusal)?;
    match db {
        None => Ok(report),
        Some(file) => Ok(format!("{report}\n{}", restart(net, port, file)?)),
    }
}

/// The server stops (its apps dropped, as a process ends), a new one starts
/// from the database, and both clients reconnect with the same netcode
/// ids: each must get its backpack back as it was, and see the chest as it
/// was.
fn restart(net: Net, port: u16, file: &std::path::Path) -> Result<String, String> {
    let world = net.server.world();
    let chest = slots_at(world, net.chest).ok_or("the chest is gone")?;
    let backpacks = net
        .backpacks
        .map(|b| slots_at(world, b).unwrap_or_default());
    #[cfg(feature = "persist")]
    world
        .resource::<bevy_container::persist::DatabaseWriter>()
        .flush()
        .map_err(|e| e.to_string())?;
    drop(net);
    println!(
        "[script] server stopped; a new one starts from {}",
        file.display()
    );
    let mut net = Net::start(port, Some(file), None)?;
    net.pump("both clients to get their backpacks back", |net| {
        let server = net.server.world_mut();
        let (Some(a), Some(b)) = (server_backpack_of(server, 1), server_backpack_of(server, 2))
        else {
            return false;
        };
        net.backpacks = [a, b];
        converged(net)
    })?;
    let world = net.server.world();
    let chest_now = slots_at(world, net.chest).ok_or("the chest did not come back")?;
    if chest_now != chest {
        return Err(format!(
            "the chest came back as {}, not {}",
            view(&chest_now),
            view(&chest)
        ));
    }
    for (i, before) in backpacks.iter().enumerate() {
        let now = slots_at(world, net.backpacks[i]).unwrap_or_default();
        if &now != before {
            return Err(format!(
                "client {}'s backpack came back as {}, not {}",
                i + 1,
                view(&now),
                view(before)
            ));
        }
    }
    Ok(format!(
        "restart: the chest ({}) and both backpacks ({}; {}) came back from {} exactly as they were, and each client sees its own",
        view(&chest),
        view(&backpacks[0]),
        view(&backpacks[1]),
        file.display()
    ))
}

/// A server and two clients in one thread.
struct Net {
    server: App,
    clients: [App; 2],
    started: Instant,
    updates: u32,
    /// The server's chest.
    chest: Entity,
    /// The server's backpack of each client.
    backpacks: [Entity; 2],
}

impl Net {
    /// `log`: the server's log level (one logger per process, so the
    /// restarted server has none).
    fn start(port: u16, db: Option<&std::path::Path>, log: Option<Level>) -> Result<Net, String> {
        let mut server = net_app("server", log);
        persist_to(&mut server, db)?;
        finish(&mut server);
        let addr = start_server(&mut server, port, 2)?;
        let chest = spawn_server_world(&mut server);
        let mut clients = [net_app("client 1", None), net_app("client 2", None)];
        for (netcode_id, client) in (1..).zip(clients.iter_mut()) {
            finish(client);
            start_client(client, addr, netcode_id)?;
        }
        println!("[script] server on {addr}; clients 1 and 2 connecting");
        Ok(Net {
            server,
            clients,
            started: Instant::now(),
            updates: 0,
            chest,
            backpacks: [Entity::PLACEHOLDER; 2],
        })
    }

    /// One update of every app.
    fn update_all(&mut self) -> Result<(), String> {
        self.server.update();
        for app in &mut self.clients {
            app.update();
        }
        self.updates += 1;
        for (i, app) in self.clients.iter().enumerate() {
            if let Some(why) = disconnected(app.world()) {
                return Err(format!("client {} {why}", i + 1));
            }
        }
        // let the sockets and the asset loaders move on
        std::thread::sleep(Duration::from_millis(1));
        Ok(())
    }

    /// Updates every app until `done`, within the script's bounds.
    fn pump(&mut self, what: &str, mut done: impl FnMut(&mut Net) -> bool) -> Result<(), String> {
        while !done(self) {
            if self.started.elapsed() >= SCRIPT_DEADLINE || self.updates >= SCRIPT_MAX_UPDATES {
                return Err(format!(
                    "timed out after {:.1} s ({} updates) waiting for {what}",
                    self.started.elapsed().as_secs_f32(),
                    self.updates
                ));
            }
            self.update_all()?;
        }
        Ok(())
    }

    fn client(&mut self, i: usize) -> &mut World {
        self.clients[i].world_mut()
    }
}

fn connect(net: &mut Net) -> Result<(), String> {
    let stock: u64 = CHEST_STOCK.iter().map(|(_, n)| u64::from(*n)).sum();
    net.pump(
        "both clients to see the stocked chest and their backpack",
        |net| {
            let chest = slots_at(net.server.world(), net.chest);
            let stocked = chest.as_deref().is_some_and(|s| total(s) == stock);
            stocked
                && net.clients.iter_mut().all(|app| {
                    let world = app.world_mut();
                    find_ready::<Backpack>(world).is_some()
                        && client_slots::<SharedChest>(world) == chest
                })
        },
    )?;
    for (i, netcode_id) in [1, 2].into_iter().enumerate() {
        net.backpacks[i] = server_backpack_of(net.server.world_mut(), netcode_id)
            .ok_or_else(|| format!("the server has no backpack for client {netcode_id}"))?;
    }
    for i in 0..2 {
        print_client_view(net.client(i), "connected; I see");
    }
    Ok(())
}

/// The chest and the backpack as client `i` sees them.
fn containers(net: &mut Net, i: usize) -> Result<(Entity, Entity), String> {
    let world = net.client(i);
    match (
        find_ready::<SharedChest>(world),
        find_ready::<Backpack>(world),
    ) {
        (Some(chest), Some(backpack)) => Ok((chest, backpack)),
        _ => Err(format!(
            "client {} lost sight of the chest or its backpack",
            i + 1
        )),
    }
}

/// Client 1's transfer from the chest, answered and arrived; returns it.
fn client1_transfer(net: &mut Net, chest: Entity, backpack: Entity) -> Result<Transferred, String> {
    let chest_slots = slots_at(net.client(0), chest).unwrap_or_default();
    let (slot, held) =
        slot_holding(&chest_slots, "berries").ok_or("client 1 sees no berries in the chest")?;
    let amount = held.min(15);
    let before = net.client(0).resource::<Seen>().answers();
    ask(
        net.client(0),
        format!(
            "{amount} berries from chest slot {} to my backpack",
            slot + 1
        ),
        Transfer {
            from: chest,
            to: backpack,
            request: TransferRequest::from_slot(slot, amount),
        },
    );
    net.pump("client 1's transfer to be answered", |net| {
        answered(net.client(0), before + 1)
    })?;
    let seen = net.client(0).resource::<Seen>();
    match seen.transfers.last() {
        Some(t) if t.moved > 0 && !t.landed.is_empty() => Ok(t.clone()),
        Some(t) => Err(format!("client 1's transfer moved nothing: {t}")),
        None => Err(format!(
            "client 1's transfer was refused: {:?}",
            seen.refusals.last()
        )),
    }
}

fn client1_turn(net: &mut Net) -> Result<(), String> {
    let (chest, backpack) = containers(net, 0)?;
    let moved = client1_transfer(net, chest, backpack)?;
    let landed = moved.landed.first().map_or(0, |l| l.slot);
    net.pump("client 1's backpack to show the berries", |net| {
        shows(net.client(0), backpack, landed)
    })?;
    let slots = slots_at(net.client(0), backpack).unwrap_or_default();
    let to = last_empty_slot(&slots).ok_or("client 1's backpack has no empty slot")?;
    let part = (moved.moved / 3).max(1);
    let before = net.client(0).resource::<Seen>().answers();
    ask(
        net.client(0),
        format!("move {part} from my slot {} to slot {}", landed + 1, to + 1),
        MoveItems {
            container: backpack,
            from: landed,
            to,
            amount: Some(part),
        },
    );
    net.pump("client 1's move to be answered", |net| {
        answered(net.client(0), before + 1)
    })?;
    let seen = net.client(0).resource::<Seen>();
    match seen.rearranged.last() {
        Some(r) if r.refused.is_none() => Ok(()),
        other => Err(format!(
            "client 1's move was not done: {other:?} {:?}",
            seen.refusals.last()
        )),
    }
}

/// The name client 2 uses for a container it was never sent: the server's
/// own id for it (what a cheat would guess), or, should that id happen to
/// be one client 2 knows, an entity of its own.
fn unmapped_name(world: &mut World, server_entity: Entity) -> Entity {
    let known = world
        .resource::<ServerEntityMap>()
        .to_server()
        .contains_key(&server_entity);
    if known {
        world.spawn_empty().id()
    } else {
        server_entity
    }
}

/// Client 2 tries client 1's backpack, then takes from the chest; returns
/// the refusal of the first.
fn client2_turn(net: &mut Net) -> Result<NotAnswered, String> {
    net.pump("client 2 to see the chest as the server has it", |net| {
        let chest = slots_at(net.server.world(), net.chest);
        client_slots::<SharedChest>(net.client(1)) == chest
    })?;
    let foreign = net.backpacks[0];
    if net
        .client(1)
        .resource::<ServerEntityMap>()
        .to_client()
        .contains_key(&foreign)
    {
        return Err("client 2 was sent client 1's backpack".into());
    }
    let (chest, backpack) = containers(net, 1)?;
    let world = net.client(1);
    let guess = unmapped_name(world, foreign);
    let chest_slots = slots_at(world, chest).unwrap_or_default();
    let axe = slot_holding(&chest_slots, "axe").ok_or("client 2 sees no axe in the chest")?;
    let berries =
        slot_holding(&chest_slots, "berries").ok_or("client 2 sees no berries in the chest")?;
    let before = world.resource::<Seen>().answers();
    let cheat = format!("5 berries from client 1's backpack (server entity {foreign})");
    ask(world, cheat, Take::new(guess, "berries", 5));
    let transfer = |(slot, n): (u32, u32)| Transfer {
        from: chest,
        to: backpack,
        request: TransferRequest::from_slot(slot, n),
    };
    ask(
        world,
        format!("1 axe from chest slot {}", axe.0 + 1),
        transfer((axe.0, 1)),
    );
    let n = berries.1.min(10);
    let what = format!("{n} berries from chest slot {}", berries.0 + 1);
    ask(world, what, transfer((berries.0, n)));
    net.pump("client 2's three requests to be answered", |net| {
        answered(net.client(1), before + 3)
    })?;
    let seen = net.client(1).resource::<Seen>();
    let refusal = seen
        .refusals
        .last()
        .cloned()
        .ok_or("client 2's take from client 1's backpack was not refused")?;
    if !matches!(
        refusal,
        NotAnswered::NotSeen(_) | NotAnswered::NotAllowed { .. }
    ) {
        return Err(format!(
            "client 2's take was refused for another reason: {refusal}"
        ));
    }
    if seen.transfers.len() != 2 || seen.transfers.iter().any(|t| t.moved == 0) {
        return Err(format!(
            "client 2's transfers did not both move items: {:?}",
            seen.transfers
        ));
    }
    Ok(refusal)
}

/// Whether every client sees the chest and its backpack as the server has
/// them, with no request waiting.
fn converged(net: &mut Net) -> bool {
    let chest = slots_at(net.server.world(), net.chest);
    let backpacks = net.backpacks.map(|b| slots_at(net.server.world(), b));
    chest.is_some()
        && net
            .clients
            .iter_mut()
            .zip(backpacks)
            .all(|(app, backpack)| {
                let world = app.world_mut();
                backpack.is_some()
                    && client_slots::<SharedChest>(world) == chest
                    && client_slots::<Backpack>(world) == backpack
                    && world.resource::<PendingRequests>().is_empty()
            })
}

fn describe(net: &mut Net) -> String {
    let mut out = vec![format!(
        "  server chest: {}",
        show(slots_at(net.server.world(), net.chest))
    )];
    for (i, backpack) in net.backpacks.into_iter().enumerate() {
        let slots = show(slots_at(net.server.world(), backpack));
        out.push(format!("  server backpack of client {}: {slots}", i + 1));
    }
    for i in 0..2 {
        let world = net.client(i);
        let chest = show(client_slots::<SharedChest>(world));
        let backpack = show(client_slots::<Backpack>(world));
        let pending = world.resource::<PendingRequests>().len();
        out.push(format!(
            "  client {} sees: chest {chest}; backpack {backpack}; {pending} requests pending",
            i + 1
        ));
    }
    out.join("\n")
}

fn settle(net: &mut Net) -> Result<(), String> {
    let waited = net.pump("every client's view to match the server's", converged);
    waited.map_err(|why| format!("{why}; what each side sees:\n{}", describe(net)))
}

/// Client `i` sees exactly one backpack, its own, and never the other's.
fn check_sight(net: &mut Net, i: usize) -> Result<(), String> {
    let (own, other, who) = (net.backpacks[i], net.backpacks[1 - i], i + 1);
    let world = net.client(i);
    let count = count_remote::<Backpack>(world);
    if count != 1 {
        return Err(format!("client {who} sees {count} backpacks, not 1"));
    }
    let map = world.resource::<ServerEntityMap>().to_client();
    if map.contains_key(&other) {
        return Err(format!("client {who} was sent the other client's backpack"));
    }
    match map.get(&own).copied() {
        Some(local) if world.get::<Backpack>(local).is_some() => Ok(()),
        _ => Err(format!("client {who} does not see its own backpack")),
    }
}

/// Nothing lost or made: what left the chest is in the backpacks, and
/// the server's containers hold exactly what was stocked. Returns a line
/// per item type.
fn check_conservation(net: &mut Net) -> Result<Vec<String>, String> {
    let world = net.server.world_mut();
    let pickups = world.query::<&LoosePickup>().iter(world).count();
    if pickups > 0 {
        return Err(format!(
            "{pickups} loose pickups lie on the server's ground"
        ));
    }
    let chest = totals(&slots_at(world, net.chest).unwrap_or_default());
    let packs = net
        .backpacks
        .map(|b| totals(&slots_at(world, b).unwrap_or_default()));
    let held = |t: &BTreeMap<String, u64>, item: &str| t.get(item).copied().unwrap_or(0);
    let mut lines = Vec::new();
    for (item, stocked) in CHEST_STOCK {
        let (now, a, b) = (
            held(&chest, item),
            held(&packs[0], item),
            held(&packs[1], item),
        );
        let left = u64::from(stocked).checked_sub(now).ok_or_else(|| {
            format!("the chest holds {now} {item}, more than the {stocked} stocked")
        })?;
        if left != a + b {
            return Err(format!(
                "{item}: {left} left the chest, but the backpacks hold {a} + {b}"
            ));
        }
        lines.push(format!(
            "{item}: {stocked} stocked = {now} in the chest + {a} (client 1) + {b} (client 2)"
        ));
    }
    let stocked: Vec<&str> = CHEST_STOCK.iter().map(|(item, _)| *item).collect();
    let strays: Vec<&String> = [&chest, &packs[0], &packs[1]]
        .into_iter()
        .flat_map(|t| t.keys())
        .filter(|item| !stocked.contains(&item.as_str()))
        .collect();
    if !strays.is_empty() {
        return Err(format!(
            "the server's containers hold types never stocked: {strays:?}"
        ));
    }
    Ok(lines)
}

/// Each client's transfers moved exactly what its backpack holds.
fn check_outcomes(net: &mut Net) -> Result<(), String> {
    for i in 0..2 {
        let held = total(&slots_at(net.server.world(), net.backpacks[i]).unwrap_or_default());
        let seen = net.client(i).resource::<Seen>();
        let moved: u64 = seen.transfers.iter().map(|t| u64::from(t.moved)).sum();
        if moved != held {
            return Err(format!(
                "client {}'s transfers moved {moved} items, but its backpack holds {held}",
                i + 1
            ));
        }
    }
    Ok(())
}

fn check(net: &mut Net, refusal: &NotAnswered) -> Result<String, String> {
    check_sight(net, 0)?;
    check_sight(net, 1)?;
    let conserved = check_conservation(net)?;
    check_outcomes(net)?;
    let server = net.server.world();
    let chest = show(slots_at(server, net.chest));
    let packs = net.backpacks.map(|b| show(slots_at(server, b)));
    let mut report = vec![
        format!(
            "[script] OK in {:.1} s ({} updates of each app)",
            net.started.elapsed().as_secs_f32(),
            net.updates
        ),
        format!("  chest, on the server and both clients: {chest}"),
        format!(
            "  client 1's backpack, on the server and client 1 only: {}",
            packs[0]
        ),
        format!(
            "  client 2's backpack, on the server and client 2 only: {}",
            packs[1]
        ),
        format!("  client 2's take from client 1's backpack: refused ({refusal})"),
    ];
    report.extend(conserved.into_iter().map(|line| format!("  {line}")));
    Ok(report.join("\n"))
}
