//! The services the daemon and the command line share: set up a game,
//! apply orders, build the reports and mails they cause, moderate, run the
//! deadlines, keep the archive and the quarantine. The daemon calls them
//! for mail; the command line (`crate::local`) calls them for a person at
//! the server; neither calls the other's code.

pub mod archive;
pub mod bots;
pub mod delivery;
pub mod moderator;
pub mod names;
pub mod orders;
pub mod page_address;
pub mod pipeline;
pub mod quarantine;
pub mod records;
pub mod report;
pub mod scheduler;
pub mod settings;
pub mod site;
pub mod takeback;
pub mod talk;
pub mod unasked;
pub mod web;

use chrono::{DateTime, Utc};

use crate::clock::{Clock, ClockSettings};
use crate::config::Config;
use crate::engine::{Seat, Setup};
use crate::mail::TransportError;
use crate::mail::compose::ComposeError;
use crate::mail::templates::{TemplateError, Templates};
use crate::registry::BoardSource;
use crate::store::{BatchRejected, Change, GameId, GameMeta, NewGame, Store, StoreError};
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
/// [`message_id`]): every mail the daemon sends goes through here. Where
/// the games are on the web, a mail about game `game` links its page
/// ([`page_address::with_link`]).
pub fn compose_mail(
    ctx: &Ctx<'_>,
    game: &str,
    what: &str,
    draft: &crate::mail::compose::Draft,
    now: DateTime<Utc>,
) -> Result<crate::mail::OutMail, ServiceError> {
    let id = message_id(ctx, game, what)?;
    let linked = page_address::with_link(ctx, game, what, draft);
    Ok(crate::mail::compose::compose(
        linked.as_ref().unwrap_or(draft),
        &ctx.config.mail,
        &id,
        now,
    )?)
}

/// Creates a game: its record, each player's secret token, and a welcome
/// mail to each player (with their first report), in one commit; then its
/// page on the web, where there is one.
pub fn create_game(
    ctx: &Ctx<'_>,
    setup: &Setup,
    clock: ClockSettings,
    moderators: Vec<String>,
    now: DateTime<Utc>,
) -> Result<GameId, ServiceError> {
    let (id, change) =
        new_game_change(ctx, setup, clock, moderators, None, Chosen::default(), now)?;
    ctx.store.commit(&change)?;
    web::refresh(ctx, std::slice::from_ref(&id));
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
    if !players.is_empty() && players.iter().all(|p| bots::is_bot_address(&p.email)) {
        return Some("every seat is a bot's: a game needs at least one person".to_string());
    }
    for (i, p) in players.iter().enumerate() {
        let taken = players[..i].iter().map(|q| q.name.as_str());
        let mods = moderators
            .iter()
            .chain(ctx.config.site.moderators.iter())
            .map(String::as_str);
        if bots::is_bot_address(&p.email) {
            // A bot's seat has no address to check, only a name.
            if let Some(why) = names::refusal(&p.name, taken, mods, None) {
                return Some(why);
            }
            continue;
        }
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

/// A new game's choices that its first mails already follow: its default
/// `reports` mode, which the welcomes tell, and whether anyone may watch
/// it, which decides where its page is ([`page_address::folder`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Chosen {
    /// The game's default `reports` mode.
    pub reports: crate::store::ReportMode,
    /// Anyone may watch it.
    pub watchable: bool,
}

/// The [`Change`] that creates a game (record, keys, welcome mails, the
/// moderators' welcomes), not yet committed: the caller may add to it.
/// `chosen` is what its creator chose that the welcomes already follow.
pub fn new_game_change(
    ctx: &Ctx<'_>,
    setup: &Setup,
    clock: ClockSettings,
    moderators: Vec<String>,
    formed: Option<&Formed>,
    chosen: Chosen,
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
        default_reports: chosen.reports,
        watchable: chosen.watchable,
        ..GameMeta::default()
    };
    let rooted = !meta.welcome_ids.is_empty();
    for (s, p) in setup.players.iter().enumerate() {
        if bots::is_bot_address(&p.email) {
            meta.set_bot(Seat(s as u8), true);
        }
    }
    meta.clock.sync(&game.awaiting(), now);
    // A bot that plays first plays at the scheduler's first look, which
    // mails everyone what it did.
    if game.awaiting().iter().any(|a| meta.is_bot(a.seat)) {
        meta.clock.next_fire = Some(now);
    }
    let mut outbox = Vec::new();
    // Every moderator, the game's and the site's, gets a key for this game.
    for m in report::moderators(ctx, &meta.moderators) {
        let token = new_token()?;
        let mail = moderator::welcome(ctx, &record.id, (&record, &meta), &m, &token, now)?;
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
        if meta.is_bot(Seat(s as u8)) {
            // Nobody to welcome; the thread roots stay one a seat.
            if !rooted {
                meta.welcome_ids.push(String::new());
            }
            continue;
        }
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
/// mail, all or nothing, and every player gets a report by mail; the
/// game's page on the web is written once they are committed.
pub fn apply_local(
    ctx: &Ctx<'_>,
    id: &GameId,
    seat: Seat,
    lines: &[String],
    now: DateTime<Utc>,
) -> Result<(orders::Batch, Box<dyn crate::engine::AnyGame>), LocalApplyError> {
    let stored = pipeline::Stored::load(ctx, id)?;
    let input = pipeline::Input::Lines {
        seat,
        lines,
        meta: stored.meta.clone(),
    };
    let actor = crate::engine::Actor::CommandLine;
    let options = pipeline::Options::default();
    let applied = pipeline::apply(ctx, id, &stored, input, actor, options, now)??;
    // Nothing given, nothing held: nothing to write.
    if !applied.batch.applied.is_empty() || !applied.batch.held.is_empty() {
        ctx.store
            .commit(&applied.change)
            .map_err(ServiceError::from)?;
        web::refresh(ctx, std::slice::from_ref(id));
    }
    Ok((applied.batch, applied.game))
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
