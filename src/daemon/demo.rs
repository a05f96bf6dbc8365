//! `stationmaster demo`: the daemon on the embedded default, start to
//! finish, with the registry's first game that has a demo script.

use chrono::{DateTime, Utc};

use super::Daemon;
use crate::local::{GameSpec, LocalError, log, new_game, order_lines, parse_player, show};
use crate::service::report;
use crate::store::GameId;

/// The scripted game `demo` plays, built in (`games/<kind>/demo.txt`), and
/// its kind: game `kind`'s, or without one the first game of the registry
/// with a demo script.
pub fn demo_script(kind: Option<&str>) -> Result<(&'static str, &'static str), LocalError> {
    match kind {
        Some(kind) => {
            let entry = crate::registry::find(kind)
                .map_err(|e| LocalError::Usage(format!("demo {kind}: {e}")))?;
            let script = entry
                .demo
                .ok_or_else(|| LocalError::Usage(format!("{} has no demo script", entry.name)))?;
            Ok((entry.name, script))
        }
        None => crate::registry::GAMES
            .iter()
            .find_map(|g| g.demo.map(|script| (g.name, script)))
            .ok_or_else(|| {
                LocalError::Refused("no game of this build has a demo script".to_string())
            }),
    }
}

/// One mail of the demo script.
struct DemoMail {
    player: String,
    kind: DemoKind,
    body: Vec<String>,
}

#[derive(PartialEq)]
enum DemoKind {
    /// A reply from the player, with their key.
    Orders,
    /// From the player's address without the key: refused, the player told.
    NoKey,
    /// A vacation auto-reply: never answered.
    AutoReply,
}

/// A mail as a player's mail program would write it.
fn demo_eml(
    id: &GameId,
    to: &str,
    from: &str,
    token: Option<&str>,
    mail: &DemoMail,
    n: usize,
    now: DateTime<Utc>,
) -> String {
    let tag = match token {
        Some(t) => format!("[{id} {t}]"),
        None => format!("[{id}]"),
    };
    let (subject, extra) = match mail.kind {
        DemoKind::AutoReply => (
            format!("Out of Office: {tag} your turn"),
            "Auto-Submitted: auto-replied\r\n",
        ),
        _ => (format!("Re: {tag} orders"), ""),
    };
    let body = if mail.kind == DemoKind::AutoReply {
        "I am away until Monday and will read your mail then.".to_string()
    } else {
        mail.body.join("\r\n")
    };
    format!(
        "From: {name} <{from}>\r\nTo: {to}\r\nSubject: {subject}\r\nDate: {date}\r\nMessage-ID: <demo.{id}.{n}@example.org>\r\n{extra}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n\r\n-- \r\n{name}\r\n",
        name = mail.player,
        date = now.to_rfc2822(),
    )
}

/// `demo [KIND]`: the daemon on the embedded default, start to finish.
/// Creates the game of [`demo_script`] (welcome mails with each player's
/// key go to the outbox), writes the script's mails into the Maildir inbox
/// as players' mail programs would (replies carrying the key; one without
/// it; one auto-reply), runs one `process` cycle, and shows what came of it.
pub fn demo(
    daemon: &mut Daemon,
    kind: Option<&str>,
    inbox: &std::path::Path,
    outbox: &std::path::Path,
    now: DateTime<Utc>,
) -> Result<String, LocalError> {
    let (kind, script) = demo_script(kind)?;
    let mut players = Vec::new();
    let mut seed = 0;
    let mut mails: Vec<DemoMail> = Vec::new();
    for line in order_lines(script) {
        if let Some(rest) = line.strip_prefix("players ") {
            players = rest
                .split_whitespace()
                .map(parse_player)
                .collect::<Result<_, _>>()?;
        } else if let Some(rest) = line.strip_prefix("seed ") {
            seed = rest
                .trim()
                .parse()
                .map_err(|_| LocalError::Refused(format!("demo script: bad seed {rest}")))?;
        } else if let Some(rest) = line.strip_prefix("> ") {
            let mut words = rest.split_whitespace();
            let player = words.next().unwrap_or_default().to_string();
            let kind = match words.next() {
                Some("!nokey") => DemoKind::NoKey,
                Some("!autoreply") => DemoKind::AutoReply,
                _ => DemoKind::Orders,
            };
            mails.push(DemoMail {
                player,
                kind,
                body: Vec::new(),
            });
        } else if let Some(m) = mails.last_mut() {
            m.body.push(line);
        }
    }
    let first = players.first().map(|p| p.name.clone()).unwrap_or_default();
    let spec = GameSpec {
        kind: kind.to_string(),
        players: players.clone(),
        options: Vec::new(),
        seed,
        clock: daemon.ctx().config.deadlines.clone(),
        moderators: Vec::new(),
        reports: Default::default(),
        watchable: false,
    };
    let id = new_game(&daemon.ctx(), spec, now)?;
    let meta = daemon.store().meta(&id)?;
    let address = daemon.ctx().config.mail.address.clone();
    let new_dir = inbox.join("new");
    std::fs::create_dir_all(&new_dir)
        .map_err(|e| LocalError::Refused(format!("{}: {e}", new_dir.display())))?;
    for (n, mail) in mails.iter().enumerate() {
        let seat = players
            .iter()
            .position(|p| p.name == mail.player)
            .ok_or_else(|| {
                LocalError::Refused(format!("demo script: {} does not play", mail.player))
            })?;
        let token = meta.tokens[seat].as_str();
        let to = report::reply_address(&address, &id, token);
        let (to, token) = match mail.kind {
            DemoKind::NoKey => (address.clone(), None),
            _ => (to, Some(token)),
        };
        let eml = demo_eml(&id, &to, &players[seat].email, token, mail, n + 1, now);
        // Maildir names sort by time of arrival: keep the script's order.
        let path = new_dir.join(format!("{}.{:04}.demo-{id}", now.timestamp(), n + 1));
        std::fs::write(&path, eml)
            .map_err(|e| LocalError::Refused(format!("{}: {e}", path.display())))?;
    }
    let mut out = format!(
        "Created demo game {id} (players {}); wrote {} mails into {}.\n",
        players
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        mails.len(),
        new_dir.display()
    );
    let cycle = daemon.process(now, &std::sync::atomic::AtomicBool::new(false))?;
    out.push_str(&format!(
        "Processed them: {} mails read, {} changed the game, {} were answered without a change or ignored; {} mails sent to {}.\n\n",
        cycle.fetched, cycle.applied, cycle.skipped, cycle.sent, outbox.display()
    ));
    out.push_str(&log(daemon.store(), &id, None, false)?);
    out.push_str(&format!("\nAs {first} sees it now (`stationmaster show {id} --as {first}`; their mails are in {}):\n\n", outbox.display()));
    out.push_str(&show(daemon.store(), &id, Some(&first), false, now)?);
    Ok(out)
}
