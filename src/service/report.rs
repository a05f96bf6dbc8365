//! The mails players get: each rendered from that player's own view through
//! the templates, so one player's mail can never show another's secrets.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Ctx, ServiceError};
use crate::engine::SetupError;
use crate::engine::{AnyGame, Seat, Status, Viewer};
use crate::mail::OutMail;
use crate::mail::compose::{Draft, FileAttachment};
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
    /// The welcome of one who takes over a seat a moderator gave them
    /// (`replace`): the seat keeps its name (`player`), which the orders
    /// and the other players use, and the mail says so instead of greeting
    /// them by a name that is not theirs.
    pub successor: bool,
    /// In the welcome at the start of a game: who plays first.
    pub first: Option<String>,
    /// In a welcome: the games each player finished here
    /// ([`super::records::finished_line`]).
    pub finished: Option<String>,
    /// The reply to the reader's own mail.
    pub reply: Option<ReplySection>,
    /// Notes for the reader.
    pub notes: Vec<String>,
    /// The order grammar, when asked for.
    pub help: Option<String>,
    /// The game's history, when asked for.
    pub history: Option<Vec<String>>,
    /// The answers to `moves [WHAT]`, each what was asked and the orders.
    pub moves: Vec<Listing>,
    /// What `moves` lines asked (the word after it, if any), answered as
    /// [`Self::moves`] by [`player_mail`] for the game as it stands then.
    #[serde(skip)]
    pub moves_asked: Vec<Option<String>>,
    /// What happened since the reader's last report.
    pub events: Vec<String>,
    /// The map and status, as text.
    pub map: String,
    /// The map and status, as an HTML `<pre>`.
    pub map_html: String,
    /// The board's picture, shown above the map where the game draws one
    /// (and `[mail] pictures` is on).
    pub picture: Option<PictureRef>,
    /// The "You can:" hints.
    pub hints: Vec<String>,
    /// Who must act by when: one line per awaited player.
    pub deadlines: Vec<String>,
    /// Whose turn it is, or how the game ended, in a line.
    pub headline: String,
    /// The game is over (finished, or aborted): nothing more is asked of
    /// the reader.
    pub over: bool,
    /// The archive of a game that is over, where the games are not on the
    /// web (there its page, [`Self::web`], is the archive): the name of the
    /// HTML file the game's last mail carries.
    pub archive: String,
    /// True if this mail carries the archive ([`Self::archive`]).
    pub archive_attached: bool,
    /// The address of the game's page on the web, where the games are
    /// (`[web]`); empty otherwise.
    pub web: String,
    /// The reader's `reports` mode (`full`, `short`, `turn`).
    pub reports: String,
    /// What it means.
    pub reports_what: String,
    /// The other modes, as a player writes them: `reports short`.
    pub reports_other: Vec<String>,
    /// In a welcome: the modes that send fewer mails than the reader's,
    /// fewest first, with what each sends.
    pub fewer_reports: Vec<ReportsChoice>,
    /// Where the mail goes, if not to the seat's address: the answer to a
    /// player's mail goes back to the address it came from.
    #[serde(skip)]
    pub to: Option<String>,
    /// The reader's status block, where it was read with [`Self::events`]
    /// ([`event_lines_and_status`]); [`player_mail`] reads it otherwise.
    #[serde(skip)]
    pub status: Option<String>,
    /// How the game ended, where the caller knows it (an abort being made
    /// is not in the stored log yet); [`player_mail`] reads it otherwise.
    #[serde(skip)]
    pub ended: Option<Ended>,
    /// The game's archive, attached to the mail of a game that is over
    /// where the games are not on the web.
    #[serde(skip)]
    pub attachment: Option<FileAttachment>,
}

/// One answer to `moves [WHAT]`: a sentence, and the orders one a line
/// (sent as they are, to be copied).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Listing {
    /// What the list is, or why there is none.
    pub said: String,
    /// The orders.
    pub lines: Vec<String>,
}

/// The answers to `asked` (`moves` lines, each its word after `moves`)
/// for `seat`, from the game as it stands.
fn listings(game: &dyn AnyGame, seat: Seat, asked: &[Option<String>]) -> Vec<Listing> {
    asked
        .iter()
        .map(|about| {
            let command = match about {
                Some(a) => format!("moves {a}"),
                None => "moves".to_string(),
            };
            match game.order_list(seat, about.as_deref()) {
                Ok(lines) if lines.is_empty() => Listing {
                    said: format!("`{command}`: you have no order to give now."),
                    lines,
                },
                Ok(lines) => Listing {
                    said: format!(
                        "`{command}`: what you can order now; copy the orders you mean into \
                         your reply, one a line:"
                    ),
                    lines,
                },
                Err(why) => Listing {
                    said: format!("{}.", why.trim_end_matches('.')),
                    lines: Vec::new(),
                },
            }
        })
        .collect()
}

/// In `mail` to `seat`: the answers to its `moves` lines; and, where it
/// answers their own mail and leaves their turn half done, what is still
/// owed (issue 35: never silence about it).
fn answer_moves_and_owed(game: &dyn AnyGame, seat: Seat, meta: &GameMeta, mail: &mut MailContext) {
    mail.moves = listings(game, seat, &mail.moves_asked);
    if let Some(reply) = mail.reply.as_mut()
        && meta.paused.is_none()
        && let Some(owed) = game.unfinished(seat)
    {
        reply.notes.push(owed);
    }
}

/// A `reports` mode as the welcome offers it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReportsChoice {
    /// As a player writes it: `reports turn`.
    pub name: String,
    /// What it sends.
    pub what: String,
}

/// The board's picture as the HTML part refers to it:
/// `<img src="cid:{{ picture.cid }}" width=… height=…>`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PictureRef {
    /// The Content-ID of the PNG attached beside the HTML.
    pub cid: String,
    /// Its size in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
}

/// The board of one change, as every report of it shows the board: the
/// map drawn once, and the picture drawn and rendered to PNG once, when the
/// first report asks for it (it shows nothing private, so it is one
/// picture for every reader: rendering it for each was most of a report's
/// cost). A player with a layer of their own (Linie 1's route while they
/// lay track, issue 35: [`AnyGame::own_board`]) is shown their own map
/// and picture instead, each drawn once, when their first report asks.
pub struct Board {
    /// The ASCII map.
    pub map: crate::engine::Map,
    /// The events of the change (as stored), marked on the picture.
    last: Vec<serde_json::Value>,
    /// `[mail] pictures`.
    pictures: bool,
    /// The picture as rendered (None inside: none, or it would not render).
    rendered: std::cell::OnceCell<Option<(crate::mail::compose::InlinePicture, PictureRef)>>,
    /// Each player's own board once asked for (None inside: they are
    /// shown this one).
    own: std::cell::RefCell<Vec<(Seat, Option<std::rc::Rc<OwnBoard>>)>>,
}

/// A player's own map and picture ([`Board::own`]).
pub struct OwnBoard {
    /// Their map.
    pub map: crate::engine::Map,
    /// Their picture as rendered, where pictures are on and it renders.
    pub picture: Option<(crate::mail::compose::InlinePicture, PictureRef)>,
}

