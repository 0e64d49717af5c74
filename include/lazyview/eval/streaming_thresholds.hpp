#pragma once
// From which destination size an engine plan streams (non-temporal stores): the thresholds, by
// tuning and kind of plan, with the measurements that set them. Whether a plan of that size then
// streams, and how, is eval/memory_hints.hpp's (use_streaming_stores).
#include <algorithm>
#include <cstdint>

#include "engine_plan.hpp"
#include "narrow.hpp"

namespace lazyview {

/// Streaming stores pay once the destination outgrows the caches. A transpose whose work units
/// both read and write in pieces (neither side of a unit one dense stretch: see
/// scattered_transpose) streams from scattered_streaming_threshold: in place its tiles keep T
/// partial lines open on as many far-apart rows while reading as many far-apart source rows,
/// and such fp32 transposes of 2 to 16 MiB ((512,1024).t(), (1024,1024).t(),
/// (24,40,1024).permute(2,1,0), (112,45,8,104).permute(3,2,1,0), ...) ran at 0.45-0.57 of memcpy
/// in place against 0.80-1.00 streamed (9 shuffled runs, medians; at 1 MiB, still in cache, the
/// same either way). Where one side of a unit is dense, in place holds up longer and keeps its
/// output in cache: on an earlier VM bf16 FLUX at 8 MiB, writing in order, lost 3-7% streamed
/// (but see zen_one_thread_threshold below). Those, and long
/// runs, stream from streaming_threshold, 12 MiB: there source and destination together fill
/// three quarters of a 32 MiB last-level cache, and the 13-17 MiB permutations of the benchmark
/// all fall on one side of it. On a 2-core Zen 5 VM (1 thread, GB/s, medians of 5 alternated
/// runs), (37,30,8,12,39).permute(4,0,1,2,3), 15.9 MiB, went 20 -> 40 streamed (40 -> 74 at 2
/// threads), and (6,19,19,9,16,13).permute(2,5,1,0,3,4), 15.5 MiB and reading 7.5 KiB at a time,
/// 35 -> 36 (55 -> 62 at 2); on an earlier machine, with the older tiles, the latter had
/// measured 0.97 of memcpy in place against 0.86 streamed, hence a threshold of 16 MiB then.
/// On one thread, though, a transpose whose destination rows are whole lines on lines
/// (rows_on_lines: its whole-line tiles, where the target has them (AVX-512), stream straight
/// from registers, and without them micro<E>'s tiles go out whole lines at a time through
/// kernels::transpose_stream_lines, stream_lines_fit) streams under zen from
/// zen_one_thread_threshold, 8 MiB. There one core's
/// source and destination (16 MiB) sit in a last-level cache that other tenants' cores share,
/// and in place its speed swung with their load. On a 2-core Zen 4 VM (AVX-512, L3 32 MiB), 1
/// thread, ratio to a memcpy of the same bytes (three medians of 15 x 10 copies per process,
/// builds alternated), in place -> streamed, in one hour (and in the next, the neighbours
/// quieter): FLUX pack bf16 (4,16,256,256), 8 MiB, 0.34-0.57 -> 0.81-1.97 (0.62-0.82 ->
/// 0.69-0.76), unpack 0.33-0.45 -> 0.71-0.77 (0.50-0.66 -> 0.61-0.67); fp32 (2,16,256,256) pack
/// 0.32-0.49 -> 0.78-0.94 (0.55-0.82 -> 0.81-0.87), unpack 0.31-0.49 -> 0.74-0.92 (0.64-0.80 ->
/// 0.67-0.77); bf16 (5,16,256,256) pack 0.38-0.52 -> 0.99-1.86; fp32
/// (64,128,256).permute(0,2,1) 0.52-0.64 -> 0.73-0.76, (4,19,19,9,16,13).permute(2,5,1,0,3,4)
/// (10.3 MiB) 0.42-0.47 -> 0.70-0.73, (16,512,256).permute(0,2,1) 0.51-0.53 -> 0.64-0.66,
/// (128,128,128).permute(0,2,1) 0.60-0.68 -> 0.76-0.78, (8,1024,256).permute(0,2,1) 0.50-0.56
/// -> 0.58. Not narrow transposes ((1048576,2).t() fp32 0.73-0.80 in place, 0.69-0.71
/// streamed), nor rows off lines (FLUX into dst + 4 bytes, through the dense buffer: fp32 pack
/// 0.45-0.67 in place, 0.32-0.49 streamed), nor two threads (ratio to a 2-thread copy, in place
/// against streamed: FLUX bf16 pack (4,16,256,256) 2.4-2.9 against 1.7-1.9, fp32 (2,16,256,256)
/// pack 1.9-2.1 against 1.5-1.6, unpack 2.2 against 1.2-1.5), nor 6 MiB (bf16 (3,16,256,256)
/// pack 0.76-0.79 in place, 0.63-0.65 streamed). On a later Zen 4 VM of the same kind, quiet, in
/// place won at 8 MiB (1 thread, GB/s, medians of 5-7 alternated runs, streamed against in place:
/// FLUX bf16 (4,16,256,256) unpack 41.7 against 52.8, pack 50.2 against 55.0; fp32 (2,16,256,256)
/// unpack 47.8 against 57.6; (8,1024,256).permute(0,2,1) 36.3 against 44.7), but with a neighbour
/// on the other core copying 8 MiB to and fro (16 MiB of the shared L3) the bf16 ones fell in
/// place to 17.6 and 20.2 against 38.8 and 46.7 streamed (medians of 6), and
/// (4,19,19,9,16,13).permute(2,5,1,0,3,4) to 27.1 against 34.1; with one copying 24 MiB (past
/// the L3) the two ways tied or in place won (unpack 46.1 against 40.8, pack 41.7 and 41.6).
/// Streaming bounds the worst case, so the threshold stays. Without AVX-512 the register tiles
/// gain more: on a 2-core Zen 3 VM (AVX2; a memcpy of 8 MiB there ran at 13-19 GB/s against 30-37
/// for a streaming copy), 1 thread, GB/s, three medians of 21 copies each, in place ->
/// streamed: FLUX pack bf16 (4,16,256,256) 4.4-4.8 -> 8.6-10.8, unpack 4.6-8.8 -> 10.4-11.0,
/// fp32 (2,16,256,256) pack 3.8-3.9 -> 12.0-13.8, unpack 6.3-6.7 -> 15.9-16.8; and
/// (4,19,19,9,16,13).permute(2,5,1,0,3,4) alike (8.6-12.8 against 8.9-13.3). Built for plain
/// x86-64 (SSE2 tiles), the same four: 3.8-4.6 -> 6.1-23.0, 8.1-9.2 -> 13.4-14.2, 4.8-5.0 ->
/// 8.8-25.6, 6.3-6.5 -> 17.4-20.0.
/// Under the zen3 tuning (eval/cpu_tuning.hpp) such transposes stream from 8 MiB on two threads
/// too: on that Zen 3 VM in place lost there as on one thread, where on the Zen 4 VM it had won
/// (above). 2 threads, GB/s (bytes read and written), 3 medians of 21 copies per process, two
/// processes each, in place -> streamed: FLUX pack bf16 (4,16,256,256) 10.7-13.7 -> 20.1-26.9 (and
/// once 8.3), unpack 11.7-15.3 -> 19.0-20.2, fp32 (2,16,256,256) pack 7.4-8.7 -> 30.5-39.7, unpack
/// 9.8-24.9 -> 24.2-27.2, (64,128,256).permute(0,2,1) 9.7-18.3 -> 22.3-29.2,
/// (4,19,19,9,16,13).permute(2,5,1,0,3,4) 16.5-25.3 -> 20.0-29.8 (with transpose_stream_lines' last
/// short step moved back; element by element 13.2-18.2). In bench/ab, whose 2-thread memcpy ran at
/// 60-110 GB/s as the neighbours came and went, pack bf16 (4,16,256,256) streamed held 36-42 GB/s
/// in every run and in place 11-61.
/// The thresholds are constants, not sizes derived from the last-level cache the machine
/// reports: on a 2-core Intel Xeon VM (Emerald Rapids; L2 2 MiB, L3 reported 300 MiB) a plain
/// copy ran 20-26 GB/s with ordinary stores from 2 to 32 MiB against 25-34 streamed (1 thread,
/// medians of 7), so there streaming pays from the L2 up, far below the LLC. With the zen plans,
/// streaming from 2 MiB sped FLUX fp32 (1,16,256,256) up 1.2-1.4x there while bf16
/// (1,16,256,256) unpack fell to 0.87x (1 thread) and 0.66x (2 threads); with the intel tuning's
/// plans (no requests for the next unit, eval/cpu_tuning.hpp) the same VM measured, streamed from
/// intel_streaming_threshold, 4 MiB, against from 12 MiB, medians of 5 processes of 11 alternated
/// runs, 1 thread (2 in brackets): FLUX pack fp32 (1,16,256,256) 1.44x (1.49x), (2,16,256,256)
/// 1.47x (1.40x), unpack 1.39x (1.55x) and 1.34x (1.38x); bf16 (2,16,256,256) pack 1.28x
/// (1.30x), unpack 1.17x (1.18x), (4,16,256,256) 1.33x (1.19x) and 1.18x (1.08x);
/// (512,96,32).permute(0,2,1) fp32 1.22x (1.18x), (256,1024,8).permute(1,0,2) (runs of 32 bytes)
/// 1.13x (1.15x). From 2 MiB, bf16 (1,16,256,256) (2 MiB) gained 1.18-1.23x at 1 thread but lost
/// 0.89-0.93x at 2, hence 4. On one thread, though, transposes of power-of-two elements (tiles and
/// narrow kernels) stream from intel_one_thread_threshold, 2 MiB: there one core's L2 (2 MiB) no
/// longer holds its destination, where two cores' hold half each. Same VM, 1 thread, GB/s ratios
/// streamed from 2 MiB against from 4 MiB, each from a pair of processes run back to back (one
/// per build, each the median of 11 runs alternated with memcpy and a streaming copy), two or
/// three pairs: FLUX pack bf16 (1,16,256,256) 1.13-1.72x, unpack 1.19-1.40x, fp32 (1,8,256,256)
/// 1.20-1.69x and 1.20-1.52x, bf16 (1,24,256,256) (3 MiB) 1.09-1.37x and 0.93-1.16x;
/// (1000,700).t() fp32 (nt_rows) 1.18-1.63x (destination 32 bytes off a line too),
/// (120,100,64).permute(0,2,1) 1.18-1.29x; narrow transposes (262144,3).t() 1.03-1.28x,
/// (3,262144).t() 1.05-1.23x, (512,512,3).permute(2,0,1) 1.09-1.31x, bytes
/// (1024,1024,3).permute(2,0,1) 1.18-1.32x. Not other plans: odd-sized elements lost
/// ((300,300,6).permute(1,0,2) fp32, 24-byte elements, 0.74-0.82x; (200,1000,5) 0.79-0.95x;
/// (50,3000,5) 0.73-0.91x) and runs tied ((16,512,96).permute(1,0,2) 0.97-0.98x).
/// Runs of intel_in_place_run_bytes or more that would gather (use_streaming_stores) and do not
/// start on 32 bytes stay in place under intel below intel_run_streaming_threshold, 20 MiB (those
/// that do stream straight since, faster still): they then write in order, like memcpy, and up to
/// there the last-level cache still held the destination of the copy before.
/// Same VM, ratio to a 1-thread memcpy, 1 thread (2 in brackets), 16 MiB, fp32, both builds in
/// alternated processes, medians of 5 blocks of 10 copies, gathered -> in place:
/// (8,2048,256).permute(1,0,2) 0.91-0.95 -> 0.99-1.00 (1.72-1.76 -> 1.90-1.91), (16,1024,256)
/// 0.95-0.98 -> 1.00 (1.77-1.83 -> 1.90-1.94), (96,193,227) 0.96-0.97 -> 0.99 (1.75 ->
/// 1.85-1.91), (40,1024,100) 0.87 -> 0.98-0.99 (1.59-1.61 -> 1.83-1.85),
/// (68,14,35,9,14).permute(0,2,1,3,4) 0.90-0.95 -> 1.01-1.02 (1.76-1.78 -> 1.88-1.95). Past it
/// they lost: (N,1024,256).permute(1,0,2), 1 thread, gathered against in place in destination
/// order: 24 MiB 0.93 against 0.94, 32 MiB 0.94 against 0.74, 64 MiB 1.5 against 0.89. Runs
/// that do not gather keep intel_streaming_threshold: scattered ones (source order, copy_nt)
/// lost in place ((8192,4,136).permute(1,0,2), 544-byte runs, 17 MiB: 0.96 -> 0.83 (1.89 ->
/// 1.63)), and so did longer ones ((1161,6,656).permute(1,0,2), 2624-byte runs, 1.00 streamed
/// against 0.89 in place on 1 thread).
/// The intel tuning takes intel_streaming_threshold, intel_one_thread_threshold and
/// intel_run_streaming_threshold, the zen ones streaming_threshold and zen_one_thread_threshold,
/// unless a build defines -DLAZYVIEW_STREAMING_THRESHOLD=bytes, which then holds for all five
/// (likewise LAZYVIEW_SCATTERED_STREAMING_THRESHOLD, which both tunings share).
#ifdef LAZYVIEW_STREAMING_THRESHOLD
inline constexpr index_t streaming_threshold = LAZYVIEW_STREAMING_THRESHOLD;
inline constexpr index_t intel_streaming_threshold = LAZYVIEW_STREAMING_THRESHOLD;
inline constexpr index_t intel_one_thread_threshold = LAZYVIEW_STREAMING_THRESHOLD;
inline constexpr index_t intel_run_streaming_threshold = LAZYVIEW_STREAMING_THRESHOLD;
inline constexpr index_t zen_one_thread_threshold = LAZYVIEW_STREAMING_THRESHOLD;
#else
inline constexpr index_t streaming_threshold = index_t{12} << 20;
inline constexpr index_t intel_streaming_threshold = index_t{4} << 20;
inline constexpr index_t intel_one_thread_threshold = index_t{2} << 20;
inline constexpr index_t intel_run_streaming_threshold = index_t{20} << 20;
inline constexpr index_t zen_one_thread_threshold = index_t{8} << 20;
#endif
#ifndef LAZYVIEW_SCATTERED_STREAMING_THRESHOLD
#define LAZYVIEW_SCATTERED_STREAMING_THRESHOLD (index_t{2} << 20)
#endif
inline constexpr index_t scattered_streaming_threshold = LAZYVIEW_SCATTERED_STREAMING_THRESHOLD;
/// use_streaming_stores leaves the plan of a smaller destination as it is, whatever the
/// destination's address and the tuning: such a plan may be kept and reused (the plan memo,
/// eval/copy.hpp).
inline constexpr index_t never_streams_below =
    std::min({streaming_threshold, intel_streaming_threshold, intel_one_thread_threshold,
              intel_run_streaming_threshold, zen_one_thread_threshold, scattered_streaming_threshold});

/// Whether plan e's destination base (`dst` + e.dst_off) and every outer loop's destination
/// stride are multiples of `align` bytes: then every work unit starts as aligned as the first.
/// Example: FLUX pack bf16 (4,16,256,256) into a 64-byte aligned buffer, outer
/// (4,128):(2 Mi,1 Ki):(2 Mi,16 Ki) in bytes, align 64: yes; from dst + 4: no.
inline bool lines_aligned(const engine_plan& e, const void* dst, index_t align) {
  const auto base = reinterpret_cast<std::uintptr_t>(dst) + static_cast<std::uintptr_t>(e.dst_off);
  bool on = base % static_cast<std::uintptr_t>(align) == 0;
  for (int k = 0; k < e.nouter; ++k) on = on && e.outer[k].ds % align == 0;
  return on;
}

/// Whether every destination row of transpose e (the A group of every B index and outer
/// iteration, from `dst`) starts a multiple of `align` bytes into memory: lines_aligned, and
/// every destination stride of B a multiple of `align`.
/// Example: bf16 pairs (4-byte elements) into rows of 12006 bytes (a padded destination),
/// align 4: no; into rows of 12004: yes.
inline bool rows_aligned(const engine_plan& e, const void* dst, index_t align) {
  bool on = lines_aligned(e, dst, align);
  for (int k = 0; k < e.nb; ++k) on = on && e.gb[k].ds % align == 0;
  return on;
}

/// The bytes into a cache line at which every destination row of transpose e (the A group of
/// every B index and outer iteration, from `dst`) starts, where the rows are whole lines long
/// and those bytes are the same for all (every destination stride of B and of the outer loops a
/// multiple of 64); else -1. Example: FLUX pack fp32 (4,16,256,256), rows of 256 bytes at
/// multiples of 256 from dst: 0 into a 64-byte aligned buffer, 16 into a std::vector (16 mod 64);
/// (86,59,45,18).permute(1,2,3,0) (rows of 344 bytes): -1.
inline index_t shared_row_offset(const engine_plan& e, const void* dst) {
  if (e.kind != engine_plan::transpose || e.nA * e.elem % 64 != 0) return -1;
  for (int k = 0; k < e.nouter; ++k)
    if (e.outer[k].ds % 64 != 0) return -1;
  for (int k = 0; k < e.nb; ++k)
    if (e.gb[k].ds % 64 != 0) return -1;
  return static_cast<index_t>((reinterpret_cast<std::uintptr_t>(dst) + static_cast<std::uintptr_t>(e.dst_off)) & 63);
}

/// Whether transpose e's destination rows all start on a cache line and are whole lines long
/// (shared_row_offset 0): then its whole-line tiles can stream straight from registers.
/// Example: FLUX pack bf16 (4,16,256,256) into a 64-byte aligned buffer: rows of 32 4-byte
/// elements (128 bytes) at multiples of 128: yes; from dst + 4: no.
inline bool rows_on_lines(const engine_plan& e, const void* dst) { return shared_row_offset(e, dst) == 0; }

/// The bytes into a line at which every destination row of transpose e starts
/// (shared_row_offset), where that is not 0 and a multiple of the element, so that lines moved
/// by it meet the rows' elements; else 0. Example: FLUX pack fp32 (4,16,256,256) into a
/// std::vector (16 mod 64): 16; from a 64-byte aligned dst: 0 (rows_on_lines); from dst + 2
/// bytes: 0 (not a multiple of the 8-byte element).
inline index_t rows_line_offset(const engine_plan& e, const void* dst) {
  const index_t m = shared_row_offset(e, dst);
  return m > 0 && m % e.elem == 0 ? m : 0;
}

/// The size from which a plan's destination (at `dst`) streams, scattered transposes (from
/// scattered_streaming_threshold) and, under intel, gathered runs (from
/// intel_run_streaming_threshold, see use_streaming_stores) aside: by its tuning, and by the
/// threads the copy runs on (`nthreads`, at least 1) for transposes of power-of-two elements
/// (under zen only those whose rows are whole lines on lines, rows_on_lines, and whose tiles
/// would stream them whole: AVX-512's whole-line tiles, else micro<E>'s where stream_lines_fit,
/// which also stream rows that all start the same bytes into a line (rows_line_offset,
/// engine_plan::nt_shifted); not narrow).
/// Example, zen: FLUX pack bf16 (4,16,256,256) (8 MiB) into a 64-byte aligned buffer: 8 MiB at
/// 1 thread (it streams), 12 MiB at 2 or into dst + 4 bytes; zen3: 8 MiB at 2 as well. Intel:
/// FLUX pack bf16 (1,16,256,256) (2 MiB): 2 MiB at 1 thread (it streams), 4 MiB at 2;
/// (300,300,6).permute(1,0,2) fp32 (24-byte elements): 4 MiB at either.
inline index_t streaming_threshold_of(const engine_plan& e, const void* dst, unsigned nthreads = 1) {
  if (e.tune != tuning::intel) {
    const int E = static_cast<int>(e.elem);
    const bool streams_lines = e.elem <= 8 && (kernels::line_tile_of(E) > 1 || kernels::stream_lines_fit(E)) &&
                               narrow_transpose(e) == narrow_kind::none &&
                               (rows_on_lines(e, dst) || (kernels::line_tile_of(E) == 1 && rows_line_offset(e, dst) != 0));
    return (nthreads <= 1 || e.tune == tuning::zen3) && streams_lines ? zen_one_thread_threshold
                                                                       : streaming_threshold;
  }
  const bool pow2_transpose = e.kind == engine_plan::transpose && is_pow2_upto64(e.elem);
  return nthreads <= 1 && pow2_transpose ? intel_one_thread_threshold : intel_streaming_threshold;
}

}  // namespace lazyview
