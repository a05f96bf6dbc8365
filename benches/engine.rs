//! Engine benchmark: complete random 4-player games of Stephenson's Rocket
//! and of Linie 1 on one core, random 6-player games of Linie 1 (the most
//! the rule book seats), and the time of one Rocket `extend` with its
//! isolation checks.
//!
//! Run with `cargo bench --bench engine`. The last lines compare each
//! game's median with its target (a full random game in at most 1 ms for
//! Rocket, 2 ms for Linie 1) and each figure with the one last recorded
//! in docs/performance.md ([`LAST_RECORDED`]).
//!
//! Method: games are played through the public `Game` trait only. Each
//! step asks `awaiting()` whom the game waits for, lists that player's
//! `legal_orders`, picks one with the policy of `tests/all/rocket_playouts.rs`
//! (an order kind first, extensions weighted double, then an order of that
//! kind), and `apply`s it; `apply` runs the built-in isolation checks of
//! every line after each action. Nothing else is timed: no invariant
//! checks, no JSON views, no illegal "wild" orders. Set-up (board parsing)
//! happens before the clock starts; a clone of a fresh game is timed.
//!
//! Linie 1, the same way, with the policy of `tests/all/linie1_playouts.rs`
//! (a trip is started whenever the route check allows it, else an order
//! form first, then an order of that form). Random lays almost never build
//! a player's route, so such a game is laid until the supply is empty and
//! ends by the rules' end for a game nobody can go on with (Stationmaster
//! ruling 1: a round of passes, or nobody able to lay, start or move):
//! that game, every tile on the board, is the figure. A second set of
//! games gives seat 1 a finished route at the start (through the snapshot,
//! with `tests/support/linie1_route.rs`, as the playout tests do), so a trip is started and driven by
//! the same random policy; it is printed beside it. A third set plays
//! 6-player games from the start, held to the same 2 ms target. A last
//! pass times `legal_orders` and `apply` separately, by phase, to show what
//! dominates.

mod common;
// Linie 1 with a route built, shared with the tests.
#[path = "../tests/support/linie1_route.rs"]
mod linie1_route;

use std::time::{Duration, Instant};

use common::{ms, pick, quantile, us};
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, Seat, Status};
use stationmaster::linie1::{self, Components, Linie1, Phase};
use stationmaster::rocket::{Board, Event, Order, Rocket};

const TARGET_MS: f64 = 1.0;
const L1_TARGET_MS: f64 = 2.0;

