//! A whole database as one versioned JSON document, and back: the
//! operator's backup, and the way from any store format to any later one.
//!
//! An export holds every game as it is stored (its record with the setup,
//! its initial state, its log with every entry's hash, its snapshot and
//! head, each state with its format version, and its private bookkeeping,
//! keys included), the id counters, the Message-ID receipts and the mails
//! waiting in the outbox (so that a database made from it goes on
//! exactly-once: a mail handled before is not applied again, and a reply
//! not yet sent is still sent), when help replies last went out, and the
//! site tree: the games forming by mail and what the server knows of each
//! address (invitations, confirmations waiting, games watched), and the
//! players' records (figures and ratings per address). The
//! address index and the scheduler's index are not exported: an import
//! builds them again from the games.
//!
//! An import checks the whole document first (its format and version, and
//! that every game's log verifies and replays to its snapshot) and then
//! writes everything in one transaction: a refused import changes nothing.
//!
//! The document:
//!
//! ```json
//! {"format": "stationmaster-export", "version": 1,
//!  "exported_at": "2026-11-21T18:00:00Z", "exported_by": "stationmaster 0.1.0",
//!  "counters": {"next:rocket": 2},
//!  "games": [{"id": "rocket-1", "record": {…}, "initial": {…}, "head": {…},
//!             "snapshot": {…}, "log": [{…, "prev": "", "hash": "…"}], "meta": {…}}],
//!  "receipts": {"<message-id>": {"at": …, "game": …, "outcome": …}},
//!  "outbox": [{"from": …, "to": […], "message_id": …, "attempts": 0,
//!              "next_try": …, "last_error": null, "message": "…"}],
//!  "help": {"address": "2026-11-21T18:00:00Z"},
//!  "forming": [{"id": "rocket-2", "kind": "rocket", "seats": […], …}],
//!  "contacts": {"carol@example.net": {"unasked": …, "watching": […], …}},
//!  "records": {"alice@example.org": {"names": ["alice"], "kinds": {"rocket":
//!             {"played": 2, "finished": 1, "won": 1, "placings": {"1/3": 1}, …,
//!              "rating": {"mu": 27.6, "sigma": 8.1, "games": 1}}}}}}
//! ```

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::commit::Writes;
use super::records::{GameFacts, derive, finished};
use super::{
    GameId, GameMeta, GameRecord, Head, LogEntry, OutboxItem, PlayerRecord, Receipt, Store,
    StoreError, Verified, clock_key, log_key, meta_key, player_key, transaction_error,
    verify_parts,
};
use engine::Seat;

/// The `format` of an export document.
pub const EXPORT_FORMAT: &str = "stationmaster-export";

/// The version of the export document this code writes and reads.
pub const EXPORT_VERSION: u32 = 1;

/// A whole database (see the module doc).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Export {
    /// Always [`EXPORT_FORMAT`].
    pub format: String,
    /// [`EXPORT_VERSION`].
    pub version: u32,
    /// When it was written.
    pub exported_at: DateTime<Utc>,
    /// The program that wrote it.
    #[serde(default)]
    pub exported_by: String,
    /// The id counters (`next:KIND` → the last number handed out).
    #[serde(default)]
    pub counters: BTreeMap<String, u64>,
    /// Every game.
    pub games: Vec<ExportedGame>,
    /// Every mail handled, by Message-ID.
    #[serde(default)]
    pub receipts: BTreeMap<String, Receipt>,
    /// Mails waiting to be sent, oldest first.
    #[serde(default)]
    pub outbox: Vec<ExportedMail>,
    /// When the last help reply went to each address.
    #[serde(default)]
    pub help: BTreeMap<String, DateTime<Utc>>,
    /// The games forming by mail (made, not started).
    #[serde(default)]
    pub forming: Vec<super::Forming>,
    /// What the server knows of each address, by address.
    #[serde(default)]
    pub contacts: BTreeMap<String, super::Contact>,
    /// The players' records, by address (see [`super::records`]); none in
    /// an export from before records: an import derives them from its
    /// games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<BTreeMap<String, PlayerRecord>>,
}

