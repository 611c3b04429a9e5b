#!/usr/bin/env bash
# Run every fuzz target in fuzz/ (cargo-fuzz, libFuzzer) for a bounded
# time and print one summary line per target:
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 120 s, all)
#
# Each target starts from its committed seeds (fuzz/seeds/TARGET) plus
# what earlier runs grew (fuzz/corpus/TARGET, not committed); a crashing
# input lands in fuzz/artifacts/TARGET/ and the full log in
# fuzz/target/logs/TARGET.log. Exit status 1 when any target crashed.
#
# Toolchain: cargo-fuzz needs nightly flags (-Zsanitizer=address), and the
# library's build.rs needs the wasm32-wasip2 target to build the guest
# components. By default the pinned toolchain (rust-toolchain.toml, which
# has that target) is used with RUSTC_BOOTSTRAP=1; set FUZZ_TOOLCHAIN to
# a nightly that has wasm32-wasip2 installed to use it instead.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-120}"
[ "$#" -gt 0 ] && shift
all_targets=(typespec names cli_args handler_answers registry_document plugin_accept)
if [ "$#" -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz…"
    cargo install cargo-fuzz --locked
fi

cargo_fuzz=(cargo fuzz)
if [ -n "${FUZZ_TOOLCHAIN:-}" ]; then
    cargo_fuzz=(cargo "+$FUZZ_TOOLCHAIN" fuzz)
else
    export RUSTC_BOOTSTRAP=1
fi

echo "building the fuzz targets (the first build takes a while: wasmtime and Cranelift are instrumented too)…"
"${cargo_fuzz[@]}" build

logs=fuzz/target/logs
mkdir -p "$logs"
failed=0
summary=()
for target in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
    options=(
        "-max_total_time=$seconds"
        -rss_limit_mb=2048
        -malloc_limit_mb=2048
        -timeout=60
        -print_final_stats=1
        "-artifact_prefix=fuzz/artifacts/$target/"
    )
    if [ -f "fuzz/dicts/$target.dict" ]; then
        options+=("-dict=fuzz/dicts/$target.dict")
    fi
    log="$logs/$target.log"
    echo "fuzzing $target for ${seconds}s (log: $log)…"
    started=$(date +%s)
    status=0
    "${cargo_fuzz[@]}" run "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
        "${options[@]}" >"$log" 2>&1 || status=$?
    # libFuzzer's own figures: the final stats and `Done N runs in S
    # second(s)`; when it stopped at a crash, the last `#N` progress line
    # and the wall-clock time of the run.
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [ -z "$runs" ]; then
        runs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    fi
    elapsed=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    if [ -z "$elapsed" ]; then elapsed=$(($(date +%s) - started)); fi
    if [ "$status" -eq 0 ]; then
        result="no crash"
    else
        failed=1
        artifact=$(grep -o 'Test unit written to [^ ]*' "$log" | tail -1 | sed 's/Test unit written to //')
        result="FAILED (exit $status${artifact:+, input: $artifact}) — see $log"
    fi
    summary+=("$(printf '%-18s %12s executions in %4ss: %s' "$target" "${runs:-?}" "$elapsed" "$result")")
done

echo
echo "fuzz summary (${seconds}s per target):"
printf '  %s\n' "${summary[@]}"
exit "$failed"
