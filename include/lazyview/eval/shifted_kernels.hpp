#pragma once
// Streamed transposes into destination rows that all start the same number of bytes into a cache
// line (engine_plan::nt_shifted): a std::vector from glibc starts 16 bytes into a line, and so
// does every row of FLUX's pack into it. The lines are the aligned path's (transpose_stream_lines)
// moved by that offset: whole lines of each row stream straight from the tiles, and the line a
// row's tail shares with the next row's head streams too where the two rows lie back to back, in
// one unit or in two that run one after the other on a thread (a unit's tails carried to the
// next, seam_lists).
#include <cstdint>
#include <cstring>

#include "engine_kernels.hpp"
#include "line_writer.hpp"  // line_carry, seam_lists

namespace lazyview {

namespace kernels {

/// The seams of a unit's rows, in the order they go out: the line that holds the tail of one row
/// and the head of the next where the two lie back to back. Each row starts m bytes into a line
/// (its head: the 64 - m bytes before its first line boundary; its tail: the m bytes after its
/// last) and is whole lines long.
/// put(image, d, n, row) sends the row of `row` bytes at d from `image`, a copy laid out like
/// its lines: the row's bytes from image + m on, the tail of the row sent before it in
/// [image, image + m). Where that row ends at d, the line at d - m (the seam) streams whole;
/// otherwise the tail before is kept for the next unit (seam_lists) or goes plainly, and this
/// row's head streams whole with a tail the unit before kept for it, or goes plainly. Then the
/// image's next lines up to n bytes from its start stream (n: the row's whole lines, or 64 for
/// the seam alone), and this row's tail waits for the next row. finish(tail) sends the last one
/// as a tail that no row continues.
/// Example: rows of 256 bytes at 16 mod 64, back to back: each row's first line is the 16-byte
/// tail of the row before and 48 bytes of its own, streamed as one line; only the unit's first
/// head and last tail go plainly, or join the units before and after on the thread.
class row_seams {
 public:
  row_seams(index_t m, const line_carry& carry) : m_(m), lists_(carry) {}
  /// @pre image 64-byte aligned, n a multiple of 64, d at m mod 64.
  void put(char* image, char* d, index_t n, index_t row) {
    if (pending_ == d - m_) {
      copy_nt_blocks(image, d - m_, n);
    } else {
      if (pending_) tail_out(image);
      if (const char* const tail = lists_.take(d)) {
        std::memcpy(image, tail + 64 - m_, static_cast<std::size_t>(m_));
        copy_nt_blocks(image, d - m_, n);
      } else {
        std::memcpy(d, image + m_, static_cast<std::size_t>(64 - m_));
        if (n > 64) copy_nt_blocks(image + 64, d - m_ + 64, n - 64);
      }
    }
    pending_ = d + row - m_;
  }
  void finish(const char* tail) {
    if (pending_) tail_out(tail);
    lists_.close(m_);
  }

