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
