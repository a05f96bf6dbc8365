//! One inbound mail to one [`Change`]: skip what was already handled and
//! what must never be answered, find the game and the player, check the
//! secret token, run the commands and orders, and compose every answer.
//! Nothing here writes: the caller commits the change, then marks the mail
//! done.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::commands::{self, Command};
use super::report::{self, MailContext, ReplySection};
use super::{Ctx, DaemonError};
use crate::engine::chatter::Reading;
use crate::engine::{Actor, AnyGame, OrderRejected, Seat};
use crate::mail::compose::Draft;
use crate::mail::ingest::{self, Incoming};
use crate::service::pipeline::{self, Stored};
use crate::service::takeback::{self, TakenBack};
use crate::service::talk::Talked;
use crate::service::{fallback_id, records, site, unasked};
use crate::store::{BatchRejected, Change, GameId, GameMeta, GameRecord, Receipt, StoreError};

/// What handling a mail came to.
pub(super) struct Handled {
    /// What to commit (None: nothing, the mail was handled before).
    pub change: Option<Change>,
    /// True if a game changed.
    pub changed_game: bool,
    /// A few words for the log.
    pub summary: String,
}

/// The stand-in id that Stationmaster up to version 0.1 (November 2026)
/// gave such a mail, with the standard library's `DefaultHasher`: looked
/// up too, so that a mail handled before the change to SHA-256 is not
/// handled again after it (its output is stable within one toolchain,
/// which those builds and this one share).
fn legacy_fallback_id(raw: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    raw.hash(&mut h);
    format!("no-message-id.{:016x}@stationmaster", h.finish())
}

/// True if the mail `raw` (id `mid`) has a receipt.
fn handled_before(ctx: &Ctx<'_>, mid: &str, raw: &[u8], has_id: bool) -> Result<bool, DaemonError> {
    if ctx.store.receipt(mid)?.is_some() {
        return Ok(true);
    }
    Ok(!has_id && ctx.store.receipt(&legacy_fallback_id(raw))?.is_some())
}

fn receipt_only(mid: String, game: Option<String>, now: DateTime<Utc>, outcome: &str) -> Handled {
    Handled {
        change: Some(Change {
            receipt: Some((
                mid,
                Receipt {
                    at: now,
                    game,
                    outcome: outcome.to_string(),
                },
            )),
            ..Change::default()
        }),
        changed_game: false,
        summary: outcome.to_string(),
    }
}

/// What the operator's own mail server (`[inbound]
/// trust_authentication_results`) found failing in this mail, if anything:
/// `spf=fail at mx.example.org`.
fn failed_authentication(ctx: &Ctx<'_>, inc: &Incoming) -> Option<String> {
    let server = ctx.config.inbound.trust_authentication_results.trim();
    if server.is_empty() {
        return None;
    }
    let failed: Vec<String> = inc
        .authentication_results
        .iter()
        .filter(|r| r.server.eq_ignore_ascii_case(server))
        .filter(|r| matches!(r.method.as_str(), "spf" | "dkim" | "dmarc") && r.result == "fail")
        .map(|r| format!("{}=fail", r.method))
        .collect();
    if failed.is_empty() {
        None
    } else {
        Some(format!("{} at {server}", failed.join(", ")))
    }
}

/// Handles one mail, read by [`ingest::parse`] (the caller reads it first,
/// to know its sender).
pub(super) fn handle(
    ctx: &Ctx<'_>,
    raw: &[u8],
    parsed: Result<Incoming, ingest::IngestError>,
    now: DateTime<Utc>,
) -> Result<Handled, DaemonError> {
    let inc = match parsed {
        Ok(inc) => inc,
        Err(e) => {
            return Ok(receipt_only(
                fallback_id(raw),
                None,
                now,
                &format!("unreadable mail ignored: {e}"),
            ));
        }
    };
    let mid = inc.message_id.clone().unwrap_or_else(|| fallback_id(raw));
    if handled_before(ctx, &mid, raw, inc.message_id.is_some())? {
        return Ok(Handled {
            change: None,
            changed_game: false,
            summary: format!("{mid} already handled"),
        });
    }
    if let Some(reason) = &inc.auto_reply {
        return Ok(receipt_only(
            mid,
            inc.game.clone(),
            now,
            &format!("automatic mail not answered: {reason}"),
        ));
    }
    if let Some(failed) = failed_authentication(ctx, &inc) {
        return Ok(receipt_only(
            mid,
            inc.game.clone(),
            now,
            &format!("ignored, not answered: {failed}"),
        ));
    }
    let Some(from) = inc.from.clone() else {
        return Ok(receipt_only(
            mid,
            inc.game.clone(),
            now,
            "mail without a sender ignored",
        ));
    };
    if from.eq_ignore_ascii_case(&ctx.config.mail.address) {
        return Ok(receipt_only(mid, None, now, "our own mail ignored"));
    }
    let Some(game) = inc.game.clone() else {
        // Site commands (`new`, `join` …), else the short help.
        if let Some(done) = site::untagged(ctx, &inc, &mid, &from, now)? {
            return Ok(site_handled(done));
        }
        let reason = untagged_reason(ctx, &inc, &from)?;
        return help(ctx, &inc, mid, &from, &reason, now);
    };
    let id = GameId(game.to_ascii_lowercase());
    if let Some(forming) = ctx.store.forming(&id)? {
        // A seat's key or address used without the other: as in a game
        // that runs, refused, and the seat's owner alerted.
        if let Some((owners, why)) = forming_intruder(&forming, &inc, &from) {
            return intruder(ctx, &inc, mid, &id, owners, &from, &why, now);
        }
        let done = site::forming_mail(ctx, &inc, &mid, &from, forming, now)?;
        return Ok(site_handled(done));
    }
    let record = match ctx.store.record(&id) {
        Ok(r) => r,
        Err(StoreError::NoSuchGame(_)) => {
            if let Some(done) = site::untagged(ctx, &inc, &mid, &from, now)? {
                return Ok(site_handled(done));
            }
            return help(
                ctx,
                &inc,
                mid,
                &from,
                &format!("There is no game {game} here."),
                now,
            );
        }
        Err(e) => return Err(e.into()),
    };
    in_game(ctx, &inc, mid, &id, &record, &from, now)
}

