//! The game-agnostic engine contract that every game implements, and the
//! registry that lets the store, the command line and the daemon handle a game
//! without knowing which game it is.
//!
//! A game is pure: it is set up from its players, options, board data and a
//! seed, and then changes only through [`Game::apply`]. It never reads the
//! clock, the disk, the network or global randomness, so the same setup and
//! the same orders always give the same game, byte for byte. That is what
//! makes replays, undo and archives cheap.
//!
//! Two layers:
//! - [`Game`], with typed orders and events, which a game module implements;
//! - [`AnyGame`], an object-safe view of any [`Game`] that speaks text orders
//!   and JSON, which is all the store and the command line ever see.
#![warn(missing_docs)]

pub mod actor;
pub mod bot;
pub mod canvas;
pub mod chatter;
pub mod entry;
pub mod grammar;
pub mod person;
pub mod picture;
pub mod rng;
pub mod viewer;

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use actor::Actor;
pub use canvas::{Canvas, Map, Seg, escape_html, page_html, page_text};
pub use entry::{
    BoardSource, GameEntry, GameOption, Options, SetupError, WaitWords, check_players, read_options,
};
pub use grammar::{OrderError, OrderForm};
pub use person::Person;
pub use viewer::Viewer;

/// A seat at the table: 0 for the first player given at set-up, 1 for the next,
/// and so on clockwise. Play passes from a seat to the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat's index into a list of players.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0 + 1)
    }
}

/// A player as set up: the name they play under and their mail address.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerSetup {
    /// The name shown to everyone and typed after `--as`.
    pub name: String,
    /// Where their reports go.
    pub email: String,
}

/// Everything a game is created from. Together with the log of accepted
/// orders it determines the game completely.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// The game's kind, e.g. `rocket`.
    pub kind: String,
    /// Players in seat order (clockwise around the table).
    pub players: Vec<PlayerSetup>,
    /// Named options, each on or off (e.g. `veto_defend_only`).
    pub options: Vec<String>,
    /// The seed of the game's own random generator.
    pub seed: u64,
}

impl Setup {
    /// A game of `kind` for `names`, in seat order, each at
    /// `NAME@example.org`, with no options: for tests and examples.
    pub fn for_names(kind: &str, names: &[&str], seed: u64) -> Setup {
        Setup {
            kind: kind.to_string(),
            players: names
                .iter()
                .map(|n| PlayerSetup {
                    name: n.to_string(),
                    email: format!("{n}@example.org"),
                })
                .collect(),
            options: Vec::new(),
            seed,
        }
    }
}

/// What an awaited player is expected to send.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Awaited {
    /// Who must act.
    pub seat: Seat,
    /// What for, in a few words (e.g. `2 actions`, `veto or no veto`).
    pub what: String,
    /// Which deadline applies.
    pub kind: WaitKind,
}

/// The kinds of input a game waits for, each with its own deadline; a game
/// names the ones it has in its own words ([`WaitWords`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitKind {
    /// The player's own turn.
    Turn,
    /// A question put to several players at once, each answering.
    Question,
    /// One player's bid in a round, one after the other.
    Bid,
}

impl WaitKind {
    /// Every kind.
    pub const ALL: [WaitKind; 3] = [WaitKind::Turn, WaitKind::Question, WaitKind::Bid];

    /// The neutral name, which is also the deadline setting's key:
    /// `turn`, `question`, `bid`.
    pub fn neutral_name(self) -> &'static str {
        match self {
            WaitKind::Turn => "turn",
            WaitKind::Question => "question",
            WaitKind::Bid => "bid",
        }
    }
}

/// When an order could apply, as the game judges it for a seat that sent it
/// now (see [`Game::timing`]). A processor applies `Now` orders at once,
/// holds `Queue` and `Standing` ones, and refuses `Never` ones at once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timing {
    /// Apply it now: the game takes it, or refuses it with its rule.
    Now,
    /// It waits until the game next awaits this seat after the interruption
    /// under way (Rocket: the active player's next action, behind a veto
    /// question or round), in order with the lines sent after it. Why, in
    /// a sentence for the player.
    Queue(String),
    /// The seat's standing answer for its place in a round that is under
    /// way or may be called (Rocket: a bid or pass in a veto round), seen
    /// by nobody else: applied when that place comes if still legal, and
    /// dropped if the place never comes. Why, in a sentence for the player.
    Standing(String),
    /// It can never apply, now or at a moment that will come: refused at
    /// once, with the rule.
    Never(RuleError),
}

/// The order a system action is written as in the log: a missed deadline or
/// a moderator's `skip`. Players cannot send it.
pub const SKIP_ORDER: &str = "!skip";

