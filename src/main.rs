//! The `stationmaster` command line: parses arguments, loads the config,
//! sets the clock, and calls into the library. Nothing else lives here.
//!
//! Exit codes: 0 done; 1 an error (bad config, unknown game, storage); 2 the
//! orders (or a moderator command) were refused and nothing was applied, or
//! `verify` found the log broken; 64 (sysexits' EX_USAGE) the command line
//! was used wrongly.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use stationmaster::config::{Config, InboundKind, OutboundKind};
use stationmaster::daemon::Daemon;
use stationmaster::local::request::EXIT_USAGE;
use stationmaster::local::{self, ClockFlags, LocalError, Outcome, Request};
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport;
use stationmaster::registry::BoardSource;
use stationmaster::store::export::ImportMode;

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
        /// The game (the games and their options are listed below).
        kind: String,
        /// A player as NAME=EMAIL, in seat order (clockwise); NAME=bot seats the engine's bot, which plays at once whenever the game awaits it (at least one seat a person's).
        #[arg(long = "player", required = true, value_name = "NAME=EMAIL")]
        players: Vec<String>,
        /// The seed of the game's random choices (cards dealt, tiles drawn; who plays first where the game leaves it to chance: see each game below); without it, one drawn at random.
        #[arg(long)]
        seed: Option<u64>,
        /// An option of the game: NAME for a switch, NAME=VALUE otherwise.
        #[arg(long = "option", value_name = "NAME[=VALUE]")]
        options: Vec<String>,
        /// A moderator of this game (besides the site's), by address.
        #[arg(long = "moderator", value_name = "EMAIL")]
        moderators: Vec<String>,
        /// How much mail players get unless they choose: full (a report
        /// after every change), short (one line per change, the report
        /// when the game waits for them) or turn (only then).
        #[arg(long, value_name = "MODE")]
        reports: Option<String>,
        /// Anyone may follow the game by mail with `watch GAME`.
        #[arg(long)]
        watchable: bool,
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
        /// Show it as this player sees it (their money, their hints; a
        /// Linie 1 player's route on their map and picture).
        #[arg(long = "as", value_name = "NAME")]
        player: Option<String>,
        /// Print the JSON view (docs/state-json.md) instead.
        #[arg(long, conflicts_with_all = ["svg", "png"])]
        json: bool,
        /// Write the board's picture to FILE as SVG instead.
        #[arg(long, value_name = "FILE", conflicts_with = "png")]
        svg: Option<std::path::PathBuf>,
        /// Write the board's picture to FILE as PNG (as mailed) instead.
        #[arg(long, value_name = "FILE")]
        png: Option<std::path::PathBuf>,
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
    /// A moderator command, e.g. pause, extend 24h, note TEXT (`mod
    /// --help` lists them all).
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
    /// The players' records: every address a line, or one player's whole
    /// (by address, or everyone who played under a name).
    Stats {
        /// An address or a player's name.
        #[arg(value_name = "ADDRESS|NAME")]
        who: Option<String>,
        /// As JSON (address -> record).
        #[arg(long)]
        json: bool,
    },
    /// Write every game, its log, keys and bookkeeping, the receipts and
    /// the mail waiting to be sent, as one versioned JSON document.
    Export {
        /// Where to write it (`-` or none: stdout).
        file: Option<PathBuf>,
    },
    /// Make the database again from an export (only into an empty one
    /// unless --replace or --merge).
    Import {
        /// The export document (`-`: stdin).
        file: PathBuf,
        /// Replace everything the database holds by the export.
        #[arg(long, conflicts_with = "merge")]
        replace: bool,
        /// Add the export's games beside the database's own (refused if a
        /// game id is taken).
        #[arg(long)]
        merge: bool,
    },
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
    Demo {
        /// The game to play (`rocket`, `linie1`); by default the first
        /// with a demo script.
        kind: Option<String>,
    },
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
    /// Time to answer a question put to several players, e.g. 12h.
    #[arg(long, value_name = "DURATION")]
    question: Option<String>,
    /// Time for each bid of a round, e.g. 12h.
    #[arg(long, value_name = "DURATION")]
    bid: Option<String>,
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
    /// What a missed turn does: skip, wait, default or bot (the bot plays it).
    #[arg(long, value_name = "POLICY")]
    policy: Option<String>,
    /// Ask the moderators to replace a player after this many misses in a row.
    #[arg(long, value_name = "N")]
    replace_after: Option<u32>,
}

impl From<ClockArgs> for ClockFlags {
    fn from(c: ClockArgs) -> ClockFlags {
        ClockFlags {
            turn: c.turn,
            question: c.question,
            bid: c.bid,
            time_zone: c.time_zone,
            round_to_hour: c.round_to_hour,
            skip_days: c.skip_days,
            reminders: c.reminders,
            policy: c.policy,
            replace_after: c.replace_after,
        }
    }
}

