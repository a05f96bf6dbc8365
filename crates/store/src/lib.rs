//! Games kept in sled: each game is its setup and initial state, an
//! append-only log of accepted orders, and a snapshot of the current state.
//!
//! The snapshot is only a cache: [`Store::rebuild`] replays the log from the
//! initial state and must give the same game. A batch of orders is written in
//! one transaction (log entries and snapshot together), and only if the
//! snapshot is still at the sequence number the batch was checked against,
//! so two writers can never interleave half a batch.
//!
//! Everything one inbound mail causes (its Message-ID receipt, the game's
//! new log entries, snapshot and bookkeeping, and every mail it makes us
//! send) goes into one [`Change`], committed in one sled transaction by
//! [`Store::commit`]. The outbox is drained afterwards, with retries.
//!
//! Trees: `games` (id → [`GameRecord`]), `initial` (id → the state after
//! set-up), `log` (id, 0, sequence → [`LogEntry`]), `snapshots` (id → the
//! current state), `heads` (id → [`Head`]: the last entry in the snapshot
//! and its hash), `meta` (counters, the format, and `game:ID` →
//! [`GameMeta`]), `receipts` (Message-ID → [`Receipt`]), `outbox` (number →
//! [`OutboxItem`]), `parts` (number → what several outbox items of one
//! change share, a report's picture: see [`PartRef`]; its bytes in a file
//! of the folder `parts/` beside sled's files, see `part_files.rs`), `help` (address, or an alert's key → time of the last
//! help reply or alert), `counts` (what and hour → how many were sent: the
//! hourly limits), `failures` (transport handle → [`MailFailure`]),
//! `quarantine` (key → [`Quarantined`]), `clock` (when, id: the scheduler's
//! index, which holds forming games' expiry too), `players` (address, id:
//! the address index), `site` (games forming by mail and what is known of
//! addresses: see [`site`]). Values are JSON, but
//! for an outbox item (a JSON head, then the message's bytes, packed; see
//! [`OutboxItem`]) and the counters and format in `meta` and `counts`
//! (big-endian numbers); a state is the game's own JSON, packed, read
//! straight into the game's type. Packed ([`pack`]): compressed against a
//! dictionary built into the program, so that sled's pages are about as
//! small in memory as on disk; values stored unpacked by earlier versions
//! are read as they are.
#![warn(missing_docs)]

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sled::transaction::{ConflictableTransactionError, TransactionError, Transactional};

use engine::{AnyGame, OrderRejected, Seat, Setup, SetupError};
use mail::OutMail;
use registry::{self, BoardSource};

pub mod export;
pub mod pack;
mod part_files;
pub mod recovery;
pub mod site;

pub use site::{Contact, Forming, FormingSeat, Observer, Pending, ReportMode};

/// A game's id, e.g. `rocket-3`: what players write in a subject tag.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct GameId(pub String);

impl std::fmt::Display for GameId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What is stored about a game when it is created.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's id.
    pub id: GameId,
    /// Players, options and seed.
    pub setup: Setup,
    /// When it was created.
    pub created: DateTime<Utc>,
    /// The format of its initial state (see [`Game::STATE_VERSION`]).
    ///
    /// [`Game::STATE_VERSION`]: engine::Game::STATE_VERSION
    #[serde(default = "first_state_version")]
    pub state_version: u32,
}

/// The state format of games stored before formats were recorded.
fn first_state_version() -> u32 {
    1
}

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

/// The failed tries of one inbound mail, by its transport handle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailFailure {
    /// How many times it failed.
    pub tries: u32,
    /// Why, the last time.
    pub why: String,
    /// When it first failed.
    pub first: DateTime<Utc>,
}

/// A mail moved to quarantine: why, and enough to recognise it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quarantined {
    /// Its Message-ID (or the stand-in of a mail without one), or
    /// `handle:NAME` for a message that could not be read at all.
    pub key: String,
    /// Why it could not be handled (the last error).
    pub why: String,
    /// How many times it was tried.
    pub tries: u32,
    /// When it was put aside.
    pub at: DateTime<Utc>,
    /// Its sender, if it could be read.
    #[serde(default)]
    pub from: Option<String>,
    /// Its subject, if it could be read.
    #[serde(default)]
    pub subject: Option<String>,
}

/// What `verify` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verified {
    /// The chain holds and the replay matches the snapshot.
    Good {
        /// Entries checked.
        entries: usize,
        /// The last entry's hash.
        last_hash: String,
    },
    /// Where it breaks.
    Broken(String),
}

/// A game's private bookkeeping: never shown to anyone.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameMeta {
    /// Each seat's secret token, which their replies carry.
    pub tokens: Vec<String>,
    /// Each seat's current address, where a moderator replaced the player
    /// (empty: the addresses of the setup).
    #[serde(default)]
    pub addresses: Vec<String>,
    /// Each moderator's secret token, by address.
    #[serde(default)]
    pub moderator_tokens: std::collections::BTreeMap<String, String>,
    /// Paused by a moderator since then.
    #[serde(default)]
    pub paused: Option<DateTime<Utc>>,
    /// The moderator who paused it (`operator` from the command line);
    /// none for a game paused before this was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_by: Option<String>,
    /// Aborted by a moderator.
    #[serde(default)]
    pub aborted: bool,
    /// What each seat sent that waits for a later moment (see [`Held`]).
    /// Private to that seat: never shown to anyone else.
    #[serde(default)]
    pub queued: Vec<Held>,
    /// The last log entry each seat's last report covered.
    pub reported: Vec<u64>,
    /// Deadlines, reminders and absences.
    #[serde(default)]
    pub clock: clock::Clock,
    /// The game's own moderators' addresses (besides the site's).
    #[serde(default)]
    pub moderators: Vec<String>,
    /// The Message-ID of each seat's welcome mail: the root of the thread
    /// every later mail to that seat's player joins. Empty for games made
    /// before threads were kept; `daemon::report::player_thread` derives
    /// a stable root for those.
    #[serde(default)]
    pub welcome_ids: Vec<String>,
    /// The Message-ID of each moderator's welcome mail (by address in lower
    /// case): the root of that moderator's thread.
    #[serde(default)]
    pub moderator_welcome_ids: std::collections::BTreeMap<String, String>,
    /// How much mail each seat chose (`reports MODE`); `None` or missing:
    /// the game's default.
    #[serde(default)]
    pub report_modes: Vec<Option<ReportMode>>,
    /// The game's default, set by its moderators.
    #[serde(default)]
    pub default_reports: ReportMode,
    /// Anyone may watch it (`watchable` at `new`).
    #[serde(default)]
    pub watchable: bool,
    /// Who watches it.
    #[serde(default)]
    pub observers: Vec<Observer>,
    /// Each seat's further addresses, confirmed (`address add`): its
    /// player may play from them too, with the seat's key.
    #[serde(default)]
    pub other_addresses: Vec<Vec<String>>,
}

/// What one seat sent that waits for a later moment: orders behind an
/// interruption, and a standing answer for its place in a round.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "HeldForm")]
pub struct Held {
    /// Order lines that wait until the game next awaits the seat, in the
    /// batches (mails) they came in: a line that fails drops the rest of
    /// its batch, and no other.
    pub batches: Vec<Vec<String>>,
    /// The seat's standing answer for its place in a round (Rocket: a bid
    /// or pass in a veto round), applied when that place comes.
    pub standing: Option<String>,
    /// Where each of `batches` came from (the mail, the command line, a
    /// moderator's `as`), one for one; shorter in bookkeeping stored
    /// before sources were kept, where the missing ones are unknown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<engine::Actor>,
    /// Where the standing answer came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standing_source: Option<engine::Actor>,
}

impl Held {
    /// True if nothing waits.
    pub fn is_empty(&self) -> bool {
        self.batches.is_empty() && self.standing.is_none()
    }

    /// Holds `lines`, sent by `from`, as one batch after the others.
    pub fn push_batch(&mut self, lines: Vec<String>, from: engine::Actor) {
        // Bookkeeping from before sources: the older batches' are unknown
        // and stay so, as the mail that released them did.
        if self.sources.len() == self.batches.len() {
            self.sources.push(from);
        }
        self.batches.push(lines);
    }

    /// Where the first batch came from, if known.
    pub fn first_source(&self) -> Option<&engine::Actor> {
        (self.sources.len() == self.batches.len())
            .then(|| self.sources.first())
            .flatten()
    }

    /// Takes the first batch out, with its source.
    pub fn remove_first(&mut self) -> Vec<String> {
        if self.sources.len() == self.batches.len() && !self.sources.is_empty() {
            self.sources.remove(0);
        }
        self.batches.remove(0)
    }

    /// Takes the first line of the first batch out (the batch too, once
    /// empty).
    pub fn remove_first_line(&mut self) {
        if let Some(first) = self.batches.first_mut() {
            first.remove(0);
            if first.is_empty() {
                self.remove_first();
            }
        }
    }
}

/// How [`Held`] was stored: databases written before standing answers
/// hold each seat's waiting lines as one list, read as one batch.
#[derive(Deserialize)]
#[serde(untagged)]
enum HeldForm {
    Lines(Vec<String>),
    Held {
        #[serde(default)]
        batches: Vec<Vec<String>>,
        #[serde(default)]
        standing: Option<String>,
        #[serde(default)]
        sources: Vec<engine::Actor>,
        #[serde(default)]
        standing_source: Option<engine::Actor>,
    },
}

impl From<HeldForm> for Held {
    fn from(form: HeldForm) -> Held {
        match form {
            HeldForm::Lines(lines) if lines.is_empty() => Held::default(),
            HeldForm::Lines(lines) => Held {
                batches: vec![lines],
                ..Held::default()
            },
            HeldForm::Held {
                batches,
                standing,
                sources,
                standing_source,
            } => {
                // Sources kept one for one with the batches, or none.
                let whole = sources.len() == batches.len();
                let (batches, sources): (Vec<_>, Vec<_>) = if whole {
                    batches
                        .into_iter()
                        .zip(sources)
                        .filter(|(b, _)| !b.is_empty())
                        .map(|(b, s)| (b, Some(s)))
                        .unzip()
                } else {
                    batches
                        .into_iter()
                        .filter(|b| !b.is_empty())
                        .map(|b| (b, None))
                        .unzip()
                };
                Held {
                    batches,
                    standing,
                    sources: sources.into_iter().flatten().collect(),
                    standing_source,
                }
            }
        }
    }
}

