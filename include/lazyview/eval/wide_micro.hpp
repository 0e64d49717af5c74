#pragma once
// In-register tiles of wide elements, 16 and 32 bytes (AVX-512): the runs that stay whole in a
// permutation, such as complex128 or fp32 x 4 (RGBA pixels, a head dim of 4) in a transpose.
// Each element is a 128- or 256-bit lane, and a tile row a whole 64-byte register: 4 x 4 of
// 16-byte elements, 2 x 2 of 32-byte ones, transposed by lane shuffles. Without them (and still
// under AVX2 and SSE2) such elements move one at a time (micro's 1 x 1 fallback).
// Why: (a,b,c).permute(1,0,2) fp32, c = 4 (16-byte elements) and 8 (32), in place, 1 thread,
// 2-core Intel Xeon VM (Emerald Rapids), GB/s, medians of 5 alternated processes (3 from
// memory), one at a time -> tiles:
// - in cache: (4096,16,4) 19.6 -> 32.2, (16,4096,4) 25.2 -> 38.6, (256,256,4) 18.7 -> 29.1,
//   (1000,100,4) 17.5 -> 27.1, (60,70,4) 34.9 -> 70.6; (256,256,8) 15.3 -> 22.6, (1000,100,8)
//   16.4 -> 26.2, (60,70,8) 32.0 -> 65.3, (4096,16,8) 24.2 -> 25.7;
// - from memory (64 to 96 MiB): (4096,1024,4) 5.6 -> 11.5, (2000,3000,4) 5.1 -> 12.6,
//   (2000,3000,8) 5.2 -> 13.8; at 2 threads 8.6-12.4 -> 21.0-26.3.
// Their rows being whole lines, they also stream where destination rows start on lines, past
// the streaming threshold (stream_as_grouped in memory_hints.hpp): (4096,1024,4) 29.3.
// AVX2's 2 x 2 tiles of 16-byte elements (two 128-bit lanes a register) were mixed: (1000,100,4)
// 1.71x, (2000,3000,4) 3.05x, but (4096,16,4) 0.74x; they are not here. Copies of up to
// nest_untiled_bytes still take the nest (takes_nest): the tiles lost there.
#include "microkernels.hpp"

namespace lazyview::kernels {

#if defined(__AVX512F__)

/// _mm512_shuffle_i64x2(a, b, Imm): 128-bit lanes Imm[1:0], Imm[3:2] of a, then Imm[5:4],
/// Imm[7:6] of b. Spelled as the masked form with every lane selected (the same instruction,
/// unmasked) because g++ 12's unmasked one passes an `_mm512_undefined_epi32()` that
/// -Wmaybe-uninitialized flags once the tiles are inlined: a build of bench/impl_lazyview.cpp
/// with -O3 -Wall printed 100 such warnings, every one from these tiles (GCC bug 105593, fixed
/// in g++ 13).
template <int Imm>
LAZYVIEW_ALWAYS_INLINE inline __m512i shuffle_lanes(__m512i a, __m512i b) {
  return _mm512_mask_shuffle_i64x2(a, static_cast<__mmask8>(0xFF), a, b, Imm);
}

/// 4 x 4 tile of 16-byte elements: two rounds of 128-bit lane shuffles (8 in all).
/// @post d(j) holds element j of s(0), s(1), s(2), s(3). Example: s(i) = (i0,i1,i2,i3) ->
/// d(1) = (01,11,21,31).
template <>
struct micro<16> {
  static constexpr int T = 4;
  template <class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d) {
    const __m512i r0 = _mm512_loadu_si512(s(0)), r1 = _mm512_loadu_si512(s(1));
    const __m512i r2 = _mm512_loadu_si512(s(2)), r3 = _mm512_loadu_si512(s(3));
    // rows 0 and 1, 2 and 3: lanes (0,1) of each side by side, then lanes (2,3)
    const __m512i t0 = shuffle_lanes<0x44>(r0, r1), t1 = shuffle_lanes<0xEE>(r0, r1);
    const __m512i t2 = shuffle_lanes<0x44>(r2, r3), t3 = shuffle_lanes<0xEE>(r2, r3);
    // even lanes of two of them (0x88), odd lanes (0xDD)
    _mm512_storeu_si512(d(0), shuffle_lanes<0x88>(t0, t2));
    _mm512_storeu_si512(d(1), shuffle_lanes<0xDD>(t0, t2));
    _mm512_storeu_si512(d(2), shuffle_lanes<0x88>(t1, t3));
    _mm512_storeu_si512(d(3), shuffle_lanes<0xDD>(t1, t3));
  }
};

/// 2 x 2 tile of 32-byte elements: the low halves of two rows, then the high halves.
/// @post d(0) = (s(0)[0], s(1)[0]), d(1) = (s(0)[1], s(1)[1]).
template <>
struct micro<32> {
  static constexpr int T = 2;
  template <class S, class D>
  LAZYVIEW_ALWAYS_INLINE static void tile(S s, D d) {
    const __m512i r0 = _mm512_loadu_si512(s(0)), r1 = _mm512_loadu_si512(s(1));
    _mm512_storeu_si512(d(0), shuffle_lanes<0x44>(r0, r1));
    _mm512_storeu_si512(d(1), shuffle_lanes<0xEE>(r0, r1));
  }
};

#endif  // __AVX512F__

}  // namespace lazyview::kernels
