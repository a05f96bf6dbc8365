//! Local play: the `new`, `order`, `show`, `log` and `games` commands as
//! library calls that return the text to print. The command line is a thin
//! shell around these; the daemon reuses the same store calls.

pub mod backup;
pub mod check;
pub mod request;
pub mod socket;

use chrono::{DateTime, Utc};

pub use backup::{export, export_to, import_from};
pub use check::check_config;
pub use request::{ClockFlags, Command, Env, Outcome, Request, execute};
pub use socket::{dispatch, open_store, socket_path};

use crate::engine::{OrderRejected, PlayerSetup, Seat, Setup, Status, Viewer};
use crate::service::{self, Ctx, ServiceError};
use crate::store::{GameId, Store, StoreError};

/// What can go wrong in a local command.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// The store failed or the game is unknown.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Mail, templates or set-up failed.
    #[error(transparent)]
    Daemon(#[from] ServiceError),
    /// A game's stored data cannot be read.
    #[error(transparent)]
    Setup(#[from] crate::engine::SetupError),
    /// A `--player` argument is not `NAME=EMAIL`.
    #[error(
        "--player {0}: write NAME=EMAIL, e.g. --player alice=alice@example.org (or NAME=bot for the bot)"
    )]
    PlayerArgument(String),
    /// `--as` names nobody at the table.
    #[error("{0}")]
    NotAPlayer(String),
    /// The orders were refused; nothing was applied. The text says which
    /// line, why, and what is legal instead.
    #[error("{0}")]
    Refused(String),
    /// Something cannot be done (the text names it and says why).
    #[error("{0}")]
    Argument(String),
    /// The command line was used wrongly: an argument cannot be read
    /// (the text names it and says why). Exit 64, as sysexits' EX_USAGE.
    #[error("{0}")]
    Usage(String),
    /// The database cannot be opened.
    #[error("cannot open the database in {path}")]
    Open {
        /// The database folder.
        path: String,
        /// Why.
        source: StoreError,
    },
    /// The mail templates cannot be loaded.
    #[error("cannot load the mail templates")]
    Templates {
        /// Why.
        source: crate::mail::templates::TemplateError,
    },
    /// Another process (not a daemon answering on its socket) has the
    /// database open.
    #[error("another Stationmaster process{} has the database in {path} open, and no daemon answers on {socket}: wait until it ends (a `process` or `import` run ends by itself) or stop it, then try again", pid_text(*.pid))]
    Busy {
        /// The database folder.
        path: String,
        /// The daemon's socket.
        socket: String,
        /// The process, where the system tells.
        pid: Option<u32>,
    },
    /// The command needs the database to itself, and the daemon runs.
    #[error("the Stationmaster daemon{} is running on the database in {path}; stop it (SIGTERM) first", pid_text(*.pid))]
    DaemonRunning {
        /// The database folder.
        path: String,
        /// The daemon, where the system tells.
        pid: Option<u32>,
    },
    /// The daemon's socket failed.
    #[error("the daemon's socket {path}")]
    Socket {
        /// The socket.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The daemon closed the connection without an answer.
    #[error(
        "the daemon on {path} stopped before it answered; `stationmaster games` or `log` shows whether the command took effect"
    )]
    NoAnswer {
        /// The socket.
        path: String,
    },
    /// A file cannot be read or written.
    #[error("{path}")]
    File {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// An export cannot be read or imported.
    #[error(transparent)]
    Export(#[from] crate::store::export::ExportError),
    /// The config file cannot be read, or holds what is not ours.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
}

/// ` (pid N)`, or nothing.
fn pid_text(pid: Option<u32>) -> String {
    pid.map_or(String::new(), |p| format!(" (pid {p})"))
}

/// Reads `NAME=EMAIL`.
pub fn parse_player(arg: &str) -> Result<PlayerSetup, LocalError> {
    match arg.split_once('=') {
        Some((name, email)) if !name.trim().is_empty() && email.contains('@') => Ok(PlayerSetup {
            name: name.trim().to_string(),
            email: email.trim().to_string(),
        }),
        // NAME=bot: the engine's bot takes the seat.
        Some((name, bot)) if !name.trim().is_empty() && service::bots::is_bot_address(bot) => {
            Ok(PlayerSetup {
                name: name.trim().to_string(),
                email: service::bots::BOT_ADDRESS.to_string(),
            })
        }
        _ => Err(LocalError::PlayerArgument(arg.to_string())),
    }
}

/// What `new` is given.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// The game, e.g. `rocket`.
    pub kind: String,
    /// The players, in seat order.
    pub players: Vec<PlayerSetup>,
    /// Options switched on.
    pub options: Vec<String>,
    /// The seed.
    pub seed: u64,
    /// Deadlines (the config's `[deadlines]`, changed by flags).
    pub clock: crate::clock::ClockSettings,
    /// The game's own moderators.
    pub moderators: Vec<String>,
    /// How much mail its players get unless they choose.
    pub reports: crate::store::ReportMode,
    /// Anyone may watch it.
    pub watchable: bool,
}

