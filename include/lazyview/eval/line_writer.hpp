#pragma once
// Destination written through a buffer laid out like its cache lines: whole lines leave by
// streaming stores, partial ones (a stretch's ends) by plain stores, so that no streaming store
// ever covers part of a line (it would cost a read of that line) or bytes of another work unit.
#include <cstdint>
#include <cstring>

#include "engine_plan.hpp"

namespace lazyview {

namespace kernels {

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
