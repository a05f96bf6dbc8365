//! The games on the web (issue 38, point 3). With `[web] dir` and `url`
//! set, a static site in `dir` that any web server serves: one page per
//! game (`GAME/index.html`: the board's picture, whom the game waits for,
//! the map and status, and the turn log, all as a spectator reads them,
//! so nothing private, with the archive of a game that is over), and an
//! index of the running and finished games (`index.html`; a game not made
//! `watchable` only with `[web] list_unwatchable`). Plain HTML with the
//! picture inline as SVG, no script, scaled to a phone's width.
//! Each page is in the folder [`super::page_address`] names: the game's
//! id where it is watchable, else a folder nobody can guess.
//!
//! A page is drawn from the store, after the change it shows is
//! committed (so no page shows a change the store does not hold), and
//! every file is written whole or not at all: a temporary file renamed
//! over the old one. The same page, without its link to the index, is
//! the archive a game's last mail attaches where there is no site.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::page_address::{attribute, folders, safe_id};
use super::report::{self, Ended};
use super::{Ctx, ServiceError};
use crate::engine::{AnyGame, Viewer, escape_html};
use crate::mail::compose::FileAttachment;
use crate::store::{EntryKind, GameId, GameMeta, GameRecord, LogEntry, StoreError};

/// Each game's line in the index, kept beside its page: what the index
/// shows of it, and the end of the log the page was drawn at.
const SUMMARY: &str = "page.json";

/// What a game's page shows: the game as it stands, its whole log, and
/// how it ended, if it is over.
pub struct Shown<'a> {
    /// The game's id.
    pub id: &'a GameId,
    /// Its record (kind, players, options).
    pub record: &'a GameRecord,
    /// Its bookkeeping (deadlines, pause, abort).
    pub meta: &'a GameMeta,
    /// The game.
    pub game: &'a dyn AnyGame,
    /// Its whole log, oldest first.
    pub entries: &'a [LogEntry],
    /// How it ended, if it is over.
    pub ended: Option<&'a Ended>,
    /// The games each player finished here, as the records stand
    /// ([`super::records::finished_line`]); none in the archive a last
    /// mail attaches.
    pub finished: Option<&'a str>,
}

/// Where a page is read: on the site (with a link to the index), or as a
/// file attached to a mail (self-contained, no link that leads nowhere).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Site,
    Attached,
}

/// A game's line in the index.
#[derive(Debug, Serialize, Deserialize)]
struct Summary {
    /// The hash of the log's last entry when the page was drawn (empty:
    /// none): a page whose game has moved on is drawn again.
    stamp: String,
    /// The game's title (`Stephenson's Rocket`).
    title: String,
    /// The players, in seat order.
    players: Vec<String>,
    /// Whom it waits for, or how it ended.
    headline: String,
    /// True once it is over.
    over: bool,
    /// Made `watchable`: listed whatever `[web] list_unwatchable` says.
    watchable: bool,
}

/// The page of `shown` as a file attached to a mail: the game's archive,
/// one HTML page (picture, map, final status and the whole turn log, as a
/// spectator reads them) that any web browser opens.
fn archive_attachment(shown: &Shown<'_>) -> Result<FileAttachment, ServiceError> {
    Ok(FileAttachment {
        name: report::archive_name(shown.id),
        content_type: "text/html; charset=utf-8".to_string(),
        bytes: page(shown, Place::Attached)?.into_bytes(),
    })
}

/// The archive the mails of `update` carry, where it ends the game (or
/// follows its end) and the games are not on the web (there the mails link
/// the game's page instead): [`archive_attachment`] of the game after it.
pub fn last_mail_archive(
    ctx: &Ctx<'_>,
    record: &GameRecord,
    update: &crate::store::GameUpdate,
    game: &dyn AnyGame,
    ended: Option<&Ended>,
) -> Result<Option<FileAttachment>, ServiceError> {
    if ended.is_none() || ctx.config.web.site().is_some() {
        return Ok(None);
    }
    let mut entries = ctx.store.log(&update.id)?;
    entries.extend(update.entries.iter().cloned());
    Ok(Some(archive_attachment(&Shown {
        id: &update.id,
        record,
        meta: &update.meta,
        game,
        entries: &entries,
        ended,
        finished: None,
    })?))
}

