use stationmaster::engine::{Game, PlayerSetup, Seat, Setup};
use stationmaster::rocket::{Board, Rocket};
#[test]
fn show() {
    let setup = Setup {
        kind: "rocket".into(),
        players: ["Andi", "Bela", "Cecil"]
            .iter()
            .map(|n| PlayerSetup {
                name: n.to_string(),
                email: String::new(),
            })
            .collect(),
        options: vec![],
        seed: 1,
    };
    let g = Rocket::new(Board::embedded().unwrap(), &setup).unwrap();
    println!("{}", g.render(Some(Seat(0))));
    for s in 0..20u64 {
        let setup = Setup {
            seed: s,
            ..setup.clone()
        };
        let g = Rocket::new(Board::embedded().unwrap(), &setup).unwrap();
        print!("{}:{} ", s, g.turn().active.0);
    }
    println!();
    for o in g.legal_orders(g.turn().active) {
        if let stationmaster::rocket::Order::Extend { .. } = o {
            print!("{} | ", g.order_text(&o));
        }
    }
}
