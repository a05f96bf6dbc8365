//! Crash consistency: the real `stationmaster process` killed with SIGKILL
//! at random moments, over and over, while it works through players' mails
//! on the embedded default (Maildir in, `.eml` files out, sled in `var/db`).
//!
//! The mails are whole random games: each a legal order at its place in its
//! game, from the awaited player, with the key. Runs are killed at random
//! points (sled 0.34.7 writes its snapshot at every open that follows
//! writes, so every restart provokes one). At the end one run goes through
//! unkilled, and the test counts:
//!
//! - **opens failed**: runs that ended by themselves with an error;
//! - **orders lost**: mails of the script whose order is not in the log;
//! - **orders applied twice**: mails whose Message-ID is in the log twice;
//! - **replies lost**: mails with no reply (`In-Reply-To`) in `var/outbox`
//!   that carries whole the picture it shows.
//!
//! All four must be 0, and the log must be each game's script in order;
//! the players' records kept must be those the games give (no count lost
//! or doubled);
//! the test prints the counts (with `--nocapture`), and how many half-written
//! snapshots the store found and removed at open. A third of the kills wait
//! for sled's snapshot file to appear, so that hazard (sled issue #1527) is
//! met dozens of times a run.
//!
//! `crash_consistency_in_ci` runs 150 kills; the long run is `cargo test
//! --test all crash_consistency_long -- --ignored --nocapture` (1,000
//! kills, or `SM_KILLS`; `SM_CRASH_SEED` picks the random stream). Its
//! figures are in docs/crash-safety.md.

use mail_parser::MimeHeaders;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, PlayerSetup, Setup, Status};
use stationmaster::rocket::{Board, Order, Rocket};
use stationmaster::store::{EntryKind, GameId, PlayerRecord, Store};
use tempfile::TempDir;

const NOW: &str = "2026-11-21T18:00:00Z";
const PLAYERS: [&str; 3] = ["alice", "bob", "cecil"];

/// A `stationmaster` command in the test's folder, on the embedded default.
fn sm(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_stationmaster"));
    c.current_dir(dir)
        .env_remove("STATIONMASTER_CONFIG")
        .env("STATIONMASTER_NOW", NOW)
        .env("RUST_LOG", "stationmaster=warn");
    c
}