/// Writes the pages of games `ids` and the index, where the site is kept.
/// Called once their changes are committed. A page that cannot be written
/// is logged: the game itself is safe in the store, and its next change
/// (or the daemon's next start) writes it again.
pub fn refresh(ctx: &Ctx<'_>, ids: &[GameId]) {
    let Some((dir, _)) = ctx.config.web.site() else {
        return;
    };
    if ids.is_empty() {
        return;
    }
    for id in ids {
        if let Err(e) = write_game(ctx, dir, id) {
            tracing::error!(game = %id, error = %e, "web page not written");
        }
    }
    if let Err(e) = write_index(ctx, dir) {
        tracing::error!(error = %e, "web index not written");
    }
}

/// Writes every page that is missing or drawn before its game's last
/// change (the site was just set up, or games changed while it was not),
/// and the index; the number of pages written. The daemon calls it when
/// it starts.
pub fn catch_up(ctx: &Ctx<'_>) -> Result<usize, ServiceError> {
    let Some((dir, _)) = ctx.config.web.site() else {
        return Ok(0);
    };
    let mut behind = Vec::new();
    for id in ctx.store.ids()? {
        let Some((folder, other)) = stored_folders(ctx, &id)? else {
            continue;
        };
        let stamp = ctx.store.head(&id)?.last_hash;
        // A page in the other folder: written by a version that kept every
        // page at `URL/GAME/`, or before a crash moved it.
        if read_summary(dir, &folder).is_none_or(|s| s.stamp != stamp)
            || dir.join(other).join(SUMMARY).is_file()
        {
            behind.push(id);
        }
    }
    // One page that cannot be written holds up no other: every game's
    // page still leaves a folder it should not be in.
    let mut written = 0;
    for id in &behind {
        match write_game(ctx, dir, id) {
            Ok(()) => written += 1,
            Err(e) => tracing::error!(game = %id, error = %e, "web page not written"),
        }
    }
    write_index(ctx, dir)?;
    Ok(written)
}

/// The folders of game `id`'s page as the store holds the game
/// ([`folders`]); none for a game that was never one (forming by mail,
/// expired).
fn stored_folders(ctx: &Ctx<'_>, id: &GameId) -> Result<Option<(String, String)>, ServiceError> {
    match (ctx.store.record(id), ctx.store.meta(id)) {
        (Ok(record), Ok(meta)) => Ok(Some(folders(&record, &meta))),
        (Err(StoreError::NoSuchGame(_)), _) | (_, Err(StoreError::NoSuchGame(_))) => Ok(None),
        (Err(e), _) | (_, Err(e)) => Err(e.into()),
    }
}

