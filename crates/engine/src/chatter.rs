//! Telling orders from chatter: players write `Hi all,` above their orders
//! and `Thanks,` / `Alex` below them. A line is read as an order (or a
//! command) when its first word is one of the words that begin an order or
//! a command, a unique beginning of an order word, or a likely typo of one;
//! any other line is chatter, which the caller leaves out and shows the
//! player as "not read as orders".
//!
//! The words come from outside: the order forms of the game's grammar
//! ([`crate::AnyGame::forms`]) and the caller's own commands (the
//! daemon's mail commands, or the moderator commands). Nothing here knows
//! any game. A line read as an order is not checked here: the grammar
//! refuses it, with the reason, if it is wrong.
//!
//! - An order word may be shortened to any beginning, as the grammar allows
//!   (`ext gwr c14`); a command word must be written whole (`Hi` is not
//!   `history`).
//! - A form of several keywords (`no veto`) needs all of them (`No worries`
//!   is chatter).
//! - A likely typo (one letter left out, added or changed, or two
//!   neighbours swapped, in words of 4 letters or more: `extnd`, `tokne`)
//!   counts only when the line goes on after it and the form takes
//!   arguments: `extnd gwr c14` is an order that will be refused and
//!   explained, but a one-word sign-off (`Alex`, `Vito`) is never taken for
//!   a mistyped order. A keyword of three letters (`lay`, `bid`) is
//!   mistyped as easily (`lya G3 WE`), but three-letter words are common
//!   chatter (`Hey`, `May`): such a typo counts only when the line names
//!   a place on the board after it, a word of letters then digits (`G3`,
//!   `c14`), which chatter seldom holds.
//! - A shortened word alone on its line counts only for a form without
//!   arguments (`p` for `pass`; a signed initial `B` is not `bid`).
//! - A list marker before an order is not part of it: players number
//!   their orders (`1. extend GWR C14`, `2) pass`), and mail programs
//!   write a list in the text part so (`1.⇥lay C4 NS`, `   - pass`,
//!   `• pass`). [`Vocabulary::read_item`] reads such a line without its
//!   marker; a line that is chatter either way keeps it.

use super::grammar;

/// What a line is, for [`Vocabulary::read`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// It begins with an order or command word, or a beginning of one.
    Order,
    /// It begins with a likely typo of this keyword, and is to be read as
    /// an order (which will be refused, with the reason).
    Typo(String),
    /// Not an order: a greeting, a sign-off, a remark.
    Chatter,
}

/// One form's leading keywords.
#[derive(Clone, Debug)]
struct Form {
    /// The keywords before the first argument, lowercase.
    keywords: Vec<String>,
    /// True if the form has arguments after them.
    takes_args: bool,
    /// True if a keyword may be shortened to a beginning.
    prefixes: bool,
}

/// The words orders and commands begin with.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    forms: Vec<Form>,
}

/// How one word matched one keyword.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fit {
    Exact,
    Prefix,
    Typo,
}

impl Vocabulary {
    /// An empty vocabulary: every line is chatter.
    pub fn new() -> Self {
        Vocabulary::default()
    }

    /// Adds order forms as help prints them (`extend LINE HEX`, `no veto`):
    /// the leading lowercase words are the keywords, which may be
    /// shortened to any beginning.
    pub fn orders<'a>(mut self, forms: impl IntoIterator<Item = &'a str>) -> Self {
        self.forms
            .extend(forms.into_iter().filter_map(|f| form(f, true)));
        self
    }

    /// Adds command forms (`help`, `history [A..B]`, `extend DURATION`):
    /// the keywords are written whole.
    pub fn commands<'a>(mut self, forms: impl IntoIterator<Item = &'a str>) -> Self {
        self.forms
            .extend(forms.into_iter().filter_map(|f| form(f, false)));
        self
    }

    /// What `line` is.
    pub fn read(&self, line: &str) -> Reading {
        let words: Vec<String> = grammar::words(line)
            .into_iter()
            .map(|w| {
                let t = w.trim_end_matches(['!', '?', '.', ':', ';']);
                let t = if t.is_empty() { w } else { t };
                t.to_lowercase()
            })
            .collect();
        let mut typo: Option<String> = None;
        for f in &self.forms {
            let n = f.keywords.len();
            if words.len() < n {
                continue;
            }
            let fits: Option<Vec<Fit>> = f
                .keywords
                .iter()
                .zip(&words)
                .map(|(k, w)| fit(w, k, f.prefixes))
                .collect();
            let Some(fits) = fits else { continue };
            // A short keyword's typo needs a place named after it.
            let short = f
                .keywords
                .iter()
                .zip(&fits)
                .any(|(k, fit)| *fit == Fit::Typo && k.chars().count() < 4);
            if short && !words[n..].iter().any(|w| names_a_place(w)) {
                continue;
            }
            let worst = fits.iter().copied().max().unwrap_or(Fit::Exact);
            let alone = words.len() == n;
            match worst {
                Fit::Exact => return Reading::Order,
                Fit::Prefix if !alone || !f.takes_args => return Reading::Order,
                Fit::Typo if !alone && f.takes_args && typo.is_none() => {
                    typo = Some(f.keywords.join(" "));
                }
                _ => {}
            }
        }
        typo.map_or(Reading::Chatter, Reading::Typo)
    }

    /// What `line` is, and the line to read as the order: without its list
    /// marker ([`unlisted`]) where only the marker makes it chatter
    /// (`1. extend GWR C14`, `- pass`); else the line as written.
    pub fn read_item<'a>(&self, line: &'a str) -> (Reading, &'a str) {
        let reading = self.read(line);
        if reading == Reading::Chatter
            && let Some(rest) = unlisted(line)
        {
            let item = self.read(rest);
            if item != Reading::Chatter {
                return (item, rest);
            }
        }
        (reading, line)
    }

    /// Splits `lines` into those read as orders or commands, and chatter,
    /// each in its order.
    pub fn split(&self, lines: &[String]) -> (Vec<String>, Vec<String>) {
        lines
            .iter()
            .cloned()
            .partition(|l| self.read(l) != Reading::Chatter)
    }
}

