//! Players' records (issue 36, point 4): per address, per game kind, the
//! games played, finished, won and aborted, the places taken, the
//! deadlines missed, the seats handed on, and a rating from finished
//! games with at least two people in them.
//!
//! **Kept, not derived on demand.** Each record changes in the same sled
//! transaction as the event that changes it ([`Store::commit`]): a game
//! made, a seat changing hands, a missed deadline, a game's end. So a
//! crash (`kill -9` included) can neither lose an update nor make it
//! twice, and reading a record is one look-up (the welcome and the
//! game's page show one for each player; a rating depends on every
//! finished game before it, so deriving one would mean replaying them
//! all). What changes a record is read off the [`Change`] itself, in the
//! store, so every path that writes a game (a mail, the command line, a
//! moderator, the clock, a game formed by mail) updates them alike:
//!
//! - a game made ([`NewGame`]): `played` for each seat's address;
//! - a seat whose address changes in an update (a moderator's `replace`):
//!   `handed_on` for the address that leaves it, `played` for the one
//!   that takes it;
//! - [`GameUpdate::missed`]: `missed` for the seat's address (a missed
//!   deadline of the clock's, never a moderator's `skip`);
//! - [`GameUpdate::ended`]: `aborted`, or `finished` with the place (and
//!   `won` for a first place), for each seat's address as the game ends;
//!   and the rating of each person in a finished game with two or more.
//!
//! **People, not bots.** A seat that [`GameMeta::bots`] marks is held by a
//! bot: it has no record, it is nobody's `played`, `handed_on` or
//! `missed`, and it is left out of the rating, which counts the people
//! alone, in their order among themselves. A game with fewer than two
//! people rates nobody. A person's seat that the bot plays for a while
//! (autopilot, a missed turn) stays theirs, and so does its result. To
//! seat a bot, mark its seat with [`GameMeta::set_bot`] in the update
//! that seats it (or in a new game's bookkeeping), and where an address
//! is written for it (its setup; the act of a `replace PLAYER bot`,
//! `replace PLAYER by bot`) give one without `@`, such as `bot`: then the
//! records [`derive`] works out from a game's log agree with those kept.
//!
//! **The rating** is Weng and Lin's Bayesian approximation with the
//! Bradley-Terry model over every pair (Weng & Lin, "A Bayesian
//! Approximation Method for Online Ranking", JMLR 12, 2011, algorithm 1;
//! what OpenSkill calls BT-full), each player a team of one: every person
//! has a skill `mu` (25 at first) and an uncertainty `sigma` (25/3), and
//! after a game each moves by how their place beat, tied or lost to each
//! other person's against how likely that was. Ties share a place. What
//! is shown is `mu - 3 sigma` (0 at first), which rises as a player's
//! games make their skill surer. Written here in some forty lines: the
//! `skillratings` crate has it, but is 15,000 lines that cost some 7 s of
//! CPU to build at our dependencies' opt-level (issue 37, point 8: a cold
//! build must get faster), for one function; `rate`'s test checks ours
//! against its figures.
//!
//! **Stores from before records** get theirs when first opened
//! ([`Store::open`]), derived from the stored games by [`derive`]: seats
//! and hand-overs from the setup and the moderators' `replace` acts in the
//! log, missed deadlines from the clock's log entries, the end from the
//! game, and the ratings in the order the games finished.
//!
//! [`Change`]: crate::Change
//! [`NewGame`]: crate::NewGame
//! [`GameUpdate::missed`]: crate::GameUpdate::missed
//! [`GameUpdate::ended`]: crate::GameUpdate::ended
//! [`GameMeta::bots`]: crate::GameMeta::bots
//! [`GameMeta::set_bot`]: crate::GameMeta::set_bot
//! [`Store::commit`]: crate::Store::commit
//! [`Store::open`]: crate::Store::open

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use engine::{Placing, Seat};
use serde::{Deserialize, Serialize};

