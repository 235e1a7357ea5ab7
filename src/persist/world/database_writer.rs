//! The database's writer as the game sees it: a resource.

use bevy::prelude::*;

use crate::persist::frame::error::DatabaseError;
use crate::persist::frame::scheduling::WriterScheduling;
use crate::persist::frame::writer::{self, WriterStats};

/// The database's writer, as the game sees it: the last frame handed over
/// and written, what it has written, and the first error. A resource.
#[derive(Resource)]
pub struct DatabaseWriter {
    pub(crate) inner: writer::Handle,
}

impl DatabaseWriter {
    /// The frame the game thread is at (handed over or not).
    pub fn frame(&self) -> u64 {
        self.inner.frame
    }

    /// The last frame committed to the file.
    pub fn written(&self) -> u64 {
        self.inner.stats().written_frame
    }

    /// How many frames the game thread merged into the newest frame
    /// waiting for the writer, because a whole queue of frames waited
    /// ([`ContainerDatabase::queue`](crate::persist::ContainerDatabase::queue)):
    /// the disk was slow, the database was failing over, or a commit
    /// waited for a standby. The game thread never waits for the writer;
    /// such a frame is written in the newest frame's transaction, as the
    /// writer writes the frames it finds waiting, and what waits stays
    /// within one entry for each persisted entity however long the
    /// database is away. A count that keeps rising says the database
    /// does not keep up with the game.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::persist::{ContainerDatabase, ContainerDatabasePlugin, DatabaseWriter};
    /// use bevy_container::plugin::ContainerPlugin;
    ///
    /// let dir = std::env::temp_dir().join(format!("merged-while-behind-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let database = ContainerDatabase::open(dir.join("world.db"))?.queue(2);
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()))
    ///     .add_plugins(ContainerDatabasePlugin::new(database));
    /// app.update();
    /// let writer = app.world().resource::<DatabaseWriter>();
    /// // one frame never fills a queue of two
    /// assert_eq!(writer.merged_while_behind(), 0);
    /// # drop(app);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn merged_while_behind(&self) -> u64 {
        self.inner.absorbed
    }

    /// How long the game thread spent in the last frame's hand-over:
    /// finding what changed and copying it for the writer (and merging it
    /// into the newest waiting frame when the writer was a whole queue
    /// behind). What persistence costs a frame, to watch in a game's
    /// diagnostics.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::persist::{ContainerDatabase, ContainerDatabasePlugin, DatabaseWriter};
    /// use bevy_container::plugin::ContainerPlugin;
    ///
    /// let dir = std::env::temp_dir().join(format!("last-hand-over-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let database = ContainerDatabase::open(dir.join("world.db"))?;
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()))
    ///     .add_plugins(ContainerDatabasePlugin::new(database));
    /// let writer = app.world().resource::<DatabaseWriter>();
    /// assert!(writer.last_hand_over().is_zero(), "no frame yet");
    /// app.update();
    /// let took = app.world().resource::<DatabaseWriter>().last_hand_over();
    /// assert!(!took.is_zero() && took < std::time::Duration::from_secs(1));
    /// # drop(app);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_hand_over(&self) -> std::time::Duration {
        self.inner.last_stages.total()
    }

    /// The last frame's hand-over in its two stages: where a game's
    /// persistence time goes on its game thread.
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::persist::{ContainerDatabase, ContainerDatabasePlugin, DatabaseWriter};
    /// use bevy_container::plugin::ContainerPlugin;
    ///
    /// let dir = std::env::temp_dir().join(format!("hand-over-stages-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let database = ContainerDatabase::open(dir.join("world.db"))?;
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()))
    ///     .add_plugins(ContainerDatabasePlugin::new(database));
    /// app.update();
    /// let writer = app.world().resource::<DatabaseWriter>();
    /// let stages = writer.last_hand_over_stages();
    /// assert_eq!(stages.total(), writer.last_hand_over());
    /// # drop(app);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_hand_over_stages(&self) -> crate::persist::frame::writer::HandOverStages {
        self.inner.last_stages
    }

    /// What the writer thread runs under, as the system tells it: the
    /// [`ContainerDatabase::scheduling`](crate::persist::ContainerDatabase::scheduling) asked for, or
    /// [`WriterScheduling::Normal`] on a system without these policies
    /// (every one but Linux) or where Linux refused it (a warning then
    /// says why).
    ///
    /// ```
    /// use bevy::prelude::*;
    /// use bevy_container::persist::{
    ///     ContainerDatabase, ContainerDatabasePlugin, DatabaseWriter, WriterScheduling,
    /// };
    /// use bevy_container::plugin::ContainerPlugin;
    ///
    /// let dir = std::env::temp_dir().join(format!("scheduling-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let database = ContainerDatabase::open(dir.join("world.db"))?
    ///     .scheduling(WriterScheduling::Idle);
    /// let mut app = App::new();
    /// app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()))
    ///     .add_plugins(ContainerDatabasePlugin::new(database));
    /// let writer = app.world().resource::<DatabaseWriter>();
    /// if cfg!(target_os = "linux") {
    ///     assert_eq!(writer.scheduling(), WriterScheduling::Idle);
    /// }
    /// # drop(app);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn scheduling(&self) -> WriterScheduling {
        self.inner.scheduling
    }

    /// What the writer has done so far.
    pub fn stats(&self) -> WriterStats {
        self.inner.stats()
    }

    /// The error that stopped the writer, if any: frames after it are not
    /// written, and the file holds the last frame before it.
    pub fn error(&self) -> Option<DatabaseError> {
        self.inner.error()
    }

    /// Waits until every frame handed over is committed (or the writer
    /// stopped on an error, which it returns). After a fence, until the
    /// rows of every frame handed over are reread, ready to be put back at
    /// the start of the next frame (none of those frames is ever written).
    pub fn flush(&self) -> Result<(), DatabaseError> {
        self.inner.flush()
    }
}
