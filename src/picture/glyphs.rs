//! The pictures' text as glyph outlines: before usvg reads an SVG, each
//! `<text>` element becomes a `<path>` of DejaVu Sans's glyphs (the font
//! built into the program, read by [`super::truetype`]), laid out as usvg
//! laid it out: each glyph's advance width and the font's kerning pairs
//! (its `kern` table), on the baseline at `y`, moved left by half or all
//! of the line's width for `text-anchor` `middle` or `end`. resvg is built without its
//! text feature, whose shaping stack (fontdb, harfrust, skrifa,
//! read-fonts) was some 120 CPU seconds of a cold build (issue 37, point
//! 8). The games' SVG is unchanged: a browser showing it draws the `<text>`.
//!
//! Drawn: one `x` and `y`; `font-size` in pixels (usvg's default 12);
//! `text-anchor`; `<tspan>`s continuing the line, each with paint of its own
//! where it has some; fill, stroke, `paint-order` and every other attribute
//! of painting, copied to the path; `font-size` and `text-anchor` inherited
//! as SVG inherits them (an attribute or a `style` declaration). Bold is
//! drawn in the regular face, the one face built in (as usvg drew it).
//! Refused, as a fault in a game's drawing: letters placed one by one
//! (several `x`, `dx`, `rotate`, a tspan's own `x`), spacing, vertical or
//! right-to-left text, a path to follow. Not done: the font's OpenType
//! layout (harfrust drew DejaVu Sans's fi, ffi and ff as ligatures, a
//! pixel or two apart from the letters at our sizes; Arabic's joined
//! forms) and reordering right-to-left runs inside a line.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::OnceLock;

use roxmltree::{Node, NodeId};

use super::truetype::{Face, Segment};

/// A glyph's number in the font.
type GlyphId = u16;

/// DejaVu Sans, the one font pictures are drawn in (`templates/fonts/`,
/// its licence beside it).
const FONT: &[u8] = include_bytes!("../../templates/fonts/DejaVuSans.ttf");

const SVG_NS: &str = "http://www.w3.org/2000/svg";

/// usvg's size for text that sets none.
const DEFAULT_SIZE: f32 = 12.0;

/// `svg` with each `<text>` replaced by its glyphs' outlines, every other
/// byte as it was; borrowed where it has no text. The error says what is
/// wrong.
pub(super) fn outlined(svg: &str) -> Result<Cow<'_, str>, String> {
    if !svg.contains("text") {
        return Ok(Cow::Borrowed(svg));
    }
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(svg, options).map_err(|e| e.to_string())?;
    let mut texts = doc.descendants().filter(|n| is_svg(n, "text")).peekable();
    if texts.peek().is_none() {
        return Ok(Cow::Borrowed(svg));
    }
    let font = font()?;
    let mut out = String::with_capacity(svg.len() * 2);
    let mut from = 0;
    for text in texts {
        let range = text.range();
        // A text inside a text is drawn (or refused) with the outer one.
        if range.start < from {
            continue;
        }
        out.push_str(&svg[from..range.start]);
        outline(&mut out, svg, text, font).map_err(|e| format!("{e}, in {}", short(svg, text)))?;
        from = range.end;
    }
    out.push_str(&svg[from..]);
    Ok(Cow::Owned(out))
}

/// The start of `text`'s source, for an error.
fn short(svg: &str, text: Node) -> String {
    svg[text.range()].chars().take(120).collect()
}

fn is_svg(node: &Node, name: &str) -> bool {
    node.is_element()
        && node.tag_name().name() == name
        && node.tag_name().namespace() == Some(SVG_NS)
}

/// DejaVu Sans, read once, and each glyph's outline, read when first
/// drawn.
struct Font {
    face: Face<'static>,
    /// Font units in an em (one `font-size`).
    units_per_em: f32,
    /// By glyph id.
    outlines: Box<[OnceLock<Box<[Segment]>>]>,
}

