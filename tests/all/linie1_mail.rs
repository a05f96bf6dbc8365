//! A game of Linie 1 played through the daemon by mail, on in-memory
//! transports with real MIME: `new linie1` and the welcome mails, orders by
//! mail with replies and every player's report, a refused order answered
//! with its reason, missed deadlines under the `skip` and `default`
//! policies, moderators' commands by mail, `history`, `verify`, the JSON
//! view, a trip started and won, and the archive at the end.
//!
//! Throughout, the secrets of rulings 4 are checked: no mail (text and HTML
//! part), no `history`, `log`, `show` or JSON view for another reader, and
//! no archive holds a player's line card, route card or stops before that
//! player starts the trip; after it, they may (and the reports say so).
//!
//! Linie 1 is not won by random play in any reasonable time, so the players
//! here build one player's route together: at the start the test plans a
//! way from one of that player's terminals through their stops to the other
//! (straights and curves only, squares not reused), and every player lays
//! the plan's tiles when their hand has them, and otherwise lays far from
//! the plan and from every building (whose stop sign must go to the plan).
//! Each turn is worked out on a copy of the game read from the daemon's
//! snapshot, then sent as one mail.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::atomic::AtomicBool;

use chrono::{DateTime, Duration, Utc};
use mail_parser::MessageParser;
use serde_json::Value;
use stationmaster::config::Config;
use stationmaster::daemon::{self, Daemon};
use stationmaster::engine::{Game, PlayerSetup, Seat, Setup, Status, Viewer};
use stationmaster::linie1::{Edge, Linie1, Order, Paths, Phase, Square, TerminalId};
use stationmaster::local;
use stationmaster::mail::OutMail;
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport::{MemoryInbound, MemoryOutbound};
use stationmaster::registry::BoardSource;
use stationmaster::store::{GameId, Store};
use tempfile::TempDir;

use crate::common::flat;

const PLAYERS: [&str; 3] = ["alice", "bob", "cecil"];
const MODERATOR: &str = "mod@example.org";
const SEED: u64 = 4;

/// A mail the daemon sent, parsed back.
#[derive(Clone, Debug)]
struct Got {
    to: String,
    subject: String,
    in_reply_to: Option<String>,
    text: String,
    /// The HTML part with its tags taken out and entities read.
    html: String,
}

fn untag(html: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in html.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => out.push(c),
            _ => {}
        }
    }
    let out = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'");
    // Characters written as numbers (`&#9670;`: ◆), then `&amp;` last.
    let mut read = String::new();
    let mut rest = out.as_str();
    while let Some(at) = rest.find("&#") {
        read.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find(';').unwrap_or(0);
        match after[..end].parse::<u32>().ok().and_then(char::from_u32) {
            Some(c) if end > 0 => {
                read.push(c);
                rest = &after[end + 1..];
            }
            _ => {
                read.push_str("&#");
                rest = after;
            }
        }
    }
    read.push_str(rest);
    read.replace("&amp;", "&")
}

fn parse(mail: &OutMail) -> Got {
    let m = MessageParser::default()
        .parse(&mail.bytes)
        .expect("our mail parses");
    Got {
        to: mail.to.join(","),
        subject: m.subject().unwrap_or_default().to_string(),
        in_reply_to: m.in_reply_to().as_text().map(str::to_string),
        text: crate::flowed::text_part(&m)
            .map(|t| t.replace("\r\n", "\n"))
            .unwrap_or_default(),
        html: untag(&m.body_html(0).map(|t| t.into_owned()).unwrap_or_default()),
    }
}

/// One player's secret cards, as text markers that appear in a mail only
/// where the cards are shown: the route card's name after "card " (the own
/// cards' sentence says "route card B5", a driver's row "card B5 (K A)",
/// the trip's start "route card B5"; a bare "B5" would be a square) and the
/// stops after "stops "; and their own layer (issue 35): their route line,
/// which opens with one of their terminals, and their terminals marked
/// `◆` on the map (`2W◆`, `◆2E`).
#[derive(Clone, Debug)]
struct Secret {
    line: u8,
    card: String,
    stops: String,
    terminals: Vec<String>,
}

impl Secret {
    fn markers(&self) -> Vec<String> {
        let mut out = vec![
            format!("card {}", self.card),
            format!("stops {}", self.stops),
            format!("line {}, route card", self.line),
        ];
        for t in &self.terminals {
            out.push(format!("Your route: {t} "));
            // The complete route's line (help's example is `start 1W`).
            out.push(format!("(`start {t}`"));
            out.push(format!("or `start {t}`)"));
            out.push(format!("{t}◆"));
            out.push(format!("◆{t}"));
        }
        out
    }

    /// Whether `text` (a report with the map) shows this player their own
    /// layer: their route line, and their terminals marked.
    fn layer_in(&self, text: &str) -> bool {
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        flat.contains("Your route")
            && self
                .terminals
                .iter()
                .all(|t| flat.contains(&format!("{t}◆")) || flat.contains(&format!("◆{t}")))
    }

    /// The first marker `text` holds, if any (lines joined, so that a
    /// wrapped sentence still counts).
    fn found_in(&self, text: &str) -> Option<String> {
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        self.markers().into_iter().find(|m| flat.contains(m))
    }
}

struct World {
    _dir: TempDir,
    daemon: Daemon,
    inbox: MemoryInbound,
    outbox: MemoryOutbound,
    id: GameId,
    keys: Vec<String>,
    /// The address of each seat (a replaced player's changes).
    addresses: Vec<String>,
    mod_key: String,
    now: DateTime<Utc>,
    n: usize,
    secrets: Vec<Secret>,
    /// Every mail sent so far.
    mails: Vec<Got>,
    /// Mails checked for secrets.
    checked: usize,
    /// What the mails' text parts showed as issue 38 checks them.
    flowed: crate::flowed::Checked,
    /// The test's plan: the player whose route is built, and its tiles.
    builder: Seat,
    plan: Vec<(Square, Paths)>,
}

fn config() -> Config {
    let mut c = Config::default();
    c.mail.address = "sm@example.org".into();
    c
}

