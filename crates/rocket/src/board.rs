//! The board of Stephenson's Rocket as data: the map (`games/rocket/board.toml`),
//! its places and its railway lines, read and checked before any game uses it.
//!
//! A board that breaks a rule of the rule book's components (7 starting towns,
//! 12 cities of 3 goods tokens, 9 of each good, 9 railway towns, …) or of the
//! rulings (no start next to another place, two first moves from every start)
//! is refused with the file, the line and the problem.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::hex::{Dir, Hex};

/// The board shipped with Stationmaster, compiled in as a fallback.
pub const EMBEDDED_BOARD: &str = include_str!("../../../games/rocket/board.toml");

/// The format line a board file must carry.
pub const FORMAT: &str = "stationmaster/rocket-board/1";

/// A railway line (company), by its place in the board's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LineId(pub u8);

impl LineId {
    /// Index into per-line lists.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// A place (starting town, city or railway town), by its place in the board's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlaceId(pub u8);

impl PlaceId {
    /// Index into per-place lists.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

/// The four goods of the city tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Good {
    /// Steel.
    Steel,
    /// Textiles.
    Textiles,
    /// Brewing.
    Brewing,
    /// Leather.
    Leather,
}

impl Good {
    /// All four, in the rule book's order.
    pub const ALL: [Good; 4] = [Good::Steel, Good::Textiles, Good::Brewing, Good::Leather];

    /// Index into per-good arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name as players type it.
    pub fn name(self) -> &'static str {
        match self {
            Good::Steel => "steel",
            Good::Textiles => "textiles",
            Good::Brewing => "brewing",
            Good::Leather => "leather",
        }
    }
}

impl fmt::Display for Good {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a hex of the map is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Terrain {
    /// Plain land: locomotives, track and stations may go here.
    Land,
    /// Sea: not playable.
    Sea,
    /// Wales, under the share stacks: not playable.
    Wales,
    /// A starting town, city or railway town.
    Place(PlaceId),
}

/// The kind of a place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlaceKind {
    /// The starting town of a railway line.
    Start(LineId),
    /// A city and its goods tokens at the start, by good.
    City([u8; 4]),
    /// A railway town.
    Town,
}

/// A starting town, city or railway town.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// Its key in the board file's grid.
    pub key: String,
    /// Its name, e.g. `Manchester`.
    pub name: String,
    /// Three letters for the map, e.g. `Man`.
    pub abbr: String,
    /// Where it is.
    pub hex: Hex,
    /// Start, city or town.
    pub kind: PlaceKind,
}

/// A railway line (company) as printed on the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineInfo {
    /// The short name players type, e.g. `GWR`.
    pub id: String,
    /// The full name.
    pub name: String,
    /// Other names players may type, e.g. `LY` for `L&Y`.
    pub aliases: Vec<String>,
    /// The colour of its locomotive.
    pub colour: String,
    /// Its starting town.
    pub start: PlaceId,
}

/// A checked board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    /// The board's name.
    pub name: String,
    /// True when the map is a reconstruction, not the printed board.
    pub reconstruction: bool,
    /// Number of columns (A, B, …).
    pub columns: u8,
    /// Number of rows (1, 2, …).
    pub rows: u8,
    /// Every hex, row by row.
    pub terrain: Vec<Terrain>,
    /// The places.
    pub places: Vec<Place>,
    /// The railway lines.
    pub lines: Vec<LineInfo>,
}

