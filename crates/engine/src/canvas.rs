//! The map canvas every game draws its board on: lines of text pieces,
//! each with the colour it is drawn in, turned in one pass into the text a
//! mail's plain part shows and the HTML of its HTML part. A game decides
//! what goes where; the canvas decides how a colour is written.

use std::borrow::Cow;
use std::fmt::Write as _;

/// A piece of map text and the colour it is drawn in (CSS), if any. Most
/// pieces are fixed text (sea, land, blanks), so they are not copied.
pub type Seg = (Cow<'static, str>, Option<&'static str>);

/// A board being drawn: lines of coloured pieces.
#[derive(Clone, Debug, Default)]
pub struct Canvas {
    lines: Vec<Vec<Seg>>,
}

impl Canvas {
    /// An empty drawing.
    pub fn new() -> Self {
        Canvas::default()
    }

    /// Adds a line of pieces.
    pub fn line(&mut self, pieces: Vec<Seg>) {
        self.lines.push(pieces);
    }

    /// Adds each line of `text`, uncoloured.
    pub fn text(&mut self, text: &str) {
        self.lines.extend(
            text.lines()
                .map(|l| vec![(Cow::Owned(l.to_string()), None)]),
        );
    }

    /// The drawing as text and as HTML; see [`draw`].
    pub fn finish(self) -> Map {
        draw(self.lines)
    }
}

/// A CSS colour for a board colour name; yellow and light colours are
/// darkened so they read on a white page.
pub fn css_colour(name: &str) -> &'static str {
    match name.to_ascii_lowercase().as_str() {
        "red" => "#c62828",
        "purple" | "violet" => "#7b1fa2",
        "black" => "#000000",
        "blue" => "#1565c0",
        "light blue" | "lightblue" => "#0288d1",
        "green" => "#2e7d32",
        "orange" => "#e65100",
        "yellow" => "#a07800",
        "white" => "#757575",
        _ => "#37474f",
    }
}

/// The map as text and as HTML, from one drawing. In the HTML,
/// neighbouring pieces of one colour share a span, with the blanks between
/// them: a row of sea is one span, not one per hex, which keeps the mail
/// small.
pub fn draw(lines: Vec<Vec<Seg>>) -> Map {
    let mut text = String::new();
    let mut html = String::new();
    for line in lines {
        let start = text.len();
        for (piece, _) in &line {
            text.push_str(piece);
        }
        text.truncate(text[start..].trim_end().len() + start);
        text.push('\n');
        // The open span (its colour and text), and blanks after it that
        // join it if the next piece has its colour.
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
        for (piece, colour) in &line {
            let blank = piece.trim().is_empty();
            let colour = colour.filter(|_| !blank);
            match (run.as_mut(), colour) {
                (Some(_), None) if blank => blanks.push_str(piece),
                (Some((open, text)), Some(c)) if *open == c => {
                    text.push_str(&blanks);
                    text.push_str(piece);
                    blanks.clear();
                }
                (_, colour) => {
                    close(&mut html, &mut run, &mut blanks);
                    match colour {
                        Some(c) => run = Some((c, piece.to_string())),
                        None => html.push_str(&escape_html(piece)),
                    }
                }
            }
        }
        close(&mut html, &mut run, &mut blanks);
        html.push('\n');
    }
    Map { text, html }
}

/// A game's board drawn for a mail, by [`Game::render_map`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map {
    /// As text, lines of at most 100 columns.
    pub text: String,
    /// As HTML: the same text, escaped, with coloured `<span>`s, and no
    /// `<pre>` around it ([`page_html`] adds that).
    pub html: String,
}

/// The opening tag of the HTML `<pre>` that holds a map and status block.
const PRE: &str = "<pre style=\"font-family: Menlo, Consolas, 'DejaVu Sans Mono', monospace; font-size: 12px; line-height: 1.25\">";

/// A map and a status block as one text, as a mail shows them.
pub fn page_text(map: &str, status: &str) -> String {
    let mut out = String::with_capacity(map.len() + status.len() + 1);
    out.push_str(map);
    out.push('\n');
    out.push_str(status);
    out
}

/// A map's HTML ([`Map::html`]) and a status block as one HTML
/// `<pre>`.
pub fn page_html(map_html: &str, status: &str) -> String {
    let status = escape_html(status);
    let mut out = String::with_capacity(PRE.len() + map_html.len() + status.len() + 7);
    out.push_str(PRE);
    out.push_str(map_html);
    out.push('\n');
    out.push_str(&status);
    out.push_str("</pre>");
    out
}

/// Text made safe inside HTML.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(i) = rest.find(['&', '<', '>']) {
        out.push_str(&rest[..i]);
        out.push_str(match rest.as_bytes()[i] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            _ => "&gt;",
        });
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
    out
}
