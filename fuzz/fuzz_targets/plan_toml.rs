//! Plan files, and what a run asks of a parsed plan.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigor_app::plan_file::PlanFile;
use rigor_store::LevelKind;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = PlanFile::parse(std::path::Path::new("p.toml"), text) {
        for b in &p.benchmark {
            for level in [LevelKind::Build, LevelKind::Execution, LevelKind::Iteration] {
                let _ = b.count(level);
            }
            if let Some(one) = rigor_units::Fraction::percent(1.0) {
                let _ = b.top_units_for(one, p.confidence, rigor_stats::Quantile::StudentT);
            }
        }
    }
});
