//! What the player sees: the world with its loose pickups, the backpack,
//! chest and stash as the crate's container grids (`bevy_container::ui`:
//! drag and drop, shift-click, tooltips, the backpack's hotbar), the log,
//! the controls; keyboard play; the screenshot.

use bevy::camera::RenderTarget;
use bevy::ecs::system::SystemParam;
use bevy::picking::pointer::{Location, PointerAction, PointerId, PointerInput};
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::ui::UiGlobalTransform;
use bevy::window::{PrimaryWindow, WindowRef};
use bevy_container::plugin::*;
use bevy_container::ui::*;

use crate::day::*;

/// The windowed view.
pub struct ViewPlugin {
    /// Save a screenshot here once the scripted day is done (with the
    /// backpack's letter hovered, so its tooltip shows), then exit.
    pub screenshot: Option<String>,
}

/// Where the screenshot goes, if one is asked for.
#[derive(Resource)]
struct ScreenshotPath(Option<String>);

/// Marks the backpack's grid (the hotbar).
#[derive(Component)]
struct BackpackGrid;

/// Marks the log's text.
#[derive(Component)]
struct LogText;

/// A loose pickup's text in the world.
#[derive(Component)]
struct PickupLabel(Entity);

/// The item catalog the grids, tooltips and pickups are drawn with.
const CATALOG: &str = "demo.items.ron";

/// Cells per row of every grid.
const COLUMNS: u16 = 4;

/// A cell's side, in logical pixels.
const CELL: f32 = 52.0;

/// The gap between cells, in logical pixels.
const GAP: f32 = 4.0;

/// The space around and between the grids' sections, in logical pixels.
const SECTION_GAP: f32 = 12.0;

/// Frames after the scripted day ends when the pointer moves over the
/// backpack's letter (for the screenshot's tooltip).
const HOVER_AT: u32 = 20;
/// The backpack slot the screenshot hovers: at dusk it holds the letter,
/// whose tooltip shows its addressee (an item property).
const HOVER_SLOT: u32 = 1;

/// Frames after the scripted day ends when the screenshot is taken: the
/// tooltip has been built, laid out and drawn by then.
const SHOOT_AT: u32 = 40;

/// Frames after the scripted day ends when a screenshot that never came
/// is given up.
const GIVE_UP_AT: u32 = 600;

impl Plugin for ViewPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(ScreenshotPath(self.screenshot.clone()))
            .add_systems(Startup, (load_catalog, spawn_ui))
            .add_systems(OnEnter(DemoState::Playing), open_grids.after(setup_day))
            .add_systems(
                Update,
                (
                    dress_world,
                    label_pickups,
                    colour_pickups,
                    (log_transfers, log_rejected_catalogs).after(ContainerSystems::Requests),
                    show_log,
                    (walk, act).run_if(player_in_control),
                    take_screenshot,
                )
                    .run_if(in_state(DemoState::Playing)),
            );
    }
}

/// A text bundle.
fn text(s: impl Into<String>, size: f32, color: Color) -> impl Bundle {
    (
        Text::new(s),
        TextFont::from_font_size(size),
        TextColor(color),
    )
}

/// Puts the demo's item catalog in use for the grids and tooltips.
fn load_catalog(mut commands: Commands, server: Res<AssetServer>) {
    commands.insert_resource(UiCatalog(server.load(CATALOG)));
}

/// The camera, the controls (top left) and the log (bottom left).
fn spawn_ui(mut commands: Commands) {
    commands.spawn(Camera2d);
    let controls = Node {
        position_type: PositionType::Absolute,
        left: px(12),
        top: px(10),
        max_width: px(760),
        ..default()
    };
    commands.spawn((
        controls,
        text(
            "arrows: walk   E: pick up   1-9 or click: select a backpack slot   F: eat a berry from it\n\
             T: tear the strap   O: sort   K: stash-slots - 1 (tuning)\n\
             mouse: drag a stack (right: half, ctrl: one)   shift-click: to the linked grid   hover: what it is",
            14.0,
            Color::srgb(0.9, 0.95, 0.85),
        ),
    ));
    let log = Node {
        position_type: PositionType::Absolute,
        left: px(12),
        bottom: px(12),
        width: px(730),
        padding: UiRect::all(px(8)),
        ..default()
    };
    commands
        .spawn((log, BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.6))))
        .with_child((LogText, text("", 14.0, Color::srgb(0.95, 0.95, 0.8))));
}

