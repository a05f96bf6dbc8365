//! Stephenson's Rocket's tests of its parts: the board file, hexes,
//! scoring, and every event read by every reader. They sit here, not in
//! `#[cfg(test)]` modules, and `Cargo.toml` sets `test = false`: a unit-test
//! harness compiles the whole crate a second time, the longest step of
//! README's `cargo test` after `cargo build` (issue 37, point 8); this file
//! compiles only itself and links the library already built. The rules'
//! tests, through the whole application, are in `tests/all/rocket_*.rs`.

mod board {
    use stationmaster_rocket::Board;

    #[test]
    fn the_shipped_board_loads() {
        let b = Board::embedded().unwrap();
        assert!(b.reconstruction);
        assert_eq!(b.places.len(), 28);
        assert_eq!(b.lines.len(), 7);
        let york = b.places.iter().find(|p| p.name == "York").unwrap();
        assert_eq!(york.hex.to_string(), "G1");
    }
}

mod hex {
    use stationmaster_rocket::{Dir, Hex};

    fn h(s: &str) -> Hex {
        Hex::parse(s).unwrap()
    }

    #[test]
    fn names_read_and_print_the_same() {
        assert_eq!(h("F8"), Hex::new(5, 7));
        assert_eq!(h("f8").to_string(), "F8");
        assert_eq!(h("O19").to_string(), "O19");
        assert_eq!(Hex::parse("8F"), None);
        assert_eq!(Hex::parse("F0"), None);
        assert_eq!(Hex::parse("F"), None);
    }

    #[test]
    fn neighbours_follow_the_odd_r_layout_of_rulings() {
        // rocket.md: on rows 2, 4, … the hexes above and below are the same
        // column and the next column east; on odd rows, the same column and
        // the next column west.
        let (c, r) = (15, 19);
        assert_eq!(h("C4").step(Dir::NE, c, r), Some(h("D3")));
        assert_eq!(h("C4").step(Dir::NW, c, r), Some(h("C3")));
        assert_eq!(h("C4").step(Dir::SE, c, r), Some(h("D5")));
        assert_eq!(h("C4").step(Dir::SW, c, r), Some(h("C5")));
        assert_eq!(h("C5").step(Dir::NE, c, r), Some(h("C4")));
        assert_eq!(h("C5").step(Dir::NW, c, r), Some(h("B4")));
        assert_eq!(h("C5").step(Dir::E, c, r), Some(h("D5")));
        assert_eq!(h("A1").step(Dir::NW, c, r), None);
        assert_eq!(h("A1").step(Dir::SW, c, r), None);
    }

    #[test]
    fn every_step_has_its_way_back() {
        for col in 0..15 {
            for row in 0..19 {
                let a = Hex::new(col, row);
                for d in Dir::ALL {
                    if let Some(b) = a.step(d, 15, 19) {
                        assert_eq!(b.step(d.opposite(), 15, 19), Some(a));
                        assert_eq!(a.dir_to(b, 15, 19), Some(d));
                    }
                }
            }
        }
    }

    #[test]
    fn ahead_is_straight_and_the_two_gentle_curves() {
        assert_eq!(Dir::E.ahead(), [Dir::NE, Dir::E, Dir::SE]);
        assert_eq!(Dir::NE.ahead(), [Dir::NW, Dir::NE, Dir::E]);
    }
}

mod scoring {
    use stationmaster_rocket::Money;
    use stationmaster_rocket::scoring::{majority, per_place, placed};

    fn k(v: &[Money]) -> Vec<u32> {
        v.iter().map(|m| m.pounds() / 1000).collect()
    }

    #[test]
    fn money_prints_in_pounds() {
        assert_eq!(Money::thousands(2).to_string(), "£2,000");
        assert_eq!(Money::thousands(1234).to_string(), "£1,234,000");
        assert_eq!(Money::ZERO.to_string(), "£0");
        assert_eq!(Money::round_down(6500), Money::thousands(6));
    }