impl Board {
    /// The board of `game` after a change whose log entries are `entries`
    /// (none: a welcome, a resent report).
    pub fn new(ctx: &Ctx<'_>, game: &dyn AnyGame, entries: &[LogEntry]) -> Board {
        Board {
            map: game.render_map(),
            last: entries.iter().flat_map(|e| e.events.clone()).collect(),
            pictures: ctx.config.mail.pictures,
            rendered: std::cell::OnceCell::new(),
            own: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// `seat`'s own map and picture, drawn (and rendered) on the first
    /// call for them; None where they are shown this board's (`map`,
    /// [`Board::picture`]): the game draws them no layer of their own, or
    /// it is over. A picture that cannot be drawn is logged, and their
    /// reports go without it.
    pub fn own(
        &self,
        ctx: &Ctx<'_>,
        game: &dyn AnyGame,
        seat: Seat,
        ended: Option<&Ended>,
        settings: &crate::clock::ClockSettings,
    ) -> Option<std::rc::Rc<OwnBoard>> {
        if let Some((_, own)) = self.own.borrow().iter().find(|(s, _)| *s == seat) {
            return own.clone();
        }
        let stopped = ended.and_then(|e| e.stopped(settings));
        let own = match game.own_board(
            Viewer::Player(seat),
            &self.last,
            stopped.as_deref(),
            self.pictures,
        ) {
            Ok(own) => own,
            Err(e) => {
                tracing::warn!(error = %e, "a player's own board could not be drawn; their reports show everyone's");
                None
            }
        };
        let own = own.map(|own| {
            let picture = own.picture.and_then(|picture| match crate::picture::png(&picture) {
                Ok(png) => Some(inline_picture(ctx, png)),
                Err(e) => {
                    tracing::warn!(error = %e, "a player's picture could not be rendered; their reports go without it");
                    None
                }
            });
            std::rc::Rc::new(OwnBoard {
                map: own.map,
                picture,
            })
        });
        self.own.borrow_mut().push((seat, own.clone()));
        own
    }

    /// The picture, rendered on the first call; None where pictures are
    /// off, the game draws none, or it would not render (a fault in the
    /// drawing, logged: the reports go without it). `ended`: how the game
    /// ended, if it is over (an abort is said in the picture where the
    /// turn would be).
    pub fn picture(
        &self,
        ctx: &Ctx<'_>,
        game: &dyn AnyGame,
        ended: Option<&Ended>,
        settings: &crate::clock::ClockSettings,
    ) -> Option<(crate::mail::compose::InlinePicture, PictureRef)> {
        if !self.pictures {
            return None;
        }
        self.rendered
            .get_or_init(|| {
                let stopped = ended.and_then(|e| e.stopped(settings));
                let picture = match game.picture(&self.last, stopped.as_deref()) {
                    Ok(picture) => picture?,
                    Err(e) => {
                        tracing::warn!(error = %e, "the board's picture could not be drawn; reports go without it");
                        return None;
                    }
                };
                match crate::picture::png(&picture) {
                    Ok(png) => Some(inline_picture(ctx, png)),
                    Err(e) => {
                        tracing::warn!(error = %e, "the board's picture could not be rendered; reports go without it");
                        None
                    }
                }
            })
            .clone()
    }
}

/// A rendered PNG as a mail attaches it: its Content-ID is made from its
/// bytes, so the same picture has the same id in every mail.
fn inline_picture(
    ctx: &Ctx<'_>,
    png: crate::picture::Png,
) -> (crate::mail::compose::InlinePicture, PictureRef) {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(&png.bytes);
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let cid = format!(
        "board.{hex}@{}",
        crate::mail::compose::domain(&ctx.config.mail)
    );
    let reference = PictureRef {
        cid: cid.clone(),
        width: png.width,
        height: png.height,
    };
    let inline = crate::mail::compose::InlinePicture::new(cid, "board.png".to_string(), png.bytes);
    (inline, reference)
}

/// A short status line for subjects: whose turn, or the end.
pub fn headline(game: &dyn AnyGame) -> String {
    headline_to(game, Viewer::Spectator)
}

/// [`headline`] as `viewer` reads it: what they are awaited for may name a
/// choice only they know of ([`crate::engine::Game::awaiting_to`]).
pub fn headline_to(game: &dyn AnyGame, viewer: Viewer) -> String {
    let names = game.player_names();
    match game.status() {
        Status::Finished(placings) => {
            let winners: Vec<&str> = placings
                .iter()
                .filter(|p| p.place == 1)
                .map(|p| names[p.seat.index()].as_str())
                .collect();
            // A game can end with nobody first (Linie 1 blocked): "anna and
            // ben won" beside "the game ends with no winner" was a lie.
            if winners.is_empty() {
                "Game over: nobody won".to_string()
            } else {
                format!("Game over: {} won", winners.join(" and "))
            }
        }
        Status::Active(_) => format!("Waiting for {}", awaited_names(game, viewer).join(", ")),
    }
}

/// Whom `game` awaits, as `viewer` may be told ([`crate::engine::Game::awaiting_to`]),
/// each with what for: `bob (2 actions)`.
pub fn awaited_names(game: &dyn AnyGame, viewer: Viewer) -> Vec<String> {
    let names = game.player_names();
    game.awaiting_to(viewer)
        .iter()
        .map(|a| {
            let name = names.get(a.seat.index()).map_or("", String::as_str);
            format!("{name} ({})", a.what)
        })
        .collect()
}

/// How a game that is over ended: aborted by a moderator, or finished by
/// its rules. Such a game takes no more orders, and every view says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// A moderator's `abort`.
    Aborted {
        /// When.
        at: DateTime<Utc>,
        /// The moderator (`operator` from the command line).
        by: String,
        /// Their reason, if given.
        why: Option<String>,
    },
    /// The rules ended it: the headline (`Game over: bob won`).
    Finished(String),
}

impl Ended {
    /// A sentence for a refused order or command: `rocket-1 was aborted by
    /// a moderator on Mon 23 Nov 2026 09:00 UTC (why): it takes no more
    /// orders`.
    pub fn refusal(&self, id: &GameId, settings: &crate::clock::ClockSettings) -> String {
        format!("{id} {}: it takes no more orders", self.what(settings))
    }

    /// `was aborted by a moderator on … (why)`, or `is finished (bob won)`.
    pub fn what(&self, settings: &crate::clock::ClockSettings) -> String {
        match self {
            Ended::Aborted { at, by, why } => format!(
                "was aborted by a moderator ({by}) on {}{}",
                settings.when(*at),
                why.as_deref()
                    .map(|w| format!(" ({w})"))
                    .unwrap_or_default()
            ),
            Ended::Finished(headline) => format!(
                "is finished ({})",
                headline.strip_prefix("Game over: ").unwrap_or(headline)
            ),
        }
    }

    /// How it ended, for a status block (`The game is over: …`): `aborted
    /// by a moderator (gm@example.org) on … (why), without a result`, or
    /// `bob won`.
    pub fn how(&self, settings: &crate::clock::ClockSettings) -> String {
        match self {
            Ended::Aborted { .. } => format!(
                "{}, without a result",
                self.what(settings).trim_start_matches("was ")
            ),
            Ended::Finished(headline) => headline
                .strip_prefix("Game over: ")
                .unwrap_or(headline)
                .to_string(),
        }
    }

