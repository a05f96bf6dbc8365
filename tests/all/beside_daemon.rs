//! The command line beside the daemon (issue 12): while `stationmaster
//! run` holds the database, every command hands its work to the daemon over
//! the socket `var/db.sock`, and prints the same, with the same exit code,
//! as on a database with no daemon running. A socket left by a killed
//! daemon does not confuse the command line, and a database held by a
//! process that does not answer is named in one sentence, never as sled's
//! lock error.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

const NOW: &str = "2026-11-21T18:00:00Z";

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_stationmaster"))
}

/// A folder with a config that polls every second, on the embedded default.
fn folder() -> TempDir {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("config.toml"),
        "[daemon]\npoll_seconds = 1\n",
    )
    .unwrap();
    dir
}

fn command(dir: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(binary());
    c.current_dir(dir)
        .env("STATIONMASTER_CONFIG", "config.toml")
        .env("STATIONMASTER_NOW", NOW)
        .env_remove("RUST_LOG");
    c
}

fn sm(dir: &Path, args: &[&str]) -> Output {
    command(dir).args(args).output().unwrap()
}

/// `stationmaster run` in `dir`, stopped with SIGTERM when dropped.
struct Running {
    child: Child,
    socket: PathBuf,
}

impl Running {
    fn start(dir: &Path) -> Running {
        Running::with_log(dir, Stdio::null())
    }

    /// With its log (stderr) written to `log`.
    fn logging_to(dir: &Path, log: &Path) -> Running {
        Running::with_log(dir, std::fs::File::create(log).unwrap().into())
    }

    fn with_log(dir: &Path, log: Stdio) -> Running {
        let socket = dir.join("var/db.sock");
        let child = command(dir)
            .arg("run")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let started = Instant::now();
        while !socket.exists() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the daemon made no socket"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Running { child, socket }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGTERM, and waits for the daemon to end: whether it ended well.
    fn stop(mut self) -> bool {
        self.terminate()
    }

    fn terminate(&mut self) -> bool {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        self.child.wait().is_ok_and(|s| s.success())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.terminate();
        }
    }
}

/// What a command printed and its exit code.
fn seen(out: &Output) -> (String, String, Option<i32>) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// Every command that reads or changes games, with refusals and errors.
const SCRIPT: &[&[&str]] = &[
    &["games"],
    &[
        "new",
        "rocket",
        "--player",
        "alice=alice@example.org",
        "--player",
        "bob=bob@example.org",
        "--player",
        "cecil=cecil@example.org",
        "--seed",
        "7",
        "--turn",
        "72h",
    ],
    &["games"],
    &[
        "order",
        "rocket-1",
        "--as",
        "bob",
        "token manchester textiles\nextend ly b4",
    ],
    &["order", "rocket-1", "--as", "alice", "token london steel"],
    &["order", "rocket-1", "--as", "cecil", "help"],
    &["show", "rocket-1", "--json"],
    &["show", "rocket-1", "--as", "bob"],
    &["show", "rocket-1", "--as", "cecil", "--json"],
    &["log", "rocket-1"],
    &["log", "rocket-1", "--json", "--turns", "1..2"],
    &["mod", "rocket-1", "--why", "a word", "note", "play on, all"],
    &["mod", "rocket-1", "extend", "24h"],
    &["mod", "rocket-1", "dance"],
    &["verify", "rocket-1"],
    &["show", "rocket-9"],
    &["order", "rocket-1", "--as", "dave", "pass"],
    &["new", "rocket", "--player", "solo=solo@example.org"],
    &["log", "rocket-1", "--turns", "x"],
    &["games"],
];

