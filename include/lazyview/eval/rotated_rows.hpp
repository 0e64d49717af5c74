#pragma once
// Streamed panels (engine_plan::panels) of a transpose whose destination rows do not start on
// lines (nt_rows): each whole-line tile hands over one vector per destination row, 64 bytes that
// straddle two of its lines; rotated in the register onto the line it ends in and joined there to
// the bytes the row's last vector left, it completes that line, which streams at once. Only a
// row's first and last lines, partial, go plainly, or are carried from one panel to the next.
#include <algorithm>
#include <cstdint>

#include "engine_kernels.hpp"
#include "line_writer.hpp"

namespace lazyview::kernels {

#if defined(__AVX512F__)
LAZYVIEW_AVX512_WARNINGS_OFF  // (GCC 12's false reports: config.hpp)

/// The rows of B a sweep of transpose_rotated_rows keeps the unfinished lines of, on the stack (a
/// line, a lane permute and a mask each): a streamed panel's unit of B is panel_chunk_bytes of
/// each source row (32 rows of 4-byte elements), its last chunk under twice that; a longer range
/// of B goes in several sweeps.
inline constexpr int rotated_sweep_rows = 64;

/// Rows [b_begin, b_end) of B across A indices [a_begin, a_end) of one outer iteration (s, d at
/// its start; offA, offB the offsets of A in the source and of B in the destination), streamed
/// as panels do (a_major: each tile of A sweeps the unit's B; `next`'s source lines asked for a
/// share per tile of A), for destination rows that start anywhere in a line.
/// Per destination row j, with m the offset of its piece into a line: a tile's vector v (the
/// row's 64 bytes at A index a) is rotated by m bytes, so that its first 64 - m bytes lie where
/// they go in the line that ends in it, and the lanes below m take the last m bytes of the row's
/// previous vector (or, at the unit's first tile, of the line `carry` holds for the row). That
/// line is whole and streams. A last tile moved back to end at a_end adds only its new bytes.
/// What is left at the end (the row's last partial line) goes to `carry` for the unit of the next
/// panel over the same rows, or is stored plainly; without a carry in, the first partial line
/// is stored plainly too, under a mask.
/// Why (a reading, not pinned down: the VM has no counters): the buffer of nt_rows
/// (transpose_lines' stream_rows) lays a step's tiles out like the destination's lines and
/// streams them after the step, so that a step reads without writing and then writes without
/// reading; here every line leaves as its tile completes it. It runs in panels only: in chunks
/// down A it lost to the buffer (use_streaming_stores has the figures).
/// @pre E = 4 or 8 (line_micro<E>::T * E = 64); every destination row 4-byte aligned;
///      a_end - a_begin >= T; carry.rows (if set) a line for every B index from carry.b0.
/// Example: (3000,5000).t() fp32: rows of 12000 bytes, at 0 and 32 into a line in turn; a unit
/// is 512 indices of A (2 KiB of each row) across 32 of B; row 1's vectors rotate by 32 bytes,
/// each streaming the line its first half completes, the last 32 bytes carried to the next
/// panel's unit over rows 0-31.
template <int E>
void transpose_rotated_rows(const char* s, char* d, const index_t* offA, const index_t* offB, index_t a_begin,
                            index_t a_end, index_t b_begin, index_t b_end, const unit_source& next,
                            const line_carry& carry) {
  using tile_t = line_micro<E>;
  constexpr int T = tile_t::T, TB = tile_t::TB, R = rotated_sweep_rows;
  static_assert(T * E == 64);
  char* const dcol = d + a_begin * E;
  const index_t* const oa = offA + a_begin;
  const index_t na = a_end - a_begin, whole = na / T;
  const int tail = static_cast<int>(na % T * E);  // new bytes of the last tile, moved back
  const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  // lanes i of the result take lane i - r of v (mod 16): v rotated up by 4r bytes
  const auto rotation = [&](int r) {
    return _mm512_and_si512(_mm512_sub_epi32(iota, _mm512_set1_epi32(r)), _mm512_set1_epi32(15));
  };
  const auto low_lanes = [](int bytes) { return static_cast<__mmask16>((1u << (bytes / 4)) - 1); };
  const auto bits = [](auto v) {
    if constexpr (E == 4)
      return _mm512_castps_si512(v);
    else
      return _mm512_castpd_si512(v);
  };
  unit_requests<E> req(next, offA, whole + (tail != 0));
  for (index_t g0 = b_begin; g0 < b_end; g0 += R) {
    const int rows = static_cast<int>(std::min<index_t>(R, b_end - g0));
    __m512i left[R], rot[R];  // per row: its unfinished line (lanes below m[j]); its rotation
    __mmask16 below[R];
    char* line[R];  // the line row j's piece starts in
    int m[R];
    for (int j = 0; j < rows; ++j) {
      char* const dj = dcol + offB[g0 + j];
      m[j] = static_cast<int>(reinterpret_cast<std::uintptr_t>(dj) & 63);
      line[j] = dj - m[j];
      rot[j] = rotation(m[j] / 4);
      below[j] = low_lanes(m[j]);
      left[j] = carry.in ? _mm512_loadu_si512(carry.rows + (g0 + j - carry.b0) * 64) : _mm512_setzero_si512();
    }
    // the tile at A index a over rows [r0, r0 + nb) of this sweep, each vector handed to out(j, v)
    const auto tile_at = [&](index_t a, int r0, int nb, auto&& out) {
      const char* const sb = s + (g0 + r0) * E;
      const auto src = [&](int i) { return sb + oa[a + i]; };
      const auto to = [&](int i, auto v) { out(r0 + i, bits(v)); };
      if (nb == TB)
        tile_t::template tile_to<false>(src, to);
      else
        tile_t::template tile_to<true>(src, to, nb);
    };
    const auto steps = [&](auto&& f) {
      for (int r0 = 0; r0 < rows; r0 += TB) f(r0, std::min(TB, rows - r0));
    };
    for (index_t t = 0; t < whole; ++t) {
      req.ask(t);
      const index_t k = t * 64;
      steps([&](int r0, int nb) {
        tile_at(t * T, r0, nb, [&](int j, __m512i v) {
          const __m512i r = _mm512_permutexvar_epi32(rot[j], v);
          const __m512i l = _mm512_mask_mov_epi32(r, below[j], left[j]);
          if (k == 0 && !carry.in && m[j] != 0)
            _mm512_mask_storeu_epi32(line[j], static_cast<__mmask16>(~below[j]), l);
          else
            _mm512_stream_si512(reinterpret_cast<__m512i*>(line[j] + k), l);
          left[j] = r;
        });
      });
    }
    const index_t end = whole * 64;  // the line after the last whole tile's, from line[j]
    if (tail != 0) {
      req.ask(whole);
      steps([&](int r0, int nb) {
        tile_at(na - T, r0, nb, [&](int j, __m512i v) {
          // the new bytes are v's last `tail`: rotated by m + tail, they follow the row's others
          const int to = m[j] + tail;
          const __m512i r = _mm512_permutexvar_epi32(rotation((to & 63) / 4), v);
          const __m512i l = _mm512_mask_mov_epi32(r, below[j], left[j]);
          if (to >= 64) {
            _mm512_stream_si512(reinterpret_cast<__m512i*>(line[j] + end), l);
            left[j] = r;
            line[j] += 64;
          } else {
            left[j] = l;
          }
          m[j] = to & 63;
        });
      });
    }
    for (int j = 0; j < rows; ++j) {
      if (m[j] == 0) continue;
      if (carry.out)
        _mm512_storeu_si512(carry.rows + (g0 + j - carry.b0) * 64, left[j]);
      else
        _mm512_mask_storeu_epi32(line[j] + end, low_lanes(m[j]), left[j]);
    }
  }
}

LAZYVIEW_AVX512_WARNINGS_ON
#endif  // __AVX512F__

}  // namespace lazyview::kernels
