//! The PostgreSQL store: one database shared by several servers. Every
//! container and pickup row has an owner (a [`ServerId`]) and an epoch;
//! every write is conditional on both, in the frame's transaction, so a
//! server that lost a row (handed over, claimed while it was paused) can
//! no longer write it: the transaction writes nothing and the writer
//! reports the fence.

mod generation;
mod listen;
pub mod operator;
mod schema;
mod throwaway;
mod write;
#[cfg(test)]
mod write_tests;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use postgres::{Client, Config, IsolationLevel, Row};

pub use schema::SCHEMA_VERSION as POSTGRES_SCHEMA_VERSION;
pub use throwaway::{Replication, ThrowawayOptions, ThrowawayPostgres};

use crate::persist::frame::error::{DatabaseError, hide_password};
use crate::persist::frame::rows::{self, ContainerRow, PickupRow, row_error};
use crate::persist::frame::store::{FrameRows, Reread, Store, StoreError, Written};
use crate::persist::servers::Lost;
use crate::persist::servers::ServerId;
use crate::persist::servers::ownership::Arrivals;
use generation::{Mine, judge};

/// The epoch of every row this server owns, by id: what its writes are
/// conditional on. Shared with the listener, which adds the containers
/// that arrive.
pub(super) type Epochs = Arc<Mutex<HashMap<String, i64>>>;

fn lock(epochs: &Epochs) -> std::sync::MutexGuard<'_, HashMap<String, i64>> {
    epochs.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What a server finds in the database when it opens it.
pub(super) struct Opened {
    pub(super) store: PostgresStore,
    pub(super) name: String,
    pub(super) frame: u64,
    pub(super) next_pickup: u64,
    pub(super) containers: Vec<ContainerRow>,
    pub(super) pickups: Vec<PickupRow>,
    /// The containers handed to this server while it was down (loaded
    /// with the rest): each gets its `ContainerArrived` at start.
    pub(super) arrived: Vec<String>,
    pub(super) arrivals: Arrivals,
}

/// Connects to `url` as `server`, migrates the schema and reads every row
/// the server owns, in one snapshot.
pub(super) fn open(url: &str, server: &ServerId) -> Result<Opened, DatabaseError> {
    let (mut config, name) = schema::parse_url(url)?;
    config.connect_timeout(std::time::Duration::from_secs(10));
    let mut client = schema::connect(&config, &name, server)?;
    schema::migrate(&mut client, &name)?;
    // committed before anything is read: every older process of this id
    // is fenced from here on, whatever it remembers
    let generation = schema::register(&mut client, &name, server)?;
    let epochs: Epochs = Arc::default();
    let load = load(&mut client, &name, server, &epochs)?;
    let stopped = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let arrivals = listen::start(listen::Start {
        stopped: stopped.clone(),
        config: config.clone(),
        name: name.clone(),
        server: server.clone(),
        generation,
        epochs: epochs.clone(),
        servers: load.servers,
    });
    Ok(Opened {
        store: PostgresStore {
            client,
            config,
            name: name.clone(),
            server: server.clone(),
            epochs,
            generation,
            stopped,
        },
        name,
        frame: load.frame,
        next_pickup: load.next_pickup,
        containers: load.containers,
        pickups: load.pickups,
        arrived: load.arrived,
        arrivals,
    })
}

/// The rows of `server`, and its frame, read in one snapshot; the
/// hand-overs waiting for it are done with (what it owns is loaded).
struct Load {
    frame: u64,
    next_pickup: u64,
    containers: Vec<ContainerRow>,
    pickups: Vec<PickupRow>,
    /// The loaded containers that were handed over while it was down.
    arrived: Vec<String>,
    /// Every server id the database knows.
    servers: Vec<String>,
}

