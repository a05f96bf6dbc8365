//! Linie 1's tests of its parts: paths and squares, every event read by
//! every reader, the route count, and the hints and `moves` lists. They sit
//! here, not in `#[cfg(test)]` modules, and `Cargo.toml` sets `test =
//! false`: a unit-test harness compiles the whole crate a second time, the
//! longest step of README's `cargo test` after `cargo build` (issue 37,
//! point 8); this file compiles only itself and links the library already
//! built. The rules' tests, through the whole application, are in
//! `tests/all/linie1_*.rs`.
//!
//! Positions are arranged as there: by editing the game's serialised state
//! (its public snapshot form), the tiles laid taken from the supply.

use engine::{Seat, Setup};
use serde_json::{Value, json};
use stationmaster_linie1::{Components, Edge, Linie1, Paths, Square};

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

/// The game after `f` edits its serialised state.
fn edit(g: &Linie1, f: impl FnOnce(&mut Value)) -> Linie1 {
    let mut v = serde_json::to_value(g).unwrap();
    f(&mut v);
    serde_json::from_value(v).unwrap()
}

/// Two players, Anna on line 2 (terminals 2W: A10, A11; 2E: L6, L7)
/// with stops `stops`, an empty board.
fn game(stops: &[char]) -> Linie1 {
    let g = Linie1::new(
        Components::embedded().unwrap(),
        &Setup::for_names("linie1", &["Anna", "Bert"], 7),
    )
    .unwrap();
    let d = g.data();
    let line = d.lines.iter().position(|l| l.number == 2).unwrap();
    let ids: Vec<usize> = stops
        .iter()
        .map(|c| d.building_by_letter(*c).unwrap().index())
        .collect();
    edit(&g, |v| {
        let other = v["players"][0]["line"].clone();
        v["players"][1]["line"] = other;
        v["players"][0]["line"] = json!(line);
        let route = v["players"][0]["route"].as_u64().unwrap() as usize;
        v["data"]["routes"][route]["rows"][line] = json!(ids);
    })
}

