//! The `stationmaster` command line: parses arguments, loads the config,
//! sets the clock, and calls into the library. Nothing else lives here.
//!
//! Exit codes: 0 done; 1 an error (bad config, unknown game, storage); 2 the
//! orders were refused (nothing applied).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use clap::{Parser, Subcommand};

use stationmaster::clock::{ClockSettings, Policy, Span};
use stationmaster::config::{Config, InboundKind, OutboundKind};
use stationmaster::daemon::{Ctx, Daemon, quarantine};
use stationmaster::engine::registry::BoardSource;
use stationmaster::local::{self, LocalError};
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport;
use stationmaster::store::{GameId, Store};

/// Stationmaster: a play-by-email turn processor for railway board games.
#[derive(Parser)]
#[command(version, about, long_about = None)]
struct Cli {
    /// The config file (without one, the embedded defaults: sled in var/db).
    #[arg(long, global = true, env = "STATIONMASTER_CONFIG")]
    config: Option<PathBuf>,
    /// Use this time instead of the system clock (RFC 3339, e.g. 2026-11-21T18:00:00Z).
    #[arg(long, global = true, env = "STATIONMASTER_NOW")]
    now: Option<String>,
    #[command(subcommand)]
    command: Command,
}

// `new` carries all the deadline flags; the enum is parsed once, so its
// size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Create a game and print its id.
    New {
        /// The game: rocket.
        kind: String,
        /// A player as NAME=EMAIL, in seat order (clockwise); 2 to 4 for rocket.
        #[arg(long = "player", required = true, value_name = "NAME=EMAIL")]
        players: Vec<String>,
        /// The seed of the game's random choices (the starting player).
        #[arg(long)]
        seed: Option<u64>,
        /// Switch on an option (rocket: veto_defend_only, open_money).
        #[arg(long = "option", value_name = "NAME")]
        options: Vec<String>,
        /// A moderator of this game (besides the site's), by address.
        #[arg(long = "moderator", value_name = "EMAIL")]
        moderators: Vec<String>,
        #[command(flatten)]
        clock: ClockArgs,
    },
    /// Apply one or more orders (one a line), all or nothing.
    Order {
        /// The game id.
        game: String,
        /// The player giving the orders.
        #[arg(long = "as", value_name = "NAME")]
        player: String,
        /// The orders, one a line; `help` prints the order grammar.
        orders: String,
    },
    /// Show the map and status, or the JSON view.
    Show {
        /// The game id.
        game: String,
        /// Show it as this player sees it (their money, their hints).
        #[arg(long = "as", value_name = "NAME")]
        player: Option<String>,
        /// Print the JSON view (docs/state-json.md) instead.
        #[arg(long)]
        json: bool,
    },
    /// Print the game's turn log: orders, their consequences, deadlines and
    /// moderators' acts, timestamped.
    Log {
        /// The game id.
        game: String,
        /// Only these turns, e.g. 3..7.
        #[arg(long, value_name = "A..B")]
        turns: Option<String>,
        /// As JSON (one object per entry, with its hash).
        #[arg(long)]
        json: bool,
    },
    /// Check the log's hash chain and that replaying it gives the stored state.
    Verify {
        /// The game id.
        game: String,
    },
    /// A moderator command: pause, resume, extend DURATION, deadline TIME,
    /// as PLAYER ORDERS, skip, undo [N], replace PLAYER ADDRESS, abort,
    /// resend, preview PLAYER ORDERS, note TEXT, moderator ADDRESS.
    Mod {
        /// The game id.
        game: String,
        /// Who acts (recorded in the log).
        #[arg(long, default_value = "operator")]
        by: String,
        /// Why (recorded in the log and told to the players).
        #[arg(long)]
        why: Option<String>,
        /// The command and its arguments, e.g. `extend 24h` or `as alice 'extend GWR D14'`.
        #[arg(required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
    /// List the games.
    Games,
    /// Run the daemon: poll, process, send, sleep; stops cleanly on SIGINT/SIGTERM.
    Run,
    /// One poll-and-process cycle, then exit (for cron).
    Process,
    /// Check the config file and try its mail connections.
    CheckConfig,
    /// List the mail put aside in quarantine (mail that could not be read
    /// or handled after 3 tries), or put it back with `retry`.
    Quarantine {
        #[command(subcommand)]
        action: Option<QuarantineAction>,
    },
    /// Play a short scripted 3-player game by mail on the embedded default
    /// (Maildir in, .eml files out) and show what came of it.
    Demo,
}

