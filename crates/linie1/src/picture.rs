//! Linie 1's board as a picture: one standalone SVG 1.1 document drawn from
//! a reader's [`View`], so it can never show what their text hides, on the
//! board's printed layout ([`Components`]: squares, buildings, terminals and
//! line colours, the same for every reader).
//!
//! Every laid tile is drawn as track, the way its paths run (straights
//! through the middle, each curve a quarter circle round its corner), so a
//! crossing and four curves differ at a glance, as on the cardboard. Each
//! kind of tile lying on the board is drawn once in `<defs>` (its `id` is its
//! paths, e.g. `NS-SW`, and `-trees` for one with trees) and placed with
//! `<use>` (its `id` is its square, e.g. `C4`): a full board stays small and
//! quick to build, and the PNG renderer draws each kind once (a
//! [`Stamp`]).
//!
//! Colour is never the only cue (issue 14: readable by colour-blind
//! players): a terminal is a loop with its line number in a circle, a tram a
//! rounded box with its line number, a stop sign a ringed disc with its
//! building's letter, a tile with trees a dotted hedge along its border.
//!
//! Text uses only DejaVu Sans (the font the PNG renderer embeds), colours
//! the ASCII map's ([`css_colour`]), plain presentation attributes and
//! integer coordinates, with no external reference, style sheet or filter.
//!
//! A player laying track sees their own layer on top (issue 35), drawn
//! from the part of their view only they have ([`View::route`], their
//! cards): their terminals and stops ringed in amber (the stops numbered
//! when they go in the card's order), the empty squares of one shortest
//! way to close each gap of their route tinted, their own line in the
//! legend and the title as they read it, and the key's words for those
//! marks. Everything under it is drawn from [`View::as_spectator`], so the
//! pictures of two players differ in that layer alone, and without it a
//! player's picture is the spectator's.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::data::{Components, Edge, Paths, Square};
use super::view::{PlayerView, View};
use engine::canvas::{css_colour, escape_html};
use engine::grammar::counted;
use engine::picture::{Layer, Picture, Stamp};

/// A square's side in pixels.
const CELL: i32 = 44;
/// Half of it: where a track end meets the side.
const HALF: i32 = CELL / 2;
/// Around the board: terminal loops, then the row and column labels.
// MARGIN and HEADER make the board 660 wide with its squares on whole
// pixels of the 600-pixel PNG (44 units, 40 pixels): a tile's pixels are
// then the same wherever it lies, drawn once (engine::picture::Stamp).
const MARGIN: i32 = 66;
/// The title line above the board.
const HEADER: i32 = 33;
/// Side margin of the title and the legend.
const PAD: i32 = 12;
/// One player's two lines in the legend.
const PLAYER_ROW: i32 = 38;
/// The key's rows below the players.
const KEY_ROWS: i32 = 2;
const KEY_ROW: i32 = 24;

const PAGE: &str = "#fbfaf6";
const GROUND: &str = "#ece6d6";
const GRID: &str = "#d6ccb4";
const FRAME: &str = "#8d8372";
const TILE: &str = "#d7dadb";
const TILE_EDGE: &str = "#b4b9bb";
const TRACK: &str = "#37474f";
const RAIL: &str = "#c5ced3";
const HEDGE: &str = "#2e7d32";
const BUILDING: &str = "#6d4c41";
const SIGN: &str = "#c62828";
const INK: &str = "#263238";
const MUTED: &str = "#5f6b70";
const HIDDEN: &str = "#9e9e9e";
const YOUR_STOP: &str = "#f9a825";
/// The ring round the reader's own stops and terminals.
const YOUR_RING: &str = " stroke=\"#f9a825\" stroke-width=\"3\"";

/// A tram's box and a terminal's disc, in pixels.
const TRAM_W: i32 = 28;
const TRAM_H: i32 = 20;
const BADGE_R: i32 = 10;

/// The longest name the picture prints, in characters.
const NAME_CHARS: usize = 20;

/// Linie 1's board, seen by the reader of `view`, as an SVG document about
/// 650 pixels wide: the grid with every laid tile's track, the buildings,
/// stop signs, terminals and trams, a title line saying whose turn it is,
/// and a legend of the players (each line card and route only where the
/// view shows it) and the symbols. `board` is the game's components, for
/// the printed board only; everything about the game comes from `view`.
///
/// Pure and total: a square, terminal or letter in the view that the board
/// does not have is left out, never a panic.
pub fn board_svg(view: &View, board: &Components) -> String {
    board_picture(view, board, None).svg()
}

