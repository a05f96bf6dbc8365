//! What one reader may see of a game, decided in one place: [`Linie1::view`].
//! The JSON view is this struct serialised; the status text, the event
//! sentences, the map and the picture are drawn from it (and the printed
//! board).
//!
//! Secrets (rulings 4): a player's line and route card are filled in only
//! for that player, or for everyone once they have started their inaugural
//! trip (they show the cards then), or once the game is over. Hands are
//! face up (rule book, Preparazione) and shown to all.

use serde::{Deserialize, Serialize};

use super::{DieRule, Linie1, Phase, Place};
use engine::{Person, Seat, Viewer};

/// A game as one reader may see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Always `linie1`.
    pub kind: String,
    /// The board's name.
    pub board: String,
    /// The reader's name, or None for a spectator.
    pub viewer: Option<String>,
    /// The reader's seat (0 for the first).
    pub viewer_seat: Option<u8>,
    /// The options, as given at `new`.
    pub options: Vec<String>,
    /// `lay`, `draw`, `drive` or `finished`.
    pub phase: String,
    /// True once the game is over.
    pub finished: bool,
    /// The turn number.
    pub turn: u32,
    /// Whose turn.
    pub active_player: String,
    /// Tiles laid so far this turn, while laying.
    pub tiles_laid_this_turn: Option<u8>,
    /// Tiles still to draw, while drawing.
    pub tiles_to_draw: Option<u8>,
    /// Who must act, and for what.
    pub awaiting: Vec<AwaitedView>,
    /// Every player, secrets filled in only where the reader may see them.
    pub players: Vec<PlayerView>,
    /// The tiles on the board.
    pub tiles: Vec<TileView>,
    /// Stop signs: building letter and square.
    pub stop_signs: Vec<StopSignView>,
    /// Tiles left face down.
    pub supply_left: usize,
    /// The last move's distance.
    pub last_move: Option<u8>,
    /// The longest the next move may be under the main rule (rulings 6);
    /// None, and left out of the JSON, with a die (variants 1 and 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_move: Option<u8>,
    /// The die for this move (variants), once rolled.
    pub roll: Option<u8>,
    /// The last die result (variant 2).
    pub last_roll: Option<u8>,
    /// The end, once over.
    pub result: Option<ResultView>,
}

/// Someone awaited.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AwaitedView {
    /// Their name.
    pub player: String,
    /// What for.
    pub what: String,
}

/// A player as the reader may see them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerView {
    /// Their name.
    pub name: String,
    /// Their seat (0 for the first).
    pub seat: u8,
    /// Their hand, face up: each tile's paths as printed.
    pub hand: Vec<String>,
    /// True once their trip has started: their hand is open to draw from.
    pub driving: bool,
    /// Their line number: only to themselves until they drive.
    pub line: Option<u8>,
    /// Their route card's name: likewise.
    pub route_card: Option<String>,
    /// Their stops (building letters, card order): likewise.
    pub stops: Option<Vec<char>>,
    /// Their two terminals: likewise.
    pub terminals: Option<Vec<String>>,
    /// The trip, once started.
    pub trip: Option<TripView>,
}

/// A trip under way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TripView {
    /// The terminal it started from.
    pub from: String,
    /// The terminal it ends at.
    pub to: String,
    /// Where the tram stands (a square or a terminal), or None if taken off.
    pub tram: Option<String>,
    /// Required stops already stopped at.
    pub stopped: Vec<char>,
}

/// A tile on the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileView {
    /// The square.
    pub square: String,
    /// The tile's number (`../shared/linie1.md`).
    pub tile: u8,
    /// Its paths as it lies.
    pub paths: String,
    /// Trees: never exchanged.
    pub trees: bool,
}

/// A stop sign.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopSignView {
    /// The building.
    pub building: char,
    /// The square of the tile carrying it.
    pub square: String,
}

/// The end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultView {
    /// The winner, if any.
    pub winner: Option<String>,
    /// Why it ended.
    pub reason: String,
}

impl View {
    /// A player as this reader reads them: in the second person for
    /// themselves, by name for anyone else (issue 38).
    pub fn who(&self, s: Seat) -> Person {
        let name = self
            .players
            .get(s.index())
            .map_or_else(|| s.to_string(), |p| p.name.clone());
        Person::new(name, self.viewer_seat == Some(s.0))
    }
}

