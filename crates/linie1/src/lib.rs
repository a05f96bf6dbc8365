//! Linie 1 / Streetcar (Stefan Dorra, 1995): the complete rules as a pure
//! state machine.
//!
//! The rule book is `seeds/003` (Italian, with the Linie 1 variants at its
//! end), cited as "rule book, <section>"; where it is silent, the rulings of
//! `../shared/linie1.md` (cited as "rulings N", restated for players in
//! `docs/linie1-rulings.md`) decide, and where both are silent this
//! module's own decisions are written in [`RULINGS`] (repeated there).
//!
//! A turn is either laying (two tiles, each on an empty square or exchanged
//! for a board tile, then drawing back to five) or, once a player's route is
//! built and their trip started, moving their tram. Every order is checked in
//! full before anything changes, so a refused order leaves the game as it was.
//!
//! What a reader may see is decided once, in [`Linie1::view`]: the status
//! text, the JSON view, the event sentences, the map and the picture are
//! all drawn from it.
//!
//! This module never touches mail, disk or the clock; its randomness is the
//! game's own seeded generator, stored with the state.
#![warn(missing_docs)]

mod bot;
pub mod data;
mod event;
mod hints;
mod order;
pub mod picture;
mod render;
mod route;
mod rules;
mod trip;
mod view;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use data::{
    BuildingId, Components, DataError, Edge, LineId, Paths, RouteCardId, Square, TerminalId, TileId,
};
use engine::rng::SplitMix64;
use engine::{
    self, AnyGame, Awaited, BoardSource, Game, GameEntry, GameOption, OrderError, OrderForm,
    RuleError, Seat, Setup, SetupError, Status, Timing, Viewer, WaitKind,
};
pub use event::Event;
pub use order::{FORMS, NOTATION, Order};
#[doc(hidden)]
pub use route::orders_of;
pub use route::{RoutePoint, RouteProgress, Stretch};
pub use view::{PlayerView, RouteView, StretchView, View};

/// Players at the table (rule book, Preparazione; rulings 1).
pub const MIN_PLAYERS: usize = 2;
/// The most players: six trams, six line cards and six route cards a set
/// (rule book, Preparazione).
pub const MAX_PLAYERS: usize = 6;
/// Tiles in a hand (rule book, Il gioco: "riportare la sua mano a 5 tessere").
pub const HAND_SIZE: usize = 5;
/// Tiles laid in a turn (rule book, Piazzare le tessere).
pub const TILES_PER_TURN: u8 = 2;

/// The options of Linie 1 at `new`: `stops=2` or `stops=3`, and the rule book's
/// three variants as switches (rulings 7).
pub const OPTIONS: &[GameOption] = &[
    GameOption {
        name: "stops",
        values: &["2", "3"],
        help: "route cards of 2 or 3 stops; by default 3 with 2-3 players, 2 with 4-6 \
                  (rule book, translator's note), and 3 with ordered_stops",
        not_with: &[],
    },
    GameOption {
        name: "die",
        values: &[],
        help: "variant 1: a die gives the distance; 5 or 6 runs to the next stop sign",
        not_with: &[],
    },
    GameOption {
        name: "die_or_repeat",
        values: &[],
        help: "variant 2: roll the die, or repeat the previous player's result",
        not_with: &[],
    },
    GameOption {
        name: "ordered_stops",
        values: &[],
        help: "variant 3: three stops are visited in the card's order (route cards of 3 \
                  stops, whatever the number of players)",
        not_with: &[(
            "stops=2",
            "variant 3 is for route cards of three stops (rule book, Varianti 3: \"Nel caso di una \
             partita a tre fermate\"), and two stops have no order to keep: give one of them",
        )],
    },
];

