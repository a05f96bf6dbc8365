//! Issue 38: the text part of every mail is `format=flowed` (RFC 3676),
//! its prose wrapped at 72 columns, its maps, tables and quoted orders
//! fixed lines. [`check`] reads one mail as the server sent it: every text
//! part says `format=flowed` (`delsp=no`); no line starts as a quote or
//! with `From `; no prose line is longer than 72 columns (plus the space
//! that ends a line that goes on); no map or table row is broken; the map,
//! the hints and the player's quoted lines are there exactly, each on a
//! line of its own; and read back as a mail program that knows the format
//! reads it, every event told is one the game tells, whole. A game of
//! Rocket is played to the end by mail here, every mail checked; Linie 1's
//! whole game in `linie1_mail` checks its mails the same way.
//!
//! [`text_part`] is a mail's text as such a reader reads it: the tests
//! that read our mail read it so.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::AtomicBool;

use chrono::{DateTime, Utc};
use mail_parser::{Message, MessageParser, MimeHeaders};
use stationmaster::config::Config;
use stationmaster::daemon::{self, Daemon};
use stationmaster::engine::{AnyGame, PlayerSetup, Seat, Setup, Status, Viewer};
use stationmaster::mail::OutMail;
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport::{MemoryInbound, MemoryOutbound};
use stationmaster::registry::BoardSource;
use stationmaster::service::report;
use stationmaster::store::{GameId, LogEntry, Store};
use tempfile::TempDir;

/// The longest prose line, not counting the space that ends a line that
/// goes on.
const WIDTH: usize = 72;

/// The lines of a flowed text as a reader joins them (RFC 3676, 4.1 to
/// 4.5, written here apart from the server's): each with the number of
/// lines it was sent in. A line ending in a space goes on in the next one
/// of the same quote depth, but the signature separator `-- `; one leading
/// space (stuffing) is taken off.
fn read_flowed(text: &str, delsp: bool) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut open: Option<usize> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let depth = line.chars().take_while(|c| *c == '>').count();
        let body = &line[depth..];
        let body = body.strip_prefix(' ').unwrap_or(body);
        let flows = body.ends_with(' ') && body != "-- ";
        let piece = if flows && delsp {
            &body[..body.len() - 1]
        } else {
            body
        };
        match (open, out.last_mut()) {
            (Some(d), Some((joined, n))) if d == depth => {
                joined.push_str(piece);
                *n += 1;
            }
            _ => out.push((format!("{}{piece}", ">".repeat(depth)), 1)),
        }
        open = flows.then_some(depth);
    }
    out
}

/// The text part of `m` as a mail program that knows `format=flowed`
/// reads it (lines joined, stuffing taken off; as it is where the part is
/// not flowed), with the line ends it came with.
pub fn text_part(m: &Message<'_>) -> Option<String> {
    let text = m.body_text(0)?;
    let part = m.text_body.first().and_then(|id| m.parts.get(*id as usize));
    let ct = part.and_then(|p| p.content_type());
    let flowed = ct
        .and_then(|c| c.attribute("format"))
        .is_some_and(|f| f.eq_ignore_ascii_case("flowed"));
    if !flowed {
        return Some(text.into_owned());
    }
    let delsp = ct
        .and_then(|c| c.attribute("delsp"))
        .is_some_and(|d| d.eq_ignore_ascii_case("yes"));
    let end = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<String> = read_flowed(&text, delsp)
        .into_iter()
        .map(|(l, _)| l)
        .collect();
    Some(lines.join(end))
}

/// True if `line` is laid out as a map or table is: in columns (a run of
/// three spaces, or of two but not after a sentence's end, after its
/// indent; a tab; or an indent of eight or more, a cell that runs on),
/// drawn (box-drawing or block characters), or quoted (`>` first after its
/// indent).
fn looks_fixed(line: &str) -> bool {
    let text = line.trim_start_matches(' ');
    let words: Vec<&str> = text.trim_end().split(' ').collect();
    let gap = words
        .windows(3)
        .any(|w| w[1].is_empty() && !w[0].is_empty() && !w[0].ends_with(['.', '!', '?', ':', ';']));
    text.starts_with('>')
        || line.len() - text.len() >= 8
        || text.trim_end().contains("   ")
        || gap
        || text.contains('\t')
        || text.chars().any(|c| ('\u{2500}'..='\u{259F}').contains(&c))
}

