//! The server players run themselves, by mail alone, through the real
//! binary on the embedded default: mails written into the Maildir
//! `var/inbox/new` as mail programs deliver them, one `process` cycle, and
//! the `.eml` files it leaves in `var/outbox` read back with mail_parser.
//! Covered: games made with `new` (options and deadline settings),
//! `invite`, `join`, `leave`, `start`, the `[site]` policy (who may make
//! games, how many forming games per address), the expiry of a game
//! nobody starts, `no more invitations`, and that no stranger can make
//! the server mail a third party twice unasked: an address not proved
//! gets one mail, ever, until it replies with the code of that mail.

use assert_cmd::Command;
use chrono::{DateTime, Duration, Utc};
use mail_parser::MessageParser;
use tempfile::TempDir;

/// A mail the server sent.
#[derive(Clone, Debug)]
pub struct Got {
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    pub message_id: String,
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
    pub reply_to: String,
}

impl Got {
    /// The key in the subject tag `[GAME KEY]`.
    pub fn key(&self) -> String {
        let start = self.subject.find('[').expect("a tag") + 1;
        let end = self.subject[start..].find(']').expect("a tag") + start;
        let tag = &self.subject[start..end];
        tag.split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_string()
    }
}

/// A server on the embedded default in a folder of its own.
pub struct Server {
    pub dir: TempDir,
    pub now: DateTime<Utc>,
    n: usize,
}

fn parse(bytes: &[u8]) -> Got {
    let m = MessageParser::default()
        .parse(bytes)
        .expect("our mail parses");
    let ids = |v: &mail_parser::HeaderValue<'_>| -> Vec<String> {
        match v {
            mail_parser::HeaderValue::Text(t) => vec![t.to_string()],
            mail_parser::HeaderValue::TextList(l) => l.iter().map(|t| t.to_string()).collect(),
            _ => Vec::new(),
        }
    };
    Got {
        to: m
            .to()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .unwrap_or_default()
            .to_string(),
        subject: m.subject().unwrap_or_default().to_string(),
        text: crate::flowed::text_part(&m).unwrap_or_default(),
        html: m.body_html(0).map(|t| t.into_owned()).unwrap_or_default(),
        message_id: m.message_id().unwrap_or_default().to_string(),
        in_reply_to: m.in_reply_to().as_text().map(str::to_string),
        references: ids(m.references()),
        reply_to: m
            .reply_to()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .unwrap_or_default()
            .to_string(),
    }
}

impl Server {
    /// A server at `sm@example.org` with these extra lines of config.
    pub fn new(config: &str) -> Server {
        let dir = TempDir::new().unwrap();
        std::fs::write(
            dir.path().join("config.toml"),
            format!("[mail]\naddress = \"sm@example.org\"\n{config}\n"),
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("var/inbox/new")).unwrap();
        Server {
            dir,
            now: DateTime::parse_from_rfc3339("2026-11-21T18:00:00Z")
                .unwrap()
                .with_timezone(&Utc),
            n: 0,
        }
    }

    pub fn sm(&self, args: &[&str]) -> std::process::Output {
        Command::cargo_bin("stationmaster")
            .unwrap()
            .current_dir(self.dir.path())
            .env("STATIONMASTER_CONFIG", "config.toml")
            .env("STATIONMASTER_NOW", self.now.to_rfc3339())
            .args(args)
            .output()
            .unwrap()
    }

    pub fn ok(&self, args: &[&str]) -> String {
        crate::common::succeeded(args, self.sm(args))
    }

    /// Delivers a mail into the Maildir; its Message-ID.
    pub fn deliver(
        &mut self,
        from: &str,
        subject: &str,
        parent: Option<&Got>,
        body: &str,
    ) -> String {
        self.n += 1;
        let mid = format!("m{}.{}@example.net", self.n, self.now.timestamp());
        let mut threading = String::new();
        if let Some(p) = parent {
            let mut refs = p.references.clone();
            refs.push(p.message_id.clone());
            let refs: Vec<String> = refs.iter().map(|r| format!("<{r}>")).collect();
            threading = format!(
                "In-Reply-To: <{}>\r\nReferences: {}\r\n",
                p.message_id,
                refs.join(" ")
            );
        }
        let to = parent.map_or("sm@example.org".to_string(), |p| {
            if p.reply_to.is_empty() {
                "sm@example.org".to_string()
            } else {
                p.reply_to.clone()
            }
        });
        let raw = format!(
            "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{mid}>\r\nDate: Sat, 21 Nov 2026 18:00:00 +0000\r\n{threading}Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
        );
        std::fs::write(
            self.dir.path().join(format!(
                "var/inbox/new/{}.{}.mail",
                self.now.timestamp(),
                self.n
            )),
            raw,
        )
        .unwrap();
        mid
    }

    /// A reply to `parent` (the mail's subject with `Re: `, to its
    /// Reply-To, threaded).
    pub fn reply(&mut self, from: &str, parent: &Got, body: &str) -> String {
        let subject = format!("Re: {}", parent.subject.trim_start_matches("Re: "));
        self.deliver(from, &subject, Some(parent), body)
    }

    /// `from`, new here, writes `body` in a mail of its own: one cycle,
    /// whose one mail to it must be its one answer, with a code; then its
    /// reply to that answer, with nothing written, waits for the next
    /// cycle, which does what the first mail held (`new`, `join`,
    /// `watch`). The one answer.
    pub fn newcomer(&mut self, from: &str, subject: &str, body: &str) -> Got {
        self.deliver(from, subject, None, body);
        let first = one(&self.process(), from);
        assert!(
            first.subject.starts_with("[code ")
                && first.text.contains("reply to this mail to go on"),
            "{first:#?}"
        );
        self.reply(from, &first, "");
        first
    }

    /// One `process` cycle; the mails it sent, taken out of the outbox.
    pub fn process(&self) -> Vec<Got> {
        self.ok(&["process"]);
        let dir = self.dir.path().join("var/outbox");
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        paths.sort();
        let mut out = Vec::new();
        for p in paths {
            out.push(parse(&std::fs::read(&p).unwrap()));
            std::fs::remove_file(&p).unwrap();
        }
        out
    }
}

/// The mails to `who`.
pub fn to<'a>(mails: &'a [Got], who: &str) -> Vec<&'a Got> {
    mails.iter().filter(|m| m.to == who).collect()
}

/// The one mail to `who`.
pub fn one(mails: &[Got], who: &str) -> Got {
    let got = to(mails, who);
    assert_eq!(got.len(), 1, "mails to {who}: {mails:#?}");
    got[0].clone()
}

/// One `process` cycle, whose one mail to `who` must say `saying`.
pub fn answered(s: &Server, who: &str, saying: &str) -> Got {
    let got = one(&s.process(), who);
    assert!(got.text.contains(saying), "to {who}: {}", got.text);
    got
}

pub const ALICE: &str = "alice@example.org";
pub const BOB: &str = "bob@example.org";
pub const CAROL: &str = "carol@example.net";
const DAVE: &str = "dave@example.net";
const ERIN: &str = "erin@example.net";
const FRANK: &str = "frank@example.net";
const GINA: &str = "gina@example.net";

/// Alice, new here, makes rocket-1 by mail (her `new` held until she
/// replies to the server's one answer); the reply that gives her its tag.
pub fn made(s: &mut Server, words: &str) -> Got {
    let first = s.newcomer(ALICE, "a game?", &format!("Hello,\n{words}\nAlice"));
    assert!(
        first
            .text
            .contains("held: done when you reply to this mail")
            && first.text.contains("Not read as commands")
            && !first.text.contains("You made"),
        "{}",
        first.text
    );
    let sent = s.process();
    let reply = one(&sent, ALICE);
    assert!(reply.text.contains("You made rocket-1"), "{}", reply.text);
    reply
}

