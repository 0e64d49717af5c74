#pragma once
// In-register transposes of T x T tiles of E-byte elements (HPTT-style micro-kernels), picked at
// compile time from the target flags: AVX2 8x8 for 4-byte and 4x4 for 8-byte elements, SSE2
// 16x16 for 1-byte, 8x8 for 2-byte, 4x4 for 4-byte and 2x2 for 8-byte ones, and a portable
// element loop otherwise; with AVX-512 also tiles whose rows are one whole cache line (line_micro:
// 16x16 of 4-byte and 8x8 of 8-byte elements), and tiles of 16- and 32-byte elements
// (wide_micro.hpp, included at the end).
// A tile reads T source rows (each T elements contiguous) and writes T destination rows; `s(i)`
// and `d(i)` say where row i starts, so either side's rows may come from any mix of dims, and a
// caller whose rows are evenly spaced passes base + i * stride, which costs no table.
#include <cstdint>
#include <cstring>

#include "../config.hpp"

#if defined(__AVX2__)
#include <immintrin.h>
#define LAZYVIEW_HAVE_SSE2 1
#elif defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>  // SSE2 only: far cheaper to parse than <immintrin.h>
#define LAZYVIEW_HAVE_SSE2 1
#endif

namespace lazyview::kernels {

/// Copies one E-byte element (a fixed-size memcpy compiles to plain moves).
template <int E>
inline void copy_elem(const char* s, char* d) {
  std::memcpy(d, s, E);
}

/// Portable fallback: a 1x1 "tile".
template <int E>
struct micro {
  static constexpr int T = 1;
  template <class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d) { copy_elem<E>(s(0), d(0)); }
};

#if defined(LAZYVIEW_HAVE_SSE2)

/// The four interleave stages of a 16 x 16 byte transpose, in each 128-bit lane of V (__m128i;
/// with AVX2 also __m256i, two tiles side by side): rows paired 1, 2, 4 and 8 apart (bytes,
/// words, dwords, qwords), in place. r[i] holds source row i before; destination row c (byte c
/// of every row) lies in r[bytes_16x16_row(c)] after.
template <class V>
LAZYVIEW_ALWAYS_INLINE inline void transpose_bytes_16x16(V (&r)[16]) {
  // rows k and k + gap (k's bit `gap` clear) -> their low and high halves interleaved
  const auto stage = [&r](int gap, auto lo, auto hi) {
    LAZYVIEW_UNROLL
    for (int k = 0; k < 16; ++k)
      if ((k & gap) == 0) {
        const V a = lo(r[k], r[k + gap]), b = hi(r[k], r[k + gap]);
        r[k] = a;
        r[k + gap] = b;
      }
  };
#if defined(__AVX2__)
  if constexpr (sizeof(V) == 32) {
    stage(1, [](V a, V b) { return _mm256_unpacklo_epi8(a, b); }, [](V a, V b) { return _mm256_unpackhi_epi8(a, b); });
    stage(2, [](V a, V b) { return _mm256_unpacklo_epi16(a, b); }, [](V a, V b) { return _mm256_unpackhi_epi16(a, b); });
    stage(4, [](V a, V b) { return _mm256_unpacklo_epi32(a, b); }, [](V a, V b) { return _mm256_unpackhi_epi32(a, b); });
    stage(8, [](V a, V b) { return _mm256_unpacklo_epi64(a, b); }, [](V a, V b) { return _mm256_unpackhi_epi64(a, b); });
    return;
  }
#endif
  if constexpr (sizeof(V) == 16) {
    stage(1, [](V a, V b) { return _mm_unpacklo_epi8(a, b); }, [](V a, V b) { return _mm_unpackhi_epi8(a, b); });
    stage(2, [](V a, V b) { return _mm_unpacklo_epi16(a, b); }, [](V a, V b) { return _mm_unpackhi_epi16(a, b); });
    stage(4, [](V a, V b) { return _mm_unpacklo_epi32(a, b); }, [](V a, V b) { return _mm_unpackhi_epi32(a, b); });
    stage(8, [](V a, V b) { return _mm_unpacklo_epi64(a, b); }, [](V a, V b) { return _mm_unpackhi_epi64(a, b); });
  }
}
/// The register that holds destination row c after transpose_bytes_16x16: c's four bits reversed
/// (each stage moves one bit of the column into the register index, lowest first).
constexpr int bytes_16x16_row(int c) { return ((c & 1) << 3) | ((c & 2) << 1) | ((c & 4) >> 1) | ((c & 8) >> 3); }

