//! The games on the web (issue 38, points 3 and 7): with `[web]` set, a
//! page per game and an index, written once each change is committed, by
//! the daemon's cycle (mail in) and by the command line (`new`, `order`);
//! every mail links its game's page; the index lists a game not made
//! `watchable` only when the operator says so; the daemon writes the pages
//! missing or behind when it starts. Every page of a whole game of each
//! kind, played to its end, is read for every player's secrets (Rocket's
//! money, rulings 13; Linie 1's line and route cards, rulings 4) and for
//! what is never public (addresses, keys, the seed, table talk). In
//! headless Chromium, a page at a phone's and a desktop's width shows the
//! board's picture, scaled to the width, as its SVG draws it. Without
//! `[web]`, a game's last mail attaches its archive as one HTML file and
//! names no path on the server.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use chrono::{DateTime, Utc};
use mail_parser::{MessageParser, MimeHeaders};
use stationmaster::config::Config;
use stationmaster::daemon::{self, Daemon};
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{AnyGame, Game, Seat, Setup, Status, Viewer};
use stationmaster::local::GameSpec;
use stationmaster::mail::OutMail;
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport::{MemoryInbound, MemoryOutbound};
use stationmaster::registry::BoardSource;
use stationmaster::service::Ctx;
use stationmaster::store::{GameId, Store};
use tempfile::TempDir;

use crate::common::{self, ABC};
use crate::pictures::{LAND, SEA, chromium, rgb_pixels, screenshot};

/// Where the test's site is served.
const URL: &str = "https://games.example.org/";

/// A site moderator's address.
const GM: &str = "gm@example.org";

/// A seed whose digits no page has any other reason to show.
const SEED: u64 = 8_347_120_995_531_662_407;

/// A config for a site in `dir`: pages in `dir/web` where `web`.
fn config(dir: &Path, web: bool) -> Config {
    let mut c = Config::default();
    c.mail.address = "sm@example.org".into();
    // The mails' pictures are not what is read here.
    c.mail.pictures = false;
    c.store.path = dir.join("db");
    c.store.archive = dir.join("archive");
    if web {
        c.web.dir = Some(dir.join("web"));
        c.web.url = Some(URL.into());
    }
    c
}

/// A daemon on in-memory transports over `config`, and one game made by
/// the command line's `new`.
struct Site {
    dir: TempDir,
    daemon: Daemon,
    inbox: MemoryInbound,
    outbox: MemoryOutbound,
    id: GameId,
    now: DateTime<Utc>,
    /// Mails put in the inbox so far.
    mails: usize,
}

/// A daemon on in-memory transports over the store in `dir`, with the
/// site there where `web`.
fn daemon_on(dir: &Path, web: bool) -> Daemon {
    let config = config(dir, web);
    Daemon::new(
        Store::open(&config.store.path).expect("a store"),
        config,
        Templates::load(None).expect("the templates"),
        BoardSource::embedded(),
        Box::new(MemoryInbound::new()),
        Box::new(MemoryOutbound::new()),
    )
}

impl Site {
    fn new(kind: &str, web: bool, watchable: bool) -> Site {
        let dir = tempfile::tempdir().expect("a temp dir");
        let config = config(dir.path(), web);
        Site::on(dir, config, kind, watchable)
    }

    fn on(dir: TempDir, config: Config, kind: &str, watchable: bool) -> Site {
        let inbox = MemoryInbound::new();
        let outbox = MemoryOutbound::new();
        let daemon = Daemon::new(
            Store::open(&config.store.path).expect("a store"),
            config,
            Templates::load(None).expect("the templates"),
            BoardSource::embedded(),
            Box::new(inbox.clone()),
            Box::new(outbox.clone()),
        );
        let now = DateTime::parse_from_rfc3339("2026-11-23T09:00:00Z")
            .expect("a time")
            .with_timezone(&Utc);
        let setup = setup(kind);
        let spec = GameSpec {
            kind: kind.to_string(),
            players: setup.players,
            options: Vec::new(),
            seed: SEED,
            clock: Default::default(),
            moderators: Vec::new(),
            reports: Default::default(),
            watchable,
        };
        let id = stationmaster::local::new_game(&daemon.ctx(), spec, now).expect("a game");
        Site {
            dir,
            daemon,
            inbox,
            outbox,
            id,
            now,
            mails: 0,
        }
    }

