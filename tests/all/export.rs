//! `export` and `import` (issue 10): a database written out as one
//! versioned JSON document and made again from it, in a new folder, gives
//! games that verify, show the same, play on the same, and go on
//! exactly-once (mails handled before are not applied again, mail not yet
//! sent is sent). Files of another kind or version, and exports whose logs
//! were tampered with, are refused whole with a clear error; a database of
//! an older store format exports and imports.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use tempfile::TempDir;

const NOW: &str = "2026-11-21T18:00:00Z";

fn sm(dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_stationmaster"))
        .current_dir(dir)
        .env_remove("STATIONMASTER_CONFIG")
        .env_remove("RUST_LOG")
        .env("STATIONMASTER_NOW", NOW)
        .args(args)
        .output()
        .unwrap()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = sm(dir, args);
    assert!(
        out.status.success(),
        "stationmaster {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Fails with exit 1 and one line on stderr, which is returned.
fn refused(dir: &Path, args: &[&str]) -> String {
    let out = sm(dir, args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "stationmaster {args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

/// The `.eml` files in `dir`, by name.
fn mails(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    match fs::read_dir(dir.join("var/outbox")) {
        Ok(entries) => entries
            .map(|e| e.unwrap())
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    fs::read(e.path()).unwrap(),
                )
            })
            .collect(),
        Err(_) => BTreeMap::new(),
    }
}

/// A database with a game played by mail (`demo`: receipts), and a second
/// game played from the command line whose mails wait in the outbox.
fn played() -> TempDir {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    ok(d, &["demo"]);
    let id = ok(
        d,
        &[
            "new",
            "rocket",
            "--player",
            "alice=alice@example.org",
            "--player",
            "bob=bob@example.org",
            "--player",
            "cecil=cecil@example.org",
            "--seed",
            "7",
            "--moderator",
            "gm@example.org",
        ],
    );
    assert_eq!(id, "rocket-2\n");
    ok(
        d,
        &[
            "order",
            "rocket-2",
            "--as",
            "bob",
            "token manchester textiles\nextend ly b4",
        ],
    );
    ok(d, &["order", "rocket-2", "--as", "cecil", "extend ly c5"]);
    ok(d, &["mod", "rocket-2", "--why", "testing", "note", "hello"]);
    dir
}

/// The same view and log of every game, for every viewer.
fn assert_same_games(a: &Path, b: &Path) {
    assert_eq!(ok(a, &["games"]), ok(b, &["games"]));
    for game in ["rocket-1", "rocket-2"] {
        for viewer in [None, Some("alice"), Some("bob"), Some("cecil")] {
            let mut args = vec!["show", game, "--json"];
            if let Some(v) = viewer {
                args.extend(["--as", v]);
            }
            assert_eq!(json(&ok(a, &args)), json(&ok(b, &args)), "{args:?}");
        }
        let log = ["log", game, "--json"];
        assert_eq!(json(&ok(a, &log)), json(&ok(b, &log)), "{game}");
    }
}

#[test]
fn an_export_imported_into_a_new_folder_verifies_shows_the_same_and_plays_on() {
    let a = played();
    let b = TempDir::new().unwrap();
    let (a, b) = (a.path(), b.path());
    let said = ok(a, &["export", "backup.json"]);
    assert!(said.contains("Exported 2 game(s) to backup.json"), "{said}");
    let backup = a.join("backup.json");
    // The file holds every player's key: for the operator's eyes only.
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        fs::metadata(&backup).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let doc = json(&fs::read_to_string(&backup).unwrap());
    assert_eq!(doc["format"], "stationmaster-export");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["exported_at"], "2026-11-21T18:00:00Z");
    assert!(doc["games"][0]["head"]["state_version"].is_number());
    assert!(doc["games"][0]["record"]["state_version"].is_number());
    assert!(!doc["receipts"].as_object().unwrap().is_empty());
    assert!(!doc["outbox"].as_array().unwrap().is_empty());
    // `-` writes the same document to stdout.
    assert_eq!(json(&ok(a, &["export", "-"])), doc);

    let said = ok(b, &["import", backup.to_str().unwrap()]);
    assert!(
        said.contains("Imported 2 game(s) (rocket-1, rocket-2)") && said.contains("verifies"),
        "{said}"
    );
    for game in ["rocket-1", "rocket-2"] {
        assert!(ok(b, &["verify", game]).contains("intact"));
    }
    assert_same_games(a, b);

    // The mails that waited are sent from the copy as they would have
    // been from the original, byte for byte.
    let before = mails(a);
    let sent_a = ok(a, &["process"]);
    let sent_b = ok(b, &["process"]);
    assert_eq!(sent_a, sent_b);
    let new_in_a: BTreeMap<_, _> = mails(a)
        .into_iter()
        .filter(|(k, _)| !before.contains_key(k))
        .collect();
    assert!(!new_in_a.is_empty());
    assert_eq!(mails(b), new_in_a);
    // Exported messages are whole: a `part` (where the outbox keeps a
    // change's picture) written into a document is not taken from it.
    assert!(doc["outbox"][0].get("part").is_none());
    let mut forged = doc.clone();
    forged["outbox"][0]["part"] = serde_json::json!({"key": 1, "at": 0, "len": 10});
    let c = TempDir::new().unwrap();
    let c = c.path();
    fs::write(c.join("forged.json"), forged.to_string()).unwrap();
    ok(c, &["import", c.join("forged.json").to_str().unwrap()]);
    ok(c, &["process"]);
    assert_eq!(mails(c), new_in_a);

    // A mail handled before the export is not applied again by the copy.
    let cur = a.join("var/inbox/cur");
    let handled = fs::read_dir(&cur).unwrap().next().unwrap().unwrap();
    fs::create_dir_all(b.join("var/inbox/new")).unwrap();
    fs::copy(
        handled.path(),
        b.join("var/inbox/new").join(handled.file_name()),
    )
    .unwrap();
    let again = ok(b, &["process"]);
    assert!(
        again.starts_with("1 mail(s) read: 0 changed a game"),
        "{again}"
    );

    // Play on: the same order gives the same answer and the same game.
    let order = ["order", "rocket-2", "--as", "bob", "veto"];
    assert_eq!(ok(a, &order), ok(b, &order));
    let order = ["order", "rocket-1", "--as", "cecil", "help"];
    assert_eq!(ok(a, &order), ok(b, &order));
    assert_same_games(a, b);
    // Ids go on where the original's did.
    let new = [
        "new",
        "rocket",
        "--player",
        "x=x@example.org",
        "--player",
        "y=y@example.org",
    ];
    assert_eq!(ok(a, &new), "rocket-3\n");
    assert_eq!(ok(b, &new), "rocket-3\n");
}