/// The board as a picture ([`board_svg`]) in two layers: what the board
/// prints (ground, terminals, buildings, coordinates, the key), fixed, and
/// what play puts on it (the title line, tiles, stop signs, trams, the
/// players), changing, both as a spectator sees them
/// ([`View::as_spectator`]). Nothing of the second overlaps the first but
/// the tiles on the ground. Where `view` is a player's with their route
/// (they lay track), a third, changing, is theirs alone: their marks, and
/// their title and legend line drawn over the spectator's. `stopped`: how
/// a moderator stopped the game (`aborted on …`), said in the title where
/// the turn would be, with nobody marked to play and nobody's own layer.
pub fn board_picture(view: &View, board: &Components, stopped: Option<&str>) -> Picture {
    let shared = view.as_spectator();
    let rows = i32::from(board.rows);
    let cols = i32::from(board.columns);
    let width = 2 * MARGIN + cols * CELL;
    let board_bottom = HEADER + 2 * MARGIN + rows * CELL;
    let players_bottom = board_bottom + 8 + view.players.len() as i32 * PLAYER_ROW;
    let height = players_bottom + KEY_ROWS * KEY_ROW + 8;
    let p = Pen {
        x0: MARGIN,
        y0: HEADER + MARGIN,
        rows,
        cols,
    };
    let mut printed = String::with_capacity(16_000);
    let _ = writeln!(
        printed,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"{PAGE}\"/>"
    );
    ground(&mut printed, &p);
    terminals(&mut printed, &p, board);
    buildings(&mut printed, &p, board);
    labels(&mut printed, &p);
    key(&mut printed, players_bottom, width);

    let head = format!("<title>{}</title>\n", text(&view.board));
    let mut played = String::with_capacity(4_000);
    header(&mut played, &shared, stopped);
    stop_signs(&mut played, &p, board, &shared);
    trams(&mut played, &p, board, &shared);
    players(
        &mut played,
        &shared,
        board,
        board_bottom + 8,
        stopped.is_some(),
    );
    let mut layers = vec![
        Layer::fixed(printed),
        Layer::changing(played).with_stamps(laid_tiles(&p, board, &shared)),
    ];
    if stopped.is_none()
        && let Some(own) = your_layer(view, &shared, board, &p, (width, board_bottom + 8))
    {
        layers.push(Layer::changing(own));
    }
    Picture {
        width: width as u32,
        height: height as u32,
        head,
        layers,
    }
}

/// The laid tiles of `view`: each kind a stamp, drawn once.
fn laid_tiles(p: &Pen, board: &Components, view: &View) -> Vec<Stamp> {
    let laid: Vec<(Square, Paths, bool)> = view
        .tiles
        .iter()
        .filter_map(|t| {
            let s = Square::parse(&t.square).filter(|s| board.contains(*s))?;
            let paths = Paths::parse(&t.paths).ok()?;
            Some((s, paths, t.trees))
        })
        .collect();
    let mut tiles: Vec<Stamp> = Vec::new();
    for &(s, paths, trees) in &laid {
        let (x, y) = p.corner(s);
        // A tile with trees looks different from one without.
        let id = match trees {
            true => format!("{}-trees", PathsId(paths)),
            false => PathsId(paths).to_string(),
        };
        match tiles.iter_mut().find(|t| t.id == id) {
            Some(t) => t.at.push((s.to_string(), x, y)),
            None => tiles.push(Stamp {
                id,
                svg: tile_svg(paths, trees),
                width: CELL as u32,
                height: CELL as u32,
                at: vec![(s.to_string(), x, y)],
            }),
        }
    }
    tiles
}

