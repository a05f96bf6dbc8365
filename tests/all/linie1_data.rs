//! Linie 1's components as data (`games/linie1/`): the shipped files load and
//! match `../shared/linie1.md`; every broken file is refused with its file,
//! line and problem.

use stationmaster::linie1::data::{
    Components, DataError, EMBEDDED_BOARD, EMBEDDED_CARDS, EMBEDDED_TILES,
};
use stationmaster::linie1::{Edge, Paths, Square};

fn load(board: &str, tiles: &str, cards: &str) -> Result<Components, DataError> {
    Components::parse(
        ("board.toml", board),
        ("tiles.toml", tiles),
        ("cards.toml", cards),
    )
}

/// The line (from 1) of the first occurrence of `needle` in `text`.
fn line_of(text: &str, needle: &str) -> usize {
    let at = text.find(needle).expect("needle in text");
    text[..at].matches('\n').count() + 1
}

fn board_error(from: &str, to: &str) -> DataError {
    assert!(EMBEDDED_BOARD.contains(from), "{from}");
    load(
        &EMBEDDED_BOARD.replacen(from, to, 1),
        EMBEDDED_TILES,
        EMBEDDED_CARDS,
    )
    .expect_err("refused")
}

fn tiles_error(from: &str, to: &str) -> DataError {
    assert!(EMBEDDED_TILES.contains(from), "{from}");
    load(
        EMBEDDED_BOARD,
        &EMBEDDED_TILES.replacen(from, to, 1),
        EMBEDDED_CARDS,
    )
    .expect_err("refused")
}

fn cards_error(from: &str, to: &str) -> DataError {
    assert!(EMBEDDED_CARDS.contains(from), "{from}");
    load(
        EMBEDDED_BOARD,
        EMBEDDED_TILES,
        &EMBEDDED_CARDS.replacen(from, to, 1),
    )
    .expect_err("refused")
}

#[test]
fn the_shipped_components_match_the_rulings() {
    let c = Components::embedded().unwrap();
    assert_eq!((c.rows, c.columns), (12, 12));
    let letters: String = c.buildings.iter().map(|b| b.letter).collect();
    assert_eq!(letters, "ABCDEFGHIKLM", "twelve buildings, no J");
    let at = |l: char| c.buildings.iter().find(|b| b.letter == l).unwrap().square;
    assert_eq!(at('A'), Square::new(7, 11));
    assert_eq!(at('G'), Square::new(0, 7));
    assert_eq!(at('M'), Square::new(3, 5));
    assert_eq!(c.terminals.len(), 12);
    let t1w = c.terminals.iter().find(|t| t.name == "1W").unwrap();
    assert_eq!(t1w.legs, [Square::new(5, 0), Square::new(6, 0)]);
    assert_eq!(t1w.side, Edge::W);
    let t4s = c.terminals.iter().find(|t| t.name == "4S").unwrap();
    assert_eq!(t4s.legs, [Square::new(11, 9), Square::new(11, 10)]);
    assert_eq!(c.total_tiles, 126);
    assert_eq!(c.tiles.iter().map(|t| u16::from(t.count)).sum::<u16>(), 126);
    assert_eq!(c.tiles.iter().filter(|t| t.trees).count(), 6);
    // Crossing and four curves touch the same edges but differ.
    let crossing = c.tile_with_paths(Paths::parse("NS+WE").unwrap()).unwrap();
    let four = c
        .tile_with_paths(Paths::parse("NE+ES+SW+WN").unwrap())
        .unwrap();
    assert_ne!(crossing, four);
    assert_eq!(c.tile(crossing).orientations.len(), 1);
    assert_eq!(c.tile(four).orientations.len(), 1);
    // Mirror images are different tiles (tile 11 and 12).
    let t11 = c
        .tile_with_paths(Paths::parse("NS+NE+SW").unwrap())
        .unwrap();
    let t12 = c
        .tile_with_paths(Paths::parse("NS+NW+SE").unwrap())
        .unwrap();
    assert_ne!(t11, t12);
    assert_eq!(c.route_set(2).len(), 6);
    assert_eq!(c.route_set(3).len(), 6);
    let b3 = c.routes.iter().find(|r| r.name == "B3").unwrap();
    let row: String = b3.rows[3].iter().map(|b| c.building(*b).letter).collect();
    assert_eq!(row, "AEI", "B3, line 4");
}

#[test]
fn a_folder_overrides_only_the_files_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let c = Components::from_dir(dir.path()).unwrap();
    assert_eq!(c, Components::embedded().unwrap());
    std::fs::write(
        dir.path().join("board.toml"),
        EMBEDDED_BOARD.replace("Goldsieber, 1995", "corrected"),
    )
    .unwrap();
    let c = Components::from_dir(dir.path()).unwrap();
    assert_eq!(c.name, "Linie 1 (corrected)");
    std::fs::write(dir.path().join("cards.toml"), "format = 1").unwrap();
    let e = Components::from_dir(dir.path()).unwrap_err();
    assert!(e.file.ends_with("cards.toml"), "{e}");
}

#[test]
fn errors_name_the_file_and_line() {
    let e = board_error(
        "format = \"stationmaster/linie1-board/1\"",
        "format = \"x\"",
    );
    assert_eq!(e.file, "board.toml");
    assert_eq!(e.line, Some(line_of(EMBEDDED_BOARD, "format =")));
    assert!(e.to_string().contains("board.toml, line"), "{e}");
    assert!(e.problem.contains("format must be"), "{}", e.problem);
}

