#pragma once
// The seams of a transpose cut by peel_rows_to_lines (eval/peeled_rows.hpp): for every
// destination row, its first 64 - m bytes (the line it starts in) and its last m (the line it
// ends in). One whole-line tile of the source rows those bytes come from (the row's last m / E
// A indices, then its first (64 - m) / E) makes a vector per destination row whose low m bytes are
// the row's tail and whose high 64 - m bytes are its head, each in place in its line. Where a
// row's tail line is the next row's head line (rows back to back), the two vectors blend into
// that line, which streams; elsewhere each part is stored under a mask, plainly.
#include <algorithm>
#include <cstdint>

#include "peeled_rows.hpp"
#include "shifted_tiles.hpp"  // line_bits, and the kernels

namespace lazyview {

/// B indices per work unit of the seams (run_seams): per destination row a line is written and
/// 64 bytes are read, so a unit moves 16 KiB each way. Each thread takes the share of the seams'
/// units that matches its share of the body's (run_peeled), and small units keep the shares
/// even: with all the seams on the thread that took the body's last units, (256,16384).t() fp32
/// cut at 2 threads (rows of 1 KiB, a sixteenth of the lines seams) ran 0.94x and, in a second
/// run, 0.98x against the shifted tiles; shared, 1.03x in that run. Where a unit ends, the seam
/// line of its last row and the next unit's first goes as two masked parts, not streamed.
inline constexpr index_t seam_chunk_rows = 256;

/// The work units of transpose e's seams: one per chunk of seam_chunk_rows B indices per outer
/// iteration.
inline index_t seam_units(const engine_plan& e) {
  return e.outer_count() * ((e.nB + seam_chunk_rows - 1) / seam_chunk_rows);
}

namespace kernels {

#if defined(__AVX512F__)
LAZYVIEW_AVX512_WARNINGS_OFF  // (GCC 12's false reports: config.hpp)

/// The seams of destination rows [b_begin, b_end) of one outer iteration (s, d at its start):
/// offA[i] the source offset of the tile's source row i (A index nA - tail + i, then i - tail),
/// offB the destination offsets of B, rows `row` bytes long starting m bytes into a line.
/// @pre line_micro<E>::T > 1; 0 < m < 64, a multiple of E; row a multiple of 64; the source of
///      B index b at b * E from each source row.
/// Example: (4096,4096).t() fp32 into a std::vector: m = 16, tiles of source rows 4092-4095
/// and 0-11; row b's vector: elements of A 4092-4095 (the end of row b) in bytes 0-15, of A
/// 0-11 (the start of row b) in bytes 16-63; rows back to back: vector b - 1's bytes 0-15 and
/// vector b's bytes 16-63 stream to the line row b starts in.
template <int E>
void transpose_seams(const char* s, char* d, const index_t* offA, const index_t* offB, index_t row, index_t m,
                     index_t b_begin, index_t b_end) {
  using tile = line_micro<E>;
  constexpr int TB = tile::TB;
  // the tail's bytes [0, m) in lanes of 4 bytes, or of 1 where the element is narrower
  const auto blend = [m](__m512i tail_from, __m512i head_from) {
    if constexpr (E >= 4) {
      return _mm512_mask_blend_epi32(static_cast<__mmask16>((1u << (m / 4)) - 1), head_from, tail_from);
    } else {
      return _mm512_mask_blend_epi8((std::uint64_t{1} << m) - 1, head_from, tail_from);
    }
  };
  const auto store_part = [m](char* line, __m512i v, bool tail) {
    if constexpr (E >= 4) {
      const auto low = static_cast<__mmask16>((1u << (m / 4)) - 1);
      _mm512_mask_storeu_epi32(line, tail ? low : static_cast<__mmask16>(~low), v);
    } else {
      const std::uint64_t low = (std::uint64_t{1} << m) - 1;
      _mm512_mask_storeu_epi8(line, tail ? low : ~low, v);
    }
  };
  char* pending = nullptr;  // the tail line of the row before, not yet written
  __m512i pv = _mm512_setzero_si512();
  __m512i v[TB];
  for (index_t b = b_begin; b < b_end; b += TB) {
    const int nb = static_cast<int>(std::min<index_t>(TB, b_end - b));
    const auto src_row = [&](int i) { return s + offA[i] + b * E; };
    const auto keep = [&](int j, auto x) { v[j] = line_bits(x); };
    if (nb == TB)
      tile::tile_to(src_row, keep);
    else
      tile::template tile_to<true>(src_row, keep, nb);
    for (int j = 0; j < nb; ++j) {
      char* const start = d + offB[b + j];
      char* const head = start - m;
      if (head == pending) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(head), blend(pv, v[j]));
      } else {
        if (pending) store_part(pending, pv, true);
        store_part(head, v[j], false);
      }
      pending = start + row - m;
      pv = v[j];
    }
  }
  if (pending) store_part(pending, pv, true);
}
LAZYVIEW_AVX512_WARNINGS_ON
#endif

}  // namespace kernels

/// Runs seam units [first, last) (seam_units) of transpose e cut as c says, from src and dst at
/// the plan's start; offB: e's destination offsets of B.
inline void run_seams([[maybe_unused]] const engine_plan& e, [[maybe_unused]] const line_peel& c,
                      [[maybe_unused]] const char* src, [[maybe_unused]] char* dst,
                      [[maybe_unused]] const index_t* offB, [[maybe_unused]] index_t first,
                      [[maybe_unused]] index_t last) {
#if defined(__AVX512F__)
  const index_t chunks = (e.nB + seam_chunk_rows - 1) / seam_chunk_rows;
  index_t offA[64];
  const int T = static_cast<int>(c.head + c.tail);
  for (int i = 0; i < T; ++i) offA[i] = (i < c.tail ? e.nA - c.tail + i : i - c.tail) * e.ga[0].ss;
  for (index_t u = first; u < last; ++u) {
    index_t idx[max_loops];
    const char* s = src + e.src_off;
    char* d = dst + e.dst_off;
    kernels::odometer_seek(e.outer, e.nouter, u / chunks, idx, s, d);
    const index_t b0 = u % chunks * seam_chunk_rows, b1 = std::min(e.nB, b0 + seam_chunk_rows);
    const index_t row = e.nA * e.elem;
    switch (e.elem) {
      case 1:
        if constexpr (kernels::line_tile_of(1) > 1) kernels::transpose_seams<1>(s, d, offA, offB, row, c.m, b0, b1);
        break;
      case 2:
        if constexpr (kernels::line_tile_of(2) > 1) kernels::transpose_seams<2>(s, d, offA, offB, row, c.m, b0, b1);
        break;
      case 4: kernels::transpose_seams<4>(s, d, offA, offB, row, c.m, b0, b1); break;
      case 8: kernels::transpose_seams<8>(s, d, offA, offB, row, c.m, b0, b1); break;
    }
  }
  kernels::store_fence();
#endif
}

}  // namespace lazyview
