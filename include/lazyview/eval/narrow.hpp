#pragma once
// Narrow transposes: one group of 2 to 8 indices against a long other one, the layout changes
// between interleaved and planar data (an image's HWC <-> CHW with C = 3, complex numbers as
// (re, im) pairs <-> two planes, arrays of small structs <-> structs of arrays). Tiles of 16 x 16
// waste most of their work there (a tile is mostly padding) and the element-wise loop reads or
// writes C streams an element at a time; these kernels take C vectors of one side and make C
// vectors of the other with two-source lane permutes.
// On a 2-core Zen 5 VM (AVX-512 VBMI), fp32, 1 thread, GB/s, tiles or element loop -> these
// (a streaming copy of the same bytes: 55-85): (1000000,4).t() 7 -> 70-83, (4,1000000).t()
// 8 -> 77-84, (2000000,3).t() 5-7 -> 49-64, (3,2000000).t() 14 -> 65-79, (500000,8).t() 33 ->
// 55-71, (8,500000).t() 32 -> 56-81; in cache, (50000,3).t() 18 -> 94-108.
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "engine_plan.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace lazyview {

/// The two narrow transposes (see the header comment), by which side is narrow.
/// split: B is the narrow group, rows of C elements back to back in the source, each going to
/// its own destination row (interleaved -> planar). Example: (N,3).t() fp32, (N,3):(3,1) read,
/// three rows of N written.
/// merge: A is the narrow group, C source rows read side by side, written interleaved
/// (planar -> interleaved). Example: (3,N).t() fp32.
enum class narrow_kind { none, split, merge };

/// The lane (bytes) the narrow kernels permute on this target: 1 with AVX-512VBMI, 2 with
/// AVX-512BW, 4 with AVX-512F; 0 where there are none. One width serves every element size it
/// divides (a permute moves 64 bytes whatever its lanes), so each group size compiles once:
/// per group size and element size, the kernels took a 4.5 s translation unit with
/// -march=native to 7.5 s.
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VBMI__)
inline constexpr int narrow_lane = 1;
#elif defined(__AVX512F__) && defined(__AVX512BW__)
inline constexpr int narrow_lane = 2;
#elif defined(__AVX512F__)
inline constexpr int narrow_lane = 4;
#else
inline constexpr int narrow_lane = 0;
#endif

/// Whether the narrow kernels take E-byte elements here.
constexpr bool narrow_fits(int E) { return narrow_lane > 0 && E % narrow_lane == 0; }

/// The narrowest group a narrow kernel takes, and the widest.
inline constexpr index_t narrow_min = 2, narrow_max = 8;

/// Which narrow transpose a plan is, if any: a transpose of one loop per group, elements of 1,
/// 2, 4, 8 or 16 bytes that the lanes divide (narrow_fits), the narrow group of narrow_min to
/// narrow_max indices adjacent on the side where it is contiguous, and the long group at least
/// a vector (64 bytes) of elements.
/// Examples: (1000000,4).t() fp32: split (B = 4, source rows of 16 bytes back to back);
/// (4,1000000).t(): merge; (1000,16).t(): none (16 is past narrow_max: whole tiles).
inline narrow_kind narrow_transpose(const engine_plan& p) {
  const index_t E = p.elem;
  if (p.kind != engine_plan::transpose || p.no_narrow || p.na != 1 || p.nb != 1) return narrow_kind::none;
  if (!(E == 1 || E == 2 || E == 4 || E == 8 || E == 16) || !narrow_fits(static_cast<int>(E)))
    return narrow_kind::none;
  const auto narrow = [](index_t n) { return n >= narrow_min && n <= narrow_max; };
  if (narrow(p.nB) && p.ga[0].ss == p.nB * E && p.nA * E >= 64) return narrow_kind::split;
  if (narrow(p.nA) && p.gb[0].ds == p.nA * E && p.nB * E >= 64) return narrow_kind::merge;
  return narrow_kind::none;
}

