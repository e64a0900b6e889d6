#!/usr/bin/env bash
# Fuzzes the TTIR reader with libFuzzer for SECONDS (default 60).
# Builds build-fuzz (only what the fuzz target needs, with ASan and UBSan),
# seeds a corpus in a temporary directory from tests/ttir/ (and the syntax
# corner cases of tests/fuzz/seeds/), and runs the
# fuzzer with a 10 s per-input timeout and a 2 GB memory limit. On a crash,
# hang, leak or round-trip difference it prints the reproducer, keeps it in
# build-fuzz/reproducers/ and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"

# Debug keeps assertions on; the fuzz flags (-O1 -g) come from CMakeLists.txt.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DTMETAL_FUZZ=ON >/dev/null
ninja -C build-fuzz fuzz_ttir_reader

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
cp tests/ttir/*.ttir tests/fuzz/seeds/*.ttir "$work/corpus/"

# UBSan reports must stop the run like ASan's do.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
status=0
build-fuzz/tests/fuzz/fuzz_ttir_reader "$work/corpus" -dict=tests/fuzz/ttir.dict \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 >"$work/log" 2>&1 || status=$?

if [ "$status" -ne 0 ]; then
  tail -n 80 "$work/log"
  mkdir -p build-fuzz/reproducers
  for artifact in "$work"/artifacts/*; do
    [ -e "$artifact" ] || continue
    kept="build-fuzz/reproducers/$(basename "$artifact")"
    cp "$artifact" "$kept"
    echo "== reproducer $kept ($(wc -c <"$artifact") bytes):"
    cat -v "$artifact" | head -c 4000
    echo
  done
  echo "fuzz: FAILED; reproduce with build-fuzz/tests/fuzz/fuzz_ttir_reader build-fuzz/reproducers/<file>" >&2
  exit 1
fi
grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|Done [0-9]+ runs)" "$work/log" | tail -n 2 || true
echo "fuzz: no failures in ${seconds}s"
