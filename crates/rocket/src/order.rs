//! Rocket's order grammar, defined once and used three times: to read orders,
//! to print `help`, and to list the "You can:" hints from the legal orders.

use std::collections::BTreeMap;
use std::fmt;

use super::board::{Board, Good, LineId, PlaceId, PlaceKind};
use super::hex::Hex;
use super::{Phase, Rocket};
use engine::Seat;
use engine::grammar::{self, Match, OrderError, OrderForm};

/// An order of Stephenson's Rocket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// `token CITY GOOD`: take a goods token from a city (action A).
    Token {
        /// The city.
        city: PlaceId,
        /// The good.
        good: Good,
    },
    /// `station HEX [from HEX]`: place a station, or move one of yours (action B).
    Station {
        /// Where it goes.
        hex: Hex,
        /// The station moved, or None for one from the supply.
        from: Option<Hex>,
    },
    /// `extend LINE HEX`: move a line's locomotive (action C).
    Extend {
        /// The line.
        line: LineId,
        /// Where its locomotive goes.
        hex: Hex,
    },
    /// `veto`: call a veto round.
    Veto,
    /// `no veto`: let the move stand.
    NoVeto,
    /// `bid N HEX`: bid real shares and place the locomotive.
    Bid {
        /// Shares bid.
        shares: u8,
        /// Where the locomotive would stand.
        hex: Hex,
    },
    /// `pass`: no bid in the veto round.
    Pass,
    /// `!skip`: a missed deadline or a moderator's skip; never from a player.
    Skip,
}

/// The forms of order, in the order help lists them.
pub const FORMS: &[OrderForm] = &[
    OrderForm {
        form: "extend LINE HEX",
        summary: "move a line's locomotive to HEX and take a share (action C)",
        example: "extend GWR D14",
    },
    OrderForm {
        form: "token CITY GOOD",
        summary: "take a goods token from a city (action A)",
        example: "token Manchester steel",
    },
    OrderForm {
        form: "station HEX",
        summary: "place one of your stations on an empty hex (action B)",
        example: "station F8",
    },
    OrderForm {
        form: "station HEX from HEX",
        summary: "move one of your stations (action B)",
        example: "station F8 from D9",
    },
    OrderForm {
        form: "veto",
        summary: "after a locomotive moves: call a veto round (shareholders of that line)",
        example: "veto",
    },
    OrderForm {
        form: "no veto",
        summary: "after a locomotive moves: let the move stand",
        example: "no veto",
    },
    OrderForm {
        form: "bid N HEX",
        summary: "in a veto round: bid N real shares and put the locomotive on HEX",
        example: "bid 2 E9",
    },
    OrderForm {
        form: "pass",
        summary: "in a veto round: make no bid",
        example: "pass",
    },
];

#[derive(Clone, Copy, PartialEq)]
enum Keyword {
    Token,
    Station,
    Extend,
    Veto,
    No,
    Bid,
    Pass,
}

const KEYWORDS: &[(&str, Keyword)] = &[
    ("token", Keyword::Token),
    ("station", Keyword::Station),
    ("extend", Keyword::Extend),
    ("veto", Keyword::Veto),
    ("no", Keyword::No),
    ("bid", Keyword::Bid),
    ("pass", Keyword::Pass),
];

