//! Local play: the `new`, `order`, `show`, `log` and `games` commands as
//! library calls that return the text to print. The command line is a thin
//! shell around these; the daemon reuses the same store calls.

use chrono::{DateTime, Utc};

use crate::engine::registry::{BoardSource, GameKind};
use crate::engine::{OrderRejected, PlayerSetup, Seat, Setup, Status, seat_of};
use crate::store::{GameId, Store, StoreError};

/// What can go wrong in a local command.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// The store failed or the game is unknown.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A `--player` argument is not `NAME=EMAIL`.
    #[error("--player {0}: write NAME=EMAIL, e.g. --player alice=alice@example.org")]
    PlayerArgument(String),
    /// `--as` names nobody at the table.
    #[error("{name} does not play in {game}; the players are {players}")]
    NotAPlayer {
        /// The name given.
        name: String,
        /// The game.
        game: String,
        /// Who plays.
        players: String,
    },
    /// The orders were refused; nothing was applied. The text says which
    /// line, why, and what is legal instead.
    #[error("{0}")]
    Refused(String),
}

/// Reads `NAME=EMAIL`.
pub fn parse_player(arg: &str) -> Result<PlayerSetup, LocalError> {
    match arg.split_once('=') {
        Some((name, email)) if !name.trim().is_empty() && email.contains('@') => Ok(PlayerSetup {
            name: name.trim().to_string(),
            email: email.trim().to_string(),
        }),
        _ => Err(LocalError::PlayerArgument(arg.to_string())),
    }
}

/// `new`: creates a game and returns its id.
pub fn new_game(
    store: &Store,
    boards: &BoardSource,
    kind: &str,
    players: Vec<PlayerSetup>,
    options: Vec<String>,
    seed: u64,
    now: DateTime<Utc>,
) -> Result<GameId, LocalError> {
    let kind = GameKind::from_name(kind).map_err(StoreError::from)?;
    let setup = Setup {
        kind: kind.name().to_string(),
        players,
        options,
        seed,
    };
    Ok(store.create(&setup, boards, now)?)
}