/// `new`: creates a game, queues a welcome mail with its secret key for each
/// player, and returns its id.
///
/// What the command line gave wrongly is a usage error (docs/operators.md,
/// "Exit codes": 64):
/// an unknown game or option, an option's value, two options that cannot
/// go together, the number of players or two of the same name, an address that is none, a deadline setting.
pub fn new_game(ctx: &Ctx<'_>, spec: GameSpec, now: DateTime<Utc>) -> Result<GameId, LocalError> {
    let usage = |e: &dyn std::fmt::Display| LocalError::Usage(e.to_string());
    let kind = crate::registry::find(&spec.kind).map_err(|e| usage(&e))?;
    for p in spec
        .players
        .iter()
        .filter(|p| !service::bots::is_bot_address(&p.email))
    {
        crate::mail::compose::check_address(&p.email)
            .map_err(|e| usage(&format!("--player {}={}: {e}", p.name, p.email)))?;
    }
    for m in &spec.moderators {
        crate::mail::compose::check_address(m)
            .map_err(|e| usage(&format!("--moderator {m}: {e}")))?;
    }
    // Two seats for one address, the server's own, look-alike names.
    if let Some(why) = service::seats_refusal(ctx, &spec.players, &spec.moderators) {
        return Err(usage(&why));
    }
    spec.clock.check().map_err(|e| usage(&e))?;
    let setup = Setup {
        kind: kind.name.to_string(),
        players: spec.players,
        options: spec.options,
        seed: spec.seed,
    };
    let chosen = service::Chosen {
        reports: spec.reports,
        watchable: spec.watchable,
    };
    let (id, change) =
        service::new_game_change(ctx, &setup, spec.clock, spec.moderators, None, chosen, now)
            .map_err(|e| {
                use crate::engine::SetupError as S;
                match &e {
                    service::ServiceError::Setup(s)
                    | service::ServiceError::Store(StoreError::Setup(s))
                        if matches!(
                            s,
                            S::UnknownKind { .. }
                                | S::UnknownOption { .. }
                                | S::OptionValue { .. }
                                | S::OptionsClash { .. }
                                | S::Players(_)
                        ) =>
                    {
                        usage(&e)
                    }
                    _ => LocalError::from(e),
                }
            })?;
    ctx.store
        .commit(&change)
        .map_err(service::ServiceError::from)?;
    service::web::refresh(ctx, std::slice::from_ref(&id));
    Ok(id)
}

fn seat_for(store: &Store, id: &GameId, name: &str) -> Result<Seat, LocalError> {
    store
        .record(id)?
        .seat_named(name)
        .map_err(LocalError::NotAPlayer)
}

