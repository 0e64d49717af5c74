// The plan memo (eval/plan_memo.hpp): copy() keeps, per thread and per pair of chain types, the
// last plan it made. These tests repeat one chain type with other shapes, strides, offsets and
// pointers, with overlapping memory and on several threads, and compare every copy with a plain
// loop: a stale plan would show as wrong values, a missing check as a missing exception.
#include "eval_common.hpp"

#include <atomic>
#include <cstring>
#include <thread>

namespace {

using namespace evaltest;

// FLUX _pack_latents as users write it, dynamic extents.
auto pack_chain(const float* x, index_t B, index_t C, index_t H, index_t W)
{
    return lv::from_blob(x, {B, C, H, W}).view(B, C, H / 2, 2, W / 2, 2).permute(0, 2, 4, 1, 3, 5).reshape(B, (H / 2) * (W / 2), C * 4);
}

void pack(const float* x, float* out, index_t B, index_t C, index_t H, index_t W, unsigned th)
{
    lv::copy(pack_chain(x, B, C, H, W), lv::from_blob(out, {B, (H / 2) * (W / 2), C * 4}), lv::threads{th});
}

std::vector<float> pack_reference(const float* x, index_t B, index_t C, index_t H, index_t W)
{
    std::vector<float> r(static_cast<std::size_t>(B * C * H * W));
    const index_t h = H / 2, w = W / 2;
    for (index_t b = 0; b < B; ++b)
        for (index_t c = 0; c < C; ++c)
            for (index_t i = 0; i < h; ++i)
                for (index_t a = 0; a < 2; ++a)
                    for (index_t j = 0; j < w; ++j)
                        for (index_t e = 0; e < 2; ++e)
                            r[static_cast<std::size_t>(((b * h + i) * w + j) * C * 4 + c * 4 + a * 2 + e)] =
                                x[((b * C + c) * H + 2 * i + a) * W + 2 * j + e];
    return r;
}

struct flux_shape {
    index_t B, C, H, W;
    unsigned th;
};

// Nest-sized (432 B, 1 KiB), engine transposes with offset tables kept (4 KiB, 19 KiB, 64 KiB),
// and 1 MiB on two threads.
const flux_shape flux_shapes[] = {{1, 3, 6, 6, 1},     {1, 16, 8, 8, 1},  {1, 16, 4, 4, 1}, {2, 5, 22, 22, 2},
                                  {1, 16, 32, 32, 0}, {1, 3, 6, 8, 1},  {1, 16, 128, 128, 2}};

// Runs every shape `rounds` times in turn; returns the number of copies that differ from the loop.
int run_flux_rounds(int rounds, std::vector<float> const& x)
{
    int wrong = 0;
    for (int r = 0; r < rounds; ++r)
        for (auto const& s : flux_shapes) {
            const std::size_t n = static_cast<std::size_t>(s.B * s.C * s.H * s.W);
            std::vector<float> out(n + 1, sentinel<float>());
            pack(x.data(), out.data(), s.B, s.C, s.H, s.W, s.th);
            const auto ref = pack_reference(x.data(), s.B, s.C, s.H, s.W);
            wrong += !std::equal(ref.begin(), ref.end(), out.begin()) || out[n] != sentinel<float>();
        }
    return wrong;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(plan_memo)

BOOST_AUTO_TEST_CASE(key_covers_every_runtime_value)
{
    using S = decltype(pack_chain(nullptr, 1, 1, 2, 2));
    // 4 sizes and 4 strides of the leaf, then view's 6 sizes, permute's 6 dims, reshape's 3 sizes
    static_assert(lv::detail::key_len<S>() == 8 + 6 + 6 + 3);
    using P = decltype(lv::from_blob(static_cast<const float*>(nullptr), {2, 3}).permute(lv::c<1>, lv::c<0>));
    static_assert(lv::detail::key_len<P>() == 4, "static arguments are in the type, not the key");
    static_assert(lv::detail::key_len<decltype(lv::from_blob<2, 3>(static_cast<float*>(nullptr)))>() == 0);
    float x[4] = {};
    index_t key[lv::detail::key_len<S>()];
    const index_t* end = lv::detail::write_key(pack_chain(x, 1, 1, 2, 2), key);
    BOOST_TEST(end - key == lv::detail::key_len<S>());
    const std::vector<index_t> want{1, 1, 2, 2, 4, 4, 2, 1, 1, 1, 1, 2, 1, 2, 0, 2, 4, 1, 3, 5, 1, 1, 4};
    BOOST_TEST(std::vector<index_t>(key, key + lv::detail::key_len<S>()) == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(shapes_alternate_in_one_chain_type)
{
    const auto x = make_buffer<float>(16 * 128 * 128 * 2);
    BOOST_TEST(run_flux_rounds(3, x) == 0);
}

BOOST_AUTO_TEST_CASE(same_shapes_other_pointers)
{
    // The key leaves the pointers out: a hit must run at the new addresses, misaligned included.
    const auto x = make_buffer<float>(2 * 16 * 32 * 32 + 8);
    for (index_t so : {0, 1, 3, 0})
        for (index_t dof : {0, 3, 1}) {
            std::vector<float> out(static_cast<std::size_t>(2 * 16 * 32 * 32 + 8), sentinel<float>());
            pack(x.data() + so, out.data() + dof, 2, 16, 32, 32, 1);
            const auto ref = pack_reference(x.data() + so, 2, 16, 32, 32);
            BOOST_TEST_CONTEXT("src +" << so << ", dst +" << dof)
            {
                BOOST_TEST(std::equal(ref.begin(), ref.end(), out.begin() + dof));
                BOOST_TEST(std::count(out.begin(), out.begin() + dof, sentinel<float>()) == dof);
            }
        }
}

BOOST_AUTO_TEST_CASE(nest_setups_kept_and_replaced)
{
    // Each shape misses once (and stores its setup), then hits at other addresses. Nest-sized
    // shapes keep the nest's setup, the others the engine's: a hit after a shape that took the
    // engine must not run the nest an earlier shape kept, nor a nest hit the engine's plan.
    const auto x = make_buffer<float>(16 * 32 * 32 + 8);
    const flux_shape shapes[] = {{1, 3, 6, 6, 1},   {1, 16, 32, 32, 1}, {1, 3, 6, 6, 1},
                                 {1, 16, 4, 4, 1},  {1, 7, 14, 14, 1},  {1, 3, 6, 8, 1}};
    for (auto const& s : shapes)
        for (index_t so : {0, 3})
            for (index_t dof : {0, 1}) {
                const std::size_t n = static_cast<std::size_t>(s.B * s.C * s.H * s.W);
                std::vector<float> out(n + 2, sentinel<float>());
                pack(x.data() + so, out.data() + dof, s.B, s.C, s.H, s.W, s.th);
                const auto ref = pack_reference(x.data() + so, s.B, s.C, s.H, s.W);
                BOOST_TEST_CONTEXT("(" << s.B << "," << s.C << "," << s.H << "," << s.W << "), src +" << so << ", dst +" << dof)
                {
                    BOOST_TEST(std::equal(ref.begin(), ref.end(), out.begin() + dof));
                    BOOST_TEST(std::count(out.begin(), out.end(), sentinel<float>()) == 2);
                }
            }
}

BOOST_AUTO_TEST_CASE(small_units_keep_the_nest)
{
    // FLUX pack and unpack (1,C,H,H) fp32 past nest_bytes, up to nest_untiled_bytes, whose
    // transpose per outer iteration (2C x H/2 elements of 8 bytes, 8CH bytes) holds at most
    // nest_unit_bytes (1 KiB) where the target's tiles of 8 bytes are register tiles of 4 x 4 or
    // 2 x 2 (AVX2, SSE2: small_units_take_nest), or is narrower than 8 x 8 with AVX-512's
    // whole-line tiles, 4 x 4 elsewhere, on either side (narrow_units_take_nest), or is ragged
    // (below), run and keep the nest; other shapes, the engine's setup. The memo's entry tells which ran; the values are
    // checked against the loop (pack) and the round trip (unpacking the packed values gives the
    // input back).
    const bool register_tiles = lv::kernels::tile_of(8) <= 4 && lv::kernels::line_tile_of(8) == 1;
    const index_t side = tile_side_of(8);
    const auto x = make_buffer<float>(16 * 16 * 16);
    // and with whole-line tiles, under the intel tuning, units of 1 KiB or less with neither side
    // a multiple of 8 whose nest moves rows two by two (ragged_units_take_nest): unpack's (its
    // rows of pairs read side by side), and pack's past 256 pairs (pair_loop_inside moves its
    // loop along W around its rows); (5,22) (10 x 11) and (6,20) (12 x 10), not (4,24) (8 x 12)
    const bool ragged = lv::kernels::line_tile_of(8) == 8 && lv::current_tuning() == lv::tuning::intel;
    const std::pair<index_t, index_t> shapes[] = {{7, 14}, {16, 8}, {5, 22}, {2, 32}, {3, 6}, {16, 16},
                                                  {16, 4}, {16, 12}, {6, 20}, {4, 24}, {7, 14}};
    for (auto const& [C, H] : shapes) {
        const index_t hw = (H / 2) * (H / 2), bytes = C * H * H * 4;
        const std::size_t n = static_cast<std::size_t>(C * H * H);
        const bool nest = bytes <= lv::nest_bytes ||
                          (bytes <= lv::nest_untiled_bytes &&
                           ((register_tiles && 8 * C * H <= 1024) || std::min(2 * C, H / 2) < side));
        const bool ragged_nest = ragged && bytes <= lv::nest_untiled_bytes && 8 * C * H <= 1024 && 2 * C % 8 != 0 &&
                                 H / 2 % 8 != 0;
        const bool pack_nest = nest || (ragged_nest && C * H * H / 2 > 256), unpack_nest = nest || ragged_nest;
        BOOST_TEST_CONTEXT("(1," << C << "," << H << "," << H << "), nest: pack's " << pack_nest << ", unpack's " << unpack_nest)
        {
            std::vector<float> packed(n + 1, sentinel<float>()), back(n + 1, sentinel<float>());
            auto pe = pack_chain(x.data(), 1, C, H, H);
            auto pto = lv::from_blob(packed.data(), {1, hw, C * 4});
            lv::copy(pe, pto, lv::threads{1});
            using PS = std::remove_cvref_t<decltype(lv::detail::chain_of(pe))>;
            using PD = std::remove_cvref_t<decltype(lv::detail::chain_of(pto))>;
            BOOST_TEST((lv::detail::memo_of<PS, PD>().engine.nest.run != nullptr) == pack_nest);
            const auto ref = pack_reference(x.data(), 1, C, H, H);
            BOOST_TEST(std::equal(ref.begin(), ref.end(), packed.begin()));
            BOOST_TEST(packed[n] == sentinel<float>());

            const float* const pk = packed.data();
            auto ue = lv::from_blob(pk, {1, hw, C * 4}).view(1, H / 2, H / 2, C, 2, 2).permute(0, 3, 1, 4, 2, 5).reshape(1, C, H, H);
            auto uto = lv::from_blob(back.data(), {1, C, H, H});
            lv::copy(ue, uto, lv::threads{1});
            using US = std::remove_cvref_t<decltype(lv::detail::chain_of(ue))>;
            using UD = std::remove_cvref_t<decltype(lv::detail::chain_of(uto))>;
            BOOST_TEST((lv::detail::memo_of<US, UD>().engine.nest.run != nullptr) == unpack_nest);
            BOOST_TEST(std::equal(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n), back.begin()));
            BOOST_TEST(back[n] == sentinel<float>());
        }
    }
}

BOOST_AUTO_TEST_CASE(strided_plans_keep_the_nest)
{
    // Gathers x[:, o::K] of fp32 (rows, n K) and the scatters back, strided plans, run and keep
    // the nest up to nest_untiled_bytes moved (strided_takes_nest), the engine's setup past it
    // (below nest_bytes, which eval_nest raises, every plan takes the nest). One chain type each
    // way, sizes across the bound in turn, so that the memo's entry switches between the two;
    // every element outside the scatter's view keeps its sentinel.
    const index_t n = 64;
    for (int round = 0; round < 2; ++round)
        for (index_t rows : {8, 63, 64, 65, 256, 3})
            for (index_t K : {2, 3}) {
                const index_t o = K - 1, W = n * K, bytes = rows * n * 4;
                const bool nest = bytes <= std::max(lv::nest_bytes, lv::nest_untiled_bytes);
                const auto x = make_buffer<float>(rows * W);
                std::vector<float> y(static_cast<std::size_t>(rows * n + 1), sentinel<float>());
                BOOST_TEST_CONTEXT("(" << rows << "," << W << ")[:, " << o << "::" << K << "], " << bytes
                                       << " bytes, nest " << nest)
                {
                    auto ge = lv::from_blob(x.data(), {rows, W}).slice(1, o, W, K);
                    auto gto = lv::from_blob(y.data(), {rows, n});
                    lv::copy(ge, gto, lv::threads{1});
                    using GS = std::remove_cvref_t<decltype(lv::detail::chain_of(ge))>;
                    using GD = std::remove_cvref_t<decltype(lv::detail::chain_of(gto))>;
                    BOOST_TEST((lv::detail::memo_of<GS, GD>().engine.nest.run != nullptr) == nest);
                    index_t bad = 0;
                    for (index_t r = 0; r < rows; ++r)
                        for (index_t j = 0; j < n; ++j) bad += !(y[r * n + j] == x[r * W + o + j * K]);
                    BOOST_TEST(bad == 0);
                    BOOST_TEST(y[rows * n] == sentinel<float>());

                    std::vector<float> z(static_cast<std::size_t>(rows * W + 1), sentinel<float>());
                    const float* const yc = y.data();
                    auto se = lv::from_blob(yc, {rows, n});
                    auto sto = lv::from_blob(z.data(), {rows, W}).slice(1, o, W, K);
                    lv::copy(se, sto, lv::threads{1});
                    using SS = std::remove_cvref_t<decltype(lv::detail::chain_of(se))>;
                    using SD = std::remove_cvref_t<decltype(lv::detail::chain_of(sto))>;
                    BOOST_TEST((lv::detail::memo_of<SS, SD>().engine.nest.run != nullptr) == nest);
                    index_t wrong = 0;
                    for (index_t k = 0; k <= rows * W; ++k) {
                        const bool in_view = k < rows * W && k % W >= o && (k % W - o) % K == 0;
                        wrong += !(z[k] == (in_view ? x[k] : sentinel<float>()));
                    }
                    BOOST_TEST(wrong == 0);
                }
            }
}

BOOST_AUTO_TEST_CASE(gather_table_lists_the_nests_sources)
{
    // FLUX pack (1,3,6,6) fp32: a nest of (3,3,3,2) 8-byte elements whose destination takes them
    // back to back; the table is each one's source offset in that order.
    std::vector<float> x(108);
    const auto plan = lv::contiguous_plan(lv::physical(lv::fold(pack_chain(x.data(), 1, 3, 6, 6))));
    lv::detail::nest_setup ns;
    lv::make_nest(plan, 4, ns);
    index_t off[lv::detail::engine_setup::max_offsets];
    BOOST_TEST_REQUIRE(lv::gather_table(ns, off) == 54);
    BOOST_TEST(ns.elem == 8);
    // (source (3,6,6) of float pairs: channel 144 bytes, row pair 48, column pair 8, row 24)
    index_t i = 0, bad = 0;
    for (index_t h = 0; h < 3; ++h)
        for (index_t w = 0; w < 3; ++w)
            for (index_t c = 0; c < 3; ++c)
                for (index_t r = 0; r < 2; ++r) bad += off[i++] != c * 144 + h * 48 + w * 8 + r * 24;
    BOOST_TEST(bad == 0);
    // A nest whose rows are longer than 4 (row kernels move those) keeps no table.
    const auto longer = lv::contiguous_plan(lv::physical(lv::fold(lv::from_blob(x.data(), {5, 8, 2}).permute(1, 2, 0))));
    lv::make_nest(longer, 4, ns);
    BOOST_TEST(lv::gather_table(ns, off) == 0);
}

// Whether n bytes at p and q differ. Out of line: with the comparisons inlined, clang 14 at -O2
// with -mavx512f crashed selecting the vectorised compare it made of transposes_through_the_memo's
// checks of int8 elements.
[[gnu::noinline]] bool bytes_differ(const void* p, const void* q, std::size_t n)
{
    return std::memcmp(p, q, n) != 0;
}

// copy(from_blob(x, {a, b, k}, {(b + pad) * k, k, 1}).permute(1, 0, 2), into (b, a, k)) of T: a
// transpose of elements of k T's, rows b + pad apart; then twice more at other offsets in both
// buffers (memo hits), each checked against the loop. Returns the memo's entry after the first
// copy: whether it kept a nest, and its table's length (0: none), which the hits must keep.
template <class T>
std::pair<bool, index_t> transposes_through_the_memo(index_t a, index_t b, index_t k, index_t pad)
{
    const index_t row = (b + pad) * k;
    const auto x = make_buffer<T>((a + 1) * row + 4 * k);
    bool nest = false;
    index_t gathered = 0;
    auto run = [&](index_t so, index_t dof) {
        std::vector<T> out(static_cast<std::size_t>(a * b * k + dof + 1), sentinel<T>());
        auto e = lv::from_blob(x.data() + so, {a, b, k}, {row, k, 1}).permute(1, 0, 2);
        auto to = lv::from_blob(out.data() + dof, {b, a, k});
        lv::copy(e, to, lv::threads{1});
        using S = std::remove_cvref_t<decltype(lv::detail::chain_of(e))>;
        using D = std::remove_cvref_t<decltype(lv::detail::chain_of(to))>;
        auto const& m = lv::detail::memo_of<S, D>();
        nest = m.engine.nest.run != nullptr;
        gathered = m.engine.gather ? m.engine.gathered : 0;
        const std::size_t elem = static_cast<std::size_t>(k) * sizeof(T);
        const T mark = sentinel<T>();
        index_t bad = 0;
        for (index_t i = 0; i < b; ++i)
            for (index_t j = 0; j < a; ++j)
                bad += bytes_differ(&out[static_cast<std::size_t>(dof + (i * a + j) * k)],
                                    &x[static_cast<std::size_t>(so + j * row + i * k)], elem);
        for (index_t q = 0; q < dof; ++q) bad += bytes_differ(&out[static_cast<std::size_t>(q)], &mark, sizeof(T));
        bad += bytes_differ(&out[static_cast<std::size_t>(dof + a * b * k)], &mark, sizeof(T));
        return bad;
    };
    index_t bad = run(0, 0);
    const std::pair<bool, index_t> kept{nest, gathered};
    bad += run(3, 1) + run(1, 2);
    BOOST_TEST(bad == 0);
    BOOST_TEST((std::pair<bool, index_t>{nest, gathered} == kept), "the hits kept the entry");
    return kept;
}

BOOST_AUTO_TEST_CASE(small_nests_keep_a_table)
{
    // Transposes whose nest's innermost loop is a's (2 to 4 long) keep a table of its a * b
    // elements where the nest ran, elements of 2, 4, 8 or 16 bytes and 256 of them at most: fp32
    // with k = 1, 2, 4, fp64 with k = 1, 2, 16-bit with k = 1, 2, bytes with k = 4. Bytes alone,
    // rows of 5 and 257 or more elements keep none. The hits run the table and must give the loop's values.
    const index_t most = lv::detail::engine_setup::max_offsets;
    for (index_t a : {1, 2, 3, 4})
        for (index_t b : {2, 5, 64, 65})
            BOOST_TEST_CONTEXT("(" << a << "," << b << ")")
            {
                auto expect_table = [&](std::pair<bool, index_t> got, bool wide_enough) {
                    BOOST_TEST(got.second == (got.first && wide_enough && a > 1 && a * b <= most ? a * b : 0));
                };
                for (index_t k : {1, 2, 4}) expect_table(transposes_through_the_memo<float>(a, b, k, 1), true);
                for (index_t k : {1, 2}) expect_table(transposes_through_the_memo<double>(a, b, k, 3), true);
                for (index_t k : {1, 2}) expect_table(transposes_through_the_memo<std::uint16_t>(a, b, k, 1), true);
                expect_table(transposes_through_the_memo<std::int8_t>(a, b, 4, 0), true);
                expect_table(transposes_through_the_memo<std::int8_t>(a, b, 1, 1), false);
            }
    // rows of 5, the destination's (row kernels move them), and rows of 8 in source order
    // (longer_loop_inside: the destination takes them 5 apart)
    BOOST_TEST(transposes_through_the_memo<float>(5, 3, 1, 1).second == 0);
    BOOST_TEST(transposes_through_the_memo<float>(5, 8, 1, 1).second == 0);
}

BOOST_AUTO_TEST_CASE(offsets_and_strides_change_the_key)
{
    // Same sizes every time: only narrow's start (the plan's offset) or the leaf's strides differ.
    const index_t R = 37, C = 45, len = 40;
    const auto x = make_buffer<float>(R * (C + 3));
    auto run = [&](index_t start, index_t row) {
        std::vector<float> out(static_cast<std::size_t>(len * R), sentinel<float>());
        lv::copy(lv::from_blob(x.data(), {R, C}, {row, 1}).narrow(1, start, len).permute(1, 0), lv::from_blob(out.data(), {len, R}));
        index_t bad = 0;
        for (index_t j = 0; j < len; ++j)
            for (index_t i = 0; i < R; ++i) bad += out[static_cast<std::size_t>(j * R + i)] != x[static_cast<std::size_t>(i * row + start + j)];
        return bad;
    };
    for (index_t start : {0, 1, 5, 0, 5, 1})
        for (index_t row : {C, C + 3, C})
            BOOST_TEST(run(start, row) == 0, "narrow start " << start << ", row stride " << row);
}

BOOST_AUTO_TEST_CASE(overlap_is_caught_on_a_hit)
{
    // The first copy stores the plan of a square transpose between two buffers; the second has the
    // same key with source and destination in one buffer, and must be staged, not run in place.
    const index_t n = 40;
    auto a = make_buffer<float>(n * n);
    std::vector<float> b(static_cast<std::size_t>(n * n));
    auto transpose = [&](const float* s, float* d) { lv::copy(lv::from_blob(s, {n, n}).permute(1, 0), lv::from_blob(d, {n, n})); };
    transpose(a.data(), b.data());
    const auto before = a;
    transpose(a.data(), a.data());
    index_t bad = 0;
    for (index_t i = 0; i < n; ++i)
        for (index_t j = 0; j < n; ++j) {
            bad += b[static_cast<std::size_t>(i * n + j)] != before[static_cast<std::size_t>(j * n + i)];
            bad += a[static_cast<std::size_t>(i * n + j)] != before[static_cast<std::size_t>(j * n + i)];
        }
    BOOST_TEST(bad == 0);
}

BOOST_AUTO_TEST_CASE(errors_still_raised_after_a_hit)
{
    const auto x = make_buffer<float>(64);
    std::vector<float> out(128);
    auto copy_into = [&](index_t rows, index_t row_stride) {
        // A reshape of a destination with gaps is not a view: copy() must refuse it.
        lv::copy(lv::from_blob(x.data(), {8, 8}).permute(1, 0).reshape(64), lv::from_blob(out.data(), {8, rows}, {row_stride, 1}).reshape(8 * rows));
    };
    copy_into(8, 8);
    copy_into(8, 8);
    BOOST_CHECK_THROW(copy_into(8, 9), lv::shape_error);
    BOOST_CHECK_THROW(copy_into(4, 4), lv::shape_error);  // a view of 32 elements: the sizes differ
    copy_into(8, 8);
    index_t bad = 0;
    for (index_t i = 0; i < 8; ++i)
        for (index_t j = 0; j < 8; ++j) bad += out[static_cast<std::size_t>(i * 8 + j)] != x[static_cast<std::size_t>(j * 8 + i)];
    BOOST_TEST(bad == 0);
}

BOOST_AUTO_TEST_CASE(each_thread_keeps_its_own)
{
    // Two threads alternate shapes of one chain type out of phase: a shared entry would hand one
    // the other's plan.
    const auto x = make_buffer<float>(16 * 128 * 128 * 2);
    std::atomic<int> wrong{0};
    std::thread t1([&] { wrong += run_flux_rounds(4, x); });
    std::thread t2([&] {
        for (int r = 0; r < 4; ++r) {
            std::vector<float> out(16 * 16 * 16);
            pack(x.data(), out.data(), 1, 16, 16, 16, 1);
            const auto ref = pack_reference(x.data(), 1, 16, 16, 16);
            wrong += !std::equal(ref.begin(), ref.end(), out.begin());
            wrong += run_flux_rounds(1, x);
        }
    });
    t1.join();
    t2.join();
    BOOST_TEST(wrong.load() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
