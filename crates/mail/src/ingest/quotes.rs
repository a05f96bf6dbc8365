//! Telling the player's own lines from what their mail client added: the
//! quoted message with its attribution line or header block, and the
//! client's own signature lines. Tables of what common clients write, in
//! several languages, and the walk over the lines that uses them; see the
//! documentation of [`super`] for what is recognised.

/// The verbs of attribution lines (`On … wrote:`), lowercase, as clients
/// write them in English, French, German, Italian, Spanish, Portuguese,
/// Dutch, the Scandinavian languages, Polish, Russian, Hungarian, Finnish,
/// Czech, Romanian, Turkish, Greek, Japanese, Chinese and Korean.
const WROTE: &[&str] = &[
    "wrote",
    "writes",
    "a écrit",
    "schrieb",
    "ha scritto",
    "escribió",
    "escreveu",
    "schreef",
    "skrev",
    "napisał",
    "pisze",
    "написал",
    "пишет",
    "írta",
    "kirjoitti",
    "napsal",
    "a scris",
    "yazdı",
    "έγραψε",
    "さんは書きました",
    "書きました",
    "写道",
    "작성",
];

/// Words an attribution wrapped over two or three lines starts with.
const ATTRIBUTION_STARTS: &[&str] = &[
    "On ", "Le ", "Am ", "El ", "Em ", "Op ", "Den ", "Il ", "W dniu ", "Dnia ", "В ", "Dne ",
];

/// The lines that open a quoted message, compared after trimming dashes,
/// underscores, stars and blanks, lowercase ([`marker_text`]); with
/// [`FORWARD_MARKERS`], the markers of [`is_marker`].
const QUOTE_MARKERS: &[&str] = &[
    "original message",
    "ursprüngliche nachricht",
    "message d'origine",
    "messaggio originale",
    "mensaje original",
    "mensagem original",
    "oorspronkelijk bericht",
    "ursprungligt meddelande",
    "oryginalna wiadomość",
    "исходное сообщение",
    "eredeti üzenet",
    "元のメッセージ",
];

/// The lines that open a forwarded message, compared as
/// [`QUOTE_MARKERS`] are.
const FORWARD_MARKERS: &[&str] = &[
    "forwarded message",
    "begin forwarded message:",
    "forwarded message follows",
    "weitergeleitete nachricht",
    "message transféré",
    "messaggio inoltrato",
    "mensaje reenviado",
    "mensagem encaminhada",
    "doorgestuurd bericht",
    "vidarebefordrat meddelande",
    "przekazana wiadomość",
    "пересылаемое сообщение",
    "továbbított üzenet",
    "転送されたメッセージ",
];

/// A field of a header block that a client writes above the message it
/// quotes or forwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    From,
    Date,
    To,
    Subject,
    Cc,
}

/// Header names (lowercase, without the colon) in the languages of
/// [`WROTE`], as Outlook, Windows Mail, Hotmail, Notes, Apple Mail and Gmail
/// write them above a quoted or forwarded message.
const FIELDS: &[(&str, Field)] = &[
    ("from", Field::From),
    ("von", Field::From),
    ("de", Field::From),
    ("da", Field::From),
    ("van", Field::From),
    ("från", Field::From),
    ("fra", Field::From),
    ("od", Field::From),
    ("от", Field::From),
    ("feladó", Field::From),
    ("lähettäjä", Field::From),
    ("odesílatel", Field::From),
    ("差出人", Field::From),
    ("送信者", Field::From),
    ("发件人", Field::From),
    ("sent", Field::Date),
    ("date", Field::Date),
    ("gesendet", Field::Date),
    ("datum", Field::Date),
    ("envoyé", Field::Date),
    ("envoyé le", Field::Date),
    ("inviato", Field::Date),
    ("data", Field::Date),
    ("enviado", Field::Date),
    ("enviada", Field::Date),
    ("enviado el", Field::Date),
    ("fecha", Field::Date),
    ("verzonden", Field::Date),
    ("skickat", Field::Date),
    ("sendt", Field::Date),
    ("wysłano", Field::Date),
    ("wysłane", Field::Date),
    ("отправлено", Field::Date),
    ("дата", Field::Date),
    ("elküldve", Field::Date),
    ("dátum", Field::Date),
    ("lähetetty", Field::Date),
    ("odesláno", Field::Date),
    ("送信日時", Field::Date),
    ("日付", Field::Date),
    ("发送时间", Field::Date),
    ("to", Field::To),
    ("an", Field::To),
    ("à", Field::To),
    ("a", Field::To),
    ("para", Field::To),
    ("aan", Field::To),
    ("till", Field::To),
    ("til", Field::To),
    ("do", Field::To),
    ("кому", Field::To),
    ("címzett", Field::To),
    ("vastaanottaja", Field::To),
    ("komu", Field::To),
    ("宛先", Field::To),
    ("收件人", Field::To),
    ("subject", Field::Subject),
    ("betreff", Field::Subject),
    ("objet", Field::Subject),
    ("oggetto", Field::Subject),
    ("asunto", Field::Subject),
    ("assunto", Field::Subject),
    ("onderwerp", Field::Subject),
    ("ämne", Field::Subject),
    ("emne", Field::Subject),
    ("temat", Field::Subject),
    ("тема", Field::Subject),
    ("tárgy", Field::Subject),
    ("aihe", Field::Subject),
    ("předmět", Field::Subject),
    ("件名", Field::Subject),
    ("主题", Field::Subject),
    ("cc", Field::Cc),
    ("kopie", Field::Cc),
    ("dw", Field::Cc),
    ("копия", Field::Cc),
    ("másolat", Field::Cc),
];

