#pragma once
// Rows of fixed-size elements along a strided loop: move_row, four elements a step, for any
// strides; and gather_row, for a row of 1-, 2- or 4-byte elements that is unit stride in the
// destination and reads every K-th element of its source (K = 2, 3, 4: u8 (H,W,3).select(2,c),
// x.slice(d,0,n,2), RoPE's x[..., ::2]), by byte shuffles where the target has them (SSSE3;
// AVX2 two lanes at once; AVX-512 a line at once); scatter_row, the mirror (a unit-stride source
// into every K-th element), by lane permutes and stores under a mask (AVX-512; the elements
// between are never written); compact_row, for rows of the first 3 S / 4 bytes of each S-byte
// cell (RGBA to RGB, xyzw to xyz), likewise; and expand_row, the other way (RGB into RGBA's
// first three channels), by scalar moves that leave each cell's last S / 4 bytes unwritten, or
// with AVX-512 by lane permutes and stores under a mask that leave them out.
#include <bit>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "engine_plan.hpp"  // byte_loop
#include "lane_permutes.hpp"

namespace lazyview {

namespace kernels {

/// Moves the in.n elements of E bytes of one innermost loop (any length), four per step, then
/// the last in.n % 4 one by one: the nest's innermost loops (eval/nest.hpp) and strided plans.
/// 8-byte elements into a destination row (in.ds == 8) move four to one 32-byte store (two
/// 16-byte ones without AVX2), the row's last four as the last step, overlapping the one before
/// (the same values written again: a copy's source never overlaps its destination, copy.hpp).
/// Example: FLUX unpack (1,5,22,22) fp32, innermost loop (11):(80):(8) (a destination row of 11
/// pairs gathered 80 bytes apart): stores of elements 0-3, 4-7, then 7-10; (3):(16):(8): three
/// single moves.
// One element per step took 7 instructions a move (load, store, two pointer steps, a count, a
// compare, a branch), more than the plain loop that the nest must not lose to: callgrind, 1000
// dynamic copies (chain built per call, g++ 12 -O3 -march=native), whole process, one by one ->
// four per step: FLUX unpack (1,5,22,22) fp32 13.11 -> 10.47 M instructions (the literal loop
// of bench/baselines.cpp: 4.45 M), (1,7,14,14) 9.28 -> 8.39 M; (30,30,4).permute(1,0,2) fp32
// (16-byte elements, rows of 30) 8.65 -> 5.76 M, (16,16,4) 4.00 -> 3.25 M.
// 8-byte elements into a destination row went out as four 8-byte stores a step, where gcc
// vectorises the plain loop into one 32-byte store of four (two 8-byte loads into each half), and
// the row's last n % 4 one by one: FLUX unpack (1,5,22,22) fp32 ran at 0.82 of bench/'s literal
// loop. Callgrind, 1000 dynamic copies, whole process: (1,5,22,22) 11.38 -> 10.98 M
// instructions, (1,7,14,14) 9.31 -> 9.15 M; bench/ab of the first form (loads through a double*,
// 10.77 and 8.98 M) against the build before, 5 rounds of 3 repetitions (2-core Zen 3 VM, AVX2),
// paired speed-up 1.19x (1.03-1.24x), the ratio to the literal loop 0.82 -> 0.96; (1,7,14,14)
// 1.02x (0.80-1.07x), 0.91 -> 0.93, the call's fixed cost (building and folding the chain, about
// 60 ns) the rest of its gap.
template <int E>
inline void move_row(const char* s, char* d, const byte_loop& in) {
  const index_t ss = in.ss, ds = in.ds, ss2 = 2 * ss, ds2 = 2 * ds, ss3 = 3 * ss, ds3 = 3 * ds;
  index_t i = in.n;
#if defined(__SSE2__)
  if constexpr (E == 8) {
    if (ds == 8 && i >= 4) {
      // each element read as a long long through memcpy (any alignment: FLUX's fp32 pairs lie 4
      // bytes off 8); g++ 12 makes vmovq, vpinsrq and vinserti128 of them, as of its own loop
      const auto four = [ss, ss2, ss3](const char* x, char* y) {
        const auto at = [](const char* z) {
          long long v;
          std::memcpy(&v, z, 8);
          return v;
        };
#if defined(__AVX2__)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), _mm256_set_epi64x(at(x + ss3), at(x + ss2), at(x + ss), at(x)));
#else
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y), _mm_set_epi64x(at(x + ss), at(x)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(y + 16), _mm_set_epi64x(at(x + ss3), at(x + ss2)));
#endif
      };
      const char* const s_last = s + (i - 4) * ss;
      char* const d_last = d + (i - 4) * 8;
      for (; i > 4; i -= 4, s += 2 * ss2, d += 32) four(s, d);
      four(s_last, d_last);
      return;
    }
  }
#endif
  for (; i >= 4; i -= 4, s += 2 * ss2, d += 2 * ds2) {
    std::memcpy(d, s, E);
    std::memcpy(d + ds, s + ss, E);
    std::memcpy(d + ds2, s + ss2, E);
    std::memcpy(d + ds3, s + ss3, E);
  }
  for (; i > 0; --i, s += ss, d += ds) std::memcpy(d, s, E);
}

/// Whether gather_row runs on this target (byte shuffles: SSSE3, or AVX2) for E-byte elements.
// Not 8: two elements a lane from two loads, as many loads as move_row's and no faster (fp64
// (16,1024).slice(1,1,1024,2), 1 thread, best of 7: 3.6-4.3 us one by one, 3.8-3.9 gathered).
constexpr bool gathers(int E) {
#if defined(__SSSE3__)
  return E == 1 || E == 2 || E == 4;
#else
  return E < 0;  // (false, in a form that uses E)
#endif
}

/// Runs f.template operator()<K>() where K is 2, 3 or 4 (a gather's or a scatter's stride);
/// returns whether it did.
template <class F>
LAZYVIEW_ALWAYS_INLINE inline bool with_stride(int K, F&& f) {
  switch (K) {
    case 2: f.template operator()<2>(); return true;
    case 3: f.template operator()<3>(); return true;
    case 4: f.template operator()<4>(); return true;
  }
  return false;
}

/// K where gather_row<E, K> moves the row `in`: K = 2, 3 or 4 where in is unit stride in the
/// destination and K elements apart in the source; else 0 (move_row moves it).
/// Example: u8 (64,1024,3).select(2,1), in (65536):(3):(1): 3; fp32 slice(1,0,2048,2) of
/// (16,2048), in (1024):(8):(4): 2; a flip, (n):(-4):(4): 0.
template <int E>
constexpr int gather_stride(const byte_loop& in) {
  if (!gathers(E) || in.ds != E) return 0;
  return in.ss == 2 * E ? 2 : in.ss == 3 * E ? 3 : in.ss == 4 * E ? 4 : 0;
}

/// The byte shuffles of gather_row<E, K>: mask j picks, for each byte of 16 of destination, its
/// byte of the j-th 16 bytes of the source window (16 K bytes), or zero (0x80) where that byte
/// lies in another; each twice, for the two 128-bit lanes of AVX2.
/// Example: E = 4, K = 2: mask 0 = 0-3, 8-11, then zeros; mask 1 = zeros, then 0-3, 8-11.
template <int E, int K>
struct gather_masks {
  alignas(32) std::uint8_t m[K][32];
  constexpr gather_masks() : m{} {
    for (int j = 0; j < K; ++j)
      for (int o = 0; o < 16; ++o) {
        const int b = o / E * K * E + o % E;  // the source byte of destination byte o
        m[j][o] = m[j][o + 16] = static_cast<std::uint8_t>(b / 16 == j ? b % 16 : 0x80);
      }
  }
};
template <int E, int K>
inline constexpr gather_masks<E, K> gather_masks_of{};

#if defined(__AVX512F__)
/// The lane indices of gather_row's whole-line step for E-byte lanes: lane o holds o K, E bytes
/// little-endian. The permutes read only an index's low log2(128 / E) bits, so the one table
/// picks element o K from the first two source vectors of a window where o K < 128 / E, and
/// element o K - 128 / E from the last two elsewhere (for K = 3 from the third alone, whose
/// one-source permute reads the low log2(64 / E) bits: the same lane, as 128 / E is a multiple
/// of 64 / E).
/// Example: E = 4, K = 3: 0, 3, ..., 30, then 33 (the third vector's lane 1), ..., 45.
template <int E, int K>
struct gather_lanes {
  alignas(64) std::uint8_t m[64];
  constexpr gather_lanes() : m{} {
    for (int o = 0; o < 64 / E; ++o) put_lane(m, E, o, static_cast<std::uint64_t>(o * K));
  }
};
template <int E, int K>
inline constexpr gather_lanes<E, K> gather_lanes_of{};

/// Lanes of E bytes: a's where o K < 128 / E (from the first two source vectors), b's after.
template <int E, int K>
LAZYVIEW_ALWAYS_INLINE inline __m512i blend_upper(__m512i a, __m512i b) {
  constexpr int L = 64 / E, first = (2 * L + K - 1) / K;  // lanes from a: [0, first)
  return blend_lanes<E>(first_lanes(L) & ~first_lanes(first), a, b);
}
#endif

/// Moves a destination row of n E-byte elements, back to back from d, from every K-th element
/// of the source from s: a line of destination a step where lane_permutes(E) (AVX-512: K
/// loads of 64 bytes, the first two permuted into the lanes they hold, the rest likewise and
/// blended in), then 32 bytes a step (AVX2: K loads of two 16-byte halves, 16 K bytes apart,
/// shuffled per lane and or-ed), then 16 (SSSE3), then move_row.
/// A step reads its whole window of 64 K (32 K, 16 K) source bytes, (K - 1) E more than its
/// last element needs, so it runs only while more elements than it moves are left: the window
/// then ends within the next element. @pre gathers(E), K in 2..4.
/// Example: u8 (64,1024,3).select(2,1), n = 65536, K = 3: 1024 steps of 64, each from 192
/// source bytes (VBMI; else 2048 steps of 32).
// One element a move (move_row, four a step), a plain loop with the strides as constants ran
// 1.5-3x faster than strided plans where the compiler vectorised it (-O3 -march=native).
// With AVX-512, g++ vectorises that loop with two-source permutes of whole vectors, where the
// AVX2 steps take two loads, a lane insert and a byte shuffle per 16 bytes of each source vector:
// harness, lazyview::copy against that loop (g++ 12 -O3 -march=native, 2-core Zen 5 VM, 1 thread,
// GB/s of the destination's bytes twice, medians of 3 alternated processes), AVX2 steps ->
// these: fp32 (1024,3072)[:, ::3] 39.0 -> 47.2 (the loop 49.1; 2 threads 87.7 -> 104.6), (2048,
// 2048)[:, ::2] 27.9 -> 37.4 (39.5); bf16 (4096,128)[:, ::2] 76.6 -> 82.4 (82.8); u8 ::3 of
// (1024,3072) 50.5 -> 54.3 (54.8), ::4 of (1024,4096) 39.7 -> 48.9 (47.7).
template <int E, int K>
inline void gather_row(const char* s, char* d, index_t n) {
  index_t i = n;
#if defined(__AVX512F__)
  if constexpr (lane_permutes(E)) {
    const __m512i idx = _mm512_load_si512(gather_lanes_of<E, K>.m);
    const auto at = [&](int j) { return _mm512_loadu_si512(s + 64 * j); };
    for (; i > 64 / E; i -= 64 / E, s += 64 * K, d += 64) {
      __m512i v = permute_two<E>(at(0), idx, at(1));
      if constexpr (K == 3) v = blend_upper<E, K>(v, permute_one<E>(idx, at(2)));
      if constexpr (K == 4) v = blend_upper<E, K>(v, permute_two<E>(at(2), idx, at(3)));
      _mm512_storeu_si512(d, v);
    }
  }
#endif
#if defined(__SSSE3__)
  const auto* m = gather_masks_of<E, K>.m;
#if defined(__AVX2__)
  for (; i > 32 / E; i -= 32 / E, s += 32 * K, d += 32) {
    const auto half = [&](int j) {
      const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16 * j));
      const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16 * K + 16 * j));
      const __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
      return _mm256_shuffle_epi8(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(m[j])));
    };
    __m256i v = _mm256_or_si256(half(0), half(1));
    if constexpr (K > 2) v = _mm256_or_si256(v, half(2));
    if constexpr (K > 3) v = _mm256_or_si256(v, half(3));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), v);
  }