fn load(
    client: &mut Client,
    name: &str,
    server: &ServerId,
    epochs: &Epochs,
) -> Result<Load, DatabaseError> {
    let e = |e: postgres::Error| schema::error(name, &e);
    let mut tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .start()
        .map_err(e)?;
    // the rows are checked between the reads, which takes seconds for a
    // big world in a debug build (or a busy machine): no idle timeout for
    // this transaction, which holds no lock until its last statement
    tx.batch_execute("SET LOCAL idle_in_transaction_session_timeout = 0")
        .map_err(e)?;
    let me = server.as_str();
    let (frame, next_pickup) = match tx
        .query_opt(
            "SELECT frame, next_pickup FROM servers WHERE id = $1",
            &[&me],
        )
        .map_err(e)?
    {
        Some(row) => {
            let frame: i64 = row.try_get(0).map_err(e)?;
            let next: i64 = row.try_get(1).map_err(e)?;
            (frame.max(0) as u64, next.max(1) as u64)
        }
        None => (0, 1),
    };
    let found = tx
        .query(
            "SELECT id, epoch, adoption, contents, store FROM containers WHERE owner = $1 ORDER BY id",
            &[&me],
        )
        .map_err(e)?;
    let containers = container_rows(&found, name, epochs)?;
    let found = tx
        .query(
            "SELECT id, epoch, item, amount, props, x, y, z FROM pickups WHERE owner = $1 ORDER BY id",
            &[&me],
        )
        .map_err(e)?;
    let pickups = pickup_rows(&found, name, epochs)?;
    let handed: std::collections::BTreeSet<String> = tx
        .query(
            "DELETE FROM handovers WHERE to_server = $1 RETURNING id",
            &[&me],
        )
        .map_err(e)?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()
        .map_err(e)?;
    let servers = tx
        .query("SELECT id FROM servers ORDER BY id", &[])
        .map_err(e)?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()
        .map_err(e)?;
    tx.commit().map_err(e)?;
    let arrived = containers
        .iter()
        .filter(|c| handed.contains(&c.id))
        .map(|c| c.id.clone())
        .collect();
    Ok(Load {
        frame,
        next_pickup,
        containers,
        pickups,
        arrived,
        servers,
    })
}

/// Container rows (id, epoch, adoption, contents, store), checked; their
/// epochs recorded.
pub(super) fn container_rows(
    found: &[Row],
    name: &str,
    epochs: &Epochs,
) -> Result<Vec<ContainerRow>, DatabaseError> {
    let mut out = Vec::with_capacity(found.len());
    for row in found {
        let id: String = row.try_get(0).unwrap_or_default();
        let read = (|| -> Result<(ContainerRow, i64), String> {
            let epoch: i64 = row.try_get(1).map_err(|e| schema::describe(&e))?;
            Ok((container_cells(row, id.clone())?, epoch))
        })();
        let (c, epoch) = read.map_err(|m| row_error(name, "containers", &id, m))?;
        lock(epochs).insert(c.id.clone(), epoch);
        out.push(c);
    }
    Ok(out)
}

/// Pickup rows (id, epoch, item, amount, props, x, y, z), checked; their
/// epochs recorded.
fn pickup_rows(
    found: &[Row],
    name: &str,
    epochs: &Epochs,
) -> Result<Vec<PickupRow>, DatabaseError> {
    let mut out = Vec::with_capacity(found.len());
    for row in found {
        let id: String = row.try_get(0).unwrap_or_default();
        let read = (|| -> Result<(PickupRow, i64), String> {
            let epoch: i64 = row.try_get(1).map_err(|e| schema::describe(&e))?;
            Ok((pickup_cells(row, id.clone(), 2)?, epoch))
        })();
        let (p, epoch) = read.map_err(|m| row_error(name, "pickups", &id, m))?;
        lock(epochs).insert(p.id.clone(), epoch);
        out.push(p);
    }
    Ok(out)
}

/// A PostgreSQL connection, moved to the writer thread.
pub(super) struct PostgresStore {
    client: Client,
    config: Config,
    name: String,
    server: ServerId,
    epochs: Epochs,
    /// The generation this process opened the server id at.
    generation: i64,
    /// Set when the store cannot go on (the writer stops): the listener
    /// stops taking hand-overs and claims for a process that saves nothing.
    stopped: Arc<std::sync::atomic::AtomicBool>,
}

