// Shared helpers of the evaluation tests (tests/eval): element types, value patterns, and a
// checker that compares contiguous() and copy() of an expression with a plain reference loop over
// the sizes/strides given to from_blob.
#pragma once

#include <lazyview/lazyview.hpp>

#include <boost/test/unit_test.hpp>

#include "../common/shape_text.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <numeric>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if __has_include(<sys/mman.h>) && __has_include(<unistd.h>)
#include <sys/mman.h>
#include <unistd.h>
#define LAZYVIEW_TEST_GUARD_PAGES 1
#endif

namespace evaltest {

namespace lv = lazyview;
using index_t = std::int64_t;

// A 3-byte element (e.g. packed RGB): no padding, alignment 1, not a power-of-two size.
struct rgb {
    std::uint8_t r, g, b;
    friend bool operator==(rgb const&, rgb const&) = default;
    friend std::ostream& operator<<(std::ostream& os, rgb const& v)
    {
        return os << '(' << int(v.r) << ',' << int(v.g) << ',' << int(v.b) << ')';
    }
};
static_assert(sizeof(rgb) == 3 && alignof(rgb) == 1);

// Plans made while it lives follow tuning `t` (eval/cpu_tuning.hpp); the one before returns after.
struct tuning_scope {
    lv::tuning before = lv::current_tuning();
    explicit tuning_scope(lv::tuning t) { lv::set_tuning(t); }
    tuning_scope(tuning_scope const&) = delete;
    tuning_scope& operator=(tuning_scope const&) = delete;
    ~tuning_scope() { lv::set_tuning(before); }
};

// The engine plan of copying `e` into a row-major destination, as `elem`-byte elements, before
// any hint about memory (use_streaming_stores).
lv::engine_plan plan_of(auto const& e, index_t elem)
{
    return lv::make_engine_plan(lv::contiguous_plan(lv::physical(lv::fold(e))), elem);
}

// The engine plan of copying `e` into the view `to`, as `elem`-byte elements.
lv::engine_plan plan_into(auto const& e, auto const& to, index_t elem)
{
    return lv::make_engine_plan(lv::make_plan(lv::physical(lv::fold(e)), lv::fold(to)), elem);
}

// plan_of as a copy of `bytes` into a row-major destination at `dst` on `nthreads` threads takes
// it: streamed where use_streaming_stores says so.
lv::engine_plan streamed_plan_of(auto const& e, index_t elem, void const* dst, index_t bytes, unsigned nthreads = 1)
{
    lv::engine_plan p = plan_of(e, elem);
    lv::use_streaming_stores(p, dst, bytes, nthreads);
    return p;
}

// The side of a tile of `E`-byte elements, restated from the engine's rule rather than read from
// it (lv::unit_tile_side), so that a change to the rule fails the tests that use this: micro<E>'s
// register tile, and for 8-byte elements the greatest of that, AVX-512's whole-line tile and 4.
// Example: E = 4 -> 16 with AVX-512, 8 with AVX2, 4 with SSE2; E = 8 -> 8 with AVX-512, else 4.
inline index_t tile_side_of(int E)
{
    return E == 8 ? std::max<index_t>({lv::kernels::tile_of(8), lv::kernels::line_tile_of(8), 4}) : lv::kernels::tile_of(E);
}

// A distinct-ish value for position i of a buffer, for every element type under test.
template <class T>
T value_at(index_t i)
{
    if constexpr (std::is_same_v<T, rgb>)
        return rgb{static_cast<std::uint8_t>(i), static_cast<std::uint8_t>(i >> 8), static_cast<std::uint8_t>(i * 7 + 1)};
    else if constexpr (std::is_same_v<T, std::int8_t>)
        // (the high bits mixed in: rows of a multiple of 256 bytes would otherwise all read alike,
        // and a byte transpose that swapped rows would pass)
        return static_cast<std::int8_t>(static_cast<std::uint8_t>((i * 37 + 11) ^ ((i >> 8) * 151) ^ (i >> 16)));
    else if constexpr (std::is_same_v<T, std::uint16_t>)
        return static_cast<std::uint16_t>((i * 40503u) ^ (i >> 3));  // bf16 stand-in: any 16-bit pattern
    else if constexpr (std::is_same_v<T, float>)
        return static_cast<float>(i) + 0.5f;
    else
        return static_cast<T>(i) * 1.25 + 0.125;
}

template <class T>
T sentinel()
{
    if constexpr (std::is_same_v<T, rgb>) return rgb{0xEE, 0xEE, 0xEE};
    else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(-12345.0);
    else return static_cast<T>(0x5A);
}

template <class T>
std::vector<T> make_buffer(index_t n)
{
    std::vector<T> v(static_cast<std::size_t>(std::max<index_t>(n, 1)));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = value_at<T>(static_cast<index_t>(i));
    return v;
}

using lazyview_test::fmt;
using lazyview_test::numel_of;

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

// sizes/strides/offset of a strided layout (element units) and the buffer length it needs
template <std::size_t R>
struct strided {
    std::array<index_t, R> sizes{};
    std::array<index_t, R> strides{};
    index_t offset = 0;

