#pragma once
// Destination written through a buffer laid out like its cache lines: whole lines leave by
// streaming stores, partial ones (a stretch's ends) by plain stores, so that no streaming store
// ever covers part of a line (it would cost a read of that line) or bytes of another work unit.
#include <cstdint>
#include <cstring>

#include "engine_plan.hpp"

namespace lazyview {

namespace kernels {

struct shifted_carry;

/// The line a streamed unit of nt_rows leaves unfinished at the end of each destination row,
/// for the unit of the next block of A over the same rows to complete: a row's piece ends
/// mid-line where that unit's starts. Chunk-major, that unit runs next (units of one chunk of B
/// run along A one after another); in panels, a panel later. `rows`: one 64-byte line image per
/// row, from row b0 (the chunk's first; in panels, 0: a line per row of B). `in`: this unit
/// starts where that of the block before stopped, whose unfinished lines are in `rows`; `out`:
/// the unit of the next block continues this one's rows.
/// Example: fp32 rows at 28 mod 64, units of 512 bytes: bytes 28-63 of a row's first line go
/// plainly, then each unit streams whole lines up to its last 28 bytes, which the next one
/// streams with its first 36; the row's last unit stores its last 28 bytes plainly. Without
/// it, every unit stored two partial lines per row plainly, each a line read from memory for
/// ownership.
struct line_carry {
  char* rows = nullptr;  ///< nullptr: no carry (every row's ends go plainly)
  index_t b0 = 0;
  bool in = false, out = false;
  shifted_carry* seams = nullptr;  ///< nt_shifted's instead of rows (in and out as above)
};

/// The row tails that a unit of an nt_shifted plan (kernels::transpose_shifted_tiles, or
/// transpose_shifted without whole-line tiles) leaves for the unit that runs after it on the
/// same thread, whose rows may start where they end (FLUX unpack: outer iteration h writes rows
/// 2h and 2h + 1 of each channel, h + 1 the rows after them): two lists of each row's end and a
/// line whose last m bytes are its tail, one filled while the unit reads the other, in turn. A
/// seam line so joined streams whole, where its two parts went plainly, each a line read for
/// ownership.
/// Why: on the 2-core Intel Xeon VM (Emerald Rapids), FLUX unpack bf16 (4,16,256,256) into a
/// std::vector (rows 16 bytes into a line), 1 thread, ran 13.7 GB/s with those seams plain and
/// 25 with them left out (wrong values, the same streamed lines); into an aligned buffer, 27.
/// Carried, bench/ab_headers (DST_OFFSET=16, B/A medians of 9 rounds): FLUX unpack bf16
/// (4,16,256,256) 1.42x (2 threads 1.41x), fp32 1.38x (1.33x), fp32 (16,16,256,256) 1.30x; pack,
/// whose units' rows lie back to back already but for the first, 1.01-1.03x; (3200,64,64).
/// permute(0,2,1) uint8 1.09x, (1600,64,64) 2-byte 1.08x, (1000,64,50) fp32 1.04x. The same
/// VM, built for AVX2 (transpose_shifted's register tiles): FLUX unpack bf16 (4,16,256,256)
/// 1.14x (2 threads 1.09x), fp32 1.19x (1.16x), fp32 (16,16,256,256) 1.29x; pack 1.02-1.07x;
/// built for x86-64 (SSE2), unpack 1.15x (bf16) and 1.25x (fp32).
/// Example: FLUX unpack fp32 (4,16,256,256) into a std::vector: units of 32 rows (16 channels
/// by 2), whose 16 tails each the next unit's 16 heads continue.
/// @pre buf holds bytes(rows); a unit has at most `rows` rows.
struct shifted_carry {
  char** ends[2];  ///< per list, the rows' ends (one past their last byte)
  char* lines[2];  ///< per list, 64 bytes an entry, whose last m are the row's last m bytes
  index_t n[2] = {0, 0};
  int in = 0;  ///< the list the next unit reads; it fills 1 - in
  /// Space for lists of `rows` entries each in `buf`, of bytes(rows).
  static constexpr std::size_t bytes(index_t rows) {
    return static_cast<std::size_t>(rows) * 2 * (64 + sizeof(char*)) + 64;
  }
  shifted_carry(char* buf, index_t rows) {
    char* const at = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(buf) + 63) & ~std::uintptr_t{63});
    lines[0] = at;
    lines[1] = at + rows * 64;
    ends[0] = reinterpret_cast<char**>(at + 2 * rows * 64);
    ends[1] = ends[0] + rows;
  }
};

