#!/usr/bin/env bash
# Fuzzes tmetal's handling of user input with libFuzzer, SECONDS (default
# 60) each: the TTIR reader (`ttir`), the code generator on every module the
# reader and verifier accept (`compile`), the ops-JSON reader with the
# analysis behind `tmetal analyze` (`ops`), and the .npy reader (`npy`); name
# targets after SECONDS to run only those. Builds build-fuzz (only what the
# fuzz targets need, with ASan and UBSan), seeds each corpus in a temporary
# directory (ttir and compile: tests/ttir/ and tests/fuzz/seeds/; ops:
# tests/fuzz/seeds_ops/ and the analyzer's golden inputs; npy:
# tests/fuzz/seeds_npy/), and runs each fuzzer with a 10 s per-input timeout
# and a 2 GB memory limit. On a crash, hang, leak, failed round trip or
# unexpected exception it prints the reproducer, keeps it in
# build-fuzz/reproducers/ and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(ttir compile ops npy)

# Debug keeps assertions on; the fuzz flags (-O1 -g) come from CMakeLists.txt.
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DTMETAL_FUZZ=ON >/dev/null

# UBSan reports must stop the run like ASan's do.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fuzz() {
  local name="$1" binary="$2" max_len="$3"
  shift 3
  ninja -C build-fuzz "$binary"
  mkdir -p "$work/$name/corpus" "$work/$name/artifacts"
  cp "$@" "$work/$name/corpus/"
  local dict=()
  case "$name" in ttir | compile) dict=(-dict=tests/fuzz/ttir.dict) ;; esac
  local status=0
  "build-fuzz/tests/fuzz/$binary" "$work/$name/corpus" "${dict[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
    -artifact_prefix="$work/$name/artifacts/" -print_final_stats=1 >"$work/$name/log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    tail -n 80 "$work/$name/log"
    mkdir -p build-fuzz/reproducers
    for artifact in "$work/$name"/artifacts/*; do
      [ -e "$artifact" ] || continue
      kept="build-fuzz/reproducers/$name-$(basename "$artifact")"
      cp "$artifact" "$kept"
      echo "== reproducer $kept ($(wc -c <"$artifact") bytes):"
      cat -v "$artifact" | head -c 4000
      echo
    done
    echo "fuzz $name: FAILED; reproduce with build-fuzz/tests/fuzz/$binary build-fuzz/reproducers/<file>" >&2
    exit 1
  fi
  grep -E "^(#[0-9]+ *DONE|stat::number_of_executed_units|Done [0-9]+ runs)" "$work/$name/log" | tail -n 2 || true
  echo "fuzz $name: no failures in ${seconds}s"
}

for target in "${targets[@]}"; do
  case "$target" in
    ttir) fuzz ttir fuzz_ttir_reader 65536 tests/ttir/*.ttir tests/fuzz/seeds/*.ttir ;;
    compile) fuzz compile fuzz_ttir_compile 65536 tests/ttir/*.ttir tests/fuzz/seeds/*.ttir ;;
    ops) fuzz ops fuzz_ops_json 4096 tests/fuzz/seeds_ops/*.json tests/golden/sample_ops.json tests/golden/bad_ops.json ;;
    npy) fuzz npy fuzz_npy 4096 tests/fuzz/seeds_npy/*.npy ;;
    *) echo "fuzz.sh: unknown target '$target' (ttir, compile, ops or npy)" >&2; exit 2 ;;
  esac
done