    fn web(&self) -> PathBuf {
        self.dir.path().join("web")
    }

    /// The folder of the game's page: the one in the site named by its id
    /// (`rocket-1`) or by its id and a key (`rocket-1-…`).
    fn folder(&self) -> String {
        let mine = |name: &str| {
            name == self.id.0
                || name
                    .strip_prefix(&format!("{}-", self.id))
                    .is_some_and(|key| key.chars().all(|c| c.is_ascii_hexdigit()))
        };
        let found: Vec<String> = std::fs::read_dir(self.web())
            .expect("the site")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|name| mine(name))
            .collect();
        assert_eq!(found.len(), 1, "one folder of {}: {found:?}", self.id);
        found[0].clone()
    }

    /// The game's page as the web server reads it now.
    fn page(&self) -> String {
        std::fs::read_to_string(self.web().join(self.folder()).join("index.html"))
            .expect("the game's page")
    }

    fn index(&self) -> String {
        std::fs::read_to_string(self.web().join("index.html")).expect("the index")
    }

    fn game(&self) -> Box<dyn AnyGame> {
        self.daemon.store().load(&self.id).expect("the game").game
    }

    /// One cycle: the inbox handled, the outbox sent; what went out.
    fn cycle(&mut self) -> Vec<OutMail> {
        self.daemon
            .process(self.now, &AtomicBool::new(false))
            .expect("a cycle");
        self.outbox.take()
    }

    /// A mail from `seat`'s player with their key, into the inbox.
    fn mail(&mut self, seat: Seat, body: &str) {
        let meta = self.daemon.store().meta(&self.id).expect("the game");
        let record = self.daemon.store().record(&self.id).expect("the game");
        let from = &record.setup.players[seat.index()].email;
        let key = &meta.tokens[seat.index()];
        self.mails += 1;
        let n = self.mails;
        self.inbox.push(format!(
            "From: {from}\r\nTo: sm@example.org\r\nSubject: Re: [{} {key}] Your turn\r\nMessage-ID: <web{n}@example.test>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            self.id
        ));
    }

    /// `line` from the seat awaited, as the command line's `order` gives
    /// it (the page is written once it is committed).
    fn order(&mut self, seat: Seat, line: &str) {
        daemon::apply_local(
            &self.daemon.ctx(),
            &self.id,
            seat,
            &[line.to_string()],
            self.now,
        )
        .unwrap_or_else(|e| panic!("{line}: {e}"));
    }
}

/// A game of `kind` for Andi, Béla and Cecil.
fn setup(kind: &str) -> Setup {
    Setup {
        kind: kind.into(),
        ..common::setup(&ABC, SEED, &[])
    }
}

/// A page's text as a reader sees it: the tags left out, the characters
/// written as references read.
fn visible(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        rest = rest[at..].split_once('>').map_or("", |(_, r)| r);
    }
    out.push_str(rest);
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// The plain text, HTML and attached files of a mail.
struct Read {
    text: String,
    html: String,
    attached: Vec<(String, Vec<u8>)>,
}

fn read(mail: &OutMail) -> Read {
    let m = MessageParser::default()
        .parse(&mail.bytes)
        .expect("our mail parses");
    Read {
        text: crate::flowed::text_part(&m).unwrap_or_default(),
        html: m.body_html(0).map(|t| t.into_owned()).unwrap_or_default(),
        attached: m
            .attachments()
            .map(|a| {
                (
                    a.attachment_name().unwrap_or_default().to_string(),
                    a.contents().to_vec(),
                )
            })
            .collect(),
    }
}

