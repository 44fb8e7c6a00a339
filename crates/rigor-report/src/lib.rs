//! Reporting for rigor: terminal, Markdown and self-contained HTML views of analysed results.
//!
//! Reporters consume analysis data structures and never compute statistics.

pub mod across;
pub mod adaptive;
pub mod comparison;
pub mod dashboard;
pub mod decided;
pub mod diagnosis;
pub mod escape;
pub mod farm;
pub mod format;
pub mod html;
pub mod markdown;
pub mod notes;
pub mod plan;
pub mod runs;
pub mod terminal;
pub mod track;
pub mod track_lines;
pub mod track_run;
pub mod warnings;

pub use terminal::{BenchmarkView, StatisticView, render};
