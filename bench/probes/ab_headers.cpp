// Two versions of lazyview's headers in one process: bench/ab_headers builds this file three
// times, twice as a side (-DLAZYVIEW_AB_SIDE=ab_side_a against one include directory,
// -DLAZYVIEW_AB_SIDE=ab_side_b -Dlazyview=lazyview_b against the other, so that the two engines'
// templates do not merge) and once as the driver, which runs each case's copy by the two sides in
// turn on the same buffers and prints the speed of each and the ratio B/A of every round.
//
// Why one process: on the shared VMs of these reports, where a buffer's pages land in physical
// memory moves a copy's speed by several per cent from one process to the next, and comparisons
// of two builds run as separate processes (bench/ab, or a harness run once per build) can read a
// change of nothing as one of several per cent. FLUX pack and unpack fp32 (16,16,256,256), 1
// thread, a change to the 8-byte tiles: 1.05-1.07x as medians of 5 alternated processes per
// build, 0.98-1.01x here (2-core Zen 4 VM). Both sides here read and write the same pages.
//
// A case is a permutation: `x.permute(P)` of a contiguous (d0, d1, ...) tensor of E-byte elements
// copied into a contiguous destination (FLUX pack is (B,C,H/2,2,W/2,2) by (0,2,4,1,3,5), unpack
// (B,H/2,W/2,C,2,2) by (0,3,1,4,2,5): the reshapes around them move no data).
//
//   driver E TH d0,d1,... p0,p1,...      (env ROUNDS, default 21; BYTES, bytes a round moves;
//                                         DST_OFFSET, bytes the destination starts past a page)
//
// prints `A <GB/s> B <GB/s> B/A <median> [<quartiles>]` (GB/s: bytes read + written, medians of
// the rounds; each round times A and B back to back, in alternating order), after checking that
// both sides wrote the same bytes.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using ab_copy = void (*)(const char* src, char* dst, const long* dims, const int* perm, int rank, int esize,
                         unsigned threads);

#ifdef LAZYVIEW_AB_SIDE
#include <lazyview/lazyview.hpp>

#include <array>
#include <utility>

namespace {

template <class T, std::size_t R>
void copy_as(const char* src, char* dst, const long* dims, const int* perm, unsigned threads) {
  std::array<lazyview::index_t, R> in{}, out{};
  for (std::size_t i = 0; i < R; ++i) {
    in[i] = dims[i];
    out[i] = dims[perm[i]];
  }
  const auto x = lazyview::from_blob(reinterpret_cast<const T*>(src), in);
  const auto e = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return x.permute(perm[I]...);
  }(std::make_index_sequence<R>{});
  lazyview::copy(e, lazyview::from_blob(reinterpret_cast<T*>(dst), out), lazyview::threads{threads});
}

template <class T>
void copy_of_rank(const char* src, char* dst, const long* dims, const int* perm, int rank, unsigned threads) {
  switch (rank) {
    case 2: return copy_as<T, 2>(src, dst, dims, perm, threads);
    case 3: return copy_as<T, 3>(src, dst, dims, perm, threads);
    case 4: return copy_as<T, 4>(src, dst, dims, perm, threads);
    case 5: return copy_as<T, 5>(src, dst, dims, perm, threads);
    case 6: return copy_as<T, 6>(src, dst, dims, perm, threads);
    default: std::fprintf(stderr, "ab_headers: rank %d (2 to 6 taken)\n", rank), std::exit(2);
  }
}

}  // namespace

extern "C" void LAZYVIEW_AB_SIDE(const char* src, char* dst, const long* dims, const int* perm, int rank, int esize,
                                 unsigned threads) {
  switch (esize) {
    case 1: return copy_of_rank<std::uint8_t>(src, dst, dims, perm, rank, threads);
    case 2: return copy_of_rank<std::uint16_t>(src, dst, dims, perm, rank, threads);
    case 4: return copy_of_rank<float>(src, dst, dims, perm, rank, threads);
    case 8: return copy_of_rank<double>(src, dst, dims, perm, rank, threads);
    default: std::fprintf(stderr, "ab_headers: element of %d bytes (1, 2, 4, 8 taken)\n", esize), std::exit(2);
  }
}

