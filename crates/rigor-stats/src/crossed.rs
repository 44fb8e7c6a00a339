//! Sessions crossed with versions: each version's level with the shift of the sessions it was
//! measured in taken out (docs/methodology.md, "Sessions").
//!
//! A session — one `track run` batch, one farm job, a bisect step — shifts every version
//! measured in it by a common factor (the machine's load, its thermal and memory state, other
//! tenants). Versions measured in one session share that shift, so a session boundary looks like
//! a step, and no within-session interval can see it. Versions and sessions are *crossed*: a
//! version re-measured in a later session (an anchor) connects the two sessions. On the log
//! scale the model is
//!
//! ```text
//! y_pj = μ_p + s_j + e_pj,    Var(e_pj) = w_pj + τ²
//! ```
//!
//! with `y_pj` the log level of point `p` (a version, or a run of versions with byte-identical
//! builds) measured in session `j`, `w_pj` the variance of that cell's level from its own
//! measurements, `τ²` the variance a cell adds beyond them (a session that does not shift every
//! version by exactly the same factor), and `s_j` the session's shift. [`fit`] estimates it by
//! weighted least squares on the two-way layout:
//!
//! - **Connected components.** Shifts are estimable only between sessions connected through the
//!   points they share (the bipartite graph of points and sessions). Each connected component
//!   gets its own origin: its sessions' shifts sum to zero. Points in different components
//!   cannot be compared without knowing how much sessions vary ([`SessionVariance`]); a step
//!   between them is *confounded* with a session boundary.
//! - **Shifts.** Eliminating the points leaves the reduced normal equations `C ŝ = r` with `C`
//!   a weighted graph Laplacian of the sessions (`C·1 = 0`); with the sum-to-zero constraint
//!   `ŝ = C⁺ r`, where `C⁺ = (C + a·11ᵀ)⁻¹ − 11ᵀ/(a·J²)` (J sessions in the component, any
//!   a > 0; rigor takes a = tr C/J² for numerical balance), and
//!   `Cov(ŝ) = C⁺`.
//! - **Levels.** `μ̂_p = ȳ_p − Σ_j b_pj ŝ_j` with `D_p = Σ_j W_pj`, `ȳ_p = Σ_j W_pj y_pj / D_p`,
//!   `b_pj = W_pj / D_p`, `W = 1/(w + τ²)`. `ȳ_p` is uncorrelated with the within-point contrasts
//!   `ŝ` is made of, so `Cov(μ̂_p, μ̂_q) = δ_pq/D_p + b_pᵀ C⁺ b_q`.
//! - **τ².** Paule & Mandel's estimator: the τ² at which the weighted residual sum of squares
//!   equals its degrees of freedom (cells − points − Σ(J − 1)), 0 when it is below them already.
//! - **Sessions that vary apart** (a session on a loaded machine beside quiet ones): a session
//!   whose residuals an F test sets apart from the others' gets a τ² of its own, each group's
//!   τ² solving Paule & Mandel's equation over its own cells ([`CrossedFit::sessions_apart`];
//!   the fit's degrees of freedom become the fewest of any group).
//! - **How much sessions vary**, σ_s², treating the shifts as random: by the method of moments
//!   on the estimated shifts, `E[Σ_j ŝ_j²] = (J − 1)σ_s² + tr C⁺` per component, pooled. It is
//!   what a comparison with a session that shares no point with the history must carry, and the
//!   spread of a component's origin (`σ_s²/J`) when components are compared.
//!
//! The search for τ² needs only the residuals at each trial τ²: over a component of many
//! sessions (a `track run` history: about a thousand sessions chained by their anchors) the
//! shifts are solved for there by conjugate gradients on `C` applied without forming it, whose
//! cost is the cells of the points measured in more than one session; small components, and an
//! iteration that does not converge, take nalgebra's dense Cholesky solve. `C⁺` is formed once,
//! at the τ² found, from a Cholesky factor (`symmetric_inverse`).

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use crate::error::{Result, StatsError, check_finite};
use crate::root::Bracket;

/// The variance taken for cells that report none when nothing else tells it (log scale: a
/// relative SD of 10⁻⁶).
const NO_VARIANCE: f64 = 1e-12;

/// One point measured in one session: the log of its level there and that log's variance from
/// the cell's own measurements (for a mean `m` with variance `v`, `ln m` and `v/m²`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// The point (a version, or versions whose builds are identical): `0..points`.
    pub point: usize,
    /// The session: `0..sessions`.
    pub session: usize,
    /// The log level.
    pub value: f64,
    /// Its variance (0 when the cell cannot tell: one top-level unit).
    pub variance: f64,
}

/// How much sessions shift levels, from the history's own re-measurements.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SessionVariance {
    /// σ_s² on the log scale (a session's shift is about `exp(±σ_s)`).
    pub value: f64,
    /// Its degrees of freedom: Σ (sessions − 1) over the connected components.
    pub df: usize,
}

/// The variance of a linear combination of levels, in its parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContrastVariance {
    /// From the cells' own noise and the estimation of the shifts (within components).
    pub estimation: f64,
    /// The multiplier of σ_s² for the components' unknown origins: `Σ_k n_k²/J_k` with `n_k`
    /// the sum of the coefficients in component `k`. 0 when every component's coefficients sum
    /// to zero (a comparison within components).
    pub origins: f64,
    /// Whether the combination compares points of different components: then it cannot be told
    /// from a session shift except through σ_s².
    pub confounded: bool,
}

impl ContrastVariance {
    /// The whole variance, given how much sessions vary; `None` when the combination needs
    /// σ_s² and there is none.
    pub fn total(&self, sessions: Option<SessionVariance>) -> Option<f64> {
        if self.origins <= 0.0 {
            return Some(self.estimation);
        }
        sessions.map(|s| self.estimation + self.origins * s.value)
    }
}

/// One connected component of the design.
#[derive(Debug, Clone, PartialEq)]
struct Component {
    /// Its sessions, by index.
    sessions: Vec<usize>,
    /// `C⁺`, indexed like `sessions`.
    pinv: DMatrix<f64>,
}

/// What [`fit`] estimated.
#[derive(Debug, Clone, PartialEq)]
pub struct CrossedFit {
    levels: Vec<Option<f64>>,
    /// `1/D_p`.
    own: Vec<f64>,
    /// `b_p` as (position within the component's sessions, weight share).
    loadings: Vec<Vec<(usize, f64)>>,
    point_component: Vec<Option<usize>>,
    session_component: Vec<Option<usize>>,
    components: Vec<Component>,
    shifts: Vec<Option<f64>>,
    cell_variance: f64,
    /// The sessions whose cells vary apart from the others', with their own τ².
    apart: Vec<(usize, f64)>,
    sessions: Option<SessionVariance>,
    df: usize,
}

impl CrossedFit {
    /// The session-adjusted log level of a point (relative to its component's average session);
    /// `None` for a point without cells.
    pub fn level(&self, point: usize) -> Option<f64> {
        self.levels.get(point).copied().flatten()
    }

    /// The estimated shift of a session (sum zero within its component); `None` for a session
    /// without cells.
    pub fn shift(&self, session: usize) -> Option<f64> {
        self.shifts.get(session).copied().flatten()
    }

    /// The connected component of a point; `None` without cells.
    pub fn component(&self, point: usize) -> Option<usize> {
        self.point_component.get(point).copied().flatten()
    }

    /// The connected component of a session; `None` without cells.
    pub fn session_component(&self, session: usize) -> Option<usize> {
        self.session_component.get(session).copied().flatten()
    }

    /// The number of connected components.
    pub fn components(&self) -> usize {
        self.components.len()
    }

    /// The variance a point's level has from its own cells alone, `1/D_p` (infinite without
    /// cells).
    pub fn own_variance(&self, point: usize) -> f64 {
        self.own.get(point).copied().unwrap_or(f64::INFINITY)
    }

    /// τ²: the variance a cell adds beyond its own measurements (in the sessions that do not
    /// vary apart, [`CrossedFit::sessions_apart`]).
    pub fn cell_variance(&self) -> f64 {
        self.cell_variance
    }

    /// The sessions whose cells were found to vary apart from the others' — more (a session on
    /// a loaded machine) or less — each with the τ² of its own cells; sorted by session. Empty
    /// when the sessions' cells vary alike.
    pub fn sessions_apart(&self) -> &[(usize, f64)] {
        &self.apart
    }

    /// How much sessions shift levels (σ_s²), when some component has two sessions or more.
    pub fn session_variance(&self) -> Option<SessionVariance> {
        self.sessions
    }

    /// Degrees of freedom of the residuals: cells − points − Σ(J − 1).
    pub fn df(&self) -> usize {
        self.df
    }

    /// The variance of `Σ c_p μ̂_p` for `(point, c_p)` pairs (points without cells are
    /// ignored).
    pub fn contrast_variance(&self, coefficients: &[(usize, f64)]) -> ContrastVariance {
        let largest = coefficients
            .iter()
            .map(|(_, c)| c.abs())
            .fold(0.0_f64, f64::max);
        self.contrast_parts(coefficients, largest).0
    }

    /// The number of points with cells (those numbered below it that have none included).
    pub(crate) fn points(&self) -> usize {
        self.levels.len()
    }

