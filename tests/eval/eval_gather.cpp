// Rows gathered at a constant source stride of K = 2, 3 or 4 elements into a unit-stride
// destination (x.slice(d, o, n, K), u8 (H,W,3).select(2,c); kernels::gather_row where the target
// has byte shuffles, move_row elsewhere): every element size gathered (1, 2 and 4 bytes) and two
// that are not (8, four to a store with a row's last four overlapping the step before, and 3),
// lengths on both sides of each step (64, 32 and 16 bytes of destination) and of the tail, one
// long loop and rows apart, split over threads. The source ends at the last element read, before an
// unmapped page, so a step that reads its window past that faults.
#include "eval_common.hpp"

#include <boost/mpl/list.hpp>

namespace evaltest {
namespace {

using gathered_types = boost::mpl::list<std::int8_t, std::uint16_t, float, double, rgb>;

#if defined(LAZYVIEW_TEST_GUARD_PAGES)

// f.template operator()<N>() for the element size N = E of these cases (1, 2, 4, 8; else rgb's 3)
template <class F>
int of_size(index_t E, F f)
{
    switch (E) {
        case 1: return f.template operator()<1>();
        case 2: return f.template operator()<2>();
        case 4: return f.template operator()<4>();
        case 8: return f.template operator()<8>();
        default: return f.template operator()<3>();
    }
}

// rows x n elements, element (r, i) read from x[r * W + o + i * K], W = n * K + pad (pad 0: the
// rows coalesce into one loop of rows * n).
template <class T>
void gather_case(index_t rows, index_t n, index_t K, index_t o, index_t pad)
{
    constexpr index_t E = sizeof(T);
    index_t const W = n * K + pad, N = rows * n;
    index_t const src_n = (rows - 1) * W + o + (n - 1) * K + 1;  // up to the last element read
    guarded_bytes src(src_n * E);
    T* const x = reinterpret_cast<T*>(src.data());
    for (index_t i = 0; i < src_n; ++i) x[i] = value_at<T>(i);
    auto const e = lv::from_blob(static_cast<T const*>(x), {rows, W}).slice(1, o, o + (n - 1) * K + 1, K);
    std::string const what = std::to_string(E) + "-byte (" + std::to_string(rows) + "," + std::to_string(W) +
                             ").slice(1," + std::to_string(o) + ",_," + std::to_string(K) + "), " +
                             std::to_string(n) + " a row";
    lv::engine_plan const ep = plan_of(e, E);
    // the plan these cases are for (a row of two or more): a strided loop of single elements,
    // unit stride in the destination and K apart in the source (rgb: 3 bytes, gathered by none)
    if (n >= 2) {
        BOOST_TEST((ep.kind == lv::engine_plan::strided && ep.elem == E && ep.inner.ds == E && ep.inner.ss == K * E),
                   what << ": plan kind " << int(ep.kind) << ", inner (" << ep.inner.n << "):(" << ep.inner.ss << "):("
                        << ep.inner.ds << ")");
        int const gathered = of_size(E, [&]<int N>() { return lv::kernels::gather_stride<N>(ep.inner); });
        BOOST_TEST(gathered == (lv::kernels::gathers(E) ? K : 0), what << ": gather_stride " << gathered);
    }
    std::vector<T> buf(static_cast<std::size_t>(N + 2));
    T* const y = buf.data() + 1;
    for (unsigned th : {1u, 2u}) {
        std::fill(buf.begin(), buf.end(), sentinel<T>());
        lv::copy(e, lv::from_blob(y, {rows, n}), lv::threads{th});
        index_t bad = 0, first = -1;
        for (index_t r = 0; r < rows; ++r)
            for (index_t i = 0; i < n; ++i)
                if (!(y[r * n + i] == x[r * W + o + i * K]) && bad++ == 0) first = r * n + i;
        BOOST_TEST(bad == 0, what << ", threads " << th << ": " << bad << " differ, first at " << first);
        BOOST_TEST((y[-1] == sentinel<T>() && y[N] == sentinel<T>()), what << ", threads " << th << ": wrote outside");
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(rows_gathered_at_a_constant_stride, T, gathered_types)
{
    constexpr index_t E = sizeof(T);
    // every length through two 64-byte steps (AVX-512), a 32-byte one, a 16-byte one and the
    // tail, then long rows
    std::vector<index_t> lengths;
    for (index_t n = 1; n <= 2 * 64 / E + 32 / E + 16 / E + 5; ++n) lengths.push_back(n);
    for (index_t n : {1000, 4099}) lengths.push_back(n);
    for (index_t K : {2, 3, 4})
        for (index_t n : lengths) {
            gather_case<T>(1, n, K, 0, 0);
            gather_case<T>(3, n, K, K - 1, 1);  // rows one element apart past their last
        }
    // a loop cut into pieces (split_strided) that two threads share, a range starting mid-row,
    // and rows that do so
    gather_case<T>(1, 20001, 3, 1, 0);
    gather_case<T>(7, 4000 / E + 3, 2, 1, 5);
}

// The mirror: a contiguous (rows, n) into y[:, o::K] of rows x W elements, W = n * K + pad: a
// strided plan unit stride in the source and K apart in the destination (kernels::scatter_row
// where the target permutes the element's lanes, move_row elsewhere). Every element of y
// outside the view (between the view's, the gaps, the ends) must keep its sentinel.
template <class T>
void scatter_case(index_t rows, index_t n, index_t K, index_t o, index_t pad)
{
    constexpr index_t E = sizeof(T);
    index_t const W = n * K + pad, N = rows * W;
    guarded_bytes src(rows * n * E);  // ends at the last element read
    T* const x = reinterpret_cast<T*>(src.data());
    for (index_t i = 0; i < rows * n; ++i) x[i] = value_at<T>(i);
    std::vector<T> buf(static_cast<std::size_t>(N + 2));
    T* const y = buf.data() + 1;
    auto const e = lv::from_blob(static_cast<T const*>(x), {rows, n});
    auto const to = lv::from_blob(y, {rows, W}).slice(1, o, o + (n - 1) * K + 1, K);
    std::string const what = std::to_string(E) + "-byte (" + std::to_string(rows) + "," + std::to_string(n) +
                             ") into (" + std::to_string(rows) + "," + std::to_string(W) + ").slice(1," +
                             std::to_string(o) + ",_," + std::to_string(K) + ")";
    if (n >= 2) {
        lv::engine_plan const ep = plan_into(e, to, E);
        BOOST_TEST((ep.kind == lv::engine_plan::strided && ep.elem == E && ep.inner.ss == E && ep.inner.ds == K * E),
                   what << ": plan kind " << int(ep.kind) << ", inner (" << ep.inner.n << "):(" << ep.inner.ss << "):("
                        << ep.inner.ds << ")");
        int const scattered = of_size(E, [&]<int N>() { return lv::kernels::scatter_stride<N>(ep.inner); });
        BOOST_TEST(scattered == (lv::kernels::lane_permutes(E) ? K : 0), what << ": scatter_stride " << scattered);
    }
    for (unsigned th : {1u, 2u}) {
        std::fill(buf.begin(), buf.end(), sentinel<T>());
        lv::copy(e, to, lv::threads{th});
        index_t bad = 0, first = -1, clobbered = 0;
        for (index_t r = 0; r < rows; ++r)
            for (index_t i = 0; i < n; ++i)
                if (!(y[r * W + o + i * K] == x[r * n + i]) && bad++ == 0) first = r * n + i;
        for (index_t k = -1; k <= N; ++k) {
            index_t const c = k >= 0 ? k % W : -1;
            bool const in_view = k >= 0 && k < N && c >= o && (c - o) % K == 0 && (c - o) / K < n;
            clobbered += !in_view && !(y[k] == sentinel<T>());
        }
        BOOST_TEST(bad == 0, what << ", threads " << th << ": " << bad << " differ, first at " << first);
        BOOST_TEST(clobbered == 0, what << ", threads " << th << ": " << clobbered << " elements outside the view written");
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(rows_scattered_at_a_constant_stride, T, gathered_types)
{
    constexpr index_t E = sizeof(T);
    // every length through two 64-byte source steps and the tail, then long rows
    for (index_t K : {2, 3, 4})
        for (index_t n = 1; n <= 2 * 64 / E + 5; ++n) {
            scatter_case<T>(1, n, K, 0, 0);
            scatter_case<T>(3, n, K, K - 1, 1);  // rows one element apart past their last
        }
    for (index_t K : {2, 3, 4}) {
        scatter_case<T>(1, 4099, K, 1, 0);
        scatter_case<T>(1, 20001, K, 0, 0);  // pieces that two threads share
        scatter_case<T>(7, 4000 / E + 3, K, 1, 5);
    }
}

// rows x n cells of 4 elements, W elements from row to row (W >= 4 n), of which x[..., o:o+3]
// (o = 0, 1) into (rows, n, 3): a strided plan of 3-element wide elements 4 apart
// (kernels::compact_row: a line of source cells a step with AVX-512; 1-, 2- and 4-byte T where
// the target has byte shuffles, 8-byte ones everywhere).
template <class T>
void cells_case(index_t rows, index_t n, index_t o, index_t W)
{
    constexpr index_t E = sizeof(T);
    index_t const N = rows * n * 3;
    index_t const src_n = (rows - 1) * W + (n - 1) * 4 + o + 3;  // up to the last element read
    guarded_bytes src(src_n * E);
    T* const x = reinterpret_cast<T*>(src.data());
    for (index_t i = 0; i < src_n; ++i) x[i] = value_at<T>(i);
    auto const e = lv::from_blob(static_cast<T const*>(x), {rows, n, index_t{4}}, {W, index_t{4}, index_t{1}})
                       .slice(2, o, o + 3);
    std::string const what = std::to_string(E) + "-byte (" + std::to_string(rows) + "," + std::to_string(n) +
                             ",4)[..., " + std::to_string(o) + ":" + std::to_string(o + 3) + "], rows " +
                             std::to_string(W) + " apart";
    if (n >= 2) {
        lv::engine_plan const ep = plan_of(e, E);
        BOOST_TEST((ep.kind == lv::engine_plan::strided && ep.elem == 3 * E && ep.inner.ds == 3 * E &&
                    ep.inner.ss == 4 * E),
                   what << ": plan kind " << int(ep.kind) << ", elem " << ep.elem << ", inner (" << ep.inner.n
                        << "):(" << ep.inner.ss << "):(" << ep.inner.ds << ")");
    }
    std::vector<T> buf(static_cast<std::size_t>(N + 2));
    T* const y = buf.data() + 1;
    for (unsigned th : {1u, 2u}) {
        std::fill(buf.begin(), buf.end(), sentinel<T>());
        lv::copy(e, lv::from_blob(y, {rows, n, index_t{3}}), lv::threads{th});
        index_t bad = 0, first = -1;
        for (index_t r = 0; r < rows; ++r)
            for (index_t i = 0; i < n * 3; ++i)
                if (!(y[r * n * 3 + i] == x[r * W + i / 3 * 4 + o + i % 3]) && bad++ == 0) first = r * n * 3 + i;
        BOOST_TEST(bad == 0, what << ", threads " << th << ": " << bad << " differ, first at " << first);
        BOOST_TEST((y[-1] == sentinel<T>() && y[N] == sentinel<T>()), what << ", threads " << th << ": wrote outside");
    }
}

using cell_types = boost::mpl::list<std::int8_t, std::uint16_t, float, double>;

// The other way: a contiguous (rows, n, 3) into y[..., o:o+3] of rows x n cells of 4 elements,
// W elements from row to row: a strided plan of 3-element wide elements written 4 apart
// (kernels::expand_row: by lane permutes and masked stores with AVX-512, else four cells a step for
// 1-byte T, one element a move for the others). Every element
// of y outside the view (each cell's fourth, the gaps between rows, the ends) must keep its
// sentinel: another thread may be writing those (the alpha plane).
template <class T>
void expand_case(index_t rows, index_t n, index_t o, index_t W)
{
    constexpr index_t E = sizeof(T);
    index_t const N = (rows - 1) * W + 4 * n;
    guarded_bytes src(rows * n * 3 * E);  // ends at the last element read
    T* const x = reinterpret_cast<T*>(src.data());
    for (index_t i = 0; i < rows * n * 3; ++i) x[i] = value_at<T>(i);
    std::vector<T> buf(static_cast<std::size_t>(N + 2));
    T* const y = buf.data() + 1;
    auto const e = lv::from_blob(static_cast<T const*>(x), {rows, n, index_t{3}});
    auto const to = lv::from_blob(y, {rows, n, index_t{4}}, {W, index_t{4}, index_t{1}}).slice(2, o, o + 3);
    std::string const what = std::to_string(E) + "-byte (" + std::to_string(rows) + "," + std::to_string(n) +
                             ",3) into [..., " + std::to_string(o) + ":" + std::to_string(o + 3) + "] of cells of 4, rows " +
                             std::to_string(W) + " apart";
    if (n >= 2) {
        lv::engine_plan const ep = plan_into(e, to, E);
        BOOST_TEST((ep.kind == lv::engine_plan::strided && ep.elem == 3 * E && ep.inner.ss == 3 * E &&
                    ep.inner.ds == 4 * E),
                   what << ": plan kind " << int(ep.kind) << ", elem " << ep.elem << ", inner (" << ep.inner.n
                        << "):(" << ep.inner.ss << "):(" << ep.inner.ds << ")");
    }
    for (unsigned th : {1u, 2u}) {
        std::fill(buf.begin(), buf.end(), sentinel<T>());
        lv::copy(e, to, lv::threads{th});
        index_t bad = 0, first = -1, clobbered = 0;
        for (index_t r = 0; r < rows; ++r)
            for (index_t i = 0; i < n * 3; ++i)
                if (!(y[r * W + i / 3 * 4 + o + i % 3] == x[(r * n) * 3 + i]) && bad++ == 0) first = r * n * 3 + i;
        for (index_t k = -1; k <= N; ++k) {
            index_t const r = k / W, c = k % W;
            bool const in_view = k >= 0 && r < rows && c < 4 * n && c % 4 >= o && c % 4 < o + 3;
            clobbered += !in_view && !(y[k] == sentinel<T>());
        }
        BOOST_TEST(bad == 0, what << ", threads " << th << ": " << bad << " differ, first at " << first);
        BOOST_TEST(clobbered == 0, what << ", threads " << th << ": " << clobbered << " elements outside the view written");
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(first_three_of_four_expanded, T, cell_types)
{
    // every length through a few steps of 4 cells and the tail, and through two lines of
    // destination cells and the tail (AVX-512: 64 / (4 E) cells a step)
    for (index_t n = 1; n <= std::max<index_t>(13, 2 * 64 / (4 * index_t{sizeof(T)}) + 5); ++n)
        for (index_t o : {0, 1}) {
            expand_case<T>(1, n, o, 4 * n);
            expand_case<T>(3, n, o, 4 * n + 2);  // rows apart
        }
    expand_case<T>(1, 4099, 1, 4 * 4099);
    expand_case<T>(1, 20001, 0, 4 * 20001);  // split into pieces over 2 threads
    expand_case<T>(5, 1500, 1, 4 * 1500 + 1);
}

// Which expanding plans write their cells by lines (kernels::masked_stores): those whose
// destination spans less than masked_stores_below, past which stores under a mask ran slower,
// but under the zen4 tuning, where they ran faster at every size.
BOOST_AUTO_TEST_CASE(cells_expanded_by_lines_below_a_size)
{
    auto const plan = [](auto const* x, auto* y, index_t n) {
        auto const e = lv::from_blob(x, {n, index_t{3}});
        return plan_into(e, lv::from_blob(y, {n, index_t{4}}).slice(1, 0, 3), sizeof(*x));
    };
    std::vector<std::uint8_t> const xb(3 * (index_t{1} << 20));
    std::vector<std::uint8_t> yb(4 * (index_t{1} << 20));
    std::vector<float> const xf(3 * (index_t{1} << 20));
    std::vector<float> yf(4 * (index_t{1} << 20));
    for (lv::tuning t : {lv::tuning::zen, lv::tuning::zen3, lv::tuning::intel, lv::tuning::zen4}) {
        tuning_scope const scope(t);
        BOOST_TEST_CONTEXT("tuning " << int(t))
        {
            BOOST_TEST(lv::kernels::masked_stores(plan(xb.data(), yb.data(), index_t{1} << 20)));  // 4 MiB
            BOOST_TEST(lv::kernels::masked_stores(plan(xf.data(), yf.data(), index_t{1} << 18)));  // 4 MiB
            BOOST_TEST(lv::kernels::masked_stores(plan(xf.data(), yf.data(), index_t{1} << 20)) ==
                       (t == lv::tuning::zen4));  // 16 MiB
        }
    }
}

// Under the zen4 tuning, scatters and expansions past masked_stores_below store under a mask too
// (and elsewhere one by one): destinations of 16 MiB, the elements between never written, on 1
// and 2 threads.
BOOST_AUTO_TEST_CASE(large_strided_destinations_under_zen4_and_zen)
{
    for (lv::tuning t : {lv::tuning::zen4, lv::tuning::zen}) {
        tuning_scope const scope(t);
        BOOST_TEST_CONTEXT("tuning " << int(t))
        {
            scatter_case<float>(1366, 1024, 3, 1, 0);           // one loop of 1398784
            scatter_case<std::uint16_t>(2049, 2048, 2, 1, 3);  // rows 3 elements apart past their last
            expand_case<float>(1, 1048577, 1, 4 * 1048577);
        }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(first_three_of_four_compacted, T, cell_types)
{
    // every length through two 64-byte source steps (AVX-512, each storing 16 bytes past its
    // own, hence the 16 / E cells), two 32-byte ones, a 16-byte one and the tail
    constexpr index_t E = sizeof(T);
    for (index_t n = 1; n <= 2 * 64 / (4 * E) + 16 / E + 2 * 32 / (4 * E) + 16 / (4 * E) + 5; ++n)
        for (index_t o : {0, 1}) {
            cells_case<T>(1, n, o, 4 * n);
            cells_case<T>(3, n, o, 4 * n + 2);  // rows apart
        }
    cells_case<T>(1, 4099, 1, 4 * 4099);
    cells_case<T>(1, 20001, 0, 4 * 20001);  // split into pieces over 2 threads
    cells_case<T>(5, 1500, 1, 4 * 1500 + 1);
}

#endif

}  // namespace
}  // namespace evaltest
