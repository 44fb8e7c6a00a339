#!/bin/sh
# Fuzzes one parser with cargo-fuzz (libFuzzer) for SECONDS (default 600), seeding the corpus
# with the repository's real files. Targets: result_json import long_csv plan_toml protocol
# shell_syntax.
#   scripts/fuzz.sh import 600
# Needs: cargo install cargo-fuzz. Runs on the stable toolchain (RUSTC_BOOTSTRAP=1 lets it use
# the sanitizer flags libFuzzer needs). Optimised, with debug assertions and overflow checks
# (-O -a), so that an arithmetic overflow is found as a panic too. A crash is saved under
# fuzz/artifacts/TARGET/ and the exit status is non-zero. The first build takes long (about
# 50 minutes on a loaded 2-core machine; fuzz/target then holds about 1.6 GB).
set -eu
target="${1:?usage: scripts/fuzz.sh TARGET [SECONDS]}"
seconds="${2:-600}"
root="$(cd "$(dirname "$0")/.." && pwd)"
fixtures="$root/crates/rigor/tests/fixtures"            # v1 results, a plan
imports="$root/crates/rigor-store/tests/fixtures/import"  # the importers' fixtures
corpus="$root/fuzz/corpus/$target"
mkdir -p "$corpus"
seed() { cp "$1" "$corpus/seed-$(basename "$1" | tr ' ' _)"; }
case "$target" in
    result_json) for f in "$fixtures"/v1_*.json; do seed "$f"; done ;;
    import)
        # The first byte picks the format; 10 (a newline) means "sniff".
        find "$imports" -type f ! -name '*.md' | while read -r f; do
            { printf '\n'; cat "$f"; } > "$corpus/seed-$(echo "$f" | md5sum | cut -c1-12)"
        done ;;
    long_csv) printf '\004build,exec,iter,value,bench,warmup\n0,0,0,1.5,a,false\n0,1,0,2,b,true\n' > "$corpus/seed-csv" ;;
    plan_toml) seed "$fixtures/plan.toml" ;;
    protocol) printf '{"value": 1.5, "unit": "ms"}\n{"value": 20}\n' > "$corpus/seed-samples" ;;
    shell_syntax)
        printf '%s' 'gzip -c f > /dev/null' > "$corpus/seed-redirect"
        printf '%s' 'echo ${HYPERFINE_ITERATION} >> iter.log' > "$corpus/seed-expansion"
        printf '%s' "sync; echo 3 | sudo tee /proc/sys/vm/drop_caches" > "$corpus/seed-list"
        printf '%s' "grep -i 'a | b' \"c \$d\" \\> e*.rs ~/x LC_ALL=C" > "$corpus/seed-quotes" ;;
    *) echo "unknown target '$target'" >&2; exit 2 ;;
esac
cd "$root/fuzz"
RUSTC_BOOTSTRAP=1 cargo fuzz run -O -a "$target" "$corpus" -- -max_total_time="$seconds" -max_len=65536
