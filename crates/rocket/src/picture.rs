//! The board as a picture (SVG), for the top of a report, the archive page
//! and `show --svg`: the same board the ASCII map draws (`render.rs`), in
//! the same colours, and nothing the map does not show.
//!
//! Pointy-top hexes in the board's "odd-r" layout (rows 2, 4, … half a hex
//! east). Every colour is doubled by a shape or a label for colour-blind
//! readers: locomotives and starting towns carry their line's two-letter
//! code, each line's track its own white pattern, stations their player's
//! letter, the hexes of the last change a dashed outline.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::board::{Board, Good, LineId, PlaceKind, Terrain};
use super::event::Event;
use super::hex::{Dir, Hex};
use super::render::{PLACE, SEA, STATION_COLOURS, WALES, line_codes, station_letter};
use super::view::View;
use engine::Seat;
use engine::canvas::{css_colour, escape_html};
use engine::picture::{Layer, Picture};

/// A hex's circumradius, in the picture's units (pixels at scale 1).
const R: f64 = 20.0;
/// Margins: west of the grid (row numbers), north of it (column letters).
const LEFT: f64 = 32.0;
const TOP: f64 = 24.0;
/// The picture's width; the legend is below the grid.
const WIDTH: f64 = 600.0;
/// The height of one row of the legend.
const LEGEND_ROW: f64 = 22.0;

const LAND: &str = "#efe8cf";
const LAND_EDGE: &str = "#c9bf9d";
const SEA_FILL: &str = "#b9d4ee";
const WALES_FILL: &str = "#cfcfcf";
/// The white halo behind labels, so they read over track and hex edges.
const HALO: &str =
    "stroke=\"#ffffff\" stroke-width=\"2.5\" stroke-linejoin=\"round\" paint-order=\"stroke\"";

/// The white pattern drawn along each line's track (by the line's index),
/// so lines differ by more than their hue. `None`: plain.
const TRACK_PATTERNS: [Option<&str>; 7] = [
    None,
    Some("1.5 2.5"),
    Some("5 3"),
    Some("5 2 1.5 2"),
    Some("none"),
    Some("10 3"),
    Some("1.5 2 1.5 6"),
];

fn width() -> f64 {
    R * 3f64.sqrt()
}

/// The centre of `hex`.
fn centre(hex: Hex) -> (f64, f64) {
    let w = width();
    let shift = if hex.row % 2 == 1 { w / 2.0 } else { 0.0 };
    (
        LEFT + w / 2.0 + f64::from(hex.col) * w + shift,
        TOP + R + f64::from(hex.row) * 1.5 * R,
    )
}

/// The angle of direction `d`, in degrees clockwise from east (y grows
/// southwards, as in SVG).
fn angle(d: Dir) -> f64 {
    match d {
        Dir::E => 0.0,
        Dir::SE => 60.0,
        Dir::SW => 120.0,
        Dir::W => 180.0,
        Dir::NW => 240.0,
        Dir::NE => 300.0,
    }
}

/// The middle of the side of the hex at `(x, y)` towards `d`.
fn side(x: f64, y: f64, d: Dir) -> (f64, f64) {
    let a = angle(d).to_radians();
    let h = width() / 2.0;
    (x + h * a.cos(), y + h * a.sin())
}

/// The corners of a hex of circumradius `r` around `(x, y)`, as SVG points.
fn corners(x: f64, y: f64, r: f64) -> String {
    let mut out = String::with_capacity(64);
    for k in 0..6 {
        let a = (30.0 + 60.0 * f64::from(k)).to_radians();
        let _ = write!(
            out,
            "{},{} ",
            Tenths(x + r * a.cos()),
            Tenths(y + r * a.sin())
        );
    }
    out.pop();
    out
}

/// A coordinate to one decimal, as `{:.1}` writes it but for a half,
/// which goes up: written from whole tenths, since exact float formatting
/// was a tenth of a picture's time (some 3,400 numbers a board: 285
/// hexes' corners).
struct Tenths(f64);

impl std::fmt::Display for Tenths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tenths = (self.0 * 10.0).round() as i64;
        let sign = if tenths < 0 { "-" } else { "" };
        let tenths = tenths.unsigned_abs();
        write!(f, "{sign}{}.{}", tenths / 10, tenths % 10)
    }
}

