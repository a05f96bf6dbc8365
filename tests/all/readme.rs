//! README's scripts, run as printed, so that README and the binary cannot
//! drift apart (issue 12, point 5).
//!
//! - "Playing a game locally": every fenced `sh` block of the section is
//!   cut into commands (a command runs on over `\` line ends and over
//!   quoted newlines; `#` starts a comment outside quotes) and each is run
//!   by `sh` in one temp folder, with the built `stationmaster` first on
//!   `PATH`. Each must exit 0, or 2 where its comment says it is
//!   `refused`.
//! - "Two commands on a fresh machine": the `cargo run … -- ARGS` line is
//!   run as the built binary with ARGS (`demo`) in a fresh temp folder, and
//!   what README says it leaves behind is checked; `cargo test` is this
//!   very run, so it is not run again.
//! - README links each of its guides (`docs/players.md`,
//!   `docs/game-masters.md`, `docs/operators.md`, `docs/contributing.md`),
//!   and every relative link of README and `docs/*.md` reaches a file,
//!   and its `#anchor` a heading of that file.

use std::path::Path;
use std::process::Command;

use tempfile::TempDir;

/// One shell command of a README block, and the comment written after it.
#[derive(Debug)]
struct Line {
    command: String,
    comment: String,
}

/// README's text.
fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(&path).expect("README.md is read")
}

/// The section under the heading `## TITLE` (or `###`), up to the next
/// heading of the same or a higher level.
fn section<'a>(text: &'a str, title: &str) -> &'a str {
    let mut start = None;
    let mut level = 0;
    let mut offset = 0;
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        if !fenced && line.starts_with('#') {
            let hashes = line.chars().take_while(|c| *c == '#').count();
            let heading = line[hashes..].trim();
            match start {
                None if heading == title => {
                    start = Some(offset + line.len());
                    level = hashes;
                }
                Some(s) if hashes <= level => return &text[s..offset],
                _ => {}
            }
        }
        offset += line.len();
    }
    let s = start.unwrap_or_else(|| panic!("README has no section {title:?}"));
    &text[s..]
}

/// The contents of every ```` ```sh ```` block in `text`.
fn sh_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim_end() == "```sh" => current = Some(String::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    assert!(current.is_none(), "an sh block is not closed");
    blocks
}

/// Cuts a block into commands as `sh` reads them: a command goes on over a
/// `\` line end and over newlines inside quotes; `#` at the start of a word
/// outside quotes starts a comment.
fn commands(block: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut command = String::new();
    let mut comment = String::new();
    let mut quote: Option<char> = None;
    for line in block.lines() {
        let mut chars = line.chars().peekable();
        let mut previous = ' ';
        while let Some(c) = chars.next() {
            match quote {
                Some(q) => {
                    if c == q {
                        quote = None;
                    }
                    command.push(c);
                }
                None if c == '\'' || c == '"' => {
                    quote = Some(c);
                    command.push(c);
                }
                None if c == '#' && previous.is_whitespace() => {
                    let rest: String = chars.by_ref().collect();
                    comment.push_str(rest.trim());
                    comment.push(' ');
                }
                None => command.push(c),
            }
            previous = c;
        }
        if quote.is_some() {
            command.push('\n');
            continue;
        }
        let trimmed = command.trim_end();
        if let Some(joined) = trimmed.strip_suffix('\\') {
            command = format!("{joined} ");
            continue;
        }
        if !trimmed.is_empty() {
            out.push(Line {
                command: trimmed.to_string(),
                comment: comment.trim().to_string(),
            });
        }
        command.clear();
        comment.clear();
    }
    assert!(quote.is_none(), "a quote is not closed in {block}");
    out
}

/// The folder of the built binary, to put first on `PATH`.
fn bin_dir() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_stationmaster"));
    let dir = bin.parent().expect("the binary's folder");
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Runs `command` with `sh` in `dir` as a reader of README would: no
/// config file and the system clock.
fn sh(dir: &Path, command: &str) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", bin_dir())
        .env_remove("STATIONMASTER_CONFIG")
        .env_remove("STATIONMASTER_NOW")
        .env_remove("RUST_LOG")
        .output()
        .expect("sh runs")
}

#[test]
fn the_cutter_reads_continuations_quotes_and_comments() {
    let lines =
        commands("a b \\\n    c d\n# only a comment\n\ne 'f\ng' # says refused\nh \"#x\" i#j\n");
    let got: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| (l.command.as_str(), l.comment.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("a b      c d", ""),
            ("e 'f\ng'", "says refused"),
            ("h \"#x\" i#j", ""),
        ]
    );
}

