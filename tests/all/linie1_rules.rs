//! Linie 1: one test per ruling of `../shared/linie1.md` and per section of
//! the rule book (`seeds/003`, Italian), every kind of refused order, the
//! variants, and the order grammar.
//!
//! Orders go through the public `Game` trait as text. Positions are arranged
//! by editing the game's serialised state (its public snapshot form), always
//! keeping the 126 tiles accounted for.
//!
//! The scenery of most tests: line 2 runs from terminal 2W (legs A10, A11)
//! along row 10 to K10, north to K7 and east into terminal 2E (legs L6, L7).
//! Tiles next to buildings carry their stop signs: D on B10, K on G10, B on
//! I10, A on K8.

use serde_json::{Value, json};
use stationmaster::engine::Viewer;
use stationmaster::engine::{Game, PlayerSetup, RuleError, Seat, Setup, Status};
use stationmaster::linie1::{Components, Edge, Event, Linie1, Order, Paths, Square};

// The scenery: line 2's whole route, from 2W to 2E.
use crate::common::LINIE1_ROUTE as ROUTE;

const ANNA: Seat = Seat(0);
const BERT: Seat = Seat(1);
const NAMES: [&str; 7] = ["Anna", "Bert", "Cora", "Dan", "Eve", "Fay", "Gus"];

fn setup(n: usize, seed: u64, options: &[&str]) -> Setup {
    Setup {
        kind: "linie1".into(),
        players: NAMES[..n]
            .iter()
            .map(|name| PlayerSetup {
                name: (*name).into(),
                email: format!("{}@example.test", name.to_lowercase()),
            })
            .collect(),
        options: options.iter().map(|s| (*s).to_string()).collect(),
        seed,
    }
}

fn game(n: usize, options: &[&str]) -> Linie1 {
    Linie1::new(Components::embedded().unwrap(), &setup(n, 7, options)).unwrap()
}

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

fn tile_index(g: &Linie1, paths: &str) -> usize {
    g.data()
        .tile_with_paths(Paths::parse(paths).unwrap())
        .unwrap_or_else(|| panic!("no tile {paths}"))
        .index()
}

fn building_index(g: &Linie1, letter: char) -> usize {
    g.data().building_by_letter(letter).unwrap().index()
}

/// The game after `f` edits its serialised state; tile counts still add up.
fn edit(g: &Linie1, f: impl FnOnce(&mut Value)) -> Linie1 {
    let mut v = serde_json::to_value(g).unwrap();
    f(&mut v);
    let g: Linie1 = serde_json::from_value(v).unwrap();
    g.check_invariants().unwrap();
    g
}

/// `seat`'s hand set to `tiles`, the old hand back into the supply.
fn hand(g: &Linie1, seat: Seat, tiles: &[&str]) -> Linie1 {
    let ids: Vec<usize> = tiles.iter().map(|t| tile_index(g, t)).collect();
    edit(g, |v| {
        let old: Vec<usize> = v["players"][seat.index()]["hand"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect();
        for t in old {
            let n = v["supply"][t].as_u64().unwrap();
            v["supply"][t] = json!(n + 1);
        }
        for t in &ids {
            let n = v["supply"][*t].as_u64().unwrap();
            v["supply"][*t] = json!(n - 1);
        }
        v["players"][seat.index()]["hand"] = json!(ids);
    })
}

/// Tiles put on the board from the supply, in order, with stop signs given
/// as laying them would (rulings 3).
fn board(g: &Linie1, tiles: &[(&str, &str)]) -> Linie1 {
    let d = g.data().clone();
    let placed: Vec<(Square, usize, u8)> = tiles
        .iter()
        .map(|(s, p)| (sq(s), tile_index(g, p), Paths::parse(p).unwrap().0))
        .collect();
    edit(g, |v| {
        for (s, t, bits) in placed {
            let i = d.index(s);
            v["cells"][i] = json!({"tile": t, "paths": bits});
            let n = v["supply"][t].as_u64().unwrap();
            v["supply"][t] = json!(n - 1);
            for e in Edge::ALL {
                if let Some(n) = d.step(s, e)
                    && let Some(b) = d.building_at(n)
                    && v["stop_signs"][b.index()].is_null()
                {
                    v["stop_signs"][b.index()] = json!({"row": s.row, "col": s.col});
                }
            }
        }
    })
}

/// `seat` holds line `line` (1 to 6) and a route card whose row for that
/// line is `stops`.
fn cards(g: &Linie1, seat: Seat, line: u8, stops: &[char]) -> Linie1 {
    let ids: Vec<usize> = stops.iter().map(|c| building_index(g, *c)).collect();
    edit(g, |v| {
        let route = v["players"][seat.index()]["route"].as_u64().unwrap() as usize;
        // Whoever held that line before takes this player's.
        let mine = v["players"][seat.index()]["line"].clone();
        for p in v["players"].as_array_mut().unwrap() {
            if p["line"] == json!(line - 1) {
                p["line"] = mine.clone();
            }
        }
        v["players"][seat.index()]["line"] = json!(line - 1);
        v["data"]["routes"][route]["rows"][usize::from(line - 1)] = json!(ids);
    })
}

/// Anna on line 2 with stops K and A, the whole route built.
/// The game with its supply emptied (the tiles out of the game).
fn no_supply(g: &Linie1) -> Linie1 {
    edit(g, |v| {
        let supply = v["supply"].as_array().unwrap().clone();
        v["out_of_game"] = json!(supply);
        v["supply"] = json!(vec![0; supply.len()]);
    })
}

fn route_game(n: usize, options: &[&str]) -> Linie1 {
    let g = cards(&game(n, options), ANNA, 2, &['K', 'A']);
    board(&g, ROUTE)
}

fn order(g: &mut Linie1, seat: Seat, line: &str) -> Result<Vec<Event>, RuleError> {
    let o = g
        .parse_order(seat, line)
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    g.apply(seat, &o)
}

fn ok(g: &mut Linie1, seat: Seat, line: &str) -> Vec<Event> {
    let events = order(g, seat, line).unwrap_or_else(|e| panic!("{line}: {e}"));
    g.check_invariants().unwrap();
    events
}

/// Refused, citing `rule`, and nothing changed.
fn refused(g: &Linie1, seat: Seat, line: &str, rule: &str) -> String {
    let mut copy = g.clone();
    let e = order(&mut copy, seat, line).expect_err(line);
    assert_eq!(&copy, g, "a refused order changed the game");
    assert_eq!(e.rule, rule, "{line}: {e}");
    // The citation is `rule`, added once where the sentence is put
    // together (issue 35: "(rulings 6). (rulings 6)"), never in the text.
    for cited in [
        "(rulings",
        "(rule book",
        "(Stationmaster ruling",
        "(variant",
        "(seed",
    ] {
        assert!(
            !e.message.contains(cited),
            "{line}: a citation in the text: {e}"
        );
    }
    e.message
}

fn paths_on(g: &Linie1, s: &str) -> Option<String> {
    g.laid(sq(s)).map(|l| l.paths.to_string())
}

fn sign_of(g: &Linie1, letter: char) -> Option<Square> {
    g.stop_sign(g.data().building_by_letter(letter).unwrap())
}

fn tram(g: &Linie1, seat: Seat) -> Option<String> {
    g.view(Viewer::Spectator).players[seat.index()]
        .trip
        .as_ref()
        .and_then(|t| t.tram.clone())
}

// ===== Set-up (rule book, Preparazione; rulings 4) ==================================

#[test]
fn setup_deals_secret_cards_and_open_start_hands() {
    let g = game(4, &[]);
    let v = g.view(Viewer::Spectator);
    for p in &v.players {
        assert_eq!(
            p.hand,
            ["WE", "WE", "WE", "SW", "SW"],
            "3 straights, 2 curves"
        );
        assert_eq!(p.line, None, "a spectator sees no line card");
        assert_eq!(p.stops, None);
    }
    // Every tile not dealt is in the supply: 126 - 5 × 4 (rule book,
    // Preparazione: "Tutte le altre tessere sono messe coperte nella
    // scatola").
    assert_eq!(g.supply_left(), 106);
    assert_eq!(game(2, &[]).supply_left(), 116);
    assert_eq!(game(6, &[]).supply_left(), 96);
    let lines: std::collections::BTreeSet<_> = g.players().iter().map(|p| p.line).collect();
    assert_eq!(lines.len(), 4, "each player a different line");
    // 2-stop cards with 4 players, 3-stop with 2 (translator's note).
    assert!(
        g.players()
            .iter()
            .all(|p| g.data().routes[p.route.index()].stops() == 2)
    );
    let g2 = game(2, &[]);
    assert!(
        g2.players()
            .iter()
            .all(|p| g2.data().routes[p.route.index()].stops() == 3)
    );
    let g3 = game(2, &["stops=2"]);
    assert!(
        g3.players()
            .iter()
            .all(|p| g3.data().routes[p.route.index()].stops() == 2)
    );
}

#[test]
fn setup_is_determined_by_the_seed() {
    let a = Linie1::new(Components::embedded().unwrap(), &setup(3, 42, &[])).unwrap();
    let b = Linie1::new(Components::embedded().unwrap(), &setup(3, 42, &[])).unwrap();
    assert_eq!(a, b);
    let differ = (0..20).any(|s| {
        let c = Linie1::new(Components::embedded().unwrap(), &setup(3, s, &[])).unwrap();
        c.players()[0].line != a.players()[0].line || c.players()[0].route != a.players()[0].route
    });
    assert!(differ, "the seed deals the cards");
}

#[test]
fn player_counts_and_options_are_checked() {
    let c = Components::embedded().unwrap();
    assert!(Linie1::new(c.clone(), &setup(1, 1, &[])).is_err());
    // Six trams, six line cards, six route cards a set (rule book,
    // Preparazione): six players, each with a line of their own.
    let six = Linie1::new(c.clone(), &setup(6, 1, &[])).unwrap();
    let lines: std::collections::BTreeSet<_> = six.players().iter().map(|p| p.line).collect();
    assert_eq!(lines.len(), 6);
    let e = Linie1::new(c.clone(), &setup(7, 1, &[])).unwrap_err();
    assert!(e.to_string().contains("2 to 6"), "{e}");
    let e = Linie1::new(c.clone(), &setup(2, 1, &["stops=4"])).unwrap_err();
    assert!(
        e.to_string()
            .contains("option `stops` takes one of 2, 3, not `4`"),
        "{e}"
    );
    for o in ["die", "die_or_repeat", "ordered_stops", "stops=3"] {
        assert!(Linie1::new(c.clone(), &setup(2, 1, &[o])).is_ok(), "{o}");
    }
}

/// `ordered_stops` (variant 3, "Nel caso di una partita a tre fermate")
/// never does nothing: with 4 or 5 players, whose default is two stops, it
/// deals three-stop cards; with `stops=2` given, the game master is told
/// at `new` that the two cannot go together.
#[test]
fn variant_3_ordered_stops_deals_three_stops_and_refuses_two() {
    let g = game(4, &["ordered_stops"]);
    assert_eq!(g.options().stops, 3);
    for seat in 0..4 {
        assert_eq!(g.required_stops(Seat(seat)).len(), 3, "seat {seat}");
    }
    assert_eq!(
        g.view(Viewer::Spectator).options,
        ["stops=3", "ordered_stops"]
    );
    assert_eq!(game(4, &[]).options().stops, 2, "the default stays");
    let c = Components::embedded().unwrap();
    for options in [["ordered_stops", "stops=2"], ["stops=2", "ordered_stops"]] {
        let e = Linie1::new(c.clone(), &setup(4, 1, &options)).unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains("linie1 option `ordered_stops` cannot go with `stops=2`")
                && e.contains("Nel caso di una partita a tre fermate"),
            "{e}"
        );
    }
    assert!(Linie1::new(c, &setup(4, 1, &["ordered_stops", "stops=3"])).is_ok());
}