/// Stationmaster's own decisions where the rule book and the rulings are silent,
/// shown by `help` and cited as "Stationmaster ruling N".
pub const RULINGS: &[&str] = &[
    "1. A player with no legal placement or exchange for the tile still owed, and no trip \
     to start, may `pass`; they still draw back to five. If every player in one round \
     passes (a turn skipped for a missed deadline counts as a pass only when the player \
     could do nothing else), or the supply and open hands are empty and nobody can lay, start a trip or \
     move, the game ends with no winner. A tile on a terminal's leg square must take the \
     terminal's track (rulings 1: no side without track faces a track end).",
    "2. With `die` (rulings 7: the die gives the distance), the tram must move the number \
     rolled unless a stop sign, its own \
     destination terminal or the end of the track stops it first; 5 or 6 runs on to the next \
     stop sign (or that terminal, or the end of the track).",
    "3. With `ordered_stops`, a three-stop route is driven in the card's printed order from \
     whichever terminal the trip starts at (the player chooses the terminal, rulings 5, so \
     the one the order reads from); a stop reached out of order does not count. The \
     variant is for route cards of three stops, so `ordered_stops` deals them whatever the \
     number of players, and is refused with `stops=2`.",
    "4. A missed turn (the `default` policy) starts the trip if the player's route is \
     finished, else lays the first legal tile (squares row by row \
     from A1) whose sides face only empty squares (no track, building or board edge), else \
     the first legal tile, else the first legal exchange, else passes; it draws from the \
     supply; a driver starts from the first terminal that passes the route check, rolls \
     (variant 2), and makes the longest legal move, taking the first way (N, E, S, W) at \
     each branch.",
    "5. A tram whose way on cannot reach its destination through its remaining stops is taken \
     off the board at the end of its move; its player starts again from a terminal next turn.",
    "6. With `die_or_repeat` (variant 2: the result of the player before), `repeat` takes the \
     last result another player rolled or repeated; a driver's own last result is not theirs \
     to repeat, so a lone driver rolls.",
];

/// Linie 1 as the registry lists it.
pub const ENTRY: GameEntry = GameEntry {
    name: "linie1",
    title: "Linie 1",
    players: MIN_PLAYERS..=MAX_PLAYERS,
    options: OPTIONS,
    first_player: "the first `--player` (the rule book's oldest player: name them first), then clockwise in the order given",
    waits: &[],
    // A tile laid, a draw, a trip started or a tram moved: the whole turn.
    default_turn: "the game plays their turn for them (Stationmaster ruling 4)",
    skip_turn: "the turn ends: a layer lays no more tiles and draws back to five, a tram does not move",
    state_version: <Linie1 as Game>::STATE_VERSION,
    new: new_boxed,
    from_snapshot: from_snapshot_boxed,
    demo: Some(include_str!("../../../games/linie1/demo.txt")),
};

/// A new game on the operator's `linie1/` files (each one not there is
/// the built-in one), or else the components compiled in.
fn new_boxed(setup: &Setup, boards: &BoardSource) -> engine::entry::Made {
    let components = match boards.folder(ENTRY.name) {
        Some(dir) => Components::from_dir(&dir)?,
        None => Components::embedded()?,
    };
    Ok(Box::new(Linie1::new(components, setup)?) as Box<dyn AnyGame>)
}

/// A stored state read back. Every format so far (1) reads as it is.
fn from_snapshot_boxed(_version: u32, json: &str) -> engine::entry::Made {
    serde_json::from_str::<Linie1>(json)
        .map(|g| Box::new(g) as Box<dyn AnyGame>)
        .map_err(|e| SetupError::Snapshot {
            kind: ENTRY.name.to_string(),
            message: e.to_string(),
        })
}

impl From<DataError> for SetupError {
    fn from(e: DataError) -> Self {
        SetupError::Board(Box::new(e))
    }
}

