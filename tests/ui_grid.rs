//! The container grid driven the way a player drives it (issue 18): Bevy's
//! real UI layout and UI picking backend, fed synthetic mouse input
//! (`PointerInput` messages: move, press, release, scroll) at the centres
//! the layout gave the cells. Each test checks the requests the grid wrote,
//! the outcome, and the contents after.
//!
//! No window and no renderer: the camera renders to `RenderTarget::None`
//! with its target size filled in by hand (what `bevy_render`'s camera
//! system would compute), and is the default UI camera. The mouse pointer
//! is spawned by hand (`PointerInputPlugin`, which reads window events, is
//! left out), and keys are pressed on a bare `ButtonInput<KeyCode>`
//! (`InputPlugin` would clear them before `Update`).
#![cfg(feature = "ui")]

mod common;

use bevy::camera::{
    CameraPlugin, ComputedCameraValues, NormalizedRenderTarget, RenderTarget, RenderTargetInfo,
};
use bevy::image::TextureAtlasPlugin;
use bevy::input::mouse::MouseScrollUnit;
use bevy::input::touch::{TouchPhase, Touches};
use bevy::mesh::MeshPlugin;
use bevy::picking::pointer::{Location, PointerAction, PointerButton, PointerId, PointerInput};
use bevy::picking::{InteractionPlugin, PickingPlugin};
use bevy::prelude::*;
use bevy::text::TextPlugin;
use bevy::ui::{IsDefaultUiCamera, UiGlobalTransform, UiPlugin};
use bevy_container::adoption::Adoption;
use bevy_container::contents::{Reason, Swapped, TransferRequest};
use bevy_container::plugin::*;
use bevy_container::ui::*;
use common::*;
use serde_json::json;

const WIDTH: u32 = 1024;
const HEIGHT: u32 = 768;

/// Every request written, in order.
#[derive(Resource, Default)]
struct Asked(Vec<ContainerRequest>);

/// Every refused drop reported.
#[derive(Resource, Default)]
struct Refusals(Vec<DropRefused>);

/// Where the mouse is.
#[derive(Resource, Default)]
struct Mouse(Vec2);

fn log_requests(mut requests: MessageReader<ContainerRequest>, mut asked: ResMut<Asked>) {
    asked.0.extend(requests.read().cloned());
}

fn log_refusals(mut refused: MessageReader<DropRefused>, mut log: ResMut<Refusals>) {
    log.0.extend(refused.read().copied());
}

/// The headless game: the container plugin, Bevy's UI, text and picking
/// plugins, the grid plugin, a camera and a mouse pointer.
fn ui_app() -> App {
    let mut app = app();
    app.add_plugins((
        TransformPlugin,
        ImagePlugin::default(),
        TextureAtlasPlugin,
        MeshPlugin,
        CameraPlugin,
        TextPlugin,
        UiPlugin,
        PickingPlugin,
        InteractionPlugin,
    ))
    .add_plugins(ContainerUiPlugin)
    .init_resource::<ButtonInput<KeyCode>>()
    .init_resource::<ButtonInput<MouseButton>>()
    .init_resource::<Touches>()
    .init_resource::<Asked>()
    .init_resource::<Refusals>()
    .init_resource::<Mouse>()
    .add_systems(Last, (log_requests, log_refusals));
    let size = UVec2::new(WIDTH, HEIGHT);
    let target = RenderTargetInfo {
        physical_size: size,
        scale_factor: 1.0,
    };
    let camera = Camera {
        computed: ComputedCameraValues {
            target_info: Some(target),
            ..default()
        },
        ..default()
    };
    let world = app.world_mut();
    world.spawn((
        Camera2d,
        camera,
        RenderTarget::None { size },
        IsDefaultUiCamera,
    ));
    world.spawn(PointerId::Mouse);
    app
}

/// A four-slot chest with the seed backpack's rows.
fn chest_rules() -> Adoption {
    read(&adoption_json(
        slot_answers("left-where-it-is"),
        4,
        0.0,
        json!([
            {"id": "berries", "stack-limit": 20, "when-forced-out": "never"},
            {"id": "axe", "stack-limit": 1, "when-forced-out": "dropped-nearby", "forced-out-order": 1},
            {"id": "letter", "stack-limit": 1, "when-forced-out": "never"},
        ]),
    ))
}