/// One unit's use of a shifted_carry (of line_carry::seams; none: every seam part goes plainly),
/// the same for both nt_shifted kernels (transpose_shifted_tiles, transpose_shifted): keep() the
/// tail of a row that no row of the unit continues, take() the tail that ends where a head of
/// the unit starts, and close(m) at the unit's end, which stores plainly the tails of the unit
/// before that no head took (an entry's last m bytes, to the m bytes before its row's end).
/// Example: FLUX unpack fp32 (4,16,256,256) into a std::vector, units of 32 rows: a unit keeps
/// its 16 rows 2h + 1's tails; the next takes each for its row 2h + 2 and closes with none left.
class seam_lists {
 public:
  explicit seam_lists(const line_carry& carry)
      : c_(carry.seams), from_(c_ && carry.in), to_(c_ && carry.out), li_(c_ ? c_->in : 0) {
    if (to_) c_->n[1 - li_] = 0;
  }
  /// Where the row ending at `end` leaves its 64-byte entry (tail last) for the next unit;
  /// nullptr: it runs on no next unit of this thread, the tail goes plainly.
  char* keep(char* end) {
    if (!to_) return nullptr;
    const index_t k = c_->n[1 - li_]++;
    c_->ends[1 - li_][k] = end;
    return c_->lines[1 - li_] + 64 * k;
  }
  /// The entry the unit before kept for a row ending at `row` (now taken), or nullptr.
  const char* take(const char* row) {
    const index_t n = from_ ? c_->n[li_] : 0;
    for (index_t q = 0; q < n; ++q) {
      const index_t k = hint_ + q < n ? hint_ + q : hint_ + q - n;
      if (c_->ends[li_][k] != row) continue;
      c_->ends[li_][k] = nullptr;
      hint_ = k + 1;
      return c_->lines[li_] + 64 * k;
    }
    return nullptr;
  }
  /// Stores plainly each tail of m bytes that the unit before kept and no head took.
  void close(index_t m) {
    if (from_)
      for (index_t k = 0; k < c_->n[li_]; ++k)
        if (char* const end = c_->ends[li_][k])
          std::memcpy(end - m, c_->lines[li_] + 64 * k + 64 - m, static_cast<std::size_t>(m));
    if (to_) c_->in = 1 - li_;
  }

 private:
  shifted_carry* c_;
  bool from_, to_;
  int li_;  // the list read; the other is filled
  index_t hint_ = 0;  // where take() searches from: rows come in the order their tails went
};

/// Streams one destination row out of a buffer row laid out like its lines: `buf` is the line
/// start before d (row bytes [m, m + n) at buf + m, m = d mod 64; with carry_in, bytes [0, m)
/// also hold the unfinished line of the piece before). Whole lines go by streaming stores; a
/// partial line at the start goes plainly unless carried in, one at the end is kept in
/// `carry_out` (if not null) or goes plainly.
/// @pre buf 64-byte aligned, with room for the line past the row's last byte.
inline void stream_row(const char* buf, char* d, index_t n, bool carry_in, char* carry_out) {
  const auto m = static_cast<index_t>(reinterpret_cast<std::uintptr_t>(d) & 63);
  char* const dl = d - m;
  const index_t v0 = carry_in ? 0 : m, end = m + n;
  const index_t lo = (v0 + 63) & ~index_t{63}, hi = end & ~index_t{63};
  if (end <= lo) {  // all in one partial line
    if (carry_out)
      std::memcpy(carry_out, buf, 64);
    else
      std::memcpy(dl + v0, buf + v0, static_cast<std::size_t>(end - v0));
    return;
  }
  if (v0 < lo) std::memcpy(dl + v0, buf + v0, static_cast<std::size_t>(lo - v0));
  if (hi > lo) copy_nt_blocks(buf + lo, dl + lo, hi - lo);
  if (hi < end) {
    if (carry_out)
      std::memcpy(carry_out, buf + hi, 64);
    else
      std::memcpy(dl + hi, buf + hi, static_cast<std::size_t>(end - hi));
  }
}

/// Writes one stretch of destination in order through a buffer laid out like its lines: the
/// caller puts up to `Room` bytes at at() and says so by wrote(); once `Flush` bytes or more
/// are waiting, every whole line among them streams out and the unfinished last line moves to
/// the buffer's start; finish() writes the rest, its last partial line (and a first one, where
/// the stretch starts mid-line) stored plainly.
/// Defaults: gathered runs (kernels::gather_runs) and odd-sized rows (transpose_block_odd),
/// pieces of up to gather_max_run_bytes, lines out about every gather_chunk_bytes.
/// Example: a stretch from 16 mod 64, pieces of 1000 bytes: at the fifth piece the buffer holds
/// 5016 bytes from the first line's start (past 4096), so bytes 16-63 go plainly, the 77 whole
/// lines after them by streaming stores, and the last 24 bytes move to the buffer's start.
template <index_t Flush = gather_chunk_bytes, index_t Room = gather_max_run_bytes>
class line_writer {
  static_assert(Flush >= 64 && Room >= 64);

 public:
  explicit line_writer(char* d)
      : m_(static_cast<index_t>(reinterpret_cast<std::uintptr_t>(d) & 63)), q_(d - m_), fill_(m_), head_(m_ != 0) {}
  char* at() { return buf_ + fill_; }
  /// @pre n <= Room, and the n bytes at at() written.
  void wrote(index_t n) {
    fill_ += n;
    if (fill_ < Flush) return;
    const index_t hi = fill_ & ~index_t{63};
    if (head_)
      stream_row(buf_, q_ + m_, hi - m_, false, nullptr);
    else
      copy_nt_blocks(buf_, q_, hi);
    head_ = false;
    q_ += hi;
    fill_ -= hi;
    std::memcpy(buf_, buf_ + hi, static_cast<std::size_t>(fill_));
  }
  void finish() {
    const index_t v0 = head_ ? m_ : 0;
    if (fill_ > v0) stream_row(buf_, q_ + v0, fill_ - v0, false, nullptr);
  }

 private:
  alignas(64) char buf_[Flush + Room + 64];
  index_t m_;
  char* q_;  // the line where buf_ starts
  index_t fill_;
  bool head_;  // buf_'s first line is partly someone else's
};

}  // namespace kernels

}  // namespace lazyview