/// `tiles` laid as they would be, stop signs included (rulings 3), each
/// taken from the supply.
fn lay(g: &mut Linie1, tiles: &[(&str, &str)]) {
    let d = g.data().clone();
    *g = edit(g, |v| {
        for (s, p) in tiles {
            let (s, paths) = (sq(s), Paths::parse(p).unwrap());
            let t = d.tile_with_paths(paths).unwrap().index();
            v["cells"][d.index(s)] = json!({"tile": t, "paths": paths.0});
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
    });
}

/// Line 2 along row 10 from 2W to K10, north to K7 and east into 2E:
/// the stops K (sign on G10) and A (sign on K8) on the way.
const ROUTE: &[(&str, &str)] = &[
    ("A10", "WE"),
    ("B10", "WE"),
    ("C10", "WE"),
    ("D10", "WE"),
    ("E10", "WE"),
    ("F10", "WE"),
    ("G10", "WE"),
    ("H10", "WE"),
    ("I10", "WE"),
    ("J10", "WE"),
    ("K10", "WN"),
    ("K9", "NS"),
    ("K8", "NS"),
    ("K7", "SE"),
    ("L7", "WN"),
    ("L6", "SE"),
];

/// The route of line 2 with E10 and F10 left out: two squares short.
fn gapped() -> Linie1 {
    let mut g = game(&['K', 'A']);
    let tiles: Vec<(&str, &str)> = ROUTE
        .iter()
        .filter(|(s, _)| *s != "E10" && *s != "F10")
        .copied()
        .collect();
    lay(&mut g, &tiles);
    g
}

/// `g` with one more tile laid.
fn with(g: &Linie1, s: &str, paths: &str) -> Linie1 {
    let mut g = g.clone();
    lay(&mut g, &[(s, paths)]);
    g
}

mod data {
    use stationmaster_linie1::{Paths, Square};

    #[test]
    fn paths_read_and_print_canonically() {
        let p = Paths::parse("sn+ws").unwrap();
        assert_eq!(p.to_string(), "NS+SW");
        assert_eq!(Paths::parse("EW").unwrap().to_string(), "WE");
        assert!(Paths::parse("NN").is_err());
        assert!(Paths::parse("NS+SN").is_err());
        assert!(Paths::parse("NX").is_err());
    }

    #[test]
    fn turning_a_curve_four_times_visits_every_corner() {
        let c = Paths::parse("WS").unwrap();
        let turns: Vec<String> = (0..4).map(|k| c.turned(k).to_string()).collect();
        assert_eq!(turns, ["SW", "NW", "NE", "SE"]);
        assert_eq!(c.turned(4), c);
    }

    #[test]
    fn squares_read_as_column_letter_and_row_number() {
        assert_eq!(Square::parse("b9"), Some(Square::new(8, 1)));
        assert_eq!(Square::new(11, 11).to_string(), "L12");
        assert_eq!(Square::parse("9B"), None);
        assert_eq!(Square::parse("A0"), None);
    }
}

mod event {
    //! Every kind of event, read by its actor, by another player, by a
    //! spectator and by a moderator: second person where the reader is
    //! meant, a name everywhere else (issue 38).
    use engine::person::{kinds_without_example, slips_for_every_reader};
    use engine::{Game, Seat, Setup};
    use stationmaster_linie1::{
        BuildingId, Components, Event, LineId, Linie1, Paths, Place, RouteCardId, Square,
        TerminalId, TileId,
    };

    const NAMES: [&str; 3] = ["anna", "ben", "cara"];

    fn game() -> Linie1 {
        let setup = Setup::for_names("linie1", &NAMES, 1);
        Linie1::new(Components::embedded().unwrap(), &setup).unwrap()
    }

    /// One event of every kind: `kind` below numbers them, and its match
    /// has no wildcard, so a new kind fails to compile until it is named
    /// there, and then this test until an example of it is here.
    fn every_kind() -> Vec<Event> {
        let (a, b) = (Seat(0), Seat(1));
        let square = Square::new(2, 3);
        let paths = Paths::parse("NS").unwrap();
        let (tile, building) = (TileId(0), BuildingId(0));
        vec![
            Event::Laid {
                player: a,
                square,
                tile,
                paths,
            },
            Event::StopSign { building, square },
            Event::Exchanged {
                player: a,
                square,
                old_tile: tile,
                old_paths: paths,
                tile: TileId(1),
                paths,
            },
            Event::Drew {
                player: a,
                tile,
                from: None,
            },
            Event::Drew {
                player: a,
                tile,
                from: Some(b),
            },
            Event::Drew {
                player: b,
                tile,
                from: Some(a),
            },
            Event::Passed { player: a, laid: 0 },
            Event::Passed { player: a, laid: 1 },
            Event::TurnSkipped { player: a },
            Event::TurnBegan {
                player: a,
                number: 3,
            },
            Event::TripStarted {
                player: a,
                line: LineId(0),
                route: RouteCardId(0),
                stops: vec![building, BuildingId(1)],
                terminal: TerminalId(0),
            },
            Event::Rolled {
                player: a,
                value: 3,
                repeated: false,
            },
            Event::Rolled {
                player: a,
                value: 3,
                repeated: true,
            },
            Event::Moved {
                player: a,
                places: vec![Place::Terminal(TerminalId(0)), Place::Square(square)],
                distance: 1,
                counted: vec![building],
            },
            Event::TramOff { player: a },
            Event::Won {
                player: a,
                terminal: TerminalId(1),
            },
            Event::Blocked,
        ]
    }

    fn kind(e: &Event) -> usize {
        match e {
            Event::Laid { .. } => 0,
            Event::StopSign { .. } => 1,
            Event::Exchanged { .. } => 2,
            Event::Drew { .. } => 3,
            Event::Passed { .. } => 4,
            Event::TurnSkipped { .. } => 5,
            Event::TurnBegan { .. } => 6,
            Event::TripStarted { .. } => 7,
            Event::Rolled { .. } => 8,
            Event::Moved { .. } => 9,
            Event::TramOff { .. } => 10,
            Event::Won { .. } => 11,
            Event::Blocked => 12,
        }
    }

    #[test]
    fn every_event_reads_right_to_every_reader() {
        let g = game();
        let events = every_kind();
        let missing = kinds_without_example(&events, kind, 13);
        assert!(
            missing.is_empty(),
            "event kinds with no example: {missing:?}"
        );
        let wrong = slips_for_every_reader(&events, &NAMES, |e, v| g.describe(e, v));
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}

mod route {
    //! How far a route is built: [`Linie1::route_progress`]. A tile the
    //! hints imagine on the board is laid here, where the count reads it
    //! the same way (the track and the stop sign it takes).
    use super::*;
    use stationmaster_linie1::{Phase, RoutePoint, RouteProgress, Stretch, orders_of};

    fn names(g: &Linie1, r: &RouteProgress) -> Vec<String> {
        r.points
            .iter()
            .map(|p| match p {
                RoutePoint::Terminal(t) => g.data().terminal(*t).name.clone(),
                RoutePoint::Stop(b) => g.data().building(*b).letter.to_string(),
            })
            .collect()
    }

    #[test]
    fn an_empty_board_counts_the_squares_of_the_shortest_ways() {
        let g = game(&['K', 'A']);
        let r = g.route_progress(Seat(0));
        assert!(!r.complete);
        assert_eq!(r.stretches.len(), 3);
        assert!(r.stretches.iter().all(|s| !s.joined), "{r:?}");
        // Each stretch's squares are as many as it says are missing.
        for s in &r.stretches {
            assert_eq!(Some(s.squares.len() as u8), s.missing, "{s:?}");
        }
        // 2W (A10, A11) to K (G9) and on to A (L8) and 2E (L6, L7): 12
        // columns to cross and 3 rows to climb, each square counted once
        // (the last stop's square, L7, is a leg of 2E).
        assert_eq!(r.missing(), Some(15), "{r:?}");
        assert_eq!(names(&g, &r), ["2W", "K", "A", "2E"]);
    }

    #[test]
    fn a_finished_route_is_joined_everywhere_and_complete() {
        let mut g = game(&['K', 'A']);
        lay(&mut g, ROUTE);
        let r = g.route_progress(Seat(0));
        assert_eq!(r.missing(), Some(0), "{r:?}");
        assert!(r.stretches.iter().all(|s| s.joined));
        assert!(r.complete);
        assert_eq!(names(&g, &r), ["2W", "K", "A", "2E"]);
    }

    #[test]
    fn a_gap_counts_the_squares_missing_and_names_them() {
        // Row 10 without E10 and F10: the stretch 2W–K misses two.
        let g = gapped();
        let r = g.route_progress(Seat(0));
        assert_eq!(r.missing(), Some(2), "{r:?}");
        let open: Vec<&Stretch> = r.stretches.iter().filter(|s| !s.joined).collect();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].squares, [sq("E10"), sq("F10")]);
        assert!(!r.complete);
        // A tile on E10 closes half the gap; one far away nothing.
        let half = with(&g, "E10", "WE").route_progress(Seat(0));
        assert_eq!(half.missing(), Some(1));
        let far = with(&g, "B2", "WE").route_progress(Seat(0));
        assert_eq!(far.missing(), Some(2));
        // A tile turned across the way closes it there: the way goes round.
        let across = with(&g, "E10", "NS").route_progress(Seat(0));
        assert!(across.missing() > Some(2), "{across:?}");
    }

    #[test]
    fn track_is_followed_only_as_a_tram_would() {
        // A tile whose track runs north-south on A10 does not let a way in
        // from terminal 2W, whose leg enters from the west: the other leg
        // (A11) must be used.
        let mut g = game(&['K', 'A']);
        lay(&mut g, &[("A10", "NS")]);
        let r = g.route_progress(Seat(0));
        let first = &r.stretches[0];
        assert!(!first.squares.contains(&sq("A10")), "{first:?}");
        assert!(first.squares.contains(&sq("A11")), "{first:?}");
    }

    #[test]
    fn a_stop_with_no_sign_is_reached_next_to_its_building() {
        // K stands on G9: with no tile next to it, any of F9, H9, G8, G10
        // serves; the sign taken by a tile on G8 fixes it there.
        let g = game(&['K', 'A']);
        let r = g.route_progress(Seat(0));
        let to_k = &r.stretches[0];
        let last = *to_k.squares.last().unwrap();
        assert!(
            ["F9", "H9", "G8", "G10"].contains(&last.to_string().as_str()),
            "{to_k:?}"
        );
        let g = with(&g, "G8", "WE");
        let r = g.route_progress(Seat(0));
        let into_k = r
            .stretches
            .iter()
            .find(|s| s.to == RoutePoint::Stop(g.data().building_by_letter('K').unwrap()))
            .unwrap();
        assert!(!into_k.squares.contains(&sq("G10")), "{into_k:?}");
    }

    #[test]
    fn ordered_stops_keep_the_cards_order_and_others_take_the_shortest() {
        // Stops A (L8) then K (G9): in any order the way goes K first from
        // 2W; with ordered_stops the card's order is kept.
        let g = game(&['A', 'K']);
        let r = g.route_progress(Seat(0));
        let n = names(&g, &r);
        assert!(
            n == ["2W", "K", "A", "2E"] || n == ["2E", "A", "K", "2W"],
            "{n:?}"
        );
        let d = g.data();
        let (route, line) = (g.players()[0].route, g.players()[0].line);
        let stops: Vec<usize> = ['A', 'K', 'D']
            .iter()
            .map(|c| d.building_by_letter(*c).unwrap().index())
            .collect();
        let ordered = edit(&g, |v| {
            v["options"]["ordered_stops"] = json!(true);
            v["data"]["routes"][route.index()]["rows"][line.index()] = json!(stops);
        });
        let r = ordered.route_progress(Seat(0));
        let n = names(&ordered, &r);
        assert_eq!(&n[1..4], ["A", "K", "D"], "{n:?}");
        assert_eq!(ordered.phase(), &Phase::Lay { laid: 0 });
    }

    #[test]
    fn every_order_of_three_stops_is_tried() {
        assert_eq!(orders_of(0), vec![Vec::<usize>::new()]);
        assert_eq!(orders_of(2), vec![vec![0, 1], vec![1, 0]]);
        let all = orders_of(3);
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], [0, 1, 2]);
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 6);
    }
}

