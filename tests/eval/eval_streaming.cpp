// Copies that stream: transposes that read and write in pieces from 2 MiB of destination, others
// and long runs from 12 MiB (on one thread, transposes with rows on lines from 8 MiB). The
// buffered transpose kernel with non-temporal stores and the long-run copy against a reference
// loop; which plans stream; copy() into an owning tensor passed as a plain lvalue.
#include "eval_common.hpp"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

using namespace lazyview;
using evaltest::plan_of;
using evaltest::streamed_plan_of;
using evaltest::check_streamed_permute;
using evaltest::tuning_scope;

namespace {

/// How many elements of y differ from the (C, R) transpose of the row-major (R, C) array a.
template <class T>
std::size_t transpose_mismatches(const T* a, const T* y, index_t R, index_t C) {
  std::size_t bad = 0;
  for (index_t i = 0; i < C; ++i)
// Clang 14 (Debian 12's) crashes in its x86 back end ("Cannot select: v8i64 = X86ISD::PCMPEQ")
// when it vectorises this count for 1-byte T under -mavx512f without -mavx512bw, as in the
// eval_avx512 build: a strided byte load widened to 64 bits and compared. The reference loop need
// not be fast.
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
    for (index_t j = 0; j < R; ++j) bad += y[i * R + j] != a[static_cast<std::size_t>(j * C + i)];
  return bad;
}

/// How many elements of y differ from FLUX's pack of the row-major (B, C, H, W) array x:
/// y[b][(ih, iw)][(c, ph, pw)] = x[b][c][2 ih + ph][2 iw + pw].
template <class T>
std::size_t pack_mismatches(const T* x, const T* y, index_t B, index_t C, index_t H, index_t W) {
  std::size_t bad = 0;
  for (index_t b = 0; b < B; ++b)
    for (index_t n = 0; n < (H / 2) * (W / 2); ++n)
      for (index_t k = 0; k < C * 4; ++k) {
        const index_t ih = n / (W / 2), iw = n % (W / 2), c = k / 4, ph = (k / 2) % 2, pw = k % 2;
        bad += y[(b * (H / 2) * (W / 2) + n) * C * 4 + k] !=
               x[static_cast<std::size_t>(((b * C + c) * H + ih * 2 + ph) * W + iw * 2 + pw)];
      }
  return bad;
}

/// Whether p's outer loops go by strictly decreasing source strides (source order), or
/// destination strides. Strict, unlike the library's in_destination_order, so that a plan left
/// with two loops of one stride in either order fails.
bool strictly_ordered(const engine_plan& p, bool by_source) {
  for (int k = 1; k < p.nouter; ++k) {
    const byte_loop& a = p.outer[k - 1];
    const byte_loop& b = p.outer[k];
    if (by_source ? a.ss <= b.ss : a.ds <= b.ds) return false;
  }
  return true;
}

/// (R, C) transposed into a fresh tensor past the threshold: the buffered streaming transpose,
/// with a last block of A narrower than the rest and a B count that is no multiple of a block.
template <class T>
void streaming_transpose(index_t R, index_t C) {
  std::vector<T> a(static_cast<std::size_t>(R * C));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<T>(i * 2654435761u);
  tensor<T, 2> t({C, R});
  for (unsigned th : {1u, 2u}) {
    std::fill_n(t.data(), R * C, T{});
    copy(from_blob(a.data(), {R, C}).t(), t, threads{th});
    const std::size_t bad = transpose_mismatches(a.data(), t.data(), R, C);
    BOOST_TEST(bad == 0u, sizeof(T) << "-byte (" << R << "," << C << ").t(), threads " << th);
  }
}

/// Whether copying `e` into a contiguous tensor at `dst` on `nthreads` threads streams, and the plan.
template <class E>
engine_plan streaming_plan(const E& e, const void* dst, unsigned nthreads = 1) {
  return streamed_plan_of(e, sizeof(float), dst, fold(e).numel().v * index_t{sizeof(float)}, nthreads);
}

/// Whether plan p streams gathered runs in bands (banded_runs), runs of `run` bytes (0: any).
bool in_bands(const engine_plan& p, index_t run = 0) {
  return p.kind == engine_plan::run && p.nt && p.gather && banded_runs(p) && (run == 0 || p.run_bytes == run);
}

}  // namespace

// Destination rows of 1024 to 8000 bytes, all whole cache lines, 2 MiB and a little over.
BOOST_AUTO_TEST_CASE(streaming_transpose_element_sizes) {
  streaming_transpose<std::uint8_t>(2048, 1031);
  streaming_transpose<std::uint16_t>(1056, 1043);  // rows of 2112 bytes: 16 blocks of 64 + 32
  streaming_transpose<std::uint32_t>(1008, 541);   // 31 blocks of 32 + 16
  streaming_transpose<std::uint64_t>(1000, 271);   // 62 blocks of 16 + 8
}

// Far-apart fp32 source rows a multiple of 4 KiB apart share one set of the first-level cache:
// where register tiles stream whole lines (no whole-line tiles), a streamed unit takes one line
// of each destination row (16 rows of A), not transpose_block_bytes (see aliased_source_rows).
// Rows 4 KiB + 64 bytes apart, 2-byte and 8-byte elements keep 128 bytes. Values at 1 and 2
// threads, A in 63 blocks of 16 (rows 4 KiB apart) and 33 (8 KiB apart: the threads' shares
// uneven).
BOOST_AUTO_TEST_CASE(streaming_aliased_source_rows) {
  tuning_scope const zen{tuning::zen};
  std::vector<float> in(1);
  tensor<float, 1> out({64});
  const float* d = out.data();
  const bool fits = kernels::have_nt && kernels::line_tile_of(4) == 1 && kernels::stream_lines_fit(4);
  const auto plan = [&](auto x, index_t R, index_t C) {
    const index_t E = sizeof(*x);
    return streamed_plan_of(from_blob(x, {R, C}).t(), E, d, R * C * E);
  };
  const auto block_bytes = [](const engine_plan& ep) {
    return std::pair{ep.nt && !line_tiles_fit(ep), ep.block_a * ep.elem};
  };
  for (const auto& [R, C] : {std::pair<index_t, index_t>{1024, 1024}, {1024, 4096}, {1008, 1024}, {528, 2048}}) {
    const engine_plan ep = plan(in.data(), R, C);
    const auto [nt, bytes] = block_bytes(ep);
    BOOST_TEST(aliased_source_rows(ep) == fits);
    if (fits) BOOST_TEST(nt);  // (other targets' units may not be scattered: a higher threshold)
    if (nt) BOOST_TEST(bytes == (fits ? aliased_block_bytes : transpose_block_bytes), "(" << R << "," << C << ").t()");
  }
  const auto [nt_off, bytes_off] = block_bytes(plan(in.data(), 1024, 1040));
  if (nt_off) BOOST_TEST(bytes_off == transpose_block_bytes);
  const std::vector<std::uint16_t> h(1);
  const auto [nt_h, bytes_h] = block_bytes(plan(h.data(), 1024, 2048));
  if (nt_h) BOOST_TEST(bytes_h == transpose_block_bytes);
  const std::vector<double> w(1);
  const auto [nt_w, bytes_w] = block_bytes(plan(w.data(), 1024, 512));
  if (nt_w) BOOST_TEST(bytes_w == transpose_block_bytes);
  streaming_transpose<float>(1008, 1024);
  streaming_transpose<float>(528, 2048);
}