use sled::transaction::{ConflictableTransactionError, Transactional};

use crate::{
    Abort, EntryKind, GameMeta, GameRecord, LogEntry, Store, StoreError, transaction_error,
    unreadable,
};

/// One address's record: the names it played under, and its figures per
/// game kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlayerRecord {
    /// The names the address took a seat under, first first (a seat
    /// handed on keeps its name: the successor plays under it).
    #[serde(default)]
    pub names: Vec<String>,
    /// Per game kind (`rocket`, `linie1`).
    #[serde(default)]
    pub kinds: BTreeMap<String, KindRecord>,
}

/// One address's figures in one game kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KindRecord {
    /// Games in which the address took a seat (at the start, or handed on
    /// to it).
    #[serde(default)]
    pub played: u32,
    /// Games that ended by their rules with the address in its seat.
    #[serde(default)]
    pub finished: u32,
    /// Of those, the games it placed first in (alone or tied).
    #[serde(default)]
    pub won: u32,
    /// Games a moderator aborted with the address in its seat.
    #[serde(default)]
    pub aborted: u32,
    /// Seats the address left to someone else (a moderator's `replace`).
    #[serde(default)]
    pub handed_on: u32,
    /// Deadlines the address let pass (each counted once, whatever the
    /// game's policy made of it; a moderator's `skip` is none).
    #[serde(default)]
    pub missed: u32,
    /// Finished games by place: `"2/4"` (second of four seats) → how many.
    #[serde(default)]
    pub placings: BTreeMap<String, u32>,
    /// The rating, once a finished game with two or more people rated it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<Rating>,
}

/// A Weng-Lin rating (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The skill.
    pub mu: f64,
    /// The uncertainty of the skill.
    pub sigma: f64,
    /// The finished games it was rated on.
    pub games: u32,
}

/// A rating's starting skill.
const MU: f64 = 25.0;
/// A rating's starting uncertainty.
const SIGMA: f64 = MU / 3.0;
/// The skill difference that gives the better player about two chances
/// in three.
const BETA: f64 = SIGMA / 2.0;
/// The least a variance may shrink to in one game, as a share of it.
const KAPPA: f64 = 0.000_001;

impl Default for Rating {
    fn default() -> Self {
        Rating {
            mu: MU,
            sigma: SIGMA,
            games: 0,
        }
    }
}

impl Rating {
    /// The rating shown: `mu - 3 sigma`, 0 before the first game.
    pub fn shown(&self) -> f64 {
        self.mu - 3.0 * self.sigma
    }
}

/// The ratings after one game: `players` each with their rating before
/// and their place (1 best; ties share one), in the same order.
pub fn rate(players: &[(Rating, u8)]) -> Vec<Rating> {
    players
        .iter()
        .enumerate()
        .map(|(i, (r, place))| {
            let var = r.sigma * r.sigma;
            let (mut omega, mut delta) = (0.0, 0.0);
            for (q, (o, other)) in players.iter().enumerate() {
                if q == i {
                    continue;
                }
                let c = (var + o.sigma * o.sigma + 2.0 * BETA * BETA).sqrt();
                // The chance that i beats q: the logistic of their gap.
                let p = 1.0 / (1.0 + ((o.mu - r.mu) / c).exp());
                let score = match other.cmp(place) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                };
                omega += var / c * (score - p);
                let gamma = r.sigma / c;
                delta += gamma * var / (c * c) * p * (1.0 - p);
            }
            Rating {
                mu: r.mu + omega,
                sigma: r.sigma * (1.0 - delta).max(KAPPA).sqrt(),
                games: r.games + 1,
            }
        })
        .collect()
}

impl PlayerRecord {
    /// Every kind's figures added up (no rating: each kind has its own).
    pub fn total(&self) -> KindRecord {
        let mut t = KindRecord::default();
        for k in self.kinds.values() {
            t.played += k.played;
            t.finished += k.finished;
            t.won += k.won;
            t.aborted += k.aborted;
            t.handed_on += k.handed_on;
            t.missed += k.missed;
            for (place, n) in &k.placings {
                *t.placings.entry(place.clone()).or_default() += n;
            }
        }
        t
    }

