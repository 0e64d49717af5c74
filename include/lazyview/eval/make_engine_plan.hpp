#pragma once
// Building the engine plan (eval/engine_plan.hpp): a plain copy_plan turned into bytes and
// specialised.
//   1. The run contiguous on both sides becomes one wide element (FLUX pack: 2 fp32 = 8 bytes;
//      an odd run under 64 bytes is one element too); a run over 256 bytes stays a memcpy per
//      outer iteration.
//   2. If the unit-stride loops of the two sides differ, the plan is a batched 2-D transpose:
//      group A (contiguous in the destination, up to 64 elements) and group B (contiguous in the
//      source, up to 1024) are grown, and tiles of T x T wide elements move through registers
//      (kernels/micro; with AVX-512, tiles of whole-line rows, kernels::line_micro: 4- and
//      8-byte elements, 2-byte ones with BW, bytes with VBMI). Rows of a tile are addressed
//      through offset tables, so a group may combine dims with unrelated strides on its other
//      side. Large destinations go out by streaming stores, through a buffer or straight from
//      whole-line tiles (eval/memory_hints.hpp).
//   3. Otherwise a strided loop of wide elements.
// Work units (outer iterations, times blocks of A and chunks of B for transposes) are split over
// threads in balanced ranges (eval/engine.hpp runs them, eval/engine_kernels.hpp holds the loops).
#include <algorithm>

#include "engine_plan.hpp"

