//! A board's picture as a game draws it ([`crate::Game::picture`]):
//! an SVG document built in layers, painted in order.
//!
//! Most of a board never changes: Rocket's hexes and place names, Linie 1's
//! grid and terminals, the coordinates, the legend's symbols. A game puts
//! those in [`Layer::fixed`] layers, and the PNG renderer
//! (`stationmaster::picture::png`) draws each fixed layer once and keeps it, so a
//! report pays only for what changed (issue 14: one PNG in 20 ms). Whether a
//! layer is fixed is only a hint for that cache, which is keyed by the
//! layer's text: a "fixed" layer that differs is simply drawn again.
//!
//! A layer may also lay [`Stamp`]s: one drawing placed many times (Linie
//! 1's tiles, a hundred of a dozen kinds on a full board). The renderer
//! draws each stamp once and lays its pixels wherever it is placed on a
//! whole pixel.
//!
//! A changing layer is read a line at a time: each line of its
//! [`Layer::svg`] is one or more whole elements, drawn on its own (with
//! [`Picture::head`]). The renderer keeps what each line covers and draws
//! again only where lines came, went or changed since the game's last
//! picture; so a piece that moves is best a line of its own (a tile's
//! track, not a line's whole track in one path).

/// A board's picture: [`Picture::svg`] is the standalone document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// Width, in the picture's units (its viewBox).
    pub width: u32,
    /// Height, in the same units.
    pub height: u32,
    /// What every changing layer may refer to: a `<title>`, `<defs>`.
    /// Written once at the top of the document.
    pub head: String,
    /// The layers, bottom first.
    pub layers: Vec<Layer>,
}

/// SVG elements, painted over the layers below.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// The same in every picture of this board. A fixed layer stands alone:
    /// it refers to nothing in [`Picture::head`], and is painted as a whole
    /// (the renderer keeps it as pixels).
    pub fixed: bool,
    /// The elements, over the stamps: in a changing layer, each line whole
    /// elements (the renderer draws a line at a time).
    pub svg: String,
    /// Drawings placed many times, under the elements.
    pub stamps: Vec<Stamp>,
}

/// One drawing placed many times: written once in `<defs>` and placed with
/// `<use>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// Its id in `<defs>`.
    pub id: String,
    /// Its elements, drawn from the origin, within `width` by `height`.
    pub svg: String,
    /// Its size, in the picture's units.
    pub width: u32,
    /// Its height.
    pub height: u32,
    /// Where it lies: each place's own id (none where empty) and its
    /// top-left corner.
    pub at: Vec<(String, i32, i32)>,
}

impl Layer {
    /// A layer that is the same in every picture of the board.
    pub fn fixed(svg: String) -> Layer {
        Layer {
            fixed: true,
            svg,
            stamps: Vec::new(),
        }
    }

    /// A layer drawn anew for every picture.
    pub fn changing(svg: String) -> Layer {
        Layer {
            fixed: false,
            svg,
            stamps: Vec::new(),
        }
    }

    /// The layer with `stamps` laid under its elements.
    pub fn with_stamps(self, stamps: Vec<Stamp>) -> Layer {
        Layer { stamps, ..self }
    }
}

impl Stamp {
    /// Its definition, for `<defs>`.
    pub fn def(&self) -> String {
        format!("<g id=\"{}\">{}</g>\n", self.id, self.svg)
    }

    /// The `<use>` that places it at `(x, y)`, with `id` where not empty.
    pub fn placed(&self, id: &str, x: i32, y: i32) -> String {
        let own = if id.is_empty() {
            String::new()
        } else {
            format!("id=\"{id}\" ")
        };
        format!(
            "<use {own}xlink:href=\"#{}\" x=\"{x}\" y=\"{y}\"/>\n",
            self.id
        )
    }

    /// Alone, as a standalone document its own size (the renderer draws
    /// it so, once).
    pub fn document(&self) -> String {
        let (w, h) = (self.width, self.height);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{w}\" \
             height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans\">\n{}</svg>\n",
            self.svg
        )
    }
}

impl Picture {
    /// The root element's opening tag: size, viewBox, and DejaVu Sans (the
    /// only font the PNG renderer has).
    pub fn open(&self) -> String {
        let (w, h) = (self.width, self.height);
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" \
             version=\"1.1\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
             font-family=\"DejaVu Sans\">\n"
        )
    }

    /// The whole picture as one standalone SVG document (`show --svg`,
    /// the archive).
    pub fn svg(&self) -> String {
        let mut out = self.open();
        out.push_str(&self.head);
        for layer in &self.layers {
            write_stamps(&mut out, &layer.stamps, |_| true);
            out.push_str(&layer.svg);
        }
        out.push_str("</svg>\n");
        out
    }

    /// One layer alone as a standalone document (the head included where
    /// the layer changes), for the renderer: its elements, and of its
    /// stamps the places `placed` keeps (`(stamp, place)`: the renderer
    /// lays the others itself).
    pub fn layer_svg(&self, layer: &Layer, placed: impl Fn((usize, usize)) -> bool) -> String {
        let mut out = self.open();
        if !layer.fixed {
            out.push_str(&self.head);
        }
        write_stamps(&mut out, &layer.stamps, placed);
        out.push_str(&layer.svg);
        out.push_str("</svg>\n");
        out
    }
}

/// `stamps` as `<defs>` and `<use>`s, of the places `placed` keeps.
fn write_stamps(out: &mut String, stamps: &[Stamp], placed: impl Fn((usize, usize)) -> bool) {
    let mut uses = String::new();
    let mut defs = String::new();
    for (k, stamp) in stamps.iter().enumerate() {
        let before = uses.len();
        for (i, (id, x, y)) in stamp.at.iter().enumerate() {
            if placed((k, i)) {
                uses.push_str(&stamp.placed(id, *x, *y));
            }
        }
        if uses.len() > before {
            defs.push_str(&stamp.def());
        }
    }
    if !defs.is_empty() {
        out.push_str("<defs>\n");
        out.push_str(&defs);
        out.push_str("</defs>\n");
        out.push_str(&uses);
    }
}