/// What came from where: `--now` or `STATIONMASTER_NOW`.
struct Parsed {
    cli: Cli,
    now_from_env: bool,
}

/// The command line's definition: clap's, with every moderator command
/// listed under `mod --help` from the one list the daemon reads them by.
fn definition() -> clap::Command {
    let forms: Vec<String> = stationmaster::daemon::moderator::FORMS
        .iter()
        .map(|(f, w)| format!("  {f:<30} {w}"))
        .collect();
    let mut games = String::from("Games:\n");
    let mut aliases: Vec<(&str, String)> = Vec::new();
    let mut names = Vec::new();
    for g in stationmaster::registry::GAMES {
        games.push_str(&format!(
            "  {:<10} {}, {}\n",
            g.name,
            g.title,
            g.players_text()
        ));
        games.push_str(&format!("    first player: {}\n", g.first_player));
        for o in g.options {
            let name = match o.values {
                [] => o.name.to_string(),
                values => format!("{}={}", o.name, values.join("|")),
            };
            games.push_str(&format!("    --option {name:<24} {}\n", o.help));
        }
        for w in g.waits {
            if let Some(alias) = w.key_alias {
                aliases.push((w.kind.neutral_name(), alias.replace('_', "-")));
                names.push(format!(
                    "  {}: {alias} is `{}` ({})",
                    g.name,
                    w.kind.neutral_name(),
                    w.name
                ));
            }
        }
    }
    let settings = if names.is_empty() {
        String::new()
    } else {
        format!(
            "\n\nDeadline settings in a game's own words, read as the neutral ones:\n{}",
            names.join("\n")
        )
    };
    let mut cli = Cli::command()
        .mut_subcommand("mod", |c| {
            c.after_help(format!(
                "Commands:\n{}\n\nA game that is over (aborted, or finished by its rules) takes only `note` and `resend`.{settings}",
                forms.join("\n")
            ))
        })
        .mut_subcommand("new", |c| c.after_help(games));
    for (arg, alias) in aliases {
        let alias: &'static str = Box::leak(alias.into_boxed_str());
        cli = cli.mut_subcommand("new", |c| c.mut_arg(arg, |a| a.visible_alias(alias)));
    }
    cli
}

/// Reads the arguments; a usage error (or `--help`, `--version`) ends the
/// program here, with exit 64 for an error and 0 for help.
fn parse() -> Parsed {
    let matches = definition().try_get_matches().unwrap_or_else(|e| {
        let _ = e.print();
        std::process::exit(if e.use_stderr() {
            i32::from(EXIT_USAGE)
        } else {
            0
        })
    });
    let now_from_env = matches.value_source("now") == Some(ValueSource::EnvVariable);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| {
        let _ = e.print();
        std::process::exit(i32::from(EXIT_USAGE))
    });
    Parsed { cli, now_from_env }
}

/// A usage error of our own (an argument clap took but we cannot read).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Usage(String);