    /// The figures of `kind`, made if missing.
    fn kind(&mut self, kind: &str) -> &mut KindRecord {
        self.kinds.entry(kind.to_string()).or_default()
    }

    /// Adds the counts of `other` to these, the names it has that these
    /// lack after them; ratings stay as they are (a merge of two
    /// databases rates their games again, in order: see [`derive`]).
    pub fn add_counts(&mut self, other: &PlayerRecord) {
        for name in &other.names {
            if !self.names.contains(name) {
                self.names.push(name.clone());
            }
        }
        for (kind, o) in &other.kinds {
            let k = self.kind(kind);
            k.played += o.played;
            k.finished += o.finished;
            k.won += o.won;
            k.aborted += o.aborted;
            k.handed_on += o.handed_on;
            k.missed += o.missed;
            for (place, n) in &o.placings {
                *k.placings.entry(place.clone()).or_default() += n;
            }
        }
    }
}

/// The key of `address`'s record: the address, trimmed, in lower case.
pub(crate) fn address_key(address: &str) -> String {
    address.trim().to_ascii_lowercase()
}

/// One change to one address's record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Delta {
    /// The address, as [`address_key`] writes it.
    pub(crate) address: String,
    /// The game's kind.
    pub(crate) kind: String,
    /// What happened.
    pub(crate) what: Event,
}

/// What happened to a seat's person.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Event {
    /// Took a seat, under this name.
    Seated(String),
    /// Left their seat to someone else.
    HandedOn,
    /// Let a deadline pass.
    Missed,
    /// In the game when a moderator aborted it.
    Aborted,
    /// In the game when it finished, at this place of so many seats.
    Finished {
        /// The place (1 best).
        place: u8,
        /// Of how many seats.
        of: usize,
    },
}

impl Delta {
    /// Writes the change into `record`.
    pub(crate) fn apply(&self, record: &mut PlayerRecord) {
        if let Event::Seated(name) = &self.what
            && !record.names.contains(name)
        {
            record.names.push(name.clone());
        }
        let k = record.kind(&self.kind);
        match &self.what {
            Event::Seated(_) => k.played += 1,
            Event::HandedOn => k.handed_on += 1,
            Event::Missed => k.missed += 1,
            Event::Aborted => k.aborted += 1,
            Event::Finished { place, of } => {
                k.finished += 1;
                if *place == 1 {
                    k.won += 1;
                }
                *k.placings.entry(format!("{place}/{of}")).or_default() += 1;
            }
        }
    }
}

/// A finished game's people, to be rated: their addresses and places.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Rated {
    /// The game's kind.
    pub(crate) kind: String,
    /// Each person's address ([`address_key`]) and place.
    pub(crate) people: Vec<(String, u8)>,
}

impl Rated {
    /// The records of the game's people with their new ratings, each
    /// record read through `get`.
    pub(crate) fn apply<E>(
        &self,
        mut get: impl FnMut(&str) -> Result<PlayerRecord, E>,
    ) -> Result<Vec<(String, PlayerRecord)>, E> {
        let mut records = Vec::with_capacity(self.people.len());
        let mut before = Vec::with_capacity(self.people.len());
        for (address, place) in &self.people {
            let record = get(address)?;
            let rating = record
                .kinds
                .get(&self.kind)
                .and_then(|k| k.rating)
                .unwrap_or_default();
            records.push((address.clone(), record));
            before.push((rating, *place));
        }
        for ((_, record), after) in records.iter_mut().zip(rate(&before)) {
            record.kind(&self.kind).rating = Some(after);
        }
        Ok(records)
    }
}