/// One game, as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExportedGame {
    /// Its id.
    pub id: GameId,
    /// Its record: setup, creation time, the initial state's format.
    pub record: GameRecord,
    /// The state after set-up, in the game's own JSON.
    pub initial: serde_json::Value,
    /// Where the log ends, its last hash and the snapshot's format.
    pub head: Head,
    /// The current state, in the game's own JSON.
    pub snapshot: serde_json::Value,
    /// The whole log, oldest first, with hashes.
    pub log: Vec<LogEntry>,
    /// Keys, addresses, deadlines and the rest of the bookkeeping.
    pub meta: GameMeta,
}

/// A mail waiting in the outbox.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExportedMail {
    /// Envelope, Message-ID and retry state.
    #[serde(flatten)]
    pub item: OutboxItem,
    /// The message, where it is UTF-8 (mail we compose always is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The message's bytes, where it is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_bytes: Option<Vec<u8>>,
}

/// What an import does with a database that already holds something.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImportMode {
    /// Only into an empty database (no games, receipts or mail waiting).
    Empty,
    /// Everything in the database is replaced by the export.
    Replace,
    /// The export's games are added beside the stored ones (refused if an
    /// id is taken); receipts, waiting mail and help times are added, and
    /// each id counter is kept at the higher of the two.
    Merge,
}

/// What an import wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    /// The games, in the export's order.
    pub games: Vec<GameId>,
    /// Receipts written.
    pub receipts: usize,
    /// Mails put in the outbox.
    pub outbox: usize,
}

/// Why an export cannot be read or imported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Not JSON, or not of the shape of an export.
    #[error("{source_name} is not a Stationmaster export that can be read: {message}")]
    Unreadable {
        /// Where it came from.
        source_name: String,
        /// What is wrong.
        message: String,
    },
    /// JSON, but another kind of document.
    #[error(
        "{source_name} is not a Stationmaster export: its \"format\" is {found}, not \"{EXPORT_FORMAT}\""
    )]
    WrongFormat {
        /// Where it came from.
        source_name: String,
        /// The format it names.
        found: String,
    },
    /// An export of a version this program does not read.
    #[error(
        "{source_name} is an export of version {found}; this Stationmaster reads version {EXPORT_VERSION} (a newer Stationmaster wrote it?)"
    )]
    WrongVersion {
        /// Where it came from.
        source_name: String,
        /// The version it has.
        found: String,
    },
    /// A game of the export does not hold together.
    #[error("game {game} in the export does not verify: {why}; nothing was imported")]
    Broken {
        /// The game.
        game: String,
        /// Why.
        why: String,
    },
    /// The database already holds something and no mode says what to do.
    #[error(
        "the database in {path} is not empty ({what}); import with --replace to replace it, or --merge to add the export's games beside its own"
    )]
    NotEmpty {
        /// The database folder.
        path: String,
        /// What it holds.
        what: String,
    },
    /// `--merge`, but game ids are taken.
    #[error("the database already has game(s) {}; nothing was imported", .0.join(", "))]
    Taken(Vec<String>),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sled::Error> for ExportError {
    fn from(e: sled::Error) -> Self {
        ExportError::Store(StoreError::Db(e))
    }
}