    index_t at(std::array<index_t, R> const& idx) const
    {
        index_t o = offset;
        for (std::size_t k = 0; k < R; ++k) o += idx[k] * strides[k];
        return o;
    }
    index_t span() const
    {
        index_t hi = offset;
        for (std::size_t k = 0; k < R; ++k) {
            if (sizes[k] == 0) return offset + 1;
            hi += (sizes[k] - 1) * strides[k];
        }
        return hi + 1;
    }
    std::string str() const { return "sizes " + fmt(sizes) + " strides " + fmt(strides) + " offset " + std::to_string(offset); }
};

template <class P, std::size_t R>
auto blob(P* p, strided<R> const& L)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return lv::from_blob(p + L.offset, {L.sizes[I]...}, {L.strides[I]...});
    }(std::make_index_sequence<R>{});
}

template <class P, std::size_t R>
auto blob_contiguous(P* p, std::array<index_t, R> const& s)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return lv::from_blob(p, {s[I]...});
    }(std::make_index_sequence<R>{});
}

// column-major destination over a contiguous buffer of the reversed sizes
template <class P, std::size_t R>
auto blob_transposed(P* p, std::array<index_t, R> const& s)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return lv::from_blob(p, {s[R - 1 - I]...}).permute(static_cast<index_t>(R - 1 - I)...);
    }(std::make_index_sequence<R>{});
}

// How many of got[0, n) differ from want[0, n) (operator==), and the first that does. Equal bytes
// are taken as equal values: one memcmp where the copy is right (no test value is a NaN).
template <class U>
index_t mismatches(U const* got, U const* want, index_t n, index_t& first)
{
    first = -1;
    if (n == 0 || std::memcmp(got, want, static_cast<std::size_t>(n) * sizeof(U)) == 0) return 0;
    index_t bad = 0;
    for (index_t i = 0; i < n; ++i)
        if (!(got[i] == want[i])) {
            if (bad++ == 0) first = i;
        }
    return bad;
}

// Reads the elements of the strided layout sizes:strides (in elements) at `base` in row-major
// order into seen[0, numel), and sets touched[offset] for each where `touched` is given. (An
// odometer over plain arrays: the sanitizer build's -O0 makes every std::array access a call.)
template <class U, std::size_t R>
void read_strided(U const* base, std::array<index_t, R> const& sizes, std::array<index_t, R> const& strides, U* seen,
                  char* touched)
{
    index_t const n = numel_of(sizes);
    index_t sz[R + 1], st[R + 1], idx[R + 1] = {};
    for (std::size_t k = 0; k < R; ++k) {
        sz[k] = sizes[k];
        st[k] = strides[k];
    }
    index_t o = 0;
    for (index_t flat = 0; flat < n; ++flat) {
        seen[flat] = base[o];
        if (touched) touched[o] = 1;
        for (std::size_t k = R; k-- > 0;) {
            o += st[k];
            if (++idx[k] < sz[k]) break;
            o -= idx[k] * st[k];
            idx[k] = 0;
        }
    }
}

