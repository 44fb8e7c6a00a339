//! Presentation arithmetic: axis ranges, histogram bins and number formatting.
//!
//! None of this is statistics: it decides where things go on the page, never what they mean.

/// Values beyond this magnitude are treated as unplottable, like NaN and infinities, so that axis
/// arithmetic (padding, tick spacing) cannot overflow.
pub const PLOTTABLE_LIMIT: f64 = 1e150;

/// Whether `v` can be placed on an axis.
pub fn plottable(v: f64) -> bool {
    v.is_finite() && v.abs() <= PLOTTABLE_LIMIT
}

/// A closed axis interval with `lo < hi`, both plottable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// Lower end.
    pub lo: f64,
    /// Upper end, strictly greater than `lo`.
    pub hi: f64,
}

impl Span {
    /// The smallest span holding every plottable value, or `None` when there is none.
    ///
    /// A single value (or all-equal values) gets a span of ±5% around it (±1 around zero), so the
    /// axis never has zero width.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Span> {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.into_iter().filter(|v| plottable(*v)) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if lo > hi {
            return None;
        }
        let mid = lo / 2.0 + hi / 2.0;
        if hi - lo <= mid.abs() * 1e-9 {
            let half = if mid == 0.0 { 1.0 } else { mid.abs() * 0.05 };
            return Some(Span {
                lo: mid - half,
                hi: mid + half,
            });
        }
        Some(Span { lo, hi })
    }

    /// This span widened by `fraction` of its width on each side.
    pub fn padded(self, fraction: f64) -> Span {
        let pad = (self.hi - self.lo) * fraction;
        Span {
            lo: self.lo - pad,
            hi: self.hi + pad,
        }
    }

    /// Width of the span.
    pub fn width(self) -> f64 {
        self.hi - self.lo
    }

    /// The smallest span holding both.
    pub fn union(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    /// Whether `v` lies within the span (ends included).
    pub fn contains(self, v: f64) -> bool {
        self.lo <= v && v <= self.hi
    }
}

/// Histogram bins: equal-width bins over the data's range and their counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Bins {
    /// Left edge of the first bin.
    pub start: f64,
    /// Width of every bin.
    pub width: f64,
    /// Number of values in each bin.
    pub counts: Vec<usize>,
}

impl Bins {
    /// Bins the plottable values by the Freedman–Diaconis rule (bin width 2·IQR·n^(−1/3), so
    /// outliers widen the range, not the bins), ⌈√n⌉ bins when the quartiles coincide; between
    /// 1 and `max_bins` bins; `None` without data.
    pub fn of(values: &[f64], max_bins: usize) -> Option<Bins> {
        let mut finite: Vec<f64> = values.iter().copied().filter(|v| plottable(*v)).collect();
        let mut span = Span::of(finite.iter().copied())?;
        let n = finite.len();
        finite.sort_by(f64::total_cmp);
        let iqr = quartile(&finite, 0.75) - quartile(&finite, 0.25);
        let range = finite[n - 1] - finite[0];
        let fd_width = 2.0 * iqr / (n as f64).cbrt();
        let bins = if fd_width > 0.0 && range > 0.0 {
            // A hair of tolerance: a range of exactly k widths is k bins, not k + 1.
            (range / fd_width - 1e-9).ceil() as usize
        } else {
            (n as f64).sqrt().ceil() as usize
        };
        let mut bins = bins.clamp(1, max_bins.max(1));
        let (lo, hi) = finite
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
                (l.min(*v), h.max(*v))
            });
        if hi > lo {
            span = Span { lo, hi };
        } else {
            bins = 1;
        }
        let width = span.width() / bins as f64;
        let mut counts = vec![0; bins];
        for v in finite {
            let i = (((v - span.lo) / width) as usize).min(bins - 1);
            counts[i] += 1;
        }
        Some(Bins {
            start: span.lo,
            width,
            counts,
        })
    }

    /// The (left, right, count) of each bin.
    pub fn iter(&self) -> impl Iterator<Item = (f64, f64, usize)> + '_ {
        self.counts.iter().enumerate().map(|(i, c)| {
            let left = self.start + self.width * i as f64;
            (left, left + self.width, *c)
        })
    }
}

/// The `p` quantile of sorted values, interpolated linearly between order statistics (the
/// binning rule's quartiles; the report's statistics come from the caller).
fn quartile(sorted: &[f64], p: f64) -> f64 {
    let at = p * (sorted.len() - 1) as f64;
    let (i, frac) = (at.floor() as usize, at.fract());
    let next = sorted[(i + 1).min(sorted.len() - 1)];
    sorted[i] + frac * (next - sorted[i])
}

