//! The archive of a finished (or aborted) game, in `[store] archive`/GAME/:
//! the full turn log (text and JSON, with each entry's hash), the final map
//! and scores, the final board's picture (`final.svg`, where the game draws
//! one), and one self-contained HTML page with all of it.

use crate::engine::Viewer;
use std::path::{Path, PathBuf};

use super::report;
use crate::engine::escape_html;
use crate::store::{GameId, Store};

fn io(path: &Path, e: std::io::Error) -> super::ServiceError {
    crate::mail::TransportError::Io {
        path: path.display().to_string(),
        cause: e,
    }
    .into()
}

/// Writes the archive of game `id` under `dir` if the game is over and it is
/// not written yet; returns its folder when written.
pub fn write(
    store: &Store,
    id: &GameId,
    dir: &Path,
) -> Result<Option<PathBuf>, super::ServiceError> {
    let folder = dir.join(&id.0);
    if folder.join("index.html").exists() {
        return Ok(None);
    }
    let loaded = match store.load(id) {
        Ok(l) => l,
        // A game forming by mail that expired was never a game.
        Err(crate::store::StoreError::NoSuchGame(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let meta = store.meta(id)?;
    let Some(ended) = report::ended(store, id, &meta, &*loaded.game)? else {
        return Ok(None);
    };
    let settings = &meta.clock.settings;
    std::fs::create_dir_all(&folder).map_err(|e| io(&folder, e))?;
    let entries = store.log(id)?;
    let head = format!(
        "{} ({}){}",
        loaded.record.header(),
        crate::registry::title(&loaded.record.setup.kind),
        match &ended {
            // `. Aborted by a moderator (…) on … (why), without a result.`
            report::Ended::Aborted { .. } => {
                format!(
                    ". {}.",
                    crate::engine::grammar::capitalised(&ended.how(settings))
                )
            }
            report::Ended::Finished(_) => ".".to_string(),
        }
    );
    let mut log = report::history_lines(&*loaded.game, &entries, Viewer::Operator)
        .map_err(crate::store::StoreError::from)?;
    for (line, e) in log.iter_mut().filter(|l| l.starts_with('#')).zip(&entries) {
        line.push_str(&format!("   [{}]", &e.hash[..e.hash.len().min(16)]));
    }
    let log_text = format!("{head}\n\n{}\n", log.join("\n"));
    let final_text = format!(
        "{head}\n\n{}",
        report::page_text(&*loaded.game, Some(&ended), Viewer::Operator)
    );
    let files = [
        ("log.txt", log_text.clone()),
        ("final.txt", final_text),
        (
            "log.json",
            serde_json::to_string_pretty(&entries).unwrap_or_default(),
        ),
    ];
    for (name, text) in files {
        let path = folder.join(name);
        std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    }
    // The final board's picture, where the game draws one: its own file,
    // and in the page above the map (scaled down on a narrow screen), with
    // the last order's changes marked as in its report.
    let last = entries
        .iter()
        .rev()
        .find(|e| e.kind == crate::store::EntryKind::Order)
        .map_or(&[][..], |e| &e.events[..]);
    let picture = loaded
        .game
        .picture(last, ended.stopped(settings).as_deref())
        .map_err(crate::store::StoreError::from)?
        .map(|p| p.svg());
    if let Some(svg) = &picture {
        let path = folder.join("final.svg");
        std::fs::write(&path, svg).map_err(|e| io(&path, e))?;
    }
    let html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{id}</title>\n<style>svg {{ max-width: 100%; height: auto }}</style></head>\n<body style=\"font-family: sans-serif\">\n<h1>{}</h1>\n{}{}\n<h2>The turn log</h2>\n<pre>{}</pre>\n</body></html>\n",
        escape_html(&head),
        picture.as_deref().unwrap_or_default(),
        report::page_html(&*loaded.game, Some(&ended), Viewer::Operator),
        escape_html(&log.join("\n"))
    );
    let path = folder.join("index.html");
    std::fs::write(&path, html).map_err(|e| io(&path, e))?;
    Ok(Some(folder))
}
