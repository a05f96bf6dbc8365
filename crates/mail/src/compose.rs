//! MIME out: turns a [`Draft`] (recipient, subject, text, HTML, threading)
//! into a formatted message with lettre's builder, the text part flowed
//! ([`crate::flowed`]). We set the Message-ID
//! ourselves (lettre does not), and mark every mail `Auto-Submitted:
//! auto-replied` so that well-behaved responders never answer us back.

use std::time::SystemTime;

use chrono::{DateTime, Utc};
use lettre::message::header::{
    ContentTransferEncoding, ContentType, Header, HeaderName, HeaderValue,
};
use lettre::message::{Attachment, Body, Mailbox, MultiPart, SinglePart};
use lettre::{Address, Message};

use super::{OutMail, Shared};
use crate::config::MailConfig;

/// The longest line RFC 5322 allows, without its CRLF.
const MAX_LINE: usize = 998;

/// The content type of every text part: UTF-8, `format=flowed` with the
/// space that ends a flowed line kept as part of the text (`delsp=no`,
/// RFC 3676's default, said outright): see [`crate::flowed`].
const TEXT_FLOWED: &str = "text/plain; charset=utf-8; format=flowed; delsp=no";

/// A text part as it goes out: as it is (`7bit`, lines ending in CRLF)
/// when it is ASCII with no line longer than RFC 5322 allows, else
/// quoted-printable. lettre's own choice turns to quoted-printable past 76
/// characters a line, which every report's 98-column map passes: that
/// costs time, makes the mail larger (every `=` of the HTML becomes `=3D`)
/// and the raw mail unreadable.
fn body(text: &str) -> Body {
    let plain = text.is_ascii()
        && !text.contains(['\0', '\r'])
        && text.split('\n').all(|line| line.len() <= MAX_LINE);
    if !plain {
        // lettre would encode it both ways to keep the shorter; the share
        // of non-ASCII bytes tells which that is (a Linie 1 map is mostly
        // box-drawing characters, three bytes each, nine in
        // quoted-printable), at a fraction of the cost.
        let wide = text.bytes().filter(|b| !b.is_ascii()).count();
        let encoding = if wide * 6 > text.len() {
            ContentTransferEncoding::Base64
        } else {
            ContentTransferEncoding::QuotedPrintable
        };
        return Body::new_with_encoding(text.to_string(), encoding).unwrap_or_else(Body::new);
    }
    let mut out = Vec::with_capacity(text.len() + text.len() / 32 + 2);
    for line in text.split_inclusive('\n') {
        match line.strip_suffix('\n') {
            Some(l) => {
                out.extend_from_slice(l.as_bytes());
                out.extend_from_slice(b"\r\n");
            }
            None => out.extend_from_slice(line.as_bytes()),
        }
    }
    Body::dangerous_pre_encoded(out, ContentTransferEncoding::SevenBit)
}

/// HTML with every character beyond ASCII written as a character
/// reference (`£` as `&#163;`): the same page, but one that can go out as
/// it is (see [`body`]). (Not inside `<style>`, `<script>` or comments,
/// where references are not read; our templates put no such text there.)
fn ascii_html(html: &str) -> std::borrow::Cow<'_, str> {
    if html.is_ascii() {
        return html.into();
    }
    // A Linie 1 map has a thousand box-drawing characters: the ASCII
    // between them is copied a stretch at a time, the numbers written by
    // hand (`write!` was most of this function's time).
    let mut out = String::with_capacity(html.len() + html.len() / 2);
    let mut rest = html;
    while let Some(at) = rest.bytes().position(|b| !b.is_ascii()) {
        out.push_str(&rest[..at]);
        let mut chars = rest[at..].chars();
        let Some(c) = chars.next() else { break };
        let mut digits = [0u8; 7];
        let mut n = u32::from(c);
        let mut start = digits.len();
        loop {
            start -= 1;
            digits[start] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        out.push_str("&#");
        out.extend(digits[start..].iter().map(|&d| char::from(d)));
        out.push(';');
        rest = chars.as_str();
    }
    out.push_str(rest);
    out.into()
}