#[test]
fn rulings_04_each_reader_sees_only_their_own_cards() {
    let g = game(3, &[]);
    for reader in 0..3u8 {
        let v = g.view(Viewer::Player(Seat(reader)));
        for p in &v.players {
            assert_eq!(p.line.is_some(), p.seat == reader);
            assert_eq!(p.route_card.is_some(), p.seat == reader);
        }
        let text = g.render_status(Viewer::Player(Seat(reader)));
        assert!(text.contains("Your cards (secret"), "{text}");
        let json = g.view_json(Viewer::Player(Seat(reader))).to_string();
        let mine = g.view(Viewer::Player(Seat(reader))).players[usize::from(reader)]
            .route_card
            .clone()
            .unwrap();
        assert!(json.contains(&mine));
    }
    assert!(!g.render_status(Viewer::Spectator).contains("Your cards"));
}

// ===== Laying (rulings 1; rule book, Piazzare le tessere) ============================

#[test]
fn rulings_01_two_tiles_then_draw_back_to_five() {
    let mut g = game(2, &[]);
    ok(&mut g, ANNA, "lay E5 WE");
    assert_eq!(g.players()[0].hand.len(), 4);
    assert_eq!(g.turn().active, ANNA, "one more tile to lay");
    let ev = ok(&mut g, ANNA, "lay H8 NS");
    assert_eq!(g.players()[0].hand.len(), 5, "drew back to five");
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, Event::Drew { from: None, .. }))
            .count(),
        2
    );
    assert_eq!(g.supply_left(), 126 - 5 * 2 - 2);
    assert_eq!(g.turn().active, BERT);
    assert_eq!(
        paths_on(&g, "H8").as_deref(),
        Some("NS"),
        "a straight turned"
    );
}

#[test]
fn rulings_01_a_tile_need_not_connect_but_must_fit() {
    let g = board(&game(2, &[]), &[("C5", "WE")]);
    let mut g1 = g.clone();
    ok(&mut g1, ANNA, "lay H8 WE"); // connects to nothing
    let mut g2 = g.clone();
    ok(&mut g2, ANNA, "lay D5 WE"); // meets C5's east end
    // Its end would meet C5's side without track.
    let m = refused(&g, ANNA, "lay C6 NS", "rulings 1");
    assert!(m.contains("meet the tile on C5"), "{m}");
    // C5's east end would meet its side without track.
    let m = refused(&g, ANNA, "lay D5 NS", "rulings 1");
    assert!(m.contains("the track of the tile on C5"), "{m}");
}

#[test]
fn rulings_01_no_track_off_the_edge_except_into_a_terminal() {
    let g = game(2, &[]);
    let m = refused(&g, ANNA, "lay A4 WE", "rulings 1");
    assert!(
        m.contains("run off the board at the west side of A4"),
        "{m}"
    );
    let mut g1 = g.clone();
    ok(&mut g1, ANNA, "lay A6 WE"); // a leg of terminal 1W
    let mut g2 = g.clone();
    ok(&mut g2, ANNA, "lay F1 NS"); // a leg of terminal 4N
    refused(&g, ANNA, "lay E1 NS", "rulings 1");
    // A terminal's leg is a track end: a side without track may not face
    // it, or the line could never reach its terminal.
    let m = refused(&g, ANNA, "lay A7 NS", "rulings 1");
    assert!(m.contains("terminal 1W enters A7"), "{m}");
    refused(&g, ANNA, "lay F1 WE", "rulings 1");
}

#[test]
fn rulings_01_no_track_into_or_onto_a_building() {
    let g = game(2, &[]);
    // F stands on D2.
    let m = refused(&g, ANNA, "lay D3 NS", "rulings 1");
    assert!(m.contains("into building F on D2"), "{m}");
    let m = refused(&g, ANNA, "lay D2 WE", "rulings 1");
    assert!(m.contains("building F"), "{m}");
    let mut g1 = g.clone();
    ok(&mut g1, ANNA, "lay D3 WE"); // beside F, no end facing it
}

#[test]
fn rulings_01_only_hand_tiles_on_empty_squares() {
    let g = board(&game(2, &[]), &[("C5", "WE")]);
    let m = refused(&g, ANNA, "lay H8 NS+WE", "rule book, Piazzare le tessere");
    assert!(m.contains("no crossing tile"), "{m}");
    let m = refused(&g, ANNA, "lay C5 WE", "rulings 2");
    assert!(m.contains("exchange C5"), "{m}");
    refused(&g, BERT, "lay H8 WE", "rule book, Il gioco");
}

