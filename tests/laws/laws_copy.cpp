// Laws of evaluation:
//  - copy(e, dst) writes exactly contiguous()'s values into any strided destination (permuted,
//    with gaps, with an offset, a lazy chain over the destination buffer), leaves the gaps alone,
//    with 1 and 2 threads;
//  - unfold (overlapping windows) and expand (stride 0) evaluate to the reference formulas.
#include "laws_common.hpp"

namespace laws {
namespace {

constexpr float sentinel = -7.0f;

// A destination layout of the given sizes: permuted order, gaps between elements, an offset.
template <std::size_t R>
layout<R> random_dst(std::mt19937_64& g, std::array<index_t, R> const& sizes)
{
    layout<R> D;
    D.kind = "dst";
    D.sizes = sizes;
    auto perm = random_perm<R>(g);  // memory order of the dims, outermost first
    index_t acc = 1;
    for (std::size_t k = R; k-- > 0;) {
        auto d = static_cast<std::size_t>(perm[k]);
        index_t const gap = coin(g, 0.3) ? uniform(g, 1, 2) : 0;
        D.strides[d] = acc;
        acc *= std::max<index_t>(sizes[d], 1) + gap;
    }
    D.offset = uniform(g, 0, 5);
    finish(D);
    return D;
}

template <std::size_t R>
void copy_law(std::uint64_t seed)
{
    auto g = make_rng(seed);
    for (int it = 0; it < 50; ++it) {
        auto L = random_layout<R>(g);
        auto buf = iota_buffer(L.span);
        auto b = make_base(buf.data(), L);
        // a source chain: permute + (reshape to the same rank, which may need a copy in PyTorch)
        auto p = expand_args(random_perm<R>(g), [&](auto... d) { return b.permute(d...); });
        std::array<index_t, R> ps = p.sizes();
        auto shape = random_factorization<R>(g, numel_of(ps));
        auto src = expand_args(shape, [&](auto... s) { return p.reshape(s...); });
        auto t = src.contiguous();
        std::array<index_t, R> ss = src.sizes();
        auto D = random_dst<R>(g, ss);
        BOOST_TEST_CONTEXT(L.str() << " -> reshape " << fmt(shape) << " into " << D.str())
        {
            for (int nthreads : {1, 2}) {
                std::vector<float> out(static_cast<std::size_t>(D.span), sentinel);
                auto dst = make_base(out.data(), D);
                if (nthreads == 1) lv::copy(src, dst);
                else lv::copy(src, dst, lv::threads{2});
                std::vector<char> touched(out.size(), 0);
                index_t bad = 0;
                for_each_index(ss, [&](std::array<index_t, R> const& idx, index_t flat) {
                    auto const o = static_cast<std::size_t>(D.at(idx));
                    touched[o] = 1;
                    if (out[o] != t.data()[flat]) ++bad;
                });
                BOOST_TEST(bad == 0, "threads " << nthreads << ": " << bad << " elements differ from contiguous()");
                index_t clobbered = 0;
                for (std::size_t i = 0; i < out.size(); ++i)
                    if (!touched[i] && out[i] != sentinel) ++clobbered;
                BOOST_TEST(clobbered == 0, "threads " << nthreads << ": copy wrote " << clobbered << " gap elements");
            }
            // a lazy destination: a narrowed, transposed view of a bigger contiguous buffer
            if constexpr (R >= 2) {
                std::array<index_t, R> big = ss;
                std::swap(big[0], big[1]);
                big[0] += 2;  // rows to skip on both sides of the narrow
                std::vector<float> out(static_cast<std::size_t>(std::max<index_t>(numel_of(big), 1)), sentinel);
                auto whole = make_contiguous(out.data(), big);
                auto dst = whole.narrow(0, 1, ss[1]).transpose(0, 1);
                lv::copy(src, dst);
                auto bst = contiguous_strides(big);
                index_t bad = 0;
                for_each_index(ss, [&](std::array<index_t, R> const& idx, index_t flat) {
                    std::array<index_t, R> w = idx;
                    std::swap(w[0], w[1]);
                    w[0] += 1;
                    index_t o = 0;
                    for (std::size_t k = 0; k < R; ++k) o += w[k] * bst[k];
                    if (out[static_cast<std::size_t>(o)] != t.data()[flat]) ++bad;
                });
                BOOST_TEST(bad == 0, "lazy destination: " << bad << " elements differ");
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(copy_into_strided_destinations_equals_contiguous)
{
    copy_law<1>(201);
    copy_law<2>(202);
    copy_law<3>(203);
    copy_law<4>(204);
    copy_law<5>(205);
    copy_law<6>(206);
}

// unfold(d, size, step): out[..., i_d, ..., w] = in[..., i_d * step + w, ...]
template <std::size_t R>
void unfold_law(std::uint64_t seed)
{
    auto g = make_rng(seed);
    for (int it = 0; it < 50; ++it) {
        auto L = random_layout<R>(g);
        auto buf = iota_buffer(L.span);
        auto b = make_base(buf.data(), L);
        index_t const d = uniform(g, 0, R - 1);
        index_t const sz = L.sizes[static_cast<std::size_t>(d)];
        index_t const size = sz == 0 ? 0 : uniform(g, 1, sz);
        index_t const step = uniform(g, 1, 4);
        auto u = b.unfold(d, size, step);
        std::array<index_t, R + 1> us = u.sizes();
        std::array<index_t, R + 1> expect_sizes{};
        for (std::size_t k = 0; k < R; ++k) expect_sizes[k] = L.sizes[k];
        expect_sizes[static_cast<std::size_t>(d)] = (sz - size) / step + 1;
        expect_sizes[R] = size;
        BOOST_TEST_CONTEXT(L.str() << " unfold(" << d << ", " << size << ", " << step << ")")
        {
            BOOST_TEST(fmt(us) == fmt(expect_sizes));
            if (us != expect_sizes) continue;
            BOOST_TEST(u.is_view());
            auto t = u.contiguous();
            index_t bad = 0, bad_ref = 0;
            for_each_index(us, [&](std::array<index_t, R + 1> const& idx, index_t flat) {
                std::array<index_t, R> src{};
                for (std::size_t k = 0; k < R; ++k) src[k] = idx[k];
                src[static_cast<std::size_t>(d)] = idx[static_cast<std::size_t>(d)] * step + idx[R];
                float const want = buf[static_cast<std::size_t>(L.at(src))];
                if (t.data()[flat] != want) ++bad;
                if (&at(u, idx) != buf.data() + L.at(src)) ++bad_ref;
            });
            BOOST_TEST(bad == 0, bad << " values of contiguous() differ from the window formula");
            BOOST_TEST(bad_ref == 0, bad_ref << " element references differ from the window formula");
        }
    }
}

BOOST_AUTO_TEST_CASE(unfold_overlapping_windows_evaluate_correctly)
{
    unfold_law<1>(211);
    unfold_law<2>(212);
    unfold_law<3>(213);
    unfold_law<4>(214);
    unfold_law<5>(215);
}

// expand: out[i] = in[i with broadcast dims at 0]; new leading dims are broadcast
template <std::size_t R>
void expand_law(std::uint64_t seed)
{
    auto g = make_rng(seed);
    for (int it = 0; it < 50; ++it) {
        // a base with some size-1 dims
        auto L = random_layout<R>(g, static_cast<int>(uniform(g, 0, 7)), 120);
        for (auto& s : L.sizes)
            if (coin(g, 0.4)) s = 1;
        finish(L);
        auto buf = iota_buffer(L.span);
        auto b = make_base(buf.data(), L);
        std::array<index_t, R + 1> target{};
        target[0] = uniform(g, 1, 3);
        for (std::size_t k = 0; k < R; ++k)
            target[k + 1] = L.sizes[k] == 1 ? uniform(g, 1, 4) : (coin(g) ? -1 : L.sizes[k]);
        auto e = expand_args(target, [&](auto... s) { return b.expand(s...); });
        std::array<index_t, R + 1> es = e.sizes();
        BOOST_TEST_CONTEXT(L.str() << " expand" << fmt(target))
        {
            BOOST_TEST(e.is_view());
            auto est = e.strides();
            for (std::size_t k = 0; k <= R; ++k) {
                bool const broadcast = k == 0 || (L.sizes[k - 1] == 1 && es[k] != 1);
                if (broadcast && es[k] != 1) BOOST_TEST(est[k] == 0, "dim " << k << " must have stride 0");
            }
            auto t = e.contiguous();
            std::vector<float> out(static_cast<std::size_t>(std::max<index_t>(numel_of(es), 1)), sentinel);
            auto dst = make_contiguous(out.data(), es);
            lv::copy(e, dst, lv::threads{2});
            index_t bad = 0;
            for_each_index(es, [&](std::array<index_t, R + 1> const& idx, index_t flat) {
                std::array<index_t, R> src{};
                for (std::size_t k = 0; k < R; ++k) src[k] = L.sizes[k] == 1 ? 0 : idx[k + 1];
                float const want = buf[static_cast<std::size_t>(L.at(src))];
                if (t.data()[flat] != want) ++bad;
                if (out[static_cast<std::size_t>(flat)] != want) ++bad;
            });
            BOOST_TEST(bad == 0, bad << " values differ from the broadcast formula");
        }
    }
}

BOOST_AUTO_TEST_CASE(expand_stride0_evaluates_correctly)
{
    expand_law<1>(221);
    expand_law<2>(222);
    expand_law<3>(223);
    expand_law<4>(224);
    expand_law<5>(225);
}

}  // namespace
}  // namespace laws
