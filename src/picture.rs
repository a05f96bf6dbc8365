//! A board's picture ([`crate::engine::Game::picture`], SVG) rendered to PNG
//! in-process, for mail clients that show no SVG (most): resvg, pure Rust,
//! with DejaVu Sans built into the program (`templates/fonts/`, its licence
//! beside it), so the picture is the same on every machine whatever fonts
//! it has.
//!
//! Cheap by design, since every report carries one: a picture is some 600
//! pixels wide (a phone's screen; it scales down on a narrower one) and is
//! written as an indexed PNG. A board is drawn in a few flat colours; its
//! anti-aliased edges and text add a few thousand more, which are mapped to
//! the nearest of the 256 most used, invisibly at this size. That PNG is a
//! fraction of the size of a full-colour one and quick to compress.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use resvg::{tiny_skia, usvg};

use crate::engine::picture::{Layer, Picture, Stamp};

/// The width of a PNG, in pixels.
pub const PNG_WIDTH: u32 = 600;

/// The tallest PNG drawn (a picture taller than this is refused: it would
/// be a bug in a game's drawing, not a board).
const MAX_HEIGHT: u32 = 4000;

/// DejaVu Sans, the one font pictures are drawn in.
const FONT: &[u8] = include_bytes!("../templates/fonts/DejaVuSans.ttf");

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

/// The font database, loaded once: DejaVu Sans, which is also the family
/// every generic name (sans-serif, serif …) falls back to.
fn fonts() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(FONT.to_vec());
        let family = "DejaVu Sans";
        db.set_sans_serif_family(family);
        db.set_serif_family(family);
        db.set_monospace_family(family);
        db.set_cursive_family(family);
        db.set_fantasy_family(family);
        Arc::new(db)
    })
    .clone()
}

/// `picture` rendered [`PNG_WIDTH`] pixels wide, on white, as a report
/// carries it. Each fixed layer is drawn once and kept, so what a change
/// costs is drawing what changed; and the last pictures are kept whole,
/// for a report sent again (`bump`, a moderator's resend) and a change that
/// moves nothing on the board after one that moved nothing either.
pub fn png(picture: &Picture) -> Result<Png, PictureError> {
    static RENDERED: Mutex<Vec<(Whole, Png)>> = Mutex::new(Vec::new());
    let svg = picture.svg();
    let key = Whole {
        hash: {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            svg.hash(&mut h);
            h.finish()
        },
        svg,
    };
    if let Some(png) = recall(&RENDERED, &key) {
        return Ok(png);
    }
    let png = draw(picture)?;
    remember(&RENDERED, key, png.clone(), KEPT_PICTURES);
    Ok(png)
}

/// A whole picture as [`png`] keeps it: its SVG, and a hash of it to tell
/// most others apart at once.
#[derive(PartialEq, Eq)]
struct Whole {
    hash: u64,
    svg: String,
}

/// How many whole pictures are kept: some 50 KB each.
const KEPT_PICTURES: usize = 16;

/// The value kept for `key`, if kept, made the most recently used.
fn recall<K: PartialEq, V: Clone>(kept: &Mutex<Vec<(K, V)>>, key: &K) -> Option<V> {
    let mut kept = kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let i = kept.iter().position(|(k, _)| k == key)?;
    let found = kept.remove(i);
    let value = found.1.clone();
    kept.insert(0, found);
    Some(value)
}

/// `value` kept for `key`, the least recently used let go beyond `room`.
fn remember<K, V>(kept: &Mutex<Vec<(K, V)>>, key: K, value: V, room: usize) {
    let mut kept = kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    kept.insert(0, (key, value));
    kept.truncate(room);
}

/// `picture` drawn as [`png`] draws a picture it has not kept: its layers
/// in order on white, each fixed one from those kept (what a change that
/// moves something costs; the picture bench times it).
pub fn draw(picture: &Picture) -> Result<Png, PictureError> {
    let (scale, height) = fit(picture.width as f32, picture.height as f32)?;
    let mut canvas: Option<tiny_skia::Pixmap> = None;
    for layer in &picture.layers {
        if layer.fixed {
            let on_white = canvas.is_none();
            let drawn = fixed_layer(picture, layer, scale, height, on_white)?;
            match &mut canvas {
                // The bottom layer, drawn on white: the canvas itself.
                None => canvas = Some((*drawn).clone()),
                Some(c) => lay_over_at(c, &drawn, 0, 0),
            }
        } else {
            let c = match &mut canvas {
                Some(c) => c,
                None => canvas.insert(blank(PNG_WIDTH, height, true)?),
            };
            // The stamps placed on whole pixels are laid from their kept
            // pixels; any other place is drawn with the layer.
            let mut laid: Vec<(usize, usize)> = Vec::new();
            for (k, stamp) in layer.stamps.iter().enumerate() {
                let Some(pixels) = stamp_pixels(stamp, scale)? else {
                    continue;
                };
                for (i, (_, x, y)) in stamp.at.iter().enumerate() {
                    if let (Some(px), Some(py)) =
                        (whole(*x as f32 * scale), whole(*y as f32 * scale))
                    {
                        lay_over_at(c, &pixels, px, py);
                        laid.push((k, i));
                    }
                }
            }
            let tree = parse(&picture.layer_svg(layer, |at| !laid.contains(&at)))?;
            paint(&tree, scale, c);
        }
    }
    let canvas = match canvas {
        Some(c) => c,
        None => blank(PNG_WIDTH, height, true)?,
    };
    encode(&canvas)
}

