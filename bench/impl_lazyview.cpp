// lazyview: the chain written as in PyTorch, evaluated by copy() into the preallocated buffer
// (dynamic extents, and static extents for FLUX) or by contiguous() into a new tensor. The strided
// gathers (slices) are from_blob(src, in).select(d, i) or .slice(d, start, end, step); the strided
// scatters (scatters) copy(from_blob(src, out), from_blob(dst, in).select(d, i) or .slice(...)), and
// have no contiguous() (it makes a new tensor; a scatter writes into an existing one).
// The chain is built inside the timed call, as user code would (each op folds eagerly to check
// its arguments; copy() folds once more and plans).
#include <lazyview/lazyview.hpp>

#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "common.hpp"

namespace lvb {

static_assert(single_thread_bytes == static_cast<std::size_t>(lazyview::single_thread_bytes),
              "the baselines split over threads from the size lazyview::copy does");

namespace {

template <std::size_t N>
std::array<index_t, N> arr(const std::vector<index_t>& v) {
  if (v.size() != N) throw std::logic_error("rank mismatch in the lazyview dispatch");
  std::array<index_t, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = v[i];
  return a;
}

template <class T, int A, int K, int O, bool PermOnly>
struct lv_case {
  std::array<index_t, A> in;
  std::array<index_t, K> v, p;
  std::array<index_t, O> out;

  explicit lv_case(const workload& w)
      : in(arr<A>(w.in)), v(arr<K>(w.view)), p{}, out(arr<O>(w.out)) {
    for (int i = 0; i < K; ++i) p[static_cast<std::size_t>(i)] = w.perm[static_cast<std::size_t>(i)];
  }

  auto chain(const T* s) const {
    auto x = lazyview::from_blob(s, in);
    if constexpr (PermOnly) {
      static_assert(A == K && K == O);
      return [&]<std::size_t... I>(std::index_sequence<I...>) { return x.permute(p[I]...); }(
          std::make_index_sequence<K>{});
    } else {
      return [&]<std::size_t... I, std::size_t... J>(std::index_sequence<I...>, std::index_sequence<J...>) {
        return x.view(v[I]...).permute(p[I]...).reshape(out[J]...);
      }(std::make_index_sequence<K>{}, std::make_index_sequence<O>{});
    }
  }
};

/// A strided gather: x.select(dim, start) (Select; the result has rank A - 1) or
/// x.slice(dim, start, end, step) of x = from_blob(src, in) (rank A).
template <class T, int A, bool Select>
struct lv_gather {
  static constexpr int O = Select ? A - 1 : A;
  std::array<index_t, A> in;
  std::array<index_t, O> out;
  workload::gather_op g;

  explicit lv_gather(const workload& w) : in(arr<A>(w.in)), out(arr<O>(w.out)), g(w.gather) {}

