//! Stephenson's Rocket (Reiner Knizia, 1999): the complete rules as a pure
//! state machine.
//!
//! The rule book is `seeds/002` (English; 001 Italian, 004 Hungarian with
//! worked examples); where it is silent, Stationmaster's rulings
//! (`docs/rocket-rulings.md`, cited as "rulings N") decide.
//!
//! A game moves through [`Phase`]s: the active player's actions; after a
//! locomotive moves, the veto question to the other shareholders; the veto
//! round (bids once around the table); and the end. Every order is checked in
//! full before anything changes, so a refused order leaves the game as it was.
//!
//! This module never touches mail, disk or the clock.
#![warn(missing_docs)]

pub mod board;
mod bot;
mod event;
pub mod hex;
mod order;
mod picture;
mod render;
mod rules;
pub mod scoring;
pub mod view;

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use board::{Board, Good, LineId, PlaceId, PlaceKind, Terrain};
use engine::{
    self, AnyGame, Awaited, BoardSource, Game, GameEntry, GameOption, OrderError, OrderForm,
    Placing, RuleError, Seat, Setup, SetupError, Status, Timing, Viewer, WaitKind, WaitWords,
};
pub use event::{Event, PaymentCause};
pub use hex::{Dir, Hex};
pub use order::Order;
pub use scoring::Money;

/// The options a Rocket game may switch on at `new`.
pub const OPTIONS: &[GameOption] = &[
    GameOption {
        name: "veto_defend_only",
        values: &[],
        help: "in a veto round the active player may only defend the hex first chosen",
        not_with: &[],
    },
    GameOption {
        name: "open_money",
        values: &[],
        help: "everyone sees everyone's money",
        not_with: &[],
    },
];

/// Stephenson's Rocket as the registry lists it.
pub const ENTRY: GameEntry = GameEntry {
    name: "rocket",
    title: "Stephenson's Rocket",
    players: 2..=4,
    options: OPTIONS,
    first_player: "chosen by the game's seed (`--seed`, else the clock); play goes clockwise in the order of `--player`",
    waits: &[
        WaitWords {
            kind: WaitKind::Question,
            name: "veto question",
            missed: "it counts as `no veto`",
            key_alias: Some("veto_question"),
        },
        WaitWords {
            kind: WaitKind::Bid,
            name: "bid in the veto round",
            missed: "it counts as a pass",
            key_alias: Some("veto_bid"),
        },
    ],
    default_turn: "a goods token is taken for them for each action left",
    skip_turn: "the turn's remaining actions are lost",
    state_version: <Rocket as Game>::STATE_VERSION,
    new: new_boxed,
    from_snapshot: from_snapshot_boxed,
    demo: Some(include_str!("../../../games/rocket/demo.txt")),
};

/// A new game on the operator's `rocket/board.toml`, or else the board
/// compiled in.
fn new_boxed(setup: &Setup, boards: &BoardSource) -> Result<Box<dyn AnyGame>, SetupError> {
    let board = match boards.file("rocket", "board.toml") {
        Some(path) => Board::from_file(&path)?,
        None => Board::embedded()?,
    };
    Ok(Box::new(Rocket::new(board, setup)?))
}

/// A stored state read back. Every format so far (1) reads as it is.
fn from_snapshot_boxed(_version: u32, json: &str) -> Result<Box<dyn AnyGame>, SetupError> {
    serde_json::from_str::<Rocket>(json)
        .map(|g| Box::new(g) as Box<dyn AnyGame>)
        .map_err(|e| SetupError::Snapshot {
            kind: ENTRY.name.to_string(),
            message: e.to_string(),
        })
}

impl From<board::BoardError> for SetupError {
    fn from(e: board::BoardError) -> Self {
        SetupError::Board(Box::new(e))
    }
}

/// Shares of each line at the start (rule book, contents).
pub const SHARES_PER_LINE: u8 = 16;
/// Supplementary shares (rule book, contents).
pub const SUPPLEMENTARY_SHARES: u8 = 16;
/// Track tiles, shared by every line (rulings 8).
pub const TRACK_TILES: u8 = 60;
/// Passenger tokens.
pub const PASSENGER_TOKENS: u8 = 9;
/// Stations per player (rulings 14).
pub const STATIONS_PER_PLAYER: u8 = 7;
/// Actions in a turn (rulings 12).
pub const ACTIONS_PER_TURN: u8 = 2;

