//! MIME in: one raw RFC 5322 message, as a transport hands it over, read into
//! an [`Incoming`]: who sent it, how it threads, which game and secret token
//! it names, whether it is an automatic message that must never be answered,
//! and the player's own lines of text.
//!
//! This module owns reading a mail, not judging it. It does no I/O, reads no
//! clock and knows nothing of players or games beyond the shape of a game id
//! and a token; authentication and order parsing come after it. [`parse`]
//! never panics, whatever the bytes: malformed MIME gives what can be
//! recovered, unknown charsets give lossy text, and only input without any
//! header is an error.
//!
//! # The body
//!
//! [`Incoming::body`] is taken from the first text/plain part that is not an
//! attachment and not blank (`format=flowed` is unwrapped), else from the
//! first HTML part, converted to text by a small converter here. The body is
//! what the player wrote, wherever they wrote it: above the quote
//! (top-posting), below it (bottom-posting) or between quoted pieces (inline
//! replies). Line by line:
//!
//! - quoted lines (`>` after optional spaces) are dropped;
//! - what opens a quoted message is dropped with it: an attribution line
//!   (`On … wrote:`, also wrapped over two or three lines, as Gmail wraps
//!   it inside the address or inside its Hungarian `ezt írta (időpont:
//!   …):`, a line of the player's own just above it never taken in; in
//!   English, German, French, Spanish, Italian, Portuguese, Dutch, the Scandinavian
//!   languages, Polish, Russian, Hungarian, Finnish, Czech, Japanese,
//!   Chinese and more, and the verbless ones of Yandex, Mail.ru and Gmail
//!   in Russian or Japanese: `26.06.2014, 14:41, "Name" <a@b.ru>:`), a
//!   header block without `>` (`From:` with `Sent:`, `Date:`, `To:` or
//!   `Subject:` in any order, or their kin: `Von:`/`Gesendet:`,
//!   `De :`/`Envoyé :`, `От:`/`Отправлено:`, `Od:`/`Wysłano:`,
//!   `Feladó:`/`Elküldve:`, `差出人:`/`送信日時:` …, as Outlook, Windows Mail,
//!   Hotmail and Notes write them), or a marker line (`-----Original
//!   Message-----`, `---------- Forwarded message ---------`, `Begin
//!   forwarded message:` and their kin). If `>` lines follow, they are the
//!   quote and the player's text may go on after them; if not, the quoted
//!   message runs without `>` to the end of the mail (Outlook-style
//!   top-posting) and reading stops;
//! - a signature separator (`-- `, or `--`) ends the body;
//! - lines mail clients add ("Sent from my iPhone", "Get Outlook for
//!   Android", "Von meinem iPhone gesendet", "Envoyé de mon iPhone",
//!   "Inviato da iPhone", "Enviado desde mi iPhone", "Sent from Yahoo Mail",
//!   "Sent from Mail for Windows", "Sent with Proton Mail" …) are dropped
//!   wherever they stand, and so are separator lines (`____`);
//! - trailing whitespace is trimmed and blank lines are dropped (orders are
//!   one a line);
//! - a first line `game GAME-ID [TOKEN]` is taken out: it names the game
//!   when the subject does not.
//!
//! In HTML, the quote markup of common clients is read as quote (its lines
//! get a `>`): `<blockquote>` (Apple Mail's `type="cite"` among them),
//! Gmail's `gmail_attr` (its `gmail_quote` container may hold the player's
//! inline answers, and is read), Thunderbird's `moz-cite-prefix`, Yahoo's
//! `yahoo_quoted`, Proton's `protonmail_quote`, Spark's
//! `messageReplySection`; after Outlook's reply header (`appendonsend`,
//! `divRplyFwdMsg`, `OutlookMessageHeader`) the rest of the mail is quote;
//! signature blocks (`gmail_signature`, `moz-signature`,
//! `protonmail_signature_block`) are dropped. A header block after an
//! `<hr>` (old Hotmail, Windows Mail) is found by the text rules above.
//!
//! Telling greetings and sign-offs (`Hi all,`, `Thanks,`, `Alex`) from
//! orders is not done here: it needs the game's grammar, see
//! [`engine::chatter`].
//!
//! At most [`MAX_BODY_LINES`] lines and [`MAX_BODY_CHARS`] characters are
//! kept, whole lines only; [`Incoming::truncated`] tells when more was cut.

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use mail_parser::{HeaderValue, Message, MessageParser, MessagePart, MimeHeaders, PartType};

mod quotes;

/// The most body lines kept; more sets [`Incoming::truncated`].
pub const MAX_BODY_LINES: usize = 200;

/// The most body characters kept (lines joined by one newline each); more
/// sets [`Incoming::truncated`]. Lines are kept whole: a line that would
/// cross the limit is dropped with the rest, so an order is never cut short.
pub const MAX_BODY_CHARS: usize = 20_000;

