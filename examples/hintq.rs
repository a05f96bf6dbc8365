// Temporary: where the hint puts greedy's best order (not committed).
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, Seat, PlayerSetup, Setup};
use stationmaster::linie1::{Components, Linie1};

fn main() {
    let comps = Components::embedded().unwrap();
    let mut ranks = Vec::new();
    for seed in 0..6u64 {
        let setup = Setup { kind: "linie1".into(), players: (0..4).map(|i| PlayerSetup{name: format!("p{i}"), email: format!("p{i}@x.y")}).collect(), options: vec![], seed };
        let mut g = Linie1::new(comps.clone(), &setup).unwrap();
        let mut rng = SplitMix64::new(seed);
        for _ in 0..400 {
            let a = g.awaiting(); if a.is_empty() { break; }
            let seat = a[0].seat;
            let legal = g.legal_orders(seat);
            let est: Vec<i64> = legal.iter().map(|o| { let mut c = g.clone(); c.apply(seat, o).unwrap(); c.estimate(seat).unwrap() }).collect();
            let top = *est.iter().max().unwrap();
            let now = g.estimate(seat).unwrap();
            let mut hinted = legal.clone(); g.order_hint(seat, &mut hinted);
            let r = hinted.iter().position(|o| { let i = legal.iter().position(|x| x == o).unwrap(); est[i] == top }).unwrap();
            if legal.len() > 1 && top > now { ranks.push((r, legal.len(), top - now, g.order_text(&hinted[r]))); }
            let best: Vec<usize> = (0..legal.len()).filter(|i| est[*i] == top).collect();
            let o = legal[best[rng.below(best.len())]].clone();
            g.apply(seat, &o).unwrap();
        }
    }
    let n = ranks.len();
    let beyond = |k| ranks.iter().filter(|r| r.0 >= k).count();
    println!("{n} improving positions; best beyond 10: {}, beyond 35: {}, beyond 100: {}", beyond(10), beyond(35), beyond(100));
    for r in ranks.iter().filter(|r| r.0 >= 35).take(15) { println!("{:?}", r); }
}
