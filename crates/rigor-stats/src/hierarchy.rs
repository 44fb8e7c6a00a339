//! Hierarchical samples: measurements nested in units nested in units.
//!
//! A benchmark experiment has `n` levels, named from the top (e.g. `build`, `execution`,
//! `iteration`). The lowest level's units are the measurements themselves; every unit above has at
//! least one child. Data may be balanced (every unit at a level has the same number of children) or
//! not (a crashed execution, an adaptive design).
//!
//! Storage is compressed-sparse-row style: one flat vector of values in experiment order and, for
//! each level but the lowest, the offsets of each unit's children in the level below. Every unit's
//! values are therefore one contiguous slice, which keeps means and resampling cheap.

use std::collections::HashMap;
use std::hash::Hash;
use std::ops::Range;

use crate::error::{Result, StatsError, check_finite};

/// A hierarchical sample with named levels (top → bottom) and finite values at the lowest level.
#[derive(Debug, Clone, PartialEq)]
pub struct Hierarchy {
    levels: Vec<String>,
    /// `offsets[d]` has `units(d) + 1` entries: unit `i` at depth `d` owns units
    /// `offsets[d][i]..offsets[d][i + 1]` at depth `d + 1` (values when `d + 1` is the lowest).
    offsets: Vec<Vec<usize>>,
    values: Vec<f64>,
}

impl Hierarchy {
    /// A one-level hierarchy: the values are the top-level units.
    pub fn flat(level: impl Into<String>, values: Vec<f64>) -> Result<Self> {
        Self::from_parts(vec![level.into()], Vec::new(), values)
    }

    /// Two levels from groups of values, e.g. executions × iterations.
    pub fn two_level<S: Into<String>>(levels: [S; 2], groups: &[Vec<f64>]) -> Result<Self> {
        let mut builder = HierarchyBuilder::new(levels);
        for (i, group) in groups.iter().enumerate() {
            for &v in group {
                builder.push(&[i], v);
            }
            if group.is_empty() {
                return Err(empty_unit(&builder.levels[0], i));
            }
        }
        builder.build()
    }

    /// Three levels from nested groups, e.g. builds × executions × iterations.
    pub fn three_level<S: Into<String>>(levels: [S; 3], groups: &[Vec<Vec<f64>>]) -> Result<Self> {
        let mut builder = HierarchyBuilder::new(levels);
        for (i, outer) in groups.iter().enumerate() {
            if outer.is_empty() {
                return Err(empty_unit(&builder.levels[0], i));
            }
            for (j, inner) in outer.iter().enumerate() {
                if inner.is_empty() {
                    return Err(empty_unit(&builder.levels[1], j));
                }
                for &v in inner {
                    builder.push(&[i, j], v);
                }
            }
        }
        builder.build()
    }

    /// A balanced hierarchy: `counts[k]` children per unit at level `k` (top → bottom; `counts[0]`
    /// is the number of top-level units) and the values in lexicographic order.
    pub fn balanced<S: Into<String>>(
        levels: Vec<S>,
        counts: &[usize],
        values: Vec<f64>,
    ) -> Result<Self> {
        let levels: Vec<String> = levels.into_iter().map(Into::into).collect();
        if counts.len() != levels.len() {
            return Err(StatsError::Shape(format!(
                "{} counts given for {} levels",
                counts.len(),
                levels.len()
            )));
        }
        if let Some(k) = counts.iter().position(|&c| c == 0) {
            return Err(StatsError::Shape(format!(
                "level '{}' has a repetition count of 0",
                levels[k]
            )));
        }
        let expected: usize = counts.iter().product();
        if expected != values.len() {
            return Err(StatsError::Shape(format!(
                "counts {counts:?} need {expected} values, got {}",
                values.len()
            )));
        }
        let mut offsets = Vec::with_capacity(levels.len().saturating_sub(1));
        let mut units = 1;
        for d in 0..levels.len() - 1 {
            units *= counts[d];
            let r = counts[d + 1];
            offsets.push((0..=units).map(|i| i * r).collect());
        }
        Self::from_parts(levels, offsets, values)
    }

