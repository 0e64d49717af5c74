// The PyTorch-oracle test executable: this TU holds the Boost.Test module and oracle::report(),
// the comparison of every success case with torch's answer; the cases are in generated/*.cpp
// (tests/oracle/gen.py, from torch 1.13).
#define BOOST_TEST_MODULE oracle
#include <boost/test/unit_test.hpp>

// The one TU that compiles the engine (CMakeLists.txt builds the oracle with LAZYVIEW_SEPARATE_ENGINE).
#define LAZYVIEW_ENGINE_IMPLEMENTATION
#include <lazyview/lazyview.hpp>

#include "oracle_check.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

// PyTorch IndexError -> lazyview::index_error, RuntimeError -> lazyview::shape_error.
static_assert(std::is_base_of_v<std::out_of_range, lazyview::index_error>);
static_assert(std::is_base_of_v<std::invalid_argument, lazyview::shape_error>);
static_assert(!std::is_base_of_v<lazyview::index_error, lazyview::shape_error>);
static_assert(!std::is_base_of_v<lazyview::shape_error, lazyview::index_error>);

namespace oracle {
namespace {

using lazyview_test::fmt;

// strides with the entries of size-1 dims replaced by '*' (PyTorch leaves them arbitrary, and the
// mission allows lazyview to differ there)
std::string fmt_strides(std::span<const index_t> st, std::span<const index_t> sz)
{
    std::ostringstream os;
    os << '[';
    for (std::size_t i = 0; i < st.size(); ++i) {
        os << (i ? ", " : "");
        if (sz[i] == 1) os << '*';
        else os << st[i];
    }
    os << ']';
    return os.str();
}

// The row-major multi-index of `flat` in `sizes`.
std::vector<index_t> unravel(index_t flat, std::span<const index_t> sizes)
{
    std::vector<index_t> idx(sizes.size());
    for (std::size_t k = sizes.size(); k-- > 0;) {
        idx[k] = flat % sizes[k];
        flat /= sizes[k];
    }
    return idx;
}

// Compares produced values against torch's; reports the first mismatches (by multi-index where
// `at_index`, else by flat position).
void compare_values(char const* what, std::vector<float> const& got, torch_answer const& t, bool at_index)
{
    index_t const n = static_cast<index_t>(got.size());
    index_t bad = 0;
    std::ostringstream first;
    for (index_t i = 0; i < n; ++i) {
        float const g = got[static_cast<std::size_t>(i)];
        float const x = static_cast<float>(t.values[static_cast<std::size_t>(i)]);
        if (g != x) {
            if (bad < 4) {
                if (at_index) first << " at " << fmt(unravel(i, t.sizes)) << " got " << g << " expected " << x << ';';
                else first << " [" << i << "] got " << g << " expected " << x << ';';
            }
            ++bad;
        }
    }
    BOOST_TEST(bad == 0, what << ": " << bad << " of " << n << (at_index ? " elements" : " values") << " differ:" << first.str());
}

}  // namespace

void report(observed const& o, torch_answer const& t)
{
    BOOST_TEST_CONTEXT("torch: " << t.chain)
    {
        BOOST_TEST(o.dim == static_cast<index_t>(t.sizes.size()));
        BOOST_TEST(fmt(o.sizes) == fmt(t.sizes));
        if (!o.sizes_match) return;  // nothing below is meaningful
        index_t const n = std::accumulate(t.sizes.begin(), t.sizes.end(), index_t{1}, std::multiplies<>{});
        for (std::size_t d = 0; d < t.sizes.size(); ++d)
            BOOST_TEST(o.size_of[d] == t.sizes[d], "size(" << d << ") = " << o.size_of[d] << ", expected " << t.sizes[d]);
        BOOST_TEST(o.numel == n);
        BOOST_TEST(o.is_view == t.is_view);
        BOOST_TEST(o.is_contiguous == t.is_contiguous);
        if (t.is_view && o.is_view) {
            BOOST_TEST(fmt_strides(o.strides, t.sizes) == fmt_strides(t.strides, t.sizes));
            if (o.has_offset)
                BOOST_TEST(o.offset == t.offset, "offset &e(0,...) - p: got " << o.offset << ", expected " << t.offset);
        }
        compare_values("e(i...)", o.at, t, true);
        BOOST_TEST(fmt(o.contiguous_sizes) == fmt(t.sizes), "contiguous().sizes()");
        if (o.contiguous_sizes.size() == t.sizes.size() && std::equal(t.sizes.begin(), t.sizes.end(), o.contiguous_sizes.begin()))
            compare_values("contiguous()", o.contiguous, t, false);
        compare_values("copy(e, contiguous dst)", o.copied, t, false);
        compare_values("copy(e, transposed dst)", o.copied_transposed, t, false);
    }
}

}  // namespace oracle
