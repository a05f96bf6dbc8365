//! A game a moderator aborts, in both games: every mail it sends (the
//! players', an observer's, the moderators'), `show` and the archive say
//! it was aborted, by whom and why, and none still waits for anyone or
//! names a deadline.

use crate::site::{Got, Server, to};

const GM: &str = "gm@example.org";
const CAROL: &str = "carol@example.net";

/// What an aborted game must no longer say: whom it waits for, a deadline,
/// Linie 1's "secret until you start your trip" (the trip never comes) and
/// its next move's limit.
fn still_waiting(text: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    [
        "waiting for",
        "deadline",
        "(in 48 hours)",
        "secret until",
        "first move goes",
        "next at most",
    ]
    .into_iter()
    .find(|w| lower.contains(w))
}

fn says_aborted(what: &str, text: &str) {
    assert!(
        text.to_lowercase()
            .contains(&format!("aborted by a moderator ({GM})"))
            && text.contains("test over"),
        "{what} does not say who aborted it and why:\n{text}"
    );
    if let Some(w) = still_waiting(text) {
        panic!("{what} still says `{w}` after the abort:\n{text}");
    }
}

fn abort_everything_says_so(kind: &str) {
    let mut s = Server::new("");
    let id = format!("{kind}-1");
    s.ok(&[
        "new",
        kind,
        "--player",
        "alice=alice@example.org",
        "--player",
        "bob=bob@example.org",
        "--moderator",
        GM,
    ]);
    s.ok(&["mod", &id, "watchable", "on"]);
    let _ = s.process();
    s.newcomer(CAROL, "watch", &format!("watch {id}"));
    assert_eq!(to(&s.process(), CAROL).len(), 2, "carol watches {id}");
    s.ok(&["mod", &id, "--by", GM, "--why", "test over", "abort"]);
    let sent: Vec<Got> = s.process();
    for who in ["alice@example.org", "bob@example.org", CAROL, GM] {
        let mails = to(&sent, who);
        assert!(!mails.is_empty(), "no mail to {who}: {sent:#?}");
        for m in mails {
            says_aborted(&format!("{id}: the text of the mail to {who}"), &m.text);
            says_aborted(&format!("{id}: the HTML of the mail to {who}"), &m.html);
        }
    }
    for args in [vec!["show", &id], vec!["show", &id, "--as", "alice"]] {
        let show = s.ok(&args);
        says_aborted(&format!("{args:?}"), &show);
        // Above the map and in the status block: not a third time.
        assert_eq!(
            show.matches("aborted by a moderator").count(),
            2,
            "{args:?}:\n{show}"
        );
    }
    let archive = s.dir.path().join("var/archive").join(&id);
    for f in ["final.txt", "index.html"] {
        let text = std::fs::read_to_string(archive.join(f)).unwrap();
        says_aborted(&format!("{id}'s archived {f}"), &text);
    }
    // The picture says it too where it says whose turn it is (Linie 1),
    // and marks nobody to play.
    let svg = s.dir.path().join("board.svg");
    s.ok(&["show", &id, "--svg", svg.to_str().unwrap()]);
    let mut pictures = vec![("show --svg", std::fs::read_to_string(&svg).unwrap())];
    if let Ok(text) = std::fs::read_to_string(archive.join("final.svg")) {
        pictures.push(("the archived final.svg", text));
    }
    if kind == "linie1" {
        assert_eq!(pictures.len(), 2, "Linie 1's archive has its picture");
    }
    for (what, text) in pictures {
        assert!(
            !text.contains("to play") && !text.contains("turn 1 "),
            "{id}: {what} still says whose turn it is:\n{text}"
        );
        if kind == "linie1" {
            assert!(
                text.contains("Game over: aborted on Sat 21 Nov 2026 18:00 UTC."),
                "{id}: {what} does not say it was aborted:\n{text}"
            );
        }
    }
}

