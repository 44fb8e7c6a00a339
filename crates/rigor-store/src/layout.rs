//! The level layout of a benchmark, decided here and only here: which levels it has, how a
//! stored sample maps to its units, and which unit is the top-level one.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::schema::SampleRecord;

/// A level of the measurement hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LevelKind {
    /// A build of the program (binary layout, link order, compiler randomness).
    Build,
    /// A process execution.
    Execution,
    /// An in-process iteration.
    Iteration,
}

impl LevelKind {
    /// The level's name as shown and used in the hierarchy (`build`, `execution`, `iteration`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Build => "build",
            Self::Execution => "execution",
            Self::Iteration => "iteration",
        }
    }

    /// The level named `name`, if it is one of rigor's.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "build" => Some(Self::Build),
            "execution" => Some(Self::Execution),
            "iteration" => Some(Self::Iteration),
            _ => None,
        }
    }
}

impl fmt::Display for LevelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which levels a benchmark has, top → bottom: executions always; builds above them when builds
/// are a level; iterations below them when the program reports iterations. Serialised as the
/// list of levels, e.g. `["build", "execution", "iteration"]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(try_from = "Vec<LevelKind>", into = "Vec<LevelKind>")]
pub struct Layout {
    builds: bool,
    iterations: bool,
}

impl Layout {
    /// Executions only: one wall-time value per execution.
    pub const EXECUTIONS: Self = Self::new(false, false);

    /// A layout with or without builds and iterations.
    pub const fn new(builds: bool, iterations: bool) -> Self {
        Self { builds, iterations }
    }

    /// The layout of imported data with `depth` levels, assigned from the bottom: 1 level is
    /// executions, 2 are executions × iterations, 3 are builds × executions × iterations.
    pub fn for_depth(depth: usize) -> Option<Self> {
        match depth {
            1 => Some(Self::new(false, false)),
            2 => Some(Self::new(false, true)),
            3 => Some(Self::new(true, true)),
            _ => None,
        }
    }

    /// Whether builds are the top level.
    pub const fn has_builds(self) -> bool {
        self.builds
    }

    /// Whether iterations are the lowest level.
    pub const fn has_iterations(self) -> bool {
        self.iterations
    }

    /// This layout with iterations as the lowest level.
    pub const fn with_iterations(self) -> Self {
        Self::new(self.builds, true)
    }

    /// This layout with builds as the top level.
    pub const fn with_builds(self) -> Self {
        Self::new(true, self.iterations)
    }

    /// The levels, top → bottom.
    pub fn levels(self) -> Vec<LevelKind> {
        let mut levels = Vec::with_capacity(3);
        if self.builds {
            levels.push(LevelKind::Build);
        }
        levels.push(LevelKind::Execution);
        if self.iterations {
            levels.push(LevelKind::Iteration);
        }
        levels
    }

    /// Number of levels.
    pub const fn depth(self) -> usize {
        1 + self.builds as usize + self.iterations as usize
    }

    /// The top level.
    pub const fn top(self) -> LevelKind {
        if self.builds {
            LevelKind::Build
        } else {
            LevelKind::Execution
        }
    }

    /// Keys of the units above a measurement, top down: `[build, execution]` above iterations,
    /// `[build]` above executions when the execution is the measurement, fewer for fewer levels.
    pub fn unit_path(self, s: &SampleRecord) -> Vec<usize> {
        let mut path = Vec::with_capacity(2);
        if self.builds {
            path.push(s.build.unwrap_or(0));
        }
        if self.iterations {
            path.push(s.execution);
        }
        path
    }

    /// Sets a sample's unit keys from a path as [`unit_path`](Self::unit_path) returns it.
    pub fn set_unit_path(self, s: &mut SampleRecord, path: &[usize]) {
        let mut keys = path.iter().copied();
        if self.builds {
            s.build = keys.next();
        }
        if self.iterations {
            if let Some(e) = keys.next() {
                s.execution = e;
            }
        }
    }

    /// The key of a measurement's top-level unit: its build, or the round of its execution (two
    /// benchmarks whose keys agree ran in the same rounds and can be paired).
    pub fn top_key(self, s: &SampleRecord) -> usize {
        if self.builds {
            s.build.unwrap_or(0)
        } else {
            s.round
        }
    }
}

/// A list of levels that is not one of rigor's layouts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "levels {0:?} are not a layout rigor knows (execution, with builds above and iterations below)"
)]
pub struct LayoutError(pub Vec<LevelKind>);

impl TryFrom<Vec<LevelKind>> for Layout {
    type Error = LayoutError;
    fn try_from(levels: Vec<LevelKind>) -> Result<Self, LayoutError> {
        use LevelKind::{Build, Execution, Iteration};
        match levels.as_slice() {
            [Execution] => Ok(Self::new(false, false)),
            [Execution, Iteration] => Ok(Self::new(false, true)),
            [Build, Execution] => Ok(Self::new(true, false)),
            [Build, Execution, Iteration] => Ok(Self::new(true, true)),
            _ => Err(LayoutError(levels)),
        }
    }
}

impl From<Layout> for Vec<LevelKind> {
    fn from(l: Layout) -> Self {
        l.levels()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(build: Option<usize>, round: usize, execution: usize) -> SampleRecord {
        SampleRecord {
            build,
            round,
            execution,
            iteration: 3,
            value: 1.0,
            warmup: false,
        }
    }

    #[test]
    fn paths_and_top_keys_per_layout() {
        let s = sample(Some(2), 5, 7);
        assert_eq!(Layout::new(true, true).unit_path(&s), vec![2, 7]);
        assert_eq!(Layout::new(true, false).unit_path(&s), vec![2]);
        assert_eq!(Layout::new(false, true).unit_path(&s), vec![7]);
        assert!(Layout::EXECUTIONS.unit_path(&s).is_empty());
        assert_eq!(Layout::new(true, false).top_key(&s), 2);
        assert_eq!(Layout::new(false, true).top_key(&s), 5);
        for layout in [
            Layout::new(true, true),
            Layout::new(true, false),
            Layout::new(false, true),
        ] {
            let mut t = sample(None, 0, 0);
            layout.set_unit_path(&mut t, &layout.unit_path(&s));
            assert_eq!(layout.unit_path(&t), layout.unit_path(&s));
        }
    }

    #[test]
    fn layouts_round_trip_as_level_lists() {
        for builds in [false, true] {
            for iterations in [false, true] {
                let l = Layout::new(builds, iterations);
                let text = serde_json::to_string(&l).unwrap();
                assert_eq!(serde_json::from_str::<Layout>(&text).unwrap(), l);
                assert_eq!(l.depth(), l.levels().len());
            }
        }
        assert_eq!(
            serde_json::to_string(&Layout::new(true, true)).unwrap(),
            r#"["build","execution","iteration"]"#
        );
        assert!(serde_json::from_str::<Layout>(r#"["iteration","execution"]"#).is_err());
        assert!(serde_json::from_str::<Layout>(r#"["run"]"#).is_err());
    }
}