#[test]
fn a_game_made_joined_and_started_by_mail() {
    let mut s = Server::new("");
    let made = made(&mut s, "new rocket open_money turn 72h");
    // The tag carries her key; the thread's subject is the game's.
    let key = made.key();
    assert_eq!(
        made.subject,
        format!("[rocket-1 {key}] Stephenson's Rocket")
    );
    assert!(
        made.reply_to.contains(&format!("+rocket-1.{key}@")),
        "{}",
        made.reply_to
    );
    for want in [
        "Options: open_money.",
        "turn 3d",
        "By invitation",
        "alice (creator)",
        "invite ADDRESS",
    ] {
        assert!(made.text.contains(want), "{want}: {}", made.text);
    }
    assert!(
        s.ok(&["games"]).contains("rocket-1     rocket   alice"),
        "listed as forming"
    );

    // She invites two; each gets one invitation.
    s.reply(ALICE, &made, &format!("invite {BOB}\ninvite {CAROL}"));
    let sent = s.process();
    assert_eq!(sent.len(), 3, "{sent:#?}");
    let answer = one(&sent, ALICE);
    assert!(
        answer.text.contains(&format!("Invited {BOB}")),
        "{}",
        answer.text
    );
    assert!(
        answer.text.contains(&format!("Invited: {BOB}, {CAROL}.")),
        "{}",
        answer.text
    );
    assert!(
        !one(&sent, CAROL).text.contains(BOB),
        "invitees do not see each other"
    );
    assert_eq!(
        answer
            .in_reply_to
            .as_deref()
            .map(|r| r.contains("@example.net")),
        Some(true)
    );
    assert_eq!(
        answer.references.first(),
        Some(&made.message_id),
        "her thread"
    );
    let invitation = one(&sent, BOB);
    let carols = one(&sent, CAROL);
    // Its tag carries a code, not a key: a reply with it proves bob.
    assert!(
        invitation.subject.starts_with("[rocket-1 ") && invitation.subject.contains("] Invitation"),
        "{}",
        invitation.subject
    );
    for want in ["join rocket-1", "no more invitations", "only mail you get"] {
        assert!(
            invitation.text.contains(want),
            "{want}: {}",
            invitation.text
        );
    }
    assert!(!invitation.text.contains(&key), "no key in an invitation");

    // Someone not invited cannot join a game by invitation.
    s.newcomer(DAVE, "join", "join rocket-1");
    let sent = s.process();
    assert!(
        one(&sent, DAVE).text.contains("by invitation only"),
        "{sent:#?}"
    );

    // Starting with one player is refused; bob joins by answering.
    s.reply(ALICE, &made, "start");
    let refused = one(&s.process(), ALICE);
    assert!(
        refused.text.contains("needs 2 to 4 players; 1 sit"),
        "{}",
        refused.text
    );
    s.reply(BOB, &invitation, "join as Bobby");
    let sent = s.process();
    let bob_seat = one(&sent, BOB);
    let bob_key = bob_seat.key();
    assert!(
        bob_seat.text.contains("You joined rocket-1 as Bobby"),
        "{}",
        bob_seat.text
    );
    assert_eq!(
        bob_seat.subject,
        format!("[rocket-1 {bob_key}] Stephenson's Rocket")
    );
    let told = one(&sent, ALICE);
    assert!(
        told.text
            .contains("Bobby (bob@example.org) joined rocket-1"),
        "{}",
        told.text
    );
    // Two sit: the creator is told the game may start.
    assert!(
        told.text.contains("reply with `start` to deal and begin"),
        "{}",
        told.text
    );

    // Only the creator starts; then everyone is welcomed in their thread.
    s.reply(BOB, &bob_seat, "start");
    assert!(one(&s.process(), BOB).text.contains("only the creator"));
    s.reply(ALICE, &made, "start");
    let sent = s.process();
    let alice_mails = to(&sent, ALICE);
    assert_eq!(
        alice_mails.len(),
        3,
        "answer, moderator's welcome, welcome: {sent:#?}"
    );
    assert!(
        alice_mails
            .iter()
            .any(|m| m.text.contains("rocket-1 has started"))
    );
    let moderating = alice_mails
        .iter()
        .find(|m| m.subject.contains("You moderate rocket-1"))
        .map(|m| (*m).clone())
        .expect("her moderator's welcome");
    let welcome = alice_mails
        .iter()
        .find(|m| m.text.contains("Welcome to rocket-1"))
        .expect("a welcome");
    assert_eq!(
        welcome.subject, made.subject,
        "the same key, the same thread"
    );
    assert_eq!(welcome.references, vec![made.message_id.clone()]);
    let bob_welcome = one(&sent, BOB);
    assert!(bob_welcome.text.contains("Welcome to rocket-1"));
    assert_eq!(bob_welcome.references, vec![bob_seat.message_id.clone()]);
    // The game runs with its options and its deadline: 72 hours from now.
    let json: serde_json::Value =
        serde_json::from_str(&s.ok(&["show", "rocket-1", "--json"])).unwrap();
    let names: Vec<&str> = json["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alice", "Bobby"]);
    assert_eq!(json["awaiting"][0]["deadline"], "2026-11-24T18:00:00+00:00");
    assert!(s.ok(&["games"]).contains("rocket-1"));
    // As its moderator she cannot make the server mail carol twice
    // unasked: carol has had her invitation.
    s.reply(
        ALICE,
        &moderating,
        &format!("moderator {CAROL}\nmoderator {ERIN}"),
    );
    let sent = s.process();
    assert!(to(&sent, CAROL).is_empty(), "{sent:#?}");
    let answer = to(&sent, ALICE)
        .into_iter()
        .find(|m| m.text.contains("moderator carol"))
        .expect("her answer")
        .clone();
    assert!(
        answer.text.contains("mails nobody twice unasked"),
        "{}",
        answer.text
    );
    assert_eq!(
        to(&sent, ERIN).len(),
        1,
        "erin's first mail unasked: {sent:#?}"
    );
    // Erin answers her moderator's welcome with her key: from then on she
    // is answered as anyone who has asked, though she plays nowhere.
    let erins = one(&sent, ERIN);
    s.reply(ERIN, &erins, "thanks");
    let _ = s.process();
    s.deliver(ERIN, "games", None, "games");
    answered(&s, ERIN, "plays in no game here");
    // Carol, invited but too late, answers her invitation: she is told the
    // game runs.
    s.reply(CAROL, &carols, "join");
    assert!(
        one(&s.process(), CAROL)
            .text
            .contains("has started already")
    );
    // Bob plays with the key he got at `join`.
    s.reply(BOB, &bob_welcome, "map");
    let report = one(&s.process(), BOB);
    assert_eq!(
        report.subject,
        format!("Re: [rocket-1 {bob_key}] Stephenson's Rocket")
    );
    assert!(report.text.contains("Waiting for"), "{}", report.text);

    // Bob plays here now: an invitation to a second game is not called
    // the only mail he gets from this server.
    s.deliver(ALICE, "another game", None, "new rocket");
    let second = one(&s.process(), ALICE);
    assert!(second.text.contains("You made rocket-2"), "{}", second.text);
    s.reply(ALICE, &second, &format!("invite {BOB}"));
    let invitation = one(&s.process(), BOB);
    assert!(
        invitation.text.contains("join rocket-2"),
        "{}",
        invitation.text
    );
    assert!(
        !invitation.text.contains("only mail you get"),
        "{}",
        invitation.text
    );
}

#[test]
fn leaving_and_the_creators_cancel() {
    let mut s = Server::new("");
    let made = made(&mut s, "new rocket open");
    assert!(made.text.contains("Open: anyone may join"), "{}", made.text);
    s.newcomer(DAVE, "hi", "join rocket-1");
    let dave = one(&s.process(), DAVE);
    s.reply(DAVE, &dave, "leave");
    let sent = s.process();
    assert!(one(&sent, DAVE).text.contains("You left rocket-1"));
    assert!(one(&sent, ALICE).text.contains("dave left rocket-1"));
    s.newcomer(BOB, "hi", "join rocket-1");
    let _bob = one(&s.process(), BOB);
    s.reply(ALICE, &made, "leave");
    let sent = s.process();
    assert!(one(&sent, ALICE).text.contains("You cancelled rocket-1"));
    assert!(one(&sent, BOB).text.contains("alice cancelled rocket-1"));
    s.newcomer(CAROL, "hi", "join rocket-1");
    assert!(
        one(&s.process(), CAROL)
            .text
            .contains("no game rocket-1 forming")
    );
}

