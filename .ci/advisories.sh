#!/usr/bin/env bash
# RustSec advisories for the crates in Cargo.lock, with cargo-deny.
#
#   .ci/advisories.sh check              the live database when GitHub can be
#                                        reached; else the snapshot kept in
#                                        .ci/advisory-db (its date is printed)
#   .ci/advisories.sh refresh CHECKOUT   rewrite that snapshot from a checkout
#                                        of github.com/rustsec/advisory-db: the
#                                        advisories of every crate in
#                                        Cargo.lock, and the list of those
#                                        crates
#
# The snapshot holds only our crates' advisories; `check` fails if Cargo.lock
# names a crate the snapshot was not made for, so a new dependency cannot
# slip past it: run `refresh` then.
set -euo pipefail
cd "$(dirname "$0")/.."
SNAP=.ci/advisory-db
# The crates that come from a registry: the workspace's own crates (no
# `source` line in Cargo.lock) have no advisories to look up.
crates() {
    awk '/^\[\[package\]\]/ { name = "" }
         /^name = / { gsub(/"/, "", $3); name = $3 }
         /^source = "registry\+/ { print name }' Cargo.lock | sort -u
}

case "${1:-check}" in
refresh)
    SRC=${2:?"usage: $0 refresh CHECKOUT"}
    rm -rf "$SNAP/crates"
    mkdir -p "$SNAP/crates"
    crates > "$SNAP/crates.txt"
    while read -r c; do
        if [ -d "$SRC/crates/$c" ]; then cp -r "$SRC/crates/$c" "$SNAP/crates/"; fi
    done < "$SNAP/crates.txt"
    cp "$SRC/LICENSE.txt" "$SNAP/LICENSE.txt"
    printf 'commit %s\ndate %s\n' "$(git -C "$SRC" rev-parse HEAD)" \
        "$(git -C "$SRC" log -1 --format=%cI)" > "$SNAP/SNAPSHOT"
    echo "advisory snapshot: $(ls "$SNAP/crates" | wc -l) crates with advisories, of $(wc -l < "$SNAP/crates.txt")"
    ;;
check)
    if git ls-remote --exit-code https://github.com/rustsec/advisory-db HEAD >/dev/null 2>&1; then
        cargo deny --log-level error check advisories
        exit
    fi
    missing=$(comm -23 <(crates) "$SNAP/crates.txt")
    if [ -n "$missing" ]; then
        echo "advisories: Cargo.lock has crates the snapshot was not made for: $missing" >&2
        echo "advisories: refresh it: .ci/advisories.sh refresh CHECKOUT" >&2
        exit 1
    fi
    # cargo-deny reads its database from a git checkout, named after the
    # database's address, under db-path.
    ROOT=$(mktemp -d)
    DB="$ROOT/advisory-db-3157b0e258782691"
    mkdir -p "$DB"
    cp -r "$SNAP/crates" "$DB/"
    git -C "$DB" init -q
    git -C "$DB" add -A
    date=$(sed -n 's/^date //p' "$SNAP/SNAPSHOT")
    GIT_COMMITTER_DATE="$date" GIT_AUTHOR_DATE="$date" git -C "$DB" \
        -c user.name=ci -c user.email=ci@localhost commit -q -m snapshot
    sed "s|^\[advisories\]|[advisories]\ndb-path = \"$ROOT\"|" deny.toml > "$ROOT/deny.toml"
    echo "advisories: GitHub cannot be reached; checking against the snapshot of $date ($SNAP)"
    cargo deny --log-level error --offline --config "$ROOT/deny.toml" check advisories
    rm -rf "$ROOT"
    ;;
*)
    echo "usage: $0 check | refresh CHECKOUT" >&2
    exit 64
    ;;
esac
