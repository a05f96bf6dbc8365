//! A player's mail program, as the end-to-end tests over the loopback stack
//! (`e2e`, `linie1_e2e`, `site_e2e`) play it: an IMAP login, a mail parsed
//! back with `mail_parser` as a mail program shows it, and a player's INBOX
//! read from the UID it had when the test began.

#![allow(dead_code)]

use std::net::TcpStream;
use std::time::Duration;

use mail_parser::MessageParser;

/// The processor's address: gm's mailbox, which plus-addresses
/// (`gm+rocket-1.KEY@example.test`) reach too.
pub const PROCESSOR: &str = "gm@example.test";
/// How often a wait looks again.
pub const POLL: Duration = Duration::from_millis(100);
/// How long a wait waits before it gives up, saying what it waited for.
pub const PATIENCE: Duration = Duration::from_secs(30);

pub type Session = imap::Session<TcpStream>;

/// Logs in as `user` (password `{user}pw`, as `.ci/mailstack.sh` makes them).
pub fn login(port: u16, user: &str) -> Session {
    let tcp = TcpStream::connect(("127.0.0.1", port))
        .unwrap_or_else(|e| panic!("cannot reach IMAP on 127.0.0.1:{port}: {e}"));
    tcp.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut client = imap::Client::new(tcp);
    client.read_greeting().unwrap();
    client
        .login(user, format!("{user}pw"))
        .map_err(|(e, _)| e)
        .unwrap_or_else(|e| panic!("IMAP login as {user}: {e}"))
}

/// A mail a player got, parsed back with mail_parser.
#[derive(Clone, Debug)]
pub struct Got {
    pub uid: u32,
    pub message_id: String,
    pub subject: String,
    /// The addresses, lower case.
    pub from: String,
    pub to: String,
    pub reply_to: String,
    pub in_reply_to: Option<String>,
    pub references: Vec<String>,
    pub auto_submitted: Option<String>,
    /// The text part, with `\n` line ends.
    pub text: String,
    pub html: String,
}

/// Parses mail `uid` as a mail program would.
pub fn parse(uid: u32, raw: &[u8]) -> Got {
    let m = MessageParser::default()
        .parse(raw)
        .unwrap_or_else(|| panic!("uid {uid} does not parse"));
    let addr = |a: Option<&mail_parser::Address<'_>>| {
        a.and_then(|a| a.first())
            .and_then(|a| a.address())
            .unwrap_or_default()
            .to_ascii_lowercase()
    };
    Got {
        uid,
        message_id: m.message_id().unwrap_or_default().to_string(),
        subject: m.subject().unwrap_or_default().to_string(),
        from: addr(m.from()),
        to: addr(m.to()),
        reply_to: addr(m.reply_to()),
        in_reply_to: m.in_reply_to().as_text().map(str::to_string),
        references: m
            .references()
            .as_text_list()
            .map(|l| l.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default(),
        auto_submitted: m.header_raw("Auto-Submitted").map(|v| v.trim().to_string()),
        text: crate::flowed::text_part(&m)
            .map(|t| t.replace("\r\n", "\n"))
            .unwrap_or_default(),
        html: m.body_html(0).map(|t| t.into_owned()).unwrap_or_default(),
    }
}

/// A UID set for FETCH and STORE: `1,2,5`.
pub fn uid_list(uids: &[u32]) -> String {
    uids.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Deletes these mails of the selected mailbox (flagged, then expunged).
pub fn delete(session: &mut Session, uids: &[u32]) {
    if uids.is_empty() {
        return;
    }
    let set = uid_list(uids);
    session.uid_store(&set, "+FLAGS (\\Deleted)").unwrap();
    session.uid_expunge(&set).unwrap();
}

/// Deletes from gm's INBOX the mails whose Message-ID carries `run` (a
/// test run's own tag), so that the next run starts without them.
pub fn delete_run(gm: &mut Session, run: &str) {
    gm.select("INBOX").unwrap();
    let mut uids: Vec<u32> = gm
        .uid_search(format!("HEADER Message-ID \"{run}\""))
        .unwrap()
        .into_iter()
        .collect();
    uids.sort_unstable();
    delete(gm, &uids);
}

/// A player's INBOX, read like a mail program does: everything that came
/// from [`PROCESSOR`] since the test began, in arrival order.
pub struct PlayerBox {
    pub session: Session,
    /// The first UID not read yet.
    pub next_uid: u32,
    /// Every mail from [`PROCESSOR`] since the test began.
    pub got: Vec<Got>,
}

impl PlayerBox {
    pub fn open(port: u16, user: &str) -> PlayerBox {
        let mut session = login(port, user);
        let mb = session.select("INBOX").unwrap();
        PlayerBox {
            session,
            next_uid: mb.uid_next.unwrap_or(1),
            got: Vec::new(),
        }
    }

    /// Reads what arrived since the last poll.
    pub fn poll(&mut self) {
        self.session.select("INBOX").unwrap();
        let mut uids: Vec<u32> = self
            .session
            .uid_search(format!("UID {}:*", self.next_uid))
            .unwrap()
            .into_iter()
            .filter(|u| *u >= self.next_uid)
            .collect();
        if uids.is_empty() {
            return;
        }
        uids.sort_unstable();
        let fetches = self
            .session
            .uid_fetch(uid_list(&uids), "(UID BODY.PEEK[])")
            .unwrap();
        let mut mails: Vec<Got> = fetches
            .iter()
            .filter_map(|f| Some(parse(f.uid?, f.body()?)))
            .filter(|m| m.from == PROCESSOR)
            .collect();
        mails.sort_by_key(|m| m.uid);
        self.got.extend(mails);
        self.next_uid = uids.last().copied().unwrap_or(0) + 1;
    }

    /// Deletes these of its mails from the INBOX.
    pub fn delete(&mut self, uids: &[u32]) {
        self.session.select("INBOX").unwrap();
        delete(&mut self.session, uids);
    }
}