/// That a mail was handled, and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// When.
    pub at: DateTime<Utc>,
    /// The game it named, if any.
    pub game: Option<String>,
    /// What was done, in a few words.
    pub outcome: String,
}

/// A mail waiting to be sent.
///
/// Stored as the length of a JSON head (4 bytes, big-endian), the head
/// (everything but the message) and the message's bytes, packed
/// ([`pack`]; a report is 14 KB of text, about 1 KB packed). Writing the
/// message as a JSON string escaped every quote and line end. Items stored
/// as JSON by earlier versions (which begin with `{`, a length no item
/// has), and messages stored unpacked, are still read.
///
/// A stretch that the other mails of its change carry too (a report's
/// picture, some 80 KB of base64 that packing hardly shrinks) is cut out
/// of the stored message and kept once, as a file of the database's
/// folder `parts/` (the PNG it encodes) with an entry in the tree `parts`
/// ([`PartRef`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutboxItem {
    /// The envelope sender.
    pub from: String,
    /// The envelope recipients.
    pub to: Vec<String>,
    /// The Message-ID.
    pub message_id: String,
    /// The formatted message.
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// Failed attempts so far.
    pub attempts: u32,
    /// Not before this time.
    pub next_try: DateTime<Utc>,
    /// The last failure.
    pub last_error: Option<String>,
    /// Where the stretch of `bytes` kept in `parts` goes, if one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<PartRef>,
}

/// Bytes of a stored mail kept apart, once for all the mails of a change
/// that carry them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartRef {
    /// Its key in `parts`.
    pub key: u64,
    /// Where it goes in the message.
    pub at: usize,
    /// Its length in the message (the base64 of a picture, which its file
    /// keeps as the PNG).
    pub len: usize,
}

impl OutboxItem {
    /// A mail to send as soon as possible.
    pub fn new(mail: &OutMail, now: DateTime<Utc>) -> OutboxItem {
        OutboxItem {
            from: mail.from.clone(),
            to: mail.to.clone(),
            message_id: mail.message_id.clone(),
            bytes: mail.bytes.clone(),
            attempts: 0,
            next_try: now,
            last_error: None,
            part: None,
        }
    }

    /// `send` given the mail to hand to a transport. The message is lent
    /// to it rather than copied (a report is some 90 KB), and is back in
    /// the item when `send` returns (for a retry).
    pub fn lend_mail<R>(&mut self, send: impl FnOnce(&OutMail) -> R) -> R {
        let mail = OutMail {
            from: self.from.clone(),
            to: self.to.clone(),
            message_id: self.message_id.clone(),
            bytes: std::mem::take(&mut self.bytes),
            shared: None,
        };
        let sent = send(&mail);
        self.bytes = mail.bytes;
        sent
    }

    /// The stored form (see [`OutboxItem`]).
    fn encode(&self) -> Result<Vec<u8>, StoreError> {
        let head = serde_json::to_vec(self).map_err(|e| StoreError::Corrupt {
            game: String::new(),
            message: format!("outbox item {}: {e}", self.message_id),
        })?;
        let len = u32::try_from(head.len()).map_err(|_| StoreError::Corrupt {
            game: String::new(),
            message: format!("outbox item {}: head too large", self.message_id),
        })?;
        let message = match self.part {
            Some(p) => {
                let (before, after) = self
                    .bytes
                    .get(..p.at)
                    .zip(
                        p.at.checked_add(p.len)
                            .and_then(|end| self.bytes.get(end..)),
                    )
                    .ok_or_else(|| StoreError::Corrupt {
                        game: String::new(),
                        message: format!(
                            "outbox item {}: its part lies outside it",
                            self.message_id
                        ),
                    })?;
                pack::pack(&[before, after].concat())?
            }
            None => pack::pack(&self.bytes)?,
        };
        let mut out = Vec::with_capacity(4 + head.len() + message.len());
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&head);
        out.extend_from_slice(&message);
        Ok(out)
    }

    /// Reads the stored form back, or the JSON of earlier versions; without
    /// its part, if it has one (see [`Store::with_part`]).
    fn decode(stored: &[u8]) -> Result<OutboxItem, String> {
        OutboxItem::unpacked(OutboxItem::split(stored)?)
    }

    /// The item of a split stored form ([`OutboxItem::split`]) with its
    /// message unpacked.
    fn unpacked((mut item, message): (OutboxItem, Option<&[u8]>)) -> Result<OutboxItem, String> {
        if let Some(message) = message {
            item.bytes = pack::unpack(message)
                .map_err(|e| e.to_string())?
                .into_owned();
        }
        Ok(item)
    }

    /// Reads the stored form's head only (`bytes` left empty, but for the
    /// JSON of earlier versions).
    fn decode_head(stored: &[u8]) -> Result<OutboxItem, String> {
        OutboxItem::split(stored).map(|(item, _)| item)
    }

    /// The item of the stored form, and its packed message (`None`: the
    /// JSON of earlier versions, whose message is in the item).
    fn split(stored: &[u8]) -> Result<(OutboxItem, Option<&[u8]>), String> {
        if stored.first() == Some(&b'{') {
            #[derive(Deserialize)]
            struct Json {
                #[serde(flatten)]
                item: OutboxItem,
                message: String,
            }
            let json: Json = serde_json::from_slice(stored).map_err(|e| e.to_string())?;
            let item = OutboxItem {
                bytes: json.message.into_bytes(),
                ..json.item
            };
            return Ok((item, None));
        }
        let (len, rest) = stored
            .split_first_chunk::<4>()
            .ok_or("outbox item shorter than its length")?;
        let len = u32::from_be_bytes(*len) as usize;
        if rest.len() < len {
            return Err("outbox item shorter than its head".to_string());
        }
        let (head, message) = rest.split_at(len);
        let item: OutboxItem = serde_json::from_slice(head).map_err(|e| e.to_string())?;
        Ok((item, Some(message)))
    }
}

/// A part as stored in `parts`: the number of outbox items that carry it
/// (4 bytes, big-endian; its top bit set: the bytes are in a file; the
/// next: the file holds what they encode as a base64 body), their keys (8
/// bytes each), then the CRC-32 of the part's file ([`part_files`]; 4
/// bytes, big-endian), or, as earlier versions stored it, the bytes
/// themselves.
fn part_value(items: &[u64], crc: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + 8 * items.len() + 4);
    let flags = PART_IN_FILE | PART_BASE64;
    out.extend_from_slice(&(items.len() as u32 | flags).to_be_bytes());
    for item in items {
        out.extend_from_slice(&item.to_be_bytes());
    }
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

/// The top bit of a stored part's count: its bytes are in a file.
const PART_IN_FILE: u32 = 1 << 31;

/// The next bit: the file holds what the bytes encode as a base64 body
/// (a picture's PNG, a quarter smaller than the mail's text of it).
const PART_BASE64: u32 = 1 << 30;

/// Where a stored part's bytes are.
enum PartBytes<'a> {
    /// In its file, with this CRC-32; `base64`: the file holds what they
    /// encode.
    File { crc: u32, base64: bool },
    /// In the entry, as earlier versions stored them.
    Inline(&'a [u8]),
}

/// The keys of the items that carry a stored part, and where its bytes are.
fn part_split(stored: &[u8]) -> Result<(Vec<u64>, PartBytes<'_>), String> {
    let (n, rest) = stored
        .split_first_chunk::<4>()
        .ok_or("outbox part shorter than its count")?;
    let n = u32::from_be_bytes(*n);
    let in_file = n & PART_IN_FILE != 0;
    let base64 = n & PART_BASE64 != 0;
    let n = (n & !(PART_IN_FILE | PART_BASE64)) as usize;
    let (keys, bytes) = rest
        .split_at_checked(n.saturating_mul(8))
        .ok_or("outbox part shorter than its keys")?;
    let items = keys
        .chunks_exact(8)
        .filter_map(|k| k.try_into().ok().map(u64::from_be_bytes))
        .collect();
    let bytes = if in_file {
        let crc: [u8; 4] = bytes
            .try_into()
            .map_err(|_| "outbox part without its file's checksum")?;
        PartBytes::File {
            crc: u32::from_be_bytes(crc),
            base64,
        }
    } else {
        PartBytes::Inline(bytes)
    };
    Ok((items, bytes))
}

/// A game created with its first bookkeeping.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// Its record.
    pub record: GameRecord,
    /// The state right after set-up, board included, as
    /// [`AnyGame::snapshot`] writes it: replays start here, so a later
    /// change to a board file never changes an existing game.
    pub initial: String,
    /// Its tokens and the like.
    pub meta: GameMeta,
}

/// A game's new log entries, state and bookkeeping.
#[derive(Clone, Debug)]
pub struct GameUpdate {
    /// The game.
    pub id: GameId,
    /// The snapshot's sequence number the update was computed on: the
    /// commit fails if the game has moved on since.
    pub base_seq: u64,
    /// New log entries (numbered from `base_seq + 1`).
    pub entries: Vec<LogEntry>,
    /// The state after them, as [`AnyGame::snapshot`] writes it.
    pub state: String,
    /// Its format ([`AnyGame::state_version`]).
    pub state_version: u32,
    /// The bookkeeping after them.
    pub meta: GameMeta,
    /// When the scheduler was due to look at the game before this update
    /// (its index entry to replace).
    pub old_fire: Option<DateTime<Utc>>,
    /// The game is over after the update (finished, or aborted by a
    /// moderator): its archive is due. Known where the update is made, so
    /// that nobody loads the game again to ask.
    pub over: bool,
}

/// Everything one event (a mail, a command) changes, committed at once.
#[derive(Clone, Debug, Default)]
pub struct Change {
    /// A game to create.
    pub new_game: Option<NewGame>,
    /// A game to update.
    pub update: Option<GameUpdate>,
    /// The receipt of the mail handled (its Message-ID).
    pub receipt: Option<(String, Receipt)>,
    /// Mails to send.
    pub outbox: Vec<OutMail>,
    /// A seat of this game changes hands: (old address, new address).
    pub readdress: Option<(String, String)>,
    /// The address index of the updated game: (address, true) adds the
    /// address (a player's confirmed second address), (address, false)
    /// takes it out (removed, and no seat plays from it any more).
    pub index: Vec<(String, bool)>,
    /// Help replies and alerts sent, by the address or key they are
    /// limited by, and when (rate limits).
    pub help_sent: Vec<(String, DateTime<Utc>)>,
    /// Counters of the hour (see [`Store::hourly_count`]) raised by one:
    /// (what, when).
    pub tally: Vec<(String, DateTime<Utc>)>,
    /// A game forming by mail to write, or (None) to forget: started,
    /// cancelled or expired. Its expiry goes into the scheduler's index.
    pub forming: Option<(GameId, Option<Forming>)>,
    /// What is known of these addresses, written whole.
    pub contacts: Vec<(String, Contact)>,
}