/// The reader's own layer (issue 35), where `view` has their route: drawn
/// over the spectator's part (`shared`), one element a line. `(width,
/// legend)`: the picture's width and where the players' legend begins.
fn your_layer(
    view: &View,
    shared: &View,
    board: &Components,
    p: &Pen,
    (width, legend): (i32, i32),
) -> Option<String> {
    let route = view.route.as_ref()?;
    let me = reader(view)?;
    let mut out = String::with_capacity(2_000);
    // One shortest way to close each gap: its empty squares tinted.
    let mut way: Vec<Square> = Vec::new();
    for q in route.stretches.iter().flat_map(|s| &s.squares) {
        if let Some(s) = Square::parse(q).filter(|s| board.contains(*s) && !way.contains(s)) {
            way.push(s);
        }
    }
    for s in way {
        let (x, y) = p.corner(s);
        let _ = writeln!(out, "{}", way_square(x + 5, y + 5, CELL - 10));
    }
    // The terminals of the reader's line, their discs ringed.
    let mine = me.terminals.as_deref().unwrap_or(&[]);
    for t in board.terminals.iter().filter(|t| mine.contains(&t.name)) {
        let (bx, by) = Loop::new(p, t.side, t.legs).out_by(13);
        let _ = writeln!(
            out,
            "<circle cx=\"{bx}\" cy=\"{by}\" r=\"{}\" fill=\"none\"{YOUR_RING}/>",
            BADGE_R + 1
        );
    }
    // The stops, ringed; numbered where they go in the card's order.
    let stops = me.stops.as_deref().unwrap_or(&[]);
    let ordered = view.options.iter().any(|o| o == "ordered_stops") && stops.len() >= 3;
    for (i, letter) in stops.iter().enumerate() {
        let Some(b) = board.building_by_letter(*letter).map(|b| board.building(b)) else {
            continue;
        };
        let (x, y) = p.corner(b.square);
        let _ = write!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"38\" height=\"38\" rx=\"5\" fill=\"none\"{YOUR_RING}/>",
            x + 3,
            y + 3
        );
        if ordered {
            let (cx, cy) = (x + CELL - 6, y + 6);
            let _ = write!(
                out,
                "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"8\" fill=\"{YOUR_STOP}\"/><text x=\"{cx}\" \
                 y=\"{}\" font-size=\"11\" font-weight=\"bold\" fill=\"{INK}\" \
                 text-anchor=\"middle\">{}</text>",
                cy + 4,
                i + 1
            );
        }
        out.push('\n');
    }
    // The title as the reader reads it, where it differs.
    let title = title(view, None);
    if title != self::title(shared, None) {
        let _ = write!(
            out,
            "<rect width=\"{width}\" height=\"{HEADER}\" fill=\"{PAGE}\"/>"
        );
        header(&mut out, view, None);
    }
    // The reader's own line of the legend, as they read it.
    if let Some(i) = view.players.iter().position(|pl| pl.seat == me.seat) {
        let y = legend + i as i32 * PLAYER_ROW;
        let _ = write!(
            out,
            "<rect y=\"{y}\" width=\"{width}\" height=\"{PLAYER_ROW}\" fill=\"{PAGE}\"/>"
        );
        player(&mut out, view, board, me, y, false);
    }
    your_key(&mut out, legend + view.players.len() as i32 * PLAYER_ROW);
    Some(out)
}

/// A square of the reader's shortest way, `size` wide from `(x, y)`:
/// faint, so the board stays readable under it.
fn way_square(x: i32, y: i32, size: i32) -> String {
    format!(
        "<rect x=\"{x}\" y=\"{y}\" width=\"{size}\" height=\"{size}\" rx=\"3\" \
         fill=\"{YOUR_STOP}\" fill-opacity=\"0.3\" stroke=\"{YOUR_STOP}\" \
         stroke-width=\"2\" stroke-dasharray=\"4 3\"/>"
    )
}

/// Where things go: the board's top-left corner and its size in squares.
struct Pen {
    x0: i32,
    y0: i32,
    rows: i32,
    cols: i32,
}

impl Pen {
    /// A square's top-left corner.
    fn corner(&self, s: Square) -> (i32, i32) {
        (
            self.x0 + i32::from(s.col) * CELL,
            self.y0 + i32::from(s.row) * CELL,
        )
    }

    /// A square's centre.
    fn centre(&self, s: Square) -> (i32, i32) {
        let (x, y) = self.corner(s);
        (x + HALF, y + HALF)
    }

    fn right(&self) -> i32 {
        self.x0 + self.cols * CELL
    }

    fn bottom(&self) -> i32 {
        self.y0 + self.rows * CELL
    }
}

/// Paths as an XML id: `NS-SW` for `NS+SW`.
struct PathsId(Paths);

impl std::fmt::Display for PathsId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (a, b)) in self.0.pairs().enumerate() {
            if i > 0 {
                f.write_str("-")?;
            }
            write!(f, "{a}{b}")?;
        }
        Ok(())
    }
}

// `path_data` is written for squares of 44 pixels.
const _: () = assert!(CELL == 44);

