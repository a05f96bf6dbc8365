//! Linie 1's order grammar, defined once and used three times: to read
//! orders, to print `help`, and to list the "You can:" hints.
//!
//! Notation, as players read it off the map:
//! - a **square** is its column letter and row number: `C4` (A to L from the
//!   west, 1 to 12 from the north);
//! - a **tile** is named by its track: its paths, each two edge letters of
//!   N, E, S, W, joined by `+`: `WE` a straight lying east-west, `NS+SW` a
//!   straight with a curve from its south end to the west. The paths say both
//!   which tile and how it is turned; letters go in any order. Or by its
//!   number and turn (issue 35): `lay 3 C4 90` is tile 3 (its number in
//!   the components, which the drawing of the hand shows) turned 90°
//!   clockwise from its printed paths; the order is the one the paths
//!   name, and its text is the path notation;
//! - a **terminal** is its line number and the board edge it lies beyond:
//!   `1W`, `4N`;
//! - a **move** names every square the tram enters, a terminal by its name:
//!   `move A6 B6 C6`; or just `move 3` where the track does not branch.

use std::fmt::Write as _;

use super::data::{Paths, Square, TerminalId, TileId};
use super::{Linie1, Place};
use engine::Seat;
use engine::grammar::{self, Match, OrderError, OrderForm};

/// An order of Linie 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// `lay SQUARE PATHS`: a hand tile on an empty square (rulings 1).
    Lay {
        /// Where.
        square: Square,
        /// The tile, as it will lie.
        paths: Paths,
    },
    /// `exchange SQUARE PATHS [SQUARE PATHS]`: replace one board tile, or two
    /// neighbours together, with hand tiles (rulings 2).
    Exchange {
        /// Each square and the paths of its new tile.
        swaps: Vec<(Square, Paths)>,
    },
    /// `pass`: no tile fits (Stationmaster ruling 1).
    Pass,
    /// `draw supply` or `draw PLAYER TILE`: one tile back into the hand.
    Draw {
        /// A driver's open hand, or None for the supply.
        from: Option<Seat>,
        /// The tile taken from an open hand.
        tile: Option<TileId>,
    },
    /// `start TERMINAL`: the inaugural trip (rulings 5).
    Start {
        /// Where the tram is put.
        terminal: TerminalId,
    },
    /// `roll`: roll the die (variant 2).
    Roll,
    /// `repeat`: use the previous player's result (variant 2).
    Repeat,
    /// `move PLACE…`: the tram enters each place in turn (rulings 6).
    Move {
        /// Squares and terminals entered, in order.
        places: Vec<Place>,
    },
    /// `move N`: N squares along track that does not branch.
    Along {
        /// How many.
        squares: u8,
    },
    /// `!skip`: a missed deadline or a moderator's skip; never from a player.
    Skip,
}

/// The forms of order, in the order help lists them.
pub const FORMS: &[OrderForm] = &[
    OrderForm {
        form: "lay SQUARE PATHS",
        summary: "lay a hand tile: square C4, track WE or NS+SW",
        example: "lay C4 NS+SW",
    },
    OrderForm {
        form: "lay TILE SQUARE TURN",
        summary: "hand tile TILE turned TURN degrees clockwise",
        example: "lay 2 C4 90",
    },
    OrderForm {
        form: "exchange SQUARE PATHS",
        summary: "replace a tile without trees, adding track",
        example: "exchange C4 NS+WE",
    },
    OrderForm {
        form: "exchange S1 PATHS S2 PATHS",
        summary: "two neighbours, to join them",
        example: "exchange C4 NS+SE D4 NS+SW",
    },
    OrderForm {
        form: "pass",
        summary: "when no hand tile fits anywhere",
        example: "pass",
    },
    OrderForm {
        form: "draw supply",
        summary: "after laying: draw from the supply",
        example: "draw supply",
    },
    OrderForm {
        form: "draw PLAYER PATHS",
        summary: "after laying: take a driver's open tile",
        example: "draw Anna WE",
    },
    OrderForm {
        form: "start TERMINAL",
        summary: "start your trip at your terminal (1W: line, edge)",
        example: "start 1W",
    },
    OrderForm {
        form: "roll",
        summary: "die_or_repeat: roll the die",
        example: "roll",
    },
    OrderForm {
        form: "repeat",
        summary: "die_or_repeat: use the last result",
        example: "repeat",
    },
    OrderForm {
        form: "move SQUARE...",
        summary: "drive, naming each square entered",
        example: "move A6 B6 B7",
    },
    OrderForm {
        form: "move N",
        summary: "drive N squares of unbranched track",
        example: "move 3",
    },
];

