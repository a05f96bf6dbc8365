//! The mail templates of `templates/`, rendered with minijinja.
//!
//! Every template is built into the binary; an operator may point
//! `[templates] dir` at a folder with their own copies, and any template
//! found there replaces the built-in one. Text templates render without
//! escaping; `.html` templates escape every value (the map arrives already
//! as HTML and is marked `safe` in the template).
//!
//! A text template writes each paragraph as one line: the mail's text part
//! is flowed and its prose wrapped when the mail is composed
//! ([`crate::flowed`]). The `fixed` filter marks lines to be sent as they
//! are (`  > {{ line | fixed }}`: a quoted order); maps, tables and quoted
//! lines are kept so without it.

use std::path::{Path, PathBuf};

use minijinja::{AutoEscape, Environment};
use serde::Serialize;

/// The templates Stationmaster uses, with their built-in text.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("report.txt", include_str!("../../../templates/report.txt")),
    (
        "report.html",
        include_str!("../../../templates/report.html"),
    ),
    ("help.txt", include_str!("../../../templates/help.txt")),
    (
        "intruder.txt",
        include_str!("../../../templates/intruder.txt"),
    ),
    (
        "notice.html",
        include_str!("../../../templates/notice.html"),
    ),
];

/// A template that cannot be read or rendered.
#[derive(Debug, thiserror::Error)]
#[error("template {name}: {message}")]
pub struct TemplateError {
    /// The template's name.
    pub name: String,
    /// What went wrong.
    pub message: String,
}

/// The `wrap` filter: each line of `text` longer than `width` (72 unless
/// given) broken at spaces into lines no longer, where its words allow.
/// A line's indent is kept; no blank is left where a line is broken. The
/// built-in templates leave wrapping to the text part, which is flowed
/// ([`crate::flowed`]): the filter stays for operators' own copies.
fn wrap(text: String, width: Option<usize>) -> String {
    let width = width.unwrap_or(72).max(1);
    let mut out = String::with_capacity(text.len() + text.len() / width);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut length = 0;
        for (j, word) in line.split(' ').enumerate() {
            if j > 0 {
                if !word.is_empty() && length > 0 && length + 1 + word.chars().count() > width {
                    // No blank left at the end of the line broken.
                    while out.ends_with(' ') {
                        out.pop();
                    }
                    out.push('\n');
                    length = 0;
                } else {
                    out.push(' ');
                    length += 1;
                }
            }
            out.push_str(word);
            length += word.chars().count();
        }
    }
    out
}

/// The loaded templates.
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    /// The built-in templates, each replaced by a file of the same name in
    /// `dir` where there is one.
    pub fn load(dir: Option<&Path>) -> Result<Templates, TemplateError> {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.add_filter("wrap", wrap);
        env.add_filter("fixed", |text: String| crate::flowed::fixed(&text));
        env.set_auto_escape_callback(|name| {
            if name.ends_with(".html") {
                AutoEscape::Html
            } else {
                AutoEscape::None
            }
        });
        for (name, text) in BUILT_IN {
            let source = match dir.map(|d| d.join(name)) {
                Some(path) if path.exists() => {
                    std::fs::read_to_string(&path).map_err(|e| TemplateError {
                        name: path.display().to_string(),
                        message: e.to_string(),
                    })?
                }
                _ => text.to_string(),
            };
            env.add_template_owned(name.to_string(), source)
                .map_err(|e| TemplateError {
                    name: name.to_string(),
                    message: e.to_string(),
                })?;
        }
        Ok(Templates { env })
    }

    /// Where an operator's copies would be looked for, for messages.
    pub fn describe(dir: Option<&Path>) -> String {
        match dir {
            Some(d) => format!(
                "templates from {} (built-in where missing)",
                PathBuf::from(d).display()
            ),
            None => "built-in templates".to_string(),
        }
    }

    /// Renders template `name` with `context`.
    pub fn render<C: Serialize>(&self, name: &str, context: &C) -> Result<String, TemplateError> {
        let err = |e: minijinja::Error| TemplateError {
            name: name.to_string(),
            message: format!("{e:#}"),
        };
        self.env
            .get_template(name)
            .map_err(err)?
            .render(context)
            .map_err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_long_lines_at_blanks_and_keeps_the_rest() {
        let text = "  indented short line\na long line of words that runs on past the width\nx";
        let wrapped = wrap(text.to_string(), Some(20));
        assert_eq!(
            wrapped,
            "  indented short\nline\na long line of words\nthat runs on past\nthe width\nx"
        );
        // Two blanks at a break leave none behind; a word longer than the
        // width stays whole; a width of 0 is taken as 1.
        assert_eq!(wrap("abc  defgh".to_string(), Some(4)), "abc\ndefgh");
        assert_eq!(wrap("a b".to_string(), Some(0)), "a\nb");
    }

    #[test]
    fn the_built_in_templates_compile_and_an_operator_copy_wins() {
        let t = Templates::load(None).unwrap();
        let out = t
            .render(
                "help.txt",
                &serde_json::json!({ "address": "sm@example.org", "reason": null, "games": [] }),
            )
            .unwrap();
        assert!(out.contains("sm@example.org"));
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(
            dir.path().join("help.txt"),
            "Custom help for {{ address }}.",
        )
        .unwrap();
        let t = Templates::load(Some(dir.path())).unwrap();
        let out = t
            .render("help.txt", &serde_json::json!({ "address": "x@y" }))
            .unwrap();
        assert_eq!(out, "Custom help for x@y.");
    }

    #[test]
    fn the_fixed_filter_marks_each_line_to_be_sent_as_it_is() {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(
            dir.path().join("help.txt"),
            "A sentence.\n  > {{ line | fixed }}\n{{ table | fixed }}",
        )
        .unwrap();
        let t = Templates::load(Some(dir.path())).unwrap();
        let out = t
            .render(
                "help.txt",
                &serde_json::json!({ "line": "extend gwr c14", "table": "two words\nand three more" }),
            )
            .unwrap();
        let marked: Vec<bool> = out.lines().map(crate::flowed::is_fixed).collect();
        assert_eq!(marked, [false, true, true, true]);
        assert_eq!(
            crate::flowed::unmarked(&out),
            "A sentence.\n  > extend gwr c14\ntwo words\nand three more"
        );
    }

    #[test]
    fn html_templates_escape_values() {
        let t = Templates::load(None).unwrap();
        let out = t
            .render(
                "report.html",
                &serde_json::json!({ "game": "<g>", "map_html": "<pre>ok</pre>", "events": ["a < b"] }),
            )
            .unwrap();
        assert!(out.contains("a &lt; b"), "{out}");
        assert!(out.contains("<pre>ok</pre>"), "{out}");
    }
}