#[test]
fn who_may_make_games_and_how_many_is_the_sites_choice() {
    let mut s = Server::new(
        "[site]\ncreate = \"listed\"\ncreators = [\"example.org\", \"carol@example.net\"]\nforming_per_address = 1\n",
    );
    s.newcomer(DAVE, "new", "new rocket");
    let dave = one(&s.process(), DAVE);
    assert!(
        dave.text.contains("dave@example.net may not make games"),
        "{}",
        dave.text
    );
    s.newcomer(CAROL, "new", "new linie1 stops=2");
    assert!(one(&s.process(), CAROL).text.contains("You made linie1-1"));
    let made = made(&mut s, "new rocket veto_question 6h");
    assert!(made.text.contains("veto_question 6h"), "{}", made.text);
    s.reply(ALICE, &made, "join rocket-1");
    assert!(
        one(&s.process(), ALICE)
            .text
            .contains("a seat in rocket-1 already")
    );
    // One forming game per address: a second is refused (she answered
    // with her key, so her mail is read at once).
    s.deliver(ALICE, "another", None, "new rocket");
    let again = one(&s.process(), ALICE);
    assert!(
        again.text.contains("game(s) forming already"),
        "{}",
        again.text
    );
    // Words `new` does not know are refused with what it takes.
    s.deliver(ALICE, "another", None, "new rocket fast");
    let bad = one(&s.process(), ALICE);
    assert!(
        bad.text.contains("`fast` is neither an option"),
        "{}",
        bad.text
    );

    let mut op = Server::new("[site]\ncreate = \"operator\"\n");
    op.newcomer(ALICE, "new", "new rocket");
    assert!(
        one(&op.process(), ALICE)
            .text
            .contains("only its operator makes games")
    );
}

#[test]
fn a_forming_game_nobody_starts_expires_and_everyone_is_told() {
    let mut s = Server::new("[site]\nforming_expires = \"2d\"\n");
    let made = made(&mut s, "new rocket open");
    assert!(
        made.text.contains("expires Mon 23 Nov 2026 18:00 UTC"),
        "{}",
        made.text
    );
    s.newcomer(BOB, "hi", "join rocket-1");
    let bob = one(&s.process(), BOB);
    s.now += Duration::hours(47);
    assert!(s.process().is_empty(), "not yet");
    s.now += Duration::hours(2);
    let sent = s.process();
    assert_eq!(sent.len(), 2, "{sent:#?}");
    for m in [one(&sent, ALICE), one(&sent, BOB)] {
        assert!(m.text.contains("rocket-1 was not started by"), "{}", m.text);
        assert!(m.text.contains("has expired"));
    }
    assert_eq!(one(&sent, BOB).references, vec![bob.message_id.clone()]);
    s.reply(BOB, &bob, "leave");
    let after = one(&s.process(), BOB);
    assert!(
        after.text.contains("no game rocket-1 forming"),
        "{}",
        after.text
    );
}

#[test]
fn no_stranger_makes_the_server_mail_a_third_party_twice_unasked() {
    let mut s = Server::new("");
    let made = made(&mut s, "new rocket");
    s.reply(ALICE, &made, &format!("invite {CAROL}"));
    let sent = s.process();
    assert_eq!(to(&sent, CAROL).len(), 1);
    // The same address again, from this game or another: refused.
    s.reply(ALICE, &made, &format!("invite {CAROL}"));
    assert!(one(&s.process(), ALICE).text.contains("invited already"));
    s.newcomer(DAVE, "mine", "new rocket");
    let dave = one(&s.process(), DAVE);
    s.reply(DAVE, &dave, &format!("invite {CAROL}\ninvite {BOB}"));
    let sent = s.process();
    assert!(to(&sent, CAROL).is_empty(), "{sent:#?}");
    assert!(one(&sent, DAVE).text.contains("mails nobody twice unasked"));
    let to_bob = one(&sent, BOB);
    // Bob refuses all invitations: none come again.
    s.reply(BOB, &to_bob, "no more invitations");
    assert!(one(&s.process(), BOB).text.contains("no more invitations"));
    s.reply(ALICE, &made, &format!("invite {BOB}"));
    let sent = s.process();
    assert!(to(&sent, BOB).is_empty());
    assert!(
        one(&sent, ALICE)
            .text
            .contains("asked this server for no invitations")
    );
    // Carol has had her one mail, the invitation: a forged mail from her
    // address is not answered.
    s.deliver(CAROL, "x", None, "help");
    assert!(s.process().is_empty());
    // A stranger who has not proved itself gets one answer, ever, whatever
    // it sends and however long it waits: a forged sender makes the
    // server write to the address it names once in all. The rest is
    // kept, with why, and not answered.
    let mut answers = Vec::new();
    for body in [
        "join rocket-1",
        "help",
        "games",
        "new rocket",
        "watch rocket-1",
    ] {
        s.deliver(ERIN, "x", None, body);
        answers.extend(to(&s.process(), ERIN).into_iter().cloned());
        s.now += Duration::days(1);
    }
    assert_eq!(answers.len(), 1, "{answers:#?}");
    assert!(
        answers[0].text.contains("> join rocket-1")
            && answers[0]
                .text
                .contains("held: done when you reply to this mail")
            && answers[0].text.contains("reply to this mail to go on"),
        "{}",
        answers[0].text
    );
    let kept = s.ok(&["export", "-"]);
    assert_eq!(
        kept.matches("erin@example.net has had its one mail from this server")
            .count(),
        4,
        "a receipt each"
    );
    // A key from another address does nothing, and its owner is alerted,
    // as in a game that runs (at most once a day per key); the forger
    // gets no answer.
    s.reply(DAVE, &made, "start");
    let sent = s.process();
    assert!(to(&sent, DAVE).is_empty(), "{sent:#?}");
    let alert = one(&sent, ALICE);
    assert!(
        alert
            .subject
            .contains("Someone tried to give orders as you"),
        "{}",
        alert.subject
    );
    assert!(
        alert
            .text
            .contains("carried your key but came from dave@example.net"),
        "{}",
        alert.text
    );
    assert!(alert.text.contains("start"), "what it asked for");
    s.reply(DAVE, &made, "leave");
    assert!(s.process().is_empty());
    assert!(s.ok(&["games"]).contains("rocket-1"), "still forming");
    // A seat's address with a wrong key: refused and alerted the same.
    let mut wrong = made.clone();
    wrong.subject = "[rocket-2 zzzzzzzzzz] Stephenson's Rocket".to_string();
    wrong.reply_to = String::new();
    s.reply(DAVE, &wrong, "start");
    let sent = s.process();
    assert!(
        one(&sent, DAVE).text.contains("carried a wrong key"),
        "{sent:#?}"
    );
}

#[test]
fn a_newcomer_replies_to_its_one_answer_and_goes_on() {
    let mut s = Server::new("");
    // Its first mail: `games` is answered, `new` held, and the answer
    // says, with a code in its subject tag, to reply to go on.
    s.deliver(FRANK, "hello", None, "games\nnew rocket open");
    let first = one(&s.process(), FRANK);
    for want in [
        "plays in no game here",
        "> new rocket open",
        "held: done when you reply to this mail",
        "reply to this mail to go on",
    ] {
        assert!(first.text.contains(want), "{want}: {}", first.text);
    }
    assert!(first.subject.starts_with("[code ") && first.subject.ends_with("] Re: hello"));
    assert!(!s.ok(&["games"]).contains("rocket-1"), "nothing made yet");
    // Mail of its own, not a reply, before it has replied: not answered.
    s.deliver(FRANK, "hello?", None, "help");
    assert!(s.process().is_empty());
    // The reply, with nothing written: the held `new` is done, and from
    // then on its mail is answered.
    s.reply(FRANK, &first, "");
    answered(&s, FRANK, "You made rocket-1");
    s.deliver(FRANK, "mine", None, "games");
    answered(&s, FRANK, "rocket-1 (Stephenson's Rocket), you are frank");
    // A mail program that drops the tag: `confirm CODE` in the reply does
    // the same; and a reply with commands of its own does those.
    s.deliver(GINA, "hi", None, "how does this work?");
    let first = one(&s.process(), GINA);
    assert!(
        first.text.contains("`help` lists"),
        "the help: {}",
        first.text
    );
    let tag = first.subject[6..first.subject.find(']').unwrap()].to_string();
    s.deliver(
        GINA,
        "again",
        None,
        &format!("confirm {tag}\njoin rocket-1"),
    );
    let sent = s.process();
    let seated = one(&sent, GINA);
    assert!(
        seated.text.contains("You joined rocket-1"),
        "{}",
        seated.text
    );
    assert!(seated.text.contains("Thank you"), "{}", seated.text);
    assert!(
        one(&sent, FRANK)
            .text
            .contains("gina (gina@example.net) joined")
    );
    // A held `new` and a reply that lost its tag: `confirm CODE` alone
    // still does what was held.
    s.deliver(ERIN, "start one", None, "new rocket");
    let first = one(&s.process(), ERIN);
    let tag = first.subject[6..first.subject.find(']').unwrap()].to_string();
    s.deliver(ERIN, "lost tag", None, &format!("confirm {tag}"));
    answered(&s, ERIN, "You made rocket-2");
}

