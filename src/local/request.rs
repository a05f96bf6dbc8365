//! A command of the command line as one value, [`Request`], and the one
//! function that runs it, [`execute`], wherever it runs: in the command
//! line's own process on a database it opened, or in the running daemon,
//! which got the request over its socket (see [`super::socket`]). Either
//! way the result is the same [`Outcome`]: the text for stdout, the text
//! for stderr and the exit code.

use std::cell::OnceCell;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::LocalError;
use crate::clock::{ClockSettings, Policy, Span};
use crate::config::Config;
use crate::mail::templates::Templates;
use crate::registry::BoardSource;
use crate::service::Ctx;
use crate::store::{GameId, Store};

/// A command of the command line with its arguments, as typed, and the
/// clock it runs at (`--now`; none: the system clock where it runs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// `--now`, if given.
    pub now: Option<DateTime<Utc>>,
    /// The command.
    pub command: Command,
}

/// The commands that read or change the games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "name")]
pub enum Command {
    /// `new KIND --player NAME=EMAIL …`
    New {
        /// The game, e.g. `rocket`.
        kind: String,
        /// `NAME=EMAIL`, in seat order.
        players: Vec<String>,
        /// `--seed`; none: drawn at random.
        seed: Option<u64>,
        /// `--option`s.
        options: Vec<String>,
        /// `--moderator`s.
        moderators: Vec<String>,
        /// The deadline flags.
        clock: Box<ClockFlags>,
        /// `--reports`: how much mail players get unless they choose.
        #[serde(default)]
        reports: Option<String>,
        /// `--watchable`.
        #[serde(default)]
        watchable: bool,
    },
    /// `order GAME --as NAME ORDERS`
    Order {
        /// The game id.
        game: String,
        /// `--as`.
        player: String,
        /// The order lines.
        orders: String,
    },
    /// `show GAME [--as NAME] [--json | --svg FILE | --png FILE]`
    Show {
        /// The game id.
        game: String,
        /// `--as`.
        player: Option<String>,
        /// `--json`.
        json: bool,
        /// `--svg` or `--png`: the board's picture, as SVG (the command
        /// line writes it to the file, or renders it to PNG first).
        #[serde(default)]
        svg: bool,
    },
    /// `log GAME [--turns A..B] [--json]`
    Log {
        /// The game id.
        game: String,
        /// `--turns`, as typed.
        turns: Option<String>,
        /// `--json`.
        json: bool,
    },
    /// `verify GAME`
    Verify {
        /// The game id.
        game: String,
    },
    /// `mod GAME [--by ADDRESS] [--why TEXT] COMMAND…`
    Mod {
        /// The game id.
        game: String,
        /// `--by`.
        by: String,
        /// `--why`.
        why: Option<String>,
        /// The command's words.
        command: Vec<String>,
    },
    /// `games`
    Games,
    /// `stats [ADDRESS|NAME] [--json]`
    Stats {
        /// The address or name, if any.
        who: Option<String>,
        /// `--json`.
        json: bool,
    },
    /// `export`: the whole database as an export document, on stdout.
    Export,
    /// `quarantine` (None), or `quarantine retry NAME…` (every mail when
    /// empty).
    Quarantine {
        /// The mails to put back, if any.
        retry: Option<Vec<String>>,
    },
}

/// The deadline flags of `new`, as typed; each unset one is the config's
/// `[deadlines]` value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClockFlags {
    /// `--turn`.
    pub turn: Option<String>,
    /// `--question` (or the game's own name for it).
    pub question: Option<String>,
    /// `--bid` (or the game's own name for it).
    pub bid: Option<String>,
    /// `--time-zone`.
    pub time_zone: Option<String>,
    /// `--round-to-hour`.
    pub round_to_hour: Option<u8>,
    /// `--skip-days`.
    pub skip_days: Option<Vec<String>>,
    /// `--reminders`.
    pub reminders: Option<Vec<String>>,
    /// `--policy`.
    pub policy: Option<String>,
    /// `--replace-after`.
    pub replace_after: Option<u32>,
}

