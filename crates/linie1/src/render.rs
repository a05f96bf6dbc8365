//! The ASCII map and status block of a Linie 1 game, at most 100 columns
//! wide, as a player reads it in a mail.
//!
//! Each square is a block of 3 lines × 7 columns, and its track is drawn
//! inside it with box-drawing characters (issue 35): track at the middle of
//! each side a path ends at (so neighbours' track joins up), a lone path
//! through the middle (`│`, `─`, a curve turning there: `╭`), and among
//! several paths the straights through the middle (`┼` both) and each
//! curve a diagonal cutting its corner (`╱`, `╲`), so that every set of
//! paths draws differently. `●A` is building A's stop sign, `@3` line 3's
//! tram, `┃ A ┃` building A; terminals stand at the edges with their names
//! (`1W` is line 1's terminal beyond the west edge). Columns are lettered
//! above and below, rows numbered on both sides, and a key under the map
//! tells every mark.
//!
//! A player's own map, while they lay track, marks their layer (issue 35):
//! their stops drawn in double lines (`║ A ║`, numbered when they go in
//! order), their terminals with `◆` (`2W◆`), and the empty squares of one
//! fewest way to close each gap in their route with `○`; the key says so.
//! Everything else is drawn from the spectator's part of the view, so the
//! maps of two players differ in those marks alone.

use std::fmt::Write as _;

use engine::canvas::{self, css_colour};

