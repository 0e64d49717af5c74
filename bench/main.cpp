// lazyview_bench: every workload x thread count x implementation, side by side, then the fold-cost
// benchmarks. Names: <family>/<dtype>/<shape>/t<threads>/<implementation>.
// Bytes processed = bytes read + bytes written, both counting only the elements actually moved:
// 2 x workload::moved_bytes() (a gather reads a fraction of its source, a scatter writes a fraction of
// its destination), and memcpy and the streaming copy move those bytes. Every implementation except
// the memcpy and streaming baselines is checked once against the reference loop (a mismatch is
// reported as an error for that benchmark); a scatter's whole destination buffer is checked, so that
// a write outside the view is an error too.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <set>
#include <stdexcept>

#include "common.hpp"

namespace lvb {

namespace {

std::string join(const std::vector<index_t>& v, const char* sep = "x") {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += std::to_string(v[i]);
  }
  return s;
}

workload flux(bool pack, const char* dtype, index_t B, index_t C, index_t H, index_t W) {
  workload w;
  w.family = pack ? "flux_pack" : "flux_unpack";
  w.pack = pack;
  w.dtype = dtype;
  w.esize = esize_of(dtype);
  w.shape = join({B, C, H, W});
  w.flux = {B, C, H, W};
  const index_t h = H / 2, wd = W / 2;
  if (pack) {
    w.in = {B, C, H, W};
    w.view = {B, C, h, 2, wd, 2};
    w.perm = {0, 2, 4, 1, 3, 5};
    w.out = {B, h * wd, C * 4};
  } else {
    w.in = {B, h * wd, C * 4};
    w.view = {B, h, wd, C, 2, 2};
    w.perm = {0, 3, 1, 4, 2, 5};
    w.out = {B, C, H, W};
  }
  w.large = w.src_bytes() >= (std::size_t{32} << 20);
  return w;
}

/// actions (T, N, 6) -> reshape(G, T/G, N, 6).permute(0, 2, 1, 3).reshape(G, N, -1)
workload agents(index_t T, index_t N, index_t G) {
  workload w;
  w.family = "agents";
  w.dtype = "fp32";
  w.esize = 4;
  w.shape = join({T, N, 6});
  w.in = {T, N, 6};
  w.view = {G, T / G, N, 6};
  w.perm = {0, 2, 1, 3};
  w.out = {G, N, (T / G) * 6};
  w.large = w.src_bytes() >= (std::size_t{32} << 20);
  return w;
}

workload permutation(const char* family, const std::vector<index_t>& sizes, const std::vector<int>& perm,
                     const char* dtype = "fp32") {
  workload w;
  w.family = family;
  w.dtype = dtype;
  w.esize = esize_of(dtype);
  w.kind = workload::permute_only;
  w.in = sizes;
  w.view = sizes;
  w.perm = perm;
  w.out = w.permuted();
  w.shape = join(sizes);
  if (std::string(family) != "transpose") {
    w.shape += "_p";
    for (int p : perm) w.shape += std::to_string(p);
  }
  w.large = w.src_bytes() >= (std::size_t{32} << 20);
  return w;
}

/// HPTT-style random permutations: 5 each of rank 3, 4, 5, 6, about 2^22 elements (16 MiB fp32)
/// each, sizes drawn around the rank-th root of the volume, no identity permutation.
/// Only raw mt19937 outputs are used (their sequence is fixed by the standard).
std::vector<workload> random_permutations() {
  std::mt19937 rng(20261121u);
  auto uniform01 = [&] { return static_cast<double>(rng()) / 4294967296.0; };
  std::vector<workload> out;
  for (int rank = 3; rank <= 6; ++rank) {
    for (int rep = 0; rep < 5; ++rep) {
      std::vector<double> wgt(static_cast<std::size_t>(rank));
      double sum = 0;
      for (double& x : wgt) sum += (x = 0.5 + uniform01());
      std::vector<index_t> sizes;
      for (double x : wgt) sizes.push_back(std::max<index_t>(2, std::llround(std::exp2(22.0 * x / sum))));
      std::vector<int> perm(static_cast<std::size_t>(rank));
      bool identity = true;
      while (identity) {
        for (int i = 0; i < rank; ++i) perm[static_cast<std::size_t>(i)] = i;
        for (int i = rank - 1; i > 0; --i)
          std::swap(perm[static_cast<std::size_t>(i)], perm[rng() % static_cast<unsigned>(i + 1)]);
        identity = true;
        for (int i = 0; i < rank; ++i) identity = identity && perm[static_cast<std::size_t>(i)] == i;
      }
      out.push_back(permutation("perm", sizes, perm));
    }
  }
  return out;
}

/// Runs contiguous on both sides, in either loop order: the engine picks
/// source order unless it keeps over 4x the open runs of destination order (order_runs in
/// eval/make_engine_plan.hpp). Three shapes on each side of that rule, about 16 MiB each; three
/// whose runs of 256 to 383 bytes start 32-byte aligned in the destination: runs of 256 bytes
/// are a loop of 64-byte elements in place and stream as runs (as_streamed_runs), and under
/// the intel tuning runs under 384 bytes follow rules of their own (use_streaming_stores in
/// eval/memory_hints.hpp); and four of runs of 65 to 255 bytes (128 bytes: an attention head of
/// 32 fp32 or 64 bf16; 68: 17 floats), a loop of elements in place (kernels::strided_runs),
/// gathered past the caches where they go in source order.
std::vector<workload> run_orders() {
  return {permutation("runs", {1161, 6, 656}, {1, 0, 2}),        // 6 scattered, 1161 gathered: source order
          permutation("runs", {187, 258, 87}, {1, 0, 2}),        // 258 against 187: source order
          permutation("runs", {30, 40, 50, 70}, {2, 0, 1, 3}),   // 50 against 1200: source order
          permutation("runs", {16, 1024, 256}, {1, 0, 2}),       // 1024 against 16: destination order
          permutation("runs", {8, 2048, 256}, {1, 0, 2}),        // 2048 against 8: destination order
          permutation("runs", {30, 40, 50, 70}, {1, 2, 0, 3}),   // 2000 against 30: destination order
          permutation("runs", {300, 220, 64}, {1, 0, 2}),        // 256-byte runs, 220 against 300: source order
          permutation("runs", {32, 2048, 64}, {1, 0, 2}),        // 256-byte runs, 2048 against 32: destination order
          permutation("runs", {24, 2048, 80}, {1, 0, 2}),        // 320-byte runs, 2048 against 24: destination order
          permutation("runs", {600, 220, 32}, {1, 0, 2}),        // 128-byte runs, 220 against 600: source order
          permutation("runs", {64, 2048, 32}, {1, 0, 2}),        // 128-byte runs, 2048 against 64: destination order
          permutation("runs", {64, 2048, 64}, {1, 0, 2}, "bf16"),  // 128-byte runs of bf16
          permutation("runs", {1000, 220, 17}, {1, 0, 2})};      // 68-byte runs (17 floats), source order
}

/// Interleaved <-> planar layouts (narrow transposes, eval/narrow.hpp), about 16 MiB each: an
/// image's HWC -> CHW and back (C = 3), RGBA to planes, complex numbers to real and imaginary
/// planes and back, 8 planes interleaved; an image's HWC <-> CHW in bf16 (2-byte elements,
/// which the narrow kernels take by byte shuffles with AVX2); an image's HWC -> CHW whose planes
/// do not start on lines (1000 x 1333 fp32); and transposes that keep runs of 4, 8 and 16 fp32
/// whole (16-, 32- and 64-byte elements).
std::vector<workload> layouts() {
  return {permutation("layout", {1184, 1184, 3}, {2, 0, 1}),  // HWC -> CHW
          permutation("layout", {3, 1184, 1184}, {1, 2, 0}),  // CHW -> HWC
          permutation("layout", {1672, 1672, 3}, {2, 0, 1}, "bf16"),
          permutation("layout", {3, 1672, 1672}, {1, 2, 0}, "bf16"),
          permutation("layout", {1000, 1333, 3}, {2, 0, 1}),  // HWC -> CHW, planes off lines (5332000 bytes)
          permutation("layout", {1024, 1024, 4}, {2, 0, 1}),  // RGBA -> planes
          permutation("layout", {2097152, 2}, {1, 0}),        // (re, im) pairs -> two planes
          permutation("layout", {2, 2097152}, {1, 0}),        // two planes -> pairs
          permutation("layout", {8, 524288}, {1, 0}),         // 8 planes -> interleaved
          permutation("layout", {1024, 1024, 4}, {1, 0, 2}),   // RGBA fp32 transposed: 16-byte elements
          permutation("layout", {1024, 512, 8}, {1, 0, 2}),    // rows of 8 fp32 moved whole: 32-byte elements
          permutation("layout", {1024, 256, 16}, {1, 0, 2})};  // a head dim of 16 fp32 moved whole: 64-byte runs
}

/// FLUX pack and unpack (4,16,256,256) and the 4096x4096 transpose into a destination 16 bytes
/// past a line, where glibc puts a large allocation (a std::vector): every row of FLUX's pack
/// then starts 16 bytes into a line. The streaming copy, the limit, still writes from a line.
std::vector<workload> vector_destinations() {
  std::vector<workload> v;
  for (bool pack : {true, false})
    for (const char* dt : {"fp32", "bf16"}) {
      workload w = flux(pack, dt, 4, 16, 256, 256);
      w.shape = (pack ? "pack_" : "unpack_") + w.shape;
      v.push_back(w);
    }
  v.push_back(permutation("transpose", {4096, 4096}, {1, 0}));
  v.back().shape = "transpose_" + v.back().shape;
  for (workload& w : v) {
    w.family = "vector";
    w.dst_offset = 16;
  }
  return v;
}

/// A strided gather of a contiguous source of sizes `in` (family slices): x.select(g.dim, g.start)
/// or x.slice(g.dim, g.start, g.end, g.step); or (kind strided_scatter, family scatters) a copy of a
/// contiguous source of the view's sizes into that view of a destination buffer of sizes `in`. Name:
/// sizes_select_DIM_INDEX or sizes_slice_DIM_START_END_STEP, sizes being `in`.
workload gather_case(const char* dtype, const std::vector<index_t>& in, const workload::gather_op& g,
                     workload::kind_t kind = workload::strided_gather) {
  const auto d = static_cast<std::size_t>(g.dim);
  if (g.dim < 0 || d >= in.size() || g.start < 0 || g.end > in[d] || g.start >= g.end || g.step < 1 ||
      (g.select && (g.end != g.start + 1 || g.step != 1)))
    throw std::logic_error("gather_case: needs 0 <= dim < rank, 0 <= start < end <= in[dim] and step >= 1");
  workload w;
  w.family = kind == workload::strided_scatter ? "scatters" : "slices";
  w.dtype = dtype;
  w.esize = esize_of(dtype);
  w.kind = kind;
  w.in = in;
  w.out = in;
  w.gather = g;
  if (g.select) {
    w.out.erase(w.out.begin() + g.dim);
    w.shape = join(in) + "_select_" + join({g.dim, g.start}, "_");
  } else {
    w.out[d] = (g.end - g.start + g.step - 1) / g.step;
    w.shape = join(in) + "_slice_" + join({g.dim, g.start, g.end, g.step}, "_");
  }
  w.large = std::max(w.src_bytes(), w.dst_bytes()) >= (std::size_t{32} << 20);
  return w;
}
workload select_case(const char* dtype, const std::vector<index_t>& in, int dim, index_t i,
                     workload::kind_t kind = workload::strided_gather) {
  return gather_case(dtype, in, {dim, true, i, i + 1, 1}, kind);
}
workload slice_case(const char* dtype, const std::vector<index_t>& in, int dim, index_t start, index_t end,
                    index_t step, workload::kind_t kind = workload::strided_gather) {
  return gather_case(dtype, in, {dim, false, start, end, step}, kind);
}

/// Small and odd FLUX shapes, in cache, where a call's fixed costs show: the target there is the
/// plain loop (nowhere slower, sizes 1, 3, 7 and primes included), at 1 thread; small
/// transposes of pixels (RGB and RGBA fp32: 12- and 16-byte elements) and of 32-byte rows, whose
/// elements have no tile kernel (eval/nest.hpp's nest_untiled_bytes); and small strided gathers
/// and scatters.
std::vector<workload> small_shapes() {
  const index_t shapes[][4] = {{1, 16, 4, 4}, {1, 16, 8, 8}, {1, 3, 6, 6}, {1, 7, 14, 14}, {1, 5, 22, 22}};
  std::vector<workload> v;
  for (bool pack : {true, false})
    for (const auto& s : shapes) {
      workload w = flux(pack, "fp32", s[0], s[1], s[2], s[3]);
      w.family = "small";
      w.shape = (pack ? "pack_" : "unpack_") + w.shape;
      v.push_back(w);
    }
  v.push_back(permutation("small", {32, 32, 3}, {1, 0, 2}));  // an RGB image transposed, 12 KiB
  v.push_back(permutation("small", {16, 16, 4}, {1, 0, 2}));  // RGBA, 4 KiB
  v.push_back(permutation("small", {8, 32, 8}, {1, 0, 2}));   // 32-byte rows, 8 KiB
  // short destination rows (5 and 7 long, primes) over a longer loop: the nest runs the longer
  // one inside (eval/nest.hpp's longer_loop_inside)
  v.push_back(permutation("small", {5, 11, 7}, {1, 2, 0}));        // 1.5 KiB
  v.push_back(permutation("small", {7, 16, 16}, {1, 2, 0}, "u8"));  // 1.8 KiB
  // strided plans, which run as the nest up to 16 KiB moved (strided_takes_nest): RoPE over one
  // decode step of 32 heads, x[..., ::2] of bf16 (32,128) and the write-back (4 KiB each way), and
  // one channel of a small HWC image, u8 (64,64,3), read and written (4 KiB)
  constexpr auto S = workload::strided_scatter;
  for (workload w : {slice_case("bf16", {32, 128}, 1, 0, 128, 2), slice_case("bf16", {32, 128}, 1, 0, 128, 2, S),
                     select_case("u8", {64, 64, 3}, 2, 1), select_case("u8", {64, 64, 3}, 2, 1, S)}) {
    w.family = "small";
    w.shape = (w.kind == S ? "scatter_" : "gather_") + w.shape;
    v.push_back(w);
  }
  return v;
}

/// Strided gathers into a contiguous tensor (the engine's strided plans and SIMD gather kernels):
/// a channel of an HWC image (u8, C = 3 and 4: elements 3 and 4 bytes apart, rows that coalesce
/// into one loop), RoPE's x[..., ::2] and x[..., 1::2] of bf16 rows of 128 (rows that coalesce
/// too: 64 x 2 = 128), fp32 rows of 2047 at stride 2 (1024 elements a row, rows 2047 apart: they
/// do not coalesce) and fp32 at stride 3; and the first three of every four elements (x[..., :3] of
/// a last dim of 4: RGBA to RGB in u8, xyzw to xyz in fp32), whose 3- and 12-byte elements the
/// engine compacts by byte shuffles. Sources of 1 to 16 MiB, destinations of 512 KiB to 8 MiB;
/// the bf16 pair (512 KiB written) runs on one thread at t2 too (below single_thread_bytes, as
/// lazyview::copy does).
std::vector<workload> slices() {
  return {select_case("u8", {1024, 1024, 3}, 2, 1),          // an HWC image's channel
          select_case("u8", {1024, 1024, 4}, 2, 2),          // an RGBA image's channel
          slice_case("bf16", {4096, 128}, 1, 0, 128, 2),     // RoPE's x[..., ::2]
          slice_case("bf16", {4096, 128}, 1, 1, 128, 2),     // x[..., 1::2]
          slice_case("fp32", {2048, 2047}, 1, 0, 2047, 2),   // rows that do not coalesce
          slice_case("fp32", {1024, 3072}, 1, 0, 3072, 3),   // stride 3
          slice_case("u8", {1048576, 4}, 1, 0, 3, 1),        // RGBA to RGB
          slice_case("fp32", {262144, 4}, 1, 0, 3, 1)};      // xyzw to xyz
}

/// Strided scatters, the mirror of slices(): a contiguous source written into x.select(d, i) or
/// x.slice(d, o, n, K) of a larger contiguous destination (sizes `in`), whose other elements stay
/// as they were: one channel of an HWC image (u8 (1024,1024) into (1024,1024,3)), RoPE's write-back
/// to x[..., ::2] and x[..., 1::2] (bf16 (4096,64) into (4096,128): 512 KiB read, one thread at t2
/// too, as in slices), fp32 at stride 3, and three of every four elements (x[:, :3] = rgb of u8
/// (1048576,4), RGBA's colours with alpha untouched; xyz into xyzw in fp32 and fp64). Sources of
/// 512 KiB to 6 MiB, destinations of 1 to 12 MiB.
std::vector<workload> scatters() {
  constexpr auto S = workload::strided_scatter;
  return {select_case("u8", {1024, 1024, 3}, 2, 1, S),         // one channel of an HWC image
          slice_case("bf16", {4096, 128}, 1, 0, 128, 2, S),    // RoPE's x[..., ::2] = ...
          slice_case("bf16", {4096, 128}, 1, 1, 128, 2, S),    // x[..., 1::2] = ...
          slice_case("fp32", {1024, 3072}, 1, 0, 3072, 3, S),  // stride 3
          slice_case("u8", {1048576, 4}, 1, 0, 3, 1, S),       // RGB into RGBA, alpha untouched
          slice_case("fp32", {262144, 4}, 1, 0, 3, 1, S),      // xyz into xyzw
          slice_case("fp64", {262144, 4}, 1, 0, 3, 1, S)};     // xyz into xyzw, double
}

/// Every case. The transposes: 4096x4096 fp32, 3000x5000 fp32 (60 MB, past the last-level cache,
/// whose destination rows of 12000 bytes start at 0 and 32 bytes into a line in turn:
/// eval/rotated_rows.hpp), and 1- and 2-byte transposes (image planes, int8 and fp16/bf16
/// weights), which run through whole-line tiles of bytes and of 2-byte elements with AVX-512 (BW
/// for 2-byte elements, VBMI for bytes): rows a power of two apart and not (4160 rows of 4032
/// bytes), and one in cache (512x512 bytes, 256 KiB).
std::vector<workload> all_workloads() {
  std::vector<workload> v;
  // (the last: a 1360x768 image's latents, whose unpacked rows are not whole lines: 680 bytes
  // in fp32, 340 in bf16)
  const index_t shapes[][4] = {
      {1, 16, 128, 128}, {1, 16, 256, 256}, {4, 16, 256, 256}, {16, 16, 256, 256}, {1, 16, 96, 170}};
  for (bool pack : {true, false})
    for (const char* dt : {"fp32", "bf16"})
      for (const auto& s : shapes) v.push_back(flux(pack, dt, s[0], s[1], s[2], s[3]));
  v.push_back(agents(42, 50, 6));
  v.push_back(agents(4200, 500, 600));
  v.push_back(permutation("transpose", {4096, 4096}, {1, 0}));
  v.push_back(permutation("transpose", {3000, 5000}, {1, 0}));          // 60 MB, rows off lines
  v.push_back(permutation("transpose", {4096, 4096}, {1, 0}, "u8"));    // 16 MiB, rows a power of two apart
  v.push_back(permutation("transpose", {4160, 4032}, {1, 0}, "u8"));    // about 16 MiB, rows 4032 bytes apart
  v.push_back(permutation("transpose", {4096, 2048}, {1, 0}, "bf16"));  // 16 MiB
  v.push_back(permutation("transpose", {512, 512}, {1, 0}, "u8"));      // 256 KiB, in cache
  for (auto& w : random_permutations()) v.push_back(w);
  for (auto& w : run_orders()) v.push_back(w);
  for (auto& w : layouts()) v.push_back(w);
  for (auto& w : small_shapes()) v.push_back(w);
  for (auto& w : vector_destinations()) v.push_back(w);
  for (auto& w : slices()) v.push_back(w);
  for (auto& w : scatters()) v.push_back(w);
  return v;
}

/// The bytes a scatter's destination buffer holds before each check (and the reference before the
/// reference loop writes the view): a pattern unlike the source's (fill_pattern in common.cpp), whose
/// bytes vary with their place, so that an element written outside the view, or one written from a
/// misplaced source element, differs from what it held.
void fill_guard(void* p, std::size_t bytes) {
  auto* c = static_cast<unsigned char*>(p);
  for (std::size_t i = 0; i < bytes; ++i) c[i] = static_cast<unsigned char>(0xA5u ^ ((i * 13u + (i >> 8)) & 0xFFu));
}

/// Whether element e of a scatter's destination buffer (row-major over w.in) lies in the view.
bool in_view(const workload& w, index_t e) {
  const auto d = static_cast<std::size_t>(w.gather.dim);
  index_t inner = 1;
  for (std::size_t i = d + 1; i < w.in.size(); ++i) inner *= w.in[i];
  const index_t k = e / inner % w.in[d];
  if (w.gather.select) return k == w.gather.start;
  return k >= w.gather.start && k < w.gather.end && (k - w.gather.start) % w.gather.step == 0;
}

/// Compares a scatter's destination buffer o with the reference (both dst_bytes()): nullptr when equal,
/// else what the first differing element says (in the view: a wrong value; outside: a write outside it).
const char* scatter_mismatch(const workload& w, const void* o, const void* ref) {
  if (std::memcmp(o, ref, w.dst_bytes()) == 0) return nullptr;
  const auto* a = static_cast<const char*>(o);
  const auto* r = static_cast<const char*>(ref);
  const auto es = static_cast<std::size_t>(w.esize);
  for (index_t e = 0; e < w.numel(); ++e) {
    const std::size_t at = static_cast<std::size_t>(e) * es;
    if (std::memcmp(a + at, r + at, es) != 0)
      return in_view(w, e) ? "output differs from the reference loop"
                           : "wrote outside the view (an element outside it lost its pattern)";
  }
  return "output differs from the reference loop";
}

void run_case(benchmark::State& st, const std::string& name, const workload& w, int threads, const impl& im) {
  static std::set<std::string> verified;
  // The bytes moved: what is read and what is written, counting only the elements actually moved.
  const std::size_t bytes = w.moved_bytes();
  case_buffers& b = buffers_for(std::max(w.src_bytes(), w.dst_bytes()) + w.dst_offset);
  char* const dst = static_cast<char*>(b.dst.p) + (im.name == "stream_copy" ? 0 : w.dst_offset);
  runner r;
  try {
    r = im.prepare(w, threads, b.src.p, dst);
    // One call before timing, whatever the size: a case of 64 MiB runs few iterations in its
    // min_time, and a first call's one-time costs (the pool's threads, a plan memo entry, a
    // result's fresh pages) were then most of what was timed: contiguous() of FLUX pack fp32
    // (16,16,256,256) was reported at 1.2 GB/s from one iteration of 115 ms, against about
    // 5 ms a call after it. (Large cases stay cache-cold: each iteration evicts the last.)
    r();
  } catch (const std::exception& e) {
    st.SkipWithError(e.what());
    return;
  }
  for (auto _ : st) {
    const void* o = r();
    benchmark::DoNotOptimize(o);
    benchmark::ClobberMemory();
  }
  // Bytes read + bytes written, counting only the elements moved: 2 x moved_bytes().
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations()) * 2 * static_cast<std::int64_t>(bytes));
  if (im.verify && verified.insert(name).second) {
    const bool scatter = w.kind == workload::strided_scatter;
    if (b.ref_owner != w.id()) {
      try {
        if (scatter) fill_guard(b.ref.p, w.dst_bytes());  // the reference loop writes the view only
        reference_loop(w, b.src.p, b.ref.p);
      } catch (const std::exception& e) {  // a rank the loops lack: an error for this case, not the run's end
        st.SkipWithError((std::string("no reference loop: ") + e.what()).c_str());
        return;
      }
      b.ref_owner = w.id();
    }
    if (scatter) {
      // The whole destination buffer: the view against the reference loop's values, the rest against
      // the pattern it held before the call.
      fill_guard(dst, w.dst_bytes());
      const void* o = r();
      if (const char* what = scatter_mismatch(w, o, b.ref.p)) st.SkipWithError(what);
      return;
    }
    std::memset(dst, 0xA5, bytes);
    const void* o = r();
    if (std::memcmp(o, b.ref.p, bytes) != 0) st.SkipWithError("output differs from the reference loop");
  }
}

}  // namespace

}  // namespace lvb

