//! Engine benchmark: complete random 4-player games of Stephenson's Rocket
//! on one core, and the time of one `extend` with its isolation checks.
//!
//! Run with `cargo bench --bench engine`. The last line compares the median
//! game with the target (a full random game in at most 1 ms).
//!
//! Method: games are played through the public `Game` trait only. Each
//! step asks `awaiting()` whom the game waits for, lists that player's
//! `legal_orders`, picks one with the policy of `tests/all/rocket_playouts.rs`
//! (an order kind first, extensions weighted double, then an order of that
//! kind), and `apply`s it; `apply` runs the built-in isolation checks of
//! every line after each action. Nothing else is timed: no invariant
//! checks, no JSON views, no illegal "wild" orders. Set-up (board parsing)
//! happens before the clock starts; a clone of a fresh game is timed.

mod common;

use std::time::{Duration, Instant};

use common::{ms, pick, quantile, us};
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, Seat, Status};
use stationmaster::rocket::{Board, Event, Order, Rocket};

const TARGET_MS: f64 = 1.0;
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
    println!("  Linie 1: not implemented yet; nothing to measure");
    println!(
        "engine: median random 4-player game {:.3} ms (target {TARGET_MS} ms): {:.2}x target",
        ms(med),
        ms(med) / TARGET_MS
    );
}
