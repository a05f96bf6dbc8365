//! Expiry: a forming game nobody started by its time is forgotten, and its
//! players are told.

use chrono::{DateTime, Utc};

use super::status::seat_notice;
use crate::service::{Ctx, ServiceError};
use crate::store::{Change, GameId};

/// Forming game `id`'s expiry, if it is due by `now`: it is forgotten, and
/// each of its players is told. `None` if it is not forming or not due.
pub fn expire(
    ctx: &Ctx<'_>,
    id: &GameId,
    now: DateTime<Utc>,
) -> Result<Option<Change>, ServiceError> {
    let Some(f) = ctx.store.forming(id)? else {
        return Ok(None);
    };
    if f.expires > now {
        return Ok(None);
    }
    let text = format!(
        "{} was not started by {}, and has expired: it will not start, and nothing more will come of it. To play, make a new game: write `new {}` to {}.",
        f.id,
        f.clock.when(f.expires),
        f.kind,
        ctx.config.mail.address
    );
    let mut outbox = Vec::new();
    for seat in 0..f.seats.len() {
        outbox.push(seat_notice(ctx, &f, seat, &text, now)?);
    }
    Ok(Some(Change {
        forming: Some((f.id.clone(), None)),
        outbox,
        ..Change::default()
    }))
}
