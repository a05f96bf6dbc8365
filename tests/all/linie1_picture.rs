//! Linie 1's board as a picture (issue 14 point 1): the SVG drawn from a
//! reader's view, for games set up and played through the public API.
//!
//! Golden copies of four positions (the start, a board full of track and
//! stop signs, a tram on its trip, a finished game) in
//! `tests/fixtures/pictures/linie1_*.svg`, reviewed once as pictures and
//! compared after; and behaviour: the document is well-formed standalone
//! SVG with no outside reference, every laid tile is drawn where it lies as
//! its own track, a tram stands on its square, and a secret card hidden by
//! the view is nowhere in the picture, while its owner sees it.

use stationmaster::engine::Viewer;
use stationmaster::engine::canvas::css_colour;
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, Seat, Status};
use stationmaster::linie1::picture::board_svg;
use stationmaster::linie1::{Linie1, Square, View};

use crate::common::{assert_svg_matches, linie1_game, linie1_pick, linie1_with_route};

const NAMES: [&str; 4] = ["Anna", "Bert", "Cora", "Dan"];

/// The picture of `g` for `reader`.
fn svg(g: &Linie1, reader: Viewer) -> String {
    board_svg(&g.view(reader), g.data())
}

/// Plays random legal orders (a trip started whenever one can be) until
/// `done` holds; false if the game ended or `most` orders went by first.
fn play_until(g: &mut Linie1, seed: u64, most: usize, done: impl Fn(&Linie1) -> bool) -> bool {
    let mut rng = SplitMix64::new(seed);
    for _ in 0..most {
        if done(g) {
            return true;
        }
        let Some(seat) = g.awaiting().first().map(|a| a.seat) else {
            return false;
        };
        let order = linie1_pick(&mut rng, &g.legal_orders(seat));
        g.apply(seat, &order).unwrap();
    }
    done(g)
}

/// Four players after some fifty turns of random laying: much of the board
/// covered, many stop signs out.
fn midgame() -> Linie1 {
    let mut g = linie1_game(&NAMES, 11, &[]);
    assert!(play_until(&mut g, 11, 400, |g| g
        .view(Viewer::Spectator)
        .tiles
        .len()
        >= 50));
    let v = g.view(Viewer::Spectator);
    assert!(v.stop_signs.len() >= 6, "{} stop signs", v.stop_signs.len());
    g
}

/// Anna's tram on its way along her built route (line 2, from 2W along row
/// 10 and up column K to 2E), while the others lay track.
fn on_trip() -> Linie1 {
    let mut g = linie1_with_route(&linie1_game(&NAMES, 5, &[]));
    let moved = |g: &Linie1| {
        g.view(Viewer::Spectator).players[0]
            .trip
            .as_ref()
            .and_then(|t| t.tram.as_deref())
            .and_then(Square::parse)
            .is_some_and(|s| s.col >= 3)
    };
    assert!(play_until(&mut g, 5, 200, moved));
    g
}

/// A game won: the first seed whose random play finishes Anna's trip.
fn finished() -> Linie1 {
    for seed in 0..50 {
        let mut g = linie1_with_route(&linie1_game(&NAMES[..3], seed, &["stops=2"]));
        let won = |g: &Linie1| matches!(g.status(), Status::Finished(_));
        if play_until(&mut g, seed, 2000, won) && g.outcome().is_some_and(|o| o.winner.is_some()) {
            return g;
        }
    }
    panic!("no seed below 50 finishes a trip");
}

#[test]
fn golden_start_of_a_game() {
    let g = linie1_game(&NAMES[..3], 7, &[]);
    assert_svg_matches(&svg(&g, Viewer::Player(Seat(0))), "linie1_start.svg");
}

#[test]
fn golden_board_full_of_track_and_stop_signs() {
    assert_svg_matches(
        &svg(&midgame(), Viewer::Player(Seat(1))),
        "linie1_midgame.svg",
    );
}

#[test]
fn golden_tram_on_its_trip() {
    assert_svg_matches(&svg(&on_trip(), Viewer::Player(Seat(2))), "linie1_trip.svg");
}

#[test]
fn golden_finished_game() {
    assert_svg_matches(&svg(&finished(), Viewer::Spectator), "linie1_finished.svg");
}

