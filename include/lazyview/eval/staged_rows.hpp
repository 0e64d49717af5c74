#pragma once
// Streamed byte transposes (whole-line tiles with AVX-512 VBMI, 16 x 16 register tiles with AVX2)
// whose source rows lie a multiple of 4 KiB apart (engine_plan::staged_rows, where
// lv::staged_source_rows holds). Read in place, a tile's source lines (one per row, all in one
// set of the first-level cache) and a unit's destination lines (two per row, hundreds of rows in
// turn) are both orders that the memory system serves at a fraction of its speed.
// Under the zen4 tuning with whole-line tiles (transpose_staged_lines), a unit of 128 x 1024
// sweeps B a line at a time, each line of its 128 source rows staged whole once and each
// destination row taking the unit's 128 bytes of it as 2 streamed lines side by side; the next
// unit's rows are asked for into L2 meanwhile, row after row. Otherwise (transpose_staged_rows) a
// unit copies its source rows one after another, a run of lines each, to a small stage; its tiles
// land in a buffer laid out by destination rows; and the buffer streams out a few rows at a time,
// many lines each, while the next pass fills the other buffer.
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

/// Whether a staged_rows unit streams each destination row of a turn whole, row after row, rather
/// than line k of every row of the turn, then line k + 1: rows whole under the zen3 tuning, lines
/// across rows otherwise. On the 2-core Zen 3 VM (AVX2), a harness that only streams a unit's
/// buffered rows ((4096,4096).t() uint8, units of 512 x 512, turns of 32 rows; time of a
/// streaming copy of the same bytes over its time, medians of 11 alternated runs): lines across
/// rows 0.45-0.55, rows whole 2.1-2.6; the whole kernel 0.17-0.26 -> 0.24-0.37. bench/ab, the
/// same binary under zen3 against zen, 5 rounds of 3 repetitions: 1.39x (1.14-2.36) at 1 thread,
/// 1.35x (1.21-1.61) at 2. The Zen 5 probe of staged_source_rows streamed lines across rows as
/// fast as a dense write; not measured there the other way.
inline bool staged_rows_whole(const engine_plan& p) { return p.tune == tuning::zen3; }

#if defined(__AVX512F__)
/// One work unit of a staged_rows plan by staged lines (staged_lines: whole-line tiles, AVX-512
/// VBMI, under zen4): A indices [a_begin, a_end) (whole stages of T = 64) by B indices
/// [b_begin, b_end), in steps of one line of each source row (64 / E indices of B; the first and
/// the last may be short, down to one index).
/// Per step and stage of A, the stage's T source lines are staged whole (staged_tiles, each read
/// once, in row order) and its tiles stream one line into each of the step's destination rows,
/// the stages side by side along them: a step writes the unit's (a_end - a_begin) * E bytes of
/// each of its 64 / E destination rows, as many lines of each in turn. `next` (if its s is set):
/// the unit after this one, whose source rows are asked for into L2, a share per step
/// (unit_requests), so that each comes in as one run of lines while this unit's tiles run.
/// @pre line_tile_of(E) > 1, a_end - a_begin a multiple of T, every destination row 64-byte
/// aligned at a_begin.
/// Example: (4096,4096).t() uint8, a unit of 128 x 1024 (staged_lines_block_bytes): 16 steps; per
/// step 2 stages of 64 source lines, each 4 tiles of 64 x 16 into the step's 64 destination
/// rows, which take 2 lines each.
template <int E>
void transpose_staged_lines(const char* s, char* d, const index_t* offA, const index_t* offB, index_t a_begin,
                            index_t a_end, index_t b_begin, index_t b_end, const unit_source& next) {
  constexpr index_t T = line_tile_of(E), TB = line_tile_rows_of(E), S = 64 / E;
  static_assert(T > 1 && S % TB == 0, "no whole-line tiles on this target");
  char* const dcol = d + a_begin * E;
  // Source rows off a line take a short first step up to it, so that the others read whole
  // lines, not two halves each: all of them where the rows lie a multiple of 64 bytes apart (as
  // those of aliased rows do), the first row's where they do not (the others' still straddle).
  const auto mis = static_cast<index_t>(reinterpret_cast<std::uintptr_t>(s + offA[a_begin] + b_begin * E) & 63);
  const index_t head = mis % E == 0 && mis != 0 ? std::min(b_end - b_begin, (64 - mis) / E) : 0;
  unit_requests<E> req(next, offA, (head != 0) + (b_end - b_begin - head + S - 1) / S);
  for (index_t b = b_begin, step = 0; b < b_end; ++step) {
    req.ask(step);
    const index_t nb = std::min(step == 0 && head != 0 ? head : S, b_end - b);
    const index_t* const ob = offB + b;
    for (index_t a = a_begin; a < a_end; a += T) {
      char* const dc = dcol + (a - a_begin) * E;
      if (nb == S) {
        staged_tiles<E, true>([&](int i) { return s + offA[a + i] + b * E; }, [&](int j) { return dc + ob[j]; });
        continue;
      }
      // A step short of a line (the first, up to a line, or the last): only its nb indices of
      // each source row are read, by masked loads, and only its nb destination rows written.
      alignas(64) char part[T * 64];
      const auto bytes = static_cast<__mmask64>((std::uint64_t{1} << (nb * E)) - 1);
      for (index_t i = 0; i < T; ++i)
        _mm512_store_si512(reinterpret_cast<__m512i*>(part + i * 64),
                           _mm512_maskz_loadu_epi8(bytes, s + offA[a + i] + b * E));
      for (index_t k = 0; k < nb; k += TB)
        line_micro<E>::tile_to([&](int i) { return part + i * 64 + k * E; }, [&](int j, auto v) {
          if (k + j < nb) put<true>(dc + ob[k + j], v);
        });
    }
    b += nb;
  }
}
#endif