// ===== Stop signs (rulings 3) ===================================================

#[test]
fn rulings_03_the_first_tile_next_to_a_building_gets_its_stop_sign() {
    let mut g = game(2, &[]);
    let ev = ok(&mut g, ANNA, "lay D3 WE"); // below F (D2)
    assert!(ev.iter().any(|e| matches!(e, Event::StopSign { .. })));
    assert_eq!(sign_of(&g, 'F'), Some(sq("D3")));
    ok(&mut g, ANNA, "lay C2 NS"); // west of F: no second sign
    assert_eq!(sign_of(&g, 'F'), Some(sq("D3")));
    // Both tiles of one turn next to L (D7): the first laid gets it.
    let mut g = game(2, &[]);
    ok(&mut g, ANNA, "lay D8 WE");
    ok(&mut g, ANNA, "lay D6 WE");
    assert_eq!(sign_of(&g, 'L'), Some(sq("D8")));
}

// ===== Exchanges (rulings 2; rule book, Scambiare le tessere) =========================

#[test]
fn rulings_02_an_exchange_keeps_the_old_paths_and_adds_some() {
    let g = board(&game(2, &[]), &[("C5", "WE")]);
    let g = hand(&g, ANNA, &["NS+WE", "NS+SW", "WE", "WE", "WS"]);
    let mut g1 = g.clone();
    let ev = ok(&mut g1, ANNA, "exchange C5 NS+WE");
    assert!(matches!(ev[0], Event::Exchanged { .. }));
    assert_eq!(paths_on(&g1, "C5").as_deref(), Some("NS+WE"));
    // The straight taken up is in the hand, and counts as one draw.
    assert_eq!(g1.players()[0].hand.len(), 5);
    // ... playable at once.
    let ev = ok(&mut g1, ANNA, "lay H8 NS");
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, Event::Drew { .. }))
            .count(),
        1
    );
    // NS+SW drops C5's east-west path.
    let m = refused(&g, ANNA, "exchange C5 NS+SW", "rulings 2");
    assert!(m.contains("does not keep every path"), "{m}");
    let m = refused(&g, ANNA, "exchange D5 NS+WE", "rulings 2");
    assert!(m.contains("no tile to exchange"), "{m}");
}

#[test]
fn rulings_02_new_track_ends_obey_ruling_1() {
    // Crossing on C5 would send track north into C4's trackless side.
    let g = board(
        &game(2, &[]),
        &[("C5", "WE"), ("C4", "WE"), ("B4", "WE"), ("D4", "WE")],
    );
    let g = hand(&g, ANNA, &["NS+WE", "WE", "WE", "WE", "WS"]);
    let m = refused(&g, ANNA, "exchange C5 NS+WE", "rulings 2");
    assert!(m.contains("C4"), "{m}");
}

#[test]
fn rulings_02_tiles_with_trees_are_never_exchanged() {
    let g = board(&game(2, &[]), &[("C5", "NS+WE")]);
    let g = hand(&g, ANNA, &["NE+ES+SW+WN", "WE", "WE", "WE", "WS"]);
    let m = refused(&g, ANNA, "exchange C5 NE+ES+SW+WN", "rulings 2");
    assert!(m.contains("trees"), "{m}");
}

#[test]
fn rulings_02_two_neighbours_exchanged_together_to_join_them() {
    // Two straights side by side, not joined; each alone cannot turn
    // towards the other.
    let g = board(&game(2, &[]), &[("C5", "NS"), ("D5", "NS")]);
    let g = hand(&g, ANNA, &["NS+SE", "NS+SW", "WE", "WE", "WS"]);
    refused(&g, ANNA, "exchange C5 NS+SE", "rulings 2");
    refused(&g, ANNA, "exchange D5 NS+SW", "rulings 2");
    let mut g1 = g.clone();
    let ev = ok(&mut g1, ANNA, "exchange C5 NS+SE D5 NS+SW");
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, Event::Exchanged { .. }))
            .count(),
        2
    );
    assert_eq!(
        g1.turn().active,
        BERT,
        "both tiles of the turn; two exchanges, no draw"
    );
    assert_eq!(g1.players()[0].hand.len(), 5);
    // Not neighbours; not for the second tile of a turn.
    let g2 = board(&g, &[("F5", "NS")]);
    refused(&g2, ANNA, "exchange C5 NS+SE F5 NS+SW", "rulings 2");
    let mut g3 = g.clone();
    ok(&mut g3, ANNA, "lay H8 WE");
    let m = refused(&g3, ANNA, "exchange C5 NS+SE D5 NS+SW", "rulings 2");
    assert!(m.contains("one left"), "{m}");
}

#[test]
fn rulings_02_a_stop_sign_stays_on_an_exchanged_tile() {
    let mut g = game(2, &[]);
    ok(&mut g, ANNA, "lay D3 WE"); // F's sign
    ok(&mut g, ANNA, "lay H8 WE");
    let g = hand(&g, BERT, &["WE+WN+NE", "WE", "WE", "WE", "WS"]);
    // Turned so its curves go south: WE+SE+SW is not a tile; use the T
    // turned half round: WE, WS, SE.
    let mut g = g;
    ok(&mut g, BERT, "exchange D3 WE+SW+SE");
    assert_eq!(sign_of(&g, 'F'), Some(sq("D3")));
}

// ===== Drawing (rule book, Piazzare le tessere; rulings 8) ===========================

#[test]
fn drawing_from_a_drivers_open_hand() {
    let mut g = route_game(2, &["stops=2"]);
    ok(&mut g, ANNA, "start 2W");
    ok(&mut g, ANNA, "move A10");
    // Bert lays two; Anna's open hand gives a choice.
    ok(&mut g, BERT, "lay C4 WE");
    ok(&mut g, BERT, "lay H4 WE");
    assert!(g.legal_orders(BERT).contains(&Order::Draw {
        from: None,
        tile: None
    }));
    let before = g.players()[0].hand.len();
    let ev = ok(&mut g, BERT, "draw Anna WS");
    assert!(matches!(
        ev[0],
        Event::Drew {
            from: Some(ANNA),
            ..
        }
    ));
    assert_eq!(g.players()[0].hand.len(), before - 1);
    refused(&g, BERT, "draw Bert WE", "rule book, Piazzare le tessere");
    ok(&mut g, BERT, "draw supply");
    assert_eq!(g.players()[1].hand.len(), 5);
    assert_eq!(g.turn().active, ANNA);
}

/// Issue 35: a draw that leaves no choice is made for the player, in the
/// events of the order that ended the laying (so the log replays it):
/// here the supply is empty and Anna's open hand holds one kind of tile.
/// Where the supply gives a choice beside it, the player still draws.
#[test]
fn a_draw_with_no_choice_is_made_for_the_player() {
    let mut g = route_game(2, &["stops=2"]);
    ok(&mut g, ANNA, "start 2W");
    ok(&mut g, ANNA, "move A10");
    let g = no_supply(&hand(&g, ANNA, &["WE", "WE"]));
    let mut forced = g.clone();
    ok(&mut forced, BERT, "lay C4 WE");
    let events = ok(&mut forced, BERT, "lay H4 WE");
    let drawn: Vec<&Event> = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                Event::Drew {
                    from: Some(ANNA),
                    ..
                }
            )
        })
        .collect();
    assert_eq!(drawn.len(), 2, "{events:?}");
    assert_eq!(forced.players()[1].hand.len(), 5);
    assert!(forced.players()[0].hand.is_empty());
    assert_eq!(forced.turn().active, ANNA);
    // A game stored before issue 35 (no `auto_draws` in its state) asks
    // for the draw as it did, so its log replays as it was played.
    let mut old = edit(&g, |v| {
        v.as_object_mut().unwrap().remove("auto_draws");
    });
    ok(&mut old, BERT, "lay C4 WE");
    ok(&mut old, BERT, "lay H4 WE");
    assert_eq!(old.turn().active, BERT);
    assert_eq!(old.legal_orders(BERT).len(), 1);
    let said = old.hints(BERT).join("\n");
    assert!(
        said.contains("draw Anna WE (2 tiles still to draw"),
        "{said}"
    );
}