fn main() -> ExitCode {
    let Parsed { cli, now_from_env } = parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "stationmaster=info".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    match run(cli, now_from_env) {
        Ok(outcome) => {
            use std::io::Write;
            // A reader that stops early (`| head`) ends the output, not
            // the program with a panic.
            let _ = std::io::stdout().write_all(outcome.stdout.as_bytes());
            let _ = std::io::stderr().write_all(outcome.stderr.as_bytes());
            ExitCode::from(outcome.code)
        }
        Err(e) => {
            if let Some(LocalError::Refused(msg)) = e.downcast_ref::<LocalError>() {
                eprintln!("{msg}");
                return ExitCode::from(2);
            }
            if e.downcast_ref::<Usage>().is_some()
                || matches!(
                    e.downcast_ref::<LocalError>(),
                    Some(LocalError::Usage(_) | LocalError::PlayerArgument(_))
                )
            {
                eprintln!("stationmaster: {e:#}");
                return ExitCode::from(EXIT_USAGE);
            }
            eprintln!("stationmaster: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// The time `--now` (or `STATIONMASTER_NOW`, when `from_env`) gives.
fn fixed_time(text: &str, from_env: bool) -> Result<DateTime<Utc>, Usage> {
    DateTime::parse_from_rfc3339(text.trim())
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| {
            let name = if from_env {
                format!("STATIONMASTER_NOW={text}")
            } else {
                format!("--now {text}")
            };
            Usage(format!(
                "{name}: not an RFC 3339 time such as 2026-11-21T18:00:00Z"
            ))
        })
}

fn run(cli: Cli, now_from_env: bool) -> Result<Outcome> {
    let fixed_now = cli
        .now
        .as_deref()
        .map(|s| fixed_time(s, now_from_env))
        .transpose()?;
    if matches!(cli.command, Command::CheckConfig) {
        return Ok(local::check_config(cli.config.as_deref())?);
    }
    let config = Config::load(cli.config.as_deref())?;
    let now = fixed_now.unwrap_or_else(Utc::now);
    let request = |command| Request {
        now: fixed_now,
        command,
    };
    let command = match cli.command {
        Command::New {
            kind,
            players,
            seed,
            options,
            moderators,
            reports,
            watchable,
            clock,
        } => local::Command::New {
            kind,
            players,
            seed,
            options,
            moderators,
            clock: Box::new(clock.into()),
            reports,
            watchable,
        },
        Command::Order {
            game,
            player,
            orders,
        } => local::Command::Order {
            game,
            player,
            orders,
        },
        Command::Show {
            game,
            player,
            json,
            svg,
            png,
        } => match svg.as_ref().or(png.as_ref()) {
            None => local::Command::Show {
                game,
                player,
                json,
                svg: false,
            },
            Some(file) => {
                let show = request(local::Command::Show {
                    game,
                    player,
                    json: false,
                    svg: true,
                });
                return Ok(local::write_picture(&config, &show, file, png.is_some()));
            }
        },
        Command::Log { game, turns, json } => local::Command::Log { game, turns, json },
        Command::Verify { game } => local::Command::Verify { game },
        Command::Mod {
            game,
            by,
            why,
            command,
        } => local::Command::Mod {
            game,
            by,
            why,
            command,
        },
        Command::Games => local::Command::Games,
        Command::Stats { who, json } => local::Command::Stats { who, json },
        Command::Export { file } => {
            return Ok(local::export_to(&config, fixed_now, file.as_deref()));
        }
        Command::Import {
            file,
            replace,
            merge,
        } => {
            let mode = match (replace, merge) {
                (true, _) => ImportMode::Replace,
                (_, true) => ImportMode::Merge,
                _ => ImportMode::Empty,
            };
            return Ok(local::import_from(&config, &file, mode));
        }
        Command::Quarantine { action } => match action {
            None => local::Command::Quarantine { retry: None },
            Some(QuarantineAction::Retry { names, all }) => {
                if names.is_empty() && !all {
                    return Err(Usage(
                        "quarantine retry: name the mails to retry, or give --all".to_string(),
                    )
                    .into());
                }
                local::Command::Quarantine { retry: Some(names) }
            }
        },
        Command::Process => return process(&config, now),
        Command::Run => return run_daemon(&config, fixed_now),
        Command::CheckConfig => return Ok(local::check_config(cli.config.as_deref())?),
        Command::Demo { kind } => return demo(&config, kind.as_deref(), now),
    };
    Ok(local::dispatch(&config, &request(command)))
}

/// The daemon over the config's database, mail transports and templates.
fn open_daemon(config: &Config) -> Result<Daemon> {
    let store = local::open_store(config)?;
    let inbound = transport::inbound(&config.inbound).context("cannot open the inbound mail")?;
    let outbound =
        transport::outbound(&config.outbound).context("cannot open the outbound mail")?;
    let templates = Templates::load(config.templates.dir.as_deref())
        .context("cannot load the mail templates")?;
    Ok(Daemon::new(
        store,
        config.clone(),
        templates,
        BoardSource::from_dir(&config.games.boards),
        inbound,
        outbound,
    ))
}

/// `process`: one cycle of the daemon, and what it did.
fn process(config: &Config, now: DateTime<Utc>) -> Result<Outcome> {
    let mut d = open_daemon(config)?;
    let r = d.process(now, &AtomicBool::new(false))?;
    Ok(printed(r.summary()))
}

/// `run`: the daemon, until SIGINT or SIGTERM.
fn run_daemon(config: &Config, fixed_now: Option<DateTime<Utc>>) -> Result<Outcome> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("cannot install the signal handler")?;
    let mut d = open_daemon(config)?;
    tracing::info!(
        poll_seconds = config.daemon.poll_seconds,
        "stationmaster running"
    );
    let clock = move || fixed_now.unwrap_or_else(Utc::now);
    stationmaster::daemon::socket::run_daemon(&mut d, config, &stop, &clock)?;
    Ok(printed(String::new()))
}

/// `demo`: a scripted game of `kind` on the embedded default's mail
/// folders.
fn demo(config: &Config, kind: Option<&str>, now: DateTime<Utc>) -> Result<Outcome> {
    if config.inbound.kind != InboundKind::Maildir || config.outbound.kind != OutboundKind::Files {
        anyhow::bail!(
            "demo runs on the embedded default (a Maildir in, .eml files out); this config uses a mail server"
        );
    }
    let mut d = open_daemon(config)?;
    Ok(printed(stationmaster::daemon::demo::demo(
        &mut d,
        kind,
        &config.inbound.maildir,
        &config.outbound.dir,
        now,
    )?))
}

/// What a command that printed `text` ends with.
fn printed(text: String) -> Outcome {
    Outcome {
        stdout: text,
        ..Outcome::default()
    }
}
