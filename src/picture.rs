//! A board's picture ([`crate::engine::Game::picture`], SVG) rendered to PNG
//! in-process, for mail clients that show no SVG (most): resvg, pure Rust,
//! its text drawn as glyph outlines of DejaVu Sans, built into the
//! program (`templates/fonts/`, its licence beside it;
//! `picture/glyphs.rs`), so the picture is the same on every machine
//! whatever fonts it has.
//!
//! Cheap by design, since every report carries one: a picture is some 600
//! pixels wide (a phone's screen; it scales down on a narrower one) and is
//! written as an indexed PNG. A board is drawn in a few flat colours; its
//! anti-aliased edges and text add a few thousand more, which are mapped to
//! the nearest of the 256 most used, invisibly at this size. That PNG is a
//! fraction of the size of a full-colour one and quick to compress.

mod glyphs;
mod truetype;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use resvg::{tiny_skia, usvg};

use crate::engine::picture::{Picture, Stamp};

/// The width of a PNG, in pixels.
pub const PNG_WIDTH: u32 = 600;

/// The tallest PNG drawn (a picture taller than this is refused: it would
/// be a bug in a game's drawing, not a board).
const MAX_HEIGHT: u32 = 4000;

/// A picture as PNG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Png {
    /// The PNG file's bytes.
    pub bytes: Vec<u8>,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
}

/// A picture that cannot be rendered: a fault in a game's drawing, never a
/// player's.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    /// The SVG does not parse.
    #[error("the board's picture is not SVG resvg can read: {0}")]
    Svg(String),
    /// No size, or too large.
    #[error("the board's picture has an unusable size ({0} x {1})")]
    Size(f32, f32),
    /// The PNG encoder failed.
    #[error("the board's picture could not be written as PNG: {0}")]
    Png(String),
}

/// `picture` rendered [`PNG_WIDTH`] pixels wide, on white, as a report
/// carries it, drawn from the picture before it where one is kept.
///
/// A PNG's rows are compressed in bands of [`BAND`] rows, each on its own,
/// and what each picture was made of is kept ([`Drawn`]): its pieces (each
/// fixed layer, each stamp placed, each line of a changing layer) with the
/// rows each covers, its palette, its compressed bands. A new picture starts
/// from the kept one it shares most pieces with (the game's last, as a rule:
/// a change moves a few pieces), draws again only the bands that a piece
/// added, removed or reordered covers, and takes every other band as it was.
/// A picture the same as a kept one costs nothing to draw (a report sent
/// again).
pub fn png(picture: &Picture) -> Result<Png, PictureError> {
    let (scale, height) = fit(picture.width as f32, picture.height as f32)?;
    let mut pieces = pieces(picture, scale, height)?;
    let base = base_for(&pieces, scale, height);
    let redrawn = match &base {
        Some(base) => redrawn(&mut pieces, base, scale, height)?,
        None => None,
    };
    let from_another = redrawn.is_some();
    let drawn = match redrawn {
        Some(drawn) => drawn,
        None => drawn_anew(&mut pieces, scale, height)?,
    };
    note(&drawn, from_another);
    let png = drawn.png();
    keep_drawn(drawn);
    Ok(png)
}

/// `picture` drawn as [`png`] draws a picture with nothing kept to start
/// from (a board's first picture in this process): every band, from the
/// kept fixed layers and stamps. The picture bench times it beside
/// [`png`].
pub fn draw(picture: &Picture) -> Result<Png, PictureError> {
    let (scale, height) = fit(picture.width as f32, picture.height as f32)?;
    let mut pieces = pieces(picture, scale, height)?;
    Ok(drawn_anew(&mut pieces, scale, height)?.png())
}

/// A whole SVG document rendered as [`png`] renders a picture, without
/// keeping anything (`show --png`). A picture's own pieces rendered by
/// [`png`] give the same pixels, but where a kept layer or stamp lies over
/// another piece (a rounding in the last bit of a colour), and where a band
/// drawn again meets a colour the picture's palette had no room for.
pub fn png_of_svg(svg: &str) -> Result<Png, PictureError> {
    let tree = parse(svg)?;
    let size = tree.size();
    let (scale, height) = fit(size.width(), size.height())?;
    let mut canvas = blank(PNG_WIDTH, height, true)?;
    paint(&tree, scale, 0, &mut canvas);
    let (palette, indices) = Palette::of(canvas.data());
    let bands = (0..height.div_ceil(BAND))
        .map(|b| Band::of(&indices, b, height).map(Arc::new))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(assemble(height, &palette, &bands))
}

/// How [`png`] drew its pictures on this thread (the picture bench prints
/// them; a test sees its own pictures only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Pictures drawn with nothing to start from.
    pub anew: u64,
    /// Pictures drawn from a kept one.
    pub from_another: u64,
    /// Bands drawn, in all.
    pub bands_drawn: u64,
    /// Bands in all the pictures.
    pub bands: u64,
}

/// [`Counts`] so far, on this thread.
pub fn counts() -> Counts {
    COUNTS.with(std::cell::Cell::get)
}

thread_local! {
    static COUNTS: std::cell::Cell<Counts> = const {
        std::cell::Cell::new(Counts {
            anew: 0,
            from_another: 0,
            bands_drawn: 0,
            bands: 0,
        })
    };
}

/// Counts `drawn` in this thread's [`Counts`].
fn note(drawn: &Drawn, from_another: bool) {
    COUNTS.with(|counts| {
        let mut c = counts.get();
        match from_another {
            true => c.from_another += 1,
            false => c.anew += 1,
        }
        c.bands_drawn += drawn.bands_drawn;
        c.bands += drawn.bands.len() as u64;
        counts.set(c);
    });
}