#[test]
fn a_page_and_the_index_follow_every_change_in_its_cycle_and_every_mail_links_it() {
    let mut s = Site::new("rocket", true, true);
    let page_url = format!("{URL}{}/", s.id);
    // `new` wrote the page and the index.
    let page = s.page();
    assert!(page.contains("<meta name=\"viewport\""), "{page}");
    assert!(page.contains("<svg"), "the board's picture, inline");
    assert!(!page.contains("<script"), "no script");
    assert!(visible(&page).contains("Waiting for"), "{page}");
    let index = s.index();
    assert!(
        index.contains(&format!("<a href=\"{}/\">{}</a>", s.id, s.id)),
        "{index}"
    );
    // Public, whatever the umask: the web server reads them as its user.
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).expect("there").permissions().mode() & 0o777;
    assert_eq!(mode(&s.web()), 0o755);
    assert_eq!(s.folder(), s.id.0, "a watchable game's page is at its id");
    assert_eq!(mode(&s.web().join(&s.id.0)), 0o755);
    assert_eq!(mode(&s.web().join(&s.id.0).join("index.html")), 0o644);
    assert_eq!(mode(&s.web().join("index.html")), 0o644);
    let welcomes = s.cycle();
    assert_eq!(welcomes.len(), 3);
    // An order and table talk by mail: the page shows the order after the
    // cycle that applied it, and never the talk.
    let game = s.game();
    let seat = game.awaiting()[0].seat;
    let line = game.legal_order_lines(seat)[0].clone();
    s.mail(seat, &format!("{line}\nsay xyzzy plugh"));
    let before = s.page();
    let reports = s.cycle();
    assert!(!reports.is_empty());
    let after = s.page();
    assert_ne!(before, after, "the page follows the change");
    let log = s.daemon.store().log(&s.id).expect("the log");
    let order = log
        .iter()
        .find(|e| e.kind == stationmaster::store::EntryKind::Order)
        .expect("the order applied");
    assert!(
        visible(&after).contains(&format!("#{} ", order.seq)),
        "the order is in the page's log: {after}"
    );
    assert!(!after.contains("xyzzy"), "no table talk on the web");
    let summary = std::fs::read_to_string(s.web().join(s.folder()).join("page.json"))
        .expect("the index's line of the game");
    let head = s.daemon.store().head(&s.id).expect("the head");
    assert!(summary.contains(&head.last_hash), "{summary}");
    // A refused mail changes nothing, so neither does the page.
    s.mail(seat, "extend nowhere z99");
    let refusal = s.cycle();
    assert_eq!(s.page(), after, "no page for what was not applied");
    // Every mail about the game links its page, in both parts.
    for mail in welcomes.iter().chain(&reports).chain(&refusal) {
        let r = read(mail);
        assert!(r.text.contains(&page_url), "{}", r.text);
        assert!(
            r.html.contains(&format!("href=\"{page_url}\"")),
            "{}",
            r.html
        );
        assert!(!r.text.contains("var/archive"), "{}", r.text);
    }
}

#[test]
fn the_index_lists_a_game_not_made_watchable_only_when_the_operator_says_so() {
    let s = Site::new("rocket", true, false);
    assert!(
        s.page().contains("<svg"),
        "its page is written all the same"
    );
    let folder = s.folder();
    assert!(!s.index().contains(&folder), "{}", s.index());
    let mut all = config(s.dir.path(), true);
    all.web.list_unwatchable = true;
    let templates = Templates::load(None).expect("the templates");
    let boards = BoardSource::embedded();
    let ctx = Ctx {
        store: s.daemon.store(),
        config: &all,
        templates: &templates,
        boards: &boards,
    };
    stationmaster::service::web::refresh(&ctx, std::slice::from_ref(&s.id));
    let link = format!("<a href=\"{folder}/\">{}</a>", s.id);
    assert!(s.index().contains(&link), "{}", s.index());
}

/// The links to `url` in a mail's two parts.
fn links(mail: &OutMail, url: &str) -> (bool, bool) {
    let r = read(mail);
    (
        r.text.contains(url),
        r.html.contains(&format!("href=\"{url}\"")),
    )
}

