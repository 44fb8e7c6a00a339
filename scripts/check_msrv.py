#!/usr/bin/env python3
"""Checks the minimum supported Rust version (MSRV) without installing another toolchain.

The machines that build rigor have one Rust toolchain, so CI cannot compile with the MSRV itself.
What it can check: every package in the locked dependency graph declares a `rust-version` no newer
than the workspace's (cargo's MSRV-aware resolver picks such versions; this catches a lock file
that drifted), and clippy's `incompatible_msrv` lint (run by CI with -D warnings) rejects standard
library items stabilised after the workspace's `rust-version`.
"""

import json
import subprocess
import sys


def version(text):
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def main():
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    members = set(meta["workspace_members"])
    ours = {p["rust_version"] for p in meta["packages"] if p["id"] in members}
    if len(ours) != 1 or None in ours:
        print(f"MSRV: workspace members declare {sorted(map(str, ours))}; expected one rust-version")
        return 1
    msrv = ours.pop()
    resolved = {n["id"] for n in meta["resolve"]["nodes"]}
    too_new = [
        f'{p["name"]} {p["version"]} needs Rust {p["rust_version"]}'
        for p in meta["packages"]
        if p["id"] in resolved
        and p.get("rust_version")
        and version(p["rust_version"]) > version(msrv)
    ]
    if too_new:
        print(f"MSRV {msrv}: dependencies need a newer Rust:")
        print("\n".join("  " + t for t in sorted(too_new)))
        return 1
    print(f"MSRV {msrv}: all {len(resolved)} packages in the lock file declare it or older")
    return 0


if __name__ == "__main__":
    sys.exit(main())
