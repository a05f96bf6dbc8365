//! Random playouts: complete games of 2, 3 and 4 players with random legal
//! orders, checking after every order that pieces are conserved, that the
//! legal orders, `apply` and `timing` agree, that the game ends, and that
//! the JSON view is valid JSON with the documented fields.

use stationmaster::engine::Viewer;
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, PlayerSetup, Seat, Setup, Status, Timing};
use stationmaster::rocket::{Board, Hex, LineId, Order, Rocket, TRACK_TILES};

const GAMES_PER_COUNT: u64 = 1000;
const MAX_ORDERS: usize = 20_000;

fn new_game(players: usize, seed: u64, options: &[&str]) -> Rocket {
    let setup = Setup {
        kind: "rocket".into(),
        players: (0..players)
            .map(|i| PlayerSetup {
                name: format!("P{i}"),
                email: format!("p{i}@example.test"),
            })
            .collect(),
        options: options.iter().map(|s| s.to_string()).collect(),
        seed,
    };
    Rocket::new(Board::embedded().unwrap(), &setup).unwrap()
}

/// Picks an order form first, then an order of that form, so that the many
/// station placements do not crowd out extensions and the game moves on.
fn pick(rng: &mut SplitMix64, legal: &[Order]) -> Order {
    let kind = |o: &Order| match o {
        Order::Extend { .. } => 0,
        Order::Token { .. } => 1,
        Order::Station { from: None, .. } => 2,
        Order::Station { from: Some(_), .. } => 3,
        Order::Veto => 4,
        Order::NoVeto => 5,
        Order::Bid { .. } => 6,
        Order::Pass => 7,
        Order::Skip => 8,
    };
    let mut kinds: Vec<u8> = legal.iter().map(kind).collect();
    kinds.sort();
    kinds.dedup();
    // Extensions twice as likely as the rest: games end by track and shares.
    let mut weighted: Vec<u8> = kinds.clone();
    if kinds.contains(&0) {
        weighted.push(0);
        weighted.push(0);
    }
    let k = weighted[rng.below(weighted.len())];
    let of_kind: Vec<&Order> = legal.iter().filter(|o| kind(o) == k).collect();
    of_kind[rng.below(of_kind.len())].clone()
}

/// A random order that may well be illegal.
fn wild(rng: &mut SplitMix64, g: &Rocket) -> Order {
    let b = g.board();
    let hex = Hex::new(
        rng.below(b.columns as usize) as u8,
        rng.below(b.rows as usize) as u8,
    );
    match rng.below(6) {
        0 => Order::Extend {
            line: LineId(rng.below(b.lines.len()) as u8),
            hex,
        },
        1 => Order::Station { hex, from: None },
        2 => Order::Bid {
            shares: rng.below(5) as u8,
            hex,
        },
        3 => Order::Veto,
        4 => Order::NoVeto,
        _ => Order::Pass,
    }
}

fn check_view(g: &Rocket, viewer: Viewer) {
    let text = serde_json::to_string(&g.view_json(viewer)).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for key in [
        "game",
        "kind",
        "phase",
        "finished",
        "players",
        "lines",
        "tiles_left",
        "turn",
        "awaiting",
    ] {
        assert!(v.get(key).is_some(), "view lacks {key}");
    }
    assert_eq!(v["kind"], "rocket");
    for (i, p) in v["players"].as_array().unwrap().iter().enumerate() {
        let own = viewer == Viewer::Player(Seat(i as u8));
        let finished = v["finished"].as_bool().unwrap();
        assert_eq!(
            p.get("money").is_some(),
            own || finished,
            "money shown to the wrong reader"
        );
    }
}

