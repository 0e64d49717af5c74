// Evaluation over element types: int8, uint16 (bf16 stand-in), float, double and a 3-byte struct,
// and runs of 16 and 32 bytes moved as wide elements.
// Layouts: transposes, stride 0 (expand), overlapping windows (unfold), slices with offsets,
// zero-size, const bases, misaligned base pointers (p + 1), and the FLUX pack chain.
#include "eval_common.hpp"

#include <boost/mpl/list.hpp>

namespace evaltest {
namespace {

using element_types = boost::mpl::list<std::int8_t, std::uint16_t, float, double, rgb>;

template <class T, std::size_t R>
void strided_case(strided<R> const& L, char const* name)
{
    auto buf = make_buffer<T>(L.span() + 2);
    auto e = blob(buf.data(), L);
    auto ref = reference(buf, L);
    check_eval<T>(e, L.sizes, [&](index_t i) { return ref[static_cast<std::size_t>(i)]; },
                  std::string(name) + ": " + L.str());
    // the same through a const base
    T const* cp = buf.data();
    auto ce = blob(cp, L);
    check_eval<T const>(ce, L.sizes, [&](index_t i) { return ref[static_cast<std::size_t>(i)]; },
                        std::string(name) + " (const base): " + L.str());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(strided_layouts, T, element_types)
{
    strided_case<T, 2>({{7, 13}, {1, 7}, 0}, "transpose");
    strided_case<T, 2>({{7, 13}, {1, 7}, 1}, "transpose, misaligned p + 1");
    strided_case<T, 3>({{3, 5, 7}, {1, 21, 3}, 0}, "permuted");
    strided_case<T, 2>({{4, 6}, {0, 1}, 0}, "expand rows (stride 0)");
    strided_case<T, 3>({{5, 3, 4}, {4, 0, 1}, 3}, "expand middle (stride 0) with offset");
    strided_case<T, 2>({{9, 1}, {1, 0}, 0}, "column, size-1 dim with stride 0");
    strided_case<T, 2>({{17, 4}, {1, 1}, 0}, "overlapping windows (stride < extent)");
    strided_case<T, 3>({{3, 4, 5}, {0, 0, 0}, 2}, "all stride 0 (one element)");
    strided_case<T, 2>({{3, 4}, {14, 3}, 5}, "sliced with steps and offset");
    strided_case<T, 3>({{3, 0, 4}, {4, 4, 1}, 0}, "zero-size");
    strided_case<T, 1>({{11}, {3}, 1}, "rank 1, stride 3, misaligned");
    strided_case<T, 1>({{1}, {1}, 0}, "single element");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(unfold_and_expand_ops, T, element_types)
{
    // unfold(0, 5, 3) of a 20-element vector: windows [3i, 3i+5)
    {
        auto buf = make_buffer<T>(21);
        auto e = lv::from_blob(buf.data() + 1, {20}).unfold(0, 5, 3);
        check_eval<T>(e, std::array<index_t, 2>{6, 5},
                      [&](index_t f) { return buf[static_cast<std::size_t>(1 + (f / 5) * 3 + f % 5)]; },
                      "from_blob(p + 1, {20}).unfold(0, 5, 3)");
    }
    // overlapping 2-D windows: unfold twice
    {
        auto buf = make_buffer<T>(7 * 9);
        auto e = lv::from_blob(buf.data(), {7, 9}).unfold(0, 3, 2).unfold(1, 4, 1);
        // sizes (3, 6, 3, 4): out[a, b, i, j] = in[2a + i, b + j]
        check_eval<T>(e, std::array<index_t, 4>{3, 6, 3, 4},
                      [&](index_t f) {
                          index_t const j = f % 4, i = (f / 4) % 3, b = (f / 12) % 6, a = f / 72;
                          return buf[static_cast<std::size_t>((2 * a + i) * 9 + b + j)];
                      },
                      "from_blob(p, {7, 9}).unfold(0, 3, 2).unfold(1, 4, 1)");
    }
    // expand of a column and a new leading dim (stride 0 twice)
    {
        auto buf = make_buffer<T>(5);
        auto e = lv::from_blob(buf.data(), {5, 1}).expand(3, 5, 7);
        check_eval<T>(e, std::array<index_t, 3>{3, 5, 7},
                      [&](index_t f) { return buf[static_cast<std::size_t>((f / 7) % 5)]; },
                      "from_blob(p, {5, 1}).expand(3, 5, 7)");
    }
    // expand then reshape (PyTorch copies; lazyview stays lazy) then transpose
    {
        auto buf = make_buffer<T>(4);
        auto e = lv::from_blob(buf.data(), {4, 1}).expand(4, 3).reshape(2, 6).t();
        // (4,3) expanded: value[r][c] = buf[r]; reshape (2,6): flat k = 6a + b -> r = k / 3; t(): (6,2)
        check_eval<T>(e, std::array<index_t, 2>{6, 2},
                      [&](index_t f) {
                          index_t const b = f / 2, a = f % 2;
                          return buf[static_cast<std::size_t>((6 * a + b) / 3)];
                      },
                      "from_blob(p, {4, 1}).expand(4, 3).reshape(2, 6).t()");
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(flux_pack_and_unpack, T, element_types)
{
    constexpr index_t B = 2, C = 3, H = 4, W = 6, h = H / 2, w = W / 2;
    auto buf = make_buffer<T>(B * C * H * W + 1);
    T* p = buf.data() + 1;  // misaligned on purpose
    auto pack = lv::from_blob(p, {B, C, H, W}).view(B, C, h, 2, w, 2).permute(0, 2, 4, 1, 3, 5).reshape(B, h * w, C * 4);
    // out[b, n, k], n = (ih, iw), k = (c, ph, pw) reads b*CHW + ih*2W + iw*2 + c*HW + ph*W + pw
    auto packed_at = [&](index_t f) {
        index_t const k = f % (C * 4), n = (f / (C * 4)) % (h * w), b = f / (C * 4 * h * w);
        index_t const c = k / 4, ph = (k / 2) % 2, pw = k % 2, ih = n / w, iw = n % w;
        return p[b * C * H * W + ih * 2 * W + iw * 2 + c * H * W + ph * W + pw];
    };
    check_eval<T>(pack, std::array<index_t, 3>{B, h * w, C * 4}, packed_at, "FLUX pack (2,3,4,6)");
    // unpack the packed values: round trip gives the input back
    auto packed = pack.contiguous();
    auto unpack = packed.view(B, h, w, C, 2, 2).permute(0, 3, 1, 4, 2, 5).reshape(B, C, H, W);
    check_eval<T>(unpack, std::array<index_t, 4>{B, C, H, W}, [&](index_t f) { return p[f]; }, "FLUX unpack of pack");
    // and the whole round trip as one lazy chain
    auto round = lv::from_blob(p, {B, C, H, W})
                     .view(B, C, h, 2, w, 2)
                     .permute(0, 2, 4, 1, 3, 5)
                     .reshape(B, h * w, C * 4)
                     .view(B, h, w, C, 2, 2)
                     .permute(0, 3, 1, 4, 2, 5)
                     .reshape(B, C, H, W);
    check_eval<T>(round, std::array<index_t, 4>{B, C, H, W}, [&](index_t f) { return p[f]; }, "FLUX pack+unpack chain");
}

// Runs kept whole by a permutation are wide elements: (a,b,c).permute(1,0,2) moves c of T at a
// time, 16 and 32 bytes here, which AVX-512 transposes in 4 x 4 and 2 x 2 tiles of 128- and
// 256-bit lanes (wide_micro.hpp). Sides shorter than a tile (elements one at a time), tails that
// move the last tile back, one and several work units, and destinations at every offset into a
// line (the tiles after the first shift to whole lines where rows share an offset).
BOOST_AUTO_TEST_CASE(wide_elements_in_tiles)
{
#if defined(__AVX512F__)
    BOOST_TEST(lv::kernels::tile_of(16) == 4);
    BOOST_TEST(lv::kernels::tile_of(32) == 2);
#endif
    auto run = [&]<class T>(T, index_t a, index_t b, index_t c) {
        auto buf = make_buffer<T>(a * b * c);
        T const* x = buf.data();
        auto e = lv::from_blob(x, {a, b, c}).permute(1, 0, 2);
        auto at = [&](index_t f) { return x[((f % (a * c)) / c * b + f / (a * c)) * c + f % c]; };
        std::string const what = "(" + std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) +
                                 ").permute(1,0,2) of " + std::to_string(sizeof(T) * c) + "-byte elements";
        check_eval<T>(e, std::array<index_t, 3>{b, a, c}, at, what);
        index_t const n = a * b * c;
        for (index_t off = 0; off < 64 / static_cast<index_t>(sizeof(T)); ++off) {
            std::vector<T> out(static_cast<std::size_t>(n + 64 / sizeof(T)), sentinel<T>());
            T* const d = out.data() + off;
            lv::copy(e, lv::from_blob(d, {b, a, c}), lv::threads{2});
            index_t bad = 0;
            for (index_t f = 0; f < n; ++f) bad += !(d[f] == at(f));
            BOOST_TEST(bad == 0, what << ", destination at +" << off << " elements: " << bad << " wrong");
            BOOST_TEST((out[static_cast<std::size_t>(off + n)] == sentinel<T>()), "copy wrote past the end");
        }
    };
    for (index_t c : {4, 8}) {  // fp32: 16 and 32 bytes
        run(float{}, 3, 3, c);
        run(float{}, 37, 29, c);
        run(float{}, 5, 300, c);
        run(float{}, 300, 5, c);
        run(float{}, 64, 64, c);
        run(float{}, 131, 67, c);
    }
    run(double{}, 41, 23, 2);     // 16 bytes
    run(double{}, 2, 9, 4);       // 32 bytes, A shorter than a tile
    run(float{}, 200, 150, 4);    // 469 KiB: units split along A
    // a rank-4 permutation whose groups both join two dims: (6,10,7,4).permute(2,0,1,3)
    auto buf = make_buffer<float>(6 * 10 * 7 * 4);
    float const* x = buf.data();
    auto p = lv::from_blob(x, {6, 10, 7, 4}).permute(2, 0, 1, 3);
    check_eval<float>(p, std::array<index_t, 4>{7, 6, 10, 4},
                      [&](index_t f) {
                          index_t const k = f % 4, j = (f / 4) % 10, i = (f / 40) % 6, h = f / 240;
                          return x[((i * 10 + j) * 7 + h) * 4 + k];
                      },
                      "(6,10,7,4).permute(2,0,1,3) of 16-byte elements");
}

}  // namespace
}  // namespace evaltest