/// What the records take from a game that ends: each person's end, and
/// the rating of a finished game with two or more people. `holder(seat)`
/// is the seat's address, None for a bot's.
pub(crate) fn ending(
    kind: &str,
    seats: usize,
    ended: &Ending,
    holder: impl Fn(Seat) -> Option<String>,
) -> (Vec<Delta>, Option<Rated>) {
    let delta = |address: String, what: Event| Delta {
        address,
        kind: kind.to_string(),
        what,
    };
    match ended {
        Ending::Aborted => {
            let deltas = (0..seats)
                .filter_map(|s| holder(Seat(s as u8)))
                .map(|a| delta(a, Event::Aborted))
                .collect();
            (deltas, None)
        }
        Ending::Finished(placings) => {
            let people: Vec<(String, u8)> = placings
                .iter()
                .filter_map(|p| holder(p.seat).map(|a| (a, p.place)))
                .collect();
            let deltas = people
                .iter()
                .map(|(a, place)| {
                    let what = Event::Finished {
                        place: *place,
                        of: seats,
                    };
                    delta(a.clone(), what)
                })
                .collect();
            let rated = (people.len() >= 2).then(|| Rated {
                kind: kind.to_string(),
                people,
            });
            (deltas, rated)
        }
    }
}

/// What one commit changes in the records: each address's changes, then
/// the ratings of the games it finishes.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Changes {
    pub(crate) deltas: Vec<Delta>,
    pub(crate) rated: Vec<Rated>,
}

impl Changes {
    /// True if nothing changes.
    pub(crate) fn is_empty(&self) -> bool {
        self.deltas.is_empty() && self.rated.is_empty()
    }

    /// A new game's seats: each person's `played`.
    pub(crate) fn new_game(&mut self, record: &GameRecord, meta: &GameMeta) {
        for (s, p) in record.setup.players.iter().enumerate() {
            if !meta.is_bot(Seat(s as u8)) {
                self.deltas.push(Delta {
                    address: address_key(&p.email),
                    kind: record.setup.kind.clone(),
                    what: Event::Seated(p.name.clone()),
                });
            }
        }
    }

    /// An update of game `record` whose bookkeeping was `old`: seats that
    /// changed hands, deadlines missed, and the game's end.
    pub(crate) fn update(&mut self, record: &GameRecord, old: &GameMeta, u: &crate::GameUpdate) {
        let kind = record.setup.kind.as_str();
        let seats = record.setup.players.len();
        let new = &u.meta;
        let delta = |address: &str, what: Event| Delta {
            address: address_key(address),
            kind: kind.to_string(),
            what,
        };
        for s in 0..seats {
            let seat = Seat(s as u8);
            let (was, is) = (old.address(record, seat), new.address(record, seat));
            if address_key(was) == address_key(is) && old.is_bot(seat) == new.is_bot(seat) {
                continue;
            }
            if !old.is_bot(seat) {
                self.deltas.push(delta(was, Event::HandedOn));
            }
            if !new.is_bot(seat) {
                let name = record.setup.players[s].name.clone();
                self.deltas.push(delta(is, Event::Seated(name)));
            }
        }
        for seat in &u.missed {
            if !new.is_bot(*seat) {
                self.deltas
                    .push(delta(new.address(record, *seat), Event::Missed));
            }
        }
        if let Some(ended) = &u.ended {
            let holder =
                |seat: Seat| (!new.is_bot(seat)).then(|| address_key(new.address(record, seat)));
            let (deltas, rated) = ending(kind, seats, ended, holder);
            self.deltas.extend(deltas);
            self.rated.extend(rated);
        }
    }

    /// The records these changes touch, as they leave them: each read
    /// once through `get`, then changed in order.
    pub(crate) fn apply<E>(
        &self,
        mut get: impl FnMut(&str) -> Result<PlayerRecord, E>,
    ) -> Result<BTreeMap<String, PlayerRecord>, E> {
        let mut touched: BTreeMap<String, PlayerRecord> = BTreeMap::new();
        for d in &self.deltas {
            if !touched.contains_key(&d.address) {
                touched.insert(d.address.clone(), get(&d.address)?);
            }
            if let Some(record) = touched.get_mut(&d.address) {
                d.apply(record);
            }
        }
        for r in &self.rated {
            let rerated = r.apply(|a| match touched.get(a) {
                Some(record) => Ok(record.clone()),
                None => get(a),
            })?;
            touched.extend(rerated);
        }
        Ok(touched)
    }
}

