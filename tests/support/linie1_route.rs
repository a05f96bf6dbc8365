//! Linie 1 with a route already built, for the tests (`tests/all`) and the
//! engine bench (`benches/engine.rs`), which include this file by path: a
//! trip can be started and driven at once.

use stationmaster::linie1::{Edge, Linie1, Paths, Square};

/// Line 2's whole route from terminal 2W along row 10 to K10, north to K7
/// and east into terminal 2E: square and paths of each tile.
pub const LINIE1_ROUTE: &[(&str, &str)] = &[
    ("A10", "WE"),
    ("B10", "WE"),
    ("C10", "WE"),
    ("D10", "WE"),
    ("E10", "WE"),
    ("F10", "WE"),
    ("G10", "WE"),
    ("H10", "WE"),
    ("I10", "WE"),
    ("J10", "WE"),
    ("K10", "WN"),
    ("K9", "NS"),
    ("K8", "NS"),
    ("K7", "SE"),
    ("L7", "WE"),
];

/// `g` with seat 1 on line 2 with stops K and A (and D, with three stops;
/// D, K, A with `ordered_stops`),
/// and [`LINIE1_ROUTE`] built, arranged through the snapshot with every
/// tile taken from the supply.
pub fn linie1_with_route(g: &Linie1) -> Linie1 {
    let d = g.data().clone();
    let mut v = serde_json::to_value(g).expect("a game serialises");
    let route = v["players"][0]["route"].as_u64().expect("a route") as usize;
    let mine = v["players"][0]["line"].clone();
    for p in v["players"].as_array_mut().expect("players") {
        if p["line"] == 1 {
            p["line"] = mine.clone();
        }
    }
    v["players"][0]["line"] = 1.into();
    let letter = |c| d.building_by_letter(c).expect("a building").index();
    let stops = d.routes[route].stops();
    // With `ordered_stops`, three stops in the order the route meets them
    // from 2W (D beside B10, K beside G10, A beside K8), so the trip can
    // finish.
    let row: Vec<usize> = if g.options().ordered_stops && stops == 3 {
        vec![letter('D'), letter('K'), letter('A')]
    } else {
        [letter('K'), letter('A'), letter('D')][..stops].to_vec()
    };
    v["data"]["routes"][route]["rows"][1] = serde_json::json!(row);
    for (s, p) in LINIE1_ROUTE {
        let s = Square::parse(s).expect("a square");
        let paths = Paths::parse(p).expect("paths");
        let t = d.tile_with_paths(paths).expect("a tile").index();
        v["cells"][d.index(s)] = serde_json::json!({"tile": t, "paths": paths.0});
        let n = v["supply"][t].as_u64().expect("a count");
        v["supply"][t] = (n - 1).into();
        for e in Edge::ALL {
            if let Some(n) = d.step(s, e)
                && let Some(b) = d.building_at(n)
                && v["stop_signs"][b.index()].is_null()
            {
                v["stop_signs"][b.index()] = serde_json::json!({"row": s.row, "col": s.col});
            }
        }
    }
    serde_json::from_value(v).expect("the arranged game reads back")
}
