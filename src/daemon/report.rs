//! The mails players get: each rendered from that player's own view through
//! the templates, so one player's mail can never show another's secrets.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Ctx, DaemonError};
use crate::engine::SetupError;
use crate::engine::{AnyGame, Seat, Status};
use crate::mail::OutMail;
use crate::mail::compose::Draft;
use crate::store::{GameId, GameMeta, GameRecord, LogEntry};

/// The reply section: what the player's own mail did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReplySection {
    /// The subject of their mail.
    pub subject: String,
    /// Each line as understood (canonical order text, or the line itself).
    pub understood: Vec<String>,
    /// True if orders were applied.
    pub applied: bool,
    /// True if the batch was refused.
    pub refused: bool,
    /// The refused line's number in the body.
    pub refused_line_no: usize,
    /// The refused line.
    pub refused_line: String,
    /// Why, with the rule.
    pub refused_why: String,
    /// The lines held for later (behind a veto round, or a standing
    /// answer), each with why and when it applies.
    pub held: Vec<String>,
    /// Lines that were not read as orders: no order or command begins so
    /// (greetings, sign-offs, remarks).
    pub not_orders: Vec<String>,
    /// Anything else to say.
    pub notes: Vec<String>,
}

/// Everything the report templates may use.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MailContext {
    /// The game id.
    pub game: String,
    /// The game's kind, in words.
    pub kind: String,
    /// The reader's name.
    pub player: String,
    /// The reader's secret token.
    pub token: String,
    /// Every player's name, in seat order.
    pub players: Vec<String>,
    /// A welcome mail.
    pub welcome: bool,
    /// The reply to the reader's own mail.
    pub reply: Option<ReplySection>,
    /// Notes for the reader.
    pub notes: Vec<String>,
    /// The order grammar, when asked for.
    pub help: Option<String>,
    /// The game's history, when asked for.
    pub history: Option<Vec<String>>,
    /// What happened since the reader's last report.
    pub events: Vec<String>,
    /// The map and status, as text.
    pub map: String,
    /// The map and status, as an HTML `<pre>`.
    pub map_html: String,
    /// The "You can:" hints.
    pub hints: Vec<String>,
    /// Who must act by when: one line per awaited player.
    pub deadlines: Vec<String>,
}

/// The kind of a game in words.
pub fn kind_name(kind: &str) -> &str {
    match kind {
        "rocket" => "Stephenson's Rocket",
        other => other,
    }
}

/// A short status line for subjects: whose turn, or the end.
pub fn headline(game: &dyn AnyGame) -> String {
    let names = game.player_names();
    match game.status() {
        Status::Finished(placings) => {
            let winners: Vec<&str> = placings
                .iter()
                .filter(|p| p.place == 1)
                .map(|p| names[p.seat.index()].as_str())
                .collect();
            format!("Game over: {} won", winners.join(" and "))
        }
        Status::Active(awaited) => {
            let who: Vec<String> = awaited
                .iter()
                .map(|a| format!("{} ({})", names[a.seat.index()], a.what))
                .collect();
            format!("Waiting for {}", who.join(", "))
        }
    }
}

/// Events of `entries` as `seat` reads them, each order first.
pub fn event_lines(
    game: &dyn AnyGame,
    entries: &[LogEntry],
    seat: Option<Seat>,
) -> Result<Vec<String>, SetupError> {
    let mut out = Vec::new();
    for e in entries {
        out.push(format!("{}: {}", e.player, e.order));
        for sentence in game.describe_events(&e.events, seat)? {
            out.push(format!("   {sentence}"));
        }
    }
    Ok(out)
}

/// The history lines of a game (the whole log), for `seat`.
pub fn history_lines(
    game: &dyn AnyGame,
    entries: &[LogEntry],
    seat: Option<Seat>,
) -> Result<Vec<String>, SetupError> {
    let mut out = Vec::new();
    for e in entries {
        out.push(format!(
            "#{} {} {}: {}",
            e.seq,
            e.at.format("%Y-%m-%d %H:%M"),
            e.player,
            e.order
        ));
        for sentence in game.describe_events(&e.events, seat)? {
            out.push(format!("    {sentence}"));
        }
    }
    if out.is_empty() {
        out.push("No orders yet.".to_string());
    }
    Ok(out)
}

