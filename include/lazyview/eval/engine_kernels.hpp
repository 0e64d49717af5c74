#pragma once
// The loops of the engine over one work unit: transposes of wide elements in tiles (in place or
// through a buffer out by streaming stores) and gathered runs; for whole-line tiles and the
// buffer of nt_rows, see eval/line_kernels.hpp; for odd element sizes and strided loops,
// eval/odd_kernels.hpp.
// They read the plan and the offset tables of its transpose groups; which unit runs where is
// eval/engine.hpp's business.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "engine_plan.hpp"
#include "line_writer.hpp"

namespace lazyview {

namespace kernels {

/// Sets an odometer over loops l[0, n), the last innermost, to step `it` of the walk (row-major):
/// idx to its index in each loop, s and d moved on by that index times each loop's strides.
/// Example: loops (3,4):(40,10):(4,1), it 6: idx (1,2), s += 60, d += 6.
inline void odometer_seek(const byte_loop* l, int n, index_t it, index_t* idx, const char*& s, char*& d) {
  for (int k = n - 1; k >= 0; --k) {
    idx[k] = it % l[k].n;
    it /= l[k].n;
    s += idx[k] * l[k].ss;
    d += idx[k] * l[k].ds;
  }
}

/// One step of an odometer over loops l[0, n), the last innermost: moves s and d to the next
/// index; returns false when every loop wrapped round (the walk is over).
inline bool odometer_step(const byte_loop* l, int n, index_t* idx, const char*& s, char*& d) {
  for (int k = n - 1; k >= 0; --k) {
    s += l[k].ss;
    d += l[k].ds;
    if (++idx[k] < l[k].n) return true;
    s -= l[k].n * l[k].ss;
    d -= l[k].n * l[k].ds;
    idx[k] = 0;
  }
  return false;
}

/// Where piece j of a run of R bytes at destination d begins, of `pieces` (engine_plan::run_pieces):
/// at j * R / pieces, moved on to the next line of the destination, so that threads sharing a run
/// never write parts of one line (nor a streamed line in part). cut(0) = 0, cut(pieces) = R.
/// Example: R 8192, 2 pieces, d 16 bytes past a line: cuts 0, 4144, 8192.
inline index_t run_cut(const char* d, index_t R, index_t pieces, index_t j) {
  if (j == 0 || j == pieces) return j == 0 ? 0 : R;
  const auto at = reinterpret_cast<std::uintptr_t>(d) + static_cast<std::uintptr_t>(j * (R / pieces));
  return std::min(R, static_cast<index_t>(((at + 63) & ~std::uintptr_t{63}) - reinterpret_cast<std::uintptr_t>(d)));
}

/// Where prefetch_line asks for a line: l1, every level (PREFETCHT0); l2, the second level only
/// (PREFETCHT1), for lines wanted well ahead of their loads, so many at once that the first level's
/// few miss buffers (24 on Zen 4) would cap the reads in flight, and its 32 KiB would evict them,
/// or the lines in use, before their turn. Against l1, on a 2-core Zen 4 VM (AVX-512), GB/s,
/// medians of 7 alternated runs of bench/, 1 thread (2 in brackets): rows asked for 512 bytes ahead
/// (transpose_prefetch_distance), (20,6,5,30,15,16).permute(0,5,3,4,1,2) 12.0 -> 20.2 (27.1 ->
/// 47.1), (20,44,46,7,15).permute(2,3,1,4,0) 14.0 -> 23.1 (28.6 -> 50.7),
/// (65,58,1119).permute(2,1,0) 11.4 -> 15.1 (23.0 -> 36.8), (5,15,37,5,15,19).permute(3,1,5,0,4,2)
/// 12.7 -> 15.7 (31.2 -> 45.0); the next unit's lines (unit_requests) where a unit reads 16 KiB or
/// more, FLUX pack (16,16,256,256) fp32 20.5 -> 28.8 (40.4 -> 45.0), bf16 21.6 -> 36.3 (44.8 ->
/// 51.3), (4096,4096).t() fp32 19.3 -> 24.1 (32.4 -> 40.8), (394,69,154).permute(1,2,0) 15.8 ->
/// 22.5 (33.4 -> 38.4). Units of 4 KiB (FLUX unpack) asked this way measured 0.85-0.99x in two
/// runs, and keep l1. Elsewhere within the noise of this machine (0.85-1.15x on plans that ask for
/// nothing).
enum class prefetch_to { l1, l2 };

/// Asks for the cache line at p ahead of its first load, into the levels To names.
template <prefetch_to To = prefetch_to::l1>
inline void prefetch_line(const char* p) {
#if defined(__GNUC__)
  __builtin_prefetch(p, 0, To == prefetch_to::l1 ? 3 : 2);
#else
  (void)p;
#endif
}

/// Asks for the lines of [p, p + n) ahead of stores to them (PREFETCHW where the target has it).
inline void prefetch_for_write(const char* p, index_t n) {
#if defined(__GNUC__)
  const char* const end = p + n;
  for (const char* q = p - (reinterpret_cast<std::uintptr_t>(p) & 63); q < end; q += 64) __builtin_prefetch(q, 1, 3);
#else
  (void)p;
  (void)n;
#endif
}

/// The source lines of a transpose work unit: for each A index a in [a0, a1), the bytes
/// [b0 * E, b1 * E) past s + offA[a], one stretch of each source row.
struct unit_source {
  const char* s = nullptr;  ///< nullptr: no unit
  index_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;
};

/// A transpose work unit run n times in one call, each time ss bytes further in the source and
/// ds in the destination: the units of n outer iterations where a unit is a whole one (in place,
/// see kernels::transpose_lines). With a call per unit, an in-cache FLUX pack fp32
/// (1,16,128,128), 64 units of 16 KiB, took 1.10-1.13 times the cycles of a plain loop over the
/// same tiles, 1.05-1.09 with one call (unpack: 1.09 -> 1.04). bench/ab, 1 thread (2), 3 rounds:
/// FLUX pack bf16 (1,16,128,128) 1.11x (1.10x), fp32 1.06x, unpack fp32 1.06x, pack and unpack
/// (1,16,96,170) 1.02-1.06x (1.03-1.05x).
/// Example: FLUX pack fp32 (1,16,128,128), outer loop 64:(1024,16384): {64, 1024, 16384}.
struct unit_repeat {
  index_t n = 1, ss = 0, ds = 0;
};

/// Asks for the source lines of the unit that runs after this one while this one runs, a share
/// of its rows per step of this one (each row's stretch whole and in address order): a unit
/// ahead gives the memory system a unit's time to fetch them, and in address order each stretch
/// is one burst. ask(step) asks for the rows due by the end of step `step` of `steps`.
/// Example: next unit of 128 rows, 8 steps: 16 rows per step, the last asked for in step 7.
template <int E>
class unit_requests {
 public:
  /// `next.s` nullptr: asks for nothing.
  unit_requests(const unit_source& next, const index_t* offA, index_t steps)
      : next_(next), offA_(offA), steps_(steps), rows_(next.s ? next.a1 - next.a0 : 0) {}
  unit_requests(const unit_requests&) = delete;  // (each copy would ask for the rows again)
  unit_requests& operator=(const unit_requests&) = delete;
  void ask(index_t step) {
    const index_t stretch = (next_.b1 - next_.b0) * E;
    const bool l2 = rows_ * stretch >= l2_unit_bytes;
    for (const index_t upto = (step + 1) * rows_ / steps_; asked_ < upto; ++asked_) {
      const char* const row = next_.s + offA_[next_.a0 + asked_] + next_.b0 * E;
      const char* const end = row + stretch;
      for (const char* q = row - (reinterpret_cast<std::uintptr_t>(row) & 63); q < end; q += 64) {
        if (l2)
          prefetch_line<prefetch_to::l2>(q);
        else
          prefetch_line(q);
      }
    }
  }
  /// From this many bytes a unit, its lines are asked for into the second level only (see
  /// prefetch_to): half the first level, which also holds the unit that runs.
  static constexpr index_t l2_unit_bytes = 16 << 10;

