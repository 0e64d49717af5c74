#pragma once
// How a streamed transpose cuts its groups into work units: the shape predicates that choose a
// streamed kernel (whole-line tiles, the buffer of nt_rows, whole rows), and the blocks of A and
// chunks of B each takes under each tuning (panels and A whole under zen, row blocks and paired
// tiles under intel), with the measurements behind each size. eval/memory_hints.hpp decides
// whether a plan streams and applies these; each is a predicate or a size of the plan alone, so
// tests can pin which plans take which units.
#include <algorithm>

#include "engine_plan.hpp"
#include "streaming_thresholds.hpp"

namespace lazyview {

/// Whether a transpose's work unit writes one dense stretch of destination: A is one block and
/// rows of consecutive B indices are adjacent (written back to back).
inline bool dst_dense_units(const engine_plan& e) { return e.blocks_a == 1 && e.gb[0].ds == e.nA * e.elem; }

/// Whether a transpose's source rows of consecutive A indices (its first loop) lie back to back
/// and B is one chunk: a unit then reads one dense stretch of source as far as A's first loop
/// goes. Example: FLUX unpack fp32 (A = 128 rows of 128 bytes, B = 32 whole): yes; FLUX pack
/// (rows 1 KiB apart): no.
inline bool src_dense_rows(const engine_plan& e) { return e.blocks_b == 1 && e.ga[0].ss == e.nB * e.elem; }

/// Whether neither side of a transpose's work unit is one dense stretch: its destination as in
/// dst_dense_units, its source as in src_dense_rows.
/// Examples: (1024,1024).t() fp32 (A in 4 blocks, B in 4 chunks): scattered. FLUX pack (A = 32
/// wide elements whole, B rows 256 bytes apart): not. (6,19,19,9,16,13).permute(2,5,1,0,3,4)
/// (B = 13 whole, A rows 52 bytes apart in the source): not.
inline bool scattered_transpose(const engine_plan& e) {
  return e.kind == engine_plan::transpose && !dst_dense_units(e) && !src_dense_rows(e);
}

/// Whether a transpose has the indices whole-line tiles need (the target has them for its
/// element size, A a tile, B half a tile): the shape part of line_tiles, and of nt_rows.
inline bool line_tiles_fit(const engine_plan& p) {
  const index_t T = kernels::line_tile_of(p.elem), TB = kernels::line_tile_rows_of(p.elem);
  return p.kind == engine_plan::transpose && T > 1 && p.nA >= T && 2 * p.nB >= TB;
}

/// Whether a transpose has the indices the tiles of nt_rows need (kernels::rows_tile_of): with
/// whole-line tiles, those of line_tiles_fit; with register tiles, A of a tile and B of two (a
/// last step of B short of a tile is a tile moved back, see transpose_lines). Where B is a
/// single tile, in place held up better: (278,17,102,8).permute(0,3,1,2) fp32 (AVX2, B = 8),
/// 16 MiB, ran alike at 1 thread (17-21 GB/s either way), but at 2, of 8 alternated runs of
/// bench/, in place reached 35-52 GB/s in five where the buffer never passed 32.
inline bool rows_tiles_fit(const engine_plan& p) {
  if (kernels::line_tile_of(p.elem) > 1) return line_tiles_fit(p);
  const index_t T = kernels::rows_tile_of(p.elem);
  return p.kind == engine_plan::transpose && T > 1 && p.nA >= T && p.nB >= 2 * T;
}

/// Whether loops l[0], l[step], l[2 * step], ... (n of them, innermost first) lay pieces of
/// `span` bytes back to back in the destination: each moves it by all that lies inside it.
/// Example: sizes 3 and 4 with destination strides 40 and 120, span 40: yes; 40 and 160: no.
inline bool back_to_back(const byte_loop* l, int n, index_t span, int step) {
  for (int k = 0; k < n; ++k, l += step) {
    if (l->ds != span) return false;
    span *= l->n;
  }
  return true;
}

/// The shortest destination row per unit that streams through the buffer of nt_rows: 256 bytes,
/// of which at most two partial lines go plainly.
inline constexpr index_t nt_rows_min_bytes = 256;
/// nt_rows units cover this many bytes of each destination row (the best of 128 to 1024), or
/// nt_rows_far_block_bytes (see nt_rows_block_of).
inline constexpr index_t nt_rows_block_bytes = 512;
inline constexpr index_t nt_rows_far_block_bytes = 128;
/// The destination bytes per row of an nt_rows unit: nt_rows_far_block_bytes for register tiles
/// (no whole-line tiles on the target) over far-apart source rows whose units read at least 1 KiB
/// of each row (far_long_source_rows); else nt_rows_block_bytes.
/// On the 2-core Zen 3 VM (AVX2), fp32, GB/s counting bytes read and written, medians of 15
/// copies in each of 3 alternated processes, 1 thread (2 in brackets), blocks of 512 -> 128:
/// (65,58,1119).permute(2,1,0) 3.7 -> 5.5 (6.0 -> 11.6), (394,69,154).permute(1,2,0)
/// 4.3 -> 6.2 (7.6 -> 11.7), (10626,394).t() 3.9 -> 7.3 (10.0 -> 13.5), (3760,1119).t() into a
/// destination 16 bytes into a line (as glibc allocates) 2.9 -> 6.4 (6.8 -> 12.1), (4096,4096).t()
/// there 5.0 -> 5.4 (9.0 -> 11.2); a streaming copy ran at 15-25 that hour. Close source rows
/// lost ((449,551,17).permute(2,0,1), B = 17: 0.47 -> 0.36 of a streaming copy), and so did a
/// short B ((5,15,37,5,15,19).permute(3,1,5,0,4,2), B = 19: 0.36 -> 0.33), hence the bounds.
/// Why the buffer's units stay below the tiles that stream whole lines straight from registers
/// (rows on lines, transpose_stream_lines: (3776,1119).t() 0.5-0.6 of that copy) is not pinned
/// down: in units of 128 bytes, built without their streaming stores, they read at that pace
/// (0.6), and with the stores ran at 0.3-0.4. Storing zeros instead of the buffer's lines, asking
/// along the rows instead of for the next unit's lines, streaming each line as soon as a tile
/// completed it, or streaming one step's rows after the next step's tiles (two buffers) measured
/// no better.
/// Example, AVX2, fp32: (65,58,1119).permute(2,1,0) (A widened to 3770, B = 1119 in chunks of
/// 256): blocks of 32 elements; (5,15,37,5,15,19).permute(3,1,5,0,4,2) (B = 19): 112.
inline index_t nt_rows_block_of(const engine_plan& e) {
  return kernels::line_tile_of(e.elem) == 1 && far_long_source_rows(e) ? nt_rows_far_block_bytes
                                                                       : nt_rows_block_bytes;
}
/// Streamed transposes whose rows start on lines, with a group B shorter than this many rows,
/// take blocks of A of transpose_direct_bytes (A whole up to that), not transpose_block_bytes:
/// a unit of 128 bytes of A across under 32 rows of B is under 4 KiB, and such units ran
/// slower than wider ones over the same rows, whether B took partial tiles (B < 16 of fp32) or
/// whole ones (B = 16). (Each unit asks for the next one's source lines, unit_requests; which
/// per-unit cost it is was not pinned down.)
/// Example: (6,19,19,9,16,13).permute(2,5,1,0,3,4) fp32, A = 144 of 52-byte source rows,
/// B = 13: one block of 144 where it was 5 of 32. On a 2-core Zen 5 VM, both builds in one
/// process timed in turn, 1 thread (2 in brackets), medians of 5 (7) pairs, before -> after:
/// that permutation 1.15-1.33x (1.17-1.18x), with B = 11 1.26x (1.14x), 16 1.13-1.21x (1.10x),
/// 19 1.17-1.21x (1.14x), 24 1.05x, 32 0.98-1.01x (hence 32); fp64 (A = 72) with B = 13 and 19
/// 1.40-1.49x (1.33x), bf16 (A = 288) 1.09-1.19x (1.02-1.09x), uint8 (A = 576) 1.03-1.07x. The
/// AVX2 build's tiles (no whole-line tiles, 1 thread) 1.06-2.04x on the same cases.
inline constexpr index_t transpose_short_b_rows = 32;
/// Scattered and far-row plans stream through nt_rows only with destination rows of at least
/// this many bytes: two units or more, so that most lines are completed by the unit after.
inline constexpr index_t nt_rows_long_row_bytes = 1024;

/// Whether a streamed transpose's units take group A whole: source rows close together (one
/// stream), destination rows of at most transpose_direct_bytes, and a tile kernel that
/// transpose_stream_lines can run (whole-line tiles, where the target has them, keep their own
/// units). Each unit then writes every row it touches whole, a line at a time from T rows of B
/// (transpose_stream_lines), instead of 128 bytes of each of its B rows from a buffer, the other
/// pieces left to the units after it (transpose_buffered). FLUX unpack: 32 rows of 1 KiB, 1 KiB
/// and 256 KiB apart, written whole rather than in 8 visits of 128 bytes. B must be a step of T
/// rows at least. (It had to be whole steps while transpose_stream_lines moved a last short step
/// one element at a time: (6,19,19,9,16,13).permute(2,5,1,0,3,4), B = 13 of T = 8, then lost
/// 16.7 -> 14.9 taken whole; with that step moved back, 2 threads, GB/s, 3 medians of 21
/// copies per process, two processes each, blocks of transpose_block_bytes -> whole: 19.5-20.7
/// -> 23.4-26.5 and 13.7-14.8 -> 19.2-23.7; 1 thread 10.1-10.3 -> 12.4-13.1 and 8.4-8.9 ->
/// 8.0-8.8 (Zen 3 VM, AVX2).)
/// On a 2-core Zen 3 VM (AVX2), GB/s, the range of 3 alternated runs of bench/ (each a median
/// of 3), 1 thread (2 in brackets): FLUX unpack fp32 (16,16,256,256) 9.1-9.7 -> 9.9-12.9
/// (15.7-18.5 -> 19.8-25.2), (4,16,256,256) 10.7-12.3 -> 12.0-14.7 (20.5-23.8 -> 22.6-29.7),
/// bf16 (16,16,256,256) 9.5-9.9 -> 10.3-11.4. Permutations whose A is long lost with wider
/// blocks ((37,30,8,12,39).permute(4,0,1,2,3), A = 106560: 20.0 -> 17.4 in blocks of 1 KiB),
/// so a longer A keeps blocks of transpose_block_bytes.
inline bool whole_stream_rows(const engine_plan& e) {
  return !far_source_rows(e) && !line_tiles_fit(e) && kernels::stream_lines_fit(e.elem) &&
         e.nB >= kernels::tile_of(e.elem) && e.nA * e.elem <= transpose_direct_bytes;
}

/// Streamed whole-line tiles over far-apart source rows (far_source_rows) run in panels
/// (engine_plan::panels) where A is a panel long: a unit is panel_chunk_bytes (two lines) of
/// each source row of a panel of A (panel_bytes of each destination row), the units of a panel
/// run one after another along B, and within a unit each tile of A sweeps the unit's B. A unit
/// so reads two lines of each of many rows while it asks for the next two (the next unit's,
/// unit_requests), and writes each of its destination rows a panel long, line after line. The
/// older units (128 bytes of A across 256 indices of B, chunk after chunk down A) read 1 KiB of
/// each of 32 source rows at a time and wrote 256 destination rows two lines at a time.
/// Both builds in one process, timed in turn (medians of 7 pairs), 2-core Zen 5 VM, GB/s, 1
/// thread (2 in brackets): (4096,4096).t() fp32 19.6 -> 24.4 and 21.5 -> 31.8 in two processes
/// (34.0 -> 47.3), (2048,4096).t() fp64 22.4 -> 33.0 (40.2 -> 47.4); FLUX and the benchmark's
/// permutations, which do not take panels, 0.93-1.12x. On the fp32 transpose, against panels of
/// 2 KiB and chunks of two lines: panels of 1 KiB 0.95x, 4 KiB 0.90x; chunks of one line 0.84x,
/// four 0.77x. Where A is shorter than a panel the units were small and lost (FLUX pack fp32
/// (16,16,256,256), destination rows of 256 bytes: 0.77x), and so did 1- and 2-byte elements,
/// whose tiles stage their source lines ((4096,4096).t() uint8 0.71x, (4096,2048).t() bf16
/// 0.93x).
inline constexpr index_t panel_bytes = 2048;
inline constexpr index_t panel_chunk_bytes = 128;
/// Whether a streamed transpose has the shape that panels (zen, 4- and 8-byte elements only) or
/// row blocks (intel) take: far-apart source rows, whole-line tiles, A of `row_bytes` (a panel)
/// at least and B of a chunk. (Rotated panels take A from nt_rows_long_row_bytes:
/// rotated_panels_fit.)
/// Example: (4096,4096).t() fp32, (4096,4096):(1,4096) into row-major: A = 4096 (source rows
/// 16 KiB apart), B = 4096: yes; FLUX pack fp32 (16,16,256,256), A = 32 of 8 bytes: no.
inline bool far_rows_wide(const engine_plan& e, index_t row_bytes = panel_bytes) {
  const index_t T = kernels::line_tile_of(e.elem), TB = kernels::line_tile_rows_of(e.elem);
  return far_source_rows(e) && T > 1 && e.nA * e.elem >= row_bytes &&
         e.nB * e.elem >= panel_chunk_bytes && panel_chunk_bytes % (TB * e.elem) == 0;
}
/// Whether a transpose that streams runs in panels: far_rows_wide, under the zen tunings (zen, zen3).
/// Example: (4096,4096).t() fp32: in 8 panels of 512 by 128 chunks of 32.
inline bool far_row_panels(const engine_plan& e) { return e.tune != tuning::intel && e.elem >= 4 && far_rows_wide(e); }
/// Cuts a transpose into the units of panels (engine_plan::panels): A in blocks of panel_bytes,
/// whole tiles, B in chunks of panel_chunk_bytes. For far_row_panels and rotated_panels_fit.
/// Example: (4096,4096).t() fp32: blocks of 512, chunks of 32.
inline void cut_into_panels(engine_plan& e) {
  e.panels = true;
  split_group_a(e, panel_bytes, kernels::line_tile_of(e.elem));
  split_group_b(e, panel_chunk_bytes / e.elem);
}

/// nt_rows plans whose destination is this large or larger may run in rotated panels
/// (rotated_panels_fit): below it, the source of a transpose (as many bytes) fits the 32 MiB
/// last-level cache beside what else is there, and the chunks' passes down A, each reading
/// 1 KiB of every source row, find much of it there (the stores stream past it). See
/// use_streaming_stores for the figures.
inline constexpr index_t rotated_panels_min_bytes = index_t{32} << 20;
/// Whether a transpose that streams through nt_rows (destination rows off lines) runs in panels
/// instead, as far_row_panels' do, each tile row rotated onto its destination row's lines
/// (kernels::transpose_rotated_rows): zen tunings, 4- or 8-byte elements, the panels' shape
/// (far_rows_wide) with rows of nt_rows_long_row_bytes or more, every destination row 4-byte
/// aligned (rows_aligned: the rotations move 4-byte lanes), and rotated_panels_min_bytes or more.
/// Example: (3000,5000).t() fp32 (60 MB, rows of 12000 bytes at 0 and 32 into a line): yes;
/// (2050,2050).t() (16 MiB): no; (449,551,17).permute(2,0,1) (B = 17, 68 bytes): no.
inline bool rotated_panels_fit(const engine_plan& e, const void* dst, index_t dst_bytes) {
  return e.tune != tuning::intel && (e.elem == 4 || e.elem == 8) && far_rows_wide(e, nt_rows_long_row_bytes) &&
         dst_bytes >= rotated_panels_min_bytes && rows_aligned(e, dst, 4);
}

/// Under the intel tuning, far_rows_wide transposes run in row blocks instead of panels: a unit is
/// row_block_rows source rows (1- and 2-byte elements: a pair of tiles, see intel_line_blocks),
/// each read whole (B undivided) and in order, a step of B sweeping the block's tiles
/// (transpose_lines, streamed), with no requests for the next unit (see prefetch_next_unit). 32
/// rows are 32 streams, as many as the L2 streamer of Intel's cores is documented to follow, so the
/// hardware fetches them ahead, where the panels' 512 rows at a time each need requests by software
/// (an Intel core's software prefetches hold a first-level miss buffer each until their line
/// arrives). On a 2-core Intel Xeon VM (Emerald Rapids), ratio to the better of memcpy and a
/// streaming copy, medians of 5 processes of 11 alternated runs each, 1 thread (in brackets, the
/// gain at 2 threads), panels -> blocks of 32 rows: (4096,4096).t() fp32 0.58 -> 0.78, 1.34x
/// (1.17x), (2048,4096).t() fp64 0.61 -> 1.02, 1.65x (1.45x); blocks of 16 fp64 rows 1.35x (1.30x),
/// of 64 fp32 rows 1.24x (1.08x): hence a count of rows, not of bytes. A hand-written loop in the
/// same order over 16 x 16 tiles ran 0.74-0.81 where the engine ran 0.72-0.79 in the same
/// processes; the panels' order by hand, 0.66.
inline constexpr index_t row_block_rows = 32;
inline bool far_row_blocks(const engine_plan& e) { return e.tune == tuning::intel && far_rows_wide(e); }

/// Under the intel tuning, the blocks of A of a streamed transpose in whole-line tiles (B of
/// transpose_short_b_rows or more, not far_rows_wide): close source rows, one stream, take 256
/// bytes of each destination row a unit where the zen tuning takes transpose_block_bytes (128);
/// far-apart ones row_block_rows rows, 128 bytes at least (fp32: 32 rows, as before; fp64: 32 rows
/// where they were 16). Both without requests for the next unit (prefetch_next_unit). Same
/// machine and harness as far_row_blocks, fp32 unless said, against the zen plan / against the
/// zen plan without the requests, 1 thread (2 threads in brackets): FLUX unpack (16,16,256,256)
/// 1.05x / 1.17x (1.09x / 1.07x), bf16 1.14x / 1.03x (1.18x / 1.07x), (4,16,256,256) 1.06x /
/// 1.07x, (1024,128,64).permute(0,2,1) 1.07x / 1.03x, (2048,64,32).permute(0,2,1) 1.18x / 1.06x
/// (1.16x / 1.06x), fp64 (1024,128,32).permute(0,2,1) 1.10x / 1.08x (1.11x / 1.08x). Far rows in
/// blocks of 256 bytes instead of 128 gained nothing for fp32 ((64,256,256).permute(0,2,1)
/// 0.98x, (16,64,4096).permute(0,2,1) 0.96x, (112,45,8,104).permute(3,2,1,0) 0.97x (0.95x)).
/// Examples: FLUX unpack fp32 (A = 128 rows 256 bytes apart): blocks of 32 where they were 16
/// (A whole since, below); pack fp32 (A = 32 of 8 bytes, channels far apart): one block of 32
/// where there were two of 16 (with the requests dropped as well, (16,16,256,256) 0.91x,
/// (4,16,256,256) 1.01x, at 2 threads 1.09x; without them alone 0.93x, 1.04x, 1.08x).
/// Close rows whose destination rows are at most transpose_direct_bytes and not back to back
/// (FLUX unpack's channels lie 256 KiB apart) take A whole: a unit writes each row in one visit.
/// Same VM, ratio to a streaming copy in the same process (medians of 15), 1 thread, blocks of 256
/// bytes -> whole, medians (ranges) of 4-5 runs: FLUX unpack fp32 (A = 1 KiB) (16,16,256,256) 0.78
/// -> 0.89, (4,16,256,256) 0.78 -> 0.87, (1,16,256,256) 0.77 -> 0.84; bf16 (A = 512 bytes)
/// (4,16,256,256) (0.62-0.71 -> 0.69-0.75), (16,16,256,256) (0.63-0.65 -> 0.63-0.74). bench/ab,
/// 6 rounds, 1 thread (2): unpack fp32 (16,16,256,256) 1.22x (1.16x), (4,16,256,256) 1.13x
/// (1.07x), bf16 1.01x (1.03-1.06x); pack, whose plans are the same, 0.94-1.08x. Rows back to back
/// lost taken whole ((512,128,64).permute(0,2,1) fp32, A = 512 bytes: 27-29 -> 23-27 GB/s) or
/// tied ((64,256,192).permute(0,2,1), 1 KiB).
/// Examples: FLUX unpack fp32 (A = 128 of 8 bytes, B = (2,16):(8,16):(1024,256 Ki)): one block
/// of 128; (512,128,64).permute(0,2,1) fp32 (64 rows of 512 bytes back to back): 2 of 64.
inline index_t intel_line_block_bytes(const engine_plan& e) {
  if (far_source_rows(e)) return std::max(transpose_block_bytes, row_block_rows * e.elem);
  const index_t row = e.nA * e.elem;
  return row <= transpose_direct_bytes && !back_to_back(e.gb, e.nb, row, 1) ? row : 2 * transpose_block_bytes;
}
/// Whether a streamed transpose takes its blocks of A from intel_line_block_bytes: whole-line tiles
/// under the intel tuning. Such plans also take their tiles in pairs along A (engine_plan::pairs,
/// kernels::paired_tiles), their blocks in whole pairs. On the 2-core Intel Xeon VM (Emerald
/// Rapids), streaming stores of one line to each of 64 rows 4096 bytes apart, sweep after sweep,
/// ran at 13.6-14.0 GB/s where two adjacent lines a row ran 25.4 (in address order: 24.9); rows an
/// odd number of lines apart (4160 bytes) ran 25.4 one line a row, 4224 (66 lines) 13.9. Reads
/// alike: (4096,4096).t() uint8 read source rows 4096 bytes apart at 0.51 of memcpy, 4160 apart at
/// 0.77. A pair writes two adjacent lines of each destination row and reads two of each source row.
/// bench/ab against the single tiles, 3 rounds, paired speed-up at 1 thread (2): (4096,4096).t()
/// uint8 1.45x (1.38x), 0.51 -> 0.72 of the best copy; (4096,2048).t() bf16 1.38x (1.33x), 0.53 ->
/// 0.76; (4160,4032).t() uint8 1.08x (1.06x); FLUX bf16 pack (1,16,256,256) 1.20x, (16,16,256,256)
/// 1.10x (1.07x), unpack (1,16,256,256) 1.11x; (37,30,8,12,39).permute(4,0,1,2,3) 1.14x (1.11x);
/// the other FLUX, transpose and permutation rows 0.97-1.06x. Row blocks of 1- and 2-byte elements
/// (far_row_blocks) came with the pairs: without them, blocks of 32 bf16 rows gained 1.18x (1.10x)
/// and of 64 byte rows lost 0.93x (0.91x).
inline bool intel_line_blocks(const engine_plan& e) { return e.tune == tuning::intel && line_tiles_fit(e); }

/// Streamed whole-line tiles of 4- and 8-byte elements whose units each read one stretch of
/// source (A a single loop whose source rows lie back to back, B whole) take blocks of A of
/// dense_source_block_bytes, four lines of each destination row a unit, not
/// transpose_block_bytes (two), under the zen4 tuning. Each step of B sends its rows their lines
/// in turn, so with two tiles of A a row's lines went out in pairs, sweep after sweep. On the
/// 2-core Zen 4 VM (AVX-512), lazyview::copy, 1 thread, GB/s counting bytes read and written,
/// medians of 7 alternated runs, 128 -> 256 bytes: FLUX unpack bf16 (4,16,256,256) (8 MiB) 41.6
/// -> 45.3, (16,16,256,256) 38.9 -> 41.2, fp32 (2,16,256,256) 49.4 -> 53.1, (4,16,256,256) 48.6
/// -> 51.9, (16,16,256,256) 29.1 -> 33.1; (131072,32).t() fp32 33.5 -> 36.4;
/// (64,2048,32).permute(0,2,1) 32.9 -> 37.1; (1024,64,64).permute(0,2,1) (rows 256 bytes apart)
/// 51.9 -> 53.0. Units over far-apart rows lost (medians of 5: FLUX pack fp32 (2,16,256,256),
/// source rows 1 KiB apart, 53.0 -> 50.5; bf16 (4,16,256,256), rows 512 bytes apart in pairs
/// 128 KiB apart, 50.6 -> 48.8), hence one stretch only; 512 bytes lost the gain (unpack bf16
/// (4,16,256,256) 41.4, (16,16,256,256) 33.7). Zen 5 and the intel tuning were not measured.
/// Examples, AVX-512: FLUX unpack fp32 (A = 128 pairs, source rows of 128 bytes back to back,
/// B = 32 whole): yes, blocks of 32 where they were 16; FLUX pack: no; bf16 (4096,2048).t(): no
/// (2-byte, two_byte_line_blocks).
inline constexpr index_t dense_source_block_bytes = 256;
inline bool dense_source_line_blocks(const engine_plan& e) {
  return e.tune == tuning::zen4 && (e.elem == 4 || e.elem == 8) && line_tiles_fit(e) && e.na == 1 &&
         src_dense_rows(e);
}

}  // namespace lazyview