/// How to read the notation, printed under the forms by the game's help.
pub const NOTATION: &str = "\
Squares: column letter and row number, as on the map (C4).
Tiles: by their track, the paths of the tile as it will lie, each two of the
edge letters N E S W, joined by +: WE straight east-west, NS straight
north-south, WS curve west-south, NS+SW straight with a curve from south to
west, NS+WE crossing, NE+ES+SW+WN four curves.
Or by number and turn: lay 3 C4 90 is tile 3 of your hand (the number its
drawing shows) turned 90 degrees clockwise (0, 90, 180 or 270).
Terminals: line number and edge (1W, 4N); the map shows them at its edges.";

#[derive(Clone, Copy, PartialEq)]
enum Keyword {
    Lay,
    Exchange,
    Pass,
    Draw,
    Start,
    Roll,
    Repeat,
    Move,
}

const KEYWORDS: &[(&str, Keyword)] = &[
    ("lay", Keyword::Lay),
    ("exchange", Keyword::Exchange),
    ("pass", Keyword::Pass),
    ("draw", Keyword::Draw),
    ("start", Keyword::Start),
    ("roll", Keyword::Roll),
    ("repeat", Keyword::Repeat),
    ("move", Keyword::Move),
];

/// Reads one order line.
pub(super) fn parse(g: &Linie1, line: &str) -> Result<Order, OrderError> {
    let (keyword, words) = match grammar::opening(line, KEYWORDS, FORMS)? {
        grammar::Opening::Skip => return Ok(Order::Skip),
        grammar::Opening::Order(k, words) => (k, words),
    };
    let args = &words[..];
    let none = |form: &str, k: Order| -> Result<Order, OrderError> {
        match args.first() {
            None => Ok(k),
            Some(w) => Err(OrderError::new(
                line,
                format!("unexpected `{w}` after the order; write `{form}`"),
            )),
        }
    };
    match keyword {
        Keyword::Lay => {
            let swaps = if numbered(args) {
                tile_turns(g, line, args, "lay TILE SQUARE TURN")?
            } else {
                square_paths(g, line, args, "lay SQUARE PATHS")?
            };
            match swaps.as_slice() {
                [(square, paths)] => Ok(Order::Lay {
                    square: *square,
                    paths: *paths,
                }),
                _ => Err(OrderError::new(
                    line,
                    "lay one tile a line: `lay SQUARE PATHS`, e.g. `lay C4 WE`",
                )),
            }
        }
        Keyword::Exchange => {
            let swaps = if numbered(args) {
                tile_turns(
                    g,
                    line,
                    args,
                    "exchange TILE SQUARE TURN [TILE SQUARE TURN]",
                )?
            } else {
                square_paths(g, line, args, "exchange SQUARE PATHS [SQUARE PATHS]")?
            };
            if swaps.len() > 2 {
                return Err(OrderError::new(
                    line,
                    "exchange one tile, or two neighbours together",
                ));
            }
            Ok(Order::Exchange { swaps })
        }
        Keyword::Pass => none("pass", Order::Pass),
        Keyword::Roll => none("roll", Order::Roll),
        Keyword::Repeat => none("repeat", Order::Repeat),
        Keyword::Draw => draw(g, line, args),
        Keyword::Start => match args {
            [w] => Ok(Order::Start {
                terminal: terminal(g, line, w)?,
            }),
            _ => Err(OrderError::new(
                line,
                "write `start TERMINAL`, e.g. `start 1W`",
            )),
        },
        Keyword::Move => match args {
            [] => Err(OrderError::new(
                line,
                "write `move N`, or the squares the tram enters: `move A6 B6 C6`",
            )),
            [n] if n.chars().all(|c| c.is_ascii_digit()) => {
                let squares: u8 = n
                    .parse()
                    .map_err(|_| OrderError::new(line, format!("`{n}` is too many squares")))?;
                if squares == 0 {
                    return Err(OrderError::new(line, "a move goes at least one square"));
                }
                Ok(Order::Along { squares })
            }
            places => Ok(Order::Move {
                places: places
                    .iter()
                    .map(|w| place(g, line, w))
                    .collect::<Result<_, _>>()?,
            }),
        },
    }
}

