//! Where the bot plays (issue 36, points 3 and 5), through the binary on
//! the embedded default: mail comes into the Maildir `var/inbox`, each
//! `stationmaster process` handles it, and what it sends is read back from
//! the `.eml` files of `var/outbox`, as a player's mail program would get
//! it.
//!
//! Covered: a whole game of each kind by mail, two people and two bots
//! (`--player NAME=bot`), to its end, `verify` ok, every bot move marked in
//! the reports and the log, nothing mailed to a bot; a player away with the
//! bot (`away … bot`) whose turns it plays, who comes back mid-game by
//! sending orders; `autopilot on|off`; the `bot` policy at a missed
//! deadline; a moderator's `replace PLAYER bot` and back; and
//! `new rocket bots=2` in the lobby. The bot never seeing a secret is
//! tested on the engine (`bots.rs`).
//!
//! The people play the bot's own choice, at a low setting, so that games
//! end in few mails; the server's bot thinks at `[bots] iterations` of the
//! test's config, lower than the default, for the same reason (its
//! strength is the bench's business, `cargo bench --bench bots`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use chrono::{DateTime, Duration, Utc};
use mail_parser::MessageParser;
use stationmaster::engine::bot::{self, Settings};
use stationmaster::engine::{AnyGame, Seat, Status};
use stationmaster::store::{GameId, Store};
use tempfile::TempDir;

/// The server's own address on the embedded default.
const PEOPLE: [(&str, &str); 2] = [("ann", "ann@example.test"), ("bob", "bob@example.test")];

/// A mail the server sent, as its reader gets it.
#[derive(Clone, Debug)]
struct Got {
    to: String,
    subject: String,
    reply_to: String,
    text: String,
}

/// A server on the embedded default in a folder of its own, run by the
/// binary one `process` at a time.
struct Table {
    dir: TempDir,
    now: DateTime<Utc>,
    /// Outbox files read already.
    seen: BTreeSet<PathBuf>,
    /// Mails put into the inbox.
    sent: usize,
    /// The last mail each address got from the game: what they answer.
    last: Vec<(String, Got)>,
    /// Every mail sent.
    all: Vec<Got>,
}

impl Table {
    /// A folder whose config has the bot think at `iterations`.
    fn new(iterations: u32) -> Table {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.toml"),
            format!("[bots]\niterations = {iterations}\n"),
        )
        .unwrap();
        Table {
            dir,
            now: DateTime::parse_from_rfc3339("2026-12-01T09:00:00Z")
                .unwrap()
                .with_timezone(&Utc),
            seen: BTreeSet::new(),
            sent: 0,
            last: Vec::new(),
            all: Vec::new(),
        }
    }

    /// The binary on the folder's database. The test reads the store
    /// itself between runs, and sled lets its lock go a moment after the
    /// last handle is dropped: a run that finds it still held waits and
    /// tries again, as the error tells an operator to.
    fn sm(&self, args: &[&str]) -> Output {
        let mut tries = 0;
        loop {
            let out = Command::new(env!("CARGO_BIN_EXE_stationmaster"))
                .current_dir(self.dir.path())
                .env_remove("STATIONMASTER_CONFIG")
                .env_remove("RUST_LOG")
                .env("STATIONMASTER_NOW", self.now.to_rfc3339())
                .arg("--config")
                .arg(self.dir.path().join("config.toml"))
                .args(args)
                .output()
                .unwrap();
            let locked = String::from_utf8_lossy(&out.stderr).contains("has the database in");
            tries += 1;
            if !locked || tries > 200 {
                return out;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    fn ok(&self, args: &[&str]) -> String {
        crate::common::succeeded(args, self.sm(args))
    }

    /// `new KIND` with these `--player` arguments and more; the game's id.
    fn new_game(&self, kind: &str, players: &[&str], more: &[&str]) -> GameId {
        let mut args = vec!["new", kind];
        for p in players {
            args.extend(["--player", p]);
        }
        args.extend(more);
        GameId(self.ok(&args).trim().to_string())
    }

    /// One `process`: the mails it sent, remembered as each reader's last.
    fn process(&mut self) -> Vec<Got> {
        self.ok(&["process"]);
        let outbox = self.dir.path().join("var/outbox");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&outbox)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.sort();
        let mut got = Vec::new();
        for f in files {
            if f.extension().is_some_and(|e| e == "eml") && self.seen.insert(f.clone()) {
                got.push(read(&f));
            }
        }
        for g in &got {
            assert!(g.to.contains('@'), "a mail to {}: {}", g.to, g.subject);
            if g.subject.contains('[') {
                self.last.retain(|(a, _)| a != &g.to);
                self.last.push((g.to.clone(), g.clone()));
            }
        }
        self.all.extend(got.iter().cloned());
        got
    }

    /// `from` answers the last mail the game sent them with `body`; the
    /// mails the next `process` sends.
    fn reply(&mut self, from: &str, body: &str) -> Vec<Got> {
        let last = self
            .last
            .iter()
            .find(|(a, _)| a == from)
            .map(|(_, g)| g.clone())
            .unwrap_or_else(|| panic!("{from} got no mail from the game"));
        self.sent += 1;
        let subject = if last.subject.starts_with("Re:") {
            last.subject.clone()
        } else {
            format!("Re: {}", last.subject)
        };
        let eml = format!(
            "From: {from}\r\nTo: {}\r\nSubject: {subject}\r\nMessage-ID: <bot{}@example.test>\r\nDate: {}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            last.reply_to,
            self.sent,
            self.now.to_rfc2822()
        );
        self.inbox(&eml);
        self.process()
    }

    /// A mail from `from` to the server's own address.
    fn mail_server(&mut self, from: &str, body: &str) -> Vec<Got> {
        self.sent += 1;
        let eml = format!(
            "From: {from}\r\nTo: stationmaster@localhost\r\nSubject: a game\r\nMessage-ID: <bot{}@example.test>\r\nDate: {}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            self.sent,
            self.now.to_rfc2822()
        );
        self.inbox(&eml);
        self.process()
    }

    fn inbox(&self, eml: &str) {
        let new = self.dir.path().join("var/inbox/new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(new.join(format!("{:06}.test", self.sent)), eml).unwrap();
    }

    /// The game as stored (the binary is not running).
    fn game(&self, id: &GameId) -> Box<dyn AnyGame> {
        self.store().load(id).expect("the game").game
    }

    fn store(&self) -> Store {
        Store::open(&self.dir.path().join("var/db")).expect("the store")
    }
}

/// The mail among `got` to `who`, which the test expects there is.
fn mail_to<'g>(got: &'g [Got], who: &str) -> &'g Got {
    got.iter()
        .find(|g| g.to == who)
        .unwrap_or_else(|| panic!("no mail to {who} among {} sent", got.len()))
}

