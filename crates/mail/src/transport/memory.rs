//! In-memory transports for tests: shared handles, so a test keeps one clone
//! while the daemon owns another as a boxed trait object.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::{Inbound, OutMail, Outbound, RawMail, TransportError};

/// Locks a mutex, carrying on if a panicking test poisoned it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[derive(Debug, Default)]
struct InboxState {
    next: u64,
    waiting: Vec<RawMail>,
    done: Vec<String>,
    fail_fetches: usize,
    refuse_fetches: usize,
    quarantine: Vec<RawMail>,
}

/// An inbound queue in memory. Clones share the same queue.
///
/// Handles are `"1"`, `"2"`, … in the order messages were pushed;
/// [`fetch`](Inbound::fetch) returns the waiting ones in that order and
/// [`done`](Inbound::done) removes one (done twice, or an unknown handle, is
/// not an error: it is recorded and ignored).
#[derive(Clone, Debug, Default)]
pub struct MemoryInbound {
    state: Arc<Mutex<InboxState>>,
}

impl MemoryInbound {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a message and returns its handle.
    pub fn push(&self, bytes: impl Into<Vec<u8>>) -> String {
        let mut s = lock(&self.state);
        s.next += 1;
        let handle = s.next.to_string();
        s.waiting.push(RawMail::new(handle.clone(), bytes.into()));
        handle
    }

    /// Adds a message that the transport cannot read (as a Maildir file
    /// without permission, or an IMAP message without a body), and returns
    /// its handle.
    pub fn push_unreadable(&self, why: &str) -> String {
        let mut s = lock(&self.state);
        s.next += 1;
        let handle = s.next.to_string();
        s.waiting.push(RawMail::unreadable(handle.clone(), why));
        handle
    }

    /// The messages in quarantine.
    pub fn quarantine_handles(&self) -> Vec<String> {
        lock(&self.state)
            .quarantine
            .iter()
            .map(|m| m.handle.clone())
            .collect()
    }

    /// The messages not yet done, oldest first.
    pub fn waiting(&self) -> Vec<RawMail> {
        lock(&self.state).waiting.clone()
    }

    /// The handles marked done, in the order they were.
    pub fn done_handles(&self) -> Vec<String> {
        lock(&self.state).done.clone()
    }

    /// Makes the next `n` fetches fail with a transient
    /// [`TransportError::Connect`], to test the daemon's error path.
    pub fn fail_next_fetches(&self, n: usize) {
        lock(&self.state).fail_fetches = n;
    }

    /// Makes the next `n` fetches fail as a server's lasting refusal (an
    /// IMAP `NO`: the mailbox is gone, the password changed).
    pub fn refuse_next_fetches(&self, n: usize) {
        lock(&self.state).refuse_fetches = n;
    }
}

impl Inbound for MemoryInbound {
    fn fetch(&mut self) -> Result<Vec<RawMail>, TransportError> {
        let mut s = lock(&self.state);
        if s.fail_fetches > 0 {
            s.fail_fetches -= 1;
            return Err(TransportError::Connect {
                server: "memory".to_string(),
                message: "a test asked this fetch to fail".to_string(),
            });
        }
        if s.refuse_fetches > 0 {
            s.refuse_fetches -= 1;
            return Err(TransportError::Refused {
                server: "memory".to_string(),
                message: "Mailbox doesn't exist: Games".to_string(),
                transient: false,
            });
        }
        Ok(s.waiting.clone())
    }

    fn done(&mut self, handle: &str) -> Result<(), TransportError> {
        let mut s = lock(&self.state);
        s.waiting.retain(|m| m.handle != handle);
        s.done.push(handle.to_string());
        Ok(())
    }

    fn quarantine(&mut self, handle: &str) -> Result<(), TransportError> {
        let mut s = lock(&self.state);
        if let Some(i) = s.waiting.iter().position(|m| m.handle == handle) {
            let m = s.waiting.remove(i);
            s.quarantine.push(m);
        }
        Ok(())
    }

    fn quarantined(&mut self) -> Result<Vec<RawMail>, TransportError> {
        Ok(lock(&self.state).quarantine.clone())
    }

    fn release(&mut self, handle: &str) -> Result<(), TransportError> {
        let mut s = lock(&self.state);
        if let Some(i) = s.quarantine.iter().position(|m| m.handle == handle) {
            let m = s.quarantine.remove(i);
            s.waiting.push(m);
        }
        Ok(())
    }
}

#[derive(Debug, Default)]
struct OutboxState {
    sent: VecDeque<OutMail>,
    fail_sends: usize,
    attempts: usize,
}

/// An outbound list in memory. Clones share the same list.
#[derive(Clone, Debug, Default)]
pub struct MemoryOutbound {
    state: Arc<Mutex<OutboxState>>,
}

impl MemoryOutbound {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Everything sent so far, oldest first.
    pub fn sent(&self) -> Vec<OutMail> {
        lock(&self.state).sent.iter().cloned().collect()
    }

    /// Takes everything sent so far, oldest first, leaving the list empty.
    pub fn take(&self) -> Vec<OutMail> {
        lock(&self.state).sent.drain(..).collect()
    }

    /// Every call to [`send`](Outbound::send) so far, failed ones included.
    pub fn attempts(&self) -> usize {
        lock(&self.state).attempts
    }

    /// Makes the next `n` sends fail as a server's temporary refusal of
    /// the mail (an SMTP 4xx: [`TransportError::Refused`], transient), to
    /// test retries. (A server that cannot be reached at all ends the
    /// cycle's sending: see `Daemon::process`.)
    pub fn fail_next_sends(&self, n: usize) {
        lock(&self.state).fail_sends = n;
    }
}

impl Outbound for MemoryOutbound {
    fn send(&mut self, mail: &OutMail) -> Result<(), TransportError> {
        let mut s = lock(&self.state);
        s.attempts += 1;
        if s.fail_sends > 0 {
            s.fail_sends -= 1;
            return Err(TransportError::Refused {
                server: "memory".to_string(),
                message: "451 a test asked this send to fail".to_string(),
                transient: true,
            });
        }
        s.sent.push_back(mail.clone());
        Ok(())
    }
}
