//! A database written by an earlier Stationmaster opens and plays on.
//!
//! `tests/fixtures/db-format2/` is a sled database as Stationmaster wrote
//! it on 2026-11-23 (store format 2, before game states carried a format
//! version): game `rocket-1` after a veto round (README's script, seed 7),
//! with a moderator, and game `rocket-2` just created. Beside it, what
//! `show --json --as cecil` and `log --json` printed then.

use std::fs;
use std::path::Path;

use tempfile::TempDir;

use crate::binary::{sm, stdout};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A copy of the fixture database in `var/db` of a new folder.
fn copy_of_the_fixture() -> TempDir {
    copy_of("db-format2")
}

/// A copy of fixture database `name` in `var/db` of a new folder.
fn copy_of(name: &str) -> TempDir {
    let dir = TempDir::new().unwrap();
    let db = dir.path().join("var/db");
    fs::create_dir_all(&db).unwrap();
    for entry in fs::read_dir(fixture(name)).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), db.join(entry.file_name())).unwrap();
    }
    dir
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn a_database_of_the_earlier_format_opens_shows_the_same_and_plays_on() {
    let dir = copy_of_the_fixture();
    let d = dir.path();
    let view = stdout(sm(d).args(["show", "rocket-1", "--json", "--as", "cecil"]));
    let expected = fs::read_to_string(fixture("db-format2.rocket-1.cecil.json")).unwrap();
    assert_eq!(json(&view), json(&expected));
    let log = stdout(sm(d).args(["log", "rocket-1", "--json"]));
    let expected = fs::read_to_string(fixture("db-format2.rocket-1.log.json")).unwrap();
    assert_eq!(json(&log), json(&expected));
    assert!(stdout(sm(d).args(["verify", "rocket-1"])).contains("intact"));

    // Play on: cecil's second action, then a new game beside the old ones.
    stdout(sm(d).args([
        "order",
        "rocket-1",
        "--as",
        "cecil",
        "token manchester steel",
    ]));
    assert!(stdout(sm(d).args(["verify", "rocket-1"])).contains("the log's 7 entries"));
    // The welcome mails of this game went out before their ids were kept:
    // its mail still makes one thread per player, under a root derived
    // from the game, the seat and the key.
    stdout(sm(d).arg("process"));
    stdout(sm(d).args(["mod", "rocket-1", "note", "still here"]));
    stdout(sm(d).arg("process"));
    let mut to_cecil: Vec<(String, String)> = Vec::new();
    let mut earlier = 0;
    for e in fs::read_dir(d.join("var/outbox")).unwrap().flatten() {
        let raw = fs::read(e.path()).unwrap();
        let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
        // (The fixture's outbox held mail written before threads, stored
        // as it was, before mails were packed: it goes out the same.)
        let old = m.references().as_text_list().is_none();
        if old {
            assert!(
                m.subject().unwrap_or_default().starts_with("[rocket-"),
                "{}",
                String::from_utf8_lossy(&raw)
            );
            earlier += 1;
        }
        if !old
            && m.to().and_then(|a| a.first()).and_then(|a| a.address()) == Some("cecil@example.org")
        {
            let refs = m.references().as_text_list().unwrap_or_default().join(" ");
            to_cecil.push((m.subject().unwrap_or_default().to_string(), refs));
        }
    }
    assert_eq!(earlier, 21, "the fixture's queued mails");
    assert_eq!(to_cecil.len(), 2, "{to_cecil:?}");
    assert_eq!(to_cecil[0], to_cecil[1], "one subject, one root");
    assert!(
        to_cecil[0].1.starts_with("rocket-1.thread."),
        "{to_cecil:?}"
    );
    assert!(
        to_cecil[0].0.ends_with("] Stephenson's Rocket"),
        "{to_cecil:?}"
    );
    let games = stdout(sm(d).arg("games"));
    assert!(
        games.contains("rocket-1") && games.contains("rocket-2"),
        "{games}"
    );
    let id = stdout(sm(d).args([
        "new",
        "rocket",
        "--player",
        "ann=ann@example.org",
        "--player",
        "ben=ben@example.org",
    ]));
    assert_eq!(id.trim(), "rocket-3");
}