fn read(path: &Path) -> Got {
    let bytes = std::fs::read(path).unwrap();
    let m = MessageParser::default()
        .parse(&bytes)
        .expect("our mail parses");
    let address = |a: Option<&mail_parser::Address>| {
        a.and_then(|a| a.first())
            .and_then(|a| a.address())
            .unwrap_or_default()
            .to_string()
    };
    Got {
        to: address(m.to()),
        subject: m.subject().unwrap_or_default().to_string(),
        reply_to: address(m.reply_to()),
        text: crate::flowed::text_part(&m).unwrap_or_default(),
    }
}

/// A person's order for `seat`: what the bot would choose at a low
/// setting (a sensible player, so that the game ends), else the first
/// legal one.
fn persons_order(game: &dyn AnyGame, seat: Seat, n: u64) -> String {
    let quick = Settings {
        iterations: 20,
        ..Settings::default()
    };
    game.bot_order(seat, bot::seed(7, n, seat), &quick)
        .or_else(|| game.legal_order_lines(seat).into_iter().next())
        .expect("an awaited seat has an order")
}

/// Plays game `id` by mail to its end: each time the game awaits a
/// person, they answer their last mail with one order; the bots play at
/// once (a bot's seat is never left awaited). The number of mails.
fn play_to_the_end(t: &mut Table, id: &GameId, bots: &[&str]) -> usize {
    for n in 0..2000u64 {
        let game = t.game(id);
        let awaited = match game.status() {
            Status::Active(a) => a,
            Status::Finished(_) => return n as usize,
        };
        let names = game.player_names();
        for a in &awaited {
            let name = &names[a.seat.index()];
            assert!(
                !bots.contains(&name.as_str()),
                "the game waits for the bot's seat {name}"
            );
        }
        let seat = awaited[0].seat;
        let name = names[seat.index()].clone();
        let address = PEOPLE
            .iter()
            .find(|(p, _)| *p == name)
            .map(|(_, a)| *a)
            .unwrap_or_else(|| panic!("{name} is no person of the table"));
        let order = persons_order(&*game, seat, n);
        drop(game);
        let got = t.reply(address, &order);
        assert!(
            got.iter().any(|g| g.to == address),
            "{name} got no answer to `{order}`"
        );
    }
    panic!("the game did not end in 2,000 mails");
}

