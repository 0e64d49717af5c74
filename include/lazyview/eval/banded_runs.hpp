#pragma once
// Which gathered runs go in bands (the kernels: eval/banded_kernels.hpp). Runs of 65 to 191
// bytes gathered in destination order (engine_plan::gather) are taken a band of a few
// destination rows at a time, each band sweeping its rows left to right in blocks of a few runs,
// so that every source row gives the band's runs as one short stretch (they lie side by side
// there); the rows leave through a buffer laid out like their lines, the unfinished line at each
// block's end carried to the next. The plain gather (kernels::gather_runs) takes one destination
// row at a time, a run from every source row in turn: a line or two from each of as many
// streams as a row has runs, far more than the hardware prefetchers follow.
#include "engine_plan.hpp"

namespace lazyview {

/// Runs shorter than this many bytes gather in bands (banded_runs).
inline constexpr index_t banded_max_run_bytes = 192;
/// Destination rows a band takes (banded_runs).
inline constexpr index_t band_rows = 8;
/// Each block of a band covers about this many bytes of each of its destination rows: its runs
/// (at least one more than fit) side by side there, one a source row (banded_block_runs).
inline constexpr index_t band_block_bytes = 512;

/// Runs of a band's block: the fewest whose bytes reach band_block_bytes.
/// Example: 68-byte runs: 8 (544 bytes); 128-byte: 4.
constexpr index_t banded_block_runs(index_t R) { return (band_block_bytes + R - 1) / R; }

/// Whether a gathered run plan goes in bands (kernels::gather_runs_banded): runs of more than
/// 64 bytes (shorter ones are transposes of odd-sized elements; 64 is a line) and under
/// banded_max_run_bytes, back to back along the innermost loop (the gather's order), which steps
/// the source by more than a run, while the loop outside it (destination rows) steps the source
/// by one run: a source row holds the runs of consecutive destination rows side by side.
/// Example: (1000,220,17).permute(1,0,2) fp32, outer (220):(68):(68000), (1000):(14960):(68):
/// yes; (187,258,87).permute(1,0,2) (348-byte runs): no.
/// Why: on the 2-core Zen 5 VM, (a,b,c).permute(1,0,2) fp32 streamed, 1 thread, GB/s (one side),
/// medians of 3-7 alternated runs of a standalone harness, the plain gather -> bands:
/// (1000,220,17) 13.7 -> 21-23, (600,220,32) 16.6 -> 25-28, (700,220,24) 19.8 -> 29-33,
/// (200,1000,20) 12.2 -> 24-27, (100,2000,17) 10.5 -> 16-22, (2000,110,17) 14.1 -> 18-23,
/// (500,220,48) 27.3 -> 30-31; with longer runs the bands lost or tied: (300,220,60) 30.1 ->
/// 29.6-31.2, (187,258,87) 22.6 -> 18-22, (24,2048,80) 32.4 -> 12-15, (96,193,227) 32.2 -> 10-15.
inline bool banded_runs(const engine_plan& p) {
  if (!p.gather || p.nouter < 2) return false;
  const index_t R = p.run_bytes;
  const byte_loop& runs = p.outer[p.nouter - 1];
  const byte_loop& rows = p.outer[p.nouter - 2];
  return R > 64 && R < banded_max_run_bytes && runs.ds == R && magnitude(runs.ss) > R && rows.ss == R && rows.n > 1;
}

}  // namespace lazyview
