//! The daemon through real MIME on in-memory transports: welcome mails with
//! keys, orders by mail, replies and reports, refusals, spoofing, auto-replies,
//! help, the veto queue, replays and retries. The end-to-end tests over real
//! IMAP and SMTP servers are in `tests/e2e.rs`.

use stationmaster::engine::Viewer;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, Duration, Utc};
use mail_parser::MessageParser;
use stationmaster::config::Config;
use stationmaster::daemon::{self, Daemon};
use stationmaster::engine::{PlayerSetup, Setup};
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport::{MemoryInbound, MemoryOutbound};
use stationmaster::mail::{OutMail, Outbound, TransportError};
use stationmaster::registry::BoardSource;
use stationmaster::store::{GameId, Store};
use tempfile::TempDir;

const PLAYERS: [&str; 3] = ["alice", "bob", "cecil"];

struct World {
    _dir: TempDir,
    daemon: Daemon,
    inbox: MemoryInbound,
    outbox: MemoryOutbound,
    id: GameId,
    tokens: Vec<String>,
    now: DateTime<Utc>,
    n: usize,
    /// The mails the game's creation sent (welcomes), as they went out.
    welcomes: Vec<OutMail>,
}

/// A received mail, parsed back with mail-parser.
#[derive(Clone, Debug)]
struct Got {
    to: String,
    subject: String,
    /// The text part as a mail program reads it (flowed lines joined).
    text: String,
    /// The text part's lines as they were sent.
    sent: String,
    html: String,
    in_reply_to: Option<String>,
}

fn parse(mail: &OutMail) -> Got {
    let m = MessageParser::default()
        .parse(&mail.bytes)
        .expect("our mail parses");
    Got {
        to: mail.to.join(","),
        subject: m.subject().unwrap_or_default().to_string(),
        text: crate::flowed::text_part(&m).unwrap_or_default(),
        sent: m.body_text(0).map(|t| t.into_owned()).unwrap_or_default(),
        html: m.body_html(0).map(|t| t.into_owned()).unwrap_or_default(),
        in_reply_to: m.in_reply_to().as_text().map(str::to_string),
    }
}

fn config() -> Config {
    let mut c = Config::default();
    c.mail.address = "sm@example.org".into();
    c
}

impl World {
    /// A 3-player game; seed 7 makes bob start.
    fn new() -> World {
        World::sending_by(|outbox| Box::new(outbox))
    }

    /// The same, with the daemon's mail going out through `outbound`
    /// (which is handed the world's memory outbox).
    fn sending_by(outbound: impl FnOnce(MemoryOutbound) -> Box<dyn Outbound>) -> World {
        World::build(config(), outbound, vec![])
    }

    /// A 3-player game under `config`.
    fn configured(config: Config) -> World {
        World::build(config, |outbox| Box::new(outbox), vec![])
    }

    /// The same game with these moderators.
    fn moderated_by(moderators: &[&str]) -> World {
        World::build(
            config(),
            |outbox| Box::new(outbox),
            moderators.iter().map(|m| m.to_string()).collect(),
        )
    }

    fn build(
        config: Config,
        outbound: impl FnOnce(MemoryOutbound) -> Box<dyn Outbound>,
        moderators: Vec<String>,
    ) -> World {
        let dir = TempDir::new().unwrap();
        let store = Store::open(&dir.path().join("db")).unwrap();
        let inbox = MemoryInbound::new();
        let outbox = MemoryOutbound::new();
        let daemon = Daemon::new(
            store,
            config,
            Templates::load(None).unwrap(),
            BoardSource::embedded(),
            Box::new(inbox.clone()),
            outbound(outbox.clone()),
        );
        let now = DateTime::parse_from_rfc3339("2026-11-21T18:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let setup = Setup {
            kind: "rocket".into(),
            players: PLAYERS
                .iter()
                .map(|n| PlayerSetup {
                    name: n.to_string(),
                    email: format!("{n}@example.org"),
                })
                .collect(),
            options: vec![],
            seed: 7,
        };
        let id = daemon::create_game(&daemon.ctx(), &setup, Default::default(), moderators, now)
            .unwrap();
        let tokens = daemon.store().meta(&id).unwrap().tokens;
        let mut w = World {
            _dir: dir,
            daemon,
            inbox,
            outbox,
            id,
            tokens,
            now,
            n: 0,
            welcomes: Vec::new(),
        };
        w.daemon.process(w.now, &AtomicBool::new(false)).unwrap();
        w.welcomes = w.outbox.take();
        w
    }

    fn process(&mut self) -> Vec<Got> {
        self.daemon
            .process(self.now, &AtomicBool::new(false))
            .unwrap();
        self.outbox.take().iter().map(parse).collect()
    }

    fn seat(name: &str) -> usize {
        PLAYERS.iter().position(|p| *p == name).unwrap()
    }

    /// A raw mail; `token` goes into the subject tag.
    fn raw(&mut self, from: &str, subject: &str, headers: &str, body: &str) -> String {
        self.n += 1;
        format!(
            "From: {from}\r\nTo: sm@example.org\r\nSubject: {subject}\r\nMessage-ID: <t{}@example.org>\r\n{headers}Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            self.n
        )
    }

    /// A reply from `player` with their key, as their mail program sends it.
    fn send(&mut self, player: &str, body: &str) -> Vec<Got> {
        let token = self.tokens[Self::seat(player)].clone();
        let subject = format!("Re: [{} {token}] Your turn", self.id);
        let raw = self.raw(&format!("{player}@example.org"), &subject, "", body);
        self.inbox.push(raw);
        self.process()
    }

    fn json(&self) -> serde_json::Value {
        self.daemon
            .store()
            .load(&self.id)
            .unwrap()
            .game
            .view_json(Viewer::Spectator)
    }

    fn log_len(&self) -> usize {
        self.daemon.store().log(&self.id).unwrap().len()
    }
}

fn to<'a>(mails: &'a [Got], who: &str) -> Vec<&'a Got> {
    mails
        .iter()
        .filter(|m| m.to == format!("{who}@example.org"))
        .collect()
}

#[test]
fn each_player_is_welcomed_with_a_secret_key() {
    let dir = TempDir::new().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let inbox = MemoryInbound::new();
    let outbox = MemoryOutbound::new();
    let mut d = Daemon::new(
        store,
        config(),
        Templates::load(None).unwrap(),
        BoardSource::embedded(),
        Box::new(inbox),
        Box::new(outbox.clone()),
    );
    let setup = Setup {
        kind: "rocket".into(),
        players: PLAYERS
            .iter()
            .map(|n| PlayerSetup {
                name: n.to_string(),
                email: format!("{n}@example.org"),
            })
            .collect(),
        options: vec![],
        seed: 7,
    };
    let now = Utc::now();
    let id = daemon::create_game(&d.ctx(), &setup, Default::default(), vec![], now).unwrap();
    d.process(now, &AtomicBool::new(false)).unwrap();
    let sent = outbox.take();
    assert_eq!(sent.len(), 3);
    let tokens = d.store().meta(&id).unwrap().tokens;
    assert_eq!(
        tokens
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        3,
        "distinct keys"
    );
    for (i, mail) in sent.iter().enumerate() {
        let got = parse(mail);
        let raw = String::from_utf8_lossy(&mail.bytes);
        assert_eq!(got.to, format!("{}@example.org", PLAYERS[i]));
        assert!(
            got.subject == format!("[rocket-1 {}] Stephenson's Rocket", tokens[i]),
            "{}",
            got.subject
        );
        assert!(
            raw.contains(&format!("sm+rocket-1.{}@example.org", tokens[i])),
            "reply-to carries the key"
        );
        assert!(got.text.contains("Welcome to rocket-1"), "{}", got.text);
        assert!(got.text.contains("@Yor@"), "the map is in the text part");
        assert!(
            got.html.contains("<pre") && got.html.contains("color:"),
            "a coloured map in HTML"
        );
        for (j, t) in tokens.iter().enumerate() {
            if j != i {
                assert!(
                    !raw.contains(t.as_str()),
                    "{}'s mail shows another player's key",
                    PLAYERS[i]
                );
            }
        }
    }
}

#[test]
fn orders_by_mail_are_applied_answered_and_reported_to_everyone() {
    let mut w = World::new();
    let mails = w.send(
        "bob",
        "token manchester textiles\nextend ly b4\n\n-- \nBob\nmy signature",
    );
    assert_eq!(w.log_len(), 2);
    assert_eq!(mails.len(), 3, "one mail per player");
    let bob = to(&mails, "bob")[0];
    assert!(bob.subject.starts_with("Re: [rocket-1"), "{}", bob.subject);
    assert_eq!(
        bob.in_reply_to.as_deref(),
        Some("t1@example.org"),
        "threaded"
    );
    assert!(
        bob.text.contains("> token Manchester textiles") && bob.text.contains("> extend L&Y B4"),
        "{}",
        bob.text
    );
    assert!(bob.text.contains("Applied."), "{}", bob.text);
    assert!(
        bob.text.contains("You receive £2,000"),
        "bob sees his own payment: {}",
        bob.text
    );
    assert!(
        bob.text.contains("Your money: £2,000 (private)"),
        "{}",
        bob.text
    );
    let alice = to(&mails, "alice")[0];
    assert!(
        alice.text.contains("bob is paid for Manchester's tokens"),
        "{}",
        alice.text
    );
    assert!(
        !alice.text.contains("2,000"),
        "alice must not see bob's money: {}",
        alice.text
    );
    // In HTML as in text, what an order caused stands under it, indented.
    assert!(
        alice.html.contains(
            "<li style=\"list-style:circle;margin-left:1.5em\">bob is paid for Manchester"
        ),
        "{}",
        alice.html
    );
    assert!(alice.in_reply_to.is_none());
    let cecil = to(&mails, "cecil")[0];
    assert!(
        cecil.text.contains("You can:") && cecil.text.contains("extend LINE HEX"),
        "cecil is next: {}",
        cecil.text
    );
    assert!(cecil.html.contains("<pre"));
}

