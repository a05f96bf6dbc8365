//! Address proof by code: how far the server answers a sender, by what
//! it knows of the address (see the module doc of `site`), and the one
//! mail an address not proved gets, with the code that proves it.

use chrono::{DateTime, Utc};

use super::command::{SiteCommand, has_command, parse};
use super::{Outcome, Session, receipt};
use crate::mail::ingest::Incoming;
use crate::service::report;
use crate::service::{Ctx, ServiceError, unasked};
use crate::store::{Change, Contact, GameId, Pending};

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
    /// The sender's standing (see [`Standing`]): its seat's key in this
    /// mail, or its answer to a confirmation this server mailed it,
    /// proves it now.
    pub(super) fn sender_standing(&mut self) -> Result<Standing, ServiceError> {
        let proved_now = self.seat.is_some() || self.confirms_pending()?;
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        if proved_now && contact.proved.is_none() {
            contact.proved = Some(self.now);
            self.set_contact(&from, contact.clone());
        }
        if proved_now {
            return Ok(Standing::Asked);
        }
        standing(self.ctx, self.inc, &from, &contact, self.now)
    }

    /// What the sender's `standing` makes of this mail: an address that
    /// proves itself now has the lines its first mail held read first; an
    /// address new here has this answer as its one mail. `Some(why)` if
    /// the mail is not answered.
    pub(super) fn heed(&mut self, standing: Standing) -> Option<String> {
        match standing {
            Standing::Silent(why) => Some(why),
            Standing::Proved {
                contact,
                held,
                code,
            } => {
                let from = self.from.clone();
                self.set_contact(&from, contact);
                // The held lines run first, then whatever the reply says
                // besides the `confirm` of this very code (which the held
                // lines answer).
                let body = std::mem::take(&mut self.body);
                let own: Vec<String> = body
                    .iter()
                    .filter(|l| {
                        !matches!(parse(l.trim()), Some(Ok(SiteCommand::Confirm(c))) if c.eq_ignore_ascii_case(&code))
                    })
                    .cloned()
                    .collect();
                self.body = if held.is_empty() {
                    body
                } else if has_command(&own) {
                    held.into_iter().chain(own).collect()
                } else {
                    held
                };
                self.proved = Some(code);
                None
            }
            Standing::First => {
                self.first = Some(Vec::new());
                None
            }
            Standing::Asked | Standing::Vouched => None,
        }
    }

    /// Why a sender its standing lets have an answer is not answered all
    /// the same: a vouched sender (`limited`) was answered lately, or the
    /// help replies of this hour are used up.
    pub(super) fn over_limits(&self, limited: bool) -> Result<Option<String>, ServiceError> {
        let ctx = self.ctx;
        let interval = chrono::Duration::hours(ctx.config.daemon.help_interval_hours as i64);
        if limited
            && ctx
                .store
                .help_sent(&self.from)?
                .is_some_and(|last| self.now - last < interval)
        {
            return Ok(Some(format!(
                "{} was answered lately and has not yet proved itself",
                self.from
            )));
        }
        if (limited || self.first.is_some())
            && ctx.store.hourly_count(unasked::HOURLY, self.now)?
                >= u64::from(ctx.config.limits.help_per_hour)
        {
            return Ok(Some(
                "the help replies of this hour are used up".to_string(),
            ));
        }
        Ok(None)
    }

    /// A mail not answered, for `why`: its receipt, and the sender's
    /// refusal of more mail if it holds one.
    pub(super) fn unanswered(
        &self,
        mid: &str,
        game: Option<&GameId>,
        why: &str,
    ) -> Result<Outcome, ServiceError> {
        let from = &self.from;
        tracing::warn!(from = %from, "not answered: {why}");
        // A refusal of more mail is kept even unanswered: it can only
        // mean less mail for the address.
        let refuses = self
            .body
            .iter()
            .any(|l| matches!(parse(l.trim()), Some(Ok(SiteCommand::NoMoreInvitations))));
        let mut contacts = Vec::new();
        if refuses {
            let mut contact = self.contact(from)?;
            contact.no_invitations = true;
            contacts.push((from.to_ascii_lowercase(), contact));
        }
        Ok(Outcome {
            change: Change {
                receipt: Some(receipt(
                    mid,
                    game,
                    &format!("site commands not read, not answered: {why}"),
                    self.now,
                )),
                contacts,
                ..Change::default()
            },
            summary: format!("not answered: {why}"),
            started: false,
        })
    }

    /// True if the mail answers a confirmation this server mailed the
    /// sender (`watch GAME CODE`): that is an answer with a key.
    fn confirms_pending(&mut self) -> Result<bool, ServiceError> {
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
