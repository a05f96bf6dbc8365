//! Table talk: `say TEXT` to every player of a game, `tell PLAYER TEXT` to
//! one. Each message goes out at once in a mail of its own, in each
//! recipient's thread of the game, and into the game's log as a
//! [`EntryKind::Message`] (a private one shown in `history` only to its
//! two ends and to moderators). Never read as an order; at most `[limits]
//! messages_per_hour` per player and game.

use chrono::{DateTime, Utc};

use super::report;
use super::{Ctx, ServiceError};
use crate::engine::{AnyGame, Seat};
use crate::mail::OutMail;
use crate::mail::compose::Draft;
use crate::store::{EntryKind, GameId, GameMeta, GameRecord, LogEntry};

/// What a mail's table talk came to.
#[derive(Default)]
pub struct Talked {
    /// One log entry per message sent (numbered when pushed on an update).
    pub entries: Vec<LogEntry>,
    /// The messages' mails.
    pub outbox: Vec<OutMail>,
    /// For the sender: what was sent, or why not.
    pub notes: Vec<String>,
    /// The hourly counter raised, once per message.
    pub tally: Vec<(String, DateTime<Utc>)>,
}

/// The hourly counter of `seat`'s messages in game `id`.
fn counter(id: &GameId, seat: Seat) -> String {
    format!("talk:{}:{}", id.0, seat.0)
}

/// Sends the `say` and `tell` lines of `seat`'s mail (`source`: its
/// Message-ID) in game `id`.
#[allow(clippy::too_many_arguments)]
pub fn talk(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    meta: &GameMeta,
    game: &dyn AnyGame,
    seat: Seat,
    lines: &[String],
    source: &crate::engine::Actor,
    now: DateTime<Utc>,
) -> Result<Talked, ServiceError> {
    let mut out = Talked::default();
    let names = game.player_names();
    let name = names.get(seat.index()).cloned().unwrap_or_default();
    let limit = u64::from(ctx.config.limits.messages_per_hour);
    let mut sent = ctx.store.hourly_count(&counter(id, seat), now)?;
    for line in lines {
        let (word, rest) = line
            .trim()
            .split_once(char::is_whitespace)
            .unwrap_or((line, ""));
        let rest = rest.trim();
        let (to, text) = if word.eq_ignore_ascii_case("tell") {
            let (who, text) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            match record.seat_named(who) {
                Ok(s) if s == seat => {
                    out.notes.push(format!("Not sent: `{line}`: that is you."));
                    continue;
                }
                Ok(s) => (Some(s), text.trim()),
                Err(why) => {
                    out.notes.push(format!("Not sent: `{line}`: {why}."));
                    continue;
                }
            }
        } else {
            (None, rest)
        };
        if text.is_empty() {
            out.notes
                .push(format!("Not sent: `{line}`: the message is empty."));
            continue;
        }
        if sent >= limit {
            out.notes.push(format!(
                "Not sent: `{line}`: you have sent {limit} messages in {id} this hour, as many as this server allows; send it again later."
            ));
            continue;
        }
        sent += 1;
        let (order, heading) = match to {
            Some(t) => (
                format!("tell {} {text}", names[t.index()]),
                format!("{name} says to you alone, in {id}:"),
            ),
            None => (
                format!("say {text}"),
                format!("{name} says to everyone in {id}:"),
            ),
        };
        let recipients: Vec<Seat> = match to {
            Some(t) => vec![t],
            None => (0..names.len())
                .map(|i| Seat(i as u8))
                .filter(|s| *s != seat)
                .collect(),
        };
        for r in &recipients {
            out.outbox.push(message_mail(
                ctx, id, record, meta, *r, &heading, text, &name, now,
            )?);
        }
        out.notes.push(match to {
            Some(t) => format!("Sent to {} alone: {text}", names[t.index()]),
            None => format!("Sent to everyone: {text}"),
        });
        out.entries.push(LogEntry::act(
            seat,
            name.clone(),
            order,
            source.clone(),
            EntryKind::Message { to },
            now,
            game.turn_number(),
        ));
        out.tally.push((counter(id, seat), now));
    }
    Ok(out)
}

/// The mail of one message to the player in `seat`, in their thread.
#[allow(clippy::too_many_arguments)]
fn message_mail(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    meta: &GameMeta,
    seat: Seat,
    heading: &str,
    text: &str,
    from_name: &str,
    now: DateTime<Utc>,
) -> Result<OutMail, ServiceError> {
    let thread = report::player_thread(ctx, id, record, meta, seat);
    let (in_reply_to, references) = thread.threading(None);
    let token = meta.tokens.get(seat.index()).cloned().unwrap_or_default();
    let body = format!(
        "{heading}\n\n{text}\n\nTo answer everyone, reply with `say TEXT`; to answer {from_name} alone, `tell {from_name} TEXT`.\n\n-- \nStationmaster, for {id} ({}). Table talk is never read as orders.\n",
        crate::registry::title(&record.setup.kind)
    );
    let draft = Draft {
        to_name: record.setup.players[seat.index()].name.clone(),
        to: meta.address(record, seat).to_string(),
        subject: thread.subject(false),
        html: Some(report::notice_html(ctx, &body, None)?),
        text: body,
        in_reply_to,
        references,
        reply_to: Some(report::reply_address(&ctx.config.mail.address, id, &token)),
        ..Draft::default()
    };
    super::compose_mail(ctx, &id.0, "talk", &draft, now)
}