impl PostgresStore {
    /// Takes every row `from` owns: owner and epoch change in one
    /// transaction.
    pub(super) fn claim_from(
        &mut self,
        from: &ServerId,
    ) -> Result<(Vec<ContainerRow>, Vec<PickupRow>), DatabaseError> {
        claim(
            &mut self.client,
            &self.name,
            (&self.server, self.generation),
            from,
            &self.epochs,
        )
    }

    /// The ids this server owns at an epoch that no row has any more
    /// under this server: taken by another server since.
    fn taken_away(&mut self) -> Result<Vec<String>, postgres::Error> {
        let (ids, epochs): (Vec<String>, Vec<i64>) = lock(&self.epochs)
            .iter()
            .map(|(id, epoch)| (id.clone(), *epoch))
            .unzip();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let found = self.client.query(
            "SELECT u.id FROM unnest($1::text[], $2::int8[]) AS u(id, epoch)
             WHERE NOT EXISTS (SELECT 1 FROM containers AS c WHERE c.id = u.id AND c.owner = $3 AND c.epoch = u.epoch)
               AND NOT EXISTS (SELECT 1 FROM pickups AS p WHERE p.id = u.id AND p.owner = $3 AND p.epoch = u.epoch)",
            &[&ids, &epochs, &self.server.as_str()],
        )?;
        found.iter().map(|r| r.try_get(0)).collect()
    }
}

/// `me` takes every row `them` owns, in one transaction: each gets `me` as
/// its owner and the next epoch (recorded in `epochs` before anyone sees
/// the rows), the hand-overs waiting for `them` are done with (their
/// containers are among the rows taken), and `me` becomes the origin of
/// the mail `them` sent.
fn claim(
    client: &mut Client,
    name: &str,
    (server, generation): (&ServerId, i64),
    them: &ServerId,
    epochs: &Epochs,
) -> Result<(Vec<ContainerRow>, Vec<PickupRow>), DatabaseError> {
    let e = |e: postgres::Error| schema::error(name, &e);
    let mut tx = client.transaction().map_err(e)?;
    // a claim by an older process of this id is refused (a claim never
    // needs the frame this process saw: it writes no frame)
    let mine = Mine {
        generation,
        seen: 0,
    };
    let standing = judge(schema::standing(&mut tx, server, true).map_err(e)?, mine);
    if let Some(refused) = standing.error(name, server, mine) {
        return Err(refused);
    }
    let (me, them) = (server.as_str(), them.as_str());
    let found = tx
        .query(
            "UPDATE containers SET owner = $1, epoch = epoch + 1 WHERE owner = $2 RETURNING id, epoch, adoption, contents, store",
            &[&me, &them],
        )
        .map_err(e)?;
    let containers = container_rows(&found, name, epochs)?;
    let found = tx
        .query(
            "UPDATE pickups SET owner = $1, epoch = epoch + 1 WHERE owner = $2 RETURNING id, epoch, item, amount, props, x, y, z",
            &[&me, &them],
        )
        .map_err(e)?;
    let pickups = pickup_rows(&found, name, epochs)?;
    tx.execute("DELETE FROM handovers WHERE to_server = $1", &[&them])
        .map_err(e)?;
    // the mail `them` sent and is still on its way: what comes back of it
    // (its target gone, or its answer's source gone) is `me`'s to handle
    tx.execute(
        "UPDATE mail SET origin = $1 WHERE origin = $2",
        &[&me, &them],
    )
    .map_err(e)?;
    tx.commit().map_err(e)?;
    Ok((containers, pickups))
}