    /// The line a mail about the game opens with: `Game over: aborted by a
    /// moderator (…) on … (why), without a result`, or `Game over: bob won`.
    pub fn headline(&self, settings: &crate::clock::ClockSettings) -> String {
        match self {
            Ended::Aborted { .. } => format!("Game over: {}", self.how(settings)),
            Ended::Finished(headline) => headline.clone(),
        }
    }

    /// A moderator's stop in a few words, for a picture's title: `aborted
    /// on …`; `None` for a game its rules ended (it says so itself).
    pub fn stopped(&self, settings: &crate::clock::ClockSettings) -> Option<String> {
        matches!(self, Ended::Aborted { .. }).then(|| self.short(settings))
    }

    /// A few words for `games`: `aborted on …`, `finished: bob won`.
    pub fn short(&self, settings: &crate::clock::ClockSettings) -> String {
        match self {
            Ended::Aborted { at, .. } => format!("aborted on {}", settings.when(*at)),
            Ended::Finished(headline) => format!(
                "finished: {}",
                headline.strip_prefix("Game over: ").unwrap_or(headline)
            ),
        }
    }
}

/// How game `id` ended, if it is over (its `abort` is read from the log:
/// who, when and why).
pub fn ended(
    store: &crate::store::Store,
    id: &GameId,
    meta: &GameMeta,
    game: &dyn AnyGame,
) -> Result<Option<Ended>, crate::store::StoreError> {
    let log = if meta.aborted {
        store.log(id)?
    } else {
        Vec::new()
    };
    Ok(ended_in(meta, game, &log))
}

/// How a game ended, if it is over, with `log` its log (read only for an
/// abort, so it may be empty for a game that was not aborted; a change not
/// yet stored goes at its end, so the abort being made is found).
pub fn ended_in(meta: &GameMeta, game: &dyn AnyGame, log: &[LogEntry]) -> Option<Ended> {
    if meta.aborted {
        let act = log.iter().rev().find(|e| {
            e.kind == crate::store::EntryKind::Act
                && e.order == "abort"
                && e.source.as_ref().is_some_and(|s| s.moderator().is_some())
        });
        return Some(match act {
            Some(e) => Ended::Aborted {
                at: e.at,
                by: e
                    .source
                    .as_ref()
                    .and_then(|s| s.moderator())
                    .unwrap_or("a moderator")
                    .to_string(),
                why: e.why.clone(),
            },
            None => Ended::Aborted {
                at: log.last().map_or_else(Utc::now, |e| e.at),
                by: "a moderator".to_string(),
                why: None,
            },
        });
    }
    match game.status() {
        Status::Finished(_) => Some(Ended::Finished(headline(game))),
        Status::Active(_) => None,
    }
}

/// How the game of `update` ended, if it did, `update` included: an abort
/// is read from the log, and the abort being made is one of the change's
/// entries, not stored yet.
pub fn ended_after(
    store: &crate::store::Store,
    update: &crate::store::GameUpdate,
    game: &dyn AnyGame,
) -> Result<Option<Ended>, crate::store::StoreError> {
    let log = if update.meta.aborted {
        let mut log = store.log(&update.id)?;
        log.extend(update.entries.iter().cloned());
        log
    } else {
        Vec::new()
    };
    Ok(ended_in(&update.meta, game, &log))
}

/// The line a mail about `game` to `viewer` opens with: whose turn
/// ([`headline_to`]), that it is paused (by whom, since when, and that a
/// moderator's `resume` starts it again: nobody can move meanwhile), or
/// how it `ended` (an abort, who made it and why).
pub fn headline_of(
    game: &dyn AnyGame,
    meta: &GameMeta,
    ended: Option<&Ended>,
    viewer: Viewer,
) -> String {
    let settings = &meta.clock.settings;
    match (ended, meta.paused) {
        (Some(e), _) => e.headline(settings),
        (None, Some(since)) => {
            paused_headline(game, viewer, meta.paused_by.as_deref(), since, settings)
        }
        (None, None) => headline_to(game, viewer),
    }
}

/// `Paused by a moderator (gm@example.org) since Mon 23 Nov 2026 09:00
/// UTC: nothing moves until a moderator resumes it; then bob (2 actions)
/// is to play`.
fn paused_headline(
    game: &dyn AnyGame,
    viewer: Viewer,
    by: Option<&str>,
    since: DateTime<Utc>,
    settings: &crate::clock::ClockSettings,
) -> String {
    let by = by.map(|b| format!(" ({b})")).unwrap_or_default();
    let who = awaited_names(game, viewer);
    let then = match game.status() {
        Status::Active(_) if !who.is_empty() => {
            let verb = if who.len() == 1 { "is" } else { "are" };
            format!("; then {} {verb} awaited", who.join(", "))
        }
        _ => String::new(),
    };
    format!(
        "Paused by a moderator{by} since {}: nothing moves until a moderator resumes it{then}",
        settings.when(since)
    )
}

/// The status block of `viewer`, as the game shows it; for a game a
/// moderator aborted, the position as it was left, final, saying that it
/// was aborted instead of whom it waits for (who, when and why are the
/// caller's to say, once, above it).
pub fn status_block(game: &dyn AnyGame, ended: Option<&Ended>, viewer: Viewer) -> String {
    match ended {
        // Who, when and why are said above it (a mail's headline, `show`'s
        // first line, the archive's head): the block says only that the
        // position is final.
        Some(Ended::Aborted { .. }) => {
            game.render_stopped_status(viewer, "aborted by a moderator, without a result")
        }
        _ => game.render_status(viewer),
    }
}

/// The map `viewer` is shown: their own while the game runs
/// ([`AnyGame::render_map_to`]), else the spectator's.
fn map_of(game: &dyn AnyGame, ended: Option<&Ended>, viewer: Viewer) -> crate::engine::Map {
    match ended {
        Some(Ended::Aborted { .. }) => game.render_map(),
        _ => game.render_map_to(viewer),
    }
}

/// The map and [`status_block`] of `viewer`, as text.
pub fn page_text(game: &dyn AnyGame, ended: Option<&Ended>, viewer: Viewer) -> String {
    crate::engine::page_text(
        &map_of(game, ended, viewer).text,
        &status_block(game, ended, viewer),
    )
}

/// The map and [`status_block`] of `viewer`, as an HTML `<pre>`.
pub fn page_html(game: &dyn AnyGame, ended: Option<&Ended>, viewer: Viewer) -> String {
    crate::engine::page_html(
        &map_of(game, ended, viewer).html,
        &status_block(game, ended, viewer),
    )
}

/// Events of `entries` as `seat` reads them, each order first.
pub fn event_lines(
    game: &dyn AnyGame,
    entries: &[LogEntry],
    viewer: Viewer,
) -> Result<Vec<String>, SetupError> {
    Ok(event_lines_and_status(game, entries, viewer, false)?.0)
}

/// [`event_lines`] and, where `status`, the status block of `seat`, read
/// from one view of theirs (a full report needs both).
pub fn event_lines_and_status(
    game: &dyn AnyGame,
    entries: &[LogEntry],
    viewer: Viewer,
    status: bool,
) -> Result<(Vec<String>, Option<String>), SetupError> {
    // Table talk went out in mails of its own when it was sent, and a
    // reminder to the player it reminded.
    let shown = entries
        .iter()
        .filter(|e| !matches!(e.kind, crate::store::EntryKind::Message { .. }) && !e.is_reminder());
    let (read, status) = sentences(game, shown, viewer, status)?;
    let mut out = Vec::new();
    let mut prev = None;
    for (e, sentences) in read {
        out.push(entry_text_after(e, prev));
        out.extend(sentences.into_iter().map(|s| format!("   {s}")));
        prev = Some(e);
    }
    Ok((out, status))
}

/// Log entries, each with the sentences of its events for one reader.
type Told<'e> = Vec<(&'e LogEntry, Vec<String>)>;