impl Linie1 {
    /// The game as `viewer` may see it (a player their own cards, anyone
    /// else nothing private): the one place where hidden information is
    /// decided (rulings 4). `over`: the game was stopped (aborted) and
    /// every player's cards are shown, as at a real table once a game is
    /// over. [`Game::view`](engine::Game::view) and `view_over` call it.
    pub(super) fn view_revealed(&self, viewer: Viewer, over: bool) -> View {
        let d = &self.data;
        let finished = self.result.is_some();
        let place = |p: Place| match p {
            Place::Square(s) => s.to_string(),
            Place::Terminal(t) => d.terminal(t).name.clone(),
        };
        let players = self
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let seat = Seat(i as u8);
                let shown = viewer == Viewer::Player(seat) || p.driving || finished || over;
                let stops: Vec<char> = self
                    .required_stops(seat)
                    .iter()
                    .map(|b| d.building(*b).letter)
                    .collect();
                PlayerView {
                    name: p.name.clone(),
                    seat: seat.0,
                    hand: p
                        .hand
                        .iter()
                        .map(|t| d.tile(*t).paths.to_string())
                        .collect(),
                    driving: p.driving,
                    line: shown.then(|| d.lines[p.line.index()].number),
                    route_card: shown.then(|| d.routes[p.route.index()].name.clone()),
                    stops: shown.then_some(stops),
                    terminals: shown.then(|| {
                        d.terminals_of(p.line)
                            .into_iter()
                            .map(|t| d.terminal(t).name.clone())
                            .collect()
                    }),
                    trip: p.trip.as_ref().map(|t| TripView {
                        from: d.terminal(t.from).name.clone(),
                        to: d.terminal(t.to).name.clone(),
                        tram: t.tram.map(|tr| place(tr.at)),
                        stopped: t.stopped.iter().map(|b| d.building(*b).letter).collect(),
                    }),
                }
            })
            .collect();
        let tiles = (0..d.square_count())
            .filter_map(|i| {
                let s = d.square_at(i);
                self.laid(s).map(|l| TileView {
                    square: s.to_string(),
                    tile: d.tile(l.tile).number,
                    paths: l.paths.to_string(),
                    trees: d.tile(l.tile).trees,
                })
            })
            .collect();
        let stop_signs = d
            .buildings
            .iter()
            .enumerate()
            .filter_map(|(i, b)| {
                self.stop_signs[i].map(|s| StopSignView {
                    building: b.letter,
                    square: s.to_string(),
                })
            })
            .collect();
        let (phase, laid, owed, roll) = match &self.phase {
            Phase::Lay { laid } => ("lay", Some(*laid), None, None),
            Phase::Draw { owed } => ("draw", None, Some(*owed), None),
            Phase::Drive { roll } => ("drive", None, None, *roll),
            Phase::Finished => ("finished", None, None, None),
        };
        View {
            kind: "linie1".into(),
            board: d.name.clone(),
            viewer: viewer
                .seat()
                .and_then(|s| self.players.get(s.index()))
                .map(|p| p.name.clone()),
            viewer_seat: viewer.seat().map(|s| s.0),
            options: self.options.names(),
            phase: phase.into(),
            finished,
            turn: self.turn.number,
            active_player: self.players[self.turn.active.index()].name.clone(),
            tiles_laid_this_turn: laid,
            tiles_to_draw: owed,
            awaiting: self
                .awaited_to(viewer)
                .into_iter()
                .map(|a| AwaitedView {
                    player: self.players[a.seat.index()].name.clone(),
                    what: a.what,
                })
                .collect(),
            players,
            tiles,
            stop_signs,
            supply_left: self.supply_left(),
            last_move: self.last_move,
            max_move: (self.options.die == DieRule::None).then(|| self.max_distance()),
            roll,
            last_roll: match self.options.die {
                DieRule::None => None,
                _ => self.last_roll,
            },
            result: self.result.as_ref().map(|r| ResultView {
                winner: r.winner.map(|s| self.players[s.index()].name.clone()),
                reason: r.reason.clone(),
            }),
        }
    }
}
