//! Picture benchmark: what the board's picture costs a report (issue 14).
//!
//! Run with `cargo bench --bench picture` (`SM_BENCH_CHANGES_ONLY=1`: the
//! first part only). The last line compares the median time to render a
//! change's PNG with its target (20 ms) and the largest PNG, as a report
//! carries it (base64), with its (120 KB).
//!
//! Method:
//! - Change by change: random 4-player games of each kind played to their
//!   end, the pictures of each change drawn by `picture::png` as the daemon
//!   draws them (from the game's pictures before): each Linie 1 player's
//!   own while they lay track (issue 35), and the spectator's once for
//!   every other reader; each timed: the figure.
//! - Positions: random 4-player games of Rocket and of Linie 1 (the
//!   policies of `tests/all/rocket_playouts.rs` and
//!   `tests/all/linie1_playouts.rs`), each stopped at its 0th, 40th, 120th
//!   order and at its end; the last order's events are marked, as in a
//!   report. Medians for each game and for both.
//! - For each: the SVG drawn by `AnyGame::picture` and the PNG drawn by
//!   `picture::draw` (with nothing kept to start from but the fixed layers
//!   and stamps: a board's first picture in a process), each timed
//!   `REPEAT` times on one core after one untimed run, medians printed:
//!   the board's fixed layers are kept from that run on, as in the daemon,
//!   where every picture but a board's first finds them kept. The PNG's
//!   size and that of its base64 in the mail.
//! - Game 0's end again: the whole SVG drawn at once (`png_of_svg`, what a
//!   board's first picture and `show --png` cost) against its fixed layers
//!   kept.
//! - Mail: one game made and played 40 orders by `service::apply_local`
//!   with `[mail] pictures` on, then again off: the mean size of its mails
//!   (welcomes and reports), the time to make them, and the size they take
//!   packed in the outbox (`store::pack`, as stored).

mod common;

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use common::{cpu_times, median, ms, pick};
use stationmaster::clock::ClockSettings;
use stationmaster::config::Config;
use stationmaster::daemon::{self, Daemon};
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{AnyGame, Game, Seat, Status, Viewer};
use stationmaster::linie1::{Components, Linie1};
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport::{MemoryInbound, MemoryOutbound};
use stationmaster::registry::BoardSource;
use stationmaster::rocket::{Board, Rocket};
use stationmaster::store::Store;

const TARGET_MS: f64 = 20.0;
const TARGET_KB: f64 = 120.0;
const GAMES: u64 = 6;
const STOPS: [usize; 3] = [0, 40, 120];
const REPEAT: usize = 10;
const MAIL_ORDERS: usize = 40;

/// A random game of `kind`'s positions at [`STOPS`] and at its end, each
/// with the events of the order that led there.
fn positions(kind: &str, seed: u64) -> Vec<(String, Box<dyn AnyGame>, Vec<serde_json::Value>)> {
    match kind {
        "rocket" => {
            let g = Rocket::new(
                Board::embedded().expect("the shipped board"),
                &common::setup(4, seed, ""),
            )
            .expect("a game");
            played(g, seed, |g, rng, seat| {
                let legal = g.legal_orders(seat);
                legal[pick(rng, &legal)].clone()
            })
        }
        _ => {
            let g = Linie1::new(
                Components::embedded().expect("the shipped components"),
                &common::setup_of("linie1", 4, seed, ""),
            )
            .expect("a game");
            played(g, seed, |g, rng, seat| {
                let legal = g.legal_orders(seat);
                legal[common::pick_linie1(rng, &legal)].clone()
            })
        }
    }
}

/// `g` played by `choose` (from a seed's random numbers), stopped at
/// [`STOPS`] and at its end.
fn played<G: Game + Clone + 'static>(
    mut g: G,
    seed: u64,
    choose: impl Fn(&G, &mut SplitMix64, Seat) -> G::Order,
) -> Vec<(String, Box<dyn AnyGame>, Vec<serde_json::Value>)> {
    let mut rng = SplitMix64::new(seed);
    let mut out: Vec<(String, Box<dyn AnyGame>, Vec<serde_json::Value>)> = Vec::new();
    let mut last = Vec::new();
    for n in 0.. {
        if STOPS.contains(&n) {
            out.push((format!("order {n}"), Box::new(g.clone()), last.clone()));
        }
        let Status::Active(awaited) = Game::status(&g) else {
            out.push((format!("end, order {n}"), Box::new(g), last));
            break;
        };
        let seat = awaited[0].seat;
        let o = choose(&g, &mut rng, seat);
        last = g
            .apply(seat, &o)
            .expect("a legal order")
            .iter()
            .map(|e| serde_json::to_value(e).expect("an event"))
            .collect();
    }
    out
}