#else

extern "C" void ab_side_a(const char*, char*, const long*, const int*, int, int, unsigned);
extern "C" void ab_side_b(const char*, char*, const long*, const int*, int, int, unsigned);

namespace {

template <class V>
std::vector<V> list_of(const char* s) {
  std::vector<V> v;
  for (const char* p = s; *p;) {
    char* end = nullptr;
    v.push_back(static_cast<V>(std::strtol(p, &end, 10)));
    if (end == p) break;
    p = *end == ',' ? end + 1 : end;
  }
  return v;
}

double median(std::vector<double> v, double q = 0.5) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s E THREADS d0,d1,... p0,p1,...\n", argv[0]);
    return 2;
  }
  const int esize = std::atoi(argv[1]);
  const auto threads = static_cast<unsigned>(std::atoi(argv[2]));
  const std::vector<long> dims = list_of<long>(argv[3]);
  const std::vector<int> perm = list_of<int>(argv[4]);
  if (dims.size() != perm.size()) {
    std::fprintf(stderr, "ab_headers: %zu sizes, %zu dims in the permutation\n", dims.size(), perm.size());
    return 2;
  }
  const int rounds = std::getenv("ROUNDS") ? std::max(3, std::atoi(std::getenv("ROUNDS"))) : 21;
  const double round_bytes = std::getenv("BYTES") ? std::atof(std::getenv("BYTES")) : 4e8;
  long n = esize;
  for (long d : dims) n *= d;
  const auto bytes = static_cast<std::size_t>(n);
  // page-aligned, pages touched before any timing
  char* src = static_cast<char*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
  // DST_OFFSET: where the destination starts in its page; 16 is where a glibc std::vector's
  // data starts in its cache line, whose rows the engine streams differently (nt_shifted)
  const long dst_off = std::getenv("DST_OFFSET") ? std::atol(std::getenv("DST_OFFSET")) : 0;
  if (dst_off < 0 || dst_off >= 4096 || dst_off % esize != 0) {
    std::fprintf(stderr, "ab_headers: DST_OFFSET %ld (a multiple of E in [0, 4096) taken)\n", dst_off);
    return 2;
  }
  char* const dst_block =
      static_cast<char*>(std::aligned_alloc(4096, (bytes + static_cast<std::size_t>(dst_off) + 4095) / 4096 * 4096));
  char* const dst = dst_block + dst_off;
  std::vector<char> first(bytes);
  for (std::size_t i = 0; i < bytes; ++i) src[i] = static_cast<char>(i * 131 + i / 4093);
  const int rank = static_cast<int>(dims.size());
  ab_side_a(src, dst, dims.data(), perm.data(), rank, esize, threads);
  std::memcpy(first.data(), dst, bytes);
  std::memset(dst, 0, bytes);
  ab_side_b(src, dst, dims.data(), perm.data(), rank, esize, threads);
  if (std::memcmp(first.data(), dst, bytes) != 0) {
    std::printf("MISMATCH: A and B wrote different bytes\n");
    return 1;
  }
  const long reps = std::max(1L, static_cast<long>(round_bytes / (2.0 * static_cast<double>(bytes))));
  const auto timed = [&](ab_copy f) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long r = 0; r < reps; ++r) f(src, dst, dims.data(), perm.data(), rank, esize, threads);
    const std::chrono::duration<double> t = std::chrono::steady_clock::now() - t0;
    return 2.0 * static_cast<double>(bytes) * static_cast<double>(reps) / t.count() / 1e9;
  };
  std::vector<double> a, b, ratio;
  for (int r = 0; r < rounds; ++r) {
    double ga, gb;
    if (r % 2 == 0) {
      ga = timed(ab_side_a);
      gb = timed(ab_side_b);
    } else {
      gb = timed(ab_side_b);
      ga = timed(ab_side_a);
    }
    a.push_back(ga);
    b.push_back(gb);
    ratio.push_back(gb / ga);
  }
  std::printf("A %.1f B %.1f GB/s  B/A %.3f [%.3f %.3f]\n", median(a), median(b), median(ratio), median(ratio, 0.25),
              median(ratio, 0.75));
  std::free(src);
  std::free(dst_block);
  return 0;
}

#endif
