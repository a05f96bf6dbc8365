//! End to end, against real servers: a game made, joined and started by
//! mail alone (and, once it runs, the site commands that concern it), and
//! every other command of the server players run themselves (watch,
//! unwatch, say, a second address, leave, `no more invitations`, and a
//! forming game's expiry),
//! through the loopback stack of `.ci/mailstack.sh` (OpenSMTPD in, Dovecot
//! LMTP and IMAP), with the real `stationmaster` binary reading gm's INBOX
//! over IMAP and sending over SMTP. Alice, bob, cecil and dave read their
//! INBOX over IMAP and answer with lettre over SMTP, as `tests/all/e2e.rs`
//! does.
//!
//! Without the stack (`SM_IMAP_PORT`, `SM_SMTP_PORT`) the test says
//! `skipped: NAME: no mail stack …` and passes, unless `CI` or
//! `SM_REQUIRE_STACK` is set. Each test has the stack to itself
//! (`stack_alone`: its `process` reads all of gm's unseen mail). Mailboxes are shared
//! with other tests and earlier runs: only mail that arrived after the
//! test began, and answers one of this run's mails (whose Message-IDs
//! carry a per-run tag) or belongs to a thread that such an answer
//! began, is counted. Every wait polls every 100 ms and gives up after
//! 30 s, saying what it waited for; the run's mail is deleted at the end.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use lettre::message::Mailbox as Addr;
use lettre::message::header::ContentType;
use lettre::{Message, SmtpTransport, Transport};
use tempfile::TempDir;

use crate::player_mail::{Got, PATIENCE, POLL, PROCESSOR, PlayerBox, Session, delete_run, login};
use crate::site::code_after;
use crate::stack::stack_alone;

/// One player's INBOX, from the UID it had when the test began.
struct Mailbox {
    inbox: PlayerBox,
    /// How many of its mails the test has taken so far.
    taken: usize,
}

struct World {
    _dir: TempDir,
    config: PathBuf,
    smtp: SmtpTransport,
    gm: Session,
    /// alice, bob, cecil and dave's INBOXes.
    boxes: Vec<(&'static str, Mailbox)>,
    /// In every Message-ID this run sends.
    run: String,
    /// The thread roots of this run: mail referring to one is ours.
    roots: Vec<String>,
    n: usize,
}

impl World {
    fn new(imap: u16, smtp: u16) -> World {
        let dir = TempDir::new().unwrap();
        let config = dir.path().join("config.toml");
        std::fs::write(
            &config,
            format!(
                "[inbound]\nkind = \"imap\"\nhost = \"127.0.0.1\"\nport = {imap}\nsecurity = \"plain\"\n\
                 user = \"gm\"\npassword = \"gmpw\"\n\n\
                 [outbound]\nkind = \"smtp\"\nhost = \"127.0.0.1\"\nport = {smtp}\nsecurity = \"plain\"\n\n\
                 [mail]\naddress = \"{PROCESSOR}\"\n\n\
                 [store]\npath = \"{}\"\n",
                dir.path().join("db").display()
            ),
        )
        .unwrap();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let mut gm = login(imap, "gm");
        gm.examine("INBOX").unwrap();
        World {
            _dir: dir,
            config,
            smtp: SmtpTransport::builder_dangerous("127.0.0.1")
                .port(smtp)
                .timeout(Some(PATIENCE))
                .build(),
            gm,
            boxes: ["alice", "bob", "cecil", "dave"]
                .map(|who| {
                    let inbox = PlayerBox::open(imap, who);
                    (who, Mailbox { inbox, taken: 0 })
                })
                .into(),
            run: format!("site{}x{nanos}", std::process::id()),
            roots: Vec::new(),
            n: 0,
        }
    }