#[test]
fn every_command_prints_the_same_with_the_daemon_running_as_without() {
    let with = folder();
    let without = folder();
    let daemon = Running::start(with.path());
    let mode = std::fs::metadata(&daemon.socket)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "the socket is the operator's alone");
    for args in SCRIPT {
        let beside = seen(&sm(with.path(), args));
        let alone = seen(&sm(without.path(), args));
        assert_eq!(beside, alone, "stationmaster {args:?}");
        assert!(
            !beside.1.contains("lock"),
            "a lock error reached the user: {}",
            beside.1
        );
    }
    // The codes the script expects: refusals 2, errors 1.
    let code = |args: &[&str]| sm(with.path(), args).status.code();
    assert_eq!(
        code(&["order", "rocket-1", "--as", "alice", "token london steel"]),
        Some(2)
    );
    assert_eq!(code(&["show", "rocket-9"]), Some(1));
    daemon.stop();
    assert!(
        !with.path().join("var/db.sock").exists(),
        "the socket is removed when the daemon stops"
    );
    // What the daemon wrote is what the command line wrote alone.
    for args in [
        &["show", "rocket-1", "--json", "--as", "alice"][..],
        &["log", "rocket-1", "--json"],
        &["verify", "rocket-1"],
        &["games"],
    ] {
        assert_eq!(
            seen(&sm(with.path(), args)),
            seen(&sm(without.path(), args)),
            "stationmaster {args:?} after the daemon stopped"
        );
    }
}

#[test]
fn a_socket_left_by_a_killed_daemon_does_not_confuse_the_command_line() {
    let dir = folder();
    let mut daemon = Running::start(dir.path());
    daemon.child.kill().unwrap();
    daemon.child.wait().unwrap();
    assert!(daemon.socket.exists(), "kill -9 leaves the socket behind");
    let out = sm(dir.path(), &["games"]);
    assert_eq!(out.status.code(), Some(0), "{}", seen(&out).1);
    assert!(String::from_utf8_lossy(&out.stdout).contains("No games yet"));
    // A new daemon takes the place of the old socket.
    let daemon = Running::start(dir.path());
    let out = sm(
        dir.path(),
        &[
            "new",
            "rocket",
            "--player",
            "a=a@example.org",
            "--player",
            "b=b@example.org",
        ],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "rocket-1\n");
    daemon.stop();
}

#[test]
fn a_database_held_by_a_process_that_does_not_answer_is_named_in_one_sentence() {
    let dir = folder();
    let daemon = Running::start(dir.path());
    // The daemon holds the database, but its socket is gone.
    std::fs::remove_file(&daemon.socket).unwrap();
    let out = sm(dir.path(), &["games"]);
    let (_, err, code) = seen(&out);
    assert_eq!(code, Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("another Stationmaster process")
            && err.contains(&format!("(pid {})", daemon.pid()))
            && err.contains("var/db.sock"),
        "{err}"
    );
    assert!(!err.contains("acquire lock"), "{err}");
    daemon.stop();
}

#[test]
fn commands_that_need_the_database_to_themselves_say_the_daemon_runs() {
    let dir = folder();
    let daemon = Running::start(dir.path());
    for args in [&["run"][..], &["process"], &["demo"]] {
        let (_, err, code) = seen(&sm(dir.path(), args));
        assert_eq!(code, Some(1), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "the Stationmaster daemon (pid {}) is running",
                daemon.pid()
            )),
            "{args:?}: {err}"
        );
    }
    let check = seen(&sm(dir.path(), &["check-config"]));
    assert_eq!(check.2, Some(0), "{}", check.1);
    assert!(
        check.0.contains("is open in the running daemon"),
        "{}",
        check.0
    );
    daemon.stop();
}

