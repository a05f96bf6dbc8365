//! An address's games: `games` lists them, with whom each waits for, and
//! `bump` sends their reports again where they wait for the address.

use chrono::{DateTime, Utc};

use super::{Refusal, Session};
use crate::engine::Viewer;
use crate::service::{Ctx, ServiceError, report};

/// `bump` sends an address's reports again at most once in this many hours.
pub const BUMP_HOURS: i64 = 1;

/// `games`: every game `address` plays in or is forming, with whom each
/// waits for and the address's own deadlines.
pub fn games_text(
    ctx: &Ctx<'_>,
    address: &str,
    now: DateTime<Utc>,
) -> Result<String, ServiceError> {
    let mut out = Vec::new();
    for id in ctx.store.games_of(address)? {
        let loaded = ctx.store.load(&id)?;
        let meta = ctx.store.meta(&id)?;
        let title = crate::registry::title(&loaded.record.setup.kind);
        // Its seats there, by their own address or one confirmed.
        let seats = meta.seats_from(&loaded.record, address);
        let names: Vec<&str> = seats
            .iter()
            .map(|s| loaded.record.setup.players[s.index()].name.as_str())
            .collect();
        let mode = seats
            .first()
            .map_or(meta.default_reports, |s| meta.reports_of(*s));
        let head = format!(
            "{id} ({title}), you are {}, reports {}",
            names.join(" and "),
            mode.name()
        );
        if let Some(ended) = report::ended(ctx.store, &id, &meta, &*loaded.game)? {
            out.push(format!("{head}: {}", ended.short(&meta.clock.settings)));
            continue;
        }
        let paused = if meta.paused.is_some() {
            " (paused by a moderator)"
        } else {
            ""
        };
        let waits = report::deadline_lines(
            &*loaded.game,
            &meta,
            seats
                .first()
                .map_or(Viewer::Spectator, |s| Viewer::Player(*s)),
            now,
        );
        out.push(format!("{head}{paused}: waiting for"));
        for w in waits {
            out.push(format!("    {w}"));
        }
    }
    for f in ctx.store.all_forming()? {
        if let Some(seat) = f.seat_of(address) {
            out.push(format!(
                "{} ({}), you are {}: forming, {} player(s) so far; {}",
                f.id,
                crate::registry::title(&f.kind),
                f.seats[seat].name,
                f.taken(),
                if seat == 0 {
                    "you start it"
                } else {
                    "its creator starts it"
                }
            ));
        }
    }
    if out.is_empty() {
        return Ok(format!(
            "{address} plays in no game here. Make one with `new GAME`, or join one with `join GAME`."
        ));
    }
    Ok(format!("Your games here ({address}):\n{}", out.join("\n")))
}

impl Session<'_, '_> {
    /// `bump`: the sender's report again, of each game that waits for
    /// them, at most once in [`BUMP_HOURS`].
    pub(super) fn bump(&mut self) -> Result<String, Refusal> {
        let ctx = self.ctx;
        let key = format!("bump:{}", self.from);
        if let Some(last) = ctx.store.help_sent(&key)?
            && self.now - last < chrono::Duration::hours(BUMP_HOURS)
        {
            return Err(Refusal::Player(format!(
                "your reports were sent again less than {BUMP_HOURS} hour ago; `bump` works once an hour"
            )));
        }
        let mut sent = Vec::new();
        for id in ctx.store.games_of(&self.from)? {
            let loaded = ctx.store.load(&id)?;
            let meta = ctx.store.meta(&id)?;
            if report::ended(ctx.store, &id, &meta, &*loaded.game)?.is_some() {
                continue;
            }
            let map = report::Board::new(ctx, &*loaded.game, &[]);
            for seat in loaded.game.awaiting().iter().map(|a| a.seat) {
                if !meta.plays_from(&loaded.record, seat, &self.from)
                    || sent.contains(&(id.clone(), seat))
                {
                    continue;
                }
                // An answer to `bump`: to the address that asked.
                let mail = report::MailContext {
                    notes: vec![
                        "Your report again, as you asked with `bump`: the game waits for you."
                            .to_string(),
                    ],
                    to: Some(self.from.clone()),
                    ..report::MailContext::default()
                };
                self.mails.push(report::player_mail(
                    ctx,
                    &id,
                    &loaded.record,
                    &meta,
                    &*loaded.game,
                    &map,
                    seat,
                    mail,
                    None,
                    self.now,
                )?);
                sent.push((id.clone(), seat));
            }
        }
        if sent.is_empty() {
            return Ok("No game waits for you now; nothing was sent.".to_string());
        }
        self.bumped = Some(key);
        let ids: Vec<String> = sent.iter().map(|(id, _)| id.0.clone()).collect();
        Ok(format!(
            "Your report of {} comes again, each in its own thread.",
            ids.join(", ")
        ))
    }
}