/// A mail in the thread of game `id`, which runs: a moderator's with their
/// key, or a player's with theirs; a key or an address used by another is
/// an intruder's.
fn in_game(
    ctx: &Ctx<'_>,
    inc: &Incoming,
    mid: String,
    id: &GameId,
    record: &GameRecord,
    from: &str,
    now: DateTime<Utc>,
) -> Result<Handled, DaemonError> {
    let meta = ctx.store.meta(id)?;
    // A moderator with their key: every line is a moderator command.
    let mod_key = meta.moderator_tokens.get(&from.to_ascii_lowercase());
    if super::moderator::is_moderator(ctx, &meta, from)
        && let (Some(k), Some(t)) = (mod_key, &inc.token)
        && k.eq_ignore_ascii_case(t)
    {
        return moderate(ctx, inc, mid, id, from, now).and_then(|h| proved(ctx, from, h, now));
    }
    // A moderator's key from an address that is not that moderator's.
    if let Some(t) = &inc.token
        && let Some((owner, _)) = meta
            .moderator_tokens
            .iter()
            .find(|(addr, k)| k.eq_ignore_ascii_case(t) && !addr.eq_ignore_ascii_case(from))
    {
        let why = format!("the mail carried your moderator key but came from {from}");
        let owners = vec![Owner::moderator(id, owner)];
        return intruder(ctx, inc, mid, id, owners, from, &why, now);
    }
    let by_from = (0..record.setup.players.len())
        .map(|i| Seat(i as u8))
        .find(|s| meta.plays_from(record, *s, from));
    let by_token = inc
        .token
        .as_ref()
        .and_then(|t| {
            meta.tokens
                .iter()
                .position(|k| !k.is_empty() && k.eq_ignore_ascii_case(t))
        })
        .map(|i| Seat(i as u8));
    let seat = match (by_from, by_token) {
        (Some(a), Some(b)) if a == b => a,
        (Some(a), Some(b)) => {
            // A player's address with another player's key: both are told.
            let why = format!(
                "the mail came from the address of {} but carried the key of {}",
                record.setup.players[a.index()].name,
                record.setup.players[b.index()].name
            );
            let owners = vec![
                Owner::player(ctx, id, a, false)?,
                Owner::player(ctx, id, b, true)?,
            ];
            return intruder(ctx, inc, mid, id, owners, from, &why, now);
        }
        (Some(a), None) => {
            let why = if inc.token.is_none() {
                "the mail carried no key (it was not a reply to a mail from the game)"
            } else {
                "the mail carried a wrong key"
            };
            let owners = vec![Owner::player(ctx, id, a, false)?];
            return intruder(ctx, inc, mid, id, owners, from, why, now);
        }
        (None, Some(b)) => {
            let why =
                format!("the mail carried your key but came from {from}, not from your address");
            let owners = vec![Owner::player(ctx, id, b, true)?];
            return intruder(ctx, inc, mid, id, owners, from, &why, now);
        }
        (None, None) => {
            // `join` in reply to an invitation of a game that has started.
            if let Some(done) = site::untagged(ctx, inc, &mid, from, now)? {
                return Ok(site_handled(done));
            }
            return help(
                ctx,
                inc,
                mid,
                from,
                &format!("You do not play in {id}."),
                now,
            );
        }
    };
    authenticated(ctx, inc, mid, id, seat, now).and_then(|h| proved(ctx, from, h, now))
}

/// A mail with its key proves its sender: from then on it has asked for
/// mail from us (see [`site::standing`]).
fn proved(
    ctx: &Ctx<'_>,
    from: &str,
    mut handled: Handled,
    now: DateTime<Utc>,
) -> Result<Handled, DaemonError> {
    let Some(change) = &mut handled.change else {
        return Ok(handled);
    };
    match change
        .contacts
        .iter_mut()
        .find(|(a, _)| a.eq_ignore_ascii_case(from))
    {
        Some((_, contact)) => {
            contact.proved.get_or_insert(now);
        }
        None => {
            let mut contact = ctx.store.contact(from)?;
            if contact.proved.is_none() {
                contact.proved = Some(now);
                change.contacts.push((from.to_ascii_lowercase(), contact));
            }
        }
    }
    Ok(handled)
}

/// Whom a mail in forming game `f`'s thread wrongs, and why, if it uses
/// a seat's key from another address, or a seat's address with a wrong
/// key or none: the same cases as in a running game.
fn forming_intruder(
    f: &crate::store::Forming,
    inc: &Incoming,
    from: &str,
) -> Option<(Vec<Owner>, String)> {
    let owner = |i: usize, key_used: bool| {
        let s = &f.seats[i];
        Owner {
            name: s.name.clone(),
            email: s.address.clone(),
            moderator: false,
            key_used,
            rate_key: format!("alert:{}:forming:{}", f.id.0, s.address),
        }
    };
    let by_from = f.seat_of(from);
    let by_key = inc
        .token
        .as_ref()
        .and_then(|t| f.seats.iter().position(|s| s.key.eq_ignore_ascii_case(t)));
    match (by_from, by_key) {
        (Some(a), Some(b)) if a == b => None,
        (Some(a), Some(b)) => Some((
            vec![owner(a, false), owner(b, true)],
            format!(
                "the mail came from the address of {} but carried the key of {}",
                f.seats[a].name, f.seats[b].name
            ),
        )),
        (Some(a), None) => Some((
            vec![owner(a, false)],
            if inc.token.is_none() {
                "the mail carried no key (it was not a reply to a mail from the game)"
            } else {
                "the mail carried a wrong key"
            }
            .to_string(),
        )),
        (None, Some(b)) => Some((
            vec![owner(b, true)],
            format!("the mail carried your key but came from {from}, not from your address"),
        )),
        (None, None) => None,
    }
}

/// What the site commands of a mail came to, as the daemon handles it.
fn site_handled(done: site::Outcome) -> Handled {
    Handled {
        change: Some(done.change),
        changed_game: done.started,
        summary: done.summary,
    }
}

#[derive(Serialize)]
struct HelpContext<'a> {
    address: &'a str,
    reason: &'a str,
    games: Vec<String>,
    /// A subject tag as the player's mails carry one, for the example:
    /// `[rocket-1 k7p2xq9m3a]`.
    example_tag: String,
    /// The site commands (`new`, `join` …), each with what it does.
    site_commands: Vec<SiteForm>,
    /// The games this server runs, by name.
    kinds: String,
    /// The kind of the sender's first game, else the first kind, for the example.
    example_kind: &'static str,
    /// What a player may write in a game's thread besides orders.
    player_commands: Vec<&'static str>,
    /// To an address not proved, its one mail: how to go on.
    first: Option<String>,
}

/// One site command for the help reply.
#[derive(Serialize)]
struct SiteForm {
    form: &'static str,
    what: &'static str,
}

/// Why a mail without a game's tag is answered with the help: where its
/// subject names a game its sender plays in, that its orders were not
/// read and how to send them.
fn untagged_reason(ctx: &Ctx<'_>, inc: &Incoming, from: &str) -> Result<String, DaemonError> {
    let subject = inc.subject.to_ascii_lowercase();
    let named = ctx.store.games_of(from)?.into_iter().find(|id| {
        subject
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .any(|word| word == id.0)
    });
    Ok(match named {
        Some(id) => format!(
            "Your mail names {id} but does not carry its tag, so nothing in it was read \
             or applied. To send orders, reply to your latest mail from {id}: its \
             subject carries the tag, [{id} …] with your key."
        ),
        None => "Your mail named no game.".to_string(),
    })
}