#[test]
fn a_game_not_watchable_is_at_an_address_only_its_mail_gives_and_moves_with_watchable() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut config = config(dir.path(), true);
    config.site.moderators = vec![GM.to_string()];
    let mut s = Site::on(dir, config, "rocket", false);
    // Not at the address anyone can guess: the id and a key of 16 digits.
    let hidden = s.folder();
    let key = hidden.strip_prefix("rocket-1-").expect("the id and a key");
    assert_eq!(key.len(), 16, "{hidden}");
    assert!(!s.web().join("rocket-1").exists());
    let (plain_url, hidden_url) = (format!("{URL}rocket-1/"), format!("{URL}{hidden}/"));
    // Every player's and the moderator's welcome links it, in both parts;
    // none names the other.
    let welcomes = s.cycle();
    assert_eq!(welcomes.len(), 4);
    assert!(welcomes.iter().any(|m| m.to[0] == GM));
    for mail in &welcomes {
        assert_eq!(links(mail, &hidden_url), (true, true), "to {}", mail.to[0]);
        assert_eq!(links(mail, &plain_url), (false, false));
    }
    // An address a player adds is asked to confirm it, and given nothing
    // until it does: it may not be theirs.
    let seat = s.game().awaiting()[0].seat;
    s.mail(seat, "address add stranger@example.net");
    let asked = s.cycle();
    let to_stranger: Vec<&OutMail> = asked
        .iter()
        .filter(|m| m.to[0] == "stranger@example.net")
        .collect();
    assert_eq!(to_stranger.len(), 1, "asked to confirm");
    let r = read(to_stranger[0]);
    assert!(
        !r.text.contains(&hidden) && !r.html.contains(&hidden),
        "{}",
        r.text
    );
    let index = s.index();
    assert!(!index.contains("rocket-1"), "{index}");
    // A moderator makes it watchable: the page moves to the id, the index
    // lists it there, the players' mail links it there.
    let ctx = s.daemon.ctx();
    let out = stationmaster::local::moderate(&ctx, &s.id, "operator", "watchable on", None, s.now)
        .expect("made watchable");
    assert!(out.contains("watchable"), "{out}");
    assert_eq!(s.folder(), "rocket-1");
    // The mails of that change link the page where it went, once.
    let told = s.cycle();
    assert!(!told.is_empty());
    for mail in &told {
        let r = read(mail);
        assert_eq!(
            r.text.matches("rocket-1 on the web:").count(),
            1,
            "{}",
            r.text
        );
        assert!(r.text.contains(&plain_url), "{}", r.text);
    }
    assert!(!s.web().join(&hidden).exists(), "the hidden folder is gone");
    assert!(
        s.index().contains("<a href=\"rocket-1/\">"),
        "{}",
        s.index()
    );
    let game = s.game();
    let seat = game.awaiting()[0].seat;
    s.order(seat, &game.legal_order_lines(seat)[0]);
    let reports = s.cycle();
    assert!(!reports.is_empty());
    for mail in &reports {
        assert_eq!(links(mail, &plain_url), (true, true));
    }
    // And back: the page leaves the address its watchers knew.
    let ctx = s.daemon.ctx();
    stationmaster::local::moderate(&ctx, &s.id, "operator", "watchable off", None, s.now)
        .expect("made unwatchable");
    assert_eq!(s.folder(), hidden, "the same key as before");
    assert!(!s.web().join("rocket-1").exists());
    assert!(!s.index().contains("rocket-1"), "{}", s.index());
}

