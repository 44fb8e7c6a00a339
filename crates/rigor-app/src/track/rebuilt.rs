//! Whether a session built the versions it measured again (anchors, `--force`) into other
//! programs than the history holds for them: the build changed (its command, flags, compiler
//! or environment), and the session's shift would silently take the difference.
//!
//! A new user rebuilt two versions and the anchors with `--build 'make CFLAGS=-O0'` (2.3× slower)
//! into a history built with `make`: nothing was said, `track show` called the session "a
//! sitting on a loaded machine" at 2.2×, and two versions whose builds were byte-identical in
//! the history stopped being one level. The artifacts tell: where a project's builds
//! reproduce, a stored version built again gives the artifact stored for it.

use std::collections::{HashMap, HashSet};

use rigor_history::{ArtifactHash, RunId, SessionId, StoredLevels};

/// The versions a session built again into other programs than the history stored for them
/// (every one it built again, in a history whose builds reproduce).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rebuilt {
    /// The versions, in history order.
    pub revs: Vec<String>,
    /// The sessions that built them.
    pub sessions: Vec<SessionId>,
}

/// [`Rebuilt`] from the series' stored levels (every benchmark's, every run's) and the
/// sessions just measured: `None` unless every version those sessions built again that the
/// history holds an artifact for got another one, and the history shows its builds reproduce
/// (a version built twice into one artifact, or two versions into the same one) — where builds
/// never reproduce (a time stamp in the binary), every rebuild differs and says nothing.
pub fn rebuilt(levels: &StoredLevels, sessions: &[SessionId]) -> Option<Rebuilt> {
    // Each run once (a level per benchmark).
    let mut seen: HashSet<RunId> = HashSet::new();
    let runs: Vec<(&str, SessionId, ArtifactHash)> = levels
        .levels
        .iter()
        .filter(|l| seen.insert(l.run.id))
        .filter_map(|l| {
            let rev = levels.versions.get(l.version)?;
            Some((rev.as_str(), l.run.session, l.run.artifact?))
        })
        .collect();
    let (new, old): (Vec<_>, Vec<_>) = runs.iter().partition(|(_, s, _)| sessions.contains(s));
    let mut stored: HashMap<&str, Vec<ArtifactHash>> = HashMap::new();
    for (rev, _, a) in &old {
        stored.entry(rev).or_default().push(*a);
    }
    let mut revs_of: HashMap<ArtifactHash, HashSet<&str>> = HashMap::new();
    for (rev, _, a) in &old {
        revs_of.entry(*a).or_default().insert(rev);
    }
    let reproduces = revs_of.values().any(|revs| revs.len() > 1)
        || stored.values().any(|artifacts| {
            let distinct: HashSet<_> = artifacts.iter().collect();
            distinct.len() < artifacts.len()
        });
    let again: Vec<&(&str, SessionId, ArtifactHash)> = new
        .iter()
        .filter(|(rev, _, _)| stored.contains_key(rev))
        .collect();
    let differ = again.iter().all(|(rev, _, a)| !stored[rev].contains(a));
    if !reproduces || again.is_empty() || !differ {
        return None;
    }
    let mut revs: Vec<String> = Vec::new();
    let mut built: Vec<SessionId> = Vec::new();
    for (rev, session, _) in again {
        if !revs.iter().any(|r| r == rev) {
            revs.push((*rev).to_string());
        }
        if !built.contains(session) {
            built.push(*session);
        }
    }
    Some(Rebuilt {
        revs,
        sessions: built,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigor_history::{Role, RunInfo, StoredSummary};

    fn rebuilt(s: &[StoredSummary], sessions: &[SessionId]) -> Option<Rebuilt> {
        super::rebuilt(&StoredLevels::of_summaries(s.to_vec()), sessions)
    }

    fn run(rev: &str, id: i64, session: i64, artifact: u8) -> StoredSummary {
        StoredSummary {
            benchmark: "b".into(),
            rev: rev.into(),
            run: RunInfo {
                id: RunId(id),
                session: SessionId(session),
                artifact: Some(ArtifactHash([artifact; 32])),
                role: Role::New,
            },
            unit: rigor_units::TimeUnit::S,
            mean: Some(1.0),
            interval: None,
            level: None,
            spread: None,
            components: Vec::new(),
            resolution: None,
        }
    }

    /// The history: v1 and v2 built into one program (a comment changed), v3 into another.
    fn history() -> Vec<StoredSummary> {
        vec![run("v1", 1, 1, 1), run("v2", 2, 1, 1), run("v3", 3, 1, 3)]
    }

    #[test]
    fn a_session_that_built_stored_versions_into_other_programs_is_told() {
        let mut s = history();
        // Session 2 built v2 and v3 again with other flags, and measured v4.
        s.extend([
            run("v2", 4, 2, 20),
            run("v3", 5, 2, 30),
            run("v4", 6, 2, 40),
        ]);
        assert_eq!(
            rebuilt(&s, &[SessionId(2)]),
            Some(Rebuilt {
                revs: vec!["v2".into(), "v3".into()],
                sessions: vec![SessionId(2)],
            })
        );
    }

    #[test]
    fn the_same_build_or_builds_that_never_reproduce_say_nothing() {
        // Built again into what was stored: the same build.
        let mut same = history();
        same.extend([run("v3", 4, 2, 3), run("v4", 5, 2, 40)]);
        assert_eq!(rebuilt(&same, &[SessionId(2)]), None);
        // One of two anchors differs: a version's own nondeterminism, not the build.
        let mut one = history();
        one.extend([run("v1", 4, 2, 1), run("v3", 5, 2, 31)]);
        assert_eq!(rebuilt(&one, &[SessionId(2)]), None);
        // A history whose builds never reproduce: every rebuild differs.
        let mut never = vec![run("v1", 1, 1, 1), run("v2", 2, 1, 2)];
        never.extend([run("v1", 3, 2, 11), run("v2", 4, 2, 12)]);
        assert_eq!(rebuilt(&never, &[SessionId(2)]), None);
        // Nothing stored built again (only new versions).
        let mut fresh = history();
        fresh.push(run("v4", 4, 2, 40));
        assert_eq!(rebuilt(&fresh, &[SessionId(2)]), None);
    }

    #[test]
    fn a_version_built_twice_alike_shows_builds_reproduce() {
        // No two versions share a program, but v1 was built twice into one.
        let mut s = vec![run("v1", 1, 1, 1), run("v1", 2, 2, 1), run("v2", 3, 2, 2)];
        s.push(run("v2", 4, 3, 22));
        assert_eq!(
            rebuilt(&s, &[SessionId(3)]).map(|r| r.revs),
            Some(vec!["v2".to_string()])
        );
    }
}