#[test]
fn every_site_command_is_in_the_help_reply_and_in_the_guides_in_its_exact_words() {
    // README's guides: the players' commands in docs/players.md, the
    // moderators' in docs/game-masters.md, the `[site]` keys in
    // docs/operators.md.
    let guide = |name: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let players = guide("players.md");
    let game_masters = guide("game-masters.md");
    let operators = guide("operators.md");
    let mut s = Server::new("");
    s.deliver(DAVE, "how does this work?", None, "Hello, how do I play?");
    let help = one(&s.process(), DAVE);
    // The help's lines are wrapped: read as words.
    let flat = crate::common::flat;
    let text = flat(&help.text);
    for (form, what) in stationmaster::service::site::FORMS {
        assert!(
            text.contains(&flat(form)),
            "help lacks {form}: {}",
            help.text
        );
        assert!(text.contains(&flat(what)), "help lacks {what}");
        assert!(
            players.contains(&format!("`{form}`")),
            "docs/players.md lacks `{form}`"
        );
    }
    for form in [
        "say TEXT",
        "tell PLAYER TEXT",
        "reports full",
        "reports short",
        "reports turn",
        "address add ADDRESS",
        "address remove ADDRESS",
    ] {
        assert!(
            help.text.contains(&format!("`{form}`")),
            "help lacks {form}"
        );
        assert!(
            form.contains("PLAYER") || players.contains(&format!("`{form}`")),
            "docs/players.md lacks {form}"
        );
    }
    assert!(players.contains("**`say TEXT`**") && players.contains("**`tell PLAYER\n  TEXT`**"));
    // The moderators' commands (`watchable on` …), in the table of
    // docs/game-masters.md, "Moderating".
    for (form, _) in stationmaster::daemon::moderator::FORMS {
        assert!(
            game_masters.contains(&format!("| `{form}`"))
                || game_masters.contains(&format!(" / `{form}`")),
            "docs/game-masters.md lacks the moderator command `{form}`"
        );
    }
    for key in [
        "create",
        "creators",
        "forming_per_address",
        "forming_expires",
    ] {
        assert!(
            operators.contains(&format!("`[site] {key}`")),
            "docs/operators.md lacks [site] {key}"
        );
    }
}

/// rocket-1 made by alice, joined by bob (open), and started: each one's
/// welcome.
pub fn started(s: &mut Server) -> (Got, Got) {
    let (alice, bob, _) = started_moderated(s);
    (alice, bob)
}

/// rocket-1 made by alice, joined by bob (open), and started: each one's
/// welcome, and alice's moderator's welcome.
pub fn started_moderated(s: &mut Server) -> (Got, Got, Got) {
    let made = made(s, "new rocket open");
    s.newcomer(BOB, "join", "join rocket-1");
    let _ = one(&s.process(), BOB);
    s.reply(ALICE, &made, "start");
    let sent = s.process();
    let alices = |what: &str| {
        to(&sent, ALICE)
            .into_iter()
            .find(|m| m.text.contains(what) || m.subject.contains(what))
            .unwrap_or_else(|| panic!("alice's {what}: {sent:#?}"))
            .clone()
    };
    (
        alices("Welcome to rocket-1"),
        one(&sent, BOB),
        alices("You moderate rocket-1"),
    )
}

#[test]
fn games_lists_my_games_and_bump_sends_the_reports_waiting_for_me() {
    let mut s = Server::new("");
    let (alice, bob) = started(&mut s);
    let json: serde_json::Value =
        serde_json::from_str(&s.ok(&["show", "rocket-1", "--json"])).unwrap();
    let first = json["awaiting"][0]["player"].as_str().unwrap().to_string();
    let (waiting, other, waiting_welcome) = if first == "alice" {
        (ALICE, BOB, alice)
    } else {
        (BOB, ALICE, bob)
    };
    // A second game, forming.
    s.deliver(BOB, "another", None, "new linie1");
    let _ = one(&s.process(), BOB);

    s.deliver(waiting, "my games?", None, "games");
    let list = one(&s.process(), waiting);
    assert!(
        list.text
            .contains("rocket-1 (Stephenson's Rocket), you are"),
        "{}",
        list.text
    );
    assert!(
        list.text
            .contains("You (2 actions): by Mon 23 Nov 2026 18:00 UTC"),
        "{}",
        list.text
    );
    s.deliver(BOB, "my games?", None, "games");
    let bobs = one(&s.process(), BOB);
    assert!(bobs.text.contains("linie1-1 (Linie 1"), "{}", bobs.text);
    assert!(bobs.text.contains("you start it"), "{}", bobs.text);
    s.deliver("nobody@example.net", "games", None, "games");
    assert!(
        one(&s.process(), "nobody@example.net")
            .text
            .contains("plays in no game here")
    );

    // bump: the report of the game waiting for the sender, in its thread.
    s.deliver(waiting, "bump", None, "bump");
    let sent = s.process();
    let mine = to(&sent, waiting);
    assert_eq!(mine.len(), 2, "the answer and one report: {sent:#?}");
    let report = mine
        .iter()
        .find(|m| m.text.contains("as you asked with `bump`"))
        .expect("the report");
    assert_eq!(report.subject, waiting_welcome.subject);
    assert_eq!(report.references, waiting_welcome.references);
    assert!(report.text.contains("You can"), "{}", report.text);
    // Once an hour; and nothing for a player nobody waits for.
    s.deliver(waiting, "bump", None, "bump");
    assert!(one(&s.process(), waiting).text.contains("once an hour"));
    s.deliver(other, "bump", None, "bump");
    assert!(
        one(&s.process(), other)
            .text
            .contains("No game waits for you now")
    );
}

/// The player's mail among `mails` that is their report or answer
/// (not a message).
pub fn reply_to_sender(mails: &[Got], who: &str) -> Got {
    let mine: Vec<&Got> = to(mails, who)
        .into_iter()
        .filter(|m| m.subject.starts_with("Re: "))
        .collect();
    assert_eq!(mine.len(), 1, "{who}: {mails:#?}");
    mine[0].clone()
}