#[test]
fn the_picture_is_standalone_svg_a_phone_can_shrink() {
    for (g, reader) in [
        (linie1_game(&NAMES, 3, &["die"]), Viewer::Player(Seat(3))),
        (midgame(), Viewer::Spectator),
        (on_trip(), Viewer::Player(Seat(0))),
        (finished(), Viewer::Player(Seat(1))),
    ] {
        let text = svg(&g, reader);
        let root = parse_xml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(root.name, "svg");
        assert_eq!(root.attr("xmlns"), Some("http://www.w3.org/2000/svg"));
        let width: u32 = root.attr("width").unwrap().parse().unwrap();
        let height: u32 = root.attr("height").unwrap().parse().unwrap();
        assert!((600..=700).contains(&width), "width {width}");
        assert_eq!(
            root.attr("viewBox"),
            Some(format!("0 0 {width} {height}").as_str())
        );
        assert_eq!(root.attr("font-family"), Some("DejaVu Sans"));
        let ids: Vec<&str> = root.all().filter_map(|e| e.attr("id")).collect();
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "ids are unique");
        for e in root.all() {
            assert!(
                !["style", "filter", "image", "script", "foreignObject"].contains(&e.name.as_str()),
                "<{}> in the picture",
                e.name
            );
            if e.name != "svg" {
                assert_eq!(e.attr("font-family"), None, "one font, set once");
            }
            if let Some(href) = e.attr("xlink:href").or(e.attr("href")) {
                let target = href.strip_prefix('#').expect("only references inside");
                assert!(ids.contains(&target), "#{target} is defined");
            }
            if e.name == "text" {
                let size: u32 = e.inherited(&root, "font-size").unwrap().parse().unwrap();
                assert!(size >= 11, "text of {size} px: {:?}", e.text);
            }
        }
        // Integers or one decimal: no float noise to carry.
        for number in text.split(|c: char| !(c.is_ascii_digit() || c == '.')) {
            if let Some((_, decimals)) = number.split_once('.') {
                assert!(decimals.len() <= 1, "{number} in the picture");
            }
        }
    }
}

#[test]
fn every_laid_tile_is_drawn_where_it_lies_as_its_own_track() {
    let g = midgame();
    let v = g.view(Viewer::Player(Seat(2)));
    let text = board_svg(&v, g.data());
    let root = parse_xml(&text).unwrap();
    let uses: Vec<&Element> = root.all().filter(|e| e.name == "use").collect();
    assert_eq!(uses.len(), v.tiles.len(), "one drawing a tile");
    let mut columns: Vec<(u8, i32)> = Vec::new();
    let mut rows: Vec<(u8, i32)> = Vec::new();
    for tile in &v.tiles {
        let drawn = uses
            .iter()
            .find(|u| u.attr("id") == Some(tile.square.as_str()))
            .unwrap_or_else(|| panic!("{} is not drawn", tile.square));
        let kind = match tile.trees {
            true => format!("{}-trees", tile.paths.replace('+', "-")),
            false => tile.paths.replace('+', "-"),
        };
        assert_eq!(drawn.attr("xlink:href"), Some(format!("#{kind}").as_str()));
        // The drawing of that kind of tile: one stroke a path, bed and rails.
        let def = root
            .all()
            .find(|e| e.attr("id") == Some(kind.as_str()) && e.name == "g")
            .unwrap();
        let strokes: Vec<&str> = def
            .children
            .iter()
            .filter(|e| e.name == "path")
            .filter_map(|e| e.attr("d"))
            .collect();
        assert_eq!(strokes.len(), 2, "{kind}: bed and rails");
        for d in strokes {
            assert_eq!(
                d.matches('M').count(),
                tile.paths.split('+').count(),
                "{kind}: {d}"
            );
        }
        let s = Square::parse(&tile.square).unwrap();
        columns.push((s.col, drawn.attr("x").unwrap().parse().unwrap()));
        rows.push((s.row, drawn.attr("y").unwrap().parse().unwrap()));
    }
    // One place a column and a row, in board order.
    for places in [&mut columns, &mut rows] {
        places.sort();
        places.dedup();
        for w in places.windows(2) {
            assert!(w[0].0 < w[1].0 && w[0].1 < w[1].1, "{places:?}");
        }
    }
}

#[test]
fn a_tram_stands_on_its_square_with_its_line_number() {
    let g = on_trip();
    let v = g.view(Viewer::Player(Seat(1)));
    let anna = &v.players[0];
    let at = anna.trip.as_ref().and_then(|t| t.tram.clone()).unwrap();
    let line = anna.line.unwrap().to_string();
    let root = parse_xml(&board_svg(&v, g.data())).unwrap();
    let corner = |square: &str| -> (i32, i32) {
        let u = root
            .all()
            .find(|e| e.name == "use" && e.attr("id") == Some(square))
            .unwrap();
        (
            u.attr("x").unwrap().parse().unwrap(),
            u.attr("y").unwrap().parse().unwrap(),
        )
    };
    // Row 10 is built from A to J: the width of a square.
    let cell = corner("B10").0 - corner("A10").0;
    let (x, y) = corner(&at);
    let on_square = root.all().any(|e| {
        let n = |a: &str| e.attr(a).and_then(|v| v.parse::<i32>().ok());
        e.name == "text"
            && e.text == line
            && n("x").is_some_and(|tx| (x..x + cell).contains(&tx))
            && n("y").is_some_and(|ty| (y..y + cell).contains(&ty))
    });
    assert!(on_square, "no tram of line {line} on {at}");
}

