//! Storage benchmark: rebuilding a finished game from its log, a poll cycle
//! with nothing to do while 10,000 games are stored, and the daemon's peak
//! memory with 10,000 stored games.
//!
//! Run with `cargo bench --bench storage` (about a minute, most of it
//! creating the games; `SM_BENCH_GAMES=N` stores N games instead). The last
//! line gives the worst of the three figures against its target.
//!
//! Method (everything through the library's public API, in a temp dir):
//! - Set-up, not timed: `FINISHED` random 4-player games played to their end
//!   through `daemon::apply_local` (as `stationmaster order` does), each
//!   player's consecutive orders in one batch;
//!   `KEYED` games made by `daemon::create_game` (players' keys, deadline
//!   index, welcome mails sent); the rest up to 10,000 by `Store::create`.
//! - Rebuild: `Store::rebuild` (read the record and the whole log, replay
//!   every order from the initial state) of each finished game, repeated;
//!   the median.
//! - Idle poll cycle: `Daemon::process` on the embedded default transports
//!   (an empty Maildir in, `.eml` files out) with nothing due; the median of
//!   `CYCLES` cycles, once with only the first 110 games stored and once with
//!   all 10,000: no per-game work means the same time.
//! - Peak memory: `stationmaster process` as a child process (cron mode: it
//!   opens the database, handles the mail, sends, exits), measured by
//!   `/usr/bin/time -v` (the kernel's peak RSS), first with nothing to do,
//!   then with 100 order mails for 100 games, then with one mail from a
//!   stranger (whose help reply lists the games they play in, which reads
//!   every game's record). The figure is the highest of the three.
//! - Disk and drain (issue 12, point 8), in a second temp dir: 10,000
//!   3-player games made one by one by `stationmaster new` processes, as an
//!   operator's script would (`SM_BENCH_CLI_GAMES=N` for N); the database's
//!   size on disk (allocated blocks) per game, with the 30,000 welcome
//!   mails queued, then after one `stationmaster process` has drained them
//!   (its peak RSS is the drain's memory figure), then after 60 processes
//!   that change nothing (`process` with nothing to do, `games`, `show`):
//!   they must not grow it. The first process after the drain is printed
//!   apart: at the first open after a process that wrote, sled moves its
//!   file's end to a log segment's (512 KiB), up or down, once, whatever
//!   the process does (seen with pictures on and off). The same on 1,000
//!   games in a database made uncompressed beforehand, as every database was before sled's
//!   compression (`SM_BENCH_CLI_BASELINE=N`): the baseline, in the same run
//!   (states and mails are packed in it all the same).
//!
//! `SM_BENCH_CLI_ONLY=1` runs only the disk and drain phase (no library-made
//! store, no rebuild, idle cycle or memory figures). `SM_BENCH_PICTURES=0`
//! turns the mails' pictures off (`[mail] pictures`), on by default.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use common::{median, ms, pick, quantile};
use stationmaster::clock::ClockSettings;
use stationmaster::config::{Config, InboundKind, OutboundKind};
use stationmaster::daemon::{self, Ctx, Daemon};
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, Seat};
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport::{EmlFiles, Maildir};
use stationmaster::registry::BoardSource;
use stationmaster::rocket::{Board, Rocket};
use stationmaster::store::{GameId, Store};

const REBUILD_TARGET_MS: f64 = 5.0;
const CYCLE_TARGET_MS: f64 = 50.0;
const MEMORY_TARGET_MIB: f64 = 64.0;

/// Finished games, each rebuilt `REBUILDS` times.
const FINISHED: usize = 10;
const REBUILDS: usize = 10;
/// Games with keys and deadlines, made as the daemon makes them.
const KEYED: usize = 100;
const CYCLES: usize = 200;

fn config(dir: &Path) -> Config {
    let mut c = Config::default();
    c.store.path = dir.join("db");
    c.store.archive = dir.join("archive");
    c.mail.address = "stationmaster@example.test".into();
    c.inbound.kind = InboundKind::Maildir;
    c.inbound.maildir = dir.join("inbox");
    c.outbound.kind = OutboundKind::Files;
    c.outbound.dir = dir.join("outbox");
    c.mail.pictures = pictures();
    c
}

