#pragma once
// Small plain copies as one loop nest over the plan's loops: no engine plan, no offset tables,
// no tiles. Below a few KiB a call's fixed costs are the copy's cost, and the engine's (its
// plan, the tables, a tile sweep set up per block: about 1700 of the 6800 instructions of a
// dynamic (1,3,6,6) FLUX pack) buy nothing that so few elements repay.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine_plan.hpp"  // run_element, kernels::tile_of
#include "plan_memo.hpp"    // detail::nest_setup
#include "odd_kernels.hpp"
#include "paired_rows.hpp"

namespace lazyview {

/// Plain copies of up to this many bytes take run_nest instead of the engine (on the calling
/// thread: below single_thread_bytes anyway). Dynamic FLUX pack (1,C,H,H) fp32, chain built and
/// copied per call, 1 thread, g++ 12 -O3 -march=native, 2-core Zen 5 VM, ns per call (best of 7
/// x 200000), engine -> nest: (1,3,6,6) 432 bytes 368 -> 320, (1,16,4,4) 1 KiB 369-419 -> 340,
/// (1,4,8,8) 1 KiB 390-398 -> 352-358, (1,8,8,8) 2 KiB 422-428 -> 417, (1,16,8,8) 4 KiB
/// 517 -> 571 (from there the engine's tiles win). Callgrind, (1,3,6,6): 5270 -> 4570
/// instructions per call.
#ifndef LAZYVIEW_NEST_BYTES
#define LAZYVIEW_NEST_BYTES (index_t{2} << 10)
#endif
inline constexpr index_t nest_bytes = LAZYVIEW_NEST_BYTES;

/// Plain copies whose wide element has no tile kernel on this target or is wider than 8 bytes
/// (16 and 32 bytes, odd sizes, runs of 65 to 256 bytes that are not a power of two) take
/// run_nest up to this many bytes: the engine moves such elements one at a time too, through
/// its blocked sweep, tables and setup. (a,b,c).permute(1,0,2), dynamic chain built and copied
/// per call, 1 thread, g++ 12 -O3, 2-core Zen 4 VM, ns per call, engine -> nest:
/// - -march=native (AVX-512), medians of 3 alternated runs (each a best of 7 x 20000): fp32
///   (16,16,4) 4 KiB (16-byte elements) 181 -> 104, (8,32,8) 8 KiB (32-byte) 252 -> 168,
///   (32,32,4) 16 KiB 584 -> 337, (16,16,6) (24-byte) 218 -> 170, (32,32,3) 720 -> 496, fp64
///   (16,16,4) 229 -> 169, int16 (32,32,3) 689 -> 641;
/// - -mavx2 and SSE2 only, best of 5 alternated runs: 1.05-1.96x, but for SSE2's (32,32,4)
///   601 -> 634; callgrind (-mavx2), 1000 calls: (16,16,4) 5.23 -> 4.14 M instructions,
///   (8,32,8) 8.77 -> 4.81 M, (32,32,3) 14.29 -> 11.83 M.
/// Past 16 KiB the engine catches up: with the nest at any size, (32,32,8) 32 KiB 915 -> 775,
/// (64,64,4) 64 KiB 2671 -> 3720. Elements with a tile kernel keep nest_bytes: there the tiles
/// win from a few KiB ((32,32).t() fp64 8 KiB 245 against 338 as a nest, (32,32,2) fp32 197
/// against 343). Not the 16- and 32-byte elements that AVX-512 tiles (wide_micro.hpp): with
/// them, the engine lost under 16 KiB (2-core Intel Xeon VM, Emerald Rapids, GB/s, medians of 5
/// alternated processes, nest -> engine: (16,16,4) 87.1 -> 72.8, (32,8,8) 104.3 -> 59.6,
/// (8,32,8) 148.5 -> 140.2), though it won at 15-16 KiB ((24,40,4) 64.2 -> 93.7, (32,32,4)
/// 76.4 -> 97.9).
#ifndef LAZYVIEW_NEST_UNTILED_BYTES
#define LAZYVIEW_NEST_UNTILED_BYTES (index_t{16} << 10)
#endif
inline constexpr index_t nest_untiled_bytes = LAZYVIEW_NEST_UNTILED_BYTES;
/// 16-byte elements in AVX-512's tiles take the nest only up to this many bytes (within
/// nest_untiled_bytes): on the 2-core Zen 5 VM, GB/s, medians of 5 alternated processes, nest ->
/// engine, (16,16,4) 4 KiB 61.4 -> 59.6, then the engine: (32,16,4) 8 KiB 73.0 -> 77.2,
/// (16,32,4) 63.8 -> 90.4, (24,24,4) 9 KiB 49.8 -> 83.6, (16,48,4) 12 KiB 56.8 -> 109.8,
/// (40,20,4) 81.3 -> 89.0, (32,32,4) 16 KiB 79.7 -> 112.8 (and 76.4 -> 97.9 on the Intel VM
/// above). 32-byte elements keep nest_untiled_bytes: the nest ran as fast or faster up to 16 KiB
/// ((32,16,8) 137.9 against 115.3, (22,22,8) 130.4 against 116.3, (16,32,8) 121.0 against 129.5).
inline constexpr index_t nest_tiled_16_bytes = index_t{4} << 10;

/// Whether a plain plan of `size`-byte elements runs as run_nest rather than the engine, with
/// `small` and `untiled` for nest_bytes and nest_untiled_bytes (tiled 16-byte elements:
/// nest_tiled_16_bytes).
/// Example: (16,16,4).permute(1,0,2) fp32, the plan (16,16,4):(4,64,1) into row-major, 4 KiB
/// whose run of 4 floats is a 16-byte element: true (under `untiled`); (32,32).t() fp32,
/// (32,32):(1,32), 4 KiB of 4-byte elements: false (8x8 tiles on AVX2, 4x4 on SSE2).
inline bool takes_nest(const loop_plan& p, index_t size, index_t small = nest_bytes,
                       index_t untiled = nest_untiled_bytes) {
  const index_t bytes = p.numel * size;
  if (bytes <= small) return true;
  if (bytes > untiled) return false;
  const int n = p.nloops;
  const bool run = n > 0 && p.loops[n - 1].ss == 1 && p.loops[n - 1].ds == 1;
  const index_t E = run ? run_element(p.loops[n - 1].n * size) : size;
  if (E == 16 && kernels::tile_of(16) > 1 && bytes > nest_tiled_16_bytes) return false;
  return E != 0 && E < 64 && (E > 8 || kernels::tile_of(static_cast<int>(E)) == 1);
}

/// Transposes of 8-byte elements (FLUX's fp32 pairs) in register tiles (AVX2's 4 x 4, SSE2's
/// 2 x 2), up to nest_untiled_bytes in all, whose transpose per outer iteration (nA x nB
/// elements, one work unit at these sizes) holds at most nest_unit_bytes: run_plain checks the
/// engine plan and runs the nest instead. There the tiles are few per unit (a side of 4 to 16
/// indices, edge tiles moved back over the last), and the unit's set-up (row pointers from the
/// offset tables, a sweep per tile of A) costs more than they save: (1,16,8,8) FLUX pack took
/// 3941 instructions a call in the engine, 123 per tile, against 2639 as a nest. The two kernels
/// alone on one plan,
/// alternated in one process, nest's time over the engine's (medians of 7; 2-core Zen 3 VM, g++ 12
/// -O3 -march=native): FLUX pack (1,C,H,H) fp32 (C,H) = (16,8) 0.59, (7,14) 0.54, (5,22) 0.65,
/// (8,16) 0.85, (3,32) 0.68, (4,24) 0.73, (2,32) 0.76; unpack 0.48, 0.69, 0.66, 0.80, 0.66, 0.68,
/// 0.55; (a,b,c).permute(0,2,1) fp64 (64,4,4) 0.17, (32,6,6) 0.51, (16,4,16) 0.45, (16,8,8) 0.80,
/// (10,3,40) 0.52, (4,16,8) 1.00, (12,5,20) 1.15 (0.81-1.23), (10,40,3) 1.14. Larger units keep
/// the tiles: (8,12,12) 1.27 (1152 bytes), (1,16,16,16) unpack 1.17 (2 KiB), (7,100,2).permute(
/// 1,0,2) fp32 2.27 (one unit of 5600 bytes), though (1,16,12,12) pack (1536) read 0.69. Not for
/// 4-byte elements (AVX2's 8 x 8 tiles): bf16 FLUX unpack (1,7,14,14) 1.20, (1,16,16,16) 3.92.
/// AVX-512's whole-line tiles won from 4 KiB (nest_bytes). SSE2's 2 x 2 tiles measured 1.03 for
/// unpack (1,7,14,14) on that VM; on the 2-core Zen 4 VM, built for x86-64 (SSE2), they lost
/// (bench/ab_headers, engine -> nest, B/A medians of 9 rounds): FLUX pack (1,16,8,8) 2.18,
/// (1,7,14,14) 1.98, (1,5,22,22) 1.56, (1,8,16,16) 1.61; unpack (1,7,14,14) 1.43, (1,5,22,22)
/// 1.63; fp64 (16,8,8).permute(0,2,1) 1.76, (16,4,16) 2.17.
inline constexpr index_t nest_unit_bytes = 1024;
/// Example (AVX2, SSE2): FLUX pack and unpack (1,7,14,14) fp32 (units of 14 x 7 8-byte elements,
/// 784 bytes): yes; (1,16,16,16) (2 KiB units), (32,32,2).permute(1,0,2) (one unit, 8 KiB): no.
inline bool small_units_take_nest(const engine_plan& e, index_t bytes, index_t untiled = nest_untiled_bytes) {
  return e.kind == engine_plan::transpose && e.elem == 8 && kernels::tile_of(8) <= 4 && kernels::line_tile_of(8) == 1 &&
         bytes <= untiled && e.nA * e.nB * e.elem <= nest_unit_bytes;
}

/// Strided plans (engine_plan::strided: gathers, scatters, selects, steps) up to
/// nest_untiled_bytes run as the nest too, whatever their elements, because the engine moves
/// their rows with the same row kernels (move_row, gather_row, scatter_row: move_row_at) after
/// its setup and work units; the tiles that keep 1- to 8-byte elements out of the nest past
/// nest_bytes are for transposes. Dynamic chain built and copied per call, g++ 12 -O3
/// -march=native, 2-core Zen 5 VM, ns per call, medians of 11 x 20000, 3 alternated processes,
/// engine -> nest: bf16 (64,128)[:, ::2] 103-108 -> 89-100, fp32 (32,256)[:, 1::2] 240-280 ->
/// 200-211, u8 (64,64,3)[..., 1] 88-107 -> 71-76, fp32 (64,64)[:, ::4] 97-114 -> 82-83,
/// (1024,8)[:, 3] 159-162 -> 145-147, (32,500)[:, ::5] 522-529 -> 494-510; scatters, bf16
/// (32,64) into (32,128)[..., ::2] 60-66 -> 48-51, (64,64) 96-99 -> 81-83, u8 (64,64) into
/// (64,64,3)[..., 1] 93-98 -> 79-83, fp32 (16,64) into (16,192)[:, ::3] 74-79 -> 63-65.
/// Example: bf16 (64,128)[:, ::2] (8 KiB moved): yes; (256,128)[:, ::2] (64 KiB): no.
inline bool strided_takes_nest(const engine_plan& e, index_t bytes, index_t untiled = nest_untiled_bytes) {
  return e.kind == engine_plan::strided && bytes <= untiled;
}

/// The side of the tiles the engine moves E-byte elements in, for narrow_units_take_nest: the
/// register tiles (micro<E>), or for 8-byte elements the whole-line tiles where the target has
/// them (8 x 8 with AVX-512, whose units 4 to 7 wide ran faster as the nest; with 4-byte elements
/// units 8 to 15 wide, under the whole-line tiles' 16, ran slower as the nest, see below); 1 for
/// elements without a tile kernel.
constexpr int unit_tile_side(int E) {
  return E == 8 ? std::max({kernels::tile_of(8), kernels::line_tile_of(8), 4}) : kernels::tile_of(E);
}

/// Transposes of 1- to 8-byte elements up to nest_untiled_bytes in all whose transpose per outer
/// iteration (nA x nB elements) is narrower than a tile on either side run as the nest: there
/// every tile of the engine is an edge tile, moved back over the one before or element by
/// element, and each unit pays the engine's set-up for a few elements.
/// bench/ab_headers, engine -> nest, B/A medians of 9 rounds (dynamic chain built and copied per
/// call, 1 thread, g++ 12 -O3, 2-core Zen 4 VM), -march=native (AVX-512; x86-64-v3, AVX2;
/// x86-64, SSE2): u8 (7,8,13,3).permute(0,3,1,2) (units 104 x 3) 19.5 (4.3, 1.9), (50,9,13)
/// .permute(0,2,1) 1.62 (1.69, 1.69); bf16 (100,7,5) 1.55 (2.09, 1.86); fp32 (4,16,4,2,2)
/// .permute(2,1,4,0,3) (8 x 2) 4.0 (4.1, 3.8), (64,3,11) 4.1 (5.5, 4.1), (16,7,8) 1.38 (1.74, 1.0:
/// SSE2's side is 4); fp64 (13,3,8,2).permute(1,0,3,2) (8 x 2) 3.55 (1.0, 4.27), (20,3,9) 5.39
/// (0.99, 4.06), (20,5,9) 2.24 (1.0, 2.03), (16,4,16) 2.35 (0.99, 2.17), (8,4,50) 1.55, (4,6,60)
/// 1.43; FLUX unpack (1,4,32,8) fp32 (4 x 8) 2.66 (0.98, 2.94), pack (1,3,32,32) (6 x 16) 1.37
/// (0.99, 1.27). (AVX2's 1.0 for 8-byte elements: small_units_take_nest took them already; SSE2's
/// for 8-byte elements 4 to 7 wide likewise.) Units as wide as a tile keep the engine: fp32
/// (32,8,8).permute(0,2,1), bf16 (24,12,12), u8 (32,16,16) and (8,24,24) read 0.99-1.01 on all
/// three. There the whole-line tiles' side would have cost them (fp32 (32,8,8) 0.79, (8,12,40)
/// 0.52, bf16 (10,20,16) 0.76, u8 (32,16,16) 0.39, (4,40,40) 0.35), and so would 8 for 8-byte
/// elements without those tiles ((4,6,60) 0.73-0.79 with AVX2 and SSE2, (2,7,140) 0.67-0.84).
/// Neither are 16-byte elements taken: as the nest, fp32 (20,2,24,4).permute(0,2,1,3) ran 2.61x,
/// but (64,3,8,4) 1.00 and bf16 (64,3,8,8) 0.95. Nor units with much of their tiles moved twice
/// (fp32 (9,9,13).permute(0,2,1), 9 x 13 in four 8 x 8 tiles, 1.09; u8 (6,17,33) 0.66).
/// Example: fp32 (16,7,8).permute(0,2,1) (3.5 KiB, units 7 x 8): yes; (32,8,8).permute(0,2,1)
/// (8 x 8): no.
inline bool narrow_units_take_nest(const engine_plan& e, index_t bytes, index_t untiled = nest_untiled_bytes) {
  if (e.kind != engine_plan::transpose || e.elem > 8 || bytes > untiled) return false;
  const int side = unit_tile_side(e.elem);
  return side > 1 && std::min(e.nA, e.nB) < side;
}

namespace kernels {

/// How nest_loops moves one element: E bytes, R bytes by copy_odd<E> or copy_over<E> (E/2 < R <
/// E, see with_odd_class), or R bytes by memcpy (runs over 64 bytes).
enum class move_kind { fixed, odd, bytes };

/// The nest over byte loops l[0, n), outermost first, moving elements as M says. The four
/// innermost loops run as plain loops, the rest as an odometer (whose steps cost about 20
/// instructions each: a third plain loop took 130 of the 640 of a (1,3,6,6) FLUX pack's nest,
/// and a fourth, which leaves FLUX's nest without an odometer, its zeroing (a call to memset)
/// and its steps, 60 of the 470 left).
/// N > 0: the innermost loop has N iterations, unrolled (FLUX's pairs: the loop's own counting
/// cost more than its moves). Fixed elements of a longer innermost loop move four per step
/// (move_row), or by byte shuffles where it reads every 2nd to 4th element of its source into a
/// destination row (gather_row, through move_row_at), or by lane permutes where it writes a
/// source row into every 2nd to 4th element (scatter_row, AVX-512); odd ones (3, 6, 12 bytes)
/// so where they are the first 3/4 of each cell of E (compact_row) or written there
/// (expand_row).
/// @pre n >= 1, every loop of size >= 1; N == 0 or N == l[n - 1].n.
template <int E, move_kind M, int N = 0, bool P = false>
void nest_loops(const byte_loop* l, int n, const char* s, char* d, index_t R) {
  byte_loop in = l[n - 1];
  // Odd elements along a destination row (in.ds == R) move by copy_over but the row's last:
  // each over-write lands on the next element, written next. An over-read stays within the
  // bytes from the first element read to the end of the last (the one array that every source
  // pointer points into), which is all it needs to be readable: it starts at last_over at most
  // (an address, since it may lie before s).
  // (a,b,c).permute(1,0,2), dynamic chain built and copied per call, 1 thread, g++ 12 -O3
  // -march=native, 2-core Zen 5 VM, ns per call, best of 7 x 20000, copy_odd throughout ->
  // copy_over: fp32 (16,16,6) 147-178 -> 123-134, (20,20,5) 217-263 -> 178-200, (32,32,3)
  // 450-458 -> 377-407, fp64 (16,16,3) 144-180 -> 123-129; int16 (32,32,3) (8-byte moves)
  // unchanged. Each process ran in one of two modes about 1.5x apart, whichever the version
  // (where its buffers landed); these are the fast mode's.
  std::uintptr_t last_over = reinterpret_cast<std::uintptr_t>(s) + static_cast<std::uintptr_t>(R - E);
  if constexpr (M == move_kind::odd)
    for (int k = 0; k < n; ++k) last_over += static_cast<std::uintptr_t>((l[k].n - 1) * std::max<index_t>(l[k].ss, 0));
  const bool over = M == move_kind::odd && in.ds == R;
  const int K = M == move_kind::fixed && N == 0 ? row_stride_of<E>(in) : 0;  // see move_row_at
  // rows of the first 3/4 of each E-byte cell read (RGBA to RGB: compact_row) or written (RGB
  // into RGBA: expand_row)
  const bool cells = M == move_kind::odd && compacts(E) && R == 3 * E / 4 && in.ss == E && in.ds == R;
  const bool expand = M == move_kind::odd && expands(E) && R == 3 * E / 4 && in.ss == R && in.ds == E;
  if constexpr (N > 0) in.n = N;
  const byte_loop none{1, 0, 0};
  const byte_loop mid = n >= 2 ? l[n - 2] : none;
  const byte_loop out = n >= 3 ? l[n - 3] : none;
  const byte_loop out2 = n >= 4 ? l[n - 4] : none;
  const int no = n >= 4 ? n - 4 : 0;
  index_t idx[max_loops];
  for (int k = 0; k < no; ++k) idx[k] = 0;
  for (;;) {
    const char* s3 = s;
    char* d3 = d;
    for (index_t q = 0; q < out2.n; ++q, s3 += out2.ss, d3 += out2.ds) {
      const char* s2 = s3;
      char* d2 = d3;
      for (index_t o = 0; o < out.n; ++o, s2 += out.ss, d2 += out.ds) {
        const char* s1 = s2;
        char* d1 = d2;
        LAZYVIEW_NO_UNROLL
        for (index_t j = 0; j < mid.n; ++j, s1 += mid.ss, d1 += mid.ds) {
#if defined(__SSE2__)
          if constexpr (P) {
            if (j + 1 < mid.n) {
              move_row_pair(s1, d1, d1 + mid.ds, in);
              ++j, s1 += mid.ss, d1 += mid.ds;
              continue;
            }
          }
#endif
          if constexpr (M == move_kind::fixed && N == 0) {
            move_row_at<E>(K, s1, d1, in);
            continue;
          }
          if constexpr (M == move_kind::odd && compacts(E)) {
            if (cells) {
              compact_row<E>(s1, d1, in.n);
              continue;
            }
          }
          if constexpr (M == move_kind::odd && expands(E)) {
            if (expand) {
              expand_row<E>(s1, d1, in.n);
              continue;
            }
          }
          for (index_t i = 0; i < in.n; ++i) {
            if constexpr (M == move_kind::fixed)
              std::memcpy(d1 + i * in.ds, s1 + i * in.ss, E);
            else if constexpr (M == move_kind::odd) {
              const char* const x = s1 + i * in.ss;
              if (over && i + 1 < in.n && reinterpret_cast<std::uintptr_t>(x) <= last_over)
                copy_over<E>(x, d1 + i * in.ds);
              else
                copy_odd<E>(x, d1 + i * in.ds, R);
            }
            else
              std::memcpy(d1 + i * in.ds, s1 + i * in.ss, static_cast<std::size_t>(R));
          }
        }
      }
    }
    if (no == 0 || !odometer_step(l, no, idx, s, d)) return;
  }
}

/// The nest of a single element of R bytes (a plan contiguous on both sides).
inline void nest_bytes_only(const byte_loop*, int, const char* s, char* d, index_t R) {
  std::memcpy(d, s, static_cast<std::size_t>(R));
}

}  // namespace kernels

/// Puts the longer of a nest's two innermost loops inside where the innermost one, of fixed
/// E-byte elements, is not unrolled (over 4 long) and has no row kernel of its own (gather_row,
/// scatter_row: kernels::row_stride_of). Each row costs its setup, its tail and a turn of the
/// loop around it besides its moves, so fewer, longer rows are cheaper; these copies (at most
/// nest_untiled_bytes) lie in cache whichever side is read or written in order.
/// @pre n >= 1.
/// Rows of 8-byte elements that move two by two stay where pairs_come_first says so.
/// Example: (5,8,8).permute(1,2,0) fp32, loops (64,5):(4,256):(20,4): 64 rows of 5 -> (5,64):
/// (256,4):(4,20), 5 rows of 64.
// Dynamic chain built and copied per call, 1 thread, g++ 12 -O3 -march=native, 2-core Zen 4 VM.
// bench/ab_headers, before -> this, B/A medians of 11 rounds: fp32 (5,8,8).permute(1,2,0) 2.45,
// (7,8,8) 2.15, (8,8,8) 1.69, (5,11,7) 2.60; u8 (5,16,16) 3.10; bf16 (6,9,11).permute(2,1,0)
// 1.42; 16-byte elements, fp32 (5,40,4).permute(1,0,2) 1.21; 32-byte, (7,24,8) 1.38; fp64
// (5,30,2) 1.24; FLUX's small shapes and the small transposes of bench/'s small family, whose
// loops it leaves alone, 0.98-1.02 (1.09 for (8,32,8)). Against a plain loop in destination
// order (dynamic sizes; ns per call, medians of 11, before -> this, loop): fp32 (5,8,8) 249 ->
// 97, 104; (7,8,8) 309 -> 138, 122; (5,11,7) 297 -> 107, 124; u8 (5,16,16) 849 -> 271, 858;
// bf16 (6,9,11) 420 -> 299, 219; fp64 (7,31).t() 101 -> 75, 73. A row of the nest out of line
// (its loop's registers to itself) was slower still: 0.71-0.95 of this.
template <int E>
void longer_loop_inside(byte_loop* l, int n) {
  if (n >= 2 && l[n - 1].n > 4 && l[n - 2].n > l[n - 1].n && kernels::row_stride_of<E>(l[n - 1]) == 0)
    std::swap(l[n - 1], l[n - 2]);
}

/// Whether a nest of 8-byte elements over loops l[0, n) moves its rows two at a time
/// (kernels::move_row_pair): the loop around its rows reads the next element of the source
/// (source stride 8) and its rows write destination rows (destination stride 8), as FLUX
/// unpack's pairs do, and FLUX pack's once pair_loop_inside has moved its loop along W inward.
/// Example: FLUX unpack (1,7,14,14) fp32, (7,7,2,7):(16,784,8,112):(784,112,56,8): yes; FLUX
/// pack, (7,7,7,2):(112,8,784,56):(784,112,16,8): no (the rows of 2 read 56 bytes apart), and
/// yes as (7,7,7,2):(112,784,8,56):(784,16,112,8).
inline bool pairs_rows_of(const byte_loop* l, int n) {
  return n >= 2 && l[n - 2].ss == 8 && l[n - 1].ds == 8 && l[n - 2].n >= 2 && l[n - 1].n >= 2;
}

/// In a nest of 8-byte elements whose rows write destination rows of 4 or fewer (unrolled) and
/// whose loop around them does not read the next element, moves the innermost loop that does
/// (source stride 8) to just around the rows, the others keeping their order, so that the rows
/// pair (pairs_rows_of): FLUX pack's rows of 2 (the pair's two source rows, dh), whose loop
/// along W reads the next pair. The destination is then written out of order, in cache at these
/// sizes. Not in nests of max_offsets elements or fewer, which keep a table of their sources
/// where the destination takes them in order (gather_table): FLUX pack (1,3,6,6) with the loop
/// moved read 0.82 of its table. bench/ab_headers, before -> this (and ragged_units_take_nest
/// for those that pair now), B/A medians of 11 rounds, 1 thread (2-core Intel Xeon VM, Emerald
/// Rapids): FLUX pack (1,7,14,14) fp32 1.51, (1,5,22,22) 1.75, (1,6,20,20) 1.71, (1,16,8,8) 1.31.
/// Example: FLUX pack (1,7,14,14) fp32, (7,7,7,2):(112,8,784,56):(784,112,16,8) ->
/// (7,7,7,2):(112,784,8,56):(784,16,112,8).
inline void pair_loop_inside(byte_loop* l, int n) {
  if (n < 3 || l[n - 1].ds != 8 || l[n - 1].n > 4 || l[n - 2].ss == 8) return;
  index_t count = 1;
  for (int k = 0; k < n; ++k) count *= l[k].n;
  if (count <= detail::engine_setup::max_offsets) return;
  for (int k = n - 3; k >= 0; --k)
    if (l[k].ss == 8 && l[k].n >= 2) {
      const byte_loop x = l[k];
      for (int m = k; m < n - 2; ++m) l[m] = l[m + 1];
      l[n - 2] = x;
      return;
    }
}

/// Whether a nest of 8-byte elements keeps its rows to move them two by two (pairs_rows_of)
/// rather than put the longer loop inside (longer_loop_inside): rows of 6 or more, or of 5 whose
/// loop around them is at most twice as long. bench/ab_headers, longer loop inside -> pairs, B/A
/// medians of 15 rounds, fp64 (a,b,c).permute(0,2,1) (rows of b), 1 thread (2-core Intel Xeon
/// VM, Emerald Rapids): (16,10,12) 1.86, (20,6,7) 1.71, (30,5,7) 1.46, (4,6,50) 1.19, (8,6,40)
/// 1.16; but rows of 5 against rows 6 to 20 times as long: (6,5,30) 0.91, (5,5,38) 0.88,
/// (3,5,100) 0.90, (4,5,60) 0.93.
/// Example: (30,5,7).permute(0,2,1) fp64, (30,7,5):(280,8,56):(280,40,8): yes; (6,5,30): no.
inline bool pairs_come_first(const byte_loop* l, int n) {
  return pairs_rows_of(l, n) && (l[n - 1].n >= 6 || l[n - 2].n <= 2 * l[n - 1].n);
}

/// The nest that runs a plain plan of `size`-byte elements: the run contiguous on both sides, if
/// any, is one wide element, as in the engine (FLUX pack fp32: 8 bytes).
/// @pre p.plain(), p.numel > 0.
/// Example: (1,3,6,6) FLUX pack fp32, loops (3,3,3,2,2):(12,2,36,6,1) in the source and
/// (36,12,4,2,1) in the destination -> elements of 8 bytes over (3,3,3,2), an odometer-free nest
/// of four loops, the innermost unrolled (nest_loops<8, fixed, 2>).
inline void make_nest(const loop_plan& p, index_t size, detail::nest_setup& ns) {
  byte_loop* const l = ns.l;
  int n = byte_loops(p, size, l);
  ns.src_off = p.src_offset * size;
  ns.dst_off = p.dst_offset * size;
  index_t E = size;
  if (n > 0 && l[n - 1].ss == E && l[n - 1].ds == E) {
    E *= l[n - 1].n;
    --n;
  }
  ns.n = n;
  ns.elem = E;
  using kernels::move_kind;
  using kernels::nest_loops;
  if (n == 0) {
    ns.run = kernels::nest_bytes_only;
    return;
  }
  // Fixed sizes, with the innermost loop unrolled where it is 2, 3 or 4 long, after
  // longer_loop_inside; 8-byte elements with their rows two by two where they pair.
  auto fixed = [&]<int F>() -> detail::nest_setup::kernel {
    const auto unrolled = [&]<bool P>() -> detail::nest_setup::kernel {
      switch (l[n - 1].n) {
        case 2: return nest_loops<F, move_kind::fixed, 2, P>;
        case 3: return nest_loops<F, move_kind::fixed, 3, P>;
        case 4: return nest_loops<F, move_kind::fixed, 4, P>;
        default: return nest_loops<F, move_kind::fixed, 0, P>;
      }
    };
    if constexpr (F == 8 && kernels::pairs_rows()) {
      pair_loop_inside(l, n);
      if (!pairs_come_first(l, n)) longer_loop_inside<F>(l, n);
      if (pairs_rows_of(l, n)) return unrolled.template operator()<true>();
    } else {
      longer_loop_inside<F>(l, n);
    }
    return unrolled.template operator()<false>();
  };
  switch (E) {
    case 1: ns.run = fixed.template operator()<1>(); return;
    case 2: ns.run = fixed.template operator()<2>(); return;
    case 4: ns.run = fixed.template operator()<4>(); return;
    case 8: ns.run = fixed.template operator()<8>(); return;
    case 16: ns.run = fixed.template operator()<16>(); return;
    case 32: ns.run = fixed.template operator()<32>(); return;
    case 64: ns.run = fixed.template operator()<64>(); return;
    default: break;
  }
  if (E > 2 && E < 64)
    kernels::with_odd_class(E, [&]<int K>() { ns.run = nest_loops<K, move_kind::odd>; });
  else
    ns.run = nest_loops<1, move_kind::bytes>;
}

/// With whole-line tiles of 8-byte elements (AVX-512's 8 x 8), under the intel tuning: transposes
/// up to nest_untiled_bytes whose units hold at most nest_unit_bytes and have neither side a
/// multiple of the tile's 8, where the nest of plain plan p (of `size`-byte elements) moves its
/// rows two by two (pairs_rows_of). Each side then ends in a tile moved back over indices done,
/// so that a unit of 10 x 11 moves four tiles, 256 elements for 110, after its set-up, where the
/// nest moves each element once, two rows a step.
/// bench/ab_headers, engine -> nest, B/A medians of 11 rounds, 1 thread (2-core Intel Xeon VM,
/// Emerald Rapids), three processes: FLUX unpack (1,5,22,22) fp32 1.34-1.44, fp64
/// (16,10,12).permute(0,2,1) 1.66-2.06, (9,11,11) 1.79-1.89. Nests whose rows do not pair lost
/// or read alike: FLUX pack (1,5,22,22) 0.93-1.02, (1,6,20,20) 0.79-1.02, before
/// pair_loop_inside paired them (see there). A side of 8 or 16 kept the tiles, pairs or not:
/// FLUX pack (1,4,24,24) (units 8 x 12) 0.74, unpack (1,8,16,16) (16 x 8) 0.73. Not measured
/// on Zen.
/// ns: the nest of p, made here once the plan's own tests pass (ns.run null before them).
/// Example: FLUX unpack (1,5,22,22) fp32 (units 10 x 11, 880 bytes): yes, and pack (its rows
/// paired by pair_loop_inside); unpack (1,8,16,16): no.
inline bool ragged_units_take_nest(const engine_plan& e, const loop_plan& p, index_t size, index_t bytes,
                                   detail::nest_setup& ns, index_t untiled = nest_untiled_bytes) {
  constexpr int side = kernels::line_tile_of(8);
  ns.run = nullptr;
  if (side == 1 || e.kind != engine_plan::transpose || e.elem != 8 || e.tune != tuning::intel || bytes > untiled ||
      e.nA * e.nB * e.elem > nest_unit_bytes || e.nA % side == 0 || e.nB % side == 0)
    return false;
  make_nest(p, size, ns);
  return ns.elem == 8 && pairs_rows_of(ns.l, ns.n);
}

/// Whether engine plan e of plain plan p of `size`-byte elements, a copy of `bytes`, runs as the
/// nest after all (run_plain asks once the plan is made): small units (small_units_take_nest,
/// ragged_units_take_nest), narrow units (narrow_units_take_nest) or a small strided plan
/// (strided_takes_nest). Where it does, ns holds the nest (make_nest: made once, also where
/// ragged_units_take_nest needed it to decide); where not, ns.run is null.
inline bool plan_takes_nest(const engine_plan& e, const loop_plan& p, index_t size, index_t bytes,
                            detail::nest_setup& ns) {
  if (small_units_take_nest(e, bytes) || narrow_units_take_nest(e, bytes) || strided_takes_nest(e, bytes)) {
    make_nest(p, size, ns);
    return true;
  }
  if (ragged_units_take_nest(e, p, size, bytes, ns)) return true;
  ns.run = nullptr;
  return false;
}

/// Runs a plain plan of `size`-byte elements as one loop nest (make_nest).
/// @pre p.plain(), p.numel > 0.
inline void run_nest(const loop_plan& p, const char* src, char* dst, index_t size) {
  detail::nest_setup ns;
  make_nest(p, size, ns);
  ns(src, dst);
}

}  // namespace lazyview
