#pragma once
// In-place steps of 8 destination rows of 4- or 8-byte elements (half tiles of 16 along A x 8
// along B, or whole 8 x 8 tiles) for rows that start at different offsets into a line: each
// tile's row vector is joined in a register to the row's previous one, so that every store
// covers one line, whole in the middle of a row and masked at its two ends, where tiles stored as
// they fall would split most stores across two lines.
#include <algorithm>
#include <cstdint>

#include "engine_kernels.hpp"

namespace lazyview::kernels {

/// From these many bytes of a destination row (na * 4) a unit of 4-byte elements goes by
/// joined_rows_step (8-byte elements: from one tile, 64 bytes); and only destinations of
/// joined_rows_min_bytes or more. See joined_rows_fit.
/// Why 256 for 4-byte elements: in-cache transposes through bench/ab_headers, joined rows (with
/// the bound at 64) against the engine before them (half steps or tiles stored across lines), 1
/// thread, medians of 9 rounds: fp32 (20,1000).t() (rows of 80 bytes) 0.74x, (40,1000) (160)
/// 0.80x, bf16 FLUX unpack (1,16,72,72) (144) 0.82x; (50,1000) (200) 1.16x but (56,1000) (224)
/// 0.98x and bf16 (1,16,64,112) (224) 0.94x; past 256, 1.04-1.6x (see joined_rows_step). 8-byte
/// elements against the buffer of stretches they took before (tiles landing in a buffer laid out
/// like the step's rows, which then left by aligned line stores): rows of 72-224 bytes 0.94-1.22x,
/// in all 1.06 in the mean ((9,5000).t() 1.10x, (10,5000) 1.01x, (12,5000) 1.06x, (20,3000)
/// 0.94-1.06x, (24,2000) 1.00x, (28,2000) 1.09x; FLUX unpack fp32 (1,16,36,36) 1.10x,
/// (1,16,64,56) 1.22x), and 1.06-1.24x past 256 bytes (see joined_rows_step): one kernel less.
/// Why not in L1 (under 64 KiB): a store across lines costs little there; the stretches lost
/// there ((33,33).t() of 8-byte elements: 0.72-0.77x).
inline constexpr index_t joined_rows_min_row_bytes = 256;
inline constexpr index_t joined_rows_min_bytes = 64 * 1024;

/// Whether in-place plan p's units of E-byte elements (p.elem, 4 or 8), rows of `row_bytes`,
/// whose rows start at different offsets into a line (rows_offsets_differ, the caller's), go by
/// joined_rows_step: rows of joined_rows_min_row_bytes or more (8-byte elements: any), a
/// destination of joined_rows_min_bytes or more, and a tuning other than zen4.
/// Example: FLUX unpack bf16 (1,16,96,170) (pairs, rows of 340 bytes): yes; (1,16,72,72) (rows of
/// 144 bytes): no; fp32 (1,16,72,72) (pairs of 8 bytes, rows of 288): yes.
/// Why not zen4: on the 2-core Zen 4 VM, a tile's row stored across two lines cost less than the
/// buffer of stretches' second pass, against tiles stored in place (harness, lazyview::copy, 1
/// thread, in cache, GB/s, medians of 7 alternated runs, through stretches -> tiles in place):
/// FLUX unpack fp32 (1,16,96,170) 51.1 -> 72.8 (2 threads 49.8 -> 71.5), (1,16,104,152) 55.1 ->
/// 74.5, (28,36,32,2).permute(0,2,1,3) fp32 62.7 -> 84.9, (25,41,32,2) likewise 59.1 -> 75.0,
/// 8-byte (100,300).t() 63.9 -> 90.5, (57,1000).t() 53.1 -> 69.3, (130,130).t() 50.3 -> 77.0;
/// 8 MiB, (1000,1001).t() 35.6 -> 36.6. Joined rows were measured on the Intel VM only, where
/// they beat the stretches, which had beaten the tiles in place (FLUX unpack fp32 1.25x).
inline bool joined_rows_fit(const engine_plan& p, index_t row_bytes) {
  return p.tune != tuning::zen4 && (p.elem == 8 || row_bytes >= joined_rows_min_row_bytes) &&
         p.transpose_bytes() >= joined_rows_min_bytes;
}

/// The destination rows of one step of joined_rows_step: for 4-byte elements half a whole-line
/// tile's (line_micro<4>::TB / 2), for 8-byte elements a whole one's (line_micro<8>::TB). Not 16:
/// two vectors of state a row, 16 rows of them did not stay in registers beside a tile's in the
/// like kernel of streamed panels (stop 99, transpose_rotated_rows' way with 16-row state).
inline constexpr int joined_step_rows = 8;

#if defined(__AVX512F__)
LAZYVIEW_AVX512_WARNINGS_OFF  // (GCC 12's false reports: config.hpp)

/// One step of joined_step_rows (8) destination rows drow[k], in place, across na >= 64 / E
/// elements of A (E = 4 or 8) in tiles of 64 / E along A (line_micro<4>::half_tile_to,
/// line_micro<8>::tile_to); `src(a)`: the tile's source rows at A index a, as those take them.
/// Per row, with m its offset into a line in dwords: the row's line t (from the line it starts
/// in) takes the last m lanes of tile t - 1's vector and the first 16 - m of tile t's, joined by
/// one two-source lane permute, and is stored whole; the row's first line takes lanes [m, 16) of
/// tile 0, and a line past the last tile the rest of it, each under a mask. The last tile, moved
/// back to end at na, is turned so that its new elements come first.
/// Why: a tile's 64-byte row stored across two lines cost about as much as two. FLUX unpack bf16
/// (1,16,96,170) (rows of 340 bytes at 0, 20, 40, ... mod 64), 1 thread, in cache, 2-core Intel
/// Xeon VM (Emerald Rapids): the engine's half steps ran 34.5-36.7 GB/s, these 44.9-47.2, the
/// same tiles with every store moved to its line's start (wrong values, the bound) 43.5-46.0
/// (memcpy 81-83; bench/probes/joined_rows.cpp). In the engine, bench/ab_headers against half
/// steps or tiles across lines (4-byte elements), medians of 9 rounds a process, 3 processes:
/// that unpack 1.21-1.27x (2 threads 1.22-1.32x), (1,11,80,144) 1.06-1.11x, fp32 (300,200).t()
/// 1.58x, (100,1000).t() 1.61x, (500,501).t() 1.40x; against stretches (8-byte elements), 2
/// processes: FLUX unpack fp32 (1,16,96,170) 1.13-1.14x, (1,16,72,72) 1.19x, (100,300).t()
/// 1.06-1.24x, (57,1000).t() 1.22x, (130,130).t() 1.12-1.24x, and where the tiles stored across
/// lines ((300,400).t(), rows past the stretches' 1 KiB) 0.95-1.08x. The rows' state (two
/// vectors each) must stay in registers: with a branch per row and tile, g++ spilled each row's
/// vector per tile and the probe ran 23.
/// @pre every drow[k] 4-byte aligned; na >= 64 / E.
/// @post drow[k][0, E * na) holds row k; nothing else is written. Example: E = 4, rows of 340
/// bytes (na = 85) at 20 mod 64 (m = 5): 6 tiles, the last moved back to 69 (5 new elements);
/// stores of lanes [5, 16), 4 whole lines, then lanes [0, 10); at 56 mod 64 (m = 14): lanes
/// [14, 16), 4 whole lines, lanes [0, 16), then [0, 3) of the line after.
template <int E, class Src>
LAZYVIEW_ALWAYS_INLINE inline void joined_rows_step(Src src, index_t na, char* const* drow) {
  static_assert(E == 4 || E == 8);
  constexpr int R = joined_step_rows, TA = 64 / E, D = E / 4;  // elements of A a tile, dwords an element
  static_assert(R == (E == 4 ? line_micro<4>::TB / 2 : line_micro<8>::TB));
  const index_t T = (na + TA - 1) / TA;
  const int last = D * static_cast<int>(na - TA * (T - 1));  // the last tile's new dwords, D-16
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i back = _mm512_add_epi32(lane, _mm512_set1_epi32(16 - last));
  char* line[R];
  __m512i join[R];
  __m512 prev[R];
  __mmask16 head[R], tail[R], end[R];
  LAZYVIEW_UNROLL
  for (int k = 0; k < R; ++k) {
    const int m = static_cast<int>(reinterpret_cast<std::uintptr_t>(drow[k]) & 63) / 4;
    line[k] = drow[k] - 4 * m;
    // lane l of a line: lane 16 - m + l of the previous vector below m, lane l - m of the new one
    join[k] = _mm512_add_epi32(lane, _mm512_set1_epi32(16 - m));
    prev[k] = _mm512_setzero_ps();
    head[k] = static_cast<__mmask16>(0xFFFFu << m);
    tail[k] = static_cast<__mmask16>((1u << std::min(16, m + last)) - 1);
    end[k] = static_cast<__mmask16>(m + last > 16 ? (1u << (m + last - 16)) - 1 : 0u);
  }
  const auto joined = [&](int k, __m512 v) LAZYVIEW_ALWAYS_INLINE {
    const __m512 o = _mm512_permutex2var_ps(prev[k], join[k], v);
    prev[k] = v;
    return o;
  };
  // tile at A index a, each row's vector handed to out(k, v) as 16 dwords
  const auto tile = [&](index_t a, auto&& out) LAZYVIEW_ALWAYS_INLINE {
    if constexpr (E == 4)
      line_micro<4>::half_tile_to(src(a), out);
    else
      line_micro<8>::tile_to(src(a), [&](int k, __m512d v) { out(k, _mm512_castpd_ps(v)); });
  };
  if (T == 1) {
    tile(0, [&](int k, __m512 v) { _mm512_mask_storeu_ps(line[k], head[k] & tail[k], joined(k, v)); });
  } else {
    tile(0, [&](int k, __m512 v) { _mm512_mask_storeu_ps(line[k], head[k], joined(k, v)); });
    for (index_t t = 1; t < T - 1; ++t)
      tile(TA * t, [&](int k, __m512 v) { _mm512_store_ps(line[k] + 64 * t, joined(k, v)); });
    tile(na - TA, [&](int k, __m512 v) {
      _mm512_mask_storeu_ps(line[k] + 64 * (T - 1), tail[k], joined(k, _mm512_permutexvar_ps(back, v)));
    });
  }
  LAZYVIEW_UNROLL
  for (int k = 0; k < R; ++k)
    if (end[k] != 0) _mm512_mask_storeu_ps(line[k] + 64 * T, end[k], joined(k, _mm512_setzero_ps()));
}

LAZYVIEW_AVX512_WARNINGS_ON
#endif

}  // namespace lazyview::kernels