// check_eval's assertions, outside the template: a Boost.Test assertion in it was instantiated
// again for every expression, element type and rank it checks (eval_types.cpp, 65 of them:
// 80 s to compile at -O2 on a 2-core Zen 3 VM, 54 s with no assertions at all).
inline void expect(bool ok, std::string const& message) { BOOST_TEST(ok, message); }

inline void expect_text(char const* what, std::string const& got, std::string const& want)
{
    BOOST_TEST(got == want, what << ": " << got << ", expected " << want);
}

// `bad` of the n elements of a copy differ, the first at flat index `first`; `threads`, where
// given (>= 0), is what the copy asked for.
inline void expect_no_mismatch(char const* where, index_t bad, index_t n, index_t first, int threads = -1)
{
    BOOST_TEST(bad == 0, where << (threads < 0 ? "" : ", threads{" + std::to_string(threads) + "}") << ": " << bad
                               << " of " << n << " elements differ, first at flat " << first);
}

// Checks contiguous() and copy() of `e` against expected(flat) for row-major flat indices.
//   - contiguous(): sizes, values, 64-byte alignment of the owning tensor;
//   - copy into a contiguous destination with threads{1}, {2}, {0};
//   - copy into a column-major destination and into a destination with gaps and a misaligned
//     (p + 1) start; the gaps must stay untouched.
template <class T, std::size_t R, class E, class Expected>
void check_eval(E& e, std::array<index_t, R> const& sizes, Expected&& expected, std::string const& what)
{
    BOOST_TEST_CONTEXT(what)
    {
        std::array<index_t, R> got = e.sizes();
        expect_text("e.sizes()", fmt(got), fmt(sizes));
        if (got != sizes) return;
        index_t const n = numel_of(sizes);
        using U = std::remove_const_t<T>;
        // expected(flat) once per element, not once per destination below: in the sanitizer
        // build (-O0) its index arithmetic cost more than the copies it checks, six times over
        std::vector<U> want(static_cast<std::size_t>(n));
        U* const w = want.data();
        for (index_t i = 0; i < n; ++i) w[i] = expected(i);
        {
            auto t = e.contiguous();
            static_assert(std::is_same_v<std::remove_cvref_t<decltype(*t.data())>, U>);
            std::array<index_t, R> ts = t.sizes();
            expect_text("contiguous().sizes()", fmt(ts), fmt(sizes));
            if (n > 0) {
                expect(reinterpret_cast<std::uintptr_t>(t.data()) % 64 == 0u, "tensor storage must be 64-byte aligned");
                index_t first = -1;
                index_t const bad = mismatches(t.data(), want.data(), n, first);
                expect_no_mismatch("contiguous()", bad, n, first);
            }
        }
        for (unsigned th : {1u, 2u, 0u}) {
            std::vector<U> out(static_cast<std::size_t>(n + 1), sentinel<U>());
            auto dst = blob_contiguous(out.data(), sizes);
            if (th == 1) lv::copy(e, dst);
            else lv::copy(e, dst, lv::threads{th});
            index_t first = -1;
            index_t const bad = mismatches(out.data(), want.data(), n, first);
            expect_no_mismatch("copy(e, contiguous dst)", bad, n, first, static_cast<int>(th));
            expect(out[static_cast<std::size_t>(n)] == sentinel<U>(), "copy wrote past the end");
        }
        {
            std::vector<U> out(static_cast<std::size_t>(std::max<index_t>(n, 1)), sentinel<U>());
            auto dst = blob_transposed(out.data(), sizes);
            lv::copy(e, dst, lv::threads{2});
            std::array<index_t, R> cm{};
            index_t acc = 1;
            for (std::size_t k = 0; k < R; ++k) {
                cm[k] = acc;
                acc *= sizes[k];
            }
            std::vector<U> seen(static_cast<std::size_t>(n));
            read_strided(out.data(), sizes, cm, seen.data(), nullptr);
            index_t first = -1;
            index_t const bad = mismatches(seen.data(), want.data(), n, first);
            expect_no_mismatch("copy(e, column-major dst)", bad, n, first);
        }
        {
            // gaps: every dim padded by one element, start at p + 1
            strided<R> D;
            D.sizes = sizes;
            std::array<index_t, R> padded = sizes;
            for (auto& v : padded) v += 1;
            D.strides = contiguous_strides(padded);
            D.offset = 1;
            std::vector<U> out(static_cast<std::size_t>(numel_of(padded) + 1), sentinel<U>());
            auto dst = blob(out.data(), D);
            lv::copy(e, dst);
            std::vector<char> touched(out.size(), 0);
            std::vector<U> seen(static_cast<std::size_t>(n));
            read_strided(out.data() + D.offset, sizes, D.strides, seen.data(), touched.data() + D.offset);
            index_t first = -1;
            index_t const bad = mismatches(seen.data(), want.data(), n, first);
            expect_no_mismatch("copy(e, padded misaligned dst)", bad, n, first);
            index_t clobbered = 0;
            U const* o = out.data();
            char const* t = touched.data();
            for (std::size_t i = 0; i < out.size(); ++i)
                if (!t[i] && !(o[i] == sentinel<U>())) ++clobbered;
            expect(clobbered == 0, "copy wrote " + std::to_string(clobbered) + " elements outside the destination view");
        }
    }
}