/// Six players (rule book, Preparazione: six trams), each drawn with
/// their own line's number and colour once their cards are shown.
#[test]
fn six_players_each_have_a_tram_of_their_own_colour() {
    let names = ["Anna", "Bert", "Cora", "Dan", "Eve", "Fay"];
    let g = linie1_game(&names, 3, &[]);
    let v = g.view_over(Viewer::Spectator);
    let text = board_svg(&v, g.data());
    let mut colours: Vec<&str> = Vec::new();
    for (p, name) in v.players.iter().zip(names) {
        let n = p.line.expect("shown at the end");
        let line = &g.data().lines[usize::from(n) - 1];
        assert!(
            text.contains(&format!("{name}</tspan> · line {n} ({})", line.colour)),
            "{name}, line {n}"
        );
        let fill = css_colour(&line.colour);
        assert!(text.contains(&format!("fill=\"{fill}\"")), "{name}'s tram");
        colours.push(fill);
    }
    colours.sort_unstable();
    colours.dedup();
    assert_eq!(colours.len(), 6, "six colours: {colours:?}");
    assert!(
        !colours.contains(&"#9e9e9e"),
        "none is the hidden tram's grey"
    );
}

#[test]
fn a_secret_card_is_in_no_picture_but_its_owners() {
    let g = linie1_game(&NAMES[..3], 9, &[]);
    let own = g.view(Viewer::Player(Seat(0)));
    let anna = &own.players[0];
    let card = format!("route card {}", anna.route_card.as_ref().unwrap());
    let line = format!("line {} (", anna.line.unwrap());
    let mine = svg(&g, Viewer::Player(Seat(0)));
    assert!(mine.contains(&card) && mine.contains(&line), "{mine}");
    for reader in [
        Viewer::Player(Seat(1)),
        Viewer::Player(Seat(2)),
        Viewer::Spectator,
    ] {
        let theirs = svg(&g, reader);
        assert!(!theirs.contains(&card), "{reader:?} sees Anna's {card}");
        assert!(!theirs.contains(&line), "{reader:?} sees Anna's {line}");
    }
    // Anna's and Cora's cards swapped: Bert's picture cannot tell.
    let mut state = serde_json::to_value(&g).unwrap();
    let players = state["players"].as_array_mut().unwrap();
    for field in ["line", "route"] {
        let a = players[0][field].clone();
        players[0][field] = players[2][field].clone();
        players[2][field] = a;
    }
    let swapped: Linie1 = serde_json::from_value(state).unwrap();
    assert_eq!(
        svg(&swapped, Viewer::Player(Seat(1))),
        svg(&g, Viewer::Player(Seat(1)))
    );
    assert_eq!(svg(&swapped, Viewer::Spectator), svg(&g, Viewer::Spectator));
    assert_ne!(svg(&swapped, Viewer::Player(Seat(0))), mine);
}

/// Two games the same on the table, Anna's and Cora's cards swapped:
/// Anna's route is built, so in one she may start her trip, and in the
/// other Cora holds the finished route (rulings 4: the cards, and so who
/// is close to finishing, are secret). The map and the picture, drawn
/// from the spectator's view through the engine, cannot tell them apart,
/// while Anna's status can. A map or picture that read the cards would
/// differ.
#[test]
fn the_map_and_picture_are_the_same_whoever_holds_the_cards() {
    use stationmaster::engine::AnyGame;
    let g = linie1_with_route(&linie1_game(&NAMES[..3], 9, &[]));
    let mut state = serde_json::to_value(&g).unwrap();
    let players = state["players"].as_array_mut().unwrap();
    for field in ["line", "route"] {
        let a = players[0][field].clone();
        players[0][field] = players[2][field].clone();
        players[2][field] = a;
    }
    let swapped: Linie1 = serde_json::from_value(state).unwrap();
    let anna = Viewer::Player(Seat(0));
    assert!(AnyGame::render_status(&g, anna).contains("the trip to start"));
    assert_ne!(
        AnyGame::render_status(&g, anna),
        AnyGame::render_status(&swapped, anna)
    );
    assert_eq!(AnyGame::render_map(&g), AnyGame::render_map(&swapped));
    for stopped in [None, Some("aborted by the moderator")] {
        let svg = |game: &Linie1| {
            AnyGame::picture(game, &[], stopped)
                .unwrap()
                .expect("Linie 1 draws its board")
                .svg()
        };
        assert_eq!(svg(&g), svg(&swapped), "{stopped:?}");
    }
}

