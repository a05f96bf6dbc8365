//! A board's picture as a game draws it ([`crate::engine::Game::picture`]):
//! an SVG document built in layers, painted in order.
//!
//! Most of a board never changes: Rocket's hexes and place names, Linie 1's
//! grid and terminals, the coordinates, the legend's symbols. A game puts
//! those in [`Layer::fixed`] layers, and the PNG renderer
//! ([`crate::picture::png`]) draws each fixed layer once and keeps it, so a
//! report pays only for what changed (issue 14: one PNG in 20 ms). Whether a
//! layer is fixed is only a hint for that cache, which is keyed by the
//! layer's text: a "fixed" layer that differs is simply drawn again.

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
    /// The elements.
    pub svg: String,
}

impl Layer {
    /// A layer that is the same in every picture of the board.
    pub fn fixed(svg: String) -> Layer {
        Layer { fixed: true, svg }
    }

    /// A layer drawn anew for every picture.
    pub fn changing(svg: String) -> Layer {
        Layer { fixed: false, svg }
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
            out.push_str(&layer.svg);
        }
        out.push_str("</svg>\n");
        out
    }

    /// One layer alone as a standalone document (the head included where
    /// the layer changes), for the renderer.
    pub fn layer_svg(&self, layer: &Layer) -> String {
        let mut out = self.open();
        if !layer.fixed {
            out.push_str(&self.head);
        }
        out.push_str(&layer.svg);
        out.push_str("</svg>\n");
        out
    }
}