// The reference for a plain strided view: expected(flat) = buf[L.at(unravel(flat))].
template <class T, std::size_t R>
auto reference(std::vector<T> const& buf, strided<R> const& L)
{
    std::vector<T> ref;
    ref.reserve(static_cast<std::size_t>(numel_of(L.sizes)));
    for_each_index(L.sizes, [&](std::array<index_t, R> const& idx, index_t) {
        ref.push_back(buf[static_cast<std::size_t>(L.at(idx))]);
    });
    return ref;
}

/// Copies into `rows` destination rows of A elements of R bytes that lie an element apart (a
/// buffer of rows x (A + 1) x R bytes, viewed by copy_into), and checks each row's bytes
/// against expected(flat index of the copy's result) and that the element after each row
/// stays as it was: odd-sized elements spill into the next element but a row's last.
template <class Copy, class F>
void check_rows_apart(index_t rows, index_t A, index_t R, Copy&& copy_into, F const& expected, std::string const& what)
{
    std::vector<std::int8_t> out(static_cast<std::size_t>(rows * (A + 1) * R), sentinel<std::int8_t>());
    copy_into(out.data());
    index_t wrong = 0, clobbered = 0;
    for (index_t row = 0; row < rows; ++row)
        for (index_t k = 0; k < (A + 1) * R; ++k) {
            std::int8_t const v = out[static_cast<std::size_t>(row * (A + 1) * R + k)];
            if (k < A * R)
                wrong += v != expected(row * A * R + k);
            else
                clobbered += v != sentinel<std::int8_t>();
        }
    BOOST_TEST((wrong == 0 && clobbered == 0),
               what << " into rows apart: " << wrong << " wrong, " << clobbered << " bytes between rows written");
}

