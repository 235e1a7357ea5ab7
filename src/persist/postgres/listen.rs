//! The listener: a thread with its own connection that hears of the
//! containers handed to this server (PostgreSQL's `LISTEN`/`NOTIFY`, and a
//! look at the `handovers` table every quarter second in case a wake-up
//! was missed) and passes them to the game.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

use postgres::{Client, Config};

use super::{Epochs, container_rows, schema};
use crate::persist::ownership::Arrivals;
use crate::persist::rows::ContainerRow;
use crate::persist::servers::ServerId;

/// How long the listener waits for a wake-up before it looks anyway.
const LOOK_EVERY: Duration = Duration::from_millis(250);

/// Stops the listener when dropped (with the plugin's resources).
struct Listener {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Starts the listener of `server`.
pub(super) fn start(config: Config, name: String, server: ServerId, epochs: Epochs) -> Arrivals {
    let (send, receive) = channel();
    let stop = Arc::new(AtomicBool::new(false));
    let thread = {
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("container-handovers".into())
            .spawn(move || listen(&config, &name, &server, &epochs, &send, &stop))
            .ok()
    };
    Arrivals {
        receiver: Some(std::sync::Mutex::new(receive)),
        _listener: Some(Box::new(Listener { stop, thread })),
    }
}

fn listen(
    config: &Config,
    name: &str,
    server: &ServerId,
    epochs: &Epochs,
    send: &Sender<ContainerRow>,
    stop: &AtomicBool,
) {
    let mut warned = false;
    while !stop.load(Ordering::SeqCst) {
        let mut client = match schema::connect_plain(config, name).and_then(|mut c| {
            c.batch_execute("LISTEN bevy_container_handover")
                .map(|()| c)
                .map_err(|e| schema::error(name, &e))
        }) {
            Ok(c) => c,
            Err(e) => {
                if !warned {
                    bevy::log::warn!("{e}; hand-overs to {server} wait until it connects");
                    warned = true;
                }
                std::thread::sleep(Duration::from_secs(1));
                continue;
            }
        };
        warned = false;
        // every hand-over waiting is taken before the first wake-up
        while !stop.load(Ordering::SeqCst) {
            match take(&mut client, name, server, epochs) {
                Ok(rows) => {
                    for row in rows {
                        if send.send(row).is_err() {
                            return;
                        }
                    }
                }
                Err(e) => {
                    bevy::log::warn!(
                        "{name}: reading hand-overs to {server} failed ({}); connecting again",
                        schema::describe(&e)
                    );
                    break;
                }
            }
            let mut heard = client.notifications();
            // a wake-up, or the quarter second: either way, look
            if heard.timeout_iter(LOOK_EVERY).next().is_err() {
                break;
            }
            while let Ok(Some(_)) = heard.iter().next() {}
        }
    }
}

use postgres::fallible_iterator::FallibleIterator;

/// The containers handed to `server`, their hand-overs done with, in one
/// transaction; their epochs are recorded before the game sees them.
fn take(
    client: &mut Client,
    name: &str,
    server: &ServerId,
    epochs: &Epochs,
) -> Result<Vec<ContainerRow>, postgres::Error> {
    let me = server.as_str();
    let mut tx = client.transaction()?;
    let found = tx.query(
        "DELETE FROM handovers AS h USING containers AS c
         WHERE h.to_server = $1 AND c.id = h.id AND c.owner = $1 AND c.epoch = h.epoch
         RETURNING c.id, c.epoch, c.adoption, c.contents, c.store",
        &[&me],
    )?;
    // hand-overs whose container went on elsewhere since
    tx.execute(
        "DELETE FROM handovers AS h WHERE h.to_server = $1 AND NOT EXISTS
         (SELECT 1 FROM containers AS c WHERE c.id = h.id AND c.owner = $1 AND c.epoch = h.epoch)",
        &[&me],
    )?;
    tx.commit()?;
    let mut out = Vec::new();
    for row in found {
        match container_rows(std::slice::from_ref(&row), name, epochs) {
            Ok(mut rows) => out.append(&mut rows),
            // it stays this server's in the table: the next start reports it
            Err(e) => bevy::log::error!("{e}; the container handed over is not spawned"),
        }
    }
    Ok(out)
}
