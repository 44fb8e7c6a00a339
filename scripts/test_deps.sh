#!/bin/sh
# Installs what the PostgreSQL and browser tests need and the tests never install themselves:
# Debian's `postgresql` (the tests start their own throw-away server from its initdb and pg_ctl,
# listening on 127.0.0.1; see crates/rigor-pgtest) and `chromium` (headless, for the browser
# checks crates/rigor-report/tests/browser/check_report.py and
# crates/rigor-app/tests/browser/check_dashboard.py, which html_browser.rs, report.rs and
# dashboard_browser.rs run).
#
#   scripts/test_deps.sh            # as root, or through sudo when it is there
#
# Idempotent: what is installed already is left alone, and nothing is fetched then. .ci/run
# calls it before the tests; with CI=true the tests fail, naming this script, when a server or
# the browser is missing. Debian (and derivatives) only: apt-get.
set -eu

# What each package must provide, as the tests look for it.
have_postgresql() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }
have_chromium() { [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; }

missing=""
have_postgresql || missing="$missing postgresql"
have_chromium || missing="$missing chromium"
if [ -z "$missing" ]; then
    echo "test dependencies present: postgresql $(ls /usr/lib/postgresql | paste -sd ' ' -), chromium"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "scripts/test_deps.sh: missing:$missing, and there is no apt-get (Debian's packages are" >&2
    echo "what the tests use: install the equivalents by hand)" >&2
    exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1; then
    as_root="sudo"
else
    echo "scripts/test_deps.sh: missing:$missing; installing needs root (or sudo)" >&2
    exit 1
fi

echo "installing Debian's$missing for the PostgreSQL and browser tests"
export DEBIAN_FRONTEND=noninteractive
# Wait for another apt-get or dpkg (up to 10 minutes) instead of failing on its lock.
apt="apt-get -q -o DPkg::Lock::Timeout=600"
# shellcheck disable=SC2086 # word splitting of $as_root, $apt and $missing is wanted
$as_root env DEBIAN_FRONTEND=noninteractive $apt update
# The same installs the tests made themselves before: postgresql without its recommends,
# chromium with them (its fonts).
if ! have_postgresql; then
    # shellcheck disable=SC2086
    $as_root env DEBIAN_FRONTEND=noninteractive $apt install -y --no-install-recommends postgresql
fi
if ! have_chromium; then
    # shellcheck disable=SC2086
    $as_root env DEBIAN_FRONTEND=noninteractive $apt install -y chromium
fi

have_postgresql || { echo "scripts/test_deps.sh: no /usr/lib/postgresql/*/bin/initdb after installing" >&2; exit 1; }
have_chromium || { echo "scripts/test_deps.sh: no chromium after installing" >&2; exit 1; }
echo "test dependencies installed"
