// Streamed transposes into destination rows that all start the same number of bytes into a
// cache line (engine_plan::nt_shifted: kernels::transpose_shifted, or transpose_shifted_tiles in
// whole-line tiles): which plans take them, and their values against the index map in every
// element size, for close and far-apart source rows, rows back to back and apart, heads shorter
// than a tile, and a last step of B moved back or partial.
#include "eval_common.hpp"

#include <array>
#include <cstdint>
#include <vector>

using namespace lazyview;
using evaltest::check_streamed_permute;
using evaltest::streamed_plan_of;
using evaltest::tuning_scope;

namespace {

/// Whether this build streams transposes of E-byte (wide) elements into shifted lines, for rows
/// of `row` bytes: it has streaming stores and whole-line tiles (kernels::transpose_shifted_tiles,
/// rows up to shifted_tile_row_bytes), or else register tiles that stream whole lines
/// (kernels::transpose_shifted).
bool shifts_lines(int E, index_t row) {
  if (!kernels::have_nt) return false;
  return kernels::line_tile_of(E) > 1 ? row <= shifted_tile_row_bytes : kernels::stream_lines_fit(E);
}

/// A plan predicate for check_streamed_permute: nt_shifted exactly where the destination is
/// `shift` elements of `elem` bytes off a line, a multiple of the plan's (wide) element, and the
/// build shifts lines of that element and row; then A whole in one block.
auto shifted_where(index_t elem) {
  return [elem](const engine_plan& ep, index_t shift) {
    const bool want = shift != 0 && shift * elem % ep.elem == 0 && shifts_lines(static_cast<int>(ep.elem), ep.nA * ep.elem);
    return ep.kind == engine_plan::transpose && ep.nt_shifted == want && (!want || (ep.nt && ep.blocks_a == 1));
  };
}

template <class T>
auto flux_pack(const T* x, index_t B, index_t C, index_t H, index_t W) {
  return from_blob(x, {B, C, H, W}).view(B, C, H / 2, 2, W / 2, 2).permute(0, 2, 4, 1, 3, 5).reshape(B, H / 2 * W / 2, C * 4);
}

}  // namespace

