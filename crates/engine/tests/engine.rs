//! The engine's tests of its parts: the seeded generator, HTML escaping,
//! actors, second-person sentences, word matching and hints, and telling
//! orders from chatter. They sit here, not in `#[cfg(test)]` modules, and
//! `Cargo.toml` sets `test = false`: a unit-test harness compiles the whole
//! crate a second time (issue 37, point 8); this file compiles only itself
//! and links the library already built.

mod rng {
    use stationmaster_engine::rng::SplitMix64;

    #[test]
    fn the_same_seed_gives_the_same_stream() {
        let mut a = SplitMix64::new(42);
        let mut b = SplitMix64::new(42);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn the_stream_is_the_published_splitmix64() {
        // Reference values of SplitMix64 seeded with 1234567.
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }

    #[test]
    fn a_serde_round_trip_resumes_the_stream() {
        let mut a = SplitMix64::new(7);
        a.next_u64();
        let mut b: SplitMix64 = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
        assert_eq!(a.next_u64(), b.next_u64());
        assert!(b.below(4) < 4);
    }
}

mod canvas {
    use stationmaster_engine::escape_html;

    #[test]
    fn html_escapes_the_three_characters_that_matter_in_text() {
        assert_eq!(escape_html("a<b> & c"), "a&lt;b&gt; &amp; c");
        assert_eq!(escape_html("<Lee>"), "&lt;Lee&gt;");
        assert_eq!(escape_html("£5 …"), "£5 …");
        assert_eq!(escape_html(""), "");
    }
}

mod actor {
    use stationmaster_engine::Actor;

    #[test]
    fn reads_back_what_it_writes() {
        for a in [
            Actor::Mail("m1@example.org".into()),
            Actor::CommandLine,
            Actor::Moderator("gm@example.org".into()),
            Actor::Deadline,
        ] {
            let json = serde_json::to_string(&a).unwrap();
            assert_eq!(serde_json::from_str::<Actor>(&json).unwrap(), a);
        }
        assert_eq!(
            serde_json::to_string(&Actor::Moderator("gm@x.org".into())).unwrap(),
            "\"moderator gm@x.org\""
        );
    }
}

mod person {
    use stationmaster_engine::person::{Person, second_person_slips};

    #[test]
    fn the_reader_is_you_and_everyone_else_a_name() {
        let you = Person::new("ben", true);
        let ben = Person::new("ben", false);
        assert_eq!(format!("{}'s turn", ben.subject()), "ben's turn");
        assert_eq!(format!("{} turn", you.possessive()), "Your turn");
        assert_eq!(
            format!("from {} hand", you.possessive_within()),
            "from your hand"
        );
        assert_eq!(you.does("take", "takes"), "You take");
        assert_eq!(ben.does("take", "takes"), "ben takes");
    }

    #[test]
    fn slips_are_found() {
        assert_eq!(
            second_person_slips("You's turn was skipped.", Some("ben")).len(),
            1
        );
        assert_eq!(
            second_person_slips("You has no action.", Some("ben")).len(),
            1
        );
        assert_eq!(second_person_slips("ben passes.", Some("ben")).len(), 1);
        assert_eq!(second_person_slips("You pass.", None).len(), 1);
        assert!(second_person_slips("You pass; ben's turn.", Some("cara")).is_empty());
        assert!(second_person_slips("Turn 3: ben to play.", None).is_empty());
    }
}

mod grammar {
    use stationmaster_engine::grammar::{Match, hint, match_word};

    #[test]
    fn a_hints_label_stands_apart_from_its_items_however_long() {
        let items = ["J2 WE+NE+SE".to_string(), "K3 NS".to_string()];
        assert!(
            hint("exchange SQUARE PATHS", &items, ", ").starts_with("exchange SQUARE PATHS  J2")
        );
        let long = "a label longer than the column";
        assert!(hint(long, &items, ", ").starts_with(&format!("{long}  J2")));
    }

    fn choices() -> Vec<(String, u8)> {
        vec![
            ("GWR".to_string(), 1),
            ("GER".to_string(), 2),
            ("L&Y".to_string(), 3),
            ("LNWR".to_string(), 4),
            ("LY".to_string(), 3),
        ]
    }

    #[test]
    fn exact_names_and_unique_prefixes_match() {
        assert_eq!(match_word("gwr", &choices()), Match::One(1));
        assert_eq!(match_word("GE", &choices()), Match::One(2));
        assert_eq!(match_word("ly", &choices()), Match::One(3));
        assert_eq!(match_word("L&Y", &choices()), Match::One(3));
        assert_eq!(match_word("ln", &choices()), Match::One(4));
    }

