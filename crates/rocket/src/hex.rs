//! Hexes and directions on Stephenson's Rocket's map.
//!
//! The map is pointy-top, in "odd-r" layout: counting rows from 1 at the
//! north, rows 2, 4, 6, … sit half a hex east of their neighbours. A hex is
//! named by its column letter (A at the west) and row number, e.g. `F8`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A hex of the map, by column and row counted from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Hex {
    /// Column, 0 for A.
    pub col: u8,
    /// Row, 0 for row 1.
    pub row: u8,
}

/// The six directions out of a pointy-top hex, clockwise from east.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Dir {
    /// East.
    E,
    /// South-east.
    SE,
    /// South-west.
    SW,
    /// West.
    W,
    /// North-west.
    NW,
    /// North-east.
    NE,
}

impl Dir {
    /// All six, clockwise from east.
    pub const ALL: [Dir; 6] = [Dir::E, Dir::SE, Dir::SW, Dir::W, Dir::NW, Dir::NE];

    fn index(self) -> usize {
        self as usize
    }

    /// The direction `steps` sixths of a turn clockwise (negative: anticlockwise).
    pub fn turn(self, steps: i8) -> Dir {
        let i = (self.index() as i8 + steps).rem_euclid(6) as usize;
        Dir::ALL[i]
    }

    /// The opposite direction.
    pub fn opposite(self) -> Dir {
        self.turn(3)
    }

    /// The three directions in front of a locomotive facing `self`: straight
    /// on, and a gentle curve to either side (rules, C1).
    pub fn ahead(self) -> [Dir; 3] {
        [self.turn(-1), self, self.turn(1)]
    }

    /// Short name: `E`, `SE`, …
    pub fn name(self) -> &'static str {
        match self {
            Dir::E => "E",
            Dir::SE => "SE",
            Dir::SW => "SW",
            Dir::W => "W",
            Dir::NW => "NW",
            Dir::NE => "NE",
        }
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Hex {
    /// The hex at column `col`, row `row` (both from 0).
    pub fn new(col: u8, row: u8) -> Hex {
        Hex { col, row }
    }

    /// The neighbour in direction `d`, if it is on a map of `cols` × `rows`.
    pub fn step(self, d: Dir, cols: u8, rows: u8) -> Option<Hex> {
        let (c, r) = (i16::from(self.col), i16::from(self.row));
        // Rows with an odd 0-based index are shifted half a hex east.
        let shift = i16::from(self.row % 2 == 1);
        let (dc, dr) = match d {
            Dir::E => (1, 0),
            Dir::W => (-1, 0),
            Dir::NE => (shift, -1),
            Dir::NW => (shift - 1, -1),
            Dir::SE => (shift, 1),
            Dir::SW => (shift - 1, 1),
        };
        let (nc, nr) = (c + dc, r + dr);
        if nc < 0 || nr < 0 || nc >= i16::from(cols) || nr >= i16::from(rows) {
            return None;
        }
        Some(Hex::new(nc as u8, nr as u8))
    }

    /// The direction from `self` to a neighbouring `other`, if they touch.
    pub fn dir_to(self, other: Hex, cols: u8, rows: u8) -> Option<Dir> {
        Dir::ALL
            .into_iter()
            .find(|d| self.step(*d, cols, rows) == Some(other))
    }

    /// Parses a hex name such as `F8` or `f8` (no bounds check).
    pub fn parse(s: &str) -> Option<Hex> {
        let s = s.trim();
        let mut chars = s.chars();
        let letter = chars.next()?.to_ascii_uppercase();
        if !letter.is_ascii_uppercase() {
            return None;
        }
        let digits = chars.as_str();
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let row: u16 = digits.parse().ok()?;
        if row == 0 || row > 255 {
            return None;
        }
        Some(Hex::new(letter as u8 - b'A', (row - 1) as u8))
    }
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'A' + self.col) as char,
            u16::from(self.row) + 1
        )
    }
}
