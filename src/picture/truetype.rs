//! The few tables of a TrueType font the pictures' text needs, read from
//! DejaVu Sans as built into the program ([`super::glyphs`]): `cmap`
//! (character to glyph, formats 4 and 12), `hmtx` (advance widths), `kern`
//! (format 0 pairs), `loca` and `glyf` (quadratic outlines, composite
//! glyphs included). The OpenType specification's tables
//! (learn.microsoft.com/typography/opentype/spec), nothing else: no hinting,
//! no layout features, no variations. Every read is bounds-checked, so a
//! damaged font draws nothing rather than failing.

/// A TrueType font's tables, as slices of its bytes.
pub(super) struct Face<'a> {
    units_per_em: u16,
    glyphs: u16,
    /// `loca` holds 32-bit offsets (else 16-bit halves).
    long_offsets: bool,
    /// How many glyphs have an advance of their own in `hmtx`.
    metrics: u16,
    hmtx: &'a [u8],
    loca: &'a [u8],
    glyf: &'a [u8],
    /// The Unicode character map: its format 12 subtable, else format 4.
    cmap: Cmap<'a>,
    kern: &'a [u8],
}

enum Cmap<'a> {
    Segments(&'a [u8]),
    Groups(&'a [u8]),
    None,
}

/// A piece of a glyph's outline, in font units, y up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Segment {
    Move(f32, f32),
    Line(f32, f32),
    Quad(f32, f32, f32, f32),
    Close,
}

