#!/usr/bin/env bash
# Benchmarks dive-toolkit's Grep and Glob against ripgrep's `rg` on a large tree
# (default: the cargo registry sources; override with DIVE_BENCH_TREE).
# Installs the Debian package `ripgrep` when `rg` is missing.
set -euo pipefail
if ! command -v rg >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        sudo_cmd=""
        [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
        $sudo_cmd apt-get install -y ripgrep
    else
        echo "rg not found and apt-get unavailable; install ripgrep first" >&2
        exit 1
    fi
fi
rg --version | head -1
cd "$(dirname "$0")/.."
exec cargo bench -p dive-toolkit --bench search -- "$@"
