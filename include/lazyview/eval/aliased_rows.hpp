#pragma once
// Rows a power of two apart: source rows that share one set of the first-level data cache, and
// destination rows whose streamed lines the memory system takes at half speed when many of
// them are written in turn; the blocks of 2-byte tiles, measured on such rows; and byte tiles
// over such source rows through a stage and a buffer (eval/staged_rows.hpp). Each rule is
// a predicate of the plan, so tests can pin which plans take it; use_streaming_stores
// (eval/memory_hints.hpp) applies them.
#include "engine_plan.hpp"

namespace lazyview {

/// Far-apart source rows a multiple of cache_set_span bytes apart (a power-of-two transpose:
/// (4096,4096).t() fp32, rows 16 KiB apart) all fall in one set of the first-level data cache,
/// and a streamed unit of transpose_block_bytes of fp32 keeps 32 of them in flight at once;
/// units of aliased_block_bytes (16 rows, the fewest whose line a destination row takes whole)
/// halve that. (Which cost it is was not pinned down: reading each source line whole in one step
/// instead, so that no line is fetched twice, ran slower.) Only where measured to pay: fp32
/// with register tiles (stream_lines_fit, no whole-line tiles).
/// On the 2-core Zen 3 VM (AVX2), ratio to a one-thread streaming copy, 1 thread, 3 alternated
/// runs each, 128 -> 64 bytes: (1024,4096).t() 0.30-0.33 -> 0.39-0.42, (4096,1024).t()
/// 0.31-0.35 -> 0.41-0.42, (8,512,2048).permute(0,2,1) 0.34-0.39 -> 0.43-0.47,
/// (16,64,4096).permute(0,2,1) 0.37-0.48 -> 0.75-0.84; bench/ab, transpose/fp32/4096x4096 1.47x
/// and 1.71x at 1 thread, 1.57x and 1.41x at 2 (two runs of 3-4 rounds). Rows that do not alias
/// lost ((4000,4000).t() 0.57-0.60 -> 0.50-0.51); 8-byte elements ((2048,4096,2).permute(1,0,2),
/// 8 rows a unit) went 0.33-0.36 -> 0.43-0.47 at 1 thread but 0.80-0.94 -> 0.62-0.78 at 2; uint8
/// (4096,4096).t() 0.96-1.02x, bf16 (4096,2048).t() 0.99x at 1 thread and 1.02-1.08x at 2.
inline constexpr index_t aliased_block_bytes = 64;
/// Example: (4096,4096).t() fp32 (A: 4096 rows 16 KiB apart): yes, units of 16 rows where they
/// were 32; (4000,4000).t(), (4096,2048).t() bf16: no.
inline bool aliased_source_rows(const engine_plan& e) {
  if (!far_source_rows(e) || e.elem != 4 || kernels::line_tile_of(4) > 1 || !kernels::stream_lines_fit(4)) return false;
  for (int k = 0; k < e.na; ++k)
    if (e.ga[k].ss % cache_set_span != 0) return false;
  return true;
}
/// Streamed lines that go to more than about 32 destination rows in turn run at half speed where
/// the rows lie a multiple of aliased_destination_span bytes apart. A probe that only streams
/// 64-byte lines, G rows one line each, then the next line of the same G rows, 16 MiB, on a
/// 2-core Zen 5 VM (AVX-512), GB/s written: rows 4096 bytes apart, G = 16 and 32 ran 32-41,
/// G = 48 24-26, G = 64 16-17; rows 2048 or 8192 apart, G = 64 15-16 (2048 apart, G = 128: 8);
/// rows 4160 apart, G = 64 39-42. Staged byte tiles (kernels::staged_tiles) write 64 rows in
/// turn, 16 per tile of 64 x 16 (2-byte tiles: 32, fp32 and fp64: 16 and 8).
inline constexpr index_t aliased_destination_span = 2048;
inline constexpr index_t aliased_destination_turn = 32;
/// Whether a streamed transpose in staged whole-line tiles sweeps its A twice per staged step,
/// half the step's destination rows each (engine_plan::split_sweeps, kernels::transpose_lines),
/// so that aliased_destination_turn rows, not 64, are written in turn: 1-byte elements in
/// whole-line tiles (AVX-512 VBMI), every destination stride of B a multiple of
/// aliased_destination_span, and the zen tunings (the intel tuning pairs the tiles instead,
/// each destination row taking two adjacent lines at once: intel_line_blocks). Each sweep
/// stages its tiles' source lines again, from the caches by then. On the 2-core Zen 5 VM,
/// bench/ab against the single sweep, ratio to the better of memcpy and a streaming copy,
/// medians of 5 rounds of 3 repetitions, 1 thread (2 in brackets): (4096,4096).t() uint8 0.19 ->
/// 0.24 (0.21 -> 0.28), paired speed-up 1.20x (1.25x), and 1.18x (1.13x) in another run of 3
/// rounds. Rows 4160 apart lost, with their source lines staged twice: (4160,4032).t() 0.83x
/// (0.82x), hence the rule. Staging the step's tiles of A once, for both sweeps, gained less on
/// (4096,4096).t() (1.08x and 1.11x at 1 thread), and so did sweeps that write each row's two
/// lines of a unit one after the other, 16 rows in turn (1.08x and 1.15x). (4096,4096).t() has
/// since gone through a stage instead (staged_source_rows, its source rows 4096 bytes apart), which
/// use_streaming_stores tries first; and with staged lines (zen4), so do byte transposes with an
/// A of 2048 bytes or more by a B of 512 or more, (4096,4032).t() among them. Split sweeps remain
/// for the rest whose destination rows alias, as in (26624,500).t() (B under 512), and under zen
/// as in (4096,4032).t().
/// Examples: (4096,4096).t() and (2048,1031).t() uint8 (destination rows 4096 and 2048 bytes
/// apart): yes; (4160,4096).t() (4160 apart), (4096,2048).t() bf16 (tiles of 32 rows): no.
inline bool aliased_destination_rows(const engine_plan& e) {
  // (a step of whole-line tiles writes 64 / elem rows; only bytes write more than 32)
  if (kernels::line_tile_of(e.elem) == 1 || e.tune == tuning::intel || 64 / e.elem <= aliased_destination_turn)
    return false;
  for (int k = 0; k < e.nb; ++k)
    if (e.gb[k].ds % aliased_destination_span != 0) return false;
  return true;
}

/// Streamed tiles of 16- and 32-byte elements (AVX-512's wide tiles, whose rows are whole lines)
/// into destination rows a multiple of aliased_destination_span apart take blocks of A of
/// aliased_wide_block_bytes (4 lines of each row a unit), not transpose_block_bytes (2), under
/// the zen tunings, where the destination is under aliased_wide_max_bytes: a unit's 256 rows in
/// turn then take 4 lines each. On the 2-core Zen 5 VM (32 MiB L3), (a,b,c).permute(1,0,2)
/// fp32, GB/s, medians of 3 alternated runs, 1 thread (2 in brackets), 128 -> 256 bytes:
/// (512,512,4) 4 MiB 26.1 -> 42.0 (26.4 -> 41.8), (1024,1024,4) 16 MiB 25.4 -> 38.0 (28.4 ->
/// 39.6), (512,512,8) 26.1 -> 41.0, (1024,512,8) 25.3 -> 36.6 (32.7 -> 37.4); at 32 MiB even,
/// (2048,1024,4) 19.2 -> 20.8, (2048,1024,8) 18.9 -> 18.9; past it they lost ((4096,1024,4) 64
/// MiB 20.5 -> 18.4, medians of 5; (2048,2048,4) 18.0 -> 16.7), as more rows in flight pay from
/// memory. Rows that do not alias gain nothing ((724,724,4) 43.2 and 42.6, (2000,3000,4) 21.9
/// and 21.8). The intel tuning keeps transpose_block_bytes, unmeasured here.
/// Examples: (512,512,4).permute(1,0,2) fp32 (rows 8192 bytes apart): yes; (724,724,4): no;
/// (4096,1024,4) (64 MiB): no.
inline constexpr index_t aliased_wide_block_bytes = 256;
inline constexpr index_t aliased_wide_max_bytes = index_t{32} << 20;
inline bool aliased_wide_rows(const engine_plan& e, index_t dst_bytes) {
  if (e.elem <= 8 || e.tune == tuning::intel || dst_bytes >= aliased_wide_max_bytes) return false;
  for (int k = 0; k < e.nb; ++k)
    if (e.gb[k].ds % aliased_destination_span != 0) return false;
  return true;
}

/// Streamed whole-line tiles of 2-byte elements take blocks of A of two_byte_block_bytes (128
/// source rows a unit, as 1-byte tiles' transpose_block_bytes give), not transpose_block_bytes
/// (64 rows), under the zen tunings. On the 2-core Zen 5 VM, bench/ab against the build before,
/// ratio to the better of memcpy and a streaming copy, medians of 11 rounds of 3 repetitions, 1
/// thread (2 in brackets): (4096,2048).t() bf16 0.29 -> 0.38 (0.28 -> 0.40), paired speed-up
/// 1.25x (1.37x); 1.09x (1.30x) and 1.17x (1.36x) in two runs of 7 rounds. B in chunks of 512
/// rather than 256 as well read 1.23-1.31x (1.31-1.46x) in two runs, not kept: against the
/// 256-byte blocks alone it read 0.94-1.04x on the shapes below. A standalone harness, medians of 5
/// alternated pairs, 1 thread (2): (8192,1024).t() 1.41x (1.26x), (2048,4096).t() 1.06x (1.28x);
/// rows that do not alias, (4160,2080).t() 1.12x (1.04x), (4032,2112).t() 1.02x. Bytes in blocks
/// of 256 lost where rows do not alias ((4160,4032).t() uint8 0.78x (0.72x)), and fp32 and fp64
/// over far rows run in panels (far_row_panels). The intel tuning keeps its own blocks
/// (intel_line_block_bytes), unmeasured here.
/// Examples: (4096,2048).t() and (4160,2080).t() bf16: yes (blocks of 128 indices of A);
/// (4096,4096).t() uint8: no.
inline constexpr index_t two_byte_block_bytes = 256;
inline bool two_byte_line_blocks(const engine_plan& e) {
  return e.elem == 2 && kernels::line_tile_of(2) > 1 && e.tune != tuning::intel;
}

namespace kernels {
/// The A indices of a stage of transpose_staged_rows for E-byte elements on this target: a
/// whole-line tile's 64 with AVX-512 VBMI; with AVX2, 64 too, in tiles of 16 x 16; 1: none
/// (bytes only, see staged_source_rows).
constexpr int staged_tile_of(int E) {
  if (E != 1) return 1;
  if (line_tile_of(1) > 1) return line_tile_of(1);
#if defined(__AVX2__)
  return 64;
#else
  return 1;
#endif
}
}  // namespace kernels

/// Streamed byte tiles (staged_tile_of) whose source rows lie a multiple of cache_set_span apart,
/// and their destination rows a multiple of aliased_destination_span, stage their source lines
/// (engine_plan::staged_rows) under the zen tunings: through a stage and a buffer
/// (kernels::transpose_staged_rows), in units of staged_block_bytes of A by staged_unit_bytes of
/// B; under zen4 with whole-line tiles by kernels::transpose_staged_lines (see below). In place,
/// a tile reads one line of each of its 64 source rows, all in one set of the first-level cache,
/// and a unit of 128 bytes of A writes two lines to each of 256 destination rows in turn. A probe
/// that moves whole lines in each order, no shuffles (bench/probes/line_orders.cpp; 16 MiB, rows
/// 4 KiB apart; the 2-core Zen 5 VM; ratio to a streaming copy of the same bytes): the tiles'
/// order 0.26-0.39, its loads alone 0.30-0.39 (rows 4160 apart 0.60-0.86), its stores alone
/// 0.43-0.49; the loads of 512 x 512 units row after row, 0.9; both, through a buffer of
/// destination rows, 0.58-0.66 (medians of 5). A store-only probe (not kept) streamed 32 rows in
/// turn, 8 lines each, as fast as a dense streaming write (1.07-1.13), and 256 rows in turn, 2
/// lines each, at 0.33. The kernel, whose passes overlap one's loads with the stores of the one
/// before, on bench/ab against the tiles in place, ratio to the better of memcpy and a streaming
/// copy, 7 rounds of 3 repetitions: (4096,4096).t() uint8 0.21 -> 0.27 at 1 thread, paired 1.24x
/// (1.09-1.46), 0.24 -> 0.29 at 2, 1.30x (1.06-1.44); in a second run, 1.33x (1.03-1.36) and
/// 1.39x (1.11-1.53); (4160,4032).t(), which does not take it, 1.02x and 0.97x. Without the
/// overlap, 1.10x less at 1 thread (standalone harness, medians of 9 alternated pairs).
/// Where only the source rows alias, the tiles in place are faster already, and the kernel lost:
/// (4160,4096).t() 0.89x (0.78x), standalone harness, medians of 7 alternated pairs, where
/// (2048,4096).t() gained 1.67x (1.38x) and (4096,4096).t() 1.25x (1.21x); hence both sides.
/// 2-byte tiles through the same kernel lost (bf16 (4096,2048).t() 0.79-0.89x against
/// two_byte_line_blocks; why was not pinned down), so bytes only. The intel tuning keeps its row
/// blocks (far_row_blocks), unmeasured here.
/// With AVX2 (no whole-line tiles) the stage's tiles are 16 x 16 bytes, two at a time, against
/// the 16 x 16 register tiles in place through a line-wide buffer (kernels::transpose_block); on
/// the 2-core Zen 3 VM, bench/ab, 5 rounds of 3 repetitions: (4096,4096).t() uint8 0.15 -> 0.26
/// of the best copy at 1 thread, paired 1.65x (1.34-1.72), 0.24 -> 0.34 at 2, 1.60x
/// (1.31-1.72); (4160,4032).t() and (512,512).t(), which do not take it, 0.98-1.02x.
inline constexpr index_t staged_block_bytes = 512;
inline constexpr index_t staged_unit_bytes = 512;
/// Under the zen4 tuning, with whole-line tiles (AVX-512 VBMI), those passes and their buffer
/// give way to kernels::transpose_staged_lines (staged_lines), in units of
/// staged_lines_block_bytes of A by staged_lines_unit_bytes of B: per step of B, one line of
/// each of the unit's source rows staged whole, and each destination row's share of the unit
/// streamed straight from the tiles, while the next unit's rows come into L2 row after row. On a
/// 2-core Zen 4 VM, harness,
/// lazyview::copy, GB/s read + written, medians of 5 alternated runs, buffered passes (units of
/// 512 x 512) -> staged lines (same units) -> staged lines in units of 128 x 1024, 1 thread:
/// (4096,4096).t() uint8 13.1 -> 18.3 -> 20.0; its source rows 5 bytes off a line 12.4 -> 15.8
/// -> 18.6-19.2 (each unit's steps start with a short one up to the line: wider units, fewer
/// short steps); (2048,8192).t() 13.5 -> 19.1 -> 22.9; 2 threads, (4096,4096).t() 24.0 -> 35.5
/// -> 37.9-39.0, (2048,8192).t() 27.2 -> 35.0 (same units). Units of 64 to 256 rows by 512 to
/// 2048 bytes ran within 5% of 128 x 1024 (64 x 2048 20.8, 256 x 512 19.4); 1024 x 512 and 128
/// x 4096 lost (14.3, 14.9).
inline constexpr index_t staged_lines_block_bytes = 128;
inline constexpr index_t staged_lines_unit_bytes = 1024;
inline constexpr index_t staged_lines_min_a_bytes = 2048;
/// Whether staged_rows plans go by staged lines: whole-line byte tiles and the zen4 tuning, whose
/// VM measured them; the zen tuning keeps the buffered passes that the Zen 5 VM measured.
inline bool staged_lines(const engine_plan& e) { return e.tune == tuning::zen4 && kernels::line_tile_of(1) > 1; }
/// Past aliased rows, staged lines won on every streamed byte transpose measured whose A is whole
/// stages (same VM and harness, GB/s, 1 thread (2 in brackets), tiles in place -> staged lines):
/// (4160,4096).t() (only the source rows alias) 24.1 -> 27.8 (49.5 -> 51.7-53.1), rows that do
/// not alias, (4160,4032).t() 28.1-28.5 -> 31.0-31.6 (49.9-52.3 -> 53.8), (4032,4160).t() 27.9
/// -> 32.2, (8192,1024).t() 20.3 -> 23.0 (34.1 -> 42.0), (2112,4096).t() 26.5 -> 29.0 (51.0 ->
/// 53.8), (8,2048,1024).permute(0,2,1) 23.0 -> 25.6 (44.8 -> 45.5). Not where A is shorter:
/// (16,1024,1024).permute(0,2,1) 27.6 -> 26.9 (47.1 -> 45.4), (8,1024,2048) 26.0 -> 24.7 (46.5 ->
/// 45.0), (32,1024,512) 27.8 -> 27.1, (64,512,512) 27.7-28.8 -> 25.8-27.6, though (64,1024,256)
/// read 23.5 -> 25.0 (45.0 -> 45.5), within its runs' spread. So with staged lines, where A has
/// staged_lines_min_a_bytes or more, the rule asks nothing of the strides. At 2 threads
/// (4160,4032).t() first lost (45.1-45.7): B in chunks of 1024 left a last one of 1984, and the
/// thread that ran it ran 1.6 times the other's bytes. Chunks with the remainder in a last one of
/// its own then cost (2048,1031).t() 41.1 -> 24.7 (a chunk of 7), so B goes in the whole number
/// of chunks nearest nB / 1024, as even as whole lines allow (split_group_b_even): (4160,4032).t()
/// 52.1 -> 52.9, (2048,1031).t() 41.1 -> 45.9 (1 thread 21.2 -> 26.0), (2048,1990).t() 37.6 ->
/// 46.7 (22.3 -> 25.9); and the streamed byte transposes whose destination rows alias and which
/// swept A twice per step (aliased_destination_rows) gain too: (4096,4032).t() 19.6 -> 22.6
/// (36.6 -> 44.6), (4096,544).t() 22.2 -> 24.4 (39.8 -> 42.3).
/// 2-byte elements through staged lines gained little ((4096,2048).t() bf16 23.5 -> 24.3-24.9,
/// whatever the units), so bytes only.
/// Example, uint8: (4096,4096).t() and (2048,8192).t() (source rows 4096 and 8192 bytes apart,
/// destination rows 4096 and 2048): yes; with staged lines (zen4) also (4160,4096).t() and
/// (4160,4032).t() (through the buffered passes, where rows that do not alias lost: no);
/// (16,1024,1024).permute(0,2,1) (rows that do not alias, A of 1024), (4096,256).t() (B under a
/// unit), (4000,4000).t() (A not whole stages of 64) and bf16 (4096,2048).t(): no.
inline bool staged_source_rows(const engine_plan& e) {
  const index_t T = kernels::staged_tile_of(e.elem);
  if (e.tune == tuning::intel || e.elem != 1 || T == 1 || e.nA % T != 0 || e.nA * e.elem < staged_block_bytes ||
      e.nB * e.elem < staged_unit_bytes)
    return false;
  if (staged_lines(e) && e.nA * e.elem >= staged_lines_min_a_bytes) return true;
  for (int k = 0; k < e.na; ++k)
    if (magnitude(e.ga[k].ss) < cache_set_span || e.ga[k].ss % cache_set_span != 0) return false;
  for (int k = 0; k < e.nb; ++k)
    if (e.gb[k].ds % aliased_destination_span != 0) return false;
  return true;
}

}  // namespace lazyview