impl Change {
    /// Takes what `other` holds besides a game: its mails, contact
    /// records, address index entries, rate-limit times and counters (a
    /// player's `address add` beside their orders).
    pub fn absorb_bookkeeping(&mut self, other: &mut Change) {
        self.outbox.append(&mut other.outbox);
        self.contacts.append(&mut other.contacts);
        self.help_sent.append(&mut other.help_sent);
        self.index.append(&mut other.index);
        self.tally.append(&mut other.tally);
    }
}

/// The key of the counter of `what` in the hour of `at`.
fn tally_key(what: &str, at: DateTime<Utc>) -> Vec<u8> {
    format!("count:{what}:{}", at.format("%Y%m%d%H")).into_bytes()
}

/// Where a game's log ends: the last entry its snapshot includes, and that
/// entry's hash. Kept apart from the state (25 KB for Rocket) so that a
/// commit checks the game has not moved on, and goes on with the hash
/// chain, without reading the state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    /// The last log entry included (0: none).
    pub seq: u64,
    /// The hash of that entry (empty for none): the chain goes on from it.
    pub last_hash: String,
    /// The format of the snapshot (see [`Game::STATE_VERSION`]).
    ///
    /// [`Game::STATE_VERSION`]: engine::Game::STATE_VERSION
    #[serde(default = "first_state_version")]
    pub state_version: u32,
}

impl Default for Head {
    fn default() -> Self {
        Head {
            seq: 0,
            last_hash: String::new(),
            state_version: first_state_version(),
        }
    }
}

/// A game read from the store.
pub struct Loaded {
    /// Its record.
    pub record: GameRecord,
    /// The game, at the snapshot.
    pub game: Box<dyn AnyGame>,
    /// The snapshot's sequence number.
    pub seq: u64,
}

/// A line of a batch that was refused; nothing of the batch was applied.
#[derive(Debug, thiserror::Error)]
#[error("line {line_no}: {rejected}")]
pub struct BatchRejected {
    /// The line's number in the batch, from 1.
    pub line_no: usize,
    /// Why.
    pub rejected: OrderRejected,
}

/// What can go wrong with the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// sled failed: a full disk, files that cannot be read or written, or
    /// damaged files.
    #[error("{}", describe_sled(.0))]
    Db(sled::Error),
    /// No game has this id.
    #[error("there is no game `{0}`; `stationmaster games` lists them")]
    NoSuchGame(String),
    /// The game could not be set up or read back.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The database folder cannot be prepared for opening.
    #[error("the database folder {path}: {cause}")]
    Folder {
        /// The file or folder.
        path: String,
        /// What went wrong: said in the message, and so not its `source`.
        cause: std::io::Error,
    },
    /// Stored data cannot be read.
    #[error("stored data of game {game} cannot be read: {message}")]
    Corrupt {
        /// The game.
        game: String,
        /// What went wrong.
        message: String,
    },
    /// Stored data that belongs to no one game cannot be read.
    #[error("{what} in the database cannot be read: {message}")]
    Unreadable {
        /// What it is.
        what: String,
        /// What went wrong.
        message: String,
    },
    /// Someone else changed the game while this batch was checked.
    #[error("game {0} changed while the orders were being checked; send them again")]
    Conflict(String),
    /// An order of the batch was refused.
    #[error(transparent)]
    Rejected(#[from] BatchRejected),
    /// A state or a mail could not be packed for storage.
    #[error("a value could not be packed for storage: {0}")]
    Pack(#[from] pack::PackError),
    /// Another process has the database open (sled allows one).
    #[error("the database in {path} is open in another process{}", pid.map_or(String::new(), |p| format!(" (pid {p})")))]
    Locked {
        /// The database folder.
        path: String,
        /// The process holding it, where the system tells.
        pid: Option<u32>,
    },
}

impl Drop for Store {
    /// sled 0.34.7 flushes when its last handle goes, and after a failed
    /// write (a full disk) that flush waits for ever. So the store flushes
    /// first, as [`Store::flush`] does (with its limits); if that fails, or
    /// a write failed before, one handle is kept until the process ends
    /// instead: what was flushed is kept, the rest is lost whole, as after
    /// a crash, and the next start recovers.
    fn drop(&mut self) {
        if !self.broken.load(std::sync::atomic::Ordering::SeqCst) {
            let _ = self.flush();
        }
        if self.broken.load(std::sync::atomic::Ordering::SeqCst) {
            tracing::error!(
                "the database failed to write; it is left for the next start to recover"
            );
            std::mem::forget(self.db.clone());
        }
    }
}

impl Store {
    /// The trees of a transaction, in the order of [`tx`]'s places.
    fn transaction_trees(&self) -> [sled::Tree; 14] {
        [
            self.games.clone(),
            self.log.clone(),
            self.snapshots.clone(),
            self.meta.clone(),
            self.receipts.clone(),
            self.outbox.clone(),
            self.help.clone(),
            self.clock.clone(),
            self.players.clone(),
            self.initial.clone(),
            self.heads.clone(),
            self.counts.clone(),
            self.site.clone(),
            self.parts.clone(),
        ]
    }

    /// `result` of a sled call that writes; a failure to write marks the
    /// store broken.
    fn watch<T>(&self, result: Result<T, sled::Error>) -> Result<T, StoreError> {
        result.map_err(|e| {
            if matches!(e, sled::Error::Io(_) | sled::Error::ReportableBug(_)) {
                self.broken.store(true, std::sync::atomic::Ordering::SeqCst);
            }
            StoreError::Db(e)
        })
    }

    /// An error if a write failed before: the store takes no more writes
    /// (a new start recovers it).
    fn writable(&self) -> Result<(), StoreError> {
        if self.broken.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(StoreError::Db(sled::Error::Io(std::io::Error::other(
                "an earlier write failed; a new start recovers what was written",
            ))));
        }
        Ok(())
    }
}

impl From<sled::Error> for StoreError {
    fn from(e: sled::Error) -> Self {
        StoreError::Db(e)
    }
}

/// What a sled error means to the operator, in one sentence.
fn describe_sled(e: &sled::Error) -> String {
    match e {
        sled::Error::Io(io) if io.kind() == std::io::ErrorKind::StorageFull => {
            "the disk is full (no space left on the device of the database): nothing was \
             half applied; the mail not yet handled waits, and goes on once there is space"
                .to_string()
        }
        sled::Error::Io(io) => format!("the database cannot read or write its files: {io}"),
        sled::Error::Corruption { .. } => {
            "the database files are damaged (sled found corrupted data); restore a copy \
             of var/db, or import the last export"
                .to_string()
        }
        other => format!("the database failed: {other}"),
    }
}

/// The trees one transaction of ours may touch, by their place in
/// [`Store::transaction_trees`].
mod tx {
    pub const GAMES: usize = 0;
    pub const LOG: usize = 1;
    pub const SNAPSHOTS: usize = 2;
    pub const META: usize = 3;
    pub const RECEIPTS: usize = 4;
    pub const OUTBOX: usize = 5;
    pub const HELP: usize = 6;
    pub const CLOCK: usize = 7;
    pub const PLAYERS: usize = 8;
    pub const INITIAL: usize = 9;
    pub const HEADS: usize = 10;
    pub const COUNTS: usize = 11;
    pub const SITE: usize = 12;
    pub const PARTS: usize = 13;
}

/// The database.
pub struct Store {
    /// The database's folder.
    path: std::path::PathBuf,
    /// Set once sled failed to write (a full disk): after that its flushes
    /// wait for ever, so none is asked for again (see [`Store::watch`]).
    broken: std::sync::atomic::AtomicBool,
    db: sled::Db,
    games: sled::Tree,
    log: sled::Tree,
    initial: sled::Tree,
    snapshots: sled::Tree,
    heads: sled::Tree,
    meta: sled::Tree,
    receipts: sled::Tree,
    outbox: sled::Tree,
    help: sled::Tree,
    failures: sled::Tree,
    counts: sled::Tree,
    quarantine: sled::Tree,
    clock: sled::Tree,
    players: sled::Tree,
    site: sled::Tree,
    parts: sled::Tree,
    /// Parts whose entries were removed: their files go after the next
    /// flush ([`part_files`]).
    gone_parts: std::sync::Mutex<Vec<u64>>,
}

/// The layout of the trees that this code reads and writes (in `meta`
/// under [`FORMAT_KEY`]). Format 1 kept the initial state inside the game's
/// record, and the sequence number and last hash inside the snapshot;
/// [`Store::open`] moves a format 1 database to format 2.
const FORMAT: u64 = 2;
const FORMAT_KEY: &[u8] = b"format";

/// The longest a flush may take (see [`Store::flush`]): a healthy one
/// takes milliseconds.
pub const FLUSH_PATIENCE: std::time::Duration = std::time::Duration::from_secs(120);

/// sled's page cache: 8 MiB.
const CACHE_BYTES: u64 = 8 * 1024 * 1024;

/// sled itself, opened on `path` with the settings of [`Store::open`]
/// (compression as the database was made), for tests and tools that look
/// under the store; without the crash guards of [`recovery`]. A lock is
/// waited for up to [`OWN_LOCK_PATIENCE`], as [`Store::open`] waits for its
/// own (a child started meanwhile may hold it for a moment).
pub fn open_raw(path: impl AsRef<Path>) -> Result<sled::Db, sled::Error> {
    let started = std::time::Instant::now();
    loop {
        match open_sled(path.as_ref()) {
            Err(sled::Error::Io(io))
                if io.to_string().contains("could not acquire lock")
                    && started.elapsed() < OWN_LOCK_PATIENCE =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            opened => return opened,
        }
    }
}