/// Every string `Setup::options` accepts, e.g. for a registry's checks and
/// help: `stops=2`, `stops=3`, `die`, `die_or_repeat`, `ordered_stops`.
pub fn option_strings() -> Vec<String> {
    OPTIONS
        .iter()
        .flat_map(|o| {
            if o.values.is_empty() {
                vec![o.name.to_string()]
            } else {
                o.values.iter().map(|v| format!("{}={v}", o.name)).collect()
            }
        })
        .collect()
}

/// Which die rule, if any (rule book, Varianti 1 and 2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DieRule {
    /// The main rule: at most the previous move plus one (rulings 6).
    #[default]
    None,
    /// Variant 1: the die gives the distance.
    Die,
    /// Variant 2: roll, or repeat the previous player's result.
    DieOrRepeat,
}

/// The options a game was set up with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Linie1Options {
    /// Stops on a route card: 2 or 3.
    pub stops: u8,
    /// The movement rule.
    pub die: DieRule,
    /// Three stops in card order (variant 3); it makes `stops` 3.
    pub ordered_stops: bool,
}

impl Linie1Options {
    /// Reads `Setup::options` for `players` players: `stops=2`, `stops=3`,
    /// `die`, `die_or_repeat`, `ordered_stops`.
    pub fn from_setup(given: &[String], players: usize) -> Result<Linie1Options, SetupError> {
        let mut out = Linie1Options {
            stops: if players <= 3 { 3 } else { 2 },
            die: DieRule::None,
            ordered_stops: false,
        };
        let given = engine::read_options(ENTRY.name, given, OPTIONS)?;
        // Variant 3 is a game of three stops (rule book, Varianti 3: "Nel caso di
        // una partita a tre fermate"), whatever the number of players;
        // `stops=2` with it is refused by `read_options` (`not_with`).
        if given.on("ordered_stops") {
            out.stops = 3;
        }
        if let Some(stops) = given.value("stops") {
            out.stops = if stops == "2" { 2 } else { 3 };
        }
        if given.on("die") {
            out.die = DieRule::Die;
        }
        // With both, the die may be repeated: the second variant is the first
        // with a choice added (rule book, Varianti 2).
        if given.on("die_or_repeat") {
            out.die = DieRule::DieOrRepeat;
        }
        out.ordered_stops = given.on("ordered_stops");
        Ok(out)
    }

    /// The options as `Setup::options` strings.
    pub fn names(&self) -> Vec<String> {
        let mut out = vec![format!("stops={}", self.stops)];
        match self.die {
            DieRule::None => {}
            DieRule::Die => out.push("die".into()),
            DieRule::DieOrRepeat => out.push("die_or_repeat".into()),
        }
        if self.ordered_stops {
            out.push("ordered_stops".into());
        }
        out
    }
}

/// Where a tram stands: on a square, or inside a terminal loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// On a square of the board.
    Square(Square),
    /// In a terminal, which counts as one square (rulings 6).
    Terminal(TerminalId),
}

/// A tram and which way it goes: where it is and how it came in, so it never
/// reverses (rulings 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Tram {
    /// Where it stands.
    pub at: Place,
    /// On a square: the edge it came in by. In a terminal: the leg it came
    /// in by (0 or 1), or none when it was just put there to start.
    pub came_in: Option<u8>,
}

/// A player's inaugural trip once started (rulings 5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trip {
    /// The terminal it started from.
    pub from: TerminalId,
    /// The other terminal of the line: where it ends.
    pub to: TerminalId,
    /// The tram, or None once taken off (a way that cannot finish).
    pub tram: Option<Tram>,
    /// Required stops stopped at so far, in the order reached.
    pub stopped: Vec<BuildingId>,
}

/// A player: secret cards, a face-up hand, and a trip once started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// The name they play under.
    pub name: String,
    /// Their line card (secret until the trip starts, rulings 4).
    pub line: LineId,
    /// Their route card; they use their line's row (secret until the trip).
    pub route: RouteCardId,
    /// Tiles in hand, face up (rule book, Preparazione); a driver's is their open
    /// hand, which others may draw from.
    pub hand: Vec<TileId>,
    /// True from the start of their inaugural trip: cards shown, no more
    /// laying.
    pub driving: bool,
    /// The trip, while the tram is out or waiting to restart.
    pub trip: Option<Trip>,
}

