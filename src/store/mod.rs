//! Games kept in sled: each game is its setup and initial state, an
//! append-only log of accepted orders, and a snapshot of the current state.
//!
//! The snapshot is only a cache: [`Store::rebuild`] replays the log from the
//! initial state and must give the same game. A batch of orders is written in
//! one transaction (log entries and snapshot together), and only if the
//! snapshot is still at the sequence number the batch was checked against,
//! so two writers can never interleave half a batch.
//!
//! Trees: `games` (id → [`GameRecord`]), `log` (id, 0, sequence → [`LogEntry`]),
//! `snapshots` (id → [`Snapshot`]), `meta` (counters).

use std::path::Path;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sled::transaction::{ConflictableTransactionError, TransactionError, Transactional};

use crate::engine::registry::{self, BoardSource};
use crate::engine::{AnyGame, Applied, OrderRejected, Seat, Setup, SetupError};

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
    /// The state right after set-up, board included: replays start here, so
    /// a later change to a board file never changes an existing game.
    pub initial: serde_json::Value,
}

/// One accepted order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// 1 for the game's first order, then 2, 3, …
    pub seq: u64,
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
}

/// The current state, as of the log entry `seq`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The last log entry included (0: none).
    pub seq: u64,
    /// The game's state.
    pub state: serde_json::Value,
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
    /// sled failed.
    #[error("the database failed: {0}")]
    Db(#[from] sled::Error),
    /// No game has this id.
    #[error("there is no game `{0}`; `stationmaster games` lists them")]
    NoSuchGame(String),
    /// The game could not be set up or read back.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// Stored data cannot be read.
    #[error("stored data of game {game} cannot be read: {message}")]
    Corrupt {
        /// The game.
        game: String,
        /// What went wrong.
        message: String,
    },
    /// Someone else changed the game while this batch was checked.
    #[error("game {0} changed while the orders were being checked; send them again")]
    Conflict(String),
    /// An order of the batch was refused.
    #[error(transparent)]
    Rejected(#[from] BatchRejected),
}

/// The database.
pub struct Store {
    db: sled::Db,
    games: sled::Tree,
    log: sled::Tree,
    snapshots: sled::Tree,
    meta: sled::Tree,
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

fn corrupt(id: &GameId, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt {
        game: id.0.clone(),
        message: e.to_string(),
    }
}

impl Store {
    /// Opens (or creates) the database in folder `path`.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let db = sled::open(path)?;
        Ok(Store {
            games: db.open_tree("games")?,
            log: db.open_tree("log")?,
            snapshots: db.open_tree("snapshots")?,
            meta: db.open_tree("meta")?,
            db,
        })
    }

    /// Creates a game and returns its id (`KIND-N`).
    pub fn create(
        &self,
        setup: &Setup,
        boards: &BoardSource,
        now: DateTime<Utc>,
    ) -> Result<GameId, StoreError> {
        let game = registry::new_game(setup, boards)?;
        let kind = game.kind();
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
        let id = GameId(format!("{kind}-{n}"));
        let initial = game.snapshot();
        let record = GameRecord {
            id: id.clone(),
            setup: setup.clone(),
            created: now,
            initial: initial.clone(),
        };
        let snapshot = Snapshot {
            seq: 0,
            state: initial,
        };
        let record_bytes = serde_json::to_vec(&record).map_err(|e| corrupt(&id, e))?;
        let snapshot_bytes = serde_json::to_vec(&snapshot).map_err(|e| corrupt(&id, e))?;
        (&self.games, &self.snapshots)
            .transaction(|(games, snapshots)| {
                games.insert(id.0.as_bytes(), record_bytes.clone())?;
                snapshots.insert(id.0.as_bytes(), snapshot_bytes.clone())?;
                Ok::<(), ConflictableTransactionError<()>>(())
            })
            .map_err(|e| match e {
                TransactionError::Storage(e) => StoreError::Db(e),
                TransactionError::Abort(()) => StoreError::Conflict(id.0.clone()),
            })?;
        self.db.flush()?;
        Ok(id)
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

    /// Game `id` at its snapshot.
    pub fn load(&self, id: &GameId) -> Result<Loaded, StoreError> {
        let record = self.record(id)?;
        let bytes = self
            .snapshots
            .get(id.0.as_bytes())?
            .ok_or_else(|| corrupt(id, "no snapshot"))?;
        let snapshot: Snapshot = serde_json::from_slice(&bytes).map_err(|e| corrupt(id, e))?;
        let game = registry::from_snapshot(&record.setup.kind, &snapshot.state)?;
        Ok(Loaded {
            record,
            game,
            seq: snapshot.seq,
        })
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

    /// Rebuilds the game by replaying its whole log from the initial state.
    pub fn rebuild(&self, id: &GameId) -> Result<Box<dyn AnyGame>, StoreError> {
        let record = self.record(id)?;
        let mut game = registry::from_snapshot(&record.setup.kind, &record.initial)?;
        for entry in self.log(id)? {
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

    /// Applies `lines` as orders of `seat`, all or nothing: either every line
    /// is accepted and the batch is stored in one transaction, or nothing
    /// changes and the first refused line is reported. Blank lines are
    /// skipped. Returns what was applied and the game after it.
    pub fn apply_batch(
        &self,
        id: &GameId,
        seat: Seat,
        lines: &[String],
        now: DateTime<Utc>,
    ) -> Result<(Vec<Applied>, Box<dyn AnyGame>), StoreError> {
        let loaded = self.load(id)?;
        let mut game = loaded.game;
        let player = game
            .player_names()
            .get(seat.index())
            .cloned()
            .unwrap_or_default();
        let mut applied = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let a = game
                .apply_line(seat, line)
                .map_err(|rejected| BatchRejected {
                    line_no: i + 1,
                    rejected,
                })?;
            applied.push(a);
        }
        if applied.is_empty() {
            return Ok((applied, game));
        }
        game.check_invariants()
            .map_err(|e| corrupt(id, format!("engine invariant broken: {e}")))?;
        let base = loaded.seq;
        let mut entries = Vec::new();
        for (k, a) in applied.iter().enumerate() {
            let entry = LogEntry {
                seq: base + 1 + k as u64,
                at: now,
                seat,
                player: player.clone(),
                order: a.order.clone(),
                events: a.events.clone(),
            };
            entries.push((
                log_key(id, entry.seq),
                serde_json::to_vec(&entry).map_err(|e| corrupt(id, e))?,
            ));
        }
        let new_seq = base + applied.len() as u64;
        let snapshot = serde_json::to_vec(&Snapshot {
            seq: new_seq,
            state: game.snapshot(),
        })
        .map_err(|e| corrupt(id, e))?;
        (&self.log, &self.snapshots)
            .transaction(|(log, snapshots)| {
                // Only on top of the snapshot the batch was checked against.
                let current = snapshots
                    .get(id.0.as_bytes())?
                    .and_then(|b| serde_json::from_slice::<Snapshot>(&b).ok())
                    .map(|s| s.seq);
                if current != Some(base) {
                    return Err(ConflictableTransactionError::Abort(()));
                }
                for (k, v) in &entries {
                    log.insert(k.as_slice(), v.as_slice())?;
                }
                snapshots.insert(id.0.as_bytes(), snapshot.as_slice())?;
                Ok(())
            })
            .map_err(|e| match e {
                TransactionError::Storage(e) => StoreError::Db(e),
                TransactionError::Abort(()) => StoreError::Conflict(id.0.clone()),
            })?;
        self.db.flush()?;
        Ok((applied, game))
    }
}
