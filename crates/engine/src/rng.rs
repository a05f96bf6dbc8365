//! The games' own random generator: SplitMix64, seeded at set-up and stored
//! with the game state.
//!
//! Why not a crate's generator: the stream must never change between versions,
//! or an old game would replay differently. SplitMix64 is fully specified by
//! the few lines below, passes BigCrush, and serialises as one number.

use serde::{Deserialize, Serialize};

/// A seeded generator whose whole state is one `u64`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0), without modulo bias worth speaking of
    /// for the small `n` games use.
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        // Lemire's multiply-shift reduction.
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}
