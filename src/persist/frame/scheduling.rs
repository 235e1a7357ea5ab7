//! How the operating system schedules the writer thread beside the game's
//! own threads.

/// How the operating system schedules the database's writer thread beside
/// the game's threads ([`ContainerDatabase::scheduling`](crate::persist::ContainerDatabase::scheduling)).
///
/// While frames keep coming the writer wakes every few milliseconds to
/// take them; after a tenth of a second without one it sleeps until the
/// next frame that changed anything wakes it. Under Linux's default
/// policy a woken thread may take a running thread's core at once; when
/// that is the game thread's core, the game thread waits, in the middle
/// of its frame, until the kernel gives it a core again. On two cores
/// with every system on the game thread (`examples/perf`), that wait was
/// 1 to 4 ms in more than one frame in ten. `Batch` and `Idle` never take a core from a running thread when
/// they wake; they differ when every core is busy.
///
/// On other systems there is one policy, and every choice runs as
/// [`WriterScheduling::Normal`]; [`DatabaseWriter::scheduling`](crate::persist::DatabaseWriter::scheduling)
/// tells what the writer runs under.
///
/// ```
/// use bevy_container::persist::WriterScheduling;
/// assert_eq!(WriterScheduling::default(), WriterScheduling::Batch);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriterScheduling {
    /// Linux's `SCHED_BATCH`: waking up never preempts a running thread
    /// (the writer waits for a free core or the next scheduler tick), and
    /// on busy cores the writer gets the same share of the processor as
    /// any thread of the game's priority. The writer keeps up under load;
    /// the game may lose some of a core to it then.
    #[default]
    Batch,
    /// Linux's `SCHED_IDLE`: the writer runs only on a core no other
    /// thread wants. It never slows the game's threads, but when other
    /// work keeps every core busy it falls behind: frames are merged (past
    /// a whole queue, into the newest waiting frame on the game thread,
    /// which never waits for the writer), and written once a core is
    /// free. Nothing is dropped either way.
    Idle,
    /// The system's default policy, as any thread the game starts.
    Normal,
}

impl WriterScheduling {
    /// Puts the calling thread under this scheduling, and returns what it
    /// runs under now, as the system tells it (`Err` says why the system
    /// refused; the thread then runs as before).
    pub(crate) fn apply(self) -> (WriterScheduling, Result<(), String>) {
        imp::apply(self)
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use thread_priority::{
        NormalThreadSchedulePolicy as Policy, ThreadPriority, ThreadPriorityValue,
        ThreadSchedulePolicy, set_thread_priority_and_policy, thread_native_id,
        thread_schedule_policy,
    };

    use crate::persist::frame::scheduling::WriterScheduling;

    pub(crate) fn apply(wanted: WriterScheduling) -> (WriterScheduling, Result<(), String>) {
        let outcome = match wanted {
            // a new thread runs under the default policy already
            WriterScheduling::Normal => Ok(()),
            WriterScheduling::Batch => set(Policy::Batch),
            WriterScheduling::Idle => set(Policy::Idle),
        };
        let now = match thread_schedule_policy() {
            Ok(ThreadSchedulePolicy::Normal(Policy::Batch)) => WriterScheduling::Batch,
            Ok(ThreadSchedulePolicy::Normal(Policy::Idle)) => WriterScheduling::Idle,
            _ => WriterScheduling::Normal,
        };
        (now, outcome)
    }

    /// Sets `policy`, keeping the thread's niceness: the library sets one
    /// with the policy, so it is given the one the thread has (inherited
    /// from the thread that started it).
    fn set(normal: Policy) -> Result<(), String> {
        let policy = ThreadSchedulePolicy::Normal(normal);
        let priority = match normal {
            // the idle policy has no niceness
            Policy::Idle => ThreadPriority::Min,
            _ => {
                let nice = niceness().unwrap_or(0);
                (*ThreadPriorityValue::MIN..=*ThreadPriorityValue::MAX)
                    .filter_map(|p| ThreadPriorityValue::try_from(p).ok())
                    .map(ThreadPriority::Crossplatform)
                    .find(|p| p.to_posix(policy).ok() == Some(nice))
                    .ok_or_else(|| format!("no priority keeps the niceness {nice}"))?
            }
        };
        set_thread_priority_and_policy(thread_native_id(), priority, policy)
            .map_err(|e| format!("{e:?}"))
    }

    /// The calling thread's niceness (field 19 of its `stat`, after the
    /// name in parentheses, which may hold spaces).
    fn niceness() -> Option<i32> {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
        let (_, fields) = stat.rsplit_once(')')?;
        // fields from the third (state): the niceness is the 19th field
        fields.split_whitespace().nth(16)?.parse().ok()
    }

    #[cfg(test)]
    mod tests {
        use crate::persist::frame::scheduling::WriterScheduling;
        use crate::persist::frame::scheduling::imp::niceness;

        /// Applies `wanted` on a new thread: what it runs under, whether
        /// the system agreed, its niceness before and after.
        fn on_a_thread(wanted: WriterScheduling) -> (WriterScheduling, bool, i32, i32) {
            std::thread::spawn(move || {
                let before = niceness().expect("a niceness");
                let (now, outcome) = wanted.apply();
                let after = niceness().expect("a niceness");
                (now, outcome.is_ok(), before, after)
            })
            .join()
            .expect("the thread ran")
        }

        #[test]
        fn batch_is_set_and_keeps_the_niceness() {
            let (now, ok, before, after) = on_a_thread(WriterScheduling::Batch);
            assert!(ok);
            assert_eq!(now, WriterScheduling::Batch);
            assert_eq!(before, after, "the niceness is kept");
        }

        #[test]
        fn idle_is_set() {
            let (now, ok, ..) = on_a_thread(WriterScheduling::Idle);
            assert!(ok);
            assert_eq!(now, WriterScheduling::Idle);
        }

        #[test]
        fn normal_leaves_the_thread_as_it_started() {
            let (now, ok, before, after) = on_a_thread(WriterScheduling::Normal);
            assert!(ok);
            assert_eq!(now, WriterScheduling::Normal);
            assert_eq!(before, after);
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use crate::persist::frame::scheduling::WriterScheduling;

    /// One policy for every thread: every choice runs as `Normal`, as the
    /// type's documentation says, and nothing was refused (a warning at
    /// every start of every game with the default would say nothing).
    pub(crate) fn apply(_: WriterScheduling) -> (WriterScheduling, Result<(), String>) {
        (WriterScheduling::Normal, Ok(()))
    }
}