/// Rows of pixels compressed together, on their own: the least a picture
/// draws again.
const BAND: u32 = 16;

/// The scale and height in pixels of a picture `width` by `height`.
fn fit(width: f32, height: f32) -> Result<(f32, u32), PictureError> {
    let scale = PNG_WIDTH as f32 / width;
    let pixels = (height * scale).ceil();
    if !(1.0..=MAX_HEIGHT as f32).contains(&pixels) || !scale.is_finite() {
        return Err(PictureError::Size(width, height));
    }
    Ok((scale, pixels as u32))
}

/// `svg` read, its text drawn as glyph outlines ([`glyphs`]).
fn parse(svg: &str) -> Result<usvg::Tree, PictureError> {
    let svg = glyphs::outlined(svg).map_err(PictureError::Svg)?;
    usvg::Tree::from_str(&svg, &usvg::Options::default())
        .map_err(|e| PictureError::Svg(e.to_string()))
}

/// A canvas `width` by `height` pixels, white or transparent.
fn blank(width: u32, height: u32, white: bool) -> Result<tiny_skia::Pixmap, PictureError> {
    let mut pixmap = tiny_skia::Pixmap::new(width, height)
        .ok_or(PictureError::Size(width as f32, height as f32))?;
    if white {
        pixmap.fill(tiny_skia::Color::WHITE);
    }
    Ok(pixmap)
}

/// `tree` drawn at `scale` onto `canvas`, whose top row is the picture's
/// row `top`.
fn paint(tree: &usvg::Tree, scale: f32, top: u32, canvas: &mut tiny_skia::Pixmap) {
    resvg::render(
        tree,
        tiny_skia::Transform::from_scale(scale, scale).post_translate(0.0, -(top as f32)),
        &mut canvas.as_mut(),
    );
}

/// `v` if it is a whole number (within float noise).
fn whole(v: f32) -> Option<i32> {
    let r = v.round();
    ((v - r).abs() < 1e-3).then_some(r as i32)
}

/// What a picture is painted from, in order: each fixed layer, each stamp
/// placed on whole pixels, and each line of a changing layer (with the
/// stamps placed elsewhere), with what tells it from every other piece.
struct Piece {
    /// Its kind, layer and content, hashed.
    key: u64,
    /// The rows of pixels it may touch, `[top, bottom)`; None for a line
    /// until it is looked up or read.
    rows: Option<(u32, u32)>,
    what: What,
}

/// The pixels a piece may touch: its rows, `[top, bottom)`, and columns,
/// `[left, right)` (a line's and a layer's: the whole width).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Area {
    rows: (u32, u32),
    columns: (i32, i32),
}

impl Area {
    fn overlaps(&self, other: &Area) -> bool {
        self.rows.0 < other.rows.1
            && other.rows.0 < self.rows.1
            && self.columns.0 < other.columns.1
            && other.columns.0 < self.columns.1
    }
}

enum What {
    /// A fixed layer: its pixels kept, the bottom one drawn on white.
    Fixed(Arc<tiny_skia::Pixmap>),
    /// A stamp's kept pixels, with its top-left corner here.
    Stamp(Arc<tiny_skia::Pixmap>, i32, i32),
    /// One line of a changing layer: a standalone document (with the
    /// picture's head) and, once read, its tree.
    Line(String, Option<Arc<usvg::Tree>>),
}

/// `picture` as pieces, in the order they are painted.
fn pieces(picture: &Picture, scale: f32, height: u32) -> Result<Vec<Piece>, PictureError> {
    let open = picture.open();
    let head_key = hash(&picture.head);
    let mut pieces = Vec::new();
    for (n, layer) in picture.layers.iter().enumerate() {
        if layer.fixed {
            let on_white = pieces.is_empty();
            let svg = picture.layer_svg(layer, |_| true);
            let key = hash(&(n, on_white, &svg));
            pieces.push(Piece {
                key,
                rows: Some((0, height)),
                what: What::Fixed(fixed_layer(svg, scale, height, on_white)?),
            });
            continue;
        }
        let document = |body: &str| format!("{open}{}{body}</svg>\n", picture.head);
        for stamp in &layer.stamps {
            let pixels = stamp_pixels(stamp, scale)?;
            for (id, x, y) in &stamp.at {
                let at = (whole(*x as f32 * scale), whole(*y as f32 * scale));
                match (&pixels, at) {
                    (Some(pixels), (Some(px), Some(py))) => {
                        let top = py.clamp(0, height as i32) as u32;
                        let bottom = (py + pixels.height() as i32).clamp(0, height as i32) as u32;
                        pieces.push(Piece {
                            key: hash(&(
                                n,
                                &stamp.id,
                                &stamp.svg,
                                stamp.width,
                                stamp.height,
                                px,
                                py,
                            )),
                            rows: Some((top, bottom)),
                            what: What::Stamp(pixels.clone(), px, py),
                        });
                    }
                    _ => {
                        let body = format!(
                            "<defs>\n{}</defs>\n{}",
                            stamp.def(),
                            stamp.placed(id, *x, *y)
                        );
                        pieces.push(Piece {
                            key: hash(&(n, head_key, &body)),
                            rows: None,
                            what: What::Line(document(&body), None),
                        });
                    }
                }
            }
        }
        for line in layer.svg.lines().filter(|l| !l.trim().is_empty()) {
            pieces.push(Piece {
                key: hash(&(n, head_key, line)),
                rows: None,
                what: What::Line(document(&format!("{line}\n")), None),
            });
        }
    }
    Ok(pieces)
}

