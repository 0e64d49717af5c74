#pragma once
// How an engine plan treats memory beyond its loops: streaming (non-temporal) stores once the
// destination outgrows the caches (the sizes: eval/streaming_thresholds.hpp), and the groups
// that let it stream; the units a streamed transpose is cut into are eval/stream_units.hpp's, the
// requests for lines ahead eval/prefetch_hints.hpp's. Each rule is a predicate of the plan (and,
// for streaming, of the destination's address), so tests can pin which plans take which hint.
#include <algorithm>
#include <cstdint>

#include "aliased_rows.hpp"
#include "banded_runs.hpp"
#include "engine_plan.hpp"
#include "line_runs.hpp"
#include "make_engine_plan.hpp"  // wide_element_runs, as_streamed_runs
#include "narrow.hpp"
#include "odd_rows.hpp"
#include "stream_units.hpp"
#include "streaming_thresholds.hpp"

namespace lazyview {

/// Defined in eval/prefetch_hints.hpp, which this header includes at its end.
inline index_t transpose_prefetch_distance(const engine_plan& p);

/// Whether a transpose is scattered or reads far-apart source rows with requests along them
/// (transpose_prefetch_distance): such plans stream through nt_rows only with long rows past the
/// threshold, and use_streaming_stores widens their rows where it can.
inline bool far_or_scattered(const engine_plan& e) {
  return scattered_transpose(e) || transpose_prefetch_distance(e) != 0;
}

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

/// Whether narrow split e (kernels::narrow_unit), past the streaming threshold, streams rows
/// that do not all start on lines, each line joined from two rounds (kernels::narrow_rounds,
/// Shifted): every row starts a multiple of narrow_lane bytes into memory, on a target that
/// permutes lanes (AVX-512). Its units then take narrow_shifted_block_bytes of each row: a
/// unit stores the partial lines at both ends of its rows plainly.
/// Example: (278,17,102,8).permute(0,3,1,2) fp32 (8 rows of 6936 bytes a group, at 0, 24, 48,
/// ... mod 64): yes; a merge: no (its one destination row is a stream of whole vectors).
/// Why: in place, or through nt_rows' buffer (group B of 8 fp32), such splits ran at half a
/// streaming copy. Harness, lazyview::copy, 2-core Zen 4 VM, GB/s, medians of 5 alternated
/// runs, 1 thread (2 in brackets), before -> streamed in blocks of 16 KiB: (2000001,3).t() fp32
/// 22.5 -> 41.4 (44.7 -> 55.8), (600001,7).t() 23.0 -> 41.8 (84.6 -> 86.7), (524289,8).t() 15.6
/// -> 37.9 (37.2 -> 55.4; on lines, (524288,8).t(), 46.0), (278,17,102,8).permute(0,3,1,2)
/// 23.3 -> 41.3 (42.1 -> 82.0). Blocks of 1 KiB (a row's unit then has two partial lines of
/// 16) lost that permutation (17.7 at 1 thread); of 4 KiB: 32.6 (67.3); of 64 KiB: 41.3 (82.3),
/// and (600001,7).t() 44.6, (2000001,3).t() 39.4.
inline constexpr index_t narrow_shifted_block_bytes = index_t{16} << 10;
inline bool narrow_shifted_rows(const engine_plan& e, const void* dst, narrow_kind nk) {
  return nk == narrow_kind::split && narrow_lane > 0 && rows_aligned(e, dst, narrow_lane);
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
/// intel_run_streaming_threshold, where they do not start on 32 bytes.
/// Under the intel tuning (intel_straight_runs, eval/line_runs.hpp), runs that start on 32 bytes
/// (e.nt: 256 bytes or more) and lie back to back in the destination stream straight in destination
/// order (copy_nt, each run's tail line completed by the next run's head), neither gathered nor in
/// place. Gathering reads each run into the buffer and again out of it; straight, a destination row
/// is one stream of whole lines read from its source rows in turn, as a streaming copy reads one.
/// Same VM, a standalone harness, fp32, GB/s counting bytes read and written, medians of 25 copies,
/// 3 alternated rounds of each build, 1 thread, before -> straight (2 threads, where the VM's
/// second core was quiet, in brackets): gathered: (32,2048,64).permute(1,0,2) (256-byte runs, 32
/// source rows) 26.7-27.8 -> 32.3-34.5 (55 -> 65-66), (24,2048,80) (320) 20.4-26.0 -> 33.5-35.6 (54
/// -> 68-71), (8,8192,64) 28.9-29.5 -> 33.2-35.5, (64,1024,64) 23.4-26.8 -> 31.7-33.4 (51 -> 63),
/// (40,2048,96) (384, 30 MiB) 21.9-26.8 -> 32.8-34.7 (53 -> 63-66), (32,1024,256) (1 KiB, 32 MiB)
/// 29.0-30.0 -> 30.7-36.4 (57-59 -> 63-72); in place (intel_run_streaming_threshold): (16,1024,256)
/// 27.6-28.1 -> 34.7-36.3 (56 -> 66-71), (8,2048,256) 27.5-27.6 -> 35.7-36.3 (51-54 -> 68-69),
/// (48,1024,96) 25.9-26.5 -> 34.5-35.6 (51 -> 64-66), (6,1024,256) (6 MiB) 28.6-29.6 -> 33.4-36.6.
/// A streaming copy of the same bytes: about 33 (65). With the destination 32 bytes off a line,
/// (32,2048,64) and (24,2048,80) 19.5-28.3 -> 28.2-36.6. In source order instead (to_source_order)
/// they ran alike or a little behind destination order from 8 to 64 source rows ((16,4096,64)
/// 31.0-32.6 against 32.2-34.4). (The zen tunings, whose gathered and source orders were measured
/// against straight streaming above and in long_runs_by_source, keep them.)
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
/// In panels, though, that way wins past the last-level cache: from rotated_panels_min_bytes,
/// far-row plans whose B is a chunk of two lines or more (rotated_panels_fit) run as
/// far_row_panels' do, their tile rows rotated onto the destination's lines
/// (kernels::transpose_rotated_rows) and each row's unfinished line carried from panel to panel.
/// Both builds in turn, 2-core Zen 5 VM, fp32, paired speed-ups (medians of 5 alternated pairs),
/// chunks down A through the buffer -> rotated panels, 1 thread (2 in brackets): (3000,5000).t()
/// (60 MB) 1.54x (1.44x), (4100,4100).t() 1.32x (1.35x), (1500,11000).t() 1.44x (1.35x),
/// (11000,1500).t() 1.38x (1.46x), (3000,4096).t() 1.39x (1.52x), (3000,2800).t() (33.6 MB)
/// 1.22x, (4100,2050).t() 1.05x. Smaller, it lost on 1 thread: (2050,2050).t() (16 MiB)
/// 0.84-0.96x, (3000,1400).t() and (4100,1025).t() 0.88x, (3000,2100).t() (25 MB) 0.91x,
/// (65,58,1119).permute(2,1,0) 0.92-0.97x (1.01x and 1.18x at 2 threads); but fp64
/// (1500,2500).t() (30 MB) gained 1.51x (1.43x), which the bound leaves out. Down A, the
/// rotations lost to the buffer (0.80-0.88x with B of 17 to 19: (449,551,17).permute(2,0,1),
/// (5,15,37,5,15,19).permute(3,1,5,0,4,2)), and the buffer in panels (of 1 KiB, as much as it
/// takes) gained less: (3000,5000).t() 1.14x.
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
        return;
      }
      // gathered where they go in bands (see banded_runs)
      engine_plan g = r;
      stream_as_grouped(g, dst, dst_bytes, nthreads, streaming_threshold_of(g, dst, nthreads));
      if (g.gather && banded_runs(g)) e = g;
      return;
    }
    stream_as_grouped(r, dst, dst_bytes, nthreads, streaming_threshold_of(r, dst, nthreads));
    if (r.nt) e = r;
    return;
  }
  if (!kernels::have_nt || dst_bytes < (scattered_transpose(e) ? scattered_streaming_threshold : threshold))
    return;
  if (line_element_transpose(e)) {
    e.nt = lines_aligned(e, dst, 64);
    return;
  }
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
        if (e.nt && intel_straight_runs(e)) return;  // straight, in destination order (see above)
        // (e.nt is false here under intel: off 32 bytes) in place, in order_runs' order (see
        // intel_run_streaming_threshold)
        if (e.tune == tuning::intel && e.run_bytes >= intel_in_place_run_bytes &&
            dst_bytes < intel_run_streaming_threshold)
          return;
        for (int i = 0; i < e.nouter; ++i) e.outer[i] = by_dst[i];
        e.nt = e.gather = true;
      }
    }
  } else if (e.kind == engine_plan::transpose) {
    if (const narrow_kind nk = narrow_transpose(e); nk != narrow_kind::none) {
      // Streamed where whole vectors land on whole lines of every destination row
      // (kernels::narrow_rounds), and a split whose rows do not start on lines, line by line
      // joined from two rounds (narrow_shifted_rows), in blocks of narrow_shifted_block_bytes.
      // Else a split off lines stores plainly, unless whole-line tiles fit it (group B of 8
      // fp32, 4 doubles): they stream it through nt_rows, which measured 1.4-1.8x against the
      // narrow kernel in place on (278,17,102,8).permute(0,3,1,2) fp32 (medians of 5
      // alternated runs, 1 and 2 threads). (The byte shuffles of AVX2 store plainly.)
      const bool on_lines = aligned && (nk == narrow_kind::merge || e.gb[0].ds % 64 == 0);
      e.nt = !narrow_bytes && (on_lines || narrow_shifted_rows(e, dst, nk));
      if (e.nt && !on_lines) split_group_a(e, narrow_shifted_block_bytes);
      if (e.nt || nk == narrow_kind::merge || !line_tiles_fit(e)) return;
      e.no_narrow = true;
    }
    if (!is_pow2_upto64(e.elem)) {
      // in bands, as runs of one element each, where they gather so (banded_runs)
      if (dst_bytes >= threshold) {
        engine_plan r = as_element_runs(e);
        stream_as_grouped(r, dst, dst_bytes, nthreads, threshold);
        if (r.gather && banded_runs(r)) {
          e = r;
          return;
        }
      }
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
    if (e.elem > 8 && kernels::tile_of(e.elem) > 1) {
      // 16- and 32-byte elements in AVX-512's tiles (wide_micro.hpp), whose rows are whole lines:
      // streamed straight from the tiles where every destination row starts on a line
      // (transpose_block's streamed way), else in place. On a 2-core Intel Xeon VM (Emerald
      // Rapids), (a,b,c).permute(1,0,2) fp32, GB/s, medians of 3 alternated processes, 1 thread
      // (2 in brackets), in place -> streamed: (1024,1024,4) 16 MiB 20.8 -> 32.2 (41.4 ->
      // 61.6), (4096,1024,4) 12.6 -> 29.3 (28.9 -> 59.5), (2000,3000,4) 12.5 -> 24.3 (28.3 ->
      // 48.2), (1024,512,8) 20.5 -> 31.8 (44.2 -> 62.8), (2000,3000,8) 14.1 -> 23.0; close
      // source rows (the buffered way), medians of 7: (262144,12,4) 13.2 -> 13.5 (medians of 5:
      // 37.4 -> 42.0), (100000,24,4) 19.3 -> 22.6. Rows that alias take longer blocks
      // (aliased_wide_rows).
      if (!rows_on_lines(e, dst)) return;
      e.nt = true;
      split_group_a(e,
                    whole_stream_rows(e)              ? e.nA * e.elem
                    : aliased_wide_rows(e, dst_bytes) ? aliased_wide_block_bytes
                                                      : transpose_block_bytes,
                    kernels::tile_of(e.elem));
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
        cut_into_panels(e);
        return;
      }
      if (staged_source_rows(e)) {
        e.staged_rows = true;
        if (staged_lines(e)) {  // (kernels::transpose_staged_lines)
          split_group_a(e, staged_lines_block_bytes, kernels::staged_tile_of(e.elem));
          split_group_b_even(e, staged_lines_unit_bytes / e.elem, 64 / e.elem);
        } else {
          split_group_a(e, staged_block_bytes, kernels::staged_tile_of(e.elem));
          split_group_b(e, staged_unit_bytes / e.elem);
        }
        return;
      }
      const index_t block = whole_stream_rows(e)              ? e.nA * e.elem
                            : e.nB < transpose_short_b_rows ? transpose_direct_bytes
                            : intel_line_blocks(e)          ? intel_line_block_bytes(e)
                            : aliased_source_rows(e)        ? aliased_block_bytes
                            : two_byte_line_blocks(e)       ? two_byte_block_bytes
                            : dense_source_line_blocks(e)   ? dense_source_block_bytes
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
    if (rotated_panels_fit(e, dst, dst_bytes)) {
      cut_into_panels(e);
      return;
    }
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
