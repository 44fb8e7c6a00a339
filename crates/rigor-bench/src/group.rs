//! [`Group`]: benchmarks named `group/function[/input]` that share settings of their own
//! (criterion's `BenchmarkGroup`), and the settings a group may carry.

use std::fmt::Display;
use std::time::Duration;

use serde::Serialize;

use crate::Throughput;
use crate::harness::Harness;

/// The settings a [`Group`] gives its benchmarks, each `None` when the group leaves it to the
/// command line (or rigor's defaults).
///
/// Only settings that reach the measurement in both modes are offered: under `rigor bench`,
/// `samples` becomes the benchmark's samples per execution (`RIGOR_ITERATIONS`) and `evals` its
/// fixed evaluations per sample (no tuning), and the harness itself applies `warm_up` and
/// `throughput` in every process. criterion's measurement time, sampling mode, noise threshold
/// and confidence and significance levels are not offered: a rigor run's length is executions
/// × samples and its verdicts use one threshold and level for every benchmark (`rigor bench
/// -r N --threshold 2% --confidence 0.99`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct GroupSettings {
    /// Samples per benchmark: standalone, per run; under rigor, per execution.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<usize>,
    /// Evaluations per sample, fixed (not tuned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evals: Option<u64>,
    /// Seconds the routine runs before tuning and sampling, in every process.
    #[serde(rename = "warm_up_s", skip_serializing_if = "Option::is_none")]
    pub warm_up: Option<f64>,
    /// The work of one iteration, unless the benchmark declares its own
    /// ([`Bench::throughput`](crate::Bench::throughput)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput: Option<Throughput>,
}

impl GroupSettings {
    /// The settings given, as the report and notes say them: `20 samples`, `5 evaluations per
    /// sample`, `warm-up 10 ms`, `throughput 4096 bytes`.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(n) = self.samples {
            out.push(format!("{n} sample{}", if n == 1 { "" } else { "s" }));
        }
        if let Some(n) = self.evals {
            out.push(format!(
                "{n} evaluation{} per sample",
                if n == 1 { "" } else { "s" }
            ));
        }
        match self.warm_up {
            Some(s) if s > 0.0 => out.push(format!("warm-up {}", crate::report::time(s * 1e9))),
            Some(_) => out.push("no warm-up".into()),
            None => {}
        }
        match self.throughput {
            Some(Throughput::Bytes(n)) => out.push(format!("throughput {n} bytes")),
            Some(Throughput::Elements(n)) => out.push(format!("throughput {n} elements")),
            None => {}
        }
        out
    }
}

/// Benchmarks registered together under one name, with settings of their own: made by
/// [`Harness::group`], ended by [`finish`](Group::finish) (which gives the harness back).
///
/// ```no_run
/// use std::time::Duration;
/// use rigor_bench::{Harness, Throughput, black_box};
///
/// Harness::new()
///     .group("sort")
///     .samples(20)
///     .warm_up(Duration::from_millis(10))
///     // sort/std/100, sort/std/10000, sort/unstable/100, sort/unstable/10000
///     .bench_with_inputs("std", [100usize, 10_000], |b, &n| {
///         b.throughput(Throughput::Elements(n as u64));
///         b.iter_batched(|| (0..n).rev().collect::<Vec<_>>(), |mut v| { v.sort(); v })
///     })
///     .bench_with_inputs("unstable", [100usize, 10_000], |b, &n| {
///         b.iter_batched(|| (0..n).rev().collect::<Vec<_>>(), |mut v| { v.sort_unstable(); v })
///     })
///     .finish()
///     .bench("fib", |b| b.iter(|| black_box(20u64).pow(2)))
///     .run();
/// ```
///
/// Each benchmark takes the settings given before it is registered, so set them first. A setting given on the command line wins over the group's: the harness's `--samples`,
/// `--evals` and `--warm-up`, and `rigor bench`'s `--iterations` and `--evals` (both say so).
#[must_use = "a group registers nothing until `finish` gives the harness back"]
pub struct Group<'a> {
    harness: Harness<'a>,
    name: String,
    settings: GroupSettings,
    invalid: Vec<String>,
}

impl std::fmt::Debug for Group<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Group")
            .field("name", &self.name)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl<'a> Group<'a> {
    pub(crate) fn new(harness: Harness<'a>, name: String) -> Self {
        Self {
            harness,
            name,
            settings: GroupSettings::default(),
            invalid: Vec::new(),
        }
    }

    /// Samples per benchmark (criterion's `sample_size`): standalone, the samples of the run;
    /// under `rigor bench`, the samples of every execution (unless `--iterations` is given).
    /// At least 1 (the harness refuses 0 when it runs).
    pub fn samples(mut self, n: usize) -> Self {
        if n == 0 {
            self.invalid.push("samples(0): at least 1".into());
        }
        self.settings.samples = Some(n);
        self
    }

    /// Evaluations per sample, fixed rather than tuned (unless `--evals` is given). At least 1.
    pub fn evals(mut self, n: u64) -> Self {
        if n == 0 {
            self.invalid.push("evals(0): at least 1".into());
        }
        self.settings.evals = Some(n);
        self
    }

    /// How long the routine runs before tuning and sampling, in every process (criterion's
    /// `warm_up_time`; unless the harness's `--warm-up` is given). Zero: none.
    pub fn warm_up(mut self, time: Duration) -> Self {
        self.settings.warm_up = Some(time.as_secs_f64());
        self
    }

    /// The work of one iteration of every benchmark of the group that declares none itself.
    pub fn throughput(mut self, throughput: Throughput) -> Self {
        self.settings.throughput = Some(throughput);
        self
    }

    /// Registers the benchmark `group/name`.
    pub fn bench(mut self, name: &str, f: impl Fn(&mut crate::Bench<'_>) + 'a) -> Self {
        self.harness =
            self.harness
                .register(Some(&self.name), name, None, self.settings, Box::new(f));
        self
    }

    /// Registers one benchmark per input, named `group/name/input`: the report of `rigor bench
    /// --report` draws the group's functions against the input.
    pub fn bench_with_inputs<I: Display + 'a>(
        mut self,
        name: &str,
        inputs: impl IntoIterator<Item = I>,
        f: impl Fn(&mut crate::Bench<'_>, &I) + 'a,
    ) -> Self {
        self.harness =
            self.harness
                .register_inputs(Some(&self.name), name, inputs, self.settings, f);
        self
    }

    /// Ends the group and gives the harness back; settings the group cannot take (`samples(0)`)
    /// are refused when the harness runs.
    pub fn finish(self) -> Harness<'a> {
        let mut h = self.harness;
        for message in self.invalid {
            h.refuse(&self.name, message);
        }
        h
    }
}
