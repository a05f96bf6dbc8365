//! Stationmaster: a play-by-email turn processor for railway board games.
//!
//! The application: the service, the daemon and the command line's
//! commands; the `stationmaster` binary only parses its command line and
//! calls in here. The layers below are crates of their own under
//! `crates/`, re-exported here under the names the code has always used:
//!
//! - [`engine`]: the game-agnostic contract every game implements.
//! - [`rocket`], [`linie1`]: the games, pure rules, each depending on the
//!   engine alone.
//! - [`registry`]: the list of games.
//! - [`clock`]: deadlines, reminders and absences, pure.
//! - [`mail`]: transports (Maildir, IMAP, `.eml` files, SMTP), MIME in and
//!   out, the templates; [`folders`], the folders made for what is kept.
//! - [`store`]: games kept in sled as setup, an append-only order log and a
//!   snapshot.
//!
//! Here:
//! - [`config`]: the operator's `config.toml`.
//! - [`service`]: what the daemon and the command line share.
//! - [`daemon`]: the poll loop, dispatch of mail, the scheduler, moderators,
//!   the archive.
//! - [`local`]: the command line's commands (`new`, `order`, `show`, `log`,
//!   `games`, `verify`, `mod`, `export`, `import`, `demo`) as library
//!   calls, run here or handed to the running daemon over its socket.
//! - [`picture`]: a board's picture as a PNG.
#![warn(missing_docs)]

// The crates under crates/, named here as they always were: `crate::engine`,
// `crate::store` and so on.
pub use clock;
pub use engine;
pub use linie1;
pub use mail;
pub use mail::folders;
pub use registry;
pub use rocket;
pub use store;

pub mod config;
pub mod daemon;
pub mod local;
pub mod picture;
pub mod service;
