//! The command line beside the daemon. sled lets one process open a
//! database, so while `stationmaster run` has it, a command hands its
//! [`Request`] to the daemon over a Unix socket beside the database
//! (`[store] path` with `.sock` added: `var/db.sock`), and prints what comes
//! back. The daemon runs each request between its mail cycles, with the
//! same [`execute`] as the command line's own process, so the output and
//! the exit code are the same either way.
//!
//! The socket is made by `run` (mode 0600, in a folder only its user can
//! enter until it is in place), so only the operator's user can connect. It
//! is removed when the daemon stops; one left by a daemon that was killed
//! answers nobody, and a command then opens the database itself.
//!
//! On the wire: one JSON line each way, `{"protocol": 1, "request": …}`
//! in, `{"answer": "done", …Outcome}` (or `"declined"`: not run) out.

use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::LocalError;
use super::request::{Env, Outcome, Request, execute};
use crate::config::Config;
use crate::registry::BoardSource;
use crate::store::{Store, StoreError};

/// The version of what goes over the socket.
/// The version of the wire format.
pub const PROTOCOL: u32 = 1;

/// The longest request the daemon reads.
pub const MAX_REQUEST: u64 = 1 << 20;

/// How long a command waits for the daemon (which runs it after the mail
/// cycle in hand).
const ANSWER_WITHIN: Duration = Duration::from_secs(600);

/// How long a command waits for a database another process has open to be
/// free, or for a daemon that is starting to answer on its socket.
const LOCK_PATIENCE: Duration = Duration::from_secs(3);

/// A request on the wire.
#[derive(Serialize, Deserialize)]
pub struct Wire {
    /// [`PROTOCOL`].
    pub protocol: u32,
    /// The command.
    pub request: Request,
}

/// The daemon's answer.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "answer")]
pub enum Answer {
    /// The command ran.
    Done(Outcome),
    /// The command did not run (the daemon is stopping): the command line
    /// runs it itself once the database is free.
    Declined {
        /// Why.
        why: String,
    },
}

/// The socket of the daemon on the database in `[store] path`: the same
/// path with `.sock` added (`var/db` → `var/db.sock`).
pub fn socket_path(config: &Config) -> PathBuf {
    let mut name = config
        .store
        .path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "db".into());
    name.push(".sock");
    config.store.path.with_file_name(name)
}

/// What asking the daemon gave.
enum Asked {
    /// It ran the command.
    Answered(Outcome),
    /// Nobody listens: no socket, or one a killed daemon left.
    NoDaemon,
    /// It is stopping and did not run the command.
    Declined,
}

/// Hands `request` to the daemon listening on `socket`, if one does.
fn ask(socket: &Path, request: &Request) -> Result<Asked, LocalError> {
    let failed = |e: std::io::Error| LocalError::Socket {
        path: socket.display().to_string(),
        source: e,
    };
    let mut stream = match UnixStream::connect(socket) {
        Ok(s) => s,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused) => {
            return Ok(Asked::NoDaemon);
        }
        Err(e) => return Err(failed(e)),
    };
    stream
        .set_read_timeout(Some(ANSWER_WITHIN))
        .map_err(failed)?;
    let mut line = serde_json::to_string(&Wire {
        protocol: PROTOCOL,
        request: request.clone(),
    })
    .map_err(|e| LocalError::Argument(format!("the command cannot be written: {e}")))?;
    line.push('\n');
    stream.write_all(line.as_bytes()).map_err(failed)?;
    let mut answer = String::new();
    BufReader::new(stream)
        .read_line(&mut answer)
        .map_err(failed)?;
    if answer.is_empty() {
        return Err(LocalError::NoAnswer {
            path: socket.display().to_string(),
        });
    }
    match serde_json::from_str::<Answer>(&answer) {
        Ok(Answer::Done(outcome)) => Ok(Asked::Answered(outcome)),
        Ok(Answer::Declined { why }) => {
            tracing::debug!(%why, "the daemon declined; running the command here");
            Ok(Asked::Declined)
        }
        Err(e) => Err(LocalError::Argument(format!(
            "the daemon's answer on {} cannot be read ({e}); is it another version of Stationmaster?",
            socket.display()
        ))),
    }
}

/// True if a daemon listens on `socket`.
pub fn daemon_listens(socket: &Path) -> bool {
    UnixStream::connect(socket).is_ok()
}

/// Opens the database of `config` in this process. Another process that
/// has it open is named in one sentence: the running daemon
/// ([`LocalError::DaemonRunning`]), or another (`process`, `import`):
/// [`LocalError::Busy`].
pub fn open_store(config: &Config) -> Result<Store, LocalError> {
    let path = &config.store.path;
    Store::open(path).map_err(|e| match e {
        StoreError::Locked { pid, .. } => {
            let socket = socket_path(config);
            if daemon_listens(&socket) {
                LocalError::DaemonRunning {
                    path: path.display().to_string(),
                    pid,
                }
            } else {
                LocalError::Busy {
                    path: path.display().to_string(),
                    socket: socket.display().to_string(),
                    pid,
                }
            }
        }
        source => LocalError::Open {
            path: path.display().to_string(),
            source,
        },
    })
}

/// Runs `request`: in the running daemon if one listens on the socket,
/// else on the database opened here. A database that another process
/// holds is waited for a moment (a daemon may be starting), then named in
/// one sentence.
pub fn dispatch(config: &Config, request: &Request) -> Outcome {
    let socket = socket_path(config);
    let started = std::time::Instant::now();
    loop {
        match ask(&socket, request) {
            Ok(Asked::Answered(outcome)) => return outcome,
            Ok(Asked::NoDaemon | Asked::Declined) => {}
            Err(e) => return Outcome::of(Err(e)),
        }
        match open_store(config) {
            Ok(store) => {
                let boards = BoardSource::from_dir(&config.games.boards);
                return execute(&Env::new(&store, config, &boards), request);
            }
            Err(LocalError::Busy { .. } | LocalError::DaemonRunning { .. })
                if started.elapsed() < LOCK_PATIENCE =>
            {
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => return Outcome::of(Err(e)),
        }
    }
}