mod hints {
    //! What a player is offered: the hints of a report and the `moves`
    //! list, both through [`Game`].
    use super::*;
    use engine::{Game, grammar};
    use stationmaster_linie1::Order;

    /// Anna's hand set to `tiles` (by paths), the supply keeping count.
    fn hand(g: &mut Linie1, tiles: &[&str]) {
        let d = g.data().clone();
        let ids: Vec<usize> = tiles
            .iter()
            .map(|p| d.tile_with_paths(Paths::parse(p).unwrap()).unwrap().index())
            .collect();
        *g = edit(g, |v| {
            let old: Vec<u64> = v["players"][0]["hand"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_u64().unwrap())
                .collect();
            for t in old {
                let n = v["supply"][t as usize].as_u64().unwrap();
                v["supply"][t as usize] = json!(n + 1);
            }
            for t in &ids {
                let n = v["supply"][*t].as_u64().unwrap();
                v["supply"][*t] = json!(n - 1);
            }
            v["players"][0]["hand"] = json!(ids);
        });
    }

    #[test]
    fn a_tile_by_number_and_turn_is_the_lay_its_paths_name() {
        let g = game(&['K', 'A']);
        let seat = Seat(0);
        // Tile 3, straight and left curve (NS+SW), a quarter clockwise.
        let numbered = g.parse_order(seat, "lay 3 C4 90").unwrap();
        assert_eq!(numbered, g.parse_order(seat, "lay C4 WE+NW").unwrap());
        assert_eq!(g.order_text(&numbered), "lay C4 WE+NW");
        assert_eq!(
            g.parse_order(seat, "lay 2 C4").unwrap(),
            g.parse_order(seat, "lay C4 WS").unwrap()
        );
        assert_eq!(
            g.parse_order(seat, "lay 2 C4 270°").unwrap(),
            g.parse_order(seat, "lay C4 SE").unwrap()
        );
        assert_eq!(
            g.parse_order(seat, "exchange 7 C4 90 8 D4").unwrap(),
            g.parse_order(seat, "exchange C4 NS+NE+SE D4 WE+NE+SE")
                .unwrap()
        );
        assert_eq!(
            g.parse_order(seat, "draw Bert 2").unwrap(),
            g.parse_order(seat, "draw Bert WS").unwrap()
        );
        let e = g.parse_order(seat, "lay 3 C4 45").unwrap_err();
        assert!(e.message.contains("0, 90, 180 or 270"), "{e:?}");
        let e = g.parse_order(seat, "lay 13 C4 0").unwrap_err();
        assert!(e.message.contains("no tile 13"), "{e:?}");
        let e = g.parse_order(seat, "lay 3").unwrap_err();
        assert!(e.message.contains("where does tile 3 go"), "{e:?}");
        // Each lay as the hints write it (`moves` lists every one, by tile
        // number and turn) reads back as itself: on the square it names,
        // each legal lay once.
        let legal: Vec<Order> = g
            .legal_orders(seat)
            .into_iter()
            .filter(|o| matches!(o, Order::Lay { .. }))
            .collect();
        let mut read: Vec<Order> = Vec::new();
        for line in g.order_list(seat, None).unwrap() {
            for text in line
                .split("   ")
                .map(str::trim)
                .filter(|t| t.starts_with("lay "))
            {
                let o = g.parse_order(seat, text).unwrap();
                let Order::Lay { square, .. } = o else {
                    panic!("{text} reads as {o:?}");
                };
                assert_eq!(text.split(' ').nth(2), Some(square.to_string().as_str()));
                assert!(legal.contains(&o), "{text}");
                assert!(!read.contains(&o), "{text} twice");
                read.push(o);
            }
        }
        assert_eq!(read.len(), legal.len());
    }
    #[test]
    fn the_lays_that_close_a_gap_come_first_within_twelve_lines() {
        let mut g = gapped();
        hand(&mut g, &["WE", "WE", "WS", "WS", "NS+SW"]);
        let hints = g.hints(Seat(0));
        let lays = hints
            .iter()
            .find(|h| h.starts_with("lay TILE SQUARE TURN"))
            .unwrap();
        let lines: Vec<&str> = lays.lines().collect();
        assert!(lines.len() <= 12, "{lays}");
        // The first lay offered fills E10 or F10 east-west: a straight,
        // as drawn.
        let first = lines[1].trim();
        assert!(
            first.starts_with("lay 1 E10 0") || first.starts_with("lay 1 F10 0"),
            "{lays}"
        );
        assert!(
            first.contains("your route: 2 squares to fill, then 1"),
            "{lays}"
        );
        assert!(
            lines.last().unwrap().contains("reply `moves` (all)"),
            "{lays}"
        );
        for h in &hints {
            for line in h.lines() {
                assert!(line.chars().count() <= grammar::HINT_WIDTH, "{line}");
            }
        }
        // Without a gap there is nothing to rank: one lay of each tile.
        let mut far = game(&['K', 'A']);
        hand(&mut far, &["WE", "WE", "WS", "WS", "NS+SW"]);
        let h = far.hints(Seat(0)).join("\n");
        assert!(h.contains("lay 1 A1 0") || h.contains("lay 1 "), "{h}");
    }

