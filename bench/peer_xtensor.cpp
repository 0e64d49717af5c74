// xtensor 0.24 (no TBB/OpenMP: single-threaded, so t1 only). Built only when find_package(xtensor)
// succeeds (LAZYVIEW_BENCH_HAVE_XTENSOR).
//   xtensor:            noalias(out) = reshape_view(transpose(reshape_view(in, V), P), O)
//                       (the PyTorch chain, lazily; for plain permutations: transpose(in, P))
//   xtensor_transpose:  transpose of a K-D adaptor over the input into a K-D adaptor over the
//                       output (no lazy reshape)
// Strided gathers (slices; `xtensor` only, xtensor_transpose has none): x.select(d, i) and
// x.slice(d, a, b, k) of the last dim are xt::view(in, xt::all()..., i) and
// xt::view(in, xt::all()..., xt::range(a, b, k)) (what xtensor users write); of another dim,
// xt::strided_view(in, {..., i or xt::range(a, b, k), ...}). noalias(out) = the view, out an
// adaptor over the output.
// Strided scatters (scatters; `xtensor` only): the same views of an adaptor over the whole destination
// buffer, assigned an adaptor over the source: noalias(xt::view(out, xt::all()..., i or
// xt::range(a, b, k))) = in, or noalias(xt::strided_view(out, {...})) = in of another dim.
#include <xtensor/xadapt.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xslice.hpp>
#include <xtensor/xstrided_view.hpp>
#include <xtensor/xview.hpp>

#include <array>
#include <stdexcept>
#include <utility>

#include "common.hpp"