#[test]
fn a_refused_order_changes_nothing_and_says_why_and_what_is_legal() {
    let mut w = World::new();
    let before = w.json();
    let mails = w.send("bob", "token manchester textiles\nextend gwr c13");
    assert_eq!(w.json(), before);
    assert_eq!(mails.len(), 1, "only the sender hears of it");
    let text = &mails[0].text;
    assert!(
        text.contains("Nothing was applied. Order 2 of your mail was refused:"),
        "{text}"
    );
    assert!(text.contains("extend gwr c13"), "{text}");
    assert!(text.contains("GWR can move to"), "{text}");
    assert!(text.contains("You can:"), "{text}");

    // Out of turn, and nonsense.
    let mails = w.send("alice", "token london steel");
    assert!(
        mails[0].text.contains("It is bob's turn, not yours."),
        "{}",
        mails[0].text
    );
    // A line no order begins is not refused but shown (issue 11).
    let mails = w.send("bob", "build a railway");
    assert!(
        mails[0]
            .text
            .replace("\r\n", "\n")
            .contains("Not read as orders (no order or command begins so):\n  build a railway"),
        "{}",
        mails[0].text
    );
    assert!(mails[0].text.contains("Your mail had no orders in it"));
    assert_eq!(w.json(), before);
}

#[test]
fn a_mail_already_processed_is_never_applied_again() {
    let mut w = World::new();
    let token = w.tokens[1].clone();
    let raw = format!(
        "From: bob@example.org\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] x\r\nMessage-ID: <same@example.org>\r\n\r\ntoken manchester textiles\r\n"
    );
    w.inbox.push(raw.clone());
    assert_eq!(w.process().len(), 3);
    w.inbox.push(raw);
    assert!(w.process().is_empty(), "a replay gets no answer");
    assert_eq!(w.log_len(), 1);
}

#[test]
fn a_mail_without_the_key_or_from_another_address_changes_nothing_and_the_player_is_told() {
    let mut w = World::new();
    let before = w.json();
    // From bob's address, no key.
    let raw = w.raw(
        "bob@example.org",
        "[rocket-1] orders",
        "",
        "token manchester textiles",
    );
    w.inbox.push(raw);
    let mails = w.process();
    assert_eq!(w.json(), before);
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, "bob@example.org");
    assert!(
        mails[0]
            .subject
            .contains("Someone tried to give orders as you")
    );
    assert!(mails[0].text.contains("no key"), "{}", mails[0].text);
    // The key was not in it: bob is not told someone has it.
    let flat = crate::common::flat(&mails[0].text);
    assert!(
        flat.contains("Your key is safe") && !flat.contains("may have your key"),
        "{}",
        mails[0].text
    );

    // With bob's key, from someone else: bob is told, not the sender
    // (alerts about one key are sent at most once a day).
    w.now += Duration::hours(25);
    let token = w.tokens[1].clone();
    let raw = w.raw(
        "mallory@example.net",
        &format!("[rocket-1 {token}] orders"),
        "",
        "token manchester textiles",
    );
    w.inbox.push(raw);
    let mails = alerts(&w.process());
    assert_eq!(w.json(), before);
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, "bob@example.org");
    assert!(
        mails[0].text.contains("mallory@example.net"),
        "{}",
        mails[0].text
    );
    let flat = crate::common::flat(&mails[0].text);
    assert!(
        flat.contains("someone may have your key"),
        "{}",
        mails[0].text
    );

    // Alice's address with bob's key: refused too; alice is told (bob was
    // told about his key within the day already).
    let raw = w.raw(
        "alice@example.org",
        &format!("[rocket-1 {token}] orders"),
        "",
        "token manchester textiles",
    );
    w.inbox.push(raw);
    let mails = alerts(&w.process());
    assert_eq!(w.json(), before);
    assert_eq!(to(&mails, "alice").len(), 1);
    assert!(to(&mails, "bob").is_empty());
}

/// The alerts among `mails` (leaving out reminders and reports).
fn alerts(mails: &[Got]) -> Vec<Got> {
    mails
        .iter()
        .filter(|m| m.subject.contains("Someone"))
        .map(|m| Got {
            to: m.to.clone(),
            subject: m.subject.clone(),
            text: m.text.clone(),
            sent: m.sent.clone(),
            html: m.html.clone(),
            in_reply_to: m.in_reply_to.clone(),
        })
        .collect()
}

#[test]
fn the_owner_of_a_key_used_from_another_address_is_alerted_once_a_day_with_what_was_tried() {
    let mut w = World::new();
    let bobs = w.tokens[1].clone();
    // Alice's address, bob's key: both are told, bob with what was tried.
    let raw = w.raw(
        "alice@example.org",
        &format!("Re: [rocket-1 {bobs}] orders"),
        "",
        "extend gwr c14\nstation d5",
    );
    w.inbox.push(raw);
    let mails = w.process();
    let to_bob = to(&mails, "bob");
    assert_eq!(to_bob.len(), 1);
    let text = &to_bob[0].text;
    assert!(text.contains("alice@example.org"), "{text}");
    assert!(
        text.contains("What it asked for:") && text.contains("  extend gwr c14"),
        "{text}"
    );
    assert!(!to_bob[0].html.is_empty() || text.contains("refused"));
    assert_eq!(to(&mails, "alice").len(), 1);
    // Again within the day: nobody is told again.
    w.now += Duration::hours(23);
    let raw = w.raw(
        "mallory@example.net",
        &format!("Re: [rocket-1 {bobs}] orders"),
        "",
        "pass",
    );
    w.inbox.push(raw);
    assert!(alerts(&w.process()).is_empty());
    // A day on: bob again.
    w.now += Duration::hours(2);
    let raw = w.raw(
        "mallory@example.net",
        &format!("Re: [rocket-1 {bobs}] orders"),
        "",
        "pass",
    );
    w.inbox.push(raw);
    assert_eq!(to(&alerts(&w.process()), "bob").len(), 1);
}

#[test]
fn a_moderators_key_from_another_address_alerts_the_moderator() {
    let mut w = World::new();
    let meta = w.daemon.store().meta(&w.id).unwrap();
    assert!(meta.moderator_tokens.is_empty());
    // Make a moderator, then use their key from bob's address.
    stationmaster::local::moderate(
        &w.daemon.ctx(),
        &w.id,
        "operator",
        "moderator gm@example.org",
        None,
        w.now,
    )
    .unwrap();
    w.process();
    let key = w.daemon.store().meta(&w.id).unwrap().moderator_tokens["gm@example.org"].clone();
    let before = w.json();
    let raw = w.raw(
        "bob@example.org",
        &format!("Re: [rocket-1 {key}] x"),
        "",
        "skip",
    );
    w.inbox.push(raw);
    let mails = w.process();
    assert_eq!(w.json(), before);
    let to_gm = to(&mails, "gm");
    assert_eq!(to_gm.len(), 1, "{mails:?}");
    assert!(
        to_gm[0].subject.contains("moderator key"),
        "{}",
        to_gm[0].subject
    );
    assert!(to_gm[0].text.contains("bob@example.org") && to_gm[0].text.contains("  skip"));
}

#[test]
fn help_replies_stop_at_the_hourly_limit_so_forged_senders_make_no_backscatter() {
    let mut w = World::new();
    for i in 0..40 {
        let raw = w.raw(&format!("forged{i}@example.net"), "hello", "", "hi");
        w.inbox.push(raw);
    }
    let mails = w.process();
    assert_eq!(mails.len(), 30, "[limits] help_per_hour is 30 by default");
    // The next hour, more may go.
    w.now += Duration::hours(1);
    let raw = w.raw("forged99@example.net", "hello", "", "hi");
    w.inbox.push(raw);
    assert_eq!(w.process().len(), 1);
}

#[test]
fn a_flood_from_one_address_waits_its_turn_and_delays_nobody_else() {
    let mut w = World::new();
    for _ in 0..25 {
        let raw = w.raw("flood@example.net", "hello", "", "hi");
        w.inbox.push(raw);
    }
    // Bob's order comes after the flood, and is handled in the same cycle.
    let token = w.tokens[1].clone();
    let raw = w.raw(
        "bob@example.org",
        &format!("Re: [rocket-1 {token}] x"),
        "",
        "token manchester textiles",
    );
    w.inbox.push(raw);
    w.process();
    assert_eq!(w.log_len(), 1);
    // 20 of the flood were handled; 5 wait for the next cycle.
    assert_eq!(w.inbox.waiting().len(), 5);
    w.process();
    assert!(w.inbox.waiting().is_empty());
}

#[test]
fn mail_my_server_marked_as_forged_gets_no_reply() {
    let mut config = config();
    config.inbound.trust_authentication_results = "mx.example.org".into();
    let mut w = World::configured(config);
    let forged = w.raw(
        "stranger@example.net",
        "hello",
        "Authentication-Results: mx.example.org; spf=fail smtp.mailfrom=example.net; dmarc=fail (p=reject) header.from=example.net\r\n",
        "hi",
    );
    // The same claim by a server that is not ours counts for nothing.
    let other = w.raw(
        "stranger2@example.net",
        "hello",
        "Authentication-Results: evil.example; dmarc=fail\r\nAuthentication-Results: mx.example.org; spf=pass; dkim=pass; dmarc=pass\r\n",
        "hi",
    );
    w.inbox.push(forged);
    w.inbox.push(other);
    let mails = w.process();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, "stranger2@example.net");
    assert!(w.inbox.waiting().is_empty(), "both are done");
}