#if defined(__AVX2__)
/// One work unit of a staged_rows plan through a buffer (but under zen4 with whole-line tiles:
/// transpose_staged_lines): A indices [a_begin, a_end) (whole stages of T = staged_tile_of(E),
/// at most staged_block_bytes of each destination row) by B indices [b_begin, b_end), in passes
/// of staged_chunk_bytes of B (the last may be short, down to one index). Per
/// pass and stage of A, the stage's T source rows are copied to it one after another (the pass's
/// bytes of each: a run of whole lines and a tail), and tiles move them into the pass's buffer,
/// whose row j is destination row b0 + j from a_begin: whole-line tiles (line_micro<E>, AVX-512
/// VBMI) or, with AVX2, two 16 x 16 byte tiles at a time (transpose_bytes_16x16 on 32-byte rows).
/// Then a share of the pass before's rows streams out, staged_rows_in_turn rows at a time (each
/// row whole, or a line of each in turn: staged_rows_whole), so that its stores go while this
/// pass's loads wait; the last pass's rows go at the end. Returns false, having done nothing,
/// where the thread has no buffers (staged_rows_buffer), for the tiles in place to take the unit.
/// @pre staged_tile_of(E) > 1, a_end - a_begin a multiple of T and at most staged_block_bytes /
/// E, every destination row 64-byte aligned at a_begin.
/// Example: (4096,4096).t() uint8: units of 512 x 512, each two passes of 256 indices of B; per
/// pass, 8 stages of 64 source rows, 256 bytes each, their tiles into the buffer, and after each
/// stage 32 rows of the pass before (512 bytes each) streamed.
template <int E>
bool transpose_staged_rows(const char* s, char* d, const index_t* offA, const index_t* offB, index_t a_begin,
                           index_t a_end, index_t b_begin, index_t b_end, bool rows_whole) {
  constexpr index_t T = staged_tile_of(E);
  static_assert(T > 1, "no staged tiles on this target");
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
      if (rows_whole)
        for (index_t j = sent; j < ge; ++j) copy_nt_blocks(prev + j * pitch, dcol + offB[prev_b0 + j], row);
      else
        for (index_t k = 0; k < row; k += 64)
          for (index_t j = sent; j < ge; ++j) copy_nt_blocks(prev + j * pitch + k, dcol + offB[prev_b0 + j] + k, 64);
    }
    sent = upto;
  };
  index_t pass = 0;
  for (index_t b0 = b_begin; b0 < b_end; b0 += chunk, ++pass) {
    char* const buf = bufs[pass & 1];
    const index_t nb = std::min(chunk, b_end - b0), bytes = nb * E, whole = bytes / 64 * 64;
    // the pass before's rows go out a share after each stage of A
    const index_t share = (prev_nb + tiles_a - 1) / tiles_a;
    index_t t = 0;
    for (index_t a = a_begin; a < a_end; a += T, ++t) {
      for (index_t i = 0; i < T; ++i) {
        const char* const from = s + offA[a + i] + b0 * E;
        char* const to = stage + i * stage_row;
        for (index_t q = 0; q < whole; q += 64) copy_line(from + q, to + q);
        if (whole < bytes) std::memcpy(to + whole, from + whole, static_cast<std::size_t>(bytes - whole));
      }
      // (a short last tile: the stage past the pass's bytes holds stale bytes, whose rows stay out)
      char* const col = buf + (a - a_begin) * E;
#if defined(__AVX512F__)
      if constexpr (line_tile_of(E) > 1) {
        constexpr index_t TB = line_tile_rows_of(E);
        for (index_t c = 0; c < nb; c += TB) {
          const index_t rows = std::min<index_t>(TB, nb - c);
          line_micro<E>::tile_to([&](int i) { return stage + i * stage_row + c * E; }, [&](int j, auto v) {
            if (j < rows) put<false>(col + (c + j) * pitch, v);
          });
        }
      } else
#endif
      {
        for (index_t c = 0; c < nb; c += 32) {
          const index_t rows = std::min<index_t>(32, nb - c);
          for (index_t i0 = 0; i0 < T; i0 += 16) {
            __m256i r[16];
            LAZYVIEW_UNROLL
            for (int i = 0; i < 16; ++i)
              r[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(stage + (i0 + i) * stage_row + c));
            transpose_bytes_16x16(r);
            // row j of the low lanes' tile is destination row c + j, of the high lanes' c + 16 + j
            char* const out = col + c * pitch + i0;
            LAZYVIEW_UNROLL
            for (int j = 0; j < 16; ++j) {
              const __m256i v = r[bytes_16x16_row(j)];
              if (j < rows) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j * pitch), _mm256_castsi256_si128(v));
              if (16 + j < rows)
                _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (16 + j) * pitch), _mm256_extracti128_si256(v, 1));
            }
          }
        }
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
#else
template <int E>
bool transpose_staged_rows(const char*, char*, const index_t*, const index_t*, index_t, index_t, index_t, index_t, bool) {
  return false;  // (never planned: staged_tile_of is 1 on this target)
}
#endif

}  // namespace kernels

}  // namespace lazyview
