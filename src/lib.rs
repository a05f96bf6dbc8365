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
//! - [`local`]: the local play commands (`new`, `order`, `show`, `log`,
//!   `games`) as library calls.
#![warn(missing_docs)]

pub mod clock;
pub mod config;
pub mod daemon;
pub mod engine;
pub mod local;
pub mod mail;
pub mod rocket;
pub mod store;
