// Checks shared by the generated PyTorch-oracle tests (tests/oracle/generated/*.cpp).
//
// A generated case builds a lazy chain `e` over a float buffer holding 0, 1, ..., N-1 and calls
//   oracle::check<R>(e, p, sizes, is_view, strides, offset, is_contiguous, values, "python chain")
// or, for a chain that must fail,
//   oracle::check_throws<Exception>(run, stage, expected_stage, "message", "python chain").
// Every expected value comes from torch 1.13 (tests/oracle/gen.py).
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
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace oracle {

namespace lv = lazyview;
using index_t = std::int64_t;
using lazyview_test::fmt;
using lazyview_test::numel_of;

// The base buffer: arange(n) as float (n >= 1 so data() is never null).
inline std::vector<float> arange(index_t n)
{
    std::vector<float> v(static_cast<std::size_t>(n < 1 ? 1 : n));
    std::iota(v.begin(), v.end(), 0.0f);
    return v;
}

// strides with the entries of size-1 dims replaced by '*' (PyTorch leaves them arbitrary, and the
// mission allows lazyview to differ there)
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

// Compares `n` produced values against the expected ones; reports the first mismatches.
template <class Get>
void compare_values(char const* what, index_t n, std::span<const std::int32_t> expect, Get&& got)
{
    index_t bad = 0;
    std::ostringstream first;
    for (index_t i = 0; i < n; ++i) {
        float const g = got(i);
        float const x = static_cast<float>(expect[static_cast<std::size_t>(i)]);
        if (g != x) {
            if (bad < 4) first << " [" << i << "] got " << g << " expected " << x << ';';
            ++bad;
        }
    }
    BOOST_TEST(bad == 0, what << ": " << bad << " of " << n << " values differ:" << first.str());
}

template <std::size_t R, class E>
void check(E& e, float const* p, std::array<index_t, R> const& sizes, bool is_view,
           std::array<index_t, R> const& strides, index_t offset, bool is_contiguous,
           std::span<const std::int32_t> values, char const* chain)
{
    BOOST_TEST_CONTEXT("torch: " << chain)
    {
        static_assert(std::is_same_v<std::remove_cvref_t<decltype(e.sizes())>, std::array<std::int64_t, R>>,
                      "sizes() must return std::array<std::int64_t, rank>");
        index_t const n = numel_of(sizes);
        BOOST_TEST(static_cast<index_t>(e.dim()) == static_cast<index_t>(R));
        std::array<index_t, R> const got_sizes = e.sizes();
        BOOST_TEST(fmt(got_sizes) == fmt(sizes));
        if (got_sizes != sizes) return;  // nothing below is meaningful
        for (std::size_t d = 0; d < R; ++d)
            BOOST_TEST(static_cast<index_t>(e.size(static_cast<index_t>(d))) == sizes[d],
                       "size(" << d << ") = " << e.size(static_cast<index_t>(d)) << ", expected " << sizes[d]);
        BOOST_TEST(static_cast<index_t>(e.numel()) == n);
        BOOST_TEST(e.is_view() == is_view);
        BOOST_TEST(e.is_contiguous() == is_contiguous);
        if (is_view && e.is_view()) {
            std::array<index_t, R> const got_strides = e.strides();
            BOOST_TEST(fmt_strides(got_strides, sizes) == fmt_strides(strides, sizes));
            if (n > 0) {
                std::array<index_t, R> zero{};
                index_t const off = &std::apply(e, zero) - p;
                BOOST_TEST(off == offset, "offset &e(0,...) - p: got " << off << ", expected " << offset);
            }
        }
        // element access through the chain: e(i...) refers into the base memory
        {
            index_t bad = 0;
            std::ostringstream first;
            for_each_index(sizes, [&](std::array<index_t, R> const& idx, index_t flat) {
                float const g = std::apply(e, idx);
                float const x = static_cast<float>(values[static_cast<std::size_t>(flat)]);
                if (g != x) {
                    if (bad < 4) first << " at " << fmt(idx) << " got " << g << " expected " << x << ';';
                    ++bad;
                }
            });
            BOOST_TEST(bad == 0, "e(i...): " << bad << " of " << n << " elements differ:" << first.str());
        }
        // contiguous()
        {
            auto t = e.contiguous();
            static_assert(std::is_same_v<std::remove_cvref_t<decltype(*t.data())>, float>);
            std::array<index_t, R> const tsizes = t.sizes();
            BOOST_TEST(fmt(tsizes) == fmt(sizes), "contiguous().sizes()");
            if (tsizes == sizes) compare_values("contiguous()", n, values, [&](index_t i) { return t.data()[i]; });
        }
        // copy into a contiguous destination
        {
            std::vector<float> out(static_cast<std::size_t>(n > 0 ? n : 1), -1.0f);
            auto dst = contiguous_dst(out.data(), sizes, std::make_index_sequence<R>{});
            lv::copy(e, dst);
            compare_values("copy(e, contiguous dst)", n, values, [&](index_t i) { return out[static_cast<std::size_t>(i)]; });
        }
        // copy into a transposed (column-major) destination view
        {
            std::vector<float> out(static_cast<std::size_t>(n > 0 ? n : 1), -1.0f);
            auto dst = transposed_dst(out.data(), sizes, std::make_index_sequence<R>{});
            lv::copy(e, dst);
            std::array<index_t, R> colmajor{};
            index_t acc = 1;
            for (std::size_t k = 0; k < R; ++k) {
                colmajor[k] = acc;
                acc *= sizes[k];
            }
            std::vector<float> readback(static_cast<std::size_t>(n > 0 ? n : 1));
            for_each_index(sizes, [&](std::array<index_t, R> const& idx, index_t flat) {
                index_t o = 0;
                for (std::size_t k = 0; k < R; ++k) o += idx[k] * colmajor[k];
                readback[static_cast<std::size_t>(flat)] = out[static_cast<std::size_t>(o)];
            });
            compare_values("copy(e, transposed dst)", n, values,
                           [&](index_t i) { return readback[static_cast<std::size_t>(i)]; });
        }
    }
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
