// A probe of in-place transposes into destination rows that start at different offsets into a
// line: FLUX unpack of a bf16 (1,C,H,W) latent, p.view(1,H/2,W/2,C,2,2).permute(0,3,1,4,2,5), whose
// rows of 2W bytes (340 at W = 170) start at 0, 20, 40, ... mod 64, so that most 64-byte tile rows
// are stored across two lines. It times, in turn with memcpy of the same bytes (GB/s, bytes read +
// written, medians of 21 blocks of 40 copies, one thread, source and destination in cache):
//
//   lazyview  lazyview::copy of the chain (the engine's plan, its tile rows stored unaligned);
//   plain     steps of 8 destination rows sweeping A in 16 x 8 half tiles of 4-byte elements, each
//             tile row stored where it goes (unaligned, masked at the row's end);
//   joined    the same tiles, each row's last vector kept in a register and joined to the next by
//             one two-source lane permute (vpermt2d), so that every store covers one line, whole
//             in the middle of a row and masked at its two ends;
//   lines     plain with every store moved down to its line's start: wrong values, the same lines
//             written; the bound of removing stores across lines (not checked).
//
//   g++ -O3 -march=native -std=gnu++20 -Iinclude bench/probes/joined_rows.cpp -o /tmp/joined_rows
//   /tmp/joined_rows H W      (C = 16; H even, W even with W / 2 >= 16)
//
// On the 2-core Intel Xeon VM (Emerald Rapids), g++ 12, four processes: H = 96, W = 170: memcpy
// 81-83 GB/s, lazyview 34.5-36.7, plain 33.1-34.2, joined 44.9-47.2, lines 43.5-46.0 (clang 14:
// lazyview 35.2, joined 47.0). Joined rows gain nothing where the rows start on lines (H = W =
// 128: lazyview 57.4, by half steps; plain 46.8, joined 46.0) or are short (H = W = 72, rows of
// 144 bytes: lazyview 42.1, plain 38.7, joined 37.4). The rows' state must stay in registers: a
// first version with branches per row and tile, which g++ compiled to a spill and reload of each
// row's vector per tile, ran 23 at H = 96, W = 170.
// The engine's kernel built from `joined` is kernels::joined_rows_step (eval/joined_rows.hpp);
// from then on `lazyview` here runs it (rows of 256 bytes or more).
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <lazyview/lazyview.hpp>

LAZYVIEW_AVX512_WARNINGS_OFF  // (GCC 12's false reports on AVX-512 intrinsics: config.hpp)

namespace {

using u16 = std::uint16_t;

// GB/s of f, which moves `bytes` each way: medians of 21 blocks of 40 calls.
template <class F>
double rate(F f, std::size_t bytes) {
  std::vector<double> v;
  for (int r = 0; r < 21; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 40; ++k) f();
    const auto t1 = std::chrono::steady_clock::now();
    v.push_back(2.0 * static_cast<double>(bytes) * 40 / std::chrono::duration<double>(t1 - t0).count() / 1e9);
  }
  std::sort(v.begin(), v.end());
  return v[10];
}

// 16 (A) x 8 (B) four-byte elements: 32 bytes of each of the 16 source rows src[i] to 64 bytes of
// each of the 8 destination rows o[j] (the engine's half tile, line_micro<4>::half_tile_to).
inline void half_tile(const char* const* src, __m512i o[8]) {
  lazyview::kernels::line_micro<4>::half_tile_to([&](int i) { return src[i]; },
                                                 [&](int j, __m512 v) { o[j] = _mm512_castps_si512(v); });
}

enum class mode { plain, joined, lines };

