//! The scheduler: for each game whose time has come (an index in the store,
//! so a cycle does no work for the others), send reminders, deal with missed
//! deadlines by the game's policy, warn players whose absence ends, and plan
//! the next look.

use chrono::{DateTime, Utc};

use super::report::{self, MailContext};
use super::{Ctx, ServiceError, orders};
use crate::clock::Policy;
use crate::engine::Actor;
use crate::engine::{SKIP_ORDER, Seat, WaitKind};
use crate::mail::OutMail;
use crate::store::{Change, GameId};

/// A notice to the moderators of a game (`game_moderators` and the
/// site's), in each moderator's thread of the game: `subject` opens the
/// text, since the thread's subject stays the same.
pub fn to_moderators(
    ctx: &Ctx<'_>,
    id: &GameId,
    game_moderators: &[String],
    subject: &str,
    text: &str,
    now: DateTime<Utc>,
) -> Result<Vec<OutMail>, ServiceError> {
    let meta = ctx.store.meta(id)?;
    let stop = if subject.ends_with(['.', '?', '!']) {
        ""
    } else {
        "."
    };
    let text = format!(
        "{subject}{stop}\n\n{text}\n\n-- \nStationmaster, for {id}. Moderator commands: reply to this mail, or `stationmaster mod {id} …`.\n"
    );
    let html = report::notice_html(ctx, &text, None)?;
    report::to_each_moderator(ctx, id, &meta, game_moderators, "mod", &text, &html, now)
}

/// `1 deadline`, `3 deadlines`.
fn deadlines(n: u32) -> String {
    if n == 1 {
        format!("{n} deadline")
    } else {
        format!("{n} deadlines")
    }
}

/// Looks at one game at `now`; the change to commit, if any.
pub fn tick(
    ctx: &Ctx<'_>,
    id: &GameId,
    now: DateTime<Utc>,
) -> Result<Option<Change>, ServiceError> {
    // A game forming by mail has only its expiry.
    if ctx.store.forming(id)?.is_some() {
        return super::site::expire(ctx, id, now);
    }
    run(ctx, id, now, None)
}

/// A moderator's `skip`: every awaited player is treated as if their
/// deadline had passed now, and a `wait` policy counts as `skip`.
pub fn skip_awaited(
    ctx: &Ctx<'_>,
    id: &GameId,
    moderator: &str,
    now: DateTime<Utc>,
) -> Result<Change, ServiceError> {
    skip_awaited_because(ctx, id, moderator, None, now)
}