    #[test]
    fn a_whole_turn_is_offered_as_one_mail() {
        let mut g = gapped();
        hand(&mut g, &["WE", "WE", "WS", "WS", "NS+SW"]);
        let hints = g.hints(Seat(0)).join("\n");
        assert!(
            hints.contains(
                "a whole turn           in one mail, one order a line (the draws are made for you)"
            ),
            "{hints}"
        );
        // Both gap squares, one mail.
        assert!(
            hints.contains("lay 1 E10 0\n") || hints.contains("lay 1 F10 0\n"),
            "{hints}"
        );
    }

    #[test]
    fn moves_lists_every_lay_or_one_squares_or_one_tiles() {
        let mut g = gapped();
        hand(&mut g, &["WE", "WE", "WS", "WS", "NS+SW"]);
        let seat = Seat(0);
        let all = g.order_list(seat, None).unwrap();
        let lays = g
            .legal_orders(seat)
            .iter()
            .filter(|o| matches!(o, Order::Lay { .. }))
            .count();
        let listed: usize = all.iter().map(|l| l.matches("lay ").count()).sum();
        assert_eq!(listed, lays);
        assert!(all[0].contains("E10") || all[0].contains("F10"), "{all:?}");
        let c4 = g.order_list(seat, Some("C4")).unwrap();
        assert!(
            c4.iter().all(|l| l
                .split("   ")
                .all(|o| o.trim().ends_with(" 0") || o.contains(" C4 "))),
            "{c4:?}"
        );
        assert!(c4.iter().all(|l| l.contains("C4")), "{c4:?}");
        let two = g.order_list(seat, Some("2")).unwrap();
        assert!(!two.is_empty());
        assert!(
            two.iter()
                .all(|l| l.split("   ").all(|o| o.trim().starts_with("lay 2 "))),
            "{two:?}"
        );
        let e = g.order_list(seat, Some("9")).unwrap_err();
        assert!(e.contains("not in your hand"), "{e}");
        let e = g.order_list(seat, Some("xyz")).unwrap_err();
        assert!(e.contains("name a square"), "{e}");
        assert!(g.order_list(Seat(1), None).unwrap().is_empty());
    }
}

