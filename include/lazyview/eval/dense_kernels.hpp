#pragma once
// The streamed way of a transpose whose work units each write one dense stretch of destination
// (engine_plan::nt_dense, set by use_streaming_stores): tiles land in a buffer laid out like that
// stretch, and its whole lines stream out as they fill.
#include <algorithm>

#include "engine_kernels.hpp"

namespace lazyview {

namespace kernels {

/// The longest block of dense_blocks, in bytes: rows of a slice or of dense_block_bytes, and a
/// tile's more (the last).
inline constexpr index_t dense_block_room = std::max(dense_block_bytes, dense_slice_bytes) + dense_tile_rows_bytes;

/// The blocks of a dense streamed unit (transpose_dense, transpose_stretches): B indices
/// [b_begin, b_end) across all of A in blocks of about dense_block_bytes of destination rows
/// (or of a slice, see transpose_dense), whole stretches of `S` rows where S (if not 0) leaves a
/// block a tile at least, the last block taking the rest (fewer than a block and a tile). Each
/// block's tiles land at `at()`, rows back to back, then `sent(b0, b1)` sends them on; the next
/// unit's source lines are asked for a share per block.
template <int E, class At, class Sent>
void dense_blocks(const engine_plan& p, const char* s, const index_t* offA, index_t b_begin, index_t b_end,
                  index_t ahead, const unit_source& next, index_t S, At at, Sent sent) {
  constexpr index_t T = micro<E>::T;
  constexpr index_t visit = (dense_visit_bytes / E + T - 1) / T * T;  // rows of B
  const index_t row = p.nA * E;
  // a slice's destination stays in L1 while the tiles of A fill it: at most dense_slice_bytes
  const index_t slice =
      tile_rows_in(std::max(std::min(visit * row, dense_slice_bytes), transpose_slice_bytes), row, T);
  const index_t most = std::max(slice, tile_rows_in(dense_block_bytes, row, T));
  const index_t whole = S > 0 ? most / S * S : 0, rows = whole >= T ? whole : most;
  const index_t blocks = std::max<index_t>(0, b_end - b_begin - T) / rows + 1;
  unit_requests<E> req(next, offA, blocks);
  for (index_t b0 = b_begin, block = 0; block < blocks; ++block) {
    req.ask(block);
    const index_t b1 = block + 1 == blocks ? b_end : b0 + rows;
    char* const to = at();
    transpose_tiles<E, true>(s, offA, p.nA, b0, b1, [to, b0, row](index_t b) { return to + (b - b0) * row; }, 0, 0,
                             row, false, ahead, slice * row);
    sent(b0, b1);
    b0 = b1;
  }
}

/// One work unit of an nt_dense plan: B indices [b_begin, b_end) across all of A. Its
/// destination rows lie back to back (A whole, each row of B one row length past the one
/// before), so the unit writes [d + offB[b_begin], + (b_end - b_begin) * nA * E) in order. Blocks
/// of about dense_block_bytes of those rows go through transpose_tiles into a line_writer, a
/// whole number of tiles of B each (a last block short of a tile joins the one before), and
/// leave in whole lines by streaming stores; only the stretch's two end lines go plainly, so
/// units, and the threads that run them, never stream into one another's lines.
/// `ahead`: see transpose_tiles (far-apart source rows past the caches). `next` (if its s is
/// set): the unit after this one, whose source lines are asked for a share per block
/// (unit_requests; see prefetch_next_unit).
/// Within a block, each tile of A sweeps a slice of B (transpose_tiles) dense_visit_bytes long
/// (two lines of each of its T source rows per visit) where the slice's destination fits
/// dense_slice_bytes, or longer where transpose_slice_bytes gives more. Slices sized by
/// destination bytes alone gave rows of a few hundred bytes a visit of half a line per source
/// row, each line read in two visits far apart. Both builds in one process, timed in turn
/// (medians of 9 pairs), 2-core Zen 5 VM, GB/s, 1 thread (2 in brackets), slices of 8 -> 32
/// rows of 4 bytes: (86,59,45,18).permute(1,2,3,0) fp32 ((86,47790).t(), rows of 344 bytes)
/// 23.3 -> 32.0 (52.5 -> 64.4), its destination 12 bytes off a line 22.0 -> 29.0 (52.3 -> 65.3);
/// the same transposes in bf16 17.8 -> 27.0 (36.0 -> 51.3), uint8 14.8 -> 18.4 (29.9 -> 36.3),
/// fp64 23.3 -> 32.5 (50.6 -> 71.7); over close source rows, (1000,86,50).permute(0,2,1) fp32
/// 27.4 -> 31.4 (66.7 -> 64.9). Rows of 80 bytes ((200,20,1050).permute(0,2,1)) already read
/// 192 bytes a visit and keep their slices; blocks of 32 KiB with slices of 16 KiB of
/// destination (800 bytes a visit there) lost on them (0.88x).
/// Example: (86,47790).t() fp32, rows of 344 bytes: blocks and slices of 32 rows (11008 bytes).
/// @pre p.blocks_a == 1, micro<E>::T * p.nA * E <= dense_tile_rows_bytes.
template <int E>
void transpose_dense(const engine_plan& p, const char* s, char* d, const index_t* offA, const index_t* offB,
                     index_t b_begin, index_t b_end, index_t ahead, const unit_source& next = {}) {
  line_writer<64, dense_block_room> w(d + offB[b_begin]);
  dense_blocks<E>(p, s, offA, b_begin, b_end, ahead, next, 0, [&w] { return w.at(); },
                  [&w, &p](index_t b0, index_t b1) { w.wrote((b1 - b0) * p.nA * E); });
  w.finish();
}

/// One work unit of an nt_dense plan whose rows lie back to back in stretches of p.stretch_b
/// B indices (the first at each multiple), fewer than the unit's: B indices [b_begin, b_end)
/// across all of A. Blocks of whole stretches (dense_blocks) fill a buffer, rows back to back as
/// within a stretch, and each stretch (or its piece in the block) then leaves by copy_nt: its
/// whole lines by streaming stores, its two end lines plainly. `ahead`, `next`: as
/// transpose_dense's.
/// Example: (20,44,46,7,15).permute(2,3,1,4,0) fp32, rows of 80 bytes in stretches of 15:
/// blocks of 90 rows (6 stretches of 1200 bytes).
/// @pre p.blocks_a == 1, micro<E>::T * p.nA * E <= dense_tile_rows_bytes, p.stretch_b > 0.
template <int E>
void transpose_stretches(const engine_plan& p, const char* s, char* d, const index_t* offA, const index_t* offB,
                         index_t b_begin, index_t b_end, index_t ahead, const unit_source& next = {}) {
  const index_t row = p.nA * E, S = p.stretch_b;
  alignas(64) char buf[dense_block_room];
  dense_blocks<E>(p, s, offA, b_begin, b_end, ahead, next, S, [&buf] { return buf; },
                  [&](index_t b0, index_t b1) {
                    for (index_t j = b0; j < b1;) {
                      const index_t je = std::min(b1, (j / S + 1) * S);
                      copy_nt(buf + (j - b0) * row, d + offB[j], (je - j) * row, 64);
                      j = je;
                    }
                  });
}

}  // namespace kernels

}  // namespace lazyview
