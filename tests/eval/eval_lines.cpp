// Transposes in whole-line tiles (kernels::transpose_lines, AVX-512): which plans take them and
// which of those ask for the next unit's source lines; values of an in-place plan that asks
// (past transpose_prefetch_threshold, source rows close together), and of partial tiles (B
// under a tile) in place and streamed. Elsewhere no plan takes them in place; rows that do not
// start on a line stream through the same buffer (nt_rows) from the register tiles
// (kernels::rows_tile_of), and the values tests run those.
#include "eval_common.hpp"

namespace evaltest {
namespace {

// Checks from_blob(p, sizes).permute(perm) of a contiguous buffer of T (fp32 unless given)
// against the index map: output index (i_0, ..., i_R-1) reads source index i_k along dim perm[k].
template <std::size_t R, class T = float>
void check_permuted(std::array<index_t, R> const& sizes, std::array<index_t, R> const& perm)
{
    auto buf = make_buffer<T>(numel_of(sizes));
    T* p = buf.data();
    auto e = [&]<std::size_t... I>(std::index_sequence<I...>) {
        return lv::from_blob(p, {sizes[I]...}).permute(perm[I]...);
    }(std::make_index_sequence<R>{});
    std::array<index_t, R> out{};
    for (std::size_t k = 0; k < R; ++k) out[k] = sizes[static_cast<std::size_t>(perm[k])];
    auto const st = contiguous_strides(sizes);
    check_eval<T>(e, out,
                      [&](index_t f) {
                          index_t at = 0;
                          for (std::size_t k = R; k-- > 0; f /= out[k]) at += f % out[k] * st[static_cast<std::size_t>(perm[k])];
                          return p[at];
                      },
                      fmt(sizes) + ".permute" + fmt(perm));
}

}  // namespace

BOOST_AUTO_TEST_CASE(line_tiles_choice)
{
    tuning_scope const zen{lv::tuning::zen};  // (the requests and blocks stated here: the zen tuning's)
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
    // B of half a tile or more: partial tiles (B = 13 and 8 of 4-byte, 4 of 8-byte elements);
    // under half, not (B = 7 and 3).
    BOOST_TEST(lv::line_tiles(plan_of(lv::from_blob(x, {6, 19, 19, 9, 16, 13}).permute(2, 5, 1, 0, 3, 4), 4)) == have);
    lv::engine_plan const b8 = plan_of(lv::from_blob(x, {300, 8}).t(), 4);
    BOOST_TEST((b8.nA == 300 && b8.nB == 8 && lv::line_tiles(b8) == have));
    BOOST_TEST(!lv::line_tiles(plan_of(lv::from_blob(x, {300, 7}).t(), 4)));
    lv::engine_plan const b4 = plan_of(lv::from_blob(x, {300, 4, 2}).permute(1, 0, 2), 4);
    BOOST_TEST((b4.elem == 8 && b4.nB == 4 && lv::line_tiles(b4) == have));
    BOOST_TEST(!lv::line_tiles(plan_of(lv::from_blob(x, {300, 3, 2}).permute(1, 0, 2), 4)));
    // Group A grows to four tiles of the widest kernel: 42 stays 42 with 8-wide tiles, and
    // with whole-line ones takes the loop that continues it in the destination (42 x 483).
    lv::engine_plan const a42 = plan_of(lv::from_blob(x, {23, 21, 5, 42, 44}).permute(2, 4, 0, 1, 3), 4);
    BOOST_TEST(a42.nA == (have ? 42 * 483 : 42));
    BOOST_TEST(a42.nB == 44);
    // 1- and 2-byte elements: tiles of 64 x 16 bytes (VBMI) and 32 x 16 2-byte elements (BW),
    // A of a whole line and B of half a tile.
    bool const have1 = lv::kernels::line_tile_of(1) > 1, have2 = lv::kernels::line_tile_of(2) > 1;
    BOOST_TEST((!have1 || (have2 && have)));
    BOOST_TEST((!have1 || (lv::kernels::line_tile_of(1) == 64 && lv::kernels::line_tile_rows_of(1) == 16)));
    BOOST_TEST((!have2 || (lv::kernels::line_tile_of(2) == 32 && lv::kernels::line_tile_rows_of(2) == 16)));
    BOOST_TEST(lv::line_tiles(plan_of(lv::from_blob(x, {64, 64}).t(), 1)) == have1);
    BOOST_TEST(lv::line_tiles(plan_of(lv::from_blob(x, {64, 8}).t(), 1)) == have1);
    BOOST_TEST(!lv::line_tiles(plan_of(lv::from_blob(x, {64, 7}).t(), 1)));
    BOOST_TEST(!lv::line_tiles(plan_of(lv::from_blob(x, {63, 64}).t(), 1)));
    BOOST_TEST(lv::line_tiles(plan_of(lv::from_blob(x, {32, 8}).t(), 2)) == have2);
    BOOST_TEST(!lv::line_tiles(plan_of(lv::from_blob(x, {31, 64}).t(), 2)));
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
    lv::engine_plan const big =
        streamed_plan_of(lv::from_blob(x, {4096, 4096}).t(), 4, out.data(), index_t{4096} * 4096 * 4);
    BOOST_TEST(big.nt == lv::kernels::have_nt);
    BOOST_TEST(lv::line_tiles(big) == (have && big.nt));
    BOOST_TEST(lv::prefetch_next_unit(big) == (have && big.nt));
    // Rows that do not start on a line stream through the buffer (nt_rows) where the rows of a
    // unit are 256 bytes or more, whatever the destination's own alignment; not far-row plans.
    // Any target with tiles for 4- and 8-byte elements does: whole-line tiles, or register tiles
    // where B is two of them (B = 17 here); with register tiles, not B = 8, a single one. (B = 8
    // of rows back to back in the source is a narrow split: where the target permutes lanes
    // (AVX-512), it streams as one, its lines joined from two rounds, narrow_shifted_rows.)
    bool const rows_tiles = lv::kernels::rows_tile_of(4) > 1 && lv::kernels::rows_tile_of(8) > 1;
    BOOST_TEST((!have || rows_tiles));
    bool const stream_rows = rows_tiles && lv::kernels::have_nt;
    for (int const mis : {0, 1}) {
        lv::engine_plan const rows = streamed_plan_of(lv::from_blob(x, {449, 551, 17}).permute(2, 0, 1), 4,
                                                      out.data() + mis, index_t{449} * 551 * 17 * 4);
        BOOST_TEST((rows.nt == stream_rows && rows.nt_rows == rows.nt));
        BOOST_TEST(lv::prefetch_next_unit(rows) == rows.nt_rows);
    }
    lv::engine_plan one_tile = plan_of(lv::from_blob(x, {278, 17, 102, 8}).permute(0, 3, 1, 2), 4);
    BOOST_TEST((one_tile.nB == 8 && one_tile.nA == 1734));
    lv::use_streaming_stores(one_tile, out.data() + 1, index_t{278} * 17 * 102 * 8 * 4);
    bool const shifted = lv::kernels::have_nt && !lv::narrow_bytes && lv::narrow_lane > 0;
    BOOST_TEST(one_tile.nt_rows == (stream_rows && !shifted && (have || lv::kernels::rows_tile_of(4) < 8)));
    BOOST_TEST(((lv::narrow_transpose(one_tile) == lv::narrow_kind::split && one_tile.nt) == shifted));
    // Far apart with rows of 260 bytes, too short for the buffer: they stream only with A
    // widened by the outer loop that continues it (lv::widen_group_a), rows of 15080 bytes.
    lv::engine_plan const far_nt =
        streamed_plan_of(lv::from_blob(x, {65, 58, 1119}).permute(2, 1, 0), 4, out.data(), index_t{65} * 58 * 1119 * 4);
    BOOST_TEST((far_nt.nt == stream_rows && far_nt.nt_rows == stream_rows));
    BOOST_TEST((!far_nt.nt || (far_nt.na == 2 && far_nt.nA == 3770)));
    // Far-row and scattered plans do with rows of 1024 bytes or more past streaming_threshold
    // (a row in units of up to 512 bytes, lines carried from one to the next): (394,69,154).permute(
    // 1,2,0) (rows of 1576 bytes, far apart in the source), (2047,2049).t() (scattered, 8188);
    // not (1000,1000).t() (4 MB, in cache), whose rows are as long.
    lv::engine_plan far_long = plan_of(lv::from_blob(x, {394, 69, 154}).permute(1, 2, 0), 4);
    BOOST_TEST(lv::transpose_prefetch_distance(far_long) > 0);
    lv::use_streaming_stores(far_long, out.data(), index_t{394} * 69 * 154 * 4);
    BOOST_TEST(far_long.nt_rows == stream_rows);
    // Units of up to nt_rows_block_bytes of each row; with register tiles, whose units here read
    // 1 KiB of each far-apart source row (B in chunks of 256), of 128 (lv::nt_rows_block_of).
    bool const register_tiles = lv::kernels::line_tile_of(4) == 1;
    BOOST_TEST((!far_long.nt_rows || (register_tiles ? far_long.blocks_a == 13 && far_long.block_a == 32
                                                     : far_long.blocks_a == 4 &&
                                                           far_long.block_a * 4 <= lv::nt_rows_block_bytes)));
    BOOST_TEST(lv::nt_rows_block_of(far_long) == (register_tiles ? lv::nt_rows_far_block_bytes : lv::nt_rows_block_bytes));
    lv::engine_plan close_rows = far_long;  // the same plan over source rows 64 bytes apart
    close_rows.ga[0].ss = 64;
    BOOST_TEST(lv::nt_rows_block_of(close_rows) == lv::nt_rows_block_bytes);
    lv::engine_plan const short_b = streamed_plan_of(lv::from_blob(x, {5, 15, 37, 5, 15, 19}).permute(3, 1, 5, 0, 4, 2),
                                                     4, out.data(), index_t{5} * 15 * 37 * 5 * 15 * 19 * 4);
    BOOST_TEST((!short_b.nt_rows || (short_b.nB == 19 && lv::nt_rows_block_of(short_b) == lv::nt_rows_block_bytes &&
                                     short_b.block_a * 4 > lv::nt_rows_far_block_bytes)));
    lv::engine_plan scat = plan_of(lv::from_blob(x, {2047, 2049}).t(), 4);
    BOOST_TEST(lv::scattered_transpose(scat));
    lv::use_streaming_stores(scat, out.data(), index_t{2047} * 2049 * 4);
    BOOST_TEST(scat.nt_rows == stream_rows);
    lv::engine_plan small = plan_of(lv::from_blob(x, {1000, 1000}).t(), 4);
    BOOST_TEST(lv::scattered_transpose(small));
    lv::use_streaming_stores(small, out.data(), index_t{1000} * 1000 * 4);
    BOOST_TEST(!small.nt_rows);
    // Streamed partial tiles (line_tiles_partial's values).
    lv::engine_plan const part =
        streamed_plan_of(lv::from_blob(x, {280000, 15}).t(), 4, out.data(), index_t{280000} * 15 * 4);
    BOOST_TEST((part.nB == 15 && part.nt == lv::kernels::have_nt));
    BOOST_TEST(lv::line_tiles(part) == (have && part.nt));
}

BOOST_AUTO_TEST_CASE(line_tiles_asking_ahead_in_place)
{
    // (46,109,14,58).permute(0,3,1,2) in fp32, 16 MiB: A = 1526 in 6 blocks, B = 58 (three
    // tiles of 16 and one of 10); the next unit is the next block or, after the last, the next
    // outer index. Values at 1, 2 and 0 threads; copies into the contiguous destination stream
    // through the buffer of nt_rows (rows of 6104 bytes), the others run in place.
    check_permuted<4>({46, 109, 14, 58}, {0, 3, 1, 2});
}

BOOST_AUTO_TEST_CASE(line_tiles_partial)
{
    // Partial tiles read only B's rows: a source of (n, b) fp32 ends right after the last row's
    // b elements, where a full tile's load would run past it (the sanitizer build sees that).
    // B = 8, 13 and 15 of 4-byte elements, 4 and 7 of 8-byte ones; n from a few tiles (in place,
    // with a tail of A) to 16 MiB (streamed where the destination is aligned: (280000,15).t(),
    // (300000,7,2).permute(1,0,2)).
    for (index_t const n : {37, 300}) {
        for (index_t const b : {8, 13, 15}) check_permuted<2>({n, b}, {1, 0});
        for (index_t const b : {4, 7}) check_permuted<3>({n, b, 2}, {1, 0, 2});
    }
    check_permuted<2>({280000, 15}, {1, 0});
    check_permuted<3>({300000, 7, 2}, {1, 0, 2});
}

BOOST_AUTO_TEST_CASE(line_tiles_streamed_rows)
{
    // Rows that do not start on a line, streamed through the buffer (nt_rows) into contiguous
    // destinations, at 1, 2 and 0 threads. (449,551,17).permute(2,0,1) fp32, 16 MiB: destination
    // rows 989596 bytes apart, B = 17 (a tile and a partial one of a single row).
    // (300,701,9,2).permute(2,0,1,3): 8-byte elements, B = 9 (8 and 1), 15 MiB.
    check_permuted<3>({449, 551, 17}, {2, 0, 1});
    check_permuted<4>({300, 701, 9, 2}, {2, 0, 1, 3});
}

BOOST_AUTO_TEST_CASE(line_tiles_streamed_rows_carried)
{
    // Lines carried from unit to unit along each destination row (kernels::line_carry), where
    // units split into chunks of B and threads split mid-row, each thread's first and last unit
    // storing its ends plainly. (394,69,154).permute(1,2,0) fp32: a far-row plan, A = 394 in 4
    // units, B = 10626 in 41 chunks. (2047,2049).t(): scattered, rows at every offset within a
    // line. (904,3500).t(): A = 904 in 7 units of 128 and a last of 8, narrower than a tile (in
    // place), to which nothing is carried. (3001,700,2).permute(1,0,2): 8-byte elements, B = 700
    // in 2 chunks (256 and 444).
    check_permuted<3>({394, 69, 154}, {1, 2, 0});
    check_permuted<2>({2047, 2049}, {1, 0});
    check_permuted<2>({904, 3500}, {1, 0});
    check_permuted<3>({3001, 700, 2}, {1, 0, 2});
}

// Copies `e`, of `sizes` with element `at(i)` at flat index i, into a fresh tensor (64-byte
// aligned, so that a transpose past the threshold streams) at 1, 2 and 0 threads under tuning
// `t`, and checks that where the target has whole-line tiles its plan runs in panels under zen
// (lv::far_row_panels) and in row blocks under intel (lv::far_row_blocks: 32 source rows a unit,
// a pair of tiles for 1- and 2-byte elements, B whole, no requests for the next unit).
template <class T, std::size_t R>
void check_panels(lv::tuning t, auto const& e, std::array<index_t, R> const& sizes, auto at, std::string const& what)
{
    tuning_scope const scope{t};
    BOOST_TEST_CONTEXT(what << (t == lv::tuning::intel ? ", intel" : ", zen"))
    {
        lv::tensor<T, R> out(sizes);
        lv::engine_plan const p = streamed_plan_of(e, sizeof(T), out.data(), numel_of(sizes) * index_t{sizeof(T)});
        bool const have = lv::kernels::line_tile_of(sizeof(T)) > 1;
        BOOST_TEST(p.panels == (have && t == lv::tuning::zen));
        BOOST_TEST(lv::far_row_blocks(p) == (have && t == lv::tuning::intel));
        if (lv::far_row_blocks(p)) {
            index_t const pair_rows = 2 * lv::kernels::line_tile_of(sizeof(T));
            BOOST_TEST((p.block_a == std::max(lv::row_block_rows, pair_rows) && p.blocks_b == 1));
            BOOST_TEST(!lv::prefetch_next_unit(p));
        }
        for (unsigned const th : {1u, 2u, 0u}) {
            std::fill_n(out.data(), numel_of(sizes), T{});
            lv::copy(e, out, lv::threads{th});
            index_t bad = 0, first = -1;
            for (index_t i = 0; i < numel_of(sizes); ++i)
                if (!(out.data()[i] == at(i)) && bad++ == 0) first = i;
            BOOST_TEST(bad == 0, "threads{" << th << "}: " << bad << " elements differ, first at flat " << first);
        }
    }
}

BOOST_AUTO_TEST_CASE(line_tiles_in_panels)
{
    // Streamed whole-line tiles over far-apart source rows run in panels (zen): units of two
    // lines of each source row of a panel of A, each tile of A sweeping its B
    // (engine_plan::panels); or in row blocks (intel): 32 source rows whole a unit.
    // Tails everywhere: (1040,2030).t() fp32, A = 1040 in three panels of 352, 352 and 336 (in
    // 33 row blocks, the last of 16), B = 2030 in chunks of 32 and a last of 46 (two steps of 16
    // and a partial one of 14; in row blocks, 126 steps and that partial one); (528,1500).t()
    // fp64, B = 1500 in chunks of 16 and a last of 28 (a partial step of 4);
    // (3,1024,600).permute(0,2,1) fp32, an outer loop whose units' last asks for the next
    // batch's first (zen).
    std::vector<float> f(1040 * 2030);  // (the largest view: (3,1024,600) takes 1843200)
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(i);
    std::vector<double> g(528 * 1500);
    for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<double>(i) + 0.5;
    for (lv::tuning const t : {lv::tuning::zen, lv::tuning::intel}) {
        check_panels<float, 2>(t, lv::from_blob(f.data(), {1040, 2030}).t(), {2030, 1040},
                               [&](index_t i) { return f[static_cast<std::size_t>(i % 1040 * 2030 + i / 1040)]; },
                               "(1040,2030).t() fp32");
        check_panels<double, 2>(t, lv::from_blob(g.data(), {528, 1500}).t(), {1500, 528},
                                [&](index_t i) { return g[static_cast<std::size_t>(i % 528 * 1500 + i / 528)]; },
                                "(528,1500).t() fp64");
        check_panels<float, 3>(t, lv::from_blob(f.data(), {3, 1024, 600}).permute(0, 2, 1), {3, 600, 1024},
                               [&](index_t i) {
                                   index_t const b = i / (600 * 1024), r = i % (600 * 1024);
                                   return f[static_cast<std::size_t>(b * 600 * 1024 + r % 1024 * 600 + r / 1024)];
                               },
                               "(3,1024,600).permute(0,2,1) fp32");
    }
    // Not in panels: an A under a panel (FLUX pack's destination rows of 256 bytes), and
    // elements of 1 and 2 bytes (staged tiles, which measured slower in panels).
    tuning_scope const zen{lv::tuning::zen};
    std::vector<float> in(1);
    float const* x = in.data();
    void const* const page = reinterpret_cast<void const*>(std::uintptr_t{1} << 12);  // (alignment only)
    auto const streamed = [&](auto const& e, index_t elem, index_t bytes) {
        return streamed_plan_of(e, elem, page, bytes);
    };
    lv::engine_plan const pack =
        streamed(lv::from_blob(x, {16, 16, 256, 256}).view(16, 16, 128, 2, 128, 2).permute(0, 2, 4, 1, 3, 5), 4, 64 << 20);
    BOOST_TEST(!pack.panels);
    if (lv::kernels::line_tile_of(8) > 1) BOOST_TEST(pack.nt);  // (streamed, in chunks)
    BOOST_TEST(!streamed(lv::from_blob(x, {4096, 4096}).t(), 2, 32 << 20).panels);
    BOOST_TEST(!streamed(lv::from_blob(x, {4096, 4096}).t(), 1, 16 << 20).panels);
    BOOST_TEST(streamed(lv::from_blob(x, {4096, 4096}).t(), 4, 64 << 20).panels == (lv::kernels::line_tile_of(4) > 1));
}

BOOST_AUTO_TEST_CASE(line_tiles_rotated_panels)
{
    // Streamed transposes over far-apart source rows whose destination rows do not start on
    // lines (nt_rows) run in panels too under zen from 32 MiB, each tile's rows rotated onto their
    // destination rows' lines (kernels::transpose_rotated_rows; lv::rotated_panels_fit): units of
    // two lines of each source row of a panel of A, and a line carried per row of B from one
    // panel to the next.
    bool const have = lv::kernels::line_tile_of(4) > 1 && lv::kernels::line_tile_of(8) > 1 && lv::kernels::have_nt;
    {
        tuning_scope const zen{lv::tuning::zen};
        std::vector<float> in(1);
        float const* x = in.data();
        char const* const page = reinterpret_cast<char const*>(std::uintptr_t{1} << 12);  // (alignment only)
        // (3000,5000).t() fp32, 60 MB: rows of 12000 bytes, at 0 and 32 into a line in turn
        auto const wide = lv::from_blob(x, {3000, 5000}).t();
        lv::engine_plan const p = streamed_plan_of(wide, 4, page, index_t{60'000'000});
        BOOST_TEST((p.nt_rows && p.panels) == have);
        if (have) BOOST_TEST((p.block_a == 512 && p.blocks_a == 6 && p.block_b == 32 && p.blocks_b == 156));
        // not under 32 MiB ((2050,2050).t(), 16 MiB: chunks down A, nt_rows as before)
        lv::engine_plan const small = streamed_plan_of(lv::from_blob(x, {2050, 2050}).t(), 4, page, index_t{2050} * 2050 * 4);
        BOOST_TEST(((small.nt_rows || !have) && !small.panels));
        BOOST_TEST(streamed_plan_of(wide, 4, page, index_t{32} << 20).panels == have);
        BOOST_TEST(!streamed_plan_of(wide, 4, page, (index_t{32} << 20) - 64).panels);
        // 4-byte elements of two bf16 (rows of 12004 bytes) two bytes off a line: the rotations
        // move 4-byte lanes, so not in panels; 8-byte elements of two fp32 4 bytes off one are
        std::vector<std::uint16_t> in16(1);
        auto const bf16_pairs = lv::from_blob(in16.data(), {3001, 5000, 2}).permute(1, 0, 2);
        BOOST_TEST(!streamed_plan_of(bf16_pairs, 2, page + 2, index_t{60'020'000}).panels);
        BOOST_TEST(streamed_plan_of(bf16_pairs, 2, page, index_t{60'020'000}).panels == have);
        lv::engine_plan const fp32_pairs =
            streamed_plan_of(lv::from_blob(x, {3001, 2500, 2}).permute(1, 0, 2), 4, page + 4, index_t{60'020'000});
        BOOST_TEST(fp32_pairs.elem == 8);
        BOOST_TEST((fp32_pairs.nt_rows && fp32_pairs.panels) == have);
        // not B under a chunk of two lines ((449,551,17).permute(2,0,1) four times over: B = 17,
        // 68 bytes), nor the intel tuning (chunks down A)
        BOOST_TEST(!streamed_plan_of(lv::from_blob(x, {4 * 449, 551, 17}).permute(2, 0, 1), 4, page,
                                     index_t{4 * 449} * 551 * 17 * 4)
                        .panels);
        tuning_scope const intel{lv::tuning::intel};
        lv::engine_plan const q = streamed_plan_of(wide, 4, page, index_t{60'000'000});
        BOOST_TEST((!q.panels && q.nt_rows == p.nt_rows));
    }
    // Values at 1 and 2 threads, into destinations on a line and 1 to 3 elements past one (rows
    // at every multiple of 4 bytes into a line), nothing outside them written, about 33.6 MB
    // each: (2050,4100).t() fp32 (A in 4 panels of 416 and a last of 386, whose last tile adds 2
    // elements; B in 127 chunks of 32 and a last of 36, a step of 4 rows), (1500,2801).t() fp64
    // (A in 5 panels of 256 and a last of 220, the last tile adding 4 elements; B's last chunk
    // 17, a step of one row), fp32 pairs (2001,2100,2).permute(1,0,2) (8-byte elements in rows of
    // 16008 bytes, 4 bytes off a line at odd shifts), and (130,58,1119).permute(2,1,0) (A widened
    // by an outer loop to 7540, source rows 4476 bytes and 259 KiB apart). Each plan: in rotated
    // panels where the target has whole-line tiles, under zen.
    tuning_scope const zen{lv::tuning::zen};
    auto const rotated = [&](lv::engine_plan const& p) { return !have || (p.nt_rows && p.panels); };
    check_streamed_permute<2>({2050, 4100}, {1, 0}, "(2050,4100).t()", rotated, std::int32_t{}, {0, 1, 2, 3});
    check_streamed_permute<2>({1500, 2801}, {1, 0}, "(1500,2801).t()", rotated, std::int64_t{}, {0, 1});
    check_streamed_permute<3>({2001, 2100, 2}, {1, 0, 2}, "(2001,2100,2).permute(1,0,2)", rotated, std::int32_t{},
                              {0, 1});
    check_streamed_permute<3>({130, 58, 1119}, {2, 1, 0}, "(130,58,1119).permute(2,1,0)", rotated, std::int32_t{},
                              {0, 3});
    // Every destination row must be 4-byte aligned, not only the first: bf16 pairs (4-byte
    // elements) (2101,4000,2).permute(1,0,2) into rows padded by one bf16 (8406 bytes apart, every
    // other row 2 bytes off a multiple of 4), 33.6 MB, from an aligned start: not in panels, and
    // every element in its place with the padding untouched, at 1 and 2 threads.
    index_t const A = 2101, B = 4000, pitch = 2 * A + 1;
    std::vector<std::uint16_t> h(static_cast<std::size_t>(A * B * 2));
    for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint16_t>(i * 40503u ^ (i >> 7));
    std::vector<std::uint16_t> buf(static_cast<std::size_t>(B * pitch + 64));
    std::uint16_t* const out = buf.data() + (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) / 2;
    auto const pairs = lv::from_blob(static_cast<std::uint16_t const*>(h.data()), {A, B, 2}).permute(1, 0, 2);
    auto const padded = lv::from_blob(out, {B, A, 2}, {pitch, 2, 1});
    lv::engine_plan p = plan_into(pairs, padded, 2);
    lv::use_streaming_stores(p, out, B * A * 4);
    BOOST_TEST((p.elem == 4 && p.nA == A && p.nB == B));
    BOOST_TEST(!p.panels);
    for (unsigned const th : {1u, 2u}) {
        std::fill(buf.begin(), buf.end(), std::uint16_t{0xFFFF});
        lv::copy(pairs, padded, lv::threads{th});
        index_t wrong = 0, clobbered = 0;
        for (index_t b = 0; b < B; ++b) {
            for (index_t k = 0; k < 2 * A; ++k)
                wrong += out[b * pitch + k] != h[static_cast<std::size_t>((k / 2 * B + b) * 2 + k % 2)];
            clobbered += out[b * pitch + 2 * A] != 0xFFFF;
        }
        BOOST_TEST((wrong == 0 && clobbered == 0),
                   "padded bf16 pairs, threads " << th << ": " << wrong << " wrong, " << clobbered << " pads written");
    }
}

BOOST_AUTO_TEST_CASE(line_tiles_intel_blocks)
{
    // Under the intel tuning, streamed whole-line tiles take blocks of A of 256 bytes over close
    // source rows (A whole where its rows are at most 1 KiB and not back to back in the destination)
    // and of 32 rows (128 bytes at least) over far-apart ones (lv::intel_line_block_bytes), and no
    // such plan asks for the next unit's lines; the zen tuning keeps transpose_block_bytes and its
    // requests. Under both, nt_rows plans over far-apart source rows that read 1 KiB of each a unit
    // ask (lv::far_long_source_rows: (394,69,154).permute(1,2,0) fp32, B = 10626 in chunks of 256);
    // under intel, not those whose rows are close ((449,551,17).permute(2,0,1)) or read 76 bytes at a
    // time ((5,15,37,5,15,19).permute(3,1,5,0,4,2)). Plans: FLUX unpack fp32 (16,16,256,256) (close
    // rows, 8-byte elements, rows of 1 KiB whose channels lie 256 KiB apart: A whole, one block of
    // 128, where zen takes 16), pack (far rows, 8-byte elements: 32, A whole, where zen takes 16),
    // (16,64,4096).permute(0,2,1) fp64 (far rows: 32 where zen takes 16). Values, streamed under intel
    // at 1, 2 and 0 threads: (600,112,64).permute(0,2,1) fp32 (close rows 256 bytes apart, destination
    // rows back to back: A = 112 in blocks of 64 and 48) and fp64 (blocks of 32, 32, 32 and 16), 17
    // and 34 MB; at 1 and 2 threads, FLUX unpack fp32 (4,16,240,240) (A = 120 pairs, rows of 960
    // bytes: whole, one block of 128, the tiles' pairs past its end), and into a destination an
    // element off a line.
    bool const have = lv::kernels::line_tile_of(4) > 1 && lv::kernels::line_tile_of(8) > 1;
    std::vector<float> in(1);
    float const* x = in.data();
    void const* const page = reinterpret_cast<void const*>(std::uintptr_t{1} << 12);  // (alignment only)
    auto const plans = [&](auto const& e, index_t elem, index_t bytes) {
        std::array<lv::engine_plan, 2> p;
        for (lv::tuning const t : {lv::tuning::zen, lv::tuning::intel}) {
            tuning_scope const scope{t};
            p[t == lv::tuning::intel] = streamed_plan_of(e, elem, page, bytes);
        }
        return p;
    };
    auto const unpack = plans(lv::from_blob(x, {16, 128 * 128, 64}).view(16, 128, 128, 16, 2, 2).permute(0, 3, 1, 4, 2, 5), 4, 64 << 20);
    BOOST_TEST((unpack[0].elem == 8 && unpack[0].nA == 128 && unpack[0].nt == lv::kernels::have_nt));
    if (have && unpack[0].nt) {
        BOOST_TEST((unpack[0].block_a == 16 && unpack[1].block_a == 128 && unpack[1].blocks_a == 1));
        BOOST_TEST((lv::prefetch_next_unit(unpack[0]) && !lv::prefetch_next_unit(unpack[1])));
    }
    auto const pack = plans(lv::from_blob(x, {16, 16, 256, 256}).view(16, 16, 128, 2, 128, 2).permute(0, 2, 4, 1, 3, 5), 4, 64 << 20);
    if (have && pack[0].nt) {
        BOOST_TEST((pack[0].block_a == 16 && pack[1].block_a == 32 && pack[1].blocks_a == 1));
        BOOST_TEST((lv::prefetch_next_unit(pack[0]) && !lv::prefetch_next_unit(pack[1])));
    }
    bool const stream_rows = lv::kernels::rows_tile_of(4) > 1 && lv::kernels::have_nt;
    auto const far_long = plans(lv::from_blob(x, {394, 69, 154}).permute(1, 2, 0), 4, index_t{394} * 69 * 154 * 4);
    auto const close = plans(lv::from_blob(x, {449, 551, 17}).permute(2, 0, 1), 4, index_t{449} * 551 * 17 * 4);
    auto const far_short = plans(lv::from_blob(x, {5, 15, 37, 5, 15, 19}).permute(3, 1, 5, 0, 4, 2), 4,
                                 index_t{5} * 15 * 37 * 5 * 15 * 19 * 4);
    for (int const t : {0, 1}) {
        BOOST_TEST((far_long[t].nt_rows == stream_rows && close[t].nt_rows == stream_rows));
        BOOST_TEST((lv::far_long_source_rows(far_long[t]) && !lv::far_long_source_rows(close[t]) &&
                    !lv::far_long_source_rows(far_short[t])));
        BOOST_TEST(lv::prefetch_next_unit(far_long[t]) == stream_rows);
    }
    BOOST_TEST((far_short[1].nt_rows == stream_rows && !lv::prefetch_next_unit(far_short[1])));
    BOOST_TEST(!lv::prefetch_next_unit(close[1]));
    BOOST_TEST(lv::prefetch_next_unit(close[0]) == stream_rows);
    auto const far8 = plans(lv::from_blob(x, {16, 64, 4096}).permute(0, 2, 1), 8, index_t{16} * 64 * 4096 * 8);
    if (have && far8[0].nt) BOOST_TEST((far8[0].block_a == 16 && far8[1].block_a == 32 && !far8[1].panels));
    tuning_scope const intel{lv::tuning::intel};
    for (index_t const elem : {4, 8}) {
        lv::engine_plan const p = streamed_plan_of(lv::from_blob(x, {600, 112, 64}).permute(0, 2, 1), elem, page, 600 * 112 * 64 * elem);
        if (have && p.nt) BOOST_TEST((p.block_a * elem == 256 && p.blocks_a == (elem == 4 ? 2 : 4)));
    }
    check_permuted<3>({600, 112, 64}, {0, 2, 1});
    check_permuted<3, double>({600, 112, 64}, {0, 2, 1});
    check_streamed_permute<6>({4, 120, 120, 16, 2, 2}, {0, 3, 1, 4, 2, 5}, "FLUX unpack (4,16,240,240)",
                              [&](lv::engine_plan const& p, index_t shift) {
                                  return !have || shift != 0 ||
                                         (p.nt && p.elem == 8 && p.nA == 120 && p.blocks_a == 1 && p.block_a == 128);
                              },
                              float{});
}

BOOST_AUTO_TEST_CASE(line_tiles_in_pairs)
{
    // Under the intel tuning, streamed whole-line tiles go two along A at a time
    // (engine_plan::pairs, kernels::paired_tiles), in blocks of A of whole pairs: far-apart
    // source rows of 1- and 2-byte elements take row blocks too, of 2T rows (128 bytes, 64
    // 2-byte elements); fp32 keeps its 32. Not under zen.
    bool const have = lv::kernels::line_tile_of(1) > 1 && lv::kernels::line_tile_of(2) > 1 && lv::kernels::line_tile_of(4) > 1;
    std::vector<float> in(1);
    float const* x = in.data();
    void const* const page = reinterpret_cast<void const*>(std::uintptr_t{1} << 12);  // (alignment only)
    for (lv::tuning const t : {lv::tuning::zen, lv::tuning::intel}) {
        tuning_scope const scope{t};
        bool const intel = t == lv::tuning::intel;
        for (index_t const elem : {1, 2, 4}) {
            BOOST_TEST_CONTEXT("(4096," << 4096 / (elem == 2 ? 2 : 1) << ").t(), " << elem << "-byte, " << (intel ? "intel" : "zen"))
            {
                index_t const cols = elem == 2 ? 2048 : 4096;
                lv::engine_plan const p = streamed_plan_of(lv::from_blob(x, {4096, cols}).t(), elem, page, 4096 * cols * elem);
                if (!have || !p.nt) continue;
                BOOST_TEST(p.pairs == intel);
                BOOST_TEST(lv::far_row_blocks(p) == intel);
                if (intel) BOOST_TEST((p.block_a == (elem == 4 ? 32 : 128 / elem) && p.blocks_b == 1));
            }
        }
    }
    // Values, streamed under intel at 1, 2 and 0 threads (check_panels; about 4.4 MB each, rows
    // on lines):
    // (2112,2100).t() bytes, A in 16 blocks of 128 rows and a last of 64 (a single tile: no
    // pair), B = 2100 = 16 pairs' steps of 128 and 52 left (three steps of 16 and a partial one
    // of 4); (1088,2050).t() 2-byte elements, A in 17 blocks of 64, B = 32 steps of 64 and 2
    // left (a partial tile). fp32 and fp64 pairs: line_tiles_in_panels, line_tiles_intel_blocks.
    tuning_scope const intel{lv::tuning::intel};
    if (have) {
        std::vector<std::int8_t> o(1);
        lv::engine_plan const p = streamed_plan_of(lv::from_blob(o.data(), {2112, 2100}).t(), 1, page, 2112 * 2100);
        BOOST_TEST((p.pairs && p.block_a == 128 && p.blocks_a == 17));
        lv::engine_plan const q = streamed_plan_of(lv::from_blob(x, {1088, 2050}).t(), 2, page, 1088 * 2050 * 2);
        BOOST_TEST((q.pairs && q.block_a == 64 && q.blocks_a == 17));
    }
    auto const values = [&]<class T>(T, index_t rows, index_t cols) {
        auto buf = make_buffer<T>(rows * cols);
        T const* const a = buf.data();
        check_panels<T, 2>(lv::tuning::intel, lv::from_blob(a, {rows, cols}).t(), {cols, rows},
                           [&](index_t i) { return a[i % rows * cols + i / rows]; },
                           "(" + std::to_string(rows) + "," + std::to_string(cols) + ").t(), " + std::to_string(sizeof(T)) + "-byte");
    };
    values(std::int8_t{}, 2112, 2100);
    values(std::uint16_t{}, 1088, 2050);
}

// Copies e, lv::from_blob(a, {rows, cols}).t(), into out (cols x rows) at 1, 2 and 0 threads,
// each against the transpose of a; a mismatch is reported by its flat index in out.
template <class T>
void check_transpose_copies(auto const& e, T const* a, lv::tensor<T, 2>& out, index_t rows, index_t cols)
{
    for (unsigned const th : {1u, 2u, 0u}) {
        std::fill_n(out.data(), rows * cols, T{});
        lv::copy(e, out, lv::threads{th});
        index_t bad = 0, first = -1;
        for (index_t i = 0; i < rows * cols; ++i)
            if (out.data()[i] != a[i % rows * cols + i / rows] && bad++ == 0) first = i;
        BOOST_TEST(bad == 0, "threads{" << th << "}: " << bad << " elements differ, first at flat " << first);
    }
}

BOOST_AUTO_TEST_CASE(line_tiles_split_sweeps)
{
    // Streamed byte tiles whose destination rows lie a multiple of 2 KiB apart sweep A twice per
    // staged step, 32 of its 64 rows each (engine_plan::split_sweeps, lv::aliased_destination_rows),
    // under the zen tuning where the target has byte tiles: (4096,4032).t() and (2048,1031).t()
    // (destination rows 4096 and 2048 bytes apart); not (4160,4096).t() or (3072,1024).t() (4160
    // and 3072 apart), not 2-byte tiles ((4096,2048).t(), 32 rows a step already), not under
    // intel (paired tiles instead), and not (4096,4096).t(), whose source rows 4096 bytes apart
    // take staged rows instead (eval_staged.cpp); under zen4, only where staged lines do not take
    // them.
    bool const have = lv::kernels::line_tile_of(1) > 1;
    std::vector<std::int8_t> in(1);
    std::int8_t const* x = in.data();
    void const* const page = reinterpret_cast<void const*>(std::uintptr_t{1} << 12);  // (alignment only)
    auto const split = [&](index_t rows, index_t cols, index_t elem) {
        lv::engine_plan const p = streamed_plan_of(lv::from_blob(x, {rows, cols}).t(), elem, page, rows * cols * elem);
        if (have) BOOST_TEST(p.nt, "(" << rows << "," << cols << ").t()");
        return p.split_sweeps;
    };
    {
        tuning_scope const zen{lv::tuning::zen};
        BOOST_TEST(split(4096, 4032, 1) == have);
        BOOST_TEST(split(2048, 1031, 1) == have);
        BOOST_TEST(!split(4096, 4096, 1));
        BOOST_TEST(!split(4160, 4096, 1));
        BOOST_TEST(!split(3072, 1024, 1));
        BOOST_TEST(!split(4096, 2048, 2));
    }
    {
        // under zen4, byte transposes with A of 2048 bytes or more by B of 512 or more go by
        // staged lines instead (lv::staged_lines, eval_staged.cpp); B under 512 still splits
        tuning_scope const zen4{lv::tuning::zen4};
        BOOST_TEST(!split(4096, 4032, 1));
        BOOST_TEST(!split(2048, 1031, 1));
        BOOST_TEST(split(26624, 500, 1) == have);
    }
    {
        tuning_scope const intel{lv::tuning::intel};
        BOOST_TEST(!split(4096, 4096, 1));  // (far-apart source rows: row blocks)
        BOOST_TEST(!split(4096, 544, 1));   // (close ones, 544 bytes apart)
    }
    // Values at 1, 2 and 0 threads under zen, streamed: (2048,1031).t() (A in 16 blocks of 128;
    // B = 1031 in chunks of 256, the last 263: four staged steps, then 7 rows, a partial tile)
    // and (4096,544).t() (B in chunks of 256 and 288: four staged steps, then two tiles of 16).
    tuning_scope const zen{lv::tuning::zen};
    for (auto const& [rows, cols] : {std::pair<index_t, index_t>{2048, 1031}, {4096, 544}}) {
        auto buf = make_buffer<std::int8_t>(rows * cols);
        std::int8_t const* const a = buf.data();
        auto const e = lv::from_blob(a, {rows, cols}).t();
        lv::tensor<std::int8_t, 2> out({cols, rows});
        BOOST_TEST_CONTEXT("(" << rows << "," << cols << ").t() bytes")
        {
            BOOST_TEST(streamed_plan_of(e, 1, out.data(), rows * cols).split_sweeps == have);
            check_transpose_copies(e, a, out, rows, cols);
        }
    }
}

BOOST_AUTO_TEST_CASE(line_tiles_two_byte_blocks)
{
    // Streamed 2-byte whole-line tiles take blocks of A of 256 bytes, 128 source rows a unit
    // (lv::two_byte_line_blocks), under the zen tuning where the target has such tiles, rows that
    // alias or not; bytes keep blocks of 128 (128 rows too; (4160,4032).t(), source rows that do
    // not alias), and the intel tuning its own blocks.
    bool const have = lv::kernels::line_tile_of(2) > 1;
    std::vector<std::uint16_t> in(1);
    void const* const page = reinterpret_cast<void const*>(std::uintptr_t{1} << 12);  // (alignment only)
    auto const plan = [&](index_t rows, index_t cols, index_t elem) {
        lv::engine_plan const p =
            streamed_plan_of(lv::from_blob(in.data(), {rows, cols}).t(), elem, page, rows * cols * elem);
        if (have) BOOST_TEST(p.nt, "(" << rows << "," << cols << ").t(), " << elem << "-byte");
        return p;
    };
    {
        tuning_scope const zen{lv::tuning::zen};
        for (auto const& [rows, cols] : {std::pair<index_t, index_t>{4096, 2048}, {4160, 2080}, {2048, 4096}}) {
            lv::engine_plan const p = plan(rows, cols, 2);
            BOOST_TEST(lv::two_byte_line_blocks(p) == have, "(" << rows << "," << cols << ").t()");
            if (have) BOOST_TEST(p.block_a == 128, "(" << rows << "," << cols << ").t()");
        }
        lv::engine_plan const bytes = plan(4160, 4032, 1);
        BOOST_TEST(!lv::two_byte_line_blocks(bytes));
        if (lv::kernels::line_tile_of(1) > 1) BOOST_TEST(bytes.block_a == 128);
    }
    {
        tuning_scope const intel{lv::tuning::intel};
        BOOST_TEST(!lv::two_byte_line_blocks(plan(4096, 2048, 2)));
    }
    // Values at 1, 2 and 0 threads under zen, streamed: (2080,1100).t() (A in 16 blocks of 128
    // and a last of 32; B in chunks of 256 and a last of 332, ten steps of 32 and a partial
    // tile of 12).
    tuning_scope const zen{lv::tuning::zen};
    index_t const rows = 2080, cols = 1100;
    auto buf = make_buffer<std::uint16_t>(rows * cols);
    std::uint16_t const* const a = buf.data();
    auto const e = lv::from_blob(a, {rows, cols}).t();
    lv::tensor<std::uint16_t, 2> out({cols, rows});
    lv::engine_plan const p = streamed_plan_of(e, 2, out.data(), rows * cols * 2);
    if (have) {
        BOOST_TEST(p.nt);
        BOOST_TEST(p.block_a == 128);
        BOOST_TEST(p.blocks_a == 17);
    }
    check_transpose_copies(e, a, out, rows, cols);
}

BOOST_AUTO_TEST_CASE(line_tiles_of_bytes_and_halves)
{
    // Tiles of 64 x 16 bytes and 32 x 16 2-byte elements (where the target has them; the older
    // tiles elsewhere), at 1, 2 and 0 threads. In place: B of 64 bytes (four steps of 16 per
    // sweep, a source line each), with steps left over (80, 200: one, or a partial one of 8),
    // partial tiles alone (8, 13) and A with a tail (69 = 64 + 5, 300). Streamed whole lines
    // (4 MiB, scattered): (1984,2048).t(), and B = 1990 in chunks of 256 and a last of 454
    // (seven sweeps of 64 and a partial step of 6), (1984,1990).t() bytes and (1024,1990).t();
    // and (2048,2048).t() and (2048,1990).t(), bytes by staged lines from an A of 2048 under
    // zen4 (staged_source_rows; B in chunks of 1024 and 966), else as the others; a partial step
    // alone (B = 15): (1000000,15).t() bytes, (600000,15).t(), 15 and 18 MB. Rows not on a line
    // (nt_rows): (4001,4003).t() bytes, (2003,3301).t() 2-byte elements (16 and 13 MB, rows of
    // 4001 and 4006 bytes).
    for (index_t const n : {69, 300})
        for (index_t const b : {8, 13, 64, 80, 200}) {
            check_permuted<2, std::int8_t>({n, b}, {1, 0});
            check_permuted<2, std::uint16_t>({n, b}, {1, 0});
        }
    check_permuted<2, std::int8_t>({1984, 2048}, {1, 0});
    check_permuted<2, std::int8_t>({1984, 1990}, {1, 0});
    check_permuted<2, std::int8_t>({2048, 2048}, {1, 0});
    check_permuted<2, std::int8_t>({2048, 1990}, {1, 0});
    check_permuted<2, std::uint16_t>({1024, 1990}, {1, 0});
    check_permuted<2, std::int8_t>({1000000, 15}, {1, 0});
    check_permuted<2, std::uint16_t>({600000, 15}, {1, 0});
    check_permuted<2, std::int8_t>({4001, 4003}, {1, 0});
    check_permuted<2, std::uint16_t>({2003, 3301}, {1, 0});
}

BOOST_AUTO_TEST_CASE(line_tiles_repeated_units)
{
    // In place, where a unit is a whole outer iteration, a range's iterations of the innermost
    // outer loop go to transpose_lines in one call (kernels::unit_repeat), the odometer carried
    // past them: two outer loops that do not coalesce, at 1, 2 and 0 threads (ranges that start
    // and end inside the inner one), tiles of A and steps of B, a last step of B moved back.
    std::vector<float> in(1);
    float const* x = in.data();
    auto const batched = plan_of(lv::from_blob(x, {7, 3, 40, 72}).permute(1, 0, 3, 2), 4);
    BOOST_TEST(batched.nouter == 2);
    BOOST_TEST(batched.units_per_outer() == 1);
    BOOST_TEST((lv::kernels::lines_in_place(batched) && !batched.nt));
    check_permuted<4>({7, 3, 40, 72}, {1, 0, 3, 2});
    check_permuted<4, std::uint16_t>({7, 3, 40, 85}, {1, 0, 3, 2});
    check_permuted<4, double>({5, 3, 24, 77}, {1, 0, 3, 2});
    check_permuted<6>({2, 16, 16, 2, 24, 2}, {0, 2, 4, 1, 3, 5});
    check_permuted<6>({2, 16, 24, 16, 2, 2}, {0, 3, 1, 4, 2, 5});
}

BOOST_AUTO_TEST_CASE(line_tiles_in_place_order)
{
    // In place, a unit goes tile of A by tile, each sweeping B, where its source rows fall in
    // fewer L1 sets for their number than its destination rows (kernels::sweep_source_rows,
    // engine_plan::tiles_of_a); else step of B by step, each sweeping A.
    std::array<index_t, 16> far{}, near{}, half{};
    for (std::size_t i = 0; i < 16; ++i) {
        far[i] = static_cast<index_t>(i) * 4096;
        near[i] = static_cast<index_t>(i) * 64;
        half[i] = static_cast<index_t>(i / 2 * 4096 + i % 2 * 256);
    }
    BOOST_TEST(lv::kernels::sweep_source_rows(16, 16, far.data(), near.data()));
    BOOST_TEST(lv::kernels::sweep_source_rows(16, 16, half.data(), near.data()));
    BOOST_TEST(!lv::kernels::sweep_source_rows(16, 16, near.data(), far.data()));
    BOOST_TEST(!lv::kernels::sweep_source_rows(16, 16, far.data(), far.data()));  // (a tie)
    BOOST_TEST(!lv::kernels::sweep_source_rows(16, 16, near.data(), near.data()));
    BOOST_TEST(lv::kernels::sweep_source_rows(16, 8, far.data(), near.data()));
    // A tie goes by tiles of A where the destination rows lie whole lines apart within 4 KiB
    // (close_rows_bytes) and the source rows do not: FLUX pack fp32 (1,16,96,170), source rows
    // 680 bytes and 65280 apart, destination rows 256 apart (8 sets each).
    std::array<index_t, 8> pack_src{}, pack_dst{}, shared{};
    for (std::size_t i = 0; i < 8; ++i) {
        pack_src[i] = static_cast<index_t>(i / 2 * 65280 + i % 2 * 680);
        pack_dst[i] = static_cast<index_t>(i) * 256;
        shared[i] = static_cast<index_t>(i) * 296;  // ((37,3001).t() of 8-byte elements)
    }
    BOOST_TEST(lv::kernels::sweep_source_rows(8, 8, pack_src.data(), pack_dst.data()));
    BOOST_TEST(!lv::kernels::sweep_source_rows(8, 8, pack_dst.data(), pack_src.data()));
    BOOST_TEST(!lv::kernels::sweep_source_rows(8, 8, pack_src.data(), shared.data()));
    BOOST_TEST(!lv::kernels::sweep_source_rows(8, 8, pack_src.data(), pack_src.data()));
    std::array<index_t, 64> part{};
    lv::byte_loop const g[2] = {{2, 256, 0}, {3, 4096, 0}};  // (FLUX pack's channel and row pair)
    lv::kernels::group_offsets(g, 2, true, part.data(), 5);
    BOOST_TEST(fmt(std::array<index_t, 6>{part[0], part[1], part[2], part[3], part[4], part[5]}) ==
               fmt(std::array<index_t, 6>{0, 256, 4096, 4352, 8192, 0}));
    bool const have = lv::kernels::line_tile_of(4) > 1;
    std::vector<float> in(1);
    float const* x = in.data();
    std::vector<std::uint8_t> bytes(1);
    index_t const C = 16;
    // the plans of FLUX pack and unpack of a (1,C,h,w) latent, fp32
    auto const pack = [&](index_t h, index_t w) {
        return plan_of(lv::from_blob(x, {1, C, h, w}).view(1, C, h / 2, 2, w / 2, 2).permute(0, 2, 4, 1, 3, 5)
                           .reshape(1, h / 2 * (w / 2), C * 4), 4);
    };
    auto const unpack = [&](index_t h, index_t w) {
        return plan_of(lv::from_blob(x, {1, h / 2 * (w / 2), C * 4}).view(1, h / 2, w / 2, C, 2, 2)
                           .permute(0, 3, 1, 4, 2, 5).reshape(1, C, h, w), 4);
    };
    // Under intel, tiles of A only where a step's destination rows lie within close_rows_bytes
    // (lv::tiles_of_a_in_place): the transposes below whose destination rows are 1 KiB and more
    // apart go by steps of B; FLUX pack and (64,1000).t() (destination rows 256 bytes apart) as
    // under zen.
    {
        tuning_scope const intel{lv::tuning::intel};
        BOOST_TEST(!plan_of(lv::from_blob(x, {256, 1024}).t(), 4).tiles_of_a);
        BOOST_TEST(!plan_of(lv::from_blob(bytes.data(), {512, 512}).t(), 1).tiles_of_a);
        BOOST_TEST(!plan_of(lv::from_blob(x, {256, 512, 2}).permute(1, 0, 2), 4).tiles_of_a);
        BOOST_TEST(pack(128, 128).tiles_of_a == have);
        BOOST_TEST(plan_of(lv::from_blob(x, {64, 1000}).t(), 4).tiles_of_a == have);
    }
    {
        tuning_scope const zen{lv::tuning::zen};
        BOOST_TEST(plan_of(lv::from_blob(bytes.data(), {512, 512}).t(), 1).tiles_of_a ==
                   (lv::kernels::line_tile_of(1) > 1));
        BOOST_TEST(plan_of(lv::from_blob(x, {256, 512, 2}).permute(1, 0, 2), 4).tiles_of_a ==
                   (lv::kernels::line_tile_of(8) > 1));
        auto const p = pack(128, 128);
        BOOST_TEST((p.elem == 8 && p.tiles_of_a == have));
        auto const u = unpack(128, 128);
        BOOST_TEST((u.elem == 8 && !u.tiles_of_a));
        BOOST_TEST(plan_of(lv::from_blob(x, {256, 1024}).t(), 4).tiles_of_a == have);
        BOOST_TEST(!plan_of(lv::from_blob(x, {1024, 256}).t(), 4).tiles_of_a);
        BOOST_TEST(!plan_of(lv::from_blob(x, {512, 512}).t(), 4).tiles_of_a);
        BOOST_TEST(pack(96, 170).tiles_of_a == have);
        BOOST_TEST(!unpack(96, 170).tiles_of_a);
        BOOST_TEST(plan_of(lv::from_blob(x, {64, 1000}).t(), 4).tiles_of_a == have);
        BOOST_TEST(!plan_of(lv::from_blob(x, {37, 3001}).t(), 4).tiles_of_a);
    }

    // Values at 1, 2 and 0 threads, in place (under 2 MiB), where the target has the tiles, under
    // the machine's tuning (under intel, (256,1024).t() and (200,512).t() go by steps of B):
    // source rows 4 KiB apart (tiles of A) and the other way round (steps of B), fp32 and
    // 8-byte elements; bytes and 2-byte elements whose source lines go staged four and two
    // steps at a time, then single steps, the last moved back (B = 4090 = 63 * 64 + 58 bytes,
    // 2043 = 63 * 32 + 27 2-byte elements), into destinations at 16 mod 64 (std::vector).
    check_permuted<2>({256, 1024}, {1, 0});
    check_permuted<2>({1024, 256}, {1, 0});
    check_permuted<2, double>({200, 512}, {1, 0});
    // ties by tiles of A (close destination rows): FLUX pack (1,16,96,170), fp32 and bf16 (as
    // uint16), B = 85 (a last step moved back); (64,1000).t() and (64,1003).t()
    check_permuted<6>({1, 16, 48, 2, 85, 2}, {0, 2, 4, 1, 3, 5});
    check_permuted<6, std::uint16_t>({1, 16, 48, 2, 85, 2}, {0, 2, 4, 1, 3, 5});
    check_permuted<2>({64, 1000}, {1, 0});
    check_permuted<2, std::uint16_t>({64, 1003}, {1, 0});
    auto narrowed = [&]<class T>(T, index_t rows, index_t cols, index_t keep) {
        auto buf = make_buffer<T>(rows * cols);
        T const* p = buf.data();
        auto e = lv::from_blob(p, {rows, cols}).narrow(1, 0, keep).t();
        check_eval<T const>(e, std::array<index_t, 2>{keep, rows},
                            [&](index_t f) { return p[f % rows * cols + f / rows]; },
                            "narrow(1,0," + std::to_string(keep) + ") of " + fmt(std::array<index_t, 2>{rows, cols}) + ", .t()");
    };
    narrowed(std::int8_t{}, 300, 4096, 4090);
    narrowed(std::uint16_t{}, 300, 2048, 2043);
}

BOOST_AUTO_TEST_CASE(line_tiles_in_half_steps)
{
    // In place, 4-byte elements go in steps of 8 rows of B by half tiles where a step's 16
    // destination rows fall in at most 4 L1 sets and a tile's 16 source rows in 16
    // (lv::half_steps_in_place): FLUX unpack bf16 of (1,C,H,W) with H * W * 2 bytes a multiple
    // of 4 KiB (rows of one channel pair 2W bytes apart, channels H * W * 2: 2 sets); not its
    // pack (tiles of A), fp32 (8-byte elements) or transposes whose source rows crowd too;
    // destination rows in one set, from source rows in 4 sets or more.
    bool const have = lv::kernels::line_tile_of(4) > 1;
    std::vector<std::uint16_t> in(1);
    std::uint16_t const* x = in.data();
    auto const unpack = [&](index_t C, index_t H, index_t W) {
        return lv::from_blob(x, {1, H / 2, W / 2, C, 2, 2}).permute(0, 3, 1, 4, 2, 5);
    };
    auto const half = plan_of(unpack(16, 128, 128), 2);
    BOOST_TEST((half.elem == 4 && half.nA == 64 && half.nB == 32 && !half.tiles_of_a && half.half_steps == have));
    BOOST_TEST(plan_of(unpack(11, 128, 80), 2).half_steps == have);
    BOOST_TEST(!plan_of(unpack(12, 40, 72), 2).half_steps);  // channels 5760 bytes apart: 16 sets
    BOOST_TEST(!plan_of(unpack(16, 128, 128), 4).half_steps);  // fp32: 8-byte elements
    auto const pack = plan_of(lv::from_blob(x, {1, 16, 64, 2, 64, 2}).permute(0, 2, 4, 1, 3, 5), 2);
    BOOST_TEST((pack.elem == 4 && pack.tiles_of_a == have && !pack.half_steps));
    std::vector<float> f(1);
    BOOST_TEST(!plan_of(lv::from_blob(f.data(), {512, 512}).t(), 4).half_steps);
    BOOST_TEST(!plan_of(lv::from_blob(f.data(), {256, 1024}).t(), 4).half_steps);
    // destination rows in one set: source rows in 4 sets or more
    BOOST_TEST(plan_of(lv::from_blob(f.data(), {1024, 256}).t(), 4).half_steps == have);
    BOOST_TEST(plan_of(lv::from_blob(f.data(), {2048, 128}).t(), 4).half_steps == have);
    BOOST_TEST(!plan_of(lv::from_blob(f.data(), {1024, 512}).t(), 4).half_steps);
    BOOST_TEST(!plan_of(lv::from_blob(f.data(), {1024, 1024}).t(), 4).half_steps);

    // Values at 1, 2 and 0 threads, into destinations at 16 mod 64: B of 32 (whole steps), 22
    // (the last step moved back over rows done) and A of 40 (the last tile moved back).
    check_permuted<6, std::uint16_t>({1, 64, 64, 16, 2, 2}, {0, 3, 1, 4, 2, 5});
    check_permuted<6, std::uint16_t>({1, 64, 40, 11, 2, 2}, {0, 3, 1, 4, 2, 5});
    check_permuted<6, std::uint16_t>({2, 32, 32, 12, 2, 2}, {0, 3, 1, 4, 2, 5});
    // fp32 rows 1024 bytes apart into rows 4096 apart, B of 200 (12 steps and a half one)
    auto buf = make_buffer<float>(1024 * 256);
    float const* p = buf.data();
    auto const cut = lv::from_blob(p, {1024, 256}).slice(1, 0, 200).t();
    BOOST_TEST(plan_of(cut, 4).half_steps == have);
    check_eval<float>(cut, std::array<index_t, 2>{200, 1024}, [&](index_t f) { return p[f % 1024 * 256 + f / 1024]; },
                      "(1024,256).slice(1,0,200).t()");
}

BOOST_AUTO_TEST_CASE(line_tiles_joined_rows)
{
    // In place, 4- and 8-byte elements into rows at different offsets into a line, past
    // joined_rows_min_bytes (4-byte elements: rows of joined_rows_min_row_bytes or more), go in
    // steps of 8 rows with each row's tiles joined into whole lines (kernels::joined_rows_step):
    // FLUX unpack bf16 of (1,16,96,170) (rows of 340 bytes at 0, 20, 40, ... mod 64) and of
    // (1,11,80,144) (288 bytes, 0 and 32), fp32 of (1,16,96,170), (1,16,72,72) and (1,16,64,56)
    // (224 bytes), (100,300).t() and (3000,20).t() of 8-byte elements (rows of 800 and 160
    // bytes); not bf16 (1,16,72,72) (144-byte rows), (1,16,128,128) or fp32 (1,16,64,64) (rows
    // on lines), (1,4,40,170) (53 KiB) or fp32 (1,2,32,36) (9 KiB), (300,96).t() (rows of 768
    // bytes, on lines), nor rows off whole dwords (a destination at 2 mod 4) or all at one offset
    // (a head aligns them); and under the zen4 tuning none.
    std::vector<double> in(1);
    void const* x = in.data();
    auto const unpack = [&]<class T>(T, index_t C, index_t H, index_t W) {
        return lv::from_blob(static_cast<T const*>(x), {1, H / 2, W / 2, C, 2, 2}).permute(0, 3, 1, 4, 2, 5);
    };
    auto const wide = [&](index_t r, index_t c) { return lv::from_blob(static_cast<double const*>(x), {r, c}).t(); };
    std::uint16_t const bf{};
    alignas(64) static char line[64];
    auto const takes = [&](lv::engine_plan const& p, index_t elem) {
        return p.elem == elem && !p.nt && !p.tiles_of_a && lv::kernels::joined_rows_fit(p, p.nA * elem) &&
               lv::kernels::rows_offsets_differ(p, line);
    };
    for (lv::tuning const t : {lv::tuning::zen, lv::tuning::intel, lv::tuning::zen3, lv::tuning::zen4}) {
        tuning_scope const scope{t};
        bool const have = t != lv::tuning::zen4;
        BOOST_TEST(takes(plan_of(unpack(bf, 16, 96, 170), 2), 4) == have);
        BOOST_TEST(takes(plan_of(unpack(bf, 11, 80, 144), 2), 4) == have);
        BOOST_TEST(takes(plan_of(unpack(0.f, 16, 96, 170), 4), 8) == have);
        BOOST_TEST(takes(plan_of(unpack(0.f, 16, 72, 72), 4), 8) == have);
        BOOST_TEST(takes(plan_of(unpack(0.f, 16, 64, 56), 4), 8) == have);
        BOOST_TEST(takes(plan_of(wide(100, 300), 8), 8) == have);
        BOOST_TEST(takes(plan_of(wide(20, 3000), 8), 8) == have);
        BOOST_TEST(!takes(plan_of(unpack(bf, 16, 72, 72), 2), 4));
        BOOST_TEST(!takes(plan_of(unpack(bf, 16, 128, 128), 2), 4));
        BOOST_TEST(!takes(plan_of(unpack(0.f, 16, 64, 64), 4), 8));
        BOOST_TEST(!takes(plan_of(unpack(bf, 4, 40, 170), 2), 4));
        BOOST_TEST(!takes(plan_of(unpack(0.f, 2, 32, 36), 4), 8));
        BOOST_TEST(!takes(plan_of(wide(96, 300), 8), 8));
    }
    BOOST_TEST(!lv::kernels::rows_offsets_differ(plan_of(unpack(bf, 16, 96, 170), 2), line + 2));
    BOOST_TEST(!lv::kernels::rows_offsets_differ(plan_of(wide(96, 300), 8), line + 16));

    // Values at 1, 2 and 0 threads (joined where the target has whole-line tiles and the tuning
    // takes them; under zen4, half steps or tiles stored across lines), into destinations on a
    // line and at 16 mod 64: bf16 A of 85 (the last tile moved back by 11), 72 (by 8), 65 (by
    // 15), B of 32, 22 and 10 (the last step moved back over rows done); fp32 pairs (8-byte
    // elements) into rows of 224, 288 and 680 bytes; 8-byte A of 20, 37 (the last tile moved
    // back by 4 and 3), 100 and 300, B of 3000, 1001, 300 and 400.
    for (lv::tuning const t : {lv::tuning::zen, lv::tuning::zen4}) {
        tuning_scope const scope{t};
        check_permuted<6, std::uint16_t>({1, 48, 85, 16, 2, 2}, {0, 3, 1, 4, 2, 5});
        check_permuted<6, std::uint16_t>({1, 40, 72, 11, 2, 2}, {0, 3, 1, 4, 2, 5});
        check_permuted<6, std::uint16_t>({2, 60, 65, 5, 2, 2}, {0, 3, 1, 4, 2, 5});
        check_permuted<6>({1, 32, 28, 16, 2, 2}, {0, 3, 1, 4, 2, 5});
        check_permuted<6>({1, 36, 36, 16, 2, 2}, {0, 3, 1, 4, 2, 5});
        check_permuted<6>({1, 48, 85, 16, 2, 2}, {0, 3, 1, 4, 2, 5});
        check_permuted<2, double>({20, 3000}, {1, 0});
        check_permuted<2, double>({37, 1001}, {1, 0});
        check_permuted<2, double>({100, 300}, {1, 0});
        check_permuted<2, double>({300, 400}, {1, 0});
    }

#if defined(__AVX512F__)
    // The step itself, 4- and 8-byte elements, over every A from one tile to 100 and 8
    // destination rows at every dword offset into a line, back to back or apart:
    // row k holds its source values and the bytes around the rows keep their fill.
    auto const step = [&]<int E>() {
        constexpr index_t B = 8, D = E / 4, pitch = 1024;  // D: dwords an element
        std::vector<std::uint32_t> src(100 * B * D);
        for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint32_t>(i * 2654435761u + 1);
        std::vector<std::uint32_t> out((B + 1) * pitch);  // (dword offsets from its start)
        for (index_t na = 64 / E; na <= 100; ++na) {
            for (int apart = 0; apart < 2; ++apart) {
                for (index_t m0 = 0; m0 < 16; m0 += 3) {
                    std::fill(out.begin(), out.end(), 0xA5A5A5A5u);
                    char* drow[B];
                    index_t at[B];  // dwords
                    for (index_t k = 0; k < B; ++k) {
                        at[k] = apart ? k * pitch + (m0 + 5 * k) % 16 : m0 + k * na * D;
                        drow[k] = reinterpret_cast<char*>(out.data() + at[k]);
                    }
                    auto const rows = [&](index_t a) {
                        return [&, a](int i) { return reinterpret_cast<char const*>(src.data() + (a + i) * B * D); };
                    };
                    lv::kernels::joined_rows_step<E>(rows, na, drow);
                    index_t bad = 0;
                    for (index_t k = 0; k < B; ++k)
                        for (index_t w = 0; w < na * D; ++w) {  // dword w % D of row k's element w / D
                            auto const want = src[static_cast<std::size_t>((w / D * B + k) * D + w % D)];
                            bad += out[static_cast<std::size_t>(at[k] + w)] != want;
                        }
                    index_t written = 0;
                    for (std::uint32_t const v : out) written += v != 0xA5A5A5A5u;
                    BOOST_TEST_CONTEXT("E " << E << ", na " << na << ", apart " << apart << ", m0 " << m0)
                    {
                        BOOST_TEST(bad == 0);
                        BOOST_TEST(written == B * na * D);
                    }
                }
            }
        }
    };
    step.template operator()<4>();
    step.template operator()<8>();
#endif
}

BOOST_AUTO_TEST_CASE(line_tiles_dense_source_blocks)
{
    // Under the zen4 tuning, streamed whole-line tiles of 4- and 8-byte elements whose units each
    // read one stretch of source take blocks of A of 256 bytes (lv::dense_source_line_blocks),
    // where zen takes 128 and intel its own: FLUX unpack fp32 (8-byte pairs) and bf16 (4-byte
    // pairs) of (16,16,256,256); not the pack (A's source rows in pairs, the pairs 128 or 256 KiB
    // apart), nor 2-byte elements ((4096,2048).t(), whose blocks are two_byte_line_blocks'), nor
    // a target without whole-line tiles.
    std::vector<float> in(1);
    float const* x = in.data();
    void const* const page = reinterpret_cast<void const*>(std::uintptr_t{1} << 12);  // (alignment only)
    auto const unpack = lv::from_blob(x, {16, 128, 128, 16, 2, 2}).permute(0, 3, 1, 4, 2, 5);
    auto const pack = lv::from_blob(x, {16, 16, 128, 2, 128, 2}).permute(0, 2, 4, 1, 3, 5);
    for (lv::tuning const t : {lv::tuning::zen, lv::tuning::intel, lv::tuning::zen3, lv::tuning::zen4}) {
        tuning_scope const scope{t};
        for (index_t const elem : {2, 4}) {  // pairs of bf16 and of fp32
            index_t const E = 2 * elem;
            bool const have = t == lv::tuning::zen4 && lv::kernels::line_tile_of(static_cast<int>(E)) > 1;
            lv::engine_plan const u = streamed_plan_of(unpack, elem, page, 64 << 20);
            BOOST_TEST(lv::dense_source_line_blocks(u) == have, "unpack, " << E << "-byte pairs");
            if (u.nt && lv::line_tiles_fit(u) && t != lv::tuning::intel)
                BOOST_TEST(u.block_a * E == (have ? 256 : 128), "unpack, " << E << "-byte pairs");
            BOOST_TEST(!lv::dense_source_line_blocks(streamed_plan_of(pack, elem, page, 64 << 20)));
        }
        std::vector<std::uint16_t> h(1);
        BOOST_TEST(!lv::dense_source_line_blocks(streamed_plan_of(lv::from_blob(h.data(), {4096, 2048}).t(), 2, page, 16 << 20)));
    }
    // Values under zen4 at 1 and 2 threads, past 12 MiB (streamed on both), into a destination on a
    // line and one element off it: FLUX unpack fp32 (3,16,320,208), A = 104 pairs in blocks of 32
    // (the last 8), and bf16 (6,16,300,224), A = 112 pairs in blocks of 64 (the last 48).
    tuning_scope const zen4{lv::tuning::zen4};
    auto const blocks = [](index_t nA, index_t block, index_t blocks) {
        return [=](lv::engine_plan const& p, index_t shift) {
            return shift != 0 || lv::kernels::line_tile_of(static_cast<int>(p.elem)) == 1 ||
                   (p.nt && p.nA == nA && p.block_a == block && p.blocks_a == blocks);
        };
    };
    check_streamed_permute<6>({3, 160, 104, 16, 2, 2}, {0, 3, 1, 4, 2, 5}, "FLUX unpack fp32 (3,16,320,208)",
                              blocks(104, 32, 4), float{});
    check_streamed_permute<6>({6, 150, 112, 16, 2, 2}, {0, 3, 1, 4, 2, 5}, "FLUX unpack bf16 (6,16,300,224)",
                              blocks(112, 64, 2), std::uint16_t{});
}

BOOST_AUTO_TEST_CASE(line_tiles_of_bytes_plans)
{
    tuning_scope const zen{lv::tuning::zen};  // (the requests and blocks stated here: the zen tuning's)
    // Which ways the cases above take, where the target has the tiles.
    if (lv::kernels::line_tile_of(1) == 1) return;
    std::vector<std::int8_t> in(1);
    std::int8_t const* x = in.data();
    lv::tensor<std::int8_t, 1> out({64});
    lv::engine_plan const sq =
        streamed_plan_of(lv::from_blob(x, {2048, 1990}).t(), 1, out.data(), index_t{2048} * 1990);
    BOOST_TEST((sq.nt && !sq.nt_rows && !sq.staged_rows && lv::line_tiles(sq) && lv::prefetch_next_unit(sq)));
    BOOST_TEST((sq.blocks_b == 7 && sq.nB - 6 * sq.block_b == 454));
    {
        // under zen4 by staged lines (A of 2048 bytes), B in chunks of 1024 and 966
        tuning_scope const zen4{lv::tuning::zen4};
        lv::engine_plan const st =
            streamed_plan_of(lv::from_blob(x, {2048, 1990}).t(), 1, out.data(), index_t{2048} * 1990);
        BOOST_TEST((st.nt && st.staged_rows && st.blocks_b == 2 && st.block_b == 1024));
        lv::engine_plan const lt =
            streamed_plan_of(lv::from_blob(x, {1984, 1990}).t(), 1, out.data(), index_t{1984} * 1990);
        BOOST_TEST((lt.nt && !lt.staged_rows && lv::line_tiles(lt) && lt.blocks_b == 7));
    }
    lv::engine_plan const part =
        streamed_plan_of(lv::from_blob(x, {1000000, 15}).t(), 1, out.data(), index_t{1000000} * 15);
    BOOST_TEST((part.nt && part.nB == 15 && lv::line_tiles(part)));
    lv::engine_plan const rows =
        streamed_plan_of(lv::from_blob(x, {4001, 4003}).t(), 1, out.data(), index_t{4001} * 4003);
    BOOST_TEST((rows.nt && rows.nt_rows));
    lv::engine_plan const rows2 =
        streamed_plan_of(lv::from_blob(x, {2003, 3301}).t(), 2, out.data(), index_t{2003} * 3301 * 2);
    BOOST_TEST((rows2.nt && rows2.nt_rows));
    BOOST_TEST(lv::line_tiles(plan_of(lv::from_blob(x, {300, 200}).t(), 1)));
}

}  // namespace evaltest
