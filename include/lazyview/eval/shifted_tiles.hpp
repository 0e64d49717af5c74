#pragma once
// Streamed transposes in whole-line tiles (AVX-512) into destination rows that all start the
// same m bytes into a cache line (engine_plan::nt_shifted): a std::vector from glibc starts 16
// bytes into a line, and so does every row of FLUX's pack into it. Each tile's row line is
// moved by m in registers, its first m bytes taken from the row's line before (one two-source
// permute a line), and streams to the aligned line it covers: no buffer between the tiles and
// memory. The line a row's tail shares with the next row's head streams too where the two rows
// lie back to back, in one unit or in two that run one after the other on a thread (a unit's
// tails carried to the next, shifted_carry); elsewhere each part of it goes plainly.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "engine_kernels.hpp"
#include "line_writer.hpp"  // line_carry, seam_lists

namespace lazyview {

namespace kernels {

#if defined(__AVX512F__)
inline __m512i line_bits(__m512 v) { return _mm512_castps_si512(v); }
inline __m512i line_bits(__m512d v) { return _mm512_castpd_si512(v); }

/// Moves lines m bytes later, m a multiple of E (lanes of min(E, 4) bytes: bytes need VBMI, 2-byte
/// lanes BW, which the whole-line tiles of such elements need anyway): of(prev, cur) is the
/// aligned line whose first m bytes are the last m of `prev` and whose rest is the first 64 - m
/// of `cur`. Example, m = 16: dwords 12-15 of prev, then dwords 0-11 of cur.
template <int E>
class line_shift {
 public:
  explicit line_shift(index_t m) {
    // lane i of the result: lane i + L - m / W of the pair (prev, cur), L lanes a line
    constexpr int W = E < 4 ? E : 4, L = 64 / W;
    using lane_t = std::conditional_t<W == 1, std::uint8_t, std::conditional_t<W == 2, std::uint16_t, std::uint32_t>>;
    alignas(64) lane_t idx[L];
    for (int i = 0; i < L; ++i) idx[i] = static_cast<lane_t>(i + L - static_cast<int>(m) / W);
    idx_ = _mm512_load_si512(idx);
  }
  __m512i of(__m512i prev, __m512i cur) const {
    if constexpr (E == 1) {
#if defined(__AVX512VBMI__)
      return _mm512_permutex2var_epi8(prev, idx_, cur);
#else
      return prev;  // (never: no whole-line byte tiles without VBMI)
#endif
    } else if constexpr (E == 2) {
#if defined(__AVX512BW__)
      return _mm512_permutex2var_epi16(prev, idx_, cur);
#else
      return prev;  // (never: no whole-line 2-byte tiles without BW)
#endif
    } else {
      return _mm512_permutex2var_epi32(prev, idx_, cur);
    }
  }

