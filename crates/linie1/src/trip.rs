//! How long a player's trip would take, the route still to build
//! included: the bots' reading of a route (`bot.rs`), where `route.rs`
//! counts the squares still to fill for a player's hints.
//!
//! One search over the trip itself, as `Linie1::can_finish` drives it:
//! states are (place, side entered by, required stops made), so the tram
//! never reverses (rulings 6), the stops are made on the way in any
//! order (in the card's with `ordered_stops`, Stationmaster ruling 3), and
//! a way that would have to turn back at a stop is not counted, as it is
//! where `route.rs` counts each stretch on its own. Beyond `can_finish`,
//! a way may cross an empty square between two sides that some tile
//! still in play, turned some way, joins while fitting the square's
//! neighbours as they lie (rulings 1; `route.rs`'s fitted ways): one the
//! seat holds or may take from a driver's open hand, or, at the price of
//! the wait to draw it ([`Weights::draw`]), one still in the supply (the
//! hands and the supply's counts are public); and a required stop
//! with no sign yet is made on an empty square next to its building, as
//! the first tile laid there takes the sign (rulings 3). Each place
//! entered costs a weight ([`Weights`]): a square with track what driving
//! over it does, an empty square that and the laying besides, and a
//! square where the tram must stop (a stop sign, or an empty square that
//! would take one) the rest of a move besides. The least total is the
//! trip's cost. It reads `seat`'s secret cards.

use super::data::{Edge, Square, TerminalId};
use super::route::{Lead, NOT_EMPTY, TileSet, Ways, fit_of};
use super::{Linie1, Place, Seat, Tram};

/// An empty square a way crosses (by index), with the sides it enters
/// and leaves by (by [`Edge::index`]).
pub(super) type Crossing = (usize, u8, u8);

/// The masks of stops made of `seat`'s searches.
fn masks_of(g: &Linie1, seat: Seat) -> u16 {
    1 << g.required_stops(seat).len()
}

/// No cost found (yet).
const UNREACHED: u16 = u16::MAX;

/// The weights the bot's estimate reads a trip by (`bot.rs`), in tenths
/// of a turn: to drive over track, a tram making some two and a half
/// squares a move; an empty square must be laid first, half of a turn's
/// two tiles; a stop ends a move, which costs some of the next; a side
/// only a tile still in the supply can reach, a turn's draw more.
pub(super) const WEIGHTS: Weights = Weights {
    laid: 4,
    empty: 9,
    halt: 6,
    draw: 10,
};

/// What a place entered costs (each at least 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Weights {
    /// A square with track on it, or a terminal.
    pub(super) laid: u16,
    /// An empty square, where a tile must be laid first: in place of
    /// `laid`.
    pub(super) empty: u16,
    /// A square where the tram must stop: besides.
    pub(super) halt: u16,
    /// Leaving an empty square by a side that no tile at hand (the seat's
    /// own, or a driver's open hand) would take the way to, only one
    /// still in the supply: besides, for the wait to draw one.
    pub(super) draw: u16,
}

/// Where a search sets out from.
#[derive(Clone, Copy, Debug)]
pub(super) enum From {
    /// A terminal, the trip not yet started: out by either leg.
    Terminal(TerminalId),
    /// Where a tram stands, with these stops made (bits by the card).
    Tram(Tram, u8),
}

/// The states of one search, numbered: a square's (square × 5 + side
/// entered by), then a terminal's (terminal × 3 + leg entered by, or 2
/// when set out from), each for every mask of stops made.
struct Numbering {
    square_states: usize,
    masks: usize,
}

impl Numbering {
    fn square(&self, k: usize, mask: u8) -> usize {
        k * self.masks + usize::from(mask)
    }

    fn terminal(&self, t: usize, leg: usize, mask: u8) -> usize {
        (self.square_states + t * 3 + leg) * self.masks + usize::from(mask)
    }
}

/// A search in progress: Dial's buckets over small integer costs.
struct Dial {
    dist: Vec<u16>,
    buckets: Vec<Vec<u32>>,
    /// States waiting in the buckets.
    waiting: usize,
    /// With `trace`: the state each state was last offered from, and the
    /// state being read (whose offers these are; [`NONE`] for the start).
    trace: bool,
    from: Vec<u32>,
    parent: u32,
}

/// No state.
const NONE: u32 = u32::MAX;