fn seat_for(store: &Store, id: &GameId, name: &str) -> Result<Seat, LocalError> {
    let record = store.record(id)?;
    let names: Vec<String> = record
        .setup
        .players
        .iter()
        .map(|p| p.name.clone())
        .collect();
    seat_of(&names, name).ok_or_else(|| LocalError::NotAPlayer {
        name: name.to_string(),
        game: id.0.clone(),
        players: names.join(", "),
    })
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
    store: &Store,
    id: &GameId,
    name: &str,
    text: &str,
    now: DateTime<Utc>,
) -> Result<String, LocalError> {
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
    match store.apply_batch(id, seat, &lines, now) {
        Ok((applied, game)) => {
            let mut out = String::new();
            for a in &applied {
                out.push_str(&format!("> {}\n", a.order));
                for sentence in game.describe_events(&a.events, Some(seat)) {
                    out.push_str(&format!("  {sentence}\n"));
                }
            }
            out.push_str(&next_text(&*game, seat));
            Ok(out)
        }
        Err(StoreError::Rejected(r)) => {
            let loaded = store.load(id)?;
            let (line, why) = match &r.rejected {
                OrderRejected::Parse(e) => (e.line.clone(), e.to_string()),
                OrderRejected::Rule { line, error } => {
                    (line.clone(), format!("{} ({})", error.message, error.rule))
                }
            };
            let mut msg = format!(
                "Nothing was applied. Line {} refused: {line}\n  {why}\n",
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
        Err(e) => Err(e.into()),
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
) -> Result<String, LocalError> {
    let viewer = name.map(|n| seat_for(store, id, n)).transpose()?;
    let loaded = store.load(id)?;
    if json {
        let mut view = loaded.game.view_json(viewer);
        if let Some(obj) = view.as_object_mut() {
            obj.insert("game".to_string(), serde_json::Value::String(id.0.clone()));
        }
        return Ok(serde_json::to_string_pretty(&view).unwrap_or_default());
    }
    let mut out = format!("Game {} ({})\n\n", id, loaded.record.setup.kind);
    out.push_str(&loaded.game.render(viewer));
    if let Some(seat) = viewer {
        let hints = hints_text(&*loaded.game, seat);
        if !hints.is_empty() {
            out.push_str("\nYou can:\n");
            out.push_str(&hints);
        }
    }
    Ok(out)
}

/// `log`: every accepted order with its time, player and consequences, as a
/// spectator sees them (amounts paid stay private until the game is over).
pub fn log(store: &Store, id: &GameId) -> Result<String, LocalError> {
    let entries = store.log(id)?;
    let loaded = store.load(id)?;
    let record = &loaded.record;
    let names: Vec<&str> = record
        .setup
        .players
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    let mut out = format!(
        "Game {} ({}), created {}, seed {}, players {}{}\n",
        id,
        record.setup.kind,
        record.created.format("%Y-%m-%d %H:%M UTC"),
        record.setup.seed,
        names.join(", "),
        if record.setup.options.is_empty() {
            String::new()
        } else {
            format!(", options {}", record.setup.options.join(", "))
        }
    );
    for e in &entries {
        out.push_str(&format!(
            "#{} {} {}: {}\n",
            e.seq,
            e.at.format("%Y-%m-%d %H:%M"),
            e.player,
            e.order
        ));
        for sentence in loaded.game.describe_events(&e.events, None) {
            out.push_str(&format!("    {sentence}\n"));
        }
    }
    if entries.is_empty() {
        out.push_str("No orders yet.\n");
    }
    Ok(out)
}

/// `games`: one line per stored game.
pub fn games(store: &Store) -> Result<String, LocalError> {
    let mut out = String::new();
    for id in store.ids()? {
        let loaded = store.load(&id)?;
        let names = loaded.game.player_names();
        let state = match loaded.game.status() {
            Status::Finished(placings) => {
                let winners: Vec<&str> = placings
                    .iter()
                    .filter(|p| p.place == 1)
                    .map(|p| names[p.seat.index()].as_str())
                    .collect();
                format!("finished, won by {}", winners.join(" and "))
            }
            Status::Active(awaited) => {
                let who: Vec<&str> = awaited
                    .iter()
                    .map(|a| names[a.seat.index()].as_str())
                    .collect();
                format!("waiting for {}", who.join(", "))
            }
        };
        out.push_str(&format!(
            "{:<12} {:<8} {:<30} {state}\n",
            id.0,
            loaded.record.setup.kind,
            names.join(", ")
        ));
    }
    if out.is_empty() {
        out.push_str(
            "No games yet; create one with `stationmaster new rocket --player NAME=EMAIL ...`.\n",
        );
    }
    Ok(out)
}

/// The scripted game `demo` plays: `games/rocket/demo.txt`, built in.
pub const DEMO_SCRIPT: &str = include_str!("../games/rocket/demo.txt");

/// `demo`: creates a game from [`DEMO_SCRIPT`] (its `players` and `seed`
/// lines), plays its `NAME: ORDER` lines through the store as any player's
/// orders would be, and returns the log and the map as the first player sees
/// it.
pub fn demo(store: &Store, boards: &BoardSource, now: DateTime<Utc>) -> Result<String, LocalError> {
    let mut players = Vec::new();
    let mut seed = 0;
    let mut moves: Vec<(String, String)> = Vec::new();
    for line in order_lines(DEMO_SCRIPT) {
        if let Some(rest) = line.strip_prefix("players ") {
            players = rest
                .split_whitespace()
                .map(parse_player)
                .collect::<Result<_, _>>()?;
        } else if let Some(rest) = line.strip_prefix("seed ") {
            seed = rest
                .trim()
                .parse()
                .map_err(|_| LocalError::Refused(format!("demo script: bad seed {rest}")))?;
        } else if let Some((who, what)) = line.split_once(':') {
            moves.push((who.trim().to_string(), what.trim().to_string()));
        }
    }
    let first = players.first().map(|p| p.name.clone()).unwrap_or_default();
    let id = new_game(store, boards, "rocket", players, Vec::new(), seed, now)?;
    let mut out = format!(
        "Created demo game {id}; playing {} scripted orders.\n\n",
        moves.len()
    );
    for (who, what) in &moves {
        order(store, &id, who, what, now).map_err(|e| match e {
            LocalError::Refused(msg) => {
                LocalError::Refused(format!("demo script, {who}: {what}: {msg}"))
            }
            other => other,
        })?;
    }
    out.push_str(&log(store, &id)?);
    out.push_str(&format!(
        "\nAs {first} sees it now (`stationmaster show {id} --as {first}`):\n\n"
    ));
    out.push_str(&show(store, &id, Some(&first), false)?);
    Ok(out)
}