 private:
  __m512i idx_;
};

/// One work unit of an nt_shifted plan in whole-line tiles: B indices [b_begin, b_end) across all
/// of A (A whole), every destination row m = (d + offB[b]) mod 64 bytes into a line, the same m
/// for all, and whole lines long. Per step of B (TB rows; 64 / E rows where 1- and 2-byte tiles
/// stage their source lines, as transpose_lines does), the tiles sweep A; a row's first line is
/// kept for its seam, each later one streams shifted onto the aligned line it straddles. After
/// the sweep, each row's seam goes out: streamed whole, with the last m bytes of the row before,
/// where that row ends at this one's start, else its two parts plainly. With carry.seams, a head
/// that no row of the unit continues is joined to the tail of the unit before that ends where it
/// starts, if carry.in (that unit ran just before on this thread) and it left one, and tails that
/// no row of this unit continues are kept for the unit after, if carry.out (it runs next), not
/// stored plainly; tails of the unit before that no head joined go plainly at the end.
/// `next`: asked for a share per step (unit_requests).
/// Example: FLUX pack (4,16,256,256) fp32 into a std::vector (16 mod 64): 8-byte elements, A = 32
/// (rows of 256 bytes back to back), units of 256 rows of B; per step of 8 rows, 4 tiles along A:
/// lines 1-3 of each row stream shifted, then 8 seams (the unit's first with the last tail of
/// the unit before, kept where that unit ran just before on this thread, else plainly).
/// @pre line_tile_of(E) > 1, na * E a multiple of 64, b_end - b_begin >= 1, 0 < m < 64, m % E == 0.
template <int E>
void transpose_shifted_tiles(const char* s, char* d, const index_t* offA, const index_t* offB, index_t na,
                             index_t b_begin, index_t b_end, const unit_source& next, const line_carry& carry = {}) {
  using micro_t = line_micro<E>;
  constexpr int T = micro_t::T, TB = micro_t::TB, G = 64 / (TB * E), R = G * TB;
  const index_t m = static_cast<index_t>(reinterpret_cast<std::uintptr_t>(d + offB[b_begin]) & 63);
  const line_shift<E> shift(m);
  const index_t lines = na * E / 64;
  alignas(64) __m512i first[R], last[R];  // each row's first line, and its latest one
  const index_t staged_steps = G > 1 ? (b_end - b_begin) / R : 0;
  const index_t steps = staged_steps + (b_end - b_begin - staged_steps * R + TB - 1) / TB;
  unit_requests<E> req(next, offA, steps);
  char* prev_end = nullptr;  // where the row before ends (its last m bytes not yet stored)
  __m512i prev_last = _mm512_setzero_si512();
  // the plain parts of a seam: a row's head (its first 64 - m bytes), a row's tail (its last m)
  const auto head_plain = [&](char* row, __m512i line) {
    alignas(64) char img[64];
    _mm512_store_si512(img, line);
    std::memcpy(row, img, static_cast<std::size_t>(64 - m));
  };
  const auto tail_plain = [&](char* end, __m512i line) {
    alignas(64) char img[64];
    _mm512_store_si512(img, line);
    std::memcpy(end - m, img + 64 - m, static_cast<std::size_t>(m));
  };
  seam_lists lists(carry);  // the tails the unit before left, and those this one leaves
  // a row's tail where no row of this unit starts at its end: kept for the next unit, or plainly
  const auto tail_out = [&](char* end, __m512i line) {
    if (char* const at = lists.keep(end))
      _mm512_store_si512(at, line);
    else
      tail_plain(end, line);
  };
  // a row's head where no row of this unit ends at its start: joined to a carried tail, or plainly
  const auto head_in = [&](char* row, __m512i line) {
    if (const char* const tail = lists.take(row))
      _mm512_stream_si512(reinterpret_cast<__m512i*>(row - m), shift.of(_mm512_load_si512(tail), line));
    else
      head_plain(row, line);
  };
  index_t b = b_begin;
  for (index_t step = 0; b < b_end; ++step) {
    req.ask(step);
    const bool staged = step < staged_steps;
    const int rows = staged ? R : static_cast<int>(std::min<index_t>(TB, b_end - b));
    char* drow[R];
    for (int j = 0; j < rows; ++j) drow[j] = d + offB[b + j];
    const char* const sb = s + b * E;
    for (index_t t = 0; t < lines; ++t) {
      const index_t a = t * T;
      const auto out = [&](int j, auto v) {
        const __m512i x = line_bits(v);
        if (t == 0)
          first[j] = x;
        else
          _mm512_stream_si512(reinterpret_cast<__m512i*>(drow[j] - m + t * 64), shift.of(last[j], x));
        last[j] = x;
      };
      if (staged) {
        if constexpr (G > 1) staged_tiles_to<E>([&](int i) { return sb + offA[a + i]; }, out);
      } else if (rows == TB) {
        micro_t::tile_to([&](int i) { return sb + offA[a + i]; }, out);
      } else {
        micro_t::template tile_to<true>([&](int i) { return sb + offA[a + i]; }, out, rows);
      }
    }
    for (int j = 0; j < rows; ++j) {
      if (prev_end == drow[j]) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(drow[j] - m), shift.of(prev_last, first[j]));
      } else {
        if (prev_end) tail_out(prev_end, prev_last);
        head_in(drow[j], first[j]);
      }
      prev_end = drow[j] + na * E;
      prev_last = last[j];
    }
    b += rows;
  }
  tail_out(prev_end, prev_last);
  lists.close(m);
}
#endif  // __AVX512F__

}  // namespace kernels

}  // namespace lazyview