// Which plans shift their lines: FLUX pack fp32 (4,16,256,256) (rows of 32 8-byte elements, 256
// bytes) into a destination 16 bytes into a line, as a std::vector from glibc starts, and every
// other multiple of 8 off a line; not on a line (rows_on_lines' way), not 4 or 2 bytes off (not
// a multiple of the element: the dense buffer), nor rows that are not whole lines long; with
// whole-line tiles, not rows over shifted_tile_row_bytes ((4096,4096).t(), rows of 16 KiB). A
// destination of 8 MiB (FLUX bf16) streams on one thread as rows on lines do
// (zen_one_thread_threshold), under zen not on two; with whole-line tiles it keeps the higher
// threshold.
BOOST_AUTO_TEST_CASE(shifted_choice) {
  tuning_scope const zen{tuning::zen};
  std::vector<float> in(1);
  const float* x = in.data();  // plans only: nothing is read
  tensor<float, 1> out({64});  // 64-byte aligned: only its address is used
  const char* d = reinterpret_cast<const char*>(out.data());
  const index_t bytes = 4 * 16 * 256 * 256 * 4;
  const auto plan = [&](const auto& e, const char* to, index_t n, unsigned th = 1) {
    return streamed_plan_of(e, 4, to, n, th);
  };
  const auto pack = flux_pack(x, 4, 16, 256, 256);
  const engine_plan grouped = evaltest::plan_of(pack, 4);
  BOOST_TEST((grouped.kind == engine_plan::transpose && grouped.elem == 8 && grouped.nA == 32));
  BOOST_TEST(rows_line_offset(grouped, d + 16) == 16);
  BOOST_TEST(rows_line_offset(grouped, d + 56) == 56);
  BOOST_TEST(rows_line_offset(grouped, d) == 0);
  BOOST_TEST(rows_line_offset(grouped, d + 4) == 0);
  const bool s8 = shifts_lines(8, 256);
  for (const index_t off : {16, 48, 56}) {
    const engine_plan p = plan(pack, d + off, bytes);
    BOOST_TEST((p.nt_shifted == s8 && (!s8 || (p.nt && p.blocks_a == 1 && p.nA == 32))), "pack at " << off);
  }
  for (const index_t off : {0, 2, 4}) BOOST_TEST(!plan(pack, d + off, bytes).nt_shifted, "pack at " << off);
  // rows of 86 fp32 (344 bytes) at 16 mod 64 lie at other offsets from each other
  const engine_plan rows86 = plan(from_blob(x, {1000, 86, 50}).permute(0, 2, 1), d + 16, 1000 * 86 * 50 * 4);
  BOOST_TEST((rows_line_offset(rows86, d + 16) == 0 && !rows86.nt_shifted));
  const engine_plan square = plan(from_blob(x, {4096, 4096}).t(), d + 16, 4096 * 4096 * 4);
  BOOST_TEST((rows_line_offset(square, d + 16) == 16 && square.nt_shifted == (shifts_lines(4, 16384))));
  // 8 MiB: as rows on lines, streamed on one thread; under zen in place on two, zen3 streams
  const std::vector<std::uint16_t> h(1);
  const auto bf16 = flux_pack(h.data(), 4, 16, 256, 256);
  const index_t half = bytes / 2;
  const bool s4 = shifts_lines(4, 128) && kernels::line_tile_of(4) == 1;
  BOOST_TEST(streamed_plan_of(bf16, 2, d + 16, half, 1).nt_shifted == s4);
  BOOST_TEST(!streamed_plan_of(bf16, 2, d + 16, half, 2).nt);
  BOOST_TEST(streamed_plan_of(bf16, 2, d + 16, 2 * half, 2).nt_shifted == shifts_lines(4, 128));
  tuning_scope const zen3{tuning::zen3};
  BOOST_TEST(streamed_plan_of(bf16, 2, d + 16, half, 2).nt_shifted == s4);
}

// Values, at 1 and 2 threads, aligned (not shifted) and at several offsets: FLUX pack fp32 (far
// source rows, rows of 256 bytes back to back: shifted_lines, each seam streamed) 4 to 56 bytes
// off (4: not a multiple of the 8-byte element; 48 and 56: heads of 2 and 1 elements, shorter
// than AVX2's 4-row tiles), with B odd (a last step moved back); FLUX unpack (close rows of 1
// KiB, back to back in pairs: shifted_rows, seams streamed and stored plainly in turn); close
// rows of one line ((3200,64,64).permute(0,2,1) uint8) to 256 bytes in 2-, 4- and 8-byte
// elements; far-apart source rows of 4 KiB in 1-, 2- and 4-byte elements, B in several chunks.
// Whole-line tiles of bytes and 2-byte elements stage a step of 64 and 32 rows of B:
// (2600,64,77).permute(0,2,1) uint8 (B = 77: a staged step, then a partial tile of 13 rows) and
// (2000,64,50).permute(0,2,1) 2-byte (B = 50: a staged step of 32, a tile of 16, a partial one
// of 2).
BOOST_AUTO_TEST_CASE(shifted_values) {
  tuning_scope const zen{tuning::zen};
  check_streamed_permute<6>({4, 16, 128, 2, 128, 2}, {0, 2, 4, 1, 3, 5}, "FLUX pack (4,16,256,256)", shifted_where(4),
                            float{}, {0, 1, 4, 12, 14});
  check_streamed_permute<6>({3, 16, 130, 2, 130, 2}, {0, 2, 4, 1, 3, 5}, "FLUX pack (3,16,260,260)", shifted_where(4),
                            float{}, {4, 12});
  check_streamed_permute<6>({4, 128, 128, 16, 2, 2}, {0, 3, 1, 4, 2, 5}, "FLUX unpack (4,16,256,256)",
                            shifted_where(4), float{}, {0, 4, 10});
  check_streamed_permute<3>({3200, 64, 64}, {0, 2, 1}, "(3200,64,64).permute(0,2,1)", shifted_where(1),
                            std::uint8_t{}, {1, 17, 63});
  check_streamed_permute<3>({1600, 64, 64}, {0, 2, 1}, "(1600,64,64).permute(0,2,1)", shifted_where(2),
                            std::uint16_t{}, {1, 31});
  check_streamed_permute<3>({1000, 64, 50}, {0, 2, 1}, "(1000,64,50).permute(0,2,1)", shifted_where(4), float{},
                            {1, 15});
  check_streamed_permute<3>({1000, 32, 50}, {0, 2, 1}, "(1000,32,50).permute(0,2,1)", shifted_where(8),
                            std::uint64_t{}, {1, 7});
  check_streamed_permute<3>({2600, 64, 77}, {0, 2, 1}, "(2600,64,77).permute(0,2,1)", shifted_where(1),
                            std::uint8_t{}, {1, 40});
  check_streamed_permute<3>({2000, 64, 50}, {0, 2, 1}, "(2000,64,50).permute(0,2,1)", shifted_where(2),
                            std::uint16_t{}, {24});
  check_streamed_permute<2>({4096, 3201}, {1, 0}, "(4096,3201).t()", shifted_where(1), std::uint8_t{}, {1, 33});
  check_streamed_permute<2>({2048, 3201}, {1, 0}, "(2048,3201).t()", shifted_where(2), std::uint16_t{}, {3});
  check_streamed_permute<2>({1024, 3201}, {1, 0}, "(1024,3201).t()", shifted_where(4), float{}, {4});
}