#[test]
fn rulings_08_an_empty_supply_leaves_hands_short() {
    let mut g = no_supply(&game(2, &[]));
    ok(&mut g, ANNA, "lay C4 WE");
    ok(&mut g, ANNA, "lay H4 WE");
    assert_eq!(g.players()[0].hand.len(), 3);
    assert_eq!(g.turn().active, BERT);
}

#[test]
fn stationmaster_ruling_1_pass_only_when_nothing_fits_and_a_blocked_game_ends() {
    let g = game(2, &[]);
    let m = refused(&g, ANNA, "pass", "Stationmaster ruling 1");
    assert!(m.contains("You can still lay"), "{m}");
    // Empty supply, empty hands: nobody can do anything.
    let g = hand(&hand(&g, ANNA, &[]), BERT, &[]);
    let mut g = no_supply(&g);
    assert_eq!(g.legal_orders(ANNA), [Order::Pass]);
    let ev = ok(&mut g, ANNA, "pass");
    assert!(ev.contains(&Event::Blocked));
    let Status::Finished(placings) = g.status() else {
        panic!("over")
    };
    assert!(
        placings.iter().all(|p| p.place != 1 && p.score == 0),
        "no winner"
    );
    // Said so wherever the end is told: not "Anna and Bert won".
    assert_eq!(
        stationmaster::service::report::headline(&g),
        "Game over: nobody won"
    );
}

/// A pass after one tile laid is told as the pass of the second tile:
/// "could lay no tile" read to everyone as if the player had laid none.
#[test]
fn stationmaster_ruling_1_a_pass_after_one_tile_says_the_second() {
    let mut g = hand(&game(2, &[]), ANNA, &["WE"]);
    ok(&mut g, ANNA, "lay C4 WE");
    let ev = ok(&mut g, ANNA, "pass");
    let passed = ev
        .iter()
        .find(|e| matches!(e, Event::Passed { .. }))
        .expect("a pass");
    assert_eq!(
        g.describe(passed, Viewer::Player(BERT)),
        "Anna could lay no second tile and passed."
    );
    assert_eq!(
        g.describe(passed, Viewer::Player(ANNA)),
        "You could lay no second tile and passed."
    );
    // A pass with no tile laid still says so.
    let mut g = no_supply(&hand(&hand(&game(2, &[]), ANNA, &[]), BERT, &["WE"]));
    let ev = ok(&mut g, ANNA, "pass");
    assert_eq!(
        g.describe(&ev[0], Viewer::Player(BERT)),
        "Anna could lay no tile and passed."
    );
}

/// `pass` refused because an exchange is open says "exchange", as its
/// example does: "You can still lay a tile (e.g. `exchange B1 NS+SE`)"
/// read as a contradiction.
#[test]
fn stationmaster_ruling_1_a_pass_refused_for_an_exchange_says_exchange() {
    // A straight into terminal 5N on B1; the hand's tile with a straight
    // and a right curve fits no square before B1 (A1: its track would run
    // off the board), but replaces the straight on B1.
    let g = board(&game(2, &[]), &[("B1", "NS")]);
    let g = hand(&g, ANNA, &["NS+SE"]);
    let m = refused(&g, ANNA, "pass", "Stationmaster ruling 1");
    assert!(
        m.contains("You can still exchange a tile (e.g. `exchange B1 NS+SE`)"),
        "{m}"
    );
}

/// A turn skipped (a missed deadline, a moderator's `skip`) is a pass in
/// the round only when the player could do nothing else.
#[test]
fn stationmaster_ruling_1_a_skipped_turn_that_could_have_played_is_no_pass() {
    // Bert holds a tile he could lay; Anna has nothing, nor has the supply.
    let g = hand(&hand(&game(2, &[]), ANNA, &[]), BERT, &["WE"]);
    let mut g = no_supply(&g);
    ok(&mut g, ANNA, "pass");
    let ev = g.apply(BERT, &Order::Skip).unwrap();
    assert!(matches!(ev[0], Event::TurnSkipped { .. }));
    let ev = ok(&mut g, ANNA, "pass");
    assert!(!ev.contains(&Event::Blocked), "{ev:?}");
    ok(&mut g, BERT, "lay C4 WE");
    // A driver skipped would have moved: the round of passes ends too.
    let g = hand(&hand(&route_game(2, &["stops=2"]), ANNA, &[]), BERT, &[]);
    let mut g = no_supply(&g);
    ok(&mut g, ANNA, "start 2W");
    ok(&mut g, ANNA, "move A10");
    assert_eq!(g.legal_orders(BERT), [Order::Pass]);
    ok(&mut g, BERT, "pass");
    g.apply(ANNA, &Order::Skip).unwrap();
    let ev = ok(&mut g, BERT, "pass");
    assert!(!ev.contains(&Event::Blocked), "{ev:?}");
    assert!(matches!(g.status(), Status::Active(_)));
    // Skipped with nothing to do, the player's turn ends a game nobody can
    // move on, as their pass would.
    let g = hand(&hand(&game(2, &[]), ANNA, &[]), BERT, &[]);
    let mut g = no_supply(&g);
    let ev = g.apply(ANNA, &Order::Skip).unwrap();
    assert!(ev.contains(&Event::Blocked), "{ev:?}");
}

#[test]
fn stationmaster_ruling_1_a_finished_route_starts_rather_than_passes() {
    // Anna's route is built; nothing is left to draw and no hand tile fits.
    let g = hand(&hand(&route_game(2, &["stops=2"]), ANNA, &[]), BERT, &[]);
    let mut g = no_supply(&g);
    let legal = g.legal_orders(ANNA);
    assert!(!legal.is_empty());
    assert!(
        legal.iter().all(|o| matches!(o, Order::Start { .. })),
        "{legal:?}"
    );
    let m = refused(&g, ANNA, "pass", "Stationmaster ruling 1");
    assert!(m.contains("start your trip"), "{m}");
    // A missed turn sets out (Stationmaster ruling 4).
    assert!(matches!(g.default_order(ANNA), Some(Order::Start { .. })));
    let ev = ok(&mut g, ANNA, "start 2W");
    assert!(!ev.contains(&Event::Blocked));
    assert!(matches!(g.status(), Status::Active(_)));
}

// ===== The inaugural trip (rulings 5; rule book, Viaggio inaugurale) =================

#[test]
fn rulings_05_a_complete_route_starts_the_trip_and_shows_the_cards() {
    let mut g = route_game(2, &["stops=2"]);
    assert!(g.view(Viewer::Player(BERT)).players[0].line.is_none());
    let ev = ok(&mut g, ANNA, "start 2W");
    assert!(matches!(ev[0], Event::TripStarted { .. }));
    let v = g.view(Viewer::Player(BERT));
    assert_eq!(v.players[0].line, Some(2), "shown once the trip starts");
    assert_eq!(v.players[0].stops, Some(vec!['K', 'A']));
    assert_eq!(tram(&g, ANNA).as_deref(), Some("2W"));
    assert_eq!(g.turn().active, ANNA, "the tram moves the same turn");
    assert!(
        g.legal_orders(ANNA)
            .iter()
            .all(|o| matches!(o, Order::Move { .. }))
    );
    // From the other end too.
    let mut g2 = route_game(2, &["stops=2"]);
    ok(&mut g2, ANNA, "start 2E");
}

#[test]
fn rulings_05_an_incomplete_route_is_refused_with_the_reason() {
    // No tile on K8: nothing joins the terminals.
    let broken: Vec<(&str, &str)> = ROUTE.iter().copied().filter(|(s, _)| *s != "K8").collect();
    let g = board(&cards(&game(2, &[]), ANNA, 2, &['K', 'A']), &broken);
    let m = refused(&g, ANNA, "start 2W", "rulings 5");
    assert!(
        m.contains("no track joins terminal 2W to terminal 2E"),
        "{m}"
    );
    assert!(m.contains("Lay tiles as usual"), "{m}");
    let mut g1 = g.clone();
    ok(&mut g1, ANNA, "lay H8 WE"); // and lays as usual

    // H has no stop sign yet.
    let g = cards(&route_game(2, &[]), ANNA, 2, &['K', 'H']);
    let m = refused(&g, ANNA, "start 2W", "rulings 3");
    assert!(m.contains("building H has no stop sign yet"), "{m}");
    // H's sign on a tile the route does not pass.
    let g = board(&g, &[("J4", "NS")]);
    let m = refused(&g, ANNA, "start 2W", "rulings 5");
    assert!(m.contains("passes H (stop sign on J4)"), "{m}");
    // Not your terminal.
    let m = refused(&g, ANNA, "start 1W", "rulings 5");
    assert!(m.contains("not one of your line's"), "{m}");
}