/// The short help reply: at most one per address per interval, and to an
/// address not proved only its one mail, with a code (see
/// [`site::standing`]).
fn help(
    ctx: &Ctx<'_>,
    inc: &Incoming,
    mid: String,
    from: &str,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<Handled, DaemonError> {
    let mut contact = ctx.store.contact(from)?;
    let first = match site::standing(ctx, inc, from, &contact, now)? {
        site::Standing::Silent(why) => {
            tracing::warn!(%from, "not answered: {why}");
            return Ok(receipt_only(
                mid,
                inc.game.clone(),
                now,
                &format!("{reason} Not answered: {why}"),
            ));
        }
        site::Standing::First => true,
        // (A proving mail goes to the site commands.)
        _ => false,
    };
    let interval = chrono::Duration::hours(ctx.config.daemon.help_interval_hours as i64);
    if !first
        && let Some(last) = ctx.store.help_sent(from)?
        && now - last < interval
    {
        return Ok(receipt_only(
            mid,
            inc.game.clone(),
            now,
            &format!("{reason} Help already sent to {from} lately"),
        ));
    }
    if ctx.store.hourly_count(unasked::HOURLY, now)? >= u64::from(ctx.config.limits.help_per_hour) {
        tracing::warn!(%from, "help reply not sent: [limits] help_per_hour reached");
        return Ok(receipt_only(
            mid,
            inc.game.clone(),
            now,
            &format!("{reason} Not answered: the help replies of this hour are used up"),
        ));
    }
    let code = if first {
        Some(site::first_mail(&mut contact, Vec::new(), now)?)
    } else {
        None
    };
    // From the address index: no game is read.
    let games: Vec<String> = ctx
        .store
        .games_of(from)?
        .into_iter()
        .map(|id| id.0)
        .collect();
    let example = example_kind(&games);
    let text = ctx.templates.render(
        "help.txt",
        &HelpContext {
            address: &ctx.config.mail.address,
            reason,
            games,
            example_tag: format!("[{example}-1 k7p2xq9m3a]"),
            site_commands: site::FORMS
                .iter()
                .map(|(form, what)| SiteForm { form, what })
                .collect(),
            kinds: crate::registry::names(),
            example_kind: example,
            player_commands: commands::COMMANDS
                .iter()
                .map(|(form, _)| *form)
                .filter(|f| !matches!(*f, "?" | "report" | "status") && !f.starts_with("log"))
                .collect(),
            first: code.as_deref().map(|c| site::first_mail_note(ctx, from, c)),
        },
    )?;
    let subject = subject_or(inc, "your mail");
    let subject = match &code {
        Some(c) => site::first_mail_subject(&subject, c),
        None => report::reply_subject(&subject),
    };
    let mail = answer(ctx, inc, from, subject, text, now)?;
    let mut handled = receipt_only(
        mid,
        inc.game.clone(),
        now,
        &format!("{reason} Help sent to {from}"),
    );
    if let Some(change) = &mut handled.change {
        change.outbox.push(mail);
        if code.is_some() {
            change.contacts.push((from.to_ascii_lowercase(), contact));
        } else {
            change.help_sent.push((from.to_string(), now));
        }
        change.tally.push((unasked::HOURLY.to_string(), now));
    }
    Ok(handled)
}

fn subject_or(inc: &Incoming, default: &str) -> String {
    if inc.subject.trim().is_empty() {
        default.to_string()
    } else {
        inc.subject.trim().to_string()
    }
}

/// A plain text reply to `to`, threaded under the mail.
fn answer(
    ctx: &Ctx<'_>,
    inc: &Incoming,
    to: &str,
    subject: String,
    text: String,
    now: DateTime<Utc>,
) -> Result<crate::mail::OutMail, DaemonError> {
    let mut references = inc.references.clone();
    if let Some(m) = &inc.message_id {
        references.push(m.clone());
    }
    let draft = Draft {
        to: to.to_string(),
        subject,
        html: Some(report::notice_html(ctx, &text, None)?),
        text,
        in_reply_to: inc.message_id.clone(),
        references,
        ..Draft::default()
    };
    crate::service::compose_mail(ctx, "stationmaster", "reply", &draft, now)
}

#[derive(Serialize)]
struct IntruderContext<'a> {
    player: &'a str,
    email: &'a str,
    game: &'a str,
    from: &'a str,
    subject: &'a str,
    message_id: &'a str,
    why: &'a str,
    moderator: bool,
    key_used: bool,
    attempted: &'a [String],
}

/// The owner of a key (or of an address) that a mail used without right:
/// whom to alert, and the rate limit's key.
struct Owner {
    /// Their name in the game (a moderator: their address).
    name: String,
    /// Where the alert goes.
    email: String,
    /// True for a moderator's key.
    moderator: bool,
    /// The mail carried their key (from another address); else it came
    /// from their address without it, and their key is safe.
    key_used: bool,
    /// One alert per this key per `[limits] alert_interval_hours`.
    rate_key: String,
}

impl Owner {
    fn player(
        ctx: &Ctx<'_>,
        id: &GameId,
        seat: Seat,
        key_used: bool,
    ) -> Result<Owner, DaemonError> {
        let record = ctx.store.record(id)?;
        let meta = ctx.store.meta(id)?;
        Ok(Owner {
            name: record.setup.players[seat.index()].name.clone(),
            email: meta.address(&record, seat).to_string(),
            moderator: false,
            key_used,
            rate_key: format!("alert:{}:seat:{}", id.0, seat.0),
        })
    }

    fn moderator(id: &GameId, address: &str) -> Owner {
        Owner {
            name: address.to_string(),
            email: address.to_string(),
            moderator: true,
            key_used: true,
            rate_key: format!("alert:{}:moderator:{}", id.0, address.to_ascii_lowercase()),
        }
    }
}

/// The most lines of an intruder's mail quoted in an alert.
const ALERT_LINES: usize = 20;