/// How the lines mail clients add below what the player wrote begin
/// (compared case-insensitively): "Sent from my iPhone" and its kin.
const CLIENT_LINES: &[&str] = &[
    "sent from my ",
    "sent from mail for ",
    "sent from mail<",
    "sent from outlook",
    "sent from yahoo mail",
    "sent from the all new aol app",
    "sent from aol mobile mail",
    "sent from proton mail",
    "sent with proton mail",
    "sent with [proton mail]",
    "sent from gmail mobile",
    "sent with protonmail",
    "sent with spark",
    "sent via the samsung galaxy",
    "sent from samsung mobile",
    "get outlook for ",
    "get outlook<",
    "von meinem ",
    "gesendet von meinem ",
    "gesendet von yahoo mail",
    "gesendet mit der web.de",
    "gesendet mit der gmx",
    "outlook für android herunterladen",
    "outlook für ios herunterladen",
    "envoyé de mon ",
    "envoyé depuis mon ",
    "envoyé de yahoo mail",
    "obtenir outlook pour ",
    "télécharger outlook pour ",
    "inviato da ",
    "inviato dal mio ",
    "scarica outlook per ",
    "enviado desde mi ",
    "enviado desde yahoo mail",
    "enviado desde outlook",
    "obtener outlook para ",
    "enviado do meu ",
    "enviado do yahoo mail",
    "obter o outlook para ",
    "verzonden vanaf mijn ",
    "verstuurd vanaf mijn ",
    "verzonden met ",
    "outlook voor android downloaden",
    "outlook voor ios downloaden",
    "skickat från min ",
    "hämta outlook för ",
    "sendt fra min ",
    "wysłane z mojego ",
    "wysłane z iphone",
    "pobierz aplikację outlook",
    "отправлено с iphone",
    "отправлено с моего ",
    "отправлено из мобильной почты",
    "отправлено из мобильного приложения",
    "скачайте outlook для ",
    "az iphone-omról küldve",
    "iphone-ról küldve",
    "küldve iphone-ról",
    "samsung galaxy okostelefonról küldve",
    "odesláno z ",
    "iphoneから送信",
    "outlook for android を入手",
    "outlook for ios を入手",
    "发自我的",
];

/// True if `s` holds a time of day, `10:12`.
fn has_time(s: &str) -> bool {
    let c: Vec<char> = s.chars().collect();
    c.windows(4).any(|w| {
        w[0].is_ascii_digit() && w[1] == ':' && w[2].is_ascii_digit() && w[3].is_ascii_digit()
    })
}

/// True if `s` holds a year, four digits from 1900 to 2099.
fn has_year(s: &str) -> bool {
    let c: Vec<char> = s.chars().collect();
    c.windows(4).enumerate().any(|(i, w)| {
        w.iter().all(char::is_ascii_digit)
            && matches!((w[0], w[1]), ('1', '9') | ('2', '0'))
            && !c.get(i + 4).is_some_and(char::is_ascii_digit)
            && !(i > 0 && c[i - 1].is_ascii_digit())
    })
}

