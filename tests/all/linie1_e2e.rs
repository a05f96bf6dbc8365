//! End to end, against real servers: a 3-player game of Linie 1 played by
//! mail through the loopback stack of `.ci/mailstack.sh` (OpenSMTPD in,
//! Dovecot LMTP and IMAP), with the real `stationmaster` binary reading
//! gm's INBOX over IMAP and sending over SMTP, as `tests/e2e.rs` does for
//! Stephenson's Rocket.
//!
//! The players read their INBOX over IMAP, parse what they get with
//! `mail_parser`, and answer with lettre over SMTP to the Reply-To of the
//! last mail the game sent them, threading with In-Reply-To and References.
//! Covered: the welcome mails with a key and the reader's own cards; orders
//! by mail with the sender's threaded answer and everyone's report; a
//! refused order answered to its sender alone with the reason and the rule;
//! `verify`; and no mail showing a player another player's line or route
//! card (rulings 4).
//!
//! Without the stack (`SM_IMAP_PORT`, `SM_SMTP_PORT`) the test says
//! `skipped: NAME: no mail stack …` and passes, unless `CI` or
//! `SM_REQUIRE_STACK` is set. Mailboxes are shared with the other tests and
//! earlier runs: only mail that arrived after the test began and carries
//! this run's keys (or is this run's welcome) is counted. Every wait polls
//! every 100 ms and gives up after 30 s, saying what it waited for.

use std::collections::BTreeMap;
use std::process::{Command, Output};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use lettre::message::Mailbox as Addr;
use lettre::message::header::ContentType;
use lettre::{Message, SmtpTransport, Transport};
use serde_json::Value;
use tempfile::TempDir;

use crate::player_mail::{Got, PATIENCE, POLL, PROCESSOR, PlayerBox, Session, delete_run, login};
use crate::stack::stack;

const GAME: &str = "linie1-1";
const PLAYERS: [&str; 3] = ["alice", "bob", "cecil"];
struct World {
    _dir: TempDir,
    config: std::path::PathBuf,
    smtp: SmtpTransport,
    gm: Session,
    boxes: BTreeMap<&'static str, PlayerBox>,
    /// How many of each player's mails of this run the test has taken.
    taken: BTreeMap<&'static str, usize>,
    /// The last mail each player got: what they answer.
    last: BTreeMap<&'static str, Got>,
    keys: BTreeMap<&'static str, String>,
    run: String,
    n: usize,
}

impl World {
    fn sm(&self, args: &[&str]) -> Output {
        Command::new(assert_cmd::cargo::cargo_bin("stationmaster"))
            .arg("--config")
            .arg(&self.config)
            .env_remove("STATIONMASTER_NOW")
            .env_remove("STATIONMASTER_CONFIG")
            .args(args)
            .output()
            .unwrap()
    }

