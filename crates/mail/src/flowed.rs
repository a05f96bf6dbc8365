//! `format=flowed` (RFC 3676), both ways: the text part of every mail we
//! send ([`flowed`], called by [`crate::compose`] alone), and a player's
//! flowed mail read back ([`unflow`], called by [`crate::ingest`]).
//!
//! What a mail's text says is a list of lines. Prose is wrapped here, and
//! nowhere else, at [`WIDTH`] columns: each break a soft one (a space at
//! the end of the line, `DelSp=no`), so a mail program that knows the
//! format joins the lines again and fits the paragraph to its window (a
//! phone's), and one that does not shows lines of 72. A fixed line is sent
//! as it is and never joined to the next: a map, a table, a legend, a
//! quoted order. Which lines are fixed is decided by [`is_fixed`]: a line
//! its maker marked ([`fixed`], [`FIXED`]), or one that is laid out in
//! columns, drawn, or quoted. Every line is sent without the spaces it
//! ended in (a fixed line ending in a space would be read as flowed), and
//! space-stuffed where RFC 3676 (4.4) asks.

use std::borrow::Cow;

/// The longest prose line, in characters, counting a space-stuffing but
/// not the space that ends a line broken here (RFC 3676, 4.2: "lines …
/// SHOULD be … 72").
pub const WIDTH: usize = 72;

/// Marks the line it is on as fixed: [`fixed`] puts it at the start of
/// each line of a map or a table as a mail's text is made, and
/// [`flowed`] takes it out. U+FDD0 is a noncharacter, which Unicode sets
/// aside for a program's own use: no text we send means it.
pub const FIXED: char = '\u{FDD0}';

/// `text` with each of its lines marked fixed ([`FIXED`]): sent as it is.
pub fn fixed(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16 + 3);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if !line.is_empty() {
            out.push(FIXED);
        }
        out.push_str(line);
    }
    out
}

/// `text` without the marks of [`fixed`]: for a part that is not flowed,
/// such as the HTML made of a mail's text.
pub fn unmarked(text: &str) -> Cow<'_, str> {
    if text.contains(FIXED) {
        text.replace(FIXED, "").into()
    } else {
        text.into()
    }
}

/// The signature separator, the one line sent with its trailing space
/// (RFC 3676, 4.3).
const SIGNATURE: &str = "-- ";

/// The deepest indent of a prose line; a deeper one goes on in a column
/// of the line above (a table's cell that runs on).
const PROSE_INDENT: usize = 7;

/// True if `line` (without its marks) is sent as it is: marked
/// ([`FIXED`]); laid out in columns ([`in_columns`]), as maps and tables
/// are; drawn with box-drawing or block characters; or quoted (`>` first
/// after its indent). A prose sentence has none of these; a map's row or
/// a table's may be the width of the map and must not be broken.
pub fn is_fixed(line: &str) -> bool {
    if line.contains(FIXED) {
        return true;
    }
    let text = line.trim_start_matches(' ');
    text.starts_with('>')
        || in_columns(line)
        || text.chars().any(|c| ('\u{2500}'..='\u{259F}').contains(&c))
}

/// True if `line` is laid out in columns: a tab; an indent deeper than
/// [`PROSE_INDENT`]; or, after its first word, a run of three spaces, or
/// of two but after the end of a sentence (`left.  Supplementary` is
/// prose; `HEX  move` is a table's two columns).
fn in_columns(line: &str) -> bool {
    let text = line.trim_start_matches(' ');
    if line.len() - text.len() > PROSE_INDENT || text.contains('\t') {
        return true;
    }
    let text = text.trim_end();
    let mut spaces = 0;
    let mut before = ' ';
    for c in text.chars() {
        if c == ' ' {
            spaces += 1;
            continue;
        }
        if spaces >= 3 || (spaces == 2 && !".!?:;".contains(before)) {
            return true;
        }
        spaces = 0;
        before = c;
    }
    false
}

/// True if a line sent as `line` needs a space before it (RFC 3676,
/// 4.4): one that starts with a space or `>` (else read as quoted), or
/// with `From ` (which some servers turn into `>From `).
fn needs_stuffing(line: &str) -> bool {
    line.starts_with(' ') || line.starts_with('>') || line.starts_with("From ")
}