/// 16x16 bytes (int8, fp8): transpose_bytes_16x16 on 16-byte rows. Against the 8x8 tile of
/// 8-byte loads and stores it replaced (half the loads and stores, each source line visited 4
/// times rather than 8), bench/ab on a 2-core Zen 3 VM (AVX2), medians of 5 rounds, 1 thread
/// (2): (4096,4096).t() 1.55x (1.57x), (4160,4032).t() 1.50x (1.88x), (512,512).t() in cache
/// 1.63x (1.57x).
template <>
struct micro<1> {
  static constexpr int T = 16;
  template <class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d) {
    __m128i r[16];
    LAZYVIEW_UNROLL
    for (int i = 0; i < 16; ++i) r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s(i)));
    transpose_bytes_16x16(r);
    LAZYVIEW_UNROLL
    for (int c = 0; c < 16; ++c) _mm_storeu_si128(reinterpret_cast<__m128i*>(d(c)), r[bytes_16x16_row(c)]);
  }
};

template <>
struct micro<2> {
  static constexpr int T = 8;
  template <class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d) {
    const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s(0)));
    const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s(1)));
    const __m128i r2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s(2)));
    const __m128i r3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s(3)));
    const __m128i r4 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s(4)));
    const __m128i r5 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s(5)));
    const __m128i r6 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s(6)));
    const __m128i r7 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s(7)));
    const __m128i a0 = _mm_unpacklo_epi16(r0, r1), a1 = _mm_unpackhi_epi16(r0, r1);
    const __m128i a2 = _mm_unpacklo_epi16(r2, r3), a3 = _mm_unpackhi_epi16(r2, r3);
    const __m128i a4 = _mm_unpacklo_epi16(r4, r5), a5 = _mm_unpackhi_epi16(r4, r5);
    const __m128i a6 = _mm_unpacklo_epi16(r6, r7), a7 = _mm_unpackhi_epi16(r6, r7);
    const __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2);
    const __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3);
    const __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
    const __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d(0)), _mm_unpacklo_epi64(b0, b4));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d(1)), _mm_unpackhi_epi64(b0, b4));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d(2)), _mm_unpacklo_epi64(b1, b5));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d(3)), _mm_unpackhi_epi64(b1, b5));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d(4)), _mm_unpacklo_epi64(b2, b6));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d(5)), _mm_unpackhi_epi64(b2, b6));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d(6)), _mm_unpacklo_epi64(b3, b7));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d(7)), _mm_unpackhi_epi64(b3, b7));
  }
};

#if defined(__AVX2__)

/// A 32-byte unaligned store.
inline void store(char* d, __m256 v) { _mm256_storeu_ps(reinterpret_cast<float*>(d), v); }

template <>
struct micro<4> {
  static constexpr int T = 8;
  template <class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d) {
    __m256 r[8];
    LAZYVIEW_UNROLL
    for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(s(i)));
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    store(d(0), _mm256_permute2f128_ps(u0, u4, 0x20));
    store(d(1), _mm256_permute2f128_ps(u1, u5, 0x20));
    store(d(2), _mm256_permute2f128_ps(u2, u6, 0x20));
    store(d(3), _mm256_permute2f128_ps(u3, u7, 0x20));
    store(d(4), _mm256_permute2f128_ps(u0, u4, 0x31));
    store(d(5), _mm256_permute2f128_ps(u1, u5, 0x31));
    store(d(6), _mm256_permute2f128_ps(u2, u6, 0x31));
    store(d(7), _mm256_permute2f128_ps(u3, u7, 0x31));
  }
};

