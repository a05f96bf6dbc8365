//! The board as a picture (issue 14): Rocket's SVG against reviewed golden
//! copies, the report's MIME (the PNG attached inline beside the HTML that
//! shows it, or nothing at all with `[mail] pictures = false`), and the
//! report's HTML part as a person sees it, in headless Chromium.

use stationmaster::engine::Viewer;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use chrono::{DateTime, Utc};
use mail_parser::{MessageParser, MimeHeaders, PartType};
use stationmaster::clock::ClockSettings;
use stationmaster::config::Config;
use stationmaster::daemon::{self, Daemon};
use stationmaster::engine::picture::Picture;
use stationmaster::engine::{Game, Seat};
use stationmaster::linie1::Linie1;
use stationmaster::mail::OutMail;
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport::{MemoryInbound, MemoryOutbound};
use stationmaster::registry::BoardSource;
use stationmaster::rocket::Rocket;
use stationmaster::store::{GameId, Store};
use tempfile::TempDir;

use crate::common::{self, ABC, ANDI, BELA, CECIL};

/// The land and sea of Rocket's picture, as drawn (`src/rocket/picture.rs`).
pub(crate) const LAND: [u8; 3] = [0xef, 0xe8, 0xcf];
pub(crate) const SEA: [u8; 3] = [0xb9, 0xd4, 0xee];

fn picture(g: &Rocket, last: &[stationmaster::rocket::Event]) -> Picture {
    Rocket::picture(g.board(), &g.view(Viewer::Spectator), last, None)
        .expect("Rocket draws its board")
}

fn svg(g: &Rocket, last: &[stationmaster::rocket::Event]) -> String {
    picture(g, last).svg()
}

/// [`common::assert_svg_matches`]; when blessing, the PNG as mailed is
/// written beside the target folder's other output too
/// (`target/pictures/NAME.png`), for the person reviewing the golden copy.
fn assert_picture(svg: &str, golden: &str) {
    common::assert_svg_matches(svg, golden);
    if std::env::var_os("SM_BLESS").is_some() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/pictures");
        std::fs::create_dir_all(&dir).expect("target/pictures");
        let png = stationmaster::picture::png_of_svg(svg).expect("rendered");
        std::fs::write(dir.join(golden.replace(".svg", ".png")), png.bytes).expect("written");
    }
}

#[test]
fn rocket_pictures_match_their_reviewed_golden_copies() {
    // A fresh game: every place, the locomotives on their starting towns.
    let g = common::game(&ABC);
    assert_picture(&svg(&g, &[]), "rocket_start.svg");

    // The rule book's veto position: GWR's track from Bristol, stations of
    // all three players, the last extension's hexes marked.
    let mut g = common::veto_position(&[], &[(ANDI, "C13"), (BELA, "G14"), (CECIL, "E13")]);
    let events = common::extend(&mut g, "GWR G13");
    assert_picture(&svg(&g, &events), "rocket_veto.svg");

    // A merger: LSWR's track into GWR, LSWR dissolved.
    let mut g = common::game_with(&ABC, ANDI, &[]);
    let events = common::lswr_into_gwr(&mut g);
    assert_picture(&svg(&g, &events), "rocket_merger.svg");
}

#[test]
fn a_rocket_picture_shows_nothing_the_text_hides() {
    let mut g = common::veto_position(&[], &[(ANDI, "C13")]);
    common::extend(&mut g, "GWR G13");
    let spectator = svg(&g, &[]);
    for seat in 0..3 {
        let view = g.view(Viewer::Player(Seat(seat)));
        let theirs = Rocket::picture(g.board(), &view, &[], None).map(|p| p.svg());
        assert_eq!(theirs.as_deref(), Some(spectator.as_str()));
    }
    // Money is the one secret (rulings 13): no amount is drawn.
    assert!(!spectator.contains('£'), "{spectator}");
    // Every place's name, each line's code and every player's letter are
    // written: nothing is told by colour alone.
    for place in &g.board().places {
        assert!(
            spectator.contains(&format!(">{}<", place.name)),
            "{}",
            place.name
        );
    }
    for id in ["NE NER", "GW GWR", "SE SER"] {
        assert!(spectator.contains(id), "{id}");
    }
    for name in ABC {
        assert!(spectator.contains(&format!("stations of {name}")), "{name}");
    }
}

