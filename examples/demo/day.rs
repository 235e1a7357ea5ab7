//! One day out with the seed backpack: the world, the scripted steps and the
//! log, shared by the windowed demo, the headless run and the tests.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_asset_loader::prelude::*;
use bevy_container::adoption::Tuning;
use bevy_container::plugin::*;

/// Where the demo is.
#[derive(States, Default, Debug, Clone, PartialEq, Eq, Hash)]
pub enum DemoState {
    /// bevy_asset_loader is loading the adoption files.
    #[default]
    Loading,
    /// The day is on.
    Playing,
    /// An adoption file did not load.
    Failed,
}

/// The demo's adoption files.
#[derive(AssetCollection, Resource)]
pub struct DemoAdoptions {
    /// The seed backpack, as exported by the authoring tool.
    #[asset(path = "backpack.adoption.json")]
    pub backpack: Handle<AdoptionAsset>,
    /// The camp stash, sized by the tuning key `stash-slots`.
    #[asset(path = "stash.adoption.ron")]
    pub stash: Handle<AdoptionAsset>,
}

/// The player.
#[derive(Component)]
pub struct Player;

/// The player's backpack (it follows the player).
#[derive(Component)]
pub struct Backpack;

/// The camp stash.
#[derive(Component)]
pub struct Stash;

/// The chest by the path: the seed backpack's rules, stocked at dawn with
/// [`CHEST_STOCK`]. The day never touches it; the window's grids do.
#[derive(Component)]
pub struct Chest;

/// What the chest holds at dawn: item, amount. Its deliveries are not
/// logged (see [`write_log`]), so the day reads the same with it.
pub const CHEST_STOCK: [(&str, u32); 3] = [("axe", 1), ("letter", 1), ("flint", 3)];

/// Where the chest stands, in pixels.
pub const CHEST_AT: Vec2 = Vec2::new(-40.0, -110.0);

/// One step of the scripted day.
#[derive(Clone, Copy, Debug)]
pub enum Step {
    /// Walk to the pickup spawned `n`th and pick it up.
    PickUp(usize),
    /// Eat berries from a slot (0-based).
    Eat { slot: u32, amount: u32 },
    /// The strap tears: the backpack keeps this many slots.
    Tear(u32),
    /// Sort the backpack.
    Sort,
    /// Set the tuning key `stash-slots`.
    TuneStash(u32),
    /// Chop wood with the backpack's first axe: its durability drops by
    /// one; at its last point the axe breaks and is gone.
    Chop,
}

/// The scripted day, in order.
pub const DAY: [Step; 18] = [
    Step::PickUp(0),
    Step::PickUp(1),
    Step::Chop,
    Step::Chop,
    Step::Chop,
    Step::PickUp(2),
    Step::Eat { slot: 1, amount: 4 },
    Step::PickUp(3),
    Step::PickUp(4),
    Step::PickUp(5),
    Step::Eat {
        slot: 0,
        amount: 30,
    },
    Step::Tear(7),
    Step::Tear(4),
    Step::Sort,
    Step::Tear(2),
    Step::TuneStash(2),
    Step::PickUp(6),
    Step::Sort,
];

