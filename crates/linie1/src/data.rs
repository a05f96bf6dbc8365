//! Linie 1's components as data (`games/linie1/`): the board with its
//! buildings and terminals (`board.toml`), the track tiles with their paths
//! (`tiles.toml`) and the route cards (`cards.toml`), read and checked
//! before any game uses them.
//!
//! Anything that breaks the components of `../shared/linie1.md` (tile counts
//! that do not add up, a building off the board, a terminal leg not on its
//! edge, a route stop that is no building, …) is refused with the file, the
//! line and the problem.

use std::collections::BTreeSet;
use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::MAX_PLAYERS;

/// The board shipped with Stationmaster, compiled in.
pub const EMBEDDED_BOARD: &str = include_str!("../../../games/linie1/board.toml");
/// The tiles shipped with Stationmaster, compiled in.
pub const EMBEDDED_TILES: &str = include_str!("../../../games/linie1/tiles.toml");
/// The route cards shipped with Stationmaster, compiled in.
pub const EMBEDDED_CARDS: &str = include_str!("../../../games/linie1/cards.toml");

/// The format line `board.toml` must carry.
pub const BOARD_FORMAT: &str = "stationmaster/linie1-board/1";
/// The format line `tiles.toml` must carry.
pub const TILES_FORMAT: &str = "stationmaster/linie1-tiles/1";
/// The format line `cards.toml` must carry.
pub const CARDS_FORMAT: &str = "stationmaster/linie1-cards/1";

// ----- Edges, paths, squares ------------------------------------------------

/// A side of a square: north (up on the map), east, south, west.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Edge {
    /// North, towards row 1.
    N,
    /// East, towards column L.
    E,
    /// South.
    S,
    /// West, towards column A.
    W,
}

impl Edge {
    /// All four, clockwise from north.
    pub const ALL: [Edge; 4] = [Edge::N, Edge::E, Edge::S, Edge::W];

    /// 0 for N, 1 for E, 2 for S, 3 for W.
    pub fn index(self) -> usize {
        self as usize
    }

    fn from_index(i: usize) -> Edge {
        Edge::ALL[i % 4]
    }

    /// The side across the square.
    pub fn opposite(self) -> Edge {
        Edge::from_index(self.index() + 2)
    }

    /// The side after turning the square a quarter clockwise `k` times.
    pub fn turned(self, k: usize) -> Edge {
        Edge::from_index(self.index() + k)
    }

    /// The letter players write.
    pub fn letter(self) -> char {
        match self {
            Edge::N => 'N',
            Edge::E => 'E',
            Edge::S => 'S',
            Edge::W => 'W',
        }
    }

    /// The edge written `c` (either case).
    pub fn from_letter(c: char) -> Option<Edge> {
        match c.to_ascii_uppercase() {
            'N' => Some(Edge::N),
            'E' => Some(Edge::E),
            'S' => Some(Edge::S),
            'W' => Some(Edge::W),
            _ => None,
        }
    }
}

impl fmt::Display for Edge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// The six possible paths of a square, each an unordered pair of edges, as
/// bits of [`Paths`], in the order canonical text lists them: the two
/// straights, then the four curves.
const PAIRS: [(Edge, Edge); 6] = [
    (Edge::N, Edge::S),
    (Edge::W, Edge::E),
    (Edge::N, Edge::E),
    (Edge::N, Edge::W),
    (Edge::S, Edge::E),
    (Edge::S, Edge::W),
];

/// For each edge (by index), the bits of [`PAIRS`] that end at it.
const TOUCHING: [u8; 4] = {
    let mut out = [0u8; 4];
    let mut i = 0;
    while i < PAIRS.len() {
        out[PAIRS[i].0 as usize] |= 1 << i;
        out[PAIRS[i].1 as usize] |= 1 << i;
        i += 1;
    }
    out
};

/// For each set of paths (six bits), the edges they end at (see
/// [`Paths::ends`]).
const ENDS: [u8; 64] = {
    let mut out = [0u8; 64];
    let mut paths = 0;
    while paths < 64 {
        let mut e = 0;
        while e < 4 {
            if paths as u8 & TOUCHING[e] != 0 {
                out[paths] |= 1 << e;
            }
            e += 1;
        }
        paths += 1;
    }
    out
};

fn pair_bit(a: Edge, b: Edge) -> Option<u8> {
    PAIRS
        .iter()
        .position(|&(x, y)| (x, y) == (a, b) || (y, x) == (a, b))
        .map(|i| 1 << i)
}

/// The track of a square as laid: a set of paths, each joining two edges.
/// A tram follows one path through a square, so it never turns sharply
/// (rulings 5, 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Paths(pub u8);

impl Paths {
    /// No track.
    pub const NONE: Paths = Paths(0);