/// Two games the same on the table, one's money (the one secret, rulings
/// 13) changed in every hand: the map and the picture, drawn from the
/// spectator's view, cannot tell them apart, while each player's status
/// can. A map or picture that read the game's money would differ.
#[test]
fn the_map_and_picture_are_the_same_whatever_money_is_held() {
    use stationmaster::engine::AnyGame;
    let mut g = common::veto_position(&[], &[(ANDI, "C13"), (BELA, "G14"), (CECIL, "E13")]);
    let events: Vec<serde_json::Value> = common::extend(&mut g, "GWR G13")
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    let mut state = serde_json::to_value(&g).unwrap();
    for (i, p) in state["players"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        let money = p["money"].as_u64().unwrap();
        p["money"] = (money + (7 + 4 * i as u64) * 1000).into();
    }
    let richer: Rocket = serde_json::from_value(state).unwrap();
    for s in 0..3 {
        let reader = Viewer::Player(Seat(s));
        assert_ne!(
            AnyGame::render_status(&g, reader),
            AnyGame::render_status(&richer, reader),
            "the games differ in {reader:?}'s money"
        );
    }
    for game in [&g, &richer] {
        let map = AnyGame::render_map(game);
        // Nothing private on the board: every reader's view draws it.
        for s in 0..3 {
            let view = game.view(Viewer::Player(Seat(s)));
            assert_eq!(Rocket::draw_map(game.board(), &view), map);
        }
    }
    assert_eq!(AnyGame::render_map(&g), AnyGame::render_map(&richer));
    let svg = |game: &Rocket| {
        AnyGame::picture(game, &events, None)
            .unwrap()
            .expect("Rocket draws its board")
            .svg()
    };
    assert_eq!(svg(&g), svg(&richer));
}

/// A 3-player game (Rocket unless made [`Table::of`] another setup) on
/// in-memory transports.
struct Table {
    _dir: TempDir,
    daemon: Daemon,
    outbox: MemoryOutbound,
    id: GameId,
    now: DateTime<Utc>,
}

impl Table {
    fn new(pictures: bool) -> Table {
        Table::of(pictures, common::setup(&ABC, 7, &[]))
    }

    fn of(pictures: bool, setup: stationmaster::engine::Setup) -> Table {
        let dir = tempfile::tempdir().expect("a temp dir");
        let mut config = Config::default();
        config.mail.address = "sm@example.org".into();
        config.mail.pictures = pictures;
        config.store.path = dir.path().join("db");
        config.store.archive = dir.path().join("archive");
        let outbox = MemoryOutbound::new();
        let mut daemon = Daemon::new(
            Store::open(&config.store.path).expect("a store"),
            config,
            Templates::load(None).expect("the templates"),
            BoardSource::embedded(),
            Box::new(MemoryInbound::new()),
            Box::new(outbox.clone()),
        );
        let now = DateTime::parse_from_rfc3339("2026-11-23T09:00:00Z")
            .expect("a time")
            .with_timezone(&Utc);
        let id = daemon::create_game(
            &daemon.ctx(),
            &setup,
            ClockSettings::default(),
            Vec::new(),
            now,
        )
        .expect("a game");
        daemon
            .process(now, &AtomicBool::new(false))
            .expect("the welcomes sent");
        Table {
            _dir: dir,
            daemon,
            outbox,
            id,
            now,
        }
    }

    /// The reports of one order of the player awaited.
    fn reports(&mut self) -> Vec<OutMail> {
        self.outbox.take();
        let game = self.daemon.store().load(&self.id).expect("the game").game;
        let seat = game.awaiting()[0].seat;
        let line = game.legal_order_lines(seat)[0].clone();
        stationmaster::service::apply_local(&self.daemon.ctx(), &self.id, seat, &[line], self.now)
            .expect("applied");
        self.daemon
            .process(self.now, &AtomicBool::new(false))
            .expect("sent");
        self.outbox.take()
    }
}

