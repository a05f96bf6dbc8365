//! End to end, against real servers: a 3-player game of Stephenson's Rocket
//! played by mail through the loopback stack of `.ci/mailstack.sh`
//! (OpenSMTPD in, Dovecot LMTP and IMAP), with the real `stationmaster`
//! binary reading gm's INBOX over IMAP and sending over SMTP.
//!
//! The players behave like mail programs: they read their INBOX over IMAP
//! (the `imap` crate), parse what they get with `mail_parser`, and answer
//! with lettre over SMTP, from their own address, to the Reply-To of the
//! last mail the game sent them, keeping the `[GAME TOKEN]` subject tag and
//! threading with In-Reply-To and References. The secret key each player
//! uses is the one in their welcome mail's subject tag.
//!
//! What is covered, in one test so that a single daemon sees only this
//! test's mail (sled allows one process at a time, so the state is read
//! with `show --json` and `log` between daemon runs):
//!  0. `check-config` against the stack;
//!  1. welcome mails with a distinct key to each of the three players;
//!  2. orders applied by mail, a report to everyone, the sender's threaded;
//!  3. a refused batch: the reply names the line, the reason and "You can:";
//!     the state is unchanged;
//!  4. a veto round with bids by mail;
//!  5. spoofed orders (another address with bob's key; bob's address with
//!     no key): nothing changes, bob is alerted, the sender hears nothing;
//!  6. automatic replies (Auto-Submitted, an Out of Office subject) with
//!     orders in them: never answered, nothing changes;
//!  7. a merger by mail: GWR dissolved into LNWR;
//!  8. crash safety: `run` killed with SIGKILL as soon as the first reply
//!     of a queued batch of 12 mails reaches a player, then restarted and
//!     stopped with SIGTERM (exit 0); every order is in the log exactly
//!     once and every player got exactly one report per mail that calls
//!     for one (see [`crash_safety`] for the exact accounting).
//!
//! A second test, which needs no stack, checks that a fresh database does
//! not reuse the Message-IDs of another one.
//!
//! The stack's ports come from `SM_IMAP_PORT` and `SM_SMTP_PORT` (and
//! `SM_MAILDIR_ROOT`, to look into the mailbox of an address that has no
//! IMAP login), as printed by `.ci/mailstack.sh start DIR`. Without them
//! the test prints `skipped: NAME: no mail stack (run .ci/mailstack.sh,
//! see README)` and passes, unless `CI` or `SM_REQUIRE_STACK` is set: CI
//! must run it.
//!
//! The test has the stack to itself while it runs (`stack_alone`: the
//! other tests that use it wait), but mailboxes are shared with
//! `tests/all/transport.rs` and with earlier runs, so nothing here assumes
//! an empty mailbox: each player only counts mail from the game's address
//! that arrived after the test began and belongs to this run (its subject
//! carries one of this run's keys, or it answers one of this run's
//! Message-IDs, which all carry a per-run tag). Mail left unseen in gm's
//! INBOX is handled by a `process` before the game exists, so it gets at
//! most a help reply and cannot touch the game. Every wait polls every
//! 100 ms and gives up after 30 s, saying what it waited for.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use lettre::message::Mailbox as Addr;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::{Message, SmtpTransport, Transport};
use serde_json::Value;
use tempfile::TempDir;

use crate::player_mail::{
    Got, PATIENCE, POLL, PROCESSOR, PlayerBox, Session, delete_run, login, parse,
};
use crate::stack::{Stack, stack_alone};

const GAME: &str = "rocket-1";
const PLAYERS: [&str; 3] = ["alice", "bob", "cecil"];
/// Which of the mails from the game's address belong to this run.
struct Ours {
    /// In every Message-ID this run sends.
    run: String,
    /// The subject tags `[rocket-1 KEY]` of this run's keys.
    tags: Vec<String>,
}

impl Ours {
    fn owns(&self, m: &Got) -> bool {
        // A welcome: the thread's subject, no reply, the welcome text.
        let welcome = m.subject.starts_with(&format!("[{GAME} "))
            && m.in_reply_to.is_none()
            && m.text.contains(&format!("Welcome to {GAME}"));
        welcome
            || self.tags.iter().any(|t| m.subject.contains(t.as_str()))
            || m.in_reply_to
                .as_deref()
                .is_some_and(|r| r.contains(&self.run))
            || (m.subject.contains("Someone tried to give orders as you")
                && m.text.contains(&self.run))
    }
}

// ---------------------------------------------------------------- the world

/// What a `process` cycle printed.
#[derive(Debug, PartialEq, Eq)]
struct Cycle {
    read: usize,
    changed: usize,
    skipped: usize,
    sent: usize,
    failed: usize,
}

fn cycle(stdout: &str) -> Cycle {
    // "N mail(s) read: N changed a game, N answered without a change or
    // ignored; N mail(s) sent, N waiting to be sent again."
    let before = |label: &str| -> usize {
        let at = stdout
            .find(label)
            .unwrap_or_else(|| panic!("no {label:?} in the output of `process`: {stdout}"));
        stdout[..at]
            .split(|c: char| !c.is_ascii_digit())
            .rfind(|w| !w.is_empty())
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("no number before {label:?} in: {stdout}"))
    };
    Cycle {
        read: before(" mail(s) read"),
        changed: before(" changed a game"),
        skipped: before(" answered without a change"),
        sent: before(" mail(s) sent"),
        failed: before(" waiting to be sent again"),
    }
}

/// A mail a player sends.
struct Out<'a> {
    from: String,
    to: String,
    subject: String,
    body: &'a str,
    parent: Option<Got>,
    auto_submitted: bool,
}

