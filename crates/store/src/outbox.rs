//! The outbox: mails waiting to be sent, each stored packed, with the
//! part that several mails of one change share (a report's picture) kept
//! once.

use chrono::{DateTime, Utc};
use mail::OutMail;
use serde::{Deserialize, Serialize};

use crate::{Store, StoreError, pack, part_files};

/// A mail waiting to be sent.
///
/// Stored as the length of a JSON head (4 bytes, big-endian), the head
/// (everything but the message) and the message's bytes, packed
/// ([`pack`]; a report is 14 KB of text, about 1 KB packed). Writing the
/// message as a JSON string escaped every quote and line end. Items stored
/// as JSON by earlier versions (which begin with `{`, a length no item
/// has), and messages stored unpacked, are still read.
///
/// A stretch that the other mails of its change carry too (a report's
/// picture, some 80 KB of base64 that packing hardly shrinks) is cut out
/// of the stored message and kept once, as a file of the database's
/// folder `parts/` (the PNG it encodes) with an entry in the tree `parts`
/// ([`PartRef`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutboxItem {
    /// The envelope sender.
    pub from: String,
    /// The envelope recipients.
    pub to: Vec<String>,
    /// The Message-ID.
    pub message_id: String,
    /// The formatted message.
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// Failed attempts so far.
    pub attempts: u32,
    /// Not before this time.
    pub next_try: DateTime<Utc>,
    /// The last failure.
    pub last_error: Option<String>,
    /// Where the stretch of `bytes` kept in `parts` goes, if one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<PartRef>,
}

/// Bytes of a stored mail kept apart, once for all the mails of a change
/// that carry them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartRef {
    /// Its key in `parts`.
    pub key: u64,
    /// Where it goes in the message.
    pub at: usize,
    /// Its length in the message (the base64 of a picture, which its file
    /// keeps as the PNG).
    pub len: usize,
}

impl OutboxItem {
    /// A mail to send as soon as possible.
    pub fn new(mail: &OutMail, now: DateTime<Utc>) -> OutboxItem {
        OutboxItem {
            from: mail.from.clone(),
            to: mail.to.clone(),
            message_id: mail.message_id.clone(),
            bytes: mail.bytes.clone(),
            attempts: 0,
            next_try: now,
            last_error: None,
            part: None,
        }
    }

    /// `send` given the mail to hand to a transport. The message is lent
    /// to it rather than copied (a report is some 90 KB), and is back in
    /// the item when `send` returns (for a retry).
    pub fn lend_mail<R>(&mut self, send: impl FnOnce(&OutMail) -> R) -> R {
        let mail = OutMail {
            from: self.from.clone(),
            to: self.to.clone(),
            message_id: self.message_id.clone(),
            bytes: std::mem::take(&mut self.bytes),
            shared: None,
        };
        let sent = send(&mail);
        self.bytes = mail.bytes;
        sent
    }

    /// The stored form (see [`OutboxItem`]).
    pub(crate) fn encode(&self) -> Result<Vec<u8>, StoreError> {
        let head = serde_json::to_vec(self).map_err(|e| StoreError::Corrupt {
            game: String::new(),
            message: format!("outbox item {}: {e}", self.message_id),
        })?;
        let len = u32::try_from(head.len()).map_err(|_| StoreError::Corrupt {
            game: String::new(),
            message: format!("outbox item {}: head too large", self.message_id),
        })?;
        let message = match self.part {
            Some(p) => {
                let (before, after) = self
                    .bytes
                    .get(..p.at)
                    .zip(
                        p.at.checked_add(p.len)
                            .and_then(|end| self.bytes.get(end..)),
                    )
                    .ok_or_else(|| StoreError::Corrupt {
                        game: String::new(),
                        message: format!(
                            "outbox item {}: its part lies outside it",
                            self.message_id
                        ),
                    })?;
                pack::pack(&[before, after].concat())?
            }
            None => pack::pack(&self.bytes)?,
        };
        let mut out = Vec::with_capacity(4 + head.len() + message.len());
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&head);
        out.extend_from_slice(&message);
        Ok(out)
    }

    /// Reads the stored form back, or the JSON of earlier versions; without
    /// its part, if it has one (see [`Store::with_part`]).
    pub(crate) fn decode(stored: &[u8]) -> Result<OutboxItem, String> {
        OutboxItem::unpacked(OutboxItem::split(stored)?)
    }

    /// The item of a split stored form ([`OutboxItem::split`]) with its
    /// message unpacked.
    pub(crate) fn unpacked(
        (mut item, message): (OutboxItem, Option<&[u8]>),
    ) -> Result<OutboxItem, String> {
        if let Some(message) = message {
            item.bytes = pack::unpack(message)
                .map_err(|e| e.to_string())?
                .into_owned();
        }
        Ok(item)
    }

    /// Reads the stored form's head only (`bytes` left empty, but for the
    /// JSON of earlier versions).
    fn decode_head(stored: &[u8]) -> Result<OutboxItem, String> {
        OutboxItem::split(stored).map(|(item, _)| item)
    }

    /// The item of the stored form, and its packed message (`None`: the
    /// JSON of earlier versions, whose message is in the item).
    fn split(stored: &[u8]) -> Result<(OutboxItem, Option<&[u8]>), String> {
        if stored.first() == Some(&b'{') {
            #[derive(Deserialize)]
            struct Json {
                #[serde(flatten)]
                item: OutboxItem,
                message: String,
            }
            let json: Json = serde_json::from_slice(stored).map_err(|e| e.to_string())?;
            let item = OutboxItem {
                bytes: json.message.into_bytes(),
                ..json.item
            };
            return Ok((item, None));
        }
        let (len, rest) = stored
            .split_first_chunk::<4>()
            .ok_or("outbox item shorter than its length")?;
        let len = u32::from_be_bytes(*len) as usize;
        if rest.len() < len {
            return Err("outbox item shorter than its head".to_string());
        }
        let (head, message) = rest.split_at(len);
        let item: OutboxItem = serde_json::from_slice(head).map_err(|e| e.to_string())?;
        Ok((item, Some(message)))
    }
}

