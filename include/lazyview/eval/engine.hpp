#pragma once
// The engine: a plain copy_plan turned into bytes and specialised.
//   1. The run contiguous on both sides becomes one wide element (FLUX pack: 2 fp32 = 8 bytes;
//      an odd run under 64 bytes is one element too); a run over 256 bytes stays a memcpy per
//      outer iteration.
//   2. If the unit-stride loops of the two sides differ, the plan is a batched 2-D transpose:
//      group A (contiguous in the destination, up to 64 elements) and group B (contiguous in the
//      source, up to 1024) are grown, and tiles of T x T wide elements move through registers
//      (kernels/micro). Rows of a tile are addressed through offset tables, so a group may
//      combine dims with unrelated strides on its other side. Large destinations go through a
//      buffer and out by streaming stores.
//   3. Otherwise a strided loop of wide elements.
// Work units (outer iterations, times blocks of A and chunks of B for transposes) are split over
// threads in balanced ranges.
#include <cstdint>
#include <cstring>

#include "kernels.hpp"
#include "microkernels.hpp"

namespace lazyview {

/// A loop in bytes.
/// No default member initialisers: a plan has room for 96 of them and uses a few (only
/// [0, nouter), [0, na) and [0, nb) are read), so initialising all was a cost of every copy.
struct byte_loop {
  index_t n, ss, ds;
};

/// The specialised plan.
struct engine_plan {
  enum kind_t { run, transpose, strided } kind = run;
  int elem = 1;            ///< bytes per (wide) element
  index_t run_bytes = 0;   ///< kind run: contiguous bytes per outer iteration
  int nouter = 0;
  byte_loop outer[max_loops];  ///< outermost first
  int na = 0, nb = 0;
  byte_loop ga[max_loops], gb[max_loops];  ///< transpose groups, innermost member first
  index_t nA = 1, nB = 1;
  byte_loop inner{1, 0, 0};   ///< kind strided: innermost loop
  byte_loop inner2{1, 0, 0};  ///< kind strided: the loop around it (n = 1 if none)
  index_t src_off = 0, dst_off = 0;
  bool nt = false;         ///< streaming stores (set by use_streaming_stores); a transpose
                           ///< that streams goes through a buffer, rows out whole
  index_t block_a = 1;     ///< kind transpose: A indices per work unit
  index_t blocks_a = 1;    ///< kind transpose: blocks of group A
  index_t block_b = 1;     ///< kind transpose: B indices per work unit (the last takes the rest)
  index_t blocks_b = 1;    ///< kind transpose: chunks of B; blocks_a * blocks_b units per outer