/// What stands on a square: a tile in one orientation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Laid {
    /// The tile type.
    pub tile: TileId,
    /// Its paths as it lies.
    pub paths: Paths,
}

/// Where the active player's turn is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Laying: `laid` of the two tiles done so far.
    Lay {
        /// Tiles laid or exchanged so far this turn.
        laid: u8,
    },
    /// Drawing back to five with a choice of source: `owed` tiles still to draw.
    Draw {
        /// Tiles still to draw.
        owed: u8,
    },
    /// Driving: start (if the tram is off the board), roll (die variants),
    /// then move.
    Drive {
        /// The die result for this move, once rolled.
        roll: Option<u8>,
    },
    /// The game is over.
    Finished,
}

/// The current turn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// Turns so far, counting this one.
    pub number: u32,
    /// Whose turn.
    pub active: Seat,
}

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winner, if any.
    pub winner: Option<Seat>,
    /// Why the game ended, as a sentence.
    pub reason: String,
}

/// A game of Linie 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Linie1 {
    data: Arc<Components>,
    options: Linie1Options,
    rng: SplitMix64,
    players: Vec<Player>,
    /// The tile on each square, row by row.
    cells: Vec<Option<Laid>>,
    /// The square carrying each building's stop sign (rulings 3).
    stop_signs: Vec<Option<Square>>,
    /// The face-down draw supply, by tile type (drawn at random): every
    /// tile not dealt (rule book, Preparazione).
    supply: Vec<u8>,
    /// Tiles out of the game, by tile type: only in games set up before
    /// issue 35, which kept the unused start tiles out of a supply of 101
    /// (docs/linie1-rulings.md, "Components"); empty, and not stored, in
    /// any game set up since.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    out_of_game: Vec<u8>,
    turn: Turn,
    phase: Phase,
    /// The distance of the last move made by any tram, if any (rulings 6).
    last_move: Option<u8>,
    /// The last die result (variant 2).
    last_roll: Option<u8>,
    /// Who rolled or repeated it (Stationmaster ruling 6); None in games
    /// stored before it was kept.
    #[serde(default)]
    last_roller: Option<Seat>,
    /// Turns in a row that ended with a pass (Stationmaster ruling 1).
    passes: u8,
    /// True in games set up since issue 35: draws that leave no choice
    /// are made for the player (`Linie1::forced_draws`). False, and read
    /// so, in a game stored before, whose log replays as it was played.
    #[serde(default)]
    auto_draws: bool,
    result: Option<Outcome>,
    /// Who laid the tile on each square, row by row: public at the table,
    /// and what the bot reads the others' routes from (`bot.rs`). Empty,
    /// and not stored, in a game set up before it was kept, whose log
    /// replays as it was played.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    laid_by: Vec<Option<Seat>>,
    /// The bot's guess at the others' cards in this position, once made
    /// (`bot.rs`); never stored, and emptied by every order applied.
    #[serde(skip)]
    guesses: bot::Guesses,
}