/// A part as stored in `parts`: the number of outbox items that carry it
/// (4 bytes, big-endian; its top bit set: the bytes are in a file; the
/// next: the file holds what they encode as a base64 body), their keys (8
/// bytes each), then the CRC-32 of the part's file ([`part_files`]; 4
/// bytes, big-endian), or, as earlier versions stored it, the bytes
/// themselves.
pub(crate) fn part_value(items: &[u64], crc: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + 8 * items.len() + 4);
    let flags = PART_IN_FILE | PART_BASE64;
    out.extend_from_slice(&(items.len() as u32 | flags).to_be_bytes());
    for item in items {
        out.extend_from_slice(&item.to_be_bytes());
    }
    out.extend_from_slice(&crc.to_be_bytes());
    out
}

/// The top bit of a stored part's count: its bytes are in a file.
const PART_IN_FILE: u32 = 1 << 31;

/// The next bit: the file holds what the bytes encode as a base64 body
/// (a picture's PNG, a quarter smaller than the mail's text of it).
const PART_BASE64: u32 = 1 << 30;

/// Where a stored part's bytes are.
enum PartBytes<'a> {
    /// In its file, with this CRC-32; `base64`: the file holds what they
    /// encode.
    File { crc: u32, base64: bool },
    /// In the entry, as earlier versions stored them.
    Inline(&'a [u8]),
}

/// The keys of the items that carry a stored part, and where its bytes are.
fn part_split(stored: &[u8]) -> Result<(Vec<u64>, PartBytes<'_>), String> {
    let (n, rest) = stored
        .split_first_chunk::<4>()
        .ok_or("outbox part shorter than its count")?;
    let n = u32::from_be_bytes(*n);
    let in_file = n & PART_IN_FILE != 0;
    let base64 = n & PART_BASE64 != 0;
    let n = (n & !(PART_IN_FILE | PART_BASE64)) as usize;
    let (keys, bytes) = rest
        .split_at_checked(n.saturating_mul(8))
        .ok_or("outbox part shorter than its keys")?;
    let items = keys
        .chunks_exact(8)
        .filter_map(|k| k.try_into().ok().map(u64::from_be_bytes))
        .collect();
    let bytes = if in_file {
        let crc: [u8; 4] = bytes
            .try_into()
            .map_err(|_| "outbox part without its file's checksum")?;
        PartBytes::File {
            crc: u32::from_be_bytes(crc),
            base64,
        }
    } else {
        PartBytes::Inline(bytes)
    };
    Ok((items, bytes))
}

impl Store {
    /// At most `limit` mails in the outbox due at `now`, oldest first, with
    /// their keys, from the key after `after` on (from the start if
    /// `None`). The outbox is read in such batches, so a long queue is
    /// never held in memory whole: pass the last key of one batch as
    /// `after` of the next; an empty batch means nothing more is due.
    pub fn outbox_due(
        &self,
        now: DateTime<Utc>,
        after: Option<u64>,
        limit: usize,
    ) -> Result<Vec<(u64, OutboxItem)>, StoreError> {
        let mut out = Vec::new();
        let items = match after {
            Some(key) => self.outbox.range((
                std::ops::Bound::Excluded(key.to_be_bytes().to_vec()),
                std::ops::Bound::Unbounded,
            )),
            None => self.outbox.iter(),
        };
        for item in items {
            if out.len() >= limit {
                break;
            }
            let (k, v) = item?;
            let key = k.as_ref().try_into().map(u64::from_be_bytes).unwrap_or(0);
            // Its head says whether it is due; only then is it read whole.
            let read = match OutboxItem::split(&v) {
                Ok((head, _)) if head.next_try > now => continue,
                split => split
                    .and_then(OutboxItem::unpacked)
                    .and_then(|item| self.with_part(item)),
            };
            match read {
                Ok(item) => out.push((key, item)),
                Err(e) => tracing::error!(key, error = %e, "outbox item unreadable; left alone"),
            }
        }
        Ok(out)
    }