fn hash(value: &impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

impl Piece {
    /// Its area, reading it if nobody knows its rows.
    fn area(&mut self, scale: f32, height: u32) -> Result<Area, PictureError> {
        let rows = self.rows(scale, height)?;
        let columns = match &self.what {
            What::Stamp(pixels, x, _) => (*x, x.saturating_add(pixels.width() as i32)),
            What::Fixed(_) | What::Line(..) => (0, PNG_WIDTH as i32),
        };
        Ok(Area { rows, columns })
    }

    /// Its rows, reading it if nobody knows them.
    fn rows(&mut self, scale: f32, height: u32) -> Result<(u32, u32), PictureError> {
        if let Some(rows) = self.rows {
            return Ok(rows);
        }
        let (tree, rows) = self.tree(scale, height)?;
        if let What::Line(_, slot) = &mut self.what {
            *slot = Some(tree);
        }
        self.rows = Some(rows);
        Ok(rows)
    }

    /// A line's tree and rows, from those read before or read now.
    fn tree(&self, scale: f32, height: u32) -> Result<Read, PictureError> {
        let What::Line(svg, tree) = &self.what else {
            return Err(PictureError::Svg("a kept piece has no tree".into()));
        };
        if let (Some(tree), Some(rows)) = (tree, self.rows) {
            return Ok((tree.clone(), rows));
        }
        let key = (self.key, scale.to_bits(), height);
        if let Some(found) = TREES.recall(&key) {
            return Ok(found);
        }
        let tree = Arc::new(parse(svg)?);
        // Anti-aliasing reaches past the outline: two rows' margin.
        let rows = match tree.root().abs_layer_bounding_box() {
            b if tree.root().has_children() => (
                ((b.top() * scale).floor() as i64 - 2).clamp(0, i64::from(height)) as u32,
                ((b.bottom() * scale).ceil() as i64 + 2).clamp(0, i64::from(height)) as u32,
            ),
            _ => (0, 0),
        };
        TREES.keep(key, (tree.clone(), rows));
        Ok((tree, rows))
    }

    /// Painted onto `canvas`, whose top row is the picture's row `top`.
    fn paint(
        &mut self,
        canvas: &mut tiny_skia::Pixmap,
        top: u32,
        bottom_layer: bool,
        scale: f32,
        height: u32,
    ) -> Result<(), PictureError> {
        match &self.what {
            What::Fixed(pixels) if bottom_layer => {
                let row = (PNG_WIDTH * 4) as usize;
                let from = top as usize * row;
                let n = canvas.data().len().min(pixels.data().len() - from);
                canvas.data_mut()[..n].copy_from_slice(&pixels.data()[from..from + n]);
            }
            What::Fixed(pixels) => lay_over_at(canvas, pixels, 0, -(top as i32)),
            What::Stamp(pixels, x, y) => lay_over_at(canvas, pixels, *x, *y - top as i32),
            What::Line(..) => {
                let (tree, _) = self.tree(scale, height)?;
                paint(&tree, scale, top, canvas);
            }
        }
        Ok(())
    }
}

/// The rows `[top, bottom)` of the picture `pieces` paint, on white.
fn paint_rows(
    pieces: &mut [Piece],
    top: u32,
    bottom: u32,
    scale: f32,
    height: u32,
) -> Result<tiny_skia::Pixmap, PictureError> {
    let mut canvas = blank(PNG_WIDTH, bottom - top, true)?;
    for (i, piece) in pieces.iter_mut().enumerate() {
        let (from, to) = piece.rows(scale, height)?;
        if from < bottom && to > top {
            piece.paint(&mut canvas, top, i == 0, scale, height)?;
        }
    }
    Ok(canvas)
}

/// A picture with nothing to start from: every band painted, the palette
/// made from all of it.
fn drawn_anew(pieces: &mut [Piece], scale: f32, height: u32) -> Result<Drawn, PictureError> {
    let canvas = paint_rows(pieces, 0, height, scale, height)?;
    let (palette, indices) = Palette::of(canvas.data());
    let bands = (0..height.div_ceil(BAND))
        .map(|b| Band::of(&indices, b, height).map(Arc::new))
        .collect::<Result<Vec<_>, _>>()?;
    let n = bands.len() as u64;
    Drawn::new(pieces, scale, height, Arc::new(palette), bands, n)
}

/// A picture drawn from `base`: the bands a piece added, removed or moved
/// in the order covers painted again, the others taken as they were. None
/// where the palette has no room for a colour the bands drawn need
/// ([`Palette::indices`]): the picture is drawn anew then, with a palette
/// of its own.
fn redrawn(
    pieces: &mut [Piece],
    base: &Drawn,
    scale: f32,
    height: u32,
) -> Result<Option<Drawn>, PictureError> {
    let bands = height.div_ceil(BAND) as usize;
    let mut dirty = vec![false; bands];
    let mut mark = |rows: (u32, u32)| mark_bands(&mut dirty, rows);
    // How many more times each key is in the base than here.
    let mut count: HashMap<u64, i32, Keys> = HashMap::default();
    for (key, _) in &base.pieces {
        *count.entry(*key).or_default() += 1;
    }
    for piece in pieces.iter() {
        *count.entry(piece.key).or_default() -= 1;
    }
    for (key, area) in &base.pieces {
        if count.get(key).is_some_and(|c| *c != 0) {
            mark(area.rows);
        }
    }
    // Where each piece both have stands in the base's order: the first
    // such piece with a key here is the first with it there, and so on.
    let mut places: HashMap<u64, std::collections::VecDeque<usize>, Keys> = HashMap::default();
    for (place, (key, _)) in base
        .pieces
        .iter()
        .filter(|(key, _)| count.get(key).is_some_and(|c| *c == 0))
        .enumerate()
    {
        places.entry(*key).or_default().push_back(place);
    }
    let mut kept_here: Vec<(usize, Area)> = Vec::with_capacity(pieces.len());
    for piece in pieces.iter_mut() {
        // A piece that stays takes its rows from the base.
        if piece.rows.is_none() {
            piece.rows = base.rows.get(&piece.key).copied();
        }
        let area = piece.area(scale, height)?;
        match places.get_mut(&piece.key).and_then(|p| p.pop_front()) {
            Some(place) => kept_here.push((place, area)),
            None => mark(area.rows),
        }
    }
    // Two pieces both have, painted in the other order: where they
    // overlap, both. Pieces apart come out the same in any order (a Linie 1
    // tile laid moves others of its kind in the stamps' order; their
    // squares never overlap).
    let mut latest = 0;
    for (i, (place, area)) in kept_here.iter().enumerate() {
        if *place < latest {
            for (other, other_area) in &kept_here[..i] {
                if other > place && area.overlaps(other_area) {
                    mark(area.rows);
                    mark(other_area.rows);
                }
            }
        }
        latest = latest.max(*place);
    }
    let mut palette = base.palette.clone();
    let mut out = base.bands.clone();
    let mut b = 0;
    while b < bands {
        if !dirty[b] {
            b += 1;
            continue;
        }
        let first = b;
        while b < bands && dirty[b] {
            b += 1;
        }
        let (top, bottom) = (first as u32 * BAND, (b as u32 * BAND).min(height));
        let canvas = paint_rows(pieces, top, bottom, scale, height)?;
        let Some(indices) = Arc::make_mut(&mut palette).indices(canvas.data()) else {
            return Ok(None);
        };
        for (k, slot) in out.iter_mut().enumerate().take(b).skip(first) {
            *slot = Arc::new(Band::of_rows(
                &indices,
                k as u32 * BAND - top,
                ((k as u32 + 1) * BAND).min(height) - top,
            )?);
        }
    }
    let n = dirty.iter().filter(|d| **d).count() as u64;
    Drawn::new(pieces, scale, height, palette, out, n).map(Some)
}

/// What a drawn picture leaves for the next ([`png`]).
struct Drawn {
    scale: u32,
    height: u32,
    /// Its pieces' keys and areas, in order.
    pieces: Vec<(u64, Area)>,
    /// The same, to look up.
    rows: HashMap<u64, (u32, u32), Keys>,
    palette: Arc<Palette>,
    bands: Vec<Arc<Band>>,
    /// How many of its bands were drawn for it.
    bands_drawn: u64,
}

impl Drawn {
    fn new(
        pieces: &mut [Piece],
        scale: f32,
        height: u32,
        palette: Arc<Palette>,
        bands: Vec<Arc<Band>>,
        bands_drawn: u64,
    ) -> Result<Drawn, PictureError> {
        let mut list = Vec::with_capacity(pieces.len());
        for piece in pieces.iter_mut() {
            list.push((piece.key, piece.area(scale, height)?));
        }
        Ok(Drawn {
            scale: scale.to_bits(),
            height,
            rows: list.iter().map(|(key, area)| (*key, area.rows)).collect(),
            pieces: list,
            palette,
            bands,
            bands_drawn,
        })
    }

    fn png(&self) -> Png {
        assemble(self.height, &self.palette, &self.bands)
    }

    /// About what it holds, in bytes.
    fn bytes(&self) -> usize {
        self.pieces.len() * 56
            + self.rows.capacity() * 24
            + self.palette.index.capacity() * 8
            + self
                .bands
                .iter()
                .map(|b| b.deflated.capacity())
                .sum::<usize>()
    }
}

/// The kept pictures, most recently drawn first, within [`DRAWN_BYTES`].
static DRAWN: Mutex<Vec<Arc<Drawn>>> = Mutex::new(Vec::new());

/// The most bytes of drawn pictures kept: the last pictures of some 150
/// boards (a picture's bands are some 50 KB).
const DRAWN_BYTES: usize = 8 << 20;

fn keep_drawn(drawn: Drawn) {
    let mut kept = DRAWN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    kept.insert(0, Arc::new(drawn));
    let mut total = 0;
    let keep = kept
        .iter()
        .take_while(|d| {
            total += d.bytes();
            total <= DRAWN_BYTES
        })
        .count();
    kept.truncate(keep.max(1));
}

/// The kept picture of the same size with the fewest bands apart from
/// `pieces` ([`bands_apart`]), the most recent of the best. Judged in two
/// steps: by a sample of its pieces first (every kept picture looked up
/// piece by piece was a tenth of a picture's time), then the few best by
/// the sample and the most recent of the board piece by piece. The sample alone took a
/// Linie 1 picture a round of turns old (the same player to play, the
/// same lines in the legend) over the last one, and drew again every tile
/// laid since.
fn base_for(pieces: &[Piece], scale: f32, height: u32) -> Option<Arc<Drawn>> {
    let step = pieces.len().div_ceil(SAMPLE).max(1);
    let sample: Vec<u64> = pieces.iter().step_by(step).map(|p| p.key).collect();
    let kept = DRAWN
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // (sample shared, age, picture), of the same board: half the sample
    // or more.
    let mut candidates: Vec<(usize, usize, &Arc<Drawn>)> = kept
        .iter()
        .enumerate()
        .filter(|(_, d)| d.scale == scale.to_bits() && d.height == height)
        .map(|(age, d)| {
            let shared = sample.iter().filter(|k| d.rows.contains_key(*k)).count();
            (shared, age, d)
        })
        .filter(|(shared, _, _)| shared * 2 >= sample.len())
        .collect();
    let latest = candidates.first().map(|(_, age, _)| *age);
    candidates.sort_by_key(|(shared, age, _)| (std::cmp::Reverse(*shared), *age));
    let compared = candidates
        .iter()
        .enumerate()
        .filter(|(rank, (_, age, _))| *rank < COMPARED || Some(*age) == latest);
    let here: std::collections::HashSet<u64, Keys> = pieces.iter().map(|p| p.key).collect();
    compared
        .min_by_key(|(_, (_, age, d))| (bands_apart(pieces, &here, d), *age))
        .map(|(_, (_, _, d))| Arc::clone(d))
}

/// About how many bands `pieces` (their keys `here`) would draw again
/// from `base`: those a piece of one and not the other covers (a line
/// never read yet, its rows unknown, counted as one band). What a change
/// touches is what counts: a Linie 1 turn passed rewrites some six lines
/// of the legend, in three bands, where six tiles laid since are fifteen.
fn bands_apart(
    pieces: &[Piece],
    here: &std::collections::HashSet<u64, Keys>,
    base: &Drawn,
) -> usize {
    let mut dirty = vec![false; base.bands.len()];
    let mut unknown = 0;
    for piece in pieces.iter().filter(|p| !base.rows.contains_key(&p.key)) {
        match piece.rows {
            Some(rows) => mark_bands(&mut dirty, rows),
            None => unknown += 1,
        }
    }
    for (_, area) in base.pieces.iter().filter(|(key, _)| !here.contains(key)) {
        mark_bands(&mut dirty, area.rows);
    }
    dirty.iter().filter(|d| **d).count() + unknown
}

/// Marks in `dirty` (one flag a band) the bands the rows `[top, bottom)`
/// reach into.
fn mark_bands(dirty: &mut [bool], (top, bottom): (u32, u32)) {
    if bottom > top {
        for b in (top / BAND)..=((bottom - 1) / BAND) {
            if let Some(d) = dirty.get_mut(b as usize) {
                *d = true;
            }
        }
    }
}

/// How many pieces [`base_for`] looks up in each kept picture.
const SAMPLE: usize = 24;

/// How many of the kept pictures best by the sample [`base_for`] compares
/// piece by piece (and the board's most recent).
const COMPARED: usize = 4;

/// A line's tree and rows, read once for a while: a few thousand lines
/// (a Rocket board's changing layers have some two hundred).
static TREES: Recent<(u64, u32, u32), Read> = Recent::new(4096);

/// A line read: its tree, and the rows of pixels it may touch.
type Read = (Arc<usvg::Tree>, (u32, u32));

/// Values kept by key, the least recently used let go beyond a number.
struct Recent<K, V> {
    room: usize,
    kept: Mutex<Option<Ticked<K, V>>>,
}

/// Values, each with the tick it was last used at, and the tick now.
struct Ticked<K, V> {
    now: u64,
    map: HashMap<K, (u64, V)>,
}

impl<K: std::hash::Hash + Eq + Clone, V: Clone> Recent<K, V> {
    const fn new(room: usize) -> Self {
        Recent {
            room,
            kept: Mutex::new(None),
        }
    }

    fn recall(&self, key: &K) -> Option<V> {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let kept = kept.as_mut()?;
        kept.now += 1;
        let entry = kept.map.get_mut(key)?;
        entry.0 = kept.now;
        Some(entry.1.clone())
    }

    fn keep(&self, key: K, value: V) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let kept = kept.get_or_insert_with(|| Ticked {
            now: 0,
            map: HashMap::new(),
        });
        kept.now += 1;
        if kept.map.len() >= self.room {
            // Let the older half go.
            let mut ticks: Vec<u64> = kept.map.values().map(|(t, _)| *t).collect();
            ticks.sort_unstable();
            let cut = ticks[ticks.len() / 2];
            kept.map.retain(|_, (t, _)| *t > cut);
        }
        kept.map.insert(key, (kept.now, value));
    }
}

