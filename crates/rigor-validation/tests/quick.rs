//! The quick validation as CI runs it: rigor's 95% intervals cover the true mean 93–97% of the
//! time in every quick scenario (≥ 1,000 seeded experiments each, binomial SE ≤ 0.7%), and its
//! A/A false-alarm rate is at most 7%.

#[test]
fn quick_validation_passes() {
    let out = rigor_validation::quick().expect("the quick validation runs");
    for p in &out.passed {
        eprintln!("pass: {p}");
    }
    assert!(!out.passed.is_empty(), "no checks ran");
    assert!(
        out.failures.is_empty(),
        "failed checks:\n{}",
        out.failures.join("\n")
    );
    assert!(out.markdown.contains("## Headline"));
}
