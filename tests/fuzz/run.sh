#!/usr/bin/env bash
# The long mode of the random-program tester: TOTAL programs in batches of BATCH, batch k
# with seed SEED+k, each batch one `cargo test -p diff-fuzz` (debug: compiling dominates,
# and debug compiles faster than release). Summarizes programs run, failures (seed and
# index) and programs that did not compile (with rustc's errors).
#
#   tests/fuzz/run.sh [SEED] [TOTAL] [BATCH]      defaults: 1 20000 400
#
# About 0.12 s a program on 2 cores (debug, 400 a batch): 20,000 in about 45 minutes.
#
# A batch that does not compile is rebuilt without the programs rustc's errors point at
# (DIFF_FUZZ_SKIP), so the rest of the batch still runs. Logs go to $DIFF_FUZZ_LOGS
# (default /tmp/diff-fuzz-logs); DIFF_FUZZ_FEATURES is passed through; set
# DIFF_FUZZ_PROFILE=release to run optimized, DIFF_FUZZ_MINUTES=25 to start no batch after
# 25 minutes.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seed=${1:-1}
total=${2:-20000}
batch=${3:-400}
# Its own target directory (no lock shared with other builds), no incremental cache (every
# batch is new code) and no debug info: a third less compile time.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}/fuzz-long
export CARGO_INCREMENTAL=0 CARGO_PROFILE_TEST_DEBUG=0 CARGO_PROFILE_RELEASE_DEBUG=0
logs=${DIFF_FUZZ_LOGS:-/tmp/diff-fuzz-logs}
mkdir -p "$logs"
profile=()
[[ ${DIFF_FUZZ_PROFILE:-debug} == release ]] && profile=(--release)

# The number of test binaries (SHARDS in build.rs).
shards=$(ls tests/fuzz/tests/random_programs*.rs | wc -l)
summary="$logs/summary-$seed.txt"
: >"$summary"
ran=0 passed=0 failed=0 not_compiled=0 crashed=0
start=$(date +%s)
k=0
done_programs=0
minutes=${DIFF_FUZZ_MINUTES:-0}
while ((done_programs < total)); do
    if ((minutes > 0 && $(date +%s) - start >= minutes * 60)); then
        echo "stopping: the time budget of $minutes minutes is spent"
        break
    fi
    s=$((seed + k))
    count=$((total - done_programs < batch ? total - done_programs : batch))
    skip=""
    for attempt in 1 2 3 4 5 6; do
        log="$logs/batch-$s-$attempt.log"
        DIFF_FUZZ_SEED=$s DIFF_FUZZ_COUNT=$count DIFF_FUZZ_SKIP=$skip \
            cargo test "${profile[@]}" --no-fail-fast -p diff-fuzz --tests -- --nocapture >"$log" 2>&1
        if grep -q '^error: could not compile' "$log"; then
            # Which programs rustc's errors point at.
            bad=$(grep -oE 'out/p_[0-9]+\.rs' "$log" | grep -oE '[0-9]+' | sed 's/^0*//; s/^$/0/' | sort -un)
            if [[ -z $bad ]]; then
                echo "seed $s: the batch does not compile and no error points at a program:" | tee -a "$summary"
                grep -E '^error' -A5 "$log" | head -40 | tee -a "$summary"
                not_compiled=$((not_compiled + count))
                break
            fi
            for b in $bad; do
                f=$(printf 'p_%05d.rs' "$b")
                echo "NOT COMPILED seed=$s index=$b:" >>"$summary"
                # The errors whose location is in that program's file.
                awk -v f="$f" '
                    /^(error|warning)/ { if (blk != "" && hit) print blk; blk = $0; hit = 0; next }
                    { blk = blk "\n" $0; if (index($0, f)) hit = 1 }
                    END { if (blk != "" && hit) print blk }' "$log" | grep -v '^warning' | head -30 >>"$summary"
                not_compiled=$((not_compiled + 1))
                echo "seed $s: program $b does not compile"
            done
            skip=$(echo "$skip $bad" | tr ' ' '\n' | grep -v '^$' | sort -un | paste -sd, -)
            continue
        fi
        lines=$(grep -E '^random programs: ' "$log")
        if (($(wc -l <<<"$lines") != shards)) || [[ -z $lines ]]; then
            echo "seed $s: a test binary did not finish (crash?):" | tee -a "$summary"
            tail -20 "$log" | tee -a "$summary"
            crashed=$((crashed + 1))
            break
        fi
        p=$(sed -E 's/^random programs: ([0-9]+) passed, ([0-9]+) failed.*/\1/' <<<"$lines" | awk '{s += $1} END {print s}')
        f=$(sed -E 's/^random programs: ([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$lines" | awk '{s += $1} END {print s}')
        ran=$((ran + p + f))
        passed=$((passed + p))
        failed=$((failed + f))
        grep -E '^FAIL' "$log" | cut -c1-400 >>"$summary"
        echo "seed $s: $p passed, $f failed"
        break
    done
    done_programs=$((done_programs + count))
    k=$((k + 1))
    echo "  [$(($(date +%s) - start)) s] $done_programs of $total generated: $ran run, $failed failed, $not_compiled did not compile"
done
{
    echo
    echo "== $ran programs run in $(($(date +%s) - start)) s (seeds $seed..$((seed + k - 1)), batches of $batch)"
    echo "== $passed passed, $failed failed, $not_compiled did not compile, $crashed batches crashed"
} | tee -a "$summary"
echo "failures and compile errors: $summary; logs: $logs"
((failed + not_compiled + crashed == 0))