#[test]
fn an_import_refuses_a_database_that_is_not_empty_unless_told_replace_or_merge() {
    let a = played();
    let a = a.path();
    ok(a, &["export", "backup.json"]);
    let backup = a.join("backup.json");
    let backup = backup.to_str().unwrap();
    let b = TempDir::new().unwrap();
    let b = b.path();
    ok(
        b,
        &[
            "new",
            "rocket",
            "--player",
            "x=x@example.org",
            "--player",
            "y=y@example.org",
        ],
    );
    let err = refused(b, &["import", backup]);
    assert!(
        err.contains("is not empty (1 game(s)") && err.contains("--replace"),
        "{err}"
    );
    let err = refused(b, &["import", "--merge", backup]);
    assert!(
        err.contains("already has game(s) rocket-1; nothing was imported"),
        "{err}"
    );
    assert!(ok(b, &["games"]).contains("x, y"));

    // Merge: the export's games under ids not taken are added, and ids
    // go on after the highest.
    let mut doc = json(&fs::read_to_string(a.join("backup.json")).unwrap());
    for g in doc["games"].as_array_mut().unwrap() {
        let id = g["id"].as_str().unwrap().replace("rocket-", "rocket-1");
        g["id"] = id.clone().into();
        g["record"]["id"] = id.into();
    }
    doc["counters"]["next:rocket"] = 12.into();
    let renamed = b.join("renamed.json");
    fs::write(&renamed, doc.to_string()).unwrap();
    let said = ok(b, &["import", "--merge", "renamed.json"]);
    assert!(said.contains("(rocket-11, rocket-12)"), "{said}");
    let games = ok(b, &["games"]);
    assert!(
        games.contains("rocket-1 ") && games.contains("rocket-11") && games.contains("rocket-12"),
        "{games}"
    );
    assert!(ok(b, &["verify", "rocket-12"]).contains("intact"));
    assert_eq!(
        json(&ok(b, &["show", "rocket-12", "--json", "--as", "bob"]))["players"],
        json(&ok(a, &["show", "rocket-2", "--json", "--as", "bob"]))["players"]
    );
    assert_eq!(
        ok(
            b,
            &[
                "new",
                "rocket",
                "--player",
                "p=p@example.org",
                "--player",
                "q=q@example.org"
            ]
        ),
        "rocket-13\n"
    );

    // Replace: the database becomes the export.
    ok(b, &["import", "--replace", backup]);
    assert_same_games(a, b);
    assert!(!ok(b, &["games"]).contains("rocket-13"));
}