/// The hexes the events of the last change touched: where locomotives
/// went from and to, track laid, stations placed or moved, tokens taken.
fn touched(b: &Board, last: &[Event]) -> BTreeSet<Hex> {
    let mut out = BTreeSet::new();
    for e in last {
        match e {
            Event::LocomotiveMoved { from, to, .. } | Event::StationMoved { from, to, .. } => {
                out.insert(*from);
                out.insert(*to);
            }
            Event::StationPlaced { hex, .. }
            | Event::TrackLaid { hex, .. }
            | Event::VetoWon { hex, .. }
            | Event::PassengerTaken { hex, .. }
            | Event::Merged { hex, .. } => {
                out.insert(*hex);
            }
            Event::TokenTaken { city, .. } => {
                out.insert(b.place(*city).hex);
            }
            _ => {}
        }
    }
    out
}

/// Text at `(x, y)`, centred, over a white halo.
fn label(out: &mut String, x: f64, y: f64, size: f64, colour: &str, text: &str) {
    anchored_label(out, (x, y), "middle", size, colour, text);
}

/// Text over a white halo, anchored at `at` by its `anchor` (`start`,
/// `middle` or `end`).
fn anchored_label(
    out: &mut String,
    (x, y): (f64, f64),
    anchor: &str,
    size: f64,
    colour: &str,
    text: &str,
) {
    let _ = writeln!(
        out,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\" fill=\"{colour}\" text-anchor=\"{anchor}\" {HALO}>{}</text>",
        escape_html(text)
    );
}

/// Where the name of the place on `hex` goes, `dy` below its centre: under
/// it, or, where a place lies beside it in its row (Northampton and
/// Bedford), pushed away from that one, so the two names never run into
/// each other.
fn name_at(b: &Board, hex: Hex, dy: f64) -> ((f64, f64), &'static str) {
    let (x, y) = centre(hex);
    let beside = |d: Dir| {
        hex.step(d, b.columns, b.rows)
            .is_some_and(|h| matches!(b.terrain(h), Terrain::Place(_)))
    };
    match (beside(Dir::W), beside(Dir::E)) {
        (false, true) => ((x + R * 0.6, y + dy), "end"),
        (true, false) => ((x - R * 0.6, y + dy), "start"),
        _ => ((x, y + dy), "middle"),
    }
}

/// A locomotive of line `l` (code `code`) at `(x, y)`: an arrow pointing
/// the way it faces, or a plain plate on its starting town.
fn locomotive(out: &mut String, x: f64, y: f64, colour: &str, code: &str, facing: Option<Dir>) {
    match facing {
        Some(d) => {
            let _ = writeln!(
                out,
                "<path d=\"M-11,-7 H5 L13,0 L5,7 H-11 Z\" transform=\"translate({x:.1},{y:.1}) rotate({})\" fill=\"{colour}\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>",
                angle(d)
            );
        }
        None => {
            let _ = writeln!(
                out,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"24\" height=\"14\" rx=\"3\" fill=\"{colour}\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>",
                x - 12.0,
                y - 7.0
            );
        }
    }
    let _ = writeln!(
        out,
        "<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"8\" fill=\"#ffffff\" text-anchor=\"middle\">{}</text>",
        y + 3.0,
        escape_html(code)
    );
}

/// A station of `seat` at `(x, y)`: a square in the player's colour with
/// their letter.
fn station(out: &mut String, x: f64, y: f64, seat: Seat) {
    let colour = STATION_COLOURS[seat.index() % STATION_COLOURS.len()];
    let _ = writeln!(
        out,
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"11\" height=\"11\" fill=\"{colour}\" stroke=\"#ffffff\" stroke-width=\"1\"/><text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"8\" fill=\"#ffffff\" text-anchor=\"middle\">{}</text>",
        x - 5.5,
        y - 5.5,
        y + 3.0,
        station_letter(seat)
    );
}

/// A piece of track of pattern `k` from `(x1, y1)` to `(x2, y2)`, for the
/// legend.
fn track_sample(out: &mut String, x1: f64, y: f64, x2: f64, colour: &str, k: usize) {
    let d = format!("M{x1:.1},{y:.1} H{x2:.1}");
    track_path(out, &[d], colour, k);
}

