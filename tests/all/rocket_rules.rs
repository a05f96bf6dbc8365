//! Stephenson's Rocket: one test per ruling of `rocket.md` (rulings 1 to 14
//! and the options), one per paragraph of the rule book (`seeds/002`), every
//! kind of refused order, and the order grammar.
//!
//! Everything goes through the public API: orders typed as text, parsed with
//! `parse_order` and applied with `apply`; the state read back through the
//! accessors. Hexes: column letter from A at the west, row from 1 at the
//! north; rows 2, 4, … sit half a hex east.

use crate::common::*;
use stationmaster::engine::Viewer;
use stationmaster::engine::{Game, RuleError, Seat, SetupError, Timing};
use stationmaster::rocket::scoring::{Money, majority, per_place};
use stationmaster::rocket::{
    Board, Dir, Event, Good, LineStatus, Order, PaymentCause, Phase, Rocket, Tile,
};

/// Payments in thousands.
fn ks(v: &[Money]) -> Vec<u32> {
    v.iter().map(|m| m.pounds() / 1000).collect()
}

// ===== Rulings 1 to 3: money and majorities ==================================

/// Rulings 1: every individual payment is rounded down to a multiple of
/// £1,000, as the Hungarian examples show: half of £3,000 pays £1,000; two
/// tied for second on £3,000 get £1,000 each; half of £13,000 pays £6,000.
#[test]
fn rulings_01_money_comes_in_thousand_pound_notes() {
    assert_eq!(ks(&per_place(&[2, 1], 3)), [3, 1]);
    assert_eq!(ks(&majority(&[4, 2, 2], 6000, 3000)), [6, 1, 1]);
    assert_eq!(ks(&per_place(&[3, 4], 13)), [6, 13]);
    assert_eq!(Money::round_down(6500), Money::thousands(6));
    assert_eq!(Money::round_down(999), Money::ZERO);
}

/// Rulings 1 in play: Andi and Béla hold one Manchester token each. When L&Y
/// connects Manchester they tie for first and share first and second,
/// £3,000: £1,500 each, paid as £1,000.
#[test]
fn rulings_01_a_tied_city_payment_is_rounded_down_in_play() {
    let mut g = game(&ABC[..2]);
    act(&mut g, "token Manchester textiles"); // Andi
    filler(&mut g);
    act(&mut g, "token Manchester steel"); // Béla
    let ev = extend(&mut g, "L&Y B4"); // B4 touches Manchester (C4)
    assert_eq!(
        payments(&ev),
        [
            (
                ANDI,
                1,
                PaymentCause::City {
                    city: place(&g, "Manchester"),
                    line: line(&g, "L&Y")
                }
            ),
            (
                BELA,
                1,
                PaymentCause::City {
                    city: place(&g, "Manchester"),
                    line: line(&g, "L&Y")
                }
            ),
        ]
    );
    assert_eq!(moneys(&g), [1, 1]);
}

/// Rulings 2: a player with none of the kind being scored never places first
/// or second.
#[test]
fn rulings_02_most_needs_at_least_one() {
    assert_eq!(ks(&majority(&[0, 0, 0], 2000, 1000)), [0, 0, 0]);
    assert_eq!(ks(&majority(&[1, 0, 0], 2000, 1000)), [2, 0, 0]);
    assert_eq!(ks(&per_place(&[0, 2, 0], 5)), [0, 5, 0]);
}

/// Rulings 2 in play: only Cecil holds a Manchester token; he is paid
/// £2,000 and nobody is paid for second. Worcester, whose tokens nobody
/// holds, pays nobody when it is connected.
#[test]
fn rulings_02_nobody_without_tokens_is_paid_in_play() {
    let mut g = game(&ABC);
    turn_to(&mut g, CECIL);
    act(&mut g, "token Manchester textiles");
    let ev = extend(&mut g, "L&Y B4");
    assert_eq!(paid(&ev), [(CECIL, 2)]);
    assert_eq!(moneys(&g), [0, 0, 2]);

    turn_to(&mut g, ANDI);
    let ev = extend(&mut g, "LNWR C10"); // C10 touches Worcester (C11)
    assert!(has(&ev, |e| matches!(
        e,
        Event::NobodyPaid {
            cause: PaymentCause::City { .. }
        }
    )));
    assert!(paid(&ev).is_empty());
    assert_eq!(moneys(&g), [0, 0, 2]);
}

