//! What one reader may see of a game, decided in one place: [`Linie1::view`].
//! The JSON view is this struct serialised; the status text, the event
//! sentences, the map and the picture are drawn from it (and the printed
//! board).
//!
//! Secrets (rulings 4): a player's line and route card are filled in only
//! for that player, or for everyone once they have started their inaugural
//! trip (they show the cards then), or once the game is over. Hands are
//! face up (rule book, Preparazione) and shown to all. How far a player's
//! route is built ([`RouteView`], issue 35) reads their cards: it is in
//! their own view alone, while they lay track.
//!
//! A player's view is the spectator's with their own layer added: their
//! name and seat, their cards, their route, and what they alone are told
//! they may do ([`View::as_spectator`] takes that layer off again). The
//! map and the picture draw everything else from the spectator's part,
//! and the reader's layer on top, so that two players' differ only in it.

use serde::{Deserialize, Serialize};

use super::data::Square;
use super::route::RoutePoint;
use super::{DieRule, Linie1, Order, Phase, Place};
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
    /// The reader's own route, how far their track has it built (issue
    /// 35): only in a player's own view, while they lay track (not once
    /// they drive, when their trip shows the rest, nor once the game is
    /// over or stopped); None, and left out of the JSON, in every other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<RouteView>,
}

/// How far the reader's route is built ([`Linie1::route_progress`]): their
/// terminals and stops in the order driven, and for each stretch between
/// two of them whether their track joins it already, or the fewest empty
/// squares tiles would have to fill to join it, and one such way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteView {
    /// The points in the order that needs the fewest squares filled: a
    /// terminal (`2W`), the stops (building letters, `K`), the other
    /// terminal. With `ordered_stops` the stops keep the card's order.
    pub points: Vec<String>,
    /// The stretches between them, one fewer than the points.
    pub stretches: Vec<StretchView>,
    /// Empty squares still to fill over the whole route, or None when some
    /// stretch has no way open.
    pub missing: Option<u32>,
    /// True when the route passes the route check now (rulings 5): the
    /// trip may start.
    pub complete: bool,
    /// The terminals the trip may start from now: empty until complete.
    pub starts: Vec<String>,
}

/// One stretch of the reader's route.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StretchView {
    /// Where it begins: a terminal or a stop, as in [`RouteView::points`].
    pub from: String,
    /// Where it ends.
    pub to: String,
    /// True when the reader's track joins the two already.
    pub joined: bool,
    /// The fewest empty squares that tiles would have to fill to join
    /// them: 0 when joined; None when no way is open.
    pub missing: Option<u8>,
    /// The empty squares of one such fewest way, from `from` to `to`.
    pub squares: Vec<String>,
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

/// What [`Linie1::awaited_to`] puts before a reader's own wait when their
/// route is finished: the spectator is not told it.
pub(crate) const TRIP_OR: &str = "the trip to start, or ";

impl View {
    /// The view of the same position a spectator has: this one with the
    /// reader's own layer taken off (their name and seat, the cards only
    /// they see, their route, and that they may start their trip). The map
    /// and the picture draw all but that layer from it, so that what a
    /// player sees beyond a spectator is in their layer alone.
    pub fn as_spectator(&self) -> View {
        let mut v = self.clone();
        let (Some(seat), Some(reader)) = (v.viewer_seat.take(), v.viewer.take()) else {
            return v;
        };
        // The cards are the reader's alone while they lay track: exactly
        // while the view has their route (once they drive, or the game is
        // over, everyone sees them).
        if v.route.take().is_some()
            && let Some(p) = v.players.iter_mut().find(|p| p.seat == seat)
        {
            p.line = None;
            p.route_card = None;
            p.stops = None;
            p.terminals = None;
        }
        for a in v.awaiting.iter_mut().filter(|a| a.player == reader) {
            if let Some(rest) = a.what.strip_prefix(TRIP_OR) {
                a.what = rest.to_string();
            }
        }
        v
    }

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
            route: match viewer {
                Viewer::Player(seat) if !finished && !over => self.route_view(seat),
                _ => None,
            },
        }
    }

    /// `seat`'s route as their own view shows it while they lay track;
    /// None once they drive (or for a seat not in the game). Built only
    /// here, for a player's own view: never on the way of `apply` or
    /// `legal_orders`.
    fn route_view(&self, seat: Seat) -> Option<RouteView> {
        if self.players.get(seat.index())?.driving {
            return None;
        }
        let d = &self.data;
        let point = |p: RoutePoint| match p {
            RoutePoint::Terminal(t) => d.terminal(t).name.clone(),
            RoutePoint::Stop(b) => d.building(b).letter.to_string(),
        };
        let progress = self.route_progress(seat);
        // The route check again, for its terminals, only once it holds.
        let starts: Vec<String> = match progress.complete {
            true => self.starts(seat),
            false => Vec::new(),
        }
        .into_iter()
        .filter_map(|o| match o {
            Order::Start { terminal } => Some(d.terminal(terminal).name.clone()),
            _ => None,
        })
        .collect();
        Some(RouteView {
            points: progress.points.iter().map(|p| point(*p)).collect(),
            stretches: progress
                .stretches
                .iter()
                .map(|s| StretchView {
                    from: point(s.from),
                    to: point(s.to),
                    joined: s.joined,
                    missing: s.missing,
                    squares: s.squares.iter().map(Square::to_string).collect(),
                })
                .collect(),
            missing: progress.missing(),
            complete: progress.complete,
            starts,
        })
    }
}
