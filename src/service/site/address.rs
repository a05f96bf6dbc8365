//! A player's other addresses: `address add ADDRESS` and `address remove
//! ADDRESS` in a running game, and `confirm CODE`, the added address's
//! yes to the one mail that asked it.

use chrono::{DateTime, Utc};

use super::{Refusal, Session};
use crate::engine::Seat;
use crate::mail::OutMail;
use crate::mail::compose::Draft;
use crate::service::{Ctx, ServiceError, compose_mail, new_token, pipeline, report, unasked};
use crate::store::{Change, GameId, GameMeta, GameRecord, Pending, StoreError};

/// `address add ADDRESS` or `address remove ADDRESS` from `seat`'s player
/// in game `id` (the line `line`): changes `meta`, and puts the one
/// confirmation mail to ADDRESS into `change`. The sentence for the player.
#[allow(clippy::too_many_arguments)]
pub fn address_command(
    ctx: &Ctx<'_>,
    id: &GameId,
    record: &GameRecord,
    meta: &mut GameMeta,
    seat: Seat,
    line: &str,
    change: &mut Change,
    now: DateTime<Utc>,
) -> Result<String, ServiceError> {
    const USAGE: &str = "Not done: write `address add ADDRESS` or `address remove ADDRESS`.";
    let words: Vec<&str> = line.split_whitespace().collect();
    let [_, verb, address] = words.as_slice() else {
        return Ok(USAGE.to_string());
    };
    let address = address
        .trim_matches(|c| c == '<' || c == '>')
        .to_ascii_lowercase();
    let n = record.setup.players.len();
    if meta.other_addresses.len() < n {
        meta.other_addresses.resize(n, Vec::new());
    }
    let mut seat = SeatAddresses {
        ctx,
        id,
        record,
        meta,
        seat,
        change,
        now,
    };
    match verb.to_ascii_lowercase().as_str() {
        "remove" => seat.remove(&address),
        "add" => seat.add(&address),
        _ => Ok(USAGE.to_string()),
    }
}

/// A seat's other addresses in one game, as `address add` and `address
/// remove` change them, and the change they go into.
struct SeatAddresses<'a, 'c> {
    ctx: &'a Ctx<'c>,
    id: &'a GameId,
    record: &'a GameRecord,
    meta: &'a mut GameMeta,
    seat: Seat,
    change: &'a mut Change,
    now: DateTime<Utc>,
}

impl SeatAddresses<'_, '_> {
    /// The `what` of the confirmation pending for this seat.
    fn pending_what(&self) -> String {
        format!("address {} {}", self.id.0, self.seat.0)
    }

    /// `address remove ADDRESS`: off the seat's list, and its confirmation
    /// withdrawn if it was not answered.
    fn remove(&mut self, address: &str) -> Result<String, ServiceError> {
        let id = self.id;
        let list = &mut self.meta.other_addresses[self.seat.index()];
        let before = list.len();
        list.retain(|a| !a.eq_ignore_ascii_case(address));
        let removed = before != list.len();
        let mut contact = self.ctx.store.contact(address)?;
        let what = self.pending_what();
        if let Some(p) = contact.pending.iter().find(|p| p.what == what).cloned() {
            contact.pending.retain(|q| q.what != what);
            // The confirmation was the one mail to an address not proved:
            // its code still proves the address (nothing more), or it
            // could never be answered again.
            if contact.proved.is_none() && !contact.pending.iter().any(|q| q.what == Pending::REPLY)
            {
                contact.pending.push(Pending {
                    what: Pending::REPLY.to_string(),
                    lines: Vec::new(),
                    ..p
                });
            }
            self.change.contacts.push((address.to_string(), contact));
        } else if !removed {
            return Ok(format!(
                "Not done: {address} is not one of your addresses in {id}."
            ));
        }
        // Out of the address index, unless a seat still plays from it.
        if self.meta.seats_from(self.record, address).is_empty() {
            self.change.index.push((address.to_string(), false));
        }
        Ok(format!(
            "{address} is no longer one of your addresses in {id}."
        ))
    }

    /// `address add ADDRESS`: one mail to ADDRESS with a code, if it may
    /// have one; its `confirm CODE` adds it (see [`Session::confirm`]).
    fn add(&mut self, address: &str) -> Result<String, ServiceError> {
        let (ctx, id, now) = (self.ctx, self.id, self.now);
        let by = self
            .meta
            .address(self.record, self.seat)
            .to_ascii_lowercase();
        if address == by
            || self.meta.other_addresses[self.seat.index()]
                .iter()
                .any(|a| a == address)
        {
            return Ok(format!("Not done: {address} is yours in {id} already."));
        }
        // docs/operators.md, "Security": an address a seat may not take, or
        // mail may not go to, is refused before anything is stored.
        let address = match unasked::recipient(ctx, address) {
            Ok(a) => a,
            Err(why) => return Ok(format!("Not done: {why}.")),
        };
        if let Some(why) =
            unasked::seat_refusal(ctx, self.record, self.meta, &address, Some(self.seat))
        {
            return Ok(format!("Not done: {why}."));
        }
        // The one unasked mail; and at most one confirmation an address per
        // help interval even to one that has asked.
        let rate_key = format!("address:{address}");
        let interval = chrono::Duration::hours(ctx.config.daemon.help_interval_hours as i64);
        if ctx
            .store
            .help_sent(&rate_key)?
            .is_some_and(|last| now - last < interval)
            || self.change.help_sent.iter().any(|(k, _)| *k == rate_key)
        {
            return Ok(format!(
                "Not done: {address} was sent a confirmation lately; it can answer that one."
            ));
        }
        let permit = match unasked::may_mail(ctx, &by, &address, &self.change.tally, now)? {
            Err(why) => return Ok(format!("Not done: {why}.")),
            Ok(p) => p,
        };
        let mut contact = match &permit.contact {
            Some(c) => c.clone(),
            None => ctx.store.contact(&address)?,
        };
        if contact.no_invitations {
            return Ok(format!(
                "Not done: {address} asked this server for no mail it did not ask for."
            ));
        }
        let code = new_token()?;
        let what = self.pending_what();
        contact.pending.retain(|p| p.what != what);
        contact.pending.push(Pending {
            what,
            code: code.clone(),
            at: now,
            // Who asked: a confirmation for a seat that has since changed
            // hands (`replace`) is refused.
            lines: vec![by.clone()],
        });
        let mail = self.confirmation_mail(&by, &address, &code)?;
        self.change.outbox.push(mail);
        self.change.contacts.push((address.clone(), contact));
        self.change.tally.extend(permit.tally);
        self.change.help_sent.push((rate_key, now));
        Ok(format!(
            "A mail went to {address} with a code; once it is answered from there with `confirm CODE`, you may play {id} from {address} too (with your key, as always)."
        ))
    }