/// The same settings as a config file, for the child process.
fn config_file(dir: &Path) -> PathBuf {
    let path = dir.join("config.toml");
    let text = format!(
        "[store]\npath = {:?}\narchive = {:?}\n\n[mail]\naddress = \"stationmaster@example.test\"\npictures = {}\n\n\
         [inbound]\nkind = \"maildir\"\nmaildir = {:?}\n\n[outbound]\nkind = \"files\"\ndir = {:?}\n",
        dir.join("db"),
        dir.join("archive"),
        pictures(),
        dir.join("inbox"),
        dir.join("outbox"),
    );
    std::fs::write(&path, text).expect("config written");
    path
}

/// Whether the mails carry the board's picture: yes, the default, unless
/// `SM_BENCH_PICTURES=0`.
fn pictures() -> bool {
    std::env::var("SM_BENCH_PICTURES").map_or(true, |v| v != "0")
}

/// [`pictures`] as the bench's header says it.
fn pictures_said() -> &'static str {
    if pictures() { "on" } else { "off" }
}

fn open_daemon(dir: &Path) -> Daemon {
    let c = config(dir);
    Daemon::new(
        Store::open(&c.store.path).expect("the store opens"),
        c.clone(),
        Templates::load(None).expect("templates"),
        BoardSource::embedded(),
        Box::new(Maildir::open(&c.inbound.maildir).expect("maildir")),
        Box::new(EmlFiles::open(&c.outbound.dir).expect("outbox")),
    )
}

/// Plays a random 4-player game to its end as the command line's `order`
/// would (`daemon::apply_local`: all or nothing, reports to every player),
/// a player's consecutive orders in one batch; returns the log's length.
fn play_finished(ctx: &Ctx<'_>, seed: u64, now: DateTime<Utc>) -> (GameId, usize) {
    let setup = common::setup(4, seed, &format!("f{seed}-"));
    let id = ctx
        .store
        .create(&setup, &BoardSource::embedded(), now)
        .expect("created");
    // A typed twin of the stored game picks the orders.
    let mut twin = Rocket::new(Board::embedded().expect("board"), &setup).expect("game");
    let mut rng = SplitMix64::new(seed ^ 0x5eed);
    let mut batch: Vec<String> = Vec::new();
    let mut batch_seat = Seat(0);
    let mut n = 0;
    loop {
        let awaited = twin.awaiting();
        let seat = (!awaited.is_empty()).then(|| awaited[rng.below(awaited.len())].seat);
        if !batch.is_empty() && seat != Some(batch_seat) {
            daemon::apply_local(ctx, &id, batch_seat, &batch, now).expect("the orders apply");
            batch.clear();
        }
        let Some(seat) = seat else { break };
        let legal = twin.legal_orders(seat);
        let order = legal[pick(&mut rng, &legal)].clone();
        batch.push(twin.order_text(&order));
        batch_seat = seat;
        twin.apply(seat, &order).expect("legal");
        n += 1;
    }
    (id, n)
}

/// The median of `CYCLES` idle cycles (after a few to warm up).
fn idle_cycles(d: &mut Daemon, now: DateTime<Utc>) -> Vec<Duration> {
    let stop = AtomicBool::new(false);
    for _ in 0..5 {
        d.process(now, &stop).expect("cycle");
    }
    (0..CYCLES)
        .map(|_| {
            let t = Instant::now();
            let r = d.process(now, &stop).expect("cycle");
            let dt = t.elapsed();
            assert_eq!(
                (r.fetched, r.sent, r.failed),
                (0, 0, 0),
                "an idle cycle did something"
            );
            dt
        })
        .collect()
}

/// Bytes allocated on disk under `path` (blocks, not apparent lengths:
/// sled's files may be sparse).
fn du_allocated(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if meta.is_dir() {
        std::fs::read_dir(path)
            .map(|rd| rd.flatten().map(|e| du_allocated(&e.path())).sum())
            .unwrap_or(0)
    } else {
        meta.blocks() * 512
    }
}

/// The targets of the disk and drain figures.
const DISK_TARGET_KB: f64 = 16.0;
const DRAIN_TARGET_MIB: f64 = 64.0;

/// The figures of [`cli_games`].
struct CliFigures {
    games: usize,
    per_game_queued: f64,
    per_game_drained: f64,
    drained: usize,
    drain_peak_mib: f64,
    idle_growth: i64,
}