namespace lvb {

namespace {

template <std::size_t N>
std::array<std::size_t, N> shp(const std::vector<index_t>& v) {
  if (v.size() != N) throw std::logic_error("rank mismatch in the xtensor dispatch");
  std::array<std::size_t, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = static_cast<std::size_t>(v[i]);
  return a;
}

template <class T, std::size_t A, std::size_t K, std::size_t O, bool TransposeOnly>
runner make(const workload& w, const void* src, void* dst) {
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  const std::size_t n = static_cast<std::size_t>(w.numel());
  std::array<std::size_t, K> perm{};
  for (std::size_t i = 0; i < K; ++i) perm[i] = static_cast<std::size_t>(w.perm[i]);
  if constexpr (TransposeOnly) {
    const auto vs = shp<K>(w.view);
    const auto ps = shp<K>(w.permuted());
    return [=]() -> const void* {
      auto in = xt::adapt(s, n, xt::no_ownership(), vs);
      auto out = xt::adapt(d, n, xt::no_ownership(), ps);
      xt::noalias(out) = xt::transpose(in, perm);
      return d;
    };
  } else {
    const auto is = shp<A>(w.in);
    const auto vs = shp<K>(w.view);
    const auto os = shp<O>(w.out);
    return [=]() -> const void* {
      auto in = xt::adapt(s, n, xt::no_ownership(), is);
      auto out = xt::adapt(d, n, xt::no_ownership(), os);
      xt::noalias(out) = xt::reshape_view(xt::transpose(xt::reshape_view(in, vs), perm), os);
      return d;
    };
  }
}

/// Calls f(v) with the view of x that g names: an xt::view where g's dim is the last (the others
/// xt::all()), else an xt::strided_view of a run-time slice vector.
template <std::size_t A, bool Select, class X, class F>
void with_view(X& x, const workload::gather_op& g, F&& f) {
  if (static_cast<std::size_t>(g.dim) == A - 1) {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      if constexpr (Select)
        f(xt::view(x, (void(I), xt::all())..., g.start));
      else
        f(xt::view(x, (void(I), xt::all())..., xt::range(g.start, g.end, g.step)));
    }(std::make_index_sequence<A - 1>{});
    return;
  }
  xt::xstrided_slice_vector sv;
  for (std::size_t i = 0; i < A; ++i) {
    if (i != static_cast<std::size_t>(g.dim))
      sv.push_back(xt::all());
    else if (Select)
      sv.push_back(g.start);
    else
      sv.push_back(xt::range(g.start, g.end, g.step));
  }
  f(xt::strided_view(x, sv));
}

/// A strided gather of an A-D adaptor over the input (see the header comment); the adaptors and
/// the view are built in the timed call, as the other xtensor cases build theirs.
template <class T, std::size_t A, bool Select>
runner make_gather(const workload& w, const void* src, void* dst) {
  constexpr std::size_t O = Select ? A - 1 : A;
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  const std::size_t n = static_cast<std::size_t>(w.numel()), m = static_cast<std::size_t>(w.out_numel());
  const auto is = shp<A>(w.in);
  const auto os = shp<O>(w.out);
  const workload::gather_op g = w.gather;
  return [=]() -> const void* {
    auto in = xt::adapt(s, n, xt::no_ownership(), is);
    auto out = xt::adapt(d, m, xt::no_ownership(), os);
    with_view<A, Select>(in, g, [&](auto&& v) { xt::noalias(out) = v; });
    return d;
  };
}

/// A strided scatter into an A-D adaptor over the destination buffer (see the header comment); the
/// adaptors and the view are built in the timed call, as the other xtensor cases build theirs.
template <class T, std::size_t A, bool Select>
runner make_scatter(const workload& w, const void* src, void* dst) {
  constexpr std::size_t O = Select ? A - 1 : A;
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  const std::size_t n = static_cast<std::size_t>(w.numel()), m = static_cast<std::size_t>(w.out_numel());
  const auto ds = shp<A>(w.in);
  const auto ss = shp<O>(w.out);
  const workload::gather_op g = w.gather;
  return [=]() -> const void* {
    auto in = xt::adapt(s, m, xt::no_ownership(), ss);
    auto out = xt::adapt(d, n, xt::no_ownership(), ds);
    with_view<A, Select>(out, g, [&](auto&& v) { xt::noalias(v) = in; });
    return d;
  };
}

template <class T>
runner make_scatter_typed(const workload& w, const void* src, void* dst) {
  return with_view_rank(w, [&]<int A, bool Select>() { return make_scatter<T, A, Select>(w, src, dst); });
}

template <class T>
runner make_typed(const workload& w, const void* src, void* dst, bool transpose_only) {
  const std::size_t A = w.in.size(), K = w.view.size(), O = w.out.size();
  if (w.kind == workload::strided_gather) {
    return with_view_rank(w, [&]<int R, bool Select>() { return make_gather<T, R, Select>(w, src, dst); });
  } else if (w.kind == workload::permute_only || transpose_only) {
    switch (K) {
      case 2: return make<T, 2, 2, 2, true>(w, src, dst);
      case 3: return make<T, 3, 3, 3, true>(w, src, dst);
      case 4: return make<T, 4, 4, 4, true>(w, src, dst);
      case 5: return make<T, 5, 5, 5, true>(w, src, dst);
      case 6: return make<T, 6, 6, 6, true>(w, src, dst);
      default: break;
    }
  } else {
    if (A == 4 && K == 6 && O == 3) return make<T, 4, 6, 3, false>(w, src, dst);
    if (A == 3 && K == 6 && O == 4) return make<T, 3, 6, 4, false>(w, src, dst);
    if (A == 3 && K == 4 && O == 3) return make<T, 3, 4, 3, false>(w, src, dst);
  }
  throw std::runtime_error("no xtensor instantiation for these ranks");
}

}  // namespace

void add_xtensor_impls(std::vector<impl>& v) {
  v.push_back({"xtensor", true, [](const workload&, int t) { return t == 1; },
               [](const workload& w, int, const void* src, void* dst) {
                 if (w.kind == workload::strided_scatter)
                   return dispatch_esize<true>(w.esize, [&]<class T>(std::type_identity<T>) {
                     return make_scatter_typed<T>(w, src, dst);
                   });
                 return dispatch_esize(w.esize, [&]<class T>(std::type_identity<T>) {
                   return make_typed<T>(w, src, dst, false);
                 });
               }});
  v.push_back({"xtensor_transpose", true,
               [](const workload& w, int t) { return t == 1 && w.kind == workload::chain; },
               [](const workload& w, int, const void* src, void* dst) {
                 return dispatch_esize(w.esize, [&]<class T>(std::type_identity<T>) {
                   return make_typed<T>(w, src, dst, true);
                 });
               }});
}

}  // namespace lvb