namespace {

/// Whether this build cuts streamed transposes of E-byte elements into rows off lines
/// (peel_rows_to_lines): it has streaming stores and whole-line tiles for them.
bool peels(int E) { return kernels::have_nt && kernels::line_tile_of(E) > 1; }

/// The cut peel_rows_to_lines makes of copying e (elements of `elem` bytes) into the view `to`
/// at `dst`, `bytes` in all, on `th` threads.
line_peel peel_into(const auto& e, const auto& to, index_t elem, const void* dst, index_t bytes, unsigned th = 1) {
  const copy_plan p = make_plan(physical(fold(e)), fold(to));
  engine_plan ep = make_engine_plan(p, elem);
  use_streaming_stores(ep, dst, bytes, th);
  return peel_rows_to_lines(ep, p, elem, dst, bytes, th);
}

/// A predicate for check_streamed_permute of x.permute(perm) of sizes `sizes` and T: cut where
/// the destination is `shift` elements off a line and the build peels T.
template <class T, std::size_t R>
auto peeled_where(std::array<index_t, R> sizes, std::array<index_t, R> perm) {
  return [=](const engine_plan&, index_t shift) {
    static const tensor<T, 1> line({128 / static_cast<index_t>(sizeof(T))});  // 64-byte aligned
    const T* const x = line.data();  // plans only: nothing is read
    std::array<index_t, R> out{};
    index_t n = 1;
    for (std::size_t k = 0; k < R; ++k) out[k] = sizes[static_cast<std::size_t>(perm[k])], n *= sizes[k];
    T* const y = const_cast<T*>(x) + shift;
    const auto [e, to] = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::pair{from_blob(x, {sizes[I]...}).permute(perm[I]...), from_blob(y, {out[I]...})};
    }(std::make_index_sequence<R>{});
    const line_peel c = peel_into(e, to, sizeof(T), y, n * static_cast<index_t>(sizeof(T)));
    const bool want = shift != 0 && peels(sizeof(T));
    return (c.k >= 0) == want && (!want || (c.m == shift * static_cast<index_t>(sizeof(T)) &&
                                           (c.head + c.tail) * static_cast<index_t>(sizeof(T)) == 64));
  };
}

}  // namespace

