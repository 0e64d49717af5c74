// Law: a folded chain evaluates equal to op-by-op evaluation.
//
// For random bases (every layout kind of laws_common.hpp, ranks 1-6) and random but valid
// arguments, each chain is built twice:
//   lazy:  b.op1(..).op2(..)...opN(..)                 (one folded expression)
//   eager: t0 = b.contiguous(); t1 = t0.op1(..).contiguous(); t2 = t1.op2(..).contiguous(); ...
// and the two must agree in sizes after every op and in every value at the end. The eager side
// only ever applies one op to a row-major tensor, so it checks the fold (including reshapes that
// PyTorch would copy, which lazyview keeps lazy) against the simplest possible evaluation.
// view() is not used here: it may legitimately fail on the lazy side and succeed on the eager one.
#include "laws_common.hpp"

namespace laws {
namespace {

constexpr int iterations = 40;

template <std::size_t K>
struct s_reshape {
    std::array<index_t, K> shape{};
    template <std::size_t R>
    bool choose(std::array<index_t, R> const& s, std::mt19937_64& g)
    {
        index_t const n = numel_of(s);
        shape = random_factorization<K>(g, n);
        if (n > 0 && coin(g, 0.3)) shape[static_cast<std::size_t>(uniform(g, 0, K - 1))] = -1;
        return true;
    }
    template <class E>
    auto apply(E& e) const
    {
        return expand_args(shape, [&](auto... x) { return e.reshape(x...); });
    }
    std::string str() const { return ".reshape" + fmt(shape); }
};

struct s_permute {
    std::vector<index_t> perm;
    template <std::size_t R>
    bool choose(std::array<index_t, R> const&, std::mt19937_64& g)
    {
        auto p = random_perm<R>(g);
        for (auto& d : p)
            if (coin(g, 0.25)) d -= static_cast<index_t>(R);
        perm.assign(p.begin(), p.end());
        return true;
    }
    template <class E>
    auto apply(E& e) const
    {
        constexpr std::size_t R = std::tuple_size_v<std::remove_cvref_t<decltype(e.sizes())>>;
        std::array<index_t, R> p{};
        std::copy(perm.begin(), perm.end(), p.begin());
        return expand_args(p, [&](auto... d) { return e.permute(d...); });
    }
    std::string str() const
    {
        std::string s = ".permute(";
        for (std::size_t i = 0; i < perm.size(); ++i) s += (i ? ", " : "") + std::to_string(perm[i]);
        return s + ")";
    }
};

struct s_transpose {
    index_t a = 0, b = 0;
    template <std::size_t R>
    bool choose(std::array<index_t, R> const&, std::mt19937_64& g)
    {
        a = uniform(g, -static_cast<index_t>(R), R - 1);
        b = uniform(g, -static_cast<index_t>(R), R - 1);
        return true;
    }
    template <class E>
    auto apply(E& e) const { return e.transpose(a, b); }
    std::string str() const { return ".transpose(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }
};

struct s_t {
    template <std::size_t R>
    bool choose(std::array<index_t, R> const&, std::mt19937_64&) { return R <= 2; }
    template <class E>
    auto apply(E& e) const { return e.t(); }
    std::string str() const { return ".t()"; }
};

struct s_narrow {
    index_t d = 0, start = 0, len = 0;
    template <std::size_t R>
    bool choose(std::array<index_t, R> const& s, std::mt19937_64& g)
    {
        d = uniform(g, 0, R - 1);
        index_t const sz = s[static_cast<std::size_t>(d)];
        start = uniform(g, 0, sz);
        len = uniform(g, std::min<index_t>(1, sz - start), sz - start);
        if (coin(g, 0.3) && start < sz) start -= sz;
        if (coin(g, 0.3)) d -= static_cast<index_t>(R);
        return true;
    }
    template <class E>
    auto apply(E& e) const { return e.narrow(d, start, len); }
    std::string str() const
    {
        return ".narrow(" + std::to_string(d) + ", " + std::to_string(start) + ", " + std::to_string(len) + ")";
    }
};

struct s_slice {
    index_t d = 0, start = 0, end = 0, step = 1;
    template <std::size_t R>
    bool choose(std::array<index_t, R> const& s, std::mt19937_64& g)
    {
        d = uniform(g, 0, R - 1);
        index_t const sz = s[static_cast<std::size_t>(d)];
        start = uniform(g, -sz - 1, sz + 1);
        end = uniform(g, -sz - 1, sz + 2);
        step = uniform(g, 1, 3);
        return true;
    }
    template <class E>
    auto apply(E& e) const { return e.slice(d, start, end, step); }
    std::string str() const
    {
        return ".slice(" + std::to_string(d) + ", " + std::to_string(start) + ", " + std::to_string(end) + ", " +
               std::to_string(step) + ")";
    }
};

struct s_select {
    index_t d = 0, i = 0;
    template <std::size_t R>
    bool choose(std::array<index_t, R> const& s, std::mt19937_64& g)
    {
        if (R < 2) return false;
        std::vector<index_t> ok;
        for (std::size_t k = 0; k < R; ++k)
            if (s[k] > 0) ok.push_back(static_cast<index_t>(k));
        if (ok.empty()) return false;
        d = ok[static_cast<std::size_t>(uniform(g, 0, static_cast<index_t>(ok.size()) - 1))];
        index_t const sz = s[static_cast<std::size_t>(d)];
        i = uniform(g, -sz, sz - 1);
        return true;
    }
    template <class E>
    auto apply(E& e) const { return e.select(d, i); }
    std::string str() const { return ".select(" + std::to_string(d) + ", " + std::to_string(i) + ")"; }
};

struct s_unsqueeze {
    index_t d = 0;
    template <std::size_t R>
    bool choose(std::array<index_t, R> const&, std::mt19937_64& g)
    {
        d = uniform(g, -static_cast<index_t>(R) - 1, R);
        return true;
    }
    template <class E>
    auto apply(E& e) const { return e.unsqueeze(d); }
    std::string str() const { return ".unsqueeze(" + std::to_string(d) + ")"; }
};

struct s_squeeze {
    index_t d = 0;
    template <std::size_t R>
    bool choose(std::array<index_t, R> const& s, std::mt19937_64& g)
    {
        std::vector<index_t> ones;
        for (std::size_t k = 0; k < R; ++k)
            if (s[k] == 1) ones.push_back(static_cast<index_t>(k));
        if (ones.empty() || R < 2) return false;
        d = ones[static_cast<std::size_t>(uniform(g, 0, static_cast<index_t>(ones.size()) - 1))];
        return true;
    }
    template <class E>
    auto apply(E& e) const { return e.squeeze(d); }
    std::string str() const { return ".squeeze(" + std::to_string(d) + ")"; }
};

// expand with Extra new leading dims; size-1 dims grow to 2 or 3, others keep (-1 or the size)
template <std::size_t Extra>
struct s_expand {
    std::vector<index_t> target;
    template <std::size_t R>
    bool choose(std::array<index_t, R> const& s, std::mt19937_64& g)
    {
        target.clear();
        index_t n = numel_of(s);
        for (std::size_t k = 0; k < Extra; ++k) {
            index_t const v = (n * 3 <= 4000) ? uniform(g, 1, 3) : 1;
            target.push_back(v);
            n *= v;
        }
        for (std::size_t k = 0; k < R; ++k) {
            if (s[k] == 1 && n * 3 <= 4000) {
                index_t const v = uniform(g, 1, 3);
                target.push_back(coin(g, 0.2) ? -1 : v);
                n *= (target.back() == -1 ? 1 : v);
            }
            else
                target.push_back(coin(g, 0.4) ? -1 : s[k]);
        }
        return true;
    }
    template <class E>
    auto apply(E& e) const
    {
        constexpr std::size_t R = std::tuple_size_v<std::remove_cvref_t<decltype(e.sizes())>> + Extra;
        std::array<index_t, R> t{};
        std::copy(target.begin(), target.end(), t.begin());
        return expand_args(t, [&](auto... x) { return e.expand(x...); });
    }
    std::string str() const
    {
        std::string s = ".expand(";
        for (std::size_t i = 0; i < target.size(); ++i) s += (i ? ", " : "") + std::to_string(target[i]);
        return s + ")";
    }
};

struct s_unfold {
    index_t d = 0, size = 0, step = 1;
    template <std::size_t R>
    bool choose(std::array<index_t, R> const& s, std::mt19937_64& g)
    {
        d = uniform(g, 0, R - 1);
        index_t const sz = s[static_cast<std::size_t>(d)];
        size = sz == 0 ? 0 : uniform(g, 1, sz);
        step = uniform(g, 1, 3);
        if (coin(g, 0.3)) d -= static_cast<index_t>(R);
        return true;
    }
    template <class E>
    auto apply(E& e) const { return e.unfold(d, size, step); }
    std::string str() const
    {
        return ".unfold(" + std::to_string(d) + ", " + std::to_string(size) + ", " + std::to_string(step) + ")";
    }
};

struct s_diagonal {
    index_t off = 0, d1 = 0, d2 = 1;
    template <std::size_t R>
    bool choose(std::array<index_t, R> const& s, std::mt19937_64& g)
    {
        if (R < 2) return false;
        d1 = uniform(g, 0, R - 1);
        do d2 = uniform(g, 0, R - 1);
        while (d2 == d1);
        index_t const n1 = s[static_cast<std::size_t>(d1)], n2 = s[static_cast<std::size_t>(d2)];
        off = uniform(g, -n1, n2);
        if (coin(g, 0.3)) d2 -= static_cast<index_t>(R);
        return true;
    }
    template <class E>
    auto apply(E& e) const { return e.diagonal(off, d1, d2); }
    std::string str() const
    {
        return ".diagonal(" + std::to_string(off) + ", " + std::to_string(d1) + ", " + std::to_string(d2) + ")";
    }
};

struct s_movedim {
    index_t a = 0, b = 0;
    template <std::size_t R>
    bool choose(std::array<index_t, R> const&, std::mt19937_64& g)
    {
        a = uniform(g, -static_cast<index_t>(R), R - 1);
        b = uniform(g, -static_cast<index_t>(R), R - 1);
        return true;
    }
    template <class E>
    auto apply(E& e) const { return e.movedim(a, b); }
    std::string str() const { return ".movedim(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }
};

template <index_t S, index_t E_>
struct s_flatten {
    template <std::size_t R>
    bool choose(std::array<index_t, R> const&, std::mt19937_64&) { return true; }
    template <class E>
    auto apply(E& e) const { return e.flatten(lv::c<S>, lv::c<E_>); }
    std::string str() const { return ".flatten(" + std::to_string(S) + ", " + std::to_string(E_) + ")"; }
};

template <std::size_t K>
struct s_unflatten {
    index_t d = 0;
    std::array<index_t, K> parts{};
    template <std::size_t R>
    bool choose(std::array<index_t, R> const& s, std::mt19937_64& g)
    {
        d = uniform(g, 0, R - 1);
        parts = random_factorization<K>(g, s[static_cast<std::size_t>(d)]);
        if (s[static_cast<std::size_t>(d)] > 0 && coin(g, 0.3)) parts[static_cast<std::size_t>(uniform(g, 0, K - 1))] = -1;
        return true;
    }
    template <class E>
    auto apply(E& e) const
    {
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
            return e.unflatten(d, {parts[I]...});
        }(std::make_index_sequence<K>{});
    }
    std::string str() const { return ".unflatten(" + std::to_string(d) + ", " + fmt(parts) + ")"; }
};

// ----------------------------------------------------------------------------------------------

template <class Lz, class Mt>
void compare_final(Lz& lazy, Mt& mat)
{
    constexpr std::size_t R = std::tuple_size_v<std::remove_cvref_t<decltype(lazy.sizes())>>;
    std::array<index_t, R> s = lazy.sizes();
    index_t const n = numel_of(s);
    auto lv_ = values_of(lazy);
    std::vector<float> mv(mat.data(), mat.data() + n);
    BOOST_TEST((lv_ == mv), "folded chain and op-by-op evaluation differ");
    index_t bad = 0;
    for_each_index(s, [&](std::array<index_t, R> const& idx, index_t flat) {
        if (at(lazy, idx) != mv[static_cast<std::size_t>(flat)]) ++bad;
    });
    BOOST_TEST(bad == 0, "e(i...) of the folded chain differs from op-by-op in " << bad << " elements");
}

template <class Lz, class Mt, class Step, class... Rest>
bool run_chain(Lz& lazy, Mt& mat, std::mt19937_64& g, std::string& trace, Step step, Rest... rest)
{
    auto s = lazy.sizes();
    if (!step.choose(s, g)) return false;
    trace += step.str();
    auto l2 = step.apply(lazy);
    auto m2 = step.apply(mat);
    auto t2 = m2.contiguous();
    using A = std::remove_cvref_t<decltype(l2.sizes())>;
    A ls = l2.sizes();
    A ts = t2.sizes();
    BOOST_TEST(fmt(ls) == fmt(ts), "sizes after " << trace);
    if (ls != ts) return true;
    if constexpr (sizeof...(Rest) == 0) {
        BOOST_TEST_CONTEXT("chain " << trace) { compare_final(l2, t2); }
        return true;
    }
    else
        return run_chain(l2, t2, g, trace, rest...);
}

template <std::size_t R, class... Steps>
void fold_law(std::uint64_t seed, Steps... steps)
{
    auto g = make_rng(seed);
    int ran = 0;
    for (int it = 0; it < iterations; ++it) {
        auto L = random_layout<R>(g, -1, 360);
        auto buf = iota_buffer(L.span);
        auto b = make_base(buf.data(), L);
        auto t0 = b.contiguous();
        std::string trace = L.str() + " ";
        BOOST_TEST_CONTEXT("base " << L.str())
        {
            if (run_chain(b, t0, g, trace, steps...)) ++ran;
        }
    }
    BOOST_TEST(ran >= iterations / 2, "only " << ran << " chains could be built");
}

BOOST_AUTO_TEST_CASE(reshape_permute_reshape)
{
    fold_law<3>(101, s_reshape<2>{}, s_permute{}, s_reshape<3>{});
    fold_law<2>(102, s_reshape<4>{}, s_permute{}, s_reshape<2>{});
}

BOOST_AUTO_TEST_CASE(permute_reshape_transpose_reshape)
{
    fold_law<4>(103, s_permute{}, s_reshape<2>{}, s_transpose{}, s_reshape<4>{});
}

BOOST_AUTO_TEST_CASE(flux_like_roundtrip)
{
    fold_law<4>(104, s_reshape<6>{}, s_permute{}, s_reshape<3>{}, s_reshape<6>{}, s_permute{}, s_reshape<4>{});
}

BOOST_AUTO_TEST_CASE(expand_then_reshape_and_slice)
{
    fold_law<2>(105, s_unsqueeze{}, s_expand<0>{}, s_reshape<2>{}, s_slice{});
    fold_law<3>(106, s_expand<1>{}, s_permute{}, s_reshape<3>{});
}

BOOST_AUTO_TEST_CASE(unfold_then_reshape_and_select)
{
    fold_law<3>(107, s_unfold{}, s_reshape<2>{}, s_select{});
    fold_law<1>(108, s_unfold{}, s_permute{}, s_reshape<1>{});
}

BOOST_AUTO_TEST_CASE(diagonal_unsqueeze_movedim_flatten)
{
    fold_law<3>(109, s_diagonal{}, s_unsqueeze{}, s_movedim{}, s_reshape<1>{});
}

BOOST_AUTO_TEST_CASE(flatten_unflatten_permute_narrow)
{
    fold_law<4>(110, s_flatten<1, 2>{}, s_unflatten<3>{}, s_permute{}, s_narrow{});
    fold_law<3>(111, s_flatten<-2, -1>{}, s_permute{}, s_unflatten<2>{}, s_reshape<3>{});
}

BOOST_AUTO_TEST_CASE(rank6_chains)
{
    fold_law<6>(112, s_permute{}, s_reshape<3>{}, s_slice{}, s_reshape<6>{});
    fold_law<1>(113, s_reshape<3>{}, s_permute{}, s_reshape<6>{}, s_permute{}, s_reshape<2>{});
}

BOOST_AUTO_TEST_CASE(transpose_squeeze_t)
{
    fold_law<2>(114, s_t{}, s_reshape<3>{}, s_unsqueeze{}, s_transpose{}, s_squeeze{});
    fold_law<2>(115, s_transpose{}, s_reshape<2>{}, s_t{}, s_narrow{}, s_reshape<1>{});
}

BOOST_AUTO_TEST_CASE(after_copy_more_views)
{
    // a reshape that copies in PyTorch, then view-only ops (select, slice, diagonal, unfold)
    fold_law<3>(116, s_permute{}, s_reshape<2>{}, s_diagonal{}, s_unfold{});
    fold_law<4>(117, s_permute{}, s_reshape<3>{}, s_select{}, s_slice{}, s_reshape<2>{});
}

}  // namespace
}  // namespace laws