/// The order lines of a text: one a line; blank lines and `#` comments skipped.
pub fn order_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// `order`: applies the orders in `text` as `name`, all or nothing, and
/// returns what happened as that player sees it. `help` alone prints the
/// order grammar.
pub fn order(
    ctx: &Ctx<'_>,
    id: &GameId,
    name: &str,
    text: &str,
    now: DateTime<Utc>,
) -> Result<String, LocalError> {
    let store = ctx.store;
    let seat = seat_for(store, id, name)?;
    let lines = order_lines(text);
    if lines.iter().any(|l| l.eq_ignore_ascii_case("help")) {
        let loaded = store.load(id)?;
        return Ok(format!(
            "{}\nYou can:\n{}",
            loaded.game.help(),
            hints_text(&*loaded.game, seat)
        ));
    }
    // A game that is over, or paused, takes no orders.
    {
        let loaded = store.load(id)?;
        let meta = store.meta(id)?;
        if let Some(ended) = crate::service::report::ended(store, id, &meta, &*loaded.game)? {
            return Err(LocalError::Refused(format!(
                "Nothing was applied. {}.",
                ended.refusal(id, &meta.clock.settings)
            )));
        }
        // As by mail (docs/game-masters.md, `pause`): a paused game takes
        // no player's orders; a moderator's `as` still acts for one.
        if meta.paused.is_some() {
            return Err(LocalError::Refused(format!(
                "Nothing was applied. A moderator has paused {id}: orders are refused until it \
                 resumes (`stationmaster mod {id} resume`); meanwhile `stationmaster mod {id} as \
                 NAME ORDER` acts for a player."
            )));
        }
    }
    match service::apply_local(ctx, id, seat, &lines, now) {
        Ok((batch, game)) => {
            service::archive::write(ctx.store, id, &ctx.config.store.archive)?;
            let names = game.player_names();
            let mut out = String::new();
            for (by, a) in &batch.applied {
                let who = if *by == seat {
                    String::new()
                } else {
                    format!(" (waiting order of {})", names[by.index()])
                };
                out.push_str(&format!("> {}{who}\n", a.order));
                for sentence in game.describe_events(&a.events, Viewer::Player(seat))? {
                    out.push_str(&format!("  {sentence}\n"));
                }
            }
            if !batch.held.is_empty() {
                out.push_str("Held for later (nobody else sees them):\n");
                for h in &batch.held {
                    out.push_str(&format!("  {}\n", h.describe()));
                }
            }
            for (_, note) in batch.notes.iter().filter(|(s, _)| *s == seat) {
                out.push_str(&format!("{note}\n"));
            }
            out.push_str(&next_text(&*game, seat));
            Ok(out)
        }
        Err(service::LocalApplyError::Rejected(r)) => {
            let loaded = store.load(id)?;
            let (line, why) = match &r.rejected {
                OrderRejected::Parse(e) => (e.line.clone(), e.to_string()),
                OrderRejected::Rule { line, error } => {
                    (line.clone(), format!("{} ({})", error.message, error.rule))
                }
            };
            // "Order N", not "Line N": in games of railway and tram lines
            // "Line 1 refused" reads as the player's line (as by mail).
            let mut msg = format!(
                "Nothing was applied. Order {} refused: {line}\n  {why}\n",
                r.line_no
            );
            let hints = hints_text(&*loaded.game, seat);
            if hints.is_empty() {
                msg.push_str(&waiting_text(&*loaded.game));
            } else {
                msg.push_str("You can:\n");
                msg.push_str(&hints);
            }
            Err(LocalError::Refused(msg.trim_end().to_string()))
        }
        Err(service::LocalApplyError::Service(e)) => Err(e.into()),
    }
}

fn hints_text(game: &dyn crate::engine::AnyGame, seat: Seat) -> String {
    game.hints(seat)
        .iter()
        .map(|h| format!("  {}\n", h.replace('\n', "\n  ")))
        .collect()
}

fn waiting_text(game: &dyn crate::engine::AnyGame) -> String {
    let names = game.player_names();
    match game.status() {
        Status::Finished(_) => "The game is over.\n".to_string(),
        Status::Active(awaited) => {
            let who: Vec<String> = awaited
                .iter()
                .map(|a| format!("{} ({})", names[a.seat.index()], a.what))
                .collect();
            format!("Waiting for: {}\n", who.join("; "))
        }
    }
}

/// What comes next, for `seat`: their hints, or whom the game waits for.
fn next_text(game: &dyn crate::engine::AnyGame, seat: Seat) -> String {
    let hints = hints_text(game, seat);
    let mut out = waiting_text(game);
    if !hints.is_empty() {
        out.push_str("You can:\n");
        out.push_str(&hints);
    }
    out
}