template <>
struct micro<8> {
  static constexpr int T = 4;
  template <class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d) {
    const __m256d r0 = _mm256_loadu_pd(reinterpret_cast<const double*>(s(0)));
    const __m256d r1 = _mm256_loadu_pd(reinterpret_cast<const double*>(s(1)));
    const __m256d r2 = _mm256_loadu_pd(reinterpret_cast<const double*>(s(2)));
    const __m256d r3 = _mm256_loadu_pd(reinterpret_cast<const double*>(s(3)));
    const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    store(d(0), _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x20)));
    store(d(1), _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x20)));
    store(d(2), _mm256_castpd_ps(_mm256_permute2f128_pd(t0, t2, 0x31)));
    store(d(3), _mm256_castpd_ps(_mm256_permute2f128_pd(t1, t3, 0x31)));
  }
};

#else  // SSE2 only

template <>
struct micro<4> {
  static constexpr int T = 4;
  template <class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d) {
    __m128 r0 = _mm_loadu_ps(reinterpret_cast<const float*>(s(0)));
    __m128 r1 = _mm_loadu_ps(reinterpret_cast<const float*>(s(1)));
    __m128 r2 = _mm_loadu_ps(reinterpret_cast<const float*>(s(2)));
    __m128 r3 = _mm_loadu_ps(reinterpret_cast<const float*>(s(3)));
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(reinterpret_cast<float*>(d(0)), r0);
    _mm_storeu_ps(reinterpret_cast<float*>(d(1)), r1);
    _mm_storeu_ps(reinterpret_cast<float*>(d(2)), r2);
    _mm_storeu_ps(reinterpret_cast<float*>(d(3)), r3);
  }
};

template <>
struct micro<8> {
  static constexpr int T = 2;
  template <class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d) {
    const __m128d r0 = _mm_loadu_pd(reinterpret_cast<const double*>(s(0)));
    const __m128d r1 = _mm_loadu_pd(reinterpret_cast<const double*>(s(1)));
    _mm_storeu_pd(reinterpret_cast<double*>(d(0)), _mm_unpacklo_pd(r0, r1));
    _mm_storeu_pd(reinterpret_cast<double*>(d(1)), _mm_unpackhi_pd(r0, r1));
  }
};

#endif  // __AVX2__
#endif  // SSE2

/// Tiles whose rows are one whole cache line (T * E = 64 bytes), written by streaming stores
/// straight from registers: each store is a complete line, so a streaming transpose needs no
/// buffer to assemble lines (see kernels::transpose_lines). A tile reads TB elements of each of
/// T source rows s(0..T) and writes TB destination rows d(0..TB) of T elements: square for 4-
/// and 8-byte elements (16 x 16, 8 x 8), 64 x 16 for bytes and 32 x 16 for 2-byte elements.
/// AVX-512 only (2-byte elements also need BW, 1-byte ones VBMI); elsewhere T = 1 and the
/// buffered path runs. Measured on a 2-core Zen 5 VM, (4096,4096).t() fp32, with the same
/// blocking and prefetch: 16x16 tiles streamed ran 31-33 GB/s, AVX2 8x8 tiles streamed in place
/// 19-22, 8x8 tiles through a buffer 16-20 (a streaming copy: 40-45).
/// @pre (for T > 1, streamed) every d(i) 64-byte aligned.
template <int E>
struct line_micro {
  static constexpr int T = 1, TB = 1;
};

#if defined(__AVX512F__)
LAZYVIEW_AVX512_WARNINGS_OFF  // (GCC 12's false reports: config.hpp)
/// Copies 64 bytes from s (anywhere) to d (64-byte aligned) in one load and one store.
inline void copy_line(const char* s, char* d) {
  _mm512_store_si512(reinterpret_cast<__m512i*>(d), _mm512_loadu_si512(reinterpret_cast<const __m512i*>(s)));
}

