//! Address proof by code: how far the server answers a sender, by what
//! it knows of the address (see the module doc of `site`), and the one
//! mail an address not proved gets, with the code that proves it.

use chrono::{DateTime, Utc};

use super::Session;
use super::command::{SiteCommand, parse};
use crate::mail::ingest::Incoming;
use crate::service::report;
use crate::service::{Ctx, ServiceError, unasked};
use crate::store::{Contact, Pending};

/// How far the server may answer a mail from an address without a key,
/// by what it knows of the address (see the module doc).
#[derive(Debug)]
pub enum Standing {
    /// It has asked for mail from us: it proved itself before, or plays
    /// here.
    Asked,
    /// It proves itself with this mail, which carries the code of the one
    /// mail we sent it: `contact` as it is to be written, `held` the
    /// commands of its first mail, kept until now.
    Proved {
        /// Its record, proved, the code spent.
        contact: Contact,
        /// The `new`, `join` or `watch` lines held.
        held: Vec<String>,
        /// The code it carried back.
        code: String,
    },
    /// The operator's mail server vouches for its From: answered at most
    /// once per `[daemon] help_interval_hours`.
    Vouched,
    /// Not proved and not yet mailed: this answer is its one mail, with a
    /// code (see [`first_mail`]).
    First,
    /// Not proved, and its one mail spent: not answered, for this reason.
    Silent(String),
}

/// The standing of `from`, whose record is `contact`, as mail `inc` shows
/// it (see [`Standing`]).
pub fn standing(
    ctx: &Ctx<'_>,
    inc: &Incoming,
    from: &str,
    contact: &Contact,
    now: DateTime<Utc>,
) -> Result<Standing, ServiceError> {
    if unasked::has_asked(ctx, from, contact)? {
        return Ok(Standing::Asked);
    }
    // The code in the subject tag `[code CODE]`, in an invitation's tag
    // `[GAME CODE]`, or written `confirm CODE`.
    let confirmed = inc.body.iter().filter_map(|l| match parse(l.trim()) {
        Some(Ok(SiteCommand::Confirm(code))) => Some(code),
        _ => None,
    });
    let codes: Vec<String> = inc
        .code
        .iter()
        .chain(inc.token.iter())
        .cloned()
        .chain(confirmed)
        .collect();
    if let Some(p) = contact
        .pending
        .iter()
        .find(|p| p.what == Pending::REPLY && codes.contains(&p.code))
    {
        let (held, code) = (p.lines.clone(), p.code.clone());
        let mut contact = contact.clone();
        contact.proved = Some(now);
        contact.pending.retain(|q| q.what != Pending::REPLY);
        return Ok(Standing::Proved {
            contact,
            held,
            code,
        });
    }
    if vouched(ctx, inc) {
        return Ok(Standing::Vouched);
    }
    if contact.unasked.is_some() && contact.answerable {
        return Ok(Standing::Silent(format!(
            "{from} has had its one mail from this server and has not answered it with its code"
        )));
    }
    Ok(Standing::First)
}

/// True if the operator's own mail server (`[inbound]
/// trust_authentication_results`) found the mail's From genuine: its
/// `dmarc=pass` (DMARC ties the From's domain to SPF or DKIM). Mail it
/// found failing never comes this far.
fn vouched(ctx: &Ctx<'_>, inc: &Incoming) -> bool {
    let server = ctx.config.inbound.trust_authentication_results.trim();
    !server.is_empty()
        && inc.authentication_results.iter().any(|r| {
            r.server.eq_ignore_ascii_case(server) && r.method == "dmarc" && r.result == "pass"
        })
}

/// Spends the one mail an address not proved gets: `contact` records it,
/// with a new code that a reply carries back and the commands `held`
/// until then. The code.
pub fn first_mail(
    contact: &mut Contact,
    held: Vec<String>,
    now: DateTime<Utc>,
) -> Result<String, ServiceError> {
    let code = crate::service::new_token()?;
    contact.unasked = Some(now);
    contact.answerable = true;
    contact.pending.retain(|p| p.what != Pending::REPLY);
    contact.pending.push(Pending {
        what: Pending::REPLY.to_string(),
        code: code.clone(),
        at: now,
        lines: held,
    });
    Ok(code)
}

/// What the one answer to an address not proved says about going on.
pub fn first_mail_note(ctx: &Ctx<'_>, from: &str, code: &str) -> String {
    format!(
        "This server has not heard from {from} before, so it answers this once: reply to this mail to go on. The reply carries the code in this mail's subject, [code {code}], which shows that it comes from whoever got this mail (if your mail program drops it, write `confirm {code}` in the reply). Until a reply comes, nothing more from {from} is answered, so nobody can make this server write to an address that did not ask. If you did not write to {}, do nothing: you get no more mail from it.",
        ctx.config.mail.address
    )
}

/// The subject of the one answer to an address not proved: a reply to
/// `subject` with the code's tag.
pub fn first_mail_subject(subject: &str, code: &str) -> String {
    format!("[code {code}] {}", report::reply_subject(subject))
}

impl Session<'_, '_> {
    /// True if the mail answers a confirmation this server mailed the
    /// sender (`watch GAME CODE`): that is an answer with a key.
    pub(super) fn confirms_pending(&mut self) -> Result<bool, ServiceError> {
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        let confirmed = self.inc.body.iter().any(|l| match parse(l.trim()) {
            Some(Ok(SiteCommand::Watch {
                game,
                code: Some(code),
            })) => contact
                .pending
                .iter()
                .any(|p| p.what == format!("watch {game}") && p.code == code),
            Some(Ok(SiteCommand::Confirm(code))) => contact
                .pending
                .iter()
                .any(|p| p.code == code && p.what != Pending::REPLY),
            _ => false,
        });
        if confirmed && contact.proved.is_none() {
            contact.proved = Some(self.now);
            self.set_contact(&from, contact);
        }
        Ok(confirmed)
    }
}
