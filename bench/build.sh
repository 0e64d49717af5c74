# Sourced by bench/run and bench/ab (needs $root and $build): configures $build for the benchmark
# (Release; Ninja where present, the generator of an existing build kept), builds lazyview_bench
# with LAZYVIEW_BENCH_JOBS jobs (default 2) and sets $exe to the binary.
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
if [[ -f "$build/CMakeCache.txt" ]]; then generator=(); fi  # keep the existing generator

cmake -S "$root" -B "$build" "${generator[@]}" \
  -DLAZYVIEW_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release \
  -DLAZYVIEW_BUILD_TESTS=OFF -DLAZYVIEW_BUILD_EXAMPLES=OFF
cmake --build "$build" --target lazyview_bench -j "${LAZYVIEW_BENCH_JOBS:-2}"
exe="$(find "$build" -type f -name lazyview_bench -perm -u+x | head -n1)"
