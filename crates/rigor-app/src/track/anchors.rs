//! The anchors of a session (`rigor track run`): versions already stored, measured again beside
//! the new ones so that the session is tied to the history (docs/methodology.md, "Sessions").

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::*;

/// The anchors of a new session: the series' newest stored version and `n − 1` earlier ones
/// chosen at random (seeded), each measured (not failed) with every benchmark of `names`, none
/// of `exclude` — builds other than those already chosen first ([`choose_anchors`]).
pub fn pick_anchors(
    history: &dyn HistoryRead,
    key: &SeriesKey,
    names: &[&str],
    exclude: &[VersionInfo],
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<VersionInfo>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let candidates: Vec<VersionInfo> = history
        .versions(key)?
        .into_iter()
        .filter(|v| v.runs > v.failed && !exclude.iter().any(|e| e.rev == v.version.rev))
        .map(|v| v.version)
        .collect();
    // What each version's build produced (its newest run's record), where recorded.
    let mut artifacts: std::collections::HashMap<String, rigor_history::ArtifactHash> =
        std::collections::HashMap::new();
    for s in history.summaries(key)? {
        if let Some(a) = s.run.artifact {
            artifacts.insert(s.rev, a);
        }
    }
    let anchor = |i: usize| -> Result<Option<Option<rigor_history::ArtifactHash>>> {
        let rev = &candidates[i].rev;
        let stored = history.stored_benchmarks(key, rev)?;
        let complete = names.iter().all(|n| stored.iter().any(|s| s == n));
        Ok(complete.then(|| artifacts.get(rev).copied()))
    };
    Ok(choose_anchors(candidates.len(), n, rng, anchor)?
        .into_iter()
        .map(|i| candidates[i].clone())
        .collect())
}

/// Which of a series' `len` versions (oldest first) anchor a session: `anchor(i)` is `None`
/// for a version that cannot (a benchmark missing), else what its build produced, where known;
/// it is asked only as far as the choice needs. The newest version that can, then up to `n − 1`
/// earlier ones in a seeded random order, each a build none of those chosen produced; only when
/// no such build is left, earlier versions of builds already chosen. Two anchors of one build
/// measure one program twice: in a new user's C project whose commits were mostly README
/// changes, a session's two anchors were the same binary while the history held another, and
/// the session was tied to the history by one program only. Indices, the newest first.
pub fn choose_anchors<A: PartialEq + Copy, E>(
    len: usize,
    n: usize,
    rng: &mut ChaCha8Rng,
    mut anchor: impl FnMut(usize) -> std::result::Result<Option<Option<A>>, E>,
) -> std::result::Result<Vec<usize>, E> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut newest = None;
    for i in (0..len).rev() {
        if let Some(built) = anchor(i)? {
            newest = Some((i, built));
            break;
        }
    }
    let Some((newest, built)) = newest else {
        return Ok(Vec::new());
    };
    let mut out = vec![newest];
    let mut chosen: Vec<A> = built.into_iter().collect();
    let mut same_build = Vec::new();
    let mut earlier: Vec<usize> = (0..newest).collect();
    earlier.shuffle(rng);
    for i in earlier {
        if out.len() >= n {
            break;
        }
        match anchor(i)? {
            None => {}
            Some(Some(a)) if chosen.contains(&a) => same_build.push(i),
            Some(Some(a)) => {
                chosen.push(a);
                out.push(i);
            }
            Some(None) => out.push(i),
        }
    }
    let room = n.saturating_sub(out.len());
    out.extend(same_build.into_iter().take(room));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Anchors are other builds first: with the newest version's build shared by three earlier
    /// versions (README commits) and one earlier version built differently, the second anchor is
    /// that one whatever the seed; with no other build left, one of the same build is taken
    /// rather than none; versions that cannot anchor (a benchmark missing) never are.
    /// [`choose_anchors`] over a list.
    fn pick<A: PartialEq + Copy>(
        eligible: &[Option<Option<A>>],
        n: usize,
        rng: &mut ChaCha8Rng,
    ) -> Vec<usize> {
        choose_anchors(eligible.len(), n, rng, |i| Ok::<_, ()>(eligible[i])).unwrap()
    }

    #[test]
    fn anchors_are_other_builds_first() {
        use rand::SeedableRng;
        // Oldest first: three of build 1, one of build 2, one that cannot anchor, the newest of
        // build 1.
        let eligible = [
            Some(Some(1)),
            Some(Some(1)),
            Some(Some(2)),
            Some(Some(1)),
            None,
            Some(Some(1)),
        ];
        for seed in 0..50 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            assert_eq!(pick(&eligible, 2, &mut rng), [5, 2], "seed {seed}");
            let three = pick(&eligible, 3, &mut rng);
            assert_eq!(&three[..2], [5, 2], "seed {seed}");
            assert!([0, 1, 3].contains(&three[2]), "seed {seed}: {three:?}");
        }
        // Asked only as far as the choice needs: of 1,000 versions of other builds each, two.
        let mut asked = 0;
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let two = choose_anchors(1000, 2, &mut rng, |i| {
            asked += 1;
            Ok::<_, ()>(Some(Some(i)))
        })
        .unwrap();
        assert_eq!((two.len(), two[0], asked), (2, 999, 2));
        // Builds not recorded (imported runs) are taken as they come.
        let unknown: [Option<Option<u8>>; 3] = [Some(None), Some(None), Some(None)];
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(pick(&unknown, 3, &mut rng).len(), 3);
        assert!(pick::<u8>(&[None, None], 2, &mut rng).is_empty());
        assert!(pick(&eligible, 0, &mut rng).is_empty());
    }
}