// Which transposes stream (where this build has streaming stores): those that read and write in
// pieces from 2 MiB, others from 12 MiB (under the intel tuning 4 MiB, and 2 MiB on one thread for
// power-of-two elements); only rows of whole lines, in blocks of whole lines.
BOOST_AUTO_TEST_CASE(streaming_choice) {
  std::vector<float> in(1);
  const float* x = in.data();
  tensor<float, 1> out({64});  // 64-byte aligned: only its address is used
  const float* d = out.data();
  const bool nt = kernels::have_nt;
  BOOST_TEST(streaming_plan(from_blob(x, {1024, 1024}).t(), d).nt == nt);
  {
    // rows at 32 mod 64 (rows of 4 KiB, read and written in pieces): where the target's tiles
    // stream whole lines and it has no whole-line tiles, lines moved by 32 bytes (nt_shifted)
    // from 2 MiB as on lines; otherwise in place, or under the intel tuning (past its 4 MiB)
    // through the buffer of nt_rows where the target has the tiles
    const bool shifted = nt && kernels::line_tile_of(4) == 1 && kernels::stream_lines_fit(4);
    tuning_scope const zen{tuning::zen};
    const engine_plan z = streaming_plan(from_blob(x, {1024, 1024}).t(), d + 8);
    BOOST_TEST((z.nt == shifted && z.nt_shifted == shifted));
    tuning_scope const intel{tuning::intel};
    const engine_plan r = streaming_plan(from_blob(x, {1024, 1024}).t(), d + 8);
    BOOST_TEST(r.nt_shifted == shifted);
    if (!shifted) BOOST_TEST((r.nt == r.nt_rows && r.nt_rows == (nt && kernels::rows_tile_of(4) > 1)));
  }
  BOOST_TEST(!streaming_plan(from_blob(x, {512, 512}).t(), d).nt);        // 1 MiB: in cache
  // rows of 4000 bytes, 3.8 MiB (on one thread under the intel tuning: nt_rows, as in
  // intel_one_thread_streaming)
  BOOST_TEST(!streaming_plan(from_blob(x, {1000, 1000}).t(), d, 2).nt);
  const engine_plan p = streaming_plan(from_blob(x, {48, 45, 8, 104}).permute(3, 2, 1, 0), d);
  BOOST_TEST(p.nt == nt);
  if (p.nt) BOOST_TEST(p.block_a * p.elem % 64 == 0);  // 192-byte rows: blocks of 128 and 64
  // One side of each unit dense: under the zen tuning in place below 12 MiB (10.3 MiB), streamed
  // from it (15.5 MiB), but on one thread from 8 MiB where the destination rows are whole lines
  // on lines and tiles that stream whole lines take them (rows_on_lines: whole-line tiles, or
  // without them micro<E>'s where stream_lines_fit; 7.9 MiB in place); under intel from
  // 4 MiB (3.5 MiB in place), or on one thread from 2 MiB (1.75 MiB in place), where 24-byte
  // elements keep 4 MiB.
  auto pack = [&](index_t B, index_t W) {
    return from_blob(x, {B, 16, 256, W}).view(B, 16, 128, 2, W / 2, 2).permute(0, 2, 4, 1, 3, 5).reshape(B, 128 * W / 2, 64);
  };
  const auto six = [&](index_t n) { return from_blob(x, {n, 19, 19, 9, 16, 13}).permute(2, 5, 1, 0, 3, 4); };
  // tiles that would stream whole lines (AVX-512's whole-line tiles; AVX2's and SSE2's register
  // tiles)
  const auto stream_lines = [&](int E) { return nt && (kernels::line_tile_of(E) > 1 || kernels::stream_lines_fit(E)); };
  {
    tuning_scope const zen{tuning::zen};
    // (on one thread only)
    const auto lines = [&](unsigned th, int E) { return th == 1 && stream_lines(E); };
    for (unsigned const th : {1u, 2u}) {
      BOOST_TEST(streaming_plan(six(4), d, th).nt == lines(th, 4));  // rows of 144 fp32
      BOOST_TEST(streaming_plan(six(6), d, th).nt == nt);
      BOOST_TEST(!streaming_plan(pack(2, 254), d, th).nt);
      BOOST_TEST(streaming_plan(pack(2, 256), d, th).nt == lines(th, 8));
      BOOST_TEST(streaming_plan(pack(4, 256), d, th).nt == nt);
    }
    // rows of 256 bytes off lines (d + 1: 4 bytes on), and a narrow transpose (source rows of 2
    // fp32, 8 MiB): in place below 12 MiB on one thread too. Where the target has no narrow
    // kernels (SSE2) the latter is a transpose of tiles like those above, and streams (the
    // values of that plan at 1 and 2 threads: streaming_transpose)
    BOOST_TEST(!streaming_plan(pack(2, 256), d + 1).nt);
    const engine_plan two = streaming_plan(from_blob(x, {1048576, 2}).t(), d);
    BOOST_TEST(two.nt == (narrow_transpose(two) == narrow_kind::none && lines(1, 4)));
    streaming_transpose<float>(1048576, 2);
    BOOST_TEST(streaming_plan(pack(3, 256), d + 1).nt == nt);
  }
  {
    // zen3: the same rows stream from 8 MiB on two threads (and four) as well; rows off lines,
    // and plans that no such tiles take, keep 12 MiB there
    tuning_scope const zen3{tuning::zen3};
    for (unsigned const th : {1u, 2u, 4u}) {
      BOOST_TEST(streaming_plan(six(4), d, th).nt == stream_lines(4));
      BOOST_TEST(streaming_plan(pack(2, 256), d, th).nt == stream_lines(8));
      BOOST_TEST(!streaming_plan(pack(2, 256), d + 1, th).nt);
      BOOST_TEST(!streaming_plan(pack(2, 254), d, th).nt);
      const engine_plan two = streaming_plan(from_blob(x, {1048576, 2}).t(), d, th);
      BOOST_TEST(two.nt == (narrow_transpose(two) == narrow_kind::none && stream_lines(4)));
    }
    // the values of that pack, streamed on two threads
    const index_t B = 2, Ch = 16, H = 256, W = 256;
    std::vector<float> xs(static_cast<std::size_t>(B * Ch * H * W));
    std::iota(xs.begin(), xs.end(), 0.f);
    tensor<float, 3> y({B, (H / 2) * (W / 2), Ch * 4});
    copy(from_blob(xs.data(), {B, Ch, H, W}).view(B, Ch, H / 2, 2, W / 2, 2).permute(0, 2, 4, 1, 3, 5).reshape(B, (H / 2) * (W / 2), Ch * 4),
         y, threads{2});
    BOOST_TEST(pack_mismatches(xs.data(), y.data(), B, Ch, H, W) == 0u);
  }
  tuning_scope const intel{tuning::intel};
  BOOST_TEST(streaming_plan(from_blob(x, {4, 19, 19, 9, 16, 13}).permute(2, 5, 1, 0, 3, 4), d, 2).nt == nt);
  BOOST_TEST(!streaming_plan(pack(1, 224), d, 2).nt);
  BOOST_TEST(!streaming_plan(pack(1, 224), d, 4).nt);  // the 2 MiB of one thread only: not at 4
  BOOST_TEST(streaming_plan(pack(1, 256), d, 2).nt == nt);
  BOOST_TEST(streaming_plan(pack(2, 256), d, 2).nt == nt);
  BOOST_TEST(!streaming_plan(pack(1, 112), d).nt);
  BOOST_TEST(streaming_plan(pack(1, 128), d).nt == nt);
  BOOST_TEST(streaming_plan(pack(1, 224), d).nt == nt);
  // (300,300,6).permute(1,0,2) (2.1 MB): 24-byte elements, which lost streamed below 4 MiB
  const engine_plan odd = streaming_plan(from_blob(x, {300, 300, 6}).permute(1, 0, 2), d);
  BOOST_TEST((odd.elem == 24 && !odd.nt));
  BOOST_TEST(streaming_plan(from_blob(x, {300, 300, 12}).permute(1, 0, 2), d).nt == nt);  // 4.1 MB
}

// Which CPUs the zen3 and zen4 tunings are read from (CPUID leaf 1 signatures), and LAZYVIEW_TUNING's names for them.
BOOST_AUTO_TEST_CASE(zen_generation_detection) {
  BOOST_TEST(zen3_signature(0x00A00F11u));   // EPYC 7003 (Milan): family 19h, model 01h
  BOOST_TEST(zen3_signature(0x00A20F10u));   // Ryzen 5000 (Vermeer), model 21h
  BOOST_TEST(zen3_signature(0x00A50F00u));   // Ryzen 5000G (Cezanne), model 50h
  BOOST_TEST(!zen3_signature(0x00A10F11u));  // EPYC 9004 (Genoa, Zen 4), model 11h
  BOOST_TEST(!zen3_signature(0x00A60F12u));  // Ryzen 7000 (Raphael, Zen 4), model 61h
  BOOST_TEST(!zen3_signature(0x00B00F21u));  // Zen 5: family 1Ah
  BOOST_TEST(!zen3_signature(0x00830F10u));  // EPYC 7002 (Rome, Zen 2): family 17h, model 31h
  BOOST_TEST(!zen3_signature(0x000806F8u));  // Xeon (Sapphire Rapids): family 6
  BOOST_TEST(zen4_signature(0x00A10F11u));    // EPYC 9004 (Genoa), model 11h
  BOOST_TEST(zen4_signature(0x00A60F12u));    // Ryzen 7000 (Raphael), model 61h
  BOOST_TEST(zen4_signature(0x00AA0F01u));    // EPYC 9004 (Bergamo), model A0h
  BOOST_TEST(!zen4_signature(0x00A00F11u));   // Milan (Zen 3)
  BOOST_TEST(!zen4_signature(0x00A50F00u));   // Cezanne (Zen 3)
  BOOST_TEST(!zen4_signature(0x00B00F21u));   // Zen 5: family 1Ah
  BOOST_TEST(!zen4_signature(0x000806F8u));   // Xeon
  const char* const before = std::getenv("LAZYVIEW_TUNING");
  const std::string kept = before ? before : "";
  for (const auto& [name, t] : {std::pair{"zen3", tuning::zen3}, std::pair{"zen", tuning::zen},
                                std::pair{"zen4", tuning::zen4}, std::pair{"intel", tuning::intel}}) {
    ::setenv("LAZYVIEW_TUNING", name, 1);
    BOOST_TEST((detail::detect_tuning() == t), name);
  }
  if (before)
    ::setenv("LAZYVIEW_TUNING", kept.c_str(), 1);
  else
    ::unsetenv("LAZYVIEW_TUNING");
}

// lines_aligned and rows_on_lines against the addresses a plan's rows start at: FLUX pack fp32
// (2,16,256,256) (8-byte elements, destination rows of 256 bytes) from an aligned buffer, 4 and
// 32 bytes on; (1000,1000).t() (rows of 4000 bytes, not whole lines); a copy of runs, no transpose.
BOOST_AUTO_TEST_CASE(rows_on_lines_by_address) {
  std::vector<float> in(1);
  const float* x = in.data();
  tensor<float, 1> out({64});  // 64-byte aligned
  const float* d = out.data();
  const auto pack = from_blob(x, {2, 16, 256, 256}).view(2, 16, 128, 2, 128, 2).permute(0, 2, 4, 1, 3, 5);
  const engine_plan p = plan_of(pack, 4);
  BOOST_TEST((p.kind == engine_plan::transpose && p.elem == 8 && p.nA * p.elem == 256));
  BOOST_TEST((lines_aligned(p, d, 64) && rows_on_lines(p, d)));
  BOOST_TEST((!lines_aligned(p, d + 1, 64) && !lines_aligned(p, d + 1, 32) && !rows_on_lines(p, d + 1)));
  BOOST_TEST((!lines_aligned(p, d + 8, 64) && lines_aligned(p, d + 8, 32) && !rows_on_lines(p, d + 8)));
  const engine_plan t = plan_of(from_blob(x, {1000, 1000}).t(), 4);
  BOOST_TEST((lines_aligned(t, d, 64) && !rows_on_lines(t, d)));
  const engine_plan r = plan_of(from_blob(x, {64, 8, 256}).permute(1, 0, 2), 4);
  BOOST_TEST((r.kind == engine_plan::run && lines_aligned(r, d, 64) && !rows_on_lines(r, d)));
}

// Under the intel tuning, on one thread, transposes stream from 2 MiB: FLUX pack bf16
// (1,16,256,256) (whole-line tiles), and (1000,700).t() fp32 into a destination 32 bytes off a
// line (nt_rows, rows of 4000 bytes), against reference loops.
BOOST_AUTO_TEST_CASE(intel_one_thread_streaming) {
  tuning_scope const intel{tuning::intel};
  const index_t C = 16, H = 256, W = 256;
  std::vector<std::uint16_t> x(static_cast<std::size_t>(C * H * W));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint16_t>(i * 2654435761u >> 7);
  auto pack = from_blob(x.data(), {1, C, H, W}).view(1, C, H / 2, 2, W / 2, 2).permute(0, 2, 4, 1, 3, 5).reshape(1, (H / 2) * (W / 2), C * 4);
  tensor<std::uint16_t, 3> y({1, (H / 2) * (W / 2), C * 4});
  BOOST_TEST(streamed_plan_of(pack, 2, y.data(), C * H * W * 2).nt == kernels::have_nt);
  BOOST_TEST(!streamed_plan_of(pack, 2, y.data(), C * H * W * 2, 2).nt);
  copy(pack, y, threads{1});
  BOOST_TEST(pack_mismatches(x.data(), y.data(), 1, C, H, W) == 0u);
  const index_t R = 1000, Cc = 700;
  std::vector<float> a(static_cast<std::size_t>(R * Cc));
  std::iota(a.begin(), a.end(), 0.f);
  tensor<float, 1> room({R * Cc + 16});  // 64-byte aligned: the destination starts 32 bytes on
  float* const d = room.data() + 8;
  const engine_plan p = streamed_plan_of(from_blob(a.data(), {R, Cc}).t(), 4, d, R * Cc * 4);
  BOOST_TEST(p.nt_rows == (kernels::have_nt && kernels::rows_tile_of(4) > 1));
  copy(from_blob(a.data(), {R, Cc}).t(), from_blob(d, {Cc, R}), threads{1});
  BOOST_TEST(transpose_mismatches(a.data(), d, R, Cc) == 0u);
}

