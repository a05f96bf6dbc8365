//! What a player is offered (issue 35): the "You can:" hints, a few
//! orders ready to copy with the lays that bring the reader's route on
//! first and a whole turn in one mail; the whole list for the `moves`
//! command; and what a turn begun still owes, for the answer to a mail
//! that left it half done.
//!
//! The lays are ranked by [`Linie1::route_progress_with`], which reads the
//! reader's secret cards: everything here is for that reader alone. None
//! of it runs inside `legal_orders`, whose cost the engine bench watches.

use std::fmt::Write as _;

use super::data::{Edge, Paths, Square, TileId};
use super::order::{Order, lay_text, text};
use super::route::Imagined;
use super::{Linie1, Phase, Place, TILES_PER_TURN};
use engine::Seat;
use engine::grammar::counted;
use engine::grammar::{self, HINT_LABEL};

/// The most lays the hints write out, one a line, so that the lay hint
/// stays within about twelve lines (issue 35).
const HINTED_LAYS: usize = 9;
/// Of those that bring the route on, the most shown on one square.
const PER_SQUARE: usize = 2;
/// The most lays the hints count again one by one (a search from every
/// point of the route each), to find those that bring the route on.
const HINT_CHECKS: usize = 12;
/// The same for `moves`, which lists them all.
const LIST_CHECKS: usize = 64;
/// The most of a driver's ways `moves` lists.
const LISTED_WAYS: usize = 100;
/// The widest line `moves` writes.
const WIDTH: usize = grammar::HINT_WIDTH;
/// A route's cost when no way is open: more than any count of squares.
const NO_WAY: u32 = 10_000;

/// A lay, and how much nearer it brings its player's route.
struct Ranked {
    square: Square,
    paths: Paths,
    /// Empty squares still to fill before it and after it, where it
    /// leaves fewer.
    route: Option<(u32, u32)>,
}

fn route_cost(g: &Linie1, seat: Seat, imagined: Option<Imagined>) -> u32 {
    g.route_progress_with(seat, imagined)
        .missing()
        .unwrap_or(NO_WAY)
}

/// Whether a tile showing `paths` on `s` joins track already there: a
/// neighbour's track end, or a terminal's leg.
pub(super) fn extends_track(g: &Linie1, s: Square, paths: Paths) -> bool {
    let d = g.data();
    Edge::ALL
        .into_iter()
        .filter(|e| paths.touches(*e))
        .any(|e| match d.step(s, e) {
            Some(n) => g.laid(n).is_some_and(|l| l.paths.touches(e.opposite())),
            None => d.terminal_at(s, e).is_some(),
        })
}

/// The lays among `legal`: first those that leave `seat`'s route fewer
/// squares to fill (the most first), then the rest, in their order (row
/// by row). The lays along the fewest ways ([`Linie1::along_the_route`])
/// are counted again one by one, those that join track already laid
/// first, up to `checks` of them: those whose count falls come first.
fn ranked_lays(g: &Linie1, seat: Seat, legal: &[Order], checks: usize) -> Vec<Ranked> {
    let lays: Vec<(Square, Paths)> = legal
        .iter()
        .filter_map(|o| match o {
            Order::Lay { square, paths } => Some((*square, *paths)),
            _ => None,
        })
        .collect();
    if lays.is_empty() {
        return Vec::new();
    }
    let along = g.along_the_route(seat, &lays, false);
    let mut candidates: Vec<usize> = (0..lays.len()).filter(|i| along[*i]).collect();
    candidates.sort_by_key(|i| !extends_track(g, lays[*i].0, lays[*i].1));
    let mut route: Vec<Option<(u32, u32)>> = vec![None; lays.len()];
    if !candidates.is_empty() {
        let before = route_cost(g, seat, None);
        for i in candidates.into_iter().take(checks) {
            let (s, p) = lays[i];
            let after = route_cost(g, seat, Some(Imagined::Tile(s, p)));
            if after < before {
                route[i] = Some((before, after));
            }
        }
    }
    let mut out: Vec<Ranked> = lays
        .into_iter()
        .zip(route)
        .map(|((square, paths), route)| Ranked {
            square,
            paths,
            route,
        })
        .collect();
    out.sort_by_key(|r| match r.route {
        Some((b, a)) => (
            0,
            std::cmp::Reverse(b - a),
            !extends_track(g, r.square, r.paths),
        ),
        None => (1, std::cmp::Reverse(0), false),
    });
    out
}