/// A 64-byte store: streaming (to an aligned line) or plain.
template <bool NT>
inline void put(char* d, __m512 v) {
  if constexpr (NT)
    _mm512_stream_ps(reinterpret_cast<float*>(d), v);
  else
    _mm512_storeu_ps(reinterpret_cast<float*>(d), v);
}
template <bool NT>
inline void put(char* d, __m512d v) {
  if constexpr (NT)
    _mm512_stream_pd(reinterpret_cast<double*>(d), v);
  else
    _mm512_storeu_pd(reinterpret_cast<double*>(d), v);
}

/// A 64-byte load from an aligned line, as the register type of the second argument.
inline __m512 load_as(const char* s, __m512) { return _mm512_load_ps(reinterpret_cast<const float*>(s)); }
inline __m512d load_as(const char* s, __m512d) { return _mm512_load_pd(reinterpret_cast<const double*>(s)); }

/// The 4 x 4 transposes within each 128-bit lane of N rows of four-byte lanes (N a multiple of
/// 4), in two stages (unpack, shuffle): r[i] holds row i before, and r[4g + c] holds rows 4g to
/// 4g + 3 of column c of every 128-bit lane after (lane l: column 4l + c). t is scratch.
template <int N>
LAZYVIEW_ALWAYS_INLINE inline void transpose_4x4_in_lanes(__m512 (&r)[N], __m512 (&t)[N]) {
  LAZYVIEW_UNROLL
  for (int i = 0; i < N; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  LAZYVIEW_UNROLL
  for (int i = 0; i < N; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
}

/// The 16 x 16 transpose of four-byte lanes that ends the tiles of 4-, 2- and 1-byte elements:
/// r[i] holds row i; out(c, v) receives column c (lane i of v: lane c of r[i]). Two in-lane
/// stages (transpose_4x4_in_lanes) build 4 x 4 blocks, two 128-bit-lane stages gather each
/// column. r is used as scratch.
template <class Out>
LAZYVIEW_ALWAYS_INLINE inline void transpose_16x16_lanes4(__m512 (&r)[16], Out&& out) {
  __m512 t[16];
  transpose_4x4_in_lanes(r, t);
  LAZYVIEW_UNROLL
  for (int c = 0; c < 4; ++c) {
    t[c] = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x88);
    t[4 + c] = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xDD);
    t[8 + c] = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x88);
    t[12 + c] = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xDD);
  }
  LAZYVIEW_UNROLL
  for (int c = 0; c < 4; ++c) {
    out(c, _mm512_shuffle_f32x4(t[c], t[8 + c], 0x88));
    out(4 + c, _mm512_shuffle_f32x4(t[4 + c], t[12 + c], 0x88));
    out(8 + c, _mm512_shuffle_f32x4(t[c], t[8 + c], 0xDD));
    out(12 + c, _mm512_shuffle_f32x4(t[4 + c], t[12 + c], 0xDD));
  }
}