/// Track along the paths `ds` (a tile's each) in `colour`, with line
/// pattern `k` over it: a line of SVG a path, so that a tile laid is
/// drawn alone (`engine::picture`), the pattern over all of the track.
fn track_path(out: &mut String, ds: &[String], colour: &str, k: usize) {
    for d in ds {
        let _ = writeln!(
            out,
            "<path d=\"{d}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"5\" stroke-linecap=\"round\"/>"
        );
    }
    if let Some(pattern) = TRACK_PATTERNS[k % TRACK_PATTERNS.len()] {
        let dash = if pattern == "none" {
            String::new()
        } else {
            format!(" stroke-dasharray=\"{pattern}\"")
        };
        for d in ds {
            let _ = writeln!(
                out,
                "<path d=\"{d}\" fill=\"none\" stroke=\"#ffffff\" stroke-width=\"1.3\"{dash}/>"
            );
        }
    }
}

/// The board `b` as a picture, drawn from the pieces on it as the reader
/// of `v` sees them (everyone sees them all: only money is private,
/// rulings 13, and the picture shows none), with the hexes `last` touched
/// marked. Four layers: the land and sea with the coordinates and the
/// legend's symbols (fixed), the track and goods left (changing), the
/// places and their names over the track (fixed), the stations,
/// locomotives, last change and the players (changing).
pub(super) fn board_picture(b: &Board, v: &View, last: &[Event]) -> Picture {
    let codes = line_codes(b);
    let colour = |l: LineId| css_colour(&b.line(l).colour);
    let legend_rows = 2 + b.lines.len().div_ceil(4) + v.players.len().div_ceil(4).max(1);
    let height = (grid_bottom(b) + 12.0 + legend_rows as f64 * LEGEND_ROW + 8.0).ceil();
    let fixed = fixed_layers(b);
    let stations_top = fixed.stations_top;
    let mut out = String::with_capacity(24 * 1024);

    // Track: a path a tile (a line of SVG each, so a tile laid is all a
    // picture draws again), from the side it was entered by to the side it
    // leaves by, curving through the centre.
    let mut track: Vec<Vec<String>> = vec![Vec::new(); b.lines.len()];
    let mut joints = String::new();
    for i in 0..b.hex_count() {
        let hex = b.hex_at(i);
        let cell = v.table.cell(b, hex);
        let Some(l) = cell.track else { continue };
        let (x, y) = centre(hex);
        match cell.tile {
            Some(tile) => {
                let (x1, y1) = side(x, y, tile.from);
                let (x2, y2) = side(x, y, tile.to);
                track[l.index()].push(format!("M{x1:.1},{y1:.1} Q{x:.1},{y:.1} {x2:.1},{y2:.1}"));
            }
            None => {
                let _ = writeln!(
                    joints,
                    "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"{}\"/>",
                    colour(l)
                );
            }
        }
    }
    for l in b.line_ids() {
        track_path(&mut out, &track[l.index()], colour(l), l.index());
    }
    out.push_str(&joints);

    // What changes at the places: starting towns' rings with their line's
    // code (until the locomotive leaves), and the goods cities have left
    // (the places' own marks and names are in the fixed layers).
    for (i, p) in b.places.iter().enumerate() {
        let (x, y) = centre(p.hex);
        match p.kind {
            PlaceKind::Start(l) => {
                if v.table.cell(b, p.hex).locomotive.is_none() {
                    let _ = writeln!(
                        out,
                        "<circle cx=\"{x:.1}\" cy=\"{:.1}\" r=\"9\" fill=\"#ffffff\" stroke=\"{}\" stroke-width=\"3\"/><text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"7\" fill=\"{}\" text-anchor=\"middle\">{}</text>",
                        y - 4.0,
                        colour(l),
                        y - 1.5,
                        colour(l),
                        escape_html(&codes[l.index()])
                    );
                }
            }
            PlaceKind::City(_) => {
                let left = v.table.city_tokens(super::PlaceId(i as u8));
                let goods: Vec<String> = Good::ALL
                    .iter()
                    .filter(|good| left[good.index()] > 0)
                    .map(|good| format!("{}{}", &good.name()[..2], left[good.index()]))
                    .collect();
                let goods = if goods.is_empty() {
                    "no goods".to_string()
                } else {
                    goods.join(" ")
                };
                label(&mut out, x, y + 15.5, 7.0, "#5d4037", &goods);
            }
            PlaceKind::Town => {}
        }
    }
    let track = Layer::changing(std::mem::take(&mut out));

    // Stations, then locomotives on top.
    for i in 0..b.hex_count() {
        let hex = b.hex_at(i);
        if let Some(s) = v.table.cell(b, hex).station {
            let (x, y) = centre(hex);
            station(&mut out, x + 8.0, y + 8.0, s);
        }
    }
    for l in b.line_ids() {
        let line = v.table.locomotive(l);
        if let Some(hex) = line.at {
            let (x, y) = centre(hex);
            let y = if line.facing.is_none() { y - 4.0 } else { y };
            locomotive(&mut out, x, y, colour(l), &codes[l.index()], line.facing);
        }
    }

    // The last change.
    for hex in touched(b, last) {
        let (x, y) = centre(hex);
        let _ = writeln!(
            out,
            "<polygon points=\"{}\" fill=\"none\" stroke=\"#111111\" stroke-width=\"2.5\" stroke-dasharray=\"4 3\"/>",
            corners(x, y, R - 2.0)
        );
    }

    legend_stations(v, stations_top, &mut out);
    Picture {
        width: WIDTH as u32,
        height: height as u32,
        head: String::new(),
        layers: vec![
            Layer::fixed(fixed.ground.clone()),
            track,
            Layer::fixed(fixed.places.clone()),
            Layer::changing(out),
        ],
    }
}