/// Reads one order line.
pub(super) fn parse(board: &Board, line: &str) -> Result<Order, OrderError> {
    let (keyword, words) = match grammar::opening(line, KEYWORDS, FORMS)? {
        grammar::Opening::Skip => return Ok(Order::Skip),
        grammar::Opening::Order(k, words) => (k, words),
    };
    let args = &words[..];
    let arity = |n: usize, form: &str| -> Result<(), OrderError> {
        if args.len() < n {
            return Err(OrderError::new(
                line,
                format!("incomplete order; write `{form}`"),
            ));
        }
        if args.len() > n {
            return Err(OrderError::new(
                line,
                format!("unexpected `{}` after the order; write `{form}`", args[n]),
            ));
        }
        Ok(())
    };
    match keyword {
        Keyword::Token => {
            arity(2, "token CITY GOOD")?;
            Ok(Order::Token {
                city: city(board, line, args[0])?,
                good: good(line, args[1])?,
            })
        }
        Keyword::Station => {
            if args.len() == 3 {
                let from_word = grammar::match_word(args[1], &[("from".to_string(), ())]);
                if from_word != Match::One(()) {
                    return Err(OrderError::new(
                        line,
                        format!("expected `from` after the hex, found `{}`", args[1]),
                    ));
                }
                return Ok(Order::Station {
                    hex: hex(board, line, args[0])?,
                    from: Some(hex(board, line, args[2])?),
                });
            }
            if args.len() == 2 {
                return Err(OrderError::new(
                    line,
                    "write `station HEX`, or `station HEX from HEX` to move one of yours",
                ));
            }
            arity(1, "station HEX")?;
            Ok(Order::Station {
                hex: hex(board, line, args[0])?,
                from: None,
            })
        }
        Keyword::Extend => {
            arity(2, "extend LINE HEX")?;
            Ok(Order::Extend {
                line: line_id(board, line, args[0])?,
                hex: hex(board, line, args[1])?,
            })
        }
        Keyword::Veto => {
            arity(0, "veto")?;
            Ok(Order::Veto)
        }
        Keyword::No => {
            let is_veto = args.len() == 1
                && grammar::match_word(args[0], &[("veto".to_string(), ())]) == Match::One(());
            if !is_veto {
                return Err(OrderError::new(line, "write `no veto`"));
            }
            Ok(Order::NoVeto)
        }
        Keyword::Bid => {
            arity(2, "bid N HEX")?;
            let shares: u8 = args[0].parse().map_err(|_| {
                let why = if args[0].bytes().all(|b| b.is_ascii_digit()) {
                    // A number, but past what a u8 holds.
                    format!(
                        "`{}` is more shares than there are: a line has {}",
                        args[0],
                        super::SHARES_PER_LINE
                    )
                } else {
                    format!("`{}` is not a number of shares", args[0])
                };
                OrderError::new(line, format!("{why}; write `bid N HEX`"))
            })?;
            Ok(Order::Bid {
                shares,
                hex: hex(board, line, args[1])?,
            })
        }
        Keyword::Pass => {
            arity(0, "pass")?;
            Ok(Order::Pass)
        }
    }
}

fn hex(board: &Board, line: &str, word: &str) -> Result<Hex, OrderError> {
    match Hex::parse(word) {
        Some(h) if board.contains(h) => Ok(h),
        Some(h) => Err(OrderError::new(
            line,
            format!(
                "{h} is off the map (columns A to {}, rows 1 to {})",
                (b'A' + board.columns - 1) as char,
                board.rows
            ),
        )),
        None => Err(OrderError::new(
            line,
            format!("`{word}` is not a hex; a hex is a column letter and a row number, e.g. F8"),
        )),
    }
}

fn city(board: &Board, line: &str, word: &str) -> Result<PlaceId, OrderError> {
    let cities: Vec<(String, PlaceId)> = board
        .cities()
        .map(|c| (board.place(c).name.clone(), c))
        .collect();
    match grammar::match_word(word, &cities) {
        Match::One(c) => Ok(c),
        Match::Ambiguous(names) => Err(OrderError::new(
            line,
            format!("`{word}` could be {}", names.join(" or ")),
        )),
        Match::None => {
            let names: Vec<String> = cities.into_iter().map(|(n, _)| n).collect();
            let also = board
                .places
                .iter()
                .find(|p| {
                    p.name.to_lowercase().starts_with(&word.to_lowercase())
                        && !matches!(p.kind, PlaceKind::City(_))
                })
                .map(|p| match p.kind {
                    PlaceKind::Start(_) => format!(": {} is a starting town", p.name),
                    _ => format!(": {} is a railway town", p.name),
                })
                .unwrap_or_default();
            Err(OrderError::new(line, format!("`{word}` is not a city{also}")).expecting(names))
        }
    }
}

fn good(line: &str, word: &str) -> Result<Good, OrderError> {
    let goods: Vec<(String, Good)> = Good::ALL
        .iter()
        .map(|g| (g.name().to_string(), *g))
        .collect();
    match grammar::match_word(word, &goods) {
        Match::One(g) => Ok(g),
        _ => Err(OrderError::new(line, format!("`{word}` is not a good"))
            .expecting(Good::ALL.iter().map(|g| g.name().to_string()).collect())),
    }
}

fn line_id(board: &Board, line: &str, word: &str) -> Result<LineId, OrderError> {
    let mut names: Vec<(String, LineId)> = Vec::new();
    for l in board.line_ids() {
        let info = board.line(l);
        names.push((info.id.clone(), l));
        for a in &info.aliases {
            names.push((a.clone(), l));
        }
    }
    match grammar::match_word(word, &names) {
        Match::One(l) => Ok(l),
        Match::Ambiguous(n) => Err(OrderError::new(
            line,
            format!("`{word}` could be {}", n.join(" or ")),
        )),
        Match::None => Err(
            OrderError::new(line, format!("`{word}` is not a railway line"))
                .expecting(board.lines.iter().map(|l| l.id.clone()).collect()),
        ),
    }
}

