//! What the engine's bot (`engine::bot`) asks of Linie 1 beyond the rules:
//! a determinization of the secrets, an estimate of a position, and the
//! order to look at a seat's orders in.
//!
//! **The secrets** (rulings 4) are each player's line and route card
//! until they start their trip, and what is still to come from the game's
//! random source: the order of the face-down supply, and the die.
//! [`Linie1::determinize_for`] deals the cards of every other player not
//! yet driving afresh, uniformly, from the cards the viewer has not seen
//! (every line card, and every route card of the game's set, but the
//! viewer's own and those a driver has shown), each player a different
//! one, as the box deals them; and reseeds the game's generator, so that
//! draws and rolls to come are new. What the supply holds, by tile type,
//! is public (every tile not on the board or in an open hand) and kept.
//! The cards dealt anew are overwritten without being read.
//!
//! **The estimate** ([`Linie1::estimate_for`]) is how soon a seat may
//! finish its trip, in tenths of a turn ([`TURN`]) below a fixed
//! [`BASE`]: for a route still being built, the least cost of the whole
//! trip over the board as it lies and as it could be built (`trip.rs`),
//! each square with track costing what driving over it does (a tram makes
//! some two and a half squares a move) and each empty square that and
//! half a turn more (two tiles a turn), and a turn more where only a tile
//! still in the supply would carry the way, none at hand (a route that
//! waits for a tile the seat does not hold stalls as the supply runs
//! out, and the game ends with no winner); for a trip under way, the places
//! the tram must still enter along the track laid, through the stops not
//! yet made, and a little more than the same route not yet set out on. A
//! route no tile can finish scores far below any other. It reads the
//! seat's cards: the bot asks it only of a game it determinized, and the
//! bench's greedy player only of its own seat.
//!
//! **The hint** ([`Linie1::order_hint_for`]): a start first, then the lays
//! along the cheapest way of the seat's trip that the estimate's search
//! found (`Linie1::trip_path`: on its empty squares, joining the sides it
//! enters and leaves by), those that join track already laid first, then
//! exchanges (one may open a way that no lay can), then the other lays; a
//! driver's longest moves first.

use engine::Seat;
use engine::rng::SplitMix64;

use super::data::{Edge, LineId, RouteCardId};
use super::hints::extends_track;
use super::order::Order;
use super::route::Ways;
use super::trip::{Reading, WEIGHTS};
use super::{Linie1, shuffle};

/// The estimate's unit: a tenth of a turn.
pub const TURN: i64 = 10;
/// The estimate of a trip that costs nothing more.
const BASE: i64 = 2000;
/// A trip set out stands above the same route not yet set out on.
const STARTED: i64 = 5;
/// A tram taken off sets out again next turn (Stationmaster ruling 5).
const RESTART: i64 = TURN;
/// A route with no way open at all.
const BLOCKED: i64 = 0;
/// The game won; every other seat of a game over is 0.
const WON: i64 = 10_000;

impl Linie1 {
    /// See [`engine::Game::determinize`] and the module's notes.
    pub(super) fn determinize_for(&self, viewer: Seat, rng: &mut SplitMix64) -> Linie1 {
        let mut g = self.clone();
        g.rng = SplitMix64::new(rng.next_u64());
        if self.result.is_some() {
            return g;
        }
        let shown = |i: usize| i == viewer.index() || self.players[i].driving;
        let hidden: Vec<usize> = (0..self.players.len()).filter(|i| !shown(*i)).collect();
        let seen_lines: Vec<LineId> = (0..self.players.len())
            .filter(|i| shown(*i))
            .map(|i| self.players[i].line)
            .collect();
        let seen_routes: Vec<RouteCardId> = (0..self.players.len())
            .filter(|i| shown(*i))
            .map(|i| self.players[i].route)
            .collect();
        let mut lines: Vec<LineId> = (0..self.data.lines.len())
            .map(|i| LineId(i as u8))
            .filter(|l| !seen_lines.contains(l))
            .collect();
        let mut routes: Vec<RouteCardId> = self
            .data
            .route_set(usize::from(self.options.stops))
            .into_iter()
            .filter(|r| !seen_routes.contains(r))
            .collect();
        shuffle(rng, &mut lines);
        shuffle(rng, &mut routes);
        for (k, i) in hidden.into_iter().enumerate() {
            if let (Some(l), Some(r)) = (lines.get(k), routes.get(k)) {
                g.players[i].line = *l;
                g.players[i].route = *r;
            }
        }
        g
    }

