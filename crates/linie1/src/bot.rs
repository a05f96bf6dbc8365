//! What the engine's bot (`engine::bot`) asks of Linie 1 beyond the rules:
//! a determinization of the secrets, an estimate of a position, and the
//! order to look at a seat's orders in.
//!
//! **The secrets** (rulings 4) are each player's line and route card
//! until they start their trip, and what is still to come from the game's
//! random source: the order of the face-down supply, and the die.
//! [`Linie1::determinize_for`] deals the cards of every other player not
//! yet driving afresh from the cards the viewer has not seen (every line
//! card, and every route card of the game's set, but the viewer's own and
//! those a driver has shown), each player a different one, as the box
//! deals them; and reseeds the game's generator, so that draws and rolls
//! to come are new. What the supply holds, by tile type, is public (every
//! tile not on the board or in an open hand) and kept. The cards dealt
//! anew are overwritten without being read.
//!
//! **The guess** ([`Linie1::guess`]): the cards are not dealt uniformly
//! but as the table reads them. Who laid each tile is public; a player
//! builds towards their own route, so each pair of a line and a route
//! card is weighted by how much nearer that player's tiles bring its
//! trip (`trip.rs`'s least cost with their tiles taken off the board, less
//! the same as it lies). Uniform, the bot took the others' trips for
//! random ones and did best ignoring them; read so, their standing counts
//! ([`engine::Game::BOT_PROGRESS`] 0.3; a driver's choices touch no one
//! else's trip, and it plays for its own alone). In a game stored before
//! who laid what was kept, every pair weighs the same. The guess is made
//! once a position and viewer, and kept with the game until an order
//! changes it.
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

use std::sync::{Arc, OnceLock};

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
/// [`Linie1::guess`]: a pair's weight grows by a power of e this much for
/// each tenth of a turn that a player's tiles bring its trip nearer. Read
/// against greedy players' games (`tests/all/bots.rs`), 0.05, 0.1, 0.2
/// and 0.4 gave their true pairs 15 %, 29 %, 44 % and 52 % of the
/// guesses; the stronger, the likelier a player who lays to block
/// another is misread, so not the strongest.
const LEAN: f64 = 0.2;
/// [`Linie1::guess`]: a trip with no way open, as a cost.
const UNBUILT: i64 = 1_000;
/// [`Linie1::guess`]: the most a player's tiles count for or against a
/// pair, in tenths of a turn.
const NEARER_MOST: i64 = 60;

/// One player's guessed cards ([`Linie1::guess`]): each pair of a line and
/// a route card, with its weight.
#[derive(Clone, Debug)]
pub(super) struct Guess {
    seat: usize,
    pairs: Vec<(LineId, RouteCardId, f64)>,
}

/// The guess made of a position for one viewer, kept with the game (the
/// bot determinizes the same position hundreds of times a move) and
/// emptied by every order applied. Made from what the viewer may see
/// alone, it is no part of the game: every two are equal.
#[derive(Clone, Debug, Default)]
pub(super) struct Guesses(OnceLock<(Seat, Arc<Vec<Guess>>)>);

impl PartialEq for Guesses {
    fn eq(&self, _: &Guesses) -> bool {
        true
    }
}

impl Eq for Guesses {}

impl Linie1 {
    /// See [`engine::Game::determinize`] and the module's notes.
    pub(super) fn determinize_for(&self, viewer: Seat, rng: &mut SplitMix64) -> Linie1 {
        let mut g = self.clone();
        g.rng = SplitMix64::new(rng.next_u64());
        if self.result.is_some() {
            return g;
        }
        let guesses = self.guesses_for(viewer);
        let (mut lines, mut routes) = self.seen_cards(viewer);
        // One player after another, in an order drawn anew, each from the
        // pairs no one before took: the box deals each a different card.
        let mut order: Vec<usize> = (0..guesses.len()).collect();
        shuffle(rng, &mut order);
        for k in order {
            let guess = &guesses[k];
            let open =
                |(l, r, _): &&(LineId, RouteCardId, f64)| !lines.contains(l) && !routes.contains(r);
            let total: f64 = guess.pairs.iter().filter(open).map(|p| p.2).sum();
            // 53 random bits, as a fraction of the open pairs' weight.
            let mut at = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
            let mut pick = None;
            for pair in guess.pairs.iter().filter(open) {
                pick = Some(pair);
                at -= pair.2;
                if at < 0.0 {
                    break;
                }
            }
            if let Some(&(l, r, _)) = pick {
                g.players[guess.seat].line = l;
                g.players[guess.seat].route = r;
                lines.push(l);
                routes.push(r);
            }
        }
        g
    }

