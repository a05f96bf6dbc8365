//! A [`Change`]: everything one event changes, committed in one sled
//! transaction ([`Store::commit`]) and made durable by [`Store::flush`].

use std::sync::Arc;

use chrono::{DateTime, Utc};
use mail::OutMail;
use serde::Serialize;
use sled::transaction::{ConflictableTransactionError, TransactionError, Transactional};

use crate::{
    Abort, Contact, Ending, FLUSH_PATIENCE, Forming, GameId, GameMeta, GameRecord, Head, LogEntry,
    OutboxItem, PartRef, Receipt, Store, StoreError, clock_key, log_key, meta_key, pack,
    part_files, part_value, player_key, recovery, ser, site, transaction_error, tx,
};

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
    /// Seats whose player let a deadline pass in this update (the clock's
    /// own miss, not a moderator's `skip`): their records count it.
    pub missed: Vec<engine::Seat>,
    /// How the game ended, where this update ends it (and only then: an
    /// update to a game already over has none): the records take each
    /// seat's end, and rate a finished game's people.
    pub ended: Option<Ending>,
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
pub(crate) fn tally_key(what: &str, at: DateTime<Utc>) -> Vec<u8> {
    format!("count:{what}:{}", at.format("%Y%m%d%H")).into_bytes()
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

impl Store {
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
        let mut w = Writes {
            label: &label,
            ..Writes::default()
        };
        if let Some(n) = &change.new_game {
            w.new_game(n)?;
        }
        // Read before the game's bookkeeping is written over (the guard
        // makes sure it is what the update was computed on).
        let records = self.record_changes(change)?;
        let guard = match &change.update {
            Some(u) => Some(self.write_update(&mut w, change, u)?),
            None => None,
        };
        if let Some((mid, r)) = &change.receipt {
            w.put(tx::RECEIPTS, mid.clone().into_bytes(), r)?;
        }
        let (outgoing, parts) = self.write_outbox(&mut w, &change.outbox)?;
        for (addr, at) in &change.help_sent {
            w.put(tx::HELP, addr.clone().into_bytes(), at)?;
        }
        self.write_site(&mut w, change)?;
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
            w.writes.push((
                tx::PARTS,
                key.to_be_bytes().to_vec(),
                part_value(items, crc),
            ));
        }
        self.transact(&w, guard.as_ref(), &change.tally, &records)
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

    /// The writes of game update `u` of `change`: its log entries chained
    /// on, snapshot, head, bookkeeping, clock and address index. Returns
    /// the guard: the game's key and the sequence the update was computed
    /// on.
    fn write_update(
        &self,
        w: &mut Writes<'_>,
        change: &Change,
        u: &GameUpdate,
    ) -> Result<(Vec<u8>, u64), StoreError> {
        use super::tx::*;
        // The chain goes on from the last entry's hash (the guard makes
        // sure nobody wrote in between).
        let mut prev = self.head(&u.id)?.last_hash;
        for e in &u.entries {
            let mut e = e.clone();
            e.prev = prev.clone();
            e.hash = e.chain_hash(&prev);
            prev = e.hash.clone();
            w.put(LOG, log_key(&u.id, e.seq), &e)?;
        }
        let head = Head {
            seq: u.base_seq + u.entries.len() as u64,
            last_hash: prev,
            state_version: u.state_version,
        };
        let key = u.id.0.clone().into_bytes();
        w.writes
            .push((SNAPSHOTS, key.clone(), pack::pack(u.state.as_bytes())?));
        w.put(HEADS, key, &head)?;
        w.put(META, meta_key(&u.id), &u.meta)?;
        if let Some(at) = u.old_fire {
            w.removes.push((CLOCK, clock_key(at, &u.id)));
        }
        if let Some(at) = u.meta.clock.next_fire {
            w.mark(CLOCK, clock_key(at, &u.id));
        }
        if let Some((old, new)) = &change.readdress {
            w.removes.push((PLAYERS, player_key(old, &u.id)));
            w.mark(PLAYERS, player_key(new, &u.id));
        }
        for (address, plays) in &change.index {
            if *plays {
                w.mark(PLAYERS, player_key(address, &u.id));
            } else {
                w.removes.push((PLAYERS, player_key(address, &u.id)));
            }
        }
        Ok((u.id.0.clone().into_bytes(), u.base_seq))
    }

    /// The writes of the change's mails, each due at once, and the parts
    /// they share: what several of them carry alike (a report's picture)
    /// is kept once, as its key, the items that carry it, and the bytes.
    #[allow(clippy::type_complexity)]
    fn write_outbox<'c>(
        &self,
        w: &mut Writes<'_>,
        outbox: &'c [OutMail],
    ) -> Result<
        (
            Vec<(u64, OutboxItem)>,
            Vec<(u64, Vec<u64>, &'c mail::Shared)>,
        ),
        StoreError,
    > {
        let mut outgoing = Vec::with_capacity(outbox.len());
        let mut parts: Vec<(u64, Vec<u64>, &mail::Shared)> = Vec::new();
        for mail in outbox {
            // Due at once: the first try happens in the same cycle.
            let mut item = OutboxItem::new(mail, DateTime::<Utc>::MIN_UTC);
            let key = self.db.generate_id()?;
            if let Some(s) = shared_part(mail, outbox) {
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
            w.writes
                .push((tx::OUTBOX, key.to_be_bytes().to_vec(), item.encode()?));
            outgoing.push((key, item));
        }
        Ok((outgoing, parts))
    }

    /// The writes of the lobby's part of `change`: a game forming by mail
    /// (and its expiry in the clock index), and what is known of addresses.
    fn write_site(&self, w: &mut Writes<'_>, change: &Change) -> Result<(), StoreError> {
        use super::tx::*;
        if let Some((id, forming)) = &change.forming {
            if let Some(old) = self.forming(id)? {
                w.removes.push((CLOCK, clock_key(old.expires, id)));
            }
            match forming {
                Some(f) => {
                    w.writes.push((SITE, site::forming_key(id), ser(&id.0, f)?));
                    w.mark(CLOCK, clock_key(f.expires, id));
                }
                None => w.removes.push((SITE, site::forming_key(id))),
            }
        }
        for (address, contact) in &change.contacts {
            w.put(SITE, site::contact_key(address), contact)?;
        }
        Ok(())
    }

    /// Writes `w` in one sled transaction, counts `tally` and changes the
    /// players' `records`; only on top of the snapshot the change was
    /// computed on, where `guard` names one.
    pub(crate) fn transact(
        &self,
        w: &Writes<'_>,
        guard: Option<&(Vec<u8>, u64)>,
        tally: &[(String, DateTime<Utc>)],
        records: &crate::records::Changes,
    ) -> Result<(), TransactionError<Abort>> {
        use super::tx::*;
        let trees = self.transaction_trees();
        trees[..].transaction(|t| {
            if let Some((key, base)) = guard {
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
            for (tree, k) in &w.removes {
                t[*tree].remove(k.as_slice())?;
            }
            for (tree, k, v) in &w.writes {
                t[*tree].insert(k.as_slice(), v.as_slice())?;
            }
            for (what, at) in tally {
                let key = tally_key(what, *at);
                let n = t[COUNTS]
                    .get(key.as_slice())?
                    .and_then(|b| b.as_ref().try_into().ok())
                    .map(u64::from_be_bytes)
                    .unwrap_or(0);
                t[COUNTS].insert(key.as_slice(), &(n + 1).to_be_bytes())?;
            }
            if !records.is_empty() {
                crate::records::write_in(&t[RECORDS], records)?;
            }
            Ok(())
        })
    }
}

/// What one change writes and removes, tree by tree (by their place in
/// [`Store::transaction_trees`]), before the transaction that does it.
#[derive(Default)]
pub(crate) struct Writes<'a> {
    /// The game the change is about, for errors.
    pub(crate) label: &'a str,
    pub(crate) writes: Vec<(usize, Vec<u8>, Vec<u8>)>,
    pub(crate) removes: Vec<(usize, Vec<u8>)>,
}

impl<'a> Writes<'a> {
    /// Writes `value` as JSON under `key` of `tree`.
    pub(crate) fn put<T: Serialize>(
        &mut self,
        tree: usize,
        key: Vec<u8>,
        value: &T,
    ) -> Result<(), StoreError> {
        self.writes.push((tree, key, ser(self.label, value)?));
        Ok(())
    }

    /// Writes an index key with no value.
    pub(crate) fn mark(&mut self, tree: usize, key: Vec<u8>) {
        self.writes.push((tree, key, Vec::new()));
    }

    /// A new game: its record, initial state and snapshot, head,
    /// bookkeeping, players and clock.
    fn new_game(&mut self, n: &NewGame) -> Result<(), StoreError> {
        use super::tx::*;
        let id = &n.record.id;
        let key = id.0.clone().into_bytes();
        self.put(GAMES, key.clone(), &n.record)?;
        let initial = pack::pack(n.initial.as_bytes())?;
        self.writes.push((INITIAL, key.clone(), initial.clone()));
        self.writes.push((SNAPSHOTS, key.clone(), initial));
        let head = Head {
            state_version: n.record.state_version,
            ..Head::default()
        };
        self.put(HEADS, key, &head)?;
        self.put(META, meta_key(id), &n.meta)?;
        for p in &n.record.setup.players {
            self.mark(PLAYERS, player_key(&p.email, id));
        }
        if let Some(at) = n.meta.clock.next_fire {
            self.mark(CLOCK, clock_key(at, id));
        }
        Ok(())
    }
}

/// The part of `mail` kept apart, if it has one that it really carries and
/// that another mail of `outbox` shares.
fn shared_part<'c>(mail: &'c OutMail, outbox: &[OutMail]) -> Option<&'c mail::Shared> {
    let s = mail.shared.as_ref()?;
    let carried = mail
        .bytes
        .get(s.at()..)
        .and_then(|b| b.get(..s.bytes().len()));
    let sharers = outbox
        .iter()
        .filter(|m| {
            m.shared
                .as_ref()
                .is_some_and(|o| Arc::ptr_eq(o.bytes(), s.bytes()))
        })
        .count();
    (carried == Some(s.bytes().as_slice()) && sharers > 1).then_some(s)
}