/// One player's place in the final result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placing {
    /// The player.
    pub seat: Seat,
    /// 1 for the winner; tied players share a place. A game that ended
    /// with no winner gives nobody 1.
    pub place: u8,
    /// The score the place was decided on (money in pounds for Rocket).
    pub score: i64,
}

/// Whether a game is still going.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    /// Still being played; these players are awaited.
    Active(Vec<Awaited>),
    /// Over, with the placings best first.
    Finished(Vec<Placing>),
}

/// A broken rule: the player's order is refused, the game is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{message}")]
pub struct RuleError {
    /// The sentence shown to the player: what is wrong and why.
    pub message: String,
    /// Where the rule is written (e.g. `rules, C1` or `rulings 6`).
    pub rule: String,
}

impl RuleError {
    /// A rule error citing where the rule stands.
    pub fn new(rule: &str, message: impl Into<String>) -> Self {
        RuleError {
            message: message.into(),
            rule: rule.to_string(),
        }
    }
}

/// A game's rules behind one fixed set of calls.
///
/// Implementations are pure: no I/O, no clock, no global randomness.
pub trait Game: Clone + Serialize + DeserializeOwned + Send + Sync + 'static {
    /// A typed order.
    type Order: Clone + PartialEq + fmt::Debug;
    /// Something that happened, in the game's own words.
    type Event: Clone + fmt::Debug + Serialize + DeserializeOwned;
    /// What one reader may see; see [`Game::view`].
    type View: Serialize;
    /// What every reader may know and play never changes: the printed
    /// board and pieces (Rocket's map, places and lines; Linie 1's board,
    /// tiles and cards), which the sentences of events, the status block,
    /// the map and the picture read beside the view
    /// ([`Game::describe_to`]).
    type Board;

    /// The game's kind as used in `Setup::kind`, e.g. `rocket`.
    const KIND: &'static str;
    /// The format of the game's JSON state ([`AnyGame::snapshot`]), stored
    /// beside every saved state. Raise it when the shape changes, and teach
    /// `stationmaster::registry::from_snapshot` to read the older one.
    const STATE_VERSION: u32;

    /// The players' names in seat order.
    fn player_names(&self) -> Vec<String>;

    /// The game's [`Game::Board`].
    fn board(&self) -> &Self::Board;

    /// Reads one order line as `seat` would mean it now.
    fn parse_order(&self, seat: Seat, line: &str) -> Result<Self::Order, OrderError>;

    /// The order that a missed deadline of `seat` stands for, when the game
    /// has one that changes nothing of substance: Rocket's veto question
    /// means `no veto`, a bid means `pass`. For a turn, the game's
    /// documented safe order (Rocket: a goods token), used by the `default`
    /// policy: the scheduler asks for this and never picks from
    /// [`Game::legal_orders`] itself.
    fn default_order(&self, seat: Seat) -> Option<Self::Order>;

    /// The canonical text of an order, which [`Game::parse_order`] reads back
    /// to the same order.
    fn order_text(&self, order: &Self::Order) -> String;

    /// Applies one order of `seat`: the events it caused, or a rule error and
    /// no change at all.
    fn apply(&mut self, seat: Seat, order: &Self::Order) -> Result<Vec<Self::Event>, RuleError>;

    /// Whose input is awaited now, and for what.
    fn awaiting(&self) -> Vec<Awaited>;

    /// [`Game::awaiting`] as `viewer` reads it: an awaited player may be
    /// told of a choice that only their secrets open (Linie 1: a finished
    /// route may start its trip), which everyone else must not learn.
    fn awaiting_to(&self, viewer: Viewer) -> Vec<Awaited> {
        let _ = viewer;
        self.awaiting()
    }

    /// The number of the turn being played (1 for the first).
    fn turn_number(&self) -> u32;

    /// True while play waits on an interruption (Rocket's veto question and
    /// round) after which the turn goes on. Which orders sent meanwhile
    /// wait, and which are refused, [`Game::timing`] says.
    fn interrupted(&self) -> bool;

    /// Every order `seat` could legally give now.
    fn legal_orders(&self, seat: Seat) -> Vec<Self::Order>;

    /// When `order` of `seat`, sent now, could apply: now (applied, or
    /// refused by [`Game::apply`]), at a moment that will come (queued
    /// behind an interruption, or kept as a standing answer), or never
    /// (refused at once). Called for every order line a player sends, and
    /// again for held lines whenever the game changes; an order the seat
    /// is awaited for is normally `Now`.
    fn timing(&self, seat: Seat, order: &Self::Order) -> Timing;

    /// When `order` of `seat` is an answer sent ahead for an interruption
    /// that is not, or no longer, under way (Rocket: `no veto` with no veto
    /// question open, a bid or pass with no veto round under way), the
    /// sentence that tells the player so, as information and not as a
    /// refusal (`Your \`pass\` was not needed: no veto round is under
    /// way.`). Such an answer lapses: it is dropped with this sentence, and
    /// the rest of the mail applies (docs/players.md, "Playing by mail").
    /// None for every other order, which [`Game::timing`] and
    /// [`Game::apply`] judge.
    fn lapsed(&self, seat: Seat, order: &Self::Order) -> Option<String> {
        let _ = (seat, order);
        None
    }

    /// What `event` showed a player that was random or hidden until then,
    /// in a few words that follow "showed" (Linie 1: `a tile drawn from the
    /// supply`; Rocket: `a payment in private money`), or None if it showed
    /// nothing new. A player's `takeback` undoes their last mail's orders
    /// only where none of their events showed anything: what was seen
    /// cannot be unseen. A game that does not answer lets nothing be taken
    /// back.
    fn revealed(&self, event: &Self::Event) -> Option<String> {
        let _ = event;
        Some("something this game does not let anyone take back".to_string())
    }

    /// Still going, or finished with placings.
    fn status(&self) -> Status;

    /// The order forms of the grammar, for help.
    fn order_forms(&self) -> Vec<OrderForm>;

    /// The "You can:" hints for `seat`: the legal orders where they are
    /// few (Rocket), or order forms with examples from the position where
    /// they are many (thousands of tile placements). Never computed by the
    /// engine from [`Game::legal_orders`], which a game may make large.
    fn hints(&self, seat: Seat) -> Vec<String>;

    /// Every order `seat` could give now, ready to copy, for a player's
    /// `moves` command (where [`Game::hints`] shows a few): all of them,
    /// or with `about` those that concern one part of the position in the
    /// game's own words (Linie 1: a square `C4`, or a hand tile `3`). An
    /// empty list: nothing to give now. `Err`: a sentence saying why
    /// `about` names nothing to list. By default the legal orders, one a
    /// line, and `about` refused.
    fn order_list(&self, seat: Seat, about: Option<&str>) -> Result<Vec<String>, String> {
        match about {
            None => Ok(self
                .legal_orders(seat)
                .iter()
                .map(|o| self.order_text(o))
                .collect()),
            Some(a) => Err(format!(
                "`moves {a}`: this game's `moves` lists every order you can give, and takes \
                 no word after it"
            )),
        }
    }

    /// What `seat` still owes of a turn they have begun and not finished
    /// (Linie 1: a second tile, or the draws after laying), as a sentence
    /// for the answer to their mail, so that a mail that leaves a turn
    /// half done is never answered with silence about it; None when they
    /// owe nothing, or the game has no such turns.
    fn unfinished(&self, seat: Seat) -> Option<String> {
        let _ = seat;
        None
    }

    /// What `viewer` may see of the game (a moderator and the operator see
    /// what a spectator sees; see [`Viewer`]): the one
    /// place where hidden information is decided. Every output is drawn
    /// from it: the JSON view is this value serialized (see
    /// `docs/state-json.md`); the status block, the sentences of events,
    /// the map and the picture are drawn from it and the [`Game::Board`]
    /// alone, never from the game (the map and the picture from the
    /// spectator's). So a view holds, beside what its JSON shows, what
    /// those need of the position, and nothing the reader may not see.
    fn view(&self, viewer: Viewer) -> Self::View;

    /// [`Game::view`] of a game that is over, above all one stopped before
    /// its rules ended it (a moderator's `abort`): once a game is over
    /// nothing is secret, as at a real table where everyone turns their
    /// cards up, so every player's private holdings are shown to every
    /// reader.
    fn view_over(&self, viewer: Viewer) -> Self::View;

    /// The JSON view for `viewer`: [`Game::view`], serialized.
    fn view_json(&self, viewer: Viewer) -> serde_json::Value {
        serde_json::to_value(self.view(viewer)).unwrap_or(serde_json::Value::Null)
    }

    /// The JSON view for `viewer` of a game that is over, by its rules or
    /// a moderator's `abort`: [`Game::view_over`], serialized, so that it
    /// shows what the text views show then (every player's secrets).
    fn view_json_over(&self, viewer: Viewer) -> serde_json::Value {
        serde_json::to_value(self.view_over(viewer)).unwrap_or(serde_json::Value::Null)
    }

    /// An event as a sentence for the reader of `view`, drawn from that
    /// view and the `board` alone: without the game (no `self`), a secret
    /// can reach a sentence only through the view (issue 37).
    fn describe_to(board: &Self::Board, view: &Self::View, event: &Self::Event) -> String;

    /// An event as a sentence for `viewer`: [`Game::describe_to`] their view.
    fn describe(&self, event: &Self::Event, viewer: Viewer) -> String {
        Self::describe_to(self.board(), &self.view(viewer), event)
    }

    /// The board as the reader of `view` sees it, as text and as HTML,
    /// drawn on the engine's [`canvas::Canvas`] from that view and the
    /// `board` alone, as [`Game::describe_to`]: a secret can reach the map
    /// only through the view. The engine draws it from the spectator's
    /// view ([`Game::render_map`]): it shows nothing private, so a report
    /// to every player draws it once; and, for a reader with a layer of
    /// their own ([`Game::own_layer`]), from theirs.
    fn draw_map(board: &Self::Board, view: &Self::View) -> Map;

    /// Whether the reader of `view` is shown a layer of their own on the
    /// map and the picture (Linie 1: their route, while they lay track;
    /// issue 35). Where true, [`Game::draw_map`] and [`Game::picture`] of
    /// that view are the spectator's with the layer on top, drawn from
    /// what only that view holds, and a report draws them for that reader
    /// ([`AnyGame::own_board`]). False by default: every reader is shown
    /// the spectator's map and picture, drawn once for all.
    fn own_layer(view: &Self::View) -> bool {
        let _ = view;
        false
    }

    /// The board: [`Game::draw_map`] of the spectator's view.
    fn render_map(&self) -> Map {
        Self::draw_map(self.board(), &self.view(Viewer::Spectator))
    }

    /// The board as a picture ([`picture::Picture`]: SVG in layers, text
    /// in "DejaVu Sans" only, the font the mail's PNG is rendered with),
    /// drawn from `view` and the `board` alone like the map, with what
    /// `last` (the events of the change being reported) touched marked.
    /// The engine draws it from the spectator's view
    /// ([`AnyGame::picture`]), so it shows nothing private and is one
    /// picture for every reader of a change, but for a reader with a layer
    /// of their own ([`Game::own_layer`]). `stopped`: how a moderator
    /// stopped the game (`aborted on …`), for a picture that says whose
    /// turn it is to say instead (as [`Game::stopped_status_to`]). `None`
    /// where the game draws no picture: its mail is then text and HTML
    /// only.
    fn picture(
        board: &Self::Board,
        view: &Self::View,
        last: &[Self::Event],
        stopped: Option<&str>,
    ) -> Option<picture::Picture> {
        let _ = (board, view, last, stopped);
        None
    }

    /// The status block below the map for the reader of `view`, drawn
    /// from that view and the `board` alone, as [`Game::describe_to`].
    fn status_to(board: &Self::Board, view: &Self::View) -> String;

    /// The status block for `viewer`: [`Game::status_to`] their view.
    fn render_status(&self, viewer: Viewer) -> String {
        Self::status_to(self.board(), &self.view(viewer))
    }

    /// The status block for the reader of `view` of a game stopped before
    /// its rules ended it (a moderator's `abort`): the position as it was
    /// left, shown as final. It opens with `The game is over: {how}.`
    /// where [`Game::status_to`] says whose turn it is, and asks nothing of
    /// anyone. The game itself is not told: the abort is the daemon's, in
    /// the game's bookkeeping, never an event of its rules.
    fn stopped_status_to(board: &Self::Board, view: &Self::View, how: &str) -> String;

    /// Internal consistency (conservation of pieces and the like). A failure
    /// is a bug in the engine, never a player's fault.
    fn check_invariants(&self) -> Result<(), String>;

    /// A game `viewer` cannot tell from this one: a copy in which every
    /// secret that `viewer`'s [`Game::view`] does not show is drawn anew
    /// from `rng`, at random among the values consistent with that view
    /// (others' private money or cards, the order of a face-down supply,
    /// the game's own random source for draws and dice to come). The
    /// engine's bot ([`bot`]) reads a game through this alone.
    ///
    /// It must overwrite each such secret **without reading it**: the
    /// result, for the same `rng`, depends only on what `viewer` may see,
    /// so two games that differ only in secrets hidden from `viewer` give
    /// equal copies (the bots' secrecy test, `tests/all/bots.rs`, checks
    /// it for every game). `viewer`'s own secrets, and everything public,
    /// are kept as they are. Each game says in its own docs which
    /// distribution it draws from.
    fn determinize(&self, viewer: Seat, rng: &mut rng::SplitMix64) -> Self;

    /// For the engine's bot and the bench's baselines only: how well
    /// `seat` stands now, in the game's own units, higher better, such
    /// that seats' estimates may be compared (Rocket: money plus what the
    /// end-game scoring would pay if the game ended now). None, the
    /// default: the game gives none, and the bot plays every game to its
    /// end. It may read every secret of `seat`, and of the others: never
    /// show it to a player, and ask it only of a game that
    /// [`Game::determinize`] made for the one asking (the bot does), or
    /// of a seat about itself.
    fn estimate(&self, seat: Seat) -> Option<i64> {
        let _ = seat;
        None
    }

    /// Every seat's [`Game::estimate`], by seat, or None where the game
    /// gives none: what the bot asks of every position it scores, so a
    /// game whose estimates share work (one reading of the board for
    /// every seat) may answer it at once. By default each seat's
    /// estimate in turn.
    fn estimates(&self) -> Option<Vec<i64>> {
        let seats: Vec<Seat> = (0..self.player_names().len())
            .map(|i| Seat(i as u8))
            .collect();
        self.estimates_of(&seats)
    }

    /// The [`Game::estimate`]s of `seats`, in the order asked, or None
    /// where the game gives none: what the bot asks of a position when
    /// only some seats' results count ([`Game::BOT_PROGRESS`] at 1). By
    /// default each seat's estimate in turn.
    fn estimates_of(&self, seats: &[Seat]) -> Option<Vec<i64>> {
        seats.iter().map(|s| self.estimate(*s)).collect()
    }

    /// The estimate's scale: how far apart two seats' [`Game::estimate`]s
    /// are when the bot takes the one ahead to finish ahead 73 times in
    /// 100 (the logistic curve at 1, [`bot::results`]).
    const ESTIMATE_SCALE: f64 = 1.0;

    /// For the engine's bot only: the weight, between 0 and 1, of a
    /// seat's own progress in the result of a position scored by
    /// [`Game::estimate`], the rest being its standing against the others
    /// (through [`Game::bot_progress`], where [`bot::Settings::progress`]
    /// is None). At 1 a seat
    /// plays for its own estimate alone, and the bot reads the estimates
    /// of the seats whose choices it weighs, not every seat's: the right
    /// weight where the others' estimates rest mostly on secrets the bot
    /// draws at random, knowing nothing of them (Linie 1's route cards,
    /// before its determinization read them from the tiles laid).
    const BOT_PROGRESS: f64 = 0.3;

    /// For the engine's bot only: [`Game::BOT_PROGRESS`] for `seat` in
    /// this position (by default that constant): a game may have a seat
    /// play for its own progress alone where its choices can no longer
    /// change the others' (a Linie 1 driver).
    fn bot_progress(&self, seat: Seat) -> f64 {
        let _ = seat;
        Self::BOT_PROGRESS
    }

    /// For the engine's bot only: how many of the orders of the seat it
    /// plays for, in [`Game::order_hint`]'s order, it reads one order
    /// ahead by [`Game::estimate`] before its search, to put them in the
    /// order of that estimate (the rest follow in hint order). Every one
    /// by default; a game whose hint puts the orders that can move the
    /// estimate first, and that lists hundreds, may read fewer: each
    /// costs an `apply` and an estimate, once a move.
    const BOT_ROOT_ESTIMATES: usize = usize::MAX;

    /// For the engine's bot only: `orders` (every legal order of `seat`
    /// now) put in the order it should look at them, the likeliest first,
    /// cheaply (Linie 1: the lays along the seat's route first). A hint and
    /// nothing more: the bot may still choose any of them. It may read
    /// `seat`'s secrets, and is only asked of a game that
    /// [`Game::determinize`] made. By default the list is left as it is.
    fn order_hint(&self, seat: Seat, orders: &mut Vec<Self::Order>) {
        let _ = (seat, orders);
    }
}