    /// Whether point `p` is alone in its connected component, which has one session: its
    /// shift is 0 and known, so a contrast's variance takes from it `c²/D_p`, and `c²` (a
    /// component of one session) for the origins, and nothing else.
    pub(crate) fn alone(&self, p: usize, points_in: &[usize]) -> bool {
        self.component(p)
            .is_some_and(|k| self.components[k].sessions.len() == 1 && points_in[k] == 1)
    }

    /// The number of sessions in connected component `k` (0 for one that does not exist).
    pub(crate) fn sessions_in(&self, k: usize) -> usize {
        self.components.get(k).map_or(0, |c| c.sessions.len())
    }

    /// The number of points in each component.
    pub(crate) fn points_per_component(&self) -> Vec<usize> {
        let mut out = vec![0; self.components.len()];
        for k in self.point_component.iter().flatten() {
            out[*k] += 1;
        }
        out
    }

    /// [`CrossedFit::contrast_variance`] of `coefficients` with a component's net coefficient
    /// counted as zero up to 10⁻¹² of `largest` (the largest coefficient's size, which may be
    /// of a contrast `coefficients` is a part of), and how many components it spans.
    pub(crate) fn contrast_parts(
        &self,
        coefficients: &[(usize, f64)],
        largest: f64,
    ) -> (ContrastVariance, usize) {
        // Only the components the coefficients touch, and in each only the sessions their
        // points load on: one version's variance costs its own sessions, not the whole design
        // (a history of a thousand unconnected sessions has a thousand components). Each touched
        // component accumulates its coefficients per session in a dense vector (a lookup per
        // loading, where searching a list cost the sessions already touched).
        struct Touched {
            comp: usize,
            net: f64,
            by_session: Vec<f64>,
            seen: Vec<bool>,
            sessions: Vec<usize>,
        }
        let mut touched: Vec<Touched> = Vec::new();
        // Each touched component's place in `touched`, looked up in a sparse set (a slot per
        // component, valid when `touched` at that slot names the component, so it is never
        // cleared): a contrast over a history of sessions that share no version touches one
        // component per version, and searching the list for each made a long segment's
        // contrast quadratic in its length.
        let mut slots = SLOTS.take();
        if slots.len() < self.components.len() {
            slots.resize(self.components.len(), usize::MAX);
        }
        let mut estimation = 0.0;
        for &(p, c) in coefficients {
            let Some(comp) = self.component(p) else {
                continue;
            };
            estimation += c * c * self.own[p];
            let found = slots[comp];
            let at = match touched.get(found) {
                Some(t) if t.comp == comp => found,
                _ => {
                    slots[comp] = touched.len();
                    // A component of one session: its shift is 0 and `C⁺` is 0, so it adds
                    // nothing past its net coefficient (no per-session sums are kept for it).
                    let n = self.components[comp].sessions.len();
                    let n = if n == 1 { 0 } else { n };
                    touched.push(Touched {
                        comp,
                        net: 0.0,
                        by_session: vec![0.0; n],
                        seen: vec![false; n],
                        sessions: Vec::new(),
                    });
                    touched.len() - 1
                }
            };
            let t = &mut touched[at];
            t.net += c;
            if t.by_session.is_empty() {
                continue;
            }
            for &(j, b) in &self.loadings[p] {
                t.by_session[j] += c * b;
                if !t.seen[j] {
                    t.seen[j] = true;
                    t.sessions.push(j);
                }
            }
        }
        SLOTS.set(slots);
        for t in &mut touched {
            estimation += quadratic_form(&self.components[t.comp].pinv, &mut t.sessions, |j| {
                t.by_session[j]
            });
        }
        let tolerance = 1e-12 * largest.max(f64::MIN_POSITIVE);
        let spanned = touched.iter().filter(|t| t.net.abs() > tolerance).count();
        let origins = touched
            .iter()
            .filter(|t| t.net.abs() > tolerance)
            .map(|t| t.net * t.net / self.components[t.comp].sessions.len() as f64)
            .sum();
        (
            ContrastVariance {
                estimation: estimation.max(0.0),
                origins,
                confounded: spanned >= 2,
            },
            spanned,
        )
    }
}

/// `aᵀ·P·a` over the sessions `sessions` of a symmetric `P` (`a` zero elsewhere), from its
/// lower triangle: the sessions sorted, each column's part is a walk down that column in
/// memory order (a long contrast touches hundreds of sessions; visiting `P` in the order the
/// sessions were met, and both of its halves, cost twice the work and a cache miss a term).
fn quadratic_form(p: &DMatrix<f64>, sessions: &mut [usize], a: impl Fn(usize) -> f64) -> f64 {
    sessions.sort_unstable();
    let n = p.nrows();
    let values: Vec<f64> = sessions.iter().map(|&j| a(j)).collect();
    let mut total = 0.0;
    for (k, (&j, &aj)) in sessions.iter().zip(&values).enumerate() {
        // Column j below and at its diagonal: rows sessions[k..].
        let column = &p.as_slice()[j * n..(j + 1) * n];
        let mut below = 0.0;
        for (&l, &al) in sessions[k + 1..].iter().zip(&values[k + 1..]) {
            below += al * column[l];
        }
        total += aj * (aj * column[j] + 2.0 * below);
    }
    total
}

std::thread_local! {
    /// [`CrossedFit::contrast_variance`]'s sparse set of touched components, kept between
    /// calls (its stale entries are recognised, so it is never cleared).
    static SLOTS: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Union–find over points `0..points` and sessions `points..points + sessions`.
fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The connected components of a design.
struct Layout {
    /// Each point's component (`None` without cells).
    point_component: Vec<Option<usize>>,
    /// Each session's component (`None` without cells).
    session_component: Vec<Option<usize>>,
    /// The sessions of each component.
    members: Vec<Vec<usize>>,
    /// The points of each component of two sessions or more (empty for one of one session).
    points_of: Vec<Vec<usize>>,
}

/// The connected components: for each point and session, its component (numbered in order of
/// first appearance, points first), and the sessions of each component.
fn connect(points: usize, sessions: usize, cells: &[Cell]) -> Layout {
    let mut parent: Vec<usize> = (0..points + sessions).collect();
    for c in cells {
        let (a, b) = (
            find(&mut parent, c.point),
            find(&mut parent, points + c.session),
        );
        if a != b {
            parent[a] = b;
        }
    }
    let mut id_of_root = vec![None; points + sessions];
    let mut next = 0;
    let mut point_component = vec![None; points];
    let mut session_component = vec![None; sessions];
    let mut has_cell = vec![false; points + sessions];
    for c in cells {
        has_cell[c.point] = true;
        has_cell[points + c.session] = true;
    }
    for i in 0..points + sessions {
        if !has_cell[i] {
            continue;
        }
        let root = find(&mut parent, i);
        let id = *id_of_root[root].get_or_insert_with(|| {
            next += 1;
            next - 1
        });
        if i < points {
            point_component[i] = Some(id);
        } else {
            session_component[i - points] = Some(id);
        }
    }
    let mut members = vec![Vec::new(); next];
    for (j, c) in session_component.iter().enumerate() {
        if let Some(c) = c {
            members[*c].push(j);
        }
    }
    let mut points_of: Vec<Vec<usize>> = vec![Vec::new(); next];
    for (p, k) in point_component.iter().enumerate() {
        if let Some(k) = k.filter(|&k| members[k].len() > 1) {
            points_of[k].push(p);
        }
    }
    Layout {
        point_component,
        session_component,
        members,
        points_of,
    }
}

/// How the search for τ² solves for the shifts of a large component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Solver {
    /// Conjugate gradients from [`ITERATIVE_FROM`] sessions on, dense below.
    Auto,
    /// Always the dense Cholesky solve (the tests' reference).
    #[cfg(test)]
    Dense,
}

/// What a fit at one τ² is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    /// The residual sum of squares (the search for τ²), the shifts solved for as `Solver` says.
    Residuals(Solver),
    /// The whole fit, `C⁺` included (dense).
    Inverse,
}

/// The sessions in a component from which the search for τ² solves iteratively.
const ITERATIVE_FROM: usize = 48;

/// The scale `a` of the `a·11ᵀ` that makes `C` invertible, from `C`'s trace.
fn balance(trace: f64, n: usize) -> f64 {
    match trace / (n * n) as f64 {
        t if t.is_finite() && t > 0.0 => t,
        _ => 1.0 / n as f64,
    }
}

/// The reduced normal equations of one τ², per point: the weight each point's cells carry in
/// each session (`W_pj` summed), `D_p`, and each session's position within its component.
struct Reduced<'a> {
    by_point: &'a [Vec<(usize, f64)>],
    d: &'a [f64],
    local: &'a [usize],
}