    /// Builds from raw parts, checking every invariant.
    fn from_parts(levels: Vec<String>, offsets: Vec<Vec<usize>>, values: Vec<f64>) -> Result<Self> {
        if levels.is_empty() {
            return Err(StatsError::Shape(
                "a hierarchy needs at least one level".into(),
            ));
        }
        if values.is_empty() {
            return Err(StatsError::TooFew {
                what: "a hierarchy",
                needed: 1,
                got: 0,
            });
        }
        check_finite(&values)?;
        debug_assert_eq!(offsets.len(), levels.len() - 1);
        for (d, off) in offsets.iter().enumerate() {
            let below = offsets.get(d + 1).map_or(values.len(), |o| o.len() - 1);
            debug_assert_eq!(off.last().copied(), Some(below));
            if let Some(i) = off.windows(2).position(|w| w[1] <= w[0]) {
                return Err(empty_unit(&levels[d], i));
            }
        }
        Ok(Self {
            levels,
            offsets,
            values,
        })
    }

    /// Level names, top → bottom.
    pub fn levels(&self) -> &[String] {
        &self.levels
    }

    /// Number of levels `n`.
    pub fn depth(&self) -> usize {
        self.levels.len()
    }

    /// All lowest-level values in experiment order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Number of units at depth `d` (0 = top). Depth `n − 1` counts the values.
    pub fn units(&self, d: usize) -> usize {
        match self.offsets.get(d) {
            Some(off) => off.len() - 1,
            None => self.values.len(),
        }
    }

    /// Number of units at every level, top → bottom.
    pub fn counts(&self) -> Vec<usize> {
        (0..self.depth()).map(|d| self.units(d)).collect()
    }

    /// Units at depth `d + 1` that belong to unit `i` at depth `d`.
    pub fn children(&self, d: usize, i: usize) -> Range<usize> {
        self.offsets[d][i]..self.offsets[d][i + 1]
    }

    /// Range of values under unit `i` at depth `d`.
    pub fn value_range(&self, d: usize, i: usize) -> Range<usize> {
        self.descendants(d, i, self.offsets.len())
    }

    /// Range of the units at depth `to` (≥ `d`; the values at `n − 1`) under unit `i` at
    /// depth `d`.
    fn descendants(&self, d: usize, i: usize, to: usize) -> Range<usize> {
        let (mut lo, mut hi) = (i, i + 1);
        for off in &self.offsets[d..to] {
            lo = off[lo];
            hi = off[hi];
        }
        lo..hi
    }

    /// Values under unit `i` at depth `d`.
    pub fn unit_values(&self, d: usize, i: usize) -> &[f64] {
        &self.values[self.value_range(d, i)]
    }

    /// Mean of all values under each unit at depth `d`.
    pub fn unit_means(&self, d: usize) -> Vec<f64> {
        (0..self.units(d))
            .map(|i| crate::descriptive::mean(self.unit_values(d, i)))
            .collect()
    }

    /// Means of the top-level units.
    pub fn top_means(&self) -> Vec<f64> {
        self.unit_means(0)
    }

    /// Each top-level unit's minimum as a level of the hierarchy, `None` for a flat hierarchy
    /// (one level): the smallest value of each unit just above the values (an execution's
    /// minimum over its samples), averaged over those under each top-level unit (a build's
    /// executions; with two levels each top-level unit is one execution and this is its
    /// minimum). [`Estimator::Min`](crate::Estimator::Min) of a hierarchy is their location
    /// ([`Estimator::of_hierarchy`](crate::Estimator::of_hierarchy)): minima of separate
    /// processes are units of a population, where the least of them all is an extreme whose
    /// expected value moves with their number and whose bootstrap is not consistent
    /// (docs/methodology.md, "Comparisons").
    pub fn top_minima(&self) -> Option<Vec<f64>> {
        let depth = self.depth();
        if depth < 2 {
            return None;
        }
        let lowest = depth - 2;
        Some(
            (0..self.units(0))
                .map(|i| {
                    let groups = self.descendants(0, i, lowest);
                    let n = groups.len() as f64;
                    groups
                        .map(|j| crate::descriptive::min(self.unit_values(lowest, j)))
                        .sum::<f64>()
                        / n
                })
                .collect(),
        )
    }

    /// Mean of all values (the grand mean weights every measurement equally).
    pub fn grand_mean(&self) -> f64 {
        crate::descriptive::mean(&self.values)
    }

    /// Repetition counts `r` top → bottom when every unit at a level has the same number of
    /// children; `None` for unbalanced data.
    pub fn balanced_counts(&self) -> Option<Vec<usize>> {
        let mut counts = vec![self.units(0)];
        for off in &self.offsets {
            let r = off[1] - off[0];
            if off.windows(2).any(|w| w[1] - w[0] != r) {
                return None;
            }
            counts.push(r);
        }
        Some(counts)
    }

    /// Whether every unit at each level has the same number of children.
    pub fn is_balanced(&self) -> bool {
        self.balanced_counts().is_some()
    }