/// The "You can:" hints for `seat`: each form open now, with orders ready
/// to copy from their own hand and the board, rather than every one.
pub(super) fn hints(g: &Linie1, seat: Seat) -> Vec<String> {
    let legal = g.legal(seat);
    let mut out = Vec::new();
    if legal.is_empty() {
        return out;
    }
    let starts: Vec<String> = legal
        .iter()
        .filter_map(|o| match o {
            Order::Start { terminal } => Some(g.data().terminal(*terminal).name.clone()),
            _ => None,
        })
        .collect();
    if !starts.is_empty() {
        out.push(grammar::hint(
            "start TERMINAL",
            &[format!(
                "your route is complete: start your trip at {}",
                starts.join(" or ")
            )],
            "",
        ));
    }
    let ranked = ranked_lays(g, seat, &legal, HINT_CHECKS);
    if !ranked.is_empty() {
        out.push(lay_hint(g, &ranked));
    }
    let exchanges: Vec<&Order> = legal
        .iter()
        .filter(|o| matches!(o, Order::Exchange { .. }))
        .collect();
    if !exchanges.is_empty() {
        let mut examples: Vec<String> = exchanges.iter().take(3).map(|o| text(g, o)).collect();
        if exchanges.len() > 3
            && let Some(last) = examples.last_mut()
        {
            last.push_str(&format!(" … ({} in all)", exchanges.len()));
        }
        out.push(grammar::hint("exchange SQUARE PATHS", &examples, ", "));
    }
    if legal.contains(&Order::Pass) {
        out.push(grammar::hint(
            "pass",
            &["no tile of your hand fits anywhere".to_string()],
            "",
        ));
    }
    if let Some(h) = draw_hint(g, &legal) {
        out.push(h);
    }
    if let Some(h) = turn_in_one_mail(g, seat, &ranked) {
        out.push(h);
    }
    out.extend(drive_hints(g, &legal));
    out
}

/// The lays to copy: those that bring the route on (at most
/// [`PER_SQUARE`] a square), then one of each other tile of the hand, at
/// most [`HINTED_LAYS`], and the count with how to list them all.
fn lay_hint(g: &Linie1, ranked: &[Ranked]) -> String {
    let d = g.data();
    let mut shown: Vec<&Ranked> = Vec::new();
    for r in ranked.iter().filter(|r| r.route.is_some()) {
        let on_square = shown.iter().filter(|x| x.square == r.square).count();
        if on_square < PER_SQUARE && shown.len() < HINTED_LAYS {
            shown.push(r);
        }
    }
    let mut tiles: Vec<Option<TileId>> = shown.iter().map(|r| d.tile_with_paths(r.paths)).collect();
    for r in ranked.iter().filter(|r| r.route.is_none()) {
        let tile = d.tile_with_paths(r.paths);
        if !tiles.contains(&tile) && shown.len() < HINTED_LAYS {
            tiles.push(tile);
            shown.push(r);
        }
    }
    let indent = " ".repeat(HINT_LABEL);
    let mut out = format!(
        "{:<w$}TILE: its number in your hand; TURN: 0, 90, 180 or 270 clockwise",
        "lay TILE SQUARE TURN",
        w = HINT_LABEL
    );
    for r in shown {
        let lay = lay_text(g, r.square, r.paths);
        let _ = match r.route {
            Some((before, after)) => write!(
                out,
                "\n{indent}{lay:<16}your route: {} to fill, then {after}",
                counted(before as usize, "square")
            ),
            None => write!(out, "\n{indent}{lay}"),
        };
    }
    let _ = write!(
        out,
        "\n{indent}{}; reply `moves` (all), `moves C4` (a square), `moves 2` (a tile)",
        counted(ranked.len(), "lay")
    );
    out
}

/// The draws open, and how many are owed, while drawing.
fn draw_hint(g: &Linie1, legal: &[Order]) -> Option<String> {
    let Phase::Draw { owed } = g.phase() else {
        return None;
    };
    let mut draws: Vec<String> = legal
        .iter()
        .filter(|o| matches!(o, Order::Draw { .. }))
        .map(|o| text(g, o))
        .collect();
    let last = draws.last_mut()?;
    let owed = usize::from(*owed);
    last.push_str(&format!(
        " ({} still to draw{})",
        counted(owed, "tile"),
        if owed > 1 {
            ": send them together, one a line"
        } else {
            ""
        }
    ));
    Some(grammar::hint("draw", &draws, ", "))
}