impl Reduced<'_> {
    /// The dense `C` of a component of `n` sessions whose points are `points`.
    fn laplacian(&self, points: &[usize], n: usize) -> DMatrix<f64> {
        let mut c = DMatrix::zeros(n, n);
        for &p in points {
            let cells = &self.by_point[p];
            for &(j, wj) in cells {
                c[(self.local[j], self.local[j])] += wj;
                for &(l, wl) in cells {
                    c[(self.local[j], self.local[l])] -= wj * wl / self.d[p];
                }
            }
        }
        c
    }

    /// `(C + a·11ᵀ)·x` without forming `C`: a point's cells in one session only add nothing,
    /// so the product costs the cells of the points measured in several sessions.
    fn apply(&self, points: &[usize], a: f64, x: &[f64], y: &mut [f64]) {
        let sum: f64 = x.iter().sum();
        y.fill(a * sum);
        for &p in points {
            let cells = &self.by_point[p];
            if cells.len() < 2 {
                continue;
            }
            let mean = cells
                .iter()
                .map(|&(j, w)| w * x[self.local[j]])
                .sum::<f64>()
                / self.d[p];
            for &(j, w) in cells {
                y[self.local[j]] += w * (x[self.local[j]] - mean);
            }
        }
    }

    /// `ŝ = (C + a·11ᵀ)⁻¹ r` by conjugate gradients preconditioned by the diagonal, or `None`
    /// when they do not reach a residual of 10⁻¹⁰ of `r` in `4n` steps (a design whose weights
    /// span many orders of magnitude; the caller solves densely then). The search for τ² reads
    /// the residual sum of squares, which is stationary in the shifts: an error ε in them
    /// moves it by O(ε²).
    ///
    /// Written here rather than taken from a sparse-solver crate: the operator is applied from
    /// the per-point weights without forming a matrix, which is the whole of the gain.
    fn solve(&self, points: &[usize], n: usize, r: &[f64]) -> Option<Vec<f64>> {
        let mut diagonal = vec![0.0; n];
        for &p in points {
            for &(j, w) in &self.by_point[p] {
                diagonal[self.local[j]] += w - w * w / self.d[p];
            }
        }
        let a = balance(diagonal.iter().sum(), n);
        let inverse: Vec<f64> = diagonal
            .iter()
            .map(|&c| {
                let c = c + a;
                if c > 0.0 { 1.0 / c } else { 1.0 }
            })
            .collect();
        let norm = |v: &[f64]| dot(v, v).sqrt();
        let target = 1e-10 * norm(r);
        let mut x = vec![0.0; n];
        if target == 0.0 {
            return Some(x);
        }
        let mut residual = r.to_vec();
        let mut z: Vec<f64> = residual.iter().zip(&inverse).map(|(r, m)| r * m).collect();
        let mut direction = z.clone();
        let mut product = vec![0.0; n];
        let mut rz = dot(&residual, &z);
        for _ in 0..4 * n {
            self.apply(points, a, &direction, &mut product);
            let curvature = dot(&direction, &product);
            if curvature.is_nan() || curvature <= 0.0 {
                return None;
            }
            let step = rz / curvature;
            for i in 0..n {
                x[i] += step * direction[i];
                residual[i] -= step * product[i];
            }
            if norm(&residual) <= target {
                return x.iter().all(|v| v.is_finite()).then_some(x);
            }
            for i in 0..n {
                z[i] = residual[i] * inverse[i];
            }
            let next = dot(&residual, &z);
            let beta = next / rz;
            rz = next;
            for i in 0..n {
                direction[i] = z[i] + beta * direction[i];
            }
        }
        None
    }
}

/// `(L·Lᵀ)⁻¹ = L⁻ᵀ·L⁻¹` from a Cholesky factor `L` (only its lower triangle is read): `L⁻¹` by
/// column-wise substitution (n³/6 multiplications), then the lower half of `L⁻ᵀ·L⁻¹` as dot
/// products of its columns (n³/6), mirrored — as LAPACK's `potri` does. Written here because
/// nalgebra's `Cholesky::inverse` solves against the identity column by column, which is 2n³
/// and ignores both the identity's zeros and the symmetry: six times the work, which was most
/// of a fit over a thousand sessions.
fn symmetric_inverse(l: &DMatrix<f64>) -> DMatrix<f64> {
    let n = l.nrows();
    // X = L⁻¹, column by column (each column's non-zeros start at its diagonal).
    let mut x = DMatrix::zeros(n, n);
    let mut column = vec![0.0; n];
    for k in 0..n {
        column[k..].fill(0.0);
        column[k] = 1.0;
        for m in k..n {
            let v = column[m] / l[(m, m)];
            column[m] = v;
            if v != 0.0 {
                let below = &l.as_slice()[m * n + m + 1..(m + 1) * n];
                for (c, &lm) in column[m + 1..].iter_mut().zip(below) {
                    *c -= v * lm;
                }
            }
        }
        x.as_mut_slice()[k * n + k..(k + 1) * n].copy_from_slice(&column[k..]);
    }
    // (Xᵀ·X)_ij = Σ_{m ≥ max(i, j)} X_mi·X_mj.
    let mut out = DMatrix::zeros(n, n);
    let xs = x.as_slice();
    for j in 0..n {
        let cj = &xs[j * n + j..(j + 1) * n];
        for i in j..n {
            let ci = &xs[i * n + i..(i + 1) * n];
            let v = dot(ci, &cj[i - j..]);
            out[(i, j)] = v;
            out[(j, i)] = v;
        }
    }
    out
}

/// `Σ a_i·b_i` in four running sums, which the compiler can keep in vector registers (one sum
/// must add in order, which it cannot).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let (a4, b4) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = a4
        .remainder()
        .iter()
        .zip(b4.remainder())
        .map(|(x, y)| x * y)
        .sum();
    let mut sums = [0.0; 4];
    for (x, y) in a4.zip(b4) {
        for k in 0..4 {
            sums[k] += x[k] * y[k];
        }
    }
    (sums[0] + sums[1]) + (sums[2] + sums[3]) + tail
}

/// The weight of a cell whose whole variance is `total`. No variance at all (every cell's units
/// tied, and no residuals to tell τ²): the cell is taken as exact to 1e-6 (relative SD); a
/// caller floors what it shows at the measurements' resolution.
fn weight(total: f64) -> f64 {
    if total > 0.0 {
        1.0 / total
    } else {
        NO_VARIANCE.recip()
    }
}

/// The fit for a given τ², and its weighted residual sum of squares. `C⁺` is formed only for
/// [`Want::Inverse`] (the search for τ² needs the residuals alone, which a solve gives at a
/// fraction of an inversion's cost; the inverse is formed once, at the τ² found).
fn fit_at(
    points: usize,
    sessions: usize,
    cells: &[Cell],
    variances: &[f64],
    tau2: f64,
    layout: &Layout,
    want: Want,
) -> (CrossedFit, f64) {
    let with_inverse = want == Want::Inverse;
    let Layout {
        point_component,
        session_component,
        members,
        points_of,
    } = layout;
    let weights: Vec<f64> = variances.iter().map(|w| weight(w + tau2)).collect();
    // Each session's position within its component.
    let mut local = vec![0; sessions];
    for m in members {
        for (pos, &j) in m.iter().enumerate() {
            local[j] = pos;
        }
    }
    // D_p, ȳ_p and W_pj (summed over a point's cells in one session).
    let mut d = vec![0.0; points];
    let mut ybar = vec![0.0; points];
    let mut by_point: Vec<Vec<(usize, f64)>> = vec![Vec::new(); points];
    for (c, &w) in cells.iter().zip(&weights) {
        d[c.point] += w;
        ybar[c.point] += w * c.value;
        match by_point[c.point].iter_mut().find(|(j, _)| *j == c.session) {
            Some((_, sum)) => *sum += w,
            None => by_point[c.point].push((c.session, w)),
        }
    }
    for p in 0..points {
        if d[p] > 0.0 {
            ybar[p] /= d[p];
        }
    }
    // r per component of two sessions or more (one of one session needs none: below).
    let several = |m: &Vec<usize>| if m.len() > 1 { m.len() } else { 0 };
    let mut rs: Vec<Vec<f64>> = members.iter().map(|m| vec![0.0; several(m)]).collect();
    for (c, &w) in cells.iter().zip(&weights) {
        if let Some(r) = session_component[c.session].and_then(|k| rs[k].get_mut(local[c.session]))
        {
            *r += w * (c.value - ybar[c.point]);
        }
    }
    let reduced = Reduced {
        by_point: &by_point,
        d: &d,
        local: &local,
    };
    let mut components = Vec::with_capacity(members.len());
    let mut shifts = vec![None; sessions];
    for ((m, r), pts) in members.iter().zip(&rs).zip(points_of) {
        let n = m.len();
        if n == 1 {
            // One session: its shift is 0 by the constraint and C⁺ is 0 (what the general
            // path below gives too, without its matrices: a history of `track add` has a
            // component of one session per version).
            shifts[m[0]] = Some(0.0);
            components.push(Component {
                sessions: m.clone(),
                pinv: DMatrix::zeros(usize::from(with_inverse), usize::from(with_inverse)),
            });
            continue;
        }
        // The search for τ² needs the shifts alone. Over many sessions they are solved for by
        // conjugate gradients on the sparse C (a dense Cholesky factor of C costs n³/3 where
        // the iteration costs a few passes over the points shared between sessions); the
        // dense solve stays for small components, for the inverse, and when the iteration
        // does not converge.
        let iterative = (want == Want::Residuals(Solver::Auto) && n >= ITERATIVE_FROM)
            .then(|| reduced.solve(pts, n, r))
            .flatten();
        if let Some(s) = iterative {
            for (pos, &j) in m.iter().enumerate() {
                shifts[j] = Some(s[pos]);
            }
            components.push(Component {
                sessions: m.clone(),
                pinv: DMatrix::zeros(0, 0),
            });
            continue;
        }
        let c = reduced.laplacian(pts, n);
        // C + a·11ᵀ is invertible (C's null space is 1) and its inverse is C⁺ + 11ᵀ/(a·n²). The
        // scale a is taken from C itself (its mean diagonal over n), so that the part added
        // and C's own are of one size: with a fixed a = 1/n, cells weighted 10¹² left C⁺ as
        // the difference of two numbers 10¹² apart.
        let a = balance(c.trace(), n);
        let ones = DMatrix::from_element(n, n, a);
        let augmented = &c + &ones;
        let r = DMatrix::from_column_slice(n, 1, r);
        // r sums to zero (each point's cells are centred on its own mean), so
        // ŝ = C⁺r = (C + a·11ᵀ)⁻¹r: the 11ᵀ/(a·n²) part of the inverse adds nothing to it.
        let (pinv, s) = if with_inverse {
            let inverse = augmented
                .clone()
                .cholesky()
                .map(|ch| symmetric_inverse(ch.l_dirty()))
                .or_else(|| augmented.try_inverse())
                .unwrap_or_else(|| DMatrix::zeros(n, n));
            let pinv = inverse - DMatrix::from_element(n, n, 1.0 / (a * (n * n) as f64));
            let s = &pinv * &r;
            (pinv, s)
        } else {
            let s = augmented
                .clone()
                .cholesky()
                .map(|ch| ch.solve(&r))
                .or_else(|| augmented.lu().solve(&r))
                .unwrap_or_else(|| DMatrix::zeros(n, 1));
            (DMatrix::zeros(0, 0), s)
        };
        for (pos, &j) in m.iter().enumerate() {
            shifts[j] = Some(s[(pos, 0)]);
        }
        components.push(Component {
            sessions: m.clone(),
            pinv,
        });
    }
    let mut levels = vec![None; points];
    let mut own = vec![f64::INFINITY; points];
    let mut loadings = vec![Vec::new(); points];
    for p in 0..points {
        if d[p] <= 0.0 {
            continue;
        }
        own[p] = 1.0 / d[p];
        let adjust: f64 = by_point[p]
            .iter()
            .map(|&(j, w)| w / d[p] * shifts[j].unwrap_or(0.0))
            .sum();
        levels[p] = Some(ybar[p] - adjust);
        loadings[p] = by_point[p]
            .iter()
            .map(|&(j, w)| (local[j], w / d[p]))
            .collect();
    }
    let rss: f64 = cells
        .iter()
        .zip(&weights)
        .map(|(c, w)| {
            let fitted = levels[c.point].unwrap_or(0.0) + shifts[c.session].unwrap_or(0.0);
            w * (c.value - fitted).powi(2)
        })
        .sum();
    let fit = CrossedFit {
        levels,
        own,
        loadings,
        point_component: point_component.clone(),
        session_component: session_component.clone(),
        components,
        shifts,
        cell_variance: tau2,
        apart: Vec::new(),
        sessions: None,
        df: 0,
    };
    (fit, rss)
}

