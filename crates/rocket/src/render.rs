//! The ASCII map and status block of a Rocket game, at most 100 columns wide,
//! as a player reads it in a mail.
//!
//! One text line per row of hexes; each hex is a 6-character slot (5 of
//! content), and rows 2, 4, … are shifted half a hex (3 characters) east, as
//! on the board. Column letters stand above and below, row numbers on both
//! sides.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::board::{Board, Good, LineId, PlaceKind, Terrain};
use super::view::{PublicPlayer, VetoView, View};
use engine::canvas::{self, Seg, css_colour};
use engine::{Map, Seat};

/// The widest line the map and status may print.
pub const MAX_WIDTH: usize = 100;

/// Two-letter map codes for the lines: the id without `&`, cut to two
/// letters, or `L1`, `L2`, … if those would clash.
pub(super) fn line_codes(board: &super::board::Board) -> Vec<String> {
    let codes: Vec<String> = board
        .lines
        .iter()
        .map(|l| {
            l.id.chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .take(2)
                .collect::<String>()
                .to_uppercase()
        })
        .collect();
    let mut sorted = codes.clone();
    sorted.sort();
    sorted.dedup();
    if sorted.len() == codes.len() && codes.iter().all(|c| c.len() == 2) {
        codes
    } else {
        (1..=codes.len()).map(|i| format!("L{i}")).collect()
    }
}

/// The letter of a player's stations on the map: A for seat 1, B for seat 2, …
pub(super) fn station_letter(seat: Seat) -> char {
    (b'A' + seat.0) as char
}

/// The colours of the players' stations, by seat.
pub(super) const STATION_COLOURS: [&str; 4] = ["#d81b60", "#00838f", "#6d4c41", "#3949ab"];
pub(super) const SEA: &str = "#5b9bd5";
pub(super) const WALES: &str = "#9e9e9e";
pub(super) const PLACE: &str = "#263238";

/// The pieces of hex `i`, added to `line`.
fn cell(b: &Board, v: &View, codes: &[String], i: usize, line: &mut Vec<Seg>) {
    let hex = b.hex_at(i);
    let c = v.table.cell(b, hex);
    let line_colour = |l: LineId| Some(css_colour(&b.line(l).colour));
    let station = || -> Seg {
        match c.station {
            Some(s) => (
                Cow::Owned(station_letter(s).to_string()),
                Some(STATION_COLOURS[s.index() % STATION_COLOURS.len()]),
            ),
            None => (Cow::Borrowed(" "), None),
        }
    };
    match b.terrain(hex) {
        Terrain::Sea => line.push((Cow::Borrowed("  ~  "), Some(SEA))),
        Terrain::Wales => line.push((Cow::Borrowed(" ### "), Some(WALES))),
        Terrain::Place(p) => {
            let place = b.place(p);
            line.push(match place.kind {
                PlaceKind::Start(l) if c.locomotive.is_some() => {
                    (format!("@{}@", place.abbr).into(), line_colour(l))
                }
                PlaceKind::Start(l) => (format!("({})", place.abbr).into(), line_colour(l)),
                PlaceKind::City(_) => (format!("[{}]", place.abbr).into(), Some(PLACE)),
                PlaceKind::Town => (format!("<{}>", place.abbr).into(), Some(PLACE)),
            });
        }
        Terrain::Land => {
            if let Some(l) = c.locomotive {
                let facing = (v.table.locomotive(l).facing)
                    .map_or("", |d| d.name())
                    .to_lowercase();
                line.push((
                    format!("{:<4}", format!("{}{facing}", codes[l.index()])).into(),
                    line_colour(l),
                ));
                line.push(station());
            } else if let Some(l) = c.track {
                line.push((
                    format!("={}=", codes[l.index()].to_lowercase()).into(),
                    line_colour(l),
                ));
                line.push(station());
            } else if c.station.is_some() {
                line.push((Cow::Borrowed("  "), None));
                line.push(station());
                line.push((Cow::Borrowed("  "), None));
            } else {
                line.push((Cow::Borrowed("  .  "), None));
            }
        }
    }
}