#[test]
fn the_daemon_writes_the_pages_missing_or_behind_when_it_starts() {
    // A game made and played while the games were not on the web.
    let mut s = Site::new("rocket", false, true);
    let game = s.game();
    let seat = game.awaiting()[0].seat;
    let line = game.legal_order_lines(seat)[0].clone();
    s.order(seat, &line);
    assert!(!s.web().exists());
    let Site {
        dir,
        daemon,
        id,
        now,
        ..
    } = s;
    drop(daemon);
    // The same store with [web]: its first cycle writes the page.
    let mut d = daemon_on(dir.path(), true);
    d.process(now, &AtomicBool::new(false)).expect("a cycle");
    let page_file = dir.path().join("web/rocket-1/index.html");
    let page = std::fs::read_to_string(&page_file).expect("the page");
    assert!(visible(&page).contains(&line), "{page}");
    // A page behind its game (written before its last change) is written
    // again when the daemon starts, and only then.
    let summary = dir.path().join("web/rocket-1/page.json");
    let text = std::fs::read_to_string(&summary).expect("the summary");
    let head = d.store().head(&id).expect("the head").last_hash;
    std::fs::write(&summary, text.replace(&head, "behind")).expect("written");
    std::fs::write(&page_file, "old").expect("written");
    d.process(now, &AtomicBool::new(false)).expect("a cycle");
    assert_eq!(
        std::fs::read_to_string(&page_file).expect("the page"),
        "old"
    );
    drop(d);
    let mut d = daemon_on(dir.path(), true);
    d.process(now, &AtomicBool::new(false)).expect("a cycle");
    assert_eq!(
        std::fs::read_to_string(&page_file).expect("the page"),
        page,
        "drawn again, as it was"
    );
}

#[test]
fn the_daemon_takes_a_page_away_from_the_guessable_address_when_it_starts() {
    let s = Site::new("rocket", true, false);
    let hidden = s.folder();
    // A page of a game not watchable at `URL/GAME/`, as versions before
    // kept every page (with its line of the index beside it), and a folder
    // of the operator's own named like a game, without one.
    let plain = s.web().join("rocket-1");
    std::fs::create_dir(&plain).expect("made");
    std::fs::write(plain.join("index.html"), "the old page").expect("written");
    std::fs::copy(
        s.web().join(&hidden).join("page.json"),
        plain.join("page.json"),
    )
    .expect("copied");
    let own = s.web().join("rocket-2");
    std::fs::create_dir(&own).expect("made");
    std::fs::write(own.join("index.html"), "the operator's").expect("written");
    let Site {
        dir, daemon, now, ..
    } = s;
    drop(daemon);
    let mut d = daemon_on(dir.path(), true);
    d.process(now, &AtomicBool::new(false)).expect("a cycle");
    assert!(!plain.exists(), "the page at the guessable address is gone");
    assert!(own.join("index.html").exists(), "a folder not ours is left");
    let page = dir.path().join("web").join(&hidden).join("index.html");
    assert!(
        std::fs::read_to_string(page)
            .expect("the page")
            .contains("<svg")
    );
}

#[test]
fn check_config_reads_and_checks_the_web_section() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("config.toml");
    let web = dir.path().join("web");
    std::fs::write(
        &file,
        format!(
            "[store]\npath = \"{0}/db\"\narchive = \"{0}/archive\"\n[inbound]\nmaildir = \"{0}/in\"\n[outbound]\ndir = \"{0}/out\"\n[web]\ndir = \"{1}\"\n",
            dir.path().display(),
            web.display()
        ),
    )
    .expect("written");
    let out = stationmaster::local::check_config(Some(&file)).expect("checked");
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("[web] url: empty"), "{}", out.stderr);
    assert!(
        out.stdout
            .contains(&format!("[web] dir: {} can be used", web.display())),
        "{}",
        out.stdout
    );
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, format!("{text}url = \"{URL}\"\n")).expect("written");
    let out = stationmaster::local::check_config(Some(&file)).expect("checked");
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

/// The pixels of PNG `png` near LAND or SEA: their counts, and the
/// columns they span (the picture's width as shown).
fn board_pixels(png: &[u8]) -> (usize, usize, u32, u32) {
    let (width, pixels) = rgb_pixels(png);
    let near = |p: &[u8; 3], c: [u8; 3]| (0..3).all(|i| p[i].abs_diff(c[i]) <= 6);
    let (mut land, mut sea) = (0, 0);
    let (mut left, mut right) = (u32::MAX, 0);
    for (i, p) in pixels.iter().enumerate() {
        let (l, s) = (near(p, LAND), near(p, SEA));
        land += usize::from(l);
        sea += usize::from(s);
        if l || s {
            let x = i as u32 % width;
            left = left.min(x);
            right = right.max(x);
        }
    }
    (land, sea, left, right)
}