/// One path of a tile as SVG path data, in the tile's own coordinates: a
/// straight through the middle, or a quarter circle round the corner
/// between its two ends.
fn path_data(a: Edge, b: Edge) -> &'static str {
    match (a, b) {
        (Edge::N, Edge::S) | (Edge::S, Edge::N) => "M22 0V44",
        (Edge::W, Edge::E) | (Edge::E, Edge::W) => "M0 22H44",
        (Edge::N, Edge::E) | (Edge::E, Edge::N) => "M22 0A22 22 0 0 0 44 22",
        (Edge::N, Edge::W) | (Edge::W, Edge::N) => "M22 0A22 22 0 0 1 0 22",
        (Edge::S, Edge::E) | (Edge::E, Edge::S) => "M22 44A22 22 0 0 1 44 22",
        _ => "M22 44A22 22 0 0 0 0 22",
    }
}

/// A kind of tile as it lies: its plate, a hedge if it has trees, and its
/// track, dark bed first and the light rails on top, so that where paths
/// meet the rails run through.
fn tile_svg(paths: Paths, trees: bool) -> String {
    let mut out = String::with_capacity(400);
    let _ = write!(
        out,
        "<rect x=\"1\" y=\"1\" width=\"42\" height=\"42\" rx=\"3\" fill=\"{TILE}\" \
         stroke=\"{TILE_EDGE}\"/>"
    );
    if trees {
        // Trees along the kerb: a ring of green dots inside the border.
        let _ = write!(
            out,
            "<rect x=\"5\" y=\"5\" width=\"34\" height=\"34\" rx=\"2\" fill=\"none\" \
             stroke=\"{HEDGE}\" stroke-width=\"4\" stroke-linecap=\"round\" \
             stroke-dasharray=\"1 5\"/>"
        );
    }
    let mut d = String::with_capacity(64);
    for (a, b) in paths.pairs() {
        d.push_str(path_data(a, b));
    }
    let _ = write!(
        out,
        "<path d=\"{d}\" fill=\"none\" stroke=\"{TRACK}\" stroke-width=\"9\"/>\
         <path d=\"{d}\" fill=\"none\" stroke=\"{RAIL}\" stroke-width=\"2\"/>"
    );
    out
}

/// The title line: whose turn and what for, or how the game ended.
fn header(out: &mut String, view: &View, stopped: Option<&str>) {
    let _ = writeln!(
        out,
        "<text x=\"{PAD}\" y=\"21\" font-size=\"15\" font-weight=\"bold\" fill=\"{INK}\">{}</text>",
        text(&title(view, stopped))
    );
}

/// The title's words, at most 80 characters.
fn title(view: &View, stopped: Option<&str>) -> String {
    let mut line = match (&view.result, stopped) {
        (None, Some(how)) => format!("Game over: {how}."),
        (Some(r), _) => {
            let mut s = format!("Game over: {}.", r.reason);
            if let Some(w) = &r.winner {
                if view.viewer.as_deref() == Some(w.as_str()) {
                    s.push_str(" You win.");
                } else {
                    let _ = write!(s, " {} wins.", name(w));
                }
            }
            s
        }
        (None, None) => {
            let mut s = format!("Linie 1 · turn {}", view.turn);
            for a in &view.awaiting {
                let _ = write!(s, " · {}: {}", name_of(view, &a.player), a.what);
            }
            // How far a tram may go: the die (variants 1, 2) or the main rule
            // (rulings 6), once someone drives.
            if let Some(r) = view.roll {
                let _ = write!(s, " · die {r}");
            } else if let (true, Some(m)) = (view.players.iter().any(|p| p.driving), view.max_move)
            {
                let _ = write!(s, " · trams go up to {m}");
            }
            s
        }
    };
    if line.chars().count() > 80 {
        line = line.chars().take(79).chain(['…']).collect();
    }
    line
}

/// The board's ground, its grid and its frame.
fn ground(out: &mut String, p: &Pen) {
    let (w, h) = (p.cols * CELL, p.rows * CELL);
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{h}\" fill=\"{GROUND}\"/>",
        p.x0, p.y0
    );
    let mut d = String::with_capacity(32 * (p.rows + p.cols) as usize);
    for c in 1..p.cols {
        let _ = write!(d, "M{} {}v{h}", p.x0 + c * CELL, p.y0);
    }
    for r in 1..p.rows {
        let _ = write!(d, "M{} {}h{w}", p.x0, p.y0 + r * CELL);
    }
    let _ = writeln!(
        out,
        "<path d=\"{d}\" stroke=\"{GRID}\" fill=\"none\"/>\n\
         <rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{h}\" fill=\"none\" stroke=\"{FRAME}\" \
         stroke-width=\"2\"/>",
        p.x0, p.y0
    );
}