/// The switches a game was set up with.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RocketOptions {
    /// The active player may only defend the hex first chosen in a veto round.
    pub veto_defend_only: bool,
    /// Everyone sees everyone's money (rulings 13, alternative).
    pub open_money: bool,
}

/// A player's holdings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// The player's name.
    pub name: String,
    /// Real shares held, by line.
    pub shares: Vec<u8>,
    /// Supplementary shares held, by the line they stand for.
    pub supplementary: Vec<u8>,
    /// Goods tokens held, by city (indexed by place) and good.
    pub tokens: Vec<[u8; 4]>,
    /// Passenger tokens.
    pub passengers: u8,
    /// Stations not on the board.
    pub stations_in_supply: u8,
    /// Money (private until the end, rulings 13).
    pub money: Money,
}

impl Player {
    /// Shares of `line` for majorities and exchanges: real and supplementary
    /// (rulings 6).
    pub fn shares_of(&self, line: LineId) -> u8 {
        self.shares[line.index()] + self.supplementary[line.index()]
    }

    /// Goods tokens of `good` held, from any city.
    pub fn goods(&self, good: Good) -> u8 {
        self.tokens.iter().map(|t| t[good.index()]).sum()
    }
}

/// A track tile as laid: the two sides of the hex it joins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tile {
    /// One end (where the locomotive came from, or a merger's joint).
    pub from: Dir,
    /// The other end (where the locomotive went).
    pub to: Dir,
}

/// What stands on one hex during play. Empty fields are left out of a
/// saved game: most hexes are empty, and this halves a snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// The line whose track (or merger joint) this is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track: Option<LineId>,
    /// The tile laid here, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tile: Option<Tile>,
    /// A player's station.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub station: Option<Seat>,
    /// A locomotive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locomotive: Option<LineId>,
}

/// Where a railway line stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LineStatus {
    /// In play, with shares on the board while any are left.
    Active,
    /// Cannot reach a new place or another line (rulings 9): board shares
    /// discarded, still extendable.
    Isolated,
    /// Merged into another line and gone (rulings 6).
    Dissolved {
        /// The surviving line.
        into: LineId,
    },
}

/// A railway line during play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// Where its locomotive stands (None once dissolved).
    pub locomotive: Option<Hex>,
    /// Which way the locomotive faces (None while on its starting town).
    pub facing: Option<Dir>,
    /// Active, isolated or dissolved.
    pub status: LineStatus,
    /// Shares left on the board.
    pub board_shares: u8,
    /// Places connected to the line (its starting town always).
    pub connected: BTreeSet<PlaceId>,
}

/// The current turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// Turns played so far, counting this one (1 for the first).
    pub number: u32,
    /// The active player.
    pub active: Seat,
    /// Actions left this turn.
    pub actions_left: u8,
    /// Lines already extended this turn (rulings 12).
    pub extended: Vec<LineId>,
}

/// An extension waiting on the veto question or round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extension {
    /// The line moved.
    pub line: LineId,
    /// Where its locomotive came from.
    pub from: Hex,
    /// How it faced there (None on its starting town).
    pub from_facing: Option<Dir>,
    /// The hex the active player chose.
    pub chosen: Hex,
    /// Every hex the move could legally have gone to: where a veto winner may
    /// put the locomotive (rulings 7).
    pub options: Vec<Hex>,
}

/// A bid in a veto round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bid {
    /// Who bid.
    pub seat: Seat,
    /// How many real shares.
    pub shares: u8,
    /// Where the locomotive would stand.
    pub hex: Hex,
}

/// Where the game is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// The active player takes actions.
    Actions,
    /// A locomotive moved; these shareholders are asked whether they call a
    /// veto round (rulings 7).
    VetoQuestion {
        /// The move in question.
        extension: Extension,
        /// Who has not answered yet.
        waiting: Vec<Seat>,
    },
    /// A veto round: bids once around the table, the active player last.
    VetoRound {
        /// The move in question.
        extension: Extension,
        /// Who called it.
        called_by: Seat,
        /// The bidding order.
        order: Vec<Seat>,
        /// The position in `order` of who bids now.
        next: usize,
        /// The highest bid so far.
        high: Option<Bid>,
    },
    /// The game is over.
    Finished,
}

/// One player's line in the final scoring table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalScore {
    /// Money earned during the game.
    pub during_game: Money,
    /// Money earned by end-game scoring.
    pub end_game: Money,
    /// The sum.
    pub total: Money,
}

/// The end of the game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// Why the game ended.
    pub reason: String,
    /// Each player's scores, by seat.
    pub scores: Vec<FinalScore>,
    /// Placings, best first; equal money shares a place.
    pub placings: Vec<Placing>,
}