/// A report's HTML part, and its inline picture's Content-ID and bytes.
struct Parts {
    html: String,
    text: String,
    picture: Option<(String, Vec<u8>)>,
    related: bool,
}

fn parts(mail: &OutMail) -> Parts {
    let m = MessageParser::default()
        .parse(&mail.bytes)
        .expect("our mail parses");
    let mut picture = None;
    let mut related = false;
    for part in &m.parts {
        if let PartType::Multipart(_) = part.body
            && part
                .content_type()
                .is_some_and(|c| c.subtype() == Some("related"))
        {
            related = true;
        }
        if let PartType::Binary(bytes) | PartType::InlineBinary(bytes) = &part.body
            && part
                .content_type()
                .is_some_and(|c| c.ctype() == "image" && c.subtype() == Some("png"))
        {
            let cid = part
                .content_id()
                .expect("an inline picture has a Content-ID");
            picture = Some((cid.to_string(), bytes.to_vec()));
        }
    }
    Parts {
        html: m.body_html(0).expect("an HTML part").into_owned(),
        text: crate::flowed::text_part(&m).expect("a text part"),
        picture,
        related,
    }
}

#[test]
fn a_report_carries_its_picture_inline_beside_the_html_that_shows_it() {
    let mut t = Table::new(true);
    let reports = t.reports();
    assert_eq!(reports.len(), 3);
    let mut cids = Vec::new();
    for mail in &reports {
        let raw = String::from_utf8_lossy(&mail.bytes);
        assert!(raw.contains("multipart/alternative"), "{raw}");
        let p = parts(mail);
        assert!(p.related, "the HTML and its picture are multipart/related");
        let (cid, png) = p.picture.expect("an image/png part");
        let cid = cid.trim_matches(|c| c == '<' || c == '>').to_string();
        // The picture is at the top of the HTML, the ASCII map below it.
        let img = p
            .html
            .find(&format!("src=\"cid:{cid}\""))
            .unwrap_or_else(|| panic!("no <img> of cid:{cid} in {}", p.html));
        let map = p.html.find("<pre").expect("the ASCII map");
        assert!(img < map);
        assert!(p.html.contains("style=\"max-width:100%;height:auto\""));
        assert!(p.html.contains("width=\"600\""));
        // A real PNG, of the width the HTML says.
        let decoder = png::Decoder::new(std::io::Cursor::new(&png));
        let info = decoder.read_info().expect("a PNG").info().clone();
        assert_eq!(info.width, 600);
        assert!(png.len() < 120 * 1024, "{} bytes", png.len());
        // The text part keeps the map.
        assert!(p.text.contains("Key:"), "{}", p.text);
        cids.push(cid);
    }
    // Rocket's board is public: one picture for every player of a change.
    assert!(cids.windows(2).all(|w| w[0] == w[1]), "{cids:?}");
}