#endif
  for (; i > 16 / E; i -= 16 / E, s += 16 * K, d += 16) {
    const auto part = [&](int j) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16 * j));
      return _mm_shuffle_epi8(v, _mm_load_si128(reinterpret_cast<const __m128i*>(m[j])));
    };
    __m128i v = _mm_or_si128(part(0), part(1));
    if constexpr (K > 2) v = _mm_or_si128(v, part(2));
    if constexpr (K > 3) v = _mm_or_si128(v, part(3));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), v);
  }
#endif
  move_row<E>(s, d, byte_loop{i, K * E, E});
}

/// K where scatter_row<E, K> moves the row `in`: K = 2, 3 or 4 where in is unit stride in the
/// source and K elements apart in the destination, and the target permutes E-byte lanes
/// (lane_permutes); else 0. Example: bf16 (4096,64) into (4096,128)[..., ::2] (RoPE's
/// write-back), in (262144):(2):(4): 2; u8 (1024,1024) into (1024,1024,3)[..., 1]: 3.
template <int E>
constexpr int scatter_stride(const byte_loop& in) {
  if (!lane_permutes(E) || in.ss != E) return 0;
  return in.ds == 2 * E ? 2 : in.ds == 3 * E ? 3 : in.ds == 4 * E ? 4 : 0;
}

