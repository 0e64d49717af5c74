#pragma once
// Lane permutes across a 64-byte vector (AVX-512: vpermb with VBMI, vpermw with BW, vpermd and
// vpermq with F), blends, loads and stores of lanes of B bytes picked by a mask, and the
// constant tables that steer them: the steps of the strided rows (eval/strided_rows.hpp) and of
// the narrow transposes (eval/narrow.hpp).
#include <cstdint>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "../config.hpp"

namespace lazyview {

namespace kernels {

/// Whether this target permutes lanes of B bytes across a 64-byte vector (AVX-512F: 4 and 8
/// bytes; BW: 2; VBMI: 1).
constexpr bool lane_permutes(int B) {
#if defined(__AVX512VBMI__)
  if (B == 1) return true;
#endif
#if defined(__AVX512BW__)
  if (B == 2) return true;
#endif
#if defined(__AVX512F__)
  if (B == 4 || B == 8) return true;
#endif
  return B < 0;
}

/// The mask of the first n of a vector's lanes, 0 <= n <= 64. Example: 3: 0b111.
constexpr std::uint64_t first_lanes(int n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; }

/// Writes v into lane o of a permute's index table m, as B bytes little-endian.
/// Example: B = 2, o = 3, v = 7: m[6] = 7, m[7] = 0.
constexpr void put_lane(std::uint8_t* m, int B, int o, std::uint64_t v) {
  for (int b = 0; b < B; ++b) m[o * B + b] = static_cast<std::uint8_t>(v >> (8 * b));
}

#if defined(__AVX512F__)
/// Lanes of B bytes from a or b as idx picks them (vpermt2b/w/d/q). @pre lane_permutes(B).
template <int B>
LAZYVIEW_ALWAYS_INLINE inline __m512i permute_two(__m512i a, __m512i idx, __m512i b) {
#if defined(__AVX512VBMI__)
  if constexpr (B == 1) return _mm512_permutex2var_epi8(a, idx, b);
#endif
#if defined(__AVX512BW__)
  if constexpr (B == 2) return _mm512_permutex2var_epi16(a, idx, b);
#endif
  if constexpr (B == 4) return _mm512_permutex2var_epi32(a, idx, b);
  return _mm512_permutex2var_epi64(a, idx, b);
}

/// Lanes of B bytes from v as idx picks them (vpermb/w/d/q). @pre lane_permutes(B).
// (zero-masked, all lanes: g++ 12's unmasked forms start from _mm512_undefined, which -Wall
// reports as uninitialised, bug 105593; the compiler drops the mask)
template <int B>
LAZYVIEW_ALWAYS_INLINE inline __m512i permute_one(__m512i idx, __m512i v) {
#if defined(__AVX512VBMI__)
  if constexpr (B == 1) return _mm512_maskz_permutexvar_epi8(~__mmask64{0}, idx, v);
#endif
#if defined(__AVX512BW__)
  if constexpr (B == 2) return _mm512_maskz_permutexvar_epi16(~__mmask32{0}, idx, v);
#endif
  if constexpr (B == 4) return _mm512_maskz_permutexvar_epi32(0xFFFF, idx, v);
  return _mm512_maskz_permutexvar_epi64(0xFF, idx, v);
}

/// Lanes of B bytes: b's where their bit in k is set, else a's. @pre B = 1 or 2: BW.
template <int B>
LAZYVIEW_ALWAYS_INLINE inline __m512i blend_lanes(std::uint64_t k, __m512i a, __m512i b) {
#if defined(__AVX512BW__)
  if constexpr (B == 1) return _mm512_mask_blend_epi8(static_cast<__mmask64>(k), a, b);
  if constexpr (B == 2) return _mm512_mask_blend_epi16(static_cast<__mmask32>(k), a, b);
#endif
  if constexpr (B == 4) return _mm512_mask_blend_epi32(static_cast<__mmask16>(k), a, b);
  return _mm512_mask_blend_epi64(static_cast<__mmask8>(k), a, b);
}

/// Lanes of B bytes (1, 2, 4, 8): a load and a store of those whose bits in `k` are set (the
/// others are neither read nor written, nor can they fault). @pre B = 1 or 2: BW.
template <int B>
LAZYVIEW_ALWAYS_INLINE inline __m512i load_lanes(const char* s, std::uint64_t k) {
#if defined(__AVX512BW__)
  if constexpr (B == 1) return _mm512_maskz_loadu_epi8(static_cast<__mmask64>(k), s);
  if constexpr (B == 2) return _mm512_maskz_loadu_epi16(static_cast<__mmask32>(k), s);
#endif
  if constexpr (B == 4) return _mm512_maskz_loadu_epi32(static_cast<__mmask16>(k), s);
  return _mm512_maskz_loadu_epi64(static_cast<__mmask8>(k), s);
}
template <int B>
LAZYVIEW_ALWAYS_INLINE inline void store_lanes(char* d, std::uint64_t k, __m512i v) {
#if defined(__AVX512BW__)
  if constexpr (B == 1) return _mm512_mask_storeu_epi8(d, static_cast<__mmask64>(k), v);
  if constexpr (B == 2) return _mm512_mask_storeu_epi16(d, static_cast<__mmask32>(k), v);
#endif
  if constexpr (B == 4) return _mm512_mask_storeu_epi32(d, static_cast<__mmask16>(k), v);
  if constexpr (B == 8) return _mm512_mask_storeu_epi64(d, static_cast<__mmask8>(k), v);
}
#endif

}  // namespace kernels

}  // namespace lazyview