    /// The paths written as in `NS+SW` (edge letters in either order, paths
    /// joined by `+`), or why not.
    pub fn parse(text: &str) -> Result<Paths, String> {
        let mut bits = 0u8;
        for piece in text.split('+') {
            // Read without collecting: the map and the picture read every
            // laid tile's paths back from the view.
            let mut edges = piece.trim().chars().map(Edge::from_letter);
            let (Some(Some(a)), Some(Some(b)), None) = (edges.next(), edges.next(), edges.next())
            else {
                return Err(format!(
                    "`{piece}` is not a path: a path is two edge letters of N, E, S, W, e.g. NS or WE"
                ));
            };
            let Some(bit) = pair_bit(a, b) else {
                return Err(format!("`{piece}` joins an edge to itself"));
            };
            if bits & bit != 0 {
                return Err(format!("the path {} is given twice", Paths(bit)));
            }
            bits |= bit;
        }
        Ok(Paths(bits))
    }

    /// Every path, as pairs of edges.
    pub fn pairs(self) -> impl Iterator<Item = (Edge, Edge)> {
        PAIRS
            .into_iter()
            .enumerate()
            .filter(move |(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, p)| p)
    }

    /// The number of paths.
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// True if a path ends at `e`.
    pub fn touches(self, e: Edge) -> bool {
        self.0 & TOUCHING[e.index()] != 0
    }

    /// The edges a path ends at, as bits by [`Edge::index`] (bit 0 north).
    pub fn ends(self) -> u8 {
        ENDS[usize::from(self.0 & 0x3f)]
    }

    /// The edges a path leads to from `e`: where a tram that entered by `e`
    /// may leave.
    pub fn exits_from(self, e: Edge) -> impl Iterator<Item = Edge> {
        self.pairs().filter_map(move |(a, b)| {
            if a == e {
                Some(b)
            } else if b == e {
                Some(a)
            } else {
                None
            }
        })
    }

    /// The paths after turning the tile a quarter clockwise `k` times.
    pub fn turned(self, k: usize) -> Paths {
        let mut bits = 0;
        for (a, b) in self.pairs() {
            bits |= pair_bit(a.turned(k), b.turned(k)).unwrap_or(0);
        }
        Paths(bits)
    }

    /// True if every path of `other` is one of these.
    pub fn contains(self, other: Paths) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether a path joins `a` and `b`.
    pub fn joins(self, a: Edge, b: Edge) -> bool {
        pair_bit(a, b).is_some_and(|bit| self.0 & bit != 0)
    }
}

impl fmt::Display for Paths {
    /// Canonical text: straights first, then curves, joined by `+`, e.g.
    /// `NS+SW`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (a, b) in self.pairs() {
            if !first {
                f.write_str("+")?;
            }
            first = false;
            write!(f, "{a}{b}")?;
        }
        Ok(())
    }
}

/// A square of the board, by row and column counted from 0 (row 0 at the
/// top). Players write it as column letter and row number from 1: `B9` is
/// row 8, column 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Square {
    /// Row, 0 for row 1 (north).
    pub row: u8,
    /// Column, 0 for A (west).
    pub col: u8,
}

impl Square {
    /// The square at `row`, `col` (both from 0).
    pub fn new(row: u8, col: u8) -> Square {
        Square { row, col }
    }

    /// Reads `B9` (either case); no check against a board's size.
    pub fn parse(text: &str) -> Option<Square> {
        let mut chars = text.trim().chars();
        let letter = chars.next()?.to_ascii_uppercase();
        if !letter.is_ascii_uppercase() {
            return None;
        }
        let digits = chars.as_str();
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let row: u16 = digits.parse().ok()?;
        if row == 0 || row > 26 {
            return None;
        }
        Some(Square::new((row - 1) as u8, letter as u8 - b'A'))
    }

    /// The neighbour across `e`, if on a board of `rows` × `cols`.
    pub fn step(self, e: Edge, rows: u8, cols: u8) -> Option<Square> {
        let (r, c) = (i16::from(self.row), i16::from(self.col));
        let (r, c) = match e {
            Edge::N => (r - 1, c),
            Edge::S => (r + 1, c),
            Edge::E => (r, c + 1),
            Edge::W => (r, c - 1),
        };
        (r >= 0 && c >= 0 && r < i16::from(rows) && c < i16::from(cols))
            .then(|| Square::new(r as u8, c as u8))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'A' + self.col) as char,
            u16::from(self.row) + 1
        )
    }
}

// ----- Ids --------------------------------------------------------------------

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u8);

        impl $name {
            /// Index into per-item lists.
            pub fn index(self) -> usize {
                usize::from(self.0)
            }
        }
    };
}

id!(
    /// A line (and its line card), by its place in `board.toml`.
    LineId
);
id!(
    /// A building, by its place in the board's list (grid order).
    BuildingId
);
id!(
    /// A terminal, by its place in `board.toml`.
    TerminalId
);
id!(
    /// A tile type, by its place in `tiles.toml`.
    TileId
);
id!(
    /// A route card, by its place in `cards.toml`.
    RouteCardId
);

