//! The answer to a site mail, in the sender's thread of the forming game
//! or in reply to their mail, and everything the mail did in one change.

use super::proof::{first_mail, first_mail_note, first_mail_subject};
use super::status::{hints, status_text, thread_of};
use super::{Outcome, Session, receipt};
use crate::mail::OutMail;
use crate::mail::compose::Draft;
use crate::service::{ServiceError, compose_mail, message_id, report, unasked};

impl Session<'_, '_> {
    /// The words that close the answer: a thank-you to an address that
    /// proved itself with nothing else to say, or that the mail held no
    /// command; the lines `not_read`; and, to an address new here, the
    /// note that this is its one mail, with its code.
    pub(super) fn close_answer(&mut self, not_read: Vec<String>) -> Result<(), ServiceError> {
        if self.out.is_empty() && self.proved.is_some() {
            self.out.push(format!(
                "Thank you: {} is known here now, and this server answers its mail. `help` lists what you can send.",
                self.from
            ));
        } else if self.out.is_empty() {
            self.out
                .push("Your mail had no command in it; `help` lists them.".to_string());
        }
        if !not_read.is_empty() {
            self.out.push(format!(
                "Not read as commands (no command begins so):\n{}",
                not_read.join("\n")
            ));
        }
        if let Some(held) = self.first.take() {
            let from = self.from.clone();
            let mut contact = self.contact(&from)?;
            let code = first_mail(&mut contact, held, self.now)?;
            self.set_contact(&from, contact);
            self.out.push(first_mail_note(self.ctx, &from, &code));
            self.code = Some(code);
        }
        Ok(())
    }

    /// The reply, the receipt, and everything else into one change.
    pub(super) fn finish(&mut self, mid: &str, limited: bool) -> Result<Outcome, ServiceError> {
        let ctx = self.ctx;
        let mut text = self.out.join("\n\n");
        if let (Some(f), Some(seat)) = (&self.forming, self.seat)
            && self.closed.is_none()
            && self.started.is_none()
        {
            text.push_str(&format!(
                "\n\n{}\n\nYou can (reply to this mail, one a line):\n{}",
                status_text(f, seat == 0, self.now),
                hints(f, seat)
                    .iter()
                    .map(|h| format!("  {h}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
        text.push_str(&format!(
            "\n\n-- \nStationmaster ({}). `help` lists what you can send.\n",
            ctx.config.mail.address
        ));
        let reply = self.reply(text)?;
        let mut change = self.started.take().unwrap_or_default();
        change.outbox.insert(0, reply);
        change.outbox.append(&mut self.mails);
        change.contacts = std::mem::take(&mut self.contacts);
        if let Some(update) = self.update.take() {
            change.update = Some(update);
            change.index = std::mem::take(&mut self.index);
        }
        if let Some(key) = self.bumped.take() {
            change.help_sent.push((key, self.now));
        }
        if limited {
            change.help_sent.push((self.from.clone(), self.now));
        }
        if limited || self.code.is_some() {
            change.tally.push((unasked::HOURLY.to_string(), self.now));
        }
        change.tally.append(&mut self.tally);
        let game = self.forming.as_ref().map(|f| f.id.clone());
        if let Some(id) = self.closed.clone() {
            change.forming = Some((id, None));
        } else if let Some(f) = &self.forming
            && (self.existed || self.seat.is_some())
        {
            change.forming = Some((f.id.clone(), Some(f.clone())));
        }
        let started = change.new_game.is_some();
        let summary = match &game {
            Some(g) if started => format!("{} started {g}", self.from),
            Some(g) => format!("{}: site commands for {g}", self.from),
            None => format!("{}: site commands", self.from),
        };
        change.receipt = Some(receipt(mid, game.as_ref(), &summary, self.now));
        Ok(Outcome {
            change,
            summary,
            started,
        })
    }

    /// The answer to the sender: in their thread of the forming game if
    /// they sit in it (the root itself if this mail gave them the seat),
    /// else a reply to their mail.
    fn reply(&self, text: String) -> Result<OutMail, ServiceError> {
        let ctx = self.ctx;
        let mut their_refs = self.inc.references.clone();
        let parent = self.inc.message_id.clone();
        let html = Some(report::notice_html(ctx, &text, None)?);
        let seated = match (&self.left, &self.forming, self.seat) {
            (Some((f, seat)), _, _) => Some((f, *seat)),
            (None, Some(f), Some(seat)) if seat < f.seats.len() => Some((f, seat)),
            _ => None,
        };
        let Some((f, seat)) = seated else {
            if let Some(p) = &parent {
                their_refs.push(p.clone());
            }
            let subject = if self.inc.subject.trim().is_empty() {
                "your mail".to_string()
            } else {
                self.inc.subject.trim().to_string()
            };
            let draft = Draft {
                to: self.from.clone(),
                subject: match &self.code {
                    Some(code) => first_mail_subject(&subject, code),
                    None => report::reply_subject(&subject),
                },
                text,
                html,
                in_reply_to: parent,
                references: their_refs,
                ..Draft::default()
            };
            return compose_mail(ctx, "stationmaster", "reply", &draft, self.now);
        };
        let thread = thread_of(f, seat);
        let key = &f.seats[seat].key;
        let (in_reply_to, references, id) = match &self.new_root {
            Some(root) => {
                if let Some(p) = &parent {
                    their_refs.push(p.clone());
                }
                (parent.clone(), their_refs, root.clone())
            }
            None => {
                let (irt, refs) = thread.threading(
                    parent
                        .as_deref()
                        .map(|p| (p, self.inc.references.as_slice())),
                );
                (irt, refs, message_id(ctx, &f.id.0, "forming")?)
            }
        };
        let draft = Draft {
            to_name: f.seats[seat].name.clone(),
            to: self.from.clone(),
            subject: thread.subject(self.new_root.is_none() && parent.is_some()),
            text,
            html,
            in_reply_to,
            references,
            reply_to: Some(report::reply_address(&ctx.config.mail.address, &f.id, key)),
            picture: None,
            attachment: None,
        };
        Ok(crate::mail::compose::compose(
            &draft,
            &ctx.config.mail,
            &id,
            self.now,
        )?)
    }
}
