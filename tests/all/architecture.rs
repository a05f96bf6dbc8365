//! The shape issue 13 (part 1) promised, checked on the source: a game's
//! words stay in its own crate and the registry's list, and no modules
//! import each other in a loop, at any depth (not the engine and a game,
//! not the daemon and the command line, not two services). Between the
//! crates under crates/ (issue 37, point 3), Cargo itself refuses a loop.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code lines of a source file: without its unit tests and comments.
fn code_lines(path: &Path) -> Vec<(usize, String)> {
    let text = fs::read_to_string(path).unwrap();
    let code = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    code.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim().to_string()))
        .filter(|(_, l)| !l.starts_with("//"))
        .collect()
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every source file of the application (src/) and of the crates under
/// crates/, each with its module path as the application names it: the
/// crate `crates/rocket` is `crate::rocket` there, so
/// `crates/rocket/src/board.rs` is `rocket::board` and
/// `src/service/report.rs` is `service::report`.
fn all_sources() -> Vec<(PathBuf, Vec<String>)> {
    let mut out = Vec::new();
    let mut files = Vec::new();
    sources(&root().join("src"), &mut files);
    for file in files {
        let module = module_path(&root().join("src"), &file);
        out.push((file, module));
    }
    for entry in fs::read_dir(root().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files = Vec::new();
        sources(&dir.join("src"), &mut files);
        for file in files {
            let mut module = vec![name.clone()];
            module.extend(module_path(&dir.join("src"), &file));
            if module.last().is_some_and(|m| m == "lib") {
                module.pop();
            }
            out.push((file, module));
        }
    }
    out
}