    #[test]
    fn rulings_1_payments_round_down_to_notes() {
        // Half of £3,000 pays £1,000; half of £13,000 pays £6,000.
        assert_eq!(k(&per_place(&[2, 1], 3)), [3, 1]);
        assert_eq!(k(&per_place(&[4, 3], 13)), [13, 6]);
        // Two tied for second on £3,000 get £1,000 each.
        assert_eq!(k(&majority(&[4, 2, 2], 6000, 3000)), [6, 1, 1]);
    }

    #[test]
    fn rulings_2_most_needs_at_least_one() {
        assert_eq!(k(&majority(&[0, 0, 0], 6000, 3000)), [0, 0, 0]);
        assert_eq!(k(&majority(&[2, 0, 0], 6000, 3000)), [6, 0, 0]);
    }

    #[test]
    fn placings_include_parts_that_round_down_to_nothing() {
        // Tied seconds on £1,000: £500 each, paid as nothing, but placed.
        assert_eq!(k(&majority(&[2, 1, 1], 2000, 1000)), [2, 0, 0]);
        assert_eq!(placed(&[2, 1, 1]), [true, true, true]);
        assert_eq!(placed(&[3, 3, 1, 0]), [true, true, false, false]);
        assert_eq!(placed(&[0, 0, 0]), [false, false, false]);
        assert_eq!(placed(&[0, 5, 0]), [false, true, false]);
    }

    #[test]
    fn rulings_3_ties() {
        // Tied firsts share first and second.
        assert_eq!(k(&majority(&[3, 3, 3], 6000, 3000)), [3, 3, 3]);
        assert_eq!(k(&majority(&[3, 3, 1], 6000, 3000)), [4, 4, 0]);
        // A single first with tied seconds: they share second.
        assert_eq!(k(&majority(&[3, 2, 2, 0], 13000, 6500)), [13, 3, 3, 0]);
        // A single first and nobody else: no second.
        assert_eq!(k(&majority(&[0, 5, 0], 12000, 6000)), [0, 12, 0]);
    }
}

mod event {
    //! Every kind of event, read by its actor, by another player, by a
    //! spectator and by a moderator: second person where the reader is
    //! meant, a name everywhere else (issue 38).
    use engine::person::{kinds_without_example, slips_for_every_reader};
    use engine::{Game, Seat, Setup};
    use stationmaster_rocket::{
        Board, Event, Good, Hex, LineId, Money, PaymentCause, PlaceId, Rocket,
    };

    const NAMES: [&str; 3] = ["anna", "ben", "cara"];

    fn game() -> Rocket {
        let setup = Setup::for_names("rocket", &NAMES, 1);
        Rocket::new(Board::embedded().unwrap(), &setup).unwrap()
    }