/// `line` without the list marker that opens it, if one does: a number of
/// one to three digits with `.` or `)` after it, or in brackets (`1.`,
/// `2)`, `(3)`), or a bullet (`-`, `*`, `•`, `·`, `–`), then whitespace and
/// more text.
pub fn unlisted(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    let rest = if (1..=3).contains(&digits) {
        t[digits..].strip_prefix(['.', ')'])?
    } else if let Some(inner) = t.strip_prefix('(') {
        let n = inner.chars().take_while(char::is_ascii_digit).count();
        if !(1..=3).contains(&n) {
            return None;
        }
        inner[n..].strip_prefix(')')?
    } else {
        t.strip_prefix(['-', '*', '•', '·', '–'])?
    };
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim_start();
    (!rest.is_empty()).then_some(rest)
}

/// A form's keywords, from the form as help prints it.
fn form(text: &str, prefixes: bool) -> Option<Form> {
    let mut keywords = Vec::new();
    let mut takes_args = false;
    for w in text.split_whitespace() {
        let keyword = w
            .chars()
            .all(|c| c.is_lowercase() || (!c.is_alphanumeric() && !"[]<>…;".contains(c)));
        if keyword && !takes_args {
            keywords.push(w.to_string());
        } else {
            takes_args = true;
            break;
        }
    }
    (!keywords.is_empty()).then_some(Form {
        keywords,
        takes_args,
        prefixes,
    })
}

/// How `word` fits `keyword`, if it does.
fn fit(word: &str, keyword: &str, prefixes: bool) -> Option<Fit> {
    let w = normalise(word);
    let k = normalise(keyword);
    if w.is_empty() {
        None
    } else if w == k {
        Some(Fit::Exact)
    } else if prefixes && k.starts_with(&w) {
        Some(Fit::Prefix)
    } else if w.chars().count() >= 3 && k.chars().count() >= 3 && likely_typo(&w, &k) {
        // Three-letter ones only with a place after them (`Vocabulary::read`).
        Some(Fit::Typo)
    } else {
        None
    }
}

/// True for a word that names a place on a board: one or two letters, then
/// one or two digits (`G3`, `c14`), as both games' squares and hexes do.
fn names_a_place(word: &str) -> bool {
    let letters = word.chars().take_while(char::is_ascii_alphabetic).count();
    let digits = word[letters..]
        .chars()
        .take_while(char::is_ascii_digit)
        .count();
    (1..=2).contains(&letters) && (1..=2).contains(&digits) && letters + digits == word.len()
}

/// As the grammar compares words: `&`, `'` and `.` do not count.
fn normalise(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '&' | '\'' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// True if `a` and `b` differ by one letter left out, added or changed, or
/// by two neighbouring letters swapped.
pub fn likely_typo(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a == b {
        return false;
    }
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    match long.len() - short.len() {
        0 => {
            let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
            match diff.as_slice() {
                [_] => true,
                [i, j] => *j == i + 1 && a[*i] == b[*j] && a[*j] == b[*i],
                _ => false,
            }
        }
        1 => {
            let at = (0..short.len())
                .find(|&i| short[i] != long[i])
                .unwrap_or(short.len());
            short[at..] == long[at + 1..]
        }
        _ => false,
    }
}
