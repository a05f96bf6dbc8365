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
//! addresses: see [`site`]), `records` (address → [`PlayerRecord`]: the
//! players' records, see [`records`]). Values are JSON, but
//! for an outbox item (a JSON head, then the message's bytes, packed; see
//! [`OutboxItem`]) and the counters and format in `meta` and `counts`
//! (big-endian numbers); a state is the game's own JSON, packed, read
//! straight into the game's type. Packed ([`pack`]): compressed against a
//! dictionary built into the program, so that sled's pages are about as
//! small in memory as on disk; values stored unpacked by earlier versions
//! are read as they are.
#![warn(missing_docs)]

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sled::transaction::{ConflictableTransactionError, Transactional};

use engine::{AnyGame, Setup};
use registry::{self, BoardSource};

mod commit;
mod error;
pub mod export;
mod game;
mod log;
mod outbox;
pub mod pack;
mod part_files;
mod receipts;
pub mod records;
pub mod recovery;
mod replay;
pub mod site;

pub(crate) use commit::tally_key;
pub use commit::{Change, GameUpdate, NewGame};
pub use error::StoreError;
pub(crate) use error::{Abort, corrupt, transaction_error, unreadable};
pub(crate) use game::first_state_version;
pub use game::{BatchRejected, GameId, GameMeta, GameRecord, Head, Held, Loaded};
pub use log::{EntryKind, LogEntry, REMINDER_SENT, effective_orders, undone_orders};
pub(crate) use outbox::part_value;
pub use outbox::{OutboxItem, PartRef};
pub use receipts::{MailFailure, Quarantined, Receipt};
pub use records::{Ending, KindRecord, PlayerRecord, Rating};
pub use replay::{Verified, verify_parts};
pub use site::{Contact, Forming, FormingSeat, Observer, Pending, ReportMode};

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
    fn transaction_trees(&self) -> [sled::Tree; 15] {
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
            self.records.clone(),
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
    pub const RECORDS: usize = 14;
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
    records: sled::Tree,
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
            records: db.open_tree("records")?,
            gone_parts: std::sync::Mutex::new(Vec::new()),
            db,
        };
        store.upgrade()?;
        store.sweep_parts()?;
        store.records_since_before()?;
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Seat;

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