#[test]
fn a_page_shows_the_board_as_its_svg_at_a_phone_and_a_desktop_width() {
    let Some(chromium) = chromium() else {
        skip!("no Chromium (apt-get install chromium, as .ci/run does)");
        return;
    };
    let mut s = Site::new("rocket", true, true);
    let game = s.game();
    let seat = game.awaiting()[0].seat;
    let line = game.legal_order_lines(seat)[0].clone();
    s.order(seat, &line);
    let page = s.page();
    let svg = &page[page.find("<svg").expect("the picture")..];
    let svg = &svg[..svg.find("</svg>").expect("its end") + 6];
    // The SVG alone, as drawn at its own size.
    let whole = stationmaster::picture::png_of_svg(svg).expect("rendered");
    let (land, sea, left, right) = board_pixels(&whole.bytes);
    let drawn = f64::from(right - left + 1);
    let file = s.web().join(s.folder()).join("index.html");
    for (width, scaled) in [(400u32, true), (1280, false)] {
        let shot = screenshot(&chromium, s.dir.path(), &file, width);
        let (shot_land, shot_sea, shot_left, shot_right) = board_pixels(&shot);
        let shown = f64::from(shot_right.saturating_sub(shot_left) + 1);
        let scale = shown / drawn;
        let say = format!(
            "at {width} px: the board {shown} px wide against {drawn} (scale {scale:.3}); \
             {shot_land} land and {shot_sea} sea pixels against {land} and {sea}"
        );
        assert!(shot_right < width, "{say}");
        // Scaled down to a phone's width, less the page's margins (8 px a
        // side); at its own size on a desktop.
        let expected = if scaled {
            f64::from(width - 16) / f64::from(whole.width)
        } else {
            1.0
        };
        assert!(
            (scale - expected).abs() < 0.02,
            "{say}: scale {expected:.3} expected"
        );
        // What the SVG draws, at the scale shown: as much land and sea.
        for (got, want) in [(shot_land, land), (shot_sea, sea)] {
            let want = want as f64 * scale * scale;
            let off = (got as f64 - want).abs() / want;
            assert!(off < 0.12, "{say}: {got} against {want:.0}");
        }
    }
}

/// Every player's secrets and what is never public, checked on `html`
/// (a page or the index) while `game` stands as it was written; `private`
/// are the lines only a player reads of the log so far.
struct Secrets {
    /// Strings no page may hold at any time: addresses, keys, the seed.
    never: Vec<String>,
    /// Lines of the log that only one player reads.
    private: HashSet<String>,
    /// Log entries read so far.
    read: usize,
    /// Page versions checked.
    pages: BTreeSet<String>,
}

impl Secrets {
    fn new(s: &Site) -> Secrets {
        let record = s.daemon.store().record(&s.id).expect("the record");
        let meta = s.daemon.store().meta(&s.id).expect("the meta");
        let mut never: Vec<String> = record
            .setup
            .players
            .iter()
            .map(|p| p.email.clone())
            .collect();
        never.extend(meta.tokens.iter().cloned());
        never.push(SEED.to_string());
        Secrets {
            never,
            private: HashSet::new(),
            read: 0,
            pages: BTreeSet::new(),
        }
    }

    /// The lines of the log's new entries and of the status that a player
    /// reads and a spectator does not.
    fn learn(&mut self, s: &Site, game: &dyn AnyGame) {
        use stationmaster::service::report::{event_lines, status_block};
        let log = s.daemon.store().log(&s.id).expect("the log");
        let new = &log[self.read.min(log.len())..];
        self.read = log.len();
        let theirs = |viewer| -> Vec<String> {
            let mut lines = event_lines(game, new, viewer).expect("read");
            lines.extend(status_block(game, None, viewer).lines().map(str::to_string));
            lines.into_iter().map(|l| l.trim().to_string()).collect()
        };
        let public: HashSet<String> = theirs(Viewer::Spectator).into_iter().collect();
        for seat in 0..game.player_names().len() {
            for line in theirs(Viewer::Player(Seat(seat as u8))) {
                if !line.is_empty() && !public.contains(&line) {
                    self.private.insert(line);
                }
            }
        }
    }

