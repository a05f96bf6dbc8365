//! The command line as a person uses it: create a game, give orders, show
//! it, read its log, and play a 3-player game to its end, through the real
//! `stationmaster` binary on a database in a temporary folder.

use assert_cmd::Command;
use stationmaster::engine::Viewer;
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, PlayerSetup, Setup, Status};
use stationmaster::rocket::{Board, Order, Rocket};
use tempfile::TempDir;

use crate::binary::{sm, stdout};

fn new_game(dir: &TempDir, seed: u64) -> String {
    new_rocket(dir, &["--seed", &seed.to_string()])
}

/// `new rocket` for alice, bob and cecil, with `more`; the game's id.
fn new_rocket(dir: &TempDir, more: &[&str]) -> String {
    let out = stdout(
        sm(dir)
            .args([
                "new",
                "rocket",
                "--player",
                "alice=alice@example.org",
                "--player",
                "bob=bob@example.org",
                "--player",
                "cecil=cecil@example.org",
            ])
            .args(more),
    );
    out.trim().to_string()
}

fn json(dir: &TempDir, game: &str, viewer: Option<&str>) -> serde_json::Value {
    let mut c = sm(dir);
    c.args(["show", game, "--json"]);
    if let Some(v) = viewer {
        c.args(["--as", v]);
    }
    serde_json::from_str(&stdout(&mut c)).unwrap()
}

#[test]
fn new_prints_the_game_id_and_games_lists_it() {
    let dir = TempDir::new().unwrap();
    assert_eq!(new_game(&dir, 7), "rocket-1");
    assert_eq!(new_game(&dir, 8), "rocket-2");
    let list = stdout(sm(&dir).arg("games"));
    assert!(
        list.contains("rocket-1") && list.contains("rocket-2"),
        "{list}"
    );
    assert!(list.contains("alice, bob, cecil"), "{list}");
    assert!(
        list.contains("Waiting for bob (2 actions)"),
        "seed 7 starts with bob: {list}"
    );
}

/// Every `"seed"` in `value`, however deep.
fn seeds(value: &serde_json::Value, out: &mut Vec<u64>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v.as_u64()) {
                    ("seed", Some(seed)) => out.push(seed),
                    _ => seeds(v, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| seeds(v, out)),
        _ => {}
    }
}

#[test]
fn a_game_made_without_a_seed_gets_one_nobody_can_work_out_from_the_clock() {
    // Two games at the same moment (the tests' clock stands still): the
    // seed decides the cards to come, so it is never the time.
    let dir = TempDir::new().unwrap();
    for _ in 0..2 {
        new_rocket(&dir, &[]);
    }
    stdout(sm(&dir).args(["export", "all.json"]));
    let text = std::fs::read_to_string(dir.path().join("all.json")).unwrap();
    let mut found = Vec::new();
    seeds(&serde_json::from_str(&text).unwrap(), &mut found);
    assert_eq!(found.len(), 2, "{text}");
    assert_ne!(found[0], found[1]);
}

