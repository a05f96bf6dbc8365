//! Inbound from a local Maildir folder.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::io_error;
use crate::{Inbound, RawMail, TransportError};

/// A Maildir folder read as an inbound transport: the embedded default
/// (`var/inbox`).
///
/// [`fetch`](Inbound::fetch) returns the messages in `new/`, and those in
/// `cur/` whose `:2,` info lacks the `S` (seen) flag, oldest first by file
/// name (Maildir names begin with the delivery time). The handle is the file
/// name. [`done`](Inbound::done) renames the file into `cur/` with the `S`
/// flag added (`NAME:2,S`), one atomic rename. Dotfiles, subfolders and
/// `tmp/` (where deliveries are still being written) are ignored.
#[derive(Debug)]
pub struct Maildir {
    root: PathBuf,
}

/// Where a message was found.
#[derive(Clone, Copy)]
enum Place {
    New,
    Cur,
}

impl Maildir {
    /// Opens the Maildir at `path`, creating it and its `new`, `cur` and
    /// `tmp` folders if missing.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TransportError> {
        let root = path.as_ref().to_path_buf();
        for sub in ["new", "cur", "tmp"] {
            let dir = root.join(sub);
            fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        }
        Ok(Maildir { root })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Where quarantined messages go: the Maildir++ subfolder
    /// `.Quarantine`, which mail programs show as a folder `Quarantine`.
    pub fn quarantine_dir(&self) -> PathBuf {
        self.root.join(".Quarantine").join("cur")
    }

    /// The waiting messages' file names, oldest first.
    pub(super) fn fetch_handles(&mut self) -> Result<Vec<String>, TransportError> {
        Ok(self
            .waiting()?
            .into_iter()
            .map(|(name, _, _)| name)
            .collect())
    }

