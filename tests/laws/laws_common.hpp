// Shared machinery of the property tests (tests/laws): a fixed-seed RNG, random strided layouts of
// rank 1..6, and helpers that call lazyview's variadic ops with runtime arrays.
#pragma once

#include <lazyview/lazyview.hpp>

#include <boost/test/unit_test.hpp>

#include "../common/shape_text.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace laws {

namespace lv = lazyview;
using index_t = std::int64_t;

// One generator per test case, seeded from the case's own constant so that cases are independent
// of the order in which Boost.Test runs them.
inline std::mt19937_64 make_rng(std::uint64_t seed) { return std::mt19937_64(0x1a2b3c4d5e6fULL ^ (seed * 0x9e3779b97f4a7c15ULL)); }

inline index_t uniform(std::mt19937_64& g, index_t lo, index_t hi)  // inclusive
{
    return std::uniform_int_distribution<index_t>(lo, hi)(g);
}
inline bool coin(std::mt19937_64& g, double p = 0.5) { return std::uniform_real_distribution<double>(0, 1)(g) < p; }

using lazyview_test::fmt;
using lazyview_test::numel_of;

// strides as text with size-1 dims masked (PyTorch leaves them arbitrary)
template <std::size_t R>
std::string fmt_strides(std::array<index_t, R> const& st, std::array<index_t, R> const& sz)
{
    std::ostringstream os;
    os << '[';
    for (std::size_t i = 0; i < R; ++i) {
        os << (i ? ", " : "");
        if (sz[i] == 1) os << '*';
        else os << st[i];
    }
    os << ']';
    return os.str();
}

template <std::size_t R, class F>
void for_each_index(std::array<index_t, R> const& s, F&& f)
{
    index_t const n = numel_of(s);
    std::array<index_t, R> idx{};
    for (index_t flat = 0; flat < n; ++flat) {
        f(idx, flat);
        for (std::size_t k = R; k-- > 0;) {
            if (++idx[k] < s[k]) break;
            idx[k] = 0;
        }
    }
}

// f(a[0], a[1], ...)
template <std::size_t R, class F>
decltype(auto) expand_args(std::array<index_t, R> const& a, F&& f)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>) -> decltype(auto) {
        return f(a[I]...);
    }(std::make_index_sequence<R>{});
}

// e(idx...) (a reference into the base memory)
template <class E, std::size_t R>
decltype(auto) at(E& e, std::array<index_t, R> const& idx)
{
    return std::apply(e, idx);
}

// A strided layout into a buffer: element idx lives at buf[offset + sum idx[k] * strides[k]].
template <std::size_t R>
struct layout {
    std::array<index_t, R> sizes{};
    std::array<index_t, R> strides{};
    index_t offset = 0;
    index_t span = 1;  // buffer length needed (>= 1)
    char const* kind = "";

    index_t at(std::array<index_t, R> const& idx) const
    {
        index_t o = offset;
        for (std::size_t k = 0; k < R; ++k) o += idx[k] * strides[k];
        return o;
    }
    std::string str() const
    {
        return std::string(kind) + " sizes " + fmt(sizes) + " strides " + fmt(strides) + " offset " +
               std::to_string(offset);
    }
};

template <std::size_t R>
std::array<index_t, R> contiguous_strides(std::array<index_t, R> const& s)
{
    std::array<index_t, R> st{};
    index_t acc = 1;
    for (std::size_t k = R; k-- > 0;) {
        st[k] = acc;
        acc *= std::max<index_t>(s[k], 1);
    }
    return st;
}

template <std::size_t R>
void finish(layout<R>& L)
{
    index_t hi = L.offset;
    bool empty = false;
    for (std::size_t k = 0; k < R; ++k) {
        if (L.sizes[k] == 0) empty = true;
        hi += (L.sizes[k] - 1) * L.strides[k];
    }
    L.span = empty ? std::max<index_t>(L.offset + 1, 1) : hi + 1;
}

template <std::size_t R>
std::array<index_t, R> random_perm(std::mt19937_64& g)
{
    std::array<index_t, R> p{};
    std::iota(p.begin(), p.end(), index_t{0});
    std::shuffle(p.begin(), p.end(), g);
    return p;
}

// Random sizes: mostly 1..max_size, the total kept small (evaluation is checked element by element).
template <std::size_t R>
std::array<index_t, R> random_sizes(std::mt19937_64& g, index_t max_numel = 720, bool allow_zero = false)
{
    for (;;) {
        std::array<index_t, R> s{};
        for (auto& v : s) v = coin(g, 0.15) ? 1 : uniform(g, 2, R <= 3 ? 6 : 4);
        if (allow_zero && coin(g, 0.1)) s[static_cast<std::size_t>(uniform(g, 0, R - 1))] = 0;
        if (numel_of(s) <= max_numel) return s;
    }
}

