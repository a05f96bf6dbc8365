//! `check-config`: everything `run` will need, checked without running:
//! the config's keys and folders, the templates, the database, and the
//! mail connections.

use std::path::Path;

use super::LocalError;
use super::request::Outcome;
use super::socket::open_store;
use crate::config::Config;
use crate::mail::templates::Templates;
use crate::mail::transport;

/// `check-config`: everything `run` will need, each problem on a line of
/// its own naming its key, all of them (not just the first); exit 1 if
/// there is any. What is good is listed on stdout, the problems on stderr.
pub fn check_config(path: Option<&Path>) -> Result<Outcome, LocalError> {
    let name = path.map_or("(none: embedded defaults)".to_string(), |p| {
        p.display().to_string()
    });
    let config = match path {
        None => Config::default(),
        // A file that is not TOML of our keys: nothing more to check.
        Some(p) => Config::read(p)?,
    };
    let mut good = String::new();
    let mut problems = config.problems();
    for (key, folder) in config.folders() {
        match crate::config::folder_problem(key, folder) {
            Some(p) => problems.push(p),
            None => good.push_str(&format!("{key}: {} can be used\n", folder.display())),
        }
    }
    // The templates: they load, and each renders with a sample.
    let templates_dir = config.templates.dir.as_deref().filter(|d| d.is_dir());
    match Templates::load(templates_dir) {
        Ok(t) => {
            let failed = crate::service::report::check_templates(&t);
            if failed.is_empty() {
                good.push_str(&format!(
                    "templates: {} render\n",
                    Templates::describe(templates_dir)
                ));
            }
            problems.extend(failed);
        }
        Err(e) => problems.push(format!("[templates] {e}")),
    }
    // The rest needs a config the daemon would take.
    if config.breaking().is_empty() {
        match open_store(&config) {
            Ok(store) => {
                drop(store);
                good.push_str(&format!("store: {} opens\n", config.store.path.display()));
            }
            Err(LocalError::DaemonRunning { pid, .. }) => good.push_str(&format!(
                "store: {} is open in the running daemon{}\n",
                config.store.path.display(),
                pid.map_or(String::new(), |p| format!(" (pid {p})"))
            )),
            Err(e) => problems.push(format!("[store] path: {}", error_text(&e))),
        }
    }
    let servers_ok = !problems
        .iter()
        .any(|p| p.starts_with("[inbound]") || p.starts_with("[outbound]"));
    if servers_ok {
        match transport::check_inbound(&config.inbound) {
            Ok(t) => good.push_str(&format!("inbound: {t}\n")),
            Err(e) => problems.push(format!("[inbound]: {}", error_text(&e))),
        }
        match transport::check_outbound(&config.outbound) {
            Ok(t) => good.push_str(&format!("outbound: {t}\n")),
            Err(e) => problems.push(format!("[outbound]: {}", error_text(&e))),
        }
    }
    if problems.is_empty() {
        return Ok(Outcome {
            stdout: format!("config {name}: valid\n{good}"),
            ..Outcome::default()
        });
    }
    let mut stderr: String = problems.iter().map(|p| format!("{p}\n")).collect();
    stderr.push_str(&format!(
        "config {name}: {} problem(s); `run` would not work as it should\n",
        problems.len()
    ));
    Ok(Outcome {
        stdout: good,
        stderr,
        code: 1,
    })
}

/// An error with its causes, on one line.
fn error_text(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}