    /// Reads every page of the site as it stands for secrets.
    fn check(&mut self, s: &Site, game: &dyn AnyGame) {
        self.learn(s, game);
        let over = matches!(game.status(), Status::Finished(_));
        for html in [s.page(), s.index()] {
            if !self.pages.insert(html.clone()) {
                continue;
            }
            let text = visible(&html);
            for never in &self.never {
                assert!(!text.contains(never.as_str()), "{never} on a page:\n{text}");
            }
            let lines: HashSet<&str> = text.lines().map(str::trim).collect();
            for line in &self.private {
                assert!(
                    !lines.contains(line.as_str()),
                    "a player's line on a page: {line}"
                );
            }
            if !over {
                secrets_of_the_game(game, &text);
            }
        }
    }
}

/// The game's own secrets while it runs: Rocket's money (rulings 13: no
/// amount at all is shown to a spectator); Linie 1's line and route card of
/// each player not yet driving (rulings 4).
fn secrets_of_the_game(game: &dyn AnyGame, text: &str) {
    match game.kind() {
        "rocket" => assert!(!text.contains('£'), "money on a page:\n{text}"),
        _ => {
            for seat in 0..game.player_names().len() {
                let own = game.view_json(Viewer::Player(Seat(seat as u8)));
                let me = &own["players"][seat];
                if me["driving"] == true {
                    continue;
                }
                let card = me["route_card"].as_str().expect("their own card");
                let line = &me["line"];
                for secret in [format!("card {card}"), format!("line {line}, card")] {
                    assert!(!text.contains(&secret), "{secret} on a page:\n{text}");
                }
            }
        }
    }
}

/// Plays the site's game to its end from the command line, `pick`ing each
/// order of the seat awaited, with `each` after every order; the mails of
/// the last change.
fn play_to_the_end(
    s: &mut Site,
    mut pick: impl FnMut(&dyn AnyGame, Seat) -> String,
    mut each: impl FnMut(&Site, &dyn AnyGame),
) -> Vec<OutMail> {
    let mut last = Vec::new();
    for _ in 0..6000 {
        let game = s.game();
        let Status::Active(awaited) = game.status() else {
            return last;
        };
        let seat = awaited[0].seat;
        let line = pick(&*game, seat);
        s.order(seat, &line);
        each(s, &*s.game());
        last = s.cycle();
    }
    panic!("the game did not end");
}

/// Rocket's orders at random, extensions first (so that the game ends).
fn rocket_pick(rng: &mut SplitMix64) -> impl FnMut(&dyn AnyGame, Seat) -> String + '_ {
    move |game, seat| {
        let legal = game.legal_order_lines(seat);
        let extends: Vec<&String> = legal.iter().filter(|l| l.starts_with("extend")).collect();
        if extends.is_empty() {
            legal[rng.below(legal.len())].clone()
        } else {
            extends[rng.below(extends.len())].clone()
        }
    }
}

