#pragma once
// Transposes in tiles whose rows are whole cache lines (line_micro, AVX-512) or, without them,
// register tiles through a buffer of lines: one work unit at a time, in place (4- and 8-byte
// elements into rows at different offsets into a line joined into whole lines), streamed
// straight to rows that start on lines, or streamed through a buffer whose rows leave in whole
// lines with their unfinished ends carried from unit to unit (nt_rows); bytes over source rows a
// multiple of 4 KiB apart, through a stage and a buffer (eval/staged_rows.hpp). The plain and
// buffered tiles, the streamed rows of far-apart sources and the gathered runs are
// eval/engine_kernels.hpp's.
#include <cstdint>
#include <cstring>

#include "engine_kernels.hpp"
#include "joined_rows.hpp"
#include "line_writer.hpp"
#include "staged_rows.hpp"
#include "rotated_rows.hpp"
#include "shifted_tiles.hpp"

namespace lazyview {

namespace kernels {

/// Where the tiles of transpose_lines store: in place (plain stores), streamed straight to
/// rows that are whole lines, or streamed through a buffer for rows that are not (nt_rows).
enum class line_out { in_place, stream, stream_rows };

/// staged_tiles_to's tiles stored straight to destination rows: `drow(j)`: destination row j
/// of the G * TB, at the tiles' first A index. Only tiles [k0, k1) of the G go (see
/// split_sweeps in transpose_lines); their source lines are staged whole all the same.
template <int E, bool NT, class L, class D>
LAZYVIEW_ALWAYS_INLINE inline void staged_tiles(L line, D drow, int k0 = 0, int k1 = 64 / (line_micro<E>::TB * E)) {
  staged_tiles_to<E>(line, [&](int j, auto v) { put<NT>(drow(j), v); }, k0, k1);
}

/// Two whole-line tiles side by side along A, over 128 bytes of each of their 2T source rows
/// (engine_plan::pairs): line(i) is source row i (of 2T) at the step's first index of B, drow(j)
/// destination row j (of 128 / E) at the pair's first index of A. The source rows are staged
/// two lines each, in order; per tile row of B, the first tile lands in a small buffer and the
/// second streams each destination row's two lines one after the other.
/// @pre every drow(j) 64-byte aligned.
template <int E, class L, class D>
LAZYVIEW_ALWAYS_INLINE inline void paired_tiles(L line, D drow) {
  using micro_t = line_micro<E>;
  constexpr int T = micro_t::T, TB = micro_t::TB, K = 128 / (TB * E);
  alignas(64) char stage[2 * T * 128];
  alignas(64) char first[TB * 64];
  for (int i = 0; i < 2 * T; ++i) {
    copy_line(line(i), stage + i * 128);
    copy_line(line(i) + 64, stage + i * 128 + 64);
  }
  for (int k = 0; k < K; ++k) {
    micro_t::template tile<false>([&](int i) { return stage + i * 128 + k * TB * E; },
                                  [&](int j) { return first + j * 64; });
    micro_t::tile_to([&](int i) { return stage + (T + i) * 128 + k * TB * E; }, [&](int j, auto v) {
      char* const q = drow(k * TB + j);
      put<true>(q, load_as(first + j * 64, v));
      put<true>(q + 64, v);
    });
  }
}

/// transpose_block with tiles whose rows are one whole line (line_micro<E>: T * E = 64 along A,
/// TB rows of B). line_out::stream: straight to the destination by streaming stores, no buffer.
/// in_place: by plain stores, the tiles after the first shifted to whole lines of a misaligned
/// destination as in transpose_block; 4- and 8-byte elements into rows at different offsets
/// into a line, past L1, in steps of 8 rows joined into whole lines (joined_rows_step).
/// stream_rows: per TB rows of B, the tiles land in a buffer whose rows share their destination
/// rows' offsets within a line, then each row leaves by stream_row (whole lines streamed; an
/// unfinished line at either end is carried between the units of a chunk, see line_carry, or
/// stored plainly). Per TB rows of B, the destination row pointers are built once and the tiles
/// sweep A; in place, where the unit's source rows crowd fewer cache sets than its destination
/// rows (sweep_source_rows), each tile of A sweeps B
/// instead (engine_plan::tiles_of_a), and so do streamed panels (engine_plan::panels). In place,
/// steps of B may go by half tiles, half as many rows each (engine_plan::half_steps).
/// `next` (if its s is set): while the unit runs it asks for the source lines of the unit that
/// runs after it, a few of its rows per step of B or tile of A (unit_requests): (4096,4096).t() fp32
/// streamed, on a 2-core Zen 5 VM, ran
/// 31-38 GB/s, against 23-25 with the same requests made a tile column at a time across the
/// rows and 19-20 with requests 512 bytes ahead along each row (a streaming copy: 40-50).
/// A unit of fewer than TB indices of B (at least TB / 2: see line_tiles) runs as one step of
/// partial tiles, which read and write only its rows. Streamed with engine_plan::pairs, a unit
/// of whole pairs of tiles along A goes by paired_tiles, 128 bytes of B a step, the B left over
/// as above.
/// Targets without whole-line tiles run stream_rows only, with the register tiles of micro<E>
/// (kernels::rows_tile_of): their rows are part of a line, which the buffer assembles.
/// `rep`: in place, the unit and rep.n - 1 more, each rep's strides on (see unit_repeat), with
/// no `next` and no carry.
/// @pre na = a_end - a_begin >= T and b_end - b_begin >= TB / 2 (register tiles: >= T); with
/// stream, na a multiple of T and every destination row 64-byte aligned (use_streaming_stores
/// sees to both); with stream_rows, na * E <= transpose_direct_bytes.
template <int E, line_out Out>
void transpose_lines(const engine_plan& p, const char* s, char* d, const index_t* offA, const index_t* offB,
                     index_t a_begin, index_t a_end, index_t b_begin, index_t b_end, const unit_source& next,
                     const line_carry& carry = {}, const unit_repeat& rep = {}) {
  // Register tiles (no whole-line tiles on this target) only through the buffer: their rows are
  // part of a line. A last step short of T rows is then a whole tile moved back, whose rows
  // done already are not streamed again.
  constexpr bool Wide = line_micro<E>::T > 1;
  constexpr int T = Wide ? line_micro<E>::T : micro<E>::T;  // along A
  constexpr int TB = Wide ? line_micro<E>::TB : T;          // along B: rows per step
  static_assert(Wide ? T * E == 64 : (T > 1 && Out == line_out::stream_rows));
  constexpr bool NT = Out == line_out::stream;
  constexpr bool Rows = Out == line_out::stream_rows;
  constexpr index_t buf_row = transpose_direct_bytes + 64;
  alignas(64) char buf[Rows ? TB * buf_row : 1];
  char* dcol = d + a_begin * E;  // (s and dcol move on by rep, and head with them)
  const index_t* const oa = offA + a_begin;
  const index_t na = a_end - a_begin;
  const auto head_at = [&] { return Out == line_out::in_place ? aligned_head(p, dcol + offB[b_begin], E, 64) : 0; };
  index_t head = head_at();
  // in place or in panels, tiles of A each sweeping B (engine_plan::tiles_of_a, panels), the
  // unit's requests then a share per tile of A; else steps of B each sweeping A, requests a
  // share per step
  const bool a_major =
      ((Out == line_out::in_place && p.tiles_of_a) || (NT && p.panels)) && b_end - b_begin >= TB;
  index_t tiles_a = 0;
  if (a_major) for_tiles_a<T>(na, head, [&](index_t) { ++tiles_a; });
  // in place, 4-byte elements: steps of TB / 2 rows of B in half tiles, where a step's TB
  // destination rows crowd a few L1 sets (engine_plan::half_steps)
  // (a_major and half_steps exclude each other: half_steps_in_place asks for steps of B)
  constexpr bool can_half = Out == line_out::in_place && E == 4 && Wide;
  constexpr index_t TH = TB / 2;
  const bool half = can_half && p.half_steps;
  // in place, 4- and 8-byte elements into rows at different offsets into a line, rows long
  // enough: steps of joined_step_rows, each row's tiles joined into whole lines
  // (joined_rows_step; every rep's rows as far into a line as the first's, to a dword)
  constexpr bool can_join = Out == line_out::in_place && Wide && (E == 4 || E == 8);
  const bool joined = can_join && !a_major && (rep.n == 1 || rep.ds % 4 == 0) && joined_rows_fit(p, na * E) &&
                      rows_offsets_differ(p, dcol + offB[b_begin]);
  const index_t step_rows = joined ? joined_step_rows : half ? TH : TB;  // rows of B a step
  const index_t steps = (b_end - b_begin + step_rows - 1) / step_rows;
  unit_requests<E> req(next, offA, a_major ? tiles_a : steps);
  // rows b, b+1, ... b+rows-1 of B across the unit's A; rows [0, skip) land in the buffer
  // but do not go out (register tiles' last step, moved back)
  const auto step_at = [&]<bool Part>(index_t b, int rows, int skip = 0) {
    char* drows[TB];
    char* brows[TB];  // Rows: where each row lands in the buffer
    for (int i = 0; i < rows; ++i) {
      drows[i] = dcol + offB[b + i];
      if constexpr (Rows) {
        brows[i] = buf + i * buf_row + (reinterpret_cast<std::uintptr_t>(drows[i]) & 63);
        if (carry.in && i >= skip) std::memcpy(buf + i * buf_row, carry.rows + (b + i - carry.b0) * 64, 64);
      }
    }
    char* const* const to = Rows ? brows : drows;
    const char* const sb = s + b * E;
    for_tiles_a<T>(na, head, [&](index_t a) {
      const index_t dof = a * E;
      if constexpr (Wide)
        line_micro<E>::template tile<NT, Part>([&](int i) { return sb + oa[a + i]; },
                                               [&](int i) { return to[i] + dof; }, rows);
      else
        micro<E>::tile([&](int i) { return sb + oa[a + i]; }, [&](int i) { return to[i] + dof; });
    });
    if constexpr (Rows)
      for (int i = skip; i < rows; ++i)
        stream_row(buf + i * buf_row, drows[i], na * E, carry.in,
                   carry.out ? carry.rows + (b + i - carry.b0) * 64 : nullptr);
  };
  // Tiles that read part of a line of each source row (TB * E < 64: 1- and 2-byte elements)
  // take, in place or streamed, G steps of B per sweep over A where B has them: per tile of A,
  // each source row's line is copied once, whole, to a small buffer, from which the G tiles
  // read it. Read in place by each step in turn, a line's four visits (bytes) missed L1 when a
  // unit's source rows lie a power of two apart, all in one cache set: (4096,4096).t() uint8,
  // 16 MiB, 4.3 -> 9.2 GB/s at 1 thread; (4032,4096).t() (source rows 4096 bytes apart, the
  // destination's 4032) 4.9 -> 9.6; (4160,4160).t() and (1088,1088).t() (in cache) alike
  // either way (2-core Zen 4 VM, medians of 9).
  // Streamed with engine_plan::split_sweeps (destination rows a power of two apart), a staged
  // step sweeps A twice, the first G / 2 tiles of each staged line, then the rest: half as many
  // destination rows in turn (aliased_destination_rows).
  constexpr int G = Wide && !Rows ? 64 / (TB * E) : 1;
  const int sweeps = NT && G > 1 && p.split_sweeps ? 2 : 1;
  const auto steps_at = [&](index_t b) {
    if constexpr (G > 1) {
      char* drows[64 / E];  // (G * TB rows; G * TB as the bound crashes g++ 12)
      for (int i = 0; i < G * TB; ++i) drows[i] = dcol + offB[b + i];
      const char* const sb = s + b * E;
      for (int h = 0; h < sweeps; ++h)
        for_tiles_a<T>(na, head, [&](index_t a) {
          staged_tiles<E, NT>([&](int i) { return sb + oa[a + i]; }, [&](int j) { return drows[j] + a * E; },
                              h * G / sweeps, (h + 1) * G / sweeps);
        });
    } else {
      (void)b;
    }
  };
  // The unit, as many times as rep says, each moved on by rep's strides (in place only, without
  // requests or carries: see unit_repeat). Inlined: as a function of its own, reading its
  // captures through memory, it ran FLUX unpack fp32 (1,16,128,128) 4% slower than before.
  const auto run_unit = [&]() LAZYVIEW_ALWAYS_INLINE {
    if constexpr (Wide) {  // (register tiles: b_end - b_begin >= T, see transpose_unit_lines_of)
      if (b_end - b_begin < TB) {
        req.ask(0);
        step_at.template operator()<true>(b_begin, static_cast<int>(b_end - b_begin));
        return;
      }
    }
    // Tiles of A, each sweeping B (see sweep_source_rows); 1- and 2-byte tiles take their source
    // lines staged, G steps at a time, as steps_at above does.
    if constexpr (!Rows) {
      if (a_major) {
        index_t k = 0;
        for_tiles_a<T>(na, head, [&](index_t a) {
          req.ask(k++);
          const char* srow[T];
          for (int i = 0; i < T; ++i) srow[i] = s + oa[a + i];
          char* const dc = dcol + a * E;
          index_t b = b_begin;
          if constexpr (G > 1) {
            for (; b + G * TB <= b_end; b += G * TB)
              staged_tiles<E, NT>([&](int i) { return srow[i] + b * E; }, [&](int j) { return dc + offB[b + j]; });
          }
          // A last step short of TB: in place, a whole tile moved back; streamed, a partial tile
          // (rows stored twice would go to memory twice).
          for (; b < b_end; b += TB) {
            if constexpr (NT) {
              if (b + TB > b_end) {
                line_micro<E>::template tile<true, true>([&](int i) { return srow[i] + b * E; },
                                                         [&](int i) { return dc + offB[b + i]; },
                                                         static_cast<int>(b_end - b));
                break;
              }
            }
            const index_t bb = std::min(b, b_end - TB);
            line_micro<E>::template tile<NT, false>([&](int i) { return srow[i] + bb * E; },
                                                    [&](int i) { return dc + offB[bb + i]; });
          }
        });
        return;
      }
    }
    // in place, steps of S rows of B each sweeping A, a last step short of S moved back over rows
    // done; step_rows(sb, drows): the step's source at A index 0 and its S destination rows
    const auto steps_of = [&]<int S>(auto&& step_rows) {
      for (index_t b = b_begin, step = 0;; b += S, ++step) {
        req.ask(step);
        const index_t bb = std::min(b, b_end - S);
        char* drows[S];
        for (int i = 0; i < S; ++i) drows[i] = dcol + offB[bb + i];
        step_rows(s + bb * E, drows);
        if (b + S >= b_end) break;
      }
    };
#if defined(__AVX512F__)
    if constexpr (can_join) {
      if (joined) {
        steps_of.template operator()<joined_step_rows>([&](const char* sb, char* const* drows) {
          joined_rows_step<E>([&](index_t a) { return [sb, oa, a](int i) { return sb + oa[a + i]; }; }, na, drows);
        });
        return;
      }
    }
#endif
    if constexpr (can_half) {
      if (half) {
        steps_of.template operator()<TH>([&](const char* sb, char* const* drows) {
          for_tiles_a<T>(na, head, [&](index_t a) {
            line_micro<E>::half_tile([&](int i) { return sb + oa[a + i]; }, [&](int j) { return drows[j] + a * E; });
          });
        });
        return;
      }
    }
    index_t b_from = b_begin;
    if constexpr (NT && Wide) {
      if (p.pairs && na % (2 * T) == 0) {
        constexpr index_t step = 128 / E;
        for (; b_from + step <= b_end; b_from += step) {
          const char* const sb = s + b_from * E;
          for (index_t a = 0; a < na; a += 2 * T)
            paired_tiles<E>([&](int i) { return sb + oa[a + i]; },
                            [&](int j) { return dcol + offB[b_from + j] + a * E; });
        }
        if (b_from == b_end) return;
      }
    }
    // A last step short of TB rows: in place, a whole tile moved back over rows done already
    // (stored again while cached); streamed, a partial tile, since rows stored twice would go to
    // memory twice ((449,551,17).permute(2,0,1), B = 16 + 1: 0.77x against in place).
    for (index_t b = b_from, step = 0;; b += TB, ++step) {
      if constexpr (G > 1) {
        if (b + G * TB <= b_end) {
          step += G - 1;
          req.ask(step);
          steps_at(b);
          b += (G - 1) * TB;
          if (b + TB >= b_end) break;
          continue;
        }
      }
      req.ask(step);
      if (b + TB <= b_end)
        step_at.template operator()<false>(b, TB);
      else if constexpr (Out == line_out::in_place)
        step_at.template operator()<false>(b_end - TB, TB);
      else if constexpr (!Wide)
        step_at.template operator()<false>(b_end - TB, TB, static_cast<int>(TB - (b_end - b)));
      else
        step_at.template operator()<true>(b, static_cast<int>(b_end - b));
      if (b + TB >= b_end) break;
    }
  };
  for (index_t r = 0;;) {
    run_unit();
    if (++r >= rep.n) break;
    s += rep.ss;
    dcol += rep.ds;
    head = head_at();
  }
}

/// transpose_unit_lines for E-byte elements: compiled only where the target has tiles for
/// nt_rows (rows_tile_of), the other ways of transpose_lines only where it has whole-line tiles.
template <int E>
bool transpose_unit_lines_of(const engine_plan& p, const char* s, char* d, const index_t* offA, const index_t* offB,
                             const unit_source& c, const unit_source& next, const line_carry& carry,
                             const unit_repeat& rep) {
  if constexpr (rows_tile_of(E) > 1) {
    constexpr bool wide = line_tile_of(E) > 1;
    if constexpr (wide) {
      if (p.nt_shifted) {
        transpose_shifted_tiles<E>(s, d, offA, offB, p.nA, c.b0, c.b1, next, carry);
        return true;
      }
      if constexpr (E == 1) {  // (staged_source_rows: bytes only)
        if (p.staged_rows) {
          if (staged_lines(p)) {
            transpose_staged_lines<E>(s, d, offA, offB, c.a0, c.a1, c.b0, c.b1, next);
            return true;
          }
          if (transpose_staged_rows<E>(s, d, offA, offB, c.a0, c.a1, c.b0, c.b1, staged_rows_whole(p)))
            return true;
        }
      }
      if (p.nt && !p.nt_rows) {
        transpose_lines<E, line_out::stream>(p, s, d, offA, offB, c.a0, c.a1, c.b0, c.b1, next);
        return true;
      }
    }
    constexpr index_t T = rows_tile_of(E);
    if (c.a1 - c.a0 < T) return false;
    if (p.nt_rows) {
      if (!wide && c.b1 - c.b0 < T) return false;
#if defined(__AVX512F__)
      if constexpr (wide && (E == 4 || E == 8)) {
        if (p.panels) {  // (rotated_panels_fit)
          transpose_rotated_rows<E>(s, d, offA, offB, c.a0, c.a1, c.b0, c.b1, next, carry);
          return true;
        }
      }
#endif
      transpose_lines<E, line_out::stream_rows>(p, s, d, offA, offB, c.a0, c.a1, c.b0, c.b1, next, carry);
      return true;
    }
    if constexpr (wide) {
      transpose_lines<E, line_out::in_place>(p, s, d, offA, offB, c.a0, c.a1, c.b0, c.b1, next, {}, rep);
      return true;
    }
  }
  (void)p, (void)s, (void)d, (void)offA, (void)offB, (void)c, (void)next, (void)carry, (void)rep;
  return false;
}

/// Whether transpose_unit_lines runs a line_tiles() plan's units in place (transpose_lines with
/// line_out::in_place, or the older tiles for a unit narrower than a tile): neither streamed
/// nor staged.
inline bool lines_in_place(const engine_plan& p) { return !p.nt && !p.nt_rows && !p.nt_shifted && !p.staged_rows; }

/// Runs work unit `cur` of a line_tiles() or nt_rows plan by transpose_lines (streamed if the
/// plan streams), asking for `next`'s source lines; returns false, having done nothing, for a
/// unit narrower than a tile, in place or streamed through the buffer (the older tiles take it
/// in place). Without whole-line tiles only nt_rows plans come here (line_tiles() is false),
/// and a unit under a tile of B runs in place too (never, in fact: chunks of B are of
/// transpose_chunk_b or all of a B of two tiles at least, rows_tiles_fit).
/// `rep` (n > 1): the unit and the n - 1 after it, each rep's strides on, in one call; only in
/// place (lines_in_place), else false, having done nothing.
inline bool transpose_unit_lines(const engine_plan& p, const char* s, char* d, const index_t* offA,
                                 const index_t* offB, const unit_source& cur, const unit_source& next,
                                 const line_carry& carry = {}, const unit_repeat& rep = {}) {
  if (rep.n > 1 && !lines_in_place(p)) return false;
  switch (p.elem) {
    case 1: return transpose_unit_lines_of<1>(p, s, d, offA, offB, cur, next, carry, rep);
    case 2: return transpose_unit_lines_of<2>(p, s, d, offA, offB, cur, next, carry, rep);
    case 4: return transpose_unit_lines_of<4>(p, s, d, offA, offB, cur, next, carry, rep);
    case 8: return transpose_unit_lines_of<8>(p, s, d, offA, offB, cur, next, carry, rep);
    default: return false;
  }
}

}  // namespace kernels

}  // namespace lazyview
