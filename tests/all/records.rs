//! Players' records (issue 36, point 4): a whole game played to its end
//! counts in each player's record (played, finished, won, places) and
//! rates them; `stats` by mail answers a player with their own record and
//! with another's public figures (by name without the address), and every
//! error a player can cause is a sentence; the welcomes (players' and the
//! game master's) and the game's page show each player's games finished;
//! a missed deadline, a seat handed on and an abort count; a seat marked
//! as a bot is nobody's record and a game rates its people alone; the
//! operator's `stationmaster stats`; export and import (and a merge) carry
//! the records; and a database from before records gets the same records,
//! derived from its games, when it is opened.
//!
//! The daemon runs in the test's process on in-memory transports, mails
//! in as a mail program sends them (raw MIME); the command line is the
//! real binary on the same database once the daemon has let it go.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use chrono::{DateTime, Duration, Utc};
use mail_parser::MessageParser;
use stationmaster::config::Config;
use stationmaster::daemon::{self, Daemon};
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{AnyGame, PlayerSetup, Seat, Status};
use stationmaster::local::GameSpec;
use stationmaster::mail::OutMail;
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport::{MemoryInbound, MemoryOutbound};
use stationmaster::registry::BoardSource;
use stationmaster::store::{GameId, PlayerRecord, Store};
use tempfile::TempDir;

const ANDI: &str = "andi@example.test";
const BELA: &str = "bela@example.test";
const CECIL: &str = "cecil@example.test";
const GM: &str = "gm@example.test";

/// The config of a server in `dir`: the database, the archive and the
/// web pages there, no pictures (they are not what is read here).
fn config(dir: &Path) -> Config {
    let mut c = Config::default();
    c.mail.address = "sm@example.org".into();
    c.mail.pictures = false;
    c.store.path = dir.join("db");
    c.store.archive = dir.join("archive");
    c.web.dir = Some(dir.join("web"));
    c.web.url = Some("https://games.example.org/".into());
    c
}

/// The same, as a file the binary reads.
fn config_file(dir: &Path) -> PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(
        &path,
        format!(
            "[mail]\naddress = \"sm@example.org\"\npictures = false\n[store]\npath = \"{}\"\narchive = \"{}\"\n",
            dir.join("db").display(),
            dir.join("archive").display()
        ),
    )
    .unwrap();
    path
}

/// A daemon on in-memory transports in a folder of its own.
struct Server {
    dir: TempDir,
    daemon: Option<Daemon>,
    inbox: MemoryInbound,
    outbox: MemoryOutbound,
    now: DateTime<Utc>,
    mails: usize,
}

/// A mail as a player reads it.
struct Read {
    to: String,
    subject: String,
    text: String,
}

fn read(mail: &OutMail) -> Read {
    let m = MessageParser::default()
        .parse(&mail.bytes)
        .expect("our mail parses");
    Read {
        to: mail.to[0].clone(),
        subject: m.subject().unwrap_or_default().to_string(),
        text: crate::flowed::text_part(&m).unwrap_or_default(),
    }
}

impl Server {
    fn new() -> Server {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Server {
            dir,
            daemon: None,
            inbox: MemoryInbound::new(),
            outbox: MemoryOutbound::new(),
            now: DateTime::parse_from_rfc3339("2026-11-23T09:00:00Z")
                .unwrap()
                .with_timezone(&Utc),
            mails: 0,
        };
        s.start();
        s
    }

    /// The daemon, on the folder's database.
    fn start(&mut self) {
        let config = config(self.dir.path());
        self.daemon = Some(Daemon::new(
            Store::open(&config.store.path).expect("a store"),
            config,
            Templates::load(None).expect("the templates"),
            BoardSource::embedded(),
            Box::new(self.inbox.clone()),
            Box::new(self.outbox.clone()),
        ));
    }

    /// The daemon let go: the binary may open the database.
    fn stop(&mut self) {
        self.daemon = None;
    }

    fn daemon(&self) -> &Daemon {
        self.daemon.as_ref().expect("the daemon runs")
    }

    fn store(&self) -> &Store {
        self.daemon().store()
    }

    fn record(&self, address: &str) -> PlayerRecord {
        self.store()
            .player_record(address)
            .unwrap()
            .unwrap_or_else(|| panic!("no record of {address}"))
    }

