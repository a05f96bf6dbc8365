//! Helpers shared by the Rocket rule tests: building a game, playing orders
//! as text through the public `Game` trait, and reading the state back; a
//! few for Linie 1's playouts and pictures; the golden-SVG comparison.
//!
//! Everything here goes through the public API only: orders are parsed with
//! `parse_order` and applied with `apply`; the state is read through the
//! accessors of `Rocket` (Linie 1 positions are arranged through the
//! game's public snapshot form).

#![allow(dead_code)]

use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, PlayerSetup, RuleError, Seat, Setup};
use stationmaster::linie1::{Components, Linie1, Order};
use stationmaster::rocket::{
    Board, Event, Good, Hex, LineId, LineStatus, PaymentCause, PlaceId, Rocket,
};

/// The three players of the Hungarian rule book's examples, in seat order.
pub const ABC: [&str; 3] = ["Andi", "Béla", "Cecil"];

/// Seats by name, for readability.
pub const ANDI: Seat = Seat(0);
/// Béla, seat 2.
pub const BELA: Seat = Seat(1);
/// Cecil, seat 3.
pub const CECIL: Seat = Seat(2);

/// The setup of a game of `names` (seat order) with `options`.
pub fn setup(names: &[&str], seed: u64, options: &[&str]) -> Setup {
    Setup {
        kind: "rocket".into(),
        players: names
            .iter()
            .map(|n| PlayerSetup {
                name: (*n).to_string(),
                email: format!("{}@example.test", n.to_lowercase()),
            })
            .collect(),
        options: options.iter().map(|s| (*s).to_string()).collect(),
        seed,
    }
}

/// A new game of Linie 1 on the shipped components for `names` (seat
/// order).
pub fn linie1_game(names: &[&str], seed: u64, options: &[&str]) -> Linie1 {
    let setup = Setup {
        kind: "linie1".into(),
        ..setup(names, seed, options)
    };
    Linie1::new(Components::embedded().unwrap(), &setup).unwrap()
}

/// An order form first, then one of its orders: a trip is always started
/// when it can be, so that games also end by winning.
pub fn linie1_pick(rng: &mut SplitMix64, legal: &[Order]) -> Order {
    if let Some(o) = legal.iter().find(|o| matches!(o, Order::Start { .. })) {
        return o.clone();
    }
    let kind = |o: &Order| match o {
        Order::Lay { .. } => 0,
        Order::Exchange { swaps } if swaps.len() == 1 => 1,
        Order::Exchange { .. } => 2,
        Order::Draw { .. } => 3,
        Order::Move { .. } => 4,
        _ => 5,
    };
    let mut kinds: Vec<u8> = legal.iter().map(kind).collect();
    kinds.sort();
    kinds.dedup();
    let k = kinds[rng.below(kinds.len())];
    let of_kind: Vec<&Order> = legal.iter().filter(|o| kind(o) == k).collect();
    of_kind[rng.below(of_kind.len())].clone()
}

// The arranged Linie 1 route, shared with `benches/engine.rs`.
#[path = "../support/linie1_route.rs"]
mod linie1_route;
pub use linie1_route::{LINIE1_ROUTE, linie1_with_route};

/// A new game on the shipped board in which `first` is the starting player
/// (the seed chooses the starting player, so we look for a seed that does).
pub fn game_with(names: &[&str], first: Seat, options: &[&str]) -> Rocket {
    for seed in 0..1000 {
        let g = Rocket::new(Board::embedded().unwrap(), &setup(names, seed, options)).unwrap();
        if g.turn().active == first {
            return g;
        }
    }
    panic!("no seed makes {first} the starting player");
}

/// A new game of `names` where the first of them starts.
pub fn game(names: &[&str]) -> Rocket {
    game_with(names, Seat(0), &[])
}

/// A hex by name, e.g. `hex("F8")`.
pub fn hex(name: &str) -> Hex {
    Hex::parse(name).unwrap_or_else(|| panic!("{name} is not a hex name"))
}

/// A railway line by its id, e.g. `line(&g, "GWR")`.
pub fn line(g: &Rocket, id: &str) -> LineId {
    let i = g
        .board()
        .lines
        .iter()
        .position(|l| l.id == id)
        .unwrap_or_else(|| panic!("no line {id}"));
    LineId(i as u8)
}

/// A place by its name, e.g. `place(&g, "Manchester")`.
pub fn place(g: &Rocket, name: &str) -> PlaceId {
    let i = g
        .board()
        .places
        .iter()
        .position(|p| p.name == name)
        .unwrap_or_else(|| panic!("no place {name}"));
    PlaceId(i as u8)
}

/// A player's money in thousands of pounds.
pub fn k(g: &Rocket, seat: Seat) -> u32 {
    g.player(seat).money.pounds() / 1000
}