/// What a mail must show as the game stands when it was sent.
#[derive(Default)]
pub struct Expect {
    /// The map as the game draws it: a mail that shows it shows it whole,
    /// a line a row.
    pub map: String,
    /// The reader's "You can:" lines, as a report shows them.
    pub hints: Option<Vec<String>>,
    /// Lines the answer to the reader's own mail shows as they are (its
    /// orders quoted, the lines not read as orders).
    pub exact: Vec<String>,
    /// Every line "Since your last report:" may hold for the reader (each
    /// after its indent of two).
    pub events: Option<BTreeSet<String>>,
}

/// What [`check`] found to compare in a mail.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    /// The map, whole.
    pub map: bool,
    /// The hints.
    pub hints: bool,
    /// Lines of the answer shown exactly.
    pub exact: usize,
    /// Events, whole.
    pub events: usize,
    /// Prose lines broken into more than one.
    pub wrapped: usize,
}

impl std::ops::AddAssign for Checked {
    fn add_assign(&mut self, o: Checked) {
        self.map |= o.map;
        self.hints |= o.hints;
        self.exact += o.exact;
        self.events += o.events;
        self.wrapped += o.wrapped;
    }
}

/// Checks `mail` as the module says; panics with the mail's text part as
/// sent where it is wrong. The text read back, and what was compared.
pub fn check(mail: &OutMail, expect: &Expect) -> (String, Checked) {
    let m = MessageParser::default()
        .parse(&mail.bytes)
        .expect("our mail parses");
    let what = format!(
        "the mail to {} ({:?})",
        mail.to.join(","),
        m.subject().unwrap_or_default()
    );
    for part in &m.parts {
        let Some(ct) = part.content_type() else {
            continue;
        };
        if ct.ctype().eq_ignore_ascii_case("text") && ct.subtype() == Some("plain") {
            assert_eq!(ct.attribute("format"), Some("flowed"), "{what}");
            assert_eq!(ct.attribute("charset"), Some("utf-8"), "{what}");
            assert!(ct.attribute("delsp").is_none_or(|d| d == "no"), "{what}");
        }
    }
    let sent = m.body_text(0).expect("a text part").replace("\r\n", "\n");
    let html = m.body_html(0).unwrap_or_default();
    assert!(
        !sent.contains('\u{FDD0}') && !html.contains('\u{FDD0}'),
        "{what}: a mark of the server's went out"
    );
    let fail = |why: String| -> ! { panic!("{what}: {why}\n--- as sent:\n{sent}") };
    // The lines the test knows to be fixed (a hint's second line need not
    // look it).
    let known: BTreeSet<&str> = expect
        .map
        .lines()
        .map(str::trim_end)
        .chain(expect.hints.iter().flatten().map(String::as_str))
        .chain(expect.exact.iter().map(String::as_str))
        .collect();
    for line in sent.split('\n') {
        let width = line.chars().count();
        if line.starts_with('>') || line.starts_with("From ") {
            fail(format!("{line:?} is not stuffed"));
        }
        if line.ends_with(' ') && line != "-- " {
            // (A word longer than the line stays whole.)
            if width > WIDTH + 1 && line.trim().contains(' ') {
                fail(format!("{line:?} ({width} columns) goes on past 72"));
            }
        } else if width > WIDTH
            && !looks_fixed(line)
            && !known.contains(line.strip_prefix(' ').unwrap_or(line))
        {
            fail(format!("prose {line:?} is {width} columns"));
        }
    }
    let lines = read_flowed(&sent, false);
    let mut checked = Checked::default();
    for (line, n) in &lines {
        if *n > 1 {
            if looks_fixed(line) {
                fail(format!("the fixed line {line:?} was broken"));
            }
            checked.wrapped += 1;
        }
    }
    let text: Vec<String> = lines.iter().map(|(l, _)| l.clone()).collect();
    checked.map = check_map(&lines, &expect.map).unwrap_or_else(|e| fail(e));
    checked.hints = check_hints(&lines, expect.hints.as_deref()).unwrap_or_else(|e| fail(e));
    checked.exact = check_exact(&lines, &expect.exact).unwrap_or_else(|e| fail(e));
    checked.events = check_events(&lines, expect.events.as_ref()).unwrap_or_else(|e| fail(e));
    (text.join("\n"), checked)
}