#[test]
fn rulings_05_a_route_needing_a_sharp_turn_is_no_route() {
    // On K10 a straight with a curve south-west: track touches the west and
    // north sides, but west to north would be a sharp turn.
    let sharp: Vec<(&str, &str)> = ROUTE
        .iter()
        .map(|&(s, p)| if s == "K10" { (s, "NS+SW") } else { (s, p) })
        .collect();
    let g = board(&cards(&game(2, &[]), ANNA, 2, &['K', 'A']), &sharp);
    let m = refused(&g, ANNA, "start 2W", "rulings 5");
    assert!(m.contains("without a sharp turn"), "{m}");
}

#[test]
fn rulings_05_the_trip_starts_only_at_the_start_of_a_turn() {
    let mut g = route_game(2, &[]);
    ok(&mut g, ANNA, "lay C4 WE");
    let m = refused(&g, ANNA, "start 2W", "rulings 5");
    assert!(m.contains("start of your turn"), "{m}");
    refused(&g, BERT, "start 2W", "rule book, Il gioco");
}

// ===== Moving (rulings 6) ===================================================================

#[test]
fn rulings_06_the_first_move_goes_one_square_then_the_last_plus_one() {
    let mut g = route_game(2, &["stops=2"]);
    ok(&mut g, ANNA, "start 2W");
    let m = refused(&g, ANNA, "move A10 B10", "rulings 6");
    assert_eq!(
        m,
        "Your tram may move at most 1 square now: the first move of the game goes one square."
    );
    ok(&mut g, ANNA, "move A10");
    assert_eq!(g.last_move(), Some(1));
    ok(&mut g, BERT, "lay C4 WE");
    ok(&mut g, BERT, "lay H4 WE");
    ok(&mut g, BERT, "draw supply");
    ok(&mut g, BERT, "draw supply");
    // B10 carries D's stop sign: the tram stops there (1 of 2 allowed).
    let m = refused(&g, ANNA, "move B10 C10", "rulings 6");
    assert!(m.contains("stops at the stop sign on B10"), "{m}");
    let ev = ok(&mut g, ANNA, "move B10");
    assert!(
        matches!(&ev[0], Event::Moved { distance: 1, counted, .. } if counted.is_empty()),
        "D is not one of Anna's stops"
    );
}

#[test]
fn rulings_06_the_limit_has_no_ceiling_of_its_own() {
    // The previous move plus one, however long it was.
    let g = edit(&game(2, &[]), |v| v["last_move"] = json!(40));
    assert_eq!(g.max_distance(), 41);
    assert_eq!(g.view(Viewer::Spectator).max_move, Some(41));
}

#[test]
fn rulings_06_fewer_squares_are_allowed_and_set_the_next_limit() {
    let mut g = route_game(2, &["stops=2"]);
    g = edit(&g, |v| v["last_move"] = json!(4));
    ok(&mut g, ANNA, "start 2W");
    // Up to 5: A10, then B10 stops it anyway.
    ok(&mut g, ANNA, "move A10");
    assert_eq!(g.last_move(), Some(1), "the move actually made counts");
}

#[test]
fn rulings_06_never_reverse_and_follow_the_track() {
    let mut g = route_game(2, &["stops=2"]);
    g = edit(&g, |v| v["last_move"] = json!(5));
    ok(&mut g, ANNA, "start 2W");
    ok(&mut g, ANNA, "move A10 B10");
    let g = hand(&g, BERT, &["WE", "WE", "WE", "WE", "WE"]);
    let mut g = g;
    ok(&mut g, BERT, "lay C4 WE");
    ok(&mut g, BERT, "lay H4 WE");
    ok(&mut g, BERT, "draw supply");
    ok(&mut g, BERT, "draw supply");
    let m = refused(&g, ANNA, "move A10", "rulings 6");
    assert!(m.contains("leads only to C10"), "{m}");
    let m = refused(&g, ANNA, "move C9", "rulings 6");
    assert!(m.contains("cannot go on to C9"), "{m}");
    // `move N` follows unbranched track; K's sign on G10 stops it.
    ok(&mut g, ANNA, "move 3");
    assert_eq!(tram(&g, ANNA).as_deref(), Some("E10"));
}

#[test]
fn rulings_06_stopping_at_the_route_stops_and_winning() {
    let mut g = route_game(2, &["stops=2"]);
    g = edit(&g, |v| v["last_move"] = json!(20));
    ok(&mut g, ANNA, "start 2W");
    ok(&mut g, ANNA, "move A10 B10"); // D's sign
    // Bert lays; the next limit is raised so Anna can run on.
    let pass_bert = |g: &mut Linie1, a: &str, b: &str| {
        *g = hand(g, BERT, &["WE", "WE", "WE", "WE", "WE"]);
        ok(g, BERT, &format!("lay {a} WE"));
        ok(g, BERT, &format!("lay {b} WE"));
        while g.turn().active == BERT {
            ok(g, BERT, "draw supply");
        }
        *g = edit(g, |v| v["last_move"] = json!(20));
    };
    pass_bert(&mut g, "C4", "H4");
    let ev = ok(&mut g, ANNA, "move C10 D10 E10 F10 G10");
    assert!(
        matches!(&ev[0], Event::Moved { counted, .. } if counted.len() == 1),
        "K counted"
    );
    pass_bert(&mut g, "C3", "H3");
    ok(&mut g, ANNA, "move H10 I10"); // B's sign, not a stop of Anna's
    pass_bert(&mut g, "C6", "G5");
    ok(&mut g, ANNA, "move J10 K10 K9 K8"); // A
    pass_bert(&mut g, "C5", "H5");
    // An exact count is not needed (rule book, Fine del gioco); the trip ends
    // in the terminal.
    let m = refused(&g, ANNA, "move K7 L7 2E L6", "rule book, Fine del gioco");
    assert!(m.contains("ends its trip"), "{m}");
    // A count past the terminal ends there too.
    let mut counted = g.clone();
    let ev = ok(&mut counted, ANNA, "move 6");
    assert!(ev.iter().any(|e| matches!(e, Event::Won { .. })), "{ev:?}");
    let ev = ok(&mut g, ANNA, "move K7 L7 2E");
    assert!(ev.iter().any(|e| matches!(e, Event::Won { .. })));
    let Status::Finished(placings) = g.status() else {
        panic!("won")
    };
    assert_eq!(placings[0].place, 1);
    assert_eq!(placings[1].place, 2);
    assert!(g.legal_orders(BERT).is_empty());
    assert!(g.render_status(Viewer::Player(BERT)).contains("Anna wins"));
}

#[test]
fn rulings_06_a_terminal_of_another_line_counts_as_one_square() {
    // Track through terminal 3E (legs L10, L11) and back west along row 11.
    let route: Vec<(&str, &str)> = ROUTE
        .iter()
        .copied()
        .chain([("K11", "WE"), ("L11", "WE"), ("J11", "WE")])
        .map(|(s, p)| if s == "K10" { (s, "WE+WN+NE") } else { (s, p) })
        .chain([("L10", "WE")])
        .collect();
    let g = board(&cards(&game(2, &["stops=2"]), ANNA, 2, &['K', 'A']), &route);
    let mut g = edit(&g, |v| v["last_move"] = json!(30));
    ok(&mut g, ANNA, "start 2W");
    ok(&mut g, ANNA, "move A10 B10");
    g = edit(&g, |v| {
        v["turn"]["active"] = json!(0);
        v["phase"] = json!({"drive": {"roll": null}});
        v["last_move"] = json!(30);
    });
    ok(&mut g, ANNA, "move C10 D10 E10 F10 G10");
    g = edit(&g, |v| {
        v["turn"]["active"] = json!(0);
        v["phase"] = json!({"drive": {"roll": null}});
        v["last_move"] = json!(30);
    });
    ok(&mut g, ANNA, "move H10 I10");
    g = edit(&g, |v| {
        v["turn"]["active"] = json!(0);
        v["phase"] = json!({"drive": {"roll": null}});
        v["last_move"] = json!(30);
    });
    let ev = ok(&mut g, ANNA, "move J10 K10 L10 3E L11 K11 J11");
    assert!(matches!(&ev[0], Event::Moved { distance: 7, .. }), "{ev:?}");
    // J11 is a dead end: the tram cannot finish from there.
    assert!(ev.contains(&Event::TramOff { player: ANNA }), "{ev:?}");
}