/// A mail to be composed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Draft {
    /// The recipient's name (may be empty).
    pub to_name: String,
    /// The recipient's address.
    pub to: String,
    /// The subject.
    pub subject: String,
    /// The text part, as lines: prose is wrapped when the mail is
    /// composed, lines marked [`crate::flowed::fixed`] (and maps, tables
    /// and quotes, [`crate::flowed::is_fixed`]) are sent as they are.
    pub text: String,
    /// The HTML part, if any.
    pub html: Option<String>,
    /// The Message-ID this answers (without angle brackets).
    pub in_reply_to: Option<String>,
    /// The thread so far (without angle brackets).
    pub references: Vec<String>,
    /// Where replies should go, if not to our address.
    pub reply_to: Option<String>,
    /// A picture the HTML part shows (`<img src="cid:…">`), attached inline
    /// beside it. Left out where the HTML does not refer to it.
    pub picture: Option<InlinePicture>,
    /// A file attached to the mail for the reader to open (the archive of
    /// a game that is over, as one HTML page).
    pub attachment: Option<FileAttachment>,
}

/// A file attached to a mail (`Content-Disposition: attachment`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileAttachment {
    /// Its file name.
    pub name: String,
    /// Its media type, e.g. `text/html; charset=utf-8`.
    pub content_type: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// An image attached inline to a mail's HTML part, which shows it by its
/// Content-ID (`cid:`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlinePicture {
    /// Its Content-ID, without angle brackets.
    pub cid: String,
    /// Its file name, for a mail program that offers to save it.
    pub name: String,
    /// The PNG file as a mail carries it (base64, in lines of 76), encoded
    /// once for the mails of one change, which share it: always
    /// [`base64_body`] of `png` (the outbox keeps only the PNG and makes
    /// this again when the mail goes).
    base64: std::sync::Arc<Vec<u8>>,
    /// The PNG file.
    png: std::sync::Arc<Vec<u8>>,
}

impl InlinePicture {
    /// The picture of `png`, a PNG file's bytes.
    pub fn new(cid: String, name: String, png: Vec<u8>) -> InlinePicture {
        let base64 = base64_body(&png);
        InlinePicture {
            cid,
            name,
            base64: std::sync::Arc::new(base64),
            png: std::sync::Arc::new(png),
        }
    }

    /// The PNG file as a mail carries it: base64, in lines of 76.
    pub fn base64(&self) -> &std::sync::Arc<Vec<u8>> {
        &self.base64
    }

    /// The PNG file.
    pub fn png(&self) -> &std::sync::Arc<Vec<u8>> {
        &self.png
    }
}

/// `bytes` as a mail's base64 body carries them (RFC 2045: the standard
/// alphabet, padded, in lines of 76 characters with CRLF between them and
/// none after the last), as the picture is carried. The outbox keeps a
/// waiting picture as its PNG and makes its body again with this when the
/// mail goes: the lines are cut here, so that a new version of a dependency
/// cannot make them differ from what the mail was composed with; the
/// characters are the base64 crate's standard engine (RFC 4648, fixed by
/// the standard).
pub fn base64_body(bytes: &[u8]) -> Vec<u8> {
    use base64::Engine as _;
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4 + bytes.len() / 57 * 2);
    // 57 bytes make a line of 76 characters.
    for (i, line) in bytes.chunks(57).enumerate() {
        if i > 0 {
            out.push_str("\r\n");
        }
        base64::engine::general_purpose::STANDARD.encode_string(line, &mut out);
    }
    out.into_bytes()
}

/// A mail that cannot be composed.
#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    /// An address does not parse.
    #[error("`{0}` is not a mail address")]
    Address(String),
    /// The builder refused.
    #[error("cannot build the mail: {0}")]
    Build(String),
}