/// Opens sled in `path`. sled's page cache defaults to 1 GiB; the daemon
/// reads a few games a cycle, so a small cache keeps it lean with many
/// games stored.
///
/// New databases are compressed (sled's `compression` feature, zstd): a
/// game's states are JSON that zstd shrinks six to seven times, and sled
/// writes every page whole again as it changes, so compression is what
/// keeps a stored game to a few KB (docs/performance.md, "3. Storage"). sled
/// records the choice in the database's `conf` file and refuses to open a
/// database with the other one, so a database made before keeps being
/// opened uncompressed. Weighed again with pictures in the mails
/// (2026-11-26): without compression a mail in cost some 13 % less CPU,
/// but 1,000 games with their welcome mails queued took 3.5 times the
/// disk (docs/performance.md as of 9fafdd2, "Where a mail's CPU
/// goes").
fn open_sled(path: &Path) -> Result<sled::Db, sled::Error> {
    sled::Config::new()
        .path(path)
        .cache_capacity(CACHE_BYTES)
        .use_compression(compressed(path))
        .compression_factor(COMPRESSION_LEVEL)
        .open()
}

/// zstd's level for sled's pages: 3 is zstd's default, and at 10 KB
/// states a higher level saves little more.
const COMPRESSION_LEVEL: i32 = 3;

/// Whether the database in `path` is (or, new, will be) compressed: what
/// its `conf` file says (`use_compression: true`), and yes when it has
/// none yet.
fn compressed(path: &Path) -> bool {
    // The file ends in a binary checksum: read it as bytes.
    match std::fs::read(path.join("conf")) {
        Ok(conf) => String::from_utf8_lossy(&conf).lines().any(|line| {
            line.split_once(':')
                .is_some_and(|(k, v)| k.trim() == "use_compression" && v.trim() == "true")
        }),
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    }
}

/// The address index key: the address, then the game.
fn player_key(address: &str, id: &GameId) -> Vec<u8> {
    let mut k = address.trim().to_ascii_lowercase().into_bytes();
    k.push(0);
    k.extend_from_slice(id.0.as_bytes());
    k
}

/// The scheduler's index key: when, then which game.
fn clock_key(at: DateTime<Utc>, id: &GameId) -> Vec<u8> {
    let secs = u64::try_from(at.timestamp()).unwrap_or(0);
    let mut k = secs.to_be_bytes().to_vec();
    k.extend_from_slice(id.0.as_bytes());
    k
}

fn meta_key(id: &GameId) -> Vec<u8> {
    format!("game:{}", id.0).into_bytes()
}

fn log_key(id: &GameId, seq: u64) -> Vec<u8> {
    let mut k = log_prefix(id);
    k.extend_from_slice(&seq.to_be_bytes());
    k
}

fn log_prefix(id: &GameId) -> Vec<u8> {
    let mut k = id.0.as_bytes().to_vec();
    k.push(0);
    k
}

/// A record as stored: JSON bytes.
fn ser<T: Serialize>(game: &str, value: &T) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(value).map_err(|e| StoreError::Corrupt {
        game: game.to_string(),
        message: e.to_string(),
    })
}

/// Why a transaction of ours gave up.
#[derive(Debug)]
enum Abort {
    /// The game moved on since the change was computed: try again.
    Moved,
    /// What the transaction must check cannot be read: trying again will
    /// not help.
    Unreadable(String),
}

/// A failed sled transaction: the storage's error, or an abort, which
/// means game `game` changed under it.
fn transaction_error(e: TransactionError<Abort>, game: &str) -> StoreError {
    match e {
        TransactionError::Storage(e) => StoreError::Db(e),
        TransactionError::Abort(Abort::Moved) => StoreError::Conflict(game.to_string()),
        TransactionError::Abort(Abort::Unreadable(message)) => StoreError::Corrupt {
            game: game.to_string(),
            message,
        },
    }
}

fn unreadable(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Unreadable {
        what: what.to_string(),
        message: e.to_string(),
    }
}

fn corrupt(id: &GameId, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt {
        game: id.0.clone(),
        message: e.to_string(),
    }
}

/// How long [`Store::open`] waits for a lock that no other process holds.
pub const OWN_LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

