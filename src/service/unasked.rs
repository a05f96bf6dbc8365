//! The one rule for mail to an address that never asked for it (docs/operators.md,
//! "Security", "Unasked mail").
//!
//! Whatever makes the server write to an address on someone else's word
//! passes here before anything is stored: `invite`, a player's `address
//! add`, a moderator's `replace PLAYER ADDRESS` and `moderator ADDRESS` (by
//! mail or on the command line), and the answer to an address that has not
//! proved itself (the help reply, the one mail with a code, a `watch`
//! code). For each:
//!
//! 1. the address must be one a mail can be sent to ([`recipient`]): it
//!    parses, names a domain (no `[127.0.0.1]` literal) and is not one of
//!    the server's own addresses, `stationmaster+anything@` included;
//! 2. an address that has not proved itself gets one mail from the server,
//!    ever, until it answers it ([`may_mail`]);
//! 3. all such mail together is at most `[limits] help_per_hour` an hour,
//!    and what one sender's mail causes at most `[limits]
//!    unasked_per_sender_per_hour` ([`within_limits`]), counted with what the
//!    mail being handled has caused so far, so a thousand lines in one mail
//!    count a thousand times.
//!
//! Where an address may sit is the game's business ([`seat_refusal`],
//! [`moderator_refusal`]): a seat never takes the server's address, another
//! seat's, or (added later) a moderator's; a moderator is never a seat's.
//! Nothing here sends mail or writes the store: each caller puts what
//! [`Permit`] says into the change it commits.

use chrono::{DateTime, Utc};

use super::{Ctx, ServiceError};
use crate::store::{Contact, GameMeta, GameRecord};

/// The counter of the hour that every unasked mail and help reply raises
/// (`[limits] help_per_hour`).
pub const HOURLY: &str = "help";

/// The counter of the hour of what one sender's mail made the server
/// write unasked (`[limits] unasked_per_sender_per_hour`).
fn sender_counter(by: &str) -> String {
    format!("unasked:{}", by.to_ascii_lowercase())
}

/// True if `address` is one of the server's own: its `[mail] address`, or
/// that address with a `+tag` (a game's reply address), in any case.
pub fn is_server_address(ctx: &Ctx<'_>, address: &str) -> bool {
    let split = |a: &str| -> Option<(String, String)> {
        let (local, domain) = a.trim().rsplit_once('@')?;
        let local = local.split('+').next().unwrap_or(local);
        Some((local.to_ascii_lowercase(), domain.to_ascii_lowercase()))
    };
    match (split(address), split(&ctx.config.mail.address)) {
        (Some(a), Some(ours)) => a == ours,
        _ => false,
    }
}

/// `address` as the server stores it (trimmed of `<>`, lower case), or why
/// no mail may go to it: it is no address a mail can be sent to, or it is
/// the server's own.
pub fn recipient(ctx: &Ctx<'_>, address: &str) -> Result<String, String> {
    let address = address
        .trim()
        .trim_matches(|c| c == '<' || c == '>')
        .to_ascii_lowercase();
    crate::mail::compose::check_address(&address).map_err(|e| e.to_string())?;
    if is_server_address(ctx, &address) {
        return Err(format!(
            "{address} is this server's own address; it plays no seat and gets no invitation"
        ));
    }
    Ok(address)
}

/// True if `address` has asked for the server's mail: it proved itself,
/// or it plays here.
pub fn has_asked(ctx: &Ctx<'_>, address: &str, contact: &Contact) -> Result<bool, ServiceError> {
    Ok(contact.proved.is_some() || !ctx.store.games_of(address)?.is_empty())
}

/// Whether the hour's limits let `by`'s mail make the server write to one
/// more address unasked: `pending` is what the change being built has
/// counted already (its `tally`). `Err` says why not, for the sender.
pub fn within_limits(
    ctx: &Ctx<'_>,
    by: &str,
    pending: &[(String, DateTime<Utc>)],
    now: DateTime<Utc>,
) -> Result<Result<(), String>, ServiceError> {
    let count = |what: &str| -> Result<u64, ServiceError> {
        let here = pending.iter().filter(|(w, _)| w == what).count() as u64;
        Ok(ctx.store.hourly_count(what, now)? + here)
    };
    let limits = &ctx.config.limits;
    if count(HOURLY)? >= u64::from(limits.help_per_hour) {
        tracing::warn!(%by, "unasked mail not sent: [limits] help_per_hour reached");
        return Ok(Err(
            "this server has written to as many new addresses as it does in an hour; try again in an hour"
                .to_string(),
        ));
    }
    if count(&sender_counter(by))? >= u64::from(limits.unasked_per_sender_per_hour) {
        tracing::warn!(%by, "unasked mail not sent: [limits] unasked_per_sender_per_hour reached");
        return Ok(Err(format!(
            "your mail has had this server write to {} new addresses this hour, the most it does for one sender; try again in an hour",
            limits.unasked_per_sender_per_hour
        )));
    }
    Ok(Ok(()))
}

