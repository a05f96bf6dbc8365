//! A Linie 1 player's own layer (issue 35, point 2): while they lay track,
//! their terminals and stops are marked on their picture and their text
//! map, with the empty squares of one shortest way to close each gap of
//! their route, and their status says how far the route is built. It is
//! theirs alone: a player's view is the spectator's with their layer
//! added, their picture is the spectator's with one layer more, and their
//! map differs from the spectator's in their own marks alone; so two
//! players' pictures and maps differ only in each reader's own layer, and
//! a spectator's show nobody's. Checked at many positions of random games
//! (a route being built, a trip under way, variants, the end).

use stationmaster::engine::picture::Picture;
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{AnyGame, Game, Seat, Status, Viewer};
use stationmaster::linie1::{Linie1, Square};

use crate::common::{linie1_game, linie1_pick, linie1_with_route};

const NAMES: [&str; 4] = ["Anna", "Bert", "Cora", "Dan"];

/// The positions the tests look at: random games stopped after some
/// orders (a route arranged in one, so that its trip starts and ends).
fn positions() -> Vec<(String, Linie1)> {
    let mut out = Vec::new();
    for (seed, players, options, route) in [
        (11, 4, &[][..], false),
        (12, 3, &["ordered_stops"][..], false),
        (13, 2, &["die"][..], false),
        (14, 3, &[][..], true),
    ] {
        let mut g = linie1_game(&NAMES[..players], seed, options);
        if route {
            g = linie1_with_route(&g);
        }
        let mut rng = SplitMix64::new(seed);
        for n in 0..=240 {
            if [0, 1, 30, 90, 240].contains(&n) || matches!(Game::status(&g), Status::Finished(_)) {
                out.push((format!("seed {seed}, order {n}"), g.clone()));
            }
            let Some(seat) = Game::awaiting(&g).first().map(|a| a.seat) else {
                break;
            };
            let order = linie1_pick(&mut rng, &g.legal_orders(seat));
            g.apply(seat, &order).unwrap();
        }
    }
    assert!(
        out.iter()
            .any(|(_, g)| g.players().iter().any(|p| p.driving)),
        "a trip under way among the positions"
    );
    out
}

fn seats(g: &Linie1) -> impl Iterator<Item = Seat> {
    (0..g.players().len()).map(|i| Seat(i as u8))
}

/// Whether `seat` lays track in `g`: the game runs and they do not drive.
fn laying(g: &Linie1, seat: Seat) -> bool {
    g.outcome().is_none() && !g.players()[seat.index()].driving
}

/// `p` without its last layer.
fn without_last_layer(p: &Picture) -> Picture {
    let mut p = p.clone();
    p.layers.pop();
    p
}

/// `seat`'s picture as their mail has it: their own where the game draws
/// them one, else the spectator's.
fn picture_of(g: &Linie1, seat: Seat) -> (Picture, bool) {
    match AnyGame::own_board(g, Viewer::Player(seat), &[], None, true).unwrap() {
        Some(own) => (own.picture.expect("Linie 1 draws its board"), true),
        None => (spectators_picture(g), false),
    }
}

fn spectators_picture(g: &Linie1) -> Picture {
    AnyGame::picture(g, &[], None).unwrap().unwrap()
}

#[test]
fn a_players_view_is_the_spectators_with_their_own_layer_added() {
    for (what, g) in positions() {
        let spectator = g.view(Viewer::Spectator);
        assert_eq!(spectator.route, None, "{what}");
        let json = serde_json::to_value(&spectator).unwrap();
        assert!(json.get("route").is_none(), "{what}: {json}");
        for seat in seats(&g) {
            let v = g.view(Viewer::Player(seat));
            assert_eq!(v.as_spectator(), spectator, "{what}, seat {seat:?}");
            let over = g.view_over(Viewer::Player(seat));
            assert_eq!(over.as_spectator(), g.view_over(Viewer::Spectator));
            assert_eq!(over.route, None, "{what}: nothing to build once over");
            assert_eq!(v.route.is_some(), laying(&g, seat), "{what}, {seat:?}");
            let Some(route) = &v.route else { continue };
            // The route as route_progress counts it, in the reader's words.
            let progress = g.route_progress(seat);
            assert_eq!(route.complete, progress.complete, "{what}");
            assert_eq!(route.missing, progress.missing(), "{what}");
            assert_eq!(route.points.len(), route.stretches.len() + 1);
            let me = &v.players[seat.index()];
            let terminals = me.terminals.clone().unwrap();
            assert!(terminals.contains(&route.points[0]), "{what}: {route:?}");
            for s in &route.stretches {
                assert!(!s.joined || s.missing == Some(0), "{what}: {s:?}");
                if let Some(n) = s.missing {
                    assert_eq!(s.squares.len(), usize::from(n), "{what}: {s:?}");
                }
                for q in &s.squares {
                    let q = Square::parse(q).unwrap();
                    assert!(g.laid(q).is_none(), "{what}: {q} is to fill, not laid");
                }
            }
            assert_eq!(route.complete, !route.starts.is_empty(), "{what}");
        }
    }
}

