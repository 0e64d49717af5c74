// FLUX latent packing with lazyview.
//
//   pack:   x.view(B, C, H/2, 2, W/2, 2).permute(0, 2, 4, 1, 3, 5).reshape(B, (H/2)*(W/2), C*4)
//   unpack: p.view(B, H/2, W/2, C, 2, 2).permute(0, 3, 1, 4, 2, 5).reshape(B, C, H, W)
//
// The demo folds both chains, prints explain() for them, checks the results against a plain
// 6-deep loop, then times memcpy of the same bytes, the loop and lazyview.
// Static shapes: (1,16,128,128). Dynamic shapes: the same by default, or `flux_demo B C H W`.
// Exit status: 0 when every check passes, 1 on a mismatch, 2 on bad arguments.
#include <lazyview/lazyview.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace {

using lazyview::index_t;

struct shape {
  index_t B, C, H, W;
  index_t numel() const { return B * C * H * W; }
};

// Keeps the compiler from dropping a store whose result is read only by the timing harness.
inline void clobber(const void* p) { asm volatile("" : : "r"(p) : "memory"); }

template <class F>
double median_seconds(F&& f, int runs = 21) {
  f();  // warm up: page in the buffers, fill the caches
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + runs / 2, t.end());
  return t[static_cast<std::size_t>(runs / 2)];
}

// The reference: one 6-deep loop in source order, out[b][(ih,iw)][(c,ph,pw)] = x[b][c][2ih+ph][2iw+pw].
void pack_loop(const float* x, float* out, shape s) {
  const index_t h = s.H / 2, w = s.W / 2;
  for (index_t b = 0; b < s.B; ++b)
    for (index_t c = 0; c < s.C; ++c)
      for (index_t ih = 0; ih < h; ++ih)
        for (index_t ph = 0; ph < 2; ++ph)
          for (index_t iw = 0; iw < w; ++iw)
            for (index_t pw = 0; pw < 2; ++pw)
              out[((b * h + ih) * w + iw) * (s.C * 4) + c * 4 + ph * 2 + pw] =
                  x[((b * s.C + c) * s.H + 2 * ih + ph) * s.W + 2 * iw + pw];
}

void unpack_loop(const float* p, float* out, shape s) {
  const index_t h = s.H / 2, w = s.W / 2;
  for (index_t b = 0; b < s.B; ++b)
    for (index_t c = 0; c < s.C; ++c)
      for (index_t ih = 0; ih < h; ++ih)
        for (index_t ph = 0; ph < 2; ++ph)
          for (index_t iw = 0; iw < w; ++iw)
            for (index_t pw = 0; pw < 2; ++pw)
              out[((b * s.C + c) * s.H + 2 * ih + ph) * s.W + 2 * iw + pw] =
                  p[((b * h + ih) * w + iw) * (s.C * 4) + c * 4 + ph * 2 + pw];
}

// The chains. Static: every size is a template argument, the fold runs at compile time.
auto pack_static(const float* x) {
  return lazyview::from_blob<1, 16, 128, 128>(x)
      .view<1, 16, 64, 2, 64, 2>()
      .permute<0, 2, 4, 1, 3, 5>()
      .reshape<1, 64 * 64, 16 * 4>();
}
auto unpack_static(const float* p) {
  return lazyview::from_blob<1, 64 * 64, 16 * 4>(p)
      .view<1, 64, 64, 16, 2, 2>()
      .permute<0, 3, 1, 4, 2, 5>()
      .reshape<1, 16, 128, 128>();
}
// Dynamic: the same chain with run-time sizes, folded at run time.
auto pack_dynamic(const float* x, shape s) {
  return lazyview::from_blob(x, {s.B, s.C, s.H, s.W})
      .view(s.B, s.C, s.H / 2, 2, s.W / 2, 2)
      .permute(0, 2, 4, 1, 3, 5)
      .reshape(s.B, (s.H / 2) * (s.W / 2), s.C * 4);
}
auto unpack_dynamic(const float* p, shape s) {
  return lazyview::from_blob(p, {s.B, (s.H / 2) * (s.W / 2), s.C * 4})
      .view(s.B, s.H / 2, s.W / 2, s.C, 2, 2)
      .permute(0, 3, 1, 4, 2, 5)
      .reshape(s.B, s.C, s.H, s.W);
}

