//! The order log: one [`LogEntry`] per accepted order or act, with
//! who made it and its hash chained to the one before.

use chrono::{DateTime, Utc};
use engine::Seat;
use serde::{Deserialize, Serialize};

/// One accepted order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// 1 for the game's first entry, then 2, 3, …
    pub seq: u64,
    /// The turn it belongs to.
    #[serde(default)]
    pub turn: u32,
    /// When it was applied.
    pub at: DateTime<Utc>,
    /// Whose order it was.
    pub seat: Seat,
    /// The player's name.
    pub player: String,
    /// The order, in canonical text.
    pub order: String,
    /// What it caused, in the game's event JSON.
    pub events: Vec<serde_json::Value>,
    /// Who or what made it: the mail it came in, the command line, a
    /// moderator or the clock (none in logs older than sources).
    #[serde(default)]
    pub source: Option<engine::Actor>,
    /// An order, an undo, or an act that changes no rule state.
    #[serde(default)]
    pub kind: EntryKind,
    /// Why (a moderator's reason), if given.
    #[serde(default)]
    pub why: Option<String>,
    /// The hash of the entry before (empty for the first).
    #[serde(default)]
    pub prev: String,
    /// This entry's hash: SHA-256 of `prev` and the entry without its hash.
    #[serde(default)]
    pub hash: String,
}

/// How the clock's log entry for a reminder begins:
/// `reminder sent: deadline Wed 25 Nov 2026 09:00 UTC`.
pub const REMINDER_SENT: &str = "reminder sent";

/// What a log entry records.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum EntryKind {
    /// An order applied to the game (`order`).
    #[default]
    Order,
    /// The last `count` orders still in effect are rolled back.
    Undo {
        /// How many.
        count: u32,
    },
    /// Something that happened around the rules (`order` says what): a
    /// moderator's act, a reminder, a deadline notice.
    Act,
    /// Table talk, never an order: `say TEXT` to every player (`to`
    /// none) or `tell PLAYER TEXT` to the player in seat `to`, whom
    /// alone (with the sender and the moderators) it is shown to.
    Message {
        /// The one it was told to.
        #[serde(default)]
        to: Option<Seat>,
    },
}

impl LogEntry {
    /// An entry that is not an order (an act, or an undo), numbered when
    /// it is pushed onto a [`GameUpdate`].
    pub fn act(
        seat: Seat,
        player: String,
        text: String,
        source: engine::Actor,
        kind: EntryKind,
        at: DateTime<Utc>,
        turn: u32,
    ) -> LogEntry {
        LogEntry {
            seq: 0,
            turn,
            at,
            seat,
            player,
            order: text,
            events: Vec::new(),
            source: Some(source),
            kind,
            why: None,
            prev: String::new(),
            hash: String::new(),
        }
    }

    /// True for the clock's note that `seat` was reminded of a deadline
    /// ([`REMINDER_SENT`]): kept in the log, but news to nobody in a
    /// report (the player got the reminder itself; issue 38).
    pub fn is_reminder(&self) -> bool {
        self.kind == EntryKind::Act
            && self.source == Some(engine::Actor::Deadline)
            && self.order.starts_with(REMINDER_SENT)
    }

    /// True if `viewer` may see this entry: a private message only to its
    /// two ends, a moderator and the operator; never to a spectator.
    pub fn visible_to(&self, viewer: engine::Viewer) -> bool {
        use engine::Viewer;
        match (&self.kind, viewer) {
            (EntryKind::Message { to: Some(to) }, Viewer::Player(s)) => s == self.seat || s == *to,
            (EntryKind::Message { to: Some(_) }, Viewer::Spectator) => false,
            _ => true,
        }
    }

    /// The entry's hash given the one before: SHA-256 over `prev` and the
    /// entry's JSON with `prev` and `hash` left empty.
    pub fn chain_hash(&self, prev: &str) -> String {
        use sha2::{Digest, Sha256};
        let mut bare = self.clone();
        bare.prev = String::new();
        bare.hash = String::new();
        let body = serde_json::to_vec(&bare).unwrap_or_default();
        let mut h = Sha256::new();
        h.update(prev.as_bytes());
        h.update(b"\n");
        h.update(&body);
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The orders of `entries` still in effect: each undo drops the last orders
/// in effect before it.
pub fn effective_orders(entries: &[LogEntry]) -> Vec<&LogEntry> {
    let mut stack: Vec<&LogEntry> = Vec::new();
    for e in entries {
        match e.kind {
            EntryKind::Order => stack.push(e),
            EntryKind::Undo { count } => {
                let keep = stack.len().saturating_sub(count as usize);
                stack.truncate(keep);
            }
            EntryKind::Act | EntryKind::Message { .. } => {}
        }
    }
    stack
}

/// The orders of `entries` an undo took back, each as its number and the
/// number of the undo that took it (the orders [`effective_orders`] leaves
/// out), in the log's order: what the turn log marks undone.
pub fn undone_orders(entries: &[LogEntry]) -> Vec<(u64, u64)> {
    let mut stack: Vec<u64> = Vec::new();
    let mut undone = Vec::new();
    for e in entries {
        match e.kind {
            EntryKind::Order => stack.push(e.seq),
            EntryKind::Undo { count } => {
                let keep = stack.len().saturating_sub(count as usize);
                undone.extend(stack.drain(keep..).map(|seq| (seq, e.seq)));
            }
            EntryKind::Act | EntryKind::Message { .. } => {}
        }
    }
    undone.sort_unstable();
    undone
}
