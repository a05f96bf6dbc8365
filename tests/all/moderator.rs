//! Moderators and the archived turn log: every command on the command line
//! and by mail, undo across a veto round and a merger, the archive of a
//! finished game, and `verify` catching an edited log entry.

use assert_cmd::Command;
use tempfile::TempDir;

const NOW: &str = "2026-11-23T09:00:00Z";

struct Site {
    dir: TempDir,
}

struct Out {
    ok: bool,
    stdout: String,
    stderr: String,
}

impl Site {
    fn new() -> Site {
        let dir = TempDir::new().unwrap();
        std::fs::write(
            dir.path().join("config.toml"),
            "[mail]\naddress = \"sm@example.org\"\n[site]\nmoderators = [\"gm@example.org\"]\n",
        )
        .unwrap();
        Site { dir }
    }

    fn run(&self, args: &[&str]) -> Out {
        let out = Command::cargo_bin("stationmaster")
            .unwrap()
            .current_dir(self.dir.path())
            .env("STATIONMASTER_CONFIG", "config.toml")
            .env("STATIONMASTER_NOW", NOW)
            .args(args)
            .output()
            .unwrap();
        Out {
            ok: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        assert!(o.ok, "{args:?} failed: {}{}", o.stdout, o.stderr);
        o.stdout
    }

    /// `player`'s orders in rocket-1, from the command line.
    fn order(&self, player: &str, orders: &str) -> String {
        self.ok(&["order", "rocket-1", "--as", player, orders])
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.ok(&["show", "rocket-1", "--json"])).unwrap()
    }

    /// Game rocket-1: seed 7, bob starts.
    fn game(&self) {
        self.ok(&[
            "new",
            "rocket",
            "--player",
            "alice=alice@example.org",
            "--player",
            "bob=bob@example.org",
            "--player",
            "cecil=cecil@example.org",
            "--seed",
            "7",
            "--moderator",
            "mod@example.org",
        ]);
    }