/// Each of `shown` with the sentences of its events for `seat` and, where
/// `status`, their status block: all from one view ([`AnyGame::read`]).
fn sentences<'e>(
    game: &dyn AnyGame,
    shown: impl Iterator<Item = &'e LogEntry>,
    viewer: Viewer,
    status: bool,
) -> Result<(Told<'e>, Option<String>), SetupError> {
    let shown: Vec<&LogEntry> = shown.collect();
    let events: Vec<&[serde_json::Value]> = shown.iter().map(|e| e.events.as_slice()).collect();
    let reading = game.read(&events, viewer, status)?;
    Ok((
        shown.into_iter().zip(reading.sentences).collect(),
        reading.status,
    ))
}

/// A player's `takeback` (see `service::takeback`) as the log keeps it:
/// `takeback (ORDERS)`, the orders taken back with `; ` between them.
const TAKEBACK: &str = "takeback";

/// The log's text of a takeback of `orders`.
pub fn takeback_text(orders: &[&str]) -> String {
    format!("{TAKEBACK} ({})", orders.join("; "))
}

/// A log entry as people read it: `bob: extend GWR D14`; a moderator's
/// act with their reason, `moderator gm@example.org: extend 1d (why:
/// holiday)`; and an order the game gave for a player who was passed over
/// (a missed deadline, a moderator's `skip`), with why, in place of the
/// canonical `!skip` that replays it; a player's takeback, `bob took back
/// their last orders (station F8)`.
pub fn entry_text(e: &LogEntry) -> String {
    use crate::store::EntryKind;
    if e.kind == EntryKind::Order && e.order == crate::engine::SKIP_ORDER {
        return match (&e.why, &e.source) {
            (Some(why), _) => format!("{} {why}", e.player),
            (None, Some(s @ crate::engine::Actor::Moderator(_))) => {
                format!("{} was passed over by {s}'s skip", e.player)
            }
            _ => format!(
                "{} missed a deadline and was passed over (their part lost)",
                e.player
            ),
        };
    }
    if let EntryKind::Message { to } = &e.kind {
        let rest = e.order.split_once(' ').map_or("", |(_, r)| r);
        return match (to, rest.split_once(' ')) {
            (Some(_), Some((name, text))) => format!("{} tells {name}: {text}", e.player),
            _ => format!("{} says: {rest}", e.player),
        };
    }
    // A player's `takeback`: what they took back, in words.
    if let (EntryKind::Undo { .. }, Some(crate::engine::Actor::Mail(_))) = (&e.kind, &e.source)
        && let Some(orders) = e
            .order
            .strip_prefix(TAKEBACK)
            .and_then(|rest| rest.strip_prefix(" ("))
            .and_then(|rest| rest.strip_suffix(')'))
    {
        return format!("{} took back their last orders ({orders})", e.player);
    }
    // The clock's sentences about a player read as the skip's do: `cecil
    // missed the deadline of their turn (…); under the game's `wait`
    // policy …`, `cecil missed 3 deadlines in a row: …`.
    if e.kind == EntryKind::Act
        && e.source == Some(crate::engine::Actor::Deadline)
        && e.order.starts_with("missed ")
    {
        return format!("{} {}", e.player, without_relative_time(&e.order));
    }
    match (&e.why, &e.kind) {
        (Some(why), EntryKind::Order) => format!("{}: {} ({} {why})", e.player, e.order, e.player),
        (Some(why), _) => format!("{}: {} (why: {why})", e.player, e.order),
        (None, _) => format!("{}: {}", e.player, e.order),
    }
}

/// [`entry_text`] of `e` read after `prev`: the orders a policy gave for
/// one player in one go (two actions under `default`) say why once, on
/// the first of them, not after every order (issue 38).
pub fn entry_text_after(e: &LogEntry, prev: Option<&LogEntry>) -> String {
    let same_why = prev.is_some_and(|p| {
        p.seat == e.seat && p.why == e.why && p.kind == e.kind && p.source == e.source
    });
    let order = e.kind == crate::store::EntryKind::Order && e.order != crate::engine::SKIP_ORDER;
    if same_why && e.why.is_some() && order {
        return format!("{}: {}", e.player, e.order);
    }
    entry_text(e)
}

/// `text` without the relative times that entries written before they
/// were kept out of the log carry (`… 01:00 UTC (60 minutes ago))`): true
/// only at the moment it was written.
fn without_relative_time(text: &str) -> String {
    let mut out = text.to_string();
    let mut from = 0;
    while let Some(at) = out[from..].find(" (").map(|i| from + i) {
        let Some(len) = out[at..].find(')') else {
            break;
        };
        let inner = &out[at + 2..at + len];
        let amount = inner
            .strip_prefix("in ")
            .or_else(|| inner.strip_suffix(" ago"))
            .and_then(|a| a.split_once(' '));
        let relative = amount.is_some_and(|(n, unit)| {
            n.parse::<u64>().is_ok() && ["minute", "minutes", "hours", "days"].contains(&unit)
        });
        if relative {
            out.replace_range(at..at + len + 1, "");
        } else {
            from = at + 2;
        }
    }
    out
}

/// The history lines of a game (the whole log), for `viewer`: a private
/// message only to its two ends, a moderator and the operator.
pub fn history_lines(
    game: &dyn AnyGame,
    entries: &[LogEntry],
    viewer: Viewer,
) -> Result<Vec<String>, SetupError> {
    // One view for the whole log, not one an entry.
    let (read, _) = sentences(
        game,
        entries.iter().filter(|e| e.visible_to(viewer)),
        viewer,
        false,
    )?;
    // An order taken back (a moderator's `undo`, a player's `takeback`)
    // stays in the log, marked.
    let undone = crate::store::undone_orders(entries);
    let mut out = Vec::new();
    let mut prev = None;
    for (e, sentences) in read {
        let mark = undone
            .binary_search_by_key(&e.seq, |(seq, _)| *seq)
            .map_or(String::new(), |i| format!(" [undone by #{}]", undone[i].1));
        out.push(format!(
            "#{} {} {}{mark}",
            e.seq,
            e.at.format("%Y-%m-%d %H:%M"),
            entry_text_after(e, prev)
        ));
        prev = Some(e);
        out.extend(sentences.into_iter().map(|s| format!("    {s}")));
    }
    if out.is_empty() {
        out.push("No orders yet.".to_string());
    }
    Ok(out)
}

