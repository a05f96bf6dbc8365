//! Bot benchmark (issue 36, point 2): the engine's bot (`engine::bot`)
//! against three random players and against three one-ply greedy
//! players, in 4-player games of Stephenson's Rocket and of Linie 1; its
//! win rate and mean placing with their 95 % intervals, and the time of
//! its moves, against the targets.
//!
//! Run with `cargo bench --bench bots`. The targets: over 1,000 games of
//! each kind, the bot wins at least 80 % against three random players
//! and at least 40 % against three greedy ones; its median move at most
//! 200 ms and its 99th percentile at most 2 s on one core, at the
//! default setting ([`Settings::default`]).
//!
//! Method. Game `i` of a set has the seed `SEED + i` and the bot in seat
//! `i mod 4`, so every seat is the bot's in a quarter of the games (and
//! in Rocket, whose seed picks the first player, the bot starts in about
//! a quarter). Each step asks `awaiting()` whom the game waits for and
//! picks one of them at random (the driver's own generator, seeded by the
//! game's seed); the bot's seat asks `bot::choose` with
//! `bot::seed(game seed, orders so far, seat)`, every other seat its
//! baseline:
//! - random: an order of `legal_orders` uniformly at random;
//! - greedy: every legal order applied to a copy of the game as the seat
//!   may know it (`Game::determinize`, as the bot reads it: a copy of the
//!   game itself would show a Linie 1 player the tile the supply gives
//!   next), and the one after which the game's own `estimate` of the seat
//!   itself is highest (Rocket: money plus what the end-game scoring
//!   would pay now; Linie 1: how far its route is built or its trip
//!   driven), ties broken at random. A player's estimate of itself reads
//!   its own secrets only.
//!
//! A win is a first place, shared or not (Linie 1 has one winner or
//! none). The intervals: Wilson's for the win rate, the normal one for
//! the mean placing. Move times are each `bot::choose` call's own, read
//! as the thread's CPU time (`/proc/thread-self/schedstat`), so other
//! work on the machine does not count, and as wall time beside it; every
//! move of the bot counts, those with one order open (answered without
//! a search) included, and the figures of the searched ones alone are
//! printed beside. With `SM_BENCH_THREADS=2` (the default) two games are
//! played at once, one a thread, each move still timed alone on its own
//! thread.
//!
//! Smaller runs: `SM_BENCH_GAMES=N` (games per set, default 1,000),
//! `SM_BENCH_FIRST=I` (the first game's index, default 0: a set split
//! between processes or machines plays the same games),
//! `SM_BENCH_KINDS=rocket,linie1`, `SM_BENCH_OPPONENTS=random,greedy`,
//! `SM_BENCH_THREADS=N`; the bot's setting for tuning:
//! `SM_BOT_ITERATIONS`, `SM_BOT_ROLLOUT`, `SM_BOT_EXPLORATION`,
//! `SM_BOT_PROGRESS`, `SM_BOT_WIDEN_BASE`, `SM_BOT_WIDEN_POWER`,
//! `SM_BOT_OTHERS_WIDTH`, `SM_BOT_OTHERS_IN_TREE` (each default:
//! [`Settings::default`]). `SM_BENCH_TRACE=1` prints a line a game: the
//! winner, and how many of the bot's moves fell short of the best order
//! by its own estimate one order ahead (what a greedy player plays).

mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{ms, quantile};
use stationmaster::engine::bot::{self, Settings};
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, Seat, Status};
use stationmaster::linie1::{Components, Linie1};
use stationmaster::rocket::{Board, Rocket};

const PLAYERS: usize = 4;
const SEED: u64 = 36_000;
/// A game still going after this many orders is counted unfinished (and
/// not a win).
const MAX_ORDERS: usize = 6000;
const WIN_TARGET_RANDOM: f64 = 0.80;
const WIN_TARGET_GREEDY: f64 = 0.40;
const MEDIAN_TARGET_MS: f64 = 200.0;
const P99_TARGET_MS: f64 = 2000.0;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Opponent {
    Random,
    Greedy,
}

impl Opponent {
    fn name(self) -> &'static str {
        match self {
            Opponent::Random => "random",
            Opponent::Greedy => "greedy",
        }
    }
}