#[test]
fn mail_my_server_vouches_for_is_answered_as_its_senders_own_once_a_day() {
    let mut config = config();
    config.inbound.trust_authentication_results = "mx.example.org".into();
    let mut w = World::configured(config);
    let pass = "Authentication-Results: mx.example.org; spf=pass smtp.mailfrom=example.net; dkim=pass header.d=example.net; dmarc=pass header.from=example.net\r\n";
    let ask = |w: &mut World, from: &str, headers: &str, body: &str| -> Vec<Got> {
        let raw = w.raw(from, "hello", headers, body);
        w.inbox.push(raw);
        w.process().into_iter().filter(|m| m.to == from).collect()
    };
    // The From is the party itself: answered without a code, and its
    // `new` is done at once.
    let mails = ask(&mut w, "newcomer@example.net", pass, "how do I play?");
    assert_eq!(mails.len(), 1);
    assert!(
        !mails[0].subject.contains("[code") && !mails[0].text.contains("go on"),
        "{:#?}",
        mails[0]
    );
    assert!(
        ask(&mut w, "newcomer@example.net", pass, "?").is_empty(),
        "once a day"
    );
    w.now += Duration::hours(25);
    let mails = ask(&mut w, "newcomer@example.net", pass, "new rocket");
    assert_eq!(mails.len(), 1);
    assert!(
        mails[0].text.contains("You made rocket-2"),
        "{}",
        mails[0].text
    );
    // Only a pass of the operator's own server counts: another's is a
    // stranger's mail, which gets one mail with a code, and nothing more.
    let evil = "Authentication-Results: evil.example; dmarc=pass\r\n";
    let mails = ask(&mut w, "other@example.net", evil, "hi");
    assert_eq!(mails.len(), 1);
    assert!(
        mails[0].subject.starts_with("[code "),
        "{}",
        mails[0].subject
    );
    w.now += Duration::hours(25);
    assert!(ask(&mut w, "other@example.net", evil, "hi").is_empty());
}

#[test]
fn automatic_mail_is_never_answered() {
    let mut w = World::new();
    let token = w.tokens[0].clone();
    for headers in [
        "Auto-Submitted: auto-replied\r\n",
        "Precedence: bulk\r\n",
        "Precedence: junk\r\n",
        "X-Autoreply: yes\r\n",
    ] {
        let raw = w.raw(
            "alice@example.org",
            &format!("Re: [rocket-1 {token}] x"),
            headers,
            "I am on holiday.",
        );
        w.inbox.push(raw);
        assert!(w.process().is_empty(), "{headers} was answered");
    }
    let raw = w.raw(
        "alice@example.org",
        &format!("Out of Office: [rocket-1 {token}] x"),
        "",
        "Back on Monday.",
    );
    w.inbox.push(raw);
    assert!(w.process().is_empty());
    let raw = w.raw(
        "MAILER-DAEMON@example.org",
        "Undeliverable: [rocket-1] x",
        "",
        "Your mail could not be delivered.",
    );
    w.inbox.push(raw);
    assert!(w.process().is_empty());
    assert_eq!(w.log_len(), 0);
}

#[test]
fn a_player_who_writes_a_new_mail_naming_the_game_is_told_to_reply_instead() {
    let mut w = World::new();
    let raw = w.raw("bob@example.org", "Rocket-1: my move", "", "station F8");
    w.inbox.push(raw);
    let mails = w.process();
    assert_eq!(mails.len(), 1, "{mails:#?}");
    assert_eq!(mails[0].to, "bob@example.org");
    assert!(
        crate::common::flat(&mails[0].text)
            .contains("names rocket-1 but does not carry its tag, so nothing in it was read"),
        "{}",
        mails[0].text
    );
    assert_eq!(w.log_len(), 0, "nothing applied");
    // The help reads as a plain-text mail: no line runs on, and each
    // command of the site's stands on a line of its own.
    let long: Vec<&str> = mails[0]
        .sent
        .lines()
        .filter(|l| l.chars().count() > 78)
        .collect();
    assert!(long.is_empty(), "{long:#?}");
    assert!(
        mails[0].text.lines().any(|l| l == "  help")
            && mails[0].text.lines().any(|l| l == "  start"),
        "{}",
        mails[0].text
    );
}

#[test]
fn mail_that_names_no_game_gets_one_answer_until_its_sender_replies_then_one_a_day() {
    let mut w = World::new();
    let raw = w.raw("stranger@example.net", "hello", "", "how do I play?");
    w.inbox.push(raw);
    let mails = w.process();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].to, "stranger@example.net");
    assert!(
        mails[0].text.contains("Your mail named no game.")
            && mails[0].text.contains("reply to this mail to go on"),
        "{}",
        mails[0].text
    );
    assert_eq!(
        mails[0].in_reply_to.as_deref(),
        Some(format!("t{}@example.org", w.n).as_str())
    );
    let first = mails[0].clone();
    assert!(first.subject.starts_with("[code "), "{}", first.subject);
    // A player who writes without a game tag hears which games are
    // theirs, without a code: a player has asked for mail.
    let raw = w.raw("alice@example.org", "hi", "", "what now?");
    w.inbox.push(raw);
    let mails = w.process();
    assert!(
        mails[0].text.contains("Your games here: rocket-1") && !mails[0].subject.contains("[code"),
        "{:#?}",
        mails[0]
    );

    // Whatever comes from that address later, on any day, is kept and not
    // answered: a forged sender makes the server write one mail in all.
    for body in ["?", "help", "games", "new rocket"] {
        let raw = w.raw("stranger@example.net", "[rocket-9] hello again", "", body);
        w.inbox.push(raw);
        let to_them: Vec<Got> = w
            .process()
            .into_iter()
            .filter(|m| m.to == "stranger@example.net")
            .collect();
        assert!(to_them.is_empty(), "{body}: {to_them:#?}");
        w.now += Duration::hours(25);
    }
    // A reply to that mail carries its code back: the address has proved
    // itself, and is answered from then on. (Days went by: the game's
    // mails to its players are left aside.)
    let theirs = |w: &mut World| -> Vec<Got> {
        w.process()
            .into_iter()
            .filter(|m| m.to == "stranger@example.net")
            .collect()
    };
    let raw = w.raw(
        "stranger@example.net",
        &format!("Re: {}", first.subject),
        "",
        "thanks",
    );
    w.inbox.push(raw);
    let mails = theirs(&mut w);
    assert_eq!(mails.len(), 1, "{mails:#?}");
    assert!(
        mails[0].text.contains("is known here now"),
        "{}",
        mails[0].text
    );
    // Its help: at most one a day, as anyone's.
    let raw = w.raw("stranger@example.net", "[rocket-9] hello", "", "?");
    w.inbox.push(raw);
    let mails = theirs(&mut w);
    assert_eq!(mails.len(), 1);
    assert!(
        mails[0].text.contains("There is no game rocket-9 here.")
            && !mails[0].text.contains("go on"),
        "{}",
        mails[0].text
    );
    assert!(!mails[0].subject.contains("[code"), "{}", mails[0].subject);
    let raw = w.raw("stranger@example.net", "hello again", "", "?");
    w.inbox.push(raw);
    assert!(theirs(&mut w).is_empty(), "rate-limited");
    w.now += Duration::hours(25);
    let raw = w.raw("stranger@example.net", "hello again", "", "?");
    w.inbox.push(raw);
    let to_them = theirs(&mut w).len();
    assert_eq!(to_them, 1, "a day on");
}

#[test]
fn help_map_and_history_are_answered_to_the_sender_alone() {
    let mut w = World::new();
    w.send("bob", "token manchester textiles");
    let mails = w.send("alice", "help");
    assert_eq!(mails.len(), 1);
    assert!(
        mails[0].text.contains("extend LINE HEX") && mails[0].text.contains("bid N HEX"),
        "{}",
        mails[0].text
    );
    // And the commands besides orders, each with what it does.
    for (form, _) in stationmaster::daemon::commands::COMMANDS_HELP {
        assert!(
            mails[0].text.contains(form),
            "help lacks {form}: {}",
            mails[0].text
        );
    }
    let mails = w.send("alice", "map");
    assert_eq!(mails.len(), 1);
    assert!(mails[0].text.contains("@Yor@"));
    let mails = w.send("alice", "HISTORY");
    assert!(
        mails[0]
            .text
            .contains("#1 2026-11-21 18:00 bob: token Manchester textiles"),
        "{}",
        mails[0].text
    );
    // The commands read are echoed, as orders are.
    assert!(mails[0].text.contains("  > HISTORY"), "{}", mails[0].text);
    assert_eq!(w.log_len(), 1);
}

#[test]
fn orders_behind_a_veto_round_wait_and_apply_when_it_ends() {
    let mut w = World::new();
    w.send("bob", "token manchester textiles\nextend ly b4");
    // cecil's move asks bob about a veto; cecil's station waits.
    let mails = w.send("cecil", "extend ly c5\nstation f8");
    let cecil = to(&mails, "cecil")[0];
    assert!(
        cecil.text.contains("Held for later")
            && cecil.text.contains(
                "station f8: waits until the veto on L&Y's move to C5 is settled, then applies as your next action."
            ),
        "{}",
        cecil.text
    );
    assert_eq!(w.json()["phase"], "veto_question");
    let bob = to(&mails, "bob")[0];
    assert!(
        bob.text.contains("veto") && bob.text.contains("no veto"),
        "bob is asked: {}",
        bob.text
    );

    let mails = w.send("bob", "no veto");
    let v = w.json();
    assert_eq!(v["phase"], "actions");
    assert_eq!(
        v["stations"][0]["hex"], "F8",
        "cecil's waiting station was placed"
    );
    let cecil = to(&mails, "cecil")[0];
    assert!(
        cecil
            .text
            .contains("Your waiting orders were applied: station F8."),
        "{}",
        cecil.text
    );
    assert_eq!(v["turn"]["active_player"], "alice");
}

#[test]
fn waiting_orders_that_became_illegal_are_dropped_and_the_player_told() {
    let mut w = World::new();
    w.send("bob", "token manchester textiles\nextend ly b4");
    // The waiting order is another move of L&Y: illegal (once a turn).
    w.send("cecil", "extend ly c5\nextend ly c6");
    let mails = w.send("bob", "no veto");
    let cecil = to(&mails, "cecil")[0];
    assert!(
        cecil.text.contains(
            "Your waiting order `extend ly c6` was not applied: You already extended L&Y"
        ),
        "{}",
        cecil.text
    );
    assert_eq!(
        w.json()["turn"]["active_player"],
        "cecil",
        "cecil still has an action"
    );
}

