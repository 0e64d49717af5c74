#pragma once
// The engine's loops for elements without a tile kernel: strided loops of any element size, and
// transposes of odd-sized elements (3 to 63 bytes, no power of two) one element at a time, each
// moved as two overlapping power-of-two moves.
#include <cstring>

#include "engine_kernels.hpp"

namespace lazyview {

namespace kernels {

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
/// Streamed (p.nt: the unit's rows back to back, see use_streaming_stores), the rows go
/// through a line_writer (in pieces of up to gather_max_run_bytes), and each asks for its
/// source rows' lines odd_rows_ahead_bytes on:
/// those are na streams advancing R bytes a row, which the hardware prefetchers did not keep
/// up with (the agents chain (600,7,500,6).permute(0,2,1,3), fp32, 1 thread: 13 -> 31 GB/s
/// with the requests, streamed both ways; 15 in place without).
template <int K>
void transpose_block_odd(const engine_plan& p, const char* s, char* d, const index_t* offA_all, const index_t* offB,
                         index_t a_begin, index_t a_end, index_t b_begin, index_t b_end, bool ahead) {
  const index_t R = p.elem, na = a_end - a_begin;
  const index_t* const offA = offA_all + a_begin;
  char* const dcol = d + a_begin * R;
  if (p.nt) {
    line_writer<> w(dcol + offB[b_begin]);
    const index_t piece = gather_max_run_bytes / R;  // elements the writer takes at once
    for (index_t b = b_begin; b < b_end; ++b) {
      const char* const sb = s + b * R;
      for (index_t a = 0; a < na; ++a) prefetch_line(sb + offA[a] + odd_rows_ahead_bytes);
      for (index_t a0 = 0; a0 < na; a0 += piece) {
        const index_t a1 = std::min(na, a0 + piece);
        char* const dr = w.at();
        for (index_t a = a0; a < a1; ++a) copy_odd<K>(sb + offA[a], dr + (a - a0) * R, R);
        w.wrote((a1 - a0) * R);
      }
    }
    w.finish();
    return;
  }
  for (index_t b = b_begin; b < b_end; ++b) {
    char* const dr = dcol + offB[b];
    const char* const sb = s + b * R;
    if (ahead && b + 2 < b_end) prefetch_for_write(dcol + offB[b + 2], na * R);
    for (index_t a = 0; a < na; ++a) copy_odd<K>(sb + offA[a], dr + a * R, R);
  }
}

}  // namespace kernels

}  // namespace lazyview