/// `draw supply`, or `draw PLAYER TILE` with the tile by its paths or its
/// number.
fn draw(g: &Linie1, line: &str, args: &[&str]) -> Result<Order, OrderError> {
    match args {
        [w] if grammar::match_word(w, &[("supply".to_string(), ())]) == Match::One(()) => {
            Ok(Order::Draw {
                from: None,
                tile: None,
            })
        }
        [who, tile @ ..] if !tile.is_empty() => {
            let names: Vec<(String, Seat)> = g
                .players()
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.clone(), Seat(i as u8)))
                .collect();
            let seat = match grammar::match_word(who, &names) {
                Match::One(s) => s,
                _ => {
                    return Err(OrderError::new(line, format!("`{who}` is not a player"))
                        .expecting(names.into_iter().map(|(n, _)| n).collect()));
                }
            };
            let tile = match tile {
                [n] if is_number(n) => tile_numbered(g, line, n)?,
                _ => {
                    let paths = paths(line, &tile.join("+"))?;
                    g.data().tile_with_paths(paths).ok_or_else(|| {
                        OrderError::new(line, format!("no tile shows exactly the paths {paths}"))
                    })?
                }
            };
            Ok(Order::Draw {
                from: Some(seat),
                tile: Some(tile),
            })
        }
        _ => Err(OrderError::new(
            line,
            "write `draw supply`, or `draw PLAYER PATHS` to take a tile from a driver's open hand",
        )),
    }
}

fn is_number(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_digit())
}

/// True if a lay or exchange names its tile by number (`lay 3 C4 90`)
/// rather than by its paths (`lay C4 NS+SW`), whose first word is a square.
fn numbered(args: &[&str]) -> bool {
    args.first().is_some_and(|w| is_number(w))
}

/// The tile type numbered `word` (its number in the components and on
/// the drawings of a hand, `../shared/linie1.md`).
fn tile_numbered(g: &Linie1, line: &str, word: &str) -> Result<TileId, OrderError> {
    let d = g.data();
    word.parse::<u8>()
        .ok()
        .and_then(|n| d.tiles.iter().position(|t| t.number == n))
        .map(|i| TileId(i as u8))
        .ok_or_else(|| {
            OrderError::new(
                line,
                format!(
                    "there is no tile {word}: tiles are numbered 1 to {}, as your hand shows them",
                    d.tiles.len()
                ),
            )
        })
}

