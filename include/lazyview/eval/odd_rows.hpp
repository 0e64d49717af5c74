#pragma once
// Transposes of odd-sized elements (no tile kernel: kernels::transpose_block_odd) past the
// streaming threshold: which stay in place, and the units and stages of those that stream
// (use_streaming_stores, eval/memory_hints.hpp; the kernels: eval/odd_kernels.hpp).
#include "engine_plan.hpp"

namespace lazyview {

namespace kernels {

/// Destination bytes that a streamed transpose of odd-sized elements stages at once
/// (stage_rows_odd): rows of up to half of it stage, longer ones go through a line_writer.
inline constexpr index_t odd_stage_bytes = index_t{32} << 10;
/// Rows of fewer elements than this (source rows read at once) go through a line_writer: with
/// few streams, staging lost. Intel Xeon VM, fp32, staged against the line_writer: the agents
/// chain (600,7,500,6).permute(0,2,1,3) (na = 7) 5.0 -> 6.5-6.9 ms a copy, 1 thread; bench/ab, 5
/// rounds, medians of the paired speed-ups, 1 thread (2): (4200,500,6) agents 1.00x (1.00x),
/// (26,785,20,10).permute(1,2,0,3) (na = 26) 0.94x (0.92x), (4,40,20,4,20,14).permute(2,3,4,0,1,5)
/// (na = 160) 1.44x (1.39x), to 0.76 of the best copy (0.76); a sweep of (A,B,R).permute(1,0,2),
/// 16 MiB, R of 3 to 14 floats, 1 thread, ratios to memcpy: A = 32 and 48 0.54-0.88 -> 0.61-0.95,
/// mixed, A = 64 to 400 0.51-0.81 -> 0.56-0.93, every one up.
inline constexpr index_t odd_stage_min_a = 64;

}  // namespace kernels

/// How far along its source rows a streamed transpose of odd-sized elements that goes through a
/// line_writer (kernels::transpose_block_odd; not stage_rows_odd) asks for their lines, per
/// destination row: odd_rows_ahead_bytes, but none under the intel tuning. Its source rows are
/// na streams advancing one element a row, which the hardware prefetchers did not keep up with
/// on the Zen VMs (the agents chain (600,7,500,6).permute(0,2,1,3), fp32, 1 thread: 13 -> 31
/// GB/s with the requests, streamed both ways; 15 in place without). The Intel Xeon VM's
/// (Emerald Rapids) L2 streamer follows that many streams by itself (eval/cpu_tuning.hpp), and
/// there the requests, one per source row and destination row, most for a line asked for
/// already, cost more than they brought: bench/ab_headers, without against with, 1 thread,
/// ROUNDS=11 BYTES=4e8, B/A medians: the agents chain 1.096x (quartiles 1.092-1.098; 1.097x in
/// a second process), (700,700,7).permute(1,0,2) fp32 (rows of 19600 bytes, in pieces) 1.21x,
/// (26,785,20,10).permute(1,2,0,3) 1.015x, (40,10000,10).permute(1,0,2) 1.025x; 2 threads 1.04x
/// and 1.01x; asking 2 KiB ahead instead read 0.965x.
/// Example: the agents chain streamed under zen: 512; under intel: 0.
inline index_t odd_source_ahead_bytes(const engine_plan& p) {
  return p.tune == tuning::intel ? 0 : odd_rows_ahead_bytes;
}

/// Streamed transposes of odd-sized elements whose destination rows are long (A whole) take
/// work units of about this many bytes of destination (at least a row): enough units for the
/// threads where B is short ((300,3000,5).permute(1,0,2), rows of 6000 bytes, has 11 chunks of
/// B at 256 a chunk, and 10 rows a unit).
inline constexpr index_t odd_rows_unit_bytes = index_t{64} << 10;
/// Transposes of odd-sized elements whose destination rows gather from this many source rows
/// or more (nA) do not stream (see use_streaming_stores). Streamed, A is taken whole: each row
/// gathers one element from each of nA far-apart source rows, and a unit (a few rows) reads a
/// line of each, 62.5 KiB for 1000 rows, past L1 (48 KiB here), for every few elements it uses
/// from them; in place, A is read in blocks of 8 rows. (That reading is a hypothesis; the
/// bound is where the measurements turned.)
inline constexpr index_t odd_rows_in_place_a = 1000;

/// Whether a transpose of odd-sized elements that could stream stays in place: its rows gather
/// from odd_rows_in_place_a source rows or more; or, under the zen3 tuning, its elements are
/// wider than 16 bytes and its rows would stage, A of kernels::odd_stage_min_a or more
/// (stage_rows_odd, or a line_writer in pieces past half of odd_stage_bytes).
/// Staging measured for it on the Zen 5 and Intel Xeon VMs (use_streaming_stores, odd_stage_min_a)
/// and against it on the 2-core Zen 3 VM. A standalone harness there ((A,B,F).permute(1,0,2) fp32,
/// 11-16 MiB, time of a streaming copy over the copy's, medians of 9 alternated runs, the same
/// engine plan streamed -> in place (A in blocks of 8), 3 processes, 1 thread (2 in brackets)):
/// (4,40,20,4,20,14).permute(2,3,4,0,1,5) (56-byte elements, A = 160; as (160,1600,14), the same
/// plan) 0.31-0.34 -> 0.46-0.55 (0.56-0.66 -> 0.80-0.92, 6 processes), (300,3000,5) (20-byte)
/// 0.23-0.27 -> 0.37-0.39 (0.26-0.44 -> 0.40-0.66), (300,2000,6) (24) 0.24-0.40 -> 0.39-0.46
/// (0.40-0.46 -> 0.50-0.69), (128,4000,7) (28) 1.16-1.26x (1.11-1.26x), (900,500,9) (36)
/// 1.52-1.74x (1.54-3.91x), (100,4000,10) (40) 1.17-1.27x (1.10-1.26x), (400,1000,10) 1.45-1.57x
/// (1.22-1.26x), (64,6400,10) 1.29-1.33x (1.08-1.41x), (700,700,7) (rows of 19600 bytes, in
/// pieces) 1.12-1.15x (1.12-1.32x). One earlier process read the other way at 2 threads on five
/// of them (in place 0.45-0.54, streamed 0.55-0.70); the later ones did not repeat it.
/// Not for 12-byte elements ((500,2200,3) 0.22-0.41 -> 0.17-0.27 (0.40-0.56 -> 0.28-0.44)), nor
/// with A under odd_stage_min_a ((40,10000,10), A in blocks of 8 or streamed whole: 0.49-0.62 ->
/// 0.40-0.44 (0.54-0.75 -> 0.40-0.73)). In place, each unit writes 8 elements of each of its
/// destination rows: 160 bytes or more at 20 bytes an element, mostly whole lines, where 12-byte
/// ones leave 96 bytes, a partial line at each end (a hypothesis for the turn at 16).
/// Example: (4,40,20,4,20,14).permute(2,3,4,0,1,5) fp32 under zen3: in place; under zen, streamed.
inline bool odd_rows_in_place(const engine_plan& e) {
  return e.nA >= odd_rows_in_place_a ||
         (e.tune == tuning::zen3 && e.elem > 16 && e.nA >= kernels::odd_stage_min_a);
}

}  // namespace lazyview