/// A board file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct BoardError {
    /// The file, as given.
    pub file: String,
    /// The line in the file, from 1, where known.
    pub line: Option<usize>,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "board file {}, line {}: {}", self.file, l, self.problem),
            None => write!(f, "board file {}: {}", self.file, self.problem),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBoard {
    format: Spanned<String>,
    name: String,
    reconstruction: bool,
    columns: Spanned<u8>,
    rows: Spanned<u8>,
    grid: Spanned<String>,
    line: Vec<RawLine>,
    place: Vec<RawPlace>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLine {
    id: Spanned<String>,
    name: String,
    colour: String,
    start: Spanned<String>,
    #[serde(default)]
    aliases: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlace {
    key: Spanned<String>,
    name: Spanned<String>,
    abbr: Spanned<String>,
    kind: Spanned<String>,
    #[serde(default)]
    goods: Option<Spanned<BTreeMap<String, u8>>>,
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

    fn at(&self, span: Range<usize>, problem: impl Into<String>) -> BoardError {
        BoardError {
            file: self.file.to_string(),
            line: Some(self.line_of(span.start)),
            problem: problem.into(),
        }
    }

    fn at_line(&self, line: usize, problem: impl Into<String>) -> BoardError {
        BoardError {
            file: self.file.to_string(),
            line: Some(line),
            problem: problem.into(),
        }
    }

    fn whole(&self, problem: impl Into<String>) -> BoardError {
        BoardError {
            file: self.file.to_string(),
            line: None,
            problem: problem.into(),
        }
    }
}

impl Board {
    /// The board compiled into the binary.
    pub fn embedded() -> Result<Board, BoardError> {
        Board::parse("games/rocket/board.toml (built in)", EMBEDDED_BOARD)
    }

    /// Reads and checks a board file.
    pub fn from_file(path: &Path) -> Result<Board, BoardError> {
        let text = std::fs::read_to_string(path).map_err(|e| BoardError {
            file: path.display().to_string(),
            line: None,
            problem: format!("cannot be read: {e}"),
        })?;
        Board::parse(&path.display().to_string(), &text)
    }

    /// Reads and checks a board from its text; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Board, BoardError> {
        let src = Source { file, text };
        let raw: RawBoard = toml::from_str(text).map_err(|e| {
            let problem = e.message().trim().to_string();
            match e.span() {
                Some(span) => src.at(span, problem),
                None => src.whole(problem),
            }
        })?;
        build(&src, raw)
    }

    /// Number of hexes.
    pub fn hex_count(&self) -> usize {
        usize::from(self.columns) * usize::from(self.rows)
    }

    /// Index of `hex` into per-hex lists.
    pub fn index(&self, hex: Hex) -> usize {
        usize::from(hex.row) * usize::from(self.columns) + usize::from(hex.col)
    }

    /// The hex with index `i`.
    pub fn hex_at(&self, i: usize) -> Hex {
        let cols = usize::from(self.columns);
        Hex::new((i % cols) as u8, (i / cols) as u8)
    }

    /// Every hex with its index, in index order (row by row), without
    /// the division of [`Board::hex_at`] for each.
    pub fn hexes(&self) -> impl Iterator<Item = (usize, Hex)> + '_ {
        (0..self.rows)
            .flat_map(move |r| (0..self.columns).map(move |c| Hex::new(c, r)))
            .enumerate()
    }

    /// True if `hex` lies on the map.
    pub fn contains(&self, hex: Hex) -> bool {
        hex.col < self.columns && hex.row < self.rows
    }

    /// The terrain of `hex` (which must be on the map).
    pub fn terrain(&self, hex: Hex) -> Terrain {
        self.terrain[self.index(hex)]
    }

    /// The neighbour of `hex` towards `d`, if on the map.
    pub fn step(&self, hex: Hex, d: Dir) -> Option<Hex> {
        hex.step(d, self.columns, self.rows)
    }

    /// The neighbours of `hex` on the map.
    pub fn neighbours(&self, hex: Hex) -> impl Iterator<Item = Hex> + '_ {
        Dir::ALL.into_iter().filter_map(move |d| self.step(hex, d))
    }

    /// The direction from `a` to its neighbour `b`.
    pub fn dir(&self, a: Hex, b: Hex) -> Option<Dir> {
        a.dir_to(b, self.columns, self.rows)
    }

    /// The places next to `hex`, in the board's order.
    pub fn places_next_to(&self, hex: Hex) -> Vec<PlaceId> {
        let mut out: Vec<PlaceId> = self
            .neighbours(hex)
            .filter_map(|h| match self.terrain(h) {
                Terrain::Place(p) => Some(p),
                _ => None,
            })
            .collect();
        out.sort();
        out
    }

    /// The place with id `p`.
    pub fn place(&self, p: PlaceId) -> &Place {
        &self.places[p.index()]
    }

    /// The line with id `l`.
    pub fn line(&self, l: LineId) -> &LineInfo {
        &self.lines[l.index()]
    }

    /// Every line id.
    pub fn line_ids(&self) -> impl Iterator<Item = LineId> + '_ {
        (0..self.lines.len()).map(|i| LineId(i as u8))
    }

    /// Every place id.
    pub fn place_ids(&self) -> impl Iterator<Item = PlaceId> + '_ {
        (0..self.places.len()).map(|i| PlaceId(i as u8))
    }

    /// The cities, in the board's order.
    pub fn cities(&self) -> impl Iterator<Item = PlaceId> + '_ {
        self.place_ids()
            .filter(|p| matches!(self.place(*p).kind, PlaceKind::City(_)))
    }
}

