//! Watching a running game: `watch GAME` and `unwatch GAME`, from an
//! address that plays no seat in it.

use super::{Refusal, Session};
use crate::service::{delivery, new_token, pipeline, report, unasked};
use crate::store::{GameId, GameMeta, Loaded, Observer, Pending, StoreError};

impl Session<'_, '_> {
    /// `watch GAME [CODE]`: the spectator's report of a running game made
    /// watchable, after each change; an address new here first confirms
    /// with a code mailed to it.
    pub(super) fn watch(&mut self, game: &str, code: Option<&str>) -> Result<String, Refusal> {
        let ctx = self.ctx;
        if self.forming.is_some() || self.update.is_some() {
            return Err(Refusal::Player(
                "send `watch GAME` in a mail of its own, one game a mail".to_string(),
            ));
        }
        let id = GameId(game.to_ascii_lowercase());
        let (mut meta, loaded) = self.watchable_game(&id)?;
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        let watching = self.games_watched()?;
        if watching >= ctx.config.limits.observers_per_address as usize {
            return Err(Refusal::Player(format!(
                "you watch {watching} games, as many as this server lets one address watch; `unwatch` one first"
            )));
        }
        // Nothing a stranger sends makes the server mail a third party:
        // an address new here confirms with a code mailed to it.
        let what = format!("watch {id}");
        if !unasked::has_asked(ctx, &from, &contact)? {
            let code = new_token()?;
            contact.pending.retain(|p| p.what != what);
            contact.pending.push(Pending {
                what: what.clone(),
                code: code.clone(),
                at: self.now,
                lines: Vec::new(),
            });
            self.set_contact(&from, contact);
            return Ok(format!(
                "To watch {id}, reply to this mail with the line\n\n  watch {id} {code}\n\nNothing about {id} is mailed to you until you do. If you did not ask for this, do nothing: you get no more mail from this server."
            ));
        }
        if let Some(code) = code
            && !contact
                .pending
                .iter()
                .any(|p| p.what == what && p.code == code)
            && contact.pending.iter().any(|p| p.what == what)
        {
            return Err(Refusal::Player(format!(
                "`{code}` is not the code mailed to you for {id}"
            )));
        }
        contact.pending.retain(|p| p.what != what);
        contact.watching.retain(|g| *g != id.0);
        contact.watching.push(id.0.clone());
        self.set_contact(&from, contact);
        meta.observers.push(Observer {
            address: from.clone(),
            reported: loaded.seq,
        });
        let ended = report::ended(ctx.store, &id, &meta, &*loaded.game)?;
        let page = delivery::observer_mail(
            ctx,
            &id,
            &loaded.record,
            &meta,
            &*loaded.game,
            &report::Board::new(ctx, &*loaded.game, &[]),
            &from,
            &[],
            "You watch this game from now on: after each change you get what happened and the board as every player sees it (nobody's private holdings). `unwatch` in reply stops it.",
            ended.as_ref(),
            None,
            self.now,
        )?;
        self.mails.push(page);
        self.update = Some(pipeline::meta_update(&id, &loaded, meta)?);
        Ok(format!(
            "You watch {id}: the board as it stands comes in a mail of its own, and after each change what happened. `unwatch {id}` stops it."
        ))
    }

    /// Game `id`, if the sender may watch it: running, made watchable, not
    /// over, played by others, and with room for one more observer.
    fn watchable_game(&self, id: &GameId) -> Result<(GameMeta, Loaded), Refusal> {
        let ctx = self.ctx;
        if let Some(f) = ctx.store.forming(id)? {
            return Err(Refusal::Player(if f.watchable {
                format!("{id} has not started yet; send `watch {id}` once it runs")
            } else {
                format!("{id} is not watchable: its creator did not make it so")
            }));
        }
        let meta = match ctx.store.meta(id) {
            Ok(m) => m,
            Err(StoreError::NoSuchGame(_)) => {
                return Err(Refusal::Player(format!("there is no game {id} here")));
            }
            Err(e) => return Err(e.into()),
        };
        if !meta.watchable {
            return Err(Refusal::Player(format!(
                "{id} is not watchable: its moderator did not make it so"
            )));
        }
        let loaded = ctx.store.load(id)?;
        if let Some(ended) = report::ended(ctx.store, id, &meta, &*loaded.game)? {
            let reader = crate::service::page_address::Reader::Observer;
            let kept = match crate::service::page_address::page_url(
                ctx.config,
                &loaded.record,
                &meta,
                reader,
            ) {
                Some(url) => format!("its page on the web, {url}, is its archive"),
                None => "its archive is kept on the server".to_string(),
            };
            return Err(Refusal::Player(format!(
                "{id} {}; {kept}",
                ended.what(&meta.clock.settings)
            )));
        }
        if !meta.seats_from(&loaded.record, &self.from).is_empty() {
            return Err(Refusal::Player(format!(
                "you play in {id}: you get your own reports"
            )));
        }
        if meta.observers.iter().any(|o| o.address == self.from) {
            return Err(Refusal::Player(format!("you watch {id} already")));
        }
        if meta.observers.len() >= ctx.config.limits.observers_per_game as usize {
            return Err(Refusal::Player(format!(
                "{id} has {} observers, as many as this server lets a game have",
                meta.observers.len()
            )));
        }
        Ok((meta, loaded))
    }

    /// How many running games the sender watches, counted over every
    /// address of the player who writes.
    fn games_watched(&self) -> Result<usize, Refusal> {
        let ctx = self.ctx;
        let mut watched: Vec<String> = Vec::new();
        for a in ctx.store.aliases(&self.from)? {
            for g in self.contact(&a)?.watching {
                if !watched.contains(&g) {
                    watched.push(g);
                }
            }
        }
        let mut watching = 0;
        for g in watched {
            let gid = GameId(g);
            if let (Ok(m), Ok(l)) = (ctx.store.meta(&gid), ctx.store.load(&gid))
                && report::ended(ctx.store, &gid, &m, &*l.game)?.is_none()
            {
                watching += 1;
            }
        }
        Ok(watching)
    }

    /// `unwatch [GAME]`: no more mail about the game.
    pub(super) fn unwatch(&mut self, game: Option<&str>) -> Result<String, Refusal> {
        let ctx = self.ctx;
        let Some(game) = game.map(str::to_string).or_else(|| self.inc.game.clone()) else {
            return Err(Refusal::Player(
                "say which game: `unwatch GAME`".to_string(),
            ));
        };
        if self.update.is_some() {
            return Err(Refusal::Player(
                "one game a mail: send `unwatch GAME` in a mail of its own".to_string(),
            ));
        }
        let id = GameId(game.to_ascii_lowercase());
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        contact.pending.retain(|p| p.what != format!("watch {id}"));
        contact.watching.retain(|g| *g != id.0);
        self.set_contact(&from, contact);
        let mut meta = match ctx.store.meta(&id) {
            Ok(m) => m,
            Err(StoreError::NoSuchGame(_)) => {
                return Err(Refusal::Player(format!("there is no game {id} here")));
            }
            Err(e) => return Err(e.into()),
        };
        if !meta.observers.iter().any(|o| o.address == from) {
            return Err(Refusal::Player(format!("you do not watch {id}")));
        }
        meta.observers.retain(|o| o.address != from);
        let loaded = ctx.store.load(&id)?;
        self.update = Some(pipeline::meta_update(&id, &loaded, meta)?);
        Ok(format!(
            "You no longer watch {id}; nothing more about it comes to you."
        ))
    }
}
