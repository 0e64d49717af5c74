// Evaluation over ranks 1..8 with odd sizes (1, 3, 7, primes), random permutations, slices with
// steps, stride-0 dims and zero-size dims; the reference is a plain loop over the sizes/strides
// given to from_blob. Also: a permute and a reshape on top of the strided base.
#include "eval_common.hpp"

namespace evaltest {
namespace {

constexpr index_t odd_sizes[] = {1, 3, 7, 2, 5, 11, 13, 1, 3};

template <std::size_t R>
strided<R> random_strided(std::mt19937_64& g, index_t max_numel)
{
    auto pick = [&](index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(g); };
    strided<R> L;
    for (;;) {
        for (auto& s : L.sizes) s = odd_sizes[pick(0, 8)];
        if (numel_of(L.sizes) <= max_numel) break;
    }
    // storage: a bigger row-major block with per-dim steps, dims stored in a random order
    std::array<index_t, R> order{};
    std::iota(order.begin(), order.end(), index_t{0});
    std::shuffle(order.begin(), order.end(), g);
    index_t acc = 1;
    for (std::size_t k = R; k-- > 0;) {
        auto d = static_cast<std::size_t>(order[k]);
        index_t const kind = pick(0, 9);
        if (kind == 0 && L.sizes[d] > 1) {
            L.strides[d] = 0;  // broadcast
            continue;
        }
        index_t const step = kind <= 2 ? 2 : 1;
        L.strides[d] = acc * step;
        acc *= L.sizes[d] * step + (kind == 3 ? 1 : 0);
    }
    L.offset = pick(0, 3);
    return L;
}

template <std::size_t R>
void rank_case(std::uint64_t seed, index_t max_numel, int iterations)
{
    std::mt19937_64 g(seed);
    for (int it = 0; it < iterations; ++it) {
        auto L = random_strided<R>(g, max_numel);
        if (it == 0) L.sizes[0] = 0;  // one zero-size case per rank
        auto buf = make_buffer<float>(L.span());
        auto e = blob(buf.data(), L);
        auto ref = reference(buf, L);
        check_eval<float>(e, L.sizes, [&](index_t i) { return ref[static_cast<std::size_t>(i)]; },
                          "rank " + std::to_string(R) + " " + L.str());
        if constexpr (R >= 2) {
            // permute (reverse the dims) on top: reference through the reversed index
            auto pe = [&]<std::size_t... I>(std::index_sequence<I...>) {
                return e.permute(static_cast<index_t>(R - 1 - I)...);
            }(std::make_index_sequence<R>{});
            std::array<index_t, R> rs{};
            for (std::size_t k = 0; k < R; ++k) rs[k] = L.sizes[R - 1 - k];
            std::vector<float> pref;
            for_each_index(rs, [&](std::array<index_t, R> const& idx, index_t) {
                std::array<index_t, R> src{};
                for (std::size_t k = 0; k < R; ++k) src[R - 1 - k] = idx[k];
                pref.push_back(buf[static_cast<std::size_t>(L.at(src))]);
            });
            check_eval<float>(pe, rs, [&](index_t i) { return pref[static_cast<std::size_t>(i)]; },
                              "reversed permute of rank " + std::to_string(R) + " " + L.str());
            // reshape to rank 2 keeps the row-major order of e
            index_t const n = numel_of(L.sizes);
            index_t const rows = L.sizes[0];
            if (n > 0) {
                auto re = e.reshape(rows, -1);
                check_eval<float>(re, std::array<index_t, 2>{rows, n / rows},
                                  [&](index_t i) { return ref[static_cast<std::size_t>(i)]; },
                                  "reshape(rows, -1) of rank " + std::to_string(R) + " " + L.str());
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(nest_puts_the_longer_loop_inside)
{
    // The nest of small copies runs the longer of its two innermost loops inside where the
    // innermost is over 4 long (not unrolled) and has no row kernel of its own; the values go
    // through run_nest whatever this build's thresholds, in 1-, 2-, 4- and 8-byte elements.
    // e: a view of the elements at `base`; expected(f): its element at row-major index f
    auto const check = [](auto const& e, auto const* base, index_t inner, auto const& expected,
                          std::string const& what) {
        using T = std::remove_cvref_t<decltype(*base)>;
        auto const p = lv::contiguous_plan(lv::physical(lv::fold(e)));
        lv::detail::nest_setup ns;
        lv::make_nest(p, index_t{sizeof(T)}, ns);
        BOOST_TEST_CONTEXT(what << ", " << sizeof(T) << "-byte elements")
        {
            BOOST_TEST(ns.n >= 1);
            BOOST_TEST(ns.l[ns.n - 1].n == inner);
            std::vector<T> out(static_cast<std::size_t>(p.numel), T{});
            lv::run_nest(p, reinterpret_cast<char const*>(base), reinterpret_cast<char*>(out.data()),
                         index_t{sizeof(T)});
            index_t bad = 0;
            for (index_t f = 0; f < p.numel; ++f) bad += out[static_cast<std::size_t>(f)] != expected(f);
            BOOST_TEST(bad == 0);
        }
    };
    // x.permute(perm) of a contiguous (d0,d1,d2) of T
    auto const permuted = [&]<class T>(T, std::array<index_t, 3> in, std::array<int, 3> perm, index_t inner) {
        index_t const n = in[0] * in[1] * in[2];
        std::vector<T> src(static_cast<std::size_t>(n));
        for (index_t i = 0; i < n; ++i) src[static_cast<std::size_t>(i)] = static_cast<T>(i * 7 + 1);
        std::array<index_t, 3> const od{in[perm[0]], in[perm[1]], in[perm[2]]};
        auto const expected = [&](index_t f) {
            std::array<index_t, 3> idx{};
            idx[perm[2]] = f % od[2];
            idx[perm[1]] = f / od[2] % od[1];
            idx[perm[0]] = f / od[2] / od[1];
            return src[static_cast<std::size_t>((idx[0] * in[1] + idx[1]) * in[2] + idx[2])];
        };
        check(lv::from_blob(src.data(), in).permute(perm[0], perm[1], perm[2]), src.data(), inner, expected,
              "(" + std::to_string(in[0]) + "," + std::to_string(in[1]) + "," + std::to_string(in[2]) + ").permute(" +
                  std::to_string(perm[0]) + "," + std::to_string(perm[1]) + "," + std::to_string(perm[2]) + ")");
    };
    // (5,8,8).permute(1,2,0): 64 destination rows of 5 (each reads 5 elements 64 apart) -> 5 rows
    // of 64 (each reads a source row, writes every 5th element)
    permuted(float{}, {5, 8, 8}, {1, 2, 0}, 64);
    permuted(std::uint8_t{}, {5, 16, 16}, {1, 2, 0}, 256);
    permuted(std::uint16_t{}, {6, 9, 11}, {2, 1, 0}, 9);
    permuted(double{}, {5, 31, 1}, {1, 0, 2}, 31);
    // but not rows of 8-byte elements that move two by two (pairs_come_first): (7,31).t() fp64
    permuted(double{}, {7, 31, 1}, {1, 0, 2}, lv::kernels::pairs_rows() ? 7 : 31);
    // the innermost loop stays: as long as the other (8 and 8), unrolled (4, FLUX's pairs: 2),
    // or the longer already ((7,13,5).permute(2,0,1): (5,91), rows of 91)
    permuted(float{}, {8, 8, 1}, {1, 0, 2}, 8);
    permuted(float{}, {4, 8, 8}, {1, 2, 0}, 4);
    permuted(float{}, {7, 13, 5}, {2, 0, 1}, 91);
    // rows that read every 2nd element of the source stay rows where the target gathers them
    // (gather_row): (64,6,2)[:, :5, 0], 64 rows of 5
    std::vector<float> pairs(64 * 6 * 2);
    for (std::size_t i = 0; i < pairs.size(); ++i) pairs[i] = static_cast<float>(i);
    check(lv::from_blob(pairs.data(), {64, 6, 2}).narrow(1, 0, 5).select(2, 0), pairs.data(),
          lv::kernels::gathers(4) ? 5 : 64, [&](index_t f) { return pairs[static_cast<std::size_t>(f / 5 * 12 + f % 5 * 2)]; },
          "(64,6,2)[:, :5, 0]");
}

BOOST_AUTO_TEST_CASE(rank_1) { rank_case<1>(301, 5000, 8); }
BOOST_AUTO_TEST_CASE(rank_2) { rank_case<2>(302, 5000, 8); }
BOOST_AUTO_TEST_CASE(rank_3) { rank_case<3>(303, 5000, 8); }
BOOST_AUTO_TEST_CASE(rank_4) { rank_case<4>(304, 5000, 8); }
BOOST_AUTO_TEST_CASE(rank_5) { rank_case<5>(305, 5000, 6); }
BOOST_AUTO_TEST_CASE(rank_6) { rank_case<6>(306, 5000, 6); }
BOOST_AUTO_TEST_CASE(rank_7) { rank_case<7>(307, 5000, 5); }
BOOST_AUTO_TEST_CASE(rank_8) { rank_case<8>(308, 5000, 5); }

BOOST_AUTO_TEST_CASE(nest_moves_rows_two_by_two)
{
    // Rows of 8-byte elements whose loop around them reads the next element of the source move
    // two at a time (kernels::move_row_pair, pairs_rows_of), kept rather than turned where they
    // are 6 or more or the other loop at most twice as long (pairs_come_first); rows of 4 or
    // fewer get such a loop moved around them in nests of over 256 elements (pair_loop_inside).
#if defined(__SSE2__)
    // The kernel alone: rows of 1 to 13 (AVX2's steps of four, their tail moved back, SSE2's of
    // two, a lone element), from a source 4 bytes off 8 (FLUX's fp32 pairs), each row into a
    // destination with sentinels on both sides.
    for (index_t n = 1; n <= 13; ++n)
        for (index_t const ss : {16, 24, 104}) {
            std::vector<std::uint32_t> src(static_cast<std::size_t>(n * ss / 4 + 8));
            for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint32_t>(i * 2654435761u + 1);
            char const* const s = reinterpret_cast<char const*>(src.data()) + 4;
            std::vector<std::uint64_t> d0(static_cast<std::size_t>(n + 2), 0xfefe), d1(static_cast<std::size_t>(n + 2), 0xfefe);
            lv::kernels::move_row_pair(s, reinterpret_cast<char*>(d0.data() + 1), reinterpret_cast<char*>(d1.data() + 1),
                                       lv::byte_loop{n, ss, 8});
            index_t bad = 0;
            for (index_t i = 0; i < n; ++i) {
                std::uint64_t a, b;
                std::memcpy(&a, s + i * ss, 8);
                std::memcpy(&b, s + i * ss + 8, 8);
                bad += d0[static_cast<std::size_t>(i + 1)] != a;
                bad += d1[static_cast<std::size_t>(i + 1)] != b;
            }
            BOOST_TEST(bad == 0, "rows of " << n << ", " << ss << " bytes apart: " << bad << " wrong");
            BOOST_TEST((d0.front() == 0xfefe && d0.back() == 0xfefe && d1.front() == 0xfefe && d1.back() == 0xfefe));
        }
#endif
    // The nest: fp64 (a,b,c).permute(0,2,1), rows of b, c rows (odd c: a last row alone), from a
    // source 8 bytes into its buffer; which kernel runs, and the values.
    using lv::kernels::move_kind;
    auto const paired = [](index_t rows) {
        switch (rows) {
            case 2: return &lv::kernels::nest_loops<8, move_kind::fixed, 2, true>;
            case 3: return &lv::kernels::nest_loops<8, move_kind::fixed, 3, true>;
            case 4: return &lv::kernels::nest_loops<8, move_kind::fixed, 4, true>;
            default: return &lv::kernels::nest_loops<8, move_kind::fixed, 0, true>;
        }
    };
    std::mt19937_64 g(311);
    std::array<index_t, 3> const shapes[] = {{3, 5, 7}, {2, 7, 2}, {4, 6, 50}, {2, 5, 30}, {1, 9, 3},  {2, 13, 13},
                                             {3, 4, 9}, {5, 3, 1}, {1, 5, 10}, {1, 5, 11}, {6, 2, 40}, {1, 3, 1}};
    for (auto const& [a, b, c] : shapes) {
        std::vector<double> src(static_cast<std::size_t>(a * b * c + 1));
        for (auto& v : src) v = std::uniform_real_distribution<double>(-1, 1)(g);
        double const* const p = src.data() + 1;
        auto const e = lv::from_blob(p, {a, b, c}).permute(0, 2, 1);
        auto const plan = lv::contiguous_plan(lv::physical(lv::fold(e)));
        lv::detail::nest_setup ns;
        lv::make_nest(plan, 8, ns);
        bool const pairs = lv::kernels::pairs_rows() && b >= 2 && c >= 2 && (b != 5 || c <= 2 * b);
        std::vector<double> out(static_cast<std::size_t>(a * b * c + 2), -7.0);
        lv::run_nest(plan, reinterpret_cast<char const*>(p), reinterpret_cast<char*>(out.data() + 1), 8);
        index_t bad = 0;
        for (index_t i = 0; i < a; ++i)
            for (index_t k = 0; k < c; ++k)
                for (index_t j = 0; j < b; ++j)
                    bad += out[static_cast<std::size_t>(1 + (i * c + k) * b + j)] != p[(i * b + j) * c + k];
        BOOST_TEST_CONTEXT("(" << a << "," << b << "," << c << ").permute(0,2,1) fp64")
        {
            BOOST_TEST((ns.run == paired(b)) == pairs);
            BOOST_TEST(bad == 0);
            BOOST_TEST((out.front() == -7.0 && out.back() == -7.0));
        }
    }
    // FLUX pack fp32 (1,C,H,W): rows of 2 pairs (dh), the loop along W moved around them where
    // the nest has over 256 pairs, whose rows then pair; not (1,3,6,6) (54 pairs: a table).
    // (1,16,2,34): one row of pairs (C and dh joined, 32 long), whose loop along W reads the
    // next pair as it is.
    for (auto const& [C, H, W] : {std::array<index_t, 3>{7, 14, 14}, std::array<index_t, 3>{16, 8, 8},
                                  std::array<index_t, 3>{3, 6, 6}, std::array<index_t, 3>{5, 22, 22},
                                  std::array<index_t, 3>{2, 16, 18}, std::array<index_t, 3>{16, 2, 34}}) {
        std::vector<float> x(static_cast<std::size_t>(C * H * W + 1));
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) * 0.5f;
        float const* const p = x.data() + 1;  // pairs 4 bytes off 8
        auto const e = lv::from_blob(p, {1, C, H, W}).view(1, C, H / 2, 2, W / 2, 2).permute(0, 2, 4, 1, 3, 5);
        auto const plan = lv::contiguous_plan(lv::physical(lv::fold(e)));
        lv::detail::nest_setup ns;
        lv::make_nest(plan, 4, ns);
        bool const pairs = lv::kernels::pairs_rows() && C * H * W / 2 > 256;
        std::vector<float> out(static_cast<std::size_t>(C * H * W + 2), -7.0f);
        lv::run_nest(plan, reinterpret_cast<char const*>(p), reinterpret_cast<char*>(out.data() + 1), 4);
        index_t bad = 0, f = 0;
        for (index_t h = 0; h < H / 2; ++h)
            for (index_t w = 0; w < W / 2; ++w)
                for (index_t c = 0; c < C; ++c)
                    for (index_t dh = 0; dh < 2; ++dh)
                        for (index_t dw = 0; dw < 2; ++dw)
                            bad += out[static_cast<std::size_t>(1 + f++)] != p[(c * H + 2 * h + dh) * W + 2 * w + dw];
        BOOST_TEST_CONTEXT("FLUX pack (1," << C << "," << H << "," << W << ") fp32")
        {
            BOOST_TEST(ns.elem == 8);
            BOOST_TEST((ns.n >= 2 && ns.l[ns.n - 2].ss == 8) == pairs);
            BOOST_TEST((ns.run == paired(ns.l[ns.n - 1].n)) == pairs);
            BOOST_TEST(bad == 0);
            BOOST_TEST((out.front() == -7.0f && out.back() == -7.0f));
        }
    }
}

#if defined(LAZYVIEW_TEST_GUARD_PAGES)
BOOST_AUTO_TEST_CASE(odd_elements_next_to_unmapped_memory)
{
    // Odd-sized elements move as one power-of-two move that spills into the next element of
    // their destination row (kernels::copy_over), in the engine's transposes and in the loop
    // nest of small copies (which eval_nest takes for every copy here). int8 (A,B,R).permute(1,
    // 0,2) and (1,B,R).expand(A,B,R).permute(1,0,2) (one source row read by every element of a
    // destination row), R of 3 to 56 bytes: from a source and into a destination that each end
    // before an unmapped page, and into destination rows an element apart, whose gaps must
    // stay as they were.
    for (index_t const R : {3, 5, 6, 12, 20, 24, 40, 56})
        for (auto const& ab : {std::pair<index_t, index_t>{1, 5}, {7, 3}, {16, 16}, {5, 33}})
            for (bool const bcast : {false, true}) {
                index_t const A = ab.first, B = ab.second;
                index_t const n_src = (bcast ? 1 : A) * B * R, n = A * B * R;
                guarded_bytes src(n_src), dst(n);
                for (index_t i = 0; i < n_src; ++i) src.data()[i] = value_at<std::int8_t>(i);
                std::int8_t const* const p = src.data();
                auto const expected = [&](index_t f) {  // f: flat index into (B, A, R)
                    index_t const r = f % R, a = (f / R) % A, b = f / (R * A);
                    return p[((bcast ? 0 : a) * B + b) * R + r];
                };
                std::string const what = (bcast ? "(1," : "(" + std::to_string(A) + ",") + std::to_string(B) + "," +
                                         std::to_string(R) + ")" +
                                         (bcast ? ".expand(" + std::to_string(A) + ",B,R)" : std::string()) +
                                         ".permute(1,0,2)";
                auto const check = [&](auto const& e) {
                    std::fill(dst.data(), dst.data() + n, std::int8_t{0});
                    lv::copy(e, lv::from_blob(dst.data(), {B, A, R}));
                    index_t bad = 0;
                    for (index_t f = 0; f < n; ++f) bad += dst.data()[f] != expected(f);
                    BOOST_TEST(bad == 0, what << ": " << bad << " bytes wrong");
                    check_rows_apart(
                        B, A, R, [&](std::int8_t* out) { lv::copy(e, lv::from_blob(out, {B, A + 1, R}).narrow(1, 0, A)); },
                        expected, what);
                };
                if (bcast)
                    check(lv::from_blob(p, {1, B, R}).expand(A, B, R).permute(1, 0, 2));
                else
                    check(lv::from_blob(p, {A, B, R}).permute(1, 0, 2));
            }
}
#endif

}  // namespace
}  // namespace evaltest