/// What every report a person got says of the bots' moves, and the log.
fn bots_are_marked(t: &Table, id: &GameId, bots: &[&str]) {
    let log = t.ok(&["log", &id.0]);
    for b in bots {
        assert!(
            log.contains(&format!("{b} is played by the bot")),
            "the log does not mark {b}'s moves:\n{log}"
        );
    }
    let json = t.ok(&["log", &id.0, "--json"]);
    assert!(json.contains("\"bot\""), "no entry's source is the bot");
}

fn whole_game(kind: &str, iterations: u32) {
    let mut t = Table::new(iterations);
    let players = [
        "ann=ann@example.test",
        "Robbie=bot",
        "bob=bob@example.test",
        "Rex=bot",
    ];
    let id = t.new_game(kind, &players, &["--seed", "11"]);
    let got = t.process();
    // A welcome to each person, none to a bot.
    for (_, a) in PEOPLE {
        assert!(got.iter().any(|g| g.to == a), "no welcome to {a}");
    }
    let mails = play_to_the_end(&mut t, &id, &["Robbie", "Rex"]);
    assert!(mails > 5, "{mails} mails");
    let verify = t.ok(&["verify", &id.0]);
    assert!(verify.contains("intact"), "{verify}");
    bots_are_marked(&t, &id, &["Robbie", "Rex"]);
    // The people's reports said which moves were the bots'.
    for (_, address) in PEOPLE {
        for b in ["Robbie", "Rex"] {
            let marked = format!("{b} is played by the bot");
            assert!(
                t.all
                    .iter()
                    .any(|g| g.to == address && g.text.contains(&marked)),
                "no report to {address} says `{marked}`"
            );
        }
    }
}

#[test]
fn a_whole_rocket_game_by_mail_with_two_people_and_two_bots() {
    whole_game("rocket", 60);
}

#[test]
fn a_whole_linie1_game_by_mail_with_two_people_and_two_bots() {
    whole_game("linie1", 40);
}

/// A 3-player Rocket game of people, ann first; the mails of its start.
fn three_people(t: &mut Table, more: &[&str]) -> GameId {
    let players = [
        "ann=ann@example.test",
        "bob=bob@example.test",
        "cy=cy@example.test",
    ];
    // Seed 3 lets ann play first.
    let mut args = vec!["--seed", "3"];
    args.extend(more);
    let id = t.new_game("rocket", &players, &args);
    t.process();
    id
}

const CY: &str = "cy@example.test";

/// The awaited seat's name.
fn awaited(t: &Table, id: &GameId) -> String {
    let game = t.game(id);
    let names = game.player_names();
    game.awaiting()
        .first()
        .map(|a| names[a.seat.index()].clone())
        .unwrap_or_default()
}

/// Plays as the people (ann, bob; cy too unless `cy` is false) until the
/// game awaits `who`.
fn until(t: &mut Table, id: &GameId, who: &str) {
    for n in 0..200u64 {
        let name = awaited(t, id);
        if name == who {
            return;
        }
        let game = t.game(id);
        let seat = game.awaiting()[0].seat;
        let order = persons_order(&*game, seat, n);
        drop(game);
        let address = format!("{name}@example.test");
        t.reply(&address, &order);
    }
    panic!("the game never awaited {who}");
}

/// Plays `n` orders of the people awaited; cy, whom the bot plays, is
/// never awaited meanwhile.
fn people_play(t: &mut Table, id: &GameId, n: u64) {
    for k in 0..n {
        let name = awaited(t, id);
        assert_ne!(name, "cy", "the game waits for cy, whom the bot plays");
        let game = t.game(id);
        let seat = game.awaiting()[0].seat;
        let order = persons_order(&*game, seat, k);
        drop(game);
        t.reply(&format!("{name}@example.test"), &order);
    }
}

#[test]
fn a_player_away_with_the_bot_is_played_for_and_comes_back_mid_game() {
    let mut t = Table::new(30);
    let id = three_people(&mut t, &[]);
    // cy goes away with the bot, from today: everyone is told.
    let today = t.now.format("%Y-%m-%d").to_string();
    let later = (t.now + Duration::days(5)).format("%Y-%m-%d").to_string();
    let got = t.reply(CY, &format!("away {today} to {later} bot"));
    let ann = mail_to(&got, "ann@example.test");
    assert!(
        ann.text.contains("the bot plays their turns meanwhile"),
        "{}",
        ann.text
    );
    // Two rounds of the people's turns: cy's are the bot's, at once.
    people_play(&mut t, &id, 8);
    let log = t.ok(&["log", &id.0]);
    assert!(log.contains("cy is away; the bot played for them"), "{log}");
    // cy is back mid-game: an order, though not their turn (refused, or
    // held), stops the bot, and they are told.
    let got = t.reply(CY, "extend GWR C14");
    let told = mail_to(&got, CY);
    assert!(
        told.text.contains("the bot no longer plays for you"),
        "{}",
        told.text
    );
    // Their next turn waits for them.
    until(&mut t, &id, "cy");
    let verify = t.ok(&["verify", &id.0]);
    assert!(verify.contains("intact"), "{verify}");
}