#[test]
fn a_veto_round_by_mail() {
    let mut w = World::new();
    w.send("bob", "token manchester textiles\nextend ly b4");
    w.send("cecil", "extend ly c5");
    // bob calls the round and bids in one mail: alice holds no L&Y shares
    // and is passed over.
    let mails = w.send("bob", "veto\nbid 1 c3");
    let cecil = to(&mails, "cecil")[0];
    assert!(
        cecil.text.contains("bob bids 1 share for C3"),
        "{}",
        cecil.text
    );
    assert!(
        cecil.text.contains("bid N HEX"),
        "cecil is asked to bid: {}",
        cecil.text
    );
    w.send("cecil", "bid 1 c5");
    let v = w.json();
    assert_eq!(v["phase"], "actions");
    let ly = v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == "L&Y")
        .unwrap();
    assert_eq!(ly["locomotive"], "C5");
    assert_eq!(
        ly["board_shares"], 15,
        "cecil's bid share went back to the board"
    );
}

/// bob's L&Y share, then cecil's L&Y move to C5: bob is asked about a
/// veto; cecil (the mover) holds a share too; alice holds none.
fn cecil_moves_ly(w: &mut World) {
    w.send("bob", "token manchester textiles\nextend ly b4");
    w.send("cecil", "extend ly c5");
    assert_eq!(w.json()["phase"], "veto_question");
}

#[test]
fn the_mover_may_call_a_veto_on_their_own_move() {
    let mut w = World::new();
    w.send("bob", "token manchester textiles\nextend ly b4");
    let mails = w.send("cecil", "extend ly c5");
    let cecil = to(&mails, "cecil")[0];
    assert!(
        cecil
            .text
            .contains("veto                   call a veto round on L&Y's move to C5"),
        "the mover is offered the veto: {}",
        cecil.text
    );
    let mails = w.send("cecil", "veto");
    assert_eq!(w.json()["phase"], "veto_round", "applied at once, not held");
    let cecil = to(&mails, "cecil")[0];
    assert!(
        cecil.text.contains("Applied.") && !cecil.text.contains("Held for later"),
        "{}",
        cecil.text
    );
    assert!(
        to(&mails, "bob")[0].text.contains("bid N HEX"),
        "bob bids first: {}",
        to(&mails, "bob")[0].text
    );
    w.send("bob", "pass");
    w.send("cecil", "pass");
    assert_eq!(w.json()["phase"], "actions");
}

#[test]
fn a_bid_sent_early_stands_hidden_and_applies_at_its_place() {
    let mut w = World::new();
    cecil_moves_ly(&mut w);
    let before = w.json();
    // cecil bids before any round is called: kept, and nobody else hears.
    let mails = w.send("cecil", "bid 1 c5");
    assert_eq!(mails.len(), 1, "only the sender is answered: {mails:#?}");
    let text = &mails[0].text;
    assert!(
        text.contains("Held for later")
            && text.contains("bid 1 c5: kept as your standing answer on L&Y's move to C5"),
        "{text}"
    );
    assert!(!text.contains("Applied."), "{text}");
    assert_eq!(w.json(), before, "the game did not change");
    // Nothing shows it to others: the JSON view, bob's report and history.
    for viewer in [
        Viewer::Spectator,
        Viewer::Player(stationmaster::engine::Seat(1)),
    ] {
        let v = w
            .daemon
            .store()
            .load(&w.id)
            .unwrap()
            .game
            .view_json(viewer)
            .to_string();
        assert!(!v.contains("bid 1"), "{v}");
    }
    let mails = w.send("bob", "map\nhistory");
    assert!(!mails[0].text.contains("bid 1 C5"), "{}", mails[0].text);

    // bob calls the round and bids 1 for C3; cecil's place comes and his
    // standing bid (the active player need only equal) wins.
    let mails = w.send("bob", "veto\nbid 1 c3");
    let v = w.json();
    assert_eq!(v["phase"], "actions");
    let ly = v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == "L&Y")
        .unwrap()
        .clone();
    assert_eq!(ly["locomotive"], "C5");
    let cecil = to(&mails, "cecil")[0];
    assert!(
        cecil
            .text
            .contains("Your standing answer was applied: bid 1 C5."),
        "{}",
        cecil.text
    );
    assert!(
        to(&mails, "alice")[0]
            .text
            .contains("cecil bids 1 share for C5"),
        "once applied, the bid is public like any other: {}",
        to(&mails, "alice")[0].text
    );
}

/// Issue 38, point 3: a held order and a standing answer are logged under
/// the mail they came in, not the mail whose arrival let them apply.
#[test]
fn held_orders_and_standing_answers_are_logged_under_their_own_mail() {
    let mut w = World::new();
    cecil_moves_ly(&mut w);
    // cecil's standing bid, then bob's mail that calls the round.
    w.send("cecil", "bid 1 c5");
    let cecils_mail = format!("t{}@example.org", w.n);
    w.send("bob", "veto\nbid 1 c3");
    let bobs_mail = format!("t{}@example.org", w.n);
    let log = w.daemon.store().log(&w.id).unwrap();
    let source_of = |order: &str| {
        log.iter()
            .find(|e| e.order.eq_ignore_ascii_case(order))
            .unwrap_or_else(|| panic!("{order} in {log:#?}"))
            .source
            .clone()
    };
    use stationmaster::engine::Actor;
    assert_eq!(source_of("bid 1 C5"), Some(Actor::Mail(cecils_mail)));
    assert_eq!(source_of("bid 1 C3"), Some(Actor::Mail(bobs_mail)));
}

#[test]
fn a_standing_bid_lapses_when_no_round_is_called_and_the_player_is_told() {
    let mut w = World::new();
    cecil_moves_ly(&mut w);
    w.send("cecil", "bid 1 c5\nstation f8");
    let mails = w.send("bob", "no veto");
    let cecil = to(&mails, "cecil")[0];
    assert!(
        cecil
            .text
            .contains("Your `bid 1 C5` was not needed: no veto round is under way.")
            && cecil
                .text
                .contains("Your waiting orders were applied: station F8."),
        "{}",
        cecil.text
    );
    assert!(
        !to(&mails, "bob")[0].text.contains("standing"),
        "{}",
        to(&mails, "bob")[0].text
    );
    assert!(w.daemon.store().meta(&w.id).unwrap().queued[2].is_empty());
}

/// Issue 38, point 2: the only shareholder asked answers `no veto` and,
/// in the same mail, `pass` for a round that might have come. The
/// `no veto` settles the question, so no round comes: the `pass` lapses,
/// and the player is told so as news, not as a refusal; the mail is not
/// refused, and the game does not wait for them.
#[test]
fn a_lapsed_answer_is_dropped_and_the_rest_of_the_mail_applies() {
    let mut w = World::new();
    cecil_moves_ly(&mut w);
    let before = w.log_len();
    let mails = w.send("bob", "no veto\npass");
    let bob = crate::common::flat(&to(&mails, "bob")[0].text);
    assert!(
        bob.contains("Your `pass` was not needed: no veto round is under way."),
        "{bob}"
    );
    assert!(
        !bob.contains("Nothing was applied") && !bob.contains("refused"),
        "{bob}"
    );
    assert_eq!(w.log_len(), before + 1, "`no veto` applied");
    let v = w.json();
    assert_eq!(v["phase"], "actions");
    let awaited: Vec<&serde_json::Value> = v["awaiting"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["player"])
        .collect();
    assert!(
        !awaited.iter().any(|p| *p == "bob"),
        "the game waits for bob no more: {awaited:?}"
    );
    // Only bob hears of it: the others read the move settled.
    for other in ["alice", "cecil"] {
        for m in to(&mails, other) {
            assert!(!m.text.contains("not needed"), "{}", m.text);
        }
    }
    // An answer sent when no move is waiting for a veto lapses the same way.
    let mails = w.send("alice", "no veto");
    let alice = crate::common::flat(&to(&mails, "alice")[0].text);
    assert!(
        alice.contains("Your `no veto` was not needed: no veto question is under way."),
        "{alice}"
    );
    assert!(!alice.contains("Nothing was applied"), "{alice}");
}

#[test]
fn an_early_bid_that_no_longer_beats_the_high_bid_asks_again() {
    let mut w = World::new();
    cecil_moves_ly(&mut w);
    w.send("bob", "no veto");
    w.send("cecil", "token london steel");
    w.send("alice", "token sheffield steel\ntoken sheffield leather");
    w.send("bob", "extend ly d5");
    w.send("cecil", "no veto");
    w.send("bob", "token oxford brewing");
    // cecil and bob hold 2 L&Y shares each; cecil moves it, bob is asked.
    w.send("cecil", "extend ly e5");
    let mails = w.send("cecil", "bid 1 e5");
    assert_eq!(mails.len(), 1);
    let mails = w.send("bob", "veto\nbid 2 d6");
    let v = w.json();
    assert_eq!(v["phase"], "veto_round");
    assert_eq!(v["awaiting"][0]["player"], "cecil", "cecil is asked again");
    let cecil = to(&mails, "cecil")[0];
    assert!(
        cecil.text.contains(
            "Your standing answer `bid 1 e5` was not applied: A bid of 1: you must at least equal bob's bid of 2"
        ) && cecil.text.contains("You are asked again."),
        "{}",
        cecil.text
    );
    assert!(cecil.text.contains("bid N HEX"), "{}", cecil.text);
    w.send("cecil", "bid 2 e5");
    assert_eq!(w.json()["phase"], "actions");
}

#[test]
fn a_bid_from_a_player_with_no_part_in_the_round_is_refused_at_once() {
    let mut w = World::new();
    cecil_moves_ly(&mut w);
    let before = w.json();
    let mails = w.send("alice", "bid 1 c3");
    assert_eq!(mails.len(), 1, "only alice hears of it");
    let text = &mails[0].text;
    assert!(
        text.contains("Nothing was applied. Order 1 of your mail was refused:")
            && text.contains(
                "You hold no real L&Y shares, so you have no part in a veto round on L&Y's move to C5"
            )
            && text.contains("(rulings 7)"),
        "{text}"
    );
    assert!(!text.contains("Held for later"), "{text}");
    assert_eq!(w.json(), before);
    assert!(
        w.daemon.store().meta(&w.id).unwrap().queued[0].is_empty(),
        "nothing held"
    );
    // Another player's action during the veto question: not their turn.
    let mails = w.send("alice", "token london steel");
    assert!(
        mails[0].text.contains("It is cecil's turn, not yours"),
        "{}",
        mails[0].text
    );
}

