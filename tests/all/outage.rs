//! When the world around the daemon fails: an SMTP server that drops the
//! connection in the middle of a mail, an IMAP server whose connection
//! drops in the middle of a fetch, an IMAP server that says a mailbox is
//! missing and then that it exists, and a disk that fills up while mail is
//! handled. Each time nothing is lost, nothing is applied twice, and the
//! operator reads a clear sentence.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use stationmaster::config::{Config, InboundConfig, OutboundConfig, OutboundKind, Security};
use stationmaster::daemon::{self, Daemon};
use stationmaster::engine::{PlayerSetup, Setup};
use stationmaster::mail::templates::Templates;
use stationmaster::mail::transport::{Imap, MemoryInbound, Smtp};
use stationmaster::mail::{OutMail, Outbound, TransportError};
use stationmaster::registry::BoardSource;
use stationmaster::store::Store;
use tempfile::TempDir;

use crate::stack;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-21T18:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn setup() -> Setup {
    Setup {
        kind: "rocket".into(),
        players: ["alice", "bob"]
            .iter()
            .map(|n| PlayerSetup {
                name: n.to_string(),
                email: format!("{n}@example.org"),
            })
            .collect(),
        options: vec![],
        seed: 7,
    }
}

/// How a [`FlakySmtp`] behaves.
#[derive(Clone, Copy, Default)]
struct Behaviour {
    /// The first this many connections break after `DATA`.
    drops: usize,
    /// PIPELINING is offered in the EHLO reply.
    pipelining: bool,
    /// After each mail taken the server hangs up without a word, as one
    /// that closed an idle session would be found by the next mail.
    hang_up_after_mail: bool,
    /// The server takes this many mails a session, then answers `MAIL` with
    /// `452 4.5.3 Too many messages sent` (OpenSMTPD takes 100).
    mails_per_session: Option<usize>,
}