/// 16 x 16 four-byte elements (transpose_16x16_lanes4 straight from the source rows).
/// `Part`: only destination rows [0, nb) exist (1 <= nb < TB: a group B shorter than a tile,
/// or the last step of a streamed one): each source row is read through a mask of its first nb
/// elements, which also keeps the loads from touching memory past them, and the other rows are
/// not stored.
template <>
struct line_micro<4> {
  static constexpr int T = 16, TB = 16;
  template <bool NT = true, bool Part = false, class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d, [[maybe_unused]] int nb = TB) {
    tile_to<Part>(s, [&](int row, auto v) { put<NT>(d(row), v); }, nb);
  }
  /// tile, each destination row handed over as out(row, v) (only rows [0, nb) with Part).
  template <bool Part = false, class S, class Out>
  LAZYVIEW_ALWAYS_INLINE static void tile_to(S s, Out&& out, [[maybe_unused]] int nb = TB) {
    __m512 r[16];
    LAZYVIEW_UNROLL
    for (int i = 0; i < 16; ++i) {
      const auto* const p = reinterpret_cast<const float*>(s(i));
      if constexpr (Part)
        r[i] = _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << nb) - 1), p);
      else
        r[i] = _mm512_loadu_ps(p);
    }
    transpose_16x16_lanes4(r, [&](int row, __m512 v) {
      if (!Part || row < nb) out(row, v);
    });
  }
  /// Half a tile along B: 16 (A) x 8 (B) four-byte elements, from 32 bytes of each of the 16
  /// source rows s(i) to one whole line of each of the 8 destination rows d(j), by plain stores.
  /// For steps of B whose 16 destination rows crowd few L1 sets (engine_plan::half_steps).
  /// Source rows i and 4 + i (and 8 + i, 12 + i) share a register, so that the in-lane stages
  /// of an 8 x 8 transpose leave column c of rows 0-3 and 4-7 in lanes 0 and 2 of one register
  /// and of rows 8-11 and 12-15 in another's, which one lane shuffle joins in order.
  template <class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void half_tile(S s, D d) {
    half_tile_to(s, [&](int row, __m512 v) { put<false>(d(row), v); });
  }
  /// half_tile, each of the 8 destination rows handed over as out(row, v), in the order 0, 4,
  /// 1, 5, 2, 6, 3, 7 (kernels::joined_rows_step joins them to each row's last vector).
  template <class S, class Out>
  LAZYVIEW_ALWAYS_INLINE static void half_tile_to(S s, Out&& out) {
    __m512 r[8], t[8];
    // rows i and j in the low and high halves (vinsertf64x4: AVX-512F, where vinsertf32x8 needs DQ)
    const auto two = [&](int i, int j) {
      const __m256d lo = _mm256_loadu_pd(reinterpret_cast<const double*>(s(i)));
      const __m256d hi = _mm256_loadu_pd(reinterpret_cast<const double*>(s(j)));
      return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1));
    };
    LAZYVIEW_UNROLL
    for (int i = 0; i < 4; ++i) {
      r[i] = two(i, 4 + i);
      r[4 + i] = two(8 + i, 12 + i);
    }
    // r[g + c], g = 0 or 4: column c of four rows in lanes 0 and 2, column 4 + c in lanes 1, 3
    transpose_4x4_in_lanes(r, t);
    LAZYVIEW_UNROLL
    for (int c = 0; c < 4; ++c) {
      out(c, _mm512_shuffle_f32x4(r[c], r[4 + c], 0x88));
      out(4 + c, _mm512_shuffle_f32x4(r[c], r[4 + c], 0xDD));
    }
  }
};

/// 8 x 8 eight-byte elements: an in-lane unpack, then two 128-bit-lane stages. `Part`: as for
/// line_micro<4>, destination rows [0, nb) with 1 <= nb < 8.
template <>
struct line_micro<8> {
  static constexpr int T = 8, TB = 8;
  template <bool NT = true, bool Part = false, class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d, [[maybe_unused]] int nb = TB) {
    tile_to<Part>(s, [&](int row, auto v) { put<NT>(d(row), v); }, nb);
  }
  template <bool Part = false, class S, class Out>
  LAZYVIEW_ALWAYS_INLINE static void tile_to(S s, Out&& out_row, [[maybe_unused]] int nb = TB) {
    __m512d r[8], t[8];
    LAZYVIEW_UNROLL
    for (int i = 0; i < 8; ++i) {
      const auto* const p = reinterpret_cast<const double*>(s(i));
      if constexpr (Part)
        r[i] = _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << nb) - 1), p);
      else
        r[i] = _mm512_loadu_pd(p);
    }
    // t[2k]: rows 2k, 2k+1 at even columns (lane l: column 2l); t[2k+1]: odd columns
    LAZYVIEW_UNROLL
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
      t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
    }
    const auto out = [&](int row, __m512d v) {
      if (!Part || row < nb) out_row(row, v);
    };
    LAZYVIEW_UNROLL
    for (int h = 0; h < 2; ++h) {
      // columns h, 4 + h from lanes 0, 2; columns 2 + h, 6 + h from lanes 1, 3
      const __m512d u0 = _mm512_shuffle_f64x2(t[h], t[2 + h], 0x88), u1 = _mm512_shuffle_f64x2(t[h], t[2 + h], 0xDD);
      const __m512d u2 = _mm512_shuffle_f64x2(t[4 + h], t[6 + h], 0x88), u3 = _mm512_shuffle_f64x2(t[4 + h], t[6 + h], 0xDD);
      out(h, _mm512_shuffle_f64x2(u0, u2, 0x88));
      out(4 + h, _mm512_shuffle_f64x2(u0, u2, 0xDD));
      out(2 + h, _mm512_shuffle_f64x2(u1, u3, 0x88));
      out(6 + h, _mm512_shuffle_f64x2(u1, u3, 0xDD));
    }
  }
};
#if defined(__AVX512BW__)
/// The permutation that gathers into each dword of a register element c of each of the G = 4 / E
/// source rows it holds (row j in its j-th lane of 64 / G bytes): element q of the result is
/// element 16 * (q % G) + q / G of the register. Example, E = 2: words (a0..a15, b0..b15) ->
/// (a0, b0, a1, b1, ..., a15, b15).
template <int E>
struct rows_to_dwords {
  alignas(64) std::uint8_t index[64]{};
  constexpr rows_to_dwords() {
    constexpr int G = 4 / E;
    for (int q = 0; q < 64 / E; ++q) index[q * E] = static_cast<std::uint8_t>(16 * (q % G) + q / G);
  }
  static __m512i get() {
    static constexpr rows_to_dwords table{};
    return _mm512_load_si512(table.index);
  }
};

