//! Tests of `comparisons`.

use super::completed_rounds;

/// One benchmark of a run cut short mid-round has a last round the other lacks: the
/// rounds both completed are paired; anything else is not a cut round.
#[test]
fn rounds_both_completed_are_kept_when_one_round_was_cut() {
    assert_eq!(
        completed_rounds(&[0, 1, 2, 3], &[0, 1, 2]),
        Some(vec![0, 1, 2])
    );
    assert_eq!(
        completed_rounds(&[0, 1, 2], &[0, 1, 2, 3]),
        Some(vec![0, 1, 2])
    );
    assert_eq!(completed_rounds(&[0, 1, 2, 3, 4], &[0, 1, 2]), None);
    assert_eq!(completed_rounds(&[0, 2, 3], &[0, 1, 2, 3]), None);
    assert_eq!(completed_rounds(&[0, 1], &[0]), None);
}
