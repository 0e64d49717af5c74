#pragma once
// Runs of whole lines that start on lines (an attention head of 32 or 48 fp32 is 128 or 192
// bytes), whose copy order_runs left in destination order because source order would open far
// more runs on the destination side: the order they stream in (use_streaming_stores).
#include <algorithm>

#include "engine_plan.hpp"

namespace lazyview {

/// The most source streams (source rows a destination row reads a run from, in turn) that
/// destination order streams from; from more, the runs stream in source order.
/// In destination order, each destination row takes one run from each of its source rows in
/// turn. From 16 rows or fewer that reads as fast as a copy's one stream, or faster; from more
/// (rows as far apart as the whole source allows: (64,2048,32).permute(1,0,2) fp32, 64 rows 256
/// KiB apart, all in one set of the first- and second-level caches) it slowed to half of source
/// order, which reads one row after another and writes each run as two whole lines, streamed,
/// into as many destination rows as the source row has runs.
/// Standalone harness, 2-core Zen 3 VM (AVX2), fp32, about 16 MiB, GB/s, medians of 41 copies
/// alternated with the other orders, 1 thread (2 in brackets), in place (the strided plan, in
/// destination order) / streamed in destination order / streamed in source order:
/// (4,32768,32).permute(1,0,2) 16.6 / 25.9 / 15.5; (8,16384,32) 14.5 / 22.8 / 15.7;
/// (12,10923,32) 19.6 / 35.1 / 16.3 (20.3 / 34.1 / 26.6); (16,8192,32) 15.4-16.2 / 27.7-29.8 /
/// 14.8-15.0 (19.4 / 29.7 / 19.4); (16,8192,48) 15.2 / 25.8 / 21.2; (20,6554,32) 9.6 / 11.2 /
/// 15.8; (24,5000,32) 8.3 / 5.6 / 15.4 (16.1 / 13.2 / 18.6); (32,4096,32) 15.3 (then in blocks,
/// below) / 14.1 / 14.6; (40,3000,32) 15.7 / 11.3 / 16.1; (64,2047,32) 13.2 / 9.9 / 13.5 (15.7 / 9.8 / 21.7); a
/// streaming copy of the same bytes: 19-28.
/// Source order replaced blocks of it (16 destination rows at a time, each block reading 2 KiB of
/// each source row), which ran ahead while each run cost an engine step; with rows of runs in one
/// loop (kernels::run_rows), blocks -> source order, same harness, three processes:
/// (64,2048,32) 14.0-14.1 -> 14.4-14.6 (19.1-21.3 -> 22.8-24.3), (128,1024,32) 11.2-14.2 ->
/// 14.1-14.9 (18.1-23.4 -> 23.2-24.8).
inline constexpr index_t destination_order_max_streams = 16;

/// The source streams of run plan r's runs: where one loop (x) steps along the source by a run
/// (ss == run_bytes) and the loops inside it lay their runs back to back in the destination, the
/// runs a destination row takes from as many source rows in turn (the product of those loops);
/// else 0, and 0 where the runs are not whole lines.
/// @pre r a run plan in destination order (outer loops by decreasing destination stride).
/// Examples: (64,2048,32).permute(1,0,2) fp32, runs of 128 bytes, outer (2048,64):(128,256 Ki):
/// (8 Ki,128): 64; (4,4,8200,32).permute(2,0,1,3): 16 (the two loops of 4 as one).
inline index_t line_run_streams(const engine_plan& r) {
  const index_t R = r.run_bytes;
  if (R % 64 != 0) return 0;
  int k = r.nouter - 1;
  index_t streams = 1;
  for (; k >= 0 && r.outer[k].ss != R && r.outer[k].ds == streams * R; --k) streams *= r.outer[k].n;
  return k >= 0 && r.outer[k].ss == R && streams > 1 ? streams : 0;
}

/// Whether runs stream straight in destination order, each as whole lines (copy_nt) from its
/// source row, wherever they lie back to back there: under the intel tuning, which measured
/// neither gathering them (engine_plan::gather) nor source order ahead of that, however many
/// source rows a destination row reads from. On the 2-core Intel Xeon VM (Emerald Rapids), a
/// standalone harness, fp32, GB/s counting bytes read and written, medians of 25 copies, 3
/// alternated rounds of each build, 1 thread (2 threads, where the VM's second core was quiet,
/// in brackets), runs of 128 and 192 bytes on lines in place (the strided plan) -> straight:
/// (64,2048,32).permute(1,0,2) (64 source rows) 24.5-26.9 -> 29.7-33.1 (50-55 -> 60),
/// (16,8192,32) 24.0-26.8 -> 33.6-35.4 (51-55 -> 62), (128,1024,32) 25.2-26.6 -> 27.7-28.7 (53 ->
/// 56-57), (32,4096,48) 22.4-25.2 -> 32.7-34.9 (45-49 -> 63-65); a streaming copy of the same
/// bytes: about 33 (65). Runs of 256 bytes and more: use_streaming_stores.
inline bool intel_straight_runs(const engine_plan& r) { return r.tune == tuning::intel; }

/// Puts run plan r's outer loops in source order (by decreasing source stride).
/// Example: (64,2048,32).permute(1,0,2) fp32: (2048,64):(128,256 Ki):(8 Ki,128) ->
/// (64,2048):(256 Ki,128):(128,8 Ki).
inline void to_source_order(engine_plan& r) {
  sort_by_decreasing_stride(r.outer, r.nouter, [](const byte_loop& l) { return l.ss; });
}

/// Runs of 65 to 255 bytes (a loop of wide elements in place) that are whole lines on lines, in
/// destination order: whether they stream, in destination order from up to
/// destination_order_max_streams streams (r unchanged), else in source order (to_source_order);
/// under the intel tuning in destination order from any number (see intel_straight_runs).
/// false, r unchanged, where line_run_streams is 0.
/// Example: (64,2048,32).permute(1,0,2) fp32: true, in source order (intel: as it is);
/// (16,8192,32): true, as it is.
inline bool order_line_runs(engine_plan& r) {
  const index_t streams = line_run_streams(r);
  if (!intel_straight_runs(r) && streams > destination_order_max_streams) to_source_order(r);
  return streams != 0;
}

/// Longer runs (256 bytes to gather_max_run_bytes), which stream gathered in destination order
/// (engine_plan::gather), stream in source order instead where they are whole lines on lines
/// from more than destination_order_max_streams streams: each run goes out as whole lines
/// straight from the source, where gathering reads one run from each stream in turn. Same
/// harness as above, GB/s, gathered -> source order, 1 thread (2 in brackets):
/// (32,2048,64).permute(1,0,2) fp32 (256-byte runs) 10.6 -> 13.7 (21.3 -> 27.4), (24,2048,80)
/// (320) 13.1-15.5 -> 15.9-20.2 (19.0 -> 23.5), (48,1024,96) (384) 10.9 -> 15.5 (21.1 -> 27.8),
/// (64,512,128) (512) 13.0 -> 18.8, (24,1300,128) 17.7 -> 21.7, (64,128,512) (2 KiB) 18.4 -> 18.3.
/// From 16 streams or fewer the gathered runs measured alike or ahead ((16,1024,256): 13.2
/// gathered, 11.6 streamed straight in destination order).
/// Example: (24,2048,80).permute(1,0,2) fp32: yes under zen, no under intel; (16,1024,256): no.
inline bool long_runs_by_source(const engine_plan& r) {
  return !intel_straight_runs(r) && line_run_streams(r) > destination_order_max_streams;
}

}  // namespace lazyview