    /// See [`engine::Game::estimate`] and the module's notes.
    pub(super) fn estimate_for(&self, seat: Seat) -> Option<i64> {
        let ways = Ways::new(self, None, true);
        self.estimate_on(seat, &self.reading(&ways))
    }

    /// See [`engine::Game::estimates_of`]: the board read once.
    pub(super) fn estimates_of_seats(&self, seats: &[Seat]) -> Option<Vec<i64>> {
        let ways = Ways::new(self, None, true);
        let reading = self.reading(&ways);
        seats
            .iter()
            .map(|s| self.estimate_on(*s, &reading))
            .collect()
    }

    /// `seat`'s estimate on the board as `ways` read it (fitted ways).
    fn estimate_on(&self, seat: Seat, reading: &Reading) -> Option<i64> {
        let p = self.players.get(seat.index())?;
        if let Some(r) = &self.result {
            return Some(if r.winner == Some(seat) { WON } else { 0 });
        }
        let trip = || match self.trip_cost(seat, reading, WEIGHTS) {
            Some(c) => BASE - i64::from(c),
            None => BLOCKED,
        };
        if !p.driving {
            return Some(trip());
        }
        let tram = p.trip.as_ref().and_then(|t| Some((t, t.tram?)));
        let left = tram.and_then(|(t, tram)| {
            let mask = self.stopped_mask(seat, t);
            self.drive_cost(seat, reading, (tram, mask, t.to), WEIGHTS)
        });
        Some(match left {
            Some(c) => BASE + STARTED - i64::from(c),
            // Off the board, or taken off at the end of this move: set out
            // again next turn.
            None => trip() - RESTART,
        })
    }

    /// See [`engine::Game::order_hint`] and the module's notes. A stable
    /// sort: within each kind the list keeps its order.
    pub(super) fn order_hint_for(&self, seat: Seat, orders: &mut [Order]) {
        let has_lays = orders.iter().any(|o| matches!(o, Order::Lay { .. }));
        let along = if !has_lays || self.players[seat.index()].driving {
            Vec::new()
        } else {
            let ways = Ways::new(self, None, true);
            self.trip_path(seat, &self.reading(&ways), WEIGHTS)
        };
        let d = &self.data;
        let on_route = |square: super::Square, paths: super::Paths| {
            along.iter().any(|&(s, e, x)| {
                s == d.index(square)
                    && paths.joins(Edge::ALL[usize::from(e)], Edge::ALL[usize::from(x)])
            })
        };
        let mut keys: Vec<(u8, usize)> = Vec::with_capacity(orders.len());
        for o in orders.iter() {
            let key = match o {
                Order::Start { .. } => 0,
                Order::Lay { square, paths } => {
                    match (
                        on_route(*square, *paths),
                        extends_track(self, *square, *paths),
                    ) {
                        (true, true) => 1,
                        (true, false) => 2,
                        _ => 4,
                    }
                }
                Order::Exchange { .. } => 3,
                Order::Move { places } => (255 - places.len().min(250)) as u8,
                _ => 5,
            };
            keys.push((key, keys.len()));
        }
        let mut idx: Vec<usize> = (0..orders.len()).collect();
        idx.sort_by_key(|i| keys[*i]);
        let sorted: Vec<Order> = idx.iter().map(|i| orders[*i].clone()).collect();
        orders.clone_from_slice(&sorted);
    }
}
