//! Outbound into a folder of `.eml` files.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::io_error;
use crate::mail::{OutMail, Outbound, TransportError};

/// Outbound mail written as one `.eml` file per message: the embedded
/// default (`var/outbox`).
///
/// The file is `<dir>/<Message-ID>.eml`, the Message-ID sanitised into a
/// safe file name (see [`EmlFiles::file_name`]). It is written under a
/// temporary dotfile name and renamed into place, so a reader never sees
/// half a message; sending the same message again overwrites the same file,
/// so a retry is harmless.
#[derive(Debug)]
pub struct EmlFiles {
    dir: PathBuf,
}

/// Longest file stem kept from a Message-ID.
const MAX_STEM: usize = 150;

impl EmlFiles {
    /// Opens the folder, creating it if missing.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, TransportError> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        Ok(EmlFiles { dir })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file name a Message-ID is written to: the ID without angle
    /// brackets, with every character but ASCII letters, digits and
    /// `. _ - + = @` replaced by `_`; when anything was replaced or cut (or
    /// the name would start with a dot), a hash of the whole ID is appended,
    /// so two different IDs never share a file. The same ID always gives the
    /// same name.
    pub fn file_name(message_id: &str) -> String {
        let id = message_id.trim();
        let id = id
            .strip_prefix('<')
            .and_then(|s| s.strip_suffix('>'))
            .unwrap_or(id);
        let mut stem: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-+=@".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let changed = stem != id || stem.len() > MAX_STEM || stem.starts_with('.');
        if changed {
            stem.truncate(MAX_STEM);
            let stem_trimmed = stem.trim_start_matches('.');
            stem = format!("{stem_trimmed}-{:016x}", fnv1a(message_id.as_bytes()));
        }
        format!("{stem}.eml")
    }
}

/// FNV-1a, 64 bits: stable across builds and platforms (unlike
/// `DefaultHasher`), which file names need.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A temporary name unique to this process and call.
fn temp_name(final_name: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(".{final_name}.tmp.{}.{n}", std::process::id())
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder,
/// synced, then renamed over `path`.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TransportError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(temp_name(&name));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_error(path, e));
    }
    // Make the rename itself durable; not every file system can sync a folder.
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Checks that a file can be created in `dir`, and removes it again.
pub(super) fn check_writable(dir: &Path) -> Result<(), TransportError> {
    let probe = dir.join(temp_name("check-config"));
    fs::write(&probe, b"probe").map_err(|e| io_error(dir, e))?;
    fs::remove_file(&probe).map_err(|e| io_error(&probe, e))
}

impl Outbound for EmlFiles {
    fn send(&mut self, mail: &OutMail) -> Result<(), TransportError> {
        if mail.message_id.trim().is_empty() {
            return Err(TransportError::Config(
                "a mail to send has no Message-ID, which names its .eml file".to_string(),
            ));
        }
        let path = self.dir.join(Self::file_name(&mail.message_id));
        write_atomic(&path, &mail.bytes)
    }
}
