// Checks shared by the generated PyTorch-oracle tests (tests/oracle/generated/*.cpp).
//
// A generated case builds a lazy chain `e` over a float buffer holding 0, 1, ..., N-1 and calls
//   oracle::check<R>(e, p, sizes, is_view, strides, offset, is_contiguous, values, "python chain")
// or, for a chain that must fail,
//   oracle::check_throws<Exception>(run, stage, expected_stage, "message", "python chain").
// Every expected value comes from torch 1.13 (tests/oracle/gen.py).
//
// check<R>() is instantiated once per chain type, so it only asks the chain (sizes, strides,
// e(i...), contiguous(), two copies) and keeps the answers; oracle::report(), compiled once in
// oracle_main.cpp, compares them with torch's. With the assertions in the template (Boost.Test
// expressions instantiated per chain) generated/chain_1.cpp, 42 chains, took 80 s to compile at
// -O2 on a 2-core Zen 3 VM; split so, 43 s (of which 3 s is the headers).
#pragma once

#include <lazyview/lazyview.hpp>

#include "../common/shape_text.hpp"

#include <boost/test/unit_test.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <numeric>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace oracle {

namespace lv = lazyview;
using index_t = std::int64_t;
using lazyview_test::numel_of;

// The base buffer: arange(n) as float (n >= 1 so data() is never null).
inline std::vector<float> arange(index_t n)
{
    std::vector<float> v(static_cast<std::size_t>(n < 1 ? 1 : n));
    std::iota(v.begin(), v.end(), 0.0f);
    return v;
}

// What a chain answered, gathered by check<R>(); report() says where it differs from torch.
struct observed {
    index_t dim = 0, numel = 0;
    std::vector<index_t> sizes, size_of;  // e.sizes(), and e.size(d) for each d
    bool is_view = false, is_contiguous = false;
    bool sizes_match = false;  // whether e.sizes() is torch's: nothing past it is read otherwise
    std::vector<index_t> strides;  // read where torch and lazyview both say view
    bool has_offset = false;       // ... and the chain has elements: &e(0, ...) - p
    index_t offset = 0;
    std::vector<float> at;  // e(i...), row-major
    std::vector<index_t> contiguous_sizes;
    std::vector<float> contiguous, copied, copied_transposed;  // (the last read back row-major)
};

// torch's answer for a chain, as the generated case states it.
struct torch_answer {
    std::span<const index_t> sizes;
    bool is_view;
    std::span<const index_t> strides;
    index_t offset;
    bool is_contiguous;
    std::span<const std::int32_t> values;
    char const* chain;
};

// Compares o with t under Boost.Test, in the context of the chain's text (oracle_main.cpp).
void report(observed const& o, torch_answer const& t);

// Calls f(idx, flat) for every multi-index in row-major order.
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

template <std::size_t... I>
auto contiguous_dst(float* q, std::array<index_t, sizeof...(I)> const& s, std::index_sequence<I...>)
{
    return lv::from_blob(q, {s[I]...});
}

// A column-major destination: a contiguous buffer of the reversed sizes, permuted back.
template <std::size_t... I>
auto transposed_dst(float* q, std::array<index_t, sizeof...(I)> const& s, std::index_sequence<I...>)
{
    constexpr std::size_t R = sizeof...(I);
    return lv::from_blob(q, {s[R - 1 - I]...}).permute(static_cast<index_t>(R - 1 - I)...);
}

template <std::size_t R, class E>
void check(E& e, float const* p, std::array<index_t, R> const& sizes, bool is_view,
           std::array<index_t, R> const& strides, index_t offset, bool is_contiguous,
           std::span<const std::int32_t> values, char const* chain)
{
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(e.sizes())>, std::array<std::int64_t, R>>,
                  "sizes() must return std::array<std::int64_t, rank>");
    observed o;
    o.dim = static_cast<index_t>(e.dim());
    std::array<index_t, R> const got_sizes = e.sizes();
    o.sizes.assign(got_sizes.begin(), got_sizes.end());
    for (std::size_t d = 0; d < R; ++d) o.size_of.push_back(static_cast<index_t>(e.size(static_cast<index_t>(d))));
    o.numel = static_cast<index_t>(e.numel());
    o.is_view = e.is_view();
    o.is_contiguous = e.is_contiguous();
    o.sizes_match = got_sizes == sizes;
    index_t const n = numel_of(sizes);
    if (o.sizes_match) {
        if (is_view && o.is_view) {
            std::array<index_t, R> const got_strides = e.strides();
            o.strides.assign(got_strides.begin(), got_strides.end());
            if (n > 0) {
                std::array<index_t, R> zero{};
                o.has_offset = true;
                o.offset = &std::apply(e, zero) - p;
            }
        }
        // element access through the chain: e(i...) refers into the base memory
        o.at.resize(static_cast<std::size_t>(n));
        for_each_index(sizes, [&](std::array<index_t, R> const& idx, index_t flat) {
            o.at[static_cast<std::size_t>(flat)] = std::apply(e, idx);
        });
        {
            auto t = e.contiguous();
            static_assert(std::is_same_v<std::remove_cvref_t<decltype(*t.data())>, float>);
            std::array<index_t, R> const tsizes = t.sizes();
            o.contiguous_sizes.assign(tsizes.begin(), tsizes.end());
            if (tsizes == sizes) o.contiguous.assign(t.data(), t.data() + n);
        }
        o.copied.assign(static_cast<std::size_t>(n > 0 ? n : 1), -1.0f);
        auto dst = contiguous_dst(o.copied.data(), sizes, std::make_index_sequence<R>{});
        lv::copy(e, dst);
        o.copied.resize(static_cast<std::size_t>(n));
        std::vector<float> out(static_cast<std::size_t>(n > 0 ? n : 1), -1.0f);
        auto tdst = transposed_dst(out.data(), sizes, std::make_index_sequence<R>{});
        lv::copy(e, tdst);
        std::array<index_t, R> colmajor{};
        index_t acc = 1;
        for (std::size_t k = 0; k < R; ++k) {
            colmajor[k] = acc;
            acc *= sizes[k];
        }
        o.copied_transposed.resize(static_cast<std::size_t>(n));
        for_each_index(sizes, [&](std::array<index_t, R> const& idx, index_t flat) {
            index_t at = 0;
            for (std::size_t k = 0; k < R; ++k) at += idx[k] * colmajor[k];
            o.copied_transposed[static_cast<std::size_t>(flat)] = out[static_cast<std::size_t>(at)];
        });
    }
    report(o, torch_answer{sizes, is_view, strides, offset, is_contiguous, values, chain});
}

template <class Ex>
struct what_is {
    std::string expected;
    bool operator()(Ex const& ex) const
    {
        std::string const got = ex.what();
        BOOST_TEST(got == expected, "what() mismatch:\n      got:      " << got << "\n      expected: " << expected);
        return got == expected;
    }
};

// run() builds the chain op by op, setting `stage` to the 1-based index of the op being called.
template <class Ex, class F>
void check_throws(F&& run, int const& stage, int expected_stage, std::string const& message, char const* chain)
{
    BOOST_TEST_CONTEXT("torch: " << chain)
    {
        try {
            BOOST_CHECK_EXCEPTION(run(), Ex, what_is<Ex>{message});
        }
        catch (std::exception const& ex) {
            BOOST_ERROR("wrong exception type " << typeid(ex).name() << " (expected " << typeid(Ex).name()
                                                << "), what(): " << ex.what());
        }
        BOOST_TEST(stage == expected_stage, "thrown at op " << stage << ", expected at op " << expected_stage);
    }
}

}  // namespace oracle