/// One inbound message, read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Incoming {
    /// Its Message-ID, without angle brackets.
    pub message_id: Option<String>,
    /// The first Message-ID of In-Reply-To, without angle brackets.
    pub in_reply_to: Option<String>,
    /// The Message-IDs of References, oldest first, without angle brackets.
    pub references: Vec<String>,
    /// The Date header, if it is a valid date.
    pub date: Option<DateTime<Utc>>,
    /// The sender's address (the first From address), lowercased.
    pub from: Option<String>,
    /// The sender's display name, if any.
    pub from_name: Option<String>,
    /// The first Reply-To address, lowercased.
    pub reply_to: Option<String>,
    /// The addresses of To and Cc, lowercased, in order, without repeats.
    pub to: Vec<String>,
    /// The subject, decoded and trimmed; empty if there is none.
    pub subject: String,
    /// The game id (`[a-z0-9]+-[0-9]+`, lowercased): from a subject tag
    /// `[GAME-ID]` or `[GAME-ID TOKEN]`, else from a first body line
    /// `game GAME-ID`, else from a plus-address recipient
    /// `LOCAL+GAME-ID.TOKEN@domain`.
    pub game: Option<String>,
    /// The secret token (`[a-z0-9]{6,32}`, lowercased): from the subject tag
    /// or the `game` line, else from a plus-address recipient (To, Cc, or
    /// the delivery headers `Delivered-To`/`X-Original-To`) of the same game.
    pub token: Option<String>,
    /// The code of a subject tag `[code CODE]` (`[a-z0-9]{6,32}`,
    /// lowercased): the server's one mail to an address it does not know
    /// yet carries it, and a reply with it shows the mail reached it.
    pub code: Option<String>,
    /// The player's own lines of text, wherever they wrote them: quotes with
    /// their attributions and header blocks, forwarded blocks, signatures,
    /// client lines ("Sent from my iPhone") and blank lines taken out,
    /// trailing whitespace trimmed.
    pub body: Vec<String>,
    /// Why this message must never be answered (an auto-reply, a bounce, a
    /// list or bulk mail), or None for a message from a person.
    pub auto_reply: Option<String>,
    /// How many attachment parts the message has (their content is ignored).
    pub attachments: usize,
    /// True if a forwarded message was left out of the body: a marker
    /// line (`---------- Forwarded message ---------`, `Begin forwarded
    /// message:` …), or a header block without `>` in a mail whose
    /// subject says it forwards (`Fwd:`, `Fw:`, `WG:`, `TR:`, `RV:`,
    /// `Doorst:`, `VS:`, `PD:`, `Továbbítás:` …). Its lines, whoever wrote
    /// them, are never read as the player's.
    pub forwarded: bool,
    /// True if the body was longer than [`MAX_BODY_LINES`] lines or
    /// [`MAX_BODY_CHARS`] characters and only its start was kept.
    pub truncated: bool,
    /// The results of every `Authentication-Results` header (RFC 8601),
    /// as written: which server checked what, and what came of it. Anyone
    /// can write such a header; only those of the operator's own server
    /// mean anything (see `[inbound] trust_authentication_results`).
    pub authentication_results: Vec<AuthResult>,
}

/// One method's result in an `Authentication-Results` header:
/// `mx.example.org; spf=fail smtp.mailfrom=…; dkim=pass …`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthResult {
    /// The server that wrote it (the header's authserv-id), lowercased.
    pub server: String,
    /// The method: `spf`, `dkim`, `dmarc`, … lowercased.
    pub method: String,
    /// The result: `pass`, `fail`, `softfail`, `none`, … lowercased.
    pub result: String,
}