/// `show`: the map and status (or the JSON view) as `name` (or a spectator)
/// may see them.
pub fn show(
    store: &Store,
    id: &GameId,
    name: Option<&str>,
    json: bool,
    now: DateTime<Utc>,
) -> Result<String, LocalError> {
    if let Some(f) = store.forming(id)? {
        return Ok(forming_view(&f, json, now));
    }
    // Without `--as`, the operator: the game's view shows them what it
    // shows a spectator.
    let viewer = match name {
        Some(n) => Viewer::Player(seat_for(store, id, n)?),
        None => Viewer::Operator,
    };
    let loaded = store.load(id)?;
    let meta = store.meta(id)?;
    let ended = crate::service::report::ended(store, id, &meta, &*loaded.game)?;
    if json {
        // Once the game is over nothing is secret, as in the text views
        // (`report::status_block`): every player's money or cards.
        let mut view = if ended.is_some() {
            loaded.game.view_json_over(viewer)
        } else {
            loaded.game.view_json(viewer)
        };
        if let Some(obj) = view.as_object_mut() {
            obj.insert("game".to_string(), serde_json::Value::String(id.0.clone()));
            // Over, by the rules or by a moderator: nobody is awaited.
            let aborted = match &ended {
                Some(crate::service::report::Ended::Aborted { at, by, why }) => {
                    obj.insert("finished".to_string(), serde_json::Value::Bool(true));
                    obj.insert("awaiting".to_string(), serde_json::json!([]));
                    serde_json::json!({"at": at.to_rfc3339(), "by": by, "why": why})
                }
                _ => serde_json::Value::Null,
            };
            obj.insert("aborted".to_string(), aborted);
            let paused = meta.paused.filter(|_| ended.is_none()).map_or(
                serde_json::Value::Null,
                |since| serde_json::json!({"since": since.to_rfc3339(), "by": meta.paused_by}),
            );
            obj.insert("paused".to_string(), paused);
            // Deadlines are the daemon's, not the rules': filled in here.
            if let Some(awaiting) = obj.get_mut("awaiting").and_then(|a| a.as_array_mut()) {
                for (a, entry) in loaded.game.awaiting().iter().zip(awaiting.iter_mut()) {
                    let due = meta
                        .clock
                        .waits
                        .iter()
                        .find(|w| w.seat == a.seat && w.kind == a.kind)
                        .map(|w| w.due.to_rfc3339());
                    entry["deadline"] =
                        due.map_or(serde_json::Value::Null, serde_json::Value::String);
                }
            }
            obj.insert(
                "deadlines".to_string(),
                meta.clock.settings.view(&loaded.record.setup.kind),
            );
        }
        return Ok(serde_json::to_string_pretty(&view).unwrap_or_default());
    }
    let mut out = format!("Game {} ({})\n\n", id, loaded.record.setup.kind);
    if let Some(e @ crate::service::report::Ended::Aborted { .. }) = &ended {
        out.push_str(&format!(
            "This game {}. It is over, without a result, and takes no more orders.\n\n",
            e.what(&meta.clock.settings)
        ));
    }
    out.push_str(&crate::service::report::page_text(
        &*loaded.game,
        ended.as_ref(),
        viewer,
    ));
    match &ended {
        // Said once above the map; the status block says it is final.
        Some(crate::service::report::Ended::Aborted { .. }) => return Ok(out),
        Some(e) => {
            out.push_str(&format!(
                "\nThe game is over: {id} {}.\n",
                e.what(&meta.clock.settings)
            ));
            return Ok(out);
        }
        None => {}
    }
    // Paused, the clocks stand still: the deadlines move on at the resume.
    // Said as the mails' first line says it: by whom, since when, what
    // resumes it, and whom it will then wait for.
    if meta.paused.is_some() {
        out.push_str(&format!(
            "\n{}.\n",
            crate::service::report::headline_of(&*loaded.game, &meta, None, viewer)
        ));
        return Ok(out);
    }
    let deadlines = crate::service::report::deadline_lines(&*loaded.game, &meta, viewer, now);
    if !deadlines.is_empty() {
        out.push_str("\nDeadlines:\n");
        for d in deadlines {
            out.push_str(&format!("  {d}\n"));
        }
    }
    if let Some(seat) = viewer.seat() {
        let hints = hints_text(&*loaded.game, seat);
        if !hints.is_empty() {
            out.push_str("\nYou can:\n");
            out.push_str(&hints);
        }
    }
    Ok(out)
}

/// `show --svg`: the board's picture as an SVG document, with what the
/// last accepted order changed marked. The same for every reader but a
/// player with a layer of their own (Linie 1's route while they lay
/// track, issue 35), given by `name`, who is shown theirs.
pub fn picture(store: &Store, id: &GameId, name: Option<&str>) -> Result<String, LocalError> {
    let seat = match name {
        Some(n) => Some(seat_for(store, id, n)?),
        None => None,
    };
    let loaded = store.load(id)?;
    let meta = store.meta(id)?;
    let log = store.log(id)?;
    let last = log
        .iter()
        .rev()
        .find(|e| e.kind == crate::store::EntryKind::Order)
        .map_or(&[][..], |e| &e.events[..]);
    let stopped = crate::service::report::ended_in(&meta, &*loaded.game, &log)
        .and_then(|e| e.stopped(&meta.clock.settings));
    let own = match seat {
        Some(seat) => loaded
            .game
            .own_board(Viewer::Player(seat), last, stopped.as_deref(), true)?
            .and_then(|own| own.picture),
        None => None,
    };
    let picture = match own {
        Some(own) => Some(own),
        None => loaded.game.picture(last, stopped.as_deref())?,
    };
    let picture = picture.ok_or_else(|| {
        LocalError::Argument(format!(
            "{id} is a game of {}, which draws no picture of its board yet; `show {id}` prints its map",
            crate::registry::title(&loaded.record.setup.kind)
        ))
    })?;
    Ok(picture.svg())
}