/// Where `lines` hold the map's first row, they hold the whole map there,
/// each row a line as it was sent.
fn check_map(lines: &[(String, usize)], map: &str) -> Result<bool, String> {
    let rows: Vec<&str> = map.lines().map(str::trim_end).collect();
    let Some(first) = rows.first().filter(|r| !r.is_empty()) else {
        return Ok(false);
    };
    let Some(at) = lines.iter().position(|(l, _)| l == first) else {
        return Ok(false);
    };
    for (i, row) in rows.iter().enumerate() {
        match lines.get(at + i) {
            Some((l, 1)) if l == row => {}
            got => return Err(format!("map row {i} is {got:?}, not {row:?}")),
        }
    }
    Ok(true)
}

/// Where `lines` say "You can:", the hints follow, each line as it is.
fn check_hints(lines: &[(String, usize)], hints: Option<&[String]>) -> Result<bool, String> {
    let Some(hints) = hints else {
        return Ok(false);
    };
    let Some(at) = lines.iter().position(|(l, _)| l == "You can:") else {
        return Ok(false);
    };
    for (i, h) in hints.iter().enumerate() {
        match lines.get(at + 1 + i) {
            Some((l, 1)) if l == h => {}
            got => return Err(format!("hint {i} is {got:?}, not {h:?}")),
        }
    }
    Ok(true)
}

/// Where `lines` answer the reader's mail ("Your mail"), each of `exact`
/// is a line of them as it is.
fn check_exact(lines: &[(String, usize)], exact: &[String]) -> Result<usize, String> {
    if !lines.iter().any(|(l, _)| l.starts_with("Your mail")) {
        return Ok(0);
    }
    for e in exact {
        if !lines.iter().any(|(l, n)| l == e && *n == 1) {
            return Err(format!("no line {e:?} as it is"));
        }
    }
    Ok(exact.len())
}

/// Every line after "Since your last report:" (to the blank line) is one
/// the reader may be told, whole.
fn check_events(
    lines: &[(String, usize)],
    events: Option<&BTreeSet<String>>,
) -> Result<usize, String> {
    let (Some(events), Some(at)) = (
        events,
        lines
            .iter()
            .position(|(l, _)| l == "Since your last report:"),
    ) else {
        return Ok(0);
    };
    let told: Vec<&String> = lines[at + 1..]
        .iter()
        .map(|(l, _)| l)
        .take_while(|l| !l.is_empty())
        .collect();
    for line in &told {
        let event = line.strip_prefix("  ").unwrap_or(line);
        if !events.contains(event) {
            return Err(format!("{line:?} is no event the game tells"));
        }
    }
    Ok(told.len())
}