/// Who must act by when, one line per awaited player (`You` for the
/// reader): `bob (2 actions): by Mon 23 Nov 2026 18:00 UTC (in 48 hours)`.
/// None for an aborted game: it waits for nobody, whatever its position.
pub fn deadline_lines(
    game: &dyn AnyGame,
    meta: &GameMeta,
    viewer: Viewer,
    now: DateTime<Utc>,
) -> Vec<String> {
    if meta.aborted {
        return Vec::new();
    }
    awaited_lines(game, meta, viewer, &|due| {
        meta.clock.settings.describe(due, now)
    })
}

/// Who must act by when, one line per awaited player as `viewer` reads
/// it, each deadline written by `when`: [`deadline_lines`] for a mail,
/// a time alone for a web page read long after it was written.
pub fn awaited_lines(
    game: &dyn AnyGame,
    meta: &GameMeta,
    viewer: Viewer,
    when: &dyn Fn(DateTime<Utc>) -> String,
) -> Vec<String> {
    let names = game.player_names();
    game.awaiting_to(viewer)
        .iter()
        .map(|a| {
            let who = match names.get(a.seat.index()) {
                _ if viewer.seat() == Some(a.seat) => "You",
                Some(name) => name.as_str(),
                None => "",
            };
            match meta
                .clock
                .waits
                .iter()
                .find(|w| w.seat == a.seat && w.kind == a.kind)
            {
                Some(w) if w.late => {
                    format!("{who} ({}): deadline passed {}", a.what, when(w.due))
                }
                Some(w) => format!("{who} ({}): by {}", a.what, when(w.due)),
                None => format!("{who} ({})", a.what),
            }
        })
        .collect()
}

/// One reader's thread in one game: the subject every mail to them about
/// the game carries, and the Message-ID of its root (their welcome mail).
/// Mail programs thread by References and In-Reply-To (Thunderbird, mutt)
/// or by the subject with `Re:` left out plus those (Gmail), so both stay
/// the same for the whole game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    /// The subject: the tag `[GAME KEY]` and a fixed title.
    pub subject: String,
    /// The root's Message-ID, without angle brackets.
    pub root: String,
}

/// At most this many of the answered mail's References are carried on,
/// besides the root and the answered mail itself: enough for a mail
/// program that missed a mail or two, without a header that grows every
/// round.
const CARRIED_REFERENCES: usize = 6;

impl Thread {
    /// The subject of a mail in this thread: `Re: ` once when it answers
    /// the reader's own mail, never more.
    pub fn subject(&self, answering: bool) -> String {
        if answering {
            format!("Re: {}", self.subject)
        } else {
            self.subject.clone()
        }
    }

    /// In-Reply-To and References of a mail in this thread. A mail that
    /// answers `parent` (whose own References were `their_refs`) replies
    /// to it, with the root first and `parent` last; any other mail refers
    /// to the root alone.
    pub fn threading(&self, answering: Option<(&str, &[String])>) -> (Option<String>, Vec<String>) {
        let Some((parent, their_refs)) = answering else {
            return (None, vec![self.root.clone()]);
        };
        let parent = bare_id(parent);
        let middle: Vec<String> = their_refs
            .iter()
            .map(|r| bare_id(r))
            .filter(|r| !r.is_empty() && *r != self.root && *r != parent)
            .collect();
        let mut refs = vec![self.root.clone()];
        for r in &middle[middle.len().saturating_sub(CARRIED_REFERENCES)..] {
            if !refs.contains(r) {
                refs.push(r.clone());
            }
        }
        if parent != self.root {
            refs.push(parent.clone());
        }
        (Some(parent), refs)
    }
}

fn bare_id(id: &str) -> String {
    id.trim().trim_matches(|c| c == '<' || c == '>').to_string()
}

/// A stable thread root for a reader whose welcome mail's Message-ID was
/// not kept (games made before threads were): the same for the same game,
/// reader and key, so every later mail joins one thread, and a new key (a
/// replaced player) starts a new one.
fn derived_root(ctx: &Ctx<'_>, id: &GameId, who: &str, key: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{}\n{}\n{key}", id.0, who.to_ascii_lowercase()));
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!(
        "{}.thread.{hex}@{}",
        id.0,
        crate::mail::compose::domain(&ctx.config.mail)
    )
}

/// The tag of a subject: `[GAME KEY]`, or `[GAME]` without a key.
fn tag(id: &GameId, key: &str) -> String {
    if key.is_empty() {
        format!("[{id}]")
    } else {
        format!("[{id} {key}]")
    }
}

/// The thread of the player in `seat`.
pub fn player_thread(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    meta: &GameMeta,
    seat: Seat,
) -> Thread {
    let key = meta.tokens.get(seat.index()).map_or("", String::as_str);
    let root = match meta.welcome_ids.get(seat.index()) {
        Some(r) if !r.is_empty() => r.clone(),
        _ => derived_root(ctx, id, &format!("seat {}", seat.0), key),
    };
    Thread {
        subject: format!(
            "{} {}",
            tag(id, key),
            crate::registry::title(&record.setup.kind)
        ),
        root,
    }
}

/// The thread of moderator `address`.
pub fn moderator_thread(ctx: &Ctx<'_>, id: &GameId, meta: &GameMeta, address: &str) -> Thread {
    let lower = address.to_ascii_lowercase();
    let key = meta.moderator_tokens.get(&lower).map_or("", String::as_str);
    let root = match meta.moderator_welcome_ids.get(&lower) {
        Some(r) if !r.is_empty() => r.clone(),
        _ => derived_root(ctx, id, &lower, key),
    };
    Thread {
        subject: format!("{} You moderate {id}", tag(id, key)),
        root,
    }
}

/// `subject` answered: one `Re: ` in front of it, whatever prefixes
/// (`Re:`, `RE:`, `Re[2]:`, `Fwd:`, `AW:`, `SV:` …) it had piled up.
pub fn reply_subject(subject: &str) -> String {
    let mut rest = subject.trim();
    while let Some((word, after)) = rest.split_once(':') {
        let bare = word
            .trim()
            .trim_end_matches(|c: char| c == ']' || c.is_ascii_digit());
        let bare = bare.trim_end_matches('[').trim();
        let known = [
            "re", "fw", "fwd", "aw", "sv", "vs", "wg", "tr", "rv", "res", "antw",
        ];
        if word.len() <= 8 && known.iter().any(|k| bare.eq_ignore_ascii_case(k)) {
            rest = after.trim_start();
        } else {
            break;
        }
    }
    format!("Re: {rest}")
}

/// Where the archive of game `id` is kept on the server, in words for a
/// moderator's mail.
pub fn archive_place(ctx: &Ctx<'_>, id: &GameId) -> String {
    ctx.config.store.archive.join(&id.0).display().to_string()
}

/// The file name of game `id`'s archive, as its last mail attaches it
/// where the games are not on the web.
pub fn archive_name(id: &GameId) -> String {
    format!("{id}.html")
}