// FLUX unpack bf16 of p (H/2 * W/2, 4C) into out (C, H, W) as 4-byte elements (the pairs along
// W): per row pair h2, per step of 8 of the 2C destination rows (c, i), the W/2 elements of A in
// tiles of 16, the last one partial (its missing source rows read from a line of zeros).
template <mode M>
void unpack(const u16* p, u16* out, int C, int H, int W) {
  const char* const s = reinterpret_cast<const char*>(p);
  char* const d = reinterpret_cast<char*>(out);
  const int W2 = W / 2, T = (W2 + 15) / 16, last = W2 - 16 * (T - 1);
  const long srow = 8L * C, drow = 2L * W, dch = 2L * H * W;
  alignas(64) static const char zeros[64] = {};
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  for (int h2 = 0; h2 < H / 2; ++h2) {
    const char* const sh = s + h2 * W2 * srow;
    for (int b0 = 0; b0 < 2 * C; b0 += 8) {
      char* row[8];
      char* line[8];
      __m512i join[8], prev[8];
      __mmask16 head[8], tail[8], end[8];
#pragma GCC unroll 8
      for (int k = 0; k < 8; ++k) {
        const int b = b0 + k;
        row[k] = d + b / 2 * dch + (2 * h2 + b % 2) * drow;
        const int m = static_cast<int>(reinterpret_cast<std::uintptr_t>(row[k]) & 63) / 4;  // lanes
        line[k] = row[k] - 4 * m;
        // lane l of a line: the previous vector's lane 16 - m + l below m, the new one's l - m
        join[k] = _mm512_add_epi32(lane, _mm512_set1_epi32(16 - m));
        prev[k] = _mm512_setzero_si512();
        head[k] = static_cast<__mmask16>(0xFFFFu << m);
        tail[k] = static_cast<__mmask16>((1u << std::min(16, m + W2 - 16 * (T - 1))) - 1);
        const int rest = m + W2 - 16 * T;
        end[k] = rest > 0 ? static_cast<__mmask16>((1u << rest) - 1) : 0;
      }
      // tile t (`valid` source rows), each destination row's vector handed to put(k, v)
      const auto tile = [&](int t, int valid, auto&& put) {
        const char* src[16];
        for (int i = 0; i < 16; ++i) src[i] = i < valid ? sh + (16L * t + i) * srow + b0 * 4 : zeros;
        __m512i v[8];
        half_tile(src, v);
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k) put(k, v[k]);
      };
      if constexpr (M == mode::joined) {
        const auto joined = [&](int k, __m512i v) {
          const __m512i o = _mm512_permutex2var_epi32(prev[k], join[k], v);
          prev[k] = v;
          return o;
        };
        tile(0, 16, [&](int k, __m512i v) { _mm512_mask_storeu_epi32(line[k], head[k], joined(k, v)); });
        for (int t = 1; t < T - 1; ++t)
          tile(t, 16, [&](int k, __m512i v) { _mm512_store_si512(line[k] + 64 * t, joined(k, v)); });
        tile(T - 1, last, [&](int k, __m512i v) {
          _mm512_mask_storeu_epi32(line[k] + 64 * (T - 1), tail[k], joined(k, v));
        });
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k)
          _mm512_mask_storeu_epi32(line[k] + 64 * T, end[k], joined(k, _mm512_setzero_si512()));
      } else {
        for (int t = 0; t < T; ++t) {
          const __mmask16 n = static_cast<__mmask16>((1u << (t == T - 1 ? last : 16)) - 1);
          tile(t, t == T - 1 ? last : 16, [&](int k, __m512i v) {
            char* const to = row[k] + 64 * t;
            if constexpr (M == mode::lines)
              _mm512_store_si512(reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(to) & ~std::uintptr_t{63}),
                                 v);
            else
              _mm512_mask_storeu_epi32(to, n, v);
          });
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s H W   (FLUX unpack bf16 of (1,16,H,W); H even, W even, W/2 >= 16)\n", argv[0]);
    return 2;
  }
  const int C = 16, H = std::atoi(argv[1]), W = std::atoi(argv[2]);
  if (H < 2 || H % 2 != 0 || W % 2 != 0 || W / 2 < 16) {
    std::fprintf(stderr, "H must be even, W even with W/2 >= 16\n");
    return 2;
  }
  const std::size_t n = static_cast<std::size_t>(C) * H * W, bytes = n * 2;
  // (a line to spare: `lines` stores whole lines past a row's end)
  const auto buffer = [&] { return static_cast<u16*>(std::aligned_alloc(4096, (bytes + 64 + 4095) / 4096 * 4096)); };
  u16* const x = buffer();
  u16* const want = buffer();
  u16* const y = buffer();
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<u16>(i * 7 + 1);
  u16* to = want;
  const auto chain = [&] {
    const auto e = lazyview::from_blob(static_cast<const u16*>(x), {1, H / 2 * (W / 2), C * 4})
                       .view(1, H / 2, W / 2, C, 2, 2)
                       .permute(0, 3, 1, 4, 2, 5)
                       .reshape(1, C, H, W);
    lazyview::copy(e, lazyview::from_blob(to, {1, C, H, W}));
  };
  chain();
  to = y;
  std::memset(y, 0, bytes);
  unpack<mode::plain>(x, y, C, H, W);
  const bool plain_ok = std::memcmp(y, want, bytes) == 0;
  std::memset(y, 0, bytes);
  unpack<mode::joined>(x, y, C, H, W);
  const bool joined_ok = std::memcmp(y, want, bytes) == 0;
  std::printf("values: plain %s, joined %s\n", plain_ok ? "ok" : "WRONG", joined_ok ? "ok" : "WRONG");
  for (int round = 0; round < 3; ++round) {
    const auto keep = [&] { asm volatile("" : : "r"(y) : "memory"); };
    std::printf("memcpy %.1f  lazyview %.1f  plain %.1f  joined %.1f  lines %.1f GB/s\n",
                rate([&] { std::memcpy(y, x, bytes); keep(); }, bytes), rate(chain, bytes),
                rate([&] { unpack<mode::plain>(x, y, C, H, W); keep(); }, bytes),
                rate([&] { unpack<mode::joined>(x, y, C, H, W); keep(); }, bytes),
                rate([&] { unpack<mode::lines>(x, y, C, H, W); keep(); }, bytes));
  }
  std::free(x);
  std::free(want);
  std::free(y);
  return plain_ok && joined_ok ? 0 : 1;
}

LAZYVIEW_AVX512_WARNINGS_ON
