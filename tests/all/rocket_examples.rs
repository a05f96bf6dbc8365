//! The worked examples of the Hungarian rule book (`seeds/004`), reproduced:
//! the veto round, the city, town and merger payments in real games on the
//! shipped board, and the end-of-game table line by line through the
//! scoring functions. Players are Andi, Béla and Cecil, seated in that
//! order, as in the examples.

use crate::common::*;
use stationmaster::engine::Game;
use stationmaster::rocket::scoring::{Money, majority, per_place};
use stationmaster::rocket::{Dir, Event, PaymentCause, Tile};

fn ks(v: &[Money]) -> Vec<u32> {
    v.iter().map(|m| m.pounds() / 1000).collect()
}

// ===== The veto round ==========================================================
//
// "Example: veto round – Cecil moves the green locomotive from S to B, then
// takes 1 share. Béla calls a veto round. Andi bids 1 share and moves the
// locomotive to A. Béla bids 2 shares and leaves the locomotive on A. If
// Cecil passes, leaving it on A, Béla must give 2 shares back to the bank;
// but if he bids 2 shares (his other option), he must give back 2 shares,
// but he moves the locomotive to B or C. Either way Cecil then lays a tile
// on S."
//
// On our board: GWR (green) stands on S = F13 facing north-east; in front
// are A = E12, B = F12 (straight on) and C = G13 (see `veto_position`).

/// Cecil's move, Béla's call, Andi's and Béla's bids: the common start.
fn veto_example_until_cecil_bids() -> stationmaster::rocket::Rocket {
    let mut g = veto_position(&[], &[]);
    // Cecil moves green from S to B and takes a share.
    let ev = act(&mut g, "extend GWR F12");
    assert!(has(&ev, |e| *e
        == Event::ShareTaken {
            player: CECIL,
            line: line(&g, "GWR")
        }));
    assert_eq!(shares(&g, CECIL, "GWR"), 2);
    assert_eq!(board_shares(&g, "GWR"), 11);
    // Béla calls a veto round; it starts on Cecil's left, with Andi.
    order(&mut g, BELA, "veto");
    assert_eq!(g.awaiting()[0].seat, ANDI);
    // Andi bids 1 and moves it to A.
    order(&mut g, ANDI, "bid 1 E12");
    assert_eq!(g.awaiting()[0].seat, BELA);
    // Béla bids 2 and leaves it on A.
    order(&mut g, BELA, "bid 2 E12");
    assert_eq!(g.awaiting()[0].seat, CECIL);
    // Cecil may pass, or equal with 2 and put it on A, B or C.
    assert_eq!(
        legal_lines(&g, CECIL),
        ["bid 2 E12", "bid 2 F12", "bid 2 G13", "pass"]
    );
    g
}

/// The tile Cecil lays on S = F13: from where GWR came in (south-west, E14)
/// to where it finally went.
fn tile_on_s(g: &stationmaster::rocket::Rocket, to: Dir) {
    let s = g.cell(hex("F13"));
    assert_eq!(s.track, Some(line(g, "GWR")));
    assert_eq!(s.tile, Some(Tile { from: Dir::SW, to }));
    assert_eq!(s.locomotive, None);
}

/// (a) Cecil passes: Béla wins, gives his 2 shares back to the board, and
/// the locomotive stays on A. Andi and Cecil keep theirs.
#[test]
fn example_veto_round_a_cecil_passes_and_bela_pays_two_shares() {
    let mut g = veto_example_until_cecil_bids();
    let ev = order(&mut g, CECIL, "pass");
    assert!(has(&ev, |e| *e
        == Event::VetoWon {
            player: BELA,
            line: line(&g, "GWR"),
            shares: 2,
            hex: hex("E12"),
            discarded: false
        }));
    assert_eq!(loco(&g, "GWR"), Some(hex("E12")));
    assert_eq!(
        [
            shares(&g, ANDI, "GWR"),
            shares(&g, BELA, "GWR"),
            shares(&g, CECIL, "GWR")
        ],
        [1, 0, 2]
    );
    assert_eq!(board_shares(&g, "GWR"), 13);
    // Cecil lays the tile on S: a gentle curve to A (north-west).
    tile_on_s(&g, Dir::NW);
    assert_eq!(g.line(line(&g, "GWR")).facing, Some(Dir::NW));
    assert_eq!((g.turn().active, g.turn().actions_left), (CECIL, 1));
}