  auto chain(const T* s) const {
    auto x = lazyview::from_blob(s, in);
    if constexpr (Select)
      return x.select(g.dim, g.start);
    else
      return x.slice(g.dim, g.start, g.end, g.step);
  }
};

/// A runner of c's chain (lv_case or lv_gather) built in the timed call: copy() into dst, or
/// contiguous() into a new tensor.
template <class T, class Case>
runner make_runner(const Case& c, int threads, const void* src, void* dst, bool contiguous) {
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  (void)c.chain(s);  // throws here, outside the timing, if the chain is wrong
  const lazyview::threads th{static_cast<unsigned>(threads)};
  if (contiguous) {
    using R = decltype(c.chain(s).contiguous());
    auto hold = std::make_shared<std::optional<R>>();
    // (contiguous() is contiguous(threads{1}))
    return [c, s, hold, th]() -> const void* {
      hold->reset();  // as `auto t = e.contiguous();` in a loop: the previous result is gone
      hold->emplace(c.chain(s).contiguous(th));
      return (*hold)->data();
    };
  }
  return [c, s, d, th]() -> const void* {
    lazyview::copy(c.chain(s), lazyview::from_blob(d, c.out), th);
    return d;
  };
}

/// A strided scatter: copy(from_blob(src, out), from_blob(dst, in).select(dim, start) or
/// .slice(dim, start, end, step)), the view and the copy built in the timed call.
template <class T, int A, bool Select>
runner make_scatter(const workload& w, int threads, const void* src, void* dst) {
  constexpr int O = Select ? A - 1 : A;
  const std::array<index_t, A> in = arr<A>(w.in);
  const std::array<index_t, O> out = arr<O>(w.out);
  const workload::gather_op g = w.gather;
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  auto view = [in, g](T* p) {
    auto x = lazyview::from_blob(p, in);
    if constexpr (Select)
      return x.select(g.dim, g.start);
    else
      return x.slice(g.dim, g.start, g.end, g.step);
  };
  (void)view(d);  // throws here, outside the timing, if the view is wrong
  const lazyview::threads th{static_cast<unsigned>(threads)};
  return [view, out, s, d, th]() -> const void* {
    lazyview::copy(lazyview::from_blob(s, out), view(d), th);
    return d;
  };
}

template <class T>
runner make_scatter_typed(const workload& w, int threads, const void* src, void* dst) {
  return with_view_rank(w, [&]<int A, bool Select>() { return make_scatter<T, A, Select>(w, threads, src, dst); });
}

template <class T, int A, int K, int O, bool PermOnly>
runner make(const workload& w, int threads, const void* src, void* dst, bool contiguous) {
  return make_runner<T>(lv_case<T, A, K, O, PermOnly>(w), threads, src, dst, contiguous);
}

template <class T>
runner make_typed(const workload& w, int threads, const void* src, void* dst, bool contiguous) {
  const std::size_t A = w.in.size(), K = w.view.size(), O = w.out.size();
  if (w.kind == workload::strided_gather) {
    return with_view_rank(w, [&]<int R, bool Select>() {
      return make_runner<T>(lv_gather<T, R, Select>(w), threads, src, dst, contiguous);
    });
  } else if (w.kind == workload::permute_only) {
    switch (K) {
      case 2: return make<T, 2, 2, 2, true>(w, threads, src, dst, contiguous);
      case 3: return make<T, 3, 3, 3, true>(w, threads, src, dst, contiguous);
      case 4: return make<T, 4, 4, 4, true>(w, threads, src, dst, contiguous);
      case 5: return make<T, 5, 5, 5, true>(w, threads, src, dst, contiguous);
      case 6: return make<T, 6, 6, 6, true>(w, threads, src, dst, contiguous);
      default: break;
    }
  } else {
    if (A == 4 && K == 6 && O == 3) return make<T, 4, 6, 3, false>(w, threads, src, dst, contiguous);
    if (A == 3 && K == 6 && O == 4) return make<T, 3, 6, 4, false>(w, threads, src, dst, contiguous);
    if (A == 3 && K == 4 && O == 3) return make<T, 3, 4, 3, false>(w, threads, src, dst, contiguous);
  }
  throw std::runtime_error("no lazyview instantiation for these ranks (add one in impl_lazyview.cpp)");
}

// ---- static extents (FLUX) ----------------------------------------------------------------------

template <class T, index_t B, index_t C, index_t H, index_t W>
runner make_flux_static(bool pack, int threads, const void* src, void* dst) {
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  const lazyview::threads th{static_cast<unsigned>(threads)};
  if (pack)
    return [s, d, th]() -> const void* {
      auto e = lazyview::from_blob<B, C, H, W>(s)
                   .template view<B, C, H / 2, 2, W / 2, 2>()
                   .template permute<0, 2, 4, 1, 3, 5>()
                   .template reshape<B, (H / 2) * (W / 2), C * 4>();
      lazyview::copy(e, lazyview::from_blob<B, (H / 2) * (W / 2), C * 4>(d), th);
      return d;
    };
  return [s, d, th]() -> const void* {
    auto e = lazyview::from_blob<B, (H / 2) * (W / 2), C * 4>(s)
                 .template view<B, H / 2, W / 2, C, 2, 2>()
                 .template permute<0, 3, 1, 4, 2, 5>()
                 .template reshape<B, C, H, W>();
    lazyview::copy(e, lazyview::from_blob<B, C, H, W>(d), th);
    return d;
  };
}

template <class T>
runner make_flux_static_typed(const workload& w, int threads, const void* src, void* dst) {
  const bool pack = w.pack;
  const auto f = w.flux;
  using A4 = std::array<index_t, 4>;
  if (f == A4{1, 16, 128, 128}) return make_flux_static<T, 1, 16, 128, 128>(pack, threads, src, dst);
  if (f == A4{1, 16, 256, 256}) return make_flux_static<T, 1, 16, 256, 256>(pack, threads, src, dst);
  if (f == A4{4, 16, 256, 256}) return make_flux_static<T, 4, 16, 256, 256>(pack, threads, src, dst);
  if (f == A4{16, 16, 256, 256}) return make_flux_static<T, 16, 16, 256, 256>(pack, threads, src, dst);
  if (f == A4{1, 16, 96, 170}) return make_flux_static<T, 1, 16, 96, 170>(pack, threads, src, dst);
  // small_shapes() in main.cpp
  if (f == A4{1, 16, 4, 4}) return make_flux_static<T, 1, 16, 4, 4>(pack, threads, src, dst);
  if (f == A4{1, 16, 8, 8}) return make_flux_static<T, 1, 16, 8, 8>(pack, threads, src, dst);
  if (f == A4{1, 3, 6, 6}) return make_flux_static<T, 1, 3, 6, 6>(pack, threads, src, dst);
  if (f == A4{1, 7, 14, 14}) return make_flux_static<T, 1, 7, 14, 14>(pack, threads, src, dst);
  if (f == A4{1, 5, 22, 22}) return make_flux_static<T, 1, 5, 22, 22>(pack, threads, src, dst);
  throw std::runtime_error("no static FLUX instantiation for this shape");
}

}  // namespace

void add_lazyview_impls(std::vector<impl>& v) {
  // contiguous() at t1, contiguous(threads{t}) beyond; a scatter has none (its destination exists).
  v.push_back({"lazyview_contiguous", true,
               [](const workload& w, int) { return w.kind != workload::strided_scatter; },
               [](const workload& w, int t, const void* src, void* dst) {
                 return dispatch_esize(w.esize, [&]<class T>(std::type_identity<T>) {
                   return make_typed<T>(w, t, src, dst, true);
                 });
               }});
  v.push_back({"lazyview_copy", true, [](const workload&, int) { return true; },
               [](const workload& w, int t, const void* src, void* dst) {
                 if (w.kind == workload::strided_scatter)
                   return dispatch_esize<true>(w.esize, [&]<class T>(std::type_identity<T>) {
                     return make_scatter_typed<T>(w, t, src, dst);
                   });
                 return dispatch_esize(w.esize, [&]<class T>(std::type_identity<T>) {
                   return make_typed<T>(w, t, src, dst, false);
                 });
               }});
  v.push_back({"lazyview_copy_static", true, [](const workload& w, int) { return w.is_flux(); },
               [](const workload& w, int t, const void* src, void* dst) {
                 return dispatch_esize(w.esize, [&]<class T>(std::type_identity<T>) {
                   return make_flux_static_typed<T>(w, t, src, dst);
                 });
               }});
}

}  // namespace lvb