/// One bot move's time.
#[derive(Clone, Copy)]
struct MoveTime {
    cpu: Duration,
    wall: Duration,
    /// More than one order was open: the search ran.
    searched: bool,
}

/// One game as the bot played it.
struct Played {
    /// The bot's place, or None for a game not over after
    /// [`MAX_ORDERS`].
    place: Option<u8>,
    /// Somebody placed first (Linie 1: a trip was finished).
    won_by_anyone: bool,
    orders: usize,
    moves: Vec<MoveTime>,
    /// With `SM_BENCH_TRACE`: the winner's seat, and of the bot's searched
    /// moves those whose own estimate one order ahead fell short of the
    /// best one (what a greedy player would have reached), with the sum
    /// of the shortfalls.
    trace: Option<(Option<Seat>, usize, usize, i64)>,
}

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn settings() -> Settings {
    let d = Settings::default();
    Settings {
        iterations: env_or("SM_BOT_ITERATIONS", d.iterations),
        rollout: env_or("SM_BOT_ROLLOUT", d.rollout),
        exploration: env_or("SM_BOT_EXPLORATION", d.exploration),
        progress: std::env::var("SM_BOT_PROGRESS")
            .ok()
            .and_then(|v| v.parse().ok())
            .or(d.progress),
        widen_base: env_or("SM_BOT_WIDEN_BASE", d.widen_base),
        widen_power: env_or("SM_BOT_WIDEN_POWER", d.widen_power),
        others_width: std::env::var("SM_BOT_OTHERS_WIDTH")
            .ok()
            .and_then(|v| v.parse().ok())
            .or(d.others_width),
        others_in_tree: env_or("SM_BOT_OTHERS_IN_TREE", d.others_in_tree),
    }
}

/// The greedy baseline's order for `seat`: the best own estimate after
/// it, ties at random. It reads the game as the bot does, through
/// [`Game::determinize`] for its seat: an order applied to a copy of the
/// game itself would see what no player may know (a Linie 1 `draw
/// supply` on a copy draws the very tile the game will draw next).
fn greedy<G: Game>(g: &G, seat: Seat, legal: &[G::Order], rng: &mut SplitMix64) -> usize {
    let world = g.determinize(seat, rng);
    let mut best: Vec<usize> = Vec::new();
    let mut top = i64::MIN;
    for (i, o) in legal.iter().enumerate() {
        let mut after = world.clone();
        if after.apply(seat, o).is_err() {
            continue;
        }
        let e = after.estimate(seat).unwrap_or(0);
        if e > top {
            top = e;
            best.clear();
        }
        if e == top {
            best.push(i);
        }
    }
    if best.is_empty() {
        return rng.below(legal.len());
    }
    best[rng.below(best.len())]
}