impl Dial {
    fn new(states: usize, widest: u16) -> Dial {
        Dial {
            dist: vec![UNREACHED; states],
            buckets: vec![Vec::with_capacity(64); usize::from(widest) + 1],
            waiting: 0,
            trace: false,
            from: Vec::new(),
            parent: NONE,
        }
    }

    /// Ready for a new search, keeping the room.
    fn reset(&mut self, states: usize, widest: u16) {
        self.dist.clear();
        self.dist.resize(states, UNREACHED);
        self.buckets.resize_with(usize::from(widest) + 1, Vec::new);
        self.buckets.iter_mut().for_each(Vec::clear);
        self.waiting = 0;
        self.parent = NONE;
        if self.trace {
            self.from.resize(states, NONE);
        }
    }

    fn offer(&mut self, state: usize, cost: u16) {
        if cost < self.dist[state] {
            self.dist[state] = cost;
            if self.trace {
                self.from[state] = self.parent;
            }
            let n = self.buckets.len();
            self.buckets[usize::from(cost) % n].push(state as u32);
            self.waiting += 1;
        }
    }
}

/// What one search reads of the board for a seat, besides the ways.
struct Trip<'w> {
    ways: &'w Ways<'w>,
    w: Weights,
    /// Per square, the required stops entering it makes (bits by the
    /// card).
    serves: &'w [u8],
    /// Per square, whether the tram must stop on it.
    halts: &'w [bool],
    /// Per state of an empty square (fitted ways only), the sides the
    /// seat may leave it by (low bits) and those a tile at hand takes it
    /// to (high bits); None: `ways.exits`, every one at hand.
    fits: Option<&'w [u8]>,
    /// All the stops made.
    full: u8,
    ordered: bool,
    /// Only track already laid (a driver's tram).
    laid_only: bool,
    to: usize,
    num: Numbering,
    /// A* (Hart, Nilsson & Raphael 1968): per square and mask of stops
    /// made (square × masks + mask), a lower bound of the cost still to
    /// come ([`Linie1::lower_bounds`]); the buckets hold a state's cost so
    /// far plus its bound.
    bound: &'w [u16],
    /// The least weight of a place entered.
    least: u16,
}

impl Trip<'_> {
    /// The sides out of state `k`: those open, and those at hand.
    fn exits(&self, k: usize) -> (u8, u8) {
        match self.fits {
            Some(f) => (f[k] & 0xf, f[k] >> 4),
            None => (self.ways.exits[k], 0xf),
        }
    }

    /// The stops made after entering square `s` with `mask` made.
    fn made(&self, mask: u8, s: usize) -> u8 {
        let new = self.serves[s] & !mask;
        if self.ordered {
            mask | (new & (1u8 << mask.count_ones()))
        } else {
            mask | new
        }
    }

    /// Entering square `s` by state `k` (square × 5 + side), at `cost`
    /// so far; `empty`: it has no track yet.
    fn enter(&self, dial: &mut Dial, (k, mask): (usize, u8), cost: u16, empty: bool) {
        if empty && self.laid_only {
            return;
        }
        let s = k / 5;
        let mut price = if empty { self.w.empty } else { self.w.laid };
        if self.halts[s] {
            price += self.w.halt;
        }
        let made = self.made(mask, s);
        let bound = self.bound[s * self.num.masks + usize::from(made)];
        dial.offer(self.num.square(k, made), cost + price + bound);
    }

    /// The lower bound of a state of terminal `t` with `mask` made, not
    /// the end: a leg entered next, and the bound from there.
    fn terminal_bound(&self, legs: [usize; 2], mask: u8) -> u16 {
        let at = |l: usize| self.bound[l * self.num.masks + usize::from(mask)];
        self.least + at(legs[0]).min(at(legs[1]))
    }
}

/// The board read once for every seat's searches: the ways, where a tram
/// must stop, and a search's room, kept from one search to the next.
pub(super) struct Reading<'w> {
    ways: &'w Ways<'w>,
    halts: Vec<bool>,
    dial: std::cell::RefCell<Dial>,
    bound: std::cell::RefCell<Vec<u16>>,
    /// False: no bound (plain Dial's algorithm), for the tests.
    astar: bool,
}

impl Linie1 {
    /// `ways` (the board read with fitted ways, `Ways::new(self, None,
    /// true)`, or not) read for trip searches, one reading for every seat.
    pub(super) fn reading<'w>(&self, ways: &'w Ways<'w>) -> Reading<'w> {
        Reading {
            ways,
            halts: self.halt_squares(),
            dial: std::cell::RefCell::new(Dial::new(0, 0)),
            bound: std::cell::RefCell::new(Vec::new()),
            astar: true,
        }
    }