/// What is left of `seat`'s laying turn, written out as one mail, one
/// order a line: the lays the hints put first (as far as they can be laid
/// together), then the draws, or that the draws are made for them.
fn turn_in_one_mail(g: &Linie1, seat: Seat, ranked: &[Ranked]) -> Option<String> {
    let Phase::Lay { laid } = *g.phase() else {
        return None;
    };
    let mut sim = g.clone();
    let mut orders: Vec<String> = Vec::new();
    for done in laid..TILES_PER_TURN {
        let open = sim.lay_orders(seat, done, false);
        let pick = ranked
            .iter()
            .map(|r| Order::Lay {
                square: r.square,
                paths: r.paths,
            })
            .find(|o| open.contains(o))?;
        if let Order::Lay { square, paths } = pick {
            orders.push(lay_text(g, square, paths));
        }
        sim.apply_order(seat, &pick).ok()?;
    }
    let mut drawn = 0;
    while matches!(sim.phase(), Phase::Draw { .. }) && sim.turn().active == seat {
        let draw = sim.draw_choices(seat).into_iter().next()?;
        orders.push(text(&sim, &draw));
        sim.apply_order(seat, &draw).ok()?;
        drawn += 1;
    }
    let label = if laid == 0 {
        "a whole turn"
    } else {
        "the rest of your turn"
    };
    let how = if drawn > 0 {
        "in one mail, one order a line, e.g.:"
    } else {
        "in one mail, one order a line (the draws are made for you), e.g.:"
    };
    let indent = " ".repeat(HINT_LABEL + 2);
    let mut out = format!("{label:<w$}{how}", w = HINT_LABEL);
    for o in orders {
        let _ = write!(out, "\n{indent}{o}");
    }
    Some(out)
}

/// A driver's hints: roll or repeat with the die, and the moves.
fn drive_hints(g: &Linie1, legal: &[Order]) -> Vec<String> {
    let mut out = Vec::new();
    if legal.contains(&Order::Roll) {
        out.push(grammar::hint("roll", &["roll the die".to_string()], ""));
    }
    if legal.contains(&Order::Repeat) {
        out.push(grammar::hint(
            "repeat",
            &[format!(
                "move by the last result, {}",
                g.last_roll.unwrap_or_default()
            )],
            "",
        ));
    }
    let mut moves: Vec<&Vec<Place>> = legal
        .iter()
        .filter_map(|o| match o {
            Order::Move { places } => Some(places),
            _ => None,
        })
        .collect();
    if !moves.is_empty() {
        moves.sort_by_key(|m| std::cmp::Reverse(m.len()));
        let longest = moves[0].len();
        let mut examples: Vec<String> = moves
            .iter()
            .take(3)
            .map(|m| text(g, &Order::Move { places: m.to_vec() }))
            .collect();
        let limit = match g.phase() {
            Phase::Drive { roll: Some(r) } if *r >= 5 => {
                "the die says: on to the next stop sign".to_string()
            }
            Phase::Drive { roll: Some(r) } => format!("the die says {r}"),
            _ => format!("at most {} now", g.max_distance()),
        };
        // The count closes the last example (no stray comma before it).
        if let Some(last) = examples.last_mut() {
            last.push_str(&format!(
                " ({}; {limit}; the longest goes {longest})",
                counted(moves.len(), "way")
            ));
        }
        out.push(grammar::hint("move SQUARE...", &examples, ", "));
    }
    out
}

/// What `about` in `moves ABOUT` names: a square, or a tile of the hand.
#[derive(Clone, Copy, PartialEq)]
enum About {
    Everything,
    Square(Square),
    Tile(TileId),
}

/// Reads the word after `moves`: a square of the board (`C4`), or the
/// number of a tile in `seat`'s hand (`2`).
fn about(g: &Linie1, seat: Seat, word: Option<&str>) -> Result<About, String> {
    let Some(word) = word.map(str::trim) else {
        return Ok(About::Everything);
    };
    let d = g.data();
    let hand: Vec<TileId> = g
        .players()
        .get(seat.index())
        .map(|p| p.hand.clone())
        .unwrap_or_default();
    let mut numbers: Vec<u8> = hand.iter().map(|t| d.tile(*t).number).collect();
    numbers.sort();
    numbers.dedup();
    let held = numbers
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if let Some(s) = Square::parse(word).filter(|s| d.contains(*s)) {
        return Ok(About::Square(s));
    }
    if let Ok(n) = word.parse::<u8>() {
        return match hand.iter().find(|t| d.tile(**t).number == n) {
            Some(t) => Ok(About::Tile(*t)),
            None => Err(format!(
                "`moves {word}`: tile {n} is not in your hand, which holds tile{} {held}",
                if numbers.len() == 1 { "" } else { "s" }
            )),
        };
    }
    Err(format!(
        "`moves {word}`: name a square of the board (`moves C4`) or a tile of your hand by \
         its number ({held})"
    ))
}