/// Removes RFC 5322 comments (`(…)`, nested) from a header value.
fn without_comments(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut depth = 0usize;
    let mut quoted = false;
    for c in value.chars() {
        match c {
            '"' if depth == 0 => {
                quoted = !quoted;
                out.push(c);
            }
            '(' if !quoted => depth += 1,
            ')' if !quoted && depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The results of one `Authentication-Results` header value.
pub fn auth_results(value: &str) -> Vec<AuthResult> {
    let value = without_comments(value);
    let mut parts = value.split(';');
    let server = parts
        .next()
        .and_then(|p| p.split_whitespace().next())
        .unwrap_or_default()
        .to_ascii_lowercase();
    parts
        .filter_map(|p| {
            let (method, rest) = p.trim().split_once('=')?;
            let method = method.trim().split('/').next()?.to_ascii_lowercase();
            let result = rest.split_whitespace().next()?.to_ascii_lowercase();
            Some(AuthResult {
                server: server.clone(),
                method,
                result,
            })
        })
        .collect()
}

/// A message that cannot be read at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IngestError {
    /// Nothing but whitespace.
    #[error("empty message")]
    Empty,
    /// Not a single header: this is not a mail message.
    #[error("not a mail message: no header found")]
    NoHeaders,
    /// The MIME parser failed on this input (a bug in it, caught).
    #[error("the message could not be parsed")]
    Unparseable,
}

/// Reads one raw RFC 5322 message. Never panics; only input without any
/// header is an error, anything else gives whatever can be recovered.
pub fn parse(raw: &[u8]) -> Result<Incoming, IngestError> {
    if raw.iter().all(u8::is_ascii_whitespace) {
        return Err(IngestError::Empty);
    }
    // mail-parser promises not to panic; a poison message must not stop the
    // daemon if it ever does (the message would come back at every poll).
    std::panic::catch_unwind(|| parse_message(raw)).unwrap_or(Err(IngestError::Unparseable))
}

fn parse_message(raw: &[u8]) -> Result<Incoming, IngestError> {
    let message = MessageParser::default()
        .parse(raw)
        .ok_or(IngestError::NoHeaders)?;
    if message.parts.is_empty() || message.parts[0].headers.is_empty() {
        return Err(IngestError::NoHeaders);
    }

    let from_addr = message.from().and_then(|a| a.iter().next());
    // A From that is no mail address (a header run into the next by a
    // broken mail program: `bob@exampnt-Type: multipart/mixed; …`) is no
    // sender: nobody to answer or to know the mail by.
    let from = from_addr
        .and_then(|a| address(a.address.as_deref()))
        .filter(|a| crate::compose::check_address(a).is_ok());
    let from_name = from_addr
        .and_then(|a| a.name.as_deref())
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty());
    let reply_to = message
        .reply_to()
        .and_then(|a| a.iter().find_map(|a| address(a.address.as_deref())));
    let mut to: Vec<String> = Vec::new();
    for addr in message
        .all_to()
        .chain(message.all_cc())
        .flat_map(|a| a.iter())
    {
        if let Some(a) = address(addr.address.as_deref())
            && !to.contains(&a)
        {
            to.push(a);
        }
    }
    let subject = message.subject().unwrap_or("").trim().to_string();

    let (text, body_part) = body_text(&message);
    let own = clean_lines(&text);
    let forwarded = own.forwarded || (own.cut && is_forward_subject(&subject));
    let mut lines = own.lines;
    let body_tag = match lines.first().and_then(|l| game_line(l)) {
        Some(tag) => {
            lines.remove(0);
            Some(tag)
        }
        None => None,
    };
    let (body, truncated) = truncate(lines);

    let code = code_tag(&subject);
    let (mut game, mut token) = match subject_tag(&subject).or(body_tag) {
        Some((g, t)) => (Some(g), t),
        None => (None, None),
    };
    if token.is_none() {
        let delivered = ["Delivered-To", "X-Original-To"]
            .iter()
            .filter_map(|name| raw_header(&message, name))
            .filter_map(|v| address(Some(v.trim_matches(|c| c == '<' || c == '>'))));
        let plus = to
            .iter()
            .cloned()
            .chain(delivered)
            .filter_map(|a| plus_tag(&a))
            .find(|(g, _)| game.as_ref().is_none_or(|game| game == g));
        if let Some((g, t)) = plus {
            game = Some(g);
            token = Some(t);
        }
    }

    let attachments = message
        .attachments
        .iter()
        .filter(|&&id| Some(id) != body_part)
        .count();

    Ok(Incoming {
        message_id: message.message_id().and_then(clean_id),
        in_reply_to: ids(message.in_reply_to()).into_iter().next(),
        references: ids(message.references()),
        date: message
            .date()
            .filter(|d| d.is_valid())
            .and_then(|d| DateTime::from_timestamp(d.to_timestamp(), 0)),
        auto_reply: auto_reply(&message, from.as_deref(), &subject),
        from,
        from_name,
        reply_to,
        to,
        subject,
        game,
        token,
        code,
        body,
        attachments,
        forwarded,
        truncated,
        authentication_results: raw_headers(&message, "Authentication-Results")
            .iter()
            .flat_map(|v| auth_results(v))
            .collect(),
    })
}

// ---------------------------------------------------------------- headers

/// An address, trimmed and lowercased; None if empty.
fn address(a: Option<&str>) -> Option<String> {
    let a = a?.trim();
    (!a.is_empty()).then(|| a.to_lowercase())
}

/// A Message-ID without angle brackets; None if empty.
fn clean_id(id: &str) -> Option<String> {
    let id = id
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim();
    // A Message-ID that would read back as another source of a log entry
    // (`deadline`, `command line`, `moderator …`: engine::Actor) is none.
    let other_actor = !matches!(engine::Actor::from(id.to_string()), engine::Actor::Mail(_));
    (!id.is_empty() && !other_actor).then(|| id.to_string())
}

/// The Message-IDs of a parsed In-Reply-To or References header.
fn ids(value: &HeaderValue<'_>) -> Vec<String> {
    match value {
        HeaderValue::Text(t) => clean_id(t).into_iter().collect(),
        HeaderValue::TextList(list) => list.iter().filter_map(|t| clean_id(t)).collect(),
        _ => Vec::new(),
    }
}

/// The first (topmost: for trace fields such as Return-Path, the newest)
/// header named `name` (any case), unfolded and trimmed, as written (lossy
/// UTF-8).
fn raw_header(message: &Message<'_>, name: &str) -> Option<String> {
    raw_headers(message, name).into_iter().next()
}

/// Every header named `name` (any case), topmost first, each unfolded and
/// trimmed, as written (lossy UTF-8).
fn raw_headers(message: &Message<'_>, name: &str) -> Vec<String> {
    let Some(part) = message.parts.first() else {
        return Vec::new();
    };
    part.headers
        .iter()
        .filter(|h| h.name.as_str().eq_ignore_ascii_case(name))
        .map(|header| {
            let bytes = message
                .raw_message
                .get(header.offset_start as usize..header.offset_end as usize)
                .unwrap_or_default();
            String::from_utf8_lossy(bytes)
                .split(['\r', '\n'])
                .collect::<Vec<_>>()
                .join("")
                .trim()
                .to_string()
        })
        .collect()
}

/// The first word of a header value, lowercased (`auto-replied (vacation)`
/// gives `auto-replied`).
fn first_word(value: &str) -> String {
    value
        .split(|c: char| c.is_whitespace() || c == ';' || c == '(' || c == ',')
        .find(|w| !w.is_empty())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Local parts of senders that are machines, never people.
const MACHINE_SENDERS: &[&str] = &[
    "mailer-daemon",
    "postmaster",
    "noreply",
    "no-reply",
    "no_reply",
    "donotreply",
    "do-not-reply",
    "do_not_reply",
];

/// Subject starts (compared case-insensitively) of automatic messages.
const AUTO_SUBJECTS: &[&str] = &[
    "auto:",
    "automatic reply",
    "out of office",
    "autoreply",
    "auto-reply",
    "auto reply",
    "vacation",
    "undeliverable:",
    "undelivered mail",
    "delivery status notification",
    "mail delivery failed",
    "returned mail:",
    "failure notice",
    "automatische antwort",
    "abwesenheitsnotiz",
    "réponse automatique",
    "risposta automatica",
    "respuesta automática",
    "resposta automática",
    "automatisch antwoord",
    "autosvar",
    "odpowiedź automatyczna",
    "自動応答",
    "自動返信",
];

fn auto_reply(message: &Message<'_>, from: Option<&str>, subject: &str) -> Option<String> {
    if let Some(v) = raw_header(message, "Auto-Submitted") {
        let word = first_word(&v);
        if word != "no" {
            return Some(format!("Auto-Submitted: {v}"));
        }
    }
    if let Some(v) = raw_header(message, "Precedence")
        && matches!(
            first_word(&v).as_str(),
            "bulk" | "junk" | "list" | "auto_reply"
        )
    {
        return Some(format!("Precedence: {v}"));
    }
    for name in ["X-Autoreply", "X-Autorespond"] {
        if let Some(v) = raw_header(message, name)
            && !v.eq_ignore_ascii_case("no")
        {
            return Some(format!("{name}: {v}"));
        }
    }
    if let Some(v) = raw_header(message, "X-Auto-Response-Suppress") {
        let lower = v.to_ascii_lowercase();
        if lower
            .split(|c: char| c == ',' || c.is_whitespace())
            .any(|w| w == "all" || w == "autoreply")
        {
            return Some(format!("X-Auto-Response-Suppress: {v}"));
        }
    }
    for name in ["List-Id", "List-Unsubscribe"] {
        if raw_header(message, name).is_some() {
            return Some(format!("mailing list ({name})"));
        }
    }
    let return_path = raw_header(message, "Return-Path");
    if let Some(rp) = &return_path
        && rp
            .trim_matches(|c: char| c == '<' || c == '>' || c.is_whitespace())
            .is_empty()
    {
        return Some("null Return-Path (a bounce)".to_string());
    }
    let return_path = return_path.map(|rp| {
        rp.trim_matches(|c: char| c == '<' || c == '>')
            .to_lowercase()
    });
    for sender in from.into_iter().chain(return_path.as_deref()) {
        let local = sender.rsplit_once('@').map_or(sender, |(l, _)| l);
        let local = local
            .split('+')
            .next()
            .unwrap_or(local)
            .to_ascii_lowercase();
        if MACHINE_SENDERS.contains(&local.as_str()) {
            return Some(format!("sent by {sender}"));
        }
    }
    let lower = subject.to_lowercase();
    if let Some(start) = AUTO_SUBJECTS.iter().find(|s| lower.starts_with(*s)) {
        return Some(format!("automatic subject ({start})"));
    }
    if message.content_type().is_some_and(|ct| {
        ct.c_type.eq_ignore_ascii_case("multipart")
            && ct
                .c_subtype
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case("report"))
    }) {
        return Some("delivery or read report (multipart/report)".to_string());
    }
    None
}

// ------------------------------------------------------------ game, token

/// True for a game id `[a-z0-9]+-[0-9]+` (any case).
fn is_game_id(s: &str) -> bool {
    let Some((name, number)) = s.split_once('-') else {
        return false;
    };
    s.len() <= 64
        && !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric())
        && !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
}

