//! One frame's transaction: every write conditional on this server's
//! ownership of the row at the epoch it knows.

use std::collections::HashMap;

use postgres::{Client, Transaction};

use super::generation::{Mine, Standing, judge};
use super::schema;
use crate::persist::frame::rows::PickupRow;
use crate::persist::frame::store::{ContainerPut, FrameRows, Written};
use crate::persist::servers::ServerId;

/// A committed frame: what it wrote, and each id's epoch now (`None`: no
/// longer this server's row).
pub(super) struct Done {
    pub(super) written: Written,
    pub(super) epochs: Vec<(String, Option<i64>)>,
}

/// How a frame's transaction ended.
pub(super) enum Outcome {
    /// Committed.
    Done(Done),
    /// Committed before, by this process (the database holds the frame).
    Written,
    /// Rows of the frame are not this server's at the epoch it knows
    /// (nothing written): their ids.
    Lost(Vec<String>),
    /// The server's row stands otherwise than this process knows it (a
    /// newer process of the id, or a database that forgot): nothing
    /// written, and nothing will be.
    Refused(Standing),
}

/// Writes `rows` in one transaction, or nothing of them. The server's row
/// is locked and checked first: the generation this process opened, at
/// or past the frame it last saw committed.
pub(super) fn frame(
    client: &mut Client,
    rows: &FrameRows,
    server: &ServerId,
    known: &HashMap<String, i64>,
    mine: Mine,
) -> Result<Outcome, postgres::Error> {
    let mut tx = client.transaction()?;
    let found = schema::standing(&mut tx, server, true)?;
    let standing = judge(found, mine);
    if standing != Standing::Current {
        return Ok(Outcome::Refused(standing));
    }
    // committed already: a commit whose answer was lost, found only after
    // the reconnect read the frame before (the old session still ending)
    if found.is_some_and(|(holds, _)| holds >= rows.frame) {
        return Ok(Outcome::Written);
    }
    let mut w = Frame {
        me: server.as_str(),
        known,
        lost: Vec::new(),
        deleted: Vec::new(),
        done: Done {
            written: Written::default(),
            epochs: Vec::new(),
        },
    };
    w.containers(&mut tx, rows)?;
    w.pickups(&mut tx, rows)?;
    // mail before the hand-overs: a row applied to a container handed over
    // in this frame is deleted while the container is still this server's
    w.mail(&mut tx, rows)?;
    w.handovers(&mut tx, rows)?;
    if !w.lost.is_empty() {
        // dropped: rolled back, nothing of the frame written
        w.lost.sort();
        w.lost.dedup();
        return Ok(Outcome::Lost(w.lost));
    }
    tx.execute(
        "UPDATE servers SET frame = $2, next_pickup = $3 WHERE id = $1",
        &[&w.me, &(rows.frame as i64), &(rows.next_pickup as i64)],
    )?;
    tx.commit()?;
    Ok(Outcome::Done(w.done))
}

/// The frame's transaction as it goes.
struct Frame<'a> {
    me: &'a str,
    known: &'a HashMap<String, i64>,
    /// Ids whose conditional write found another owner or epoch.
    lost: Vec<String>,
    /// The containers this frame deleted (as their owner).
    deleted: Vec<String>,
    done: Done,
}

/// A container's columns, each as an array.
type Columns<'a> = (
    Vec<&'a str>,
    Vec<&'a str>,
    Vec<&'a str>,
    Vec<Option<&'a str>>,
);

fn columns<'a>(list: &[&'a ContainerPut<'a>]) -> Columns<'a> {
    (
        list.iter().map(|c| c.id).collect(),
        list.iter().map(|c| c.adoption).collect(),
        list.iter().map(|c| c.contents.as_str()).collect(),
        list.iter().map(|c| c.store).collect(),
    )
}

/// The ids of `expected` that `returned` lacks.
fn missing<'a>(expected: &[&'a str], returned: &[postgres::Row]) -> Vec<&'a str> {
    let back: std::collections::HashSet<String> =
        returned.iter().filter_map(|r| r.try_get(0).ok()).collect();
    expected
        .iter()
        .copied()
        .filter(|id| !back.contains(*id))
        .collect()
}