#[test]
fn rocket_is_named_only_in_its_module_and_the_registry() {
    let words = ["rocket", "veto", "locomotive", "stephenson", "goods"];
    let mut found = Vec::new();
    for (file, module) in all_sources() {
        if module[0] == "rocket" || module[0] == "registry" {
            continue;
        }
        for (n, line) in code_lines(&file) {
            let lower = line.to_lowercase();
            // The crate's re-export is how the application names a game.
            if module[0] == "lib" && lower == "pub use rocket;" {
                continue;
            }
            if words.iter().any(|w| lower.contains(w)) {
                found.push(format!("{}:{n}: {line}", file.display()));
            }
        }
    }
    let templates = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    for entry in fs::read_dir(&templates).unwrap() {
        let path = entry.unwrap().path();
        // templates/fonts holds the pictures' font, no template.
        if !path.is_file() {
            continue;
        }
        for (n, line) in fs::read_to_string(&path).unwrap().lines().enumerate() {
            let lower = line.to_lowercase();
            if words.iter().any(|w| lower.contains(w)) {
                found.push(format!("{}:{}: {line}", path.display(), n + 1));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A source file's module path under `src`: `src/service/report.rs` →
/// `service::report`, `src/daemon/mod.rs` → `daemon`.
fn module_path(src: &Path, path: &Path) -> Vec<String> {
    let rel = path.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The module paths `line` of module `at` names: `crate::a::b`,
/// `super::a`, `self::a`, and each item of `use super::{a, b::c}` or
/// `use crate::{a, b}`, as far as the path goes. In a crate under crates/,
/// `crate` is that crate (`at[0]`).
fn named_paths(at: &[String], in_crate: bool, line: &str) -> Vec<Vec<String>> {
    let ident = |s: &str| -> Vec<String> {
        s.split("::")
            .map(|p| {
                p.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
            .take_while(|p| !p.is_empty())
            .collect()
    };
    let base = |root: &str| -> Option<Vec<String>> {
        match root {
            "crate" if in_crate => Some(at[..1].to_vec()),
            "crate" => Some(Vec::new()),
            "self" => Some(at.to_vec()),
            "super" => Some(at[..at.len().saturating_sub(1)].to_vec()),
            _ => None,
        }
    };
    let mut out = Vec::new();
    for root in ["crate::", "super::", "self::"] {
        let mut rest = line;
        while let Some(i) = rest.find(root) {
            // A whole word: not `my_crate::`.
            let before = rest[..i].chars().last();
            rest = &rest[i + root.len()..];
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let Some(mut path) = base(root.trim_end_matches("::")) else {
                continue;
            };
            let mut tail = rest;
            // `super::super::x`
            while let Some(t) = tail.strip_prefix("super::") {
                path.pop();
                tail = t;
            }
            if let Some(group) = tail.strip_prefix('{') {
                let group = group.split('}').next().unwrap_or_default();
                for item in group.split(',') {
                    let mut p = path.clone();
                    p.extend(ident(item.trim()));
                    out.push(p);
                }
            } else {
                path.extend(ident(tail));
                out.push(path);
            }
        }
    }
    out
}

/// Issue 37, point 3: no import cycle between modules at any depth (not
/// only between the top-level ones): each file's references to other
/// modules (`crate::…`, `super::…`, `self::…`, whole paths) are edges, and
/// none may lead back to where it started. A module and its own parent or
/// children are not an edge: a parent declares its children, and a child
/// may use what its parent holds (`super::Ctx`).
#[test]
fn no_import_cycle_between_modules_at_any_depth() {
    let files = all_sources();
    let crates = root().join("crates");
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .map(|(_, m)| m.clone())
        .filter(|m| m != &["lib"] && m != &["main"])
        .collect();
    // The longest module that `path` names (the rest are items in it).
    let resolve = |path: &[String]| -> Option<Vec<String>> {
        (1..=path.len())
            .rev()
            .map(|k| path[..k].to_vec())
            .find(|p| modules.contains(p))
    };
    let related = |a: &[String], b: &[String]| a.starts_with(b) || b.starts_with(a);
    let mut uses: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (file, at) in &files {
        if !modules.contains(at) {
            continue;
        }
        let in_crate = file.starts_with(&crates);
        for (_, line) in code_lines(file) {
            for named in named_paths(at, in_crate, &line) {
                if let Some(to) = resolve(&named)
                    && !related(at, &to)
                {
                    uses.entry(at.clone()).or_default().insert(to);
                }
            }
        }
    }
    let name = |m: &Vec<String>| m.join("::");
    assert!(
        uses.get(&vec!["service".to_string(), "moderator".to_string()])
            .is_some_and(|u| u.contains(&vec!["service".to_string(), "pipeline".to_string()])),
        "the reader sees whole paths: service::moderator uses service::pipeline"
    );
    assert!(
        ["engine", "rocket", "linie1"]
            .iter()
            .all(|c| uses.keys().any(|m| m[0] == *c && m.len() > 1)),
        "the reader sees inside the crates: {:?}",
        uses.keys().collect::<Vec<_>>()
    );
    let mut loops = Vec::new();
    for start in uses.keys() {
        let mut seen = BTreeSet::new();
        let mut todo = vec![(start.clone(), vec![start.clone()])];
        while let Some((at, path)) = todo.pop() {
            for next in uses.get(&at).into_iter().flatten() {
                let mut path = path.clone();
                path.push(next.clone());
                if next == start {
                    loops.push(path.iter().map(name).collect::<Vec<_>>().join(" → "));
                } else if seen.insert(next.clone()) {
                    todo.push((next.clone(), path));
                }
            }
        }
    }
    assert!(loops.is_empty(), "import loops:\n{}", loops.join("\n"));
}

/// `text` with its comments, strings and character literals blanked out
/// (each replaced by spaces, line ends kept), so that braces and `fn` are
/// only those of the code.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && {
            // A raw string: r"…", r#"…"#; not an identifier ending in r.
            let prev = i.checked_sub(1).map(|p| b[p]);
            !prev.is_some_and(|p| p.is_alphanumeric() || p == '_')
                && b[i + 1..].iter().find(|&&h| h != '#') == Some(&'"')
        } {
            let hashes = b[i + 1..].iter().take_while(|&&h| h == '#').count();
            let close: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            let start = i + 2 + hashes;
            let rest: String = b[start..].iter().collect();
            let end = rest
                .find(&close)
                .map(|e| start + rest[..e].chars().count() + close.len());
            let end = end.unwrap_or(b.len());
            while i < end {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if c == '"' {
            blank(&mut out, c);
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    blank(&mut out, b[i]);
                    i += 1;
                }
                if i < b.len() {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
            if i < b.len() {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if c == '\''
            && (b.get(i + 2) == Some(&'\'') || (next == Some('\\') && b[i + 1..].contains(&'\'')))
        {
            // A character literal ('x', '\n', '\u{7f}'), not a lifetime.
            let end = b[i + 1..]
                .iter()
                .skip(1)
                .position(|&q| q == '\'')
                .map_or(b.len(), |p| i + 3 + p);
            while i < end {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The longest a function may be, from its `fn` line to its closing brace.
const LONGEST_FUNCTION: usize = 120;

/// Issue 37, point 4: no function over 120 lines in src/ or crates/ (unit
/// tests aside): a long one is split into functions that each do one named
/// thing. Lists every offender with its length.
#[test]
fn no_function_is_longer_than_120_lines() {
    let mut long = Vec::new();
    let mut functions = 0;
    for (file, _) in all_sources() {
        let text = fs::read_to_string(&file).unwrap();
        let code = code_only(&text);
        let code = match code.find("#[cfg(test)]") {
            Some(i) => &code[..i],
            None => &code[..],
        };
        let lines: Vec<&str> = code.lines().collect();
        for (start, line) in lines.iter().enumerate() {
            let words: Vec<&str> = line.split_whitespace().collect();
            let Some(at) = words.iter().position(|w| *w == "fn") else {
                continue;
            };
            // `fn name` after nothing but qualifiers: a function's head.
            let qualifiers = [
                "pub",
                "pub(crate)",
                "pub(super)",
                "const",
                "async",
                "unsafe",
            ];
            if !words[..at].iter().all(|w| qualifiers.contains(w)) || words.len() == at + 1 {
                continue;
            }
            let name: String = words[at + 1]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let (mut depth, mut nest) = (0i32, 0i32);
            let mut opened = false;
            let mut end = None;
            'lines: for (k, l) in lines.iter().enumerate().skip(start) {
                for c in l.chars() {
                    match c {
                        '{' => {
                            depth += 1;
                            opened = true;
                        }
                        '}' => depth -= 1,
                        '(' | '[' => nest += 1,
                        ')' | ']' => nest -= 1,
                        // A declaration without a body (in a trait), not
                        // the `;` of `[u8; 4]` in its signature.
                        ';' if !opened && nest == 0 => break 'lines,
                        _ => {}
                    }
                    if opened && depth == 0 {
                        end = Some(k);
                        break 'lines;
                    }
                }
            }
            let Some(end) = end else { continue };
            functions += 1;
            let length = end - start + 1;
            if length > LONGEST_FUNCTION {
                let rel = file.strip_prefix(root()).unwrap_or(&file);
                long.push(format!(
                    "{}:{}: {name}, {length} lines",
                    rel.display(),
                    start + 1
                ));
            }
        }
    }
    assert!(
        functions > 1000,
        "the reader found only {functions} functions"
    );
    assert!(
        long.is_empty(),
        "{} functions over {LONGEST_FUNCTION} lines:\n{}",
        long.len(),
        long.join("\n")
    );
}