/// True for a token `[a-z0-9]{6,32}` (any case).
fn is_token(s: &str) -> bool {
    (6..=32).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// `GAME-ID` or `GAME-ID TOKEN`, lowercased.
fn parse_tag(inner: &str) -> Option<(String, Option<String>)> {
    let mut words = inner.split_whitespace();
    let game = words.next().filter(|g| is_game_id(g))?.to_ascii_lowercase();
    let token = match words.next() {
        Some(t) if is_token(t) => Some(t.to_ascii_lowercase()),
        Some(_) => return None,
        None => None,
    };
    if words.next().is_some() {
        return None;
    }
    Some((game, token))
}

/// The first subject tag `[GAME-ID]` or `[GAME-ID TOKEN]`; other bracketed
/// tags (`[SPAM]`) are passed over.
fn subject_tag(subject: &str) -> Option<(String, Option<String>)> {
    let mut open = None;
    for (i, c) in subject.char_indices() {
        match c {
            '[' => open = Some(i + 1),
            ']' => {
                if let Some(start) = open.take()
                    && let Some(tag) = subject.get(start..i).and_then(parse_tag)
                {
                    return Some(tag);
                }
            }
            _ => {}
        }
    }
    None
}

/// The code of the first subject tag `[code CODE]`, lowercased.
fn code_tag(subject: &str) -> Option<String> {
    subject.split('[').skip(1).find_map(|part| {
        let (inner, _) = part.split_once(']')?;
        match inner.split_whitespace().collect::<Vec<_>>().as_slice() {
            [word, code] if word.eq_ignore_ascii_case("code") && is_token(code) => {
                Some(code.to_ascii_lowercase())
            }
            _ => None,
        }
    })
}

/// A body line `game GAME-ID` or `game GAME-ID TOKEN` (any case, an optional
/// colon after `game`).
fn game_line(line: &str) -> Option<(String, Option<String>)> {
    let t = line.trim();
    if !t.get(..4)?.eq_ignore_ascii_case("game") {
        return None;
    }
    let rest = t.get(4..)?;
    let rest = match rest.strip_prefix(':') {
        Some(r) => r,
        None if rest.starts_with(char::is_whitespace) => rest,
        None => return None,
    };
    parse_tag(rest)
}

/// `LOCAL+GAME-ID.TOKEN@domain` gives the game and the token.
fn plus_tag(address: &str) -> Option<(String, String)> {
    let (local, _) = address.rsplit_once('@')?;
    let (_, tag) = local.split_once('+')?;
    let (game, token) = tag.split_once('.')?;
    (is_game_id(game) && is_token(token))
        .then(|| (game.to_ascii_lowercase(), token.to_ascii_lowercase()))
}

// ------------------------------------------------------------------ body

/// True if a part says it is an attachment (`Content-Disposition:
/// attachment`). mail-parser already keeps other named parts out of the text
/// and HTML bodies of a well-formed message.
fn is_attachment(part: &MessagePart<'_>) -> bool {
    part.content_disposition()
        .is_some_and(|d| d.is_attachment())
}

/// True if a part is text/plain (or has no content type at all).
fn is_plain(part: &MessagePart<'_>) -> bool {
    part.content_type().is_none_or(|ct| {
        ct.c_type.eq_ignore_ascii_case("text")
            && ct
                .c_subtype
                .as_deref()
                .is_none_or(|s| s.eq_ignore_ascii_case("plain"))
    })
}

/// The text of a text/plain part, with `format=flowed` unwrapped.
fn plain_text(part: &MessagePart<'_>, text: &str) -> String {
    let ct = part.content_type();
    let flowed = ct
        .and_then(|ct| ct.attribute("format"))
        .is_some_and(|f| f.eq_ignore_ascii_case("flowed"));
    if flowed {
        let delsp = ct
            .and_then(|ct| ct.attribute("delsp"))
            .is_some_and(|d| d.eq_ignore_ascii_case("yes"));
        crate::flowed::unflow(text, delsp)
    } else {
        text.to_string()
    }
}

/// The text the player wrote, and the id of the part it came from: the
/// first text/plain part that is not an attachment, else the first HTML
/// part, else (malformed MIME) any text part not marked as an attachment.
fn body_text(message: &Message<'_>) -> (String, Option<u32>) {
    let part = |id: &u32| message.parts.get(*id as usize).map(|p| (*id, p));
    for (id, p) in message.text_body.iter().filter_map(part) {
        if let PartType::Text(t) = &p.body
            && is_plain(p)
            && !is_attachment(p)
            && !t.trim().is_empty()
        {
            return (plain_text(p, t), Some(id));
        }
    }
    for (id, p) in message.html_body.iter().filter_map(part) {
        if let PartType::Html(h) = &p.body
            && !is_attachment(p)
        {
            let text = html_to_text(h);
            if !text.trim().is_empty() {
                return (text, Some(id));
            }
        }
    }
    for (id, p) in message.parts.iter().enumerate() {
        if is_attachment(p) || p.attachment_name().is_some() {
            continue;
        }
        let text = match &p.body {
            PartType::Text(t) => plain_text(p, t),
            PartType::Html(h) => html_to_text(h),
            _ => continue,
        };
        if !text.trim().is_empty() {
            return (text, u32::try_from(id).ok());
        }
    }
    (String::new(), None)
}

/// Characters that show nothing and only get in the way of orders.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}'
    )
}