/// How a game ended, where an update ends it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By its rules, with the placings.
    Finished(Vec<Placing>),
    /// A moderator's `abort`.
    Aborted,
}

/// A stored game, as [`derive`] reads it.
pub struct StoredGame<'a> {
    /// Its record (kind, seats, names, addresses).
    pub record: &'a GameRecord,
    /// Its bookkeeping (who holds each seat now, aborted).
    pub meta: &'a GameMeta,
    /// Its whole log.
    pub log: &'a [LogEntry],
    /// Its placings, if it finished by its rules.
    pub finished: Option<Vec<Placing>>,
}

/// A game's placings, if it finished by its rules.
pub(crate) fn finished(game: &dyn engine::AnyGame) -> Option<Vec<Placing>> {
    match game.status() {
        engine::Status::Finished(placings) => Some(placings),
        engine::Status::Active(_) => None,
    }
}

/// A game as [`derive`] reads it, owned.
pub(crate) struct GameFacts {
    pub(crate) record: GameRecord,
    pub(crate) meta: GameMeta,
    pub(crate) log: Vec<LogEntry>,
    pub(crate) finished: Option<Vec<Placing>>,
}

impl GameFacts {
    pub(crate) fn stored(&self) -> StoredGame<'_> {
        StoredGame {
            record: &self.record,
            meta: &self.meta,
            log: &self.log,
            finished: self.finished.clone(),
        }
    }
}

/// The records of `games`, derived from what each game keeps (see the
/// module doc): for a database from before records, and an export
/// without them. The ratings go in the order the games finished (the
/// time of their last order; games that finished at one moment in the
/// order given).
pub fn derive<'a>(
    games: impl IntoIterator<Item = StoredGame<'a>>,
) -> BTreeMap<String, PlayerRecord> {
    let mut records: BTreeMap<String, PlayerRecord> = BTreeMap::new();
    let mut rated: Vec<(DateTime<Utc>, usize, Rated)> = Vec::new();
    for (n, game) in games.into_iter().enumerate() {
        let (deltas, rating) = game_deltas(&game);
        for d in deltas {
            d.apply(records.entry(d.address.clone()).or_default());
        }
        if let Some(r) = rating {
            let at = game
                .log
                .iter()
                .rev()
                .find(|e| e.kind == EntryKind::Order)
                .map_or(game.record.created, |e| e.at);
            rated.push((at, n, r));
        }
    }
    rated.sort_by_key(|(at, n, _)| (*at, *n));
    for (_, _, r) in rated {
        let get = |a: &str| {
            Ok::<_, std::convert::Infallible>(records.get(a).cloned().unwrap_or_default())
        };
        let Ok(rerated) = r.apply(get);
        records.extend(rerated);
    }
    records
}