/// A grid of `container` at (`left`, 40), built and laid out.
fn grid_at(app: &mut App, container: Entity, columns: u16, left: f32) -> Entity {
    let node = Node {
        position_type: PositionType::Absolute,
        left: px(left),
        top: px(40),
        ..default()
    };
    let grid = app
        .world_mut()
        .spawn((ContainerGrid::new(container, columns), node))
        .id();
    // built in Update, laid out in PostUpdate, hit-tested from the next frame
    app.update();
    app.update();
    grid
}

/// The cell showing `slot` of `grid`.
fn cell_of(app: &mut App, grid: Entity, slot: u32) -> Entity {
    let mut cells = app.world_mut().query::<(Entity, &SlotCell)>();
    cells
        .iter(app.world())
        .find(|(_, c)| c.grid() == grid && c.slot() == Some(slot))
        .map(|(e, _)| e)
        .unwrap_or_else(|| panic!("no cell of grid {grid} shows slot {slot}"))
}

/// The centre the layout gave the cell showing `slot` of `grid`.
fn centre(app: &mut App, grid: Entity, slot: u32) -> Vec2 {
    let cell = cell_of(app, grid, slot);
    let transform = app
        .world()
        .get::<UiGlobalTransform>(cell)
        .expect("a laid-out cell");
    transform.translation
}

/// The text of the cell showing `slot` of `grid`.
fn label(app: &mut App, grid: Entity, slot: u32) -> String {
    let cell = cell_of(app, grid, slot);
    let label = app.world().get::<SlotCell>(cell).unwrap().label();
    app.world().get::<Text>(label).unwrap().0.clone()
}

/// The status line of `grid`.
fn status(app: &mut App, grid: Entity) -> String {
    let mut lines = app.world_mut().query::<(&GridStatus, &Text)>();
    lines
        .iter(app.world())
        .find(|(s, _)| s.grid() == grid)
        .map(|(_, t)| t.0.clone())
        .expect("a status line")
}

/// A container's slots as one line: `berries 20, _, axe 1`.
fn show(app: &App, e: Entity) -> String {
    let one =
        |s: &Option<(String, u32)>| s.as_ref().map_or("_".into(), |(i, n)| format!("{i} {n}"));
    slots(app, e).iter().map(one).collect::<Vec<_>>().join(", ")
}

/// Forgets the requests and refusals logged so far.
fn clear_logs(app: &mut App) {
    app.world_mut().resource_mut::<Asked>().0.clear();
    app.world_mut().resource_mut::<Refusals>().0.clear();
}

fn asked(app: &App) -> Vec<ContainerRequest> {
    app.world().resource::<Asked>().0.clone()
}

/// One frame with one pointer input at the mouse's position.
fn input(app: &mut App, action: PointerAction) {
    let position = app.world().resource::<Mouse>().0;
    let location = Location {
        target: NormalizedRenderTarget::None {
            width: WIDTH,
            height: HEIGHT,
        },
        position,
    };
    let event = PointerInput::new(PointerId::Mouse, location, action);
    app.world_mut().write_message(event);
    app.update();
}

fn move_to(app: &mut App, to: Vec2) {
    let from = std::mem::replace(&mut app.world_mut().resource_mut::<Mouse>().0, to);
    let delta = if to == from { Vec2::X } else { to - from };
    input(app, PointerAction::Move { delta });
}

/// Presses `button` at `from`, moves to `to` and lets go there.
fn drag(app: &mut App, from: Vec2, to: Vec2, button: PointerButton) {
    move_to(app, from);
    input(app, PointerAction::Press(button));
    move_to(app, to);
    input(app, PointerAction::Release(button));
    app.update(); // the outcome drawn
}

/// A left click at `at`.
fn click(app: &mut App, at: Vec2) {
    move_to(app, at);
    input(app, PointerAction::Press(PointerButton::Primary));
    input(app, PointerAction::Release(PointerButton::Primary));
    app.update();
}

fn hold(app: &mut App, key: KeyCode) {
    app.world_mut()
        .resource_mut::<ButtonInput<KeyCode>>()
        .press(key);
}

fn let_go(app: &mut App, key: KeyCode) {
    let mut keys = app.world_mut().resource_mut::<ButtonInput<KeyCode>>();
    keys.release(key);
    keys.clear();
}

