#!/usr/bin/env bash
# The main job, end to end, on a throw-away home with the embedded SQLite
# registry: add the example plugin, register the plugin-backed type, register
# a resource whose handler discovers its children, and look at the result.
set -euo pipefail
cd "$(dirname "$0")/.."

# rustup adds rust-toolchain.toml's targets only when it installs the
# toolchain: a machine that had the pinned toolchain already lacks the
# plugins' target until it is added.
if command -v rustup >/dev/null 2>&1 &&
        ! rustup target list --installed 2>/dev/null | grep -qx wasm32-wasip2; then
    echo "adding the wasm32-wasip2 target the plugins are built for (rustup target add wasm32-wasip2)…"
    rustup target add wasm32-wasip2
fi

echo "building agents and the plugins/ components (the first build takes a few minutes)…"
cargo build --quiet --bin agents
agents_bin="${CARGO_TARGET_DIR:-target}/debug/agents"
wasm="plugins/target/wasm32-wasip2/release/python_package.wasm"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
home="$work/home"

bold='' plain=''
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; fi
agents() {
    printf '\n%s$ agents %s%s\n' "$bold" "$*" "$plain"
    "$agents_bin" --home "$home" "$@"
}

# A small Python package and a git checkout to register.
pkg="$work/repo/acme-tools"
mkdir -p "$pkg/src/acme" "$pkg/src/acme_cli" "$pkg/docs"
printf '[project]\nname = "acme-tools"\nversion = "2.4.1"\n' > "$pkg/pyproject.toml"
touch "$pkg/src/acme/__init__.py" "$pkg/src/acme_cli/__init__.py"
git -C "$work/repo" init -q -b main
git -C "$work/repo" -c user.name=demo -c user.email=demo@example.com add -A
git -C "$work/repo" -c user.name=demo -c user.email=demo@example.com commit -q -m init

agents resource type list --namespace builtin
agents plugin add "$wasm"
agents resource type add plugins/examples/python-package/python-package.yaml
agents resource add myteam/python-package local/acme --path "$pkg"
agents resource tree local/acme
agents resource show local/acme
agents resource inspect local/acme
agents resource add git-checkout local/repo --path "$work/repo" --branch main
agents resource link-child local/repo local/acme
agents resource tree local/repo
agents resource inspect local/repo
agents resource inspect --file acme-tools/pyproject.toml local/repo
agents resource list

# A sandbox of the package (its type says copy_on_write): change it,
# checkpoint, change more, roll back, see what differs from the original.
sandbox=$("$agents_bin" --home "$home" sandbox create local/acme -o json |
    sed -n 's/.*"sandbox_id":"\([0-9A-Z]*\)".*/\1/p')
workdir=$("$agents_bin" --home "$home" sandbox show "$sandbox" -o json |
    sed -n 's/.*"workdir":"\([^"]*\)".*/\1/p')
printf '\n(the sandbox %s works in %s)\n' "$sandbox" "$workdir"
echo '"""The acme CLI."""' > "$workdir/src/acme_cli/__init__.py"
agents sandbox checkpoint "$sandbox" --label docstring
rm -r "$workdir/docs"
agents sandbox diff "$sandbox"
agents sandbox rollback "$sandbox" docstring
agents sandbox diff "$sandbox"
agents resource remove --dry-run local/acme
agents sandbox destroy "$sandbox"
printf '\nregistry: %s (removed on exit)\n' "$home/registry.db"