/// The "You can:" lines of `seat`'s report, as the report lays them out.
fn hint_lines(game: &dyn AnyGame, seat: Seat) -> Vec<String> {
    game.hints(seat)
        .iter()
        .flat_map(|h| {
            format!("  {}", h.replace('\n', "\n  "))
                .lines()
                .map(|l| l.trim_end().to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// What a mail to `viewer` must show of `game` after its log `log`.
pub fn expect_for(game: &dyn AnyGame, log: &[LogEntry], viewer: Viewer) -> Expect {
    let hints = match viewer {
        Viewer::Player(seat) => Some(hint_lines(game, seat)),
        _ => None,
    };
    let events = report::event_lines(game, log, viewer)
        .expect("the log reads")
        .into_iter()
        .collect();
    // A player with a layer of their own (Linie 1's route) is sent their
    // own map while the game runs; once a moderator aborted it, everyone
    // the spectator's.
    let aborted = log
        .iter()
        .any(|e| e.kind == stationmaster::store::EntryKind::Act && e.order == "abort");
    let map = match aborted {
        true => game.render_map(),
        false => game.render_map_to(viewer),
    };
    Expect {
        map: map.text,
        hints,
        exact: Vec::new(),
        events: Some(events),
    }
}

const PLAYERS: [&str; 3] = ["alice", "bob", "cecil"];
const MODERATOR: &str = "mod@example.org";

/// A game of Rocket by mail on in-memory transports, every mail it sends
/// checked.
struct Table {
    _dir: TempDir,
    daemon: Daemon,
    inbox: MemoryInbound,
    outbox: MemoryOutbound,
    id: GameId,
    keys: Vec<String>,
    mod_key: String,
    now: DateTime<Utc>,
    n: usize,
    mails: usize,
    checked: Checked,
}

impl Table {
    fn new() -> Table {
        let dir = TempDir::new().unwrap();
        let store = Store::open(&dir.path().join("db")).unwrap();
        let (inbox, outbox) = (MemoryInbound::new(), MemoryOutbound::new());
        let mut config = Config::default();
        config.mail.address = "sm@example.org".into();
        config.store.archive = dir.path().join("archive");
        // The picture is no part of the text, and costs time.
        config.mail.pictures = false;
        let daemon = Daemon::new(
            store,
            config,
            Templates::load(None).unwrap(),
            BoardSource::embedded(),
            Box::new(inbox.clone()),
            Box::new(outbox.clone()),
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
        let id = daemon::create_game(
            &daemon.ctx(),
            &setup,
            Default::default(),
            vec![MODERATOR.to_string()],
            now,
        )
        .unwrap();
        let meta = daemon.store().meta(&id).unwrap();
        let mut t = Table {
            _dir: dir,
            daemon,
            inbox,
            outbox,
            id,
            keys: meta.tokens,
            mod_key: meta.moderator_tokens[MODERATOR].clone(),
            now,
            n: 0,
            mails: 0,
            checked: Checked::default(),
        };
        t.process(&[], None);
        t
    }

    fn game(&self) -> Box<dyn AnyGame> {
        self.daemon.store().load(&self.id).unwrap().game
    }

    /// One cycle; every mail it sent checked against the game after it,
    /// the answer to `from` against `exact`. The mails, read back.
    fn process(&mut self, exact: &[String], from: Option<&str>) -> Vec<(String, String)> {
        self.daemon
            .process(self.now, &AtomicBool::new(false))
            .unwrap();
        let game = self.game();
        let log = self.daemon.store().log(&self.id).unwrap();
        let mut expected: HashMap<String, Expect> = HashMap::new();
        let mut out = Vec::new();
        for mail in self.outbox.take() {
            let to = mail.to.join(",");
            let expect = expected.entry(to.clone()).or_insert_with(|| {
                let viewer = match PLAYERS
                    .iter()
                    .position(|p| format!("{p}@example.org") == to)
                {
                    Some(s) => Viewer::Player(Seat(s as u8)),
                    None if to == MODERATOR => Viewer::Moderator,
                    None => Viewer::Spectator,
                };
                expect_for(&*game, &log, viewer)
            });
            expect.exact = if from == Some(to.as_str()) {
                exact.to_vec()
            } else {
                Vec::new()
            };
            let (text, checked) = check(&mail, expect);
            self.checked += checked;
            self.mails += 1;
            out.push((to, text));
        }
        out
    }

    /// A mail from player `seat` with `body`; the mails it caused.
    fn send(&mut self, seat: usize, body: &[String], exact: &[String]) -> Vec<(String, String)> {
        let (from, key) = (
            format!("{}@example.org", PLAYERS[seat]),
            self.keys[seat].clone(),
        );
        self.push(&from, &key, &body.join("\n"));
        self.process(exact, Some(&from))
    }

    fn moderate(&mut self, body: &str) -> Vec<(String, String)> {
        let key = self.mod_key.clone();
        self.push(MODERATOR, &key, body);
        self.process(&[], None)
    }

    fn push(&mut self, from: &str, key: &str, body: &str) {
        self.n += 1;
        self.inbox.push(format!(
            "From: {from}\r\nTo: sm@example.org\r\nSubject: Re: [{} {key}] Stephenson's Rocket\r\n\
             Message-ID: <f{}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            self.id, self.n
        ));
    }
}

/// The answer to `who`'s mail among `mails`.
fn answer<'a>(mails: &'a [(String, String)], who: &str) -> &'a str {
    mails
        .iter()
        .find(|(to, text)| to == &format!("{who}@example.org") && text.contains("Your mail"))
        .map(|(_, text)| text.as_str())
        .unwrap_or_else(|| panic!("no answer to {who}: {mails:#?}"))
}

const CHATTER: &str =
    "Hello all, here is my move for today; I thought about it for a long while over tea.";

/// A whole game of Rocket by mail, as players play it: orders one a mail
/// (chosen among the legal ones, extensions first so that the game ends),
/// now and then with a greeting, a refused order, `help`, `map`, table
/// talk, `reports short`, a moderator's note and preview; then `history`.
/// Every mail is checked ([`check`]).
#[test]
fn every_mail_of_a_whole_game_of_rocket_by_mail_is_flowed_its_fixed_lines_exact() {
    let mut t = Table::new();
    let mut rng = stationmaster::engine::rng::SplitMix64::new(11);
    let mut step = 0;
    loop {
        let game = t.game();
        let Status::Active(awaited) = game.status() else {
            break;
        };
        step += 1;
        assert!(step < 2000, "the game did not end");
        let seat = awaited[0].seat.index();
        let player = PLAYERS[seat];
        match step {
            2 => {
                t.send(seat, &["help".into()], &[]);
            }
            4 => {
                t.send(seat, &["map".into()], &[]);
            }
            6 => {
                t.moderate(
                    "note Tea is served in the station buffet at five, and the 17:04 to \
                     Manchester leaves from platform 2 today.",
                );
            }
            8 => {
                t.send(2, &["reports short".into()], &[]);
            }
            10 => {
                t.send(
                    0,
                    &["say Good luck to all of you, and may the best railway win the day!".into()],
                    &[],
                );
            }
            _ if step % 11 == 5 => {
                let wrong = "extend gwr z99".to_string();
                let got = t.send(
                    seat,
                    std::slice::from_ref(&wrong),
                    &[format!("  > {wrong}")],
                );
                assert!(answer(&got, player).contains("Nothing was applied."));
            }
            _ => {}
        }
        let legal = game.legal_order_lines(Seat(seat as u8));
        if step == 12 {
            t.moderate(&format!("preview {player} {}", legal[0]));
        }
        let extends: Vec<&String> = legal.iter().filter(|l| l.starts_with("extend")).collect();
        let line = if !extends.is_empty() && rng.below(4) > 0 {
            extends[rng.below(extends.len())].clone()
        } else {
            legal[rng.below(legal.len())].clone()
        };
        let mut body = vec![line.clone()];
        let mut exact = vec![format!("  > {line}")];
        if step % 7 == 3 {
            body.insert(0, CHATTER.to_string());
            exact.push(format!("  {CHATTER}"));
        }
        let got = t.send(seat, &body, &exact);
        answer(&got, player);
    }
    // The whole log, in `history`: every line whole.
    let got = t.send(0, &["history".into()], &[]);
    let text = answer(&got, "alice");
    let log = t.daemon.store().log(&t.id).unwrap();
    let history = report::history_lines(&*t.game(), &log, Viewer::Player(Seat(0))).unwrap();
    let lines: BTreeSet<&str> = text.lines().collect();
    for h in &history {
        for line in h.lines() {
            assert!(lines.contains(line), "{line:?} is not whole in\n{text}");
        }
    }
    let c = t.checked;
    assert!(
        t.mails > 300 && c.map && c.hints && c.exact > 50 && c.events > 300 && c.wrapped > 300,
        "{} mails: {c:?}",
        t.mails
    );
}
