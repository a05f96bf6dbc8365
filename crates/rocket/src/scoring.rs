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
