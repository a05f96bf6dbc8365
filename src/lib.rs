//! Stationmaster: a play-by-email turn processor for railway board games.
//!
//! The library holds everything; the `stationmaster` binary only parses its
//! command line and calls in here.
//!
//! - [`engine`]: the game-agnostic contract every game implements, and the
//!   registry of games.
//! - [`rocket`]: Stephenson's Rocket, pure rules.
//! - [`store`]: games kept in sled as setup, an append-only order log and a
//!   snapshot.
//! - [`clock`]: deadlines, reminders and absences, pure.
//! - [`config`]: the operator's `config.toml`.
//! - [`folders`]: the folders made for what is kept, the operator's alone.
//! - [`mail`]: transports (Maildir, IMAP, `.eml` files, SMTP), MIME in and
//!   out, the templates.
//! - [`daemon`]: the poll loop, dispatch of mail, the scheduler, moderators,
//!   the archive.
//! - [`local`]: the command line's commands (`new`, `order`, `show`, `log`,
//!   `games`, `verify`, `mod`, `export`, `import`, `demo`) as library
//!   calls, run here or handed to the running daemon over its socket.
#![warn(missing_docs)]

// The engine contract, the games and the mail layer are crates of their
// own (crates/); named here as they always were, `crate::engine`,
// `crate::rocket`, `crate::mail`.
pub use engine;
pub use linie1;
pub use mail;
pub use mail::folders;
pub use rocket;

pub mod clock;
pub mod config;
pub mod daemon;
pub mod local;
pub mod picture;
pub mod registry;
pub mod service;
pub mod store;