#[test]
fn a_failing_waiting_order_drops_itself_and_what_came_after_it_in_its_mail() {
    let mut w = World::new();
    w.send("bob", "token manchester textiles\nextend ly b4");
    // The move is cecil's first action; the station is his second, the
    // rest waits for his next turn.
    w.send(
        "cecil",
        "extend ly c5\nstation f8\nstation f8\ntoken manchester steel",
    );
    // A second mail: its own batch.
    let mails = w.send("cecil", "token london steel");
    assert_eq!(mails.len(), 1, "only the sender is answered: {mails:#?}");
    assert!(
        mails[0].text.contains("Held for later"),
        "{}",
        mails[0].text
    );

    let mails = w.send("bob", "no veto");
    assert!(
        to(&mails, "cecil")[0]
            .text
            .contains("Your waiting orders were applied: station F8."),
        "{}",
        to(&mails, "cecil")[0].text
    );
    assert_eq!(w.json()["turn"]["active_player"], "alice");
    w.send("alice", "token sheffield steel\ntoken sheffield leather");
    let mails = w.send("bob", "token oxford brewing\ntoken oxford brewing");
    let cecil = to(&mails, "cecil")[0];
    assert!(
        cecil
            .text
            .contains("Your waiting order `station f8` was not applied: F8 already has a station")
            && cecil.text.contains(
                "Dropped with it, as they came after it in the same mail: `token manchester steel`."
            ),
        "{}",
        cecil.text
    );
    assert!(
        cecil
            .text
            .contains("Your waiting orders were applied: token London steel."),
        "the other mail's order still applies: {}",
        cecil.text
    );
    let v = w.json();
    assert_eq!(v["turn"]["active_player"], "cecil");
    assert_eq!(v["turn"]["actions_left"], 1);
    assert_eq!(
        w.daemon.store().meta(&w.id).unwrap().queued[2],
        Default::default(),
        "nothing of cecil's waits any more"
    );
}

#[test]
fn mail_that_cannot_be_sent_stays_in_the_outbox_and_goes_later() {
    let mut w = World::new();
    w.outbox.fail_next_sends(3);
    let mails = w.send("bob", "token manchester textiles");
    assert!(mails.is_empty(), "nothing got through");
    assert_eq!(w.daemon.store().outbox_len(), 3);
    w.now += Duration::minutes(5);
    let mails = w.process();
    assert_eq!(mails.len(), 3, "sent on a later cycle");
    assert_eq!(w.daemon.store().outbox_len(), 0);
}

#[test]
fn a_stop_signal_ends_the_cycle_and_what_is_left_goes_on_the_next_run() {
    let mut w = World::new();
    let token = w.tokens[World::seat("bob")].clone();
    let subject = format!("Re: [{} {token}] Your turn", w.id);
    let raw = w.raw("bob@example.org", &subject, "", "token manchester textiles");
    w.inbox.push(raw);
    // Stopped before the first mail: nothing handled, nothing sent, the
    // mail stays in the inbox.
    let r = w.daemon.process(w.now, &AtomicBool::new(true)).unwrap();
    assert_eq!((r.fetched, r.applied, r.sent, r.scheduled), (1, 0, 0, 0));
    assert_eq!(w.log_len(), 0);
    assert!(w.outbox.take().is_empty());
    // The next run handles it and sends the reports.
    let mails = w.process();
    assert_eq!(w.log_len(), 1);
    assert_eq!(mails.len(), 3);
    assert_eq!(w.daemon.store().outbox_len(), 0);
}

