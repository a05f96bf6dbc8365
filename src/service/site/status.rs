//! A forming game told to its players: where it stands, what each can do,
//! and notices in each player's thread.

use chrono::{DateTime, Utc};

use crate::mail::OutMail;
use crate::mail::compose::Draft;
use crate::service::report::{self, Thread};
use crate::service::{Ctx, ServiceError, compose_mail};
use crate::store::Forming;

/// The subject of `seat`'s thread of forming game `f`: the tag with their
/// key and the game's title, as the game's own mails will have it.
pub(super) fn thread_of(f: &Forming, seat: usize) -> Thread {
    let s = &f.seats[seat];
    Thread {
        subject: format!("[{} {}] {}", f.id, s.key, crate::registry::title(&f.kind)),
        root: s.root.clone(),
    }
}

/// The deadline settings in a line: `turn 2d, question 12h, bid 12h`.
fn settings_text(kind: &str, c: &crate::clock::ClockSettings) -> String {
    let mut parts = vec![format!("turn {}", c.turn)];
    if let Ok(entry) = crate::registry::find(kind) {
        for w in entry.waits {
            let name = w.key_alias.unwrap_or(w.kind.neutral_name());
            let span = match w.kind {
                crate::engine::WaitKind::Question => c.question,
                crate::engine::WaitKind::Bid => c.bid,
                crate::engine::WaitKind::Turn => c.turn,
            };
            parts.push(format!("{name} {span}"));
        }
    }
    parts.push(format!("policy {}", c.policy.name()));
    parts.push(format!("time_zone {}", c.time_zone));
    parts.join(", ")
}

/// Where forming game `f` stands, for its players' mails; the addresses
/// invited only for its creator (`creator`).
pub fn status_text(f: &Forming, creator: bool, now: DateTime<Utc>) -> String {
    let entry = crate::registry::find(&f.kind).ok();
    let title = crate::registry::title(&f.kind);
    let range = entry.map_or(String::new(), |e| format!(" ({})", e.players_text()));
    let names: Vec<String> = f
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if i == 0 {
                format!("{} (creator)", s.name)
            } else {
                s.name.clone()
            }
        })
        .collect();
    let mut out = vec![format!(
        "{}: {title}{range}, forming: not started yet.",
        f.id
    )];
    out.push(format!("Players: {}.", names.join(", ")));
    match f.bots {
        0 => {}
        1 => out.push("The bot takes one seat at the start.".to_string()),
        n => out.push(format!("The bot takes {n} seats at the start.")),
    }
    if creator && !f.invited.is_empty() {
        out.push(format!("Invited: {}.", f.invited.join(", ")));
    } else if !f.invited.is_empty() {
        out.push(format!("Invitations out: {}.", f.invited.len()));
    }
    if !f.options.is_empty() {
        out.push(format!("Options: {}.", f.options.join(", ")));
    }
    out.push(if f.open {
        format!("Open: anyone may join with `join {}`.", f.id)
    } else {
        "By invitation: only invited addresses may join.".to_string()
    });
    out.push(format!("Deadlines: {}.", settings_text(&f.kind, &f.clock)));
    if f.watchable {
        out.push(format!(
            "Watchable: once it runs, anyone may follow it with `watch {}`.",
            f.id
        ));
    }
    out.push(format!(
        "Reports: {} ({}), unless a player chooses with `reports full|short|turn`.",
        f.reports.name(),
        f.reports.describe()
    ));
    out.push(format!(
        "Unless its creator starts it, it expires {}.",
        f.clock.describe(f.expires, now)
    ));
    out.join("\n")
}

/// What the player in `seat` can do now, as lines.
pub(super) fn hints(f: &Forming, seat: usize) -> Vec<String> {
    let entry = crate::registry::find(&f.kind).ok();
    let mut out = Vec::new();
    if seat == 0 {
        out.push("invite ADDRESS   one invitation to ADDRESS (one a line)".to_string());
        match entry {
            Some(e) if e.players.contains(&f.taken()) => {
                out.push("start            deal and begin".to_string())
            }
            Some(e) => out.push(format!(
                "start            once {} players sit ({} now)",
                e.players.start(),
                f.taken()
            )),
            None => {}
        }
        out.push("leave            cancel the game".to_string());
    } else {
        out.push("leave            give up your seat".to_string());
    }
    out
}

/// A notice to `seat` of forming game `f`, in their thread.
pub(super) fn seat_notice(
    ctx: &Ctx<'_>,
    f: &Forming,
    seat: usize,
    text: &str,
    now: DateTime<Utc>,
) -> Result<OutMail, ServiceError> {
    let thread = thread_of(f, seat);
    let (in_reply_to, references) = thread.threading(None);
    let s = &f.seats[seat];
    let text = format!(
        "{text}\n\n-- \nStationmaster ({}), for {}.\n",
        ctx.config.mail.address, f.id
    );

    let draft = Draft {
        to_name: s.name.clone(),
        to: s.address.clone(),
        subject: thread.subject(false),
        html: Some(report::notice_html(ctx, &text, None)?),
        text,
        in_reply_to,
        references,
        reply_to: Some(report::reply_address(
            &ctx.config.mail.address,
            &f.id,
            &s.key,
        )),
        ..Draft::default()
    };
    compose_mail(ctx, &f.id.0, "forming", &draft, now)
}