/// A mail tried to act with a key or an address that is not its own:
/// nothing changes, and each owner in `owners` is alerted with what was
/// attempted, at most once per key per `[limits] alert_interval_hours` and
/// within `alerts_per_hour` in all (over either, it is only logged).
#[allow(clippy::too_many_arguments)]
fn intruder(
    ctx: &Ctx<'_>,
    inc: &Incoming,
    mid: String,
    id: &GameId,
    owners: Vec<Owner>,
    from: &str,
    why: &str,
    now: DateTime<Utc>,
) -> Result<Handled, DaemonError> {
    let who: Vec<&str> = owners.iter().map(|o| o.name.as_str()).collect();
    let outcome = format!("refused: {why} (as {})", who.join(", "));
    let mut handled = receipt_only(mid.clone(), Some(id.0.clone()), now, &outcome);
    let limits = &ctx.config.limits;
    let interval = chrono::Duration::hours(limits.alert_interval_hours as i64);
    let attempted: Vec<String> = inc.body.iter().take(ALERT_LINES).cloned().collect();
    let mut sent_this_hour = ctx.store.hourly_count("alert", now)?;
    for owner in owners {
        if let Some(last) = ctx.store.help_sent(&owner.rate_key)?
            && now - last < interval
        {
            continue;
        }
        if sent_this_hour >= u64::from(limits.alerts_per_hour) {
            tracing::warn!(game = %id, to = %owner.email, "alert not sent: [limits] alerts_per_hour reached");
            continue;
        }
        let text = ctx.templates.render(
            "intruder.txt",
            &IntruderContext {
                player: &owner.name,
                email: &owner.email,
                game: &id.0,
                from,
                subject: &inc.subject,
                message_id: &mid,
                why,
                moderator: owner.moderator,
                key_used: owner.key_used,
                attempted: &attempted,
            },
        )?;
        let subject = if owner.moderator {
            format!("[{id}] Someone used your moderator key")
        } else {
            format!("[{id}] Someone tried to give orders as you")
        };
        let draft = Draft {
            to_name: if owner.moderator {
                String::new()
            } else {
                owner.name.clone()
            },
            to: owner.email.clone(),
            subject,
            html: Some(report::notice_html(ctx, &text, None)?),
            text,
            ..Draft::default()
        };
        let mail = crate::service::compose_mail(ctx, &id.0, "alert", &draft, now)?;
        if let Some(change) = &mut handled.change {
            change.outbox.push(mail);
            change.help_sent.push((owner.rate_key.clone(), now));
            change.tally.push(("alert".to_string(), now));
        }
        sent_this_hour += 1;
    }
    Ok(handled)
}

/// A mail from a player with the right key: commands and orders.
fn authenticated(
    ctx: &Ctx<'_>,
    inc: &Incoming,
    mid: String,
    id: &GameId,
    seat: Seat,
    now: DateTime<Utc>,
) -> Result<Handled, DaemonError> {
    let stored = Stored::load(ctx, id)?;
    let mut mail = PlayerMail::new(ctx, inc, mid, id, seat, &stored, now)?;
    if let Some((line, why)) = mail.declare_absence() {
        return mail.absence_refused(line, why);
    }
    mail.answer_commands()?;
    let talked = mail.talk()?;
    mail.explain(&talked.notes);
    let not_taken = mail.stop();
    mail.choose()?;
    if mail.read.wants.contains(&Command::Takeback) {
        return mail.take_back(talked);
    }
    if !mail.read.orders.is_empty() || !mail.absence_notes.is_empty() {
        return mail.apply(talked, None);
    }
    let outcome = format!(
        "{}: {}",
        mail.name,
        not_taken.unwrap_or("commands answered")
    );
    mail.answer(talked, outcome)
}

/// The receipt of a mail in game `id` that came to `outcome`.
fn receipt(id: &GameId, outcome: &str, now: DateTime<Utc>) -> Receipt {
    Receipt {
        at: now,
        game: Some(id.0.clone()),
        outcome: outcome.to_string(),
    }
}

/// A player's mail, read: its lines sorted into orders and each kind of
/// command.
#[derive(Default)]
struct Read {
    /// The orders.
    orders: Vec<String>,
    /// The commands answered in the reply (`help`, `history`, `leave` …).
    wants: Vec<Command>,
    /// `history FROM-TO`: the turns asked for.
    history_turns: Option<(u32, u32)>,
    /// `moves [WHAT]`, each line's word after `moves`, if any.
    moves: Vec<Option<String>>,
    /// `stats [WHO]`, each line's words after `stats`, if any.
    stats: Vec<Option<String>>,
    /// `away DATE to DATE` and `back`, echoed with the orders.
    absence: Vec<String>,
    /// `say` and `tell`: table talk.
    talk: Vec<String>,
    /// `reports MODE`.
    reports: Vec<String>,
    /// `address add|remove ADDRESS`.
    address: Vec<String>,
    /// The commands read (but `away` and `back`, echoed with the orders),
    /// echoed under "Your mail" in the reply.
    commands: Vec<String>,
    /// Greetings and sign-offs are not orders: left out, and shown.
    not_orders: Vec<String>,
    /// Lines that begin with a likely typo of a keyword, and what was
    /// meant: read as orders, and refused with a hint.
    typos: Vec<(String, String)>,
}

impl Read {
    /// The lines of `body`, read with the words of `game`'s orders and the
    /// players' commands.
    fn of(game: &dyn AnyGame, body: &[String]) -> Read {
        let vocabulary = commands::player_vocabulary(game);
        let mut read = Read::default();
        for line in body {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            // `1. extend GWR C14` is read without its list marker.
            let (reading, line) = vocabulary.read_item(line);
            match reading {
                Reading::Chatter => {
                    read.not_orders.push(line.to_string());
                    continue;
                }
                Reading::Typo(meant) => read.typos.push((line.to_string(), meant)),
                Reading::Order => {}
            }
            read.line(line);
        }
        read
    }

    /// One line that is an order or a command.
    fn line(&mut self, line: &str) {
        let command = commands::command(line);
        let absence = |c: Command| matches!(c, Command::Away | Command::Back | Command::Autopilot);
        if command.is_some_and(|c| !absence(c)) {
            self.commands.push(line.to_string());
        }
        match command {
            Some(c) if absence(c) => self.absence.push(line.to_string()),
            Some(Command::Say | Command::Tell) => self.talk.push(line.to_string()),
            Some(Command::Reports) => self.reports.push(line.to_string()),
            Some(Command::Address) => self.address.push(line.to_string()),
            Some(Command::History) => {
                self.wants.push(Command::History);
                if let Some(r) = line.split_whitespace().nth(1) {
                    self.history_turns = crate::local::parse_turns(r).ok();
                }
            }
            Some(Command::Moves) => {
                self.wants.push(Command::Moves);
                self.moves
                    .push(line.split_whitespace().nth(1).map(str::to_string));
            }
            Some(Command::Stats) => {
                self.wants.push(Command::Stats);
                let who: Vec<&str> = line.split_whitespace().skip(1).collect();
                self.stats.push((!who.is_empty()).then(|| who.join(" ")));
            }
            Some(c) => self.wants.push(c),
            None => self.orders.push(line.to_string()),
        }
    }

    /// True if the mail had neither orders nor commands.
    fn is_empty(&self) -> bool {
        self.orders.is_empty()
            && self.wants.is_empty()
            && self.absence.is_empty()
            && self.talk.is_empty()
            && self.reports.is_empty()
            && self.address.is_empty()
    }
}