/// A grid of `container` in the demo's size.
fn grid_of(container: Entity) -> ContainerGrid {
    ContainerGrid::new(container, COLUMNS).cell_size(CELL, GAP)
}

/// The width of a row of cells, in logical pixels.
fn grid_width() -> f32 {
    let columns = f32::from(COLUMNS);
    columns * CELL + (columns - 1.0) * GAP
}

/// A titled section under `parent` holding a grid (`grid`: the
/// [`ContainerGrid`] and what goes with it).
fn section(commands: &mut Commands, parent: Entity, title: &str, grid: impl Bundle) {
    let column = Node {
        flex_direction: FlexDirection::Column,
        row_gap: px(4),
        width: px(grid_width()),
        ..default()
    };
    let section = commands.spawn((column, ChildOf(parent))).id();
    let title = text(title.to_string(), 16.0, Color::WHITE);
    commands.spawn((title, ChildOf(section)));
    commands.spawn((grid, ChildOf(section)));
}

/// The grids, on the right: the backpack (a hotbar; shift-click sends to
/// the chest) and the chest side by side, the stash under them (both
/// shift-click to the backpack).
fn open_grids(
    mut commands: Commands,
    backpack: Single<Entity, With<Backpack>>,
    chest: Single<Entity, With<Chest>>,
    stash: Single<Entity, With<Stash>>,
) {
    let (backpack, chest, stash) = (*backpack, *chest, *stash);
    let panel = Node {
        position_type: PositionType::Absolute,
        right: px(16),
        top: px(12),
        padding: UiRect::all(px(10)),
        row_gap: px(SECTION_GAP),
        flex_direction: FlexDirection::Column,
        ..default()
    };
    let back = BackgroundColor(Color::srgba(0.0, 0.0, 0.0, 0.55));
    let panel = commands.spawn((panel, back)).id();
    let row = Node {
        column_gap: px(SECTION_GAP),
        ..default()
    };
    let row = commands.spawn((row, ChildOf(panel))).id();
    let bag = (
        BackpackGrid,
        grid_of(backpack),
        Hotbar,
        LinkedContainer(chest),
    );
    section(&mut commands, row, "Backpack", bag);
    let chest_grid = (grid_of(chest), LinkedContainer(backpack));
    section(&mut commands, row, "Chest", chest_grid);
    let stash_grid = (grid_of(stash), LinkedContainer(backpack));
    section(&mut commands, panel, "Stash", stash_grid);
}

/// Gives the player, the stash and the chest their sprites and names.
fn dress_world(
    mut commands: Commands,
    players: Query<Entity, Added<Player>>,
    stashes: Query<Entity, Added<Stash>>,
    chests: Query<Entity, Added<Chest>>,
) {
    let mut dress = |e: Entity, colour: Color, side: f32, name: &str| {
        commands
            .entity(e)
            .insert(Sprite::from_color(colour, Vec2::splat(side)));
        commands.entity(e).with_child((
            Text2d::new(name),
            TextFont::from_font_size(14.0),
            Transform::from_xyz(0.0, side / 2.0 + 12.0, 1.0),
        ));
    };
    for e in &players {
        dress(e, Color::srgb(0.25, 0.8, 0.35), 36.0, "you");
    }
    for e in &stashes {
        dress(e, Color::srgb(0.45, 0.3, 0.15), 64.0, "stash");
    }
    for e in &chests {
        dress(e, Color::srgb(0.55, 0.4, 0.2), 56.0, "chest");
    }
}

/// What a pickup's label says: its amount and its name in the catalog.
fn pickup_text(pickup: &LoosePickup, looks: &ItemLooks) -> String {
    format!("{} {}", pickup.amount, looks.look(&pickup.item).name)
}

