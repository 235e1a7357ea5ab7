//! A frame's requests, answered side by side where they cannot affect each
//! other.
//!
//! Two requests to two different containers touch different data, unless
//! something links the containers in that frame: a transfer between them,
//! a store one sends its overflow to, a sender that takes items back, a
//! loose pickup both reach for. The frame is split by those links. A
//! container that only its own requests touch is *independent*.
//!
//! The independent containers are shared among worker threads; each worker
//! answers its containers' requests on their engines, in the order
//! written. Meanwhile one thread goes through the whole frame in the order
//! written: it answers the linked requests itself, and for the others it
//! takes the worker's answer (waiting for it if need be) and settles and
//! reports it. So outcomes, warnings, the pickups' entities and every
//! container's contents are what a serial answer gives, whatever the
//! thread count; the threads only share the engine work.

use std::num::NonZeroUsize;

use bevy::prelude::*;

use super::containers::Containers;
use super::messages::ContainerRequest;

/// How the plugin answers a frame's requests. Every mode gives the same
/// outcomes, in the same order, and the same contents; only the time
/// differs. Without the crate's `parallel` feature every mode is serial.
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
    /// on two cores the threads' gain is small, see the README's
    /// performance figures).
    #[default]
    Serial,
    /// The engine work of independent containers on Bevy's
    /// `ComputeTaskPool` (`TaskPoolPlugin` sizes it).
    TaskPool,
    /// This many threads in all: the system's own, which goes through the
    /// frame in order, and `n - 1` workers of the plugin's own pool (made
    /// when first needed) for the engine work of independent containers.
    /// `Threads(1)` is serial.
    Threads(NonZeroUsize),
}

/// How the last frame's requests were answered: for tuning
/// [`ContainerParallelism`] on a server, and for tests that must know the
/// threads were used.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContainerFrameStats {
    /// Requests answered in the frame.
    pub requests: usize,
    /// Of those, the ones whose engine work ran on a worker thread.
    pub on_workers: usize,
    /// Worker threads used (0 when the frame was answered serially).
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
    requests: &[&ContainerRequest],
    ops: &mut Containers,
    parallelism: ContainerParallelism,
    scratch: &mut FrameScratch,
) -> ContainerFrameStats {
    #[cfg(feature = "parallel")]
    if let Some(stats) = parallel::answer_in_parallel(requests, ops, parallelism, scratch) {
        return stats;
    }
    let _ = (parallelism, scratch);
    requests.iter().for_each(|r| ops.answer(r));
    ContainerFrameStats {
        requests: requests.len(),
        ..default()
    }
}

/// The workers and the thread that goes through the frame in order.
#[cfg(feature = "parallel")]
mod parallel {
    use bevy::prelude::*;
    use bevy::tasks::{ComputeTaskPool, TaskPool, TaskPoolBuilder};

    use super::{ContainerFrameStats, ContainerParallelism, FrameScratch};
    use crate::plugin::components::{Detached, OverflowStore};
    use crate::plugin::containers::{
        Containers, EngineAnswer, Touches, engine_step, one_container,
    };
    use crate::plugin::messages::ContainerRequest;

    /// Below this many requests a frame is answered serially: handing work to
    /// threads costs more than it saves.
    const MIN_PARALLEL: usize = 256;

    /// How many answers a worker hands over at once.
    const BATCH: usize = 128;

    /// A request that is not answered by a worker.
    const LINKED: u32 = u32::MAX;

    /// What a look at a container found: `Some(its store)` when it is
    /// ready, `None` otherwise.
    type Ready = Option<Option<OverflowStore>>;