/// Subject prefixes of forwarded mail, lowercase, with their colon.
const FORWARD_SUBJECTS: &[&str] = &[
    "fwd:",
    "fw:",
    "wg:",
    "tr:",
    "rv:",
    "enc:",
    "doorst:",
    "vs:",
    "vb:",
    "pd:",
    "přeposlat:",
    "továbbítás:",
    "továbbítva:",
    "転送:",
];

/// True if `subject` says its mail forwards another (`Fwd: Re: …`, `WG: AW:
/// …`), after any `Re:` and its kin.
fn is_forward_subject(subject: &str) -> bool {
    let lower = subject.to_lowercase();
    lower
        .split_whitespace()
        .take(4)
        .any(|w| FORWARD_SUBJECTS.contains(&w))
}

/// The player's own lines: see the module documentation.
fn clean_lines(text: &str) -> quotes::Own {
    let text: String = text.chars().filter(|&c| !is_invisible(c)).collect();
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = text.split('\n').collect();
    // Enough to know the body is too long (one more for a `game` line).
    quotes::own_lines(&lines, |kept| kept > MAX_BODY_LINES + 1)
}

/// Keeps at most [`MAX_BODY_LINES`] lines and [`MAX_BODY_CHARS`] characters,
/// whole lines only; true if anything was cut.
fn truncate(lines: Vec<String>) -> (Vec<String>, bool) {
    let mut kept = Vec::with_capacity(lines.len().min(MAX_BODY_LINES));
    let mut chars = 0;
    for line in lines {
        let n = line.chars().count() + usize::from(!kept.is_empty());
        if kept.len() == MAX_BODY_LINES || chars + n > MAX_BODY_CHARS {
            return (kept, true);
        }
        chars += n;
        kept.push(line);
    }
    (kept, false)
}

// ------------------------------------------------------------------ HTML

/// What an open HTML element makes of the text inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Nothing special.
    Plain,
    /// Quoted: its lines are marked with `>`.
    Quote,
    /// A signature block: its text is left out.
    Hidden,
    /// Preformatted: line breaks kept.
    Pre,
}

/// The most open elements tracked; deeper ones are read as plain text.
const MAX_OPEN: usize = 256;

/// Builds text from HTML: whitespace collapsed, lines broken at block
/// elements, lines inside quote markup marked with `>` (so that they are
/// read as quotes), signature blocks left out.
#[derive(Default)]
struct TextBuilder {
    out: String,
    /// Open elements, outermost first, with what each does.
    open: Vec<(String, Role)>,
    quote_depth: usize,
    hidden_depth: usize,
    pre_depth: usize,
    /// Everything from here on is quoted (Outlook's reply header).
    rest_quoted: bool,
    mid_line: bool,
}

impl TextBuilder {
    fn text(&mut self, raw: &str) {
        if self.hidden_depth > 0 {
            return;
        }
        for c in decode_entities(raw).chars() {
            if c == '\n' && self.pre_depth > 0 {
                self.newline();
                continue;
            }
            if c.is_whitespace() {
                if self.mid_line && !self.out.ends_with(' ') {
                    self.out.push(' ');
                }
                continue;
            }
            if !self.mid_line {
                // One `>` whatever the depth: quoted lines are dropped anyway,
                // and nested quotes must not grow the text quadratically.
                if self.quote_depth > 0 || self.rest_quoted {
                    self.out.push_str("> ");
                }
                self.mid_line = true;
            }
            self.out.push(c);
        }
    }