impl Linie1 {
    /// Sets up a game with `components` for `setup`'s players (2 to 6, in
    /// seat order): line and route cards dealt by the seeded generator, start
    /// hands of 3 straights and 2 curves, and every other tile face down in
    /// the supply, 126 − 5 × players (rule book, Preparazione). The first
    /// player is seat 1 ("the oldest player"; the table decides by seating).
    pub fn new(components: Components, setup: &Setup) -> Result<Linie1, SetupError> {
        let n = setup.players.len();
        let given: Vec<&str> = setup.players.iter().map(|p| p.name.as_str()).collect();
        engine::check_players(ENTRY.title, &ENTRY.players, &given)?;
        let names: Vec<String> = given.iter().map(|n| n.trim().to_string()).collect();
        let options = Linie1Options::from_setup(&setup.options, n)?;
        let mut rng = SplitMix64::new(setup.seed);

        // Deal the line cards and the chosen set's route cards (rule book,
        // Preparazione: shuffled, one face down to each player).
        let mut lines: Vec<LineId> = (0..components.lines.len())
            .map(|i| LineId(i as u8))
            .collect();
        shuffle(&mut rng, &mut lines);
        let mut routes = components.route_set(usize::from(options.stops));
        if routes.len() < n {
            return Err(SetupError::Players(format!(
                "there are only {} route cards of {} stops",
                routes.len(),
                options.stops
            )));
        }
        shuffle(&mut rng, &mut routes);

        // Each hand from the box; "Tutte le altre tessere sono messe
        // coperte nella scatola" (rule book, Preparazione): the rest is the
        // supply. The components hold enough for six hands (checked at load).
        let mut supply: Vec<u8> = components.tiles.iter().map(|t| t.count).collect();
        let mut players = Vec::new();
        for (i, name) in names.into_iter().enumerate() {
            let mut hand = Vec::new();
            for &(tile, count) in &components.start_hand {
                for _ in 0..count {
                    hand.push(tile);
                }
                supply[tile.index()] = supply[tile.index()].saturating_sub(count);
            }
            players.push(Player {
                name,
                line: lines[i],
                route: routes[i],
                hand,
                driving: false,
                trip: None,
            });
        }
        let squares = components.square_count();
        let buildings = components.buildings.len();
        Ok(Linie1 {
            data: Arc::new(components),
            options,
            rng,
            players,
            cells: vec![None; squares],
            stop_signs: vec![None; buildings],
            supply,
            out_of_game: Vec::new(),
            turn: Turn {
                number: 1,
                active: Seat(0),
            },
            phase: Phase::Lay { laid: 0 },
            last_move: None,
            last_roll: None,
            last_roller: None,
            passes: 0,
            auto_draws: true,
            result: None,
            laid_by: vec![None; squares],
            guesses: bot::Guesses::default(),
        })
    }

    /// The components.
    pub fn data(&self) -> &Components {
        &self.data
    }

    /// The options.
    pub fn options(&self) -> &Linie1Options {
        &self.options
    }

    /// Every player, by seat. Their cards are secrets: show a reader only
    /// what [`Linie1::view`] gives them.
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// The tile on `s`, if any.
    pub fn laid(&self, s: Square) -> Option<Laid> {
        self.cells.get(self.data.index(s)).copied().flatten()
    }

    /// The square carrying building `b`'s stop sign, if any tile has been
    /// laid next to it.
    pub fn stop_sign(&self, b: BuildingId) -> Option<Square> {
        self.stop_signs.get(b.index()).copied().flatten()
    }

    /// Tiles left in the face-down supply.
    pub fn supply_left(&self) -> usize {
        self.supply.iter().map(|n| usize::from(*n)).sum()
    }

    /// The current turn.
    pub fn turn(&self) -> &Turn {
        &self.turn
    }

    /// The current phase.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The distance of the last tram move in the game.
    pub fn last_move(&self) -> Option<u8> {
        self.last_move
    }

    /// How the game ended, once over.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.result.as_ref()
    }

    /// The stops of `seat`'s route (their line's row of their route card).
    pub fn required_stops(&self, seat: Seat) -> &[BuildingId] {
        let p = &self.players[seat.index()];
        &self.data.routes[p.route.index()].rows[p.line.index()]
    }
}

/// Fisher-Yates with the game's generator.
fn shuffle<T>(rng: &mut SplitMix64, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        let j = rng.below(i + 1);
        items.swap(i, j);
    }
}

impl Game for Linie1 {
    type Order = Order;
    type Event = Event;
    type View = View;
    type Board = Components;
    const KIND: &'static str = "linie1";
    const STATE_VERSION: u32 = 1;