/// True for a reply's attribution line: `On … wrote:` and its kin in the
/// languages of [`WROTE`] (the verb last, or the line holding a date or an
/// address), and the verbless ones of Yandex, Mail.ru and Gmail in Russian,
/// Japanese and Chinese: a time and a `<…>` address just before the colon
/// (`26.06.2014, 14:41, "Alexander L" <al@example.ru>:`), and Mutt's
/// `* Name <address> [2024-06-03 10:12]:`.
pub(super) fn is_attribution(line: &str) -> bool {
    let t = line.replace('\u{a0}', " ");
    let t = t.trim();
    if t.starts_with('>') || t.chars().count() > 400 {
        return false;
    }
    let Some(head) = t.strip_suffix(':').or_else(|| t.strip_suffix('：')) else {
        return false;
    };
    let head = head.trim_end();
    let lower = head.to_lowercase();
    let dated = has_time(head) || has_year(head) || head.contains('@');
    let verb = WROTE.iter().any(|w| {
        lower.match_indices(w).any(|(at, _)| {
            let before = lower[..at].chars().next_back();
            // A word of its own (the Asian verbs follow the name directly).
            let alone = before.is_none_or(|c| !c.is_alphabetic()) || !w.is_ascii();
            let last = lower[at + w.len()..]
                .trim_start_matches(['(', ')', 'a', ' '])
                .is_empty();
            alone && (last || dated)
        })
    });
    let verbless = has_time(head)
        && ((head.ends_with('>') && head.contains('<'))
            || (head.starts_with("* ") && head.ends_with(']')));
    verb || verbless
}

/// How many lines from `lines[i]` make an attribution, if they do:
/// clients wrap long ones, Gmail inside the address (`Name <` then
/// `address> wrote:`) or inside its parentheses (Hungarian `… ezt írta
/// (időpont:` then `2024. jún. 3., H, 10:12):`), Claws and Becky! with the
/// date on a line of its own. An attribution begins with one of
/// [`ATTRIBUTION_STARTS`], or holds a time, a year or an address, or ends
/// opening one (`<`); it is at most three lines, and two more where a
/// parenthesis or an address it opens is closed.
fn attribution_at(lines: &[&str], i: usize) -> Option<usize> {
    let first = lines.get(i)?.trim();
    // A line of the player's own just above an attribution that begins
    // on the next line is not part of it (`pass`, then `On … wrote:`).
    if !is_attribution(first) && begins_attribution(lines, i + 1) {
        return None;
    }
    // Nor is a line that would start one only by holding an address or a
    // year (`address add alice@example.net`, `away 2026-06-01 to …`), whole
    // in itself, above a line that makes an attribution without it (Gmail's
    // `Name <address> ezt írta (időpont: …):`, which begins with the name).
    if !is_attribution(first)
        && !starts_as_attribution(first)
        && !leaves_open(first)
        && joined_attribution(
            lines,
            i + 1,
            holds_start(lines.get(i + 1).map_or("", |l| l.trim())),
        )
        .is_some()
    {
        return None;
    }
    joined_attribution(lines, i, holds_start(first)).map(|n| closed(lines, i, n))
}

/// True if `s` holds what may start a wrapped attribution: an address, a
/// year, or an address opened at its end (`Name <`).
fn holds_start(s: &str) -> bool {
    s.contains('@') || has_year(s) || s.ends_with('<')
}

/// True if `s` begins as an attribution does: a word of
/// [`ATTRIBUTION_STARTS`], or it holds a time (`10:12`).
fn starts_as_attribution(s: &str) -> bool {
    ATTRIBUTION_STARTS.iter().any(|a| s.starts_with(a)) || has_time(s)
}

/// True if `s` opens a parenthesis or an address it does not close.
fn leaves_open(s: &str) -> bool {
    let count = |c: char| s.chars().filter(|&x| x == c).count();
    count('(') > count(')') || count('<') > count('>')
}

/// How many lines (1 to 3) from `lines[i]` make an attribution, if they
/// do, the first beginning as an attribution does (or `may_start`).
fn joined_attribution(lines: &[&str], i: usize, may_start: bool) -> Option<usize> {
    let first = lines.get(i)?.trim();
    if is_attribution(first) {
        return Some(1);
    }
    let may_start =
        !first.is_empty() && !first.ends_with(':') && (may_start || starts_as_attribution(first));
    if !may_start {
        return None;
    }
    let mut joined = first.to_string();
    for n in 1..3 {
        let next = lines.get(i + n)?.trim();
        if next.is_empty() || next.starts_with('>') {
            return None;
        }
        joined.push(' ');
        joined.push_str(next);
        if is_attribution(&joined) {
            return Some(n + 1);
        }
    }
    None
}