/// Sends into a memory outbox, and raises `stop` once `armed` is set and
/// a mail has gone.
struct StopAfterASend {
    inner: MemoryOutbound,
    armed: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl Outbound for StopAfterASend {
    fn send(&mut self, mail: &OutMail) -> Result<(), TransportError> {
        self.inner.send(mail)?;
        if self.armed.load(Ordering::SeqCst) {
            self.stop.store(true, Ordering::SeqCst);
        }
        Ok(())
    }
}

#[test]
fn a_stop_signal_while_sending_leaves_the_rest_in_the_outbox() {
    let armed = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let (a, s) = (armed.clone(), stop.clone());
    let mut w = World::sending_by(move |inner| {
        Box::new(StopAfterASend {
            inner,
            armed: a,
            stop: s,
        })
    });
    armed.store(true, Ordering::SeqCst);
    let token = w.tokens[World::seat("bob")].clone();
    let subject = format!("Re: [{} {token}] Your turn", w.id);
    let raw = w.raw("bob@example.org", &subject, "", "token manchester textiles");
    w.inbox.push(raw);
    let r = w.daemon.process(w.now, &stop).unwrap();
    // The mail in hand is handled and done; one report went, two wait.
    assert_eq!((r.fetched, r.applied, r.sent), (1, 1, 1));
    assert_eq!(w.log_len(), 1);
    assert_eq!(w.inbox.done_handles().len(), 1);
    assert_eq!(w.outbox.take().len(), 1);
    assert_eq!(w.daemon.store().outbox_len(), 2);
    // The next run sends them, and applies nothing again.
    armed.store(false, Ordering::SeqCst);
    let mails = w.process();
    assert_eq!(mails.len(), 2);
    assert_eq!(w.log_len(), 1);
    assert_eq!(w.daemon.store().outbox_len(), 0);
}

/// A mail server that cannot be reached: counts the tries while `down`.
struct Unreachable {
    inner: MemoryOutbound,
    down: Arc<AtomicBool>,
    tries: Arc<std::sync::atomic::AtomicUsize>,
}

impl Outbound for Unreachable {
    fn send(&mut self, mail: &OutMail) -> Result<(), TransportError> {
        if self.down.load(Ordering::SeqCst) {
            self.tries.fetch_add(1, Ordering::SeqCst);
            return Err(TransportError::Connect {
                server: "127.0.0.1:2525".into(),
                message: "no answer within 30 s".into(),
            });
        }
        self.inner.send(mail)
    }
}

/// Once the mail server cannot be reached, the cycle's other mails wait in
/// the outbox untried: towards a server that takes the connection and
/// never answers, each try costs its timeout (30 s), so a cycle with N
/// mails waiting would take N times that.
#[test]
fn an_unreachable_mail_server_is_tried_once_a_cycle_and_the_rest_waits() {
    let down = Arc::new(AtomicBool::new(false));
    let tries = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (d, t) = (down.clone(), tries.clone());
    let mut w = World::sending_by(move |inner| {
        Box::new(Unreachable {
            inner,
            down: d,
            tries: t,
        })
    });
    down.store(true, Ordering::SeqCst);
    let token = w.tokens[World::seat("bob")].clone();
    let subject = format!("Re: [{} {token}] Your turn", w.id);
    let raw = w.raw("bob@example.org", &subject, "", "token manchester textiles");
    w.inbox.push(raw);
    let r = w.daemon.process(w.now, &AtomicBool::new(false)).unwrap();
    assert_eq!((r.applied, r.sent, r.failed), (1, 0, 1));
    assert_eq!(tries.load(Ordering::SeqCst), 1, "one try a cycle");
    assert_eq!(w.daemon.store().outbox_len(), 3, "the three reports wait");
    // The next cycle tries once more, the mail not yet due to be retried
    // left alone.
    let r = w.daemon.process(w.now, &AtomicBool::new(false)).unwrap();
    assert_eq!((r.sent, r.failed), (0, 1));
    assert_eq!(tries.load(Ordering::SeqCst), 2);
    // The server back, every report goes, once.
    down.store(false, Ordering::SeqCst);
    w.now += Duration::minutes(5);
    let mails = w.process();
    assert_eq!(mails.len(), 3);
    assert_eq!(w.daemon.store().outbox_len(), 0);
    assert_eq!(w.log_len(), 1);
}

/// A mail server that refuses what worked before (the mailbox deleted, a
/// password changed) while `run` runs: logged, tried again each cycle, and
/// the mail that comes once it is put right is handled. The same refusal
/// at the first cycle is a mistake in the config, and ends `run`.
#[test]
fn run_outlives_a_refusal_after_it_worked_but_not_one_at_its_start() {
    let mut c = config();
    c.daemon.poll_seconds = 0;
    let mut w = World::configured(c);
    let token = w.tokens[World::seat("bob")].clone();
    let subject = format!("Re: [{} {token}] Your turn", w.id);
    let order = w.raw("bob@example.org", &subject, "", "token manchester textiles");
    let stop = AtomicBool::new(false);
    let cycles = std::sync::atomic::AtomicUsize::new(0);
    let (inbox, now) = (w.inbox.clone(), w.now);
    let clock = || {
        match cycles.fetch_add(1, Ordering::SeqCst) + 1 {
            2 => inbox.refuse_next_fetches(2),
            4 => {
                inbox.push(order.clone());
            }
            5 => stop.store(true, Ordering::SeqCst),
            _ => {}
        }
        now
    };
    let ran = w.daemon.run_with(&stop, &clock, &mut |_| {});
    assert!(ran.is_ok(), "{ran:?}");
    assert!(cycles.load(Ordering::SeqCst) >= 5);
    assert_eq!(w.log_len(), 1, "the order that came after was applied");
    // At the start, the refusal ends `run` with it.
    let w = World::new();
    w.inbox.refuse_next_fetches(1);
    let mut daemon = w.daemon;
    let ran = daemon.run_with(&AtomicBool::new(false), &|| w.now, &mut |_| {});
    let e = ran.expect_err("a refusal at the start ends run");
    assert!(e.to_string().contains("Mailbox doesn't exist"), "{e}");
}

#[test]
fn html_only_mail_and_quoted_replies_are_read() {
    let mut w = World::new();
    let token = w.tokens[1].clone();
    w.n += 1;
    let raw = format!(
        "From: Bob <bob@example.org>\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] x\r\nMessage-ID: <h{}@example.org>\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<div>token manchester textiles</div><div>extend ly b4<br></div><blockquote>&gt; old stuff</blockquote>\r\n",
        w.n
    );
    w.inbox.push(raw);
    w.process();
    assert_eq!(w.log_len(), 2);
    let mails = w.send(
        "cecil",
        "extend ly c5\n\nOn Sat, 21 Nov 2026, Stationmaster wrote:\n> extend gwr c14\n> Turn 2",
    );
    assert!(to(&mails, "cecil")[0].text.contains("> extend L&Y C5"));
    assert_eq!(w.log_len(), 3);
}

#[test]
fn a_mail_without_a_message_id_is_known_by_the_sha256_of_its_bytes() {
    use sha2::{Digest, Sha256};
    let mut w = World::new();
    let token = w.tokens[1].clone();
    let raw = format!(
        "From: bob@example.org\r\nTo: sm@example.org\r\nSubject: Re: [rocket-1 {token}] x\r\n\r\ntoken manchester textiles\r\n"
    );
    w.inbox.push(raw.clone());
    assert_eq!(w.process().len(), 3);
    let hex: String = Sha256::digest(raw.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let id = format!("no-message-id.{hex}@stationmaster");
    assert!(w.daemon.store().receipt(&id).unwrap().is_some());
    // Fetched again (a crash before it was marked done): nothing twice.
    w.inbox.push(raw);
    assert!(w.process().is_empty());
    assert_eq!(w.log_len(), 1);
}

#[test]
fn a_receipt_that_cannot_be_read_stops_the_mail_rather_than_applying_it_again() {
    let dir = TempDir::new().unwrap();
    let db = dir.path().join("db");
    {
        let raw = stationmaster::store::open_raw(&db).unwrap();
        raw.open_tree("receipts")
            .unwrap()
            .insert("seen@example.org", &b"{not json"[..])
            .unwrap();
        raw.flush().unwrap();
    }
    let store = Store::open(&db).unwrap();
    let err = store.receipt("seen@example.org").unwrap_err();
    assert!(
        err.to_string()
            .contains("the receipt of mail <seen@example.org>"),
        "{err}"
    );
    assert!(store.receipt("other@example.org").unwrap().is_none());
}

#[test]
fn issue_11_greetings_and_sign_offs_are_shown_not_refused() {
    let mut w = World::new();
    let mails = w.send(
        "bob",
        "Hi all,\n\ntoken manchester textiles\nextend gwr c14\n\nThanks,\nBob\n",
    );
    let reply = mails.iter().find(|m| m.to == "bob@example.org").unwrap();
    let text = &reply.text.replace("\r\n", "\n");
    assert!(text.contains("Applied."), "{text}");
    assert!(
        text.contains(
            "Not read as orders (no order or command begins so):\n  Hi all,\n  Thanks,\n  Bob\n"
        ),
        "{text}"
    );
    assert!(reply.html.contains("Not read as orders"), "{}", reply.html);
}

#[test]
fn issue_11_a_mistyped_order_still_refuses_the_mail() {
    let mut w = World::new();
    let before = w.json();
    let mails = w.send("bob", "token manchester textiles\nextnd gwr c14\nCheers\n");
    assert_eq!(w.json(), before);
    let text = &mails[0].text;
    assert!(text.contains("Nothing was applied."), "{text}");
    assert!(text.contains("extnd gwr c14"), "{text}");
    assert!(text.contains("did you mean `extend`?"), "{text}");
    assert!(text.contains("Not read as orders"), "{text}");
}

#[test]
fn a_mail_the_transport_cannot_read_goes_to_quarantine_after_three_tries_and_blocks_nobody() {
    let mut w = World::new();
    let poison = w
        .inbox
        .push_unreadable("var/inbox/new/x: Too many levels of symbolic links");
    for round in 1..=3 {
        assert_eq!(w.inbox.quarantine_handles().len(), 0, "round {round}");
        // Every other mail goes on meanwhile.
        let order = if round == 1 {
            "token manchester textiles"
        } else {
            "map"
        };
        let mails = w.send("bob", order);
        assert!(!mails.is_empty(), "round {round}: bob got no answer");
    }
    assert_eq!(w.inbox.quarantine_handles(), vec![poison.clone()]);
    assert!(w.inbox.waiting().iter().all(|m| m.handle != poison));
    let mut inbound = w.inbox.clone();
    let list = daemon::quarantine::list(w.daemon.store(), &mut inbound).unwrap();
    assert!(
        list.contains("after 3 tries") && list.contains("symbolic links"),
        "{list}"
    );
    let back = daemon::quarantine::retry(w.daemon.store(), &mut inbound, &[]).unwrap();
    assert!(back.starts_with("1 mail(s) back"), "{back}");
    assert!(w.inbox.waiting().iter().any(|m| m.handle == poison));
    assert!(w.inbox.quarantine_handles().is_empty());
}

#[test]
fn a_mail_whose_game_data_cannot_be_read_goes_to_quarantine_and_other_games_go_on() {
    let dir = TempDir::new().unwrap();
    let db = dir.path().join("db");
    let setup = |names: [&str; 2]| Setup {
        kind: "rocket".into(),
        players: names
            .iter()
            .map(|n| PlayerSetup {
                name: n.to_string(),
                email: format!("{n}@example.org"),
            })
            .collect(),
        options: vec![],
        seed: 7,
    };
    let now = DateTime::parse_from_rfc3339("2026-11-21T18:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let make = |inbox: &MemoryInbound, outbox: &MemoryOutbound| {
        Daemon::new(
            Store::open(&db).unwrap(),
            config(),
            Templates::load(None).unwrap(),
            BoardSource::embedded(),
            Box::new(inbox.clone()),
            Box::new(outbox.clone()),
        )
    };
    let (inbox, outbox) = (MemoryInbound::new(), MemoryOutbound::new());
    let keys = {
        let d = make(&inbox, &outbox);
        let a = daemon::create_game(
            &d.ctx(),
            &setup(["ann", "ben"]),
            Default::default(),
            vec![],
            now,
        )
        .unwrap();
        let b = daemon::create_game(
            &d.ctx(),
            &setup(["cat", "dan"]),
            Default::default(),
            vec![],
            now,
        )
        .unwrap();
        (
            d.store().meta(&a).unwrap().tokens,
            d.store().meta(&b).unwrap().tokens,
        )
    };
    {
        // rocket-1's bookkeeping is damaged on disk.
        let raw = stationmaster::store::open_raw(&db).unwrap();
        raw.open_tree("meta")
            .unwrap()
            .insert("game:rocket-1", &b"{damaged"[..])
            .unwrap();
        raw.flush().unwrap();
    }
    let mut d = make(&inbox, &outbox);
    let mail = |n: usize, who: &str, game: &str, key: &str| {
        format!(
            "From: {who}@example.org\r\nTo: sm@example.org\r\nSubject: Re: [{game} {key}] x\r\nMessage-ID: <q{n}@example.org>\r\n\r\nmap\r\n"
        )
    };
    let stuck = inbox.push(mail(0, "ann", "rocket-1", &keys.0[0]));
    for round in 1..=3 {
        inbox.push(mail(round, "cat", "rocket-2", &keys.1[0]));
        let r = d.process(now, &AtomicBool::new(false)).unwrap();
        let answered = outbox.take();
        assert!(
            answered.iter().any(|m| m.to == ["cat@example.org"]),
            "round {round}: rocket-2 was held up"
        );
        assert_eq!(r.quarantined, usize::from(round == 3), "round {round}");
    }
    assert_eq!(inbox.quarantine_handles(), vec![stuck]);
    let mut inbound = inbox.clone();
    let list = daemon::quarantine::list(d.store(), &mut inbound).unwrap();
    assert!(
        list.contains("stored data of game rocket-1 cannot be read"),
        "{list}"
    );
    assert!(list.contains("from:    ann@example.org"), "{list}");
}

// ------------------------------------------------- issue 11: threads, parts

/// A mail as a mail program threads it: its ids, subject and parts.
#[derive(Clone, Debug)]
struct Threaded {
    to: String,
    subject: String,
    message_id: String,
    in_reply_to: Option<String>,
    references: Vec<String>,
    text: String,
    /// The content types of its leaf parts, e.g. `text/plain`, but for
    /// the files attached to it.
    parts: Vec<String>,
    /// The names of the files attached to it (issue 38: the archive).
    attached: Vec<String>,
    html: String,
}

fn threaded(mail: &OutMail) -> Threaded {
    use mail_parser::MimeHeaders;
    let m = MessageParser::default()
        .parse(&mail.bytes)
        .expect("our mail parses");
    let file =
        |p: &&mail_parser::MessagePart| p.content_disposition().is_some_and(|d| d.is_attachment());
    let attached = m
        .parts
        .iter()
        .filter(file)
        .map(|p| p.attachment_name().unwrap_or_default().to_string())
        .collect();
    let parts = m
        .parts
        .iter()
        .filter(|p| !file(p))
        .filter_map(|p| p.content_type())
        .filter(|c| !c.ctype().eq_ignore_ascii_case("multipart"))
        .map(|c| format!("{}/{}", c.ctype(), c.subtype().unwrap_or_default()).to_lowercase())
        .collect();
    // (mail-parser makes HTML of a text-only mail: read the real part.)
    let html = m
        .parts
        .iter()
        .find(|p| {
            p.content_type()
                .is_some_and(|c| c.subtype().is_some_and(|s| s.eq_ignore_ascii_case("html")))
        })
        .and_then(|p| p.text_contents())
        .unwrap_or_default()
        .to_string();
    Threaded {
        to: mail.to.join(","),
        subject: m.subject().unwrap_or_default().to_string(),
        message_id: m.message_id().unwrap_or_default().to_string(),
        in_reply_to: m.in_reply_to().as_text().map(str::to_string),
        references: m
            .references()
            .as_text_list()
            .map(|l| l.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default(),
        text: crate::flowed::text_part(&m).unwrap_or_default(),
        parts,
        attached,
        html,
    }
}

impl World {
    /// One cycle at the world's time; every mail sent, for threading.
    fn cycle(&mut self) -> Vec<Threaded> {
        self.daemon
            .process(self.now, &AtomicBool::new(false))
            .unwrap();
        self.outbox.take().iter().map(threaded).collect()
    }

    /// A reply from `player`, as a mail program makes it of `parent`: its
    /// subject with another `Re: ` in front, In-Reply-To the parent, and
    /// References the parent's and the parent.
    fn reply_to(&mut self, player: &str, parent: &Threaded, body: &str) -> String {
        let mut refs: Vec<String> = parent.references.iter().map(|r| format!("<{r}>")).collect();
        refs.push(format!("<{}>", parent.message_id));
        let headers = format!(
            "In-Reply-To: <{}>\r\nReferences: {}\r\n",
            parent.message_id,
            refs.join(" ")
        );
        let subject = format!("Re: {}", parent.subject);
        let raw = self.raw(&format!("{player}@example.org"), &subject, &headers, body);
        let mid = format!("t{}@example.org", self.n);
        self.inbox.push(raw);
        mid
    }
}

fn one_to<'a>(mails: &'a [Threaded], who: &str) -> &'a Threaded {
    let to: Vec<&Threaded> = mails
        .iter()
        .filter(|m| m.to == format!("{who}@example.org"))
        .collect();
    assert_eq!(to.len(), 1, "{who}: {mails:#?}");
    to[0]
}

#[test]
fn issue_11_each_players_mail_is_one_thread_under_their_welcome() {
    let mut w = World::new();
    let welcomes: Vec<Threaded> = w.welcomes.iter().map(threaded).collect();
    let meta = w.daemon.store().meta(&w.id).unwrap();
    let tokens = w.tokens.clone();
    let subject = move |seat: usize| format!("[rocket-1 {}] Stephenson's Rocket", tokens[seat]);
    for (i, m) in welcomes.iter().enumerate() {
        // The welcome is the root: no parent, its id kept for the seat.
        assert_eq!(m.subject, subject(i));
        assert_eq!(m.in_reply_to, None);
        assert!(m.references.is_empty(), "{:?}", m.references);
        assert_eq!(meta.welcome_ids[i], m.message_id);
    }
    let root = |seat: usize| welcomes[seat].message_id.clone();
    let bob = World::seat("bob");
    let alice = World::seat("alice");

    // bob answers his welcome with orders: his answer replies to his mail
    // under his welcome; the others' reports join their own threads.
    let mid = w.reply_to(
        "bob",
        &welcomes[bob],
        "token manchester textiles\nextend ly b4",
    );
    let mails = w.cycle();
    let answer = one_to(&mails, "bob");
    assert_eq!(answer.subject, format!("Re: {}", subject(bob)));
    assert_eq!(answer.in_reply_to.as_deref(), Some(mid.as_str()));
    assert_eq!(answer.references.first(), Some(&root(bob)));
    assert_eq!(answer.references.last(), Some(&mid));
    for p in ["alice", "cecil"] {
        let m = one_to(&mails, p);
        let seat = World::seat(p);
        assert_eq!(m.subject, subject(seat), "{p}: a report is no reply");
        assert_eq!(m.in_reply_to, None);
        assert_eq!(m.references, vec![root(seat)], "{p}");
        assert!(
            m.text.starts_with("rocket-1: Waiting for cecil"),
            "the headline opens the text: {}",
            m.text
        );
    }

    // Round after round of replies to replies (`map`, `help`, `history`):
    // the subject keeps one `Re:`, the root stays first, the answered
    // mail last, and References does not grow without end.
    let mut parent = answer.clone();
    for (round, body) in ["map", "help", "history", "map", "map", "map", "map", "map"]
        .iter()
        .enumerate()
    {
        let mid = w.reply_to("bob", &parent, body);
        let mails = w.cycle();
        let m = one_to(&mails, "bob");
        assert_eq!(m.subject, format!("Re: {}", subject(bob)), "round {round}");
        assert!(!m.subject.contains("Re: Re:"), "{}", m.subject);
        assert_eq!(m.in_reply_to.as_deref(), Some(mid.as_str()));
        assert_eq!(m.references.first(), Some(&root(bob)));
        assert_eq!(m.references.last(), Some(&mid));
        assert!(m.references.len() <= 8, "{:?}", m.references);
        parent = m.clone();
    }
    // The subject the player's program sent had piled up prefixes.
    assert!(parent.subject.starts_with("Re: [rocket-1"));

    // The clock: a reminder, then the late notice, in the same threads.
    w.now += Duration::hours(25);
    let mails = w.cycle();
    let reminder = one_to(&mails, "cecil");
    assert!(
        reminder.text.contains("Reminder: your deadline is"),
        "{}",
        reminder.text
    );
    assert_eq!(reminder.subject, subject(World::seat("cecil")));
    assert_eq!(reminder.references, vec![root(World::seat("cecil"))]);
    assert_eq!(reminder.in_reply_to, None);
    w.now += Duration::hours(24);
    let mails = w.cycle();
    let late = mails
        .iter()
        .find(|m| m.to == "cecil@example.org" && m.text.contains("passed at"))
        .unwrap_or_else(|| panic!("no late notice: {mails:#?}"));
    assert_eq!(late.subject, subject(World::seat("cecil")));
    assert_eq!(late.references, vec![root(World::seat("cecil"))]);
    let other = one_to(&mails, "alice");
    assert_eq!(other.references, vec![root(alice)]);
}

#[test]
fn issue_11_every_kind_of_mail_has_a_text_and_an_html_part() {
    let mut w = World::moderated_by(&["mod@example.org"]);
    let mut all: Vec<(&str, Threaded)> = w
        .welcomes
        .iter()
        .map(|m| ("welcome", threaded(m)))
        .collect();
    let mod_welcome = all
        .iter()
        .find(|(_, m)| m.to == "mod@example.org")
        .map(|(_, m)| m.clone())
        .expect("the moderator's welcome");
    let mod_key = w.daemon.store().meta(&w.id).unwrap().moderator_tokens["mod@example.org"].clone();
    let cecil_root = all
        .iter()
        .find(|(_, m)| m.to == "cecil@example.org")
        .map(|(_, m)| m.message_id.clone())
        .unwrap();
    let mut step = |what: &'static str, mails: Vec<Threaded>| {
        assert!(!mails.is_empty(), "{what}: no mail");
        all.extend(mails.into_iter().map(|m| (what, m)));
    };
    let token = w.tokens[World::seat("bob")].clone();
    // A refused order, orders, `help`.
    let m =
        w.cycle_after(|w| w.send_raw("bob", &token, "token manchester textiles\nextend gwr c13"));
    step("refused", m);
    let m = w.cycle_after(|w| w.send_raw("bob", &token, "token manchester textiles\nextend ly b4"));
    step("orders", m);
    let alice_token = w.tokens[World::seat("alice")].clone();
    let m = w.cycle_after(|w| w.send_raw("alice", &alice_token, "help"));
    step("help command", m);
    // An intruder with bob's key; mail from a stranger (the short help).
    let m = w.cycle_after(|w| {
        let raw = w.raw(
            "mallory@example.org",
            &format!("Re: [rocket-1 {token}] x"),
            "",
            "extend lnwr d11",
        );
        w.inbox.push(raw);
    });
    step("intruder alert", m);
    let m = w.cycle_after(|w| {
        let raw = w.raw("stranger@example.org", "Re: Re: hello", "", "what is this?");
        w.inbox.push(raw);
    });
    assert!(
        m[0].subject.starts_with("[code ") && m[0].subject.ends_with("] Re: hello"),
        "one Re: on the short help, and the code of a first mail: {}",
        m[0].subject
    );
    step("short help", m);
    // The clock: a reminder, a late notice.
    w.now += Duration::hours(25);
    let m = w.cycle();
    step("reminder", m);
    w.now += Duration::hours(24);
    let m = w.cycle();
    step("late notice", m);
    // The moderator: a note, then abort (the game is over).
    let mut n = 0;
    let mut moderate = |w: &mut World, body: &str| {
        n += 1;
        let mid = w.reply_to("mod", &mod_welcome, body);
        let _ = n;
        let mails = w.cycle();
        let reply = mails
            .iter()
            .find(|m| m.to == "mod@example.org" && m.in_reply_to.as_deref() == Some(mid.as_str()))
            .unwrap_or_else(|| panic!("no answer to {body}: {mails:#?}"));
        // The moderator's thread: their welcome first, their mail last.
        assert_eq!(
            reply.subject,
            format!("Re: [rocket-1 {mod_key}] You moderate rocket-1")
        );
        assert_eq!(reply.references.first(), Some(&mod_welcome.message_id));
        assert_eq!(reply.references.last(), Some(&mid));
        mails
    };
    let m = moderate(&mut w, "note tea at five");
    step("moderator note", m);
    let m = moderate(&mut w, "replace cecil carol@example.org");
    let old = one_to(&m, "cecil");
    assert!(
        old.text.contains("Your seat has a new player"),
        "{}",
        old.text
    );
    // The leaving player's last mail closes their own thread.
    assert_eq!(old.references, vec![cecil_root.clone()]);
    step("replace", m);
    let m = moderate(&mut w, "abort");
    for who in ["alice", "bob", "mod"] {
        assert!(
            m.iter()
                .any(|x| x.to == format!("{who}@example.org") && x.text.contains("The game")),
            "{who} hears that the game is over"
        );
    }
    let over: Vec<&Threaded> = m.iter().filter(|m| m.text.contains("The game")).collect();
    assert!(!over.is_empty());
    step("abort", m);
    let kinds: std::collections::BTreeSet<&str> = all.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds.len(), 11, "{kinds:?}");
    for (what, m) in &all {
        // A report may carry the board's picture beside its HTML (issue 14).
        let (pictures, parts): (Vec<String>, Vec<String>) =
            m.parts.iter().cloned().partition(|p| p == "image/png");
        assert!(pictures.len() <= 1, "{what}: {:?}", m.parts);
        assert_eq!(
            parts,
            vec!["text/plain".to_string(), "text/html".to_string()],
            "{what} to {}: {}",
            m.to,
            m.subject
        );
        assert!(
            m.html.contains("<html>") && m.html.contains("</html>"),
            "{what}"
        );
        // A player's last mail carries the game's archive (issue 38,
        // point 7); no other mail carries a file.
        let last = *what == "abort" && !m.to.starts_with("mod");
        let archive: &[&str] = if last { &["rocket-1.html"] } else { &[] };
        assert_eq!(m.attached, archive, "{what} to {}", m.to);
        assert!(!m.text.is_empty(), "{what}");
        // Every mail to a player or moderator about the game is in their
        // thread (the short help and the alert stand apart; a welcome is a
        // thread's root).
        let root = m.text.starts_with("Welcome to") || m.text.starts_with("You moderate");
        // A moderator's welcome opens with one paragraph, as a mail
        // program that reads flowed text joins it to its width, not lines
        // broken where the server's source broke them.
        if m.text.starts_with("You moderate") {
            let first = m.text.lines().next().unwrap_or_default();
            assert!(first.ends_with("`preview` may come with it."), "{}", m.text);
        }
        if !root && !matches!(*what, "short help" | "intruder alert") {
            assert!(
                !m.references.is_empty(),
                "{what} to {}: {}",
                m.to,
                m.subject
            );
        }
    }
    // Text in the HTML part is escaped.
    let alert = all.iter().find(|(k, _)| *k == "intruder alert").unwrap();
    assert!(
        alert.1.html.contains("mallory@example.org"),
        "{}",
        alert.1.html
    );
    assert!(!alert.1.html.contains("<mallory"), "{}", alert.1.html);
}

