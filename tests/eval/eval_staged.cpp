// Streamed byte transposes over source rows a multiple of 4 KiB apart, their source lines staged
// (engine_plan::staged_rows: kernels::transpose_staged_lines under zen4 with whole-line tiles,
// else transpose_staged_rows through a buffer of destination rows): which plans take them, and
// their values against a plain loop at 1, 2 and 0 threads, over steps, passes and tiles cut
// short, units cut short along A, an outer loop, and source rows off a line.
#include "eval_common.hpp"

namespace evaltest {
namespace {


BOOST_AUTO_TEST_CASE(staged_choice)
{
    // Under the zen tuning, where the target has staged byte tiles (AVX-512 VBMI or AVX2):
    // (4096,4096).t() and (2048,8192).t() (source rows 4096 and 8192 bytes apart, destination
    // rows 4096 and 2048) take it, through the buffered passes in units of 512 x 512;
    // (4160,4096).t() (destination rows 4160 apart), (4160,4032).t(), bf16 (4096,2048).t(), and
    // (4096,256).t() (B under a unit) do not; nor does the intel tuning. Under zen4 with
    // whole-line tiles they go by staged lines (lv::staged_lines), in units of 128 x 1024, asking
    // for the next unit's rows; so do rows that do not alias, from an A of 2048 bytes, B in
    // chunks of 1024 as even as whole lines allow.
    bool const have = lv::kernels::staged_tile_of(1) > 1, lines = lv::kernels::line_tile_of(1) > 1;
    std::vector<std::int8_t> in(1);
    void const* const page = reinterpret_cast<void const*>(std::uintptr_t{1} << 12);  // (alignment only)
    auto const plan = [&](index_t rows, index_t cols, index_t elem) {
        return streamed_plan_of(lv::from_blob(in.data(), {rows, cols}).t(), elem, page, rows * cols * elem);
    };
    for (lv::tuning const t : {lv::tuning::zen, lv::tuning::zen4}) {
        tuning_scope const scope{t};
        bool const by_lines = lines && t == lv::tuning::zen4;
        BOOST_TEST_CONTEXT((t == lv::tuning::zen ? "zen" : "zen4"))
        {
            lv::engine_plan const p = plan(4096, 4096, 1);
            BOOST_TEST(p.staged_rows == have);
            BOOST_TEST(lv::staged_lines(p) == by_lines);
            if (have) {
                BOOST_TEST(p.nt);
                BOOST_TEST(p.block_a == (by_lines ? 128 : 512));
                BOOST_TEST(p.block_b == (by_lines ? 1024 : 512));
                // staged lines ask for the next unit's rows (transpose_staged_lines); the
                // buffered passes overlap their loads with the stores of the pass before instead
                BOOST_TEST(lv::prefetch_next_unit(p) == by_lines);
            }
            BOOST_TEST(plan(2048, 8192, 1).staged_rows == have);
            BOOST_TEST(plan(4160, 4096, 1).staged_rows == by_lines);
            lv::engine_plan const q = plan(4160, 4032, 1);
            BOOST_TEST(q.staged_rows == by_lines);
            if (by_lines) BOOST_TEST((q.block_b == 1024 && q.blocks_b == 4));  // (1024 x 3 and 960)
            BOOST_TEST(plan(2048, 4160, 1).staged_rows == by_lines);
            BOOST_TEST(!plan(1024, 4160, 1).staged_rows);
            BOOST_TEST(!plan(4096, 2048, 2).staged_rows);
            BOOST_TEST(!plan(4096, 256, 1).staged_rows);
        }
    }
    {
        tuning_scope const intel{lv::tuning::intel};
        BOOST_TEST(!plan(4096, 4096, 1).staged_rows);
    }
}

// (batch, rows, pitch) int8 narrowed to columns [from, from + cols), permuted (0, 2, 1), into a
// destination (batch, cols, dpitch) narrowed to its first `rows` columns; the columns past them
// keep their fill. `staged`: whether the plan stages its source lines (engine_plan::staged_rows).
void check_staged(index_t batch, index_t rows, index_t from, index_t cols, index_t pitch, index_t dpitch, bool staged)
{
    auto buf = make_buffer<std::int8_t>(batch * rows * pitch);
    std::int8_t const* const a = buf.data();
    auto const e = lv::from_blob(a, {batch, rows, pitch}).narrow(2, from, cols).permute(0, 2, 1);
    lv::tensor<std::int8_t, 3> out({batch, cols, dpitch});  // (on a line: rows_on_lines)
    auto const to = lv::from_blob(out.data(), {batch, cols, dpitch}).narrow(2, 0, rows);
    BOOST_TEST_CONTEXT("(" << batch << "," << rows << "," << pitch << ").narrow(2," << from << "," << cols
                           << ").permute(0,2,1) into rows " << dpitch << " apart")
    {
        for (unsigned const th : {1u, 2u}) {
            lv::engine_plan p = lv::make_engine_plan(lv::make_plan(lv::physical(lv::fold(e)), lv::physical(lv::fold(to))), 1);
            lv::use_streaming_stores(p, out.data(), batch * cols * rows, th);
            BOOST_TEST(p.staged_rows == staged, "planned for " << th << " threads");
        }
        std::int8_t const fill = sentinel<std::int8_t>();
        for (unsigned const th : {1u, 2u, 0u}) {
            std::fill_n(out.data(), batch * cols * dpitch, fill);
            lv::copy(e, to, lv::threads{th});
            index_t bad = 0, first = -1;
            for (index_t z = 0; z < batch; ++z)
                for (index_t c = 0; c < cols; ++c)
                    for (index_t r = 0; r < dpitch; ++r) {
                        index_t const i = (z * cols + c) * dpitch + r;
                        std::int8_t const want = r < rows ? a[(z * rows + r) * pitch + from + c] : fill;
                        if (out.data()[i] != want && bad++ == 0) first = i;
                    }
            BOOST_TEST(bad == 0, "threads{" << th << "}: " << bad << " bytes differ, first at flat " << first);
        }
    }
}

BOOST_AUTO_TEST_CASE(staged_values)
{
    // (destinations of 12 MiB or more: they stream at 2 threads too)
    // Under zen4 with whole-line tiles each unit goes in steps of a line of its source rows
    // (transpose_staged_lines). Through the buffered passes, under zen a turn's rows go out a
    // line of each at a time, under zen3 each row whole (staged_rows_whole).
    bool const have = lv::kernels::staged_tile_of(1) > 1, lines = lv::kernels::line_tile_of(1) > 1;
    for (lv::tuning const t : {lv::tuning::zen, lv::tuning::zen3, lv::tuning::zen4}) {
        tuning_scope const scope{t};
        bool const by_lines = lines && t == lv::tuning::zen4;
        BOOST_TEST_CONTEXT((t == lv::tuning::zen ? "zen" : t == lv::tuning::zen3 ? "zen3" : "zen4"))
        {
            // Units of 128 x 1024 by staged lines (buffered: 512 x 512, in brackets).
            // A = 4096; B = 3100 in two units of 1024 and a last of 1052: steps of 64 and a last
            // of 28, in tiles of 16 rows, the last of 12 (five units of 512 and a last of 540:
            // passes of 256, 256 and 28, in tiles of 32 rows, the last of 28)
            check_staged(1, 4096, 0, 3100, 4096, 4096, have);
            // source rows 5 bytes into a line; B = 4088, the last unit 2040: each unit a first
            // step of 59, up to the line, and a last of 5 (the last unit's 61) (the last unit
            // 1016: a last pass of 248)
            check_staged(1, 4096, 5, 4088, 4096, 4096, have);
            // an outer loop of 3; source rows 8192 apart, destination rows 2048 apart, A = 1600
            // of them in blocks of 128 and a last of 64 (448 and 256); B = 2817, the last unit
            // 1793 (769): a last step (pass) of one index
            check_staged(3, 1600, 64, 2817, 8192, 2048, have);
            // by staged lines only, rows that do not alias: an outer loop of 2, A = 2112
            // (33 stages), B = 4101 in chunks of 1024 and a last of 5, source rows 4160 apart, all
            // 3 bytes into a line (a first step of 61 each unit); then source rows 4133 apart,
            // each at its own offset into a line
            check_staged(2, 2112, 3, 4101, 4160, 2112, by_lines);
            check_staged(2, 2112, 0, 4000, 4133, 2112, by_lines);
        }
    }
}

}  // namespace
}  // namespace evaltest
