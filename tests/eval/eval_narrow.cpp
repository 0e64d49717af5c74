// Narrow transposes (eval/narrow.hpp): one group of 2 to 8 indices against a long one, split
// (interleaved -> planar, (N,C).t()) and merge (planar -> interleaved, (C,N).t()). Which plans
// take them, and their values for every group size and element size, with tails, outer loops,
// and past the streaming threshold into aligned and misaligned destinations. Where the target
// has no lanes for an element size or group size (narrow_takes), the same shapes test the tiles
// instead.
#include "eval_common.hpp"

namespace evaltest {
namespace {

// What narrow_transpose should say of a plan of E-byte elements, a narrow group of C, that fits `kind`.
lv::narrow_kind expected_kind(int E, index_t C, lv::narrow_kind kind)
{
    return lv::narrow_takes(E, C) ? kind : lv::narrow_kind::none;
}

// (N, C).t() and (C, N).t() of T, and with an outer loop, (B, N, C).permute(0, 2, 1) and
// (B, C, N).permute(0, 2, 1); `Pair`: T is the first of two elements kept together (a last dim
// of 2 that stays contiguous on both sides), so the kernel sees elements of 2 * sizeof(T).
template <class T, bool Pair = false>
void check_narrow(index_t N, index_t C)
{
    index_t const P = Pair ? 2 : 1;
    int const E = static_cast<int>(sizeof(T) * P);
    auto buf = make_buffer<T>(3 * N * C * P);
    T* p = buf.data();
    std::string const tag = std::to_string(E) + "-byte, N " + std::to_string(N) + ", C " + std::to_string(C);
    if constexpr (!Pair) {
        auto split = lv::from_blob(p, {N, C}).t();
        BOOST_TEST((lv::narrow_transpose(plan_of(split, sizeof(T))) == expected_kind(E, C, lv::narrow_kind::split)), tag);
        check_eval<T>(split, std::array<index_t, 2>{C, N}, [&](index_t f) { return p[f % N * C + f / N]; },
                      "split (N,C).t(), " + tag);
        auto merge = lv::from_blob(p, {C, N}).t();
        BOOST_TEST((lv::narrow_transpose(plan_of(merge, sizeof(T))) == expected_kind(E, C, lv::narrow_kind::merge)), tag);
        check_eval<T>(merge, std::array<index_t, 2>{N, C}, [&](index_t f) { return p[f % C * N + f / C]; },
                      "merge (C,N).t(), " + tag);
        auto bsplit = lv::from_blob(p, {3, N, C}).permute(0, 2, 1);
        check_eval<T>(bsplit, std::array<index_t, 3>{3, C, N},
                      [&](index_t f) {
                          index_t const n = f % N, c = f / N % C, b = f / (N * C);
                          return p[(b * N + n) * C + c];
                      },
                      "split (3,N,C).permute(0,2,1), " + tag);
        auto bmerge = lv::from_blob(p, {3, C, N}).permute(0, 2, 1);
        check_eval<T>(bmerge, std::array<index_t, 3>{3, N, C},
                      [&](index_t f) {
                          index_t const c = f % C, n = f / C % N, b = f / (N * C);
                          return p[(b * C + c) * N + n];
                      },
                      "merge (3,C,N).permute(0,2,1), " + tag);
    } else {
        auto split = lv::from_blob(p, {N, C, 2}).permute(1, 0, 2);
        BOOST_TEST((lv::narrow_transpose(plan_of(split, sizeof(T))) == expected_kind(E, C, lv::narrow_kind::split)), tag);
        check_eval<T>(split, std::array<index_t, 3>{C, N, 2},
                      [&](index_t f) {
                          index_t const k = f % 2, n = f / 2 % N, c = f / (2 * N);
                          return p[(n * C + c) * 2 + k];
                      },
                      "split (N,C,2).permute(1,0,2), " + tag);
        auto merge = lv::from_blob(p, {C, N, 2}).permute(1, 0, 2);
        BOOST_TEST((lv::narrow_transpose(plan_of(merge, sizeof(T))) == expected_kind(E, C, lv::narrow_kind::merge)), tag);
        check_eval<T>(merge, std::array<index_t, 3>{N, C, 2},
                      [&](index_t f) {
                          index_t const k = f % 2, c = f / 2 % C, n = f / (2 * C);
                          return p[(c * N + n) * 2 + k];
                      },
                      "merge (C,N,2).permute(1,0,2), " + tag);
    }
}

}  // namespace

// Which plans are narrow: fp32 where AVX-512 is compiled in, groups narrower than a tile with
// AVX2 (narrow_takes), else none.
BOOST_AUTO_TEST_CASE(narrow_choice)
{
    std::vector<float> in(1);
    float* p = in.data();
    auto const kind = [&](auto const& e) { return lv::narrow_transpose(plan_of(e, 4)); };
    BOOST_TEST((kind(lv::from_blob(p, {1000, 3}).t()) == expected_kind(4, 3, lv::narrow_kind::split)));
    BOOST_TEST((kind(lv::from_blob(p, {3, 1000}).t()) == expected_kind(4, 3, lv::narrow_kind::merge)));
    BOOST_TEST((kind(lv::from_blob(p, {1000, 2}).t()) == expected_kind(4, 2, lv::narrow_kind::split)));
    BOOST_TEST((kind(lv::from_blob(p, {8, 1000}).t()) == expected_kind(4, 8, lv::narrow_kind::merge)));
    BOOST_TEST((kind(lv::from_blob(p, {5, 1000, 3}).permute(0, 2, 1)) == expected_kind(4, 3, lv::narrow_kind::split)));
    // past narrow_max: whole tiles
    BOOST_TEST((kind(lv::from_blob(p, {1000, 9}).t()) == lv::narrow_kind::none));
    BOOST_TEST((kind(lv::from_blob(p, {16, 1000}).t()) == lv::narrow_kind::none));
    // the long group under a vector: (7,3).t() moves 28 bytes per row
    BOOST_TEST((kind(lv::from_blob(p, {7, 3}).t()) == lv::narrow_kind::none));
    // the narrow group's rows not adjacent in the source: (1000,3) of a (1000,4) buffer
    BOOST_TEST((kind(lv::from_blob(p, {1000, 4}).narrow(1, 0, 3).t()) == lv::narrow_kind::none));
    // two loops in the long group: (20,50,3).permute(2,0,1) reads rows of 3 back to back across
    // both, still one group of 1000 after coalescing; (20,50,3).permute(2,1,0) does not
    BOOST_TEST((kind(lv::from_blob(p, {20, 50, 3}).permute(2, 0, 1)) == expected_kind(4, 3, lv::narrow_kind::split)));
    BOOST_TEST((kind(lv::from_blob(p, {20, 50, 3}).permute(2, 1, 0)) == lv::narrow_kind::none));
}

// Every group size, every element size, a long group with a tail under a vector (N = 1037: 16
// vectors of fp32 and 13 elements).
BOOST_AUTO_TEST_CASE(narrow_values)
{
    for (index_t C = lv::narrow_min; C <= lv::narrow_max; ++C) {
        check_narrow<std::int8_t>(1037, C);
        check_narrow<std::uint16_t>(1037, C);
        check_narrow<float>(1037, C);
        check_narrow<double>(1037, C);
        check_narrow<double, true>(1037, C);
    }
    // a long group of exactly one vector, and one just under two
    check_narrow<float>(16, 3);
    check_narrow<float>(31, 5);
}

// Past the streaming threshold (12 MiB) into a destination 64-byte aligned and one element past
// that, at 1 and 2 threads, with sentinels either side: merge streams where the destination
// starts on a line, split wherever the target permutes lanes (AVX-512): its rows on lines
// vector by vector, off lines each line joined from two rounds (narrow_shifted_rows). Where
// neither, a split of 8 rows off lines is left to whole-line tiles, which stream it (nt_rows).
BOOST_AUTO_TEST_CASE(narrow_streamed)
{
    for (auto const& shape : {std::tuple{index_t{1100000}, index_t{3}, true}, std::tuple{index_t{1100003}, index_t{3}, true},
                              std::tuple{index_t{1100000}, index_t{3}, false}, std::tuple{index_t{430001}, index_t{8}, false},
                              std::tuple{index_t{430001}, index_t{8}, true}}) {
        index_t const N = std::get<0>(shape), C = std::get<1>(shape);
        bool const is_split = std::get<2>(shape);
        index_t const n = N * C;
        std::vector<std::int32_t> x(static_cast<std::size_t>(n));
        std::iota(x.begin(), x.end(), 0);
        std::int32_t const* xp = x.data();
        auto const e = is_split ? lv::from_blob(xp, {N, C}).t() : lv::from_blob(xp, {C, N}).t();
        std::array<index_t, 2> const out = is_split ? std::array<index_t, 2>{C, N} : std::array<index_t, 2>{N, C};
        auto const expected = [&](index_t f) {
            return is_split ? x[static_cast<std::size_t>(f % N * C + f / N)] : x[static_cast<std::size_t>(f % C * N + f / C)];
        };
        std::vector<std::int32_t> buf(static_cast<std::size_t>(n + 32));
        for (index_t const shift : {index_t{0}, index_t{1}}) {
            std::int32_t* const y0 = buf.data() + 16 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64 / 4;
            std::int32_t* const y = y0 + shift;
            std::string const what = std::string(is_split ? "split" : "merge") + " N " + std::to_string(N) +
                                     " C " + std::to_string(C) + " shift " + std::to_string(shift);
            lv::engine_plan ep = plan_of(e, 4);
            bool const tiles = lv::line_tiles_fit(ep);
            lv::use_streaming_stores(ep, y, n * 4);
            bool const lines = shift == 0 && (!is_split || N * 4 % 64 == 0);
            bool const shifted = lv::kernels::have_nt && !lv::narrow_bytes && lv::narrow_lane > 0 && is_split && !lines;
            // a split whose rows cannot stream goes to whole-line tiles where they fit (nt_rows)
            bool const vetoed = lv::kernels::have_nt && lv::narrow_takes(4, C) && is_split && !lines && tiles && !shifted;
            BOOST_TEST((lv::narrow_transpose(ep) ==
                        (vetoed ? lv::narrow_kind::none : expected_kind(4, C, is_split ? lv::narrow_kind::split : lv::narrow_kind::merge))),
                       what);
            if (lv::narrow_takes(4, C))
                BOOST_TEST(ep.nt == (lv::kernels::have_nt && !lv::narrow_bytes && (lines || vetoed || shifted)), what);
            for (unsigned th : {1u, 2u}) {
                std::fill(buf.begin(), buf.end(), -1);
                lv::copy(e, lv::from_blob(y, {out[0], out[1]}), lv::threads{th});
                index_t bad = 0;
                for (index_t i = 0; i < n; ++i) bad += y[i] != expected(i);
                BOOST_TEST(bad == 0, what << ", threads " << th);
                BOOST_TEST((y0[-1 + shift] == -1 && y[n] == -1), what << ": wrote outside");
            }
        }
    }
}

namespace {

// A split (N,C).t() of T past the streaming threshold whose destination rows start off lines (N
// odd), into rows back to back from a 64-byte aligned start and from one element past it, and
// into rows 5 elements apart (x.slice of a wider buffer); every byte of the buffer is compared,
// so the gaps and both ends must keep their sentinel. Where the target permutes lanes, the plan
// is the narrow split, streamed (narrow_shifted_rows).
template <class T>
void check_shifted_split(index_t C)
{
    index_t const E = sizeof(T);
    index_t const N = ((index_t{25} << 19) / (C * E)) | 1;  // 12.5 MiB of rows, off lines
    std::vector<T> x(static_cast<std::size_t>(N * C));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>((i * 2654435761u) >> 7);
    auto const e = lv::from_blob(x.data(), {N, C}).t();
    for (auto const& [gap, off] : {std::pair{index_t{0}, index_t{0}}, std::pair{index_t{0}, index_t{1}}, std::pair{index_t{5}, index_t{0}}}) {
        index_t const row = N + gap, span = C * row;
        std::string const what = std::to_string(E) + "-byte, C " + std::to_string(C) + ", N " + std::to_string(N) +
                                 ", gap " + std::to_string(gap) + ", start " + std::to_string(off);
        std::vector<T> buf(static_cast<std::size_t>(span + 128)), want;  // (room to align y, and past it)
        T* const y = buf.data() + (64 - reinterpret_cast<std::uintptr_t>(buf.data()) % 64) % 64 / E + off;
        index_t const at = y - buf.data();
        auto const dst = lv::from_blob(y, {C, row}).slice(1, 0, N);
        lv::engine_plan ep = plan_of(e, E);
        lv::use_streaming_stores(ep, y, span * E);
        if (lv::kernels::have_nt && lv::narrow_takes(static_cast<int>(E), C) && !lv::narrow_bytes && lv::narrow_lane > 0)
            BOOST_TEST((lv::narrow_transpose(ep) == lv::narrow_kind::split && ep.nt), what);
        for (unsigned th : {1u, 2u}) {
            std::memset(buf.data(), 0xA5, buf.size() * sizeof(T));
            want = buf;
            for (index_t c = 0; c < C; ++c)
                for (index_t n = 0; n < N; ++n) want[static_cast<std::size_t>(at + c * row + n)] = x[static_cast<std::size_t>(n * C + c)];
            lv::copy(e, dst, lv::threads{th});
            BOOST_TEST(std::memcmp(buf.data(), want.data(), buf.size() * sizeof(T)) == 0, what << ", threads " << th);
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(narrow_streamed_off_lines)
{
    for (index_t const C : {index_t{3}, index_t{8}}) {
        check_shifted_split<std::uint8_t>(C);
        check_shifted_split<std::uint16_t>(C);
        check_shifted_split<std::int32_t>(C);
        check_shifted_split<double>(C);
    }
    for (index_t const C : {index_t{2}, index_t{5}, index_t{7}}) check_shifted_split<std::int32_t>(C);
}

}  // namespace evaltest
