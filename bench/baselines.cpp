// Baselines: memcpy and a streaming copy of the bytes moved (the bandwidth bounds), the plain
// nested loops (destination order and source order, run-time sizes), for FLUX the hand-written
// 6-deep loop with literal 2s (examples/flux_demo.cpp's loop), and for the strided gathers (slices)
// and scatters (scatters) a 2-D loop with the step a compile-time constant. The reference loop, which
// checks every implementation, is the run-time nest in destination order (a gather's too), or in
// source order for a scatter (its one order: the source is the contiguous side).
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "loops.hpp"

namespace lvb {

namespace {

template <class T>
runner make_loop(const workload& w, int threads, const void* src, void* dst, bool dst_order) {
  auto g = std::make_shared<loop_geometry>(geometry(w, dst_order));
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  return dispatch_rank(g->n.size(), [&](auto kc) -> runner {
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
  return dispatch_esize<true>(w.esize, [&]<class T>(std::type_identity<T>) {
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
  if (w.dst_bytes() < single_thread_bytes) threads = 1;
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

/// The slices family's `loop`: a 2-D gather (a 1-D one as one row) with the step a compile-time
/// constant for the steps the cases use (1, 2, 3, 4), as one writes x[:, o::K] by hand; another
/// step runs with it at run time.
template <class T>
runner make_gather_loop(const workload& w, int threads, const void* src, void* dst) {
  auto g = std::make_shared<loop_geometry>(gather_geometry(w));
  if (g->n.size() != 2) throw std::runtime_error("the gather loop takes 1-D and 2-D destinations only");
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  auto with_step = [&]<index_t K>(std::integral_constant<index_t, K>) -> runner {
    return [g, s, d, threads]() -> const void* {
      run_gather_rows<T, K>(*g, s, d, threads);
      return d;
    };
  };
  switch (g->ss[1]) {
    case 1: return with_step(std::integral_constant<index_t, 1>{});  // x[..., :3] of a last dim of 4
    case 2: return with_step(std::integral_constant<index_t, 2>{});
    case 3: return with_step(std::integral_constant<index_t, 3>{});
    case 4: return with_step(std::integral_constant<index_t, 4>{});
    default: return with_step(std::integral_constant<index_t, 0>{});
  }
}

/// The scatters family's `loop`: the mirror of make_gather_loop, d[r * row + o + j * K] = s[r][j] with the step
/// a compile-time constant (1 to 4; another at run time); rows of 3 with step 1 (x[:, :3] = rgb of a last dim
/// of 4) as three assignments a row, rows 4 apart.
template <class T>
runner make_scatter_loop(const workload& w, int threads, const void* src, void* dst) {
  auto g = std::make_shared<loop_geometry>(scatter_geometry(w));
  if (g->n.size() != 2) throw std::runtime_error("the scatter loop takes 1-D and 2-D sources only");
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  auto with = [&]<index_t K, index_t Cols>(std::integral_constant<index_t, K>,
                                           std::integral_constant<index_t, Cols>) -> runner {
    return [g, s, d, threads]() -> const void* {
      run_scatter_rows<T, K, Cols>(*g, s, d, threads);
      return d;
    };
  };
  using zero = std::integral_constant<index_t, 0>;
  if (g->ds[1] == 1 && g->n[1] == 3)  // x[..., :3] = rgb of a last dim of 4: three assignments a row
    return with(std::integral_constant<index_t, 1>{}, std::integral_constant<index_t, 3>{});
  switch (g->ds[1]) {
    case 1: return with(std::integral_constant<index_t, 1>{}, zero{});
    case 2: return with(std::integral_constant<index_t, 2>{}, zero{});
    case 3: return with(std::integral_constant<index_t, 3>{}, zero{});
    case 4: return with(std::integral_constant<index_t, 4>{}, zero{});
    default: return with(zero{}, zero{});
  }
}

bool is_view_copy(const workload& w) {
  return w.kind == workload::strided_gather || w.kind == workload::strided_scatter;
}

}  // namespace

void reference_loop(const workload& w, const void* src, void* dst) {
  make_loop_any(w, 1, src, dst, w.kind != workload::strided_scatter)();
}

void add_baseline_impls(std::vector<impl>& v) {
  // The bounds copy the bytes moved (a gather's destination is smaller than its source, a scatter's
  // source smaller than its destination).
  v.push_back({"memcpy", false, [](const workload&, int) { return true; },
               [](const workload& w, int t, const void* src, void* dst) -> runner {
                 const std::size_t n = w.moved_bytes();
                 return [=]() -> const void* {
                   memcpy_mt(dst, src, n, t);
                   return dst;
                 };
               }});
  v.push_back({"stream_copy", false, [](const workload&, int) { return true; },
               [](const workload& w, int t, const void* src, void* dst) -> runner {
                 const std::size_t n = w.moved_bytes();
                 return [=]() -> const void* {
                   stream_copy_mt(dst, src, n, t);
                   return dst;
                 };
               }});
  v.push_back({"loop", true, [](const workload& w, int) { return !is_view_copy(w) || w.out.size() <= 2; },
               [](const workload& w, int t, const void* src, void* dst) -> runner {
                 if (w.kind == workload::strided_scatter)
                   return dispatch_esize<true>(w.esize, [&]<class T>(std::type_identity<T>) {
                     return make_scatter_loop<T>(w, t, src, dst);
                   });
                 if (w.kind != workload::strided_gather) return make_loop_any(w, t, src, dst, true);
                 return dispatch_esize(w.esize, [&]<class T>(std::type_identity<T>) {
                   return make_gather_loop<T>(w, t, src, dst);
                 });
               }});
  // A gather's or a scatter's loop has one order (the one its contiguous side runs in): no second loop.
  v.push_back({"loop_srcorder", true, [](const workload& w, int) { return !is_view_copy(w); },
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