impl Export {
    /// Reads an export document, checking its format and version first so
    /// that a file of another kind or version is refused in one sentence.
    pub fn from_json(text: &str, source_name: &str) -> Result<Export, ExportError> {
        let unreadable = |message: String| ExportError::Unreadable {
            source_name: source_name.to_string(),
            message,
        };
        #[derive(Deserialize)]
        struct Envelope {
            format: Option<serde_json::Value>,
            version: Option<serde_json::Value>,
        }
        let envelope: Envelope =
            serde_json::from_str(text).map_err(|e| unreadable(e.to_string()))?;
        match &envelope.format {
            Some(serde_json::Value::String(f)) if f == EXPORT_FORMAT => {}
            other => {
                return Err(ExportError::WrongFormat {
                    source_name: source_name.to_string(),
                    found: other
                        .as_ref()
                        .map_or("missing".to_string(), |v| v.to_string()),
                });
            }
        }
        if envelope.version != Some(serde_json::Value::from(EXPORT_VERSION)) {
            return Err(ExportError::WrongVersion {
                source_name: source_name.to_string(),
                found: envelope
                    .version
                    .map_or("(none)".to_string(), |v| v.to_string()),
            });
        }
        serde_json::from_str(text).map_err(|e| unreadable(e.to_string()))
    }

    /// Checks every game: ids unique, each log's hash chain intact, and
    /// replaying each log from its initial state gives its snapshot.
    pub fn check(&self) -> Result<(), ExportError> {
        let mut seen = std::collections::BTreeSet::new();
        for g in &self.games {
            let broken = |why: String| ExportError::Broken {
                game: g.id.0.clone(),
                why,
            };
            if !seen.insert(&g.id) {
                return Err(broken("the export holds it twice".to_string()));
            }
            if g.record.id != g.id {
                return Err(broken(format!("its record names {}", g.record.id)));
            }
            let players = g.record.setup.players.len();
            if g.meta.tokens.len() != players || g.meta.reported.len() != players {
                return Err(broken(format!(
                    "its bookkeeping has {} keys for {players} players",
                    g.meta.tokens.len()
                )));
            }
            let verified = verify_parts(
                &g.record,
                &g.initial.to_string(),
                &g.head,
                &g.snapshot.to_string(),
                &g.log,
            )
            .map_err(|e| broken(e.to_string()))?;
            if let Verified::Broken(why) = verified {
                return Err(broken(why));
            }
        }
        Ok(())
    }
}

impl ExportedMail {
    fn new(item: OutboxItem) -> ExportedMail {
        let (message, message_bytes) = match String::from_utf8(item.bytes.clone()) {
            Ok(text) => (Some(text), None),
            Err(e) => (None, Some(e.into_bytes())),
        };
        ExportedMail {
            item: OutboxItem {
                bytes: Vec::new(),
                // The message is exported whole.
                part: None,
                ..item
            },
            message,
            message_bytes,
        }
    }

    fn item(&self) -> OutboxItem {
        let bytes = match (&self.message, &self.message_bytes) {
            (Some(text), _) => text.clone().into_bytes(),
            (None, Some(bytes)) => bytes.clone(),
            (None, None) => Vec::new(),
        };
        OutboxItem {
            bytes,
            // The message is whole (a `part` in a document is not ours).
            part: None,
            ..self.item.clone()
        }
    }
}

fn json_state(id: &GameId, what: &str, text: &str) -> Result<serde_json::Value, StoreError> {
    serde_json::from_str(text).map_err(|e| super::corrupt(id, format!("{what}: {e}")))
}