#[test]
fn autopilot_on_hands_the_turns_to_the_bot_and_off_takes_them_back() {
    let mut t = Table::new(30);
    let id = three_people(&mut t, &[]);
    until(&mut t, &id, "cy");
    // On while cy is awaited: the bot plays cy's turn at once.
    let got = t.reply(CY, "autopilot on");
    assert!(
        got.iter()
            .any(|g| g.to == "ann@example.test" && g.text.contains("cy has the bot play")),
        "nobody was told of cy's autopilot"
    );
    assert_ne!(awaited(&t, &id), "cy", "the bot did not take cy's turn");
    people_play(&mut t, &id, 4);
    let got = t.reply(CY, "autopilot off");
    let told = mail_to(&got, CY);
    assert!(
        told.text.contains("plays their own turns again"),
        "{}",
        told.text
    );
    until(&mut t, &id, "cy");
    // Off when it is off already: said, nothing changes.
    let got = t.reply(CY, "autopilot off");
    let told = mail_to(&got, CY);
    assert!(
        told.text.contains("the bot is not playing for you"),
        "{}",
        told.text
    );
    assert_eq!(awaited(&t, &id), "cy");
    let log = t.ok(&["log", &id.0]);
    assert!(
        log.contains("cy left the move to the bot (autopilot)"),
        "{log}"
    );
}

#[test]
fn an_absence_with_the_bot_that_begins_later_is_played_from_its_first_day() {
    let mut t = Table::new(30);
    let id = three_people(&mut t, &[]);
    until(&mut t, &id, "cy");
    // cy is awaited now, and away with the bot from tomorrow.
    let from = (t.now + Duration::days(1)).format("%Y-%m-%d").to_string();
    let to = (t.now + Duration::days(3)).format("%Y-%m-%d").to_string();
    t.reply(CY, &format!("away {from} to {to} bot"));
    assert_eq!(awaited(&t, &id), "cy", "the bot played before the absence");
    // The next day, the clock's look hands cy's turn to the bot.
    t.now += Duration::days(1) + Duration::hours(1);
    let got = t.process();
    assert_ne!(awaited(&t, &id), "cy", "the bot did not take cy's turn");
    assert!(
        got.iter()
            .any(|g| g.to == "ann@example.test" && g.text.contains("the bot played for them")),
        "ann was not told: {got:?}"
    );
}

#[test]
fn the_bot_policy_plays_a_missed_turn() {
    let mut t = Table::new(30);
    let id = three_people(&mut t, &["--policy", "bot", "--turn", "24h"]);
    assert_eq!(awaited(&t, &id), "ann");
    t.now += Duration::hours(25);
    let got = t.process();
    assert_ne!(awaited(&t, &id), "ann", "ann's missed turn was not played");
    let log = t.ok(&["log", &id.0]);
    assert!(
        log.contains("under the game's `bot` policy the bot played for them"),
        "{log}"
    );
    let ann = mail_to(&got, "ann@example.test");
    assert!(ann.text.contains("it counted as"), "{}", ann.text);
}

#[test]
fn a_moderator_hands_a_seat_to_the_bot_and_back_to_a_person() {
    let mut t = Table::new(30);
    let id = three_people(&mut t, &["--moderator", "gm@example.test"]);
    until(&mut t, &id, "bob");
    // bob's seat to the bot, while bob is awaited: it plays at once.
    let out = t.ok(&["mod", &id.0, "replace", "bob", "bot"]);
    assert!(out.contains("bot"), "{out}");
    let got = t.process();
    let bob = got
        .iter()
        .find(|g| g.to == "bob@example.test")
        .expect("bob is told");
    assert!(bob.text.contains("gave your seat"), "{}", bob.text);
    assert_ne!(awaited(&t, &id), "bob", "the bot did not play bob's turn");
    assert!(
        t.store().meta(&id).unwrap().is_bot(Seat(1)),
        "the seat is not marked the bot's"
    );
    // Back to a person, who is welcomed; the bot no longer plays.
    t.ok(&["mod", &id.0, "replace", "bob", "dora@example.test"]);
    let got = t.process();
    assert!(got.iter().any(|g| g.to == "dora@example.test"));
    assert!(!t.store().meta(&id).unwrap().is_bot(Seat(1)));
    until(&mut t, &id, "ann");
    let game = t.game(&id);
    let seat = game.awaiting()[0].seat;
    let order = persons_order(&*game, seat, 3);
    drop(game);
    t.reply("ann@example.test", &order);
    // ann's turn done: cy, then bob's seat, now dora's: never the bot's.
    let log = t.ok(&["log", &id.0]);
    assert!(log.contains("bob is played by the bot"), "{log}");
    let verify = t.ok(&["verify", &id.0]);
    assert!(verify.contains("intact"), "{verify}");
}