/// The buildings, with their letters.
fn buildings(out: &mut String, p: &Pen, board: &Components) {
    for b in &board.buildings {
        let (x, y) = p.corner(b.square);
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"36\" height=\"36\" rx=\"4\" fill=\"{BUILDING}\"/>\
             <text x=\"{}\" y=\"{}\" font-size=\"20\" font-weight=\"bold\" fill=\"#fff\" \
             text-anchor=\"middle\">{}</text>",
            x + 4,
            y + 4,
            x + HALF,
            y + HALF + 7,
            b.letter
        );
    }
}

/// The stop signs: a ringed disc with the building's letter, in the tile's
/// corner on the building's side.
fn stop_signs(out: &mut String, p: &Pen, board: &Components, view: &View) {
    for sign in &view.stop_signs {
        let Some(s) = Square::parse(&sign.square).filter(|s| board.contains(*s)) else {
            continue;
        };
        let towards = board
            .building_by_letter(sign.building)
            .map(|b| board.building(b).square)
            .and_then(|b| Edge::ALL.into_iter().find(|e| board.step(s, *e) == Some(b)));
        let (x, y) = p.corner(s);
        // N: top left, E: top right, S: bottom right, W: bottom left, so two
        // signs on one tile never share a corner.
        let (cx, cy) = match towards {
            Some(Edge::E) => (x + CELL - 10, y + 10),
            Some(Edge::S) => (x + CELL - 10, y + CELL - 10),
            Some(Edge::W) => (x + 10, y + CELL - 10),
            _ => (x + 10, y + 10),
        };
        let _ = writeln!(
            out,
            "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"9\" fill=\"#fff\" stroke=\"{SIGN}\" \
             stroke-width=\"2.5\"/><text x=\"{cx}\" y=\"{}\" font-size=\"11\" font-weight=\"bold\" \
             fill=\"{INK}\" text-anchor=\"middle\">{}</text>",
            cy + 4,
            text_char(sign.building)
        );
    }
}

/// A terminal's loop on the board's margin: where its two legs leave the
/// board (`a`, `b`), the way out, and the half circle joining them.
struct Loop {
    a: (i32, i32),
    b: (i32, i32),
    out: (i32, i32),
    radius: i32,
}

/// How far the legs run straight out before the loop turns.
const LEG: i32 = 10;

impl Loop {
    fn new(p: &Pen, side: Edge, legs: [Square; 2]) -> Loop {
        let end = |s: Square| {
            let (cx, cy) = p.centre(s);
            match side {
                Edge::N => (cx, p.y0),
                Edge::S => (cx, p.bottom()),
                Edge::W => (p.x0, cy),
                Edge::E => (p.right(), cy),
            }
        };
        let out = match side {
            Edge::N => (0, -1),
            Edge::S => (0, 1),
            Edge::W => (-1, 0),
            Edge::E => (1, 0),
        };
        let (a, b) = (end(legs[0]), end(legs[1]));
        let radius = ((b.0 - a.0).abs() + (b.1 - a.1).abs()) / 2;
        Loop { a, b, out, radius }
    }

    /// Between the legs, `by` pixels out from the board.
    fn out_by(&self, by: i32) -> (i32, i32) {
        (
            (self.a.0 + self.b.0) / 2 + self.out.0 * by,
            (self.a.1 + self.b.1) / 2 + self.out.1 * by,
        )
    }

    /// Just past the loop's far point: where a tram inside the terminal
    /// is drawn.
    fn top(&self) -> (i32, i32) {
        self.out_by(LEG + self.radius + 2)
    }

    /// The loop in `colour` with the line's `number` in a disc between the
    /// legs.
    fn draw(&self, out: &mut String, colour: &str, number: u8) {
        let (a, (ox, oy)) = (self.a, self.out);
        let (vx, vy) = (self.b.0 - a.0, self.b.1 - a.1);
        // Clockwise on the screen when the way out is to the left of a → b.
        let sweep = i32::from(vx * oy - vy * ox < 0);
        let r = self.radius;
        let _ = writeln!(
            out,
            "<path d=\"M{} {}l{} {}a{r} {r} 0 0 {sweep} {vx} {vy}l{} {}\" fill=\"none\" \
             stroke=\"{colour}\" stroke-width=\"7\"/>",
            a.0,
            a.1,
            ox * LEG,
            oy * LEG,
            -ox * LEG,
            -oy * LEG
        );
        let (bx, by) = self.out_by(13);
        let _ = writeln!(
            out,
            "<circle cx=\"{bx}\" cy=\"{by}\" r=\"{BADGE_R}\" fill=\"{colour}\"/><text x=\"{bx}\" \
             y=\"{}\" font-size=\"13\" font-weight=\"bold\" fill=\"#fff\" \
             text-anchor=\"middle\">{number}</text>",
            by + 5
        );
    }
}