/// What `quarantine` does besides listing.
#[derive(Subcommand)]
enum QuarantineAction {
    /// Put quarantined mail back into the inbox, to be tried again.
    Retry {
        /// The mails, by the names `quarantine` lists.
        names: Vec<String>,
        /// Every quarantined mail.
        #[arg(long, conflicts_with = "names")]
        all: bool,
    },
}

/// Deadline settings of a new game; each defaults to the config's `[deadlines]`.
#[derive(clap::Args)]
struct ClockArgs {
    /// Time for a turn, e.g. 48h, 2d.
    #[arg(long, value_name = "DURATION")]
    turn: Option<String>,
    /// Time to answer a veto question, e.g. 12h.
    #[arg(long, value_name = "DURATION")]
    veto_question: Option<String>,
    /// Time for each bid in a veto round, e.g. 12h.
    #[arg(long, value_name = "DURATION")]
    veto_bid: Option<String>,
    /// The game's time zone, e.g. Europe/London.
    #[arg(long, value_name = "ZONE")]
    time_zone: Option<String>,
    /// Move deadlines on to this full hour (0 to 23) of the game's time zone.
    #[arg(long, value_name = "HOUR")]
    round_to_hour: Option<u8>,
    /// Weekdays with no deadline, e.g. sat,sun.
    #[arg(long, value_name = "DAYS", value_delimiter = ',')]
    skip_days: Option<Vec<String>>,
    /// Reminders before a deadline, e.g. 24h,2h.
    #[arg(long, value_name = "DURATIONS", value_delimiter = ',')]
    reminders: Option<Vec<String>>,
    /// What a missed turn does: skip, wait or default.
    #[arg(long, value_name = "POLICY")]
    policy: Option<String>,
    /// Ask the moderators to replace a player after this many misses in a row.
    #[arg(long, value_name = "N")]
    replace_after: Option<u32>,
}