  index_t outer_count() const {
    index_t n = 1;
    for (int k = 0; k < nouter; ++k) n *= outer[k].n;
    return n;
  }
  index_t work_units() const { return outer_count() * (kind == transpose ? blocks_a * blocks_b : 1); }
};

namespace kernels {

/// Tile size of the micro-kernel for E-byte elements on this target.
constexpr int tile_of(int E) {
  switch (E) {
    case 1: return micro<1>::T;
    case 2: return micro<2>::T;
    case 4: return micro<4>::T;
    case 8: return micro<8>::T;
    case 16: return micro<16>::T;
    case 32: return micro<32>::T;
    case 64: return micro<64>::T;
    default: return 1;
  }
}

}  // namespace kernels

/// Growth targets of the transpose groups (elements). A longer B only lengthens the sweep of a
/// work unit; a longer A mixes source rows of unrelated strides into one block, which measured
/// slower ((6,19,19,9,16,13).permute(2,5,1,0,3,4): 0.88 of memcpy at A = 144, 0.74 grown to
/// 16416), while B grown from 19 to 1425 took (5,15,37,5,15,19).permute(3,1,5,0,4,2) from
/// 0.65 to 0.80. An A of 42 in (23,21,5,42,44).permute(2,4,0,1,3) stays 42 at a target of 32
/// (0.77-0.79 of memcpy, 3 interleaved runs) where 64 grew it to 882 (0.70-0.71); of the other
/// 19 benchmark permutations and the FLUX chains, only (37,30,8,12,39).permute(4,0,1,2,3)
/// changes plan between 32 and 64, and it measured the same.
inline constexpr index_t transpose_group_target_a = 32;
inline constexpr index_t transpose_group_target_b = 1024;
/// A transpose work unit covers about this many bytes of each destination row: in place, long
/// runs per destination row against as many source rows read at once (measured best at 512 to
/// 1024 bytes); buffered, two cache lines per row and transpose_block_b rows per block (the best
/// of 16 to 256 in each, measured on a 4096x4096 fp32 transpose).
inline constexpr index_t transpose_direct_bytes = 1024;
inline constexpr index_t transpose_block_bytes = 128;
inline constexpr index_t transpose_block_b = 32;
/// Where destination rows are evenly spaced, tiles sweep B in slices of about this many
/// destination bytes (FLUX pack, 1 thread, against the table-driven sweep: 1.03-1.10x at 4096,
/// 0.93-1.11x at 16384, mixed at 2048 and 8192).
inline constexpr index_t transpose_slice_bytes = 4096;
/// B is cut into chunks of this many indices (at least), so that a transpose with few outer
/// iterations and a narrow A still splits over threads (the order of blocks and chunks: see
/// run_engine).
inline constexpr index_t transpose_chunk_b = 256;

constexpr bool is_pow2_upto64(index_t b) { return b == 1 || b == 2 || b == 4 || b == 8 || b == 16 || b == 32 || b == 64; }

/// Splits group A into blocks of about `bytes` of destination row each, of equal width (a
/// multiple of `unit` elements, the tile unless given), at least one unit wide; e.g. nA = 394
/// fp32 at 1024 bytes: 2 blocks of 200, the last 194 wide.
/// @pre unit is a multiple of the tile and divides bytes / e.elem where that is over one unit.
/// @post block_a * (blocks_a - 1) < nA <= block_a * blocks_a, and block_a <= max(unit, bytes / elem).
inline void split_group_a(engine_plan& e, index_t bytes, index_t unit = 0) {
  const index_t T = unit > 0 ? unit : kernels::tile_of(e.elem);
  const index_t per = std::max<index_t>(T, bytes / e.elem);
  const index_t blocks = std::max<index_t>(1, (e.nA + per - 1) / per);
  e.block_a = ((e.nA + blocks - 1) / blocks + T - 1) / T * T;
  e.blocks_a = (e.nA + e.block_a - 1) / e.block_a;
}

/// Runs open on the strided side of a run copy whose outer loops go in `order`, outermost
/// first (`by_dst`: the destination is the sequential side): the loops inside the innermost one
/// that continues a run contiguously on the strided side, each run there a stream of its own.
/// Example: (187,258,87).permute(1,0,2) in fp32, runs of 348 bytes: 187 streams gathered in
/// destination order, 258 scattered in source order.
inline index_t open_runs(const byte_loop* order, int n, index_t run_bytes, bool by_dst) {
  index_t streams = 1;
  for (int k = n - 1; k >= 0; --k) {
    const index_t st = by_dst ? order[k].ss : order[k].ds;
    if ((st < 0 ? -st : st) == run_bytes) break;
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
/// @post e.outer is in source order unless that opens over 4x the runs of destination order.
inline void order_runs(engine_plan& e) {
  const int n = e.nouter;
  byte_loop by_src[max_loops];
  for (int i = 0; i < n; ++i) by_src[i] = e.outer[i];
  sort_by_decreasing_stride(by_src, n, [](const byte_loop& l) { return l.ss; });
  if (open_runs(by_src, n, e.run_bytes, false) > 4 * open_runs(e.outer, n, e.run_bytes, true)) return;
  for (int i = 0; i < n; ++i) e.outer[i] = by_src[i];
}

/// Specialises a plain plan for elements of `size` bytes.
/// Example: FLUX pack fp32 (1,16,128,128): wide element 8 bytes; A = (ph, c) (32 elements,
/// contiguous in the destination), B = (iw) (64, contiguous in the source); outer = (ih).
inline engine_plan make_engine_plan(const copy_plan& p, index_t size) {
  engine_plan e;
  e.src_off = p.src_offset * size;
  e.dst_off = p.dst_offset * size;
  byte_loop l[max_loops];
  int n = p.nloops;
  for (int k = 0; k < n; ++k) l[k] = {p.loops[k].n, p.loops[k].ss * size, p.loops[k].ds * size};
  index_t E = size;
  if (n > 0 && l[n - 1].ss == E && l[n - 1].ds == E) {
    const index_t R = l[n - 1].n * E;
    --n;
    if (is_pow2_upto64(R)) {
      E = R;
    } else if (R < 64) {
      // A short run of odd length (the agents chain: 6 floats, 24 bytes) is one element, moved by
      // two overlapping power-of-two moves (kernels::copy_odd).
      E = R;
    } else if (R <= 256) {
      // A longer one is a loop of the widest power-of-two element that divides it.
      index_t W = 64;
      while (R % W) W /= 2;
      l[n++] = {R / W, W, W};
      E = W;
    } else {
      e.kind = engine_plan::run;
      e.run_bytes = R;
      e.nouter = n;
      for (int k = 0; k < n; ++k) e.outer[k] = l[k];
      order_runs(e);
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
    // eight at once measured best (160 x 56 bytes: 0.80, against 0.64 at 16 and 0.47 at 256).
    if (kernels::tile_of(e.elem) > 1)
      split_group_a(e, transpose_direct_bytes);
    else
      split_group_a(e, e.nA <= 32 ? e.nA * E : 8 * E);
    e.block_b = transpose_chunk_b;
    e.blocks_b = std::max<index_t>(1, e.nB / transpose_chunk_b);
    return e;
  }
  e.kind = engine_plan::strided;
  // Inner loop: unit stride in the destination (else in the source). Around it, the loop of unit
  // stride in the source if there is another: elements too wide or odd for a tile (56 bytes in
  // (4,40,20,4,20,14).permute(2,3,4,0,1,5)) then still read each source line once, as a
  // transpose of whole elements.
  const int in = a0 >= 0 ? a0 : (b0 >= 0 ? b0 : n - 1);
  const int in2 = b0 >= 0 && b0 != in ? b0 : -1;
#if defined(__GNUC__)
  if (in < 0 || in >= n) __builtin_unreachable();  // n > 0 here; says so to g++'s flow analysis
#endif
  e.inner = l[in];
  for (int k = 0; k < n; ++k)
    if (k != in && k != in2) e.outer[e.nouter++] = l[k];
  if (in2 >= 0)
    e.inner2 = l[in2];
  else if (e.nouter > 0)
    e.inner2 = e.outer[--e.nouter];
  return e;
}

/// Streaming stores pay once the destination outgrows the caches. A transpose whose work units
/// both read and write in pieces (neither side of a unit one dense stretch: see
/// scattered_transpose) streams from scattered_streaming_threshold: in place its tiles keep T
/// partial lines open on as many far-apart rows while reading as many far-apart source rows,
/// and such fp32 transposes of 2 to 16 MiB ((512,1024).t(), (1024,1024).t(),
/// (24,40,1024).permute(2,1,0), (112,45,8,104).permute(3,2,1,0), ...) ran at 0.45-0.57 of memcpy
/// in place against 0.80-1.00 streamed (9 shuffled runs, medians; at 1 MiB, still in cache, the
/// same either way). Where one side of a unit is dense, in place holds up and keeps its output
/// in cache: (6,19,19,9,16,13).permute(2,5,1,0,3,4), reading 7.5 KiB at a time, 0.97 in place
/// against 0.86 streamed; bf16 FLUX at 8 MiB, writing in order, lost 3-7% streamed. Those, and
/// long runs, stream from streaming_threshold.
#ifndef LAZYVIEW_STREAMING_THRESHOLD
#define LAZYVIEW_STREAMING_THRESHOLD (index_t{16} << 20)
#endif
#ifndef LAZYVIEW_SCATTERED_STREAMING_THRESHOLD
#define LAZYVIEW_SCATTERED_STREAMING_THRESHOLD (index_t{2} << 20)
#endif
inline constexpr index_t streaming_threshold = LAZYVIEW_STREAMING_THRESHOLD;
inline constexpr index_t scattered_streaming_threshold = LAZYVIEW_SCATTERED_STREAMING_THRESHOLD;

/// Whether a transpose's work unit writes one dense stretch of destination: A is one block and
/// rows of consecutive B indices are adjacent (written back to back).
inline bool dst_dense_units(const engine_plan& e) { return e.blocks_a == 1 && e.gb[0].ds == e.nA * e.elem; }

/// Whether neither side of a transpose's work unit is one dense stretch: its destination is
/// dense as in dst_dense_units, its source when B is one chunk and source rows of consecutive A
/// indices are adjacent.
/// Examples: (1024,1024).t() fp32 (A in 4 blocks, B in 4 chunks): scattered. FLUX pack (A = 32
/// wide elements whole, B rows 256 bytes apart): not. (6,19,19,9,16,13).permute(2,5,1,0,3,4)
/// (B = 13 whole, A rows 52 bytes apart in the source): not.
inline bool scattered_transpose(const engine_plan& e) {
  if (e.kind != engine_plan::transpose) return false;
  const bool src_dense = e.blocks_b == 1 && e.ga[0].ss == e.nB * e.elem;
  return !dst_dense_units(e) && !src_dense;
}

/// Long runs stream when they start 32-byte aligned (copy_nt stores any head and tail plainly).
/// Transposes stream through a buffer whose rows leave in whole cache lines: each destination
/// row starts on a line, covers whole lines, and A splits into blocks of whole lines. A
/// streaming store to part of a line costs a read of that line: (48,45,8,104).permute(3,2,1,0)
/// fp32 in blocks of 96 bytes ran at 0.29 of memcpy streamed, against 0.57 in place.
inline void use_streaming_stores(engine_plan& e, const void* dst, index_t dst_bytes) {
  if (!kernels::have_nt || dst_bytes < (scattered_transpose(e) ? scattered_streaming_threshold : streaming_threshold))
    return;
  const index_t align = e.kind == engine_plan::transpose ? 64 : 32;
  const auto base = reinterpret_cast<std::uintptr_t>(dst) + static_cast<std::uintptr_t>(e.dst_off);
  if (base % static_cast<std::uintptr_t>(align)) return;
  for (int k = 0; k < e.nouter; ++k)
    if (e.outer[k].ds % align) return;
  if (e.kind == engine_plan::run) {
    e.nt = e.run_bytes >= 256;
  } else if (e.kind == engine_plan::transpose) {
    if (e.elem > 8 || kernels::tile_of(e.elem) == 1 || (e.nA * e.elem) % 64) return;
    for (int k = 0; k < e.nb; ++k)
      if (e.gb[k].ds % 64) return;
    e.nt = true;
    split_group_a(e, transpose_block_bytes, std::max<index_t>(kernels::tile_of(e.elem), 64 / e.elem));
  }
}

namespace kernels {

/// Offsets (bytes, on one side) of every index of a group, members innermost first: the table
/// for the first k members, repeated once per further index of member k, each copy shifted by
/// its stride. A few instructions per entry, where an odometer over the members took about 25
/// (850 of the 7000 instructions of a dynamic (1,16,4,4) FLUX pack).
/// Example: members of sizes 2 and 3 with source strides 12 and 4 bytes: 0, 12, 4, 16, 8, 20.
/// @post out holds the product of the members' sizes entries.
inline void group_offsets(const byte_loop* g, int ng, bool src_side, index_t* out) {
  out[0] = 0;
  index_t count = 1;
  for (int m = 0; m < ng; ++m) {
    const index_t st = src_side ? g[m].ss : g[m].ds;
    const index_t next = count * g[m].n;
    for (index_t i = count; i < next; ++i) out[i] = out[i - count] + st;
    count = next;
  }
}

/// Asks for the cache line at p ahead of its first load.
inline void prefetch_line(const char* p) {
#if defined(__GNUC__)
  __builtin_prefetch(p, 0, 3);
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

/// Calls f(a) for the first index of each tile along A, in order: 0, then head (if any) and on by
/// T, the last moved back to end at na. @pre na >= T.
template <int T, class F>
inline void for_tiles_a(index_t na, index_t head, F&& f) {
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
/// `DEven`: d_step is never 0 (the streaming path's buffer), and only that way is compiled.
template <int E, bool DEven = false, class DRow>
inline void transpose_tiles(const char* s, const index_t* offA, index_t na, index_t b0, index_t b1, DRow drow,
                            index_t head = 0, index_t s_step = 0, index_t d_step = 0, bool prefetch = false) {
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
      // whose destination (transpose_slice_bytes) stays in L1 until every A tile has written it.
      const index_t slice = std::max<index_t>(T, transpose_slice_bytes / (na * E) / T * T);
      for (index_t bb = b0; bb < b1;) {
        const index_t be = b1 - bb < slice + T ? b1 : bb + slice;
        for_tiles_a<T>(na, head, [&](index_t a) {
          const char* rows[T];
          for (int i = 0; i < T; ++i) rows[i] = s + offA[a + i];
          if (prefetch && a + 2 * T <= na)
            for (int i = 0; i < T; ++i)
              for (index_t o = bb * E; o < be * E; o += 64) prefetch_line(s + offA[a + T + i] + o);
          for (index_t bt = bb;; bt += T) {
            const index_t b = bt + T <= be ? bt : be - T;
            char* const d0 = drow(b) + a * E;
            const index_t so = b * E;
            micro<E>::tile([&](int i) { return rows[i] + so; }, [&](int i) { return d0 + i * d_step; });
            if (b + T >= be) break;
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
    constexpr int G = T * E >= 64 ? 1 : 64 / (T * E);
    const char* srows[T];
    for (index_t bg = b0; bg < b1; bg += G * T) {
      index_t bs[G];
      char* drows[G * T];
      int ng = 0;
      for (index_t bt = bg; ng < G && bt < b1; bt += T, ++ng) {
        bs[ng] = bt + T <= b1 ? bt : b1 - T;
        for (int i = 0; i < T; ++i) drows[ng * T + i] = drow(bs[ng] + i);
      }
      // rows_at(a): where source rows a, a+1, ... start, as a functor of i.
      auto sweep = [&](auto rows_at) {
        for_tiles_a<T>(na, head, [&](index_t a) {
          const auto rows = rows_at(a);
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
          for (int i = 0; i < T; ++i) srows[i] = s + offA[a + i];
          return [&srows](int i) { return srows[i]; };
        });
    }
  }
}

/// The buffered way of transpose_block (large or scattered destinations): per block of transpose_block_b
/// rows of B, tiles land in a small aligned buffer laid out like the destination, whose rows then
/// go out whole by streaming stores. Writing a row at a time keeps one or two lines in flight,
/// where tiles written in place keep T partial lines open per tile; and it keeps the destination
/// rows (a power-of-two apart in a square transpose) out of the cache sets the source rows need.
template <int E>
void transpose_buffered(const char* s, char* dcol, const index_t* offA, const index_t* offB,
                        index_t na, index_t b_begin, index_t b_end) {
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
                             buf_row, true);
    for (index_t b = b0; b < b1; ++b) copy_nt_blocks(buf + (b - b0) * buf_row, dcol + offB[b], row_bytes);
    b0 = b1;
  }
}

/// One work unit of a transpose: A indices [a_begin, a_end) (see split_group_a), B indices
/// [b_begin, b_end). offA, offB: the offsets of every index of A (source side) and of B
/// (destination side), from group_offsets. NT: the plan streams, hence is buffered
/// (transpose_buffered); otherwise tiles land in place.
template <int E, bool NT>
void transpose_block(const engine_plan& p, const char* s, char* d, const index_t* offA_all, const index_t* offB,
                     index_t a_begin, index_t a_end, index_t b_begin, index_t b_end) {
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
    if constexpr (micro<E>::T > 1 && W >= 16 && W <= 64) {
      bool alike = true;
      for (int k = 0; k < p.nb; ++k) alike = alike && p.gb[k].ds % W == 0;
      const auto mis = static_cast<index_t>(reinterpret_cast<std::uintptr_t>(dcol + offB[b_begin]) % W);
      if (alike && mis % E == 0 && mis != 0) head = (W - mis) / E;
    }
    transpose_tiles<E>(s, offA, na, b_begin, b_end, [&](index_t b) { return dcol + offB[b]; }, head,
                       p.na == 1 ? p.ga[0].ss : 0, p.nb == 1 ? p.gb[0].ds : 0);
  } else {
    transpose_buffered<E>(s, dcol, offA, offB, na, b_begin, b_end);
  }
}

template <int E>
void strided_loop(const char* s, char* d, const byte_loop& in, const byte_loop& in2) {
  for (index_t j = 0; j < in2.n; ++j, s += in2.ss, d += in2.ds)
    for (index_t i = 0; i < in.n; ++i) copy_elem<E>(s + i * in.ss, d + i * in.ds);
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

/// strided_loop for elements of R bytes, K/2 < R < K.
template <int K>
void strided_loop_odd(const char* s, char* d, const byte_loop& in, const byte_loop& in2, index_t R) {
  for (index_t j = 0; j < in2.n; ++j, s += in2.ss, d += in2.ds)
    for (index_t i = 0; i < in.n; ++i) copy_odd<K>(s + i * in.ss, d + i * in.ds, R);
}

/// transpose_block for elements of R = p.elem bytes, K/2 < R < K, one at a time, a destination
/// row after another; `ahead`: ask for the lines of the row two on first (see prefetch_rows).
template <int K>
void transpose_block_odd(const engine_plan& p, const char* s, char* d, const index_t* offA_all, const index_t* offB,
                         index_t a_begin, index_t a_end, index_t b_begin, index_t b_end, bool ahead) {
  const index_t R = p.elem, na = a_end - a_begin;
  const index_t* const offA = offA_all + a_begin;
  char* const dcol = d + a_begin * R;
  for (index_t b = b_begin; b < b_end; ++b) {
    char* const dr = dcol + offB[b];
    const char* const sb = s + b * R;
    if (ahead && b + 2 < b_end) prefetch_for_write(dcol + offB[b + 2], na * R);
    for (index_t a = 0; a < na; ++a) copy_odd<K>(sb + offA[a], dr + a * R, R);
  }
}

}  // namespace kernels

/// Whether a run copy writes consecutive runs apart (source order), not back to back.
inline bool scattered_runs(const engine_plan& p) {
  if (p.kind != engine_plan::run || p.nouter == 0) return false;
  const index_t ds = p.outer[p.nouter - 1].ds;
  return (ds < 0 ? -ds : ds) != p.run_bytes;
}

/// How far ahead (bytes of destination) a run copy in place asks for the lines it will write:
/// two runs on along its innermost loop where that scatters the writes and the destination is
/// past run_prefetch_threshold, else 0. Each scattered run is a fresh set of lines to read for
/// ownership, which the hardware prefetchers do not foresee. fp32, 1 thread, ratio to memcpy, 9
/// shuffled runs, medians: (187,258,87).permute(1,0,2) 0.77-0.81 -> 0.96-0.99,
/// (96,193,227).permute(1,0,2) 0.89-0.95 -> 0.99-1.00, (68,14,35,9,14).permute(0,2,1,3,4)
/// 0.90-0.95 -> 0.99-1.02; the same from one to four runs ahead, and with a plain prefetcht0
/// where the target has no PREFETCHW. Asking for the source lines of gathered runs instead lost
/// ((30,40,50,70).permute(1,2,0,3) 0.94 -> 0.87), and in cache the requests only cost
/// ((32,16,96).permute(1,0,2), 192 KiB: 0.60 -> 0.55).
inline constexpr index_t run_prefetch_threshold = index_t{1} << 20;
inline index_t run_prefetch_distance(const engine_plan& p) {
  if (p.nt || !scattered_runs(p) || p.outer_count() * p.run_bytes < run_prefetch_threshold) return 0;
  return 2 * p.outer[p.nouter - 1].ds;
}

/// Whether a transpose of odd-sized elements (transpose_block_odd), which writes whole
/// destination rows one after another, asks for the lines of each row ahead: where
/// those rows lie apart and the destination is past run_prefetch_threshold, as for scattered
/// runs. (4,40,20,4,20,14).permute(2,3,4,0,1,5) fp32 (56-byte elements, rows of 448 bytes 8960
/// apart), ratio to memcpy, 9 shuffled runs, medians: 0.72-0.74 -> 0.83-0.84 at 1 thread,
/// 1.28 -> 1.61 at 2 (one to four rows ahead alike). Rows back to back ((26,785,20,10).permute(
/// 1,2,0,3)) measured the same either way; tiles, which write T rows in part at a time, gained
/// nothing from asking one or two tile groups ahead.
inline bool prefetch_rows(const engine_plan& p) {
  if (p.kind != engine_plan::transpose || is_pow2_upto64(p.elem)) return false;
  return !dst_dense_units(p) && p.outer_count() * p.nA * p.nB * p.elem >= run_prefetch_threshold;
}

/// Runs work units [first, last) of an engine plan.
/// (A unit is one outer iteration, times one block of group A for transposes.)
/// offA, offB: the source offsets of every index of group A and the destination offsets of
/// every index of group B (group_offsets), for transposes.
inline void run_engine(const engine_plan& p, const char* src, char* dst, index_t first, index_t last,
                       const index_t* offA, const index_t* offB) {
  const index_t units_per_outer = p.kind == engine_plan::transpose ? p.blocks_a * p.blocks_b : 1;
  index_t idx[max_loops]{};
  index_t outer_it = first / units_per_outer;
  index_t rem = outer_it;
  const char* s = src + p.src_off;
  char* d = dst + p.dst_off;
  for (int k = p.nouter - 1; k >= 0; --k) {
    idx[k] = rem % p.outer[k].n;
    rem /= p.outer[k].n;
    s += idx[k] * p.outer[k].ss;
    d += idx[k] * p.outer[k].ds;
  }
  const index_t ahead = run_prefetch_distance(p);
  const bool rows_ahead = prefetch_rows(p);
  const index_t nt_head = scattered_runs(p) ? 64 : 32;  // see copy_nt
  for (index_t u = first; u < last;) {
    // one outer iteration (or part of it)
    switch (p.kind) {
      case engine_plan::run:
        if (p.nt) {
          kernels::copy_nt(s, d, p.run_bytes, nt_head);
        } else {
          if (ahead != 0) kernels::prefetch_for_write(d + ahead, p.run_bytes);
          std::memcpy(d, s, static_cast<std::size_t>(p.run_bytes));
        }
        ++u;
        break;
      case engine_plan::strided:
        switch (p.elem) {
          case 1: kernels::strided_loop<1>(s, d, p.inner, p.inner2); break;
          case 2: kernels::strided_loop<2>(s, d, p.inner, p.inner2); break;
          case 4: kernels::strided_loop<4>(s, d, p.inner, p.inner2); break;
          case 8: kernels::strided_loop<8>(s, d, p.inner, p.inner2); break;
          case 16: kernels::strided_loop<16>(s, d, p.inner, p.inner2); break;
          case 32: kernels::strided_loop<32>(s, d, p.inner, p.inner2); break;
          case 64: kernels::strided_loop<64>(s, d, p.inner, p.inner2); break;
          default:
            if (p.elem > 2 && p.elem < 64) {
              kernels::with_odd_class(p.elem, [&]<int K>() {
                kernels::strided_loop_odd<K>(s, d, p.inner, p.inner2, p.elem);
              });
              break;
            }
            for (index_t j = 0; j < p.inner2.n; ++j)
              for (index_t i = 0; i < p.inner.n; ++i)
                std::memcpy(d + j * p.inner2.ds + i * p.inner.ds, s + j * p.inner2.ss + i * p.inner.ss,
                            static_cast<std::size_t>(p.elem));
        }
        ++u;
        break;
      case engine_plan::transpose: {
        const index_t k_first = u % units_per_outer;
        const index_t k_last = std::min(units_per_outer, k_first + (last - u));
        for (index_t k = k_first; k < k_last; ++k) {
          // In place, units go chunk-major: the blocks of A across one chunk of B run back to
          // back, so a destination line that two blocks share is completed while cached, and
          // threads split along B write disjoint rows (split along A, they shared a line of
          // every row: (394,69,154).permute(1,2,0) at 2 threads went 0.54-0.56 -> 0.69-0.71 of memcpy).
          // Buffered (p.nt), blocks end on whole lines and A-major measured better (4096^2: 0.66
          // at 2 threads against 0.60).
          const index_t blk = p.nt ? k / p.blocks_b : k % p.blocks_a;
          const index_t chunk = p.nt ? k % p.blocks_b : k / p.blocks_a;
          const index_t a_begin = blk * p.block_a, a_end = std::min(p.nA, a_begin + p.block_a);
          const index_t b_begin = chunk * p.block_b;
          const index_t b_end = chunk + 1 == p.blocks_b ? p.nB : b_begin + p.block_b;
          if (p.nt) {
            switch (p.elem) {
              case 1: kernels::transpose_block<1, true>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end); break;
              case 2: kernels::transpose_block<2, true>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end); break;
              case 4: kernels::transpose_block<4, true>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end); break;
              case 8: kernels::transpose_block<8, true>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end); break;
            }
            continue;
          }
          switch (p.elem) {
            case 1: kernels::transpose_block<1, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end); break;
            case 2: kernels::transpose_block<2, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end); break;
            case 4: kernels::transpose_block<4, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end); break;
            case 8: kernels::transpose_block<8, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end); break;
            case 16: kernels::transpose_block<16, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end); break;
            case 32: kernels::transpose_block<32, false>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end); break;
            default:  // odd sizes under 64 bytes
              kernels::with_odd_class(p.elem, [&]<int K>() {
                kernels::transpose_block_odd<K>(p, s, d, offA, offB, a_begin, a_end, b_begin, b_end, rows_ahead);
              });
          }
        }
        u += k_last - k_first;
        if (k_last < units_per_outer) continue;  // the range ended inside this outer iteration
        break;
      }
    }
    for (int k = p.nouter - 1; k >= 0; --k) {  // odometer step of the outer loops
      s += p.outer[k].ss;
      d += p.outer[k].ds;
      if (++idx[k] < p.outer[k].n) break;
      s -= p.outer[k].n * p.outer[k].ss;
      d -= p.outer[k].n * p.outer[k].ds;
      idx[k] = 0;
    }
  }
  if (p.nt) kernels::store_fence();
}

}  // namespace lazyview
