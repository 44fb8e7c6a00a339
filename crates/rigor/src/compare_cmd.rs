//! `rigor compare OLD.json NEW.json`: benchmark-by-benchmark comparison of two saved results.

use anyhow::{Context, Result};
use rigor_report::format::percent;

use crate::cli::CompareArgs;
use crate::comparisons;
use crate::output;
use crate::results::analyze_all;
use crate::settings::analysis_config;

/// Runs `rigor compare`; true when `--fail-on` matched.
pub fn compare(args: &CompareArgs) -> Result<bool> {
    let config = analysis_config(&args.analysis);
    let mut old = rigor_store::load(&args.old)?;
    let mut new = rigor_store::load(&args.new)?;
    let old_analyses = analyze_all(&mut old, &config);
    let new_analyses = analyze_all(&mut new, &config);
    let cs = comparisons::settings(&args.compare, config.level, args.seed);
    let (computed, suite) = comparisons::between(&old, &old_analyses, &new, &new_analyses, &cs)?;
    if args.json {
        let doc = serde_json::json!({
            "old": args.old.display().to_string(),
            "new": args.new.display().to_string(),
            "seed": args.seed,
            "confidence": config.level,
            "comparisons": comparisons::records(&computed),
            "suite": suite,
        });
        output::emit(&(serde_json::to_string_pretty(&doc).context("rendering JSON")? + "\n"));
    } else {
        output::emit(&comparisons::render(&computed));
        if let Some(s) = &suite {
            output::emit(&format!(
                "Suite: geometric mean of {} ratios {:.4} ({}% CI {:.4} .. {:.4}), i.e. {} {}; bootstrap seed {}\n",
                s.benchmarks,
                s.geometric_mean_ratio,
                (s.ci.level * 100.0).round(),
                s.ci.lower,
                s.ci.upper,
                percent(100.0 * (s.geometric_mean_ratio - 1.0).abs()),
                if s.geometric_mean_ratio >= 1.0 {
                    "slower"
                } else {
                    "faster"
                },
                args.seed
            ));
        }
    }
    if let Some(path) = &args.export_markdown {
        rigor_store::write_atomic(path, comparisons::markdown(&computed).as_bytes())?;
    }
    Ok(comparisons::gate(&computed, args.compare.fail_on))
}