    /// Number of mails in the outbox.
    pub fn outbox_len(&self) -> usize {
        self.outbox.len()
    }

    /// A mail was sent: it leaves the outbox, durably at the next
    /// [`Store::flush`] (until then a crash sends it again).
    pub fn outbox_sent(&self, key: u64) -> Result<(), StoreError> {
        self.writable()?;
        self.outbox_remove(key)
    }

    /// Removes an outbox item, and its part with the last item that carries
    /// it.
    fn outbox_remove(&self, key: u64) -> Result<(), StoreError> {
        let Some(stored) = self.watch(self.outbox.remove(key.to_be_bytes()))? else {
            return Ok(());
        };
        let Ok(Some(part)) = OutboxItem::decode_head(&stored).map(|item| item.part) else {
            return Ok(());
        };
        // Each remover looks after removing its own item, so of two at once
        // at least one sees the other's gone. A crash in between leaves the
        // part alone, for the next start's sweep.
        match self.parts.get(part.key.to_be_bytes())? {
            Some(stored) => self.drop_part_if_unused(part.key, &stored),
            None => Ok(()),
        }
    }

    /// Removes part `key`, stored as `stored`, if no outbox item carries it
    /// any more.
    fn drop_part_if_unused(&self, key: u64, stored: &[u8]) -> Result<(), StoreError> {
        let items = match part_split(stored) {
            Ok((items, _)) => items,
            Err(e) => {
                // Kept, as its items are (for whoever mends the database).
                tracing::error!(key, error = %e, "outbox part unreadable; left alone");
                return Ok(());
            }
        };
        for item in items {
            if self.outbox.contains_key(item.to_be_bytes())? {
                return Ok(());
            }
        }
        if self.watch(self.parts.remove(key.to_be_bytes()))?.is_some() {
            self.lock_gone_parts().push(key);
        }
        Ok(())
    }

    /// The parts whose files go after the next flush.
    pub(crate) fn lock_gone_parts(&self) -> std::sync::MutexGuard<'_, Vec<u64>> {
        // A panic elsewhere while holding it leaves a list still good.
        self.gone_parts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Removes the parts that no outbox item carries (left by a crash
    /// between an item's removal and its part's), then the parts' files
    /// that no entry stands for (left by a crash: see [`part_files`]).
    pub(crate) fn sweep_parts(&self) -> Result<(), StoreError> {
        for entry in self.parts.iter() {
            let (key, stored) = entry?;
            if let Ok(key) = key.as_ref().try_into().map(u64::from_be_bytes) {
                self.drop_part_if_unused(key, &stored)?;
            }
        }
        if !self.lock_gone_parts().is_empty() {
            self.flush()?;
        }
        part_files::sweep(&self.path, |key| {
            Ok(self.parts.contains_key(key.to_be_bytes())?)
        })?;
        Ok(())
    }

    /// `item` with its part, if it has one, put back in its place.
    pub(crate) fn with_part(&self, mut item: OutboxItem) -> Result<OutboxItem, String> {
        if let Some(p) = item.part {
            let part = self
                .parts
                .get(p.key.to_be_bytes())
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("its part {} is missing", p.key))?;
            let file;
            let bytes = match part_split(&part)?.1 {
                PartBytes::File { crc, base64 } => {
                    let stored = part_files::read(&self.path, p.key, crc)?;
                    file = if base64 {
                        mail::compose::base64_body(&stored)
                    } else {
                        stored
                    };
                    file.as_slice()
                }
                PartBytes::Inline(bytes) => bytes,
            };
            if bytes.len() != p.len || p.at > item.bytes.len() {
                return Err(format!(
                    "its part {} ({} bytes) does not fit it (at {} of {}, {} bytes expected)",
                    p.key,
                    bytes.len(),
                    p.at,
                    item.bytes.len(),
                    p.len
                ));
            }
            // Built anew rather than `Vec::splice`, which fills the gap a
            // byte at a time: 104 µs for a picture of 70 KB against 2 µs
            // (docs/performance.md as of 9fafdd2, "What the targets ask
            // of this machine").
            let mut whole = Vec::with_capacity(item.bytes.len() + bytes.len());
            whole.extend_from_slice(&item.bytes[..p.at]);
            whole.extend_from_slice(bytes);
            whole.extend_from_slice(&item.bytes[p.at..]);
            item.bytes = whole;
        }
        Ok(item)
    }

    /// A mail failed: record it for a later try, or drop it for good.
    pub fn outbox_retry(&self, key: u64, item: Option<&OutboxItem>) -> Result<(), StoreError> {
        self.writable()?;
        match item {
            Some(item) => {
                self.outbox.insert(key.to_be_bytes(), item.encode()?)?;
            }
            None => self.outbox_remove(key)?,
        }
        Ok(())
    }
}