    fn newline(&mut self) {
        self.out.push('\n');
        self.mid_line = false;
    }

    fn count(&mut self, role: Role, by: isize) {
        let n = match role {
            Role::Quote => &mut self.quote_depth,
            Role::Hidden => &mut self.hidden_depth,
            Role::Pre => &mut self.pre_depth,
            Role::Plain => return,
        };
        *n = n.saturating_add_signed(by);
    }

    fn open(&mut self, name: &str, role: Role) {
        if self.open.len() < MAX_OPEN {
            self.open.push((name.to_string(), role));
            self.count(role, 1);
        }
    }

    /// Closes the innermost open `name` and whatever is still open inside
    /// it; a closing tag that matches nothing is ignored.
    fn close(&mut self, name: &str) {
        if let Some(at) = self.open.iter().rposition(|(n, _)| n == name) {
            for (_, role) in self.open.split_off(at) {
                self.count(role, -1);
            }
        }
    }
}

/// Elements whose start and end break the line.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "li",
    "tr",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "table",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "center",
    "section",
    "article",
    "header",
    "footer",
    "address",
    "blockquote",
    "pre",
];

/// Elements that are never closed.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Classes and ids (lowercase, matched as a part of the value) of the
/// containers clients put a quoted message in, with its attribution.
const QUOTE_MARKUP: &[&str] = &[
    "gmail_attr",
    "gmail_quote",
    "moz-cite-prefix",
    "yahoo_quoted",
    "protonmail_quote",
    "zmail_extra",
    "replysection",
];

/// Classes and ids of signature blocks.
const SIGNATURE_MARKUP: &[&str] = &[
    "gmail_signature",
    "moz-signature",
    "protonmail_signature_block",
    "ms-outlook-mobile-signature",
    "messagesignaturesection",
];

/// Classes and ids after which the rest of the mail is the quoted message
/// (Outlook, on the desktop, the web and phones).
const REST_QUOTED_MARKUP: &[&str] = &["divrplyfwdmsg", "appendonsend", "outlookmessageheader"];

/// The value of attribute `name` in the text of a tag, lowercase.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(p) = lower[from..].find(name).map(|p| from + p) {
        from = p + name.len();
        let before = lower[..p].chars().next_back();
        if !before.is_some_and(char::is_whitespace) {
            continue;
        }
        let rest = lower[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        let value = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => rest[1..].split(q).next().unwrap_or(""),
            _ => rest
                .split(|c: char| c.is_whitespace() || c == '>')
                .next()
                .unwrap_or(""),
        };
        return Some(value.to_string());
    }
    None
}

/// What an opening tag `name` (its text `tag`) does to the text inside;
/// the second value is true if the rest of the mail is quoted from here.
fn role_of(name: &str, tag: &str) -> (Role, bool) {
    let marks = [
        attribute(tag, "class"),
        attribute(tag, "id"),
        attribute(tag, "name"),
    ];
    let has = |list: &[&str]| {
        marks
            .iter()
            .flatten()
            .any(|v| list.iter().any(|m| v.contains(m)))
    };
    // Gmail's container holds the player's inline answers between its
    // blockquotes: only the blockquotes and the attribution are quotes.
    let gmail_container = name != "blockquote"
        && marks
            .iter()
            .flatten()
            .any(|v| v.split_whitespace().any(|c| c == "gmail_quote"));
    if has(REST_QUOTED_MARKUP) {
        (Role::Plain, true)
    } else if has(SIGNATURE_MARKUP) {
        (Role::Hidden, false)
    } else if name == "blockquote" || (has(QUOTE_MARKUP) && !gmail_container) {
        (Role::Quote, false)
    } else if name == "pre" {
        (Role::Pre, false)
    } else {
        (Role::Plain, false)
    }
}

/// Finds `needle` (ASCII, lowercase) in `haystack` from `from` on, ignoring
/// ASCII case; gives its byte position.
fn find_ci(haystack: &str, from: usize, needle: &str) -> Option<usize> {
    let hay = haystack.as_bytes().get(from..)?;
    let needle = needle.as_bytes();
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|p| from + p)
}

