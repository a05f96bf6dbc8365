// Temporary: watch bot games against greedy (not committed).
use stationmaster::engine::bot::{self, Settings};
use stationmaster::engine::rng::SplitMix64;
use stationmaster::engine::{Game, Seat, PlayerSetup, Setup};
use stationmaster::linie1::{Components, Linie1};

fn greedy(g: &Linie1, seat: Seat, legal: &[stationmaster::linie1::Order], rng: &mut SplitMix64) -> usize {
    let mut best = Vec::new(); let mut top = i64::MIN;
    for (i, o) in legal.iter().enumerate() { let mut a = g.clone(); a.apply(seat, o).unwrap(); let e = a.estimate(seat).unwrap();
        if e > top { top = e; best.clear(); } if e == top { best.push(i); } }
    best[rng.below(best.len())]
}

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let (seed0, games, iters) = (args[0], args[1], args[2] as u32);
    let progress: f64 = std::env::var("P").ok().and_then(|v| v.parse().ok()).unwrap_or(0.3);
    let settings = Settings { iterations: iters, progress, ..Settings::default() };
    let comps = Components::embedded().unwrap();
    for seed in seed0..seed0 + games {
        let bot_seat = Seat((seed % 4) as u8);
        let setup = Setup { kind: "linie1".into(), players: (0..4).map(|i| PlayerSetup{name: format!("p{i}"), email: format!("p{i}@x.y")}).collect(), options: vec![], seed };
        let mut g = Linie1::new(comps.clone(), &setup).unwrap();
        let mut rng = SplitMix64::new(seed ^ 0xb075);
        let mut complete = [0u32; 4]; let mut start = [0u32; 4]; let mut first_est = [0i64;4];
        for s in 0..4 { first_est[s] = g.estimate(Seat(s as u8)).unwrap(); }
        for n in 0..3000u64 {
            let a = g.awaiting();
            if a.is_empty() { break; }
            let seat = a[rng.below(a.len())].seat;
            let legal = g.legal_orders(seat);
            let order = if seat == bot_seat {
                let d = bot::choose(&g, seat, bot::seed(seed, n, seat), &settings).unwrap();
                if std::env::var("V").is_ok() {
                    let mut c: Vec<_> = d.candidates.iter().map(|c| (c.visits, (c.mean * 1000.0).round() / 1000.0, g.order_text(&c.order))).collect();
                    c.sort_by(|a, b| b.0.cmp(&a.0)); c.truncate(4);
                    println!("{n} t{} {} est {:?} lm {:?} | {:?}", g.turn_number(), g.order_text(&d.order), g.estimate(seat), g.last_move(), c);
                }
                d.order
            } else { let o = legal[greedy(&g, seat, &legal, &mut rng)].clone(); if std::env::var("V").is_ok() && matches!(o, stationmaster::linie1::Order::Move{..} | stationmaster::linie1::Order::Start{..}) { println!("   {n} t{} greedy {} {}", g.turn_number(), seat.0, g.order_text(&o)); } o };
            g.apply(seat, &order).unwrap();
            for s in 0..4 { let e = g.estimate(Seat(s as u8)).unwrap(); let t = g.turn_number();
                if g.players()[s].driving && start[s] == 0 { start[s] = t; complete[s] = (2005 - e) as u32 / 4; } }
        }
        println!("seed {seed} bot {} winner {:?} | start est {:?} complete {:?} start {:?} end t{}", bot_seat.0, g.outcome().and_then(|o| o.winner).map(|s| s.0), first_est, complete, start, g.turn_number());
    }
}