fn run_ok(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// One mail of the script.
struct Mail {
    game: GameId,
    message_id: String,
    order: String,
}

/// The world: the folder, the games' scripts, and what has been written to
/// the inbox so far.
struct World {
    dir: TempDir,
    rng: SplitMix64,
    mails: Vec<Mail>,
    games: usize,
}

impl World {
    fn new(seed: u64) -> World {
        World {
            dir: TempDir::new().unwrap(),
            rng: SplitMix64::new(seed),
            mails: Vec::new(),
            games: 0,
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Mails written but not yet taken out of `new/` and `cur/` unseen.
    fn waiting(&self) -> usize {
        let inbox = self.path().join("var/inbox");
        let mut n = 0;
        for sub in ["new", "cur"] {
            if let Ok(entries) = fs::read_dir(inbox.join(sub)) {
                n += entries
                    .filter_map(Result::ok)
                    .filter(|e| !e.file_name().to_string_lossy().contains(":2,S"))
                    .count();
            }
        }
        n
    }

    /// Creates one more game and writes its whole random playout into the
    /// inbox, one order a mail, from the player awaited at that point.
    fn add_game(&mut self) {
        let seed = self.rng.next_u64() % 10_000;
        let mut args = vec!["new".to_string(), "rocket".to_string()];
        for p in PLAYERS {
            args.push("--player".into());
            args.push(format!("{p}={p}@example.org"));
        }
        args.push("--seed".into());
        args.push(seed.to_string());
        let id = GameId(run_ok(sm(self.path()).args(&args)).trim().to_string());
        let keys = {
            let store = Store::open(&self.path().join("var/db")).unwrap();
            store.meta(&id).unwrap().tokens
        };
        let setup = Setup {
            kind: "rocket".into(),
            players: PLAYERS
                .iter()
                .map(|p| PlayerSetup {
                    name: (*p).into(),
                    email: format!("{p}@example.org"),
                })
                .collect(),
            options: vec![],
            seed,
        };
        let mut mirror = Rocket::new(Board::embedded().unwrap(), &setup).unwrap();
        let new = self.path().join("var/inbox/new");
        fs::create_dir_all(&new).unwrap();
        let mut n = 0;
        while let Status::Active(awaited) = mirror.status() {
            let seat = awaited[0].seat;
            let legal = mirror.legal_orders(seat);
            // Mostly extensions: veto questions and rounds come often, and
            // the game ends in a reasonable number of orders.
            let extends: Vec<&Order> = legal
                .iter()
                .filter(|o| matches!(o, Order::Extend { .. }))
                .collect();
            let order = if !extends.is_empty() && self.rng.below(4) > 0 {
                extends[self.rng.below(extends.len())].clone()
            } else {
                legal[self.rng.below(legal.len())].clone()
            };
            let text = mirror.order_text(&order);
            mirror.apply(seat, &order).unwrap();
            n += 1;
            let player = PLAYERS[seat.index()];
            let message_id = format!("{id}.{n}@players.example.org");
            let raw = format!(
                "From: {player} <{player}@example.org>\r\n\
                 To: stationmaster@localhost\r\n\
                 Subject: Re: [{id} {key}] orders\r\n\
                 Message-ID: <{message_id}>\r\n\
                 Date: Sat, 21 Nov 2026 17:00:00 +0000\r\n\
                 MIME-Version: 1.0\r\n\
                 Content-Type: text/plain; charset=utf-8\r\n\r\n\
                 {text}\r\n",
                key = keys[seat.index()],
            );
            // Names sort in the order the mails must be handled.
            let name = format!("{:08}.{}.crash", self.mails.len(), self.games);
            let tmp = self.path().join("var/inbox/tmp").join(&name);
            fs::create_dir_all(tmp.parent().unwrap()).unwrap();
            fs::write(&tmp, raw).unwrap();
            fs::rename(&tmp, new.join(&name)).unwrap();
            self.mails.push(Mail {
                game: id.clone(),
                message_id,
                order: text,
            });
            assert!(n < 2000, "the game does not end");
        }
        self.games += 1;
    }
}

/// How a run of `process` ended.
enum Ended {
    Killed,
    Finished,
    Failed(String),
}

/// When a run is killed.
#[derive(Clone, Copy)]
enum KillAt {
    /// After this long.
    After(Duration),
    /// As soon as sled's snapshot file is being written (or after 100 ms).
    Snapshot,
}

/// True if sled is writing a snapshot in `db` right now.
fn writing_snapshot(db: &Path) -> bool {
    fs::read_dir(db).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().ends_with(".generating"))
    })
}

