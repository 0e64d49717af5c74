#pragma once
// Narrow transposes: one group of 2 to 8 indices against a long other one, the layout changes
// between interleaved and planar data (an image's HWC <-> CHW with C = 3, complex numbers as
// (re, im) pairs <-> two planes, arrays of small structs <-> structs of arrays). Tiles of 16 x 16
// waste most of their work there (a tile is mostly padding) and the element-wise loop reads or
// writes C streams an element at a time; these kernels take C vectors of one side and make C
// vectors of the other: with AVX-512 by two-source lane permutes of 64-byte vectors
// (narrow_rounds), with AVX2 by byte shuffles within 16-byte halves (narrow_rounds_bytes), which
// beat two-source lane permutes there (two vpermd and a blend each): fp32 in cache, split C = 3
// 21-25 -> 39-56 GB/s, C = 5 17-22 -> 43.
// On a 2-core Zen 5 VM (AVX-512 VBMI), fp32, 1 thread, GB/s, tiles or element loop -> these
// (a streaming copy of the same bytes: 55-85): (1000000,4).t() 7 -> 70-83, (4,1000000).t()
// 8 -> 77-84, (2000000,3).t() 5-7 -> 49-64, (3,2000000).t() 14 -> 65-79, (500000,8).t() 33 ->
// 55-71, (8,500000).t() 32 -> 56-81; in cache, (50000,3).t() 18 -> 94-108.
// With AVX2 on a 2-core Zen 3 VM, 1 thread, a harness of 20-200 calls: uint8 (1401856,3).t()
// 2.0 -> 28, its merge 1.9 -> 23, uint16 4.6 -> 29 and 3.6 -> 24 (a copy: 23-37, the plain
// loop: 2.5-6.6); in cache, uint8 (50000,3).t() 2.6 -> 47. (Without them, a group narrower than
// a tile went element by element through an offset table of the long group: 16 MB per call
// for (2097152,2).t().)
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "engine_plan.hpp"
#include "lane_permutes.hpp"

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

namespace lazyview {

/// The two narrow transposes (see the header comment), by which side is narrow.
/// split: B is the narrow group, rows of C elements back to back in the source, each going to
/// its own destination row (interleaved -> planar). Example: (N,3).t() fp32, (N,3):(3,1) read,
/// three rows of N written.
/// merge: A is the narrow group, C source rows read side by side, written interleaved
/// (planar -> interleaved). Example: (3,N).t() fp32.
enum class narrow_kind { none, split, merge };

/// The lane (bytes) the narrow kernels permute on this target (AVX-512): 1 with VBMI, 2 with
/// BW, 4 with F; 0 where there are none. One width serves every element size it divides (a
/// permute moves 64 bytes whatever its lanes), so each group size compiles once: per group size
/// and element size, the kernels took a 4.5 s translation unit with -march=native to 7.5 s.
/// narrow_vector: the bytes of each row a round moves (64; 32 by byte shuffles; 0: none).
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VBMI__)
inline constexpr int narrow_lane = 1, narrow_vector = 64;
#elif defined(__AVX512F__) && defined(__AVX512BW__)
inline constexpr int narrow_lane = 2, narrow_vector = 64;
#elif defined(__AVX512F__)
inline constexpr int narrow_lane = 4, narrow_vector = 64;
#elif defined(__AVX2__)
inline constexpr int narrow_lane = 0, narrow_vector = 32;
#else
inline constexpr int narrow_lane = 0, narrow_vector = 0;
#endif

/// AVX2 without AVX-512: elements of 1 to 8 bytes go by byte shuffles within 16-byte halves
/// (kernels::narrow_rounds_bytes), two rounds side by side per 32-byte vector.
inline constexpr bool narrow_bytes = narrow_vector == 32;

/// Whether the narrow kernels take E-byte elements here.
constexpr bool narrow_fits(int E) {
  if constexpr (narrow_bytes)
    return E == 1 || E == 2 || E == 4 || E == 8;
  else
    return narrow_lane > 0 && E % narrow_lane == 0;
}