/// from_blob(x, sizes).permute(perm) of T (int32 unless given) past 12 MiB copied at 1 and 2
/// threads (each thread's range starting and ending mid-line) into a destination `shift`
/// elements past a 64-byte aligned start, for each of `shifts` (an aligned one and one element
/// off a line unless given), against the index map; `plan_ok(plan)` or `plan_ok(plan, shift)`
/// says whether the engine plan for each destination is the one meant. Nothing outside the
/// destination may change.
template <std::size_t R, class Pred, class T = std::int32_t>
void check_streamed_permute(std::array<index_t, R> const& sizes, std::array<index_t, R> const& perm,
                            char const* what, Pred plan_ok, T = {},
                            std::initializer_list<index_t> shifts = {0, 1})
{
    constexpr index_t E = sizeof(T);
    index_t n = 1;
    for (index_t s : sizes) n *= s;
    std::vector<T> x(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(i * 2654435761u);
    auto const e = [&]<std::size_t... I>(std::index_sequence<I...>) {
        return lv::from_blob(static_cast<T const*>(x.data()), {sizes[I]...}).permute(perm[I]...);
    }(std::make_index_sequence<R>{});
    std::array<index_t, R> out{}, st{}, out_st{};
    index_t acc = 1;
    for (std::size_t k = R; k-- > 0;) st[k] = acc, acc *= sizes[k];
    for (std::size_t k = 0; k < R; ++k) {
        out[k] = sizes[static_cast<std::size_t>(perm[k])];
        out_st[k] = st[static_cast<std::size_t>(perm[k])];
    }
    std::vector<T> want(static_cast<std::size_t>(n));  // the index map, read once for all copies
    read_strided(x.data(), out, out_st, want.data(), nullptr);
    std::vector<T> buf(static_cast<std::size_t>(n + 128 / E));
    T const unset = static_cast<T>(-1);
    for (index_t const shift : shifts) {
        // a 64-byte aligned start (past the buffer's first line), then `shift` elements past it
        T* const y0 = buf.data() + (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) / E;
        T* const y = y0 + shift;
        auto const dst = [&]<std::size_t... I>(std::index_sequence<I...>) {
            return lv::from_blob(y, {out[I]...});
        }(std::make_index_sequence<R>{});
        lv::engine_plan const ep = streamed_plan_of(e, E, y, n * E);
        if constexpr (std::is_invocable_v<Pred, lv::engine_plan const&, index_t>)
            BOOST_TEST(plan_ok(ep, shift), what << ", " << E << "-byte, shift " << shift);
        else
            BOOST_TEST(plan_ok(ep), what << ", " << E << "-byte, shift " << shift);
        for (unsigned th : {1u, 2u}) {
            std::fill(buf.begin(), buf.end(), unset);
            lv::copy(e, dst, lv::threads{th});
            index_t first = -1;
            index_t const bad = mismatches(y, want.data(), n, first);
            BOOST_TEST(bad == 0, what << ", " << E << "-byte, shift " << shift << ", threads " << th << ": " << bad
                                      << " differ, first at " << first);
            BOOST_TEST((y[-1] == unset && y[n] == unset), what << " shift " << shift << ": wrote outside");
        }
    }
}

#if defined(LAZYVIEW_TEST_GUARD_PAGES)
// Bytes that end on the last one before an unmapped page, so that a read or write past them
// faults (a std::vector's slack would hide it outside AddressSanitizer builds).
class guarded_bytes {
public:
    explicit guarded_bytes(index_t n)
    {
        auto const page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        len_ = (static_cast<std::size_t>(n) + page - 1) / page * page + page;
        void* m = mmap(nullptr, len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        BOOST_REQUIRE(m != MAP_FAILED);
        base_ = static_cast<char*>(m);
        BOOST_REQUIRE(mprotect(base_ + len_ - page, page, PROT_NONE) == 0);
        p_ = reinterpret_cast<std::int8_t*>(base_ + len_ - page - static_cast<std::size_t>(n));
    }
    guarded_bytes(guarded_bytes const&) = delete;
    guarded_bytes& operator=(guarded_bytes const&) = delete;
    ~guarded_bytes() { munmap(base_, len_); }
    std::int8_t* data() const { return p_; }

private:
    char* base_ = nullptr;
    std::size_t len_ = 0;
    std::int8_t* p_ = nullptr;
};

#endif

}  // namespace evaltest