impl Frame<'_> {
    /// Inserts the mail sent (and wakes the listeners), then deletes the
    /// mail applied: a row already gone was applied by another server, so
    /// this frame is refused.
    fn mail(&mut self, tx: &mut Transaction, rows: &FrameRows) -> Result<(), postgres::Error> {
        if !rows.mail.is_empty() {
            let m = &rows.mail;
            let ids: Vec<&str> = m.iter().map(|r| r.id.as_str()).collect();
            let targets: Vec<&str> = m.iter().map(|r| r.target.as_str()).collect();
            let items: Vec<&str> = m.iter().map(|r| r.item.as_str()).collect();
            let props: Vec<&str> = m.iter().map(|r| r.props.canonical()).collect();
            let amounts: Vec<i64> = m.iter().map(|r| i64::from(r.amount)).collect();
            let reply_to: Vec<Option<&str>> = m.iter().map(|r| r.reply_to.as_deref()).collect();
            let origins: Vec<&str> = m.iter().map(|r| r.origin.as_str()).collect();
            let answers: Vec<Option<&str>> = m.iter().map(|r| r.answers.as_deref()).collect();
            let landed: Vec<i64> = m.iter().map(|r| i64::from(r.landed)).collect();
            tx.execute(
                "INSERT INTO mail (id, target, item, props, amount, reply_to, origin, answers, landed)
                 SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[],
                   $6::text[], $7::text[], $8::text[], $9::int8[])",
                &[&ids, &targets, &items, &props, &amounts, &reply_to, &origins, &answers, &landed],
            )?;
            tx.batch_execute("NOTIFY bevy_container_mail")?;
        }
        if !rows.mail_done.is_empty() {
            // a row applied twice in one transaction is refused
            let mut once = rows.mail_done.clone();
            once.sort_unstable();
            for pair in once.windows(2).filter(|p| p[0] == p[1]) {
                self.lost.push(pair[0].to_string());
            }
            // deleted only by the server that handles it now: the owner of
            // its target (or the one that just deleted the target), or,
            // with no target, its origin; a server that lost either (a
            // claim) is fenced here even if the frame writes nothing else
            let back = tx.query(
                "DELETE FROM mail AS m WHERE m.id = ANY($1) AND (
                   m.target = ANY($3)
                   OR EXISTS (SELECT 1 FROM containers AS c WHERE c.id = m.target AND c.owner = $2)
                   OR (m.origin = $2 AND NOT EXISTS (SELECT 1 FROM containers AS c WHERE c.id = m.target)))
                 RETURNING m.id",
                &[&rows.mail_done, &self.me, &self.deleted],
            )?;
            self.lost.extend(
                missing(&rows.mail_done, &back)
                    .into_iter()
                    .map(str::to_string),
            );
        }
        Ok(())
    }

    fn epoch(&self, id: &str) -> Option<i64> {
        self.known.get(id).copied()
    }

    fn containers(
        &mut self,
        tx: &mut Transaction,
        rows: &FrameRows,
    ) -> Result<(), postgres::Error> {
        let (old, new): (Vec<&ContainerPut>, Vec<&ContainerPut>) = rows
            .containers
            .iter()
            .partition(|c| self.epoch(c.id).is_some());
        if !old.is_empty() {
            let (ids, adoptions, contents, stores) = columns(&old);
            let epochs: Vec<i64> = ids.iter().map(|id| self.epoch(id).unwrap_or(0)).collect();
            let back = tx.query(
                "UPDATE containers AS c SET adoption = u.adoption, contents = u.contents, store = u.store
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[]) AS u(id, adoption, contents, store, epoch)
                 WHERE c.id = u.id AND c.owner = $6 AND c.epoch = u.epoch RETURNING c.id",
                &[&ids, &adoptions, &contents, &stores, &epochs, &self.me],
            )?;
            self.lost
                .extend(missing(&ids, &back).into_iter().map(str::to_string));
        }
        if !new.is_empty() {
            let (ids, adoptions, contents, stores) = columns(&new);
            // a row already there is this server's only at epoch 1 (a
            // commit whose answer the connection lost)
            let back = tx.query(
                "INSERT INTO containers (id, owner, epoch, adoption, contents, store)
                 SELECT u.id, $5, 1, u.adoption, u.contents, u.store
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(id, adoption, contents, store)
                 ON CONFLICT (id) DO UPDATE SET adoption = EXCLUDED.adoption, contents = EXCLUDED.contents, store = EXCLUDED.store
                 WHERE containers.owner = EXCLUDED.owner AND containers.epoch = 1 RETURNING id",
                &[&ids, &adoptions, &contents, &stores, &self.me],
            )?;
            self.lost
                .extend(missing(&ids, &back).into_iter().map(str::to_string));
            self.done
                .epochs
                .extend(ids.iter().map(|id| (id.to_string(), Some(1))));
        }
        self.done.written.containers += rows.containers.len() as u64;
        let gone = self.delete(tx, "containers", &rows.container_deletes)?;
        self.done.written.deleted += gone;
        Ok(())
    }

    /// Deletes the rows of `ids` this server knows; returns how many went.
    /// An id whose epoch it does not know (never written, or let go of) is
    /// lost when another server owns a row of it: that row's items are the
    /// other server's, and a frame that took them must not commit.
    fn delete(
        &mut self,
        tx: &mut Transaction,
        table: &str,
        ids: &[&str],
    ) -> Result<u64, postgres::Error> {
        let (ids, unknown): (Vec<&str>, Vec<&str>) =
            ids.iter().copied().partition(|id| self.epoch(id).is_some());
        if !unknown.is_empty() {
            let theirs = tx.query(
                &format!("SELECT id FROM {table} WHERE id = ANY($1) AND owner <> $2"),
                &[&unknown, &self.me],
            )?;
            self.lost
                .extend(theirs.iter().filter_map(|r| r.try_get::<_, String>(0).ok()));
        }
        self.done
            .epochs
            .extend(ids.iter().map(|id| (id.to_string(), None)));
        if ids.is_empty() {
            return Ok(0);
        }
        let epochs: Vec<i64> = ids.iter().map(|id| self.epoch(id).unwrap_or(0)).collect();
        let back = tx.query(
            &format!(
                "DELETE FROM {table} AS t USING unnest($1::text[], $2::int8[]) AS u(id, epoch)
                 WHERE t.id = u.id AND t.owner = $3 AND t.epoch = u.epoch RETURNING t.id"
            ),
            &[&ids, &epochs, &self.me],
        )?;
        self.lost
            .extend(missing(&ids, &back).into_iter().map(str::to_string));
        if table == "containers" {
            self.deleted
                .extend(back.iter().filter_map(|r| r.try_get::<_, String>(0).ok()));
        }
        Ok(back.len() as u64)
    }

    fn pickups(&mut self, tx: &mut Transaction, rows: &FrameRows) -> Result<(), postgres::Error> {
        let (old, new): (Vec<&PickupRow>, Vec<&PickupRow>) = rows
            .pickups
            .iter()
            .copied()
            .partition(|p| self.epoch(&p.id).is_some());
        for (list, is_new) in [(old, false), (new, true)] {
            if list.is_empty() {
                continue;
            }
            let ids: Vec<&str> = list.iter().map(|p| p.id.as_str()).collect();
            let items: Vec<&str> = list.iter().map(|p| p.item.as_str()).collect();
            let amounts: Vec<i64> = list.iter().map(|p| i64::from(p.amount)).collect();
            let props: Vec<&str> = list.iter().map(|p| p.props.canonical()).collect();
            let axis = |f: fn(&bevy::math::Vec3) -> f32| {
                list.iter()
                    .map(|p| f64::from(f(&p.translation)))
                    .collect::<Vec<f64>>()
            };
            let (x, y, z) = (axis(|t| t.x), axis(|t| t.y), axis(|t| t.z));
            let epochs: Vec<i64> = ids.iter().map(|id| self.epoch(id).unwrap_or(1)).collect();
            let sql = if is_new {
                "INSERT INTO pickups (id, owner, epoch, item, amount, props, x, y, z)
                 SELECT u.id, $8, 1, u.item, u.amount, u.props, u.x, u.y, u.z
                 FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::float8[], $6::float8[], $7::float8[], $9::int8[])
                   AS u(id, item, amount, props, x, y, z, epoch)
                 ON CONFLICT (id) DO UPDATE SET item = EXCLUDED.item, amount = EXCLUDED.amount, props = EXCLUDED.props,
                   x = EXCLUDED.x, y = EXCLUDED.y, z = EXCLUDED.z
                 WHERE pickups.owner = EXCLUDED.owner AND pickups.epoch = 1 RETURNING id"
            } else {
                "UPDATE pickups AS t SET item = u.item, amount = u.amount, props = u.props, x = u.x, y = u.y, z = u.z
                 FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::float8[], $6::float8[], $7::float8[], $9::int8[])
                   AS u(id, item, amount, props, x, y, z, epoch)
                 WHERE t.id = u.id AND t.owner = $8 AND t.epoch = u.epoch RETURNING t.id"
            };
            let back = tx.query(
                sql,
                &[
                    &ids, &items, &amounts, &props, &x, &y, &z, &self.me, &epochs,
                ],
            )?;
            self.lost
                .extend(missing(&ids, &back).into_iter().map(str::to_string));
            if is_new {
                self.done
                    .epochs
                    .extend(ids.iter().map(|id| (id.to_string(), Some(1))));
            }
        }
        self.done.written.pickups += rows.pickups.len() as u64;
        let gone = self.delete(tx, "pickups", &rows.pickup_deletes)?;
        self.done.written.deleted += gone;
        Ok(())
    }

    /// Gives the handed-over containers their new owner and the next
    /// epoch, records each for its server, and wakes the servers.
    fn handovers(&mut self, tx: &mut Transaction, rows: &FrameRows) -> Result<(), postgres::Error> {
        if rows.handovers.is_empty() {
            return Ok(());
        }
        let written_new: std::collections::HashSet<&str> = rows
            .containers
            .iter()
            .filter(|c| self.epoch(c.id).is_none())
            .map(|c| c.id)
            .collect();
        let mut ids = Vec::new();
        let mut to = Vec::new();
        let mut epochs = Vec::new();
        for (id, server) in &rows.handovers {
            let epoch = match self.epoch(id) {
                Some(e) => e,
                None if written_new.contains(id) => 1,
                // never written (its adoption never loaded): no row to hand
                None => {
                    bevy::log::warn!(
                        "{id} was handed to {server} before it was ever written: it has no row, and arrives nowhere"
                    );
                    continue;
                }
            };
            ids.push(*id);
            to.push(server.as_str());
            epochs.push(epoch);
        }
        let back = tx.query(
            "UPDATE containers AS c SET owner = u.to_server, epoch = c.epoch + 1
             FROM unnest($1::text[], $2::text[], $3::int8[]) AS u(id, to_server, epoch)
             WHERE c.id = u.id AND c.owner = $4 AND c.epoch = u.epoch
               AND EXISTS (SELECT 1 FROM servers AS s WHERE s.id = u.to_server) RETURNING c.id",
            &[&ids, &to, &epochs, &self.me],
        )?;
        self.lost
            .extend(missing(&ids, &back).into_iter().map(str::to_string));
        let next: Vec<i64> = epochs.iter().map(|e| e + 1).collect();
        tx.execute(
            "INSERT INTO handovers (id, to_server, epoch) SELECT * FROM unnest($1::text[], $2::text[], $3::int8[])
             ON CONFLICT (id) DO UPDATE SET to_server = EXCLUDED.to_server, epoch = EXCLUDED.epoch",
            &[&ids, &to, &next],
        )?;
        let mut servers = to.clone();
        servers.sort();
        servers.dedup();
        tx.execute(
            "SELECT pg_notify('bevy_container_handover', s) FROM unnest($1::text[]) AS s",
            &[&servers],
        )?;
        self.done
            .epochs
            .extend(ids.iter().map(|id| (id.to_string(), None)));
        Ok(())
    }
}