struct World {
    st: Stack,
    dir: TempDir,
    config: PathBuf,
    smtp: SmtpTransport,
    /// gm's INBOX, only looked at (EXAMINE): the daemon's mailbox.
    gm: Session,
    boxes: BTreeMap<&'static str, PlayerBox>,
    /// How many of each player's mails (of this run) the test has taken.
    taken: BTreeMap<&'static str, usize>,
    /// The last report each player got: what they reply to.
    last: BTreeMap<&'static str, Got>,
    keys: BTreeMap<&'static str, String>,
    ours: Ours,
    /// Mails sent.
    n: usize,
    /// Message-IDs of the mails that must never be answered.
    unanswerable: Vec<String>,
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("stationmaster")
}

impl World {
    fn new(st: Stack) -> World {
        let dir = TempDir::new().unwrap();
        let config = dir.path().join("config.toml");
        std::fs::write(
            &config,
            format!(
                "[inbound]\nkind = \"imap\"\nhost = \"127.0.0.1\"\nport = {}\nsecurity = \"plain\"\n\
                 user = \"gm\"\npassword = \"gmpw\"\n\n\
                 [outbound]\nkind = \"smtp\"\nhost = \"127.0.0.1\"\nport = {}\nsecurity = \"plain\"\n\n\
                 [mail]\naddress = \"{PROCESSOR}\"\n\n\
                 [store]\npath = \"{}\"\n\n\
                 [daemon]\npoll_seconds = 1\n",
                st.imap,
                st.smtp,
                dir.path().join("db").display()
            ),
        )
        .unwrap();
        let smtp = SmtpTransport::builder_dangerous("127.0.0.1")
            .port(st.smtp)
            .timeout(Some(PATIENCE))
            .build();
        let mut gm = login(st.imap, "gm");
        gm.examine("INBOX").unwrap();
        let boxes = PLAYERS
            .iter()
            .map(|p| (*p, PlayerBox::open(st.imap, p)))
            .collect();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        World {
            st,
            dir,
            config,
            smtp,
            gm,
            boxes,
            taken: PLAYERS.iter().map(|p| (*p, 0)).collect(),
            last: BTreeMap::new(),
            keys: BTreeMap::new(),
            ours: Ours {
                run: format!("e2e{}x{nanos}", std::process::id()),
                tags: Vec::new(),
            },
            n: 0,
            unanswerable: Vec::new(),
        }
    }

    // ------------------------------------------------------------ the binary

    fn command(&self) -> Command {
        let mut c = Command::new(bin());
        c.arg("--config")
            .arg(&self.config)
            .env_remove("STATIONMASTER_NOW")
            .env_remove("STATIONMASTER_CONFIG");
        c
    }

    fn sm(&self, args: &[&str]) -> Output {
        self.command().args(args).output().unwrap()
    }

    /// Runs a command that must succeed; its stdout.
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

