//! The services the daemon and the command line share: set up a game,
//! apply orders, build the reports and mails they cause, moderate, run the
//! deadlines, keep the archive and the quarantine. The daemon calls them
//! for mail; the command line (`crate::local`) calls them for a person at
//! the server; neither calls the other's code.

pub mod archive;
pub mod delivery;
pub mod moderator;
pub mod names;
pub mod orders;
pub mod pipeline;
pub mod quarantine;
pub mod report;
pub mod scheduler;
pub mod settings;
pub mod site;
pub mod talk;
pub mod unasked;

use chrono::{DateTime, Utc};

use crate::clock::{Clock, ClockSettings};
use crate::config::Config;
use crate::engine::{Seat, Setup};
use crate::mail::TransportError;
use crate::mail::compose::ComposeError;
use crate::mail::templates::{TemplateError, Templates};
use crate::registry::BoardSource;
use crate::store::{
    BatchRejected, Change, GameId, GameMeta, GameUpdate, LogEntry, NewGame, Store, StoreError,
};
use report::MailContext;

/// What can stop the daemon or a command.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The store.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A mail transport.
    #[error(transparent)]
    Transport(#[from] TransportError),
    /// A template.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// Composing a mail.
    #[error(transparent)]
    Compose(#[from] ComposeError),
    /// Setting a game up.
    #[error(transparent)]
    Setup(#[from] crate::engine::SetupError),
    /// A setting or argument that cannot be used.
    #[error("{0}")]
    Invalid(String),
    /// A command names a player who does not play in the game (the text
    /// names the players): an unknown player, exit 1 on the command line.
    #[error("{0}")]
    UnknownPlayer(String),
    /// An argument that cannot be read (a moderator's `set` with a setting
    /// or value that is none): the command line's usage error, exit 64.
    #[error("{0}")]
    Unreadable(String),
    /// The system's random source, which keys and seeds come from, failed
    /// (getrandom(2) on Linux, or /dev/urandom where that call is missing).
    #[error("the system's random source failed: {0}")]
    Random(getrandom::Error),
}

/// What the handling of mail needs: the store, the config, the templates and
/// the boards.
pub struct Ctx<'a> {
    /// The database.
    pub store: &'a Store,
    /// The configuration.
    pub config: &'a Config,
    /// The mail templates.
    pub templates: &'a Templates,
    /// Where boards come from.
    pub boards: &'a BoardSource,
}

/// A stand-in Message-ID for mail without one: the SHA-256 of its bytes,
/// so the same mail gets the same id every time it is fetched, by every
/// build of Stationmaster.
pub fn fallback_id(raw: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(raw);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("no-message-id.{hex}@stationmaster")
}

/// A new secret token: 10 letters and digits from the system's random source.
pub fn new_token() -> Result<String, ServiceError> {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyz23456789";
    let mut bytes = [0u8; 10];
    getrandom::getrandom(&mut bytes).map_err(ServiceError::Random)?;
    Ok(bytes
        .iter()
        .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
        .collect())
}

/// A Message-ID for mail we send: the game, what the mail is, a number
/// never handed out before by this database, and random letters drawn once
/// per run of the program, so that a database never repeats an id, and a
/// fresh one started in a later run does not repeat an id a mail program
/// has seen already.
pub fn message_id(ctx: &Ctx<'_>, game: &str, what: &str) -> Result<String, ServiceError> {
    static RUN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let run = match RUN.get() {
        Some(r) => r,
        None => {
            let token = new_token()?;
            RUN.get_or_init(|| token)
        }
    };
    Ok(format!(
        "{game}.{what}.{}.{run}@{}",
        ctx.store.unique()?,
        crate::mail::compose::domain(&ctx.config.mail)
    ))
}

/// Composes `draft` from our address with a fresh Message-ID (see
/// [`message_id`]): every mail the daemon sends goes through here.
pub fn compose_mail(
    ctx: &Ctx<'_>,
    game: &str,
    what: &str,
    draft: &crate::mail::compose::Draft,
    now: DateTime<Utc>,
) -> Result<crate::mail::OutMail, ServiceError> {
    let id = message_id(ctx, game, what)?;
    Ok(crate::mail::compose::compose(
        draft,
        &ctx.config.mail,
        &id,
        now,
    )?)
}

/// Creates a game: its record, each player's secret token, and a welcome
/// mail to each player (with their first report), in one commit.
pub fn create_game(
    ctx: &Ctx<'_>,
    setup: &Setup,
    clock: ClockSettings,
    moderators: Vec<String>,
    now: DateTime<Utc>,
) -> Result<GameId, ServiceError> {
    let (id, change) = new_game_change(ctx, setup, clock, moderators, None, now)?;
    ctx.store.commit(&change)?;
    Ok(id)
}

/// What a game formed by mail brings to its start: the id taken at `new`,
/// and each seat's key and thread root, kept from the forming.
#[derive(Clone, Debug)]
pub struct Formed {
    /// The game's id.
    pub id: GameId,
    /// Each seat's secret key.
    pub keys: Vec<String>,
    /// Each seat's thread root: their welcome joins that thread.
    pub roots: Vec<String>,
}

/// Why a new game cannot have these seats and moderators (docs/operators.md,
/// "Security"), or None: an address no mail can go to or the server's
/// own, one address for two seats, a name that looks like another
/// player's or a moderator's.
pub fn seats_refusal(
    ctx: &Ctx<'_>,
    players: &[crate::engine::PlayerSetup],
    moderators: &[String],
) -> Option<String> {
    for (i, p) in players.iter().enumerate() {
        let address = match unasked::recipient(ctx, &p.email) {
            Ok(a) => a,
            Err(why) => return Some(format!("{}: {why}", p.name)),
        };
        if let Some(q) = players[..i]
            .iter()
            .find(|q| q.email.trim().eq_ignore_ascii_case(&address))
        {
            return Some(format!(
                "{} and {} have one address, {address}: one person plays one seat",
                q.name, p.name
            ));
        }
        let taken = players[..i].iter().map(|q| q.name.as_str());
        let mods = moderators
            .iter()
            .chain(ctx.config.site.moderators.iter())
            .map(String::as_str);
        if let Some(why) = names::refusal(&p.name, taken, mods, Some(&address)) {
            return Some(why);
        }
    }
    for m in moderators {
        if let Err(why) = unasked::recipient(ctx, m) {
            return Some(format!("moderator {m}: {why}"));
        }
    }
    None
}

/// The [`Change`] that creates a game (record, keys, welcome mails, the
/// moderators' welcomes), not yet committed: the caller may add to it.
pub fn new_game_change(
    ctx: &Ctx<'_>,
    setup: &Setup,
    clock: ClockSettings,
    moderators: Vec<String>,
    formed: Option<&Formed>,
    now: DateTime<Utc>,
) -> Result<(GameId, Change), ServiceError> {
    if let Some(why) = seats_refusal(ctx, &setup.players, &moderators) {
        return Err(ServiceError::Invalid(why));
    }
    clock.check().map_err(ServiceError::Invalid)?;
    let (record, game) =
        ctx.store
            .prepare_as(setup, ctx.boards, now, formed.map(|f| f.id.clone()))?;
    let n = setup.players.len();
    let tokens = match formed {
        Some(f) if f.keys.len() == n => f.keys.clone(),
        _ => (0..n).map(|_| new_token()).collect::<Result<Vec<_>, _>>()?,
    };
    let mut meta = GameMeta {
        tokens,
        queued: vec![crate::store::Held::default(); n],
        reported: vec![0; n],
        clock: Clock::new(clock, n),
        moderators,
        // A game formed by mail goes on in the threads its players have.
        welcome_ids: formed
            .filter(|f| f.roots.len() == n)
            .map(|f| f.roots.clone())
            .unwrap_or_default(),
        ..GameMeta::default()
    };
    let rooted = !meta.welcome_ids.is_empty();
    meta.clock.sync(&game.awaiting(), now);
    let mut outbox = Vec::new();
    // Every moderator, the game's and the site's, gets a key for this game.
    for m in report::moderators(ctx, &meta.moderators) {
        let token = new_token()?;
        let mail = moderator::welcome(ctx, &record.id, &m, &token, now)?;
        // Their welcome is the root of their thread.
        let key = m.trim().to_ascii_lowercase();
        meta.moderator_welcome_ids
            .insert(key.clone(), mail.message_id.clone());
        meta.moderator_tokens.insert(key, token);
        outbox.push(mail);
    }
    let map = report::Board::new(ctx, &*game, &[]);
    // Who plays first: whom the new game waits for (the game's seed chose
    // them, or its rules name the first seat; `GameEntry::first_player`).
    let names = game.player_names();
    let first: Vec<&str> = game
        .awaiting()
        .iter()
        .filter_map(|a| names.get(a.seat.index()).map(String::as_str))
        .collect();
    for s in 0..n {
        let mail = MailContext {
            welcome: true,
            first: (!first.is_empty()).then(|| first.join(" and ")),
            ..MailContext::default()
        };
        let welcome = report::player_mail(
            ctx,
            &record.id,
            &record,
            &meta,
            &*game,
            &map,
            Seat(s as u8),
            mail,
            None,
            now,
        )?;
        // The root of the player's thread, unless they have one already.
        if !rooted {
            meta.welcome_ids.push(welcome.message_id.clone());
        }
        outbox.push(welcome);
    }
    let id = record.id.clone();
    let change = Change {
        new_game: Some(NewGame {
            record,
            initial: game.snapshot()?,
            meta,
        }),
        outbox,
        ..Change::default()
    };
    Ok((id, change))
}

/// A seed for a game's random choices, from the system's random source.
pub fn new_seed() -> Result<u64, ServiceError> {
    let mut bytes = [0u8; 8];
    getrandom::getrandom(&mut bytes).map_err(ServiceError::Random)?;
    Ok(u64::from_be_bytes(bytes))
}

/// Orders applied from the command line (`stationmaster order`): as by
/// mail, all or nothing, and every player gets a report by mail.
pub fn apply_local(
    ctx: &Ctx<'_>,
    id: &GameId,
    seat: Seat,
    lines: &[String],
    now: DateTime<Utc>,
) -> Result<(orders::Batch, Box<dyn crate::engine::AnyGame>), LocalApplyError> {
    let loaded = ctx.store.load(id).map_err(ServiceError::from)?;
    let meta = ctx.store.meta(id).map_err(ServiceError::from)?;
    let old_fire = meta.clock.next_fire;
    let (game, meta, batch) = orders::run(
        &*loaded.game,
        &meta,
        seat,
        lines,
        &crate::engine::Actor::CommandLine,
    )?;
    if batch.applied.is_empty() && batch.held.is_empty() {
        return Ok((batch, game));
    }
    let step = pipeline::Step::new(&*game, meta, &batch, crate::engine::Actor::CommandLine);
    let (update, outbox) = pipeline::write(ctx, id, loaded.seq, old_fire, step, now)?;
    let change = Change {
        update: Some(update),
        outbox,
        ..Change::default()
    };
    ctx.store.commit(&change).map_err(ServiceError::from)?;
    Ok((batch, game))
}

/// Why orders from the command line were not applied.
#[derive(Debug, thiserror::Error)]
pub enum LocalApplyError {
    /// A line was refused.
    #[error(transparent)]
    Rejected(#[from] BatchRejected),
    /// Something else failed.
    #[error(transparent)]
    Service(#[from] ServiceError),
}

/// The log entries and state a batch leaves.
#[allow(clippy::too_many_arguments)]
fn game_update(
    id: &GameId,
    base_seq: u64,
    old_fire: Option<DateTime<Utc>>,
    batch: &orders::Batch,
    game: &dyn crate::engine::AnyGame,
    mut meta: GameMeta,
    now: DateTime<Utc>,
    source: &crate::engine::Actor,
) -> Result<GameUpdate, ServiceError> {
    let names = game.player_names();
    if source.is_players() {
        // A player who acts is no longer missing deadlines.
        for (seat, _) in &batch.applied {
            meta.clock.run_of_misses_ends(*seat);
        }
    }
    meta.clock.sync(&game.awaiting(), now);
    if meta.paused.is_some() || meta.aborted {
        // A stopped game is in no deadline's way: out of the scheduler's
        // index until it is resumed (which syncs the clock again), or the
        // index would hand it to every cycle once its old time passed.
        meta.clock.next_fire = None;
    }
    let entries = batch
        .applied
        .iter()
        .enumerate()
        .map(|(k, (seat, a))| LogEntry {
            seq: base_seq + 1 + k as u64,
            turn: a.turn,
            at: now,
            seat: *seat,
            player: names.get(seat.index()).cloned().unwrap_or_default(),
            order: a.order.clone(),
            events: a.events.clone(),
            // A held order released now keeps the mail it came in.
            source: Some(
                batch
                    .released
                    .iter()
                    .find(|(i, _)| *i == k)
                    .map_or(source, |(_, from)| from)
                    .clone(),
            ),
            kind: crate::store::EntryKind::Order,
            why: None,
            prev: String::new(),
            hash: String::new(),
        })
        .collect();
    game.check_invariants().map_err(|e| StoreError::Corrupt {
        game: id.0.clone(),
        message: format!("engine invariant broken: {e}"),
    })?;
    Ok(GameUpdate {
        id: id.clone(),
        base_seq,
        entries,
        state: game.snapshot()?,
        state_version: game.state_version(),
        over: meta.aborted || matches!(game.status(), crate::engine::Status::Finished(_)),
        meta,
        old_fire,
    })
}

/// Who gets a report from [`reports`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recipients {
    /// Every player (a moderator's act, a deadline, `resend`).
    All,
    /// Every player if the game changed; else only those with a note and
    /// the player replied to: a mail that only stores a waiting order or a
    /// standing answer tells nobody else anything.
    Concerned,
    /// Every player, the full report whatever they chose (`resend`).
    Every,
}

/// A report to every player after a change: what happened since their last
/// report, their map and hints. The `reply` (a seat, its section and the
/// threading) goes into that player's report.
#[allow(clippy::too_many_arguments)]
fn reports(
    ctx: &Ctx<'_>,
    id: &GameId,
    update: &mut GameUpdate,
    game: &dyn crate::engine::AnyGame,
    batch: &orders::Batch,
    reply: Option<(Seat, MailContext, (String, Vec<String>))>,
    to: Recipients,
    now: DateTime<Utc>,
) -> Result<Vec<crate::mail::OutMail>, ServiceError> {
    let record = ctx.store.record(id)?;
    let new_seq = update.base_seq + update.entries.len() as u64;
    let mut out = Vec::new();
    let map = report::Board::new(ctx, game, &update.entries);
    let changed = !update.entries.is_empty();
    let ended = report::ended_after(ctx.store, update, game)?;
    for s in 0..record.setup.players.len() {
        let seat = Seat(s as u8);
        let concerned = changed
            || batch.notes.iter().any(|(n, _)| *n == seat)
            || reply.as_ref().is_some_and(|(rs, _, _)| *rs == seat);
        if to == Recipients::Concerned && !concerned {
            continue;
        }
        let answering = reply.as_ref().is_some_and(|(rs, _, _)| *rs == seat);
        let (awaited, over) = delivery::awaits_or_over(game, &update.meta, seat);
        let form = match to {
            Recipients::Every => delivery::Form::Full,
            _ => delivery::form_for(update.meta.reports_of(seat), awaited, answering, over),
        };
        if form == delivery::Form::Nothing {
            // `reports turn`: their next report tells them what happened.
            continue;
        }
        let last = update.meta.reported.get(s).copied().unwrap_or(0);
        let mut entries = if last < update.base_seq {
            ctx.store.log_since(id, last)?
        } else {
            Vec::new()
        };
        entries.extend(update.entries.iter().filter(|e| e.seq > last).cloned());
        // A full report shows the status block too: both from one view.
        let (events, status) = report::event_lines_and_status(
            game,
            &entries,
            crate::engine::Viewer::Player(seat),
            form == delivery::Form::Full,
        )
        .map_err(StoreError::from)?;
        let mut mail = MailContext {
            events,
            status,
            ended: ended.clone(),
            notes: batch
                .notes
                .iter()
                .filter(|(n, _)| *n == seat)
                .map(|(_, t)| t.clone())
                .collect(),
            ..MailContext::default()
        };
        if form == delivery::Form::Short {
            if mail.events.is_empty() && mail.notes.is_empty() {
                continue;
            }
            out.push(delivery::short_mail(
                ctx,
                id,
                &record,
                &update.meta,
                game,
                seat,
                &mail.events,
                &mail.notes,
                ended.as_ref(),
                now,
            )?);
            if let Some(r) = update.meta.reported.get_mut(s) {
                *r = new_seq;
            }
            continue;
        }
        let mut threading = None;
        if let Some((rs, asked, thread)) = &reply
            && *rs == seat
        {
            mail.reply = asked.reply.clone();
            mail.help = asked.help.clone();
            mail.history = asked.history.clone();
            mail.to = asked.to.clone();
            threading = Some(thread.clone());
        }
        out.push(report::player_mail(
            ctx,
            id,
            &record,
            &update.meta,
            game,
            &map,
            seat,
            mail,
            threading,
            now,
        )?);
        if let Some(r) = update.meta.reported.get_mut(s) {
            *r = new_seq;
        }
    }
    out.extend(delivery::to_observers(
        ctx, id, &record, update, game, &map, now,
    )?);
    // Orders that end the game: the moderators hear of it too (a finished
    // game takes no more orders, so this happens once).
    if !batch.applied.is_empty()
        && let Some(finished @ report::Ended::Finished(_)) = &ended
    {
        out.extend(report::game_over_to_moderators(
            ctx,
            id,
            &record,
            &update.meta,
            game,
            finished,
            now,
        )?);
    }
    Ok(out)
}