#[test]
fn every_position_of_a_game_draws_for_every_reader() {
    // A trip driven to its end while the others lay: starts, moves, stops,
    // a tram in a terminal, a finished game. Every picture is XML with one
    // drawing a laid tile.
    let mut g = linie1_with_route(&linie1_game(&NAMES, 21, &["die_or_repeat"]));
    let mut rng = SplitMix64::new(21);
    for _ in 0..600 {
        for reader in [
            Viewer::Spectator,
            Viewer::Player(Seat(0)),
            Viewer::Player(Seat(3)),
        ] {
            let v = g.view(reader);
            let text = board_svg(&v, g.data());
            let root = parse_xml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let uses = root.all().filter(|e| e.name == "use").count();
            assert_eq!(uses, v.tiles.len());
        }
        let Some(seat) = g.awaiting().first().map(|a| a.seat) else {
            break;
        };
        let order = linie1_pick(&mut rng, &g.legal_orders(seat));
        g.apply(seat, &order).unwrap();
    }
    assert!(g.outcome().is_some(), "the game ended");
}

#[test]
fn the_title_says_whose_turn_it_is_or_who_won() {
    let g = linie1_game(&NAMES[..2], 1, &[]);
    assert!(svg(&g, Viewer::Player(Seat(0))).contains(">Linie 1 · turn 1 · you: 2 tiles to lay<"));
    assert!(svg(&g, Viewer::Player(Seat(1))).contains(">Linie 1 · turn 1 · Anna: 2 tiles to lay<"));
    // At the end nobody has a layer of their own (issue 35): one picture
    // for all, the winner named.
    let g = finished();
    for reader in [Viewer::Player(Seat(0)), Viewer::Player(Seat(1))] {
        let text = svg(&g, reader);
        assert!(text.contains(">Game over: Anna finished the inaugural trip. Anna wins.<"));
        assert_eq!(text, svg(&g, Viewer::Spectator));
    }
}

#[test]
fn names_and_reasons_are_text_not_markup() {
    // Setup allows only one-word names; a view read back from elsewhere
    // might hold anything.
    let g = linie1_game(&NAMES[..2], 1, &[]);
    let mut v = serde_json::to_value(g.view(Viewer::Player(Seat(1)))).unwrap();
    v["players"][0]["name"] = "<b>Tom & Jerry</b>\u{7}".into();
    v["result"] = serde_json::json!({"winner": null, "reason": "a <reason> & more"});
    let v: View = serde_json::from_value(v).unwrap();
    let text = board_svg(&v, g.data());
    let root = parse_xml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(
        root.all()
            .any(|e| e.name == "tspan" && e.text == "<b>Tom & Jerry</b> "),
        "{text}"
    );
    assert!(root.all().any(|e| e.text.contains("a <reason> & more")));
    assert!(!root.all().any(|e| e.name == "b"));
}

#[test]
fn the_xml_check_refuses_what_is_not_xml() {
    assert!(parse_xml("<svg><g></svg>").is_err());
    assert!(parse_xml("<svg a=\"1\" a=\"2\"/>").is_err());
    assert!(parse_xml("<svg>Tom & Jerry</svg>").is_err());
    assert!(parse_xml("<svg x=1/>").is_err());
    assert!(parse_xml("<svg/><svg/>").is_err());
    assert!(parse_xml("<svg>\u{1}</svg>").is_err());
    let e = parse_xml("<?xml version=\"1.0\"?><svg a=\"&lt;\"><g>x &amp; y</g></svg>").unwrap();
    assert_eq!(e.attr("a"), Some("<"));
    assert_eq!(e.children[0].text, "x & y");
}

// ----- A small XML reader: enough to check the picture is well-formed. ------

/// An element: its name, attributes (entities read), child elements and
/// the text directly inside it.
#[derive(Debug)]
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Element>,
    text: String,
}