/// Checks that `address` is a mail address a mail can be sent to: lettre
/// reads it, and its domain is a name, not a literal such as
/// `[127.0.0.1]` (which lettre reads, but no envelope can carry).
pub fn check_address(address: &str) -> Result<(), ComposeError> {
    let bad = || ComposeError::Address(address.to_string());
    let parsed = address.trim().parse::<Address>().map_err(|_| bad())?;
    let domain = parsed.domain();
    // A literal (`[127.0.0.1]`) or a bare IP number is no domain a mail is
    // meant for; a quoted local part (`"sm"@…`) hides what it names.
    if domain.is_empty()
        || domain.starts_with('[')
        || domain.chars().all(|c| c.is_ascii_digit() || c == '.')
        || parsed.user().contains('"')
    {
        return Err(bad());
    }
    lettre::address::Envelope::new(None, vec![parsed]).map_err(|_| bad())?;
    Ok(())
}

#[derive(Clone)]
struct AutoSubmitted;

impl Header for AutoSubmitted {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("Auto-Submitted")
    }

    fn parse(_: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(AutoSubmitted)
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "auto-replied".to_string())
    }
}

fn angle(id: &str) -> String {
    format!("<{}>", id.trim_matches(|c| c == '<' || c == '>'))
}

/// The domain of our address, for Message-IDs.
pub fn domain(config: &MailConfig) -> &str {
    config
        .address
        .rsplit_once('@')
        .map_or("localhost", |(_, d)| d)
}

/// Formats `draft` as a mail from `config`'s address.
pub fn compose(
    draft: &Draft,
    config: &MailConfig,
    message_id: &str,
    date: DateTime<Utc>,
) -> Result<OutMail, ComposeError> {
    let from_addr: Address = config
        .address
        .parse()
        .map_err(|_| ComposeError::Address(config.address.clone()))?;
    let to_addr: Address = draft
        .to
        .trim()
        .parse()
        .map_err(|_| ComposeError::Address(draft.to.clone()))?;
    let from = Mailbox::new(
        Some(config.name.clone()).filter(|n| !n.is_empty()),
        from_addr,
    );
    let to = Mailbox::new(
        Some(draft.to_name.clone()).filter(|n| !n.is_empty()),
        to_addr,
    );
    let mut builder = Message::builder()
        .from(from)
        .to(to)
        .subject(draft.subject.clone())
        .message_id(Some(angle(message_id)))
        .date(SystemTime::from(date))
        .header(AutoSubmitted);
    if let Some(r) = &draft.reply_to {
        let addr: Address = r.parse().map_err(|_| ComposeError::Address(r.clone()))?;
        builder = builder.reply_to(Mailbox::new(
            Some(config.name.clone()).filter(|n| !n.is_empty()),
            addr,
        ));
    }
    if let Some(id) = &draft.in_reply_to {
        builder = builder.in_reply_to(angle(id));
    }
    if !draft.references.is_empty() {
        let refs: Vec<String> = draft.references.iter().map(|r| angle(r)).collect();
        builder = builder.references(refs.join(" "));
    }
    // Every text part flowed (RFC 3676), the one place prose is wrapped.
    let text = SinglePart::builder()
        .header(ContentType::parse(TEXT_FLOWED).map_err(|e| ComposeError::Build(e.to_string()))?)
        .body(body(&crate::flowed::flowed(&draft.text)));
    // The picture, where the HTML shows it.
    let shown = draft.picture.as_ref().filter(|p| {
        draft
            .html
            .as_ref()
            .is_some_and(|html| html.contains(&format!("cid:{}", p.cid)))
    });
    let content = match &draft.html {
        Some(html) => {
            let html_part = SinglePart::builder()
                .header(ContentType::TEXT_HTML)
                .body(body(&ascii_html(&crate::flowed::unmarked(html))));
            let alternative = MultiPart::alternative().singlepart(text);
            Content::Multi(match shown {
                // The HTML and the picture it shows, together
                // (multipart/related, RFC 2387), as the HTML alternative.
                Some(p) => alternative.multipart(
                    MultiPart::related().singlepart(html_part).singlepart(
                        Attachment::new_inline_with_name(p.cid.clone(), p.name.clone()).body(
                            Body::dangerous_pre_encoded(
                                p.base64().as_ref().clone(),
                                ContentTransferEncoding::Base64,
                            ),
                            ContentType::parse("image/png")
                                .map_err(|e| ComposeError::Build(e.to_string()))?,
                        ),
                    ),
                ),
                None => alternative.singlepart(html_part),
            })
        }
        None => Content::Single(text),
    };
    let message = match (content, &draft.attachment) {
        // The mail and the file beside it (multipart/mixed, RFC 2046).
        (content, Some(file)) => {
            let mixed = match content {
                Content::Multi(m) => MultiPart::mixed().multipart(m),
                Content::Single(s) => MultiPart::mixed().singlepart(s),
            };
            let kind = ContentType::parse(&file.content_type)
                .map_err(|e| ComposeError::Build(e.to_string()))?;
            builder.multipart(
                mixed.singlepart(Attachment::new(file.name.clone()).body(file.bytes.clone(), kind)),
            )
        }
        (Content::Multi(m), None) => builder.multipart(m),
        (Content::Single(s), None) => builder.singlepart(s),
    }
    .map_err(|e| ComposeError::Build(e.to_string()))?;
    let bytes = message.formatted();
    let shared = shown.and_then(|p| shared_at(&bytes, p));
    Ok(OutMail {
        from: config.address.clone(),
        to: vec![draft.to.trim().to_string()],
        message_id: message_id
            .trim_matches(|c| c == '<' || c == '>')
            .to_string(),
        bytes,
        shared,
    })
}

