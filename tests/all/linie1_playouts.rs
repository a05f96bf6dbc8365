//! Random playouts of Linie 1: complete games of 2 to 6 players with random
//! legal orders (and now and then a missed turn's default order), checking
//! after every order that the 126 tiles are conserved, that the legal
//! orders, `apply` and the canonical text agree, that no reader's view,
//! status or picture holds another player's secret cards before they are
//! shown (rulings 4), and
//! that every game ends.

use proptest::prelude::*;
use stationmaster::engine::Viewer;
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, Seat, Status};
use stationmaster::linie1::picture::board_svg;
use stationmaster::linie1::{Linie1, Order, Paths, Square};

use crate::common::{linie1_game, linie1_pick as pick, linie1_with_route as with_route};

const MAX_ORDERS: usize = 4000;
const VARIANTS: [&[&str]; 5] = [
    &[],
    &["stops=2"],
    &["die"],
    &["die_or_repeat", "stops=2"],
    &["ordered_stops"],
];

/// A random lay or exchange that may well be illegal.
fn wild(rng: &mut SplitMix64, g: &Linie1, seat: Seat) -> Order {
    let d = g.data();
    let square = Square::new(rng.below(12) as u8, rng.below(12) as u8);
    let tile = &d.tiles[rng.below(d.tiles.len())];
    let paths: Paths = tile.orientations[rng.below(tile.orientations.len())];
    let _ = seat;
    if rng.below(2) == 0 {
        Order::Lay { square, paths }
    } else {
        Order::Exchange {
            swaps: vec![(square, paths)],
        }
    }
}

/// No reader sees a secret that is not theirs (rulings 4).
fn check_secrets(g: &Linie1, reader: Viewer) {
    let v = g.view(reader);
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["kind"], "linie1");
    let status = g.render_status(reader);
    let picture = board_svg(&v, g.data());
    for (i, p) in v.players.iter().enumerate() {
        let own = reader == Viewer::Player(Seat(i as u8));
        let shown = own || p.driving || v.finished;
        assert_eq!(
            p.line.is_some(),
            shown,
            "line card of {} to {reader:?}",
            p.name
        );
        assert_eq!(p.route_card.is_some(), shown);
        assert_eq!(p.stops.is_some(), shown);
        if !shown {
            let card = &g.data().routes[g.players()[i].route.index()].name;
            assert!(
                !status.contains(&format!("card {card}")),
                "{reader:?} reads {}'s card in\n{status}",
                p.name
            );
            assert!(
                !picture.contains(&format!("card {card}:")),
                "{reader:?} sees {}'s card in the picture",
                p.name
            );
        }
    }
    for line in status.lines().chain(g.render_map().text.lines()) {
        assert!(line.chars().count() <= 100, "{line}");
    }
}

/// One game to its end: (orders, won).
fn playout(players: usize, seed: u64, variant: usize) -> (usize, bool) {
    play(new_game(players, seed, VARIANTS[variant]), seed)
}