/// `f`'s median wall time, its mean CPU time (this process's, so other
/// work on a shared machine does not count), and its value.
fn timed<T>(f: impl Fn() -> T) -> (Duration, Duration, T) {
    let mut times = Vec::with_capacity(REPEAT);
    let mut value = f();
    let cpu = cpu_times().0;
    for _ in 0..REPEAT {
        let t = Instant::now();
        value = f();
        times.push(t.elapsed());
    }
    let cpu = (cpu_times().0 - cpu) / REPEAT as u32;
    (median(&times), cpu, value)
}

/// Mean bytes a mail, mean packed bytes a mail, time a mail made: one
/// game made and played [`MAIL_ORDERS`] orders with pictures on or off.
fn mails(pictures: bool, now: DateTime<Utc>) -> (f64, f64, f64, usize) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut config = Config::default();
    config.store.path = dir.path().join("db");
    config.store.archive = dir.path().join("archive");
    config.mail.pictures = pictures;
    let outbox = MemoryOutbound::new();
    let mut d = Daemon::new(
        Store::open(&config.store.path).expect("store"),
        config,
        Templates::load(None).expect("templates"),
        BoardSource::embedded(),
        Box::new(MemoryInbound::new()),
        Box::new(outbox.clone()),
    );
    let mut rng = SplitMix64::new(7);
    let cpu = cpu_times().0;
    let id = daemon::create_game(
        &d.ctx(),
        &common::setup(4, 7, ""),
        ClockSettings::default(),
        Vec::new(),
        now,
    )
    .expect("a game");
    for _ in 0..MAIL_ORDERS {
        let game: Box<dyn AnyGame> = d.store().load(&id).expect("the game").game;
        let Status::Active(awaited) = game.status() else {
            break;
        };
        let seat: Seat = awaited[0].seat;
        let legal = game.legal_order_lines(seat);
        let line = legal[rng.below(legal.len())].clone();
        stationmaster::service::apply_local(&d.ctx(), &id, seat, &[line], now).expect("applied");
    }
    let made = cpu_times().0 - cpu;
    d.process(now, &AtomicBool::new(false)).expect("sent");
    let sent = outbox.take();
    if pictures {
        // Each picture's Content-ID is made from its PNG: the distinct ones
        // are the pictures drawn; the rest were kept whole.
        let mut cids: Vec<String> = sent
            .iter()
            .filter_map(|m| {
                let text = String::from_utf8_lossy(&m.bytes);
                let at = text.find("Content-ID: <board.")?;
                Some(text[at..].lines().next()?.to_string())
            })
            .collect();
        cids.sort();
        cids.dedup();
        println!(
            "  pictures on: {} distinct pictures for {MAIL_ORDERS} orders and the welcome (the rest were found kept whole)",
            cids.len()
        );
    }
    let n = sent.len().max(1) as f64;
    let bytes: usize = sent.iter().map(|m| m.bytes.len()).sum();
    let packed: usize = sent
        .iter()
        .map(|m| {
            stationmaster::store::pack::pack(&m.bytes)
                .expect("packed")
                .len()
        })
        .sum();
    (
        bytes as f64 / n,
        packed as f64 / n,
        ms(made) / n,
        sent.len(),
    )
}

/// What keeping the fixed layers saves, on the end of game 0: the whole
/// SVG drawn at once (the first picture of a board, or `show --png`)
/// against the picture drawn with its fixed layers kept (every later one).
fn breakdown() {
    let (_, g, last) = positions("rocket", 0).pop().expect("a position");
    let picture = g
        .picture(&last, None)
        .expect("events read")
        .expect("a picture");
    let svg = picture.svg();
    let (whole, whole_cpu, _) =
        timed(|| stationmaster::picture::png_of_svg(&svg).expect("rendered"));
    let (kept, kept_cpu, _) = timed(|| stationmaster::picture::draw(&picture).expect("rendered"));
    println!(
        "  game 0's end: the whole SVG drawn at once (a board's first picture, `show --png`) {:.2} ms ({:.2} ms CPU); its fixed layers kept (every later picture) {:.2} ms ({:.2} ms CPU)",
        ms(whole),
        ms(whole_cpu),
        ms(kept),
        ms(kept_cpu)
    );
}