/// What one stored game gives the records: its seats, hand-overs, missed
/// deadlines and end, and its rating if it has one.
///
/// Who held a seat when: the setup's address, then each moderator's
/// `replace PLAYER by ADDRESS` in the log. A holder whose address has no
/// `@` (a bot seated as `bot`) is no person; a seat the bookkeeping marks
/// as a bot's at the end, whose last holder was a person, was handed on
/// to the bot.
fn game_deltas(game: &StoredGame<'_>) -> (Vec<Delta>, Option<Rated>) {
    let (record, meta) = (game.record, game.meta);
    let kind = record.setup.kind.as_str();
    let seats = record.setup.players.len();
    let person = |address: &str| address.contains('@');
    let delta = |address: &str, what: Event| Delta {
        address: address_key(address),
        kind: kind.to_string(),
        what,
    };
    let name = |s: usize| Event::Seated(record.setup.players[s].name.clone());
    let mut holders: Vec<String> = record
        .setup
        .players
        .iter()
        .map(|p| p.email.clone())
        .collect();
    let mut out: Vec<Delta> = (0..seats)
        .filter(|s| person(&holders[*s]))
        .map(|s| delta(&holders[s], name(s)))
        .collect();
    let replaces = replaced(record, game.log);
    let mut next = 0;
    let mut missed_run: Option<(Seat, String)> = None;
    for e in game.log {
        while let Some((seq, seat, address)) = replaces.get(next)
            && *seq == e.seq
        {
            let s = seat.index();
            if person(&holders[s]) {
                out.push(delta(&holders[s], Event::HandedOn));
            }
            if person(address) {
                out.push(delta(address, name(s)));
            }
            holders[s] = address.clone();
            next += 1;
        }
        if let Some(seat) = missed_deadline(e, &mut missed_run)
            && let Some(address) = holders.get(seat.index())
            && person(address)
        {
            out.push(delta(address, Event::Missed));
        }
    }
    for (s, holder) in holders.iter().enumerate() {
        if meta.is_bot(Seat(s as u8)) && person(holder) {
            out.push(delta(holder, Event::HandedOn));
        }
    }
    let ended = if meta.aborted {
        Some(Ending::Aborted)
    } else {
        game.finished.clone().map(Ending::Finished)
    };
    let Some(ended) = ended else {
        return (out, None);
    };
    let holder = |seat: Seat| (!meta.is_bot(seat)).then(|| address_key(meta.address(record, seat)));
    let (end, rated) = ending(kind, seats, &ended, holder);
    out.extend(end);
    (out, rated)
}

/// The `replace PLAYER by ADDRESS` acts of `log`, in order: the entry's
/// number, the seat and the address that took it.
fn replaced(record: &GameRecord, log: &[LogEntry]) -> Vec<(u64, Seat, String)> {
    log.iter()
        .filter(|e| {
            e.kind == EntryKind::Act && e.source.as_ref().is_some_and(|s| s.moderator().is_some())
        })
        .filter_map(|e| {
            let rest = e.order.strip_prefix("replace ")?;
            let (name, address) = rest.rsplit_once(" by ")?;
            let seat = record.seat_named(name).ok()?;
            Some((e.seq, seat, address.trim().to_string()))
        })
        .collect()
}

/// How the clock's log entries say a deadline was missed: under `wait` an
/// act, under `skip` and `default` the orders given for the player, each
/// with this reason (several orders for one deadline, one after another).
const MISSED: &str = "missed the deadline";

/// The seat whose deadline `e` says was missed, where it is the first
/// entry of that miss (`run`: the last such order's seat and reason).
fn missed_deadline(e: &LogEntry, run: &mut Option<(Seat, String)>) -> Option<Seat> {
    let clock = e.source == Some(engine::Actor::Deadline);
    match e.kind {
        EntryKind::Act if clock && e.order.starts_with(MISSED) => {
            *run = None;
            Some(e.seat)
        }
        EntryKind::Order if clock => {
            let why = e.why.as_deref().filter(|w| w.starts_with(MISSED))?;
            let same = run.as_ref().is_some_and(|(s, w)| *s == e.seat && w == why);
            *run = Some((e.seat, why.to_string()));
            (!same).then_some(e.seat)
        }
        _ => {
            *run = None;
            None
        }
    }
}

/// Where `meta` says the records are kept (their format): a database
/// without it is from before records, and gets them derived when opened.
pub(crate) const RECORDS_KEY: &[u8] = b"records";
/// The records' format.
pub(crate) const RECORDS_FORMAT: u64 = 1;

/// `record` as stored.
fn encode(address: &str, record: &PlayerRecord) -> Result<Vec<u8>, StoreError> {
    serde_json::to_vec(record).map_err(|e| unreadable(&format!("the record of {address}"), e))
}

