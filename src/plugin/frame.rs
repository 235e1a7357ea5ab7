//! A frame's requests, answered side by side where they cannot affect each
//! other.
//!
//! Two requests to two different containers touch different data, unless
//! something links the containers in that frame: a transfer between them,
//! a store one sends its overflow to, a sender that takes items back, a
//! loose pickup both reach for. The frame is split by those links. A
//! container that only its own requests touch is *independent*.
//!
//! A frame is answered in three steps:
//!
//! 1. **Split** (the system's thread): which containers are independent,
//!    and which thread answers each (contiguous runs of them, about as
//!    many requests per thread).
//! 2. **Answer** (every thread at once): each thread goes through the
//!    frame in the order written and answers its own containers'
//!    requests on their engines, refreshing their mirrors and building
//!    their outcome messages; a thread never touches another's containers.
//! 3. **Report** (the system's thread): the frame once more in the order
//!    written: each outcome is written (and triggered) in that order, what
//!    an outcome leaves to settle (a leftover on the ground) is settled
//!    then, and the linked requests are answered there, one after another.
//!    When every request was answered on the threads as a delivery or a
//!    take, none left anything to settle and no observer watches either
//!    kind, the report is two batches instead, written side by side: the
//!    deliveries' messages in the order written, and the takes'. Each
//!    kind's messages are then what the ordered report writes; only their
//!    interleaving across kinds, which no reader sees, differs.
//!
//! Independent containers are touched by their own requests only and
//! linked ones by linked requests only, so answering the first kind before
//! the second changes nothing: outcomes, their order, warnings, the
//! pickups' entities and every container's contents are what a serial
//! answer gives, whatever the thread count (`tests/plugin_ledger.rs`
//! compares them at 1, 2, 3 and 5 threads).

use std::num::NonZeroUsize;

use bevy::prelude::*;

use super::containers::Containers;
use super::messages::ContainerRequest;

/// How the plugin answers a frame's requests. Every mode gives the same
/// outcomes, in the same order, and the same contents; only the time
/// differs. Without the crate's `parallel` feature every mode is serial.
///
/// Under `TaskPool` and `Threads`, a frame is shared among threads when it
/// holds at least 256 requests to independent containers, and at least one
/// for every four containers in the world (the threads' containers are
/// found in one pass over all of them); a smaller frame, or one whose
/// requests name an entity that is not in the world, is answered serially.
///
/// ```
/// use std::num::NonZeroUsize;
/// use bevy::prelude::*;
/// use bevy_container::plugin::{ContainerParallelism, ContainerPlugin};
///
/// let mut app = App::new();
/// app.add_plugins((MinimalPlugins, AssetPlugin::default(), ContainerPlugin::default()))
///     // a server that gives its containers two threads of their own
///     .insert_resource(ContainerParallelism::Threads(NonZeroUsize::new(2).unwrap()));
/// ```
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContainerParallelism {
    /// One request after another, on the system's thread (the default:
    /// on the two-core development machine two threads gain little on a
    /// frame of backpack requests, see the README's performance figures).
    #[default]
    Serial,
    /// The engine work of independent containers shared among the threads
    /// of Bevy's `ComputeTaskPool` (`TaskPoolPlugin` sizes it).
    TaskPool,
    /// This many threads in all for the engine work of independent
    /// containers: the system's own and `n - 1` of the plugin's own pool
    /// (made when first needed). The system's thread alone reports the
    /// outcomes in order. `Threads(1)` is serial.
    Threads(NonZeroUsize),
}

/// How the last frame's requests were answered: for tuning
/// [`ContainerParallelism`] on a server, and for tests that must know the
/// threads were used.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContainerFrameStats {
    /// Requests answered in the frame.
    pub requests: usize,
    /// Of those, the ones answered in the shared step, their engine work
    /// split among the threads (0 when the frame was answered serially).
    pub on_workers: usize,
    /// Threads that shared the engine work, the system's own included (0
    /// when the frame was answered serially).
    pub workers: usize,
}

/// The plugin's own pool and the frame's reusable tables.
#[derive(Resource, Default)]
pub(crate) struct FrameScratch {
    #[cfg(feature = "parallel")]
    pool: Option<(usize, bevy::tasks::TaskPool)>,
    #[cfg(feature = "parallel")]
    plan: parallel::Plan,
}