fn playout(players: usize, seed: u64) -> (usize, u8) {
    let mut g = new_game(
        players,
        seed,
        if seed.is_multiple_of(2) {
            &[]
        } else {
            &["veto_defend_only"]
        },
    );
    let mut rng = SplitMix64::new(seed ^ 0x5eed);
    let mut orders = 0;
    loop {
        g.check_invariants()
            .unwrap_or_else(|e| panic!("seed {seed}, order {orders}: {e}"));
        assert!(g.tiles_laid() <= TRACK_TILES);
        if orders % 25 == 0 {
            check_view(&g, Viewer::Player(Seat((orders % players) as u8)));
        }
        let awaited = g.awaiting();
        if let Status::Finished(placings) = g.status() {
            assert!(awaited.is_empty());
            assert_eq!(placings.len(), players);
            check_view(&g, Viewer::Spectator);
            return (orders, g.tiles_laid());
        }
        assert!(
            !awaited.is_empty(),
            "seed {seed}: a game going on must await someone"
        );
        assert!(orders < MAX_ORDERS, "seed {seed}: the game did not end");

        // Someone not awaited has nothing legal.
        let idle: Vec<Seat> = (0..players as u8)
            .map(Seat)
            .filter(|s| awaited.iter().all(|a| a.seat != *s))
            .collect();
        for s in &idle {
            let legal = g.legal_orders(*s);
            // The active player may still call a veto while others are asked.
            assert!(
                legal.iter().all(|o| *o == Order::Veto),
                "seed {seed}: {s} not awaited but may {legal:?}"
            );
        }

        let seat = awaited[rng.below(awaited.len())].seat;
        let legal = g.legal_orders(seat);
        assert!(
            !legal.is_empty(),
            "seed {seed}: {seat} awaited with nothing legal"
        );

        // A random order: applies exactly when it is in the legal list.
        if rng.below(4) == 0 {
            let o = wild(&mut rng, &g);
            let who = Seat(rng.below(players) as u8);
            let is_legal = g.legal_orders(who).contains(&o);
            // Only what is legal now is for now or never; what is held
            // waits behind an interruption.
            match g.timing(who, &o) {
                Timing::Now => {}
                Timing::Never(e) => {
                    assert!(!is_legal, "seed {seed}: legal {o:?} by {who} never: {e}")
                }
                t @ (Timing::Queue(_) | Timing::Standing(_)) => assert!(
                    !is_legal && g.interrupted(),
                    "seed {seed}: {o:?} by {who} held ({t:?})"
                ),
            }
            let mut copy = g.clone();
            match copy.apply(who, &o) {
                Ok(_) => assert!(
                    is_legal,
                    "seed {seed}: {o:?} by {who} applied but is not listed as legal"
                ),
                Err(e) => {
                    assert!(!is_legal, "seed {seed}: legal {o:?} by {who} refused: {e}");
                    assert_eq!(copy, g, "a refused order changed the game");
                }
            }
        }

        let order = pick(&mut rng, &legal);
        assert_eq!(
            g.timing(seat, &order),
            Timing::Now,
            "seed {seed}: legal {order:?} of an awaited player is for now"
        );
        let text = g.order_text(&order);
        assert_eq!(
            g.parse_order(seat, &text).as_ref(),
            Ok(&order),
            "canonical text {text} reads back"
        );
        g.apply(seat, &order)
            .unwrap_or_else(|e| panic!("seed {seed}: legal order {text} refused: {e}"));
        orders += 1;
    }
}

fn run(players: usize) {
    let mut tiles = Vec::new();
    let mut lengths = Vec::new();
    for seed in 0..GAMES_PER_COUNT {
        let (orders, t) = playout(players, seed * 7 + players as u64);
        tiles.push(t as usize);
        lengths.push(orders);
    }
    tiles.sort();
    lengths.sort();
    eprintln!(
        "{players} players: {GAMES_PER_COUNT} games; median {} orders, median {} tiles laid, most {}",
        lengths[lengths.len() / 2],
        tiles[tiles.len() / 2],
        tiles[tiles.len() - 1]
    );
}

#[test]
fn random_games_of_two_players() {
    run(2);
}

#[test]
fn random_games_of_three_players() {
    run(3);
}

#[test]
fn random_games_of_four_players() {
    run(4);
}

