//! Mail that cannot be handled: tried again on the next cycles, then moved
//! aside into the quarantine (a Maildir's `.Quarantine` folder, or the IMAP
//! `quarantine_mailbox`), so that it never holds up the mail behind it.
//!
//! A mail fails when its transport cannot read it (a symlink loop or a file
//! without permission in the Maildir, an IMAP message without a body), or
//! when handling it meets an internal error (stored data that cannot be
//! read, a template that does not render). Each failure is counted in the
//! store under the mail's transport handle; after [`TRIES`] the mail goes
//! to quarantine and the reason is logged once, as an error, and kept
//! beside it. The operator lists the quarantine with
//! `stationmaster quarantine` and sends mail back with
//! `stationmaster quarantine retry`.

use chrono::{DateTime, Utc};

use super::ServiceError;
use crate::mail::ingest;
use crate::mail::{Inbound, RawMail};
use crate::store::{Quarantined, Store};

/// How many times a mail is tried before it goes to quarantine.
pub const TRIES: u32 = 3;

/// The key a mail is known by in the quarantine: its Message-ID, the
/// stand-in id of a mail without one (see `dispatch`), or `handle:NAME`
/// for a message that cannot be read at all.
pub fn key(raw: &RawMail) -> String {
    if raw.unreadable.is_some() {
        return format!("handle:{}", raw.handle);
    }
    match ingest::parse(&raw.bytes) {
        Ok(inc) => inc
            .message_id
            .unwrap_or_else(|| super::fallback_id(&raw.bytes)),
        Err(_) => super::fallback_id(&raw.bytes),
    }
}

/// Records a failed try of `raw`; true if it is to go to quarantine now.
pub(crate) fn failed(
    store: &Store,
    raw: &RawMail,
    why: &str,
    now: DateTime<Utc>,
) -> Result<bool, ServiceError> {
    let tries = store.mail_failed(&raw.handle, why, now)?;
    if tries < TRIES {
        tracing::warn!(mail = %raw.handle, tries, error = %why, "mail could not be handled; it will be tried again");
    }
    Ok(tries >= TRIES)
}

/// Moves `raw` into quarantine and records why.
pub(crate) fn put_aside(
    store: &Store,
    inbound: &mut dyn Inbound,
    raw: &RawMail,
    why: &str,
    now: DateTime<Utc>,
) -> Result<(), ServiceError> {
    let (from, subject) = match ingest::parse(&raw.bytes) {
        Ok(inc) if raw.unreadable.is_none() => (inc.from, Some(inc.subject)),
        _ => (None, None),
    };
    let record = Quarantined {
        key: key(raw),
        why: why.to_string(),
        tries: TRIES,
        at: now,
        from,
        subject,
    };
    inbound.quarantine(&raw.handle)?;
    store.mail_quarantined(&raw.handle, &record)?;
    tracing::error!(
        mail = %raw.handle,
        key = %record.key,
        error = %why,
        "mail moved to quarantine after {TRIES} tries; `stationmaster quarantine` lists it"
    );
    Ok(())
}

/// `stationmaster quarantine`: one paragraph per quarantined mail.
pub fn list(store: &Store, inbound: &mut dyn Inbound) -> Result<String, ServiceError> {
    let mails = inbound.quarantined()?;
    if mails.is_empty() {
        return Ok("The quarantine is empty.\n".to_string());
    }
    let mut out = String::new();
    for raw in &mails {
        out.push_str(&format!("{}\n", raw.handle));
        match store.quarantine_record(&key(raw))? {
            Some(q) => {
                if let Some(from) = &q.from {
                    out.push_str(&format!("  from:    {from}\n"));
                }
                if let Some(subject) = &q.subject {
                    out.push_str(&format!("  subject: {subject}\n"));
                }
                out.push_str(&format!(
                    "  put aside {} after {} tries: {}\n",
                    q.at.format("%Y-%m-%d %H:%M UTC"),
                    q.tries,
                    q.why
                ));
            }
            None => match &raw.unreadable {
                Some(why) => out.push_str(&format!("  cannot be read: {why}\n")),
                None => out.push_str("  (no record of why: put there by hand?)\n"),
            },
        }
    }
    out.push_str(&format!(
        "\n{} mail(s). `stationmaster quarantine retry NAME` (or `--all`) puts one back into the inbox.\n",
        mails.len()
    ));
    Ok(out)
}

/// `stationmaster quarantine retry`: moves the named mails (or every one,
/// if `names` is empty) back to the inbox, to be tried again.
pub fn retry(
    store: &Store,
    inbound: &mut dyn Inbound,
    names: &[String],
) -> Result<String, ServiceError> {
    let mails = inbound.quarantined()?;
    for name in names {
        if !mails.iter().any(|m| &m.handle == name) {
            return Err(ServiceError::Invalid(format!(
                "there is no mail `{name}` in the quarantine; `stationmaster quarantine` lists them"
            )));
        }
    }
    let mut n = 0;
    for raw in &mails {
        if !names.is_empty() && !names.contains(&raw.handle) {
            continue;
        }
        inbound.release(&raw.handle)?;
        store.quarantine_released(&key(raw))?;
        n += 1;
    }
    Ok(format!(
        "{n} mail(s) back in the inbox; the next cycle tries them again.\n"
    ))
}