#if defined(__AVX512F__)
/// The permutes and store masks of scatter_row<E, K>: destination line j (of K) of a step takes
/// source lane (j L + o) / K into its lane o where K divides j L + o (L = 64 / E lanes).
/// Example: E = 4, K = 3: line 0 lanes 0, 3, ..., 15 from source lanes 0-5; line 1 lanes 2, 5,
/// ..., 14 from 6-10; line 2 lanes 1, 4, ..., 13 from 11-15.
template <int E, int K>
struct scatter_lanes {
  alignas(64) std::uint8_t m[K][64];
  std::uint64_t keep[K];
  constexpr scatter_lanes() : m{}, keep{} {
    constexpr int L = 64 / E;
    for (int j = 0; j < K; ++j)
      for (int o = 0; o < L; ++o) {
        const int at = j * L + o;
        if (at % K != 0) continue;
        keep[j] |= std::uint64_t{1} << o;
        put_lane(m[j], E, o, static_cast<std::uint64_t>(at / K));
      }
  }
};
template <int E, int K>
inline constexpr scatter_lanes<E, K> scatter_lanes_of{};

/// Moves n E-byte elements, back to back from s, to every K-th element of the destination from
/// d: a line of source a step, permuted into each of the K destination lines it spans and
/// stored under a mask of the lanes it owns, so that the elements between are never written
/// (another thread may own them: the other half of RoPE's pairs, the other channels), then
/// move_row. As expand_row's cells, only below masked_stores_below (strided_loop), and in the
/// nest of small copies (move_row_at). @pre scatter_stride<E> gives K for this row.
/// Example: bf16 (4096,64) into (4096,128)[..., ::2], one loop (262144):(2):(4): 8192 steps of
/// 32 elements, each two masked stores.
// Element by element (move_row) -> these, harness, lazyview::copy (g++ 12 -O3 -march=native,
// 2-core Zen 5 VM, GB/s of the source twice, medians of 3 alternated processes; a plain loop in
// brackets): bf16 (4096,64) into [..., ::2] 28.2 -> 82.3 (19.4); u8 (1024,1024) into
// (1024,1024,3)[..., 1] 14.6 -> 57.2 (8.5), 2 threads 29.2 -> 112.0; fp32 (512,1024) into
// [:, ::3] (6 MiB) 46.1 -> 55.4 (37.8); fp64 [:, 1::2] of (512,1024) 67.7 -> 75.5 (65.1).
template <int E, int K>
inline void scatter_row(const char* s, char* d, index_t n) {
  constexpr int L = 64 / E;
  const auto& t = scatter_lanes_of<E, K>;
  index_t i = n;
  for (; i >= L; i -= L, s += 64, d += 64 * K) {
    const __m512i v = _mm512_loadu_si512(s);
    LAZYVIEW_UNROLL
    for (int j = 0; j < K; ++j)
      store_lanes<E>(d + 64 * j, t.keep[j], permute_one<E>(_mm512_load_si512(t.m[j]), v));
  }
  move_row<E>(s, d, byte_loop{i, E, K * E});
}
#endif

