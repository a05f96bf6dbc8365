//! The pieces every game's order grammar is built from: words matched without
//! regard to case and by unique prefix, the order forms that print `help`,
//! and the parse error that tells a player what was expected.

use std::fmt;

/// One form of order, as help prints it: `extend LINE HEX`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderForm {
    /// The form, keywords in lower case and arguments in capitals.
    pub form: &'static str,
    /// What it does, in one sentence.
    pub summary: &'static str,
    /// An example line.
    pub example: &'static str,
}

/// A line that could not be read as an order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct OrderError {
    /// The line as written.
    pub line: String,
    /// What is wrong with it.
    pub message: String,
    /// What would have been understood instead.
    pub expected: Vec<String>,
}

impl OrderError {
    /// A parse error for `line`.
    pub fn new(line: &str, message: impl Into<String>) -> Self {
        OrderError {
            line: line.trim().to_string(),
            message: message.into(),
            expected: Vec::new(),
        }
    }

    /// Adds what would have been understood.
    pub fn expecting(mut self, expected: Vec<String>) -> Self {
        self.expected = expected;
        self
    }
}

impl fmt::Display for OrderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.line, self.message)?;
        if !self.expected.is_empty() {
            write!(f, " (expected {})", self.expected.join(", "))?;
        }
        Ok(())
    }
}

/// How a word matched a list of choices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Match<T> {
    /// Exactly one choice matched (exactly, or as the only one it begins).
    One(T),
    /// The word begins several choices; these are their names.
    Ambiguous(Vec<String>),
    /// Nothing matched.
    None,
}

/// Matches `word` against `choices` (name, value): case-insensitive; an exact
/// name wins; otherwise a prefix of exactly one name. Names that compare equal
/// apart from `&` (e.g. `L&Y` typed `LY`) match too.
pub fn match_word<T: Clone + PartialEq>(word: &str, choices: &[(String, T)]) -> Match<T> {
    let w = normalise(word);
    if w.is_empty() {
        return Match::None;
    }
    if let Some((_, v)) = choices.iter().find(|(n, _)| normalise(n) == w) {
        return Match::One(v.clone());
    }
    let hits: Vec<&(String, T)> = choices
        .iter()
        .filter(|(n, _)| normalise(n).starts_with(&w))
        .collect();
    match hits.as_slice() {
        [] => Match::None,
        [(_, v)] => Match::One(v.clone()),
        [(_, first), rest @ ..] if rest.iter().all(|(_, v)| v == first) => {
            // Several names of one thing (aliases): still unique.
            Match::One(first.clone())
        }
        many => {
            let mut names: Vec<String> = many.iter().map(|(n, _)| n.clone()).collect();
            names.dedup();
            Match::Ambiguous(names)
        }
    }
}

fn normalise(s: &str) -> String {
    s.trim()
        .chars()
        .filter(|c| *c != '&' && *c != '\'' && *c != '.')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The marks a person may end an order line with, as a sentence or a
/// list is ended (`Veto!`, `station F8.`, `lay C4 SE;`): no part of the
/// order. A `?` is not among them: `pass?` asks, it does not order.
pub const LINE_END_MARKS: [char; 3] = ['!', '.', ';'];

/// Splits an order line into words: blanks and commas separate. A line
/// written as a sentence or a list item (`Veto!`, `station F8.`, `lay C4
/// SE;`) ends its last word with a mark of [`LINE_END_MARKS`], which is
/// no part of the order. A `;` elsewhere stays in its word, and the order
/// is refused: orders go one a line.
pub fn words(line: &str) -> Vec<&str> {
    let mut words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    if let Some(last) = words.pop() {
        let bare = last.trim_end_matches(LINE_END_MARKS);
        if !bare.is_empty() {
            words.push(bare);
        }
    }
    words
}

/// How an order line opens: the system's `!skip`, or a keyword (any
/// unique beginning of one) and the words after it.
#[derive(Debug, PartialEq)]
pub enum Opening<'a, K> {
    /// The order a missed deadline or a moderator's `skip` is logged as.
    Skip,
    /// An order beginning with keyword `K`, and its arguments.
    Order(K, Vec<&'a str>),
}

/// Reads the keyword an order line begins with, from `keywords`; a line
/// that is empty, or begins with no keyword or with the beginning of
/// several, is refused with the game's `forms` as what was expected.
pub fn opening<'a, K: Copy + PartialEq>(
    line: &'a str,
    keywords: &[(&str, K)],
    forms: &[OrderForm],
) -> Result<Opening<'a, K>, OrderError> {
    if line.trim() == crate::SKIP_ORDER {
        return Ok(Opening::Skip);
    }
    let expected = || forms.iter().map(|f| format!("`{}`", f.form)).collect();
    let words = words(line);
    let Some(first) = words.first() else {
        return Err(OrderError::new(line, "an empty line is no order").expecting(expected()));
    };
    let choices: Vec<(String, K)> = keywords.iter().map(|(n, k)| (n.to_string(), *k)).collect();
    match match_word(first, &choices) {
        Match::One(k) => Ok(Opening::Order(k, words[1..].to_vec())),
        Match::Ambiguous(names) => Err(OrderError::new(
            line,
            format!("`{first}` could be {}", names.join(" or ")),
        )),
        Match::None => {
            Err(OrderError::new(line, format!("`{first}` is not an order")).expecting(expected()))
        }
    }
}

/// The help text for a list of forms, one form a line with its summary and an
/// example, aligned.
pub fn help_text(forms: &[OrderForm]) -> String {
    let width = forms.iter().map(|f| f.form.len()).max().unwrap_or(0);
    let mut out = String::from(
        "Orders, one a line; keywords may be shortened to any unique beginning \
         and case does not matter.\n",
    );
    for f in forms {
        out.push_str(&format!(
            "  {:width$}  {} (e.g. `{}`)\n",
            f.form,
            f.summary,
            f.example,
            width = width
        ));
    }
    out
}

/// `text` with its first letter a capital, to open a sentence:
/// `supply: 91 tiles` gives `Supply: 91 tiles`.
pub fn capitalised(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map(|first| first.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// Width of a hint's label column: the longest label (`exchange SQUARE
/// PATHS`) and two spaces.
pub const HINT_LABEL: usize = 23;
/// The widest a hint line may be (mail readers show 100 columns or fewer).
pub const HINT_WIDTH: usize = 96;

/// One "You can:" hint: `label` in its column, then `items` separated by
/// `sep`, wrapped under the items' column so no line passes [`HINT_WIDTH`].
pub fn hint(label: &str, items: &[String], sep: &str) -> String {
    // A label wider than its column still stands apart from its items.
    let mut out = format!("{label:<w$}", w = HINT_LABEL.max(label.chars().count() + 2));
    let mut width = out.chars().count();
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() {
            format!("{item}{sep}")
        } else {
            item.clone()
        };
        let len = piece.chars().count();
        if width + len > HINT_WIDTH && width > HINT_LABEL {
            out = out.trim_end().to_string();
            out.push('\n');
            out.push_str(&" ".repeat(HINT_LABEL));
            width = HINT_LABEL;
        }
        out.push_str(&piece);
        width += len;
    }
    out
}

/// `n` and a regular noun, singular for one: "1 square", "3 squares".
pub fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