/// Every terminal of the board, in its line's colour.
fn terminals(out: &mut String, p: &Pen, board: &Components) {
    for t in &board.terminals {
        if let Some(line) = board.lines.get(t.line.index()) {
            Loop::new(p, t.side, t.legs).draw(out, css_colour(&line.colour), line.number);
        }
    }
}

/// The trams: each a box in its line's colour with its line number, on its
/// square's track or at the far end of the terminal loop it stands in
/// (upright beside the board's east and west edges, clear of the loop's own
/// number and the row labels); several in one place side by side.
fn trams(out: &mut String, p: &Pen, board: &Components, view: &View) {
    let mut at: Vec<Tram> = Vec::new();
    for pl in &view.players {
        let Some(place) = pl.trip.as_ref().and_then(|t| t.tram.as_deref()) else {
            continue;
        };
        let (spot, upright) = match Square::parse(place).filter(|s| board.contains(*s)) {
            Some(s) => (p.centre(s), false),
            None => match board.terminals.iter().find(|t| t.name == place) {
                Some(t) => (
                    Loop::new(p, t.side, t.legs).top(),
                    matches!(t.side, Edge::E | Edge::W),
                ),
                None => continue,
            },
        };
        let (number, colour) = line_of(pl, board);
        at.push(Tram {
            spot,
            upright,
            number,
            colour,
        });
    }
    for (i, t) in at.iter().enumerate() {
        let (x, y) = t.spot;
        let here = |j: &usize| at[*j].spot == t.spot;
        let k = (0..i).filter(here).count() as i32;
        let n = (0..at.len()).filter(here).count() as i32;
        let shift = k * 14 - (n - 1) * 7;
        let label: Cow<'_, str> = t.number.map_or("?".into(), |n| n.to_string().into());
        if t.upright {
            tram_box(out, (x, y + shift), (TRAM_H, TRAM_W), t.colour, &label);
        } else {
            tram_box(out, (x + shift, y), (TRAM_W, TRAM_H), t.colour, &label);
        }
    }
}

/// A tram to draw.
struct Tram {
    /// Its centre.
    spot: (i32, i32),
    /// Standing in a terminal beside the east or west edge.
    upright: bool,
    /// Its line, where the view shows it.
    number: Option<u8>,
    colour: &'static str,
}

/// A tram: a rounded box of `size` with its line number, centred on `at`.
fn tram_box(out: &mut String, at: (i32, i32), size: (i32, i32), colour: &str, label: &str) {
    let ((x, y), (w, h)) = (at, size);
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{h}\" rx=\"5\" fill=\"{colour}\" \
         stroke=\"#fff\" stroke-width=\"2\"/><text x=\"{x}\" y=\"{}\" font-size=\"14\" \
         font-weight=\"bold\" fill=\"#fff\" text-anchor=\"middle\">{label}</text>",
        x - w / 2,
        y - h / 2,
        y + 5
    );
}

/// Column letters above and below the board, row numbers on both sides, as
/// players write squares (`C4`).
fn labels(out: &mut String, p: &Pen) {
    let _ = write!(
        out,
        "<g font-size=\"12\" fill=\"{MUTED}\" text-anchor=\"middle\">"
    );
    for c in 0..p.cols {
        let x = p.x0 + c * CELL + HALF;
        let letter = char::from(b'A' + c as u8);
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"{}\">{letter}</text><text x=\"{x}\" y=\"{}\">{letter}</text>",
            p.y0 - 50,
            p.bottom() + 58
        );
    }
    for r in 0..p.rows {
        let y = p.y0 + r * CELL + HALF + 4;
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{y}\">{}</text><text x=\"{}\" y=\"{y}\">{}</text>",
            p.x0 - 52,
            r + 1,
            p.right() + 52,
            r + 1
        );
    }
    out.push_str("</g>\n");
}

/// The players, from `top`: their tram's look, name, and the cards the
/// view shows.
fn players(out: &mut String, view: &View, board: &Components, top: i32, stopped: bool) {
    for (i, pl) in view.players.iter().enumerate() {
        player(out, view, board, pl, top + i as i32 * PLAYER_ROW, stopped);
    }
}

