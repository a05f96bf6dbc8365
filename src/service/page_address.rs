//! Where a game's page is on the web, and who is given it (issue 38,
//! point 3; the pages themselves: [`super::web`]). A watchable game's page
//! is at `URL/GAME/`. Any other's is at `URL/GAME-KEY/` ([`folder`]), which
//! only its players' and moderators' mail gives: games are counted
//! (`rocket-12`), so the id alone is easy to guess, and "nobody may watch
//! it" has to hold for its page too. When a moderator turns `watchable` on
//! or off, the page moves and the folder it leaves is removed.

use super::Ctx;
use crate::engine::escape_html;
use crate::mail::compose::Draft;
use crate::store::{GameId, GameMeta, GameRecord};

/// Mails that name no game's page: the site's replies, the mails of a
/// game forming by mail (it has no page until it starts), and the mail
/// asking an address its player added to confirm it (nobody has said yet
/// that it is theirs).
const NO_PAGE: [&str; 4] = ["reply", "invitation", "forming", "address"];

/// Who a link to a game's page is for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Reader {
    /// Its players and moderators: they read it whether or not it is
    /// watchable.
    Table,
    /// Its observers (spectators by mail): only a watchable game's page.
    Observer,
}

/// The folder of game `record`'s page in the site: its id where anyone may
/// watch it (`rocket-12`), else its id and a key of 16 hex digits
/// (`rocket-12-5f0c3a9e1b2d4c70`). The key is drawn from the game's seed,
/// which nobody reads (it would tell the cards to come), so it is the same
/// for the game's whole life and no one can work it out from the id.
pub fn folder(record: &GameRecord, meta: &GameMeta) -> String {
    folders(record, meta).0
}

/// The folder of game `record`'s page, and the one it has while its
/// `watchable` is the other way (a page found there is removed).
pub(crate) fn folders(record: &GameRecord, meta: &GameMeta) -> (String, String) {
    let (plain, hidden) = (record.id.0.clone(), hidden_folder(record));
    if meta.watchable {
        (plain, hidden)
    } else {
        (hidden, plain)
    }
}

/// The folder of game `record`'s page while it is not watchable.
fn hidden_folder(record: &GameRecord) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(b"stationmaster page\n");
    hash.update(record.id.0.as_bytes());
    hash.update(b"\n");
    hash.update(record.setup.seed.to_le_bytes());
    let key: String = hash
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{}-{key}", record.id.0)
}

/// The address of game `record`'s page for `reader`, where the site is
/// kept: none for an observer of a game not watchable.
pub fn page_url(
    config: &crate::config::Config,
    record: &GameRecord,
    meta: &GameMeta,
    reader: Reader,
) -> Option<String> {
    if reader == Reader::Observer && !meta.watchable {
        return None;
    }
    config.web.page_url(&folder(record, meta))
}

/// `draft` with a line linking game `game`'s page, where the site is kept
/// and the mail is about a game that has one (`what`: the kind of mail,
/// as its Message-ID names it; `watch`, an observer's) and does not link
/// it already; else None. The game is read as the store holds it: a mail
/// composed with the game as a change leaves it (a welcome, before the
/// game is first stored; a report of `watchable`, which moves the page)
/// links the page itself ([`linked`]), and this adds no second link.
pub fn with_link(ctx: &Ctx<'_>, game: &str, what: &str, draft: &Draft) -> Option<Draft> {
    if NO_PAGE.contains(&what) || game.is_empty() || !safe_id(game) {
        return None;
    }
    ctx.config.web.site()?;
    // Linked already (a report, a welcome): the store need not be read.
    if draft.text.contains(&link_words(game)) {
        return None;
    }
    let id = GameId(game.to_string());
    let record = ctx.store.record(&id).ok()?;
    let meta = ctx.store.meta(&id).ok()?;
    let reader = if what == OBSERVER_MAIL {
        Reader::Observer
    } else {
        Reader::Table
    };
    let url = page_url(ctx.config, &record, &meta, reader)?;
    linked(game, &url, draft)
}

/// The kind of mail an observer gets, as its Message-ID names it.
pub(crate) const OBSERVER_MAIL: &str = "watch";