/// Each Linie 1 player laying track is sent their own picture (issue 35):
/// the spectator's, with their line, terminals, stops and route on it,
/// and nobody else's.
#[test]
fn a_linie1_report_carries_each_players_own_picture() {
    let setup = stationmaster::engine::Setup {
        kind: "linie1".into(),
        ..common::setup(&ABC, 7, &[])
    };
    let mut t = Table::of(true, setup);
    let reports = t.reports();
    assert_eq!(reports.len(), 3);
    let game = t.daemon.store().load(&t.id).expect("the game").game;
    let spectator = game
        .picture(&[], None)
        .expect("events read")
        .expect("Linie 1 draws its board")
        .svg();
    assert!(spectator.contains("line secret"), "{spectator}");
    for secret in ["route card", "your stops"] {
        assert!(!spectator.contains(secret), "{spectator}");
    }
    let own: Vec<Picture> = (0..3)
        .map(|s| {
            game.own_board(Viewer::Player(Seat(s)), &[], None, true)
                .expect("events read")
                .and_then(|own| own.picture)
                .expect("a player laying track has a picture of their own")
        })
        .collect();
    let mut cids = Vec::new();
    for mail in &reports {
        let seat = ABC
            .iter()
            .position(|n| mail.to[0].starts_with(&n.to_lowercase()))
            .unwrap_or_else(|| panic!("a mail to a player: {:?}", mail.to));
        let (cid, png) = parts(mail).picture.expect("an image/png part");
        let decoder = png::Decoder::new(std::io::Cursor::new(&png));
        let info = decoder.read_info().expect("a PNG").info().clone();
        assert_eq!(info.width, 600);
        assert!(png.len() < 120 * 1024, "{} bytes", png.len());
        // Their own picture: their cards, their route, and nobody else's.
        let svg = own[seat].svg();
        for (other, pic) in own.iter().enumerate() {
            let card = pic
                .layers
                .last()
                .and_then(|l| l.svg.split("route card ").nth(1))
                .and_then(|rest| rest.split(':').next())
                .expect("a route card in each player's layer");
            let card = format!("route card {card}:");
            assert_eq!(svg.contains(&card), other == seat, "{card} in {seat}'s");
        }
        let drawn = stationmaster::picture::Png {
            bytes: png,
            width: info.width,
            height: info.height,
        };
        assert_shows_the_whole(&drawn, &own[seat], "a player's own picture", true);
        cids.push(cid);
    }
    let mut distinct = cids.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "a picture for each: {cids:?}");
}

#[test]
fn with_pictures_off_a_report_is_text_and_html_only() {
    let mut t = Table::new(false);
    for mail in t.reports() {
        let raw = String::from_utf8_lossy(&mail.bytes);
        assert!(!raw.contains("multipart/related"), "{raw}");
        assert!(!raw.contains("image/png"), "{raw}");
        let p = parts(&mail);
        assert!(p.picture.is_none());
        assert!(!p.html.contains("<img"), "{}", p.html);
        assert!(p.html.contains("<pre"));
    }
}

/// Issue 38: the game-over mail of a game's moderator showed no picture,
/// where every player's showed the board as it ended.
#[test]
fn the_moderators_game_over_mail_shows_the_board_as_it_ended() {
    use stationmaster::service::moderator::{self, ModCommand};
    let mut t = Table::new(true);
    t.reports();
    t.outbox.take();
    let gm = "gm@example.org";
    let ctx = t.daemon.ctx();
    let made = moderator::run(
        &ctx,
        &t.id,
        gm,
        &ModCommand::Moderator(gm.into()),
        None,
        t.now,
    )
    .expect("a moderator added");
    t.daemon.store().commit(&made.change).expect("committed");
    let ctx = t.daemon.ctx();
    let over = moderator::run(&ctx, &t.id, gm, &ModCommand::Abort, Some("a test"), t.now)
        .expect("aborted");
    t.daemon.store().commit(&over.change).expect("committed");
    t.daemon
        .process(t.now, &AtomicBool::new(false))
        .expect("sent");
    let mails = t.outbox.take();
    let to_gm: Vec<&OutMail> = mails
        .iter()
        .filter(|m| m.to.iter().any(|to| to == gm) && parts(m).text.contains("The game is over"))
        .collect();
    assert_eq!(to_gm.len(), 1, "one game-over mail to the moderator");
    let p = parts(to_gm[0]);
    let (cid, _) = p.picture.expect("the board's picture");
    let cid = cid.trim_matches(|c| c == '<' || c == '>');
    assert!(p.html.contains(&format!("src=\"cid:{cid}\"")), "{}", p.html);
}

#[test]
fn show_writes_the_board_as_svg_and_as_png() {
    let mut t = Table::new(true);
    t.reports();
    let dir = tempfile::tempdir().expect("a temp dir");
    let svg = stationmaster::local::picture(t.daemon.store(), &t.id, None).expect("a picture");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    let png = stationmaster::picture::png_of_svg(&svg).expect("rendered");
    std::fs::write(dir.path().join("board.png"), &png.bytes).expect("written");
    assert_eq!(&png.bytes[1..4], b"PNG");
    // As a player sees it: the same board.
    let as_bela = stationmaster::local::picture(t.daemon.store(), &t.id, Some("Béla"))
        .expect("Béla's picture");
    assert_eq!(as_bela, svg);
}