impl Store {
    /// The whole database as an [`Export`].
    pub fn export(&self, now: DateTime<Utc>) -> Result<Export, StoreError> {
        let mut games = Vec::new();
        for id in self.ids()? {
            let head = self.head(&id)?;
            // Entries up to the head: those the snapshot includes.
            let log: Vec<LogEntry> = self
                .log(&id)?
                .into_iter()
                .filter(|e| e.seq <= head.seq)
                .collect();
            games.push(ExportedGame {
                record: self.record(&id)?,
                initial: json_state(
                    &id,
                    "initial state",
                    &self.state(&self.initial, &id, "initial state")?,
                )?,
                snapshot: json_state(
                    &id,
                    "snapshot",
                    &self.state(&self.snapshots, &id, "snapshot")?,
                )?,
                head,
                log,
                meta: self.meta(&id)?,
                id,
            });
        }
        let mut counters = BTreeMap::new();
        for item in self.meta.scan_prefix(b"next:") {
            let (k, v) = item?;
            if let Ok(bytes) = <[u8; 8]>::try_from(v.as_ref()) {
                counters.insert(
                    String::from_utf8_lossy(&k).into_owned(),
                    u64::from_be_bytes(bytes),
                );
            }
        }
        let mut receipts = BTreeMap::new();
        for item in self.receipts.iter() {
            let (k, v) = item?;
            let id = String::from_utf8_lossy(&k).into_owned();
            let r: Receipt = serde_json::from_slice(&v)
                .map_err(|e| super::unreadable(&format!("the receipt of mail <{id}>"), e))?;
            receipts.insert(id, r);
        }
        let mut outbox = Vec::new();
        for item in self.outbox.iter() {
            let (k, v) = item?;
            let what = || format!("outbox item {}", String::from_utf8_lossy(&k));
            let item = OutboxItem::decode(&v).map_err(|e| super::unreadable(&what(), e))?;
            // A mail whose picture's file is lost (`parts/`) cannot be sent
            // whole, here or from the database: left out, and said, rather
            // than the whole export refused.
            match self.with_part(item) {
                Ok(item) => outbox.push(ExportedMail::new(item)),
                Err(e) => {
                    tracing::error!(item = %what(), error = %e, "a mail waiting to be sent is left out of the export")
                }
            }
        }
        let mut help = BTreeMap::new();
        for item in self.help.iter() {
            let (k, v) = item?;
            let addr = String::from_utf8_lossy(&k).into_owned();
            let at: DateTime<Utc> = serde_json::from_slice(&v)
                .map_err(|e| super::unreadable(&format!("the last help reply to {addr}"), e))?;
            help.insert(addr, at);
        }
        let mut contacts = BTreeMap::new();
        for item in self.site.scan_prefix(super::site::CONTACT_PREFIX) {
            let (k, v) = item?;
            let addr =
                String::from_utf8_lossy(&k[super::site::CONTACT_PREFIX.len()..]).into_owned();
            let c: super::Contact = serde_json::from_slice(&v)
                .map_err(|e| super::unreadable(&format!("what is known of {addr}"), e))?;
            contacts.insert(addr, c);
        }
        Ok(Export {
            records: Some(self.player_records()?),
            forming: self.all_forming()?,
            contacts,
            format: EXPORT_FORMAT.to_string(),
            version: EXPORT_VERSION,
            exported_at: now,
            exported_by: format!("stationmaster {}", env!("CARGO_PKG_VERSION")),
            counters,
            games,
            receipts,
            outbox,
            help,
        })
    }

    /// What the database holds, in words, or `None` if it is empty (no
    /// games, receipts or waiting mail).
    pub fn contents(&self) -> Result<Option<String>, StoreError> {
        let (games, receipts, outbox) = (self.games.len(), self.receipts.len(), self.outbox.len());
        let forming = self.all_forming()?.len();
        if games + receipts + outbox + forming == 0 {
            return Ok(None);
        }
        Ok(Some(format!(
            "{games} game(s), {forming} forming, {receipts} receipt(s), {outbox} mail(s) waiting"
        )))
    }