 private:
  // the tail at `tail` of the row whose last line starts at pending_, no row of the unit after it
  void tail_out(const char* tail) {
    if (char* const at = lists_.keep(pending_ + m_))
      std::memcpy(at + 64 - m_, tail, static_cast<std::size_t>(m_));
    else
      std::memcpy(pending_, tail, static_cast<std::size_t>(m_));
  }
  index_t m_;
  seam_lists lists_;
  char* pending_ = nullptr;  // where the last row's tail goes (the line start of it)
};

/// Rows of up to shifted_row_bytes over close source rows: per T rows of B, the tiles fill an
/// image of each row laid out like its lines (row bytes from m), and each row goes out whole,
/// as transpose_stream_lines gathers such rows where they start on lines.
inline constexpr index_t shifted_row_bytes = 1024;

/// shifted rows, close source rows, na * E <= shifted_row_bytes (see transpose_shifted).
template <int E, class Row>
void shifted_rows(const char* s, char* dcol, const index_t* offB, index_t na, index_t b_begin, index_t b_end,
                  index_t m, Row row, unit_requests<E>& req, const line_carry& carry) {
  constexpr int T = micro<E>::T, L = 64 / E, G = L / T;
  constexpr index_t W = shifted_row_bytes + 64;
  // image i at images + (i + 1) * W; image -1: the last row's tail line, from the step before
  alignas(64) char images[(T + 1) * W];
  const auto image = [&images](int i) { return images + (i + 1) * W; };
  const index_t n = na * E;
  row_seams seams(m, carry);
  for (index_t b = b_begin, step = 0, done = b_begin; b < b_end; b += T, ++step) {
    if (b + T > b_end) b = b_end - T;  // (as transpose_stream_lines: rows before `done` again)
    req.ask(step);
    const char* const sb = s + b * E;
    for (index_t a = 0; a < na; a += L)
      for (int g = 0; g < G; ++g) {
        char* const out = image(0) + m + (a + g * T) * E;
        micro<E>::tile([&](int i) { return sb + row(a + g * T + i); }, [&](int i) { return out + i * W; });
      }
    for (int i = static_cast<int>(done - b); i < T; ++i) {
      // the row before's tail: the last line of its image (the carried one for the step's first)
      std::memcpy(image(i), i == 0 ? image(-1) : image(i - 1) + n, static_cast<std::size_t>(m));
      seams.put(image(i), dcol + offB[b + i], n, n);
    }
    std::memcpy(image(-1), image(T - 1) + n, 64);
    done = b + T;
  }
  seams.finish(image(-1));
}

/// shifted rows, far-apart source rows or longer rows (see transpose_shifted): in passes along
/// A, each over all of the unit's B: first the seams (each row's head and tail, L elements
/// from 2L source rows at most), then the whole lines between, transpose_block_bytes of each
/// row a pass, as units of transpose_stream_lines take them where rows start on lines.
template <int E, class Row>
void shifted_lines(const char* s, char* dcol, const index_t* offB, index_t na, index_t b_begin, index_t b_end,
                   index_t m, index_t ahead, Row row, unit_requests<E>& req, const line_carry& carry) {
  constexpr int T = micro<E>::T, L = 64 / E, G = L / T;
  const index_t h = (64 - m) / E, t0 = na - m / E;  // lines [h, t0) of A
  // area i: the seam line before row i of a step ([tail of row i - 1 | head of row i]), with a
  // line either side for the tiles that reach past a head or before a tail (32 bytes at most)
  constexpr index_t A = 192;
  alignas(64) char areas[(T + 1) * A];
  const auto area = [&areas](int i) { return areas + i * A + 64; };
  // The tiles of A indices [a0, a1) (one at least), row i of B at `to` + i * A + (a - a0) * E; a
  // tile that would start before 0 starts at 0 (its indices past a1 land past the area's line).
  const auto tiles = [&](const char* sb, index_t a0, index_t a1, char* to) {
    for (index_t x0 = a0;; x0 += T) {
      const index_t x = std::max<index_t>(0, std::min(x0, a1 - T));
      char* const out = to + (x - a0) * E;
      micro<E>::tile([&](int i) { return sb + row(x + i); }, [&](int i) { return out + i * A; });
      if (x0 + T >= a1) break;
    }
  };
  const index_t nb = b_end - b_begin, steps = (nb + T - 1) / T;
  const index_t pass = std::max<index_t>(L, transpose_block_bytes / E / L * L);
  const index_t passes = 1 + (t0 - h + pass - 1) / pass;
  row_seams seams(m, carry);
  for (index_t p = 0; p < passes; ++p) {
    const index_t a_lo = h + (p - 1) * pass, a_hi = std::min(t0, a_lo + pass);
    for (index_t b = b_begin, step = 0, done = b_begin; b < b_end; b += T, ++step) {
      if (b + T > b_end) b = b_end - T;
      req.ask((p * steps + step) / passes);
      const char* const sb = s + b * E;
      if (p == 0) {
        if (ahead != 0)
          for (index_t a = 0; a < na; a = a + 1 == h ? t0 : a + 1) prefetch_line<prefetch_to::l2>(sb + row(a) + ahead);
        const int first = static_cast<int>(done - b);
        if (first == 0) std::memcpy(area(0), area(T), 64);  // the tail of the step before's last row
        tiles(sb, 0, h, area(0) + m);
        tiles(sb, t0, na, area(1));  // (tiles of a head never reach [0, m) of an area)
        for (int i = first; i < T; ++i) seams.put(area(i), dcol + offB[b + i], 64, na * E);
        done = b + T;
        continue;
      }
      char* drows[T];
      LAZYVIEW_UNROLL
      for (int i = 0; i < T; ++i) drows[i] = dcol + offB[b + i];
      // (stream_lines_rows' lines, written out again: the two as one inlined helper ran FLUX
      // pack fp32 (4,16,256,256) at 0.41-0.64 of a streaming copy on lines, against 0.58-0.66,
      // and 0.40-0.46 shifted, against 0.49-0.55, with a third fewer instructions; Zen 3 VM,
      // 1 thread, 5 alternated pairs)
      for (index_t a = a_lo; a < a_hi; a += L) {
        alignas(64) char buf[T * 64];  // (kept in registers)
        if (ahead != 0)
          for (int j = 0; j < L; ++j) prefetch_line<prefetch_to::l2>(sb + row(a + j) + ahead);
        for (int g = 0; g < G; ++g) {
          char* const out = buf + g * T * E;
          micro<E>::tile([&](int i) { return sb + row(a + g * T + i); }, [&](int i) { return out + i * 64; });
        }
        for (int i = 0; i < T; ++i) copy_nt_blocks(buf + i * 64, drows[i] + a * E, 64);
      }
    }
  }
  seams.finish(area(T));
}

/// One work unit of an nt_shifted plan: B indices [b_begin, b_end) across all of A (A whole),
/// every destination row starting m = (d + offB[b]) mod 64 bytes into a line, the same m for
/// all, a multiple of E, and whole lines long. Rows of up to shifted_row_bytes over close
/// source rows go out whole (shifted_rows), others in passes of lines (shifted_lines); either
/// way the line a row's tail shares with the next row's head streams where they lie back to
/// back, in the unit or (carry.seams, as transpose_shifted_tiles') in two that run one after the
/// other on a thread, and otherwise each of its two parts goes plainly. `ahead`, `next`: as
/// transpose_stream_lines' (next: asked for a share per step of the unit).
/// Example: FLUX pack (4,16,256,256) fp32 into a std::vector (16 mod 64): 8-byte elements, A =
/// 32 (rows of 256 bytes back to back), far-apart source rows: a pass of seams (each 48 + 16
/// bytes from 8 source rows), then two of lines ([6, 22) and [22, 30) of A).
/// @pre na * E a multiple of 64, b_end - b_begin >= micro<E>::T, stream_lines_fit(E), m != 0.
template <int E>
void transpose_shifted(const engine_plan& p, const char* s, char* d, const index_t* offA, const index_t* offB,
                       index_t b_begin, index_t b_end, index_t ahead, const unit_source& next = {},
                       const line_carry& carry = {}) {
  if constexpr (stream_lines_fit(E)) {
    const index_t na = p.nA, m = static_cast<index_t>(reinterpret_cast<std::uintptr_t>(d + offB[b_begin]) & 63);
    const bool whole = !far_source_rows(p) && na * E <= shifted_row_bytes;
    const index_t steps = (b_end - b_begin + micro<E>::T - 1) / micro<E>::T;
    unit_requests<E> req(next, offA, steps);
    const auto by = [&](auto row) {
      if (whole)
        shifted_rows<E>(s, d, offB, na, b_begin, b_end, m, row, req, carry);
      else
        shifted_lines<E>(s, d, offB, na, b_begin, b_end, m, ahead, row, req, carry);
    };
    // (rows evenly spaced and close: offsets computed, as transpose_stream_lines does)
    if (p.na == 1 && !far_source_rows(p))
      by([s_step = p.ga[0].ss, first = offA[0]](index_t a) { return first + a * s_step; });
    else
      by([offA](index_t a) { return offA[a]; });
  }
}

}  // namespace kernels

}  // namespace lazyview