    /// The least cost of `seat`'s whole trip from one of its line's
    /// terminals to the other through every required stop, over the board
    /// as it lies and as it could be built (see the module's notes); None
    /// where no way is open.
    pub(super) fn trip_cost(&self, seat: Seat, r: &Reading, w: Weights) -> Option<u32> {
        let terminals = self.data.terminals_of(self.players[seat.index()].line);
        let (&a, &b) = (terminals.first()?, terminals.get(1)?);
        let serves = self.stop_squares(seat);
        let fits = self.seat_fits(seat, r.ways);
        let there = self.search(
            seat,
            r,
            (&serves, fits.as_deref()),
            (From::Terminal(a), b),
            w,
        );
        // Unordered stops make the same trip either way round.
        if !self.ordered(seat) {
            return there;
        }
        let back = self.search(
            seat,
            r,
            (&serves, fits.as_deref()),
            (From::Terminal(b), a),
            w,
        );
        match (there, back) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }

    /// The empty squares along one cheapest way of `seat`'s whole trip
    /// ([`Linie1::trip_cost`]), each with the sides the way enters and
    /// leaves it by (by [`Edge::index`]): the bots' hint of where to lay.
    pub(super) fn trip_path(&self, seat: Seat, r: &Reading, w: Weights) -> Vec<Crossing> {
        let terminals = self.data.terminals_of(self.players[seat.index()].line);
        let (Some(&a), Some(&b)) = (terminals.first(), terminals.get(1)) else {
            return Vec::new();
        };
        let serves = self.stop_squares(seat);
        let fits = self.seat_fits(seat, r.ways);
        let ends: &[(TerminalId, TerminalId)] = if self.ordered(seat) {
            &[(a, b), (b, a)]
        } else {
            &[(a, b)]
        };
        r.dial.borrow_mut().trace = true;
        let mut best: Option<(u32, Vec<Crossing>)> = None;
        for &(from, to) in ends {
            let found = self.search(
                seat,
                r,
                (&serves, fits.as_deref()),
                (From::Terminal(from), to),
                w,
            );
            if let Some(c) = found
                && best.as_ref().is_none_or(|(b, _)| c < *b)
            {
                best = Some((
                    c,
                    self.traced(&r.dial.borrow(), usize::from(masks_of(self, seat))),
                ));
            }
        }
        r.dial.borrow_mut().trace = false;
        best.map(|(_, p)| p).unwrap_or_default()
    }

    /// The empty squares of the way a traced search ended with, back from
    /// its last state, as [`Linie1::trip_path`] gives them.
    fn traced(&self, dial: &Dial, masks: usize) -> Vec<Crossing> {
        let d = &self.data;
        let square_states = d.square_count() * 5;
        let mut out = Vec::new();
        let mut next = dial.parent;
        let mut state = dial.from.get(next as usize).copied().unwrap_or(NONE);
        while state != NONE {
            let (place, after) = (state as usize / masks, next as usize / masks);
            if place < square_states {
                let s = place / 5;
                let out_by = if after < square_states {
                    Edge::ALL[after % 5].opposite().index()
                } else {
                    d.terminals[(after - square_states) / 3].side.index()
                };
                if self.laid(d.square_at(s)).is_none() {
                    out.push((s, (place % 5) as u8, out_by as u8));
                }
            }
            next = state;
            state = dial.from.get(state as usize).copied().unwrap_or(NONE);
        }
        out
    }

    /// The least cost of the rest of `seat`'s trip from where its tram
    /// stands, with `mask` made, to terminal `to`, over the track laid;
    /// None if it cannot finish.
    pub(super) fn drive_cost(
        &self,
        seat: Seat,
        r: &Reading,
        (tram, mask, to): (Tram, u8, TerminalId),
        w: Weights,
    ) -> Option<u32> {
        let serves = self.stop_squares(seat);
        self.search(seat, r, (&serves, None), (From::Tram(tram, mask), to), w)
    }