/// `TILE SQUARE [TURN]`, once or twice: a tile by its number, where it
/// goes, and how far it is turned clockwise from the drawing of the hand,
/// in degrees (0, 90, 180 or 270; 0 when left out). The order is the one
/// its paths name (`lay 2 C4 90` is `lay C4 NW`: the curve WS turned a
/// quarter clockwise).
fn tile_turns(
    g: &Linie1,
    line: &str,
    args: &[&str],
    form: &str,
) -> Result<Vec<(Square, Paths)>, OrderError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let (tile, at) = (args[i], args.get(i + 1));
        if !is_number(tile) {
            return Err(OrderError::new(
                line,
                format!("expected a tile's number where `{tile}` is; write `{form}`"),
            ));
        }
        let Some(at) = at else {
            return Err(OrderError::new(
                line,
                format!("where does tile {tile} go? name a square, e.g. `C4`; write `{form}`"),
            ));
        };
        let tile = tile_numbered(g, line, tile)?;
        let s = square(g, line, at)?;
        // A number after the square is its turn, unless a square follows
        // it: then it is the next tile's number.
        let turn_word = args
            .get(i + 2)
            .filter(|w| is_turn_word(w))
            .filter(|_| args.get(i + 3).is_none_or(|w| is_number(w)));
        let quarters = match turn_word {
            Some(w) => turn(line, w)?,
            None => 0,
        };
        out.push((s, g.data().tile(tile).paths.turned(quarters)));
        i += if turn_word.is_some() { 3 } else { 2 };
    }
    if out.is_empty() {
        return Err(OrderError::new(
            line,
            format!("incomplete order; write `{form}`, e.g. `lay 2 C4 90`"),
        ));
    }
    Ok(out)
}

/// A turn as written: digits, with a degree sign or not.
fn is_turn_word(word: &str) -> bool {
    is_number(word.trim_end_matches('°'))
}

/// Quarter turns clockwise of a turn in degrees: 0, 90, 180 or 270.
fn turn(line: &str, word: &str) -> Result<usize, OrderError> {
    match word.trim_end_matches('°') {
        "0" | "360" => Ok(0),
        "90" => Ok(1),
        "180" => Ok(2),
        "270" => Ok(3),
        _ => Err(OrderError::new(
            line,
            format!(
                "`{word}` is no turn: write 0, 90, 180 or 270, the degrees the tile turns \
                 clockwise from its drawing in your hand"
            ),
        )),
    }
}

/// How a tile's `paths` lie, as `TILE SQUARE TURN` writes them: the
/// tile's number and the fewest degrees clockwise from its drawing.
pub(super) fn tile_turn(g: &Linie1, paths: Paths) -> Option<(u8, u16)> {
    let t = g.data().tile(g.data().tile_with_paths(paths)?);
    let k = (0..4).find(|k| t.paths.turned(*k) == paths)?;
    Some((t.number, k as u16 * 90))
}

/// A lay as `lay TILE SQUARE TURN` writes it (the path notation where
/// the paths are no tile's).
pub(super) fn lay_text(g: &Linie1, square: Square, paths: Paths) -> String {
    match tile_turn(g, paths) {
        Some((n, deg)) => format!("lay {n} {square} {deg}"),
        None => format!("lay {square} {paths}"),
    }
}

/// `SQUARE PATHS [SQUARE PATHS]`, paths given as one word (`NS+SW`) or
/// several (`NS SW`).
fn square_paths(
    g: &Linie1,
    line: &str,
    args: &[&str],
    form: &str,
) -> Result<Vec<(Square, Paths)>, OrderError> {
    let mut out: Vec<(Square, Vec<&str>)> = Vec::new();
    for (i, w) in args.iter().enumerate() {
        // `lay B 6 WE`: the square's letter and number apart.
        if w.len() == 1
            && w.chars().all(|c| c.is_ascii_alphabetic())
            && args
                .get(i + 1)
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        {
            return Err(OrderError::new(
                line,
                format!(
                    "write a square as one word, its letter and number together: `{}{}`",
                    w.to_ascii_uppercase(),
                    args[i + 1]
                ),
            ));
        }
        // `lay C1 NS, lay C2 NS`: a second order run on in the same line
        // would otherwise be read as paths ("`lay` is not a path").
        if KEYWORDS.iter().any(|(k, _)| k.eq_ignore_ascii_case(w)) {
            return Err(OrderError::new(
                line,
                format!("`{w}` starts another order: write one order a line"),
            ));
        }
        if w.chars().any(|c| c.is_ascii_digit()) {
            out.push((square(g, line, w)?, Vec::new()));
        } else if let Some(last) = out.last_mut() {
            last.1.push(w);
        } else {
            return Err(OrderError::new(
                line,
                format!("expected a square before `{w}`; write `{form}`"),
            ));
        }
    }
    if out.is_empty() {
        return Err(OrderError::new(
            line,
            format!("incomplete order; write `{form}`"),
        ));
    }
    out.into_iter()
        .map(|(s, words)| {
            if words.is_empty() {
                return Err(OrderError::new(
                    line,
                    format!("which tile on {s}? name its paths, e.g. `{s} WE`; write `{form}`"),
                ));
            }
            Ok((s, paths(line, &words.join("+"))?))
        })
        .collect()
}