/// Hashing for keys that are hashes already.
#[derive(Clone, Copy, Default)]
struct Keys;

impl std::hash::BuildHasher for Keys {
    type Hasher = ColourHasher;
    fn build_hasher(&self) -> ColourHasher {
        ColourHasher(0)
    }
}

/// A stamp's pixels at `scale`, drawn once and kept with the fixed layers;
/// None where it does not come out a whole number of pixels wide and high
/// (it is drawn as a line then).
fn stamp_pixels(stamp: &Stamp, scale: f32) -> Result<Option<Arc<tiny_skia::Pixmap>>, PictureError> {
    let (Some(w), Some(h)) = (
        whole(stamp.width as f32 * scale),
        whole(stamp.height as f32 * scale),
    ) else {
        return Ok(None);
    };
    kept_pixels(LayerKey {
        svg: stamp.document(),
        scale: scale.to_bits(),
        size: (w.max(1) as u32, h.max(1) as u32),
        on_white: false,
    })
    .map(Some)
}

/// How many fixed layers and stamps are kept, within [`KEPT_BYTES`]: a
/// few boards' worth (a Rocket board has two layers, some 1.8 MB each; a
/// Linie 1 board one, and a stamp for each kind of tile as it lies, 6 KB
/// each, a few dozen at most).
const KEPT_LAYERS: usize = 40;

