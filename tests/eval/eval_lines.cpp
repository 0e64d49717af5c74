// Transposes in whole-line tiles (kernels::transpose_lines, AVX-512): which plans take them and
// which of those ask for the next unit's source lines; values of an in-place plan that asks
// (past transpose_prefetch_threshold, source rows close together). Elsewhere no plan takes them,
// and the values test runs the older tiles.
#include "eval_common.hpp"

namespace evaltest {
namespace {

lv::engine_plan plan_of(auto const& e, index_t elem)
{
    return lv::make_engine_plan(lv::contiguous_plan(lv::physical(lv::fold(e))), elem);
}

}  // namespace

BOOST_AUTO_TEST_CASE(line_tiles_choice)
{
    bool const have = lv::kernels::line_tile_of(4) > 1;
    BOOST_TEST((lv::kernels::line_tile_of(8) > 1) == have);
    std::vector<float> in(1);
    float const* x = in.data();  // plans only: nothing is read
    // In place, within the caches: FLUX pack (1,16,64,48) fp32 (8-byte elements, A = 32, B = 24)
    // and bf16 (4-byte, the same groups); not where a group is under a tile (B = 13 < 16).
    auto pack = lv::from_blob(x, {1, 16, 64, 48}).view(1, 16, 32, 2, 24, 2).permute(0, 2, 4, 1, 3, 5);
    lv::engine_plan const p8 = plan_of(pack, 4);
    BOOST_TEST((p8.kind == lv::engine_plan::transpose && p8.elem == 8 && p8.nA == 32 && p8.nB == 24));
    BOOST_TEST(lv::line_tiles(p8) == have);
    BOOST_TEST(!lv::prefetch_next_unit(p8));
    lv::engine_plan const p4 = plan_of(pack, 2);
    BOOST_TEST((p4.elem == 4 && lv::line_tiles(p4) == have));
    BOOST_TEST(!lv::line_tiles(plan_of(lv::from_blob(x, {6, 19, 19, 9, 16, 13}).permute(2, 5, 1, 0, 3, 4), 4)));
    // 1- and 2-byte elements have none.
    BOOST_TEST(!lv::line_tiles(plan_of(lv::from_blob(x, {64, 64}).t(), 1)));
    BOOST_TEST(!lv::line_tiles(plan_of(lv::from_blob(x, {64, 64}).t(), 2)));
    // Past the threshold with source rows close together: tiles, asking for the next unit.
    lv::engine_plan const close = plan_of(lv::from_blob(x, {46, 109, 14, 58}).permute(0, 3, 1, 2), 4);
    BOOST_TEST(lv::transpose_prefetch_distance(close) == 0);
    BOOST_TEST(lv::line_tiles(close) == have);
    BOOST_TEST(lv::prefetch_next_unit(close) == have);
    // Far apart: the older tiles with their requests along the rows.
    lv::engine_plan const far = plan_of(lv::from_blob(x, {65, 58, 1119}).permute(2, 1, 0), 4);
    BOOST_TEST(lv::transpose_prefetch_distance(far) > 0);
    BOOST_TEST(!lv::line_tiles(far));
    // Streamed: always tiles and requests.
    lv::tensor<float, 1> out({64});
    lv::engine_plan big = plan_of(lv::from_blob(x, {4096, 4096}).t(), 4);
    lv::use_streaming_stores(big, out.data(), index_t{4096} * 4096 * 4);
    BOOST_TEST(big.nt == lv::kernels::have_nt);
    BOOST_TEST(lv::line_tiles(big) == (have && big.nt));
    BOOST_TEST(lv::prefetch_next_unit(big) == (have && big.nt));
}

BOOST_AUTO_TEST_CASE(line_tiles_asking_ahead_in_place)
{
    // (46,109,14,58).permute(0,3,1,2) in fp32, 16 MiB: A = 1526 in 6 blocks, B = 58 (three
    // tiles of 16 and one moved back); the next unit is the next block or, after the last, the
    // next outer index. Values at 1, 2 and 0 threads.
    auto buf = make_buffer<float>(46 * 109 * 14 * 58);
    float* p = buf.data();
    auto e = lv::from_blob(p, {46, 109, 14, 58}).permute(0, 3, 1, 2);
    check_eval<float>(e, std::array<index_t, 4>{46, 58, 109, 14},
                      [&](index_t f) {
                          index_t const k = f % 14, j = f / 14 % 109, l = f / (14 * 109) % 58, i = f / (14 * 109 * 58);
                          return p[((i * 109 + j) * 14 + k) * 58 + l];
                      },
                      "(46,109,14,58).permute(0,3,1,2)");
}

}  // namespace evaltest