/// A stored record.
fn decode(address: &str, bytes: &[u8]) -> Result<PlayerRecord, StoreError> {
    serde_json::from_slice(bytes).map_err(|e| unreadable(&format!("the record of {address}"), e))
}

impl Store {
    /// The record of `address` (any case), if it ever took a seat here.
    pub fn player_record(&self, address: &str) -> Result<Option<PlayerRecord>, StoreError> {
        let key = address_key(address);
        match self.records.get(key.as_bytes())? {
            Some(bytes) => decode(&key, &bytes).map(Some),
            None => Ok(None),
        }
    }

    /// Every record, by address.
    pub fn player_records(&self) -> Result<BTreeMap<String, PlayerRecord>, StoreError> {
        let mut out = BTreeMap::new();
        for item in self.records.iter() {
            let (k, v) = item?;
            let address = String::from_utf8_lossy(&k).into_owned();
            let record = decode(&address, &v)?;
            out.insert(address, record);
        }
        Ok(out)
    }

    /// The records of every stored game, derived from the games ([`derive`]).
    pub fn derived_records(&self) -> Result<BTreeMap<String, PlayerRecord>, StoreError> {
        let games = self.game_facts()?;
        Ok(derive(games.iter().map(GameFacts::stored)))
    }

    /// What [`derive`] reads of every stored game, in id order. A game
    /// that cannot be read is left out, and logged.
    pub(crate) fn game_facts(&self) -> Result<Vec<GameFacts>, StoreError> {
        let mut games = Vec::new();
        for id in self.ids()? {
            let read = (|| -> Result<_, StoreError> {
                let loaded = self.load(&id)?;
                Ok(GameFacts {
                    finished: finished(&*loaded.game),
                    record: loaded.record,
                    meta: self.meta(&id)?,
                    log: self.log(&id)?,
                })
            })();
            match read {
                Ok(game) => games.push(game),
                Err(e) => {
                    tracing::error!(game = %id, error = %e, "a game left out of the players' records")
                }
            }
        }
        Ok(games)
    }

    /// A database from before records gets them, derived from its games,
    /// in one transaction with the mark that it has them.
    pub(crate) fn records_since_before(&self) -> Result<(), StoreError> {
        if self.meta.contains_key(RECORDS_KEY)? {
            return Ok(());
        }
        let derived = self.derived_records()?;
        let mut writes = Vec::with_capacity(derived.len());
        for (address, record) in &derived {
            writes.push((address.as_bytes().to_vec(), encode(address, record)?));
        }
        (&self.records, &self.meta)
            .transaction(|(records, meta)| {
                for (k, v) in &writes {
                    records.insert(k.as_slice(), v.as_slice())?;
                }
                meta.insert(RECORDS_KEY, &RECORDS_FORMAT.to_be_bytes())?;
                Ok::<(), ConflictableTransactionError<Abort>>(())
            })
            .map_err(|e| transaction_error(e, "players' records"))?;
        if !derived.is_empty() {
            tracing::info!(
                addresses = derived.len(),
                "players' records derived from the stored games"
            );
        }
        self.db.flush()?;
        Ok(())
    }

    /// What `change` changes in the records (see the module doc).
    pub(crate) fn record_changes(&self, change: &crate::Change) -> Result<Changes, StoreError> {
        let mut out = Changes::default();
        if let Some(n) = &change.new_game {
            out.new_game(&n.record, &n.meta);
        }
        if let Some(u) = &change.update {
            let (record, old) = match &change.new_game {
                Some(n) if n.record.id == u.id => (n.record.clone(), n.meta.clone()),
                _ => (self.record(&u.id)?, self.meta(&u.id)?),
            };
            out.update(&record, &old, u);
        }
        Ok(out)
    }
}