/// True if an attribution begins at `lines[i]` and reads as one from its
/// start: a word of [`ATTRIBUTION_STARTS`] or a date (a digit) first. The
/// end of a wrapped one (`écrit :`, `sm@example.org> wrote:`) is not.
fn begins_attribution(lines: &[&str], i: usize) -> bool {
    lines.get(i).is_some_and(|l| {
        let t = l.trim();
        (ATTRIBUTION_STARTS.iter().any(|s| t.starts_with(s))
            || t.starts_with(|c: char| c.is_ascii_digit()))
            && joined_attribution(lines, i, false).is_some()
    })
}

/// `n`, or more when the attribution of `n` lines from `lines[i]` leaves
/// a parenthesis or an address open that the next one or two lines close
/// (`… ezt írta (időpont:` then `2024. jún. 3., H, 10:12):`).
fn closed(lines: &[&str], i: usize, n: usize) -> usize {
    let mut joined = lines[i..i + n]
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ");
    if !leaves_open(&joined) {
        return n;
    }
    for m in 0..2 {
        let Some(next) = lines.get(i + n + m).map(|l| l.trim()) else {
            break;
        };
        if next.is_empty() || next.starts_with('>') {
            break;
        }
        joined.push(' ');
        joined.push_str(next);
        if !leaves_open(&joined) {
            return if is_attribution(&joined) {
                n + m + 1
            } else {
                n
            };
        }
    }
    n
}

/// True for `-----Original Message-----`, `---------- Forwarded message
/// ---------`, `Begin forwarded message:` and their kin.
pub(super) fn is_marker(line: &str) -> bool {
    let t = marker_text(line);
    QUOTE_MARKERS.contains(&t.as_str()) || FORWARD_MARKERS.contains(&t.as_str())
}

/// True for a marker line that opens a forwarded message
/// (`---------- Forwarded message ---------`, `Begin forwarded message:`
/// and their kin).
fn is_forward_marker(line: &str) -> bool {
    FORWARD_MARKERS.contains(&marker_text(line).as_str())
}

/// A line as the markers are compared: dashes, underscores, equals signs,
/// stars and blanks trimmed at both ends, lowercase.
fn marker_text(line: &str) -> String {
    line.trim_matches(|c: char| c == '-' || c == '_' || c == '=' || c == '*' || c.is_whitespace())
        .to_lowercase()
}

/// The field of a header-block line (`From: …`, `*Von:* …`, `De :`,
/// `差出人: …`), if it is one.
fn field(line: &str) -> Option<Field> {
    let t = line.trim().replace('*', "");
    let colon = t.find([':', '：'])?;
    let name = t[..colon].trim().to_lowercase();
    if name.is_empty() || name.chars().count() > 20 {
        return None;
    }
    FIELDS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// How many lines from `lines[i]` make a header block, if they do: fields
/// one a line (blank lines between them and wrapped values allowed), at
/// least a sender and one of date, recipient or subject.
fn header_block_at(lines: &[&str], i: usize) -> Option<usize> {
    let mut seen: Vec<Field> = Vec::new();
    let mut j = i;
    let mut last = i;
    while j < lines.len() && j < i + 16 {
        let t = lines[j].trim();
        if let Some(f) = field(t) {
            seen.push(f);
            last = j;
            j += 1;
            continue;
        }
        if j == i {
            return None;
        }
        // A blank line or a wrapped value belongs to the block only if
        // another field follows.
        let continues = if t.is_empty() {
            lines[j + 1..]
                .iter()
                .take(2)
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| field(l).is_some())
        } else {
            lines.get(j + 1).is_some_and(|l| field(l).is_some())
        };
        if continues {
            j += 1;
            continue;
        }
        break;
    }
    let other = seen
        .iter()
        .any(|f| matches!(f, Field::Date | Field::To | Field::Subject));
    (seen.contains(&Field::From) && other).then_some(last - i + 1)
}

/// How many lines from `lines[i]` open a quoted or forwarded message: a
/// marker line, an attribution or a header block, or a marker followed by
/// either of the others.
fn quote_start_at(lines: &[&str], i: usize) -> Option<usize> {
    if is_marker(lines[i]) {
        let mut j = i + 1;
        while j < lines.len() && lines[j].trim().is_empty() {
            j += 1;
        }
        if j < lines.len()
            && let Some(n) = header_block_at(lines, j).or_else(|| attribution_at(lines, j))
        {
            return Some(j + n - i);
        }
        return Some(1);
    }
    attribution_at(lines, i).or_else(|| header_block_at(lines, i))
}

/// A line a mail client adds: "Sent from my iPhone", "Get Outlook for
/// Android", "Von meinem iPhone gesendet" and their kin.
pub(super) fn is_client_line(line: &str) -> bool {
    let t = line.trim();
    t.chars().count() <= 120 && {
        let lower = t.to_lowercase();
        CLIENT_LINES.iter().any(|s| lower.starts_with(s))
    }
}