#[test]
fn files_that_are_not_exports_of_this_version_or_were_tampered_with_are_refused() {
    let a = played();
    let a = a.path();
    ok(a, &["export", "backup.json"]);
    let doc = json(&fs::read_to_string(a.join("backup.json")).unwrap());
    let b = TempDir::new().unwrap();
    let b = b.path();
    let write = |name: &str, text: String| -> PathBuf {
        let p = b.join(name);
        fs::write(&p, text).unwrap();
        p
    };

    let mut newer = doc.clone();
    newer["version"] = 2.into();
    write("newer.json", newer.to_string());
    let err = refused(b, &["import", "newer.json"]);
    assert!(
        err.contains("newer.json is an export of version 2; this Stationmaster reads version 1"),
        "{err}"
    );

    write("other.json", r#"{"format": "something else"}"#.to_string());
    let err = refused(b, &["import", "other.json"]);
    assert!(
        err.contains(
            "other.json is not a Stationmaster export: its \"format\" is \"something else\""
        ),
        "{err}"
    );

    let text = doc.to_string();
    write("cut.json", text[..text.len() / 2].to_string());
    let err = refused(b, &["import", "cut.json"]);
    assert!(
        err.contains("cut.json is not a Stationmaster export that can be read"),
        "{err}"
    );

    let mut missing = doc.clone();
    missing["games"][0].as_object_mut().unwrap().remove("log");
    write("missing.json", missing.to_string());
    let err = refused(b, &["import", "missing.json"]);
    assert!(err.contains("missing field `log`"), "{err}");

    // An order changed after it was written: its hash no longer matches.
    let mut tampered = doc.clone();
    tampered["games"][1]["log"][0]["order"] = "token manchester steel".into();
    write("tampered.json", tampered.to_string());
    let err = refused(b, &["import", "tampered.json"]);
    assert!(
        err.contains("game rocket-2 in the export does not verify: entry 1")
            && err.contains("nothing was imported"),
        "{err}"
    );
    // A snapshot that the log does not give.
    let mut moved = doc.clone();
    moved["games"][1]["snapshot"] = doc["games"][1]["initial"].clone();
    write("moved.json", moved.to_string());
    let err = refused(b, &["import", "moved.json"]);
    assert!(
        err.contains("replaying the log does not give the stored state"),
        "{err}"
    );

    let err = refused(b, &["import", "absent.json"]);
    assert!(err.contains("absent.json"), "{err}");
    // Nothing of any of them was imported.
    assert!(ok(b, &["games"]).contains("No games yet"));
}

#[test]
fn a_database_of_the_older_store_format_exports_and_imports() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let old = TempDir::new().unwrap();
    let db = old.path().join("var/db");
    fs::create_dir_all(&db).unwrap();
    for entry in fs::read_dir(fixture.join("db-format2")).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), db.join(entry.file_name())).unwrap();
    }
    ok(old.path(), &["export", "old.json"]);
    let doc = json(&fs::read_to_string(old.path().join("old.json")).unwrap());
    // Its states were written before they carried a format: version 1.
    assert_eq!(doc["games"][0]["head"]["state_version"], 1);
    let new = TempDir::new().unwrap();
    let n = new.path();
    let backup = old.path().join("old.json");
    ok(n, &["import", backup.to_str().unwrap()]);
    for game in ["rocket-1", "rocket-2"] {
        assert!(ok(n, &["verify", game]).contains("intact"));
    }
    let view = ok(n, &["show", "rocket-1", "--json", "--as", "cecil"]);
    let expected = fs::read_to_string(fixture.join("db-format2.rocket-1.cecil.json")).unwrap();
    assert_eq!(json(&view), json(&expected));
    let log = ok(n, &["log", "rocket-1", "--json"]);
    let expected = fs::read_to_string(fixture.join("db-format2.rocket-1.log.json")).unwrap();
    assert_eq!(json(&log), json(&expected));
    // It plays on, and new ids follow the old ones.
    let order = [
        "order",
        "rocket-1",
        "--as",
        "cecil",
        "token manchester steel",
    ];
    assert_eq!(ok(n, &order), ok(old.path(), &order));
    assert!(ok(n, &["verify", "rocket-1"]).contains("the log's 7 entries"));
}