/// `changes` written inside a transaction on the `records` tree.
pub(crate) fn write_in(
    tree: &sled::transaction::TransactionalTree,
    changes: &Changes,
) -> Result<(), ConflictableTransactionError<Abort>> {
    let unreadable =
        |e: StoreError| ConflictableTransactionError::Abort(Abort::Unreadable(e.to_string()));
    let touched = changes.apply(|address| match tree.get(address.as_bytes())? {
        Some(bytes) => decode(address, &bytes).map_err(unreadable),
        None => Ok(PlayerRecord::default()),
    })?;
    for (address, record) in &touched {
        let bytes = encode(address, record).map_err(unreadable)?;
        tree.insert(address.as_bytes(), bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(mu: f64, sigma: f64) -> Rating {
        Rating {
            mu,
            sigma,
            games: 0,
        }
    }

    fn close(got: &[Rating], want: &[(f64, f64)]) {
        assert_eq!(got.len(), want.len());
        for (g, (mu, sigma)) in got.iter().zip(want) {
            assert!((g.mu - mu).abs() < 1e-5, "{got:?} against {want:?}");
            assert!((g.sigma - sigma).abs() < 1e-5, "{got:?} against {want:?}");
        }
    }

    /// The figures of `skillratings` 0.29.2's `weng_lin_multi_team` for
    /// the same games (each team one player), worked out beside it.
    #[test]
    fn rate_gives_the_figures_of_weng_lin_bt_full() {
        let new = Rating::default();
        close(
            &rate(&[(new, 1), (new, 2), (new, 2), (new, 4)]),
            &[
                (32.905694, 7.501219),
                (25.0, 7.501219),
                (25.0, 7.501219),
                (17.094306, 7.501219),
            ],
        );
        close(
            &rate(&[
                (r(30.0, 5.0), 2),
                (new, 1),
                (r(20.0, 3.0), 3),
                (r(27.0, 6.0), 3),
            ]),
            &[
                (30.440003, 4.765012),
                (34.407252, 7.000627),
                (19.612544, 2.967008),
                (23.039499, 5.518897),
            ],
        );
        let two = rate(&[(new, 1), (new, 2)]);
        close(&two, &[(27.635231, 8.065506), (22.364769, 8.065506)]);
        assert!(two.iter().all(|r| r.games == 1));
        assert_eq!(new.shown(), 0.0);
        assert!(two[0].shown() > 0.0 && two[1].shown() < 0.0);
    }

    #[test]
    fn a_finished_game_gives_each_person_their_place_and_rates_two_or_more() {
        let placings = vec![
            Placing {
                seat: Seat(1),
                place: 1,
                score: 9,
            },
            Placing {
                seat: Seat(0),
                place: 2,
                score: 5,
            },
            Placing {
                seat: Seat(2),
                place: 3,
                score: 1,
            },
        ];
        let people = ["a@x", "b@x", "c@x"];
        let (deltas, rated) = ending("rocket", 3, &Ending::Finished(placings.clone()), |s| {
            Some(people[s.index()].to_string())
        });
        let mut rec = PlayerRecord::default();
        for d in deltas.iter().filter(|d| d.address == "b@x") {
            d.apply(&mut rec);
        }
        let k = &rec.kinds["rocket"];
        assert_eq!((k.finished, k.won, k.placings["1/3"]), (1, 1, 1));
        assert_eq!(rated.map(|r| r.people.len()), Some(3));
        // Seat 1 a bot: two people are rated, in their places.
        let (deltas, rated) = ending("rocket", 3, &Ending::Finished(placings.clone()), |s| {
            (s != Seat(1)).then(|| people[s.index()].to_string())
        });
        assert_eq!(deltas.len(), 2);
        assert_eq!(
            rated.map(|r| r.people),
            Some(vec![("a@x".to_string(), 2), ("c@x".to_string(), 3)])
        );
        // One person among bots: not rated.
        let (_, rated) = ending("rocket", 3, &Ending::Finished(placings), |s| {
            (s == Seat(0)).then(|| people[0].to_string())
        });
        assert_eq!(rated, None);
    }
}