/// The layers of a board's picture that follow from the board alone: the
/// hexes, coordinates and the legend's symbols under the track, the
/// places and their names over it; and where the legend's players' row
/// goes.
struct Fixed {
    ground: String,
    places: String,
    stations_top: f64,
}

/// [`Fixed`] for `board`, drawn once a board: writing it, 285 hexes'
/// corners as text above all, was most of the SVG's cost and some a tenth
/// of a change's picture, every change, for the same text (the renderer
/// keeps its pixels already). A board is drawn under the lock, once: a
/// second thread with the same new board waits for it rather than drawing
/// it too.
fn fixed_layers(board: &Board) -> std::sync::Arc<Fixed> {
    use std::sync::{Arc, Mutex};
    /// The boards drawn lately (most games are on the embedded board).
    static DRAWN: Mutex<Vec<(Board, Arc<Fixed>)>> = Mutex::new(Vec::new());
    const KEPT: usize = 4;
    let mut drawn = DRAWN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(at) = drawn.iter().position(|(b, _)| b == board) {
        let found = drawn.remove(at);
        let fixed = found.1.clone();
        drawn.insert(0, found);
        return fixed;
    }
    let fixed = Arc::new(draw_fixed(board));
    drawn.insert(0, (board.clone(), fixed.clone()));
    drawn.truncate(KEPT);
    fixed
}

/// The bottom of the grid's last row of hexes, where the legend starts.
fn grid_bottom(b: &Board) -> f64 {
    TOP + 2.0 * R + (f64::from(b.rows) - 1.0) * 1.5 * R
}

/// [`Fixed`], drawn.
fn draw_fixed(b: &Board) -> Fixed {
    let codes = line_codes(b);
    let mut out = String::with_capacity(24 * 1024);
    // No background: white where rendered to PNG, the page's colour in a
    // browser (a full-size rectangle more was a sixth of a PNG's time).
    draw_terrain(b, &mut out);
    name_wales(b, &mut out);
    draw_coordinates(b, &mut out);
    let stations_top = legend_symbols(b, &codes, grid_bottom(b) + 12.0, &mut out);
    Fixed {
        ground: out,
        places: draw_places(b),
        stations_top,
    }
}

