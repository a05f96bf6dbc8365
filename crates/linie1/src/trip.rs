//! How long a player's whole trip would take, the route still to build
//! included: the bots' reading of a route (`bot.rs`), where
//! `route.rs` counts the squares still to fill for a player's hints.
//!
//! One search over the trip itself, as `Linie1::can_finish` drives it:
//! states are (place, side entered by, required stops made), so the tram
//! never reverses (rulings 6), the stops are made on the way in any
//! order (in the card's with `ordered_stops`, Stationmaster ruling 3), and
//! a way that would have to turn back at a stop is not counted, as it is
//! where each stretch is counted on its own. Beyond `can_finish`, a way
//! may cross an empty square between two sides that some tile of the
//! game, turned some way, joins while fitting the square's neighbours as
//! they lie (rulings 1; `route.rs`'s fitted ways), and a required stop
//! with no sign yet is made on an empty square next to its building, as
//! the first tile laid there takes the sign (rulings 3). Each square
//! entered costs a weight: one for a square with track (to drive), one
//! for an empty square (to lay, and to drive); the least total is the
//! trip's cost. It reads `seat`'s secret cards.

use super::data::{Edge, Square};
use super::route::{Lead, Ways};
use super::{Linie1, Seat};

/// No cost found (yet).
const UNREACHED: u16 = u16::MAX;

/// What a square entered costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Weights {
    /// A square with track on it.
    pub(super) laid: u16,
    /// An empty square, where a tile must be laid first.
    pub(super) empty: u16,
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

/// A search in progress: Dial's buckets over small integer weights.
struct Dial {
    dist: Vec<u16>,
    buckets: Vec<Vec<u32>>,
    /// States waiting in the buckets.
    waiting: usize,
}

impl Dial {
    fn new(states: usize, widest: u16) -> Dial {
        Dial {
            dist: vec![UNREACHED; states],
            buckets: vec![Vec::new(); usize::from(widest) + 1],
            waiting: 0,
        }
    }

    fn offer(&mut self, state: usize, cost: u16) {
        if cost < self.dist[state] {
            self.dist[state] = cost;
            let n = self.buckets.len();
            self.buckets[usize::from(cost) % n].push(state as u32);
            self.waiting += 1;
        }
    }
}

impl Linie1 {
    /// The least cost of `seat`'s whole trip from one of its line's
    /// terminals to the other through every required stop, over the board
    /// as it lies and as it could be built (see the module's notes), with
    /// each square entered weighted by `w`; None where no way is open.
    pub(super) fn trip_cost(&self, seat: Seat, w: Weights) -> Option<u32> {
        let terminals = self.data.terminals_of(self.players[seat.index()].line);
        let (&a, &b) = (terminals.first()?, terminals.get(1)?);
        let ways = Ways::new(self, None, true);
        let there = self.trip_from(seat, &ways, (a.index(), b.index()), w);
        // Unordered stops make the same trip either way round.
        if !self.ordered(seat) {
            return there;
        }
        let back = self.trip_from(seat, &ways, (b.index(), a.index()), w);
        match (there, back) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
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
                    let home = d.building(*b).square;
                    for e in Edge::ALL {
                        if let Some(s) = d.step(home, e)
                            && d.building_at(s).is_none()
                            && self.laid(s).is_none()
                        {
                            serves[d.index(s)] |= 1 << i;
                        }
                    }
                }
            }
        }
        serves
    }

    /// [`Linie1::trip_cost`] from terminal `from` to terminal `to`.
    fn trip_from(
        &self,
        seat: Seat,
        ways: &Ways,
        (from, to): (usize, usize),
        w: Weights,
    ) -> Option<u32> {
        let d = &self.data;
        let stops = self.required_stops(seat).len();
        let full = ((1u16 << stops) - 1) as u8;
        let ordered = self.ordered(seat);
        let serves = self.stop_squares(seat);
        let made = |mask: u8, s: usize| -> u8 {
            let new = serves[s] & !mask;
            if ordered {
                let next = 1u8 << mask.count_ones();
                mask | (new & next)
            } else {
                mask | new
            }
        };
        let num = Numbering {
            square_states: d.square_count() * 5,
            masks: usize::from(full) + 1,
        };
        let states = num.terminal(d.terminals.len(), 0, 0);
        let mut dial = Dial::new(states, w.laid.max(w.empty));
        // Set out from `from`: either leg.
        dial.offer(num.terminal(from, 2, 0), 0);
        let mut cost = 0u16;
        while dial.waiting > 0 {
            let n = dial.buckets.len();
            let bucket = std::mem::take(&mut dial.buckets[usize::from(cost) % n]);
            for state in bucket {
                dial.waiting -= 1;
                let state = state as usize;
                if dial.dist[state] != cost {
                    continue;
                }
                let (place, mask) = (state / num.masks, (state % num.masks) as u8);
                if place >= num.square_states {
                    let (t, leg) = ((place - num.square_states) / 3, (place - num.square_states) % 3);
                    if t == to && mask == full {
                        return Some(u32::from(cost));
                    }
                    if t == to {
                        continue;
                    }
                    self.leave_terminal((t, leg), mask, cost, w, (&num, &mut dial), &made);
                    continue;
                }
                let s = place / 5;
                for (x, lead) in ways.leads[s].iter().enumerate() {
                    if ways.exits[place] & (1 << x) == 0 {
                        continue;
                    }
                    match *lead {
                        Lead::State(k, step) => {
                            let next = usize::from(k);
                            let price = if step == 0 { w.laid } else { w.empty };
                            let m = made(mask, next / 5);
                            dial.offer(num.square(next, m), cost + price);
                        }
                        Lead::Terminal(t, leg) => {
                            let st = num.terminal(usize::from(t), usize::from(leg), mask);
                            dial.offer(st, cost + w.laid);
                        }
                        Lead::Closed => {}
                    }
                }
            }
            cost += 1;
        }
        None
    }

    /// Out of terminal `t`, entered by `leg` (2: set out from it): by the
    /// other leg (either, when set out from), onto its square.
    fn leave_terminal(
        &self,
        (t, leg): (usize, usize),
        mask: u8,
        cost: u16,
        w: Weights,
        (num, dial): (&Numbering, &mut Dial),
        made: &impl Fn(u8, usize) -> u8,
    ) {
        let d = &self.data;
        let term = &d.terminals[t];
        let legs: &[usize] = match leg {
            0 => &[1],
            1 => &[0],
            _ => &[0, 1],
        };
        for &l in legs {
            let s: Square = term.legs[l];
            let price = match self.laid(s) {
                Some(laid) if laid.paths.touches(term.side) => w.laid,
                Some(_) => continue,
                None => w.empty,
            };
            let i = d.index(s);
            let k = i * 5 + term.side.index();
            dial.offer(num.square(k, made(mask, i)), cost + price);
        }
    }
}