// ----- The checked components -------------------------------------------------

/// A building: track may not cover it or lead into it; the first tile laid
/// next to it gets its stop sign (rulings 1, 3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Building {
    /// Its letter, e.g. `A`.
    pub letter: char,
    /// Where it stands.
    pub square: Square,
}

/// A line and its line card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// The number printed on it, 1 to 6.
    pub number: u8,
    /// Its colour on the board.
    pub colour: String,
}

/// A terminal: a loop outside the board whose two legs enter two
/// neighbouring edge squares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Terminal {
    /// The line it belongs to.
    pub line: LineId,
    /// The board edge it lies beyond.
    pub side: Edge,
    /// The two edge squares its legs enter, through their `side` edge.
    pub legs: [Square; 2],
    /// Its name as players write it: line number and side, e.g. `1W`.
    pub name: String,
}

/// A kind of track tile.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileType {
    /// Its number in `../shared/linie1.md`.
    pub number: u8,
    /// Its name, e.g. `straight`.
    pub name: String,
    /// Its paths as printed.
    pub paths: Paths,
    /// Its distinct orientations (1, 2 or 4), the printed one first.
    pub orientations: Vec<Paths>,
    /// How many are in the box.
    pub count: u8,
    /// Trees: never exchanged once laid (rulings 2).
    pub trees: bool,
}

/// A route card: one row of stops per line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteCard {
    /// Its name, e.g. `R1` or `B4`.
    pub name: String,
    /// The stops of each line, in printed order, by line.
    pub rows: Vec<Vec<BuildingId>>,
}

impl RouteCard {
    /// How many stops each row has.
    pub fn stops(&self) -> usize {
        self.rows.first().map_or(0, Vec::len)
    }
}

/// Everything a game of Linie 1 is played with, checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Components {
    /// The board's name.
    pub name: String,
    /// Number of rows.
    pub rows: u8,
    /// Number of columns.
    pub columns: u8,
    /// The building on each square, row by row.
    pub grid: Vec<Option<BuildingId>>,
    /// The buildings, in grid order.
    pub buildings: Vec<Building>,
    /// The lines, by line card.
    pub lines: Vec<Line>,
    /// The terminals.
    pub terminals: Vec<Terminal>,
    /// The tile types.
    pub tiles: Vec<TileType>,
    /// The total number of tiles.
    pub total_tiles: u16,
    /// Each player's start hand: tile type and how many.
    pub start_hand: Vec<(TileId, u8)>,
    /// The route cards, both sets.
    pub routes: Vec<RouteCard>,
    /// What the bots' way searches read of the tile types, worked out
    /// once (`route.rs`): derived, not stored, not compared.
    #[serde(skip)]
    pub(crate) fits: FitCache,
}

impl Components {
    /// The components compiled into the binary.
    pub fn embedded() -> Result<Components, DataError> {
        Components::parse(
            ("games/linie1/board.toml (built in)", EMBEDDED_BOARD),
            ("games/linie1/tiles.toml (built in)", EMBEDDED_TILES),
            ("games/linie1/cards.toml (built in)", EMBEDDED_CARDS),
        )
    }

