//! What is kept of a game besides its log: its id and record, its
//! private bookkeeping ([`GameMeta`], with the orders [`Held`] for later),
//! where its log ends, and the game as read back.

use chrono::{DateTime, Utc};
use engine::{AnyGame, OrderRejected, Seat, Setup};
use serde::{Deserialize, Serialize};

use crate::{Observer, ReportMode};

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
pub(crate) fn first_state_version() -> u32 {
    1
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
    /// Each seat held by a bot, not a person (issue 36): true at its
    /// place. Such a seat is nobody's in the players' records (see
    /// `records.rs`): whoever seats a bot, or hands a seat between a bot
    /// and a person, marks it here (with [`GameMeta::set_bot`]) in the
    /// same update. Empty, or shorter than the seats: the rest are
    /// people's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bots: Vec<bool>,
    /// Each seat whose player has the bot play their turns for them
    /// (`autopilot on`, issue 36) until they send an order or `autopilot
    /// off`: true at its place. Still their seat, and their record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub autopilot: Vec<bool>,
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

    /// True if a bot holds `seat` ([`GameMeta::bots`]).
    pub fn is_bot(&self, seat: Seat) -> bool {
        self.bots.get(seat.index()).copied().unwrap_or(false)
    }

    /// Marks `seat` as held by a bot (`true`) or a person.
    pub fn set_bot(&mut self, seat: Seat, bot: bool) {
        set_seat_flag(&mut self.bots, seat, bot);
    }

    /// True if `seat`'s player has the bot play for them ([`GameMeta::autopilot`]).
    pub fn on_autopilot(&self, seat: Seat) -> bool {
        self.autopilot.get(seat.index()).copied().unwrap_or(false)
    }

    /// Turns `seat`'s autopilot on or off.
    pub fn set_autopilot(&mut self, seat: Seat, on: bool) {
        set_seat_flag(&mut self.autopilot, seat, on);
    }

    /// True if the engine's bot plays `seat` at `now`: a bot holds it, its
    /// player turned their autopilot on, or they are away (`away … bot`)
    /// with the bot playing for them.
    pub fn bot_plays(&self, seat: Seat, now: DateTime<Utc>) -> bool {
        self.is_bot(seat) || self.on_autopilot(seat) || self.clock.bot_away(seat, now)
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

/// Sets `seat`'s place in a by-seat list of flags, the list grown to it;
/// a list of none set is kept empty (as stored before the flag existed).
fn set_seat_flag(flags: &mut Vec<bool>, seat: Seat, on: bool) {
    if flags.len() <= seat.index() {
        flags.resize(seat.index() + 1, false);
    }
    flags[seat.index()] = on;
    if flags.iter().all(|f| !f) {
        flags.clear();
    }
}
