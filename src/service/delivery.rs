//! Who gets what after a change to a game: each player as much mail as
//! they chose (`reports full|short|turn`, the game's default unless they
//! chose), and the game's observers the spectator's page. The reports
//! themselves are composed in [`super::report`]; this module only decides
//! their form and writes the short ones.

use crate::engine::Viewer;
use chrono::{DateTime, Utc};

use super::report;
use super::{Ctx, ServiceError};
use crate::engine::{AnyGame, Seat, Status};
use crate::mail::OutMail;
use crate::mail::compose::{Draft, FileAttachment};
use crate::store::{GameId, GameMeta, GameRecord, ReportMode};

/// The form of one player's mail after a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// The report with the map.
    Full,
    /// One line per change, in a short mail.
    Short,
    /// No mail now: their next report covers it.
    Nothing,
}

/// What `mode` gives a player after a change: the full report whenever
/// the game waits for them, answers their own mail or is over; otherwise
/// `short` gets its lines and `turn` nothing.
pub(crate) fn form_for(mode: ReportMode, awaited: bool, answering: bool, over: bool) -> Form {
    if awaited || answering || over {
        return Form::Full;
    }
    match mode {
        ReportMode::Full => Form::Full,
        ReportMode::Short => Form::Short,
        ReportMode::Turn => Form::Nothing,
    }
}

/// True if `game` waits for `seat`, or is over (the last report goes to
/// everyone, in full).
pub(crate) fn awaits_or_over(game: &dyn AnyGame, meta: &GameMeta, seat: Seat) -> (bool, bool) {
    let over = meta.aborted || matches!(game.status(), Status::Finished(_));
    (game.awaiting().iter().any(|a| a.seat == seat), over)
}

/// The short mail of `seat` (who chose `reports short`): one line per
/// change since their last mail, notes for them, whom the game waits for;
/// in their thread of the game.
#[allow(clippy::too_many_arguments)]
pub(crate) fn short_mail(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    meta: &GameMeta,
    game: &dyn AnyGame,
    seat: Seat,
    events: &[String],
    notes: &[String],
    ended: Option<&report::Ended>,
    now: DateTime<Utc>,
) -> Result<OutMail, ServiceError> {
    let mut text = format!(
        "{id}: {}\n",
        report::headline_of(game, meta, ended, Viewer::Player(seat))
    );
    // One line per change: the log entries, without what each caused.
    let changes: Vec<&String> = events.iter().filter(|l| !l.starts_with(' ')).collect();
    if !changes.is_empty() {
        text.push_str("\nSince your last mail:\n");
        for c in changes {
            text.push_str(&format!("  {c}\n"));
        }
    }
    for n in notes {
        text.push_str(&format!("\n{n}\n"));
    }
    let waits = report::deadline_lines(game, meta, Viewer::Player(seat), now);
    if !waits.is_empty() {
        text.push_str("\nWaiting for:\n");
        for w in waits {
            text.push_str(&format!("  {w}\n"));
        }
    }
    text.push_str(
        "\nYou get short reports (`reports short`): your full report with the map comes when the game waits for you. Reply `map` for it now, `reports full` for it after every change.\n",
    );
    text.push_str(&format!(
        "\n-- \nStationmaster, for {id} ({}).\n",
        crate::registry::title(&record.setup.kind)
    ));
    let thread = report::player_thread(ctx, id, record, meta, seat);
    let (in_reply_to, references) = thread.threading(None);
    let token = meta.tokens.get(seat.index()).cloned().unwrap_or_default();
    let draft = Draft {
        to_name: record.setup.players[seat.index()].name.clone(),
        to: meta.address(record, seat).to_string(),
        subject: thread.subject(false),
        html: Some(report::notice_html(ctx, &text, None)?),
        text,
        in_reply_to,
        references,
        reply_to: Some(report::reply_address(&ctx.config.mail.address, id, &token)),
        // One line per change: the picture comes with the full report.
        picture: None,
        attachment: None,
    };
    super::compose_mail(ctx, &id.0, "short", &draft, now)
}

/// The thread of observer `address` of game `id`: a stable root of its
/// own, so that every mail they get about the game is one conversation.
fn observer_thread(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    address: &str,
) -> report::Thread {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{}\nwatch\n{}", id.0, address.to_ascii_lowercase()));
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    report::Thread {
        subject: format!(
            "[{id}] {}, watched",
            crate::registry::title(&record.setup.kind)
        ),
        root: format!(
            "{}.watch.{hex}@{}",
            id.0,
            crate::mail::compose::domain(&ctx.config.mail)
        ),
    }
}