impl Store {
    /// Opens (or creates) the database in folder `path`.
    ///
    /// Before sled sees the folder, the traces of a crash that sled 0.34.7
    /// would refuse to open are cleared (see [`recovery`]): a database is
    /// never left unopenable by a crash of ours.
    ///
    /// A lock that no other process holds is waited for, up to
    /// [`OWN_LOCK_PATIENCE`]: this process's own, kept for a moment by a
    /// child it starts (between fork and exec the child shares the open
    /// files, and so sled's lock or the one [`recovery`] takes to look).
    /// A test binary that starts `stationmaster` while its other tests open
    /// databases meets it. Another process's lock is refused at once where
    /// the system names the holder (Linux), else after that wait.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let started = std::time::Instant::now();
        loop {
            match Store::open_once(path) {
                Err(StoreError::Locked { pid, .. })
                    if pid.is_none_or(|p| p == std::process::id())
                        && started.elapsed() < OWN_LOCK_PATIENCE =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                opened => return opened,
            }
        }
    }

    fn open_once(path: &Path) -> Result<Store, StoreError> {
        recovery::prepare(path)?;
        let db = open_sled(path).map_err(|e| match e {
            // Taken between our own look at the lock and sled's.
            sled::Error::Io(io) if io.to_string().contains("could not acquire lock") => {
                recovery::locked(path)
            }
            e => StoreError::Db(e),
        })?;
        let store = Store {
            path: path.to_path_buf(),
            broken: std::sync::atomic::AtomicBool::new(false),
            players: db.open_tree("players")?,
            games: db.open_tree("games")?,
            log: db.open_tree("log")?,
            initial: db.open_tree("initial")?,
            snapshots: db.open_tree("snapshots")?,
            heads: db.open_tree("heads")?,
            meta: db.open_tree("meta")?,
            receipts: db.open_tree("receipts")?,
            outbox: db.open_tree("outbox")?,
            help: db.open_tree("help")?,
            counts: db.open_tree("counts")?,
            failures: db.open_tree("failures")?,
            quarantine: db.open_tree("quarantine")?,
            clock: db.open_tree("clock")?,
            site: db.open_tree("site")?,
            parts: db.open_tree("parts")?,
            gone_parts: std::sync::Mutex::new(Vec::new()),
            db,
        };
        store.upgrade()?;
        store.sweep_parts()?;
        Ok(store)
    }

    /// Brings a database written by an older Stationmaster to [`FORMAT`],
    /// one game per transaction, so a crash in between leaves every game
    /// either as it was or done (and a game that is done is not touched
    /// again).
    fn upgrade(&self) -> Result<(), StoreError> {
        let format = self
            .meta
            .get(FORMAT_KEY)?
            .and_then(|b| b.as_ref().try_into().ok())
            .map(u64::from_be_bytes)
            .unwrap_or(1);
        if format >= FORMAT {
            return Ok(());
        }
        /// A format 1 snapshot.
        #[derive(Deserialize)]
        struct SnapshotV1 {
            seq: u64,
            state: serde_json::Value,
            #[serde(default)]
            last_hash: String,
        }
        for item in self.games.iter() {
            let (key, bytes) = item?;
            if self.heads.contains_key(&key)? {
                continue;
            }
            let id = GameId(String::from_utf8_lossy(&key).into_owned());
            let mut record: serde_json::Map<String, serde_json::Value> =
                serde_json::from_slice(&bytes).map_err(|e| corrupt(&id, e))?;
            let initial = record
                .remove("initial")
                .ok_or_else(|| corrupt(&id, "format 1 record without its initial state"))?;
            let old: SnapshotV1 = match self.snapshots.get(&key)? {
                Some(b) => serde_json::from_slice(&b).map_err(|e| corrupt(&id, e))?,
                None => return Err(corrupt(&id, "no snapshot")),
            };
            let label = id.0.as_str();
            let record = ser(label, &record)?;
            let initial = pack::pack(&ser(label, &initial)?)?;
            let state = pack::pack(&ser(label, &old.state)?)?;
            let head = ser(
                label,
                &Head {
                    seq: old.seq,
                    last_hash: old.last_hash,
                    state_version: first_state_version(),
                },
            )?;
            (&self.games, &self.initial, &self.snapshots, &self.heads)
                .transaction(|(games, initial_tree, snapshots, heads)| {
                    games.insert(&*key, record.as_slice())?;
                    initial_tree.insert(&*key, initial.as_slice())?;
                    snapshots.insert(&*key, state.as_slice())?;
                    heads.insert(&*key, head.as_slice())?;
                    Ok::<(), ConflictableTransactionError<Abort>>(())
                })
                .map_err(|e| transaction_error(e, &id.0))?;
        }
        self.meta.insert(FORMAT_KEY, &FORMAT.to_be_bytes())?;
        self.db.flush()?;
        Ok(())
    }

    /// Takes the next game id for `kind` (`KIND-N`); a number is never
    /// handed out twice, even if the game is then not created.
    pub fn next_id(&self, kind: &str) -> Result<GameId, StoreError> {
        let counter = format!("next:{kind}");
        let n = self
            .meta
            .update_and_fetch(counter.as_bytes(), |old| {
                let next = old
                    .and_then(|b| b.try_into().ok())
                    .map(u64::from_be_bytes)
                    .unwrap_or(0)
                    + 1;
                Some(next.to_be_bytes().to_vec())
            })?
            .and_then(|b| b.as_ref().try_into().ok())
            .map(u64::from_be_bytes)
            .unwrap_or(1);
        Ok(GameId(format!("{kind}-{n}")))
    }

    /// Sets up a game under a fresh id: its record and the game at its
    /// start, ready to be committed in a [`Change`] with its welcome mails.
    pub fn prepare(
        &self,
        setup: &Setup,
        boards: &BoardSource,
        now: DateTime<Utc>,
    ) -> Result<(GameRecord, Box<dyn AnyGame>), StoreError> {
        self.prepare_as(setup, boards, now, None)
    }

    /// [`Store::prepare`] under id `id` if given (one taken before with
    /// [`Store::next_id`], for a game formed by mail), else a fresh one.
    pub fn prepare_as(
        &self,
        setup: &Setup,
        boards: &BoardSource,
        now: DateTime<Utc>,
        id: Option<GameId>,
    ) -> Result<(GameRecord, Box<dyn AnyGame>), StoreError> {
        let game = registry::new_game(setup, boards)?;
        let id = match id {
            Some(id) => id,
            None => self.next_id(game.kind())?,
        };
        let record = GameRecord {
            id,
            setup: setup.clone(),
            created: now,
            state_version: game.state_version(),
        };
        Ok((record, game))
    }

    /// Creates a game with no tokens and no mail, and returns its id.
    pub fn create(
        &self,
        setup: &Setup,
        boards: &BoardSource,
        now: DateTime<Utc>,
    ) -> Result<GameId, StoreError> {
        let (record, game) = self.prepare(setup, boards, now)?;
        let id = record.id.clone();
        let n = setup.players.len();
        let meta = GameMeta {
            tokens: vec![String::new(); n],
            queued: vec![Held::default(); n],
            reported: vec![0; n],
            ..GameMeta::default()
        };
        self.commit(&Change {
            new_game: Some(NewGame {
                record,
                initial: game.snapshot()?,
                meta,
            }),
            ..Change::default()
        })?;
        Ok(id)
    }

    /// The game's private bookkeeping.
    pub fn meta(&self, id: &GameId) -> Result<GameMeta, StoreError> {
        match self.meta.get(meta_key(id))? {
            Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| corrupt(id, e)),
            None => Err(StoreError::NoSuchGame(id.0.clone())),
        }
    }

    /// The receipt of a mail, if it was handled.
    ///
    /// A receipt that cannot be read is an error, never "not handled": the
    /// mail is then left alone rather than applied a second time.
    pub fn receipt(&self, message_id: &str) -> Result<Option<Receipt>, StoreError> {
        match self.receipts.get(message_id.as_bytes())? {
            Some(b) => serde_json::from_slice(&b)
                .map(Some)
                .map_err(|e| unreadable(&format!("the receipt of mail <{message_id}>"), e)),
            None => Ok(None),
        }
    }

    /// Records that the mail with transport handle `handle` could not be
    /// handled (why), and returns how many times that has happened.
    pub fn mail_failed(
        &self,
        handle: &str,
        why: &str,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError> {
        let what = format!("the failures of mail {handle}");
        let mut failure = match self.failures.get(handle.as_bytes())? {
            Some(b) => serde_json::from_slice(&b).map_err(|e| unreadable(&what, e))?,
            None => MailFailure {
                tries: 0,
                why: String::new(),
                first: now,
            },
        };
        failure.tries += 1;
        failure.why = why.to_string();
        self.failures
            .insert(handle.as_bytes(), ser(&what, &failure)?)?;
        Ok(failure.tries)
    }

    /// Forgets the failures of a mail that has now been handled.
    pub fn mail_handled(&self, handle: &str) -> Result<(), StoreError> {
        if self.failures.contains_key(handle.as_bytes())? {
            self.failures.remove(handle.as_bytes())?;
        }
        Ok(())
    }

    /// Records a mail put in quarantine, under its `key` (see
    /// [`Quarantined::key`]), and forgets its failures.
    pub fn mail_quarantined(&self, handle: &str, q: &Quarantined) -> Result<(), StoreError> {
        self.quarantine
            .insert(q.key.as_bytes(), ser("the quarantine", q)?)?;
        self.failures.remove(handle.as_bytes())?;
        self.flush()
    }

    /// The record of a quarantined mail, by its key.
    pub fn quarantine_record(&self, key: &str) -> Result<Option<Quarantined>, StoreError> {
        match self.quarantine.get(key.as_bytes())? {
            Some(b) => serde_json::from_slice(&b)
                .map(Some)
                .map_err(|e| unreadable(&format!("the quarantine record {key}"), e)),
            None => Ok(None),
        }
    }

    /// Forgets the record of a quarantined mail that goes back to the inbox.
    pub fn quarantine_released(&self, key: &str) -> Result<(), StoreError> {
        self.quarantine.remove(key.as_bytes())?;
        self.flush()
    }

    /// How many `what` (help replies, alerts) were sent in the hour of
    /// `now` (counted by [`Change::tally`]).
    pub fn hourly_count(&self, what: &str, now: DateTime<Utc>) -> Result<u64, StoreError> {
        Ok(self
            .counts
            .get(tally_key(what, now))?
            .and_then(|b| b.as_ref().try_into().ok())
            .map(u64::from_be_bytes)
            .unwrap_or(0))
    }

    /// When the last help reply went to `address`.
    pub fn help_sent(&self, address: &str) -> Result<Option<DateTime<Utc>>, StoreError> {
        match self.help.get(address.as_bytes())? {
            Some(b) => serde_json::from_slice(&b)
                .map(Some)
                .map_err(|e| unreadable(&format!("the last help reply to {address}"), e)),
            None => Ok(None),
        }
    }

    /// Commits a [`Change`] in one transaction, all of it or nothing, and
    /// makes it durable.
    pub fn commit(&self, change: &Change) -> Result<(), StoreError> {
        self.commit_unflushed(change)?;
        self.flush()
    }

    /// Makes every commit so far durable (one fsync).
    ///
    /// sled 0.34.7 loses a write that runs out of space while it writes a
    /// large page beside its log (`blobs/`), and then waits for it for
    /// ever. So sled flushes on a thread of its own, and when it has not
    /// finished in a second and there is no room left to write, or in
    /// [`FLUSH_PATIENCE`] at all, the flush fails and the store counts as
    /// broken: the process ends, and the next start recovers what was
    /// flushed (a crash's guarantees).
    ///
    /// The files of the parts removed before it began go once it has made
    /// their removal durable (`part_files.rs`).
    pub fn flush(&self) -> Result<(), StoreError> {
        let gone = std::mem::take(&mut *self.lock_gone_parts());
        let flushed = self.flush_sled();
        match &flushed {
            Ok(()) => part_files::remove(&self.path, &gone),
            // Kept for the next flush (or, after a crash, the sweep).
            Err(_) => self.lock_gone_parts().extend(gone),
        }
        flushed
    }

    /// sled's flush, on a thread of its own (see [`Store::flush`]).
    fn flush_sled(&self) -> Result<(), StoreError> {
        use std::sync::mpsc::RecvTimeoutError;
        self.writable()?;
        let db = self.db.clone();
        let (done, finished) = std::sync::mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("flush".to_string())
            .spawn(move || {
                let _ = done.send(db.flush());
            })
            .map_err(|e| StoreError::Db(sled::Error::Io(e)))?;
        let started = std::time::Instant::now();
        loop {
            let stuck = match finished.recv_timeout(std::time::Duration::from_secs(1)) {
                Ok(flushed) => return self.watch(flushed).map(|_| ()),
                Err(RecvTimeoutError::Disconnected) => {
                    std::io::Error::other("the database's flush ended without an answer")
                }
                // The other thread's flush found the store broken.
                Err(RecvTimeoutError::Timeout) if self.writable().is_err() => {
                    std::io::Error::other("an earlier write failed")
                }
                Err(RecvTimeoutError::Timeout) if started.elapsed() >= FLUSH_PATIENCE => {
                    std::io::Error::other(format!(
                        "a write did not finish in {} s",
                        FLUSH_PATIENCE.as_secs()
                    ))
                }
                Err(RecvTimeoutError::Timeout) if !recovery::room_to_write(&self.path) => {
                    std::io::Error::from(std::io::ErrorKind::StorageFull)
                }
                Err(RecvTimeoutError::Timeout) => continue,
            };
            return self.watch(Err(sled::Error::Io(stuck)));
        }
    }

    /// Commits a [`Change`] in one transaction, all of it or nothing, but
    /// durable only after the next [`Store::flush`]: the daemon commits a
    /// cycle's mails this way and flushes before it sends their replies or
    /// marks any mail done. A crash before the flush loses whole changes
    /// (never part of one), and their mails, not marked done, come back.
    /// Returns the change's outbox items with their keys, in order.
    pub fn commit_unflushed(&self, change: &Change) -> Result<Vec<(u64, OutboxItem)>, StoreError> {
        self.writable()?;
        let label = change
            .update
            .as_ref()
            .map(|u| u.id.0.clone())
            .or_else(|| change.new_game.as_ref().map(|n| n.record.id.0.clone()))
            .unwrap_or_default();
        let mut writes: Vec<(usize, Vec<u8>, Vec<u8>)> = Vec::new();
        use tx::*;
        let mut removes: Vec<(usize, Vec<u8>)> = Vec::new();
        if let Some(n) = &change.new_game {
            let id = &n.record.id;
            let key = id.0.clone().into_bytes();
            writes.push((GAMES, key.clone(), ser(&label, &n.record)?));
            let initial = pack::pack(n.initial.as_bytes())?;
            writes.push((INITIAL, key.clone(), initial.clone()));
            writes.push((SNAPSHOTS, key.clone(), initial));
            let head = Head {
                state_version: n.record.state_version,
                ..Head::default()
            };
            writes.push((HEADS, key, ser(&label, &head)?));
            writes.push((META, meta_key(id), ser(&label, &n.meta)?));
            for p in &n.record.setup.players {
                writes.push((PLAYERS, player_key(&p.email, id), Vec::new()));
            }
            if let Some(at) = n.meta.clock.next_fire {
                writes.push((CLOCK, clock_key(at, id), Vec::new()));
            }
        }
        let mut guard: Option<(Vec<u8>, u64)> = None;
        if let Some(u) = &change.update {
            // The chain goes on from the last entry's hash (the guard below
            // makes sure nobody wrote in between).
            let mut prev = self.head(&u.id)?.last_hash;
            for e in &u.entries {
                let mut e = e.clone();
                e.prev = prev.clone();
                e.hash = e.chain_hash(&prev);
                prev = e.hash.clone();
                writes.push((LOG, log_key(&u.id, e.seq), ser(&label, &e)?));
            }
            let head = Head {
                seq: u.base_seq + u.entries.len() as u64,
                last_hash: prev,
                state_version: u.state_version,
            };
            let key = u.id.0.clone().into_bytes();
            writes.push((SNAPSHOTS, key.clone(), pack::pack(u.state.as_bytes())?));
            writes.push((HEADS, key, ser(&label, &head)?));
            writes.push((META, meta_key(&u.id), ser(&label, &u.meta)?));
            if let Some(at) = u.old_fire {
                removes.push((CLOCK, clock_key(at, &u.id)));
            }
            if let Some(at) = u.meta.clock.next_fire {
                writes.push((CLOCK, clock_key(at, &u.id), Vec::new()));
            }
            guard = Some((u.id.0.clone().into_bytes(), u.base_seq));
            if let Some((old, new)) = &change.readdress {
                removes.push((PLAYERS, player_key(old, &u.id)));
                writes.push((PLAYERS, player_key(new, &u.id), Vec::new()));
            }
            for (address, plays) in &change.index {
                if *plays {
                    writes.push((PLAYERS, player_key(address, &u.id), Vec::new()));
                } else {
                    removes.push((PLAYERS, player_key(address, &u.id)));
                }
            }
        }
        if let Some((mid, r)) = &change.receipt {
            writes.push((RECEIPTS, mid.clone().into_bytes(), ser(&label, r)?));
        }
        let mut outgoing = Vec::with_capacity(change.outbox.len());
        // What several of the change's mails share (a report's picture) is
        // kept once: its key, the items that carry it, and the bytes.
        let mut parts: Vec<(u64, Vec<u64>, &mail::Shared)> = Vec::new();
        for mail in &change.outbox {
            // Due at once: the first try happens in the same cycle.
            let mut item = OutboxItem::new(mail, DateTime::<Utc>::MIN_UTC);
            let key = self.db.generate_id()?;
            let shared = mail.shared.as_ref().filter(|s| {
                let carried = mail
                    .bytes
                    .get(s.at()..)
                    .and_then(|b| b.get(..s.bytes().len()));
                carried == Some(s.bytes().as_slice())
                    && change
                        .outbox
                        .iter()
                        .filter(|m| {
                            m.shared
                                .as_ref()
                                .is_some_and(|o| Arc::ptr_eq(o.bytes(), s.bytes()))
                        })
                        .count()
                        > 1
            });
            if let Some(s) = shared {
                let at = match parts
                    .iter()
                    .position(|(_, _, p)| Arc::ptr_eq(p.bytes(), s.bytes()))
                {
                    Some(at) => at,
                    None => {
                        parts.push((self.db.generate_id()?, Vec::new(), s));
                        parts.len() - 1
                    }
                };
                parts[at].1.push(key);
                item.part = Some(PartRef {
                    key: parts[at].0,
                    at: s.at(),
                    len: s.bytes().len(),
                });
            }
            writes.push((OUTBOX, key.to_be_bytes().to_vec(), item.encode()?));
            outgoing.push((key, item));
        }
        for (addr, at) in &change.help_sent {
            writes.push((HELP, addr.clone().into_bytes(), ser(&label, at)?));
        }
        if let Some((id, forming)) = &change.forming {
            if let Some(old) = self.forming(id)? {
                removes.push((CLOCK, clock_key(old.expires, id)));
            }
            match forming {
                Some(f) => {
                    writes.push((SITE, site::forming_key(id), ser(&id.0, f)?));
                    writes.push((CLOCK, clock_key(f.expires, id), Vec::new()));
                }
                None => removes.push((SITE, site::forming_key(id))),
            }
        }
        for (address, contact) in &change.contacts {
            writes.push((SITE, site::contact_key(address), ser(&label, contact)?));
        }
        // The parts' files last before the transaction (nothing in between
        // may fail and leave them behind), synced: sled may make the
        // transaction durable at any moment after it ([`part_files`]).
        // A picture is kept as its PNG, a quarter smaller than its base64.
        let files: Vec<(u64, &[u8])> = parts
            .iter()
            .map(|(key, _, shared)| (*key, shared.decoded().as_slice()))
            .collect();
        let crcs = part_files::write(&self.path, &files).map_err(|e| StoreError::Db(e.into()))?;
        let written: Vec<u64> = files.iter().map(|(key, _)| *key).collect();
        for ((key, items, _), crc) in parts.iter().zip(crcs) {
            writes.push((PARTS, key.to_be_bytes().to_vec(), part_value(items, crc)));
        }
        let trees = self.transaction_trees();
        trees[..]
            .transaction(|t| {
                if let Some((key, base)) = &guard {
                    // Only on top of the snapshot the change was computed on.
                    let current = match t[HEADS].get(key.as_slice())? {
                        Some(b) => {
                            serde_json::from_slice::<Head>(&b)
                                .map_err(|e| {
                                    ConflictableTransactionError::Abort(Abort::Unreadable(format!(
                                        "its head: {e}"
                                    )))
                                })?
                                .seq
                        }
                        None => {
                            return Err(ConflictableTransactionError::Abort(Abort::Unreadable(
                                "its head is missing".to_string(),
                            )));
                        }
                    };
                    if current != *base {
                        return Err(ConflictableTransactionError::Abort(Abort::Moved));
                    }
                }
                for (tree, k) in &removes {
                    t[*tree].remove(k.as_slice())?;
                }
                for (tree, k, v) in &writes {
                    t[*tree].insert(k.as_slice(), v.as_slice())?;
                }
                for (what, at) in &change.tally {
                    let key = tally_key(what, *at);
                    let n = t[COUNTS]
                        .get(key.as_slice())?
                        .and_then(|b| b.as_ref().try_into().ok())
                        .map(u64::from_be_bytes)
                        .unwrap_or(0);
                    t[COUNTS].insert(key.as_slice(), &(n + 1).to_be_bytes())?;
                }
                Ok(())
            })
            .map_err(|e| match e {
                // Whether it was written is not known: the files stay, for
                // the next start's sweep if it was not.
                TransactionError::Storage(e) => self.watch::<()>(Err(e)).unwrap_err(),
                e => {
                    part_files::remove(&self.path, &written);
                    transaction_error(e, &label)
                }
            })?;
        Ok(outgoing)
    }

    /// Game `id` if it is forming by mail (made, not yet started).
    pub fn forming(&self, id: &GameId) -> Result<Option<Forming>, StoreError> {
        match self.site.get(site::forming_key(id))? {
            Some(b) => serde_json::from_slice(&b)
                .map(Some)
                .map_err(|e| corrupt(id, e)),
            None => Ok(None),
        }
    }

    /// Every game forming by mail, oldest id first per kind.
    pub fn all_forming(&self) -> Result<Vec<Forming>, StoreError> {
        let mut out: Vec<Forming> = Vec::new();
        for item in self.site.scan_prefix(site::FORMING_PREFIX) {
            let (k, v) = item?;
            let id = GameId(String::from_utf8_lossy(&k[site::FORMING_PREFIX.len()..]).into_owned());
            out.push(serde_json::from_slice(&v).map_err(|e| corrupt(&id, e))?);
        }
        out.sort_by_key(|f| {
            let (kind, n) = f.id.0.rsplit_once('-').unwrap_or((&f.id.0, "0"));
            (kind.to_string(), n.parse::<u64>().unwrap_or(0))
        });
        Ok(out)
    }

    /// What is known of `address` (nothing: the default).
    pub fn contact(&self, address: &str) -> Result<Contact, StoreError> {
        match self.site.get(site::contact_key(address))? {
            Some(b) => serde_json::from_slice(&b)
                .map_err(|e| unreadable(&format!("what is known of {address}"), e)),
            None => Ok(Contact::default()),
        }
    }

    /// The games in which `address` plays, from the address index.
    pub fn games_of(&self, address: &str) -> Result<Vec<GameId>, StoreError> {
        let mut prefix = address.trim().to_ascii_lowercase().into_bytes();
        prefix.push(0);
        let mut out = Vec::new();
        for item in self.players.scan_prefix(&prefix) {
            let (k, _) = item?;
            out.push(GameId(
                String::from_utf8_lossy(&k[prefix.len()..]).into_owned(),
            ));
        }
        out.sort_by_key(|id| {
            let (kind, n) = id.0.rsplit_once('-').unwrap_or((&id.0, "0"));
            (kind.to_string(), n.parse::<u64>().unwrap_or(0))
        });
        Ok(out)
    }

    /// Every address of the player (or players) who write from `address`:
    /// itself, then, in each game where it plays, every address of its
    /// seats there (the seat's own and those confirmed with `address
    /// add`). The limits that count per address count per player with it.
    pub fn aliases(&self, address: &str) -> Result<Vec<String>, StoreError> {
        let address = address.trim().to_ascii_lowercase();
        let mut out = vec![address.clone()];
        for id in self.games_of(&address)? {
            let (record, meta) = (self.record(&id)?, self.meta(&id)?);
            for seat in meta.seats_from(&record, &address) {
                for a in meta.addresses_of(&record, seat) {
                    if !out.contains(&a) {
                        out.push(a);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Games the scheduler must look at by `now`: a range scan of the index,
    /// no per-game work.
    pub fn due_games(&self, now: DateTime<Utc>) -> Result<Vec<GameId>, StoreError> {
        let end = (u64::try_from(now.timestamp()).unwrap_or(0) + 1).to_be_bytes();
        let mut out: Vec<GameId> = Vec::new();
        for item in self.clock.range(..end.to_vec()) {
            let (k, _) = item?;
            let id = GameId(String::from_utf8_lossy(&k[8..]).into_owned());
            if !out.contains(&id) {
                out.push(id);
            }
        }
        Ok(out)
    }

    /// At most `limit` mails in the outbox due at `now`, oldest first, with
    /// their keys, from the key after `after` on (from the start if
    /// `None`). The outbox is read in such batches, so a long queue is
    /// never held in memory whole: pass the last key of one batch as
    /// `after` of the next; an empty batch means nothing more is due.
    pub fn outbox_due(
        &self,
        now: DateTime<Utc>,
        after: Option<u64>,
        limit: usize,
    ) -> Result<Vec<(u64, OutboxItem)>, StoreError> {
        let mut out = Vec::new();
        let items = match after {
            Some(key) => self.outbox.range((
                std::ops::Bound::Excluded(key.to_be_bytes().to_vec()),
                std::ops::Bound::Unbounded,
            )),
            None => self.outbox.iter(),
        };
        for item in items {
            if out.len() >= limit {
                break;
            }
            let (k, v) = item?;
            let key = k.as_ref().try_into().map(u64::from_be_bytes).unwrap_or(0);
            // Its head says whether it is due; only then is it read whole.
            let read = match OutboxItem::split(&v) {
                Ok((head, _)) if head.next_try > now => continue,
                split => split
                    .and_then(OutboxItem::unpacked)
                    .and_then(|item| self.with_part(item)),
            };
            match read {
                Ok(item) => out.push((key, item)),
                Err(e) => tracing::error!(key, error = %e, "outbox item unreadable; left alone"),
            }
        }
        Ok(out)
    }

    /// Number of mails in the outbox.
    pub fn outbox_len(&self) -> usize {
        self.outbox.len()
    }

    /// A mail was sent: it leaves the outbox, durably at the next
    /// [`Store::flush`] (until then a crash sends it again).
    pub fn outbox_sent(&self, key: u64) -> Result<(), StoreError> {
        self.writable()?;
        self.outbox_remove(key)
    }

    /// Removes an outbox item, and its part with the last item that carries
    /// it.
    fn outbox_remove(&self, key: u64) -> Result<(), StoreError> {
        let Some(stored) = self.watch(self.outbox.remove(key.to_be_bytes()))? else {
            return Ok(());
        };
        let Ok(Some(part)) = OutboxItem::decode_head(&stored).map(|item| item.part) else {
            return Ok(());
        };
        // Each remover looks after removing its own item, so of two at once
        // at least one sees the other's gone. A crash in between leaves the
        // part alone, for the next start's sweep.
        match self.parts.get(part.key.to_be_bytes())? {
            Some(stored) => self.drop_part_if_unused(part.key, &stored),
            None => Ok(()),
        }
    }

    /// Removes part `key`, stored as `stored`, if no outbox item carries it
    /// any more.
    fn drop_part_if_unused(&self, key: u64, stored: &[u8]) -> Result<(), StoreError> {
        let items = match part_split(stored) {
            Ok((items, _)) => items,
            Err(e) => {
                // Kept, as its items are (for whoever mends the database).
                tracing::error!(key, error = %e, "outbox part unreadable; left alone");
                return Ok(());
            }
        };
        for item in items {
            if self.outbox.contains_key(item.to_be_bytes())? {
                return Ok(());
            }
        }
        if self.watch(self.parts.remove(key.to_be_bytes()))?.is_some() {
            self.lock_gone_parts().push(key);
        }
        Ok(())
    }

    /// The parts whose files go after the next flush.
    fn lock_gone_parts(&self) -> std::sync::MutexGuard<'_, Vec<u64>> {
        // A panic elsewhere while holding it leaves a list still good.
        self.gone_parts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Removes the parts that no outbox item carries (left by a crash
    /// between an item's removal and its part's), then the parts' files
    /// that no entry stands for (left by a crash: see [`part_files`]).
    fn sweep_parts(&self) -> Result<(), StoreError> {
        for entry in self.parts.iter() {
            let (key, stored) = entry?;
            if let Ok(key) = key.as_ref().try_into().map(u64::from_be_bytes) {
                self.drop_part_if_unused(key, &stored)?;
            }
        }
        if !self.lock_gone_parts().is_empty() {
            self.flush()?;
        }
        part_files::sweep(&self.path, |key| {
            Ok(self.parts.contains_key(key.to_be_bytes())?)
        })?;
        Ok(())
    }

    /// `item` with its part, if it has one, put back in its place.
    fn with_part(&self, mut item: OutboxItem) -> Result<OutboxItem, String> {
        if let Some(p) = item.part {
            let part = self
                .parts
                .get(p.key.to_be_bytes())
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("its part {} is missing", p.key))?;
            let file;
            let bytes = match part_split(&part)?.1 {
                PartBytes::File { crc, base64 } => {
                    let stored = part_files::read(&self.path, p.key, crc)?;
                    file = if base64 {
                        mail::compose::base64_body(&stored)
                    } else {
                        stored
                    };
                    file.as_slice()
                }
                PartBytes::Inline(bytes) => bytes,
            };
            if bytes.len() != p.len || p.at > item.bytes.len() {
                return Err(format!(
                    "its part {} ({} bytes) does not fit it (at {} of {}, {} bytes expected)",
                    p.key,
                    bytes.len(),
                    p.at,
                    item.bytes.len(),
                    p.len
                ));
            }
            // Built anew rather than `Vec::splice`, which fills the gap a
            // byte at a time: 104 µs for a picture of 70 KB against 2 µs
            // (docs/performance.md as of 9fafdd2, "What the targets ask
            // of this machine").
            let mut whole = Vec::with_capacity(item.bytes.len() + bytes.len());
            whole.extend_from_slice(&item.bytes[..p.at]);
            whole.extend_from_slice(bytes);
            whole.extend_from_slice(&item.bytes[p.at..]);
            item.bytes = whole;
        }
        Ok(item)
    }

    /// A mail failed: record it for a later try, or drop it for good.
    pub fn outbox_retry(&self, key: u64, item: Option<&OutboxItem>) -> Result<(), StoreError> {
        self.writable()?;
        match item {
            Some(item) => {
                self.outbox.insert(key.to_be_bytes(), item.encode()?)?;
            }
            None => self.outbox_remove(key)?,
        }
        Ok(())
    }

    /// The site's moderators (`[site] moderators`, as the config gave
    /// them) that every game had a key for when last looked at
    /// ([`Store::set_site_moderators_keyed`]).
    pub fn site_moderators_keyed(&self) -> Result<Vec<String>, StoreError> {
        match self.site.get(site::KEYED_MODERATORS)? {
            Some(b) => serde_json::from_slice(&b)
                .map_err(|e| unreadable("the site's moderators with keys", e)),
            None => Ok(Vec::new()),
        }
    }

    /// Notes that every game has a key for each of `moderators`; made
    /// durable with the next flush (a crash before it only means the
    /// games are looked at again).
    pub fn set_site_moderators_keyed(&self, moderators: &[String]) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(moderators)
            .map_err(|e| unreadable("the site's moderators with keys", e))?;
        self.site.insert(site::KEYED_MODERATORS, bytes)?;
        Ok(())
    }

    /// Every game's id, in creation order per kind.
    pub fn ids(&self) -> Result<Vec<GameId>, StoreError> {
        let mut ids = Vec::new();
        for item in self.games.iter() {
            let (k, _) = item?;
            ids.push(GameId(String::from_utf8_lossy(&k).into_owned()));
        }
        // rocket-2 before rocket-10.
        ids.sort_by_key(|id| {
            let (kind, n) = id.0.rsplit_once('-').unwrap_or((&id.0, "0"));
            (kind.to_string(), n.parse::<u64>().unwrap_or(0))
        });
        Ok(ids)
    }

    /// The record of game `id`.
    pub fn record(&self, id: &GameId) -> Result<GameRecord, StoreError> {
        let bytes = self
            .games
            .get(id.0.as_bytes())?
            .ok_or_else(|| StoreError::NoSuchGame(id.0.clone()))?;
        serde_json::from_slice(&bytes).map_err(|e| corrupt(id, e))
    }

    /// Where game `id`'s log ends.
    pub fn head(&self, id: &GameId) -> Result<Head, StoreError> {
        let bytes = self
            .heads
            .get(id.0.as_bytes())?
            .ok_or_else(|| StoreError::NoSuchGame(id.0.clone()))?;
        serde_json::from_slice(&bytes).map_err(|e| corrupt(id, e))
    }

    /// Game `id` at its snapshot.
    pub fn load(&self, id: &GameId) -> Result<Loaded, StoreError> {
        let record = self.record(id)?;
        let head = self.head(id)?;
        let state = self.state(&self.snapshots, id, "snapshot")?;
        let game = registry::from_snapshot(&record.setup.kind, head.state_version, &state)?;
        Ok(Loaded {
            record,
            game,
            seq: head.seq,
        })
    }

    /// A stored state (a snapshot, or the initial state) as JSON text.
    fn state(&self, tree: &sled::Tree, id: &GameId, what: &str) -> Result<String, StoreError> {
        let bytes = tree
            .get(id.0.as_bytes())?
            .ok_or_else(|| corrupt(id, format!("no {what}")))?;
        let state = pack::unpack(&bytes).map_err(|e| corrupt(id, format!("{what}: {e}")))?;
        String::from_utf8(state.into_owned()).map_err(|e| corrupt(id, format!("{what}: {e}")))
    }

    /// The game's log, oldest first.
    pub fn log(&self, id: &GameId) -> Result<Vec<LogEntry>, StoreError> {
        self.record(id)?;
        let mut out = Vec::new();
        for item in self.log.scan_prefix(log_prefix(id)) {
            let (_, v) = item?;
            out.push(serde_json::from_slice(&v).map_err(|e| corrupt(id, e))?);
        }
        Ok(out)
    }

    /// The game's log entries after `after` (a sequence number), oldest first.
    pub fn log_since(&self, id: &GameId, after: u64) -> Result<Vec<LogEntry>, StoreError> {
        let mut out = Vec::new();
        for item in self
            .log
            .range(log_key(id, after + 1)..log_key(id, u64::MAX))
        {
            let (_, v) = item?;
            out.push(serde_json::from_slice(&v).map_err(|e| corrupt(id, e))?);
        }
        Ok(out)
    }

    /// A number never handed out before (for Message-IDs).
    pub fn unique(&self) -> Result<u64, StoreError> {
        Ok(self.db.generate_id()?)
    }

    /// Rebuilds the game by replaying its whole log from the initial state.
    pub fn rebuild(&self, id: &GameId) -> Result<Box<dyn AnyGame>, StoreError> {
        self.replay(id, &self.log(id)?)
    }

    /// The game as `entries` (its log, or a part of it) leave it: orders in
    /// effect applied in turn, undone ones left out.
    pub fn replay(
        &self,
        id: &GameId,
        entries: &[LogEntry],
    ) -> Result<Box<dyn AnyGame>, StoreError> {
        let record = self.record(id)?;
        let initial = self.state(&self.initial, id, "initial state")?;
        replay_from(&record, &initial, entries)
    }

    /// Checks a game's log: every entry's hash and its link to the one
    /// before, then that replaying the log gives the stored snapshot.
    pub fn verify(&self, id: &GameId) -> Result<Verified, StoreError> {
        let entries = self.log(id)?;
        let record = self.record(id)?;
        let initial = self.state(&self.initial, id, "initial state")?;
        let head = self.head(id)?;
        let snapshot = self.state(&self.snapshots, id, "snapshot")?;
        verify_parts(&record, &initial, &head, &snapshot, &entries)
    }
}

/// The game `record` describes, from its `initial` state, as `entries`
/// leave it: orders in effect applied in turn, undone ones left out.
fn replay_from(
    record: &GameRecord,
    initial: &str,
    entries: &[LogEntry],
) -> Result<Box<dyn AnyGame>, StoreError> {
    let id = &record.id;
    let mut game = registry::from_snapshot(&record.setup.kind, record.state_version, initial)?;
    for entry in effective_orders(entries) {
        game.apply_line(entry.seat, &entry.order).map_err(|e| {
            corrupt(
                id,
                format!(
                    "log entry {} ({}) no longer applies: {e}",
                    entry.seq, entry.order
                ),
            )
        })?;
    }
    Ok(game)
}

/// Checks a game given as its parts (stored, or read from an export): every
/// log entry's hash and its link to the one before, then that replaying the
/// log from the initial state gives the snapshot.
pub fn verify_parts(
    record: &GameRecord,
    initial: &str,
    head: &Head,
    snapshot: &str,
    entries: &[LogEntry],
) -> Result<Verified, StoreError> {
    let mut prev = String::new();
    for (i, e) in entries.iter().enumerate() {
        if e.seq != i as u64 + 1 {
            return Ok(Verified::Broken(format!(
                "entry {} is numbered {}: an entry is missing or out of place",
                i + 1,
                e.seq
            )));
        }
        if e.prev != prev {
            return Ok(Verified::Broken(format!(
                "entry {} does not follow entry {}: its link to the one before is wrong",
                e.seq,
                e.seq - 1
            )));
        }
        if e.chain_hash(&prev) != e.hash {
            return Ok(Verified::Broken(format!(
                "entry {} ({}) was changed after it was written: its hash does not match",
                e.seq, e.order
            )));
        }
        prev = e.hash.clone();
    }
    if head.seq != entries.len() as u64 {
        return Ok(Verified::Broken(format!(
            "the snapshot is at entry {}, the log has {}",
            head.seq,
            entries.len()
        )));
    }
    if head.last_hash != prev {
        return Ok(Verified::Broken(
            "the head's hash is not the last entry's".to_string(),
        ));
    }
    let stored = registry::from_snapshot(&record.setup.kind, head.state_version, snapshot)?;
    let rebuilt = replay_from(record, initial, entries)?;
    if rebuilt.snapshot()? != stored.snapshot()? {
        return Ok(Verified::Broken(
            "replaying the log does not give the stored state".to_string(),
        ));
    }
    Ok(Verified::Good {
        entries: entries.len(),
        last_hash: prev,
    })
}

impl GameUpdate {
    /// Appends `entry` as the update's next log entry, numbering it.
    pub fn push(&mut self, mut entry: LogEntry) {
        entry.seq = self.base_seq + self.entries.len() as u64 + 1;
        self.entries.push(entry);
    }

    /// Adds `entry` before the update's entries, numbering them again: the
    /// act that caused them (a moderator's `as`) comes first in the log.
    pub fn push_first(&mut self, entry: LogEntry) {
        self.entries.insert(0, entry);
        for (k, e) in self.entries.iter_mut().enumerate() {
            e.seq = self.base_seq + 1 + k as u64;
        }
        // Readers already sent the update's entries (a moderator's `skip`
        // reports them before its act is put first) had them under their
        // old numbers: they have read up to the same entries, now one on.
        let base = self.base_seq;
        let moved = |r: &mut u64| {
            if *r > base {
                *r += 1;
            }
        };
        self.meta.reported.iter_mut().for_each(moved);
        self.meta
            .observers
            .iter_mut()
            .for_each(|o| moved(&mut o.reported));
    }
}

impl GameRecord {
    /// The seat of the player called `name` (any case), or a sentence
    /// naming who plays.
    pub fn seat_named(&self, name: &str) -> Result<Seat, String> {
        let names: Vec<String> = self.setup.players.iter().map(|p| p.name.clone()).collect();
        engine::seat_of(&names, name).ok_or_else(|| {
            format!(
                "{name} does not play in {}; the players are {}",
                self.id,
                names.join(", ")
            )
        })
    }

    /// One line about the game: kind, players, seed, when created.
    pub fn header(&self) -> String {
        let names: Vec<&str> = self.setup.players.iter().map(|p| p.name.as_str()).collect();
        format!(
            "Game {} ({}), created {}, seed {}, players {}{}",
            self.id,
            self.setup.kind,
            self.created.format("%Y-%m-%d %H:%M UTC"),
            self.setup.seed,
            names.join(", "),
            if self.setup.options.is_empty() {
                String::new()
            } else {
                format!(", options {}", self.setup.options.join(", "))
            }
        )
    }
}

impl GameMeta {
    /// How much mail `seat` gets: their choice, else the game's default.
    pub fn reports_of(&self, seat: Seat) -> ReportMode {
        self.report_modes
            .get(seat.index())
            .copied()
            .flatten()
            .unwrap_or(self.default_reports)
    }

    /// Records `seat`'s choice.
    pub fn set_reports(&mut self, seat: Seat, mode: ReportMode) {
        if self.report_modes.len() <= seat.index() {
            self.report_modes.resize(seat.index() + 1, None);
        }
        self.report_modes[seat.index()] = Some(mode);
    }

    /// True if `seat`'s player may write from `from`: the seat's address
    /// or one they confirmed.
    pub fn plays_from(&self, record: &GameRecord, seat: Seat, from: &str) -> bool {
        self.address(record, seat).eq_ignore_ascii_case(from)
            || self
                .other_addresses
                .get(seat.index())
                .is_some_and(|a| a.iter().any(|x| x.eq_ignore_ascii_case(from)))
    }

    /// The seats whose player may write from `from`, in seat order.
    pub fn seats_from(&self, record: &GameRecord, from: &str) -> Vec<Seat> {
        (0..record.setup.players.len())
            .map(|i| Seat(i as u8))
            .filter(|s| self.plays_from(record, *s, from))
            .collect()
    }

    /// Every address `seat`'s player plays from: the seat's, then those
    /// they confirmed, in lower case.
    pub fn addresses_of(&self, record: &GameRecord, seat: Seat) -> Vec<String> {
        let mut out = vec![self.address(record, seat).to_ascii_lowercase()];
        for a in self.other_addresses.get(seat.index()).into_iter().flatten() {
            let a = a.to_ascii_lowercase();
            if !out.contains(&a) {
                out.push(a);
            }
        }
        out
    }

    /// Where `seat`'s mail goes now.
    pub fn address<'a>(&'a self, record: &'a GameRecord, seat: Seat) -> &'a str {
        match self.addresses.get(seat.index()) {
            Some(a) if !a.is_empty() => a,
            _ => record
                .setup
                .players
                .get(seat.index())
                .map_or("", |p| p.email.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item() -> OutboxItem {
        OutboxItem {
            from: "sm@example.org".into(),
            to: vec!["a@example.org".into()],
            message_id: "m1@example.org".into(),
            bytes: b"Subject: \"quoted\"\r\n\r\nmap\r\n\xc2\xa35\r\n".to_vec(),
            attempts: 2,
            next_try: DateTime::<Utc>::MIN_UTC,
            last_error: Some("421 try later".into()),
            part: None,
        }
    }

    /// A private message: its two ends, a moderator and the operator read
    /// it; another player and a spectator do not (issue 37: `None` once
    /// meant both "spectator" and "sees everything").
    #[test]
    fn a_private_message_is_visible_by_viewer() {
        use engine::{Actor, Viewer};
        let told = LogEntry::act(
            Seat(0),
            "anna".into(),
            "tell ben hello".into(),
            Actor::Mail("m@x".into()),
            EntryKind::Message { to: Some(Seat(1)) },
            DateTime::<Utc>::MIN_UTC,
            1,
        );
        for (viewer, sees) in [
            (Viewer::Player(Seat(0)), true),
            (Viewer::Player(Seat(1)), true),
            (Viewer::Player(Seat(2)), false),
            (Viewer::Spectator, false),
            (Viewer::Moderator, true),
            (Viewer::Operator, true),
        ] {
            assert_eq!(told.visible_to(viewer), sees, "{viewer:?}");
        }
    }

    #[test]
    fn waiting_orders_of_older_databases_read_as_one_batch() {
        let old: Vec<Held> =
            serde_json::from_str(r#"[[], ["station F8", "token Leeds steel"]]"#).unwrap();
        assert_eq!(old[0], Held::default());
        assert_eq!(
            old[1].batches,
            [vec![
                "station F8".to_string(),
                "token Leeds steel".to_string()
            ]]
        );
        let now = Held {
            batches: vec![vec!["station F8".into()], vec!["token Leeds steel".into()]],
            standing: Some("bid 1 C3".into()),
            ..Held::default()
        };
        let back: Held = serde_json::from_str(&serde_json::to_string(&now).unwrap()).unwrap();
        assert_eq!(back, now);
        // With the mails they came in.
        let mut sourced = Held::default();
        sourced.push_batch(vec!["station F8".into()], engine::Actor::Mail("a@x".into()));
        sourced.push_batch(vec!["token Leeds steel".into()], engine::Actor::CommandLine);
        let back: Held = serde_json::from_str(&serde_json::to_string(&sourced).unwrap()).unwrap();
        assert_eq!(back, sourced);
        assert_eq!(
            back.first_source(),
            Some(&engine::Actor::Mail("a@x".into()))
        );
    }

    #[test]
    fn an_outbox_item_reads_back_as_it_was_stored() {
        let item = item();
        let stored = item.encode().unwrap();
        // The message is packed, after the head.
        let head = serde_json::to_vec(&item).unwrap();
        assert_eq!(stored[4..4 + head.len()], head);
        assert_eq!(stored[4 + head.len()..][..2], [0, 1]);
        assert_eq!(OutboxItem::decode(&stored).unwrap(), item);
        assert!(OutboxItem::decode(&stored[..3]).is_err());
        assert!(OutboxItem::decode(&stored[..10]).is_err());
        assert!(OutboxItem::decode(&stored[..stored.len() - 1]).is_err());
    }

    #[test]
    fn an_outbox_item_with_its_message_unpacked_is_still_read() {
        // As the version before packing stored it: the message as it is.
        let item = item();
        let head = serde_json::to_vec(&item).unwrap();
        let mut stored = (head.len() as u32).to_be_bytes().to_vec();
        stored.extend_from_slice(&head);
        stored.extend_from_slice(&item.bytes);
        assert_eq!(OutboxItem::decode(&stored).unwrap(), item);
    }

    #[test]
    fn an_outbox_item_of_the_json_format_is_still_read() {
        let item = item();
        let mut json = serde_json::to_value(&item).unwrap();
        json["message"] = String::from_utf8(item.bytes.clone()).unwrap().into();
        let stored = serde_json::to_vec(&json).unwrap();
        assert_eq!(OutboxItem::decode(&stored).unwrap(), item);
    }
}