    /// The line and route cards `viewer` has seen: its own and the
    /// drivers'.
    fn seen_cards(&self, viewer: Seat) -> (Vec<LineId>, Vec<RouteCardId>) {
        let shown = (0..self.players.len()).filter(|i| self.shown_to(viewer, *i));
        shown
            .map(|i| (self.players[i].line, self.players[i].route))
            .unzip()
    }

    /// Whether `viewer` has seen seat `i`'s cards.
    fn shown_to(&self, viewer: Seat, i: usize) -> bool {
        i == viewer.index() || self.players[i].driving
    }

    /// [`Linie1::guess`] for `viewer`, made once a position.
    fn guesses_for(&self, viewer: Seat) -> Arc<Vec<Guess>> {
        if let Some((v, made)) = self.guesses.0.get()
            && *v == viewer
        {
            return Arc::clone(made);
        }
        let made = Arc::new(self.guess(viewer));
        // A guess for another viewer stays; this one is made again.
        let _ = self.guesses.0.set((viewer, Arc::clone(&made)));
        made
    }

    /// For each player whose cards `viewer` has not seen, every pair of a
    /// line and a route card it has not seen, weighted by how much nearer
    /// the tiles that player laid bring that pair's trip: the least cost
    /// of the trip (`trip.rs`) with the board bare of those tiles, less
    /// the same on the board as it lies, `LEAN` a tenth of a turn.
    /// A player builds towards their own route, so a pair whose
    /// trip their tiles serve is the likelier; a pair their tiles block
    /// the less. It reads no hidden card: it searches a copy in which
    /// each is overwritten by the pair weighed.
    fn guess(&self, viewer: Seat) -> Vec<Guess> {
        let (seen_lines, seen_routes) = self.seen_cards(viewer);
        let lines: Vec<LineId> = (0..self.data.lines.len())
            .map(|i| LineId(i as u8))
            .filter(|l| !seen_lines.contains(l))
            .collect();
        let routes: Vec<RouteCardId> = self
            .data
            .route_set(usize::from(self.options.stops))
            .into_iter()
            .filter(|r| !seen_routes.contains(r))
            .collect();
        let pairs: Vec<(LineId, RouteCardId)> = lines
            .iter()
            .flat_map(|l| routes.iter().map(move |r| (*l, *r)))
            .collect();
        let Some(&(l0, r0)) = pairs.first() else {
            return Vec::new();
        };
        let hidden: Vec<usize> = (0..self.players.len())
            .filter(|i| !self.shown_to(viewer, *i))
            .collect();
        let mut board = self.clone();
        board.guesses = Guesses::default();
        for &i in &hidden {
            board.players[i].line = l0;
            board.players[i].route = r0;
        }
        let ways = Ways::new(&board, None, true);
        let reading = board.reading(&ways);
        hidden
            .into_iter()
            .map(|i| {
                let weights = board.pair_weights(Seat(i as u8), &reading, &pairs);
                Guess {
                    seat: i,
                    pairs: pairs
                        .iter()
                        .zip(weights)
                        .map(|(&(l, r), w)| (l, r, w))
                        .collect(),
                }
            })
            .collect()
    }

    /// [`Linie1::guess`]'s weights of `pairs` for `seat`, on this board
    /// (`reading`'s), the largest 1.
    fn pair_weights(
        &self,
        seat: Seat,
        reading: &Reading,
        pairs: &[(LineId, RouteCardId)],
    ) -> Vec<f64> {
        let i = seat.index();
        let mine: Vec<usize> = (0..self.laid_by.len())
            .filter(|k| self.laid_by[*k] == Some(seat) && self.cells[*k].is_some())
            .collect();
        if mine.is_empty() {
            return vec![1.0; pairs.len()];
        }
        let mut bare = self.clone();
        for &k in &mine {
            bare.cells[k] = None;
            let square = self.data.square_at(k);
            for sign in bare.stop_signs.iter_mut() {
                if *sign == Some(square) {
                    *sign = None;
                }
            }
        }
        let bare_ways = Ways::new(&bare, None, true);
        let bare_reading = bare.reading(&bare_ways);
        let (mut probe, mut bare_probe) = (self.clone(), bare.clone());
        let cost = |c: Option<u32>| c.map_or(UNBUILT, i64::from);
        let nearer: Vec<i64> = pairs
            .iter()
            .map(|&(l, r)| {
                for p in [&mut probe, &mut bare_probe] {
                    p.players[i].line = l;
                    p.players[i].route = r;
                }
                let with = cost(probe.trip_cost(seat, reading, WEIGHTS));
                let without = cost(bare_probe.trip_cost(seat, &bare_reading, WEIGHTS));
                (without - with).clamp(-NEARER_MOST, NEARER_MOST)
            })
            .collect();
        let most = nearer.iter().copied().max().unwrap_or(0);
        nearer
            .into_iter()
            .map(|n| (LEAN * (n - most) as f64).exp())
            .collect()
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