#[test]
fn table_talk_goes_out_at_once_is_logged_and_private_messages_stay_private() {
    let mut s = Server::new("[limits]\nmessages_per_hour = 2\n");
    let made = made(&mut s, "new rocket open");
    let mut welcomes = std::collections::BTreeMap::new();
    for who in [BOB, DAVE] {
        s.newcomer(who, "join", "join rocket-1");
        let _ = one(&s.process(), who);
    }
    s.reply(ALICE, &made, "start");
    for m in s.process() {
        if m.text.contains("Welcome to rocket-1") {
            welcomes.insert(m.to.clone(), m);
        }
    }
    let log_len = |s: &Server| {
        s.ok(&["log", "rocket-1"])
            .lines()
            .filter(|l| l.starts_with('#'))
            .count()
    };
    let before = log_len(&s);
    // `say` to everyone: one mail each in their thread, no report, and
    // `say pass` is never an order.
    s.reply(
        BOB,
        &welcomes[BOB],
        "Hi all,\nsay Good luck, and pass the port!",
    );
    let sent = s.process();
    assert_eq!(sent.len(), 3, "{sent:#?}");
    for who in [ALICE, DAVE] {
        let m = one(&sent, who);
        assert!(
            m.text.contains("bob says to everyone in rocket-1:"),
            "{}",
            m.text
        );
        assert!(m.text.contains("Good luck, and pass the port!"));
        assert_eq!(m.subject, welcomes[who].subject, "in their thread");
        assert_eq!(m.references, welcomes[who].references);
    }
    let answer = reply_to_sender(&sent, BOB);
    assert!(
        answer.text.contains("Sent to everyone: Good luck"),
        "{}",
        answer.text
    );
    assert_eq!(
        log_len(&s),
        before + 1,
        "written to the log, nothing applied"
    );

    // `tell`: to one, and `history` shows it to its two ends alone.
    s.reply(BOB, &welcomes[BOB], "tell alice Shall we share the GWR?");
    let sent = s.process();
    assert!(one(&sent, ALICE).text.contains("bob says to you alone"));
    assert!(to(&sent, DAVE).is_empty());
    let history = |s: &mut Server, who: &str, w: &Got| {
        s.reply(who, w, "history");
        reply_to_sender(&s.process(), who).text
    };
    assert!(history(&mut s, DAVE, &welcomes[DAVE].clone()).contains("bob says: Good luck"));
    assert!(!history(&mut s, DAVE, &welcomes[DAVE].clone()).contains("GWR?"));
    assert!(
        history(&mut s, ALICE, &welcomes[ALICE].clone())
            .contains("bob tells alice: Shall we share the GWR?")
    );
    assert!(
        s.ok(&["log", "rocket-1"])
            .contains("bob tells alice: Shall we share the GWR?")
    );

    // Unknown players and the hourly limit are refused to the sender.
    s.reply(BOB, &welcomes[BOB], "tell zed hello\nsay a third one");
    let sent = s.process();
    assert_eq!(sent.len(), 1, "{sent:#?}");
    let answer = reply_to_sender(&sent, BOB);
    assert!(
        answer.text.contains("zed does not play in rocket-1"),
        "{}",
        answer.text
    );
    assert!(
        answer.text.contains("2 messages in rocket-1 this hour"),
        "{}",
        answer.text
    );
    s.now += Duration::hours(1);
    s.reply(BOB, &welcomes[BOB], "say an hour later");
    assert_eq!(s.process().len(), 3);
}

/// The player `show --json` says the game waits for first, and the other
/// one, with their welcomes: (waiting, welcome, other, welcome).
pub fn who_waits(s: &Server, alice: Got, bob: Got) -> (&'static str, Got, &'static str, Got) {
    let json: serde_json::Value =
        serde_json::from_str(&s.ok(&["show", "rocket-1", "--json"])).unwrap();
    if json["awaiting"][0]["player"] == "alice" {
        (ALICE, alice, BOB, bob)
    } else {
        (BOB, bob, ALICE, alice)
    }
}

#[test]
fn each_player_chooses_how_much_mail_and_the_game_master_sets_the_default() {
    let mut s = Server::new("");
    let (alice, bob) = started(&mut s);
    let (waiting, waiting_w, other, other_w) = who_waits(&s, alice, bob);

    // The full report says which reports its reader gets, and the words
    // to change it, in both parts.
    assert!(
        other_w
            .text
            .contains("You get `reports full`: a report with the map after every change.")
            && other_w
                .text
                .contains("with `reports short` or `reports turn`."),
        "{}",
        other_w.text
    );
    assert!(
        other_w.html.contains(
            "You get <code>reports full</code>: a report with the map after every change."
        ),
        "{}",
        other_w.html
    );
    assert!(
        other_w
            .html
            .contains("<code>reports short</code> or <code>reports turn</code>"),
        "{}",
        other_w.html
    );

    // `reports short`: a note from a moderator comes as a line, no map.
    s.reply(other, &other_w, "reports short");
    let answer = reply_to_sender(&s.process(), other);
    assert!(
        answer.text.contains("From now on you get `reports short`"),
        "{}",
        answer.text
    );
    assert!(
        answer
            .text
            .contains("You get `reports short`: one line per change")
            && answer.text.contains("`reports full` or `reports turn`"),
        "{}",
        answer.text
    );
    assert!(
        answer
            .html
            .contains("<code>reports full</code> or <code>reports turn</code>"),
        "{}",
        answer.html
    );
    s.ok(&["mod", "rocket-1", "note", "play on, all"]);
    let sent = s.process();
    let short = one(&sent, other);
    assert!(short.text.contains("play on, all"), "{}", short.text);
    assert!(
        short.text.contains("You get short reports"),
        "{}",
        short.text
    );
    assert!(!short.text.contains("You can"), "no hints: {}", short.text);
    assert_eq!(short.subject, other_w.subject, "in their thread");
    assert!(
        one(&sent, waiting).text.contains("You can"),
        "awaited: full"
    );

    // `reports turn`: nothing while the game waits for someone else …
    s.reply(other, &other_w, "reports turn");
    let _ = reply_to_sender(&s.process(), other);
    s.reply(waiting, &waiting_w, "token london steel");
    let sent = s.process();
    assert!(to(&sent, other).is_empty(), "{sent:#?}");
    assert_eq!(to(&sent, waiting).len(), 1);
    // … and when it waits for them, the report with all that happened since.
    s.ok(&["mod", "rocket-1", "skip"]);
    let sent = s.process();
    let report = one(&sent, other);
    assert!(
        report.text.contains("token London steel"),
        "{}",
        report.text
    );
    assert!(report.text.contains("You can"), "{}", report.text);
    // Kept (every `process` is a new run), and shown in `games`.
    s.deliver(other, "games", None, "games");
    let list = one(&s.process(), other);
    assert!(list.text.contains("reports turn"), "{}", list.text);
    // A word that is no mode is refused, and nothing changes.
    s.reply(other, &other_w, "reports weekly");
    let answer = reply_to_sender(&s.process(), other);
    assert!(
        answer.text.contains("`weekly` is not a kind of reports"),
        "{}",
        answer.text
    );

    // The game master's default: for those who have not chosen.
    let out = s.ok(&["mod", "rocket-1", "reports", "short"]);
    assert!(out.contains("reports are now `short`"), "{out}");
    let _ = s.process();
    s.deliver(waiting, "games", None, "games");
    let list = one(&s.process(), waiting);
    assert!(list.text.contains("reports short"), "{}", list.text);
    s.deliver(other, "games", None, "games");
    assert!(one(&s.process(), other).text.contains("reports turn"));
    assert!(
        !s.sm(&["mod", "rocket-1", "reports", "weekly"])
            .status
            .success()
    );
}

#[test]
fn the_default_reports_are_an_option_of_new_by_mail_and_on_the_command_line() {
    let mut s = Server::new("");
    let made = made(&mut s, "new rocket open reports turn");
    assert!(made.text.contains("Reports: turn"), "{}", made.text);
    s.newcomer(BOB, "join", "join rocket-1");
    let _ = one(&s.process(), BOB);
    s.reply(ALICE, &made, "start");
    let welcome = one(&s.process(), BOB);
    assert!(
        welcome.text.contains("You get `reports turn`:"),
        "{}",
        welcome.text
    );
    s.deliver(BOB, "games", None, "games");
    assert!(one(&s.process(), BOB).text.contains("reports turn"));
    s.newcomer(DAVE, "x", "new rocket reports weekly");
    assert!(
        one(&s.process(), DAVE)
            .text
            .contains("`weekly` is not a kind of reports")
    );

    let id = s.ok(&[
        "new",
        "rocket",
        "--player",
        "carol=carol@example.net",
        "--player",
        "dave=dave@example.net",
        "--reports",
        "short",
    ]);
    assert_eq!(id.trim(), "rocket-2");
    // The welcome tells the game's own default.
    let welcome = one(&s.process(), CAROL);
    assert!(
        welcome.text.contains("You get `reports short`:"),
        "{}",
        welcome.text
    );
    s.deliver(CAROL, "games", None, "games");
    let list = one(&s.process(), CAROL);
    assert!(list.text.contains("rocket-2"), "{}", list.text);
    assert!(list.text.contains("reports short"), "{}", list.text);
    assert!(
        !s.sm(&[
            "new",
            "rocket",
            "--player",
            "a=a@x.org",
            "--player",
            "b=b@x.org",
            "--reports",
            "weekly"
        ])
        .status
        .success()
    );
}

