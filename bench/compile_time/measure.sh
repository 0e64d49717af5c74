#!/usr/bin/env bash
# Compile time of the FLUX pack/unpack chains (static and dynamic extents, evaluated into a new
# tensor) with lazyview, Eigen Tensor and xtensor: `$CXX -std=c++20 -O2 -c FILE -I include`,
# wall-clock median of N runs (default 5), one compile at a time. lazyview's FLUX file is measured
# twice: header-only, and with LAZYVIEW_SEPARATE_ENGINE, where one more TU compiles the engine
# for all of a program's TUs (eval/engine_entry.hpp).
#
#   bench/compile_time/measure.sh [--markdown] [--runs N]
#
# Environment: CXX (default g++). Skips a peer whose headers are not installed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cxx="${CXX:-g++}"
runs=5
markdown=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --markdown) markdown=1 ;;
    --runs) runs="$2"; shift ;;
    *) echo "usage: $0 [--markdown] [--runs N]" >&2; exit 2 ;;
  esac
  shift
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# A TU that only includes lazyview: how much of the time is the header itself.
printf '#include <lazyview/lazyview.hpp>\n' > "$tmp/lazyview_include_only.cpp"
# The engine compiled once (include/lazyview/eval/engine_entry.hpp): the one TU that holds it.
printf '#define LAZYVIEW_ENGINE_IMPLEMENTATION\n#include <lazyview/lazyview.hpp>\n' > "$tmp/lazyview_engine.cpp"

eigen_inc=""
for d in /usr/include/eigen3 /usr/local/include/eigen3; do
  [[ -f "$d/unsupported/Eigen/CXX11/Tensor" ]] && { eigen_inc="$d"; break; }
done
have_xtensor=0
echo '#include <xtensor/xtensor.hpp>' | "$cxx" -std=c++20 -fsyntax-only -x c++ - 2>/dev/null && have_xtensor=1

# name|file|extra flags
cases=("lazyview (include only)|$tmp/lazyview_include_only.cpp|"
       "lazyview FLUX pack+unpack, static+dynamic|$here/flux_lazyview.cpp|"
       "the same, with LAZYVIEW_SEPARATE_ENGINE|$here/flux_lazyview.cpp|-DLAZYVIEW_SEPARATE_ENGINE"
       "lazyview's engine, compiled once for all such TUs|$tmp/lazyview_engine.cpp|-DLAZYVIEW_SEPARATE_ENGINE")
if [[ -n "$eigen_inc" ]]; then
  cases+=("Eigen Tensor FLUX pack+unpack, static+dynamic|$here/flux_eigen.cpp|-I $eigen_inc")
else
  echo "measure.sh: Eigen3 Tensor headers not found, skipping Eigen" >&2
fi
if [[ $have_xtensor == 1 ]]; then
  cases+=("xtensor FLUX pack+unpack, static+dynamic|$here/flux_xtensor.cpp|")
else
  echo "measure.sh: xtensor headers not found, skipping xtensor" >&2
fi

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

compiler="$("$cxx" --version | head -n1)"
if [[ $markdown == 1 ]]; then
  echo "\`$cxx -std=c++20 -O2 -c FILE -I include\` ($compiler), wall-clock seconds over $runs runs, one compile at a time on a shared machine."
  echo
  echo "| translation unit | median s | min s | max s |"
  echo "|---|---:|---:|---:|"
else
  echo "$cxx -std=c++20 -O2 -c FILE -I include   ($compiler; $runs runs each)"
  printf '%-48s %9s %7s %7s\n' "translation unit" "median s" "min s" "max s"
fi

for c in "${cases[@]}"; do
  IFS='|' read -r name file extra <<< "$c"
  times=()
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$cxx" -std=c++20 -O2 -c "$file" -I "$root/include" $extra -o "$tmp/out.o"
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  med=$(printf '%s\n' "${times[@]}" | median)
  min=$(printf '%s\n' "${times[@]}" | sort -g | head -n1)
  max=$(printf '%s\n' "${times[@]}" | sort -g | tail -n1)
  if [[ $markdown == 1 ]]; then
    printf '| %s (`%s`) | %.2f | %.2f | %.2f |\n' "$name" "$(basename "$file")" "$med" "$min" "$max"
  else
    printf '%-48s %9.2f %7.2f %7.2f\n' "$name" "$med" "$min" "$max"
  fi
done
