//! The slider comparison: every implementation runs the same work, counts are checked.
//!
//! Counts asserted: the start position's perft 3 and 4, 8,902 and 197,281 (Chess Programming Wiki, "Perft Results").

use perft::Position;
use perft::compare::{Work, compare};
use perft::perft::{Counting, Perft};

#[test]
fn every_implementation_runs_every_round_and_agrees() {
    let work = vec![Work {
        pos: Position::startpos(),
        depth: 4,
        expected: Some(197_281u64.into()),
    }];
    let (contenders, problems) = compare(&work, Perft::new(), 0, 3);
    assert!(problems.is_empty(), "{problems:?}");
    assert!(contenders.len() >= 2);
    assert_eq!(contenders[0].name, "classical");
    for c in &contenders {
        assert_eq!(c.times.len(), 3);
        assert_eq!(c.counts, vec![197_281]);
    }
}

#[test]
fn a_wrong_published_count_is_reported_for_each_implementation() {
    let work = vec![Work {
        pos: Position::startpos(),
        depth: 3,
        expected: Some(8903u64.into()),
    }];
    let (contenders, problems) = compare(&work, Perft::new().counting(Counting::NoBulk), 0, 1);
    assert_eq!(problems.len(), contenders.len(), "{problems:?}");
    assert!(
        problems.iter().all(|p| p.contains("got 8902")),
        "{problems:?}"
    );
}