/// Whether compact_row<S> runs on this target: for cells of 4, 8, 16 bytes by byte shuffles
/// (SSSE3, or AVX2); for 32 (fp64 xyzw to xyz) everywhere, each element as one 16-byte and one
/// 8-byte move, where the strided plan's two overlapping 16-byte moves (copy_odd) ran at 0.86-0.96
/// of a plain loop of three assignments and these at 1.00-1.06 (g++ 12 -O3 -march=native, 2-core
/// Zen 3 VM, 1 thread, best of 7: (4096,4)[:, :3] and (262144,4)).
constexpr bool compacts(int S) {
#if defined(__SSSE3__)
  return S == 4 || S == 8 || S == 16 || S == 32;
#else
  return S == 32;
#endif
}

/// The shuffle of compact_row<S>: per 16-byte lane, its 16 / S elements of 3 S / 4 bytes (each the
/// start of an S-byte cell) back to back in its first 12 bytes, zeros after; both lanes alike.
/// Example: S = 4: 0-2, 4-6, 8-10, 12-14, then four zeros.
template <int S>
struct compact_mask {
  alignas(32) std::uint8_t m[32];
  constexpr compact_mask() : m{} {
    constexpr int E = 3 * S / 4;
    for (int o = 0; o < 16; ++o) m[o] = m[o + 16] = static_cast<std::uint8_t>(o < 12 ? o / E * S + o % E : 0x80);
  }
};
template <int S>
inline constexpr compact_mask<S> compact_mask_of{};

