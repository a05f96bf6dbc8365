//! The mail transports: Maildir and `.eml` files on temporary folders, the
//! memory transports, the refusal of unencrypted connections to anything
//! but loopback, and, against the real loopback stack of
//! `.ci/mailstack.sh` (Dovecot + OpenSMTPD), SMTP in and IMAP out.
//!
//! The loopback tests read the stack's ports from `SM_IMAP_PORT`,
//! `SM_SMTP_PORT` (and, when present, `SM_SUBMISSION_PORT`,
//! `SM_IMAPS_PORT`, `SM_CA`, `SM_MAILDIR_ROOT`), as printed by
//! `.ci/mailstack.sh start DIR`. Without them they print `skipped: NAME:
//! no mail stack (run .ci/mailstack.sh, see README)` and pass, unless `CI`
//! or `SM_REQUIRE_STACK` is set: CI must run them. Tests share mailboxes, so each one finds its own
//! mail by a unique subject.

use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use stationmaster::config::{InboundConfig, InboundKind, OutboundConfig, OutboundKind, Security};
use stationmaster::mail::transport::{
    self, EmlFiles, Imap, Maildir, MemoryInbound, MemoryOutbound, Smtp,
};
use stationmaster::mail::{Inbound, OutMail, Outbound, RawMail, TransportError};
use tempfile::TempDir;

use crate::stack::{Stack, stack};

// ---------------------------------------------------------------- helpers

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn handles(mails: &[RawMail]) -> Vec<&str> {
    mails.iter().map(|m| m.handle.as_str()).collect()
}

/// A subject no other test (or earlier run) uses.
fn unique(tag: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{tag}-{}-{nanos}", std::process::id())
}

fn mail(from: &str, to: &str, subject: &str) -> OutMail {
    let id = format!("{subject}@stationmaster.test");
    let bytes = format!(
        "From: Test <{from}>\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n\
         Date: Sat, 21 Nov 2026 18:00:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\nbuild 3 l5\r\n"
    );
    OutMail {
        from: from.to_string(),
        to: vec![to.to_string()],
        message_id: id,
        bytes: bytes.into_bytes(),
        shared: None,
    }
}

/// A port on 127.0.0.1 that nothing listens on.
fn closed_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    port
}

pub(crate) fn imap_cfg(port: u16, security: Security, user: &str, password: &str) -> InboundConfig {
    InboundConfig {
        kind: InboundKind::Imap,
        host: "127.0.0.1".to_string(),
        port,
        security,
        user: user.to_string(),
        password: password.to_string(),
        ..InboundConfig::default()
    }
}

fn smtp_cfg(port: u16, security: Security) -> OutboundConfig {
    OutboundConfig {
        kind: OutboundKind::Smtp,
        host: "127.0.0.1".to_string(),
        port,
        security,
        ..OutboundConfig::default()
    }
}

/// The loopback stack's ports, from the environment.
/// Sends `m` with plain SMTP to the stack's OpenSMTPD.
fn send_plain(st: &Stack, m: &OutMail) {
    let mut smtp = Smtp::connect(&smtp_cfg(st.smtp, Security::Plain)).unwrap();
    smtp.send(m).unwrap();
}