/// Formats a measured value with four significant digits: `12.35`, `0.004210`, `1234`.
/// Non-finite values show as `n/a`.
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".to_string();
    }
    let a = v.abs();
    if a == 0.0 {
        return "0".to_string();
    }
    if !(1e-4..1e7).contains(&a) {
        return format!("{v:.3e}");
    }
    let digits = a.log10().floor() as i32 + 1;
    let decimals = (4 - digits).max(0) as usize;
    format!("{v:.decimals$}")
}

/// Formats `v` with as many decimals as [`number`] gives `reference`, so that a mean and its
/// interval line up: `number_like(9.75, 10.63)` is `9.75`.
pub fn number_like(v: f64, reference: f64) -> String {
    if !v.is_finite() {
        return "n/a".to_string();
    }
    let r = number(reference);
    if !reference.is_finite() || r.contains('e') || (v != 0.0 && !(1e-4..1e7).contains(&v.abs())) {
        return number(v);
    }
    let decimals = r.split_once('.').map_or(0, |(_, d)| d.len());
    format!("{v:.decimals$}")
}

/// Formats `v` with a fixed number of decimals (`n/a` when not finite), for ratios and factors.
pub fn fixed(v: f64, decimals: usize) -> String {
    if v.is_finite() {
        format!("{v:.decimals$}")
    } else {
        "n/a".to_string()
    }
}

/// Formats an axis tick: like [`number`] but without trailing zeros (`0.5`, `120`, `1e-5`).
pub fn tick(v: f64) -> String {
    let s = number(v);
    if s.contains('e') || !s.contains('.') {
        return s;
    }
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// Formats an axis tick only where it is a whole number; other positions get no label.
pub fn whole_tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        String::new()
    }
}

/// Shortens `text` to at most `max` characters, ending in `…` when cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_skips_unplottable_values() {
        let s = Span::of([f64::NAN, 1.0, f64::INFINITY, 3.0, -1e300]).unwrap();
        assert_eq!(s, Span { lo: 1.0, hi: 3.0 });
        assert_eq!(Span::of([f64::NAN]), None);
        assert_eq!(Span::of([]), None);
    }

    #[test]
    fn equal_values_get_a_nonzero_span() {
        let s = Span::of([2.0, 2.0]).unwrap();
        assert!(s.lo < 2.0 && 2.0 < s.hi);
        let z = Span::of([0.0]).unwrap();
        assert_eq!(z, Span { lo: -1.0, hi: 1.0 });
    }

    #[test]
    fn bins_count_every_value_once() {
        let v = [1.0, 2.0, 2.5, 3.0, 4.0, f64::NAN];
        let b = Bins::of(&v, 40).unwrap();
        assert_eq!(b.counts.len(), 3);
        assert_eq!(b.counts.iter().sum::<usize>(), 5);
        assert_eq!(b.iter().last().unwrap().1, 4.0);
    }

    #[test]
    fn bins_follow_freedman_diaconis() {
        // 1,000 evenly spread values: IQR 0.4995, width 2·0.4995/10 = 0.0999, range 0.999: 10
        // bins (the square-root rule would give 32).
        let v: Vec<f64> = (0..1000).map(|i| f64::from(i) / 1000.0).collect();
        assert_eq!(Bins::of(&v, 40).unwrap().counts.len(), 10);
        assert_eq!(quartile(&[1.0, 2.0, 3.0, 4.0], 0.25), 1.75);
    }

    #[test]
    fn equal_values_fall_in_one_bin() {
        let b = Bins::of(&[5.0; 9], 40).unwrap();
        assert_eq!(b.counts, vec![9]);
        assert!(b.width > 0.0);
    }

    #[test]
    fn numbers_have_four_significant_digits() {
        assert_eq!(number(12.345), "12.35");
        assert_eq!(number(0.00421), "0.004210");
        assert_eq!(number(1234.4), "1234");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(f64::NAN), "n/a");
        assert_eq!(number(1.5e-9), "1.500e-9");
        assert_eq!(number_like(9.75, 10.63), "9.75");
        assert_eq!(number_like(11.514, 10.63), "11.51");
        assert_eq!(number_like(f64::INFINITY, 10.0), "n/a");
        assert_eq!(fixed(1.0432, 3), "1.043");
        assert_eq!(fixed(f64::NAN, 3), "n/a");
        assert_eq!(tick(0.5), "0.5");
        assert_eq!(tick(120.0), "120");
        assert_eq!(tick(-0.0), "0");
        assert_eq!(whole_tick(3.0), "3");
        assert_eq!(whole_tick(2.5), "");
    }

    #[test]
    fn truncation_marks_the_cut() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