bool same(const float* a, const float* b, index_t n, const char* what) {
  const bool ok = std::memcmp(a, b, static_cast<std::size_t>(n) * sizeof(float)) == 0;
  std::printf("  %-44s %s\n", what, ok ? "OK" : "mismatch");
  return ok;
}

struct row {
  std::string name;
  double seconds;
};

void print_table(const char* title, index_t bytes, const std::vector<row>& rows) {
  const double memcpy_s = rows.front().seconds;
  std::printf("\n%s (%.2f MiB each way; GB/s counts bytes read + written)\n", title,
              static_cast<double>(bytes) / (1024.0 * 1024.0));
  std::printf("  %-40s %10s %9s %11s\n", "", "median us", "GB/s", "vs memcpy");
  for (const row& r : rows)
    std::printf("  %-40s %10.1f %9.1f %10.0f%%\n", r.name.c_str(), r.seconds * 1e6,
                2.0 * static_cast<double>(bytes) / r.seconds * 1e-9, 100.0 * memcpy_s / r.seconds);
}

bool parse_shape(int argc, char** argv, shape& s) {
  if (argc == 1) return true;
  if (argc != 5) return false;
  index_t v[4];
  for (int i = 0; i < 4; ++i) {
    char* end = nullptr;
    v[i] = std::strtoll(argv[i + 1], &end, 10);
    if (end == argv[i + 1] || *end != '\0' || v[i] <= 0) return false;
  }
  s = {v[0], v[1], v[2], v[3]};
  return s.H % 2 == 0 && s.W % 2 == 0;
}

}  // namespace