/// (b) Cecil bids 2, equal to Béla's: as the active player that is enough.
/// He gives back 2 shares and puts the locomotive on C; Béla keeps his.
#[test]
fn example_veto_round_b_cecil_equals_and_puts_it_on_c() {
    let mut g = veto_example_until_cecil_bids();
    let ev = order(&mut g, CECIL, "bid 2 G13");
    assert!(has(&ev, |e| *e
        == Event::VetoWon {
            player: CECIL,
            line: line(&g, "GWR"),
            shares: 2,
            hex: hex("G13"),
            discarded: false
        }));
    assert_eq!(loco(&g, "GWR"), Some(hex("G13")));
    assert_eq!(
        [
            shares(&g, ANDI, "GWR"),
            shares(&g, BELA, "GWR"),
            shares(&g, CECIL, "GWR")
        ],
        [1, 2, 0]
    );
    assert_eq!(board_shares(&g, "GWR"), 13);
    tile_on_s(&g, Dir::E);
}

/// (b) again, Cecil putting it back on B, where he first moved it.
#[test]
fn example_veto_round_b_cecil_equals_and_puts_it_back_on_b() {
    let mut g = veto_example_until_cecil_bids();
    order(&mut g, CECIL, "bid 2 F12");
    assert_eq!(loco(&g, "GWR"), Some(hex("F12")));
    assert_eq!(
        [
            shares(&g, ANDI, "GWR"),
            shares(&g, BELA, "GWR"),
            shares(&g, CECIL, "GWR")
        ],
        [1, 2, 0]
    );
    tile_on_s(&g, Dir::NE);
}

// ===== Payments during the game ================================================

/// "Example: city scoring – Andi has the majority with 1 token, so he gets
/// £2,000." Andi takes one Manchester token; nobody else holds any; Cecil
/// connects Manchester with L&Y (B4).
#[test]
fn example_city_payment_a_majority_of_one_token_earns_2000() {
    let mut g = game(&ABC);
    act(&mut g, "token Manchester textiles"); // Andi
    turn_to(&mut g, CECIL);
    let ev = extend(&mut g, "L&Y B4");
    assert_eq!(
        payments(&ev),
        [(
            ANDI,
            2,
            PaymentCause::City {
                city: place(&g, "Manchester"),
                line: line(&g, "L&Y")
            }
        )]
    );
    assert_eq!(moneys(&g), [2, 0, 0]);
}

/// "Example: railway town scoring – Béla has the only station, so the
/// majority, and gets £3,000 for the 3 places." GWR runs from Bristol to
/// C14 (Gloucester) and D14 (Swindon), where Béla's station stands: GWR is
/// worth Bristol, Gloucester and Swindon.
#[test]
fn example_town_payment_the_only_station_earns_3000_for_3_places() {
    let mut g = game(&ABC);
    place_stations(&mut g, &[(BELA, "D14")]);
    turn_extend(&mut g, ANDI, "GWR C14");
    turn_to(&mut g, CECIL);
    let ev = extend(&mut g, "GWR D14");
    let gwr = line(&g, "GWR");
    assert_eq!(connected(&g, "GWR"), ["Bristol", "Gloucester", "Swindon"]);
    assert_eq!(
        payments(&ev),
        [(
            BELA,
            3,
            PaymentCause::Town {
                town: place(&g, "Swindon"),
                line: gwr
            }
        )]
    );
    assert_eq!(moneys(&g), [0, 3, 0]);
    // Cecil moved onto Béla's station: a passenger token for him.
    assert_eq!(g.player(CECIL).passengers, 1);
}

/// "Example: merger scoring – LSWR merges into GWR and dissolves. LSWR's
/// main shareholder gets £3,000 for the 3 places, the second £1,000." LSWR
/// (Southampton, Swindon, and Bristol, GWR's starting town where GWR's
/// locomotive still stands) moves next to GWR: Cecil holds 3 LSWR shares,
/// Béla 1 (half of £3,000, paid £1,000).
#[test]
fn example_merger_payment_lswr_into_gwr_3000_and_1000() {
    let mut g = game(&ABC);
    let ev = lswr_into_gwr(&mut g);
    let (lswr, gwr) = (line(&g, "LSWR"), line(&g, "GWR"));
    let cause = PaymentCause::Merger {
        dissolved: lswr,
        survivor: gwr,
    };
    assert_eq!(payments(&ev), [(BELA, 1, cause.clone()), (CECIL, 3, cause)]);
    assert_eq!(
        g.line(lswr).connected.len(),
        3,
        "Southampton, Swindon, Bristol"
    );
    assert_eq!(moneys(&g), [0, 1, 3]);
}