/// Issue 38: the welcome says, once, how to get fewer mails (each mode
/// that sends fewer than the reader's, with what it sends) and that a
/// whole turn goes in one mail, in both parts; the next report does not
/// say it again.
#[test]
fn issue_38_the_welcome_says_once_how_to_get_fewer_mails_and_to_play_a_turn_in_one_mail() {
    use stationmaster::store::ReportMode;
    let mut s = Server::new("");
    let mut first = None;
    let turn = "A whole turn goes in one mail: write all of its orders, one a line, in the \
                order they are to apply (they apply all or nothing).";
    let offer = |m: ReportMode| format!("`reports {}`: {}.", m.name(), m.describe());
    for (n, default, fewer) in [
        (1, None, vec![ReportMode::Turn, ReportMode::Short]),
        (2, Some("short"), vec![ReportMode::Turn]),
        (3, Some("turn"), vec![]),
    ] {
        let mut args = vec![
            "new",
            "rocket",
            "--player",
            "carol=carol@example.net",
            "--player",
            "dave=dave@example.net",
        ];
        args.extend(default.map(|d| ["--reports", d]).into_iter().flatten());
        assert_eq!(s.ok(&args).trim(), format!("rocket-{n}"));
        let welcome = one(&s.process(), CAROL);
        let text = welcome.text.clone();
        first.get_or_insert(welcome.clone());
        // (The welcome tells the game's own default.)
        let mode = format!("You get `reports {}`", default.unwrap_or("full"));
        assert!(text.contains(&mode), "{text}");
        assert_eq!(text.matches(turn).count(), 1, "{text}");
        assert!(welcome.html.contains("A whole turn goes in one mail"));
        if fewer.is_empty() {
            assert!(!text.contains("fewer mails"), "{text}");
            continue;
        }
        let said: Vec<String> = fewer.iter().map(|m| offer(*m)).collect();
        let expected = format!("To get fewer mails, reply {}", said.join(" Or "));
        assert_eq!(text.matches(&expected).count(), 1, "{expected}\n{text}");
        assert_eq!(text.matches("fewer mails").count(), 1, "{text}");
        for m in &fewer {
            assert!(
                welcome.html.contains(&format!(
                    "<code>reports {}</code>: {}.",
                    m.name(),
                    m.describe()
                )),
                "{}",
                welcome.html
            );
        }
    }
    let first = first.unwrap();
    s.reply(CAROL, &first, "map");
    let report = s.process();
    assert_eq!(to(&report, CAROL).len(), 1, "{report:#?}");
    for m in &report {
        assert!(
            !m.text.contains("A whole turn goes") && !m.text.contains("fewer mails"),
            "{}",
            m.text
        );
    }
}

/// The confirmation code in an answer to `watch GAME` (or `address add`):
/// the word after `line` on the line that begins with it.
pub fn code_after(text: &str, line: &str) -> String {
    text.lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix(line))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no `{line} CODE` in {text}"))
        .to_string()
}

#[test]
fn observers_watch_a_watchable_game_and_never_give_orders() {
    let mut s = Server::new("[limits]\nobservers_per_game = 1\n");
    let made = made(&mut s, "new rocket open watchable");
    assert!(made.text.contains("Watchable"), "{}", made.text);
    s.newcomer(BOB, "join", "join rocket-1");
    let _ = one(&s.process(), BOB);
    s.reply(ALICE, &made, "start");
    let mut welcomes = std::collections::BTreeMap::new();
    for m in s.process() {
        if m.text.contains("Welcome to rocket-1") {
            welcomes.insert(m.to.clone(), m);
        }
    }
    let (waiting, waiting_w, _, _) = who_waits(&s, welcomes[ALICE].clone(), welcomes[BOB].clone());

    // A stranger's `watch` gets one mail, with a code; the watch waits
    // for the reply that carries it back.
    s.deliver(CAROL, "watch", None, "watch rocket-1");
    let asked = one(&s.process(), CAROL);
    assert!(
        asked.text.contains("held")
            && asked
                .text
                .contains("If you did not write to sm@example.org, do nothing"),
        "{}",
        asked.text
    );
    // A forged confirmation with a wrong code is not even answered.
    s.deliver(CAROL, "watch", None, "watch rocket-1 wrongcode");
    assert!(s.process().is_empty());
    s.reply(CAROL, &asked, "");
    let sent = s.process();
    let mine = to(&sent, CAROL);
    assert_eq!(mine.len(), 2, "the answer and the board: {sent:#?}");
    let board: Got = mine
        .into_iter()
        .find(|m| m.subject.contains("watched"))
        .expect("the board")
        .clone();
    assert!(board.text.contains("You watch this game"), "{}", board.text);
    assert!(!board.text.contains("You can"), "no hints: {}", board.text);
    // The board's picture above it, as in the players' reports.
    assert!(
        board.html.contains("<img src=\"cid:board."),
        "{}",
        board.html
    );

    // After each change, what happened, as a spectator sees it.
    s.reply(waiting, &waiting_w, "token london steel");
    let sent = s.process();
    let seen = one(&sent, CAROL);
    assert!(seen.text.contains("token London steel"), "{}", seen.text);
    assert!(seen.html.contains("<img src=\"cid:board."), "{}", seen.html);
    assert_eq!(seen.subject, board.subject, "in one thread");
    // An observer's mail is never an order.
    let log_len = |s: &Server| s.ok(&["log", "rocket-1"]).lines().count();
    let before = log_len(&s);
    s.reply(CAROL, &seen, "token london steel");
    let _ = s.process();
    assert_eq!(log_len(&s), before);

    // Bounded: one observer for this game.
    s.ok(&[
        "new",
        "rocket",
        "--player",
        "dave=dave@example.net",
        "--player",
        "erin=erin@example.net",
    ]);
    let _ = s.process();
    s.deliver(DAVE, "watch", None, "watch rocket-1");
    let full = one(&s.process(), DAVE);
    assert!(full.text.contains("has 1 observers"), "{}", full.text);
    // Only games made watchable.
    s.deliver(DAVE, "watch", None, "watch rocket-2");
    assert!(
        one(&s.process(), DAVE)
            .text
            .contains("rocket-2 is not watchable")
    );
    // `--watchable` on the command line; dave plays here, so he has asked
    // for mail already: no code.
    s.ok(&[
        "new",
        "rocket",
        "--watchable",
        "--player",
        "frank=frank@example.net",
        "--player",
        "gina=gina@example.net",
    ]);
    let _ = s.process();
    s.deliver(DAVE, "watch", None, "watch rocket-3");
    let sent = s.process();
    assert_eq!(
        to(&sent, DAVE).len(),
        2,
        "the answer and the board: {sent:#?}"
    );

    // The archive at the end.
    s.ok(&["mod", "rocket-1", "abort"]);
    let last = one(&s.process(), CAROL);
    assert!(
        last.text.contains("Its archive, the whole log"),
        "{}",
        last.text
    );
    assert!(last.text.contains("alice") && last.text.contains("abort"));
    // `unwatch`: nothing more.
    s.reply(CAROL, &last, "unwatch");
    let answer = one(&s.process(), CAROL);
    assert!(
        answer.text.contains("You no longer watch rocket-1"),
        "{}",
        answer.text
    );
    s.ok(&["mod", "rocket-1", "note", "bye"]);
    assert!(to(&s.process(), CAROL).is_empty());
}