/// The map as lines of coloured pieces: grid, coordinates, key and places.
fn map_segments(b: &Board, v: &View) -> Vec<Vec<Seg>> {
    let codes = line_codes(b);
    let cols = usize::from(b.columns);
    let mut lines: Vec<Vec<Seg>> = Vec::new();
    let header: String = {
        let mut h = String::from("   ");
        for c in 0..cols {
            let _ = write!(h, "  {}   ", (b'A' + c as u8) as char);
        }
        h.trim_end().to_string()
    };
    lines.push(vec![(header.clone().into(), None)]);
    for r in 0..usize::from(b.rows) {
        let mut line: Vec<Seg> = Vec::with_capacity(3 * cols + 4);
        line.push((format!("{:>2} ", r + 1).into(), None));
        if r % 2 == 1 {
            line.push((Cow::Borrowed("   "), None));
        }
        for c in 0..cols {
            cell(b, v, &codes, r * cols + c, &mut line);
            line.push((Cow::Borrowed(" "), None));
        }
        if r % 2 == 0 {
            line.push((Cow::Borrowed("   "), None));
        }
        line.push((format!("{}", r + 1).into(), None));
        lines.push(line);
    }
    lines.push(vec![(header.into(), None)]);
    let mut rest = String::new();
    key(b, v, &codes, &mut rest);
    lines.extend(rest.lines().map(|l| vec![(l.to_string().into(), None)]));
    lines
}

/// The map of `b` as text and as HTML, from one drawing on the engine's
/// canvas, drawn from the pieces on the board as the reader of `v` sees
/// them (everyone sees them all: only money is private, rulings 13).
pub(super) fn map(b: &Board, v: &View) -> Map {
    canvas::draw(map_segments(b, v))
}

/// The key and the list of places, below the grid.
fn key(b: &Board, v: &View, codes: &[String], out: &mut String) {
    // The key.
    out.push_str("\nKey: (Abc) starting town   @Abc@ starting town, locomotive not yet moved\n");
    out.push_str(
        "     [Abc] city   <Abc> railway town   .  land   ~  sea   ### Wales (not playable)\n",
    );
    let example = codes.first().cloned().unwrap_or_default();
    let _ = writeln!(
        out,
        "     {example}ne  locomotive facing north-east   ={}=  track   A B C D  stations",
        example.to_lowercase()
    );
    let line_key: Vec<String> = b
        .line_ids()
        .map(|l| format!("{} {}", codes[l.index()], b.line(l).id))
        .collect();
    let _ = writeln!(out, "     Lines: {}", line_key.join(", "));
    let players: Vec<String> = (v.players.iter().enumerate())
        .map(|(s, p)| format!("{} {}", station_letter(Seat(s as u8)), p.public.name))
        .collect();
    let _ = writeln!(out, "     Stations: {}", players.join(", "));

    // Places, three to a line.
    out.push_str("\nPlaces:\n");
    let entries: Vec<String> = b
        .places
        .iter()
        .enumerate()
        .map(|(i, p)| match p.kind {
            PlaceKind::Start(l) => format!("{} {} ({} start)", p.abbr, p.name, b.line(l).id),
            PlaceKind::Town => format!("{} {} (town)", p.abbr, p.name),
            PlaceKind::City(_) => {
                let left = v.table.city_tokens(super::PlaceId(i as u8));
                let goods: String = Good::ALL
                    .iter()
                    .map(|good| format!("{}{}", &good.name()[..2], left[good.index()]))
                    .collect::<Vec<_>>()
                    .join(" ");
                format!("{} {} {goods}", p.abbr, p.name)
            }
        })
        .collect();
    for chunk in entries.chunks(3) {
        let row: Vec<String> = chunk.iter().map(|e| format!("{e:<32}")).collect();
        out.push_str("  ");
        out.push_str(row.join("").trim_end());
        out.push('\n');
    }
    out.push_str("  (city tokens left: st steel, te textiles, br brewing, le leather)\n");
}

/// The status block for the reader of `v`, drawn from the view alone
/// (money as the reader may see it, rulings 13); `stopped`: the game was
/// stopped before its end (a moderator's abort), and how, said where the
/// turn would be.
pub(super) fn status(v: &View, stopped: Option<&str>) -> String {
    let mut out = String::new();
    headline(v, stopped, &mut out);
    // A veto left open when a moderator stopped the game is never settled.
    if let (Some(veto), None) = (&v.veto, stopped) {
        veto_line(v, veto, &mut out);
    }
    supply_line(v, &mut out);
    lines_table(v, &mut out);
    players_table(v, &mut out);
    city_tokens_held(v, &mut out);
    money(v, &mut out);
    final_scores(v, &mut out);
    out
}