/// Fits the crossed model of the module documentation to `cells` over `points` points and
/// `sessions` sessions. Errors on a non-finite value or variance, a negative variance, or a
/// cell naming a point or session out of range.
pub fn fit(points: usize, sessions: usize, cells: &[Cell]) -> Result<CrossedFit> {
    fit_with(points, sessions, cells, Solver::Auto)
}

/// [`fit`] with the search for τ² solving as `solver` says.
pub(crate) fn fit_with(
    points: usize,
    sessions: usize,
    cells: &[Cell],
    solver: Solver,
) -> Result<CrossedFit> {
    for (i, c) in cells.iter().enumerate() {
        check_finite(&[c.value, c.variance])?;
        if c.variance < 0.0 {
            return Err(StatsError::InvalidParameter {
                name: "cell variance",
                value: c.variance.to_string(),
                reason: "must not be negative",
            });
        }
        if c.point >= points || c.session >= sessions {
            return Err(StatsError::Shape(format!(
                "cell {i} names point {} of {points} and session {} of {sessions}",
                c.point, c.session
            )));
        }
    }
    let layout = connect(points, sessions, cells);
    let used_points = layout.point_component.iter().flatten().count();
    let free_shifts: usize = layout
        .members
        .iter()
        .map(|m| m.len().saturating_sub(1))
        .sum();
    let df = cells.len().saturating_sub(used_points + free_shifts);
    // A cell that reported no variance of its own (one top-level unit) is weighed like the most
    // precise cell that did; when none did, all weigh the same and τ² carries the noise.
    let smallest = cells
        .iter()
        .map(|c| c.variance)
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let variances: Vec<f64> = cells
        .iter()
        .map(|c| {
            if c.variance > 0.0 {
                c.variance
            } else if smallest.is_finite() {
                smallest
            } else {
                0.0
            }
        })
        .collect();
    let no_variances = !smallest.is_finite();
    let fit_at_tau2 =
        |tau2: f64, want: Want| fit_at(points, sessions, cells, &variances, tau2, &layout, want);
    let rss_at = |tau2: f64| fit_at_tau2(tau2, Want::Residuals(solver)).1;
    let mut tau2 = 0.0;
    // Without residual degrees of freedom (every point in one cell: a history of `track add`,
    // each version in a session of its own) τ² stays 0 and the residuals are not needed.
    let rss0 = if df > 0 { rss_at(0.0) } else { 0.0 };
    if df > 0 && (no_variances || rss0 > df as f64) {
        // Paule–Mandel: the weighted residual sum of squares falls as τ² grows; find where it
        // meets its degrees of freedom.
        let scale = cells
            .iter()
            .map(|c| c.value.abs())
            .fold(0.0, f64::max)
            .max(1.0);
        let mean = variances.iter().sum::<f64>() / cells.len() as f64;
        let start = if mean > 0.0 {
            mean
        } else {
            1e-12 * scale * scale
        };
        let target = df as f64;
        tau2 = paule_mandel(
            rss0 - target,
            start,
            1e12 * scale * scale,
            target,
            &mut |t| rss_at(t) - target,
        );
    }
    let (mut best, _) = fit_at_tau2(tau2, Want::Inverse);
    best.df = df;
    if df > 0 && !no_variances {
        if let Some(apart) = sessions_apart(&best, sessions, cells, &variances, tau2, &layout) {
            best = apart;
        }
    }
    // σ_s² by the method of moments over the estimated shifts.
    let session_df: usize = best
        .components
        .iter()
        .map(|c| c.sessions.len().saturating_sub(1))
        .sum();
    if session_df > 0 {
        let (mut squares, mut trace) = (0.0, 0.0);
        for c in &best.components {
            squares += c
                .sessions
                .iter()
                .map(|&j| best.shifts[j].unwrap_or(0.0).powi(2))
                .sum::<f64>();
            trace += c.pinv.trace();
        }
        best.sessions = Some(SessionVariance {
            value: ((squares - trace) / session_df as f64).max(0.0),
            df: session_df,
        });
    }
    Ok(best)
}

/// The significance at which a session's cells are found to vary apart from the others'
/// (two-sided, Bonferroni over the sessions tested). A test that misses a loaded session leaves
/// its comparisons with the others' τ², too small for it, so the level is loose: on two
/// sessions of ten versions measured twice, sessions that vary alike were found apart in 7% of
/// fits (their intervals 1% wider on average), and a loaded session (τ 8% beside 1%) in 91%,
/// its differences' 95% intervals covering 93% (79% with one τ² for both) and the quiet
/// session's 3.5 times narrower (`sessions_apart_cover_the_truth_in_each`).
const APART_LEVEL: f64 = 0.2;

/// The fewest residual degrees of freedom a session needs to be tested, and to be given a τ² of
/// its own: a session of new versions and two anchors has about one, too few to tell.
const APART_MIN_DF: f64 = 3.0;

/// The rounds of refitting after which the τ²s of sessions apart are taken as not converging
/// (the fit with one τ² stands).
const APART_ROUNDS: usize = 50;

/// Each cell's residual and, with `leverage` (which needs `fit`'s `C⁺`), the variance of its
/// fitted value `μ̂_p + ŝ_j`: `1/D_p + uᵀC⁺u` with `u = e_j − b_p`, since `μ̂_p + ŝ_j = ȳ_p +
/// uᵀŝ` and `ȳ_p` is uncorrelated with `ŝ` (without `leverage`, `1/D_p` alone). A cell's
/// leverage is its weight times the former.
fn residuals(fit: &CrossedFit, sessions: usize, cells: &[Cell], leverage: bool) -> Vec<(f64, f64)> {
    let mut local = vec![0; sessions];
    for comp in &fit.components {
        for (pos, &j) in comp.sessions.iter().enumerate() {
            local[j] = pos;
        }
    }
    let mut u: Vec<(usize, f64)> = Vec::new();
    cells
        .iter()
        .map(|c| {
            let fitted = fit.levels[c.point].unwrap_or(0.0) + fit.shifts[c.session].unwrap_or(0.0);
            let mut var = fit.own[c.point];
            let comp = fit.session_component[c.session].map(|k| &fit.components[k]);
            if let Some(comp) = comp.filter(|k| leverage && k.sessions.len() > 1) {
                u.clear();
                u.extend(fit.loadings[c.point].iter().map(|&(pos, b)| (pos, -b)));
                match u.iter_mut().find(|(pos, _)| *pos == local[c.session]) {
                    Some(e) => e.1 += 1.0,
                    None => u.push((local[c.session], 1.0)),
                }
                for &(a, ua) in &u {
                    for &(b, ub) in &u {
                        var += ua * ub * comp.pinv[(a, b)];
                    }
                }
            }
            (c.value - fitted, var.max(0.0))
        })
        .collect()
}