/// Who must act by when, one line per awaited player (`You` for the
/// reader): `bob (2 actions): by Mon 23 Nov 2026 18:00 UTC (in 48 hours)`.
pub fn deadline_lines(
    game: &dyn AnyGame,
    meta: &GameMeta,
    viewer: Option<Seat>,
    now: DateTime<Utc>,
) -> Vec<String> {
    let names = game.player_names();
    game.awaiting()
        .iter()
        .map(|a| {
            let who = if Some(a.seat) == viewer {
                "You".to_string()
            } else {
                names[a.seat.index()].clone()
            };
            match meta
                .clock
                .waits
                .iter()
                .find(|w| w.seat == a.seat && w.kind == a.kind)
            {
                Some(w) if w.late => format!(
                    "{who} ({}): deadline passed {}",
                    a.what,
                    meta.clock.settings.describe(w.due, now)
                ),
                Some(w) => format!(
                    "{who} ({}): by {}",
                    a.what,
                    meta.clock.settings.describe(w.due, now)
                ),
                None => format!("{who} ({})", a.what),
            }
        })
        .collect()
}

/// The reply address that carries a player's token:
/// `local+GAME.TOKEN@domain`.
pub fn reply_address(address: &str, game: &GameId, token: &str) -> String {
    match address.split_once('@') {
        Some((local, domain)) if !token.is_empty() => {
            format!("{local}+{}.{token}@{domain}", game.0)
        }
        _ => address.to_string(),
    }
}

/// A mail to player `seat`, with `map` (of `game`), the status and hints
/// from their view, and whatever sections `mail` fills in.
#[allow(clippy::too_many_arguments)]
pub fn player_mail(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    meta: &GameMeta,
    game: &dyn AnyGame,
    map: &crate::engine::Map,
    seat: Seat,
    mut mail: MailContext,
    threading: Option<(String, Vec<String>)>,
    now: DateTime<Utc>,
) -> Result<OutMail, DaemonError> {
    let player = &record.setup.players[seat.index()];
    let token = meta.tokens.get(seat.index()).cloned().unwrap_or_default();
    mail.game = id.0.clone();
    mail.kind = kind_name(&record.setup.kind).to_string();
    mail.player = player.name.clone();
    mail.token = token.clone();
    mail.players = record
        .setup
        .players
        .iter()
        .map(|p| p.name.clone())
        .collect();
    let status = game.render_status(Some(seat));
    mail.map = crate::engine::page_text(&map.text, &status);
    mail.map_html = crate::engine::page_html(&map.html, &status);
    mail.deadlines = deadline_lines(game, meta, Some(seat), now);
    mail.hints = game
        .hints(seat)
        .iter()
        .map(|h| h.replace('\n', "\n  "))
        .collect();
    let text = ctx.templates.render("report.txt", &mail)?;
    let html = ctx.templates.render("report.html", &mail)?;
    let tag = if token.is_empty() {
        format!("[{id}]")
    } else {
        format!("[{id} {token}]")
    };
    let subject = match (&mail.reply, mail.welcome) {
        (_, true) => format!("{tag} Welcome to {}", kind_name(&record.setup.kind)),
        (Some(_), _) => format!("Re: {tag} {}", headline(game)),
        (None, _) => format!("{tag} {}", headline(game)),
    };
    let (in_reply_to, references) = match threading {
        Some((parent, mut refs)) => {
            refs.push(parent.clone());
            (Some(parent), refs)
        }
        None => (None, Vec::new()),
    };
    let draft = Draft {
        to_name: player.name.clone(),
        to: meta.address(record, seat).to_string(),
        subject,
        text,
        html: Some(html),
        in_reply_to,
        references,
        reply_to: Some(reply_address(&ctx.config.mail.address, id, &token)),
    };
    super::compose_mail(ctx, &id.0, "report", &draft, now)
}
