//! One inbound mail to one [`Change`]: skip what was already handled and
//! what must never be answered, find the game and the player, check the
//! secret token, run the commands and orders, and compose every answer.
//! Nothing here writes: the caller commits the change, then marks the mail
//! done.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::commands::{self, Command};
use super::report::{self, MailContext, ReplySection};
use super::{Ctx, DaemonError, orders};
use crate::engine::chatter::Reading;
use crate::engine::{OrderRejected, Seat};
use crate::mail::compose::Draft;
use crate::mail::ingest::{self, Incoming};
use crate::service::{fallback_id, site, unasked};
use crate::store::{Change, GameId, Receipt, StoreError};

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
    let meta = ctx.store.meta(&id)?;
    // A moderator with their key: every line is a moderator command.
    let mod_key = meta.moderator_tokens.get(&from.to_ascii_lowercase());
    if super::moderator::is_moderator(ctx, &meta, &from)
        && let (Some(k), Some(t)) = (mod_key, &inc.token)
        && k.eq_ignore_ascii_case(t)
    {
        return moderate(ctx, &inc, mid, &id, &from, now).and_then(|h| proved(ctx, &from, h, now));
    }
    // A moderator's key from an address that is not that moderator's.
    if let Some(t) = &inc.token
        && let Some((owner, _)) = meta
            .moderator_tokens
            .iter()
            .find(|(addr, k)| k.eq_ignore_ascii_case(t) && !addr.eq_ignore_ascii_case(&from))
    {
        let why = format!("the mail carried your moderator key but came from {from}");
        let owners = vec![Owner::moderator(&id, owner)];
        return intruder(ctx, &inc, mid, &id, owners, &from, &why, now);
    }
    let by_from = (0..record.setup.players.len())
        .map(|i| Seat(i as u8))
        .find(|s| meta.plays_from(&record, *s, &from));
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
                Owner::player(ctx, &id, a, false)?,
                Owner::player(ctx, &id, b, true)?,
            ];
            return intruder(ctx, &inc, mid, &id, owners, &from, &why, now);
        }
        (Some(a), None) => {
            let why = if inc.token.is_none() {
                "the mail carried no key (it was not a reply to a mail from the game)"
            } else {
                "the mail carried a wrong key"
            };
            let owners = vec![Owner::player(ctx, &id, a, false)?];
            return intruder(ctx, &inc, mid, &id, owners, &from, why, now);
        }
        (None, Some(b)) => {
            let why =
                format!("the mail carried your key but came from {from}, not from your address");
            let owners = vec![Owner::player(ctx, &id, b, true)?];
            return intruder(ctx, &inc, mid, &id, owners, &from, &why, now);
        }
        (None, None) => {
            // `join` in reply to an invitation of a game that has started.
            if let Some(done) = site::untagged(ctx, &inc, &mid, &from, now)? {
                return Ok(site_handled(done));
            }
            return help(
                ctx,
                &inc,
                mid,
                &from,
                &format!("You do not play in {id}."),
                now,
            );
        }
    };
    authenticated(ctx, &inc, mid, &id, seat, now).and_then(|h| proved(ctx, &from, h, now))
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
    /// The first of them, for the example.
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
    let text = ctx.templates.render(
        "help.txt",
        &HelpContext {
            address: &ctx.config.mail.address,
            reason,
            games,
            example_tag: format!(
                "[{}-1 k7p2xq9m3a]",
                crate::registry::GAMES.first().map_or("game", |g| g.name)
            ),
            site_commands: site::FORMS
                .iter()
                .map(|(form, what)| SiteForm { form, what })
                .collect(),
            kinds: crate::registry::names(),
            example_kind: crate::registry::GAMES.first().map_or("game", |g| g.name),
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
    let loaded = ctx.store.load(id)?;
    let stored_meta = ctx.store.meta(id)?;
    let old_fire = stored_meta.clock.next_fire;
    let mut meta = stored_meta.clone();
    let record = &loaded.record;
    let name = record.setup.players[seat.index()].name.clone();
    let mut wants = Vec::new();
    let mut lines = Vec::new();
    let mut absence: Vec<String> = Vec::new();
    let mut history_turns: Option<(u32, u32)> = None;
    let mut talk_lines: Vec<String> = Vec::new();
    // The commands read (but `away` and `back`, echoed with the orders),
    // echoed under "Your mail" in the reply.
    let mut commands_read: Vec<String> = Vec::new();
    let mut report_lines: Vec<String> = Vec::new();
    let mut address_lines: Vec<String> = Vec::new();
    // Greetings and sign-offs are not orders: left out, and shown.
    let vocabulary = commands::player_vocabulary(&*loaded.game);
    let mut not_orders = Vec::new();
    let mut typos = Vec::new();
    for line in &inc.body {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        // `1. extend GWR C14` is read without its list marker.
        let (reading, line) = vocabulary.read_item(line);
        match reading {
            Reading::Chatter => {
                not_orders.push(line.to_string());
                continue;
            }
            Reading::Typo(meant) => typos.push((line.to_string(), meant)),
            Reading::Order => {}
        }
        let command = commands::command(line);
        if command.is_some_and(|c| !matches!(c, Command::Away | Command::Back)) {
            commands_read.push(line.to_string());
        }
        match command {
            Some(Command::Away | Command::Back) => absence.push(line.to_string()),
            Some(Command::Say | Command::Tell) => talk_lines.push(line.to_string()),
            Some(Command::Reports) => report_lines.push(line.to_string()),
            Some(Command::Address) => address_lines.push(line.to_string()),
            Some(Command::History) => {
                wants.push(Command::History);
                if let Some(r) = line.split_whitespace().nth(1) {
                    history_turns = crate::local::parse_turns(r).ok();
                }
            }
            Some(c) => wants.push(c),
            None => lines.push(line.to_string()),
        }
    }
    // Absence: `away DATE to DATE` holds the player's deadlines; `back` ends
    // it. Everyone is told.
    let mut absence_notes: Vec<(Seat, String)> = Vec::new();
    let mut absence_error: Option<(String, String)> = None;
    // A player has one absence at a time: a second line would silently
    // undo the first.
    if let [_, second, ..] = absence.as_slice() {
        absence_error = Some((
            second.clone(),
            format!(
                "one `away` or `back` a mail: this one has {}; send the one you mean",
                absence.len()
            ),
        ));
        absence.clear();
    }
    for line in &absence {
        if line.eq_ignore_ascii_case("back") {
            meta.clock.back(seat, now);
            for s in 0..record.setup.players.len() {
                absence_notes.push((
                    Seat(s as u8),
                    format!("{name} is back; their deadlines run as usual."),
                ));
            }
            continue;
        }
        match crate::clock::parse_away(&meta.clock.settings, line, now) {
            Ok(a) => {
                let text = meta.clock.away(seat, &name, a, now);
                for s in 0..record.setup.players.len() {
                    absence_notes.push((Seat(s as u8), text.clone()));
                }
            }
            Err(why) => absence_error = Some((line.clone(), why)),
        }
    }
    if let Some((line, why)) = absence_error {
        // A refused `away` changes nothing, orders included.
        meta = stored_meta.clone();
        absence_notes.clear();
        lines.clear();
        let section = ReplySection {
            subject: inc.subject.clone(),
            understood: vec![line.clone()],
            refused: true,
            refused_line_no: 1,
            refused_line: line,
            refused_why: why,
            not_orders: not_orders.clone(),
            ..ReplySection::default()
        };
        let mail = MailContext {
            reply: Some(section),
            to: inc.from.clone(),
            ..MailContext::default()
        };
        let thread = (
            inc.message_id.clone().unwrap_or_else(|| mid.clone()),
            inc.references.clone(),
        );
        let out = report::player_mail(
            ctx,
            id,
            record,
            &meta,
            &*loaded.game,
            &report::Board::new(ctx, &*loaded.game, &[]),
            seat,
            mail,
            Some(thread),
            now,
        )?;
        let receipt = Receipt {
            at: now,
            game: Some(id.0.clone()),
            outcome: format!("{name}: absence refused"),
        };
        return Ok(Handled {
            change: Some(Change {
                outbox: vec![out],
                receipt: Some((mid, receipt.clone())),
                ..Change::default()
            }),
            changed_game: false,
            summary: receipt.outcome,
        });
    }
    let mut section = ReplySection {
        subject: inc.subject.clone(),
        not_orders,
        ..ReplySection::default()
    };
    // The answer goes back to the address the mail came from (a second
    // address confirmed with `address add`, or the seat's own).
    let mut mail = MailContext {
        to: inc.from.clone(),
        ..MailContext::default()
    };
    if wants.contains(&Command::Leave) {
        section.notes.push(leave_note(ctx, id, &meta));
    }
    if wants.contains(&Command::Help) {
        mail.help = Some(format!(
            "{}\n{}",
            loaded.game.help().trim_end(),
            commands::commands_help()
        ));
    }
    if wants.contains(&Command::History) {
        let entries: Vec<_> = ctx
            .store
            .log(id)?
            .into_iter()
            .filter(|e| history_turns.is_none_or(|(a, b)| e.turn >= a && e.turn <= b))
            .collect();
        // A moderator who plays sees every message, as moderators do.
        let viewer = if super::moderator::is_moderator(ctx, &meta, meta.address(record, seat)) {
            crate::engine::Viewer::Moderator
        } else {
            crate::engine::Viewer::Player(seat)
        };
        mail.history =
            Some(report::history_lines(&*loaded.game, &entries, viewer).map_err(StoreError::from)?);
    }
    // Table talk goes out at once, whatever becomes of the orders.
    let ended = report::ended(ctx.store, id, &meta, &*loaded.game)?;
    let talked = if talk_lines.is_empty() {
        crate::service::talk::Talked::default()
    } else if let Some(ended) = &ended {
        crate::service::talk::Talked {
            notes: vec![format!(
                "Not sent: {}.",
                ended.refusal(id, &meta.clock.settings)
            )],
            ..Default::default()
        }
    } else {
        crate::service::talk::talk(
            ctx,
            id,
            record,
            &stored_meta,
            &*loaded.game,
            seat,
            &talk_lines,
            &crate::engine::Actor::Mail(mid.clone()),
            now,
        )?
    };
    if lines.is_empty()
        && wants.is_empty()
        && absence.is_empty()
        && talk_lines.is_empty()
        && report_lines.is_empty()
        && address_lines.is_empty()
    {
        section
            .notes
            .push("Your mail had no orders in it; here is your report.".to_string());
        // Where the orders may have been, and how to send them.
        if inc.forwarded {
            section.notes.push(
                "A forwarded message is not read, whoever wrote it: write your orders in \
                 your own mail, above what you forward, or reply to a mail from the game."
                    .to_string(),
            );
        }
        if inc.attachments > 0 {
            section.notes.push(
                "Attachments are not read: write your orders in the text of your mail, \
                 one a line."
                    .to_string(),
            );
        }
    }
    if inc.truncated {
        section
            .notes
            .push("Your mail was very long; only its beginning was read.".to_string());
    }
    let mut thread_refs = inc.references.clone();
    let parent = inc.message_id.clone().unwrap_or_else(|| mid.clone());
    thread_refs.retain(|r| *r != parent);
    let thread = (parent, thread_refs);

    let mut receipt = Receipt {
        at: now,
        game: Some(id.0.clone()),
        outcome: String::new(),
    };
    section.notes.extend(talked.notes.iter().cloned());
    let mut change = Change {
        tally: talked.tally.clone(),
        ..Change::default()
    };
    // Why orders are not taken: the player's sentence, and the operator's
    // log's words.
    let stopped = if let Some(ended) = &ended {
        Some((
            format!(
                "Nothing was applied. {}.",
                ended.refusal(id, &meta.clock.settings)
            ),
            "orders refused: the game is over",
        ))
    } else if meta.paused.is_some() {
        Some((
            "A moderator has paused this game: orders are not taken until it resumes. Send them again then.".to_string(),
            "orders refused: the game is paused",
        ))
    } else {
        None
    };
    let mut not_taken: Option<&str> = None;
    if let Some((why, logged)) = stopped
        && (!lines.is_empty() || !absence_notes.is_empty())
    {
        not_taken = Some(logged);
        section.notes.push(why);
        section.understood = lines.clone();
        lines.clear();
        absence_notes.clear();
        meta = stored_meta.clone();
    }
    // `reports MODE`: stored with whatever else the mail changes.
    for line in &report_lines {
        let word = line.split_whitespace().nth(1).unwrap_or_default();
        match crate::store::ReportMode::parse(word) {
            Ok(mode) => {
                meta.set_reports(seat, mode);
                section.notes.push(format!(
                    "From now on you get `reports {}`: {}.",
                    mode.name(),
                    mode.describe()
                ));
            }
            Err(why) => section.notes.push(format!("Not done: {why}.")),
        }
    }
    let mut address_change = Change::default();
    for line in &address_lines {
        let note = crate::service::site::address_command(
            ctx,
            id,
            record,
            &mut meta,
            seat,
            line,
            &mut address_change,
            now,
        )?;
        section.notes.push(note);
    }
    let chose_reports = meta.report_modes != stored_meta.report_modes
        || meta.other_addresses != stored_meta.other_addresses;
    if !lines.is_empty() || !absence_notes.is_empty() {
        match orders::run(
            &*loaded.game,
            &meta,
            seat,
            &lines,
            &crate::engine::Actor::Mail(mid.clone()),
        ) {
            Ok((game, meta, mut batch)) => {
                batch.notes.extend(absence_notes.iter().cloned());
                section.understood = batch
                    .applied
                    .iter()
                    .filter(|(s, _)| *s == seat)
                    .map(|(_, a)| a.order.clone())
                    .collect();
                section
                    .understood
                    .extend(batch.held.iter().map(|h| h.line.clone()));
                section.understood.extend(absence.iter().cloned());
                section.understood.extend(commands_read.iter().cloned());
                section.applied =
                    batch.applied.iter().any(|(s, _)| *s == seat) || !absence_notes.is_empty();
                section.held = batch.held.iter().map(|h| h.describe()).collect();
                mail.reply = Some(section);
                let mut step = crate::service::pipeline::Step::new(
                    &*game,
                    meta,
                    &batch,
                    crate::engine::Actor::Mail(mid.clone()),
                );
                step.then = talked.entries;
                step.reply = Some((seat, mail, thread));
                let (update, outbox) =
                    crate::service::pipeline::write(ctx, id, loaded.seq, old_fire, step, now)?;
                change.outbox = outbox;
                change.outbox.extend(talked.outbox);
                change.absorb_bookkeeping(&mut address_change);
                receipt.outcome = format!(
                    "{name}: {} order(s) applied, {} held",
                    batch.applied.len(),
                    batch.held.len()
                );
                let changed_game = !update.entries.is_empty();
                change.update = Some(update);
                change.receipt = Some((mid, receipt.clone()));
                return Ok(Handled {
                    change: Some(change),
                    changed_game,
                    summary: receipt.outcome,
                });
            }
            Err(rejected) => {
                section.understood = lines.clone();
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
                if let Some((_, meant)) = typos.iter().find(|(l, _)| *l == line) {
                    why.push_str(&format!("; did you mean `{meant}`?"));
                }
                section.refused_line = line;
                section.refused_why = why;
                receipt.outcome = format!("{name}: refused line {}", rejected.line_no);
            }
        }
    } else {
        receipt.outcome = format!("{name}: {}", not_taken.unwrap_or("commands answered"));
    }
    if !section.refused {
        section.understood.extend(commands_read);
    }
    mail.reply = Some(section);
    let out = report::player_mail(
        ctx,
        id,
        record,
        &meta,
        &*loaded.game,
        &report::Board::new(ctx, &*loaded.game, &[]),
        seat,
        mail,
        Some(thread),
        now,
    )?;
    change.outbox.push(out);
    change.absorb_bookkeeping(&mut address_change);
    if !talked.entries.is_empty() || chose_reports {
        // Only the log grows (the messages) and the player's choice of
        // reports is kept; nothing of the game changes.
        let mut kept = stored_meta.clone();
        kept.report_modes = meta.report_modes.clone();
        kept.other_addresses = meta.other_addresses.clone();
        let mut update = crate::store::GameUpdate {
            id: id.clone(),
            base_seq: loaded.seq,
            entries: Vec::new(),
            state: loaded.game.snapshot()?,
            state_version: loaded.game.state_version(),
            meta: kept,
            old_fire,
            // Table talk ends nothing (a finished game's archive is written).
            over: false,
        };
        for entry in talked.entries {
            update.push(entry);
        }
        change.update = Some(update);
        if !talked.outbox.is_empty() {
            change.outbox.extend(talked.outbox);
            receipt.outcome.push_str("; table talk sent");
        }
    }
    change.receipt = Some((mid, receipt.clone()));
    Ok(Handled {
        change: Some(change),
        changed_game: false,
        summary: receipt.outcome,
    })
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
    // In the moderator's thread of the game, answering their mail.
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
    change.outbox.push(crate::service::compose_mail(
        ctx, &id.0, "modreply", &draft, now,
    )?);
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
    };
    format!(
        "Not done: `leave` gives up a seat before a game starts, and {id} has started. To leave it, ask {ask}: they can give your seat to someone else (`replace`) or end the game. Until then, when a deadline passes, {missed}."
    )
}