fn font() -> Result<&'static Font, String> {
    static FONT_READ: OnceLock<Result<Font, String>> = OnceLock::new();
    FONT_READ
        .get_or_init(|| {
            let face = Face::parse(FONT).ok_or("DejaVu Sans does not read as a TrueType font")?;
            Ok(Font {
                units_per_em: f32::from(face.units_per_em()),
                outlines: (0..face.number_of_glyphs())
                    .map(|_| OnceLock::new())
                    .collect(),
                face,
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

impl Font {
    /// `glyph`'s outline in font units, y up.
    fn outline(&self, glyph: GlyphId) -> &[Segment] {
        match self.outlines.get(usize::from(glyph)) {
            Some(slot) => slot.get_or_init(|| {
                let mut outline = Vec::new();
                self.face.outline(glyph, &mut outline);
                outline.into_boxed_slice()
            }),
            None => &[],
        }
    }

    /// The kerning between `left` and `right`, in font units (the `kern`
    /// table's pairs).
    fn kerning(&self, left: GlyphId, right: GlyphId) -> f32 {
        f32::from(self.face.kerning(left, right))
    }

    fn advance(&self, glyph: GlyphId) -> f32 {
        f32::from(self.face.advance(glyph))
    }
}

/// A character of a text to draw: its size, and the `<tspan>` whose
/// paint it takes (None: the text's own).
struct Letter {
    c: char,
    size: f32,
    paint: Option<NodeId>,
}

/// `text` (an element of `svg`) written to `out` as outlines.
fn outline(out: &mut String, svg: &str, text: Node, font: &Font) -> Result<(), String> {
    refuse_placement(text, &["dx", "dy", "rotate", "textLength"])?;
    let x = coordinate(text, "x")?;
    let y = coordinate(text, "y")?;
    let shift = match inherited(text, "text-anchor") {
        None | Some("start") => 0.0,
        Some("middle") => 0.5,
        Some("end") => 1.0,
        Some(other) => return Err(format!("text-anchor {other:?} is not drawn")),
    };
    let letters = letters(text)?;
    // Where each glyph's origin lies on the line, from its start.
    let mut placed = Vec::with_capacity(letters.len());
    let mut pen = 0.0;
    let mut before: Option<(GlyphId, f32)> = None;
    for letter in &letters {
        // A character the font lacks: its glyph 0, the missing glyph's box.
        let glyph = font.face.glyph_index(letter.c).unwrap_or(0);
        let scale = letter.size / font.units_per_em;
        if let Some((left, size)) = before
            && size == letter.size
        {
            pen += font.kerning(left, glyph) * scale;
        }
        placed.push((glyph, pen, scale, letter.paint));
        pen += font.advance(glyph) * scale;
        before = Some((glyph, letter.size));
    }
    let start = x - pen * shift;
    // The paints in the order they come, the text's own first.
    let mut paints: Vec<Option<NodeId>> = vec![None];
    for letter in &letters {
        if !paints.contains(&letter.paint) {
            paints.push(letter.paint);
        }
    }
    let paths: Vec<(Option<NodeId>, String)> = paints
        .into_iter()
        .map(|paint| {
            let mut d = String::new();
            for (glyph, at, scale, _) in placed.iter().filter(|p| p.3 == paint) {
                write_outline(&mut d, font.outline(*glyph), start + at, y, *scale);
            }
            (paint, d)
        })
        .filter(|(_, d)| !d.is_empty())
        .collect();
    match paths.as_slice() {
        [] => write_element(out, "g", svg, &[text], None),
        [(None, d)] => write_element(out, "path", svg, &[text], Some(d)),
        _ => {
            out.push_str("<g");
            write_attributes(out, svg, &[text]);
            out.push('>');
            for (paint, d) in &paths {
                let chain = match paint.and_then(|id| text.document().get_node(id)) {
                    Some(tspan) => painting_spans(tspan, text),
                    None => Vec::new(),
                };
                write_element(out, "path", svg, &chain, Some(d));
            }
            out.push_str("</g>");
        }
    }
    Ok(())
}

/// `<name` with the attributes of painting of `from` (the later win), and
/// `d` where given, closed.
fn write_element(out: &mut String, name: &str, svg: &str, from: &[Node], d: Option<&str>) {
    out.push('<');
    out.push_str(name);
    if let Some(d) = d {
        out.push_str(" d=\"");
        out.push_str(d);
        out.push('"');
    }
    write_attributes(out, svg, from);
    out.push_str("/>");
}

/// The attributes of `from` that a path keeps, as written in `svg` (the
/// later element's where two have one).
fn write_attributes(out: &mut String, svg: &str, from: &[Node]) {
    for (i, node) in from.iter().enumerate() {
        for attribute in node.attributes().filter(kept) {
            let later = from[i + 1..]
                .iter()
                .any(|n| n.attribute(attribute.name()).is_some());
            if !later {
                out.push(' ');
                out.push_str(&svg[attribute.range()]);
            }
        }
    }
}

/// Attributes of a text's layout, which a path leaves out.
const TEXT_ONLY: &[&str] = &[
    "x",
    "y",
    "dx",
    "dy",
    "rotate",
    "textLength",
    "lengthAdjust",
    "text-anchor",
    "font-family",
    "font-weight",
    "font-style",
    "font-variant",
    "font-stretch",
    "font",
    "font-kerning",
    "kerning",
    "letter-spacing",
    "word-spacing",
    "text-decoration",
    "writing-mode",
    "direction",
    "unicode-bidi",
    "dominant-baseline",
    "alignment-baseline",
    "baseline-shift",
    "text-rendering",
];

/// The `<tspan>`s from `text` down to `tspan` that paint: those with an
/// attribute a path keeps.
fn painting_spans<'a, 'i>(tspan: Node<'a, 'i>, text: Node<'a, 'i>) -> Vec<Node<'a, 'i>> {
    let mut chain: Vec<Node> = tspan
        .ancestors()
        .take_while(|n| *n != text)
        .filter(paints)
        .collect();
    chain.reverse();
    chain
}

fn paints(node: &Node) -> bool {
    node.is_element() && node.attributes().any(|a| kept(&a))
}

/// Whether a path keeps `attribute` of a text or tspan.
fn kept(attribute: &roxmltree::Attribute) -> bool {
    attribute.namespace().is_none() && !TEXT_ONLY.contains(&attribute.name())
}

/// The characters `text` draws, white space dealt with as SVG's
/// `xml:space` says (by default: line breaks dropped, tabs as spaces,
/// runs of spaces as one, none at either end).
fn letters(text: Node) -> Result<Vec<Letter>, String> {
    const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";
    let preserve = text
        .ancestors()
        .find_map(|n| n.attribute((XML_NS, "space")))
        == Some("preserve");
    let mut letters: Vec<Letter> = Vec::new();
    for node in text.descendants() {
        if node.is_element() {
            check_span(node, text)?;
            continue;
        }
        // Drawn: the text of the text, its tspans and links (not a title).
        let Some(parent) = node.parent_element() else {
            continue;
        };
        let in_line = parent
            .ancestors()
            .take_while(|n| *n != text)
            .all(|n| is_svg(&n, "tspan") || is_svg(&n, "a"));
        if !node.is_text() || !in_line {
            continue;
        }
        let size = font_size(parent)?;
        let paint = parent
            .ancestors()
            .take_while(|n| *n != text)
            .find(paints)
            .map(|n| n.id());
        for c in node.text().unwrap_or_default().chars() {
            let c = match c {
                '\n' | '\r' if !preserve => continue,
                '\n' | '\r' | '\t' => ' ',
                c => c,
            };
            let repeated = letters.last().is_none_or(|l| l.c == ' ');
            if c == ' ' && repeated && !preserve {
                continue;
            }
            letters.push(Letter { c, size, paint });
        }
    }
    if !preserve && letters.last().is_some_and(|l| l.c == ' ') {
        letters.pop();
    }
    Ok(letters)
}

/// Refuses what the outlines cannot show in `node`, an element of `text`
/// or the text itself.
fn check_span(node: Node, text: Node) -> Result<(), String> {
    if is_svg(&node, "textPath") || is_svg(&node, "tref") {
        return Err(format!("<{}> is not drawn", node.tag_name().name()));
    }
    if node != text && (is_svg(&node, "tspan") || is_svg(&node, "a")) {
        refuse_placement(node, &["x", "y", "dx", "dy", "rotate", "textLength"])?;
    }
    for name in [
        "letter-spacing",
        "word-spacing",
        "writing-mode",
        "direction",
        "baseline-shift",
        "dominant-baseline",
        "alignment-baseline",
        "text-decoration",
    ] {
        if let Some(value) = inherited(node, name)
            && ![
                "normal",
                "0",
                "auto",
                "none",
                "ltr",
                "lr",
                "lr-tb",
                "horizontal-tb",
                "baseline",
            ]
            .contains(&value)
        {
            return Err(format!("{name} {value:?} is not drawn"));
        }
    }
    Ok(())
}

/// Refuses each of `names` set on `node`.
fn refuse_placement(node: Node, names: &[&str]) -> Result<(), String> {
    match names.iter().find(|name| node.attribute(**name).is_some()) {
        Some(name) => Err(format!("a text's letters placed by `{name}` are not drawn")),
        None => Ok(()),
    }
}

/// A text's `x` or `y`: one length in pixels, 0 where none.
fn coordinate(text: Node, name: &str) -> Result<f32, String> {
    match text.attribute(name) {
        None => Ok(0.0),
        Some(value) => pixels(value).ok_or_else(|| format!("{name} {value:?} is not drawn")),
    }
}

/// `value` as pixels: a number, or one with `px`.
fn pixels(value: &str) -> Option<f32> {
    let value = value.trim();
    let number = value.strip_suffix("px").unwrap_or(value);
    number.parse::<f32>().ok().filter(|v| v.is_finite())
}

/// The font size `node`'s text is drawn at, inherited.
fn font_size(node: Node) -> Result<f32, String> {
    match inherited(node, "font-size") {
        None => Ok(DEFAULT_SIZE),
        Some(value) => pixels(value)
            .filter(|v| *v >= 0.0)
            .ok_or_else(|| format!("font-size {value:?} is not drawn")),
    }
}

/// Property `name` of `node` as inherited: set on it or on the nearest
/// element above it.
fn inherited<'a>(node: Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.ancestors()
        .filter(Node::is_element)
        .find_map(|n| own(n, name).filter(|v| *v != "inherit"))
}

/// Property `name` set on `node` itself: in its `style` (which wins), or
/// as an attribute.
fn own<'a>(node: Node<'a, '_>, name: &str) -> Option<&'a str> {
    let styled = node.attribute("style").and_then(|style| {
        style
            .split(';')
            .filter_map(|declaration| declaration.split_once(':'))
            .filter(|(key, _)| key.trim() == name)
            .map(|(_, value)| value.trim())
            .next_back()
    });
    styled.or_else(|| node.attribute(name))
}

/// `outline` as path data, scaled by `scale` with y down, its origin at
/// `(x, y)`.
fn write_outline(d: &mut String, outline: &[Segment], x: f32, y: f32, scale: f32) {
    let point = |d: &mut String, px: f32, py: f32| {
        number(d, x + px * scale);
        d.push(' ');
        number(d, y - py * scale);
    };
    for segment in outline {
        match *segment {
            Segment::Move(px, py) => {
                d.push('M');
                point(d, px, py);
            }
            Segment::Line(px, py) => {
                d.push('L');
                point(d, px, py);
            }
            Segment::Quad(x1, y1, px, py) => {
                d.push('Q');
                point(d, x1, y1);
                d.push(' ');
                point(d, px, py);
            }
            Segment::Close => d.push('Z'),
        }
    }
}

/// `v` to a thousandth, without trailing zeros (a thousandth of a pixel
/// of the picture: invisible).
fn number(d: &mut String, v: f32) {
    let thousandths = (f64::from(v) * 1000.0).round() as i64;
    if thousandths < 0 {
        d.push('-');
    }
    let n = thousandths.unsigned_abs();
    let _ = write!(d, "{}", n / 1000);
    let mut fraction = n % 1000;
    if fraction != 0 {
        let mut digits = 3;
        while fraction.is_multiple_of(10) {
            fraction /= 10;
            digits -= 1;
        }
        let _ = write!(d, ".{fraction:0digits$}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(body: &str) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"100\" \
             font-family=\"DejaVu Sans\">{body}</svg>"
        )
    }

    /// The `d` of each path in `svg`.
    fn paths(svg: &str) -> Vec<String> {
        let doc = roxmltree::Document::parse(svg).expect("XML");
        doc.descendants()
            .filter_map(|n| n.attribute("d").map(str::to_string))
            .collect()
    }

    /// The leftmost and rightmost x of `d`'s points.
    fn span(d: &str) -> (f32, f32) {
        let numbers: Vec<f32> = d
            .split(|c: char| c.is_ascii_alphabetic() || c == ' ')
            .filter_map(|n| n.parse().ok())
            .collect();
        let xs = numbers.iter().step_by(2);
        (
            xs.clone().fold(f32::MAX, |a, b| a.min(*b)),
            xs.fold(f32::MIN, |a, b| a.max(*b)),
        )
    }

    fn outlined_doc(body: &str) -> String {
        outlined(&doc(body)).expect("outlined").into_owned()
    }

    #[test]
    fn only_the_text_elements_change() {
        let before = "<!-- a &amp; b --><rect x=\"1\" fill=\"#b9d4ee\"/>";
        let after = "<circle r=\"3\"/>";
        let svg = outlined_doc(&format!(
            "{before}<text x=\"10\" y=\"20\" fill=\"#212121\">Leeds</text>{after}"
        ));
        assert!(svg.contains(&format!("{before}<path d=\"M")), "{svg}");
        assert!(
            svg.ends_with(&format!("fill=\"#212121\"/>{after}</svg>")),
            "{svg}"
        );
        assert!(!svg.contains("<text"));
        // Nothing to do: the very string back.
        let plain = doc("<rect width=\"5\"/>");
        assert!(matches!(outlined(&plain), Ok(Cow::Borrowed(_))));
    }

    #[test]
    fn the_anchor_moves_the_line_by_half_or_all_its_width() {
        let at = |anchor: &str| {
            let svg = outlined_doc(&format!(
                "<text x=\"100\" y=\"50\" font-size=\"20\" text-anchor=\"{anchor}\">Manchester</text>"
            ));
            span(&paths(&svg)[0])
        };
        let (start, middle, end) = (at("start"), at("middle"), at("end"));
        // The ink starts just right of x (the M's side bearing).
        assert!(start.0 > 100.0 && start.0 < 103.0, "{start:?}");
        let width = start.0 - end.0;
        // About 0.6 em a letter: DejaVu Sans is wide.
        assert!(width > 100.0 && width < 130.0, "{width}");
        assert!((start.0 - middle.0 - width / 2.0).abs() < 0.01);
        assert!((end.0 + width - start.0).abs() < 0.01);
        // The line ends at x (the r's ink reaches its advance).
        assert!(end.1 <= 100.0 && end.1 > 97.0, "{end:?}");
    }

    #[test]
    fn size_anchor_and_fill_are_inherited_as_svg_inherits_them() {
        let own =
            outlined_doc("<text x=\"50\" y=\"40\" font-size=\"16\" text-anchor=\"end\">B7</text>");
        let inherited = outlined_doc(
            "<g font-size=\"16\" fill=\"#616161\" text-anchor=\"end\"><text x=\"50\" y=\"40\">B7</text></g>",
        );
        let styled = outlined_doc(
            "<g style=\"font-size: 16px; text-anchor: end\"><text x=\"50\" y=\"40\">B7</text></g>",
        );
        assert_eq!(paths(&own), paths(&inherited));
        assert_eq!(paths(&own), paths(&styled));
        // The fill stays on the group, where the path inherits it.
        assert!(
            inherited.contains("<g font-size=\"16\" fill=\"#616161\" text-anchor=\"end\"><path d=")
        );
        // The default size is 12.
        let small = outlined_doc("<text x=\"50\" y=\"40\" text-anchor=\"end\">B7</text>");
        let (a, b) = (span(&paths(&own)[0]), span(&paths(&small)[0]));
        assert!(((50.0 - a.0) / (50.0 - b.0) - 16.0 / 12.0).abs() < 0.02);
    }

    #[test]
    fn a_tspan_continues_the_line_and_paints_its_own_where_it_has_paint() {
        let plain = outlined_doc("<text x=\"5\" y=\"20\" font-size=\"14\">Ann · line 3</text>");
        let bold = outlined_doc(
            "<text x=\"5\" y=\"20\" font-size=\"14\"><tspan font-weight=\"bold\">Ann</tspan> · line 3</text>",
        );
        assert_eq!(paths(&plain), paths(&bold));
        let red = outlined_doc(
            "<text x=\"5\" y=\"20\" font-size=\"14\" fill=\"#000\"><tspan fill=\"#f00\">Ann</tspan> · line 3</text>",
        );
        let both = paths(&red);
        // The text's own letters first, then the tspan's: the same glyphs.
        assert_eq!(both.len(), 2, "{red}");
        assert_eq!(format!("{}{}", both[1], both[0]), paths(&plain)[0]);
        assert!(
            red.contains("<g font-size=\"14\" fill=\"#000\"><path d="),
            "{red}"
        );
        assert!(red.contains(" fill=\"#f00\"/></g>"), "{red}");
    }

    #[test]
    fn halo_attributes_go_to_the_path() {
        let svg = outlined_doc(
            "<text x=\"9\" y=\"9\" font-size=\"9\" fill=\"#616161\" text-anchor=\"middle\" stroke=\"#ffffff\" \
             stroke-width=\"2.5\" stroke-linejoin=\"round\" paint-order=\"stroke\">York</text>",
        );
        assert!(
            svg.contains(
                " font-size=\"9\" fill=\"#616161\" stroke=\"#ffffff\" stroke-width=\"2.5\" \
                 stroke-linejoin=\"round\" paint-order=\"stroke\"/>"
            ),
            "{svg}"
        );
    }

    #[test]
    fn entities_are_drawn_as_their_characters_and_spaces_collapse() {
        let one = |body: &str| paths(&outlined_doc(body));
        assert_eq!(
            one("<text y=\"9\">Ann &amp; Bo</text>"),
            one("<text y=\"9\">\n  Ann   &#38;\tBo  </text>")
        );
        assert_ne!(
            one("<text y=\"9\">Ann &amp; Bo</text>"),
            one("<text y=\"9\">Ann Bo</text>")
        );
    }

    #[test]
    fn kerning_pairs_close_up_a_line() {
        let font = font().expect("DejaVu Sans");
        let (a, v) = (
            font.face.glyph_index('A').expect("A"),
            font.face.glyph_index('V').expect("V"),
        );
        assert!(font.kerning(a, v) < 0.0);
        let right = |s: &str| {
            span(
                &paths(&outlined_doc(&format!(
                    "<text font-size=\"100\">{s}</text>"
                )))[0],
            )
            .1
        };
        // V comes after A's advance, less the pair's kerning.
        let scale = 100.0 / font.units_per_em;
        let after = (font.advance(a) + font.kerning(a, v)) * scale;
        assert!((right("AV") - right("V") - after).abs() < 0.01);
    }

    #[test]
    fn what_the_outlines_cannot_show_is_refused() {
        for body in [
            "<text x=\"1 2 3\" y=\"9\">abc</text>",
            "<text y=\"9\" dx=\"2\">abc</text>",
            "<text y=\"9\">a<tspan x=\"40\">bc</tspan></text>",
            "<text y=\"9\" letter-spacing=\"2\">abc</text>",
            "<g direction=\"rtl\"><text y=\"9\">abc</text></g>",
            "<text y=\"9\" font-size=\"2em\">abc</text>",
        ] {
            let svg = doc(body);
            let refused = outlined(&svg);
            assert!(refused.is_err(), "{body}: {refused:?}");
        }
        assert!(outlined(&doc("<text>")).is_err());
    }

    #[test]
    fn numbers_are_written_to_a_thousandth() {
        let written = |v: f32| {
            let mut d = String::new();
            number(&mut d, v);
            d
        };
        assert_eq!(written(12.0), "12");
        assert_eq!(written(-0.5), "-0.5");
        assert_eq!(written(1.23456), "1.235");
        assert_eq!(written(0.0004), "0");
        assert_eq!(written(-2.05), "-2.05");
    }
}