#[test]
fn stationmaster_ruling_5_a_tram_that_cannot_finish_starts_again() {
    // A branch north at C10 into a dead end on C9.
    let route: Vec<(&str, &str)> = ROUTE
        .iter()
        .copied()
        .map(|(s, p)| if s == "C10" { (s, "WE+WN+NE") } else { (s, p) })
        .chain([("C9", "NS")])
        .collect();
    let g = board(&cards(&game(2, &["stops=2"]), ANNA, 2, &['K', 'A']), &route);
    let mut g = edit(&g, |v| v["last_move"] = json!(5));
    ok(&mut g, ANNA, "start 2W");
    ok(&mut g, ANNA, "move A10 B10");
    ok(&mut g, BERT, "lay C4 WE");
    ok(&mut g, BERT, "lay H4 WE");
    ok(&mut g, BERT, "draw supply");
    ok(&mut g, BERT, "draw supply");
    let m = refused(&g, ANNA, "move 2", "rulings 6");
    assert!(m.contains("branches at C10"), "{m}");
    let ev = ok(&mut g, ANNA, "move C10 C9");
    assert!(ev.contains(&Event::TramOff { player: ANNA }));
    assert_eq!(tram(&g, ANNA), None);
    g = hand(&g, BERT, &["WE", "WE", "WE", "WE", "WE"]);
    ok(&mut g, BERT, "lay C3 WE");
    ok(&mut g, BERT, "lay H3 WE");
    ok(&mut g, BERT, "draw supply");
    ok(&mut g, BERT, "draw supply");
    let legal = g.legal_orders(ANNA);
    assert!(
        legal.iter().all(|o| matches!(o, Order::Start { .. })),
        "{legal:?}"
    );
    refused(&g, ANNA, "lay H8 WE", "rule book, Viaggio inaugurale");
    ok(&mut g, ANNA, "start 2E");
    ok(&mut g, ANNA, "move L7");
}

/// A tram taken off (Stationmaster ruling 5) because it went past a stop it
/// has still to make is not said to be unable to reach its terminal: it
/// can, by track that misses the stop.
#[test]
fn stationmaster_ruling_5_a_tram_taken_off_for_a_missed_stop_is_told_so() {
    use stationmaster::engine::AnyGame;
    // A loop from F10 south round by row 11 back up into H10 skips K's
    // stop sign on G10; from H10 the route runs on to 2E.
    let route: Vec<(&str, &str)> = ROUTE
        .iter()
        .copied()
        .map(|(s, p)| match s {
            "F10" => (s, "WE+WS+SE"),
            "H10" => (s, "WE+SE+SW"),
            _ => (s, p),
        })
        .chain([("F11", "NE"), ("G11", "WE"), ("H11", "WN")])
        .collect();
    let g = board(&cards(&game(2, &["stops=2"]), ANNA, 2, &['K', 'A']), &route);
    let mut g = edit(&g, |v| v["last_move"] = json!(30));
    ok(&mut g, ANNA, "start 2W");
    ok(&mut g, ANNA, "move A10 B10");
    g = edit(&g, |v| {
        v["turn"]["active"] = json!(0);
        v["phase"] = json!({"drive": {"roll": null}});
        v["last_move"] = json!(30);
    });
    let applied =
        AnyGame::apply_line(&mut g, ANNA, "move C10 D10 E10 F10 F11 G11 H11 H10 I10").unwrap();
    assert_eq!(tram(&g, ANNA), None, "taken off");
    let said = AnyGame::describe_events(&g, &applied.events, Viewer::Player(BERT))
        .unwrap()
        .join(" ");
    assert!(!said.contains("cannot reach its terminal"), "{said}");
    assert!(
        said.contains(
            "Anna's tram cannot finish its trip from there (no way on reaches its terminal through the stops still to make)"
        ),
        "{said}"
    );
}

/// What the game waits for is said to every reader ("waiting for Anna
/// (…)" in the status and every subject line): not "move your tram" in
/// Bert's mail about Anna's tram.
#[test]
fn what_a_driver_is_awaited_for_reads_right_to_everyone() {
    let mut g = route_game(2, &["stops=2"]);
    ok(&mut g, ANNA, "start 2W");
    let status = g.render_status(Viewer::Player(BERT));
    assert!(
        status.contains("waiting for Anna (a move of the tram)"),
        "{status}"
    );
    // Taken off (as Stationmaster ruling 5 does), it sets out again.
    let mut g = edit(&g, |v| v["players"][0]["trip"]["tram"] = json!(null));
    assert_eq!(tram(&g, ANNA), None);
    let status = g.render_status(Viewer::Player(BERT));
    assert!(
        status.contains("waiting for Anna (the tram to set out again from a terminal)"),
        "{status}"
    );
    for viewer in [
        Viewer::Player(ANNA),
        Viewer::Player(BERT),
        Viewer::Spectator,
    ] {
        assert!(!g.render_status(viewer).contains("your tram"));
    }
    ok(&mut g, ANNA, "start 2E");
}

/// A player whose route is finished is told that they may start their
/// trip, not only "2 tiles to lay"; the others are not (that the route is
/// finished is as secret as the cards, rulings 4).
#[test]
fn what_a_finished_route_is_awaited_for_says_the_trip_to_its_player_alone() {
    let g = route_game(2, &["stops=2"]);
    let mine = g.render_status(Viewer::Player(ANNA));
    assert!(
        mine.contains("waiting for Anna (the trip to start, or 2 tiles to lay)"),
        "{mine}"
    );
    let what = |viewer| {
        g.awaiting_to(viewer)
            .into_iter()
            .map(|a| a.what)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        what(Viewer::Player(ANNA)),
        ["the trip to start, or 2 tiles to lay"]
    );
    for viewer in [Viewer::Player(BERT), Viewer::Spectator] {
        assert_eq!(what(viewer), ["2 tiles to lay"]);
        let theirs = g.render_status(viewer);
        assert!(
            theirs.contains("waiting for Anna (2 tiles to lay)"),
            "{theirs}"
        );
    }
    assert_eq!(
        g.awaiting()[0].what,
        "2 tiles to lay",
        "said to all: no secret"
    );
    // Once a tile is laid, the trip waits for the next turn.
    let mut g = g;
    ok(&mut g, ANNA, "lay A1 SE");
    assert_eq!(g.awaiting_to(Viewer::Player(ANNA))[0].what, "1 tile to lay");
}

// ===== Variants (rulings 7; rule book, Varianti) =====================================

#[test]
fn variant_1_the_die_gives_the_distance() {
    for seed in 0..12 {
        let g = Linie1::new(
            Components::embedded().unwrap(),
            &setup(2, seed, &["die", "stops=2"]),
        )
        .unwrap();
        let g = board(&cards(&g, ANNA, 2, &['K', 'A']), ROUTE);
        let mut g = g;
        let ev = ok(&mut g, ANNA, "start 2W");
        let Some(Event::Rolled { value, .. }) = ev.get(1) else {
            panic!("rolled at once: {ev:?}")
        };
        // From 2W: A10, then B10's stop sign ends any move.
        match *value {
            2..=4 => drop(refused(&g, ANNA, "move A10", "Stationmaster ruling 2")),
            5 | 6 => drop(refused(&g, ANNA, "move A10", "rulings 7")),
            _ => {}
        }
        if *value == 1 {
            ok(&mut g, ANNA, "move A10");
            return;
        }
        ok(&mut g, ANNA, "move A10 B10");
        assert_eq!(g.last_move(), Some(2));
    }
    panic!("no seed rolled a 1");
}