#[test]
fn an_export_carries_the_site_forming_games_addresses_preferences_and_observers() {
    let mut a = Server::new("");
    let made = made(&mut a, "new rocket open watchable reports short");
    a.reply(
        ALICE,
        &made,
        "invite carol@example.net\nno more invitations",
    );
    let invitation = one(&a.process(), CAROL);
    a.ok(&[
        "new",
        "rocket",
        "--watchable",
        "--reports",
        "turn",
        "--player",
        "bob=bob@example.org",
        "--player",
        "dave=dave@example.net",
    ]);
    let bobs = one(&a.process(), BOB);
    // Carol has had her one mail, the invitation: her reply to it proves
    // her, then she watches rocket-2.
    a.reply(CAROL, &invitation, "");
    answered(&a, CAROL, "is known here now");
    a.deliver(CAROL, "watch", None, "watch rocket-2");
    assert_eq!(to(&a.process(), CAROL).len(), 2);
    // bob plays rocket-2 from a second address too.
    const WORK: &str = "work@example.com";
    a.reply(BOB, &bobs, &format!("address add {WORK}"));
    let ask = one(&a.process(), WORK);
    a.reply(
        WORK,
        &ask,
        &format!("confirm {}", code_after(&ask.text, "confirm")),
    );
    answered(&a, WORK, "Confirmed");
    let backup = a.dir.path().join("backup.json");
    a.ok(&["export", backup.to_str().unwrap()]);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&backup).unwrap()).unwrap();
    assert_eq!(doc["forming"][0]["id"], "rocket-1", "{doc:#}");
    assert_eq!(doc["forming"][0]["reports"], "short");
    assert!(doc["contacts"]["carol@example.net"]["unasked"].is_string());
    assert_eq!(doc["contacts"][ALICE]["no_invitations"], true);

    let mut b = Server::new("");
    // Later, so its mails' Message-IDs are not those of a's, received.
    b.now += Duration::minutes(1);
    let said = b.ok(&["import", backup.to_str().unwrap()]);
    assert!(said.contains("Imported"), "{said}");
    let again: serde_json::Value = serde_json::from_str(&b.ok(&["export", "-"])).unwrap();
    for key in ["forming", "contacts", "counters"] {
        assert_eq!(again[key], doc[key], "{key}");
    }
    assert_eq!(again["games"][0]["meta"], doc["games"][0]["meta"]);
    assert_eq!(again["games"][0]["meta"]["default_reports"], "turn");
    assert_eq!(again["games"][0]["meta"]["observers"][0]["address"], CAROL);
    // And the imported server acts on them: the forming game goes on, and
    // carol has had her one unasked mail.
    b.deliver(ALICE, "games", None, "games");
    let list = one(&b.process(), ALICE);
    assert!(list.text.contains("rocket-1"), "{}", list.text);
    b.reply(ALICE, &made, "invite carol@example.net");
    answered(&b, ALICE, "is invited already");
    // bob's second address is in the imported address index.
    b.deliver(WORK, "games", None, "games");
    answered(&b, WORK, "rocket-2 (Stephenson's Rocket), you are bob");
}

#[test]
fn an_address_invited_before_invitations_carried_codes_gets_one_answer_with_one() {
    // Carol's record as a Stationmaster before codes left it: invited,
    // with nothing she could answer to prove herself.
    let mut a = Server::new("");
    let made = made(&mut a, "new rocket");
    a.reply(ALICE, &made, &format!("invite {CAROL}"));
    let _ = a.process();
    let mut doc: serde_json::Value = serde_json::from_str(&a.ok(&["export", "-"])).unwrap();
    let carol = doc["contacts"][CAROL]
        .as_object_mut()
        .expect("carol's record");
    carol.remove("answerable");
    carol.remove("pending");
    let old = a.dir.path().join("old.json");
    std::fs::write(&old, doc.to_string()).unwrap();
    let mut b = Server::new("");
    b.now += Duration::minutes(1);
    b.ok(&["import", old.to_str().unwrap()]);
    // Her mail gets one answer, with a code; nothing more until she
    // replies to it.
    b.deliver(CAROL, "join", None, "join rocket-1");
    let first = one(&b.process(), CAROL);
    assert!(first.subject.starts_with("[code "), "{}", first.subject);
    b.deliver(CAROL, "join", None, "join rocket-1");
    assert!(b.process().is_empty());
    b.reply(CAROL, &first, "");
    answered(&b, CAROL, "You joined rocket-1");
}

/// Carol, new here, watches `game`: her first mail holds it, her reply
/// to the answer does it.
fn s_watch(s: &mut Server, game: &str) {
    s.newcomer(CAROL, "watch", &format!("watch {game}"));
    assert_eq!(to(&s.process(), CAROL).len(), 2);
}

