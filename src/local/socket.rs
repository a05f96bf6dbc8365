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

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::LocalError;
use super::request::{Env, Outcome, Request, execute};
use crate::config::Config;
use crate::daemon::Daemon;
use crate::registry::BoardSource;
use crate::store::{Store, StoreError};

/// The version of what goes over the socket.
const PROTOCOL: u32 = 1;

/// The longest request the daemon reads.
const MAX_REQUEST: u64 = 1 << 20;

/// How long a command waits for the daemon (which runs it after the mail
/// cycle in hand).
const ANSWER_WITHIN: Duration = Duration::from_secs(600);

/// How long a command waits for a database another process has open to be
/// free, or for a daemon that is starting to answer on its socket.
const LOCK_PATIENCE: Duration = Duration::from_secs(3);

/// A request on the wire.
#[derive(Serialize, Deserialize)]
struct Wire {
    protocol: u32,
    request: Request,
}

/// The daemon's answer.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "answer")]
enum Answer {
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

/// The socket a running daemon listens on; removed when dropped.
struct Listening {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A request handed from the socket's thread to the daemon, with where
/// its outcome goes.
type Job = (Request, mpsc::Sender<Outcome>);

/// Makes the socket at `path`, readable and writable by this user only:
/// bound inside a fresh folder of mode 0700, set to 0600, then moved into
/// place, so nobody else can connect even for a moment. A socket file
/// already there is one a killed daemon left (the caller holds the
/// database): it is replaced.
fn bind(path: &Path) -> std::io::Result<UnixListener> {
    let parent = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(p) => p.to_path_buf(),
        None => PathBuf::from("."),
    };
    let private = parent.join(format!(".sock.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&private);
    std::fs::DirBuilder::new().mode(0o700).create(&private)?;
    let result = (|| {
        let inner = private.join("s");
        let listener = UnixListener::bind(&inner)?;
        std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o600))?;
        std::fs::rename(&inner, path)?;
        Ok(listener)
    })();
    let _ = std::fs::remove_dir_all(&private);
    result
}

/// Starts listening on `path`: a thread accepts each connection, reads
/// its request and hands it to the daemon through `jobs`.
fn listen(path: &Path, jobs: mpsc::Sender<Job>) -> std::io::Result<Listening> {
    let listener = bind(path)?;
    listener.set_nonblocking(true)?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let thread = std::thread::Builder::new()
        .name("commands".to_string())
        .spawn(move || {
            while !flag.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => serve_one(stream, &jobs),
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "command socket: accept failed");
                        std::thread::sleep(Duration::from_millis(100));
                    }
                }
            }
        })?;
    Ok(Listening {
        path: path.to_path_buf(),
        stop,
        thread: Some(thread),
    })
}

/// Reads one request from `stream`, has the daemon run it, and writes the
/// answer back.
fn serve_one(stream: UnixStream, jobs: &mpsc::Sender<Job>) {
    let answer = (|| -> std::io::Result<Answer> {
        stream.set_nonblocking(false)?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        let mut line = String::new();
        BufReader::new((&stream).take(MAX_REQUEST)).read_line(&mut line)?;
        let wire: Wire = match serde_json::from_str(&line) {
            Ok(w) => w,
            Err(e) => {
                let refused = LocalError::Argument(format!(
                    "the daemon cannot read this command ({e}); are the command line and the daemon the same version of Stationmaster?"
                ));
                return Ok(Answer::Done(Outcome::of(Err(refused))));
            }
        };
        if wire.protocol != PROTOCOL {
            let refused = LocalError::Argument(format!(
                "the command line speaks version {} to the daemon, which speaks {PROTOCOL}: restart the daemon with this Stationmaster",
                wire.protocol
            ));
            return Ok(Answer::Done(Outcome::of(Err(refused))));
        }
        let (tx, rx) = mpsc::channel();
        let declined = || Answer::Declined {
            why: "the daemon is stopping".to_string(),
        };
        if jobs.send((wire.request, tx)).is_err() {
            return Ok(declined());
        }
        Ok(rx.recv().map_or_else(|_| declined(), Answer::Done))
    })();
    match answer {
        Ok(answer) => {
            let mut text = serde_json::to_string(&answer).unwrap_or_default();
            text.push('\n');
            if let Err(e) = (&stream).write_all(text.as_bytes()) {
                tracing::warn!(error = %e, "command socket: the answer could not be written");
            }
        }
        Err(e) => tracing::warn!(error = %e, "command socket: a request could not be read"),
    }
}

/// `run`: the daemon's poll loop (see [`Daemon::run`]), with the command
/// socket: between mail cycles it runs the commands the command line hands
/// it. Without a socket (it cannot be made) the daemon runs all the same,
/// and says so.
pub fn run_daemon(
    daemon: &mut Daemon,
    config: &Config,
    stop: &AtomicBool,
    clock: &dyn Fn() -> DateTime<Utc>,
) -> Result<(), LocalError> {
    let path = socket_path(config);
    let (jobs, requests) = mpsc::channel::<Job>();
    let listening = match listen(&path, jobs) {
        Ok(l) => {
            tracing::info!(socket = %path.display(), "commands are taken on the socket");
            Some(l)
        }
        Err(e) => {
            tracing::warn!(socket = %path.display(), error = %e, "no command socket: commands cannot run while the daemon runs");
            None
        }
    };
    let ran = daemon.run_with(stop, clock, &mut |d, pause| {
        if let Ok((request, reply)) = requests.recv_timeout(pause) {
            let outcome = execute(&Env::of(&d.ctx()), &request);
            let _ = reply.send(outcome);
        }
    });
    // Requests still queued are declined (their callers run them once
    // the database is free); then the socket goes.
    drop(requests);
    drop(listening);
    Ok(ran?)
}
