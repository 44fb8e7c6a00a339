//! Order statistics of a top-only bootstrap resample from the multiplicities of its units, by a
//! walk over all values sorted once.
//!
//! All values are sorted once, each tagged with its top-level unit. In a resample, value `j` of
//! the sorted order counts `mult[unit[j]]` times, so the weighted rank below sorted position `p`
//! is `W(p) = Σ_{j<p} mult[unit[j]]`, and the k-th smallest value (0-based) of the resample is the
//! value at the smallest `p` with `W(p + 1) > k`. `W` at a fixed anchor (the position of the
//! target quantile among all values) costs one pass over the drawn units because each unit's count
//! of values below the anchor is stored; from there a walk adds or removes one multiplicity per
//! step. A resample's quantile lies close to the quantile of all values, so the walk is short
//! when the top-level units are many (about `N/√r` steps), where bisection would cost
//! `r · log N · log n_unit` per resample. With few large units the walk can be long; the caller
//! gives a step budget and falls back to bisection when it is exceeded.
//!
//! Hand-written because no crate computes weighted order statistics from multiplicities over a
//! fixed sorted multiset.

use crate::hierarchy::Hierarchy;

/// All values sorted with their top-level unit, and per-unit counts below an anchor position.
pub(crate) struct RankWalk {
    /// All values sorted ascending (`total_cmp`).
    values: Vec<f64>,
    /// Top-level unit of each sorted value.
    unit: Vec<u32>,
    /// Anchor position in `values`.
    anchor: usize,
    /// Per unit: how many of its values sit at sorted positions `< anchor`.
    below: Vec<u32>,
    /// Per unit: number of values.
    sizes: Vec<u32>,
}

/// Position `p` and weighted rank `w = W(p)` of a walk.
struct Cursor {
    p: usize,
    w: u64,
    steps: usize,
}

impl RankWalk {
    /// Prepares the walk for the quantile at fraction `q` of the values (0.5 for the median).
    /// Needs fewer than 2³² values and units (a `u32` tag per value keeps memory low).
    pub(crate) fn new(h: &Hierarchy, q: f64) -> Option<Self> {
        let Tagged {
            values,
            unit,
            sizes,
        } = Tagged::new(h)?;
        let n = values.len();
        let anchor = ((q * n as f64) as usize).min(n - 1);
        let mut below = vec![0u32; sizes.len()];
        for &u in &unit[..anchor] {
            below[u as usize] += 1;
        }
        Some(Self {
            values,
            unit,
            anchor,
            below,
            sizes,
        })
    }

    /// All values, sorted ascending.
    pub(crate) fn sorted(&self) -> &[f64] {
        &self.values
    }

    /// The median of the resample that holds `mult[i]` copies of unit `i`, where `idx` lists the
    /// draws (with repeats). `None` when the walk would take more than `budget` steps.
    pub(crate) fn median(&self, idx: &[usize], mult: &[u32], budget: usize) -> Option<f64> {
        let (total, w) = idx.iter().fold((0u64, 0u64), |(t, w), &i| {
            (t + u64::from(self.sizes[i]), w + u64::from(self.below[i]))
        });
        let mut c = Cursor {
            p: self.anchor,
            w,
            steps: 0,
        };
        if total % 2 == 1 {
            let p = self.select(&mut c, mult, total / 2, budget)?;
            return Some(self.values[p]);
        }
        let lower = self.select(&mut c, mult, total / 2 - 1, budget)?;
        let upper = self.select(&mut c, mult, total / 2, budget)?;
        Some(self.values[lower].midpoint(self.values[upper]))
    }

