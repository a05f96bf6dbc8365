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

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Hex {
        Hex::parse(s).unwrap()
    }

    #[test]
    fn names_read_and_print_the_same() {
        assert_eq!(h("F8"), Hex::new(5, 7));
        assert_eq!(h("f8").to_string(), "F8");
        assert_eq!(h("O19").to_string(), "O19");
        assert_eq!(Hex::parse("8F"), None);
        assert_eq!(Hex::parse("F0"), None);
        assert_eq!(Hex::parse("F"), None);
    }

    #[test]
    fn neighbours_follow_the_odd_r_layout_of_rulings() {
        // rocket.md: on rows 2, 4, … the hexes above and below are the same
        // column and the next column east; on odd rows, the same column and
        // the next column west.
        let (c, r) = (15, 19);
        assert_eq!(h("C4").step(Dir::NE, c, r), Some(h("D3")));
        assert_eq!(h("C4").step(Dir::NW, c, r), Some(h("C3")));
        assert_eq!(h("C4").step(Dir::SE, c, r), Some(h("D5")));
        assert_eq!(h("C4").step(Dir::SW, c, r), Some(h("C5")));
        assert_eq!(h("C5").step(Dir::NE, c, r), Some(h("C4")));
        assert_eq!(h("C5").step(Dir::NW, c, r), Some(h("B4")));
        assert_eq!(h("C5").step(Dir::E, c, r), Some(h("D5")));
        assert_eq!(h("A1").step(Dir::NW, c, r), None);
        assert_eq!(h("A1").step(Dir::SW, c, r), None);
    }

    #[test]
    fn every_step_has_its_way_back() {
        for col in 0..15 {
            for row in 0..19 {
                let a = Hex::new(col, row);
                for d in Dir::ALL {
                    if let Some(b) = a.step(d, 15, 19) {
                        assert_eq!(b.step(d.opposite(), 15, 19), Some(a));
                        assert_eq!(a.dir_to(b, 15, 19), Some(d));
                    }
                }
            }
        }
    }

    #[test]
    fn ahead_is_straight_and_the_two_gentle_curves() {
        assert_eq!(Dir::E.ahead(), [Dir::NE, Dir::E, Dir::SE]);
        assert_eq!(Dir::NE.ahead(), [Dir::NW, Dir::NE, Dir::E]);
    }
}