/// A whole SVG document rendered as [`png`] renders a picture, without
/// keeping anything (`show --png`). A picture's own layers rendered by
/// [`png`] give the same pixels, but where a fixed layer lies over a
/// changing one (a rounding in the last bit of a colour).
pub fn png_of_svg(svg: &str) -> Result<Png, PictureError> {
    let tree = parse(svg)?;
    let size = tree.size();
    let (scale, height) = fit(size.width(), size.height())?;
    let mut canvas = blank(PNG_WIDTH, height, true)?;
    paint(&tree, scale, &mut canvas);
    encode(&canvas)
}

/// The scale and height in pixels of a picture `width` by `height`.
fn fit(width: f32, height: f32) -> Result<(f32, u32), PictureError> {
    let scale = PNG_WIDTH as f32 / width;
    let pixels = (height * scale).ceil();
    if !(1.0..=MAX_HEIGHT as f32).contains(&pixels) || !scale.is_finite() {
        return Err(PictureError::Size(width, height));
    }
    Ok((scale, pixels as u32))
}

fn parse(svg: &str) -> Result<usvg::Tree, PictureError> {
    let options = usvg::Options {
        fontdb: fonts(),
        font_family: "DejaVu Sans".to_string(),
        ..usvg::Options::default()
    };
    usvg::Tree::from_str(svg, &options).map_err(|e| PictureError::Svg(e.to_string()))
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

fn paint(tree: &usvg::Tree, scale: f32, canvas: &mut tiny_skia::Pixmap) {
    resvg::render(
        tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut canvas.as_mut(),
    );
}

/// `v` if it is a whole number (within float noise).
fn whole(v: f32) -> Option<i32> {
    let r = v.round();
    ((v - r).abs() < 1e-3).then_some(r as i32)
}

/// A stamp's pixels at `scale`, drawn once and kept with the fixed layers;
/// None where it does not come out a whole number of pixels wide and high
/// (the layer draws it then).
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

/// `pixels` kept for `key` with the fixed layers and stamps, within
/// [`KEPT_LAYERS`] and [`KEPT_BYTES`].
fn keep_pixels(key: LayerKey, pixels: Arc<tiny_skia::Pixmap>) {
    remember(&KEPT, key, pixels, KEPT_LAYERS);
    let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    while kept.len() > 1 && kept.iter().map(|(_, p)| p.data().len()).sum::<usize>() > KEPT_BYTES {
        kept.pop();
    }
}

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

/// A fixed layer's pixels, drawn on white (the bottom layer) or on
/// nothing.
fn fixed_layer(
    picture: &Picture,
    layer: &Layer,
    scale: f32,
    height: u32,
    on_white: bool,
) -> Result<Arc<tiny_skia::Pixmap>, PictureError> {
    kept_pixels(LayerKey {
        svg: picture.layer_svg(layer, |_| true),
        scale: scale.to_bits(),
        size: (PNG_WIDTH, height),
        on_white,
    })
}

/// The pixels `key` describes, from the kept ones, or drawn now and kept.
fn kept_pixels(key: LayerKey) -> Result<Arc<tiny_skia::Pixmap>, PictureError> {
    if let Some(pixels) = recall(&KEPT, &key) {
        return Ok(pixels);
    }
    let mut pixmap = blank(key.size.0, key.size.1, key.on_white)?;
    paint(&parse(&key.svg)?, f32::from_bits(key.scale), &mut pixmap);
    let pixels = Arc::new(pixmap);
    keep_pixels(key, pixels.clone());
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

/// `canvas` (opaque) as an indexed PNG.
fn encode(canvas: &tiny_skia::Pixmap) -> Result<Png, PictureError> {
    let (width, height) = (canvas.width(), canvas.height());
    let (palette, indices) = indexed(canvas.data());
    let mut bytes = Vec::with_capacity(64 * 1024);
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(palette);
    // zlib's level 3: a PNG 4 % larger than at its default (6), in two
    // thirds of the time.
    encoder.set_deflate_compression(png::DeflateCompression::Level(3));
    encoder.set_filter(png::Filter::NoFilter);
    encoder
        .write_header()
        .and_then(|mut w| w.write_image_data(&indices))
        .map_err(|e| PictureError::Png(e.to_string()))?;
    Ok(Png {
        bytes,
        width,
        height,
    })
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
}

/// Opaque RGBA pixels as a palette of at most 256 colours (RGB triples)
/// and an index a pixel: the 256 most used colours, each other colour
/// mapped to the nearest of them. Deterministic: ties go to the lower
/// colour value.
fn indexed(rgba: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let colour = |p: &[u8]| u32::from_be_bytes([0, p[0], p[1], p[2]]);
    // Read as runs of one colour: most pixels repeat the one before.
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
    let mut by_use: Vec<(u32, u32)> = counts.into_iter().collect();
    by_use.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let kept: Vec<u32> = by_use.iter().take(256).map(|(c, _)| *c).collect();
    let rgb = |c: u32| [(c >> 16) as u8, (c >> 8) as u8, c as u8];
    let mut index: HashMap<u32, u8, Colours> = kept
        .iter()
        .enumerate()
        .map(|(i, c)| (*c, i as u8))
        .collect();
    for (c, _) in by_use.iter().skip(256) {
        let [r, g, b] = rgb(*c).map(i32::from);
        let nearest = kept
            .iter()
            .enumerate()
            .min_by_key(|(_, k)| {
                let [kr, kg, kb] = rgb(**k).map(i32::from);
                (r - kr).pow(2) + (g - kg).pow(2) + (b - kb).pow(2)
            })
            .map_or(0, |(i, _)| i as u8);
        index.insert(*c, nearest);
    }
    let palette: Vec<u8> = kept.iter().flat_map(|c| rgb(*c)).collect();
    let mut indices = Vec::with_capacity(rgba.len() / 4);
    for (c, n) in &runs {
        let i = index.get(c).copied().unwrap_or(0);
        indices.resize(indices.len() + *n as usize, i);
    }
    (palette, indices)
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
