//! The daemon's end of the command socket (`crate::local::socket` is the
//! command line's): `run` listens on it and, between mail cycles, runs the
//! commands handed to it with the command line's own
//! [`execute`](crate::local::request::execute), so their output and exit
//! codes are the same either way.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::{Daemon, Doorbell};
use crate::config::Config;
use crate::local::LocalError;
use crate::local::request::{Env, Outcome, Request, execute};
use crate::local::socket::{Answer, MAX_REQUEST, PROTOCOL, Wire, socket_path};

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
/// its request and hands it to the daemon through `jobs`, ringing
/// `doorbell` so that the daemon takes it at once.
fn listen(path: &Path, jobs: mpsc::Sender<Job>, doorbell: Doorbell) -> std::io::Result<Listening> {
    let listener = bind(path)?;
    listener.set_nonblocking(true)?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let thread = std::thread::Builder::new()
        .name("commands".to_string())
        .spawn(move || {
            while !flag.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => serve_one(stream, &jobs, &doorbell),
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
fn serve_one(stream: UnixStream, jobs: &mpsc::Sender<Job>, doorbell: &Doorbell) {
    let answer = (|| -> std::io::Result<Option<Answer>> {
        stream.set_nonblocking(false)?;
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        let mut line = String::new();
        BufReader::new((&stream).take(MAX_REQUEST)).read_line(&mut line)?;
        if line.is_empty() {
            // Nothing asked: a command line that only looked whether a
            // daemon listens (`process`, `import`, `check-config` beside
            // it) and went. Nobody waits for an answer.
            return Ok(None);
        }
        let wire: Wire = match serde_json::from_str(&line) {
            Ok(w) => w,
            Err(e) => {
                let refused = LocalError::Argument(format!(
                    "the daemon cannot read this command ({e}); are the command line and the daemon the same version of Stationmaster?"
                ));
                return Ok(Some(Answer::Done(Outcome::of(Err(refused)))));
            }
        };
        if wire.protocol != PROTOCOL {
            let refused = LocalError::Argument(format!(
                "the command line speaks version {} to the daemon, which speaks {PROTOCOL}: restart the daemon with this Stationmaster",
                wire.protocol
            ));
            return Ok(Some(Answer::Done(Outcome::of(Err(refused)))));
        }
        let (tx, rx) = mpsc::channel();
        let declined = || Answer::Declined {
            why: "the daemon is stopping".to_string(),
        };
        if jobs.send((wire.request, tx)).is_err() {
            return Ok(Some(declined()));
        }
        doorbell.ring();
        Ok(Some(rx.recv().map_or_else(|_| declined(), Answer::Done)))
    })();
    match answer {
        Ok(None) => {}
        Ok(Some(answer)) => {
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
    let listening = match listen(&path, jobs, daemon.doorbell()) {
        Ok(l) => {
            tracing::info!(socket = %path.display(), "commands are taken on the socket");
            Some(l)
        }
        Err(e) => {
            tracing::warn!(socket = %path.display(), error = %e, "no command socket: commands cannot run while the daemon runs");
            None
        }
    };
    let ran = daemon.run_with(stop, clock, &mut |d| {
        while let Ok((mut request, reply)) = requests.try_recv() {
            // A command without `--now` runs at the daemon's time, so a
            // daemon on a set clock (`run --now`) and the command line
            // agree on what is due; an explicit `--now` still wins.
            request.now = request.now.or_else(|| Some(clock()));
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
