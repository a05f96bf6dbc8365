//! The operator's configuration: `config.toml`, read into plain serde structs
//! and checked before anything is opened. Every key has a default, so with no
//! file at all Stationmaster runs on the embedded defaults (a local sled
//! database under `var/`). `config.toml.example` documents every key.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The whole configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Where games are kept.
    pub store: StoreConfig,
    /// Where board data is read from.
    pub games: GamesConfig,
}

/// `[store]`: the sled database.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreConfig {
    /// The database folder (created if missing).
    pub path: PathBuf,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            path: PathBuf::from("var/db"),
        }
    }
}

/// `[games]`: board data.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GamesConfig {
    /// The folder with one folder per game (`rocket/board.toml`); a board
    /// missing there is taken from the copy built into the binary.
    pub boards: PathBuf,
}

impl Default for GamesConfig {
    fn default() -> Self {
        GamesConfig {
            boards: PathBuf::from("games"),
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read the config file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid, with the line where known.
    #[error("config file {path}{}: {message}", .line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Invalid {
        /// The file.
        path: String,
        /// The line, from 1.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
}

impl Config {
    /// Reads `path`, or gives the embedded defaults when `path` is None.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        let Some(path) = path else {
            return Ok(Config::default());
        };
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Config::parse(&path.display().to_string(), &text)
    }

    /// Reads a configuration from its text; `path` names it in errors.
    pub fn parse(path: &str, text: &str) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::Invalid {
            path: path.to_string(),
            line: e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1),
            message: e.message().trim().to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_file_means_the_embedded_defaults() {
        let c = Config::load(None).unwrap();
        assert_eq!(c.store.path, PathBuf::from("var/db"));
        assert_eq!(c.games.boards, PathBuf::from("games"));
    }

    #[test]
    fn the_example_file_is_a_valid_config() {
        let text = include_str!("../config.toml.example");
        Config::parse("config.toml.example", text).unwrap();
    }

    #[test]
    fn an_unknown_key_is_refused_with_its_line() {
        let e = Config::parse("c.toml", "[store]\npath = \"x\"\nsize = 3\n").unwrap_err();
        let text = e.to_string();
        assert!(text.contains("c.toml, line 3"), "{text}");
        assert!(text.contains("size"), "{text}");
    }
}