#if defined(__AVX512F__)
/// The lane indices of compact_row's line steps (lanes of B = S / 4 bytes, little-endian): lane
/// 3 c + k of 48 bytes of destination takes lane 4 c + k of a line of source cells; the last
/// 16 bytes' lanes take lane 0. Example: S = 16 (fp32): 0, 1, 2, 4, 5, 6, ..., 14, 0, 0, 0, 0.
template <int S>
struct compact_lanes {
  alignas(64) std::uint8_t m[64];
  constexpr compact_lanes() : m{} {
    constexpr int B = S / 4, L = 64 / B;
    for (int o = 0; o < L; ++o) put_lane(m, B, o, static_cast<std::uint64_t>(o < 3 * L / 4 ? o / 3 * 4 + o % 3 : 0));
  }
};
template <int S>
inline constexpr compact_lanes<S> compact_lanes_of{};
#endif

/// Moves a destination row of n elements of E = 3 S / 4 bytes, back to back from d, each read
/// from the start of the next S bytes of the source from s: x[..., :3] (or [..., 1:]) of a last
/// dim of 4, RGBA to RGB in u8 (S = 4), bf16 or fp16 (8), xyzw to xyz in fp32 (16). The plan's
/// element is then odd-sized (3, 6, 12 bytes), one element a move (strided_loop_odd, two
/// overlapping moves each). With AVX2, 32 source bytes a step: shuffled per lane into 12 bytes,
/// the lanes joined by a dword permute, stored as 16 + 8 bytes; then 16 source bytes a step
/// (SSSE3), then one element at a time. A step reads its window, S / 4 bytes past its last
/// element, only while more elements than it moves remain. fp64's cells (S = 32) move one
/// element at a time. With AVX-512 (lane_permutes(S / 4)), a line of source cells a step first,
/// permuted into 48 bytes and stored as 64, whose last 16 the next step writes again: while more
/// than 16 bytes of elements follow the step's. @pre compacts(S).
/// Example: u8 (1024,1024,4)[..., :3], one loop (1048576):(4):(3): 131072 steps of 8 pixels
/// (65536 of 16 with VBMI).
// The line steps against the AVX2 ones, harness, lazyview::copy (g++ 12 -O3 -march=native, 2-core
// Zen 5 VM, 1 thread, GB/s of the destination twice, medians of 3 alternated processes; a plain
// loop of three assignments a cell in brackets): u8 3 MiB of destination 85.7 -> 102.5 (104.9),
// 12 KiB 85.2 -> 218.1 (262.9); bf16 91.9 -> 105.0 (104.8); fp32 90.9 -> 102.2 (100.5), 48 KiB
// 121.3 -> 155.0 (161.3); fp64 94.2 -> 100.5 (101.2); 48 MiB of fp32 alike (30.5 -> 31.1).
template <int S>
inline void compact_row(const char* s, char* d, index_t n) {
  constexpr int E = 3 * S / 4;
  index_t i = n;
#if defined(__AVX512F__)
  if constexpr (lane_permutes(S / 4)) {
    // while the 16 bytes a store writes past its 48 are the next step's to write again
    const __m512i idx = _mm512_load_si512(compact_lanes_of<S>.m);
    for (; i >= 64 / S + (16 + E - 1) / E; i -= 64 / S, s += 64, d += 48)
      _mm512_storeu_si512(d, permute_one<S / 4>(idx, _mm512_loadu_si512(s)));
  }
#endif
#if defined(__SSSE3__)
  if constexpr (S <= 16) {
    const auto* m = compact_mask_of<S>.m;
#if defined(__AVX2__)
    const __m256i mask = _mm256_load_si256(reinterpret_cast<const __m256i*>(m));
    const __m256i join = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    for (; i > 32 / S; i -= 32 / S, s += 32, d += 24) {
      __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
      v = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, mask), join);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm256_castsi256_si128(v));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(d + 16), _mm256_extracti128_si256(v, 1));
    }
