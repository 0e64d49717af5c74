#pragma once
// Runs of whole lines, 128 or 192 bytes (an attention head of 32 or 48 fp32, 64 bf16), whose
// copy order_runs left in destination order because source order would open far more runs on
// the destination side: streamed in blocks of source order instead (use_streaming_stores).
#include "engine_plan.hpp"

namespace lazyview {

/// Rows of the destination a block takes (runs read back to back from each source row), and the
/// fewest source rows that destination order reads in turn for the blocks to apply.
/// In destination order, each destination row takes one run from each of its source rows in
/// turn, rows as far apart as the whole source allows ((64,2048,32).permute(1,0,2) fp32: 64
/// rows 256 KiB apart, all in one set of the first- and second-level caches), and in place each
/// line is read for ownership. In blocks, each source row gives 16 runs back to back (2 KiB of
/// 128-byte runs), and the 16 destination rows open take each run as two whole lines, streamed.
/// A standalone harness on the 2-core Zen 3 VM (AVX2), time of a streaming copy of the same bytes
/// over the copy's, medians of 9 alternated runs, 1 thread (2 in brackets), in place -> blocks of
/// 16: (64,2048,32).permute(1,0,2) fp32 0.38 -> 0.50 (0.57 -> 0.83), (128,1024,32) 0.37 -> 0.43
/// (0.50 -> 0.73), (64,2048,48) (192-byte runs) 0.38 -> 0.43 (0.56 -> 0.74); blocks of 8, 32 and
/// 64 read 0.46-0.47 (0.80-0.82) on the first; no blocks (source order whole, 2048 rows open)
/// 0.48 (0.50). With 16 source rows, destination order keeps up already: (16,8192,32) 0.60
/// (0.88) in place, 0.64 (0.80) in blocks. Through the engine (a run plan, copy_nt per run), the
/// same harness: (64,2048,32) 0.37-0.40 -> 0.42-0.45 (0.68-0.70 -> 0.84); bench/ab against the
/// plan in place, 8 rounds of 3 repetitions, paired speed-up: (64,2048,32) fp32 0.91x (0.64-1.37)
/// at 1 thread, 1.13x (0.70-1.57) at 2, (64,2048,64) bf16 1.21x (0.73-1.54) and 1.20x (0.90-1.96),
/// a noisy run; an earlier one of 4 rounds read 1.03x, 1.24x, 1.09x and 1.15x. The hand-written
/// blocks ran ahead of the engine's at 1 thread (0.47-0.54): each 128-byte run costs the engine
/// an odometer step and a copy_nt call.
inline constexpr index_t source_order_block = 16;
inline constexpr index_t source_order_min_rows = 32;

/// Cuts the loop of the destination's rows of run plan r (the second innermost of destination
/// order, contiguous in the source) into blocks of source_order_block, the block's rows
/// innermost, where the innermost loop (contiguous in the destination) has at least
/// source_order_min_rows; false, r unchanged, where the loops are not so, the rows do not divide
/// into blocks, or the tuning is intel (unmeasured there).
/// @pre r a run plan in destination order (outer loops by decreasing destination stride).
/// Example: (64,2048,32).permute(1,0,2) fp32, runs of 128 bytes, outer (2048,64):(128,256
/// Ki):(8 Ki,128) -> (128,64,16):(2 Ki,256 Ki,128):(128 Ki,128,8 Ki).
inline bool block_source_order(engine_plan& r) {
  const int n = r.nouter;
  if (n < 2 || n >= max_loops || r.tune == tuning::intel || r.run_bytes % 64 != 0) return false;
  const byte_loop x = r.outer[n - 2], y = r.outer[n - 1];
  if (y.ds != r.run_bytes || x.ss != r.run_bytes || y.n < source_order_min_rows || x.n % source_order_block != 0)
    return false;
  r.outer[n - 2] = byte_loop{x.n / source_order_block, x.ss * source_order_block, x.ds * source_order_block};
  r.outer[n] = byte_loop{source_order_block, x.ss, x.ds};
  r.nouter = n + 1;
  return true;
}

}  // namespace lazyview
