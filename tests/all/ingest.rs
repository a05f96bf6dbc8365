//! Ingest: real MIME messages (hand-written fixtures in
//! `tests/fixtures/mail/`, as Gmail, Outlook, Apple Mail, Thunderbird and
//! mail servers write them) read into `Incoming`, and `parse` never panics.

use chrono::{TimeZone, Utc};
use proptest::prelude::*;
use stationmaster::mail::ingest::{Incoming, IngestError, MAX_BODY_CHARS, MAX_BODY_LINES, parse};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/mail/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn read(name: &str) -> Incoming {
    parse(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A plain message from a person, with extra header lines and a body.
fn mail(extra_headers: &str, subject: &str, body: &str) -> Vec<u8> {
    format!(
        "From: Alice <alice@example.org>\r\n\
         To: stationmaster@example.org\r\n\
         Subject: {subject}\r\n\
         Date: Mon, 3 Jun 2024 10:00:00 +0000\r\n\
         Message-ID: <made-up@example.org>\r\n\
         {extra_headers}\
         MIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\
         \r\n\
         {body}"
    )
    .into_bytes()
}

fn body_of(body: &str) -> Vec<String> {
    parse(&mail("", "[rocket-3] x", body)).unwrap().body
}

/// The fixture with every header line starting with `name:` taken out.
fn without_header(raw: &[u8], name: &str) -> Vec<u8> {
    let text = String::from_utf8(raw.to_vec()).unwrap();
    let prefix = format!("{}:", name.to_ascii_lowercase());
    text.split_inclusive('\n')
        .filter(|l| !l.to_ascii_lowercase().starts_with(&prefix))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn plain_text_orders() {
    let m = read("plain_orders.eml");
    assert_eq!(
        m.message_id.as_deref(),
        Some("5f0c2a7e-1b3d-4c1e-9f00-3a2b1c0d9e8f@example.org")
    );
    assert_eq!(
        m.in_reply_to.as_deref(),
        Some("rocket-3.17.report.alice@stationmaster.example.org")
    );
    assert_eq!(
        m.references,
        [
            "rocket-3.16.report.alice@stationmaster.example.org",
            "rocket-3.17.report.alice@stationmaster.example.org"
        ]
    );
    assert_eq!(
        m.date,
        Some(Utc.with_ymd_and_hms(2024, 6, 3, 8, 15, 0).unwrap())
    );
    assert_eq!(m.from.as_deref(), Some("alice.example@example.org"));
    assert_eq!(m.from_name.as_deref(), Some("Alice Example"));
    assert_eq!(m.reply_to, None);
    assert_eq!(m.to, ["stationmaster@example.org", "bob@example.net"]);
    assert_eq!(m.subject, "Re: [rocket-3 k7p2xq9m] Your turn");
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert_eq!(m.token.as_deref(), Some("k7p2xq9m"));
    assert_eq!(m.body, ["build A1 B2", "bid 5", "pass"]);
    assert_eq!(m.auto_reply, None);
    assert_eq!(m.attachments, 0);
    assert!(!m.truncated);
}

#[test]
fn gmail_reply_drops_the_attribution_and_the_quotes() {
    let m = read("gmail_reply.eml");
    assert_eq!(m.body, ["bid 7", "veto"]);
    assert_eq!(m.from.as_deref(), Some("bob.builder@gmail.com"));
    assert_eq!(m.from_name.as_deref(), Some("Bob Builder"));
    assert_eq!(
        m.message_id.as_deref(),
        Some("CAK7x+qZ3n1bVrV0=QmR3e0S1_v8bHkq2gX4wLdXr3aZ@mail.gmail.com")
    );
    assert_eq!(
        m.references,
        ["rocket-3.18.report.bob@stationmaster.example.org"]
    );
    assert_eq!(
        m.date,
        Some(Utc.with_ymd_and_hms(2024, 6, 4, 8, 1, 33).unwrap())
    );
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert_eq!(m.token.as_deref(), Some("k7p2xq9m"));
    assert_eq!(m.attachments, 0);
    assert_eq!(m.auto_reply, None);
}

#[test]
fn outlook_reply_drops_the_original_message() {
    let m = read("outlook_reply.eml");
    assert_eq!(m.body, ["pass", "Kind regards,", "Carol"]);
    assert_eq!(m.subject, "RE: [rocket-3] Your turn");
    assert_eq!(m.from.as_deref(), Some("carol.smith@corp.example.com"));
    assert_eq!(m.from_name.as_deref(), Some("Carol Smith"));
    // The subject names the game without a token; the plus address of the
    // Reply-To the player answered gives the token.
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert_eq!(m.token.as_deref(), Some("k7p2xq9m"));
    assert_eq!(m.to, ["stationmaster+rocket-3.k7p2xq9m@example.org"]);
    assert_eq!(m.auto_reply, None);
}

#[test]
fn outlook_header_block_without_dashes_is_dropped_too() {
    let m = read("outlook_from_sent.eml");
    // The "Get Outlook" line and the underscores before the block go too.
    assert_eq!(m.body, ["build D4 E4"]);
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert_eq!(m.token.as_deref(), Some("k7p2xq9m"));
}

#[test]
fn apple_mail_attribution_wrapped_over_two_lines() {
    let m = read("apple_wrapped.eml");
    assert_eq!(m.body, ["build C3", "bid 4"]);
    assert_eq!(m.from.as_deref(), Some("dave@icloud.example.com"));
    assert_eq!(
        m.message_id.as_deref(),
        Some("9C1E2F3A-4B5C-6D7E-8F90-A1B2C3D4E5F6@icloud.example.com")
    );
    assert_eq!(m.to, ["stationmaster@example.org", "eve@example.net"]);
    assert_eq!(
        m.date,
        Some(Utc.with_ymd_and_hms(2024, 6, 3, 9, 48, 21).unwrap())
    );
}

#[test]
fn html_only_mail_is_converted_to_text() {
    let m = read("html_only.eml");
    assert_eq!(
        m.body,
        [
            "build A1 B2",
            "bid 5",
            "pass",
            "note: <red> & \"blue\" 'x' \u{2014} \u{2713}",
        ]
    );
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert_eq!(m.attachments, 0);
    assert_eq!(
        m.date,
        Some(Utc.with_ymd_and_hms(2024, 6, 3, 16, 0, 0).unwrap())
    );
}

#[test]
fn multipart_alternative_prefers_the_text_part() {
    let m = read("alternative.eml");
    assert_eq!(m.body, ["bid 3", "pass"]);
    assert_eq!(m.game.as_deref(), Some("rocket-5"));
    assert_eq!(m.token.as_deref(), Some("abcdef12"));
    assert_eq!(m.attachments, 0);
}

#[test]
fn quoted_printable_body_and_encoded_words() {
    let m = read("quoted_printable.eml");
    assert_eq!(
        m.body,
        [
            "build A1 B2 C3 D4 E5 F6 G7 H8 I9 J10 K11 L12 M13 N14 O15 P16 Q17 R18 S19 T20",
            "note Grüße aus München, a=b",
            "bid 5",
        ]
    );
    assert_eq!(m.from_name.as_deref(), Some("Jürgen Müller"));
    assert_eq!(m.subject, "[rocket-3 k7p2xq9m] Züge");
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert_eq!(m.token.as_deref(), Some("k7p2xq9m"));
}

#[test]
fn base64_body() {
    let m = read("base64.eml");
    assert_eq!(m.body, ["bid 12", "pass", "note déjà vu"]);
    assert_eq!(m.from.as_deref(), Some("heidi@example.ch"));
}

#[test]
fn iso_8859_1_is_decoded() {
    let m = read("latin1.eml");
    assert_eq!(m.body, ["bid 8", "note très bien, à bientôt"]);
    assert_eq!(m.from_name.as_deref(), Some("André Lefèvre"));
    assert_eq!(m.subject, "Re\u{a0}: [rocket-3 k7p2xq9m] à vous");
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
}

#[test]
fn an_unknown_charset_gives_lossy_text() {
    let m = read("unknown_charset.eml");
    assert_eq!(m.body.len(), 3);
    assert_eq!(m.body[0], "bid 9");
    assert!(m.body[1].starts_with("note "), "{:?}", m.body);
    assert!(m.body[1].contains('\u{FFFD}'), "{:?}", m.body);
    assert_eq!(m.body[2], "pass");
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
}

#[test]
fn attachments_are_counted_and_ignored() {
    let m = read("attachment.eml");
    assert_eq!(m.body, ["build B2 C2"]);
    assert_eq!(m.attachments, 2);
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
}

#[test]
fn the_signature_is_cut() {
    let m = read("signature.eml");
    assert_eq!(m.body, ["pass", "build F6 G6"]);
    assert_eq!(body_of("bid 1\r\n--\r\nAlice\r\npass\r\n"), ["bid 1"]);
}

#[test]
fn forwarded_messages_are_cut() {
    assert_eq!(read("forwarded.eml").body, ["bid 6"]);
    assert_eq!(read("forwarded_apple.eml").body, ["pass"]);
}

#[test]
fn attributions_in_other_languages() {
    let cases = [
        "Le lun. 3 juin 2024 à 10:12, Stationmaster <sm@example.org> a écrit :",
        "Am 03.06.2024 um 10:12 schrieb Stationmaster <sm@example.org>:",
        "Il giorno lun 3 giu 2024 alle ore 10:12 Stationmaster <sm@example.org> ha scritto:",
        "On Mon, Jun 3, 2024 at 10:12 AM Stationmaster <sm@example.org> wrote:",
    ];
    for attribution in cases {
        let body = format!("bid 5\r\n\r\n{attribution}\r\n\r\nbid 99\r\n");
        assert_eq!(body_of(&body), ["bid 5"], "{attribution}");
    }
    // Gmail wraps inside the address.
    let body = "bid 5\r\nOn Mon, Jun 3, 2024 at 10:12 AM Stationmaster <\r\nsm@example.org> wrote:\r\nbid 99\r\n";
    assert_eq!(body_of(body), ["bid 5"]);
    // An ordinary line that happens to start with "On" stays.
    assert_eq!(
        body_of("On second thought:\r\npass\r\n"),
        ["On second thought:", "pass"]
    );
}

/// The attribution lines Gmail, Outlook (its apps), Thunderbird and Apple
/// Mail write in English, German, French, Italian, Hungarian and Spanish,
/// whole or wrapped as the clients wrap them (inside the address, before
/// the verb, inside Gmail's Hungarian parentheses), each with an order
/// above it (after a blank line or not) and one below its quote: the
/// attribution is dropped whole, the orders kept, and no piece of it is
/// left for the player to be shown as "not read".
#[test]
fn attributions_of_common_clients_in_six_languages_wrapped_or_not() {
    let sm = "Stationmaster <stationmaster+rocket-3.k7p2xq9m@example.org>";
    let cases: Vec<Vec<String>> = [
        // English: Gmail, Outlook for iOS/Android, Thunderbird, Apple Mail.
        "On Mon, Jun 3, 2024 at 10:12 AM {sm} wrote:",
        "On Mon, Jun 3, 2024 at 10:12 AM Stationmaster <|stationmaster+rocket-3.k7p2xq9m@example.org> wrote:",
        "On Mon, Jun 3, 2024 at 10:12 AM {sm}|wrote:",
        "On Mon, Jun 3, 2024 at 10:12 AM, {sm} wrote:",
        "On 03/06/2024 10:12, Stationmaster wrote:",
        "On 3 Jun 2024, at 10:12, {sm} wrote:",
        // German: Gmail (web, and the Android form), Thunderbird, Apple Mail.
        "Am Mo., 3. Juni 2024 um 10:12 Uhr schrieb {sm}:",
        "Am Mo., 3. Juni 2024 um 10:12 Uhr schrieb Stationmaster <|stationmaster+rocket-3.k7p2xq9m@example.org>:",
        "{sm} schrieb am Mo., 3. Juni 2024, 10:12:",
        "{sm} schrieb am Mo., 3.|Juni 2024, 10:12:",
        "Stationmaster <|stationmaster+rocket-3.k7p2xq9m@example.org> schrieb am Mo., 3. Juni 2024, 10:12:",
        "Am 03.06.2024 um 10:12 schrieb Stationmaster:",
        "Am 03.06.2024 um 10:12 schrieb {sm}:",
        // French.
        "Le lun. 3 juin 2024 à 10:12, {sm} a écrit :",
        "Le lun. 3 juin 2024 à 10:12, {sm} a|écrit :",
        "Le lun. 3 juin 2024 à 10:12, Stationmaster <|stationmaster+rocket-3.k7p2xq9m@example.org> a écrit :",
        "Le 03/06/2024 à 10:12, Stationmaster a écrit :",
        "Le 3 juin 2024 à 10:12, {sm} a écrit :",
        // Italian.
        "Il giorno lun 3 giu 2024 alle ore 10:12 {sm} ha scritto:",
        "Il giorno lun 3 giu 2024 alle ore 10:12 Stationmaster <|stationmaster+rocket-3.k7p2xq9m@example.org> ha scritto:",
        "Il giorno lun 3 giu 2024 alle ore 10:12 {sm} ha|scritto:",
        "Il 03/06/2024 10:12, Stationmaster ha scritto:",
        "Il giorno 3 giu 2024, alle ore 10:12, {sm} ha scritto:",
        // Hungarian: Gmail (both forms), Thunderbird, Apple Mail.
        "{sm} ezt írta (időpont: 2024. jún. 3., H, 10:12):",
        "{sm} ezt írta (időpont:|2024. jún. 3., H, 10:12):",
        "{sm} ezt írta|(időpont: 2024. jún. 3., H, 10:12):",
        "{sm} ezt írta (időpont: 2024. jún.|3., H, 10:12):",
        "Stationmaster <|stationmaster+rocket-3.k7p2xq9m@example.org> ezt írta (időpont:|2024. jún. 3., H, 10:12):",
        "2024. jún. 3., H 10:12 időpontban {sm} ezt írta:",
        "2024. jún. 3., H 10:12 időpontban {sm} ezt|írta:",
        "2024. jún. 3., H 10:12 időpontban Stationmaster <|stationmaster+rocket-3.k7p2xq9m@example.org> ezt írta:",
        "2024. 06. 03. 10:12 keltezéssel, Stationmaster írta:",
        "2024. jún. 3. dátummal, 10:12 időpontban {sm} írta:",
        "2024. jún. 3. dátummal, 10:12 időpontban {sm}|írta:",
        // Spanish.
        "El lun, 3 jun 2024 a las 10:12, Stationmaster (<stationmaster+rocket-3.k7p2xq9m@example.org>) escribió:",
        "El lun, 3 jun 2024 a las 10:12, Stationmaster (<|stationmaster+rocket-3.k7p2xq9m@example.org>) escribió:",
        "El 3/6/24 a las 10:12, Stationmaster escribió:",
        "El 3 jun 2024, a las 10:12, {sm} escribió:",
        "El lun., 3 de jun. de 2024, 10:12, {sm}|escribió:",
    ]
    .iter()
    .map(|c| c.replace("{sm}", sm).split('|').map(str::to_string).collect())
    .collect();
    for lines in &cases {
        for gap in ["\r\n", ""] {
            let body = format!(
                "pass\r\n{gap}{}\r\n> Rocket 3, turn 4: your move.\r\n>\r\n\r\nbid 2 F8\r\n",
                lines.join("\r\n")
            );
            assert_eq!(body_of(&body), ["pass", "bid 2 F8"], "{lines:?}");
        }
    }
    // A line of the player's own just above an attribution stays theirs,
    // even when it holds an address or a year as the start of a wrapped
    // one does.
    for own in ["address alice@example.net", "away 2026-06-01 to 2026-06-03"] {
        let body = format!("{own}\r\nOn Mon, Jun 3, 2024 at 10:12 AM {sm} wrote:\r\n> q\r\n");
        assert_eq!(body_of(&body), [own]);
    }
}

#[test]
fn quoted_lines_go_and_inner_blank_lines_too() {
    let body = "\r\n  \r\nbid 5\r\n  > quoted\r\n>> deeper\r\n\r\n  build A1 B1\t \r\n\r\n";
    assert_eq!(body_of(body), ["bid 5", "  build A1 B1"]);
}

#[test]
fn automatic_messages_are_recognised() {
    let m = read("auto_submitted.eml");
    assert_eq!(
        m.auto_reply.as_deref(),
        Some("Auto-Submitted: auto-replied (vacation)")
    );
    // Everything else is still read.
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert_eq!(m.from.as_deref(), Some("mallory@example.com"));

    assert_eq!(
        read("precedence_bulk.eml").auto_reply.as_deref(),
        Some("Precedence: bulk")
    );
    assert_eq!(
        read("vacation_subject.eml").auto_reply.as_deref(),
        Some("automatic subject (out of office)")
    );
    assert_eq!(
        read("x_autoreply.eml").auto_reply.as_deref(),
        Some("X-Autoreply: yes")
    );

    // The bounce trips three rules; take them away one by one.
    let bounce = fixture("bounce.eml");
    let m = parse(&bounce).unwrap();
    assert_eq!(m.auto_reply.as_deref(), Some("null Return-Path (a bounce)"));
    assert_eq!(m.from.as_deref(), Some("mailer-daemon@mx.example.org"));
    assert_eq!(m.body[0], "This is the mail system at host mx.example.org.");
    let bounce = without_header(&bounce, "Return-Path");
    assert_eq!(
        parse(&bounce).unwrap().auto_reply.as_deref(),
        Some("sent by mailer-daemon@mx.example.org")
    );
    let bounce = String::from_utf8(bounce)
        .unwrap()
        .replace("MAILER-DAEMON@mx.example.org", "someone@mx.example.org")
        .replace("Undelivered Mail Returned to Sender", "About your mail");
    assert_eq!(
        parse(bounce.as_bytes()).unwrap().auto_reply.as_deref(),
        Some("delivery or read report (multipart/report)")
    );
}

#[test]
fn more_automatic_message_kinds() {
    let auto = |headers: &str, subject: &str| {
        parse(&mail(headers, subject, "hello\r\n"))
            .unwrap()
            .auto_reply
    };
    assert_eq!(auto("", "Re: [rocket-3] Your turn"), None);
    assert_eq!(auto("Auto-Submitted: no\r\n", "hi"), None);
    assert_eq!(
        auto("Auto-Submitted: auto-generated\r\n", "hi").as_deref(),
        Some("Auto-Submitted: auto-generated")
    );
    assert_eq!(
        auto("Precedence: junk\r\n", "hi").as_deref(),
        Some("Precedence: junk")
    );
    assert_eq!(
        auto("Precedence: list\r\n", "hi").as_deref(),
        Some("Precedence: list")
    );
    assert_eq!(auto("Precedence: first-class\r\n", "hi"), None);
    assert_eq!(
        auto("X-Autorespond: Vacation\r\n", "hi").as_deref(),
        Some("X-Autorespond: Vacation")
    );
    assert_eq!(
        auto("X-Auto-Response-Suppress: DR, OOF, AutoReply\r\n", "hi").as_deref(),
        Some("X-Auto-Response-Suppress: DR, OOF, AutoReply")
    );
    assert_eq!(
        auto("X-Auto-Response-Suppress: All\r\n", "hi").as_deref(),
        Some("X-Auto-Response-Suppress: All")
    );
    assert_eq!(auto("X-Auto-Response-Suppress: DR\r\n", "hi"), None);
    assert_eq!(
        auto("List-Id: Railway games <games.lists.example.org>\r\n", "hi").as_deref(),
        Some("mailing list (List-Id)")
    );
    assert_eq!(
        auto("List-Unsubscribe: <mailto:leave@example.org>\r\n", "hi").as_deref(),
        Some("mailing list (List-Unsubscribe)")
    );
    assert_eq!(
        auto("Return-Path: <postmaster@example.org>\r\n", "hi").as_deref(),
        Some("sent by postmaster@example.org")
    );
    for subject in [
        "Auto: [rocket-3] Your turn",
        "Automatic reply: [rocket-3] Your turn",
        "AutoReply: away",
        "Vacation reply",
        "Undeliverable: [rocket-3] Your turn",
        "Delivery Status Notification (Failure)",
    ] {
        assert!(auto("", subject).is_some(), "{subject}");
    }
    for sender in ["noreply", "no-reply", "donotreply", "postmaster"] {
        let raw = String::from_utf8(mail("", "hi", "x\r\n"))
            .unwrap()
            .replace("alice@example.org", &format!("{sender}@example.org"));
        assert_eq!(
            parse(raw.as_bytes()).unwrap().auto_reply,
            Some(format!("sent by {sender}@example.org")),
        );
    }
}

#[test]
fn game_tag_with_and_without_token() {
    let m = parse(&mail("", "Re: [SPAM] [rocket-12] Your turn", "pass\r\n")).unwrap();
    assert_eq!(m.game.as_deref(), Some("rocket-12"));
    assert_eq!(m.token, None);
    let m = parse(&mail("", "AW: [rocket-3 k7p2xq9m] Your turn", "pass\r\n")).unwrap();
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert_eq!(m.token.as_deref(), Some("k7p2xq9m"));
    // Tags of other shapes are passed over.
    for subject in [
        "[SPAM] hello",
        "[rocket] x",
        "[rocket-3 k7!] x",
        "[rocket-3 abc] x",
    ] {
        let m = parse(&mail("", subject, "pass\r\n")).unwrap();
        assert_eq!(m.game, None, "{subject}");
        assert_eq!(m.token, None, "{subject}");
    }
}

#[test]
fn game_from_the_first_body_line() {
    let m = read("game_line.eml");
    assert_eq!(m.game.as_deref(), Some("rocket-7"));
    assert_eq!(m.token, None);
    assert_eq!(m.body, ["build A1 B1", "pass"]);
    // The subject wins, and the line is taken out either way.
    let m = parse(&mail("", "[rocket-3]", "game rocket-7\r\npass\r\n")).unwrap();
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert_eq!(m.body, ["pass"]);
    // Only the first line names the game.
    let m = parse(&mail("", "orders", "pass\r\ngame rocket-7\r\n")).unwrap();
    assert_eq!(m.game, None);
    assert_eq!(m.body, ["pass", "game rocket-7"]);
}

#[test]
fn token_from_a_plus_address() {
    let m = read("plus_address.eml");
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert_eq!(m.token.as_deref(), Some("k7p2xq9m"));
    assert_eq!(m.to, ["stationmaster+rocket-3.k7p2xq9m@example.org"]);
    assert_eq!(m.body, ["bid 2"]);
    // A plus address of another game gives no token for the subject's game.
    let raw = String::from_utf8(mail("", "[rocket-4] orders", "pass\r\n"))
        .unwrap()
        .replace(
            "To: stationmaster@example.org",
            "To: stationmaster+rocket-3.k7p2xq9m@example.org",
        );
    let m = parse(raw.as_bytes()).unwrap();
    assert_eq!(m.game.as_deref(), Some("rocket-4"));
    assert_eq!(m.token, None);
}

#[test]
fn a_huge_body_is_truncated() {
    let m = read("huge.eml");
    assert!(m.truncated);
    assert_eq!(m.body.len(), MAX_BODY_LINES);
    assert_eq!(m.body[0], "bid 1");
    assert_eq!(m.body[MAX_BODY_LINES - 1], "bid 200");

    let long_line = "x".repeat(900);
    let body: String = (0..30).map(|_| format!("{long_line}\r\n")).collect();
    let m = parse(&mail("", "[rocket-3]", &body)).unwrap();
    assert!(m.truncated);
    assert_eq!(m.body.len(), 22);
    assert!(m.body.iter().map(|l| l.len() + 1).sum::<usize>() <= MAX_BODY_CHARS + 1);

    let m = parse(&mail("", "[rocket-3]", &"bid 1\r\n".repeat(MAX_BODY_LINES))).unwrap();
    assert!(!m.truncated);
    assert_eq!(m.body.len(), MAX_BODY_LINES);
}

#[test]
fn malformed_mime_gives_what_can_be_recovered() {
    let m = read("malformed.eml");
    assert_eq!(m.from.as_deref(), Some("sybil@example.org"));
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert_eq!(m.date, None);
    // The multipart has no part with its boundary: its whole body is read as
    // text, the stray MIME lines included (the order parser refuses those
    // with a clear error).
    assert_eq!(
        m.body,
        [
            "--some-other-boundary",
            "Content-Type: text/plain",
            "bid 4",
            "pass"
        ]
    );
}

#[test]
fn a_blank_text_part_gives_way_to_the_html_part() {
    let raw = "From: a@example.org\r\nSubject: [rocket-3]\r\nMIME-Version: 1.0\r\n\
               Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n\
               --b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n \r\n\r\n\
               --b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n\
               <p>bid 4</p><p>pass</p>\r\n--b--\r\n";
    assert_eq!(parse(raw.as_bytes()).unwrap().body, ["bid 4", "pass"]);
}

#[test]
fn a_single_body_part_with_a_file_name_is_still_the_body() {
    let raw = "From: a@example.org\r\nSubject: [rocket-3]\r\nMIME-Version: 1.0\r\n\
               Content-Type: text/plain; charset=utf-8; name=\"orders.txt\"\r\n\
               Content-Disposition: inline; filename=\"orders.txt\"\r\n\r\nbid 4\r\n";
    let m = parse(raw.as_bytes()).unwrap();
    assert_eq!(m.body, ["bid 4"]);
    assert_eq!(m.attachments, 0);
}

#[test]
fn empty_and_garbage_input() {
    assert_eq!(parse(&fixture("empty.eml")), Err(IngestError::Empty));
    assert_eq!(parse(b"\r\n\r\n  \n"), Err(IngestError::Empty));
    // Whatever it makes of it, it does not panic, and it finds no game.
    if let Ok(m) = parse(&fixture("garbage.bin")) {
        assert_eq!(m.game, None);
        assert_eq!(m.auto_reply, None);
    }
    // A body with no header at all.
    assert!(parse(b"\r\nbid 5\r\n").is_err());
    // Headers only, no body.
    let m = parse(b"From: a@example.org\r\nSubject: [rocket-3]\r\n").unwrap();
    assert_eq!(m.from.as_deref(), Some("a@example.org"));
    assert_eq!(m.game.as_deref(), Some("rocket-3"));
    assert!(m.body.is_empty());
}

fn headers_strategy() -> impl Strategy<Value = String> {
    (
        "[ -~]{0,40}",
        prop::sample::select(vec![
            "text/plain; charset=utf-8",
            "text/html; charset=iso-8859-1",
            "text/plain; format=flowed; delsp=yes",
            "multipart/mixed; boundary=\"b\"",
            "multipart/alternative; boundary=b",
            "text/plain; charset=x-unknown",
        ]),
        prop::sample::select(vec!["7bit", "quoted-printable", "base64", "8bit"]),
    )
        .prop_map(|(subject, ct, cte)| {
            format!(
                "From: P <p@example.org>\r\nTo: s+rocket-1.abcdef@example.org\r\n\
                 Subject: {subject}\r\nContent-Type: {ct}\r\n\
                 Content-Transfer-Encoding: {cte}\r\n\r\n"
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parse_never_panics_on_arbitrary_bytes(raw in prop::collection::vec(any::<u8>(), 0..2048)) {
        let _ = parse(&raw);
    }

    #[test]
    fn parse_never_panics_on_text_in_valid_headers(
        headers in headers_strategy(),
        body in prop_oneof![
            "\\PC{0,400}",
            "([<>&;#/a-z0-9 =\r\n-]|--b|<br>|&#x[0-9a-f]{1,8};|On x wrote:){0,80}",
        ],
    ) {
        let raw = format!("{headers}{body}");
        let m = parse(raw.as_bytes()).expect("headers are there");
        prop_assert!(m.body.len() <= MAX_BODY_LINES);
        prop_assert!(m.body.iter().all(|l| !l.trim().is_empty() && l.trim_end() == l));
    }
}

#[test]
fn issue_11_text_below_and_between_quotes_is_read() {
    // Thunderbird, bottom-posting: the answer is below the quote.
    let body = "On 03/06/2024 10:12, Stationmaster wrote:\r\n> Your turn.\r\n>   bid N HEX\r\n\r\nbid 2 E9\r\n\r\n-- \r\nAlice\r\n";
    assert_eq!(body_of(body), ["bid 2 E9"]);
    // Mutt, inline: answers between quoted pieces.
    let body = "* Stationmaster <sm@example.org> [2024-06-03 10:12]:\r\n> Shall GWR move?\r\nno veto\r\n\r\n> Your turn.\r\ntoken manchester steel\r\n";
    assert_eq!(body_of(body), ["no veto", "token manchester steel"]);
}

#[test]
fn issue_11_attributions_and_header_blocks_of_other_clients() {
    let attributions = [
        "02.04.2012 14:20 пользователь \"Stationmaster\" написал:",
        "Thu, 26 Jun 2014 14:00:51 +0400 от Alexander L <al@example.ru>:",
        "26.06.2014, 14:41, \"Alexander L\" <al@example.ru>:",
        "W dniu 3.06.2024 o 10:12, Stationmaster pisze:",
        "2024. 06. 03. 10:12 keltezéssel, Stationmaster írta:",
        "2024/06/03 10:12 に Stationmaster さんは書きました:",
        "El lun, 3 jun 2024 a las 10:12, Stationmaster (<sm@example.org>) escribió:",
        "Em seg., 3 de jun. de 2024 às 10:12, Stationmaster <sm@example.org> escreveu:",
        "Op ma 3 jun 2024 om 10:12 schreef Stationmaster <sm@example.org>:",
        "Den mån 3 juni 2024 kl 10:12 skrev Stationmaster <sm@example.org>:",
    ];
    for a in attributions {
        let body = format!("bid 5\r\n\r\n{a}\r\nYour turn.\r\nbid 99\r\n");
        assert_eq!(body_of(&body), ["bid 5"], "{a}");
        let body = format!("{a}\r\n> Your turn.\r\n\r\nbid 5\r\n");
        assert_eq!(body_of(&body), ["bid 5"], "{a}");
    }
    let blocks = [
        "Date: Mon, 3 Jun 2024 10:12:00 +0000\r\nSubject: [rocket-3] Your turn\r\nFrom: sm@example.org\r\nTo: alice@hotmail.example.com",
        "От: Stationmaster <sm@example.org>\r\nОтправлено: 3 июня 2024 г. 10:12\r\nКому: alice@example.ru\r\nТема: [rocket-3] Your turn",
        "Von: Stationmaster <sm@example.org>\r\nGesendet: Montag, 3. Juni 2024 10:12\r\nAn: Alice\r\nBetreff: [rocket-3] Your turn",
        "Feladó: Stationmaster <sm@example.org>\r\nElküldve: 2024. június 3. 10:12\r\nCímzett: Alice\r\nTárgy: [rocket-3] Your turn",
    ];
    for b in blocks {
        let body = format!(
            "bid 5\r\nSent from Mail for Windows\r\n\r\n{b}\r\n\r\nYour turn.\r\nbid 99\r\n"
        );
        assert_eq!(body_of(&body), ["bid 5"], "{b}");
    }
}

#[test]
fn issue_11_client_lines_are_dropped_wherever_they_stand() {
    let body = "Sent from my iPhone\r\nbid 5\r\nVon meinem iPhone gesendet\r\npass\r\nEnvoyé de mon iPhone\r\n";
    assert_eq!(body_of(body), ["bid 5", "pass"]);
}

/// A forwarded message left out of the body is told apart (the daemon
/// says why a mail with nothing else had no orders): by its marker line,
/// or by a header block in a mail whose subject says it forwards; a
/// reply's quote is not a forward.
#[test]
fn a_forwarded_message_left_out_is_told() {
    let gmail = "sorry\r\n\r\n---------- Forwarded message ---------\r\nFrom: Bob <bob@example.org>\r\nDate: Sat, 21 Nov 2026\r\nSubject: Re: x\r\nTo: c@example.net\r\n\r\npass\r\n";
    let m = parse(&mail("", "Fwd: [rocket-3] x", gmail)).unwrap();
    assert_eq!((m.body, m.forwarded), (vec!["sorry".to_string()], true));
    let outlook = "________________________________\r\nFrom: Bob <bob@example.org>\r\nSent: Saturday, November 21, 2026 4:30 PM\r\nTo: Carol\r\nSubject: RE: [rocket-3] x\r\n\r\npass\r\n";
    let m = parse(&mail("", "FW: RE: [rocket-3] x", outlook)).unwrap();
    assert_eq!((m.body.len(), m.forwarded), (0, true));
    let m = parse(&mail("", "RE: [rocket-3] x", outlook)).unwrap();
    assert_eq!((m.body.len(), m.forwarded), (0, false));
    let reply = "pass\r\n\r\nOn Sat, 21 Nov 2026 at 16:00, Stationmaster wrote:\r\n> Fwd: ok\r\n";
    let m = parse(&mail("", "Re: Fwd: [rocket-3] x", reply)).unwrap();
    assert!(!m.forwarded);
}

/// HTML mail with named entities (as webmail editors write letters
/// outside ASCII: `&eacute;`, Hungarian's `&odblac;`, `&rsquo;`) is read as
/// the letters: table talk went to the other players as
/// `Sz&eacute;p l&eacute;p&eacute;s`, and `tell P&eacute;ter` named nobody.
#[test]
fn named_html_entities_are_read_as_their_letters() {
    let raw = "From: Alice <alice@example.org>\r\nTo: sm@example.org\r\nSubject: Re: [rocket-3] x\r\n\
               MIME-Version: 1.0\r\nContent-Type: text/html; charset=us-ascii\r\n\r\n\
               <div>say Sz&eacute;p l&eacute;p&eacute;s &ndash; j&oacute; j&aacute;t&eacute;kot&hellip;</div>\
               <div>tell P&eacute;ter &Ouml;d&odblac;n&rsquo;s move</div><div>pass&nbsp;</div>";
    let m = parse(raw.as_bytes()).unwrap();
    assert_eq!(
        m.body,
        [
            "say Szép lépés – jó játékot…",
            "tell Péter Ödőn’s move",
            "pass"
        ]
    );
}

/// A player's own line that holds an address or a year (`address add`,
/// `away`), right above an attribution that begins with the sender's name
/// (Gmail in Hungarian, Gmail for Android in German), stays an order: it
/// was taken in as the first line of the attribution and dropped unread.
#[test]
fn own_line_with_a_year_or_address_above_a_name_first_attribution_stays() {
    let sm = "Stationmaster <stationmaster+rocket-3.k7p2xq9m@example.org>";
    for attribution in [
        format!("{sm} ezt írta (időpont: 2024. jún. 3., H, 10:12):"),
        format!("{sm} schrieb am Mo., 3. Juni 2024, 10:12:"),
        format!("{sm} ezt írta (időpont:\r\n2024. jún. 3., H, 10:12):"),
        format!("{sm} schrieb am Mo., 3.\r\nJuni 2024, 10:12:"),
        "Stationmaster <\r\nstationmaster+rocket-3.k7p2xq9m@example.org> ezt írta (időpont:\r\n2024. jún. 3., H, 10:12):".to_string(),
    ] {
        for own in ["address add alice@example.net", "away 2026-06-01 to 2026-06-03"] {
            let body = format!("{own}\r\n{attribution}\r\n> q\r\n\r\nbid 2 F8\r\n");
            assert_eq!(body_of(&body), [own, "bid 2 F8"], "{own} / {attribution}");
        }
    }
}