/// How the game ended, or whose turn it is and whom it waits for.
fn headline(v: &View, stopped: Option<&str>, out: &mut String) {
    match (&v.result, stopped) {
        (Some(r), _) => {
            let _ = writeln!(out, "The game is over: {}.", r.reason);
        }
        (None, Some(how)) => {
            let _ = writeln!(out, "The game is over: {how}.");
        }
        (None, None) => {
            let t = &v.turn;
            let _ = write!(
                out,
                "Turn {}: {} to play, {} action{} left",
                t.number,
                t.active_player,
                t.actions_left,
                if t.actions_left == 1 { "" } else { "s" }
            );
            if !t.extended.is_empty() {
                let _ = write!(out, " (already extended: {})", t.extended.join(", "));
            }
            out.push('\n');
            let awaited: Vec<String> = v
                .awaiting
                .iter()
                .map(|a| format!("{} ({})", a.player, a.what))
                .collect();
            let _ = writeln!(out, "Waiting for: {}", awaited.join("; "));
        }
    }
}

/// The move in question in a veto question or round, and the round's
/// state.
fn veto_line(v: &View, veto: &VetoView, out: &mut String) {
    // The move is the active player's (rulings 7): named, so that
    // everyone can tell whose move is in question.
    let _ = write!(
        out,
        "Veto: {} moved {} from {} to {}; it could stand on {}",
        v.turn.active_player,
        veto.line,
        veto.from,
        veto.chosen,
        super::rules::join_hexes(&veto.options)
    );
    // Someone called the round: a veto round is under way.
    if let Some(called_by) = &veto.called_by {
        let _ = write!(out, "; round called by {called_by}");
        match &veto.high_bid {
            Some(bid) => {
                let _ = write!(
                    out,
                    "; high bid {} share{} for {} by {}",
                    bid.shares,
                    if bid.shares == 1 { "" } else { "s" },
                    bid.hex,
                    bid.player
                );
            }
            None => out.push_str("; no bid yet"),
        }
    }
    out.push_str(".\n");
}

/// What is left in the supply, and the options.
fn supply_line(v: &View, out: &mut String) {
    let _ = writeln!(
        out,
        "Track tiles: {} laid, {} left.  Supplementary shares left: {}.  Passenger tokens left: {}.{}",
        v.tiles_laid,
        v.tiles_left,
        v.supplementary_shares_left,
        v.passengers_left,
        if v.options.is_empty() {
            String::new()
        } else {
            format!("  Options: {}.", v.options.join(", "))
        }
    );
}

/// A row for each line: its locomotive, status, shares, value and the
/// places it connects.
fn lines_table(v: &View, out: &mut String) {
    out.push_str("\nLine   Locomotive         Status              Shares  Value  Connected\n");
    for line in &v.lines {
        let loco = match (&line.locomotive, line.facing) {
            (Some(h), Some(f)) => format!("{h} facing {f}"),
            (Some(h), None) => format!("{h} (at start)"),
            (None, _) => "-".to_string(),
        };
        let status = match &line.merged_into {
            Some(into) => format!("merged into {into}"),
            None => line.status.to_string(),
        };
        let row = format!(
            "{:<6} {:<18} {:<19} {:>6}  {:>5}  {}",
            line.id,
            loco,
            status,
            line.board_shares,
            line.value,
            line.connected.join(", ")
        );
        out.push_str(&wrap(&row, 61));
    }
}

/// A row for each player: shares, goods tokens, passengers and stations.
fn players_table(v: &View, out: &mut String) {
    out.push_str(
        "\nPlayer         Shares (+supplementary)     Tokens st/te/br/le  Pass  Stations\n",
    );
    for (s, p) in v.players.iter().enumerate() {
        let p = &p.public;
        let share_lines = share_lines(&shares_held(v, p));
        let tokens: Vec<String> = Good::ALL
            .iter()
            .map(|good| p.tokens.get(good.name()).copied().unwrap_or(0).to_string())
            .collect();
        let row = format!(
            "{} {:<12} {:<27} {:<19} {:>4}  {} on board, {} left",
            station_letter(Seat(s as u8)),
            p.name,
            share_lines[0],
            tokens.join("/"),
            p.passengers,
            p.stations_on_board,
            p.stations_in_supply
        );
        out.push_str(&row);
        out.push('\n');
        for more in &share_lines[1..] {
            let _ = writeln!(out, "{:15}{more}", "");
        }
    }
}