/// Loads the first 16 elements (TB) of G = 4 / E source rows r0, r0+1, ... into one register,
/// row j in its j-th 64 / G-byte lane; `Part`: only the first nb of each (the rest zero, and not
/// read).
template <int E, bool Part, class S>
LAZYVIEW_ALWAYS_INLINE inline __m512i load_rows16(S s, int r0, [[maybe_unused]] int nb) {
  constexpr int G = 4 / E;
  __m512i z;
  if constexpr (Part) {
    const auto m = (std::uint64_t{1} << nb) - 1;
    const auto row = [&](int j) {
      if constexpr (E == 1)
        return _mm512_maskz_loadu_epi8(static_cast<__mmask64>(m), s(r0 + j));
      else
        return _mm512_maskz_loadu_epi16(static_cast<__mmask32>(m), s(r0 + j));
    };
    if constexpr (E == 1) {
      z = row(0);
      z = _mm512_inserti32x4(z, _mm512_castsi512_si128(row(1)), 1);
      z = _mm512_inserti32x4(z, _mm512_castsi512_si128(row(2)), 2);
      z = _mm512_inserti32x4(z, _mm512_castsi512_si128(row(3)), 3);
    } else {
      z = _mm512_inserti64x4(row(0), _mm512_castsi512_si256(row(1)), 1);
    }
  } else if constexpr (G == 4) {
    const auto row = [&](int j) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(s(r0 + j))); };
    z = _mm512_castsi128_si512(row(0));
    z = _mm512_inserti32x4(z, row(1), 1);
    z = _mm512_inserti32x4(z, row(2), 2);
    z = _mm512_inserti32x4(z, row(3), 3);
  } else {
    const auto row = [&](int j) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s(r0 + j))); };
    z = _mm512_inserti64x4(_mm512_castsi256_si512(row(0)), row(1), 1);
  }
  return z;
}