/// Where Debian's Chromium is, if installed (`SM_CHROMIUM` may name another).
pub(crate) fn chromium() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("SM_CHROMIUM")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/usr/bin/chromium".into());
    path.is_file().then_some(path)
}

/// Chromium's screenshot of `html` (a file in `dir`), `width` pixels wide.
pub(crate) fn screenshot(chromium: &Path, dir: &Path, html: &Path, width: u32) -> Vec<u8> {
    let shot = dir.join("shot.png");
    let profile = dir.join("profile");
    std::fs::create_dir_all(&profile).expect("a profile folder");
    let mut child = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("--window-size={width},1000"))
        .arg(format!("file://{}", html.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("chromium starts");
    // Chromium may hang on a broken machine: two minutes, then fail.
    for _ in 0..1200 {
        if child.try_wait().expect("chromium's status").is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    if child.try_wait().expect("chromium's status").is_none() {
        let _ = child.kill();
        panic!("chromium took more than two minutes for a screenshot");
    }
    std::fs::read(&shot).expect("chromium wrote its screenshot")
}

/// The pixels of PNG `shot`, row by row, as RGB.
pub(crate) fn rgb_pixels(shot: &[u8]) -> (u32, Vec<[u8; 3]>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(shot));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, pixels)
}

/// How many pixels of the top `rows` of PNG `shot` are within 6 of `rgb`.
fn pixels_of(shot: &[u8], rows: u32, rgb: [u8; 3]) -> usize {
    let (width, pixels) = rgb_pixels(shot);
    pixels
        .iter()
        .take((rows * width) as usize)
        .filter(|p| (0..3).all(|i| p[i].abs_diff(rgb[i]) <= 6))
        .count()
}

/// How many pixels of PNGs `a` and `b` (the same size) differ, and by how
/// much at most in a channel.
fn pixels_apart(a: &[u8], b: &[u8]) -> (usize, usize, u8) {
    let (wa, a) = rgb_pixels(a);
    let (wb, b) = rgb_pixels(b);
    assert_eq!((wa, a.len()), (wb, b.len()), "the same size");
    let mut differ = 0;
    let mut most = 0;
    for (x, y) in a.iter().zip(&b) {
        let by = (0..3).map(|i| x[i].abs_diff(y[i])).max().unwrap_or(0);
        if by > 0 {
            differ += 1;
            most = most.max(by);
        }
    }
    (differ, a.len(), most)
}

/// How many pixels of PNGs `a` and `b` differ by more than `by` in a
/// channel.
fn pixels_apart_by(a: &[u8], b: &[u8], by: u8) -> usize {
    let (_, a) = rgb_pixels(a);
    let (_, b) = rgb_pixels(b);
    a.iter()
        .zip(&b)
        .filter(|(x, y)| (0..3).any(|i| x[i].abs_diff(y[i]) > by))
        .count()
}

/// The most pixels of PNGs `a` and `b` that differ by more than `by` in a
/// channel within one square of 16 by 16 pixels.
fn densest_patch(a: &[u8], b: &[u8], by: u8) -> usize {
    let (width, a) = rgb_pixels(a);
    let (_, b) = rgb_pixels(b);
    let mut patches: std::collections::HashMap<(usize, usize), usize> = Default::default();
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if (0..3).any(|c| x[c].abs_diff(y[c]) > by) {
            let (col, row) = (i % width as usize, i / width as usize);
            *patches.entry((col / 16, row / 16)).or_default() += 1;
        }
    }
    patches.values().copied().max().unwrap_or(0)
}