/// Plays `fresh` to its end with the bot in `bot_seat`.
fn play<G: Game>(
    fresh: &G,
    game_seed: u64,
    bot_seat: Seat,
    opponent: Opponent,
    settings: &Settings,
) -> Played {
    let mut g = fresh.clone();
    let mut rng = SplitMix64::new(game_seed ^ 0xb075);
    let mut moves = Vec::new();
    let mut orders = 0;
    let tracing = std::env::var_os("SM_BENCH_TRACE").is_some();
    let (mut short, mut shortfall) = (0usize, 0i64);
    while orders < MAX_ORDERS {
        let awaited = g.awaiting();
        if awaited.is_empty() {
            break;
        }
        let seat = awaited[rng.below(awaited.len())].seat;
        let order = if seat == bot_seat {
            let (c, w) = (common::thread_cpu(), Instant::now());
            let d = bot::choose(
                &g,
                seat,
                bot::seed(game_seed, orders as u64, seat),
                settings,
            )
            .expect("the bot has an order for an awaited seat");
            moves.push(MoveTime {
                cpu: common::thread_cpu().saturating_sub(c),
                wall: w.elapsed(),
                searched: !d.candidates.is_empty(),
            });
            if tracing && !d.candidates.is_empty() {
                // Its own generator: tracing must not change the game.
                let world = g.determinize(seat, &mut SplitMix64::new(orders as u64));
                let one_ahead = |o: &G::Order| {
                    let mut after = world.clone();
                    after.apply(seat, o).ok().and_then(|_| after.estimate(seat))
                };
                let best = g.legal_orders(seat).iter().filter_map(one_ahead).max();
                if let (Some(b), Some(e)) = (best, one_ahead(&d.order))
                    && e < b
                {
                    short += 1;
                    shortfall += b - e;
                }
            }
            d.order
        } else {
            let legal = g.legal_orders(seat);
            let i = match opponent {
                Opponent::Random => rng.below(legal.len()),
                Opponent::Greedy => greedy(&g, seat, &legal, &mut rng),
            };
            legal[i].clone()
        };
        g.apply(seat, &order).expect("a legal order applies");
        orders += 1;
    }
    let (place, won_by_anyone) = match g.status() {
        Status::Finished(placings) => (
            placings
                .iter()
                .find(|p| p.seat == bot_seat)
                .map(|p| p.place),
            placings.iter().any(|p| p.place == 1),
        ),
        Status::Active(_) => (None, false),
    };
    let winner = match g.status() {
        Status::Finished(placings) => placings.iter().find(|p| p.place == 1).map(|p| p.seat),
        Status::Active(_) => None,
    };
    let searched = moves.iter().filter(|m| m.searched).count();
    Played {
        place,
        won_by_anyone,
        orders,
        moves,
        trace: tracing.then_some((winner, searched, short, shortfall)),
    }
}

/// Plays a set of `n` games from game `first` on `threads` threads; the
/// results by game.
fn play_set<G: Game>(
    make: &(dyn Fn(u64) -> G + Sync),
    (first, n): (usize, usize),
    threads: usize,
    opponent: Opponent,
    settings: &Settings,
) -> Vec<Played> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Played>>> = Mutex::new((0..n).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        return;
                    }
                    let g = first + i;
                    let seed = SEED + g as u64;
                    let game = make(seed);
                    let seat = Seat((g % PLAYERS) as u8);
                    let p = play(&game, seed, seat, opponent, settings);
                    if let Some((winner, searched, short, shortfall)) = p.trace {
                        println!(
                            "trace: game {g} bot seat {} winner {:?} orders {} searched {searched} \
                             short of greedy {short} by {shortfall}",
                            seat.0,
                            winner.map(|w| w.0),
                            p.orders,
                        );
                    }
                    if let Ok(mut v) = out.lock() {
                        v[i] = Some(p);
                    }
                }
            });
        }
    });
    out.into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// Wilson's 95 % interval of `k` successes in `n`.
fn wilson(k: usize, n: usize) -> (f64, f64) {
    let (k, n, z) = (k as f64, n as f64, 1.96f64);
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    (centre - half, centre + half)
}

/// The median and 99th percentile of `times`, in ms.
fn spread(times: &[Duration]) -> (f64, f64) {
    if times.is_empty() {
        return (0.0, 0.0);
    }
    (ms(quantile(times, 0.5)), ms(quantile(times, 0.99)))
}

/// What one set's report says against the targets.
struct Verdict {
    win: f64,
    median_ms: f64,
    p99_ms: f64,
}