impl World {
    fn new() -> World {
        let dir = TempDir::new().unwrap();
        let store = Store::open(&dir.path().join("db")).unwrap();
        let inbox = MemoryInbound::new();
        let outbox = MemoryOutbound::new();
        let mut config = config();
        config.store.archive = dir.path().join("archive");
        let daemon = Daemon::new(
            store,
            config,
            Templates::load(None).unwrap(),
            BoardSource::embedded(),
            Box::new(inbox.clone()),
            Box::new(outbox.clone()),
        );
        let now = DateTime::parse_from_rfc3339("2026-11-23T09:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let setup = Setup {
            kind: "linie1".into(),
            players: PLAYERS
                .iter()
                .map(|n| PlayerSetup {
                    name: n.to_string(),
                    email: format!("{n}@example.org"),
                })
                .collect(),
            options: vec![],
            seed: SEED,
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
        let mod_key = meta.moderator_tokens[MODERATOR].clone();
        let mut w = World {
            _dir: dir,
            daemon,
            inbox,
            outbox,
            id,
            keys: meta.tokens,
            addresses: PLAYERS.iter().map(|p| format!("{p}@example.org")).collect(),
            mod_key,
            now,
            n: 0,
            secrets: Vec::new(),
            mails: Vec::new(),
            checked: 0,
            flowed: Default::default(),
            builder: Seat(0),
            plan: Vec::new(),
        };
        let g = w.game();
        let d = g.data();
        w.secrets = (0..PLAYERS.len())
            .map(|i| {
                let p = &g.players()[i];
                Secret {
                    line: d.lines[p.line.index()].number,
                    card: d.routes[p.route.index()].name.clone(),
                    stops: g
                        .required_stops(Seat(i as u8))
                        .iter()
                        .map(|b| d.building(*b).letter.to_string())
                        .collect::<Vec<_>>()
                        .join(" "),
                    terminals: d
                        .terminals_of(p.line)
                        .into_iter()
                        .map(|t| d.terminal(t).name.clone())
                        .collect(),
                }
            })
            .collect();
        let (builder, plan) = (0..PLAYERS.len())
            .filter_map(|i| plan_route(&g, Seat(i as u8)).map(|p| (Seat(i as u8), p)))
            .min_by_key(|(_, p)| p.len())
            .expect("some player's route can be planned");
        w.builder = builder;
        w.plan = plan;
        w.process();
        w
    }

    /// The game as the daemon holds it, read back from its snapshot.
    fn game(&self) -> Linie1 {
        let loaded = self.daemon.store().load(&self.id).unwrap();
        serde_json::from_str(&loaded.game.snapshot().unwrap()).unwrap()
    }

    /// One daemon cycle; the mails it sent (all kept, and checked for
    /// secrets against who drives after the cycle).
    fn process(&mut self) -> Vec<Got> {
        self.daemon
            .process(self.now, &AtomicBool::new(false))
            .unwrap();
        let sent = self.outbox.take();
        self.check_flowed(&sent);
        let got: Vec<Got> = sent.iter().map(parse).collect();
        self.mails.extend(got.iter().cloned());
        self.check_mails();
        got
    }

    /// Every text part of `sent` as issue 38 has it ([`crate::flowed::check`]),
    /// against the game after the cycle.
    fn check_flowed(&mut self, sent: &[OutMail]) {
        let game = self.daemon.store().load(&self.id).unwrap().game;
        let log = self.log();
        let mut expected = HashMap::new();
        for mail in sent {
            let to = mail.to.join(",");
            let viewer = match self.seat_of_address(&to) {
                Some(s) => Viewer::Player(Seat(s as u8)),
                None if to == MODERATOR => Viewer::Moderator,
                None => Viewer::Spectator,
            };
            let expect = expected
                .entry(to)
                .or_insert_with(|| crate::flowed::expect_for(&*game, &log, viewer));
            self.flowed += crate::flowed::check(mail, expect).1;
        }
    }

    fn seat_of_address(&self, to: &str) -> Option<usize> {
        self.addresses.iter().position(|a| a == to)
    }

    /// Who has shown their cards: those driving (or everyone, once over).
    fn shown(&self) -> Vec<bool> {
        let v = self.view(None);
        let over = v["finished"] == true;
        v["players"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| over || p["driving"] == true)
            .collect()
    }

    /// No mail not yet checked shows a reader another player's cards or
    /// layer before that player drives (rulings 4); each player's own
    /// cards are in their mails while they lay, and each report (a mail
    /// with the map) shows them their own layer while the game runs.
    fn check_mails(&mut self) {
        let shown = self.shown();
        let v = self.view(None);
        let running = v["finished"] != true && v["aborted"].is_null();
        for m in &self.mails[self.checked..] {
            let reader = self.seat_of_address(&m.to);
            if let Some(r) = reader
                && running
                && !shown[r]
                && m.text.contains("Key: a square")
            {
                assert!(
                    self.secrets[r].layer_in(&m.text) && self.secrets[r].layer_in(&m.html),
                    "{} is not shown their own layer:\n{}",
                    PLAYERS[r],
                    m.text
                );
            }
            for (p, secret) in self.secrets.iter().enumerate() {
                if shown[p] || reader == Some(p) {
                    continue;
                }
                for (part, text) in [("text", &m.text), ("HTML", &m.html)] {
                    if let Some(marker) = secret.found_in(text) {
                        panic!(
                            "the {part} part of a mail to {} shows {}'s secret ({marker:?}) \
                             before their trip:\n{text}",
                            m.to, PLAYERS[p]
                        );
                    }
                }
            }
        }
        self.checked = self.mails.len();
    }

    /// `text` (a command's output for `reader`) holds nobody's secrets but
    /// the reader's own and those already shown.
    fn check_text(&self, reader: Option<usize>, what: &str, text: &str) {
        let shown = self.shown();
        for (p, secret) in self.secrets.iter().enumerate() {
            if !shown[p]
                && reader != Some(p)
                && let Some(marker) = secret.found_in(text)
            {
                panic!(
                    "{what} shows {}'s secret ({marker:?}) to {reader:?}:\n{text}",
                    PLAYERS[p]
                );
            }
        }
    }

    /// The JSON view for `reader`, as `show --json` prints it.
    fn view(&self, reader: Option<&str>) -> Value {
        let text = local::show(self.daemon.store(), &self.id, reader, true, self.now).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// Every reader's view, `show`, and the `log`, checked for secrets.
    fn check_views(&self) {
        let shown = self.shown();
        for reader in [None, Some(0), Some(1), Some(2)] {
            let name = reader.map(|r| PLAYERS[r]);
            let v = self.view(name);
            for (p, pv) in v["players"].as_array().unwrap().iter().enumerate() {
                let may = shown[p] || reader == Some(p);
                for field in ["line", "route_card", "stops", "terminals"] {
                    assert_eq!(
                        !pv[field].is_null(),
                        may,
                        "{field} of {} in the JSON view for {name:?}",
                        PLAYERS[p]
                    );
                }
            }
            self.check_text(reader, "the JSON view", &v.to_string());
            let show = local::show(self.daemon.store(), &self.id, name, false, self.now).unwrap();
            self.check_text(reader, "show", &show);
        }
        for json in [false, true] {
            let log = local::log(self.daemon.store(), &self.id, None, json).unwrap();
            self.check_text(None, "log", &log);
        }
    }

    fn raw(&mut self, from: &str, tag: &str, body: &str) -> String {
        self.n += 1;
        format!(
            "From: {from}\r\nTo: sm@example.org\r\nSubject: Re: [{} {tag}] Linie 1\r\nMessage-ID: <l{}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            self.id, self.n
        )
    }

    /// A mail from seat `seat` with its key; the mails it caused.
    fn send(&mut self, seat: usize, body: &str) -> Vec<Got> {
        let raw = self.raw(
            &self.addresses[seat].clone(),
            &self.keys[seat].clone(),
            body,
        );
        self.inbox.push(raw);
        self.process()
    }

    /// A mail from seat `seat`; the answer to it.
    fn ask(&mut self, seat: usize, body: &str) -> Got {
        let got = self.send(seat, body);
        got.iter()
            .find(|m| m.to == self.addresses[seat] && m.in_reply_to.is_some())
            .unwrap_or_else(|| panic!("{} is answered: {got:#?}", PLAYERS[seat]))
            .clone()
    }

    /// A moderator's command by mail; their answer.
    fn moderate(&mut self, body: &str) -> Got {
        let raw = self.raw(MODERATOR, &self.mod_key.clone(), body);
        self.inbox.push(raw);
        let n = self.n;
        let got = self.process();
        let answer = got
            .iter()
            .find(|m| {
                m.to == MODERATOR && m.in_reply_to.as_deref() == Some(&format!("l{n}@example.org"))
            })
            .unwrap_or_else(|| panic!("no answer to the moderator's {body:?}: {got:#?}"))
            .clone();
        assert!(
            !answer.text.contains("refused"),
            "{body:?} refused: {}",
            answer.text
        );
        answer
    }

    /// The seat whose turn it is.
    fn active(&self) -> usize {
        match self.game().status() {
            Status::Active(a) => a[0].seat.index(),
            Status::Finished(_) => panic!("the game is over"),
        }
    }

    /// The active player mails their whole turn as the plan has it; the
    /// orders and the mails.
    fn play_turn(&mut self) -> (Vec<String>, Vec<Got>) {
        let seat = self.active();
        let Some(orders) = self.turn_orders(Seat(seat as u8)) else {
            // Every tile the player holds would spoil the plan: the
            // moderator passes them over (they draw back to five).
            let answer = self.moderate("skip");
            return (Vec::new(), vec![answer]);
        };
        let got = self.send(seat, &orders.join("\n"));
        let reply = got
            .iter()
            .find(|m| m.to == self.addresses[seat] && m.in_reply_to.is_some())
            .unwrap_or_else(|| panic!("{} is answered: {got:#?}", PLAYERS[seat]));
        assert!(
            reply.text.contains("Applied."),
            "{orders:?} by {}:\n{}",
            PLAYERS[seat],
            reply.text
        );
        (orders, got)
    }

    /// The orders of `seat`'s whole turn, worked out on a copy; `None`
    /// if every order open would spoil the plan.
    fn turn_orders(&self, seat: Seat) -> Option<Vec<String>> {
        let mut g = self.game();
        let turn = g.turn().number;
        let mut out = Vec::new();
        while g.turn().number == turn && g.outcome().is_none() {
            let o = self.choose(&g, seat)?;
            out.push(g.order_text(&o));
            g.apply(seat, &o).unwrap();
        }
        Some(out)
    }

    /// The next order of the plan: start and drive as far as possible;
    /// lay the plan's tiles, else lay far from it; draw from the supply.
    fn choose(&self, g: &Linie1, seat: Seat) -> Option<Order> {
        let legal = g.legal_orders(seat);
        if let Some(o) = legal.iter().find(|o| matches!(o, Order::Start { .. })) {
            return Some(o.clone());
        }
        if legal.iter().any(|o| matches!(o, Order::Move { .. })) {
            return g.default_order(seat);
        }
        if let Some(o) = legal
            .iter()
            .find(|o| matches!(o, Order::Draw { from: None, .. }))
        {
            return Some(o.clone());
        }
        let planned: BTreeSet<Square> = self.plan.iter().map(|(s, _)| *s).collect();
        if let Some(o) = legal.iter().find(
            |o| matches!(o, Order::Lay { square, paths } if self.plan.contains(&(*square, *paths))),
        ) {
            return Some(o.clone());
        }
        // Away from the plan, and from the builder's stops (whose signs
        // must go to the plan's tiles).
        let d = g.data();
        let stops = g.required_stops(self.builder);
        let away = |s: &Square| {
            !planned.contains(s)
                && Edge::ALL.iter().all(|e| {
                    d.step(*s, *e).is_none_or(|n| {
                        !planned.contains(&n)
                            && d.building_at(n).is_none_or(|b| !stops.contains(&b))
                    })
                })
        };
        if let Some(o) = legal.iter().find(|o| match o {
            Order::Lay { square, .. } => away(square),
            Order::Exchange { swaps } => swaps.iter().all(|(s, _)| away(s)),
            _ => false,
        }) {
            return Some(o.clone());
        }
        // A crowded board: off the plan's squares and not beside the
        // builder's stops will do.
        let off = |s: &Square| {
            !planned.contains(s)
                && Edge::ALL.iter().all(|e| {
                    d.step(*s, *e)
                        .is_none_or(|n| d.building_at(n).is_none_or(|b| !stops.contains(&b)))
                })
        };
        if let Some(o) = legal.iter().find(|o| match o {
            Order::Lay { square, .. } => off(square),
            Order::Exchange { swaps } => swaps.iter().all(|(s, _)| off(s)),
            _ => false,
        }) {
            return Some(o.clone());
        }
        if let Some(o) = legal.iter().find(|o| match o {
            Order::Lay { square, .. } => !planned.contains(square),
            Order::Exchange { swaps } => swaps.iter().all(|(s, _)| !planned.contains(s)),
            _ => false,
        }) {
            return Some(o.clone());
        }
        if legal.contains(&Order::Pass) {
            return Some(Order::Pass);
        }
        None
    }

    /// The turn log's entries.
    fn log(&self) -> Vec<stationmaster::store::LogEntry> {
        self.daemon.store().log(&self.id).unwrap()
    }

    fn tiles(&self) -> usize {
        self.view(None)["tiles"].as_array().unwrap().len()
    }
}

/// A way for `seat`'s tram from one of their terminals through a square
/// next to each of their stops to the other terminal, each square used
/// once: its squares and the paths each tile must show. The shortest over
/// the orders of the stops and the terminals.
fn plan_route(g: &Linie1, seat: Seat) -> Option<Vec<(Square, Paths)>> {
    let d = g.data();
    let line = g.players()[seat.index()].line;
    let terminals = d.terminals_of(line);
    let stops: Vec<_> = g.required_stops(seat).to_vec();
    let next_to = |s: Square, b| {
        Edge::ALL
            .iter()
            .any(|e| d.step(s, *e).and_then(|n| d.building_at(n)) == Some(b))
    };
    // Shortest way from (square, edge entered by) to a node `done` accepts,
    // over empty squares not in `used`.
    let segment = |from: (Square, Edge),
                   used: &BTreeSet<Square>,
                   done: &dyn Fn(Square, Edge) -> bool|
     -> Option<Vec<(Square, Edge)>> {
        let mut prev: HashMap<(Square, Edge), (Square, Edge)> = HashMap::new();
        let mut queue = VecDeque::from([from]);
        let mut seen = BTreeSet::from([(from.0, from.1.index())]);
        while let Some((s, came)) = queue.pop_front() {
            if done(s, came) {
                let mut way = vec![(s, came)];
                let mut at = (s, came);
                while let Some(p) = prev.get(&at) {
                    way.push(*p);
                    at = *p;
                }
                way.reverse();
                return Some(way);
            }
            for e in Edge::ALL {
                if e == came {
                    continue;
                }
                let Some(n) = d.step(s, e) else { continue };
                let on_way = {
                    let mut at = (s, came);
                    let mut hit = at.0 == n;
                    while let Some(p) = prev.get(&at) {
                        hit |= p.0 == n;
                        at = *p;
                    }
                    hit
                };
                if d.building_at(n).is_some() || used.contains(&n) || on_way {
                    continue;
                }
                // A terminal's leg square takes only a tile with track
                // toward it (rulings 1): the way passes one only to end.
                let leg = Edge::ALL.iter().any(|x| d.terminal_at(n, *x).is_some());
                if leg && !done(n, e.opposite()) {
                    continue;
                }
                let node = (n, e.opposite());
                if seen.insert((n, node.1.index())) {
                    prev.insert(node, (s, came));
                    queue.push_back(node);
                }
            }
        }
        None
    };
    let mut best: Option<Vec<(Square, Paths)>> = None;
    let mut orders: Vec<Vec<usize>> = vec![vec![]];
    for _ in 0..stops.len() {
        orders = orders
            .into_iter()
            .flat_map(|o| {
                (0..stops.len())
                    .filter(|i| !o.contains(i))
                    .map(|i| {
                        let mut o = o.clone();
                        o.push(i);
                        o
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
    }
    for (a, b) in [(0, 1), (1, 0)] {
        let (from, to): (TerminalId, TerminalId) = (terminals[a], terminals[b]);
        let term = d.terminal(from);
        for leg in term.legs {
            for order in &orders {
                let mut way: Vec<(Square, Edge)> = Vec::new();
                let mut used = BTreeSet::new();
                let mut at = (leg, term.side);
                let mut ok = true;
                for &i in order {
                    let stop = stops[i];
                    let Some(seg) = segment(at, &used, &|s, _| next_to(s, stop)) else {
                        ok = false;
                        break;
                    };
                    way.extend(seg[..seg.len() - 1].iter().copied());
                    used.extend(seg[..seg.len() - 1].iter().map(|(s, _)| *s));
                    at = *seg.last().unwrap();
                }
                if !ok {
                    continue;
                }
                let end = d.terminal(to);
                let Some(seg) = segment(at, &used, &|s, _| {
                    d.terminal_at(s, end.side).is_some_and(|(t, _)| t == to)
                }) else {
                    continue;
                };
                way.extend(seg);
                let mut tiles = Vec::new();
                for (i, (s, came)) in way.iter().enumerate() {
                    let out = match way.get(i + 1) {
                        Some((_, next_came)) => next_came.opposite(),
                        None => end.side,
                    };
                    let text = format!("{}{}", came.letter(), out.letter());
                    tiles.push((*s, Paths::parse(&text).unwrap()));
                }
                if best.as_ref().is_none_or(|b| tiles.len() < b.len()) {
                    best = Some(tiles);
                }
            }
        }
    }
    best
}

#[test]
fn a_game_of_linie1_by_mail_keeps_every_players_cards_secret_until_their_trip() {
    let mut w = World::new();
    let id = w.id.clone();

    // The welcome mails: one to each player with their key, the map and
    // their own cards; one to the moderator.
    let welcomes = w.mails.clone();
    for (i, p) in PLAYERS.iter().enumerate() {
        let m = welcomes
            .iter()
            .find(|m| m.to == format!("{p}@example.org"))
            .unwrap_or_else(|| panic!("no welcome to {p}"));
        assert_eq!(m.subject, format!("[{id} {}] Linie 1", w.keys[i]));
        assert!(m.text.contains(&format!("Welcome to {id}")), "{}", m.text);
        assert!(
            m.text
                .contains("Your cards (secret until you start your trip)")
        );
        let own = w.secrets[i].found_in(&m.text);
        assert!(own.is_some(), "{p} reads their own cards:\n{}", m.text);
        assert!(w.secrets[i].found_in(&m.html).is_some(), "and in HTML");
        assert_eq!(m.text.contains("You can:"), i == 0, "{}", m.text);
    }
    assert!(
        welcomes
            .iter()
            .any(|m| m.to == MODERATOR && m.text.contains(&format!("You moderate {id}")))
    );
    w.check_views();
    assert!(
        !w._dir.path().join("archive").join(&id.0).exists(),
        "no archive while the game runs"
    );

    // A refused order: the reply quotes it and says why, citing the rule;
    // nothing changes and nobody else is told.
    let first = w.active();
    let before = w.view(None);
    let got = w.send(first, "lay A1 NS");
    assert_eq!(got.len(), 1, "only the sender is answered: {got:#?}");
    let reply = &got[0];
    assert!(
        reply
            .text
            .contains("run off the board at the north side of A1")
            && reply.text.contains("rulings 1")
            && reply.text.contains("You can:"),
        "{}",
        reply.text
    );
    // The citation is put to the sentence once, where it is assembled
    // (issue 35: "(rulings 6). (rulings 6)").
    let flat = reply.text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(flat.matches("rulings").count(), 1, "{}", reply.text);
    assert!(
        flat.contains("north side of A1. (rulings 1)"),
        "{}",
        reply.text
    );
    assert_eq!(w.view(None), before, "a refused order changes nothing");

    // Orders by mail: the sender's answer and everyone's report.
    let (orders, got) = w.play_turn();
    assert_eq!(got.len(), 3, "{got:#?}");
    for (i, p) in PLAYERS.iter().enumerate() {
        let m = got
            .iter()
            .find(|m| m.to == format!("{p}@example.org"))
            .unwrap();
        assert!(
            m.text.contains("laid a ")
                && m.text
                    .contains(orders[0].split_whitespace().nth(1).unwrap()),
            "{p} reads what happened: {}",
            m.text
        );
        assert!(w.secrets[i].found_in(&m.text).is_some(), "{p}'s own cards");
        // A tile drawn is told as the player writes it: `drew a curve (SW)`.
        let drew = m
            .text
            .lines()
            .find_map(|l| l.split_once(" drew a ")?.1.split_once(") from the supply."))
            .and_then(|(tile, _)| tile.rsplit_once(" ("))
            .map(|(_, paths)| paths.to_string());
        assert!(
            drew.as_deref()
                .is_some_and(|p| !p.is_empty() && p.chars().all(|c| "NESW+".contains(c))),
            "{p}: {drew:?} in {}",
            m.text
        );
    }

    // `history` by mail: answered to the sender alone, with the orders.
    let asker = (w.active() + 1) % 3;
    let got = w.send(asker, "history");
    assert_eq!(got.len(), 1);
    assert!(got[0].text.contains(&orders[0]), "{}", got[0].text);

    // A missed turn under the default `skip` policy: the turn ends.
    let late = w.active();
    let entries = w.log().len();
    w.now += Duration::hours(49);
    let got = w.process();
    let log = w.log();
    assert!(
        log[entries..]
            .iter()
            .any(|e| e.player == PLAYERS[late] && e.order == "!skip"),
        "{log:#?}"
    );
    assert_ne!(w.active(), late, "the turn passed on");
    let text = local::log(w.daemon.store(), &id, None, false).unwrap();
    assert!(
        text.contains(
            "under the game's `skip` policy the turn ends: a layer lays no more tiles and draws back to five"
        ),
        "the log says what a skipped turn means in Linie 1: {text}"
    );
    let note = got
        .iter()
        .find(|m| m.to == w.addresses[late])
        .expect("the late player is told");
    assert!(
        note.text.contains("Your deadline for your turn passed"),
        "{}",
        note.text
    );

    // The moderator sets the `default` policy. It applies to deadlines
    // that start from then on: the turn running now still ends under
    // `skip`, and the next missed turn lays a tile for the player.
    w.moderate("why testing\nset policy default");
    let running = w.active();
    let tiles = w.tiles();
    w.now += Duration::hours(49);
    w.process();
    assert!(
        w.log()
            .last()
            .is_some_and(|e| e.player == PLAYERS[running] && e.order == "!skip"),
        "the running turn is skipped"
    );
    assert_eq!(w.tiles(), tiles, "no tile laid for it");
    let late = w.active();
    let entries = w.log().len();
    let tiles = w.tiles();
    w.now += Duration::hours(49);
    w.process();
    let log = w.log();
    let laid: Vec<&String> = log[entries..]
        .iter()
        .filter(|e| {
            e.player == PLAYERS[late] && e.source == Some(stationmaster::engine::Actor::Deadline)
        })
        .map(|e| &e.order)
        .collect();
    assert_eq!(laid.len(), 2, "{log:#?}");
    assert!(laid.iter().all(|o| o.starts_with("lay ")), "{laid:?}");
    // Why, in words that also fit a draw or a tram's move.
    assert!(
        log[entries..]
            .iter()
            .filter(|e| e.player == PLAYERS[late] && e.source == Some(stationmaster::engine::Actor::Deadline))
            .all(|e| e.why.as_deref().is_some_and(|w| w.contains(
                "under the game's `default` policy the game plays their turn for them (Stationmaster ruling 4)"
            ))),
        "{log:#?}"
    );
    assert_eq!(w.tiles(), tiles + 2, "the default laid two tiles");
    let square = laid[0].split_whitespace().nth(1).unwrap();
    assert!(
        w.view(None)["tiles"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["square"] == square),
        "a tile lies on {square}"
    );
    w.moderate("set policy skip");

    // Moderators' commands by mail.
    let paused_turn = w.active();
    w.moderate("pause");
    let got = w.send(paused_turn, "pass");
    assert!(got[0].text.contains("paused"), "{}", got[0].text);
    // The operator's log says why nothing was applied.
    let receipt = w
        .daemon
        .store()
        .receipt(&format!("l{}@example.org", w.n))
        .unwrap()
        .unwrap();
    assert!(
        receipt
            .outcome
            .ends_with("orders refused: the game is paused"),
        "{}",
        receipt.outcome
    );
    w.moderate("resume");
    let answer = w.moderate("note Hello from the moderator");
    assert!(answer.text.contains("note"), "{}", answer.text);
    assert!(
        w.mails
            .iter()
            .filter(|m| m.text.contains("Hello from the moderator"))
            .count()
            >= 3,
        "every player reads the note"
    );
    let before = w.view(None);
    let tiles = w.tiles();
    w.play_turn();
    assert_ne!(w.view(None), before);
    w.moderate("undo 2");
    assert_eq!(w.tiles(), tiles, "undo took the turn's two tiles back");
    let skipped = w.active();
    w.moderate("skip");
    assert_ne!(w.active(), skipped, "the moderator skipped the turn");
    w.moderate("resend");

    // A player replaced: the new person gets the seat's cards, and only
    // them.
    let seat = 2;
    w.addresses[seat] = "carol@example.org".into();
    w.moderate("replace cecil carol@example.org");
    w.keys[seat] = w.daemon.store().meta(&id).unwrap().tokens[seat].clone();
    let welcome = w
        .mails
        .iter()
        .rev()
        .find(|m| m.to == "carol@example.org")
        .expect("carol is welcomed");
    assert!(w.secrets[seat].found_in(&welcome.text).is_some());
    w.check_views();

    // Play on until the builder starts their trip: every mail checked.
    let builder = w.builder.index();
    let mut turns = 0;
    while !w.shown()[builder] {
        w.play_turn();
        turns += 1;
        assert!(turns < 200, "the route was not built in 200 turns");
        if turns % 10 == 0 {
            w.check_views();
        }
    }
    // From the start on, everyone reads the builder's cards.
    let start = w.mails.len() - 3;
    for m in &w.mails[start..] {
        assert!(
            w.secrets[builder].found_in(&m.text).is_some(),
            "{} reads the cards shown: {}",
            m.to,
            m.text
        );
        assert!(m.text.contains("started the inaugural trip"), "{}", m.text);
    }
    w.check_views();

    // Drive to the end: the game is won, archived and verified.
    while matches!(w.game().status(), Status::Active(_)) {
        w.play_turn();
        turns += 1;
        assert!(turns < 400, "the trip did not end");
    }
    let v = w.view(None);
    assert_eq!(v["result"]["winner"], PLAYERS[builder], "{v}");
    let verified = local::verify(w.daemon.store(), &id).unwrap();
    assert!(verified.contains("intact"), "{verified}");
    let archive = w._dir.path().join("archive").join(&id.0);
    for f in ["log.txt", "final.txt", "log.json", "index.html"] {
        assert!(archive.join(f).exists(), "{f} missing from the archive");
    }
    let log = std::fs::read_to_string(archive.join("log.txt")).unwrap();
    assert!(log.contains("won the game"), "{log}");
    w.check_views();
    // Issue 38: every mail's text part was flowed, its map and hints
    // exact, its events whole (checked as each came).
    let f = w.flowed;
    assert!(
        f.map && f.hints && f.events > 300 && f.wrapped > 100,
        "{f:?}"
    );
}

/// `lay` has three letters: a mistyped one before a square (`lya C4 WE`)
/// refuses the mail, as `extnd gwr c14` does in Rocket, rather than being
/// left out as chatter while the rest of the turn is applied.
/// Who plays first is said where a player looks for it, in the welcome
/// beside the seat order: the first player named (the rule book's oldest
/// player, rule book, Il gioco), not left to the status block.
#[test]
fn the_welcome_says_who_plays_first() {
    let w = World::new();
    let seats = format!(
        "Players, in seat order: {}. {} plays first.",
        PLAYERS.join(", "),
        PLAYERS[0]
    );
    for p in PLAYERS {
        let m = w
            .mails
            .iter()
            .find(|m| m.to == format!("{p}@example.org"))
            .unwrap_or_else(|| panic!("no welcome to {p}"));
        assert!(m.text.contains(&seats), "{}", m.text);
        assert!(m.html.contains(&seats), "{}", m.html);
    }
}

/// Issue 38: the help reply to a Linie 1 player showed a Rocket tag as
/// its example of the tag to reply with.
#[test]
fn a_linie1_players_help_shows_a_linie1_tag() {
    let mut w = World::new();
    let from = w.addresses[1].clone();
    w.inbox.push(format!(
        "From: {from}\r\nTo: sm@example.org\r\nSubject: how do I play?\r\nMessage-ID: <lost@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nhelp\r\n"
    ));
    let got = w.process();
    let help = got
        .iter()
        .find(|m| m.to == from && m.in_reply_to.as_deref() == Some("lost@example.org"))
        .unwrap_or_else(|| panic!("no help reply: {got:#?}"));
    assert!(help.text.contains("[linie1-1 "), "{}", help.text);
    assert!(!help.text.contains("[rocket-"), "{}", help.text);
}

#[test]
fn a_mistyped_lay_refuses_the_mail() {
    let mut w = World::new();
    let seat = w.active();
    let g = w.game();
    let lay = g
        .legal_orders(Seat(seat as u8))
        .into_iter()
        .map(|o| g.order_text(&o))
        .find(|t| t.starts_with("lay "))
        .expect("a tile to lay");
    let typo = lay.replacen("lay", "lya", 1);
    let tiles = w.tiles();
    let got = w.send(seat, &format!("Hi all,\n{typo}\n{lay}\nAnna"));
    assert_eq!(w.tiles(), tiles, "nothing laid");
    let reply = got
        .iter()
        .find(|m| m.to == w.addresses[seat] && m.in_reply_to.is_some())
        .expect("the player is answered");
    for part in ["Nothing was applied.", &typo, "did you mean `lay`?"] {
        assert!(reply.text.contains(part), "{part}: {}", reply.text);
    }
}

/// A third tile in one mail (or a mail after the turn has passed on) is
/// refused with "your turn is over", not "it is bob's turn, not yours"
/// beside a report that says the game waited for the sender.
#[test]
fn a_third_tile_in_one_mail_is_told_the_turn_is_over() {
    let mut w = World::new();
    let seat = w.active();
    let mut g = w.game();
    let mut lays = Vec::new();
    for _ in 0..3 {
        let o = g
            .legal_orders(Seat(seat as u8))
            .into_iter()
            .find(|o| matches!(o, Order::Lay { .. }))
            .or_else(|| {
                // The turn has passed on: any tile of the hand will do as
                // the third, since it is refused for the turn alone.
                let next = Seat(((seat + 1) % PLAYERS.len()) as u8);
                g.legal_orders(next)
                    .into_iter()
                    .find(|o| matches!(o, Order::Lay { .. }))
            })
            .expect("a tile to lay");
        lays.push(g.order_text(&o));
        let _ = g.apply(Seat(seat as u8), &o);
    }
    let tiles = w.tiles();
    let got = w.send(seat, &lays.join("\n"));
    assert_eq!(w.tiles(), tiles, "nothing laid");
    let reply = got
        .iter()
        .find(|m| m.to == w.addresses[seat] && m.in_reply_to.is_some())
        .expect("the player is answered");
    let next = PLAYERS[(seat + 1) % PLAYERS.len()];
    for part in [
        "Nothing was applied. Order 3 of your mail was refused:".to_string(),
        format!(
            "Your turn is over (a turn is two tiles laid, or one move of the tram): it is {next}'s turn now."
        ),
    ] {
        assert!(flat(&reply.text).contains(&part), "{part}: {}", reply.text);
    }
    assert!(!reply.text.contains("not yours"), "{}", reply.text);
}

/// Two orders run together on one line (`lay C1 NS, lay C2 NS`, as a
/// player writes them in a sentence) are refused with "one order a line",
/// not with the second `lay` read as a path ("`lay` is not a path").
#[test]
fn two_lays_on_one_line_are_told_to_go_one_a_line() {
    let mut w = World::new();
    let seat = w.active();
    let mut g = w.game();
    let mut lays = Vec::new();
    for _ in 0..2 {
        let o = g
            .legal_orders(Seat(seat as u8))
            .into_iter()
            .find(|o| matches!(o, Order::Lay { .. }))
            .expect("a tile to lay");
        lays.push(g.order_text(&o));
        g.apply(Seat(seat as u8), &o).unwrap();
    }
    let tiles = w.tiles();
    let got = w.send(seat, &format!("{}, {}", lays[0], lays[1]));
    assert_eq!(w.tiles(), tiles, "nothing laid");
    let reply = got
        .iter()
        .find(|m| m.to == w.addresses[seat] && m.in_reply_to.is_some())
        .expect("the player is answered");
    assert!(
        reply
            .text
            .contains("`lay` starts another order: write one order a line"),
        "{}",
        reply.text
    );
    assert!(!reply.text.contains("is not a path"), "{}", reply.text);
}

/// An order line ended as a list item is (`lay C4 SE;`, then a blank)
/// the order: the tile is laid, where the `;` used to be read as part of
/// the paths ("`SE;` is not a path") and the whole mail refused.
#[test]
fn a_lay_ended_with_a_semicolon_is_laid() {
    let mut w = World::new();
    let seat = w.active();
    let g = w.game();
    let lay = g
        .legal_orders(Seat(seat as u8))
        .into_iter()
        .map(|o| g.order_text(&o))
        .find(|t| t.starts_with("lay "))
        .expect("a tile to lay");
    let tiles = w.tiles();
    let got = w.send(seat, &format!("{lay}; "));
    let reply = got
        .iter()
        .find(|m| m.to == w.addresses[seat] && m.in_reply_to.is_some())
        .expect("the player is answered");
    assert!(!reply.text.contains("not a path"), "{}", reply.text);
    assert!(!reply.text.contains("refused"), "{}", reply.text);
    assert_eq!(w.tiles(), tiles + 1, "the tile is laid: {}", reply.text);
}

/// A square written with its letter and number apart (`lay B 6 WE`) is
/// refused with how to write it (`B6`), not "expected a square before `B`"
/// when B is where the square begins.
#[test]
fn a_square_written_apart_is_told_how_to_write_it() {
    let mut w = World::new();
    let seat = w.active();
    let g = w.game();
    let lay = g
        .legal_orders(Seat(seat as u8))
        .into_iter()
        .map(|o| g.order_text(&o))
        .find(|t| t.starts_with("lay "))
        .expect("a tile to lay");
    // "lay C4 WE" as "lay c 4 WE".
    let words: Vec<&str> = lay.split_whitespace().collect();
    let (letter, number) = words[1].split_at(1);
    let apart = format!(
        "lay {} {number} {}",
        letter.to_lowercase(),
        words[2..].join(" ")
    );
    let tiles = w.tiles();
    let got = w.send(seat, &apart);
    assert_eq!(w.tiles(), tiles, "nothing laid");
    let reply = got
        .iter()
        .find(|m| m.to == w.addresses[seat] && m.in_reply_to.is_some())
        .expect("the player is answered");
    let want = format!(
        "write a square as one word, its letter and number together: `{}`",
        words[1]
    );
    assert!(reply.text.contains(&want), "{want}: {}", reply.text);
    assert!(!reply.text.contains("expected a square"), "{}", reply.text);
}

/// Orders numbered as a list (`1. lay C4 NS`, as a player numbers them,
/// or `1.⇥lay …` as Outlook writes a list in the text part) are read
/// without the numbers and laid, once each; they were left out as "not
/// read as orders", with "Your mail had no orders in it".
#[test]
fn numbered_orders_are_laid_without_their_numbers() {
    let mut w = World::new();
    let seat = w.active();
    let mut g = w.game();
    let mut lays = Vec::new();
    for _ in 0..2 {
        let o = g
            .legal_orders(Seat(seat as u8))
            .into_iter()
            .find(|o| matches!(o, Order::Lay { .. }))
            .expect("a tile to lay");
        lays.push(g.order_text(&o));
        g.apply(Seat(seat as u8), &o).unwrap();
    }
    let tiles = w.tiles();
    let got = w.send(
        seat,
        &format!("Hi all,\n1. {}\n2.\t{}\nAnna", lays[0], lays[1]),
    );
    assert_eq!(w.tiles(), tiles + 2, "both tiles laid, once each");
    let reply = got
        .iter()
        .find(|m| m.to == w.addresses[seat] && m.in_reply_to.is_some())
        .expect("the player is answered");
    assert!(!reply.text.contains("no orders in it"), "{}", reply.text);
    assert!(
        !reply.text.contains(&format!("1. {}", lays[0])),
        "{}",
        reply.text
    );
}

/// Issue 38, point 4: a moderator's `undo` after a player's mail that laid
/// two tiles (and drew from the supply after them) takes the whole mail
/// back, as everyone reads; the turn log and the archive keep its orders,
/// marked undone. What was drawn is part of the position undone to: the
/// same mail sent again draws the same tiles, and the log replays to the
/// same game.
#[test]
fn undo_takes_a_players_whole_mail_back_and_the_log_marks_it() {
    let mut w = World::new();
    let before = w.game();
    let seat = w.active();
    let name = PLAYERS[seat];
    let start = w.log().len();
    let (orders, _) = w.play_turn();
    let lays = orders.iter().filter(|o| o.starts_with("lay ")).count();
    assert_eq!(lays, 2, "{orders:?}");
    let drawn = |log: &[stationmaster::store::LogEntry]| -> Vec<Value> {
        log.iter()
            .flat_map(|e| e.events.iter())
            .filter(|ev| ev["event"] == "drew")
            .cloned()
            .collect()
    };
    let first_draw = drawn(&w.log()[start..]);
    assert!(!first_draw.is_empty(), "{:#?}", w.log());

    let sent = w.mails.len();
    let answer = flat(&w.moderate("undo").text);
    let mail = format!("{name}'s mail ({})", orders.join("; "));
    assert!(
        answer.contains(&format!("Undone: {mail}."))
            && answer.contains("A player's mail is undone whole"),
        "{answer}"
    );
    assert_eq!(w.game(), before, "the game stands as before the mail");
    for p in PLAYERS {
        let m = w.mails[sent..]
            .iter()
            .find(|m| m.to == format!("{p}@example.org"))
            .unwrap_or_else(|| panic!("{p} is told"));
        assert!(
            flat(&m.text).contains(&format!(
                "A moderator undid {mail}. The game is back where it was before."
            )),
            "{}",
            m.text
        );
    }
    let log = local::log(w.daemon.store(), &w.id, None, false).unwrap();
    let undo = w.log().len();
    assert_eq!(
        log.matches(&format!("[undone by #{undo}]")).count(),
        orders.len(),
        "{log}"
    );

    // The same mail again draws what the undone one drew.
    let again = w.log().len();
    w.send(seat, &orders.join("\n"));
    assert_eq!(drawn(&w.log()[again..]), first_draw);
    let verified = local::verify(w.daemon.store(), &w.id).unwrap();
    assert!(verified.contains("intact"), "{verified}");

    // The archive marks them too.
    w.moderate("abort");
    w.process();
    let archive = w._dir.path().join("archive").join(&w.id.0);
    let text = std::fs::read_to_string(archive.join("log.txt")).unwrap();
    assert_eq!(
        text.matches(&format!("[undone by #{undo}]")).count(),
        orders.len(),
        "{text}"
    );
}

/// Issue 38, deliver 5, in Linie 1: a tile laid and nothing drawn yet is
/// taken back with `takeback` (everyone reads it); once tiles were drawn
/// from the supply, the draw cannot be unseen and `takeback` is refused
/// with that reason. `help` lists it.
#[test]
fn takeback_is_refused_once_tiles_were_drawn_from_the_supply() {
    let mut w = World::new();
    let before = w.game();
    let seat = w.active();
    let name = PLAYERS[seat];
    let orders = w.turn_orders(Seat(seat as u8)).expect("a turn to play");
    w.send(seat, &orders[0]);
    assert_ne!(w.game(), before);
    let got = w.send(seat, "takeback");
    assert_eq!(w.game(), before, "the game stands as before the mail");
    for p in PLAYERS {
        let m = got
            .iter()
            .find(|m| m.to == format!("{p}@example.org"))
            .unwrap_or_else(|| panic!("{p} is told"));
        assert!(
            flat(&m.text).contains(&format!(
                "{name} took back their last orders ({})",
                orders[0]
            )),
            "{}",
            m.text
        );
    }

    // The whole turn: its last tile drew from the supply.
    w.play_turn();
    let after = w.game();
    let got = w.send(seat, "takeback");
    let reply = flat(&got[0].text);
    assert!(
        reply.contains(
            "`takeback` was not done: your orders showed a tile drawn from the supply, \
             and what was seen cannot be unseen."
        ),
        "{reply}"
    );
    assert_eq!(w.game(), after);

    let got = w.send(seat, "help");
    assert!(
        flat(&got[0].text).contains("takeback undo your last mail's orders"),
        "{}",
        got[0].text
    );
}

/// Issue 35, point 3: `moves` answers with every order the player can
/// give, ready to copy (by tile number and turn); `moves C4` with those
/// on one square, `moves 2` with those of one hand tile; a tile not in
/// the hand, and a player whose turn it is not, are told so. Nothing of
/// the game changes.
#[test]
fn moves_by_mail_lists_the_orders_all_or_of_a_square_or_a_tile() {
    let mut w = World::new();
    let seat = w.active();
    let before = w.game();
    let lays = before
        .legal_orders(Seat(seat as u8))
        .iter()
        .filter(|o| matches!(o, Order::Lay { .. }))
        .count();
    let text = w.ask(seat, "moves").text;
    assert!(
        text.contains("`moves`: what you can order now; copy the orders you mean"),
        "{text}"
    );
    // Every lay once, each as `lay TILE SQUARE TURN`.
    let listed = text.matches("lay 1 ").count() + text.matches("lay 2 ").count();
    assert!(listed >= lays, "{listed} of {lays}: {text}");
    assert!(text.contains("  > moves"), "the command is echoed: {text}");
    let text = w.ask(seat, "moves C4").text;
    let lines: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("`moves C4`"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    assert!(!lines.is_empty(), "{text}");
    for order in lines.iter().flat_map(|l| l.split("   ")) {
        assert!(
            order.trim().starts_with("lay ") && order.contains(" C4 "),
            "{order}: {text}"
        );
    }
    let text = w.ask(seat, "moves 2").text;
    let lines: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("`moves 2`"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    assert!(!lines.is_empty(), "{text}");
    for order in lines.iter().flat_map(|l| l.split("   ")) {
        assert!(order.trim().starts_with("lay 2 "), "{order}: {text}");
    }
    let text = flat(&w.ask(seat, "moves 9").text);
    assert!(
        text.contains("tile 9 is not in your hand, which holds tiles 1, 2."),
        "{text}"
    );
    let other = (seat + 1) % PLAYERS.len();
    let text = w.ask(other, "moves").text;
    assert!(
        text.contains("`moves`: you have no order to give now."),
        "{text}"
    );
    assert_eq!(w.game(), before, "listing changes nothing");
    // A lay copied from the list is laid.
    let order = lines[0].split("   ").next().unwrap().trim().to_string();
    let text = w.ask(seat, &order).text;
    assert!(text.contains("Applied."), "{order}: {text}");
}

/// Issue 35, point 4: once a player drives, a layer draws by order. The
/// "You can" hints show the whole turn as one mail with its draws; a mail
/// with the two lays alone is answered with the draws still owed; the
/// draws then end the turn; and a whole turn in one mail is applied.
#[test]
fn draws_owed_are_answered_and_a_whole_turn_goes_in_one_mail() {
    let mut w = World::new();
    let builder = w.builder.index();
    let mut turns = 0;
    // Until the builder drives and another player is to lay.
    loop {
        let g = w.game();
        let a = w.active();
        if w.shown()[builder] && a != builder && matches!(g.phase(), Phase::Lay { laid: 0 }) {
            break;
        }
        w.play_turn();
        turns += 1;
        assert!(turns < 300, "nobody set out in 300 turns");
    }
    let seat = w.active();
    let last = w
        .mails
        .iter()
        .rev()
        .find(|m| m.to == w.addresses[seat])
        .unwrap()
        .text
        .clone();
    assert!(
        last.contains("a whole turn           in one mail, one order a line, e.g.:")
            && last.contains("  draw supply"),
        "{last}"
    );
    let orders = w.turn_orders(Seat(seat as u8)).expect("a turn to play");
    let (draws, lays): (Vec<String>, Vec<String>) =
        orders.iter().cloned().partition(|o| o.starts_with("draw"));
    assert_eq!(lays.len(), 2, "{orders:?}");
    assert!(!draws.is_empty(), "{orders:?}");
    let text = flat(&w.ask(seat, &lays.join("\n")).text);
    assert!(text.contains("Applied."), "{text}");
    assert!(
        text.contains(&format!(
            "Your turn is not over: you still owe {} draw{}, from the supply (`draw supply`) or \
             from {}'s open hand",
            draws.len(),
            if draws.len() == 1 { "" } else { "s" },
            PLAYERS[builder]
        )),
        "{text}"
    );
    assert_eq!(w.active(), seat, "the turn waits for the draws");
    let text = w.ask(seat, &draws.join("\n")).text;
    assert!(text.contains("Applied."), "{text}");
    assert!(!text.contains("Your turn is not over"), "{text}");
    assert_ne!(w.active(), seat, "the draws ended the turn");

    // The next layer sends the whole turn, draws too, in one mail.
    loop {
        let g = w.game();
        if w.active() != builder && matches!(g.phase(), Phase::Lay { laid: 0 }) {
            break;
        }
        w.play_turn();
    }
    let seat = w.active();
    let (orders, _) = w.play_turn();
    assert!(
        orders.iter().filter(|o| o.starts_with("lay ")).count() == 2,
        "{orders:?}"
    );
    assert!(orders.iter().any(|o| o.starts_with("draw ")), "{orders:?}");
    assert_ne!(w.active(), seat, "one mail was the whole turn");
    let verified = local::verify(w.daemon.store(), &w.id).unwrap();
    assert!(verified.contains("intact"), "{verified}");
}
