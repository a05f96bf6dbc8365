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
        text.contains(&format!("aborted by a moderator ({GM})")) && text.contains("test over"),
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
        says_aborted(&format!("{args:?}"), &s.ok(&args));
    }
    let archive = s.dir.path().join("var/archive").join(&id);
    for f in ["final.txt", "index.html"] {
        let text = std::fs::read_to_string(archive.join(f)).unwrap();
        says_aborted(&format!("{id}'s archived {f}"), &text);
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