/// A game of Stephenson's Rocket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rocket {
    board: Arc<Board>,
    options: RocketOptions,
    players: Vec<Player>,
    cells: Vec<Cell>,
    lines: Vec<Line>,
    /// Goods tokens still on each city, by place and good.
    city_tokens: Vec<[u8; 4]>,
    supplementary_pool: u8,
    passengers_left: u8,
    tiles_laid: u8,
    /// Real shares out of the game: discarded by isolation, returned at a
    /// merger, or bid for an isolated line.
    retired_shares: u8,
    /// Goods tokens discarded at the end (cities connected to no line).
    discarded_tokens: u8,
    turn: Turn,
    phase: Phase,
    result: Option<GameResult>,
}

impl Rocket {
    /// Sets up a game on `board` for `setup`'s players (2 to 4, in seat
    /// order). The seed chooses the starting player.
    pub fn new(board: Board, setup: &Setup) -> Result<Rocket, SetupError> {
        let n = setup.players.len();
        let given: Vec<&str> = setup.players.iter().map(|p| p.name.as_str()).collect();
        engine::check_players(ENTRY.title, &ENTRY.players, &given)?;
        let names: Vec<String> = given.iter().map(|n| n.trim().to_string()).collect();
        let on = engine::read_options(ENTRY.name, &setup.options, OPTIONS)?;
        let options = RocketOptions {
            veto_defend_only: on.on("veto_defend_only"),
            open_money: on.on("open_money"),
        };
        let lines_n = board.lines.len();
        let places_n = board.places.len();
        let mut cells = vec![Cell::default(); board.hex_count()];
        let mut lines = Vec::new();
        for info in &board.lines {
            let hex = board.place(info.start).hex;
            cells[board.index(hex)].locomotive = Some(LineId(lines.len() as u8));
            lines.push(Line {
                locomotive: Some(hex),
                facing: None,
                status: LineStatus::Active,
                board_shares: SHARES_PER_LINE,
                connected: BTreeSet::from([info.start]),
            });
        }
        let city_tokens = board
            .places
            .iter()
            .map(|p| match p.kind {
                PlaceKind::City(goods) => goods,
                _ => [0; 4],
            })
            .collect();
        let players = names
            .into_iter()
            .map(|name| Player {
                name,
                shares: vec![0; lines_n],
                supplementary: vec![0; lines_n],
                tokens: vec![[0; 4]; places_n],
                passengers: 0,
                stations_in_supply: STATIONS_PER_PLAYER,
                money: Money::ZERO,
            })
            .collect();
        // "Select one player to begin the game": the seed does.
        let first = engine::rng::SplitMix64::new(setup.seed).below(n);
        Ok(Rocket {
            board: Arc::new(board),
            options,
            players,
            cells,
            lines,
            city_tokens,
            supplementary_pool: SUPPLEMENTARY_SHARES,
            passengers_left: PASSENGER_TOKENS,
            tiles_laid: 0,
            retired_shares: 0,
            discarded_tokens: 0,
            turn: Turn {
                number: 1,
                active: Seat(first as u8),
                actions_left: ACTIONS_PER_TURN,
                extended: Vec::new(),
            },
            phase: Phase::Actions,
            result: None,
        })
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The options.
    pub fn options(&self) -> &RocketOptions {
        &self.options
    }

    /// Every player, by seat.
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// The player in `seat`.
    pub fn player(&self, seat: Seat) -> &Player {
        &self.players[seat.index()]
    }

    /// The line `id`.
    pub fn line(&self, id: LineId) -> &Line {
        &self.lines[id.index()]
    }

    /// What stands on `hex`.
    pub fn cell(&self, hex: Hex) -> &Cell {
        &self.cells[self.board.index(hex)]
    }

    /// Goods tokens still on `city`, by good.
    pub fn city_tokens(&self, city: PlaceId) -> [u8; 4] {
        self.city_tokens[city.index()]
    }

    /// Track tiles laid so far.
    pub fn tiles_laid(&self) -> u8 {
        self.tiles_laid
    }

    /// Supplementary shares not held by anyone.
    pub fn supplementary_pool(&self) -> u8 {
        self.supplementary_pool
    }

    /// Passenger tokens not yet awarded.
    pub fn passengers_left(&self) -> u8 {
        self.passengers_left
    }

    /// The current turn.
    pub fn turn(&self) -> &Turn {
        &self.turn
    }

    /// The current phase.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The final result, once the game is over.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// The line's value: its connected places (rulings 4).
    pub fn value(&self, line: LineId) -> usize {
        self.lines[line.index()].connected.len()
    }

    /// Stations of `seat` linked to `line`: on its track or its locomotive's hex.
    pub fn linked_stations(&self, line: LineId, seat: Seat) -> u8 {
        self.cells
            .iter()
            .filter(|c| c.station == Some(seat))
            .filter(|c| c.track == Some(line) || c.locomotive == Some(line))
            .count() as u8
    }

    /// True if money is shown to everyone: the option, or the game is over.
    fn money_public(&self) -> bool {
        self.options.open_money || self.result.is_some()
    }
}

impl Game for Rocket {
    type Order = Order;
    type Event = Event;
    type View = view::View;
    type Board = Board;
    const KIND: &'static str = "rocket";
    const STATE_VERSION: u32 = 1;

