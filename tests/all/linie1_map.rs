//! Linie 1's text map read back (issue 35, point 5): a reader who knows
//! only the key printed under the map reads every square's track off a
//! full board, exactly, on finished random games; and no line is wider
//! than a mail's 100 columns.

use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, Status};
use stationmaster::linie1::{Laid, Linie1, Paths, Square, TileId};

use crate::common::{linie1_game, linie1_pick as pick};

/// A square as the map shows it.
#[derive(Debug, PartialEq)]
enum Read {
    Empty,
    Building(char),
    Track(Paths),
}

/// What the key says each mark of track means: the words of the key that
/// say it, where the mark stands from the square's middle (lines down,
/// columns right), the mark, and the paths it draws.
const MARKS: [(&str, i32, i32, char, &str); 11] = [
    ("│ ─ through the middle: a straight NS, WE", 0, 0, '│', "NS"),
    ("│ ─ through the middle: a straight NS, WE", 0, 0, '─', "WE"),
    ("┼ both", 0, 0, '┼', "NS+WE"),
    ("╭ SE, ╮ SW, ╰ NE, ╯ NW", 0, 0, '╭', "SE"),
    ("╭ SE, ╮ SW, ╰ NE, ╯ NW", 0, 0, '╮', "SW"),
    ("╭ SE, ╮ SW, ╰ NE, ╯ NW", 0, 0, '╰', "NE"),
    ("╭ SE, ╮ SW, ╰ NE, ╯ NW", 0, 0, '╯', "NW"),
    ("╱ NW above left", -1, -1, '╱', "NW"),
    ("╲ NE above right", -1, 1, '╲', "NE"),
    ("╲ SW below left", 1, -1, '╲', "SW"),
    ("╱ SE below right", 1, 1, '╱', "SE"),
];

/// The key's words for the square's frame, the sides' track and the rest.
const FRAME: [&str; 6] = [
    "3 lines × 7 columns",
    "its middle under its letter",
    "Track at the middle of a side",
    "┃A┃ building A",
    "· empty square",
    "its number on its middle line",
];

/// Every square of `map` as its key tells: the squares stand under the
/// column letters, their middle lines beside the row numbers; a path ends
/// at each side whose middle has track (`│` a line above or below the
/// middle, `─` three columns left or right).
fn read_map(map: &str) -> Vec<(Square, Read)> {
    read_map_marked(map)
        .into_iter()
        .map(|(s, r, _)| (s, r))
        .collect()
}

/// [`read_map`], with whether each square carries the reader's own mark
/// (a player's map, issue 35), as its key's last lines tell: a building
/// in double lines one of their stops, `○` an empty square of their way.
fn read_map_marked(map: &str) -> Vec<(Square, Read, bool)> {
    let key = &map[map.find("Key:").expect("a key under the map")..];
    let yours = key.contains("Yours alone: ║A║ building A, one of your stops")
        && key.contains("○ an empty square on a shortest way");
    for words in MARKS.iter().map(|m| m.0).chain(FRAME) {
        assert!(key.contains(words), "the key says `{words}`:\n{key}");
    }
    let lines: Vec<Vec<char>> = map.lines().map(|l| l.chars().collect()).collect();
    let at = |line: usize, col: usize| lines[line].get(col).copied().unwrap_or(' ');
    let letters = (lines.iter())
        .find(|l| {
            l.iter()
                .copied()
                .filter(|c| !c.is_whitespace())
                .eq("ABCDEFGHIJKL".chars())
        })
        .expect("a line of column letters A to L");
    let middles: Vec<usize> = (letters.iter().enumerate())
        .filter(|(_, c)| c.is_ascii_uppercase())
        .map(|(i, _)| i)
        .collect();
    let mut squares = Vec::new();
    for (m, line) in lines.iter().enumerate() {
        let label = String::from_iter(line.iter().take(3));
        let Ok(row) = label.trim().parse::<u8>() else {
            continue;
        };
        for (col, &x) in middles.iter().enumerate() {
            let s = Square::new(row - 1, col as u8);
            let mark =
                |down: i32, right: i32| at((m as i32 + down) as usize, (x as i32 + right) as usize);
            squares.push(read_square(s, yours, mark));
        }
    }
    squares
}

/// Square `s`, given its `mark`s (lines down and columns right of its
/// middle), and whether it carries the reader's own mark (`yours`: the
/// key tells those marks).
fn read_square(s: Square, yours: bool, mark: impl Fn(i32, i32) -> char) -> (Square, Read, bool) {
    match mark(0, -2) {
        '┃' => return (s, Read::Building(mark(0, 0)), false),
        '║' if yours => return (s, Read::Building(mark(0, 0)), true),
        _ => {}
    }
    match mark(0, 0) {
        '·' => return (s, Read::Empty, false),
        '○' if yours => return (s, Read::Empty, true),
        _ => {}
    }
    let paths: Vec<&str> = (MARKS.iter())
        .filter(|(_, down, right, c, _)| mark(*down, *right) == *c)
        .map(|m| m.4)
        .collect();
    let paths =
        Paths::parse(&paths.join("+")).unwrap_or_else(|e| panic!("{s}: no track read ({e})"));
    let sides = [('N', mark(-1, 0), '│'), ('S', mark(1, 0), '│')]
        .into_iter()
        .chain([('W', mark(0, -3), '─'), ('E', mark(0, 3), '─')]);
    for (side, drawn, line) in sides {
        assert_eq!(
            drawn == line,
            paths.to_string().contains(side),
            "{s}: track at side {side} of {paths}"
        );
    }
    (s, Read::Track(paths), false)
}