/// HTML to plain text: `<script>`, `<style>` and `<title>` content and
/// comments dropped; `<br>`, `<hr>` and block elements (`<p>`, `<div>`,
/// `<li>`, `<tr>`, …) break lines; other tags dropped; entities decoded;
/// runs of spaces collapsed; the content of `<blockquote>` and of the quote
/// containers of [`QUOTE_MARKUP`] quoted with `>`, and everything after
/// Outlook's reply header ([`REST_QUOTED_MARKUP`]); signature blocks
/// ([`SIGNATURE_MARKUP`]) dropped.
fn html_to_text(html: &str) -> String {
    let mut b = TextBuilder::default();
    let mut i = 0;
    while i < html.len() {
        let Some(lt) = html[i..].find('<').map(|p| i + p) else {
            b.text(&html[i..]);
            break;
        };
        let next = html.as_bytes().get(lt + 1).copied().unwrap_or(b' ');
        if !(next.is_ascii_alphabetic() || matches!(next, b'/' | b'!' | b'?')) {
            // A lone `<` in text.
            b.text(&html[i..=lt]);
            i = lt + 1;
            continue;
        }
        b.text(&html[i..lt]);
        if html[lt..].starts_with("<!--") {
            i = html[lt + 4..]
                .find("-->")
                .map_or(html.len(), |p| lt + 4 + p + 3);
            continue;
        }
        let Some(gt) = html[lt..].find('>').map(|p| lt + p) else {
            // No tag is ever closed again: the rest is text.
            b.text(&html[lt..]);
            break;
        };
        let tag = &html[lt + 1..gt];
        i = gt + 1;
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if matches!(name.as_str(), "script" | "style" | "title") && !closing && !tag.ends_with('/')
        {
            i = match find_ci(html, i, &format!("</{name}")) {
                Some(end) => html[end..].find('>').map_or(html.len(), |p| end + p + 1),
                None => html.len(),
            };
            continue;
        }
        if matches!(name.as_str(), "br" | "hr") || BLOCKS.contains(&name.as_str()) {
            b.newline();
        }
        if name.is_empty() || tag.starts_with('!') || tag.starts_with('?') {
            continue;
        }
        if closing {
            b.close(&name);
        } else {
            let (role, rest) = role_of(&name, tag);
            if rest {
                b.newline();
                b.rest_quoted = true;
            }
            if !VOID.contains(&name.as_str()) && !tag.ends_with('/') {
                b.open(&name, role);
            }
        }
        if matches!(name.as_str(), "td" | "th") && closing {
            b.text(" ");
        }
    }
    b.out
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Decodes `&amp; &lt; &gt; &quot; &apos;`, the named entities of Latin-1
/// (`&nbsp;`, `&eacute;` …) and some more ([`OTHER_ENTITIES`]: `&odblac;`,
/// `&rsquo;`, `&ndash;` …), and numeric entities (`&#NNN;`, `&#xHH;`);
/// anything else is left as written.
fn decode_entities(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let decoded = after
            .bytes()
            .take(32)
            .position(|b| b == b';')
            .and_then(|semi| Some((entity(&after[..semi])?, semi)));
        match decoded {
            Some((c, semi)) => {
                out.push(c);
                rest = &after[semi + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The named entities of Latin-1, `&nbsp;` (U+00A0) to `&yuml;` (U+00FF),
/// in the order of their characters.
const LATIN1_ENTITIES: [&str; 96] = [
    "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf",
    "laquo", "not", "shy", "reg", "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro",
    "para", "middot", "cedil", "sup1", "ordm", "raquo", "frac14", "frac12", "frac34", "iquest",
    "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil", "Egrave", "Eacute",
    "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute",
    "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute",
    "THORN", "szlig", "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig", "ccedil",
    "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml", "eth", "ntilde",
    "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc",
    "uuml", "yacute", "thorn", "yuml",
];

/// Other named entities mail programs and webmail editors write: the
/// letters of Central European languages (Hungarian's `&odblac;` for ő,
/// Czech's, Polish's), typographic quotes and dashes, and a few signs.
const OTHER_ENTITIES: &[(&str, char)] = &[
    ("odblac", 'ő'),
    ("Odblac", 'Ő'),
    ("udblac", 'ű'),
    ("Udblac", 'Ű'),
    ("scaron", 'š'),
    ("Scaron", 'Š'),
    ("ccaron", 'č'),
    ("Ccaron", 'Č'),
    ("rcaron", 'ř'),
    ("Rcaron", 'Ř'),
    ("zcaron", 'ž'),
    ("Zcaron", 'Ž'),
    ("ecaron", 'ě'),
    ("Ecaron", 'Ě'),
    ("lstrok", 'ł'),
    ("Lstrok", 'Ł'),
    ("oelig", 'œ'),
    ("OElig", 'Œ'),
    ("ndash", '–'),
    ("mdash", '—'),
    ("lsquo", '‘'),
    ("rsquo", '’'),
    ("sbquo", '‚'),
    ("ldquo", '“'),
    ("rdquo", '”'),
    ("bdquo", '„'),
    ("hellip", '…'),
    ("bull", '•'),
    ("euro", '€'),
    ("trade", '™'),
    ("dagger", '†'),
    ("larr", '←'),
    ("rarr", '→'),
    ("ensp", '\u{2002}'),
    ("emsp", '\u{2003}'),
    ("thinsp", '\u{2009}'),
    ("zwnj", '\u{200C}'),
    ("zwj", '\u{200D}'),
];

/// One entity's character, from its name without `&` and `;`.
fn entity(name: &str) -> Option<char> {
    let number = |digits: &str, radix: u32| {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        let c = u32::from_str_radix(digits, radix)
            .ok()
            .and_then(char::from_u32)
            .filter(|&c| c != '\0')
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        Some(c)
    };
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ if !name.starts_with('#') => LATIN1_ENTITIES
            .iter()
            .position(|n| *n == name)
            .and_then(|i| char::from_u32(0xA0 + i as u32))
            .or_else(|| {
                OTHER_ENTITIES
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, c)| *c)
            }),
        _ => {
            let num = name.strip_prefix('#')?;
            match num.strip_prefix(['x', 'X']) {
                Some(hex) => number(hex, 16),
                None => number(num, 10),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_are_decoded() {
        assert_eq!(
            decode_entities(
                "a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#39; &#x41;&#66; &bogus; & x"
            ),
            "a & b <c> \"d\" 'e' AB &bogus; & x"
        );
        assert_eq!(decode_entities("&#99999999999;"), "\u{FFFD}");
        assert_eq!(decode_entities("&#;&#x;"), "&#;&#x;");
        assert_eq!(
            decode_entities(
                "Sz&eacute;p l&eacute;p&eacute;s &ndash; &Ouml;d&odblac;n&rsquo;s &yuml;&nbsp;&AElig;"
            ),
            "Szép lépés – Ödőn’s ÿ\u{a0}Æ"
        );
        assert_eq!(
            decode_entities("&Eacute &EACUTE; &eacutex;"),
            "&Eacute &EACUTE; &eacutex;"
        );
    }

    #[test]
    fn html_becomes_lines() {
        let html = "<html><head><style>p { color: red }</style><title>T</title></head>\
                    <body><div>build  A1&nbsp;&nbsp;B2</div><div>bid 5<br>pass</div>\
                    <p>one</p><p>two</p><ul><li>x</li><li>y</li></ul>\
                    <script>alert(1)</script><!-- hidden -->end 1 &lt; 2\
                    <blockquote><div>quoted</div></blockquote>after</body></html>";
        let text = html_to_text(html);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(
            lines,
            [
                "build A1 B2",
                "bid 5",
                "pass",
                "one",
                "two",
                "x",
                "y",
                "end 1 < 2",
                "> quoted",
                "after"
            ]
        );
    }

    #[test]
    fn html_quote_markup() {
        let lines = |html: &str| -> Vec<String> {
            html_to_text(html)
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect()
        };
        // Gmail: inline answers inside the container are the player's.
        let gmail = "<div>hi</div><div class=\"gmail_quote gmail_quote_container\">\
                     <div dir=\"ltr\" class=\"gmail_attr\">On Mon wrote:<br></div>\
                     <blockquote class=\"gmail_quote\"><div>a</div></blockquote>\
                     <div>pass</div><blockquote class=\"gmail_quote\">b<p>c</blockquote></div>\
                     <div class=\"gmail_signature\">Alice</div>";
        assert_eq!(
            lines(gmail),
            ["hi", "> On Mon wrote:", "> a", "pass", "> b", "> c"]
        );
        // Outlook: everything after its reply header.
        let outlook = "<div>bid 2</div><div id=\"appendonsend\"></div><hr>\
                       <div id=\"divRplyFwdMsg\"><b>From:</b> x</div><div>bid 9</div>";
        assert_eq!(lines(outlook), ["bid 2", "> From: x", "> bid 9"]);
        // Thunderbird and Yahoo containers; unclosed inner elements.
        let tb = "<p>veto<div class=\"moz-cite-prefix\">On x wrote:<br></div>\
                  <blockquote type=\"cite\"><p>q</blockquote><p>pass\
                  <div class=\"yahoo_quoted\"><div><p>y</div></div>end";
        assert_eq!(
            lines(tb),
            ["veto", "> On x wrote:", "> q", "pass", "> y", "end"]
        );
    }

    #[test]
    fn broken_html_is_still_text() {
        assert_eq!(html_to_text("a < b"), "a < b");
        assert_eq!(html_to_text("a <b"), "a <b");
        assert_eq!(html_to_text("a <script>never closed"), "a");
        assert_eq!(html_to_text("x<!-- never closed"), "x");
        assert_eq!(html_to_text("&"), "&");
    }

    #[test]
    fn tags_and_ids() {
        assert_eq!(
            subject_tag("Re: [SPAM] [rocket-3 k7p2xq9m] Your turn"),
            Some(("rocket-3".into(), Some("k7p2xq9m".into())))
        );
        assert_eq!(
            subject_tag("[[Rocket-12]]"),
            Some(("rocket-12".into(), None))
        );
        assert_eq!(subject_tag("[rocket-3 bad!]"), None);
        assert_eq!(subject_tag("[rocket-x]"), None);
        assert_eq!(subject_tag("[rocket-3 abc]"), None);
        assert_eq!(
            plus_tag("stationmaster+rocket-3.k7p2xq9m@example.org"),
            Some(("rocket-3".into(), "k7p2xq9m".into()))
        );
        assert_eq!(plus_tag("stationmaster+rocket-3@example.org"), None);
        assert_eq!(game_line("Game: rocket-7"), Some(("rocket-7".into(), None)));
        assert_eq!(game_line("gamer rocket-7"), None);
        assert_eq!(game_line("game"), None);
        assert_eq!(
            code_tag("Re: [SPAM] [code K7p2xq9m3a] Re: help"),
            Some("k7p2xq9m3a".into())
        );
        assert_eq!(code_tag("[code review] [code]"), Some("review".into()));
        assert_eq!(code_tag("[code ab] [rocket-1 k7p2xq9m]"), None);
    }

    #[test]
    fn body_cleaning() {
        let text = "bid 5   \n\n  > quoted\npass\nOn Mon, 3 Jun 2024 at 10:12, Stationmaster\n<sm@example.org> wrote:\n> old\n";
        assert_eq!(clean_lines(text).lines, ["bid 5", "pass"]);
        let text = "build A1\n\nSent from my iPhone\n\n________________________________\nFrom: Stationmaster\nSent: Monday\nbid 9\n";
        assert_eq!(clean_lines(text).lines, ["build A1"]);
        let text = "pass\n-- \nAlice\nbid 99\n";
        assert_eq!(clean_lines(text).lines, ["pass"]);
        let text = "pass\nLe lun. 3 juin 2024 à 10:12, Stationmaster <sm@example.org> a\u{a0}écrit\u{a0}:\nbid 9";
        assert_eq!(clean_lines(text).lines, ["pass"]);
    }

    #[test]
    fn truncation_keeps_whole_lines() {
        let lines: Vec<String> = (0..300).map(|i| format!("line {i}")).collect();
        let (kept, cut) = truncate(lines);
        assert!(cut);
        assert_eq!(kept.len(), MAX_BODY_LINES);
        let lines = vec!["x".repeat(15_000), "y".repeat(6_000)];
        let (kept, cut) = truncate(lines);
        assert!(cut);
        assert_eq!(kept, ["x".repeat(15_000)]);
    }
}