/// The most bytes of pixels kept: some six full boards.
const KEPT_BYTES: usize = 12 << 20;

/// The fixed layers' and stamps' pixels, most recently used first.
static KEPT: Mutex<Vec<(LayerKey, Arc<tiny_skia::Pixmap>)>> = Mutex::new(Vec::new());

/// What a fixed layer or a stamp is kept by: everything its pixels depend
/// on.
#[derive(PartialEq, Eq)]
struct LayerKey {
    /// The standalone document drawn.
    svg: String,
    /// The scale's bits.
    scale: u32,
    /// Its size in pixels.
    size: (u32, u32),
    /// Drawn on white (the bottom layer), else on nothing.
    on_white: bool,
}

/// A fixed layer's pixels (its standalone document `svg`), drawn on white
/// (the bottom layer) or on nothing.
fn fixed_layer(
    svg: String,
    scale: f32,
    height: u32,
    on_white: bool,
) -> Result<Arc<tiny_skia::Pixmap>, PictureError> {
    kept_pixels(LayerKey {
        svg,
        scale: scale.to_bits(),
        size: (PNG_WIDTH, height),
        on_white,
    })
}

/// The pixels `key` describes, from the kept ones, or drawn now and kept,
/// the least recently used let go beyond [`KEPT_LAYERS`] and
/// [`KEPT_BYTES`].
fn kept_pixels(key: LayerKey) -> Result<Arc<tiny_skia::Pixmap>, PictureError> {
    let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(i) = kept.iter().position(|(k, _)| *k == key) {
        let found = kept.remove(i);
        let pixels = found.1.clone();
        kept.insert(0, found);
        return Ok(pixels);
    }
    drop(kept);
    let mut pixmap = blank(key.size.0, key.size.1, key.on_white)?;
    paint(&parse(&key.svg)?, f32::from_bits(key.scale), 0, &mut pixmap);
    let pixels = Arc::new(pixmap);
    let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    kept.insert(0, (key, pixels.clone()));
    kept.truncate(KEPT_LAYERS);
    while kept.len() > 1 && kept.iter().map(|(_, p)| p.data().len()).sum::<usize>() > KEPT_BYTES {
        kept.pop();
    }
    Ok(pixels)
}