/// Game `id`'s page (and its line in the index) as the store holds it, in
/// its folder ([`super::page_address::folder`]); the folder it had while
/// it was (or was not) watchable is removed, so a game made unwatchable is
/// no longer at `URL/GAME/`.
fn write_game(ctx: &Ctx<'_>, dir: &Path, id: &GameId) -> Result<(), ServiceError> {
    if !safe_id(&id.0) {
        return Err(ServiceError::Invalid(format!(
            "{id} cannot name a folder of the web pages"
        )));
    }
    let loaded = match ctx.store.load(id) {
        Ok(l) => l,
        // A game forming by mail that expired was never a game.
        Err(StoreError::NoSuchGame(_)) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    let meta = ctx.store.meta(id)?;
    let entries = ctx.store.log(id)?;
    let stamp = ctx.store.head(id)?.last_hash;
    let ended = report::ended_in(&meta, &*loaded.game, &entries);
    let finished = super::records::finished_line(ctx.store, &loaded.record, &meta)?;
    let shown = Shown {
        id,
        record: &loaded.record,
        meta: &meta,
        game: &*loaded.game,
        entries: &entries,
        ended: ended.as_ref(),
        finished: Some(&finished),
    };
    // First out of the folder it should not be in (a game just made not
    // watchable leaves `URL/GAME/` even if its new page then fails); only
    // a folder with a page of ours in it.
    let (name, other) = folders(&loaded.record, &meta);
    let left = dir.join(other);
    if left.join(SUMMARY).is_file() {
        std::fs::remove_dir_all(&left).map_err(|e| io(&left, e))?;
    }
    let html = page(&shown, Place::Site)?;
    let place = dir.join(&name);
    public_folder(&place)?;
    write_whole(&place.join("index.html"), html.as_bytes())?;
    let summary = Summary {
        stamp,
        title: crate::registry::title(&loaded.record.setup.kind).to_string(),
        players: loaded.game.player_names(),
        headline: headline(&shown),
        over: ended.is_some(),
        watchable: meta.watchable,
    };
    let json = serde_json::to_string_pretty(&summary).unwrap_or_default();
    write_whole(&place.join(SUMMARY), json.as_bytes())
}

/// The index: every game with a page, running ones first; a game not made
/// `watchable` only with `[web] list_unwatchable`.
fn write_index(ctx: &Ctx<'_>, dir: &Path) -> Result<(), ServiceError> {
    let all = ctx.config.web.list_unwatchable;
    let mut running = String::new();
    let mut over = String::new();
    for id in ctx.store.ids()? {
        let Some((folder, _)) = stored_folders(ctx, &id)? else {
            continue;
        };
        let Some(s) = read_summary(dir, &folder) else {
            continue;
        };
        if !(s.watchable || all) {
            continue;
        }
        let item = format!(
            "<li><a href=\"{}/\">{}</a>: {}; {}.<br>{}.</li>\n",
            attribute(&folder),
            escape_html(&id.0),
            escape_html(&s.title),
            escape_html(&s.players.join(", ")),
            escape_html(&s.headline)
        );
        if s.over { &mut over } else { &mut running }.push_str(&item);
    }
    let list = |items: &str, none: &str| {
        if items.is_empty() {
            format!("<p>{none}</p>\n")
        } else {
            format!("<ul>\n{items}</ul>\n")
        }
    };
    let body = format!(
        "<h1>Games</h1>\n<h2>Running</h2>\n{}<h2>Over</h2>\n{}",
        list(&running, "None."),
        list(&over, "None yet.")
    );
    public_folder(dir)?;
    write_whole(
        &dir.join("index.html"),
        html_page("Games", &body).as_bytes(),
    )
}

/// The line of a game in the index, as its page in `folder` left it.
fn read_summary(dir: &Path, folder: &str) -> Option<Summary> {
    let text = std::fs::read_to_string(dir.join(folder).join(SUMMARY)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Whom the game waits for, or how it ended, as anyone may read it.
fn headline(shown: &Shown<'_>) -> String {
    report::headline_of(shown.game, shown.meta, shown.ended, Viewer::Spectator)
}

/// A game's page: its title and players, whom it waits for (or how it
/// ended), the board's picture, the deadlines, the map and status, and
/// the turn log, all as a spectator reads them.
fn page(shown: &Shown<'_>, place: Place) -> Result<String, ServiceError> {
    let (id, record) = (shown.id, shown.record);
    let settings = &shown.meta.clock.settings;
    let title = crate::registry::title(&record.setup.kind);
    let mut body = String::new();
    if place == Place::Site {
        body.push_str("<p><a href=\"../\">All games</a></p>\n");
    }
    body.push_str(&format!(
        "<h1>{}: {}</h1>\n<p>Players, in seat order: {}.{}</p>\n{}<p><b>{}.</b></p>\n",
        escape_html(&id.0),
        escape_html(title),
        escape_html(&shown.game.player_names().join(", ")),
        options(record),
        shown
            .finished
            .map(|f| format!("<p>{}</p>\n", escape_html(f)))
            .unwrap_or_default(),
        escape_html(&headline(shown))
    ));
    if shown.ended.is_some() {
        body.push_str(
            "<p>The game is over. This page is its archive: the board and the scores as \
             they were left, and the whole turn log below.</p>\n",
        );
    }
    if let Some(svg) = picture(shown)? {
        body.push_str(&format!("<div class=\"board\">{svg}</div>\n"));
    }
    let waits = waiting(shown);
    if !waits.is_empty() {
        body.push_str("<h2>Waiting for</h2>\n<ul>\n");
        for w in waits {
            body.push_str(&format!("<li>{}</li>\n", escape_html(&w)));
        }
        body.push_str("</ul>\n");
    }
    body.push_str(&format!(
        "<h2>The board</h2>\n<div class=\"wide\">{}</div>\n",
        report::page_html(shown.game, shown.ended, Viewer::Spectator)
    ));
    // Table talk was said to the table, not to the world: the log shows
    // the game alone.
    let entries: Vec<LogEntry> = shown
        .entries
        .iter()
        .filter(|e| !matches!(e.kind, EntryKind::Message { .. }))
        .cloned()
        .collect();
    let log =
        report::history_lines(shown.game, &entries, Viewer::Spectator).map_err(StoreError::from)?;
    body.push_str(&format!(
        "<h2>The turn log</h2>\n<pre class=\"log\">{}</pre>\n",
        escape_html(&log.join("\n"))
    ));
    let last = shown.entries.last().map_or(record.created, |e| e.at);
    body.push_str(&format!(
        "<p class=\"foot\">{} as of {}; Stationmaster.</p>\n",
        escape_html(&id.0),
        escape_html(&settings.when(last))
    ));
    Ok(html_page(&format!("{id}: {title}"), &body))
}

/// ` Options: …` of a game made with some, else nothing.
fn options(record: &GameRecord) -> String {
    if record.setup.options.is_empty() {
        return String::new();
    }
    format!(
        " Options: {}.",
        escape_html(&record.setup.options.join(", "))
    )
}

/// The board's picture as SVG, where the game draws one, with the last
/// order's changes marked (as its report marked them).
fn picture(shown: &Shown<'_>) -> Result<Option<String>, ServiceError> {
    let last = shown
        .entries
        .iter()
        .rev()
        .find(|e| e.kind == EntryKind::Order)
        .map_or(&[][..], |e| &e.events[..]);
    let stopped = shown
        .ended
        .and_then(|e| e.stopped(&shown.meta.clock.settings));
    let picture = shown
        .game
        .picture(last, stopped.as_deref())
        .map_err(StoreError::from)?;
    Ok(picture.map(|p| p.svg()))
}

/// Whom the game waits for, each with their deadline as a time (a page is
/// read long after it was written: no "in 48 hours"); none while it is
/// paused (its headline says so) or once it is over.
fn waiting(shown: &Shown<'_>) -> Vec<String> {
    let meta = shown.meta;
    if shown.ended.is_some() || meta.paused.is_some() {
        return Vec::new();
    }
    let settings = &meta.clock.settings;
    report::awaited_lines(shown.game, meta, Viewer::Spectator, &|due| {
        settings.when(due)
    })
}

/// A whole HTML page of `body`: readable on a phone (the viewport its
/// width, the picture scaled down to it, the map and log scrolled or
/// wrapped within it), with no script.
fn html_page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n\
         body {{ font-family: sans-serif; font-size: 15px; margin: 0 auto; padding: 0 8px; max-width: 1000px }}\n\
         .board svg {{ display: block; max-width: 100%; height: auto }}\n\
         .wide {{ overflow-x: auto }}\n\
         pre.log {{ white-space: pre-wrap; font-size: 13px }}\n\
         .foot {{ color: #616161 }}\n\
         </style></head>\n<body>\n{body}</body></html>\n",
        escape_html(title)
    )
}

/// Makes folder `path` where missing, and those above it, readable by
/// everyone whatever the umask: the pages are public, and the web server
/// runs as a user of its own. A folder there already is left as it is.
fn public_folder(path: &Path) -> Result<(), ServiceError> {
    use std::os::unix::fs::PermissionsExt;
    if path.is_dir() {
        return Ok(());
    }
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        public_folder(parent)?;
    }
    std::fs::create_dir(path).map_err(|e| io(path, e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(|e| io(path, e))
}

/// Writes `bytes` to `path` whole or not at all: to a temporary file
/// beside it (readable by everyone, as the pages are public), renamed over
/// it, so a reader (the web server) never gets half a page.
fn write_whole(path: &Path, bytes: &[u8]) -> Result<(), ServiceError> {
    use std::os::unix::fs::PermissionsExt;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&temporary, bytes).map_err(|e| io(&temporary, e))?;
    std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(0o644))
        .map_err(|e| io(&temporary, e))?;
    std::fs::rename(&temporary, path).map_err(|e| io(path, e))
}

fn io(path: &Path, e: std::io::Error) -> ServiceError {
    crate::mail::TransportError::Io {
        path: path.display().to_string(),
        cause: e,
    }
    .into()
}