/// Where a reader of a mail finds the archive of game `record`: its page on
/// the web (as [`super::page_address::page_url`] gives it to `reader`), where the
/// games are there, or the file `attached` to the mail, in a sentence's
/// words; None where neither is.
pub fn archive_reached(
    ctx: &Ctx<'_>,
    (record, meta): (&GameRecord, &GameMeta),
    reader: super::page_address::Reader,
    attached: Option<&FileAttachment>,
) -> Option<String> {
    match (
        super::page_address::page_url(ctx.config, record, meta, reader),
        attached,
    ) {
        (Some(url), _) => Some(format!("its page on the web, {url}")),
        (None, Some(file)) => Some(format!(
            "the file {} attached to this mail (open it in any web browser)",
            file.name
        )),
        (None, None) => None,
    }
}

/// One block of a text mail, for its HTML part: a paragraph, or lines kept
/// as they are (indented, quoted or tabular text).
#[derive(Serialize)]
struct Block {
    pre: bool,
    lines: Vec<String>,
}

#[derive(Serialize)]
struct NoticeContext<'a> {
    blocks: Vec<Block>,
    signature: &'a str,
    map_html: &'a str,
    picture: Option<&'a PictureRef>,
}

/// The HTML part of a text-only mail, through `templates/notice.html`:
/// paragraphs as paragraphs, indented or quoted lines as they are, the
/// signature in grey, and `map_html` (already HTML) where given. Every
/// value is escaped by the template.
pub fn notice_html(
    ctx: &Ctx<'_>,
    text: &str,
    map_html: Option<&str>,
) -> Result<String, ServiceError> {
    notice_html_with_picture(ctx, text, map_html, None)
}

/// [`notice_html`] with the board's picture at the top (an observer's
/// page).
pub fn notice_html_with_picture(
    ctx: &Ctx<'_>,
    text: &str,
    map_html: Option<&str>,
    picture: Option<&PictureRef>,
) -> Result<String, ServiceError> {
    // (The marks of lines to be sent as they are mean nothing here.)
    let text = crate::mail::flowed::unmarked(text);
    let (body, signature) = match text.rfind("\n-- \n") {
        Some(at) => (&text[..at], text[at + 5..].trim()),
        None => (&text[..], ""),
    };
    let mut blocks: Vec<Block> = Vec::new();
    for chunk in body.split("\n\n") {
        let lines: Vec<String> = chunk
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect();
        if lines.is_empty() {
            continue;
        }
        let pre = lines.iter().any(|l| {
            l.starts_with(' ') || l.starts_with('>') || l.starts_with('\t') || l.contains("   ")
        });
        blocks.push(Block { pre, lines });
    }
    Ok(ctx.templates.render(
        "notice.html",
        &NoticeContext {
            blocks,
            signature,
            map_html: map_html.unwrap_or(""),
            picture,
        },
    )?)
}

/// The game-over mail to every moderator of the game: how it ended, the
/// board's last picture (as the players' last mail has it, issue 38), the
/// final table and where the archive is: `archive` attached, where the
/// players' last mail attaches it (the games not on the web), as a
/// moderator who is no operator can reach it, and its place on the
/// server. Sent once, when the game ends.
#[allow(clippy::too_many_arguments)]
pub fn game_over_to_moderators(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    meta: &GameMeta,
    game: &dyn AnyGame,
    (ended, archive): (&Ended, Option<&FileAttachment>),
    board: &Board,
    now: DateTime<Utc>,
) -> Result<Vec<OutMail>, ServiceError> {
    let settings = &meta.clock.settings;
    let how = match ended {
        Ended::Aborted { .. } => format!("The game is over: {}.", ended.how(settings)),
        Ended::Finished(headline) => format!("The game is over. {headline}."),
    };
    // A moderator may be a player who made the game by mail, or work at
    // the server: the archive as everyone reaches it (its page, or the
    // file attached), and where the server keeps it.
    let reached = archive_reached(
        ctx,
        (record, meta),
        super::page_address::Reader::Table,
        archive,
    )
    .map(|r| format!("The game's archive is {r}. "))
    .unwrap_or_default();
    let text = format!(
        "{how}\n\n{}\n\n{reached}On the server the archive (the whole turn log, the final map and scores, and one HTML page) is kept in {}; `stationmaster log {id}` prints the log.\n\n-- \nStationmaster, for {id} ({}).\n",
        mail_page(
            &game.render_map().text,
            &status_block(game, Some(ended), Viewer::Moderator)
        ),
        archive_place(ctx, id),
        crate::registry::title(&record.setup.kind),
    );
    let picture = board.picture(ctx, game, Some(ended), settings);
    let html = notice_html_with_picture(
        ctx,
        &text,
        Some(&page_html(game, Some(ended), Viewer::Moderator)),
        picture.as_ref().map(|(_, r)| r),
    )?;
    let mail = ModeratorMail {
        what: "over",
        text: &text,
        html: &html,
        picture: picture.as_ref().map(|(inline, _)| inline),
        attachment: archive,
    };
    to_each_moderator(ctx, id, meta, &meta.moderators, &mail, now)
}

/// A mail to every moderator of a game: `what` names its kind in its
/// Message-ID.
pub struct ModeratorMail<'a> {
    /// The kind of mail, in its Message-ID.
    pub what: &'a str,
    /// The text part.
    pub text: &'a str,
    /// The HTML part.
    pub html: &'a str,
    /// The board's picture, where the HTML shows it.
    pub picture: Option<&'a crate::mail::compose::InlinePicture>,
    /// A file for the moderator to open (the game's archive).
    pub attachment: Option<&'a FileAttachment>,
}

/// One `mail` to each moderator of the game (`game_moderators` and the
/// site's), in that moderator's thread.
pub fn to_each_moderator(
    ctx: &Ctx<'_>,
    id: &GameId,
    meta: &GameMeta,
    game_moderators: &[String],
    mail: &ModeratorMail<'_>,
    now: DateTime<Utc>,
) -> Result<Vec<OutMail>, ServiceError> {
    let mut out = Vec::new();
    for m in moderators(ctx, game_moderators) {
        let thread = moderator_thread(ctx, id, meta, &m);
        let (in_reply_to, references) = thread.threading(None);
        let draft = Draft {
            to: m.clone(),
            subject: thread.subject(false),
            text: mail.text.to_string(),
            html: Some(mail.html.to_string()),
            in_reply_to,
            references,
            reply_to: reply_to_moderator(ctx, id, meta, &m),
            picture: mail.picture.cloned(),
            attachment: mail.attachment.cloned(),
            ..Draft::default()
        };
        out.push(super::compose_mail(ctx, &id.0, mail.what, &draft, now)?);
    }
    Ok(out)
}

