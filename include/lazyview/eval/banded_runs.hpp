#pragma once
// Which gathered runs go in bands (the kernels: eval/banded_kernels.hpp). Runs of 65 to 191
// bytes gathered in destination order (engine_plan::gather), and odd-sized elements of a
// transpose gathered as runs, are taken a band of a few destination rows at a time, each band
// sweeping its rows left to right in blocks of a few runs, so that every source row gives the
// band's runs as one short stretch (they lie side by side there); the rows leave through a
// buffer laid out like their lines, the unfinished line at each block's end carried to the next.
// The plain gather (kernels::gather_runs) takes one destination row at a time, a run from every
// source row in turn: a line or two from each of as many streams as a row has runs, far more
// than the hardware prefetchers follow.
#include "engine_plan.hpp"

namespace lazyview {

/// Runs shorter than this many bytes gather in bands (banded_runs).
inline constexpr index_t banded_max_run_bytes = 192;
/// Odd-sized elements (no tile kernel) of this many bytes or more gather in bands, as runs
/// (as_element_runs), where a destination row holds banded_min_element_row_bytes or more.
inline constexpr index_t banded_min_element_bytes = 12;
inline constexpr index_t banded_min_element_row_bytes = 4000;
/// Destination rows a band takes (banded_runs).
inline constexpr index_t band_rows = 8;
/// Each block of a band covers about this many bytes of each of its destination rows: its runs
/// (at least one more than fit) side by side there, one a source row (banded_block_runs).
inline constexpr index_t band_block_bytes = 512;

/// Runs of a band's block: the fewest whose bytes reach band_block_bytes.
/// Example: 68-byte runs: 8 (544 bytes); 128-byte: 4.
constexpr index_t banded_block_runs(index_t R) { return (band_block_bytes + R - 1) / R; }

/// Whether a gathered run plan goes in bands (kernels::gather_runs_banded), under the zen and
/// zen4 tunings (measured on Zen 5 and Zen 4 VMs only; zen3 and intel gather one row at a time,
/// as before): runs of more than 64 bytes and under banded_max_run_bytes, or odd-sized elements
/// gathered as runs (as_element_runs) of banded_min_element_bytes or more into destination rows
/// of banded_min_element_row_bytes or more; back to back along the innermost loop (the gather's
/// order), which steps the source by more than a run, while the loop outside it (destination
/// rows) steps the source by one run: a source row holds the runs of consecutive destination rows
/// side by side.
/// Example: (1000,220,17).permute(1,0,2) fp32, outer (220):(68):(68000), (1000):(14960):(68):
/// yes; (187,258,87).permute(1,0,2) (348-byte runs): no; the agents chain (600,7,500,6)
/// .permute(0,2,1,3) (24-byte elements, rows of 168 bytes): no.
/// Why: on the 2-core Zen 5 VM, (a,b,c).permute(1,0,2) fp32 streamed, 1 thread, GB/s (one side),
/// medians of 3-7 alternated runs of a standalone harness, the plain gather -> bands:
/// (1000,220,17) 13.7 -> 21-23, (600,220,32) 16.6 -> 25-28, (700,220,24) 19.8 -> 29-33,
/// (200,1000,20) 12.2 -> 24-27, (100,2000,17) 10.5 -> 16-22, (2000,110,17) 14.1 -> 18-23,
/// (500,220,48) 27.3 -> 30-31; with longer runs the bands lost or tied: (300,220,60) 30.1 ->
/// 29.6-31.2, (187,258,87) 22.6 -> 18-22, (24,2048,80) 32.4 -> 12-15, (96,193,227) 32.2 -> 10-15.
/// Odd-sized elements, the library's harness (pm), paired speed-ups against their plans before
/// (in place, or streamed through transpose_block_odd), medians of 5 rounds, 1 thread (2 in
/// brackets): (4,40,20,4,20,14).permute(2,3,4,0,1,5) (56-byte, rows of 8960 bytes) 3.36x (1.30x),
/// (160,1600,14) 3.36x (1.64x), (1000,1000,5) 2.92x (2.81x), (2000,500,6) 2.98x (2.10x),
/// (100,4000,10) 2.31x (1.66x), (80,5000,10) 2.26x (2.03x), 12-byte (1100,1000,3) 3.33x (3.36x);
/// with rows of 2080 to 3120 bytes they tied (0.94-1.05x, one round of (130,4000,6) 0.60x), and
/// shorter rows lost: (40,8000,10) (1600 bytes) 0.65x, (30,10000,14) 0.45x, (26,785,20,10)
/// .permute(1,2,0,3) 0.39x, the agents chain 0.49x.
/// On the 2-core Zen 4 VM, bench/ab of the zen tuning (bands, as zen4's plans) against zen3
/// (which gathers a row at a time), 3 rounds, paired speed-ups, 1 thread:
/// runs/fp32/1000x220x17_p102 1.61x (1.11-1.77x), 600x220x32 1.37x (1.21-1.59x),
/// perm/fp32/4x40x20x4x20x14_p234015 1.15x (0.92-1.43x); 2 threads 1.17x, 1.02x and 0.65x
/// (0.60-1.58x), that VM's 2-thread runs too noisy to read.
inline bool banded_runs(const engine_plan& p) {
  if (!p.gather || p.nouter < 2 || (p.tune != tuning::zen && p.tune != tuning::zen4)) return false;
  const index_t R = p.run_bytes;
  const byte_loop& runs = p.outer[p.nouter - 1];
  const byte_loop& rows = p.outer[p.nouter - 2];
  const bool size_fits = R > 64 ? R < banded_max_run_bytes
                                 : R >= banded_min_element_bytes && !is_pow2_upto64(R) &&
                                       runs.n * R >= banded_min_element_row_bytes;
  return size_fits && runs.ds == R && magnitude(runs.ss) > R && rows.ss == R && rows.n > 1;
}

/// A transpose of odd-sized elements (no tile kernel) as the run plan of its elements, one run
/// each, its loops those of the transpose (outer loops, then B, then A), for use_streaming_stores
/// to gather (and then go in bands, banded_runs) where it would stream.
/// Example: (160,1600,14).permute(1,0,2) fp32, 56-byte elements, A (160):(89600):(56), B
/// (1600):(56):(8960) -> runs of 56 bytes, outer (1600,160):(56,89600):(8960,56).
/// @pre p.kind == engine_plan::transpose.
inline engine_plan as_element_runs(const engine_plan& p) {
  engine_plan r = p;
  r.kind = engine_plan::run;
  r.run_bytes = p.elem;
  r.elem = 1;
  r.run_pieces = 1;
  r.nA = r.nB = 1;
  r.block_a = r.blocks_a = r.block_b = r.blocks_b = 1;
  r.na = r.nb = 0;
  for (int k = p.nb - 1; k >= 0; --k) r.outer[r.nouter++] = p.gb[k];
  for (int k = p.na - 1; k >= 0; --k) r.outer[r.nouter++] = p.ga[k];
  return r;
}

}  // namespace lazyview