/// `drawn` shows what the whole SVG drawn at once shows (`show --png`, a
/// browser). Both are indexed, each with a palette of its own (256 colours
/// at most, a rare colour drawn in the nearest): a kept layer's or a
/// stamp's edges, rounded apart, may tip a rare colour to a near one (in
/// 1 % of the pixels at most, by 40 at most in a channel). A picture drawn
/// from another keeps that one's palette, and a colour it has no room for
/// is drawn in the nearest: a shade or two (in 1 % of the pixels at most by
/// more than 8), now and then a speck of an edge further off (by more than
/// 80: a few pixels, scattered). A band not drawn again that should have
/// been shows a piece where it was, or none where it is: a patch of such
/// pixels (16 or more in a square of 16 by 16).
fn assert_shows_the_whole(
    drawn: &stationmaster::picture::Png,
    p: &Picture,
    how: &str,
    from_another: bool,
) {
    let whole = stationmaster::picture::png_of_svg(&p.svg()).expect("rendered");
    assert_eq!((drawn.width, drawn.height), (whole.width, whole.height));
    let (differ, of, most) = pixels_apart(&drawn.bytes, &whole.bytes);
    if std::env::var_os("SM_DUMP").is_some() && differ > 0 {
        std::fs::write("/tmp/drawn.png", &drawn.bytes).ok();
        std::fs::write("/tmp/whole.png", &whole.bytes).ok();
        std::fs::write("/tmp/whole.svg", p.svg()).ok();
    }
    let far = pixels_apart_by(&drawn.bytes, &whole.bytes, 80);
    let say = format!("{how}: {differ} of {of} pixels differ, by up to {most}, {far} by over 80");
    if from_another {
        let patch = densest_patch(&drawn.bytes, &whole.bytes, 80);
        assert!(
            patch < 16,
            "{say}; {patch} by over 80 in one patch of 16 x 16"
        );
        assert!(
            pixels_apart_by(&drawn.bytes, &whole.bytes, 8) * 100 < of,
            "{say}"
        );
    } else {
        assert!(most <= 40, "{say}");
        assert!(differ * 100 < of, "{say}");
    }
}

/// A report's PNG is drawn a piece at a time, each fixed layer (the land,
/// the names) and each stamp (a kind of Linie 1 tile) drawn once and kept
/// for the next picture. It must show what the whole SVG shows.
#[test]
fn a_picture_drawn_in_layers_is_the_whole_svg_drawn_at_once() {
    let mut g = common::game_with(&ABC, ANDI, &[]);
    let events = common::lswr_into_gwr(&mut g);
    let linie1 = common::linie1_with_route(&common::linie1_game(&ABC, 7, &[]));
    let empty = common::linie1_game(&ABC, 7, &[]);
    let pictures = [
        picture(&common::game(&ABC), &[]),
        picture(&g, &events),
        Linie1::picture(linie1.board(), &linie1.view(Viewer::Spectator), &[], None)
            .expect("Linie 1 draws its board"),
        // No tile laid: nothing stamped, only the bottom layer kept.
        Linie1::picture(empty.board(), &empty.view(Viewer::Spectator), &[], None)
            .expect("Linie 1 draws its board"),
    ];
    assert!(pictures[3].layers.iter().all(|l| l.stamps.is_empty()));
    for p in &pictures {
        // With nothing kept to start from, and from what is kept.
        let anew = stationmaster::picture::draw(p).expect("rendered");
        let layered = stationmaster::picture::png(p).expect("rendered");
        // The same picture again (a report sent again), from a kept
        // picture: the same one, or another test's of the same board.
        let again = stationmaster::picture::png(p).expect("rendered");
        assert_shows_the_whole(&anew, p, "anew", false);
        assert_shows_the_whole(&layered, p, "from what is kept", true);
        assert_shows_the_whole(&again, p, "again", true);
        let stamps = p.layers.iter().any(|l| !l.stamps.is_empty());
        if !stamps && p.layers.iter().skip(1).all(|l| !l.fixed) {
            // Only the bottom layer kept: the same pixels.
            let whole = stationmaster::picture::png_of_svg(&p.svg()).expect("rendered");
            assert_eq!(pixels_apart(&anew.bytes, &whole.bytes).0, 0);
        }
    }
}