/// Whether they take a group of C of them. By byte shuffles (AVX2) only a group narrower than a
/// tile: C outputs of C shuffles each cost C^2, and from C = T the tiles fit the group whole.
/// fp32, 1 thread, in cache, GB/s, tiles -> the narrow kernels (then two-source vpermd; the
/// shuffles are faster still), medians of 400 calls on a 2-core Zen 3 VM: split C = 2 12 -> 47,
/// 3 8 -> 21, 7 9 -> 14, 8 21 -> 13; merge 2 5 -> 44, 7 8 -> 14, 8 32 -> 14.
constexpr bool narrow_takes(int E, index_t C) {
  return narrow_fits(E) && (!narrow_bytes || C < kernels::tile_of(E));
}

/// The narrowest group a narrow kernel takes, and the widest.
inline constexpr index_t narrow_min = 2, narrow_max = 8;

/// Which narrow transpose a plan is, if any: a transpose of one loop per group, elements of 1,
/// 2, 4, 8 or 16 bytes that the lanes divide (narrow_fits), the narrow group of narrow_min to
/// narrow_max indices (narrow_takes) adjacent on the side where it is contiguous, and the long
/// group at least a vector (narrow_vector bytes) of elements.
/// Examples: (1000000,4).t() fp32: split (B = 4, source rows of 16 bytes back to back);
/// (4,1000000).t(): merge; (1000,16).t(): none (16 is past narrow_max: whole tiles).
inline narrow_kind narrow_transpose(const engine_plan& p) {
  const index_t E = p.elem;
  if (p.kind != engine_plan::transpose || p.no_narrow || p.na != 1 || p.nb != 1) return narrow_kind::none;
  if (!(E == 1 || E == 2 || E == 4 || E == 8 || E == 16) || !narrow_fits(static_cast<int>(E)))
    return narrow_kind::none;
  const auto narrow = [&](index_t n) { return n >= narrow_min && n <= narrow_max && narrow_takes(static_cast<int>(E), n); };
  if (narrow(p.nB) && p.ga[0].ss == p.nB * E && p.nA * E >= narrow_vector) return narrow_kind::split;
  if (narrow(p.nA) && p.gb[0].ds == p.nA * E && p.nB * E >= narrow_vector) return narrow_kind::merge;
  return narrow_kind::none;
}

