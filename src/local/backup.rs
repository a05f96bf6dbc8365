//! `export` and `import`: the whole database as one versioned JSON
//! document (see [`crate::store::export`]), and back.
//!
//! `export` works while the daemon runs (the daemon writes the document
//! between its mail cycles, and the command line saves it); `import` needs
//! the database to itself, and is refused while the daemon runs.

use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use chrono::{DateTime, Utc};

use super::LocalError;
use super::request::{Command, Outcome, Request};
use crate::config::Config;
use crate::store::Store;
use crate::store::export::{Export, ImportMode};

/// The export document of the whole database, as one line of JSON.
pub fn export(store: &Store, now: DateTime<Utc>) -> Result<String, LocalError> {
    let export = store.export(now)?;
    let mut text = serde_json::to_string(&export)
        .map_err(|e| LocalError::Argument(format!("the export cannot be written: {e}")))?;
    text.push('\n');
    Ok(text)
}

fn file_error(path: &Path, source: std::io::Error) -> LocalError {
    LocalError::File {
        path: path.display().to_string(),
        source,
    }
}

/// Writes `text` to `path` whole or not at all (through a file beside it,
/// renamed into place), readable by this user only: an export holds every
/// player's secret key.
fn write_private(path: &Path, text: &str) -> Result<(), LocalError> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.part", std::process::id()));
    let part = path.with_file_name(name);
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&part)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&part, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    written.map_err(|e| file_error(path, e))
}

/// `export [FILE|-]`: the export document, from the running daemon or the
/// database opened here, to FILE (saying how many games it holds) or to
/// stdout (`-` or no FILE).
pub fn export_to(config: &Config, now: Option<DateTime<Utc>>, file: Option<&Path>) -> Outcome {
    let outcome = super::dispatch(
        config,
        &Request {
            now,
            command: Command::Export,
        },
    );
    let file = match file {
        Some(f) if f != Path::new("-") => f,
        _ => return outcome,
    };
    if outcome.code != 0 {
        return outcome;
    }
    #[derive(serde::Deserialize)]
    struct Count {
        games: Vec<serde::de::IgnoredAny>,
    }
    let games = serde_json::from_str::<Count>(&outcome.stdout).map_or(0, |c| c.games.len());
    Outcome::of(write_private(file, &outcome.stdout).map(|()| {
        format!(
            "Exported {games} game(s) to {}; `stationmaster import {}` makes a database of it again.\n",
            file.display(),
            file.display()
        )
    }))
}

/// `import FILE [--replace|--merge]`: reads an export (`-`: from stdin),
/// checks it whole, and writes it into the database, which this process
/// must open itself (refused while the daemon runs).
pub fn import_from(config: &Config, file: &Path, mode: ImportMode) -> Outcome {
    Outcome::of(import(config, file, mode))
}

fn import(config: &Config, file: &Path, mode: ImportMode) -> Result<String, LocalError> {
    let mut text = String::new();
    let name = if file == Path::new("-") {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| file_error(file, e))?;
        "the standard input".to_string()
    } else {
        std::fs::File::open(file)
            .and_then(|mut f| f.read_to_string(&mut text))
            .map_err(|e| file_error(file, e))?;
        file.display().to_string()
    };
    let export = Export::from_json(&text, &name)?;
    let store = super::open_store(config)?;
    let path = config.store.path.display().to_string();
    let imported = store.import(&export, mode, &path)?;
    for id in &imported.games {
        if let crate::store::Verified::Broken(why) = store.verify(id)? {
            return Err(LocalError::Argument(format!(
                "{id} was imported but does not verify: {why}"
            )));
        }
    }
    let ids: Vec<&str> = imported.games.iter().map(|g| g.0.as_str()).collect();
    Ok(format!(
        "Imported {} game(s){} into {path}, with {} receipt(s) and {} mail(s) waiting to be sent; every game verifies.\n",
        ids.len(),
        if ids.is_empty() {
            String::new()
        } else {
            format!(" ({})", ids.join(", "))
        },
        imported.receipts,
        imported.outbox
    ))
}