#endif
    const __m128i mask16 = _mm_load_si128(reinterpret_cast<const __m128i*>(m));
    for (; i > 16 / S; i -= 16 / S, s += 16, d += 12) {
      const __m128i v = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)), mask16);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(d), v);
      const auto hi = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_srli_si128(v, 8)));
      std::memcpy(d + 8, &hi, 4);
    }
  }
#endif
  for (; i > 0; --i, s += S, d += E) std::memcpy(d, s, E);
}

/// Whether expand_row<S> takes rows of cells of S bytes: 4, 8, 16, 32 (u8 and bf16 RGB into
/// RGBA, fp32 and fp64 xyz into xyzw).
constexpr bool expands(int S) { return S == 4 || S == 8 || S == 16 || S == 32; }

/// The destination bytes (a strided plan's span, masked_stores) from which expand_row writes its
/// cells one by one, not by expand_lines, and strided_loop's scatters element by element, not
/// by scatter_row: stores under a mask whose line comes from memory ran slower than the plain
/// ones. Harness, lazyview::copy of (n,3) into y[..., :3] of (n,4),
/// 2-core Zen 5 VM, 1 thread, GB/s of the source's bytes twice, medians of 3 alternated
/// processes, one by one -> expand_lines: u8 4 MiB of destination 19.5 -> 92.4, 16 KiB 20.5 ->
/// 248.6; fp64 128 KiB 122.7 -> 155.4; fp32 4 MiB 71.3 -> 95.1, 8 MiB 64.4 ->
/// 74.7, 16 MiB 44.2 -> 25.1, 64 MiB 32.7 -> 20.3; bf16 64 MiB 32.7 -> 19.8; u8 16 MiB 16.9 ->
/// 25.6, 32 MiB 19.4 -> 19.4; fp64 8 MiB 78.9 -> 78.3, 32 MiB 32.7 -> 19.5. Asking for the
/// lines ahead (prefetchw, 256 bytes to 4 KiB) won back a tenth of the loss at most.
inline constexpr index_t masked_stores_below = index_t{12} << 20;

/// Whether strided plan p writes by stores under a mask (expand_lines, scatter_row) where its
/// rows take them: its destination spans less than masked_stores_below, or at any size under the
/// zen4 tuning.
/// Example: u8 (1048576,3) into (1048576,4)[..., :3], 4 MiB: yes; fp32 (1048576,3), 16 MiB: no
/// (zen4: yes).
/// Why zen4: on the 2-core Zen 4 VM the stores one by one ran slower than under a mask at every
/// size, and slower than the plain loop. Harness, lazyview::copy, 1 thread, GB/s of the source
/// twice, medians of 3-5 alternated runs, one by one -> under a mask (the plain loop): fp32
/// (R,1024) into (R,3072)[:, ::3], destination 12 MiB 20.7 -> 33.4 (27.5), 2 threads 52.2 ->
/// 76.6, 16 MiB 13.7 -> 24.8 (20.3), 32 MiB 11.0 -> 15.2 (13.2), 64 MiB 10.7 -> 13.2 (11.9);
/// (n,3) into (n,4)[..., :3] fp32, 16 MiB 29.5 -> 34.8, 64 MiB 23.5 -> 22.4.
inline bool masked_stores(const engine_plan& p) {
  return p.tune == tuning::zen4 ||
         p.outer_count() * p.inner2.n * p.inner.n * magnitude(p.inner.ds) < masked_stores_below;
}

/// Whether expand_row<S> takes its cells a line at a time (expand_lines): where the target
/// permutes lanes of S / 4 bytes, but not fp64's cells (S = 32), two to a line, which bench/ab
/// read at 0.88x (0.83-0.90x) of their 16 + 8-byte moves at 1 thread (scatters/fp64/262144x4,
/// 8 MiB, 3 rounds), though 1.27x in a harness in cache.
constexpr bool expands_lines(int S) { return S < 32 && lane_permutes(S / 4); }