namespace kernels {

/// log2 of an element size of 1 to 16 bytes: the tables' index.
constexpr int narrow_elem_index(int E) {
  int e = 0;
  while ((1 << e) < E) ++e;
  return e;
}

/// Group sizes C = narrow_min..narrow_max as a compile-time constant: f.template operator()<C>().
template <class F>
void with_narrow_group(index_t C, F&& f) {
  switch (C) {
    case 2: f.template operator()<2>(); break;
    case 3: f.template operator()<3>(); break;
    case 4: f.template operator()<4>(); break;
    case 5: f.template operator()<5>(); break;
    case 6: f.template operator()<6>(); break;
    case 7: f.template operator()<7>(); break;
    default: f.template operator()<8>(); break;
  }
}

/// Lane tables of a narrow kernel: for output vector o and source pair q (vectors 2q, 2q+1), the
/// two-source permute indices of o's lanes (as a vector of W-byte lanes, ready to load) and the
/// mask of the lanes that pair supplies. C vectors in and out, V-byte vectors of W-byte lanes,
/// E-byte elements.
/// split: output o is row o's next V / E elements, from C vectors of back-to-back source rows;
/// merge: output o is the o-th V bytes of the interleaved rows, from one vector per source row.
/// Example: split, C = 3, E = W = 4: output 1 takes lanes 1, 4, 7, 10, 13 of vector 0, then
/// 0, 3, ... of vector 1 (the same pair), then 2, 5, ... of vector 2 (the next).
struct narrow_table {
  static constexpr int max_pairs = (narrow_max + 1) / 2;
  struct alignas(64) lanes {
    std::uint8_t b[64];
  };
  lanes idx[narrow_max][max_pairs];
  std::uint64_t mask[narrow_max][max_pairs];
};

inline void fill_narrow_table(narrow_table& t, int C, int E, int W, int V, bool split) {
  t = {};
  const int lanes = V / W;
  for (int o = 0; o < C; ++o)
    for (int m = 0; m < lanes; ++m) {
      int k = 0, at = 0;  // source vector, byte within it
      if (split) {
        const int j = m * W / E, sub = m * W % E;
        const int f = (j * C + o) * E + sub;
        k = f / V;
        at = f % V;
      } else {
        const int f = o * V + m * W;
        const int g = f / E, sub = f % E;
        k = g % C;
        at = g / C * E + sub;
      }
      put_lane(t.idx[o][k / 2].b, W, m, static_cast<std::uint64_t>((k % 2) * lanes + at / W));
      t.mask[o][k / 2] |= std::uint64_t{1} << m;
    }
}

/// The table of every group size (narrow_min to narrow_max), element size (1 to 16 bytes) and
/// kind, made once per process on first use (160 KB): per call, making one cost as much as a
/// small copy.
inline const narrow_table& narrow_table_of(int C, int E, bool split) {
  constexpr int sizes = static_cast<int>(narrow_max - narrow_min + 1);
  static const auto all = [] {
    auto t = std::make_unique<narrow_table[]>(sizes * 5 * 2);
    for (int c = 0; c < sizes; ++c)
      for (int e = 0; e < 5; ++e)
        for (int k = 0; k < 2; ++k) {
          const int E = 1 << e;
          if (narrow_lane > 0 && E % narrow_lane == 0) fill_narrow_table(t[(c * 5 + e) * 2 + k], c + static_cast<int>(narrow_min), E, narrow_lane,
                                              narrow_vector, k == 1);
        }
    return t;
  }();
  return all[((C - static_cast<int>(narrow_min)) * 5 + narrow_elem_index(E)) * 2 + (split ? 1 : 0)];
}

/// The byte shuffles of narrow_rounds_bytes: for output o and source vector k, the index of
/// each byte of o within k (16-byte vectors), 0x80 where o takes that byte from another source.
/// From the pair table of the same shape with 16-byte vectors of 1-byte lanes.
struct narrow_shuffles {
  struct alignas(16) bytes16 {
    std::uint8_t b[16];
  };
  bytes16 sh[narrow_max][narrow_max];
};

inline const narrow_shuffles& narrow_shuffles_of(int C, int E, bool split) {
  constexpr int sizes = static_cast<int>(narrow_max - narrow_min + 1);
  static const auto all = [] {
    auto t = std::make_unique<narrow_shuffles[]>(sizes * 4 * 2);
    auto pairs = std::make_unique<narrow_table>();
    for (int c = 0; c < sizes; ++c)
      for (int e = 0; e < 4; ++e)
        for (int k = 0; k < 2; ++k) {
          const int C = c + static_cast<int>(narrow_min);
          fill_narrow_table(*pairs, C, 1 << e, 1, 16, k == 1);
          narrow_shuffles& out = t[(c * 4 + e) * 2 + k];
          for (int o = 0; o < C; ++o)
            for (int v = 0; v < C; ++v)
              for (int m = 0; m < 16; ++m) {
                const std::uint8_t i = pairs->idx[o][v / 2].b[m];
                const bool mine = (pairs->mask[o][v / 2] >> m & 1u) && (i >= 16) == (v % 2 == 1);
                out.sh[o][v].b[m] = mine ? static_cast<std::uint8_t>(i & 15) : std::uint8_t{0x80};
              }
        }
    return t;
  }();
  return all[((C - static_cast<int>(narrow_min)) * 4 + narrow_elem_index(E)) * 2 + (split ? 1 : 0)];
}

/// Moves `count` rounds of a narrow transpose of C rows: round i loads C vectors, from
/// s[k] + i * s_step, and stores C, at d[o] + i * d_step, each made by the permutes of `tab`.
/// With V = narrow_vector: split (from rows of C elements back to back to C rows): s[k] =
/// source + Vk, s_step = VC, d[o] = row o, d_step = V; merge: s[k] = row k, s_step = V, d[o] =
/// destination + Vo, d_step = VC. NT: every store is a whole, aligned vector (streaming stores).
/// Shifted (split, streamed; see narrow_shifted_rows in memory_hints.hpp): d[o] anywhere in a
/// line, m_o bytes into it (a multiple of narrow_lane). Each row then streams whole lines, each
/// joined from the last m_o bytes of one round's vector and the first V - m_o of the next by one
/// more permute (shift[o]); its first V - m_o bytes and last m_o bytes are stored plainly.
/// Example: fp32, a row at 24 mod 64, 3 rounds: bytes [0, 40) plainly, [40, 104) and [104, 168)
/// streamed, [168, 192) plainly.
/// Unrolled per C (a loop over a run-time C kept the vectors on the stack: 0.4-0.7x).
template <int C, bool Shifted = false>
void narrow_rounds(const narrow_table& tab, const char* const* s, index_t s_step, char* const* d, index_t d_step,
                   index_t count, bool nt) {
#if defined(__AVX512F__)
  constexpr int P = (C + 1) / 2;
  const auto each = [](auto f, auto seq) { [&]<int... K>(std::integer_sequence<int, K...>) { (f.template operator()<K>(), ...); }(seq); };
  // (indices and masks held across the rounds: read from the table per round, 0.65-0.75x)
  __m512i idx[C][P];
  std::uint64_t mask[C][P];
  for (int o = 0; o < C; ++o)
    for (int q = 0; q < P; ++q) {
      idx[o][q] = _mm512_load_si512(tab.idx[o][q].b);
      mask[o][q] = tab.mask[o][q];
    }
  // Shifted: per row, its byte offset m into a line, the permute that joins two rounds into the
  // line between them (lanes from m bytes before the end of the first), and the last round's
  // vector
  [[maybe_unused]] index_t m[C];
  [[maybe_unused]] __m512i shift[C], last[C];
  if constexpr (Shifted) {
    for (int o = 0; o < C; ++o) {
      m[o] = static_cast<index_t>(reinterpret_cast<std::uintptr_t>(d[o]) & 63);
      alignas(64) std::uint8_t lanes[64];
      for (int k = 0; k < 64 / narrow_lane; ++k)
        put_lane(lanes, narrow_lane, k, static_cast<std::uint64_t>((64 - m[o]) / narrow_lane + k));
      shift[o] = _mm512_load_si512(lanes);
    }
  }
  for (index_t i = 0; i < count; ++i) {
    __m512i v[C + 1];
    each([&]<int K>() { v[K] = _mm512_loadu_si512(s[K] + i * s_step); }, std::make_integer_sequence<int, C>{});
    v[C] = v[C - 1];  // an odd C's last pair: its second vector is never selected
    each([&]<int O>() {
      // (every lane comes from one pair: the first pair's permute leaves the others' lanes
      // for their blends)
      __m512i r = permute_two<narrow_lane>(v[0], idx[O][0], v[1]);
      each([&]<int Q>() {
        if constexpr (Q > 0) {
          const __m512i q = permute_two<narrow_lane>(v[2 * Q], idx[O][Q], v[2 * Q + 1]);
          r = blend_lanes<narrow_lane>(mask[O][Q], r, q);
        }
      }, std::make_integer_sequence<int, P>{});
      char* const to = d[O] + i * d_step;
      if constexpr (Shifted) {
        if (i == 0) {
          // (through a stack line and memcpy, not store_lanes: under a mask, the head and tail
          // ran (278,17,102,8).permute(0,3,1,2) at 34.6 GB/s against 41.1, (2000001,3).t() 39.0
          // against 44.9, 1 thread, Zen 4 VM)
          alignas(64) char head[64];
          _mm512_store_si512(head, r);
          std::memcpy(to, head, static_cast<std::size_t>(64 - m[O]));
        } else {
          _mm512_stream_si512(reinterpret_cast<__m512i*>(to - m[O]), permute_two<narrow_lane>(last[O], shift[O], r));
        }
        last[O] = r;
      } else if (nt) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(to), r);
      } else {
        _mm512_storeu_si512(to, r);
      }
    }, std::make_integer_sequence<int, C>{});
  }
  if constexpr (Shifted) {
    if (count > 0)
      for (int o = 0; o < C; ++o) {
        alignas(64) char tail[64];
        _mm512_store_si512(tail, last[o]);
        std::memcpy(d[o] + count * d_step - m[o], tail + 64 - m[o], static_cast<std::size_t>(m[o]));
      }
  }
