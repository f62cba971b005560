#!/usr/bin/env bash
# Builds the libFuzzer target and fuzzes the JSON reader, the catalog loader, every subcommand, the crypto
# reader (DER, X.509, the JWS verifier's header path) and the backing path (a verifyReceipt body whose
# latest_receipt is the examples' signed receipt mutated by the input, its transactions edited by the input).
# Usage: Tests/Fuzz/run-fuzz.sh [seconds]   (default 60)
# Exits non-zero when libFuzzer finds a crash, a hang, a leak of memory limits or a broken property.
# Findings land in Tests/Fuzz/artifacts/; once fixed, copy each into Tests/Fuzz/Regressions/
# so `swift test` replays it.
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
work="${FUZZ_WORK:-$root/.build-fuzz/work}"
corpus="$work/corpus"
seeds="$work/seeds"
artifacts="$root/Tests/Fuzz/artifacts"
mkdir -p "$corpus" "$seeds" "$artifacts"

# Debug build. On Swift 6.3.1 `--sanitize=fuzzer --sanitize=address` hands the compiler two -sanitize= flags and only the last
# counts: the code gets AddressSanitizer but no coverage counters, and libFuzzer runs blind ("no interesting
# inputs ... Is the code instrumented for coverage?"). One combined flag gives both; `--sanitize=fuzzer` is still
# needed so that SwiftPM builds the target as a fuzzer (without it, the binary does not fuzz at all).
scratch="$root/.build-fuzz/build"
build=(swift build --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address --product receipt-tool-fuzz --scratch-path "$scratch")
if ! "${build[@]}" >"$work/build.log" 2>&1; then
  grep -v "Cannot export" "$work/build.log" >&2
  exit 1
fi
bin="$("${build[@]}" --show-bin-path)/receipt-tool-fuzz"

# Seeds: examples, kept regressions and test fixtures, and JSONTestSuite and peer fixtures when ../shared is there.
for dir in examples Tests/Fuzz/Regressions Tests/EndToEndTests/Fixtures Tests/ReceiptCryptoTests/Fixtures/chains ../shared/JSONTestSuite/test_parsing ../shared/peer-fixtures; do
  [ -d "$dir" ] || continue
  find "$dir" -type f ! -name '*.md' -size -64k -exec cp -f {} "$seeds/" \;
done

# No backtracer wait: a crash ends at once. Leak checking is off: the tool is short-lived by design.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
# A blind fuzzer finds little: refuse to run one.
mkdir -p "$work/empty"
probe="$("$bin" -runs=1 "$work/empty" 2>&1 || true)"
if [[ $probe != *"inline 8-bit counters"* ]]; then
  echo "run-fuzz.sh: $bin is not instrumented for coverage" >&2
  exit 1
fi
# libFuzzer takes one dictionary: the JSON tokens and the DER/X.509/JWS-header ones joined.
cat "$root/Tests/Fuzz/json.dict" "$root/Tests/Fuzz/der.dict" >"$work/all.dict"
"$bin" "$corpus" "$seeds" \
  -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-8192}" -timeout=10 -rss_limit_mb=4096 \
  -dict="$work/all.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
  2>&1 | grep --line-buffered -v "Cannot export"