impl ClockArgs {
    fn apply(self, mut c: ClockSettings) -> Result<ClockSettings> {
        let span =
            |flag: &str, v: &str| Span::parse(v).map_err(|e| anyhow::anyhow!("--{flag}: {e}"));
        if let Some(v) = self.turn {
            c.turn = span("turn", &v)?;
        }
        if let Some(v) = self.veto_question {
            c.veto_question = span("veto-question", &v)?;
        }
        if let Some(v) = self.veto_bid {
            c.veto_bid = span("veto-bid", &v)?;
        }
        if let Some(v) = self.time_zone {
            c.time_zone = v;
        }
        if self.round_to_hour.is_some() {
            c.round_to_hour = self.round_to_hour;
        }
        if let Some(v) = self.skip_days {
            c.skip_days = v;
        }
        if let Some(v) = self.reminders {
            c.reminders = v
                .iter()
                .map(|r| span("reminders", r))
                .collect::<Result<_>>()?;
        }
        if let Some(v) = self.policy {
            c.policy = Policy::parse(&v).map_err(|e| anyhow::anyhow!("--policy: {e}"))?;
        }
        if let Some(v) = self.replace_after {
            c.replace_after = v;
        }
        c.check().map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(c)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "stationmaster=info".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match run(cli) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            if let Some(LocalError::Refused(msg)) = e.downcast_ref::<LocalError>() {
                eprintln!("{msg}");
                return ExitCode::from(2);
            }
            eprintln!("stationmaster: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn now(cli_now: Option<&str>) -> Result<DateTime<Utc>> {
    match cli_now {
        None => Ok(Utc::now()),
        Some(s) => Ok(DateTime::parse_from_rfc3339(s)
            .with_context(|| {
                format!("--now {s}: not an RFC 3339 time such as 2026-11-21T18:00:00Z")
            })?
            .with_timezone(&Utc)),
    }
}

fn run(cli: Cli) -> Result<String> {
    let config = Config::load(cli.config.as_deref())?;
    let fixed_now = cli.now.as_deref().map(|s| now(Some(s))).transpose()?;
    let now = fixed_now.unwrap_or_else(Utc::now);
    let boards = BoardSource::from_dir(&config.games.boards);
    let open = || {
        Store::open(&config.store.path).with_context(|| {
            format!(
                "cannot open the database in {}",
                config.store.path.display()
            )
        })
    };
    let templates = || {
        Templates::load(config.templates.dir.as_deref()).context("cannot load the mail templates")
    };
    let daemon = |store: Store| -> Result<Daemon> {
        let inbound =
            transport::inbound(&config.inbound).context("cannot open the inbound mail")?;
        let outbound =
            transport::outbound(&config.outbound).context("cannot open the outbound mail")?;
        Ok(Daemon::new(
            store,
            config.clone(),
            templates()?,
            boards.clone(),
            inbound,
            outbound,
        ))
    };
    let text = match cli.command {
        Command::New {
            kind,
            players,
            seed,
            options,
            moderators,
            clock,
        } => {
            let players = players
                .iter()
                .map(|p| local::parse_player(p))
                .collect::<Result<Vec<_>, _>>()?;
            let seed = seed.unwrap_or_else(|| now.timestamp_nanos_opt().unwrap_or_default() as u64);
            let (store, templates) = (open()?, templates()?);
            let ctx = Ctx {
                store: &store,
                config: &config,
                templates: &templates,
                boards: &boards,
            };
            let spec = local::GameSpec {
                kind,
                players,
                options,
                seed,
                clock: clock.apply(config.deadlines.clone())?,
                moderators,
            };
            let id = local::new_game(&ctx, spec, now)?;
            format!("{id}\n")
        }
        Command::Order {
            game,
            player,
            orders,
        } => {
            let (store, templates) = (open()?, templates()?);
            let ctx = Ctx {
                store: &store,
                config: &config,
                templates: &templates,
                boards: &boards,
            };
            local::order(&ctx, &GameId(game), &player, &orders, now)?
        }
        Command::Show { game, player, json } => {
            let mut text = local::show(&open()?, &GameId(game), player.as_deref(), json, now)?;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
        Command::Log { game, turns, json } => {
            let turns = turns.as_deref().map(local::parse_turns).transpose()?;
            let mut text = local::log(&open()?, &GameId(game), turns, json)?;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
        Command::Verify { game } => local::verify(&open()?, &GameId(game))?,
        Command::Mod {
            game,
            by,
            why,
            command,
        } => {
            let (store, templates) = (open()?, templates()?);
            let ctx = Ctx {
                store: &store,
                config: &config,
                templates: &templates,
                boards: &boards,
            };
            local::moderate(
                &ctx,
                &GameId(game),
                &by,
                &command.join(" "),
                why.as_deref(),
                now,
            )?
        }
        Command::Games => local::games(&open()?)?,
        Command::Quarantine { action } => {
            let store = open()?;
            let mut inbound =
                transport::inbound(&config.inbound).context("cannot open the inbound mail")?;
            match action {
                None => quarantine::list(&store, inbound.as_mut())?,
                Some(QuarantineAction::Retry { names, all }) => {
                    if names.is_empty() && !all {
                        anyhow::bail!("quarantine retry: name the mails to retry, or give --all");
                    }
                    quarantine::retry(&store, inbound.as_mut(), &names)?
                }
            }
        }
        Command::Process => {
            let mut d = daemon(open()?)?;
            let r = d.process(now, &AtomicBool::new(false))?;
            format!(
                "{} mail(s) read: {} changed a game, {} answered without a change or ignored; {} mail(s) sent, {} waiting to be sent again.\n{}",
                r.fetched,
                r.applied,
                r.skipped,
                r.sent,
                r.failed,
                if r.quarantined > 0 {
                    format!(
                        "{} mail(s) could not be handled and were put in quarantine (`stationmaster quarantine`).\n",
                        r.quarantined
                    )
                } else {
                    String::new()
                }
            )
        }
        Command::Run => {
            let stop = Arc::new(AtomicBool::new(false));
            let flag = stop.clone();
            ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
                .context("cannot install the signal handler")?;
            let mut d = daemon(open()?)?;
            tracing::info!(
                poll_seconds = config.daemon.poll_seconds,
                "stationmaster running"
            );
            let clock = move || fixed_now.unwrap_or_else(Utc::now);
            d.run(&stop, &clock)?;
            String::new()
        }
        Command::CheckConfig => {
            let mut out = format!(
                "config {}: valid\n",
                cli.config
                    .as_deref()
                    .map_or("(none: embedded defaults)".to_string(), |p| p
                        .display()
                        .to_string())
            );
            templates()?;
            out.push_str(&format!(
                "templates: {}\n",
                Templates::describe(config.templates.dir.as_deref())
            ));
            drop(open()?);
            out.push_str(&format!("store: {} opens\n", config.store.path.display()));
            out.push_str(&format!(
                "inbound: {}\n",
                transport::check_inbound(&config.inbound).context("inbound mail")?
            ));
            out.push_str(&format!(
                "outbound: {}\n",
                transport::check_outbound(&config.outbound).context("outbound mail")?
            ));
            out
        }
        Command::Demo => {
            if config.inbound.kind != InboundKind::Maildir
                || config.outbound.kind != OutboundKind::Files
            {
                anyhow::bail!(
                    "demo runs on the embedded default (a Maildir in, .eml files out); this config uses a mail server"
                );
            }
            let mut d = daemon(open()?)?;
            local::demo(&mut d, &config.inbound.maildir, &config.outbound.dir, now)?
        }
    };
    Ok(text)
}
