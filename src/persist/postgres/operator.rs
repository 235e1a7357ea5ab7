//! The operator's view of a shared database: who is there, what is in
//! flight, every row checked, and a claim made from outside any server.
//! What `bevy-container db` prints (features `cli` and `postgres`).

use std::collections::BTreeMap;

use postgres::{Client, NoTls};

use super::schema;
use crate::persist::frame::error::{DatabaseError, hide_password};
use crate::persist::frame::rows::{self, ContainerRow};
use crate::persist::servers::ServerId;
use crate::save::SavedContents;

/// One server as the database knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    /// Its id.
    pub id: String,
    /// The last frame it committed.
    pub frame: u64,
    /// How many times the id has opened the database (0: registered ahead,
    /// never opened).
    pub generation: i64,
    /// The containers it owns.
    pub containers: u64,
    /// The loose pickups it owns.
    pub pickups: u64,
    /// Whether a process holds its lock now (it runs).
    pub running: bool,
}

/// A shared database at a glance: `bevy-container db status URL`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Status {
    /// The schema version.
    pub schema: i64,
    /// Every server, by id.
    pub servers: Vec<ServerStatus>,
    /// Mail rows in flight (sent or answered, not yet applied).
    pub mail: u64,
    /// Hand-overs whose server has not spawned the container yet.
    pub handovers: u64,
    /// Containers and pickups owned by an id with no `servers` row (`id`,
    /// owner): nobody will ever load them until claimed.
    pub orphans: Vec<(String, String)>,
}

/// Counts of items by type.
pub type Counts = BTreeMap<String, u64>;

/// Every row of a shared database read as a server's load reads it, and
/// the items counted by type where they are: `bevy-container db audit URL`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Audit {
    /// Items in containers.
    pub containers: Counts,
    /// Items in loose pickups.
    pub pickups: Counts,
    /// Items in flight as mail.
    pub mail: Counts,
    /// Rows that do not read (table, key, what is wrong), and rows owned
    /// by no known server; empty when the database is sound.
    pub problems: Vec<String>,
}

impl Audit {
    /// Every item counted once, wherever it is.
    ///
    /// ```
    /// use bevy_container::persist::operator::Audit;
    /// let mut a = Audit::default();
    /// a.containers.insert("berries".into(), 25);
    /// a.mail.insert("berries".into(), 10);
    /// assert_eq!(a.totals()["berries"], 35);
    /// ```
    pub fn totals(&self) -> Counts {
        let mut out = Counts::new();
        for counts in [&self.containers, &self.pickups, &self.mail] {
            for (item, n) in counts {
                *out.entry(item.clone()).or_default() += n;
            }
        }
        out
    }
}

/// What an operator's claim took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Claimed {
    /// Containers now the claimer's.
    pub containers: u64,
    /// Loose pickups now the claimer's.
    pub pickups: u64,
}

fn connect(url: &str) -> Result<(Client, String), DatabaseError> {
    let (config, name) = schema::parse_url(url)?;
    let client = config
        .connect(NoTls)
        .map_err(|e| schema::error(&name, &e))?;
    Ok((client, name))
}

/// The servers, their rows and what is in flight.
pub fn status(url: &str) -> Result<Status, DatabaseError> {
    let (mut client, name) = connect(url)?;
    let e = |e: postgres::Error| schema::error(&name, &e);
    let schema: i64 = client
        .query_one("SELECT version FROM container_schema", &[])
        .and_then(|r| r.try_get(0))
        .map_err(e)?;
    let servers = client
        .query(
            "SELECT s.id, s.frame, s.generation,
               (SELECT count(*) FROM containers AS c WHERE c.owner = s.id),
               (SELECT count(*) FROM pickups AS p WHERE p.owner = s.id),
               EXISTS (SELECT 1 FROM pg_locks AS l WHERE l.locktype = 'advisory' AND l.objsubid = 2
                 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                 AND l.classid::bigint = (hashtext('bevy_container')::bigint & 4294967295)
                 AND l.objid::bigint = (hashtext(s.id)::bigint & 4294967295))
             FROM servers AS s ORDER BY s.id",
            &[],
        )
        .map_err(e)?
        .iter()
        .map(|r| {
            Ok(ServerStatus {
                id: r.try_get(0)?,
                frame: r.try_get::<_, i64>(1)?.max(0) as u64,
                generation: r.try_get(2)?,
                containers: r.try_get::<_, i64>(3)?.max(0) as u64,
                pickups: r.try_get::<_, i64>(4)?.max(0) as u64,
                running: r.try_get(5)?,
            })
        })
        .collect::<Result<_, postgres::Error>>()
        .map_err(e)?;
    let count = |client: &mut Client, sql: &str| -> Result<u64, DatabaseError> {
        client
            .query_one(sql, &[])
            .and_then(|r| r.try_get::<_, i64>(0))
            .map(|n| n.max(0) as u64)
            .map_err(e)
    };
    let mail = count(&mut client, "SELECT count(*) FROM mail")?;
    let handovers = count(&mut client, "SELECT count(*) FROM handovers")?;
    let orphans = client
        .query(
            "SELECT id, owner FROM containers WHERE owner NOT IN (SELECT id FROM servers)
             UNION ALL SELECT id, owner FROM pickups WHERE owner NOT IN (SELECT id FROM servers)
             ORDER BY 1",
            &[],
        )
        .map_err(e)?
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect::<Result<_, postgres::Error>>()
        .map_err(e)?;
    Ok(Status {
        schema,
        servers,
        mail,
        handovers,
        orphans,
    })
}

