#pragma once
// The engine: runs a range of work units of an engine plan (eval/engine_plan.hpp) with the loops of
// eval/engine_kernels.hpp, eval/line_kernels.hpp, eval/dense_kernels.hpp and eval/odd_kernels.hpp
// and the memory hints of eval/memory_hints.hpp and eval/prefetch_hints.hpp.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include "banded_kernels.hpp"
#include "dense_kernels.hpp"
#include "engine_kernels.hpp"
#include "line_kernels.hpp"
#include "make_engine_plan.hpp"  // cut_run_bytes
#include "memory_hints.hpp"
#include "narrow.hpp"
#include "odd_kernels.hpp"
#include "prefetch_hints.hpp"
#include "shifted_kernels.hpp"

namespace lazyview {

/// Runs work units [first, last) of an engine plan.
/// (A unit is one outer iteration, times one block of group A for transposes.)
/// offA, offB: the source offsets of every index of group A and the destination offsets of
/// every index of group B (group_offsets), for transposes.
inline void run_engine(const engine_plan& p, const char* src, char* dst, index_t first, index_t last,
                       const index_t* offA, const index_t* offB) {
  const index_t units_per_outer = p.units_per_outer();
  index_t idx[max_loops]{};
  const char* s = src + p.src_off;
  char* d = dst + p.dst_off;
  kernels::odometer_seek(p.outer, p.nouter, first / units_per_outer, idx, s, d);
  if (p.gather) {
    if (banded_runs(p))
      kernels::gather_runs_banded(p, s, d, idx, first, last);
    else
      kernels::gather_runs(p, s, d, idx, first, last);
    kernels::store_fence();
    return;
  }
  const index_t ahead = run_prefetch_distance(p);
  const index_t nt_head = scattered_runs(p) ? 64 : 32;  // see copy_nt
  if (p.kind == engine_plan::run && p.nouter > 0 && p.units_per_outer() == 1) {
    const bool whole = p.nt && p.run_bytes % nt_head == 0 && lines_aligned(p, dst, nt_head);
    kernels::run_rows(p, s, d, idx, first, last, ahead, nt_head, whole);
    if (p.nt) kernels::store_fence();
    return;
  }
  const bool rows_ahead = prefetch_rows(p);
  const index_t src_ahead = transpose_prefetch_distance(p);
  const bool lines = line_tiles(p) || p.nt_rows, ask_next = prefetch_next_unit(p);
  const narrow_kind narrow = narrow_transpose(p);
  // A run of more than 64 bytes cut into elements (run_element) moves as 64-byte moves, the last
  // overlapping: one element at a time it ran below the bench's plain loop (kernels::strided_runs).
  const index_t cut_run = cut_run_bytes(p);
  const bool masked = p.kind == engine_plan::strided && kernels::masked_stores(p);
  // In place, one unit a whole outer iteration: a range's iterations of the innermost outer loop
  // go to the kernel in one call (kernels::unit_repeat).
  const bool repeat = lines && units_per_outer == 1 && !ask_next && narrow == narrow_kind::none &&
                      p.nouter > 0 && kernels::lines_in_place(p);
  // nt_rows: a line per row of the widest chunk of B (kernels::line_carry; at most 511 rows,
  // too many for the stack of every call), in panels per row of B. Without it, rows' ends go
  // plainly.
  const index_t widest_b = p.nB - (p.blocks_b - 1) * p.block_b;  // B rows of the last, widest chunk
  std::unique_ptr<char[]> carry_rows;
  if (p.nt_rows && lines) {
    const index_t rows = p.panels ? p.nB : widest_b;
    carry_rows.reset(new (std::nothrow) char[static_cast<std::size_t>(rows) * 64]);
  }
  // nt_shifted: the row tails a unit leaves for the next (kernels::shifted_carry), one for each row
  // of the widest chunk of B at most. Without them, seams between units go plainly.
  const index_t seam_rows = p.nt_shifted ? widest_b : 0;
  std::unique_ptr<char[]> seam_room;
  if (seam_rows > 0) seam_room.reset(new (std::nothrow) char[kernels::shifted_carry::bytes(seam_rows)]);
  kernels::shifted_carry seams(seam_room.get(), seam_room ? seam_rows : 0);
  for (index_t u = first; u < last;) {
    // one outer iteration, or this range's units [j_first, j_last) of it
    const index_t j_first = u % units_per_outer, j_last = std::min(units_per_outer, j_first + (last - u));
    switch (p.kind) {
      case engine_plan::run: {
        // this range's pieces of the run, as one copy
        index_t b0 = 0, b1 = p.run_bytes;
        if (units_per_outer > 1) {  // else the cuts are 0 and R: one test for millions of short runs
          b0 = kernels::run_cut(d, p.run_bytes, units_per_outer, j_first);
          b1 = kernels::run_cut(d, p.run_bytes, units_per_outer, j_last);
        }
        if (p.nt) {
          kernels::copy_nt(s + b0, d + b0, b1 - b0, nt_head);
        } else {
          if (ahead != 0) kernels::prefetch_for_write(d + b0 + ahead, b1 - b0);
          std::memcpy(d + b0, s + b0, static_cast<std::size_t>(b1 - b0));
        }
        break;
      }
      case engine_plan::strided: {
        // this range's pieces of the one outer iteration (split_strided), or all of it
        byte_loop in = p.inner, in2 = p.inner2;
        const char* ps = s;
        char* pd = d;
        if (units_per_outer > 1) {
          byte_loop& cut = in2.n > 1 ? in2 : in;
          const index_t i0 = cut.n * j_first / units_per_outer, i1 = cut.n * j_last / units_per_outer;
          ps += i0 * cut.ss;
          pd += i0 * cut.ds;
          cut.n = i1 - i0;
        }
        if (cut_run > 64) {
          kernels::strided_runs(ps, pd, cut_run, in2);
          break;
        }
        if (p.nt) {  // (64-byte elements: line_element_transpose)
          kernels::strided_lines_nt(ps, pd, in, in2);
          break;
        }
        switch (p.elem) {
          case 1: kernels::strided_loop<1>(ps, pd, in, in2, masked); break;
          case 2: kernels::strided_loop<2>(ps, pd, in, in2, masked); break;
          case 4: kernels::strided_loop<4>(ps, pd, in, in2, masked); break;
          case 8: kernels::strided_loop<8>(ps, pd, in, in2, masked); break;
          case 16: kernels::strided_loop<16>(ps, pd, in, in2, masked); break;
          case 32: kernels::strided_loop<32>(ps, pd, in, in2, masked); break;
          case 64: kernels::strided_loop<64>(ps, pd, in, in2, masked); break;
          default:
            if (p.elem > 2 && p.elem < 64) {
              kernels::with_odd_class(p.elem,
                                      [&]<int K>() { kernels::strided_loop_odd<K>(ps, pd, in, in2, p.elem, masked); });
              break;
            }
            for (index_t j = 0; j < in2.n; ++j)
              for (index_t i = 0; i < in.n; ++i)
                std::memcpy(pd + j * in2.ds + i * in.ds, ps + j * in2.ss + i * in.ss, static_cast<std::size_t>(p.elem));
        }
        break;
      }
      case engine_plan::transpose: {
        // In place, units go chunk-major: the blocks of A across one chunk of B run back to
        // back, so a destination line that two blocks share is completed while cached, and
        // threads split along B write disjoint rows (split along A, they shared a line of
        // every row: (394,69,154).permute(1,2,0) at 2 threads went 0.54-0.56 -> 0.69-0.71 of memcpy).
        // Buffered, blocks end on whole lines and A-major measured better (4096^2: 0.66 at 2
        // threads against 0.60). Whole-line tiles go chunk-major, so that the unit after one
        // reads the same stretch of B from the next source rows (see transpose_lines); but panels
        // go panel by panel, the unit after one reading the next lines of the same rows
        // (far_row_panels).
        const bool chunk_major = (!p.nt || lines) && !p.panels;
        const auto unit = [&](index_t k, const char* at) {
          const index_t blk = chunk_major ? k % p.blocks_a : k / p.blocks_b;
          const index_t chunk = chunk_major ? k / p.blocks_a : k % p.blocks_b;
          const index_t a0 = blk * p.block_a, b0 = chunk * p.block_b;
          return kernels::unit_source{at, a0, std::min(p.nA, a0 + p.block_a), b0,
                                      chunk + 1 == p.blocks_b ? p.nB : b0 + p.block_b};
        };
        if (repeat) {
          const byte_loop& in = p.outer[p.nouter - 1];
          const index_t n = std::min(in.n - idx[p.nouter - 1], last - u);
          if (n > 1 && kernels::transpose_unit_lines(p, s, d, offA, offB, unit(0, s), {}, {}, {n, in.ss, in.ds})) {
            // at the last of the n: the step below moves past it
            idx[p.nouter - 1] += n - 1;
            s += (n - 1) * in.ss;
            d += (n - 1) * in.ds;
            u += n - 1;
            break;
          }
        }
        for (index_t k = j_first; k < j_last; ++k) {
          const kernels::unit_source cur = unit(k, s);
          if (narrow != narrow_kind::none) {
            kernels::narrow_unit(p, narrow, s, d, cur.a0, cur.a1, cur.b0, cur.b1);
            continue;
          }
          const index_t a_begin = cur.a0, a_end = cur.a1, b_begin = cur.b0, b_end = cur.b1;
          // the unit after this one: the next in this outer iteration, or the first of the next
          kernels::unit_source next;
          if (ask_next) {
            if (k + 1 < units_per_outer) {
              next = unit(k + 1, s);
            } else {
              index_t idx_next[max_loops];
              std::copy(idx, idx + p.nouter, idx_next);
              const char* s_next = s;
              char* d_next = d;
              if (kernels::odometer_step(p.outer, p.nouter, idx_next, s_next, d_next)) next = unit(0, s_next);
            }
          }
          kernels::line_carry carry;
          if (carry_rows) {  // (nt_rows with lines)
            // The unit of block blk - 1 over this chunk is `along` units back (chunk-major, the
            // one before; in panels, a panel's before), and carries in if this range ran it.
            // The next block is carried to only if it is a tile wide, since it then runs these
            // tiles too (a narrower last block runs in place).
            const index_t along = p.panels ? p.blocks_b : 1;
            const index_t blk = chunk_major ? k % p.blocks_a : k / p.blocks_b;
            bool out = k + along < j_last && blk + 1 < p.blocks_a;
            if (out) {
              const kernels::unit_source after = unit(k + along, s);
              out = after.a1 - after.a0 >= kernels::rows_tile_of(p.elem);
            }
            carry = {carry_rows.get(), p.panels ? 0 : b_begin, k - along >= j_first && blk > 0, out};
          } else if (seam_room) {
            // in: the unit before ran just before on this thread; out: the next runs next
            const index_t at = u + (k - j_first);  // this unit's index
            carry = {nullptr, 0, at > first, at + 1 < last, &seams};
          }
          if (lines && kernels::transpose_unit_lines(p, s, d, offA, offB, cur, next, carry)) continue;
          // (staged bytes with whole-line tiles went by transpose_unit_lines; here AVX2's)
          if (p.staged_rows && p.elem == 1 &&
              kernels::transpose_staged_rows<1>(s, d, offA, offB, a_begin, a_end, b_begin, b_end,
                                                kernels::staged_rows_whole(p)))
            continue;
          if (p.nt_shifted) {
            switch (p.elem) {
              case 1: kernels::transpose_shifted<1>(p, s, d, offA, offB, b_begin, b_end, src_ahead, next, carry); break;
              case 2: kernels::transpose_shifted<2>(p, s, d, offA, offB, b_begin, b_end, src_ahead, next, carry); break;
              case 4: kernels::transpose_shifted<4>(p, s, d, offA, offB, b_begin, b_end, src_ahead, next, carry); break;
              case 8: kernels::transpose_shifted<8>(p, s, d, offA, offB, b_begin, b_end, src_ahead, next, carry); break;
            }
            continue;
          }
          if (p.nt_dense) {
            // one stretch a unit, or (stretch_b) several
            const auto dense = [&]<int E>() {
              if (p.stretch_b != 0)
                kernels::transpose_stretches<E>(p, s, d, offA, offB, b_begin, b_end, src_ahead, next);
              else
                kernels::transpose_dense<E>(p, s, d, offA, offB, b_begin, b_end, src_ahead, next);
            };
            switch (p.elem) {
              case 1: dense.template operator()<1>(); break;
              case 2: dense.template operator()<2>(); break;
              case 4: dense.template operator()<4>(); break;
              case 8: dense.template operator()<8>(); break;
            }
            continue;
          }
          // (odd sizes stream through a line_writer; 16 and 32 bytes only with their tiles)
          if (p.nt && !p.nt_rows && (p.elem <= 8 || p.elem == 16 || p.elem == 32)) {
            switch (p.elem) {
              case 1: kernels::transpose_block<1, true>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead, next); break;
              case 2: kernels::transpose_block<2, true>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead, next); break;
              case 4: kernels::transpose_block<4, true>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead, next); break;
              case 8: kernels::transpose_block<8, true>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead, next); break;
              case 16:
                if constexpr (kernels::tile_of(16) > 1)
                  kernels::transpose_block<16, true>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead, next);
                break;
              case 32:
                if constexpr (kernels::tile_of(32) > 1)
                  kernels::transpose_block<32, true>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead, next);
                break;
            }
            continue;
          }
          switch (p.elem) {
            case 1: kernels::transpose_block<1, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead); break;
            case 2: kernels::transpose_block<2, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead); break;
            case 4: kernels::transpose_block<4, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead); break;
            case 8: kernels::transpose_block<8, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead); break;
            case 16: kernels::transpose_block<16, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead); break;
            case 32: kernels::transpose_block<32, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, src_ahead); break;
            default:  // odd sizes under 64 bytes
              kernels::with_odd_class(p.elem, [&]<int K>() {
                kernels::transpose_block_odd<K>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, rows_ahead);
              });
          }
        }
        break;
      }
    }
    u += j_last - j_first;
    if (j_last < units_per_outer) break;  // the range ended inside this outer iteration
    kernels::odometer_step(p.outer, p.nouter, idx, s, d);  // the last unit's step is unused
  }
  if (p.nt) kernels::store_fence();
}

}  // namespace lazyview