impl World {
    fn send_raw(&mut self, player: &str, token: &str, body: &str) {
        let subject = format!("Re: [{} {token}] Your turn", self.id);
        let raw = self.raw(&format!("{player}@example.org"), &subject, "", body);
        self.inbox.push(raw);
    }

    fn cycle_after(&mut self, f: impl FnOnce(&mut World)) -> Vec<Threaded> {
        f(self);
        self.cycle()
    }
}

#[test]
fn issue_11_the_game_over_mail_asks_for_nothing_and_reaches_the_moderators() {
    let mut w = World::moderated_by(&["mod@example.org"]);
    // Play to the end from the command line (every player's orders).
    let mut rng = stationmaster::engine::rng::SplitMix64::new(3);
    let mut last: Vec<Threaded> = Vec::new();
    for _ in 0..5000 {
        let loaded = w.daemon.store().load(&w.id).unwrap();
        let stationmaster::engine::Status::Active(a) = loaded.game.status() else {
            break;
        };
        let seat = a[0].seat;
        let legal = loaded.game.legal_order_lines(seat);
        let extends: Vec<&String> = legal.iter().filter(|l| l.starts_with("extend")).collect();
        let line = if !extends.is_empty() {
            extends[rng.below(extends.len())].clone()
        } else {
            legal[rng.below(legal.len())].clone()
        };
        daemon::apply_local(&w.daemon.ctx(), &w.id, seat, &[line], w.now).unwrap();
        last = w.cycle();
    }
    let welcomes: Vec<Threaded> = w.welcomes.iter().map(threaded).collect();
    for p in PLAYERS {
        let m = one_to(&last, p);
        assert!(m.text.contains("The game is over"), "{p}: {}", m.text);
        assert!(
            m.text.contains("Final scores"),
            "{p}: the final table: {}",
            m.text
        );
        // Issue 38, point 7: where the archive is, as a player can reach
        // it: attached, not a path on the server.
        assert!(
            m.text.contains("attached to this mail as rocket-1.html"),
            "where the archive is: {}",
            m.text
        );
        assert!(!m.text.contains("var/archive"), "{}", m.text);
        assert_eq!(m.attached, ["rocket-1.html"]);
        for asks in [
            "You can:",
            "Reply to this mail with your orders",
            "Deadlines:",
        ] {
            assert!(
                !m.text.contains(asks),
                "{p}'s game-over mail asks: {asks}\n{}",
                m.text
            );
            assert!(!m.html.contains(asks), "{p}'s game-over HTML asks: {asks}");
        }
        assert!(m.html.contains("The game is over"), "{}", m.html);
        let root = &welcomes
            .iter()
            .find(|w| w.to == format!("{p}@example.org"))
            .unwrap()
            .message_id;
        assert_eq!(m.references.first(), Some(root));
    }
    let moderator = one_to(&last, "mod");
    assert!(
        moderator.text.starts_with("The game is over."),
        "{}",
        moderator.text
    );
    assert!(
        moderator.text.contains("Final scores"),
        "{}",
        moderator.text
    );
    // The archive as a moderator who is no operator reaches it (a player
    // who made the game by mail): attached as the players' is; and where
    // the server keeps it, for one who is.
    assert!(
        moderator
            .text
            .contains("the file rocket-1.html attached to this mail"),
        "{}",
        moderator.text
    );
    assert_eq!(moderator.attached, ["rocket-1.html"]);
    assert!(
        moderator.text.contains("var/archive/rocket-1"),
        "{}",
        moderator.text
    );
    assert!(!moderator.text.contains("You can:"));
    // Issue 38: with the board's picture, as the players' last mails.
    assert_eq!(
        moderator.parts,
        vec!["text/plain", "text/html", "image/png"]
    );
    let mod_root = &welcomes
        .iter()
        .find(|w| w.to == "mod@example.org")
        .unwrap()
        .message_id;
    assert_eq!(moderator.references, vec![mod_root.clone()]);
}

