#pragma once
// The engine plan: a plain copy_plan (eval/plan.hpp) in bytes and specialised, one of three loops
// (eval/make_engine_plan.hpp builds it): runs, a batched 2-D transpose of wide elements, or a strided
// loop; the tile sizes of this target's kernels, the tunables of transposes and how their groups
// split into blocks and chunks. eval/memory_hints.hpp adds the memory hints.
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
  bool staged_rows = false;  ///< with nt, byte tiles over staged source lines (staged_source_rows,
                             ///< kernels::transpose_staged_lines; AVX2: transpose_staged_rows)
  tuning tune = tuning::zen;  ///< the measurements the memory hints follow (eval/cpu_tuning.hpp)

  index_t outer_count() const {
    return product_of(nouter, [&](int k) { return outer[k].n; });
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
/// (eval/stream_units.hpp) widens blocks past the buffered kernel's rows only where it holds,
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
/// Ties (rows spread alike on both sides) keep steps of B, but where the tile's destination rows
/// lie whole lines apart within close_rows_bytes and its source rows do not (FLUX pack of an
/// image whose rows are not a power of two of lines): a tile of A then fills a piece of each line
/// of a stretch of destination that stays in L1 while the source rows stream. Harness, 1 thread,
/// steps of B -> tiles of A, medians of 5 alternated runs: FLUX pack fp32 (1,16,96,170) (8 source
/// rows 680 bytes and 64 KiB apart, destination rows 256 bytes apart) 66.0 -> 70.3 GB/s, bf16
/// 62.7 -> 69.9; (64,4000).t() fp32 62.3 -> 71.9, 8-byte elements 69.5 -> 77.7. Not where the
/// destination rows share lines (148-byte rows of (37,3001).t() fp32: 53.0 -> 47.6) or are far
/// apart ((300,500).t() of 8-byte elements 71.1 -> 65.8, rows 2400 bytes apart); unpack, the
/// other way round, lost too (fp32 (1,16,96,170) 72.3 -> 62.4).
/// Example: source rows at 0, 256, 32768, 33024, ... (16 rows, 2 sets), destination rows 128
/// bytes apart (16 sets): tiles of A. Source rows 680 bytes and 64 KiB apart (8 rows, 8 sets),
/// destination rows 256 bytes apart (8 sets): a tie, tiles of A.
inline constexpr index_t close_rows_bytes = 4096;
/// The bytes from the lowest to the highest of n row offsets. Example: 0, 2048, 1024: 2048.
inline index_t rows_span(const index_t* off, int n) {
  index_t lo = off[0], hi = off[0];
  for (int i = 1; i < n; ++i) lo = std::min(lo, off[i]), hi = std::max(hi, off[i]);
  return hi - lo;
}
inline bool sweep_source_rows(int T, int TB, const index_t* oa, const index_t* ob) {
  const index_t sa = l1_sets(oa, T) * TB, sb = l1_sets(ob, TB) * T;
  if (sa != sb) return sa < sb;
  for (int i = 1; i < TB; ++i)
    if ((ob[i] - ob[0]) % 64 != 0) return false;
  return rows_span(ob, TB) < close_rows_bytes && rows_span(oa, T) >= close_rows_bytes;
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
/// Lines a multiple of this many bytes apart share one set of the first-level data cache (64
/// sets of 64-byte lines on Zen 2 to 5 and on Intel since Sandy Bridge, 8 to 12 lines a set).
inline constexpr index_t cache_set_span = 4096;
/// In place, a slice of destination rows that lie a multiple of cache_set_span apart takes at
/// most aliased_slice_rows of them: the k-th line of every row falls in one set, and 16 rows of a
/// unit (in_place_slice_bytes of 1024-byte rows) want 16 lines of one set where it holds 12 (Zen
/// 5's L1), so that each tile's stores evicted lines the slice would store to again. On the
/// 2-core Zen 5 VM, g++ 12 -O3, GB/s, medians of 5 alternated runs, 1 thread (2 in brackets), 16
/// rows -> 8 (4 read less: (256,256,4) 19.6, (4096,16,4) 29.6): AVX-512's tiles of 16- and
/// 32-byte elements, (a,b,c).permute(1,0,2) fp32: (256,256,4) 21.2 -> 40.8 (31.2 -> 48.7),
/// (512,64,4) 21.8 -> 47.2 (17.2 -> 34.5), (4096,16,4) 21.9 -> 40.4, (256,256,8) 21.8 -> 47.1,
/// (128,128,8) 21.0 -> 49.0 (21.1 -> 39.2), (1024,16,8) 21.6 -> 40.6; AVX2's tiles (-march=haswell):
/// fp32 (1024,256).t() 13.6 -> 25.9, (1024,250).t() 13.7 -> 28.7, (4096,64).t() 14.3 -> 31.7, fp64
/// (512,256,2).permute(1,0,2) 10.8 -> 30.3. Rows that do not alias keep their slices ((250,260,4)
/// 46.4 and 46.6 GB/s); so do AVX-512's whole-line tiles of 1- to 8-byte elements, which go by
/// steps of B (transpose_lines). Not measured on the Intel tuning's VM.
inline constexpr index_t aliased_slice_rows = 8;
/// The destination bytes of an in-place slice of rows `d_step` bytes apart (0: not evenly
/// spaced), `row_bytes` of each in a unit.
/// Example: rows 4096 apart, 1024 bytes each: 8192; 4000 apart: in_place_slice_bytes.
constexpr index_t in_place_slice_of(index_t d_step, index_t row_bytes) {
  return d_step != 0 && d_step % cache_set_span == 0 ? std::min(in_place_slice_bytes, aliased_slice_rows * row_bytes)
                                                     : in_place_slice_bytes;
}
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
/// Whether a transpose's units each read a long stretch of far-apart source rows: far_source_rows,
/// and at least far_long_row_bytes of each row a unit (B, or a chunk of it where it is cut).
/// Example, fp32: (394,69,154).permute(1,2,0), A = 394 rows 42504 bytes apart, B = 10626 in
/// chunks of 256 (1 KiB): yes; (5,15,37,5,15,19).permute(3,1,5,0,4,2), B = 19 (76 bytes): no.
inline constexpr index_t far_long_row_bytes = 1024;
inline bool far_long_source_rows(const engine_plan& p) {
  return far_source_rows(p) && std::min(p.block_b, p.nB) * p.elem >= far_long_row_bytes;
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
/// (kernels::transpose_block_odd, where odd_source_ahead_bytes says).
inline constexpr index_t odd_rows_ahead_bytes = 512;

constexpr bool is_pow2_upto64(index_t b) { return b == 1 || b == 2 || b == 4 || b == 8 || b == 16 || b == 32 || b == 64; }

/// Whether whole-line tiles in place go tile of A by tile (kernels::sweep_source_rows, from the
/// offsets of the first T indices of A and TB of B; false without such tiles or with fewer
/// indices). Under intel only where a step's TB destination rows also lie within
/// close_rows_bytes: on the Intel Xeon VM (Emerald Rapids) tiles of A over destination rows
/// farther apart lost to steps of B, each writing its TB destination rows along.
/// bench/ab_headers (HEAD against the rule, ROUNDS=9 BYTES=1e8, 1 thread, B/A medians of four
/// processes each): (256,512).t() of 8-byte elements (destination rows 2 KiB apart) 1.25-1.31x,
/// 2-byte (256,1024).t() 1.09-1.13x, u8 (512,512).t() 1.03-1.14x, fp32 (256,1024).t()
/// 1.03-1.10x, (128,2048).t() 1.00-1.03x. Where they lie close, tiles of A held: steps of B
/// everywhere read FLUX pack fp32 and bf16 (1,16,128,128) 0.88-1.10x and 0.91-0.98x,
/// (1,16,32,32) and (1,8,128,128) fp32 0.96-1.01x (the same way, 5-6 processes each).
/// Example, intel: (256,1024).t() fp32, destination rows 1 KiB apart: no (zen: yes); FLUX pack
/// fp32 (1,16,128,128), rows 256 bytes apart: yes, as under zen.
inline bool tiles_of_a_in_place(const engine_plan& e) {
  const auto [T, TB] = kernels::line_tile_extent_of(e.elem);
  if (T == 1 || e.nA < T || e.nB < TB) return false;
  index_t oa[64], ob[64];
  kernels::group_offsets(e.gb, e.nb, false, ob, TB);
  if (e.tune == tuning::intel && kernels::rows_span(ob, TB) >= kernels::close_rows_bytes) return false;
  kernels::group_offsets(e.ga, e.na, true, oa, T);
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
/// Destination rows all in one set (a multiple of cache_set_span apart) take half tiles from
/// source rows in 4 sets or more as well: a whole tile's 16 stores to one set, of 12 ways on Zen
/// 5, cost more than reading each source line's second half again from L2. On the 2-core Zen 5
/// VM, fp32, GB/s, 3 alternated runs, 1 thread, whole -> half tiles: (1024,256).t() (source rows
/// in 4 sets) 22.6 -> 27.1, (3072,256).t() 22.3 -> 26.8, (1024,128).t() (8 sets) 23.7 -> 30.0,
/// (2048,128).t() 23.5 -> 30.2, (4096,128).t() 23.5 -> 30.5; in 2 sets, (1024,512).t() 33.9 ->
/// 34.1, in 1, (1024,1024).t() 32.2 -> 27.4-32.5.
/// Example: FLUX unpack bf16 (1,16,128,128): yes; FLUX unpack fp32 (8-byte elements, steps of
/// 8 rows already): no; (512,512).t() fp32: no; (1024,256).t() fp32: yes.
inline bool half_steps_in_place(const engine_plan& e) {
  const auto [T, TB] = kernels::line_tile_extent_of(e.elem);
  if (e.elem != 4 || T != 16 || TB != 16 || e.tiles_of_a || e.nA < T || e.nB < TB) return false;
  index_t oa[16], ob[16];
  kernels::group_offsets(e.ga, e.na, true, oa, T);
  kernels::group_offsets(e.gb, e.nb, false, ob, TB);
  const int sets_a = kernels::l1_sets(oa, T), sets_b = kernels::l1_sets(ob, TB);
  return (sets_b <= 4 && sets_a == T) || (sets_b == 1 && sets_a >= 4);
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

/// Cuts group B into the whole number of chunks nearest nB / per (one at least), as even as
/// chunks of a multiple of `unit` indices allow, the last the shortest: threads take work units
/// by their count, so a last chunk of up to twice the others (split_group_b) loads one thread
/// with most of it. E.g. per 1024, unit 64: nB = 4032, 4 chunks, of 1024 and the last 960
/// (split_group_b: 1024, 1024 and 1984); nB = 1031, 1 chunk.
inline void split_group_b_even(engine_plan& e, index_t per, index_t unit) {
  const index_t chunks = std::max<index_t>(1, (e.nB + per / 2) / per);
  e.block_b = ((e.nB + chunks - 1) / chunks + unit - 1) / unit * unit;
  e.blocks_b = (e.nB + e.block_b - 1) / e.block_b;
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

}  // namespace lazyview