namespace kernels {

/// Lane tables of a narrow kernel: for output vector o and source pair q (vectors 2q, 2q+1), the
/// two-source permute indices of o's lanes (as a vector of W-byte lanes, ready to load) and the
/// mask of the lanes that pair supplies. C vectors in and out, 64-byte vectors of W-byte lanes,
/// E-byte elements.
/// split: output o is row o's next 64 / E elements, from C vectors of back-to-back source rows;
/// merge: output o is the o-th 64 bytes of the interleaved rows, from one vector per source row.
/// Example: split, C = 3, E = W = 4: output 1 takes lanes 1, 4, 7, 10, 13 of vector 0, then
/// 0, 3, ... of vector 1 (the same pair), then 2, 5, ... of vector 2 (the next).
struct narrow_table {
  static constexpr int max_pairs = (narrow_max + 1) / 2;
  struct alignas(64) lanes {
    std::uint8_t b[64];
  };
  lanes idx[narrow_max][max_pairs];
  std::uint64_t mask[narrow_max][max_pairs];
};

inline void fill_narrow_table(narrow_table& t, int C, int E, int W, bool split) {
  t = {};
  const int lanes = 64 / W;
  for (int o = 0; o < C; ++o)
    for (int m = 0; m < lanes; ++m) {
      int k = 0, at = 0;  // source vector, byte within it
      if (split) {
        const int j = m * W / E, sub = m * W % E;
        const int f = (j * C + o) * E + sub;
        k = f / 64;
        at = f % 64;
      } else {
        const int f = o * 64 + m * W;
        const int g = f / E, sub = f % E;
        k = g % C;
        at = g / C * E + sub;
      }
      t.idx[o][k / 2].b[m * W] = static_cast<std::uint8_t>((k % 2) * lanes + at / W);  // little-endian lane
      t.mask[o][k / 2] |= std::uint64_t{1} << m;
    }
}

/// The table of every group size (narrow_min to narrow_max), element size (1 to 16 bytes) and
/// kind, made once per process on first use (160 KB): per call, making one cost as much as a
/// small copy.
inline const narrow_table& narrow_table_of(int C, int E, bool split) {
  constexpr int sizes = static_cast<int>(narrow_max - narrow_min + 1);
  static const auto all = [] {
    auto t = std::make_unique<narrow_table[]>(sizes * 5 * 2);
    for (int c = 0; c < sizes; ++c)
      for (int e = 0; e < 5; ++e)
        for (int k = 0; k < 2; ++k) {
          const int E = 1 << e;
          if (narrow_fits(E)) fill_narrow_table(t[(c * 5 + e) * 2 + k], c + static_cast<int>(narrow_min), E, narrow_lane, k == 1);
        }
    return t;
  }();
  int e = 0;
  while ((1 << e) < E) ++e;
  return all[((C - static_cast<int>(narrow_min)) * 5 + e) * 2 + (split ? 1 : 0)];
}

#if defined(__AVX512F__)
/// Two-source permute of narrow_lane-byte lanes, and a blend by lane mask.
inline __m512i narrow_permute(__m512i a, __m512i idx, __m512i b) {
#if defined(__AVX512BW__) && defined(__AVX512VBMI__)
  return _mm512_permutex2var_epi8(a, idx, b);
#elif defined(__AVX512BW__)
  return _mm512_permutex2var_epi16(a, idx, b);
#else
  return _mm512_permutex2var_epi32(a, idx, b);
#endif
}
inline __m512i narrow_blend(std::uint64_t m, __m512i a, __m512i b) {
#if defined(__AVX512BW__) && defined(__AVX512VBMI__)
  return _mm512_mask_blend_epi8(m, a, b);
#elif defined(__AVX512BW__)
  return _mm512_mask_blend_epi16(static_cast<__mmask32>(m), a, b);
#else
  return _mm512_mask_blend_epi32(static_cast<__mmask16>(m), a, b);
#endif
}
#endif

/// Moves `count` rounds of a narrow transpose of C rows: round i loads C vectors, from
/// s[k] + i * s_step, and stores C, at d[o] + i * d_step, each made by the permutes of `tab`.
/// Split (from rows of C elements back to back to C rows): s[k] = source + 64k, s_step = 64C,
/// d[o] = row o, d_step = 64; merge: s[k] = row k, s_step = 64, d[o] = destination + 64o,
/// d_step = 64C. NT: every store is a whole, aligned line (streaming stores).
/// Unrolled per C (a loop over a run-time C kept the vectors on the stack: 0.4-0.7x).
template <int C>
void narrow_rounds(const narrow_table& tab, const char* const* s, index_t s_step, char* const* d, index_t d_step,
                   index_t count, bool nt) {
#if defined(__AVX512F__)
  constexpr int P = (C + 1) / 2;
  const auto each = [](auto f, auto seq) { [&]<int... K>(std::integer_sequence<int, K...>) { (f.template operator()<K>(), ...); }(seq); };
  // (indices and masks held across the rounds: read from the table per round, 0.65-0.75x)
  __m512i idx[C][P];
  std::uint64_t mask[C][P];
  for (int o = 0; o < C; ++o)
    for (int q = 0; q < P; ++q) {
      idx[o][q] = _mm512_load_si512(tab.idx[o][q].b);
      mask[o][q] = tab.mask[o][q];
    }
  for (index_t i = 0; i < count; ++i) {
    __m512i v[C + 1];
    each([&]<int K>() { v[K] = _mm512_loadu_si512(s[K] + i * s_step); }, std::make_integer_sequence<int, C>{});
    v[C] = v[C - 1];  // an odd C's last pair: its second vector is never selected
    each([&]<int O>() {
      // (every lane comes from one pair: the first pair's permute leaves the others' lanes
      // for their blends)
      __m512i r = narrow_permute(v[0], idx[O][0], v[1]);
      each([&]<int Q>() {
        if constexpr (Q > 0) r = narrow_blend(mask[O][Q], r, narrow_permute(v[2 * Q], idx[O][Q], v[2 * Q + 1]));
      }, std::make_integer_sequence<int, P>{});
      char* const to = d[O] + i * d_step;
      if (nt)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(to), r);
      else
        _mm512_storeu_si512(to, r);
    }, std::make_integer_sequence<int, C>{});
  }
#else
  (void)tab, (void)s, (void)s_step, (void)d, (void)d_step, (void)count, (void)nt;
#endif
}