/// `games` games made by `stationmaster new` processes, the outbox drained
/// by one `stationmaster process`, then processes that change nothing.
/// With `compressed` false the database is made beforehand as sled makes
/// it by default, uncompressed, as every database was before compression
/// (the store keeps opening such a database uncompressed): the baseline.
fn cli_games(bin: &Path, games: usize, now: DateTime<Utc>, compressed: bool) -> CliFigures {
    let tmp = tempfile::TempDir::new().expect("temp dir");
    let dir = tmp.path();
    let cfg = config_file(dir);
    let cfg = cfg.to_str().expect("utf-8 path");
    let at = now.to_rfc3339();
    let db = dir.join("db");
    let label = if compressed { "" } else { " (uncompressed)" };
    if !compressed {
        let raw = sled::Config::new()
            .path(&db)
            .use_compression(false)
            .open()
            .expect("an uncompressed database");
        raw.flush().expect("flushed");
    }
    let kb = |bytes: u64| bytes as f64 / 1024.0;
    let t = Instant::now();
    let mut next_report = 1;
    for g in 0..games {
        let seed = g.to_string();
        let players: Vec<String> = ["a", "b", "c"]
            .iter()
            .map(|p| format!("{p}={p}{g}@example.test"))
            .collect();
        let out = std::process::Command::new(bin)
            .args([
                "--config", cfg, "--now", &at, "new", "rocket", "--seed", &seed,
            ])
            .args(players.iter().flat_map(|p| ["--player", p.as_str()]))
            .current_dir(dir)
            .env("RUST_LOG", "stationmaster=warn")
            .output()
            .expect("stationmaster new runs");
        assert!(
            out.status.success(),
            "new failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if g + 1 == next_report || g + 1 == games {
            let bytes = du_allocated(&db);
            println!(
                "  disk{label}: {:>6} games made by `stationmaster new`: database {:>9.0} KiB on disk, {:>6.1} KiB a game ({:.1} s)",
                g + 1,
                kb(bytes),
                kb(bytes) / (g + 1) as f64,
                t.elapsed().as_secs_f64()
            );
            next_report *= 10;
        }
    }
    let queued = du_allocated(&db);
    let drain = common::run_measured(bin, &["--config", cfg, "--now", &at, "process"], dir);
    // "…; 30000 mail(s) sent, 0 waiting to be sent again."
    let drained = drain
        .stdout
        .split_once(" mail(s) sent")
        .and_then(|(before, _)| before.rsplit(' ').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    assert_eq!(
        drained,
        games * 3,
        "every welcome mail sent: {}",
        drain.stdout
    );
    let after_drain = du_allocated(&db);
    println!(
        "  drain{label}: one `stationmaster process` sent the {drained} welcome mails in {:.1} s, peak RSS {:.1} MiB; database {:.0} KiB on disk, {:.1} KiB a game",
        drain.wall.as_secs_f64(),
        drain.peak_kib as f64 / 1024.0,
        kb(after_drain),
        kb(after_drain) / games as f64
    );
    let nothing = |args: &[&str]| {
        let out = std::process::Command::new(bin)
            .args(args)
            .current_dir(dir)
            .env("RUST_LOG", "stationmaster=warn")
            .output()
            .expect("runs");
        assert!(out.status.success(), "{args:?} failed");
    };
    // At the first open after a process that wrote, sled moves its file's
    // end to a log segment's (512 KiB), up or down, once: measured apart
    // from the 60.
    let (before_first, before_first_len) = (du_allocated(&db), du(&db));
    nothing(&["--config", cfg, "--now", &at, "process"]);
    println!(
        "  the first process after the drain, which changes nothing{label}: database {:+} bytes on disk, {:+} bytes in length (sled moves its file's end to a 512 KiB log segment's, up or down)",
        du_allocated(&db) as i64 - before_first as i64,
        du(&db) as i64 - before_first_len as i64
    );
    let before_idle = du_allocated(&db);
    let before_len = du(&db);
    for _ in 0..20 {
        nothing(&["--config", cfg, "--now", &at, "process"]);
        nothing(&["--config", cfg, "games"]);
        nothing(&["--config", cfg, "show", "rocket-1", "--as", "a"]);
    }
    let after_idle = du_allocated(&db);
    let idle_growth = after_idle as i64 - before_idle as i64;
    println!(
        "  60 processes that change nothing (process, games, show) after it{label}: database {:+} bytes on disk, {:+} bytes in length",
        idle_growth,
        du(&db) as i64 - before_len as i64
    );
    CliFigures {
        games,
        per_game_queued: kb(queued) / games as f64,
        per_game_drained: kb(after_drain) / games as f64,
        drained,
        drain_peak_mib: drain.peak_kib as f64 / 1024.0,
        idle_growth,
    }
}

fn du(path: &Path) -> u64 {
    fn walk(p: &Path) -> u64 {
        let Ok(meta) = std::fs::symlink_metadata(p) else {
            return 0;
        };
        if meta.is_dir() {
            std::fs::read_dir(p)
                .map(|rd| rd.flatten().map(|e| walk(&e.path())).sum())
                .unwrap_or(0)
        } else {
            meta.len()
        }
    }
    walk(path)
}

/// The disk and drain phase: the uncompressed baseline, then the games made
/// by the command line. Returns the disk and drain figures against their
/// targets, and whether the processes that change nothing left the
/// database as it was.
fn disk_and_drain(bin: &Path, now: DateTime<Utc>) -> (f64, f64, bool) {
    let cli_count: usize = std::env::var("SM_BENCH_CLI_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let baseline_count: usize = std::env::var("SM_BENCH_CLI_BASELINE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    let before = cli_games(bin, baseline_count, now, false);
    let cli = cli_games(bin, cli_count, now, true);
    println!(
        "storage: baseline, an uncompressed database (as every database was before sled's compression; states and mails packed all the same): {:.1} KiB a game with {} games, {:.1} KiB with their welcome mails queued; drain peak {:.1} MiB",
        before.per_game_drained, before.games, before.per_game_queued, before.drain_peak_mib
    );
    let disk = cli.per_game_drained / DISK_TARGET_KB;
    let drain = cli.drain_peak_mib / DRAIN_TARGET_MIB;
    println!(
        "storage: disk with {} games made by the command line, outbox drained: {:.1} KiB a game (target {DISK_TARGET_KB} KiB): {disk:.2}x target; with their welcome mails queued {:.1} KiB a game",
        cli.games, cli.per_game_drained, cli.per_game_queued
    );
    println!(
        "storage: drain of {} mails in one process: peak {:.1} MiB (target {DRAIN_TARGET_MIB} MiB): {drain:.2}x target",
        cli.drained, cli.drain_peak_mib
    );
    println!(
        "storage: processes that change nothing grew the database by {} bytes (target 0): {}",
        cli.idle_growth,
        if cli.idle_growth <= 0 {
            "met"
        } else {
            "NOT met"
        }
    );
    (disk, drain, cli.idle_growth <= 0)
}

fn main() {
    let now: DateTime<Utc> = DateTime::parse_from_rfc3339("2026-11-21T18:00:00Z")
        .expect("time")
        .with_timezone(&Utc);
    let bin = Path::new(env!("CARGO_BIN_EXE_stationmaster"));
    if std::env::var("SM_BENCH_CLI_ONLY").is_ok_and(|v| v == "1") {
        println!(
            "storage: only the disk and drain phase (SM_BENCH_CLI_ONLY=1); pictures {} (SM_BENCH_PICTURES)",
            pictures_said()
        );
        let (disk, drain, idle_ok) = disk_and_drain(bin, now);
        let worst = disk.max(drain);
        println!(
            "storage: worst of the two {worst:.2}x target ({})",
            if worst <= 1.0 && idle_ok {
                "all met"
            } else {
                "NOT met"
            }
        );
        return;
    }
    let games: usize = std::env::var("SM_BENCH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    assert!(games >= FINISHED + KEYED, "SM_BENCH_GAMES too small");
    println!(
        "storage: sled store in a temp dir; {games} games of 4 players; pictures {} (SM_BENCH_PICTURES):",
        pictures_said()
    );
    println!(
        "  {FINISHED} random games played to the end (daemon::apply_local), {KEYED} made by daemon::create_game (keys, deadlines), the rest by Store::create"
    );
    println!(
        "  rebuild = Store::rebuild of a finished game (record + whole log read, every order replayed), median of {}",
        FINISHED * REBUILDS
    );
    println!(
        "  idle cycle = Daemon::process on an empty Maildir (.eml files out), nothing due; median of {CYCLES}"
    );
    println!(
        "  memory = peak RSS of a `stationmaster process` child (cron mode) on the {games}-game store"
    );

    let tmp = tempfile::TempDir::new().expect("temp dir");
    let dir = tmp.path();
    // Nothing falls due a minute later (deadlines are days away).
    let later = now + chrono::Duration::minutes(1);

    let mut d = open_daemon(dir);

    // Set-up: finished games, then the keyed ones.
    let t = Instant::now();
    let mut finished = Vec::new();
    for g in 0..FINISHED {
        finished.push(play_finished(&d.ctx(), g as u64, now));
    }
    let entries: Vec<usize> = finished.iter().map(|(_, n)| *n).collect();
    let mut keyed = Vec::new();
    for g in 0..KEYED {
        let setup = common::setup(4, 1000 + g as u64, &format!("k{g}-"));
        keyed.push(
            daemon::create_game(&d.ctx(), &setup, ClockSettings::default(), Vec::new(), now)
                .expect("created"),
        );
    }
    let welcome = d
        .process(now, &AtomicBool::new(false))
        .expect("welcome mails sent");
    println!(
        "  set-up: {FINISHED} finished games ({} to {} log entries) and {KEYED} keyed games ({} reports and welcome mails sent) in {:.1} s",
        entries.iter().min().unwrap_or(&0),
        entries.iter().max().unwrap_or(&0),
        welcome.sent,
        t.elapsed().as_secs_f64()
    );

    // Idle cycles with few games.
    let few = FINISHED + KEYED;
    let small = idle_cycles(&mut d, later);

    // The rest of the games.
    let t = Instant::now();
    for g in few..games {
        let setup = common::setup(4, g as u64, &format!("g{g}-"));
        d.store()
            .create(&setup, &BoardSource::embedded(), now)
            .expect("created");
    }
    println!(
        "  set-up: {} more games by Store::create in {:.1} s; database {:.0} MB on disk",
        games - few,
        t.elapsed().as_secs_f64(),
        du(&dir.join("db")) as f64 / 1e6
    );

    // Idle cycles with all the games.
    let large = idle_cycles(&mut d, later);
    println!(
        "  idle cycle with {few} games: median {:.3} ms (p90 {:.3} ms); with {games}: median {:.3} ms (p90 {:.3} ms, max {:.3} ms)",
        ms(median(&small)),
        ms(quantile(&small, 0.9)),
        ms(median(&large)),
        ms(quantile(&large, 0.9)),
        ms(quantile(&large, 1.0)),
    );

    // Rebuilds, on the full store.
    let mut rebuilds = Vec::new();
    for (id, n) in &finished {
        let expected = d
            .store()
            .load(id)
            .expect("loads")
            .game
            .snapshot()
            .expect("writes");
        for _ in 0..REBUILDS {
            let t = Instant::now();
            let g = d.store().rebuild(id).expect("rebuilds");
            rebuilds.push(t.elapsed());
            assert_eq!(
                g.snapshot().expect("writes"),
                expected,
                "{id}: the rebuild differs"
            );
        }
        assert!(*n > 0);
    }
    println!(
        "  rebuild of a finished game: median {:.3} ms, p90 {:.3} ms, max {:.3} ms",
        ms(median(&rebuilds)),
        ms(quantile(&rebuilds, 0.9)),
        ms(quantile(&rebuilds, 1.0)),
    );

    // The mails for the children with work: one order from the awaited
    // player of each keyed game; then one mail from a stranger.
    let mut orders = Vec::new();
    for (k, id) in keyed.iter().enumerate() {
        let loaded = d.store().load(id).expect("loads");
        let tokens = d.store().meta(id).expect("meta").tokens;
        let seat = loaded.game.awaiting()[0].seat;
        let line = loaded.game.legal_order_lines(seat)[0].clone();
        orders.push(format!(
            "From: p{s} <k{k}-p{s}@example.test>\r\nTo: stationmaster@example.test\r\n\
             Subject: Re: [{id} {token}] Welcome\r\nMessage-ID: <bench-storage-{k}@example.test>\r\n\
             Date: Sat, 21 Nov 2026 18:00:30 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{line}\r\n",
            s = seat.index(),
            token = tokens[seat.index()],
        ));
    }
    let stranger = "From: Stranger <stranger@example.test>\r\nTo: stationmaster@example.test\r\n\
         Subject: hello\r\nMessage-ID: <bench-storage-stranger@example.test>\r\n\
         Date: Sat, 21 Nov 2026 18:00:30 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHow do I play?\r\n"
        .to_string();
    drop(d);

    // The children: idle, then the orders, then the stranger.
    let cfg = config_file(dir);
    let cfg = cfg.to_str().expect("utf-8 path");
    let at = later.to_rfc3339();
    let args = ["--config", cfg, "--now", &at, "process"];
    let idle: Vec<common::ChildRun> = (0..3)
        .map(|_| common::run_measured(bin, &args, dir))
        .collect();
    for r in &idle {
        assert!(r.stdout.starts_with("0 mail(s) read"), "{}", r.stdout);
    }
    let idle_wall = median(&idle.iter().map(|r| r.wall).collect::<Vec<_>>());
    let idle_peak = idle.iter().map(|r| r.peak_kib).max().unwrap_or(0);
    let deliver = |mails: &[String], tag: &str| {
        for (i, m) in mails.iter().enumerate() {
            let name = format!("1795000000.{tag}{i:04}.localhost");
            std::fs::write(dir.join("inbox").join("new").join(name), m).expect("mail written");
        }
    };
    deliver(&orders, "order");
    let busy = common::run_measured(bin, &args, dir);
    assert!(
        busy.stdout
            .starts_with(&format!("{KEYED} mail(s) read: {KEYED} changed a game")),
        "{}",
        busy.stdout
    );
    deliver(&[stranger], "stranger");
    let help = common::run_measured(bin, &args, dir);
    assert!(
        help.stdout.starts_with("1 mail(s) read: 0 changed a game")
            && help.stdout.contains("1 mail(s) sent"),
        "{}",
        help.stdout
    );
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!(
        "  `stationmaster process`, nothing to do: {:.0} ms wall (open, cycle, exit; median of 3), peak RSS {:.1} MiB",
        ms(idle_wall),
        mib(idle_peak)
    );
    println!(
        "  `stationmaster process`, {KEYED} order mails to {KEYED} games ({} mails out): {:.0} ms wall, peak RSS {:.1} MiB ({:.0} KiB more per game handled)",
        KEYED * 4,
        ms(busy.wall),
        mib(busy.peak_kib),
        busy.peak_kib.saturating_sub(idle_peak) as f64 / KEYED as f64
    );
    println!(
        "  `stationmaster process`, 1 mail from a stranger (the help reply lists their games, from the address index): {:.0} ms wall, peak RSS {:.1} MiB",
        ms(help.wall),
        mib(help.peak_kib)
    );
    println!("  memory read by: {}", busy.method);

    let rebuild = ms(median(&rebuilds)) / REBUILD_TARGET_MS;
    let cycle = ms(median(&large)) / CYCLE_TARGET_MS;
    let peak_mib = mib(idle_peak.max(busy.peak_kib).max(help.peak_kib));
    let memory = peak_mib / MEMORY_TARGET_MIB;
    let orders_mib = mib(idle_peak.max(busy.peak_kib));
    println!(
        "storage: rebuild of a finished game {:.3} ms (target {REBUILD_TARGET_MS} ms): {rebuild:.2}x target",
        ms(median(&rebuilds))
    );
    println!(
        "storage: idle poll cycle with {games} games {:.3} ms (target {CYCLE_TARGET_MS} ms): {cycle:.3}x target; {:.2}x the cycle with {few} games",
        ms(median(&large)),
        median(&large).as_secs_f64() / median(&small).as_secs_f64()
    );
    println!(
        "storage: daemon peak memory with {games} games {peak_mib:.1} MiB (target {MEMORY_TARGET_MIB} MiB): {memory:.2}x target; without the help reply {orders_mib:.1} MiB: {:.2}x target",
        orders_mib / MEMORY_TARGET_MIB
    );
    let (disk, drain, idle_ok) = disk_and_drain(bin, now);
    let worst = rebuild.max(cycle).max(memory).max(disk).max(drain);
    println!(
        "storage: worst of the five {worst:.2}x target ({})",
        if worst <= 1.0 && idle_ok {
            "all met"
        } else {
            "NOT met"
        }
    );
}