/// `show GAME --svg FILE` or `--png FILE`: runs `request` (a `show` with
/// `svg` set, here or in the daemon) and writes the picture it gives to
/// `file`, as it is or rendered to PNG; says where on stdout.
pub fn write_picture(
    config: &crate::config::Config,
    request: &Request,
    file: &std::path::Path,
    png: bool,
) -> Outcome {
    let outcome = dispatch(config, request);
    if outcome.code != 0 {
        return outcome;
    }
    let bytes = if png {
        match crate::picture::png_of_svg(&outcome.stdout) {
            Ok(p) => p.bytes,
            Err(e) => return Outcome::of(Err(LocalError::Argument(e.to_string()))),
        }
    } else {
        outcome.stdout.into_bytes()
    };
    match std::fs::write(file, &bytes) {
        Ok(()) => Outcome {
            stdout: format!(
                "The board's picture ({} bytes of {}) is in {}.\n",
                bytes.len(),
                if png { "PNG" } else { "SVG" },
                file.display()
            ),
            ..Outcome::default()
        },
        Err(e) => Outcome::of(Err(LocalError::Argument(format!(
            "cannot write {}: {e}",
            file.display()
        )))),
    }
}

/// `log`: every accepted order with its time, player and consequences, as a
/// spectator sees them (amounts paid stay private until the game is over).
pub fn log(
    store: &Store,
    id: &GameId,
    turns: Option<(u32, u32)>,
    json: bool,
) -> Result<String, LocalError> {
    let entries: Vec<crate::store::LogEntry> = store
        .log(id)?
        .into_iter()
        .filter(|e| turns.is_none_or(|(a, b)| e.turn >= a && e.turn <= b))
        .collect();
    let loaded = store.load(id)?;
    if json {
        let finished = matches!(loaded.game.status(), Status::Finished(_));
        let mut out: Vec<serde_json::Value> = Vec::with_capacity(entries.len());
        for e in &entries {
            let mut v = serde_json::to_value(e).unwrap_or_default();
            if !finished {
                // Amounts paid to players stay private until the end.
                v["events"] = serde_json::Value::Array(Vec::new());
            }
            v["text"] =
                serde_json::json!(loaded.game.describe_events(&e.events, Viewer::Operator)?);
            out.push(v);
        }
        return Ok(serde_json::to_string_pretty(&out).unwrap_or_default());
    }
    let mut out = format!("{}\n", loaded.record.header());
    if entries.is_empty()
        && let Some((a, b)) = turns
    {
        let to = if b == u32::MAX {
            String::new()
        } else {
            b.to_string()
        };
        out.push_str(&format!("No log entries in turns {a}..{to}.\n"));
        return Ok(out);
    }
    out.push_str(
        &crate::service::report::history_lines(&*loaded.game, &entries, Viewer::Operator)?
            .join("\n"),
    );
    out.push('\n');
    Ok(out)
}

/// Reads `A..B` (or `A`) as a range of turns.
pub fn parse_turns(text: &str) -> Result<(u32, u32), LocalError> {
    let bad = || {
        LocalError::Usage(format!(
            "--turns {text}: write A..B, e.g. 3..7, or one turn"
        ))
    };
    match text.split_once("..") {
        Some((a, b)) => {
            let a = if a.is_empty() {
                1
            } else {
                a.trim().parse().map_err(|_| bad())?
            };
            let b = if b.is_empty() {
                u32::MAX
            } else {
                b.trim().parse().map_err(|_| bad())?
            };
            if a > b {
                return Err(LocalError::Usage(format!(
                    "--turns {text}: the first turn is after the last"
                )));
            }
            Ok((a, b))
        }
        None => {
            let n = text.trim().parse().map_err(|_| bad())?;
            Ok((n, n))
        }
    }
}

