//! The connections `perft serve` answers at once: at most [`CONNECTIONS`], each on a thread of
//! its own. When all are taken and another arrives, the oldest connection still sending its
//! request is shed (its reading side shut, and answered 503), so that clients which open
//! connections and send nothing, or a byte now and then, cannot keep a request that arrives
//! whole from being answered: they only ever hold slots that the next arrival can take back.
//! A connection whose request has been read (a count, a progress poll) is never shed.

use std::net::{Shutdown, TcpStream};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Connections answered at once (each on a thread of its own: one may wait on a count while
/// others answer the page's progress polls); past that, the oldest still sending its request
/// makes room.
pub(super) const CONNECTIONS: usize = 64;

/// The connections open.
pub(super) struct Slots {
    open: Mutex<Open>,
    /// Told when a connection ends.
    ended: Condvar,
}

struct Open {
    next_id: u64,
    connections: Vec<Connection>,
}

struct Connection {
    id: u64,
    since: Instant,
    /// Whether its request is still being read (only such a connection is shed).
    reading: bool,
    /// Whether it was shed to make room.
    shed: bool,
    /// The same socket, to shut its reading side when it is shed; `None` if it could not be
    /// cloned (such a connection is never shed, and ends within the request's time limit).
    handle: Option<TcpStream>,
}

/// A connection's slot, given up when dropped.
pub(super) struct Slot<'a> {
    slots: &'a Slots,
    id: u64,
}

fn lock(m: &Mutex<Open>) -> MutexGuard<'_, Open> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Slots {
    pub(super) fn new() -> Slots {
        Slots {
            open: Mutex::new(Open {
                next_id: 0,
                connections: Vec::new(),
            }),
            ended: Condvar::new(),
        }
    }

    /// A slot for `stream`, once one is free: when all are taken, the oldest connection still
    /// reading its request is shed to free one; when none is (every slot is answering), this
    /// waits for one to end.
    pub(super) fn admit(&self, stream: &TcpStream) -> Slot<'_> {
        let mut open = lock(&self.open);
        while open.connections.len() >= CONNECTIONS {
            // One at a time: a connection shed ends within moments, and frees its slot.
            if !open.connections.iter().any(|c| c.shed) {
                let oldest = open
                    .connections
                    .iter_mut()
                    .filter(|c| c.reading && c.handle.is_some())
                    .min_by_key(|c| c.since);
                if let Some(c) = oldest {
                    c.shed = true;
                    if let Some(h) = &c.handle {
                        let _ = h.shutdown(Shutdown::Read);
                    }
                }
            }
            open = self
                .ended
                .wait_timeout(open, Duration::from_millis(100))
                .map_or_else(|e| e.into_inner().0, |(guard, _)| guard);
        }
        let id = open.next_id;
        open.next_id += 1;
        open.connections.push(Connection {
            id,
            since: Instant::now(),
            reading: true,
            shed: false,
            handle: stream.try_clone().ok(),
        });
        Slot { slots: self, id }
    }
}

impl Slot<'_> {
    /// Marks the request as read: the connection is no longer one to shed.
    pub(super) fn read(&self) {
        let mut open = lock(&self.slots.open);
        if let Some(c) = open.connections.iter_mut().find(|c| c.id == self.id) {
            c.reading = false;
        }
    }

    /// Whether the connection was shed to make room for another.
    pub(super) fn was_shed(&self) -> bool {
        lock(&self.slots.open)
            .connections
            .iter()
            .any(|c| c.id == self.id && c.shed)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        lock(&self.slots.open)
            .connections
            .retain(|c| c.id != self.id);
        self.slots.ended.notify_all();
    }
}
