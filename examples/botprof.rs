// Temporary profiling of the bot's calls (not committed).
use std::time::Instant;
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, Seat, PlayerSetup, Setup};
use stationmaster::linie1::{Components, Linie1};

fn main() {
    let comps = Components::embedded().unwrap();
    let setup = Setup { kind: "linie1".into(), players: (0..4).map(|i| PlayerSetup{name: format!("p{i}"), email: format!("p{i}@x.y")}).collect(), options: vec![], seed: 5 };
    let mut g = Linie1::new(comps, &setup).unwrap();
    let mut rng = SplitMix64::new(1);
    for turn in 0..60 {
        let a = g.awaiting();
        if a.is_empty() { break; }
        let seat = a[0].seat;
        let legal = g.legal_orders(seat);
        if turn % 10 == 0 {
            let n = 200;
            let t = Instant::now();
            for _ in 0..n { std::hint::black_box(g.legal_orders(seat)); }
            let tl = t.elapsed() / n;
            let t = Instant::now();
            for _ in 0..n { let mut l = legal.clone(); g.order_hint(seat, &mut l); std::hint::black_box(l); }
            let th = t.elapsed() / n;
            let t = Instant::now();
            for _ in 0..n { for s in 0..4 { std::hint::black_box(g.estimate(Seat(s))); } }
            let te = t.elapsed() / n;
            let t = Instant::now();
            for _ in 0..n { std::hint::black_box(g.determinize(seat, &mut rng)); }
            let td = t.elapsed() / n;
            let t = Instant::now();
            for _ in 0..n { let mut c = g.clone(); std::hint::black_box(c.apply(seat, &legal[0]).ok()); }
            let ta = t.elapsed() / n;
            println!("order {turn}: {} legal; legal {:?} hint {:?} estimate x4 {:?} determinize {:?} clone+apply {:?}", legal.len(), tl, th, te, td, ta);
        }
        let o = legal[rng.below(legal.len())].clone();
        g.apply(seat, &o).unwrap();
    }
}