/// A game of `players` played with random legal orders to its end.
fn finished(players: usize, seed: u64, options: &[&str]) -> Linie1 {
    let names: Vec<String> = (0..players).map(|i| format!("P{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut g = linie1_game(&names, seed, options);
    let mut rng = SplitMix64::new(seed);
    for _ in 0..4000 {
        if let Status::Finished(_) = g.status() {
            return g;
        }
        let seat = g.awaiting()[0].seat;
        let order = pick(&mut rng, &g.legal_orders(seat));
        g.apply(seat, &order).unwrap();
    }
    panic!("seed {seed}: the game did not end");
}

/// Reads `g`'s text map by its key and finds the board: every square's
/// track, building or emptiness; and every line fits a mail.
fn assert_map_reads_back(g: &Linie1, what: &str) {
    let d = g.data();
    let map = g.render_map().text;
    for line in map.lines() {
        assert!(line.chars().count() <= 100, "{what}: too wide: {line}");
    }
    let read = read_map(&map);
    assert_eq!(read.len(), d.square_count(), "{what}: every square read");
    for (s, read) in read {
        let on_board = match (d.building_at(s), g.laid(s)) {
            (Some(b), _) => Read::Building(d.building(b).letter),
            (None, Some(laid)) => Read::Track(laid.paths),
            (None, None) => Read::Empty,
        };
        assert_eq!(read, on_board, "{what}: {s} in\n{map}");
    }
}

#[test]
fn the_text_map_reads_back_to_the_board_by_its_key_alone() {
    for (players, seed, options) in [
        (2, 101, &["ordered_stops"][..]),
        (4, 202, &["die"][..]),
        (6, 303, &[][..]),
    ] {
        let g = finished(players, seed, options);
        assert_map_reads_back(&g, &format!("{players} players, seed {seed}"));
    }
}

/// Every tile of the box, turned every way, several times over beside
/// different neighbours: laid on a game's snapshot (not by the rules), so
/// that no tile and turn is left to chance.
#[test]
fn every_tile_turned_every_way_reads_back_by_the_key() {
    let g = finished(3, 404, &[]);
    let d = g.data();
    let turns: Vec<Laid> = (d.tiles.iter().enumerate())
        .flat_map(|(i, t)| {
            (t.orientations.iter()).map(move |&paths| Laid {
                tile: TileId(i as u8),
                paths,
            })
        })
        .collect();
    let mut snapshot = serde_json::to_value(&g).unwrap();
    let mut next = turns.iter().cycle();
    for (i, s) in d.squares() {
        let laid = d.building_at(s).is_none().then(|| next.next().unwrap());
        snapshot["cells"][i] = serde_json::to_value(laid).unwrap();
    }
    let board: Linie1 = serde_json::from_value(snapshot).unwrap();
    assert_map_reads_back(&board, "every tile turned every way");
}

/// A player's own map (issue 35), read by its key alone: the board as it
/// is, and their marks where their route has them: their stops, and the
/// empty squares of one shortest way to close each gap.
#[test]
fn a_players_map_reads_back_with_their_marks_by_the_key() {
    use stationmaster::engine::{AnyGame, Seat, Viewer};
    let mut g = linie1_game(&["P0", "P1", "P2"], 505, &["ordered_stops"]);
    let mut rng = SplitMix64::new(505);
    for _ in 0..60 {
        let seat = Game::awaiting(&g)[0].seat;
        let order = pick(&mut rng, &g.legal_orders(seat));
        g.apply(seat, &order).unwrap();
    }
    let d = g.data();
    for seat in (0..3).map(Seat) {
        let view = g.view(Viewer::Player(seat));
        let route = view.route.clone().expect("laying track");
        let stops = view.players[seat.index()].stops.clone().unwrap();
        let map = AnyGame::render_map_to(&g, Viewer::Player(seat)).text;
        for line in map.lines() {
            assert!(line.chars().count() <= 100, "too wide: {line}");
        }
        let read = read_map_marked(&map);
        assert_eq!(read.len(), d.square_count());
        for (s, read, marked) in read {
            let on_board = match (d.building_at(s), g.laid(s)) {
                (Some(b), _) => Read::Building(d.building(b).letter),
                (None, Some(laid)) => Read::Track(laid.paths),
                (None, None) => Read::Empty,
            };
            let mine = match &read {
                Read::Building(c) => stops.contains(c),
                Read::Empty => route
                    .stretches
                    .iter()
                    .any(|r| r.squares.contains(&s.to_string())),
                Read::Track(_) => false,
            };
            assert_eq!(read, on_board, "{s} in\n{map}");
            assert_eq!(marked, mine, "{s} marked in\n{map}");
        }
        // Its stops numbered in the card's order, beside their top right.
        for (i, c) in stops.iter().enumerate() {
            let at = map
                .lines()
                .position(|l| l.contains(&format!("║ {c} ║")))
                .expect("a stop drawn");
            let above = map.lines().nth(at - 1).unwrap();
            assert!(above.contains(&format!("╔═══╗{}", i + 1)), "{c}:\n{map}");
        }
    }
}