/// A mail's content before any file is attached: its text alone, or its
/// parts together.
enum Content {
    Single(SinglePart),
    Multi(MultiPart),
}

/// Where the picture's `base64` lies in a mail's `bytes`, as the part the
/// mails of a change share ([`Shared`]).
fn shared_at(bytes: &[u8], picture: &InlinePicture) -> Option<Shared> {
    let base64 = picture.base64();
    // Its last 76 bytes are enough to find it, near the mail's end (the
    // picture is its last part); then it is compared whole.
    let last = &base64[base64.len().saturating_sub(76)..];
    if last.is_empty() {
        return None;
    }
    let end = bytes.windows(last.len()).rposition(|w| w == last)? + last.len();
    let at = end.checked_sub(base64.len())?;
    (bytes.get(at..at + base64.len()) == Some(base64.as_slice()))
        .then(|| Shared::picture(at, picture))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The picture's base64 body is as lettre writes one (what mails were
    /// composed with before), and pinned, so that no update of a
    /// dependency changes what the outbox makes again of a waiting picture.
    #[test]
    fn a_base64_body_is_as_lettre_writes_it_and_stays_so() {
        let mut bytes: Vec<u8> = Vec::new();
        let mut x = 0x9e37_79b9_u32;
        for len in (0..400).chain([57 * 100, 57 * 100 + 1, 70_001]) {
            bytes.resize_with(len, || {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            });
            let lettre = Body::new_with_encoding(bytes.clone(), ContentTransferEncoding::Base64)
                .unwrap()
                .into_vec();
            assert_eq!(base64_body(&bytes), lettre, "{len} bytes");
        }
        let golden = format!("{}\r\nAA==", "A".repeat(76));
        assert_eq!(base64_body(&[0; 58]), golden.as_bytes());
        assert_eq!(base64_body(b"Zo\xc3\xab"), b"Wm/Dqw==");
    }

    /// The body of a one-part mail of `text`, decoded by mail-parser and
    /// unflowed.
    fn round_trip(text: &str) -> (String, String) {
        let config = MailConfig {
            address: "sm@example.org".into(),
            name: String::new(),
            pictures: true,
        };
        let draft = Draft {
            to: "a@example.org".into(),
            subject: "s".into(),
            text: text.into(),
            ..Draft::default()
        };
        let date = DateTime::parse_from_rfc3339("2026-11-21T18:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let raw = compose(&draft, &config, "m@example.org", date)
            .unwrap()
            .bytes;
        let parsed = mail_parser::MessageParser::default().parse(&raw).unwrap();
        let encoding = String::from_utf8_lossy(&raw)
            .lines()
            .find_map(|l| l.strip_prefix("Content-Transfer-Encoding: "))
            .unwrap_or_default()
            .to_string();
        (
            encoding,
            crate::flowed::unflow(&parsed.body_text(0).unwrap_or_default(), false),
        )
    }

    #[test]
    fn long_lines_and_other_scripts_choose_the_encoding_and_read_back_the_same() {
        // (A map's row as a mail sends it: the spaces it ended in taken
        // off, as `format=flowed` asks.)
        let map_line = format!("{}\n", "~     ".repeat(17).trim_end());
        for (text, encoding) in [
            ("short lines\nonly\n".to_string(), "7bit"),
            (map_line.repeat(3), "7bit"),
            (format!("{}\n", "x".repeat(998)), "7bit"),
            (format!("{}\n", "x".repeat(999)), "quoted-printable"),
            // lettre's choice: base64 when most of it would need escapes.
            ("Zoë pays £5\n".to_string(), "base64"),
            (
                format!("Zoë pays £5 {}\n", "x".repeat(80)),
                "quoted-printable",
            ),
            ("no newline at the end".to_string(), "7bit"),
        ] {
            let (got, back) = round_trip(&text);
            assert_eq!(got, encoding, "{text:?}");
            // (A one-part mail reads back with one more line end.)
            assert_eq!(
                back.replace("\r\n", "\n").trim_end(),
                text.trim_end(),
                "{encoding}"
            );
        }
        // HTML beyond ASCII goes out as it is, with character references.
        assert_eq!(ascii_html("<p>£5 …</p>"), "<p>&#163;5 &#8230;</p>");
        assert_eq!(
            ascii_html("é┼\u{FFFD}\u{10FFFF}🚂x"),
            "&#233;&#9532;&#65533;&#1114111;&#128642;x"
        );
        // Where lettre would choose 7bit as well, the bytes are the same.
        let text = "short lines\nonly\n";
        assert_eq!(
            body(text).into_vec(),
            Body::new(text.to_string()).into_vec()
        );
    }

    #[test]
    fn a_file_goes_beside_the_text_and_html_and_reads_back_whole() {
        let config = MailConfig {
            address: "sm@example.org".into(),
            name: String::new(),
            pictures: true,
        };
        let page = "<!DOCTYPE html>\n<p>Zoë pays £5</p>\n".repeat(40);
        let draft = Draft {
            to: "a@example.org".into(),
            subject: "s".into(),
            text: "The game is over.\n".into(),
            html: Some("<p>The game is over.</p>".into()),
            attachment: Some(FileAttachment {
                name: "rocket-1.html".into(),
                content_type: "text/html; charset=utf-8".into(),
                bytes: page.clone().into_bytes(),
            }),
            ..Draft::default()
        };
        let date = DateTime::parse_from_rfc3339("2026-11-21T18:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let raw = compose(&draft, &config, "m@example.org", date)
            .unwrap()
            .bytes;
        let text = String::from_utf8_lossy(&raw);
        assert!(text.contains("multipart/mixed"), "{text}");
        assert!(text.contains("multipart/alternative"), "{text}");
        let parsed = mail_parser::MessageParser::default().parse(&raw).unwrap();
        assert_eq!(parsed.body_text(0).unwrap().trim_end(), "The game is over.");
        let files: Vec<_> = parsed.attachments().collect();
        assert_eq!(files.len(), 1);
        use mail_parser::MimeHeaders;
        assert_eq!(files[0].attachment_name(), Some("rocket-1.html"));
        assert_eq!(files[0].contents(), page.as_bytes());
    }

    #[test]
    fn the_text_part_is_flowed_in_every_encoding_and_no_mark_goes_out() {
        use mail_parser::MimeHeaders;
        let prose = "The game is over: nothing more is asked of you. The whole game is \
                     kept: reply `history` for its turn log.";
        let map = crate::flowed::fixed(&format!(" 1   ~{}", "     .".repeat(15)));
        for extra in [
            "",
            "Zoë pays £5. ",
            "┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ┃ ",
        ] {
            let text = format!("{extra}{prose}\n\n{map}\n\n-- \nStationmaster\n");
            let draft = Draft {
                to: "a@example.org".into(),
                subject: "s".into(),
                text: text.clone(),
                html: Some(format!("<pre>{map}</pre>")),
                ..Draft::default()
            };
            let config = MailConfig {
                address: "sm@example.org".into(),
                name: String::new(),
                pictures: true,
            };
            let raw = compose(&draft, &config, "m@example.org", Utc::now())
                .unwrap()
                .bytes;
            assert!(!String::from_utf8_lossy(&raw).contains(crate::flowed::FIXED));
            let parsed = mail_parser::MessageParser::default().parse(&raw).unwrap();
            let part = &parsed.parts[parsed.text_body[0] as usize];
            let ct = part.content_type().unwrap();
            assert_eq!(ct.attribute("format"), Some("flowed"), "{extra}");
            assert_eq!(ct.attribute("delsp"), Some("no"), "{extra}");
            assert_eq!(ct.attribute("charset"), Some("utf-8"), "{extra}");
            let sent = parsed.body_text(0).unwrap().replace("\r\n", "\n");
            for line in sent.lines() {
                assert!(
                    line.chars().count() <= crate::flowed::WIDTH + 1 || !line.ends_with(' '),
                    "{line:?}"
                );
            }
            let mut back = crate::flowed::unflow(&sent, false);
            back.pop();
            assert_eq!(back, crate::flowed::unmarked(&text), "{extra}");
            assert!(
                !parsed.body_html(0).unwrap().contains(crate::flowed::FIXED),
                "{extra}"
            );
        }
    }

    #[test]
    fn a_composed_mail_has_our_ids_threading_and_both_parts() {
        let config = MailConfig {
            address: "sm@example.org".into(),
            name: "Stationmaster".into(),
            pictures: true,
        };
        let draft = Draft {
            to_name: "Alice".into(),
            to: "alice@example.org".into(),
            subject: "[rocket-1 abc123] Turn 3".into(),
            text: "map here\n".into(),
            html: Some("<pre>map here</pre>".into()),
            in_reply_to: Some("orig@example.org".into()),
            references: vec!["first@example.org".into(), "orig@example.org".into()],
            reply_to: Some("sm+rocket-1.abc123@example.org".into()),
            picture: None,
            attachment: None,
        };
        let date = DateTime::parse_from_rfc3339("2026-11-21T18:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let mail = compose(&draft, &config, "m1@example.org", date).unwrap();
        let text = String::from_utf8(mail.bytes).unwrap();
        assert!(text.contains("Message-ID: <m1@example.org>"), "{text}");
        assert!(text.contains("In-Reply-To: <orig@example.org>"), "{text}");
        assert!(
            text.contains("References: <first@example.org> <orig@example.org>"),
            "{text}"
        );
        assert!(text.contains("Auto-Submitted: auto-replied"), "{text}");
        assert!(text.contains("multipart/alternative"), "{text}");
        assert!(
            text.contains("Content-Type: text/plain; charset=utf-8; format=flowed; delsp=no"),
            "{text}"
        );
        assert!(text.contains("Reply-To:"), "{text}");
        assert_eq!(mail.to, vec!["alice@example.org".to_string()]);
        // Both parts plain ASCII with short lines: sent as they are.
        assert_eq!(text.matches("Content-Transfer-Encoding: 7bit").count(), 2);
        assert!(text.contains("\r\nmap here\r\n"), "{text}");
        assert!(
            compose(
                &Draft {
                    to: "not an address".into(),
                    ..draft
                },
                &config,
                "m2@x",
                date
            )
            .is_err()
        );
    }
}
