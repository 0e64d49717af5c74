#pragma once
// How an engine plan treats memory beyond its loops: streaming (non-temporal) stores once the
// destination outgrows the caches (the sizes: eval/streaming_thresholds.hpp), and the groups
// that let it stream; the requests for lines ahead are eval/prefetch_hints.hpp's. Each rule is a
// predicate of the plan (and, for streaming, of the destination's address), so tests can pin
// which plans take which hint.
#include <algorithm>
#include <cstdint>

#include "aliased_rows.hpp"
#include "engine_plan.hpp"
#include "line_runs.hpp"
#include "make_engine_plan.hpp"  // wide_element_runs, as_streamed_runs
#include "narrow.hpp"
#include "odd_rows.hpp"
#include "streaming_thresholds.hpp"

namespace lazyview {

/// Whether a transpose's work unit writes one dense stretch of destination: A is one block and
/// rows of consecutive B indices are adjacent (written back to back).
inline bool dst_dense_units(const engine_plan& e) { return e.blocks_a == 1 && e.gb[0].ds == e.nA * e.elem; }

/// Whether neither side of a transpose's work unit is one dense stretch: its destination is
/// dense as in dst_dense_units, its source when B is one chunk and source rows of consecutive A
/// indices are adjacent.
/// Examples: (1024,1024).t() fp32 (A in 4 blocks, B in 4 chunks): scattered. FLUX pack (A = 32
/// wide elements whole, B rows 256 bytes apart): not. (6,19,19,9,16,13).permute(2,5,1,0,3,4)
/// (B = 13 whole, A rows 52 bytes apart in the source): not.
inline bool scattered_transpose(const engine_plan& e) {
  if (e.kind != engine_plan::transpose) return false;
  const bool src_dense = e.blocks_b == 1 && e.ga[0].ss == e.nB * e.elem;
  return !dst_dense_units(e) && !src_dense;
}

inline index_t transpose_prefetch_distance(const engine_plan& p);

/// Whether a transpose is scattered or reads far-apart source rows with requests along them
/// (transpose_prefetch_distance): such plans stream through nt_rows only with long rows past the
/// threshold, and use_streaming_stores widens their rows where it can.
inline bool far_or_scattered(const engine_plan& e) {
  return scattered_transpose(e) || transpose_prefetch_distance(e) != 0;
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
/// row blocks (intel) take: far-apart source rows, whole-line tiles, A of a panel at least and B
/// of a chunk.
/// Example: (4096,4096).t() fp32, (4096,4096):(1,4096) into row-major: A = 4096 (source rows
/// 16 KiB apart), B = 4096: yes; FLUX pack fp32 (16,16,256,256), A = 32 of 8 bytes: no.
inline bool far_rows_wide(const engine_plan& e) {
  const index_t T = kernels::line_tile_of(e.elem), TB = kernels::line_tile_rows_of(e.elem);
  return far_source_rows(e) && T > 1 && e.nA * e.elem >= panel_bytes &&
         e.nB * e.elem >= panel_chunk_bytes && panel_chunk_bytes % (TB * e.elem) == 0;
}
/// Whether a transpose that streams runs in panels: far_rows_wide, under the zen tunings (zen, zen3).
/// Example: (4096,4096).t() fp32: in 8 panels of 512 by 128 chunks of 32.
inline bool far_row_panels(const engine_plan& e) { return e.tune != tuning::intel && e.elem >= 4 && far_rows_wide(e); }

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

/// Whether a transpose of tiled elements can stream as engine_plan::nt_dense: its units each
/// write one dense stretch (A whole in one block, rows of consecutive B indices back to back),
/// A is a tile wide at least, and a tile's rows fit the buffer (kernels::transpose_dense);
/// dense_tiles_fit: all but the stretch, as dense_stretch_rows needs too.
/// Example: (86,59,45,18).permute(1,2,3,0) fp32 ((86,47790).t(), rows of 344 bytes): yes;
/// (65,58,1119).permute(2,1,0) (rows of 260 bytes, 15080 apart): no.
inline bool dense_tiles_fit(const engine_plan& e) {
  const index_t T = kernels::tile_of(e.elem);
  return e.kind == engine_plan::transpose && T > 1 && e.blocks_a == 1 && e.nA >= T &&
         T * e.nA * e.elem <= dense_tile_rows_bytes;
}

/// Whether a transpose can stream as engine_plan::nt_shifted: its destination rows all start
/// the same bytes into a line (rows_line_offset), a target without whole-line tiles has tiles
/// that stream whole lines (kernels::stream_lines_fit), and each unit takes a tile of B at least.
/// Such plans had streamed through the dense buffer (nt_dense, below) or the row buffer
/// (nt_rows), or run in place, at about half the pace of the same transposes with rows on lines
/// (kernels::transpose_stream_lines). On a 2-core Zen 3 VM (AVX2), destination
/// 16 bytes into a line (a std::vector from glibc), ratio to a one-thread streaming copy, 3
/// alternated processes of medians of 11 copies, 1 thread (2 in brackets), before -> shifted:
/// FLUX pack fp32 (4,16,256,256) (nt_dense) 0.28-0.32 -> 0.44-0.46 (0.52-0.54 -> 0.60-0.73),
/// unpack (nt_dense, stretches of 2 rows) 0.32-0.33 -> 0.44-0.49 (0.51-0.77 -> 0.65-0.71),
/// (4096,4096).t() (nt_rows) 0.27-0.29 -> 0.29-0.35 (0.40-0.53 -> 0.56-0.57),
/// (1000,64,50).permute(0,2,1) (close rows, nt_dense) 0.43-0.45 -> 0.50-0.64 (0.57-0.76 ->
/// 0.70-0.98), (2048,1024).t() (8 MiB, 32 bytes into a line, in place) 0.23-0.27 -> 0.30-0.33;
/// the same on a line (rows_on_lines): about 0.5-0.6. Destinations of 8 MiB stream on one
/// thread as rows on lines do (streaming_threshold_of): FLUX pack bf16 (4,16,256,256)
/// 0.24-0.26 in place -> 0.33-0.38 (0.39-0.44 -> 0.48-0.64 under zen3), fp32 (2,16,256,256)
/// 0.23-0.26 -> 0.42-0.49.
/// Whole-line tiles (AVX-512) shift their lines in registers instead (shifted_tiles_fit).
/// Example: FLUX pack fp32 (4,16,256,256) into a std::vector (16 mod 64), AVX2: yes; into
/// dst + 2 bytes: no.
inline bool shifted_rows_fit(const engine_plan& e, const void* dst) {
  const index_t T = kernels::tile_of(e.elem);
  return e.kind == engine_plan::transpose && !line_tiles_fit(e) && kernels::stream_lines_fit(e.elem) &&
         std::min(e.block_b, e.nB) >= T && rows_line_offset(e, dst) != 0;
}
/// Whether a transpose streams as engine_plan::nt_shifted in whole-line tiles
/// (kernels::transpose_shifted_tiles, AVX-512): the target has them for its elements
/// (line_tiles_fit), every destination row starts the same bytes into a line (rows_line_offset),
/// and rows are at most shifted_tile_row_bytes (a unit takes A whole; longer rows keep nt_rows,
/// whose units take a block of them). They had streamed through the dense buffer (nt_dense). On a
/// 2-core Zen 5 VM, into a std::vector (16 bytes into a line), bench/ab against the dense buffer,
/// medians of 13 rounds of 3 repetitions, 1 thread (2 in brackets): FLUX pack fp32
/// (4,16,256,256) 1.11x (1.08x), 0.51 -> 0.58 of the best copy; unpack 1.22x (1.22x), 0.52 ->
/// 0.62 (0.42 -> 0.51). Their 8 MiB bf16 twins keep the 12 MiB threshold (streaming_threshold_of):
/// streamed at 8 MiB on one thread, unpack lost (0.71x against in place; pack 1.01x).
/// Example: FLUX pack fp32 (4,16,256,256) into a std::vector: rows of 256 bytes, yes;
/// (4096,4096).t() there (rows of 16 KiB): no.
inline constexpr index_t shifted_tile_row_bytes = 1024;
inline bool shifted_tiles_fit(const engine_plan& e, const void* dst) {
  return e.kind == engine_plan::transpose && line_tiles_fit(e) && rows_line_offset(e, dst) != 0 &&
         e.nA * e.elem <= shifted_tile_row_bytes;
}
inline bool dense_rows_fit(const engine_plan& e) {
  return dense_tiles_fit(e) && back_to_back(e.gb, e.nb, e.nA * e.elem, 1);
}

/// The B indices of a stretch, where a transpose's units write their rows back to back in
/// stretches but not as one (dense_rows_fit): A whole in one block, the leading members of B
/// laying A's rows back to back, stretches of stretch_min_bytes or more, fewer rows than B;
/// else 0. Such plans stream (engine_plan::stretch_b, kernels::transpose_stretches), each
/// stretch by streaming stores but its two end lines, where in place every line is read for
/// ownership before it is written. On the 2-core Zen 4 VM (AVX-512), fp32 (20,44,N,7,S).permute(
/// 2,3,1,4,0) (far-apart source rows, rows of 80 bytes in stretches of S), about 17 MiB, GB/s,
/// medians of 7 alternated runs, in place -> streamed, 1 thread (2 in brackets): S = 15 (1200
/// bytes, the benchmark's permutation) 25.7 -> 29.7 and 23.3 -> 26.7 in two runs (48.0 -> 40.5,
/// 45.1 -> 47.6, 56.0 -> 54.6 in three), S = 60 (4800) 20.2 -> 28.4 (40.3 -> 45.4), S = 8 (640)
/// 21.0 -> 27.1 (41.3 -> 44.3), S = 6 (480) 21.6 -> 28.1, S = 4 (320) 20.2 -> 30.2; under 256
/// bytes mixed: S = 3 (240) 26.5 -> 21.2 and 23.4 -> 20.7, S = 2 (160) 10.4 -> 17.9.
/// Example: (20,44,46,7,15).permute(2,3,1,4,0) fp32: A = 20 (rows of 80 bytes), B =
/// (15,322):(4,60):(80,52800): 15 (stretches of 1200 bytes).
inline constexpr index_t stretch_min_bytes = 256;
inline index_t dense_stretch_rows(const engine_plan& e) {
  if (!dense_tiles_fit(e)) return 0;
  const index_t row = e.nA * e.elem;
  index_t rows = 1;
  for (int k = 0; k < e.nb && e.gb[k].ds == rows * row; ++k) rows *= e.gb[k].n;
  return rows > 1 && rows < e.nB && rows * row >= stretch_min_bytes ? rows : 0;
}

/// Whether a run plan's outer loops go in destination order (by decreasing destination stride),
/// as order_runs puts them where source order would keep over 4x the runs open.
/// Example: (32,2048,64).permute(1,0,2) fp32, outer (2048,32):(256,512 Ki):(8 Ki,256): yes.
inline bool in_destination_order(const engine_plan& e) {
  for (int k = 1; k < e.nouter; ++k)
    if (e.outer[k - 1].ds < e.outer[k].ds) return false;
  return true;
}

/// Long runs stream when they start 32-byte aligned (copy_nt stores any head and tail plainly).
/// Runs up to gather_max_run_bytes that lie back to back in the destination are gathered
/// instead (engine_plan::gather): taken in destination order into a buffer whose whole lines
/// stream out, each run asking for the source lines of one about 8 KiB on (kernels::gather_runs)
/// - where they do not start aligned, or order_runs put them in destination order already.
/// On a 2-core Zen 5 VM, fp32, GB/s, medians of 3 alternated runs, 1 thread (2 in brackets):
/// - misaligned, in place in source order with each run's lines asked for two runs ahead
///   (run_prefetch_distance) -> gathered: (187,258,87).permute(1,0,2) 25 -> 55 (55 -> 65),
///   (96,193,227).permute(1,0,2) 27 -> 66 (54 -> 78), (68,14,35,9,14).permute(0,2,1,3,4)
///   34 -> 68 (67 -> 69), (30,40,50,70).permute(1,2,0,3) 27 -> 50 (49 -> 67),
///   (30,40,50,70).permute(2,0,1,3) 28 -> 54 (51 -> 70) (a streaming copy: 60-75); with few
///   destination streams too ((6000,3,250).permute(1,0,2) 28 -> 66, (3000,6,500) 25 -> 33),
///   but not with longer runs ((1100,6,630) 32 -> 28, (800,6,875) 40 -> 23);
/// - aligned, streamed straight in destination order -> gathered: (16,1024,256).permute(1,0,2)
///   51 -> 68 (84 -> 93), (8,2048,256) 60 -> 69 (85 -> 94); in source order they lost
///   ((3000,6,512) 51 -> 38, (4000,4,256) 70 -> 62).
/// Under the intel tuning runs shorter than intel_in_place_run_bytes that do not start aligned
/// stay in place, not gathered: on the 2-core Intel Xeon VM (Emerald Rapids), fp32, about 16 MiB,
/// bench/ab with the bench built without streaming against the default, 4 rounds, medians of the
/// paired speed-ups, 1 thread (2): (187,258,87).permute(1,0,2) (348-byte runs) 1.37x (1.23x),
/// (30,40,50,70).permute(1,2,0,3) (280) 1.15x (1.19x), (2,0,1,3) 1.29x (1.47x); gathered, they had
/// run at 0.82-1.02 of the bench's plain loops. Longer ones did not gain in place then
/// ((68,14,35,9,14).permute(0,2,1,3,4) (504) 0.92x (1.03x), (96,193,227).permute(1,0,2) (908)
/// 0.83x (0.98x)), but did when measured again later (the figures at
/// intel_run_streaming_threshold, eval/streaming_thresholds.hpp), and by bench/ab against the
/// build that gathered them, 3 rounds: 1.19x (1.12x) and 1.01x (1.04x), (16,1024,256) 1.08x
/// (1.09x), (8,2048,256) 1.05x (1.09x); they now stay in place below
/// intel_run_streaming_threshold.
/// Transposes of odd-sized elements (no tile kernel: transpose_block_odd) stream where a unit's
/// destination rows lie back to back, up to gather_max_run_bytes each: rows go out through the
/// buffer of gathered runs. In place -> streamed, fp32, 1 thread (2 in brackets), GB/s:
/// (26,785,20,10).permute(1,2,0,3) (40-byte elements, rows of 1040 bytes) 23 -> 51 (46 -> 68),
/// the agents chain (600,7,500,6).permute(0,2,1,3) (24-byte, 168) 15 -> 31 (29 -> 46),
/// (4,5,14979,14).permute(0,2,1,3) (56-byte, 280) 28 -> 58. Past streaming_threshold, longer
/// rows stream too, A taken whole so that a unit's rows lie back to back (in blocks of 8 they
/// ran in place, each a piece of 8 elements of a row), in units of odd_rows_unit_bytes. In
/// place -> streamed, same machine, GB/s, medians of 7 alternated runs, 1 thread (2 in
/// brackets): (4,40,20,4,20,14).permute(2,3,4,0,1,5) (56-byte, rows of 8960 bytes) 25 -> 36
/// (28 -> 38), (100,4000,10).permute(1,0,2) (40-byte, 4000) 22 -> 46 (35 -> 45),
/// (300,3000,5) (20-byte, 6000) 13 -> 29 (27 -> 28), (1000,1000,5) 14 -> 23 (22 -> 35),
/// (2000,500,6) (24-byte, 48000) 15 -> 23 (two runs at 2: 30 -> 25, 33 -> 43); (1000,1000,3)
/// (12-byte, 12000) 16 -> 16 (17 -> 17). In cache they lost ((300,1000,3), 3.6 MB, 32 -> 22).
/// The in-place kernel has since gained (an element moves as one power-of-two move spilling into
/// the next, kernels::copy_over), and rows that gather from odd_rows_in_place_a source rows or more
/// now run faster in place. Both builds in one process timed in turn, 2-core Zen 5 VM, streamed ->
/// in place, 1 thread, medians of 3 pairs in each of four processes (of 7 pairs at 2 threads, in
/// brackets): (2000,500,6) (A = 2000) 1.39-1.50x (1.54-1.89x), (1200,700,5) (1200) 1.30-1.43x
/// (1.03-1.05x), (1000,1000,5) (1000) 1.10-1.30x (1.14-1.17x), (1000,600,7) (1000) 1.29-1.34x
/// (1.22-1.24x). With fewer source rows the in-place plan lost or tied, and its ratio swung from
/// process to process: (800,1000,5) 0.93-1.01x, (700,1000,5) 0.88-0.96x, (500,1000,10) (40-byte)
/// 0.83-0.94x, (300,1500,10) 0.78-1.02x, (4,40,20,4,20,14).permute(2,3,4,0,1,5) (A = 160)
/// 0.70-0.76x where two earlier processes had measured 1.05-1.07x.
/// Under the zen3 tuning, rows that would stage (A of odd_stage_min_a or more) of elements wider
/// than 16 bytes stay in place as well (odd_rows_in_place, eval/odd_rows.hpp).
/// Transposes stream through a buffer whose rows leave in whole cache lines: each destination
/// row starts on a line, covers whole lines, and A splits into blocks of whole lines. A
/// streaming store to part of a line costs a read of that line: (48,45,8,104).permute(3,2,1,0)
/// fp32 in blocks of 96 bytes ran at 0.29 of memcpy streamed, against 0.57 in place.
/// Whole-line tiles (see line_tiles) stream rows that do not start on a line too, through a
/// buffer (nt_rows): each unit's destination rows, nt_rows_block_bytes long, leave with their
/// whole lines streamed; the unfinished line at a unit's end is carried to the next unit along
/// the row (kernels::line_carry), so only a row's two ends go plainly. Such plans had run in
/// place, each tile row a store split over two lines; then through the buffer without the
/// carry, every unit storing both partial lines of each row plainly, each a line read from
/// memory. On a 2-core Zen 5 VM, fp32, GB/s, that -> units of 512 bytes with the carry
/// (medians of 3 alternated runs, 1 thread; 2 threads in brackets):
/// (449,551,17).permute(2,0,1) 26 -> 35 (45 -> 56), (46,109,14,58).permute(0,3,1,2) 31 -> 45
/// (62 -> 72), (23,21,5,42,44).permute(2,4,0,1,3) 31 -> 39 (44 -> 52),
/// (19,22,17,6,5,18).permute(2,0,5,1,3,4) 33 -> 40 (42 -> 49); units of 128, 256 and 1024
/// bytes measured lower. Not taken by:
/// - scattered and far-row plans (transpose_prefetch_distance), in place with their tuned
///   requests, unless past streaming_threshold with rows of nt_rows_long_row_bytes, where the
///   carry completes most lines. In place -> nt_rows there: (2047,2049).t() 20 -> 34,
///   (1000,4194).t() 23 -> 40, (4194,1000).t() 26 -> 41, (10626,394).t() 20 -> 42,
///   (394,69,154).permute(1,2,0) 24 -> 36 (40 -> 53). With shorter rows, whose two ends are
///   most of each row, it lost: (131,32017).t() 28 -> 24, (65,58,1119).permute(2,1,0) 22 -> 17,
///   (86,59,45,18).permute(1,2,3,0) 22 -> 19. In cache, it only costs: 0.70x at the scattered
///   threshold ((1000,1000).t(), before the carry). Under the intel tuning "past" means from its
///   4 MiB: on the Intel Xeon VM, 1 thread (2 in brackets), against in place below 12 MiB,
///   (1500,1100).t() 2.95x (2.25x), (2047,1025).t() 1.86x (1.62x), (200,69,154).permute(1,2,0)
///   1.04x (1.14x) (same harness as intel_streaming_threshold's figures);
/// - rows under nt_rows_min_bytes per unit, mostly partial lines.
/// Tile rows shifted into whole lines in registers instead (a two-source permute per row, the
/// tile row before kept per row, no buffer) measured 0.55-0.78x of the buffer.
/// Where the target has no whole-line tiles (AVX2, SSE2), its register tiles fill the same
/// buffer (kernels::rows_tile_of; A of a tile and B of two, rows_tiles_fit), under the same
/// rules. Such plans had run in place. On a 2-core Zen 3 VM (AVX2), fp32, 16 MiB, GB/s, medians
/// of 4 alternated runs of bench/, 1 thread (2 in brackets), in place -> nt_rows:
/// (394,69,154).permute(1,2,0) 8.3 -> 11.7 (13.6 -> 19.4), (449,551,17).permute(2,0,1)
/// 9.1 -> 15.0 (15.3 -> 21.2), (46,109,14,58).permute(0,3,1,2) 7.6 -> 17.7 (12.1 -> 28.8),
/// (19,22,17,6,5,18).permute(2,0,5,1,3,4) 9.7 -> 16.9 (21.6 -> 24.4).
/// Ahead of nt_rows, transposes whose units each write one dense stretch and whose rows are
/// not whole lines on a line (dense_rows_fit) stream through a buffer laid out like the stretch
/// (engine_plan::nt_dense, kernels::transpose_dense): only the stretch's two end lines go
/// plainly, where nt_rows stores both partial lines of every row plainly, and in place (the
/// far-row plans above) reads every line for ownership. On a 2-core Zen 4 VM (AVX-512), fp32,
/// about 16 MiB, GB/s, medians of 5 alternated runs, 1 thread (2 in brackets; -mavx2 builds
/// after the semicolon): (86,59,45,18).permute(1,2,3,0) (far rows, rows of 344 bytes, in place)
/// 11.2 -> 18.4 (18.7 -> 30.0; 11.3 -> 21.4), (200,20,1050).permute(0,2,1) (far rows, 80 bytes)
/// 11.0 -> 18.7 (17.7 -> 33.7; 10.8 -> 21.3), (1000,86,50).permute(0,2,1) (close rows, nt_rows)
/// 7.9 -> 10.5 (13.0 -> 16.5; 9.2 -> 11.3); a streaming copy: 45-55. With the destination 12
/// bytes off a line (medians of 3, 1 thread): 11.6 -> 21.1, 12.2 -> 22.3, 8.4 -> 12.2, and FLUX
/// pack (4,16,256,256), whose rows of 256 bytes then start mid-line, 10.0 -> 11.9. Where the
/// rows lie back to back only in stretches of part of a unit (dense_stretch_rows), they stream
/// stretch by stretch (kernels::transpose_stretches), B cut into chunks of whole stretches.
/// Runs of wide_element_run_bytes (a strided plan of 64-byte elements, run_element) take the
/// rules of runs above, where they then stream (as_streamed_runs); strided, they had stored
/// plainly at 0.74-0.97 of the bench's plain loops. Intel Xeon VM, fp32, about 16 MiB, bench/ab
/// against the strided build, 3 rounds, ratio to the best copy, 1 thread (2 in brackets):
/// (300,220,64).permute(1,0,2) (source order, copy_nt) 0.29 -> 0.90 (0.57 -> 0.86),
/// (32,2048,64) (gathered) 0.31 -> 0.76 (0.57 -> 0.79); the plain loop: 0.38-0.40 (0.62-0.63).
/// On a 2-core Zen 4 VM (AVX-512), same harness, against the strided plan with
/// kernels::strided_runs, 1 thread (2): (300,220,64) 0.42 -> 0.92 (0.65 -> 0.90), (32,2048,64)
/// 0.46 -> 0.73 (0.80 -> 0.85). Shorter runs (65 to 255 bytes) gained where order_runs left them in
/// source order, gathering turning them to destination order: (600,220,32) 0.36 -> 0.54
/// (0.55 -> 0.77), (500,220,48) 0.40 -> 0.64 (0.71 -> 0.99), (700,220,24) 0.28 -> 0.40
/// (0.43 -> 0.56), (1000,220,17) 0.23 -> 0.27 (0.35 -> 0.33); where it had left them in
/// destination order already, gathered and in place ran alike, in place a little ahead on one
/// thread: paired speed-ups (48,4096,20) 0.84x (1.03x), (64,2048,32) 0.98x (1.10x), bf16
/// (64,2048,64) 1.08x (1.19x). So those stay in place, unless they are whole lines on lines
/// (order_line_runs). The plain loop ran at 0.20-0.34 (0.32-0.65).
/// `threshold`: streaming_threshold_of(e, dst, nthreads), which use_streaming_stores reads too;
/// `nthreads`: the threads the copy runs on. These rules take the groups as make_engine_plan grew
/// them; use_streaming_stores then widens A where they leave rows too short.
inline void stream_as_grouped(engine_plan& e, const void* dst, index_t dst_bytes, unsigned nthreads,
                              index_t threshold) {
  if (wide_element_runs(e) && dst_bytes >= never_streams_below) {
    // Runs of 65 to 256 bytes stream as runs; in place they keep the loop of wide elements. Tried
    // on a copy (a plan is 2 KB), only where it may stream: this runs on every copy's call.
    // Shorter than 256 bytes, only where gathering turns source order into destination order.
    engine_plan r = e;
    as_streamed_runs(r);
    if (r.run_bytes < wide_element_run_bytes && in_destination_order(r)) {
      // (whole lines on lines: in destination or source order, order_line_runs)
      if (kernels::have_nt && dst_bytes >= streaming_threshold_of(r, dst, nthreads) && lines_aligned(r, dst, 64) &&
          order_line_runs(r)) {
        r.nt = true;
        e = r;
      }
      return;
    }
    stream_as_grouped(r, dst, dst_bytes, nthreads, streaming_threshold_of(r, dst, nthreads));
    if (r.nt) e = r;
    return;
  }
  if (!kernels::have_nt || dst_bytes < (scattered_transpose(e) ? scattered_streaming_threshold : threshold))
    return;
  const bool aligned = lines_aligned(e, dst, e.kind == engine_plan::transpose ? 64 : 32);
  if (e.kind == engine_plan::run) {
    e.nt = aligned && e.run_bytes >= 256;
    if (e.nt && e.run_bytes <= gather_max_run_bytes && in_destination_order(e) && lines_aligned(e, dst, 64) &&
        long_runs_by_source(e)) {
      to_source_order(e);
      return;
    }
    const bool intel_in_place = e.tune == tuning::intel && !e.nt && e.run_bytes < intel_in_place_run_bytes;
    if (e.nouter > 0 && e.run_bytes <= gather_max_run_bytes && !intel_in_place) {
      byte_loop by_dst[max_loops];
      for (int i = 0; i < e.nouter; ++i) by_dst[i] = e.outer[i];
      sort_by_decreasing_stride(by_dst, e.nouter, [](const byte_loop& l) { return l.ds; });
      if (back_to_back(by_dst + e.nouter - 1, e.nouter, e.run_bytes, -1) && (!e.nt || in_destination_order(e))) {
        if (e.tune == tuning::intel && e.run_bytes >= intel_in_place_run_bytes &&
            dst_bytes < intel_run_streaming_threshold) {
          e.nt = false;  // in place, in order_runs' order (see intel_run_streaming_threshold)
          return;
        }
        for (int i = 0; i < e.nouter; ++i) e.outer[i] = by_dst[i];
        e.nt = e.gather = true;
      }
    }
  } else if (e.kind == engine_plan::transpose) {
    if (const narrow_kind nk = narrow_transpose(e); nk != narrow_kind::none) {
      // Streamed where whole vectors land on whole lines of every destination row
      // (kernels::narrow_rounds). A split whose rows do not start on lines stores plainly,
      // unless whole-line tiles fit it (group B of 8 fp32, 4 doubles): they stream it through
      // nt_rows, which measured 1.4-1.8x against the narrow kernel in place on
      // (278,17,102,8).permute(0,3,1,2) fp32 (medians of 5 alternated runs, 1 and 2 threads).
      // Narrower splits run in place against tiles there: (2000001,3).t() 13.6 -> 32.6 GB/s.
      // (The byte shuffles of AVX2 store plainly.)
      e.nt = !narrow_bytes && aligned && (nk == narrow_kind::merge || e.gb[0].ds % 64 == 0);
      if (e.nt || nk == narrow_kind::merge || !line_tiles_fit(e)) return;
      e.no_narrow = true;
    }
    if (!is_pow2_upto64(e.elem)) {
      // through a line_writer (kernels::transpose_block_odd), where a unit's rows lie back to back
      const index_t row = e.nA * e.elem;
      const bool short_rows = e.blocks_a == 1 && row <= gather_max_run_bytes;
      if (!back_to_back(e.gb, e.nb, row, 1) || (!short_rows && dst_bytes < threshold) || odd_rows_in_place(e))
        return;
      e.nt = true;
      if (e.blocks_a == 1) return;
      split_group_a(e, row);
      split_group_b(e, odd_rows_unit_bytes / row);
      return;
    }
    if (e.elem > 8 || kernels::tile_of(e.elem) == 1) return;
    if (rows_on_lines(e, dst)) {
      e.nt = true;
      e.pairs = intel_line_blocks(e);
      const index_t pair = e.pairs ? 2 : 1;
      if (far_row_blocks(e)) {
        split_group_a(e, row_block_rows * e.elem, pair * kernels::line_tile_of(e.elem));
        split_group_b(e, e.nB);
        return;
      }
      if (far_row_panels(e)) {
        e.panels = true;
        split_group_a(e, panel_bytes, kernels::line_tile_of(e.elem));
        split_group_b(e, panel_chunk_bytes / e.elem);
        return;
      }
      if (staged_source_rows(e)) {
        e.staged_rows = true;
        split_group_a(e, staged_block_bytes, kernels::staged_tile_of(e.elem));
        split_group_b(e, staged_unit_bytes / e.elem);
        return;
      }
      const index_t block = whole_stream_rows(e)              ? e.nA * e.elem
                            : e.nB < transpose_short_b_rows ? transpose_direct_bytes
                            : intel_line_blocks(e)          ? intel_line_block_bytes(e)
                            : aliased_source_rows(e)        ? aliased_block_bytes
                            : two_byte_line_blocks(e)       ? two_byte_block_bytes
                                                            : transpose_block_bytes;
      split_group_a(e, block, pair * std::max<index_t>(kernels::tile_of(e.elem), 64 / e.elem));
      e.split_sweeps = aliased_destination_rows(e);
      return;
    }
    if (shifted_tiles_fit(e, dst) || shifted_rows_fit(e, dst)) {
      e.nt = e.nt_shifted = true;
      split_group_a(e, e.nA * e.elem);  // A whole: a unit's seams go out in order
      return;
    }
    if (dense_rows_fit(e)) {
      e.nt = e.nt_dense = true;
      return;
    }
    if (const index_t rows = dense_stretch_rows(e); rows != 0) {
      e.nt = e.nt_dense = true;
      e.stretch_b = rows;
      split_group_b(e, std::max(rows, transpose_chunk_b / rows * rows));
      return;
    }
    if (!rows_tiles_fit(e) || e.block_a * e.elem < nt_rows_min_bytes) return;
    // scattered and far-row plans: only with rows long enough to be carried from unit to unit
    // and past the caches (see above)
    if (far_or_scattered(e) && (dst_bytes < threshold || e.nA * e.elem < nt_rows_long_row_bytes))
      return;
    e.nt = e.nt_rows = true;
    split_group_a(e, nt_rows_block_of(e), kernels::rows_tile_of(e.elem));
  }
}

/// Decides whether e streams, and how (stream_as_grouped's rules). A transpose past the threshold
/// that they leave in place for its short destination rows (under nt_rows_long_row_bytes) is
/// tried once more with group A widened by the loops that continue it in the destination
/// (widen_group_a), and takes that plan if it then streams: long rows through nt_rows, or in
/// whole-line tiles where they start on lines. That was first for far-row and scattered plans
/// (below); source rows close together gain too: (23,21,5,42,44).permute(2,4,0,1,3) fp32 (A = 42,
/// rows of 168 bytes, under nt_rows_min_bytes, in place; widened by the 21 and the 23 to 20286,
/// nt_rows), on the 2-core Zen 3 VM (AVX2), GB/s counting bytes read and written, medians of 15
/// copies, 3 alternated processes, 1 thread 2.2-3.5 -> 4.3-5.5, 2 threads 3.8-4.4 -> 6.6-10.7
/// (a streaming copy: 12-16 that hour). Of the benchmark's other plans (FLUX, permutations,
/// transposes, layouts), none changed. (With whole-line tiles, A grows to 20286 in
/// make_engine_plan already: transpose_group_target_a.) make_engine_plan keeps A
/// short (in place, a longer A measured slower: transpose_group_target_a) and may give B a loop
/// that continues both groups; streamed, long rows count for more. On the 2-core Zen 4 VM
/// (AVX-512), fp32, about 16 MiB, GB/s, medians of 7 alternated runs, 1 thread (2 in brackets),
/// in place -> widened: (65,58,1119).permute(2,1,0) (an outer loop: rows of 260 -> 15080 bytes,
/// nt_rows) 14.2 -> 24.8 (26.4 -> 37.2); (5,15,37,5,15,19).permute(3,1,5,0,4,2) (B's second
/// member: 148 -> 2220 bytes, B 1425 -> 19) 17.6 -> 23.1 (29.5 -> 34.5);
/// (20,6,5,30,15,16).permute(0,5,3,4,1,2) (120 -> 54000, B 7200 -> 16) 22.0 -> 31.1 (30.1 ->
/// 37.4); (150,40,700).permute(2,1,0) (600 -> 24000 bytes on lines, panels) 13.6 -> 38.8
/// (18.8 -> 48.6); a streaming copy: 45-55 (about 60 at 2). B left as short as 8 or 10
/// ((5,15,37,12,15,8) and (5,15,37,10,15,10) of the same permutation) gained as well, 1.18x
/// and 1.21x at 1 thread (medians of 5); shorter, the tiles of nt_rows do not fit it
/// (rows_tiles_fit) and the plan stays as grouped.
/// (A plan that stream_as_grouped leaves in place keeps its threshold: only a narrow split off
/// lines is marked no_narrow there, and its rows are not on lines either way.)
inline void use_streaming_stores(engine_plan& e, const void* dst, index_t dst_bytes, unsigned nthreads = 1) {
  const index_t threshold = streaming_threshold_of(e, dst, nthreads);
  stream_as_grouped(e, dst, dst_bytes, nthreads, threshold);
  if (e.nt || e.kind != engine_plan::transpose || e.elem > 8 || kernels::tile_of(e.elem) == 1 ||
      e.nA * e.elem >= nt_rows_long_row_bytes || dst_bytes < threshold)
    return;
  engine_plan w = e;
  w.no_narrow = false;
  if (!widen_group_a(w, nt_rows_long_row_bytes)) return;
  stream_as_grouped(w, dst, dst_bytes, nthreads, streaming_threshold_of(w, dst, nthreads));
  if (w.nt) e = w;
}

}  // namespace lazyview

// The requests (prefetches) of the same plans; they read the predicates above, and
// far_or_scattered reads transpose_prefetch_distance, declared above.
#include "prefetch_hints.hpp"