#if defined(__AVX512F__)
/// The lane indices of expand_lines<S> (lanes of B = S / 4 bytes, little-endian): lane 4 c + k
/// of a line of destination cells takes lane 3 c + k of the source (k < 3; k = 3, never stored,
/// takes lane 0). Example: S = 16 (fp32): 0, 1, 2, 0, 3, 4, 5, 0, ..., 9, 10, 11, 0.
template <int S>
struct expand_lanes {
  alignas(64) std::uint8_t m[64];
  constexpr expand_lanes() : m{} {
    constexpr int B = S / 4;
    for (int o = 0; o < 64 / B; ++o) put_lane(m, B, o, static_cast<std::uint64_t>(o % 4 < 3 ? o / 4 * 3 + o % 4 : 0));
  }
};
template <int S>
inline constexpr expand_lanes<S> expand_lanes_of{};

/// expand_row<S> a line of destination cells a step: 48 source bytes read under a mask,
/// permuted into the first three lanes of each cell, stored under a mask that leaves each
/// cell's last lane untouched, unlike a plain store, which may not cover it (see expand_row).
/// The last step's masks cover only its n % (64 / S) cells, so nothing is read past the row
/// either. @pre expands_lines(S).
/// Example: fp32 cells (S = 16), 10 cells: steps of 4, 4, then 2 (load lanes 0-5, store lanes
/// 0-2 and 4-6).
template <int S>
inline void expand_lines(const char* s, char* d, index_t n) {
  constexpr int B = S / 4, L = 64 / B, C = 64 / S;  // lane bytes, lanes, cells per line
  const auto stored = [](int cells) {  // lanes 4 c, 4 c + 1, 4 c + 2 of the first `cells`
    std::uint64_t k = 0;
    for (int c = 0; c < cells; ++c) k |= std::uint64_t{7} << (4 * c);
    return k;
  };
  constexpr std::uint64_t read = first_lanes(3 * L / 4);
  const __m512i idx = _mm512_load_si512(expand_lanes_of<S>.m);
  for (; n >= C; n -= C, s += 48, d += 64)
    store_lanes<B>(d, stored(C), permute_one<B>(idx, load_lanes<B>(s, read)));
  if (n > 0) {
    const int c = static_cast<int>(n);
    store_lanes<B>(d, stored(c), permute_one<B>(idx, load_lanes<B>(s, first_lanes(3 * c))));
  }
}
#endif

/// Moves n elements of E = 3 S / 4 bytes, back to back from s, each into the first E bytes of
/// the next S-byte cell from d, the cells' last S / 4 bytes unwritten: x[..., :3] (or [..., 1:])
/// of a last dim of 4 written from a (..., 3) tensor, RGB into RGBA's colour channels, xyz into
/// xyzw. Those bytes are not the view's, and another thread may be writing them (the alpha
/// plane), so no store may cover them, not even with the bytes it read there: the moves are
/// scalar. AVX2's masked stores (vpmaskmovd/q), which could leave them out, ran at 0.3-0.6 of a
/// plain loop's speed on Zen 3, and maskmovdqu at 0.8. u8 (on little-endian targets): four cells
/// a step from one 8-byte and one 4-byte load, each written as 2 + 1 bytes; the others one
/// element at a time, as a power-of-two move and the rest (4 + 2, 8 + 4, 16 + 8 bytes).
/// With AVX-512 (expands_lines(S)) and `lines`, by expand_lines instead. @pre expands(S).
/// Example: u8 (1024,1024,3) into (1024,1024,4)[..., :3], one loop (1048576):(3):(4): 262144
/// steps of 4 pixels (65536 of 16 by expand_lines).
// Against a plain loop of three assignments a cell (lazyview::copy, g++ 12 -O3 -march=native,
// 2-core Zen 3 VM, 1 thread, best of 7, two runs), as two overlapping moves a cell (copy_odd) ->
// these: u8 (1048576,3) 1.38-1.41x -> 2.11-2.19x; bf16 (262144,3) 1.10-1.15x -> 1.29-1.30x; fp32
// (262144,3) 1.28-1.33x -> 1.53-1.57x, (4096,3) 1.27-1.28x -> 1.37-1.39x; fp64 (4096,3) 0.90x ->
// 1.07-1.11x. In bench/'s scatters family, though, fp32 reads 0.83-0.88x of its plain loop
// either way (medians of 5), although g++ compiles that loop to the same 8 + 4-byte moves; in a
// harness with page-aligned buffers the same two loops ran the other way round (lazyview 1.17x).
template <int S>
inline void expand_row(const char* s, char* d, index_t n, [[maybe_unused]] bool lines = true) {
  constexpr int E = 3 * S / 4;
  index_t i = n;
#if defined(__AVX512F__)
  if constexpr (expands_lines(S))
    if (lines) return expand_lines<S>(s, d, n);
#endif
  if constexpr (S == 4 && std::endian::native == std::endian::little) {
    const auto put = [](char* to, std::uint32_t v) {  // a cell's three bytes, the low ones of v
      const auto lo = static_cast<std::uint16_t>(v);
      std::memcpy(to, &lo, 2);
      to[2] = static_cast<char>(v >> 16);
    };
    for (; i >= 4; i -= 4, s += 12, d += 16) {
      std::uint64_t a;
      std::uint32_t b;
      std::memcpy(&a, s, 8);
      std::memcpy(&b, s + 8, 4);
      put(d, static_cast<std::uint32_t>(a));
      put(d + 4, static_cast<std::uint32_t>(a >> 24));
      put(d + 8, static_cast<std::uint32_t>(a >> 48 | std::uint64_t{b} << 16));
      put(d + 12, b >> 8);
    }
  }
  for (; i > 0; --i, s += E, d += S) std::memcpy(d, s, E);
}