#[test]
fn the_lobby_seats_bots_with_new_bots_n() {
    let mut t = Table::new(30);
    t.mail_server("ann@example.test", "new rocket bots=2");
    // The first mail from an address is held until it proves itself.
    let got = t.reply("ann@example.test", "yes, me");
    let made = mail_to(&got, "ann@example.test");
    assert!(made.text.contains("The bot takes 2 seats"), "{}", made.text);
    let got = t.reply("ann@example.test", "start");
    let ann = mail_to(&got, "ann@example.test");
    assert!(!ann.text.contains("needs"), "{}", ann.text);
    assert!(got.iter().all(|g| g.to.contains('@')));
    let id = GameId("rocket-1".to_string());
    let game = t.game(&id);
    assert_eq!(game.player_names().len(), 3);
    let meta = t.store().meta(&id).unwrap();
    assert!(meta.is_bot(Seat(1)) && meta.is_bot(Seat(2)) && !meta.is_bot(Seat(0)));
    drop(game);
    // Whoever the seed made first, by the next cycle the game waits for
    // its one person: the bots played at the clock's first look.
    t.process();
    assert_eq!(awaited(&t, &id), "ann");
    // Too many bots leave no seat for a person.
    let got = t.mail_server("ann@example.test", "new rocket bots=4");
    let ann = mail_to(&got, "ann@example.test");
    assert!(
        ann.text
            .contains("`bots=4`: the number of seats for the bot, 1 to 3"),
        "{}",
        ann.text
    );
}

#[test]
fn a_bot_that_plays_first_plays_at_the_first_cycle_and_everyone_hears_of_it() {
    let mut t = Table::new(20);
    // Linie 1's first player is the first seat given.
    let id = t.new_game(
        "linie1",
        &["Robbie=bot", "ann=ann@example.test", "bob=bob@example.test"],
        &["--seed", "5"],
    );
    assert_eq!(awaited(&t, &id), "Robbie");
    let got = t.process();
    assert_ne!(awaited(&t, &id), "Robbie", "the bot did not play first");
    for (_, address) in PEOPLE {
        assert!(
            got.iter()
                .any(|g| g.to == address && g.text.contains("Robbie is played by the bot")),
            "{address} did not hear of the bot's first turn"
        );
    }
}

/// `takeback` once the bot has answered a player's orders is refused, as
/// after any other player's move (docs/players.md, `takeback`), naming
/// the bot's seat; nothing changes.
#[test]
fn a_takeback_after_the_bot_has_moved_is_refused_and_changes_nothing() {
    let mut t = Table::new(30);
    let players = ["ann=ann@example.test", "Rex=bot", "bob=bob@example.test"];
    let id = t.new_game("rocket", &players, &["--seed", "3"]);
    t.process();
    // The people play until the bot answers one of them at once.
    let mut last = String::new();
    for n in 0..20u64 {
        if t.ok(&["log", &id.0]).contains("Rex is played by the bot") {
            break;
        }
        last = awaited(&t, &id);
        let game = t.game(&id);
        let order = persons_order(&*game, game.awaiting()[0].seat, n);
        drop(game);
        t.reply(&format!("{last}@example.test"), &order);
    }
    let log = t.ok(&["log", &id.0]);
    assert!(log.contains("Rex is played by the bot"), "{log}");
    let address = format!("{last}@example.test");
    let before = t.game(&id).snapshot().unwrap();
    let got = t.reply(&address, "takeback");
    let told = mail_to(&got, &address);
    assert!(
        told.text
            .contains("`takeback` was not done: Rex has acted since"),
        "{}",
        told.text
    );
    assert_eq!(t.game(&id).snapshot().unwrap(), before);
}