#[test]
fn playing_a_game_locally_runs_as_printed() {
    let text = readme();
    let blocks = sh_blocks(section(&text, "Playing a game locally"));
    assert!(!blocks.is_empty(), "the section has an sh block");
    let dir = TempDir::new().expect("temp dir");
    let mut ran = 0;
    for block in &blocks {
        for line in commands(block) {
            let expected = if line.comment.contains("refused") {
                2
            } else {
                0
            };
            let out = sh(dir.path(), &line.command);
            assert_eq!(
                out.status.code(),
                Some(expected),
                "README's line\n  {}\n(comment: {:?}) exited {:?}, README says {expected}\n\
                 stdout:\n{}\nstderr:\n{}",
                line.command,
                line.comment,
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
            ran += 1;
        }
    }
    assert!(ran >= 5, "only {ran} commands found in the section");
}

#[test]
fn the_first_of_the_two_commands_does_what_readme_says() {
    let text = readme();
    let blocks = sh_blocks(section(&text, "Two commands on a fresh machine"));
    let lines: Vec<Line> = blocks.iter().flat_map(|b| commands(b)).collect();
    let words: Vec<Vec<&str>> = lines
        .iter()
        .map(|l| l.command.split_whitespace().collect())
        .collect();
    assert_eq!(words.len(), 2, "README promises two commands: {lines:?}");
    assert_eq!(words[1], ["cargo", "test"], "the second is the tests");
    let run = &words[0];
    assert_eq!(run[..2], ["cargo", "run"], "the first runs the binary");
    let args: Vec<&str> = match run.iter().position(|w| *w == "--") {
        Some(i) => run[i + 1..].to_vec(),
        None => Vec::new(),
    };
    assert_eq!(args, ["demo"], "the first command runs the demo");

    let dir = TempDir::new().expect("temp dir");
    let out = Command::new(env!("CARGO_BIN_EXE_stationmaster"))
        .args(&args)
        .current_dir(dir.path())
        .env_remove("STATIONMASTER_CONFIG")
        .env_remove("STATIONMASTER_NOW")
        .output()
        .expect("the demo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "demo failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // "games live in `var/db`"
    assert!(dir.path().join("var/db").is_dir(), "var/db is made");
    // "writes ten players' mails into `var/inbox/new`", read by the cycle.
    let inbox = ["new", "cur"]
        .iter()
        .filter_map(|d| std::fs::read_dir(dir.path().join("var/inbox").join(d)).ok())
        .flat_map(|rd| rd.flatten())
        .count();
    assert_eq!(inbox, 10, "README says the demo writes ten mails");
    // "The replies and reports are in `var/outbox/*.eml`"
    let eml = std::fs::read_dir(dir.path().join("var/outbox"))
        .expect("var/outbox is made")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
        .count();
    assert!(eml > 3, "welcome mails, replies and reports: {eml}");
    // "prints the game's log and the map as the first player sees it"
    assert!(stdout.contains("As alice sees it now"), "{stdout}");
}

/// The anchor GitHub gives a heading: lower case, spaces as `-`, and
/// nothing but letters, digits, `-` and `_` kept.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of every heading of a Markdown text, outside fences.
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of the Markdown links `[text](target)` of a text, outside
/// fences and code spans.
fn link_targets(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans are the odd pieces between backticks.
        for (i, piece) in line.split('`').enumerate() {
            if i % 2 == 1 {
                continue;
            }
            let mut rest = piece;
            while let Some(at) = rest.find("](") {
                let after = &rest[at + 2..];
                let Some(end) = after.find(')') else { break };
                out.push(after[..end].to_string());
                rest = &after[end..];
            }
        }
    }
    out
}

#[test]
fn readme_links_its_guides_and_every_link_of_the_docs_lands() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = readme();
    for guide in [
        "docs/players.md",
        "docs/game-masters.md",
        "docs/operators.md",
        "docs/contributing.md",
    ] {
        assert!(
            text.contains(&format!("]({guide})")),
            "README does not link {guide}"
        );
    }
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/ is read") {
        let path = entry.expect("an entry of docs/").path();
        if path.extension().is_some_and(|x| x == "md") {
            files.push(path);
        }
    }
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a Markdown file is read");
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                file.clone()
            } else {
                file.parent().expect("a file's folder").join(path)
            };
            assert!(
                linked.exists(),
                "{}: the link {target:?} reaches no file",
                file.display()
            );
            if let Some(fragment) = fragment {
                let there = std::fs::read_to_string(&linked).expect("the linked file is read");
                assert!(
                    anchors(&there).iter().any(|a| a == fragment),
                    "{}: the link {target:?} reaches no heading of {}",
                    file.display(),
                    linked.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} links found");
}