/// Every order `seat` can give now, ready to copy (the `moves` command):
/// the lays that bring their route on first, then the others row by row,
/// a line a square; or, with `word`, those on one square or of one hand
/// tile. A driver's ways are listed up to [`LISTED_WAYS`].
pub(super) fn order_list(
    g: &Linie1,
    seat: Seat,
    word: Option<&str>,
) -> Result<Vec<String>, String> {
    let legal = g.legal(seat);
    if legal.is_empty() {
        return Ok(Vec::new());
    }
    let about = about(g, seat, word)?;
    let laying = matches!(g.phase(), Phase::Lay { .. });
    if about != About::Everything && !laying {
        return Err(format!(
            "`moves {}` lists lays and exchanges, and you have none to make now: `moves` alone \
             lists your orders",
            word.unwrap_or_default()
        ));
    }
    let d = g.data();
    let concerns = |s: Square, p: Paths| match about {
        About::Everything => true,
        About::Square(q) => q == s,
        About::Tile(t) => d.tile_with_paths(p) == Some(t),
    };
    let mut out: Vec<String> = legal
        .iter()
        .filter(|o| matches!(o, Order::Start { .. }) && about == About::Everything)
        .map(|o| text(g, o))
        .collect();
    // The lays, a line a square, the squares as they rank.
    let mut squares: Vec<(Square, Vec<String>)> = Vec::new();
    for r in ranked_lays(g, seat, &legal, LIST_CHECKS) {
        if !concerns(r.square, r.paths) {
            continue;
        }
        let lay = lay_text(g, r.square, r.paths);
        match squares.iter_mut().find(|(s, _)| *s == r.square) {
            Some((_, lays)) => lays.push(lay),
            None => squares.push((r.square, vec![lay])),
        }
    }
    for (_, lays) in squares {
        out.extend(wrapped(&lays));
    }
    for o in &legal {
        match o {
            Order::Exchange { swaps } if swaps.iter().any(|(s, p)| concerns(*s, *p)) => {
                out.push(text(g, o));
            }
            Order::Draw { .. } | Order::Roll | Order::Repeat | Order::Pass => out.push(text(g, o)),
            _ => {}
        }
    }
    let ways: Vec<&Order> = legal
        .iter()
        .filter(|o| matches!(o, Order::Move { .. }))
        .collect();
    out.extend(ways.iter().take(LISTED_WAYS).map(|o| text(g, o)));
    if ways.len() > LISTED_WAYS {
        out.push(format!(
            "… and {} more ways; any way the track allows is taken",
            ways.len() - LISTED_WAYS
        ));
    }
    Ok(out)
}

/// `items` on lines of at most [`WIDTH`], three spaces apart, a line
/// going on indented.
fn wrapped(items: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    for item in items {
        if !line.is_empty() && line.chars().count() + 3 + item.chars().count() > WIDTH {
            out.push(std::mem::take(&mut line));
            line.push_str("  ");
        }
        if !line.trim().is_empty() {
            line.push_str("   ");
        }
        line.push_str(item);
    }
    if !line.is_empty() {
        out.push(line);
    }
    out
}

/// What `seat` still owes of a laying turn begun: the second tile, or the
/// draws (rule book, Piazzare le tessere), as the answer to their mail
/// says it.
pub(super) fn unfinished(g: &Linie1, seat: Seat) -> Option<String> {
    if g.outcome().is_some() || g.turn().active != seat {
        return None;
    }
    match *g.phase() {
        Phase::Lay { laid } if laid > 0 => Some(format!(
            "Your turn is not over: {} more to lay or exchange (`pass` if none fits), and then \
             you draw back to five. The rest of a turn may go in one mail, one order a line.",
            counted(usize::from(TILES_PER_TURN - laid), "tile")
        )),
        Phase::Draw { owed } => {
            let mut from: Vec<String> = Vec::new();
            if g.supply_left() > 0 {
                from.push("the supply (`draw supply`)".to_string());
            }
            for o in g.draw_choices(seat) {
                if let Order::Draw { from: Some(d), .. } = o {
                    let name = &g.players()[d.index()].name;
                    if !from.iter().any(|f| f.starts_with(&format!("{name}'s"))) {
                        from.push(format!("{name}'s open hand (`{}`)", text(g, &o)));
                    }
                }
            }
            Some(format!(
                "Your turn is not over: you still owe {}, from {}. {} in one mail, one a line.",
                counted(usize::from(owed), "draw"),
                from.join(" or from "),
                if owed > 1 { "Send them" } else { "Send it" },
            ))
        }
        _ => None,
    }
}