/// `draft` with a line `GAME on the web: URL`, above its signature, in
/// both parts, unless `url` is empty or the draft holds it, or a line
/// linking the game's page, already.
pub(crate) fn linked(game: &str, url: &str, draft: &Draft) -> Option<Draft> {
    let words = link_words(game);
    if url.is_empty() || draft.text.contains(url) || draft.text.contains(&words) {
        return None;
    }
    let line = format!("{words}{url}");
    let mut out = draft.clone();
    // Above the signature, where there is one.
    match out.text.rfind("\n-- \n") {
        Some(at) => out.text.insert_str(at + 1, &format!("{line}\n\n")),
        None => {
            if !out.text.is_empty() && !out.text.ends_with('\n') {
                out.text.push('\n');
            }
            out.text.push_str(&format!("\n{line}\n"));
        }
    }
    if let Some(html) = &mut out.html {
        let href = attribute(url);
        let p = format!(
            "<p>{} on the web: <a href=\"{href}\">{}</a></p>\n",
            escape_html(game),
            escape_html(url)
        );
        match html.rfind("</body>") {
            Some(at) => html.insert_str(at, &p),
            None => html.push_str(&p),
        }
    }
    Some(out)
}

/// The words before the address in the line linking game `game`'s page.
fn link_words(game: &str) -> String {
    format!("{game} on the web: ")
}

/// `text` made safe inside an HTML attribute in double quotes.
pub(crate) fn attribute(text: &str) -> String {
    escape_html(text).replace('"', "&quot;")
}

/// True if `id` can name a folder of the site (the ids games are given:
/// `rocket-1`), never a path that leads elsewhere.
pub(crate) fn safe_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_id_names_a_folder() {
        for id in ["rocket-1", "linie1-12", "a_b.c"] {
            assert!(safe_id(id), "{id}");
        }
        for id in ["", ".", "..", "../x", "a/b", "a\\b", ".hidden", "a b"] {
            assert!(!safe_id(id), "{id}");
        }
    }

    #[test]
    fn a_link_goes_above_the_signature_once() {
        let url = "https://games.example.org/rocket-1/";
        let draft = Draft {
            text: "Hello.\n\n-- \nStationmaster, for rocket-1.\n".into(),
            html: Some("<html><body><p>Hello.</p></body></html>".into()),
            ..Draft::default()
        };
        let with = linked("rocket-1", url, &draft).expect("linked");
        assert_eq!(
            with.text,
            "Hello.\n\nrocket-1 on the web: https://games.example.org/rocket-1/\n\n-- \nStationmaster, for rocket-1.\n"
        );
        assert_eq!(
            with.html.as_deref(),
            Some(
                "<html><body><p>Hello.</p><p>rocket-1 on the web: <a href=\"https://games.example.org/rocket-1/\">https://games.example.org/rocket-1/</a></p>\n</body></html>"
            )
        );
        assert_eq!(linked("rocket-1", url, &with), None);
        // Linked already, elsewhere (the page moved with `watchable`).
        let moved = "https://games.example.org/rocket-1-0123456789abcdef/";
        assert_eq!(linked("rocket-1", moved, &with), None);
    }

    #[test]
    fn a_game_not_watchable_has_a_folder_nobody_can_guess() {
        let setup = crate::engine::Setup::for_names("rocket", &["A", "B", "C"], 7);
        let record = |id: &str, seed: u64| GameRecord {
            id: GameId(id.into()),
            setup: crate::engine::Setup {
                seed,
                ..setup.clone()
            },
            created: chrono::DateTime::UNIX_EPOCH,
            state_version: 1,
        };
        let mut meta = GameMeta {
            watchable: true,
            ..GameMeta::default()
        };
        assert_eq!(folder(&record("rocket-12", 7), &meta), "rocket-12");
        meta.watchable = false;
        let hidden = folder(&record("rocket-12", 7), &meta);
        let key = hidden
            .strip_prefix("rocket-12-")
            .expect("the id, then a key");
        assert!(
            key.len() == 16 && key.chars().all(|c| c.is_ascii_hexdigit()),
            "{hidden}"
        );
        assert!(safe_id(&hidden));
        // The same game keeps it; another seed or another id has another.
        assert_eq!(folder(&record("rocket-12", 7), &meta), hidden);
        assert_ne!(folder(&record("rocket-12", 8), &meta), hidden);
        assert!(!folder(&record("rocket-13", 7), &meta).ends_with(key));
        // Its observers (there are none while it is not watchable) are
        // never given it.
        let mut config = crate::config::Config::default();
        config.web.dir = Some("var/web".into());
        config.web.url = Some("https://games.example.org".into());
        let game = record("rocket-12", 7);
        assert_eq!(
            page_url(&config, &game, &meta, Reader::Table),
            Some(format!("https://games.example.org/{hidden}/"))
        );
        assert_eq!(page_url(&config, &game, &meta, Reader::Observer), None);
        meta.watchable = true;
        assert_eq!(
            page_url(&config, &game, &meta, Reader::Observer).as_deref(),
            Some("https://games.example.org/rocket-12/")
        );
    }
}