#[test]
fn variant_1_five_or_six_runs_to_the_next_stop_sign() {
    let g = route_game(2, &["die", "stops=2"]);
    let mut g = edit(&g, |v| {
        v["players"][0]["driving"] = json!(true);
        v["players"][0]["trip"] = json!({
            "from": 2, "to": 3,
            "tram": {"at": {"square": {"row": 9, "col": 1}}, "came_in": 3},
            "stopped": []
        });
        v["phase"] = json!({"drive": {"roll": 6}});
    });
    assert_eq!(g.data().terminals[2].name, "2W");
    let m = refused(&g, ANNA, "move C10 D10", "rulings 7");
    assert!(m.contains("next stop sign"), "{m}");
    ok(&mut g, ANNA, "move C10 D10 E10 F10 G10");
}

/// A move longer than the die allows cites the die's rule (rulings 7), not
/// the main rule's limit, and one square is "1 square" (issue 35).
#[test]
fn variant_1_a_move_beyond_the_die_cites_the_die() {
    let g = route_game(2, &["die", "stops=2"]);
    // Anna's tram on B10, come in from the west, the die rolled.
    let rolled = |roll: u8| {
        edit(&g, |v| {
            v["players"][0]["driving"] = json!(true);
            v["players"][0]["trip"] = json!({
                "from": 2, "to": 3,
                "tram": {"at": {"square": {"row": 9, "col": 1}}, "came_in": 3},
                "stopped": []
            });
            v["phase"] = json!({"drive": {"roll": roll}});
        })
    };
    let m = refused(&rolled(1), ANNA, "move C10 D10", "rulings 7");
    assert_eq!(m, "The die allows 1 square this move.");
    let m = refused(&rolled(3), ANNA, "move C10 D10 E10 F10", "rulings 7");
    assert_eq!(m, "The die allows 3 squares this move.");
    let m = refused(&rolled(3), ANNA, "move C10", "Stationmaster ruling 2");
    assert!(
        m.starts_with("The die says 3: your tram must go 3 squares unless"),
        "{m}"
    );
}

/// `max_move` is the main rule's limit (rulings 6): under a die variant it
/// means nothing, and the JSON leaves it out (docs/state-json.md).
#[test]
fn max_move_is_in_the_json_only_under_the_main_rule() {
    for (options, present) in [
        (&[][..], true),
        (&["die"][..], false),
        (&["die_or_repeat"][..], false),
    ] {
        let v = serde_json::to_value(game(2, options).view(Viewer::Spectator)).unwrap();
        assert_eq!(v.get("max_move").is_some(), present, "{options:?}: {v}");
        assert!(v.get("roll").is_some() && v.get("last_roll").is_some());
    }
    let v = serde_json::to_value(game(2, &[]).view(Viewer::Spectator)).unwrap();
    assert_eq!(v["max_move"], 1);
}

#[test]
fn variant_2_roll_or_repeat_the_previous_result() {
    let mut g = route_game(2, &["die_or_repeat", "stops=2"]);
    ok(&mut g, ANNA, "start 2W");
    let m = refused(&g, ANNA, "move A10", "rulings 7");
    assert!(m.contains("roll"), "{m}");
    refused(&g, ANNA, "repeat", "rulings 7");
    let ev = ok(&mut g, ANNA, "roll");
    assert!(matches!(ev[0], Event::Rolled { .. }));
    refused(&g, ANNA, "roll", "rulings 7");
    ok(&mut g, ANNA, "move A10");
    // Bert cannot roll: he lays.
    refused(&g, BERT, "roll", "rulings 7");
    ok(&mut g, BERT, "lay C4 WE");
    ok(&mut g, BERT, "lay H4 WE");
    ok(&mut g, BERT, "draw supply");
    ok(&mut g, BERT, "draw supply");
    // The last result is Anna's own: not hers to repeat (Stationmaster
    // ruling 6; rule book, Varianti 2: the player before).
    assert_eq!(g.legal_orders(ANNA), [Order::Roll]);
    let m = refused(&g, ANNA, "repeat", "Stationmaster ruling 6");
    assert!(m.contains("your own"), "{m}");
    // Bert's tram sets out and may take over her new result.
    let ev = ok(&mut g, ANNA, "roll");
    let Event::Rolled { value, .. } = ev[0] else {
        panic!()
    };
    ok(&mut g, ANNA, "move B10");
    let mut g = cards(&g, BERT, 2, &['K', 'A']);
    ok(&mut g, BERT, "start 2W");
    let ev = ok(&mut g, BERT, "repeat");
    assert_eq!(
        ev[0],
        Event::Rolled {
            player: BERT,
            value,
            repeated: true
        }
    );
}

#[test]
fn variant_3_three_stops_in_the_cards_order() {
    // From 2W the route meets D (B10), K (G10), A (K8) in that order.
    let g = board(
        &cards(&game(2, &["ordered_stops"]), ANNA, 2, &['D', 'K', 'A']),
        ROUTE,
    );
    let mut g1 = g.clone();
    ok(&mut g1, ANNA, "start 2W");
    let m = refused(&g, ANNA, "start 2E", "Stationmaster ruling 3");
    assert!(m.contains("card's order"), "{m}");
    let g = cards(&g, ANNA, 2, &['K', 'D', 'A']);
    refused(&g, ANNA, "start 2W", "Stationmaster ruling 3");
    // Without the variant any order does.
    let g = board(&cards(&game(2, &[]), ANNA, 2, &['K', 'D', 'A']), ROUTE);
    let mut g2 = g.clone();
    ok(&mut g2, ANNA, "start 2E");
}

// ===== Missed turns (Stationmaster ruling 4) ======================================

#[test]
fn stationmaster_ruling_4_default_orders() {
    let g = game(2, &[]);
    let Some(Order::Lay { square, .. }) = g.default_order(ANNA) else {
        panic!("a layer's default lays")
    };
    // A quiet square: no track, building or edge beside it.
    assert!(square.row > 0 && square.col > 0);
    assert_eq!(g.default_order(BERT), None, "not Bert's turn");
    let mut g = route_game(2, &["stops=2"]);
    g = edit(&g, |v| v["last_move"] = json!(9));
    ok(&mut g, ANNA, "start 2W");
    assert_eq!(
        g.default_order(ANNA),
        Some(Order::Move {
            places: vec![
                stationmaster::linie1::Place::Square(sq("A10")),
                stationmaster::linie1::Place::Square(sq("B10"))
            ]
        }),
        "the longest move, to the stop sign"
    );
    // A skip: the layer draws back to five and the turn passes.
    let mut g = game(2, &[]);
    ok(&mut g, ANNA, "lay C4 WE");
    ok(&mut g, ANNA, "!skip");
    assert_eq!(g.players()[0].hand.len(), 5);
    assert_eq!(g.turn().active, BERT);
}

// ===== The grammar ===========================================================================

#[test]
fn orders_read_back_from_their_canonical_text() {
    let mut g = route_game(2, &["stops=2"]);
    for line in [
        "lay C4 NS+SW",
        "LAY c4 sw ns",
        "exchange C4 NS+WE",
        "ex C4 NS+SE D4 NS+SW",
        "pass",
        "draw supply",
        "draw anna WE",
        "start 2w",
        "roll",
        "repeat",
        "move A10 B10",
        "m 3",
    ] {
        let o = g
            .parse_order(ANNA, line)
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        let text = g.order_text(&o);
        assert_eq!(
            g.parse_order(ANNA, &text),
            Ok(o.clone()),
            "{line} -> {text}"
        );
    }
    assert_eq!(
        g.order_text(&g.parse_order(ANNA, "lay c4 sw ns").unwrap()),
        "lay C4 NS+SW"
    );
    ok(&mut g, ANNA, "start 2W");
    let o = g.parse_order(ANNA, "move a10").unwrap();
    assert_eq!(g.order_text(&o), "move A10");
}