#else
  (void)tab, (void)s, (void)s_step, (void)d, (void)d_step, (void)count, (void)nt;
#endif
}

/// Moves `count` rounds of a narrow transpose of C rows of 1- to 8-byte elements: each half of a
/// 32-byte vector is a 16-byte round of its own, the first half round 2i, the second 2i + 1, so
/// that byte shuffles (which stay within halves) make every output from the C inputs.
/// Split: s[0] = the source (rows of C elements back to back), d[o] = row o; merge: s[k] = row
/// k, d[0] = the destination. Plain stores.
template <int C>
void narrow_rounds_bytes(const narrow_shuffles& tab, const char* const* s, char* const* d, index_t count, bool split) {
#if defined(__AVX2__) && !defined(__AVX512F__)
  const auto each = [](auto f) { [&]<int... K>(std::integer_sequence<int, K...>) { (f.template operator()<K>(), ...); }(std::make_integer_sequence<int, C>{}); };
  __m256i sh[C][C];
  for (int o = 0; o < C; ++o)
    for (int k = 0; k < C; ++k) sh[o][k] = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(tab.sh[o][k].b)));
  for (index_t i = 0; i < count; ++i) {
    __m256i v[C];
    if (split) {
      const char* const r = s[0] + i * 32 * C;
      each([&]<int K>() {
        v[K] = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 16 * K))),
                                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 16 * C + 16 * K)), 1);
      });
    } else {
      each([&]<int K>() { v[K] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s[K] + i * 32)); });
    }
    each([&]<int O>() {
      __m256i r = _mm256_shuffle_epi8(v[0], sh[O][0]);
      each([&]<int K>() {
        if constexpr (K > 0) r = _mm256_or_si256(r, _mm256_shuffle_epi8(v[K], sh[O][K]));
      });
      if (split) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(d[O] + i * 32), r);
      } else {
        char* const to = d[0] + i * 32 * C + 16 * O;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm256_castsi256_si128(r));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 16 * C), _mm256_extracti128_si256(r, 1));
      }
    });
  }
