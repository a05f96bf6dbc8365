//! Any text as order lines, from any seat, on a fresh 3-player game: the
//! grammar and the rules must refuse or apply, never panic, and a refusal
//! must leave the game unchanged. Each line is also read as the lobby
//! reads it (issue 34): a site command (`new`, `join … as NAME`, `invite`,
//! `watch` …), a moderator's command (`replace`, `moderator` …), a name
//! compared as a reader sees it, and every word as an address to mail:
//! none of them may panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use stationmaster::engine::{Game, PlayerSetup, Seat, Setup};
use stationmaster::rocket::{Board, Rocket};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let setup = Setup {
        kind: "rocket".into(),
        players: ["a", "b", "c"]
            .iter()
            .map(|n| PlayerSetup {
                name: n.to_string(),
                email: format!("{n}@x.org"),
            })
            .collect(),
        options: vec![],
        seed: 1,
    };
    let Ok(board) = Board::embedded() else { return };
    let Ok(mut g) = Rocket::new(board, &setup) else {
        return;
    };
    for (i, line) in text.lines().enumerate() {
        let _ = stationmaster::service::site::parse(line);
        let _ = stationmaster::service::moderator::parse(line);
        let _ = stationmaster::service::names::seen_as(line);
        for word in line.split_whitespace() {
            let _ = stationmaster::mail::compose::check_address(word);
        }
        let seat = Seat((i % 3) as u8);
        if let Ok(order) = g.parse_order(seat, line) {
            let before = g.clone();
            if g.apply(seat, &order).is_err() {
                assert_eq!(g, before, "a refused order changed the game");
            }
            assert!(g.check_invariants().is_ok());
        }
    }
});