#[test]
fn no_page_of_a_whole_rocket_game_shows_a_secret_and_its_last_mail_links_its_page() {
    let mut s = Site::new("rocket", true, true);
    let mut secrets = Secrets::new(&s);
    secrets.check(&s, &*s.game());
    let mut rng = SplitMix64::new(5);
    let last = play_to_the_end(&mut s, rocket_pick(&mut rng), |s, game| {
        secrets.check(s, game)
    });
    assert!(secrets.pages.len() > 40, "{} pages", secrets.pages.len());
    let page = visible(&s.page());
    assert!(page.contains("This page is its archive"), "{page}");
    assert!(page.contains("Final scores"), "{page}");
    let index = s.index();
    let over = &index[index.find("<h2>Over</h2>").expect("the finished games")..];
    assert!(over.contains(&format!("{}/", s.id)), "{index}");
    // The last mails link the page, the archive, and attach nothing.
    let page_url = format!("{URL}{}/", s.id);
    let players: Vec<&OutMail> = last.iter().filter(|m| m.to[0].ends_with(".test")).collect();
    assert_eq!(players.len(), 3);
    for mail in players {
        let r = read(mail);
        assert!(r.text.contains("The game is over"), "{}", r.text);
        assert!(
            r.text.contains(&format!("its page on the web, {page_url}")),
            "{}",
            r.text
        );
        assert!(r.attached.is_empty(), "nothing attached");
        assert!(!r.text.contains("var/archive"), "{}", r.text);
    }
}

#[test]
fn no_page_of_a_whole_linie1_game_shows_a_secret() {
    let mut s = Site::new("linie1", true, true);
    let mut secrets = Secrets::new(&s);
    secrets.check(&s, &*s.game());
    // The same game beside the stored one, to choose orders by their kind
    // (common::linie1_pick: a trip started whenever it can be).
    let mut typed = common::linie1_game(&ABC, SEED, &[]);
    let mut rng = SplitMix64::new(11);
    let pick = |_: &dyn AnyGame, seat: Seat| {
        let order = common::linie1_pick(&mut rng, &typed.legal_orders(seat));
        let line = typed.order_text(&order);
        typed.apply(seat, &order).expect("a legal order");
        line
    };
    play_to_the_end(&mut s, pick, |s, game| secrets.check(s, game));
    assert!(secrets.pages.len() > 40, "{} pages", secrets.pages.len());
    assert!(visible(&s.page()).contains("This page is its archive"));
}

#[test]
fn the_last_mail_without_web_carries_the_archive_and_no_server_path() {
    let mut s = Site::new("rocket", false, false);
    let mut rng = SplitMix64::new(5);
    let last = play_to_the_end(&mut s, rocket_pick(&mut rng), |_, _| {});
    assert!(!s.web().exists(), "no site without [web]");
    let archive = s.dir.path().join("archive");
    let place = archive.display().to_string();
    let record = s.daemon.store().record(&s.id).expect("the record");
    let meta = s.daemon.store().meta(&s.id).expect("the meta");
    let players: Vec<&OutMail> = last.iter().filter(|m| m.to[0].ends_with(".test")).collect();
    assert_eq!(players.len(), 3);
    let name = format!("{}.html", s.id);
    for mail in players {
        let r = read(mail);
        assert!(r.text.contains("The game is over"), "{}", r.text);
        for path in [
            place.as_str(),
            "var/archive",
            "on the game's server",
            "on the server",
        ] {
            assert!(!r.text.contains(path), "{path} in\n{}", r.text);
            assert!(!r.html.contains(path), "{path} in\n{}", r.html);
        }
        assert!(
            r.text.contains(&format!("attached to this mail as {name}")),
            "{}",
            r.text
        );
        assert_eq!(r.attached.len(), 1, "one file attached");
        let (file, bytes) = &r.attached[0];
        assert_eq!(file, &name);
        let html = String::from_utf8(bytes.clone()).expect("UTF-8");
        // One self-contained page: the board's picture, the final table
        // and the whole log; nothing it would fetch, no script.
        assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
        assert!(html.contains("<svg"), "the board's picture");
        assert!(
            !html.contains("<script") && !html.contains("src="),
            "{html}"
        );
        assert!(!html.contains("href="), "no link that leads nowhere");
        let text = visible(&html);
        assert!(text.contains("Final scores"), "{text}");
        assert!(text.contains("#1 "), "the whole log: {text}");
        for never in record
            .setup
            .players
            .iter()
            .map(|p| &p.email)
            .chain(&meta.tokens)
        {
            assert!(!text.contains(never.as_str()), "{never} in the archive");
        }
        assert!(!text.contains(&SEED.to_string()), "the seed in the archive");
    }
}
