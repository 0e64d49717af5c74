#pragma once
// The streamed way of a transpose whose work units each write one dense stretch of destination
// (engine_plan::nt_dense, set by use_streaming_stores): tiles land in a buffer laid out like that
// stretch, and its whole lines stream out as they fill.
#include <algorithm>

#include "engine_kernels.hpp"

namespace lazyview {

namespace kernels {

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
/// Example: (86,47790).t() fp32, rows of 344 bytes: blocks of 16 rows (5504 bytes).
/// @pre p.blocks_a == 1, micro<E>::T * p.nA * E <= dense_tile_rows_bytes.
template <int E>
void transpose_dense(const engine_plan& p, const char* s, char* d, const index_t* offA, const index_t* offB,
                     index_t b_begin, index_t b_end, index_t ahead, const unit_source& next = {}) {
  constexpr index_t T = micro<E>::T;
  const index_t row = p.nA * E;
  const index_t rows = std::max<index_t>(T, dense_block_bytes / row / T * T);
  line_writer<64, dense_block_bytes + dense_tile_rows_bytes> w(d + offB[b_begin]);
  // blocks of `rows`, the last taking the rest (fewer than rows + T)
  const index_t blocks = std::max<index_t>(0, b_end - b_begin - T) / rows + 1;
  unit_requests<E> req(next, offA, blocks);
  for (index_t b0 = b_begin, block = 0; block < blocks; ++block) {
    req.ask(block);
    const index_t b1 = block + 1 == blocks ? b_end : b0 + rows;
    char* const at = w.at();
    transpose_tiles<E, true>(s, offA, p.nA, b0, b1, [at, b0, row](index_t b) { return at + (b - b0) * row; }, 0, 0,
                             row, false, ahead);
    w.wrote((b1 - b0) * row);
    b0 = b1;
  }
  w.finish();
}

}  // namespace kernels

}  // namespace lazyview