    /// Writes `export` into this database, as `mode` says, in one
    /// transaction, after checking it whole ([`Export::check`]); the
    /// address and scheduler indexes are built from the games.
    pub fn import(
        &self,
        export: &Export,
        mode: ImportMode,
        path: &str,
    ) -> Result<Imported, ExportError> {
        export.check()?;
        self.check_room(export, mode, path)?;
        use super::tx::*;
        let mut w = Writes::default();
        if mode == ImportMode::Replace {
            for (t, tree) in self.transaction_trees().iter().enumerate() {
                for item in tree.iter() {
                    let (k, _) = item?;
                    if t == META && k.as_ref() == super::FORMAT_KEY {
                        continue;
                    }
                    w.removes.push((t, k.to_vec()));
                }
            }
        }
        for g in &export.games {
            w.exported_game(g)?;
        }
        let receipts = self.import_bookkeeping(&mut w, export, mode)?;
        let records = self.import_records(export, mode)?;
        w.label = "";
        for (address, record) in &records {
            w.put(RECORDS, address.clone().into_bytes(), record)?;
        }
        w.writes.push((
            META,
            super::records::RECORDS_KEY.to_vec(),
            super::records::RECORDS_FORMAT.to_be_bytes().to_vec(),
        ));
        self.transact(&w, None, &[], &Default::default())
            .map_err(|e| transaction_error(e, "import"))?;
        // The files of the parts replaced go with the flush below.
        self.lock_gone_parts().extend(
            w.removes
                .iter()
                .filter(|(tree, _)| *tree == PARTS)
                .filter_map(|(_, k)| k.as_slice().try_into().ok().map(u64::from_be_bytes)),
        );
        self.meta
            .insert(super::FORMAT_KEY, &super::FORMAT.to_be_bytes())?;
        self.flush()?;
        Ok(Imported {
            games: export.games.iter().map(|g| g.id.clone()).collect(),
            receipts,
            outbox: export.outbox.len(),
        })
    }

    /// Whether `export` may go in as `mode` says: into an empty database
    /// only, or (merging) with none of its games' ids taken here.
    fn check_room(&self, export: &Export, mode: ImportMode, path: &str) -> Result<(), ExportError> {
        match mode {
            ImportMode::Empty => {
                if let Some(what) = self.contents()? {
                    return Err(ExportError::NotEmpty {
                        path: path.to_string(),
                        what,
                    });
                }
            }
            ImportMode::Merge => {
                let mut taken: Vec<String> = export
                    .games
                    .iter()
                    .filter(|g| self.games.contains_key(g.id.0.as_bytes()).unwrap_or(true))
                    .map(|g| g.id.0.clone())
                    .collect();
                for f in &export.forming {
                    if self.games.contains_key(f.id.0.as_bytes())? || self.forming(&f.id)?.is_some()
                    {
                        taken.push(f.id.0.clone());
                    }
                }
                if !taken.is_empty() {
                    return Err(ExportError::Taken(taken));
                }
            }
            ImportMode::Replace => {}
        }
        Ok(())
    }

