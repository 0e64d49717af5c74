#pragma once
// The requests an engine plan makes for lines ahead of its loops: for write where runs or rows
// scatter, for read along far-apart source rows, and for the next work unit's source lines.
// Each is a predicate of the plan (after use_streaming_stores, eval/memory_hints.hpp), so tests
// can pin which plans ask.
#include "memory_hints.hpp"

namespace lazyview {

/// Whether a run copy writes consecutive runs apart (source order), not back to back.
inline bool scattered_runs(const engine_plan& p) {
  if (p.kind != engine_plan::run || p.nouter == 0) return false;
  const index_t ds = p.outer[p.nouter - 1].ds;
  return magnitude(ds) != p.run_bytes;
}

/// How far ahead (bytes of destination) a run copy in place asks for the lines it will write:
/// two runs on along its innermost loop where that scatters the writes and the destination is
/// past run_prefetch_threshold, else 0. Each scattered run is a fresh set of lines to read for
/// ownership, which the hardware prefetchers do not foresee. fp32, 1 thread, ratio to memcpy, 9
/// shuffled runs, medians: (187,258,87).permute(1,0,2) 0.77-0.81 -> 0.96-0.99,
/// (96,193,227).permute(1,0,2) 0.89-0.95 -> 0.99-1.00, (68,14,35,9,14).permute(0,2,1,3,4)
/// 0.90-0.95 -> 0.99-1.02; the same from one to four runs ahead, and with a plain prefetcht0
/// where the target has no PREFETCHW. Asking for the source lines of gathered runs instead lost
/// ((30,40,50,70).permute(1,2,0,3) 0.94 -> 0.87), and in cache the requests only cost
/// ((32,16,96).permute(1,0,2), 192 KiB: 0.60 -> 0.55).
inline constexpr index_t run_prefetch_threshold = index_t{1} << 20;
inline index_t run_prefetch_distance(const engine_plan& p) {
  if (p.nt || !scattered_runs(p) || p.outer_count() * p.run_bytes < run_prefetch_threshold) return 0;
  return 2 * p.outer[p.nouter - 1].ds;
}

/// Whether a transpose of odd-sized elements (transpose_block_odd), which writes whole
/// destination rows one after another, asks for the lines of each row ahead: where
/// those rows lie apart and the destination is past run_prefetch_threshold, as for scattered
/// runs. (4,40,20,4,20,14).permute(2,3,4,0,1,5) fp32 (56-byte elements, rows of 448 bytes 8960
/// apart), ratio to memcpy, 9 shuffled runs, medians: 0.72-0.74 -> 0.83-0.84 at 1 thread,
/// 1.28 -> 1.61 at 2 (one to four rows ahead alike). Rows back to back ((26,785,20,10).permute(
/// 1,2,0,3)) measured the same either way; tiles, which write T rows in part at a time, gained
/// nothing from asking one or two tile groups ahead.
inline bool prefetch_rows(const engine_plan& p) {
  if (p.kind != engine_plan::transpose || is_pow2_upto64(p.elem)) return false;
  return !dst_dense_units(p) && p.transpose_bytes() >= run_prefetch_threshold;
}

/// How far ahead (bytes along its source rows) a transpose's tiles ask for the source lines
/// they will read, in place or buffered: transpose_prefetch_bytes where the destination is past
/// transpose_prefetch_threshold and source rows of consecutive A indices lie at least 1 KiB
/// apart (each row a stream of its own, more at once than the hardware prefetchers follow),
/// else 0. On a 2-core Zen 5 VM (AMD EPYC, family 26), fp32, 1 thread, about 16 MiB, GB/s
/// without -> with (medians of 3 alternated runs): in place, (65,58,1119).permute(2,1,0)
/// 6.9 -> 13.6, (86,59,45,18).permute(1,2,3,0) 7.6 -> 16.5, (394,69,154).permute(1,2,0)
/// 9.5 -> 15.3, (20,6,5,30,15,16).permute(0,5,3,4,1,2) 8.5 -> 18.1; buffered, against asking
/// for the next tile's rows: (112,45,8,104).permute(3,2,1,0) 12.6 -> 28.3, (4096,4096).t()
/// 11.7 -> 15.8, FLUX pack (16,16,256,256) 14.8 -> 17.8. 256 and 1024 bytes ahead measured
/// alike. Source rows close together are one stream the hardware follows already: asked for
/// anyway, (449,551,17).permute(2,0,1) (rows 68 bytes apart) went 14.6 -> 9.3, and FLUX unpack
/// (16,16,256,256) (256 bytes apart) 18.4 -> 16.4.
/// The same plans, in place, also ask for the destination lines of the next rows of B before
/// writing them, each a fresh line to read for ownership as with scattered runs: against the
/// source alone, (20,44,46,7,15).permute(2,3,1,4,0) 21.2 -> 29.6, (5,15,37,5,15,19).permute(
/// 3,1,5,0,4,2) 22.8 -> 37.0, (86,59,45,18).permute(1,2,3,0) 13.3 -> 20.7 (medians of 5);
/// asking for the next block of A along the same rows where B is short (rows close together)
/// measured mixed (0.80-1.14), so those plans do not.
/// The threshold: from the last-level cache (32 MiB here) the requests only cost: FLUX pack
/// fp32 (1,16,256,256), 4 MiB, 68.5 -> 51.8 GB/s with them, (2,16,256,256) 33.8 -> 26.9, and
/// (4,16,256,256), 16 MiB, 28.1 -> 32.4 (medians of 5); the 16 MiB permutations above are 13 to
/// 17 MiB.
inline constexpr index_t transpose_prefetch_threshold = index_t{12} << 20;
inline constexpr index_t transpose_prefetch_bytes = 512;
inline index_t transpose_prefetch_distance(const engine_plan& p) {
  if (!far_source_rows(p) || kernels::tile_of(p.elem) == 1 || p.transpose_bytes() < transpose_prefetch_threshold)
    return 0;
  return transpose_prefetch_bytes;
}

/// Whether a transpose runs as whole-line tiles (kernels::transpose_lines): where the target has
/// such a kernel for its element size (AVX-512: 4 and 8 bytes; 2 with BW, 1 with VBMI) and both
/// groups have a tile's worth of indices (B: half a tile); streamed, or in place unless it takes
/// transpose_prefetch_distance (large, far-apart source rows), whose tuned requests the older
/// tiles keep (given whole-line tiles and the next unit's lines instead, they measured
/// 0.77-1.21x). Against the AVX2 8x8 tiles, on a
/// 2-core Zen 5 VM, 1 thread, GB/s (medians of 3 alternated runs): streamed, (4096,4096).t()
/// fp32 17 -> 34-36, FLUX pack fp32 (16,16,256,256) 21 -> 40, unpack 19 -> 39; in place, FLUX
/// bf16 pack (1,16,128,128) 65 -> 87, (1,16,64,64) 71 -> 93, unpack fp32 (1,16,256,256)
/// 78 -> 95, (256,256).t() 54 -> 88, (512,512).t() 31 -> 47, (46,109,14,58).permute(0,3,1,2)
/// (16 MiB, source rows close) 12 -> 25, (449,551,17).permute(2,0,1) 14 -> 22; within noise
/// elsewhere (8 MiB bf16 FLUX pack and unpack: 0.6-1.0x in one run, 1.0x in another).
/// B needs half a tile (partial tiles take B of T/2 to T-1, see transpose_lines): against the
/// older tiles there, same machine and harness, (6,19,19,9,16,13).permute(2,5,1,0,3,4) fp32 (B =
/// 13, in place) 13-16 -> 34-45 GB/s, (278,17,102,8).permute(0,3,1,2) (B = 8) 20 -> 26-34,
/// (4096,13).t() 35-39 -> 63, (400000,15).t() (streamed) 29-31 -> 44-46, (300000,6,2).permute(
/// 1,0,2) (8-byte, B = 6) 17-20 -> 42-45, in cache (1000,12).t() 36-46 -> 48-63 (5 runs each).
/// Under half a tile they measured mixed: fp32 B = 4 or 5, 0.56-1.52x; B = 2 or 3, 0.48-1.01x;
/// 8-byte B = 2, 0.82-0.97x.
inline bool line_tiles(const engine_plan& p) {
  return line_tiles_fit(p) && !p.nt_dense && (p.nt || transpose_prefetch_distance(p) == 0);
}

/// Whether whole-line tiles ask for the next unit's source lines (see transpose_lines): streamed
/// always; in place from transpose_prefetch_threshold, since from the caches the requests only
/// cost (in place without them: FLUX bf16 pack (1,16,64,64) 67 -> 101 GB/s, (1,16,256,256)
/// 64 -> 72). Register tiles streaming through nt_rows ask too: without the requests, the four
/// permutations of use_streaming_stores' AVX2 figures ran at 7.8, 12.0, 9.8 and 11.6 GB/s at 1
/// thread (medians of 4 runs, against 11.7, 15.0, 17.7 and 16.9 with them). So do streamed
/// units that take A whole over close source rows (whole_stream_rows, by
/// transpose_stream_lines): each reads its source (32 KiB of FLUX unpack fp32) in 8 sweeps
/// across its rows, a 32-byte piece of every row per sweep, which the hardware prefetchers do
/// not follow, where the requests ask for it in address order. On a 2-core Zen 3 VM, GB/s,
/// medians of 4 alternated runs of bench/, 1 thread (2 in brackets), without -> with: FLUX
/// unpack fp32 (4,16,256,256) 15.3 -> 19.6 (27.5 -> 33.3), (16,16,256,256) 13.6 -> 15.8
/// (23.5 -> 29.0), bf16 (16,16,256,256) 12.1 -> 12.7 (19.9 -> 22.9). Dense streamed units
/// (nt_dense) over close source rows ask as well, a share per block: (1000,86,50).permute(
/// 0,2,1) fp32 9.5 -> 12.8 GB/s at 1 thread, 12.4 -> 15.3 at 2 (2-core Zen 4 VM, AVX-512,
/// medians of 3 alternated runs). Far-apart rows keep their requests along the rows
/// (transpose_prefetch_distance): asked for the next unit's lines instead,
/// (86,59,45,18).permute(1,2,3,0) went 18-20 -> 8-11 GB/s.
/// Under the intel tuning, no plan asks: the units whose requests paid on the Zen VMs read their
/// source as one stream (close rows) or as a few dozen at most (row blocks, FLUX pack's 16
/// channels), which the Intel core's L2 streamer fetches ahead by itself, so that the requests only
/// take first-level miss buffers from the loads (a reading: this VM exposes no counters). On a
/// 2-core Intel Xeon VM (Emerald Rapids), with -> without requests, zen plans otherwise, medians of
/// 5 processes of 11 alternated runs each, 1 thread (2 in brackets): FLUX pack bf16 (16,16,256,256)
/// 1.13-1.17x (1.12x), unpack bf16 1.11-1.15x (1.10x), pack fp32 (4,16,256,256) 1.04-1.06x (1.08x);
/// of the benchmark's 16 MiB permutations (bench/main.cpp) the nine that asked 0.94-1.37x
/// (1.02-1.42x), median 1.09x (1.15x): streamed in whole-line tiles
/// (6,19,19,9,16,13).permute(2,5,1,0,3,4) 1.37x (1.42x), nt_rows (278,17,102,8).permute(0,3,1,2)
/// 1.24x (1.37x), (449,551,17).permute(2,0,1) 1.14x (1.30x), (394,69,154).permute(1,2,0) 0.94x
/// (1.02x). Two lost: FLUX pack fp32 (16,16,256,256) 0.93-0.95x (1.01-1.08x), still 1.0 of the best
/// copy, and unpack fp32 0.81-0.90x (0.84x), which the wider blocks of intel_line_block_bytes bring
/// back.
/// One kind still asks under the intel tuning: nt_rows units over far-apart source rows that read
/// 1 KiB or more of each (far_long_source_rows). Each such unit reads that much of each of its
/// 112-128 source rows, a stream a row, more than the L2 streamer follows. On a 2-core Intel Xeon
/// VM (Emerald Rapids, AVX-512), fp32, 16 MiB, GB/s, medians of 15 copies alternated in one
/// process, two or three processes, 1 thread, without -> with the requests:
/// (394,69,154).permute(1,2,0) 12.3-14.0 -> 14.9-17.6, (65,58,1119).permute(2,1,0) 11.5-18.1 ->
/// 13.0-18.3; 2 threads 29.6-31.3 -> 29.7-34.6 and 27.3-28.0 -> 26.2-29.9; bench/ab against the
/// build without, 3 rounds, 1 thread (2): 1.33x (1.26x) and 1.15x (1.12x), its other permutations,
/// FLUX fp32 and transposes, whose plans are the same, 0.86-1.23x, median 1.04x. The nt_rows
/// permutations whose rows are close or short still lost with them ((278,17,102,8).permute(0,3,1,2)
/// 16.5-17.3 -> 15.6-15.9, (19,22,17,6,5,18).permute(2,0,5,1,3,4) 11.5-12.6 -> 10.5-11.7), and so
/// did far rows read 64-76 bytes at a time ((20,6,5,30,15,16).permute(0,5,3,4,1,2) 20.2 -> 16.1 in
/// one of two processes).
/// staged_rows units ask by staged lines (staged_lines, kernels::transpose_staged_lines: 1 KiB of
/// each of the next unit's 128 rows, row after row); through the buffered passes they ask for
/// nothing: each pass's loads overlap the stores of the pass before.
inline bool prefetch_next_unit(const engine_plan& p) {
  if (p.staged_rows) return staged_lines(p);
  if (p.tune == tuning::intel) return p.nt_rows && far_long_source_rows(p);
  if (p.nt_dense) return !far_source_rows(p);
  if (p.nt_rows || (p.nt && whole_stream_rows(p))) return true;
  return line_tiles(p) && (p.nt || p.transpose_bytes() >= transpose_prefetch_threshold);
}

}  // namespace lazyview