/// The hexes: land, sea and Wales, one path each (few elements render
/// fast), then the sea's waves and Wales's hatching.
fn draw_terrain(b: &Board, out: &mut String) {
    let mut paths = [String::new(), String::new(), String::new()];
    let mut marks = [String::new(), String::new()];
    for i in 0..b.hex_count() {
        let hex = b.hex_at(i);
        let (x, y) = centre(hex);
        let k = match b.terrain(hex) {
            Terrain::Sea => 1,
            Terrain::Wales => 2,
            Terrain::Land | Terrain::Place(_) => 0,
        };
        let _ = write!(paths[k], "M{}Z", corners(x, y, R));
        match k {
            1 => {
                let _ = write!(marks[0], "M{:.1},{:.1} q3,-3 6,0 t6,0", x - 6.0, y);
            }
            2 => {
                let _ = write!(
                    marks[1],
                    "M{:.1},{:.1} l10,-10 M{:.1},{:.1} l10,-10",
                    x - 10.0,
                    y + 5.0,
                    x - 3.0,
                    y + 8.0
                );
            }
            _ => {}
        }
    }
    for (d, fill) in paths.iter().zip([LAND, SEA_FILL, WALES_FILL]) {
        let _ = writeln!(
            out,
            "<path d=\"{d}\" fill=\"{fill}\" stroke=\"{LAND_EDGE}\" stroke-width=\"0.8\"/>"
        );
    }
    let _ = writeln!(
        out,
        "<path d=\"{}\" fill=\"none\" stroke=\"{SEA}\" stroke-width=\"1.2\"/>",
        marks[0]
    );
    let _ = writeln!(
        out,
        "<path d=\"{}\" fill=\"none\" stroke=\"{WALES}\" stroke-width=\"1.2\"/>",
        marks[1]
    );
}

/// Wales's name, once, over its hexes.
fn name_wales(b: &Board, out: &mut String) {
    let wales: Vec<(f64, f64)> = (0..b.hex_count())
        .map(|i| b.hex_at(i))
        .filter(|h| b.terrain(*h) == Terrain::Wales)
        .map(centre)
        .collect();
    if !wales.is_empty() {
        let n = wales.len() as f64;
        let (x, y) = wales
            .iter()
            .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
        label(out, x, y, 10.0, "#424242", "Wales");
    }
}

/// Coordinates: column letters above, row numbers to the west.
fn draw_coordinates(b: &Board, out: &mut String) {
    for c in 0..b.columns {
        let (x, _) = centre(Hex::new(c, 0));
        let _ = writeln!(
            out,
            "<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"9\" fill=\"#616161\" text-anchor=\"middle\">{}</text>",
            TOP - 6.0,
            (b'A' + c) as char
        );
    }
    for r in 0..b.rows {
        let (_, y) = centre(Hex::new(0, r));
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" fill=\"#616161\" text-anchor=\"end\">{}</text>",
            LEFT - 4.0,
            y + 3.0,
            r + 1
        );
    }
}

/// The places, drawn over the track: starting towns (their rings are
/// drawn with the track while the locomotive has not left), cities as
/// squares, railway towns as small rings, and all their names.
fn draw_places(b: &Board) -> String {
    let mut places = String::with_capacity(8 * 1024);
    for p in &b.places {
        let (x, y) = centre(p.hex);
        match p.kind {
            PlaceKind::Start(_) => {
                let (at, anchor) = name_at(b, p.hex, 13.0);
                anchored_label(&mut places, at, anchor, 8.5, PLACE, &p.name);
            }
            PlaceKind::City(_) => {
                let _ = writeln!(
                    places,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{PLACE}\"/>",
                    x - 6.0,
                    y - 12.0
                );
                let (at, anchor) = name_at(b, p.hex, 7.0);
                anchored_label(&mut places, at, anchor, 8.5, PLACE, &p.name);
            }
            PlaceKind::Town => {
                let _ = writeln!(
                    places,
                    "<circle cx=\"{x:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"#ffffff\" stroke=\"{PLACE}\" stroke-width=\"2\"/>",
                    y - 4.0
                );
                let (at, anchor) = name_at(b, p.hex, 10.0);
                anchored_label(&mut places, at, anchor, 8.5, PLACE, &p.name);
            }
        }
    }
    places
}

/// The legend's column `k` (four items a row).
fn legend_column(k: usize) -> f64 {
    16.0 + (k % 4) as f64 * 146.0
}

/// A legend item's words, beside its symbol at `(x, y)`.
fn legend_text(out: &mut String, x: f64, y: f64, what: &str) {
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" fill=\"#212121\">{}</text>",
        x + 22.0,
        y + 3.0,
        escape_html(what)
    );
}