/// Presses `key` for one frame.
fn tap(app: &mut App, key: KeyCode) {
    hold(app, key);
    app.update();
    let_go(app, key);
}

/// The backpack (seed, twelve slots) and a four-slot chest, each with a
/// grid: the backpack's at the left, the chest's at the right.
fn backpack_and_chest() -> (App, Entity, Entity, Entity, Entity) {
    let mut app = ui_app();
    let (bag, _) = spawn(&mut app, seed(), Vec3::ZERO);
    let (chest, _) = spawn(&mut app, chest_rules(), Vec3::ZERO);
    let bag_grid = grid_at(&mut app, bag, 4, 20.0);
    let chest_grid = grid_at(&mut app, chest, 4, 500.0);
    (app, bag, chest, bag_grid, chest_grid)
}

#[test]
fn a_drag_within_the_backpack_moves_the_stack() {
    let (mut app, bag, _, grid, _) = backpack_and_chest();
    deliver(&mut app, bag, "berries", 25, None); // 20 in slot 0, 5 in slot 1
    app.update();
    assert_eq!(label(&mut app, grid, 1), "berries\n5");
    clear_logs(&mut app);

    let (from, to) = (centre(&mut app, grid, 1), centre(&mut app, grid, 6));
    drag(&mut app, from, to, PointerButton::Primary);

    let moved = MoveItems {
        container: bag,
        from: 1,
        to: 6,
        amount: None,
    };
    assert_eq!(asked(&app), [ContainerRequest::from(moved)]);
    let rearranged = app.world().resource::<Seen>().rearranged.last().cloned();
    assert_eq!(rearranged.map(|r| r.outcome.refused), Some(None));
    let bag_now = "berries 20, _, _, _, _, _, berries 5, _, _, _, _, _";
    assert_eq!(show(&app, bag), bag_now);
    assert_eq!(label(&mut app, grid, 6), "berries\n5");
    assert_eq!(label(&mut app, grid, 1), "");
    assert_eq!(status(&mut app, grid), "");
}

#[test]
fn a_drag_onto_another_containers_slot_transfers_to_that_slot() {
    let (mut app, bag, chest, bag_grid, chest_grid) = backpack_and_chest();
    deliver(&mut app, chest, "berries", 20, None);
    app.update();
    clear_logs(&mut app);

    let (from, to) = (
        centre(&mut app, chest_grid, 0),
        centre(&mut app, bag_grid, 3),
    );
    drag(&mut app, from, to, PointerButton::Primary);

    let transfer = Transfer {
        from: chest,
        to: bag,
        request: TransferRequest::from_slot(0, 20).of("berries").to_slot(3),
    };
    assert_eq!(asked(&app), [ContainerRequest::from(transfer)]);
    let outcome = &app
        .world()
        .resource::<Seen>()
        .transferred
        .last()
        .unwrap()
        .outcome;
    assert_eq!((outcome.moved, outcome.refused), (20, None));
    assert_eq!(show(&app, chest), "_, _, _, _");
    assert_eq!(
        show(&app, bag),
        "_, _, _, berries 20, _, _, _, _, _, _, _, _"
    );
    assert_eq!(label(&mut app, bag_grid, 3), "berries\n20");
    assert_eq!(label(&mut app, chest_grid, 0), "");
}

#[test]
fn two_whole_stacks_dropped_onto_each_other_swap() {
    let (mut app, bag, chest, bag_grid, chest_grid) = backpack_and_chest();
    deliver(&mut app, bag, "axe", 1, None);
    deliver(&mut app, chest, "letter", 1, None);
    app.update();
    clear_logs(&mut app);

    let (from, to) = (
        centre(&mut app, chest_grid, 0),
        centre(&mut app, bag_grid, 0),
    );
    drag(&mut app, from, to, PointerButton::Primary);

    let transfer = Transfer {
        from: chest,
        to: bag,
        request: TransferRequest::from_slot(0, 1).of("letter").to_slot(0),
    };
    assert_eq!(asked(&app), [ContainerRequest::from(transfer)]);
    let outcome = &app
        .world()
        .resource::<Seen>()
        .transferred
        .last()
        .unwrap()
        .outcome;
    let axe = Swapped {
        item: "axe".into(),
        props: Default::default(),
        amount: 1,
    };
    assert_eq!(outcome.swapped, Some(axe));
    assert_eq!(show(&app, chest), "axe 1, _, _, _");
    assert!(show(&app, bag).starts_with("letter 1, _"));
    assert_eq!(label(&mut app, bag_grid, 0), "letter");
    assert_eq!(label(&mut app, chest_grid, 0), "axe");
}

