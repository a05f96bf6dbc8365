//! The lobby's attack surface (issue 34), through the real binary on the
//! embedded default, as a hostile player or game master would try it: one
//! rule for every command that makes the server mail an address that never
//! asked (the hour's limits, all of them and one sender's), addresses no
//! mail can go to, seats handed to another player's, a moderator's or the
//! server's own address, names that look like another's, and `leave` in a
//! game that has started.

use super::site::{
    ALICE, BOB, CAROL, Got, Server, made, one, reply_to_sender, started, started_moderated, to,
    who_waits,
};

/// The mails of one cycle that went to none of `known`.
fn to_strangers<'a>(mails: &'a [Got], known: &[&str]) -> Vec<&'a Got> {
    mails
        .iter()
        .filter(|m| !known.contains(&m.to.as_str()))
        .collect()
}

/// A started game on a server with `config`, whose awaited player sends
/// one mail of `n` `address add` lines to strangers: the server, that
/// player's address and welcome, and the mails of the cycle.
fn address_adds(config: &str, n: usize) -> (Server, &'static str, Got, Vec<Got>) {
    let mut s = Server::new(config);
    let (alice, bob) = started(&mut s);
    let (waiting, waiting_w, _, _) = who_waits(&s, alice, bob);
    let lines: Vec<String> = (0..n)
        .map(|i| format!("address add stranger{i}@example.com"))
        .collect();
    s.reply(waiting, &waiting_w, &lines.join("\n"));
    let sent = s.process();
    (s, waiting, waiting_w, sent)
}

#[test]
fn one_players_address_add_lines_mail_no_more_strangers_than_the_limit() {
    let (mut s, waiting, waiting_w, sent) = address_adds("", 40);
    let strangers = to_strangers(&sent, &[ALICE, BOB]);
    // [limits] unasked_per_sender_per_hour: 10 by default.
    assert_eq!(strangers.len(), 10, "{strangers:#?}");
    let answer = reply_to_sender(&sent, waiting);
    assert!(
        answer
            .text
            .contains("the most it does for one sender; try again in an hour"),
        "{}",
        answer.text
    );
    // The hour's limit holds across mails too.
    s.reply(waiting, &waiting_w, "address add late@example.com");
    let sent = s.process();
    assert!(to(&sent, "late@example.com").is_empty(), "{sent:#?}");
}

#[test]
fn all_unasked_mail_together_is_held_to_help_per_hour() {
    let (_, waiting, _, sent) = address_adds("[limits]\nhelp_per_hour = 5\n", 8);
    let strangers = to_strangers(&sent, &[ALICE, BOB]);
    // The first mails of alice and bob (their codes) counted in this hour
    // too: two of five.
    assert_eq!(strangers.len(), 3, "{strangers:#?}");
    let answer = reply_to_sender(&sent, waiting);
    assert!(
        answer
            .text
            .contains("as many new addresses as it does in an hour"),
        "{}",
        answer.text
    );
}

#[test]
fn an_address_no_mail_can_go_to_is_refused_and_the_rest_of_the_mail_applies() {
    let mut s = Server::new("");
    let (alice, bob) = started(&mut s);
    let (waiting, waiting_w, _, _) = who_waits(&s, alice, bob);
    s.reply(
        waiting,
        &waiting_w,
        "address add v@[127.0.0.1]\nreports short",
    );
    let sent = s.process();
    let answer = reply_to_sender(&sent, waiting);
    assert!(
        answer
            .text
            .contains("`v@[127.0.0.1]` is not a mail address"),
        "{}",
        answer.text
    );
    assert!(
        answer.text.contains("From now on you get `reports short`"),
        "{}",
        answer.text
    );
    let quarantine = s.dir.path().join("var/quarantine");
    assert!(
        !quarantine.exists() || std::fs::read_dir(&quarantine).unwrap().next().is_none(),
        "nothing quarantined"
    );
}

#[test]
fn no_seat_goes_to_another_players_address() {
    let mut s = Server::new("");
    let (_, _, moderator) = started_moderated(&mut s);
    s.reply(ALICE, &moderator, &format!("replace alice {BOB}"));
    let sent = s.process();
    let answer = one(&sent, ALICE);
    assert!(
        answer.text.contains("refused") && answer.text.contains("one person plays one seat"),
        "{}",
        answer.text
    );
    assert!(to(&sent, BOB).is_empty(), "{sent:#?}");
    // On the command line too, and `new` with one address for two seats.
    let out = s.sm(&["mod", "rocket-1", "replace", "bob", ALICE]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("one person plays one seat"),
        "{out:?}"
    );
    let out = s.sm(&[
        "new",
        "rocket",
        "--player",
        "a=x@example.com",
        "--player",
        "b=X@example.com",
    ]);
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("one person plays one seat"),
        "{out:?}"
    );
}

#[test]
fn an_added_address_is_never_a_moderators() {
    let mut s = Server::new("[site]\nmoderators = [\"gm@example.org\"]\n");
    let (alice, bob) = started(&mut s);
    let (waiting, waiting_w, _, _) = who_waits(&s, alice, bob);
    s.reply(waiting, &waiting_w, "address add gm@example.org");
    let sent = s.process();
    let answer = reply_to_sender(&sent, waiting);
    assert!(
        answer.text.contains("is a moderator's address"),
        "{}",
        answer.text
    );
    assert!(
        !sent
            .iter()
            .any(|m| m.to == "gm@example.org" && m.subject.contains("Confirm")),
        "{sent:#?}"
    );
}

