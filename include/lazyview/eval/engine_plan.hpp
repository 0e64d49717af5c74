#pragma once
// The engine plan: a plain copy_plan turned into bytes and specialised.
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
#include <bit>
#include <cstdint>
#include <limits>

#include "cpu_tuning.hpp"
#include "kernels.hpp"
#include "microkernels.hpp"

namespace lazyview {

/// A loop in bytes.
/// No default member initialisers: a plan has room for 96 of them and uses a few (only
/// [0, nouter), [0, na) and [0, nb) are read), so initialising all was a cost of every copy.
struct byte_loop {
  index_t n, ss, ds;
};

/// The plan's loops in bytes for elements of `size` bytes, outermost first, into l; returns
/// their count. Example: loops (3,2):(2,1):(1,3) of fp32 -> (3,2):(8,4):(4,12).
inline int byte_loops(const loop_plan& p, index_t size, byte_loop* l) {
  for (int k = 0; k < p.nloops; ++k) l[k] = {p.loops[k].n, p.loops[k].ss * size, p.loops[k].ds * size};
  return p.nloops;
}

/// The specialised plan.
struct engine_plan {
  enum kind_t { run, transpose, strided } kind = run;
  int elem = 1;            ///< bytes per (wide) element
  index_t run_bytes = 0;   ///< kind run: contiguous bytes per outer iteration
  index_t run_pieces = 1;  ///< kind run: work units per outer iteration, pieces of about
                           ///< run_piece_bytes that threads share (split_runs); kind strided:
                           ///< likewise, of its one outer iteration (split_strided)
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
  bool nt_rows = false;    ///< with nt, tiles (kernels::rows_tile_of) whose destination rows do
                           ///< not start on a line: rows leave a buffer, lines left unfinished
                           ///< carried to the next unit, a row's ends by plain stores
  bool gather = false;     ///< kind run, with nt: runs taken in destination order, where they lie
                           ///< back to back, through a buffer whose whole lines stream out
  bool nt_dense = false;   ///< with nt, a transpose whose units each write one dense stretch (A
                           ///< whole, rows back to back) through a buffer laid out like it
                           ///< (kernels::transpose_dense); its rows need not start on a line
  index_t stretch_b = 0;   ///< with nt_dense, B indices whose rows lie back to back (a stretch
                           ///< starting at each multiple), where fewer than a unit's: rows go
                           ///< out stretch by stretch (kernels::transpose_stretches); 0: all
  bool nt_shifted = false; ///< with nt, a transpose whose destination rows all start the same
                           ///< bytes into a line (A whole): lines moved by that offset stream
                           ///< straight from the tiles (kernels::transpose_shifted;
                           ///< whole-line tiles: transpose_shifted_tiles)
  bool no_narrow = false;  ///< kind transpose: not a narrow transpose (eval/narrow.hpp) even where its
                           ///< shape is one (use_streaming_stores: its rows would not stream)
  index_t block_a = 1;     ///< kind transpose: A indices per work unit
  index_t blocks_a = 1;    ///< kind transpose: blocks of group A
  index_t block_b = 1;     ///< kind transpose: B indices per work unit (the last takes the rest)
  index_t blocks_b = 1;    ///< kind transpose: chunks of B; blocks_a * blocks_b units per outer
  bool tiles_of_a = false; ///< kind transpose: whole-line tiles in place go tile of A by tile,
                           ///< each sweeping B (tiles_of_a_in_place)
  bool half_steps = false; ///< kind transpose, 4-byte elements: whole-line tiles in place go in
                           ///< steps of 8 rows of B, half tiles (half_steps_in_place)
  bool panels = false;     ///< with nt, whole-line tiles over far-apart source rows: units of
                           ///< two lines of B across a panel of A, run panel by panel, each tile
                           ///< of A sweeping its B (far_row_panels)
  bool pairs = false;      ///< with nt, whole-line tiles two along A at a time: each destination
                           ///< row gets two adjacent lines at once, and each source row gives two
                           ///< (intel_line_blocks)
  bool split_sweeps = false; ///< with nt, staged tiles of bytes sweep A twice per staged step, 32
                             ///< destination rows each (aliased_destination_rows)
  bool staged_rows = false;  ///< with nt, byte tiles through a stage and a buffer of destination
                             ///< rows (staged_source_rows, kernels::transpose_staged_rows)
  tuning tune = tuning::zen;  ///< the measurements the memory hints follow (eval/cpu_tuning.hpp)