#[test]
fn a_right_drag_takes_half_and_a_ctrl_drag_takes_one() {
    let (mut app, bag, _, grid, _) = backpack_and_chest();
    deliver(&mut app, bag, "berries", 20, None);
    app.update();
    clear_logs(&mut app);

    let (from, to) = (centre(&mut app, grid, 0), centre(&mut app, grid, 2));
    drag(&mut app, from, to, PointerButton::Secondary);
    hold(&mut app, KeyCode::ControlLeft);
    let to = centre(&mut app, grid, 3);
    drag(&mut app, from, to, PointerButton::Primary);
    let_go(&mut app, KeyCode::ControlLeft);

    let split = |to, amount| {
        ContainerRequest::from(MoveItems {
            container: bag,
            from: 0,
            to,
            amount: Some(amount),
        })
    };
    assert_eq!(asked(&app), [split(2, 10), split(3, 1)]);
    assert_eq!(
        show(&app, bag),
        "berries 9, _, berries 10, berries 1, _, _, _, _, _, _, _, _"
    );
    assert_eq!(label(&mut app, grid, 0), "berries\n9");
    assert_eq!(label(&mut app, grid, 3), "berries");
}

#[test]
fn a_refused_drop_shows_its_reason_in_words_and_changes_nothing() {
    let (mut app, bag, _, grid, _) = backpack_and_chest();
    deliver(&mut app, bag, "berries", 40, None); // two full stacks
    app.update();
    clear_logs(&mut app);

    let (from, to) = (centre(&mut app, grid, 1), centre(&mut app, grid, 0));
    drag(&mut app, from, to, PointerButton::Primary);

    let moved = MoveItems {
        container: bag,
        from: 1,
        to: 0,
        amount: None,
    };
    assert_eq!(asked(&app), [ContainerRequest::from(moved)]);
    let rearranged = app.world().resource::<Seen>().rearranged.last().cloned();
    assert_eq!(
        rearranged.map(|r| r.outcome.refused),
        Some(Some(Reason::StackFull))
    );
    let refused = DropRefused {
        grid,
        reason: Reason::StackFull,
    };
    assert_eq!(app.world().resource::<Refusals>().0, [refused]);
    assert_eq!(
        status(&mut app, grid),
        "Refused: that stack is already full"
    );
    assert_eq!(
        show(&app, bag),
        "berries 20, berries 20, _, _, _, _, _, _, _, _, _, _"
    );

    // the next drop that works clears the line
    let to = centre(&mut app, grid, 5);
    drag(&mut app, from, to, PointerButton::Primary);
    assert_eq!(status(&mut app, grid), "");
}

#[test]
fn shift_click_sends_the_stack_to_the_linked_container() {
    let (mut app, bag, chest, bag_grid, chest_grid) = backpack_and_chest();
    app.world_mut()
        .entity_mut(bag_grid)
        .insert(LinkedContainer(chest));
    deliver(&mut app, bag, "berries", 25, None);
    app.update();
    clear_logs(&mut app);

    hold(&mut app, KeyCode::ShiftLeft);
    let at = centre(&mut app, bag_grid, 1);
    click(&mut app, at);
    let_go(&mut app, KeyCode::ShiftLeft);

    let transfer = Transfer {
        from: bag,
        to: chest,
        request: TransferRequest::from_slot(1, 5).of("berries"),
    };
    assert_eq!(asked(&app), [ContainerRequest::from(transfer)]);
    assert_eq!(show(&app, chest), "berries 5, _, _, _");
    assert_eq!(
        show(&app, bag),
        "berries 20, _, _, _, _, _, _, _, _, _, _, _"
    );
    assert_eq!(label(&mut app, chest_grid, 0), "berries\n5");

    // without shift, a click moves nothing
    let at = centre(&mut app, bag_grid, 0);
    click(&mut app, at);
    assert_eq!(asked(&app).len(), 1);
}