/// Issue 38, point 3, for the orders that wait behind a veto question: the
/// mover's next action is logged under the mover's own mail, whether
/// another player's mail or the clock (a missed deadline) brings its
/// moment, and never under the one that released it.
#[test]
fn a_waiting_order_is_logged_under_its_own_mail_whatever_releases_it() {
    use stationmaster::engine::Actor;
    let mut w = World::new();
    w.send("bob", "token manchester textiles\nextend ly b4");
    w.send("cecil", "extend ly c5\nstation f8");
    let cecils_mail = Actor::Mail(format!("t{}@example.org", w.n));
    w.send("bob", "no veto");
    let log = w.daemon.store().log(&w.id).unwrap();
    let station = log.iter().find(|e| e.order == "station F8").unwrap();
    assert_eq!(station.source.as_ref(), Some(&cecils_mail), "{log:#?}");

    // The same, released by the clock: bob misses his veto question.
    let mut w = World::new();
    w.send("bob", "token manchester textiles\nextend ly b4");
    w.send("cecil", "extend ly c5\nstation f8");
    let cecils_mail = Actor::Mail(format!("t{}@example.org", w.n));
    w.now += Duration::hours(13);
    w.process();
    let log = w.daemon.store().log(&w.id).unwrap();
    let no_veto = log.iter().find(|e| e.order == "no veto").unwrap();
    assert_eq!(no_veto.source, Some(Actor::Deadline), "{log:#?}");
    let station = log.iter().find(|e| e.order == "station F8").unwrap();
    assert_eq!(station.source.as_ref(), Some(&cecils_mail), "{log:#?}");
}

/// Issue 38, deliver 5: `takeback` undoes the sender's last mail's orders
/// while nobody else has acted since and they showed nothing secret
/// (rulings 13: a payment's amount is private); everyone is told in one
/// line, the log keeps the orders and the takeback; a mail may take back
/// and give the orders meant instead; refused with the reason otherwise,
/// and then nothing of the mail applies.
#[test]
fn takeback_undoes_the_last_mail_while_nobody_else_has_acted() {
    use crate::common::flat;
    let mut w = World::new();
    let start = w.json();
    w.send("bob", "token manchester steel");
    let mails = w.send("bob", "takeback");
    assert_eq!(w.json(), start, "the game stands as before the mail");
    for p in PLAYERS {
        let text = flat(&to(&mails, p)[0].text);
        assert!(
            text.contains("bob took back their last orders (token Manchester steel)"),
            "{p}: {text}"
        );
    }
    let log = w.daemon.store().log(&w.id).unwrap();
    let orders: Vec<&str> = log.iter().map(|e| e.order.as_str()).collect();
    assert_eq!(
        orders,
        [
            "token Manchester steel",
            "takeback (token Manchester steel)"
        ]
    );

    // Taken back, and the orders meant instead, in one mail.
    w.send("bob", "token manchester steel");
    w.send("bob", "takeback\ntoken manchester textiles\nextend ly b4");
    let v = w.json();
    assert_eq!(v["turn"]["active_player"], "cecil", "{v}");
    let tokens = &v["players"][1]["tokens"];
    assert_eq!(
        (&tokens["textiles"], &tokens["steel"]),
        (&1.into(), &0.into()),
        "{v}"
    );

    // The extension paid bob for Manchester: private money is not taken
    // back, and the mail's other orders wait with it.
    let before = w.json();
    let mails = w.send("bob", "takeback");
    let text = flat(&to(&mails, "bob")[0].text);
    assert!(
        text.contains(
            "`takeback` was not done: your orders showed a payment in private money, \
             and what was seen cannot be unseen."
        ),
        "{text}"
    );
    assert_eq!(w.json(), before);
    assert_eq!(to(&mails, "cecil").len(), 0, "nobody else hears of it");

    // Once someone else has acted, nothing of the mail applies.
    w.send("cecil", "token london steel");
    let before = w.json();
    let mails = w.send("bob", "takeback\ntoken london textiles");
    let text = flat(&to(&mails, "bob")[0].text);
    assert!(
        text.contains(
            "`takeback` was not done: cecil has acted since. Nothing else in your mail was applied either."
        ),
        "{text}"
    );
    assert_eq!(w.json(), before);
    let verified = stationmaster::local::verify(w.daemon.store(), &w.id).unwrap();
    assert!(verified.contains("intact"), "{verified}");
}