// Which transposes are cut into a body on lines and seams: rows over shifted_tile_row_bytes (or
// shorter, not a power of two long: short_rows_cut), whole lines long, all starting m bytes into
// a line (m a multiple of the element), A one loop, the body streamed from its tiles.
// (4096,4096).t() fp32 into a std::vector (16 mod 64): head 12, tail 4, the body A indices
// [12, 4092) with rows on lines. Not cut: aligned, rows of 1 KiB or 256 bytes (the shifted
// tiles'), rows off whole lines, 8-byte elements 4 bytes off, a copy too small to stream, A of
// two loops.
BOOST_AUTO_TEST_CASE(peeled_choice) {
  tuning_scope const zen{tuning::zen};
  const tensor<float, 1> line({64});  // 64-byte aligned: only its address is used
  const float* x = line.data();
  float* d = const_cast<float*>(x);
  const auto cut = [&](const auto& e, std::initializer_list<index_t> out, index_t shift) {
    index_t n = 1;
    for (index_t v : out) n *= v;
    std::array<index_t, 2> o{};
    std::copy(out.begin(), out.end(), o.begin());
    return peel_into(e, from_blob(d + shift, o), 4, d + shift, n * 4);
  };
  const line_peel sq = cut(from_blob(x, {4096, 4096}).t(), {4096, 4096}, 4);
  BOOST_TEST((sq.k >= 0) == peels(4));
  if (sq.k >= 0) {
    BOOST_TEST((sq.m == 16 && sq.head == 12 && sq.tail == 4));
    BOOST_TEST((sq.body.nt && !sq.body.nt_rows && sq.body.nA == 4080 && rows_on_lines(sq.body, d + 4)));
  }
  BOOST_TEST(cut(from_blob(x, {4096, 4096}).t(), {4096, 4096}, 0).k == -1);
  // rows up to shifted_tile_row_bytes: cut unless a power of two long
  BOOST_TEST(cut(from_blob(x, {256, 16384}).t(), {16384, 256}, 4).k == -1);  // rows of 1 KiB
  BOOST_TEST(cut(from_blob(x, {64, 65536}).t(), {65536, 64}, 4).k == -1);    // 256 bytes
  BOOST_TEST((cut(from_blob(x, {192, 21845}).t(), {21845, 192}, 4).k >= 0) == peels(4));  // 768
  BOOST_TEST((cut(from_blob(x, {48, 87381}).t(), {87381, 48}, 4).k >= 0) == peels(4));    // 192
  BOOST_TEST((short_rows_cut(192) && short_rows_cut(320) && short_rows_cut(960) && !short_rows_cut(64) &&
              !short_rows_cut(128) && !short_rows_cut(512) && !short_rows_cut(1024)));
  BOOST_TEST((cut(from_blob(x, {272, 15420}).t(), {15420, 272}, 4).k >= 0) == peels(4));  // 1088
  BOOST_TEST(cut(from_blob(x, {1000, 4096}).t(), {4096, 1000}, 4).k == -1);  // rows of 4000 bytes
  BOOST_TEST(cut(from_blob(x, {512, 512}).t(), {512, 512}, 4).k == -1);      // 1 MiB: in place
  const tensor<std::uint64_t, 1> line8({8});
  std::uint64_t* d8 = const_cast<std::uint64_t*>(line8.data());
  const auto t8 = from_blob(static_cast<const std::uint64_t*>(d8), {2048, 2048}).t();
  BOOST_TEST((peel_into(t8, from_blob(d8 + 2, {2048, 2048}), 8, d8 + 2, 2048 * 2048 * 8).k >= 0) == peels(8));
  auto* const off4 = reinterpret_cast<std::uint64_t*>(reinterpret_cast<char*>(d8) + 4);  // (plans only)
  BOOST_TEST(peel_into(t8, from_blob(off4, {2048, 2048}), 8, off4, 2048 * 2048 * 8).k == -1);
  // A of two loops: the 48 source rows 44 fp32 apart, then the 336 of the leading two dims
  // (with whole-line tiles rows of 16128 fp32, whole lines, through nt_rows)
  const auto two = from_blob(x, {16, 21, 5, 48, 44}).permute(2, 4, 0, 1, 3);
  const index_t n2 = 16 * 21 * 5 * 48 * 44;
  const engine_plan g = streamed_plan_of(two, 4, d + 4, n2 * 4);
  if (peels(4)) BOOST_TEST((g.na == 2 && g.nA == 16128 && rows_line_offset(g, d + 4) == 16 && g.nt_rows));
  BOOST_TEST(peel_into(two, from_blob(d + 4, {5, 44, 16, 21, 48}), 4, d + 4, n2 * 4).k == -1);
}