/// Renders every template with a sample of what the daemon gives it (a
/// report with a reply, a refusal, notes, help and history; a game that is
/// over; a help reply; an alert; a notice), so that a template that loads
/// but fails when rendered is found before a player's mail needs it. One
/// line per failure.
pub fn check_templates(templates: &crate::mail::templates::Templates) -> Vec<String> {
    let lines = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let report = MailContext {
        game: "game-1".into(),
        kind: "A Railway Game".into(),
        player: "alice".into(),
        token: "k7p2xq9m3a".into(),
        players: lines(&["alice", "bob", "cecil"]),
        reply: Some(ReplySection {
            subject: "Re: [game-1 k7p2xq9m3a] A Railway Game".into(),
            understood: lines(&["first order", "second order z99"]),
            applied: false,
            refused: true,
            refused_line_no: 2,
            refused_line: "second order z99".into(),
            refused_why: "Z99 is off the map (rules, 1)".into(),
            held: lines(&["later order: kept for later."]),
            not_orders: lines(&["Hi all,"]),
            notes: lines(&["Your mail was very long; only its beginning was read."]),
        }),
        notes: lines(&["A note from a moderator: hello"]),
        help: Some("order ARGUMENT".into()),
        history: Some(lines(&["#1 2026-11-23 09:00 bob: first order"])),
        moves: vec![Listing {
            said: "`moves`: what you can order now:".into(),
            lines: lines(&["order ARGUMENT"]),
        }],
        events: lines(&["bob: first order", "   bob gains a point."]),
        map: "(the map)".into(),
        map_html: "<pre>(the map)</pre>".into(),
        picture: Some(PictureRef {
            cid: "board.0123456789abcdef@example.org".into(),
            width: 600,
            height: 740,
        }),
        hints: lines(&["order ARGUMENT"]),
        deadlines: lines(&["You (2 actions): by Mon 23 Nov 2026 18:00 UTC (in 9 hours)"]),
        headline: "Waiting for alice (2 actions)".into(),
        ..MailContext::default()
    };
    let welcome = MailContext {
        welcome: true,
        reply: None,
        help: None,
        history: None,
        ..report.clone()
    };
    let over = MailContext {
        over: true,
        archive: "game-1.html".into(),
        archive_attached: true,
        hints: Vec::new(),
        deadlines: Vec::new(),
        headline: "Game over: bob won".into(),
        ..report.clone()
    };
    let notice = serde_json::json!({
        "blocks": [{"pre": false, "lines": ["A paragraph."]}, {"pre": true, "lines": ["  kept as it is"]}],
        "signature": "Stationmaster, for game-1.",
        "map_html": "<pre>(the map)</pre>",
    });
    let help = serde_json::json!({
        "address": "stationmaster@example.org",
        "reason": "Your mail names no game.",
        "games": ["game-1"],
        "example_tag": "[game-1 k7p2xq9m3a]",
        "site_commands": [{"form": "new GAME", "what": "make a game"}],
        "kinds": "game",
        "example_kind": "game",
        "player_commands": ["help", "say TEXT"],
    });
    let intruder = serde_json::json!({
        "player": "alice", "email": "alice@example.org", "game": "game-1",
        "from": "mallory@example.org", "subject": "Re: [game-1 k7p2xq9m3a]",
        "message_id": "<x@example.org>", "why": "the key is not this address's",
        "moderator": false, "attempted": ["first order"],
    });
    let mut out = Vec::new();
    let mut render =
        |name: &str, what: &str, r: Result<String, crate::mail::templates::TemplateError>| {
            let key = format!("[templates] {name} ");
            if let Err(e) = r
                && !out.iter().any(|p: &String| p.starts_with(&key))
            {
                // One line: minijinja's first (its detail follows in a box).
                let first = e.message.lines().next().unwrap_or_default();
                out.push(format!("{key}({what}): {first}"));
            }
        };
    let over_on_the_web = MailContext {
        archive: String::new(),
        web: "https://games.example.org/game-1/".into(),
        ..over.clone()
    };
    for (what, ctx) in [
        ("a report", &report),
        ("a welcome", &welcome),
        ("the end", &over),
        ("the end, on the web", &over_on_the_web),
    ] {
        render("report.txt", what, templates.render("report.txt", ctx));
        render("report.html", what, templates.render("report.html", ctx));
    }
    render(
        "notice.html",
        "a notice",
        templates.render("notice.html", &notice),
    );
    render(
        "help.txt",
        "a help reply",
        templates.render("help.txt", &help),
    );
    render(
        "intruder.txt",
        "an alert",
        templates.render("intruder.txt", &intruder),
    );
    out
}

/// The reply address that carries moderator `address`'s key, if they have one.
pub fn reply_to_moderator(
    ctx: &Ctx<'_>,
    id: &GameId,
    meta: &GameMeta,
    address: &str,
) -> Option<String> {
    meta.moderator_tokens
        .get(&address.to_ascii_lowercase())
        .map(|key| reply_address(&ctx.config.mail.address, id, key))
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

/// A mail to player `seat`, with `board` (of `game`: its map, and its
/// picture where there is one), the status and hints from their view, and
/// whatever sections `mail` fills in.
#[allow(clippy::too_many_arguments)]
pub fn player_mail(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    meta: &GameMeta,
    game: &dyn AnyGame,
    board: &Board,
    seat: Seat,
    mut mail: MailContext,
    threading: Option<(String, Vec<String>)>,
    now: DateTime<Utc>,
) -> Result<OutMail, ServiceError> {
    let player = &record.setup.players[seat.index()];
    let token = meta.tokens.get(seat.index()).cloned().unwrap_or_default();
    mail.game = id.0.clone();
    mail.kind = crate::registry::title(&record.setup.kind).to_string();
    mail.player = player.name.clone();
    mail.token = token.clone();
    mail.players = record
        .setup
        .players
        .iter()
        .map(|p| p.name.clone())
        .collect();
    let ended = match mail.ended.take() {
        Some(e) => Some(e),
        None => ended(ctx.store, id, meta, game)?,
    };
    let settings = &meta.clock.settings;
    let status = match (mail.status.take(), &ended) {
        // The game's own status block says whose turn it is.
        (_, Some(Ended::Aborted { .. })) | (None, _) => {
            status_block(game, ended.as_ref(), Viewer::Player(seat))
        }
        (Some(status), _) => status,
    };
    let (map, picture) = board_of(ctx, game, board, seat, ended.as_ref(), settings);
    mail.map = mail_page(&map.text, &status);
    mail.map_html = crate::engine::page_html(&map.html, &status);
    mail.picture = picture.as_ref().map(|(_, r)| r.clone());
    mail.deadlines = deadline_lines(game, meta, Viewer::Player(seat), now);
    mail.hints = game
        .hints(seat)
        .iter()
        .map(|h| h.replace('\n', "\n  "))
        .collect();
    answer_moves_and_owed(game, seat, meta, &mut mail);
    if let Some(since) = meta.paused {
        // The clocks stand still: a deadline shown now would be wrong once
        // the resume moves it on, and no order is taken meanwhile (as
        // `show` says of a paused game).
        mail.deadlines = vec![format!(
            "None while the game is paused (by a moderator since {}): the clocks stand still, \
             and every deadline moves on by the time paused when it resumes.",
            settings.when(since)
        )];
        mail.hints.clear();
    }
    mail.headline = headline_of(game, meta, ended.as_ref(), Viewer::Player(seat));
    mail.over = ended.is_some();
    mail.web =
        super::page_address::page_url(ctx.config, record, meta, super::page_address::Reader::Table)
            .unwrap_or_default();
    let attachment = mail.attachment.take().filter(|_| mail.over);
    if mail.over {
        // Nothing more is asked of anyone.
        mail.hints.clear();
        mail.deadlines.clear();
        // The archive: its page on the web, or the file attached (to
        // this mail, or to the game's last).
        mail.archive = archive_name(id);
        mail.archive_attached = attachment.is_some();
    }
    let thread = player_thread(ctx, id, record, meta, seat);
    // The welcome is the root; every later mail refers to it, and one that
    // answers the player's mail replies to that too.
    // A welcome is the root of the thread, unless the player has one
    // already (a game formed by mail: from `new` or `join` on).
    let rooted = meta
        .welcome_ids
        .get(seat.index())
        .is_some_and(|r| !r.is_empty());
    let (in_reply_to, references) = match &threading {
        _ if mail.welcome && !rooted => (None, Vec::new()),
        _ if mail.welcome => thread.threading(None),
        Some((parent, refs)) => thread.threading(Some((parent, refs))),
        None => thread.threading(None),
    };
    reports_told(ctx, (record, meta), seat, &mut mail)?;
    let text = ctx.templates.render("report.txt", &mail)?;
    let html = ctx.templates.render("report.html", &mail)?;
    let draft = Draft {
        to_name: player.name.clone(),
        to: mail
            .to
            .clone()
            .unwrap_or_else(|| meta.address(record, seat).to_string()),
        subject: thread.subject(threading.is_some() && !mail.welcome),
        text,
        html: Some(html),
        in_reply_to,
        references,
        reply_to: Some(reply_address(&ctx.config.mail.address, id, &token)),
        picture: picture.map(|(p, _)| p),
        attachment,
    };
    // Linked as the change leaves the game: a welcome is composed before
    // its game is stored, and `watchable` moves the page.
    let draft = super::page_address::linked(&id.0, &mail.web, &draft).unwrap_or(draft);
    let what = if mail.welcome { "welcome" } else { "report" };
    super::compose_mail(ctx, &id.0, what, &draft, now)
}

/// What `seat`'s mail says of their `reports` mode, and in a welcome, how to
/// get fewer mails and how many games each player finished here.
fn reports_told(
    ctx: &Ctx<'_>,
    (record, meta): (&GameRecord, &GameMeta),
    seat: Seat,
    mail: &mut MailContext,
) -> Result<(), ServiceError> {
    let mode = meta.reports_of(seat);
    mail.reports = mode.name().to_string();
    mail.reports_what = mode.describe().to_string();
    mail.reports_other = crate::store::ReportMode::ALL
        .iter()
        .filter(|m| **m != mode)
        .map(|m| format!("reports {}", m.name()))
        .collect();
    if mail.welcome {
        mail.fewer_reports = fewer_reports(mode);
        mail.finished = Some(super::records::finished_line(ctx.store, record, meta)?);
    }
    Ok(())
}

/// The map and picture in `seat`'s mail: their own where the game draws
/// them a layer of their own, else `board`'s, the same for every reader.
fn board_of<'b>(
    ctx: &Ctx<'_>,
    game: &dyn AnyGame,
    board: &'b Board,
    seat: Seat,
    ended: Option<&Ended>,
    settings: &crate::clock::ClockSettings,
) -> (
    std::borrow::Cow<'b, crate::engine::Map>,
    Option<(crate::mail::compose::InlinePicture, PictureRef)>,
) {
    match board.own(ctx, game, seat, ended, settings) {
        Some(own) => (
            std::borrow::Cow::Owned(own.map.clone()),
            own.picture.clone(),
        ),
        None => (
            std::borrow::Cow::Borrowed(&board.map),
            board.picture(ctx, game, ended, settings),
        ),
    }
}