/// Runs A indices [a0, a1) by B indices [b0, b1) of a narrow transpose (one work unit; the
/// narrow group is always whole) from s, d at its outer iteration.
inline void narrow_unit(const engine_plan& p, narrow_kind kind, const char* s, char* d, index_t a0, index_t a1,
                        index_t b0, index_t b1) {
  const index_t E = p.elem;
  const bool split = kind == narrow_kind::split;
  const index_t C = split ? p.nB : p.nA;
  // rows on the narrow side; the long side's start
  const char* src[narrow_max];
  char* dst[narrow_max];
  index_t n = 0;
  if (split) {  // source rows a of C elements back to back, destination rows b
    src[0] = s + a0 * p.ga[0].ss;
    for (index_t c = 0; c < C; ++c) dst[c] = d + a0 * E + c * p.gb[0].ds;
    n = a1 - a0;
  } else {  // source rows a side by side, destination rows b of C elements back to back
    for (index_t c = 0; c < C; ++c) src[c] = s + c * p.ga[0].ss + b0 * E;
    dst[0] = d + b0 * p.gb[0].ds;
    n = b1 - b0;
  }
  const index_t L = 64 / E, rounds = narrow_lane > 0 ? n / L : 0;
  if (rounds > 0) {
    const char* vs[narrow_max];
    char* vd[narrow_max];
    for (index_t k = 0; k < C; ++k) {
      vs[k] = split ? src[0] + 64 * k : src[k];
      vd[k] = split ? dst[k] : dst[0] + 64 * k;
    }
    const index_t s_step = split ? 64 * C : 64, d_step = split ? 64 : 64 * C;
    const narrow_table& tab = narrow_table_of(static_cast<int>(C), static_cast<int>(E), split);
    switch (C) {
      case 2: narrow_rounds<2>(tab, vs, s_step, vd, d_step, rounds, p.nt); break;
      case 3: narrow_rounds<3>(tab, vs, s_step, vd, d_step, rounds, p.nt); break;
      case 4: narrow_rounds<4>(tab, vs, s_step, vd, d_step, rounds, p.nt); break;
      case 5: narrow_rounds<5>(tab, vs, s_step, vd, d_step, rounds, p.nt); break;
      case 6: narrow_rounds<6>(tab, vs, s_step, vd, d_step, rounds, p.nt); break;
      case 7: narrow_rounds<7>(tab, vs, s_step, vd, d_step, rounds, p.nt); break;
      default: narrow_rounds<8>(tab, vs, s_step, vd, d_step, rounds, p.nt); break;
    }
  }
  // the tail under a vector, element by element
  for (index_t i = rounds * L; i < n; ++i)
    for (index_t c = 0; c < C; ++c) {
      if (split)
        std::memcpy(dst[c] + i * E, src[0] + (i * C + c) * E, static_cast<std::size_t>(E));
      else
        std::memcpy(dst[0] + (i * C + c) * E, src[c] + i * E, static_cast<std::size_t>(E));
    }
}

}  // namespace kernels

}  // namespace lazyview
