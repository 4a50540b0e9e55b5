#!/usr/bin/env bash
# Times how long `#[differentiable]` takes on two functions (src/nested_loops.rs, four
# nested loops; src/long_function.rs, 300 lines with no loop), built against the diff
# checkout given as the first argument. Not run by CI. See README.md.
#
#   benches/expansion/run.sh DIFF_CHECKOUT [REPS]
#
# For each function, with and without the attribute (cargo feature `ad`), it reports the
# median over REPS (default 7) of:
#   build   wall time of `touch src/lib.rs; cargo build` (this crate only, its dependencies
#           built once beforehand; CARGO_INCREMENTAL=0, so every rebuild is a full one);
#   expand  rustc's own `expand_crate` time (`-Z time-passes`: macro expansion only). The
#           flag is unstable, so this runs rustc with RUSTC_BOOTSTRAP=1, in a target
#           directory of its own. TIME_PASSES=0 skips it.
# "macro" is the difference with - without the attribute; the last column is the spread
# of the samples with it (a wide one means a busy machine: rerun with more REPS).
#
# Environment: EXPANSION_WORK (default ${TMPDIR:-/tmp}/diff-expansion-bench) holds one
# copy of this crate and its target directories per checkout, reused by later runs.
set -euo pipefail

usage="usage: $0 DIFF_CHECKOUT [REPS]"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
checkout="$(cd "${1:?$usage}" && pwd)"
reps="${2:-7}"
time_passes="${TIME_PASSES:-1}"
if ! grep -q '^name = "diff"$' "$checkout/Cargo.toml" 2>/dev/null; then
    echo "$checkout is not a diff checkout (no package \"diff\" in its Cargo.toml)" >&2
    exit 2
fi
if ! [[ "$reps" =~ ^[1-9][0-9]*$ ]]; then
    echo "$usage" >&2
    exit 2
fi

# A copy of this crate whose `diff` dependency is the checkout, with the checkout's
# Cargo.lock so that both sides of a comparison build the same dependency versions.
key="$(printf '%s' "$checkout" | cksum | cut -d' ' -f1)"
work="${EXPANSION_WORK:-${TMPDIR:-/tmp}/diff-expansion-bench}/$key"
mkdir -p "$work/src"
cp "$here"/src/*.rs "$work/src/"
sed "s|^diff = { path = \"../..\" }$|diff = { path = \"$checkout\" }|" \
    "$here/Cargo.toml" >"$work/Cargo.toml"
grep -q "^diff = { path = \"$checkout\" }$" "$work/Cargo.toml"
if [ -f "$checkout/Cargo.lock" ]; then
    cp "$checkout/Cargo.lock" "$work/Cargo.lock"
fi
cd "$work"
export CARGO_INCREMENTAL=0
unset RUSTC_BOOTSTRAP RUSTFLAGS

now() { # seconds, with microseconds
    if [ -n "${EPOCHREALTIME:-}" ]; then
        echo "${EPOCHREALTIME/,/.}"
    else
        date +%s.%N
    fi
}

median() { # of the numbers given as arguments
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

build() { # features -> wall seconds of a rebuild of this crate
    touch src/lib.rs
    local t0 t1
    t0="$(now)"
    cargo build -q --lib --features "$1"
    t1="$(now)"
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

expand() { # features -> rustc's expand_crate seconds
    touch src/lib.rs
    RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$work/target-time-passes" \
        cargo rustc -q --lib --features "$1" -- -Z time-passes 2>&1 |
        awk '$NF == "expand_crate" { sub(";", "", $2); print $2; found = 1 }
             END { if (!found) exit 1 }'
}

cases=(nested nested,ad long long,ad)
export CARGO_TARGET_DIR="$work/target"

revision="$(git -C "$checkout" rev-parse --short HEAD 2>/dev/null || echo '?')"
if [ -n "$(git -C "$checkout" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    revision="$revision with uncommitted changes"
fi
echo "diff checkout: $checkout ($revision)"
echo "$(rustc --version); $reps repetitions, medians in seconds; work directory $work"

echo "warming up (dependencies, once per checkout) ..." >&2
for f in "${cases[@]}"; do
    cargo build -q --lib --features "$f"
    if [ "$time_passes" = 1 ]; then
        expand "$f" >/dev/null
    fi
done

declare -A b e
for ((r = 1; r <= reps; r++)); do
    echo "repetition $r/$reps" >&2
    for f in "${cases[@]}"; do # interleaved, so that a slow minute hits every case
        b[$f]+=" $(build "$f")"
        if [ "$time_passes" = 1 ]; then
            e[$f]+=" $(expand "$f")"
        fi
    done
done

range() { # min..max of the numbers given as arguments
    printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo ".." hi }'
}

row() { # label measure samples-plain samples-with
    local plain ad
    plain="$(median $3)"
    ad="$(median $4)"
    printf '%-14s %-7s %10.3f %10.3f %10.3f   %s\n' "$1" "$2" "$plain" "$ad" \
        "$(awk -v a="$ad" -v p="$plain" 'BEGIN { print a - p }')" "$(range $4)"
}

printf '%-14s %-7s %10s %10s %10s   %s\n' function measure plain '#[diff..]' macro \
    '#[diff..] min..max'
for f in nested long; do
    label="$([ "$f" = nested ] && echo nested_loops || echo long_function)"
    row "$label" build "${b[$f]}" "${b[$f,ad]}"
    if [ "$time_passes" = 1 ]; then
        row "" expand "${e[$f]}" "${e[$f,ad]}"
    fi
done