    /// The .eml files sent so far, as text.
    fn sent(&self) -> Vec<String> {
        self.ok(&["process"]);
        let dir = self.dir.path().join("var/outbox");
        let mut out = Vec::new();
        if let Ok(rd) = std::fs::read_dir(&dir) {
            for e in rd.flatten() {
                out.push(std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
        out
    }

    /// [`Self::sent`], each followed by its text part as a mail program
    /// reads it (flowed lines joined).
    fn sent_read(&self) -> Vec<String> {
        self.sent()
            .into_iter()
            .map(|raw| {
                let m = mail_parser::MessageParser::default()
                    .parse(raw.as_bytes())
                    .unwrap();
                let text = crate::flowed::text_part(&m).unwrap_or_default();
                format!("{raw}\n{text}")
            })
            .collect()
    }

    fn log(&self) -> String {
        self.ok(&["log", "rocket-1"])
    }

    /// gm@example.org's moderator command in rocket-1, for `why`.
    fn moderate(&self, why: &str, command: &[&str]) -> String {
        let mut args = vec!["mod", "rocket-1", "--by", "gm@example.org", "--why", why];
        args.extend_from_slice(command);
        self.ok(&args)
    }

    /// Sends what waits and forgets the mails sent so far, so that the
    /// next [`Site::sent`] holds only what came after.
    fn forget_sent(&self) {
        self.sent();
        std::fs::remove_dir_all(self.dir.path().join("var/outbox")).unwrap();
    }
}

/// The secret key in the subject tag (`[rocket-1 KEY]`) of the first of
/// `mails` that `is_it` picks: a player's welcome or a moderator's key mail.
fn key_in(mails: &[String], is_it: impl Fn(&str) -> bool) -> String {
    let mail = mails
        .iter()
        .find(|m| is_it(m))
        .expect("the mail with the key");
    let subject = mail
        .lines()
        .find(|l| l.starts_with("Subject:"))
        .expect("a subject");
    subject
        .split_whitespace()
        .nth(2)
        .expect("a key in the subject tag")
        .trim_end_matches(']')
        .to_string()
}

/// The key of rocket-1's moderator (mod@example.org), from their key mail
/// among `mails`.
fn moderators_key(mails: &[String]) -> String {
    key_in(mails, |m| {
        m.contains("You moderate rocket-1") && m.contains("To: mod@example.org")
    })
}

#[test]
fn pause_resume_extend_deadline_and_note_from_the_command_line() {
    let s = Site::new();
    s.game();
    let due = |s: &Site| {
        s.json()["awaiting"][0]["deadline"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(due(&s), "2026-11-25T09:00:00+00:00");
    assert!(
        s.ok(&[
            "mod",
            "rocket-1",
            "--by",
            "mod@example.org",
            "--why",
            "holiday",
            "extend",
            "24h"
        ])
        .contains("extended by 1d")
    );
    assert_eq!(due(&s), "2026-11-26T09:00:00+00:00");
    s.ok(&["mod", "rocket-1", "deadline", "2026-12-01T18:00:00Z"]);
    assert_eq!(due(&s), "2026-12-01T18:00:00+00:00");
    s.ok(&["mod", "rocket-1", "pause"]);
    // Paused, the game says so where a player or moderator looks.
    assert!(s.json()["paused"]["since"].is_string(), "{}", s.json());
    let shown = s.ok(&["show", "rocket-1", "--as", "bob"]);
    assert!(
        shown.contains("Paused by a moderator (operator) since") && !shown.contains("Deadlines:"),
        "{shown}"
    );
    assert!(
        s.sent_read()
            .iter()
            .any(|m| m.contains("Orders are refused until it")),
        "the players are told their orders are refused"
    );
    let refused = s.run(&["mod", "rocket-1", "pause"]);
    assert!(
        !refused.ok && refused.stderr.contains("paused already"),
        "{}",
        refused.stderr
    );
    // The command line's orders are a player's orders: refused too, and
    // the log and the players' mail stay as they were.
    let (log, mails) = (s.log(), s.sent().len());
    let order = s.run(&[
        "order",
        "rocket-1",
        "--as",
        "alice",
        "token manchester textiles",
    ]);
    assert!(
        !order.ok
            && order.stderr.contains("Nothing was applied")
            && order.stderr.contains("paused")
            && order.stderr.contains("mod rocket-1 resume"),
        "{}",
        order.stderr
    );
    assert_eq!((s.log(), s.sent().len()), (log, mails));
    // Resumed two days later: the deadline moved on by two days.
    let out = Command::cargo_bin("stationmaster")
        .unwrap()
        .current_dir(s.dir.path())
        .env("STATIONMASTER_CONFIG", "config.toml")
        .env("STATIONMASTER_NOW", "2026-11-25T09:00:00Z")
        .args(["mod", "rocket-1", "resume"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(due(&s), "2026-12-03T18:00:00+00:00");
    assert!(s.json()["paused"].is_null());
    s.ok(&["mod", "rocket-1", "note", "Welcome", "all!"]);
    let log = s.log();
    for act in [
        "extend 1d",
        "deadline 2026-12-01T18:00:00+00:00",
        "pause",
        "resume",
        "note: Welcome all!",
    ] {
        assert!(log.contains(act), "the log lacks {act}: {log}");
    }
    assert!(
        log.contains("moderator mod@example.org: extend 1d"),
        "who acted: {log}"
    );
    let mails = s.sent();
    assert!(
        mails
            .iter()
            .any(|m| m.contains("A note from a moderator: Welcome all!"))
    );
    assert!(
        mails.iter().any(|m| m.contains("more (holiday)")),
        "the reason is told"
    );
}

#[test]
fn resume_says_how_long_the_game_was_paused_in_days_and_hours() {
    let s = Site::new();
    s.game();
    s.ok(&["mod", "rocket-1", "pause"]);
    // 2 days 21 hours (4140 minutes) after the pause.
    let out = Command::cargo_bin("stationmaster")
        .unwrap()
        .current_dir(s.dir.path())
        .env("STATIONMASTER_CONFIG", "config.toml")
        .env("STATIONMASTER_NOW", "2026-11-26T06:00:00Z")
        .args(["mod", "rocket-1", "resume"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("rocket-1 resumed; deadlines moved on by 2 days 21 hours."),
        "{said}"
    );
}

#[test]
fn as_preview_skip_and_undo() {
    let s = Site::new();
    s.game();
    // preview changes nothing.
    let before = s.json();
    let p = s.ok(&[
        "mod",
        "rocket-1",
        "preview",
        "bob",
        "token manchester textiles; extend ly b4",
    ]);
    // Labelled as bob's, not the moderator's own.
    assert!(p.contains("bob receives £2,000"), "{p}");
    assert!(p.contains("bob's money: £2,000 (private)"), "{p}");
    assert!(
        !p.contains("You receive") && !p.contains("Your money"),
        "{p}"
    );
    assert_eq!(s.json(), before);
    // as: applied for bob, who is told.
    s.ok(&[
        "mod",
        "rocket-1",
        "as",
        "bob",
        "token manchester textiles; extend ly b4",
    ]);
    assert_eq!(s.json()["turn"]["active_player"], "cecil");
    assert!(
        s.sent_read()
            .iter()
            .any(|m| m.contains("A moderator gave orders for you"))
    );
    // skip: cecil's turn is skipped, and the moderator is told whose
    // (not only "Every awaited player was skipped.") and who is next.
    let out = s.ok(&["mod", "rocket-1", "skip"]);
    assert_eq!(s.json()["turn"]["active_player"], "alice");
    assert_eq!(
        out.trim(),
        "Skipped: cecil (2 actions). rocket-1: Waiting for alice (2 actions)."
    );
    // undo 3: back to the start.
    let out = s.ok(&["mod", "rocket-1", "--why", "mistake", "undo", "3"]);
    assert!(out.contains("bob: token Manchester textiles"), "{out}");
    // The skip in words, never its stored form.
    assert!(
        out.contains("cecil's turn, skipped by moderator operator") && !out.contains("!skip"),
        "{out}"
    );
    assert!(
        s.sent_read()
            .iter()
            .any(|m| m.contains("A moderator undid the last 3 moves")
                && m.contains("cecil's turn, skipped by moderator operator")),
        "the players are told in words"
    );
    assert!(s.sent_read().iter().all(|m| !m.contains("!skip")));
    assert_eq!(s.json(), before);
    let log = s.log();
    assert!(log.contains("undo 3"), "{log}");
    // Undo cannot reach past the start.
    assert!(!s.run(&["mod", "rocket-1", "undo", "1"]).ok);
    s.ok(&["verify", "rocket-1"]);
}

/// A moderator's `skip` reports what it did at once; the reports after it
/// (an `undo`, here) start after it, and do not tell the skipped turn
/// again as news.
#[test]
fn the_report_after_a_skip_does_not_tell_the_skip_again() {
    let s = Site::new();
    s.ok(&[
        "new",
        "rocket",
        "--player",
        "alice=alice@example.org",
        "--player",
        "bob=bob@example.org",
        "--seed",
        "7",
        "--policy",
        "default",
    ]);
    s.ok(&["mod", "rocket-1", "skip"]);
    let skipped: Vec<String> = s.sent_read();
    assert!(
        skipped.iter().any(|m| m.contains("skipped by moderator")),
        "the skip is reported"
    );
    let outbox = s.dir.path().join("var/outbox");
    std::fs::remove_dir_all(&outbox).unwrap();
    s.ok(&["mod", "rocket-1", "undo"]);
    let undone = s.sent();
    assert_eq!(undone.len(), 2, "a report each");
    for raw in undone {
        let m = mail_parser::MessageParser::default()
            .parse(raw.as_bytes())
            .unwrap();
        let text = crate::flowed::text_part(&m).unwrap().replace("\r\n", "\n");
        let since = text
            .split("Since your last report:")
            .nth(1)
            .expect("what happened since")
            .split("\n\n")
            .next()
            .unwrap();
        assert_eq!(since.trim(), "moderator operator: undo 1", "{text}");
    }
}

#[test]
fn undo_across_a_veto_round_and_a_merger() {
    let s = Site::new();
    s.game();
    let order = |who: &str, what: &str| s.ok(&["order", "rocket-1", "--as", who, what]);
    // A veto round: three entries of bids and a call.
    order("bob", "token manchester textiles\nextend ly b4");
    let before_veto = s.json();
    order("cecil", "extend ly c5");
    order("bob", "veto\nbid 1 c3");
    order("cecil", "bid 1 c5");
    assert_eq!(s.json()["phase"], "actions");
    s.ok(&["mod", "rocket-1", "undo", "4"]);
    assert_eq!(s.json(), before_veto, "undo across the veto round");
    s.ok(&["verify", "rocket-1"]);

    // A merger (GWR into LNWR) and its undo.
    let s = Site::new();
    s.game();
    let order = |who: &str, what: &str| s.ok(&["order", "rocket-1", "--as", who, what]);
    order("bob", "extend lnwr d11\nextend gwr c14");
    order("cecil", "extend lnwr c12");
    order("bob", "no veto");
    let before_merger = s.json();
    order("cecil", "extend gwr c13");
    order("bob", "no veto");
    let gwr = |v: &serde_json::Value| {
        v["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["id"] == "GWR")
            .unwrap()["status"]
            .clone()
    };
    assert_eq!(gwr(&s.json()), "dissolved");
    s.ok(&["mod", "rocket-1", "undo", "2"]);
    assert_eq!(s.json(), before_merger);
    assert_eq!(gwr(&s.json()), "active");
    // Play goes on from there.
    order("cecil", "extend gwr c13");
    s.ok(&["verify", "rocket-1"]);
}

#[test]
fn replace_gives_the_seat_a_new_address_and_key() {
    let s = Site::new();
    s.game();
    s.sent();
    s.ok(&["mod", "rocket-1", "replace", "cecil", "carol@example.org"]);
    let mails = s.sent();
    assert!(
        mails
            .iter()
            .any(|m| m.contains("To: cecil <carol@example.org>") && m.contains("Welcome")),
        "a welcome to the new player"
    );
    assert!(
        mails
            .iter()
            .any(|m| m.contains("cecil@example.org") && m.contains("Your seat has a new player"))
    );
    let log = s.log();
    assert!(log.contains("replace cecil by carol@example.org"));
}

#[test]
fn abort_ends_the_game_and_archives_it() {
    let s = Site::new();
    s.game();
    s.ok(&[
        "mod",
        "rocket-1",
        "--by",
        "mod@example.org",
        "--why",
        "players left",
        "abort",
    ]);
    let refused = s.run(&["mod", "rocket-1", "pause"]);
    assert!(
        !refused.ok && refused.stderr.contains("only `note` and `resend`"),
        "nothing after abort: {}",
        refused.stderr
    );
    // No more orders, with a sentence that says why.
    let o = s.run(&[
        "order",
        "rocket-1",
        "--as",
        "bob",
        "token manchester textiles",
    ]);
    assert!(!o.ok, "an order after abort was applied");
    assert!(
        o.stderr.contains(
            "rocket-1 was aborted by a moderator (mod@example.org) on Mon 23 Nov 2026 09:00 UTC (players left): it takes no more orders"
        ),
        "{}",
        o.stderr
    );
    // Every view says it is over.
    let games = s.ok(&["games"]);
    assert!(
        games.contains("aborted on Mon 23 Nov 2026 09:00 UTC") && !games.contains("Waiting for"),
        "{games}"
    );
    let show = s.ok(&["show", "rocket-1", "--as", "bob"]);
    assert!(
        show.contains("This game was aborted by a moderator"),
        "{show}"
    );
    assert!(!show.contains("You can:"), "{show}");
    let v = s.json();
    assert_eq!(v["finished"], true);
    assert_eq!(v["awaiting"], serde_json::json!([]));
    assert_eq!(v["aborted"]["by"], "mod@example.org");
    assert_eq!(v["aborted"]["why"], "players left");
    assert_eq!(v["aborted"]["at"], "2026-11-23T09:00:00+00:00");
    // The text log shows the moderator's reason.
    let log = s.log();
    assert!(
        log.contains("moderator mod@example.org: abort (why: players left)"),
        "{log}"
    );
    // A note and a resend still work on a game that is over.
    s.ok(&["mod", "rocket-1", "note", "Thanks", "for", "playing"]);
    s.ok(&["mod", "rocket-1", "resend"]);
    let mails = s.sent();
    assert!(
        mails
            .iter()
            .any(|m| m.contains("Thanks for playing") && m.contains("aborted")),
        "the note goes out, saying the game is over"
    );
    let dir = s.dir.path().join("var/archive/rocket-1");
    for f in ["log.txt", "final.txt", "log.json", "index.html"] {
        assert!(dir.join(f).exists(), "{f} missing");
    }
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("<pre") && html.contains("Aborted by a moderator"));
    // The final board's picture: in the page, above the map, and on its own.
    let svg = std::fs::read_to_string(dir.join("final.svg")).unwrap();
    assert!(svg.starts_with("<svg"), "{svg}");
    let at = html
        .find(svg.trim_end())
        .expect("the page embeds final.svg");
    assert!(at < html.find("<pre").unwrap());
    // `show --svg` and `--png` write the same board to a file.
    let out = s.ok(&["show", "rocket-1", "--svg", "board.svg"]);
    assert!(out.contains("board.svg"), "{out}");
    assert_eq!(
        std::fs::read_to_string(s.dir.path().join("board.svg")).unwrap(),
        svg
    );
    s.ok(&["show", "rocket-1", "--as", "bob", "--png", "board.png"]);
    let png = std::fs::read(s.dir.path().join("board.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let both = s.run(&["show", "rocket-1", "--json", "--png", "x.png"]);
    assert!(!both.ok && !s.dir.path().join("x.png").exists());
}

#[test]
fn a_finished_game_is_archived_with_its_final_scores() {
    let s = Site::new();
    s.game();
    // Play to the end with the engine choosing legal orders through `as`.
    let setup = stationmaster::engine::Setup {
        kind: "rocket".into(),
        players: ["alice", "bob", "cecil"]
            .iter()
            .map(|n| stationmaster::engine::PlayerSetup {
                name: n.to_string(),
                email: format!("{n}@example.org"),
            })
            .collect(),
        options: vec![],
        seed: 7,
    };
    use stationmaster::engine::Game;
    let mut g = stationmaster::rocket::Rocket::new(
        stationmaster::rocket::Board::embedded().unwrap(),
        &setup,
    )
    .unwrap();
    let mut rng = stationmaster::engine::rng::SplitMix64::new(3);
    let mut batch: Vec<(usize, String)> = Vec::new();
    while let stationmaster::engine::Status::Active(a) = g.status() {
        let seat = a[0].seat;
        let legal = g.legal_orders(seat);
        let ext: Vec<_> = legal
            .iter()
            .filter(|o| matches!(o, stationmaster::rocket::Order::Extend { .. }))
            .collect();
        let o = if !ext.is_empty() {
            ext[rng.below(ext.len())].clone()
        } else {
            legal[rng.below(legal.len())].clone()
        };
        batch.push((seat.index(), g.order_text(&o)));
        g.apply(seat, &o).unwrap();
    }
    for (seat, line) in batch {
        s.ok(&[
            "order",
            "rocket-1",
            "--as",
            ["alice", "bob", "cecil"][seat],
            &line,
        ]);
    }
    let text =
        std::fs::read_to_string(s.dir.path().join("var/archive/rocket-1/final.txt")).unwrap();
    assert!(text.contains("Final scores"), "{text}");
    s.ok(&["verify", "rocket-1"]);
    let json: serde_json::Value =
        serde_json::from_str(&s.ok(&["log", "rocket-1", "--json", "--turns", "1..2"])).unwrap();
    let entries = json.as_array().unwrap();
    assert!(!entries.is_empty() && entries.iter().all(|e| e["turn"].as_u64().unwrap() <= 2));
    assert!(
        entries
            .iter()
            .all(|e| e["hash"].as_str().unwrap().len() == 64)
    );
}

#[test]
fn verify_catches_an_edited_log_entry() {
    let s = Site::new();
    s.game();
    s.order("bob", "token manchester textiles\nextend ly b4");
    s.order("cecil", "token london steel\ntoken london textiles");
    assert!(
        s.ok(&["verify", "rocket-1"])
            .contains("4 entries are intact")
    );
    // Someone edits entry 3 in the database: London steel becomes leather.
    {
        let db = stationmaster::store::open_raw(s.dir.path().join("var/db")).unwrap();
        let log = db.open_tree("log").unwrap();
        let mut key = b"rocket-1".to_vec();
        key.push(0);
        key.extend_from_slice(&3u64.to_be_bytes());
        let v = log.get(&key).unwrap().unwrap();
        let edited = String::from_utf8(v.to_vec())
            .unwrap()
            .replace("token London steel", "token London leather");
        log.insert(&key, edited.as_bytes()).unwrap();
        db.flush().unwrap();
    }
    let out = s.run(&["verify", "rocket-1"]);
    assert!(!out.ok);
    assert!(
        out.stderr
            .contains("entry 3 (token London leather) was changed after it was written"),
        "{}",
        out.stderr
    );
}

#[test]
fn moderators_command_by_mail_with_their_key() {
    let s = Site::new();
    s.game();
    let mails = s.sent();
    let token = moderators_key(&mails);
    assert!(
        mails
            .iter()
            .any(|m| m.contains("To: gm@example.org") && m.contains("You moderate rocket-1")),
        "site moderators get a key too"
    );
    let inbox = s.dir.path().join("var/inbox/new");
    std::fs::create_dir_all(&inbox).unwrap();
    let mail = |n: u32, from: &str, token: &str, body: &str| {
        std::fs::write(
            inbox.join(format!("{n}.mod")),
            format!("From: {from}\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] x\r\nMessage-ID: <mod{n}@example.org>\r\n\r\n{body}\r\n"),
        )
        .unwrap();
    };
    mail(
        1,
        "mod@example.org",
        &token,
        "why the players asked\nextend 12h",
    );
    s.ok(&["process"]);
    assert_eq!(
        s.json()["awaiting"][0]["deadline"],
        "2026-11-25T21:00:00+00:00"
    );
    assert!(s.log().contains("extend 12h"));
    // A wrong key: nothing changes.
    mail(2, "mod@example.org", "wrongkey99", "extend 12h");
    s.ok(&["process"]);
    assert_eq!(
        s.json()["awaiting"][0]["deadline"],
        "2026-11-25T21:00:00+00:00"
    );
    // `as` by mail, and a paused game refusing a player's orders.
    mail(
        3,
        "mod@example.org",
        &token,
        "as bob token manchester textiles",
    );
    s.ok(&["process"]);
    assert_eq!(s.json()["players"][1]["tokens"]["textiles"], 1);
    // Greetings and sign-offs around the commands are shown, not refused.
    mail(4, "mod@example.org", &token, "Hi all,\npause\nThanks,\nMo");
    s.ok(&["process"]);
    let outbox = s.sent();
    assert!(
        outbox.iter().any(|m| m.contains("To: mod@example.org")
            && m.contains("> pause")
            && m.contains("is paused")
            && m.contains("Not read as commands (no command begins so):")
            && m.contains("  Thanks,")
            && !m.contains("refused")),
        "the moderator's reply"
    );
}

#[test]
fn every_moderator_command_works_by_mail() {
    let s = Site::new();
    s.game();
    let mails = s.sent();
    let token = moderators_key(&mails);
    let inbox = s.dir.path().join("var/inbox/new");
    std::fs::create_dir_all(&inbox).unwrap();
    let mut n = 0;
    // One command a mail (one change per mail); the reply to the moderator
    // shows its outcome.
    let mut command = |body: &str| -> String {
        n += 1;
        let before: std::collections::BTreeSet<String> = s.sent().into_iter().collect();
        std::fs::write(
            inbox.join(format!("{n:03}.mod")),
            format!("From: mod@example.org\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] c{n}\r\nMessage-ID: <every{n}@example.org>\r\n\r\nwhy testing\r\n{body}\r\n"),
        )
        .unwrap();
        let after = s.sent();
        let reply = after
            .into_iter()
            .filter(|m| !before.contains(m))
            .find(|m| {
                m.contains("To: mod@example.org")
                    && m.contains(&format!("In-Reply-To: <every{n}@example.org>"))
            })
            .unwrap_or_default();
        assert!(
            reply.contains(&format!("> {}", body.lines().next().unwrap())),
            "no reply to {body}: {reply}"
        );
        assert!(!reply.contains("refused"), "{body} refused: {reply}");
        reply
    };
    command("preview bob token manchester textiles");
    command("as bob token manchester textiles; extend ly b4");
    command("note hello");
    command("extend 6h");
    command("deadline 2026-12-24T18:00:00Z");
    command("set turn 72h");
    command("pause");
    command("resume");
    command("skip");
    command("undo 1");
    command("resend");
    command("moderator gm2@example.org");
    command("replace alice anna@example.org");
    command("abort");
    let log = s.log();
    for act in [
        "as bob",
        "note: hello",
        "extend 6h",
        "deadline 2026-12-24",
        "set turn 72h",
        "pause",
        "resume",
        "skip",
        "undo 1",
        "moderator gm2@example.org",
        "replace alice by anna@example.org",
        "abort",
    ] {
        assert!(log.contains(act), "the log lacks {act}: {log}");
    }
    assert!(log.contains("moderator mod@example.org"), "who: {log}");
    let json: serde_json::Value =
        serde_json::from_str(&s.ok(&["log", "rocket-1", "--json"])).unwrap();
    assert!(
        json.as_array()
            .unwrap()
            .iter()
            .any(|e| e["why"] == "testing"),
        "why is kept"
    );
    s.ok(&["verify", "rocket-1"]);
}

#[test]
fn a_bad_setting_or_command_is_refused_with_a_sentence() {
    let s = Site::new();
    s.game();
    let out = s.run(&["mod", "rocket-1", "set", "turn", "soon"]);
    assert!(
        !out.ok && out.stderr.contains("not a duration"),
        "{}",
        out.stderr
    );
    let out = s.run(&["mod", "rocket-1", "set", "colour", "red"]);
    assert!(
        !out.ok && out.stderr.contains("is not a deadline setting"),
        "{}",
        out.stderr
    );
    // No time, or less than none, is no extension: refused, and nobody is
    // told they got `0m` more.
    for (span, says) in [
        (
            "0h",
            "`extend 0h` gives nobody more time: say how much more, e.g. extend 24h",
        ),
        ("0d0m", "`extend 0d0m` gives nobody more time"),
        ("-24h", "`-24h` is not a duration such as 48h, 2d or 90m"),
    ] {
        let out = s.run(&["mod", "rocket-1", "extend", span]);
        assert!(
            !out.ok && out.stderr.contains(says),
            "extend {span}: {}",
            out.stderr
        );
    }
    assert!(
        !s.log().contains("extend"),
        "a refused extend is not logged"
    );
    let out = s.run(&["mod", "rocket-1", "dance"]);
    assert!(
        !out.ok && out.stderr.contains("is not a moderator command"),
        "{}",
        out.stderr
    );
    let out = s.run(&["mod", "rocket-1", "as", "zed", "pass"]);
    assert!(
        !out.ok && out.stderr.contains("zed does not play in rocket-1"),
        "{}",
        out.stderr
    );
    s.ok(&["mod", "rocket-1", "set", "time_zone", "Europe/Rome"]);
    let v = s.json();
    assert_eq!(v["deadlines"]["time_zone"], "Europe/Rome");
}

#[test]
fn an_aborted_game_refuses_orders_by_mail_and_the_reply_says_why() {
    let s = Site::new();
    s.game();
    let mails = s.sent();
    // bob's key, from his welcome mail's subject tag.
    let key = key_in(&mails, |m| m.contains("To: bob <bob@example.org>"));
    s.ok(&["mod", "rocket-1", "--why", "a test", "abort"]);
    let before = s.json();
    let inbox = s.dir.path().join("var/inbox/new");
    std::fs::create_dir_all(&inbox).unwrap();
    std::fs::write(
        inbox.join("001.bob"),
        format!("From: bob@example.org\r\nTo: sm+rocket-1.{key}@example.org\r\nSubject: Re: [rocket-1 {key}] Stephenson's Rocket\r\nMessage-ID: <late1@example.org>\r\n\r\ntoken manchester textiles\r\n"),
    )
    .unwrap();
    let after = s.sent();
    let reply = after
        .iter()
        .find(|m| m.contains("In-Reply-To: <late1@example.org>"))
        .expect("bob is answered");
    let flat = reply
        .replace("=\r\n", "")
        .replace("\r\n", " ")
        .replace('\n', " ");
    assert!(
        flat.contains("rocket-1 was aborted by a moderator (operator) on Mon 23 Nov 2026 09:00 UTC (a test): it takes no more orders"),
        "{reply}"
    );
    assert_eq!(s.json(), before, "nothing applied");
}

/// docs/game-masters.md, "Moderating": the site's moderators get a key for every game,
/// also one added to `[site] moderators` after the game began; a game that
/// is over gets none, and nobody gets a key twice.
#[test]
fn a_moderator_added_to_the_site_later_gets_a_key_for_each_running_game() {
    let s = Site::new();
    s.game();
    s.ok(&[
        "new",
        "rocket",
        "--player",
        "alice=alice@example.org",
        "--player",
        "bob=bob@example.org",
        "--seed",
        "8",
    ]);
    s.ok(&["mod", "rocket-2", "abort"]);
    let keys_to = |mails: &[String], who: &str| {
        mails
            .iter()
            .filter(|m| m.contains(&format!("To: {who}")) && m.contains("] You moderate rocket-"))
            .count()
    };
    assert_eq!(keys_to(&s.sent(), "late@example.org"), 0);
    // Paused, its clock stands still: a key made meanwhile leaves it so.
    s.ok(&["mod", "rocket-1", "pause"]);
    let clock = |v: serde_json::Value| (v["paused"].clone(), v["awaiting"].clone());
    let before_clock = clock(s.json());
    let before = s.sent().len();
    std::fs::write(
        s.dir.path().join("config.toml"),
        "[mail]\naddress = \"sm@example.org\"\n[site]\nmoderators = [\"gm@example.org\", \"late@example.org\"]\n",
    )
    .unwrap();
    let mails = s.sent();
    assert_eq!(
        keys_to(&mails, "late@example.org"),
        1,
        "rocket-1 only: rocket-2 is over"
    );
    assert!(
        mails
            .iter()
            .any(|m| m.contains("Subject: [rocket-1 ") && m.contains("To: late@example.org")),
        "the key is for rocket-1"
    );
    assert!(
        s.log()
            .contains("moderator late@example.org (a moderator of the site): key sent")
    );
    assert_eq!(
        clock(s.json()),
        before_clock,
        "still paused, the deadlines as they were"
    );
    // Looked at once: no second key, and the players were not mailed.
    let again = s.sent();
    assert_eq!(keys_to(&again, "late@example.org"), 1);
    assert_eq!(again.len(), before + 1, "only the key mail was sent");
    // The key is kept with the game.
    let export = s.ok(&["export"]);
    assert!(export.contains("late@example.org"), "the key is stored");
}

/// `as`: the moderator's orders told apart from the waiting orders their
/// moment brought on (a standing bid held, a player's own held order), and
/// the act logged before the entries it caused.
#[test]
fn as_tells_the_moderators_orders_apart_from_the_waiting_ones_they_bring_on() {
    let s = Site::new();
    s.game();
    s.order("bob", "token manchester textiles\nextend ly b4");
    s.order("cecil", "extend ly c5");
    s.order("cecil", "veto");
    s.order("cecil", "station F8");
    // Not cecil's place in the round yet: the bid is held, not applied.
    let held = s.ok(&["mod", "rocket-1", "as", "cecil", "bid 1 c5"]);
    assert!(
        held.starts_with("Held for cecil: bid 1 c5") && !held.contains("Applied"),
        "{held}"
    );
    let out = s.ok(&["mod", "rocket-1", "as", "bob", "pass"]);
    assert_eq!(
        out.trim(),
        "Applied for bob: pass. Waiting orders applied after them: cecil: bid 1 C5; cecil: station F8."
    );
    let log = s.log();
    let heads: Vec<&str> = log.lines().filter(|l| l.starts_with('#')).collect();
    let at = |text: &str| {
        heads
            .iter()
            .position(|l| l.contains(text))
            .unwrap_or_else(|| panic!("{text}: {heads:#?}"))
    };
    let act = at("moderator operator: as bob: pass");
    let order = heads
        .iter()
        .position(|l| l.ends_with(" bob: pass") && !l.contains("moderator"))
        .unwrap();
    assert!(act < order && order < at("cecil: station F8"), "{heads:#?}");
    // Bob is told of the order given for him, not of cecil's.
    let mails = s.sent();
    assert!(
        mails
            .iter()
            .any(|m| m.contains("A moderator gave orders for you: pass.")),
        "bob's note"
    );
}

/// While a game is paused its clocks stand still: the reports say so in
/// place of a deadline that the resume will move on, and offer no orders
/// (which are refused meanwhile), as `show` does.
#[test]
fn a_paused_games_reports_show_no_deadline_the_resume_will_move() {
    let s = Site::new();
    s.game();
    s.ok(&["mod", "rocket-1", "--why", "holiday", "pause"]);
    let mails: Vec<String> = s
        .sent()
        .iter()
        .map(|m| {
            let parsed = mail_parser::MessageParser::default()
                .parse(m.as_bytes())
                .unwrap();
            crate::flowed::text_part(&parsed)
                .unwrap_or_default()
                .replace("\r\n", "\n")
        })
        .filter(|t| t.contains("A moderator paused the game"))
        .collect();
    assert_eq!(mails.len(), 3, "every player is told");
    for text in &mails {
        let flat = crate::common::flat(text);
        assert!(
            flat.contains("Deadlines: None while the game is paused (by a moderator since Mon 23 Nov 2026 09:00 UTC): the clocks stand still"),
            "{text}"
        );
        assert!(!flat.contains("by Wed 25 Nov 2026"), "{text}");
        assert!(!text.contains("You can:"), "{text}");
    }
}

/// A moderator's command by mail that is incomplete or whose orders are
/// refused is answered with one clear sentence: `replace bob` names the
/// whole form (it said "write `replace PLAYER …`", hiding the address it
/// lacked), and refused orders of `as` say "refused: nothing applied for
/// bob: order 2: …" (they said "refused: refused, nothing applied: line
/// 2", where the orders stood on one line).
#[test]
fn a_moderators_incomplete_or_refused_command_by_mail_is_one_clear_sentence() {
    let s = Site::new();
    s.game();
    let mails = s.sent();
    let token = moderators_key(&mails);
    let inbox = s.dir.path().join("var/inbox/new");
    std::fs::create_dir_all(&inbox).unwrap();
    let answer = |n: u32, body: &str| -> String {
        std::fs::write(
            inbox.join(format!("{n}.mod")),
            format!("From: mod@example.org\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] x\r\nMessage-ID: <clear{n}@example.org>\r\n\r\n{body}\r\n"),
        )
        .unwrap();
        s.sent()
            .into_iter()
            .find(|m| m.contains(&format!("In-Reply-To: <clear{n}@example.org>")))
            .unwrap_or_default()
    };
    let reply = answer(1, "replace bob");
    assert!(
        reply.contains("refused: `replace bob` is incomplete: write `replace PLAYER ADDRESS`"),
        "{reply}"
    );
    let reply = answer(2, "as bob token manchester textiles; station z99");
    assert!(
        reply.contains("refused: nothing applied for bob: order 2: ")
            && !reply.contains("refused: refused"),
        "{reply}"
    );
    let out = s.run(&["mod", "rocket-1", "as", "bob"]);
    assert!(
        !out.ok
            && out
                .stderr
                .contains("`as bob` is incomplete: write `as PLAYER ORDER; ORDER …`"),
        "{}",
        out.stderr
    );
}

/// The answer to a moderator's mail carries their key in its reply address,
/// as every other mail to them does: a reply to it from a mail program
/// that dropped the subject's tag still reaches the game as theirs. (It
/// came from the bare address, so such a reply lost the key.)
#[test]
fn the_answer_to_a_moderators_mail_carries_their_key_in_its_reply_address() {
    let s = Site::new();
    s.game();
    let mails = s.sent();
    let token = moderators_key(&mails);
    let inbox = s.dir.path().join("var/inbox/new");
    std::fs::create_dir_all(&inbox).unwrap();
    std::fs::write(
        inbox.join("1.mod"),
        format!("From: mod@example.org\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] x\r\nMessage-ID: <key1@example.org>\r\n\r\nnote hello\r\n"),
    )
    .unwrap();
    let answer = s
        .sent()
        .into_iter()
        .find(|m| m.contains("In-Reply-To: <key1@example.org>"))
        .unwrap_or_default();
    let reply_to = format!("sm+rocket-1.{token}@example.org");
    assert!(
        answer
            .lines()
            .any(|l| l.starts_with("Reply-To:") && l.contains(&reply_to)),
        "{answer}"
    );
    // Answered to that address, under a subject without the tag.
    std::fs::write(
        inbox.join("2.mod"),
        format!("From: mod@example.org\r\nTo: {reply_to}\r\nSubject: Re: You moderate rocket-1\r\nMessage-ID: <key2@example.org>\r\nIn-Reply-To: <key1@example.org>\r\n\r\npause\r\n"),
    )
    .unwrap();
    s.ok(&["process"]);
    assert!(s.log().contains("pause"), "{}", s.log());
}

/// A moderator can declare a player's absence for them (a player who
/// phoned, or wrote from elsewhere): `as bob away … to …` holds bob's
/// deadline as bob's own `away` would, and `as bob back` ends it; both are
/// in the log and everyone is told. (`away` was refused as "not an order",
/// leaving the game master no way to do it.)
#[test]
fn a_moderator_puts_a_player_away_and_back() {
    let s = Site::new();
    s.game();
    let due = s.json()["awaiting"][0]["deadline"].clone();
    assert_eq!(due, "2026-11-25T09:00:00+00:00");
    let out = s.ok(&[
        "mod",
        "rocket-1",
        "--why",
        "bob phoned",
        "as",
        "bob",
        "away 2026-11-24 to 2026-11-26",
    ]);
    assert!(out.contains("bob is away from"), "{out}");
    assert_ne!(
        s.json()["awaiting"][0]["deadline"],
        due,
        "the deadline waits"
    );
    assert!(
        s.sent()
            .iter()
            .any(|m| m.contains("To: cecil")
                && m.contains("A moderator declared an absence for bob")),
        "everyone is told"
    );
    let out = s.ok(&["mod", "rocket-1", "as", "bob", "back"]);
    assert!(out.contains("bob is back"), "{out}");
    assert_eq!(
        s.json()["awaiting"][0]["deadline"],
        due,
        "not begun: no time"
    );
    let log = s.log();
    assert!(
        log.contains("as bob: away 2026-11-24 to 2026-11-26") && log.contains("as bob: back"),
        "{log}"
    );
    // A bad date is refused with the player's own sentence, nothing changed.
    let out = s.run(&["mod", "rocket-1", "as", "bob", "away soon"]);
    assert!(
        !out.ok && out.stderr.contains("away soon: "),
        "{}",
        out.stderr
    );
}

/// The text parts of the mails sent so far, in the order they were queued.
fn texts(s: &Site) -> Vec<String> {
    let mut mails = s.sent();
    mails.sort();
    mails
        .iter()
        .map(|m| {
            let parsed = mail_parser::MessageParser::default()
                .parse(m.as_bytes())
                .unwrap();
            let to = parsed
                .to()
                .and_then(|a| a.first())
                .and_then(|a| a.address())
                .unwrap_or_default()
                .to_string();
            let body = crate::flowed::text_part(&parsed)
                .unwrap_or_default()
                .replace("\r\n", "\n");
            format!("To: {to}\n{body}")
        })
        .collect()
}

/// A paused game's mails open with the pause, who made it and what ends
/// it: they opened with "Waiting for bob (2 actions)", telling bob he was
/// awaited while nothing could move.
#[test]
fn a_paused_games_headline_says_it_is_paused_by_whom_and_what_resumes_it() {
    let s = Site::new();
    s.game();
    s.forget_sent();
    s.moderate("holiday", &["pause"]);
    let mails = texts(&s);
    let to_bob: Vec<&String> = mails.iter().filter(|m| m.starts_with("To: bob@")).collect();
    assert_eq!(to_bob.len(), 1, "{mails:?}");
    let first = to_bob[0].lines().nth(1).unwrap_or_default();
    assert_eq!(
        first,
        "rocket-1: Paused by a moderator (gm@example.org) since Mon 23 Nov 2026 09:00 UTC: \
         nothing moves until a moderator resumes it; then bob (2 actions) is awaited.",
        "{}",
        to_bob[0]
    );
    let games = s.ok(&["games"]);
    assert!(
        games.contains("Paused by a moderator (gm@example.org)"),
        "{games}"
    );
    // Resumed, the game waits for bob again, and says so.
    s.ok(&["mod", "rocket-1", "resume"]);
    let mails = texts(&s);
    let to_bob: Vec<&String> = mails
        .iter()
        .filter(|m| m.starts_with("To: bob@") && m.contains("resumed"))
        .collect();
    assert_eq!(to_bob.len(), 1, "{mails:?}");
    assert!(
        to_bob[0].contains("rocket-1: Waiting for bob (2 actions)."),
        "{}",
        to_bob[0]
    );
}

/// `show` of a paused game names the moderator who paused it, as its mails
/// do ("Paused by a moderator (gm@example.org) since …"): it said only
/// "Paused by a moderator since …". The JSON's `paused` names them too.
#[test]
fn show_of_a_paused_game_names_who_paused_it_as_the_mails_do() {
    let s = Site::new();
    s.game();
    s.sent();
    std::fs::remove_dir_all(s.dir.path().join("var/outbox")).unwrap();
    s.ok(&["mod", "rocket-1", "--by", "gm@example.org", "pause"]);
    let mails = texts(&s);
    let to_bob = mails.iter().find(|m| m.starts_with("To: bob@")).unwrap();
    let headline = to_bob.lines().nth(1).unwrap_or_default();
    let said = headline.strip_prefix("rocket-1: ").unwrap_or(headline);
    assert!(
        said.starts_with("Paused by a moderator (gm@example.org) since "),
        "{said}"
    );
    for viewer in [&["--as", "bob"][..], &[]] {
        let mut args = vec!["show", "rocket-1"];
        args.extend(viewer);
        let shown = s.ok(&args);
        assert!(shown.contains(said), "{viewer:?}: `{said}` not in\n{shown}");
    }
    assert_eq!(s.json()["paused"]["by"], "gm@example.org", "{}", s.json());
}

/// A player a moderator skipped reads the skip once: "A moderator
/// (gm@example.org) skipped your turn." (it read "skipped your turn; the
/// rest of your turn was skipped").
#[test]
fn a_skipped_player_reads_the_skip_once() {
    let s = Site::new();
    s.game();
    s.forget_sent();
    s.ok(&["mod", "rocket-1", "--by", "gm@example.org", "skip"]);
    let mails = texts(&s);
    let to_bob: Vec<&String> = mails.iter().filter(|m| m.starts_with("To: bob@")).collect();
    assert_eq!(to_bob.len(), 1, "{mails:?}");
    assert!(
        to_bob[0].contains("A moderator (gm@example.org) skipped your turn.\n"),
        "{}",
        to_bob[0]
    );
    assert!(!to_bob[0].contains("was skipped."), "{}", to_bob[0]);
}

/// `undo` right after a turn the `default` policy played for a player who
/// missed its deadline gives them the whole turn back, with a new
/// deadline, and calls it what it was: it undid only the last of the
/// turn's two default orders (bob was left with one action and the first
/// token taken for him), and told everyone "undid the last 1 order(s)".
#[test]
fn undo_after_a_default_policy_turn_gives_the_whole_turn_back() {
    let s = Site::new();
    s.ok(&[
        "new",
        "rocket",
        "--player",
        "alice=alice@example.org",
        "--player",
        "bob=bob@example.org",
        "--player",
        "cecil=cecil@example.org",
        "--seed",
        "7",
        "--policy",
        "default",
    ]);
    let before = s.json();
    s.sent();
    // Bob's deadline (2 days) has passed: the game plays his turn.
    let later = |args: &[&str], at: &str| {
        let out = Command::cargo_bin("stationmaster")
            .unwrap()
            .current_dir(s.dir.path())
            .env("STATIONMASTER_CONFIG", "config.toml")
            .env("STATIONMASTER_NOW", at)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    later(&["process"], "2026-11-26T09:00:00Z");
    assert_eq!(s.json()["turn"]["active_player"], "cecil");
    std::fs::remove_dir_all(s.dir.path().join("var/outbox")).unwrap();
    let out = later(
        &["mod", "rocket-1", "--by", "gm@example.org", "undo"],
        "2026-11-26T10:00:00Z",
    );
    let told = "bob's turn, played for them at its missed deadline \
                (token Manchester steel; token Manchester textiles)";
    assert_eq!(out.trim(), format!("Undone: {told}."));
    let json: serde_json::Value = serde_json::from_str(&later(
        &["show", "rocket-1", "--json"],
        "2026-11-26T10:00:00Z",
    ))
    .unwrap();
    assert_eq!(json["players"], before["players"], "no token kept");
    assert_eq!(json["turn"], before["turn"], "bob's whole turn");
    assert_eq!(json["awaiting"][0]["player"], "bob");
    assert_eq!(json["awaiting"][0]["what"], "2 actions");
    assert_eq!(
        json["awaiting"][0]["deadline"], "2026-11-28T10:00:00+00:00",
        "a new deadline from the undo"
    );
    later(&["process"], "2026-11-26T10:00:00Z");
    let dir = s.dir.path().join("var/outbox");
    let mails: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert_eq!(mails.len(), 3, "a report each");
    for raw in mails {
        let m = mail_parser::MessageParser::default()
            .parse(raw.as_bytes())
            .unwrap();
        let text =
            crate::common::flat(&crate::flowed::text_part(&m).unwrap().replace("\r\n", "\n"));
        assert!(
            text.contains(&format!("A moderator undid {told}. The game is back")),
            "{text}"
        );
        assert!(!text.contains("order(s)"), "{text}");
    }
    s.ok(&["verify", "rocket-1"]);
}

/// An aborted game's last mail says who aborted it, when and why once, in
/// its first line, and the log line under it; the status block says the
/// position is final. It said the abort three times over (the first line,
/// a note "A moderator aborted the game (why). It ends without a result.",
/// and the status block, each with who, when and why).
#[test]
fn an_aborted_games_last_mail_says_the_abort_once() {
    let s = Site::new();
    s.game();
    s.forget_sent();
    s.moderate("no time", &["abort"]);
    let mails = texts(&s);
    let to_bob: Vec<&String> = mails.iter().filter(|m| m.starts_with("To: bob@")).collect();
    assert_eq!(to_bob.len(), 1, "{mails:?}");
    let text = to_bob[0];
    assert!(
        text.contains(
            "rocket-1: Game over: aborted by a moderator (gm@example.org) on Mon 23 Nov 2026 \
             09:00 UTC (no time), without a result.\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("moderator gm@example.org: abort (why: no time)"),
        "{text}"
    );
    assert!(
        text.contains("The game is over: aborted by a moderator, without a result.\n"),
        "{text}"
    );
    assert_eq!(text.matches("09:00 UTC").count(), 1, "{text}");
    assert_eq!(text.matches("no time").count(), 2, "{text}");
    assert!(!text.contains("A moderator aborted the game"), "{text}");
}

/// Linie 1's log says whose turn begins, as Rocket's does ("Turn 2: bob
/// to play."): it went from one player's moves to the next player's with
/// nothing between, so `history`, `log` and the archive read unlike
/// Rocket's.
#[test]
fn linie1_and_rocket_logs_both_say_whose_turn_begins() {
    let s = Site::new();
    s.game();
    s.ok(&[
        "new",
        "linie1",
        "--player",
        "alice=alice@example.org",
        "--player",
        "bob=bob@example.org",
        "--seed",
        "7",
    ]);
    for id in ["rocket-1", "linie1-1"] {
        let v: serde_json::Value = serde_json::from_str(&s.ok(&["show", id, "--json"])).unwrap();
        let first = v["awaiting"][0]["player"].as_str().unwrap().to_string();
        s.ok(&["mod", id, "skip"]);
        let v: serde_json::Value = serde_json::from_str(&s.ok(&["show", id, "--json"])).unwrap();
        let next = v["awaiting"][0]["player"].as_str().unwrap().to_string();
        assert_ne!(first, next, "{id}");
        let log = s.ok(&["log", id]);
        assert!(
            log.contains(&format!("    Turn 2: {next} to play.")),
            "{id}:\n{log}"
        );
    }
}

/// The one who takes over a seat is welcomed as its new player, told that
/// they play it under the seat's name: the welcome greeted carol as
/// "Welcome to rocket-1, a game of Stephenson's Rocket, cecil!", the
/// player who had left, without a word about the seat being handed on.
#[test]
fn a_successor_is_welcomed_to_the_seat_not_as_the_player_who_left() {
    let s = Site::new();
    s.game();
    s.forget_sent();
    s.ok(&["mod", "rocket-1", "replace", "cecil", "carol@example.org"]);
    let mails = texts(&s);
    let welcome: Vec<&String> = mails
        .iter()
        .filter(|m| m.starts_with("To: carol@") && m.contains("Welcome"))
        .collect();
    assert_eq!(welcome.len(), 1, "{mails:?}");
    let flat = crate::common::flat(welcome[0]);
    assert!(
        flat.contains(
            "Welcome to rocket-1, a game of Stephenson's Rocket! A moderator gave you the seat \
             of cecil, who has left: the game goes on from where it stands, and in it you play \
             as cecil, the name the orders and the other players use for your seat."
        ),
        "{}",
        welcome[0]
    );
    assert!(!flat.contains("Stephenson's Rocket, cecil!"), "{flat}");
}
