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
use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};

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

/// `svg` rendered [`PNG_WIDTH`] pixels wide, on white.
pub fn png(svg: &str) -> Result<Png, PictureError> {
    let options = usvg::Options {
        fontdb: fonts(),
        font_family: "DejaVu Sans".to_string(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| PictureError::Svg(e.to_string()))?;
    let size = tree.size();
    let scale = PNG_WIDTH as f32 / size.width();
    let height = (size.height() * scale).ceil();
    if !(1.0..=MAX_HEIGHT as f32).contains(&height) {
        return Err(PictureError::Size(size.width(), size.height()));
    }
    let height = height as u32;
    let mut pixmap = tiny_skia::Pixmap::new(PNG_WIDTH, height)
        .ok_or(PictureError::Size(size.width(), size.height()))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    let (palette, indices) = indexed(pixmap.data());
    let mut bytes = Vec::with_capacity(64 * 1024);
    let mut encoder = png::Encoder::new(&mut bytes, PNG_WIDTH, height);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(palette);
    encoder.set_compression(png::Compression::Balanced);
    encoder.set_filter(png::Filter::NoFilter);
    encoder
        .write_header()
        .and_then(|mut w| w.write_image_data(&indices))
        .map_err(|e| PictureError::Png(e.to_string()))?;
    Ok(Png {
        bytes,
        width: PNG_WIDTH,
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
    // Counted a run at a time: most pixels repeat the one before.
    let mut counts: HashMap<u32, u32, Colours> = HashMap::default();
    let mut run: Option<(u32, u32)> = None;
    for p in rgba.chunks_exact(4) {
        let c = colour(p);
        match &mut run {
            Some((rc, n)) if *rc == c => *n += 1,
            _ => {
                if let Some((rc, n)) = run {
                    *counts.entry(rc).or_default() += n;
                }
                run = Some((c, 1));
            }
        }
    }
    if let Some((rc, n)) = run {
        *counts.entry(rc).or_default() += n;
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
    let mut last: Option<(u32, u8)> = None;
    for p in rgba.chunks_exact(4) {
        let c = colour(p);
        let i = match last {
            Some((lc, li)) if lc == c => li,
            _ => index.get(&c).copied().unwrap_or(0),
        };
        last = Some((c, i));
        indices.push(i);
    }
    (palette, indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_with_text_renders_to_an_indexed_png_of_the_set_width() {
        let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100" viewBox="0 0 300 100"><rect width="300" height="100" fill="#b9d4ee"/><circle cx="50" cy="50" r="30" fill="#2e7d32"/><text x="100" y="60" font-family="DejaVu Sans" font-size="20">Manchester</text></svg>"##;
        let png = png(svg).unwrap();
        assert_eq!((png.width, png.height), (PNG_WIDTH, 200));
        assert_eq!(&png.bytes[1..4], b"PNG");
        // Indexed colour (type 3) in the header.
        assert_eq!(png.bytes[25], 3);
        // The text was drawn: without a font it would be missing, and the
        // picture would hold only the two flat colours and their edges.
        let again = super::png(&svg.replace("Manchester", "")).unwrap();
        assert_ne!(png.bytes, again.bytes);
        assert!(matches!(super::png("not svg"), Err(PictureError::Svg(_))));
    }
}