/// The figures last recorded in docs/performance.md ("1. Engine"), with
/// the commit and machine they were measured on. Each run prints its own
/// figures against them, so a change that makes the engine slower shows
/// as a ratio above 1 (single runs on the shared machine vary by 10 to
/// 20 %). Update them with the docs when a change moves the figures.
struct Recorded {
    commit: &'static str,
    /// Median random 4-player Rocket game, ms.
    rocket_ms: f64,
    /// Median `extend` with its isolation checks, µs.
    extend_us: f64,
    /// Median random 4-player Linie 1 game from the start, ms.
    linie1_ms: f64,
    /// Median random 6-player Linie 1 game from the start, ms, and the
    /// commit it was first measured at (issue 35).
    linie1_6_ms: (f64, &'static str),
}

const LAST_RECORDED: Recorded = Recorded {
    commit: "4e5e43f",
    rocket_ms: 0.76,
    extend_us: 3.20,
    linie1_ms: 1.28,
    linie1_6_ms: (1.25, "4e5e43f"),
};

/// `now` against the recorded `then`, as printed.
fn against(now: f64, then: f64, unit: &str) -> String {
    against_at(now, (then, LAST_RECORDED.commit), unit)
}

/// `now` against `then` recorded at a commit of its own.
fn against_at(now: f64, (then, commit): (f64, &str), unit: &str) -> String {
    format!(
        "{:.2}x the last recorded {then} {unit} (at {commit})",
        now / then
    )
}
const L1_WARMUP_GAMES: u64 = 50;
const L1_MIN_GAMES: u64 = 500;
/// Games with a built route, and games timed call by call.
const L1_ROUTE_GAMES: u64 = 500;
const L1_PROFILE_GAMES: u64 = 200;
/// A game still going after this many orders is left out (and counted):
/// a driver picking among the listed moves at random can circle a loop
/// for a long time (the limit of `tests/all/linie1_playouts.rs`).
const L1_MAX_ORDERS: usize = 4000;
const WARMUP_GAMES: u64 = 200;
const MIN_GAMES: u64 = 2000;
const MIN_TIME: Duration = Duration::from_secs(5);

fn new_game(players: usize, seed: u64) -> Rocket {
    Rocket::new(
        Board::embedded().expect("the shipped board"),
        &common::setup(players, seed, ""),
    )
    .expect("a 4-player game")
}

/// What one game measured.
struct Played {
    time: Duration,
    orders: usize,
}

/// Plays one random game to its end. With `extends`, also times every
/// `apply` of an extension that resolved in the same call (no veto question
/// asked), which therefore ran the isolation checks.
fn play(fresh: &Rocket, seed: u64, extends: Option<&mut Vec<Duration>>) -> Played {
    let mut rng = SplitMix64::new(seed ^ 0x5eed);
    let mut orders = 0;
    let mut extends = extends;
    let start = Instant::now();
    let mut g = fresh.clone();
    loop {
        let awaited = g.awaiting();
        if awaited.is_empty() {
            break;
        }
        let seat: Seat = awaited[rng.below(awaited.len())].seat;
        let legal = g.legal_orders(seat);
        let order = &legal[pick(&mut rng, &legal)];
        match (&mut extends, order) {
            (Some(times), Order::Extend { .. }) => {
                let t = Instant::now();
                let events = g.apply(seat, order).expect("a legal order applies");
                let dt = t.elapsed();
                if !events.iter().any(|e| matches!(e, Event::VetoAsked { .. })) {
                    times.push(dt);
                }
            }
            _ => {
                g.apply(seat, order).expect("a legal order applies");
            }
        }
        orders += 1;
        assert!(orders < 20_000, "seed {seed}: the game did not end");
    }
    let time = start.elapsed();
    assert!(matches!(g.status(), Status::Finished(_)));
    Played { time, orders }
}

// ------------------------------------------------------------- Linie 1

fn l1_new(players: usize, seed: u64) -> Linie1 {
    Linie1::new(
        Components::embedded().expect("the shipped components"),
        &common::setup_of("linie1", players, seed, ""),
    )
    .expect("a Linie 1 game")
}

/// Random games from the fresh games `fresh` (by seed), at least
/// [`L1_MIN_GAMES`] and [`MIN_TIME`], printed as `what`; the median.
fn l1_from_the_start(what: &str, fresh: &[Linie1]) -> Duration {
    let (mut played, mut unended) = (Vec::new(), 0);
    let started = Instant::now();
    let mut seed = 1_000_000u64;
    let n = fresh.len() as u64;
    while (played.len() as u64) < L1_MIN_GAMES || started.elapsed() < MIN_TIME {
        match l1_play(&fresh[(seed % n) as usize], seed, None) {
            Some(p) => played.push(p),
            None => unended += 1,
        }
        seed += 1;
    }
    l1_report(what, &played, unended, started.elapsed())
}

/// What one Linie 1 game measured.
struct L1Played {
    time: Duration,
    orders: usize,
    /// A trip was started.
    started: bool,
    /// It ended by a trip finished.
    won: bool,
    /// Tiles on the board at the end.
    board: usize,
}

/// Time spent in each call, by phase, over many games.
#[derive(Default)]
struct L1Profile {
    /// `legal_orders`: laying the first tile of a turn (which includes the
    /// route check for a start), the second tile, drawing, driving.
    legal: [Duration; 4],
    calls: [usize; 4],
    orders_listed: [usize; 4],
    most_listed: usize,
    apply: Duration,
    applies: usize,
    awaiting: Duration,
}

const L1_PHASES: [&str; 4] = [
    "laying the 1st tile (with the route check)",
    "laying the 2nd tile",
    "drawing",
    "driving",
];

/// Plays one random game to its end, or None if it has not ended after
/// [`L1_MAX_ORDERS`] orders.
fn l1_play(fresh: &Linie1, seed: u64, mut prof: Option<&mut L1Profile>) -> Option<L1Played> {
    let mut rng = SplitMix64::new(seed ^ 0x11e1);
    let mut orders = 0;
    let mut started = false;
    let start = Instant::now();
    let mut g = fresh.clone();
    loop {
        let t = Instant::now();
        let awaited = g.awaiting();
        if let Some(p) = prof.as_deref_mut() {
            p.awaiting += t.elapsed();
        }
        if awaited.is_empty() {
            break;
        }
        let seat: Seat = awaited[rng.below(awaited.len())].seat;
        let phase = match g.phase() {
            Phase::Lay { laid: 0 } => 0,
            Phase::Lay { .. } => 1,
            Phase::Draw { .. } => 2,
            _ => 3,
        };
        let t = Instant::now();
        let legal = g.legal_orders(seat);
        if let Some(p) = prof.as_deref_mut() {
            p.legal[phase] += t.elapsed();
            p.calls[phase] += 1;
            p.orders_listed[phase] += legal.len();
            p.most_listed = p.most_listed.max(legal.len());
        }
        let order = &legal[common::pick_linie1(&mut rng, &legal)];
        started |= matches!(order, linie1::Order::Start { .. });
        let t = Instant::now();
        g.apply(seat, order).expect("a legal order applies");
        if let Some(p) = prof.as_deref_mut() {
            p.apply += t.elapsed();
            p.applies += 1;
        }
        orders += 1;
        if orders >= L1_MAX_ORDERS {
            return None;
        }
    }
    let time = start.elapsed();
    assert!(matches!(g.status(), Status::Finished(_)));
    let d = g.data();
    let board = (0..d.square_count())
        .filter(|i| g.laid(d.square_at(*i)).is_some())
        .count();
    Some(L1Played {
        time,
        orders,
        started,
        won: g.outcome().is_some_and(|o| o.winner.is_some()),
        board,
    })
}

/// Median and spread of a set of Linie 1 games, printed; returns the
/// median game time.
fn l1_report(what: &str, played: &[L1Played], unended: usize, wall: Duration) -> Duration {
    let mut times: Vec<Duration> = played.iter().map(|p| p.time).collect();
    let total: Duration = times.iter().sum();
    let med = common::median(&times);
    times.sort();
    let mut orders: Vec<usize> = played.iter().map(|p| p.orders).collect();
    orders.sort_unstable();
    let mut board: Vec<usize> = played.iter().map(|p| p.board).collect();
    board.sort_unstable();
    let n = played.len();
    println!(
        "  {what}: {n} games in {:.2} s: {:.0} games/s; orders per game: median {}, min {}, max {}; tiles on the board at the end: median {}",
        wall.as_secs_f64(),
        n as f64 / total.as_secs_f64(),
        orders[n / 2],
        orders[0],
        orders[n - 1],
        board[n / 2],
    );
    println!(
        "    ended by a trip finished: {} of {n}; a trip started in {}; the rest ended with no winner (blocked); left out, not ended after {L1_MAX_ORDERS} orders: {unended}",
        played.iter().filter(|p| p.won).count(),
        played.iter().filter(|p| p.started).count(),
    );
    println!(
        "    game time: median {:.3} ms, p10 {:.3} ms, p90 {:.3} ms, max {:.3} ms; per order {:.2} us",
        ms(med),
        ms(quantile(&times, 0.1)),
        ms(quantile(&times, 0.9)),
        ms(times[n - 1]),
        us(total) / orders.iter().sum::<usize>() as f64
    );
    med
}

/// The Linie 1 medians: 4 players from the start, with a route built,
/// and 6 players from the start.
struct L1Medians {
    four: Duration,
    route: Duration,
    six: Duration,
}

fn linie1_bench() -> L1Medians {
    println!("engine: complete random 4-player Linie 1 games (default options: 2-stop routes)");
    println!(
        "  per step: awaiting() -> legal_orders(seat) -> pick (start if possible, else form first) -> apply"
    );
    let fresh: Vec<Linie1> = (0..4).map(|s| l1_new(4, s)).collect();
    let routed: Vec<Linie1> = fresh.iter().map(linie1_route::linie1_with_route).collect();
    for seed in 0..L1_WARMUP_GAMES {
        l1_play(&fresh[(seed % 4) as usize], seed, None);
    }

    // 1. Whole games from the start.
    let med = l1_from_the_start("from the start", &fresh);

    // 2. Seat 1's route built beforehand: a trip is driven.
    let started = Instant::now();
    let (mut played, mut unended) = (Vec::new(), 0);
    for s in 0..L1_ROUTE_GAMES {
        match l1_play(&routed[(s % 4) as usize], 3_000_000 + s, None) {
            Some(p) => played.push(p),
            None => unended += 1,
        }
    }
    let med_route = l1_report(
        "seat 1's route built beforehand",
        &played,
        unended,
        started.elapsed(),
    );

    // 3. Six players, the most the rule book seats (six trams), from the
    // start: a smaller supply (126 - 5 x 6), more hands to list.
    let six: Vec<Linie1> = (0..6).map(|s| l1_new(6, s)).collect();
    let med_six = l1_from_the_start("6 players, from the start", &six);

    // 4. Where the time goes, call by call (the clock reads add a little).
    let mut prof = L1Profile::default();
    for s in 0..L1_PROFILE_GAMES {
        l1_play(&fresh[(s % 4) as usize], 1_000_000 + s, Some(&mut prof));
    }
    let total = prof.legal.iter().sum::<Duration>() + prof.apply + prof.awaiting;
    println!(
        "  call by call, over {L1_PROFILE_GAMES} games from the start: legal_orders {:.0} %, apply {:.0} %, awaiting {:.0} % of {:.1} ms",
        100.0 * prof.legal.iter().sum::<Duration>().as_secs_f64() / total.as_secs_f64(),
        100.0 * prof.apply.as_secs_f64() / total.as_secs_f64(),
        100.0 * prof.awaiting.as_secs_f64() / total.as_secs_f64(),
        ms(total)
    );
    for (i, name) in L1_PHASES.iter().enumerate() {
        if prof.calls[i] == 0 {
            continue;
        }
        println!(
            "    legal_orders {name}: {} calls, {:.1} us each, {:.0} orders listed on average",
            prof.calls[i],
            us(prof.legal[i]) / prof.calls[i] as f64,
            prof.orders_listed[i] as f64 / prof.calls[i] as f64,
        );
    }
    println!(
        "    apply: {} calls, {:.1} us each; the longest list: {} orders",
        prof.applies,
        us(prof.apply) / prof.applies.max(1) as f64,
        prof.most_listed
    );
    L1Medians {
        four: med,
        route: med_route,
        six: med_six,
    }
}

fn main() {
    println!("engine: complete random 4-player Rocket games on one core (one thread)");
    println!(
        "  per step: awaiting() -> legal_orders(seat) -> pick (kind first, extend x2) -> apply;"
    );
    println!("  apply includes the isolation checks of every line after each action;");
    println!("  not timed: board set-up, invariant checks, JSON views, illegal orders");

    // Fresh games for four seeds, so the starting player varies; cloning
    // one is part of each game's time.
    let fresh: Vec<Rocket> = (0..4).map(|s| new_game(4, s)).collect();

    for seed in 0..WARMUP_GAMES {
        play(&fresh[(seed % 4) as usize], seed, None);
    }

    // 1. Whole games.
    let mut times = Vec::new();
    let mut orders = Vec::new();
    let started = Instant::now();
    let mut seed = 1_000_000u64;
    while (times.len() as u64) < MIN_GAMES || started.elapsed() < MIN_TIME {
        let p = play(&fresh[(seed % 4) as usize], seed, None);
        times.push(p.time);
        orders.push(p.orders);
        seed += 1;
    }
    let wall = started.elapsed();
    let total: Duration = times.iter().sum();
    let games = times.len();
    let med = common::median(&times);
    times.sort();
    orders.sort_unstable();
    let per_sec = games as f64 / total.as_secs_f64();
    println!(
        "  {games} games in {:.2} s: {per_sec:.0} games/s; orders per game: median {}, min {}, max {}",
        wall.as_secs_f64(),
        orders[orders.len() / 2],
        orders[0],
        orders[orders.len() - 1]
    );
    println!(
        "  game time: median {:.3} ms, p10 {:.3} ms, p90 {:.3} ms, max {:.3} ms; per order {:.2} us",
        ms(med),
        ms(quantile(&times, 0.1)),
        ms(quantile(&times, 0.9)),
        ms(times[times.len() - 1]),
        us(total) / orders.iter().sum::<usize>() as f64
    );

    // 2. One extend with its isolation checks.
    let mut ext = Vec::new();
    for seed in 0..1000u64 {
        play(
            &fresh[(seed % 4) as usize],
            2_000_000 + seed,
            Some(&mut ext),
        );
    }
    let med_ext = common::median(&ext);
    ext.sort();
    println!(
        "  extend (resolved at once, so including every line's isolation check): {} timed; median {:.2} us, p90 {:.2} us, max {:.2} us",
        ext.len(),
        us(med_ext),
        us(quantile(&ext, 0.9)),
        us(ext[ext.len() - 1])
    );
    let l1 = linie1_bench();
    println!(
        "engine: median random 4-player game {:.3} ms (target {TARGET_MS} ms): {:.2}x target; {}",
        ms(med),
        ms(med) / TARGET_MS,
        against(ms(med), LAST_RECORDED.rocket_ms, "ms")
    );
    println!(
        "engine: median extend with its isolation checks {:.2} us: {}",
        us(med_ext),
        against(us(med_ext), LAST_RECORDED.extend_us, "us")
    );
    println!(
        "engine: median random 4-player Linie 1 game {:.3} ms (target {L1_TARGET_MS} ms): {:.2}x target; {}; with a route built beforehand {:.3} ms: {:.2}x target",
        ms(l1.four),
        ms(l1.four) / L1_TARGET_MS,
        against(ms(l1.four), LAST_RECORDED.linie1_ms, "ms"),
        ms(l1.route),
        ms(l1.route) / L1_TARGET_MS
    );
    println!(
        "engine: median random 6-player Linie 1 game {:.3} ms (target {L1_TARGET_MS} ms): {:.2}x target; {}",
        ms(l1.six),
        ms(l1.six) / L1_TARGET_MS,
        against_at(ms(l1.six), LAST_RECORDED.linie1_6_ms, "ms")
    );
}
