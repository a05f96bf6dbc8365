//! The shape issue 13 (part 1) promised, checked on the source: a game's
//! words stay in its own module and the registry's list, and no modules
//! import each other in a loop, at any depth (not the engine and a game,
//! not the daemon and the command line, not two services).

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

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level module a file belongs to: `src/daemon/mod.rs` → daemon.
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix(src()).unwrap();
    let first = rel.components().next().unwrap().as_os_str();
    first.to_string_lossy().trim_end_matches(".rs").to_string()
}

#[test]
fn rocket_is_named_only_in_its_module_and_the_registry() {
    let words = ["rocket", "veto", "locomotive", "stephenson", "goods"];
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let mut found = Vec::new();
    for file in &files {
        let module = module_of(file);
        if module == "rocket" || module == "registry" {
            continue;
        }
        for (n, line) in code_lines(file) {
            let lower = line.to_lowercase();
            // The module's declaration is how a game is a folder in src/.
            if module == "lib" && lower == "pub mod rocket;" {
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

/// A source file's module path: `src/service/report.rs` → `service::report`,
/// `src/daemon/mod.rs` → `daemon`.
fn module_path(path: &Path) -> Vec<String> {
    let rel = path.strip_prefix(src()).unwrap().with_extension("");
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
/// `use crate::{a, b}`, as far as the path goes.
fn named_paths(at: &[String], line: &str) -> Vec<Vec<String>> {
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
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .map(|f| module_path(f))
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
    for file in &files {
        let at = module_path(file);
        if !modules.contains(&at) {
            continue;
        }
        for (_, line) in code_lines(file) {
            for named in named_paths(&at, &line) {
                if let Some(to) = resolve(&named)
                    && !related(&at, &to)
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