/// Orders held behind a veto question or round (the mover's next action, a
/// standing bid or pass) when the change that settles it ends the game can
/// never apply: each player is told, and nothing stays held. Random
/// 3-player games through the order service, every player holding what it
/// can whenever it can, until one ends with something held.
#[test]
fn orders_held_when_the_game_ends_are_dropped_and_their_senders_told() {
    use stationmaster::engine::AnyGame;
    use stationmaster::registry::{self, BoardSource};
    use stationmaster::service::orders;
    use stationmaster::store::GameMeta;

    let mut ended_with_held = 0;
    for seed in 0..60u64 {
        let setup = Setup {
            kind: "rocket".into(),
            players: (0..3)
                .map(|i| PlayerSetup {
                    name: format!("P{i}"),
                    email: format!("p{i}@example.test"),
                })
                .collect(),
            options: vec![],
            seed,
        };
        let mut g: Box<dyn AnyGame> = registry::new_game(&setup, &BoardSource::embedded()).unwrap();
        let mut meta = GameMeta::default();
        let mut rng = SplitMix64::new(seed);
        for _ in 0..MAX_ORDERS {
            let Status::Active(awaited) = g.status() else {
                break;
            };
            // Everyone not awaited holds what they can: the mover an
            // action, the others a standing pass.
            for s in 0..3u8 {
                let seat = Seat(s);
                let holding = meta.queued.get(s as usize).is_some_and(|h| !h.is_empty());
                if holding || awaited.iter().any(|a| a.seat == seat) {
                    continue;
                }
                for line in ["token Manchester steel", "pass"] {
                    if let Ok((work, m, batch)) = orders::run(
                        &*g,
                        &meta,
                        seat,
                        &[line.into()],
                        &stationmaster::engine::Actor::CommandLine,
                    ) && batch.applied.is_empty()
                        && !batch.held.is_empty()
                    {
                        (g, meta) = (work, m);
                        break;
                    }
                }
            }
            let seat = awaited[0].seat;
            let legal = g.legal_order_lines(seat);
            let extends: Vec<&String> = legal.iter().filter(|l| l.starts_with("extend")).collect();
            let line = if !extends.is_empty() && rng.below(3) > 0 {
                extends[rng.below(extends.len())].clone()
            } else {
                legal[rng.below(legal.len())].clone()
            };
            let held_before: Vec<bool> = (0..3)
                .map(|s| meta.queued.get(s).is_some_and(|h| !h.is_empty()))
                .collect();
            let (work, m, batch) = orders::run(
                &*g,
                &meta,
                seat,
                std::slice::from_ref(&line),
                &stationmaster::engine::Actor::CommandLine,
            )
            .unwrap_or_else(|e| panic!("seed {seed}: `{line}` refused: {e:?}"));
            (g, meta) = (work, m);
            if matches!(g.status(), Status::Finished(_)) {
                assert!(
                    meta.queued.iter().all(|h| h.is_empty()),
                    "seed {seed}: held after the end: {:?}",
                    meta.queued
                );
                let told: Vec<usize> = batch
                    .notes
                    .iter()
                    .filter(|(_, t)| {
                        t.starts_with(
                            "The game is over, so your waiting orders were not applied: `",
                        )
                    })
                    .map(|(n, _)| n.index())
                    .collect();
                for (s, held) in held_before.iter().enumerate() {
                    // A held line may also have been applied or dropped on
                    // its own by the change that ended the game, and said so.
                    assert!(
                        !*held || batch.notes.iter().any(|(n, _)| n.index() == s),
                        "seed {seed}: P{s} held orders and was told nothing: {:?}",
                        batch.notes
                    );
                    assert!(held_before[s] || !told.contains(&s), "seed {seed}");
                }
                ended_with_held += told.len();
                break;
            }
        }
        assert!(
            matches!(g.status(), Status::Finished(_)),
            "seed {seed}: no end"
        );
    }
    assert!(
        ended_with_held > 0,
        "no game ended with an order held: the test saw nothing"
    );
    eprintln!("{ended_with_held} players told of orders held at the end");
}
