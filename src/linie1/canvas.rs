//! A map drawn as rows of segments, each a piece of text with an optional
//! colour, turned into text and HTML in one pass. Game-agnostic: it may
//! move to the engine as is.

use std::fmt::Write as _;

use crate::engine::{Map, escape_html};

/// A piece of map text and its CSS colour, if any.
pub type Seg = (String, Option<&'static str>);

/// The map as text and as HTML, from one drawing. Neighbouring pieces of
/// one colour share a `<span>` (with the blanks between them), which keeps
/// the mail small.
pub fn to_map(rows: &[Vec<Seg>]) -> Map {
    let mut text = String::new();
    let mut html = String::new();
    for row in rows {
        let start = text.len();
        for (piece, _) in row {
            text.push_str(piece);
        }
        let kept = text[start..].trim_end().len();
        text.truncate(start + kept);
        text.push('\n');

        let mut run: Option<(&str, String)> = None;
        let mut blanks = String::new();
        let close = |html: &mut String, run: &mut Option<(&str, String)>, blanks: &mut String| {
            if let Some((c, piece)) = run.take() {
                let _ = write!(
                    html,
                    "<span style=\"color:{c}\">{}</span>",
                    escape_html(&piece)
                );
            }
            html.push_str(blanks);
            blanks.clear();
        };
        // The HTML line ends where the text line does.
        let mut left = kept;
        for (piece, colour) in row {
            if left == 0 {
                break;
            }
            let piece: String = if piece.len() > left {
                piece[..left].to_string()
            } else {
                piece.clone()
            };
            left -= piece.len();
            let blank = piece.trim().is_empty();
            let colour = colour.filter(|_| !blank);
            match (run.as_mut(), colour) {
                (Some(_), None) if blank => blanks.push_str(&piece),
                (Some((open, t)), Some(c)) if *open == c => {
                    t.push_str(&blanks);
                    t.push_str(&piece);
                    blanks.clear();
                }
                (_, colour) => {
                    close(&mut html, &mut run, &mut blanks);
                    match colour {
                        Some(c) => run = Some((c, piece)),
                        None => html.push_str(&escape_html(&piece)),
                    }
                }
            }
        }
        close(&mut html, &mut run, &mut blanks);
        html.push('\n');
    }
    Map { text, html }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_html_come_from_one_drawing() {
        let rows = vec![vec![
            ("a".to_string(), Some("#f00")),
            (" ".to_string(), None),
            ("b".to_string(), Some("#f00")),
            ("<c>  ".to_string(), None),
        ]];
        let m = to_map(&rows);
        assert_eq!(m.text, "a b<c>\n");
        assert_eq!(m.html, "<span style=\"color:#f00\">a b</span>&lt;c&gt;\n");
    }
}
