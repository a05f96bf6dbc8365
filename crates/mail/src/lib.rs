//! Mail in and mail out: transports behind two small traits, MIME in
//! ([`ingest`]) and MIME out ([`compose`]), text parts `format=flowed`
//! both ways ([`flowed`]).
//!
//! | direction | transport | module | when |
//! |---|---|---|---|
//! | in  | Maildir folder (`var/inbox/{new,cur,tmp}`) | [`transport::Maildir`] | the embedded default |
//! | in  | IMAP (TLS; plain only towards loopback) | [`transport::Imap`] | `[inbound] kind = "imap"` |
//! | in  | memory | [`transport::MemoryInbound`] | tests |
//! | out | `.eml` files (`var/outbox`) | [`transport::EmlFiles`] | the embedded default |
//! | out | SMTP (STARTTLS or TLS; plain only towards loopback) | [`transport::Smtp`] | `[outbound] kind = "smtp"` |
//! | out | memory | [`transport::MemoryOutbound`] | tests |
//!
//! The daemon sees only [`Inbound`] and [`Outbound`]. A message taken from
//! an [`Inbound`] is marked done only after its effects are committed, so a
//! crash between the two makes it come back, and the store's Message-ID
//! receipt makes sure it is applied once.
#![warn(missing_docs)]

pub mod compose;
pub mod config;
pub mod flowed;
pub mod folders;
pub mod ingest;
pub mod templates;
pub mod transport;

/// A message as a transport hands it over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawMail {
    /// The transport's own handle for it (a Maildir file name, an IMAP UID),
    /// given back to [`Inbound::done`].
    pub handle: String,
    /// The message, as RFC 5322 bytes.
    pub bytes: Vec<u8>,
    /// Why the transport could not read it (then `bytes` is empty): the
    /// daemon tries again a few times, then puts it in quarantine.
    pub unreadable: Option<String>,
}

impl RawMail {
    /// A message read whole.
    pub fn new(handle: impl Into<String>, bytes: Vec<u8>) -> RawMail {
        RawMail {
            handle: handle.into(),
            bytes,
            unreadable: None,
        }
    }

    /// A message that is there but cannot be read, and why.
    pub fn unreadable(handle: impl Into<String>, why: impl Into<String>) -> RawMail {
        RawMail {
            handle: handle.into(),
            bytes: Vec::new(),
            unreadable: Some(why.into()),
        }
    }
}

/// A message to send, already formatted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutMail {
    /// The envelope sender.
    pub from: String,
    /// The envelope recipients.
    pub to: Vec<String>,
    /// Its Message-ID, without angle brackets (names `.eml` files, too).
    pub message_id: String,
    /// The message, as RFC 5322 bytes.
    pub bytes: Vec<u8>,
    /// A stretch of `bytes` that other mails of the same change carry too
    /// (a report's picture), so that the outbox keeps one copy of it.
    /// Transports send `bytes` and never look at this.
    pub shared: Option<Shared>,
}

/// Bytes that several mails of one change carry, at a place in each: a
/// report's picture, as its base64 body ([`compose::InlinePicture`]).
/// Made only by [`compose::compose`], so what it says of the mail holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shared {
    at: usize,
    bytes: std::sync::Arc<Vec<u8>>,
    decoded: std::sync::Arc<Vec<u8>>,
}

impl Shared {
    /// The picture's base64 body, found at `at` in a mail's bytes.
    pub(crate) fn picture(at: usize, picture: &compose::InlinePicture) -> Shared {
        Shared {
            at,
            bytes: picture.base64().clone(),
            decoded: picture.png().clone(),
        }
    }

    /// Where the bytes start in the mail's bytes.
    pub fn at(&self) -> usize {
        self.at
    }

    /// The bytes, one copy for all the mails that carry them.
    pub fn bytes(&self) -> &std::sync::Arc<Vec<u8>> {
        &self.bytes
    }

    /// What the bytes encode ([`compose::base64_body`] of these gives
    /// them): a quarter smaller, what the outbox keeps while the mails
    /// wait.
    pub fn decoded(&self) -> &std::sync::Arc<Vec<u8>> {
        &self.decoded
    }
}

/// What can go wrong talking to a mail server or a mail folder.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// A local folder or file.
    #[error("{path}: {cause}")]
    Io {
        /// The path.
        path: String,
        /// The error: said in the message, and so not its `source` (a
        /// chain printed whole would say it twice).
        cause: std::io::Error,
    },
    /// The server could not be reached, or the connection broke.
    #[error("cannot reach {server}: {message}")]
    Connect {
        /// `host:port`.
        server: String,
        /// Why.
        message: String,
    },
    /// The server refused (login, a command, a recipient).
    #[error("{server} refused: {message}")]
    Refused {
        /// `host:port`.
        server: String,
        /// Its answer.
        message: String,
        /// True if trying again later may work (a 4xx SMTP reply, a timeout).
        transient: bool,
    },
    /// The configuration asks for something unsafe or impossible.
    #[error("{0}")]
    Config(String),
}

impl TransportError {
    /// True if trying again later may succeed.
    pub fn is_transient(&self) -> bool {
        match self {
            TransportError::Io { .. } | TransportError::Connect { .. } => true,
            TransportError::Refused { transient, .. } => *transient,
            TransportError::Config(_) => false,
        }
    }
}

/// Where mail comes from.
pub trait Inbound {
    /// Messages not yet marked done, oldest first.
    fn fetch(&mut self) -> Result<Vec<RawMail>, TransportError>;
    /// Marks a message as processed, so it is not fetched again.
    fn done(&mut self, handle: &str) -> Result<(), TransportError>;
    /// Marks messages as processed: one by one with [`Inbound::done`],
    /// unless the transport can do them all at once (IMAP: one command).
    fn done_all(&mut self, handles: &[String]) -> Result<(), TransportError> {
        handles.iter().try_for_each(|h| self.done(h))
    }
    /// Moves a message that cannot be handled out of the way, into the
    /// quarantine (Maildir: its `.Quarantine` folder; IMAP: the
    /// `quarantine_mailbox`), so it is fetched no more.
    fn quarantine(&mut self, handle: &str) -> Result<(), TransportError>;
    /// The messages in quarantine, by their handle there (bytes, or why they
    /// cannot be read).
    fn quarantined(&mut self) -> Result<Vec<RawMail>, TransportError>;
    /// Moves a message out of quarantine, to be fetched again.
    fn release(&mut self, handle: &str) -> Result<(), TransportError>;
    /// A way to learn of new mail the moment it arrives, if the transport
    /// has one (IMAP IDLE, on a connection of its own); `None` if the
    /// daemon must poll (Maildir, a server without IDLE).
    fn watcher(&mut self) -> Option<Box<dyn Watch>> {
        None
    }
}

/// Waits for new mail without polling: [`Inbound::watcher`]. It runs on a
/// thread of its own, so it is `Send`.
pub trait Watch: Send {
    /// Blocks until new mail may have arrived (`Ok(true)`: fetch now) or
    /// `timeout` has passed (`Ok(false)`). A mail that stays in the mailbox
    /// (deferred, or failing) is announced once, not at every call.
    fn wait(&mut self, timeout: std::time::Duration) -> Result<bool, TransportError>;
}

/// Where mail goes. `Send`: the daemon sends from a thread of its own
/// while it handles the next mails.
pub trait Outbound: Send {
    /// Sends one message.
    fn send(&mut self, mail: &OutMail) -> Result<(), TransportError>;
}