    /// Reads `board.toml`, `tiles.toml` and `cards.toml` from `dir`; a file
    /// that is not there is taken from the built-in set.
    pub fn from_dir(dir: &Path) -> Result<Components, DataError> {
        let read = |file: &str, embedded: &'static str| -> Result<(String, String), DataError> {
            let path = dir.join(file);
            if !path.exists() {
                return Ok((format!("games/linie1/{file} (built in)"), embedded.into()));
            }
            let text = std::fs::read_to_string(&path).map_err(|e| DataError {
                file: path.display().to_string(),
                line: None,
                problem: format!("cannot be read: {e}"),
            })?;
            Ok((path.display().to_string(), text))
        };
        let board = read("board.toml", EMBEDDED_BOARD)?;
        let tiles = read("tiles.toml", EMBEDDED_TILES)?;
        let cards = read("cards.toml", EMBEDDED_CARDS)?;
        Components::parse(
            (&board.0, &board.1),
            (&tiles.0, &tiles.1),
            (&cards.0, &cards.1),
        )
    }

    /// Reads and checks the three files from their texts, each given with
    /// the name errors call it by.
    pub fn parse(
        board: (&str, &str),
        tiles: (&str, &str),
        cards: (&str, &str),
    ) -> Result<Components, DataError> {
        let b = Source {
            file: board.0,
            text: board.1,
        };
        let t = Source {
            file: tiles.0,
            text: tiles.1,
        };
        let c = Source {
            file: cards.0,
            text: cards.1,
        };
        let mut out = build_board(&b, b.toml::<RawBoard>()?)?;
        build_tiles(&t, t.toml::<RawTiles>()?, &mut out)?;
        build_cards(&c, c.toml::<RawCards>()?, &mut out)?;
        Ok(out)
    }

    /// Number of squares.
    pub fn square_count(&self) -> usize {
        usize::from(self.rows) * usize::from(self.columns)
    }

    /// Index of `s` into per-square lists.
    pub fn index(&self, s: Square) -> usize {
        usize::from(s.row) * usize::from(self.columns) + usize::from(s.col)
    }

    /// The square with index `i`.
    pub fn square_at(&self, i: usize) -> Square {
        let cols = usize::from(self.columns);
        Square::new((i / cols) as u8, (i % cols) as u8)
    }

    /// Every square with its index, in index order (row by row), without
    /// the division of [`Components::square_at`] for each.
    pub fn squares(&self) -> impl Iterator<Item = (usize, Square)> + '_ {
        (0..self.rows)
            .flat_map(move |r| (0..self.columns).map(move |c| Square::new(r, c)))
            .enumerate()
    }

    /// True if `s` is on the board.
    pub fn contains(&self, s: Square) -> bool {
        s.row < self.rows && s.col < self.columns
    }

    /// The neighbour of `s` across `e`, if on the board.
    pub fn step(&self, s: Square, e: Edge) -> Option<Square> {
        s.step(e, self.rows, self.columns)
    }

    /// The building on `s`, if any.
    pub fn building_at(&self, s: Square) -> Option<BuildingId> {
        self.grid.get(self.index(s)).copied().flatten()
    }

    /// The terminal whose leg enters `s` through its edge `e`, if any.
    pub fn terminal_at(&self, s: Square, e: Edge) -> Option<(TerminalId, usize)> {
        self.terminals.iter().enumerate().find_map(|(i, t)| {
            (t.side == e)
                .then(|| t.legs.iter().position(|l| *l == s))
                .flatten()
                .map(|leg| (TerminalId(i as u8), leg))
        })
    }

    /// The two terminals of `line`.
    pub fn terminals_of(&self, line: LineId) -> Vec<TerminalId> {
        self.terminals
            .iter()
            .enumerate()
            .filter(|(_, t)| t.line == line)
            .map(|(i, _)| TerminalId(i as u8))
            .collect()
    }

    /// The terminal `t`.
    pub fn terminal(&self, t: TerminalId) -> &Terminal {
        &self.terminals[t.index()]
    }

    /// The tile type `t`.
    pub fn tile(&self, t: TileId) -> &TileType {
        &self.tiles[t.index()]
    }

    /// The building `b`.
    pub fn building(&self, b: BuildingId) -> &Building {
        &self.buildings[b.index()]
    }

    /// The building with letter `c`.
    pub fn building_by_letter(&self, c: char) -> Option<BuildingId> {
        self.buildings
            .iter()
            .position(|b| b.letter == c.to_ascii_uppercase())
            .map(|i| BuildingId(i as u8))
    }

    /// The tile type one of whose orientations is exactly `paths`, and that
    /// orientation: every orientation of every type is distinct (checked at
    /// load), so paths name a tile.
    pub fn tile_with_paths(&self, paths: Paths) -> Option<TileId> {
        self.tiles
            .iter()
            .position(|t| t.orientations.contains(&paths))
            .map(|i| TileId(i as u8))
    }

    /// The route cards of the set with `stops` stops.
    pub fn route_set(&self, stops: usize) -> Vec<RouteCardId> {
        self.routes
            .iter()
            .enumerate()
            .filter(|(_, r)| r.stops() == stops)
            .map(|(i, _)| RouteCardId(i as u8))
            .collect()
    }
}

// ----- Errors -----------------------------------------------------------------

/// A data file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct DataError {
    /// The file, as given.
    pub file: String,
    /// The line in the file, from 1, where known.
    pub line: Option<usize>,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(
                f,
                "Linie 1 data {}, line {}: {}",
                self.file, l, self.problem
            ),
            None => write!(f, "Linie 1 data {}: {}", self.file, self.problem),
        }
    }
}

struct Source<'a> {
    file: &'a str,
    text: &'a str,
}