/// The τ² at which the cells `members` (their residuals `r` and own variances `v`) have a
/// weighted residual sum of squares `Σ r²/(v + τ²)` equal to `df`, with the residuals held:
/// Paule & Mandel's equation for one group of cells; 0 when the sum is within `df` already.
fn group_tau2(members: &[usize], r: &[(f64, f64)], v: &[f64], df: f64) -> f64 {
    let q = |t: f64| -> f64 {
        members
            .iter()
            .map(|&c| r[c].0 * r[c].0 / (v[c] + t).max(f64::MIN_POSITIVE))
            .sum::<f64>()
            - df
    };
    let g0 = q(0.0);
    if df <= 0.0 || g0 <= 0.0 {
        return 0.0;
    }
    let mean = members.iter().map(|&c| v[c]).sum::<f64>() / members.len() as f64;
    paule_mandel(g0, mean.max(f64::MIN_POSITIVE), 1e300, df, &mut |t| q(t))
}

/// The root of Paule & Mandel's equation `g(τ²) = 0`, `g` the weighted residual sum of squares
/// less its degrees of freedom `df`, which falls as τ² grows, from `g(0) = g0 > 0`: the bracket
/// `[0, start]` widened fourfold until `g` is not positive (or `start` reaches `cap`), then the
/// Illinois variant of regula falsi (superlinear where bisection halves, so a few residual sums
/// instead of forty). The end returned stays on the side where the residuals are within their
/// degrees of freedom.
fn paule_mandel(g0: f64, start: f64, cap: f64, df: f64, g: &mut dyn FnMut(f64) -> f64) -> f64 {
    let (mut lo, mut g_lo) = (0.0, g0);
    let mut hi = start;
    let mut g_hi = g(hi);
    while g_hi > 0.0 && hi < cap {
        (lo, g_lo) = (hi, g_hi);
        hi *= 4.0;
        g_hi = g(hi);
    }
    let mut bracket = Bracket::new((lo, g_lo), (hi, g_hi));
    for _ in 0..100 {
        if bracket.within(1e-12) || bracket.g_hi.abs() <= 1e-12 * df {
            break;
        }
        bracket.step(&mut |t| g(t));
    }
    bracket.hi
}