// Values of cut transposes, at 1 and 2 threads, aligned and at several offsets, against the index
// map: rows of 4160 bytes with B odd (a partial last tile, seam units ending inside a tile) and
// heads of 15, 12 and 1 elements; bytes (BW's byte masks), 2- and 8-byte elements; a batch of
// three transposes (the seams' units across outer iterations); rows under 1 KiB. About 17 MiB
// each, past the streaming thresholds.
BOOST_AUTO_TEST_CASE(peeled_values) {
  tuning_scope const zen{tuning::zen};
  check_streamed_permute<2>({1040, 4099}, {1, 0}, "(1040,4099).t()", peeled_where<float, 2>({1040, 4099}, {1, 0}),
                            float{}, {0, 1, 4, 15});
  check_streamed_permute<2>({2048, 8201}, {1, 0}, "(2048,8201).t()",
                            peeled_where<std::uint8_t, 2>({2048, 8201}, {1, 0}), std::uint8_t{}, {1, 17, 63});
  check_streamed_permute<2>({1088, 7777}, {1, 0}, "(1088,7777).t()",
                            peeled_where<std::uint16_t, 2>({1088, 7777}, {1, 0}), std::uint16_t{}, {1, 31});
  check_streamed_permute<2>({272, 7777}, {1, 0}, "(272,7777).t()",
                            peeled_where<std::uint64_t, 2>({272, 7777}, {1, 0}), std::uint64_t{}, {1, 7});
  check_streamed_permute<3>({3, 1024, 1500}, {0, 2, 1}, "(3,1024,1500).permute(0,2,1)",
                            peeled_where<float, 3>({3, 1024, 1500}, {0, 2, 1}), float{}, {4});
  // short rows (short_rows_cut): fp32 of 640 bytes, bytes of 192 (a body of one to two lines)
  check_streamed_permute<2>({160, 26003}, {1, 0}, "(160,26003).t()", peeled_where<float, 2>({160, 26003}, {1, 0}),
                            float{}, {1, 12});
  check_streamed_permute<2>({192, 87383}, {1, 0}, "(192,87383).t()",
                            peeled_where<std::uint8_t, 2>({192, 87383}, {1, 0}), std::uint8_t{}, {5, 48});
}

// Rows that do not lie back to back (a view of every row's first 1024 of 1040 fp32, 16 bytes into
// a line): each seam's two parts go under masks to the lines they share with the gaps, which keep
// their values.
BOOST_AUTO_TEST_CASE(peeled_rows_apart) {
  tuning_scope const zen{tuning::zen};
  constexpr index_t A = 1024, B = 4099, W = 1040;
  std::vector<float> x(static_cast<std::size_t>(A * B));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  std::vector<float> buf(static_cast<std::size_t>(B * W + 32));
  float* const y = buf.data() + (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) / 4 + 4;
  const auto e = from_blob(static_cast<const float*>(x.data()), {A, B}).t();
  const auto to = from_blob(y, {B, A}, {W, index_t{1}});
  BOOST_TEST((peel_into(e, to, 4, y, A * B * 4).k >= 0) == peels(4));
  for (unsigned th : {1u, 2u}) {
    std::fill(buf.begin(), buf.end(), -1.0f);
    copy(e, to, threads{th});
    index_t bad = 0, clobbered = 0;
    for (index_t b = 0; b < B; ++b)
      for (index_t a = 0; a < W; ++a) {
        const float got = y[b * W + a];
        if (a < A)
          bad += got != x[static_cast<std::size_t>(a * B + b)];
        else
          clobbered += got != -1.0f;
      }
    clobbered += (y[-1] != -1.0f) + (y[B * W] != -1.0f);
    BOOST_TEST(bad == 0, "threads " << th << ": " << bad << " differ");
    BOOST_TEST(clobbered == 0, "threads " << th << ": " << clobbered << " outside the view written");
  }
}