/// A player's mail with their key, under way: the game as stored, what
/// the mail says, what it changes, and the answer as it grows.
struct PlayerMail<'a, 'c> {
    ctx: &'a Ctx<'c>,
    inc: &'a Incoming,
    /// Its Message-ID (or the stand-in).
    mid: String,
    id: &'a GameId,
    /// The sender's seat.
    seat: Seat,
    /// Their name.
    name: String,
    now: DateTime<Utc>,
    /// The game as stored.
    stored: &'a Stored,
    /// How the game ended, if it is over.
    ended: Option<report::Ended>,
    /// The mail's lines, sorted.
    read: Read,
    /// The bookkeeping as the mail changes it.
    meta: GameMeta,
    /// What every player is told of the absence declared.
    absence_notes: Vec<(Seat, String)>,
    /// The reply section so far.
    section: ReplySection,
    /// What the sender asked for besides (help, history), and the address
    /// answered.
    asked: MailContext,
    /// The mail answered and its references.
    thread: (String, Vec<String>),
    /// What `address` lines change besides the bookkeeping.
    address_change: Change,
}

impl<'a, 'c> PlayerMail<'a, 'c> {
    fn new(
        ctx: &'a Ctx<'c>,
        inc: &'a Incoming,
        mid: String,
        id: &'a GameId,
        seat: Seat,
        stored: &'a Stored,
        now: DateTime<Utc>,
    ) -> Result<PlayerMail<'a, 'c>, DaemonError> {
        let game = &*stored.loaded.game;
        let mut references = inc.references.clone();
        let parent = inc.message_id.clone().unwrap_or_else(|| mid.clone());
        references.retain(|r| *r != parent);
        let read = Read::of(game, &inc.body);
        Ok(PlayerMail {
            name: stored.loaded.record.setup.players[seat.index()]
                .name
                .clone(),
            ended: report::ended(ctx.store, id, &stored.meta, game)?,
            meta: stored.meta.clone(),
            absence_notes: Vec::new(),
            section: ReplySection {
                subject: inc.subject.clone(),
                not_orders: read.not_orders.clone(),
                ..ReplySection::default()
            },
            // The answer goes back to the address the mail came from (a
            // second address confirmed with `address add`, or the seat's
            // own).
            asked: MailContext {
                to: inc.from.clone(),
                ..MailContext::default()
            },
            thread: (parent, references),
            address_change: Change::default(),
            read,
            ctx,
            inc,
            mid,
            id,
            seat,
            now,
            stored,
        })
    }

    fn record(&self) -> &GameRecord {
        &self.stored.loaded.record
    }

    /// Absence: `away DATE to DATE` holds the player's deadlines; `back`
    /// ends it. Everyone is told. The line refused, and why, if one is.
    fn declare_absence(&mut self) -> Option<(String, String)> {
        let (seat, now, players) = (self.seat, self.now, self.record().setup.players.len());
        let absence = &self.read.absence;
        // A player has one absence at a time: a second line would silently
        // undo the first.
        if let [_, second, ..] = absence.as_slice() {
            let autopilot = absence
                .iter()
                .any(|l| commands::command(l) == Some(Command::Autopilot));
            let which = if autopilot {
                "`away`, `back` or `autopilot`"
            } else {
                "`away` or `back`"
            };
            let why = format!(
                "one {which} a mail: this one has {}; send the one you mean",
                absence.len()
            );
            return Some((second.clone(), why));
        }
        let line = absence.first()?.clone();
        if commands::command(&line) == Some(Command::Autopilot) {
            return self.autopilot(line);
        }
        if line.eq_ignore_ascii_case("back") {
            self.meta.clock.back(seat, now);
            for s in 0..players {
                self.absence_notes.push((
                    Seat(s as u8),
                    format!("{} is back; their deadlines run as usual.", self.name),
                ));
            }
            return None;
        }
        match crate::clock::parse_away(&self.meta.clock.settings, &line, now) {
            Ok(a) => {
                let text = self.meta.clock.away(seat, &self.name, a, now);
                for s in 0..players {
                    self.absence_notes.push((Seat(s as u8), text.clone()));
                }
                None
            }
            Err(why) => Some((line, why)),
        }
    }

    /// `autopilot on|off`: the bot plays the player's turns until they send
    /// orders, or no longer. Everyone is told. The line refused, and why,
    /// if it is.
    fn autopilot(&mut self, line: String) -> Option<(String, String)> {
        let (seat, now, players) = (self.seat, self.now, self.record().setup.players.len());
        let word = line.split_whitespace().nth(1).map(str::to_ascii_lowercase);
        let text = match word.as_deref() {
            Some("on") => {
                if self.meta.on_autopilot(seat) {
                    return Some((line, "your autopilot is on already".to_string()));
                }
                self.meta.set_autopilot(seat, true);
                format!(
                    "{} has the bot play their turns (autopilot), until they send orders.",
                    self.name
                )
            }
            Some("off") => {
                let away =
                    self.meta.clock.bot_away(seat, now) && self.meta.clock.bot_away_ends(seat);
                if !self.meta.on_autopilot(seat) && !away {
                    return Some((line, "the bot is not playing for you".to_string()));
                }
                self.meta.set_autopilot(seat, false);
                format!(
                    "{} plays their own turns again: the bot stopped.",
                    self.name
                )
            }
            _ => return Some((line, "write `autopilot on` or `autopilot off`".to_string())),
        };
        for s in 0..players {
            self.absence_notes.push((Seat(s as u8), text.clone()));
        }
        None
    }

    /// The answer to a refused `away` or `back`, which changes nothing,
    /// orders included.
    fn absence_refused(self, line: String, why: String) -> Result<Handled, DaemonError> {
        let (ctx, id, stored) = (self.ctx, self.id, self.stored);
        let game = &*stored.loaded.game;
        let section = ReplySection {
            subject: self.inc.subject.clone(),
            understood: vec![line.clone()],
            refused: true,
            refused_line_no: 1,
            refused_line: line,
            refused_why: why,
            not_orders: self.read.not_orders,
            ..ReplySection::default()
        };
        let mail = MailContext {
            reply: Some(section),
            to: self.inc.from.clone(),
            ..MailContext::default()
        };
        let thread = (
            self.inc
                .message_id
                .clone()
                .unwrap_or_else(|| self.mid.clone()),
            self.inc.references.clone(),
        );
        let out = report::player_mail(
            ctx,
            id,
            &stored.loaded.record,
            &stored.meta,
            game,
            &report::Board::new(ctx, game, &[]),
            self.seat,
            mail,
            Some(thread),
            self.now,
        )?;
        let receipt = Receipt {
            at: self.now,
            game: Some(id.0.clone()),
            outcome: format!("{}: absence refused", self.name),
        };
        Ok(Handled {
            change: Some(Change {
                outbox: vec![out],
                receipt: Some((self.mid, receipt.clone())),
                ..Change::default()
            }),
            changed_game: false,
            summary: receipt.outcome,
        })
    }