/// Rulings 1 and 3 as players read them: tied seconds whose part rounds
/// down to nothing are told so, by name, where the payments are told; they
/// were left out, as if they had not placed. LSWR runs F17 (Cecil), E16
/// (Béla), D16 (Andi) and D15 (Cecil) into GWR: Cecil holds 2 LSWR shares,
/// Béla and Andi 1 each; LSWR is worth 3 places, so Cecil gets £3,000 and
/// Béla and Andi share half of it, £750 each, which pays nothing.
#[test]
fn rulings_01_tied_seconds_paid_nothing_are_told() {
    let mut g = game(&ABC);
    turn_extend(&mut g, CECIL, "LSWR F17");
    turn_extend(&mut g, BELA, "LSWR E16");
    turn_extend(&mut g, ANDI, "LSWR D16");
    turn_to(&mut g, CECIL);
    let ev = extend(&mut g, "LSWR D15");
    let cause = PaymentCause::Merger {
        dissolved: line(&g, "LSWR"),
        survivor: line(&g, "GWR"),
    };
    assert_eq!(payments(&ev), [(CECIL, 3, cause.clone())]);
    for s in [ANDI, BELA] {
        assert!(
            has(&ev, |e| *e
                == Event::PaidNothing {
                    player: s,
                    cause: cause.clone()
                }),
            "{ev:#?}"
        );
    }
    let read = |viewer| {
        ev.iter()
            .map(|e| g.describe(e, viewer))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let bela = read(Viewer::Player(BELA));
    assert!(
        bela.contains(
            "You receive nothing for shares of LSWR (merged into GWR): your part of the payment \
             is under £1,000, and payments are whole £1,000 notes."
        ),
        "{bela}"
    );
    assert!(
        bela.contains("Andi receives nothing for shares of LSWR (merged into GWR)"),
        "{bela}"
    );
    assert!(bela.contains("Cecil is paid for shares of LSWR"), "{bela}");
    assert!(!bela.contains("Nobody is paid for shares"), "{bela}");
}

/// Rulings 3: tied firsts share first and second, each rounded down; a single
/// first with tied seconds share second; a single first alone: no second.
#[test]
fn rulings_03_ties_as_the_rules_say() {
    assert_eq!(ks(&majority(&[3, 3, 1], 6000, 3000)), [4, 4, 0]);
    assert_eq!(ks(&majority(&[3, 3, 3], 6000, 3000)), [3, 3, 3]);
    assert_eq!(ks(&majority(&[3, 2, 2, 0], 13000, 6500)), [13, 3, 3, 0]);
    assert_eq!(ks(&majority(&[0, 5, 0], 12000, 6000)), [0, 12, 0]);
    assert_eq!(ks(&per_place(&[2, 2], 3)), [2, 2]);
}

/// Rulings 3 in play: Andi, Béla and Cecil hold one Manchester token each;
/// all three tie for first and share £3,000: £1,000 each.
#[test]
fn rulings_03_three_tied_firsts_share_first_and_second_in_play() {
    let mut g = game(&ABC);
    act(&mut g, "token Manchester textiles");
    end_turn(&mut g);
    act(&mut g, "token Manchester textiles");
    end_turn(&mut g);
    act(&mut g, "token Manchester steel");
    let ev = extend(&mut g, "L&Y B4");
    assert_eq!(paid(&ev), [(ANDI, 1), (BELA, 1), (CECIL, 1)]);
}

// ===== Rulings 4: connected places =========================================

/// Rulings 4: a place is connected where the locomotive ends its move, after
/// any veto round. Andi moves L&Y to C3, next to Manchester; Béla wins the
/// veto round and puts it on B2 instead: Manchester is not connected and
/// Andi's Manchester token earns nothing.
#[test]
fn rulings_04_a_place_is_connected_where_the_locomotive_ends_after_the_veto() {
    let mut g = game(&ABC[..2]);
    act(&mut g, "token Manchester textiles");
    filler(&mut g);
    extend(&mut g, "L&Y B3"); // Béla: L&Y faces north-east on B3
    filler(&mut g);
    assert_eq!(moves_of(&g, "L&Y"), ["A2", "B2", "C3"]);

    act(&mut g, "extend L&Y C3"); // Andi: C3 touches Manchester (C4)
    let mut without_veto = g.clone();
    order(&mut without_veto, BELA, "no veto");
    assert_eq!(connected(&without_veto, "L&Y"), ["Liverpool", "Manchester"]);
    assert_eq!(k(&without_veto, ANDI), 2);

    order(&mut g, BELA, "veto");
    order(&mut g, BELA, "bid 1 B2");
    let ev = order(&mut g, ANDI, "pass");
    assert_eq!(loco(&g, "L&Y"), Some(hex("B2")));
    assert_eq!(connected(&g, "L&Y"), ["Liverpool"]);
    assert!(!has(&ev, |e| matches!(e, Event::Connected { .. })));
    assert_eq!(k(&g, ANDI), 0);
}

/// Rulings 4: each place triggers scoring at most once per line. L&Y connects
/// Manchester at B4 (Andi's token earns £2,000); moving on to C3, still next
/// to Manchester, pays nothing again.
#[test]
fn rulings_04_a_place_scores_only_once_per_line() {
    let mut g = game(&ABC[..2]);
    act(&mut g, "token Manchester textiles");
    let ev = extend(&mut g, "L&Y B4");
    assert_eq!(paid(&ev), [(ANDI, 2)]);
    let ev = extend(&mut g, "L&Y C3"); // Béla; C3 also touches Manchester
    assert!(!has(&ev, |e| matches!(
        e,
        Event::Connected { .. } | Event::Paid { .. } | Event::NobodyPaid { .. }
    )));
    assert_eq!(connected(&g, "L&Y"), ["Liverpool", "Manchester"]);
    assert_eq!(moneys(&g), [2, 0]);
}

/// Rulings 4: the line's starting town always counts in its value; another
/// company's starting town counts once connected and pays nobody by itself.
/// GWR leaves Bristol northwards (C14, C13); LSWR runs F17, E16 (Swindon),
/// D16, C16, next to Bristol but not to GWR's track.
#[test]
fn rulings_04_another_company_s_starting_town_counts_but_pays_nothing() {
    let mut g = game(&ABC[..2]);
    assert_eq!(g.value(line(&g, "LSWR")), 1); // Southampton, from the start
    extend(&mut g, "GWR C14");
    extend(&mut g, "LSWR F17");
    extend(&mut g, "GWR C13"); // Béla
    extend(&mut g, "LSWR E16");
    extend(&mut g, "LSWR D16"); // Andi
    filler(&mut g);
    let ev = extend(&mut g, "LSWR C16"); // Béla
    assert_eq!(connected(&g, "LSWR"), ["Bristol", "Southampton", "Swindon"]);
    assert_eq!(g.value(line(&g, "LSWR")), 3);
    assert!(has(
        &ev,
        |e| matches!(e, Event::Connected { place: p, .. } if *p == place(&g, "Bristol"))
    ));
    assert!(!has(&ev, |e| matches!(
        e,
        Event::Paid { .. } | Event::NobodyPaid { .. } | Event::Merged { .. }
    )));
}

/// Rulings 4: a surviving line keeps every place the absorbed line was
/// connected to, so such a place never scores again for it. After LSWR
/// merges into GWR (Swindon comes with it), GWR moves C14, D14 next to
/// Swindon onto Béla's station: no railway-town payment.
#[test]
fn rulings_04_a_survivor_keeps_the_places_of_the_line_it_absorbed() {
    let mut g = game(&ABC);
    place_stations(&mut g, &[(BELA, "D14")]);
    lswr_into_gwr(&mut g);
    assert_eq!(connected(&g, "GWR"), ["Bristol", "Southampton", "Swindon"]);
    turn_to(&mut g, ANDI);
    extend(&mut g, "GWR C14"); // connects Gloucester
    let before = moneys(&g);
    turn_to(&mut g, CECIL);
    let ev = extend(&mut g, "GWR D14"); // next to Swindon, on Béla's station
    assert_eq!(g.linked_stations(line(&g, "GWR"), BELA), 1);
    assert!(!has(&ev, |e| matches!(
        e,
        Event::Connected { .. } | Event::Paid { .. } | Event::NobodyPaid { .. }
    )));
    assert_eq!(moneys(&g), before);
}

// ===== Rulings 5: scoring order ================================================

/// Plays the two-player position where LSWR's move to F15 connects a city
/// (Oxford), a railway town (Swindon) and merges into GWR (on E14) at once.
/// Andi holds an Oxford token; Béla has a station on F16, on LSWR's track.
/// Returns the events of that move (Andi's).
fn city_town_and_merger_at_once(g: &mut Rocket) -> Vec<Event> {
    act(g, "token Oxford brewing"); // Andi
    extend(g, "GWR C14");
    act(g, "station F16"); // Béla
    extend(g, "LSWR F17");
    extend(g, "GWR D14"); // Andi: Swindon for GWR
    extend(g, "LSWR F16"); // onto Béla's station; connects Reading
    extend(g, "GWR E14"); // Béla: Oxford for GWR pays Andi £2,000
    filler(g);
    assert_eq!(moneys(g), [2, 0]);
    extend(g, "LSWR F15")
}

/// Rulings 5 and the rules ("When extending a railway line triggers multiple
/// kinds of scoring, score them in the order described above"): cities
/// first, then railway towns, then the merger.
#[test]
fn rulings_05_scoring_order_cities_then_towns_then_the_merger() {
    let mut g = game(&ABC[..2]);
    let ev = city_town_and_merger_at_once(&mut g);
    let city = pos(&ev, "city payment", |e| {
        matches!(
            e,
            Event::Paid {
                cause: PaymentCause::City { .. },
                ..
            }
        )
    });
    let town = pos(&ev, "town payment", |e| {
        matches!(
            e,
            Event::Paid {
                cause: PaymentCause::Town { .. },
                ..
            }
        )
    });
    let merged = pos(&ev, "merger", |e| matches!(e, Event::Merged { .. }));
    let merger = pos(&ev, "merger payment", |e| {
        matches!(
            e,
            Event::Paid {
                cause: PaymentCause::Merger { .. },
                ..
            }
        )
    });
    assert!(city < town && town < merged && merged < merger, "{ev:#?}");
    // Oxford scores again, for another line: Andi's token, £2,000. Swindon:
    // Béla's one station, £1,000 for each of LSWR's 4 places. The merger:
    // Andi 2 LSWR shares (£4,000), Béla 1 (half, £2,000).
    assert_eq!(paid(&ev), [(ANDI, 2), (BELA, 4), (ANDI, 4), (BELA, 2)]);
    assert_eq!(moneys(&g), [8, 6]);
}

// ===== Rulings 6: mergers ========================================================

/// Rulings 6: a move to a hex adjacent to two other lines is illegal. LNWR
/// runs D11, D12, E13, D14; GWR still stands on Bristol C15; LSWR on D16 may
/// not go to D15, which touches both.
#[test]
fn rulings_06_a_move_next_to_two_other_lines_is_illegal() {
    let mut g = game(&ABC[..2]);
    for (lnwr, lswr) in [("D11", "F17"), ("D12", "E16"), ("E13", "D16")] {
        extend(&mut g, &format!("LNWR {lnwr}"));
        extend(&mut g, &format!("LSWR {lswr}"));
    }
    extend(&mut g, "LNWR D14");
    assert_eq!(moves_of(&g, "LSWR"), ["C16", "D17"]);
    let active = g.turn().active;
    let err = refused(&mut g, active, "extend LSWR D15");
    assert!(err.message.contains("two other lines"), "{}", err.message);
    assert!(err.message.contains("LNWR") && err.message.contains("GWR"));
}

/// Rulings 6: the moved line dissolves; its locomotive makes way for a track
/// tile (counted against the 60) joining the two lines; its track and places
/// pass to the survivor; its board shares leave the game.
#[test]
fn rulings_06_the_moved_line_dissolves_and_its_locomotive_becomes_a_tile() {
    let mut g = game(&ABC);
    let ev = lswr_into_gwr(&mut g);
    let (lswr, gwr) = (line(&g, "LSWR"), line(&g, "GWR"));
    let merged = Event::Merged {
        dissolved: lswr,
        survivor: gwr,
        hex: hex("D15"),
        board_shares: Some(12),
    };
    assert!(has(&ev, |e| *e == merged), "{ev:#?}");
    // The dissolved line's shares, and what becomes of them, in words.
    assert_eq!(
        g.describe(&merged, Viewer::Spectator),
        "LSWR merges into GWR at D15 and is dissolved: its shareholders return their LSWR \
         shares and get one GWR share for every two (a single share is worth nothing); the 12 \
         LSWR shares left on the board leave the game."
    );
    assert_eq!(status(&g, "LSWR"), LineStatus::Dissolved { into: gwr });
    assert_eq!(loco(&g, "LSWR"), None);
    assert_eq!(board_shares(&g, "LSWR"), 0);
    let joint = g.cell(hex("D15"));
    assert_eq!(joint.locomotive, None);
    assert_eq!(joint.track, Some(gwr));
    // LSWR came in from D16 (south-east); the tile turns west, to Bristol.
    assert_eq!(
        joint.tile,
        Some(Tile {
            from: Dir::SE,
            to: Dir::W
        })
    );
    // Tiles on F17, E16 and D16, and the joint on D15.
    assert_eq!(g.tiles_laid(), 4);
    for h in ["F17", "E16", "D16"] {
        assert_eq!(g.cell(hex(h)).track, Some(gwr), "{h}");
    }
    assert_eq!(loco(&g, "GWR"), Some(hex("C15")));
}

/// Rulings 6: shareholders of the dissolved line return their shares and get
/// one survivor share per two returned, from the board stack; single shares
/// are worthless. Cecil returns 3 LSWR and gets 1 GWR, Béla returns 1 and
/// gets none.
#[test]
fn rulings_06_shares_are_exchanged_two_for_one() {
    let mut g = game(&ABC);
    let ev = lswr_into_gwr(&mut g);
    let (lswr, gwr) = (line(&g, "LSWR"), line(&g, "GWR"));
    let cecil = Event::SharesExchanged {
        player: CECIL,
        returned: 3,
        dissolved: Some(lswr),
        line: gwr,
        received: 1,
        received_supplementary: 0,
    };
    let bela = Event::SharesExchanged {
        player: BELA,
        returned: 1,
        dissolved: Some(lswr),
        line: gwr,
        received: 0,
        received_supplementary: 0,
    };
    assert!(has(&ev, |e| *e == cecil), "{ev:#?}");
    assert!(has(&ev, |e| *e == bela), "{ev:#?}");
    // In words: which line's shares went back, and why one was worth nothing.
    assert_eq!(
        g.describe(&cecil, Viewer::Spectator),
        "Cecil returns 3 LSWR shares and receives 1 GWR share; the odd share is worth nothing."
    );
    assert_eq!(
        g.describe(&bela, Viewer::Player(BELA)),
        "You return 1 LSWR share and receive nothing: a single share is worth nothing."
    );
    assert_eq!(
        [
            shares(&g, ANDI, "LSWR"),
            shares(&g, BELA, "LSWR"),
            shares(&g, CECIL, "LSWR")
        ],
        [0, 0, 0]
    );
    assert_eq!(real_shares(&g, CECIL, "GWR"), 1);
    assert_eq!(shares(&g, BELA, "GWR"), 0);
    assert_eq!(board_shares(&g, "GWR"), 15);
    assert_eq!(g.supplementary_pool(), 16);
}

/// The long position of rulings 6 and 7 with supplementary shares. Three
/// players. NER moves G2 (Béla) and H2 (Andi) and is isolated (its board
/// shares are discarded). L&Y runs B4 (Andi), C3 (Béla), D3 (Cecil), E3
/// (Andi), F3 (Béla), G3 (Cecil) and merges into NER next to G2: each player
/// returns 2 L&Y shares for 1 NER share, and NER's board stack is empty, so
/// all three are supplementary. Returns the merger's events.
fn l_and_y_into_isolated_ner(g: &mut Rocket) -> Vec<Event> {
    turn_extend(g, BELA, "NER G2");
    turn_to(g, ANDI);
    extend(g, "NER H2");
    extend(g, "L&Y B4");
    end_turn(g);
    assert_eq!(status(g, "NER"), LineStatus::Isolated);
    turn_extend(g, BELA, "L&Y C3");
    turn_extend(g, CECIL, "L&Y D3");
    turn_extend(g, ANDI, "L&Y E3");
    turn_extend(g, BELA, "L&Y F3");
    turn_to(g, CECIL);
    extend(g, "L&Y G3")
}

/// Rulings 6: when the survivor's board stack runs out the exchange uses the
/// 16 supplementary shares, which count as shares of the line they stand for.
#[test]
fn rulings_06_supplementary_shares_when_the_board_stack_runs_out() {
    let mut g = game(&ABC);
    let ev = l_and_y_into_isolated_ner(&mut g);
    let ner = line(&g, "NER");
    assert_eq!(
        status(&g, "L&Y"),
        LineStatus::Dissolved { into: ner },
        "{ev:#?}"
    );
    for s in [ANDI, BELA, CECIL] {
        let exchanged = Event::SharesExchanged {
            player: s,
            returned: 2,
            dissolved: Some(line(&g, "L&Y")),
            line: ner,
            received: 0,
            received_supplementary: 1,
        };
        assert!(has(&ev, |e| *e == exchanged), "{ev:#?}");
        assert!(
            g.describe(&exchanged, Viewer::Spectator).ends_with(
                " returns 2 L&Y shares and receives 1 supplementary share standing for NER."
            ),
            "{}",
            g.describe(&exchanged, Viewer::Spectator)
        );
        assert_eq!(g.player(s).supplementary[ner.index()], 1);
    }
    assert_eq!(g.supplementary_pool(), 13);
    assert_eq!(board_shares(&g, "NER"), 0);
    // Andi and Béla moved NER once each: 1 real + 1 supplementary; Cecil
    // holds only the supplementary one.
    assert_eq!(
        [
            shares(&g, ANDI, "NER"),
            shares(&g, BELA, "NER"),
            shares(&g, CECIL, "NER")
        ],
        [2, 2, 1]
    );
    assert_eq!(real_shares(&g, CECIL, "NER"), 0);
    // Isolation is permanent: NER stays isolated, its new shares are not
    // put on the board.
    assert_eq!(status(&g, "NER"), LineStatus::Isolated);
}

/// Rulings 6 ("Supplementary shares count as shares of the line they stand
/// for, for every majority"): at the end NER's shares are scored with the
/// supplementary ones. Andi 2 (1 real + 1 supplementary) is first, Béla and
/// Cecil tie for second with 1 supplementary share each (Béla's real share
/// went on a veto bid). NER is worth York, Hull, Liverpool, Manchester and
/// Leeds: £5,000 to Andi, half of £5,000 shared: £1,250 each, paid £1,000.
#[test]
fn rulings_06_supplementary_shares_count_for_majorities() {
    let mut g = game(&ABC);
    l_and_y_into_isolated_ner(&mut g);
    // Andi extends isolated NER; Béla outbids with his one real share.
    turn_to(&mut g, ANDI);
    act(&mut g, "extend NER I1");
    order(&mut g, BELA, "veto");
    order(&mut g, BELA, "bid 1 I2");
    order(&mut g, ANDI, "pass");
    assert_eq!(
        [
            shares(&g, ANDI, "NER"),
            shares(&g, BELA, "NER"),
            shares(&g, CECIL, "NER")
        ],
        [2, 1, 1]
    );
    assert_eq!(g.value(line(&g, "NER")), 5);
    // End the game: isolate LNWR, GER, GWR and LSWR; only SER keeps shares.
    let before = moneys(&g);
    let ev = run_steps(
        &mut g,
        &[
            ("GER", &["O9"]),
            ("LNWR", &["C10", "B10"]),
            ("LSWR", &["G18", "H19"]),
            ("GWR", &["B16", "B17", "A17"]),
        ],
    );
    assert!(g.result().is_some());
    let ner = line(&g, "NER");
    let ner_shares: Vec<(Seat, u32)> = payments(&ev)
        .into_iter()
        .filter(|(_, _, c)| *c == PaymentCause::EndShares { line: ner })
        .map(|(s, k, _)| (s, k))
        .collect();
    assert_eq!(ner_shares, [(ANDI, 5), (BELA, 1), (CECIL, 1)]);
    assert!(moneys(&g).iter().zip(&before).all(|(a, b)| a >= b));
}

/// Plays the given extensions, each line's steps in order, as whoever is
/// active: each turn extends the next line(s) with steps left (never the
/// same line twice in a turn), nobody vetoes, until all are played or the
/// game ends. Returns every event.
fn run_steps(g: &mut Rocket, steps: &[(&str, &[&str])]) -> Vec<Event> {
    let mut next = vec![0usize; steps.len()];
    let mut events = Vec::new();
    while g.result().is_none() && next.iter().zip(steps).any(|(n, s)| *n < s.1.len()) {
        let turn = g.turn().number;
        let mut done_this_turn = Vec::new();
        while g.result().is_none() && g.turn().number == turn {
            let pick = (0..steps.len())
                .find(|i| next[*i] < steps[*i].1.len() && !done_this_turn.contains(i));
            match pick {
                Some(i) => {
                    let (id, hexes) = steps[i];
                    events.extend(extend(g, &format!("{id} {}", hexes[next[i]])));
                    next[i] += 1;
                    done_this_turn.push(i);
                }
                None => events.extend(filler(g)),
            }
        }
    }
    events
}

// ===== Rulings 7: vetoes =========================================================

/// Rulings 7: any holder of the moved line's shares may call a veto round,
/// the active player included; a player without shares may not.
#[test]
fn rulings_07_any_shareholder_may_call_a_veto_the_active_player_included() {
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12");
    assert!(matches!(g.phase(), Phase::VetoQuestion { waiting, .. } if *waiting == [ANDI, BELA]));
    let ev = order(&mut g, CECIL, "veto");
    assert_eq!(
        ev[0],
        Event::VetoCalled {
            player: CECIL,
            line: line(&g, "GWR")
        }
    );
    assert!(matches!(g.phase(), Phase::VetoRound { called_by, .. } if *called_by == CECIL));

    // Cecil holds no GWR share before his first GWR move: he may not veto.
    let mut g = game(&ABC);
    extend(&mut g, "GWR C14"); // Andi
    end_turn(&mut g);
    act(&mut g, "extend GWR D14"); // Béla; Andi is asked
    let err = refused(&mut g, CECIL, "veto");
    assert_eq!(err.rule, "rulings 7");
    assert!(
        err.message
            .contains("Only holders of real GWR shares may call a veto round, and you hold none.")
    );
}

/// Rulings 7: bids go once around the table from the player left of the
/// active player; the active player bids last. Four players, Cecil (seat 3)
/// active: Dora, Andi, Béla, then Cecil.
#[test]
fn rulings_07_bids_go_once_around_from_the_active_player_s_left() {
    let names = ["Andi", "Bela", "Cecil", "Dora"];
    let dora = Seat(3);
    let mut g = game_with(&names, ANDI, &[]);
    turn_extend(&mut g, BELA, "GWR C14");
    turn_extend(&mut g, dora, "GWR D14");
    turn_extend(&mut g, ANDI, "GWR E14");
    turn_extend(&mut g, CECIL, "GWR F13");
    turn_to(&mut g, CECIL);
    act(&mut g, "extend GWR F12");
    order(&mut g, ANDI, "veto");
    let mut seen = Vec::new();
    while let Phase::VetoRound { .. } = g.phase() {
        let due = g.awaiting()[0].seat;
        seen.push(due);
        // Nobody else may bid now.
        for other in [ANDI, BELA, CECIL, dora] {
            if other != due {
                refused(&mut g, other, "pass");
            }
        }
        order(&mut g, due, "pass");
    }
    assert_eq!(seen, [dora, ANDI, BELA, CECIL]);
    // Nobody bid: the move stands, nobody paid.
    assert_eq!(loco(&g, "GWR"), Some(hex("F12")));
    assert_eq!(board_shares(&g, "GWR"), 11);
}

/// Rulings 7: a player who cannot beat the high bid with their real shares
/// is passed over.
#[test]
fn rulings_07_a_player_who_cannot_outbid_is_passed_over() {
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12");
    order(&mut g, BELA, "veto");
    assert_eq!(g.awaiting()[0].seat, ANDI);
    order(&mut g, ANDI, "pass");
    let ev = order(&mut g, BELA, "bid 2 E12");
    // Cecil holds 2 and, as active player, may equal Béla's 2.
    assert_eq!(g.awaiting()[0].seat, CECIL);
    assert!(!has(&ev, |e| matches!(e, Event::CannotBid { .. })));

    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12");
    order(&mut g, BELA, "veto");
    order(&mut g, ANDI, "bid 1 E12");
    order(&mut g, BELA, "bid 2 E12");
    order(&mut g, CECIL, "bid 2 G13");
    assert_eq!(loco(&g, "GWR"), Some(hex("G13")));
}

/// Rulings 7: the smallest bid is 1 share.
#[test]
fn rulings_07_the_smallest_bid_is_one_share() {
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12");
    order(&mut g, BELA, "veto");
    let err = refused(&mut g, ANDI, "bid 0 E12");
    assert_eq!(err.rule, "rulings 7");
    assert!(err.message.contains("smallest bid is 1 share"));
    order(&mut g, ANDI, "bid 1 E12");
}

/// Rulings 7: each bid beats the one before, except the active player's,
/// which need only equal it.
#[test]
fn rulings_07_each_bid_beats_the_one_before_but_the_active_player_may_equal() {
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12");
    order(&mut g, BELA, "veto");
    order(&mut g, ANDI, "bid 1 E12");
    let err = refused(&mut g, BELA, "bid 1 G13");
    assert!(err.message.contains("each bid must beat the one before"));
    order(&mut g, BELA, "bid 2 G13");
    let err = refused(&mut g, CECIL, "bid 1 E12");
    assert!(err.message.contains("at least equal"));
    let ev = order(&mut g, CECIL, "bid 2 E12");
    assert!(has(&ev, |e| matches!(
        e,
        Event::VetoWon {
            player: CECIL,
            shares: 2,
            ..
        }
    )));
    assert_eq!(loco(&g, "GWR"), Some(hex("E12")));
}

/// Rulings 7: bids are paid in real company shares, not supplementary ones.
/// Béla holds 1 real and 1 supplementary NER share: he may bid 1, not 2.
/// Cecil holds only a supplementary share: he is not asked, and is passed
/// over in the round.
#[test]
fn rulings_07_bids_are_paid_in_real_shares_only() {
    let mut g = game(&ABC);
    l_and_y_into_isolated_ner(&mut g);
    turn_to(&mut g, ANDI);
    act(&mut g, "extend NER I1");
    assert!(matches!(g.phase(), Phase::VetoQuestion { waiting, .. } if *waiting == [BELA]));
    order(&mut g, BELA, "veto");
    let err = refused(&mut g, BELA, "bid 2 I2");
    // In words a player reads: not "You hold 1 real NER share(s)".
    assert_eq!(
        err.message,
        "You cannot bid 2: you hold only 1 real NER share, and bids are paid in the line's \
         real shares (supplementary shares cannot be bid). Bid at most 1, or pass."
    );
    let ev = order(&mut g, BELA, "bid 1 I2");
    let status = g.render_status(Viewer::Player(ANDI));
    assert!(
        status.contains("high bid 1 share for I2 by Béla"),
        "{status}"
    );
    let passed = Event::CannotBid {
        player: CECIL,
        line: Some(line(&g, "NER")),
        held: 0,
        supplementary: 1,
        needed: 2,
    };
    assert!(has(&ev, |e| *e == passed), "{ev:#?}");
    assert_eq!(
        g.describe(&passed, Viewer::Player(ANDI)),
        "Cecil holds only supplementary NER shares, which cannot be bid, and is passed over."
    );
    assert_eq!(g.awaiting()[0].seat, ANDI);
}

/// Rulings 7 in words: a player passed over in a veto round is told why,
/// plainly: they hold no share of the line, or too few real ones for the
/// least bid. It read "cannot bid (not enough real shares)" to a player
/// who holds none at all. Béla moves L&Y to B4, Cecil on to C5; Béla
/// calls a veto round, which starts at Andi, who holds no L&Y share.
#[test]
fn rulings_07_a_player_passed_over_in_a_veto_round_is_told_why() {
    let mut g = game(&ABC);
    turn_extend(&mut g, BELA, "L&Y B4");
    turn_to(&mut g, CECIL);
    act(&mut g, "extend L&Y C5");
    let ev = order(&mut g, BELA, "veto");
    let ly = line(&g, "L&Y");
    let passed = Event::CannotBid {
        player: ANDI,
        line: Some(ly),
        held: 0,
        supplementary: 0,
        needed: 1,
    };
    assert!(has(&ev, |e| *e == passed), "{ev:#?}");
    assert_eq!(
        g.describe(&passed, Viewer::Player(ANDI)),
        "You hold no L&Y share, so cannot bid, and are passed over."
    );
    assert_eq!(
        g.describe(&passed, Viewer::Player(BELA)),
        "Andi holds no L&Y share, so cannot bid, and is passed over."
    );
    // Too few real shares for the bid to beat.
    let short = Event::CannotBid {
        player: CECIL,
        line: Some(ly),
        held: 1,
        supplementary: 0,
        needed: 2,
    };
    assert_eq!(
        g.describe(&short, Viewer::Spectator),
        "Cecil cannot bid: a bid must now be at least 2 shares, and Cecil holds only 1 real \
         L&Y share; passed over."
    );
    assert_eq!(
        g.describe(&short, Viewer::Player(CECIL)),
        "You cannot bid: a bid must now be at least 2 shares, and you hold only 1 real L&Y \
         share; passed over."
    );
}

/// Rulings 7 and decision A in words: Cecil holds one NER share, a
/// supplementary one (his status shows `NER 0+1`). He is not asked about
/// Andi's NER move, and when he tries `veto` or `no veto` the refusal says
/// why: only real shares can be bid. It told him "Only holders of NER shares
/// may call a veto round", which he is, and "you hold no shares of the
/// line, or have answered already", neither of which is so.
#[test]
fn rulings_07_a_holder_of_supplementary_shares_only_is_told_why_he_has_no_veto() {
    let mut g = game(&ABC);
    l_and_y_into_isolated_ner(&mut g);
    assert_eq!(
        (shares(&g, CECIL, "NER"), real_shares(&g, CECIL, "NER")),
        (1, 0)
    );
    turn_to(&mut g, ANDI);
    act(&mut g, "extend NER I1");
    let err = refused(&mut g, CECIL, "veto");
    assert_eq!(err.rule, "rulings 7");
    assert_eq!(
        err.message,
        "Only holders of real NER shares may call a veto round: your one NER share is a \
         supplementary one, which counts for majorities but cannot be bid."
    );
    let err = refused(&mut g, CECIL, "no veto");
    assert_eq!(
        err.message,
        "You are not asked about NER's move to I1, as only holders of real NER shares are \
         asked: your one NER share is a supplementary one, which counts for majorities but \
         cannot be bid."
    );

    // A holder of real shares who has answered is told so.
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12"); // Andi and Béla are asked
    order(&mut g, ANDI, "no veto");
    let err = refused(&mut g, ANDI, "no veto");
    assert_eq!(
        err.message,
        "You have already answered `no veto` on this move."
    );
    // One with no share at all is told that.
    let mut g = game(&ABC);
    extend(&mut g, "GWR C14"); // Andi
    end_turn(&mut g);
    act(&mut g, "extend GWR D14"); // Béla; Andi is asked
    let err = refused(&mut g, CECIL, "no veto");
    assert_eq!(
        err.message,
        "You are not asked about GWR's move to D14, as only holders of real GWR shares are \
         asked, and you hold none."
    );
}

/// Rulings 7: the winner puts the bid shares back on the board stack, and the
/// locomotive stands where the winner put it, which may be where it stands.
#[test]
fn rulings_07_the_winner_returns_the_bid_to_the_board_and_places_the_locomotive() {
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12"); // Cecil takes a share: board 11
    order(&mut g, ANDI, "veto");
    order(&mut g, ANDI, "pass");
    order(&mut g, BELA, "bid 2 F12"); // Béla keeps it where Cecil put it
    let ev = order(&mut g, CECIL, "pass");
    assert!(has(&ev, |e| *e
        == Event::VetoWon {
            player: BELA,
            line: line(&g, "GWR"),
            shares: 2,
            hex: hex("F12"),
            discarded: false
        }));
    assert_eq!(loco(&g, "GWR"), Some(hex("F12")));
    assert_eq!(real_shares(&g, BELA, "GWR"), 0);
    assert_eq!(board_shares(&g, "GWR"), 13);
    assert_eq!(
        [real_shares(&g, ANDI, "GWR"), real_shares(&g, CECIL, "GWR")],
        [1, 2]
    );
}

/// Rulings 7: for an isolated line the winning bid is discarded instead.
#[test]
fn rulings_07_a_bid_on_an_isolated_line_is_discarded() {
    let mut g = game(&ABC[..2]);
    extend(&mut g, "NER G2"); // Andi
    filler(&mut g);
    extend(&mut g, "NER H2"); // Béla: NER is isolated
    filler(&mut g);
    assert_eq!(status(&g, "NER"), LineStatus::Isolated);
    act(&mut g, "extend NER I1"); // Andi; no share left
    order(&mut g, BELA, "veto");
    order(&mut g, BELA, "bid 1 I2");
    let ev = order(&mut g, ANDI, "pass");
    assert!(has(&ev, |e| *e
        == Event::VetoWon {
            player: BELA,
            line: line(&g, "NER"),
            shares: 1,
            hex: hex("I2"),
            discarded: true
        }));
    assert_eq!(loco(&g, "NER"), Some(hex("I2")));
    assert_eq!(board_shares(&g, "NER"), 0);
    assert_eq!(real_shares(&g, BELA, "NER"), 0);
}

/// Rulings 7: the bid names one of the hexes the move could have reached.
#[test]
fn rulings_07_a_bid_must_name_a_hex_the_move_could_reach() {
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12");
    order(&mut g, BELA, "veto");
    let err = refused(&mut g, ANDI, "bid 1 F11");
    assert!(err.message.contains("E12, F12 or G13"), "{}", err.message);
}

/// When an order sent now could apply (`Game::timing`), by rulings 7.
fn timing(g: &Rocket, seat: Seat, text: &str) -> Timing {
    let o = g
        .parse_order(seat, text)
        .unwrap_or_else(|e| panic!("`{text}` does not parse: {e}"));
    g.timing(seat, &o)
}

/// The rule and sentence of a `Never`, checked to be a clear refusal.
fn never(g: &Rocket, seat: Seat, text: &str) -> RuleError {
    match timing(g, seat, text) {
        Timing::Never(e) => {
            assert!(
                e.message.ends_with('.') && e.message.split_whitespace().count() >= 4,
                "`{text}`: not a clear sentence: {}",
                e.message
            );
            assert!(
                e.rule.contains("rules") || e.rule.contains("rulings"),
                "`{text}`: no rule named: {}",
                e.rule
            );
            e
        }
        t => panic!("`{text}` by {seat}: {t:?}, not never"),
    }
}

/// Rulings 7 in a veto question: the mover may call the veto now; the
/// mover's further actions wait behind it; a shareholder not asked (the
/// mover, or one who answered) keeps a bid or pass as a standing answer;
/// those asked answer first; other players' actions and a bid from a
/// player without shares can never apply.
#[test]
fn rulings_07_orders_sent_during_a_veto_question() {
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12");
    assert_eq!(timing(&g, CECIL, "veto"), Timing::Now);
    assert!(
        matches!(timing(&g, CECIL, "station B19"), Timing::Queue(w) if w.contains("next action"))
    );
    assert!(matches!(
        timing(&g, CECIL, "bid 2 G13"),
        Timing::Standing(_)
    ));
    assert!(matches!(timing(&g, CECIL, "pass"), Timing::Standing(_)));
    assert_eq!(
        timing(&g, ANDI, "bid 1 E12"),
        Timing::Now,
        "asked: answer first"
    );
    assert_eq!(timing(&g, ANDI, "no veto"), Timing::Now);
    let e = never(&g, ANDI, "token Manchester steel");
    assert!(e.message.contains("It is Cecil's turn"), "{}", e.message);
    // A standing bid that could never be paid or placed.
    assert!(
        never(&g, CECIL, "bid 3 G13")
            .message
            .contains("you hold only 2 real GWR shares")
    );
    assert!(
        never(&g, CECIL, "bid 1 F11")
            .message
            .contains("E12, F12 or G13")
    );
    // Andi answered: her bid stands in case Béla calls the round.
    order(&mut g, ANDI, "no veto");
    assert!(matches!(timing(&g, ANDI, "bid 1 E12"), Timing::Standing(_)));

    // Cecil holds no GWR share: no part in a round on Béla's move.
    let mut g = game(&ABC);
    extend(&mut g, "GWR C14"); // Andi
    end_turn(&mut g);
    filler(&mut g);
    act(&mut g, "extend GWR D14"); // Béla's second action; Andi is asked
    let e = never(&g, CECIL, "bid 1 D14");
    assert_eq!(e.rule, "rulings 7");
    assert!(
        e.message.contains("no part in a veto round"),
        "{}",
        e.message
    );
    assert_eq!(
        timing(&g, CECIL, "veto"),
        Timing::Now,
        "refused by its rule now"
    );
    // The move was Béla's second action: what he sends now waits for his
    // next turn.
    assert!(
        matches!(timing(&g, BELA, "token Manchester steel"), Timing::Queue(w) if w.contains("next turn"))
    );
}

/// Rulings 7 in a veto round: whoever bids now answers now; a later
/// bidder's bid or pass is a standing answer if it can still apply when
/// their place comes, else it is refused; a place that has passed is gone.
#[test]
fn rulings_07_orders_sent_during_a_veto_round() {
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12");
    order(&mut g, BELA, "veto"); // Andi, Béla, then Cecil bid
    assert_eq!(timing(&g, ANDI, "bid 1 E12"), Timing::Now);
    assert!(matches!(timing(&g, BELA, "bid 1 E12"), Timing::Standing(_)));
    assert!(matches!(timing(&g, CECIL, "pass"), Timing::Standing(_)));
    assert_eq!(timing(&g, BELA, "veto"), Timing::Now);
    order(&mut g, ANDI, "bid 1 E12");
    assert_eq!(timing(&g, BELA, "bid 2 G13"), Timing::Now);
    // Cecil, the active player, need only equal Andi's 1 so far.
    assert!(matches!(
        timing(&g, CECIL, "bid 1 F12"),
        Timing::Standing(_)
    ));
    let e = never(&g, ANDI, "pass");
    assert!(e.message.contains("has passed"), "{}", e.message);
    order(&mut g, BELA, "bid 2 G13");
    assert_eq!(
        timing(&g, CECIL, "bid 1 F12"),
        Timing::Now,
        "his place came"
    );
    assert!(matches!(timing(&g, CECIL, "station B19"), Timing::Queue(_)));
    order(&mut g, CECIL, "pass");
    // Settled: actions are for now again; a bid kept from the round lapses.
    assert_eq!(timing(&g, CECIL, "station B19"), Timing::Now);
    let e = never(&g, BELA, "bid 1 E12");
    assert!(e.message.contains("none is under way"), "{}", e.message);
}

// ===== Rulings 8: track tiles ====================================================

/// Rulings 8: the engine lays the tiles: none on a starting town; the shape
/// joins where the locomotive came from to where it went, straight or a
/// gentle curve. GWR: Bristol C15 → C16 → D17 → E17.
#[test]
fn rulings_08_track_tiles_follow_the_locomotive() {
    let mut g = game(&ABC[..2]);
    let ev = extend(&mut g, "GWR C16");
    assert!(!has(&ev, |e| matches!(e, Event::TrackLaid { .. })));
    assert_eq!(g.tiles_laid(), 0);
    assert_eq!(g.cell(hex("C15")).tile, None);
    filler(&mut g);
    extend(&mut g, "GWR D17"); // Béla: straight on, south-east
    assert_eq!(
        g.cell(hex("C16")).tile,
        Some(Tile {
            from: Dir::NW,
            to: Dir::SE
        })
    );
    filler(&mut g);
    extend(&mut g, "GWR E17"); // Andi: a gentle curve to the east
    assert_eq!(
        g.cell(hex("D17")).tile,
        Some(Tile {
            from: Dir::NW,
            to: Dir::E
        })
    );
    assert_eq!(g.tiles_laid(), 2);
    assert_eq!(g.cell(hex("D17")).track, Some(line(&g, "GWR")));
    // The 60 tiles are shared by every line.
    filler(&mut g);
    extend(&mut g, "LSWR G18");
    filler(&mut g);
    extend(&mut g, "LSWR H18");
    assert_eq!(g.tiles_laid(), 3);
}

// ===== Rulings 9: isolation ====================================================

/// Rulings 9: a line that can no longer reach a new place or another line is
/// isolated at once: its board shares are discarded, players keep theirs.
/// NER moves G2 and H2 (next to Hull); from H2 only I1 and I2 remain, which
/// touch nothing new.
#[test]
fn rulings_09_an_isolated_line_loses_its_board_shares() {
    let mut g = game(&ABC[..2]);
    extend(&mut g, "NER G2"); // Andi
    filler(&mut g);
    let ev = extend(&mut g, "NER H2"); // Béla
    assert!(has(&ev, |e| *e
        == Event::Isolated {
            line: line(&g, "NER"),
            discarded: 14
        }));
    assert_eq!(status(&g, "NER"), LineStatus::Isolated);
    assert_eq!(board_shares(&g, "NER"), 0);
    assert_eq!([shares(&g, ANDI, "NER"), shares(&g, BELA, "NER")], [1, 1]);
    // As players read it; a line with no board shares left loses none.
    let ner = line(&g, "NER");
    let told = |discarded| {
        g.describe(
            &Event::Isolated {
                line: ner,
                discarded,
            },
            Viewer::Spectator,
        )
    };
    assert_eq!(
        told(14),
        "NER is isolated: it can reach no new place nor another line; 14 board shares are discarded."
    );
    assert_eq!(
        told(0),
        "NER is isolated: it can reach no new place nor another line; it has no board shares left to discard."
    );
}

/// Rules, "Isolated railway lines" (and rulings 9): an isolated line may
/// still be extended, but the mover gets no share.
#[test]
fn rules_isolated_lines_may_still_be_extended_without_shares() {
    let mut g = game(&ABC[..2]);
    extend(&mut g, "NER G2");
    filler(&mut g);
    extend(&mut g, "NER H2");
    filler(&mut g);
    assert_eq!(moves_of(&g, "NER"), ["I1", "I2"]);
    let ev = extend(&mut g, "NER I2"); // Andi
    assert!(has(&ev, |e| *e
        == Event::NoShareLeft {
            player: ANDI,
            line: line(&g, "NER")
        }));
    assert!(has(
        &ev,
        |e| matches!(e, Event::TrackLaid { hex: h, .. } if *h == hex("H2"))
    ));
    assert_eq!(shares(&g, ANDI, "NER"), 1);
    assert_eq!(status(&g, "NER"), LineStatus::Isolated);
}

/// Rulings 9: isolation is checked after every action, for every line, not
/// only the one that moved. GWR (C14, C13) merges into LNWR (D11, C12); the
/// merger leaves LNWR with nowhere new to go, and it is isolated by GWR's
/// move.
#[test]
fn rulings_09_isolation_is_checked_after_every_action() {
    let mut g = game(&ABC[..2]);
    extend(&mut g, "LNWR D11"); // Andi; connects Worcester
    extend(&mut g, "GWR C14");
    extend(&mut g, "LNWR C12"); // Béla; connects Gloucester
    filler(&mut g);
    assert_eq!(status(&g, "LNWR"), LineStatus::Active);
    let ev = extend(&mut g, "GWR C13"); // Andi: next to LNWR's locomotive
    let lnwr = line(&g, "LNWR");
    let merged = pos(&ev, "merger", |e| matches!(e, Event::Merged { .. }));
    let isolated = pos(
        &ev,
        "isolation",
        |e| matches!(e, Event::Isolated { line, .. } if *line == lnwr),
    );
    assert!(merged < isolated);
    assert_eq!(status(&g, "LNWR"), LineStatus::Isolated);
    assert_eq!(board_shares(&g, "LNWR"), 0);
}

// ===== Rulings 10 and 11: the end ===============================================

/// The controlled end of rulings 10 and 11. Two players, Andi first. Tokens
/// and stations first; then six lines are isolated one by one (GER O9; NER
/// G2, H2; LNWR C10, B10; L&Y B3, B2, B1; LSWR G18, H19; GWR B16, B17, A17)
/// until only SER has board shares. Returns the events of the last action.
fn end_by_isolation(g: &mut Rocket) -> Vec<Event> {
    // Turn 1, Andi.
    act(g, "token Manchester textiles");
    act(g, "token Manchester textiles");
    // Turn 2, Béla: a station on H2, where NER will go.
    act(g, "station H2");
    act(g, "token Manchester steel");
    // Turn 3, Andi: a station on B17, where GWR will go.
    act(g, "token Worcester leather");
    act(g, "station B17");
    // Turn 4, Béla.
    act(g, "token Worcester leather");
    act(g, "token Worcester textiles");
    // Turn 5, Andi.
    extend(g, "GER O9"); // isolated at once
    extend(g, "NER G2");
    // Turn 6, Béla: Worcester pays Béla £2,000 (2 tokens), Andi £1,000.
    let ev = extend(g, "LNWR C10");
    assert_eq!(paid(&ev), [(ANDI, 1), (BELA, 2)]);
    extend(g, "L&Y B3");
    // Turn 7, Andi: onto Béla's station, a passenger; Hull pays Béla's one
    // station £1,000 for each of York and Hull.
    let ev = extend(g, "NER H2");
    assert_eq!(paid(&ev), [(BELA, 2)]);
    extend(g, "LNWR B10");
    // Turn 8, Béla.
    extend(g, "GWR B16");
    extend(g, "L&Y B2");
    // Turn 9, Andi.
    extend(g, "LSWR G18");
    extend(g, "L&Y B1");
    // Turn 10, Béla: onto Andi's station, a passenger.
    extend(g, "GWR B17");
    extend(g, "LSWR H19");
    assert_eq!(g.turn().number, 11);
    assert_eq!(moneys(g), [1, 4]);
    // Turn 11, Andi: GWR is isolated and only SER has shares left.
    extend(g, "GWR A17")
}

/// Rulings 10 and the rules ("Game end"): at the end of any action, if board
/// shares remain for at most one line, the game ends at once; the active
/// player gets no further actions.
#[test]
fn rulings_10_the_game_ends_when_board_shares_remain_for_at_most_one_line() {
    let mut g = game(&ABC[..2]);
    let ev = end_by_isolation(&mut g);
    let gwr = line(&g, "GWR");
    assert!(has(
        &ev,
        |e| matches!(e, Event::Isolated { line, .. } if *line == gwr)
    ));
    // It was the first of Andi's two actions in turn 11.
    assert_eq!((g.turn().number, g.turn().active), (11, ANDI));
    assert!(has(&ev, |e| matches!(
        e,
        Event::LocomotiveMoved { player: ANDI, .. }
    )));
    let ended = pos(&ev, "end", |e| matches!(e, Event::GameEnded { .. }));
    assert!(matches!(&ev[ended], Event::GameEnded { reason } if reason.contains("at most one")));
    assert_eq!(*g.phase(), Phase::Finished);
    assert!(g.awaiting().is_empty());
    let with_shares: Vec<&str> = g
        .board()
        .lines
        .iter()
        .filter(|l| board_shares(&g, &l.id) > 0)
        .map(|l| l.id.as_str())
        .collect();
    assert_eq!(with_shares, ["SER"]);
    // Andi had one action left; the game takes no more orders.
    let err = refused(&mut g, ANDI, "token London steel");
    assert!(err.message.contains("game is over"));
    assert!(g.result().is_some());
}

/// Rulings 11 and the rules ("Scoring at the end of the game"): tokens of
/// cities connected to no line are discarded (Manchester), passenger tokens
/// always count, each type pays £6,000 and £3,000; then stations and shares
/// of every line not dissolved, isolated ones included.
#[test]
fn rules_end_scoring_tokens_then_stations_and_shares_of_every_line() {
    let mut g = game(&ABC[..2]);
    let ev = end_by_isolation(&mut g);
    assert!(has(&ev, |e| *e
        == Event::TokensDiscarded {
            player: ANDI,
            count: 2
        }));
    assert!(has(&ev, |e| *e
        == Event::TokensDiscarded {
            player: BELA,
            count: 1
        }));
    assert_eq!(goods(&g, ANDI, Good::Textiles), 0);
    assert_eq!(goods(&g, ANDI, Good::Leather), 1);
    let end: Vec<(Seat, u32, PaymentCause)> = payments(&ev);
    let (ner, lay, lnwr, ger, gwr) = (
        line(&g, "NER"),
        line(&g, "L&Y"),
        line(&g, "LNWR"),
        line(&g, "GER"),
        line(&g, "GWR"),
    );
    assert_eq!(
        end,
        [
            // Passengers 1 and 1: tied, (6,000 + 3,000) / 2, paid 4,000.
            (ANDI, 4, PaymentCause::EndPassengers),
            (BELA, 4, PaymentCause::EndPassengers),
            // Textiles: Béla 1, Andi none left (Manchester's discarded).
            (
                BELA,
                6,
                PaymentCause::EndGoods {
                    good: Good::Textiles
                }
            ),
            // Leather (Worcester): 1 and 1, tied.
            (
                ANDI,
                4,
                PaymentCause::EndGoods {
                    good: Good::Leather
                }
            ),
            (
                BELA,
                4,
                PaymentCause::EndGoods {
                    good: Good::Leather
                }
            ),
            // NER (York, Hull): Béla's station; Andi's 2 shares.
            (BELA, 2, PaymentCause::EndStations { line: ner }),
            (ANDI, 2, PaymentCause::EndShares { line: ner }),
            // L&Y (Liverpool): Béla 2 shares, Andi 1 (half of £1,000: £0).
            (BELA, 1, PaymentCause::EndShares { line: lay }),
            // LNWR (Birmingham, Worcester): 1 and 1, £1,500 each, paid £1,000.
            (ANDI, 1, PaymentCause::EndShares { line: lnwr }),
            (BELA, 1, PaymentCause::EndShares { line: lnwr }),
            // GER (Norwich): Andi's share.
            (ANDI, 1, PaymentCause::EndShares { line: ger }),
            // GWR (Bristol): Andi's station on B17; Béla 2 shares, Andi 1.
            (ANDI, 1, PaymentCause::EndStations { line: gwr }),
            (BELA, 1, PaymentCause::EndShares { line: gwr }),
            // LSWR (Southampton): 1 and 1, £750 each: paid nothing.
        ]
    );
    let result = g.result().unwrap();
    assert_eq!(
        result
            .scores
            .iter()
            .map(|s| (
                s.during_game.pounds() / 1000,
                s.end_game.pounds() / 1000,
                s.total.pounds() / 1000
            ))
            .collect::<Vec<_>>(),
        [(1, 13, 14), (4, 19, 23)]
    );
    assert_eq!(result.placings[0].seat, BELA);
    assert_eq!(result.placings[0].place, 1);
    assert_eq!(result.placings[1].place, 2);
}

/// Rulings 11: a dissolved line scores nothing at the end, and a city it had
/// connected counts as connected (its track belongs to the survivor): Andi's
/// Reading token is kept. The position of rulings 5 (LSWR connects Reading,
/// then merges into GWR), then NER, L&Y, LNWR, GER and SER are isolated.
#[test]
fn rulings_11_a_dissolved_line_s_places_stay_connected_and_it_scores_nothing() {
    let mut g = game(&ABC[..2]);
    city_town_and_merger_at_once(&mut g);
    act(&mut g, "token Reading steel"); // Andi's second action
    let ev = run_steps(
        &mut g,
        &[
            ("GER", &["O9"]),
            ("NER", &["G2", "H2"]),
            ("LNWR", &["C10", "B10"]),
            ("L&Y", &["B3", "B2", "B1"]),
            ("SER", &["M16", "L16", "L17", "L18"]),
        ],
    );
    assert!(g.result().is_some());
    assert_eq!(goods(&g, ANDI, Good::Steel), 1);
    assert!(!has(&ev, |e| matches!(
        e,
        Event::TokensDiscarded { player: ANDI, .. }
    )));
    let lswr = line(&g, "LSWR");
    assert!(!payments(&ev).iter().any(|(_, _, c)| matches!(
        c,
        PaymentCause::EndStations { line } | PaymentCause::EndShares { line } if *line == lswr
    )));
    // Béla's station on F16, LSWR's old track, now counts for GWR.
    let gwr = line(&g, "GWR");
    assert_eq!(g.linked_stations(gwr, BELA), 1);
    // GWR: Bristol, Gloucester, Swindon, Oxford, and from LSWR Southampton
    // and Reading.
    assert_eq!(g.value(gwr), 6);
    assert!(payments(&ev).contains(&(BELA, 6, PaymentCause::EndStations { line: gwr })));
}

/// A full game of two players who lay as much track as they can: every
/// action is an extension chosen by a seeded random draw among those that
/// neither isolate a line, nor merge, nor end the game by shares (when
/// there are none: a merger, then an isolation, then a station move);
/// nobody vetoes. Returns the orders' events, one list per order, and
/// whether each order was the first action of its turn.
fn lay_all_the_track(seed: u64) -> (Rocket, Vec<(bool, Vec<Event>)>) {
    use stationmaster::engine::rng::SplitMix64;
    let mut g = Rocket::new(Board::embedded().unwrap(), &setup(&ABC[..2], seed, &[])).unwrap();
    let mut rng = SplitMix64::new(seed);
    let mut log = Vec::new();
    let rank = |g: &Rocket, seat: Seat, o: &Order| {
        let mut c = g.clone();
        let mut ev = c.apply(seat, o).unwrap();
        ev.extend(no_vetoes(&mut c));
        let kind = |f: &dyn Fn(&Event) -> bool| ev.iter().any(f);
        if kind(&|e| matches!(e, Event::GameEnded { reason } if !reason.contains("60"))) {
            3
        } else if kind(&|e| matches!(e, Event::Isolated { .. })) {
            2
        } else if kind(&|e| matches!(e, Event::Merged { .. })) {
            1
        } else {
            0
        }
    };
    while g.result().is_none() && log.len() < 2000 {
        let seat = g.awaiting()[0].seat;
        let first = g.turn().actions_left == 2 && *g.phase() == Phase::Actions;
        let order = match g.phase() {
            Phase::VetoQuestion { .. } => Order::NoVeto,
            _ => {
                let legal = g.legal_orders(seat);
                let mut ext: Vec<(u8, usize, Order)> = legal
                    .iter()
                    .filter(|o| matches!(o, Order::Extend { .. }))
                    .map(|o| (rank(&g, seat, o), rng.below(1000), o.clone()))
                    .collect();
                ext.sort_by_key(|x| (x.0, x.1));
                match ext.first() {
                    Some((r, _, o)) if *r < 3 => o.clone(),
                    _ => legal
                        .iter()
                        .find(|o| matches!(o, Order::Station { .. }))
                        .unwrap()
                        .clone(),
                }
            }
        };
        let ev = g.apply(seat, &order).unwrap();
        g.check_invariants().unwrap();
        log.push((first, ev));
    }
    (g, log)
}

/// The events of the extension that ended the game: the last action's,
/// counting from the move (the last `no veto` only settles it).
fn last_extension(log: &[(bool, Vec<Event>)]) -> (bool, Vec<Event>) {
    let i = log
        .iter()
        .rposition(|(_, ev)| has(ev, |e| matches!(e, Event::LocomotiveMoved { .. })))
        .unwrap();
    let first = log[i].0;
    (
        first,
        log[i..].iter().flat_map(|(_, ev)| ev.clone()).collect(),
    )
}

/// Rulings 10 and the rules ("Game end"): when the 60th tile is laid, the
/// extension's scoring is finished first, then the game ends and end-game
/// scoring follows; the active player gets no further action.
#[test]
fn rules_game_end_the_60th_tile_ends_the_game_after_that_extension_s_scoring() {
    let found = (0..200).find_map(|seed| {
        let (g, log) = lay_all_the_track(seed);
        let (first, ev) = last_extension(&log);
        let scored = has(&ev, |e| {
            matches!(
                e,
                Event::Paid {
                    cause: PaymentCause::City { .. } | PaymentCause::Town { .. },
                    ..
                } | Event::NobodyPaid {
                    cause: PaymentCause::City { .. } | PaymentCause::Town { .. }
                }
            )
        });
        (g.tiles_laid() == 60
            && first
            && scored
            && !has(&ev, |e| matches!(e, Event::Merged { .. })))
        .then_some((g, ev))
    });
    let (mut g, ev) = found.expect("a game whose 60th tile connects a place");
    let reason = g.result().unwrap().reason.clone();
    assert!(reason.contains("60"), "{reason}");
    assert_eq!(g.tiles_laid(), 60);
    let tile = pos(&ev, "tile", |e| matches!(e, Event::TrackLaid { .. }));
    let scoring = pos(&ev, "scoring", |e| {
        matches!(e, Event::Paid { .. } | Event::NobodyPaid { .. })
    });
    let end = pos(&ev, "end", |e| matches!(e, Event::GameEnded { .. }));
    assert!(tile < scoring && scoring < end, "{ev:#?}");
    // End-game scoring comes after, and the turn's second action is lost.
    assert!(ev[end..].iter().any(|e| matches!(e, Event::Winner { .. })));
    assert_eq!(*g.phase(), Phase::Finished);
    let active = g.turn().active;
    refused(&mut g, active, "pass");
}

/// Rulings 6 and 10: the locomotive a merger removes is replaced by a tile
/// that counts against the 60; when that tile is the 60th, the merger's
/// scoring and exchange are completed before the game ends.
#[test]
fn rulings_10_the_60th_tile_may_be_the_one_a_merger_lays() {
    let found = (0..200).find_map(|seed| {
        let (g, log) = lay_all_the_track(seed);
        let (_, ev) = last_extension(&log);
        let merged = ev.iter().position(|e| matches!(e, Event::Merged { .. }))?;
        let after = ev[merged..]
            .iter()
            .any(|e| matches!(e, Event::TrackLaid { .. }));
        (g.tiles_laid() == 60 && after).then_some((g, ev))
    });
    let (g, ev) = found.expect("a game whose 60th tile joins a merger");
    let Some(Event::Merged {
        dissolved,
        survivor,
        hex: at,
        ..
    }) = ev
        .iter()
        .find(|e| matches!(e, Event::Merged { .. }))
        .cloned()
    else {
        unreachable!()
    };
    let laid = pos(&ev, "joint", |e| {
        *e == Event::TrackLaid {
            line: survivor,
            hex: at,
        }
    });
    let end = pos(&ev, "end", |e| matches!(e, Event::GameEnded { .. }));
    let merger = pos(&ev, "merger payment", |e| {
        matches!(
            e,
            Event::Paid {
                cause: PaymentCause::Merger { .. },
                ..
            } | Event::NobodyPaid {
                cause: PaymentCause::Merger { .. }
            }
        )
    });
    assert!(merger < end && laid < end);
    assert!(
        ev[..end]
            .iter()
            .any(|e| matches!(e, Event::SharesExchanged { .. }))
            || {
                // Nobody held shares of the dissolved line.
                g.players().iter().all(|p| p.shares_of(dissolved) == 0)
            }
    );
    assert_eq!(
        g.line(dissolved).status,
        LineStatus::Dissolved { into: survivor }
    );
    assert!(g.cell(at).tile.is_some());
    assert_eq!(g.tiles_laid(), 60);
}

/// Rulings 10: when the move itself lays the 60th tile and merges, the
/// merger is still scored and completed; there is no tile left for the
/// joint, and no 61st is laid.
#[test]
fn rulings_10_a_merger_after_the_60th_tile_is_still_completed() {
    let found = (0..200).find_map(|seed| {
        let (g, log) = lay_all_the_track(seed);
        let (_, ev) = last_extension(&log);
        let merged = ev.iter().position(|e| matches!(e, Event::Merged { .. }))?;
        let after = ev[merged..]
            .iter()
            .any(|e| matches!(e, Event::TrackLaid { .. }));
        (g.tiles_laid() == 60 && !after).then_some((g, ev))
    });
    let (g, ev) = found.expect("a game whose 60th tile comes before a merger");
    let Some(Event::Merged {
        dissolved,
        survivor,
        hex: at,
        ..
    }) = ev
        .iter()
        .find(|e| matches!(e, Event::Merged { .. }))
        .cloned()
    else {
        unreachable!()
    };
    let end = pos(&ev, "end", |e| matches!(e, Event::GameEnded { .. }));
    let merger = pos(&ev, "merger payment", |e| {
        matches!(
            e,
            Event::Paid {
                cause: PaymentCause::Merger { .. },
                ..
            } | Event::NobodyPaid {
                cause: PaymentCause::Merger { .. }
            }
        )
    });
    assert!(merger < end);
    assert_eq!(
        g.line(dissolved).status,
        LineStatus::Dissolved { into: survivor }
    );
    assert_eq!(g.cell(at).locomotive, None);
    assert_eq!(g.cell(at).track, Some(survivor));
    assert_eq!(g.cell(at).tile, None);
    assert_eq!(g.tiles_laid(), 60);
}

// ===== Rulings 12: a turn ====================================================

/// Rulings 12 and the rules ("Playing the game"): a turn is two actions, the
/// same or different, but the same line may not be extended twice in it.
#[test]
fn rulings_12_two_actions_a_turn_and_no_line_twice() {
    let mut g = game(&ABC[..2]);
    extend(&mut g, "GWR C14");
    assert_eq!(g.turn().actions_left, 1);
    let err = refused(&mut g, ANDI, "extend GWR D14");
    assert!(err.message.contains("already extended GWR this turn"));
    extend(&mut g, "LSWR F17");
    assert_eq!((g.turn().number, g.turn().active), (2, BELA));
    // The same action twice is fine.
    act(&mut g, "token London steel");
    act(&mut g, "token London steel");
    assert_eq!(g.turn().active, ANDI);
    assert_eq!(goods(&g, BELA, Good::Steel), 2);
}

/// Rulings 12: an extension is one action, veto round and all.
#[test]
fn rulings_12_an_extension_with_its_veto_round_is_one_action() {
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12");
    order(&mut g, BELA, "veto");
    order(&mut g, ANDI, "bid 1 E12");
    order(&mut g, BELA, "pass");
    order(&mut g, CECIL, "pass");
    assert_eq!(*g.phase(), Phase::Actions);
    assert_eq!((g.turn().active, g.turn().actions_left), (CECIL, 1));
    assert_eq!(g.awaiting()[0].seat, CECIL);
}

// ===== Rulings 13: private money ==============================================

/// Rulings 13: money is private until the game is over: each player sees the
/// amount of their own payments; the others see only the cause.
#[test]
fn rulings_13_money_is_private() {
    let mut g = game(&ABC);
    act(&mut g, "token Manchester textiles");
    let ev = extend(&mut g, "L&Y B4");
    let payment = ev.iter().find(|e| matches!(e, Event::Paid { .. })).unwrap();
    let own = g.describe(payment, Viewer::Player(ANDI));
    assert!(own.contains("£2,000"), "{own}");
    for viewer in [
        Viewer::Player(BELA),
        Viewer::Player(CECIL),
        Viewer::Spectator,
    ] {
        let text = g.describe(payment, viewer);
        assert!(!text.contains('£'), "{text}");
        assert!(text.contains("Andi is paid for Manchester"), "{text}");
    }
    let view = g.view_json(Viewer::Player(BELA));
    assert!(view["players"][0].get("money").is_none());
    assert_eq!(view["players"][1]["money"], serde_json::json!(0));
}

/// Rulings 13, alternative (option `open_money`): everyone sees every amount.
#[test]
fn options_open_money_shows_every_payment_to_everyone() {
    let mut g = game_with(&ABC, ANDI, &["open_money"]);
    assert!(g.options().open_money);
    act(&mut g, "token Manchester textiles");
    let ev = extend(&mut g, "L&Y B4");
    let payment = ev.iter().find(|e| matches!(e, Event::Paid { .. })).unwrap();
    for viewer in [
        Viewer::Player(BELA),
        Viewer::Player(CECIL),
        Viewer::Spectator,
    ] {
        let text = g.describe(payment, viewer);
        assert!(text.contains("Andi receives £2,000"), "{text}");
    }
    assert_eq!(
        g.view_json(Viewer::Player(BELA))["players"][0]["money"],
        serde_json::json!(2000)
    );
}

/// Rulings 13: once the game is over, money is public.
#[test]
fn rulings_13_money_is_public_once_the_game_is_over() {
    let mut g = game(&ABC[..2]);
    let ev = end_by_isolation(&mut g);
    let payment = ev
        .iter()
        .find(|e| matches!(e, Event::Paid { player: ANDI, .. }))
        .unwrap();
    assert!(
        g.describe(payment, Viewer::Player(BELA))
            .contains("Andi receives £")
    );
    assert!(
        g.view_json(Viewer::Player(BELA))["players"][0]
            .get("money")
            .is_some()
    );
}

// ===== Rulings 14: players and stations ========================================

/// Rulings 14: 2 to 4 players, each with 7 stations.
#[test]
fn rulings_14_two_to_four_players_with_seven_stations_each() {
    let board = || Board::embedded().unwrap();
    for n in [1, 5] {
        let names: Vec<&str> = ["A", "B", "C", "D", "E"][..n].to_vec();
        match Rocket::new(board(), &setup(&names, 1, &[])) {
            Err(SetupError::Players(m)) => assert!(m.contains("2 to 4"), "{m}"),
            other => panic!("{n} players: {other:?}"),
        }
    }
    for n in [2, 3, 4] {
        let names: Vec<&str> = ["A", "B", "C", "D"][..n].to_vec();
        let g = Rocket::new(board(), &setup(&names, 1, &[])).unwrap();
        assert_eq!(g.players().len(), n);
        assert!(g.players().iter().all(|p| p.stations_in_supply == 7));
    }
    // Seven stations on the board, then the eighth is refused.
    let mut g = game(&ABC[..2]);
    let spots = ["B1", "G3", "I5", "C7", "E7", "H8", "J12"];
    for (i, at) in spots.iter().enumerate() {
        // Andi places two a turn; Béla's turns pass by.
        if g.turn().active != ANDI {
            end_turn(&mut g);
        }
        act(&mut g, &format!("station {at}"));
        assert_eq!(g.player(ANDI).stations_in_supply, 6 - i as u8);
    }
    let err = refused(&mut g, ANDI, "station H13");
    assert!(err.message.contains("All 7 of your stations"));
    // Moving one of them is still allowed.
    act(&mut g, "station H13 from J12");
    assert_eq!(g.cell(hex("H13")).station, Some(ANDI));
    assert_eq!(g.cell(hex("J12")).station, None);
    assert_eq!(g.player(ANDI).stations_in_supply, 0);
}

/// Rules, B (and rulings 14): stations go on an empty hex: not a town,
/// city, track, locomotive or sea, not next to a locomotive or a station.
#[test]
fn rules_b_stations_only_on_empty_hexes_away_from_locomotives_and_stations() {
    let mut g = game(&ABC[..2]);
    extend(&mut g, "GWR C14"); // Andi
    act(&mut g, "station H8"); // Andi
    extend(&mut g, "GWR D14"); // Béla: track on C14
    let cases = [
        ("station E2", "Leeds"),                 // a town
        ("station C4", "Manchester"),            // a city
        ("station N9", "Norwich"),               // a starting town
        ("station A1", "not playable"),          // sea
        ("station A6", "not playable"),          // Wales
        ("station C14", "track"),                // track
        ("station D14", "locomotive on it"),     // GWR's locomotive
        ("station E13", "next to a locomotive"), // next to GWR
        ("station H8", "already has a station"), // Andi's
        ("station I8", "next to a station"),     // next to Andi's
        ("station F18", "Southampton"),          // LSWR on its start
        ("station G18", "next to a locomotive"), // next to LSWR on its start
    ];
    for (text, why) in cases {
        let err = refused(&mut g, BELA, text);
        assert!(err.message.contains(why), "{text}: {}", err.message);
        assert_eq!(err.rule, "rules, B");
    }
    act(&mut g, "station J8"); // two hexes from Andi's: fine
    assert_eq!(g.cell(hex("J8")).station, Some(BELA));
}

// ===== Options =================================================================

/// Option `veto_defend_only`: the active player may only defend the hex
/// first chosen; the default lets the active player reposition.
#[test]
fn options_veto_defend_only() {
    let mut g = veto_position(&["veto_defend_only"], &[]);
    assert!(g.options().veto_defend_only);
    act(&mut g, "extend GWR F12");
    order(&mut g, BELA, "veto");
    order(&mut g, ANDI, "bid 1 E12");
    order(&mut g, BELA, "bid 2 E12");
    let legal = legal_lines(&g, CECIL);
    assert_eq!(legal, ["bid 2 F12", "pass"]);
    let err = refused(&mut g, CECIL, "bid 2 G13");
    assert_eq!(err.rule, "option veto_defend_only");
    assert!(
        err.message
            .contains("only defend the hex first chosen, F12")
    );
    order(&mut g, CECIL, "bid 2 F12");
    assert_eq!(loco(&g, "GWR"), Some(hex("F12")));

    // Without the option Cecil may put it on any of the three.
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12");
    order(&mut g, BELA, "veto");
    order(&mut g, ANDI, "bid 1 E12");
    order(&mut g, BELA, "bid 2 E12");
    assert_eq!(
        legal_lines(&g, CECIL),
        ["bid 2 E12", "bid 2 F12", "bid 2 G13", "pass"]
    );
}

// ===== The rule book, paragraph by paragraph ====================================

/// Rules, A: take a city token: from any city, face up in front of you.
#[test]
fn rules_a_take_a_city_token() {
    let mut g = game(&ABC[..2]);
    let manchester = place(&g, "Manchester");
    assert_eq!(g.city_tokens(manchester), [1, 2, 0, 0]);
    let ev = act(&mut g, "token Manchester steel");
    assert_eq!(
        ev,
        [Event::TokenTaken {
            player: ANDI,
            city: manchester,
            good: Good::Steel
        }]
    );
    assert_eq!(g.city_tokens(manchester), [0, 2, 0, 0]);
    assert_eq!(g.player(ANDI).tokens[manchester.index()], [1, 0, 0, 0]);
    assert_eq!(goods(&g, ANDI, Good::Steel), 1);
    // The only steel is gone; Manchester never had brewing.
    for text in ["token Manchester steel", "token Manchester brewing"] {
        let err = refused(&mut g, ANDI, text);
        assert_eq!(err.rule, "rules, A");
        assert!(err.message.contains("Manchester has no"), "{}", err.message);
    }
}

/// Rules, B: place a station from the supply, or move one of your own on
/// the board instead.
#[test]
fn rules_b_place_or_move_a_station() {
    let mut g = game(&ABC[..2]);
    let ev = act(&mut g, "station F8");
    assert_eq!(
        ev,
        [Event::StationPlaced {
            player: ANDI,
            hex: hex("F8")
        }]
    );
    assert_eq!(g.player(ANDI).stations_in_supply, 6);
    filler(&mut g);
    let err = refused(&mut g, BELA, "station H8 from F8");
    assert!(err.message.contains("no station on F8"));
    filler(&mut g);
    filler(&mut g);
    let err = refused(&mut g, ANDI, "station F8 from F8");
    assert!(err.message.contains("already on F8"));
    // Moving next to where it stood is fine: the old spot is vacated.
    let supply = g.player(ANDI).stations_in_supply;
    let ev = act(&mut g, "station G8 from F8");
    assert_eq!(
        ev[0],
        Event::StationMoved {
            player: ANDI,
            from: hex("F8"),
            to: hex("G8")
        }
    );
    assert_eq!(g.cell(hex("F8")).station, None);
    assert_eq!(g.cell(hex("G8")).station, Some(ANDI));
    assert_eq!(g.player(ANDI).stations_in_supply, supply);
}

/// Rules, C1: from its starting town a locomotive may go to any adjacent
/// empty hex (not sea, not a place).
#[test]
fn rules_c1_from_a_starting_town_any_adjacent_empty_hex() {
    let g = game(&ABC[..2]);
    assert_eq!(moves_of(&g, "GWR"), ["B16", "C14", "C16", "D15"]);
    assert_eq!(moves_of(&g, "SER"), ["M16", "M17"]);
    assert_eq!(moves_of(&g, "GER"), ["M10", "M8", "M9", "N10", "N8", "O9"]);
    assert_eq!(g.line(line(&g, "GWR")).facing, None);
}

/// Rules, C1: elsewhere only to the three hexes in front (straight on or a
/// gentle curve); the locomotive faces away from the hex it came from.
#[test]
fn rules_c1_elsewhere_only_the_three_hexes_in_front() {
    let mut g = game(&ABC[..2]);
    extend(&mut g, "GWR C16"); // south-east of Bristol
    assert_eq!(g.line(line(&g, "GWR")).facing, Some(Dir::SE));
    filler(&mut g);
    assert_eq!(moves_of(&g, "GWR"), ["C17", "D16", "D17"]);
    for behind in ["B16", "D15"] {
        let err = refused(&mut g, BELA, &format!("extend GWR {behind}"));
        assert!(err.message.contains("not in front"), "{}", err.message);
        assert!(err.message.contains("C17, D16 or D17"), "{}", err.message);
    }
    let err = refused(&mut g, BELA, "extend GWR F8");
    assert!(err.message.contains("not next to"), "{}", err.message);
    extend(&mut g, "GWR D16"); // a gentle curve left, to the east
    assert_eq!(g.line(line(&g, "GWR")).facing, Some(Dir::E));
    assert_eq!(loco(&g, "GWR"), Some(hex("D16")));
    assert_eq!(g.cell(hex("D16")).locomotive, Some(line(&g, "GWR")));
    assert_eq!(g.cell(hex("C16")).locomotive, None);
}

/// Rules, C1: "the player places the locomotive so its rear-end points to
/// the space from which it moved", at once, before any veto: while the
/// question is open (and during the round) the locomotive on its new hex
/// faces away from the hex it came from, as every report draws it. It used
/// to keep the old hex's facing until the veto was settled (L&Y on C5
/// "facing E" after B4 to C5, which is south-east).
#[test]
fn rules_c1_a_moved_locomotive_faces_its_new_way_while_the_veto_is_open() {
    let mut g = game(&ABC);
    extend(&mut g, "GWR C14"); // Andi: north-east of Bristol
    end_turn(&mut g);
    act(&mut g, "extend GWR D14"); // Béla, east; Andi is asked
    assert!(matches!(g.phase(), Phase::VetoQuestion { .. }));
    assert_eq!(g.line(line(&g, "GWR")).facing, Some(Dir::E));
    order(&mut g, ANDI, "veto");
    assert!(matches!(g.phase(), Phase::VetoRound { .. }));
    assert_eq!(g.line(line(&g, "GWR")).facing, Some(Dir::E));
}

/// Rules, C1 in words: a line's name is said letter by letter, so a
/// report reads "ben takes an L&Y share", "An LSWR track tile is laid",
/// but "a GWR share". It said "a L&Y share" and "A LSWR track tile".
#[test]
fn rules_c1_shares_and_tiles_are_told_with_the_right_article() {
    let g = game(&ABC);
    let told = |e: Event| g.describe(&e, Viewer::Spectator);
    for (id, article) in [
        ("L&Y", "an"),
        ("NER", "an"),
        ("LNWR", "an"),
        ("LSWR", "an"),
        ("SER", "an"),
        ("GWR", "a"),
        ("GER", "a"),
    ] {
        let l = line(&g, id);
        assert_eq!(
            told(Event::ShareTaken {
                player: BELA,
                line: l
            }),
            format!("Béla takes {article} {id} share.")
        );
        let upper = if article == "an" { "An" } else { "A" };
        assert_eq!(
            told(Event::TrackLaid {
                line: l,
                hex: hex("B4")
            }),
            format!("{upper} {id} track tile is laid on B4.")
        );
    }
}

/// Rules, C1: "players display their shares by company so their
/// shareholdings are easily seen". A player with shares of four lines
/// has them run onto a line of their own under the column; they ran into
/// the tokens beside it ("LNWR 1, GER 1, LSWR 1, SER 1 0/0/0/0").
#[test]
fn rules_c1_many_shareholdings_stay_in_their_column() {
    let mut g = game(&ABC);
    extend(&mut g, "LNWR D11"); // Andi
    extend(&mut g, "GER M10");
    turn_to(&mut g, ANDI);
    extend(&mut g, "LSWR G17");
    extend(&mut g, "SER M16");
    let status = g.render_status(Viewer::Player(BELA));
    let rows: Vec<&str> = status
        .lines()
        .skip_while(|l| !l.starts_with("Player "))
        .collect();
    let andi = rows
        .iter()
        .position(|l| l.starts_with("A Andi"))
        .expect("Andi's row");
    let column = |l: &str| l.chars().skip(15).take(27).collect::<String>();
    assert_eq!(
        column(rows[andi]).trim_end(),
        "LNWR 1, GER 1, LSWR 1,",
        "{status}"
    );
    assert_eq!(
        rows[andi + 1].trim_end(),
        format!("{:15}SER 1", ""),
        "{status}"
    );
    for seat in ["A ", "B ", "C "] {
        let row = rows.iter().find(|l| l.starts_with(seat)).expect("a row");
        let tokens: String = row.chars().skip(43).take(7).collect();
        assert_eq!(tokens, "0/0/0/0", "{status}");
    }
}

/// Rules, C1: not into towns, cities, sea, or hexes with track.
#[test]
fn rules_c1_not_into_places_sea_or_track() {
    let mut g = game(&ABC[..2]);
    let err = refused(&mut g, ANDI, "extend GWR B15");
    assert!(err.message.contains("not playable"));
    extend(&mut g, "GWR C14"); // faces north-east: Gloucester (D13) in front
    filler(&mut g);
    let err = refused(&mut g, BELA, "extend GWR D13");
    assert!(
        err.message
            .contains("Gloucester; locomotives may not enter")
    );
    // GER loops back to its own track: M10, M11, L11, K10, L9, M9 faces M10.
    let g2 = &mut game(&ABC[..2]);
    for h in ["M10", "M11", "L11", "K10", "L9", "M9"] {
        let active = g2.turn().active;
        turn_extend(g2, active, &format!("GER {h}"));
    }
    let active = g2.turn().active;
    let err = refused(g2, active, "extend GER M10");
    assert!(
        err.message.contains("M10 has track on it"),
        "{}",
        err.message
    );
}

/// Rules, C1: the mover takes a share of the line, face up.
#[test]
fn rules_c1_the_mover_takes_a_share() {
    let mut g = game(&ABC[..2]);
    let ev = extend(&mut g, "GWR C14");
    assert!(has(&ev, |e| *e
        == Event::ShareTaken {
            player: ANDI,
            line: line(&g, "GWR")
        }));
    assert_eq!(shares(&g, ANDI, "GWR"), 1);
    assert_eq!(board_shares(&g, "GWR"), 15);
}

/// Rules, C1: if no shares are available the mover gets none.
#[test]
fn rules_c1_no_share_when_none_is_left() {
    let mut g = game(&ABC[..2]);
    extend(&mut g, "GER O9"); // isolated at once: no shares left on the board
    assert_eq!(board_shares(&g, "GER"), 0);
    extend(&mut g, "NER G2");
    extend(&mut g, "NER H2"); // Béla; NER isolated
    filler(&mut g);
    let ev = extend(&mut g, "NER I1"); // Andi
    assert!(has(&ev, |e| *e
        == Event::NoShareLeft {
            player: ANDI,
            line: line(&g, "NER")
        }));
    assert_eq!(shares(&g, ANDI, "NER"), 1);
}

/// Rules, C1: a locomotive may move to a hex holding only a station.
#[test]
fn rules_c1_a_locomotive_may_move_onto_a_station() {
    let mut g = game(&ABC[..2]);
    act(&mut g, "station C17"); // Andi
    extend(&mut g, "GWR C16"); // Andi
    assert_eq!(g.turn().active, BELA);
    assert_eq!(moves_of(&g, "GWR"), ["C17", "D16", "D17"]);
    extend(&mut g, "GWR C17"); // Béla, onto Andi's station
    let c = g.cell(hex("C17"));
    assert_eq!(c.station, Some(ANDI));
    assert_eq!(c.locomotive, Some(line(&g, "GWR")));
    assert_eq!(g.linked_stations(line(&g, "GWR"), ANDI), 1);
}

/// Rules, C2: the veto round cannot stop the move; nobody must bid, not
/// even the caller; with no bid the move stands and nobody pays.
#[test]
fn rules_c2_a_veto_round_without_bids_changes_nothing() {
    let mut g = veto_position(&[], &[]);
    act(&mut g, "extend GWR F12");
    order(&mut g, BELA, "veto");
    order(&mut g, ANDI, "pass");
    order(&mut g, BELA, "pass");
    let ev = order(&mut g, CECIL, "pass");
    assert!(!has(&ev, |e| matches!(e, Event::VetoWon { .. })));
    assert_eq!(loco(&g, "GWR"), Some(hex("F12")));
    assert_eq!(
        [
            shares(&g, ANDI, "GWR"),
            shares(&g, BELA, "GWR"),
            shares(&g, CECIL, "GWR")
        ],
        [1, 2, 2]
    );
    assert_eq!(board_shares(&g, "GWR"), 11);
    assert_eq!(
        g.cell(hex("F13")).tile,
        Some(Tile {
            from: Dir::SW,
            to: Dir::NE
        })
    );
}

/// Rules, C2: every shareholder answers the veto question; when all say
/// `no veto` the move stands.
#[test]
fn rules_c2_the_veto_question_goes_to_the_other_shareholders() {
    let mut g = veto_position(&[], &[]);
    let ev = act(&mut g, "extend GWR F12");
    let asked = Event::VetoAsked {
        line: line(&g, "GWR"),
        hex: hex("F12"),
        players: vec![ANDI, BELA],
        mover: Some(CECIL),
    };
    assert!(has(&ev, |e| *e == asked));
    // Whose move may be vetoed is said: the question, and the status.
    assert_eq!(
        g.describe(&asked, Viewer::Player(ANDI)),
        "You and Béla may call a veto round on Cecil's move of GWR to F12."
    );
    assert_eq!(
        g.describe(&asked, Viewer::Player(CECIL)),
        "Andi and Béla may call a veto round on your move of GWR to F12."
    );
    let status = g.render_status(Viewer::Player(BELA));
    assert!(
        status.contains("Veto: Cecil moved GWR from F13 to F12"),
        "{status}"
    );
    let awaited: Vec<Seat> = g.awaiting().iter().map(|a| a.seat).collect();
    assert_eq!(awaited, [ANDI, BELA]);
    let err = refused(&mut g, CECIL, "no veto");
    assert_eq!(err.rule, "rulings 7");
    order(&mut g, BELA, "no veto");
    let err = refused(&mut g, BELA, "veto");
    assert!(err.message.contains("already answered"));
    assert_eq!(g.cell(hex("F13")).tile, None);
    order(&mut g, ANDI, "no veto");
    assert_eq!(*g.phase(), Phase::Actions);
    assert!(g.cell(hex("F13")).tile.is_some());
}

/// Rules, C3: a tile goes on the hex just vacated, unless it was the starting
/// town; a station there stays on top of the tile.
#[test]
fn rules_c3_a_track_tile_on_the_vacated_hex() {
    let mut g = game(&ABC[..2]);
    act(&mut g, "station D17"); // Andi
    extend(&mut g, "GWR C16"); // from Bristol: no tile
    assert_eq!(g.tiles_laid(), 0);
    extend(&mut g, "GWR D17"); // Béla, onto Andi's station
    filler(&mut g);
    let ev = extend(&mut g, "GWR E17"); // Andi
    assert!(has(&ev, |e| *e
        == Event::TrackLaid {
            line: line(&g, "GWR"),
            hex: hex("D17")
        }));
    let c = g.cell(hex("D17"));
    assert_eq!(c.station, Some(ANDI));
    assert_eq!(c.track, Some(line(&g, "GWR")));
    assert!(c.tile.is_some());
    assert_eq!(g.tiles_laid(), 2);
    assert_eq!(g.cell(hex("C15")).track, None);
}

// ----- Passenger tokens -------------------------------------------------------

/// Rules, passenger tokens: moving onto another player's station earns the
/// mover one; onto your own, none. Both link the station to the line.
#[test]
fn rules_passengers_for_another_player_s_station_not_your_own() {
    let mut g = game(&ABC[..2]);
    act(&mut g, "station C17"); // Andi
    extend(&mut g, "GWR C16");
    act(&mut g, "station D18"); // Béla
    filler(&mut g);
    let ev = extend(&mut g, "GWR C17"); // Andi, onto his own station
    assert!(!has(&ev, |e| matches!(e, Event::PassengerTaken { .. })));
    assert_eq!(g.player(ANDI).passengers, 0);
    filler(&mut g);
    extend(&mut g, "GWR C18"); // Béla
    filler(&mut g);
    let ev = extend(&mut g, "GWR D18"); // Andi, onto Béla's station
    assert!(has(&ev, |e| *e
        == Event::PassengerTaken {
            player: ANDI,
            hex: hex("D18"),
            station_of: BELA
        }));
    assert_eq!(g.player(ANDI).passengers, 1);
    assert_eq!(g.passengers_left(), 8);
    let gwr = line(&g, "GWR");
    assert_eq!(
        [g.linked_stations(gwr, ANDI), g.linked_stations(gwr, BELA)],
        [1, 1]
    );
}

/// Rules, passenger tokens under a veto round. The position of the veto
/// example with Andi's station on F12 (B). Cecil moves onto it.
#[test]
fn rules_passengers_under_a_veto_go_to_the_active_player_only_if_he_wins() {
    let cecil_passengers = |g: &Rocket| g.player(CECIL).passengers;
    let start = || {
        let mut g = veto_position(&[], &[(ANDI, "F12")]);
        act(&mut g, "extend GWR F12");
        g
    };
    // No veto: Cecil takes the passenger.
    let mut g = start();
    no_vetoes(&mut g);
    assert_eq!(cecil_passengers(&g), 1);
    // A veto round with no bid: the same.
    let mut g = start();
    order(&mut g, BELA, "veto");
    for s in [ANDI, BELA, CECIL] {
        order(&mut g, s, "pass");
    }
    assert_eq!(cecil_passengers(&g), 1);
    // Béla wins and leaves it on the station: nobody takes the token.
    let mut g = start();
    order(&mut g, BELA, "veto");
    order(&mut g, ANDI, "pass");
    order(&mut g, BELA, "bid 2 F12");
    let ev = order(&mut g, CECIL, "pass");
    assert_eq!(loco(&g, "GWR"), Some(hex("F12")));
    assert!(!has(&ev, |e| matches!(e, Event::PassengerTaken { .. })));
    assert_eq!(g.players().iter().map(|p| p.passengers).sum::<u8>(), 0);
    // Cecil wins by equalling Béla's bid: he takes it.
    let mut g = start();
    order(&mut g, BELA, "veto");
    order(&mut g, ANDI, "bid 1 E12");
    order(&mut g, BELA, "bid 2 E12");
    order(&mut g, CECIL, "bid 2 F12");
    assert_eq!(cecil_passengers(&g), 1);
    assert_eq!(g.passengers_left(), 8);
}

/// Rules, passenger tokens: a veto player who repositions the locomotive onto
/// a station takes no passenger token.
#[test]
fn rules_passengers_a_veto_winner_moving_onto_a_station_takes_none() {
    let mut g = veto_position(&[], &[(CECIL, "F12")]);
    act(&mut g, "extend GWR E12");
    order(&mut g, BELA, "veto");
    order(&mut g, ANDI, "bid 1 F12"); // onto Cecil's station
    order(&mut g, BELA, "pass");
    order(&mut g, CECIL, "pass");
    assert_eq!(loco(&g, "GWR"), Some(hex("F12")));
    assert_eq!(g.player(ANDI).passengers, 0);
    assert_eq!(g.passengers_left(), 9);
}

/// Rules, passenger tokens: when all nine are used, no more are awarded.
/// Andi's five stations lie every other hex along GER's way west (Béla moves
/// GER), Béla's four along SER's and one on LSWR's (Andi moves them): the
/// tenth visit earns nothing.
#[test]
fn rules_passengers_at_most_nine() {
    let mut g = game(&ABC[..2]);
    let ger = [
        "M10", "L10", "K10", "J10", "I10", "H10", "G10", "F10", "F11", "E12",
    ];
    let ser = ["M16", "L16", "K16", "J16", "I16", "I15", "H14", "G14"];
    let lswr = ["E18", "D18"];
    // Stations: Andi on L10, J10, H10, F10, E12; Béla on L16, J16, I15, G14, D18.
    let andi = ["L10", "J10", "H10", "F10", "E12"];
    let bela = ["L16", "J16", "I15", "G14", "D18"];
    for i in 0..5 {
        act(&mut g, &format!("station {}", andi[i]));
        filler(&mut g);
        act(&mut g, &format!("station {}", bela[i]));
        filler(&mut g);
    }
    // Each round Andi moves SER (then LSWR) and Béla moves GER, one hex
    // each; every other hex is a station of the other player.
    let mut visits = 0;
    for step in 0..10 {
        for (mover, what) in [
            (
                ANDI,
                if step < ser.len() {
                    format!("SER {}", ser[step])
                } else {
                    format!("LSWR {}", lswr[step - ser.len()])
                },
            ),
            (BELA, format!("GER {}", ger[step])),
        ] {
            assert_eq!(g.turn().active, mover);
            let to = what.split(' ').nth(1).unwrap().to_string();
            let ev = extend(&mut g, &what);
            end_turn(&mut g);
            if andi.contains(&to.as_str()) || bela.contains(&to.as_str()) {
                visits += 1;
                let took = has(&ev, |e| matches!(e, Event::PassengerTaken { .. }));
                assert_eq!(took, visits <= 9, "visit {visits}: {what}");
                assert_eq!(g.passengers_left(), 9 - visits.min(9), "{what}");
            }
        }
    }
    assert_eq!(visits, 10);
    let total: u8 = g.players().iter().map(|p| p.passengers).sum();
    assert_eq!(total, 9);
    assert_eq!(g.passengers_left(), 0);
    assert_eq!(
        [g.player(ANDI).passengers, g.player(BELA).passengers],
        [5, 4]
    );
}

// ----- Scoring during the game -------------------------------------------------

/// Rules, scoring 1 (city): connecting a city pays its token holders: the
/// majority £2,000, the second £1,000.
#[test]
fn rules_scoring_1_a_city_pays_its_token_holders() {
    let mut g = game(&ABC);
    act(&mut g, "token Manchester textiles");
    act(&mut g, "token Manchester textiles");
    act(&mut g, "token Manchester steel"); // Béla
    end_turn(&mut g);
    let ev = extend(&mut g, "L&Y B4"); // Cecil
    assert_eq!(paid(&ev), [(ANDI, 2), (BELA, 1)]);
    assert!(has(&ev, |e| *e
        == Event::Connected {
            line: line(&g, "L&Y"),
            place: place(&g, "Manchester")
        }));
    assert_eq!(moneys(&g), [2, 1, 0]);
}

/// Rules, scoring 2 (railway town): connecting a railway town pays the
/// holders of stations linked to the line: the most £1,000 for each
/// connected place, the second most half of it. GWR runs B16, B17, B18,
/// C18, D17 and D16 (next to Swindon) over Béla's stations on B17 and C18
/// and Andi's on D16: GWR is worth Bristol and Swindon, Béla gets £2,000,
/// Andi £1,000.
#[test]
fn rules_scoring_2_a_railway_town_pays_the_line_s_station_holders() {
    let mut g = game(&ABC[..2]);
    act(&mut g, "station D16"); // Andi
    filler(&mut g);
    act(&mut g, "station B17"); // Béla
    act(&mut g, "station C18");
    run_steps(&mut g, &[("GWR", &["B16", "B17", "B18", "C18", "D17"])]);
    let before = moneys(&g);
    let ev = extend(&mut g, "GWR D16");
    let gwr = line(&g, "GWR");
    let swindon = place(&g, "Swindon");
    assert_eq!(
        payments(&ev),
        [
            (
                ANDI,
                1,
                PaymentCause::Town {
                    town: swindon,
                    line: gwr
                }
            ),
            (
                BELA,
                2,
                PaymentCause::Town {
                    town: swindon,
                    line: gwr
                }
            ),
        ]
    );
    assert_eq!(
        [g.linked_stations(gwr, ANDI), g.linked_stations(gwr, BELA)],
        [1, 2]
    );
    assert_eq!(moneys(&g), [before[0] + 1, before[1] + 2]);
}

/// Rules, scoring 3 (merger): the most shares of the dissolved line earn
/// £1,000 per connected place, the second most half; then the locomotive
/// is replaced by a tile and the shares are exchanged two for one. In the
/// position of rulings 5, LSWR (Southampton, Reading, Oxford, Swindon)
/// merges into GWR: Andi holds 2 LSWR shares, Béla 1.
#[test]
fn rules_scoring_3_a_merger_pays_the_dissolved_line_s_shareholders() {
    let mut g = game(&ABC[..2]);
    let ev = city_town_and_merger_at_once(&mut g);
    let (lswr, gwr) = (line(&g, "LSWR"), line(&g, "GWR"));
    let cause = PaymentCause::Merger {
        dissolved: lswr,
        survivor: gwr,
    };
    let merger: Vec<(Seat, u32)> = payments(&ev)
        .into_iter()
        .filter(|(_, _, c)| *c == cause)
        .map(|(s, k, _)| (s, k))
        .collect();
    assert_eq!(merger, [(ANDI, 4), (BELA, 2)]);
    assert_eq!(status(&g, "LSWR"), LineStatus::Dissolved { into: gwr });
    assert_eq!(g.cell(hex("F15")).track, Some(gwr));
    assert_eq!(g.cell(hex("F15")).locomotive, None);
    // Andi's 2 LSWR give 1 GWR; Béla's single one is worthless.
    assert_eq!([shares(&g, ANDI, "GWR"), shares(&g, BELA, "GWR")], [3, 1]);
    assert_eq!([shares(&g, ANDI, "LSWR"), shares(&g, BELA, "LSWR")], [0, 0]);
    assert_eq!(
        connected(&g, "GWR"),
        [
            "Bristol",
            "Gloucester",
            "Oxford",
            "Reading",
            "Southampton",
            "Swindon"
        ]
    );
}

/// Rules, "Preparation": every locomotive on its starting town (facing any
/// way), 16 shares of each line on the board, 16 supplementary shares, three
/// goods tokens on each city (nine of each good), nine passenger tokens, 60
/// tiles, seven stations per player, no money.
#[test]
fn rules_preparation_the_starting_position() {
    let g = game(&ABC);
    for (i, info) in g.board().lines.iter().enumerate() {
        let l = g.line(stationmaster::rocket::LineId(i as u8));
        assert_eq!(l.locomotive, Some(g.board().place(info.start).hex));
        assert_eq!(l.facing, None);
        assert_eq!(l.board_shares, 16);
        assert_eq!(l.status, LineStatus::Active);
    }
    assert_eq!(g.board().lines.len(), 7);
    assert_eq!(g.supplementary_pool(), 16);
    assert_eq!(g.passengers_left(), 9);
    assert_eq!(g.tiles_laid(), 0);
    let mut goods = [0u8; 4];
    for city in g.board().cities() {
        let t = g.city_tokens(city);
        assert_eq!(t.iter().sum::<u8>(), 3);
        for (sum, n) in goods.iter_mut().zip(t) {
            *sum += n;
        }
    }
    assert_eq!(goods, [9, 9, 9, 9]);
    for p in g.players() {
        assert_eq!(p.stations_in_supply, 7);
        assert_eq!(p.money, Money::ZERO);
        assert!(p.shares.iter().all(|n| *n == 0));
    }
    assert_eq!((g.turn().number, g.turn().actions_left), (1, 2));
}

// ===== Refused orders ============================================================

/// Every refusal leaves the game unchanged and names its rule (checked in
/// `refused`): orders out of turn, out of phase, and after the end.
#[test]
fn refused_orders_out_of_turn_or_phase() {
    let mut g = veto_position(&[], &[]);
    // Not your turn.
    let err = refused(&mut g, ANDI, "token London steel");
    assert!(err.message.contains("It is Cecil's turn"));
    // Veto orders with no move waiting.
    for text in ["veto", "no veto", "bid 1 F12", "pass"] {
        let err = refused(&mut g, ANDI, text);
        assert_eq!(err.rule, "rules, C2", "{text}");
    }
    act(&mut g, "extend GWR F12");
    // No action while the veto question is open.
    let err = refused(&mut g, CECIL, "token London steel");
    assert!(err.message.contains("must be settled"));
    for text in ["bid 1 E12", "pass"] {
        let err = refused(&mut g, ANDI, text);
        assert!(err.message.contains("none has been called"), "{text}");
    }
    let err = refused(&mut g, CECIL, "no veto");
    assert!(err.message.contains("you may still call `veto`"));
    order(&mut g, BELA, "veto");
    // In the round: out of turn, and the veto question is closed.
    let err = refused(&mut g, BELA, "bid 2 E12");
    assert!(err.message.contains("It is Andi's turn to bid"));
    let err = refused(&mut g, ANDI, "veto");
    assert!(err.message.contains("veto round is under way"));
    let err = refused(&mut g, ANDI, "bid 2 E12");
    assert!(err.message.contains("you hold only 1 real GWR share,"));
    let err = refused(&mut g, CECIL, "extend LSWR F17");
    assert!(err.message.contains("must be settled"));
}

/// Refused: extending a dissolved line.
#[test]
fn refused_orders_on_a_dissolved_line() {
    let mut g = game(&ABC);
    lswr_into_gwr(&mut g);
    turn_to(&mut g, ANDI);
    let err = refused(&mut g, ANDI, "extend LSWR C16");
    assert!(err.message.contains("LSWR has merged into GWR"));
    assert!(legal_lines(&g, ANDI).iter().all(|l| !l.contains("LSWR")));
}

/// A seat that is not at the table is refused too, and the game is
/// unchanged.
#[test]
fn refused_orders_from_a_seat_not_at_the_table() {
    let mut g = game(&ABC[..2]);
    let before = g.clone();
    let o = g.parse_order(Seat(2), "token London steel").unwrap();
    let err = g.apply(Seat(2), &o).unwrap_err();
    assert!(
        err.message.contains("There is no player in seat 3"),
        "{}",
        err.message
    );
    assert_eq!(g, before);
}

/// Like every refusal, the one for a seat not at the table should be a clear
/// sentence naming the rule that sets the players (rulings 14).
#[test]
fn refused_orders_from_a_seat_not_at_the_table_name_the_rule() {
    let mut g = game(&ABC[..2]);
    refused(&mut g, Seat(2), "token London steel");
}

// ===== The order grammar ========================================================

/// Orders are read without regard to case, keywords and names by any unique
/// beginning; `L&Y` may be typed `LY`; the canonical text reads back.
#[test]
fn grammar_case_prefixes_and_canonical_text() {
    let g = game(&ABC[..2]);
    let text = |line: &str| {
        let o = g
            .parse_order(ANDI, line)
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        g.order_text(&o)
    };
    assert_eq!(text("ext gwr c14"), "extend GWR C14");
    assert_eq!(text("EXTEND Gwr C14"), "extend GWR C14");
    assert_eq!(text("t man st"), "token Manchester steel");
    assert_eq!(
        text("TOKEN manchester TEXTILES"),
        "token Manchester textiles"
    );
    assert_eq!(text("e ly b4"), "extend L&Y B4");
    assert_eq!(text("extend LYR b4"), "extend L&Y B4");
    assert_eq!(text("extend l&y B4"), "extend L&Y B4");
    assert_eq!(text("st f8"), "station F8");
    assert_eq!(text("sta f8 fr d9"), "station F8 from D9");
    assert_eq!(text("no v"), "no veto");
    assert_eq!(text("v"), "veto");
    assert_eq!(text("b 2 e12"), "bid 2 E12");
    assert_eq!(text("p"), "pass");
    assert_eq!(text("  extend,GWR,C14  "), "extend GWR C14");
}

/// Ambiguous or unknown words are refused with the candidates.
#[test]
fn grammar_ambiguous_and_unknown_words() {
    let g = game(&ABC[..2]);
    let err = |line: &str| g.parse_order(ANDI, line).unwrap_err();
    let e = err("token n steel");
    assert!(
        e.message.contains("could be Nottingham or Northampton"),
        "{e}"
    );
    let e = err("extend l b4");
    for name in ["L&Y", "LNWR", "LSWR"] {
        assert!(e.message.contains(name), "{e}");
    }
    let e = err("extend XYZ b4");
    assert!(e.message.contains("not a railway line"));
    assert!(e.expected.contains(&"GWR".to_string()));
    let e = err("token Leeds steel");
    assert_eq!(
        e.message, "`Leeds` is not a city: Leeds is a railway town",
        "{e}"
    );
    let e = err("token liv steel");
    assert_eq!(
        e.message, "`liv` is not a city: Liverpool is a starting town",
        "{e}"
    );
    let e = err("fly away");
    assert!(e.message.contains("not an order"));
    assert!(e.expected.iter().any(|x| x.contains("extend LINE HEX")));
    let e = err("extend GWR Z99");
    assert!(e.message.contains("off the map"), "{e}");
    let e = err("extend GWR 9F");
    assert!(e.message.contains("not a hex"), "{e}");
    let e = err("bid many E12");
    assert!(e.message.contains("not a number"));
    // A number too big to be a bid is still a number: it was "not a number
    // of shares".
    let e = err("bid 300 E12");
    assert_eq!(
        e.message,
        "`300` is more shares than there are: a line has 16; write `bid N HEX`"
    );
    let e = err("extend GWR");
    assert!(e.message.contains("incomplete"));
    let e = err("pass now");
    assert!(e.message.contains("unexpected `now`"));
    let e = err("");
    assert!(e.message.contains("empty"));
}

/// Every legal order's canonical text parses back to the same order, in
/// several phases of a game.
#[test]
fn grammar_every_legal_order_reads_back() {
    let mut g = veto_position(&[], &[]);
    let check = |g: &Rocket| {
        for s in 0..3 {
            for o in g.legal_orders(Seat(s)) {
                let text = g.order_text(&o);
                assert_eq!(g.parse_order(Seat(s), &text), Ok(o.clone()), "{text}");
            }
        }
    };
    check(&g);
    act(&mut g, "extend GWR F12");
    check(&g);
    order(&mut g, BELA, "veto");
    check(&g);
    assert!(g.legal_orders(ANDI).contains(&Order::Pass));
}
