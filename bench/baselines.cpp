// Baselines: memcpy and a streaming copy of the same bytes (the bandwidth bounds), the plain
// nested loops (destination order and source order, run-time sizes), and for FLUX the
// hand-written 6-deep loop with literal 2s (examples/flux_demo.cpp's loop).
#include <cstring>
#include <memory>

#include "loops.hpp"

namespace lvb {

namespace {

template <class T>
runner make_loop(const workload& w, int threads, const void* src, void* dst, bool dst_order) {
  auto g = std::make_shared<loop_geometry>(geometry(w, dst_order));
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  return dispatch_rank(w.perm.size(), [&](auto kc) -> runner {
    constexpr int K = decltype(kc)::value;
    if (dst_order)
      return [g, s, d, threads]() -> const void* {
        run_nest<T, K, true>(*g, s, d, threads);
        return d;
      };
    return [g, s, d, threads]() -> const void* {
      run_nest<T, K, false>(*g, s, d, threads);
      return d;
    };
  });
}

runner make_loop_any(const workload& w, int threads, const void* src, void* dst, bool dst_order) {
  return dispatch_esize(w.esize, [&]<class T>(std::type_identity<T>) {
    return make_loop<T>(w, threads, src, dst, dst_order);
  });
}

// FLUX by hand: out[b][(ih,iw)][(c,ph,pw)] = x[b][c][2ih+ph][2iw+pw], source order, literal 2s.
template <class T, bool Pack>
void flux_loop(const T* __restrict x, T* __restrict out, index_t C, index_t H, index_t W, index_t bc0,
               index_t bc1) {
  const index_t h = H / 2, w = W / 2;
  for (index_t bc = bc0; bc < bc1; ++bc) {
    const index_t b = bc / C, c = bc % C;
    for (index_t ih = 0; ih < h; ++ih)
      for (index_t ph = 0; ph < 2; ++ph)
        for (index_t iw = 0; iw < w; ++iw)
          for (index_t pw = 0; pw < 2; ++pw) {
            const index_t packed = ((b * h + ih) * w + iw) * (C * 4) + c * 4 + ph * 2 + pw;
            const index_t plain = ((b * C + c) * H + 2 * ih + ph) * W + 2 * iw + pw;
            if constexpr (Pack)
              out[packed] = x[plain];
            else
              out[plain] = x[packed];
          }
  }
}

template <class T>
runner make_flux_loop(const workload& w, int threads, const void* src, void* dst) {
  const auto [B, C, H, W] = w.flux;
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  const bool pack = w.pack;
  if (w.bytes() < single_thread_bytes) threads = 1;
  return [=]() -> const void* {
    pool_run(threads, [&](int i, int n) {
      index_t a, b;
      split(B * C, i, n, a, b);
      if (pack)
        flux_loop<T, true>(s, d, C, H, W, a, b);
      else
        flux_loop<T, false>(s, d, C, H, W, a, b);
    });
    return d;
  };
}

}  // namespace

void reference_loop(const workload& w, const void* src, void* dst) { make_loop_any(w, 1, src, dst, true)(); }

void add_baseline_impls(std::vector<impl>& v) {
  v.push_back({"memcpy", false, [](const workload&, int) { return true; },
               [](const workload& w, int t, const void* src, void* dst) -> runner {
                 const std::size_t n = w.bytes();
                 return [=]() -> const void* {
                   memcpy_mt(dst, src, n, t);
                   return dst;
                 };
               }});
  v.push_back({"stream_copy", false, [](const workload&, int) { return true; },
               [](const workload& w, int t, const void* src, void* dst) -> runner {
                 const std::size_t n = w.bytes();
                 return [=]() -> const void* {
                   stream_copy_mt(dst, src, n, t);
                   return dst;
                 };
               }});
  v.push_back({"loop", true, [](const workload&, int) { return true; },
               [](const workload& w, int t, const void* src, void* dst) {
                 return make_loop_any(w, t, src, dst, true);
               }});
  v.push_back({"loop_srcorder", true, [](const workload&, int) { return true; },
               [](const workload& w, int t, const void* src, void* dst) {
                 return make_loop_any(w, t, src, dst, false);
               }});
  v.push_back({"loop_flux_literal2", true, [](const workload& w, int) { return w.is_flux(); },
               [](const workload& w, int t, const void* src, void* dst) -> runner {
                 return dispatch_esize(w.esize, [&]<class T>(std::type_identity<T>) {
                   return make_flux_loop<T>(w, t, src, dst);
                 });
               }});
}

}  // namespace lvb
