// A probe of the memory side of a byte transpose: it moves whole 64-byte lines (no shuffles) of
// an N x N matrix whose rows lie STRIDE bytes apart, in the order a kernel would, and prints its
// speed as a ratio to a streaming copy of the same bytes timed in turn (medians of REPS). It is
// what eval/aliased_rows.hpp's staged_source_rows quotes: the order of the whole-line tiles in
// place against the order of kernels::transpose_staged_rows, and each side alone.
//
//   g++ -O2 -march=native bench/probes/line_orders.cpp -o /tmp/line_orders
//   /tmp/line_orders MODE N STRIDE BA BB REPS
//
// MODE: tiles   per unit of BA source rows by BB bytes of B (units of a chunk of B along A), per
//               step of 64 destination rows: each tile of 64 source rows loads one line of each
//               and streams 64 destination lines, 32 rows at a time (the split sweeps);
//       loads   the same loads alone; stores: the same streaming stores alone;
//       staged  per unit, per tile of 64 source rows, the rows' BB bytes copied row after row to a
//               stage, their lines moved into a buffer of destination rows, which then streams out
//               32 rows at a time, each row's BA bytes line after line (no overlap of the phases);
//       staged_loads  the same without the stores.
// e.g. `/tmp/line_orders tiles 4096 4096 128 256 7` against `... staged 4096 4096 512 512 7`, and
// STRIDE 4160 for rows that do not alias.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

__m512i load(const char* p) { return _mm512_load_si512(reinterpret_cast<const __m512i*>(p)); }
void stream(char* p, __m512i v) { _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v); }
void store(char* p, __m512i v) { _mm512_store_si512(reinterpret_cast<__m512i*>(p), v); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s tiles|loads|stores|staged|staged_loads N STRIDE BA BB REPS\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const long N = std::atol(argv[2]), stride = std::atol(argv[3]), BA = std::atol(argv[4]), BB = std::atol(argv[5]);
  const int reps = std::atoi(argv[6]);
  if (N % BA || N % BB || BA % 64 || BB % 64 || stride % 64 || stride < N) {
    std::fprintf(stderr, "N must be a multiple of BA and BB, both of 64; STRIDE >= N, a multiple of 64\n");
    return 2;
  }
  const std::size_t bytes = static_cast<std::size_t>(stride) * N;
  auto* s = static_cast<char*>(std::aligned_alloc(4096, bytes));
  auto* d = static_cast<char*>(std::aligned_alloc(4096, bytes));
  auto* c = static_cast<char*>(std::aligned_alloc(4096, bytes));
  const long sp = BB + 64, bp = BA + 64;  // stage and buffer rows, a line over: off one cache set
  auto* stage = static_cast<char*>(std::aligned_alloc(64, 64 * sp));
  auto* buf = static_cast<char*>(std::aligned_alloc(64, BB * bp));
  std::memset(s, 1, bytes), std::memset(d, 0, bytes), std::memset(c, 0, bytes);
  std::memset(stage, 0, 64 * sp), std::memset(buf, 0, BB * bp);
  const bool loads = mode != "stores", stores = mode != "loads";
  __m512i sink = _mm512_setzero_si512();
  std::vector<double> t, tc;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now();
    for (long b0 = 0; b0 < N; b0 += BB)
      for (long a0 = 0; a0 < N; a0 += BA) {
        if (mode.rfind("staged", 0) == 0) {
          for (long a = a0; a < a0 + BA; a += 64) {
            for (long i = 0; i < 64; ++i)
              for (long q = 0; q < BB; q += 64) store(stage + i * sp + q, load(s + (a + i) * stride + b0 + q));
            for (long q = 0; q < BB; q += 64)
              for (long i = 0; i < 64; ++i) store(buf + (q + i) * bp + (a - a0), load(stage + i * sp + q));
          }
          for (long g = 0; g < BB && mode == "staged"; g += 32)
            for (long k = 0; k < BA; k += 64)
              for (long j = g; j < g + 32; ++j) stream(d + (b0 + j) * stride + a0 + k, load(buf + j * bp + k));
          continue;
        }
        for (long b = b0; b < b0 + BB; b += 64)
          for (long h = 0; h < 2; ++h)
            for (long a = a0; a < a0 + BA; a += 64) {
              if (loads)
                for (long i = 0; i < 64; ++i) store(stage + 64 * i, load(s + (a + i) * stride + b));
              for (long j = 32 * h; j < 32 * h + 32; ++j) {
                if (stores)
                  stream(d + (b + j) * stride + a, load(stage + 64 * j));
                else
                  sink = _mm512_xor_si512(sink, load(stage + 64 * j));
              }
            }
      }
    _mm_sfence();
    const double t1 = now();
    for (std::size_t i = 0; i < static_cast<std::size_t>(N) * N; i += 64) stream(c + i, load(s + i));
    _mm_sfence();
    t.push_back(t1 - t0), tc.push_back(now() - t1);
  }
  std::sort(t.begin(), t.end()), std::sort(tc.begin(), tc.end());
  const double moved = 2.0 * N * N;  // bytes read + written by the transpose (as by the copy)
  asm volatile("" : : "v"(sink));  // (the loads mode's loads stay)
  std::printf("%s N %ld stride %ld BA %ld BB %ld: %.1f GB/s, streaming copy %.1f GB/s, ratio %.2f\n", mode.c_str(), N,
              stride, BA, BB, moved / t[reps / 2] / 1e9, moved / tc[reps / 2] / 1e9, tc[reps / 2] / t[reps / 2]);
}