/// [`skip_awaited`], with the moderator's reason (written into the log
/// beside each player passed over).
pub fn skip_awaited_because(
    ctx: &Ctx<'_>,
    id: &GameId,
    moderator: &str,
    why: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Change, ServiceError> {
    run(ctx, id, now, Some((moderator, why))).map(|c| c.unwrap_or_default())
}

/// Why `seat` was passed over (or, under `wait`, waited for), for the log
/// and the reports (after the player's name): a missed deadline and the
/// policy that applied, or a moderator's skip. Kept in the log and read
/// later, so `when` is the deadline's time alone, never "60 minutes ago".
fn passed_over(
    game: &str,
    kind: WaitKind,
    policy: Policy,
    forced_by: Option<(&str, Option<&str>)>,
    when: &str,
    away_until: Option<String>,
) -> String {
    let entry = crate::registry::find(game).ok();
    let what = match (kind, policy) {
        (WaitKind::Turn, Policy::Wait) => {
            "the game waits for them, and the moderators were told".to_string()
        }
        (WaitKind::Turn, Policy::Default) => entry
            .map_or("the game's default order is given for them", |e| {
                e.default_turn
            })
            .to_string(),
        (WaitKind::Turn, _) => entry
            .map_or("the rest of the turn is skipped", |e| e.skip_turn)
            .to_string(),
        (kind, _) => entry
            .map_or("it is passed over", |e| e.wait(kind).missed)
            .to_string(),
    };
    match forced_by {
        Some((m, why)) => format!(
            "was skipped by moderator {m}{}: {what}",
            why.map(|w| format!(" ({w})")).unwrap_or_default()
        ),
        None => {
            let held = away_until
                .map(|to| format!(", after their absence until {to}"))
                .unwrap_or_default();
            let under = match kind {
                WaitKind::Turn => format!("under the game's `{}` policy ", policy.name()),
                _ => String::new(),
            };
            format!(
                "missed the deadline of their {} ({when}{held}); {under}{what}",
                crate::registry::wait_name(game, kind)
            )
        }
    }
}

fn run(
    ctx: &Ctx<'_>,
    id: &GameId,
    now: DateTime<Utc>,
    forced_by: Option<(&str, Option<&str>)>,
) -> Result<Option<Change>, ServiceError> {
    let loaded = ctx.store.load(id)?;
    let mut meta = ctx.store.meta(id)?;
    if forced_by.is_none() && (meta.paused.is_some() || meta.aborted) {
        return Ok(None);
    }
    if forced_by.is_some() {
        for w in meta.clock.waits.iter_mut() {
            w.due = now;
            w.late = false;
        }
    }
    let old_fire = meta.clock.next_fire;
    let record = loaded.record.clone();
    let names = loaded.game.player_names();
    let mut game = loaded.game;
    let mut batch = orders::Batch::default();
    let mut outbox: Vec<OutMail> = Vec::new();
    let mut to_players: Vec<(Seat, String)> = Vec::new();
    // What the clock did besides orders, for the turn log.
    let mut acts: Vec<(Seat, String)> = Vec::new();
    // Orders given for players passed over: (first, end) in
    // `batch.applied`, and why, for their log entries.
    let mut reasons: Vec<(usize, usize, String)> = Vec::new();
    let settings = meta.clock.settings.clone();

    // Missed deadlines, one at a time: each may change who is awaited.
    for _ in 0..64 {
        let Some(wait) = meta.clock.missed(now).into_iter().next() else {
            break;
        };
        let seat = wait.seat;
        let name = names.get(seat.index()).cloned().unwrap_or_default();
        // For the mails of this moment; the log gets `settings.when`.
        let when = settings.describe(wait.due, now);
        let away_until = meta
            .clock
            .away
            .get(seat.index())
            .and_then(|a| a.as_ref())
            .filter(|a| a.from <= wait.due)
            .map(|a| settings.when(a.to));
        if forced_by.is_none() {
            meta.clock.missed_one(seat);
        }
        // A veto question means `no veto`, a bid `pass`; a moderator's skip
        // overrides `wait`.
        // The policy in force when the deadline started, as players were
        // told a change of it applies to deadlines that start afterwards.
        let policy = match (wait.kind, wait.policy(&settings), forced_by) {
            (WaitKind::Turn, Policy::Wait, Some(_)) => Policy::Skip,
            (WaitKind::Turn, p, _) => p,
            _ => Policy::Default,
        };
        match policy {
            Policy::Wait => {
                if let Some(w) = meta
                    .clock
                    .waits
                    .iter_mut()
                    .find(|w| w.seat == seat && w.kind == wait.kind)
                {
                    w.late = true;
                }
                acts.push((
                    seat,
                    passed_over(
                        &record.setup.kind,
                        wait.kind,
                        policy,
                        None,
                        &settings.when(wait.due),
                        away_until,
                    ),
                ));
                to_players.push((seat, format!("Your deadline for your {} passed at {when}. The game waits for you; the moderators have been told.", crate::registry::wait_name(&record.setup.kind, wait.kind))));
                outbox.extend(to_moderators(
                    ctx,
                    id,
                    &meta.moderators,
                    &format!("{name} missed a deadline"),
                    &format!("{name}'s deadline for their {} passed at {when}. This game's policy is `wait`: nothing happens until they act, or you act for them: reply to this mail with `skip` (or `as {name} ORDER` to give their orders), or on the server `stationmaster mod {id} skip`.", crate::registry::wait_name(&record.setup.kind, wait.kind)),
                    now,
                )?);
            }
            Policy::Skip | Policy::Default => {
                let first = batch.applied.len();
                let reason = passed_over(
                    &record.setup.kind,
                    wait.kind,
                    policy,
                    forced_by,
                    &settings.when(wait.due),
                    away_until,
                );
                let mut done = Vec::new();
                // Give the default order for each action still owed, or
                // skip; never loop on a game that does not move on.
                for _ in 0..8 {
                    let still = game
                        .awaiting()
                        .iter()
                        .any(|a| a.seat == seat && a.kind == wait.kind);
                    if !still {
                        break;
                    }
                    let line = match policy {
                        Policy::Default => game
                            .default_order_line(seat)
                            .unwrap_or_else(|| SKIP_ORDER.to_string()),
                        _ => SKIP_ORDER.to_string(),
                    };
                    match game.apply_line(seat, &line) {
                        Ok(applied) => {
                            done.push(applied.order.clone());
                            batch.applied.push((seat, applied));
                        }
                        Err(e) => {
                            tracing::error!(game = %id, %line, error = %e, "a deadline's order was refused");
                            break;
                        }
                    }
                }
                let skipped = done.iter().all(|o| o == SKIP_ORDER);
                reasons.push((first, batch.applied.len(), reason));
                let wait_name = crate::registry::wait_name(&record.setup.kind, wait.kind);
                // A moderator's skip says the skip once; a missed deadline
                // says what became of the turn.
                let told = match (forced_by, skipped) {
                    (Some((m, _)), true) => format!("A moderator ({m}) skipped your {wait_name}."),
                    (Some((m, _)), false) => format!(
                        "A moderator ({m}) skipped your {wait_name}; it counted as: {}.",
                        done.join("; ")
                    ),
                    (None, true) => format!(
                        "Your deadline for your {wait_name} passed at {when}; the rest of your turn was skipped."
                    ),
                    (None, false) => format!(
                        "Your deadline for your {wait_name} passed at {when}; it counted as: {}.",
                        done.join("; ")
                    ),
                };
                to_players.push((seat, told));
            }
        }
        // Asked at a missed deadline only, not at a moderator's skip.
        if forced_by.is_none()
            && let Some(misses) = meta.clock.ask_to_replace(seat)
        {
            acts.push((
                seat,
                format!(
                    "missed {} in a row: the moderators were asked to replace them",
                    deadlines(misses)
                ),
            ));
            outbox.extend(to_moderators(
                ctx,
                id,
                &meta.moderators,
                &format!("Replace {name}?"),
                &format!("{name} has missed {} in a row. To seat someone else, reply to this mail with `replace {name} NEW-ADDRESS` (on the server: `stationmaster mod {id} replace {name} NEW-ADDRESS`); to keep {name} in the seat, do nothing: you are not asked again for this run of misses.", deadlines(misses)),
                now,
            )?);
        }
        orders::flush_queues(&mut game, &mut meta, &mut batch);
        meta.clock.sync(&game.awaiting(), now);
    }

    // Reminders to players who still owe input.
    let mut map = None;
    // One reminder a deadline, however many of its leads have come (after
    // an outage, several at once): all count as sent.
    for (seat, kind, leads) in meta.clock.reminders_due(now) {
        let Some(w) = meta
            .clock
            .waits
            .iter_mut()
            .find(|w| w.seat == seat && w.kind == kind)
        else {
            continue;
        };
        w.reminded.extend(leads.iter().map(|l| l.0));
        let due = w.due;
        acts.push((
            seat,
            // Kept in the log, read later: the time alone, not "in 22
            // hours" (the reminder mail itself says how long is left).
            format!("reminder sent: deadline {}", settings.when(due)),
        ));
        if batch.applied.is_empty() {
            let mail = MailContext {
                notes: vec![format!(
                    "Reminder: your deadline is {}.",
                    settings.describe(due, now)
                )],
                ..MailContext::default()
            };
            outbox.push(report::player_mail(
                ctx,
                id,
                &record,
                &meta,
                &*game,
                map.get_or_insert_with(|| report::Board::new(ctx, &*game, &[])),
                seat,
                mail,
                None,
                now,
            )?);
        }
    }

    // Absences: a warning a day before the end; forgotten once over.
    for seat in meta.clock.away_ending(now) {
        let to = meta.clock.away[seat.index()]
            .as_ref()
            .map(|a| a.to)
            .unwrap_or(now);
        if let Some(Some(a)) = meta.clock.away.get_mut(seat.index()) {
            a.warned = true;
        }
        acts.push((
            seat,
            format!("warned that their absence ends {}", settings.when(to)),
        ));
        to_players.push((
            seat,
            format!(
                "Your absence ends {}; your deadlines run again from then.",
                settings.describe(to, now)
            ),
        ));
    }
    for a in meta.clock.away.iter_mut() {
        if a.as_ref().is_some_and(|a| a.to <= now) {
            *a = None;
        }
    }
    meta.clock.plan();

    let changed = !batch.applied.is_empty();
    batch.notes.extend(to_players.iter().cloned());
    let source = forced_by.map_or(Actor::Deadline, |(m, _)| Actor::Moderator(m.to_string()));
    // What the clock did goes into the turn log too, after any orders.
    let turn = game.turn_number();
    let then = acts
        .into_iter()
        .map(|(seat, text)| {
            let player = names.get(seat.index()).cloned().unwrap_or_default();
            let kind = crate::store::EntryKind::Act;
            crate::store::LogEntry::act(seat, player, text, source.clone(), kind, now, turn)
        })
        .collect();
    let mut step = super::pipeline::Step::new(&*game, meta, &batch, source);
    // Each order given for a player passed over says why.
    step.whys = reasons;
    step.then = then;
    // Notes without a change go to their players alone, below.
    step.to = changed.then_some(super::pipeline::Recipients::All);
    let (update, reports) = super::pipeline::write(ctx, id, loaded.seq, old_fire, step, now)?;
    outbox.extend(reports);
    if !changed {
        // Notes without a change go to their players alone.
        let mut map = None;
        for (seat, note) in to_players {
            let mail = MailContext {
                notes: vec![note],
                ..MailContext::default()
            };
            outbox.push(report::player_mail(
                ctx,
                id,
                &record,
                &update.meta,
                &*game,
                map.get_or_insert_with(|| report::Board::new(ctx, &*game, &[])),
                seat,
                mail,
                None,
                now,
            )?);
        }
    }
    Ok(Some(Change {
        update: Some(update),
        outbox,
        ..Change::default()
    }))
}