#[test]
fn orders_apply_all_or_nothing_and_refusals_say_why() {
    let dir = TempDir::new().unwrap();
    let game = new_game(&dir, 7);
    let out = stdout(sm(&dir).args([
        "order",
        &game,
        "--as",
        "bob",
        "token manchester textiles\nextend ly b4",
    ]));
    assert!(
        out.contains("You receive £2,000 for Manchester's tokens"),
        "{out}"
    );

    // Out of turn: exit 2, the line, the reason with its rule, nothing applied.
    let before = json(&dir, &game, None);
    let out = sm(&dir)
        .args(["order", &game, "--as", "alice", "token london steel"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Order 1 refused: token london steel"), "{err}");
    assert!(err.contains("It is cecil's turn, not yours."), "{err}");
    assert!(err.contains("(rules, Playing the game)"), "{err}");

    // A batch whose second line fails applies nothing, and lists what is legal.
    let out = sm(&dir)
        .args([
            "order",
            &game,
            "--as",
            "cecil",
            "token london steel\nextend ly z99",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Nothing was applied. Order 2 refused: extend ly z99"),
        "{err}"
    );
    assert!(err.contains("Z99 is off the map"), "{err}");
    assert!(
        err.contains("You can:") && err.contains("extend LINE HEX"),
        "{err}"
    );
    assert_eq!(json(&dir, &game, None), before);
}

/// `!skip` is the log's record of a missed deadline or a moderator's skip,
/// which players cannot send (docs/rocket-rulings.md, decision K). By mail
/// it is chatter; `order --as`, "as if NAME had mailed them", applied it:
/// cecil's veto-round place was given up ("cecil passes") and his turn
/// went on from there.
#[test]
fn a_player_cannot_send_the_system_s_skip() {
    let dir = TempDir::new().unwrap();
    let game = new_game(&dir, 7);
    stdout(sm(&dir).args(["order", &game, "--as", "bob", "token manchester textiles"]));
    let before = json(&dir, &game, None);
    let out = sm(&dir)
        .args(["order", &game, "--as", "bob", "!skip"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Order 1 refused: !skip"), "{err}");
    assert!(
        err.contains("`!skip` is how the log records a missed deadline or a moderator's skip"),
        "{err}"
    );
    assert_eq!(json(&dir, &game, None), before);
    let log = stdout(sm(&dir).args(["log", &game]));
    assert!(!log.contains("skip"), "{log}");
}

#[test]
fn money_is_private_in_show_and_json() {
    let dir = TempDir::new().unwrap();
    let game = new_game(&dir, 7);
    stdout(sm(&dir).args([
        "order",
        &game,
        "--as",
        "bob",
        "token manchester textiles\nextend ly b4",
    ]));
    let as_bob = json(&dir, &game, Some("bob"));
    assert_eq!(as_bob["players"][1]["money"], 2000);
    assert!(as_bob["players"][0].get("money").is_none());
    let as_alice = json(&dir, &game, Some("alice"));
    assert_eq!(as_alice["players"][0]["money"], 0);
    assert!(
        as_alice["players"][1].get("money").is_none(),
        "alice must not see bob's money"
    );
    assert_eq!(as_alice["game"], game);

    let text = stdout(sm(&dir).args(["show", &game, "--as", "alice"]));
    assert!(text.contains("Your money: £0 (private)"), "{text}");
    assert!(
        !text.contains("2,000"),
        "alice's view shows bob's money: {text}"
    );
    let log = stdout(sm(&dir).args(["log", &game]));
    assert!(log.contains("bob is paid for Manchester's tokens"), "{log}");
    assert!(
        !log.contains("2,000"),
        "the public log shows an amount: {log}"
    );
}

#[test]
fn the_map_fits_in_100_columns_with_coordinates_on_every_edge() {
    let dir = TempDir::new().unwrap();
    let game = new_game(&dir, 7);
    let text = stdout(sm(&dir).args(["show", &game, "--as", "bob"]));
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "too wide: {line}");
    }
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.trim_start().starts_with("A     B"))
        .unwrap();
    assert!(lines[header].trim_end().ends_with('O'));
    assert!(lines[header + 1].starts_with(" 1 ") && lines[header + 1].ends_with(" 1"));
    assert!(lines[header + 19].starts_with("19 ") && lines[header + 19].ends_with("19"));
    assert_eq!(lines[header + 20], lines[header]);
    assert!(text.contains("@Yor@") && text.contains("[Man]") && text.contains("<Lee>"));
    assert!(text.contains("You can:"), "{text}");
}

#[test]
fn unknown_games_players_and_configs_are_one_line_errors() {
    let dir = TempDir::new().unwrap();
    let out = sm(&dir).args(["show", "rocket-9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("there is no game `rocket-9`"), "{err}");

    let game = new_game(&dir, 7);
    let out = sm(&dir)
        .args(["order", &game, "--as", "dave", "pass"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("dave does not play in rocket-1"));

    std::fs::write(dir.path().join("bad.toml"), "[store]\npath = 3\n").unwrap();
    let out = sm(&dir)
        .args(["--config", "bad.toml", "games"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml, line 2"), "{err}");
    // A file that is not there: its cause said once.
    let out = sm(&dir)
        .args(["--config", "nothere.toml", "games"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot read the config file nothere.toml"),
        "{err}"
    );
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");

    let out = sm(&dir)
        .args(["new", "rocket", "--player", "solo=s@example.org"])
        .output()
        .unwrap();
    // What `new` is given wrongly is a usage error, as `demo chess` is.
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 to 4 players"));

    let out = sm(&dir)
        .args([
            "new",
            "rocket",
            "--player",
            "a=a@x.org",
            "--player",
            "b=b@x.org",
            "--option",
            "fast",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("rocket has no option `fast`"));
}

#[test]
fn in_a_veto_question_orders_apply_wait_or_are_refused_at_once() {
    let dir = TempDir::new().unwrap();
    let game = new_game(&dir, 7);
    let order = |who: &str, text: &str| {
        sm(&dir)
            .args(["order", &game, "--as", who, text])
            .output()
            .unwrap()
    };
    order("bob", "token manchester textiles\nextend ly b4");
    order("cecil", "extend ly c5");
    let before = json(&dir, &game, None);

    // alice holds no L&Y share: her bid can never apply (exit 2).
    let out = order("alice", "bid 1 c3");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Order 1 refused: bid 1 c3")
            && err.contains("you have no part in a veto round on L&Y's move to C5")
            && err.contains("(rulings 7)"),
        "{err}"
    );
    assert_eq!(json(&dir, &game, None), before);

    // cecil's early bid is held as his standing answer (exit 0).
    let out = order("cecil", "bid 1 c5");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Held for later") && text.contains("bid 1 c5: kept as your standing answer"),
        "{text}"
    );
    assert_eq!(json(&dir, &game, None), before);

    // The mover calls the veto: applied at once.
    let out = order("cecil", "veto");
    assert!(out.status.success());
    assert_eq!(json(&dir, &game, None)["phase"], "veto_round");
}

#[test]
fn help_prints_the_grammar_and_the_legal_orders() {
    let dir = TempDir::new().unwrap();
    let game = new_game(&dir, 7);
    let out = stdout(sm(&dir).args(["order", &game, "--as", "bob", "help"]));
    for form in [
        "extend LINE HEX",
        "token CITY GOOD",
        "station HEX from HEX",
        "no veto",
        "bid N HEX",
        "pass",
    ] {
        assert!(out.contains(form), "help lacks {form}: {out}");
    }
    assert!(
        out.contains("You can:") && out.contains("L&Y B3 B4 B5"),
        "{out}"
    );
}

#[test]
fn the_demo_plays_its_script_and_shows_the_map() {
    let dir = TempDir::new().unwrap();
    let out = stdout(sm(&dir).arg("demo"));
    assert!(
        out.contains("cecil wins the veto round with 1 share and puts L&Y on C5"),
        "{out}"
    );
    assert!(out.contains("As alice sees it now"), "{out}");
    assert!(out.contains("GWe"), "the map shows GWR's locomotive: {out}");
}

#[test]
fn the_linie1_demo_plays_its_script_and_keeps_the_cards_secret() {
    let dir = TempDir::new().unwrap();
    let out = stdout(sm(&dir).args(["demo", "linie1"]));
    assert!(
        out.contains("Created demo game linie1-1 (players alice, bob, cecil); wrote 8 mails"),
        "{out}"
    );
    assert!(
        out.contains(
            "8 mails read, 5 changed the game, 3 were answered without a change or ignored"
        ),
        "{out}"
    );
    assert!(out.contains("bob laid a straight (WE) on D6."), "{out}");
    assert!(
        out.contains("The stop sign of building L went to D6."),
        "{out}"
    );
    assert!(out.contains("As alice sees it now"), "{out}");
    assert!(
        out.contains("Your cards (secret until you start your trip)"),
        "alice's own cards: {out}"
    );
    // The mails: cecil's refused order answered with the rule; the mail
    // without a key refused; nobody reads another player's route card.
    let cards: Vec<String> = ["alice", "bob", "cecil"]
        .iter()
        .map(|p| {
            let v = json(&dir, "linie1-1", Some(p));
            let me = v["players"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["name"] == *p)
                .unwrap()
                .clone();
            format!("card {}", me["route_card"].as_str().unwrap())
        })
        .collect();
    let mut refusal = false;
    for e in std::fs::read_dir(dir.path().join("var/outbox")).unwrap() {
        let raw = std::fs::read(e.unwrap().path()).unwrap();
        let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
        let to = m
            .to()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .unwrap_or_default()
            .to_string();
        let text = crate::flowed::text_part(&m)
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if to == "cecil@example.org" && text.contains("run off the board at the north side of A1") {
            assert!(text.contains("rulings 1"), "{text}");
            refusal = true;
        }
        for (i, p) in ["alice", "bob", "cecil"].iter().enumerate() {
            if to != format!("{p}@example.org") {
                assert!(
                    !text.contains(&cards[i]),
                    "a mail to {to} shows {p}'s {}: {text}",
                    cards[i]
                );
            }
        }
    }
    assert!(refusal, "cecil is told why `lay A1 NS` was refused");
    // An unknown game has no demo.
    let (code, err) = failed(sm(&dir).args(["demo", "chess"]));
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("rocket, linie1"), "{err}");
}

/// A person plays a whole 3-player game from the command line. The test keeps
/// a copy of the game in memory only to choose legal orders; every order goes
/// through the binary, and the binary's final view must match the copy.
#[test]
fn a_three_player_game_is_played_to_its_end_from_the_command_line() {
    let dir = TempDir::new().unwrap();
    let seed = 11;
    let game = new_game(&dir, seed);
    let setup = Setup {
        kind: "rocket".into(),
        players: ["alice", "bob", "cecil"]
            .iter()
            .map(|n| PlayerSetup {
                name: n.to_string(),
                email: format!("{n}@example.org"),
            })
            .collect(),
        options: vec![],
        seed,
    };
    let mut mirror = Rocket::new(Board::embedded().unwrap(), &setup).unwrap();
    let names = ["alice", "bob", "cecil"];
    let mut rng = SplitMix64::new(99);
    let mut orders = 0;
    while let Status::Active(awaited) = mirror.status() {
        let seat = awaited[0].seat;
        let legal = mirror.legal_orders(seat);
        // Mostly extensions, so the game ends in a reasonable number of orders.
        let extends: Vec<&Order> = legal
            .iter()
            .filter(|o| matches!(o, Order::Extend { .. }))
            .collect();
        let order = if !extends.is_empty() && rng.below(4) > 0 {
            extends[rng.below(extends.len())].clone()
        } else {
            legal[rng.below(legal.len())].clone()
        };
        let text = mirror.order_text(&order);
        stdout(sm(&dir).args(["order", &game, "--as", names[seat.index()], &text]));
        mirror.apply(seat, &order).unwrap();
        orders += 1;
        assert!(orders < 2000, "the game does not end");
    }
    let mut view = json(&dir, &game, None);
    assert_eq!(view["finished"], true);
    // The command line adds the game's deadline settings to the rules' view,
    // `aborted` (null: it ended by the rules) and `paused` (null).
    assert!(view.as_object_mut().unwrap().remove("deadlines").is_some());
    assert_eq!(
        view.as_object_mut().unwrap().remove("aborted"),
        Some(serde_json::Value::Null)
    );
    assert_eq!(
        view.as_object_mut().unwrap().remove("paused"),
        Some(serde_json::Value::Null)
    );
    assert_eq!(view, {
        let mut v = mirror.view_json(Viewer::Spectator);
        v["game"] = serde_json::Value::String(game.clone());
        v
    });
    // Once over, everyone's money and the final table are shown.
    let text = stdout(sm(&dir).args(["show", &game]));
    assert!(
        text.contains("The game is over:") && text.contains("Final scores"),
        "{text}"
    );
    for n in names {
        assert!(
            view["players"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == n && p["money"].is_number())
        );
    }
    let log = stdout(sm(&dir).args(["log", &game]));
    assert_eq!(log.lines().filter(|l| l.starts_with('#')).count(), orders);
    assert!(log.contains("The game ends:"), "{log}");
    // A finished game takes no more orders, and `games` says it is over.
    let out = sm(&dir)
        .args(["order", &game, "--as", "alice", "token london steel"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{game} is finished (")) && err.contains("it takes no more orders"),
        "{err}"
    );
    let list = stdout(sm(&dir).arg("games"));
    assert!(
        list.contains("finished: ") && !list.contains("Waiting for"),
        "{list}"
    );
    let out = sm(&dir).args(["mod", &game, "pause"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("only `note` and `resend`"),
        "{out:?}"
    );
}

/// The exit code and stderr of a run.
fn failed(c: &mut Command) -> (Option<i32>, String) {
    let out = c.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn usage_errors_exit_64_and_name_the_argument() {
    let dir = TempDir::new().unwrap();
    let game = new_game(&dir, 7);
    // clap's own errors.
    let (code, _) = failed(sm(&dir).arg("bogus"));
    assert_eq!(code, Some(64));
    let (code, _) = failed(sm(&dir).args(["show"]));
    assert_eq!(code, Some(64), "a missing argument");
    // Ours.
    let (code, err) = failed(sm(&dir).args(["log", &game, "--turns", "9..3"]));
    assert_eq!(code, Some(64), "{err}");
    assert!(
        err.contains("--turns 9..3: the first turn is after the last"),
        "{err}"
    );
    let out = stdout(sm(&dir).args(["log", &game, "--turns", "50..60"]));
    assert!(out.contains("No log entries in turns 50..60."), "{out}");
    let (code, err) = failed(sm(&dir).args(["log", &game, "--turns", "x"]));
    assert_eq!(code, Some(64), "{err}");
    let (code, err) = failed(sm(&dir).env("STATIONMASTER_NOW", "tomorrow").arg("games"));
    assert_eq!(code, Some(64), "{err}");
    assert!(
        err.contains("STATIONMASTER_NOW=tomorrow: not an RFC 3339 time"),
        "{err}"
    );
    let (code, err) = failed(sm(&dir).args(["--now", "soon", "games"]));
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("--now soon: not an RFC 3339 time"), "{err}");
    let (code, err) = failed(sm(&dir).args([
        "new",
        "rocket",
        "--player",
        "alice",
        "--player",
        "b=b@x.org",
    ]));
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("--player alice: write NAME=EMAIL"), "{err}");
    // Whatever `new` is given wrongly exits 64 too (it exited 1, as for a
    // broken database, but for a malformed `--player`): the game, an
    // option or its value, the number of players, two of one name, an
    // address that is none; `demo chess` exited 64 already.
    let two = ["--player", "a=a@x.org", "--player", "b=b@x.org"];
    for (args, said) in [
        (vec!["new", "chess"], "there is no game called `chess`"),
        (
            vec!["new", "rocket", "--option", "fast"],
            "no option `fast`",
        ),
        (
            vec!["new", "rocket", "--option", "open_money=3"],
            "takes no value",
        ),
        (
            vec![
                "new",
                "rocket",
                "--player",
                "c=c@x.org",
                "--player",
                "d=d@x.org",
                "--player",
                "e=e@x.org",
            ],
            "2 to 4 players, not 5",
        ),
        (
            vec!["new", "rocket", "--moderator", "nope"],
            "--moderator nope: `nope` is not a mail address",
        ),
    ] {
        let mut args = args;
        args.extend(two);
        let (code, err) = failed(sm(&dir).args(&args));
        assert_eq!(code, Some(64), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
    let (code, err) = failed(sm(&dir).args([
        "new",
        "rocket",
        "--player",
        "a=a@x.org",
        "--player",
        "a=b@x.org",
    ]));
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("two players are called a"), "{err}");
    let (code, err) = failed(sm(&dir).args([
        "new",
        "rocket",
        "--player",
        "a=a@@x.org",
        "--player",
        "b=b@x.org",
    ]));
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("--player a=a@@x.org"), "{err}");
    // A game that is not there is not a usage error: exit 1.
    let (code, _) = failed(sm(&dir).args(["show", "rocket-9"]));
    assert_eq!(code, Some(1));
    let (code, err) = failed(sm(&dir).args([
        "new",
        "rocket",
        "--player",
        "a=a@x.org",
        "--player",
        "b=b@x.org",
        "--turn",
        "soon",
    ]));
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("--turn"), "{err}");
    // Each deadline flag is named when its value cannot be used, not only
    // when it cannot be read.
    for (flag, value) in [
        ("--time-zone", "Mars/Base"),
        ("--round-to-hour", "24"),
        ("--skip-days", "sat,funday"),
        ("--turn", "0m"),
    ] {
        let (code, err) = failed(sm(&dir).args([
            "new",
            "rocket",
            "--player",
            "a=a@x.org",
            "--player",
            "b=b@x.org",
            flag,
            value,
        ]));
        assert_eq!(code, Some(64), "{flag} {value}: {err}");
        assert!(
            err.starts_with(&format!("stationmaster: {flag}: ")),
            "{err}"
        );
    }
    let (code, err) = failed(sm(&dir).args(["quarantine", "retry"]));
    assert_eq!(code, Some(64), "{err}");
    let (code, err) = failed(sm(&dir).args(["mod", &game, "dance"]));
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("is not a moderator command"), "{err}");
    // Refused orders stay 2, unknown games 1.
    let (code, _) = failed(sm(&dir).args(["order", &game, "--as", "alice", "token london steel"]));
    assert_eq!(code, Some(2));
    let (code, _) = failed(sm(&dir).args(["show", "rocket-99"]));
    assert_eq!(code, Some(1));
    // Help is not an error.
    let help = stdout(sm(&dir).arg("--help"));
    for command in [
        "new",
        "order",
        "show",
        "log",
        "verify",
        "mod",
        "games",
        "export",
        "import",
        "run",
        "process",
        "check-config",
        "quarantine",
        "demo",
    ] {
        assert!(
            help.contains(&format!("  {command} ")),
            "--help lacks {command}: {help}"
        );
    }
    let help = stdout(sm(&dir).args(["mod", "--help"]));
    for (form, _) in stationmaster::daemon::moderator::FORMS {
        assert!(help.contains(form), "mod --help lacks {form}: {help}");
    }
    assert!(help.contains("set SETTING VALUE"), "{help}");
}

/// `new --help` says who plays first in each game: Rocket's seed chooses,
/// Linie 1's first `--player` begins (the rule book's oldest player).
#[test]
fn new_help_says_who_plays_first_in_each_game() {
    let dir = TempDir::new().unwrap();
    let help = stdout(sm(&dir).args(["new", "--help"]));
    assert!(
        help.contains("first player: chosen by the game's seed"),
        "{help}"
    );
    assert!(
        help.contains("first player: the first `--player` (the rule book's oldest player"),
        "{help}"
    );
}

#[test]
fn a_maildir_entry_that_cannot_be_read_is_put_in_quarantine_and_can_be_retried() {
    let dir = TempDir::new().unwrap();
    new_game(&dir, 7);
    let new = dir.path().join("var/inbox/new");
    std::fs::create_dir_all(&new).unwrap();
    // A symlink loop: every look at it fails.
    std::os::unix::fs::symlink("1000.loop", new.join("1000.loop")).unwrap();
    for round in 1..=3 {
        std::fs::write(
            new.join(format!("200{round}.mail")),
            format!("From: stranger@example.net\r\nSubject: hi\r\nMessage-ID: <s{round}@example.net>\r\n\r\nhello\r\n"),
        )
        .unwrap();
        let out = stdout(sm(&dir).arg("process"));
        assert!(out.starts_with("2 mail(s) read"), "round {round}: {out}");
        assert_eq!(out.contains("put in quarantine"), round == 3, "{out}");
    }
    let aside = dir.path().join("var/inbox/.Quarantine/cur/1000.loop");
    assert!(std::fs::symlink_metadata(&aside).is_ok());
    let list = stdout(sm(&dir).arg("quarantine"));
    assert!(
        list.contains("1000.loop") && list.contains("symbolic links") && list.contains("3 tries"),
        "{list}"
    );
    let out = sm(&dir)
        .args(["quarantine", "retry", "nothing.here"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no mail `nothing.here`"));
    let back = stdout(sm(&dir).args(["quarantine", "retry", "1000.loop"]));
    assert!(back.starts_with("1 mail(s) back"), "{back}");
    assert!(std::fs::symlink_metadata(new.join("1000.loop")).is_ok());
    assert!(stdout(sm(&dir).arg("quarantine")).contains("empty"));
}

#[test]
fn check_config_lists_every_problem_with_its_key() {
    let dir = TempDir::new().unwrap();
    // The embedded defaults are good.
    let out = stdout(sm(&dir).arg("check-config"));
    assert!(
        out.contains("valid") && out.contains("templates: built-in templates render"),
        "{out}"
    );

    std::fs::write(dir.path().join("a-file"), "").unwrap();
    std::fs::write(
        dir.path().join("bad.toml"),
        r#"
[mail]
address = "not an address"
[site]
moderators = ["gm@example.org", "nobody"]
[daemon]
poll_seconds = 0
send_attempts = 0
help_interval_hours = 0
[limits]
mails_per_sender_per_cycle = 0
alert_interval_hours = 0
[templates]
dir = "no-such-folder"
[store]
archive = "a-file/archive"
[outbound]
kind = "smtp"
host = "smtp.example.org"
port = 0
security = "plain"
user = "me"
password_env = "STATIONMASTER_TEST_NO_SUCH_VARIABLE"
timeout_seconds = 0
"#,
    )
    .unwrap();
    let (code, err) = failed(sm(&dir).args(["--config", "bad.toml", "check-config"]));
    assert_eq!(code, Some(1), "{err}");
    for line in [
        r#"[mail] address: "not an address" is not a mail address"#,
        r#"[site] moderators: "nobody" is not a mail address"#,
        "[daemon] poll_seconds: 0 is too small (at least 1)",
        "[daemon] send_attempts: 0 is too small (at least 1)",
        "[daemon] help_interval_hours: 0 is too small (at least 1)",
        "[limits] mails_per_sender_per_cycle: 0 is too small (at least 1)",
        "[limits] alert_interval_hours: 0 is too small (at least 1)",
        "[templates] dir: no-such-folder does not exist",
        "[store] archive: a-file/archive cannot be made: a-file is not a folder",
        "[outbound] port: 0 is not a port",
        "[outbound] security: plain (unencrypted) is only allowed towards this machine",
        "[outbound] password_env: the environment variable STATIONMASTER_TEST_NO_SUCH_VARIABLE is not set",
        "[outbound] timeout_seconds: 0 is too small (at least 1)",
        "config bad.toml: 13 problem(s)",
    ] {
        assert!(
            err.lines().any(|l| l.starts_with(line)),
            "check-config does not say {line}:\n{err}"
        );
    }

    // A template that loads but does not render.
    std::fs::create_dir(dir.path().join("tpl")).unwrap();
    std::fs::write(
        dir.path().join("tpl/report.txt"),
        "{{ hints | nosuchfilter }}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("tpl.toml"), "[templates]\ndir = \"tpl\"\n").unwrap();
    let (code, err) = failed(sm(&dir).args(["--config", "tpl.toml", "check-config"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("[templates] report.txt (a report): unknown filter")),
        "{err}"
    );
    assert_eq!(err.lines().count(), 2, "one line a problem: {err}");

    // Every command refuses the numbers that would break the daemon.
    std::fs::write(dir.path().join("zero.toml"), "[daemon]\npoll_seconds = 0\n").unwrap();
    let (code, err) = failed(sm(&dir).args(["--config", "zero.toml", "games"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("[daemon] poll_seconds: 0 is too small (at least 1)"),
        "{err}"
    );
}

#[test]
fn deadline_settings_take_neutral_names_and_the_games_own() {
    let dir = TempDir::new().unwrap();
    // A config in the words of earlier releases: Rocket's names.
    std::fs::write(
        dir.path().join("old.toml"),
        "[deadlines]\nveto_question = \"5h\"\nbid = \"7h\"\n",
    )
    .unwrap();
    let players = [
        "--player",
        "alice=alice@example.org",
        "--player",
        "bob=bob@example.org",
    ];
    let made = |extra: &[&str]| {
        let mut c = sm(&dir);
        c.args(["--config", "old.toml", "new", "rocket"])
            .args(players)
            .args(extra);
        stdout(&mut c).trim().to_string()
    };
    let deadlines = |id: &str| json(&dir, id, None)["deadlines"].clone();
    let a = made(&[]);
    assert_eq!(deadlines(&a)["veto_question"], "5h");
    assert_eq!(deadlines(&a)["veto_bid"], "7h");
    let b = made(&["--veto-question", "3h", "--bid", "2h"]);
    assert_eq!(deadlines(&b)["veto_question"], "3h");
    assert_eq!(deadlines(&b)["veto_bid"], "2h");
    let c = made(&["--question", "4h"]);
    assert_eq!(deadlines(&c)["veto_question"], "4h");
    // A moderator's `set`, under either name.
    stdout(sm(&dir).args(["mod", &c, "set", "veto_bid", "9h"]));
    stdout(sm(&dir).args(["mod", &c, "set", "question", "1h"]));
    assert_eq!(deadlines(&c)["veto_bid"], "9h");
    assert_eq!(deadlines(&c)["veto_question"], "1h");
    // A setting or a value that cannot be read: the command line used
    // wrongly, as an unreadable `extend` is.
    let (code, err) = failed(sm(&dir).args(["mod", &c, "set", "turn", "banana"]));
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("not a duration"), "{err}");
    let (code, err) = failed(sm(&dir).args(["mod", &c, "extend", "banana"]));
    assert_eq!(code, Some(64), "{err}");
    let (code, err) = failed(sm(&dir).args(["mod", &c, "set", "bidding", "1h"]));
    assert_eq!(code, Some(64), "{err}");
    assert!(
        err.contains("turn, veto_question, veto_bid, time_zone"),
        "{err}"
    );
    // Both names of one setting in one config is a mistake worth a line.
    std::fs::write(
        dir.path().join("both.toml"),
        "[deadlines]\nveto_question = \"5h\"\nquestion = \"6h\"\n",
    )
    .unwrap();
    let (code, err) = failed(sm(&dir).args(["--config", "both.toml", "games"]));
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("`veto_question` and `question`"), "{err}");
}

/// A mistake in `[deadlines]` is named by its file, the line of its key
/// and the key, as a mistake anywhere else in the config is: not by the
/// line of the `[deadlines]` heading, with a value nobody can place.
#[test]
fn a_deadline_setting_that_cannot_be_used_is_named_by_its_key_and_line() {
    let dir = TempDir::new().unwrap();
    let cases = [
        ("turn = \"2 days\"", "turn: `2 days` is not a duration"),
        ("veto_bid = \"12x\"", "veto_bid: `12x` is not a duration"),
        ("policy = \"skipp\"", "policy: unknown variant `skipp`"),
        ("trun = \"2d\"", "trun: unknown field `trun`"),
        (
            "time_zone = \"Europe/Lodnon\"",
            "time_zone: `Europe/Lodnon` is not a time zone",
        ),
        (
            "question = \"0m\"",
            "question: a deadline must be longer than 0m",
        ),
    ];
    for (setting, said) in cases {
        // The mistake on line 6, below the heading on line 3.
        let text = format!(
            "[daemon]\npoll_seconds = 5\n[deadlines]\n# the defaults\nbid = \"12h\"\n{setting}\naway_max = \"14d\"\n"
        );
        std::fs::write(dir.path().join("c.toml"), text).unwrap();
        let (code, err) = failed(sm(&dir).args(["--config", "c.toml", "games"]));
        assert_eq!(code, Some(1), "{setting}: {err}");
        assert_eq!(err.lines().count(), 1, "{setting}: {err}");
        assert!(
            err.contains(&format!("config file c.toml, line 6: [deadlines] {said}")),
            "{setting}: {err}"
        );
    }
}

/// What Stationmaster keeps (keys, addresses, mail waiting) is readable by
/// the operator's user alone, whatever the umask: the folders it makes
/// are mode 0700.
#[test]
fn the_folders_stationmaster_makes_are_the_operators_alone() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new().unwrap();
    let game = new_game(&dir, 7);
    let out = sm(&dir).args(["process"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!game.is_empty());
    for folder in ["var", "var/db", "var/outbox"] {
        let mode = std::fs::metadata(dir.path().join(folder))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "{folder}: {mode:o}");
    }
}

/// A refused order on the command line is named "Order N", as by mail: in
/// a game of Linie 1 "Line 1 refused: start 2W" read as the tram line 1.
#[test]
fn a_refused_order_is_named_by_its_number_not_as_a_line() {
    let dir = TempDir::new().unwrap();
    let game = stdout(sm(&dir).args([
        "new",
        "linie1",
        "--player",
        "anna=anna@example.org",
        "--player",
        "bert=bert@example.org",
        "--seed",
        "3",
    ]));
    let game = game.trim();
    let out = sm(&dir)
        .args(["order", game, "--as", "anna", "lay C4 WE\nstart 2W"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Nothing was applied. Order 2 refused: start 2W"),
        "{err}"
    );
    assert!(!err.contains("Line 2"), "{err}");
}

/// Two options `new` is given that the game cannot play together
/// (`ordered_stops` with `stops=2`) are a command line used wrongly, as an
/// option's wrong value is: exit 64 with the reason, where it exited 1,
/// the code of a broken database.
#[test]
fn new_with_options_that_clash_exits_64() {
    let dir = TempDir::new().unwrap();
    let (code, err) = failed(sm(&dir).args([
        "new",
        "linie1",
        "--player",
        "a=a@x.org",
        "--player",
        "b=b@x.org",
        "--option",
        "ordered_stops",
        "--option",
        "stops=2",
    ]));
    assert_eq!(code, Some(64), "{err}");
    assert!(err.contains("cannot go with `stops=2`"), "{err}");
}

/// A moderator command naming a player who does not play in the game
/// (`replace`, `as`, `preview`) exits 1, as the exit codes of docs/operators.md count an
/// unknown player and as `order --as zed` does: it exited 2, the code of
/// a refusal. One the game cannot take for a player who plays stays 2.
#[test]
fn mod_commands_for_an_unknown_player_exit_1() {
    let dir = TempDir::new().unwrap();
    let id = new_game(&dir, 5);
    let (code, err) = failed(sm(&dir).args(["order", &id, "--as", "zed", "pass"]));
    assert_eq!(code, Some(1), "{err}");
    for command in [
        "replace zed zed@example.org",
        "as zed pass",
        "preview zed pass",
    ] {
        let (code, err) = failed(sm(&dir).args(["mod", &id, command]));
        assert_eq!(code, Some(1), "{command}: {err}");
        assert!(
            err.contains("zed does not play in") && err.contains("alice, bob, cecil"),
            "{command}: {err}"
        );
    }
    let (code, err) = failed(sm(&dir).args(["mod", &id, "as alice frobnicate"]));
    assert_eq!(code, Some(2), "{err}");
}
