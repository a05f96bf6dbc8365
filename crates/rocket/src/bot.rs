//! What the engine's bot (`engine::bot`) asks of Rocket beyond the rules:
//! a determinization of the one secret, and an estimate of a position.
//!
//! **The secret** is money (rulings 13): a player sees their own, and
//! every payment's cause but not its amount to others. The game keeps no
//! record of past payments, so a reader's view holds nothing to compute
//! another's money from: [`Rocket::determinize_for`] draws each other
//! player's money afresh, in whole £1,000 notes, uniformly between half
//! and one and a half times the viewer's own (and between £0 and £2,000
//! while the viewer has nothing): level with the viewer on average, as
//! players who have played the same turns are likely to be, with a spread
//! that keeps the bot from taking the table for known. The others' money
//! is overwritten without being read. With `open_money`, or once the game
//! is over, nothing is secret and the copy is exact.
//!
//! **The estimate** ([`Rocket::estimate_for`]) is a seat's money plus
//! what the end-game scoring (rulings 10, 11) would pay it if the game
//! ended now, computed as [`Rocket`]'s own end does: the same payments,
//! from the same counts, in one place (`end_game_payments`).

use engine::Seat;
use engine::rng::SplitMix64;

use super::board::{LineId, PlaceKind};
use super::event::PaymentCause;
use super::scoring::{self, Money};
use super::{Good, LineStatus, Rocket};

/// One end-game payment: the counts it was decided on, each player's
/// part, and its cause.
pub(super) type Payment = (Vec<u32>, Vec<Money>, PaymentCause);

impl Rocket {
    /// See [`engine::Game::determinize`] and the module's notes: each
    /// other player's money drawn anew.
    pub(super) fn determinize_for(&self, viewer: Seat, rng: &mut SplitMix64) -> Rocket {
        let mut g = self.clone();
        if self.money_public() {
            return g;
        }
        let own = self
            .players
            .get(viewer.index())
            .map_or(0, |p| p.money.pounds() / 1000);
        let (low, high) = if own == 0 {
            (0, 2)
        } else {
            (own / 2, own + own / 2)
        };
        for (i, p) in g.players.iter_mut().enumerate() {
            if i != viewer.index() {
                let drawn = low + rng.below((high - low + 1) as usize) as u32;
                p.money = Money::thousands(drawn);
            }
        }
        g
    }

    /// See [`engine::Game::estimate`]: `seat`'s money now plus what the
    /// end-game scoring would pay it if the game ended now; its final
    /// money once the game is over.
    pub(super) fn estimate_for(&self, seat: Seat) -> Option<i64> {
        let p = self.players.get(seat.index())?;
        let mut money = p.money.pounds();
        if self.result.is_none() {
            for (_, pay, _) in self.end_game_payments() {
                money += pay[seat.index()].pounds();
            }
        }
        Some(i64::from(money))
    }

    /// The end-game scoring's payments as the board stands (rulings 11):
    /// passengers, each good (the tokens of cities connected to no line
    /// left out, as they are discarded first), then the stations and
    /// shares of every line not dissolved, in the rules' order. The game's
    /// end pays these; the estimate adds them up.
    pub(super) fn end_game_payments(&self) -> Vec<Payment> {
        let n = self.players.len();
        let mut out = Vec::new();
        let passengers: Vec<u32> = self
            .players
            .iter()
            .map(|p| u32::from(p.passengers))
            .collect();
        let pay = scoring::majority(&passengers, 6000, 3000);
        out.push((passengers, pay, PaymentCause::EndPassengers));
        let mut connected = vec![false; self.board.places.len()];
        for p in self.lines.iter().flat_map(|l| l.connected.iter()) {
            connected[p.index()] = true;
        }
        for good in Good::ALL {
            let counts: Vec<u32> = self
                .players
                .iter()
                .map(|p| {
                    (p.tokens.iter().enumerate())
                        .filter(|(city, _)| connected[*city])
                        .filter(|(city, _)| {
                            matches!(self.board.places[*city].kind, PlaceKind::City(_))
                        })
                        .map(|(_, t)| u32::from(t[good.index()]))
                        .sum()
                })
                .collect();
            let pay = scoring::majority(&counts, 6000, 3000);
            out.push((counts, pay, PaymentCause::EndGoods { good }));
        }
        let linked = self.linked_by_line();
        for line in self.board.line_ids() {
            if matches!(
                self.lines[line.index()].status,
                LineStatus::Dissolved { .. }
            ) {
                continue;
            }
            let value = self.value(line);
            let stations = linked[line.index()].clone();
            let pay = scoring::per_place(&stations, value);
            out.push((stations, pay, PaymentCause::EndStations { line }));
            let shares: Vec<u32> = (0..n)
                .map(|s| u32::from(self.players[s].shares_of(line)))
                .collect();
            let pay = scoring::per_place(&shares, value);
            out.push((shares, pay, PaymentCause::EndShares { line }));
        }
        out
    }

    /// [`Rocket::linked_stations`] of every line and seat, in one pass
    /// over the board: by line, then seat.
    fn linked_by_line(&self) -> Vec<Vec<u32>> {
        let mut out = vec![vec![0u32; self.players.len()]; self.lines.len()];
        for c in &self.cells {
            let Some(seat) = c.station else { continue };
            let mut count = |l: LineId| {
                if let Some(x) = out.get_mut(l.index()).and_then(|v| v.get_mut(seat.index())) {
                    *x += 1;
                }
            };
            if let Some(l) = c.track {
                count(l);
            }
            if let Some(l) = c.locomotive
                && c.track != Some(l)
            {
                count(l);
            }
        }
        out
    }
}