/// The legend below the grid, four items a row: the symbols and the lines
/// (code, id, track), the same for every game on the board. Returns where
/// the players' row goes ([`legend_stations`]).
fn legend_symbols(b: &Board, codes: &[String], top: f64, out: &mut String) -> f64 {
    let column = legend_column;
    let text = legend_text;
    let mut y = top + LEGEND_ROW / 2.0;
    let swatch = |out: &mut String, x: f64, y: f64, fill: &str, marks: &str, what: &str| {
        let _ = writeln!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"16\" height=\"12\" fill=\"{fill}\" stroke=\"{LAND_EDGE}\"/>{marks}",
            x,
            y - 6.0
        );
        text(out, x, y, what);
    };
    // Row 1: places and Wales.
    let first = b.lines.first().map_or(PLACE, |l| css_colour(&l.colour));
    let x = column(0);
    let _ = writeln!(
        out,
        "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"7\" fill=\"#ffffff\" stroke=\"{first}\" stroke-width=\"2.5\"/>",
        x + 8.0
    );
    text(out, x, y, "starting town");
    let x = column(1);
    let _ = writeln!(
        out,
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{PLACE}\"/>",
        x + 2.0,
        y - 6.0
    );
    text(out, x, y, "city, goods left");
    let x = column(2);
    let _ = writeln!(
        out,
        "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"5\" fill=\"#ffffff\" stroke=\"{PLACE}\" stroke-width=\"2\"/>",
        x + 8.0
    );
    text(out, x, y, "railway town");
    let x = column(3);
    let hatch = format!(
        "<path d=\"M{:.1},{:.1} l8,-8 M{:.1},{:.1} l8,-8\" stroke=\"{WALES}\" stroke-width=\"1.2\"/>",
        x + 2.0,
        y + 5.0,
        x + 8.0,
        y + 5.0
    );
    swatch(out, x, y, WALES_FILL, &hatch, "Wales (not played)");
    // Row 2: land, sea, a locomotive, the last change.
    y += LEGEND_ROW;
    swatch(out, column(0), y, LAND, "", "land");
    let x = column(1);
    let waves = format!(
        "<path d=\"M{:.1},{y:.1} q3,-3 6,0 t6,0\" fill=\"none\" stroke=\"{SEA}\" stroke-width=\"1.2\"/>",
        x + 2.0
    );
    swatch(out, x, y, SEA_FILL, &waves, "sea");
    let x = column(2);
    let example = b.line_ids().next();
    if let Some(l) = example {
        locomotive(
            out,
            x + 8.0,
            y,
            css_colour(&b.line(l).colour),
            &codes[l.index()],
            Some(Dir::NE),
        );
    }
    text(out, x + 6.0, y, "locomotive, facing");
    let x = column(3);
    let _ = writeln!(
        out,
        "<polygon points=\"{}\" fill=\"none\" stroke=\"#111111\" stroke-width=\"2\" stroke-dasharray=\"3 2\"/>",
        corners(x + 8.0, y, 9.0)
    );
    text(out, x, y, "changed last");
    // The lines: code, id and track.
    y += LEGEND_ROW;
    for (k, l) in b.line_ids().enumerate() {
        if k > 0 && k % 4 == 0 {
            y += LEGEND_ROW;
        }
        let x = column(k);
        let c = css_colour(&b.line(l).colour);
        track_sample(out, x + 2.0, y, x + 16.0, c, l.index());
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" fill=\"{c}\">{} {}</text>",
            x + 22.0,
            y + 3.0,
            escape_html(&codes[l.index()]),
            escape_html(&b.line(l).id)
        );
    }
    y + LEGEND_ROW
}

/// The legend's last rows, from `y`: the players' stations.
fn legend_stations(v: &View, mut y: f64, out: &mut String) {
    for (s, p) in v.players.iter().enumerate() {
        if s > 0 && s % 4 == 0 {
            y += LEGEND_ROW;
        }
        let x = legend_column(s);
        station(out, x + 8.0, y, Seat(s as u8));
        legend_text(out, x, y, &format!("stations of {}", p.public.name));
    }
}