    /// A game of `kind` for `players` (name, address), moderated by GM.
    fn game(&self, kind: &str, players: &[(&str, &str)], seed: u64) -> GameId {
        let spec = GameSpec {
            kind: kind.to_string(),
            players: players
                .iter()
                .map(|(n, e)| PlayerSetup {
                    name: n.to_string(),
                    email: e.to_string(),
                })
                .collect(),
            options: Vec::new(),
            seed,
            clock: config(self.dir.path()).deadlines,
            moderators: vec![GM.to_string()],
            reports: Default::default(),
            watchable: true,
        };
        stationmaster::local::new_game(&self.daemon().ctx(), spec, self.now).expect("a game")
    }

    /// One cycle: the inbox handled, the outbox sent; what went out.
    fn cycle(&mut self) -> Vec<Read> {
        let now = self.now;
        self.daemon
            .as_mut()
            .expect("the daemon runs")
            .process(now, &AtomicBool::new(false))
            .expect("a cycle");
        self.outbox.take().iter().map(read).collect()
    }

    /// A mail from `from` to the server's own address.
    fn mail(&mut self, from: &str, body: &str) {
        self.mails += 1;
        self.inbox.push(format!(
            "From: {from}\r\nTo: sm@example.org\r\nSubject: my record\r\nMessage-ID: <rec{}@example.test>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            self.mails
        ));
    }

    /// The one answer to a mail from `seat`'s player of game `id`, in the
    /// game's thread with their key, of `body`, after a cycle.
    fn in_game(&mut self, id: &GameId, seat: Seat, body: &str) -> String {
        let meta = self.store().meta(id).unwrap();
        let record = self.store().record(id).unwrap();
        let from = meta.address(&record, seat).to_string();
        let key = &meta.tokens[seat.index()];
        self.mails += 1;
        self.inbox.push(format!(
            "From: {from}\r\nTo: sm@example.org\r\nSubject: Re: [{id} {key}] Stephenson's Rocket\r\nMessage-ID: <rec{}@example.test>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            self.mails
        ));
        let got: Vec<Read> = self.cycle().into_iter().filter(|m| m.to == from).collect();
        assert_eq!(
            got.len(),
            1,
            "{:?}",
            got.iter().map(|m| &m.subject).collect::<Vec<_>>()
        );
        got.into_iter().next().unwrap().text
    }

    /// The one answer to `from`'s mail of `body`, after a cycle.
    fn ask(&mut self, from: &str, body: &str) -> String {
        self.mail(from, body);
        let got: Vec<Read> = self.cycle().into_iter().filter(|m| m.to == from).collect();
        assert_eq!(
            got.len(),
            1,
            "{:?}",
            got.iter().map(|m| &m.subject).collect::<Vec<_>>()
        );
        got.into_iter().next().unwrap().text
    }

    fn loaded(&self, id: &GameId) -> Box<dyn AnyGame> {
        self.store().load(id).expect("the game").game
    }

    /// Plays game `id` to its end from the command line's `order`, each
    /// order a legal one of the awaited seat (Rocket's extensions first,
    /// so that it ends); the game's placings.
    fn play_to_the_end(&mut self, id: &GameId, seed: u64) -> Vec<stationmaster::engine::Placing> {
        let mut rng = SplitMix64::new(seed);
        for _ in 0..6000 {
            let game = self.loaded(id);
            let awaited = match game.status() {
                Status::Active(a) => a,
                Status::Finished(placings) => return placings,
            };
            let seat = awaited[0].seat;
            let legal = game.legal_order_lines(seat);
            let extends: Vec<&String> = legal.iter().filter(|l| l.starts_with("extend")).collect();
            let line = if extends.is_empty() {
                legal[rng.below(legal.len())].clone()
            } else {
                extends[rng.below(extends.len())].clone()
            };
            daemon::apply_local(
                &self.daemon().ctx(),
                id,
                seat,
                std::slice::from_ref(&line),
                self.now,
            )
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        }
        panic!("the game did not end");
    }

    /// The game's page on the web.
    fn page(&self, id: &GameId) -> String {
        std::fs::read_to_string(self.dir.path().join("web").join(&id.0).join("index.html"))
            .expect("the game's page")
    }

    /// `stationmaster --config … ARGS` on the folder's database.
    fn sm(&self, args: &[&str]) -> std::process::Output {
        assert!(self.daemon.is_none(), "the daemon holds the database");
        let config = config_file(self.dir.path());
        std::process::Command::new(env!("CARGO_BIN_EXE_stationmaster"))
            .current_dir(self.dir.path())
            .env_remove("STATIONMASTER_CONFIG")
            .env_remove("RUST_LOG")
            .env("STATIONMASTER_NOW", self.now.to_rfc3339())
            .arg("--config")
            .arg(&config)
            .args(args)
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        crate::common::succeeded(args, self.sm(args))
    }
}

