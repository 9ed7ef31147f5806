# Sourced by the scripts of docs/bench (after `set -euo pipefail`): it moves to the clone's
# root, makes $tmp (removed at exit) and builds $tmp/dedupstream from the working tree.
# field LINE KEY prints the value of KEY=value in a line of `dedupstream bench`'s summary.
root=$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/dedupstream" ./cmd/dedupstream

field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }
