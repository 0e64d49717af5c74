#pragma once
// Streamed transposes whose destination rows are whole lines long and all start the same m bytes
// into a line, but not on one (a std::vector from glibc starts 16 bytes into a line): the plan
// is cut along A into a body whose rows start and end on lines, which streams whole lines
// straight from its tiles as any transpose on lines does, and the seams: per row, the line it
// starts in and the line it ends in (one line, where rows lie back to back), moved by
// kernels::transpose_seams (eval/seam_kernels.hpp). Before, rows over shifted_tile_row_bytes went
// through the row buffer of nt_rows, or stayed in place, and shorter ones took the shifted tiles.
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

/// Whether rows of `row` bytes, up to shifted_tile_row_bytes, are cut from the shifted tiles
/// (peel_rows_to_lines): over a line, and not a power of two long.
/// Example: 192, 320, 768: yes; 64, 256, 1024: no.
constexpr bool short_rows_cut(index_t row) { return row > 64 && (row & (row - 1)) != 0; }

/// Whether (and where) transpose e, from loop plan p of `elem`-byte elements into `dst`
/// (`dst_bytes` in all, on `nthreads`), is cut into a body on lines and seams: whole-line tiles
/// for its elements (line_tiles_fit), group A one loop of p, rows over shifted_tile_row_bytes (or
/// short_rows_cut) that all start the same m bytes into a line (rows_line_offset: whole lines
/// long, m a multiple of the element), the plan left off lines by use_streaming_stores (in
/// place, nt_rows or nt_shifted), and the body streamed from its tiles (nt, none of the buffered
/// ways).
/// On the 2-core Zen 5 VM (AVX-512 VBMI), destination 16 bytes into a line, about 16 MiB, GB/s
/// read plus written, medians of 15 copies, 3 alternated processes, 1 thread (2 in brackets),
/// before -> cut: (4096,4096).t() fp32 22 -> 34 (26 -> 41), uint8 9 -> 19 (19 -> 40), bf16
/// (4096,2048).t() 22 -> 41 (37 -> 60), fp64 (2048,2048).t() 24 -> 36 (35 -> 58); rows of 1088
/// bytes, (272,15420).t() fp32 33 -> 64 (64 -> 74), uint8 (1088,15420).t() 27 -> 39 (53 -> 67),
/// fp64 (136,15420).t() 37 -> 62 (43 -> 94); rows of 2048 bytes, (512,8192).t() fp32 37 -> 45
/// (58 -> 65). Aligned, the same transposes run 34-36 (fp32 4096), 64-66 (fp32 rows of 1088).
/// Of 18 shapes measured (1, 2 and 8-byte elements, rows of 1088, 1600 and 4160 bytes), one lost:
/// bf16 rows of 1600 bytes at 2 threads, 0.95x.
/// Shorter rows, up to shifted_tile_row_bytes, are cut too, from the shifted tiles (nt_shifted),
/// unless their length is a power of two (`short_rows_cut`). (R,16777216/R).t() against the
/// shifted tiles, 1-, 2-, 4- and 8-byte elements, same harness, 1 thread (2 in brackets): rows
/// of 192, 320, 640 and 768 bytes 1.10-1.81x (0.91-1.72x; under 1 only fp32 rows of 192,
/// 0.91x and in another run 1.09x, and fp64 rows of 320, 0.97x), e.g. fp32 rows of 768 bytes
/// 32 -> 58 (53 -> 73), bf16 of 192 30 -> 50 (49 -> 63); rows of 256 and 512 bytes lost at 2
/// threads (0.78-0.97x, but bf16 rows of 512 1.06x) and fp32 and fp64 rows of 512 at 1
/// (0.76-0.90x), and rows of 1024 and 128 were mixed, so rows a power of two long keep the tiles
/// (why they lose was not pinned down). Rows of 64 bytes have no body.
/// The intel tuning takes the same cut, unmeasured there. Register tiles (AVX2) keep their
/// shifted lines (kernels::transpose_shifted, rows of any length): cut, an AVX2 build on the same
/// VM gained for bytes ((4096,4096).t() 1.3x, 1.6x at 2 threads) and lost for fp64 (0.82x).
/// Example: (4096,4096).t() fp32 into a std::vector: A = the 4096 source rows, head 12 (48
/// bytes), tail 4, the body A indices [12, 4092), rows' lines 1 to 255 of 256; the seams the
/// lines each row starts in. Into a 64-byte aligned buffer: not cut (rows on lines already).
inline line_peel peel_rows_to_lines(const engine_plan& e, const loop_plan& p, index_t elem, const void* dst,
                                    index_t dst_bytes, unsigned nthreads) {
  line_peel none;
  const index_t row = e.nA * e.elem;
  // (below never_streams_below no body streams: the test costs a planning of the body per call)
  if (dst_bytes < never_streams_below || e.kind != engine_plan::transpose || e.na != 1 || e.elem > 8 || !line_tiles_fit(e) ||
      (e.nt && !e.nt_rows && !e.nt_shifted) || (row <= shifted_tile_row_bytes && !short_rows_cut(row)))
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