/// A small SMTP server on loopback, one connection at a time, that behaves
/// as [`Behaviour`] says. It keeps the messages it took (as a server reads
/// DATA: the closing dot line gone, a doubled leading dot made one), and
/// counts the connections and the envelopes that came pipelined (`MAIL`
/// read with its `DATA` already waiting behind it).
struct FlakySmtp {
    port: u16,
    messages: Arc<Mutex<Vec<String>>>,
    connections: Arc<AtomicUsize>,
    pipelined: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl FlakySmtp {
    fn start(drops: usize) -> FlakySmtp {
        FlakySmtp::with(Behaviour {
            drops,
            ..Behaviour::default()
        })
    }

    fn with(behaviour: Behaviour) -> FlakySmtp {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let messages = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let pipelined = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (t, c, p, s) = (
            messages.clone(),
            connections.clone(),
            pipelined.clone(),
            stop.clone(),
        );
        std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let n = c.fetch_add(1, Ordering::SeqCst);
                        stream.set_nonblocking(false).unwrap();
                        let _ = serve(stream, n < behaviour.drops, behaviour, &t, &p);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        FlakySmtp {
            port,
            messages,
            connections,
            pipelined,
            stop,
        }
    }

    fn smtp(&self) -> Smtp {
        Smtp::connect(&OutboundConfig {
            kind: OutboundKind::Smtp,
            host: "127.0.0.1".into(),
            port: self.port,
            security: Security::Plain,
            ..OutboundConfig::default()
        })
        .unwrap()
    }

    /// The Message-IDs of the messages taken, in order.
    fn taken(&self) -> Vec<String> {
        self.messages()
            .iter()
            .filter_map(|m| {
                m.lines()
                    .find_map(|l| l.strip_prefix("Message-ID:"))
                    .map(|v| v.trim().trim_matches(['<', '>']).to_string())
            })
            .collect()
    }

    /// The messages taken, in order.
    fn messages(&self) -> Vec<String> {
        self.messages.lock().unwrap().clone()
    }
}

impl Drop for FlakySmtp {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// One SMTP conversation; `drop_in_data` cuts it after `DATA`.
fn serve(
    stream: TcpStream,
    drop_in_data: bool,
    behaviour: Behaviour,
    messages: &Mutex<Vec<String>>,
    pipelined: &AtomicUsize,
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut out = stream.try_clone()?;
    let mut lines = BufReader::new(stream);
    out.write_all(b"220 flaky.test ESMTP\r\n")?;
    let mut line = String::new();
    let mut mails = 0;
    loop {
        line.clear();
        if lines.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let verb = line.trim().to_ascii_uppercase();
        if verb.starts_with("EHLO") || verb.starts_with("HELO") {
            if behaviour.pipelining {
                out.write_all(b"250-flaky.test\r\n250-PIPELINING\r\n250 8BITMIME\r\n")?;
            } else {
                out.write_all(b"250-flaky.test\r\n250 8BITMIME\r\n")?;
            }
        } else if verb.starts_with("MAIL") {
            if String::from_utf8_lossy(lines.buffer()).contains("DATA\r\n") {
                pipelined.fetch_add(1, Ordering::SeqCst);
            }
            if behaviour.mails_per_session.is_some_and(|n| mails >= n) {
                out.write_all(b"452 4.5.3 Too many messages sent\r\n")?;
                continue;
            }
            out.write_all(b"250 ok\r\n")?;
        } else if verb.starts_with("RCPT") || verb.starts_with("RSET") {
            out.write_all(b"250 ok\r\n")?;
        } else if verb == "DATA" {
            if drop_in_data {
                // The connection breaks in the middle of the mail.
                out.write_all(b"354 go on\r\n")?;
                let mut some = [0u8; 64];
                let _ = lines.read(&mut some);
                return Ok(());
            }
            out.write_all(b"354 go on\r\n")?;
            let mut message = String::new();
            loop {
                line.clear();
                if lines.read_line(&mut line)? == 0 {
                    return Ok(());
                }
                if line == ".\r\n" {
                    break;
                }
                // RFC 5321 4.5.2: a line's doubled leading dot is one.
                message.push_str(line.strip_prefix('.').unwrap_or(&line));
            }
            messages.lock().unwrap().push(message);
            mails += 1;
            out.write_all(b"250 taken\r\n")?;
            if behaviour.hang_up_after_mail {
                return Ok(());
            }
        } else if verb == "QUIT" {
            out.write_all(b"221 bye\r\n")?;
            return Ok(());
        } else {
            out.write_all(b"250 ok\r\n")?;
        }
    }
}

/// A plain mail with this Message-ID.
fn out_mail(id: &str) -> OutMail {
    OutMail {
        from: "sm@example.org".into(),
        to: vec!["a@example.org".into(), "b@example.org".into()],
        message_id: id.into(),
        bytes: format!(
            "From: sm@example.org\r\nTo: a@example.org\r\nSubject: x\r\n\
             Message-ID: <{id}>\r\n\r\nbuild 3 l5\r\n.leading dot\r\n"
        )
        .into_bytes(),
        shared: None,
    }
}

#[test]
fn smtp_mails_share_one_connection_and_their_envelopes_are_pipelined_when_offered() {
    for pipelining in [true, false] {
        let server = FlakySmtp::with(Behaviour {
            pipelining,
            ..Behaviour::default()
        });
        let mut smtp = server.smtp();
        let ids: Vec<String> = (0..5).map(|n| format!("m{n}@example.org")).collect();
        for id in &ids {
            smtp.send(&out_mail(id)).unwrap();
        }
        assert_eq!(server.taken(), ids, "pipelining offered: {pipelining}");
        assert_eq!(smtp.connections(), 1);
        assert_eq!(server.connections.load(Ordering::SeqCst), 1);
        let expected = if pipelining { ids.len() } else { 0 };
        assert_eq!(server.pipelined.load(Ordering::SeqCst), expected);
    }
}

#[test]
fn smtp_sends_a_message_as_written_whatever_its_line_ends_and_leading_dots() {
    // RFC 5321 4.5.2: each line ends in CRLF on the wire, a leading dot is
    // doubled (so a line of one dot does not end the message early), and
    // the server reads back the message as it was, CRLF for each end.
    let server = FlakySmtp::with(Behaviour::default());
    let mut smtp = server.smtp();
    let bodies: [&[u8]; 5] = [
        b".\r\n..two\r\nplain\r\n.",
        b"bare\nends\n.\n\nlast line without an end",
        b"mixed\r\nends\n\r\n. dot space\n",
        b"a \r in the middle\r\n.\r\n",
        b"a carriage return at the very end\r",
    ];
    let mut expected = Vec::new();
    for (n, body) in bodies.iter().enumerate() {
        let id = format!("lines{n}@example.org");
        let mut mail = out_mail(&id);
        let head =
            format!("From: sm@example.org\r\nTo: a@example.org\r\nMessage-ID: <{id}>\r\n\r\n");
        mail.bytes = [head.as_bytes(), body].concat();
        smtp.send(&mail).unwrap();
        let mut text = String::from_utf8(mail.bytes).unwrap().replace("\r\n", "\n");
        if !text.ends_with('\n') {
            text.push('\n');
        }
        expected.push(text.replace('\n', "\r\n"));
    }
    assert_eq!(server.messages(), expected);
}

#[test]
fn a_connection_the_server_closed_between_mails_is_replaced_and_no_mail_goes_twice() {
    let server = FlakySmtp::with(Behaviour {
        pipelining: true,
        hang_up_after_mail: true,
        ..Behaviour::default()
    });
    let mut smtp = server.smtp();
    let ids: Vec<String> = (0..4).map(|n| format!("h{n}@example.org")).collect();
    for id in &ids {
        smtp.send(&out_mail(id)).unwrap();
    }
    // Each mail after the first found its connection closed, and went on a
    // new one: once each.
    assert_eq!(server.taken(), ids);
    assert_eq!(smtp.connections(), 4);
}

#[test]
fn a_server_that_takes_a_few_mails_a_session_gets_a_new_session_for_the_rest() {
    for pipelining in [true, false] {
        let server = FlakySmtp::with(Behaviour {
            pipelining,
            mails_per_session: Some(3),
            ..Behaviour::default()
        });
        let mut smtp = server.smtp();
        let ids: Vec<String> = (0..7).map(|n| format!("s{n}@example.org")).collect();
        for id in &ids {
            smtp.send(&out_mail(id)).unwrap();
        }
        assert_eq!(server.taken(), ids, "pipelining offered: {pipelining}");
        assert_eq!(smtp.connections(), 3);
    }
}

#[test]
fn a_connection_broken_inside_a_mail_is_not_tried_again_by_the_transport() {
    // The first connection breaks after DATA: the message may have been
    // taken, so the transport returns the error (the outbox tries later)
    // rather than sending it again at once.
    let server = FlakySmtp::with(Behaviour {
        drops: 1,
        pipelining: true,
        ..Behaviour::default()
    });
    let mut smtp = server.smtp();
    let e = smtp.send(&out_mail("d0@example.org")).unwrap_err();
    assert!(e.is_transient(), "{e:?}");
    assert!(server.taken().is_empty());
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
    smtp.send(&out_mail("d1@example.org")).unwrap();
    smtp.send(&out_mail("d2@example.org")).unwrap();
    assert_eq!(server.taken(), ["d1@example.org", "d2@example.org"]);
    assert_eq!(smtp.connections(), 2);
}

#[test]
fn an_smtp_server_that_drops_the_connection_mid_mail_loses_nothing() {
    let server = FlakySmtp::start(3);
    let dir = TempDir::new().unwrap();
    let mut config = Config::default();
    config.mail.address = "sm@example.org".into();
    let smtp = Smtp::connect(&OutboundConfig {
        kind: OutboundKind::Smtp,
        host: "127.0.0.1".into(),
        port: server.port,
        security: Security::Plain,
        ..OutboundConfig::default()
    })
    .unwrap();
    let inbox = MemoryInbound::new();
    let mut d = Daemon::new(
        Store::open(&dir.path().join("db")).unwrap(),
        config,
        Templates::load(None).unwrap(),
        BoardSource::embedded(),
        Box::new(inbox.clone()),
        Box::new(smtp),
    );
    let id = daemon::create_game(&d.ctx(), &setup(), Default::default(), vec![], now()).unwrap();
    let queued = d.store().outbox_len();
    assert_eq!(queued, 2, "two welcome mails wait");
    // The first sends break in the middle: the mails stay in the outbox.
    let r = d.process(now(), &AtomicBool::new(false)).unwrap();
    assert!(r.failed > 0, "{r:?}");
    assert!(server.connections.load(Ordering::SeqCst) >= 1);
    // Later the server takes mail: every welcome goes, once each.
    let mut t = now();
    for _ in 0..10 {
        if d.store().outbox_len() == 0 {
            break;
        }
        t += chrono::Duration::minutes(70);
        d.process(t, &AtomicBool::new(false)).unwrap();
    }
    assert_eq!(d.store().outbox_len(), 0, "mail left unsent");
    let mut taken = server.taken();
    taken.sort();
    taken.dedup();
    assert_eq!(taken.len(), 2, "{taken:?}");
    assert!(taken.iter().all(|m| m.starts_with(&format!("{id}."))));
}

/// A TCP proxy in front of `upstream` that cuts its first connection as
/// soon as the client asks for message bodies (`UID FETCH`), and passes
/// every later connection through.
fn cutting_proxy(upstream: u16) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for (n, client) in listener.incoming().enumerate() {
            let Ok(client) = client else { continue };
            let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else {
                continue;
            };
            let cut = n == 0;
            let (mut c_read, mut s_write) =
                (client.try_clone().unwrap(), server.try_clone().unwrap());
            let (mut s_read, mut c_write) = (server, client);
            std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                let mut seen = Vec::new();
                while let Ok(k) = c_read.read(&mut buf) {
                    if k == 0 {
                        break;
                    }
                    seen.extend_from_slice(&buf[..k]);
                    if cut
                        && String::from_utf8_lossy(&seen)
                            .to_ascii_uppercase()
                            .contains("UID FETCH")
                    {
                        let _ = c_read.shutdown(std::net::Shutdown::Both);
                        let _ = s_write.shutdown(std::net::Shutdown::Both);
                        break;
                    }
                    if s_write.write_all(&buf[..k]).is_err() {
                        break;
                    }
                }
            });
            std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(k) = s_read.read(&mut buf) {
                    if k == 0 || c_write.write_all(&buf[..k]).is_err() {
                        break;
                    }
                }
            });
        }
    });
    port
}

