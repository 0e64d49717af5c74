#pragma once
// The engine's loops for elements without a tile kernel: strided loops of any element size (and
// the streamed one of 64-byte elements), and transposes of odd-sized elements (3 to 63 bytes, no
// power of two) one element at a time, each moved as two overlapping power-of-two moves, or in a
// transpose's rows mostly as one that spills into the next element.
#include <algorithm>
#include <cstring>

#include "engine_kernels.hpp"
#include "line_writer.hpp"
#include "odd_rows.hpp"
#include "strided_rows.hpp"

namespace lazyview {

namespace kernels {

/// The strided plan of E-byte elements: in2.n rows of in (engine_plan::strided), each by
/// the kernel with_row_kernel picks: scatter_row where scatter_stride takes it and `lines`
/// (masked_stores), gather_row where gather_stride takes it, else move_row.
/// Example: u8 (64,1024,3).select(2,1) into (64,1024): one row (65536):(3):(1).
// Element by element, with an index product each, such plans ran 5-9x slower than a plain loop
// with constant strides (g++ 12 -O3 -march=native, 2-core Zen 3 VM, best of 7, ns per copy;
// callgrind, 100 copies, whole process, M instructions): u8 (64,1024,3).select(2,1) 63-101 us
// -> 23-28 us (plain loop 9 us; 75.7 -> 31.5 M), (1024,1024,3) 1.38-1.53 -> 0.30-0.51 ms (plain
// 0.14-0.16); fp32 (16,2048).slice(1,0,2048,2) 21-27 -> 5.7-8.3 us (3.5-5.3; 26.6 -> 15.5 M),
// (512,2048) 0.64-0.85 -> 0.16-0.22 ms (0.11-0.14); int16 (256,3000).slice(1,1,3000,3) 250-344
// -> 106-117 us. The plain loop's lead was the compiler's vector gather of a constant stride,
// which gather_row now matches or passes for its rows (see there).
template <int E>
void strided_loop(const char* s, char* d, const byte_loop& in, const byte_loop& in2, bool lines) {
  const int K = row_stride_of<E>(in);
  with_row_kernel<E>(K < 0 && !lines ? 0 : K, in, [&](auto&& row) {
    for (index_t j = 0; j < in2.n; ++j, s += in2.ss, d += in2.ds) row(s, d);
  });
}

/// The strided plan of 64-byte elements that streams (line_element_transpose, past the streaming
/// threshold into whole lines): a transpose of whole lines, destination rows along `in` (in.ds =
/// 64), source rows along in2 (in2.ss = 64). Blocks of line_block_rows indices of `in` each sweep
/// in2: every step reads the next line of the block's source rows, line_block_rows streams the
/// prefetchers follow, each asked for line_ahead_lines further on, and streams them to
/// line_block_rows consecutive lines of one destination row. The plain strided loop, in place,
/// wrote a destination row whole, a line from each of in.n source rows, too many streams to
/// follow. On the 2-core Zen 5 VM, (a,b,16).permute(1,0,2) fp32, GB/s, medians of 3 alternated
/// runs, 1 thread (2 in brackets), in place -> this: (1000,1000,16) 64 MiB 14.0 -> 21.3 (20.1 ->
/// 29.6), (4096,256,16) 5.8 -> 17.6 (10.6 -> 25.8), (512,512,16) 16 MiB 16.6 -> 36.9 (34.5 ->
/// 42.5), (2000,500,16) 17.0 -> 24.6, (8,512,256,16).permute(0,2,1,3) 13.3 -> 19.3 (a streaming
/// copy of 64 MiB: 18-28). Lines asked for 4, 8 or 16 ahead ran alike. Not measured on the
/// intel tuning's VM.
/// @pre in.ds == 64, in2.ss == 64; d and in2.ds multiples of 64 (whole lines stream).
/// Example: (1000,1000,16).permute(1,0,2) fp32: in (1000):(64000):(64), in2 (1000):(64):(64000):
/// 63 blocks of 16 source rows (the last 8), each sweeping the 1000 lines of its rows.
inline constexpr index_t line_block_rows = 16;
inline constexpr index_t line_ahead_lines = 8;
inline void strided_lines_nt(const char* s, char* d, const byte_loop& in, const byte_loop& in2) {
  for (index_t i0 = 0; i0 < in.n; i0 += line_block_rows) {
    const index_t i1 = std::min(in.n, i0 + line_block_rows);
    for (index_t j = 0; j < in2.n; ++j) {
      const char* const sj = s + j * in2.ss;
      char* const dj = d + j * in2.ds;
      for (index_t i = i0; i < i1; ++i) {
        prefetch_line(sj + i * in.ss + line_ahead_lines * 64);  // (past a row's end: harmless)
        copy_nt_whole(sj + i * in.ss, dj + i * 64, 64);
      }
    }
  }
}

/// Runs of R bytes (64 < R <= 256, a run that run_element cut into a loop of elements), one a step
/// of in2, each moved as 64-byte moves from its start, the last ending at its end (overlapping
/// the one before where 64 does not divide R). strided_loop moved them element by element, 17
/// moves of 4 bytes for a run of 17 floats, with an index product each. bench/ab on a 2-core
/// Zen 4 VM (AVX-512), fp32 x.permute(1,0,2), ratio to the best copy, medians of 3 rounds, that
/// -> this, 1 thread (2 in brackets), the bench's plain loop after the semicolon: about 3.7 MB,
/// (250,220,17) 0.11 -> 0.44 (0.21 -> 0.80; 0.46), (175,220,24) 0.53 -> 0.70 (0.90 -> 1.29;
/// 0.65), (150,220,32) 0.73 -> 0.87 (1.36 -> 1.44; 0.83), (16,2048,32) 0.82 -> 0.85
/// (1.32 -> 1.53; 0.82).
/// copy_run_by_lines moves one run so (also the bands' runs, eval/banded_kernels.hpp).
/// @pre R > 64. Example: R = 68 (17 floats): bytes [0, 64) and [4, 68); R = 128: [0, 64) and
/// [64, 128).
LAZYVIEW_ALWAYS_INLINE inline void copy_run_by_lines(const char* s, char* d, index_t R) {
  for (index_t o = 0; o + 64 < R; o += 64) copy_elem<64>(s + o, d + o);
  copy_elem<64>(s + R - 64, d + R - 64);
}
inline void strided_runs(const char* s, char* d, index_t R, const byte_loop& in2) {
  for (index_t j = 0; j < in2.n; ++j, s += in2.ss, d += in2.ds) copy_run_by_lines(s, d, R);
}

/// Copies R bytes, K/2 < R < K, as two moves of K/2 bytes that overlap in the middle.
/// Example: K = 32, R = 24 (6 floats): bytes [0, 16) and [8, 24).
template <int K>
inline void copy_odd(const char* s, char* d, index_t R) {
  char lo[K / 2], hi[K / 2];
  std::memcpy(lo, s, K / 2);
  std::memcpy(hi, s + R - K / 2, K / 2);
  std::memcpy(d, lo, K / 2);
  std::memcpy(d + R - K / 2, hi, K / 2);
}

/// Copies the K bytes at s to d, in one move where the target has K-byte vectors: an odd
/// element of R bytes (K/2 < R < K) and the K - R bytes after it, where both sides may be read
/// and written that far. transpose_block_odd moves a row's elements but its last this way
/// (the last too where the next row follows back to back): each over-write lands on the start
/// of the next element written, and each over-read on the next element of the same source row.
/// Example: K = 32, R = 24 at d = row + 0: bytes [0, 32), of which [24, 32) are the next
/// element's first 8, rewritten by its own move at row + 24.
template <int K>
inline void copy_over(const char* s, char* d) {
  std::memcpy(d, s, K);  // (the K bytes of each side lie within its own span: they never meet)
}

/// Calls f.template operator()<K>() for the power of two K with K/2 < R < K.
/// @pre 2 < R < 64 and R is no power of two. Example: R = 24 calls f<32>.
template <class F>
inline void with_odd_class(index_t R, F&& f) {
  if (R < 4)
    f.template operator()<4>();
  else if (R < 8)
    f.template operator()<8>();
  else if (R < 16)
    f.template operator()<16>();
  else if (R < 32)
    f.template operator()<32>();
  else
    f.template operator()<64>();
}

/// strided_loop for elements of R bytes, K/2 < R < K: where the row reads the first R = 3 K / 4
/// bytes of cells of K (x[..., :3] of a last dim of 4) by compact_row, where it writes them by
/// expand_row (each where it takes K; by lines where `lines`, masked_stores), one element a time
/// otherwise.
template <int K>
void strided_loop_odd(const char* s, char* d, const byte_loop& in, const byte_loop& in2, index_t R, bool lines) {
  if constexpr (compacts(K) || expands(K)) {
    const bool compact = compacts(K) && in.ss == K && in.ds == R, expand = expands(K) && in.ss == R && in.ds == K;
    if (R == 3 * K / 4 && (compact || expand)) {
      for (index_t j = 0; j < in2.n; ++j, s += in2.ss, d += in2.ds) {
        if constexpr (compacts(K))
          if (compact) compact_row<K>(s, d, in.n);
        if constexpr (expands(K))
          if (expand) expand_row<K>(s, d, in.n, lines);
      }
      return;
    }
  }
  // The loops' sizes and steps in locals: read through the references, they were reloaded after
  // every move, since a store through char* may change any object (and indexed by a product).
  const index_t n = in.n, ss = in.ss, ds = in.ds, n2 = in2.n, ss2 = in2.ss, ds2 = in2.ds;
  for (index_t j = 0; j < n2; ++j, s += ss2, d += ds2) {
    const char* a = s;
    char* b = d;
    for (index_t i = 0; i < n; ++i, a += ss, b += ds) copy_odd<K>(a, b, R);
  }
}

/// Elements per row up to which transpose_block_odd's back-to-back rows run completely
/// unrolled, their source offsets in registers. The agents chain fp32 (42,50,6) (rows of 7
/// 24-byte elements), 1 thread, medians of 5 alternated runs, GB/s: a loop over the offset
/// table 77, unrolled 84-86; a case per row length (2 to 8) 88-89, but that made every file
/// that calls copy() slower to compile (bench/compile_time/flux_lazyview.cpp, g++ -O2: 7.1 s
/// before copy_over, 8.0 with the cases, 7.4 unrolled).
inline constexpr index_t odd_row_regs = 8;

/// One destination row of n elements of R bytes, element i at d + i * R from sb + offA[i].
/// `over`: each source row goes on past the element read (it is not B's last), so all but the
/// row's last move by copy_over, one K-byte move each instead of copy_odd's two K/2-byte ones.
/// The agents chain fp32 (42,50,6), 1 thread, medians of 5 alternated runs: 57 -> 77 GB/s
/// against copy_odd throughout (a memcpy of the same bytes: 220).
template <int K>
inline void row_odd(const char* sb, char* d, const index_t* offA, index_t n, index_t R, bool over) {
  index_t i = 0;
  if (over)
    for (; i + 1 < n; ++i) copy_over<K>(sb + offA[i], d + i * R);
  for (; i < n; ++i) copy_odd<K>(sb + offA[i], d + i * R, R);
}

/// Streamed rows [b_begin, b_end) of odd-sized elements (R = p.elem bytes, K/2 < R < K, na
/// per row), back to back from d: a stage of whole rows at a time fills a line_writer source row
/// by source row (each gives the stage's elements of it, which lie back to back: one stretch of
/// source read at once), whose whole lines then stream out, the unfinished last one kept for the
/// next stage. Row after row, the same rows are na streams that each advance one element a row:
/// (4,40,20,4,20,14).permute(2,3,4,0,1,5) fp32 (56-byte elements, na = 160, rows of 8960 bytes)
/// ran at 0.45-0.50 of memcpy that way, and at 0.78-0.87 in source rows' order with 2 to 32 rows
/// a stage (a standalone kernel, 2-core Intel Xeon VM, 1 thread).
/// @pre p.nt; na * R * 2 <= odd_stage_bytes; rows b lie at d + (b - b_begin) * na * R.
/// Example: na = 160, R = 56, 7 rows: stages of 3, 2 and 2 rows, each source row giving 168,
/// 112 and 112 bytes.
template <int K>
void stage_rows_odd(const engine_plan& p, const char* s, char* d, const index_t* offA, index_t na, index_t b_begin,
                    index_t b_end) {
  const index_t R = p.elem, row = na * R, per = odd_stage_bytes / row;
  line_writer<64, odd_stage_bytes> w(d);  // (Flush 64: each stage's whole lines leave at its end)
  // stages of equal rows, give or take one (7 rows at 3 a stage: 3, 2, 2, not 3, 3, 1)
  for (index_t b0 = b_begin, left = (b_end - b_begin + per - 1) / per; b0 < b_end; --left) {
    const index_t b1 = b0 + (b_end - b0 + left - 1) / left, n = b1 - b0;
    // The stretch of source row a: elements b0..b1-1. All but the stage's last column move K
    // bytes, spilling onto the next column's element (written after it), and read K bytes
    // where the source row goes on (b + 1 < nB); the last column's would land on the next
    // row's first element, written already, or past the stage: two overlapping moves there.
    const index_t over_n = b1 < p.nB ? n : n - 1;
    char* const at = w.at();
    for (index_t a = 0; a < na; ++a) {
      const char* const sa = s + offA[a] + b0 * R;
      char* const da = at + a * R;
      prefetch_line(sa + n * R);  // the next stage's stretch of this row
      if (a + 1 < na) {
        index_t j = 0;
        for (; j < over_n; ++j) copy_over<K>(sa + j * R, da + j * row);
        for (; j < n; ++j) copy_odd<K>(sa + j * R, da + j * row, R);
      } else {
        for (index_t j = 0; j < n; ++j) copy_odd<K>(sa + j * R, da + j * row, R);
      }
    }
    w.wrote(n * row);
    b0 = b1;
  }
  w.finish();
}

/// transpose_block for elements of R = p.elem bytes, K/2 < R < K, one at a time, a destination
/// row after another; `ahead`: ask for the lines of the row two on first (see prefetch_rows).
/// Streamed (p.nt: the unit's rows back to back, see use_streaming_stores), rows of
/// odd_stage_min_a elements or more and up to half of odd_stage_bytes stage (stage_rows_odd);
/// the others go through a line_writer (in pieces of up to gather_max_run_bytes), and each asks
/// for its source rows' lines odd_source_ahead_bytes(p) on (none under the intel tuning).
template <int K>
void transpose_block_odd(const engine_plan& p, const char* s, char* d, const index_t* offA_all, const index_t* offB,
                         index_t a_begin, index_t a_end, index_t b_begin, index_t b_end, bool ahead) {
  const index_t R = p.elem, na = a_end - a_begin;
  const index_t* const offA = offA_all + a_begin;
  char* const dcol = d + a_begin * R;
  if (p.nt && na >= odd_stage_min_a && 2 * na * R <= odd_stage_bytes) {
    stage_rows_odd<K>(p, s, dcol + offB[b_begin], offA, na, b_begin, b_end);
    return;
  }
  if (p.nt) {
    line_writer<> w(dcol + offB[b_begin]);
    const index_t piece = gather_max_run_bytes / R;  // elements the writer takes at once
    const index_t src_ahead = odd_source_ahead_bytes(p);
    for (index_t b = b_begin; b < b_end; ++b) {
      const char* const sb = s + b * R;
      const bool over = b + 1 < p.nB;
      if (src_ahead != 0)
        for (index_t a = 0; a < na; ++a) prefetch_line(sb + offA[a] + src_ahead);
      for (index_t a0 = 0; a0 < na; a0 += piece) {
        const index_t a1 = std::min(na, a0 + piece);
        row_odd<K>(sb, w.at(), offA + a0, a1 - a0, R, over);
        w.wrote((a1 - a0) * R);
      }
    }
    w.finish();
    return;
  }
  // Rows of B one step apart (B a single loop) are addressed by that step, without the table.
  const index_t d_step = p.nb == 1 ? p.gb[0].ds : 0;
  // Rows back to back: a row's last move may spill into the next row too, which follows.
  const index_t whole_rows = d_step == na * R ? b_end - 1 : b_begin;
  // Rows of up to odd_row_regs elements keep their source offsets in registers through a
  // completely unrolled loop of predicated moves.
  index_t o[odd_row_regs]{};
  std::copy_n(offA, std::min(na, odd_row_regs), o);
  char* dr = dcol + offB[b_begin];
  for (index_t b = b_begin; b < b_end; ++b) {
    const char* const sb = s + b * R;
    if (ahead && b + 2 < b_end) prefetch_for_write(dcol + offB[b + 2], na * R);
    if (b >= whole_rows)
      row_odd<K>(sb, dr, offA, na, R, b + 1 < p.nB);
    else if (na <= odd_row_regs) {
      LAZYVIEW_UNROLL
      for (index_t i = 0; i < odd_row_regs; ++i)
        if (i < na) copy_over<K>(sb + o[i], dr + i * R);
    } else
      for (index_t i = 0; i < na; ++i) copy_over<K>(sb + offA[i], dr + i * R);
    if (d_step != 0)
      dr += d_step;
    else if (b + 1 < b_end)
      dr = dcol + offB[b + 1];
  }
}

}  // namespace kernels

}  // namespace lazyview