    /// Per state of an empty square, the sides `seat` may leave it by
    /// (low bits: a tile of its hand, a driver's open hand or the supply
    /// takes the way there) and those a tile at hand does (high bits);
    /// None where `ways` are not fitted.
    fn seat_fits(&self, seat: Seat, ways: &Ways) -> Option<Vec<u8>> {
        if ways.keys.is_empty() {
            return None;
        }
        let bit = |t: super::TileId| 1u32.checked_shl(u32::from(t.0)).unwrap_or(0);
        let mut at_hand: TileSet = 0;
        for (i, p) in self.players.iter().enumerate() {
            if i == seat.index() || p.driving {
                at_hand |= p.hand.iter().fold(0, |m, t| m | bit(*t));
            }
        }
        let mut supply: TileSet = 0;
        for (t, n) in self.supply.iter().enumerate() {
            if *n > 0 && t < 32 {
                supply |= 1 << t;
            }
        }
        let mut known: [Option<[u8; 5]>; 256] = [None; 256];
        let mut out = ways.exits.clone();
        for (i, key) in ways.keys.iter().enumerate() {
            if *key == NOT_EMPTY {
                out[i * 5..i * 5 + 5].iter_mut().for_each(|e| *e |= 0xf0);
                continue;
            }
            let fit = *known[usize::from(*key)].get_or_insert_with(|| {
                let (hand, all) = (
                    fit_of(self, at_hand, *key),
                    fit_of(self, at_hand | supply, *key),
                );
                std::array::from_fn(|c| all[c] | hand[c] << 4)
            });
            for (came, f) in fit.iter().enumerate() {
                let open = ways.exits[i * 5 + came] & f & 0xf;
                out[i * 5 + came] = open | (open & (f >> 4)) << 4;
            }
        }
        Some(out)
    }

    /// Each square's stops: the bits of `seat`'s required stops (by their
    /// place on the card) that entering it makes: the stop sign's square,
    /// or, for a stop with no sign yet, each empty square next to its
    /// building.
    fn stop_squares(&self, seat: Seat) -> Vec<u8> {
        let d = &self.data;
        let mut serves = vec![0u8; d.square_count()];
        for (i, b) in self.required_stops(seat).iter().enumerate() {
            match self.stop_sign(*b) {
                Some(s) => serves[d.index(s)] |= 1 << i,
                None => {
                    for s in self.sign_sites(*b) {
                        serves[d.index(s)] |= 1 << i;
                    }
                }
            }
        }
        serves
    }

    /// The empty squares next to building `b`, one of which takes its
    /// stop sign with the first tile laid (rulings 3).
    fn sign_sites(&self, b: super::BuildingId) -> Vec<Square> {
        let d = &self.data;
        let home = d.building(b).square;
        Edge::ALL
            .into_iter()
            .filter_map(|e| d.step(home, e))
            .filter(|s| d.building_at(*s).is_none() && self.laid(*s).is_none())
            .collect()
    }

    /// Per square, whether a tram must stop on it: a stop sign's, or an
    /// empty square that would take one.
    fn halt_squares(&self) -> Vec<bool> {
        let d = &self.data;
        let mut halts = vec![false; d.square_count()];
        for b in 0..d.buildings.len() {
            let b = super::BuildingId(b as u8);
            match self.stop_sign(b) {
                Some(s) => halts[d.index(s)] = true,
                None => {
                    for s in self.sign_sites(b) {
                        halts[d.index(s)] = true;
                    }
                }
            }
        }
        halts
    }