/// `sprite` laid over `canvas` (both premultiplied RGBA) with its top-left
/// corner at `(x, y)`, clipped to the canvas: source-over, pixel by pixel,
/// skipping the clear ones, which are most of a layer of names
/// (tiny-skia's `draw_pixmap` shades every pixel, a tenth of a picture's
/// time).
fn lay_over_at(canvas: &mut tiny_skia::Pixmap, sprite: &tiny_skia::Pixmap, x: i32, y: i32) {
    let (cw, ch) = (canvas.width() as i32, canvas.height() as i32);
    let (sw, sh) = (sprite.width() as i32, sprite.height() as i32);
    let (x0, x1) = (x.max(0), (x + sw).min(cw));
    if x0 >= x1 {
        return;
    }
    let data = canvas.data_mut();
    for row in y.max(0)..(y + sh).min(ch) {
        let from = (((row - y) * sw + (x0 - x)) * 4) as usize;
        let to = ((row * cw + x0) * 4) as usize;
        let n = ((x1 - x0) * 4) as usize;
        over(&mut data[to..to + n], &sprite.data()[from..from + n]);
    }
}

/// Premultiplied RGBA `src` over `dst`, source-over.
fn over(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.chunks_exact_mut(4).zip(src.chunks_exact(4)) {
        match s[3] {
            0 => {}
            255 => d.copy_from_slice(s),
            a => {
                let keep = 255 - u16::from(a);
                for i in 0..4 {
                    // s + d·(255 − a)/255, rounded.
                    let x = u16::from(d[i]) * keep + 128;
                    d[i] = s[i].saturating_add(((x + (x >> 8)) >> 8) as u8);
                }
            }
        }
    }
}

/// Hashing for colours: one multiplication (the standard hasher's
/// resistance to chosen keys is not needed for our own pixels, and it was
/// most of the time the palette took).
#[derive(Clone, Copy, Default)]
struct Colours;

impl std::hash::BuildHasher for Colours {
    type Hasher = ColourHasher;
    fn build_hasher(&self) -> ColourHasher {
        ColourHasher(0)
    }
}

struct ColourHasher(u64);