    fn sm(&self, args: &[&str]) -> String {
        let out = Command::new(assert_cmd::cargo::cargo_bin("stationmaster"))
            .arg("--config")
            .arg(&self.config)
            .env_remove("STATIONMASTER_NOW")
            .env_remove("STATIONMASTER_CONFIG")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "stationmaster {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Sends a mail over SMTP, waits until it is in gm's INBOX, then runs
    /// one `process` cycle.
    fn send(&mut self, from: &str, to: &str, subject: &str, parent: Option<&Got>, body: &str) {
        self.n += 1;
        let mid = format!("{}.{}@example.test", self.run, self.n);
        let mut b = Message::builder()
            .from(from.parse::<Addr>().unwrap())
            .to(to.parse::<Addr>().unwrap())
            .subject(subject)
            .message_id(Some(format!("<{mid}>")))
            .date_now()
            .header(ContentType::TEXT_PLAIN);
        if let Some(p) = parent {
            let mut refs = p.references.clone();
            refs.push(p.message_id.clone());
            let refs: Vec<String> = refs.iter().map(|r| format!("<{r}>")).collect();
            b = b
                .in_reply_to(format!("<{}>", p.message_id))
                .references(refs.join(" "));
        }
        self.smtp
            .send(&b.body(body.to_string()).unwrap())
            .unwrap_or_else(|e| panic!("SMTP send of {mid}: {e}"));
        let start = Instant::now();
        loop {
            self.gm.examine("INBOX").unwrap();
            if !self
                .gm
                .uid_search(format!("HEADER Message-ID \"<{mid}>\""))
                .unwrap()
                .is_empty()
            {
                break;
            }
            assert!(start.elapsed() < PATIENCE, "{mid} never reached gm");
            std::thread::sleep(POLL);
        }
        self.sm(&["process"]);
    }

    /// A reply to `parent`, to its Reply-To (else its From).
    fn reply(&mut self, from: &str, parent: &Got, body: &str) {
        let to = if parent.reply_to.is_empty() {
            parent.from.clone()
        } else {
            parent.reply_to.clone()
        };
        let subject = format!("Re: {}", parent.subject.trim_start_matches("Re: "));
        self.send(from, &to, &subject, Some(parent), body);
    }

    /// `from` (mailbox `who`), new here, writes `body` to the server: its
    /// one answer must carry a code and say to reply; the reply, with
    /// nothing written, does what the first mail held.
    fn newcomer(&mut self, from: &str, who: &str, body: &str) {
        self.send(from, PROCESSOR, "hello", None, body);
        let first = self.take_saying(who, "the one answer", "reply to this mail to go on");
        assert!(first.subject.starts_with("[code "), "{}", first.subject);
        self.reply(from, &first, "");
    }

    fn ours(&self, m: &Got) -> bool {
        m.in_reply_to
            .as_deref()
            .is_some_and(|r| r.contains(&self.run))
            || m.references
                .iter()
                .any(|r| self.roots.contains(r) || r.contains(&self.run))
            || (m.subject.contains("Invitation to") && m.text.contains("alice@example.test"))
            || m.subject.contains("You moderate rocket-1")
            || m.subject.contains("Confirm this address for alice")
            || m.subject.ends_with("Rocket, watched")
    }

    fn mailbox(&mut self, who: &str) -> &mut Mailbox {
        self.boxes
            .iter_mut()
            .find(|(name, _)| *name == who)
            .map(|(_, mb)| mb)
            .unwrap_or_else(|| panic!("no mailbox {who}"))
    }

    /// Waits for `n` more mails of this run to `who` and takes them.
    fn take(&mut self, who: &str, n: usize, what: &str) -> Vec<Got> {
        let start = Instant::now();
        loop {
            let mb = self.mailbox(who);
            mb.inbox.poll();
            let (got, taken) = (mb.inbox.got.clone(), mb.taken);
            let mine: Vec<Got> = got.into_iter().filter(|m| self.ours(m)).collect();
            if mine.len() >= taken + n {
                let new = mine[taken..taken + n].to_vec();
                self.mailbox(who).taken = taken + n;
                return new;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "{what}: {who} got {:?}",
                mine[taken..].iter().map(|m| &m.subject).collect::<Vec<_>>()
            );
            std::thread::sleep(POLL);
        }
    }

    /// Waits for the next mail of this run to `who`, which must say
    /// `saying`, and takes it.
    fn take_saying(&mut self, who: &str, what: &str, saying: &str) -> Got {
        let got = self.take(who, 1, what).remove(0);
        assert!(got.text.contains(saying), "{what}: {}", got.text);
        got
    }

    fn clean_up(&mut self) {
        for (_, mb) in &mut self.boxes {
            let uids: Vec<u32> = mb.inbox.got.iter().map(|m| m.uid).collect();
            mb.inbox.delete(&uids);
        }
        delete_run(&mut self.gm, &self.run);
    }
}

#[test]
fn a_game_made_invited_joined_and_started_over_imap_and_smtp() {
    let Some(st) = stack_alone() else { return };
    let mut w = World::new(st.imap, st.smtp);
    // Mail left unseen in gm's INBOX is handled before anything of ours.
    w.sm(&["process"]);

    w.newcomer(
        "alice@example.test",
        "alice",
        "new rocket open_money turn 72h",
    );
    let made = w.take("alice", 1, "the answer to new").remove(0);
    w.roots.push(made.message_id.clone());
    assert!(made.subject.starts_with("[rocket-1 "), "{}", made.subject);
    assert!(made.text.contains("You made rocket-1"), "{}", made.text);
    assert!(
        made.reply_to.starts_with("gm+rocket-1."),
        "{}",
        made.reply_to
    );

    w.reply("alice@example.test", &made, "invite bob@example.test");
    let answer = w.take("alice", 1, "the answer to invite").remove(0);
    assert!(
        answer.text.contains("Invited bob@example.test"),
        "{}",
        answer.text
    );
    let invitation = w.take("bob", 1, "the invitation").remove(0);
    assert!(
        invitation.text.contains("join rocket-1"),
        "{}",
        invitation.text
    );

    w.reply("bob@example.test", &invitation, "join");
    let seat = w.take("bob", 1, "the answer to join").remove(0);
    w.roots.push(seat.message_id.clone());
    assert!(
        seat.text.contains("You joined rocket-1 as bob"),
        "{}",
        seat.text
    );
    let told = w.take("alice", 1, "the news of bob").remove(0);
    assert!(told.text.contains("bob (bob@example.test) joined rocket-1"));

    w.reply("alice@example.test", &made, "start");
    let alice = w.take("alice", 3, "the start");
    assert!(
        alice
            .iter()
            .any(|m| m.text.contains("rocket-1 has started"))
    );
    assert!(
        alice
            .iter()
            .any(|m| m.subject.contains("You moderate rocket-1"))
    );
    let welcome = alice
        .iter()
        .find(|m| m.text.contains("Welcome to rocket-1"))
        .expect("alice's welcome");
    assert_eq!(welcome.subject, made.subject);
    assert_eq!(welcome.references, vec![made.message_id.clone()]);
    let bob = w.take("bob", 1, "bob's welcome").remove(0);
    assert!(bob.text.contains("Welcome to rocket-1"), "{}", bob.text);
    assert_eq!(bob.subject, seat.subject);

    let json: serde_json::Value =
        serde_json::from_str(&w.sm(&["show", "rocket-1", "--json"])).unwrap();
    assert_eq!(json["players"].as_array().map(Vec::len), Some(2));

    // `games` and `bump`, to the server's address.
    let first = json["awaiting"][0]["player"].as_str().unwrap().to_string();
    let (who, address) = if first == "alice" {
        ("alice", "alice@example.test")
    } else {
        ("bob", "bob@example.test")
    };
    w.send(address, PROCESSOR, "my games", None, "games\nbump");
    let got = w.take(who, 2, "the answer to games and bump");
    let answer = got
        .iter()
        .find(|m| m.text.contains("Your games here"))
        .expect("the list");
    assert!(
        answer.text.contains("You (2 actions): by"),
        "{}",
        answer.text
    );
    let report = got
        .iter()
        .find(|m| m.text.contains("as you asked with `bump`"))
        .expect("the report");
    assert!(
        report.subject.starts_with("[rocket-1 "),
        "{}",
        report.subject
    );

    // Table talk, in the game's thread.
    let welcome = welcome.clone();
    w.reply("alice@example.test", &welcome, "tell bob Good luck!");
    let message = w.take("bob", 1, "alice's message").remove(0);
    assert!(
        message
            .text
            .contains("alice says to you alone, in rocket-1:"),
        "{}",
        message.text
    );
    assert!(message.text.contains("Good luck!"));
    assert_eq!(message.subject, seat.subject);
    let sent = w.take("alice", 1, "the answer to tell").remove(0);
    assert!(
        sent.text.contains("Sent to bob alone: Good luck!"),
        "{}",
        sent.text
    );

    // `reports short` from the player the game does not wait for: a
    // moderator's note then comes to them as a line, without the map.
    let (other, other_address, other_thread) = if who == "alice" {
        ("bob", "bob@example.test", bob.clone())
    } else {
        ("alice", "alice@example.test", welcome.clone())
    };
    w.reply(other_address, &other_thread, "reports short");
    let chose = w.take(other, 1, "the answer to reports short").remove(0);
    assert!(
        chose.text.contains("From now on you get `reports short`"),
        "{}",
        chose.text
    );
    w.sm(&["mod", "rocket-1", "note", "play on, all"]);
    w.sm(&["process"]);
    let short = w.take(other, 1, "the short mail").remove(0);
    assert!(short.text.contains("play on, all"), "{}", short.text);
    assert!(
        short.text.contains("You get short reports"),
        "{}",
        short.text
    );
    assert!(!short.text.contains("You can"), "{}", short.text);
    let full = w.take(who, 1, "the awaited player's report").remove(0);
    assert!(full.text.contains("You can"), "{}", full.text);
    w.clean_up();
}

#[test]
fn watching_table_talk_a_second_address_leaving_and_expiry_over_imap_and_smtp() {
    let Some(st) = stack_alone() else { return };
    let mut w = World::new(st.imap, st.smtp);
    w.sm(&["process"]);
    const ALICE: &str = "alice@example.test";
    const BOB: &str = "bob@example.test";
    const CECIL: &str = "cecil@example.test";
    const DAVE: &str = "dave@example.test";

    // rocket-1, watchable, with deadlines far enough off that the expiry
    // of the forming game below (a week on) leaves it alone.
    let new = "new rocket open watchable turn 30d";
    w.newcomer(ALICE, "alice", new);
    let made = w.take_saying("alice", "the answer to new", "You made rocket-1");
    w.roots.push(made.message_id.clone());
    w.newcomer(BOB, "bob", "join rocket-1");
    let seat = w.take_saying("bob", "the answer to join", "You joined rocket-1");
    w.roots.push(seat.message_id.clone());
    w.take_saying("alice", "the news of bob", "joined rocket-1");
    w.reply(ALICE, &made, "start");
    let started = w.take("alice", 3, "the start");
    let welcome = started
        .iter()
        .find(|m| m.text.contains("Welcome to rocket-1"))
        .expect("alice's welcome")
        .clone();
    w.take_saying("bob", "bob's welcome", "Welcome to rocket-1");

    // cecil, new here, watches once she has replied to the server's one
    // answer.
    w.newcomer(CECIL, "cecil", "watch rocket-1");
    let watching = w.take("cecil", 2, "the answer to watch and the board");
    let board = |m: &Got| m.subject.ends_with("watched") && m.text.contains("You watch this game");
    assert!(watching.iter().any(board), "{watching:#?}");
    assert!(
        watching
            .iter()
            .any(|m| m.text.contains("You watch rocket-1")),
        "{watching:#?}"
    );

    // say: to every player, in their threads.
    w.reply(ALICE, &welcome, "say Hello all");
    let said = w.take_saying("bob", "alice's word to all", "Hello all");
    assert_eq!(said.subject, seat.subject);
    w.take_saying("alice", "the answer to say", "Hello all");

    // dave is alice's second address: asked, confirmed from there, used
    // (the answers come back to dave), and removed.
    w.reply(ALICE, &welcome, &format!("address add {DAVE}"));
    w.take_saying("alice", "the answer to address add", "A mail went to dave");
    let ask = w.take_saying("dave", "the confirmation", "asks to play from this address");
    let code = code_after(&ask.text, "confirm");
    w.reply(DAVE, &ask, &format!("confirm {code}"));
    w.take_saying("dave", "the answer to confirm", "Confirmed: alice may play");
    w.send(DAVE, PROCESSOR, "games", None, "games");
    w.take_saying(
        "dave",
        "dave's games",
        "rocket-1 (Stephenson's Rocket), you are alice",
    );
    w.reply(DAVE, &welcome, "map");
    let report = w.take_saying("dave", "alice's report, at dave", "rocket-1:");
    assert_eq!(report.subject, format!("Re: {}", welcome.subject));
    w.reply(ALICE, &welcome, &format!("address remove {DAVE}"));
    w.take_saying(
        "alice",
        "the answer to address remove",
        "no longer one of your",
    );

    w.send(CECIL, PROCESSOR, "enough", None, "unwatch rocket-1");
    w.take_saying(
        "cecil",
        "the answer to unwatch",
        "You no longer watch rocket-1",
    );

    // A second forming game: bob refuses invitations, joins (it is open)
    // and leaves before the start.
    w.send(ALICE, PROCESSOR, "another", None, "new linie1 open");
    let made = w.take_saying("alice", "the answer to new linie1", "You made linie1-1");
    w.roots.push(made.message_id.clone());
    w.reply(ALICE, &made, &format!("invite {BOB}"));
    w.take_saying("alice", "the answer to invite", "Invited bob");
    let invitation = w.take_saying("bob", "the invitation", "join linie1-1");
    w.reply(BOB, &invitation, "no more invitations");
    w.take_saying(
        "bob",
        "the answer to no more invitations",
        "no more invitations",
    );
    w.reply(ALICE, &made, &format!("invite {BOB}"));
    w.take_saying(
        "alice",
        "the refusal",
        "asked this server for no invitations",
    );
    w.send(BOB, PROCESSOR, "join", None, "join linie1-1");
    let seat = w.take_saying("bob", "the answer to join", "You joined linie1-1");
    w.roots.push(seat.message_id.clone());
    w.take_saying("alice", "the news of bob", "joined linie1-1");
    w.reply(BOB, &seat, "leave");
    w.take_saying("bob", "the answer to leave", "You left linie1-1");
    w.take_saying("alice", "bob's leaving", "bob left linie1-1");

    // Nobody starts it: a week on, it expires, and alice is told.
    let later = (chrono::Utc::now() + chrono::Duration::days(8)).to_rfc3339();
    w.sm(&["process", "--now", &later]);
    w.take_saying("alice", "the expiry", "linie1-1 was not started by");
    w.clean_up();
}