    /// One search of `seat`'s trip, from `from` to terminal `to`, with
    /// its stops `serves` ([`Linie1::stop_squares`]) and its `fits`
    /// ([`Linie1::seat_fits`]); a tram (`From::Tram`) on laid track only.
    fn search(
        &self,
        seat: Seat,
        r: &Reading,
        (serves, fits): (&[u8], Option<&[u8]>),
        (from, to): (From, TerminalId),
        w: Weights,
    ) -> Option<u32> {
        let d = &self.data;
        let stops = self.required_stops(seat).len();
        let full = ((1u16 << stops) - 1) as u8;
        let w = Weights {
            laid: w.laid.max(1),
            empty: w.empty.max(1),
            halt: w.halt,
            draw: w.draw,
        };
        let masks = usize::from(full) + 1;
        let least = if r.astar { w.laid.min(w.empty) } else { 0 };
        let mut bound = r.bound.borrow_mut();
        self.lower_bounds(serves, (full, masks), to, least, &mut bound);
        let trip = Trip {
            ways: r.ways,
            w,
            serves,
            halts: &r.halts,
            fits,
            full,
            ordered: self.ordered(seat),
            laid_only: matches!(from, From::Tram(..)),
            to: to.index(),
            num: Numbering {
                square_states: d.square_count() * 5,
                masks,
            },
            bound: &bound,
            least,
        };
        let states = trip.num.terminal(d.terminals.len(), 0, 0);
        // A step raises cost and bound together by at most this.
        let widest = w.laid.max(w.empty) + w.halt + w.draw + least;
        let mut dial = r.dial.borrow_mut();
        dial.reset(states, widest);
        let legs = |t: TerminalId| d.terminals[t.index()].legs.map(|l| d.index(l));
        let start = match from {
            From::Terminal(t) => {
                let h = trip.terminal_bound(legs(t), 0);
                dial.offer(trip.num.terminal(t.index(), 2, 0), h);
                h
            }
            From::Tram(tram, mask) => match (tram.at, tram.came_in) {
                (Place::Square(s), Some(c)) => {
                    let k = d.index(s) * 5 + usize::from(c) % 4;
                    let h = trip.bound[d.index(s) * masks + usize::from(mask)];
                    dial.offer(trip.num.square(k, mask), h);
                    h
                }
                (Place::Terminal(t), c) => {
                    let leg = c.map_or(2, |c| usize::from(c).min(1));
                    let h = trip.terminal_bound(legs(t), mask);
                    dial.offer(trip.num.terminal(t.index(), leg, mask), h);
                    h
                }
                (Place::Square(_), None) => return None,
            },
        };
        self.run(&trip, &mut dial, start)
    }

    /// Per square and mask of stops made (square × masks + mask), a lower
    /// bound of the cost still to come, in `out`: `least` for each place
    /// still to enter, counted by rows and columns, buildings and track
    /// aside: to a leg of terminal `to` and into it, through the nearest
    /// square serving each stop not made yet. A step to a neighbour
    /// lowers it by at most `least`, so it never overtakes the cost (the
    /// bound is consistent) and a state first taken from the buckets has
    /// its least cost.
    fn lower_bounds(
        &self,
        serves: &[u8],
        (full, masks): (u8, usize),
        to: TerminalId,
        least: u16,
        out: &mut Vec<u16>,
    ) {
        let d = &self.data;
        let n = d.square_count();
        let legs = d.terminals[to.index()].legs;
        let apart = |a: Square, b: Square| u16::from(a.row.abs_diff(b.row) + a.col.abs_diff(b.col));
        let to_end = |s: Square| apart(s, legs[0]).min(apart(s, legs[1])) + 1;
        let stops = full.count_ones() as usize;
        let mut sites: Vec<Vec<(Square, u16)>> = vec![Vec::new(); stops];
        for (i, site) in sites.iter_mut().enumerate() {
            for (k, bits) in serves.iter().enumerate() {
                if bits & (1 << i) != 0 {
                    let q = d.square_at(k);
                    site.push((q, to_end(q)));
                }
            }
        }
        out.clear();
        out.resize(n * masks, 0);
        let mut via = vec![0u16; stops];
        for k in 0..n {
            let s = d.square_at(k);
            for (v, site) in via.iter_mut().zip(&sites) {
                *v = site
                    .iter()
                    .map(|(q, e)| apart(s, *q) + e)
                    .min()
                    .unwrap_or(0);
            }
            let end = to_end(s);
            for mask in 0..masks {
                let left = (0..stops).filter(|i| mask & (1 << i) == 0);
                let most = left.map(|i| via[i]).fold(end, u16::max);
                out[k * masks + mask] = most * least;
            }
        }
    }