/// Everyone's money in thousands, by seat.
pub fn moneys(g: &Rocket) -> Vec<u32> {
    (0..g.players().len())
        .map(|s| k(g, Seat(s as u8)))
        .collect()
}

/// A player's shares of a line (real and supplementary, as for majorities).
pub fn shares(g: &Rocket, seat: Seat, id: &str) -> u8 {
    g.player(seat).shares_of(line(g, id))
}

/// A player's real shares of a line.
pub fn real_shares(g: &Rocket, seat: Seat, id: &str) -> u8 {
    g.player(seat).shares[line(g, id).index()]
}

/// Shares of a line left on the board.
pub fn board_shares(g: &Rocket, id: &str) -> u8 {
    g.line(line(g, id)).board_shares
}

/// Where a line's locomotive stands.
pub fn loco(g: &Rocket, id: &str) -> Option<Hex> {
    g.line(line(g, id)).locomotive
}

/// A line's status.
pub fn status(g: &Rocket, id: &str) -> LineStatus {
    g.line(line(g, id)).status
}

/// The names of the places connected to a line, sorted.
pub fn connected(g: &Rocket, id: &str) -> Vec<String> {
    let mut v: Vec<String> = g
        .line(line(g, id))
        .connected
        .iter()
        .map(|p| g.board().place(*p).name.clone())
        .collect();
    v.sort();
    v
}

/// A player's goods tokens of one kind.
pub fn goods(g: &Rocket, seat: Seat, good: Good) -> u8 {
    g.player(seat).goods(good)
}

/// Plays `text` as `seat`; panics with the reason if it is refused.
pub fn order(g: &mut Rocket, seat: Seat, text: &str) -> Vec<Event> {
    let o = g
        .parse_order(seat, text)
        .unwrap_or_else(|e| panic!("`{text}` does not parse: {e}"));
    let events = g
        .apply(seat, &o)
        .unwrap_or_else(|e| panic!("`{text}` by {seat} refused: {e} ({})", e.rule));
    g.check_invariants()
        .unwrap_or_else(|e| panic!("after `{text}`: {e}"));
    events
}

/// Plays `text` as the active player.
pub fn act(g: &mut Rocket, text: &str) -> Vec<Event> {
    let seat = g.turn().active;
    order(g, seat, text)
}

/// Everyone asked about a veto answers `no veto`; the events of the last
/// answer (which settle the extension).
pub fn no_vetoes(g: &mut Rocket) -> Vec<Event> {
    let mut events = Vec::new();
    while let stationmaster::rocket::Phase::VetoQuestion { waiting, .. } = g.phase() {
        let s = waiting[0];
        events.extend(order(g, s, "no veto"));
    }
    events
}

/// The active player extends (`"GWR C14"`), nobody vetoes; all the events.
pub fn extend(g: &mut Rocket, what: &str) -> Vec<Event> {
    let mut events = act(g, &format!("extend {what}"));
    events.extend(no_vetoes(g));
    events
}

/// Where each seat parks the station it shuffles to use up an action: far
/// from every line the tests move.
const PARKING: [[&str; 2]; 4] = [["D1", "E1"], ["L7", "M7"], ["A19", "B19"], ["K13", "L13"]];

/// Uses up one action of the active player harmlessly: places a station on
/// the player's parking hex, or moves it to the other one.
pub fn filler(g: &mut Rocket) -> Vec<Event> {
    let seat = g.turn().active;
    let [a, b] = PARKING[seat.index()];
    if g.cell(hex(a)).station == Some(seat) {
        act(g, &format!("station {b} from {a}"))
    } else if g.cell(hex(b)).station == Some(seat) {
        act(g, &format!("station {a} from {b}"))
    } else {
        act(g, &format!("station {a}"))
    }
}

/// Fillers until the turn passes to the next player.
pub fn end_turn(g: &mut Rocket) {
    let n = g.turn().number;
    while g.turn().number == n && g.result().is_none() {
        filler(g);
    }
}

/// Plays whole turns of fillers until `seat` is the active player with two
/// actions left.
pub fn turn_to(g: &mut Rocket, seat: Seat) {
    if g.turn().active == seat && g.turn().actions_left == 2 {
        return;
    }
    end_turn(g);
    while g.turn().active != seat {
        end_turn(g);
    }
}

/// `seat` extends `what` as one of their actions: fillers first until it is
/// their turn, then the extension (nobody vetoes), then the rest of their
/// turn in fillers. Events of the extension only.
pub fn turn_extend(g: &mut Rocket, seat: Seat, what: &str) -> Vec<Event> {
    turn_to(g, seat);
    let events = extend(g, what);
    end_turn(g);
    events
}