BOOST_AUTO_TEST_CASE(streaming_transpose_and_pack) {
  const index_t R = 1024, C = 4100;  // 16.4 MB of fp32
  std::vector<float> a(static_cast<std::size_t>(R * C));
  std::iota(a.begin(), a.end(), 0.f);
  tensor<float, 2> t({C, R});
  for (unsigned th : {1u, 2u}) {
    copy(from_blob(a.data(), {R, C}).t(), t, threads{th});
    BOOST_TEST(transpose_mismatches(a.data(), t.data(), R, C) == 0u);
  }
  // FLUX pack at (2,16,256,256) fp32: 8 MiB in, 8 MiB out -> with bf16-sized twins below.
  const index_t B = 4, Ch = 16, H = 256, W = 256;
  std::vector<float> x(static_cast<std::size_t>(B * Ch * H * W));
  std::iota(x.begin(), x.end(), 0.f);
  auto pack = from_blob(x.data(), {B, Ch, H, W}).view(B, Ch, H / 2, 2, W / 2, 2).permute(0, 2, 4, 1, 3, 5).reshape(B, (H / 2) * (W / 2), Ch * 4);
  tensor<float, 3> y({B, (H / 2) * (W / 2), Ch * 4});
  copy(pack, y, threads{2});
  BOOST_TEST(pack_mismatches(x.data(), y.data(), B, Ch, H, W) == 0u);
  // A long contiguous run (a plain copy) past the threshold.
  tensor<float, 1> flat({B * Ch * H * W});
  copy(from_blob(x.data(), {B * Ch * H * W}), flat);
  BOOST_TEST(std::equal(x.begin(), x.end(), flat.data()));
}

// Streamed transposes go out a line at a time where their source rows lie far apart
// (far_source_rows: (1024,1024).t() and the element sizes above, rows 1031 to 4096 bytes
// apart). Where they lie close together, a unit takes A whole when its destination rows are
// short and B a tile's rows at least (whole_stream_rows), and goes out a line at a time too:
// FLUX unpack (4,16,256,256) fp32 and (8,16,256,256) in 2-byte elements, source rows 256 and
// 128 bytes apart, destination rows of 1 KiB and 512 bytes. Otherwise a unit writes 128 bytes
// of each row through the buffer of 32 rows of B: (65536,50).t() fp32, 12.5 MiB, whose A is
// 256 KiB of each row and whose B ends in a tile moved back. Values at 1 and 2 threads.
BOOST_AUTO_TEST_CASE(streaming_close_source_rows) {
  tuning_scope const zen{tuning::zen};  // (the requests and blocks stated here: the zen tuning's)
  std::vector<float> in(1);
  tensor<float, 1> out({64});
  BOOST_TEST(far_source_rows(streaming_plan(from_blob(in.data(), {1024, 1024}).t(), out.data())));
  {
    const engine_plan ep = streaming_plan(from_blob(in.data(), {65536, 50}).t(), out.data());
    BOOST_TEST((ep.kind == engine_plan::transpose && ep.nt == kernels::have_nt && !far_source_rows(ep)));
    BOOST_TEST(!whole_stream_rows(ep));
    if (ep.nt && !line_tiles_fit(ep)) BOOST_TEST(ep.block_a * ep.elem == transpose_block_bytes);
    streaming_transpose<float>(65536, 50);
  }
  const auto check = [&]<class T>(T, index_t B) {
    const index_t Ch = 16, H = 256, W = 256;
    std::vector<T> x(static_cast<std::size_t>(B * Ch * H * W));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(i * 2654435761u);
    const auto e = from_blob(static_cast<const T*>(x.data()), {B, (H / 2) * (W / 2), Ch * 4})
                       .view(B, H / 2, W / 2, Ch, 2, 2)
                       .permute(0, 3, 1, 4, 2, 5)
                       .reshape(B, Ch, H, W);
    tensor<T, 4> y({B, Ch, H, W});
    const engine_plan ep = streamed_plan_of(e, sizeof(T), y.data(), B * Ch * H * W * index_t{sizeof(T)});
    BOOST_TEST((ep.kind == engine_plan::transpose && ep.nt == kernels::have_nt && !far_source_rows(ep)),
               sizeof(T) << "-byte unpack");
    // (targets with whole-line tiles keep their own units: line_tiles)
    // (and, a unit's source being one stretch, each asks for the next unit's: prefetch_next_unit)
    if (ep.nt && !line_tiles_fit(ep))
      BOOST_TEST((whole_stream_rows(ep) && ep.blocks_a == 1 && ep.block_a == ep.nA && prefetch_next_unit(ep)),
                 sizeof(T) << "-byte unpack");
    for (unsigned th : {1u, 2u}) {
      std::fill_n(y.data(), B * Ch * H * W, T{});
      copy(e, y, threads{th});
      std::size_t bad = 0;
      for (index_t b = 0; b < B; ++b)
        for (index_t c = 0; c < Ch; ++c)
          for (index_t h = 0; h < H; ++h)
            for (index_t w = 0; w < W; ++w) {
              const index_t n = (h / 2) * (W / 2) + w / 2, k = c * 4 + (h % 2) * 2 + w % 2;
              bad += y.data()[((b * Ch + c) * H + h) * W + w] != x[static_cast<std::size_t>((b * (H / 2) * (W / 2) + n) * Ch * 4 + k)];
            }
      BOOST_TEST(bad == 0u, sizeof(T) << "-byte unpack, threads " << th);
    }
  };
  check(float{}, 4);
  check(std::uint16_t{}, 8);
  // B not whole steps of a tile: (1700,144,13).permute(0,2,1) fp32, 12.1 MiB, B = 13 (source
  // rows 52 bytes apart), destination rows of 576 bytes: A whole too, the last step of each unit
  // moved back over rows the step before wrote
  {
    const index_t M = 1700, R = 144, C = 13;
    std::vector<float> x(static_cast<std::size_t>(M * R * C));
    std::iota(x.begin(), x.end(), 0.0f);
    const auto e = from_blob(static_cast<const float*>(x.data()), {M, R, C}).permute(0, 2, 1);
    tensor<float, 3> y({M, C, R});
    const engine_plan ep = streamed_plan_of(e, 4, y.data(), M * R * C * 4);
    BOOST_TEST((ep.kind == engine_plan::transpose && ep.nt == kernels::have_nt && ep.nB == C && ep.nA == R));
    if (ep.nt && !line_tiles_fit(ep)) BOOST_TEST((whole_stream_rows(ep) && ep.blocks_a == 1 && ep.block_a == R));
    std::vector<float> want(x.size());
    evaltest::read_strided(x.data(), std::array<index_t, 3>{M, C, R}, std::array<index_t, 3>{R * C, 1, C}, want.data(),
                           nullptr);
    for (unsigned th : {1u, 2u}) {
      std::fill_n(y.data(), M * R * C, -1.0f);
      copy(e, y, threads{th});
      index_t first = 0;
      BOOST_TEST(evaltest::mismatches(y.data(), want.data(), M * R * C, first) == 0,
                 "(1700,144,13).permute(0,2,1), threads " << th << ", first at " << first);
    }
  }
}

// Long runs past 12 MiB, written far apart (source order), of a length and spacing that leave
// every other run starting mid-line: each streams whole lines only (copy_nt, head 64), the
// partial lines at either end plainly. (8192,4,136).permute(1,0,2) in int32, runs of 544 bytes.
BOOST_AUTO_TEST_CASE(streaming_runs_scattered) {
  const index_t P = 8192, Q = 4, R = 136;
  std::vector<std::int32_t> x(static_cast<std::size_t>(P * Q * R));
  std::iota(x.begin(), x.end(), 0);
  tensor<std::int32_t, 3> y({Q, P, R});
  const auto e = from_blob(x.data(), {P, Q, R}).permute(1, 0, 2);
  const engine_plan ep = streamed_plan_of(e, 4, y.data(), P * Q * R * 4);
  BOOST_TEST((ep.kind == engine_plan::run && ep.nt == kernels::have_nt && scattered_runs(ep)));
  for (unsigned th : {1u, 2u}) {
    std::fill_n(y.data(), P * Q * R, -1);
    copy(e, y, threads{th});
    std::size_t bad = 0;
    for (index_t q = 0; q < Q; ++q)
      for (index_t p = 0; p < P; ++p)
        for (index_t r = 0; r < R; ++r) bad += y.data()[(q * P + p) * R + r] != x[static_cast<std::size_t>((p * Q + q) * R + r)];
    BOOST_TEST(bad == 0u, "threads " << th);
  }
}

// Streamed tiles over a group B of fewer than 32 rows (transpose_short_b_rows) take A in blocks
// of up to transpose_direct_bytes: (6,19,19,9,16,13).permute(2,5,1,0,3,4) fp32, A = 144 (rows
// of 576 bytes), B = 13: one block of 144; with B = 32, blocks of transpose_block_bytes (with
// whole-line tiles). Values with such blocks in 1-, 2-, 4- and 8-byte elements (B = 13 and 19:
// partial tiles, or whole tiles and a partial one), aligned and one element off a line.
BOOST_AUTO_TEST_CASE(streaming_short_b) {
  tuning_scope const zen{tuning::zen};  // (the requests and blocks stated here: the zen tuning's)
  std::vector<float> in(1);
  tensor<float, 1> out({64});
  const float* d = out.data();
  const bool tiled_nt = kernels::have_nt && kernels::tile_of(4) > 1;
  const engine_plan short_b = streaming_plan(from_blob(in.data(), {6, 19, 19, 9, 16, 13}).permute(2, 5, 1, 0, 3, 4), d);
  BOOST_TEST(short_b.nt == tiled_nt);
  if (short_b.nt) BOOST_TEST((short_b.nB == 13 && short_b.blocks_a == 1 && short_b.block_a == 144));
  const engine_plan long_b = streaming_plan(from_blob(in.data(), {6, 19, 19, 9, 16, 32}).permute(2, 5, 1, 0, 3, 4), d);
  BOOST_TEST(long_b.nt == tiled_nt);
  // (register tiles of 8 take A whole over B = 32 anyway: whole_stream_rows)
  if (long_b.nt && !whole_stream_rows(long_b))
    BOOST_TEST((long_b.nB == 32 && long_b.block_a * long_b.elem == transpose_block_bytes));
  const auto transposes = [](const engine_plan& ep) { return ep.kind == engine_plan::transpose; };
  const std::array<index_t, 6> p{2, 5, 1, 0, 3, 4};
  check_streamed_permute<6>({6, 19, 19, 9, 16, 13}, p, "(6,19,19,9,16,13).permute(2,5,1,0,3,4)", transposes);
  check_streamed_permute<6>({6, 19, 19, 9, 64, 13}, p, "(6,19,19,9,64,13).permute(2,5,1,0,3,4)", transposes,
                            std::uint8_t{});
  check_streamed_permute<6>({6, 19, 19, 9, 32, 19}, p, "(6,19,19,9,32,19).permute(2,5,1,0,3,4)", transposes,
                            std::uint16_t{});
  check_streamed_permute<6>({4, 19, 19, 9, 8, 19}, p, "(4,19,19,9,8,19).permute(2,5,1,0,3,4)", transposes,
                            std::uint64_t{});
}