/// A game's pictures, change by change, as the daemon draws them: each
/// from the one before, only the bands a change touched drawn again (and
/// a Linie 1 player's own from the spectator's or their last). Each must
/// show what its whole SVG shows.
#[test]
fn each_picture_of_a_game_drawn_from_the_one_before_shows_its_whole_svg() {
    fn play<G: Game>(mut g: G, seed: u64, changes: usize, every: usize) {
        let mut rng = stationmaster::engine::rng::SplitMix64::new(seed);
        for n in 0..changes {
            let Some(awaited) = g.awaiting().first().map(|a| a.seat) else {
                break;
            };
            let legal = g.legal_orders(awaited);
            if legal.is_empty() {
                break;
            }
            let order = legal[rng.below(legal.len())].clone();
            let events = g.apply(awaited, &order).expect("a legal order applies");
            let p = G::picture(g.board(), &g.view(Viewer::Spectator), &events, None)
                .expect("the game draws its board");
            let png = stationmaster::picture::png(&p).expect("rendered");
            if n % every == 0 {
                assert_shows_the_whole(&png, &p, &format!("change {n}"), true);
            }
            // The first player's own picture (Linie 1, while they lay
            // track), drawn after everyone's, as a report draws it.
            let own = stationmaster::engine::AnyGame::own_board(
                &g,
                Viewer::Player(Seat(0)),
                &[],
                None,
                true,
            )
            .expect("events read")
            .and_then(|own| own.picture);
            if let Some(own) = own {
                let png = stationmaster::picture::png(&own).expect("rendered");
                if n % every == 0 {
                    assert_shows_the_whole(&png, &own, &format!("change {n}, own"), true);
                }
            }
        }
    }
    play(common::game(&ABC), 11, 120, 7);
    play(common::linie1_game(&ABC, 11, &[]), 11, 80, 5);
}

/// A change draws again only the bands of pixels it touched. Laying a
/// Linie 1 tile puts it among the others of its kind, which changes the
/// order they are painted in but nothing they show (no two squares
/// overlap); and the picture a round of turns before shares more lines of
/// the legend with the next than the last does. Both drew most of the
/// board again, a third of every picture late in a game (the cost of a
/// mail grew with the board, issue 16).
#[test]
fn a_linie1_tile_laid_draws_again_only_the_bands_it_touched() {
    let mut g = common::linie1_game(&ABC, 11, &[]);
    let mut rng = stationmaster::engine::rng::SplitMix64::new(11);
    let mut widest = (0, 0, 0);
    for n in 0..80 {
        let Some(awaited) = g.awaiting().first().map(|a| a.seat) else {
            break;
        };
        let legal = g.legal_orders(awaited);
        let order = legal[rng.below(legal.len())].clone();
        let events = g.apply(awaited, &order).expect("a legal order applies");
        let p = Linie1::picture(g.board(), &g.view(Viewer::Spectator), &events, None)
            .expect("the game draws its board");
        let before = stationmaster::picture::counts();
        stationmaster::picture::png(&p).expect("rendered");
        let after = stationmaster::picture::counts();
        let drawn = after.bands_drawn - before.bands_drawn;
        // The first has no picture of this game's before it: it starts
        // from whatever other tests left kept (their players' own
        // pictures among them), or from nothing.
        if n > 0 && after.from_another > before.from_another && drawn > widest.0 {
            widest = (drawn, after.bands - before.bands, n);
        }
    }
    // A change of a Linie 1 game touches its title, the squares of the
    // tiles laid (a square is 2.5 bands high, 4 where it straddles them),
    // a tram's, and a few lines of the legend: some 7 to 12 bands, and at
    // most 16 in this game. A tile's kind painted in another order, or a
    // picture a round of turns old taken to start from, drew 23 to 35.
    let (drawn, of, n) = widest;
    assert!(
        drawn <= 20,
        "change {n} drew {drawn} of the picture's {of} bands again"
    );
}