/// Answers the frame's requests in the order written, the engine work of
/// independent containers on other threads when that pays.
pub(crate) fn answer_frame(
    requests: &mut MessageReader<ContainerRequest>,
    ops: &mut Containers,
    parallelism: ContainerParallelism,
    scratch: &mut FrameScratch,
) -> ContainerFrameStats {
    #[cfg(feature = "parallel")]
    if parallelism != ContainerParallelism::Serial && requests.len() >= parallel::MIN_PARALLEL {
        let frame: Vec<&ContainerRequest> = requests.read().collect();
        if let Some(stats) = parallel::answer_in_parallel(&frame, ops, parallelism, scratch) {
            return stats;
        }
        frame.iter().for_each(|r| ops.answer(r));
        return ContainerFrameStats {
            requests: frame.len(),
            ..default()
        };
    }
    let _ = (parallelism, scratch);
    // one after another, straight from the message queue
    let mut answered = 0;
    for r in requests.read() {
        ops.answer(r);
        answered += 1;
    }
    ContainerFrameStats {
        requests: answered,
        ..default()
    }
}

/// The frame split by container, the engine work shared among threads,
/// and the outcomes reported in the order written.
#[cfg(feature = "parallel")]
mod parallel {
    use bevy::ecs::entity::Entities;
    use bevy::prelude::*;
    use bevy::tasks::{ComputeTaskPool, TaskPool, TaskPoolBuilder};

    use super::{ContainerFrameStats, ContainerParallelism, FrameScratch};
    use crate::plugin::answer::{
        Answered, Touches, delivery_answered, engine_step, one_container, take_answered,
    };
    use crate::plugin::components::{ContainerContents, OverflowStore};
    use crate::plugin::containers::Containers;
    use crate::plugin::messages::{ContainerRequest, ItemsDelivered, ItemsTaken};

    /// Below this many requests to independent containers a frame is
    /// answered serially: handing work to threads costs more than it saves.
    pub(super) const MIN_PARALLEL: usize = 256;

    /// At most this many containers in the world per request to an
    /// independent container, for a frame to be answered across threads.
    const PASS_PER_REQUEST: usize = 4;

    /// A request answered in the order written, on the system's thread.
    const LINKED: u32 = u32::MAX;

    /// What a look at a container found: `Some(its store)` when it is
    /// ready, `None` otherwise.
    type Ready = Option<Option<OverflowStore>>;

    /// Answers the frame in three steps: which containers are independent
    /// (this thread); their requests, each thread going through the frame
    /// in the order written and answering its own containers' (every
    /// thread); then every outcome reported in the order written, the
    /// linked requests answered there (this thread). `None`, having
    /// changed nothing, when the frame is better answered serially.
    pub(super) fn answer_in_parallel(
        requests: &[&ContainerRequest],
        ops: &mut Containers,
        parallelism: ContainerParallelism,
        scratch: &mut FrameScratch,
    ) -> Option<ContainerFrameStats> {
        let FrameScratch { pool: own, plan } = scratch;
        let pool: Option<&TaskPool> = match parallelism {
            ContainerParallelism::Serial => None,
            ContainerParallelism::TaskPool => ComputeTaskPool::try_get().map(|p| &**p),
            // this thread and n - 1 of the plugin's own
            ContainerParallelism::Threads(n) if n.get() >= 2 => Some(own_pool(own, n.get() - 1)),
            ContainerParallelism::Threads(_) => None,
        };
        // this thread takes a share too; under `TaskPool` it is one of the
        // pool's when the system runs on it
        let threads = match parallelism {
            ContainerParallelism::TaskPool => pool.map_or(1, |p| p.thread_num().max(1)),
            _ => pool.map_or(1, |p| p.thread_num() + 1),
        };
        let pool = pool.filter(|_| threads >= 2 && requests.len() >= MIN_PARALLEL)?;
        if !plan.split(requests, ops) {
            plan.forget();
            return None;
        }
        // the threads' containers are found in one pass over every
        // container (Bevy's safe way to hand out many at once), which pays
        // when the frame's requests are not few beside them
        let containers = ops.contents.iter().size_hint().1.unwrap_or(usize::MAX);
        if plan.independent < MIN_PARALLEL || containers / PASS_PER_REQUEST > plan.independent {
            plan.forget();
            return None;
        }
        plan.share(threads);
        let mut outs = std::mem::take(&mut plan.outs);
        outs.resize_with(threads, Answers::default);
        {
            // the independent containers' components, by their number
            let mut held: Vec<Option<Mut<ContainerContents>>> =
                (0..plan.touched.len()).map(|_| None).collect();
            for (e, c, _) in ops.contents.iter_mut() {
                if let Some(n) = plan.independent_number(e) {
                    held[n as usize] = Some(c);
                }
            }
            let (route, owner) = (plan.route.as_slice(), plan.owner.as_slice());
            let mut shares = Vec::with_capacity(threads);
            let mut rest = held.as_mut_slice();
            for (w, out) in outs.iter_mut().enumerate() {
                let (mine, later) = rest.split_at_mut(plan.bounds[w + 1] - plan.bounds[w]);
                rest = later;
                out.clear();
                shares.push((w, plan.bounds[w], mine, out));
            }
            let mut shares = shares.into_iter();
            let first = shares.next();
            pool.scope(|scope| {
                for (w, base, mine, out) in shares {
                    scope.spawn(
                        async move { answer_share(w, base, mine, out, requests, route, owner) },
                    );
                }
                if let Some((w, base, mine, out)) = first {
                    answer_share(w, base, mine, out, requests, route, owner);
                }
            });
        }
        let all_on_threads = plan.independent == requests.len();
        let settled = outs
            .iter()
            .all(|o| o.other.is_empty() && !o.unsettled && !o.unanswered);
        match ops.unwatched_writers() {
            // nothing to settle, no linked request and no observer: each
            // kind's messages are written as one batch, in the order
            // written, the two kinds side by side
            Some((delivered, taken)) if all_on_threads && settled => {
                write_side_by_side(pool, &plan.route, &plan.owner, &mut outs, delivered, taken);
            }
            _ => report_in_order(requests, &plan.route, &plan.owner, &mut outs, ops),
        }
        plan.outs = outs;
        plan.forget();
        Some(ContainerFrameStats {
            requests: requests.len(),
            on_workers: plan.independent,
            workers: threads,
        })
    }

