#!/usr/bin/env bash
# Builds the libFuzzer target and fuzzes the JSON reader and every subcommand.
# Usage: Tests/Fuzz/run-fuzz.sh [seconds]   (default 60)
# Crashers land in Tests/Fuzz/artifacts/; copy each into Tests/ReceiptKitTests/FuzzRegressions/
# once fixed, so `swift test` replays it.
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
# `--sanitize=fuzzer`, not `-Xswiftc -sanitize=fuzzer`: the latter builds a binary that silently does not fuzz.
swift build --sanitize=fuzzer --sanitize=address --product receipt-tool-fuzz --scratch-path .build-fuzz
bin="$(swift build --sanitize=fuzzer --sanitize=address --product receipt-tool-fuzz --scratch-path .build-fuzz --show-bin-path)/receipt-tool-fuzz"

work="${FUZZ_WORK:-$root/.build-fuzz/work}"
corpus="$work/corpus"
seeds="$work/seeds"
artifacts="$root/Tests/Fuzz/artifacts"
mkdir -p "$corpus" "$seeds" "$artifacts"
# Seeds: examples, kept regressions, and JSONTestSuite when ../shared is there.
for dir in examples Tests/ReceiptKitTests/FuzzRegressions Tests/ReceiptKitTests/Fixtures ../shared/JSONTestSuite/test_parsing ../shared/peer-fixtures; do
  [ -d "$dir" ] || continue
  find "$dir" -type f \( -name '*.json' -o -name '*.ndjson' -o -name '*.storekit' -o -name '*.bin' \) -size -64k \
    -exec cp -f {} "$seeds/" \; 2>/dev/null || true
done
# Keep a crash quick: no backtracer wait.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
"$bin" "$corpus" "$seeds" \
  -max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-8192}" -timeout=10 -rss_limit_mb=4096 \
  -dict="$root/Tests/Fuzz/json.dict" -artifact_prefix="$artifacts/" -print_final_stats=1