/// A game's pictures change by change, as the daemon draws them
/// (`picture::png`, each from the game's picture before, only the bands
/// the change touched drawn again): [`GAMES`] random 4-player games of
/// `kind` played to their end, each change's pictures drawn as its reports
/// need them (each Linie 1 player laying track their own, issue 35, and
/// the spectator's once for the rest), each picture timed (wall time: the thread's
/// CPU time moves in scheduler ticks, 4 ms; the mean CPU time is the
/// thread's over all of them), the board's first included; and the PNGs'
/// largest size.
fn change_by_change(kind: &str) -> (Vec<Duration>, usize) {
    let mut times = Vec::new();
    let mut per_change = Vec::new();
    let (mut own_times, mut everyones_times) = (Vec::new(), Vec::new());
    let mut png_cpu = Duration::ZERO;
    let mut thirds: [Vec<Duration>; 3] = Default::default();
    let mut largest = 0;
    let before = stationmaster::picture::counts();
    let cpu = common::thread_cpu();
    for seed in 100..100 + GAMES {
        let mut g = stationmaster::registry::new_game(
            &common::setup_of(kind, 4, seed, ""),
            &BoardSource::embedded(),
        )
        .expect("a game");
        let mut rng = SplitMix64::new(seed);
        let mut last = Vec::new();
        let first = times.len();
        loop {
            // The pictures a change's reports carry: each player's own
            // (Linie 1, while they lay track), and the spectator's once
            // for everyone else.
            let mut pictures = Vec::new();
            let mut everyones = false;
            for seat in 0..g.player_names().len() {
                let own = g
                    .own_board(Viewer::Player(Seat(seat as u8)), &last, None, true)
                    .expect("events read");
                match own.and_then(|own| own.picture) {
                    Some(picture) => pictures.push((picture, true)),
                    None if !everyones => {
                        everyones = true;
                        let picture = g
                            .picture(&last, None)
                            .expect("events read")
                            .expect("a picture");
                        pictures.push((picture, false));
                    }
                    None => {}
                }
            }
            let change = Instant::now();
            for (picture, own) in &pictures {
                let (t, cpu) = (Instant::now(), common::thread_cpu());
                let png = stationmaster::picture::png(picture).expect("rendered");
                png_cpu += common::thread_cpu() - cpu;
                times.push(t.elapsed());
                match own {
                    true => own_times.push(t.elapsed()),
                    false => everyones_times.push(t.elapsed()),
                }
                largest = largest.max(png.bytes.len());
            }
            per_change.push(change.elapsed());
            let Status::Active(awaited) = g.status() else {
                break;
            };
            let seat = awaited[0].seat;
            let legal = g.legal_order_lines(seat);
            let line = legal[rng.below(legal.len())].clone();
            last = g.apply_line(seat, &line).expect("a legal order").events;
        }
        // Each third of the game apart: what grows as its board fills.
        let game = &times[first..];
        for (third, out) in thirds.iter_mut().enumerate() {
            out.extend_from_slice(&game[game.len() * third / 3..game.len() * (third + 1) / 3]);
        }
    }
    let cpu = common::thread_cpu() - cpu;
    let after = stationmaster::picture::counts();
    let bands = after.bands - before.bands;
    println!(
        "  {kind}, change by change: {} pictures ({} drawn anew, {} from the one before); {} of {bands} bands drawn ({:.1} %); a picture median {:.2} ms, 90th percentile {:.2} ms, most {:.2} ms (wall); mean CPU {:.2} ms (with the game's moves and SVG); largest PNG {:.1} KB",
        times.len(),
        after.anew - before.anew,
        after.from_another - before.from_another,
        after.bands_drawn - before.bands_drawn,
        100.0 * (after.bands_drawn - before.bands_drawn) as f64 / bands.max(1) as f64,
        ms(median(&times)),
        ms(common::quantile(&times, 0.9)),
        ms(times.iter().max().copied().unwrap_or_default()),
        ms(cpu) / times.len().max(1) as f64,
        largest as f64 / 1024.0
    );
    println!(
        "  {kind}, a change's pictures together: {} changes, median {:.2} ms, 90th percentile {:.2} ms (wall); the PNGs alone mean CPU {:.2} ms a picture; a player's own picture median {:.2} ms ({} of them), the spectator's {:.2} ms ({})",
        per_change.len(),
        ms(median(&per_change)),
        ms(common::quantile(&per_change, 0.9)),
        ms(png_cpu) / times.len().max(1) as f64,
        ms(median_of(&own_times)),
        own_times.len(),
        ms(median_of(&everyones_times)),
        everyones_times.len()
    );
    println!(
        "  {kind}, a picture's median in each third of a game: {:.2}, {:.2}, {:.2} ms (wall)",
        ms(median(&thirds[0])),
        ms(median(&thirds[1])),
        ms(median(&thirds[2]))
    );
    (times, largest)
}