/// One player's entry in the legend, from `y`: their tram's look, name,
/// and the cards the view shows.
fn player(
    out: &mut String,
    view: &View,
    board: &Components,
    pl: &PlayerView,
    y: i32,
    stopped: bool,
) {
    let (number, colour) = line_of(pl, board);
    let label: Cow<'_, str> = match number {
        Some(n) => n.to_string().into(),
        None => "?".into(),
    };
    let active =
        view.result.is_none() && !stopped && view.awaiting.iter().any(|a| a.player == pl.name);
    if active {
        let _ = write!(
            out,
            "<path d=\"M{PAD} {}l8 5-8 5z\" fill=\"{INK}\"/>",
            y + 9
        );
    }
    tram_box(out, (PAD + 26, y + 14), (TRAM_W, TRAM_H), colour, &label);
    let me = view.viewer_seat == Some(pl.seat);
    let mut first = name(&pl.name).into_owned();
    if me {
        first.push_str(" (you)");
    }
    let won = view
        .result
        .as_ref()
        .and_then(|r| r.winner.as_ref())
        .is_some_and(|w| *w == pl.name);
    let mut rest = match number {
        Some(n) => format!(
            "line {n} ({})",
            board
                .lines
                .get(usize::from(n).wrapping_sub(1))
                .map_or("", |l| l.colour.as_str())
        ),
        None => "line secret".to_string(),
    };
    if won {
        rest.push_str(" · winner");
    } else if active {
        rest.push_str(" · to play");
    }
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" font-size=\"14\" fill=\"{INK}\"><tspan font-weight=\"bold\">{}</tspan> · {}</text>",
        PAD + 46,
        y + 15,
        text(&first),
        text(&rest)
    );
    let details = player_details(view, pl, me);
    if !details.is_empty() {
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{MUTED}\">{}</text>",
            PAD + 46,
            y + 31,
            text(&details)
        );
    }
}

/// The key below the players, from `y`: one sample of each symbol and what
/// it is.
fn key(out: &mut String, mut y: i32, width: i32) {
    let _ = writeln!(
        out,
        "<path d=\"M{PAD} {}h{}\" stroke=\"{GRID}\"/>",
        y + 2,
        width - 2 * PAD
    );
    y += 8;
    let mid = y + KEY_ROW / 2;
    let mut x = PAD;
    let _ = write!(
        out,
        "<rect x=\"{x}\" y=\"{}\" width=\"18\" height=\"18\" rx=\"3\" fill=\"{BUILDING}\"/>\
         <text x=\"{}\" y=\"{}\" font-size=\"12\" font-weight=\"bold\" fill=\"#fff\" text-anchor=\"middle\">A</text>",
        mid - 9,
        x + 9,
        mid + 4
    );
    x = key_text(out, x + 24, mid, "building A");
    let _ = write!(
        out,
        "<circle cx=\"{}\" cy=\"{mid}\" r=\"9\" fill=\"#fff\" stroke=\"{SIGN}\" stroke-width=\"2.5\"/>\
         <text x=\"{}\" y=\"{}\" font-size=\"11\" font-weight=\"bold\" fill=\"{INK}\" text-anchor=\"middle\">A</text>",
        x + 9,
        x + 9,
        mid + 4
    );
    x = key_text(out, x + 24, mid, "its stop sign");
    tram_box(out, (x + TRAM_W / 2, mid), (TRAM_W, TRAM_H), TRACK, "3");
    x = key_text(out, x + TRAM_W + 6, mid, "tram of line 3");
    let _ = write!(
        out,
        "<circle cx=\"{}\" cy=\"{mid}\" r=\"{BADGE_R}\" fill=\"{TRACK}\"/><text x=\"{}\" y=\"{}\" \
         font-size=\"13\" font-weight=\"bold\" fill=\"#fff\" text-anchor=\"middle\">3</text>",
        x + BADGE_R,
        x + BADGE_R,
        mid + 5
    );
    key_text(out, x + 2 * BADGE_R + 6, mid, "terminal of line 3");
    let mid = mid + KEY_ROW;
    let _ = write!(
        out,
        "<rect x=\"{PAD}\" y=\"{}\" width=\"20\" height=\"20\" rx=\"2\" fill=\"{TILE}\" \
         stroke=\"{HEDGE}\" stroke-width=\"4\" stroke-linecap=\"round\" stroke-dasharray=\"1 5\"/>",
        mid - 10
    );
    key_text(out, PAD + 26, mid, TREES_WORDS);
    out.push('\n');
}

/// The key's words for trees, the last on its second row.
const TREES_WORDS: &str = "trees: never exchanged";