    fn player_names(&self) -> Vec<String> {
        self.players.iter().map(|p| p.name.clone()).collect()
    }

    fn board(&self) -> &Board {
        &self.board
    }

    fn parse_order(&self, _seat: Seat, line: &str) -> Result<Order, OrderError> {
        order::parse(&self.board, line)
    }

    fn default_order(&self, seat: Seat) -> Option<Order> {
        self.default_for(seat)
    }

    fn order_text(&self, order: &Order) -> String {
        order::Named(&self.board, order).to_string()
    }

    fn apply(&mut self, seat: Seat, order: &Order) -> Result<Vec<Event>, RuleError> {
        self.apply_order(seat, order)
    }

    fn awaiting(&self) -> Vec<Awaited> {
        self.awaited()
    }

    fn turn_number(&self) -> u32 {
        self.turn.number
    }

    fn interrupted(&self) -> bool {
        matches!(
            self.phase,
            Phase::VetoQuestion { .. } | Phase::VetoRound { .. }
        )
    }

    fn legal_orders(&self, seat: Seat) -> Vec<Order> {
        self.legal(seat)
    }

    fn timing(&self, seat: Seat, order: &Order) -> Timing {
        self.timing_of(seat, order)
    }

    fn lapsed(&self, _seat: Seat, order: &Order) -> Option<String> {
        self.lapse_of(order)
    }

    fn revealed(&self, event: &Event) -> Option<String> {
        // Rulings 13: a payment's amount is its payee's secret; everything
        // else of the game is on the table.
        match event {
            Event::Paid { .. } if !self.money_public() => {
                Some("a payment in private money".to_string())
            }
            _ => None,
        }
    }

    fn status(&self) -> Status {
        match &self.result {
            Some(r) => Status::Finished(r.placings.clone()),
            None => Status::Active(self.awaited()),
        }
    }

    fn order_forms(&self) -> Vec<OrderForm> {
        order::FORMS.to_vec()
    }

    fn hints(&self, seat: Seat) -> Vec<String> {
        order::hints(self, seat)
    }

    fn view(&self, viewer: Viewer) -> view::View {
        view::view(self, viewer, false)
    }

    fn view_over(&self, viewer: Viewer) -> view::View {
        view::view(self, viewer, true)
    }

    fn describe_to(board: &Board, view: &view::View, event: &Event) -> String {
        event::describe(board, view, event)
    }

    fn draw_map(board: &Board, view: &view::View) -> engine::Map {
        render::map(board, view)
    }

    fn picture(
        board: &Board,
        view: &view::View,
        last: &[Event],
        _stopped: Option<&str>,
    ) -> Option<engine::picture::Picture> {
        // It says nothing of whose turn it is, so nothing of a stop either.
        Some(picture::board_picture(board, view, last))
    }

    fn status_to(_board: &Board, view: &view::View) -> String {
        render::status(view, None)
    }

    fn stopped_status_to(_board: &Board, view: &view::View, how: &str) -> String {
        render::status(view, Some(how))
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.invariants()
    }

    /// Each other player's money drawn anew (rulings 13; the distribution
    /// is in `bot.rs`).
    fn determinize(&self, viewer: Seat, rng: &mut engine::rng::SplitMix64) -> Rocket {
        self.determinize_for(viewer, rng)
    }

    /// Money plus what the end-game scoring would pay now, in pounds.
    fn estimate(&self, seat: Seat) -> Option<i64> {
        self.estimate_for(seat)
    }

    /// £3,000: a city's first and second payment together.
    const ESTIMATE_SCALE: f64 = 3000.0;
}