/// A reader's own map and picture ([`AnyGame::own_board`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnBoard {
    /// The map, with the reader's layer.
    pub map: Map,
    /// The picture, with the reader's layer, where it was asked for and
    /// the game draws one.
    pub picture: Option<picture::Picture>,
}

/// What one reader reads in a report ([`AnyGame::read`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReportText {
    /// The sentences of each entry's events, in the entries' order.
    pub sentences: Vec<Vec<String>>,
    /// The status block, where it was asked for.
    pub status: Option<String>,
}

/// An order that was accepted, with what it caused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Applied {
    /// Whose order it was.
    pub seat: Seat,
    /// The order in its canonical text, as stored in the log.
    pub order: String,
    /// The events, in the game's own JSON form.
    pub events: Vec<serde_json::Value>,
    /// The turn it was given in.
    pub turn: u32,
}

/// Why a text order was not applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OrderRejected {
    /// The line could not be read as an order.
    #[error(transparent)]
    Parse(#[from] OrderError),
    /// The order breaks a rule.
    #[error("{line}: {error}")]
    Rule {
        /// The line as written.
        line: String,
        /// The broken rule.
        error: RuleError,
    },
}

/// The object-safe face of any game: text orders in, text and JSON out.
pub trait AnyGame: Send + Sync {
    /// The kind, e.g. `rocket`.
    fn kind(&self) -> &'static str;
    /// The players' names in seat order.
    fn player_names(&self) -> Vec<String>;
    /// Parses and applies one order line of `seat`.
    fn apply_line(&mut self, seat: Seat, line: &str) -> Result<Applied, OrderRejected>;
    /// Whose input is awaited now.
    fn awaiting(&self) -> Vec<Awaited>;
    /// See [`Game::awaiting_to`].
    fn awaiting_to(&self, viewer: Viewer) -> Vec<Awaited>;
    /// See [`Game::interrupted`].
    fn interrupted(&self) -> bool;
    /// Parses one order line of `seat` and says when it could apply; see
    /// [`Game::timing`].
    fn timing_line(&self, seat: Seat, line: &str) -> Result<Timing, OrderRejected>;
    /// See [`Game::lapsed`]: the sentence for a line of `seat` that lapses,
    /// or None (also for a line that cannot be read).
    fn lapsed_line(&self, seat: Seat, line: &str) -> Option<String>;
    /// See [`Game::turn_number`].
    fn turn_number(&self) -> u32;
    /// The first of `events` (as stored in [`Applied::events`]) that
    /// showed something, as [`Game::revealed`] words it; an event this
    /// version cannot read is an error.
    fn revealed(&self, events: &[serde_json::Value]) -> Result<Option<String>, SetupError>;
    /// Still going, or finished.
    fn status(&self) -> Status;
    /// See [`Game::default_order`], in canonical text.
    fn default_order_line(&self, seat: Seat) -> Option<String>;
    /// The legal orders of `seat`, in canonical text.
    fn legal_order_lines(&self, seat: Seat) -> Vec<String>;
    /// The grammar's help text.
    fn help(&self) -> String;
    /// The grammar's order forms (what help prints; [`chatter`] reads the
    /// words orders begin with from them).
    fn forms(&self) -> Vec<OrderForm>;
    /// The "You can:" hints for `seat`.
    fn hints(&self, seat: Seat) -> Vec<String>;
    /// See [`Game::order_list`].
    fn order_list(&self, seat: Seat, about: Option<&str>) -> Result<Vec<String>, String>;
    /// See [`Game::unfinished`].
    fn unfinished(&self, seat: Seat) -> Option<String>;
    /// Events (as stored in [`Applied::events`]) as sentences for `viewer`;
    /// an event this version cannot read is an error, never left out.
    fn describe_events(
        &self,
        events: &[serde_json::Value],
        viewer: Viewer,
    ) -> Result<Vec<String>, SetupError>;
    /// What `viewer` reads in one report, from one view of theirs: the
    /// sentences of each entry's events (as [`AnyGame::describe_events`]
    /// gives them) and, where `status`, their status block (as
    /// [`AnyGame::render_status`]). A view lists the whole board, so one
    /// serves all the entries and the status block.
    fn read(
        &self,
        entries: &[&[serde_json::Value]],
        viewer: Viewer,
        status: bool,
    ) -> Result<ReportText, SetupError>;
    /// See [`Game::render_map`].
    fn render_map(&self) -> Map;
    /// [`Game::picture`] of the spectator's view, with the events (as
    /// stored in [`Applied::events`]) of the change being reported marked,
    /// or `None` where the game draws no picture; `stopped` as there.
    fn picture(
        &self,
        last: &[serde_json::Value],
        stopped: Option<&str>,
    ) -> Result<Option<picture::Picture>, SetupError>;
    /// The map and picture that `viewer` is shown where the game draws
    /// them a layer of their own ([`Game::own_layer`]), both from one view
    /// of theirs (the picture only where `picture` asks for it, with
    /// `last` marked as in [`AnyGame::picture`]); None where the
    /// spectator's ([`AnyGame::render_map`], [`AnyGame::picture`]) are
    /// theirs too, as for anyone but a player, and for everyone once a
    /// moderator `stopped` the game.
    fn own_board(
        &self,
        viewer: Viewer,
        last: &[serde_json::Value],
        stopped: Option<&str>,
        picture: bool,
    ) -> Result<Option<OwnBoard>, SetupError>;
    /// The map `viewer` is shown: their own ([`AnyGame::own_board`]), or
    /// the spectator's.
    fn render_map_to(&self, viewer: Viewer) -> Map {
        match self.own_board(viewer, &[], None, false) {
            Ok(Some(own)) => own.map,
            _ => self.render_map(),
        }
    }
    /// See [`Game::render_status`].
    fn render_status(&self, viewer: Viewer) -> String;
    /// [`Game::stopped_status_to`] the view of `viewer` with nothing
    /// secret ([`Game::view_over`]): the status block of a game a
    /// moderator aborted, with `how` it ended.
    fn render_stopped_status(&self, viewer: Viewer, how: &str) -> String;
    /// The map and status block for `viewer`, as text.
    fn render(&self, viewer: Viewer) -> String {
        page_text(
            &self.render_map_to(viewer).text,
            &self.render_status(viewer),
        )
    }
    /// The map and status for `viewer` as an HTML `<pre>`.
    fn render_html(&self, viewer: Viewer) -> String {
        page_html(
            &self.render_map_to(viewer).html,
            &self.render_status(viewer),
        )
    }
    /// The JSON view for `viewer`.
    fn view_json(&self, viewer: Viewer) -> serde_json::Value;
    /// See [`Game::view_json_over`].
    fn view_json_over(&self, viewer: Viewer) -> serde_json::Value;
    /// The whole state as JSON text, for a snapshot;
    /// `stationmaster::registry::from_snapshot` reads it back.
    fn snapshot(&self) -> Result<String, SetupError>;
    /// See [`Game::STATE_VERSION`].
    fn state_version(&self) -> u32;
    /// Engine self-check; see [`Game::check_invariants`].
    fn check_invariants(&self) -> Result<(), String>;
    /// A copy, to try orders on without touching the original.
    fn clone_box(&self) -> Box<dyn AnyGame>;
    /// The order the engine's bot plays for `seat` now ([`bot::choose`]
    /// with `seed`, best made by [`bot::seed`], and `settings`), in
    /// canonical text for [`AnyGame::apply_line`]; None when `seat` is not
    /// awaited or has nothing legal. It depends on nothing `seat` may not
    /// see, and the same game, seat, seed and settings give the same line.
    fn bot_order(&self, seat: Seat, seed: u64, settings: &bot::Settings) -> Option<String>;
}