#[test]
fn bad_lines_say_what_was_expected() {
    let g = game(2, &[]);
    let e = g.parse_order(ANNA, "lay Z4 WE").unwrap_err();
    assert!(e.message.contains("off the board"), "{e}");
    let e = g.parse_order(ANNA, "lay C4 WX").unwrap_err();
    assert!(e.message.contains("not a path"), "{e}");
    let e = g.parse_order(ANNA, "lay C4").unwrap_err();
    assert!(e.message.contains("which tile on C4"), "{e}");
    let e = g.parse_order(ANNA, "r").unwrap_err();
    assert!(e.message.contains("roll or repeat"), "{e}");
    let e = g.parse_order(ANNA, "fly").unwrap_err();
    assert!(!e.expected.is_empty());
    let e = g.parse_order(ANNA, "start 9Q").unwrap_err();
    assert!(e.expected.contains(&"1W".to_string()), "{e}");
    let e = g.parse_order(ANNA, "draw Zed WE").unwrap_err();
    assert!(e.message.contains("not a player"), "{e}");
}

#[test]
fn help_fits_a_mail() {
    let help = stationmaster::engine::grammar::help_text(stationmaster::linie1::FORMS);
    for line in help.lines() {
        assert!(line.chars().count() <= 100, "{line}");
    }
    assert!(help.contains("lay C4 NS+SW"));
}

#[test]
fn hints_give_examples_from_the_own_hand() {
    let g = route_game(2, &["stops=2"]);
    let hints = g.hints(ANNA).join("\n");
    assert!(hints.contains("start TERMINAL"), "{hints}");
    // Issue 35: lays ready to copy, by tile number and turn, and the
    // count with how to list them all.
    assert!(hints.contains("lay TILE SQUARE TURN"), "{hints}");
    assert!(hints.contains(" lays; reply `moves` (all)"), "{hints}");
    assert!(!hints.contains(", ("), "no comma before the count: {hints}");
    for line in hints.lines() {
        assert!(line.chars().count() <= 96, "{line}");
    }
    assert!(g.hints(BERT).is_empty());
}

/// The count of moves closes the last example, in the singular for one
/// (issue 35: "move C1, (1 ways; …)").
#[test]
fn hints_count_one_way_in_the_singular_after_the_last_example() {
    let mut g = route_game(2, &["stops=2"]);
    ok(&mut g, ANNA, "start 2W");
    let hints = g.hints(ANNA).join("\n");
    assert!(
        hints.contains("move A10 (1 way; at most 1 now; the longest goes 1)"),
        "{hints}"
    );
    assert!(!hints.contains(", ("), "no comma before the count: {hints}");
}

/// One tile left is "1 tile", in the status as in the hints.
#[test]
fn the_status_counts_one_tile_in_the_singular() {
    // All but one straight set aside, out of the game, as games set up
    // before issue 35 kept their unused start tiles.
    let g = edit(&game(2, &[]), |v| {
        let supply: Vec<u64> = v["supply"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_u64().unwrap())
            .collect();
        let mut out = supply.clone();
        out[0] -= 1;
        v["out_of_game"] = json!(out);
        v["supply"] = json!(
            supply
                .iter()
                .enumerate()
                .map(|(i, _)| u64::from(i == 0))
                .collect::<Vec<_>>()
        );
    });
    assert_eq!(g.supply_left(), 1);
    let status = g.render_status(Viewer::Spectator);
    assert!(status.contains("Supply: 1 tile face down."), "{status}");
}

// ===== The map ===============================================================================

#[test]
fn the_map_fits_100_columns_and_shows_track_signs_and_trams() {
    let mut g = route_game(3, &["stops=2"]);
    g = board(&g, &[("E5", "NS+WE"), ("E4", "NE+ES+SW+WN")]);
    ok(&mut g, ANNA, "start 2W");
    ok(&mut g, ANNA, "move A10");
    let m = g.render_map();
    for line in m.text.lines() {
        assert!(line.chars().count() <= 100, "{line}");
    }
    assert!(m.text.contains("┃ F ┃"), "buildings");
    assert!(m.text.contains("●K"), "stop signs");
    assert!(m.text.contains("@2"), "Anna's tram, line 2");
    assert!(m.text.contains("2W") && m.text.contains("6S"), "terminals");
    // The board above its key, which draws a crossing and curves too.
    let board = m.text.split("Key:").next().unwrap();
    assert!(board.contains("───┼───"), "the crossing");
    assert!(
        board.contains("╱│╲") && board.contains("╲│╱"),
        "the four curves, each cutting its corner"
    );
    assert!(m.html.contains("<span style=\"color:"), "coloured");
    assert!(!m.html.contains("<pre"));
    let status = g.render_status(Viewer::Player(BERT));
    assert!(status.contains("driving: line 2"), "{status}");
    for line in status.lines() {
        assert!(line.chars().count() <= 100, "{line}");
    }
}

/// What refusals cite is there for a player to read: every ruling of
/// Stationmaster's own, word for word, and each citation's place, in
/// `docs/linie1-rulings.md`.
#[test]
fn the_rulings_refusals_cite_are_written_where_players_can_read_them() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/linie1-rulings.md"
    ))
    .unwrap();
    let flat = crate::common::flat;
    let doc_flat = flat(&doc);
    for ruling in stationmaster::linie1::RULINGS {
        assert!(doc_flat.contains(&flat(ruling)), "missing: {ruling}");
    }
    for n in 1..=8 {
        assert!(
            doc.contains(&format!("\n{n}. **")),
            "the project's ruling {n}"
        );
    }
    for cited in [
        "components, Board",
        "components, Tiles",
        "`rule book, <section>`",
    ] {
        assert!(doc.contains(cited), "{cited}");
    }
}

/// A move cut short by the stop sign of a building not on the route (seed,
/// Viaggio inaugurale: every tram stops at every stop sign) says so: `move
/// 2` that went 1 square is not left to read as a fault.
#[test]
fn a_move_ended_by_a_stop_sign_off_the_route_tells_why() {
    use stationmaster::engine::AnyGame;
    let mut g = route_game(2, &["stops=2"]);
    ok(&mut g, ANNA, "start 2W");
    ok(&mut g, ANNA, "move A10");
    ok(&mut g, BERT, "lay C4 WE");
    ok(&mut g, BERT, "lay H4 WE");
    ok(&mut g, BERT, "draw supply");
    ok(&mut g, BERT, "draw supply");
    // D's stop sign is on B10, and D is not one of Anna's stops (K, A).
    assert_eq!(sign_of(&g, 'D'), Some(sq("B10")));
    let applied = AnyGame::apply_line(&mut g, ANNA, "move 2").unwrap();
    for viewer in [
        Viewer::Player(ANNA),
        Viewer::Player(BERT),
        Viewer::Spectator,
    ] {
        let said = AnyGame::describe_events(&g, &applied.events, viewer)
            .unwrap()
            .join(" ");
        assert!(
            said.contains(
                "moved 1 square: B10. The stop sign of building D on B10 ends the move: every tram stops at each stop sign."
            ),
            "{said}"
        );
    }
}

/// A tile named "straight and left curve" is told as English: "a tile
/// with a straight and a left curve", not "a tile with straight and left
/// curve".
#[test]
fn a_straight_with_curves_is_told_with_its_articles() {
    use stationmaster::engine::AnyGame;
    let mut g = hand(&game(2, &[]), ANNA, &["NS+SW", "NS+NE+SW"]);
    let said = |g: &Linie1, events: &[Value]| {
        AnyGame::describe_events(g, events, Viewer::Player(BERT))
            .unwrap()
            .join(" ")
    };
    let applied = AnyGame::apply_line(&mut g, ANNA, "lay C4 NS+SW").unwrap();
    let text = said(&g, &applied.events);
    assert!(
        text.contains("Anna laid a tile with a straight and a left curve (NS+SW) on C4."),
        "{text}"
    );
    let applied = AnyGame::apply_line(&mut g, ANNA, "lay H4 NS+NE+SW").unwrap();
    let text = said(&g, &applied.events);
    assert!(
        text.contains(
            "Anna laid a tile with a straight and curves in opposite corners (NS+NE+SW) on H4."
        ),
        "{text}"
    );
}