    /// The plugin's own pool of `threads` threads.
    fn own_pool(own: &mut Option<(usize, TaskPool)>, threads: usize) -> &TaskPool {
        if own.as_ref().is_none_or(|(n, _)| *n != threads) {
            let pool = TaskPoolBuilder::new()
                .num_threads(threads)
                .thread_name("container settlement".into())
                .build();
            *own = Some((threads, pool));
        }
        match own {
            Some((_, pool)) => pool,
            None => unreachable!("made above"),
        }
    }

    /// Thread `w`: the requests of its containers (numbered from `base`,
    /// their components in `mine`), in the order written, answered into
    /// `out` in that order.
    fn answer_share(
        w: usize,
        base: usize,
        mine: &mut [Option<Mut<ContainerContents>>],
        out: &mut Answers,
        requests: &[&ContainerRequest],
        route: &[u32],
        owner: &[u32],
    ) {
        for (r, &n) in requests.iter().zip(route) {
            if owner.get(n as usize) != Some(&(w as u32)) {
                continue;
            }
            let held = mine.get_mut(n as usize - base).and_then(Option::as_mut);
            // every independent container was found; should one not be,
            // its request is answered in order on the system's thread
            let Some(c) = held else {
                out.push_unanswered();
                continue;
            };
            let Some((engine, mirror)) = c.bypass_change_detection().engine_and_mirror() else {
                out.push_unanswered();
                continue;
            };
            // the two common requests build their messages in place, in
            // their lists
            let changed = match r {
                ContainerRequest::Deliver(d) => out
                    .push_delivered(delivery_answered(d, engine))
                    .refresh_if_changed(mirror, engine),
                ContainerRequest::Take(t) => out
                    .push_taken(take_answered(t, engine))
                    .refresh_if_changed(mirror, engine),
                _ => out
                    .push_other(engine_step(r, engine))
                    .refresh_if_changed(mirror, engine),
            };
            if changed {
                c.set_changed();
            }
        }
    }