/// A player's shares, line by line in the board's order: `GWR 3`, or
/// `GWR 3+1` with supplementary ones (rulings 6).
fn shares_held(v: &View, p: &PublicPlayer) -> Vec<String> {
    v.lines
        .iter()
        .filter_map(|line| {
            let real = p.shares.get(&line.id).copied().unwrap_or(0);
            let sup = p.supplementary_shares.get(&line.id).copied().unwrap_or(0);
            match (real, sup) {
                (0, 0) => None,
                (_, 0) => Some(format!("{} {real}", line.id)),
                _ => Some(format!("{} {real}+{sup}", line.id)),
            }
        })
        .collect()
}

/// Shares of many lines run onto lines of their own under the column,
/// never into the tokens beside it: the column's lines, `-` for none.
fn share_lines(shares: &[String]) -> Vec<String> {
    let mut share_lines: Vec<String> = vec![String::new()];
    for (k, one) in shares.iter().enumerate() {
        let last = share_lines.len() - 1;
        let piece = if k + 1 < shares.len() {
            format!("{one},")
        } else {
            one.clone()
        };
        if !share_lines[last].is_empty() && share_lines[last].len() + 1 + piece.len() > 27 {
            share_lines.push(piece);
        } else {
            if !share_lines[last].is_empty() {
                share_lines[last].push(' ');
            }
            share_lines[last].push_str(&piece);
        }
    }
    if shares.is_empty() {
        share_lines[0] = "-".to_string();
    }
    share_lines
}

/// Who holds goods tokens from which city, city by city.
fn city_tokens_held(v: &View, out: &mut String) {
    let held: Vec<String> = v
        .cities
        .iter()
        .filter_map(|c| {
            let holders: Vec<String> = v
                .players
                .iter()
                .filter_map(|p| {
                    let n: u8 = p
                        .public
                        .tokens_by_city
                        .get(&c.name)
                        .map_or(0, |goods| goods.values().sum());
                    (n > 0).then(|| format!("{} {n}", p.public.name))
                })
                .collect();
            (!holders.is_empty()).then(|| format!("{} {}", c.name, holders.join(", ")))
        })
        .collect();
    if !held.is_empty() {
        out.push('\n');
        out.push_str(&engine::grammar::hint("City tokens held:", &held, "; "));
        out.push('\n');
    }
}

/// Everyone's money where it is public, else the reader's own (rulings
/// 13).
fn money(v: &View, out: &mut String) {
    if v.money_public() {
        out.push_str("\nMoney: ");
        let all: Vec<String> = (0..v.players.len())
            .filter_map(|i| {
                let seat = Seat(i as u8);
                v.money(seat).map(|m| format!("{} {m}", v.name(seat)))
            })
            .collect();
        out.push_str(&all.join(", "));
        out.push('\n');
    } else if let Some(m) = v.seat().and_then(|s| v.money(s)) {
        let _ = writeln!(out, "\nYour money: {m} (private)");
    }
}

/// The final scores, once the game is over, best first.
fn final_scores(v: &View, out: &mut String) {
    let Some(r) = &v.result else { return };
    out.push_str("\nFinal scores   during the game   end of game     total   place\n");
    for p in &r.placings {
        let _ = writeln!(
            out,
            "{:<14} {:>15}   {:>11}  {:>8}   {}",
            p.player,
            p.during_game.to_string(),
            p.end_game.to_string(),
            p.money.to_string(),
            p.place
        );
    }
}

/// A table row, with a long last column continued on indented lines.
fn wrap(row: &str, indent: usize) -> String {
    if row.chars().count() <= MAX_WIDTH {
        return format!("{row}\n");
    }
    let mut out = String::new();
    let mut current = String::new();
    for word in row.split(' ') {
        if current.chars().count() + word.len() + 1 > MAX_WIDTH {
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