fn u16_at(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(
        data.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}

fn i16_at(data: &[u8], at: usize) -> Option<i16> {
    u16_at(data, at).map(|v| v as i16)
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(
        data.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

/// `data[at..]`, empty past its end.
fn from(data: &[u8], at: usize) -> &[u8] {
    data.get(at..).unwrap_or_default()
}

impl<'a> Face<'a> {
    /// The font in `data`: None where a table it needs is missing.
    pub(super) fn parse(data: &'a [u8]) -> Option<Face<'a>> {
        let table = |tag: &[u8; 4]| -> Option<&'a [u8]> {
            let count = usize::from(u16_at(data, 4)?);
            (0..count).find_map(|i| {
                let record = 12 + 16 * i;
                if data.get(record..record + 4)? != tag {
                    return None;
                }
                let offset = u32_at(data, record + 8)? as usize;
                let length = u32_at(data, record + 12)? as usize;
                data.get(offset..offset.checked_add(length)?)
            })
        };
        let head = table(b"head")?;
        Some(Face {
            units_per_em: u16_at(head, 18).filter(|u| *u > 0)?,
            long_offsets: i16_at(head, 50)? == 1,
            glyphs: u16_at(table(b"maxp")?, 4)?,
            metrics: u16_at(table(b"hhea")?, 34)?,
            hmtx: table(b"hmtx")?,
            loca: table(b"loca")?,
            glyf: table(b"glyf")?,
            cmap: cmap(table(b"cmap")?),
            kern: table(b"kern").unwrap_or_default(),
        })
    }

    pub(super) fn units_per_em(&self) -> u16 {
        self.units_per_em
    }

    pub(super) fn number_of_glyphs(&self) -> u16 {
        self.glyphs
    }

    /// The glyph drawn for `c`; None where the font has none.
    pub(super) fn glyph_index(&self, c: char) -> Option<u16> {
        let c = u32::from(c);
        let glyph = match self.cmap {
            Cmap::Segments(table) => segments_lookup(table, c),
            Cmap::Groups(table) => groups_lookup(table, c),
            Cmap::None => None,
        };
        glyph.filter(|g| *g != 0 && *g < self.glyphs)
    }

    /// `glyph`'s advance width, in font units.
    pub(super) fn advance(&self, glyph: u16) -> u16 {
        let i = usize::from(glyph.min(self.metrics.saturating_sub(1)));
        u16_at(self.hmtx, 4 * i).unwrap_or(0)
    }

    /// The kerning between `left` and `right`, in font units: the sum of
    /// the horizontal format 0 subtables of `kern` (Microsoft's version 0,
    /// as DejaVu Sans has; not Apple's).
    pub(super) fn kerning(&self, left: u16, right: u16) -> i16 {
        let key = u32::from(left) << 16 | u32::from(right);
        let mut sum: i16 = 0;
        let (Some(0), Some(count)) = (u16_at(self.kern, 0), u16_at(self.kern, 2)) else {
            return 0;
        };
        let mut at = 4;
        for _ in 0..count {
            let (Some(length), Some(coverage)) =
                (u16_at(self.kern, at + 2), u16_at(self.kern, at + 4))
            else {
                break;
            };
            let pairs = usize::from(u16_at(self.kern, at + 6).unwrap_or(0));
            // Format 0; horizontal; kerning, not minimums; no cross-stream.
            if coverage & 0xff07 == 0x0001 {
                let found = pair_lookup(from(self.kern, at + 14), pairs, key);
                sum = sum.saturating_add(found.unwrap_or(0));
            }
            // A format 0 subtable's length may overflow its 16 bits: its
            // pairs tell.
            at += match coverage >> 8 {
                0 => 14 + 6 * pairs,
                _ => usize::from(length),
            };
        }
        sum
    }

    /// `glyph`'s outline, in font units, added to `out`.
    pub(super) fn outline(&self, glyph: u16, out: &mut Vec<Segment>) {
        self.outline_at(glyph, Transform::IDENTITY, out, 0);
    }

    /// The bytes of `glyph` in `glyf`.
    fn glyph_data(&self, glyph: u16) -> &'a [u8] {
        let g = usize::from(glyph);
        let (start, end) = if self.long_offsets {
            (u32_at(self.loca, 4 * g), u32_at(self.loca, 4 * g + 4))
        } else {
            let half = |i| u16_at(self.loca, i).map(|v| u32::from(v) * 2);
            (half(2 * g), half(2 * g + 2))
        };
        match (start, end) {
            (Some(s), Some(e)) if s < e => {
                self.glyf.get(s as usize..e as usize).unwrap_or_default()
            }
            _ => &[],
        }
    }

    fn outline_at(&self, glyph: u16, ts: Transform, out: &mut Vec<Segment>, depth: u8) {
        let data = self.glyph_data(glyph);
        match i16_at(data, 0) {
            Some(contours) if contours >= 0 => simple(data, contours as u16, ts, out),
            // Components nest a few deep at most; a loop would not end.
            Some(_) if depth < 8 => {
                for (component, inner) in components(data) {
                    self.outline_at(component, ts.then_inner(inner), out, depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// The Unicode subtable of `cmap`: format 12 where there is one (all of
/// Unicode), else format 4 (the Basic Multilingual Plane).
fn cmap(table: &[u8]) -> Cmap<'_> {
    let count = usize::from(u16_at(table, 2).unwrap_or(0));
    let subtables = || {
        (0..count).filter_map(|i| {
            let platform = u16_at(table, 4 + 8 * i)?;
            let encoding = u16_at(table, 6 + 8 * i)?;
            let offset = u32_at(table, 8 + 8 * i)? as usize;
            let unicode = platform == 0 || (platform == 3 && (encoding == 1 || encoding == 10));
            let sub = table.get(offset..)?;
            unicode.then_some((u16_at(sub, 0)?, sub))
        })
    };
    if let Some((_, sub)) = subtables().find(|(format, _)| *format == 12) {
        return Cmap::Groups(sub);
    }
    match subtables().find(|(format, _)| *format == 4) {
        Some((_, sub)) => Cmap::Segments(sub),
        None => Cmap::None,
    }
}

/// Format 4: segments of characters, each with a delta or a glyph array.
fn segments_lookup(table: &[u8], c: u32) -> Option<u16> {
    let c = u16::try_from(c).ok()?;
    let segments = usize::from(u16_at(table, 6)? / 2);
    let ends = 14;
    let starts = ends + 2 * segments + 2;
    let deltas = starts + 2 * segments;
    let ranges = deltas + 2 * segments;
    // The first segment ending at or after c.
    let (mut lo, mut hi) = (0, segments);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if u16_at(table, ends + 2 * mid)? < c {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let i = lo;
    let start = u16_at(table, starts + 2 * i)?;
    if i >= segments || c < start {
        return None;
    }
    let delta = u16_at(table, deltas + 2 * i)?;
    let range = u16_at(table, ranges + 2 * i)?;
    if range == 0 {
        return Some(c.wrapping_add(delta));
    }
    let at = ranges + 2 * i + usize::from(range) + 2 * usize::from(c - start);
    let glyph = u16_at(table, at)?;
    (glyph != 0).then(|| glyph.wrapping_add(delta))
}

/// Format 12: groups of consecutive characters and glyphs.
fn groups_lookup(table: &[u8], c: u32) -> Option<u16> {
    let groups = u32_at(table, 12)? as usize;
    let group = |i: usize| -> Option<(u32, u32, u32)> {
        let at = 16 + 12 * i;
        Some((
            u32_at(table, at)?,
            u32_at(table, at + 4)?,
            u32_at(table, at + 8)?,
        ))
    };
    let (mut lo, mut hi) = (0, groups);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let (start, end, glyph) = group(mid)?;
        if c < start {
            hi = mid;
        } else if c > end {
            lo = mid + 1;
        } else {
            return u16::try_from(glyph + (c - start)).ok();
        }
    }
    None
}

/// A format 0 kerning subtable's value for `key` (left glyph, right glyph),
/// its `count` pairs sorted by key.
fn pair_lookup(pairs: &[u8], count: usize, key: u32) -> Option<i16> {
    let (mut lo, mut hi) = (0, count);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let here = u32_at(pairs, 6 * mid)?;
        match here.cmp(&key) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return i16_at(pairs, 6 * mid + 4),
        }
    }
    None
}

/// A component's placement: `x' = a·x + c·y + e`, `y' = b·x + d·y + f`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Transform {
    a: f32,
    b: f32,
    c: f32,
    d: f32,
    e: f32,
    f: f32,
}

impl Transform {
    const IDENTITY: Transform = Transform {
        a: 1.0,
        b: 0.0,
        c: 0.0,
        d: 1.0,
        e: 0.0,
        f: 0.0,
    };

    fn apply(&self, x: f32, y: f32) -> (f32, f32) {
        if *self == Transform::IDENTITY {
            return (x, y);
        }
        (
            self.a * x + self.c * y + self.e,
            self.b * x + self.d * y + self.f,
        )
    }

    /// `inner` applied first, then this.
    fn then_inner(&self, inner: Transform) -> Transform {
        Transform {
            a: self.a * inner.a + self.c * inner.b,
            b: self.b * inner.a + self.d * inner.b,
            c: self.a * inner.c + self.c * inner.d,
            d: self.b * inner.c + self.d * inner.d,
            e: self.a * inner.e + self.c * inner.f + self.e,
            f: self.b * inner.e + self.d * inner.f + self.f,
        }
    }
}

/// A composite glyph's components: each glyph and its placement (offsets
/// only where given as x and y, as ttf-parser and most renderers read
/// them; matched points are not followed).
fn components(data: &[u8]) -> Vec<(u16, Transform)> {
    const WORDS: u16 = 0x0001;
    const XY: u16 = 0x0002;
    const SCALE: u16 = 0x0008;
    const MORE: u16 = 0x0020;
    const XY_SCALE: u16 = 0x0040;
    const TWO_BY_TWO: u16 = 0x0080;
    let f2dot14 = |at: usize| i16_at(data, at).map(|v| f32::from(v) / 16384.0);
    let mut out = Vec::new();
    let mut at = 10;
    while let (Some(flags), Some(glyph)) = (u16_at(data, at), u16_at(data, at + 2)) {
        at += 4;
        let (dx, dy) = if flags & WORDS != 0 {
            at += 4;
            (i16_at(data, at - 4), i16_at(data, at - 2))
        } else {
            at += 2;
            let byte = |i: usize| data.get(i).map(|b| i16::from(*b as i8));
            (byte(at - 2), byte(at - 1))
        };
        let mut ts = Transform::IDENTITY;
        if flags & XY != 0 {
            ts.e = f32::from(dx.unwrap_or(0));
            ts.f = f32::from(dy.unwrap_or(0));
        }
        if flags & SCALE != 0 {
            ts.a = f2dot14(at).unwrap_or(1.0);
            ts.d = ts.a;
            at += 2;
        } else if flags & XY_SCALE != 0 {
            (ts.a, ts.d) = (f2dot14(at).unwrap_or(1.0), f2dot14(at + 2).unwrap_or(1.0));
            at += 4;
        } else if flags & TWO_BY_TWO != 0 {
            ts.a = f2dot14(at).unwrap_or(1.0);
            ts.b = f2dot14(at + 2).unwrap_or(0.0);
            ts.c = f2dot14(at + 4).unwrap_or(0.0);
            ts.d = f2dot14(at + 6).unwrap_or(1.0);
            at += 8;
        }
        out.push((glyph, ts));
        if flags & MORE == 0 {
            break;
        }
    }
    out
}

/// A simple glyph's `contours` (its points on and off the curve) as
/// lines and quadratic curves, placed by `ts`.
fn simple(data: &[u8], contours: u16, ts: Transform, out: &mut Vec<Segment>) {
    let Some(points) = points(data, contours) else {
        return;
    };
    let mut first = 0;
    for c in 0..usize::from(contours) {
        let Some(last) = u16_at(data, 10 + 2 * c) else {
            return;
        };
        let end = usize::from(last) + 1;
        if let Some(contour) = points.get(first..end) {
            contour_path(contour, ts, out);
        }
        first = end;
    }
}

/// A point of a glyph: x, y, and whether it lies on the curve.
type Point = (f32, f32, bool);

/// The points of a simple glyph with `contours` contours.
fn points(data: &[u8], contours: u16) -> Option<Vec<Point>> {
    const ON_CURVE: u8 = 0x01;
    const X_SHORT: u8 = 0x02;
    const Y_SHORT: u8 = 0x04;
    const REPEAT: u8 = 0x08;
    const X_SAME_OR_POSITIVE: u8 = 0x10;
    const Y_SAME_OR_POSITIVE: u8 = 0x20;
    let ends = 10;
    let n = usize::from(u16_at(
        data,
        ends + 2 * usize::from(contours).checked_sub(1)?,
    )?) + 1;
    let instructions = ends + 2 * usize::from(contours);
    let mut at = instructions + 2 + usize::from(u16_at(data, instructions)?);
    let mut flags = Vec::with_capacity(n);
    while flags.len() < n {
        let flag = *data.get(at)?;
        at += 1;
        let mut times = 1;
        if flag & REPEAT != 0 {
            times += usize::from(*data.get(at)?);
            at += 1;
        }
        flags.extend(std::iter::repeat_n(flag, times.min(n - flags.len())));
    }
    // The coordinates: x for every point, then y, each from the last.
    let mut read = |short: u8, same_or_positive: u8| -> Option<Vec<f32>> {
        let mut v: i32 = 0;
        let mut values = Vec::with_capacity(n);
        for flag in &flags {
            if flag & short != 0 {
                let delta = i32::from(*data.get(at)?);
                at += 1;
                v += if flag & same_or_positive != 0 {
                    delta
                } else {
                    -delta
                };
            } else if flag & same_or_positive == 0 {
                v += i32::from(i16_at(data, at)?);
                at += 2;
            }
            values.push(v as i16 as f32);
        }
        Some(values)
    };
    let xs = read(X_SHORT, X_SAME_OR_POSITIVE)?;
    let ys = read(Y_SHORT, Y_SAME_OR_POSITIVE)?;
    Some(
        flags
            .iter()
            .zip(xs.into_iter().zip(ys))
            .map(|(flag, (x, y))| (x, y, flag & ON_CURVE != 0))
            .collect(),
    )
}

/// One closed contour: from its first point on the curve (or, where it
/// starts with two off it, the midpoint between them, which TrueType
/// implies), a line to each point on the curve, a quadratic curve through
/// each off it, with the midpoint of two off-curve points in a row
/// implied on it.
fn contour_path(contour: &[Point], ts: Transform, out: &mut Vec<Segment>) {
    let mid = |p: (f32, f32), q: (f32, f32)| (p.0 + (q.0 - p.0) * 0.5, p.1 + (q.1 - p.1) * 0.5);
    let mut first_on: Option<(f32, f32)> = None;
    let mut first_off: Option<(f32, f32)> = None;
    let mut last_off: Option<(f32, f32)> = None;
    let push = |out: &mut Vec<Segment>, segment: Segment| out.push(segment);
    let quad = |out: &mut Vec<Segment>, c: (f32, f32), p: (f32, f32)| {
        let (c, p) = (ts.apply(c.0, c.1), ts.apply(p.0, p.1));
        out.push(Segment::Quad(c.0, c.1, p.0, p.1));
    };
    for &(x, y, on) in contour {
        let p = (x, y);
        match (first_on, last_off, on) {
            (None, _, true) => {
                first_on = Some(p);
                let (x, y) = ts.apply(x, y);
                push(out, Segment::Move(x, y));
            }
            (None, _, false) => match first_off {
                Some(off) => {
                    let m = mid(off, p);
                    first_on = Some(m);
                    last_off = Some(p);
                    let (x, y) = ts.apply(m.0, m.1);
                    push(out, Segment::Move(x, y));
                }
                None => first_off = Some(p),
            },
            (Some(_), Some(off), true) => {
                last_off = None;
                quad(out, off, p);
            }
            (Some(_), Some(off), false) => {
                last_off = Some(p);
                quad(out, off, mid(off, p));
            }
            (Some(_), None, true) => {
                let (x, y) = ts.apply(x, y);
                push(out, Segment::Line(x, y));
            }
            (Some(_), None, false) => last_off = Some(p),
        }
    }
    if let (Some(off1), Some(off2)) = (first_off, last_off) {
        last_off = None;
        quad(out, off2, mid(off2, off1));
    }
    match (first_on, first_off, last_off) {
        (Some(p), Some(off), _) | (Some(p), None, Some(off)) => quad(out, off, p),
        (Some(p), None, None) => {
            let (x, y) = ts.apply(p.0, p.1);
            push(out, Segment::Line(x, y));
        }
        (None, ..) => {}
    }
    push(out, Segment::Close);
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEJAVU: &[u8] = include_bytes!("../../templates/fonts/DejaVuSans.ttf");

    fn outline(face: &Face, c: char) -> Vec<Segment> {
        let mut out = Vec::new();
        face.outline(face.glyph_index(c).expect("a glyph"), &mut out);
        out
    }

    #[test]
    fn letters_map_to_glyphs_with_closed_outlines_and_advances() {
        let face = Face::parse(DEJAVU).expect("DejaVu Sans");
        assert_eq!(face.units_per_em(), 2048);
        for c in ['A', 'g', 'é', 'ß', 'Ж', 'λ', '·', '€', '&'] {
            let glyph = face.glyph_index(c).expect("a glyph");
            assert!(face.advance(glyph) > 0, "{c}");
            let path = outline(&face, c);
            assert!(matches!(path.first(), Some(Segment::Move(..))), "{c}");
            assert_eq!(path.last(), Some(&Segment::Close), "{c}");
        }
        // Beyond the Basic Multilingual Plane, and unmapped: none.
        assert_eq!(face.glyph_index('\u{10FFFD}'), None);
        let space = face.glyph_index(' ').expect("a space");
        assert_eq!(face.advance(space), 651);
        let mut nothing = Vec::new();
        face.outline(space, &mut nothing);
        assert!(nothing.is_empty());
    }

    #[test]
    fn an_accented_letter_is_its_letter_and_its_accent() {
        let face = Face::parse(DEJAVU).expect("DejaVu Sans");
        let (e, acute, e_acute) = (
            outline(&face, 'e'),
            outline(&face, '\u{b4}'),
            outline(&face, 'é'),
        );
        assert_eq!(e_acute[..e.len()], e[..]);
        // The accent, moved over the letter.
        assert_eq!(e_acute.len(), e.len() + acute.len());
        let (Segment::Move(x0, y0), Segment::Move(x1, y1)) = (acute[0], e_acute[e.len()]) else {
            panic!("{acute:?}");
        };
        assert_eq!(y0, y1);
        assert!(x1 > x0, "{x0} {x1}");
    }

    #[test]
    fn kerning_pairs_are_found_and_others_are_none() {
        let face = Face::parse(DEJAVU).expect("DejaVu Sans");
        let g = |c| face.glyph_index(c).expect("a glyph");
        assert!(face.kerning(g('A'), g('V')) < 0);
        assert!(face.kerning(g('T'), g('o')) < 0);
        assert_eq!(face.kerning(g('o'), g('o')), 0);
    }

    #[test]
    fn a_damaged_font_is_refused_or_draws_nothing() {
        assert!(Face::parse(&[]).is_none());
        assert!(Face::parse(&DEJAVU[..4096]).is_none());
        let mut data = DEJAVU.to_vec();
        // Every byte of glyf 0xff: composites of glyphs that are not there.
        let face = Face::parse(DEJAVU).expect("DejaVu Sans");
        let glyf = face.glyf.as_ptr() as usize - DEJAVU.as_ptr() as usize;
        data[glyf..glyf + face.glyf.len()].fill(0xff);
        let damaged = Face::parse(&data).expect("its tables are there");
        let mut out = Vec::new();
        for glyph in 0..damaged.number_of_glyphs() {
            damaged.outline(glyph, &mut out);
        }
        assert!(out.is_empty(), "{:?}", &out[..4]);
    }
}