/// Tries `text` as `seat`, expecting a refusal: checks that the game is
/// unchanged, that the message is a sentence and that the rule is named.
pub fn refused(g: &mut Rocket, seat: Seat, text: &str) -> RuleError {
    let before = g.clone();
    let o = g
        .parse_order(seat, text)
        .unwrap_or_else(|e| panic!("`{text}` does not parse: {e}"));
    let err = match g.apply(seat, &o) {
        Ok(events) => panic!("`{text}` by {seat} was accepted: {events:?}"),
        Err(e) => e,
    };
    assert_eq!(*g, before, "the refused `{text}` changed the game");
    assert!(
        legal_lines(g, seat).iter().all(|l| l != &g.order_text(&o)),
        "`{text}` refused but listed as legal"
    );
    let m = &err.message;
    if std::env::var_os("SHOW_REFUSALS").is_some() {
        eprintln!("REFUSED `{text}`: {m} [{}]", err.rule);
    }
    assert!(
        m.chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c == '`' || c.is_ascii_digit())
            && m.ends_with('.')
            && m.split_whitespace().count() >= 4,
        "`{text}`: not a clear sentence: {m:?}"
    );
    assert!(
        err.rule.contains("rules") || err.rule.contains("rulings") || err.rule.contains("option"),
        "`{text}`: the rule is not named: {:?}",
        err.rule
    );
    err
}

/// The legal orders of `seat` in canonical text.
pub fn legal_lines(g: &Rocket, seat: Seat) -> Vec<String> {
    g.legal_orders(seat)
        .iter()
        .map(|o| g.order_text(o))
        .collect()
}

/// The legal extension targets of a line now, as hex names.
pub fn moves_of(g: &Rocket, id: &str) -> Vec<String> {
    let prefix = format!("extend {id} ");
    let mut v: Vec<String> = legal_lines(g, g.turn().active)
        .into_iter()
        .filter_map(|l| l.strip_prefix(&prefix).map(str::to_string))
        .collect();
    v.sort();
    v
}

/// The payments among `events`: (seat, thousands, cause).
pub fn payments(events: &[Event]) -> Vec<(Seat, u32, PaymentCause)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Paid {
                player,
                amount,
                cause,
            } => Some((*player, amount.pounds() / 1000, cause.clone())),
            _ => None,
        })
        .collect()
}

/// The payments among `events` as (seat, thousands).
pub fn paid(events: &[Event]) -> Vec<(Seat, u32)> {
    payments(events)
        .into_iter()
        .map(|(s, k, _)| (s, k))
        .collect()
}

/// True if some event matches.
pub fn has(events: &[Event], f: impl Fn(&Event) -> bool) -> bool {
    events.iter().any(f)
}

/// Plays the first actions of a game so that the stations given are on the
/// board: each owner places theirs in turn (fillers complete the turns).
pub fn place_stations(g: &mut Rocket, stations: &[(Seat, &str)]) {
    for (owner, at) in stations {
        turn_to(g, *owner);
        act(g, &format!("station {at}"));
        end_turn(g);
    }
}

/// The position of the Hungarian rule book's veto example, on our board.
///
/// Three players Andi, Béla, Cecil (seats 1 to 3). GWR (green) has moved
/// Bristol C15 → C14 (Béla) → D14 (Andi) → E14 (Béla) → F13 (Cecil): its
/// locomotive stands on S = F13 facing north-east, with the three hexes in
/// front A = E12, B = F12 and C = G13. Andi holds 1 GWR share, Béla 2,
/// Cecil 1, the board 12. Cecil is to play, two actions left.
pub fn veto_position(options: &[&str], stations: &[(Seat, &str)]) -> Rocket {
    let mut g = game_with(&ABC, ANDI, options);
    place_stations(&mut g, stations);
    turn_extend(&mut g, BELA, "GWR C14");
    turn_extend(&mut g, ANDI, "GWR D14");
    turn_extend(&mut g, BELA, "GWR E14");
    turn_extend(&mut g, CECIL, "GWR F13");
    turn_to(&mut g, CECIL);
    assert_eq!(loco(&g, "GWR"), Some(hex("F13")));
    assert_eq!(moves_of(&g, "GWR"), ["E12", "F12", "G13"]);
    assert_eq!(
        [
            shares(&g, ANDI, "GWR"),
            shares(&g, BELA, "GWR"),
            shares(&g, CECIL, "GWR")
        ],
        [1, 2, 1]
    );
    g
}