fn build(src: &Source<'_>, raw: RawBoard) -> Result<Board, BoardError> {
    if raw.format.get_ref() != FORMAT {
        return Err(src.at(
            raw.format.span(),
            format!(
                "format must be \"{FORMAT}\", found \"{}\"",
                raw.format.get_ref()
            ),
        ));
    }
    let columns = *raw.columns.get_ref();
    let rows = *raw.rows.get_ref();
    if !(2..=26).contains(&columns) {
        return Err(src.at(raw.columns.span(), "columns must be from 2 to 26 (A to Z)"));
    }
    if !(2..=99).contains(&rows) {
        return Err(src.at(raw.rows.span(), "rows must be from 2 to 99"));
    }
    // Places first: the grid refers to them by kind and key.
    let ReadPlaces {
        mut places,
        place_lines,
        goods_total,
    } = read_places(src, &raw.place)?;
    let terrain = read_grid(src, &raw.grid, (columns, rows), &mut places)?;
    for (p, line) in places.iter().zip(&place_lines) {
        if p.hex.col == u8::MAX {
            return Err(src.at_line(*line, format!("{} is not on the grid", p.name)));
        }
    }
    let lines = read_lines(src, &raw.line, &mut places)?;
    let board = Board {
        name: raw.name,
        reconstruction: raw.reconstruction,
        columns,
        rows,
        terrain,
        places,
        lines,
    };
    check_components(src, &board, &place_lines, goods_total)?;
    Ok(board)
}

/// The places as `[[place]]` gives them, before the grid puts them on
/// their hexes.
struct ReadPlaces {
    places: Vec<Place>,
    /// The line of the file each place stands on.
    place_lines: Vec<usize>,
    /// The goods tokens of every city together, by good.
    goods_total: [u8; 4],
}

/// The places, each not yet on the grid.
fn read_places(src: &Source<'_>, raw: &[RawPlace]) -> Result<ReadPlaces, BoardError> {
    let mut places: Vec<Place> = Vec::new();
    let mut place_lines: Vec<usize> = Vec::new();
    let mut goods_total = [0u8; 4];
    for rp in raw {
        let line = src.line_of(rp.key.span().start);
        let key = rp.key.get_ref().trim().to_string();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(src.at(
                rp.key.span(),
                format!("place key \"{key}\" must be letters or digits"),
            ));
        }
        if places.iter().any(|p| p.key == key) {
            return Err(src.at(rp.key.span(), format!("place key \"{key}\" is used twice")));
        }
        let name = rp.name.get_ref().trim().to_string();
        if places.iter().any(|p| p.name.eq_ignore_ascii_case(&name)) {
            return Err(src.at(
                rp.name.span(),
                format!("place name \"{name}\" is used twice"),
            ));
        }
        let abbr = rp.abbr.get_ref().trim().to_string();
        if abbr.chars().count() != 3 {
            return Err(src.at(
                rp.abbr.span(),
                format!("abbreviation \"{abbr}\" must be 3 letters"),
            ));
        }
        if places.iter().any(|p| p.abbr.eq_ignore_ascii_case(&abbr)) {
            return Err(src.at(
                rp.abbr.span(),
                format!("abbreviation \"{abbr}\" is used twice"),
            ));
        }
        let kind = place_kind(src, rp, &name)?;
        if let PlaceKind::City(count) = kind {
            for g in Good::ALL {
                goods_total[g.index()] += count[g.index()];
            }
        }
        if rp.goods.is_some() && !matches!(kind, PlaceKind::City(_)) {
            return Err(src.at_line(line, format!("{name} has goods but is not a city")));
        }
        places.push(Place {
            key,
            name,
            abbr,
            hex: Hex::new(u8::MAX, u8::MAX),
            kind,
        });
        place_lines.push(line);
    }
    Ok(ReadPlaces {
        places,
        place_lines,
        goods_total,
    })
}