impl ClockFlags {
    /// The settings `c` with these flags applied, checked.
    pub fn apply(&self, mut c: ClockSettings) -> Result<ClockSettings, LocalError> {
        let span = |flag: &str, v: &str| {
            Span::parse(v).map_err(|e| LocalError::Usage(format!("--{flag}: {e}")))
        };
        if let Some(v) = &self.turn {
            c.turn = span("turn", v)?;
        }
        if let Some(v) = &self.question {
            c.question = span("question", v)?;
        }
        if let Some(v) = &self.bid {
            c.bid = span("bid", v)?;
        }
        if let Some(v) = &self.time_zone {
            c.time_zone = v.clone();
        }
        if self.round_to_hour.is_some() {
            c.round_to_hour = self.round_to_hour;
        }
        if let Some(v) = &self.skip_days {
            c.skip_days = v.clone();
        }
        if let Some(v) = &self.reminders {
            c.reminders = v
                .iter()
                .map(|r| span("reminders", r))
                .collect::<Result<_, _>>()?;
        }
        if let Some(v) = &self.policy {
            c.policy = Policy::parse(v).map_err(|e| LocalError::Usage(format!("--policy: {e}")))?;
        }
        if let Some(v) = self.replace_after {
            c.replace_after = v;
        }
        // Named by the flag that gave it, as the others are.
        match c.fault() {
            Some((key, why)) => Err(LocalError::Usage(format!(
                "--{}: {why}",
                key.replace('_', "-")
            ))),
            None => Ok(c),
        }
    }
}

/// What a command printed and how it ended.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The text for stdout.
    pub stdout: String,
    /// The text for stderr.
    pub stderr: String,
    /// The exit code: 0 done, 1 an error, 2 refused, 64 a usage error
    /// (see docs/operators.md, "Exit codes").
    pub code: u8,
}

/// The exit code of a command that was used wrongly (sysexits' EX_USAGE).
pub const EXIT_USAGE: u8 = 64;

impl Outcome {
    /// The outcome of a command that returned `result`: its text, or its
    /// error as the command line prints it (a refusal as it is, exit 2;
    /// any other error after `stationmaster: ` with its causes, exit 1).
    pub fn of(result: Result<String, LocalError>) -> Outcome {
        match result {
            Ok(stdout) => Outcome {
                stdout,
                ..Outcome::default()
            },
            Err(LocalError::Refused(msg)) => Outcome {
                stderr: format!("{msg}\n"),
                code: 2,
                ..Outcome::default()
            },
            Err(e @ (LocalError::Usage(_) | LocalError::PlayerArgument(_))) => Outcome {
                stderr: format!("stationmaster: {e}\n"),
                code: EXIT_USAGE,
                ..Outcome::default()
            },
            Err(e) => Outcome::error(&e),
        }
    }

    /// An error, exit 1: `stationmaster: ` and the error with its causes.
    pub fn error(e: &dyn std::error::Error) -> Outcome {
        let mut text = e.to_string();
        let mut source = e.source();
        while let Some(s) = source {
            text.push_str(": ");
            text.push_str(&s.to_string());
            source = s.source();
        }
        Outcome {
            stdout: String::new(),
            stderr: format!("stationmaster: {text}\n"),
            code: 1,
        }
    }
}

/// What commands run with: the database, the config, the boards, and the
/// mail templates (loaded when a command first needs them).
pub struct Env<'a> {
    store: &'a Store,
    config: &'a Config,
    boards: &'a BoardSource,
    templates: Option<&'a Templates>,
    loaded: OnceCell<Templates>,
}