    fn sm_ok(&self, args: &[&str]) -> String {
        let out = self.sm(args);
        assert!(
            out.status.success(),
            "stationmaster {args:?} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// One `process` cycle; how many mails it read.
    fn process(&self) -> String {
        self.sm_ok(&["process"])
    }

    /// Whether `m` is this run's: a welcome to the game, or a mail with one
    /// of this run's keys.
    fn ours(&self, m: &Got) -> bool {
        (m.subject.starts_with(&format!("[{GAME} "))
            && m.in_reply_to.is_none()
            && m.text.contains(&format!("Welcome to {GAME}")))
            || self
                .keys
                .values()
                .any(|k| m.subject.contains(&format!("[{GAME} {k}]")))
    }

    /// Waits until `n` more of this run's mails reached `player`; them.
    fn take(&mut self, player: &'static str, n: usize, what: &str) -> Vec<Got> {
        let start = Instant::now();
        loop {
            let b = self.boxes.get_mut(player).unwrap();
            b.poll();
            let mine: Vec<Got> = self.boxes[player]
                .got
                .iter()
                .filter(|m| self.ours(m))
                .cloned()
                .collect();
            if mine.len() >= self.taken[player] + n {
                let from = self.taken[player];
                let new = mine[from..from + n].to_vec();
                self.taken.insert(player, from + n);
                if let Some(m) = new.iter().rev().find(|m| m.reply_to.contains('+')) {
                    self.last.insert(player, m.clone());
                }
                return new;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "{what}: {player} did not get {n} mail(s) in {PATIENCE:?}"
            );
            std::thread::sleep(POLL);
        }
    }

    /// `player` answers the last mail they got; the Message-ID.
    fn reply(&mut self, player: &'static str, body: &str) -> String {
        let parent = self.last[player].clone();
        self.n += 1;
        let mid = format!("{}.{}@example.test", self.run, self.n);
        let mut refs = parent.references.clone();
        refs.push(parent.message_id.clone());
        let refs: Vec<String> = refs.iter().map(|r| format!("<{r}>")).collect();
        let message = Message::builder()
            .from(format!("{player}@example.test").parse::<Addr>().unwrap())
            .to(parent.reply_to.parse::<Addr>().unwrap())
            .subject(format!("Re: {}", parent.subject.trim_start_matches("Re: ")))
            .message_id(Some(format!("<{mid}>")))
            .in_reply_to(format!("<{}>", parent.message_id))
            .references(refs.join(" "))
            .date_now()
            .header(ContentType::TEXT_PLAIN)
            .body(body.to_string())
            .unwrap();
        self.smtp
            .send(&message)
            .unwrap_or_else(|e| panic!("SMTP send of {mid}: {e}"));
        // Wait until gm's INBOX holds it, so `process` sees it.
        let start = Instant::now();
        loop {
            self.gm.examine("INBOX").unwrap();
            let found = self
                .gm
                .uid_search(format!("HEADER Message-ID \"<{mid}>\""))
                .unwrap();
            if !found.is_empty() {
                return mid;
            }
            assert!(start.elapsed() < PATIENCE, "{mid} never reached gm's INBOX");
            std::thread::sleep(POLL);
        }
    }

    /// `player` mails orders that apply: their threaded answer and one
    /// report to each of the others.
    fn orders(&mut self, player: &'static str, body: &str) -> BTreeMap<&'static str, Got> {
        let mid = self.reply(player, body);
        let out = self.process();
        assert!(out.contains("1 mail(s) read: 1 changed a game"), "{out}");
        let mut got = BTreeMap::new();
        for p in PLAYERS {
            got.insert(
                p,
                self.take(p, 1, &format!("the reports after {body:?}"))
                    .remove(0),
            );
        }
        let own = &got[player];
        assert_eq!(own.in_reply_to.as_deref(), Some(mid.as_str()));
        assert!(own.references.contains(&mid), "{:?}", own.references);
        assert!(own.text.contains("Applied."), "{}", own.text);
        got
    }

    fn json(&self, viewer: &str) -> Value {
        serde_json::from_str(&self.sm_ok(&["show", GAME, "--json", "--as", viewer])).unwrap()
    }

    /// Deletes this run's mail from the players' INBOXes and gm's.
    fn clean_up(&mut self) {
        for p in PLAYERS {
            let uids: Vec<u32> = self.boxes[p]
                .got
                .iter()
                .filter(|m| self.ours(m))
                .map(|m| m.uid)
                .collect();
            self.boxes.get_mut(p).unwrap().delete(&uids);
        }
        delete_run(&mut self.gm, &self.run);
    }
}

/// A player's route card as the marker a mail shows it by: "card B5"
/// (the own cards' sentence says "route card B5"; a bare "B5" is a square).
fn card_marker(v: &Value, name: &str) -> String {
    let me = v["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap();
    format!("card {}", me["route_card"].as_str().unwrap())
}

#[test]
fn a_game_of_linie1_by_mail_through_real_imap_and_smtp_servers() {
    let Some(st) = stack() else { return };
    let dir = TempDir::new().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[inbound]\nkind = \"imap\"\nhost = \"127.0.0.1\"\nport = {}\nsecurity = \"plain\"\n\
             user = \"gm\"\npassword = \"gmpw\"\n\n\
             [outbound]\nkind = \"smtp\"\nhost = \"127.0.0.1\"\nport = {}\nsecurity = \"plain\"\n\n\
             [mail]\naddress = \"{PROCESSOR}\"\n\n\
             [store]\npath = \"{}\"\narchive = \"{}\"\n",
            st.imap,
            st.smtp,
            dir.path().join("db").display(),
            dir.path().join("archive").display()
        ),
    )
    .unwrap();
    let mut gm = login(st.imap, "gm");
    gm.examine("INBOX").unwrap();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let mut w = World {
        config,
        smtp: SmtpTransport::builder_dangerous("127.0.0.1")
            .port(st.smtp)
            .timeout(Some(PATIENCE))
            .build(),
        gm,
        boxes: PLAYERS
            .iter()
            .map(|p| (*p, PlayerBox::open(st.imap, p)))
            .collect(),
        taken: PLAYERS.iter().map(|p| (*p, 0)).collect(),
        last: BTreeMap::new(),
        keys: BTreeMap::new(),
        run: format!("l1e2e{}x{nanos}", std::process::id()),
        n: 0,
        _dir: dir,
    };

    // Mail left unseen in gm's INBOX is handled before the game exists.
    for _ in 0..20 {
        let out = w.process();
        let read = out
            .split(" mail(s) read")
            .next()
            .and_then(|s| s.split_whitespace().last());
        if read == Some("0") {
            break;
        }
    }

    // The game, and a welcome with a key and the reader's own cards.
    let id = w.sm_ok(&[
        "new",
        "linie1",
        "--player",
        "alice=alice@example.test",
        "--player",
        "bob=bob@example.test",
        "--player",
        "cecil=cecil@example.test",
        "--seed",
        "4",
    ]);
    assert_eq!(id.trim(), GAME);
    w.process();
    let mut markers = BTreeMap::new();
    for p in PLAYERS {
        let m = w.take(p, 1, "the welcome mail").remove(0);
        let rest = m.subject.strip_prefix(&format!("[{GAME} ")).unwrap();
        let (key, title) = rest.split_once(']').unwrap();
        assert_eq!(title, " Linie 1");
        assert_eq!(m.reply_to, format!("gm+{GAME}.{key}@example.test"));
        assert!(
            m.text
                .contains("Your cards (secret until you start your trip)")
        );
        assert!(m.html.contains("<pre"), "the map in HTML");
        let marker = card_marker(&w.json(p), p);
        assert!(
            m.text.contains(&marker),
            "{p} reads their own {marker}: {}",
            m.text
        );
        w.keys.insert(p, key.to_string());
        markers.insert(p, marker);
    }

    // Orders by mail: alice lays two tiles; everyone gets a report.
    let got = w.orders("alice", "Hi all,\nlay I1 SE\nlay J1 NW\n\n-- \nAlice");
    for (p, m) in &got {
        let who = if *p == "alice" { "You" } else { "alice" };
        let laid = format!("{who} laid a curve (SE) on I1.");
        assert!(m.text.contains(&laid), "{p}: {}", m.text);
    }
    assert!(got["bob"].text.contains("You can:"), "bob is next");

    // A refused order: answered to bob alone, with the reason and the rule.
    let before = w.json("bob");
    let mid = w.reply("bob", "lay A1 NS");
    let out = w.process();
    assert!(out.contains("1 mail(s) read: 0 changed a game"), "{out}");
    let answer = w.take("bob", 1, "the refusal").remove(0);
    assert_eq!(answer.in_reply_to.as_deref(), Some(mid.as_str()));
    let flat = answer.text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("run off the board at the north side of A1") && flat.contains("rulings 1"),
        "{}",
        answer.text
    );
    assert_eq!(w.json("bob"), before, "nothing changed");

    w.orders("bob", "lay H2 SE\nlay I2 NW");
    w.orders("cecil", "lay H3 NS\nlay H4 NS");
    let v = w.json("alice");
    assert_eq!(v["tiles"].as_array().unwrap().len(), 6, "{v}");
    assert!(w.sm_ok(&["verify", GAME]).contains("intact"));

    // Nobody read another player's route card in any mail, text or HTML.
    for p in PLAYERS {
        for m in w.boxes[p].got.iter().filter(|m| w.ours(m)) {
            for (q, marker) in &markers {
                if *q != p {
                    assert!(
                        !m.text.contains(marker.as_str()) && !m.html.contains(marker.as_str()),
                        "a mail to {p} shows {q}'s {marker}: {}",
                        m.text
                    );
                }
            }
        }
    }
    w.clean_up();
}