namespace lazyview {

/// Runs open on the strided side of a run copy whose outer loops go in `order`, outermost
/// first (`by_dst`: the destination is the sequential side): the loops inside the innermost one
/// that continues a run contiguously on the strided side, each run there a stream of its own.
/// Example: (187,258,87).permute(1,0,2) in fp32, runs of 348 bytes: 187 streams gathered in
/// destination order, 258 scattered in source order.
inline index_t open_runs(const byte_loop* order, int n, index_t run_bytes, bool by_dst) {
  index_t streams = 1;
  for (int k = n - 1; k >= 0; --k) {
    const index_t st = by_dst ? order[k].ss : order[k].ds;
    if (magnitude(st) == run_bytes) break;
    streams *= order[k].n;
  }
  return streams;
}

/// Orders the outer loops of a run copy. Source order (sequential reads, scattered writes) is
/// the default: a load that misses holds the core, a store that misses only a store-buffer
/// slot, so scattered writes go further. It loses where it keeps many more runs open than the
/// destination order does. fp32, 1 thread, ratio to memcpy, destination order -> source order
/// (medians of 15 interleaved runs; 16 shapes, 6 of them shown here): (1161,6,656).permute(1,0,2)
/// 0.81 -> 0.96, (187,258,87) 0.74 -> 0.87, (952,35,126) 0.74 -> 0.92, (30,40,50,70).permute(2,0,1,3)
/// 0.89 -> 0.94; but (16,1024,256) 0.96 -> 0.84 (16 open runs against 1024) and
/// (30,40,50,70).permute(1,2,0,3) 0.95 -> 0.67 (30 against 2000).
/// Past the caches, runs that lie back to back in the destination are instead gathered in
/// destination order and streamed (engine_plan::gather, set by use_streaming_stores).
/// @post e.outer is in source order unless that opens over 4x the runs of destination order.
inline void order_runs(engine_plan& e) {
  const int n = e.nouter;
  byte_loop by_src[max_loops];
  for (int i = 0; i < n; ++i) by_src[i] = e.outer[i];
  sort_by_decreasing_stride(by_src, n, [](const byte_loop& l) { return l.ss; });
  if (open_runs(by_src, n, e.run_bytes, false) > 4 * open_runs(e.outer, n, e.run_bytes, true)) return;
  for (int i = 0; i < n; ++i) e.outer[i] = by_src[i];
}

/// Runs of at least twice this many bytes are cut into pieces of about this many (whole lines of
/// the destination at run time, kernels::run_cut), each a work unit, so that threads share runs
/// that are fewer than the threads or too few to balance: a contiguous copy() was one run, one
/// unit, and ran on one thread whatever threads{} asked (64 MiB fp32: 21-22 GB/s at 1 and 2
/// threads on the 2-core Zen 4 VM of docs/benchmarks.md). A thread takes the pieces of its
/// share of an outer iteration as one copy, so a piece adds no call; a page keeps the shares
/// within a page of even.
inline constexpr index_t run_piece_bytes = 4096;

/// Sets e.run_pieces for a run plan: run_bytes / run_piece_bytes pieces where that is two or more.
/// @pre e.kind == engine_plan::run.
/// Example: a contiguous copy of 1 MiB: (one outer iteration) 256 pieces, 256 work units.
/// Gathered runs (use_streaming_stores, later) are short enough to keep one piece, so
/// kernels::gather_runs may read its range of units as outer iterations.
inline void split_runs(engine_plan& e) {
  static_assert(gather_max_run_bytes < 2 * run_piece_bytes, "a gathered run must stay one work unit");
  e.run_pieces = std::max<index_t>(1, e.run_bytes / run_piece_bytes);
}

/// Sets e.run_pieces for a strided plan with no outer loop, which would otherwise be one work
/// unit, run on one thread whatever threads{} asked: pieces of about run_piece_bytes of
/// destination, cut along inner2 where it has two or more rows, else along inner.
/// @pre e.kind == engine_plan::strided.
/// Example: u8 (1024,1024,3).select(2,1), one loop (1048576):(3):(1): 256 pieces of 4096
/// elements; fp32 (512,2047).slice(1,0,2047,2), inner (1024):(8):(4) in rows (512):(8188):(4096):
/// 512 pieces of one row; u8 (64,3).select(1,0): one. A run cut into elements (cut_run_bytes, at
/// most wide_element_run_bytes) is never cut: with one row it is one piece.
// Measured (harness, g++ 12 -O3 -march=native, 2-core Zen 3 VM, best of 7, three runs), 1 -> 2
// threads: u8 (1024,1024,3).select(2,1) 351-520 -> 185-231 us, fp32 (512,2047).slice(1,0,2047,2)
// 205-263 -> 104-118 us, (1024,2048).slice(1,1,2048,2) 802-1021 -> 222-233 us; one unit before,
// 2 threads ran as 1.
inline void split_strided(engine_plan& e) {
  if (e.nouter != 0) return;
  const index_t bytes = e.inner.n * e.inner2.n * e.elem;
  e.run_pieces = std::clamp<index_t>(bytes / run_piece_bytes, 1, e.inner2.n > 1 ? e.inner2.n : e.inner.n);
}

/// Runs of more than 64 bytes and up to this many are cut into wide elements in place
/// (run_element: 68 bytes into 17 of 4, 256 into 4 of 64; a strided plan, which never streams,
/// moved by kernels::strided_runs) but may stream as runs where use_streaming_stores streams them
/// (as_streamed_runs): an attention head of 64 fp32 or 128 bf16 is 256 bytes, of 32 fp32 or 64
/// bf16 128.
inline constexpr index_t wide_element_run_bytes = 256;

/// The bytes of the run that a strided plan's inner loop is (contiguous on both sides: a run that
/// run_element cut into elements), else 0.
/// Example: (600,220,32).permute(1,0,2) fp32, inner (2):(64):(64): 128.
inline index_t cut_run_bytes(const engine_plan& e) {
  return e.kind == engine_plan::strided && e.inner.ss == e.elem && e.inner.ds == e.elem ? e.inner.n * e.elem : 0;
}

/// Whether e is a strided plan whose inner loop is a run of more than 64 bytes and up to
/// wide_element_run_bytes cut into wide elements (as_streamed_runs applies).
/// Example: (600,220,32).permute(1,0,2) fp32: inner (2):(64):(64), a run of 128 bytes: yes.
inline bool wide_element_runs(const engine_plan& e) {
  const index_t R = cut_run_bytes(e);
  return R > 64 && R <= wide_element_run_bytes && e.inner2.ss != e.elem && e.inner2.ds != e.elem;
}

/// Whether e is a strided plan of 64-byte elements (a run of 16 fp32 or 32 bf16, a line each)
/// that transposes whole lines: its inner loop along destination rows (ds 64), its second along
/// source rows (ss 64), each destination row a whole number of lines apart
/// (kernels::strided_lines_nt applies where it streams).
/// Example: (1000,1000,16).permute(1,0,2) fp32: inner (1000):(64000):(64), inner2
/// (1000):(64):(64000): yes; (1000,1000,17): no (runs of 68 bytes: wide_element_runs).
inline bool line_element_transpose(const engine_plan& e) {
  return e.kind == engine_plan::strided && e.elem == 64 && e.inner.ds == 64 && e.inner2.n > 1 && e.inner2.ss == 64 &&
         e.inner2.ds % 64 == 0;
}

/// Turns such a plan back into the run plan of those runs, its outer loops in order_runs' order.
/// Example: (32,2048,64).permute(1,0,2) fp32, strided: inner (4):(64):(64), inner2
/// (32):(512 Ki):(256), outer (2048):(256):(8 Ki) -> run of 256 bytes, outer
/// (2048,32):(256,512 Ki):(8 Ki,256), destination order (32 runs open against 2048).
/// @pre wide_element_runs(e), e a plan of make_engine_plan before use_streaming_stores.
inline void as_streamed_runs(engine_plan& e) {
  if (e.inner2.n > 1) e.outer[e.nouter++] = e.inner2;  // the loop the strided plan took out last
  sort_by_decreasing_stride(e.outer, e.nouter, [](const byte_loop& l) { return magnitude(l.ds); });
  e.run_bytes = cut_run_bytes(e);  // (before kind: it reads the strided plan)
  e.kind = engine_plan::run;
  e.elem = 1;
  e.run_pieces = 1;  // (split_strided's pieces were of the strided plan's rows)
  e.inner = e.inner2 = byte_loop{1, 0, 0};
  order_runs(e);
}

/// Specialises a plain plan for elements of `size` bytes.
/// Example: FLUX pack fp32 (1,16,128,128): wide element 8 bytes; A = (ph, c) (32 elements,
/// contiguous in the destination), B = (iw) (64, contiguous in the source); outer = (ih).
inline engine_plan make_engine_plan(const loop_plan& p, index_t size) {
  engine_plan e;
  e.tune = current_tuning();
  e.src_off = p.src_offset * size;
  e.dst_off = p.dst_offset * size;
  byte_loop l[max_loops];
  int n = byte_loops(p, size, l);
  index_t E = size;
  if (n > 0 && l[n - 1].ss == E && l[n - 1].ds == E) {
    const index_t R = l[n - 1].n * E, W = run_element(R);
    --n;
    if (W != 0) {
      if (W < R) l[n++] = {R / W, W, W};
      E = W;
    } else {
      e.kind = engine_plan::run;
      e.run_bytes = R;
      e.nouter = n;
      for (int k = 0; k < n; ++k) e.outer[k] = l[k];
      order_runs(e);
      split_runs(e);
      return e;
    }
  }
  e.elem = static_cast<int>(E);
  if (n == 0) {
    e.kind = engine_plan::run;
    e.run_bytes = E;
    return e;
  }
  int a0 = -1, b0 = -1;
  for (int k = n - 1; k >= 0; --k) {
    if (a0 < 0 && l[k].ds == E) a0 = k;
    if (b0 < 0 && l[k].ss == E) b0 = k;
  }
  bool used[max_loops]{};
  // Elements without a tile kernel (T = 1: 16 bytes and over, odd sizes) still take the
  // blocked traversal: an A block reads a few source rows at once, each line once.
  if (a0 >= 0 && b0 >= 0 && a0 != b0 && E < 64) {
    e.kind = engine_plan::transpose;
    used[a0] = used[b0] = true;
    // A group grows outward from its unit loop by loops that continue it contiguously on its
    // side (destination for A, source for B) up to its target. The smaller group
    // grows first, since a loop may continue both: in (5,15,37,5,15,19).permute(3,1,5,0,4,2) the
    // 15 continues A = 37 in the destination and B = 19 in the source; given to B it makes
    // A = 37, B = 285 rather than A = 555, B = 19, whose tiles would mostly be tails.
    auto grow = [&](byte_loop* g, int& ng, index_t& count, bool dst_side) {
      if (count >= (dst_side ? transpose_group_target_a : transpose_group_target_b)) return false;
      for (int k = 0; k < n; ++k)
        if (!used[k] && (dst_side ? l[k].ds : l[k].ss) == count * E) {
          used[k] = true;
          g[ng++] = l[k];
          count *= l[k].n;
          return true;
        }
      return false;
    };
    e.ga[e.na++] = l[a0];
    e.nA = l[a0].n;
    e.gb[e.nb++] = l[b0];
    e.nB = l[b0].n;
    for (bool grown = true; grown;) {
      const bool a_first = e.nA <= e.nB;
      grown = a_first ? grow(e.ga, e.na, e.nA, true) : grow(e.gb, e.nb, e.nB, false);
      if (!grown) grown = a_first ? grow(e.gb, e.nb, e.nB, false) : grow(e.ga, e.na, e.nA, true);
    }
    for (int k = 0; k < n; ++k)
      if (!used[k]) e.outer[e.nouter++] = l[k];
    // Without a tile kernel, every index of an A block is a source stream of its own. Up to 32
    // streams, a block is all of A, so destination rows are written whole and in order (26 x 40
    // bytes in (26,785,20,10).permute(1,2,0,3): 1.00 of memcpy, 0.71 in blocks of 8); past that,
    // eight at once measured best in place (160 x 56 bytes: 0.80, against 0.64 at 16 and 0.47 at
    // 256); streamed, A is whole again (use_streaming_stores).
    if (kernels::tile_of(e.elem) > 1)
      split_group_a(e, transpose_direct_bytes);
    else
      split_group_a(e, e.nA <= 32 ? e.nA * E : 8 * E);
    split_group_b(e, transpose_chunk_b);
    choose_tile_order(e);
    return e;
  }
  e.kind = engine_plan::strided;
  // Inner loop: unit stride in the destination (else in the source). Around it, the loop of unit
  // stride in the source if there is another: elements too wide or odd for a tile (56 bytes in
  // (4,40,20,4,20,14).permute(2,3,4,0,1,5)) then still read each source line once, as a
  // transpose of whole elements.
  const int in = a0 >= 0 ? a0 : (b0 >= 0 ? b0 : n - 1);
  const int in2 = b0 >= 0 && b0 != in ? b0 : -1;
  LAZYVIEW_ASSUME(in >= 0 && in < n);  // n > 0 here; says so to g++'s flow analysis
  e.inner = l[in];
  for (int k = 0; k < n; ++k)
    if (k != in && k != in2) e.outer[e.nouter++] = l[k];
  if (in2 >= 0)
    e.inner2 = l[in2];
  else if (e.nouter > 0)
    e.inner2 = e.outer[--e.nouter];
  split_strided(e);
  return e;
}

}  // namespace lazyview
