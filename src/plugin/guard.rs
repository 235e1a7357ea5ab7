//! Keeping a container's mirror true to its engine when something other
//! than a request changed the component: an inspector editing the mirror,
//! or a scene written onto a live entity.
//!
//! The plugin notes the change tick at the end of its systems
//! ([`note_written`]). At the head of its next run, [`undo_foreign_edits`]
//! looks at every container changed since: one changed after the note was
//! changed by someone else, so its mirror is rewritten from the engine (a
//! warning says so when the edit had changed it), and a save set aside by
//! reflection is reported with [`ContainerSaveSetAside`].

use bevy::ecs::change_detection::Tick;
use bevy::ecs::system::SystemChangeTick;
use bevy::prelude::*;

use super::components::ContainerContents;
use super::messages::ContainerSaveSetAside;

/// The change tick of the plugin's last run: changes after it are not the
/// plugin's.
#[derive(Resource, Default)]
pub(crate) struct PluginWrites(Tick);

/// Whether a container changed after the plugin's last note: the run
/// condition of [`undo_foreign_edits`], which only reads change ticks.
pub(crate) fn edited_elsewhere(
    changed: Query<Ref<ContainerContents>, Changed<ContainerContents>>,
    noted: Res<PluginWrites>,
    ticks: SystemChangeTick,
) -> bool {
    changed
        .iter()
        .any(|c| c.last_changed().is_newer_than(noted.0, ticks.this_run()))
}

/// Notes the tick the plugin's systems have written up to; the last of
/// them.
pub(crate) fn note_written(ticks: SystemChangeTick, mut noted: ResMut<PluginWrites>) {
    noted.0 = ticks.this_run();
}

/// Rewrites the mirror of every container changed outside the plugin, and
/// reports saves set aside because the container held items.
pub(crate) fn undo_foreign_edits(
    mut containers: Query<(Entity, Mut<ContainerContents>), Changed<ContainerContents>>,
    noted: Res<PluginWrites>,
    ticks: SystemChangeTick,
    mut set_aside: MessageWriter<ContainerSaveSetAside>,
    mut commands: Commands,
) {
    for (entity, mut contents) in &mut containers {
        if !contents
            .last_changed()
            .is_newer_than(noted.0, ticks.this_run())
        {
            continue;
        }
        let contents = contents.bypass_change_detection();
        if let Some(save) = contents.state.set_aside.take() {
            warn!(
                "container {entity}: a save was applied onto it while it held items (a scene written onto a live entity?); the items stay and the save is set aside (ContainerSaveSetAside). Despawn or empty the container first to load a save into it"
            );
            let fact = ContainerSaveSetAside {
                container: entity,
                save: *save,
            };
            commands.trigger(fact.clone());
            set_aside.write(fact);
        }
        // a container without its engine gets its mirror when it attaches
        if contents.is_ready() && contents.mirror_is_stale() {
            warn!(
                "container {entity}: its ContainerContents was edited outside the plugin (an inspector?); the edit is undone. Contents change through ContainerRequest messages"
            );
            contents.refresh();
        }
    }
}