    #[test]
    fn ambiguous_and_unknown_words_are_told_apart() {
        assert_eq!(
            match_word("g", &choices()),
            Match::Ambiguous(vec!["GWR".into(), "GER".into()])
        );
        assert_eq!(match_word("xyz", &choices()), Match::None);
        assert_eq!(match_word("", &choices()), Match::None);
    }
}

mod chatter {
    use stationmaster_engine::chatter::{Reading, Vocabulary, likely_typo};

    fn rocketish() -> Vocabulary {
        Vocabulary::new()
            .orders([
                "extend LINE HEX",
                "token CITY GOOD",
                "station HEX",
                "station HEX from HEX",
                "veto",
                "no veto",
                "bid N HEX",
                "pass",
            ])
            .commands([
                "help",
                "?",
                "map",
                "history [A..B]",
                "back",
                "away FROM to TO",
            ])
    }

    #[test]
    fn orders_commands_and_their_beginnings() {
        let v = rocketish();
        for line in [
            "extend GWR C14",
            "ext gwr c14",
            "t man st",
            "Veto!",
            "no veto",
            "NO VET",
            "pass",
            "p",
            "bid",
            "help",
            "?",
            "history 1..3",
            "away 2026-06-01 to 2026-06-03",
            "Back on Monday",
        ] {
            assert_eq!(v.read(line), Reading::Order, "{line}");
        }
    }

    #[test]
    fn numbered_and_bulleted_orders_are_read_without_their_marker() {
        let v = rocketish();
        for (line, order) in [
            ("1. extend GWR C14", "extend GWR C14"),
            ("2) pass", "pass"),
            ("(3) no veto", "no veto"),
            ("1.\textend GWR C14", "extend GWR C14"),
            ("   - token man steel", "token man steel"),
            ("\u{2022} bid 2 e9", "bid 2 e9"),
            ("1.\u{a0}\u{a0}pass", "pass"),
        ] {
            assert_eq!(v.read_item(line), (Reading::Order, order), "{line}");
        }
        for line in ["1. Hi all", "- Alex", "1.pass", "2024 was fun", "-- ", "1."] {
            assert_eq!(v.read_item(line), (Reading::Chatter, line), "{line}");
        }
        assert_eq!(v.read_item("pass"), (Reading::Order, "pass"));
    }

    #[test]
    fn typos_are_orders_only_with_arguments() {
        let v = rocketish();
        assert_eq!(v.read("extnd gwr c14"), Reading::Typo("extend".into()));
        assert_eq!(v.read("tokne man steel"), Reading::Typo("token".into()));
        assert_eq!(v.read("Vito"), Reading::Chatter);
        assert_eq!(v.read("psas"), Reading::Chatter);
        assert_eq!(v.read("hlep"), Reading::Chatter);
    }

    #[test]
    fn a_short_keywords_typo_counts_only_before_a_place() {
        let v = Vocabulary::new().orders(["lay SQUARE PATHS", "bid N HEX", "pass"]);
        assert_eq!(v.read("lya G3 WE"), Reading::Typo("lay".into()));
        assert_eq!(v.read("lau B5 NS"), Reading::Typo("lay".into()));
        assert_eq!(v.read("bdi 3 c5"), Reading::Typo("bid".into()));
        for line in [
            "May the best player win",
            "Hey all, here goes",
            "Day 2: going for the east",
            "Way to go!",
            "bad luck, Bert",
            "May 3rd suits me",
        ] {
            assert_eq!(v.read(line), Reading::Chatter, "{line}");
        }
    }

    #[test]
    fn greetings_and_sign_offs_are_chatter() {
        let v = rocketish();
        for line in [
            "Hi all,",
            "Hi Bob",
            "Thanks,",
            "Thanks!",
            "Cheers",
            "Alex",
            "B",
            "Best regards",
            "No worries",
            "Kind regards,",
            "Stationmaster: your move",
            "",
        ] {
            assert_eq!(v.read(line), Reading::Chatter, "{line}");
        }
    }

    #[test]
    fn typos() {
        assert!(likely_typo("extnd", "extend"));
        assert!(likely_typo("exttend", "extend"));
        assert!(likely_typo("extand", "extend"));
        assert!(likely_typo("etxend", "extend"));
        assert!(!likely_typo("extend", "extend"));
        assert!(!likely_typo("alex", "pass"));
        assert!(!likely_typo("etxnd", "extend"));
    }
}