/// `tests/fixtures/db-format3/` was written on 2026-11-23 by the release
/// before the engine contract was made game-agnostic (issue 13, part 1):
/// `rocket-1` from README's script (seed 7) with `open_money`, moderator
/// gm@example.org, deadline settings `--turn 30h --veto-question 6h
/// --veto-bid 8h --policy default` and a moderator's note; `rocket-2` just
/// created with the defaults.
#[test]
fn a_database_written_before_the_neutral_contract_opens_and_plays_on() {
    let dir = copy_of("db-format3");
    let d = dir.path();
    let view = stdout(sm(d).args(["show", "rocket-1", "--json", "--as", "cecil"]));
    let expected = fs::read_to_string(fixture("db-format3.rocket-1.cecil.json")).unwrap();
    assert_eq!(json(&view), json(&expected));
    let log = stdout(sm(d).args(["log", "rocket-1", "--json"]));
    let expected = fs::read_to_string(fixture("db-format3.rocket-1.log.json")).unwrap();
    assert_eq!(json(&log), json(&expected));
    assert!(stdout(sm(d).args(["verify", "rocket-1"])).contains("intact"));

    // The deadline settings stored under the old keys are read as they were.
    let export = d.join("export.json");
    stdout(sm(d).arg("export").arg(&export));
    let export = json(&fs::read_to_string(&export).unwrap());
    let games = export["games"].as_array().unwrap();
    let settings = |id: &str| {
        let game = games.iter().find(|g| g["id"] == id).unwrap();
        let s = game["meta"]["clock"]["settings"]
            .as_object()
            .unwrap()
            .clone();
        let mut spans: Vec<String> = s
            .values()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        spans.sort();
        (s, spans)
    };
    let (s, spans) = settings("rocket-1");
    assert_eq!(s["turn"], "1d6h", "{s:?}");
    assert_eq!(s["policy"], "default", "{s:?}");
    assert!(
        spans.contains(&"6h".to_string()) && spans.contains(&"8h".to_string()),
        "{s:?}"
    );
    let (s, spans) = settings("rocket-2");
    assert_eq!(s["turn"], "2d", "{s:?}");
    assert_eq!(spans.iter().filter(|v| *v == "12h").count(), 2, "{s:?}");

    stdout(sm(d).args([
        "order",
        "rocket-1",
        "--as",
        "cecil",
        "token manchester steel",
    ]));
    assert!(stdout(sm(d).args(["verify", "rocket-1"])).contains("intact"));
    stdout(sm(d).arg("process"));
    let id = stdout(sm(d).args([
        "new",
        "rocket",
        "--player",
        "ann=ann@example.org",
        "--player",
        "ben=ben@example.org",
    ]));
    assert_eq!(id.trim(), "rocket-3");
}

/// `tests/fixtures/linie1-supply101.export.json` was exported on 2026-11-29
/// by the release before issue 35 (its outbox left out): `linie1-1`, anna,
/// bert and cora, seed 35, after one turn of laying each, set up with the
/// unused start tiles out of the game and a supply of 101. The rule book
/// puts every tile not dealt in the supply (126 − 5 × players); a game set
/// up before keeps its own setup, replays to its stored state and plays on.
#[test]
fn a_linie1_game_set_up_with_a_supply_of_101_keeps_it_and_plays_on() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let out = stdout(
        sm(d)
            .arg("import")
            .arg(fixture("linie1-supply101.export.json")),
    );
    assert!(out.contains("every game verifies"), "{out}");
    let supply =
        |id: &str| json(&stdout(sm(d).args(["show", id, "--json"])))["supply_left"].clone();
    assert_eq!(supply("linie1-1"), 95, "101, less the six tiles drawn");

    stdout(sm(d).args(["order", "linie1-1", "--as", "anna", "lay C5 WE"]));
    stdout(sm(d).args(["order", "linie1-1", "--as", "anna", "lay H5 SW"]));
    assert_eq!(supply("linie1-1"), 93, "two more drawn");
    assert!(stdout(sm(d).args(["verify", "linie1-1"])).contains("intact"));

    // A game set up now deals by the rule book.
    let id = stdout(sm(d).args([
        "new",
        "linie1",
        "--player",
        "ann=ann@example.org",
        "--player",
        "ben=ben@example.org",
        "--player",
        "cat=cat@example.org",
    ]));
    assert_eq!(id.trim(), "linie1-2");
    assert_eq!(supply("linie1-2"), 126 - 5 * 3);
}

/// Issue 36, point 4: a database from before the players' records gets
/// them when first opened, derived from its games: the fixture's two
/// games seated five players (three and two), and neither has finished.
#[test]
fn a_database_from_before_records_gets_them_when_opened() {
    let dir = copy_of_the_fixture();
    let records = json(&stdout(sm(dir.path()).args(["stats", "--json"])));
    let addresses = records.as_object().expect("records by address");
    assert_eq!(addresses.len(), 5, "{records}");
    let played: u64 = addresses
        .values()
        .flat_map(|r| r["kinds"].as_object().unwrap().values())
        .map(|k| k["played"].as_u64().unwrap())
        .sum();
    assert_eq!(played, 5, "{records}");
    assert!(
        addresses
            .values()
            .flat_map(|r| r["kinds"].as_object().unwrap().values())
            .all(|k| k["finished"] == 0 && k.get("rating").is_none()),
        "{records}"
    );
    // Kept from then on: the next open derives nothing again, and a new
    // game adds to them.
    stdout(sm(dir.path()).args([
        "new",
        "rocket",
        "--player",
        "dora=dora@example.org",
        "--player",
        "emil=emil@example.org",
    ]));
    let records = json(&stdout(sm(dir.path()).args(["stats", "--json"])));
    assert_eq!(records["dora@example.org"]["kinds"]["rocket"]["played"], 1);
}
