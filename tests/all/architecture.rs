//! The shape issue 13 (part 1) promised, checked on the source: a game's
//! words stay in its own module and the registry's list, and no two
//! top-level modules import each other in a loop (not the engine and a
//! game, not the daemon and the command line).

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

#[test]
fn no_two_modules_import_each_other_in_a_loop() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(file);
        if module == "main" || module == "lib" {
            continue;
        }
        for (_, line) in code_lines(file) {
            let mut rest = line.as_str();
            while let Some(i) = rest.find("crate::") {
                rest = &rest[i + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if !name.is_empty() && name != module {
                    uses.entry(module.clone()).or_default().insert(name);
                }
            }
        }
    }
    assert!(uses.contains_key("daemon"), "the daemon uses other modules");
    for start in uses.keys() {
        let mut seen = BTreeSet::new();
        let mut todo = vec![(start.clone(), vec![start.clone()])];
        while let Some((at, path)) = todo.pop() {
            for next in uses.get(&at).into_iter().flatten() {
                let mut path = path.clone();
                path.push(next.clone());
                assert!(next != start, "an import loop: {}", path.join(" → "));
                if seen.insert(next.clone()) {
                    todo.push((next.clone(), path));
                }
            }
        }
    }
}