    fn player_names(&self) -> Vec<String> {
        self.players.iter().map(|p| p.name.clone()).collect()
    }

    fn board(&self) -> &Components {
        &self.data
    }

    fn parse_order(&self, _seat: Seat, line: &str) -> Result<Order, OrderError> {
        order::parse(self, line)
    }

    fn default_order(&self, seat: Seat) -> Option<Order> {
        self.default_for(seat)
    }

    fn order_text(&self, order: &Order) -> String {
        order::text(self, order)
    }

    fn apply(&mut self, seat: Seat, order: &Order) -> Result<Vec<Event>, RuleError> {
        self.apply_order(seat, order)
    }

    fn awaiting(&self) -> Vec<Awaited> {
        self.awaited()
    }

    fn awaiting_to(&self, viewer: Viewer) -> Vec<Awaited> {
        self.awaited_to(viewer)
    }

    fn turn_number(&self) -> u32 {
        self.turn.number
    }

    fn interrupted(&self) -> bool {
        false
    }

    fn legal_orders(&self, seat: Seat) -> Vec<Order> {
        self.legal(seat)
    }

    fn timing(&self, _seat: Seat, _order: &Order) -> Timing {
        // Linie 1 has no interruptions: every order is for now, applied or
        // refused by its rule.
        Timing::Now
    }

    fn revealed(&self, event: &Event) -> Option<String> {
        match event {
            // The supply is face down; an open hand is on the table.
            Event::Drew { from: None, .. } => Some("a tile drawn from the supply".to_string()),
            Event::Rolled {
                repeated: false, ..
            } => Some("a roll of the die".to_string()),
            // Rulings 4: the cards stay secret until the trip starts.
            Event::TripStarted { .. } => Some("your line and route cards".to_string()),
            _ => None,
        }
    }

    fn status(&self) -> Status {
        match &self.result {
            Some(_) => Status::Finished(self.placings()),
            None => Status::Active(self.awaited()),
        }
    }

    fn order_forms(&self) -> Vec<OrderForm> {
        FORMS.to_vec()
    }

    fn hints(&self, seat: Seat) -> Vec<String> {
        hints::hints(self, seat)
    }

    fn order_list(&self, seat: Seat, about: Option<&str>) -> Result<Vec<String>, String> {
        hints::order_list(self, seat, about)
    }

    fn unfinished(&self, seat: Seat) -> Option<String> {
        hints::unfinished(self, seat)
    }

    fn view(&self, viewer: Viewer) -> View {
        self.view_revealed(viewer, false)
    }

    fn view_over(&self, viewer: Viewer) -> View {
        self.view_revealed(viewer, true)
    }

    fn describe_to(board: &Components, view: &View, event: &Event) -> String {
        event::describe(board, view, event)
    }

    fn draw_map(board: &Components, view: &View) -> engine::Map {
        render::map(board, view)
    }

    fn own_layer(view: &View) -> bool {
        // A player laying track: their route, drawn for them alone.
        view.route.is_some()
    }

    fn picture(
        board: &Components,
        view: &View,
        _last: &[Event],
        stopped: Option<&str>,
    ) -> Option<engine::picture::Picture> {
        Some(picture::board_picture(view, board, stopped))
    }

    fn status_to(board: &Components, view: &View) -> String {
        render::status(board, view, None)
    }

    fn stopped_status_to(board: &Components, view: &View, how: &str) -> String {
        render::status(board, view, Some(how))
    }

    fn check_invariants(&self) -> Result<(), String> {
        self.invariants()
    }

    /// The others' cards dealt anew from those the viewer has not seen,
    /// and the game's generator reseeded (`bot.rs`).
    fn determinize(&self, viewer: Seat, rng: &mut SplitMix64) -> Linie1 {
        self.determinize_for(viewer, rng)
    }