    /// One event of every kind: `kind` below numbers them, and its match
    /// has no wildcard, so a new kind fails to compile until it is named
    /// there, and then this test until an example of it is here.
    fn every_kind() -> Vec<Event> {
        let (a, b) = (Seat(0), Seat(1));
        let hex = Hex::parse("C5").unwrap();
        let to = Hex::parse("D5").unwrap();
        let (l, m) = (LineId(0), LineId(1));
        let city = PlaceId(0);
        let cause = PaymentCause::City { city, line: l };
        vec![
            Event::TokenTaken {
                player: a,
                city,
                good: Good::ALL[0],
            },
            Event::StationPlaced { player: a, hex },
            Event::StationMoved {
                player: a,
                from: hex,
                to,
            },
            Event::LocomotiveMoved {
                player: a,
                line: l,
                from: hex,
                to,
            },
            Event::ShareTaken { player: a, line: l },
            Event::NoShareLeft { player: a, line: l },
            Event::VetoAsked {
                line: l,
                hex,
                players: vec![a, b],
                mover: Some(Seat(2)),
            },
            Event::VetoDeclined { player: a },
            Event::VetoCalled { player: a, line: l },
            Event::CannotBid {
                player: a,
                line: Some(l),
                held: 0,
                supplementary: 0,
                needed: 1,
            },
            Event::CannotBid {
                player: a,
                line: Some(l),
                held: 0,
                supplementary: 1,
                needed: 1,
            },
            Event::CannotBid {
                player: a,
                line: Some(l),
                held: 1,
                supplementary: 1,
                needed: 2,
            },
            Event::CannotBid {
                player: a,
                line: None,
                held: 0,
                supplementary: 0,
                needed: 0,
            },
            Event::BidMade {
                player: a,
                shares: 2,
                hex,
            },
            Event::BidPassed { player: a },
            Event::VetoWon {
                player: a,
                line: l,
                shares: 2,
                hex,
                discarded: false,
            },
            Event::PassengerTaken {
                player: a,
                hex,
                station_of: b,
            },
            Event::PassengerTaken {
                player: b,
                hex,
                station_of: a,
            },
            Event::TrackLaid { line: l, hex },
            Event::Connected {
                line: l,
                place: city,
            },
            Event::Paid {
                player: a,
                amount: Money::thousands(3),
                cause: cause.clone(),
            },
            Event::PaidNothing {
                player: a,
                cause: cause.clone(),
            },
            Event::NobodyPaid { cause },
            Event::Merged {
                dissolved: m,
                survivor: l,
                hex,
                board_shares: Some(1),
            },
            Event::SharesExchanged {
                player: a,
                returned: 3,
                dissolved: Some(m),
                line: l,
                received: 1,
                received_supplementary: 0,
            },
            Event::SharesExchanged {
                player: a,
                returned: 2,
                dissolved: None,
                line: l,
                received: 1,
                received_supplementary: 1,
            },
            Event::Isolated {
                line: l,
                discarded: 1,
            },
            Event::TurnBegan {
                player: a,
                number: 3,
            },
            Event::TurnSkipped { player: a },
            Event::TurnLost { player: a },
            Event::GameEnded {
                reason: "the last track tile is laid".into(),
            },
            Event::TokensDiscarded {
                player: a,
                count: 2,
            },
            Event::Winner { players: vec![a] },
            Event::Winner {
                players: vec![b, a],
            },
        ]
    }

    fn kind(e: &Event) -> usize {
        match e {
            Event::TokenTaken { .. } => 0,
            Event::StationPlaced { .. } => 1,
            Event::StationMoved { .. } => 2,
            Event::LocomotiveMoved { .. } => 3,
            Event::ShareTaken { .. } => 4,
            Event::NoShareLeft { .. } => 5,
            Event::VetoAsked { .. } => 6,
            Event::VetoDeclined { .. } => 7,
            Event::VetoCalled { .. } => 8,
            Event::CannotBid { .. } => 9,
            Event::BidMade { .. } => 10,
            Event::BidPassed { .. } => 11,
            Event::VetoWon { .. } => 12,
            Event::PassengerTaken { .. } => 13,
            Event::TrackLaid { .. } => 14,
            Event::Connected { .. } => 15,
            Event::Paid { .. } => 16,
            Event::PaidNothing { .. } => 17,
            Event::NobodyPaid { .. } => 18,
            Event::Merged { .. } => 19,
            Event::SharesExchanged { .. } => 20,
            Event::Isolated { .. } => 21,
            Event::TurnBegan { .. } => 22,
            Event::TurnSkipped { .. } => 23,
            Event::TurnLost { .. } => 24,
            Event::GameEnded { .. } => 25,
            Event::TokensDiscarded { .. } => 26,
            Event::Winner { .. } => 27,
        }
    }

    #[test]
    fn every_event_reads_right_to_every_reader() {
        let g = game();
        let events = every_kind();
        let missing = kinds_without_example(&events, kind, 28);
        assert!(
            missing.is_empty(),
            "event kinds with no example: {missing:?}"
        );
        let wrong = slips_for_every_reader(&events, &NAMES, |e, v| g.describe(e, v));
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
