//! The board file: the shipped one meets the rule book's components and the
//! rulings' conditions, and a malformed one is refused with the file, the
//! line and the problem.

use stationmaster::rocket::board::{Board, EMBEDDED_BOARD};
use stationmaster::rocket::{Good, PlaceKind, Terrain};

fn shipped() -> Board {
    Board::parse("games/rocket/board.toml", EMBEDDED_BOARD).unwrap()
}

/// The shipped text with `from` replaced by `to` (which must occur).
fn edited(from: &str, to: &str) -> String {
    assert!(
        EMBEDDED_BOARD.contains(from),
        "the board file has no `{from}`"
    );
    EMBEDDED_BOARD.replacen(from, to, 1)
}

fn refused(text: &str) -> (Option<usize>, String) {
    let e = Board::parse("test.toml", text).unwrap_err();
    assert_eq!(e.file, "test.toml");
    assert!(e.to_string().starts_with("board file test.toml"), "{e}");
    (e.line, e.problem)
}

fn line_of(text: &str, needle: &str) -> usize {
    text[..text.find(needle).unwrap()].matches('\n').count() + 1
}

#[test]
fn the_shipped_board_has_the_rule_books_components() {
    let b = shipped();
    assert!(
        b.reconstruction,
        "the shipped board must be marked as a reconstruction"
    );
    let count = |f: fn(&PlaceKind) -> bool| b.places.iter().filter(|p| f(&p.kind)).count();
    assert_eq!(count(|k| matches!(k, PlaceKind::Start(_))), 7);
    assert_eq!(count(|k| matches!(k, PlaceKind::City(_))), 12);
    assert_eq!(count(|k| matches!(k, PlaceKind::Town)), 9);
    for good in Good::ALL {
        let n: u32 = b
            .places
            .iter()
            .map(|p| match p.kind {
                PlaceKind::City(g) => u32::from(g[good.index()]),
                _ => 0,
            })
            .sum();
        assert_eq!(n, 9, "{good}");
    }
    for p in &b.places {
        if let PlaceKind::City(g) = p.kind {
            assert_eq!(g.iter().sum::<u8>(), 3, "{}", p.name);
            assert!(
                g.contains(&2),
                "two of {}'s three tokens are of one kind",
                p.name
            );
        }
        assert_eq!(
            b.terrain(p.hex),
            Terrain::Place(
                b.place_ids()
                    .find(|id| b.place(*id).name == p.name)
                    .unwrap()
            )
        );
    }
    let ids: Vec<&str> = b.lines.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["NER", "L&Y", "LNWR", "GER", "GWR", "LSWR", "SER"]);
}

#[test]
fn the_shipped_board_puts_the_places_where_rocket_md_says() {
    let b = shipped();
    let at = |name: &str| {
        b.places
            .iter()
            .find(|p| p.name == name)
            .unwrap()
            .hex
            .to_string()
    };
    for (name, hex) in [
        ("York", "G1"),
        ("Leeds", "E2"),
        ("Liverpool", "A4"),
        ("Manchester", "C4"),
        ("Birmingham", "D10"),
        ("Norwich", "N9"),
        ("Bristol", "C15"),
        ("Reading", "G15"),
        ("London", "J15"),
        ("Dover", "N17"),
        ("Southampton", "F18"),
        ("Brighton", "J19"),
    ] {
        assert_eq!(at(name), hex, "{name}");
    }
}

#[test]
fn no_start_touches_a_place_and_every_start_has_two_first_moves() {
    let b = shipped();
    for p in b
        .places
        .iter()
        .filter(|p| matches!(p.kind, PlaceKind::Start(_)))
    {
        assert!(
            b.places_next_to(p.hex).is_empty(),
            "{} touches a place",
            p.name
        );
        let land = b
            .neighbours(p.hex)
            .filter(|h| b.terrain(*h) == Terrain::Land)
            .count();
        assert!(land >= 2, "{} has {land} first moves", p.name);
    }
    let dover = b.places.iter().find(|p| p.name == "Dover").unwrap();
    assert_eq!(
        b.neighbours(dover.hex)
            .filter(|h| b.terrain(*h) == Terrain::Land)
            .count(),
        2
    );
}

#[test]
fn a_toml_syntax_error_gives_its_line() {
    let text = edited("rows = 19", "rows = = 19");
    let (line, problem) = refused(&text);
    assert_eq!(line, Some(line_of(&text, "rows = = 19")));
    assert!(!problem.is_empty());
}