    /// `leave`, `help`, `moves`, `stats` and `history`, answered in the
    /// reply.
    fn answer_commands(&mut self) -> Result<(), DaemonError> {
        self.answer_stats()?;
        let (ctx, id, game) = (self.ctx, self.id, &*self.stored.loaded.game);
        let wants = &self.read.wants;
        if wants.contains(&Command::Leave) {
            self.section.notes.push(leave_note(ctx, id, &self.meta));
        }
        if wants.contains(&Command::Help) {
            self.asked.help = Some(format!(
                "{}\n{}",
                game.help().trim_end(),
                commands::commands_help()
            ));
        }
        // Listed in the reply as the game stands after the mail's orders.
        self.asked.moves_asked = self.read.moves.clone();
        if self.read.wants.contains(&Command::History) {
            let turns = self.read.history_turns;
            let entries: Vec<_> = ctx
                .store
                .log(id)?
                .into_iter()
                .filter(|e| turns.is_none_or(|(a, b)| e.turn >= a && e.turn <= b))
                .collect();
            // A moderator who plays sees every message, as moderators do.
            let address = self.meta.address(self.record(), self.seat);
            let viewer = if super::moderator::is_moderator(ctx, &self.meta, address) {
                crate::engine::Viewer::Moderator
            } else {
                crate::engine::Viewer::Player(self.seat)
            };
            self.asked.history =
                Some(report::history_lines(game, &entries, viewer).map_err(StoreError::from)?);
        }
        Ok(())
    }

    /// `stats [WHO]`, each answered in the reply: the record of the seat's
    /// address (whichever the mail came from), or another's public
    /// figures, or why not; what a rating is, once, under them.
    fn answer_stats(&mut self) -> Result<(), DaemonError> {
        let own = self.meta.address(self.record(), self.seat).to_string();
        let mut shown = false;
        for who in &self.read.stats {
            let note = match who.as_deref() {
                Some(w) if w.split_whitespace().count() > 1 => format!(
                    "`stats {w}`: write `stats` for your own record, or `stats ADDRESS` or `stats NAME` for another's."
                ),
                _ => match records::stats_text(self.ctx.store, &own, who.as_deref())? {
                    Ok(text) => {
                        shown = true;
                        text
                    }
                    Err(why) => format!("`stats {}`: {why}.", who.as_deref().unwrap_or_default()),
                },
            };
            self.section.notes.push(note);
        }
        if shown {
            self.section.notes.push(records::RATING_KEY.to_string());
        }
        Ok(())
    }

    /// Table talk goes out at once, whatever becomes of the orders.
    fn talk(&self) -> Result<Talked, DaemonError> {
        if self.read.talk.is_empty() {
            return Ok(Talked::default());
        }
        if let Some(ended) = &self.ended {
            return Ok(Talked {
                notes: vec![format!(
                    "Not sent: {}.",
                    ended.refusal(self.id, &self.meta.clock.settings)
                )],
                ..Default::default()
            });
        }
        crate::service::talk::talk(
            self.ctx,
            self.id,
            self.record(),
            &self.stored.meta,
            &*self.stored.loaded.game,
            self.seat,
            &self.read.talk,
            &Actor::Mail(self.mid.clone()),
            self.now,
        )
    }

    /// Notes on how the mail was read: one with no orders in it (and where
    /// they may have been), one too long, and what became of the talk.
    fn explain(&mut self, talk_notes: &[String]) {
        let notes = &mut self.section.notes;
        if self.read.is_empty() {
            notes.push("Your mail had no orders in it; here is your report.".to_string());
            // Where the orders may have been, and how to send them.
            if self.inc.forwarded {
                notes.push(
                    "A forwarded message is not read, whoever wrote it: write your orders in \
                     your own mail, above what you forward, or reply to a mail from the game."
                        .to_string(),
                );
            }
            if self.inc.attachments > 0 {
                notes.push(
                    "Attachments are not read: write your orders in the text of your mail, \
                     one a line."
                        .to_string(),
                );
            }
        }
        if self.inc.truncated {
            notes.push("Your mail was very long; only its beginning was read.".to_string());
        }
        notes.extend(talk_notes.iter().cloned());
    }