impl std::hash::Hasher for ColourHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8 | u64::from(*b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// An opaque pixel's colour, `0x00RRGGBB`.
fn colour(p: &[u8]) -> u32 {
    u32::from_be_bytes([0, p[0], p[1], p[2]])
}

/// Opaque RGBA pixels read as runs of one colour (most pixels repeat the
/// one before), and how many pixels each colour has.
fn runs(rgba: &[u8]) -> (Vec<(u32, u32)>, HashMap<u32, u32, Colours>) {
    let mut runs: Vec<(u32, u32)> = Vec::with_capacity(rgba.len() / 32);
    for p in rgba.chunks_exact(4) {
        let c = colour(p);
        match runs.last_mut() {
            Some((rc, n)) if *rc == c => *n += 1,
            _ => runs.push((c, 1)),
        }
    }
    let mut counts: HashMap<u32, u32, Colours> = HashMap::default();
    for (c, n) in &runs {
        *counts.entry(*c).or_default() += n;
    }
    (runs, counts)
}

/// An indexed PNG's palette: at most 256 colours, and the index every
/// colour met so far is written with.
#[derive(Clone)]
struct Palette {
    colours: Vec<u32>,
    /// Each colour met: its index.
    index: HashMap<u32, u8, Colours>,
}

/// The palette's room left, where a picture has more colours than it
/// holds, for the colours of the pictures drawn from it.
const SPARE: usize = 32;

/// A colour this many pixels of the bands drawn again have is a colour of
/// its own in the palette, not the nearest: a new piece's fill, not the
/// shades of its edges (a station is some 100 pixels, a piece of track
/// more).
const SOLID: u32 = 64;

/// A colour fewer pixels of the bands drawn again have is drawn in the
/// nearest where that is near ([`far`]), keeping the palette's room for
/// more.
const FEW: u32 = 8;

/// Whether colours `a` and `b` are far apart: by more than 32 in any of
/// red, green and blue.
fn far(a: u32, b: u32) -> bool {
    [16, 8, 0]
        .iter()
        .any(|s| ((a >> s) as u8).abs_diff((b >> s) as u8) > 32)
}

impl Palette {
    /// Opaque RGBA pixels as a palette and an index a pixel: the 256 most
    /// used colours, each other colour mapped to the nearest of them.
    /// Deterministic: ties go to the lower colour value.
    fn of(rgba: &[u8]) -> (Palette, Vec<u8>) {
        let (runs, counts) = runs(rgba);
        let mut by_use: Vec<(u32, u32)> = counts.into_iter().collect();
        by_use.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        // Where there are more colours than room, some room is left for
        // those the pictures drawn from this one bring.
        let room = if by_use.len() > 256 { 256 - SPARE } else { 256 };
        let mut palette = Palette {
            colours: by_use.iter().take(room).map(|(c, _)| *c).collect(),
            index: HashMap::default(),
        };
        for (i, c) in palette.colours.iter().enumerate() {
            palette.index.insert(*c, i as u8);
        }
        for (c, _) in by_use.iter().skip(room) {
            let nearest = palette.nearest(*c);
            palette.index.insert(*c, nearest);
        }
        let indices = palette.indices_of(&runs);
        (palette, indices)
    }

    /// Opaque RGBA pixels as indices into this palette, where it has room
    /// for every colour of [`SOLID`] pixels or more. A new colour of
    /// [`FEW`] pixels or more, or far from every colour of the palette,
    /// takes room while there is some; the others are drawn in the
    /// nearest. Such a colour the palette drew in the nearest before
    /// gets its own index now; the pixels drawn before keep theirs.
    fn indices(&mut self, rgba: &[u8]) -> Option<Vec<u8>> {
        let (runs, counts) = runs(rgba);
        let mut new: Vec<(u32, u32)> = counts
            .into_iter()
            .filter(|(c, _)| {
                self.index
                    .get(c)
                    .is_none_or(|i| self.colours.get(usize::from(*i)) != Some(c))
            })
            .collect();
        // The most used first, then by colour: the same every time.
        new.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for (c, n) in new {
            let nearest = match self.index.get(&c) {
                Some(i) => *i,
                None => self.nearest(c),
            };
            let is_far = far(
                c,
                self.colours.get(usize::from(nearest)).copied().unwrap_or(0),
            );
            if self.colours.len() < 256 && (n >= FEW || is_far) {
                self.colours.push(c);
                self.index.insert(c, (self.colours.len() - 1) as u8);
            } else if n >= SOLID {
                return None;
            } else {
                self.index.insert(c, nearest);
            }
        }
        Some(self.indices_of(&runs))
    }

    /// Each pixel's index, of `runs` of one colour.
    fn indices_of(&self, runs: &[(u32, u32)]) -> Vec<u8> {
        let mut indices = Vec::with_capacity(runs.iter().map(|(_, n)| *n as usize).sum());
        for (c, n) in runs {
            let i = self.index.get(c).copied().unwrap_or(0);
            indices.resize(indices.len() + *n as usize, i);
        }
        indices
    }

    /// The index of the palette's colour nearest `c`.
    fn nearest(&self, c: u32) -> u8 {
        let rgb = |c: u32| [(c >> 16) as u8, (c >> 8) as u8, c as u8].map(i32::from);
        let [r, g, b] = rgb(c);
        self.colours
            .iter()
            .enumerate()
            .min_by_key(|(_, k)| {
                let [kr, kg, kb] = rgb(**k);
                (r - kr).pow(2) + (g - kg).pow(2) + (b - kb).pow(2)
            })
            .map_or(0, |(i, _)| i as u8)
    }
}

/// Rows of a PNG's image data (each a filter byte, 0, and its indices),
/// compressed on their own: a deflate stream's blocks ending on a byte
/// (a sync flush), which any other bands' may follow.
struct Band {
    deflated: Vec<u8>,
    /// The Adler-32 of the rows uncompressed, and their length.
    adler: u32,
    len: u32,
}

impl Band {
    /// Band `b` of a picture `height` rows high, of its indices.
    fn of(indices: &[u8], b: u32, height: u32) -> Result<Band, PictureError> {
        Band::of_rows(indices, b * BAND, ((b + 1) * BAND).min(height))
    }

    /// Rows `[top, bottom)` of `indices`.
    fn of_rows(indices: &[u8], top: u32, bottom: u32) -> Result<Band, PictureError> {
        let w = PNG_WIDTH as usize;
        let mut raw = Vec::with_capacity((w + 1) * (bottom - top) as usize);
        for row in top as usize..bottom as usize {
            raw.push(0);
            raw.extend_from_slice(&indices[row * w..(row + 1) * w]);
        }
        thread_local! {
            static DEFLATE: std::cell::RefCell<flate2::Compress> =
                std::cell::RefCell::new(flate2::Compress::new(flate2::Compression::new(3), false));
        }
        let deflated = DEFLATE.with(|d| -> Result<Vec<u8>, PictureError> {
            let mut d = d.borrow_mut();
            d.reset();
            let mut out = Vec::with_capacity(raw.len() / 4 + 64);
            loop {
                let done = d.total_in() as usize;
                d.compress_vec(&raw[done..], &mut out, flate2::FlushCompress::Sync)
                    .map_err(|e| PictureError::Png(e.to_string()))?;
                // Flushed when it stops short of the room it had.
                if d.total_in() as usize == raw.len() && out.len() < out.capacity() {
                    return Ok(out);
                }
                out.reserve(out.capacity().max(1024));
            }
        })?;
        Ok(Band {
            deflated: {
                let mut deflated = deflated;
                deflated.shrink_to_fit();
                deflated
            },
            adler: adler2::adler32_slice(&raw),
            len: raw.len() as u32,
        })
    }
}

/// The Adler-32 of two byte strings one after the other, from theirs and
/// the second's length (zlib's `adler32_combine`).
fn adler_combine(first: u32, second: u32, second_len: u32) -> u32 {
    const BASE: u64 = 65_521;
    let rem = u64::from(second_len) % BASE;
    let mut sum1 = u64::from(first & 0xffff);
    let mut sum2 = (rem * sum1) % BASE;
    sum1 += u64::from(second & 0xffff) + BASE - 1;
    sum2 += u64::from(first >> 16) + u64::from(second >> 16) + BASE - rem;
    ((sum1 % BASE) | ((sum2 % BASE) << 16)) as u32
}

/// The PNG file: an indexed image `height` rows of [`PNG_WIDTH`], its
/// `bands` one zlib stream.
fn assemble(height: u32, palette: &Palette, bands: &[Arc<Band>]) -> Png {
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc32fast::hash(&out[start..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }
    let size: usize = bands.iter().map(|b| b.deflated.len()).sum();
    let mut bytes = Vec::with_capacity(size + 1024);
    bytes.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut header = Vec::with_capacity(13);
    header.extend_from_slice(&PNG_WIDTH.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    // 8 bits, indexed colour, deflate, no filtering method, no interlace.
    header.extend_from_slice(&[8, 3, 0, 0, 0]);
    chunk(&mut bytes, b"IHDR", &header);
    let plte: Vec<u8> = palette
        .colours
        .iter()
        .flat_map(|c| [(c >> 16) as u8, (c >> 8) as u8, *c as u8])
        .collect();
    chunk(&mut bytes, b"PLTE", &plte);
    // zlib: a header (deflate, a 32 KB window, check bits), the bands, an
    // empty last block, the Adler-32 of it all.
    let mut data = Vec::with_capacity(size + 8);
    data.extend_from_slice(&[0x78, 0x5e]);
    let mut adler = 1;
    for band in bands {
        data.extend_from_slice(&band.deflated);
        adler = adler_combine(adler, band.adler, band.len);
    }
    data.extend_from_slice(&[0x03, 0x00]);
    data.extend_from_slice(&adler.to_be_bytes());
    chunk(&mut bytes, b"IDAT", &data);
    chunk(&mut bytes, b"IEND", &[]);
    Png {
        bytes,
        width: PNG_WIDTH,
        height,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_is_laid_where_it_lands_and_clipped_at_the_edges() {
        let mut canvas = tiny_skia::Pixmap::new(6, 5).unwrap();
        canvas.fill(tiny_skia::Color::WHITE);
        let mut sprite = tiny_skia::Pixmap::new(3, 3).unwrap();
        sprite.fill(tiny_skia::Color::BLACK);
        let black = |c: &tiny_skia::Pixmap| -> Vec<(u32, u32)> {
            (0..c.height())
                .flat_map(|y| (0..c.width()).map(move |x| (x, y)))
                .filter(|&(x, y)| c.pixel(x, y).is_some_and(|p| p.red() == 0))
                .collect()
        };
        // Over the top-left corner: only its bottom-right 2 x 2 lands.
        lay_over_at(&mut canvas, &sprite, -1, -1);
        assert_eq!(black(&canvas), [(0, 0), (1, 0), (0, 1), (1, 1)]);
        // Over the bottom-right corner.
        lay_over_at(&mut canvas, &sprite, 5, 4);
        assert_eq!(black(&canvas).last(), Some(&(5, 4)));
        assert_eq!(black(&canvas).len(), 5);
        // Wholly outside: nothing.
        lay_over_at(&mut canvas, &sprite, -3, 9);
        lay_over_at(&mut canvas, &sprite, 7, 0);
        assert_eq!(black(&canvas).len(), 5);
        // Half see-through over white: grey, rounded.
        let mut half = tiny_skia::Pixmap::new(1, 1).unwrap();
        half.fill(tiny_skia::Color::from_rgba8(0, 0, 0, 128));
        lay_over_at(&mut canvas, &half, 3, 2);
        assert_eq!(canvas.pixel(3, 2).map(|p| p.red()), Some(127));
    }

    #[test]
    fn a_picture_with_text_renders_to_an_indexed_png_of_the_set_width() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100" viewBox="0 0 300 100"><rect width="300" height="100" fill="#b9d4ee"/><circle cx="50" cy="50" r="30" fill="#2e7d32"/><text x="100" y="60" font-family="DejaVu Sans" font-size="20">Manchester</text></svg>"##;
        let png = png_of_svg(svg).unwrap();
        assert_eq!((png.width, png.height), (PNG_WIDTH, 200));
        assert_eq!(&png.bytes[1..4], b"PNG");
        // Indexed colour (type 3) in the header.
        assert_eq!(png.bytes[25], 3);
        // The text was drawn: without a font it would be missing, and the
        // picture would hold only the two flat colours and their edges.
        let again = png_of_svg(&svg.replace("Manchester", "")).unwrap();
        assert_ne!(png.bytes, again.bytes);
        assert!(matches!(png_of_svg("not svg"), Err(PictureError::Svg(_))));
    }
}
