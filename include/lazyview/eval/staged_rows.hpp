#pragma once
// Streamed byte transposes in whole-line tiles whose source rows lie a multiple of 4 KiB apart
// (engine_plan::staged_rows, where lv::staged_source_rows holds). Read in place, a tile's source
// lines (one per row, all in one set of the first-level cache) and a unit's destination lines
// (two per row, hundreds of rows in turn) are both orders that the memory system serves at a
// fraction of its speed. Here a unit copies its source rows one after another, a run of lines
// each, to a small stage; its tiles land in a buffer laid out by destination rows; and the buffer
// streams out a few rows at a time, many lines each, while the next pass fills the other buffer.
#include <cstring>
#include <new>

#include "aliased_rows.hpp"
#include "engine_kernels.hpp"

namespace lazyview {

namespace kernels {

/// The bytes of B a staged_rows unit moves per pass (its stage and buffer hold this much of each
/// source row), and the destination rows streamed in turn (see aliased_destination_turn).
inline constexpr index_t staged_chunk_bytes = 256;
inline constexpr index_t staged_rows_in_turn = 32;
/// The bytes of one of a thread's two buffers: staged_chunk_bytes rows of staged_block_bytes and
/// a line each (the line keeps the rows off one cache set).
inline constexpr index_t staged_buffer_bytes = staged_chunk_bytes * (staged_block_bytes + 64);

/// The calling thread's two buffers for transpose_staged_rows, staged_buffer_bytes each, back to
/// back, 64-byte aligned: made on its first use and kept until the thread ends (288 KiB, too much
/// for the stacks some threads run on); nullptr if they cannot be had.
inline char* staged_rows_buffer() {
  struct holder {
    char* p = nullptr;
    ~holder() {
      if (p) ::operator delete(p, std::align_val_t{64});
    }
  };
  thread_local holder h;
  if (!h.p) h.p = static_cast<char*>(::operator new(std::size_t{2} * staged_buffer_bytes, std::align_val_t{64}, std::nothrow));
  return h.p;
}

#if defined(__AVX512F__)
/// One work unit of a staged_rows plan: A indices [a_begin, a_end) (whole tiles of T =
/// line_micro<E>::T, at most staged_block_bytes of each destination row) by B indices [b_begin,
/// b_end), in passes of staged_chunk_bytes of B (the last may be short, down to one index). Per
/// pass and tile of A, the tile's T source rows go to the stage one after another (the pass's
/// bytes of each: a run of whole lines and a tail), and its tiles move them into the pass's
/// buffer, whose row j is destination row b0 + j from a_begin. Then a share of the pass before's
/// rows streams out (staged_rows_in_turn rows at a time, each row's lines one after another
/// across them), so that its stores go while this pass's loads wait; the last pass's rows go at
/// the end. Returns false, having done nothing, where the thread has no buffers
/// (staged_rows_buffer), for transpose_lines to take the unit.
/// @pre line_tile_of(E) > 1, a_end - a_begin a multiple of T and at most staged_block_bytes / E,
/// every destination row 64-byte aligned at a_begin.
/// Example: (4096,4096).t() uint8: units of 512 x 512, each two passes of 256 indices of B; per
/// pass, 8 tiles of 64 source rows staged 256 bytes each, a tile's 16 x 64 pieces into the buffer,
/// and after each tile 32 rows of the pass before (512 bytes each) streamed.
template <int E>
bool transpose_staged_rows(const char* s, char* d, const index_t* offA, const index_t* offB, index_t a_begin,
                           index_t a_end, index_t b_begin, index_t b_end) {
  constexpr index_t T = line_micro<E>::T;
  constexpr index_t TB = line_micro<E>::TB;               // B indices a tile
  constexpr index_t chunk = staged_chunk_bytes / E;       // B indices a pass
  constexpr index_t stage_row = staged_chunk_bytes + 64;  // (a line more: rows off one set)
  alignas(64) char stage[T * stage_row];
  char* const buf0 = staged_rows_buffer();
  if (!buf0) return false;
  char* const bufs[2] = {buf0, buf0 + staged_buffer_bytes};
  const index_t row = (a_end - a_begin) * E, pitch = row + 64;
  const index_t tiles_a = (a_end - a_begin) / T;
  char* const dcol = d + a_begin * E;
  // the pass before: its buffer, first B index, rows, and the rows of it streamed so far
  const char* prev = nullptr;
  index_t prev_b0 = 0, prev_nb = 0, sent = 0;
  const auto send = [&](index_t upto) {  // streams the pass before's rows [sent, upto)
    for (; sent < upto; sent += staged_rows_in_turn) {
      const index_t ge = std::min(upto, sent + staged_rows_in_turn);
      for (index_t k = 0; k < row; k += 64)
        for (index_t j = sent; j < ge; ++j)
          _mm512_stream_si512(reinterpret_cast<__m512i*>(dcol + offB[prev_b0 + j] + k),
                              _mm512_load_si512(reinterpret_cast<const __m512i*>(prev + j * pitch + k)));
    }
    sent = upto;
  };
  index_t pass = 0;
  for (index_t b0 = b_begin; b0 < b_end; b0 += chunk, ++pass) {
    char* const buf = bufs[pass & 1];
    const index_t nb = std::min(chunk, b_end - b0), bytes = nb * E, whole = bytes / 64 * 64;
    // the pass before's rows go out a share after each tile of A
    const index_t share = (prev_nb + tiles_a - 1) / tiles_a;
    index_t t = 0;
    for (index_t a = a_begin; a < a_end; a += T, ++t) {
      for (index_t i = 0; i < T; ++i) {
        const char* const from = s + offA[a + i] + b0 * E;
        char* const to = stage + i * stage_row;
        for (index_t q = 0; q < whole; q += 64) copy_line(from + q, to + q);
        if (whole < bytes) std::memcpy(to + whole, from + whole, static_cast<std::size_t>(bytes - whole));
      }
      char* const col = buf + (a - a_begin) * E;
      for (index_t c = 0; c < nb; c += TB) {
        // (a short last tile: the stage past the pass's bytes holds stale bytes, whose rows stay out)
        const index_t rows = std::min<index_t>(TB, nb - c);
        line_micro<E>::tile_to([&](int i) { return stage + i * stage_row + c * E; }, [&](int j, auto v) {
          if (j < rows) put<false>(col + (c + j) * pitch, v);
        });
      }
      if (prev) send(std::min(prev_nb, (t + 1) * share));
    }
    if (prev) send(prev_nb);
    prev = buf;
    prev_b0 = b0;
    prev_nb = nb;
    sent = 0;
  }
  if (prev) send(prev_nb);
  return true;
}
#endif

}  // namespace kernels

}  // namespace lazyview