#[test]
fn number_keys_and_clicks_select_a_hotbar_slot() {
    let mut app = ui_app();
    let (bag, _) = spawn(&mut app, seed(), Vec3::ZERO);
    let grid = grid_at(&mut app, bag, 12, 20.0);
    app.world_mut().entity_mut(grid).insert(Hotbar);
    app.update();
    let selected = |app: &App| app.world().get::<SelectedSlot>(grid).copied();
    assert_eq!(selected(&app), Some(SelectedSlot(0)));

    tap(&mut app, KeyCode::Digit3);
    assert_eq!(selected(&app), Some(SelectedSlot(2)));
    app.update(); // redrawn
    let highlight = BorderColor::all(GridStyle::default().selected_border);
    let third = cell_of(&mut app, grid, 2);
    assert_eq!(app.world().get::<BorderColor>(third), Some(&highlight));
    let first = cell_of(&mut app, grid, 0);
    assert_ne!(app.world().get::<BorderColor>(first), Some(&highlight));

    tap(&mut app, KeyCode::Digit0);
    assert_eq!(selected(&app), Some(SelectedSlot(9)));

    let at = centre(&mut app, grid, 5);
    click(&mut app, at);
    assert_eq!(selected(&app), Some(SelectedSlot(5)));
    assert!(
        asked(&app)
            .iter()
            .all(|r| matches!(r, ContainerRequest::Deliver(_)))
    );
}

#[test]
fn hovering_a_stack_shows_its_tooltip_from_the_catalog() {
    let (mut app, bag, _, grid, _) = backpack_and_chest();
    let berries = ItemLook {
        name: "Berries".into(),
        icon: None,
        colour: Color::srgb(0.45, 0.14, 0.28),
        description: "Sweet and red.".into(),
        category: Some("food".into()),
        props: Vec::new(),
    };
    let catalog = ItemCatalog::from_looks([("berries", berries)]);
    let handle = app
        .world_mut()
        .resource_mut::<Assets<ItemCatalog>>()
        .add(catalog);
    app.insert_resource(UiCatalog(handle));
    deliver(&mut app, bag, "berries", 20, None);
    app.update();
    assert_eq!(label(&mut app, grid, 0), "Berries\n20");

    let at = centre(&mut app, grid, 0);
    move_to(&mut app, at);
    app.update();
    let mut tips = app.world_mut().query_filtered::<&Text, With<TooltipText>>();
    let tip = tips.single(app.world()).expect("one tooltip").0.clone();
    assert_eq!(
        tip,
        "Berries\n20 in slot 1\nSweet and red.\nstacks to 20\ncategory: food"
    );
}

#[test]
fn a_ten_thousand_slot_bank_builds_one_window_of_cells_and_scrolls() {
    let mut app = ui_app();
    let rows = json!([{"id": "gem", "stack-limit": 5, "when-forced-out": "never"}]);
    let bank_rules = read(&adoption_json(
        slot_answers("left-where-it-is"),
        10_000,
        0.0,
        rows,
    ));
    let (bank, _) = spawn(&mut app, bank_rules, Vec3::ZERO);
    deliver(&mut app, bank, "gem", 200, None); // slots 0 to 39
    let grid = app
        .world_mut()
        .spawn((
            ContainerGrid::new(bank, 10).visible_rows(6),
            Node::default(),
        ))
        .id();
    app.update();
    app.update();

    let slots_shown = |app: &mut App| {
        let mut cells = app.world_mut().query::<&SlotCell>();
        let mut shown: Vec<Option<u32>> = cells
            .iter(app.world())
            .filter(|c| c.grid() == grid)
            .map(SlotCell::slot)
            .collect();
        shown.sort();
        shown
    };
    assert_eq!(
        slots_shown(&mut app),
        (0..60u32).map(Some).collect::<Vec<_>>()
    );
    let nodes = app.world_mut().query::<&Node>().iter(app.world()).count();
    assert!(nodes < 200, "{nodes} UI nodes for a 10,000-slot bank");

    // three lines of the wheel down: rows 3 to 8, slots 30 to 89
    let at = centre(&mut app, grid, 0);
    move_to(&mut app, at);
    let wheel = PointerAction::Scroll {
        unit: MouseScrollUnit::Line,
        x: 0.0,
        y: -3.0,
        phase: TouchPhase::Moved,
    };
    input(&mut app, wheel);
    app.update();
    assert_eq!(app.world().get::<GridScroll>(grid).unwrap().first_row, 3);
    assert_eq!(
        slots_shown(&mut app),
        (30..90u32).map(Some).collect::<Vec<_>>()
    );
    assert_eq!(label(&mut app, grid, 39), "gem\n5");
    assert_eq!(label(&mut app, grid, 40), "");

    // a drag in the scrolled window moves the slot it shows
    clear_logs(&mut app);
    let (from, to) = (centre(&mut app, grid, 35), centre(&mut app, grid, 85));
    drag(&mut app, from, to, PointerButton::Primary);
    let moved = MoveItems {
        container: bank,
        from: 35,
        to: 85,
        amount: None,
    };
    assert_eq!(asked(&app), [ContainerRequest::from(moved)]);
    assert_eq!(label(&mut app, grid, 85), "gem\n5");
}