    /// Moves the cursor to the position of the k-th smallest resampled value (0-based) and
    /// returns it: the smallest `p` with `W(p + 1) > k`, which always holds a drawn unit's value.
    fn select(&self, c: &mut Cursor, mult: &[u32], k: u64, budget: usize) -> Option<usize> {
        let weight = |p: usize| u64::from(mult[self.unit[p] as usize]);
        if c.w > k {
            while c.w > k {
                c.p -= 1;
                c.w -= weight(c.p);
                c.steps += 1;
                if c.steps > budget {
                    return None;
                }
            }
            return Some(c.p);
        }
        loop {
            let m = weight(c.p);
            if c.w + m > k {
                return Some(c.p);
            }
            c.w += m;
            c.p += 1;
            c.steps += 1;
            if c.steps > budget {
                return None;
            }
        }
    }
}

/// All values sorted ascending with their top-level unit, and each unit's size.
struct Tagged {
    values: Vec<f64>,
    unit: Vec<u32>,
    sizes: Vec<u32>,
}

impl Tagged {
    /// `None` for no values, or 2³² values or more.
    fn new(h: &Hierarchy) -> Option<Self> {
        let n = h.values().len();
        let units = h.units(0);
        if n >= u32::MAX as usize || n == 0 {
            return None;
        }
        let mut tagged: Vec<(f64, u32)> = Vec::with_capacity(n);
        let mut sizes = Vec::with_capacity(units);
        for i in 0..units {
            let v = h.unit_values(0, i);
            sizes.push(v.len() as u32);
            tagged.extend(v.iter().map(|&x| (x, i as u32)));
        }
        rayon::slice::ParallelSliceMut::par_sort_unstable_by(tagged.as_mut_slice(), |a, b| {
            a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
        });
        let (values, unit) = tagged.into_iter().unzip();
        Some(Self {
            values,
            unit,
            sizes,
        })
    }
}

/// Per unit, the count and the sum of `value − shift` of its values below a sorted position.
struct Anchor {
    pos: usize,
    below: Vec<u32>,
    below_sum: Vec<f64>,
}

impl Anchor {
    fn new(t: &Tagged, pos: usize, shift: f64) -> Self {
        let mut below = vec![0u32; t.sizes.len()];
        let mut below_sum = vec![0.0; t.sizes.len()];
        for (&u, &v) in t.unit[..pos].iter().zip(&t.values[..pos]) {
            below[u as usize] += 1;
            below_sum[u as usize] += v - shift;
        }
        Self {
            pos,
            below,
            below_sum,
        }
    }
}

/// Position `p`, weighted rank `w = W(p)` and weighted sum `Σ_{j<p} mult·(value_j − shift)`.
struct SumCursor {
    p: usize,
    w: u64,
    sum: f64,
    steps: usize,
}

/// The trimmed mean of a top-only resample from the multiplicities of its units, by walks from
/// two anchors (the trimmed fractions of all values): the resample's trimmed mean is
/// `shift + (S(total − g) − S(g))/(total − 2g)`, where `S(r)` is the sum of `value − shift` over
/// its `r` smallest values and `g = ⌊total·fraction⌋`. Each anchor stores, per unit, the count and
/// the sum of its values below it, so `W` and the weighted sum at the anchor cost one pass over
/// the drawn units, and each walk step adds or removes one value's multiplicity and its
/// contribution. `shift` is the median of all values, so the sums stay small.
pub(crate) struct TrimWalk {
    values: Vec<f64>,
    unit: Vec<u32>,
    sizes: Vec<u32>,
    fraction: f64,
    shift: f64,
    lower: Anchor,
    upper: Anchor,
}

impl TrimWalk {
    /// Prepares the walks for the trimmed mean cutting `fraction` (in [0, 0.5)) from each end.
    pub(crate) fn new(h: &Hierarchy, fraction: f64) -> Option<Self> {
        let t = Tagged::new(h)?;
        let n = t.values.len();
        let shift = t.values[n / 2];
        let at = |q: f64| ((q * n as f64) as usize).min(n - 1);
        let lower = Anchor::new(&t, at(fraction), shift);
        let upper = Anchor::new(&t, at(1.0 - fraction), shift);
        Some(Self {
            values: t.values,
            unit: t.unit,
            sizes: t.sizes,
            fraction,
            shift,
            lower,
            upper,
        })
    }