int main(int argc, char** argv) try {
  const shape fixed{1, 16, 128, 128};
  shape dyn = fixed;
  if (!parse_shape(argc, argv, dyn)) {
    std::fprintf(stderr, "usage: %s [B C H W]   (positive sizes, H and W even)\n", argv[0]);
    return 2;
  }

  // Buffers for the static shape and for the (possibly different) dynamic one.
  const index_t n = fixed.numel(), nd = dyn.numel();
  std::vector<float> x(static_cast<std::size_t>(std::max(n, nd)));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 8191) * 0.5f;
  std::vector<float> want(x.size()), got(x.size()), back(x.size()), copy_dst(x.size());

  // ---- explain --------------------------------------------------------------------------------
  std::printf("== pack, static (1,16,128,128) ==\n%s\n", lazyview::explain(pack_static(x.data())).c_str());
  std::printf("== unpack, static ==\n%s\n", lazyview::explain(unpack_static(x.data())).c_str());
  std::printf("== pack, dynamic (%ld,%ld,%ld,%ld) ==\n%s\n", static_cast<long>(dyn.B), static_cast<long>(dyn.C),
              static_cast<long>(dyn.H), static_cast<long>(dyn.W),
              lazyview::explain(pack_dynamic(x.data(), dyn)).c_str());

  // ---- checks against the loop ------------------------------------------------------------------
  bool ok = true;
  std::printf("checks against a plain 6-deep loop:\n");
  {
    pack_loop(x.data(), want.data(), fixed);
    const auto t = pack_static(x.data()).contiguous();
    ok &= same(t.data(), want.data(), n, "pack static, contiguous()");
    lazyview::copy(pack_static(x.data()), lazyview::from_blob<1, 64 * 64, 16 * 4>(got.data()));
    ok &= same(got.data(), want.data(), n, "pack static, copy() into a buffer");
    lazyview::copy(unpack_static(got.data()), lazyview::from_blob<1, 16, 128, 128>(back.data()));
    ok &= same(back.data(), x.data(), n, "unpack static round trip");
  }
  {
    const index_t h = dyn.H / 2, w = dyn.W / 2;
    pack_loop(x.data(), want.data(), dyn);
    const auto t = pack_dynamic(x.data(), dyn).contiguous();
    ok &= same(t.data(), want.data(), nd, "pack dynamic, contiguous()");
    lazyview::copy(pack_dynamic(x.data(), dyn), lazyview::from_blob(got.data(), {dyn.B, h * w, dyn.C * 4}));
    ok &= same(got.data(), want.data(), nd, "pack dynamic, copy() into a buffer");
    unpack_loop(want.data(), copy_dst.data(), dyn);
    lazyview::copy(unpack_dynamic(got.data(), dyn), lazyview::from_blob(back.data(), {dyn.B, dyn.C, dyn.H, dyn.W}));
    ok &= same(back.data(), copy_dst.data(), nd, "unpack dynamic, against the loop");
    ok &= same(back.data(), x.data(), nd, "unpack dynamic round trip");
  }
  if (!ok) {
    std::printf("\nFAILED: lazyview disagrees with the loop\n");
    return 1;
  }
  std::printf("OK\n");

  // ---- timings ----------------------------------------------------------------------------------
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::string threads_name = "lazyview copy(), dynamic, " + std::to_string(hw) + " threads";
  {
    const index_t bytes = n * static_cast<index_t>(sizeof(float));
    float* out = got.data();
    const float* in = x.data();
    auto dst_static = lazyview::from_blob<1, 64 * 64, 16 * 4>(out);
    auto dst_dynamic = lazyview::from_blob(out, {fixed.B, index_t{64 * 64}, fixed.C * 4});
    std::vector<row> rows;
    rows.push_back({"memcpy", median_seconds([&] { std::memcpy(out, in, static_cast<std::size_t>(bytes)); clobber(out); })});
    rows.push_back({"plain 6-deep loop", median_seconds([&] { pack_loop(in, out, fixed); clobber(out); })});
    rows.push_back({"lazyview copy(), static", median_seconds([&] { lazyview::copy(pack_static(in), dst_static); clobber(out); })});
    rows.push_back({"lazyview copy(), dynamic", median_seconds([&] { lazyview::copy(pack_dynamic(in, fixed), dst_dynamic); clobber(out); })});
    rows.push_back({"lazyview contiguous(), dynamic", median_seconds([&] { auto t = pack_dynamic(in, fixed).contiguous(); clobber(t.data()); })});
    if (hw > 1) {
      rows.push_back({threads_name, median_seconds([&] {
                        lazyview::copy(pack_dynamic(in, fixed), dst_dynamic, lazyview::threads{hw});
                        clobber(out);
                      })});
      // The same bytes copied flat on as many threads: the limit for the row above (a flat copy()
      // is one contiguous run, which threads share in pieces).
      auto flat_in = lazyview::from_blob(in, {n});
      auto flat_out = lazyview::from_blob(out, {n});
      rows.push_back({"flat copy(), " + std::to_string(hw) + " threads (memcpy's work)", median_seconds([&] {
                        lazyview::copy(flat_in, flat_out, lazyview::threads{hw});
                        clobber(out);
                      })});
    }
    print_table("FLUX pack, fp32 (1,16,128,128), median of 21 runs", bytes, rows);
    if (hw > 1) std::printf("  (\"vs memcpy\" is against memcpy on one thread, the %u-thread rows' too)\n", hw);
  }
  {
    const index_t bytes = n * static_cast<index_t>(sizeof(float));
    float* out = back.data();
    const float* in = got.data();
    auto dst_static = lazyview::from_blob<1, 16, 128, 128>(out);
    auto dst_dynamic = lazyview::from_blob(out, {fixed.B, fixed.C, fixed.H, fixed.W});
    std::vector<row> rows;
    rows.push_back({"memcpy", median_seconds([&] { std::memcpy(out, in, static_cast<std::size_t>(bytes)); clobber(out); })});
    rows.push_back({"plain 6-deep loop", median_seconds([&] { unpack_loop(in, out, fixed); clobber(out); })});
    rows.push_back({"lazyview copy(), static", median_seconds([&] { lazyview::copy(unpack_static(in), dst_static); clobber(out); })});
    rows.push_back({"lazyview copy(), dynamic", median_seconds([&] { lazyview::copy(unpack_dynamic(in, fixed), dst_dynamic); clobber(out); })});
    rows.push_back({"lazyview contiguous(), dynamic", median_seconds([&] { auto t = unpack_dynamic(in, fixed).contiguous(); clobber(t.data()); })});
    print_table("FLUX unpack, fp32 (1,16,128,128), median of 21 runs", bytes, rows);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "flux_demo: %s\n", e.what());
  return 1;
}