/// A piece of map text and its CSS colour, if any.
type Seg = (String, Option<&'static str>);
use super::data::{Components, Edge, Paths, Square};
use super::view::{PlayerView, RouteView, View};
use engine::grammar::counted;
use engine::{Map, grammar};

/// The widest line the map and status may print.
pub const MAX_WIDTH: usize = 100;
const CELL_W: usize = 7;

const TRACK: &str = "#37474f";
const TREES: &str = "#2e7d32";
const SIGN: &str = "#c62828";
const BUILDING: &str = "#6d4c41";
/// The reader's own marks in the HTML map.
const YOURS: &str = "#e65100";
/// Beside the name of a terminal of the reader's line.
const YOUR_TERMINAL: char = '◆';
/// In an empty square of the reader's fewest way.
const YOUR_SQUARE: &str = "○";
/// The columns beside the board for a west or east terminal's name.
const SIDE_W: usize = 4;

type Cell = [[(char, Option<&'static str>); CELL_W]; 3];

fn blank() -> Cell {
    [[(' ', None); CELL_W]; 3]
}

fn put(cell: &mut Cell, r: usize, c: usize, text: &str, colour: Option<&'static str>) {
    for (i, ch) in text.chars().enumerate() {
        if c + i < CELL_W {
            cell[r][c + i] = (ch, colour);
        }
    }
}

/// The track of `paths` drawn inside a cell, as the key under the map
/// tells ([`key`]): track at the middle of each side a path ends at, where
/// a neighbour's joins it (`│` above or below, `─` left or right); a lone
/// path through the middle (`│`, `─`, or a curve turning there: `╭`, `╮`,
/// `╰`, `╯`); among several, the straights through the middle (`┼` both)
/// and each curve a diagonal cutting its corner beside the middle (`╱`
/// north-west and south-east, `╲` north-east and south-west). Each path
/// has marks of its own, so every set of paths draws differently, and no
/// mark stands outside its square's track (issue 35).
fn track(cell: &mut Cell, paths: Paths, colour: &'static str) {
    let col = Some(colour);
    let lone = paths.count() == 1;
    // A lone path's sides reach the middle; among several, they stop
    // short of the diagonals.
    let (west, east) = if lone {
        ("───", 4)
    } else {
        ("──", 5)
    };
    for side in Edge::ALL.into_iter().filter(|&e| paths.touches(e)) {
        match side {
            Edge::N => put(cell, 0, 3, "│", col),
            Edge::S => put(cell, 2, 3, "│", col),
            Edge::W => put(cell, 1, 0, west, col),
            Edge::E => put(cell, 1, east, west, col),
        }
    }
    let we = paths.joins(Edge::W, Edge::E);
    if we {
        put(cell, 1, 2, "───", col);
    }
    for (a, b) in paths.pairs() {
        let (r, c, mark) = match (a, b, lone) {
            (Edge::N, Edge::S, _) => (1, 3, if we { '┼' } else { '│' }),
            (Edge::N, Edge::E, true) => (1, 3, '╰'),
            (Edge::N, Edge::W, true) => (1, 3, '╯'),
            (Edge::S, Edge::E, true) => (1, 3, '╭'),
            (Edge::S, Edge::W, true) => (1, 3, '╮'),
            (Edge::N, Edge::W, false) => (0, 2, '╱'),
            (Edge::N, Edge::E, false) => (0, 4, '╲'),
            (Edge::S, Edge::W, false) => (2, 2, '╲'),
            (Edge::S, Edge::E, false) => (2, 4, '╱'),
            _ => continue, // west to east, drawn above
        };
        cell[r][c] = (mark, col);
    }
}

/// What the reader's view shows on the board, read once for the map: the
/// tiles laid (paths and trees) by square, the stop signs, and the trams
/// with their line where its card is shown (rulings 4: a tram is on the
/// board only once its cards are).
struct Shown<'v> {
    tiles: Vec<Option<(Paths, bool)>>,
    signs: Vec<(Square, char)>,
    /// Where each tram stands, with its line's number and colour.
    trams: Vec<(At<'v>, Option<(u8, &'static str)>)>,
    /// The reader's own layer, where the view has their route.
    yours: Option<Yours<'v>>,
}

/// What the reader's own layer marks: their stops (with their place in
/// the order, where the card's order is kept), their terminals, and the
/// empty squares of one fewest way to close each gap of their route.
struct Yours<'v> {
    stops: Vec<(char, Option<usize>)>,
    terminals: &'v [String],
    way: Vec<Square>,
}

impl<'v> Yours<'v> {
    /// Read from the reader's entry in `view`, where the view has their
    /// route.
    fn of(view: &'v View) -> Option<Yours<'v>> {
        let route = view.route.as_ref()?;
        let me = view
            .viewer_seat
            .and_then(|s| view.players.iter().find(|p| p.seat == s))?;
        let stops = me.stops.as_deref().unwrap_or(&[]);
        let ordered = in_order(view, stops);
        Some(Yours {
            stops: (stops.iter().enumerate())
                .map(|(i, c)| (*c, ordered.then_some(i + 1)))
                .collect(),
            terminals: me.terminals.as_deref().unwrap_or(&[]),
            way: (route.stretches.iter())
                .flat_map(|s| s.squares.iter().filter_map(|q| Square::parse(q)))
                .collect(),
        })
    }

    fn stop(&self, letter: char) -> Option<Option<usize>> {
        self.stops.iter().find(|(c, _)| *c == letter).map(|s| s.1)
    }
}

/// Whether `stops` go in the card's order (`ordered_stops`, three stops).
fn in_order(view: &View, stops: &[char]) -> bool {
    view.options.iter().any(|o| o == "ordered_stops") && stops.len() >= 3
}

/// Where a tram stands: a square, or a terminal by the name the view
/// gives it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At<'v> {
    Square(Square),
    Terminal(&'v str),
}

impl<'v> Shown<'v> {
    /// Read from `view`, on `d`; what `d` has no place for is left out.
    /// `yours`: the reader's own layer, drawn over the spectator's part.
    fn of(d: &Components, view: &'v View, yours: Option<Yours<'v>>) -> Shown<'v> {
        let mut tiles = vec![None; d.square_count()];
        for t in &view.tiles {
            let Some(s) = Square::parse(&t.square).filter(|s| d.contains(*s)) else {
                continue;
            };
            if let Ok(paths) = Paths::parse(&t.paths) {
                tiles[d.index(s)] = Some((paths, t.trees));
            }
        }
        let signs = (view.stop_signs.iter())
            .filter_map(|sign| Some((Square::parse(&sign.square)?, sign.building)))
            .collect();
        let trams = (view.players.iter())
            .filter_map(|p| {
                let at = p.trip.as_ref()?.tram.as_deref()?;
                let at = match Square::parse(at).filter(|s| d.contains(*s)) {
                    Some(s) => At::Square(s),
                    None => At::Terminal(at),
                };
                let line = p.line.and_then(|n| {
                    let line = d.lines.iter().find(|l| l.number == n)?;
                    Some((n, css_colour(&line.colour)))
                });
                Some((at, line))
            })
            .collect();
        Shown {
            tiles,
            signs,
            trams,
            yours,
        }
    }

    /// Whether `t` is a terminal of the reader's line.
    fn your_terminal(&self, t: &str) -> bool {
        self.yours
            .as_ref()
            .is_some_and(|y| y.terminals.iter().any(|n| n == t))
    }

    /// The trams at `place`: their lines' numbers and colours.
    fn trams_at(&self, place: At<'_>) -> Vec<Option<(u8, &'static str)>> {
        (self.trams.iter())
            .filter(|(at, _)| *at == place)
            .map(|(_, line)| *line)
            .collect()
    }
}

fn draw_cell(d: &Components, shown: &Shown<'_>, s: Square) -> Cell {
    let mut cell = blank();
    let yours = shown.yours.as_ref();
    if let Some(b) = d.building_at(s) {
        let l = d.building(b).letter;
        match yours.and_then(|y| y.stop(l)) {
            Some(place) => {
                let c = Some(YOURS);
                put(&mut cell, 0, 1, "╔═══╗", c);
                put(&mut cell, 1, 1, &format!("║ {l} ║"), c);
                put(&mut cell, 2, 1, "╚═══╝", c);
                if let Some(n) = place {
                    put(&mut cell, 0, 6, &n.to_string(), c);
                }
            }
            None => {
                put(&mut cell, 0, 1, "┏━━━┓", Some(BUILDING));
                put(&mut cell, 1, 1, &format!("┃ {l} ┃"), Some(BUILDING));
                put(&mut cell, 2, 1, "┗━━━┛", Some(BUILDING));
            }
        }
        return cell;
    }
    let Some((paths, trees)) = shown.tiles.get(d.index(s)).copied().flatten() else {
        match yours.is_some_and(|y| y.way.contains(&s)) {
            true => put(&mut cell, 1, 3, YOUR_SQUARE, Some(YOURS)),
            false => put(&mut cell, 1, 3, "·", None),
        }
        return cell;
    };
    track(&mut cell, paths, if trees { TREES } else { TRACK });
    let signs = shown.signs.iter().filter(|(at, _)| *at == s);
    for (i, (_, l)) in signs.take(2).enumerate() {
        put(&mut cell, i * 2, 0, &format!("●{l}"), Some(SIGN));
    }
    let trams = shown.trams_at(At::Square(s));
    for (i, line) in trams.iter().take(2).enumerate() {
        let text = match line {
            _ if i == 1 && trams.len() > 2 => "@+".to_string(),
            Some((n, _)) => format!("@{n}"),
            None => "@?".to_string(),
        };
        put(&mut cell, i * 2, 5, &text, line.map(|(_, c)| c));
    }
    cell
}

fn segs(chars: &[(char, Option<&'static str>)]) -> Vec<Seg> {
    let mut out: Vec<Seg> = Vec::new();
    for (ch, colour) in chars {
        match out.last_mut() {
            Some((text, c)) if c == colour => text.push(*ch),
            _ => out.push((ch.to_string(), *colour)),
        }
    }
    out
}

/// The map as rows of segments: letters, terminals, the grid, a key.
fn map_rows(d: &Components, view: &View) -> Vec<Vec<Seg>> {
    let spectators = view.as_spectator();
    let shown = Shown::of(d, &spectators, Yours::of(view));
    let cols = usize::from(d.columns);
    let margin = 3 + SIDE_W;
    let mut rows: Vec<Vec<Seg>> = Vec::new();
    let mut letters = " ".repeat(margin);
    for c in 0..cols {
        let _ = write!(letters, "   {}   ", (b'A' + c as u8) as char);
    }
    rows.push(vec![(letters.clone(), None)]);

    // A terminal's marker beside a leg: its name, `@` if a tram is in it,
    // and `◆` if it is the reader's (before the name beyond the east edge,
    // after it elsewhere: each mark in a place of its own, so that the
    // reader's map differs from the spectator's in that mark alone).
    let marker = |t: super::TerminalId, width: usize, east: bool| -> Vec<Seg> {
        let term = d.terminal(t);
        let line = &d.lines[term.line.index()];
        let tram = if shown.trams_at(At::Terminal(&term.name)).is_empty() {
            ""
        } else {
            "@"
        };
        let name = (
            format!("{}{tram}", term.name),
            Some(css_colour(&line.colour)),
        );
        let mut out = match shown.your_terminal(&term.name) {
            true if east => vec![(YOUR_TERMINAL.to_string(), Some(YOURS)), name],
            true => vec![name, (YOUR_TERMINAL.to_string(), Some(YOURS))],
            false => vec![name],
        };
        let pad = width.saturating_sub(out.iter().map(|(t, _)| t.chars().count()).sum());
        match east {
            true => out.insert(0, (" ".repeat(pad), None)),
            false => out.push((" ".repeat(pad), None)),
        }
        out
    };
    let edge_line = |side: Edge| -> Vec<Seg> {
        let mut line: Vec<Seg> = vec![(" ".repeat(margin), None)];
        for c in 0..cols {
            let row = if side == Edge::N { 0 } else { d.rows - 1 };
            match d.terminal_at(Square::new(row, c as u8), side) {
                Some((t, _)) => {
                    line.push(("  ".into(), None));
                    line.extend(marker(t, CELL_W - 2, false));
                }
                None => line.push((" ".repeat(CELL_W), None)),
            }
        }
        line
    };
    rows.push(edge_line(Edge::N));
    for r in 0..d.rows {
        let cells: Vec<Cell> = (0..d.columns)
            .map(|c| draw_cell(d, &shown, Square::new(r, c)))
            .collect();
        for k in 0..3 {
            let mut line: Vec<Seg> = Vec::new();
            let label = if k == 1 {
                format!("{:>2} ", r + 1)
            } else {
                "   ".into()
            };
            line.push((label, None));
            let west = d.terminal_at(Square::new(r, 0), Edge::W);
            match (k, west) {
                (1, Some((t, _))) => line.extend(marker(t, SIDE_W, false)),
                _ => line.push((" ".repeat(SIDE_W), None)),
            }
            for cell in &cells {
                line.extend(segs(&cell[k]));
            }
            let east = d.terminal_at(Square::new(r, d.columns - 1), Edge::E);
            match (k, east) {
                (1, Some((t, _))) => line.extend(marker(t, SIDE_W, true)),
                _ => line.push((" ".repeat(SIDE_W), None)),
            }
            if k == 1 {
                line.push((format!(" {}", r + 1), None));
            }
            rows.push(line);
        }
    }
    rows.push(edge_line(Edge::S));
    rows.push(vec![(letters, None)]);

    rows.extend(key(d));
    if let Some(y) = &shown.yours {
        rows.extend(your_key(y));
    }
    rows
}

/// The key's lines for the reader's own marks, under the key (issue 35).
fn your_key(y: &Yours<'_>) -> Vec<Vec<Seg>> {
    let numbered = y.stops.iter().any(|(_, n)| n.is_some());
    let order = if numbered {
        " (1 2 3 beside it: in that order)"
    } else {
        ""
    };
    [
        format!("     Yours alone: ║A║ building A, one of your stops{order}"),
        format!(
            "     {YOUR_TERMINAL} beside a terminal's name: yours   {YOUR_SQUARE} an empty square \
             on a shortest way to finish your route"
        ),
    ]
    .into_iter()
    .map(|t| vec![(t, Some(YOURS))])
    .collect()
}

/// The squares the key draws: a crossing, four curves, a lone curve.
const EXAMPLES: [&str; 3] = ["NS+WE", "NE+NW+SE+SW", "SW"];

/// The key under the map: every mark it draws, so that the map can be read
/// by the key alone (issue 35), with three squares drawn as examples.
fn key(d: &Components) -> Vec<Vec<Seg>> {
    let text = |t: &str| -> Vec<Seg> { vec![(t.to_string(), None)] };
    let mut rows = vec![
        text(""),
        text(
            "Key: a square is 3 lines × 7 columns: its middle under its letter, \
             its number on its middle line.",
        ),
        text(&format!(
            "     Its track is drawn inside it, each path apart; drawn here: {}:",
            EXAMPLES.join(", ")
        )),
    ];
    let examples = EXAMPLES.map(|p| {
        let mut cell = blank();
        track(&mut cell, Paths::parse(p).unwrap_or(Paths::NONE), TRACK);
        cell
    });
    let beside = [
        "│ ─ through the middle: a straight NS, WE; ┼ both, a crossing",
        "╭ ╮ ╰ ╯ in the middle: a lone curve: ╭ SE, ╮ SW, ╰ NE, ╯ NW",
        "╱ ╲ by the middle, among other paths: a curve cutting that corner:",
    ];
    for (k, words) in beside.into_iter().enumerate() {
        let mut row: Vec<Seg> = vec![("     ".into(), None)];
        for cell in &examples {
            row.extend(segs(&cell[k]));
            row.push(("  ".into(), None));
        }
        row.push((words.into(), None));
        rows.push(row);
    }
    let trees: Vec<String> = (d.tiles.iter())
        .filter(|t| t.trees)
        .map(|t| t.paths.to_string())
        .collect();
    for t in [
        "     ╱ NW above left, ╲ NE above right, ╲ SW below left, ╱ SE below right",
        "     Track at the middle of a side (│ above or below, ─ left or right): a path ends there",
        "     ┃A┃ building A   ●A its stop sign   @3 tram of line 3   · empty square",
        "     1W terminal of line 1 beyond the west edge (N, E, S, W); @ beside it: a tram inside",
        &format!("     Trees, never exchanged: {}", trees.join(", ")),
    ] {
        rows.push(text(t));
    }
    rows
}

/// The board `d` as text and HTML, drawn from what the reader of `view`
/// sees on it: the tiles, the stop signs and the trams, each of which
/// appears only once its cards are shown (rulings 4).
pub(super) fn map(d: &Components, view: &View) -> Map {
    canvas::draw(
        map_rows(d, view)
            .into_iter()
            .map(|row| row.into_iter().map(|(t, c)| (t.into(), c)).collect())
            .collect(),
    )
}

/// The status block of `v`, drawn from what the reader may see;
/// `stopped`: the game was stopped before its end (a moderator's abort),
/// and how, said where the turn would be.
pub(super) fn status(board: &Components, v: &View, stopped: Option<&str>) -> String {
    let mut out = String::new();
    // A game over looks back: no next move's limit.
    let over = v.result.is_some() || stopped.is_some();
    headline(v, stopped, &mut out);
    let _ = writeln!(out, "{}.", facts(v, over));
    out.push('\n');
    for p in &v.players {
        out.push_str(&wrap(&player_row(p, over), 13));
    }
    if let Some(row) = your_cards(v, over) {
        out.push('\n');
        out.push_str(&wrap(&row, 2));
    }
    if let Some(row) = v.route.as_ref().filter(|_| !over).map(your_route) {
        out.push_str(&wrap(&row, 2));
    }
    if let Some(drawn) = your_hand(board, v, over) {
        out.push('\n');
        out.push_str(&drawn);
    }
    out
}

/// The reader's own hand while they lay, drawn (issue 35): each kind of
/// tile once, under its number, as `lay TILE SQUARE 0` lays it, so that
/// an order can name it by number and turn (`lay 2 C4 90`). Hands lie
/// face up (rule book, Preparazione), so this shows nothing secret; it is
/// drawn for the reader alone as it is their orders it serves.
fn your_hand(board: &Components, v: &View, over: bool) -> Option<String> {
    let me = v.viewer_seat.and_then(|s| v.players.get(usize::from(s)))?;
    if me.driving || over || me.hand.is_empty() {
        return None;
    }
    // Number, paths as drawn, how many.
    let mut tiles: Vec<(u8, Paths, usize)> = Vec::new();
    for text in &me.hand {
        let tile = board.tile(board.tile_with_paths(Paths::parse(text).ok()?)?);
        match tiles.iter_mut().find(|t| t.0 == tile.number) {
            Some(t) => t.2 += 1,
            None => tiles.push((tile.number, tile.paths, 1)),
        }
    }
    tiles.sort_by_key(|t| t.0);
    let mut rows = vec![String::new(); 5];
    for (number, paths, count) in tiles {
        let mut cell = blank();
        track(&mut cell, paths, TRACK);
        let line = |k: usize| cell[k].iter().map(|(c, _)| *c).collect::<String>();
        let label = match count {
            1 => format!("tile {number}"),
            n => format!("tile {number} ×{n}"),
        };
        let _ = write!(rows[0], "  {label:<11}");
        let _ = write!(rows[1], "  ·{}·  ", line(0));
        let _ = write!(rows[2], "   {}   ", line(1));
        let _ = write!(rows[3], "  ·{}·  ", line(2));
        let _ = write!(rows[4], "  {:^9}  ", paths.to_string());
    }
    let mut out = String::from(
        "Your hand, each tile as `lay TILE SQUARE 0` lays it (TURN 90, 180, 270: turned \
         clockwise):\n",
    );
    for row in rows {
        out.push_str(row.trim_end());
        out.push('\n');
    }
    Some(out)
}

/// The first line: how the game ended, or whom it waits for.
fn headline(v: &View, stopped: Option<&str>, out: &mut String) {
    match (&v.result, stopped) {
        (Some(r), _) => {
            let _ = writeln!(
                out,
                "The game is over: {}.{}",
                r.reason,
                r.winner
                    .as_ref()
                    .map(|w| format!(" {w} wins."))
                    .unwrap_or_default()
            );
        }
        (None, Some(how)) => {
            let _ = writeln!(out, "The game is over: {how}.");
        }
        (None, None) => {
            let awaited: Vec<String> = v
                .awaiting
                .iter()
                .map(|a| format!("{} ({})", a.player, a.what))
                .collect();
            let _ = writeln!(out, "Turn {}: waiting for {}.", v.turn, awaited.join("; "));
        }
    }
}

/// The supply, the move's limit or the die, and the options, each a
/// sentence of its own: "Supply: 91 tiles face down.  The first move
/// goes 1 square" (without the last full stop).
fn facts(v: &View, over: bool) -> String {
    let mut facts = vec![format!(
        "Supply: {} face down",
        counted(v.supply_left, "tile")
    )];
    match (v.roll, v.last_move) {
        (_, Some(m)) if over => facts.push(format!("last move {m}")),
        (_, _) if over => {}
        (Some(r), _) => facts.push(format!("die: {r}")),
        (None, Some(m)) => {
            // The main rule's limit; a die's game has none (rulings 6, 7).
            if let Some(max) = v.max_move {
                facts.push(format!("last move {m}, next at most {max}"))
            }
        }
        (None, None) if !v.options.iter().any(|o| o.starts_with("die")) => {
            facts.push("the first move goes 1 square".into())
        }
        _ => {}
    }
    if let Some(r) = v.last_roll {
        facts.push(format!("last roll {r}"));
    }
    facts.push(format!("options: {}", v.options.join(", ")));
    let facts: Vec<String> = facts.iter().map(|f| grammar::capitalised(f)).collect();
    facts.join(".  ")
}

/// Stops by their letters: "A F K".
fn stops(s: &[char]) -> String {
    s.iter().map(char::to_string).collect::<Vec<_>>().join(" ")
}

/// One player's row: their hand, and their cards and trip once driving
/// (or once the game is over, when every player's cards are turned up).
fn player_row(p: &PlayerView, over: bool) -> String {
    let mut row = format!("{:<12} ", p.name);
    if p.driving {
        let cards = match (&p.line, &p.route_card, &p.stops) {
            (Some(l), Some(c), Some(s)) => format!("line {l}, card {c} ({})", stops(s)),
            _ => String::new(),
        };
        let _ = write!(
            row,
            "driving: {cards}; {}; open hand: {}",
            trip(p),
            hand(&p.hand)
        );
    } else {
        let _ = write!(row, "hand: {}", hand(&p.hand));
        if over && let (Some(l), Some(c), Some(s)) = (&p.line, &p.route_card, &p.stops) {
            let _ = write!(row, "; cards: line {l}, card {c} ({})", stops(s));
        }
    }
    row
}

/// Where a driving player's tram is, and the stops it has made.
fn trip(p: &PlayerView) -> String {
    match &p.trip {
        Some(t) => match &t.tram {
            Some(at) => format!(
                "tram on {at} ({} to {}), stopped at: {}",
                t.from,
                t.to,
                if t.stopped.is_empty() {
                    "-".to_string()
                } else {
                    stops(&t.stopped)
                }
            ),
            None => "tram off the board, starts again".to_string(),
        },
        None => String::new(),
    }
}

/// The reader's own cards, while they are not driving yet: secret until
/// the trip starts, while there is a trip to come.
fn your_cards(v: &View, over: bool) -> Option<String> {
    let me = v.viewer_seat.and_then(|s| v.players.get(usize::from(s)))?;
    if me.driving {
        return None;
    }
    let (Some(l), Some(c), Some(s), Some(t)) = (&me.line, &me.route_card, &me.stops, &me.terminals)
    else {
        return None;
    };
    let ordered = v.options.iter().any(|o| o == "ordered_stops") && s.len() >= 3;
    Some(format!(
        "Your cards{}: line {l}, route card {c}: stops {} ({}); terminals {}.",
        if over {
            ""
        } else {
            " (secret until you start your trip)"
        },
        stops(s),
        if ordered {
            "in this order"
        } else {
            "any order"
        },
        t.join(" and ")
    ))
}

/// The most squares of a gap the route line names; past it, the map's
/// marks show them.
const NAMED_SQUARES: usize = 4;

/// The reader's route line (issue 35): their terminals and stops in the
/// order driven, `✓` on each their track already joins to the one
/// before, and for each gap the fewest squares that tiles could fill to
/// close it (named, where they are few); or that the route is complete
/// and the trip may start.
fn your_route(r: &RouteView) -> String {
    if r.complete {
        let starts: Vec<String> = r.starts.iter().map(|t| format!("`start {t}`")).collect();
        return format!(
            "Your route is complete: you may start your trip ({}) instead of laying.",
            starts.join(" or ")
        );
    }
    let mut line = String::from("Your route:");
    if let Some(first) = r.points.first() {
        let _ = write!(line, " {first}");
    }
    for s in &r.stretches {
        let _ = write!(line, " → {}", s.to);
        match s.missing {
            _ if s.joined => line.push_str(" ✓"),
            // From a square the gap before fills: joined once it is.
            Some(0) => line.push_str(" (joined once the gap before is filled)"),
            None => line.push_str(" (no way open: track or buildings close every one)"),
            Some(n) => {
                let _ = write!(line, " ({} to fill", counted(usize::from(n), "square"));
                if !s.squares.is_empty() && s.squares.len() <= NAMED_SQUARES {
                    let _ = write!(line, ": {}", s.squares.join(" "));
                }
                line.push(')');
            }
        }
    }
    line.push('.');
    match r.missing {
        Some(0) => line.push_str(
            " Your track joins every stop and terminal, but no trip passes the route check yet \
             (rulings 5: from terminal to terminal through every stop, no sharp turn).",
        ),
        Some(n) => {
            let _ = write!(
                line,
                " At the fewest, {} to fill in all, ○ on the map.",
                counted(n as usize, "square")
            );
        }
        None => {}
    }
    if r.stretches.iter().any(|s| s.joined) {
        line.push_str(" ✓: your track joins it to the one before.");
    }
    line
}

fn hand(tiles: &[String]) -> String {
    if tiles.is_empty() {
        "-".to_string()
    } else {
        tiles.join(" ")
    }
}

/// A row, continued on indented lines past [`MAX_WIDTH`].
fn wrap(row: &str, indent: usize) -> String {
    let mut out = String::new();
    let mut current = String::new();
    for word in row.split(' ') {
        if current.chars().count() + word.chars().count() + 1 > MAX_WIDTH
            && !current.trim().is_empty()
        {
            out.push_str(current.trim_end());
            out.push('\n');
            current = " ".repeat(indent);
        }
        current.push_str(word);
        current.push(' ');
    }
    out.push_str(current.trim_end());
    out.push('\n');
    out
}