// Seams between units (kernels::shifted_carry): FLUX unpack into rows 16 bytes into a line, where
// outer iteration h writes rows 2h and 2h + 1 of each channel and h + 1 the rows after them, so
// each such seam line streams whole from the unit after, with the tail the unit before left; on
// 1, 2 and 3 threads (ranges that start and end between such units: there the parts go plainly),
// fp32 (8-byte elements) and 2-byte pairs (4-byte elements), into a dense destination and into
// one whose channels lie 64 bytes apart (a row's tail that no row continues, stored plainly, the
// gaps untouched). The plan is nt_shifted where this build has whole-line tiles or register
// tiles that stream lines (AVX2 and SSE2: kernels::transpose_shifted, the same carry).
BOOST_AUTO_TEST_CASE(shifted_seams_across_units) {
  const auto check = [&]<class T>(T, index_t B, index_t C, index_t H, index_t W, index_t gap) {
    const index_t n = B * C * H * W, plane = H * W + gap;
    std::vector<T> x(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(i * 2654435761u);
    std::vector<T> buf(static_cast<std::size_t>(B * C * plane + 256 / sizeof(T)));
    T* const y = buf.data() + (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) / sizeof(T) + 16 / sizeof(T);
    const auto e = from_blob(static_cast<const T*>(x.data()), {B, H * W / 4, C * 4})
                       .view(B, H / 2, W / 2, C, 2, 2)
                       .permute(0, 3, 1, 4, 2, 5)
                       .reshape(B, C, H, W);
    const auto to = from_blob(y, {B, C, H, W}, {C * plane, plane, W, index_t{1}});
    const index_t E = 2 * static_cast<index_t>(sizeof(T));  // the plan's wide element: a pair
    engine_plan ep = evaltest::plan_into(e, to, sizeof(T));
    use_streaming_stores(ep, y, n * static_cast<index_t>(sizeof(T)));
    // whole-line tiles (transpose_shifted_tiles), or register tiles that stream (transpose_shifted)
    const bool shifted = kernels::have_nt && (kernels::line_tile_of(static_cast<int>(E)) > 1 ||
                                              kernels::stream_lines_fit(static_cast<int>(E)));
    BOOST_TEST_CONTEXT("FLUX unpack (" << B << "," << C << "," << H << "," << W << ") of " << sizeof(T)
                                       << "-byte elements, channels " << gap << " elements apart")
    {
      BOOST_TEST((!shifted || (ep.nt_shifted && ep.elem == E)),
                 "nt " << ep.nt << ", shifted " << ep.nt_shifted << ", elem " << ep.elem);
      for (unsigned th : {1u, 2u, 3u}) {
        const T unset = static_cast<T>(-1);
        std::fill(buf.begin(), buf.end(), unset);
        copy(e, to, threads{th});
        index_t bad = 0, clobbered = 0;
        for (index_t b = 0; b < B; ++b)
          for (index_t c = 0; c < C; ++c)
            for (index_t i = 0; i < plane; ++i) {
              const T got = y[(b * C + c) * plane + i];
              if (i >= H * W) {
                clobbered += got != unset;
                continue;
              }
              const index_t h = i / W, w = i % W;  // from p[b, (h/2)(W/2) + w/2, 4c + 2(h%2) + w%2]
              bad += got != x[static_cast<std::size_t>(((b * (H / 2) + h / 2) * (W / 2) + w / 2) * C * 4 + c * 4 +
                                                        h % 2 * 2 + w % 2)];
            }
        clobbered += (y[-1] != unset) + (y[B * C * plane] != unset);
        BOOST_TEST(bad == 0, "threads " << th << ": " << bad << " differ");
        BOOST_TEST(clobbered == 0, "threads " << th << ": " << clobbered << " outside the view written");
      }
    }
  };
  check(float{}, 4, 16, 256, 256, 0);
  check(float{}, 4, 16, 256, 256, 16);
  check(std::uint16_t{}, 8, 16, 256, 256, 0);  // 16 MiB: streamed under every tuning
  check(std::uint16_t{}, 8, 16, 256, 256, 32);
}