#[test]
fn pictures_differ_between_players_only_in_the_readers_own_layer() {
    let mut drawn_own = 0;
    for (what, g) in positions() {
        let spectator = spectators_picture(&g);
        let plain = spectator.svg();
        assert!(!plain.contains("(you)"), "{what}: the spectator is nobody");
        assert!(!plain.contains("your stops"), "{what}: nobody's layer");
        for seat in seats(&g).filter(|s| laying(&g, *s)) {
            let card = g.data().routes[g.players()[seat.index()].route.index()]
                .name
                .clone();
            let card = format!("route card {card}");
            assert!(!plain.contains(&card), "{what}: the spectator reads {card}");
        }
        for seat in seats(&g) {
            let (own, has_own) = picture_of(&g, seat);
            assert_eq!(has_own, laying(&g, seat), "{what}, {seat:?}");
            if !has_own {
                continue;
            }
            drawn_own += 1;
            // One layer more than the spectator's, changing and last;
            // without it, the spectator's picture, to the byte.
            assert_eq!(own.layers.len(), spectator.layers.len() + 1, "{what}");
            let layer = own.layers.last().unwrap();
            assert!(!layer.fixed && layer.stamps.is_empty(), "{what}");
            assert_eq!(without_last_layer(&own), spectator, "{what}, {seat:?}");
            assert_eq!(without_last_layer(&own).svg(), plain, "{what}, {seat:?}");
            // The reader's cards and route are in their layer.
            let me = &g.view(Viewer::Player(seat)).players[seat.index()];
            let card = format!("route card {}", me.route_card.as_ref().unwrap());
            assert!(layer.svg.contains(&card), "{what}: {}", layer.svg);
            assert!(layer.svg.contains("(you)"), "{what}");
            assert!(layer.svg.contains("your stops and terminals"), "{what}");
        }
    }
    assert!(drawn_own >= 20, "{drawn_own} own pictures drawn");
}

/// Two games the same on the table, Bert's and Cora's cards swapped: the
/// pictures and maps of Anna and of a spectator cannot tell them apart,
/// while Bert's own can. A layer that read anyone's cards but its
/// reader's would differ.
#[test]
fn a_players_layer_shows_no_one_elses_cards() {
    for (what, g) in positions() {
        let players = g.players();
        if g.outcome().is_some() || players.len() < 3 || players[1..3].iter().any(|p| p.driving) {
            continue;
        }
        let mut state = serde_json::to_value(&g).unwrap();
        let players = state["players"].as_array_mut().unwrap();
        for field in ["line", "route"] {
            let b = players[1][field].clone();
            players[1][field] = players[2][field].clone();
            players[2][field] = b;
        }
        let swapped: Linie1 = serde_json::from_value(state).unwrap();
        for reader in [Viewer::Player(Seat(0)), Viewer::Spectator] {
            let board = |game: &Linie1| match reader.seat() {
                Some(seat) => (picture_of(game, seat).0, game.render_map_to(reader)),
                None => (spectators_picture(game), Game::render_map(game)),
            };
            assert_eq!(board(&g), board(&swapped), "{what}: {reader:?}");
        }
        if laying(&g, Seat(1)) {
            assert_ne!(picture_of(&g, Seat(1)), picture_of(&swapped, Seat(1)));
            assert_ne!(
                g.render_map_to(Viewer::Player(Seat(1))),
                swapped.render_map_to(Viewer::Player(Seat(1)))
            );
        }
    }
}

/// What the key under a player's map says their own marks are.
const YOURS: &str = "║╔╗╚╝═○◆123";