// ===== The end-of-game table =====================================================
//
//                        Andi          Béla          Cecil
// Tokens   steel         3    3000     2       0     4    6000
//          textiles      4    6000     2    1000     2    1000
//          brewing       3    3000     3    3000     3    3000
//          leather       2    1000     3    6000     2    1000
//          passengers    3    6000     1    3000     0       0
// NER  13 places  stations 2  3000     2    3000     3   13000
//                 shares   3  6000     4   13000     2       0
// L&Y  merged: no payment
// LNWR  4 places  stations 0     0     2    4000     1    2000
//                 shares   3  4000     1       0     2    2000
// GER  merged: no payment
// GWR  12 places  stations 3 12000     2    6000     1       0
//                 shares   2     0     3    6000     5   12000
// LSWR merged, SER merged: no payment
// Earned at the end          44000        45000        40000
// Earned during the game     28000        30000        25000
// In all                     72000        75000        65000

/// The tokens: each type pays £6,000 to the most and £3,000 to the second.
#[test]
fn example_end_table_tokens() {
    let row = |counts: [u32; 3]| ks(&majority(&counts, 6000, 3000));
    assert_eq!(row([3, 2, 4]), [3, 0, 6], "steel");
    assert_eq!(row([4, 2, 2]), [6, 1, 1], "textiles");
    assert_eq!(row([3, 3, 3]), [3, 3, 3], "brewing");
    assert_eq!(row([2, 3, 2]), [1, 6, 1], "leather");
    assert_eq!(row([3, 1, 0]), [6, 3, 0], "passengers");
}

/// The lines not dissolved: stations and shares, £1,000 per place to the
/// most, half to the second.
#[test]
fn example_end_table_stations_and_shares() {
    assert_eq!(ks(&per_place(&[2, 2, 3], 13)), [3, 3, 13], "NER stations");
    assert_eq!(ks(&per_place(&[3, 4, 2], 13)), [6, 13, 0], "NER shares");
    assert_eq!(ks(&per_place(&[0, 2, 1], 4)), [0, 4, 2], "LNWR stations");
    assert_eq!(ks(&per_place(&[3, 1, 2], 4)), [4, 0, 2], "LNWR shares");
    assert_eq!(ks(&per_place(&[3, 2, 1], 12)), [12, 6, 0], "GWR stations");
    assert_eq!(ks(&per_place(&[2, 3, 5], 12)), [0, 6, 12], "GWR shares");
}

/// The sums: 44,000 / 45,000 / 40,000 at the end; with 28,000 / 30,000 /
/// 25,000 earned during the game, 72,000 / 75,000 / 65,000 in all: Béla
/// wins.
#[test]
fn example_end_table_totals() {
    let tokens = [
        majority(&[3, 2, 4], 6000, 3000),
        majority(&[4, 2, 2], 6000, 3000),
        majority(&[3, 3, 3], 6000, 3000),
        majority(&[2, 3, 2], 6000, 3000),
        majority(&[3, 1, 0], 6000, 3000),
    ];
    let lines = [
        per_place(&[2, 2, 3], 13),
        per_place(&[3, 4, 2], 13),
        per_place(&[0, 2, 1], 4),
        per_place(&[3, 1, 2], 4),
        per_place(&[3, 2, 1], 12),
        per_place(&[2, 3, 5], 12),
    ];
    let mut end = [Money::ZERO; 3];
    for row in tokens.iter().chain(lines.iter()) {
        for (sum, pay) in end.iter_mut().zip(row) {
            *sum += *pay;
        }
    }
    assert_eq!(ks(&end), [44, 45, 40]);
    let during = [
        Money::thousands(28),
        Money::thousands(30),
        Money::thousands(25),
    ];
    let total: Vec<Money> = end.iter().zip(&during).map(|(a, b)| *a + *b).collect();
    assert_eq!(ks(&total), [72, 75, 65]);
    let winner = (0..3).max_by_key(|i| total[*i]).unwrap();
    assert_eq!(ABC[winner], "Béla");
}