    /// Dial's algorithm (A*, by [`Trip::bound`]) to the first state at
    /// `trip.to` with every stop made: its cost (and the state, in
    /// `dial.parent`). `start`: the bound of the one state offered.
    fn run(&self, trip: &Trip, dial: &mut Dial, start: u16) -> Option<u32> {
        let num = &trip.num;
        let d = &self.data;
        let legs = |t: usize| d.terminals[t].legs.map(|l| d.index(l));
        let mut cost = start;
        while dial.waiting > 0 {
            let n = dial.buckets.len();
            let at = usize::from(cost) % n;
            // A step whose cost the bound's fall makes up joins this
            // bucket while it is read: read to its end as it grows.
            let mut next = 0;
            while let Some(&state) = dial.buckets[at].get(next) {
                next += 1;
                dial.waiting -= 1;
                let state = state as usize;
                if dial.dist[state] != cost {
                    continue;
                }
                dial.parent = state as u32;
                let (place, mask) = (state / num.masks, (state % num.masks) as u8);
                if place >= num.square_states {
                    let (t, leg) = (
                        (place - num.square_states) / 3,
                        (place - num.square_states) % 3,
                    );
                    if t == trip.to && mask == trip.full && leg != 2 {
                        dial.parent = state as u32;
                        return Some(u32::from(cost));
                    }
                    if t != trip.to || leg == 2 {
                        let so_far = cost - trip.terminal_bound(legs(t), mask);
                        self.leave_terminal(trip, (t, leg), mask, so_far, dial);
                    }
                    continue;
                }
                let so_far = cost - trip.bound[place / 5 * num.masks + usize::from(mask)];
                let (open, at_hand) = trip.exits(place);
                for (x, lead) in trip.ways.leads[place / 5].iter().enumerate() {
                    if open & (1 << x) == 0 {
                        continue;
                    }
                    let so_far = if at_hand & (1 << x) == 0 {
                        so_far + trip.w.draw
                    } else {
                        so_far
                    };
                    match *lead {
                        Lead::State(k, step) => {
                            trip.enter(dial, (usize::from(k), mask), so_far, step != 0);
                        }
                        Lead::Terminal(t, leg) => {
                            let (t, leg) = (usize::from(t), usize::from(leg));
                            let h = if t != trip.to {
                                trip.terminal_bound(legs(t), mask)
                            } else if mask == trip.full {
                                0
                            } else {
                                // The end with a stop not made: no way on.
                                continue;
                            };
                            let st = num.terminal(t, leg, mask);
                            dial.offer(st, so_far + trip.w.laid + h);
                        }
                        Lead::Closed => {}
                    }
                }
            }
            dial.buckets[at].clear();
            cost += 1;
        }
        None
    }

    /// Out of terminal `t`, entered by `leg` (2: set out from it): by the
    /// other leg (either, when set out from), onto its square.
    fn leave_terminal(
        &self,
        trip: &Trip,
        (t, leg): (usize, usize),
        mask: u8,
        cost: u16,
        dial: &mut Dial,
    ) {
        let d = &self.data;
        let term = &d.terminals[t];
        let legs: &[usize] = match leg {
            0 => &[1],
            1 => &[0],
            _ => &[0, 1],
        };
        for &l in legs {
            let s = term.legs[l];
            let empty = match self.laid(s) {
                Some(laid) if laid.paths.touches(term.side) => false,
                Some(_) => continue,
                None => true,
            };
            let k = d.index(s) * 5 + term.side.index();
            trip.enter(dial, (k, mask), cost, empty);
        }
    }
}

impl Linie1 {
    /// For the crate's tests (`tests/linie1.rs`) only: every seat's trip
    /// and drive cost at the bot's weights, with and without the A* bound,
    /// and the way traced (empty squares, in and out by two sides); the
    /// first disagreement, or how many costs agreed.
    #[doc(hidden)]
    pub fn astar_agrees(&self) -> Result<usize, String> {
        let weights = WEIGHTS;
        let ways = Ways::new(self, None, true);
        let with = self.reading(&ways);
        let mut without = self.reading(&ways);
        without.astar = false;
        let mut compared = 0;
        for i in 0..self.players.len() {
            let seat = Seat(i as u8);
            let (a, b) = (
                self.trip_cost(seat, &with, weights),
                self.trip_cost(seat, &without, weights),
            );
            if a != b {
                return Err(format!(
                    "seat {i}: trip {a:?} with the bound, {b:?} without"
                ));
            }
            compared += 1;
            for (sq, e, x) in self.trip_path(seat, &with, weights) {
                if self.laid(self.data.square_at(sq)).is_some() || e == x || e >= 4 || x >= 4 {
                    return Err(format!("seat {i}: the way crosses {sq} from {e} to {x}"));
                }
            }
            let p = &self.players[seat.index()];
            if let Some((t, tram)) = p.trip.as_ref().and_then(|t| Some((t, t.tram?))) {
                let mask = self.stopped_mask(seat, t);
                let (a, b) = (
                    self.drive_cost(seat, &with, (tram, mask, t.to), weights),
                    self.drive_cost(seat, &without, (tram, mask, t.to), weights),
                );
                if a != b {
                    return Err(format!(
                        "seat {i}: drive {a:?} with the bound, {b:?} without"
                    ));
                }
            }
        }
        Ok(compared)
    }
}