    /// Which of a thread's lists holds the answer to one of its requests.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Tag {
        Delivered,
        Taken,
        Other,
        /// Left to the system's thread, answered there in turn.
        Unanswered,
    }

    /// A thread's answers, each kind in a list of its own (the two common
    /// kinds are then written a kind at a time without copying others).
    ///
    /// Aligned to 128 bytes so no two threads' lists share a cache line
    /// (nor the pair of lines a core fetches together): each push writes
    /// its list's length, and when two threads wrote lengths in one line,
    /// the line went back and forth between the cores on every request,
    /// the threads' step of a frame of 100,000 backpack requests taking
    /// about 5 ms instead of about 3.3 ms.
    #[derive(Default)]
    #[repr(align(128))]
    pub(super) struct Answers {
        /// Per request the thread answered, in the order written: where
        /// its answer is.
        tags: Vec<Tag>,
        delivered: Vec<ItemsDelivered>,
        taken: Vec<ItemsTaken>,
        /// The other answers.
        other: Vec<Answered>,
        /// Whether a delivery left something to settle in the world.
        unsettled: bool,
        /// Whether a request was left to the system's thread.
        unanswered: bool,
    }

    impl Answers {
        /// Keeps a delivery's message; returns it, to refresh the mirror.
        #[inline]
        fn push_delivered(&mut self, msg: ItemsDelivered) -> &ItemsDelivered {
            self.unsettled |= msg.outcome.leaves_items();
            self.tags.push(Tag::Delivered);
            self.delivered.push(msg);
            &self.delivered[self.delivered.len() - 1]
        }

        /// Keeps a take's message; returns it, to refresh the mirror.
        #[inline]
        fn push_taken(&mut self, msg: ItemsTaken) -> &ItemsTaken {
            self.tags.push(Tag::Taken);
            self.taken.push(msg);
            &self.taken[self.taken.len() - 1]
        }

        /// Keeps the message of a request neither a delivery nor a take;
        /// returns it, to refresh the mirror.
        #[inline]
        fn push_other(&mut self, answered: Answered) -> &Answered {
            self.tags.push(Tag::Other);
            self.other.push(answered);
            &self.other[self.other.len() - 1]
        }

        /// A request left to the system's thread, answered there in turn.
        fn push_unanswered(&mut self) {
            self.unanswered = true;
            self.tags.push(Tag::Unanswered);
        }

        fn clear(&mut self) {
            self.tags.clear();
            self.delivered.clear();
            self.taken.clear();
            self.other.clear();
            self.unsettled = false;
            self.unanswered = false;
        }
    }

    /// Every outcome reported in the order written, what it leaves settled
    /// then; a request no thread answered is answered here, in its turn.
    fn report_in_order(
        requests: &[&ContainerRequest],
        route: &[u32],
        owner: &[u32],
        outs: &mut [Answers],
        ops: &mut Containers,
    ) {
        let mut tags = Vec::with_capacity(outs.len());
        let mut lists = Vec::with_capacity(outs.len());
        for o in outs.iter_mut() {
            tags.push(o.tags.as_slice());
            lists.push((o.delivered.drain(..), o.taken.drain(..), o.other.drain(..)));
        }
        for (r, at) in requests.iter().zip(tagged(route, owner, &tags)) {
            let answered = at.and_then(|(w, tag)| {
                let (d, t, o) = lists.get_mut(w)?;
                match tag {
                    Tag::Delivered => d.next().map(Answered::Delivered),
                    Tag::Taken => t.next().map(Answered::Taken),
                    Tag::Other => o.next(),
                    Tag::Unanswered => None,
                }
            });
            match answered {
                Some(a) => ops.report(a),
                None => ops.answer(r),
            }
        }
    }

    /// The deliveries' and the takes' messages, each kind in the order
    /// written, written side by side: every request was answered on the
    /// threads as one of the two, with nothing to settle and no observer.
    fn write_side_by_side(
        pool: &TaskPool,
        route: &[u32],
        owner: &[u32],
        outs: &mut [Answers],
        delivered: &mut MessageWriter<ItemsDelivered>,
        taken: &mut MessageWriter<ItemsTaken>,
    ) {
        // every answer is written: the threads answered every request of
        // theirs, in the order written, so each tag has its answer
        let answers = |o: &Answers| (o.delivered.len(), o.taken.len());
        let (want_d, want_t) = outs
            .iter()
            .map(answers)
            .fold((0, 0), |(d, t), (a, b)| (d + a, t + b));
        let mut tags = Vec::with_capacity(outs.len());
        let mut ds = Vec::with_capacity(outs.len());
        let mut ts = Vec::with_capacity(outs.len());
        for o in outs.iter_mut() {
            tags.push(o.tags.as_slice());
            ds.push(o.delivered.drain(..));
            ts.push(o.taken.drain(..));
        }
        let tags = tags.as_slice();
        pool.scope(|scope| {
            scope.spawn(async move {
                let ids = delivered.write_batch(in_order(route, owner, tags, Tag::Delivered, ds));
                debug_assert_eq!(ids.count(), want_d, "every delivery is written");
            });
            let ids = taken.write_batch(in_order(route, owner, tags, Tag::Taken, ts));
            debug_assert_eq!(ids.count(), want_t, "every take is written");
        });
    }

    /// The answers of kind `kind` in the order written, from each thread's
    /// list of that kind.
    fn in_order<'a, M: 'a>(
        route: &'a [u32],
        owner: &'a [u32],
        tags: &'a [&'a [Tag]],
        kind: Tag,
        mut lists: Vec<std::vec::Drain<'a, M>>,
    ) -> impl Iterator<Item = M> + 'a {
        tagged(route, owner, tags).filter_map(move |at| match at {
            Some((w, tag)) if tag == kind => lists.get_mut(w)?.next(),
            _ => None,
        })
    }

    /// For each request, in the order written: the thread that answered
    /// it (from `route` and `owner`) and the tag of its answer (the next
    /// of that thread's `tags`); `None` for a request no thread answered.
    fn tagged<'a>(
        route: &'a [u32],
        owner: &'a [u32],
        tags: &'a [&'a [Tag]],
    ) -> impl Iterator<Item = Option<(usize, Tag)>> + 'a {
        let mut at = vec![0usize; tags.len()];
        route.iter().map(move |&n| {
            let w = *owner.get(n as usize)? as usize;
            let i = at.get_mut(w)?;
            let tag = *tags.get(w)?.get(*i)?;
            *i += 1;
            Some((w, tag))
        })
    }

    /// Which requests go to which thread.
    #[derive(Default)]
    pub(super) struct Plan {
        /// Per entity index: the entity and its number in `touched`
        /// (`u32::MAX` for none), reset after every frame.
        by_index: Vec<(Entity, u32)>,
        /// The entities the frame's requests touch, in first-seen order, and
        /// whether a link ties them to another.
        touched: Vec<(Entity, bool)>,
        /// Per touched entity, once looked at: `Some(store)` for a ready
        /// container, `None` for anything else.
        state: Vec<Option<Ready>>,
        /// Per request: its container's number in `touched`, or [`LINKED`].
        route: Vec<u32>,
        /// Per touched entity: the thread that answers its requests
        /// (`u32::MAX` for a linked one).
        owner: Vec<u32>,
        /// Thread `w` answers the containers numbered `bounds[w]..bounds[w + 1]`.
        bounds: Vec<usize>,
        /// Each thread's answers, kept for their room.
        outs: Vec<Answers>,
        /// How many requests the threads answer.
        independent: usize,
    }

    impl Plan {
        /// Finds the independent containers of the frame; `false` when a
        /// request names an entity that is not in the world (despawned, or
        /// never spawned), and the frame is answered serially: entities are
        /// numbered by their index, which only spawned entities hold alone,
        /// and the table stays as large as the world's own.
        fn split(&mut self, requests: &[&ContainerRequest], ops: &Containers) -> bool {
            self.touched.clear();
            self.state.clear();
            self.route.clear();
            let mut footprint = Vec::new();
            for r in requests {
                let c = one_container(r);
                let Some(n) = self.number(c, ops.entities) else {
                    return false;
                };
                // one look at each container per frame
                let state =
                    *self.state[n as usize].get_or_insert_with(|| match ops.contents.get(c) {
                        Ok((_, contents, store)) if contents.is_ready() => Some(store.copied()),
                        _ => None,
                    });
                // the common requests, which touch their own ready
                // container only: what `footprint` finds, without its list
                let alone = match r {
                    ContainerRequest::Take(_)
                    | ContainerRequest::Move(_)
                    | ContainerRequest::Sort(_) => state.is_some(),
                    ContainerRequest::Transfer(t) => t.from == t.to && state.is_some(),
                    // a delivery settles its leftovers, so no store either
                    ContainerRequest::Deliver(d) => {
                        d.sender.is_none_or(|s| s == c) && state == Some(None)
                    }
                    _ => false,
                };
                if alone {
                    self.route.push(n);
                    continue;
                }
                footprint.clear();
                if ops.footprint(r, state, &mut footprint) {
                    self.route.push(n);
                } else {
                    for &e in &footprint {
                        let Some(n) = self.number(e, ops.entities) else {
                            return false;
                        };
                        self.touched[n as usize].1 = true;
                    }
                    self.route.push(LINKED);
                }
            }
            // a container a later request linked is answered in order, all
            // of its requests
            self.independent = 0;
            for n in self.route.iter_mut() {
                if *n != LINKED && self.touched[*n as usize].1 {
                    *n = LINKED;
                }
                self.independent += usize::from(*n != LINKED);
            }
            true
        }

        /// The number of `e` among the touched entities, numbering it if new;
        /// `None` for an entity that is not spawned.
        fn number(&mut self, e: Entity, entities: &Entities) -> Option<u32> {
            let i = e.index_u32() as usize;
            match self.by_index.get(i) {
                Some(&(seen, n)) if seen == e && n != u32::MAX => Some(n),
                // numbered by index: only a spawned entity holds its index
                // alone, and only its index is within the world's table
                _ if !entities.contains_spawned(e) => None,
                _ => {
                    if i >= self.by_index.len() {
                        self.by_index.resize(i + 1, (Entity::PLACEHOLDER, u32::MAX));
                    }
                    let n = self.touched.len() as u32;
                    self.touched.push((e, false));
                    self.state.push(None);
                    self.by_index[i] = (e, n);
                    Some(n)
                }
            }
        }

        /// The number of `e` when it is one of the frame's independent
        /// containers.
        fn independent_number(&self, e: Entity) -> Option<u32> {
            match self.by_index.get(e.index_u32() as usize) {
                Some(&(seen, n))
                    if seen == e
                        && matches!(self.owner.get(n as usize), Some(&w) if w != u32::MAX) =>
                {
                    Some(n)
                }
                _ => None,
            }
        }

        /// Shares the independent containers among `threads` threads:
        /// contiguous runs of their numbers (containers first seen together
        /// were likely made together, and their memory lies together),
        /// about as many requests each.
        fn share(&mut self, threads: usize) {
            let mut count = vec![0usize; self.touched.len()];
            for &n in &self.route {
                if n != LINKED {
                    count[n as usize] += 1;
                }
            }
            let per = self.independent.div_ceil(threads).max(1);
            self.owner.clear();
            self.bounds.clear();
            self.bounds.push(0);
            let mut done = 0;
            for (n, &(_, linked)) in self.touched.iter().enumerate() {
                let w = (self.bounds.len() - 1).min(threads - 1);
                self.owner.push(if linked { u32::MAX } else { w as u32 });
                done += count[n];
                if done >= per * self.bounds.len() && self.bounds.len() < threads {
                    self.bounds.push(n + 1);
                }
            }
            while self.bounds.len() <= threads {
                self.bounds.push(self.touched.len());
            }
        }

        /// Forgets the frame's numbering (the entity table is kept, reset).
        fn forget(&mut self) {
            for (e, _) in &self.touched {
                self.by_index[e.index_u32() as usize].1 = u32::MAX;
            }
            self.owner.clear();
        }
    }

    impl Containers<'_, '_> {
        /// Whether `r` touches only its own container, a ready one (`state`:
        /// its store, `None` when not ready); `linked` gets every entity it
        /// may touch (the container first).
        fn footprint(&self, r: &ContainerRequest, state: Ready, linked: &mut Vec<Entity>) -> bool {
            let c = one_container(r);
            linked.push(c);
            // a container that is not ready is answered serially (unanswered)
            let Some(store) = state else {
                return false;
            };
            // what may settle items elsewhere: a delivery's leftovers and
            // refusals, a forced removal's portions
            let settles = match r {
                ContainerRequest::Deliver(d) => {
                    if let Some(s) = d.sender.filter(|&s| s != c)
                        && (self.contents.contains(s) || self.pickups.contains(s))
                    {
                        linked.push(s);
                    }
                    true
                }
                ContainerRequest::PickUp(p) => {
                    linked.push(p.pickup);
                    true
                }
                ContainerRequest::Transfer(t) if t.to != t.from => {
                    linked.push(t.to);
                    false
                }
                ContainerRequest::Resize(_) | ContainerRequest::EmptyForGoneOwner(_) => true,
                _ => false,
            };
            if settles {
                self.store_chain(store, linked);
            }
            linked.len() == 1 && !matches!(r, ContainerRequest::PickUp(_))
        }

        /// The stores items may go on to from a container whose store is
        /// `store`.
        fn store_chain(&self, mut store: Option<OverflowStore>, linked: &mut Vec<Entity>) {
            while let Some(OverflowStore(s)) = store {
                if linked.contains(&s) {
                    return;
                }
                linked.push(s);
                store = self
                    .contents
                    .get(s)
                    .ok()
                    .and_then(|(_, _, next)| next.copied());
            }
        }
    }
}