    /// One `process` cycle.
    fn process(&self) -> Cycle {
        cycle(&self.sm_ok(&["process"]))
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.sm_ok(&["show", GAME, "--json"])).unwrap()
    }

    /// The log's entries, `#N DATE TIME PLAYER: ORDER` without the number
    /// and the time: `PLAYER: ORDER`.
    fn log(&self) -> Vec<String> {
        self.sm_ok(&["log", GAME])
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| {
                let mut w = l.splitn(4, ' ');
                w.nth(3).unwrap_or_default().to_string()
            })
            .collect()
    }

    // ------------------------------------------------------------ mail out

    /// Sends a mail over SMTP and waits until it is in gm's INBOX, so that
    /// mails reach the daemon in the order they were sent. Its Message-ID.
    fn send(&mut self, m: Out<'_>) -> String {
        self.n += 1;
        let mid = format!("{}.{}@example.test", self.ours.run, self.n);
        let mut b = Message::builder()
            .from(m.from.parse::<Addr>().unwrap())
            .to(m.to.parse::<Addr>().unwrap())
            .subject(m.subject)
            .message_id(Some(format!("<{mid}>")))
            .date_now()
            .header(ContentType::TEXT_PLAIN);
        if let Some(p) = &m.parent {
            let mut refs = p.references.clone();
            refs.push(p.message_id.clone());
            let refs: Vec<String> = refs.iter().map(|r| format!("<{r}>")).collect();
            b = b
                .in_reply_to(format!("<{}>", p.message_id))
                .references(refs.join(" "));
        }
        if m.auto_submitted {
            b = b.raw_header(HeaderValue::new(
                HeaderName::new_from_ascii_str("Auto-Submitted"),
                "auto-replied".to_string(),
            ));
        }
        let message = b.body(m.body.to_string()).unwrap();
        self.smtp
            .send(&message)
            .unwrap_or_else(|e| panic!("SMTP send of {mid}: {e}"));
        self.wait_in_gm(&mid);
        mid
    }

    /// A player's reply to the last report they got, as their mail program
    /// writes it.
    fn reply(&mut self, player: &'static str, body: &str) -> String {
        let parent = self.last_of(player);
        let subject = format!("Re: {}", parent.subject.trim_start_matches("Re: "));
        self.send(Out {
            from: format!("{player}@example.test"),
            to: parent.reply_to.clone(),
            subject,
            body,
            parent: Some(parent),
            auto_submitted: false,
        })
    }

    fn last_of(&self, player: &str) -> Got {
        self.last
            .get(player)
            .cloned()
            .unwrap_or_else(|| panic!("{player} has had no mail from the game to reply to"))
    }

    fn wait_in_gm(&mut self, mid: &str) {
        let start = Instant::now();
        loop {
            self.gm.examine("INBOX").unwrap();
            let found = self
                .gm
                .uid_search(format!("HEADER Message-ID \"<{mid}>\""))
                .unwrap();
            if !found.is_empty() {
                return;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "mail {mid} never reached gm's INBOX in {PATIENCE:?}"
            );
            std::thread::sleep(POLL);
        }
    }

    /// How many of `mids` are still unseen in gm's INBOX.
    fn unseen_in_gm(&mut self, mids: &[String]) -> usize {
        self.gm.examine("INBOX").unwrap();
        mids.iter()
            .filter(|mid| {
                !self
                    .gm
                    .uid_search(format!("UNSEEN HEADER Message-ID \"<{mid}>\""))
                    .unwrap()
                    .is_empty()
            })
            .count()
    }

    // ------------------------------------------------------------ mail in

    /// This run's mails in a player's box (all polled so far).
    fn ours_of(&self, player: &str) -> Vec<Got> {
        self.boxes[player]
            .got
            .iter()
            .filter(|m| self.ours.owns(m))
            .cloned()
            .collect()
    }

    /// Deletes this run's mail from the players' and gm's INBOXes, so
    /// that runs on one stack do not pile mail up for the other tests
    /// (tests/all/transport.rs reads alice's INBOX whole, 100 mails at most).
    fn clean_up(&mut self) {
        for p in PLAYERS {
            let uids: Vec<u32> = self.ours_of(p).iter().map(|m| m.uid).collect();
            self.boxes.get_mut(p).unwrap().delete(&uids);
        }
        delete_run(&mut self.gm, &self.ours.run);
    }

    fn poll_all(&mut self) {
        for b in self.boxes.values_mut() {
            b.poll();
        }
    }

    /// Waits until `counts[player]` more mails of this run have reached each
    /// player, and returns them (oldest first). Remembers the last report
    /// with a reply address as what the player answers next.
    fn take(
        &mut self,
        counts: &[(&'static str, usize)],
        what: &str,
    ) -> BTreeMap<&'static str, Vec<Got>> {
        let start = Instant::now();
        loop {
            self.poll_all();
            let ready = counts
                .iter()
                .all(|(p, n)| self.ours_of(p).len() >= self.taken[p] + n);
            if ready {
                break;
            }
            if start.elapsed() > PATIENCE {
                let have: Vec<String> = counts
                    .iter()
                    .map(|(p, n)| {
                        let new: Vec<String> = self.ours_of(p)[self.taken[p]..]
                            .iter()
                            .map(|m| m.subject.clone())
                            .collect();
                        format!("{p}: wanted {n}, got {new:?}")
                    })
                    .collect();
                panic!(
                    "{what}: mail did not come in {PATIENCE:?}: {}",
                    have.join("; ")
                );
            }
            std::thread::sleep(POLL);
        }
        let mut out = BTreeMap::new();
        for (p, n) in counts {
            let all = self.ours_of(p);
            let from = self.taken[p];
            let new = all[from..from + n].to_vec();
            self.taken.insert(p, from + n);
            if let Some(m) = new.iter().rev().find(|m| m.reply_to.contains('+')) {
                self.last.insert(p, m.clone());
            }
            out.insert(*p, new);
        }
        out
    }

    /// One mail to each player.
    fn take_one_each(&mut self, what: &str) -> BTreeMap<&'static str, Got> {
        self.take(&[("alice", 1), ("bob", 1), ("cecil", 1)], what)
            .into_iter()
            .map(|(p, mut v)| (p, v.remove(0)))
            .collect()
    }

    /// One mail to `player`.
    fn take_one(&mut self, player: &'static str, what: &str) -> Got {
        self.take(&[(player, 1)], what)
            .remove(player)
            .unwrap()
            .remove(0)
    }

    /// A player sends orders that change the game: the daemon applies them
    /// and reports to all three. Their reports.
    fn orders(&mut self, player: &'static str, body: &str) -> BTreeMap<&'static str, Got> {
        let mid = self.reply(player, body);
        let c = self.process();
        assert_eq!(
            c,
            Cycle {
                read: 1,
                changed: 1,
                skipped: 0,
                sent: 3,
                failed: 0
            },
            "{player}: {body:?}"
        );
        let got = self.take_one_each(&format!("the reports after {player}'s {body:?}"));
        let own = &got[player];
        assert_eq!(
            own.in_reply_to.as_deref(),
            Some(mid.as_str()),
            "{player}'s reply is threaded"
        );
        assert!(own.references.contains(&mid), "{:?}", own.references);
        assert!(own.text.contains("Applied."), "{}", own.text);
        for (p, m) in &got {
            assert_eq!(m.to, format!("{p}@example.test"));
            assert!(
                m.subject.contains(&format!("[{GAME} {}]", self.keys[p])),
                "{}",
                m.subject
            );
            assert_eq!(
                m.auto_submitted.as_deref(),
                Some("auto-replied"),
                "our mail is marked automatic"
            );
            if p != &player {
                assert!(m.in_reply_to.is_none(), "{p}: {:?}", m.in_reply_to);
            }
        }
        got
    }
}

fn line<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no line {id} in {v}"))
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

// ---------------------------------------------------------------- the test