/// How a line of the text is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Broken at spaces into lines of at most [`WIDTH`].
    Prose,
    /// As it is.
    Fixed,
    /// Blank: fixed, and never stuffed (a lone space would be a flowed
    /// line).
    Blank,
    /// The signature separator.
    Signature,
}

/// `text` as a `format=flowed; delsp=no` text part: prose broken at
/// spaces into lines of at most [`WIDTH`] (a space ends each line but the
/// paragraph's last), fixed lines as they are ([`is_fixed`]), every line
/// without the spaces it ended in (but the signature separator `-- `) and
/// space-stuffed where it must be. The lines of a run of fixed ones (blank
/// lines do not end a run) are stuffed alike, so that a map's rows stay in
/// their columns for a reader whose mail program does not know the format
/// (RFC 3676, 4.4: "Other lines MAY be space-stuffed"). [`unflow`] gives
/// back `text`, without its marks and those spaces.
pub fn flowed(text: &str) -> String {
    let lines: Vec<(Kind, &str)> = text.split('\n').map(kind_of).collect();
    let unmarked: Vec<Cow<'_, str>> = lines.iter().map(|(_, l)| unmarked(l)).collect();
    let stuffed = stuffed_runs(&lines, &unmarked);
    let mut out = String::with_capacity(text.len() + text.len() / 24 + 8);
    for (i, ((kind, _), line)) in lines.iter().zip(&unmarked).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match kind {
            Kind::Prose => wrap(line, &mut out),
            Kind::Fixed => {
                if stuffed[i] {
                    out.push(' ');
                }
                out.push_str(line);
            }
            Kind::Blank => {}
            Kind::Signature => out.push_str(SIGNATURE),
        }
    }
    out
}

/// A line of the text, its trailing spaces taken off, and how it is sent.
fn kind_of(line: &str) -> (Kind, &str) {
    if line == SIGNATURE {
        return (Kind::Signature, line);
    }
    let line = line.trim_end_matches([' ', '\r']);
    let kind = if line.chars().all(|c| c == FIXED) {
        Kind::Blank
    } else if is_fixed(line) {
        Kind::Fixed
    } else {
        Kind::Prose
    };
    (kind, line)
}