  index_t outer_count() const {
    index_t n = 1;
    for (int k = 0; k < nouter; ++k) n *= outer[k].n;
    return n;
  }
  /// kind transpose: the bytes it moves (on each side).
  index_t transpose_bytes() const { return outer_count() * nA * nB * elem; }
  /// Work units of one outer iteration: blocks of a transpose, pieces of a run.
  index_t units_per_outer() const {
    return kind == transpose ? blocks_a * blocks_b : run_pieces;
  }
  index_t work_units() const { return outer_count() * units_per_outer(); }
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

/// Whether kernels::transpose_stream_lines runs E-byte elements on this target: a tile kernel
/// whose tile rows divide a cache line. transpose_block dispatches on it and whole_stream_rows
/// (eval/memory_hints.hpp) widens blocks past the buffered kernel's rows only where it holds,
/// so the two cannot disagree.
constexpr bool stream_lines_fit(int E) {
  const int T = tile_of(E);
  return T > 1 && 64 % (T * E) == 0;
}

/// The whole-line tiles for E-byte elements on this target: `a` elements of A (a line), `b` rows
/// of B (16 for 1-, 2- and 4-byte elements, 8 for 8-byte ones); 1 x 1: none.
struct line_tile_extent {
  int a, b;
};
constexpr line_tile_extent line_tile_extent_of(int E) {
  switch (E) {
    case 1: return {line_micro<1>::T, line_micro<1>::TB};
    case 2: return {line_micro<2>::T, line_micro<2>::TB};
    case 4: return {line_micro<4>::T, line_micro<4>::TB};
    case 8: return {line_micro<8>::T, line_micro<8>::TB};
    default: return {1, 1};
  }
}
/// Offsets (bytes, on one side) of every index of a group, members innermost first: the table
/// for the first k members, repeated once per further index of member k, each copy shifted by
/// its stride. A few instructions per entry, where an odometer over the members took about 25
/// (850 of the 7000 instructions of a dynamic (1,16,4,4) FLUX pack).
/// Example: members of sizes 2 and 3 with source strides 12 and 4 bytes: 0, 12, 4, 16, 8, 20.
/// `limit`: only the first `limit` entries (see tiles_of_a_in_place).
/// @pre ng >= 1, every member of size 2 or more. @post out holds the product of their sizes
/// entries, or `limit` if fewer.
inline void group_offsets(const byte_loop* g, int ng, bool src_side, index_t* out,
                          index_t limit = std::numeric_limits<index_t>::max()) {
  // The innermost member as a progression: built by repeating, each entry would wait on the one
  // before it, and a one-member group can be long ((449,551,17).permute(2,0,1) fp32: A of
  // 247399, 0.75 -> 0.57 of memcpy). The members after it repeat blocks at least two apart.
  const index_t st0 = src_side ? g[0].ss : g[0].ds;
  index_t count = std::min(g[0].n, limit);
  for (index_t i = 0; i < count; ++i) out[i] = i * st0;
  for (int m = 1; m < ng && count < limit; ++m) {
    const index_t st = src_side ? g[m].ss : g[m].ds;
    const index_t next = std::min(count * g[m].n, limit);
    for (index_t i = count; i < next; ++i) out[i] = out[i - count] + st;
    count = next;
  }
}

/// How many L1 sets (line address mod 64) the n rows at byte offsets off[0..n) start in.
/// Example: rows at 0, 256, 32768, 33024, ... (16 rows): 2.
inline int l1_sets(const index_t* off, int n) {
  std::uint64_t sets = 0;
  for (int i = 0; i < n; ++i) sets |= std::uint64_t{1} << ((off[i] >> 6) & 63);
  return std::popcount(sets);
}

/// Whether whole-line tiles in place (kernels::transpose_lines) go tile of A by tile, each
/// sweeping B (its T source rows read along, a line further per step), rather than step of B by
/// step, each sweeping A (its TB destination rows written along): whether a first tile's source
/// rows fall in fewer L1 sets (line address mod 64), for their number, than its destination
/// rows. `oa`: the T source offsets, `ob`: the TB destination offsets. Rows a multiple of 4 KiB
/// apart share one set; met at every tile by a sweep across them, they evict each other's lines
/// in flight, and those the prefetchers brought. On a 2-core Zen 4 VM, 1 thread, GB/s (read +
/// written), medians of 5 alternated runs of bench/, tiles of A sweeping B: FLUX pack bf16
/// (1,16,128,128) (each tile's 16 source rows, of 8 channels 32 KiB apart, in 2 sets; its
/// destination rows back to back) 60 -> 67, (4,16,256,256) 44 -> 51, fp32 (1,16,256,256)
/// 63 -> 72; but FLUX unpack fp32 (1,16,128,128), the other way round, 77 -> 48, hence the
/// choice; (256,1024).t() fp32 36 -> 45 and (1024,256).t() 50 -> 39 (harness, 2 x one way).
/// Ties (rows spread alike on both sides) keep steps of B.
/// Example: source rows at 0, 256, 32768, 33024, ... (16 rows, 2 sets), destination rows 128
/// bytes apart (16 sets): tiles of A.
inline bool sweep_source_rows(int T, int TB, const index_t* oa, const index_t* ob) {
  return l1_sets(oa, T) * TB < l1_sets(ob, TB) * T;
}

/// A-extent of the whole-line tiles for E-byte elements (1: none on this target).
constexpr int line_tile_of(int E) { return line_tile_extent_of(E).a; }
/// B-extent of the whole-line tiles for E-byte elements (1: none on this target).
constexpr int line_tile_rows_of(int E) { return line_tile_extent_of(E).b; }

/// A-extent of the tiles that stream rows not starting on a line through a buffer (nt_rows,
/// kernels::transpose_lines with line_out::stream_rows) for E-byte elements: whole-line tiles
/// where the target has them, else the register tiles of micro<E> for 4- and 8-byte elements
/// (AVX2, SSE2); 1: none.
constexpr int rows_tile_of(int E) {
  if (line_tile_of(E) > 1) return line_tile_of(E);
  return E == 4 || E == 8 ? tile_of(E) : 1;
}

}  // namespace kernels

/// Growth targets of the transpose groups (elements). A longer B only lengthens the sweep of a
/// work unit; a longer A mixes source rows of unrelated strides into one block, which measured
/// slower ((6,19,19,9,16,13).permute(2,5,1,0,3,4): 0.88 of memcpy at A = 144, 0.74 grown to
/// 16416), while B grown from 19 to 1425 took (5,15,37,5,15,19).permute(3,1,5,0,4,2) from
/// 0.65 to 0.80. An A of 42 in (23,21,5,42,44).permute(2,4,0,1,3) stays 42 at a target of 32
/// (0.77-0.79 of memcpy, 3 interleaved runs) where 64 grew it to 882 (0.70-0.71); of the other
/// 19 benchmark permutations and the FLUX chains, only (37,30,8,12,39).permute(4,0,1,2,3)
/// changes plan between 32 and 64, and it measured the same. Those were 8-wide tiles (AVX2).
/// With whole-line tiles (AVX-512, 16 wide for 4-byte elements) an A of 42 is under three
/// tiles, the last moved back over the one before, and each destination row a 168-byte piece;
/// grown to 20286 at a target of 64, the same permutation went 14-15 -> 26-27 GB/s at 1 thread
/// and 25 -> 33 at 2 (a 2-core Zen 5 VM, medians of 5 alternated runs), and no other benchmark
/// plan (permutations, FLUX) changed. So the target is four tiles of the widest kernel.
inline constexpr index_t transpose_group_target_a = kernels::line_tile_of(4) > 1 ? 64 : 32;
inline constexpr index_t transpose_group_target_b = 1024;
/// A transpose work unit covers about this many bytes of each destination row: in place, long
/// runs per destination row against as many source rows read at once (measured best at 512 to
/// 1024 bytes); buffered, two cache lines per row and transpose_block_b rows per block (the best
/// of 16 to 256 in each, measured on a 4096x4096 fp32 transpose).
inline constexpr index_t transpose_direct_bytes = 1024;
inline constexpr index_t transpose_block_bytes = 128;
inline constexpr index_t transpose_block_b = 32;
/// Where destination rows are evenly spaced, tiles sweep B in slices of about this many
/// destination bytes, so that the slice stays in L1 until every tile of A has written it:
/// transpose_slice_bytes in a streaming buffer (the least transpose_dense takes), and
/// in_place_slice_bytes in place, where each tile of A then reads longer stretches of its T
/// source rows per visit (FLUX pack fp32 (1,16,128,128): 512 bytes, the unit's whole B, against
/// 128 with 4096) and the slice still fits half of a 32 KiB L1. In place, 4096 -> 16384 on the
/// 2-core Zen 3 VM (AVX2; g++ 12 -O3 -march=native; the engine's plan both ways alternated in one
/// process, paired speed-up, medians of 5 rounds, 1 thread (2 in brackets)): FLUX pack fp32
/// (1,16,128,128) 1.13 (1.41; 57 -> 79-85 GB/s), (1,16,256,256) 1.16 (1.27), (1,16,64,64) 1.08
/// (1.07), (4,16,128,128) 1.02 (1.09), bf16 (1,16,256,256) 1.09 (1.13), (1,16,128,128) 1.00
/// (1.05); (1000,700).t() fp32 1.18 (1.38), (512,512).t() fp32 1.18 (1.23), uint8 1.12 (1.26).
/// 32768 gained more on (1000,700).t() (1.39, 1.49) but lost on (512,512).t() fp32 (0.92, 0.98):
/// a slice the size of L1 leaves the source rows no room.
inline constexpr index_t transpose_slice_bytes = 4096;
inline constexpr index_t in_place_slice_bytes = 16384;
/// B is cut into chunks of this many indices (at least), so that a transpose with few outer
/// iterations and a narrow A still splits over threads (the order of blocks and chunks: see
/// run_engine).
inline constexpr index_t transpose_chunk_b = 256;
/// Source rows of consecutive A indices this far apart (bytes) or more are each a stream of their
/// own, more at once than the hardware prefetchers follow (see transpose_prefetch_distance and
/// kernels::transpose_stream_lines); closer ones are read as one stream.
inline constexpr index_t far_row_bytes = 1024;
inline bool far_source_rows(const engine_plan& p) {
  return p.kind == engine_plan::transpose && magnitude(p.ga[0].ss) >= far_row_bytes;
}

/// Gathered runs (engine_plan::gather, kernels::gather_runs): the buffer streams out this many
/// bytes at a time; runs up to gather_max_run_bytes gather; each asks for the source lines of
/// the run about gather_ahead_bytes of destination on.
inline constexpr index_t gather_chunk_bytes = 4096;
inline constexpr index_t gather_max_run_bytes = 2048;
inline constexpr index_t gather_ahead_bytes = 8192;
/// Under the intel tuning, misaligned runs shorter than this stay in place (use_streaming_stores).
inline constexpr index_t intel_in_place_run_bytes = 384;
/// Dense streamed transposes (engine_plan::nt_dense, kernels::transpose_dense): tiles go through
/// the buffer in blocks of about dense_block_bytes of destination, and T rows of a tile may take
/// at most dense_tile_rows_bytes. Each tile of A reads dense_visit_bytes of each of its source
/// rows before the sweep moves to other rows, where that slice of B takes at most
/// dense_slice_bytes of destination (see transpose_dense).
inline constexpr index_t dense_block_bytes = 8192;
inline constexpr index_t dense_tile_rows_bytes = 4096;
inline constexpr index_t dense_visit_bytes = 128;
inline constexpr index_t dense_slice_bytes = 16384;
/// Streamed transposes of odd-sized elements ask for each source row's lines this far ahead
/// (kernels::transpose_block_odd).
inline constexpr index_t odd_rows_ahead_bytes = 512;

constexpr bool is_pow2_upto64(index_t b) { return b == 1 || b == 2 || b == 4 || b == 8 || b == 16 || b == 32 || b == 64; }

/// Whether whole-line tiles in place go tile of A by tile (kernels::sweep_source_rows, from the
/// offsets of the first T indices of A and TB of B; false without such tiles or with fewer
/// indices).
inline bool tiles_of_a_in_place(const engine_plan& e) {
  const auto [T, TB] = kernels::line_tile_extent_of(e.elem);
  if (T == 1 || e.nA < T || e.nB < TB) return false;
  index_t oa[64], ob[64];
  kernels::group_offsets(e.ga, e.na, true, oa, T);
  kernels::group_offsets(e.gb, e.nb, false, ob, TB);
  return kernels::sweep_source_rows(T, TB, oa, ob);
}

/// Whether whole-line tiles of 4-byte elements in place, steps of B each sweeping A (not
/// tiles_of_a), go in steps of 8 rows of B by half tiles (kernels::line_micro<4>::half_tile, 16
/// x 8): where the 16 destination rows of a step fall in at most 4 L1 sets (line address mod
/// 64) while the 16 source rows of a tile fall in 16 (a unit's A, of at most
/// transpose_direct_bytes, then reads at most 16 KiB of source lines a step). Then a whole
/// tile's 16 stores, 4 or more to a set, evict each other's lines on their way in; half tiles
/// store half as many to each set, and the second half of each source line is still in L1 at
/// the next step. Harness, FLUX unpack bf16 (1,16,128,128) (4-byte elements; A 64, destination
/// rows 256 bytes apart in pairs 32 KiB apart: 2 sets), 2-core Zen 4 VM, GB/s (read + written),
/// minimum of 1000 runs in one process, two processes: the kernel in whole tiles 69-72, in half
/// tiles 88-89; memcpy 103-104; with the rows 33024 bytes apart instead of 32 KiB (16 sets),
/// whole tiles 91-93. Source rows that crowd their sets too lost with half tiles, each source
/// line read again from L2 a sweep later ((512,512).t() fp32, 2 sets each side: 64-69 -> 36;
/// (128,2048).t() 42 -> 24; (256,1024).t() 50 -> 24).
/// Example: FLUX unpack bf16 (1,16,128,128): yes; FLUX unpack fp32 (8-byte elements, steps of
/// 8 rows already): no; (512,512).t() fp32: no.
inline bool half_steps_in_place(const engine_plan& e) {
  const auto [T, TB] = kernels::line_tile_extent_of(e.elem);
  if (e.elem != 4 || T != 16 || TB != 16 || e.tiles_of_a || e.nA < T || e.nB < TB) return false;
  index_t oa[16], ob[16];
  kernels::group_offsets(e.ga, e.na, true, oa, T);
  kernels::group_offsets(e.gb, e.nb, false, ob, TB);
  return kernels::l1_sets(ob, TB) <= 4 && kernels::l1_sets(oa, T) == T;
}

/// Sets the order of whole-line tiles in place for a transpose plan whose blocks are final:
/// tiles of A first where they sweep source rows, else steps of B, by half tiles where
/// half_steps_in_place says so (it reads e.tiles_of_a, hence one function for the pair).
inline void choose_tile_order(engine_plan& e) {
  e.tiles_of_a = tiles_of_a_in_place(e);
  e.half_steps = half_steps_in_place(e);
}

/// The wide element that a run of R bytes contiguous on both sides becomes (make_engine_plan):
/// the run itself where it is a power of two up to 64 bytes or shorter than 64 (an odd run is
/// moved by two overlapping power-of-two moves, kernels::copy_odd, or along a destination row
/// mostly by one, kernels::copy_over); up to 256 bytes, the widest power of two that divides it
/// (the run then a loop of those); 0 past 256 (a memcpy per run). Past the caches, runs of 256
/// bytes stream as runs instead (as_streamed_runs).
/// Example: 8 -> 8 (FLUX pack fp32), 24 -> 24 (the agents chain), 96 -> 32, 260 -> 0.
constexpr index_t run_element(index_t R) {
  if (is_pow2_upto64(R) || R < 64) return R;
  if (R > 256) return 0;
  index_t W = 64;
  while (R % W) W /= 2;
  return W;
}

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

/// Cuts group B into chunks of `per` indices (at least 1), the last taking the rest; e.g.
/// nB = 600 at 256: 2 chunks, of 256 and 344.
/// @post block_b = max(1, per), blocks_b = max(1, nB / block_b).
inline void split_group_b(engine_plan& e, index_t per) {
  e.block_b = std::max<index_t>(1, per);
  e.blocks_b = std::max<index_t>(1, e.nB / e.block_b);
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

/// Moves into group A the loops that continue it in the destination (each laying A's rows back
/// to back), outer loops or members of B past its first, until A's destination rows are `bytes`
/// long, and re-splits both groups as make_engine_plan does; true if the rows then are that long.
/// Where a member of B goes, the members outside it go to the outer loops (B stays contiguous in
/// the source). make_engine_plan leaves such loops out of A where A reached
/// transpose_group_target_a first, or where B took them (a loop may continue both groups);
/// use_streaming_stores widens plans past the streaming threshold whose rows are otherwise too
/// short to stream (nt_rows_long_row_bytes), far-row, scattered or not, on a copy of the plan.
/// Examples, fp32: (65,58,1119).permute(2,1,0): A = 65 (rows of 260 bytes), outer (58):(4476):(260)
/// -> A = (65,58) = 3770, rows of 15080 bytes, no outer loop. (5,15,37,5,15,19).permute(3,1,5,0,4,2):
/// A = 37, B = (19,15,5):(4,76,1140):(11100,148,3163500) -> A = (37,15) = 555, rows of 2220 bytes,
/// B = 19, the 5 an outer loop.
/// @pre e is a transpose with a tile kernel for its elements (kernels::tile_of(e.elem) > 1).
inline bool widen_group_a(engine_plan& e, index_t bytes) {
  for (bool grown = true; grown && e.nA * e.elem < bytes && e.na < max_loops;) {
    grown = false;
    const index_t row = e.nA * e.elem;
    for (int k = 0; k < e.nouter && !grown; ++k) {
      if (e.outer[k].ds != row) continue;
      e.ga[e.na++] = e.outer[k];
      e.nA *= e.outer[k].n;
      std::copy(e.outer + k + 1, e.outer + e.nouter, e.outer + k);
      --e.nouter;
      grown = true;
    }
    for (int j = 1; j < e.nb && !grown; ++j) {
      if (e.gb[j].ds != row) continue;
      e.ga[e.na++] = e.gb[j];
      e.nA *= e.gb[j].n;
      e.nB = 1;
      for (int m = 0; m < j; ++m) e.nB *= e.gb[m].n;
      for (int m = j + 1; m < e.nb; ++m) e.outer[e.nouter++] = e.gb[m];
      e.nb = j;
      grown = true;
    }
  }
  if (e.nA * e.elem < bytes) return false;
  split_group_a(e, transpose_direct_bytes);
  split_group_b(e, transpose_chunk_b);
  choose_tile_order(e);
  return true;
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
