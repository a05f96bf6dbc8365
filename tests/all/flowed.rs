//! Issue 38: the text part of every mail is `format=flowed` (RFC 3676),
//! its prose wrapped at 72 columns, its maps, tables and quoted orders
//! fixed lines. [`text_part`] is a mail's text as a mail program that
//! knows the format reads it: the tests that read our mail read it so.

use mail_parser::{Message, MimeHeaders};

/// The lines of a flowed text as a reader joins them (RFC 3676, 4.1 to
/// 4.5, written here apart from the server's): each with the number of
/// lines it was sent in. A line ending in a space goes on in the next one
/// of the same quote depth, but the signature separator `-- `; one leading
/// space (stuffing) is taken off.
fn read_flowed(text: &str, delsp: bool) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut open: Option<usize> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let depth = line.chars().take_while(|c| *c == '>').count();
        let body = &line[depth..];
        let body = body.strip_prefix(' ').unwrap_or(body);
        let flows = body.ends_with(' ') && body != "-- ";
        let piece = if flows && delsp {
            &body[..body.len() - 1]
        } else {
            body
        };
        match (open, out.last_mut()) {
            (Some(d), Some((joined, n))) if d == depth => {
                joined.push_str(piece);
                *n += 1;
            }
            _ => out.push((format!("{}{piece}", ">".repeat(depth)), 1)),
        }
        open = flows.then_some(depth);
    }
    out
}

/// The text part of `m` as a mail program that knows `format=flowed`
/// reads it (lines joined, stuffing taken off; as it is where the part is
/// not flowed), with the line ends it came with.
pub fn text_part(m: &Message<'_>) -> Option<String> {
    let text = m.body_text(0)?;
    let part = m.text_body.first().and_then(|id| m.parts.get(*id as usize));
    let ct = part.and_then(|p| p.content_type());
    let flowed = ct
        .and_then(|c| c.attribute("format"))
        .is_some_and(|f| f.eq_ignore_ascii_case("flowed"));
    if !flowed {
        return Some(text.into_owned());
    }
    let delsp = ct
        .and_then(|c| c.attribute("delsp"))
        .is_some_and(|d| d.eq_ignore_ascii_case("yes"));
    let end = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<String> = read_flowed(&text, delsp)
        .into_iter()
        .map(|(l, _)| l)
        .collect();
    Some(lines.join(end))
}