    /// A hierarchy with the same structure and transformed values (e.g. run-mean centring).
    pub fn map_values(&self, mut f: impl FnMut(usize, f64) -> f64) -> Result<Self> {
        let values = self
            .values
            .iter()
            .enumerate()
            .map(|(i, &v)| f(i, v))
            .collect();
        Self::from_parts(self.levels.clone(), self.offsets.clone(), values)
    }

    /// Keeps only the top-level units whose indices are listed (in that order, repeats allowed).
    /// This is one resample of the top level.
    pub fn select_top(&self, indices: &[usize]) -> Result<Self> {
        if indices.is_empty() {
            return Err(StatsError::TooFew {
                what: "a selection of top-level units",
                needed: 1,
                got: 0,
            });
        }
        if let Some(&bad) = indices.iter().find(|&&i| i >= self.units(0)) {
            return Err(StatsError::InvalidParameter {
                name: "top-level index",
                value: bad.to_string(),
                reason: "no such unit",
            });
        }
        // Copy the selected subtrees level by level: the units chosen at one depth determine the
        // offsets of that depth and the units chosen at the next.
        let mut chosen: Vec<usize> = indices.to_vec();
        let mut offsets = Vec::with_capacity(self.offsets.len());
        for d in 0..self.offsets.len() {
            let mut off = Vec::with_capacity(chosen.len() + 1);
            off.push(0);
            let mut next = Vec::new();
            for &i in &chosen {
                next.extend(self.children(d, i));
                off.push(next.len());
            }
            offsets.push(off);
            chosen = next;
        }
        let values = chosen.iter().map(|&i| self.values[i]).collect();
        Self::from_parts(self.levels.clone(), offsets, values)
    }

    /// Drops the lowest level by averaging each lowest group: e.g. executions × iterations becomes
    /// one mean per execution. A one-level hierarchy is returned unchanged.
    pub fn collapse_lowest(&self) -> Result<Self> {
        if self.depth() == 1 {
            return Ok(self.clone());
        }
        let d = self.depth() - 2;
        let values = self.unit_means(d);
        let mut offsets = self.offsets.clone();
        offsets.pop();
        let mut levels = self.levels.clone();
        levels.pop();
        Self::from_parts(levels, offsets, values)
    }
}

fn empty_unit(level: &str, index: usize) -> StatsError {
    StatsError::EmptyUnit {
        level: level.to_string(),
        index,
    }
}

/// Builds a [`Hierarchy`] from measurements tagged with the keys of their ancestors.
///
/// Units appear in the order their first measurement was pushed, so pushing in experiment order
/// keeps time order. Keys are any hashable identifiers (execution numbers, CSV strings, ...).
#[derive(Debug, Clone)]
pub struct HierarchyBuilder<K> {
    levels: Vec<String>,
    root: Node<K>,
}

#[derive(Debug, Clone)]
struct Node<K> {
    index: HashMap<K, usize>,
    children: Vec<Node<K>>,
    values: Vec<f64>,
}

