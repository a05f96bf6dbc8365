//! A game read again from its log: rebuilt, replayed to a point, and
//! verified entry by entry against its snapshot.

use engine::AnyGame;

use crate::{GameId, GameRecord, Head, LogEntry, Store, StoreError, corrupt, effective_orders};

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

impl Store {
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
pub(crate) fn replay_from(
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