impl Store for PostgresStore {
    fn write(&mut self, rows: &FrameRows) -> Result<Written, StoreError> {
        let known = lock(&self.epochs).clone();
        let mine = Mine {
            generation: self.generation,
            seen: rows.seen,
        };
        let outcome = write::frame(&mut self.client, rows, &self.server, &known, mine);
        match outcome {
            Ok(write::Outcome::Done(done)) => {
                let mut epochs = lock(&self.epochs);
                for (id, epoch) in done.epochs {
                    match epoch {
                        Some(epoch) => epochs.insert(id, epoch),
                        None => epochs.remove(&id),
                    };
                }
                Ok(done.written)
            }
            Ok(write::Outcome::Written) => {
                self.settle(rows).map_err(StoreError::Failed)?;
                Ok(Written::default())
            }
            Ok(write::Outcome::Lost(lost)) => Err(StoreError::Fenced(self.owners(lost))),
            Ok(write::Outcome::Refused(standing)) => Err(self.failed(
                standing
                    .error(&self.name, &self.server, mine)
                    .unwrap_or_else(|| self.write_error(rows.frame, "refused".into())),
            )),
            Err(e) if schema::is_disconnect(&e) => {
                Err(StoreError::Disconnected(schema::describe(&e)))
            }
            Err(e) => Err(self.failed(self.write_error(rows.frame, schema::describe(&e)))),
        }
    }

    fn reconnect(&mut self, seen: u64) -> Result<u64, DatabaseError> {
        let mut client = schema::connect_plain(&self.config, &self.name)?;
        let e = |e: postgres::Error| schema::error(&self.name, &e);
        // judged before the lock is asked for: a newer process of this id
        // may hold it, and this one must hear that it was replaced
        let mine = Mine {
            generation: self.generation,
            seen,
        };
        let found = schema::standing(&mut client, &self.server, false).map_err(e)?;
        let standing = judge(found, mine);
        if let Some(refused) = standing.error(&self.name, &self.server, mine) {
            self.stopped
                .store(true, std::sync::atomic::Ordering::SeqCst);
            return Err(refused);
        }
        schema::name_session(&mut client, &self.name, &self.server)?;
        // the old session goes first: if it still lives, it holds the lock
        drop(std::mem::replace(&mut self.client, client));
        schema::lock(&mut self.client, &self.name, &self.server)?;
        // read again under the lock: a commit of the old session that
        // ended meanwhile is seen
        let found = schema::standing(&mut self.client, &self.server, false)
            .map_err(|err| schema::error(&self.name, &err))?;
        Ok(found.map_or(0, |(frame, _)| frame))
    }

    fn settle(&mut self, rows: &FrameRows) -> Result<(), DatabaseError> {
        let ids: Vec<&str> = rows.ids().collect();
        let found = self
            .client
            .query(
                "SELECT id, epoch FROM containers WHERE id = ANY($1) AND owner = $2
                 UNION ALL SELECT id, epoch FROM pickups WHERE id = ANY($1) AND owner = $2",
                &[&ids, &self.server.as_str()],
            )
            .map_err(|e| schema::error(&self.name, &e))?;
        let mine: HashMap<String, i64> = found
            .iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect::<Result<_, postgres::Error>>()
            .map_err(|e| schema::error(&self.name, &e))?;
        let mut epochs = lock(&self.epochs);
        for id in ids {
            match mine.get(id) {
                Some(epoch) => epochs.insert(id.to_string(), *epoch),
                None => epochs.remove(id),
            };
        }
        Ok(())
    }