// Runs past 12 MiB that start mid-line and lie back to back in the destination are gathered in
// destination order through a buffer whose whole lines stream out (engine_plan::gather), under
// the zen tuning; under intel those shorter than intel_in_place_run_bytes stay in place, and
// longer ones until intel_run_streaming_threshold.
// (187,258,87).permute(1,0,2) int32: runs of 348 bytes; (30,40,50,70).permute(1,2,0,3): runs
// of 280 bytes under two loops of the destination. A destination whose runs lie apart (rows
// padded by one element) copies them as before.
BOOST_AUTO_TEST_CASE(streaming_runs_gathered) {
  tuning_scope const zen{tuning::zen};
  const auto gathered = [](const engine_plan& ep) {
    return ep.kind == engine_plan::run && ep.gather == kernels::have_nt && ep.nt == kernels::have_nt;
  };
  check_streamed_permute<3>({187, 258, 87}, {1, 0, 2}, "(187,258,87).permute(1,0,2)", gathered);
  check_streamed_permute<4>({30, 40, 50, 70}, {1, 2, 0, 3}, "(30,40,50,70).permute(1,2,0,3)", gathered);
  // runs apart in the destination: no gather
  const index_t P = 187, Q = 258, C = 87;
  std::vector<std::int32_t> x(static_cast<std::size_t>(P * Q * C));
  std::iota(x.begin(), x.end(), 0);
  std::vector<std::int32_t> y(static_cast<std::size_t>(Q * P * (C + 1)), -1);
  const auto e = from_blob(static_cast<const std::int32_t*>(x.data()), {P, Q, C}).permute(1, 0, 2);
  const auto dst = from_blob(y.data(), {Q, P, C + 1}).narrow(2, 0, C);
  engine_plan ep = make_engine_plan(make_plan(physical(fold(e)), fold(dst)), 4);
  use_streaming_stores(ep, y.data(), Q * P * (C + 1) * 4);
  BOOST_TEST(!ep.gather);
  copy(e, dst, threads{2});
  std::size_t bad = 0;
  for (index_t q = 0; q < Q; ++q)
    for (index_t p = 0; p < P; ++p)
      for (index_t c = 0; c <= C; ++c)
        bad += y[static_cast<std::size_t>((q * P + p) * (C + 1) + c)] != (c == C ? -1 : x[static_cast<std::size_t>((p * Q + q) * C + c)]);
  BOOST_TEST(bad == 0u);
  tuning_scope const intel{tuning::intel};
  const auto in_place = [](const engine_plan& p) { return p.kind == engine_plan::run && !p.gather && !p.nt; };
  check_streamed_permute<3>({187, 258, 87}, {1, 0, 2}, "(187,258,87).permute(1,0,2), intel", in_place);
  // from intel_in_place_run_bytes on they gather under intel too, past
  // intel_run_streaming_threshold: runs of 504 bytes, 16.8 MB in place, 33.6 MB gathered
  std::vector<float> in(1);
  tensor<float, 1> out({64});
  const engine_plan runs_16mb = streaming_plan(from_blob(in.data(), {68, 14, 35, 9, 14}).permute(0, 2, 1, 3, 4), out.data());
  BOOST_TEST((runs_16mb.kind == engine_plan::run && runs_16mb.run_bytes == 504 && in_place(runs_16mb)));
  const engine_plan runs_33mb = streaming_plan(from_blob(in.data(), {136, 14, 35, 9, 14}).permute(0, 2, 1, 3, 4), out.data());
  BOOST_TEST((runs_33mb.kind == engine_plan::run && runs_33mb.run_bytes == 504 && runs_33mb.gather == kernels::have_nt));
  // runs past gather_max_run_bytes stream from intel_streaming_threshold (through copy_nt where
  // they start on 32 bytes): (1161,6,656).permute(1,0,2), 2624-byte runs, 18.3 MB
  const engine_plan long_runs = streaming_plan(from_blob(in.data(), {1161, 6, 656}).permute(1, 0, 2), out.data());
  BOOST_TEST((long_runs.kind == engine_plan::run && long_runs.run_bytes == 2624 && !long_runs.gather));
  BOOST_TEST(long_runs.nt == (kernels::have_nt && reinterpret_cast<std::uintptr_t>(out.data()) % 32 == 0));
}

// Gathered runs of 65 to 191 bytes go in bands (banded_runs, kernels::gather_runs_banded) under
// zen: a band of destination rows at a time, swept in blocks of runs whose unfinished last lines
// carry to the next block. Runs that order_runs leaves in destination order, in place before,
// gather in bands too, and so do odd-sized elements of 12 bytes or more into rows of 4000 bytes
// or more, each a run (as_element_runs). Each shape below ends a band short (rows not a multiple of band_rows) and
// a row on a short block; the two threads' ranges meet mid-row, so each range begins or ends
// with part of a row (the plain gather's), and the destination starts 0, 1 or 3 elements past a
// line. Longer runs gather as before, and under intel such runs stay in place.
BOOST_AUTO_TEST_CASE(streaming_runs_banded) {
  tuning_scope const zen{tuning::zen};
  const auto banded = [](const engine_plan& ep) {
    if (!kernels::have_nt) return ep.kind == engine_plan::strided && !ep.nt;
    return in_bands(ep);
  };
  // 68-byte runs from 1001 source rows 221 runs long (source order left by order_runs)
  check_streamed_permute<3>({1001, 221, 17}, {1, 0, 2}, "(1001,221,17).permute(1,0,2)", banded, std::int32_t{},
                            {0, 1, 3});
  // destination order already (in place before): 2003 rows of 100 runs
  check_streamed_permute<3>({100, 2003, 17}, {1, 0, 2}, "(100,2003,17).permute(1,0,2)", banded, std::int32_t{});
  // runs of 67 bytes (a loop of bytes in place), 128 bytes of bf16
  check_streamed_permute<3>({1000, 201, 67}, {1, 0, 2}, "(1000,201,67).permute(1,0,2)", banded, std::uint8_t{},
                            {0, 5});
  check_streamed_permute<3>({601, 219, 64}, {1, 0, 2}, "(601,219,64).permute(1,0,2)", banded, std::uint16_t{});
  // odd-sized elements, a run each (as_element_runs): 20 bytes (int32 x 5), 56 (x 14), 13 (bytes;
  // moves of 8), 40 into rows of exactly banded_min_element_row_bytes
  check_streamed_permute<3>({1001, 1003, 5}, {1, 0, 2}, "(1001,1003,5).permute(1,0,2)", banded, std::int32_t{},
                            {0, 1, 3});
  check_streamed_permute<6>({4, 40, 20, 4, 21, 14}, {2, 3, 4, 0, 1, 5}, "(4,40,20,4,21,14).permute(2,3,4,0,1,5)",
                            banded, std::int32_t{});
  check_streamed_permute<3>({1003, 1001, 13}, {1, 0, 2}, "(1003,1001,13).permute(1,0,2)", banded, std::uint8_t{},
                            {0, 7});
  check_streamed_permute<3>({100, 4003, 10}, {1, 0, 2}, "(100,4003,10).permute(1,0,2)", banded, std::int32_t{});
  // shorter rows, or elements under banded_min_element_bytes: as before (not gathered)
  const auto not_banded = [](const engine_plan& ep) { return !ep.gather && ep.kind == engine_plan::transpose; };
  check_streamed_permute<3>({129, 4001, 31}, {1, 0, 2}, "(129,4001,31).permute(1,0,2)", not_banded, std::uint8_t{});
  check_streamed_permute<3>({1200, 1100, 11}, {1, 0, 2}, "(1200,1100,11).permute(1,0,2)", not_banded,
                            std::uint8_t{});
  check_streamed_permute<4>({600, 7, 500, 6}, {0, 2, 1, 3}, "(600,7,500,6).permute(0,2,1,3)", not_banded,
                            std::int32_t{});
  // 192-byte runs: gathered one row at a time
  const auto gathered = [](const engine_plan& ep) {
    if (!kernels::have_nt) return ep.kind == engine_plan::strided && !ep.nt;
    return ep.kind == engine_plan::run && ep.gather && ep.run_bytes == 192 && !banded_runs(ep);
  };
  check_streamed_permute<3>({500, 221, 48}, {1, 0, 2}, "(500,221,48).permute(1,0,2)", gathered, std::int32_t{});
  std::vector<float> in(1);
  tensor<float, 1> out({64});
  const engine_plan p = streaming_plan(from_blob(in.data(), {1001, 221, 17}).permute(1, 0, 2), out.data() + 1);
  if (kernels::have_nt)
    BOOST_TEST((p.run_bytes == 68 && p.nouter == 2 && p.outer[0].n == 221 && p.outer[0].ss == 68 &&
                p.outer[1].n == 1001 && p.outer[1].ds == 68 && banded_block_runs(p.run_bytes) == 8));
  tuning_scope const intel{tuning::intel};
  for (const auto& e : {from_blob(in.data(), {1001, 221, 17}).permute(1, 0, 2),
                        from_blob(in.data(), {100, 2003, 17}).permute(1, 0, 2)}) {
    const engine_plan q = streaming_plan(e, out.data() + 1);
    BOOST_TEST((q.kind == engine_plan::strided && !q.nt));
  }
  BOOST_TEST(!streaming_plan(from_blob(in.data(), {1001, 1003, 5}).permute(1, 0, 2), out.data()).gather);
}

