//! MIME out: turns a [`Draft`] (recipient, subject, text, HTML, threading)
//! into a formatted message with lettre's builder. We set the Message-ID
//! ourselves (lettre does not), and mark every mail `Auto-Submitted:
//! auto-replied` so that well-behaved responders never answer us back.

use std::time::SystemTime;

use chrono::{DateTime, Utc};
use lettre::message::header::{Header, HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::{Address, Message};

use super::OutMail;
use crate::config::MailConfig;

/// A mail to be composed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Draft {
    /// The recipient's name (may be empty).
    pub to_name: String,
    /// The recipient's address.
    pub to: String,
    /// The subject.
    pub subject: String,
    /// The text part.
    pub text: String,
    /// The HTML part, if any.
    pub html: Option<String>,
    /// The Message-ID this answers (without angle brackets).
    pub in_reply_to: Option<String>,
    /// The thread so far (without angle brackets).
    pub references: Vec<String>,
    /// Where replies should go, if not to our address.
    pub reply_to: Option<String>,
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

/// Checks that `address` is a mail address lettre can send to.
pub fn check_address(address: &str) -> Result<(), ComposeError> {
    address
        .trim()
        .parse::<Address>()
        .map(|_| ())
        .map_err(|_| ComposeError::Address(address.to_string()))
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
    let message = match &draft.html {
        Some(html) => builder.multipart(MultiPart::alternative_plain_html(
            draft.text.clone(),
            html.clone(),
        )),
        None => builder.singlepart(SinglePart::plain(draft.text.clone())),
    }
    .map_err(|e| ComposeError::Build(e.to_string()))?;
    Ok(OutMail {
        from: config.address.clone(),
        to: vec![draft.to.trim().to_string()],
        message_id: message_id
            .trim_matches(|c| c == '<' || c == '>')
            .to_string(),
        bytes: message.formatted(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_composed_mail_has_our_ids_threading_and_both_parts() {
        let config = MailConfig {
            address: "sm@example.org".into(),
            name: "Stationmaster".into(),
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
        assert!(text.contains("Reply-To:"), "{text}");
        assert_eq!(mail.to, vec!["alice@example.org".to_string()]);
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