/// The grid on a client's replicated containers: a drag is sent to the
/// server, settled there, and the grids redraw from the replicated result.
#[cfg(feature = "replicon")]
#[test]
fn a_drag_on_a_client_goes_to_the_server_and_the_grids_show_its_answer() {
    use bevy::state::app::StatesPlugin;
    use bevy_container::net::{ContainerAccess, ContainerNetPlugin};
    use bevy_replicon::prelude::*;
    use bevy_replicon::shared::server_entity_map::ServerEntityMap;
    use bevy_replicon::test_app::ServerTestAppExt;

    let networked = |app: &mut App| {
        app.add_plugins((
            StatesPlugin,
            RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
            ContainerNetPlugin,
        ));
        app.finish();
        app.cleanup();
    };
    let mut server = app();
    networked(&mut server);
    let mut client = ui_app();
    networked(&mut client);
    // the client finds its own copies of the adoptions by their hash
    let keep: Vec<Handle<AdoptionAsset>> = [seed(), chest_rules()]
        .into_iter()
        .map(|a| {
            client
                .world_mut()
                .resource_mut::<Assets<AdoptionAsset>>()
                .add(AdoptionAsset::new(a))
        })
        .collect();
    server.connect_client(&mut client);
    let (bag, _) = spawn(&mut server, seed(), Vec3::ZERO);
    let (chest, _) = spawn(&mut server, chest_rules(), Vec3::ZERO);
    for e in [bag, chest] {
        server
            .world_mut()
            .entity_mut(e)
            .insert(ContainerAccess::public(None));
    }
    deliver(&mut server, chest, "berries", 20, None);
    let exchange = |server: &mut App, client: &mut App| {
        for _ in 0..3 {
            client.update();
            server.exchange_with_client(client);
            server.update();
            server.exchange_with_client(client);
            client.update();
        }
    };
    exchange(&mut server, &mut client);
    let local = |client: &App, e: Entity| {
        let map = client.world().resource::<ServerEntityMap>();
        *map.to_client().get(&e).expect("replicated to the client")
    };
    let (my_bag, my_chest) = (local(&client, bag), local(&client, chest));
    let bag_grid = grid_at(&mut client, my_bag, 4, 20.0);
    let chest_grid = grid_at(&mut client, my_chest, 4, 500.0);
    assert_eq!(label(&mut client, chest_grid, 0), "berries\n20");
    clear_logs(&mut client);

    let (from, to) = (
        centre(&mut client, chest_grid, 0),
        centre(&mut client, bag_grid, 3),
    );
    drag(&mut client, from, to, PointerButton::Primary);
    let transfer = Transfer {
        from: my_chest,
        to: my_bag,
        request: TransferRequest::from_slot(0, 20).of("berries").to_slot(3),
    };
    assert_eq!(asked(&client), [ContainerRequest::from(transfer)]);
    // nothing moves until the server answers
    assert_eq!(show(&client, my_chest), "berries 20, _, _, _");
    exchange(&mut server, &mut client);
    assert_eq!(show(&server, chest), "_, _, _, _");
    assert_eq!(
        show(&server, bag),
        "_, _, _, berries 20, _, _, _, _, _, _, _, _"
    );
    assert_eq!(show(&client, my_bag), show(&server, bag));
    assert_eq!(label(&mut client, bag_grid, 3), "berries\n20");
    assert_eq!(label(&mut client, chest_grid, 0), "");
    let outcome = client
        .world()
        .resource::<Seen>()
        .transferred
        .last()
        .cloned();
    assert_eq!(
        outcome.map(|t| (t.outcome.moved, t.from)),
        Some((20, my_chest))
    );
    drop(keep);
}