/// A mail to observer `address`: `note`, what happened (`events`), the
/// board (its picture too, where the game draws one) and status as a
/// spectator sees them (nobody's private information), and whom the game
/// waits for; with the game's archive `attached`, where given.
#[allow(clippy::too_many_arguments)]
pub(crate) fn observer_mail(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    meta: &GameMeta,
    game: &dyn AnyGame,
    board: &report::Board,
    address: &str,
    events: &[String],
    note: &str,
    ended: Option<&report::Ended>,
    attached: Option<&FileAttachment>,
    now: DateTime<Utc>,
) -> Result<OutMail, ServiceError> {
    let settings = &meta.clock.settings;
    let mut text = format!(
        "{id}: {}\n\n{note}\n",
        report::headline_of(game, meta, ended, Viewer::Spectator)
    );
    if !events.is_empty() {
        text.push_str("\nSince your last mail:\n");
        for e in events {
            text.push_str(&format!("  {e}\n"));
        }
    }
    let status = report::status_block(game, ended, Viewer::Spectator);
    text.push_str(&format!(
        "\n{}\n",
        report::mail_page(&board.map.text, &status)
    ));
    let waits = report::deadline_lines(game, meta, Viewer::Spectator, now);
    if !waits.is_empty() {
        text.push_str("\nWaiting for:\n");
        for w in waits {
            text.push_str(&format!("  {w}\n"));
        }
    }
    text.push_str(&format!(
        "\n-- \nStationmaster, for {id} ({}). You watch this game; reply `unwatch` to stop. Observers' mail is never read as orders.\n",
        crate::registry::title(&record.setup.kind)
    ));
    let thread = observer_thread(ctx, id, record, address);
    let picture = board.picture(ctx, game, ended, settings);
    let draft = Draft {
        html: Some(report::notice_html_with_picture(
            ctx,
            &text,
            None,
            picture.as_ref().map(|(_, r)| r),
        )?),
        picture: picture.map(|(p, _)| p),
        attachment: attached.cloned(),
        ..observer_draft(ctx, &thread, address, text)
    };
    super::compose_mail(ctx, &id.0, super::page_address::OBSERVER_MAIL, &draft, now)
}

/// A mail of `text` to observer `address` of game `id`, in their thread.
pub(crate) fn observer_notice(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    address: &str,
    text: String,
    now: DateTime<Utc>,
) -> Result<OutMail, ServiceError> {
    let thread = observer_thread(ctx, id, record, address);
    let draft = Draft {
        html: Some(report::notice_html(ctx, &text, None)?),
        ..observer_draft(ctx, &thread, address, text)
    };
    super::compose_mail(ctx, &id.0, super::page_address::OBSERVER_MAIL, &draft, now)
}

/// A text mail to observer `address` in `thread` (no HTML yet).
fn observer_draft(ctx: &Ctx<'_>, thread: &report::Thread, address: &str, text: String) -> Draft {
    let (in_reply_to, references) = thread.threading(None);
    Draft {
        to: address.to_string(),
        subject: thread.subject(false),
        text,
        in_reply_to,
        references,
        reply_to: Some(ctx.config.mail.address.clone()),
        ..Draft::default()
    }
}

/// A mail to each observer of game `id` after a change (`update`): what
/// happened since their last mail, as a spectator sees it; at the end,
/// the game's whole public log too, and where its archive is (its page on
/// the web, or the file `attached`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn to_observers(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    update: &mut crate::store::GameUpdate,
    game: &dyn AnyGame,
    board: &report::Board,
    attached: Option<&FileAttachment>,
    now: DateTime<Utc>,
) -> Result<Vec<OutMail>, ServiceError> {
    let mut out = Vec::new();
    if update.entries.is_empty() || update.meta.observers.is_empty() {
        return Ok(out);
    }
    let ended = report::ended_after(ctx.store, update, game)?;
    let new_seq = update.base_seq + update.entries.len() as u64;
    let (_, over) = awaits_or_over(game, &update.meta, Seat(0));
    let archive = if over {
        let mut all = ctx.store.log(id)?;
        all.extend(update.entries.iter().cloned());
        all.retain(|e| e.seq <= new_seq);
        // Nobody's private messages: a spectator is no end of any.
        let lines = report::history_lines(game, &all, Viewer::Spectator)
            .map_err(crate::store::StoreError::from)?;
        let reader = super::page_address::Reader::Observer;
        let kept = report::archive_reached(ctx, (record, &update.meta), reader, attached)
            .map(|r| format!("; as one page, with the board, it is {r}"))
            .unwrap_or_default();
        Some(format!(
            "The game is over. Its archive, the whole log, follows{kept}.\n\n{}",
            lines.join("\n")
        ))
    } else {
        None
    };
    let observers = update.meta.observers.clone();
    for (i, o) in observers.iter().enumerate() {
        let mut entries = if o.reported < update.base_seq {
            ctx.store.log_since(id, o.reported)?
        } else {
            Vec::new()
        };
        entries.extend(
            update
                .entries
                .iter()
                .filter(|e| e.seq > o.reported)
                .cloned(),
        );
        let events = report::event_lines(game, &entries, Viewer::Spectator)
            .map_err(crate::store::StoreError::from)?;
        let note = archive
            .clone()
            .unwrap_or_else(|| "What happened:".to_string());
        out.push(observer_mail(
            ctx,
            id,
            record,
            &update.meta,
            game,
            board,
            &o.address,
            &events,
            &note,
            ended.as_ref(),
            attached.filter(|_| over),
            now,
        )?);
        if let Some(slot) = update.meta.observers.get_mut(i) {
            slot.reported = new_seq;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mode_gets_the_full_report_when_awaited_and_its_own_form_otherwise() {
        for mode in ReportMode::ALL {
            assert_eq!(form_for(mode, true, false, false), Form::Full);
            assert_eq!(form_for(mode, false, true, false), Form::Full);
            assert_eq!(form_for(mode, false, false, true), Form::Full);
        }
        assert_eq!(form_for(ReportMode::Full, false, false, false), Form::Full);
        assert_eq!(
            form_for(ReportMode::Short, false, false, false),
            Form::Short
        );
        assert_eq!(
            form_for(ReportMode::Turn, false, false, false),
            Form::Nothing
        );
    }
}