    fn reread(&mut self, touched: &[String]) -> Result<Reread, DatabaseError> {
        let name = self.name.clone();
        let e = |e: postgres::Error| schema::error(&name, &e);
        // with what the unwritten frames touched, every row this server
        // owned that another owns now (a claim takes them all at once),
        // so it lets go of them all, not only of those it wrote
        let mut ids = touched.to_vec();
        ids.extend(self.taken_away().map_err(e)?);
        ids.sort();
        ids.dedup();
        let ids = &ids;
        let me = self.server.as_str();
        let mut out = Reread::default();
        let mut seen = std::collections::BTreeSet::new();
        let found = self
            .client
            .query("SELECT id, epoch, adoption, contents, store, owner FROM containers WHERE id = ANY($1) ORDER BY id", &[&ids])
            .map_err(e)?;
        let (mine, others): (Vec<Row>, Vec<Row>) =
            found.into_iter().partition(|r| owned_by(r, 5, me));
        out.containers = container_rows(&mine, &name, &self.epochs)?;
        let found = self
            .client
            .query("SELECT id, epoch, item, amount, props, x, y, z, owner FROM pickups WHERE id = ANY($1) ORDER BY id", &[&ids])
            .map_err(e)?;
        let (mine_p, others_p): (Vec<Row>, Vec<Row>) =
            found.into_iter().partition(|r| owned_by(r, 8, me));
        out.pickups = pickup_rows(&mine_p, &name, &self.epochs)?;
        seen.extend(out.containers.iter().map(|c| c.id.clone()));
        seen.extend(out.pickups.iter().map(|p| p.id.clone()));
        let mut epochs = lock(&self.epochs);
        for (r, owner_at) in others
            .iter()
            .map(|r| (r, 5))
            .chain(others_p.iter().map(|r| (r, 8)))
        {
            let id: String = r.try_get(0).map_err(e)?;
            epochs.remove(&id);
            seen.insert(id.clone());
            out.others.push(Lost {
                id,
                owner: r.try_get::<_, String>(owner_at).ok().map(ServerId::new),
            });
        }
        for id in ids {
            if !seen.contains(id) {
                epochs.remove(id);
                out.missing.push(id.clone());
            }
        }
        Ok(out)
    }
}

/// The container `id` of a row whose adoption, contents and store are
/// columns 2, 3 and 4, checked as a load checks it; a cell that cannot be
/// read (a schema changed by hand) is an error too.
pub(super) fn container_cells(row: &Row, id: String) -> Result<ContainerRow, String> {
    let col = |e: postgres::Error| schema::describe(&e);
    let text: String = row.try_get(3).map_err(col)?;
    rows::container(
        id,
        row.try_get(2).map_err(col)?,
        &text,
        row.try_get(4).map_err(col)?,
    )
}

/// The pickup `id` of a row whose item, amount, props, x, y and z are
/// the six columns from column `item_column` on, checked as a load checks
/// it; a cell that cannot be read (a schema changed by hand) is an error
/// too.
pub(super) fn pickup_cells(row: &Row, id: String, item_column: usize) -> Result<PickupRow, String> {
    let col = |e: postgres::Error| schema::describe(&e);
    let at = |k: usize| item_column + k;
    let props: String = row.try_get(at(2)).map_err(col)?;
    rows::pickup(
        id,
        row.try_get(at(0)).map_err(col)?,
        row.try_get(at(1)).map_err(col)?,
        &props,
        [
            row.try_get(at(3)).map_err(col)?,
            row.try_get(at(4)).map_err(col)?,
            row.try_get(at(5)).map_err(col)?,
        ],
    )
}

/// Whether the row's column `at` (its owner) names `me`; an owner that
/// cannot be read (a schema changed by hand) is not `me`.
fn owned_by(row: &Row, at: usize, me: &str) -> bool {
    row.try_get::<_, &str>(at).is_ok_and(|owner| owner == me)
}

impl PostgresStore {
    /// The store cannot go on: the listener stops too.
    fn failed(&self, e: DatabaseError) -> StoreError {
        self.stopped
            .store(true, std::sync::atomic::Ordering::SeqCst);
        StoreError::Failed(e)
    }

    fn write_error(&self, frame: u64, message: String) -> DatabaseError {
        DatabaseError::Write {
            path: self.name.clone(),
            frame,
            message,
        }
    }

    /// Who owns the `lost` ids now (outside the refused transaction).
    fn owners(&mut self, lost: Vec<String>) -> Vec<Lost> {
        let found = self
            .client
            .query(
                "SELECT id, owner FROM containers WHERE id = ANY($1) UNION ALL SELECT id, owner FROM pickups WHERE id = ANY($1)",
                &[&lost],
            )
            .unwrap_or_default();
        let owners: HashMap<String, String> = found
            .iter()
            .filter_map(|r| Some((r.try_get(0).ok()?, r.try_get(1).ok()?)))
            .collect();
        lost.into_iter()
            .map(|id| Lost {
                owner: owners.get(&id).map(|o| ServerId::new(o.clone())),
                id,
            })
            .collect()
    }
}