#[test]
fn the_command_line_lists_and_shows_forming_games_without_their_keys() {
    let mut s = Server::new("");
    let made = made(&mut s, "new rocket watchable");
    s.reply(ALICE, &made, &format!("invite {CAROL}"));
    let _ = s.process();
    let games = s.ok(&["games"]);
    assert!(
        games.contains("rocket-1") && games.contains("forming by mail: not started"),
        "{games}"
    );
    let shown = s.ok(&["show", "rocket-1"]);
    assert!(shown.contains("forming: not started yet"), "{shown}");
    assert!(
        shown.contains(CAROL),
        "the invited, for the operator: {shown}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&s.ok(&["show", "rocket-1", "--json"])).unwrap();
    assert_eq!(json["forming"], true);
    assert_eq!(json["players"][0]["name"], "alice");
    assert_eq!(json["watchable"], true);
    assert!(!json.to_string().contains(&made.key()), "no key: {json}");
}

#[test]
fn a_player_adds_a_second_address_confirmed_from_there_and_removes_it() {
    let mut s = Server::new("[site]\nforming_per_address = 1\n");
    let (alice, bob) = started(&mut s);
    let (waiting, waiting_w, other, other_w) = who_waits(&s, alice, bob);
    const WORK: &str = "work@example.com";
    let name = waiting.split('@').next().unwrap();
    // Before it is confirmed, the second address is an intruder.
    s.reply(WORK, &waiting_w, "map");
    let sent = s.process();
    assert!(to(&sent, WORK).is_empty(), "{sent:#?}");

    s.reply(waiting, &waiting_w, &format!("address add {WORK}"));
    let sent = s.process();
    let answer = reply_to_sender(&sent, waiting);
    assert!(
        answer.text.contains(&format!("A mail went to {WORK}")),
        "{}",
        answer.text
    );
    let ask = one(&sent, WORK);
    assert!(
        ask.text.contains("If it is not, do nothing"),
        "{}",
        ask.text
    );
    assert!(ask.text.contains("no more invitations"));
    let code = code_after(&ask.text, "confirm");
    // A second `address add` to it is not mailed again.
    s.reply(waiting, &waiting_w, &format!("address add {WORK}"));
    let sent = s.process();
    assert!(to(&sent, WORK).is_empty(), "{sent:#?}");
    // A wrong code from there does nothing, and is not answered: the
    // address has had its one mail.
    s.reply(WORK, &ask, "confirm wrongcode");
    assert!(to(&s.process(), WORK).is_empty());
    s.reply(WORK, &ask, &format!("confirm {code}"));
    let still = format!("the game's reports and messages still go to {waiting}");
    answered(&s, WORK, &still);

    // A full address of the player's: `games` and `bump` from there find
    // the game, and the answers come back there.
    s.deliver(WORK, "games", None, "games");
    answered(
        &s,
        WORK,
        &format!("rocket-1 (Stephenson's Rocket), you are {name}"),
    );
    s.deliver(WORK, "bump", None, "bump");
    let sent = s.process();
    assert!(to(&sent, waiting).is_empty(), "{sent:#?}");
    let bumped = to(&sent, WORK);
    assert_eq!(bumped.len(), 2, "the answer and the report: {sent:#?}");
    assert!(
        bumped
            .iter()
            .any(|m| m.text.contains("as you asked with `bump`") && m.subject == waiting_w.subject)
    );
    // One seat a player, whichever address they write from; forming
    // games and invitations count the player, not the address.
    s.deliver(waiting, "another", None, "new linie1 open");
    let linie1 = one(&s.process(), waiting);
    s.deliver(WORK, "join", None, "join linie1-1");
    answered(
        &s,
        WORK,
        &format!("you have a seat in linie1-1 already, as {waiting}"),
    );
    // Invited at the other address: seated already, and which address
    // holds the seat is not told to whoever invites.
    s.reply(waiting, &linie1, &format!("invite {WORK}"));
    let told = one(&s.process(), waiting);
    assert!(
        told.text.contains(&format!("{WORK} has a seat already"))
            && !told.text.contains(&format!("already, as {waiting}")),
        "{}",
        told.text
    );
    s.deliver(WORK, "new", None, "new rocket");
    answered(&s, WORK, "you have 1 game(s) forming already");
    s.deliver(WORK, "stop", None, "no more invitations");
    let _ = one(&s.process(), WORK);
    s.deliver(other, "mine", None, "new rocket");
    let made_by_other = one(&s.process(), other);
    s.reply(other, &made_by_other, &format!("invite {waiting}"));
    answered(&s, other, "asked this server for no invitations");
    // `no more invitations` in reply to a confirmation mail, as that mail
    // says: kept, though not answered (the address has had its one mail).
    const SPARE: &str = "spare@example.net";
    s.reply(waiting, &waiting_w, &format!("address add {SPARE}"));
    let ask = one(&s.process(), SPARE);
    s.reply(SPARE, &ask, "no more invitations");
    assert!(to(&s.process(), SPARE).is_empty());
    let export: serde_json::Value = serde_json::from_str(&s.ok(&["export", "-"])).unwrap();
    assert_eq!(
        export["contacts"][SPARE]["no_invitations"],
        serde_json::Value::Bool(true),
        "{export}"
    );
    // Taken back before it is confirmed: the mail's code still shows the
    // address is whoever got it, so it is not locked out for good.
    let code = code_after(&ask.text, "confirm");
    s.reply(waiting, &waiting_w, &format!("address remove {SPARE}"));
    let _ = s.process();
    s.reply(SPARE, &ask, &format!("confirm {code}"));
    answered(&s, SPARE, "is known here now");
    s.deliver(SPARE, "help", None, "help");
    answered(&s, SPARE, "`help`");
    // The other player's key from there: refused, both owners alerted.
    let before = s.ok(&["log", "rocket-1"]).lines().count();
    s.reply(WORK, &other_w, "map");
    let sent = s.process();
    assert!(to(&sent, WORK).is_empty(), "{sent:#?}");
    assert!(
        to(&sent, other)
            .iter()
            .any(|m| m.subject.contains("Someone tried to give orders as you")),
        "{sent:#?}"
    );
    assert_eq!(s.ok(&["log", "rocket-1"]).lines().count(), before);

    // From there, with the key: orders are taken; the answer comes back
    // there, and nothing of it to the first address.
    s.reply(WORK, &waiting_w, "token london steel");
    let sent = s.process();
    let answer = one(&sent, WORK);
    assert!(answer.text.contains("Applied"), "{}", answer.text);
    assert!(to(&sent, waiting).is_empty(), "{sent:#?}");
    assert!(s.ok(&["log", "rocket-1"]).lines().count() > before);
    // Removed: an intruder again.
    s.reply(waiting, &waiting_w, &format!("address remove {WORK}"));
    let answer = reply_to_sender(&s.process(), waiting);
    assert!(
        answer.text.contains("no longer one of your addresses"),
        "{}",
        answer.text
    );
    let before = s.ok(&["log", "rocket-1"]).lines().count();
    s.reply(WORK, &waiting_w, "token london textiles");
    let _ = s.process();
    assert_eq!(s.ok(&["log", "rocket-1"]).lines().count(), before);
    // And out of the address index: no game of theirs any more.
    s.deliver(WORK, "games", None, "games");
    let list = one(&s.process(), WORK);
    assert!(list.text.contains("plays in no game here"), "{}", list.text);
}

#[test]
fn a_moderator_opens_a_game_to_observers_and_closes_it_again() {
    let mut s = Server::new("");
    let (_, bob, moderating) = started_moderated(&mut s);
    s.newcomer(DAVE, "watch", "watch rocket-1");
    answered(&s, DAVE, "rocket-1 is not watchable");
    // Only a moderator: a player's `watchable on` is no command of theirs.
    s.reply(BOB, &bob, "watchable on");
    let _ = s.process();
    s.reply(ALICE, &moderating, "watchable on");
    let sent = s.process();
    let answer = to(&sent, ALICE)
        .into_iter()
        .find(|m| m.subject.contains("You moderate"))
        .expect("the answer")
        .clone();
    assert!(
        answer.text.contains("rocket-1 is watchable"),
        "{}",
        answer.text
    );
    assert!(
        one(&sent, BOB)
            .text
            .contains("A moderator made this game watchable"),
        "everyone is told: {sent:#?}"
    );
    s_watch(&mut s, "rocket-1");
    // Off: those who watch stop, and are told, once.
    let out = s.ok(&["mod", "rocket-1", "watchable", "off"]);
    assert!(out.contains("1 observer(s) no longer watch it"), "{out}");
    let sent = s.process();
    let told = one(&sent, CAROL);
    assert!(
        told.text
            .contains("a moderator closed this game to observers"),
        "{}",
        told.text
    );
    assert!(
        told.subject.contains("watched"),
        "in her thread: {}",
        told.subject
    );
    assert!(
        one(&sent, BOB)
            .text
            .contains("closed this game to observers")
    );
    s.ok(&["mod", "rocket-1", "note", "quiet now"]);
    assert!(to(&s.process(), CAROL).is_empty());
    s.deliver(CAROL, "watch", None, "watch rocket-1");
    answered(&s, CAROL, "rocket-1 is not watchable");
    let again = s.sm(&["mod", "rocket-1", "watchable", "off"]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("not watchable already"));
}

#[test]
fn the_creator_makes_a_forming_game_watchable_or_not_before_the_start() {
    let mut s = Server::new("");
    let made = made(&mut s, "new rocket open");
    s.reply(ALICE, &made, "watchable on");
    let answer = one(&s.process(), ALICE);
    assert!(
        answer.text.contains("rocket-1 is watchable")
            && answer.text.contains("Watchable: once it runs"),
        "{}",
        answer.text
    );
    s.newcomer(BOB, "join", "join rocket-1");
    let seat = one(&s.process(), BOB);
    let _ = s.process();
    s.reply(BOB, &seat, "watchable off");
    answered(&s, BOB, "only the creator of rocket-1");
    s.reply(ALICE, &made, "watchable off");
    let answer = one(&s.process(), ALICE);
    assert!(
        answer.text.contains("rocket-1 is not watchable") && !answer.text.contains("Watchable:"),
        "{}",
        answer.text
    );
    s.reply(ALICE, &made, "start");
    let _ = s.process();
    s.newcomer(CAROL, "watch", "watch rocket-1");
    answered(&s, CAROL, "rocket-1 is not watchable");
}

#[test]
fn a_replaced_player_takes_the_addresses_they_added_with_them() {
    let mut s = Server::new("");
    let (_, bob) = started(&mut s);
    const WORK: &str = "work@example.com";
    s.reply(BOB, &bob, &format!("address add {WORK}"));
    let ask = one(&s.process(), WORK);
    s.reply(
        WORK,
        &ask,
        &format!("confirm {}", code_after(&ask.text, "confirm")),
    );
    let _ = one(&s.process(), WORK);
    s.deliver(WORK, "games", None, "games");
    answered(&s, WORK, "rocket-1");

    s.ok(&["mod", "rocket-1", "replace", "bob", "erin@example.net"]);
    let sent = s.process();
    let erin = to(&sent, "erin@example.net")
        .into_iter()
        .find(|m| m.text.contains("Welcome to rocket-1"))
        .expect("erin's welcome")
        .clone();
    s.deliver(WORK, "games", None, "games");
    let list = one(&s.process(), WORK);
    assert!(list.text.contains("plays in no game here"), "{}", list.text);
    // Not erin's either: with her key, an intruder's mail.
    s.reply(WORK, &erin, "map");
    let sent = s.process();
    assert!(to(&sent, WORK).is_empty(), "{sent:#?}");
    assert!(
        one(&sent, "erin@example.net")
            .subject
            .contains("Someone tried to give orders as you")
    );
}

/// The help a player gets by mail lists every site command the players'
/// guide (docs/players.md, the table of the server's commands) gives:
/// `games` and `bump` were once missing from it.
#[test]
fn the_help_by_mail_lists_every_site_command_of_the_players_guide() {
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/players.md"))
        .expect("docs/players.md");
    let table = guide
        .split("| command | where | what |")
        .nth(1)
        .expect("the guide's table of site commands");
    let help = stationmaster::service::site::help_text();
    let mut read = 0;
    for row in table.lines().skip(2).take_while(|l| l.starts_with('|')) {
        let form = row.split('`').nth(1).expect("a command in backticks");
        // The command's own words, before its first placeholder.
        let words: Vec<&str> = form
            .split_whitespace()
            .take_while(|w| w.chars().all(|c| c.is_ascii_lowercase()))
            .collect();
        let command = words.join(" ");
        assert!(
            help.contains(&format!("\n  {command}")),
            "`{command}` is in docs/players.md but not in the help:\n{help}"
        );
        read += 1;
    }
    assert!(read >= 14, "{read} commands read from the guide");
}