    /// The one mail to `address`, asked for by the seat's player from
    /// `by`: whether it is theirs, with the `code` that says yes.
    fn confirmation_mail(
        &self,
        by: &str,
        address: &str,
        code: &str,
    ) -> Result<OutMail, ServiceError> {
        let (ctx, id) = (self.ctx, self.id);
        let name = &self.record.setup.players[self.seat.index()].name;
        let title = crate::registry::title(&self.record.setup.kind);
        let text = format!(
            "Hello,\n\n{name} ({by}), who plays {id} ({title}) by mail on Stationmaster at {}, asks to play from this address too.\n\nIf that is you, reply to this mail with the line\n\n  confirm {code}\n\nIf it is not, do nothing: this is the only mail you get from this server unless you answer it. To refuse all such mail from this server, reply with the line\n\n  no more invitations\n\n-- \nStationmaster ({}).\n",
            ctx.config.mail.address, ctx.config.mail.address
        );
        let draft = Draft {
            to: address.to_string(),
            subject: format!("[{id}] Confirm this address for {name}"),
            html: Some(report::notice_html(ctx, &text, None)?),
            text,
            ..Draft::default()
        };
        compose_mail(ctx, &id.0, "address", &draft, self.now)
    }
}

impl Session<'_, '_> {
    /// `confirm CODE`: the sender says yes to a player's `address add`.
    pub(super) fn confirm(&mut self, code: &str) -> Result<String, Refusal> {
        let ctx = self.ctx;
        if self.update.is_some() || self.forming.is_some() {
            return Err(Refusal::Player(
                "send `confirm CODE` in a mail of its own".to_string(),
            ));
        }
        let from = self.from.clone();
        let mut contact = self.contact(&from)?;
        let Some(p) = contact
            .pending
            .iter()
            .find(|p| p.code == code && p.what.starts_with("address "))
            .cloned()
        else {
            if self.proved.as_deref() == Some(code) {
                return Ok(format!("Thank you: {from} is known here now."));
            }
            return Err(Refusal::Player(format!(
                "`{code}` is not a code this server mailed to {from}"
            )));
        };
        contact.pending.retain(|q| q.code != code);
        self.set_contact(&from, contact);
        // `address GAME SEAT`
        let mut words = p.what.split_whitespace().skip(1);
        let (Some(game), Some(seat)) = (
            words.next(),
            words.next().and_then(|s| s.parse::<u8>().ok()),
        ) else {
            return Err(Refusal::Player(
                "that confirmation cannot be read; ask again".to_string(),
            ));
        };
        let id = GameId(game.to_string());
        let loaded = match ctx.store.load(&id) {
            Ok(l) => l,
            Err(StoreError::NoSuchGame(_)) => {
                return Err(Refusal::Player(format!(
                    "there is no game {id} here any more"
                )));
            }
            Err(e) => return Err(e.into()),
        };
        let mut meta = ctx.store.meta(&id)?;
        let seat = Seat(seat);
        let Some(player) = loaded.record.setup.players.get(seat.index()) else {
            return Err(Refusal::Player("that seat is gone; ask again".to_string()));
        };
        if let Some(asked_by) = p.lines.first()
            && !asked_by.eq_ignore_ascii_case(meta.address(&loaded.record, seat))
        {
            return Err(Refusal::Player(format!(
                "{name} of {id} has a new player since {asked_by} asked for this address; the seat's player can ask again",
                name = player.name
            )));
        }
        if let Some(why) = unasked::seat_refusal(ctx, &loaded.record, &meta, &from, Some(seat)) {
            return Err(Refusal::Player(why));
        }
        let n = loaded.record.setup.players.len();
        if meta.other_addresses.len() < n {
            meta.other_addresses.resize(n, Vec::new());
        }
        let list = &mut meta.other_addresses[seat.index()];
        if !list.iter().any(|a| a.eq_ignore_ascii_case(&from)) {
            list.push(from.clone());
        }
        let name = player.name.clone();
        let first = meta.address(&loaded.record, seat).to_string();
        self.update = Some(pipeline::meta_update(&id, &loaded, meta)?);
        // Its games, `games` and `bump` and the limits find it from now on.
        self.index.push((from.clone(), true));
        Ok(format!(
            "Confirmed: {name} may play {id} from {from} too. Reply to a mail from the game (its tag carries the key) from here, as from {first}: the answer to a mail comes back to the address it came from; the game's reports and messages still go to {first}."
        ))
    }
}