/// The `reports` modes that send fewer mails than `mode`, fewest first
/// (`ReportMode::ALL` lists them from the most).
fn fewer_reports(mode: crate::store::ReportMode) -> Vec<ReportsChoice> {
    crate::store::ReportMode::ALL
        .iter()
        .rev()
        .take_while(|m| **m != mode)
        .map(|m| ReportsChoice {
            name: format!("reports {}", m.name()),
            what: m.describe().to_string(),
        })
        .collect()
}

/// A mail's page of the board: `map` (as the game draws it) marked to be
/// sent as it is, its legend too, and the `status` below it, whose prose
/// is wrapped (its tables are kept: [`crate::mail::flowed::is_fixed`]).
pub fn mail_page(map: &str, status: &str) -> String {
    crate::engine::page_text(&crate::mail::flowed::fixed(map), status)
}

/// Every moderator of a game: its own and the site's.
pub fn moderators(ctx: &Ctx<'_>, game_moderators: &[String]) -> Vec<String> {
    let mut all: Vec<String> = game_moderators.to_vec();
    for m in &ctx.config.site.moderators {
        if !all.iter().any(|a| a.eq_ignore_ascii_case(m)) {
            all.push(m.clone());
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_subject_has_one_re_whatever_piled_up_before() {
        for (got, want) in [
            ("hello", "Re: hello"),
            ("Re: hello", "Re: hello"),
            ("Re: Re: RE: hello", "Re: hello"),
            ("Re[2]: Fwd: AW: SV: hello", "Re: hello"),
            ("Re: [rocket-1 abc] x: y", "Re: [rocket-1 abc] x: y"),
            ("Meeting: Tuesday", "Re: Meeting: Tuesday"),
        ] {
            assert_eq!(reply_subject(got), want, "{got}");
        }
    }

    #[test]
    fn an_old_entrys_relative_time_is_left_out_when_read() {
        for (stored, read) in [
            (
                "missed the deadline of their turn (Sun 29 Nov 2026 01:00 UTC (60 minutes ago)); policy wait: the moderators were told",
                "missed the deadline of their turn (Sun 29 Nov 2026 01:00 UTC); policy wait: the moderators were told",
            ),
            ("x (in 48 hours) y (3 days ago)", "x y"),
            ("x (in 1 minute)", "x"),
            (
                "missed 3 deadlines (in a row) (in soon)",
                "missed 3 deadlines (in a row) (in soon)",
            ),
            ("unclosed (in 2 hours", "unclosed (in 2 hours"),
        ] {
            assert_eq!(without_relative_time(stored), read, "{stored}");
        }
    }

    #[test]
    fn a_thread_refers_to_its_root_first_and_the_answered_mail_last() {
        let t = Thread {
            subject: "[g k] Stephenson's Rocket".into(),
            root: "root@x".into(),
        };
        assert_eq!(t.threading(None), (None, vec!["root@x".to_string()]));
        assert_eq!(t.subject(true), "Re: [g k] Stephenson's Rocket");
        assert_eq!(t.subject(false), "[g k] Stephenson's Rocket");
        let theirs: Vec<String> = ["<root@x>", "a@x", "b@x"].map(String::from).to_vec();
        let (irt, refs) = t.threading(Some(("<m@y>", &theirs)));
        assert_eq!(irt.as_deref(), Some("m@y"));
        assert_eq!(refs, ["root@x", "a@x", "b@x", "m@y"]);
        // A long chain keeps the root, the last few and the answered mail.
        let long: Vec<String> = (0..40).map(|i| format!("{i}@x")).collect();
        let (_, refs) = t.threading(Some(("m@y", &long)));
        assert_eq!(refs.len(), 2 + CARRIED_REFERENCES);
        assert_eq!(refs[0], "root@x");
        assert_eq!(refs[1], "34@x");
        assert_eq!(refs.last().map(String::as_str), Some("m@y"));
    }
}