/// Gives new pickups a sprite and a label, and keeps the labels up to date.
fn label_pickups(
    mut commands: Commands,
    looks: ItemLooks,
    added: Query<(Entity, &LoosePickup), Added<LoosePickup>>,
    changed: Query<(&LoosePickup, &PickupLabel), Changed<LoosePickup>>,
    mut texts: Query<&mut Text2d>,
) {
    for (e, p) in &added {
        let label = commands
            .spawn((
                Text2d::new(pickup_text(p, &looks)),
                TextFont::from_font_size(14.0),
                Transform::from_xyz(0.0, 24.0, 2.0),
            ))
            .id();
        let colour = looks.look(&p.item).colour;
        commands
            .entity(e)
            .insert((
                Sprite::from_color(colour, Vec2::splat(22.0)),
                PickupLabel(label),
            ))
            .add_child(label);
    }
    for (p, label) in &changed {
        if let Ok(mut t) = texts.get_mut(label.0) {
            t.0 = pickup_text(p, &looks);
        }
    }
}

/// Draws each pickup as the catalog says: its icon, or a square of its
/// colour (the catalog may load after the pickups appear, and reloads when
/// edited).
fn colour_pickups(
    looks: ItemLooks,
    server: Res<AssetServer>,
    mut pickups: Query<(&LoosePickup, &mut Sprite)>,
) {
    for (pickup, mut sprite) in &mut pickups {
        let look = looks.look(&pickup.item);
        match &look.icon {
            Some(icon) => {
                let image: Handle<Image> = server.load(icon.clone());
                if sprite.image != image {
                    sprite.image = image;
                    sprite.color = Color::WHITE;
                    sprite.custom_size = Some(Vec2::splat(32.0));
                }
            }
            None if sprite.color != look.colour => sprite.color = look.colour,
            None => {}
        }
    }
}

/// A container's name, or its id.
fn name_of(names: &Query<&Name>, e: Entity) -> String {
    names
        .get(e)
        .map_or_else(|_| e.to_string(), |n| n.to_string())
}

/// Logs what the grids moved: drags within a container and between
/// containers, shift-clicks, and their refusals.
fn log_transfers(
    mut log: ResMut<DemoLog>,
    names: Query<&Name>,
    mut moved: MessageReader<ItemsTransferred>,
) {
    for t in moved.read() {
        let line = if t.from == t.to {
            format!("{}: {}", name_of(&names, t.from), t.outcome)
        } else {
            let (from, to) = (name_of(&names, t.from), name_of(&names, t.to));
            format!("{from} to {to}: {}", t.outcome)
        };
        log.push(line, false);
    }
}

/// Logs an item catalog that did not load (the grids keep the one they had).
fn log_rejected_catalogs(mut log: ResMut<DemoLog>, mut rejected: MessageReader<CatalogRejected>) {
    for r in rejected.read() {
        let first = r.message.lines().next().unwrap_or_default();
        log.push(format!("item catalog not loaded: {first}"), false);
    }
}

/// The log's last ten lines.
fn show_log(log: Res<DemoLog>, mut t: Single<&mut Text, With<LogText>>) {
    if log.is_changed() {
        let start = log.lines.len().saturating_sub(10);
        t.0 = log.lines[start..].join("\n");
    }
}

/// Whether the player has the keys: no script, or the script is done.
fn player_in_control(script: Res<Script>) -> bool {
    !script.running || script.done()
}

/// The arrows walk the player.
fn walk(
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    mut player: Single<&mut Transform, With<Player>>,
) {
    let mut dir = Vec2::ZERO;
    for (key, d) in [
        (KeyCode::ArrowLeft, Vec2::NEG_X),
        (KeyCode::ArrowRight, Vec2::X),
        (KeyCode::ArrowUp, Vec2::Y),
        (KeyCode::ArrowDown, Vec2::NEG_Y),
    ] {
        if keys.pressed(key) {
            dir += d;
        }
    }
    player.translation += (dir.normalize_or_zero() * 260.0 * time.delta_secs()).extend(0.0);
}