/// Where the pickups of the day lie at dawn: item, amount, properties
/// (canonical text; `{}` for none), position. The first axe is worn (it
/// breaks on its third use); the letter is addressed.
pub const PICKUPS: [(&str, u32, &str, Vec2); 7] = [
    ("berries", 25, "{}", Vec2::new(-520.0, 230.0)),
    ("axe", 1, r#"{"durability":3}"#, Vec2::new(-430.0, -20.0)),
    (
        "letter",
        1,
        r#"{"to":"the miller"}"#,
        Vec2::new(-300.0, 250.0),
    ),
    ("berries", 10, "{}", Vec2::new(-200.0, 60.0)),
    ("flint", 2, "{}", Vec2::new(-80.0, 200.0)),
    ("axe", 1, r#"{"durability":40}"#, Vec2::new(30.0, -10.0)),
    ("berries", 400, "{}", Vec2::new(-330.0, 110.0)),
];

/// The properties of pickup `n` of [`PICKUPS`].
pub fn pickup_props(n: usize) -> bevy_container::props::Props {
    PICKUPS
        .get(n)
        .and_then(|p| bevy_container::props::Props::parse(p.2).ok())
        .unwrap_or_default()
}

/// The log panel's lines, oldest first.
#[derive(Resource, Default, Debug)]
pub struct DemoLog {
    /// Every line so far.
    pub lines: Vec<String>,
    /// What the last action was, to introduce its outcome.
    pub context: String,
}

impl DemoLog {
    /// Adds a line, its items' properties written for a player (see
    /// [`readable`]), and prints it when `echo` is set.
    pub fn push(&mut self, line: String, echo: bool) {
        let line = readable(&line);
        if echo {
            println!("{line}");
        }
        self.lines.push(line);
    }
}

/// `line` with each set of properties (their canonical text, as outcomes
/// print kinds) written for a player: `1 axe{"durability":40} from slot 6`
/// reads `1 axe (durability 40) from slot 6`, and `1 letter{"to":"the
/// miller"}` reads `1 letter (to the miller)`.
pub fn readable(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find('{') {
        let mut objects = serde_json::Deserializer::from_str(&rest[start..])
            .into_iter::<serde_json::Map<String, serde_json::Value>>();
        let props = match objects.next() {
            Some(Ok(props)) if !props.is_empty() => props,
            // not properties: kept as it is
            _ => {
                out.push_str(&rest[..=start]);
                rest = &rest[start + 1..];
                continue;
            }
        };
        let end = start + objects.byte_offset();
        let words: Vec<String> = props
            .iter()
            .map(|(key, value)| match value {
                serde_json::Value::String(text) => format!("{key} {text}"),
                other => format!("{key} {other}"),
            })
            .collect();
        out.push_str(rest[..start].trim_end());
        out.push_str(&format!(" ({})", words.join(", ")));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The scripted day's progress.
#[derive(Resource, Debug)]
pub struct Script {
    /// Frames between steps (0: one step per frame).
    pub pace: u32,
    /// The next step.
    pub next: usize,
    /// Frames until the next step.
    pub wait: u32,
    /// Whether the script runs at all (off: the player plays).
    pub running: bool,
    /// Print log lines to stdout.
    pub echo: bool,
}

impl Script {
    /// Whether every step has run.
    pub fn done(&self) -> bool {
        self.next >= DAY.len()
    }
}

/// The day's pickups, by their place in [`PICKUPS`].
#[derive(Resource, Default, Debug)]
pub struct DayPickups(pub Vec<Entity>);

/// The world of the day and its scripted steps.
pub struct DayPlugin {
    /// Frames between scripted steps.
    pub pace: u32,
    /// Whether the script runs.
    pub scripted: bool,
    /// Print log lines to stdout.
    pub echo: bool,
}

impl Plugin for DayPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ContainerTuning(Tuning::default().with("stash-slots", 6.0)))
            // pickups fall on a ring around the backpack, in pixels
            .insert_resource(PickupPlacement::ring_2d(60.0))
            .init_resource::<DemoLog>()
            .init_resource::<DayPickups>()
            .insert_resource(Script {
                pace: self.pace,
                next: 0,
                wait: self.pace,
                running: self.scripted,
                echo: self.echo,
            })
            .init_state::<DemoState>()
            .add_loading_state(
                LoadingState::new(DemoState::Loading)
                    .continue_to_state(DemoState::Playing)
                    .on_failure_continue_to_state(DemoState::Failed)
                    .load_collection::<DemoAdoptions>(),
            )
            .add_systems(OnEnter(DemoState::Playing), setup_day)
            .add_systems(
                OnEnter(DemoState::Failed),
                |mut exit: MessageWriter<AppExit>| {
                    eprintln!("an adoption file did not load; see the log above");
                    exit.write(AppExit::error());
                },
            )
            .add_systems(
                Update,
                (
                    (run_script, follow_player)
                        .chain()
                        .before(ContainerSystems::Requests),
                    write_log.after(ContainerSystems::Requests),
                )
                    .run_if(in_state(DemoState::Playing)),
            );
    }
}

/// Spawns the player, the backpack, the stash and the chest (each stocked by
/// requests) and the day's pickups.
pub fn setup_day(
    mut commands: Commands,
    adoptions: Res<DemoAdoptions>,
    mut pickups: ResMut<DayPickups>,
    mut requests: MessageWriter<ContainerRequest>,
) {
    commands.spawn((
        Player,
        Name::new("player"),
        Transform::from_xyz(-400.0, 0.0, 1.0),
    ));
    commands.spawn((
        Backpack,
        Name::new("backpack"),
        Container::new(adoptions.backpack.clone()),
        Transform::from_xyz(-400.0, 0.0, 0.0),
    ));
    let stash = commands
        .spawn((
            Stash,
            Name::new("stash"),
            Container::new(adoptions.stash.clone()),
            Transform::from_xyz(120.0, 170.0, 0.0),
        ))
        .id();
    for item in ["ore", "ore", "gem"] {
        requests.write(Deliver::new(stash, item, 12).into());
    }
    spawn_chest(&mut commands, &adoptions, &mut requests);
    pickups.0 = PICKUPS
        .iter()
        .enumerate()
        .map(|(n, (item, amount, _, at))| {
            commands
                .spawn((
                    Name::new(format!("{amount} {item}")),
                    LoosePickup {
                        item: (*item).into(),
                        props: pickup_props(n),
                        amount: *amount,
                    },
                    Transform::from_translation(at.extend(0.0)),
                ))
                .id()
        })
        .collect();
}

/// Spawns the chest with the seed backpack's rules and writes its stock's
/// deliveries (after the stash's, so the logged lines keep their order).
fn spawn_chest(
    commands: &mut Commands,
    adoptions: &DemoAdoptions,
    requests: &mut MessageWriter<ContainerRequest>,
) {
    let chest = commands
        .spawn((
            Chest,
            Name::new("chest"),
            Container::new(adoptions.backpack.clone()),
            Transform::from_translation(CHEST_AT.extend(0.0)),
        ))
        .id();
    for (item, amount) in CHEST_STOCK {
        requests.write(Deliver::new(chest, item, amount).into());
    }
}

fn follow_player(
    player: Single<&Transform, With<Player>>,
    mut backpack: Single<&mut Transform, (With<Backpack>, Without<Player>)>,
) {
    backpack.translation = player.translation.with_z(0.0);
}

fn run_script(
    mut script: ResMut<Script>,
    pickups: Res<DayPickups>,
    backpack: Single<(Entity, &ContainerContents), With<Backpack>>,
    stash: Single<&ContainerContents, With<Stash>>,
    mut player: Single<&mut Transform, With<Player>>,
    places: Query<&Transform, (With<LoosePickup>, Without<Player>)>,
    mut acts: Acts,
) {
    let (bag, contents) = *backpack;
    if !script.running || script.done() || contents.engine().is_none() || stash.engine().is_none() {
        return;
    }
    if script.wait > 0 {
        script.wait -= 1;
        return;
    }
    script.wait = script.pace;
    let step = DAY[script.next];
    script.next += 1;
    let echo = script.echo;
    match step {
        Step::PickUp(n) => {
            let pickup = pickups.0[n];
            if let Ok(at) = places.get(pickup) {
                player.translation = at.translation.with_z(1.0);
            }
            acts.pick_up(bag, pickup);
        }
        Step::Eat { slot, amount } => acts.eat(bag, slot, amount),
        Step::Tear(slots) => acts.tear(bag, slots),
        Step::Sort => acts.sort(bag),
        Step::TuneStash(slots) => acts.tune_stash(slots, echo),
        Step::Chop => acts.chop(bag, contents),
    }
}

/// What the player (or the script) can do, each written as a request and
/// introduced in the log.
#[derive(SystemParam)]
pub struct Acts<'w> {
    log: ResMut<'w, DemoLog>,
    tuning: ResMut<'w, ContainerTuning>,
    requests: MessageWriter<'w, ContainerRequest>,
}