#[test]
fn a_name_that_looks_like_a_players_is_refused() {
    let mut s = Server::new("");
    let _made = made(&mut s, "new rocket open");
    // A Cyrillic а in front.
    s.newcomer(CAROL, "join", "join rocket-1 as \u{430}lice");
    let answer = one(&s.process(), CAROL);
    assert!(answer.text.contains("looks like alice"), "{}", answer.text);
    assert!(!answer.text.contains("You joined"), "{}", answer.text);
    // On the command line, the same.
    let out = s.sm(&[
        "new",
        "rocket",
        "--player",
        "anna=anna@example.com",
        "--player",
        "\u{430}nna=other@example.com",
    ]);
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("looks like anna"),
        "{out:?}"
    );
}

#[test]
fn no_seat_or_moderator_key_goes_to_the_servers_own_address() {
    let mut s = Server::new("");
    let (_, _, moderator) = started_moderated(&mut s);
    for line in [
        "replace bob sm+x@example.org",
        "replace bob SM+X@EXAMPLE.ORG",
        "moderator sm+y@example.org",
    ] {
        s.reply(ALICE, &moderator, line);
        let sent = s.process();
        let answer = one(&sent, ALICE);
        assert!(
            answer.text.contains("refused") && answer.text.contains("this server's own address"),
            "{line}: {}",
            answer.text
        );
        assert_eq!(sent.len(), 1, "{line}: {sent:#?}");
    }
    let out = s.sm(&["mod", "rocket-1", "moderator", "sm+z@example.org"]);
    assert!(!out.status.success(), "{out:?}");
}

#[test]
fn no_invitation_goes_to_the_servers_own_addresses() {
    let mut s = Server::new("");
    let made = made(&mut s, "new rocket");
    let own_reply_address = made.reply_to.clone();
    assert!(
        own_reply_address.starts_with("sm+rocket-1."),
        "{own_reply_address}"
    );
    s.reply(
        ALICE,
        &made,
        &format!("invite sm+loop@example.org\ninvite {own_reply_address}"),
    );
    let sent = s.process();
    assert_eq!(sent.len(), 1, "only the answer: {sent:#?}");
    let answer = one(&sent, ALICE);
    assert_eq!(
        answer.text.matches("this server's own address").count(),
        2,
        "{}",
        answer.text
    );
}

#[test]
fn leave_after_the_start_says_how_a_seat_is_left() {
    let mut s = Server::new("");
    let (_, bob) = started(&mut s);
    s.reply(BOB, &bob, "leave");
    let sent = s.process();
    let answer = reply_to_sender(&sent, BOB);
    assert!(
        answer.text.contains("rocket-1 has started")
            && answer
                .text
                .contains("ask a moderator of the game (alice@example.org)")
            && answer.text.contains("`replace`"),
        "{}",
        answer.text
    );
    assert!(
        !answer.text.contains("Not read as orders"),
        "{}",
        answer.text
    );
}

#[test]
fn no_invitation_to_a_seat_goes_to_a_moderators_address() {
    let mut s = Server::new("[site]\nmoderators = [\"gm@example.org\"]\n");
    let made = made(&mut s, "new rocket");
    s.reply(ALICE, &made, "invite gm@example.org");
    let sent = s.process();
    assert_eq!(sent.len(), 1, "only the answer: {sent:#?}");
    assert!(
        one(&sent, ALICE).text.contains("is a moderator's address"),
        "{sent:#?}"
    );
}

#[test]
fn a_quoted_local_part_or_an_ip_number_is_no_address_to_mail() {
    let mut s = Server::new("");
    let made = made(&mut s, "new rocket");
    s.reply(
        ALICE,
        &made,
        "invite \"sm+x\"@example.org\ninvite root@127.0.0.1",
    );
    let sent = s.process();
    assert_eq!(sent.len(), 1, "only the answer: {sent:#?}");
    assert_eq!(
        one(&sent, ALICE)
            .text
            .matches("is not a mail address")
            .count(),
        2,
        "{sent:#?}"
    );
}

#[test]
fn a_confirmation_asked_for_before_a_seat_changed_hands_is_refused() {
    let mut s = Server::new("");
    let (_, bob, moderator) = started_moderated(&mut s);
    const SPARE: &str = "spare@example.com";
    s.reply(BOB, &bob, &format!("address add {SPARE}"));
    let sent = s.process();
    let ask = one(&sent, SPARE);
    let code = super::site::code_after(&ask.text, "confirm");
    s.reply(ALICE, &moderator, "replace bob dave@example.net");
    let _ = s.process();
    s.reply(SPARE, &ask, &format!("confirm {code}"));
    let sent = s.process();
    let answer = one(&sent, SPARE);
    assert!(
        answer
            .text
            .contains("has a new player since bob@example.org asked"),
        "{}",
        answer.text
    );
    assert!(!answer.text.contains("Confirmed"), "{}", answer.text);
}