#[test]
fn a_players_map_differs_from_the_spectators_only_in_their_marks() {
    for (what, g) in positions() {
        let plain = Game::render_map(&g).text;
        for seat in seats(&g) {
            let v = g.view(Viewer::Player(seat));
            let mine = g.render_map_to(Viewer::Player(seat)).text;
            let Some(route) = &v.route else {
                assert_eq!(mine, plain, "{what}: no layer, the spectator's map");
                continue;
            };
            assert!(mine.contains("Yours alone:"), "{what}: the key tells them");
            let lines: Vec<&str> = mine.lines().collect();
            let theirs: Vec<&str> = plain.lines().collect();
            assert_eq!(lines.len(), theirs.len() + 2, "{what}: two lines of key");
            let key = &lines[theirs.len()..];
            assert!(
                key[0].starts_with("     Yours alone: ║A║ building A, one of your stops")
                    && key[1].contains("◆ beside a terminal's name: yours")
                    && key[1].contains("○ an empty square on a shortest way"),
                "{what}: {key:?}"
            );
            let mut marks = String::new();
            for (a, b) in lines.iter().zip(&theirs) {
                // Blanks at the end of a line are left out.
                let width = a.chars().count().max(b.chars().count());
                let padded = |l: &str| -> Vec<char> { format!("{l:width$}").chars().collect() };
                for (x, y) in padded(a).iter().zip(&padded(b)).filter(|(x, y)| x != y) {
                    assert!(YOURS.contains(*x), "{what}: {x} for {y} in\n{mine}");
                    marks.push(*x);
                }
            }
            // Each terminal twice (a name beside each leg), each stop's box,
            // each square of the way.
            let me = &v.players[seat.index()];
            let count = |c: char| marks.chars().filter(|m| *m == c).count();
            assert_eq!(count('◆'), 4, "{what}:\n{mine}");
            assert_eq!(count('║'), 2 * me.stops.as_ref().unwrap().len(), "{what}");
            let mut way: Vec<&String> = route.stretches.iter().flat_map(|s| &s.squares).collect();
            way.sort();
            way.dedup();
            assert_eq!(count('○'), way.len(), "{what}:\n{mine}");
        }
    }
}

#[test]
fn the_route_line_says_what_is_joined_and_what_is_missing() {
    // Anna's route, line 2 from 2W along row 10 and up column K to 2E,
    // through K (beside G10), A (beside K8) and D (beside B10): built.
    let built = linie1_with_route(&linie1_game(&NAMES[..3], 9, &[]));
    let anna = Viewer::Player(Seat(0));
    let status = Game::render_status(&built, anna);
    assert!(
        status.contains(
            "Your route is complete: you may start your trip (`start 2W` or `start 2E`) instead of laying."
        ),
        "{status}"
    );
    // Two squares of row 10 taken away: the gap between D and K.
    let mut state = serde_json::to_value(&built).unwrap();
    let d = built.data();
    for s in ["E10", "F10"] {
        state["cells"][d.index(Square::parse(s).unwrap())] = serde_json::Value::Null;
    }
    let gapped: Linie1 = serde_json::from_value(state).unwrap();
    let status = Game::render_status(&gapped, anna);
    let flat = status.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(
            "Your route: 2W → D ✓ → K (2 squares to fill: E10 F10) → A ✓ → 2E ✓. At the fewest, 2 \
             squares to fill in all, ○ on the map. ✓: your track joins it to the one before."
        ),
        "{status}"
    );
    let map = gapped.render_map_to(anna).text;
    let e10 = map.lines().find(|l| l.starts_with("10 ")).unwrap();
    assert_eq!(e10.matches('○').count(), 2, "{map}");
    // Nobody else reads it: not the other players (each reads their own
    // route), not a spectator.
    assert!(map.contains("2W◆") && map.contains("◆2E"), "{map}");
    for reader in [
        Viewer::Player(Seat(1)),
        Viewer::Player(Seat(2)),
        Viewer::Spectator,
    ] {
        let theirs = Game::render_status(&gapped, reader);
        assert!(!theirs.contains("2W → D"), "{theirs}");
        assert_eq!(theirs.contains("Your route"), reader.seat().is_some());
        let map = gapped.render_map_to(reader).text;
        assert!(!map.contains("2W◆") && !map.contains("◆2E"), "{map}");
    }
}