    /// Answers the frame with the engine work of independent containers on
    /// other threads; `None` (having done nothing) when the frame is better
    /// answered serially.
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
        // the thread that answers the frame in order is one of the pool's
        // when the system runs on it
        let workers = match parallelism {
            ContainerParallelism::TaskPool => pool.map_or(0, |p| p.thread_num().saturating_sub(1)),
            _ => pool.map_or(0, TaskPool::thread_num),
        };
        let pool = pool.filter(|_| workers >= 1 && requests.len() >= MIN_PARALLEL)?;
        plan.split(requests, ops);
        let mut shares = plan.detach(ops, workers);
        if plan.independent < MIN_PARALLEL {
            plan.attach(ops, shares);
            return None;
        }
        let chunk = plan.chunk;
        let route = plan.route.as_slice();
        let (senders, receivers): (Vec<_>, Vec<_>) =
            (0..workers).map(|_| async_channel::unbounded()).unzip();
        pool.scope(|scope| {
            for ((w, share), tx) in shares.iter_mut().enumerate().zip(senders) {
                scope.spawn(async move { work(w, chunk, requests, route, share, tx) });
            }
            // this thread goes through the frame in order meanwhile,
            // parked while it waits for a worker
            bevy::tasks::block_on(emit(requests, route, chunk, receivers, ops));
        });
        plan.attach(ops, shares);
        Some(ContainerFrameStats {
            requests: requests.len(),
            on_workers: plan.independent,
            workers,
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

    /// Which requests the workers answer.
    #[derive(Default)]
    pub(super) struct Plan {
        /// Per entity index: the entity and its number in `containers`
        /// (`u32::MAX` for none), reset after every frame.
        by_index: Vec<(Entity, u32)>,
        /// The entities the frame's requests touch, in first-seen order, and
        /// whether a link ties them to another.
        touched: Vec<(Entity, bool)>,
        /// Per touched entity, once looked at: `Some(store)` for a ready
        /// container, `None` for anything else.
        state: Vec<Option<Ready>>,
        /// Per request: its container's number among the detached ones, or
        /// [`LINKED`].
        route: Vec<u32>,
        /// How many detached containers each worker has (the last maybe
        /// fewer): worker `k / chunk` has the `k`-th, so containers made
        /// together, whose memory lies together, share a worker.
        chunk: usize,
        /// How many requests the workers answer.
        independent: usize,
    }

    impl Plan {
        /// Finds the independent containers of the frame.
        fn split(&mut self, requests: &[&ContainerRequest], ops: &Containers) {
            self.touched.clear();
            self.state.clear();
            self.route.clear();
            let mut footprint = Vec::new();
            for r in requests {
                footprint.clear();
                let n = self.number(one_container(r));
                // one look at each container per frame
                let state = *self.state[n as usize].get_or_insert_with(|| {
                    let c = self.touched[n as usize].0;
                    match ops.contents.get(c) {
                        Ok((contents, store)) if contents.is_ready() => Some(store.copied()),
                        _ => None,
                    }
                });
                if ops.footprint(r, state, &mut footprint) {
                    self.route.push(n);
                } else {
                    for &e in &footprint {
                        let n = self.number(e);
                        self.touched[n as usize].1 = true;
                    }
                    self.route.push(LINKED);
                }
            }
            for (e, _) in &self.touched {
                self.by_index[e.index_u32() as usize].1 = u32::MAX;
            }
        }

        /// The number of `e` among the touched entities, numbering it if new.
        fn number(&mut self, e: Entity) -> u32 {
            let i = e.index_u32() as usize;
            if i >= self.by_index.len() {
                self.by_index.resize(i + 1, (Entity::PLACEHOLDER, u32::MAX));
            }
            match self.by_index[i] {
                (seen, n) if seen == e && n != u32::MAX => n,
                _ => {
                    let n = self.touched.len() as u32;
                    self.touched.push((e, false));
                    self.state.push(None);
                    self.by_index[i] = (e, n);
                    n
                }
            }
        }

        /// Takes the independent containers' engines and mirrors out of their
        /// components, dealt to `workers` shares in turn; renumbers the routes
        /// to the detached containers.
        fn detach(&mut self, ops: &mut Containers, workers: usize) -> Vec<Vec<(Entity, Detached)>> {
            let mut shares: Vec<Vec<(Entity, Detached)>> =
                (0..workers).map(|_| Vec::new()).collect();
            let candidates = self.touched.iter().filter(|(_, linked)| !linked).count();
            self.chunk = candidates.div_ceil(workers).max(1);
            let mut detached: Vec<u32> = vec![LINKED; self.touched.len()];
            let mut k = 0;
            for (n, &(e, linked)) in self.touched.iter().enumerate() {
                if linked {
                    continue;
                }
                let Ok((mut c, _)) = ops.contents.get_mut(e) else {
                    continue;
                };
                if let Some(d) = c.bypass_change_detection().detach() {
                    shares[k / self.chunk].push((e, d));
                    detached[n] = k as u32;
                    k += 1;
                }
            }
            self.independent = 0;
            for n in self.route.iter_mut() {
                if *n != LINKED {
                    *n = detached[*n as usize];
                    if *n != LINKED {
                        self.independent += 1;
                    }
                }
            }
            shares
        }

        /// Puts the detached engines and mirrors back, marking the components
        /// whose contents changed.
        fn attach(&mut self, ops: &mut Containers, shares: Vec<Vec<(Entity, Detached)>>) {
            for (e, d) in shares.into_iter().flatten() {
                if let Ok((mut c, _)) = ops.contents.get_mut(e) {
                    let changed = d.changed;
                    c.bypass_change_detection().attach(d);
                    if changed {
                        c.set_changed();
                    }
                }
            }
        }
    }

    /// One worker: the requests of its share's containers, in the order
    /// written, handed over in batches.
    fn work(
        w: usize,
        chunk: usize,
        requests: &[&ContainerRequest],
        route: &[u32],
        share: &mut [(Entity, Detached)],
        tx: async_channel::Sender<Vec<EngineAnswer>>,
    ) {
        let mut batch = Vec::with_capacity(BATCH);
        for (i, &k) in route.iter().enumerate() {
            if k == LINKED || k as usize / chunk != w {
                continue;
            }
            let (_, d) = &mut share[k as usize % chunk];
            let answer = engine_step(requests[i], &mut d.engine);
            if answer.changed() {
                answer.refresh(&mut d.mirror, &d.engine);
                d.changed = true;
            }
            batch.push(answer);
            if batch.len() == BATCH {
                // unbounded: fails only when the frame was abandoned
                let _ = tx.try_send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)));
            }
        }
        if !batch.is_empty() {
            let _ = tx.try_send(batch);
        }
    }

    /// The frame in the order written: linked requests answered here, the
    /// others settled and reported from their worker's answers.
    async fn emit(
        requests: &[&ContainerRequest],
        route: &[u32],
        chunk: usize,
        receivers: Vec<async_channel::Receiver<Vec<EngineAnswer>>>,
        ops: &mut Containers<'_, '_>,
    ) {
        let mut ready: Vec<std::vec::IntoIter<EngineAnswer>> = (0..receivers.len())
            .map(|_| Vec::new().into_iter())
            .collect();
        for (r, &k) in requests.iter().zip(route) {
            if k == LINKED {
                ops.answer(r);
                continue;
            }
            let w = k as usize / chunk;
            let answer = loop {
                if let Some(a) = ready[w].next() {
                    break Some(a);
                }
                match receivers[w].recv().await {
                    Ok(batch) => ready[w] = batch.into_iter(),
                    Err(_) => break None,
                }
            };
            match answer {
                Some(a) => ops.finish(r, a),
                // a worker that stopped early panicked; the scope reports it
                None => return,
            }
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
                    .and_then(|(_, next)| next.copied());
            }
        }
    }
}