#else
  (void)tab, (void)s, (void)d, (void)count, (void)split;
#endif
}

/// Runs A indices [a0, a1) by B indices [b0, b1) of a narrow transpose (one work unit; the
/// narrow group is always whole) from s, d at its outer iteration.
inline void narrow_unit(const engine_plan& p, narrow_kind kind, const char* s, char* d, index_t a0, index_t a1,
                        index_t b0, index_t b1) {
  const index_t E = p.elem;
  const bool split = kind == narrow_kind::split;
  const index_t C = split ? p.nB : p.nA;
  // rows on the narrow side; the long side's start
  const char* src[narrow_max];
  char* dst[narrow_max];
  index_t n = 0;
  if (split) {  // source rows a of C elements back to back, destination rows b
    src[0] = s + a0 * p.ga[0].ss;
    for (index_t c = 0; c < C; ++c) dst[c] = d + a0 * E + c * p.gb[0].ds;
    n = a1 - a0;
  } else {  // source rows a side by side, destination rows b of C elements back to back
    for (index_t c = 0; c < C; ++c) src[c] = s + c * p.ga[0].ss + b0 * E;
    dst[0] = d + b0 * p.gb[0].ds;
    n = b1 - b0;
  }
  constexpr index_t V = narrow_vector;
  const index_t L = V > 0 ? V / E : 1, rounds = V > 0 ? n / L : 0;
  if (rounds > 0 && narrow_bytes) {
    const narrow_shuffles& tab = narrow_shuffles_of(static_cast<int>(C), static_cast<int>(E), split);
    with_narrow_group(C, [&]<int K>() { narrow_rounds_bytes<K>(tab, src, dst, rounds, split); });
  } else if (rounds > 0) {
    const char* vs[narrow_max];
    char* vd[narrow_max];
    for (index_t k = 0; k < C; ++k) {
      vs[k] = split ? src[0] + V * k : src[k];
      vd[k] = split ? dst[k] : dst[0] + V * k;
    }
    const index_t s_step = split ? V * C : V, d_step = split ? V : V * C;
    const narrow_table& tab = narrow_table_of(static_cast<int>(C), static_cast<int>(E), split);
    bool shifted = false;
    if (split && p.nt)
      for (index_t k = 0; k < C; ++k) shifted = shifted || (reinterpret_cast<std::uintptr_t>(vd[k]) & 63) != 0;
    if (shifted)
      with_narrow_group(C, [&]<int K>() { narrow_rounds<K, true>(tab, vs, s_step, vd, d_step, rounds, true); });
    else
      with_narrow_group(C, [&]<int K>() { narrow_rounds<K>(tab, vs, s_step, vd, d_step, rounds, p.nt); });
  }
  // the tail under a vector, element by element
  for (index_t i = rounds * L; i < n; ++i)
    for (index_t c = 0; c < C; ++c) {
      if (split)
        std::memcpy(dst[c] + i * E, src[0] + (i * C + c) * E, static_cast<std::size_t>(E));
      else
        std::memcpy(dst[0] + (i * C + c) * E, src[c] + i * E, static_cast<std::size_t>(E));
    }
}

}  // namespace kernels

}  // namespace lazyview
