//! The `stationmaster` command line: parses arguments, loads the config,
//! sets the clock, and calls into the library. Nothing else lives here.
//!
//! Exit codes: 0 done; 1 an error (bad config, unknown game, storage); 2 the
//! orders were refused (nothing applied).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use clap::{Parser, Subcommand};

use stationmaster::config::Config;
use stationmaster::engine::registry::BoardSource;
use stationmaster::local::{self, LocalError};
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
    /// Print the game's log of accepted orders.
    Log {
        /// The game id.
        game: String,
    },
    /// List the games.
    Games,
    /// Play a short scripted 3-player game and show its map.
    Demo,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
    let now = now(cli.now.as_deref())?;
    let boards = BoardSource::from_dir(&config.games.boards);
    let open = || {
        Store::open(&config.store.path).with_context(|| {
            format!(
                "cannot open the database in {}",
                config.store.path.display()
            )
        })
    };
    let text = match cli.command {
        Command::New {
            kind,
            players,
            seed,
            options,
        } => {
            let players = players
                .iter()
                .map(|p| local::parse_player(p))
                .collect::<Result<Vec<_>, _>>()?;
            let seed = seed.unwrap_or_else(|| now.timestamp_nanos_opt().unwrap_or_default() as u64);
            let id = local::new_game(&open()?, &boards, &kind, players, options, seed, now)?;
            format!("{id}\n")
        }
        Command::Order {
            game,
            player,
            orders,
        } => local::order(&open()?, &GameId(game), &player, &orders, now)?,
        Command::Show { game, player, json } => {
            let mut text = local::show(&open()?, &GameId(game), player.as_deref(), json)?;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text
        }
        Command::Log { game } => local::log(&open()?, &GameId(game))?,
        Command::Games => local::games(&open()?)?,
        Command::Demo => local::demo(&open()?, &boards, now)?,
    };
    Ok(text)
}