#[test]
fn a_short_grid_row_is_refused_at_its_line() {
    let text = edited("\n 3  ~   .   .", "\n 3  .   .");
    let (line, problem) = refused(&text);
    assert_eq!(line, Some(line_of(&text, "\n 3  .   .") + 1));
    assert!(
        problem.contains("row 3 has 14 hexes; the board has 15 columns"),
        "{problem}"
    );
}

#[test]
fn an_unknown_hex_token_is_refused() {
    let text = edited("\n 2    .", "\n 2    ?");
    let (line, problem) = refused(&text);
    assert_eq!(line, Some(line_of(&text, "\n 2    ?") + 1));
    assert!(
        problem.contains("A2: \"?\" is not a hex token"),
        "{problem}"
    );
}

#[test]
fn a_place_missing_from_the_grid_is_refused_at_its_entry() {
    let text = edited("THu", ".  ");
    let (line, problem) = refused(&text);
    assert_eq!(line, Some(line_of(&text, "key = \"THu\"")));
    assert_eq!(problem, "Hull is not on the grid");
}

#[test]
fn a_city_with_the_wrong_goods_is_refused() {
    let text = edited(
        "goods = { textiles = 2, steel = 1 }",
        "goods = { textiles = 3 }",
    );
    let (line, problem) = refused(&text);
    assert_eq!(line, Some(line_of(&text, "goods = { textiles = 3 }")));
    assert!(
        problem.contains("Manchester must have 3 goods tokens, two of one kind and one of another"),
        "{problem}"
    );
}

#[test]
fn goods_that_do_not_add_up_to_nine_of_each_are_refused() {
    let text = edited(
        "goods = { textiles = 2, steel = 1 }",
        "goods = { textiles = 2, leather = 1 }",
    );
    let (_, problem) = refused(&text);
    assert!(
        problem.contains("the game has 9 steel tokens; the cities hold 8"),
        "{problem}"
    );
}

#[test]
fn a_start_next_to_another_place_is_refused() {
    // Move Manchester next to Liverpool (A4): to B4.
    let text = edited("\n 4    SLi .   CMa .", "\n 4    SLi CMa .   .");
    let (line, problem) = refused(&text);
    assert_eq!(line, Some(line_of(&text, "key = \"SLi\"")));
    assert_eq!(problem, "starting town Liverpool is next to Manchester");
}

#[test]
fn a_start_with_fewer_than_two_first_moves_is_refused() {
    // Dover (N17) has exactly two first moves, M16 and M17; sea on M17 leaves one.
    let text = edited(
        "\n17  .   .   .   .   .   .   .   .   .   .   .   .   .   SDo ~",
        "\n17  .   .   .   .   .   .   .   .   .   .   .   .   ~   SDo ~",
    );
    let (line, problem) = refused(&text);
    assert_eq!(line, Some(line_of(&text, "key = \"SDo\"")));
    assert_eq!(
        problem,
        "starting town Dover has 1 first move(s); every start needs at least two"
    );
}

#[test]
fn a_line_starting_from_a_city_is_refused() {
    let text = edited("start = \"York\"", "start = \"Manchester\"");
    let (line, problem) = refused(&text);
    assert_eq!(line, Some(line_of(&text, "start = \"Manchester\"")));
    assert_eq!(problem, "NER: Manchester is not a starting town");
}

#[test]
fn a_wrong_count_of_lines_is_refused() {
    let cut = EMBEDDED_BOARD.find("[[line]]\nid = \"SER\"").unwrap();
    let end = cut + EMBEDDED_BOARD[cut..].find("\n\n").unwrap();
    let text = format!("{}{}", &EMBEDDED_BOARD[..cut], &EMBEDDED_BOARD[end..]);
    let (_, problem) = refused(&text);
    assert!(
        problem.contains("7") && (problem.contains("lines") || problem.contains("starting town")),
        "{problem}"
    );
}

#[test]
fn an_unknown_field_is_refused_with_its_line() {
    let text = edited(
        "reconstruction = true",
        "reconstruction = true\ncolour = \"red\"",
    );
    let (line, problem) = refused(&text);
    assert_eq!(line, Some(line_of(&text, "colour = \"red\"")));
    assert!(problem.contains("colour"), "{problem}");
}

#[test]
fn a_missing_file_is_refused_with_its_name() {
    let e = Board::from_file(std::path::Path::new("/nonexistent/board.toml")).unwrap_err();
    assert_eq!(e.file, "/nonexistent/board.toml");
    assert!(e.problem.starts_with("cannot be read"), "{}", e.problem);
}