impl<'a> Env<'a> {
    /// Commands on a database this process opened; the templates are
    /// loaded from the config when needed.
    pub fn new(store: &'a Store, config: &'a Config, boards: &'a BoardSource) -> Env<'a> {
        Env {
            store,
            config,
            boards,
            templates: None,
            loaded: OnceCell::new(),
        }
    }

    /// Commands with the daemon's own parts.
    pub fn of(ctx: &Ctx<'a>) -> Env<'a> {
        Env {
            store: ctx.store,
            config: ctx.config,
            boards: ctx.boards,
            templates: Some(ctx.templates),
            loaded: OnceCell::new(),
        }
    }

    fn templates(&self) -> Result<&Templates, LocalError> {
        if let Some(t) = self.templates {
            return Ok(t);
        }
        if self.loaded.get().is_none() {
            let t = Templates::load(self.config.templates.dir.as_deref())
                .map_err(|source| LocalError::Templates { source })?;
            let _ = self.loaded.set(t);
        }
        self.loaded
            .get()
            .ok_or_else(|| LocalError::Argument("the mail templates could not be kept".to_string()))
    }

    fn ctx(&self) -> Result<Ctx<'_>, LocalError> {
        Ok(Ctx {
            store: self.store,
            config: self.config,
            templates: self.templates()?,
            boards: self.boards,
        })
    }
}

/// Runs `request`: the one path of every command, in the command line's
/// process or in the daemon's.
pub fn execute(env: &Env<'_>, request: &Request) -> Outcome {
    Outcome::of(run(env, request))
}

fn with_newline(mut text: String) -> String {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

fn run(env: &Env<'_>, request: &Request) -> Result<String, LocalError> {
    let now = request.now.unwrap_or_else(Utc::now);
    let store = env.store;
    Ok(match &request.command {
        Command::New {
            kind,
            players,
            seed,
            options,
            moderators,
            clock,
            reports,
            watchable,
        } => {
            let reports = match reports {
                Some(r) => crate::store::ReportMode::parse(r)
                    .map_err(|e| LocalError::Usage(format!("--reports: {e}")))?,
                None => crate::store::ReportMode::default(),
            };
            let players = players
                .iter()
                .map(|p| super::parse_player(p))
                .collect::<Result<Vec<_>, _>>()?;
            // Never the clock: the seed decides the cards to come and the
            // address of a game's page that is not watchable.
            let seed = match seed {
                Some(s) => *s,
                None => crate::service::new_seed()?,
            };
            let clock = clock.apply(env.config.deadlines.clone())?;
            let spec = super::GameSpec {
                kind: kind.clone(),
                players,
                options: options.clone(),
                seed,
                clock,
                moderators: moderators.clone(),
                reports,
                watchable: *watchable,
            };
            format!("{}\n", super::new_game(&env.ctx()?, spec, now)?)
        }
        Command::Order {
            game,
            player,
            orders,
        } => super::order(&env.ctx()?, &GameId(game.clone()), player, orders, now)?,
        Command::Show {
            game,
            player,
            svg: true,
            ..
        } => super::picture(store, &GameId(game.clone()), player.as_deref())?,
        Command::Show {
            game, player, json, ..
        } => with_newline(super::show(
            store,
            &GameId(game.clone()),
            player.as_deref(),
            *json,
            now,
        )?),
        Command::Log { game, turns, json } => {
            let turns = turns.as_deref().map(super::parse_turns).transpose()?;
            with_newline(super::log(store, &GameId(game.clone()), turns, *json)?)
        }
        Command::Verify { game } => super::verify(store, &GameId(game.clone()))?,
        Command::Mod {
            game,
            by,
            why,
            command,
        } => super::moderate(
            &env.ctx()?,
            &GameId(game.clone()),
            by,
            &command.join(" "),
            why.as_deref(),
            now,
        )?,
        Command::Games => super::games(store)?,
        Command::Stats { who, json } => super::stats(store, who.as_deref(), *json)?,
        Command::Export => super::export(store, now)?,
        Command::Quarantine { retry } => {
            let mut inbound = crate::mail::transport::inbound(&env.config.inbound)
                .map_err(crate::service::ServiceError::from)?;
            match retry {
                None => crate::service::quarantine::list(store, inbound.as_mut())?,
                Some(names) => crate::service::quarantine::retry(store, inbound.as_mut(), names)?,
            }
        }
    })
}