fn paths(line: &str, text: &str) -> Result<Paths, OrderError> {
    Paths::parse(text).map_err(|e| OrderError::new(line, e))
}

fn square(g: &Linie1, line: &str, word: &str) -> Result<Square, OrderError> {
    let d = g.data();
    match Square::parse(word) {
        Some(s) if d.contains(s) => Ok(s),
        Some(s) => Err(OrderError::new(
            line,
            format!(
                "{s} is off the board (columns A to {}, rows 1 to {})",
                (b'A' + d.columns - 1) as char,
                d.rows
            ),
        )),
        None => Err(OrderError::new(
            line,
            format!(
                "`{word}` is not a square; a square is a column letter and a row number, e.g. C4"
            ),
        )),
    }
}

fn terminal(g: &Linie1, line: &str, word: &str) -> Result<TerminalId, OrderError> {
    let d = g.data();
    d.terminals
        .iter()
        .position(|t| t.name.eq_ignore_ascii_case(word.trim()))
        .map(|i| TerminalId(i as u8))
        .ok_or_else(|| {
            OrderError::new(line, format!("`{word}` is not a terminal"))
                .expecting(d.terminals.iter().map(|t| t.name.clone()).collect())
        })
}

fn place(g: &Linie1, line: &str, word: &str) -> Result<Place, OrderError> {
    if word.starts_with(|c: char| c.is_ascii_digit()) {
        return terminal(g, line, word).map(Place::Terminal);
    }
    square(g, line, word).map(Place::Square)
}

/// A place as an order writes it: `C4`, or a terminal's name `1W`.
pub(super) fn place_text(g: &Linie1, p: Place) -> String {
    match p {
        Place::Square(s) => s.to_string(),
        Place::Terminal(t) => g.data().terminal(t).name.clone(),
    }
}

/// The canonical text of an order, which [`parse`] reads back.
pub(super) fn text(g: &Linie1, order: &Order) -> String {
    let d = g.data();
    match order {
        Order::Lay { square, paths } => format!("lay {square} {paths}"),
        Order::Exchange { swaps } => {
            let mut out = String::from("exchange");
            for (s, p) in swaps {
                let _ = write!(out, " {s} {p}");
            }
            out
        }
        Order::Pass => "pass".into(),
        Order::Draw { from: None, .. } => "draw supply".into(),
        Order::Draw {
            from: Some(s),
            tile,
        } => {
            let name = g.players().get(s.index()).map_or("?", |p| p.name.as_str());
            let tile = tile.map_or(String::new(), |t| d.tile(t).paths.to_string());
            format!("draw {name} {tile}")
        }
        Order::Start { terminal } => format!("start {}", d.terminal(*terminal).name),
        Order::Roll => "roll".into(),
        Order::Repeat => "repeat".into(),
        Order::Move { places } => {
            let mut out = String::from("move");
            for p in places {
                out.push(' ');
                out.push_str(&place_text(g, *p));
            }
            out
        }
        Order::Along { squares } => format!("move {squares}"),
        Order::Skip => engine::SKIP_ORDER.into(),
    }
}