// Runs of 256 bytes (wide_element_run_bytes), a loop of four 64-byte elements in place, stream as
// runs past the threshold where they start on a line: (300,220,64).permute(1,0,2) int32 (16.9 MB)
// in source order (copy_nt); (32,2048,64).permute(1,0,2) (16.8 MB), which order_runs leaves in
// destination order (2048 runs open in source order against 32), in source order too under zen
// (32 source streams, long_runs_by_source), straight in destination order under intel
// (intel_straight_runs). One element off a line, they gather under zen and keep the strided plan
// under intel.
BOOST_AUTO_TEST_CASE(streaming_runs_of_wide_elements) {
  std::vector<float> in(1);
  tensor<float, 1> out({64});
  const auto src_order = from_blob(in.data(), {300, 220, 64}).permute(1, 0, 2);
  const auto dst_order = from_blob(in.data(), {32, 2048, 64}).permute(1, 0, 2);
  BOOST_TEST(plan_of(src_order, 4).kind == engine_plan::strided);
  for (const tuning t : {tuning::zen, tuning::intel}) {
    tuning_scope const scope{t};
    for (unsigned th : {1u, 2u}) {
      const engine_plan a = streaming_plan(src_order, out.data(), th);
      const engine_plan b = streaming_plan(dst_order, out.data(), th);
      if (kernels::have_nt && reinterpret_cast<std::uintptr_t>(out.data()) % 32 == 0) {
        BOOST_TEST((a.kind == engine_plan::run && a.run_bytes == 256 && a.nt && !a.gather));
        BOOST_TEST((a.nouter == 2 && a.outer[1].ss == 256 && a.outer[1].ds == 300 * 256));
        if (t == tuning::zen)
          BOOST_TEST((b.kind == engine_plan::run && b.run_bytes == 256 && b.nt && !b.gather && b.nouter == 2 &&
                      b.outer[0].n == 32 && b.outer[1].ss == 256 && b.outer[1].ds == 32 * 256));
        else
          BOOST_TEST((b.kind == engine_plan::run && b.run_bytes == 256 && b.nt && !b.gather && b.nouter == 2 &&
                      b.outer[0].n == 2048 && b.outer[0].ss == 256 && b.outer[0].ds == 32 * 256 &&
                      b.outer[1].n == 32 && b.outer[1].ds == 256));
      } else {
        BOOST_TEST((a.kind == engine_plan::strided && !a.nt && b.kind == engine_plan::strided && !b.nt));
      }
      // one element off a line: gathered under zen, as runs of 280 or 348 bytes are; in place,
      // strided, under intel (runs under intel_in_place_run_bytes)
      for (const engine_plan& off :
           {streaming_plan(src_order, out.data() + 1, th), streaming_plan(dst_order, out.data() + 1, th)}) {
        if (t == tuning::zen && kernels::have_nt)
          BOOST_TEST((off.kind == engine_plan::run && off.run_bytes == 256 && off.gather && off.nt));
        else
          BOOST_TEST((off.kind == engine_plan::strided && !off.nt));
      }
    }
  }
  tuning_scope const intel{tuning::intel};
  // on a line: streamed in source order (as_streamed_runs) and straight in destination order;
  // an element off it: strided, in place
  const auto run_or_strided = [](bool by_source) {
    return [by_source](const engine_plan& p, index_t shift) {
      if (shift != 0 || !kernels::have_nt) return p.kind == engine_plan::strided && !p.nt;
      return p.kind == engine_plan::run && p.run_bytes == 256 && p.nt && !p.gather && strictly_ordered(p, by_source);
    };
  };
  check_streamed_permute<3>({300, 220, 64}, {1, 0, 2}, "(300,220,64).permute(1,0,2)", run_or_strided(true),
                            std::int32_t{});
  check_streamed_permute<3>({32, 2048, 64}, {1, 0, 2}, "(32,2048,64).permute(1,0,2)", run_or_strided(false),
                            std::int32_t{});
}

// Runs of 256 bytes to gather_max_run_bytes in destination order that are whole lines on lines
// stream in source order under zen from more than 16 source streams (long_runs_by_source), and
// gather from fewer or off lines: (24,2048,80).permute(1,0,2) fp32 (320-byte runs, 24 streams),
// (4,6,1823,96).permute(2,0,1,3) (384, 24 streams in two loops), (16,1024,256) (1 KiB, 16 streams);
// values on 1 and 2 threads, on a line and one element off.
BOOST_AUTO_TEST_CASE(streaming_long_runs_by_source) {
  tuning_scope const zen{tuning::zen};
  const auto by_source = [](index_t run, bool source) {
    return [run, source](const engine_plan& p, index_t shift) {
      if (!kernels::have_nt) return !p.nt;
      if (shift != 0 || !source) return p.kind == engine_plan::run && p.run_bytes == run && p.nt && p.gather;
      return p.kind == engine_plan::run && p.run_bytes == run && p.nt && !p.gather && strictly_ordered(p, true);
    };
  };
  check_streamed_permute<3>({24, 2048, 80}, {1, 0, 2}, "(24,2048,80).permute(1,0,2)", by_source(320, true), float{});
  check_streamed_permute<4>({4, 6, 1823, 96}, {2, 0, 1, 3}, "(4,6,1823,96).permute(2,0,1,3)", by_source(384, true),
                            float{});
  check_streamed_permute<3>({16, 1024, 256}, {1, 0, 2}, "(16,1024,256).permute(1,0,2)",
                            by_source(1024, false), float{});
  // under intel, on lines: straight in destination order (intel_straight_runs), from any number
  // of streams, where runs of intel_in_place_run_bytes or more would otherwise stay in place
  // below intel_run_streaming_threshold; off lines: in place
  tuning_scope const intel{tuning::intel};
  const auto straight = [](index_t run) {
    return [run](const engine_plan& p, index_t shift) {
      if (shift != 0 || !kernels::have_nt) return p.kind == engine_plan::run && p.run_bytes == run && !p.nt && !p.gather;
      return p.kind == engine_plan::run && p.run_bytes == run && p.nt && !p.gather && strictly_ordered(p, false);
    };
  };
  check_streamed_permute<3>({24, 2048, 80}, {1, 0, 2}, "(24,2048,80).permute(1,0,2), intel", straight(320), float{});
  check_streamed_permute<4>({4, 6, 1823, 96}, {2, 0, 1, 3}, "(4,6,1823,96).permute(2,0,1,3), intel", straight(384),
                            float{});
  check_streamed_permute<3>({16, 1024, 256}, {1, 0, 2}, "(16,1024,256).permute(1,0,2), intel", straight(1024),
                            float{});
}