    /// The trimmed mean of the resample that holds `mult[i]` copies of unit `i`, where `idx`
    /// lists the draws (with repeats). `None` when a walk would take more than `budget` steps.
    pub(crate) fn trimmed_mean(&self, idx: &[usize], mult: &[u32], budget: usize) -> Option<f64> {
        let total: u64 = idx.iter().map(|&i| u64::from(self.sizes[i])).sum();
        let g = crate::descriptive::trim_count(total as usize, self.fraction) as u64;
        let high = self.sum_smallest(&self.upper, idx, mult, total - g, budget)?;
        let low = if g == 0 {
            0.0
        } else {
            self.sum_smallest(&self.lower, idx, mult, g, budget)?
        };
        Some(self.shift + (high - low) / (total - 2 * g) as f64)
    }

    /// `S(r)` for `r ≥ 1`: the sum of `value − shift` over the `r` smallest resampled values.
    fn sum_smallest(
        &self,
        a: &Anchor,
        idx: &[usize],
        mult: &[u32],
        r: u64,
        budget: usize,
    ) -> Option<f64> {
        let (w, sum) = idx.iter().fold((0u64, 0.0), |(w, s), &i| {
            (w + u64::from(a.below[i]), s + a.below_sum[i])
        });
        let mut c = SumCursor {
            p: a.pos,
            w,
            sum,
            steps: 0,
        };
        let p = self.select(&mut c, mult, r - 1, budget)?;
        let v = self.values[p] - self.shift;
        Some(c.sum + (r - c.w) as f64 * v)
    }

    /// Moves the cursor to the position of the k-th smallest resampled value (0-based), keeping
    /// its weighted rank and sum, as [`RankWalk`]'s walk does.
    fn select(&self, c: &mut SumCursor, mult: &[u32], k: u64, budget: usize) -> Option<usize> {
        let weight = |p: usize| mult[self.unit[p] as usize];
        while c.w > k {
            c.p -= 1;
            let m = weight(c.p);
            c.w -= u64::from(m);
            c.sum -= f64::from(m) * (self.values[c.p] - self.shift);
            c.steps += 1;
            if c.steps > budget {
                return None;
            }
        }
        loop {
            let m = weight(c.p);
            if c.w + u64::from(m) > k {
                return Some(c.p);
            }
            c.w += u64::from(m);
            c.sum += f64::from(m) * (self.values[c.p] - self.shift);
            c.p += 1;
            c.steps += 1;
            if c.steps > budget {
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::descriptive::median;

    #[test]
    fn median_matches_materialised_resample() {
        let h = Hierarchy::two_level(
            ["b", "i"],
            &[
                vec![3.0, 1.0, 2.0],
                vec![2.0, 2.0],
                vec![9.0, -1.0, 4.0, 4.0],
                vec![0.5],
            ],
        )
        .unwrap();
        let walk = RankWalk::new(&h, 0.5).unwrap();
        assert_eq!(walk.sorted().len(), 10);
        for idx in [
            vec![0, 0, 0, 0],
            vec![3, 3, 3, 2],
            vec![2, 2, 1, 0],
            vec![1, 3, 3, 3],
            vec![0, 1, 2, 3],
        ] {
            let mut mult = vec![0u32; 4];
            for &i in &idx {
                mult[i] += 1;
            }
            let naive = median(h.select_top(&idx).unwrap().values());
            assert_eq!(walk.median(&idx, &mult, usize::MAX), Some(naive), "{idx:?}");
        }
        // A budget too small for a far walk gives up instead of answering wrongly.
        let mult = [4, 0, 0, 0];
        assert_eq!(walk.median(&[0, 0, 0, 0], &mult, 0), None);
    }
}