int main(int argc, char** argv) {
  using namespace lvb;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  static std::vector<impl> impls;
  add_baseline_impls(impls);
  add_lazyview_impls(impls);
#ifdef LAZYVIEW_BENCH_HAVE_TORCH
  add_torch_impls(impls);
#endif
#ifdef LAZYVIEW_BENCH_HAVE_EIGEN
  add_eigen_impls(impls);
#endif
#ifdef LAZYVIEW_BENCH_HAVE_XTENSOR
  add_xtensor_impls(impls);
#endif

  static const std::vector<workload> wl = all_workloads();
  for (const workload& w : wl)
    for (int t : {1, 2})
      for (const impl& im : impls) {
        if (!im.supports(w, t)) continue;
        if (w.family == "small" && t != 1) continue;  // one thread below single_thread_bytes anyway
        // The run-order cases test the engine's loop order against both plain loops; the peers
        // are measured on the random permutations.
        if (w.family == "runs" && im.name != "memcpy" && im.name != "stream_copy" && im.name != "loop" &&
            im.name != "loop_srcorder" && im.name != "lazyview_copy")
          continue;
        const std::string name = w.name(t, im.name);
        auto* b = benchmark::RegisterBenchmark(name.c_str(), [name, &w, t, &im](benchmark::State& st) {
          run_case(st, name, w, t, im);
        });
        b->UseRealTime()->Unit(benchmark::kMicrosecond);
        if (w.large) b->MinTime(0.05);  // the largest cases: a few iterations per repetition
      }
  register_fold_benchmarks();

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