/// For each line, whether it is a fixed line to be stuffed: all of a run
/// of fixed (and blank) lines where one of them needs it.
fn stuffed_runs(lines: &[(Kind, &str)], unmarked: &[Cow<'_, str>]) -> Vec<bool> {
    let mut stuffed = vec![false; lines.len()];
    let mut start = 0;
    while start < lines.len() {
        let run = lines[start..]
            .iter()
            .take_while(|(k, _)| matches!(k, Kind::Fixed | Kind::Blank))
            .count();
        if run == 0 {
            start += 1;
            continue;
        }
        let end = start + run;
        if unmarked[start..end].iter().any(|l| needs_stuffing(l)) {
            for (i, slot) in stuffed.iter_mut().enumerate().take(end).skip(start) {
                *slot = lines[i].0 == Kind::Fixed;
            }
        }
        start = end;
    }
    stuffed
}

/// Writes prose `line` to `out` in lines of at most [`WIDTH`] (counting
/// a stuffing space), each broken after a run of spaces and ending in it;
/// a word longer than the width stays whole on a line of its own.
fn wrap(line: &str, out: &mut String) {
    let mut rest = line;
    loop {
        let stuff = needs_stuffing(rest);
        if stuff {
            out.push(' ');
        }
        let width = WIDTH - usize::from(stuff);
        let Some(at) = break_at(rest, width) else {
            out.push_str(rest);
            return;
        };
        out.push_str(&rest[..at]);
        out.push('\n');
        rest = &rest[at..];
    }
}

/// Where to break `line` so that its first line is at most `width`
/// characters before the space that ends it: after the last run of
/// spaces that fits (after the first one where none does), never inside
/// the indent nor after a first line of `-- `. `None` if the line fits,
/// or has no space to break at.
fn break_at(line: &str, width: usize) -> Option<usize> {
    if line.chars().count() <= width {
        return None;
    }
    let indent = line.len() - line.trim_start_matches(' ').len();
    let mut best = None;
    let mut prev_space = false;
    // `chars`: the characters before `at`.
    for (chars, (at, c)) in line.char_indices().enumerate() {
        // A break point: the first character after a run of spaces that
        // follows a word.
        if c != ' ' && prev_space && at > indent && &line[..at] != SIGNATURE {
            // The line up to here ends in at least one space; the one that
            // ends it is not counted.
            if chars - 1 <= width || best.is_none() {
                best = Some(at);
            }
            if chars - 1 > width {
                break;
            }
        }
        prev_space = c == ' ';
    }
    best
}

/// Undoes `format=flowed` (RFC 3676): a line ending in a space continues on
/// the next one, unless it is a signature separator or the next line is
/// quoted; a leading space (space-stuffing) is removed. With `delsp`, the
/// space that ends a flowed line is removed too.
pub fn unflow(text: &str, delsp: bool) -> String {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut out = String::with_capacity(text.len());
    for (i, line) in lines.iter().enumerate() {
        let quoted = line.starts_with('>');
        let line = if quoted {
            line
        } else {
            line.strip_prefix(' ').unwrap_or(line)
        };
        let next_quoted = lines.get(i + 1).is_some_and(|n| n.starts_with('>'));
        if !quoted && line != SIGNATURE && line.ends_with(' ') && !next_quoted {
            out.push_str(if delsp { &line[..line.len() - 1] } else { line });
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flowed_text_is_unwrapped() {
        assert_eq!(
            unflow("a long \r\nline\r\nnext\r\n", false),
            "a long line\nnext\n\n"
        );
        assert_eq!(
            unflow("a long \nline\n-- \nsig\n", true),
            "a longline\n-- \nsig\n\n"
        );
        assert_eq!(unflow(" From here\n", false), "From here\n\n");
    }

    /// `text` read back as a mail program that knows the format reads it
    /// (without the line end [`unflow`] adds after the last line).
    fn read_back(text: &str) -> String {
        let mut back = unflow(text, false);
        back.pop();
        back
    }

    #[test]
    fn prose_is_broken_at_spaces_into_lines_of_72_and_joined_again() {
        let sentence = "bob extended L&Y from B4 to C5 and laid one track tile; the line now \
                        connects Liverpool and Manchester, and bob takes one share of it.";
        let text = format!("Since your last report:\n  {sentence}\n");
        let sent = flowed(&text);
        let lines: Vec<&str> = sent.split('\n').collect();
        assert_eq!(
            lines,
            [
                "Since your last report:",
                "   bob extended L&Y from B4 to C5 and laid one track tile; the line now ",
                "connects Liverpool and Manchester, and bob takes one share of it.",
                ""
            ]
        );
        assert_eq!(read_back(&sent), text);
    }

    #[test]
    fn a_map_a_table_a_quote_and_a_marked_line_are_sent_as_they_are() {
        let map = format!(
            "     A     B     C{}\n 1   ~     .   @Yor@{}\n10     ###    .     .",
            " ".repeat(70),
            "     .".repeat(12)
        );
        let legend = "     Trees, never exchanged: WE+NE+NW, WE+NE+SE, NE+NW+SE+SW, NS+WE, NS+NE+SW, NS+NW+SE";
        let quote = format!("  > {}", "word ".repeat(20).trim_end());
        let drawn = format!("x{}", " ┃ G ┃ ".repeat(14));
        let text = format!(
            "{}\n{}\n\n{quote}\nThe end.\n{drawn}\n",
            fixed(&map),
            fixed(legend)
        );
        let sent = flowed(&text);
        // The map's rows and its legend are stuffed alike (the first rows
        // start with a space), and keep their columns; the spaces they
        // ended in are gone.
        let expected_map: Vec<String> = map.lines().map(|l| format!(" {}", l.trim_end())).collect();
        let lines: Vec<&str> = sent.split('\n').collect();
        assert_eq!(
            lines[..3],
            expected_map.iter().map(String::as_str).collect::<Vec<_>>()
        );
        assert_eq!(lines[3], format!(" {legend}"));
        assert_eq!(lines[4], "");
        assert_eq!(lines[5], format!(" {quote}"));
        assert_eq!(lines[6], "The end.");
        assert_eq!(lines[7], drawn.trim_end());
        assert!(!sent.contains(FIXED));
        let unmarked_text: String = unmarked(&text)
            .lines()
            .map(|l| format!("{}\n", l.trim_end()))
            .collect();
        assert_eq!(read_back(&sent), unmarked_text);
    }

    #[test]
    fn tables_are_told_from_prose_by_their_columns() {
        for table in [
            "  station HEX from HEX  move one of your stations (action B)",
            "NER    G1 (at start)      active                  16      1  York",
            "                         Worcester (textiles, leather); Northampton",
            "a\tb",
            "  > extend gwr c14",
            "┃ G ┃",
        ] {
            assert!(is_fixed(table), "{table:?}");
        }
        for prose in [
            "Track tiles: 0 laid, 60 left.  Supplementary shares left: 16.",
            "      your report again, with no change to the game",
            "   bob moves L&Y from A4 to B4.",
            "Note:  two spaces after a colon, and a > inside",
        ] {
            assert!(!is_fixed(prose), "{prose:?}");
        }
        assert!(is_fixed(&fixed("a plain sentence")));
    }

    #[test]
    fn stuffing_where_rfc_3676_asks_and_the_signature_kept() {
        // Its second line starts with `>`.
        let long = format!(
            "From {} >this-starts-the-second-line, and ends it.",
            "x".repeat(60)
        );
        let sent = flowed(&format!("{long}\n>not a quote\n \n-- \nStationmaster\n"));
        for line in sent.split('\n') {
            assert!(!line.starts_with('>'), "{line:?} would read as quoted");
            assert!(!line.starts_with("From "), "{line:?}");
        }
        assert!(sent.starts_with(" From xx"), "{sent}");
        assert!(sent.contains("\n >this-starts"), "{sent}");
        // A blank line is sent empty, the separator with its space.
        assert!(sent.ends_with("\n\n-- \nStationmaster\n"), "{sent:?}");
        assert_eq!(
            read_back(&sent),
            format!("{long}\n>not a quote\n\n-- \nStationmaster\n")
        );
    }

    #[test]
    fn a_word_longer_than_the_line_stays_whole() {
        let url = format!("https://example.org/{}", "x".repeat(90));
        let text = format!("See {url} for it, and {url}");
        let sent = flowed(&text);
        assert_eq!(
            sent.split('\n').collect::<Vec<_>>(),
            ["See ", &format!("{url} "), "for it, and ", url.as_str()]
        );
        assert_eq!(read_back(&sent), text);
        // No space to break at: the line as it is.
        let word = "y".repeat(100);
        assert_eq!(flowed(&word), word);
    }

    #[test]
    fn every_text_reads_back_as_it_was_and_no_prose_line_is_too_long() {
        // Lines of words of many lengths, runs of spaces, indents, marks.
        let mut x = 0x2545_f491_u32;
        let mut next = |n: u32| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x % n
        };
        let words = [
            "a",
            "to",
            "the",
            "share",
            "Manchester",
            ">",
            "From",
            "--",
            "£5",
            "Zoë",
        ];
        for _ in 0..400 {
            let mut text = String::new();
            for _ in 0..next(6) {
                let indent = [0, 0, 1, 2, 5][next(5) as usize];
                let mut line = " ".repeat(indent);
                for w in 0..next(40) {
                    if w > 0 {
                        line.push_str(if next(9) == 0 { "  " } else { " " });
                    }
                    line.push_str(words[next(words.len() as u32) as usize]);
                }
                if next(4) == 0 {
                    line = fixed(&line);
                }
                text.push_str(&line);
                text.push('\n');
            }
            let sent = flowed(&text);
            let expected: String = unmarked(&text)
                .lines()
                .map(|l| format!("{}\n", l.trim_end()))
                .collect();
            assert_eq!(read_back(&sent), expected, "{text:?}");
            for line in sent.lines() {
                let soft = line.ends_with(' ') && line != SIGNATURE;
                let body = line.trim_end_matches(' ');
                if soft {
                    assert!(
                        body.chars().count() <= WIDTH || !body.trim_start().contains(' '),
                        "{line:?} in {sent:?}"
                    );
                }
            }
        }
    }
}