/// Sessions whose cells vary apart from the others' — a session measured on a loaded machine
/// varies several times more between runs than a quiet one, and one τ² for all would give a
/// quiet session's comparisons the loaded one's noise — each given a τ² of its own
/// (`Var(e_pj) = w_pj + τ_j²`), the others sharing one; `None` when no session is apart, or
/// the τ²s do not converge.
///
/// At the fit with one τ² (`pooled`), each session with at least [`APART_MIN_DF`] residual
/// degrees of freedom (`d_j = Σ (1 − h_c)` over its cells, `h_c` the cells' leverages) is
/// tested against the other sessions: `F = (Q_j/d_j)/(Q_rest/d_rest)` with `Q = Σ W_c r_c²`
/// over the cells, against Fisher's F on `(d_j, d_rest)`, two-sided, at [`APART_LEVEL`] shared
/// by the sessions tested (Bonferroni). The sessions apart and the rest (one group) then each get the τ² that
/// solves Paule & Mandel's equation over their own cells, `Σ W_c r_c² = Σ (1 − h_c)` (the
/// whole fit's equation when there is one group), the residuals and leverages those of the
/// refit at the current τ²s, until they settle. The fit's degrees of freedom become the fewest
/// of any group (rounded down), as each group's τ² is known only from its own.
fn sessions_apart(
    pooled: &CrossedFit,
    sessions: usize,
    cells: &[Cell],
    variances: &[f64],
    tau2: f64,
    layout: &Layout,
) -> Option<CrossedFit> {
    use statrs::distribution::{ContinuousCDF, FisherSnedecor};
    let points = pooled.levels.len();
    // Each session's weighted residual sum of squares and residual degrees of freedom, each
    // cell's leverage, and the residuals themselves, at a fit with `C⁺`.
    let by_session = |fit: &CrossedFit, taus: &[f64]| {
        let r = residuals(fit, sessions, cells, true);
        let mut q_d = vec![(0.0, 0.0); sessions];
        let h: Vec<f64> = r
            .iter()
            .zip(variances.iter().zip(taus))
            .map(|(&(_, var), (&v, &t))| (weight(v + t) * var).min(1.0))
            .collect();
        for (i, c) in cells.iter().enumerate() {
            q_d[c.session].0 += weight(variances[i] + taus[i]) * r[i].0 * r[i].0;
            q_d[c.session].1 += 1.0 - h[i];
        }
        (q_d, h, r)
    };
    let taus = vec![tau2; cells.len()];
    let (q_d, _, _) = by_session(pooled, &taus);
    let tested: Vec<usize> = (0..sessions)
        .filter(|&j| q_d[j].1 >= APART_MIN_DF)
        .collect();
    if tested.len() < 2 {
        return None;
    }
    let level = APART_LEVEL / tested.len() as f64;
    let (q_all, d_all) = q_d.iter().fold((0.0, 0.0), |(q, d), x| (q + x.0, d + x.1));
    let apart: Vec<usize> = tested
        .into_iter()
        .filter(|&j| {
            let (q, d) = q_d[j];
            let (q_rest, d_rest) = (q_all - q, d_all - d);
            if d_rest < 1.0 {
                return false;
            }
            let ratio = (q / d) / (q_rest.max(0.0) / d_rest);
            if ratio.is_nan() {
                return false;
            }
            FisherSnedecor::new(d, d_rest).is_ok_and(|f| {
                let below = if ratio.is_infinite() {
                    1.0
                } else {
                    f.cdf(ratio)
                };
                2.0 * below.min(1.0 - below) < level
            })
        })
        .collect();
    if apart.is_empty() {
        return None;
    }
    // Groups of cells: each session apart, then the rest.
    let mut group_of = vec![apart.len(); sessions];
    for (g, &j) in apart.iter().enumerate() {
        group_of[j] = g;
    }
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); apart.len() + 1];
    for (i, c) in cells.iter().enumerate() {
        members[group_of[c.session]].push(i);
    }
    let mut group_tau = vec![tau2; members.len()];
    let mut taus = taus;
    let totals =
        |taus: &[f64]| -> Vec<f64> { variances.iter().zip(taus).map(|(v, t)| v + t).collect() };
    // Each group's τ² from the residuals `r`, its degrees of freedom from the leverages `h`.
    let solve = |r: &[(f64, f64)], h: &[f64], old: &[f64]| -> Vec<f64> {
        members
            .iter()
            .zip(old)
            .map(|(m, &old)| {
                if m.is_empty() {
                    return old;
                }
                let df: f64 = m.iter().map(|&c| 1.0 - h[c]).sum();
                group_tau2(m, r, variances, df)
            })
            .collect()
    };
    let settled = |a: &[f64], b: &[f64]| {
        let largest = a.iter().chain(b).copied().fold(0.0_f64, f64::max);
        a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-9 * largest + 1e-15)
    };
    // The fit at the current τ²s: the shifts alone (`Residuals`), or with `C⁺` (`Inverse`).
    let refit = |taus: &mut [f64], group_tau: &[f64], want: Want| {
        for (i, c) in cells.iter().enumerate() {
            taus[i] = group_tau[group_of[c.session]];
        }
        fit_at(points, sessions, cells, &totals(taus), 0.0, layout, want).0
    };
    let mut fit = pooled.clone();
    // Leverages need C⁺, a dense inverse over a component's sessions: they are held while the
    // τ²s settle on refits that solve for the shifts alone (conjugate gradients over many
    // sessions), then taken again at the τ²s found, until they too no longer move them.
    for _ in 0..APART_ROUNDS {
        let (_, h, r) = by_session(&fit, &taus);
        let next = solve(&r, &h, &group_tau);
        if settled(&next, &group_tau) {
            let fewest = members
                .iter()
                .filter(|m| !m.is_empty())
                .map(|m| m.iter().map(|&c| 1.0 - h[c]).sum::<f64>())
                .fold(f64::INFINITY, f64::min);
            fit.df = (fewest.floor() as usize).clamp(1, pooled.df.max(1));
            fit.cell_variance = if members[apart.len()].is_empty() {
                tau2
            } else {
                group_tau[apart.len()]
            };
            fit.apart = apart
                .iter()
                .enumerate()
                .map(|(g, &j)| (j, group_tau[g]))
                .collect();
            return Some(fit);
        }
        group_tau = next;
        for _ in 0..APART_ROUNDS {
            let quick = refit(&mut taus, &group_tau, Want::Residuals(Solver::Auto));
            let r = residuals(&quick, sessions, cells, false);
            let next = solve(&r, &h, &group_tau);
            let done = settled(&next, &group_tau);
            group_tau = next;
            if done {
                break;
            }
        }
        fit = refit(&mut taus, &group_tau, Want::Inverse);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Distribution, Normal};

    fn cell(point: usize, session: usize, value: f64, variance: f64) -> Cell {
        Cell {
            point,
            session,
            value,
            variance,
        }
    }

    fn close(got: f64, want: f64, what: &str) {
        assert!((got - want).abs() < 1e-9, "{what}: got {got}, want {want}");
    }

    /// The oracle's layout, 5 points in 3 sessions, as `(point, session)` in the order of the
    /// cells of `scripts/oracles/crossed.py`'s datasets (the consistent one has the first 8).
    const LAYOUT: [(usize, usize); 9] = [
        (0, 0),
        (1, 0),
        (2, 0),
        (2, 1),
        (3, 1),
        (0, 1),
        (3, 2),
        (4, 2),
        (1, 2),
    ];

    /// A dataset of `scripts/oracles/crossed.py` (the values and variances of the first cells of
    /// [`LAYOUT`]) and the numbers the oracle prints for it: numpy's weighted least squares on
    /// the dummy-coded two-way layout with effect-coded (sum-to-zero) shifts, its covariance
    /// `(XᵀWX)⁻¹`, and Paule–Mandel's τ² by scipy's root finder — computed independently of this
    /// module.
    struct Oracle {
        name: &'static str,
        values: &'static [f64],
        variances: &'static [f64],
        df: usize,
        tau2: f64,
        levels: [f64; 5],
        shifts: [f64; 3],
        /// Of μ1 − μ0, μ3 − μ2, μ4 − μ0, μ0 and μ4.
        contrast_variances: [f64; 5],
    }

    const ORACLES: [Oracle; 2] = [
        // Consistent cells: Q(0) below its degrees of freedom, τ² = 0.
        Oracle {
            name: "consistent",
            values: &[1.00, 1.10, 0.95, 1.35, 1.60, 1.42, 1.20, 1.30],
            variances: &[0.010, 0.020, 0.015, 0.010, 0.020, 0.030, 0.010, 0.010],
            df: 1,
            tau2: 0.0,
            levels: [
                1.1415384615,
                1.2384615385,
                1.0838461538,
                1.3307692308,
                1.4307692308,
            ],
            shifts: [-0.1384615385, 0.2692307692, -0.1307692308],
            contrast_variances: [
                0.0284615385,
                0.0284615385,
                0.0561538462,
                0.0135042735,
                0.0250427350,
            ],
        },
        // The same layout with precise cells that disagree, and one more: Paule–Mandel's τ² > 0.
        Oracle {
            name: "inconsistent",
            values: &[1.00, 1.10, 0.95, 1.35, 1.60, 1.52, 1.20, 1.30, 0.70],
            variances: &[
                0.0001, 0.0002, 0.0001, 0.0001, 0.0002, 0.0003, 0.0001, 0.0001, 0.0001,
            ],
            df: 2,
            tau2: 0.022797994594,
            levels: [
                1.1263359765,
                1.0584402114,
                1.0166666667,
                1.3748931219,
                1.5666666667,
            ],
            shifts: [-0.0506145492, 0.3172812158, -0.2666666667],
            contrast_variances: [
                0.0298573232,
                0.0298273668,
                0.0573448558,
                0.0140486438,
                0.0330971033,
            ],
        },
    ];

    /// `Σ c² / D_p + Σ_k v_kᵀ C⁺_k v_k` (v_k: the contrast's loadings on component k's
    /// sessions) and `Σ_k n_k² / J_k`, computed directly.
    fn direct(fit: &CrossedFit, contrast: &[(usize, f64)]) -> (f64, f64) {
        let mut estimation = 0.0;
        let mut v: Vec<Vec<f64>> = fit
            .components
            .iter()
            .map(|c| vec![0.0; c.sessions.len()])
            .collect();
        let mut net = vec![0.0; fit.components.len()];
        for &(p, c) in contrast {
            let k = fit.component(p).unwrap();
            estimation += c * c * fit.own_variance(p);
            net[k] += c;
            for &(j, b) in &fit.loadings[p] {
                v[k][j] += c * b;
            }
        }
        let mut origins = 0.0;
        for (k, comp) in fit.components.iter().enumerate() {
            let x = DMatrix::from_column_slice(v[k].len(), 1, &v[k]);
            estimation += (x.transpose() * &comp.pinv * &x)[(0, 0)];
            if net[k].abs() > 1e-12 {
                origins += net[k] * net[k] / comp.sessions.len() as f64;
            }
        }
        (estimation, origins)
    }

    /// A contrast's variance over components of one session and of several, mixed, is the
    /// direct sum over components; asking another fit in between (whose components number
    /// differently) leaves the next answer the same (the lookup of touched components is kept
    /// between calls and must recognise what another call left in it).
    #[test]
    fn contrasts_over_many_components_are_the_direct_sum() {
        // Points 0–2 in sessions 0 and 1 (tied by point 1), points 3–7 each in a session of its
        // own, point 8 in sessions 7 and 8 with point 9.
        let mut cells = vec![
            cell(0, 0, 0.00, 1e-4),
            cell(1, 0, 0.01, 1e-4),
            cell(1, 1, 0.06, 2e-4),
            cell(2, 1, 0.04, 1e-4),
            cell(8, 7, 0.30, 1e-4),
            cell(8, 8, 0.33, 1e-4),
            cell(9, 8, 0.31, 3e-4),
        ];
        for p in 3..8 {
            cells.push(cell(p, p - 1, 0.1 * p as f64, 1e-4));
        }
        let a = fit(10, 9, &cells).unwrap();
        assert_eq!(a.components(), 7);
        let contrast: Vec<(usize, f64)> = (0..10)
            .map(|p| (p, if p < 5 { -0.2 } else { 0.2 }))
            .collect();
        let first = a.contrast_variance(&contrast);
        let (estimation, origins) = direct(&a, &contrast);
        close(first.estimation, estimation, "estimation");
        close(first.origins, origins, "origins");
        assert!(first.confounded);
        // Another fit, its components numbered otherwise, asked in between.
        let b = fit(
            3,
            3,
            &[
                cell(0, 2, 0.0, 1e-4),
                cell(1, 1, 0.1, 1e-4),
                cell(2, 0, 0.2, 1e-4),
            ],
        )
        .unwrap();
        let other = b.contrast_variance(&[(2, 1.0), (0, -1.0)]);
        close(other.origins, 2.0, "origins of b");
        assert_eq!(a.contrast_variance(&contrast), first);
        // Within one component of two sessions: no origins, not confounded.
        let within = a.contrast_variance(&[(0, -1.0), (2, 1.0)]);
        let (estimation, origins) = direct(&a, &[(0, -1.0), (2, 1.0)]);
        close(within.estimation, estimation, "within");
        assert_eq!(
            (within.origins, origins, within.confounded),
            (0.0, 0.0, false)
        );
    }

    #[test]
    fn fits_match_the_independent_solver() {
        for o in &ORACLES {
            let cells: Vec<Cell> = LAYOUT
                .iter()
                .zip(o.values.iter().zip(o.variances))
                .map(|(&(p, j), (&v, &w))| cell(p, j, v, w))
                .collect();
            assert_eq!(cells.len(), o.values.len(), "{}", o.name);
            assert_eq!(o.variances.len(), o.values.len(), "{}", o.name);
            let f = fit(5, 3, &cells).unwrap();
            assert_eq!(f.components(), 1, "{}", o.name);
            assert_eq!(f.df(), o.df, "{}", o.name);
            close(f.cell_variance(), o.tau2, &format!("{}: τ²", o.name));
            for (p, want) in o.levels.iter().enumerate() {
                close(f.level(p).unwrap(), *want, &format!("{}: level", o.name));
            }
            for (j, want) in o.shifts.iter().enumerate() {
                close(f.shift(j).unwrap(), *want, &format!("{}: shift", o.name));
            }
            let contrasts: [&[(usize, f64)]; 5] = [
                &[(1, 1.0), (0, -1.0)],
                &[(3, 1.0), (2, -1.0)],
                &[(4, 1.0), (0, -1.0)],
                &[(0, 1.0)],
                &[(4, 1.0)],
            ];
            for (c, want) in contrasts.iter().zip(o.contrast_variances) {
                let v = f.contrast_variance(c);
                assert!(!v.confounded, "{}", o.name);
                close(
                    v.estimation,
                    want,
                    &format!("{}: contrast variance", o.name),
                );
            }
        }
    }

    /// The cells of a real trial (`sessions` timing test): a program's build A measured 6 times
    /// in a session with two busy loops on the 2-core machine, then 3 times beside build B's
    /// 5 (10% more work) in a quiet one. Log levels (relative to 2 ms) and their variances.
    const LOADED_THEN_QUIET: [(usize, usize, f64, f64); 14] = [
        (0, 0, 0.404753, 5.688e-03),
        (0, 0, 0.597912, 7.307e-04),
        (0, 0, 0.488502, 6.731e-03),
        (0, 0, 0.393507, 5.397e-03),
        (0, 0, 0.595063, 1.447e-03),
        (0, 0, 0.398866, 4.472e-03),
        (0, 1, 0.019708, 3.134e-04),
        (1, 1, 0.108187, 2.077e-04),
        (1, 1, 0.099005, 2.856e-04),
        (1, 1, 0.108241, 1.819e-04),
        (1, 1, 0.091457, 5.442e-04),
        (1, 1, 0.084942, 3.342e-04),
        (0, 1, -0.001950, 6.523e-04),
        (0, 1, -0.027097, 1.522e-04),
    ];

    /// The loaded session's runs vary far more than the quiet one's: its noise stays in it, and
    /// B − A, which only the quiet session compares, gets the quiet session's interval.
    #[test]
    fn a_loaded_session_keeps_its_noise_to_itself() {
        let cells: Vec<Cell> = LOADED_THEN_QUIET
            .iter()
            .map(|&(p, j, v, w)| cell(p, j, v, w))
            .collect();
        let f = fit(2, 2, &cells).unwrap();
        // scripts/oracles/crossed.py (numpy's hat matrix, scipy's F and fsolve): both sessions
        // apart (with two, each is the other's rest), τ² 6.682115104950e-03 and
        // 1.271956253647e-05, df 5, levels 0.2436654460 and 0.3546926482, var(μ1 − μ0)
        // 1.505216342078e-04 (one τ² for both: 0.001919513298, and a variance ten times this).
        let apart = f.sessions_apart();
        assert_eq!(apart.len(), 2, "{apart:?}");
        let (loaded, quiet) = (apart[0].1, apart[1].1);
        close(loaded, 6.682115104950e-03, "loaded τ²");
        close(quiet, 1.271956253647e-05, "quiet τ²");
        assert_eq!(f.df(), 5);
        close(f.level(0).unwrap(), 0.2436654460, "level of A");
        close(f.level(1).unwrap(), 0.3546926482, "level of B");
        let v = f.contrast_variance(&[(1, 1.0), (0, -1.0)]).estimation;
        close(v, 1.505216342078e-04, "var(B − A)");
        let d = f.level(1).unwrap() - f.level(0).unwrap();
        // What the quiet session alone says: its A and B cells' weighted means.
        let mean = |p: usize| {
            let (mut sw, mut swy) = (0.0, 0.0);
            for c in cells.iter().filter(|c| c.point == p && c.session == 1) {
                let w = 1.0 / (c.variance + quiet);
                sw += w;
                swy += w * c.value;
            }
            (swy / sw, 1.0 / sw)
        };
        let ((a, va), (b, vb)) = (mean(0), mean(1));
        close(d, b - a, "B − A");
        close(v, va + vb, "its variance");
        assert!(v.sqrt() < 0.015, "B − A ± {}", v.sqrt());
    }

    /// Known truth, two sessions measuring 10 points twice each (0–5 in the first, 4–9 and
    /// point 0 in the second: two runs of a version, or two identical builds), each cell with
    /// its own variance 10⁻⁴ (1% SD), and cells varying beyond it by `taus` (SD) in each
    /// session. Returns, per session, the share of consecutive
    /// differences measured only in it whose 95% t-interval (at the fit's degrees of freedom)
    /// covers the truth, and the share of fits that found a session apart.
    fn two_sessions_coverage(taus: [f64; 2], seed: u64) -> ([f64; 2], f64) {
        use crate::dist::{Quantile, critical_value};
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let own: f64 = 1e-4;
        let noise = Normal::new(0.0, own.sqrt()).unwrap();
        let (mut covered, mut total, mut apart) = ([0usize; 2], [0usize; 2], 0);
        let reps = 600;
        let members: [Vec<usize>; 2] = [(0..6).collect(), (4..10).chain([0]).collect()];
        for _ in 0..reps {
            let truth: Vec<f64> = (0..10).map(|p| 0.02 * p as f64).collect();
            let mut cells = Vec::new();
            for (j, points) in members.iter().enumerate() {
                let extra = Normal::new(0.0, taus[j]).unwrap();
                let shift = if j == 0 { 0.3 } else { -0.1 };
                for &p in points.iter().chain(points) {
                    let e = noise.sample(&mut rng) + extra.sample(&mut rng);
                    cells.push(cell(p, j, truth[p] + shift + e, own));
                }
            }
            let f = fit(10, 2, &cells).unwrap();
            apart += usize::from(!f.sessions_apart().is_empty());
            let t = critical_value(0.95, f.df() as f64, Quantile::StudentT).unwrap();
            // Differences of points measured only in session 0, and only in session 1.
            for (j, pairs) in [(0, [(1, 2), (2, 3)]), (1, [(6, 7), (8, 9)])] {
                for (a, b) in pairs {
                    let d = f.level(b).unwrap() - f.level(a).unwrap();
                    let v = f.contrast_variance(&[(b, 1.0), (a, -1.0)]).estimation;
                    total[j] += 1;
                    if (d - (truth[b] - truth[a])).abs() <= t * v.sqrt() {
                        covered[j] += 1;
                    }
                }
            }
        }
        let share = |j: usize| covered[j] as f64 / total[j] as f64;
        ([share(0), share(1)], apart as f64 / reps as f64)
    }

    /// Sessions that vary alike keep one τ² in at least 90% of fits, and their intervals cover;
    /// a loaded session (τ 8%) beside a quiet one (1%) is found apart, and the intervals of
    /// both cover nearly as asked — with one τ² for both (found apart in none), the loaded
    /// session's covered 79% and the quiet one's 100%.
    #[test]
    fn sessions_apart_cover_the_truth_in_each() {
        let (alike, apart_alike) = two_sessions_coverage([0.02, 0.02], 31);
        let (unlike, apart_unlike) = two_sessions_coverage([0.08, 0.01], 32);
        assert!(
            apart_alike <= 0.1,
            "alike sessions found apart in {apart_alike}"
        );
        for c in alike {
            assert!((0.93..=0.99).contains(&c), "alike: coverage {alike:?}");
        }
        assert!(
            apart_unlike >= 0.85,
            "a loaded session found apart in only {apart_unlike}"
        );
        for c in unlike {
            assert!(
                (0.915..=0.985).contains(&c),
                "loaded, quiet: coverage {unlike:?}"
            );
        }
    }

    /// Two sessions that share no point: two components, each with its own origin; a contrast
    /// across them is confounded and needs σ_s², which two single-session components cannot give.
    #[test]
    fn disconnected_sessions_are_confounded() {
        let cells = [
            cell(0, 0, 0.0, 0.01),
            cell(1, 0, 0.1, 0.01),
            cell(2, 1, 0.5, 0.01),
            cell(3, 1, 0.4, 0.01),
        ];
        let f = fit(4, 2, &cells).unwrap();
        assert_eq!(f.components(), 2);
        assert_eq!(f.session_variance(), None);
        let across = f.contrast_variance(&[(2, 1.0), (1, -1.0)]);
        assert!(across.confounded);
        assert_eq!(across.total(None), None);
        let within = f.contrast_variance(&[(1, 1.0), (0, -1.0)]);
        assert!(!within.confounded);
        assert!((within.total(None).unwrap() - 0.02).abs() < 1e-12);
        // Levels are the cells themselves: one session per component has shift 0.
        assert_eq!(f.level(2), Some(0.5));
    }

    /// Session 0: a (0.0), b (0.2); session 1: b again (0.5), c (0.6), every cell with
    /// `variance`. Shift 1 − 0 = 0.3.
    fn one_anchor(variance: f64) -> [Cell; 4] {
        [
            cell(0, 0, 0.0, variance),
            cell(1, 0, 0.2, variance),
            cell(1, 1, 0.5, variance),
            cell(2, 1, 0.6, variance),
        ]
    }

    /// One anchor connects two sessions: the shift between them is the anchor's difference,
    /// and the contrast of two new versions across the sessions carries the anchor's two cells.
    #[test]
    fn one_anchor_by_hand() {
        let f = fit(3, 2, &one_anchor(0.01)).unwrap();
        assert_eq!(f.df(), 0);
        let (s0, s1) = (f.shift(0).unwrap(), f.shift(1).unwrap());
        assert!((s1 - s0 - 0.3).abs() < 1e-12 && (s0 + s1).abs() < 1e-12);
        // c − a = (0.6 − s1) − (0.0 − s0) = 0.3; its variance: c's and a's cells and the shift
        // (b's two cells): 0.01 + 0.01 + 0.01 + 0.01.
        let d = f.level(2).unwrap() - f.level(0).unwrap();
        assert!((d - 0.3).abs() < 1e-12, "{d}");
        let v = f.contrast_variance(&[(2, 1.0), (0, -1.0)]);
        assert!(!v.confounded);
        assert!((v.estimation - 0.04).abs() < 1e-12, "{}", v.estimation);
    }

    /// The same with cells precise to 10⁻⁶ (weights of 10¹²): the shift's error stays the
    /// cells' own (4·10⁻¹²), not a rounding error of C⁺ many orders larger (found by a test of
    /// tied timings).
    #[test]
    fn precise_cells_keep_a_precise_shift() {
        let f = fit(3, 2, &one_anchor(1e-12)).unwrap();
        let v = f.contrast_variance(&[(2, 1.0), (0, -1.0)]);
        assert!((v.estimation - 4e-12).abs() < 1e-15, "{}", v.estimation);
        // A session of its own with one cell: the level's variance is the cell's, however C's
        // rounding falls (a scaled C⁺ of a 1×1 zero once made it 0).
        for w in [1e-5, 3.7e-7, 9.3e-6] {
            let f = fit(1, 1, &[cell(0, 0, 0.3, w)]).unwrap();
            let v = f.contrast_variance(&[(0, 1.0)]);
            assert!(
                (v.estimation - w).abs() <= 1e-12 * w,
                "{w}: {}",
                v.estimation
            );
        }
    }

    /// Known truth: versions with steps, sessions with shifts of SD 20%, anchors in every
    /// session; the 95% interval of every consecutive difference covers the truth about 95% of
    /// the time, where the unadjusted cells' own intervals cover it far less.
    #[test]
    fn adjusted_differences_cover_the_truth() {
        let mut rng = ChaCha8Rng::seed_from_u64(26);
        let session_sd = Normal::new(0.0, 0.2).unwrap();
        let noise_sd = 0.01;
        let noise = Normal::new(0.0, noise_sd).unwrap();
        let (mut covered, mut total) = (0, 0);
        for _ in 0..300 {
            let truth: Vec<f64> = (0..30).map(|p| if p >= 12 { 0.05 } else { 0.0 }).collect();
            let mut cells = Vec::new();
            let mut session = 0;
            let mut start = 0;
            while start < 30 {
                let end = (start + 10).min(30);
                let shift = session_sd.sample(&mut rng);
                let mut members: Vec<usize> = (start..end).collect();
                if start > 0 {
                    members.push(start - 1);
                    members.push(start / 2);
                }
                for p in members {
                    cells.push(cell(
                        p,
                        session,
                        truth[p] + shift + noise.sample(&mut rng),
                        noise_sd * noise_sd,
                    ));
                }
                session += 1;
                start = end;
            }
            let f = fit(30, session, &cells).unwrap();
            assert_eq!(f.components(), 1);
            for p in 1..30 {
                let d = f.level(p).unwrap() - f.level(p - 1).unwrap();
                let v = f.contrast_variance(&[(p, 1.0), (p - 1, -1.0)]);
                let half = 1.96 * v.total(None).unwrap().sqrt();
                total += 1;
                if (d - (truth[p] - truth[p - 1])).abs() <= half {
                    covered += 1;
                }
            }
        }
        let rate = covered as f64 / total as f64;
        assert!((0.93..=0.97).contains(&rate), "coverage {rate}");
    }

    /// σ_s² from many connected sessions recovers the shifts' variance.
    #[test]
    fn session_variance_is_recovered() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let shifts = Normal::new(0.0, 0.1).unwrap();
        let noise = Normal::new(0.0, 0.01).unwrap();
        let mut estimates = Vec::new();
        for _ in 0..50 {
            let mut cells = Vec::new();
            for j in 0..40 {
                let s = shifts.sample(&mut rng);
                // Every session measures the same three points (anchors) and two of its own.
                for p in [0, 1, 2, 3 + 2 * j, 4 + 2 * j] {
                    cells.push(cell(p, j, s + noise.sample(&mut rng), 1e-4));
                }
            }
            let f = fit(3 + 80, 40, &cells).unwrap();
            estimates.push(f.session_variance().unwrap().value);
        }
        let mean = estimates.iter().sum::<f64>() / estimates.len() as f64;
        assert!((mean - 0.01).abs() < 0.001, "mean σ_s² {mean}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// Shifting every cell of one session by any amount changes no difference between
        /// levels (what the model takes out), and no contrast's variance.
        #[test]
        fn session_shifts_leave_differences_alone(
            values in proptest::collection::vec(-1.0_f64..1.0, 12),
            variances in proptest::collection::vec(1e-4_f64..1e-1, 12),
            session in 0_usize..3,
            shift in -2.0_f64..2.0,
        ) {
            // Six points in three sessions, connected: 0-3 in session 0, 2-5 in 1, 0 and 5 in 2.
            let layout = [(0, 0), (1, 0), (2, 0), (3, 0), (2, 1), (3, 1), (4, 1), (5, 1), (0, 2), (5, 2), (1, 2), (4, 2)];
            let make = |moved: bool| -> Vec<Cell> {
                layout.iter().zip(values.iter().zip(&variances)).map(|(&(p, j), (&v, &w))| {
                    cell(p, j, v + if moved && j == session { shift } else { 0.0 }, w)
                }).collect()
            };
            let (a, b) = (fit(6, 3, &make(false)).unwrap(), fit(6, 3, &make(true)).unwrap());
            for p in 1..6 {
                let da = a.level(p).unwrap() - a.level(0).unwrap();
                let db = b.level(p).unwrap() - b.level(0).unwrap();
                proptest::prop_assert!((da - db).abs() < 1e-7, "{} vs {}", da, db);
                let c = [(p, 1.0), (0, -1.0)];
                let (va, vb) = (a.contrast_variance(&c).estimation, b.contrast_variance(&c).estimation);
                proptest::prop_assert!((va - vb).abs() <= 1e-7 * va.max(1e-12), "{} vs {}", va, vb);
            }
        }
    }

    /// A design like `track run`'s: sessions of `fresh` new points, each re-measuring the newest
    /// point before it and one earlier point (seeded), every session shifted, each cell's
    /// variance log-uniform over `decades` decades from 10⁻⁴ and its noise twice that (so τ² is
    /// searched for). Returns the number of points and the cells.
    fn run_shaped(sessions: usize, fresh: usize, decades: f64, seed: u64) -> (usize, Vec<Cell>) {
        use rand::Rng;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let unit = Normal::new(0.0, 1.0).unwrap();
        let mut cells = Vec::new();
        let mut next = 0;
        for j in 0..sessions {
            let shift = 0.05 * unit.sample(&mut rng);
            let mut measured: Vec<usize> = (next..next + fresh).collect();
            if next > 0 {
                measured.push(next - 1);
                measured.push(rng.gen_range(0..next - 1));
            }
            next += fresh;
            for p in measured {
                let variance = 1e-4 * 10f64.powf(decades * rng.r#gen::<f64>());
                let level = 0.001 * p as f64;
                let noise = (2.0 * variance).sqrt() * unit.sample(&mut rng);
                cells.push(cell(p, j, level + shift + noise, variance));
            }
        }
        (next, cells)
    }

    /// The search for τ² by conjugate gradients finds what the dense solve finds, and so do the
    /// levels, shifts and contrasts fitted at it: over weights of one order of magnitude, and of
    /// ten (where the iteration may give up and the dense solve takes over).
    #[test]
    fn iterative_search_matches_the_dense_one() {
        let sessions = 120.max(2 * ITERATIVE_FROM);
        for (seed, decades) in [(1, 1.0), (2, 1.0), (3, 10.0)] {
            let (points, cells) = run_shaped(sessions, 6, decades, seed);
            let auto = fit_with(points, sessions, &cells, Solver::Auto).unwrap();
            let dense = fit_with(points, sessions, &cells, Solver::Dense).unwrap();
            assert_eq!(auto.components(), 1);
            assert!(dense.cell_variance() > 0.0, "τ² searched for");
            let (a, d) = (auto.cell_variance(), dense.cell_variance());
            assert!((a - d).abs() <= 1e-9 * d, "τ² {a} vs {d} (seed {seed})");
            for p in 0..points {
                let (a, d) = (auto.level(p).unwrap(), dense.level(p).unwrap());
                assert!((a - d).abs() <= 1e-9, "level {p}: {a} vs {d}");
            }
            let s = (
                auto.session_variance().unwrap(),
                dense.session_variance().unwrap(),
            );
            assert!((s.0.value - s.1.value).abs() <= 1e-9 * s.1.value);
            let contrast: Vec<(usize, f64)> = (0..points)
                .map(|p| (p, if p < points / 2 { -1.0 } else { 1.0 } / points as f64))
                .collect();
            let (a, d) = (
                auto.contrast_variance(&contrast).estimation,
                dense.contrast_variance(&contrast).estimation,
            );
            assert!((a - d).abs() <= 1e-9 * d, "contrast {a} vs {d}");
        }
    }

    /// A contrast over many sessions, from the lower triangle in sorted order, is `xᵀ·C⁺·x`.
    #[test]
    fn long_contrasts_are_the_direct_quadratic_form() {
        let (points, cells) = run_shaped(80, 5, 2.0, 4);
        let f = fit(points, 80, &cells).unwrap();
        for (from, to) in [(0, points), (37, 211), (300, 301)] {
            let contrast: Vec<(usize, f64)> = (from..to)
                .rev()
                .map(|p| (p, if p % 3 == 0 { 0.7 } else { -0.2 }))
                .collect();
            let (estimation, origins) = direct(&f, &contrast);
            let got = f.contrast_variance(&contrast);
            close(got.estimation, estimation, "estimation");
            close(got.origins, origins, "origins");
        }
    }

    /// The inverse from a Cholesky factor is the general inverse, for symmetric positive
    /// definite matrices of several sizes and conditions.
    #[test]
    fn symmetric_inverse_is_the_inverse() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let unit = Normal::new(0.0, 1.0).unwrap();
        for (n, ridge) in [(1, 1.0), (2, 0.1), (5, 1e-3), (37, 1.0), (100, 1e-2)] {
            let b = DMatrix::from_fn(n, n, |_, _| unit.sample(&mut rng));
            let a = &b * b.transpose() + DMatrix::identity(n, n) * ridge;
            let want = a.clone().try_inverse().unwrap();
            let got = symmetric_inverse(&a.clone().cholesky().unwrap().unpack());
            let scale = want.amax();
            assert!(
                (&got - &want).amax() <= 1e-9 * scale,
                "n = {n}: off by {}",
                (&got - &want).amax()
            );
            assert_eq!(got, got.transpose());
        }
    }

    #[test]
    fn bad_cells_are_refused() {
        assert!(fit(1, 1, &[cell(0, 0, f64::NAN, 0.0)]).is_err());
        assert!(fit(1, 1, &[cell(0, 0, 1.0, -1.0)]).is_err());
        assert!(fit(1, 1, &[cell(1, 0, 1.0, 0.0)]).is_err());
        let f = fit(2, 1, &[cell(0, 0, 1.0, 0.0)]).unwrap();
        assert_eq!(f.level(1), None);
        assert_eq!(f.level(0), Some(1.0));
    }
}