impl<K> Default for Node<K> {
    fn default() -> Self {
        Self {
            index: HashMap::new(),
            children: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<K: Eq + Hash + Clone> HierarchyBuilder<K> {
    /// A builder for the given level names, top → bottom.
    pub fn new<S: Into<String>>(levels: impl IntoIterator<Item = S>) -> Self {
        Self {
            levels: levels.into_iter().map(Into::into).collect(),
            root: Node::default(),
        }
    }

    /// Adds one measurement; `path` holds the keys of its units from the top level down to the
    /// level just above the measurements (`n − 1` keys). Paths of the wrong length are reported by
    /// [`build`](Self::build).
    pub fn push(&mut self, path: &[K], value: f64) {
        let mut node = &mut self.root;
        for key in path {
            let next = node.children.len();
            let at = *node.index.entry(key.clone()).or_insert(next);
            if at == next {
                node.children.push(Node::default());
            }
            node = &mut node.children[at];
        }
        node.values.push(value);
    }

    /// Validates and builds the hierarchy.
    pub fn build(self) -> Result<Hierarchy> {
        let n = self.levels.len();
        if n == 0 {
            return Err(StatsError::Shape(
                "a hierarchy needs at least one level".into(),
            ));
        }
        let wrong_keys = || {
            StatsError::Shape(format!(
                "every measurement needs {} keys for the levels {:?}",
                n - 1,
                self.levels
            ))
        };
        if n == 1 {
            if !self.root.children.is_empty() {
                return Err(wrong_keys());
            }
            return Hierarchy::from_parts(
                self.levels.clone(),
                Vec::new(),
                self.root.values.clone(),
            );
        }
        if !self.root.values.is_empty() {
            return Err(wrong_keys());
        }
        // Nodes exist for depths 0..=n-2; the nodes at depth n-2 hold the values.
        let mut frontier: Vec<&Node<K>> = self.root.children.iter().collect();
        let mut offsets = Vec::with_capacity(n - 1);
        let mut values = Vec::new();
        for d in 0..n - 1 {
            let holds_values = d == n - 2;
            let mut off = Vec::with_capacity(frontier.len() + 1);
            off.push(0);
            let mut next = Vec::new();
            for node in &frontier {
                if holds_values != node.children.is_empty()
                    || holds_values == node.values.is_empty()
                {
                    return Err(wrong_keys());
                }
                if holds_values {
                    values.extend_from_slice(&node.values);
                    off.push(values.len());
                } else {
                    next.extend(node.children.iter());
                    off.push(next.len());
                }
            }
            offsets.push(off);
            frontier = next;
        }
        Hierarchy::from_parts(self.levels.clone(), offsets, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kalibera() -> Hierarchy {
        Hierarchy::three_level(
            ["build", "execution", "iteration"],
            &[
                vec![vec![9.0, 5.0], vec![8.0, 3.0]],
                vec![vec![10.0, 6.0], vec![7.0, 11.0]],
                vec![vec![1.0, 12.0], vec![2.0, 4.0]],
            ],
        )
        .unwrap()
    }

    #[test]
    fn three_level_structure() {
        let h = kalibera();
        assert_eq!(h.counts(), vec![3, 6, 12]);
        assert_eq!(h.balanced_counts(), Some(vec![3, 2, 2]));
        assert_eq!(h.unit_values(0, 1), &[10.0, 6.0, 7.0, 11.0]);
        assert_eq!(h.unit_values(1, 5), &[2.0, 4.0]);
        assert_eq!(h.top_means(), vec![6.25, 8.5, 4.75]);
        assert_eq!(h.grand_mean(), 6.5);
    }

    #[test]
    fn balanced_matches_nested() {
        let values = vec![9., 5., 8., 3., 10., 6., 7., 11., 1., 12., 2., 4.];
        let h = Hierarchy::balanced(vec!["build", "execution", "iteration"], &[3, 2, 2], values)
            .unwrap();
        assert_eq!(h, kalibera());
    }

    #[test]
    fn unbalanced_and_builder_order() {
        let mut b = HierarchyBuilder::new(["execution", "iteration"]);
        b.push(&["b"], 1.0);
        b.push(&["a"], 2.0);
        b.push(&["b"], 3.0);
        let h = b.build().unwrap();
        assert_eq!(h.counts(), vec![2, 3]);
        assert_eq!(h.unit_values(0, 0), &[1.0, 3.0]);
        assert_eq!(h.unit_values(0, 1), &[2.0]);
        assert!(!h.is_balanced());
    }

    #[test]
    fn rejects_bad_input() {
        assert!(matches!(
            Hierarchy::two_level(["e", "i"], &[vec![1.0], vec![]]),
            Err(StatsError::EmptyUnit { index: 1, .. })
        ));
        assert!(matches!(
            Hierarchy::two_level(["e", "i"], &[vec![1.0, f64::NAN]]),
            Err(StatsError::NonFinite { index: 1, .. })
        ));
        assert!(matches!(
            Hierarchy::flat("x", vec![]),
            Err(StatsError::TooFew { .. })
        ));
        let mut b = HierarchyBuilder::new(["a", "b", "c"]);
        b.push(&[1], 1.0);
        assert!(matches!(b.build(), Err(StatsError::Shape(_))));
        assert!(Hierarchy::balanced(vec!["a", "b"], &[2, 2], vec![1.0; 3]).is_err());
    }

    #[test]
    fn select_and_collapse() {
        let h = kalibera();
        let s = h.select_top(&[2, 2, 0]).unwrap();
        assert_eq!(s.top_means(), vec![4.75, 4.75, 6.25]);
        assert_eq!(s.counts(), vec![3, 6, 12]);
        let c = h.collapse_lowest().unwrap();
        assert_eq!(c.levels(), &["build".to_string(), "execution".to_string()]);
        assert_eq!(c.values(), &[7.0, 5.5, 8.0, 9.0, 6.5, 3.0]);
        assert_eq!(Hierarchy::flat("x", vec![1.0, 2.0]).unwrap().units(0), 2);
    }
}