    /// A game that is over or paused takes no orders and no absence: they
    /// are echoed, and the player told why. The operator's log's words for
    /// it, if so.
    fn stop(&mut self) -> Option<&'static str> {
        let (why, logged) = if let Some(ended) = &self.ended {
            (
                format!(
                    "Nothing was applied. {}.",
                    ended.refusal(self.id, &self.meta.clock.settings)
                ),
                "orders refused: the game is over",
            )
        } else if self.meta.paused.is_some() {
            (
                "A moderator has paused this game: orders are not taken until it resumes. Send them again then.".to_string(),
                "orders refused: the game is paused",
            )
        } else {
            return None;
        };
        if self.read.orders.is_empty() && self.absence_notes.is_empty() {
            return None;
        }
        self.section.notes.push(why);
        self.section.understood = std::mem::take(&mut self.read.orders);
        self.absence_notes.clear();
        self.meta = self.stored.meta.clone();
        Some(logged)
    }

    /// `reports MODE` and `address …`: stored with whatever else the mail
    /// changes.
    fn choose(&mut self) -> Result<(), DaemonError> {
        for line in &self.read.reports {
            let word = line.split_whitespace().nth(1).unwrap_or_default();
            match crate::store::ReportMode::parse(word) {
                Ok(mode) => {
                    self.meta.set_reports(self.seat, mode);
                    self.section.notes.push(format!(
                        "From now on you get `reports {}`: {}.",
                        mode.name(),
                        mode.describe()
                    ));
                }
                Err(why) => self.section.notes.push(format!("Not done: {why}.")),
            }
        }
        for line in &self.read.address {
            let note = site::address_command(
                self.ctx,
                self.id,
                &self.stored.loaded.record,
                &mut self.meta,
                self.seat,
                line,
                &mut self.address_change,
                self.now,
            )?;
            self.section.notes.push(note);
        }
        Ok(())
    }

    /// `takeback`: the sender's last mail's orders taken back, and this
    /// mail's orders applied to the game as it stood before that mail;
    /// or, refused, nothing of the mail applied and the sender told why.
    fn take_back(mut self, talked: Talked) -> Result<Handled, DaemonError> {
        let (ctx, id, now) = (self.ctx, self.id, self.now);
        let why = if let Some(ended) = &self.ended {
            ended.refusal(id, &self.meta.clock.settings)
        } else if self.meta.paused.is_some() {
            "a moderator has paused this game".to_string()
        } else {
            let from = Actor::Mail(self.mid.clone());
            match takeback::take_back(ctx, id, self.stored, self.seat, &from, now)? {
                Ok(back) => return self.apply(talked, Some(back)),
                Err(why) => why,
            }
        };
        let mut note = format!("`takeback` was not done: {why}.");
        if !self.read.orders.is_empty() || !self.absence_notes.is_empty() {
            // Written for the game as it stood before the last mail.
            note.push_str(" Nothing else in your mail was applied either.");
            self.section.understood = std::mem::take(&mut self.read.orders);
            self.absence_notes.clear();
            self.meta = self.stored.meta.clone();
        }
        self.section.notes.push(note);
        let outcome = format!("{}: takeback refused", self.name);
        self.answer(talked, outcome)
    }

    /// The orders (and the absence) through [`pipeline::apply`], after
    /// the last mail's orders `back` took back, if any; the answer in the
    /// sender's report; or, refused, the refusal answered.
    fn apply(mut self, talked: Talked, back: Option<TakenBack>) -> Result<Handled, DaemonError> {
        let (ctx, id, now) = (self.ctx, self.id, self.now);
        let mut understood = self.read.absence.clone();
        understood.extend(self.read.commands.iter().cloned());
        let mut notes = self.absence_notes.clone();
        if let Some(dropped) = back.as_ref().map(|b| &b.dropped).filter(|d| !d.is_empty()) {
            let lines: Vec<String> = dropped.iter().map(|l| format!("`{l}`")).collect();
            notes.push((
                self.seat,
                format!(
                    "Your waiting orders were taken back with them: {}.",
                    lines.join(", ")
                ),
            ));
        }
        let reply = pipeline::Reply {
            seat: self.seat,
            section: self.section.clone(),
            asked: self.asked.clone(),
            thread: self.thread.clone(),
            understood,
            applied: !self.absence_notes.is_empty() || back.is_some(),
        };
        let (stored, act, meta) = match back {
            Some(b) => (
                Some(b.stored),
                Some(b.entry),
                takeback::without_waiting(&self.meta, self.seat),
            ),
            None => (None, None, self.meta.clone()),
        };
        let options = pipeline::Options {
            notes,
            act,
            then: talked.entries.clone(),
            reply: Some(&reply),
            with: Change {
                tally: talked.tally.clone(),
                ..Change::default()
            },
            ..pipeline::Options::default()
        };
        let input = pipeline::Input::Lines {
            seat: self.seat,
            lines: &self.read.orders,
            meta,
        };
        let actor = Actor::Mail(self.mid.clone());
        let stored = stored.as_ref().unwrap_or(self.stored);
        let applied = match pipeline::apply(ctx, id, stored, input, actor, options, now)? {
            Ok(applied) => applied,
            Err(rejected) => {
                let outcome = self.refused(&rejected);
                return self.answer(talked, outcome);
            }
        };
        let mut change = applied.change;
        change.outbox.extend(talked.outbox);
        change.absorb_bookkeeping(&mut self.address_change);
        let outcome = format!(
            "{}: {} order(s) applied, {} held",
            self.name,
            applied.batch.applied.len(),
            applied.batch.held.len()
        );
        let changed_game = change
            .update
            .as_ref()
            .is_some_and(|u| !u.entries.is_empty());
        change.receipt = Some((self.mid, receipt(id, &outcome, now)));
        Ok(Handled {
            change: Some(change),
            changed_game,
            summary: outcome,
        })
    }

    /// The refused line in the reply section, with why (and the word it
    /// may have meant); the operator's log's words.
    fn refused(&mut self, rejected: &BatchRejected) -> String {
        let section = &mut self.section;
        section.understood = self.read.orders.clone();
        section.refused = true;
        section.refused_line_no = rejected.line_no;
        let (line, mut why) = match &rejected.rejected {
            OrderRejected::Parse(e) => {
                let mut why = e.message.clone();
                if !e.expected.is_empty() {
                    why.push_str(&format!(" (expected {})", e.expected.join(", ")));
                }
                (e.line.clone(), why)
            }
            OrderRejected::Rule { line, error } => {
                (line.clone(), format!("{} ({})", error.message, error.rule))
            }
        };
        if let Some((_, meant)) = self.read.typos.iter().find(|(l, _)| *l == line) {
            why.push_str(&format!("; did you mean `{meant}`?"));
        }
        section.refused_line = line;
        section.refused_why = why;
        format!("{}: refused line {}", self.name, rejected.line_no)
    }

    /// The answer to a mail that changed nothing of the game (commands, a
    /// refusal): the reply with the game as it stands, and the messages and
    /// the player's choices stored.
    fn answer(mut self, talked: Talked, mut outcome: String) -> Result<Handled, DaemonError> {
        let (ctx, id, game) = (self.ctx, self.id, &*self.stored.loaded.game);
        if !self.section.refused {
            self.section.understood.extend(self.read.commands);
        }
        // Orders refused are orders sent: the bot stops playing for them
        // all the same (issue 36), which they are told here.
        let mut stopped = self.stored.meta.clone();
        let names = (
            self.name.as_str(),
            self.stored.loaded.record.setup.players.len(),
        );
        let back = if self.read.orders.is_empty() || self.stored.meta.is_bot(self.seat) {
            Vec::new()
        } else {
            crate::service::bots::player_is_back(&mut stopped, self.seat, names, self.now)
        };
        self.asked.notes.extend(
            back.iter()
                .filter(|(s, _)| *s == self.seat)
                .map(|(_, t)| t.clone()),
        );
        self.asked.reply = Some(self.section);
        let out = report::player_mail(
            ctx,
            id,
            &self.stored.loaded.record,
            &self.meta,
            game,
            &report::Board::new(ctx, game, &[]),
            self.seat,
            self.asked,
            Some(self.thread),
            self.now,
        )?;
        let mut change = Change {
            tally: talked.tally,
            outbox: vec![out],
            ..Change::default()
        };
        change.absorb_bookkeeping(&mut self.address_change);
        let stored = &self.stored.meta;
        let chose_reports = self.meta.report_modes != stored.report_modes
            || self.meta.other_addresses != stored.other_addresses;
        if !talked.entries.is_empty() || chose_reports || !back.is_empty() {
            // Only the log grows (the messages) and the player's choice of
            // reports is kept, and the bot stopped; nothing of the game
            // changes.
            let mut kept = stored.clone();
            kept.report_modes = self.meta.report_modes.clone();
            kept.other_addresses = self.meta.other_addresses.clone();
            kept.autopilot = stopped.autopilot;
            kept.clock.away = stopped.clock.away;
            // Table talk ends nothing (a finished game's archive is written).
            let mut update = pipeline::meta_update(id, &self.stored.loaded, kept)?;
            for entry in talked.entries {
                update.push(entry);
            }
            change.update = Some(update);
            if !talked.outbox.is_empty() {
                change.outbox.extend(talked.outbox);
                outcome.push_str("; table talk sent");
            }
        }
        change.receipt = Some((self.mid, receipt(id, &outcome, self.now)));
        Ok(Handled {
            change: Some(change),
            changed_game: false,
            summary: outcome,
        })
    }
}