/// LSWR (orange) runs from Southampton F18 to F17 (Cecil), E16 (Béla,
/// connecting Swindon), D16 (Cecil) and D15 (Cecil), next to GWR's
/// locomotive still on Bristol C15: LSWR merges into GWR. Three players,
/// Andi first; returns the events of the merging extension. Cecil then holds
/// 3 LSWR shares, Béla 1; LSWR is worth Southampton, Swindon and Bristol.
pub fn lswr_into_gwr(g: &mut Rocket) -> Vec<Event> {
    turn_extend(g, CECIL, "LSWR F17");
    turn_extend(g, BELA, "LSWR E16");
    turn_extend(g, CECIL, "LSWR D16");
    assert_eq!([shares(g, CECIL, "LSWR"), shares(g, BELA, "LSWR")], [2, 1]);
    turn_to(g, CECIL);
    extend(g, "LSWR D15")
}

/// Position of the first event matching `f`; panics if there is none.
pub fn pos(events: &[Event], what: &str, f: impl Fn(&Event) -> bool) -> usize {
    events
        .iter()
        .position(f)
        .unwrap_or_else(|| panic!("no {what} among {events:#?}"))
}

/// Compares an SVG with its reviewed golden copy in `tests/fixtures/pictures/`,
/// tolerant of float noise: the text between numbers must match exactly, each
/// number within 0.01. `SM_BLESS=1` (re)writes the golden copy instead, for a
/// person to review in the diff.
#[allow(dead_code)] // used by the picture tests as they land
pub fn assert_svg_matches(actual: &str, golden: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pictures")
        .join(golden);
    if std::env::var_os("SM_BLESS").is_some() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("the golden folder");
        }
        std::fs::write(&path, actual).expect("the golden SVG written");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with SM_BLESS=1 to write it", path.display()));
    let (a, e) = (svg_tokens(actual), svg_tokens(&expected));
    if let Some(i) = first_svg_difference(&a, &e) {
        panic!(
            "{} differs from the picture drawn at token {i}: golden {:?}, drawn {:?} \
             (SM_BLESS=1 rewrites it once the change is reviewed)",
            path.display(),
            e.get(i),
            a.get(i)
        );
    }
}

/// Where two token runs first differ beyond float noise, if anywhere.
fn first_svg_difference(a: &[SvgToken], e: &[SvgToken]) -> Option<usize> {
    let differs = a.iter().zip(e).position(|(a, e)| match (a, e) {
        (SvgToken::Number(a), SvgToken::Number(e)) => (a - e).abs() > 0.01,
        (a, e) => a != e,
    });
    differs.or((a.len() != e.len()).then(|| a.len().min(e.len())))
}

#[derive(Debug, PartialEq)]
enum SvgToken {
    Text(String),
    Number(f64),
}

/// Splits SVG text into its numbers (`-12.5`; exponents are not written by
/// our drawings) and the text between them.
fn svg_tokens(svg: &str) -> Vec<SvgToken> {
    let mut tokens = Vec::new();
    let mut text = String::new();
    let mut chars = svg.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let starts_number = c.is_ascii_digit()
            || (c == '-' || c == '.') && chars.peek().is_some_and(|&(_, n)| n.is_ascii_digit());
        if !starts_number {
            text.push(c);
            continue;
        }
        let mut end = i + c.len_utf8();
        while let Some(&(j, n)) = chars.peek() {
            if n.is_ascii_digit() || n == '.' {
                end = j + 1;
                chars.next();
            } else {
                break;
            }
        }
        match svg[i..end].parse::<f64>() {
            Ok(n) => {
                if !text.is_empty() {
                    tokens.push(SvgToken::Text(std::mem::take(&mut text)));
                }
                tokens.push(SvgToken::Number(n));
            }
            Err(_) => text.push_str(&svg[i..end]),
        }
    }
    if !text.is_empty() {
        tokens.push(SvgToken::Text(text));
    }
    tokens
}

#[test]
fn golden_svgs_tolerate_float_noise_and_nothing_else() {
    let a = svg_tokens(r#"<circle cx="10.0001" cy="-3.5" r="2"/>"#);
    let b = svg_tokens(r#"<circle cx="10.0002" cy="-3.5" r="2"/>"#);
    let c = svg_tokens(r#"<circle cx="10.5" cy="-3.5" r="2"/>"#);
    assert_eq!(first_svg_difference(&a, &b), None);
    assert_eq!(first_svg_difference(&a, &c), Some(1));
    assert_eq!(first_svg_difference(&a, &a[..3]), Some(3));
    assert_eq!(a[1], SvgToken::Number(10.0001));
    assert_eq!(a[3], SvgToken::Number(-3.5));
}

/// `text` with its lines run together and its blanks made single: what a
/// wrapped mail says, to look a sentence up in.
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The standard output (UTF-8) of a run of the binary with `args` that
/// must have succeeded; else the test fails with both its outputs.
pub fn succeeded(args: &[&str], out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the binary writes UTF-8")
}
