// Layout laws over random shapes and strides (ranks 1-6, fixed seeds):
//  - permute then the inverse permutation is the identical layout (sizes, strides, addresses);
//  - view (and reshape) to the same shape is the identity;
//  - reshape == view whenever view succeeds; otherwise reshape is a copy (not a view, contiguous);
//  - reshape keeps the row-major element order;
//  - transpose twice, movedim as a permutation, flatten as reshape, narrow as slice, select as
//    narrow + squeeze, t() as transpose(0, 1).
#include "laws_common.hpp"

namespace laws {
namespace {

constexpr int iterations = 60;

template <std::size_t R, class A, class B>
void same_addresses(A& a, B& b, std::array<index_t, R> const& sizes, char const* what)
{
    index_t bad = 0;
    for_each_index(sizes, [&](std::array<index_t, R> const& idx, index_t) {
        if (&at(a, idx) != &at(b, idx)) ++bad;
    });
    BOOST_TEST(bad == 0, what << ": " << bad << " element addresses differ");
}

// -- permute / inverse permute ----------------------------------------------------------------
template <std::size_t R>
void permute_inverse(std::uint64_t seed)
{
    auto g = make_rng(seed);
    for (int it = 0; it < iterations; ++it) {
        auto L = random_layout<R>(g);
        auto buf = iota_buffer(L.span);
        auto b = make_base(buf.data(), L);
        auto perm = random_perm<R>(g);
        std::array<index_t, R> inv{};
        for (std::size_t i = 0; i < R; ++i) inv[static_cast<std::size_t>(perm[i])] = static_cast<index_t>(i);
        // spell some dims negatively: PyTorch wraps them
        auto spelled = perm;
        for (auto& d : spelled)
            if (coin(g, 0.3)) d -= static_cast<index_t>(R);
        BOOST_TEST_CONTEXT(L.str() << " permute" << fmt(spelled) << " inverse " << fmt(inv))
        {
            auto e = expand_args(spelled, [&](auto... d) { return b.permute(d...); });
            auto f = expand_args(inv, [&](auto... d) { return e.permute(d...); });
            BOOST_TEST(e.is_view());
            BOOST_TEST(f.is_view());
            std::array<index_t, R> es = e.sizes(), est = e.strides();
            for (std::size_t i = 0; i < R; ++i) {
                BOOST_TEST(es[i] == L.sizes[static_cast<std::size_t>(perm[i])]);
                if (es[i] != 1) BOOST_TEST(est[i] == L.strides[static_cast<std::size_t>(perm[i])]);
            }
            BOOST_TEST(fmt(std::array<index_t, R>(f.sizes())) == fmt(L.sizes));
            BOOST_TEST(fmt_strides(std::array<index_t, R>(f.strides()), L.sizes) == fmt_strides(L.strides, L.sizes));
            BOOST_TEST(f.is_contiguous() == b.is_contiguous());
            same_addresses(f, b, L.sizes, "permute(p).permute(inverse(p)) vs base");
            // e(i) is b at the gathered index
            index_t bad = 0;
            for_each_index(es, [&](std::array<index_t, R> const& idx, index_t) {
                std::array<index_t, R> src{};
                for (std::size_t i = 0; i < R; ++i) src[static_cast<std::size_t>(perm[i])] = idx[i];
                if (&at(e, idx) != buf.data() + L.at(src)) ++bad;
            });
            BOOST_TEST(bad == 0, "permute: output dim i must be input dim perm[i]");
        }
    }
}

BOOST_AUTO_TEST_CASE(permute_then_inverse_is_identity)
{
    permute_inverse<1>(11);
    permute_inverse<2>(12);
    permute_inverse<3>(13);
    permute_inverse<4>(14);
    permute_inverse<5>(15);
    permute_inverse<6>(16);
}

// -- view / reshape to the same shape ---------------------------------------------------------
template <std::size_t R>
void view_same_shape(std::uint64_t seed)
{
    auto g = make_rng(seed);
    for (int it = 0; it < iterations; ++it) {
        auto L = random_layout<R>(g);
        auto buf = iota_buffer(L.span);
        auto b = make_base(buf.data(), L);
        BOOST_TEST_CONTEXT(L.str())
        {
            auto v = expand_args(L.sizes, [&](auto... s) { return b.view(s...); });
            auto r = expand_args(L.sizes, [&](auto... s) { return b.reshape(s...); });
            auto identity = [&](auto& x) {
                BOOST_TEST(x.is_view());
                BOOST_TEST(fmt(std::array<index_t, R>(x.sizes())) == fmt(L.sizes));
                BOOST_TEST(fmt_strides(std::array<index_t, R>(x.strides()), L.sizes) ==
                           fmt_strides(L.strides, L.sizes));
                BOOST_TEST(x.is_contiguous() == b.is_contiguous());
                same_addresses(x, b, L.sizes, "view/reshape(same sizes) vs base");
            };
            identity(v);
            identity(r);
            // the same with -1 in a random place (only where -1 is inferable)
            index_t const n = numel_of(L.sizes);
            if (n > 0) {
                auto s = L.sizes;
                s[static_cast<std::size_t>(uniform(g, 0, R - 1))] = -1;
                auto w = expand_args(s, [&](auto... x) { return b.view(x...); });
                BOOST_TEST(fmt(std::array<index_t, R>(w.sizes())) == fmt(L.sizes));
                same_addresses(w, b, L.sizes, "view(-1 spelling) vs base");
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(view_to_same_shape_is_identity)
{
    view_same_shape<1>(21);
    view_same_shape<2>(22);
    view_same_shape<3>(23);
    view_same_shape<4>(24);
    view_same_shape<5>(25);
    view_same_shape<6>(26);
}

// -- reshape == view when view succeeds; otherwise a row-major copy ------------------------------
template <std::size_t R, std::size_t K>
void reshape_is_view_when_possible(std::uint64_t seed, int& views, int& copies)
{
    auto g = make_rng(seed);
    for (int it = 0; it < iterations; ++it) {
        auto L = random_layout<R>(g);
        auto buf = iota_buffer(L.span);
        auto b = make_base(buf.data(), L);
        index_t const n = numel_of(L.sizes);
        auto target = random_factorization<K>(g, n);
        BOOST_TEST_CONTEXT(L.str() << " -> " << fmt(target))
        {
            auto r = expand_args(target, [&](auto... s) { return b.reshape(s...); });
            BOOST_TEST(fmt(std::array<index_t, K>(r.sizes())) == fmt(target));
            bool view_ok = true;
            try {
                auto v = expand_args(target, [&](auto... s) { return b.view(s...); });
                ++views;
                BOOST_TEST(v.is_view());
                BOOST_TEST(r.is_view(), "reshape must be a view where view succeeds");
                if (r.is_view()) {
                    BOOST_TEST(fmt(std::array<index_t, K>(r.strides())) == fmt(std::array<index_t, K>(v.strides())));
                    same_addresses(r, v, target, "reshape vs view");
                }
                BOOST_TEST(r.is_contiguous() == v.is_contiguous());
            }
            catch (lv::shape_error const& ex) {
                view_ok = false;
                ++copies;
                BOOST_TEST(std::string(ex.what()).find("view size is not compatible") == 0, ex.what());
                BOOST_TEST(!r.is_view(), "reshape must copy where view fails");
                BOOST_TEST(r.is_contiguous(), "a copied reshape is row-major contiguous");
            }
            (void)view_ok;
            // in both cases: reshape keeps the row-major order of the elements
            auto before = values_of(b);
            auto after = values_of(r);
            BOOST_TEST((before == after), "reshape changed the row-major element order");
        }
    }
}

BOOST_AUTO_TEST_CASE(reshape_equals_view_whenever_view_succeeds)
{
    int views = 0, copies = 0;
    reshape_is_view_when_possible<1, 3>(31, views, copies);
    reshape_is_view_when_possible<2, 1>(32, views, copies);
    reshape_is_view_when_possible<2, 4>(33, views, copies);
    reshape_is_view_when_possible<3, 2>(34, views, copies);
    reshape_is_view_when_possible<3, 3>(35, views, copies);
    reshape_is_view_when_possible<4, 2>(36, views, copies);
    reshape_is_view_when_possible<4, 5>(37, views, copies);
    reshape_is_view_when_possible<5, 3>(38, views, copies);
    reshape_is_view_when_possible<6, 6>(39, views, copies);
    BOOST_TEST_MESSAGE("reshape law: " << views << " views, " << copies << " copies");
    BOOST_TEST(views > 50);
    BOOST_TEST(copies > 50);
}

// -- small algebraic identities ----------------------------------------------------------------
template <std::size_t R>
void identities(std::uint64_t seed)
{
    auto g = make_rng(seed);
    for (int it = 0; it < iterations; ++it) {
        auto L = random_layout<R>(g);
        auto buf = iota_buffer(L.span);
        auto b = make_base(buf.data(), L);
        index_t const a = uniform(g, 0, R - 1), c = uniform(g, 0, R - 1);
        BOOST_TEST_CONTEXT(L.str() << " a=" << a << " c=" << c)
        {
            // transpose twice
            auto tt = b.transpose(a, c).transpose(c - static_cast<index_t>(R), a);
            same_addresses(tt, b, L.sizes, "transpose twice");
            // movedim(a, c) is the permutation that takes a out and inserts it at c
            std::array<index_t, R> perm{};
            {
                std::vector<index_t> rest;
                for (index_t d = 0; d < static_cast<index_t>(R); ++d)
                    if (d != a) rest.push_back(d);
                rest.insert(rest.begin() + c, a);
                std::copy(rest.begin(), rest.end(), perm.begin());
            }
            auto m = b.movedim(a, c);
            auto p = expand_args(perm, [&](auto... d) { return b.permute(d...); });
            std::array<index_t, R> ms = m.sizes();
            BOOST_TEST(fmt(ms) == fmt(std::array<index_t, R>(p.sizes())));
            same_addresses(m, p, ms, "movedim vs permute");
            // narrow(d, s, l) == slice(d, s, s + l, 1)
            index_t const sz = L.sizes[static_cast<std::size_t>(a)];
            index_t const st = uniform(g, 0, sz);
            index_t const ln = uniform(g, 0, sz - st);
            auto nw = b.narrow(a, st, ln);
            auto sl = b.slice(a, st, st + ln, 1);
            std::array<index_t, R> ns = nw.sizes();
            BOOST_TEST(fmt(ns) == fmt(std::array<index_t, R>(sl.sizes())));
            same_addresses(nw, sl, ns, "narrow vs slice");
            if constexpr (R >= 2) {
                // select(d, i) == narrow(d, i, 1).squeeze(d)
                if (sz > 0) {
                    index_t const i = uniform(g, 0, sz - 1);
                    auto s1 = b.select(a, i - (coin(g) ? sz : 0));
                    auto s2 = b.narrow(a, i, 1).squeeze(a);
                    std::array<index_t, R - 1> ss = s1.sizes();
                    BOOST_TEST(fmt(ss) == fmt(std::array<index_t, R - 1>(s2.sizes())));
                    same_addresses(s1, s2, ss, "select vs narrow+squeeze");
                }
                // flatten(1, R-1) == reshape(size0, -1) in values and view-ness
                if (numel_of(L.sizes) > 0) {
                    auto fl = b.flatten(lv::c<1>, lv::c<static_cast<index_t>(R) - 1>);
                    auto rs = b.reshape(L.sizes[0], -1);
                    BOOST_TEST(fl.is_view() == rs.is_view());
                    BOOST_TEST((values_of(fl) == values_of(rs)));
                }
            }
            if constexpr (R == 2) {
                auto t1 = b.t();
                auto t2 = b.transpose(0, 1);
                same_addresses(t1, t2, std::array<index_t, 2>{L.sizes[1], L.sizes[0]}, "t vs transpose");
            }
            // unsqueeze then squeeze of the same dim is the identity
            auto us = b.unsqueeze(c).squeeze(c);
            same_addresses(us, b, L.sizes, "unsqueeze(d).squeeze(d)");
        }
    }
}

BOOST_AUTO_TEST_CASE(algebraic_identities)
{
    identities<1>(41);
    identities<2>(42);
    identities<3>(43);
    identities<4>(44);
    identities<5>(45);
    identities<6>(46);
}

// -- is_contiguous agrees with the strides (size-1 dims ignored, empty is contiguous) -------------
template <std::size_t R>
void contiguity(std::uint64_t seed)
{
    auto g = make_rng(seed);
    for (int it = 0; it < iterations; ++it) {
        auto L = random_layout<R>(g);
        auto buf = iota_buffer(L.span);
        auto b = make_base(buf.data(), L);
        auto e = expand_args(random_perm<R>(g), [&](auto... d) { return b.permute(d...); });
        std::array<index_t, R> s = e.sizes(), st = e.strides();
        bool expect = true;
        if (numel_of(s) != 0) {
            index_t want = 1;
            for (std::size_t k = R; k-- > 0;) {
                if (s[k] == 1) continue;
                if (st[k] != want) expect = false;
                want *= s[k];
            }
        }
        BOOST_TEST(e.is_contiguous() == expect, L.str() << " permuted strides " << fmt(st));
        // contiguous() of anything is row-major; viewing it back as its own sizes is a view
        auto t = e.contiguous();
        auto tv = expand_args(s, [&](auto... x) { return t.view(x...); });
        BOOST_TEST(tv.is_contiguous());
        BOOST_TEST(tv.is_view());
    }
}

BOOST_AUTO_TEST_CASE(is_contiguous_matches_strides)
{
    contiguity<1>(51);
    contiguity<2>(52);
    contiguity<3>(53);
    contiguity<4>(54);
    contiguity<5>(55);
    contiguity<6>(56);
}

}  // namespace
}  // namespace laws