// kinds: 0 contiguous, 1 permuted, 2 sliced (steps and offset), 3 expanded (stride 0),
// 4 size-1 dims with odd strides, 5 zero-size, 6 sliced and permuted, 7 overlapping (stride < extent)
template <std::size_t R>
layout<R> random_layout(std::mt19937_64& g, int kind = -1, index_t max_numel = 720)
{
    if (kind < 0) kind = static_cast<int>(uniform(g, 0, 7));
    layout<R> L;
    switch (kind) {
        case 0:
            L.kind = "contiguous";
            L.sizes = random_sizes<R>(g, max_numel);
            L.strides = contiguous_strides(L.sizes);
            break;
        case 1:
        case 6: {
            L.kind = kind == 1 ? "permuted" : "sliced+permuted";
            auto s = random_sizes<R>(g, max_numel);
            auto st = contiguous_strides(s);
            if (kind == 6) {
                // strides of a bigger buffer: each dim may have a step and a start
                std::array<index_t, R> big{};
                for (std::size_t k = 0; k < R; ++k) big[k] = s[k] * uniform(g, 1, 2) + uniform(g, 0, 2);
                auto bst = contiguous_strides(big);
                for (std::size_t k = 0; k < R; ++k) {
                    index_t const step = (big[k] >= 2 * s[k] && coin(g)) ? 2 : 1;
                    index_t const room = big[k] - ((s[k] - 1) * step + 1);
                    index_t const start = room > 0 ? uniform(g, 0, room) : 0;
                    st[k] = bst[k] * step;
                    L.offset += start * bst[k];
                }
            }
            auto p = random_perm<R>(g);
            for (std::size_t k = 0; k < R; ++k) {
                L.sizes[k] = s[static_cast<std::size_t>(p[k])];
                L.strides[k] = st[static_cast<std::size_t>(p[k])];
            }
            break;
        }
        case 2: {
            L.kind = "sliced";
            L.sizes = random_sizes<R>(g, max_numel);
            std::array<index_t, R> big{};
            for (std::size_t k = 0; k < R; ++k) big[k] = L.sizes[k] * uniform(g, 1, 3) + uniform(g, 0, 2);
            auto bst = contiguous_strides(big);
            for (std::size_t k = 0; k < R; ++k) {
                index_t const step = std::max<index_t>(1, std::min<index_t>(3, (big[k] - 1) / std::max<index_t>(L.sizes[k] - 1, 1)));
                index_t const used = (L.sizes[k] - 1) * step + 1;
                index_t const start = big[k] > used ? uniform(g, 0, big[k] - used) : 0;
                L.strides[k] = bst[k] * step;
                L.offset += start * bst[k];
            }
            break;
        }
        case 3: {
            L.kind = "expanded";
            L.sizes = random_sizes<R>(g, max_numel);
            std::array<index_t, R> stored = L.sizes;
            for (std::size_t k = 0; k < R; ++k)
                if (coin(g, 0.4)) stored[k] = 1;
            L.strides = contiguous_strides(stored);
            for (std::size_t k = 0; k < R; ++k)
                if (stored[k] == 1 && L.sizes[k] != 1) L.strides[k] = 0;
            break;
        }
        case 4: {
            L.kind = "size-1 odd strides";
            L.sizes = random_sizes<R>(g, max_numel);
            L.sizes[static_cast<std::size_t>(uniform(g, 0, R - 1))] = 1;
            L.strides = contiguous_strides(L.sizes);
            for (std::size_t k = 0; k < R; ++k)
                if (L.sizes[k] == 1) L.strides[k] = uniform(g, 0, 50);
            break;
        }
        case 5: {
            L.kind = "zero-size";
            L.sizes = random_sizes<R>(g, max_numel);
            L.sizes[static_cast<std::size_t>(uniform(g, 0, R - 1))] = 0;
            L.strides = contiguous_strides(L.sizes);
            for (auto& v : L.strides) v *= uniform(g, 1, 3);
            break;
        }
        default: {
            L.kind = "overlapping";
            L.sizes = random_sizes<R>(g, max_numel);
            for (std::size_t k = 0; k < R; ++k) L.strides[k] = uniform(g, 0, 4);
            L.offset = uniform(g, 0, 3);
            break;
        }
    }
    finish(L);
    return L;
}

template <class T, std::size_t R>
auto make_base(T* p, layout<R> const& L)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return lv::from_blob(p + L.offset, {L.sizes[I]...}, {L.strides[I]...});
    }(std::make_index_sequence<R>{});
}

template <class T, std::size_t R>
auto make_contiguous(T* p, std::array<index_t, R> const& s)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return lv::from_blob(p, {s[I]...});
    }(std::make_index_sequence<R>{});
}

// buffer 0, 1, 2, ... as float (exact for every size used here)
inline std::vector<float> iota_buffer(index_t n)
{
    std::vector<float> v(static_cast<std::size_t>(std::max<index_t>(n, 1)));
    std::iota(v.begin(), v.end(), 0.0f);
    return v;
}

// Random new sizes of rank K with the given numel (one entry may be 0 when numel is 0).
template <std::size_t K>
std::array<index_t, K> random_factorization(std::mt19937_64& g, index_t n)
{
    std::array<index_t, K> s{};
    s.fill(1);
    if (n == 0) {
        for (auto& v : s) v = uniform(g, 1, 3);
        s[static_cast<std::size_t>(uniform(g, 0, K - 1))] = 0;
        return s;
    }
    index_t m = n;
    for (index_t f = 2; f * f <= m; ++f)
        while (m % f == 0) {
            s[static_cast<std::size_t>(uniform(g, 0, K - 1))] *= f;
            m /= f;
        }
    if (m > 1) s[static_cast<std::size_t>(uniform(g, 0, K - 1))] *= m;
    return s;
}

// Values of a lazy expression, row-major (through contiguous()).
template <class E>
std::vector<float> values_of(E& e)
{
    auto t = e.contiguous();
    index_t const n = static_cast<index_t>(t.numel());
    return std::vector<float>(t.data(), t.data() + n);
}

}  // namespace laws