// Runs of 65 to 255 bytes, a loop of elements in place (128 bytes: two of 64; 68: 17 of 4), stream
// as gathered runs past the threshold under zen where order_runs left them in source order:
// (600,220,32).permute(1,0,2) and (1000,220,17).permute(1,0,2) fp32 (16.9 and 15.0 MB), aligned
// or not. In destination order ((64,2048,32).permute(1,0,2): 2048 runs open in source order
// against 64), where they are whole lines on lines, they stream in destination order from up to
// 16 source rows and in source order from more (order_line_runs), under intel in destination
// order from any number (intel_straight_runs); off lines under zen, runs under
// banded_max_run_bytes gather in bands (banded_runs); the others off lines, and under intel where
// order_runs left them in source order, keep the strided plan, whose runs move as 64-byte moves
// (kernels::strided_runs): values in place too, in cache, for runs of 68, 96, 100, 140, 160 and
// 256 bytes of 1-, 2-, 4- and 8-byte elements, and on 1 and 2 threads.
BOOST_AUTO_TEST_CASE(streaming_short_runs_of_wide_elements) {
  std::vector<float> in(1);
  tensor<float, 1> out({64});
  const auto src_order = from_blob(in.data(), {600, 220, 32}).permute(1, 0, 2);
  const auto odd_run = from_blob(in.data(), {1000, 220, 17}).permute(1, 0, 2);
  const auto dst_order = from_blob(in.data(), {64, 2048, 32}).permute(1, 0, 2);
  const auto few_rows = from_blob(in.data(), {16, 8192, 32}).permute(1, 0, 2);
  const engine_plan strided = plan_of(src_order, 4);
  BOOST_TEST((strided.kind == engine_plan::strided && strided.elem == 64 && strided.inner.n == 2));
  BOOST_TEST((plan_of(odd_run, 4).kind == engine_plan::strided && plan_of(odd_run, 4).elem == 4));
  for (const tuning t : {tuning::zen, tuning::intel}) {
    tuning_scope const scope{t};
    for (unsigned th : {1u, 2u})
      for (const float* d : {out.data(), out.data() + 1}) {
        const engine_plan a = streaming_plan(src_order, d, th), b = streaming_plan(odd_run, d, th);
        if (t == tuning::zen && kernels::have_nt) {
          BOOST_TEST((a.kind == engine_plan::run && a.run_bytes == 128 && a.gather && a.nt));
          BOOST_TEST((b.kind == engine_plan::run && b.run_bytes == 68 && b.gather && b.nt));
        } else {
          BOOST_TEST((a.kind == engine_plan::strided && !a.nt && b.kind == engine_plan::strided && !b.nt));
        }
        // destination order from 64 source rows: streamed where the runs start on lines
        // (order_line_runs), in source order under the zen tunings and in destination order under
        // intel; off lines, gathered in bands under zen (banded_runs); else in place
        const auto banded_or_in_place = [&](const engine_plan& p) {
          if (t == tuning::zen && kernels::have_nt)
            return in_bands(p, 128);
          return p.kind == engine_plan::strided && !p.nt;
        };
        const engine_plan c = streaming_plan(dst_order, d, th);
        if (t == tuning::zen && kernels::have_nt && d == out.data())
          BOOST_TEST((c.kind == engine_plan::run && c.run_bytes == 128 && c.nt && !c.gather && c.nouter == 2 &&
                      c.outer[0].n == 64 && c.outer[0].ss == 2048 * 128 && c.outer[0].ds == 128 &&
                      c.outer[1].n == 2048 && c.outer[1].ss == 128 && c.outer[1].ds == 64 * 128));
        else if (kernels::have_nt && d == out.data())
          BOOST_TEST((c.kind == engine_plan::run && c.run_bytes == 128 && c.nt && !c.gather && c.nouter == 2 &&
                      c.outer[0].n == 2048 && c.outer[0].ss == 128 && c.outer[0].ds == 64 * 128 &&
                      c.outer[1].n == 64 && c.outer[1].ss == 2048 * 128 && c.outer[1].ds == 128));
        else
          BOOST_TEST(banded_or_in_place(c));
        // from 16 source rows: streamed in destination order
        const engine_plan f = streaming_plan(few_rows, d, th);
        if (kernels::have_nt && d == out.data())
          BOOST_TEST((f.kind == engine_plan::run && f.run_bytes == 128 && f.nt && !f.gather && f.nouter == 2 &&
                      f.outer[0].n == 8192 && f.outer[0].ss == 128 && f.outer[0].ds == 16 * 128 &&
                      f.outer[1].n == 16 && f.outer[1].ss == 8192 * 128 && f.outer[1].ds == 128));
        else
          BOOST_TEST(banded_or_in_place(f));
      }
  }
  tuning_scope const zen{tuning::zen};
  const auto gathered = [](index_t run) {
    return [run](const engine_plan& p) {
      return (p.kind == engine_plan::run && p.run_bytes == run && p.gather == kernels::have_nt) ||
             (!kernels::have_nt && p.kind == engine_plan::strided);
    };
  };
  check_streamed_permute<3>({600, 220, 32}, {1, 0, 2}, "(600,220,32).permute(1,0,2)", gathered(128), std::int32_t{});
  check_streamed_permute<3>({1000, 220, 17}, {1, 0, 2}, "(1000,220,17).permute(1,0,2)", gathered(68), std::int32_t{});
  const auto in_place = [](const engine_plan& p) { return p.kind == engine_plan::strided && !p.nt; };
  // runs on lines (shift 0) from more than 16 source rows: streamed in source order; from 16 or
  // fewer, in destination order; off lines, runs under banded_max_run_bytes (128 bytes here)
  // gather in bands (`bands`), longer ones (192) stay in place. Source rows 2056 and 5501 runs
  // long, 24 rows (streams), 4-D (two loops of streams, 4 x 4 and 4 x 5 of them, one loop to the
  // bands), 2 and 3 threads too (copies that start mid-row, kernels::run_rows).
  const auto streamed = [](index_t run, bool src_order, bool bands = false) {
    return [run, src_order, bands](const engine_plan& p, index_t shift) {
      if (shift != 0 && bands && kernels::have_nt)
        return in_bands(p, run);
      if (shift != 0 || !kernels::have_nt) return p.kind == engine_plan::strided && !p.nt;
      return p.kind == engine_plan::run && p.run_bytes == run && p.nt && !p.gather && strictly_ordered(p, src_order);
    };
  };
  check_streamed_permute<3>({64, 2048, 32}, {1, 0, 2}, "(64,2048,32).permute(1,0,2)",
                            streamed(128, true, true), std::int32_t{});
  check_streamed_permute<3>({64, 2048, 48}, {1, 0, 2}, "(64,2048,48).permute(1,0,2)",
                            streamed(192, true), std::int32_t{});
  check_streamed_permute<3>({64, 2048, 64}, {1, 0, 2}, "(64,2048,64).permute(1,0,2)",
                            streamed(128, true, true), std::uint16_t{});
  check_streamed_permute<3>({64, 2056, 32}, {1, 0, 2}, "(64,2056,32).permute(1,0,2)",
                            streamed(128, true, true), std::int32_t{});
  check_streamed_permute<3>({24, 5501, 32}, {1, 0, 2}, "(24,5501,32).permute(1,0,2)",
                            streamed(128, true, true), std::int32_t{});
  check_streamed_permute<4>({4, 5, 6600, 32}, {2, 0, 1, 3}, "(4,5,6600,32).permute(2,0,1,3)",
                            streamed(128, true, true), float{});
  check_streamed_permute<3>({16, 8192, 32}, {1, 0, 2}, "(16,8192,32).permute(1,0,2)",
                            streamed(128, false, true), std::int32_t{});
  check_streamed_permute<3>({12, 10923, 48}, {1, 0, 2}, "(12,10923,48).permute(1,0,2)", streamed(192, false), float{});
  check_streamed_permute<4>({4, 4, 8200, 32}, {2, 0, 1, 3}, "(4,4,8200,32).permute(2,0,1,3)",
                            streamed(128, false, true), float{});
  // 3 threads: ranges that start and end mid-row, in both orders (under intel, in destination
  // order)
  std::vector<float> x(16 * 8192 * 32), y(x.size() + 32), want(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  float* const at = y.data() + (64 - reinterpret_cast<std::uintptr_t>(y.data()) % 64) / 4;
  for (const tuning t : {tuning::zen, tuning::intel}) {
    tuning_scope const scope{t};
    for (const index_t rows : {16, 64}) {
      const index_t cols = 16 * 8192 / rows;
      for (index_t i = 0; i < rows; ++i)
        for (index_t j = 0; j < cols; ++j)
          std::copy_n(x.begin() + (i * cols + j) * 32, 32, want.begin() + (j * rows + i) * 32);
      std::fill(y.begin(), y.end(), -1.0f);
      copy(from_blob(static_cast<const float*>(x.data()), {rows, cols, 32}).permute(1, 0, 2),
           from_blob(at, {cols, rows, 32}), threads{3});
      BOOST_TEST(std::equal(want.begin(), want.end(), at), "(" << rows << "," << cols << ",32).permute(1,0,2), 3 threads"
                                                               << (t == tuning::intel ? ", intel" : ""));
      BOOST_TEST((at[-1] == -1.0f && at[x.size()] == -1.0f));
    }
  }
  check_streamed_permute<3>({40, 50, 17}, {1, 0, 2}, "(40,50,17).permute(1,0,2)", in_place, std::int32_t{});
  check_streamed_permute<3>({30, 41, 24}, {1, 0, 2}, "(30,41,24).permute(1,0,2)", in_place, float{});
  check_streamed_permute<4>({9, 5, 13, 100}, {2, 0, 1, 3}, "(9,5,13,100).permute(2,0,1,3)", in_place, std::uint8_t{});
  check_streamed_permute<3>({21, 33, 70}, {1, 0, 2}, "(21,33,70).permute(1,0,2)", in_place, std::uint16_t{});
  check_streamed_permute<3>({17, 23, 20}, {1, 0, 2}, "(17,23,20).permute(1,0,2)", in_place, std::uint64_t{});
  check_streamed_permute<3>({17, 23, 32}, {1, 0, 2}, "(17,23,32).permute(1,0,2)", in_place, std::uint64_t{});
  // under intel, on lines: in destination order from any number of source rows
  tuning_scope const intel{tuning::intel};
  check_streamed_permute<3>({64, 2048, 32}, {1, 0, 2}, "(64,2048,32).permute(1,0,2), intel",
                            streamed(128, false), std::int32_t{});
  check_streamed_permute<3>({64, 2048, 64}, {1, 0, 2}, "(64,2048,64).permute(1,0,2), intel",
                            streamed(128, false), std::uint16_t{});
  check_streamed_permute<4>({4, 5, 6600, 32}, {2, 0, 1, 3}, "(4,5,6600,32).permute(2,0,1,3), intel",
                            streamed(128, false), float{});
}

namespace {
// A transpose of odd-sized elements that streams where the target has streaming stores.
bool odd_streamed(const engine_plan& ep) {
  return ep.kind == engine_plan::transpose && !is_pow2_upto64(ep.elem) && ep.nt == kernels::have_nt;
}
// The same, its units taking A whole (their rows back to back).
bool odd_whole_rows(const engine_plan& ep) {
  return odd_streamed(ep) && (!kernels::have_nt || (ep.blocks_a == 1 && ep.block_a >= ep.nA));
}
}  // namespace

// Transposes of odd-sized elements past 12 MiB whose units' destination rows lie back to back
// stream through the same buffer (kernels::transpose_block_odd): (4,7,19000,6).permute(0,2,1,3)
// (the agents chain's form: 24-byte elements, rows of 168 bytes), (4,26,3100,10).permute(0,2,1,3)
// (40-byte elements, rows of 1040). Longer rows take A whole, so that they too lie back to
// back: (4,40,20,4,20,14).permute(2,3,4,0,1,5) (56-byte elements, rows of 8960 bytes, A in
// blocks of 8 in place), (100,4000,10).permute(1,0,2) (40-byte, rows of 4000),
// (500,2200,3).permute(1,0,2) (12-byte, rows of 6000, units starting mid-line). Rows of
// odd_stage_min_a elements or more stage source row by source row (kernels::stage_rows_odd: the
// last three), in stages of equal rows whose last partial line carries into the
// next; rows over half of odd_stage_bytes go into the buffer in pieces:
// (700,700,7).permute(1,0,2) (28-byte, rows of 19600). Rows that gather from
// odd_rows_in_place_a source rows or more stay in place (A in blocks): (2000,500,6).permute(1,0,2)
// (24-byte, A = 2000). Rows that lie apart stay in place: (26,785,20,10).permute(2,1,0,3), whose
// group B's first member moves the destination by 785 rows; so do long rows in cache.
BOOST_AUTO_TEST_CASE(streaming_odd_rows) {
  // The rows of 4000 bytes or more go in bands under zen (banded_runs; their values:
  // streaming_runs_banded), and keep the plans below under intel, whose values are checked here.
  // (zen3 keeps some of these in place: streaming_odd_rows_zen3)
  std::vector<float> in(1);
  tensor<float, 1> out({64});
  for (const tuning t : {tuning::zen, tuning::intel}) {
    tuning_scope const scope{t};
    const auto plan3 = [&](index_t a, index_t b, index_t f) {
      return streamed_plan_of(from_blob(in.data(), {a, b, f}).permute(1, 0, 2), 4, out.data(), a * b * f * 4);
    };
    const bool zen = t == tuning::zen && kernels::have_nt;
    const engine_plan agents = streamed_plan_of(from_blob(in.data(), {4, 7, 19000, 6}).permute(0, 2, 1, 3), 4,
                                                out.data(), index_t{4} * 7 * 19000 * 6 * 4);
    BOOST_TEST(odd_streamed(agents));
    // its source rows' lines asked for ahead under zen, not under intel (odd_source_ahead_bytes)
    BOOST_TEST(odd_source_ahead_bytes(agents) == (t == tuning::intel ? 0 : odd_rows_ahead_bytes));
    BOOST_TEST((zen ? in_bands(plan3(100, 4000, 10)) : odd_whole_rows(plan3(100, 4000, 10))));
    BOOST_TEST((zen ? in_bands(plan3(500, 2200, 3)) : odd_whole_rows(plan3(500, 2200, 3))));
    BOOST_TEST((zen ? in_bands(plan3(700, 700, 7)) : odd_whole_rows(plan3(700, 700, 7))));
  }
  tuning_scope const intel{tuning::intel};
  check_streamed_permute<4>({4, 7, 19000, 6}, {0, 2, 1, 3}, "(4,7,19000,6).permute(0,2,1,3)", odd_streamed);
  check_streamed_permute<4>({4, 26, 3100, 10}, {0, 2, 1, 3}, "(4,26,3100,10).permute(0,2,1,3)", odd_streamed);
  check_streamed_permute<6>({4, 40, 20, 4, 20, 14}, {2, 3, 4, 0, 1, 5}, "(4,40,20,4,20,14).permute(2,3,4,0,1,5)",
                            odd_whole_rows);
  check_streamed_permute<3>({100, 4000, 10}, {1, 0, 2}, "(100,4000,10).permute(1,0,2)", odd_whole_rows);
  check_streamed_permute<3>({500, 2200, 3}, {1, 0, 2}, "(500,2200,3).permute(1,0,2)", odd_whole_rows);
  static_assert(700 * 28 > kernels::odd_stage_bytes / 2 && 700 < odd_rows_in_place_a);
  check_streamed_permute<3>({700, 700, 7}, {1, 0, 2}, "(700,700,7).permute(1,0,2)", odd_whole_rows);
  const auto many_rows = [](const engine_plan& ep) {
    return ep.kind == engine_plan::transpose && !is_pow2_upto64(ep.elem) && !ep.nt && ep.blocks_a > 1 &&
           ep.nA >= odd_rows_in_place_a;
  };
  check_streamed_permute<3>({2000, 500, 6}, {1, 0, 2}, "(2000,500,6).permute(1,0,2)", many_rows);
  const engine_plan cached =
      streamed_plan_of(from_blob(in.data(), {300, 1000, 3}).permute(1, 0, 2), 4, out.data(), index_t{300} * 1000 * 3 * 4);
  BOOST_TEST((cached.kind == engine_plan::transpose && cached.elem == 12 && !cached.nt && cached.blocks_a > 1));
  const engine_plan apart = streamed_plan_of(from_blob(in.data(), {26, 785, 20, 10}).permute(2, 1, 0, 3), 4, out.data(),
                                             index_t{26} * 785 * 20 * 10 * 4);
  BOOST_TEST((apart.kind == engine_plan::transpose && apart.elem == 40 && !apart.nt));
}

// Under the zen3 tuning, rows that would stage (A of odd_stage_min_a or more) of elements wider
// than 16 bytes stay in place, A in blocks (odd_rows_in_place): (4,40,20,4,20,14).permute(2,3,4,0,1,5)
// (56-byte elements, A = 160; its values on 1 and 2 threads), (100,4000,10).permute(1,0,2)
// (40-byte), (700,700,7) (28-byte, rows in pieces), (300,3000,5) (20-byte). As under zen, 12-byte
// elements stream ((500,2200,3)), and so do rows of fewer source rows: (40,10000,10) (A = 40 in
// blocks, taken whole) and (4,26,3100,10).permute(0,2,1,3) (A = 26, short rows).
BOOST_AUTO_TEST_CASE(streaming_odd_rows_zen3) {
  tuning_scope const zen3{tuning::zen3};
  const auto in_place = [](const engine_plan& ep) {
    return ep.kind == engine_plan::transpose && !is_pow2_upto64(ep.elem) && !ep.nt && ep.blocks_a > 1 &&
           ep.nA >= kernels::odd_stage_min_a && ep.nA < odd_rows_in_place_a;
  };
  check_streamed_permute<6>({4, 40, 20, 4, 20, 14}, {2, 3, 4, 0, 1, 5}, "(4,40,20,4,20,14).permute(2,3,4,0,1,5)",
                            in_place);
  std::vector<float> in(1);
  tensor<float, 1> out({64});
  const auto plan_of3 = [&](index_t a, index_t b, index_t f) {
    return streamed_plan_of(from_blob(in.data(), {a, b, f}).permute(1, 0, 2), 4, out.data(), a * b * f * 4);
  };
  BOOST_TEST(in_place(plan_of3(100, 4000, 10)));
  BOOST_TEST(in_place(plan_of3(700, 700, 7)));
  BOOST_TEST(in_place(plan_of3(300, 3000, 5)));
  BOOST_TEST(odd_whole_rows(plan_of3(500, 2200, 3)));
  BOOST_TEST(odd_whole_rows(plan_of3(40, 10000, 10)));
  BOOST_TEST(odd_streamed(streamed_plan_of(from_blob(in.data(), {4, 26, 3100, 10}).permute(0, 2, 1, 3), 4, out.data(),
                                           index_t{4} * 26 * 3100 * 10 * 4)));
}

// Transposes of tiled elements past 12 MiB whose units each write one dense stretch (A whole,
// rows of consecutive B indices back to back) stream through a buffer laid out like that
// stretch (engine_plan::nt_dense, kernels::transpose_dense), rows that start mid-line
// included: (86,59,45,18).permute(1,2,3,0) ((86,47790).t(), source rows 191 KB apart,
// destination rows of 344 bytes), and (P,86,50).permute(0,2,1) (rows of 86 elements, source
// rows 50 elements apart) in 1-, 2-, 4- and 8-byte elements, a block's last rows and each
// thread's range starting mid-line; and (540,480,50).permute(0,2,1) in uint8 (rows of 480
// bytes), whose slices of B are held to dense_slice_bytes (32 rows, not dense_visit_bytes'
// 128). Rows of whole lines on an aligned destination keep the streamed tiles that write them
// whole (nt without nt_dense), and take nt_dense two bytes off it (one element off, lines
// moved by its 4 bytes, nt_shifted, where the target's tiles stream whole lines); rows that lie apart
// ((65,58,1119).permute(2,1,0), rows of 260 bytes 15080 apart) and plans in cache do not take
// it. Units over close source rows ask for the next unit's lines, those over far-apart ones for
// lines further along their own rows.
BOOST_AUTO_TEST_CASE(streaming_dense_units) {
  tuning_scope const zen{tuning::zen};  // (the requests and blocks stated here: the zen tuning's)
  const bool nt = kernels::have_nt;
  const auto dense = [](const engine_plan& ep) {
    return ep.kind == engine_plan::transpose && ep.nt == kernels::have_nt && ep.nt_dense == kernels::have_nt &&
           ep.blocks_a == 1;
  };
  check_streamed_permute<4>({86, 59, 45, 18}, {1, 2, 3, 0}, "(86,59,45,18).permute(1,2,3,0)", dense);
  check_streamed_permute<3>({3000, 86, 50}, {0, 2, 1}, "(3000,86,50).permute(0,2,1)", dense, std::uint8_t{});
  check_streamed_permute<3>({1500, 86, 50}, {0, 2, 1}, "(1500,86,50).permute(0,2,1)", dense, std::uint16_t{});
  check_streamed_permute<3>({1000, 86, 50}, {0, 2, 1}, "(1000,86,50).permute(0,2,1)", dense);
  check_streamed_permute<3>({400, 86, 50}, {0, 2, 1}, "(400,86,50).permute(0,2,1)", dense, std::uint64_t{});
  check_streamed_permute<3>({1080, 240, 50}, {0, 2, 1}, "(1080,240,50).permute(0,2,1)", dense, std::uint8_t{});
  std::vector<float> in(1);
  tensor<float, 1> out({64});
  const float* d = out.data();
  const auto whole_lines = from_blob(in.data(), {1000, 64, 50}).permute(0, 2, 1);  // rows of 256 bytes
  // one element off a line, lines moved by 4 bytes where the target streams them from its
  // tiles, whole-line or register ones (nt_shifted, eval_shifted.cpp); two bytes off, never
  const engine_plan aligned = streaming_plan(whole_lines, d), off = streaming_plan(whole_lines, d + 1);
  const engine_plan off2 = streaming_plan(whole_lines, reinterpret_cast<const char*>(d) + 2);
  BOOST_TEST((aligned.nt == nt && !aligned.nt_dense));
  const bool tiles = kernels::tile_of(4) > 1;  // (a portable build has none: no nt_dense)
  const bool shifted = kernels::line_tile_of(4) > 1 || kernels::stream_lines_fit(4);  // (rows of 256 bytes)
  BOOST_TEST((off.nt_dense == (nt && !shifted) && off.nt_shifted == (nt && shifted) && off2.nt_dense == nt));
  BOOST_TEST((!off2.nt_shifted && dense_rows_fit(off2) == tiles));
  BOOST_TEST(dense_rows_fit(off) == tiles);
  // close source rows ask for the next unit's lines; far-apart ones for their own, further on
  if (off2.nt_dense) BOOST_TEST(prefetch_next_unit(off2));
  const engine_plan far = streaming_plan(from_blob(in.data(), {86, 59, 45, 18}).permute(1, 2, 3, 0), d);
  if (far.nt_dense) BOOST_TEST((!prefetch_next_unit(far) && transpose_prefetch_distance(far) != 0));
  const engine_plan apart = streaming_plan(from_blob(in.data(), {65, 58, 1119}).permute(2, 1, 0), d);
  BOOST_TEST((apart.kind == engine_plan::transpose && !dense_rows_fit(apart) && !apart.nt_dense));
  const engine_plan cached = streaming_plan(from_blob(in.data(), {500, 86, 50}).permute(0, 2, 1), d);  // 8.6 MB
  BOOST_TEST((dense_rows_fit(cached) == tiles && !cached.nt));
}

// Far-row transposes whose destination rows are too short to stream as make_engine_plan grouped
// them stream with group A widened by the loops that continue it in the destination
// (widen_group_a): an outer loop ((65,58,1119).permute(2,1,0): rows of 260 -> 15080 bytes), a
// member of B ((5,15,37,5,15,19).permute(3,1,5,0,4,2): 148 -> 2220 bytes, B 1425 -> 19;
// (150,40,700).permute(2,1,0): 600 -> 24000 bytes, on lines where the destination is), through
// nt_rows or, on lines, whole-line tiles; and so do such transposes over close source rows
// ((23,21,5,42,44).permute(2,4,0,1,3): 168 -> 81144 bytes). Values at 1 and 2 threads, 4- and
// 8-byte elements.
BOOST_AUTO_TEST_CASE(streaming_widened_rows) {
  std::vector<float> in(1);
  const float* x = in.data();  // plans only: nothing is read
  engine_plan outer = plan_of(from_blob(x, {65, 58, 1119}).permute(2, 1, 0), 4);
  BOOST_TEST((outer.kind == engine_plan::transpose && outer.nA == 65 && outer.nouter == 1));
  BOOST_TEST(widen_group_a(outer, nt_rows_long_row_bytes));
  BOOST_TEST((outer.na == 2 && outer.nA == 3770 && outer.nB == 1119 && outer.nouter == 0));
  BOOST_TEST((outer.block_a * (outer.blocks_a - 1) < outer.nA && outer.nA <= outer.block_a * outer.blocks_a));
  engine_plan member = plan_of(from_blob(x, {5, 15, 37, 5, 15, 19}).permute(3, 1, 5, 0, 4, 2), 4);
  BOOST_TEST((member.nA == 37 && member.nb == 3 && member.nB == 1425 && member.nouter == 2));
  BOOST_TEST(widen_group_a(member, nt_rows_long_row_bytes));
  BOOST_TEST((member.na == 2 && member.nA == 555 && member.nb == 1 && member.nB == 19 && member.nouter == 3));
  BOOST_TEST(member.blocks_b == 1);
  // nothing continues A = 20 ((15,322) of B: the 15 is B's first member, contiguous in the source)
  engine_plan none = plan_of(from_blob(x, {20, 44, 46, 7, 15}).permute(2, 3, 1, 4, 0), 4);
  const index_t none_a = none.nA;
  BOOST_TEST(!widen_group_a(none, nt_rows_long_row_bytes));
  BOOST_TEST(none_a == 20);

  const auto widened = [](index_t E) {
    return [E](const engine_plan& ep) {
      const bool streams = kernels::have_nt && kernels::rows_tile_of(static_cast<int>(E)) > 1;
      return ep.nt == streams && (!streams || ep.nA * ep.elem >= nt_rows_long_row_bytes);
    };
  };
  check_streamed_permute<3>({65, 58, 1119}, {2, 1, 0}, "(65,58,1119).permute(2,1,0)", widened(4));
  check_streamed_permute<3>({65, 58, 560}, {2, 1, 0}, "(65,58,560).permute(2,1,0)", widened(8), std::uint64_t{});
  check_streamed_permute<6>({5, 15, 37, 5, 15, 19}, {3, 1, 5, 0, 4, 2}, "(5,15,37,5,15,19).permute(3,1,5,0,4,2)",
                            widened(4));
  check_streamed_permute<3>({150, 40, 700}, {2, 1, 0}, "(150,40,700).permute(2,1,0)", widened(4));
  // Source rows close together (176 bytes apart), destination rows of 168 bytes: in place as
  // grouped with 8-wide tiles, streamed widened by the 21 and the 23 (A = 20286).
  engine_plan close = plan_of(from_blob(x, {23, 21, 5, 42, 44}).permute(2, 4, 0, 1, 3), 4);
  BOOST_TEST((close.kind == engine_plan::transpose && !far_or_scattered(close)));
  if (close.nA == 42) {
    BOOST_TEST(widen_group_a(close, nt_rows_long_row_bytes));
    BOOST_TEST((close.nA == 20286 && close.nB == 44 && close.nouter == 1));
  }
  check_streamed_permute<5>({23, 21, 5, 42, 44}, {2, 4, 0, 1, 3}, "(23,21,5,42,44).permute(2,4,0,1,3)", widened(4));
}

// Transposes whose units write stretches of rows back to back, fewer than a unit's, past the
// threshold: (20,44,46,7,15).permute(2,3,1,4,0) (A = 20, rows of 80 bytes in stretches of the 15
// of B, 1200 bytes each, B = (15,322) in chunks of 255) streams stretch by stretch
// (engine_plan::stretch_b, kernels::transpose_stretches). Values at 1 and 2 threads for 1-, 2-,
// 4- and 8-byte elements (rows of 80, 80, 80 and 160 bytes; a 1-byte tile too tall for the
// buffer stays in place).
BOOST_AUTO_TEST_CASE(streaming_dense_stretches) {
  std::vector<float> in(1);
  const float* x = in.data();  // plans only: nothing is read
  const engine_plan grouped = plan_of(from_blob(x, {20, 44, 46, 7, 15}).permute(2, 3, 1, 4, 0), 4);
  BOOST_TEST((grouped.nA == 20 && grouped.nb == 2 && grouped.gb[0].n == 15 && grouped.gb[0].ds == 80));
  BOOST_TEST(dense_stretch_rows(grouped) == (kernels::tile_of(4) > 1 ? 15 : 0));
  BOOST_TEST(!dense_rows_fit(grouped));
  // stretches of under stretch_min_bytes: none ((20,44,46,7,3): 240 bytes)
  BOOST_TEST(dense_stretch_rows(plan_of(from_blob(x, {20, 44, 46, 7, 3}).permute(2, 3, 1, 4, 0), 4)) == 0);
  const auto stretched = [](index_t E) {
    return [E](const engine_plan& ep) {
      const bool tiles = kernels::tile_of(static_cast<int>(E)) > 1;
      const bool fits = tiles && kernels::tile_of(static_cast<int>(E)) * ep.nA * E <= dense_tile_rows_bytes;
      const bool streams = kernels::have_nt && fits;
      return ep.nt_dense == streams && (!streams || (ep.stretch_b == 15 && ep.block_b % 15 == 0));
    };
  };
  const std::array<index_t, 5> sizes{20, 44, 46, 7, 15}, perm{2, 3, 1, 4, 0};
  const char* what = "(20,44,46,7,15).permute(2,3,1,4,0)";
  check_streamed_permute<5>(sizes, perm, what, stretched(4));
  check_streamed_permute<5>({40, 44, 46, 7, 15}, perm, "(40,44,46,7,15).permute(2,3,1,4,0)", stretched(2),
                            std::uint16_t{});
  check_streamed_permute<5>({80, 44, 46, 7, 15}, perm, "(80,44,46,7,15).permute(2,3,1,4,0)", stretched(1),
                            std::uint8_t{});
  check_streamed_permute<5>({20, 44, 23, 7, 15}, perm, "(20,44,23,7,15).permute(2,3,1,4,0)", stretched(8),
                            std::uint64_t{});
}

// Transposes of 16- and 32-byte elements (runs of 4 and 8 fp32) stream straight from their
// tiles, whose rows are whole lines, where every destination row starts on a line (AVX-512:
// eval/wide_micro.hpp); one fp32 off a line, and without those tiles, in place. Far-apart source
// rows (kernels::transpose_stream_lines) and close ones (the buffered way), B not a whole number
// of tiles; 4.5 to 5.2 MB, past the intel tuning's thresholds at 1 and 2 threads.
BOOST_AUTO_TEST_CASE(streaming_wide_elements) {
  tuning_scope const intel{tuning::intel};
  const auto wide = [](index_t E) {
    return [E](const engine_plan& ep, index_t shift) {
      const bool streams = kernels::have_nt && kernels::tile_of(static_cast<int>(E)) > 1 && shift == 0;
      return ep.elem == E && ep.nt == streams && !ep.nt_rows;
    };
  };
  check_streamed_permute<3>({256, 1101, 4}, {1, 0, 2}, "(256,1101,4).permute(1,0,2)", wide(16));
  check_streamed_permute<3>({36000, 9, 4}, {1, 0, 2}, "(36000,9,4).permute(1,0,2)", wide(16));
  check_streamed_permute<3>({128, 1101, 8}, {1, 0, 2}, "(128,1101,8).permute(1,0,2)", wide(32));
}

BOOST_AUTO_TEST_CASE(streaming_line_elements) {
  // Runs of 64 bytes transposed (16 fp32 kept whole) stream where every destination line is
  // whole (kernels::strided_lines_nt): blocks of 16 source rows and a tail of 11, at 1 and 2
  // threads, with and without an outer loop; a destination off its lines stays in place.
  std::vector<float> in(1);
  BOOST_TEST(line_element_transpose(plan_of(from_blob(in.data(), {1000, 1000, 16}).permute(1, 0, 2), 4)));
  BOOST_TEST(!line_element_transpose(plan_of(from_blob(in.data(), {1000, 1000, 17}).permute(1, 0, 2), 4)));
  BOOST_TEST(!line_element_transpose(plan_of(from_blob(in.data(), {1000, 16}).t(), 4)));
  const auto lines = [](const engine_plan& ep, index_t shift) {
    return ep.kind == engine_plan::strided && ep.elem == 64 && ep.nt == (kernels::have_nt && shift == 0);
  };
  check_streamed_permute<3>({203, 1000, 16}, {1, 0, 2}, "(203,1000,16).permute(1,0,2)", lines);
  check_streamed_permute<4>({2, 101, 1000, 16}, {0, 2, 1, 3}, "(2,101,1000,16).permute(0,2,1,3)", lines);
}

BOOST_AUTO_TEST_CASE(streaming_wide_elements_into_aliased_rows) {
  // Under zen, destination rows a multiple of aliased_destination_span apart take blocks of A
  // of aliased_wide_block_bytes under aliased_wide_max_bytes (aliased_wide_rows); others, and
  // the intel tuning, transpose_block_bytes.
  std::vector<float> in(1);
  tensor<float, 1> out({64});
  const auto block_bytes = [&](index_t a, index_t b, index_t c) {
    const engine_plan ep =
        streamed_plan_of(from_blob(in.data(), {a, b, c}).permute(1, 0, 2), 4, out.data(), a * b * c * 4);
    return ep.nt ? ep.block_a * ep.elem : index_t{0};
  };
  const bool tiles = kernels::have_nt && kernels::tile_of(16) > 1;
  {
    tuning_scope const zen{tuning::zen};
    BOOST_TEST(block_bytes(512, 512, 4) == (tiles ? aliased_wide_block_bytes : 0));  // rows 8192 apart, 4 MiB
    BOOST_TEST(block_bytes(1024, 512, 8) == (tiles ? aliased_wide_block_bytes : 0));
    BOOST_TEST(block_bytes(724, 724, 4) == (tiles ? transpose_block_bytes : 0));    // rows 11584 apart
    BOOST_TEST(block_bytes(4096, 1024, 4) == (tiles ? transpose_block_bytes : 0));  // 64 MiB
  }
  tuning_scope const intel{tuning::intel};
  BOOST_TEST(block_bytes(512, 512, 4) == (tiles ? transpose_block_bytes : 0));
  // values through the longer blocks: rows 4096 bytes apart, B in two chunks and a tail
  tuning_scope const zen{tuning::zen};
  check_streamed_permute<3>({256, 700, 4}, {1, 0, 2}, "(256,700,4).permute(1,0,2)",
                            [&](const engine_plan& ep, index_t shift) {
                              return shift != 0 || !tiles || (ep.nt && ep.block_a * ep.elem == aliased_wide_block_bytes);
                            });
}
