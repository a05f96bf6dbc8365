//! Invitations: the creator's `invite ADDRESS`, one mail to an address
//! that says how to join, and an address's `no more invitations`.

use super::proof::first_mail;
use super::status::status_text;
use super::{Refusal, Session};
use crate::mail::compose::Draft;
use crate::service::{compose_mail, report, unasked};

/// The most addresses one forming game may invite.
pub const MAX_INVITED: usize = 20;

impl Session<'_, '_> {
    /// `invite ADDRESS`, by the creator: one invitation, the one mail an
    /// address not proved gets (see `proof`).
    pub(super) fn invite(&mut self, address: &str) -> Result<String, Refusal> {
        let ctx = self.ctx;
        let (mut f, seat) = self.own_seat("invite")?;
        if seat != 0 {
            return Err(Refusal::Player(format!(
                "only the creator of {} invites",
                f.id
            )));
        }
        let address = unasked::recipient(ctx, address).map_err(Refusal::Player)?;
        let address = address.as_str();
        // The invitee's other addresses count as theirs (which one is not
        // told: that is the invitee's business).
        let aliases = ctx.store.aliases(address)?;
        if aliases.iter().any(|a| f.seat_of(a).is_some()) {
            return Err(Refusal::Player(format!("{address} has a seat already")));
        }
        // The site's moderators moderate every game: their address plays
        // no seat (docs/operators.md, "Security").
        if ctx
            .config
            .site
            .moderators
            .iter()
            .any(|m| m.eq_ignore_ascii_case(address))
        {
            return Err(Refusal::Player(format!(
                "{address} is a moderator's address on this server; a moderator sees every player's secrets, so their address plays no seat"
            )));
        }
        if f.invited.iter().any(|a| a.eq_ignore_ascii_case(address)) {
            return Err(Refusal::Player(format!(
                "{address} is invited already; one invitation is all an address gets"
            )));
        }
        if f.invited.len() >= MAX_INVITED {
            return Err(Refusal::Player(format!(
                "{} has {MAX_INVITED} invitations out, the most a game may have",
                f.id
            )));
        }
        let mut contact = self.contact(address)?;
        let mut refused = contact.no_invitations;
        for a in &aliases[1..] {
            refused |= self.contact(a)?.no_invitations;
        }
        if refused {
            return Err(Refusal::Player(format!(
                "{address} asked this server for no invitations; they can still `join {}` themselves if it is open",
                f.id
            )));
        }
        // The one mail to an address not proved carries a code in its tag:
        // the reply (`join`) proves it.
        let mut code = None;
        if !unasked::has_asked(ctx, address, &contact)? {
            if contact.unasked.is_some() {
                return Err(Refusal::Player(format!(
                    "{address} has had a mail from this server that they did not ask for, and has not answered it; this server mails nobody twice unasked. Tell them to reply to that mail with the line `join {}`",
                    f.id
                )));
            }
            unasked::within_limits(ctx, &self.from, &self.tally, self.now)?
                .map_err(Refusal::Player)?;
            code = Some(first_mail(&mut contact, Vec::new(), self.now)?);
            self.set_contact(address, contact);
            self.tally.extend(unasked::tally(&self.from, self.now));
        }
        f.invited.push(address.to_ascii_lowercase());
        let creator = &f.seats[0];
        let title = crate::registry::title(&f.kind);
        let text = format!(
            "Hello,\n\n{} ({}) invites you to a game of {title}, {}, played by mail on Stationmaster at {}.\n\n{}\n\nTo take a seat, reply to this mail with the line\n\n  join {}\n\n(or `join {} as NAME` to choose your name in the game). If you do not want to play, do nothing{}.\n\nTo get no invitations from this server ever again, reply with the line\n\n  no more invitations\n\n-- \nStationmaster ({}). You were invited by {}.\n",
            creator.name,
            creator.address,
            f.id,
            ctx.config.mail.address,
            status_text(&f, false, self.now),
            f.id,
            f.id,
            // Only to an address that never wrote here is this mail the
            // only one; one that plays here already gets its games' mail.
            if code.is_some() {
                ": this invitation is the only mail you get from this server unless you answer it"
            } else {
                ""
            },
            ctx.config.mail.address,
            creator.address,
        );
        let draft = Draft {
            to: address.to_string(),
            subject: match &code {
                Some(code) => format!(
                    "[{} {code}] Invitation to {title} from {}",
                    f.id, creator.name
                ),
                None => format!("[{}] Invitation to {title} from {}", f.id, creator.name),
            },
            html: Some(report::notice_html(ctx, &text, None)?),
            text,
            ..Draft::default()
        };
        let mail = compose_mail(ctx, &f.id.0, "invitation", &draft, self.now)?;
        self.mails.push(mail);
        self.forming = Some(f);
        Ok(format!("Invited {address}: one mail, with how to join."))
    }

    /// `no more invitations`: the sender gets none from now on.
    pub(super) fn no_more_invitations(&mut self) -> Result<String, Refusal> {
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        contact.no_invitations = true;
        self.set_contact(&from, contact);
        if let Some(f) = &mut self.forming {
            f.invited.retain(|a| !a.eq_ignore_ascii_case(&from));
        }
        Ok(
            "This server sends you no more invitations. You can still make or join games yourself."
                .to_string(),
        )
    }
}