/// A line of only separator characters (`____`, `-----`, `=====`).
pub(super) fn is_separator(line: &str) -> bool {
    let t = line.trim();
    t.chars().count() >= 3 && t.chars().all(|c| matches!(c, '_' | '-' | '=' | '*'))
}

/// What [`own_lines`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Own {
    /// The player's own lines.
    pub lines: Vec<String>,
    /// True if a quoted or forwarded message without `>` was left out (a
    /// header block, a marker line or an attribution, and what followed).
    pub cut: bool,
    /// True if a forwarded message (its marker line) was left out.
    pub forwarded: bool,
}

/// The player's own lines of `lines`, trailing whitespace trimmed: quotes
/// and what opens them, client lines, separators and blank lines left out,
/// nothing after a signature separator. `stop` is called with the number
/// of lines kept so far and may end the walk early.
pub(super) fn own_lines(lines: &[&str], mut stop: impl FnMut(usize) -> bool) -> Own {
    let mut own = Own::default();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        let t = line.trim_start();
        if t == "--" {
            break;
        }
        if t.starts_with('>') {
            i += 1;
            continue;
        }
        if !t.is_empty()
            && let Some(n) = quote_start_at(lines, i)
        {
            // What follows is quoted: with `>` (then the player may write
            // again below it), or without (then it runs to the end).
            own.forwarded |= is_forward_marker(t);
            let mut j = i + n;
            while j < lines.len() && lines[j].trim().is_empty() {
                j += 1;
            }
            if j < lines.len() && lines[j].trim_start().starts_with('>') {
                i = j;
                continue;
            }
            own.cut = true;
            break;
        }
        if !(t.is_empty() || is_separator(t) || is_client_line(t)) {
            out.push(line.to_string());
            if stop(out.len()) {
                break;
            }
        }
        i += 1;
    }
    own.lines = out;
    own
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributions() {
        for a in [
            "On Mon, Jun 3, 2024 at 10:12 AM Stationmaster <sm@example.org> wrote:",
            "Stationmaster wrote:",
            "02.04.2012 14:20 пользователь \"Stationmaster\" написал:",
            "Thu, 26 Jun 2014 14:00:51 +0400 от Alexander L <al@example.ru>:",
            "26.06.2014, 14:41, \"Alexander L\" <al@example.ru>:",
            "Stationmaster <sm@example.org> ezt írta (időpont: 2024. jún. 3., H, 10:12):",
            "2024/06/03 10:12 に Stationmaster さんは書きました:",
            "2024年6月3日(月) 10:12 Stationmaster <sm@example.org>:",
            "pon., 3 cze 2024 o 10:12 Stationmaster <sm@example.org> napisał(a):",
            "W dniu 3.06.2024 o 10:12, Stationmaster pisze:",
            "Il 03/06/2024 10:12, Stationmaster ha scritto:",
            "Stationmaster <sm@example.org> schrieb am Mo., 3. Juni 2024, 10:12:",
        ] {
            assert!(is_attribution(a), "{a}");
        }
        for a in [
            "On second thought:",
            "I wrote a long explanation below:",
            "extend gwr c14",
            "note: 10:12 is early",
            "> On Mon wrote:",
        ] {
            assert!(!is_attribution(a), "{a}");
        }
    }

    #[test]
    fn header_blocks() {
        let lines = [
            "From: A",
            "Sent: Monday",
            "To: B",
            "Subject: x",
            "",
            "quoted",
        ];
        assert_eq!(header_block_at(&lines, 0), Some(4));
        let lines = ["Date: Mon", "Subject: x", "From: A", "To: B"];
        assert_eq!(header_block_at(&lines, 0), Some(4));
        let lines = ["От: A", "", "Отправлено: 3 июня", "", "Кому: B"];
        assert_eq!(header_block_at(&lines, 0), Some(5));
        let lines = ["From: A", "pass"];
        assert_eq!(header_block_at(&lines, 0), None);
        let lines = ["To: the players", "Subject: moves"];
        assert_eq!(header_block_at(&lines, 0), None);
    }

    #[test]
    fn bottom_posting_and_inline_replies_are_read() {
        let text = "On Mon, 3 Jun 2024, Stationmaster wrote:\n> your turn\n>\n\nbid 5\n\n> more\nOn the other hand\npass\n-- \nAlice";
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            own_lines(&lines, |_| false).lines,
            ["bid 5", "On the other hand", "pass"]
        );
    }
}