/// A mail from a moderator with their key: one command a line; a line
/// `why TEXT` gives the reason for the commands after it. Each command is
/// committed on its own; the moderator gets one reply with every outcome.
fn moderate(
    ctx: &Ctx<'_>,
    inc: &Incoming,
    mid: String,
    id: &GameId,
    from: &str,
    now: DateTime<Utc>,
) -> Result<Handled, DaemonError> {
    let mut out = Vec::new();
    let mut why: Option<String> = None;
    let mut change = Change::default();
    let mut changed = false;
    let vocabulary = commands::moderator_vocabulary();
    let mut not_commands = Vec::new();
    for line in inc.body.iter().map(|l| l.trim()).filter(|l| !l.is_empty()) {
        let (reading, line) = vocabulary.read_item(line);
        if reading == Reading::Chatter {
            not_commands.push(format!("  {line}"));
            continue;
        }
        if let Some(w) = line.strip_prefix("why ") {
            why = Some(w.trim().to_string());
            continue;
        }
        match super::moderator::parse(line) {
            Err(e) => out.push(format!("> {line}\n  refused: {e}")),
            Ok(cmd)
                if change.update.is_some()
                    && !matches!(cmd, super::moderator::ModCommand::Preview { .. }) =>
            {
                // One change per mail keeps the commit whole; later commands
                // wait for the next mail.
                out.push(format!(
                    "> {line}\n  not done: one command that changes the game per mail (a note \
                     counts: it goes into the turn log; a `why TEXT` line before a command gives \
                     its reason): send this one in a mail of its own"
                ));
                let _ = cmd;
            }
            Ok(cmd) => {
                // A moderator by mail (the creator of a game made by mail
                // may be anyone) mails a new address once unasked.
                let new_address = match &cmd {
                    super::moderator::ModCommand::Replace { address, .. }
                    | super::moderator::ModCommand::Moderator(address) => Some(address.clone()),
                    _ => None,
                };
                let gate = match new_address.as_deref().map(|a| unasked::recipient(ctx, a)) {
                    Some(Ok(a)) => unasked::may_mail(ctx, from, &a, &change.tally, now)?
                        .map(|permit| Some((a, permit))),
                    Some(Err(why)) => Err(why),
                    None => Ok(None),
                };
                let permit = match gate {
                    Ok(p) => p,
                    Err(why) => {
                        out.push(format!("> {line}\n  refused: {why}"));
                        continue;
                    }
                };
                match super::moderator::run(ctx, id, from, &cmd, why.as_deref(), now) {
                    Ok(o) => {
                        out.push(format!("> {line}\n  {}", o.output.replace('\n', "\n  ")));
                        if o.change.update.is_some() {
                            changed = true;
                            change = o.change;
                            if let Some((a, permit)) = permit {
                                permit.record(&a, &mut change);
                            }
                        }
                    }
                    Err(e) => out.push(format!("> {line}\n  refused: {e}")),
                }
            }
        }
    }
    let commands_given = out.len();
    if !not_commands.is_empty() {
        out.push(format!(
            "Not read as commands (no command begins so):\n{}",
            not_commands.join("\n")
        ));
    }
    change
        .outbox
        .push(moderator_reply(ctx, inc, id, from, &out, now)?);
    let summary = format!("moderator {from}: {commands_given} command(s)");
    change.receipt = Some((
        mid,
        Receipt {
            at: now,
            game: Some(id.0.clone()),
            outcome: summary.clone(),
        },
    ));
    Ok(Handled {
        change: Some(change),
        changed_game: changed,
        summary,
    })
}

/// The reply to a moderator's mail, `out` one outcome a command, in
/// their thread of the game.
fn moderator_reply(
    ctx: &Ctx<'_>,
    inc: &Incoming,
    id: &GameId,
    from: &str,
    out: &[String],
    now: DateTime<Utc>,
) -> Result<crate::mail::OutMail, DaemonError> {
    let meta_now = ctx.store.meta(id)?;
    let thread = report::moderator_thread(ctx, id, &meta_now, from);
    let (in_reply_to, references) = thread.threading(
        inc.message_id
            .as_deref()
            .map(|m| (m, inc.references.as_slice())),
    );
    let text = format!("{}\n\n-- \nStationmaster, for {id}.\n", out.join("\n"));
    let draft = Draft {
        to: from.to_string(),
        subject: thread.subject(true),
        html: Some(report::notice_html(ctx, &text, None)?),
        text,
        in_reply_to,
        references,
        // Their key in the reply address too, as on every other mail to
        // them: a reply that loses the subject's tag still carries it.
        reply_to: report::reply_to_moderator(ctx, id, &meta_now, from),
        ..Draft::default()
    };
    crate::service::compose_mail(ctx, &id.0, "modreply", &draft, now)
}

/// The kind of game a help reply's examples name: that of the first of
/// the sender's games (`linie1-3`) whose kind is known, so a Linie 1
/// player is not shown a Rocket tag (issue 38); else the first game.
fn example_kind(games: &[String]) -> &'static str {
    let kind_of = |id: &String| {
        let (kind, n) = id.rsplit_once('-')?;
        n.parse::<u32>().ok()?;
        crate::registry::GAMES.iter().find(|g| g.name == kind)
    };
    games
        .iter()
        .find_map(kind_of)
        .or(crate::registry::GAMES.first())
        .map_or("game", |g| g.name)
}

/// The answer to `leave` in a game that runs: a seat is left through a
/// moderator, and until then the game's policy plays the missed turns.
fn leave_note(ctx: &Ctx<'_>, id: &GameId, meta: &crate::store::GameMeta) -> String {
    let moderators: Vec<&str> = meta
        .moderators
        .iter()
        .chain(ctx.config.site.moderators.iter())
        .map(String::as_str)
        .collect();
    let ask = if moderators.is_empty() {
        "its operator".to_string()
    } else {
        format!("a moderator of the game ({})", moderators.join(", "))
    };
    let missed = match meta.clock.settings.policy {
        crate::clock::Policy::Skip => "a turn you miss is skipped",
        crate::clock::Policy::Wait => "the game waits for you and its moderators are told",
        crate::clock::Policy::Default => "the game gives its safe default order for you",
        crate::clock::Policy::Bot => "the bot plays your turn for you",
    };
    format!(
        "Not done: `leave` gives up a seat before a game starts, and {id} has started. To leave it, ask {ask}: they can give your seat to someone else (`replace`) or end the game. Until then, when a deadline passes, {missed}."
    )
}