    /// The writes of everything in `export` but its games: counters (the
    /// higher when merging), receipts and help times not already here, the
    /// outbox, forming games and contacts. Returns how many receipts.
    fn import_bookkeeping<'e>(
        &self,
        w: &mut Writes<'e>,
        export: &'e Export,
        mode: ImportMode,
    ) -> Result<usize, StoreError> {
        use super::tx::*;
        let merge = mode == ImportMode::Merge;
        w.label = "";
        for (name, n) in &export.counters {
            let mut n = *n;
            if merge
                && let Some(old) = self.meta.get(name.as_bytes())?
                && let Ok(bytes) = <[u8; 8]>::try_from(old.as_ref())
            {
                n = n.max(u64::from_be_bytes(bytes));
            }
            w.writes
                .push((META, name.clone().into_bytes(), n.to_be_bytes().to_vec()));
        }
        let mut receipts = 0;
        for (mid, r) in &export.receipts {
            if merge && self.receipts.contains_key(mid.as_bytes())? {
                continue;
            }
            w.put(RECEIPTS, mid.clone().into_bytes(), r)?;
            receipts += 1;
        }
        for mail in &export.outbox {
            let key = self.db.generate_id()?;
            w.writes
                .push((OUTBOX, key.to_be_bytes().to_vec(), mail.item().encode()?));
        }
        for (addr, at) in &export.help {
            if merge
                && let Some(old) = self.help_sent(addr)?
                && old >= *at
            {
                continue;
            }
            w.put(HELP, addr.clone().into_bytes(), at)?;
        }
        for f in &export.forming {
            w.label = &f.id.0;
            w.put(SITE, super::site::forming_key(&f.id), f)?;
            w.mark(CLOCK, clock_key(f.expires, &f.id));
        }
        for (addr, c) in &export.contacts {
            if merge && self.site.contains_key(super::site::contact_key(addr))? {
                continue;
            }
            w.label = addr;
            w.put(SITE, super::site::contact_key(addr), c)?;
        }
        Ok(receipts)
    }
}
impl Store {
    /// The players' records an import leaves: the export's (or, from an
    /// export without them, derived from its games); merging, the counts
    /// of both added up, and the ratings worked out again from every
    /// finished game of both, in the order they finished.
    fn import_records(
        &self,
        export: &Export,
        mode: ImportMode,
    ) -> Result<BTreeMap<String, PlayerRecord>, StoreError> {
        let mut facts = Vec::new();
        if export.records.is_none() || mode == ImportMode::Merge {
            for g in &export.games {
                let game = registry::from_snapshot(
                    &g.record.setup.kind,
                    g.head.state_version,
                    &g.snapshot.to_string(),
                )?;
                facts.push(GameFacts {
                    record: g.record.clone(),
                    meta: g.meta.clone(),
                    log: g.log.clone(),
                    finished: finished(&*game),
                });
            }
        }
        let theirs = match &export.records {
            Some(r) => r.clone(),
            None => derive(facts.iter().map(GameFacts::stored)),
        };
        if mode != ImportMode::Merge {
            return Ok(theirs);
        }
        let mut merged = self.player_records()?;
        for (address, record) in &theirs {
            merged
                .entry(address.clone())
                .or_default()
                .add_counts(record);
        }
        let mut all = self.game_facts()?;
        all.extend(facts);
        let rated = derive(all.iter().map(GameFacts::stored));
        for (address, record) in merged.iter_mut() {
            for (kind, k) in record.kinds.iter_mut() {
                k.rating = rated
                    .get(address)
                    .and_then(|r| r.kinds.get(kind))
                    .and_then(|k| k.rating);
            }
        }
        Ok(merged)
    }
}

impl<'a> Writes<'a> {
    /// A game from an export: its record, states, head, bookkeeping and
    /// log, and the address and scheduler indexes built from them.
    pub(crate) fn exported_game(&mut self, g: &'a ExportedGame) -> Result<(), StoreError> {
        use super::tx::*;
        self.label = g.id.0.as_str();
        let key = g.id.0.clone().into_bytes();
        self.put(GAMES, key.clone(), &g.record)?;
        let pack = |state: &serde_json::Value| {
            super::pack::pack(state.to_string().as_bytes()).map_err(StoreError::from)
        };
        let (initial, snapshot) = (pack(&g.initial)?, pack(&g.snapshot)?);
        self.writes.push((INITIAL, key.clone(), initial));
        self.writes.push((SNAPSHOTS, key.clone(), snapshot));
        self.put(HEADS, key, &g.head)?;
        self.put(META, meta_key(&g.id), &g.meta)?;
        for e in &g.log {
            self.put(LOG, log_key(&g.id, e.seq), e)?;
        }
        for s in 0..g.record.setup.players.len() {
            let address = g.meta.address(&g.record, Seat(s as u8));
            self.mark(PLAYERS, player_key(address, &g.id));
        }
        // A player's confirmed second addresses are in the index too.
        for address in g.meta.other_addresses.iter().flatten() {
            self.mark(PLAYERS, player_key(address, &g.id));
        }
        if let Some(at) = g.meta.clock.next_fire {
            self.mark(CLOCK, clock_key(at, &g.id));
        }
        Ok(())
    }
}