    fn waiting(&self) -> Result<Vec<(String, Place, Option<String>)>, TransportError> {
        let mut found = Vec::new();
        for (sub, place) in [("new", Place::New), ("cur", Place::Cur)] {
            let dir = self.root.join(sub);
            let entries = fs::read_dir(&dir).map_err(|e| io_error(&dir, e))?;
            for entry in entries {
                let entry = entry.map_err(|e| io_error(&dir, e))?;
                let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                    tracing::warn!(path = %entry.path().display(), "maildir: skipping a file whose name is not UTF-8");
                    continue;
                };
                if name.starts_with('.') {
                    continue;
                }
                if matches!(place, Place::Cur) && is_seen(&name) {
                    continue;
                }
                // Follows symlinks; a file that vanished meanwhile is
                // skipped, and one that cannot be looked at (a symlink
                // loop, no permission) is handed over as unreadable.
                match fs::metadata(entry.path()) {
                    Ok(m) if m.is_file() => found.push((name, place, None)),
                    Ok(_) => continue,
                    Err(e) if e.kind() == ErrorKind::NotFound => continue,
                    Err(e) => found.push((name, place, Some(e.to_string()))),
                }
            }
        }
        found.sort_by(|a, b| base(&a.0).cmp(base(&b.0)).then_with(|| a.0.cmp(&b.0)));
        Ok(found)
    }

    /// Where `handle` is now: `new/NAME`, `cur/NAME`, or already done.
    fn locate(&self, handle: &str) -> Result<Option<PathBuf>, TransportError> {
        for sub in ["new", "cur"] {
            let p = self.root.join(sub).join(handle);
            match fs::symlink_metadata(&p) {
                Ok(_) => return Ok(Some(p)),
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(&p, e)),
            }
        }
        Ok(None)
    }

    /// True if `cur/` holds `handle`'s message with the `S` flag already.
    fn already_done(&self, handle: &str) -> Result<bool, TransportError> {
        let dir = self.root.join("cur");
        let want = base(handle);
        for entry in fs::read_dir(&dir).map_err(|e| io_error(&dir, e))? {
            let entry = entry.map_err(|e| io_error(&dir, e))?;
            if let Some(name) = entry.file_name().to_str()
                && base(name) == want
                && is_seen(name)
            {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// The unique part of a Maildir name, before the `:2,` info.
fn base(name: &str) -> &str {
    name.split_once(':').map_or(name, |(b, _)| b)
}

/// The flags of a name's `:2,` info, if it has one.
fn flags(name: &str) -> Option<&str> {
    name.split_once(':')
        .and_then(|(_, info)| info.strip_prefix("2,"))
}

fn is_seen(name: &str) -> bool {
    flags(name).is_some_and(|f| f.contains('S'))
}

/// The name with the `S` flag added to its info, flags kept in ASCII order
/// as the Maildir convention asks.
fn seen_name(name: &str) -> String {
    let mut fl: Vec<char> = flags(name).unwrap_or("").chars().collect();
    if !fl.contains(&'S') {
        fl.push('S');
    }
    fl.sort_unstable();
    fl.dedup();
    format!("{}:2,{}", base(name), fl.into_iter().collect::<String>())
}

fn check_handle(handle: &str) -> Result<(), TransportError> {
    if handle.is_empty()
        || handle.starts_with('.')
        || handle.contains('/')
        || handle.contains('\\')
        || handle.contains('\0')
    {
        return Err(TransportError::Io {
            path: handle.to_string(),
            cause: std::io::Error::new(ErrorKind::InvalidInput, "not a Maildir message name"),
        });
    }
    Ok(())
}

impl Inbound for Maildir {
    fn fetch(&mut self) -> Result<Vec<RawMail>, TransportError> {
        let mut out = Vec::new();
        for (name, place, problem) in self.waiting()? {
            let sub = match place {
                Place::New => "new",
                Place::Cur => "cur",
            };
            let path = self.root.join(sub).join(&name);
            if let Some(why) = problem {
                out.push(RawMail::unreadable(
                    name,
                    format!("{}: {why}", path.display()),
                ));
                continue;
            }
            match fs::read(&path) {
                Ok(bytes) => out.push(RawMail::new(name, bytes)),
                // Taken by someone else since the listing.
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => out.push(RawMail::unreadable(
                    name,
                    format!("{}: {e}", path.display()),
                )),
            }
        }
        Ok(out)
    }

    fn quarantine(&mut self, handle: &str) -> Result<(), TransportError> {
        check_handle(handle)?;
        let Some(from) = self.locate(handle)? else {
            return Ok(());
        };
        let dir = self.quarantine_dir();
        fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let to = dir.join(handle);
        fs::rename(&from, &to).map_err(|e| io_error(&from, e))
    }

    fn quarantined(&mut self) -> Result<Vec<RawMail>, TransportError> {
        let dir = self.quarantine_dir();
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(&dir, e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| io_error(&dir, e))?;
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            match fs::read(entry.path()) {
                Ok(bytes) => out.push(RawMail::new(name, bytes)),
                Err(e) => out.push(RawMail::unreadable(name, e.to_string())),
            }
        }
        out.sort_by(|a, b| a.handle.cmp(&b.handle));
        Ok(out)
    }

    fn release(&mut self, handle: &str) -> Result<(), TransportError> {
        check_handle(handle)?;
        let from = self.quarantine_dir().join(handle);
        let to = self.root.join("new").join(base(handle));
        fs::rename(&from, &to).map_err(|e| io_error(&from, e))
    }

    fn done(&mut self, handle: &str) -> Result<(), TransportError> {
        check_handle(handle)?;
        match self.locate(handle)? {
            Some(from) => {
                if from.parent().is_some_and(|p| p.ends_with("cur")) && is_seen(handle) {
                    return Ok(());
                }
                let to = self.root.join("cur").join(seen_name(handle));
                fs::rename(&from, &to).map_err(|e| io_error(&from, e))
            }
            // Done twice (a retry after a crash) is fine.
            None if self.already_done(handle)? => Ok(()),
            None => Err(TransportError::Io {
                path: self.root.join("new").join(handle).display().to_string(),
                cause: std::io::Error::new(ErrorKind::NotFound, "no such message in new/ or cur/"),
            }),
        }
    }
}
