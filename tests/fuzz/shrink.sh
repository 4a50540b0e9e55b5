#!/usr/bin/env bash
# Shrinks one failing random program: deletes statements, unwraps `if`s, loops and blocks
# into their first body, replaces stored values by one read and leaves out helpers, as long
# as the program still fails the same way, and prints the smallest program found.
#
#   tests/fuzz/shrink.sh SEED INDEX [PATTERN]
#
# PATTERN (an extended regex) is what the output of `cargo test` must still contain; by
# default the first rustc error code of the original failure (`error\[E0282\]`) if it did
# not compile, otherwise the first mismatch kind of its FAIL line (e.g.
# `value_with_gradient d/d`). DIFF_FUZZ_FEATURES is passed through (use the failing run's).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seed=${1:?usage: shrink.sh SEED INDEX [PATTERN]}
index=${2:?usage: shrink.sh SEED INDEX [PATTERN]}
pattern=${3:-}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}/fuzz-shrink
export CARGO_PROFILE_TEST_DEBUG=0
export DIFF_FUZZ_SEED=$seed DIFF_FUZZ_ONLY=$index
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tries=0

# run DROP UNWRAP [DROP_FNS [SIMPLIFY]]: runs the program with those edits; output in
# $work/out.
run() {
    tries=$((tries + 1))
    DIFF_FUZZ_DROP=$1 DIFF_FUZZ_UNWRAP=$2 DIFF_FUZZ_DROP_FNS=${3:-} DIFF_FUZZ_SIMPLIFY=${4:-} timeout 120 \
        cargo test -p diff-fuzz --test random_programs -- --nocapture >"$work/out" 2>&1
}

join() { local IFS=,; echo "$*"; }

run "" ""
if [[ -z $pattern ]]; then
    code=$(grep -oE '^error\[E[0-9]+\]' "$work/out" | head -1)
    if [[ -n $code ]]; then
        pattern=$(sed 's/\[/\\[/; s/\]/\\]/' <<<"$code")
    elif grep -q '^FAIL' "$work/out"; then
        pattern=$(grep -m1 '^FAIL' "$work/out" |
            grep -oE '(oracle value|value_with_gradient value|value_with_gradient d/d|value_with_differential \(input [0-9]+\) value|value_with_differential d/d|value_with_derivative \(input [0-9]+\) value|value_with_derivative d/d|panicked)' | head -1)
    fi
fi
if [[ -z $pattern ]] || ! grep -qE "$pattern" "$work/out"; then
    echo "program $index of seed $seed does not fail (pattern '${pattern}'):" >&2
    tail -20 "$work/out" >&2
    exit 1
fi
total=$(grep -oE 'program [0-9]+ of seed [0-9]+: [0-9]+ statements' "$work/out" | head -1 | grep -oE '[0-9]+ statements' | grep -oE '[0-9]+')
helpers=$(grep -oE 'statements; helpers [A-Za-z0-9_,]*' "$work/out" | head -1 | sed 's/.*helpers //; s/,/ /g')
compound=$(grep -oE 'compound [0-9,]*' "$work/out" | head -1 | sed 's/compound //; s/,/ /g')
simple=$(grep -oE 'simple [0-9,]*' "$work/out" | head -1 | sed 's/simple //; s/,/ /g')
reversed() { tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -rn; }
# The rustc error codes of the original: a candidate with other errors is broken, not
# smaller (a dropped `let` whose name is still read, ...).
codes=$(grep -oE '^error\[E[0-9]+\]' "$work/out" | sort -u)
echo "shrinking program $index of seed $seed ($total statements), keeping /$pattern/" >&2

dropped=()
unwrapped=()
fns=()
simplified=()
interesting() {
    run "$(join "${dropped[@]}" "$@")" "$(join "${unwrapped[@]}")" "$(join "${fns[@]}")" "$(join "${simplified[@]}")"
    grep -qE "$pattern" "$work/out" || return 1
    local c
    for c in $(grep -oE '^error\[E[0-9]+\]' "$work/out" | sort -u); do
        grep -qxF "$c" <<<"$codes" || return 1
    done
}
is_dropped() {
    local d
    for d in "${dropped[@]}"; do [[ $d == "$1" ]] && return 0; done
    return 1
}

# Chunks of decreasing size, from the end of the program (uses before definitions).
chunk=$(((total + 1) / 2))
while ((chunk >= 1)); do
    hi=$total
    while ((hi > 0)); do
        lo=$((hi - chunk))
        ((lo < 0)) && lo=0
        cand=()
        for ((i = hi - 1; i >= lo; i--)); do is_dropped "$i" || cand+=("$i"); done
        if ((${#cand[@]} > 0)) && interesting "${cand[@]}"; then
            dropped+=("${cand[@]}")
            echo "  dropped ${cand[*]}" >&2
        fi
        hi=$lo
    done
    chunk=$((chunk / 2))
done
# Unwrap what is left, one at a time.
for i in $(reversed "$compound"); do
    is_dropped "$i" && continue
    unwrapped+=("$i")
    if interesting; then
        echo "  unwrapped $i" >&2
    else
        unset 'unwrapped[${#unwrapped[@]}-1]'
    fi
done
# A last pass of single drops.
for ((i = total - 1; i >= 0; i--)); do
    is_dropped "$i" && continue
    if interesting "$i"; then
        dropped+=("$i")
        echo "  dropped $i" >&2
    fi
done

# Stored values replaced by one read.
for i in $(reversed "$simple"); do
    is_dropped "$i" && continue
    simplified+=("$i")
    if interesting; then
        echo "  simplified $i" >&2
    else
        unset 'simplified[${#simplified[@]}-1]'
    fi
done
# Helpers nothing calls any more.
for h in $helpers; do
    fns+=("$h")
    if interesting; then
        echo "  left out $h" >&2
    else
        unset 'fns[${#fns[@]}-1]'
    fi
done

run "$(join "${dropped[@]}")" "$(join "${unwrapped[@]}")" "$(join "${fns[@]}")" "$(join "${simplified[@]}")"
echo "after $tries runs: DIFF_FUZZ_SEED=$seed DIFF_FUZZ_ONLY=$index DIFF_FUZZ_DROP=$(join "${dropped[@]}") DIFF_FUZZ_UNWRAP=$(join "${unwrapped[@]}") DIFF_FUZZ_DROP_FNS=$(join "${fns[@]}") DIFF_FUZZ_SIMPLIFY=$(join "${simplified[@]}")"
src=$(ls "$CARGO_TARGET_DIR"/debug/build/diff-fuzz-*/out/p_"$(printf %05d "$index")".rs 2>/dev/null | head -1)
if [[ -n $src ]]; then
    awk '/^pub const SOURCE/{p=1; sub(/^pub const SOURCE: &str = r#"/, "")} p && /^"#;/{exit} p' "$src"
fi
grep -E '^FAIL|^error' "$work/out" | head -5