/// Starts `process` and kills it with SIGKILL at `at`, unless it ends
/// first.
fn run_and_kill(dir: &Path, at: KillAt) -> Ended {
    let log = dir.join("stderr.txt");
    let mut child = sm(dir)
        .arg("process")
        .stdout(Stdio::null())
        .stderr(fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let db = dir.join("var/db");
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            if status.success() {
                return Ended::Finished;
            }
            let mut err = String::new();
            fs::File::open(&log)
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return Ended::Failed(err);
        }
        let due = match at {
            KillAt::After(delay) => start.elapsed() >= delay,
            KillAt::Snapshot => {
                start.elapsed() >= Duration::from_millis(100) || writing_snapshot(&db)
            }
        };
        if due {
            child.kill().unwrap();
            child.wait().unwrap();
            return Ended::Killed;
        }
        if let KillAt::After(_) = at {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
}

/// The In-Reply-To of every `.eml` in `dir`.
fn replied_to(dir: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut pictures = 0;
    for entry in fs::read_dir(dir).unwrap() {
        let bytes = fs::read(entry.unwrap().path()).unwrap();
        match shows_its_picture(&bytes) {
            Some(true) => pictures += 1,
            Some(false) => {}
            None => continue,
        }
        let text = String::from_utf8_lossy(&bytes);
        for line in text.lines() {
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("In-Reply-To:") {
                found.insert(v.trim().trim_matches(['<', '>']).to_string());
            }
        }
    }
    assert!(
        pictures > 0,
        "no reply showed a picture: the check above saw none"
    );
    found
}

/// Whether a mail shows a picture (`cid:` in its HTML), if it is whole:
/// `None` if it shows one and does not carry it as a PNG that decodes. The
/// outbox keeps a change's picture apart from its mails (`parts/`), and
/// puts it back before a mail goes.
fn shows_its_picture(bytes: &[u8]) -> Option<bool> {
    let m = mail_parser::MessageParser::default().parse(bytes)?;
    let shows = m
        .html_bodies()
        .any(|p| String::from_utf8_lossy(p.contents()).contains("cid:"));
    let carries = m.parts.iter().any(|p| {
        p.content_type().is_some_and(|t| t.ctype() == "image")
            && png::Decoder::new(std::io::Cursor::new(p.contents()))
                .read_info()
                .and_then(|mut r| {
                    let mut buf = vec![0; r.output_buffer_size().unwrap_or(0)];
                    r.next_frame(&mut buf).map(|_| ())
                })
                .is_ok()
    });
    (!shows || carries).then_some(shows)
}

/// What a run of the test found.
#[derive(Debug, Default)]
struct Counts {
    kills: usize,
    finished_runs: usize,
    opens_failed: usize,
    orders_lost: usize,
    applied_twice: usize,
    replies_lost: usize,
    half_written_snapshots_removed: usize,
    mails: usize,
    games: usize,
}

fn crash_consistency(kills: usize, seed: u64) -> Counts {
    let mut world = World::new(seed);
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    while counts.kills < kills {
        if world.waiting() < 30 {
            world.add_game();
        }
        // A third of the kills while sled writes its snapshot, a third in
        // the first 15 ms (opening, recovery), a third anywhere in a cycle
        // of a few dozen mails.
        let at = match world.rng.below(3) {
            0 => KillAt::Snapshot,
            1 => KillAt::After(Duration::from_micros(world.rng.below(15_000) as u64)),
            _ => KillAt::After(Duration::from_micros(world.rng.below(250_000) as u64)),
        };
        match run_and_kill(world.path(), at) {
            Ended::Killed => counts.kills += 1,
            Ended::Finished => counts.finished_runs += 1,
            Ended::Failed(err) => {
                counts.opens_failed += 1;
                failures.push(err);
                if failures.len() > 3 {
                    break;
                }
            }
        }
        counts.half_written_snapshots_removed +=
            fs::read_to_string(world.path().join("stderr.txt"))
                .unwrap_or_default()
                .matches("half-written sled snapshot")
                .count();
    }
    // One run to the end, then the counts.
    loop {
        match run_and_kill(world.path(), KillAt::After(Duration::from_secs(600))) {
            Ended::Finished if world.waiting() == 0 => break,
            Ended::Finished => {}
            Ended::Killed => panic!("a run did not end in 10 minutes"),
            Ended::Failed(err) => {
                counts.opens_failed += 1;
                failures.push(err);
                break;
            }
        }
    }
    counts.mails = world.mails.len();
    counts.games = world.games;
    if counts.opens_failed > 0 {
        eprintln!("{counts:?}");
        panic!("runs failed:\n{}", failures.join("\n---\n"));
    }

    // As the last run left them (it removed what the crashes left).
    let parts_left = fs::read_dir(world.path().join("var/db/parts")).map_or(0, |rd| rd.count());
    let store = Store::open(&world.path().join("var/db")).unwrap();
    let mut logged: BTreeMap<GameId, Vec<(String, String)>> = BTreeMap::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for id in store.ids().unwrap() {
        let entries = store.log(&id).unwrap();
        for e in entries.iter().filter(|e| e.kind == EntryKind::Order) {
            let source = e.source.as_ref().map(|s| s.to_string()).unwrap_or_default();
            *seen.entry(source.clone()).or_default() += 1;
            logged
                .entry(id.clone())
                .or_default()
                .push((source, e.order.clone()));
        }
        assert!(
            matches!(
                store.verify(&id).unwrap(),
                stationmaster::store::Verified::Good { .. }
            ),
            "{id} does not verify"
        );
    }
    // The players' records, changed in the transaction of what changes
    // them, are what the games themselves give: no kill lost or doubled a
    // count. (The ratings' figures are left out: games that finished at
    // one moment are rated in the order they were handled, which the
    // derivation cannot know; how many games rated each is compared.)
    let figures = |mut records: BTreeMap<String, PlayerRecord>| {
        for k in records.values_mut().flat_map(|r| r.kinds.values_mut()) {
            if let Some(r) = &mut k.rating {
                (r.mu, r.sigma) = (0.0, 0.0);
            }
        }
        records
    };
    let kept = figures(store.player_records().unwrap());
    assert_eq!(kept, figures(store.derived_records().unwrap()));
    let played: u32 = kept.values().map(|r| r.total().played).sum();
    assert_eq!(played as usize, world.games * PLAYERS.len(), "{kept:?}");
    let replies = replied_to(&world.path().join("var/outbox"));
    for m in &world.mails {
        match seen.get(&m.message_id).copied().unwrap_or(0) {
            0 => counts.orders_lost += 1,
            1 => {}
            _ => counts.applied_twice += 1,
        }
        if !replies.contains(&m.message_id) {
            counts.replies_lost += 1;
        }
    }
    eprintln!("{counts:?}");
    assert_eq!(
        (
            counts.opens_failed,
            counts.orders_lost,
            counts.applied_twice,
            counts.replies_lost
        ),
        (0, 0, 0, 0),
        "{counts:?}"
    );
    // Each game's log is its script, in order.
    let mut script: BTreeMap<GameId, Vec<(String, String)>> = BTreeMap::new();
    for m in &world.mails {
        script
            .entry(m.game.clone())
            .or_default()
            .push((m.message_id.clone(), m.order.clone()));
    }
    assert_eq!(logged, script);
    assert_eq!(store.outbox_len(), 0, "mail left unsent");
    assert_eq!(parts_left, 0, "pictures' files left in var/db/parts");
    counts
}

fn seed() -> u64 {
    std::env::var("SM_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1527)
}

#[test]
fn crash_consistency_in_ci() {
    let counts = crash_consistency(150, seed());
    assert!(counts.kills >= 150);
}

#[test]
#[ignore = "the long run: 1,000 kills or SM_KILLS, several minutes"]
fn crash_consistency_long() {
    let kills = std::env::var("SM_KILLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let counts = crash_consistency(kills, seed());
    assert!(counts.kills >= kills);
}

/// A database with one game in it, closed.
fn a_database() -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new().unwrap();
    let mut args = vec!["new".to_string(), "rocket".to_string()];
    for p in PLAYERS {
        args.push("--player".into());
        args.push(format!("{p}={p}@example.org"));
    }
    run_ok(sm(dir.path()).args(&args));
    let db = dir.path().join("var/db");
    (dir, db)
}

/// The `snap.*` files sled keeps in `db`.
fn snapshots(db: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(db)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("snap."))
        .collect();
    names.sort();
    names
}

#[test]
fn a_half_written_snapshot_left_by_a_crash_is_removed_at_open() {
    let (dir, db) = a_database();
    // What a kill while sled writes its snapshot leaves: a file named after
    // a later position, cut short (sled would refuse to open).
    let torn = db.join("snap.FFFFFFFFFFFFFFF0.generating");
    fs::write(&torn, [7u8; 40]).unwrap();
    let games = run_ok(sm(dir.path()).arg("games"));
    assert!(games.contains("rocket-1"), "{games}");
    assert!(!torn.exists());
    assert!(snapshots(&db).iter().all(|n| !n.ends_with(".generating")));
}

#[test]
fn nothing_is_removed_while_another_process_has_the_database_open() {
    let (_dir, db) = a_database();
    let open = Store::open(&db).unwrap();
    let writing = db.join("snap.FFFFFFFFFFFFFFF0.generating");
    fs::write(&writing, [7u8; 40]).unwrap();
    // A second opener is refused by sled's lock, and leaves the first
    // one's files alone.
    assert!(Store::open(&db).is_err());
    assert!(writing.exists());
    drop(open);
}

#[test]
fn a_new_database_is_created_whole_or_not_at_all() {
    let dir = TempDir::new().unwrap();
    let db = dir.path().join("var/db");
    // A crash while a database is created leaves only a sibling folder.
    let left = dir.path().join("var/db.creating.999999");
    fs::create_dir_all(&left).unwrap();
    fs::write(left.join("conf"), b"cut sh").unwrap();
    drop(Store::open(&db).unwrap());
    assert!(db.join("conf").exists() && db.join("db").exists());
    drop(Store::open(&db).unwrap());
    let siblings: Vec<String> = fs::read_dir(dir.path().join("var"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    // Ours is gone; the stale one is young, so it is kept for now.
    assert_eq!(siblings.len(), 2, "{siblings:?}");
}