 private:
  unit_source next_;  // a copy: callers pass temporaries (transpose_stream_lines' default)
  const index_t* offA_;
  index_t steps_, rows_, asked_ = 0;  // asked_: rows asked for so far
};

/// How many rows of `row` bytes fit `bytes`, in whole tiles of T rows, one tile at least: the
/// rows of B in a slice of transpose_tiles (and the blocks of transpose_dense).
/// Example: 4096 bytes of 344-byte rows, T = 8: 8 (11 fit).
inline constexpr index_t tile_rows_in(index_t bytes, index_t row, index_t T) {
  return std::max<index_t>(T, bytes / row / T * T);
}

/// Calls f(a) for the first index of each tile along A, in order: 0, then head (if any) and on by
/// T, the last moved back to end at na. @pre na >= T.
template <int T, class F>
LAZYVIEW_ALWAYS_INLINE inline void for_tiles_a(index_t na, index_t head, F&& f) {
  for (index_t at = 0;;) {
    const index_t a = at + T <= na ? at : na - T;
    f(a);
    if (a + T >= na) break;
    at = at == 0 && head > 0 ? head : at + T;
  }
}

/// Moves the tiles of rows [b0, b1) of group B and na indices of group A, whose source offsets
/// are offA[0, na); `drow(b)` is where destination row b (at the first of those A indices)
/// starts. A tail shorter than a tile is covered by a last tile moved back to end at the
/// boundary (copying some elements twice, harmlessly: source and destination never overlap
/// here, and both copies belong to the same work unit). With fewer than T rows or indices, the
/// elements go one at a time. `head` (0 < head < T, or 0): the tiles after the first start at
/// head + kT, overlapping the first as the tail does, so that their destination rows are aligned
/// to a whole tile row (see transpose_block).
/// Evenly spaced rows are addressed without tables: `d_step` (if not 0) is the spacing of
/// destination rows b, b+1, ... within a tile, `s_step` (if not 0) that of source rows a, a+1, ...
/// A tile then keeps its other side's T rows while it sweeps along this one. `prefetch` (with
/// d_step): each tile along A first asks for the next one's source lines of the slice. From
/// memory (the buffered path) that measured 1.04-1.08x on FLUX fp32 (16,16,256,256) and up to
/// 1.10x on the 16 MiB permutations at 1 thread (1.10-1.20x on FLUX fp32 at 2), none lower;
/// in cache (FLUX (1,16,128,128) in place) 0.88-0.95x, so the in-place path does not.
/// `ahead` (if not 0): each tile first asks for its source rows' lines that far (bytes) past the
/// ones it reads, instead of the next tile's; and in place, each slice (or group of tiles side
/// by side in B) asks for the destination lines of the next one (transpose_prefetch_distance).
/// `slice_bytes`: with d_step, the destination bytes of a slice of B (transpose_slice_bytes, or
/// more: in place in_place_slice_of, and where transpose_dense asks for a longer visit of each
/// source row).
/// `DEven`: d_step is never 0 (the streaming path's buffer), and only that way is compiled.
template <int E, bool DEven = false, class DRow>
inline void transpose_tiles(const char* s, const index_t* offA, index_t na, index_t b0, index_t b1, DRow drow,
                            index_t head = 0, index_t s_step = 0, index_t d_step = 0, bool prefetch = false,
                            index_t ahead = 0, index_t slice_bytes = transpose_slice_bytes) {
  constexpr int T = micro<E>::T;
  if (b1 - b0 < T || na < T) {
    // (row pointers held in locals: stores through char* may alias anything the compiler would
    // otherwise reload per element: 2276 -> 1148 instructions for a (1,16,4,4) FLUX pack)
    for (index_t b = b0; b < b1; ++b) {
      const char* const sb = s + b * E;
      char* const dr = drow(b);
      for (index_t a = 0; a < na; ++a) copy_elem<E>(sb + offA[a], dr + a * E);
    }
    return;
  }
  if constexpr (T > 1) {
    if (DEven || d_step != 0) {
      // Destination rows evenly spaced (FLUX pack's B, a transpose buffer): per tile along A,
      // its T source rows stay put while tiles sweep B, reading them in order. B goes in slices
      // whose destination (slice_bytes) stays in L1 until every A tile has written it.
      const index_t slice = tile_rows_in(slice_bytes, na * E, T);
      for (index_t bb = b0; bb < b1;) {
        const index_t be = b1 - bb < slice + T ? b1 : bb + slice;
        if (!DEven && ahead != 0)
          for (index_t b = be; b < std::min(b1, be + slice); ++b) prefetch_for_write(drow(b), na * E);
        for_tiles_a<T>(na, head, [&](index_t a) {
          const char* rows[T];
          LAZYVIEW_UNROLL
          for (int i = 0; i < T; ++i) rows[i] = s + offA[a + i];
          if (ahead != 0)
            for (int i = 0; i < T; ++i)
              for (index_t o = bb * E; o < be * E; o += 64) prefetch_line<prefetch_to::l2>(rows[i] + o + ahead);
          else if (prefetch && a + 2 * T <= na)
            for (int i = 0; i < T; ++i)
              for (index_t o = bb * E; o < be * E; o += 64) prefetch_line(s + offA[a + T + i] + o);
          if constexpr (T <= 4) {
            // Tiles of up to 4 rows (8-byte elements under AVX2; every tile under SSE2): whole
            // tiles by steps of the two offsets, then a last one moved back to end at be, where
            // each tile clamped its start and looked its destination row up, a larger share of
            // so small a tile's work. (d_step copied to a local: through the closure it was
            // reloaded after every store, which may alias it for all the compiler knows.) In
            // cache, 1 thread, 2-core Zen 4 VM, g++ 12 -O3, GB/s, medians of 9 to 15 alternated
            // runs: FLUX pack (1,16,128,128) fp32 -mavx2 49.9 -> 62.0, -msse2 24.3 -> 47.2,
            // bf16 -msse2 47.5 -> 53.9, (512,512).t() fp32 -msse2 13.1 -> 21; from memory,
            // FLUX pack fp32 (4,16,256,256) -mavx2 40.9 -> 48.5. The 8 rows of AVX2's 4-byte
            // tiles stay as they were: stepped, with eight source rows and the steps in
            // registers, FLUX pack bf16 (1,16,128,128) -mavx2 went 65.6 -> 60.5.
            const index_t ds = d_step;
            char* d0 = drow(bb) + a * E;
            const index_t s_end = (bb + (be - bb) / T * T) * E;
            for (index_t so = bb * E; so < s_end; so += T * E, d0 += T * ds)
              micro<E>::tile([&](int i) { return rows[i] + so; }, [&](int i) { return d0 + i * ds; });
            if ((be - bb) % T != 0) {
              char* const dl = drow(be - T) + a * E;
              const index_t sl = (be - T) * E;
              micro<E>::tile([&](int i) { return rows[i] + sl; }, [&](int i) { return dl + i * ds; });
            }
          } else {
            for (index_t bt = bb;; bt += T) {
              const index_t b = bt + T <= be ? bt : be - T;
              char* const d0 = drow(b) + a * E;
              const index_t so = b * E;
              micro<E>::tile([&](int i) { return rows[i] + so; }, [&](int i) { return d0 + i * d_step; });
              if (b + T >= be) break;
            }
          }
        });
        bb = be;
      }
      return;
    }
  }
  if constexpr (!DEven || T == 1) {
    // A tile row holds T * E bytes of a source row; G tiles side by side in B use a whole cache
    // line of each source row before the sweep over A moves to other rows (with power-of-two
    // strides between source rows, a line left half-used is evicted before its second half is
    // read). Per tile, only two offsets change (along the source rows, along the destination
    // rows): the destination row pointers are built once per G tiles of B, the source ones once
    // per T indices of A, or not at all where those are evenly spaced (FLUX unpack's A).
    // With `ahead` (far-apart source rows, each a stream of its own), G covers two lines of
    // each row per visit: fewer, longer bursts per row. Against one line, on a 2-core Zen 5 VM,
    // fp32, GB/s, medians of 5 alternated runs, 1 thread (2 in brackets):
    // (20,44,46,7,15).permute(2,3,1,4,0) 32.8 -> 35.7 (55.5 -> 65.4), (20,6,5,30,15,16).permute(
    // 0,5,3,4,1,2) 38.6 -> 42.9 (69.6 -> 77.1), (5,15,37,5,15,19).permute(3,1,5,0,4,2)
    // 38.3 -> 43.5 (69.8 -> 75.4), (86,59,45,18).permute(1,2,3,0) 31.8 -> 32.9 (60.3 -> 62.7),
    // (65,58,1119).permute(2,1,0) 29.6 -> 30.5 (56.5 -> 56.1, 7 runs). Against two lines, four
    // measured 0.82-1.04x, and two asked for 1024 bytes ahead 0.88-1.02x.
    constexpr int G1 = T * E >= 64 ? 1 : 64 / (T * E);
    const int G = ahead != 0 ? 2 * G1 : G1;
    const char* srows[T];
    for (index_t bg = b0; bg < b1; bg += G * T) {
      index_t bs[2 * G1];
      char* drows[2 * G1 * T];
      int ng = 0;
      for (index_t bt = bg; ng < G && bt < b1; bt += T, ++ng) {
        bs[ng] = bt + T <= b1 ? bt : b1 - T;
        LAZYVIEW_UNROLL
        for (int i = 0; i < T; ++i) drows[ng * T + i] = drow(bs[ng] + i);
      }
      if (ahead != 0)
        for (index_t b = bg + G * T; b < std::min(b1, bg + 2 * G * T); ++b) prefetch_for_write(drow(b), na * E);
      // rows_at(a): where source rows a, a+1, ... start, as a functor of i.
      auto sweep = [&](auto rows_at) {
        for_tiles_a<T>(na, head, [&](index_t a) {
          const auto rows = rows_at(a);
          if (ahead != 0)
            for (int i = 0; i < T; ++i)
              for (index_t o = 0; o < G * T * E; o += 64)
                prefetch_line<prefetch_to::l2>(rows(i) + bs[0] * E + o + ahead);
          for (int k = 0; k < ng; ++k) {
            const index_t so = bs[k] * E, dof = a * E;
            char* const* const dr = drows + k * T;
            micro<E>::tile([&](int i) { return rows(i) + so; }, [&](int i) { return dr[i] + dof; });
          }
        });
      };
      if (T > 1 && s_step != 0)
        sweep([&](index_t a) {
          const char* const s0 = s + offA[a];
          return [s0, s_step](int i) { return s0 + i * s_step; };
        });
      else
        sweep([&](index_t a) {
          LAZYVIEW_UNROLL
          for (int i = 0; i < T; ++i) srows[i] = s + offA[a + i];
          return [&srows](int i) { return srows[i]; };
        });
    }
  }
}

/// The buffered way of transpose_block for source rows close together (large or scattered
/// destinations; far-apart rows: transpose_stream_lines): per block of transpose_block_b
/// rows of B, tiles land in a small aligned buffer laid out like the destination, whose rows then
/// go out whole by streaming stores. Writing a row at a time keeps one or two lines in flight,
/// where tiles written in place keep T partial lines open per tile; and it keeps the destination
/// rows (a power-of-two apart in a square transpose) out of the cache sets the source rows need.
template <int E>
void transpose_buffered(const char* s, char* dcol, const index_t* offA, const index_t* offB,
                        index_t na, index_t b_begin, index_t b_end, index_t ahead) {
  constexpr int T = micro<E>::T;
  constexpr index_t buf_row = transpose_block_bytes;
  static_assert(T * E <= transpose_block_bytes);
  alignas(64) char buf[(transpose_block_b + T) * buf_row];
  // Each row out is whole cache lines at a line start (use_streaming_stores saw to it).
  const index_t row_bytes = na * E;
  for (index_t b0 = b_begin; b0 < b_end;) {
    // A last block shorter than a tile joins the one before it.
    const index_t b1 = b_end - b0 < transpose_block_b + T ? b_end : b0 + transpose_block_b;
    transpose_tiles<E, true>(s, offA, na, b0, b1, [&](index_t b) { return buf + (b - b0) * buf_row; }, 0, 0,
                             buf_row, true, ahead);
    for (index_t b = b0; b < b1; ++b) copy_nt_blocks(buf + (b - b0) * buf_row, dcol + offB[b], row_bytes);
    b0 = b1;
  }
}

/// transpose_stream_lines with source row a at s + row(a) (a table or a progression). Every
/// argument by value: stores through char* may alias whatever a reference would reach, and
/// in a lambda over references the compiler reloaded na and ahead, and kept its counters on
/// the stack, per line.
template <int E, class Row>
void stream_lines_rows(const char* s, char* dcol, const index_t* offB, index_t na, index_t b_begin, index_t b_end,
                       index_t ahead, Row row, unit_requests<E>& req) {
  constexpr int T = micro<E>::T, L = 64 / E, G = L / T;  // L: elements per line
  static_assert(T > 1 && L % T == 0);
  const index_t nb = b_end - b_begin;
  // A last step short of T rows moves back to end at b_end, as transpose_tiles' last tile does:
  // it writes again up to T - 1 rows the step before wrote (the same values, the same unit).
  // Element by element, such a step ran (4,19,19,9,16,13).permute(2,5,1,0,3,4) fp32 (rows of B
  // 13 long: 5 of every 13 moved one at a time) at 13-15 GB/s streamed on 2 threads (Zen 3
  // VM), where 16 long (no short step) ran at 31-34.
  // Rows of more than a block and at most row_step_bytes whose neighbours in B lie back to back
  // in the destination (FLUX unpack: the two rows of a pixel pair, 512 bytes or 1 KiB each) go
  // out whole, a step's T rows at a time from a buffer, so that the destination is written in
  // runs of two rows rather than a line of each of T rows in turn. On the 2-core Zen 3 VM
  // (AVX2), GB/s counting bytes read and written, 3 medians of 21 copies per process, two
  // processes each, a line at a time -> whole rows: FLUX unpack bf16 (4,16,256,256) 1 thread
  // 8.6-9.2 -> 17.0-18.4, 2 threads 16.7-19.3 -> 31.0-35.9; fp32 (2,16,256,256) 1 thread
  // 12.8-13.4 -> 17.1-19.7. Rows far apart lost that way on two threads
  // ((6,19,19,9,16,13).permute(2,5,1,0,3,4), rows of 576 bytes 65 KiB apart: 19.7-24.7 ->
  // 16.9-21.8, 9 runs each), and keep the line at a time.
  constexpr index_t row_step_bytes = 1024;
  if (nb >= T && na * E > transpose_block_bytes && na * E <= row_step_bytes &&
      offB[b_begin + 1] - offB[b_begin] == na * E) {
    alignas(64) char rows_buf[T * row_step_bytes];
    for (index_t b = b_begin, step = 0; b < b_end; b += T, ++step) {
      if (b + T > b_end) b = b_end - T;
      req.ask(step);
      const char* const sb = s + b * E;
      for (index_t a = 0; a < na; a += L) {
        if (ahead != 0)
          for (int j = 0; j < L; ++j) prefetch_line<prefetch_to::l2>(sb + row(a + j) + ahead);
        for (int g = 0; g < G; ++g) {
          char* const out = rows_buf + (a + g * T) * E;
          micro<E>::tile([&](int i) { return sb + row(a + g * T + i); }, [&](int i) { return out + i * row_step_bytes; });
        }
      }
      for (int i = 0; i < T; ++i) copy_nt_blocks(rows_buf + i * row_step_bytes, dcol + offB[b + i], na * E);
    }
    return;
  }
  for (index_t b = b_begin, step = 0; nb >= T && b < b_end; b += T, ++step) {
    if (b + T > b_end) b = b_end - T;
    req.ask(step);
    const char* const sb = s + b * E;
    char* drows[T];
    LAZYVIEW_UNROLL
    for (int i = 0; i < T; ++i) drows[i] = dcol + offB[b + i];
    for (index_t a = 0; a < na; a += L) {
      // A buffer whose life ends with the line: the compiler keeps the tiles in registers and
      // stores nothing to it (one that outlived the loop kept some of its stores).
      alignas(64) char buf[T * 64];
      if (ahead != 0)
        for (int j = 0; j < L; ++j) prefetch_line<prefetch_to::l2>(sb + row(a + j) + ahead);
      for (int g = 0; g < G; ++g) {
        char* const out = buf + g * T * E;
        micro<E>::tile([&](int i) { return sb + row(a + g * T + i); }, [&](int i) { return out + i * 64; });
      }
      for (int i = 0; i < T; ++i) copy_nt_blocks(buf + i * 64, drows[i] + a * E, 64);
    }
  }
  // fewer than T rows in all: element by element into the buffer
  // (i < T - 1 too: g++ cannot see that rows < T, and warns of writes past buf)
  if (nb >= T) return;
  const index_t b = b_begin;
  const int rows = static_cast<int>(nb);
  if (rows > 0) req.ask(0);
  alignas(64) char buf[T * 64];
  for (index_t a = 0; rows > 0 && a < na; a += L) {
    for (int j = 0; j < L; ++j)
      for (int i = 0; i < rows && i < T - 1; ++i) copy_elem<E>(s + (b + i) * E + row(a + j), buf + i * 64 + j * E);
    for (int i = 0; i < rows && i < T - 1; ++i) copy_nt_blocks(buf + i * 64, dcol + offB[b + i] + a * E, 64);
  }
}

/// The streamed way of transpose_block where source rows lie far apart (far_source_rows) or a
/// unit takes A whole past transpose_block_bytes (whole_stream_rows): per T rows of B, the G
/// tiles that make one line of each destination row land in a line-wide buffer, and the T
/// lines go out by streaming stores, each whole and at once (rows of up to 1 KiB that lie back
/// to back in B: the step's T rows gathered whole, each then streamed in one go; see
/// stream_lines_rows). A last step short of T rows moves back to end at b_end; a unit of fewer than T rows moves its elements
/// one at a time. `ahead` (if not 0): each step asks for its
/// source rows' lines that far (bytes) past the ones it reads (see transpose_prefetch_distance).
/// Each step reads a piece of every source row of the unit, so a unit's rows (each a stream of
/// its own) all have misses in flight at once, where transpose_buffered reads T of them a
/// whole block of B at a time. On a 2-core Zen 3 VM (AVX2), fp32, GB/s, medians of 5
/// alternated runs of bench/, 1 thread (2 in brackets), transpose_buffered -> this:
/// (4096,4096).t() 7.3 -> 11.6 (12.8 -> 19.6), (112,45,8,104).permute(3,2,1,0) 11.2 -> 19.6
/// (21.0 -> 25.8), FLUX pack (4,16,256,256) 17.5 -> 27.2 (33.6 -> 45.9). Source rows close
/// together are one stream that transpose_buffered reads in order: this way lost there in units
/// of 128 bytes of each destination row (FLUX unpack (4,16,256,256), rows 256 bytes apart,
/// 11.1 -> 8.1; (37,30,8,12,39).permute(4,0,1,2,3), 156 bytes, 15.4 -> 10.5), and wins where a
/// unit writes its rows whole (whole_stream_rows, eval/stream_units.hpp). Tiles streaming
/// their half lines straight from registers ran
/// (4096,4096).t() at 12 GB/s against 14-15 this way, but for seconds at a time fell to 4.8 (a
/// line left half-written is flushed in part), where this way never went under 12 in 24 runs.
/// `s_step` (if not 0): source rows evenly spaced, offA[a] = offA[0] + a * s_step. `next`: see
/// unit_requests.
/// @pre na a multiple of 64 / E; every destination row 64-byte aligned (use_streaming_stores
/// sees to both).
template <int E>
void transpose_stream_lines(const char* s, char* dcol, const index_t* offA, const index_t* offB, index_t na,
                            index_t b_begin, index_t b_end, index_t ahead, index_t s_step = 0,
                            const unit_source& next = {}) {
  unit_requests<E> req(next, offA, (b_end - b_begin + micro<E>::T - 1) / micro<E>::T);
  // With s_step, row offsets computed: the table lives on the stack (engine_setup), and its
  // loads, each after streaming stores whose addresses can match its own in their low 12 bits,
  // waited on them: with the table at one in four 128-byte offsets of every 1 KiB, FLUX unpack
  // (4,16,256,256) fp32 (destination rows of 1 KiB) ran at 7-11 GB/s against 15-21 elsewhere
  // (Zen 3 VM).
  if (s_step != 0)
    stream_lines_rows<E>(s, dcol, offB, na, b_begin, b_end, ahead,
                         [s_step, first = offA[0]](index_t a) { return first + a * s_step; }, req);
  else
    stream_lines_rows<E>(s, dcol, offB, na, b_begin, b_end, ahead, [offA](index_t a) { return offA[a]; }, req);
}

/// Where the tiles after the first start along A so that their rows land on whole W-byte
/// boundaries of the destination (the `head` of transpose_tiles): row0 is the destination row of
/// the unit's first B index at its first A index; every row shares its misalignment when each
/// member of B moves the destination by a multiple of W. 0 (no shift) where rows differ, are
/// aligned already, or are misaligned by part of an element.
/// Example: E = 4, W = 32, row0 at 16 mod 32: 4 (tiles at 0, 4, 12, 20, ...).
inline index_t aligned_head(const engine_plan& p, const char* row0, index_t E, index_t W) {
  for (int k = 0; k < p.nb; ++k)
    if (p.gb[k].ds % W != 0) return 0;
  const auto mis = static_cast<index_t>(reinterpret_cast<std::uintptr_t>(row0) % static_cast<std::uintptr_t>(W));
  return mis % E == 0 && mis != 0 ? (W - mis) / E : 0;
}

/// Whether a transpose's destination rows start at different offsets into a line, all whole
/// dwords from a line: some member of B moves the destination by part of a line, and row0 (the
/// unit's first row) and every member by multiples of 4 bytes (joined_rows_step).
/// Example: FLUX unpack fp32 (1,16,72,72), B (2,16):(8,16):(288,20736): yes (rows at 0 and 32).
inline bool rows_offsets_differ(const engine_plan& p, const char* row0) {
  if (reinterpret_cast<std::uintptr_t>(row0) % 4 != 0) return false;
  bool differ = false;
  for (int k = 0; k < p.nb; ++k) {
    if (p.gb[k].ds % 4 != 0) return false;
    differ = differ || (p.gb[k].n > 1 && p.gb[k].ds % 64 != 0);
  }
  return differ;
}

/// Runs [first, last) of a run plan whose units are whole runs (run_pieces 1), from s and d at
/// run `first` (idx: its outer indices): the innermost outer loop's runs one after another in a
/// loop of their own, the loops above stepped once a row. nt: by copy_nt (head: its boundary),
/// else by memcpy, asking `ahead` bytes on for the lines it will write (run_prefetch_distance);
/// `whole`: nt, and every run starts and ends on a `head` boundary, so each streams whole as copy_nt
/// would stream it, without its call and its head and tail (60 of its instructions a 128-byte run).
/// Example: 128-byte runs, outer loops (2048,64):(128,256 Ki):(8 Ki,128): 2048 rows of 64 runs,
/// 256 KiB apart in the source and back to back in the destination.
// Through run_engine's loop of units, each run also paid the switch on the plan's kind, the piece
// cuts and an odometer step: callgrind, (16,8192,32).permute(1,0,2) fp32 streamed in destination
// order, 124 instructions a 128-byte run, where a plain loop of copy_nt calls took 60, and ran at
// about half its pace (15 against 30 GB/s, 1 thread, 2-core Zen 3 VM).
inline void run_rows(const engine_plan& p, const char* s, char* d, index_t* idx, index_t first, index_t last,
                     index_t ahead, index_t head, bool whole) {
  const index_t R = p.run_bytes;
  const int m = p.nouter - 1;
  const byte_loop in = p.outer[m];
  for (index_t u = first;;) {
    const index_t i0 = idx[m], count = std::min(in.n - i0, last - u);
    const char* rs = s;
    char* rd = d;
    if (whole) {
      for (index_t i = 0; i < count; ++i, rs += in.ss, rd += in.ds) copy_nt_whole(rs, rd, R);
    } else if (p.nt) {
      for (index_t i = 0; i < count; ++i, rs += in.ss, rd += in.ds) copy_nt(rs, rd, R, head);
    } else {
      for (index_t i = 0; i < count; ++i, rs += in.ss, rd += in.ds) {
        if (ahead != 0) prefetch_for_write(rd + ahead, R);
        std::memcpy(rd, rs, static_cast<std::size_t>(R));
      }
    }
    u += count;
    if (u >= last) return;
    s -= i0 * in.ss;  // back to the row's start, then the loops above one step on
    d -= i0 * in.ds;
    idx[m] = 0;
    odometer_step(p.outer, m, idx, s, d);
  }
}

/// Runs [first, last) of a gathered run plan (engine_plan::gather, outer loops in destination
/// order with the runs back to back there), from s and d at run `first`, through a line_writer.
/// Each run first asks for the source lines of the run about gather_ahead_bytes on, since the
/// runs come from as many source streams as the loops inside the source's innermost make, more
/// than the hardware prefetchers follow.
/// Example: (187,258,87).permute(1,0,2) fp32: runs of 348 bytes, 187 source rows apart in turn;
/// a run 24 on is asked for.
inline void gather_runs(const engine_plan& p, const char* s, char* d, const index_t* idx_first, index_t first,
                        index_t last) {
  const index_t R = p.run_bytes;
  index_t idx[max_loops], ida[max_loops];
  std::copy(idx_first, idx_first + p.nouter, idx);
  std::copy(idx_first, idx_first + p.nouter, ida);
  const index_t ahead = std::min(last - first, (gather_ahead_bytes + R - 1) / R);
  const char* sa = s;
  char* da = d;
  for (index_t k = 0; k < ahead; ++k) odometer_step(p.outer, p.nouter, ida, sa, da);
  line_writer<> w(d);
  for (index_t u = first; u < last; ++u) {
    if (u + ahead < last) {
      for (index_t o = 0; o < R; o += 64) prefetch_line(sa + o);
      prefetch_line(sa + R - 1);
      odometer_step(p.outer, p.nouter, ida, sa, da);
    }
    std::memcpy(w.at(), s, static_cast<std::size_t>(R));
    w.wrote(R);
    odometer_step(p.outer, p.nouter, idx, s, d);
  }
  w.finish();
}

/// One work unit of a transpose: A indices [a_begin, a_end) (see split_group_a), B indices
/// [b_begin, b_end). offA, offB: the offsets of every index of A (source side) and of B
/// (destination side), from group_offsets. NT: the plan streams, through a buffer
/// (transpose_stream_lines where source rows lie far apart or a unit takes more of A than
/// transpose_block_bytes, see whole_stream_rows; else transpose_buffered);
/// otherwise tiles land in place. `ahead`: see transpose_tiles. `next` (if its s is set): the
/// unit after this one, whose source lines transpose_stream_lines asks for (unit_requests).
template <int E, bool NT>
void transpose_block(const engine_plan& p, const char* s, char* d, const index_t* offA_all, const index_t* offB,
                     index_t a_begin, index_t a_end, index_t b_begin, index_t b_end, index_t ahead = 0,
                     const unit_source& next = {}) {
  const index_t na = a_end - a_begin;
  const index_t* const offA = offA_all + a_begin;
  char* const dcol = d + a_begin * E;
  // A transpose is buffered exactly when it streams (engine_plan::nt), so each instantiation
  // compiles one of the two ways: the other would be dead code, and compile time.
  if constexpr (!NT) {
    // A destination at 16 mod 64 (a std::vector of 1 MiB, from glibc) split every other 32-byte
    // tile-row store across two lines: FLUX pack (1,16,128,128) fp32 ran at 0.47-0.50 of memcpy
    // against 0.67-0.73 aligned. Where every row of B shares one alignment, the tiles after the
    // first are shifted to whole tile rows.
    index_t head = 0;
    constexpr index_t W = index_t{micro<E>::T} * E;
    if constexpr (micro<E>::T > 1 && W >= 16 && W <= 64) head = aligned_head(p, dcol + offB[b_begin], E, W);
    // Far-apart source rows past the caches (ahead != 0) sweep A per tile row of B even where
    // destination rows are evenly spaced: many rows' misses in flight at once (as in
    // transpose_stream_lines). On a 2-core Zen 3 VM, fp32, GB/s, medians of 7 alternated runs
    // of bench/, 1 thread (2 in brackets): (394,69,154).permute(1,2,0) 7.4 -> 11.8
    // (15.2 -> 21.0), (86,59,45,18).permute(1,2,3,0) 8.9 -> 12.5 (18.5 -> 24.5),
    // (65,58,1119).permute(2,1,0) 10.4 -> 10.2 (18.1 -> 21.5).
    const index_t d_step = p.nb == 1 && ahead == 0 ? p.gb[0].ds : 0;
    transpose_tiles<E>(s, offA, na, b_begin, b_end, [&](index_t b) { return dcol + offB[b]; }, head,
                       p.na == 1 ? p.ga[0].ss : 0, d_step, false, ahead, in_place_slice_of(d_step, na * E));
  } else {
    if constexpr (stream_lines_fit(E)) {
      if (far_source_rows(p) || na * E > transpose_block_bytes) {  // (see whole_stream_rows)
        // Rows one step apart go by that step where close (see transpose_stream_lines); far
        // apart they kept the table: computed, (4096,4096).t() fp32 went 11.0-11.6 -> 9.9-10.4
        // GB/s and (112,45,8,104).permute(3,2,1,0) 20.0-21.7 -> 16.1-16.2 at 1 thread (two
        // series of medians of 3-4 alternated runs of bench/, Zen 3 VM).
        // (next's A indices shifted to index offA, which starts at a_begin)
        const unit_source next_here{next.s, next.a0 - a_begin, next.a1 - a_begin, next.b0, next.b1};
        transpose_stream_lines<E>(s, dcol, offA, offB, na, b_begin, b_end, ahead,
                                  p.na == 1 && !far_source_rows(p) ? p.ga[0].ss : 0, next_here);
        return;
      }
    }
    transpose_buffered<E>(s, dcol, offA, offB, na, b_begin, b_end, ahead);
  }
}

}  // namespace kernels

}  // namespace lazyview