impl Element {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// This element and every one below it, in document order.
    fn all(&self) -> Box<dyn Iterator<Item = &Element> + '_> {
        Box::new(std::iter::once(self).chain(self.children.iter().flat_map(|c| c.all())))
    }

    /// An attribute on this element or the nearest ancestor under `root`
    /// that has it.
    fn inherited<'a>(&'a self, root: &'a Element, name: &str) -> Option<&'a str> {
        fn path<'a>(from: &'a Element, to: &Element, out: &mut Vec<&'a Element>) -> bool {
            out.push(from);
            if std::ptr::eq(from, to) || from.children.iter().any(|c| path(c, to, out)) {
                return true;
            }
            out.pop();
            false
        }
        let mut chain = Vec::new();
        path(root, self, &mut chain);
        chain.iter().rev().find_map(|e| e.attr(name))
    }
}

/// Reads a document of one root element (after an optional `<?xml …?>`),
/// refusing what XML 1.0 does not allow: unclosed or crossed tags, an
/// attribute twice or without quotes, a bare `&` or `<`, control
/// characters, anything after the root.
fn parse_xml(doc: &str) -> Result<Element, String> {
    if let Some(c) = doc
        .chars()
        .find(|c| c.is_control() && !['\n', '\r', '\t'].contains(c))
    {
        return Err(format!("control character {c:?}"));
    }
    let mut rest = doc.trim_start();
    if rest.starts_with("<?xml") {
        let end = rest.find("?>").ok_or("unclosed <?xml")?;
        rest = rest[end + 2..].trim_start();
    }
    let (root, after) = element(rest)?;
    if !after.trim().is_empty() {
        return Err(format!("after the root: {:.40}", after.trim()));
    }
    Ok(root)
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':')
}

fn name(s: &str) -> Result<(&str, &str), String> {
    let end = s.find(|c: char| !is_name_char(c)).unwrap_or(s.len());
    match s[..end].chars().next() {
        Some(c) if c.is_alphabetic() || c == '_' || c == ':' => Ok((&s[..end], &s[end..])),
        _ => Err(format!("a name expected at {:.40}", s)),
    }
}

/// Text with its entities read; a bare `<` or `&` is an error.
fn unescape(s: &str) -> Result<String, String> {
    if s.contains('<') {
        return Err(format!("`<` in text {s:.40}"));
    }
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let end = rest[i..].find(';').ok_or(format!("bare & in {s:.40}"))? + i;
        let entity = &rest[i + 1..end];
        let c = match entity {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => entity
                .strip_prefix("#x")
                .map(|h| u32::from_str_radix(h, 16))
                .or_else(|| entity.strip_prefix('#').map(str::parse))
                .and_then(Result::ok)
                .and_then(char::from_u32)
                .ok_or(format!("unknown entity &{entity};"))?,
        };
        out.push(c);
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// One element from the `<` that opens it: it and what follows it.
fn element(s: &str) -> Result<(Element, &str), String> {
    let s = s.strip_prefix('<').ok_or("`<` expected")?;
    let (tag, mut s) = name(s)?;
    let mut e = Element {
        name: tag.to_string(),
        attrs: Vec::new(),
        children: Vec::new(),
        text: String::new(),
    };
    loop {
        let trimmed = s.trim_start();
        if let Some(after) = trimmed.strip_prefix("/>") {
            return Ok((e, after));
        }
        if let Some(after) = trimmed.strip_prefix('>') {
            s = after;
            break;
        }
        if trimmed.len() == s.len() {
            return Err(format!("space expected in <{tag} at {trimmed:.40}"));
        }
        let (attr, after) = name(trimmed)?;
        let after = after.strip_prefix('=').ok_or(format!("`=` after {attr}"))?;
        let quote = after
            .chars()
            .next()
            .filter(|c| *c == '"' || *c == '\'')
            .ok_or(format!("{attr}'s value is not quoted"))?;
        let end = after[1..].find(quote).ok_or("unclosed value")? + 1;
        if e.attrs.iter().any(|(n, _)| n == attr) {
            return Err(format!("{attr} twice on <{tag}>"));
        }
        e.attrs.push((attr.to_string(), unescape(&after[1..end])?));
        s = &after[end + 1..];
    }
    loop {
        let lt = s.find('<').ok_or(format!("<{tag}> is not closed"))?;
        e.text.push_str(&unescape(&s[..lt])?);
        s = &s[lt..];
        if let Some(after) = s.strip_prefix("</") {
            let (closing, after) = name(after)?;
            if closing != tag {
                return Err(format!("</{closing}> closes <{tag}>"));
            }
            let after = after.trim_start().strip_prefix('>').ok_or("`>` expected")?;
            return Ok((e, after));
        }
        let (child, after) = element(s)?;
        e.children.push(child);
        s = after;
    }
}