/// The kind of the place `name`: a starting town (its line not known
/// yet), a railway town, or a city with its goods tokens.
fn place_kind(src: &Source<'_>, rp: &RawPlace, name: &str) -> Result<PlaceKind, BoardError> {
    match rp.kind.get_ref().as_str() {
        "start" => Ok(PlaceKind::Start(LineId(u8::MAX))),
        "town" => Ok(PlaceKind::Town),
        "city" => {
            let Some(goods) = &rp.goods else {
                return Err(src.at(rp.kind.span(), format!("city {name} has no goods")));
            };
            let mut count = [0u8; 4];
            for (g, n) in goods.get_ref() {
                let Some(good) = Good::ALL.iter().find(|x| x.name() == g.as_str()) else {
                    return Err(src.at(
                        goods.span(),
                        format!("{name}: unknown good \"{g}\"; goods are steel, textiles, brewing, leather"),
                    ));
                };
                count[good.index()] += n;
            }
            let mut sorted = count;
            sorted.sort_unstable();
            if sorted != [0, 0, 1, 2] {
                return Err(src.at(
                    goods.span(),
                    format!(
                        "city {name} must have 3 goods tokens, two of one kind and one of another"
                    ),
                ));
            }
            Ok(PlaceKind::City(count))
        }
        other => Err(src.at(
            rp.kind.span(),
            format!("place kind \"{other}\" must be start, city or town"),
        )),
    }
}

/// The grid of a board `size` (columns, rows): a header of column letters,
/// then one line a row; the terrain of each hex, and each place's hex
/// set in `places`.
fn read_grid(
    src: &Source<'_>,
    raw: &Spanned<String>,
    (columns, rows): (u8, u8),
    places: &mut [Place],
) -> Result<Vec<Terrain>, BoardError> {
    let grid_line0 = src.line_of(raw.span().start) + 1;
    let mut terrain = vec![Terrain::Sea; usize::from(columns) * usize::from(rows)];
    let mut seen_rows = 0u8;
    for (i, text) in raw.get_ref().lines().enumerate() {
        let line = grid_line0 + i;
        let tokens: Vec<&str> = text.split_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        if tokens
            .iter()
            .all(|t| t.len() == 1 && t.chars().all(|c| c.is_ascii_uppercase()))
        {
            let expected: Vec<String> = (0..columns)
                .map(|c| ((b'A' + c) as char).to_string())
                .collect();
            if tokens != expected.iter().map(String::as_str).collect::<Vec<_>>() {
                return Err(src.at_line(
                    line,
                    format!("the column header must read {}", expected.join(" ")),
                ));
            }
            continue;
        }
        let row_no: u8 = tokens[0].parse().map_err(|_| {
            src.at_line(
                line,
                format!(
                    "a grid row must start with its row number, found \"{}\"",
                    tokens[0]
                ),
            )
        })?;
        if row_no != seen_rows + 1 {
            return Err(src.at_line(
                line,
                format!("expected row {}, found row {row_no}", seen_rows + 1),
            ));
        }
        if row_no > rows {
            return Err(src.at_line(
                line,
                format!("row {row_no} is beyond the {rows} rows the board declares"),
            ));
        }
        let cells = &tokens[1..];
        if cells.len() != usize::from(columns) {
            return Err(src.at_line(
                line,
                format!(
                    "row {row_no} has {} hexes; the board has {columns} columns",
                    cells.len()
                ),
            ));
        }
        let row = row_no - 1;
        for (col, token) in cells.iter().enumerate() {
            let hex = Hex::new(col as u8, row);
            terrain[usize::from(row) * usize::from(columns) + col] =
                hex_terrain(src, line, hex, token, places)?;
        }
        seen_rows = row_no;
    }
    if seen_rows != rows {
        return Err(src.at(
            raw.span(),
            format!("the grid has {seen_rows} rows; the board declares {rows}"),
        ));
    }
    Ok(terrain)
}

/// The terrain of `hex`, written `token` on the grid's `line`: land, sea,
/// Wales, or the place of that key, whose hex is set.
fn hex_terrain(
    src: &Source<'_>,
    line: usize,
    hex: Hex,
    token: &str,
    places: &mut [Place],
) -> Result<Terrain, BoardError> {
    match token {
        "." => Ok(Terrain::Land),
        "~" => Ok(Terrain::Sea),
        "##" => Ok(Terrain::Wales),
        other => {
            let kind = other.chars().next().unwrap_or(' ');
            let Some(pi) = places.iter().position(|p| p.key == other) else {
                return Err(src.at_line(line, format!("{hex}: \"{other}\" is not a hex token (., ~, ##) nor a place key in [[place]]")));
            };
            let p = &mut places[pi];
            let ok = matches!(
                (kind, p.kind),
                ('S', PlaceKind::Start(_)) | ('C', PlaceKind::City(_)) | ('T', PlaceKind::Town)
            );
            if !ok {
                return Err(src.at_line(
                    line,
                    format!("{hex}: \"{other}\" does not match the kind of {}", p.name),
                ));
            }
            if p.hex.col != u8::MAX {
                return Err(src.at_line(line, format!("{hex}: {} is already at {}", p.name, p.hex)));
            }
            p.hex = hex;
            Ok(Terrain::Place(PlaceId(pi as u8)))
        }
    }
}

