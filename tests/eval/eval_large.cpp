// Evaluation at sizes where blocking, vectorisation and threading matter (odd sizes so no path is
// a multiple of a vector width), with threads{1}, {2} and {0}; the owning tensor; copy errors.
#include "eval_common.hpp"

namespace evaltest {
namespace {

template <class T>
void transpose_case(index_t rows, index_t cols, index_t base_off)
{
    auto buf = make_buffer<T>(rows * cols + base_off);
    T* p = buf.data() + base_off;
    auto e = lv::from_blob(p, {rows, cols}).t();
    check_eval<T>(e, std::array<index_t, 2>{cols, rows},
                  [&](index_t f) { return p[(f % rows) * cols + f / rows]; },
                  "transpose " + std::to_string(rows) + "x" + std::to_string(cols) + " at p + " + std::to_string(base_off));
}

// A strided plan with no outer loop, split into `pieces` work units (split_strided): any split of
// its units into two ranges writes each element once, the first range (cut.n * k / U) of the
// rows or elements it cuts, and together they write what copy() does.
template <class T, class E, std::size_t R, class Expected>
void strided_pieces_case(E const& e, std::array<index_t, R> const& out, index_t pieces, Expected&& expected,
                         std::string const& what)
{
    BOOST_TEST_CONTEXT(what)
    {
        index_t const N = numel_of(out);
        std::vector<T> dst(static_cast<std::size_t>(N + 1)), fresh(static_cast<std::size_t>(N + 1));
        T* const d = dst.data() + 1;  // one element past the vector's alignment
        auto const plan = lv::make_plan(lv::physical(lv::fold(e)), lv::physical(lv::fold(lv::from_blob(d, out))));
        lv::engine_plan const ep = lv::make_engine_plan(plan, sizeof(T));
        BOOST_TEST((ep.kind == lv::engine_plan::strided && ep.nouter == 0));
        BOOST_TEST(ep.work_units() == pieces);
        lv::byte_loop const cut = ep.inner2.n > 1 ? ep.inner2 : ep.inner;
        std::vector<T> want(static_cast<std::size_t>(N));
        for (index_t f = 0; f < N; ++f) want[static_cast<std::size_t>(f)] = expected(f);
        char const* const src = reinterpret_cast<char const*>(e.base());
        index_t const U = ep.work_units();
        auto written = [&](std::vector<T> const& v) {
            index_t n = 0;
            // Clang 14 crashes in its x86 back end ("Cannot select: v8i64 = X86ISD::PCMPEQ") when
            // it vectorises this count of bytes into 64 bits under -mavx512f without -mavx512bw,
            // as std::count_if did in the eval_avx512 build (see transpose_mismatches in
            // eval_streaming.cpp). The count need not be fast.
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
            for (std::size_t i = 1; i < v.size(); ++i) n += !(v[i] == sentinel<T>());
            return n;
        };
        for (index_t k : {index_t{1}, U / 3 + 1, U / 2, U - 1}) {
            if (k <= 0 || k >= U) continue;
            index_t const first = cut.n * k / U * (N / cut.n);
            std::fill(dst.begin(), dst.end(), sentinel<T>());
            lv::run_engine(ep, src, reinterpret_cast<char*>(d), 0, k, nullptr, nullptr);
            BOOST_TEST(written(dst) == first, "split at " << k);
            std::fill(fresh.begin(), fresh.end(), sentinel<T>());
            lv::run_engine(ep, src, reinterpret_cast<char*>(fresh.data() + 1), k, U, nullptr, nullptr);
            BOOST_TEST(written(fresh) == N - first, "split at " << k);
            lv::run_engine(ep, src, reinterpret_cast<char*>(d), k, U, nullptr, nullptr);
            BOOST_TEST(std::equal(want.begin(), want.end(), d), "split at " << k);
            BOOST_TEST(dst[0] == sentinel<T>());
        }
        check_eval<T>(e, out, expected, what);
    }
}

// FLUX pack of (1,C,H,W): x.view(1,C,H/2,2,W/2,2).permute(0,2,4,1,3,5).reshape(1,(H/2)*(W/2),C*4).
template <class T>
void flux_pack_case(index_t C, index_t H, index_t W)
{
    index_t const h = H / 2, w = W / 2;
    auto buf = make_buffer<T>(C * H * W);
    T* p = buf.data();
    auto e = lv::from_blob(p, {1, C, H, W}).view(1, C, h, 2, w, 2).permute(0, 2, 4, 1, 3, 5).reshape(1, h * w, C * 4);
    check_eval<T>(e, std::array<index_t, 3>{1, h * w, C * 4},
                  [&](index_t f) {
                      index_t const k = f % (C * 4), n = f / (C * 4);
                      index_t const c = k / 4, ph = (k / 2) % 2, pw = k % 2, ih = n / w, iw = n % w;
                      return p[c * H * W + (2 * ih + ph) * W + 2 * iw + pw];
                  },
                  "FLUX pack (1," + std::to_string(C) + "," + std::to_string(H) + "," + std::to_string(W) + ")");
}

BOOST_AUTO_TEST_CASE(large_transposes)
{
    transpose_case<float>(257, 131, 0);
    transpose_case<float>(512, 384, 1);
    transpose_case<double>(97, 1003, 0);
    transpose_case<std::int8_t>(300, 77, 1);
    transpose_case<std::uint16_t>(129, 255, 1);
    transpose_case<rgb>(61, 67, 1);
}

BOOST_AUTO_TEST_CASE(flux_pack_fp32_and_bf16_standin)
{
    flux_pack_case<float>(16, 64, 48);
    flux_pack_case<std::uint16_t>(16, 64, 48);
}

BOOST_AUTO_TEST_CASE(in_place_slices_of_b)
{
    // In place, where destination rows are evenly spaced, tiles sweep B in slices of about
    // in_place_slice_bytes of destination: B here spans two whole slices and a tail (shorter than
    // a tile, or joined to the slice before), so every slice boundary and the last short tile run,
    // at every thread count. FLUX pack of (1,16,4,W) (A = 32 pairs: 256-byte rows of 8-byte
    // elements, 128 of 4-byte ones), and (40,N).t() of 1- to 8-byte elements, from the start of
    // the source buffer and from one element past it.
    auto pack = [&]<class T>(T, index_t tail) {
        index_t const row = 16 * 4 * static_cast<index_t>(sizeof(T));  // bytes of a destination row
        flux_pack_case<T>(16, 4, 2 * (2 * (lv::in_place_slice_bytes / row) + tail));
    };
    for (index_t tail : {3, 5, 11}) {
        pack(float{}, tail);
        pack(std::uint16_t{}, tail);
    }
    auto t = [&]<class T>(T, index_t tail) {
        constexpr index_t rows = 40;
        index_t const cols = 2 * (lv::in_place_slice_bytes / (rows * static_cast<index_t>(sizeof(T)))) + tail;
        transpose_case<T>(rows, cols, 0);
        transpose_case<T>(rows, cols, 1);
    };
    for (index_t tail : {3, 7}) {
        t(std::uint8_t{}, tail);
        t(std::uint16_t{}, tail);
        t(float{}, tail);
        t(double{}, tail);
    }
}

BOOST_AUTO_TEST_CASE(in_place_slices_of_aliased_rows)
{
    // Destination rows a multiple of cache_set_span apart take slices of aliased_slice_rows rows
    // of the unit; others, in_place_slice_bytes.
    BOOST_TEST(lv::in_place_slice_of(4096, 1024) == lv::aliased_slice_rows * 1024);
    BOOST_TEST(lv::in_place_slice_of(3 * 4096, 512) == lv::aliased_slice_rows * 512);
    BOOST_TEST(lv::in_place_slice_of(4096, 4096) == lv::in_place_slice_bytes);  // 8 rows would exceed it
    BOOST_TEST(lv::in_place_slice_of(4000, 1024) == lv::in_place_slice_bytes);
    BOOST_TEST(lv::in_place_slice_of(2048, 1024) == lv::in_place_slice_bytes);
    BOOST_TEST(lv::in_place_slice_of(0, 1024) == lv::in_place_slice_bytes);
    // Such transposes with B two slices and a tail long: fp32 rows of 1024 elements (register
    // tiles under AVX2, whole-line ones under AVX-512), and rows of 256 16- and 32-byte elements
    // (AVX-512's wide tiles; fp32 runs of 4 and 8 kept whole), from the start of the source
    // buffer and from one element past it.
    for (index_t tail : {3, 5}) {
        index_t const b = 2 * lv::aliased_slice_rows + tail;
        transpose_case<float>(1024, b, 0);
        transpose_case<float>(1024, b, 1);
        for (index_t c : {4, 8}) {
            index_t const a = 256;
            auto buf = make_buffer<float>(a * b * c + 1);
            for (index_t off : {0, 1}) {
                float const* x = buf.data() + off;
                auto e = lv::from_blob(x, {a, b, c}).permute(1, 0, 2);
                check_eval<float>(e, std::array<index_t, 3>{b, a, c},
                                  [&](index_t f) { return x[((f % (a * c)) / c * b + f / (a * c)) * c + f % c]; },
                                  "(256," + std::to_string(b) + "," + std::to_string(c) + ").permute(1,0,2) at x + " +
                                      std::to_string(off));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(transposes_into_destinations_at_every_offset)
{
    // The tile grid shifts along A so that tile rows land aligned in the destination: every
    // start offset of the destination within a 64-byte line, fp32 and a 2-byte type, with tails
    // in both A and B (FLUX pack (1,16,12,40): A = 32 wide elements, B = 20).
    constexpr index_t C = 16, H = 12, W = 40, h = H / 2, w = W / 2, n = C * H * W;
    auto run = [&]<class T>(T) {
        auto buf = make_buffer<T>(n);
        T const* x = buf.data();
        auto e = lv::from_blob(x, {1, C, H, W}).view(1, C, h, 2, w, 2).permute(0, 2, 4, 1, 3, 5).reshape(1, h * w, C * 4);
        for (index_t off = 0; off < 64 / static_cast<index_t>(sizeof(T)); ++off) {
            std::vector<T> out(static_cast<std::size_t>(n + 64), sentinel<T>());
            T* const d = out.data() + off;
            lv::copy(e, lv::from_blob(d, {1, h * w, C * 4}));
            index_t bad = 0;
            for (index_t f = 0; f < n; ++f) {
                index_t const k = f % (C * 4), m = f / (C * 4);
                index_t const c = k / 4, ph = (k / 2) % 2, pw = k % 2, ih = m / w, iw = m % w;
                bad += !(d[f] == x[c * H * W + (2 * ih + ph) * W + 2 * iw + pw]);
            }
            BOOST_TEST(bad == 0, "destination at +" << off << " elements: " << bad << " wrong");
            BOOST_TEST((out[static_cast<std::size_t>(off + n)] == sentinel<T>()), "copy wrote past the end");
        }
    };
    run(float{});
    run(std::uint16_t{});
}

BOOST_AUTO_TEST_CASE(agents_example)
{
    // actions (42, 50, 6) -> reshape(6, 7, 50, 6).permute(0, 2, 1, 3).reshape(6, 50, -1)
    auto buf = make_buffer<float>(42 * 50 * 6);
    float* p = buf.data();
    auto e = lv::from_blob(p, {42, 50, 6}).reshape(6, 7, 50, 6).permute(0, 2, 1, 3).reshape(6, 50, -1);
    check_eval<float>(e, std::array<index_t, 3>{6, 50, 42},
                      [&](index_t f) {
                          // out[g, a, (s, k)] = in[g*7 + s, a, k]
                          index_t const sk = f % 42, a = (f / 42) % 50, g = f / (42 * 50);
                          return p[((g * 7 + sk / 6) * 50 + a) * 6 + sk % 6];
                      },
                      "agents (42,50,6)");
}

BOOST_AUTO_TEST_CASE(short_runs_of_every_length_class)
{
    // (37, 29, R) -> (29, 37, R) in int8: each run of R bytes is one element moved by two
    // overlapping moves (R in 3..63), or a loop of a power-of-two element (R in 65..256); the
    // transposed pair (37, 29) is blocked even where no tile kernel exists (R >= 16, odd R).
    for (index_t R : {3, 5, 6, 7, 9, 12, 15, 16, 17, 24, 31, 32, 33, 48, 63, 65, 96, 255}) {
        auto buf = make_buffer<std::int8_t>(37 * 29 * R + 1);
        std::int8_t* p = buf.data() + 1;
        auto e = lv::from_blob(p, {37, 29, R}).permute(1, 0, 2);
        check_eval<std::int8_t>(e, std::array<index_t, 3>{29, 37, R},
                                [&](index_t f) {
                                    index_t const k = f % R, i = (f / R) % 37, j = f / (R * 37);
                                    return p[(i * 29 + j) * R + k];
                                },
                                "int8 (37,29," + std::to_string(R) + ").permute(1,0,2)");
    }
}

BOOST_AUTO_TEST_CASE(odd_elements_in_short_rows)
{
    // Odd-sized elements (kernels::transpose_block_odd): each but a destination row's last moves
    // as one power-of-two move that spills into the next element of its row, written next; rows
    // back to back (the agents chain's form) spill into the next row too, but the unit's last.
    // int8 (3, A, B, R).permute(0, 2, 1, 3), R of 3 to 56 bytes, rows of A = 1 to 12 (up to 8
    // run unrolled, offsets in registers): values (check_eval), and into destination rows an
    // element apart, whose gaps must stay as they were. (A, B1, B2, R).permute(1, 2, 0, 3): the group B
    // of two loops, rows addressed by their table.
    for (index_t R : {3, 5, 6, 12, 20, 24, 40, 56})
        for (index_t A : {1, 2, 3, 5, 7, 8, 9, 12})
            for (index_t B : {1, 4, 33}) {
                constexpr index_t G = 3;
                auto buf = make_buffer<std::int8_t>(G * A * B * R + 1);
                std::int8_t* p = buf.data() + 1;
                auto e = lv::from_blob(p, {G, A, B, R}).permute(0, 2, 1, 3);
                auto const expected = [&](index_t f) {
                    index_t const r = f % R, a = (f / R) % A, b = (f / (R * A)) % B, g = f / (R * A * B);
                    return p[((g * A + a) * B + b) * R + r];
                };
                std::string const what =
                    "int8 (3," + std::to_string(A) + "," + std::to_string(B) + "," + std::to_string(R) + ").permute(0,2,1,3)";
                check_eval<std::int8_t>(e, std::array<index_t, 4>{G, B, A, R}, expected, what);
                check_rows_apart(
                    G * B, A, R,
                    [&](std::int8_t* out) { lv::copy(e, lv::from_blob(out, {G, B, A + 1, R}).narrow(2, 0, A)); },
                    expected, what);
            }
    for (index_t R : {6, 24})
        for (index_t A : {3, 7, 12}) {
            constexpr index_t B1 = 3, B2 = 5;
            auto buf = make_buffer<std::int8_t>(A * B1 * B2 * R);
            std::int8_t* p = buf.data();
            auto e = lv::from_blob(p, {A, B1, B2, R}).permute(1, 2, 0, 3);
            check_eval<std::int8_t>(e, std::array<index_t, 4>{B1, B2, A, R},
                                    [&](index_t f) {
                                        index_t const r = f % R, a = (f / R) % A, b = f / (R * A);
                                        return p[(a * B1 * B2 + b) * R + r];
                                    },
                                    "int8 (" + std::to_string(A) + ",3,5," + std::to_string(R) + ").permute(1,2,0,3)");
        }
}

#if defined(LAZYVIEW_TEST_GUARD_PAGES)
BOOST_AUTO_TEST_CASE(odd_elements_at_the_end_of_memory)
{
    // Odd-sized elements are read a power of two at a time only where their source row goes on
    // past them (B's last element is read exactly), and the last element a unit writes is
    // written exactly: a source and a destination that each end before an unmapped page, in
    // place ((3,7,50,24) and (2,5,40,13) int8) and streamed ((4,7,19000,24): 12.2 MiB), on 1
    // and 2 threads. In these, each destination row's last element comes from the source row
    // last in memory, and is read exactly anyway; so:
    struct odd_case {
        index_t G, A, B, R;
    };
    for (odd_case const c : {odd_case{3, 7, 50, 24}, odd_case{2, 5, 40, 13}, odd_case{4, 7, 19000, 24}}) {
        index_t const n = c.G * c.A * c.B * c.R;
        guarded_bytes src(n), dst(n);
        std::int8_t* const p = src.data();
        for (index_t i = 0; i < n; ++i) p[i] = value_at<std::int8_t>(i);
        auto e = lv::from_blob(static_cast<std::int8_t const*>(p), {c.G, c.A, c.B, c.R}).permute(0, 2, 1, 3);
        for (unsigned th : {1u, 2u}) {
            std::fill(dst.data(), dst.data() + n, std::int8_t{0});
            lv::copy(e, lv::from_blob(dst.data(), {c.G, c.B, c.A, c.R}), lv::threads{th});
            index_t bad = 0;
            for (index_t f = 0; f < n; ++f) {
                index_t const r = f % c.R, a = (f / c.R) % c.A, b = (f / (c.R * c.A)) % c.B, g = f / (c.R * c.A * c.B);
                bad += dst.data()[f] != p[((g * c.A + a) * c.B + b) * c.R + r];
            }
            BOOST_TEST(bad == 0, "(" << c.G << "," << c.A << "," << c.B << "," << c.R << ") threads " << th);
        }
    }
    // Source rows of A that are one row (stride 0): the last row in memory ends every
    // destination row, not only the last, and only B's last element is read exactly.
    // (1,B,24).expand(7,B,24).permute(1,0,2), in place (B = 50) and streamed (B = 80000:
    // 12.8 MiB written), on 1 and 2 threads.
    for (index_t const B : {50, 80000}) {
        constexpr index_t A = 7, R = 24;
        guarded_bytes src(B * R), dst(A * B * R);
        std::int8_t* const p = src.data();
        for (index_t i = 0; i < B * R; ++i) p[i] = value_at<std::int8_t>(i);
        auto e = lv::from_blob(static_cast<std::int8_t const*>(p), {1, B, R}).expand(A, B, R).permute(1, 0, 2);
        for (unsigned th : {1u, 2u}) {
            std::fill(dst.data(), dst.data() + A * B * R, std::int8_t{0});
            lv::copy(e, lv::from_blob(dst.data(), {B, A, R}), lv::threads{th});
            index_t bad = 0;
            for (index_t f = 0; f < A * B * R; ++f) bad += dst.data()[f] != p[f / (A * R) * R + f % R];
            BOOST_TEST(bad == 0, "(1," << B << ",24).expand(7," << B << ",24).permute(1,0,2) threads " << th);
        }
    }
}
#endif

BOOST_AUTO_TEST_CASE(long_runs_in_either_loop_order)
{
    // Runs over 256 bytes are copied whole; their outer loops go in source order unless that
    // keeps over 4x as many runs open as destination order. Both orders, checked for values and
    // for the order chosen. fp32, runs of 4 * R bytes.
    struct run_case {
        std::array<index_t, 4> sizes;
        std::array<int, 4> perm;
        bool source_order;
    };
    for (run_case const& c : {run_case{{1, 67, 16, 80}, {0, 2, 1, 3}, true},    // 16 scattered, 67 gathered
                              run_case{{1, 5, 200, 70}, {0, 2, 1, 3}, false},   // 200 scattered, 5 gathered
                              run_case{{3, 4, 5, 70}, {1, 2, 0, 3}, false},     // 20 scattered, 3 gathered
                              run_case{{3, 4, 5, 70}, {2, 0, 1, 3}, true},      // 5 scattered, 12 gathered
                              run_case{{1, 80, 60, 70}, {0, 2, 1, 3}, true},    // 1.3 MiB: prefetched
                              run_case{{1, 8, 600, 70}, {0, 2, 1, 3}, false}}) {   // 1.3 MiB, in order
        auto const& n = c.sizes;
        std::array<index_t, 4> const st{n[1] * n[2] * n[3], n[2] * n[3], n[3], 1};
        std::array<index_t, 4> out{};
        for (int k = 0; k < 4; ++k) out[static_cast<std::size_t>(k)] = n[static_cast<std::size_t>(c.perm[static_cast<std::size_t>(k)])];
        auto buf = make_buffer<float>(n[0] * st[0] + 1);
        float* p = buf.data() + 1;
        auto e = lv::from_blob(p, {n[0], n[1], n[2], n[3]}).permute(c.perm[0], c.perm[1], c.perm[2], c.perm[3]);
        std::string const what = "(" + std::to_string(n[1]) + "," + std::to_string(n[2]) + "," + std::to_string(n[3]) + ") permute " +
                                 std::to_string(c.perm[1]) + std::to_string(c.perm[2]) + std::to_string(c.perm[3]);
        check_eval<float>(e, out,
                          [&](index_t f) {
                              index_t o = 0;
                              for (int k = 3; k >= 0; --k) {
                                  auto const K = static_cast<std::size_t>(k);
                                  o += (f % out[K]) * st[static_cast<std::size_t>(c.perm[K])];
                                  f /= out[K];
                              }
                              return p[o];
                          },
                          what);
        std::vector<float> dst(static_cast<std::size_t>(numel_of(out)));
        auto const plan = lv::make_plan(lv::physical(lv::fold(e)),
                                        lv::physical(lv::fold(lv::from_blob(dst.data(), {out[0], out[1], out[2], out[3]}))));
        lv::engine_plan const ep = lv::make_engine_plan(plan, sizeof(float));
        BOOST_TEST_CONTEXT(what)
        {
            BOOST_TEST((ep.kind == lv::engine_plan::run && ep.run_bytes == 4 * n[3]));
            for (int k = 1; k < ep.nouter; ++k) {
                auto const& a = ep.outer[k - 1];
                auto const& b = ep.outer[k];
                BOOST_TEST((c.source_order ? std::abs(a.ss) > std::abs(b.ss) : std::abs(a.ds) > std::abs(b.ds)));
            }
            // Scattered writes past 1 MiB ask for the lines of the run two on ahead; writes in
            // order and small copies leave it to the hardware.
            auto const& in = ep.outer[ep.nouter - 1];
            bool const big = numel_of(out) * 4 >= lv::run_prefetch_threshold;
            BOOST_TEST(lv::run_prefetch_distance(ep) == (c.source_order && big ? 2 * in.ds : 0));
        }
    }
}

BOOST_AUTO_TEST_CASE(runs_split_into_pieces_for_threads)
{
    // Runs of two pages and more are work units of about a page each (engine_plan::run_pieces),
    // so that threads share a copy of few long runs, a contiguous one above all. A range of units
    // copies its pieces of each run as one, starting and ending on a line of the destination.
    struct run_case {
        std::array<index_t, 3> sizes;
        bool swap;       // permute(1, 0, 2), else contiguous: one run
        index_t pieces;  // per run
    };
    for (run_case const& c : {run_case{{1, 1, (index_t{1} << 18) + 3}, false, 256},  // 1 MiB + 12 bytes
                              run_case{{4, 3, 700}, false, 8},                       // 33600 bytes
                              run_case{{5, 3, 3000}, true, 2},                       // 15 runs of 12000 bytes
                              run_case{{2, 3, 2047}, true, 1}}) {                    // runs under two pages: whole
        auto const& n = c.sizes;
        std::array<index_t, 3> const out = c.swap ? std::array<index_t, 3>{n[1], n[0], n[2]} : n;
        auto buf = make_buffer<float>(n[0] * n[1] * n[2] + 1);
        float* const p = buf.data() + 1;
        auto const e = lv::from_blob(p, {n[0], n[1], n[2]}).permute(c.swap ? 1 : 0, c.swap ? 0 : 1, 2);
        std::string const what = "(" + std::to_string(n[0]) + "," + std::to_string(n[1]) + "," + std::to_string(n[2]) + ")" +
                                 (c.swap ? ".permute(1,0,2)" : "");
        index_t const N = numel_of(out), run = c.swap ? n[2] : N;  // elements per run
        std::vector<float> dst(static_cast<std::size_t>(N + 1));
        float* const d = dst.data() + 1;  // 4 bytes past a line, at most
        auto const plan = lv::make_plan(lv::physical(lv::fold(e)), lv::physical(lv::fold(lv::from_blob(d, {out[0], out[1], out[2]}))));
        lv::engine_plan const ep = lv::make_engine_plan(plan, sizeof(float));
        std::vector<float> want(static_cast<std::size_t>(N));
        lv::copy(e, lv::from_blob(want.data(), {out[0], out[1], out[2]}));
        BOOST_TEST_CONTEXT(what)
        {
            BOOST_TEST((ep.kind == lv::engine_plan::run && ep.run_bytes == 4 * run && ep.run_pieces == c.pieces));
            BOOST_TEST(ep.work_units() == N / run * c.pieces);
            // Splits of the units in two: the first range alone writes whole runs and a prefix of
            // one more that ends on a line of the destination; the second range the rest.
            index_t const U = ep.work_units();
            for (index_t k : {index_t{1}, U / 3 + 1, U / 2, U - 1}) {
                if (k <= 0 || k >= U) continue;
                std::fill(dst.begin(), dst.end(), -1.0f);
                lv::run_engine(ep, reinterpret_cast<char const*>(p), reinterpret_cast<char*>(d), 0, k, nullptr, nullptr);
                index_t whole = 0, partial = 0;
                for (index_t r = 0; r < N / run; ++r) {
                    float const* const at = d + r * run;
                    index_t w = 0;
                    while (w < run && at[w] != -1.0f) ++w;
                    index_t rest = 0;
                    for (index_t i = w; i < run; ++i) rest += at[i] != -1.0f;
                    BOOST_TEST(rest == 0, "split at " << k << ": run " << r << " written past a gap");
                    if (w == run) ++whole;
                    if (w > 0 && w < run) {
                        ++partial;
                        BOOST_TEST(reinterpret_cast<std::uintptr_t>(at + w) % 64 == 0u, "split at " << k << " ends mid-line");
                    }
                }
                BOOST_TEST(whole == k / c.pieces, "split at " << k);
                BOOST_TEST(partial == (k % c.pieces != 0 ? 1 : 0), "split at " << k);
                lv::run_engine(ep, reinterpret_cast<char const*>(p), reinterpret_cast<char*>(d), k, U, nullptr, nullptr);
                BOOST_TEST(std::equal(want.begin(), want.end(), d), "split at " << k);
                BOOST_TEST(dst[0] == -1.0f);
            }
            check_eval<float>(e, out,
                              [&](index_t f) {
                                  index_t const k = f % out[2], j = (f / out[2]) % out[1], i = f / (out[2] * out[1]);
                                  return c.swap ? p[(j * n[1] + i) * n[2] + k] : p[f];
                              },
                              what);
        }
    }
}

BOOST_AUTO_TEST_CASE(strided_plans_split_into_pieces_for_threads)
{
    // Copies with no unit stride on one side (engine_plan::strided) whose loops leave no outer
    // loop were one work unit, on one thread whatever threads{} asked; they are pieces of about a
    // page of destination (split_strided), along inner2's rows where it has two or more.
    {
        // every byte value but the sentinel's, so that the splits can count what they wrote
        std::vector<std::uint8_t> buf(1024 * 1025 * 3);
        for (std::size_t i = 0; i < buf.size(); ++i) {
            auto const v = static_cast<std::uint8_t>((i * 37 + 11) ^ (i >> 8));
            buf[i] = v == sentinel<std::uint8_t>() ? std::uint8_t{0} : v;
        }
        std::uint8_t const* const p = buf.data();
        // one loop of 1049600 elements 3 bytes apart; over 1 MiB, so check_eval's threads{2} splits it
        strided_pieces_case<std::uint8_t>(lv::from_blob(p, {1024, 1025, 3}).select(2, 1), std::array<index_t, 2>{1024, 1025}, 256,
                                          [&](index_t f) { return p[3 * f + 1]; }, "u8 (1024,1025,3).select(2,1)");
    }
    {
        auto buf = make_buffer<float>(37 * 2047);
        float const* const p = buf.data();
        // rows of 1023 elements 8 bytes apart: 36 pieces of 37 rows
        strided_pieces_case<float>(lv::from_blob(p, {37, 2047}).slice(1, 1, 2047, 2), std::array<index_t, 2>{37, 1023}, 36,
                                   [&](index_t f) { return p[f / 1023 * 2047 + 1 + 2 * (f % 1023)]; },
                                   "fp32 (37,2047).slice(1,1,2047,2)");
        // one loop of 9000 elements 8 bytes apart (3000 rows of 6 coalesce): 8 pieces
        strided_pieces_case<float>(lv::from_blob(p, {3000, 6}).slice(1, 0, 6, 2), std::array<index_t, 2>{3000, 3}, 8,
                                   [&](index_t f) { return p[2 * f]; }, "fp32 (3000,6).slice(1,0,6,2)");
        // 12-byte elements (runs of 3 floats, strided_loop_odd), one loop of 2000: 5 pieces
        strided_pieces_case<float>(lv::from_blob(p, {2000, 6}).slice(1, 0, 3), std::array<index_t, 2>{2000, 3}, 5,
                                   [&](index_t f) { return p[f / 3 * 6 + f % 3]; }, "fp32 (2000,6).slice(1,0,3)");
        // runs of 68 bytes cut into elements (kernels::strided_runs), 300 rows: 4 pieces
        strided_pieces_case<float>(lv::from_blob(p, {300, 40}).slice(1, 0, 17), std::array<index_t, 2>{300, 17}, 4,
                                   [&](index_t f) { return p[f / 17 * 40 + f % 17]; }, "fp32 (300,40).slice(1,0,17)");
    }
}

BOOST_AUTO_TEST_CASE(odd_element_rows_apart)
{
    // (2,40,20,4,10,14).permute(2,3,4,0,1,5) in fp32, 3.6 MB: elements of 14 floats (56 bytes,
    // no tile kernel), destination rows of a block apart, so each row's lines are asked for
    // ahead (prefetch_rows); values at 1 and 2 threads.
    std::array<index_t, 6> const n{2, 40, 20, 4, 10, 14};
    std::array<int, 6> const perm{2, 3, 4, 0, 1, 5};
    std::array<index_t, 6> out{};
    for (std::size_t k = 0; k < 6; ++k) out[k] = n[static_cast<std::size_t>(perm[k])];
    std::array<index_t, 6> const st = contiguous_strides(n);
    auto buf = make_buffer<float>(numel_of(n));
    float* p = buf.data();
    auto e = lv::from_blob(p, {n[0], n[1], n[2], n[3], n[4], n[5]}).permute(2, 3, 4, 0, 1, 5);
    check_eval<float>(e, out,
                      [&](index_t f) {
                          index_t o = 0;
                          for (std::size_t k = 6; k-- > 0;) {
                              o += (f % out[k]) * st[static_cast<std::size_t>(perm[k])];
                              f /= out[k];
                          }
                          return p[o];
                      },
                      "(2,40,20,4,10,14).permute(2,3,4,0,1,5)");
    lv::engine_plan const ep = plan_of(e, 4);
    BOOST_TEST((ep.kind == lv::engine_plan::transpose && ep.elem == 56 && lv::prefetch_rows(ep)));
    // Not asked for: in cache (358 KB), or rows back to back (one block of A, rows of B
    // adjacent: (26,78,20,10).permute(1,2,0,3), 1.6 MB of 40-byte elements).
    BOOST_TEST(!lv::prefetch_rows(plan_of(lv::from_blob(p, {2, 40, 20, 4, 1, 14}).permute(2, 3, 4, 0, 1, 5), 4)));
    lv::engine_plan const dense = plan_of(lv::from_blob(p, {26, 78, 20, 10}).permute(1, 2, 0, 3), 4);
    BOOST_TEST((dense.kind == lv::engine_plan::transpose && dense.elem == 40 && !lv::prefetch_rows(dense)));
}

BOOST_AUTO_TEST_CASE(transpose_source_prefetch)
{
    // (65,58,840).permute(2,1,0) in fp32, 12.7 MB: tiles of 8 source rows 194880 bytes apart,
    // each asked for transpose_prefetch_bytes ahead (transpose_prefetch_distance); values at
    // 1 and 2 threads.
    std::array<index_t, 3> const n{65, 58, 840};
    auto buf = make_buffer<float>(449 * 551 * 13);  // room for the plans below, which read nothing
    float* p = buf.data();
    auto e = lv::from_blob(p, {n[0], n[1], n[2]}).permute(2, 1, 0);
    check_eval<float>(e, std::array<index_t, 3>{840, 58, 65},
                      [&](index_t f) {
                          index_t const k = f % 65, j = f / 65 % 58, i = f / (65 * 58);
                          return p[(k * 58 + j) * 840 + i];
                      },
                      "(65,58,840).permute(2,1,0)");
    lv::engine_plan const ep = plan_of(e, 4);
    BOOST_TEST((ep.kind == lv::engine_plan::transpose && ep.ga[0].ss == 58 * 840 * 4));
    BOOST_TEST(lv::transpose_prefetch_distance(ep) == lv::transpose_prefetch_bytes);
    // Not asked for: within the last-level cache ((65,58,600), 9 MB), or source rows close
    // together (one stream the hardware follows: (449,551,13).permute(2,0,1), 12.9 MB, rows
    // 52 bytes apart).
    BOOST_TEST(lv::transpose_prefetch_distance(plan_of(lv::from_blob(p, {65, 58, 600}).permute(2, 1, 0), 4)) == 0);
    lv::engine_plan const close = plan_of(lv::from_blob(p, {449, 551, 13}).permute(2, 0, 1), 4);
    BOOST_TEST((close.kind == lv::engine_plan::transpose && close.ga[0].ss == 52));
    BOOST_TEST(lv::transpose_prefetch_distance(close) == 0);
}

BOOST_AUTO_TEST_CASE(group_offsets_digit_by_digit)
{
    // Every entry of a group's offset table is the sum over members (innermost first) of the
    // index's row-major digit times the member's stride on the side asked for: groups of one to
    // four members, sizes 1 to 7, strides of either sign, both sides.
    std::mt19937 rng(42);
    for (int trial = 0; trial < 300; ++trial) {
        int const ng = 1 + static_cast<int>(rng() % 4);
        lv::byte_loop g[4];
        index_t total = 1;
        for (int m = 0; m < ng; ++m) {
            g[m] = {1 + static_cast<index_t>(rng() % 7), static_cast<index_t>(rng() % 201) - 100,
                    static_cast<index_t>(rng() % 201) - 100};
            total *= g[m].n;
        }
        for (bool const src_side : {true, false}) {
            std::vector<index_t> out(static_cast<std::size_t>(total), -1);
            lv::kernels::group_offsets(g, ng, src_side, out.data());
            std::size_t bad = 0;
            for (index_t i = 0; i < total; ++i) {
                index_t want = 0, rest = i;
                for (int m = 0; m < ng; ++m) {
                    want += (rest % g[m].n) * (src_side ? g[m].ss : g[m].ds);
                    rest /= g[m].n;
                }
                bad += out[static_cast<std::size_t>(i)] != want;
            }
            BOOST_TEST(bad == 0u, "trial " << trial << ", " << ng << " members");
        }
    }
}

BOOST_AUTO_TEST_CASE(rank6_permute_and_broadcast)
{
    std::array<index_t, 6> const s{8, 6, 5, 4, 3, 7};
    auto buf = make_buffer<float>(numel_of(s));
    auto base = blob_contiguous(buf.data(), s);
    auto e = base.permute(3, 0, 5, 2, 4, 1);
    std::array<index_t, 6> const perm{3, 0, 5, 2, 4, 1};
    std::array<index_t, 6> ps{};
    for (std::size_t k = 0; k < 6; ++k) ps[k] = s[static_cast<std::size_t>(perm[k])];
    auto st = contiguous_strides(s);
    std::vector<float> ref;
    for_each_index(ps, [&](std::array<index_t, 6> const& idx, index_t) {
        index_t o = 0;
        for (std::size_t k = 0; k < 6; ++k) o += idx[k] * st[static_cast<std::size_t>(perm[k])];
        ref.push_back(buf[static_cast<std::size_t>(o)]);
    });
    check_eval<float>(e, ps, [&](index_t i) { return ref[static_cast<std::size_t>(i)]; }, "rank-6 permute");

    // a large broadcast: a 1000-row column expanded to 1000 x 301
    auto col = make_buffer<double>(1000);
    auto x = lv::from_blob(col.data(), {1000, 1}).expand(1000, 301);
    check_eval<double>(x, std::array<index_t, 2>{1000, 301}, [&](index_t f) { return col[static_cast<std::size_t>(f / 301)]; },
                       "expand (1000,1) -> (1000,301)");
    // a large row broadcast, transposed
    auto y = lv::from_blob(col.data(), {1, 1000}).expand(257, 1000).t();
    check_eval<double>(y, std::array<index_t, 2>{1000, 257}, [&](index_t f) { return col[static_cast<std::size_t>(f / 257)]; },
                       "expand (1,1000) -> (257,1000) transposed");
}

BOOST_AUTO_TEST_CASE(large_overlapping_windows)
{
    auto buf = make_buffer<float>(10007);
    auto e = lv::from_blob(buf.data(), {10007}).unfold(0, 64, 13);
    index_t const n = (10007 - 64) / 13 + 1;
    check_eval<float>(e, std::array<index_t, 2>{n, 64},
                      [&](index_t f) { return buf[static_cast<std::size_t>((f / 64) * 13 + f % 64)]; },
                      "unfold(0, 64, 13) of 10007");
    auto t = lv::from_blob(buf.data(), {10007}).unfold(0, 64, 13).t();
    check_eval<float>(t, std::array<index_t, 2>{64, n},
                      [&](index_t f) { return buf[static_cast<std::size_t>((f % n) * 13 + f / n)]; },
                      "unfold(0, 64, 13).t()");
}

BOOST_AUTO_TEST_CASE(cut_inside_reshape)
{
    // arange(12).view(4,3).t().reshape(2,6): no layout exists (a new dim cuts inside an old one)
    auto buf = make_buffer<float>(12);
    auto e = lv::from_blob(buf.data(), {12}).view(4, 3).t().reshape(2, 6);
    static constexpr index_t offsets[] = {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11};
    check_eval<float>(e, std::array<index_t, 2>{2, 6}, [&](index_t f) { return buf[static_cast<std::size_t>(offsets[f])]; },
                      "arange(12).view(4,3).t().reshape(2,6)");
    // and at a size where the generic index path is exercised by the threaded copy
    auto big = make_buffer<float>(600 * 35);
    auto g = lv::from_blob(big.data(), {600, 35}).t().reshape(70, 300);
    check_eval<float>(g, std::array<index_t, 2>{70, 300},
                      [&](index_t f) { return big[static_cast<std::size_t>((f % 600) * 35 + f / 600)]; },
                      "(600,35).t().reshape(70,300)");
}

BOOST_AUTO_TEST_CASE(owning_tensor)
{
    lv::tensor<float, 3> z(std::array<index_t, 3>{2, 3, 5});
    BOOST_TEST(z.numel() == 30);
    BOOST_TEST(z.dim() == 3);
    BOOST_TEST(reinterpret_cast<std::uintptr_t>(z.data()) % 64 == 0u);
    BOOST_TEST(std::all_of(z.data(), z.data() + 30, [](float v) { return v == 0.0f; }), "tensor(sizes) is zero-filled");
    // a tensor is the start of a new chain, and its values are written by copy through from_blob
    auto buf = make_buffer<float>(30);
    lv::copy(lv::from_blob(buf.data(), {5, 3, 2}).permute(2, 1, 0), lv::from_blob(z.data(), {2, 3, 5}));
    auto e = z.permute(2, 1, 0);
    check_eval<float>(e, std::array<index_t, 3>{5, 3, 2}, [&](index_t f) { return buf[static_cast<std::size_t>(f)]; },
                      "tensor.permute round trip");
    BOOST_TEST(z(1, 2, 4) == buf[4 * 6 + 2 * 2 + 1]);
    // empty tensor
    lv::tensor<double, 2> empty(std::array<index_t, 2>{0, 7});
    BOOST_TEST(empty.numel() == 0);
    auto et = empty.t();
    check_eval<double>(et, std::array<index_t, 2>{7, 0}, [](index_t) { return 0.0; }, "empty tensor .t()");
}

BOOST_AUTO_TEST_CASE(copy_between_static_chains_uses_the_constant_plan)
{
    // FLUX unpack (1,16,12,10), static on both sides, into a transposed static destination: the
    // plan is a compile-time constant; the values must be the dynamic copy's.
    constexpr index_t C = 16, H = 12, W = 10;
    auto src = make_buffer<float>(C * H * W);
    std::vector<float> a(C * H * W, -1.f), b(C * H * W, -2.f);
    auto sta = lv::from_blob<1, (H / 2) * (W / 2), C * 4>(src.data())
                   .view<1, H / 2, W / 2, C, 2, 2>()
                   .permute<0, 3, 1, 4, 2, 5>()
                   .reshape<1, C, H, W>();
    auto dyn = lv::from_blob(src.data(), {1, (H / 2) * (W / 2), C * 4})
                   .view(1, H / 2, W / 2, C, 2, 2)
                   .permute(0, 3, 1, 4, 2, 5)
                   .reshape(1, C, H, W);
    for (unsigned th : {1u, 2u}) {
        lv::copy(sta, lv::from_blob<1, W, H, C>(a.data()).permute<0, 3, 2, 1>(), lv::threads{th});
        lv::copy(dyn, lv::from_blob(b.data(), {1, W, H, C}).permute(0, 3, 2, 1), lv::threads{th});
        BOOST_TEST(a == b);
    }
    BOOST_TEST(a[((3 * H) + 5) * C + 7] == dyn(0, 7, 5, 3));  // out(0, c, h, w) at [w][h][c]
    // 7.5 KiB: the constant plan runs as a loop nest of constants (static_nest).
    using P = decltype(sta);
    BOOST_TEST((lv::detail::static_nest_runs_v<lv::detail::static_contiguous_plan_v<P>, float>));
}

BOOST_AUTO_TEST_CASE(static_chains_either_side_of_the_nest_threshold)
{
    // FLUX pack of (1,C,H,W) static against the same chain dynamic, contiguous() and copy() into
    // a permuted destination: odd sizes in cache ((1,3,6,10), 720 bytes), just under and over
    // static_nest_bytes in fp32 ((1,16,32,8): 16 KiB; (1,16,32,10): 20 KiB), and 64 KiB in
    // int16.
    auto check = [&]<class T, index_t C, index_t H, index_t W>(T, std::integral_constant<index_t, C>, std::integral_constant<index_t, H>,
                                                              std::integral_constant<index_t, W>, bool nest) {
        auto src = make_buffer<T>(C * H * W);
        auto sta = lv::from_blob<1, C, H, W>(src.data())
                       .template view<1, C, H / 2, 2, W / 2, 2>()
                       .template permute<0, 2, 4, 1, 3, 5>()
                       .template reshape<1, (H / 2) * (W / 2), C * 4>();
        auto dyn = lv::from_blob(src.data(), {1, C, H, W})
                       .view(1, C, H / 2, 2, W / 2, 2)
                       .permute(0, 2, 4, 1, 3, 5)
                       .reshape(1, (H / 2) * (W / 2), C * 4);
        std::string const what = std::to_string(sizeof(T)) + "-byte (1," + std::to_string(C) + "," + std::to_string(H) + "," + std::to_string(W) + ")";
        BOOST_TEST_CONTEXT(what)
        {
            BOOST_TEST((lv::detail::static_nest_runs_v<lv::detail::static_contiguous_plan_v<decltype(sta)>, T> == nest));
            auto const want = dyn.contiguous();
            auto const got = sta.contiguous();
            BOOST_TEST(std::equal(want.data(), want.data() + want.numel(), got.data()));
            std::vector<T> a(static_cast<std::size_t>(C * H * W)), b(a.size());
            lv::copy(sta, lv::from_blob<C * 4, (H / 2) * (W / 2), 1>(a.data()).template permute<2, 1, 0>());
            lv::copy(dyn, lv::from_blob(b.data(), {C * 4, (H / 2) * (W / 2), 1}).permute(2, 1, 0));
            BOOST_TEST(a == b);
        }
    };
    using std::integral_constant;
    check(float{}, integral_constant<index_t, 3>{}, integral_constant<index_t, 6>{}, integral_constant<index_t, 10>{}, true);
    check(float{}, integral_constant<index_t, 16>{}, integral_constant<index_t, 32>{}, integral_constant<index_t, 8>{}, true);
    check(float{}, integral_constant<index_t, 16>{}, integral_constant<index_t, 32>{}, integral_constant<index_t, 10>{}, false);
    check(std::int16_t{}, integral_constant<index_t, 16>{}, integral_constant<index_t, 64>{}, integral_constant<index_t, 32>{}, false);
}

BOOST_AUTO_TEST_CASE(static_nests_move_runs_whole)
{
    // A static nest moves an innermost loop contiguous on both sides as one memcpy (copy.hpp's
    // static_nest): (A,B,R).permute(1,0,2) with runs of R = 1 to 7 elements of 1, 2, 4 and 8
    // bytes, a contiguous copy that is one run, and each into a wider static destination narrowed
    // to R along its last dim, whose other elements keep their values; against the dynamic chain.
    auto check = [&]<class T, index_t A, index_t B, index_t R>(T, std::integral_constant<index_t, A>,
                                                              std::integral_constant<index_t, B>,
                                                              std::integral_constant<index_t, R>) {
        auto src = make_buffer<T>(A * B * R);
        auto sta = lv::from_blob<A, B, R>(src.data()).template permute<1, 0, 2>();
        auto dyn = lv::from_blob(src.data(), {A, B, R}).permute(1, 0, 2);
        BOOST_TEST_CONTEXT(sizeof(T) << "-byte (" << A << "," << B << "," << R << ")")
        {
            BOOST_TEST((lv::detail::static_nest_runs_v<lv::detail::static_contiguous_plan_v<decltype(sta)>, T>));
            auto const want = dyn.contiguous();
            auto const got = sta.contiguous();
            BOOST_TEST(std::equal(want.data(), want.data() + want.numel(), got.data()));
            auto const whole = lv::from_blob<A, B * R>(src.data()).contiguous();
            BOOST_TEST(std::equal(whole.data(), whole.data() + A * B * R, src.data()));
            T const sentinel = value_at<T>(-3);
            std::vector<T> a(static_cast<std::size_t>(B * A * (R + 2)), sentinel), b(a);
            lv::copy(sta, lv::from_blob<B, A, R + 2>(a.data()).narrow(lv::c<2>, lv::c<1>, lv::c<R>));
            lv::copy(dyn, lv::from_blob(b.data(), {B, A, R + 2}).narrow(2, 1, R));
            BOOST_TEST(a == b);
            BOOST_TEST(a[static_cast<std::size_t>(R + 1)] == sentinel);
        }
    };
    using std::integral_constant;
    using I = index_t;
    check(std::int8_t{}, integral_constant<I, 5>{}, integral_constant<I, 3>{}, integral_constant<I, 7>{});
    check(std::int16_t{}, integral_constant<I, 4>{}, integral_constant<I, 6>{}, integral_constant<I, 3>{});
    check(float{}, integral_constant<I, 7>{}, integral_constant<I, 5>{}, integral_constant<I, 1>{});
    check(float{}, integral_constant<I, 3>{}, integral_constant<I, 11>{}, integral_constant<I, 2>{});
    check(float{}, integral_constant<I, 6>{}, integral_constant<I, 4>{}, integral_constant<I, 5>{});
    check(double{}, integral_constant<I, 2>{}, integral_constant<I, 9>{}, integral_constant<I, 4>{});
    check(double{}, integral_constant<I, 13>{}, integral_constant<I, 1>{}, integral_constant<I, 6>{});
}

BOOST_AUTO_TEST_CASE(copy_size_mismatch)
{
    std::vector<float> a(6), b(6);
    auto check = [](auto&& f, std::string const& msg) {
        try {
            f();
            BOOST_ERROR("expected lazyview::shape_error: " << msg);
        }
        catch (lv::shape_error const& ex) {
            BOOST_TEST(std::string(ex.what()) == msg);
        }
        catch (std::exception const& ex) {
            BOOST_ERROR("wrong exception type: " << ex.what());
        }
    };
    check([&] { lv::copy(lv::from_blob(a.data(), {2, 3}), lv::from_blob(b.data(), {3, 2})); },
          "copy(): source sizes [2, 3] do not match destination sizes [3, 2]");
    check([&] { lv::copy(lv::from_blob(a.data(), {2, 3}).t(), lv::from_blob(b.data(), {2, 3}), lv::threads{2}); },
          "copy(): source sizes [3, 2] do not match destination sizes [2, 3]");
    check([&] { lv::copy(lv::from_blob(a.data(), {6}), lv::from_blob(b.data(), {5})); },
          "copy(): source sizes [6] do not match destination sizes [5]");
    // static on both sides: the same run-time error (no constant plan is built for the pair)
    std::vector<float> x(36), y(36);
    check([&] { lv::copy(lv::from_blob<5, 7>(x.data()).t(), lv::from_blob<4, 9>(y.data())); },
          "copy(): source sizes [7, 5] do not match destination sizes [4, 9]");
    check([&] { lv::copy(lv::from_blob<6, 4>(x.data()), lv::from_blob<4, 3, 2>(y.data()).permute<2, 1, 0>().reshape<6, 4>()); },
          "copy(): the destination is not a view of its memory (a reshape in its chain copies in PyTorch); "
          "write into a view instead");
}

BOOST_AUTO_TEST_CASE(wide_and_untiled_elements_take_the_nest_further)
{
    // takes_nest at the default thresholds (2 KiB; 16 KiB for elements without a tile kernel or
    // wider than 8 bytes, 4 KiB for 16-byte ones in AVX-512's tiles), whatever this build's
    // defines, and the values of each copy. The wide element is the run contiguous on both
    // sides: (a,b,c).permute(1,0,2) fp32 moves c floats at a time.
    auto copy_plan_of = [](auto const& e) { return lv::contiguous_plan(lv::physical(lv::fold(e))); };
    index_t const wide16 = lv::kernels::tile_of(16) > 1 ? 4096 : 16384;
    auto check = [&](index_t a, index_t b, index_t c, index_t untiled_upto) {
        auto buf = make_buffer<float>(a * b * c);
        auto e = lv::from_blob(buf.data(), {a, b, c}).permute(1, 0, 2);
        index_t const bytes = a * b * c * 4;
        std::string const what = "(" + std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) + ").permute(1,0,2) fp32";
        BOOST_TEST_CONTEXT(what)
        {
            bool const want = bytes <= 2048 || bytes <= untiled_upto;
            BOOST_TEST(lv::takes_nest(copy_plan_of(e), 4, 2048, 16384) == want);
            check_eval<float>(e, std::array<index_t, 3>{b, a, c},
                              [&](index_t f) { return buf[static_cast<std::size_t>(((f % (a * c)) / c * b + f / (a * c)) * c + f % c)]; },
                              what);
        }
    };
    // 16- and 32-byte elements take it with or without their tiles (AVX-512, wide_micro.hpp),
    // 16-byte ones in tiles up to 4 KiB only
    check(16, 16, 4, wide16);  // 4 KiB of 16-byte elements
    check(16, 32, 4, wide16);  // 8 KiB: the engine's tiles, where there are
    check(32, 32, 4, wide16);  // 16 KiB: at the untiled threshold
    check(32, 33, 4, wide16);  // 16.5 KiB: past it
    check(8, 32, 8, 16384);    // 8 KiB of 32-byte elements
    check(32, 16, 8, 16384);   // 16 KiB of them
    check(16, 16, 6, 16384);   // 24-byte elements (two overlapping moves; no tile kernel anywhere)
    check(8, 8, 24, 16384);    // runs of 96 bytes: loops of 32-byte elements
    check(16, 32, 2, lv::kernels::tile_of(8) == 1 ? 16384 : 0);  // 8-byte elements: tiles wherever SSE2 is
    check(8, 8, 16, 0);        // 64-byte runs: a strided loop of whole lines, not a transpose
    // fp32 elements alone: tiles
    auto buf = make_buffer<float>(32 * 32);
    BOOST_TEST(lv::takes_nest(copy_plan_of(lv::from_blob(buf.data(), {32, 32}).t()), 4, 2048, 16384) == (lv::kernels::tile_of(4) == 1));
}

BOOST_AUTO_TEST_CASE(narrow_units_take_the_nest)
{
    // Transposes of 1- to 8-byte elements up to 16 KiB whose transpose per outer iteration is
    // narrower than a tile on either side (micro<E>'s side; for 8-byte elements 8 with AVX-512's
    // whole-line tiles, else 4) run as the nest (narrow_units_take_nest), whatever this build's
    // thresholds; the values of each copy (this build runs every copy through the engine or the
    // nest as its defines say).
    // (a,b,c).permute(0,2,1) of T: units of b x c
    auto const check = [&]<class T>(T, index_t a, index_t b, index_t c) {
        auto const src = make_buffer<T>(a * b * c);
        auto const e = lv::from_blob(src.data(), {a, b, c}).permute(0, 2, 1);
        int const E = static_cast<int>(sizeof(T));
        index_t const bytes = a * b * c * E;
        lv::engine_plan const p = plan_of(e, E);
        std::string const what = "(" + std::to_string(a) + "," + std::to_string(b) + "," + std::to_string(c) +
                                 ").permute(0,2,1), " + std::to_string(E) + "-byte elements";
        BOOST_TEST_CONTEXT(what)
        {
            BOOST_TEST(p.kind == lv::engine_plan::transpose);
            BOOST_TEST(std::min(p.nA, p.nB) == std::min(b, c));
            bool const want = tile_side_of(E) > 1 && std::min(b, c) < tile_side_of(E) && bytes <= 16384;
            BOOST_TEST(lv::narrow_units_take_nest(p, bytes, 16384) == want);
            check_eval<T>(e, std::array<index_t, 3>{a, c, b},
                          [&](index_t f) { return src[static_cast<std::size_t>(f / (b * c) * b * c + f % b * c + f / b % c)]; },
                          what);
        }
    };
    check(std::uint8_t{}, 100, 3, 13);  // 3 wide: under every target's tile of bytes
    check(std::uint8_t{}, 8, 24, 24);   // 24 x 24: tiles wherever there are
    check(float{}, 16, 7, 8);           // 7 x 8: under AVX's 8, not SSE2's 4
    check(float{}, 64, 3, 11);
    check(float{}, 32, 8, 8);
    check(double{}, 20, 5, 9);          // 5 x 9: under AVX-512's whole-line 8
    check(double{}, 20, 3, 9);          // 3 x 9: under 4
    check(double{}, 16, 8, 8);
    check(double{}, 200, 3, 9);         // 42 KiB: the engine
    check(std::uint16_t{}, 100, 7, 5);
}

}  // namespace
}  // namespace evaltest