/// The three players of the first game, in seat order.
const TABLE: [(&str, &str); 3] = [("Andi", ANDI), ("Béla", BELA), ("Cecil", CECIL)];

#[test]
fn a_finished_game_counts_in_records_ratings_stats_welcomes_and_its_page() {
    let mut s = Server::new();
    let id = s.game("rocket", &TABLE, 7);
    // The welcomes, the players' and the game master's, say who finishes
    // games: nobody has yet.
    let welcomes = s.cycle();
    let nobody_yet = "Games finished here, by player: Andi 0, Béla 0, Cecil 0.";
    for to in [ANDI, BELA, CECIL, GM] {
        let w = welcomes.iter().find(|m| m.to == to).expect("a welcome");
        assert!(w.text.contains(nobody_yet), "{to}: {}", w.text);
    }
    assert!(s.page(&id).contains(nobody_yet));
    for address in [ANDI, BELA, CECIL] {
        let k = &s.record(address).kinds["rocket"];
        assert_eq!((k.played, k.finished, k.rating), (1, 0, None), "{address}");
    }

    let placings = s.play_to_the_end(&id, 5);
    let address = |seat: Seat| TABLE[seat.index()].1;
    let winner = address(placings[0].seat);
    let last = address(placings[2].seat);
    for p in &placings {
        let k = &s.record(address(p.seat)).kinds["rocket"];
        assert_eq!((k.played, k.finished, k.aborted), (1, 1, 0));
        assert_eq!(k.won, u32::from(p.place == 1));
        assert_eq!(k.placings.get(&format!("{}/3", p.place)), Some(&1), "{k:?}");
        assert_eq!(k.rating.map(|r| r.games), Some(1));
    }
    let rating = |a: &str| s.record(a).kinds["rocket"].rating.unwrap().shown();
    assert!(
        rating(winner) > rating(last),
        "the winner rates above the last"
    );
    assert!(
        s.page(&id)
            .contains("Games finished here, by player: Andi 1, Béla 1, Cecil 1."),
        "{}",
        s.page(&id)
    );
    s.cycle();

    // `stats`: the sender's own record, all of it.
    let own = s.ask(ANDI, "stats");
    for want in [
        &format!("Your record here ({ANDI}):"),
        "Stephenson's Rocket: played 1, finished 1, won ",
        "aborted 0, seats handed on 0, deadlines missed 0",
        "; rating ",
        "from 1 game)",
    ] {
        assert!(own.contains(want), "{want}: {own}");
    }
    // Another's by name: the public figures, not the address behind it.
    let other = s.ask(ANDI, "stats béla");
    assert!(other.contains("The record of béla here:"), "{other}");
    assert!(other.contains("played 1, finished 1, won "), "{other}");
    assert!(other.contains("; rating "), "{other}");
    for never in [BELA, "deadlines missed", "handed on", "aborted"] {
        assert!(!other.contains(never), "{never}: {other}");
    }
    // By address: the same figures, and not the names played under.
    let by_address = s.ask(ANDI, &format!("stats {CECIL}"));
    assert!(
        by_address.contains(&format!("The record of {CECIL} here:")),
        "{by_address}"
    );
    assert!(!by_address.contains("Cecil"), "{by_address}");
    // What a player can get wrong, each a sentence.
    let none = s.ask(ANDI, "stats Zoltan");
    assert!(
        none.contains("refused: nobody has played here as Zoltan; `stats ADDRESS` asks by address"),
        "{none}"
    );
    let unknown = s.ask(ANDI, "stats zoltan@example.test");
    assert!(
        unknown.contains("refused: zoltan@example.test has taken no seat here"),
        "{unknown}"
    );
    let two = s.ask(ANDI, "stats Béla Cecil");
    assert!(
        two.contains("refused: write `stats` for your own record"),
        "{two}"
    );

    // A second game: Béla and Cecil have finished one, a new Andi none;
    // its welcomes say so, and the name Andi now answers for two.
    let id2 = s.game(
        "rocket",
        &[
            ("Béla", BELA),
            ("Andi", "andi2@example.test"),
            ("Cecil", CECIL),
        ],
        8,
    );
    let welcomes = s.cycle();
    let gm = welcomes
        .iter()
        .find(|m| m.to == GM)
        .expect("the GM's welcome");
    let line = "Games finished here, by player: Béla 1, Andi 0, Cecil 1.";
    assert!(gm.text.contains(line), "{}", gm.text);
    assert!(s.page(&id2).contains(line));
    let twice = s.ask(BELA, "stats Andi");
    assert!(
        twice.contains("refused: 2 players have played here as Andi (or a name that reads the same); ask by address"),
        "{twice}"
    );

    // The operator's `stationmaster stats`.
    s.stop();
    let all = s.ok(&["stats"]);
    for a in [ANDI, BELA, CECIL, "andi2@example.test"] {
        assert!(all.contains(&format!("{a} (as ")), "{a}: {all}");
    }
    let andis = s.ok(&["stats", "andi"]);
    assert!(
        andis.contains(ANDI) && andis.contains("andi2@example.test"),
        "{andis}"
    );
    assert!(andis.contains("deadlines missed 0"), "{andis}");
    let json: serde_json::Value = serde_json::from_str(&s.ok(&["stats", "--json"])).unwrap();
    assert_eq!(json[BELA]["kinds"]["rocket"]["played"], 2);
    assert_eq!(json[BELA]["kinds"]["rocket"]["finished"], 1);
    let out = s.sm(&["stats", "zoltan"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "stationmaster: nobody has played here as zoltan\n"
    );
    let out = s.sm(&["stats", "zoltan@example.test"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "stationmaster: zoltan@example.test has taken no seat here\n"
    );

    // Export, import: the records come along whole.
    s.ok(&["export", "all.json"]);
    let exported = s.dir.path().join("all.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&exported).unwrap()).unwrap();
    assert_eq!(doc["records"][ANDI]["kinds"]["rocket"]["finished"], 1);
    let kept = s.ok(&["stats", "--json"]);
    let mut copy = Server::new();
    copy.stop();
    copy.ok(&["import", exported.to_str().unwrap()]);
    assert_eq!(copy.ok(&["stats", "--json"]), kept);
    // An export from before records: derived from its games, the same.
    let mut older = doc.clone();
    older.as_object_mut().unwrap().remove("records");
    let older_file = s.dir.path().join("older.json");
    std::fs::write(&older_file, older.to_string()).unwrap();
    copy.ok(&["import", "--replace", older_file.to_str().unwrap()]);
    assert_eq!(copy.ok(&["stats", "--json"]), kept);
}

#[test]
fn a_missed_deadline_a_seat_handed_on_and_an_abort_count_and_derive_the_same() {
    let mut s = Server::new();
    let id = s.game("rocket", &TABLE, 7);
    s.cycle();
    let first = match s.loaded(&id).status() {
        Status::Active(a) => a[0].seat,
        Status::Finished(_) => unreachable!("a new game"),
    };
    let late = TABLE[first.index()].1;
    // The turn's deadline (2 days) passes: the clock skips the turn.
    s.now += Duration::days(3);
    s.cycle();
    assert_eq!(s.record(late).kinds["rocket"].missed, 1);
    // `stats` in the game's thread: the player's own record, in the
    // answer to their mail, and another's figures beside it.
    let answer = s.in_game(&id, first, "stats\nstats Andi\nstats Andi Béla");
    for want in [
        &format!("Your record here ({late}):"),
        "Stephenson's Rocket: played 1, finished 0, won 0, aborted 0, seats handed on 0, deadlines missed 1; not rated yet",
        "The record of Andi here:",
        "`stats Andi Béla`: write `stats` for your own record",
    ] {
        assert!(answer.contains(want), "{want}: {answer}");
    }
    // A moderator's skip is no missed deadline.
    let ctx_skip =
        stationmaster::local::moderate(&s.daemon().ctx(), &id, "operator", "skip", None, s.now);
    ctx_skip.expect("skipped");
    let missed: u32 = [ANDI, BELA, CECIL]
        .iter()
        .map(|a| s.record(a).kinds["rocket"].missed)
        .sum();
    assert_eq!(missed, 1);
    // Béla's seat handed on, then the game aborted.
    let ctx = s.daemon().ctx();
    stationmaster::local::moderate(
        &ctx,
        &id,
        "operator",
        "replace Béla bela2@example.test",
        None,
        s.now,
    )
    .expect("replaced");
    stationmaster::local::moderate(&ctx, &id, "operator", "abort", Some("testing"), s.now)
        .expect("aborted");
    let k = |a: &str| s.record(a).kinds["rocket"].clone();
    assert_eq!(
        (k(BELA).played, k(BELA).handed_on, k(BELA).aborted),
        (1, 1, 0)
    );
    let b2 = k("bela2@example.test");
    assert_eq!(
        (b2.played, b2.handed_on, b2.aborted, b2.finished),
        (1, 0, 1, 0)
    );
    assert_eq!(s.record("bela2@example.test").names, ["Béla"]);
    for a in [ANDI, CECIL] {
        assert_eq!((k(a).aborted, k(a).finished, k(a).rating), (1, 0, None));
    }
    // A database from before records: the same records, derived from its
    // games when it is opened.
    let kept = s.store().player_records().unwrap();
    s.stop();
    forget_records(&s.dir.path().join("db"));
    s.start();
    assert_eq!(s.store().player_records().unwrap(), kept);
}

/// What a database from before records lacks: the tree and its mark.
fn forget_records(db: &Path) {
    let raw = stationmaster::store::open_raw(db).unwrap();
    raw.drop_tree("records").unwrap();
    raw.open_tree("meta").unwrap().remove("records").unwrap();
    raw.flush().unwrap();
}

#[test]
fn a_bots_seat_is_nobodys_record_and_a_game_rates_its_people_alone() {
    let mut s = Server::new();
    let id = s.game("rocket", &TABLE, 11);
    // Cecil's seat goes to a bot (as `replace Cecil bot` will do): one
    // update marks it.
    let ctx = s.daemon().ctx();
    let loaded = s.store().load(&id).unwrap();
    let mut meta = s.store().meta(&id).unwrap();
    meta.set_bot(Seat(2), true);
    let update = stationmaster::service::pipeline::meta_update(&id, &loaded, meta).unwrap();
    ctx.store
        .commit(&stationmaster::store::Change {
            update: Some(update),
            ..Default::default()
        })
        .unwrap();
    let c = s.record(CECIL).kinds["rocket"].clone();
    assert_eq!((c.played, c.handed_on), (1, 1));
    s.cycle();
    let placings = s.play_to_the_end(&id, 3);
    let c = s.record(CECIL).kinds["rocket"].clone();
    assert_eq!(
        (c.finished, c.rating),
        (0, None),
        "the bot's result is nobody's"
    );
    for a in [ANDI, BELA] {
        let k = &s.record(a).kinds["rocket"];
        assert_eq!((k.finished, k.rating.map(|r| r.games)), (1, Some(1)), "{a}");
    }
    // Rated in their order among themselves: the better of the two gains.
    let people: Vec<&str> = placings
        .iter()
        .filter(|p| p.seat != Seat(2))
        .map(|p| TABLE[p.seat.index()].1)
        .collect();
    let shown = |a: &str| s.record(a).kinds["rocket"].rating.unwrap();
    let (first, second) = (shown(people[0]), shown(people[1]));
    let tied = placings
        .iter()
        .filter(|p| p.seat != Seat(2))
        .map(|p| p.place)
        .collect::<Vec<_>>();
    if tied[0] == tied[1] {
        assert!((first.mu - second.mu).abs() < 1e-9);
    } else {
        assert!(first.mu > 25.0 && second.mu < 25.0, "{first:?} {second:?}");
    }
    assert!(s.page(&id).contains("Cecil (a bot)"), "{}", s.page(&id));
    // Derived the same (the bot is known from the game's bookkeeping).
    let kept = s.store().player_records().unwrap();
    s.stop();
    forget_records(&s.dir.path().join("db"));
    s.start();
    assert_eq!(s.store().player_records().unwrap(), kept);
}

#[test]
fn a_merge_adds_the_counts_of_both_and_rates_their_games_again() {
    // Two servers, a finished game each; Béla played in both.
    let mut a = Server::new();
    let one = a.game("rocket", &TABLE, 7);
    a.play_to_the_end(&one, 5);
    let mut b = Server::new();
    // rocket-1 is taken on the other server: this one's game is rocket-2.
    b.store().next_id("rocket").unwrap();
    let others = [
        ("Béla", BELA),
        ("Dora", "dora@example.test"),
        ("Emil", "emil@example.test"),
    ];
    let two = b.game("rocket", &others, 9);
    b.play_to_the_end(&two, 6);
    let before = b.record(BELA).kinds["rocket"].clone();
    a.stop();
    b.stop();
    a.ok(&["export", "a.json"]);
    let file = a.dir.path().join("a.json");
    b.ok(&["import", "--merge", file.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_str(&b.ok(&["stats", "--json"])).unwrap();
    let bela = &json[BELA]["kinds"]["rocket"];
    assert_eq!(
        (bela["played"].as_u64(), bela["finished"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(bela["rating"]["games"], 2, "{bela}");
    assert_ne!(
        bela["rating"]["mu"].as_f64(),
        Some(before.rating.unwrap().mu)
    );
    for (address, rated) in [(ANDI, 1), (CECIL, 1), ("dora@example.test", 1)] {
        let k = &json[address]["kinds"]["rocket"];
        assert_eq!(
            (k["played"].as_u64(), k["rating"]["games"].as_u64()),
            (Some(1), Some(rated))
        );
    }
}