/// The key's entries for the reader's own marks, on its second row after
/// the trees, the key beginning at `y` (as [`key`]'s).
fn your_key(out: &mut String, y: i32) {
    let mid = y + 8 + KEY_ROW + KEY_ROW / 2;
    let x = PAD + 26 + TREES_WORDS.len() as i32 * 7 + 14;
    let _ = write!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"18\" height=\"18\" rx=\"3\" fill=\"{BUILDING}\"/>\
         <rect x=\"{}\" y=\"{}\" width=\"20\" height=\"20\" rx=\"4\" fill=\"none\"{YOUR_RING}/>",
        x + 1,
        mid - 9,
        x,
        mid - 10
    );
    let x = key_text(out, x + 26, mid, "your stops and terminals");
    out.push_str(&way_square(x, mid - 10, 20));
    key_text(out, x + 26, mid, "a shortest way to fill");
    out.push('\n');
}

/// A key entry's words after its symbol; returns where the next begins.
fn key_text(out: &mut String, x: i32, mid: i32, words: &str) -> i32 {
    let _ = write!(
        out,
        "<text x=\"{x}\" y=\"{}\" font-size=\"12\" fill=\"{INK}\">{words}</text>",
        mid + 4
    );
    // DejaVu Sans at 12 px: about 7 px a character.
    x + words.len() as i32 * 7 + 14
}

/// The second line of a player's legend entry: their route card where the
/// view shows it, and their trip.
fn player_details(view: &View, pl: &PlayerView, me: bool) -> String {
    let ordered = view.options.iter().any(|o| o == "ordered_stops");
    let mut parts: Vec<String> = Vec::new();
    if let (Some(card), Some(stops)) = (&pl.route_card, &pl.stops) {
        let mut s = format!("route card {card}: stops");
        for c in stops {
            s.push(' ');
            s.push(*c);
        }
        if ordered && stops.len() >= 3 {
            s.push_str(" in this order");
        }
        if me && !pl.driving {
            s.push_str(" (secret until your trip)");
        }
        parts.push(s);
    }
    if let Some(trip) = &pl.trip {
        let mut s = match &trip.tram {
            Some(at) => format!("tram on {at}, {} to {}", trip.from, trip.to),
            None => "tram off the board, starts again".to_string(),
        };
        if !trip.stopped.is_empty() {
            s.push_str(", stopped at");
            for c in &trip.stopped {
                s.push(' ');
                s.push(*c);
            }
        }
        parts.push(s);
    } else if let (true, Some(route)) = (me, &view.route) {
        // The reader's own route, as far as it is built (issue 35).
        parts.push(match (route.complete, route.missing) {
            (true, _) => "your route is complete: start your trip".to_string(),
            (false, Some(0)) => "your track joins every stop, but not as a trip".to_string(),
            (false, Some(n)) => format!("{} to fill", counted(n as usize, "square")),
            (false, None) => "no way open to finish your route".to_string(),
        });
    } else if !pl.driving {
        parts.push(format!(
            "laying track · {} in hand",
            counted(pl.hand.len(), "tile")
        ));
    }
    parts.join(" · ")
}

/// The reader's own entry, if the reader plays.
fn reader(view: &View) -> Option<&PlayerView> {
    view.viewer_seat
        .and_then(|s| view.players.iter().find(|p| p.seat == s))
}

/// A player's line number and colour where the view shows them.
fn line_of(pl: &PlayerView, board: &Components) -> (Option<u8>, &'static str) {
    match pl.line {
        Some(n) => (
            Some(n),
            board
                .lines
                .get(usize::from(n).wrapping_sub(1))
                .map_or(HIDDEN, |l| css_colour(&l.colour)),
        ),
        None => (None, HIDDEN),
    }
}

/// A player's name as printed, "you" for the reader.
fn name_of<'a>(view: &View, who: &'a str) -> Cow<'a, str> {
    if view.viewer.as_deref() == Some(who) {
        "you".into()
    } else {
        name(who)
    }
}

/// A name cut to [`NAME_CHARS`].
fn name(who: &str) -> Cow<'_, str> {
    if who.chars().count() > NAME_CHARS {
        who.chars()
            .take(NAME_CHARS - 1)
            .chain(['…'])
            .collect::<String>()
            .into()
    } else {
        who.into()
    }
}

/// Text for an SVG text element: escaped, and without the control
/// characters XML does not allow.
fn text(s: &str) -> String {
    if s.chars().any(char::is_control) {
        let clean: String = s
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        escape_html(&clean)
    } else {
        escape_html(s)
    }
}

/// A single letter as text.
fn text_char(c: char) -> String {
    let mut buf = [0u8; 4];
    text(c.encode_utf8(&mut buf))
}