/// 64 x 16 bytes (E = 1, VBMI) or 32 x 16 two-byte elements (E = 2): per register, 4 / E source
/// rows of 16 elements, permuted so that each dword holds one element of each row
/// (rows_to_dwords), then the 16 x 16 transpose of dwords: dword k of destination row c is
/// element c of source rows (4 / E) k, ... `Part`: as for line_micro<4>.
/// Example, E = 1: destination row 5 = bytes 5 of source rows 0..63, each dword 4 rows' worth.
/// Against the SSE2 8 x 8 tiles that took these elements before, bench/ rows on a 2-core Zen 4
/// VM, GB/s read + written, medians of 7 alternated runs, 1 thread (2 in brackets):
/// (4096,4096).t() uint8 4.7 -> 19.0 (9.3 -> 36.0), (4160,4032).t() 13.5 -> 29.2 (26.8 -> 51.1),
/// (512,512).t() in cache 11.8 -> 44.2, (4096,2048).t() bf16 9.2 -> 24.6 (18.2 -> 44.7); memcpy
/// 50-54 (92-101), 108 in cache.
template <int E>
struct line_micro_narrow {
  static constexpr int T = 64 / E, TB = 16;
  template <bool NT = true, bool Part = false, class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d, [[maybe_unused]] int nb = TB) {
    tile_to<Part>(s, [&](int row, auto v) { put<NT>(d(row), v); }, nb);
  }
  template <bool Part = false, class S, class Out>
  LAZYVIEW_ALWAYS_INLINE static void tile_to(S s, Out&& out, [[maybe_unused]] int nb = TB) {
    constexpr int G = 4 / E;
    const __m512i perm = rows_to_dwords<E>::get();
    __m512 r[16];
    LAZYVIEW_UNROLL
    for (int k = 0; k < 16; ++k) {
      const __m512i z = load_rows16<E, Part>([&](int i) { return reinterpret_cast<const char*>(s(i)); }, G * k, nb);
      if constexpr (E == 1)
        r[k] = _mm512_castsi512_ps(_mm512_permutexvar_epi8(perm, z));
      else
        r[k] = _mm512_castsi512_ps(_mm512_permutexvar_epi16(perm, z));
    }
    transpose_16x16_lanes4(r, [&](int row, __m512 v) {
      if (!Part || row < nb) out(row, v);
    });
  }
};

template <>
struct line_micro<2> : line_micro_narrow<2> {};
#if defined(__AVX512VBMI__)
template <>
struct line_micro<1> : line_micro_narrow<1> {};
#endif
#endif  // __AVX512BW__
LAZYVIEW_AVX512_WARNINGS_ON
#endif  // __AVX512F__

#if !defined(__AVX512F__)
inline void copy_line(const char* s, char* d) { std::memcpy(d, s, 64); }
#endif

/// Tiles [k0, k1) of the G = 64 / (TB * E) whole-line tiles of 1- or 2-byte elements
/// (line_micro<E>) that read one line of each of their T source rows, those lines copied whole
/// to a small buffer first (see kernels::transpose_lines): `line(i)` is the line in source row
/// i; destination row j of the G * TB goes to out(j, v). Staged, a line is read once, whole,
/// where the tiles read in place each took a part of it.
/// Example, bytes: 64 lines staged, then 4 tiles of 64 x 16 from bytes 0, 16, 32 and 48 of each.
template <int E, class L, class Out>
LAZYVIEW_ALWAYS_INLINE inline void staged_tiles_to(L line, Out&& out, int k0 = 0, int k1 = 64 / (line_micro<E>::TB * E)) {
  constexpr int T = line_micro<E>::T, TB = line_micro<E>::TB;
  alignas(64) char stage[T * 64];
  for (int i = 0; i < T; ++i) copy_line(line(i), stage + i * 64);
  for (int k = k0; k < k1; ++k)
    line_micro<E>::tile_to([&](int i) { return stage + i * 64 + k * TB * E; },
                           [&](int j, auto v) { out(k * TB + j, v); });
}

#if defined(LAZYVIEW_HAVE_SSE2)
// The streaming copies: 32-byte stores (VMOVNTPS) with AVX2, 16-byte ones (MOVNTPS) with SSE2
// alone, the baseline x86-64 build, which compilers target without -march; with AVX-512 whole
// lines out of a buffer go 64 bytes a store.
#if defined(__AVX2__)
using nt_vector = __m256;
inline nt_vector nt_load(const char* s) { return _mm256_loadu_ps(reinterpret_cast<const float*>(s)); }
inline void nt_store(char* d, nt_vector v) { _mm256_stream_ps(reinterpret_cast<float*>(d), v); }
#else
using nt_vector = __m128;
inline nt_vector nt_load(const char* s) { return _mm_loadu_ps(reinterpret_cast<const float*>(s)); }
inline void nt_store(char* d, nt_vector v) { _mm_stream_ps(reinterpret_cast<float*>(d), v); }
#endif
inline constexpr int nt_bytes = static_cast<int>(sizeof(nt_vector));