#[test]
fn an_imap_connection_dropped_mid_fetch_loses_nothing_and_applies_nothing_twice() {
    let Some(st) = stack::stack_alone() else {
        return;
    };
    let dir = TempDir::new().unwrap();
    let proxy = cutting_proxy(st.imap);
    let config = format!(
        "[mail]\naddress = \"stationmaster@example.test\"\n\
         [inbound]\nkind = \"imap\"\nhost = \"127.0.0.1\"\nport = {proxy}\nsecurity = \"plain\"\n\
         user = \"gm\"\npassword = \"gmpw\"\n\
         [outbound]\nkind = \"files\"\ndir = \"out\"\n"
    );
    std::fs::write(dir.path().join("config.toml"), config).unwrap();
    let sm = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_stationmaster"))
            .current_dir(dir.path())
            .env("STATIONMASTER_CONFIG", "config.toml")
            .env("STATIONMASTER_NOW", "2026-11-21T18:00:00Z")
            .args(args)
            .output()
            .unwrap()
    };
    let new = sm(&[
        "new",
        "rocket",
        "--player",
        "bob=bob@example.test",
        "--player",
        "alice=alice@example.test",
        "--seed",
        "7",
    ]);
    assert!(
        new.status.success(),
        "{}",
        String::from_utf8_lossy(&new.stderr)
    );
    let game = String::from_utf8_lossy(&new.stdout).trim().to_string();
    let store_key = {
        // The key is in bob's welcome mail (written to `out/`).
        let out = sm(&["process"]);
        assert!(out.status.success() || !out.status.success());
        let welcome = std::fs::read_dir(dir.path().join("out"))
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .find(|t| {
                t.contains("To: bob <bob@example.test>") || t.contains("To: bob@example.test")
            })
            .expect("bob's welcome");
        let subject = welcome
            .lines()
            .find(|l| l.starts_with("Subject:"))
            .unwrap()
            .to_string();
        let start = subject.find(&format!("[{game} ")).unwrap() + game.len() + 2;
        subject[start..].split(']').next().unwrap().to_string()
    };
    // bob's order, delivered to gm's mailbox by the stack's SMTP server.
    let subject = format!("Re: [{game} {store_key}] outage");
    let mid = format!("outage.{}@example.test", std::process::id());
    let raw = format!(
        "From: bob@example.test\r\nTo: gm@example.test\r\nSubject: {subject}\r\nMessage-ID: <{mid}>\r\n\r\ntoken manchester textiles\r\n"
    );
    let mut smtp = TcpStream::connect(("127.0.0.1", st.smtp)).unwrap();
    let mut lines = BufReader::new(smtp.try_clone().unwrap());
    let mut reply = String::new();
    let mut talk = |say: &str| {
        if !say.is_empty() {
            smtp.write_all(say.as_bytes()).unwrap();
        }
        reply.clear();
        loop {
            let mut l = String::new();
            lines.read_line(&mut l).unwrap();
            let more = l.as_bytes().get(3) == Some(&b'-');
            reply.push_str(&l);
            if !more {
                break;
            }
        }
        reply.clone()
    };
    talk("");
    talk("EHLO test\r\n");
    talk("MAIL FROM:<bob@example.test>\r\n");
    talk("RCPT TO:<gm@example.test>\r\n");
    talk("DATA\r\n");
    assert!(talk(&format!("{raw}.\r\n")).starts_with("250"), "{reply}");
    talk("QUIT\r\n");
    // Wait for delivery, then: the first run's fetch is cut.
    let mut applied = false;
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(100));
        let out = sm(&["process"]);
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        if text.contains("1 changed a game") {
            applied = true;
            break;
        }
    }
    assert!(applied, "the order was never applied");
    // Once, whatever the cut did.
    let log = sm(&["log", &game, "--json"]);
    let entries: serde_json::Value = serde_json::from_slice(&log.stdout).unwrap();
    let from_mail = entries
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["source"] == serde_json::Value::String(mid.clone()))
        .count();
    assert_eq!(from_mail, 1);
    let again = sm(&["process"]);
    assert!(String::from_utf8_lossy(&again.stdout).starts_with("0 mail(s) read"));
}

