#pragma once
// Streamed transposes whose destination rows are whole lines long and all start the same m bytes
// into a line, but not on one (a std::vector from glibc starts 16 bytes into a line), with rows
// longer than the shifted tiles take (shifted_tile_row_bytes): the plan is cut along A into a body
// whose rows start and end on lines, which streams whole lines straight from its tiles as any
// transpose on lines does, and the seams: per row, the line it starts in and the line it ends in
// (one line, where rows lie back to back), moved by kernels::transpose_seams (eval/seam_kernels.hpp).
// Before, such plans went through the row buffer of nt_rows, or stayed in place.
#include <cstdint>

#include "memory_hints.hpp"
#include "plan.hpp"

namespace lazyview {

/// How peel_rows_to_lines cuts a transpose: loop k of its loop plan is group A (its only member);
/// its first `head` and last `tail` indices make the seams (head + tail of them fill a line), the
/// rest the body, whose engine plan (streamed) is `body`. k = -1: not cut.
struct line_peel {
  int k = -1;
  index_t head = 0, tail = 0, m = 0;
  engine_plan body;
};

/// Whether (and where) transpose e, from loop plan p of `elem`-byte elements into `dst`
/// (`dst_bytes` in all, on `nthreads`), is cut into a body on lines and seams: whole-line tiles
/// for its elements (line_tiles_fit), group A one loop of p, rows over shifted_tile_row_bytes
/// that all start the same m bytes into a line (rows_line_offset: whole lines long, m a multiple
/// of the element), the plan left off lines by use_streaming_stores (in place, or nt_rows), and
/// the body streamed from its tiles (nt, none of the buffered ways).
/// On the 2-core Zen 5 VM (AVX-512 VBMI), destination 16 bytes into a line, about 16 MiB, GB/s
/// read plus written, medians of 15 copies, 3 alternated processes, 1 thread (2 in brackets),
/// before -> cut: (4096,4096).t() fp32 22 -> 34 (26 -> 41), uint8 9 -> 19 (19 -> 40), bf16
/// (4096,2048).t() 22 -> 41 (37 -> 60), fp64 (2048,2048).t() 24 -> 36 (35 -> 58); rows of 1088
/// bytes, (272,15420).t() fp32 33 -> 64 (64 -> 74), uint8 (1088,15420).t() 27 -> 39 (53 -> 67),
/// fp64 (136,15420).t() 37 -> 62 (43 -> 94); rows of 2048 bytes, (512,8192).t() fp32 37 -> 45
/// (58 -> 65). Aligned, the same transposes run 34-36 (fp32 4096), 64-66 (fp32 rows of 1088).
/// Of 18 shapes measured (1, 2 and 8-byte elements, rows of 1088, 1600 and 4160 bytes), one lost:
/// bf16 rows of 1600 bytes at 2 threads, 0.95x. Rows up to shifted_tile_row_bytes keep the
/// shifted tiles: cut, they gained 1.2-1.7x at 1 thread in most shapes, but lost at 2 in several
/// (fp64 rows of 512 bytes 0.78x, fp32 of 1024 0.90-0.95x, bytes of 128 0.81x).
/// The intel tuning takes the same cut, unmeasured there. Register tiles (AVX2) keep their
/// shifted lines (kernels::transpose_shifted, rows of any length): cut, an AVX2 build on the same
/// VM gained for bytes ((4096,4096).t() 1.3x, 1.6x at 2 threads) and lost for fp64 (0.82x).
/// Example: (4096,4096).t() fp32 into a std::vector: A = the 4096 source rows, head 12 (48
/// bytes), tail 4, the body A indices [12, 4092), rows' lines 1 to 255 of 256; the seams the
/// lines each row starts in. Into a 64-byte aligned buffer: not cut (rows on lines already).
inline line_peel peel_rows_to_lines(const engine_plan& e, const loop_plan& p, index_t elem, const void* dst,
                                    index_t dst_bytes, unsigned nthreads) {
  line_peel none;
  if (e.kind != engine_plan::transpose || e.na != 1 || e.elem > 8 || !line_tiles_fit(e) ||
      e.nA * e.elem <= shifted_tile_row_bytes || (e.nt && !e.nt_rows))
    return none;
  const index_t m = rows_line_offset(e, dst);
  if (m == 0) return none;
  int k = -1;
  for (int i = 0; i < p.nloops; ++i)
    if (p.loops[i].n == e.nA && p.loops[i].ds * elem == e.elem && p.loops[i].ss * elem == e.ga[0].ss) {
      if (k >= 0) return none;
      k = i;
    }
  if (k < 0) return none;
  line_peel c;
  c.k = k;
  c.m = m;
  c.head = (64 - m) / e.elem;
  c.tail = m / e.elem;
  loop_plan q;
  p.copy_to(q);
  q.loops[k].n = e.nA - c.head - c.tail;
  q.src_offset += c.head * p.loops[k].ss;
  q.dst_offset += c.head * p.loops[k].ds;
  q.numel = p.numel / e.nA * q.loops[k].n;
  c.body = make_engine_plan(q, elem);
  use_streaming_stores(c.body, dst, dst_bytes / e.nA * q.loops[k].n, nthreads);
  const engine_plan& b = c.body;
  if (!b.nt || b.nt_rows || b.nt_shifted || b.nt_dense || b.kind != engine_plan::transpose) return none;
  return c;
}

}  // namespace lazyview