#[test]
fn a_game_by_mail_through_real_imap_and_smtp_servers() {
    let Some(st) = stack_alone() else { return };
    let t0 = Instant::now();
    let mut w = World::new(st);

    // 0. The config reaches both servers.
    let out = w.sm_ok(&["check-config"]);
    println!("{out}");
    assert!(
        out.contains(&format!(
            "inbound: imap gm@127.0.0.1:{} (plain), mailbox INBOX",
            w.st.imap
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("outbound: smtp 127.0.0.1:{} (plain", w.st.smtp))
            && out.contains(": ok"),
        "{out}"
    );

    // Mail left unseen in gm's INBOX by other tests or earlier runs is
    // handled before the game exists (it gets at most a help reply), so it
    // cannot reach this run's game.
    for _ in 0..20 {
        if w.process().read == 0 {
            break;
        }
    }

    // 1. The game, and a welcome with a key to each player.
    let id = w.sm_ok(&[
        "new",
        "rocket",
        "--player",
        "alice=alice@example.test",
        "--player",
        "bob=bob@example.test",
        "--player",
        "cecil=cecil@example.test",
        "--seed",
        "7",
    ]);
    assert_eq!(id.trim(), GAME);
    let c = w.process();
    assert_eq!((c.read, c.sent, c.failed), (0, 3, 0), "{c:?}");
    let welcome = w.take_one_each("the welcome mails");
    for (p, m) in &welcome {
        let rest = m
            .subject
            .strip_prefix(&format!("[{GAME} "))
            .unwrap_or_else(|| panic!("{p}: {}", m.subject));
        let (key, title) = rest.split_once(']').unwrap();
        assert!(
            key.len() >= 6 && key.chars().all(|c| c.is_ascii_alphanumeric()),
            "{p}'s key {key:?}"
        );
        // The subject every mail of the game to this player carries.
        assert_eq!(title, " Stephenson's Rocket");
        assert!(m.references.is_empty(), "the welcome is the root");
        assert_eq!(m.to, format!("{p}@example.test"));
        assert_eq!(m.from, PROCESSOR);
        assert_eq!(
            m.reply_to,
            format!("gm+{GAME}.{key}@example.test"),
            "the reply address carries the key"
        );
        assert!(m.text.contains(&format!("Welcome to {GAME}")), "{}", m.text);
        assert!(m.text.contains("@Yor@"), "the map is in the text part");
        assert!(m.html.contains("<pre"), "and in the HTML part");
        w.keys.insert(p, key.to_string());
    }
    let keys: BTreeSet<&String> = w.keys.values().collect();
    assert_eq!(keys.len(), 3, "distinct keys");
    for (p, m) in &welcome {
        for (q, k) in &w.keys {
            if q != p {
                assert!(
                    !m.text.contains(k.as_str()),
                    "{p}'s welcome shows {q}'s key"
                );
            }
        }
    }
    w.ours.tags = w.keys.values().map(|k| format!("[{GAME} {k}]")).collect();
    assert!(welcome["bob"].text.contains("You can:"), "bob starts");
    let v = w.json();
    assert_eq!(v["turn"]["active_player"], "bob");

    // 2. Orders by mail (to the plus-address of the welcome's Reply-To).
    let got = w.orders("bob", "token manchester textiles\nextend ly b4\n\n-- \nBob");
    let bob = &got["bob"];
    assert!(
        bob.subject
            .starts_with(&format!("Re: [{GAME} {}]", w.keys["bob"])),
        "{}",
        bob.subject
    );
    assert!(
        bob.text.contains("> token Manchester textiles") && bob.text.contains("> extend L&Y B4"),
        "{}",
        bob.text
    );
    assert!(
        bob.text.contains("Your money: £2,000 (private)"),
        "{}",
        bob.text
    );
    assert!(
        got["alice"]
            .text
            .contains("bob is paid for Manchester's tokens"),
        "{}",
        got["alice"].text
    );
    assert!(
        !got["alice"].text.contains("2,000"),
        "alice sees bob's money: {}",
        got["alice"].text
    );
    assert!(
        got["cecil"].text.contains("You can:"),
        "{}",
        got["cecil"].text
    );
    assert_eq!(
        w.log(),
        ["bob: token Manchester textiles", "bob: extend L&Y B4"]
    );
    let v = w.json();
    assert_eq!(v["turn"]["active_player"], "cecil");
    assert_eq!(line(&v, "L&Y")["locomotive"], "B4");

    // 3. A refused batch: nothing applied, the line, the reason, what is legal.
    let before = w.json();
    let mid = w.reply("cecil", "token london steel\nextend gwr c13");
    let c = w.process();
    assert_eq!(
        (c.read, c.changed, c.skipped, c.sent),
        (1, 0, 1, 1),
        "{c:?}"
    );
    let m = w.take_one("cecil", "the refusal");
    assert_eq!(m.in_reply_to.as_deref(), Some(mid.as_str()));
    for want in [
        "Nothing was applied. Order 2 of your mail was refused:",
        "extend gwr c13",
        "C13 is not next to GWR's locomotive on C15. GWR can move to B16, C14, C16 or D15. (rules, C1)",
        "You can:",
    ] {
        assert!(m.text.contains(want), "{want:?} missing:\n{}", m.text);
    }
    assert_eq!(w.json(), before, "a refused batch changes nothing");
    assert_eq!(w.log().len(), 2);

    // 4. A veto round by mail: cecil moves L&Y, bob (a holder) calls a
    // round and bids, cecil outbids him on the hex he chose.
    let got = w.orders("cecil", "extend ly c5");
    assert!(
        got["bob"].text.contains("cecil moves L&Y from B4 to C5"),
        "{}",
        got["bob"].text
    );
    assert!(
        got["bob"]
            .text
            .contains("call a veto round on L&Y's move to C5"),
        "bob is asked: {}",
        got["bob"].text
    );
    assert_eq!(w.json()["phase"], "veto_question");
    let got = w.orders("bob", "veto\nbid 1 c3");
    assert!(
        got["cecil"].text.contains("bob bids 1 share for C3"),
        "{}",
        got["cecil"].text
    );
    assert!(
        got["cecil"].text.contains("bid N HEX"),
        "cecil is asked to bid: {}",
        got["cecil"].text
    );
    assert_eq!(w.json()["phase"], "veto_round");
    let got = w.orders("cecil", "bid 1 c5");
    assert!(
        got["alice"]
            .text
            .contains("cecil wins the veto round with 1 share and puts L&Y on C5"),
        "{}",
        got["alice"].text
    );
    let v = w.json();
    assert_eq!(v["phase"], "actions");
    assert_eq!(v["turn"]["active_player"], "cecil");
    assert_eq!(line(&v, "L&Y")["locomotive"], "C5");
    assert_eq!(
        line(&v, "L&Y")["board_shares"],
        15,
        "the bid share is back on the board"
    );

    // 5. Spoofed orders: bob's key from another address, then bob's address
    // without a key. Nothing changes; bob is alerted the first time (alerts
    // are limited to one a day per key, so the second is only logged); the
    // spoofer hears nothing.
    let before = w.json();
    let log_before = w.log();
    let mallory = w.send(Out {
        from: "mallory@example.test".into(),
        to: format!("gm+{GAME}.{}@example.test", w.keys["bob"]),
        subject: format!("Re: [{GAME} {}] orders", w.keys["bob"]),
        body: "extend lnwr d11",
        parent: None,
        auto_submitted: false,
    });
    w.unanswerable.push(mallory.clone());
    let c = w.process();
    assert_eq!(
        (c.read, c.changed, c.sent),
        (1, 0, 1),
        "only the alert to bob: {c:?}"
    );
    let alert = w.take_one("bob", "bob's alert about mallory");
    assert_eq!(
        alert.subject,
        format!("[{GAME}] Someone tried to give orders as you")
    );
    for want in [
        "mallory@example.test",
        mallory.as_str(),
        "carried your key but came from mallory@example.test",
        "Nothing in the game changed.",
    ] {
        assert!(
            alert.text.contains(want),
            "{want:?} missing:\n{}",
            alert.text
        );
    }
    let nokey = w.send(Out {
        from: "bob@example.test".into(),
        to: PROCESSOR.into(),
        subject: format!("[{GAME}] my orders ({})", w.ours.run),
        body: "extend lnwr d11",
        parent: None,
        auto_submitted: false,
    });
    w.unanswerable.push(nokey.clone());
    let c = w.process();
    assert_eq!(
        (c.read, c.changed, c.sent),
        (1, 0, 0),
        "no second alert to bob within the day: {c:?}"
    );
    assert_eq!(
        alert.in_reply_to, None,
        "the alert is no reply to the spoof"
    );

    // 6. Automatic replies with orders in them: never answered, never read.
    let parent = w.last_of("alice");
    let auto = w.send(Out {
        from: "alice@example.test".into(),
        to: parent.reply_to.clone(),
        subject: format!("Re: {}", parent.subject.trim_start_matches("Re: ")),
        body: "I am away until Monday.\nhelp",
        parent: Some(parent),
        auto_submitted: true,
    });
    w.unanswerable.push(auto);
    let parent = w.last_of("cecil");
    let ooo = w.send(Out {
        from: "cecil@example.test".into(),
        to: parent.reply_to.clone(),
        subject: format!("Out of Office: {}", parent.subject),
        body: "extend lnwr d11",
        parent: Some(parent),
        auto_submitted: false,
    });
    w.unanswerable.push(ooo);
    let c = w.process();
    assert_eq!(
        c,
        Cycle {
            read: 2,
            changed: 0,
            skipped: 2,
            sent: 0,
            failed: 0
        }
    );
    assert_eq!(
        w.json(),
        before,
        "spoofs and automatic replies change nothing"
    );
    assert_eq!(w.log(), log_before);

    // 7. A merger by mail: GWR runs into LNWR's track and is dissolved.
    w.orders("cecil", "extend lnwr d11");
    w.orders("alice", "extend gwr c14\ntoken london steel");
    let got = w.orders("bob", "extend lnwr c12");
    assert!(
        got["cecil"]
            .text
            .contains("call a veto round on LNWR's move to C12"),
        "{}",
        got["cecil"].text
    );
    w.orders("cecil", "no veto");
    let got = w.orders("bob", "extend gwr c13");
    assert!(
        got["alice"]
            .text
            .contains("call a veto round on GWR's move to C13"),
        "{}",
        got["alice"].text
    );
    let got = w.orders("alice", "no veto");
    for (p, m) in &got {
        // The sentence goes on to say what becomes of GWR's shares, and
        // the text part wraps it.
        let text = m.text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            text.contains("GWR merges into LNWR at C13 and is dissolved: its shareholders return their GWR shares"),
            "{p}: {}",
            m.text
        );
    }
    let v = w.json();
    let gwr = line(&v, "GWR");
    assert_eq!(gwr["status"], "dissolved");
    assert_eq!(gwr["merged_into"], "LNWR");
    assert_eq!(gwr["locomotive"], Value::Null);
    assert_eq!(line(&v, "LNWR")["locomotive"], "C12");
    let track: BTreeMap<&str, &str> = v["track"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| Some((t["hex"].as_str()?, t["line"].as_str()?)))
        .collect();
    for hex in ["C13", "C14"] {
        assert_eq!(
            track.get(hex).copied(),
            Some("LNWR"),
            "GWR's track on {hex} belongs to LNWR now: {track:?}"
        );
    }
    assert_eq!(v["turn"]["active_player"], "cecil");
    println!("game played by mail in {:?}", t0.elapsed());

    // 8. Crash safety.
    crash_safety(&mut w);

    // 9. IMAP IDLE.
    idle(&mut w);

    // Nothing was ever answered that must not be, and nothing came that
    // the steps did not take (a late duplicate is only allowed in step 8,
    // which counts its own).
    std::thread::sleep(Duration::from_millis(500));
    w.poll_all();
    for p in PLAYERS {
        let all = w.ours_of(p);
        for m in &all {
            assert!(
                !m.in_reply_to
                    .as_ref()
                    .is_some_and(|r| w.unanswerable.contains(r)),
                "{p} got an answer to a mail that must not be answered: {}",
                m.subject
            );
        }
        let distinct: BTreeSet<&str> = all.iter().map(|m| m.message_id.as_str()).collect();
        assert_eq!(distinct.len(), w.taken[p], "{p}: mail nobody expected");
    }
    if let Some(root) = &w.st.maildir_root {
        let spoofer = mailbox_files(&root.join("mallory/Maildir"));
        for (path, text) in spoofer {
            assert!(
                !text.contains(&w.ours.run),
                "mallory got mail about this run: {}",
                path.display()
            );
        }
    }
    w.clean_up();
    println!("e2e: all done in {:?}", t0.elapsed());
}