#[test]
fn a_report_shows_its_picture_in_chromium() {
    let Some(chromium) = chromium() else {
        skip!("no Chromium (apt-get install chromium, as .ci/run does)");
        return;
    };
    let mut t = Table::new(true);
    let mail = t.reports().remove(0);
    let p = parts(&mail);
    let (cid, png) = p.picture.expect("a picture");
    let cid = cid.trim_matches(|c| c == '<' || c == '>');
    let dir = tempfile::tempdir().expect("a temp dir");
    // The HTML part as a mail program shows it: `cid:` resolved to the
    // attached PNG, taken from the mail (a file beside the page).
    std::fs::write(dir.path().join("board.png"), &png).expect("written");
    let html = p.html.replace(&format!("cid:{cid}"), "board.png");
    assert_ne!(html, p.html, "the HTML refers to its picture");
    let page = dir.path().join("report.html");
    std::fs::write(&page, &html).expect("written");
    // A phone's width: the picture scales down to fit.
    let shot = screenshot(&chromium, dir.path(), &page, 400);
    let land = pixels_of(&shot, 700, LAND);
    let sea = pixels_of(&shot, 700, SEA);
    assert!(
        land > 20_000 && sea > 5_000,
        "the board is not in the screenshot's top: {land} land and {sea} sea pixels"
    );
    // Against the same page with the picture missing: no board, a broken
    // image at most (so the check above can fail).
    std::fs::remove_file(dir.path().join("board.png")).expect("removed");
    let broken = screenshot(&chromium, dir.path(), &page, 400);
    assert!(pixels_of(&broken, 700, LAND) < 100);
}

/// A report that could not go at once waits in the outbox, which keeps one
/// copy of a change's picture for all its mails: it still goes with the
/// very picture the others carried.
#[test]
fn reports_that_wait_in_the_outbox_keep_their_picture() {
    let mut t = Table::new(true);
    t.outbox.fail_next_sends(2);
    let at_once = t.reports();
    assert_eq!(at_once.len(), 1, "two reports wait");
    t.now += chrono::Duration::minutes(5);
    t.daemon
        .process(t.now, &AtomicBool::new(false))
        .expect("sent");
    let later = t.outbox.take();
    assert_eq!(later.len(), 2, "the two that waited went");
    let pictures: Vec<(String, Vec<u8>)> = at_once
        .iter()
        .chain(&later)
        .map(|m| parts(m).picture.expect("an image/png part"))
        .collect();
    assert!(pictures.windows(2).all(|w| w[0] == w[1]));
    let decoder = png::Decoder::new(std::io::Cursor::new(&pictures[0].1));
    assert!(decoder.read_info().is_ok(), "a PNG");
}

/// Rocket keeps the layers that follow from its board alone (the hexes,
/// the places and their names) once a board: a game on another board,
/// here the shipped one with a town renamed, shows its own names, and a
/// game on the shipped board its own, whichever was drawn first.
#[test]
fn each_board_keeps_its_own_fixed_layers() {
    use stationmaster::rocket::Board;
    let shipped = include_str!("../../games/rocket/board.toml");
    let renamed = shipped
        .replace("name = \"Liverpool\"", "name = \"Port of Liverpool\"")
        .replace("start = \"Liverpool\"", "start = \"Port of Liverpool\"");
    assert_ne!(shipped, renamed, "the shipped board names Liverpool");
    let other = Board::parse("renamed.toml", &renamed).expect("the renamed board reads");
    let on_other =
        Rocket::new(other, &common::setup(&ABC, 1, &[])).expect("a game on the renamed board");
    let on_shipped = common::game(&ABC);
    for _ in 0..2 {
        let mine = svg(&on_shipped, &[]);
        let theirs = svg(&on_other, &[]);
        assert!(mine.contains(">Liverpool<"), "the shipped board's name");
        assert!(!mine.contains("Port of Liverpool"), "not the other board's");
        assert!(
            theirs.contains(">Port of Liverpool<"),
            "the renamed board's name"
        );
        assert!(!theirs.contains(">Liverpool<"), "not the shipped board's");
    }
}