/// An order with the board that names its places and lines: prints the
/// canonical text.
pub(super) struct Named<'a>(pub &'a Board, pub &'a Order);

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        match self.1 {
            Order::Token { city, good } => write!(f, "token {} {good}", b.place(*city).name),
            Order::Station { hex, from: None } => write!(f, "station {hex}"),
            Order::Station {
                hex,
                from: Some(from),
            } => write!(f, "station {hex} from {from}"),
            Order::Extend { line, hex } => write!(f, "extend {} {hex}", b.line(*line).id),
            Order::Veto => f.write_str("veto"),
            Order::NoVeto => f.write_str("no veto"),
            Order::Bid { shares, hex } => write!(f, "bid {shares} {hex}"),
            Order::Pass => f.write_str("pass"),
            Order::Skip => f.write_str(engine::SKIP_ORDER),
        }
    }
}

/// The "You can:" hints: each form with the values legal right now.
pub(super) fn hints(g: &Rocket, seat: Seat) -> Vec<String> {
    let b = g.board();
    let legal = g.legal(seat);
    let mut out = Vec::new();
    let mut extend: BTreeMap<LineId, Vec<String>> = BTreeMap::new();
    let mut tokens: BTreeMap<PlaceId, Vec<String>> = BTreeMap::new();
    let mut stations: Vec<String> = Vec::new();
    let mut moves: BTreeMap<Hex, usize> = BTreeMap::new();
    let mut bids: BTreeMap<u8, Vec<String>> = BTreeMap::new();
    for o in &legal {
        match o {
            Order::Extend { line, hex } => extend.entry(*line).or_default().push(hex.to_string()),
            Order::Token { city, good } => tokens.entry(*city).or_default().push(good.to_string()),
            Order::Station { hex, from: None } => stations.push(hex.to_string()),
            Order::Station { from: Some(f), .. } => *moves.entry(*f).or_default() += 1,
            Order::Bid { shares, hex } => bids.entry(*shares).or_default().push(hex.to_string()),
            Order::Skip => {}
            Order::Veto => out.push(grammar::hint(
                "veto",
                &[format!("call a veto round on {}", pending(g))],
                "",
            )),
            Order::NoVeto => out.push(grammar::hint(
                "no veto",
                &[format!("let {} stand", pending(g))],
                "",
            )),
            Order::Pass => {}
        }
    }
    if !extend.is_empty() {
        let parts: Vec<String> = extend
            .iter()
            .map(|(l, hs)| format!("{} {}", b.line(*l).id, hs.join(" ")))
            .collect();
        out.push(grammar::hint("extend LINE HEX", &parts, "; "));
    }
    if !tokens.is_empty() {
        let parts: Vec<String> = tokens
            .iter()
            .map(|(c, gs)| format!("{} ({})", b.place(*c).name, gs.join(", ")))
            .collect();
        out.push(grammar::hint("token CITY GOOD", &parts, "; "));
    }
    if !stations.is_empty() {
        let mut shown: Vec<String> = stations.iter().take(10).cloned().collect();
        if stations.len() > shown.len() {
            shown.push(format!("… ({} hexes in all)", stations.len()));
        }
        out.push(grammar::hint("station HEX", &shown, ", "));
    }
    if !moves.is_empty() {
        let from: Vec<String> = moves.keys().map(|h| h.to_string()).collect();
        out.push(grammar::hint(
            "station HEX from HEX",
            &[format!("move your station on {}", from.join(", "))],
            "",
        ));
    }
    if let (Some(min), Some(max)) = (bids.keys().next(), bids.keys().last()) {
        let hexes = bids.values().next().cloned().unwrap_or_default();
        let n = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        let what = format!("N: {n} (real shares); HEX: {}", hexes.join(", "));
        out.push(grammar::hint("bid N HEX", &[what], ""));
    }
    if legal.contains(&Order::Pass) {
        out.push(grammar::hint("pass", &["make no bid".to_string()], ""));
    }
    out
}

fn pending(g: &Rocket) -> String {
    match g.phase() {
        Phase::VetoQuestion { extension, .. } | Phase::VetoRound { extension, .. } => {
            format!(
                "{}'s move to {}",
                g.board().line(extension.line).id,
                extension.chosen
            )
        }
        _ => String::new(),
    }
}