/// Where the loose pickups lie.
type PickupPlaces<'w, 's> =
    Query<'w, 's, (Entity, &'static Transform), (With<LoosePickup>, Without<Player>)>;

/// The nearest pickup within reach of `here`.
fn nearest_pickup(pickups: &PickupPlaces, here: Vec2) -> Option<Entity> {
    pickups
        .iter()
        .map(|(e, t)| (e, t.translation.truncate().distance(here)))
        .filter(|(_, d)| *d < 70.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(e, _)| e)
}

/// The day's actions on keys: E picks up, F eats from the hotbar's
/// selected slot (1-9 and clicks select it, in `bevy_container::ui`), T
/// tears the strap, O sorts, K lowers the stash's slot count.
fn act(
    keys: Res<ButtonInput<KeyCode>>,
    hotbar: Query<&SelectedSlot, With<BackpackGrid>>,
    player: Single<&Transform, With<Player>>,
    backpack: Single<(Entity, &ContainerContents), With<Backpack>>,
    pickups: PickupPlaces,
    mut acts: Acts,
) {
    let (bag, contents) = *backpack;
    if keys.just_pressed(KeyCode::KeyE) {
        match nearest_pickup(&pickups, player.translation.truncate()) {
            Some(pickup) => acts.pick_up(bag, pickup),
            None => acts.say("nothing within reach: walk closer to an item"),
        }
    }
    if keys.just_pressed(KeyCode::KeyF) {
        let slot = hotbar.single().map_or(0, |s| s.0);
        acts.eat(bag, slot, 1);
    }
    if keys.just_pressed(KeyCode::KeyT) {
        let now = contents.engine().map_or(12, |e| e.limits().slot_count);
        acts.tear(bag, now.saturating_sub(3).max(1));
    }
    if keys.just_pressed(KeyCode::KeyO) {
        acts.sort(bag);
    }
    if keys.just_pressed(KeyCode::KeyK) {
        let slots = acts.stash_slots().saturating_sub(1).max(1);
        acts.tune_stash(slots, false);
    }
}

/// What moving the mouse pointer over the backpack's letter needs.
#[derive(SystemParam)]
struct HoverFirstCell<'w, 's> {
    windows: Query<'w, 's, (Entity, &'static Window), With<PrimaryWindow>>,
    grids: Query<'w, 's, Entity, With<BackpackGrid>>,
    cells: Query<'w, 's, (&'static SlotCell, &'static UiGlobalTransform)>,
    pointer: MessageWriter<'w, PointerInput>,
}

impl HoverFirstCell<'_, '_> {
    /// Moves the mouse pointer (a `PointerInput`, as bevy_picking's own
    /// input writes for a cursor move) to the centre of the backpack grid's
    /// cell showing [`HOVER_SLOT`]; `false` when there is no window or no
    /// such cell.
    fn hover(&mut self) -> bool {
        let Ok((window_e, window)) = self.windows.single() else {
            return false;
        };
        let Ok(grid) = self.grids.single() else {
            return false;
        };
        let centre = self
            .cells
            .iter()
            .find(|(cell, _)| cell.grid() == grid && cell.slot() == Some(HOVER_SLOT))
            .map(|(_, at)| at.translation);
        let Some(centre) = centre else {
            return false;
        };
        let Some(target) = RenderTarget::Window(WindowRef::Primary).normalize(Some(window_e))
        else {
            return false;
        };
        // the layout is in physical pixels, pointers are in logical ones
        let position = centre / window.scale_factor();
        let location = Location { target, position };
        let moved = PointerAction::Move { delta: Vec2::ZERO };
        self.pointer
            .write(PointerInput::new(PointerId::Mouse, location, moved));
        true
    }
}

/// Saves a screenshot of the primary window to `path`, then exits.
fn shoot(commands: &mut Commands, path: String) {
    commands
        .spawn(Screenshot::primary_window())
        .observe(save_to_disk(path))
        .observe(
            |_: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
                exit.write(AppExit::Success);
            },
        );
}

/// With `--screenshot`: once the scripted day is done, hovers the
/// backpack's letter so its tooltip (with the letter's addressee) shows,
/// then saves the screenshot
/// and exits (with an error if it never comes).
fn take_screenshot(
    mut commands: Commands,
    script: Res<Script>,
    path: Res<ScreenshotPath>,
    mut after_done: Local<u32>,
    mut hover: HoverFirstCell,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(path) = &path.0 else { return };
    if !script.done() {
        return;
    }
    *after_done += 1;
    match *after_done {
        HOVER_AT if !hover.hover() => {
            eprintln!("the backpack's letter cell was not found: the screenshot has no tooltip");
        }
        SHOOT_AT => shoot(&mut commands, path.clone()),
        GIVE_UP_AT => {
            eprintln!("the screenshot was not captured");
            exit.write(AppExit::error());
        }
        _ => {}
    }
}