/// What [`may_mail`] allows: the contact record to write with the change
/// (the one unasked mail spent), and the counters to raise.
#[derive(Debug, Default)]
pub struct Permit {
    /// The recipient's contact record as the mail leaves it, if it changed.
    pub contact: Option<Contact>,
    /// The counters of the hour this mail raises (see
    /// [`crate::store::Change::tally`]): none for an address that asked.
    pub tally: Vec<(String, DateTime<Utc>)>,
}

/// The counters of the hour that one unasked mail caused by `by` raises.
pub fn tally(by: &str, now: DateTime<Utc>) -> Vec<(String, DateTime<Utc>)> {
    vec![(HOURLY.to_string(), now), (sender_counter(by), now)]
}

impl Permit {
    /// Puts the permit into a change being built.
    pub fn record(self, address: &str, change: &mut crate::store::Change) {
        if let Some(c) = self.contact {
            change.contacts.push((address.to_ascii_lowercase(), c));
        }
        change.tally.extend(self.tally);
    }
}

/// May a mail from `by` make the server write to `address` (already
/// checked by [`recipient`]), who has not asked for it? `pending` is the
/// tally of the change being built. `Ok(permit)`: yes; `Err`: no, with
/// why. The site's moderators are not held to the one mail an address,
/// but are to the hour's limits.
pub fn may_mail(
    ctx: &Ctx<'_>,
    by: &str,
    address: &str,
    pending: &[(String, DateTime<Utc>)],
    now: DateTime<Utc>,
) -> Result<Result<Permit, String>, ServiceError> {
    let mut contact = ctx.store.contact(address)?;
    if has_asked(ctx, address, &contact)? {
        return Ok(Ok(Permit::default()));
    }
    let site_moderator = ctx
        .config
        .site
        .moderators
        .iter()
        .any(|m| m.eq_ignore_ascii_case(by));
    if contact.unasked.is_some() && !site_moderator {
        return Ok(Err(format!(
            "{address} has had a mail from this server that they did not ask for, and has not answered; this server mails nobody twice unasked. They can reply to that mail themselves"
        )));
    }
    if let Err(why) = within_limits(ctx, by, pending, now)? {
        return Ok(Err(why));
    }
    // Its mail carries a key or a code: answering it proves the address.
    contact.unasked = Some(now);
    contact.answerable = true;
    Ok(Ok(Permit {
        contact: Some(contact),
        tally: tally(by, now),
    }))
}

/// Why `address` may not play a seat of a running game (`except`: the seat
/// it is for, whose own addresses it may repeat), or None: it is another
/// seat's address (first or added), or a moderator's of the game or the
/// site. (A game made by mail has its creator both play and moderate from
/// the start; an address added later never makes one person both.)
pub fn seat_refusal(
    ctx: &Ctx<'_>,
    record: &GameRecord,
    meta: &GameMeta,
    address: &str,
    except: Option<crate::engine::Seat>,
) -> Option<String> {
    if let Some(other) = meta
        .seats_from(record, address)
        .into_iter()
        .find(|s| Some(*s) != except)
    {
        return Some(format!(
            "{address} is the address of {}, who plays a seat already; one person plays one seat",
            record.setup.players[other.index()].name
        ));
    }
    if is_moderator(ctx, meta, address) {
        return Some(format!(
            "{address} is a moderator's address in this game; a moderator sees every player's secrets, so their address plays no seat"
        ));
    }
    None
}

/// Why `address` may not moderate a running game, or None: it is a
/// seat's address (first or added).
pub fn moderator_refusal(record: &GameRecord, meta: &GameMeta, address: &str) -> Option<String> {
    meta.seats_from(record, address).first().map(|s| {
        format!(
            "{address} is the address of {}, who plays in this game; a moderator sees every player's secrets, so no player moderates their own game",
            record.setup.players[s.index()].name
        )
    })
}

/// True if `address` moderates the game: one of its own moderators or the
/// site's.
fn is_moderator(ctx: &Ctx<'_>, meta: &GameMeta, address: &str) -> bool {
    meta.moderators
        .iter()
        .chain(meta.moderator_tokens.keys())
        .chain(ctx.config.site.moderators.iter())
        .any(|m| m.eq_ignore_ascii_case(address))
}