/// The median, or zero of none.
fn median_of(v: &[Duration]) -> Duration {
    match v.is_empty() {
        true => Duration::ZERO,
        false => median(v),
    }
}

fn main() {
    println!(
        "picture bench: {GAMES} random 4-player games of each kind at orders {STOPS:?} and their end; SVG and PNG each timed {REPEAT} times: wall time (median) and CPU time (mean; the figure, as other work shares the machine)"
    );
    // What every change's reports pay: the figure.
    let mut change_times = Vec::new();
    let mut largest = 0usize;
    for kind in ["rocket", "linie1"] {
        let (times, most) = change_by_change(kind);
        change_times.extend(times);
        largest = largest.max(most);
    }
    if std::env::var_os("SM_BENCH_CHANGES_ONLY").is_some() {
        return;
    }
    let mut png_times = Vec::new();
    for kind in ["rocket", "linie1"] {
        let mut times = Vec::new();
        for seed in 0..GAMES {
            for (what, g, last) in positions(kind, seed) {
                let (svg_time, _, picture) = timed(|| {
                    g.picture(&last, None)
                        .expect("events read")
                        .expect("the game draws a picture")
                });
                let svg = picture.svg();
                let (png_time, png_cpu, png) =
                    timed(|| stationmaster::picture::draw(&picture).expect("rendered"));
                largest = largest.max(png.bytes.len());
                times.push(png_cpu);
                println!(
                    "  {kind} {seed} {what:<16} SVG {:>5.2} ms {:>5.1} KB   PNG {}x{} {:>6.2} ms ({:>6.2} ms CPU) {:>5.1} KB",
                    ms(svg_time),
                    svg.len() as f64 / 1024.0,
                    png.width,
                    png.height,
                    ms(png_time),
                    ms(png_cpu),
                    png.bytes.len() as f64 / 1024.0
                );
            }
        }
        println!("  {kind}: median PNG {:.2} ms of CPU", ms(median(&times)));
        png_times.extend(times);
    }
    breakdown();
    let now = DateTime::parse_from_rfc3339("2026-11-23T09:00:00Z")
        .expect("a time")
        .with_timezone(&Utc);
    let (on_bytes, on_packed, on_ms, on_n) = mails(true, now);
    let (off_bytes, off_packed, off_ms, off_n) = mails(false, now);
    println!(
        "  mail, one game's welcomes and {MAIL_ORDERS} orders' reports: pictures off {off_n} mails, {:.1} KB a mail ({:.1} KB packed in the outbox), {off_ms:.2} ms of CPU a mail made",
        off_bytes / 1024.0,
        off_packed / 1024.0
    );
    println!(
        "  pictures on: {on_n} mails, {:.1} KB a mail ({:.1} KB packed), {on_ms:.2} ms of CPU a mail made: {:.2}x the size, {:.2}x the time",
        on_bytes / 1024.0,
        on_packed / 1024.0,
        on_bytes / off_bytes,
        on_ms / off_ms
    );
    let png_ms = ms(median(&change_times));
    // What a report carries: the PNG in base64 (4 bytes for 3, CRLF every
    // 76 characters).
    let in_mail_kb = (largest as f64 * 4.0 / 3.0 * 78.0 / 76.0) / 1024.0;
    println!(
        "picture: median PNG of a change {png_ms:.2} ms ({:.2}x the target {TARGET_MS} ms; with nothing kept to start from {:.2} ms of CPU, {:.2}x); largest PNG {:.1} KB, {in_mail_kb:.1} KB in a report ({:.2}x the target {TARGET_KB} KB)",
        png_ms / TARGET_MS,
        ms(median(&png_times)),
        ms(median(&png_times)) / TARGET_MS,
        largest as f64 / 1024.0,
        in_mail_kb / TARGET_KB
    );
}