/// Message-IDs must be globally unique (RFC 5322, 3.6.4), and mail
/// programs rely on it: Gmail, for one, silently drops a message whose
/// Message-ID it has already seen. So a second installation on the same
/// domain, or the same one after its database was reset, must not reuse
/// the Message-IDs of the first: its `rocket-1` is another game. This needs
/// no mail stack: both databases write their welcome mails as `.eml`
/// files.
#[test]
fn message_ids_are_not_reused_by_a_fresh_database() {
    let dir = TempDir::new().unwrap();
    let mut ids: Vec<BTreeSet<String>> = Vec::new();
    for name in ["first", "second"] {
        let d = dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        let config = d.join("config.toml");
        std::fs::write(
            &config,
            format!(
                "[store]\npath = \"{0}/db\"\n[inbound]\nmaildir = \"{0}/inbox\"\n\
                 [outbound]\ndir = \"{0}/outbox\"\n[mail]\naddress = \"{PROCESSOR}\"\n",
                d.display()
            ),
        )
        .unwrap();
        for args in [
            &[
                "new",
                "rocket",
                "--player",
                "alice=alice@example.test",
                "--player",
                "bob=bob@example.test",
                "--seed",
                "7",
            ][..],
            &["process"][..],
        ] {
            let out = Command::new(bin())
                .arg("--config")
                .arg(&config)
                .args(args)
                .env_remove("STATIONMASTER_NOW")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let mut set = BTreeSet::new();
        for e in std::fs::read_dir(d.join("outbox")).unwrap().flatten() {
            let bytes = std::fs::read(e.path()).unwrap();
            set.insert(parse(0, &bytes).message_id);
        }
        assert_eq!(set.len(), 2, "{name}: two welcome mails");
        ids.push(set);
    }
    let reused: Vec<&String> = ids[0].intersection(&ids[1]).collect();
    assert!(
        reused.is_empty(),
        "a fresh database reuses the Message-IDs of another one: {reused:?} (each is \
         GAME.COUNTER@domain, and the counter starts again with every database)"
    );
}

/// Every message file of a Maildir (none if it does not exist).
fn mailbox_files(maildir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for sub in ["new", "cur"] {
        let Ok(entries) = std::fs::read_dir(maildir.join(sub)) else {
            continue;
        };
        for e in entries.flatten() {
            let text =
                String::from_utf8_lossy(&std::fs::read(e.path()).unwrap_or_default()).into_owned();
            out.push((e.path(), text));
        }
    }
    out
}

/// A `stationmaster run` child, killed (by its own id) if the test fails
/// while it runs.
struct Daemon {
    child: Child,
    log: PathBuf,
}

impl Daemon {
    fn start(w: &World, name: &str) -> Daemon {
        let log = w.dir.path().join(format!("{name}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let child = w
            .command()
            .arg("run")
            .env("RUST_LOG", "stationmaster=info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(file)
            .spawn()
            .unwrap();
        Daemon { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGTERM, then waits (bounded) for the exit status.
    fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let ok = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(ok.success(), "kill -TERM {pid} failed");
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "`run` did not stop within {PATIENCE:?} of SIGTERM; its log:\n{}",
                self.log()
            );
            std::thread::sleep(POLL);
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Step 9. With `poll_seconds` an hour, `run` answers a mail moments after
/// it arrives: a second connection IDLEs on gm's INBOX and ends the wait.
/// Then Dovecot kicks every connection of gm's (`doveadm kick`): the daemon
/// connects again, IDLEs again, and the next mail is answered as fast. A
/// daemon that only polled would answer neither within the test's patience.
fn idle(w: &mut World) {
    let config = std::fs::read_to_string(&w.config).unwrap();
    std::fs::write(
        &w.config,
        config.replace("poll_seconds = 1\n", "poll_seconds = 3600\n"),
    )
    .unwrap();
    let d = Daemon::start(w, "run-idle");
    let waiting = |d: &Daemon, n: usize| {
        let start = Instant::now();
        while d.log().matches("waiting for new mail (IDLE)").count() < n {
            assert!(
                start.elapsed() < PATIENCE,
                "no IDLE within {PATIENCE:?}; `run` says:\n{}",
                d.log()
            );
            std::thread::sleep(POLL);
        }
    };
    let answered = |w: &mut World, d: &Daemon, mid: &str| {
        let start = Instant::now();
        loop {
            w.poll_all();
            let answers = w
                .ours_of("alice")
                .into_iter()
                .filter(|m| m.in_reply_to.as_deref() == Some(mid))
                .count();
            if answers > 0 {
                assert_eq!(answers, 1, "one answer to {mid}");
                *w.taken.get_mut("alice").unwrap() += 1;
                return start.elapsed();
            }
            assert!(
                start.elapsed() < PATIENCE,
                "{mid} not answered within {PATIENCE:?} (poll_seconds is an hour); `run` says:\n{}",
                d.log()
            );
            std::thread::sleep(POLL);
        }
    };
    waiting(&d, 1);
    let mid = w.reply("alice", "map");
    println!("IDLE: answered in {:?}", answered(w, &d, &mid));

    if let Some(root) = w.st.maildir_root.clone() {
        let conf = root.parent().unwrap().join("dovecot.conf");
        let kick = Command::new("doveadm")
            .arg("-c")
            .arg(&conf)
            .args(["kick", "gm"])
            .output()
            .unwrap();
        assert!(kick.status.success(), "doveadm kick: {kick:?}");
        // The test's own look at gm's INBOX was kicked too.
        w.gm = login(w.st.imap, "gm");
        w.gm.examine("INBOX").unwrap();
        waiting(&d, 2);
        let mid = w.reply("alice", "map");
        println!(
            "IDLE after every connection was kicked: answered in {:?}",
            answered(w, &d, &mid)
        );
    } else {
        println!("IDLE: SM_MAILDIR_ROOT unset, the kick is not tried");
    }
    let log = d.log();
    assert_eq!(d.terminate().code(), Some(0), "{log}");
    std::fs::write(&w.config, config).unwrap();
}

/// Step 8. Twelve mails are queued in gm's INBOX (8 with one order each, in
/// a legal order across three turns, and 4 `map` requests), then `run`
/// starts and is killed with SIGKILL as soon as any player has a reply.
/// `run` is started again, sends what is left, and stops with exit 0 on
/// SIGTERM.
///
/// What is asserted, and why:
/// - the log gains exactly the 8 orders, each once, in the order sent:
///   mail is applied at most once (its receipt is committed with its
///   effects) and none is lost (a mail is flagged done only after that
///   commit);
/// - every mail of the batch is flagged `\Seen` in the end;
/// - each player gets exactly one distinct report (by Message-ID) per
///   order mail, and the sender of each mail exactly one distinct reply
///   threaded under it (In-Reply-To), so 10 for alice (8 reports, 2 maps)
///   and 9 each for bob and cecil: nothing is lost;
/// - copies: the outbox is drained one mail at a time (send, then remove),
///   and the removals are made durable every `SENT_PER_FLUSH` (8) mails,
///   so a SIGKILL makes the restarted daemon send again the mails sent
///   since the last flush and the one in flight, with the same Message-ID
///   and body. So at most 8 Message-IDs may arrive twice (never more
///   often), and the copies must be identical apart from the headers the
///   servers add.
///
/// Where the kill lands: a cycle sends each reply as soon as the change
/// that made it is durable, while it goes on handling the next mails, and
/// flags the mails done only at the end of the cycle. So the kill at the
/// first reply finds the daemon in mid-batch: some changes committed (and
/// their replies in the outbox), the rest not yet, and no mail flagged
/// done. The restart fetches all 12 again, skips those whose receipt is
/// stored, handles the others, and sends what the outbox holds. The test
/// prints these numbers rather than relying on them.
fn crash_safety(w: &mut World) {
    let log_before = w.log();
    let batch: [(&'static str, &str); 12] = [
        ("cecil", "token sheffield steel"),
        ("alice", "map"),
        ("cecil", "station f8"),
        ("alice", "token london textiles"),
        ("bob", "map"),
        ("alice", "extend ner f2"),
        ("bob", "token nottingham brewing"),
        ("cecil", "map"),
        ("bob", "extend ger m8"),
        ("cecil", "extend ser m16"),
        ("alice", "map"),
        ("cecil", "token leicester leather"),
    ];
    let expected_log = [
        "cecil: token Sheffield steel",
        "cecil: station F8",
        "alice: token London textiles",
        "alice: extend NER F2",
        "bob: token Nottingham brewing",
        "bob: extend GER M8",
        "cecil: extend SER M16",
        "cecil: token Leicester leather",
    ];
    let orders = batch.iter().filter(|(_, b)| *b != "map").count();
    let expected: BTreeMap<&str, usize> = PLAYERS
        .iter()
        .map(|p| {
            let maps = batch.iter().filter(|(q, b)| q == p && *b == "map").count();
            (*p, orders + maps)
        })
        .collect();
    let mut mids = Vec::new();
    for (p, body) in batch {
        mids.push((p, w.reply(p, body)));
    }
    let all_mids: Vec<String> = mids.iter().map(|(_, m)| m.clone()).collect();
    assert_eq!(
        w.unseen_in_gm(&all_mids),
        12,
        "the batch waits in gm's INBOX"
    );
    w.poll_all();
    let base: BTreeMap<&str, usize> = PLAYERS.iter().map(|p| (*p, w.ours_of(p).len())).collect();
    for p in PLAYERS {
        assert_eq!(base[p], w.taken[p], "{p} has mail no step expected");
    }
    let new_mails =
        |w: &World| -> usize { PLAYERS.iter().map(|p| w.ours_of(p).len() - base[p]).sum() };

    // Run, and kill -9 at the first reply.
    let t = Instant::now();
    let mut first = Daemon::start(w, "run-1");
    loop {
        w.poll_all();
        if new_mails(w) > 0 {
            break;
        }
        if let Some(status) = first.child.try_wait().unwrap() {
            panic!("`run` ended by itself ({status}):\n{}", first.log());
        }
        assert!(
            t.elapsed() < PATIENCE,
            "no reply to the batch within {PATIENCE:?}; `run` says:\n{}",
            first.log()
        );
        std::thread::sleep(POLL);
    }
    first.child.kill().unwrap();
    let status = first.child.wait().unwrap();
    assert!(!status.success(), "killed: {status}");
    let at_kill = new_mails(w);
    let handled_at_kill = 12 - w.unseen_in_gm(&all_mids);
    let log_at_kill = w.log().len() - log_before.len();
    let handled_lines = first.log().matches("mail handled").count();
    // What the killed daemon got out: the mail it handed to OpenSMTPD is
    // delivered within milliseconds.
    std::thread::sleep(Duration::from_millis(500));
    w.poll_all();
    let total: usize = expected.values().sum();
    let sent_before_kill = new_mails(w);
    println!(
        "kill -9 after {:?}: {handled_at_kill} of 12 mails flagged done, {log_at_kill} of {orders} \
         orders committed, {handled_lines} 'mail handled' lines logged; {at_kill} replies delivered \
         when the kill was decided, {sent_before_kill} of {total} in all from the killed daemon",
        t.elapsed()
    );
    drop(first);

    // Again, until every player has all their mail; then SIGTERM.
    let second = Daemon::start(w, "run-2");
    let start = Instant::now();
    loop {
        w.poll_all();
        let done = PLAYERS.iter().all(|p| {
            let distinct: BTreeSet<String> = w.ours_of(p)[base[p]..]
                .iter()
                .map(|m| m.message_id.clone())
                .collect();
            distinct.len() >= expected[p]
        });
        if done {
            break;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "after the restart not every report came within {PATIENCE:?}; `run` says:\n{}",
            second.log()
        );
        std::thread::sleep(POLL);
    }
    // A straggler copy from the killed daemon's last send may still be on
    // its way: give it a moment before counting.
    std::thread::sleep(Duration::from_millis(300));
    w.poll_all();
    let log_text = second.log();
    println!(
        "restarted `run`: every reply in within {:?}",
        start.elapsed()
    );
    let stopping = Instant::now();
    let status = second.terminate();
    println!("`run` stopped {:?} after SIGTERM", stopping.elapsed());
    assert_eq!(
        status.code(),
        Some(0),
        "`run` exits 0 on SIGTERM; its log:\n{log_text}"
    );
    println!("crash step done in {:?}", t.elapsed());

    // The log: each order exactly once, in order.
    let log = w.log();
    assert_eq!(&log[..log_before.len()], &log_before[..]);
    assert_eq!(
        &log[log_before.len()..],
        &expected_log[..],
        "each order exactly once"
    );
    for want in expected_log {
        assert_eq!(log.iter().filter(|l| *l == want).count(), 1, "{want}");
    }
    assert_eq!(
        w.unseen_in_gm(&all_mids),
        0,
        "every mail of the batch is done"
    );

    // The mail: one distinct report per mail that calls for one.
    let mut copies: BTreeMap<String, Vec<Got>> = BTreeMap::new();
    for p in PLAYERS {
        let new = w.ours_of(p)[base[p]..].to_vec();
        let distinct: BTreeSet<&str> = new.iter().map(|m| m.message_id.as_str()).collect();
        assert_eq!(
            distinct.len(),
            expected[p],
            "{p}: {:?}",
            new.iter().map(|m| &m.subject).collect::<Vec<_>>()
        );
        for m in &new {
            assert_eq!(m.to, format!("{p}@example.test"));
            assert!(
                m.subject.contains(&format!("[{GAME} {}]", w.keys[p])),
                "{}",
                m.subject
            );
            copies
                .entry(m.message_id.clone())
                .or_default()
                .push(m.clone());
        }
        for (q, mid) in &mids {
            let answers: BTreeSet<&str> = new
                .iter()
                .filter(|m| m.in_reply_to.as_deref() == Some(mid.as_str()))
                .map(|m| m.message_id.as_str())
                .collect();
            let want = usize::from(*q == p);
            assert_eq!(answers.len(), want, "{p}: answers to {q}'s {mid}");
        }
        // Every order of the batch shows up once in the player's reports
        // (each distinct mail read once).
        let mut read = BTreeSet::new();
        let events: String = new
            .iter()
            .filter(|m| read.insert(m.message_id.clone()))
            .map(|m| m.text.clone())
            .collect();
        for want in expected_log {
            let shown = count(&events, &format!("\n  {want}\n"));
            assert_eq!(shown, 1, "{p} reads {want:?} {shown} times");
        }
    }
    let dups: Vec<(&String, &Vec<Got>)> = copies.iter().filter(|(_, v)| v.len() > 1).collect();
    println!(
        "after the restart: {} distinct replies, {} duplicated {:?}",
        copies.len(),
        dups.len(),
        dups.iter()
            .map(|(id, v)| (id.as_str(), v.len()))
            .collect::<Vec<_>>()
    );
    assert!(
        dups.len() <= stationmaster::daemon::SENT_PER_FLUSH,
        "more mails came twice than were sent since the last flush: {dups:?}"
    );
    for (id, v) in dups {
        assert_eq!(v.len(), 2, "{id} came {} times", v.len());
        assert_eq!(v[0].subject, v[1].subject);
        assert_eq!(v[0].text, v[1].text, "{id}: the copies differ");
    }
    for p in PLAYERS {
        *w.taken.get_mut(p).unwrap() += expected[p];
    }
}