    /// How far the seat's route is built, or its trip driven (`bot.rs`).
    fn estimate(&self, seat: Seat) -> Option<i64> {
        self.estimate_for(seat)
    }

    /// The seats', the board read once.
    fn estimates_of(&self, seats: &[Seat]) -> Option<Vec<i64>> {
        self.estimates_of_seats(seats)
    }

    /// Three turns.
    const ESTIMATE_SCALE: f64 = (3 * bot::TURN) as f64;

    /// Its own trip, and its standing against the others: their line and
    /// route cards are guessed from the tiles they laid (`bot.rs`), and
    /// weighing them so made it stronger; dealt at random, they made it
    /// weaker, and it played for its own trip alone (docs/performance.md,
    /// "Bots").
    const BOT_PROGRESS: f64 = 0.3;

    /// A driver lays no more: what it does touches nobody's trip but its
    /// own, so it plays for that alone (weighing its standing, one whose
    /// rivals were all stuck shuttled in and out of a terminal).
    fn bot_progress(&self, seat: Seat) -> f64 {
        match self.players.get(seat.index()) {
            Some(p) if p.driving => 1.0,
            _ => Self::BOT_PROGRESS,
        }
    }

    /// The hint puts first the lays along the trip's cheapest way and the
    /// exchanges, the orders that can bring the trip on; of the few
    /// hundred other lays, those after the first 96 are not read (the
    /// search's widening reaches some 50 of the root's orders at the
    /// default setting).
    const BOT_ROOT_ESTIMATES: usize = 96;

    /// A start, then the lays along the seat's route (`bot.rs`).
    fn order_hint(&self, seat: Seat, orders: &mut Vec<Order>) {
        self.order_hint_for(seat, orders);
    }
}

impl Linie1 {
    /// Whose input is awaited, and for what.
    fn awaited(&self) -> Vec<Awaited> {
        let what = match &self.phase {
            Phase::Finished => return Vec::new(),
            Phase::Lay { laid } => {
                let left = TILES_PER_TURN - laid;
                format!("{left} tile{} to lay", if left == 1 { "" } else { "s" })
            }
            Phase::Draw { owed } => {
                format!("{owed} tile{} to draw", if *owed == 1 { "" } else { "s" })
            }
            Phase::Drive { .. } => {
                let p = &self.players[self.turn.active.index()];
                // Said to everyone ("waiting for Anna (…)", in every
                // subject line), so not "your tram".
                if p.trip.as_ref().and_then(|t| t.tram).is_none() {
                    "the tram to set out again from a terminal".to_string()
                } else {
                    "a move of the tram".to_string()
                }
            }
        };
        vec![Awaited {
            seat: self.turn.active,
            what,
            kind: WaitKind::Turn,
        }]
    }

    /// [`Linie1::awaited`] as `viewer` reads it: a player whose route is
    /// finished is told they may start their trip instead of laying (rule book,
    /// Viaggio inaugurale). Only they are: to the others, that the route is
    /// finished is as secret as the cards (rulings 4).
    pub(crate) fn awaited_to(&self, viewer: Viewer) -> Vec<Awaited> {
        let mut awaited = self.awaited();
        for a in &mut awaited {
            if viewer == Viewer::Player(a.seat)
                && self.phase == (Phase::Lay { laid: 0 })
                && !self.players[a.seat.index()].driving
                && !self.starts(a.seat).is_empty()
            {
                a.what = format!("{}{}", view::TRIP_OR, a.what);
            }
        }
        awaited
    }

    fn placings(&self) -> Vec<engine::Placing> {
        let winner = self.result.as_ref().and_then(|r| r.winner);
        (0..self.players.len())
            .map(|i| {
                let seat = Seat(i as u8);
                let won = winner == Some(seat);
                engine::Placing {
                    seat,
                    // No winner (Stationmaster ruling 1): nobody is first.
                    place: if won { 1 } else { 2 },
                    score: i64::from(won),
                }
            })
            .collect()
    }
}