/// The full-disk script: run inside a private mount namespace on a small
/// tmpfs (12 MB: room for the 40 replies, each with the board's picture,
/// and the database's log once the disk is freed; at 8 MB two replies
/// sometimes found no room yet), it makes a game, queues 40 mails (one with
/// an order), fills the disk to within SLACK_KB, runs `process` (which
/// stops with a clear sentence, or leaves its replies waiting), frees the
/// disk, runs `process` twice more (the second after the retry delay), and
/// copies what came of it to OUT. A run that hangs is stopped after two
/// minutes (its code is then 124): sled 0.34.7 could wait for ever for a
/// write the full disk had failed (see `store::recovery`).
const FULL_DISK: &str = r#"
set -u
B=$1; OUT=$2; SLACK_KB=$3
D=$(mktemp -d)
mount -t tmpfs -o size=12m tmpfs "$D" || exit 77
cd "$D"
export RUST_LOG=stationmaster=warn
export STATIONMASTER_NOW=2026-11-21T18:00:00Z
"$B" new rocket --player bob=bob@example.org --player alice=alice@example.org --seed 7 >/dev/null
"$B" process >/dev/null
KEY=$(grep -l "^To: bob" var/outbox/*.eml | head -1 | xargs grep -m1 "^Subject:" | sed 's/.*\[rocket-1 \([a-z0-9]*\)\].*/\1/')
mkdir -p var/inbox/new
for i in $(seq 1 40); do
  body=map; [ "$i" = 20 ] && body="token manchester textiles"
  printf 'From: bob@example.org\r\nSubject: Re: [rocket-1 %s] x\r\nMessage-ID: <m%s@example.org>\r\n\r\n%s\r\n' "$KEY" "$i" "$body" > "var/inbox/new/$(printf %04d "$i").mail"
done
dd if=/dev/zero of=filler bs=4k 2>/dev/null
S=$(stat -c %s filler); rm filler; head -c $((S - SLACK_KB * 1024)) /dev/zero > filler
timeout 120 "$B" process > "$OUT/run1.out" 2> "$OUT/run1.err"; echo $? > "$OUT/run1.code"
rm -f filler
timeout 120 "$B" process > "$OUT/run2.out" 2> "$OUT/run2.err"; echo $? > "$OUT/run2.code"
STATIONMASTER_NOW=2026-11-21T18:05:00Z timeout 120 "$B" process > "$OUT/run3.out" 2> "$OUT/run3.err"; echo $? > "$OUT/run3.code"
"$B" verify rocket-1 > "$OUT/verify.out" 2>&1
"$B" log rocket-1 --json > "$OUT/log.json" 2>&1
cat var/outbox/*.eml | grep -i "^In-Reply-To:" | sort -u > "$OUT/replied.txt"
cd /; umount "$D"
"#;

/// An IMAP server for one session, that answers each command as `answer`
/// says (untagged lines, then the tagged result without its tag), and keeps
/// the commands it was sent.
fn scripted_imap(
    answer: impl Fn(&str, usize) -> String + Send + 'static,
) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let commands = Arc::new(Mutex::new(Vec::new()));
    let kept = commands.clone();
    std::thread::spawn(move || {
        let Ok((stream, _)) = listener.accept() else {
            return;
        };
        let mut out = stream.try_clone().unwrap();
        let _ = out.write_all(b"* OK [CAPABILITY IMAP4rev1] scripted ready\r\n");
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            let (tag, command) = line.split_once(' ').unwrap_or((&line, ""));
            let seen = {
                let mut kept = kept.lock().unwrap();
                kept.push(command.to_string());
                kept.iter().filter(|c| same_verb(c, command)).count()
            };
            let reply = answer(command, seen);
            let (untagged, result) = reply.rsplit_once('\n').unwrap_or(("", &reply));
            let text = if untagged.is_empty() {
                format!("{tag} {result}\r\n")
            } else {
                format!("{}\r\n{tag} {result}\r\n", untagged.replace('\n', "\r\n"))
            };
            if out.write_all(text.as_bytes()).is_err() || command.starts_with("LOGOUT") {
                break;
            }
        }
    });
    (port, commands)
}

fn verb(command: &str) -> &str {
    command.split(' ').next().unwrap_or("")
}

/// The verbs of the commands a scripted server was sent, but CAPABILITY
/// (asked or not, as the server's greeting has it).
fn verbs_sent(commands: &Mutex<Vec<String>>) -> Vec<String> {
    commands
        .lock()
        .unwrap()
        .iter()
        .map(|c| verb(c).to_ascii_uppercase())
        .filter(|v| v != "CAPABILITY")
        .collect()
}

/// A scripted server's answers where `mailbox` is missing at the first
/// STATUS and there by the time CREATE is tried (another session made it).
fn created_meanwhile(mailbox: &'static str, command: &str, seen: usize) -> Option<String> {
    match verb(command).to_ascii_uppercase().as_str() {
        "STATUS" if seen == 1 => Some(format!("NO Mailbox doesn't exist: {mailbox}")),
        "STATUS" => Some(format!("* STATUS {mailbox} (MESSAGES 0)\nOK done")),
        "CREATE" => Some("NO [ALREADYEXISTS] Mailbox already exists".to_string()),
        _ => None,
    }
}

fn same_verb(a: &str, b: &str) -> bool {
    verb(a).eq_ignore_ascii_case(verb(b))
}

/// The scripted server's answers that do not change: login, capabilities,
/// an empty INBOX.
fn plain_answer(command: &str) -> String {
    match verb(command).to_ascii_uppercase().as_str() {
        "LOGIN" => "OK logged in".to_string(),
        "CAPABILITY" => "* CAPABILITY IMAP4rev1 MOVE UIDPLUS\nOK done".to_string(),
        "SELECT" => "* FLAGS (\\Seen \\Deleted)\n* 0 EXISTS\n* 0 RECENT\n\
                     * OK [UIDVALIDITY 7] valid\n* OK [UIDNEXT 1] next\n\
                     OK [READ-WRITE] selected"
            .to_string(),
        "LOGOUT" => "* BYE bye\nOK done".to_string(),
        _ => "BAD not scripted".to_string(),
    }
}

fn scripted_cfg(port: u16) -> InboundConfig {
    let mut cfg = crate::transport::imap_cfg(port, Security::Plain, "alice", "alicepw");
    cfg.processed_mailbox = "Processed".to_string();
    cfg
}

/// Seen once in CI against Dovecot: STATUS said NO for the processed
/// mailbox, and CREATE then said it already existed. Two daemons starting
/// at once race the same way. A mailbox that is there is as good as one we
/// made.
#[test]
fn a_processed_mailbox_created_by_someone_else_meanwhile_is_used() {
    let (port, commands) = scripted_imap(|command, seen| {
        created_meanwhile("Processed", command, seen).unwrap_or_else(|| plain_answer(command))
    });
    let imap = Imap::connect(&scripted_cfg(port)).unwrap();
    imap.logout().unwrap();
    let verbs = verbs_sent(&commands);
    assert_eq!(
        verbs,
        ["LOGIN", "STATUS", "CREATE", "STATUS", "SELECT", "LOGOUT"]
    );
}

/// The quarantine mailbox is found or made the same way when a mail is
/// first put there: one that appeared meanwhile is used, and the mail goes.
#[test]
fn a_quarantine_mailbox_created_by_someone_else_meanwhile_is_used() {
    use stationmaster::mail::Inbound;
    let (port, commands) = scripted_imap(|command, seen| {
        if command.to_ascii_uppercase().starts_with("UID MOVE 7 ") {
            return "OK moved".to_string();
        }
        created_meanwhile("Quarantine", command, seen).unwrap_or_else(|| plain_answer(command))
    });
    let mut cfg = scripted_cfg(port);
    cfg.processed_mailbox = String::new();
    let mut imap = Imap::connect(&cfg).unwrap();
    imap.quarantine("7").unwrap();
    let verbs = verbs_sent(&commands);
    assert_eq!(
        verbs,
        ["LOGIN", "SELECT", "STATUS", "CREATE", "STATUS", "UID"]
    );
}

/// A processed mailbox that cannot be made is a clear error at start,
/// naming the mailbox and the server's reason.
#[test]
fn a_processed_mailbox_that_cannot_be_created_is_a_clear_error() {
    let (port, _) = scripted_imap(
        |command, _| match verb(command).to_ascii_uppercase().as_str() {
            "STATUS" => "NO Mailbox doesn't exist: Processed".to_string(),
            "CREATE" => "NO [NOPERM] You may not create mailboxes".to_string(),
            _ => plain_answer(command),
        },
    );
    let err = Imap::connect(&scripted_cfg(port)).err().unwrap();
    assert!(
        matches!(
            err,
            TransportError::Refused {
                transient: false,
                ..
            }
        ),
        "{err:?}"
    );
    let err = err.to_string();
    assert!(
        err.contains("cannot create the processed_mailbox Processed")
            && err.contains("You may not create mailboxes"),
        "{err}"
    );
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_default()
}

#[test]
fn a_full_disk_gives_a_clear_error_and_leaves_nothing_half_applied() {
    // No room at all: the database cannot even open. A little room: the
    // mails are handled until the disk runs out.
    for slack_kb in ["0", "64"] {
        full_disk(slack_kb);
    }
}

fn full_disk(slack_kb: &str) {
    let out = TempDir::new().unwrap();
    let status = Command::new("unshare")
        .args(["-m", "sh", "-c", FULL_DISK, "full-disk"])
        .arg(env!("CARGO_BIN_EXE_stationmaster"))
        .arg(out.path())
        .arg(slack_kb)
        .status();
    let ran = status.is_ok_and(|s| s.code() != Some(77));
    if !ran || read(out.path(), "run1.code").is_empty() {
        eprintln!(
            "skipped: a_full_disk_gives_a_clear_error_and_leaves_nothing_half_applied: \
             cannot mount a small tmpfs here (needs root and unshare)"
        );
        return;
    }
    let o = out.path();
    // Where the disk runs out decides what stops: the database (the run
    // ends with one sentence) or only the outbox folder (the run ends, and
    // the replies wait in the database to be written again).
    let err = read(o, "run1.err");
    match read(o, "run1.code").trim() {
        "0" if slack_kb == "0" => panic!("a run on a full disk succeeded:\n{err}"),
        "1" => assert!(
            err.contains("the disk is full") && err.contains("nothing was half applied"),
            "{err}"
        ),
        "0" => assert!(err.contains("No space left on device"), "{err}"),
        other => panic!("run 1 ended with {other}:\n{err}"),
    }
    for run in ["run2", "run3"] {
        assert_eq!(
            read(o, &format!("{run}.code")).trim(),
            "0",
            "{}",
            read(o, &format!("{run}.err"))
        );
    }
    assert!(
        read(o, "verify.out").contains("intact"),
        "{}",
        read(o, "verify.out")
    );
    let log: serde_json::Value = serde_json::from_str(&read(o, "log.json")).unwrap();
    let orders: Vec<&serde_json::Value> = log.as_array().unwrap().iter().collect();
    assert_eq!(orders.len(), 1, "the one order, once: {log}");
    assert_eq!(orders[0]["source"], "m20@example.org");
    let replied = read(o, "replied.txt");
    for i in 1..=40 {
        assert!(
            replied.contains(&format!("<m{i}@example.org>")),
            "mail m{i} got no reply:\n{replied}"
        );
    }
}

/// `run` stops on SIGTERM after the mail in hand, as docs/operators.md
/// promises, also while it drains the outbox towards an SMTP server that takes the
/// connection and never answers: the mails not yet sent wait for the next
/// run, instead of each holding up the stop by the server's timeout.
#[test]
fn sigterm_while_the_outbox_drains_to_a_silent_server_stops_after_the_mail_in_hand() {
    // A server that accepts and says nothing; what it holds is let go
    // once the test says so (the mail in hand then fails at once), and
    // every later connection is held again.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let let_go = Arc::new(AtomicBool::new(false));
    let over = Arc::new(AtomicBool::new(false));
    let server = {
        let (accepted, let_go, over) = (accepted.clone(), let_go.clone(), over.clone());
        std::thread::spawn(move || {
            let mut held: Vec<TcpStream> = Vec::new();
            while !over.load(Ordering::SeqCst) {
                if let Ok((s, _)) = listener.accept() {
                    accepted.fetch_add(1, Ordering::SeqCst);
                    held.push(s);
                }
                if let_go.swap(false, Ordering::SeqCst) {
                    held.clear();
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("config.toml"),
        format!(
            "[daemon]\npoll_seconds = 1\n[outbound]\nkind = \"smtp\"\nhost = \"127.0.0.1\"\nport = {port}\nsecurity = \"plain\"\n"
        ),
    )
    .unwrap();
    let sm = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_stationmaster"))
            .current_dir(dir.path())
            .env("STATIONMASTER_CONFIG", "config.toml")
            .env_remove("RUST_LOG")
            .args(args)
            .output()
            .unwrap()
    };
    // Four welcome mails wait in the outbox.
    let out = sm(&[
        "new",
        "rocket",
        "--player",
        "a=a@x.org",
        "--player",
        "b=b@x.org",
        "--player",
        "c=c@x.org",
        "--player",
        "d=d@x.org",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_stationmaster"))
        .current_dir(dir.path())
        .env("STATIONMASTER_CONFIG", "config.toml")
        .env_remove("RUST_LOG")
        .arg("run")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while accepted.load(Ordering::SeqCst) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the daemon never connected"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The first mail is in hand: stop the daemon, then let that mail fail.
    let _ = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    std::thread::sleep(Duration::from_millis(200));
    let_go.store(true, Ordering::SeqCst);
    let stopping = std::time::Instant::now();
    let ended = loop {
        if let Some(status) = daemon.try_wait().unwrap() {
            break Some(status);
        }
        if stopping.elapsed() > Duration::from_secs(20) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    if ended.is_none() {
        let _ = daemon.kill();
        let _ = daemon.wait();
    }
    over.store(true, Ordering::SeqCst);
    server.join().unwrap();
    let status = ended.expect("the daemon was still sending 20 s after SIGTERM");
    assert!(status.success(), "{status:?}");
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "it went on to the next mail"
    );
    // The four mails wait in the database for the next run.
    let exported = sm(&["export", "-"]);
    let json: serde_json::Value = serde_json::from_slice(&exported.stdout).unwrap();
    assert_eq!(json["outbox"].as_array().map(Vec::len), Some(4), "{json}");
}

/// An SMTP server that takes the connection and never answers is named
/// so in the log: "no answer within 2 s", not the system's words for a
/// read that timed out ("Resource temporarily unavailable (os error 11)"),
/// after `[outbound] timeout_seconds`, not the default 30 s.
#[test]
fn an_smtp_server_that_never_answers_is_said_to_give_no_answer() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = std::thread::spawn(move || listener.accept().map(|(s, _)| s));
    let mut smtp = Smtp::connect(&OutboundConfig {
        kind: OutboundKind::Smtp,
        host: "127.0.0.1".into(),
        port,
        security: Security::Plain,
        timeout_seconds: 2,
        ..OutboundConfig::default()
    })
    .unwrap();
    let asked = std::time::Instant::now();
    let e = smtp.send(&out_mail("silent@example.org")).unwrap_err();
    let waited = asked.elapsed();
    drop(held.join());
    assert!(e.is_transient(), "{e:?}");
    let text = e.to_string();
    assert!(text.contains("no answer within 2 s"), "{text}");
    // The configured timeout, not the default: well short of 30 s.
    assert!(waited < std::time::Duration::from_secs(20), "{waited:?}");
    assert!(!text.contains("os error"), "{text}");
}
