//! What is known of inbound mail and of what went out unasked: the
//! receipt of a mail handled, its failed tries and quarantine, and the
//! hourly counts of help replies and alerts.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::{Store, StoreError, ser, tally_key, unreadable};

/// The failed tries of one inbound mail, by its transport handle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailFailure {
    /// How many times it failed.
    pub tries: u32,
    /// Why, the last time.
    pub why: String,
    /// When it first failed.
    pub first: DateTime<Utc>,
}

/// A mail moved to quarantine: why, and enough to recognise it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quarantined {
    /// Its Message-ID (or the stand-in of a mail without one), or
    /// `handle:NAME` for a message that could not be read at all.
    pub key: String,
    /// Why it could not be handled (the last error).
    pub why: String,
    /// How many times it was tried.
    pub tries: u32,
    /// When it was put aside.
    pub at: DateTime<Utc>,
    /// Its sender, if it could be read.
    #[serde(default)]
    pub from: Option<String>,
    /// Its subject, if it could be read.
    #[serde(default)]
    pub subject: Option<String>,
}

/// That a mail was handled, and how.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// When.
    pub at: DateTime<Utc>,
    /// The game it named, if any.
    pub game: Option<String>,
    /// What was done, in a few words.
    pub outcome: String,
}

impl Store {
    /// The receipt of a mail, if it was handled.
    ///
    /// A receipt that cannot be read is an error, never "not handled": the
    /// mail is then left alone rather than applied a second time.
    pub fn receipt(&self, message_id: &str) -> Result<Option<Receipt>, StoreError> {
        match self.receipts.get(message_id.as_bytes())? {
            Some(b) => serde_json::from_slice(&b)
                .map(Some)
                .map_err(|e| unreadable(&format!("the receipt of mail <{message_id}>"), e)),
            None => Ok(None),
        }
    }

    /// Records that the mail with transport handle `handle` could not be
    /// handled (why), and returns how many times that has happened.
    pub fn mail_failed(
        &self,
        handle: &str,
        why: &str,
        now: DateTime<Utc>,
    ) -> Result<u32, StoreError> {
        let what = format!("the failures of mail {handle}");
        let mut failure = match self.failures.get(handle.as_bytes())? {
            Some(b) => serde_json::from_slice(&b).map_err(|e| unreadable(&what, e))?,
            None => MailFailure {
                tries: 0,
                why: String::new(),
                first: now,
            },
        };
        failure.tries += 1;
        failure.why = why.to_string();
        self.failures
            .insert(handle.as_bytes(), ser(&what, &failure)?)?;
        Ok(failure.tries)
    }

    /// Forgets the failures of a mail that has now been handled.
    pub fn mail_handled(&self, handle: &str) -> Result<(), StoreError> {
        if self.failures.contains_key(handle.as_bytes())? {
            self.failures.remove(handle.as_bytes())?;
        }
        Ok(())
    }

    /// Records a mail put in quarantine, under its `key` (see
    /// [`Quarantined::key`]), and forgets its failures.
    pub fn mail_quarantined(&self, handle: &str, q: &Quarantined) -> Result<(), StoreError> {
        self.quarantine
            .insert(q.key.as_bytes(), ser("the quarantine", q)?)?;
        self.failures.remove(handle.as_bytes())?;
        self.flush()
    }

    /// The record of a quarantined mail, by its key.
    pub fn quarantine_record(&self, key: &str) -> Result<Option<Quarantined>, StoreError> {
        match self.quarantine.get(key.as_bytes())? {
            Some(b) => serde_json::from_slice(&b)
                .map(Some)
                .map_err(|e| unreadable(&format!("the quarantine record {key}"), e)),
            None => Ok(None),
        }
    }

    /// Forgets the record of a quarantined mail that goes back to the inbox.
    pub fn quarantine_released(&self, key: &str) -> Result<(), StoreError> {
        self.quarantine.remove(key.as_bytes())?;
        self.flush()
    }

    /// How many `what` (help replies, alerts) were sent in the hour of
    /// `now` (counted by [`Change::tally`]).
    pub fn hourly_count(&self, what: &str, now: DateTime<Utc>) -> Result<u64, StoreError> {
        Ok(self
            .counts
            .get(tally_key(what, now))?
            .and_then(|b| b.as_ref().try_into().ok())
            .map(u64::from_be_bytes)
            .unwrap_or(0))
    }

    /// When the last help reply went to `address`.
    pub fn help_sent(&self, address: &str) -> Result<Option<DateTime<Utc>>, StoreError> {
        match self.help.get(address.as_bytes())? {
            Some(b) => serde_json::from_slice(&b)
                .map(Some)
                .map_err(|e| unreadable(&format!("the last help reply to {address}"), e)),
            None => Ok(None),
        }
    }
}