impl Acts<'_> {
    /// Picks up a loose pickup into the bag.
    pub fn pick_up(&mut self, bag: Entity, pickup: Entity) {
        self.log.context = "picked up".into();
        self.requests.write(ContainerRequest::from(PickUp {
            container: bag,
            pickup,
        }));
    }

    /// Eats berries from a slot.
    pub fn eat(&mut self, bag: Entity, slot: u32, amount: u32) {
        self.log.context = format!("ate from slot {}", slot + 1);
        self.requests.write(ContainerRequest::from(Take {
            container: bag,
            item: "berries".into(),
            props: None,
            amount,
            slot: Some(slot),
        }));
    }

    /// The strap tears: the bag keeps `slots` slots.
    pub fn tear(&mut self, bag: Entity, slots: u32) {
        self.log.context = format!("strap torn to {slots} slots");
        self.requests.write(ContainerRequest::from(Resize {
            container: bag,
            slot_count: Some(slots),
            size_budget: None,
        }));
    }

    /// Sorts the bag.
    pub fn sort(&mut self, bag: Entity) {
        self.log.context = "sorted".into();
        self.requests.write(ContainerRequest::from(Sort {
            container: bag,
            order: Vec::new(),
        }));
    }

    /// Sets the tuning key `stash-slots`.
    pub fn tune_stash(&mut self, slots: u32, echo: bool) {
        self.log.context = format!("tuning: stash-slots = {slots}");
        self.log
            .push(format!("tuning key stash-slots set to {slots}"), echo);
        self.tuning.set("stash-slots", f64::from(slots));
    }

    /// Chops wood with the bag's first axe: its durability drops by one
    /// (a change of its properties, in place); at its last point it breaks
    /// and is taken out.
    pub fn chop(&mut self, bag: Entity, contents: &ContainerContents) {
        let axe = contents.engine().and_then(|e| {
            e.slots().enumerate().find_map(|(i, s)| {
                s.filter(|s| s.item.as_str() == "axe")
                    .map(|s| (i as u32, s))
            })
        });
        let Some((slot, stack)) = axe else {
            self.say("no axe to chop wood with");
            return;
        };
        let left = stack.props.number("durability").map_or(0, |d| d.trunc());
        if left <= 1 {
            self.log.context = "the axe broke".into();
            self.requests.write(ContainerRequest::from(
                Take::new(bag, "axe", 1).from_slot(slot),
            ));
            return;
        }
        self.log.context = "chopped wood".into();
        let worn = i32::try_from(left - 1).unwrap_or(0);
        if let Ok(to) = stack.props.with("durability", worn) {
            self.requests.write(ContainerRequest::from(SetProps::new(
                bag,
                bevy_container::contents::PropsAt::Slot(slot),
                to,
            )));
        }
    }

    /// Adds a line to the log.
    pub fn say(&mut self, line: &str) {
        self.log.push(line.into(), false);
    }

    /// The stash's slot count from the tuning.
    pub fn stash_slots(&self) -> u32 {
        self.tuning.get("stash-slots").map_or(6, |f| f as u32)
    }
}

