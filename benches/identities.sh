#!/usr/bin/env bash
# What file identities cost on a big checkout (README, Equivalence): a
# repository of 10,000 files (100 directories of 100), registered as a
# checkout, both sides explored, then an unrelated small registration on
# that home against the same on an empty one. Whole process, release build:
#   cargo build --release && benches/identities.sh
set -euo pipefail
A=${AGENTS:-$(cd "$(dirname "$0")/.." && pwd)/target/release/agents}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT; cd "$T"
git init -q -b main big
for d in $(seq -w 0 99); do mkdir big/d$d; for f in $(seq -w 0 99); do echo "$d $f" > big/d$d/f$f.txt; done; done
git -C big add -A >/dev/null; git -C big -c user.name=t -c user.email=t@e commit -qm big
mkdir small small2 small3 small4
t() { local s=$(date +%s.%N); "$@" >/dev/null; echo "$(echo "$(date +%s.%N) - $s" | bc)"; }
export AGENTS_HOME=$T/home-empty
echo "small add, empty home: $(t $A resource add fs-directory local/s1 --path small) s"
echo "small add, empty home: $(t $A resource add fs-directory local/s2 --path small2) s"
export AGENTS_HOME=$T/home
echo "checkout add: $(t $A resource add git-checkout local/big --path big) s"
echo "discover worktree recursive: $(t $A resource discover --recursive local/big/worktree) s"
echo "discover branch recursive (forms identities): $(t $A resource discover --recursive local/big/git/branch/main) s"
echo "identities: file $($A resource list --type file -o json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'), directory $($A resource list --type directory -o json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
echo "refresh unchanged: $(t $A resource refresh) s"
echo "small add, home with identities: $(t $A resource add fs-directory local/s1 --path small3) s"
echo "small add, home with identities: $(t $A resource add fs-directory local/s2 --path small4) s"
mkdir small5; echo x > small5/a
echo "small add of a directory holding a file (writes fs-file), home with identities: $(t $A resource add fs-directory local/s3 --path small5) s"
