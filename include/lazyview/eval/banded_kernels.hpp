#pragma once
// The kernels of gathered runs taken in bands (banded_runs, eval/banded_runs.hpp), odd-sized
// elements among them: a band of destination rows swept in blocks of runs through a buffer laid
// out like the rows' lines.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "banded_runs.hpp"
#include "engine_kernels.hpp"
#include "line_writer.hpp"
#include "odd_kernels.hpp"  // copy_odd, copy_run_by_lines

namespace lazyview {

namespace kernels {

/// One band: `nrows` destination rows (at most band_rows) of n runs each, R bytes a run; run i of
/// row j is read from s + i * ss_run + j * R (a source row holds the band's runs side by side)
/// and written to d + j * ds_row + i * R. Blocks of banded_block_runs(R) runs sweep the rows left
/// to right: each source row's stretch of the band lands in the rows' buffers (laid out like
/// their lines) after asking for the stretch two blocks on; then each row's block leaves by
/// stream_row, its unfinished last line carried to the next block (the row's first and last
/// partial lines stored plainly). A run moves by 64-byte moves (K = 0: 64 < R), or as an
/// odd-sized element by two overlapping moves of K / 2 bytes (K / 2 < R < K, copy_odd).
/// @pre banded_runs' R (under banded_max_run_bytes), 0 < nrows <= band_rows.
/// Example: (1000,220,17).permute(1,0,2) fp32: R = 68, n = 1000, ss_run = 14960, ds_row = 68000:
/// blocks of 8 runs, each source row giving 544 bytes, each destination row taking 544.
template <int K>
void gather_band(const char* s, char* d, index_t nrows, index_t n, index_t R, index_t ss_run, index_t ds_row) {
  // a block's runs (under band_block_bytes + R bytes) from up to 63 bytes into the buffer row,
  // to the end of the line that holds their last byte
  constexpr index_t row_room = (63 + band_block_bytes + banded_max_run_bytes - 2) / 64 * 64 + 64;
  alignas(64) char buf[band_rows][row_room];
  alignas(64) char carry[band_rows][64];
  const index_t I = banded_block_runs(R), ahead = 2 * I, stretch = nrows * R;
  for (index_t i0 = 0; i0 < n; i0 += I) {
    const index_t ni = std::min(I, n - i0);
    const bool in = i0 > 0, out = i0 + ni < n;
    char* drow[band_rows];
    char* brow[band_rows];
    for (index_t j = 0; j < nrows; ++j) {
      drow[j] = d + j * ds_row + i0 * R;
      brow[j] = buf[j] + (reinterpret_cast<std::uintptr_t>(drow[j]) & 63);
      if (in) std::memcpy(buf[j], carry[j], 64);
    }
    for (index_t i = 0; i < ni; ++i) {
      const char* const sr = s + (i0 + i) * ss_run;
      if (i0 + i + ahead < n) {
        const char* const q = sr + ahead * ss_run;
        for (index_t o = 0; o < stretch; o += 64) prefetch_line(q + o);
        prefetch_line(q + stretch - 1);
      }
      for (index_t j = 0; j < nrows; ++j) {
        if constexpr (K == 0)
          copy_run_by_lines(sr + j * R, brow[j] + i * R, R);
        else
          copy_odd<K>(sr + j * R, brow[j] + i * R, R);
      }
    }
    for (index_t j = 0; j < nrows; ++j) stream_row(buf[j], drow[j], ni * R, in, out ? carry[j] : nullptr);
  }
}

/// Runs [first, last) of a banded_runs plan, from s and d at run `first` (idx: its outer
/// indices): whole destination rows in bands of up to band_rows (a band stays within one sweep
/// of the rows' loop), and a range's part rows at either end by gather_runs.
/// @pre banded_runs(p).
inline void gather_runs_banded(const engine_plan& p, const char* s, char* d, const index_t* idx_first,
                               index_t first, index_t last) {
  const int m = p.nouter - 1;
  const byte_loop runs = p.outer[m], rows = p.outer[m - 1];
  index_t idx[max_loops];
  std::copy(idx_first, idx_first + p.nouter, idx);
  index_t u = first;
  if (idx[m] != 0) {  // the rest of a row another range began
    const index_t to = std::min(last, u + runs.n - idx[m]);
    gather_runs(p, s, d, idx, u, to);
    for (; u < to; ++u) odometer_step(p.outer, p.nouter, idx, s, d);
  }
  const index_t R = p.run_bytes;
  const auto band_of = R > 64 ? gather_band<0> : R > 32 ? gather_band<64> : R > 16 ? gather_band<32> : gather_band<16>;
  while (last - u >= runs.n) {
    const index_t band = std::min({band_rows, rows.n - idx[m - 1], (last - u) / runs.n});
    band_of(s, d, band, runs.n, R, runs.ss, rows.ds);
    for (index_t j = 0; j < band; ++j) odometer_step(p.outer, m, idx, s, d);
    u += band * runs.n;
  }
  if (u < last) gather_runs(p, s, d, idx, u, last);
}

}  // namespace kernels

}  // namespace lazyview