/// `verify`: the log's hash chain and the replay against the snapshot.
pub fn verify(store: &Store, id: &GameId) -> Result<String, LocalError> {
    match store.verify(id)? {
        crate::store::Verified::Good { entries, last_hash } => Ok(format!(
            "{id}: the log's {entries} entries are intact (last hash {last_hash}), and replaying them gives the stored state.\n"
        )),
        crate::store::Verified::Broken(why) => Err(LocalError::Refused(format!(
            "{id}: the log does not verify: {why}."
        ))),
    }
}

/// `mod`: a moderator command from the command line.
pub fn moderate(
    ctx: &Ctx<'_>,
    id: &GameId,
    by: &str,
    command: &str,
    why: Option<&str>,
    now: DateTime<Utc>,
) -> Result<String, LocalError> {
    let cmd = crate::service::moderator::parse(command)
        .map_err(|e| LocalError::Usage(format!("mod {id} {command}: {e}")))?;
    let outcome =
        crate::service::moderator::run(ctx, id, by, &cmd, why, now).map_err(|e| match e {
            ServiceError::Invalid(msg) => LocalError::Refused(msg),
            // An unknown player is an error (exit 1), as for `order --as`.
            ServiceError::UnknownPlayer(msg) => LocalError::NotAPlayer(msg),
            // A setting or value that cannot be read is a command line used
            // wrongly (exit 64), as an unreadable duration is.
            ServiceError::Unreadable(msg) => {
                LocalError::Usage(format!("mod {id} {command}: {msg}"))
            }
            other => LocalError::Daemon(other),
        })?;
    if outcome.change.update.is_some() || !outcome.change.outbox.is_empty() {
        ctx.store.commit(&outcome.change)?;
        crate::service::archive::write(ctx.store, id, &ctx.config.store.archive)?;
        crate::service::web::refresh(ctx, std::slice::from_ref(id));
    }
    Ok(format!("{}\n", outcome.output.trim_end()))
}

/// A game forming by mail as `show` prints it: where it stands, or as JSON
/// (`"forming": true`, its players, invited addresses, options and
/// expiry; never a key).
fn forming_view(f: &crate::store::Forming, json: bool, now: DateTime<Utc>) -> String {
    if !json {
        return crate::service::site::status_text(f, true, now);
    }
    let view = serde_json::json!({
        "game": f.id.0,
        "kind": f.kind,
        "forming": true,
        "players": f.seats.iter().map(|s| serde_json::json!({"name": s.name, "email": s.address})).collect::<Vec<_>>(),
        "invited": f.invited,
        "options": f.options,
        "open": f.open,
        "watchable": f.watchable,
        "reports": f.reports.name(),
        "created": f.created.to_rfc3339(),
        "expires": f.expires.to_rfc3339(),
    });
    serde_json::to_string_pretty(&view).unwrap_or_default()
}

/// `stats [ADDRESS|NAME] [--json]`: the players' records
/// ([`service::records::operator_text`]); nobody by that address or name
/// is an error (exit 1).
pub fn stats(store: &Store, who: Option<&str>, json: bool) -> Result<String, LocalError> {
    service::records::operator_text(store, who, json)?.map_err(LocalError::Argument)
}

/// `games`: one line per stored game, then one per game forming by mail.
pub fn games(store: &Store) -> Result<String, LocalError> {
    let mut out = String::new();
    for id in store.ids()? {
        let loaded = store.load(&id)?;
        let names = loaded.game.player_names();
        let meta = store.meta(&id)?;
        let state = match crate::service::report::ended(store, &id, &meta, &*loaded.game)? {
            Some(ended) => ended.short(&meta.clock.settings),
            None if meta.paused.is_some() => {
                crate::service::report::headline_of(&*loaded.game, &meta, None, Viewer::Operator)
            }
            None => crate::service::report::headline(&*loaded.game),
        };
        out.push_str(&format!(
            "{:<12} {:<8} {:<30} {state}\n",
            id.0,
            loaded.record.setup.kind,
            names.join(", ")
        ));
    }
    for f in store.all_forming()? {
        let names: Vec<&str> = f.seats.iter().map(|s| s.name.as_str()).collect();
        out.push_str(&format!(
            "{:<12} {:<8} {:<30} forming by mail: not started, expires {}\n",
            f.id.0,
            f.kind,
            names.join(", "),
            f.clock.when(f.expires)
        ));
    }
    if out.is_empty() {
        let kind = crate::registry::GAMES.first().map_or("KIND", |g| g.name);
        out.push_str(&format!(
            "No games yet; create one with `stationmaster new {kind} --player NAME=EMAIL ...`.\n"
        ));
    }
    Ok(out)
}
