//! Money and majorities: who is paid what when a city, a railway town, a
//! merger or the end of the game is scored.
//!
//! The rule ("Scoring at the end of the game", last paragraph): tied firsts
//! share first and second; a single first with tied seconds share second; a
//! single first alone gets no second payment. Rulings 1 to 3: every payment is
//! rounded down to whole £1,000 notes, and "most" needs at least one.

use std::fmt;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

/// An amount of money: only whole £1,000 notes (rulings 1).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Money(u32);

impl Money {
    /// No money.
    pub const ZERO: Money = Money(0);

    /// `n` thousand pounds.
    pub const fn thousands(n: u32) -> Money {
        Money(n * 1000)
    }

    /// `pounds` rounded down to whole £1,000 notes.
    pub const fn round_down(pounds: u32) -> Money {
        Money(pounds / 1000 * 1000)
    }

    /// The amount in pounds (always a multiple of 1,000).
    pub const fn pounds(self) -> u32 {
        self.0
    }
}

impl Add for Money {
    type Output = Money;
    fn add(self, rhs: Money) -> Money {
        Money(self.0 + rhs.0)
    }
}

impl AddAssign for Money {
    fn add_assign(&mut self, rhs: Money) {
        self.0 += rhs.0;
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let thousands = self.0 / 1000;
        if thousands >= 1000 {
            write!(f, "£{},{:03},000", thousands / 1000, thousands % 1000)
        } else if thousands > 0 {
            write!(f, "£{thousands},000")
        } else {
            f.write_str("£0")
        }
    }
}

/// Pays a majority: `counts[i]` is what player `i` holds of the thing scored;
/// the most gets `first`, the second most `second` (both in pounds, before
/// rounding). Returns each player's payment, rounded down per payment.
pub fn majority(counts: &[u32], first: u32, second: u32) -> Vec<Money> {
    let mut pay = vec![Money::ZERO; counts.len()];
    let top = counts.iter().copied().max().unwrap_or(0);
    if top == 0 {
        return pay; // rulings 2: nobody holds any, nobody is paid
    }
    let firsts: Vec<usize> = (0..counts.len()).filter(|&i| counts[i] == top).collect();
    if firsts.len() > 1 {
        let each = (first + second) / firsts.len() as u32;
        for i in firsts {
            pay[i] = Money::round_down(each);
        }
        return pay;
    }
    pay[firsts[0]] = Money::round_down(first);
    let runner_up = counts
        .iter()
        .copied()
        .filter(|&c| c < top)
        .max()
        .unwrap_or(0);
    if runner_up == 0 {
        return pay; // a single first and nobody else: no second payment
    }
    let seconds: Vec<usize> = (0..counts.len())
        .filter(|&i| counts[i] == runner_up)
        .collect();
    let each = second / seconds.len() as u32;
    for i in seconds {
        pay[i] = Money::round_down(each);
    }
    pay
}

/// Who places in a majority (first or second, ties as in [`majority`]):
/// those [`majority`] pays a part of `first` or `second`, even where the
/// part rounds down to nothing (half of £1,000 shared by two tied seconds).
pub fn placed(counts: &[u32]) -> Vec<bool> {
    // Parts large enough that none rounds down to nothing.
    let n = counts.len().max(1) as u32;
    majority(counts, 2000 * n, 1000 * n)
        .iter()
        .map(|m| *m > Money::ZERO)
        .collect()
}

/// The payment for a line or town connection: £1,000 for each connected place
/// to the first, half of it to the second (rules, "Scoring during the game").
pub fn per_place(counts: &[u32], places: usize) -> Vec<Money> {
    let first = 1000 * places as u32;
    majority(counts, first, first / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(v: &[Money]) -> Vec<u32> {
        v.iter().map(|m| m.pounds() / 1000).collect()
    }

    #[test]
    fn money_prints_in_pounds() {
        assert_eq!(Money::thousands(2).to_string(), "£2,000");
        assert_eq!(Money::thousands(1234).to_string(), "£1,234,000");
        assert_eq!(Money::ZERO.to_string(), "£0");
        assert_eq!(Money::round_down(6500), Money::thousands(6));
    }

    #[test]
    fn rulings_1_payments_round_down_to_notes() {
        // Half of £3,000 pays £1,000; half of £13,000 pays £6,000.
        assert_eq!(k(&per_place(&[2, 1], 3)), [3, 1]);
        assert_eq!(k(&per_place(&[4, 3], 13)), [13, 6]);
        // Two tied for second on £3,000 get £1,000 each.
        assert_eq!(k(&majority(&[4, 2, 2], 6000, 3000)), [6, 1, 1]);
    }

    #[test]
    fn rulings_2_most_needs_at_least_one() {
        assert_eq!(k(&majority(&[0, 0, 0], 6000, 3000)), [0, 0, 0]);
        assert_eq!(k(&majority(&[2, 0, 0], 6000, 3000)), [6, 0, 0]);
    }

    #[test]
    fn placings_include_parts_that_round_down_to_nothing() {
        // Tied seconds on £1,000: £500 each, paid as nothing, but placed.
        assert_eq!(k(&majority(&[2, 1, 1], 2000, 1000)), [2, 0, 0]);
        assert_eq!(placed(&[2, 1, 1]), [true, true, true]);
        assert_eq!(placed(&[3, 3, 1, 0]), [true, true, false, false]);
        assert_eq!(placed(&[0, 0, 0]), [false, false, false]);
        assert_eq!(placed(&[0, 5, 0]), [false, true, false]);
    }

    #[test]
    fn rulings_3_ties() {
        // Tied firsts share first and second.
        assert_eq!(k(&majority(&[3, 3, 3], 6000, 3000)), [3, 3, 3]);
        assert_eq!(k(&majority(&[3, 3, 1], 6000, 3000)), [4, 4, 0]);
        // A single first with tied seconds: they share second.
        assert_eq!(k(&majority(&[3, 2, 2, 0], 13000, 6500)), [13, 3, 3, 0]);
        // A single first and nobody else: no second.
        assert_eq!(k(&majority(&[0, 5, 0], 12000, 6000)), [0, 12, 0]);
    }
}
