#pragma once
// Two rows of 8-byte elements at once where their sources lie side by side: the nest's rows
// (eval/nest.hpp) whose loop around them reads the next element (source stride 8) and whose own
// loop writes a destination row (destination stride 8). FLUX unpack's pairs are such rows: the
// nest of unpack (1,C,H,W) fp32 runs (C,H/2,2,W/2):(16,..,8,..):(..,..,W*4,8) in bytes, and
// its rows 0 and 1 of the loop of 2 read the two halves of each 16-byte piece of the source.
// One 16-byte load then serves both rows, and an unpack parts the halves.
#include <cstring>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "engine_plan.hpp"  // byte_loop

namespace lazyview {

namespace kernels {

/// Whether move_row_pair runs on this target (16-byte loads and unpacks: SSE2).
constexpr bool pairs_rows() {
#if defined(__SSE2__)
  return true;
#else
  return false;
#endif
}

#if defined(__SSE2__)
/// Moves row `in` from s to d0 and the row beside it from s + 8 to d1: element i of the rows from
/// s + i * in.ss and s + i * in.ss + 8 to d0 + 8 i and d1 + 8 i. Four elements of each row a step
/// with AVX2 (four 16-byte loads, two unpacks, two 32-byte stores; a tail of 1 to 3 as a last
/// four moved back over elements done), two with SSE2, a row of one by halves of one load.
/// @pre in.ds == 8, in.n >= 1; the 16 bytes at each s + i * in.ss readable.
/// Example: FLUX unpack (1,7,14,14) fp32, the rows dh = 0 and 1 of (7):(112):(8) (w), from
/// the source's pair at (h, w) of channel c: s = 16 c + 784 h, d0 = 784 c + 112 h, d1 = d0 + 56.
inline void move_row_pair(const char* s, char* d0, char* d1, const byte_loop& in) {
  const index_t ss = in.ss;
  index_t n = in.n;
  const auto ld = [](const char* x) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(x)); };
  const auto st = [](char* y, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(y), v); };
#if defined(__AVX2__)
  if (n >= 4) {
    // a = (x0, x2), b = (x1, x3) by 128-bit lanes, x_i = (row 0's i, row 1's i): the unpacks
    // of a and b take each lane's low (high) halves, row 0's (row 1's) i, i + 1 and i + 2, i + 3
    const auto four = [ss, ld](const char* x, char* y0, char* y1) {
      const __m256i a = _mm256_inserti128_si256(_mm256_castsi128_si256(ld(x)), ld(x + 2 * ss), 1);
      const __m256i b = _mm256_inserti128_si256(_mm256_castsi128_si256(ld(x + ss)), ld(x + 3 * ss), 1);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y0), _mm256_unpacklo_epi64(a, b));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(y1), _mm256_unpackhi_epi64(a, b));
    };
    const index_t last = n - 4;
    for (index_t i = 0; i < last; i += 4) four(s + i * ss, d0 + i * 8, d1 + i * 8);
    four(s + last * ss, d0 + last * 8, d1 + last * 8);
    return;
  }
#endif
  if (n >= 2) {
    const auto two = [ss, ld, st](const char* x, char* y0, char* y1) {
      const __m128i a = ld(x), b = ld(x + ss);
      st(y0, _mm_unpacklo_epi64(a, b));
      st(y1, _mm_unpackhi_epi64(a, b));
    };
    const index_t last = n - 2;
    for (index_t i = 0; i < last; i += 2) two(s + i * ss, d0 + i * 8, d1 + i * 8);
    two(s + last * ss, d0 + last * 8, d1 + last * 8);
    return;
  }
  const __m128i a = ld(s);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(d0), a);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(d1), _mm_unpackhi_epi64(a, a));
}
#endif

}  // namespace kernels

}  // namespace lazyview