/// Every container, pickup and mail row, checked as a load checks it, in
/// one snapshot; the items counted by type.
pub fn audit(url: &str) -> Result<Audit, DatabaseError> {
    let (mut client, name) = connect(url)?;
    let e = |e: postgres::Error| schema::error(&name, &e);
    let mut tx = client
        .build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(e)?;
    let mut out = Audit::default();
    for r in tx
        .query("SELECT id, owner, adoption, contents, store, owner IN (SELECT id FROM servers) FROM containers ORDER BY id", &[])
        .map_err(e)?
    {
        let id: String = r.try_get(0).unwrap_or_default();
        let col = |e: postgres::Error| schema::describe(&e);
        let read = (|| -> Result<ContainerRow, String> {
            if !r.try_get::<_, bool>(5).map_err(col)? {
                let owner: String = r.try_get(1).map_err(col)?;
                out.problems.push(format!("table containers, row \"{id}\": owned by \"{owner}\", a server the database does not know; claim it (bevy-container db claim URL --from {owner} --to SERVER)"));
            }
            super::container_cells(&r, id.clone())
        })();
        match read {
            Ok(row) => count_save(&row.contents, &mut out.containers),
            Err(m) => out.problems.push(rows::row_error(&name, "containers", &id, m).to_string()),
        }
    }
    for r in tx
        .query(
            "SELECT id, item, amount, props, x, y, z FROM pickups ORDER BY id",
            &[],
        )
        .map_err(e)?
    {
        let id: String = r.try_get(0).unwrap_or_default();
        match super::pickup_cells(&r, id.clone(), 1) {
            Ok(p) => *out.pickups.entry(p.item).or_default() += u64::from(p.amount),
            Err(m) => out
                .problems
                .push(rows::row_error(&name, "pickups", &id, m).to_string()),
        }
    }
    let found = tx
        .query(&format!("{} ORDER BY m.seq", super::listen::LETTERS), &[])
        .map_err(e)?;
    for r in &found {
        match super::listen::letter(r) {
            Ok(l) => *out.mail.entry(l.row.item).or_default() += u64::from(l.row.amount),
            Err(m) => {
                let id: String = r.try_get(0).unwrap_or_default();
                out.problems
                    .push(rows::row_error(&name, "mail", &id, m).to_string());
            }
        }
    }
    Ok(out)
}

/// The items of a save, counted (the save was checked).
fn count_save(saved: &SavedContents, counts: &mut Counts) {
    for s in saved.slots.iter().flatten().chain(&saved.holdings) {
        *counts.entry(s.item.clone()).or_default() += u64::from(s.amount);
    }
}

/// Registers the server id `id` ahead of its first start, so hand-overs
/// to it are accepted; whether it was new.
pub fn register(url: &str, id: &ServerId) -> Result<bool, DatabaseError> {
    id.check(hide_password(url))?;
    let (mut client, name) = connect(url)?;
    schema::migrate(&mut client, &name)?;
    let added = client
        .execute(
            "INSERT INTO servers (id, frame, next_pickup, generation) VALUES ($1, 0, 1, 0) ON CONFLICT (id) DO NOTHING",
            &[&id.as_str()],
        )
        .map_err(|e| schema::error(&name, &e))?;
    Ok(added == 1)
}

/// The operator's claim: every container and pickup `from` owns becomes
/// `to`'s at the next epoch, in one transaction (a paused `from` that
/// comes back writes none of them), and `to` is told of the containers as
/// of hand-overs: a running `to` spawns them within a quarter second, a
/// stopped one at its start (each with `ContainerArrived`); the pickups
/// load at its next start. `to` must be a server the database knows.
pub fn claim(url: &str, from: &ServerId, to: &ServerId) -> Result<Claimed, DatabaseError> {
    let (mut client, name) = connect(url)?;
    let e = |e: postgres::Error| schema::error(&name, &e);
    let mut tx = client.transaction().map_err(e)?;
    let known = tx
        .query_opt("SELECT 1 FROM servers WHERE id = $1", &[&to.as_str()])
        .map_err(e)?;
    if known.is_none() || from == to {
        let (message, fix) = if from == to {
            (
                format!("a claim from \"{from}\" to itself takes nothing"),
                "name the server that takes the containers, another than the one they are taken from".to_string(),
            )
        } else {
            (
                format!("no server \"{to}\" has opened this database"),
                format!("register it first (bevy-container db register URL {to}) or check the id"),
            )
        };
        return Err(DatabaseError::Invalid {
            path: name.clone(),
            message,
            fix,
        });
    }
    let (me, them) = (to.as_str(), from.as_str());
    let containers = tx
        .execute(
            "WITH taken AS (UPDATE containers SET owner = $1, epoch = epoch + 1 WHERE owner = $2 RETURNING id, epoch)
             INSERT INTO handovers (id, to_server, epoch) SELECT id, $1, epoch FROM taken
             ON CONFLICT (id) DO UPDATE SET to_server = EXCLUDED.to_server, epoch = EXCLUDED.epoch",
            &[&me, &them],
        )
        .map_err(e)?;
    let pickups = tx
        .execute(
            "UPDATE pickups SET owner = $1, epoch = epoch + 1 WHERE owner = $2",
            &[&me, &them],
        )
        .map_err(e)?;
    tx.execute("DELETE FROM handovers WHERE to_server = $1", &[&them])
        .map_err(e)?;
    tx.execute(
        "UPDATE mail SET origin = $1 WHERE origin = $2",
        &[&me, &them],
    )
    .map_err(e)?;
    tx.execute("SELECT pg_notify('bevy_container_handover', $1)", &[&me])
        .map_err(e)?;
    tx.commit().map_err(e)?;
    Ok(Claimed {
        containers,
        pickups,
    })
}