/// The lines, each on its own starting town, whose kind is set to it.
fn read_lines(
    src: &Source<'_>,
    raw: &[RawLine],
    places: &mut [Place],
) -> Result<Vec<LineInfo>, BoardError> {
    let mut lines: Vec<LineInfo> = Vec::new();
    let mut names_taken: BTreeSet<String> = BTreeSet::new();
    for rl in raw {
        let id = rl.id.get_ref().trim().to_string();
        for n in std::iter::once(&id).chain(rl.aliases.iter()) {
            if !names_taken.insert(n.to_ascii_uppercase()) {
                return Err(src.at(rl.id.span(), format!("line name \"{n}\" is used twice")));
            }
        }
        let start_name = rl.start.get_ref().trim();
        let Some(pi) = places
            .iter()
            .position(|p| p.name.eq_ignore_ascii_case(start_name))
        else {
            return Err(src.at(
                rl.start.span(),
                format!("{id}: starting town \"{start_name}\" is not a place"),
            ));
        };
        match places[pi].kind {
            PlaceKind::Start(l) if l.0 == u8::MAX => {
                places[pi].kind = PlaceKind::Start(LineId(lines.len() as u8));
            }
            PlaceKind::Start(_) => {
                return Err(src.at(
                    rl.start.span(),
                    format!("{id}: {start_name} is already another line's start"),
                ));
            }
            _ => {
                return Err(src.at(
                    rl.start.span(),
                    format!("{id}: {start_name} is not a starting town"),
                ));
            }
        }
        lines.push(LineInfo {
            id,
            name: rl.name.clone(),
            aliases: rl.aliases.clone(),
            colour: rl.colour.clone(),
            start: PlaceId(pi as u8),
        });
    }
    Ok(lines)
}

/// The rule book's components and the rulings' conditions on the map.
fn check_components(
    src: &Source<'_>,
    board: &Board,
    place_lines: &[usize],
    goods_total: [u8; 4],
) -> Result<(), BoardError> {
    let count = |f: fn(&PlaceKind) -> bool| board.places.iter().filter(|p| f(&p.kind)).count();
    let starts = count(|k| matches!(k, PlaceKind::Start(_)));
    let cities = count(|k| matches!(k, PlaceKind::City(_)));
    let towns = count(|k| matches!(k, PlaceKind::Town));
    if board.lines.len() != 7 {
        return Err(src.whole(format!(
            "the game has 7 railway lines; the file has {}",
            board.lines.len()
        )));
    }
    if starts != 7 {
        return Err(src.whole(format!(
            "the game has 7 starting towns; the file has {starts}"
        )));
    }
    if cities != 12 {
        return Err(src.whole(format!("the game has 12 cities; the file has {cities}")));
    }
    if towns != 9 {
        return Err(src.whole(format!(
            "the game has 9 railway towns; the file has {towns}"
        )));
    }
    for g in Good::ALL {
        if goods_total[g.index()] != 9 {
            return Err(src.whole(format!(
                "the game has 9 {g} tokens; the cities hold {}",
                goods_total[g.index()]
            )));
        }
    }
    for (pi, p) in board.places.iter().enumerate() {
        if let PlaceKind::Start(l) = p.kind {
            if l.0 == u8::MAX {
                return Err(src.at_line(
                    place_lines[pi],
                    format!("{} is a starting town of no line", p.name),
                ));
            }
            if let Some(other) = board.places_next_to(p.hex).first() {
                return Err(src.at_line(
                    place_lines[pi],
                    format!(
                        "starting town {} is next to {}",
                        p.name,
                        board.place(*other).name
                    ),
                ));
            }
            // First moves: any empty neighbour not next to two other lines'
            // locomotives (rulings 6), all standing on their starting towns.
            let moves = board
                .neighbours(p.hex)
                .filter(|h| board.terrain(*h) == Terrain::Land)
                .filter(|h| {
                    board
                        .neighbours(*h)
                        .filter(|n| matches!(board.terrain(*n), Terrain::Place(q) if q.index() != pi && matches!(board.place(q).kind, PlaceKind::Start(_))))
                        .count()
                        < 2
                })
                .count();
            if moves < 2 {
                return Err(src.at_line(
                    place_lines[pi],
                    format!("starting town {} has {moves} first move(s); every start needs at least two", p.name),
                ));
            }
        }
    }
    Ok(())
}