/// Copies n bytes with streaming stores; bytes before the first `head`-byte boundary of d (32 or
/// 64) and after the last one go by plain stores. A streaming store to part of a line
/// costs a read of that line unless the rest of the line follows at once: runs written back to
/// back (a run's tail line completed by the next run's head) take 32; runs far apart take 64,
/// so that only whole lines stream ((8192,4,136).permute(1,0,2) fp32, 18 MiB, 1 thread: 0.86 ->
/// 0.94 of memcpy, where 64 for back-to-back runs lost 0.99 -> 0.94).
inline void copy_nt(const char* s, char* d, index_t n, index_t head = 32) {
  index_t i = static_cast<index_t>((head - (reinterpret_cast<std::uintptr_t>(d) & (head - 1))) & (head - 1));
  if (i >= n) {
    std::memcpy(d, s, static_cast<std::size_t>(n));
    return;
  }
  if (i != 0) std::memcpy(d, s, static_cast<std::size_t>(i));  // (else a call per aligned run)
  for (; i + 128 <= n; i += 128) {
    nt_vector v[128 / nt_bytes];
    LAZYVIEW_UNROLL
    for (int k = 0; k < 128 / nt_bytes; ++k) v[k] = nt_load(s + i + k * nt_bytes);
    LAZYVIEW_UNROLL
    for (int k = 0; k < 128 / nt_bytes; ++k) nt_store(d + i + k * nt_bytes, v[k]);
  }
  for (; i + head <= n; i += head)
    for (index_t j = i; j < i + head; j += nt_bytes) nt_store(d + j, nt_load(s + j));
  if (i < n) std::memcpy(d + i, s + i, static_cast<std::size_t>(n - i));
}
/// copy_nt for whole cache lines: no head or tail, so a row out of a transpose buffer costs one
/// load and one store per line with AVX-512 (two with AVX2, four with SSE2; the general copy_nt
/// took 38 instructions per 128-byte row).
/// @pre s and d 64-byte aligned, n a multiple of 64.
inline void copy_nt_blocks(const char* s, char* d, index_t n) {
#if defined(__AVX512F__)
  for (index_t i = 0; i < n; i += 64)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d + i), _mm512_load_si512(reinterpret_cast<const __m512i*>(s + i)));
#else
  for (index_t i = 0; i < n; i += nt_bytes) nt_store(d + i, nt_load(s + i));
#endif
}
/// copy_nt of a run that starts and ends on 32-byte boundaries of d (16 without AVX): streaming
/// stores throughout, with no head, tail or call (see kernels::run_rows).
/// @pre d and n multiples of 32.
LAZYVIEW_ALWAYS_INLINE inline void copy_nt_whole(const char* s, char* d, index_t n) {
  for (index_t i = 0; i < n; i += nt_bytes) nt_store(d + i, nt_load(s + i));
}
inline void store_fence() { _mm_sfence(); }
inline constexpr bool have_nt = true;
#else
inline void copy_nt(const char* s, char* d, index_t n, index_t = 32) { std::memcpy(d, s, static_cast<std::size_t>(n)); }
inline void copy_nt_blocks(const char* s, char* d, index_t n) { std::memcpy(d, s, static_cast<std::size_t>(n)); }
inline void copy_nt_whole(const char* s, char* d, index_t n) { std::memcpy(d, s, static_cast<std::size_t>(n)); }
inline void store_fence() {}
inline constexpr bool have_nt = false;
#endif

}  // namespace lazyview::kernels

#include "wide_micro.hpp"  // (micro's specialisations for 16- and 32-byte elements)