impl<G: Game> AnyGame for G {
    fn kind(&self) -> &'static str {
        G::KIND
    }

    fn player_names(&self) -> Vec<String> {
        Game::player_names(self)
    }

    fn apply_line(&mut self, seat: Seat, line: &str) -> Result<Applied, OrderRejected> {
        let order = self.parse_order(seat, line)?;
        let text = self.order_text(&order);
        let turn = self.turn_number();
        let events = self
            .apply(seat, &order)
            .map_err(|error| OrderRejected::Rule {
                line: line.trim().to_string(),
                error,
            })?;
        let events = events
            .iter()
            .map(|e| serde_json::to_value(e).unwrap_or(serde_json::Value::Null))
            .collect();
        Ok(Applied {
            seat,
            order: text,
            events,
            turn,
        })
    }

    fn awaiting(&self) -> Vec<Awaited> {
        Game::awaiting(self)
    }

    fn awaiting_to(&self, viewer: Viewer) -> Vec<Awaited> {
        Game::awaiting_to(self, viewer)
    }

    fn interrupted(&self) -> bool {
        Game::interrupted(self)
    }

    fn timing_line(&self, seat: Seat, line: &str) -> Result<Timing, OrderRejected> {
        let order = self.parse_order(seat, line)?;
        Ok(self.timing(seat, &order))
    }

    fn lapsed_line(&self, seat: Seat, line: &str) -> Option<String> {
        let order = self.parse_order(seat, line).ok()?;
        self.lapsed(seat, &order)
    }

    fn turn_number(&self) -> u32 {
        Game::turn_number(self)
    }

    fn revealed(&self, events: &[serde_json::Value]) -> Result<Option<String>, SetupError> {
        Ok(read_events::<G>(events)?
            .iter()
            .find_map(|e| Game::revealed(self, e)))
    }

    fn status(&self) -> Status {
        Game::status(self)
    }

    fn default_order_line(&self, seat: Seat) -> Option<String> {
        self.default_order(seat).map(|o| self.order_text(&o))
    }

    fn legal_order_lines(&self, seat: Seat) -> Vec<String> {
        self.legal_orders(seat)
            .iter()
            .map(|o| self.order_text(o))
            .collect()
    }

    fn help(&self) -> String {
        grammar::help_text(&self.order_forms())
    }

    fn forms(&self) -> Vec<OrderForm> {
        self.order_forms()
    }

    fn hints(&self, seat: Seat) -> Vec<String> {
        Game::hints(self, seat)
    }

    fn order_list(&self, seat: Seat, about: Option<&str>) -> Result<Vec<String>, String> {
        Game::order_list(self, seat, about)
    }

    fn unfinished(&self, seat: Seat) -> Option<String> {
        Game::unfinished(self, seat)
    }

    fn describe_events(
        &self,
        events: &[serde_json::Value],
        viewer: Viewer,
    ) -> Result<Vec<String>, SetupError> {
        Ok(AnyGame::read(self, &[events], viewer, false)?
            .sentences
            .pop()
            .unwrap_or_default())
    }

    fn read(
        &self,
        entries: &[&[serde_json::Value]],
        viewer: Viewer,
        status: bool,
    ) -> Result<ReportText, SetupError> {
        let view = self.view(viewer);
        let mut sentences = Vec::with_capacity(entries.len());
        for events in entries {
            let mut out = Vec::new();
            for event in read_events::<G>(events)? {
                let sentence = G::describe_to(self.board(), &view, &event);
                if !sentence.is_empty() {
                    out.push(sentence);
                }
            }
            sentences.push(out);
        }
        Ok(ReportText {
            sentences,
            status: status.then(|| G::status_to(self.board(), &view)),
        })
    }

    fn render_map(&self) -> Map {
        Game::render_map(self)
    }

    fn picture(
        &self,
        last: &[serde_json::Value],
        stopped: Option<&str>,
    ) -> Result<Option<picture::Picture>, SetupError> {
        Ok(G::picture(
            self.board(),
            &self.view(Viewer::Spectator),
            &read_events::<G>(last)?,
            stopped,
        ))
    }

    fn own_board(
        &self,
        viewer: Viewer,
        last: &[serde_json::Value],
        stopped: Option<&str>,
        picture: bool,
    ) -> Result<Option<OwnBoard>, SetupError> {
        if stopped.is_some() || viewer.seat().is_none() {
            return Ok(None);
        }
        let view = self.view(viewer);
        if !G::own_layer(&view) {
            return Ok(None);
        }
        let picture = match picture {
            true => G::picture(self.board(), &view, &read_events::<G>(last)?, stopped),
            false => None,
        };
        Ok(Some(OwnBoard {
            map: G::draw_map(self.board(), &view),
            picture,
        }))
    }

    fn render_status(&self, viewer: Viewer) -> String {
        Game::render_status(self, viewer)
    }

    fn render_stopped_status(&self, viewer: Viewer, how: &str) -> String {
        G::stopped_status_to(self.board(), &self.view_over(viewer), how)
    }

    fn view_json(&self, viewer: Viewer) -> serde_json::Value {
        Game::view_json(self, viewer)
    }

    fn view_json_over(&self, viewer: Viewer) -> serde_json::Value {
        Game::view_json_over(self, viewer)
    }

    fn snapshot(&self) -> Result<String, SetupError> {
        serde_json::to_string(self).map_err(|e| SetupError::Unwritable {
            kind: G::KIND.to_string(),
            message: e.to_string(),
        })
    }

    fn state_version(&self) -> u32 {
        G::STATE_VERSION
    }

    fn check_invariants(&self) -> Result<(), String> {
        Game::check_invariants(self)
    }

    fn clone_box(&self) -> Box<dyn AnyGame> {
        Box::new(self.clone())
    }

    fn bot_order(&self, seat: Seat, seed: u64, settings: &bot::Settings) -> Option<String> {
        bot::choose(self, seat, seed, settings).map(|d| self.order_text(&d.order))
    }
}

/// Stored events ([`Applied::events`]) read back as `G`'s own; an event
/// this version cannot read is an error, never left out.
fn read_events<G: Game>(events: &[serde_json::Value]) -> Result<Vec<G::Event>, SetupError> {
    events
        .iter()
        .map(|v| {
            serde_json::from_value::<G::Event>(v.clone()).map_err(|e| SetupError::Event {
                kind: G::KIND.to_string(),
                message: format!("{e} in {v}"),
            })
        })
        .collect()
}

/// Looks a player up by name, without regard to case.
pub fn seat_of(names: &[String], name: &str) -> Option<Seat> {
    names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(name.trim()))
        .and_then(|i| u8::try_from(i).ok())
        .map(Seat)
}