/// Turns outcome messages into log lines. The chest's stock (deliveries to
/// a [`Chest`] from no sender) is not told: the day's log is the player's.
#[allow(clippy::too_many_arguments)]
pub fn write_log(
    mut log: ResMut<DemoLog>,
    script: Res<Script>,
    names: Query<&Name>,
    chests: Query<(), With<Chest>>,
    mut delivered: MessageReader<ItemsDelivered>,
    mut taken: MessageReader<ItemsTaken>,
    mut forced: MessageReader<ItemsForcedOut>,
    mut rearranged: MessageReader<ContainerRearranged>,
    mut props_changed: MessageReader<PropsChanged>,
) {
    let name = |e: Entity| {
        names
            .get(e)
            .map_or_else(|_| e.to_string(), |n| n.to_string())
    };
    let echo = script.echo;
    for d in delivered.read() {
        if d.sender.is_none() && chests.contains(d.container) {
            continue;
        }
        let line = format!("{}: {}", name(d.container), d.outcome);
        log.push(line, echo);
    }
    for t in taken.read() {
        let line = format!("{}: {}", name(t.container), t.outcome);
        let context = log.context.clone();
        let line = if context == "the axe broke" {
            format!("{context}: {line}")
        } else {
            line
        };
        log.push(line, echo);
    }
    for p in props_changed.read() {
        let context = log.context.clone();
        log.push(
            format!("{context}: {}: {}", name(p.container), p.outcome),
            echo,
        );
    }
    for f in forced.read() {
        let line = match &f.outcome.refused {
            Some(short) => format!(
                "{}: forced removal refused: {short} never leave",
                name(f.container)
            ),
            None => format!("{}: {}", name(f.container), f.outcome),
        };
        let context = log.context.clone();
        log.push(format!("{context}: {line}"), echo);
    }
    for r in rearranged.read() {
        let line = match r.outcome.refused {
            Some(reason) => format!("{}: refused ({reason})", name(r.container)),
            None => format!("{}: sorted", name(r.container)),
        };
        log.push(line, echo);
    }
}

/// The backpack's slots as a table.
pub fn slot_table(contents: &ContainerContents) -> String {
    let mut out = String::from("slot  item      amount\n");
    for (i, s) in contents.slots().iter().enumerate() {
        match s {
            Some((item, n)) => {
                let props = contents.props(i);
                let props = if props.is_empty() {
                    String::new()
                } else {
                    format!("  {props}")
                };
                out.push_str(&format!("{:<5} {:<9} {n}{props}\n", i + 1, item.as_str()))
            }
            None => out.push_str(&format!("{:<5} -\n", i + 1)),
        }
    }
    out
}