/// Fetches until a message with `subject` shows up (delivery is
/// asynchronous), and returns its handle and bytes.
fn wait_for(inbox: &mut dyn Inbound, subject: &str) -> RawMail {
    let start = Instant::now();
    loop {
        let mails = inbox.fetch().unwrap();
        if let Some(m) = mails.into_iter().find(|m| contains(&m.bytes, subject)) {
            return m;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "mail {subject:?} never arrived"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn contains(bytes: &[u8], needle: &str) -> bool {
    bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
}

fn assert_gone(inbox: &mut dyn Inbound, subject: &str) {
    let again = inbox.fetch().unwrap();
    assert!(
        !again.iter().any(|m| contains(&m.bytes, subject)),
        "{subject:?} is fetched again after done"
    );
}

// ---------------------------------------------------------------- Maildir

#[test]
fn maildir_open_creates_its_folders() {
    let t = TempDir::new().unwrap();
    let root = t.path().join("var/inbox");
    let m = Maildir::open(&root).unwrap();
    assert_eq!(m.path(), root);
    for sub in ["new", "cur", "tmp"] {
        assert!(root.join(sub).is_dir(), "{sub} missing");
    }
    // Opening again is fine.
    Maildir::open(&root).unwrap();
}

#[test]
fn maildir_fetches_new_and_unseen_cur_oldest_first_and_ignores_the_rest() {
    let t = TempDir::new().unwrap();
    let mut m = Maildir::open(t.path()).unwrap();
    let p = t.path();
    write(&p.join("new/1700000300.M3P1.host"), "third");
    write(&p.join("new/1700000100.M1P1.host"), "first");
    write(
        &p.join("cur/1700000200.M2P1.host:2,F"),
        "second, flagged but unseen",
    );
    write(&p.join("cur/1700000050.M0P1.host:2,S"), "seen: not fetched");
    write(
        &p.join("cur/1700000060.M0P2.host:2,RS"),
        "seen and replied: not fetched",
    );
    write(&p.join("new/.1700000000.hidden"), "a dotfile");
    write(&p.join("tmp/1700000000.M9P1.host"), "still being delivered");
    std::fs::create_dir(p.join("new/1700000001.a-folder")).unwrap();

    let mails = m.fetch().unwrap();
    assert_eq!(
        handles(&mails),
        [
            "1700000100.M1P1.host",
            "1700000200.M2P1.host:2,F",
            "1700000300.M3P1.host"
        ]
    );
    assert_eq!(mails[0].bytes, b"first");
    assert_eq!(mails[1].bytes, b"second, flagged but unseen");
}

#[test]
fn maildir_done_moves_to_cur_with_the_seen_flag() {
    let t = TempDir::new().unwrap();
    let mut m = Maildir::open(t.path()).unwrap();
    let p = t.path();
    write(&p.join("new/1700000100.M1P1.host"), "one");
    write(&p.join("cur/1700000200.M2P1.host:2,F"), "two");
    write(&p.join("new/1700000300.M3P1.host"), "three");

    m.done("1700000100.M1P1.host").unwrap();
    m.done("1700000200.M2P1.host:2,F").unwrap();
    assert_eq!(names_in(&p.join("new")), ["1700000300.M3P1.host"]);
    assert_eq!(
        names_in(&p.join("cur")),
        ["1700000100.M1P1.host:2,S", "1700000200.M2P1.host:2,FS"]
    );
    assert_eq!(
        std::fs::read(p.join("cur/1700000100.M1P1.host:2,S")).unwrap(),
        b"one"
    );
    assert_eq!(handles(&m.fetch().unwrap()), ["1700000300.M3P1.host"]);

    // Done twice (a retry after a crash) is harmless; an unknown one is not.
    m.done("1700000100.M1P1.host").unwrap();
    assert!(matches!(
        m.done("1700009999.nothing"),
        Err(TransportError::Io { .. })
    ));
}

#[test]
fn maildir_done_refuses_paths() {
    let t = TempDir::new().unwrap();
    let mut m = Maildir::open(t.path().join("inbox")).unwrap();
    write(&t.path().join("victim"), "x");
    for bad in ["../../victim", "/etc/passwd", ".hidden", ""] {
        assert!(m.done(bad).is_err(), "{bad:?} accepted");
    }
    assert!(t.path().join("victim").exists());
}

// ---------------------------------------------------------------- .eml files

#[test]
fn eml_files_are_written_whole_and_a_resend_overwrites() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("var/outbox");
    let mut out = EmlFiles::open(&dir).unwrap();
    assert_eq!(out.dir(), dir);
    let mut m = mail("gm@example.test", "alice@example.test", "report-1");
    m.message_id = "report-1.abc@stationmaster.test".to_string();
    out.send(&m).unwrap();
    assert_eq!(names_in(&dir), ["report-1.abc@stationmaster.test.eml"]);
    assert_eq!(
        std::fs::read(dir.join("report-1.abc@stationmaster.test.eml")).unwrap(),
        m.bytes
    );

    // The retry of the same message: one file, the latest bytes, no
    // temporary files left behind.
    m.bytes = b"Subject: again\r\n\r\nsecond try\r\n".to_vec();
    out.send(&m).unwrap();
    assert_eq!(names_in(&dir), ["report-1.abc@stationmaster.test.eml"]);
    assert_eq!(
        std::fs::read(dir.join("report-1.abc@stationmaster.test.eml")).unwrap(),
        m.bytes
    );
}

#[test]
fn temporary_files_a_killed_writer_left_are_removed_at_open() {
    let t = TempDir::new().unwrap();
    let dir = t.path().join("var/outbox");
    std::fs::create_dir_all(&dir).unwrap();
    // A process id above the kernel's limit never runs.
    let dead = dir.join(".report-1.eml.tmp.4194305.3");
    let ours = dir.join(format!(".report-2.eml.tmp.{}.9", std::process::id()));
    let mail_file = dir.join("report-3.eml");
    for f in [&dead, &ours, &mail_file] {
        std::fs::write(f, b"x").unwrap();
    }
    EmlFiles::open(&dir).unwrap();
    assert!(!dead.exists(), "a dead writer's temporary file stays");
    assert!(ours.exists() && mail_file.exists());
}

#[test]
fn eml_file_names_are_safe_and_distinct() {
    let plain = EmlFiles::file_name("abc.1@example.test");
    assert_eq!(plain, "abc.1@example.test.eml");
    assert_eq!(EmlFiles::file_name("<abc.1@example.test>"), plain);

    let nasty = EmlFiles::file_name("../../etc/passwd@x");
    assert!(!nasty.contains('/') && !nasty.starts_with('.'), "{nasty}");
    let a = EmlFiles::file_name("a/b@x");
    let b = EmlFiles::file_name("a_b@x");
    assert_ne!(a, b, "two ids, one file");
    assert_eq!(a, EmlFiles::file_name("a/b@x"), "not stable");
    let long = EmlFiles::file_name(&"x".repeat(5000));
    assert!(long.len() < 200, "{}", long.len());

    let t = TempDir::new().unwrap();
    let mut out = EmlFiles::open(t.path()).unwrap();
    let mut m = mail("gm@example.test", "bob@example.test", "x");
    m.message_id = "../../escape@x".to_string();
    out.send(&m).unwrap();
    assert_eq!(names_in(t.path()), [EmlFiles::file_name("../../escape@x")]);
    m.message_id = " ".to_string();
    assert!(matches!(out.send(&m), Err(TransportError::Config(_))));
}

// ---------------------------------------------------------------- memory

#[test]
fn memory_transports_are_shared_handles() {
    let inbox = MemoryInbound::new();
    let mut boxed: Box<dyn Inbound> = Box::new(inbox.clone());
    let h1 = inbox.push("one");
    let h2 = inbox.push(b"two".to_vec());
    assert_eq!(handles(&boxed.fetch().unwrap()), [h1.as_str(), h2.as_str()]);
    boxed.done(&h1).unwrap();
    assert_eq!(handles(&inbox.waiting()), [h2.as_str()]);
    assert_eq!(inbox.done_handles(), vec![h1.clone()]);
    inbox.fail_next_fetches(1);
    assert!(boxed.fetch().unwrap_err().is_transient());
    assert_eq!(boxed.fetch().unwrap().len(), 1);

    let outbox = MemoryOutbound::new();
    let mut boxed: Box<dyn Outbound> = Box::new(outbox.clone());
    outbox.fail_next_sends(1);
    let m = mail("gm@example.test", "alice@example.test", "hello");
    assert!(boxed.send(&m).unwrap_err().is_transient());
    boxed.send(&m).unwrap();
    assert_eq!(outbox.attempts(), 2);
    assert_eq!(outbox.sent(), vec![m.clone()]);
    assert_eq!(outbox.take(), [m]);
    assert!(outbox.sent().is_empty());
}

// ---------------------------------------------------------------- config

#[test]
fn the_embedded_defaults_build_folder_transports() {
    let t = TempDir::new().unwrap();
    let inbound = InboundConfig {
        maildir: t.path().join("inbox"),
        ..InboundConfig::default()
    };
    let outbound = OutboundConfig {
        dir: t.path().join("outbox"),
        ..OutboundConfig::default()
    };
    let mut i = transport::inbound(&inbound).unwrap();
    assert!(i.fetch().unwrap().is_empty());
    let mut o = transport::outbound(&outbound).unwrap();
    o.send(&mail("gm@example.test", "bob@example.test", "defaults"))
        .unwrap();
    assert_eq!(names_in(&t.path().join("outbox")).len(), 1);

    let line = transport::check_inbound(&inbound).unwrap();
    assert!(
        line.contains("maildir") && line.contains("writable"),
        "{line}"
    );
    let line = transport::check_outbound(&outbound).unwrap();
    assert!(line.contains(".eml") && line.contains("writable"), "{line}");
    // The checks leave nothing behind.
    assert!(names_in(&t.path().join("inbox/tmp")).is_empty());
    assert_eq!(names_in(&t.path().join("outbox")).len(), 1);
}

#[test]
fn plain_towards_a_remote_host_is_refused() {
    let mut i = imap_cfg(143, Security::Plain, "gm", "gmpw");
    i.host = "mail.example.org".to_string();
    let e = Imap::connect(&i).unwrap_err();
    assert!(matches!(e, TransportError::Config(_)), "{e}");
    assert!(e.to_string().contains("loopback"), "{e}");
    assert!(matches!(
        transport::inbound(&i),
        Err(TransportError::Config(_))
    ));
    i.host = "192.0.2.7".to_string();
    assert!(matches!(Imap::connect(&i), Err(TransportError::Config(_))));

    let mut o = smtp_cfg(25, Security::Plain);
    o.host = "smtp.example.org".to_string();
    let e = Smtp::connect(&o).unwrap_err();
    assert!(matches!(e, TransportError::Config(_)), "{e}");
    assert!(matches!(
        transport::outbound(&o),
        Err(TransportError::Config(_))
    ));
    assert!(matches!(
        transport::check_outbound(&o),
        Err(TransportError::Config(_))
    ));
}

#[test]
fn a_closed_port_is_a_connect_error() {
    let port = closed_port();
    let e = Imap::connect(&imap_cfg(port, Security::Plain, "gm", "gmpw")).unwrap_err();
    assert!(matches!(e, TransportError::Connect { .. }), "{e:?}");
    assert!(e.is_transient());

    let mut smtp = Smtp::connect(&smtp_cfg(port, Security::Plain)).unwrap();
    let e = smtp
        .send(&mail("gm@example.test", "alice@example.test", "nowhere"))
        .unwrap_err();
    assert!(matches!(e, TransportError::Connect { .. }), "{e:?}");
    assert!(e.is_transient());
    assert!(matches!(
        transport::check_outbound(&smtp_cfg(port, Security::Plain)),
        Err(TransportError::Connect { .. })
    ));
}

#[test]
fn a_bad_ca_file_is_a_config_error() {
    let t = TempDir::new().unwrap();
    let ca = t.path().join("ca.pem");
    write(&ca, "not a certificate\n");
    let mut i = imap_cfg(closed_port(), Security::Tls, "gm", "gmpw");
    i.ca_file = Some(ca.clone());
    assert!(matches!(Imap::connect(&i), Err(TransportError::Config(_))));
    let mut o = smtp_cfg(465, Security::Tls);
    o.ca_file = Some(ca);
    assert!(matches!(Smtp::connect(&o), Err(TransportError::Config(_))));
    o.ca_file = Some(t.path().join("missing.pem"));
    assert!(matches!(Smtp::connect(&o), Err(TransportError::Io { .. })));
}

/// The system's roots are read as OpenSSL reads them: from `SSL_CERT_FILE`
/// or `SSL_CERT_DIR` when either is set (the binary, for its own
/// environment). A TLS inbound with no root and no ca_file is refused before
/// any connection; with the fixture CA in either variable it gets as far as
/// the (closed) port.
#[test]
fn system_roots_come_from_ssl_cert_file_and_ssl_cert_dir() {
    let t = TempDir::new().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls/ca.pem");
    let (empty, certs) = (t.path().join("empty"), t.path().join("certs"));
    std::fs::create_dir(&empty).unwrap();
    std::fs::create_dir(&certs).unwrap();
    std::fs::copy(&fixture, certs.join("fixture.pem")).unwrap();
    write(
        &t.path().join("tls.toml"),
        &format!(
            "[inbound]\nkind = \"imap\"\nhost = \"127.0.0.1\"\nport = {}\n\
             security = \"tls\"\nuser = \"gm\"\npassword = \"gmpw\"\n",
            closed_port()
        ),
    );
    let check = |var: &str, value: &Path| {
        let out = crate::binary::sm(t.path())
            .args(["--config", "tls.toml", "check-config"])
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR")
            .env(var, value)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        err.lines()
            .find(|l| l.starts_with("[inbound]"))
            .unwrap_or_else(|| panic!("no [inbound] problem: {err}"))
            .to_string()
    };
    let none = check("SSL_CERT_DIR", &empty);
    assert!(none.contains("no trusted root certificates"), "{none}");
    for (var, value) in [("SSL_CERT_FILE", &fixture), ("SSL_CERT_DIR", &certs)] {
        let line = check(var, value);
        assert!(line.contains("cannot reach"), "{var}: {line}");
    }
}

// ---------------------------------------------------------------- loopback stack

#[test]
fn smtp_in_imap_out_over_plain_loopback() {
    let Some(st) = stack() else { return };
    let subject = unique("plain");
    let m = mail("alice@example.test", "gm@example.test", &subject);
    let t0 = Instant::now();
    send_plain(&st, &m);
    let mut imap = Imap::connect(&imap_cfg(st.imap, Security::Plain, "gm", "gmpw")).unwrap();
    let got = wait_for(&mut imap, &subject);
    println!("plain: SMTP send to IMAP fetch in {:?}", t0.elapsed());
    assert!(got.handle.parse::<u32>().is_ok(), "{}", got.handle);
    assert!(contains(
        &got.bytes,
        &format!("Message-ID: <{}>", m.message_id)
    ));
    assert!(contains(&got.bytes, "build 3 l5"));

    // Fetching marks nothing: it comes again until done.
    let again = wait_for(&mut imap, &subject);
    assert_eq!(again.handle, got.handle);
    imap.done(&got.handle).unwrap();
    assert_gone(&mut imap, &subject);
    // done twice is harmless.
    imap.done(&got.handle).unwrap();

    // A fresh connection agrees.
    let mut other = transport::inbound(&imap_cfg(st.imap, Security::Plain, "gm", "gmpw")).unwrap();
    assert_gone(other.as_mut(), &subject);
}

#[test]
fn a_batch_of_mails_is_marked_done_at_once() {
    let Some(st) = stack() else { return };
    let subjects: Vec<String> = (0..3).map(|i| unique(&format!("batch{i}"))).collect();
    for s in &subjects {
        send_plain(&st, &mail("bob@example.test", "alice@example.test", s));
    }
    let mut imap = Imap::connect(&imap_cfg(st.imap, Security::Plain, "alice", "alicepw")).unwrap();
    let handles: Vec<String> = subjects
        .iter()
        .map(|s| wait_for(&mut imap, s).handle)
        .collect();
    imap.done_all(&handles).unwrap();
    for s in &subjects {
        assert_gone(&mut imap, s);
    }
    // Nothing to mark is fine; a handle that is no UID is refused.
    imap.done_all(&[]).unwrap();
    assert!(imap.done_all(&["x".to_string()]).is_err());
}

#[test]
fn plus_addresses_and_the_stationmaster_alias_reach_gm() {
    let Some(st) = stack() else { return };
    let s1 = unique("plus");
    let s2 = unique("alias");
    send_plain(
        &st,
        &mail("bob@example.test", "gm+rocket-1.tok@example.test", &s1),
    );
    send_plain(
        &st,
        &mail("bob@example.test", "stationmaster@example.test", &s2),
    );
    let mut imap = Imap::connect(&imap_cfg(st.imap, Security::Plain, "gm", "gmpw")).unwrap();
    for s in [s1, s2] {
        let got = wait_for(&mut imap, &s);
        imap.done(&got.handle).unwrap();
    }
}

#[test]
fn processed_mail_is_moved_to_the_processed_mailbox() {
    let Some(st) = stack() else { return };
    let subject = unique("processed");
    send_plain(
        &st,
        &mail("bob@example.test", "alice@example.test", &subject),
    );
    let mut cfg = imap_cfg(st.imap, Security::Plain, "alice", "alicepw");
    cfg.processed_mailbox = "Processed".to_string();
    let mut imap = Imap::connect(&cfg).unwrap();
    let got = wait_for(&mut imap, &subject);
    imap.done(&got.handle).unwrap();
    assert_gone(&mut imap, &subject);

    // It is in Processed now, unseen.
    let mut cfg = imap_cfg(st.imap, Security::Plain, "alice", "alicepw");
    cfg.mailbox = "Processed".to_string();
    let mut processed = Imap::connect(&cfg).unwrap();
    let moved = wait_for(&mut processed, &subject);
    processed.done(&moved.handle).unwrap();
    processed.logout().unwrap();
}

#[test]
fn imap_quarantine_moves_a_mail_aside_lists_it_and_gives_it_back() {
    let Some(st) = stack() else { return };
    let subject = unique("quarantine");
    send_plain(
        &st,
        &mail("bob@example.test", "alice@example.test", &subject),
    );
    let mut cfg = imap_cfg(st.imap, Security::Plain, "alice", "alicepw");
    cfg.quarantine_mailbox = unique("Quarantine");
    let mut imap = Imap::connect(&cfg).unwrap();
    let got = wait_for(&mut imap, &subject);
    imap.quarantine(&got.handle).unwrap();
    assert_gone(&mut imap, &subject);
    let aside = imap.quarantined().unwrap();
    assert_eq!(aside.len(), 1);
    assert!(contains(&aside[0].bytes, &subject));
    // The session reads the inbox again afterwards.
    assert_gone(&mut imap, &subject);
    imap.release(&aside[0].handle).unwrap();
    assert!(imap.quarantined().unwrap().is_empty());
    let back = wait_for(&mut imap, &subject);
    imap.done(&back.handle).unwrap();
}

#[test]
fn a_broken_session_reconnects_transparently() {
    let Some(st) = stack() else { return };
    let Some(root) = &st.maildir_root else {
        skip!("SM_MAILDIR_ROOT is not set, cannot find the stack's dovecot.conf");
        return;
    };
    let conf = root.parent().unwrap_or(root).join("dovecot.conf");
    let subject = unique("reconnect");
    let mut imap = Imap::connect(&imap_cfg(st.imap, Security::Plain, "dave", "davepw")).unwrap();
    send_plain(
        &st,
        &mail("bob@example.test", "dave@example.test", &subject),
    );
    let got = wait_for(&mut imap, &subject);

    // The server drops every session of dave's.
    let kick = std::process::Command::new("doveadm")
        .arg("-c")
        .arg(&conf)
        .args(["kick", "dave"])
        .output();
    match kick {
        Ok(o) if o.status.success() => {}
        other => {
            skip!("doveadm kick failed: {other:?}");
            return;
        }
    }
    std::thread::sleep(Duration::from_millis(200));
    imap.done(&got.handle).unwrap();
    assert_gone(&mut imap, &subject);
}

#[test]
fn wrong_passwords_are_refused() {
    let Some(st) = stack() else { return };
    let e = Imap::connect(&imap_cfg(st.imap, Security::Plain, "gm", "not-gmpw")).unwrap_err();
    println!("{e}");
    assert!(e.to_string().contains("login as gm"), "{e}");
    assert!(
        matches!(
            e,
            TransportError::Refused {
                transient: false,
                ..
            }
        ),
        "{e:?}"
    );
    let e =
        transport::check_inbound(&imap_cfg(st.imap, Security::Plain, "nobody", "x")).unwrap_err();
    assert!(matches!(e, TransportError::Refused { .. }), "{e:?}");

    let Some(sub) = st.submission else {
        skip!("SMTP AUTH: SM_SUBMISSION_PORT is not set");
        return;
    };
    let mut cfg = smtp_cfg(sub, Security::Plain);
    cfg.user = "alice".to_string();
    cfg.password = "wrong".to_string();
    let mut smtp = Smtp::connect(&cfg).unwrap();
    let e = smtp
        .send(&mail(
            "alice@example.test",
            "gm@example.test",
            &unique("badauth"),
        ))
        .unwrap_err();
    assert!(
        matches!(
            e,
            TransportError::Refused {
                transient: false,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(matches!(
        transport::check_outbound(&cfg),
        Err(TransportError::Refused { .. })
    ));
}

#[test]
fn check_config_lines_against_the_stack() {
    let Some(st) = stack() else { return };
    let line = transport::check_inbound(&imap_cfg(st.imap, Security::Plain, "gm", "gmpw")).unwrap();
    assert!(
        line.contains("gm@127.0.0.1:") && line.contains("mailbox INBOX"),
        "{line}"
    );
    println!("{line}");
    let line = transport::check_outbound(&smtp_cfg(st.smtp, Security::Plain)).unwrap();
    assert!(line.contains("127.0.0.1:") && line.contains("ok"), "{line}");
    println!("{line}");
    if let Some(sub) = st.submission {
        let mut cfg = smtp_cfg(sub, Security::Plain);
        cfg.user = "gm".to_string();
        cfg.password_env = "SM_TEST_SUBMISSION_PASSWORD_UNSET".to_string();
        assert!(matches!(
            transport::check_outbound(&cfg),
            Err(TransportError::Config(_))
        ));
        cfg.password = "gmpw".to_string();
        let line = transport::check_outbound(&cfg).unwrap();
        assert!(line.contains("AUTH as gm"), "{line}");
    }
}

#[test]
fn tls_with_a_private_ca() {
    let Some(st) = stack() else { return };
    let (Some(imaps), Some(ca)) = (st.imaps, st.ca.clone()) else {
        skip!("no TLS stack (run TLS=1 .ci/mailstack.sh start DIR)");
        return;
    };

    // Implicit TLS, verified against the CA.
    let subject = unique("imaps");
    send_plain(
        &st,
        &mail("alice@example.test", "bob@example.test", &subject),
    );
    let mut cfg = imap_cfg(imaps, Security::Tls, "bob", "bobpw");
    cfg.ca_file = Some(ca.clone());
    let mut imap = Imap::connect(&cfg).unwrap();
    let got = wait_for(&mut imap, &subject);
    imap.done(&got.handle).unwrap();
    assert_gone(&mut imap, &subject);
    let line = transport::check_inbound(&cfg).unwrap();
    assert!(line.contains("(tls, certificate verified)"), "{line}");

    // STARTTLS on the plain port, by name as well as by address.
    for host in ["127.0.0.1", "localhost"] {
        let subject = unique("starttls");
        send_plain(
            &st,
            &mail("alice@example.test", "bob@example.test", &subject),
        );
        let mut cfg = imap_cfg(st.imap, Security::Starttls, "bob", "bobpw");
        cfg.host = host.to_string();
        cfg.ca_file = Some(ca.clone());
        let mut imap = Imap::connect(&cfg).unwrap();
        let got = wait_for(&mut imap, &subject);
        imap.done(&got.handle).unwrap();
        assert_gone(&mut imap, &subject);
    }

    // Without the CA the certificate is not trusted.
    let e = Imap::connect(&imap_cfg(imaps, Security::Tls, "bob", "bobpw")).unwrap_err();
    assert!(matches!(e, TransportError::Connect { .. }), "{e:?}");
    assert!(e.to_string().to_lowercase().contains("certificate"), "{e}");
    let e = Imap::connect(&imap_cfg(st.imap, Security::Starttls, "bob", "bobpw")).unwrap_err();
    assert!(matches!(e, TransportError::Connect { .. }), "{e:?}");

    // SMTP: STARTTLS + AUTH through Dovecot's submission service.
    if let Some(sub) = st.submission {
        let subject = unique("submission");
        let mut cfg = smtp_cfg(sub, Security::Starttls);
        cfg.user = "alice".to_string();
        cfg.password = "alicepw".to_string();
        cfg.ca_file = Some(ca.clone());
        let mut smtp = Smtp::connect(&cfg).unwrap();
        smtp.send(&mail("alice@example.test", "cecil@example.test", &subject))
            .unwrap();
        let line = transport::check_outbound(&cfg).unwrap();
        assert!(line.contains("starttls, certificate verified"), "{line}");
        let mut cecil =
            Imap::connect(&imap_cfg(st.imap, Security::Plain, "cecil", "cecilpw")).unwrap();
        let got = wait_for(&mut cecil, &subject);
        cecil.done(&got.handle).unwrap();

        cfg.ca_file = None;
        let mut smtp = Smtp::connect(&cfg).unwrap();
        let e = smtp
            .send(&mail(
                "alice@example.test",
                "cecil@example.test",
                &unique("untrusted"),
            ))
            .unwrap_err();
        assert!(matches!(e, TransportError::Connect { .. }), "{e:?}");
    }
}

#[test]
fn many_mails_go_over_one_smtp_connection_to_the_stack() {
    let Some(st) = stack() else { return };
    // OpenSMTPD 6.8 does not offer PIPELINING; Dovecot's submission does.
    let mut ports = vec![(st.smtp, Security::Plain, None, false)];
    if let (Some(sub), Some(ca)) = (st.submission, st.ca.clone()) {
        ports.push((sub, Security::Starttls, Some(ca), true));
    }
    for (port, security, ca, pipelining) in ports {
        let mut cfg = smtp_cfg(port, security);
        if let Some(ca) = ca {
            cfg.user = "alice".to_string();
            cfg.password = "alicepw".to_string();
            cfg.ca_file = Some(ca);
        }
        let line = transport::check_outbound(&cfg).unwrap();
        assert_eq!(line.contains("PIPELINING"), pipelining, "{line}");
        let mut smtp = Smtp::connect(&cfg).unwrap();
        let subjects: Vec<String> = (0..6).map(|n| unique(&format!("reuse{n}"))).collect();
        for subject in &subjects {
            smtp.send(&mail("alice@example.test", "dave@example.test", subject))
                .unwrap();
        }
        assert_eq!(smtp.connections(), 1, "{line}");
        let mut dave =
            Imap::connect(&imap_cfg(st.imap, Security::Plain, "dave", "davepw")).unwrap();
        for subject in &subjects {
            let got = wait_for(&mut dave, subject);
            dave.done(&got.handle).unwrap();
        }
    }
}

#[test]
fn imap_idle_announces_a_new_mail_once() {
    let Some(st) = stack() else { return };
    let mut imap = Imap::connect(&imap_cfg(st.imap, Security::Plain, "cecil", "cecilpw")).unwrap();
    let mut watch = imap.watcher().expect("Dovecot offers IDLE");
    // What is already there is announced once, then not again.
    while watch.wait(Duration::ZERO).unwrap() {}
    let subject = unique("idle");
    let port = st.smtp;
    let m = mail("alice@example.test", "cecil@example.test", &subject);
    let sender = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        let mut smtp = Smtp::connect(&smtp_cfg(port, Security::Plain)).unwrap();
        smtp.send(&m).unwrap();
    });
    assert!(
        watch.wait(Duration::from_secs(60)).unwrap(),
        "IDLE saw no new mail"
    );
    sender.join().unwrap();
    let got = wait_for(&mut imap, &subject);
    imap.done(&got.handle).unwrap();
    // A Maildir has no watcher: the daemon polls it.
    let dir = TempDir::new().unwrap();
    assert!(Maildir::open(dir.path()).unwrap().watcher().is_none());
}
