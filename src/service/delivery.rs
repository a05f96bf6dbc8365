//! Who gets what after a change to a game: each player as much mail as
//! they chose (`reports full|short|turn`, the game's default unless they
//! chose), and the game's observers the spectator's page. The reports
//! themselves are composed in [`super::report`]; this module only decides
//! their form and writes the short ones.

use chrono::{DateTime, Utc};

use super::report;
use super::{Ctx, ServiceError};
use crate::engine::{AnyGame, Seat, Status};
use crate::mail::OutMail;
use crate::mail::compose::Draft;
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
    now: DateTime<Utc>,
) -> Result<OutMail, ServiceError> {
    let mut text = format!("{id}: {}\n", report::headline(game));
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
    let waits = report::deadline_lines(game, meta, Some(seat), now);
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
    };
    super::compose_mail(ctx, &id.0, "short", &draft, now)
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