#[test]
fn export_works_while_the_daemon_runs_and_import_is_refused_in_one_sentence() {
    let dir = folder();
    let d = dir.path();
    let daemon = Running::start(d);
    for args in &SCRIPT[..4] {
        sm(d, args);
    }
    let out = sm(d, &["export", "running.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", seen(&out).1);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Exported 1 game(s)"));
    let out = sm(d, &["export"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["games"][0]["id"], "rocket-1");
    let (_, err, code) = seen(&sm(d, &["import", "--replace", "running.json"]));
    assert_eq!(code, Some(1));
    assert!(
        err.contains(&format!(
            "the Stationmaster daemon (pid {}) is running on the database in var/db; stop it",
            daemon.pid()
        )),
        "{err}"
    );
    daemon.stop();
    // The export taken while it ran makes the same games elsewhere.
    let elsewhere = folder();
    let e = elsewhere.path();
    let copy = d.join("running.json");
    let out = sm(e, &["import", copy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", seen(&out).1);
    for args in [
        &["games"][..],
        &["show", "rocket-1", "--json", "--as", "bob"],
    ] {
        assert_eq!(seen(&sm(e, args)), seen(&sm(d, args)), "{args:?}");
    }
    assert!(String::from_utf8_lossy(&sm(e, &["verify", "rocket-1"]).stdout).contains("intact"));
}

/// A daemon on a set clock (`run --now`) lends it to the commands it runs
/// for the command line: a deadline set from the command line without
/// `--now` is reckoned from the daemon's time, not the machine's.
#[test]
fn commands_without_now_run_at_the_daemons_time() {
    let dir = folder();
    let out = sm(
        dir.path(),
        &[
            "new",
            "rocket",
            "--player",
            "a=a@example.org",
            "--player",
            "b=b@example.org",
        ],
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "rocket-1\n");
    let daemon = Running::start(dir.path());
    // NOW is in the past: the machine's clock would call this deadline
    // long gone.
    let out = command(dir.path())
        .env_remove("STATIONMASTER_NOW")
        .args(["mod", "rocket-1", "deadline", "2026-11-22T18:00:00Z"])
        .output()
        .unwrap();
    let (_, stderr, code) = seen(&out);
    assert_eq!(code, Some(0), "{stderr}");
    let log = String::from_utf8_lossy(&sm(dir.path(), &["log", "rocket-1"]).stdout).into_owned();
    let act = log
        .lines()
        .find(|l| l.contains("deadline 2026-11-22"))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(
        act.contains("2026-11-21 18:00"),
        "at the daemon's time: {act}"
    );
    daemon.stop();
    // Nobody was passed over: at the daemon's time the deadline is ahead.
    assert!(!log.contains("missed"), "{log}");
}

#[test]
fn commands_that_only_look_for_the_daemon_leave_no_warning_in_its_log() {
    // `process`, `import` and `check-config` connect to the socket to see
    // whether a daemon listens, and go without asking anything. The
    // daemon's log (what the operator watches) must not call each of those
    // a broken pipe.
    let dir = folder();
    let log = dir.path().join("daemon.log");
    let daemon = Running::logging_to(dir.path(), &log);
    std::fs::write(dir.path().join("empty.json"), "{}").unwrap();
    for args in [
        &["process"][..],
        &["import", "empty.json"],
        &["check-config"],
    ] {
        let _ = sm(dir.path(), args);
    }
    // The daemon serves connections on a thread of its own: give it a
    // moment to see the last one go.
    std::thread::sleep(Duration::from_millis(500));
    daemon.stop();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("stopped"), "{text}");
    assert!(!text.contains("WARN"), "{text}");
}

#[test]
fn a_maildir_that_disappears_is_logged_as_a_folder_not_a_mail_server() {
    // The embedded default reads a Maildir: when it goes, the daemon goes
    // on and says what is wrong, without sending the operator to look for
    // a mail server there is none of.
    let dir = folder();
    let log = dir.path().join("daemon.log");
    let daemon = Running::logging_to(dir.path(), &log);
    std::fs::remove_dir_all(dir.path().join("var/inbox")).unwrap();
    let gone = Instant::now();
    while !std::fs::read_to_string(&log).unwrap().contains("WARN") {
        assert!(
            gone.elapsed() < Duration::from_secs(30),
            "nothing logged: {}",
            std::fs::read_to_string(&log).unwrap()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(daemon.stop(), "the daemon ended well");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("mail folder cannot be used"), "{text}");
    assert!(text.contains("var/inbox/new"), "{text}");
    assert!(!text.contains("mail server unreachable"), "{text}");
}