fn report(kind: &str, opponent: Opponent, played: &[Played], wall: Duration) -> Verdict {
    let n = played.len();
    let wins = played.iter().filter(|p| p.place == Some(1)).count();
    let (lo, hi) = wilson(wins, n);
    let places: Vec<f64> = played
        .iter()
        .filter_map(|p| p.place.map(f64::from))
        .collect();
    let mean = places.iter().sum::<f64>() / places.len().max(1) as f64;
    let var =
        places.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (places.len().max(2) - 1) as f64;
    let half = 1.96 * (var / places.len().max(1) as f64).sqrt();
    let nobody = played.iter().filter(|p| !p.won_by_anyone).count();
    let unfinished = played.iter().filter(|p| p.place.is_none()).count();
    let mut orders: Vec<usize> = played.iter().map(|p| p.orders).collect();
    orders.sort_unstable();
    let all: Vec<&MoveTime> = played.iter().flat_map(|p| &p.moves).collect();
    let cpu: Vec<Duration> = all.iter().map(|m| m.cpu).collect();
    let wall_t: Vec<Duration> = all.iter().map(|m| m.wall).collect();
    let searched: Vec<Duration> = all.iter().filter(|m| m.searched).map(|m| m.cpu).collect();
    let (med, p99) = spread(&cpu);
    let (wmed, wp99) = spread(&wall_t);
    let (smed, sp99) = spread(&searched);
    let win = wins as f64 / n.max(1) as f64;
    println!(
        "  {kind} vs 3 {}: {n} games in {:.0} s; bot wins {wins} ({:.1} %, 95 % {:.1} to {:.1} %); \
         mean placing {mean:.2} ± {half:.2}",
        opponent.name(),
        wall.as_secs_f64(),
        100.0 * win,
        100.0 * lo,
        100.0 * hi,
    );
    println!(
        "    games with no winner {nobody}, not over after {MAX_ORDERS} orders {unfinished}; \
         orders a game: median {}, max {}",
        orders[n / 2],
        orders[n - 1]
    );
    println!(
        "    bot moves {} ({} searched): CPU median {med:.1} ms, p99 {p99:.1} ms, max {:.1} ms; \
         wall median {wmed:.1} ms, p99 {wp99:.1} ms; searched alone: median {smed:.1} ms, p99 {sp99:.1} ms",
        cpu.len(),
        searched.len(),
        cpu.iter().max().map_or(0.0, |d| ms(*d)),
    );
    Verdict {
        win,
        median_ms: med,
        p99_ms: p99,
    }
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "NOT MET" }
}

fn main() {
    let games: usize = env_or("SM_BENCH_GAMES", 1000);
    let first: usize = env_or("SM_BENCH_FIRST", 0);
    let threads: usize = env_or("SM_BENCH_THREADS", 2);
    let kinds = std::env::var("SM_BENCH_KINDS").unwrap_or_else(|_| "rocket,linie1".into());
    let opponents = std::env::var("SM_BENCH_OPPONENTS").unwrap_or_else(|_| "random,greedy".into());
    let settings = settings();
    println!(
        "bots: {games} 4-player games a set from game {first}, the bot in seat i mod 4, \
         {threads} thread(s); {settings:?}"
    );
    let board = Board::embedded().expect("the shipped board");
    let components = Components::embedded().expect("the shipped components");
    let rocket = |seed: u64| {
        Rocket::new(board.clone(), &common::setup(PLAYERS, seed, "")).expect("a Rocket game")
    };
    let linie1 = |seed: u64| {
        Linie1::new(
            components.clone(),
            &common::setup_of("linie1", PLAYERS, seed, ""),
        )
        .expect("a Linie 1 game")
    };
    let mut verdicts = Vec::new();
    for kind in kinds.split(',') {
        for opp in opponents.split(',') {
            let opponent = if opp == "greedy" {
                Opponent::Greedy
            } else {
                Opponent::Random
            };
            let started = Instant::now();
            let played = match kind {
                "rocket" => play_set(&rocket, (first, games), threads, opponent, &settings),
                _ => play_set(&linie1, (first, games), threads, opponent, &settings),
            };
            let v = report(kind, opponent, &played, started.elapsed());
            verdicts.push((kind.to_string(), opponent, v));
        }
    }
    for (kind, opponent, v) in verdicts {
        let target = match opponent {
            Opponent::Random => WIN_TARGET_RANDOM,
            Opponent::Greedy => WIN_TARGET_GREEDY,
        };
        println!(
            "bots: {kind} vs 3 {}: wins {:.1} % (target ≥ {:.0} %): {}; median move {:.1} ms \
             (target ≤ {MEDIAN_TARGET_MS} ms): {}; p99 {:.1} ms (target ≤ {P99_TARGET_MS} ms): {}",
            opponent.name(),
            100.0 * v.win,
            100.0 * target,
            met(v.win >= target),
            v.median_ms,
            met(v.median_ms <= MEDIAN_TARGET_MS),
            v.p99_ms,
            met(v.p99_ms <= P99_TARGET_MS),
        );
    }
}