#[test]
fn a_building_twice_or_a_strange_grid_token_is_refused() {
    let e = board_error(" 2   . . . F", " 2   . . . G");
    assert!(
        e.problem.contains("building G is on the board twice"),
        "{e}"
    );
    assert_eq!(e.line, Some(line_of(EMBEDDED_BOARD, " 2   . . . F")));
    let e = board_error(" 3   . . . .", " 3   . . x .");
    assert!(e.problem.contains("neither"), "{e}");
    let e = board_error(" 3   . . . . . . . . . . . .", " 3   . . . . . . . . . . .");
    assert!(e.problem.contains("11 squares"), "{e}");
}

#[test]
fn terminal_legs_must_be_on_their_edge_next_to_each_other() {
    let e = board_error("legs = [\"A6\", \"A7\"]", "legs = [\"B6\", \"B7\"]");
    assert!(e.problem.contains("not on the W edge"), "{e}");
    assert_eq!(e.line, Some(line_of(EMBEDDED_BOARD, "legs = [\"A6\"")));
    let e = board_error("legs = [\"A6\", \"A7\"]", "legs = [\"A6\", \"A8\"]");
    assert!(e.problem.contains("not neighbouring"), "{e}");
    let e = board_error("legs = [\"A6\", \"A7\"]", "legs = [\"A5\", \"A6\"]");
    assert!(e.problem.contains("A5 is a building"), "{e}");
    let e = board_error("legs = [\"A6\", \"A7\"]", "legs = [\"A6\", \"A7\", \"A8\"]");
    assert!(e.problem.contains("exactly two legs"), "{e}");
    let e = board_error("legs = [\"A6\", \"A7\"]", "legs = [\"A10\", \"A11\"]");
    assert!(e.problem.contains("another terminal"), "{e}");
    let e = board_error("line = 6\nside = \"S\"", "line = 5\nside = \"S\"");
    assert!(e.problem.contains("terminals"), "{e}");
}

#[test]
fn tile_counts_must_add_up_to_the_total() {
    let e = tiles_error("count = 36", "count = 35");
    assert!(
        e.problem.contains("add to 125, not the total of 126"),
        "{e}"
    );
    assert_eq!(e.line, Some(line_of(EMBEDDED_TILES, "total = 126")));
}

#[test]
fn a_tile_must_be_named_by_its_paths_alone() {
    // A second straight would be the first one turned.
    let e = tiles_error("paths = [\"WS\"]", "paths = [\"NS\"]");
    assert!(e.problem.contains("paths must name one tile"), "{e}");
    assert_eq!(e.line, Some(line_of(EMBEDDED_TILES, "paths = [\"WS\"]")));
    let e = tiles_error("paths = [\"WS\"]", "paths = [\"WX\"]");
    assert!(e.problem.contains("not a path"), "{e}");
    let e = tiles_error("paths = [\"WS\"]", "paths = [\"WS\", \"SW\"]");
    assert!(e.problem.contains("twice"), "{e}");
}

/// Six hands of 3 straights and 2 curves come from the tiles themselves
/// (rule book, Preparazione): 18 straights and 12 curves at least.
#[test]
fn start_hands_need_enough_tiles_for_six_players() {
    let tiles = EMBEDDED_TILES
        .replacen("count = 30", "count = 11", 1)
        .replacen("total = 126", "total = 107", 1);
    let e = load(EMBEDDED_BOARD, &tiles, EMBEDDED_CARDS).expect_err("refused");
    assert!(
        e.problem
            .contains("6 players need 12 tiles \"curve\", there are 11"),
        "{e}"
    );
    let e = tiles_error(
        "{ tile = \"curve\", count = 2 }",
        "{ tile = \"bend\", count = 2 }",
    );
    assert!(e.problem.contains("no tile called \"bend\""), "{e}");
}

/// Start tiles set apart (`start`), as files written before issue 35 had
/// them, are refused with the reason: the rule book sets none apart.
#[test]
fn start_tiles_set_apart_are_refused_with_the_reason() {
    let e = tiles_error("count = 36\n", "count = 36\nstart = 15\n");
    assert!(e.problem.contains("`start` is no longer read"), "{e}");
    assert!(e.problem.contains("Tutte le altre tessere"), "{e}");
    assert_eq!(e.line, Some(line_of(EMBEDDED_TILES, "count = 36") + 1));
}

#[test]
fn route_stops_must_be_buildings() {
    let e = cards_error("\"A F\", \"G L\"", "\"A J\", \"G L\"");
    assert!(e.problem.contains("stop `J` is not a building"), "{e}");
    assert_eq!(e.line, Some(line_of(EMBEDDED_CARDS, "\"A F\", \"G L\"")));
    let e = cards_error("\"A F\", \"G L\"", "\"A A\", \"G L\"");
    assert!(e.problem.contains("named twice"), "{e}");
    let e = cards_error("\"A F\", \"G L\"", "\"A F C\", \"G L\"");
    assert!(e.problem.contains("but line 1 has 3"), "{e}");
    let e = cards_error("\"A F\", \"G L\", \"C F\"", "\"A F\", \"G L\"");
    assert!(e.problem.contains("one a line"), "{e}");
}

/// Six players (rule book, Preparazione: six trams) need six route cards
/// of each set.
#[test]
fn six_players_need_six_cards_of_each_set() {
    let cut = EMBEDDED_CARDS.replacen("card = \"R6\"", "card = \"B0\"", 1);
    let cut = cut.replacen(
        "rows = [\"C I\", \"G K\", \"E G\", \"C H\", \"H M\", \"A G\"]",
        "rows = [\"C I M\", \"G K L\", \"E G A\", \"C H A\", \"H M A\", \"A G B\"]",
        1,
    );
    let e = load(EMBEDDED_BOARD, EMBEDDED_TILES, &cut).unwrap_err();
    assert!(
        e.problem
            .contains("there are 5 route cards of 2 stops; 6 players need one each"),
        "{e}"
    );
}