/// A Rocket game aborted with a veto open: the veto is never settled, so
/// no view still sets it out ("it could stand on …").
#[test]
fn an_aborted_rocket_game_leaves_its_open_veto_unsaid() {
    let s = Server::new("");
    s.ok(&[
        "new",
        "rocket",
        "--seed",
        "7",
        "--player",
        "alice=alice@example.org",
        "--player",
        "bob=bob@example.org",
        "--player",
        "cecil=cecil@example.org",
    ]);
    s.ok(&[
        "order",
        "rocket-1",
        "--as",
        "bob",
        "token manchester textiles\nextend ly b4",
    ]);
    s.ok(&["order", "rocket-1", "--as", "cecil", "extend ly c5"]);
    let before = s.ok(&["show", "rocket-1", "--as", "bob"]);
    assert!(before.contains("it could stand on"), "{before}");
    let _ = s.process();
    s.ok(&["mod", "rocket-1", "--by", GM, "--why", "test over", "abort"]);
    let mut texts: Vec<(String, String)> = s
        .process()
        .into_iter()
        .map(|m| (format!("the mail to {}", m.to), m.text))
        .collect();
    texts.push(("show".into(), s.ok(&["show", "rocket-1", "--as", "bob"])));
    for (what, text) in texts {
        says_aborted(&what, &text);
        assert!(
            !text.contains("Veto:") && !text.contains("it could stand on"),
            "{what} still sets out the veto:\n{text}"
        );
    }
}

#[test]
fn an_aborted_rocket_game_says_so_everywhere_and_waits_for_nobody() {
    abort_everything_says_so("rocket");
}

#[test]
fn an_aborted_linie1_game_says_so_everywhere_and_waits_for_nobody() {
    abort_everything_says_so("linie1");
}

/// Once a Linie 1 game is aborted nothing is secret, as at a real table:
/// the archive, `show` and the last mails show every player's line and
/// route card. They kept them hidden (each player saw only their own,
/// "secret until you start your trip"), so the archive never told them.
#[test]
fn an_aborted_linie1_games_archive_shows_every_players_cards() {
    let s = Server::new("");
    s.ok(&[
        "new",
        "linie1",
        "--player",
        "alice=alice@example.org",
        "--player",
        "bob=bob@example.org",
    ]);
    // Each player's cards, as only they see them now.
    let cards = |who: &str| -> String {
        let v: serde_json::Value =
            serde_json::from_str(&s.ok(&["show", "linie1-1", "--json", "--as", who])).unwrap();
        let me = &v["players"][if who == "alice" { 0 } else { 1 }];
        let stops: Vec<String> = me["stops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        format!(
            "cards: line {}, card {} ({})",
            me["line"],
            me["route_card"].as_str().unwrap(),
            stops.join(" ")
        )
    };
    let (alice, bob) = (cards("alice"), cards("bob"));
    let _ = s.process();
    let spectator = s.ok(&["show", "linie1-1"]);
    assert!(!spectator.contains(&alice) && !spectator.contains(&bob));
    s.ok(&["mod", "linie1-1", "--by", GM, "abort"]);
    let sent = s.process();
    let archive = s.dir.path().join("var/archive/linie1-1");
    let mut texts = vec![
        (
            "final.txt",
            std::fs::read_to_string(archive.join("final.txt")).unwrap(),
        ),
        ("show", s.ok(&["show", "linie1-1"])),
    ];
    for m in to(&sent, "alice@example.org") {
        texts.push(("alice's last mail", m.text.clone()));
    }
    for (what, text) in texts {
        let flat = crate::common::flat(&text);
        for c in [&alice, &bob] {
            assert!(flat.contains(c.as_str()), "{what} lacks `{c}`:\n{text}");
        }
    }
}

/// Once a game is aborted nothing is secret in its JSON view either, as in
/// `show`, the last mails and the archive: every player's money (Rocket)
/// and line and route card (Linie 1), to a spectator and to each player.
/// The JSON kept them as private as during play.
#[test]
fn an_aborted_games_json_view_shows_every_players_secrets() {
    for (kind, secret) in [("rocket", "money"), ("linie1", "route_card")] {
        let s = Server::new("");
        let id = format!("{kind}-1");
        s.ok(&[
            "new",
            kind,
            "--player",
            "alice=alice@example.org",
            "--player",
            "bob=bob@example.org",
        ]);
        let shown = |args: &[&str]| -> Vec<bool> {
            let mut all = vec!["show", id.as_str(), "--json"];
            all.extend(args);
            let v: serde_json::Value = serde_json::from_str(&s.ok(&all)).unwrap();
            v["players"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| !p[secret].is_null())
                .collect()
        };
        assert_eq!(shown(&["--as", "alice"]), [true, false], "{kind} in play");
        s.ok(&["mod", &id, "--by", GM, "abort"]);
        for args in [&[][..], &["--as", "alice"], &["--as", "bob"]] {
            assert_eq!(shown(args), [true, true], "{kind} {args:?}");
        }
    }
}