/// The bot's trip search (`trip.rs`) finds the same least cost with and
/// without its A* bound, every seat's trip and drive, over random games
/// (every third with `ordered_stops`); and a seat's estimate is the same
/// asked alone, with some seats, or with every seat.
#[test]
fn the_bots_trip_search_is_as_cheap_with_its_bound_as_without() {
    use engine::rng::SplitMix64;
    use engine::{Game, PlayerSetup};
    let components = Components::embedded().expect("components");
    let mut compared = 0;
    for seed in 0..12u64 {
        let setup = Setup {
            kind: "linie1".into(),
            players: (0..4)
                .map(|i| PlayerSetup {
                    name: format!("p{i}"),
                    email: format!("p{i}@example.test"),
                })
                .collect(),
            options: if seed % 3 == 0 {
                vec!["ordered_stops".into()]
            } else {
                Vec::new()
            },
            seed,
        };
        let mut g = Linie1::new(components.clone(), &setup).expect("game");
        let mut rng = SplitMix64::new(seed);
        for step in 0..400 {
            let Some(a) = g.awaiting().first().map(|a| a.seat) else {
                break;
            };
            if step % 7 == 0 {
                match g.astar_agrees() {
                    Ok(n) => compared += n,
                    Err(e) => panic!("seed {seed} step {step}: {e}"),
                }
                let alone: Vec<Option<i64>> = (0..4).map(|i| g.estimate(Seat(i))).collect();
                let every = g.estimates().map(|v| v.into_iter().map(Some).collect());
                assert_eq!(every, Some(alone.clone()), "seed {seed} step {step}");
                let some = g.estimates_of(&[Seat(3), Seat(1)]);
                assert_eq!(some, alone[3].zip(alone[1]).map(|(a, b)| vec![a, b]));
            }
            let legal = g.legal_orders(a);
            let o = legal[rng.below(legal.len())].clone();
            g.apply(a, &o).expect("legal");
        }
    }
    assert!(compared > 100, "{compared}");
}
