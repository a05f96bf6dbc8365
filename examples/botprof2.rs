// Temporary: where the estimate spends (not committed).
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, Seat, PlayerSetup, Setup};
use stationmaster::linie1::{Components, Linie1};

fn main() {
    let comps = Components::embedded().unwrap();
    let setup = Setup { kind: "linie1".into(), players: (0..4).map(|i| PlayerSetup{name: format!("p{i}"), email: format!("p{i}@x.y")}).collect(), options: vec![], seed: 5 };
    let mut g = Linie1::new(comps, &setup).unwrap();
    let mut rng = SplitMix64::new(1);
    for _ in 0..30 {
        let a = g.awaiting();
        let seat = a[0].seat;
        let legal = g.legal_orders(seat);
        let o = legal[rng.below(legal.len())].clone();
        g.apply(seat, &o).unwrap();
    }
    let t = std::time::Instant::now();
    let mut x = 0i64;
    for _ in 0..3000 { x += g.estimates().unwrap().iter().sum::<i64>(); let _ = Seat(0); }
    println!("{x} {:?} per seat", t.elapsed() / 12000);
}