/// The stride of row `in` as move_row_at takes it: K where gather_row<E, K> moves the row
/// (gather_stride), -K where scatter_row<E, K> does (scatter_stride), else 0.
/// Example: bf16 (8,64) into (8,128)[..., ::2], in (512):(2):(4): -2; fp32 (8,64)[:, ::2] into
/// (8,32), in (256):(8):(4): 2; a flip, (n):(-4):(4): 0.
template <int E>
constexpr int row_stride_of(const byte_loop& in) {
  if (const int K = gather_stride<E>(in)) return K;
  return -scatter_stride<E>(in);
}

/// Calls f(row) once, where row(s, d) moves one row `in` from s to d by the kernel K picks:
/// gather_row<E, K> where K > 0, scatter_row<E, -K> where K < 0, else move_row. The one choice
/// of a row's kernel, hoisted out of the caller's loop over rows: the nest's innermost rows
/// (move_row_at) and the engine's strided loop (strided_loop, which zeroes a scatter's K past
/// masked_stores_below). @pre K == row_stride_of<E>(in), or 0.
template <int E, class F>
LAZYVIEW_ALWAYS_INLINE inline void with_row_kernel(int K, const byte_loop& in, F&& f) {
  if constexpr (gathers(E))
    if (K > 0 && with_stride(K, [&]<int G>() { f([&](const char* s, char* d) { gather_row<E, G>(s, d, in.n); }); }))
      return;
#if defined(__AVX512F__)
  if constexpr (lane_permutes(E))
    if (K < 0 && with_stride(-K, [&]<int G>() { f([&](const char* s, char* d) { scatter_row<E, G>(s, d, in.n); }); }))
      return;
#endif
  f([&](const char* s, char* d) { move_row<E>(s, d, in); });
}

/// One of the nest's innermost rows by with_row_kernel, K found once per copy. Scatters need no
/// size bound there (masked_stores): the nest's copies are a few KiB, in cache.
/// @pre K == row_stride_of<E>(in).
// Element by element (move_row) -> scatter_row, small scatters through the nest (a dynamic
// chain built and copied per call, g++ 12 -O3 -march=native, 2-core Zen 5 VM, ns per call,
// medians of 11 x 20000, 3 alternated processes): bf16 (8,64) into (8,128)[..., ::2] 83 -> 25,
// u8 (32,32) into (32,32,3)[..., 1] 150 -> 30, fp32 (8,64) into (8,192)[:, ::3] 85 -> 50, fp64
// (8,32) into (8,64)[:, ::2] 51 -> 32.
template <int E>
inline void move_row_at(int K, const char* s, char* d, const byte_loop& in) {
  with_row_kernel<E>(K, in, [&](auto&& row) { row(s, d); });
}

}  // namespace kernels

}  // namespace lazyview