impl Source<'_> {
    fn line_of(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())]
            .bytes()
            .filter(|b| *b == b'\n')
            .count()
            + 1
    }

    fn at(&self, span: Range<usize>, problem: impl Into<String>) -> DataError {
        self.at_line(self.line_of(span.start), problem)
    }

    fn at_line(&self, line: usize, problem: impl Into<String>) -> DataError {
        DataError {
            file: self.file.to_string(),
            line: Some(line),
            problem: problem.into(),
        }
    }

    fn whole(&self, problem: impl Into<String>) -> DataError {
        DataError {
            file: self.file.to_string(),
            line: None,
            problem: problem.into(),
        }
    }

    fn toml<T: serde::de::DeserializeOwned>(&self) -> Result<T, DataError> {
        toml::from_str(self.text).map_err(|e| {
            let problem = e.message().trim().to_string();
            match e.span() {
                Some(span) => self.at(span, problem),
                None => self.whole(problem),
            }
        })
    }

    fn format(&self, found: &Spanned<String>, want: &str) -> Result<(), DataError> {
        if found.get_ref() != want {
            return Err(self.at(
                found.span(),
                format!("format must be \"{want}\", found \"{}\"", found.get_ref()),
            ));
        }
        Ok(())
    }
}

// ----- board.toml -------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBoard {
    format: Spanned<String>,
    name: String,
    columns: Spanned<u8>,
    rows: Spanned<u8>,
    grid: Spanned<String>,
    line: Vec<RawLine>,
    terminal: Vec<RawTerminal>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLine {
    number: Spanned<u8>,
    colour: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTerminal {
    line: Spanned<u8>,
    side: Spanned<String>,
    legs: Spanned<Vec<String>>,
}

fn build_board(src: &Source<'_>, raw: RawBoard) -> Result<Components, DataError> {
    src.format(&raw.format, BOARD_FORMAT)?;
    let (rows, columns) = (*raw.rows.get_ref(), *raw.columns.get_ref());
    if !(2..=26).contains(&columns) {
        return Err(src.at(raw.columns.span(), "columns must be from 2 to 26 (A to Z)"));
    }
    if !(2..=26).contains(&rows) {
        return Err(src.at(raw.rows.span(), "rows must be from 2 to 26"));
    }
    let (mut grid, buildings) = read_grid(src, &raw.grid, rows, columns)?;
    let buildings = in_letter_order(&mut grid, buildings);
    let lines = read_lines(src, &raw.line)?;
    let terminals = read_terminals(src, &raw.terminal, &grid, (rows, columns), &lines)?;
    Ok(Components {
        name: raw.name,
        rows,
        columns,
        grid,
        buildings,
        lines,
        terminals,
        tiles: Vec::new(),
        total_tiles: 0,
        start_hand: Vec::new(),
        routes: Vec::new(),
        fits: Default::default(),
    })
}

/// The grid: a header line of column letters, then one line a row; the
/// building on each square, and the buildings in the order met.
fn read_grid(
    src: &Source<'_>,
    raw: &Spanned<String>,
    rows: u8,
    columns: u8,
) -> Result<(Vec<Option<BuildingId>>, Vec<Building>), DataError> {
    let grid_line = src.line_of(raw.span().start);
    let mut grid = vec![None; usize::from(rows) * usize::from(columns)];
    let mut buildings: Vec<Building> = Vec::new();
    let mut seen_rows = 0u8;
    for (i, text) in raw.get_ref().lines().enumerate() {
        // `grid = """` starts the string; its first line break is dropped.
        let line_no = grid_line + 1 + i;
        let mut tokens = text.split_whitespace();
        let Some(first) = tokens.next() else { continue };
        let Ok(row) = first.parse::<u8>() else {
            if first == "A" {
                continue; // the column header
            }
            return Err(src.at_line(
                line_no,
                format!("a grid line must start with its row number, found `{first}`"),
            ));
        };
        if row != seen_rows + 1 {
            return Err(src.at_line(
                line_no,
                format!("expected row {}, found row {row}", seen_rows + 1),
            ));
        }
        if row > rows {
            return Err(src.at_line(line_no, format!("the board has only {rows} rows")));
        }
        let tokens: Vec<&str> = tokens.collect();
        if tokens.len() != usize::from(columns) {
            return Err(src.at_line(
                line_no,
                format!(
                    "row {row} has {} squares; the board has {columns} columns",
                    tokens.len()
                ),
            ));
        }
        let start = usize::from(row - 1) * usize::from(columns);
        let squares = &mut grid[start..start + usize::from(columns)];
        read_grid_row(src, line_no, row, &tokens, squares, &mut buildings)?;
        seen_rows = row;
    }
    if seen_rows != rows {
        return Err(src.at(
            raw.span(),
            format!("the grid has {seen_rows} rows; the board has {rows}"),
        ));
    }
    if buildings.is_empty() {
        return Err(src.at(raw.span(), "the grid has no buildings"));
    }
    Ok((grid, buildings))
}

/// The squares of grid row `row` (from 1), one token each: `.` for track,
/// or a building's letter, added to `buildings`.
fn read_grid_row(
    src: &Source<'_>,
    line_no: usize,
    row: u8,
    tokens: &[&str],
    squares: &mut [Option<BuildingId>],
    buildings: &mut Vec<Building>,
) -> Result<(), DataError> {
    for (col, token) in tokens.iter().enumerate() {
        let square = Square::new(row - 1, col as u8);
        match token.chars().collect::<Vec<_>>().as_slice() {
            ['.'] => {}
            [c] if c.is_ascii_uppercase() => {
                if buildings.iter().any(|b| b.letter == *c) {
                    return Err(src.at_line(line_no, format!("building {c} is on the board twice")));
                }
                squares[col] = Some(BuildingId(buildings.len() as u8));
                buildings.push(Building { letter: *c, square });
            }
            _ => {
                return Err(src.at_line(
                    line_no,
                    format!("`{token}` on {square} is neither `.` (track) nor a building letter"),
                ));
            }
        }
    }
    Ok(())
}

/// The buildings in letter order, so that ids read as letters do, with
/// the grid's ids renumbered to match.
fn in_letter_order(grid: &mut [Option<BuildingId>], buildings: Vec<Building>) -> Vec<Building> {
    let mut order: Vec<usize> = (0..buildings.len()).collect();
    order.sort_by_key(|i| buildings[*i].letter);
    let sorted: Vec<Building> = order.iter().map(|i| buildings[*i].clone()).collect();
    for b in grid.iter_mut().flatten() {
        let new = order.iter().position(|i| *i == b.index()).unwrap_or(0);
        *b = BuildingId(new as u8);
    }
    sorted
}

/// The lines, numbered 1, 2, … in order, one for each player at least.
fn read_lines(src: &Source<'_>, raw: &[RawLine]) -> Result<Vec<Line>, DataError> {
    let mut lines = Vec::new();
    for (i, l) in raw.iter().enumerate() {
        if usize::from(*l.number.get_ref()) != i + 1 {
            return Err(src.at(
                l.number.span(),
                format!(
                    "lines must be numbered 1, 2, … in order; expected {}, found {}",
                    i + 1,
                    l.number.get_ref()
                ),
            ));
        }
        lines.push(Line {
            number: *l.number.get_ref(),
            colour: l.colour.clone(),
        });
    }
    if lines.len() < MAX_PLAYERS {
        return Err(src.whole(format!(
            "there are {} lines; {MAX_PLAYERS} players need a line card each",
            lines.len()
        )));
    }
    Ok(lines)
}

/// The terminals, two for every line, their legs on free edge squares
/// that no other terminal uses.
fn read_terminals(
    src: &Source<'_>,
    raw: &[RawTerminal],
    grid: &[Option<BuildingId>],
    size: (u8, u8),
    lines: &[Line],
) -> Result<Vec<Terminal>, DataError> {
    let mut terminals: Vec<Terminal> = Vec::new();
    let mut legs_used: BTreeSet<(Square, Edge)> = BTreeSet::new();
    for t in raw {
        let terminal = read_terminal(src, t, grid, size, lines.len(), &mut legs_used)?;
        if terminals.iter().any(|x| x.name == terminal.name) {
            return Err(src.at(
                t.side.span(),
                format!("two terminals would both be called {}", terminal.name),
            ));
        }
        terminals.push(terminal);
    }
    for (i, l) in lines.iter().enumerate() {
        let n = terminals.iter().filter(|t| t.line.index() == i).count();
        if n != 2 {
            return Err(src.whole(format!(
                "line {} has {n} terminals; every line has two",
                l.number
            )));
        }
    }
    Ok(terminals)
}

/// One terminal of the board `size` (rows, columns) with `lines` lines;
/// its legs are added to `legs_used`.
fn read_terminal(
    src: &Source<'_>,
    t: &RawTerminal,
    grid: &[Option<BuildingId>],
    (rows, columns): (u8, u8),
    lines: usize,
    legs_used: &mut BTreeSet<(Square, Edge)>,
) -> Result<Terminal, DataError> {
    let number = *t.line.get_ref();
    if number == 0 || usize::from(number) > lines {
        return Err(src.at(
            t.line.span(),
            format!("terminal of line {number}: there is no such line"),
        ));
    }
    let side = match t.side.get_ref().as_str() {
        s if s.len() == 1 => s.chars().next().and_then(Edge::from_letter),
        _ => None,
    }
    .ok_or_else(|| src.at(t.side.span(), "side must be one of N, E, S, W"))?;
    let legs: Vec<Square> = t
        .legs
        .get_ref()
        .iter()
        .map(|l| {
            Square::parse(l)
                .filter(|s| s.row < rows && s.col < columns)
                .ok_or_else(|| {
                    src.at(
                        t.legs.span(),
                        format!("leg `{l}` is not a square of the board"),
                    )
                })
        })
        .collect::<Result<_, _>>()?;
    let [a, b] = legs.as_slice() else {
        return Err(src.at(t.legs.span(), "a terminal has exactly two legs"));
    };
    for leg in [a, b] {
        if leg.step(side, rows, columns).is_some() {
            return Err(src.at(
                t.legs.span(),
                format!("leg {leg} is not on the {side} edge of the board"),
            ));
        }
        if grid[usize::from(leg.row) * usize::from(columns) + usize::from(leg.col)].is_some() {
            return Err(src.at(t.legs.span(), format!("leg {leg} is a building")));
        }
        if !legs_used.insert((*leg, side)) {
            return Err(src.at(
                t.legs.span(),
                format!("leg {leg} already belongs to another terminal"),
            ));
        }
    }
    let along = matches!(side, Edge::N | Edge::S);
    let touching = if along {
        a.row == b.row && a.col.abs_diff(b.col) == 1
    } else {
        a.col == b.col && a.row.abs_diff(b.row) == 1
    };
    if !touching {
        return Err(src.at(
            t.legs.span(),
            format!("legs {a} and {b} are not neighbouring squares"),
        ));
    }
    let legs = if a <= b { [*a, *b] } else { [*b, *a] };
    Ok(Terminal {
        line: LineId(number - 1),
        side,
        legs,
        name: format!("{number}{side}"),
    })
}

// ----- tiles.toml -------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTiles {
    format: Spanned<String>,
    total: Spanned<u16>,
    start_hand: Spanned<Vec<RawHand>>,
    tile: Vec<RawTile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHand {
    tile: String,
    count: u8,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTile {
    number: Spanned<u8>,
    name: Spanned<String>,
    paths: Spanned<Vec<String>>,
    count: Spanned<u8>,
    /// Start tiles set apart, as files before issue 35 had them: refused
    /// with the reason, as the rule book sets none apart.
    start: Option<Spanned<u8>>,
    #[serde(default)]
    trees: bool,
}

fn build_tiles(src: &Source<'_>, raw: RawTiles, out: &mut Components) -> Result<(), DataError> {
    src.format(&raw.format, TILES_FORMAT)?;
    let mut tiles: Vec<TileType> = Vec::new();
    for t in &raw.tile {
        let name = t.name.get_ref().trim().to_string();
        if name.is_empty() {
            return Err(src.at(t.name.span(), "a tile needs a name"));
        }
        if tiles.iter().any(|x| x.name == name) {
            return Err(src.at(t.name.span(), format!("two tiles are called \"{name}\"")));
        }
        if tiles.iter().any(|x| x.number == *t.number.get_ref()) {
            return Err(src.at(
                t.number.span(),
                format!("two tiles have number {}", t.number.get_ref()),
            ));
        }
        let paths =
            Paths::parse(&t.paths.get_ref().join("+")).map_err(|e| src.at(t.paths.span(), e))?;
        if paths.count() == 0 {
            return Err(src.at(t.paths.span(), "a tile needs at least one path"));
        }
        if *t.count.get_ref() == 0 {
            return Err(src.at(t.count.span(), "count must be at least 1"));
        }
        if let Some(start) = &t.start {
            return Err(src.at(
                start.span(),
                "`start` is no longer read: the rule book deals each start hand from \
                 all the tiles and puts every other tile in the supply (Preparazione: \
                 \"Tutte le altre tessere sono messe coperte nella scatola\"); remove it",
            ));
        }
        let mut orientations: Vec<Paths> = Vec::new();
        for k in 0..4 {
            let p = paths.turned(k);
            if !orientations.contains(&p) {
                orientations.push(p);
            }
        }
        for p in &orientations {
            if let Some(other) = tiles.iter().find(|x| x.orientations.contains(p)) {
                return Err(src.at(
                    t.paths.span(),
                    format!(
                        "\"{name}\" turned shows {p}, as \"{}\" does: paths must name one tile",
                        other.name
                    ),
                ));
            }
        }
        tiles.push(TileType {
            number: *t.number.get_ref(),
            name,
            paths,
            orientations,
            count: *t.count.get_ref(),
            trees: t.trees,
        });
    }
    let sum: u16 = tiles.iter().map(|t| u16::from(t.count)).sum();
    if sum != *raw.total.get_ref() {
        return Err(src.at(
            raw.total.span(),
            format!(
                "the tile counts add to {sum}, not the total of {}",
                raw.total.get_ref()
            ),
        ));
    }
    let mut start_hand = Vec::new();
    for h in raw.start_hand.get_ref() {
        let Some(i) = tiles.iter().position(|t| t.name == h.tile) else {
            return Err(src.at(
                raw.start_hand.span(),
                format!("start hand: there is no tile called \"{}\"", h.tile),
            ));
        };
        let need = usize::from(h.count) * MAX_PLAYERS;
        if usize::from(tiles[i].count) < need {
            return Err(src.at(
                raw.start_hand.span(),
                format!(
                    "start hand: {MAX_PLAYERS} players need {need} tiles \"{}\", there are {}",
                    h.tile, tiles[i].count
                ),
            ));
        }
        start_hand.push((TileId(i as u8), h.count));
    }
    if start_hand
        .iter()
        .map(|(_, n)| usize::from(*n))
        .sum::<usize>()
        != super::HAND_SIZE
    {
        return Err(src.at(
            raw.start_hand.span(),
            format!("a start hand holds {} tiles", super::HAND_SIZE),
        ));
    }
    out.tiles = tiles;
    out.total_tiles = sum;
    out.start_hand = start_hand;
    Ok(())
}

// ----- cards.toml -------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCards {
    format: Spanned<String>,
    route: Vec<RawRoute>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRoute {
    card: Spanned<String>,
    rows: Spanned<Vec<String>>,
}

fn build_cards(src: &Source<'_>, raw: RawCards, out: &mut Components) -> Result<(), DataError> {
    src.format(&raw.format, CARDS_FORMAT)?;
    let mut routes: Vec<RouteCard> = Vec::new();
    for r in &raw.route {
        let name = r.card.get_ref().trim().to_string();
        if name.is_empty() || routes.iter().any(|x| x.name == name) {
            return Err(src.at(
                r.card.span(),
                format!("route card \"{name}\" is named twice or not at all"),
            ));
        }
        if r.rows.get_ref().len() != out.lines.len() {
            return Err(src.at(
                r.rows.span(),
                format!(
                    "route card {name} has {} rows; it needs one a line ({})",
                    r.rows.get_ref().len(),
                    out.lines.len()
                ),
            ));
        }
        let mut rows = Vec::new();
        for (i, text) in r.rows.get_ref().iter().enumerate() {
            let mut stops: Vec<BuildingId> = Vec::new();
            for word in text.split_whitespace() {
                let mut chars = word.chars();
                let b = match (chars.next(), chars.next()) {
                    (Some(c), None) => out.building_by_letter(c),
                    _ => None,
                }
                .ok_or_else(|| {
                    src.at(
                        r.rows.span(),
                        format!("route card {name}, line {}: stop `{word}` is not a building on the board", i + 1),
                    )
                })?;
                if stops.contains(&b) {
                    return Err(src.at(
                        r.rows.span(),
                        format!(
                            "route card {name}, line {}: stop {word} is named twice",
                            i + 1
                        ),
                    ));
                }
                stops.push(b);
            }
            if !(1..=4).contains(&stops.len()) {
                return Err(src.at(
                    r.rows.span(),
                    format!("route card {name}, line {}: a row has 1 to 4 stops", i + 1),
                ));
            }
            if let Some(first) = rows.first().map(Vec::len)
                && first != stops.len()
            {
                return Err(src.at(
                    r.rows.span(),
                    format!(
                        "route card {name}, line {}: {} stops, but line 1 has {first}",
                        i + 1,
                        stops.len()
                    ),
                ));
            }
            rows.push(stops);
        }
        routes.push(RouteCard { name, rows });
    }
    for stops in [2, 3] {
        let n = routes.iter().filter(|r| r.stops() == stops).count();
        if n < MAX_PLAYERS {
            return Err(src.whole(format!(
                "there are {n} route cards of {stops} stops; {MAX_PLAYERS} players need one each"
            )));
        }
    }
    out.routes = routes;
    Ok(())
}

/// Per tile type and pattern of side demands (`Linie1::all_side_demands`,
/// as `route.rs`'s `demand_key`), the sides a way may leave an empty square by,
/// having entered by each side or by none (a way that starts there):
/// those the tile, in some orientation, joins to it (touches, for none)
/// while fitting the demands. Derived from the tile types alone, so
/// worked out once per [`crate::Components`], on first use, and kept
/// there (not stored, not compared).
#[derive(Clone, Default)]
pub struct FitCache(std::sync::OnceLock<Vec<[[u8; 5]; 256]>>);

impl PartialEq for FitCache {
    fn eq(&self, _: &FitCache) -> bool {
        true
    }
}

impl Eq for FitCache {}

impl std::fmt::Debug for FitCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FitCache")
    }
}

impl FitCache {
    /// The table of every tile type of `tiles` (the components' own).
    pub(crate) fn of(&self, tiles: &[TileType]) -> &[[[u8; 5]; 256]] {
        self.0.get_or_init(|| {
            tiles
                .iter()
                .map(|t| {
                    let mut table = [[0u8; 5]; 256];
                    for (key, out) in table.iter_mut().enumerate() {
                        let (must, must_not) = ((key & 0xf) as u8, (key >> 4) as u8);
                        for p in &t.orientations {
                            let ends = p.ends();
                            if ends & must != must || ends & must_not != 0 {
                                continue;
                            }
                            for came in Edge::ALL {
                                for x in p.exits_from(came) {
                                    out[came.index()] |= 1 << x.index();
                                }
                            }
                            // A way that starts on the square: any end.
                            out[4] |= ends;
                        }
                    }
                    table
                })
                .collect()
        })
    }
}