/// A game of `players` named P0, P1, ….
fn new_game(players: usize, seed: u64, options: &[&str]) -> Linie1 {
    let names: Vec<String> = (0..players).map(|i| format!("P{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    linie1_game(&names, seed, options)
}

fn play(mut g: Linie1, seed: u64) -> (usize, bool) {
    let players = g.players().len();
    let mut rng = SplitMix64::new(seed ^ 0x11e1);
    let mut orders = 0;
    loop {
        g.check_invariants()
            .unwrap_or_else(|e| panic!("seed {seed}, order {orders}: {e}"));
        if orders % 20 == 0 {
            let reader = Seat((orders / 20 % players) as u8);
            check_secrets(&g, Viewer::Player(reader));
            check_secrets(&g, Viewer::Spectator);
        }
        if let Status::Finished(placings) = g.status() {
            assert_eq!(placings.len(), players);
            check_secrets(&g, Viewer::Spectator);
            return (orders, g.outcome().is_some_and(|o| o.winner.is_some()));
        }
        assert!(orders < MAX_ORDERS, "seed {seed}: the game did not end");
        let awaited = g.awaiting();
        assert_eq!(awaited.len(), 1, "one player at a time");
        let seat = awaited[0].seat;
        for s in 0..players as u8 {
            if Seat(s) != seat {
                assert!(g.legal_orders(Seat(s)).is_empty());
            }
        }
        let legal = g.legal_orders(seat);
        assert!(
            !legal.is_empty(),
            "seed {seed}: {seat} awaited with nothing legal"
        );

        // A random lay or exchange applies exactly when it is listed.
        if rng.below(3) == 0 {
            let o = wild(&mut rng, &g, seat);
            let listed = legal.contains(&o);
            let mut copy = g.clone();
            match copy.apply(seat, &o) {
                Ok(_) => assert!(listed, "seed {seed}: {o:?} applied but not listed"),
                Err(e) => {
                    assert!(!listed, "seed {seed}: listed {o:?} refused: {e}");
                    assert_eq!(copy, g, "a refused order changed the game");
                }
            }
        }

        // Now and then the missed-turn default instead.
        let order = if rng.below(8) == 0 {
            g.default_order(seat)
                .expect("an awaited player has a default")
        } else {
            pick(&mut rng, &legal)
        };
        let text = g.order_text(&order);
        assert_eq!(
            g.parse_order(seat, &text).as_ref(),
            Ok(&order),
            "canonical text {text} reads back"
        );
        let events = g
            .apply(seat, &order)
            .unwrap_or_else(|e| panic!("seed {seed}: legal order {text} refused: {e}"));
        for e in &events {
            assert!(!g.describe(e, Viewer::Spectator).is_empty());
        }
        orders += 1;
    }
}

#[test]
fn random_games_of_two_to_six_players_end_and_conserve_tiles() {
    let mut won = 0;
    let mut total = 0;
    let mut lengths = Vec::new();
    for players in 2..=6 {
        for seed in 0..4u64 {
            let (orders, w) = playout(players, seed * 31 + players as u64, (seed as usize) % 5);
            won += usize::from(w);
            total += 1;
            lengths.push(orders);
        }
    }
    lengths.sort();
    eprintln!(
        "{total} games, {won} won; median {} orders, longest {}",
        lengths[lengths.len() / 2],
        lengths[lengths.len() - 1]
    );
}

#[test]
fn random_trips_on_a_built_route_end_and_conserve_tiles() {
    let mut won = 0;
    let mut total = 0;
    for players in 2..=6 {
        for (i, variant) in VARIANTS.iter().enumerate() {
            let seed = (players * 10 + i) as u64;
            let (_, w) = play(with_route(&new_game(players, seed, variant)), seed);
            won += usize::from(w);
            total += 1;
        }
    }
    eprintln!("{total} games on a built route, {won} won");
    assert!(won > 0, "some trips finish");
}

#[test]
fn a_snapshot_reads_back_to_the_same_game() {
    let mut g = new_game(3, 5, &[]);
    let mut rng = SplitMix64::new(5);
    for _ in 0..40 {
        let seat = g.awaiting()[0].seat;
        let o = pick(&mut rng, &g.legal_orders(seat));
        g.apply(seat, &o).unwrap();
    }
    let text = serde_json::to_string(&g).unwrap();
    let back: Linie1 = serde_json::from_str(&text).unwrap();
    assert_eq!(back, g);
}

proptest! {
    // A fixed generator seed: a random driver can circle a loop of track
    // for ever (the rules allow it; a player would not), and a run of CI
    // must not fail on the one draw in a thousand that does. Change the
    // seed to explore further cases.
    #![proptest_config(ProptestConfig {
        cases: 12,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x11e1_0001),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_seed_plays_to_an_end(seed in any::<u64>(), players in 2usize..=6, variant in 0usize..5) {
        playout(players, seed, variant);
    }
}
