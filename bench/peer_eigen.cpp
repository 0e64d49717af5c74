// Eigen 3.4 Tensor (unsupported module), RowMajor so that reshape and shuffle match PyTorch's
// view and permute. Built only when find_package(Eigen3) succeeds (LAZYVIEW_BENCH_HAVE_EIGEN).
//   eigen:          in.reshape(V).shuffle(P).reshape(O) assigned to a TensorMap over the output
//                   (the PyTorch chain, lazily; for plain permutations: in.shuffle(P))
//   eigen_shuffle:  the FLUX/agents chain as Eigen users write it for speed: a K-D TensorMap over
//                   the input, shuffle(P), into a K-D TensorMap over the output (no lazy reshape)
// Strided gathers (slices; `eigen` only, eigen_shuffle has none): x.select(d, i) is in.chip<d>(i) for
// the last dim d (chip(i, d) for another), x.slice(d, a, b, k) is in.stride(S) (S = 1 but S[d] = k)
// where it spans the dim from 0, else in.slice(offsets, extents).stride(S); assigned to a TensorMap
// over the output.
// Strided scatters (scatters; `eigen` only): the same expressions over a TensorMap of the whole
// destination buffer, as lvalues, assigned a TensorMap over the source: out.chip<d>(i) = in,
// out.stride(S) = in, out.slice(offsets, extents).stride(S) = in, or out.slice(offsets, extents) = in
// where the step is 1 (x[:, :3] = ...: a plain slice, as Eigen users write it).
// Two threads: out.device(ThreadPoolDevice) = ...
#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>

#include <array>
#include <memory>
#include <stdexcept>

#include "common.hpp"

namespace lvb {

namespace {

struct device_holder {
  Eigen::ThreadPool pool;
  Eigen::ThreadPoolDevice dev;
  explicit device_holder(int n) : pool(n), dev(&pool, n) {}
};

template <int N>
Eigen::DSizes<Eigen::Index, N> dsizes(const std::vector<index_t>& v) {
  if (v.size() != static_cast<std::size_t>(N)) throw std::logic_error("rank mismatch in the Eigen dispatch");
  Eigen::DSizes<Eigen::Index, N> d;
  for (int i = 0; i < N; ++i) d[i] = static_cast<Eigen::Index>(v[static_cast<std::size_t>(i)]);
  return d;
}

template <class T, int A, int K, int O, bool ShuffleOnly>
runner make(const workload& w, int threads, const void* src, void* dst) {
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  std::array<int, K> perm{};
  for (int i = 0; i < K; ++i) perm[static_cast<std::size_t>(i)] = w.perm[static_cast<std::size_t>(i)];
  std::shared_ptr<device_holder> dev;
  if (threads > 1) dev = std::make_shared<device_holder>(threads);

  if constexpr (ShuffleOnly) {
    using In = Eigen::TensorMap<Eigen::Tensor<const T, K, Eigen::RowMajor>>;
    using Out = Eigen::TensorMap<Eigen::Tensor<T, K, Eigen::RowMajor>>;
    In in(s, dsizes<K>(w.view));
    Out out(d, dsizes<K>(w.permuted()));
    return [in, out, perm, dev, d]() mutable -> const void* {
      if (dev)
        out.device(dev->dev) = in.shuffle(perm);
      else
        out = in.shuffle(perm);
      return d;
    };
  } else {
    using In = Eigen::TensorMap<Eigen::Tensor<const T, A, Eigen::RowMajor>>;
    using Out = Eigen::TensorMap<Eigen::Tensor<T, O, Eigen::RowMajor>>;
    In in(s, dsizes<A>(w.in));
    Out out(d, dsizes<O>(w.out));
    const auto vs = dsizes<K>(w.view);
    const auto os = dsizes<O>(w.out);
    return [in, out, perm, vs, os, dev, d]() mutable -> const void* {
      if (dev)
        out.device(dev->dev) = in.reshape(vs).shuffle(perm).reshape(os);
      else
        out = in.reshape(vs).shuffle(perm).reshape(os);
      return d;
    };
  }
}

/// out = e (out a TensorMap, or an assignable expression of one: a chip, a slice, a stride), on the
/// pool's device when there is one.
template <class Out, class E>
void eval_into(Out&& out, const E& e, const std::shared_ptr<device_holder>& dev) {
  if (dev)
    out.device(dev->dev) = e;
  else
    out = e;
}

/// A strided gather of an A-D RowMajor TensorMap (see the header comment). The expression is
/// built in the timed call, as the other Eigen cases build theirs.
template <class T, int A, bool Select>
runner make_gather(const workload& w, int threads, const void* src, void* dst) {
  constexpr int O = Select ? A - 1 : A;
  using In = Eigen::TensorMap<Eigen::Tensor<const T, A, Eigen::RowMajor>>;
  using Out = Eigen::TensorMap<Eigen::Tensor<T, O, Eigen::RowMajor>>;
  In in(static_cast<const T*>(src), dsizes<A>(w.in));
  Out out(static_cast<T*>(dst), dsizes<O>(w.out));
  std::shared_ptr<device_holder> dev;
  if (threads > 1) dev = std::make_shared<device_holder>(threads);
  const workload::gather_op g = w.gather;
  const auto ins = dsizes<A>(w.in);
  if constexpr (Select) {
    return [in, out, g, dev, dst]() mutable -> const void* {
      if (g.dim == A - 1)
        eval_into(out, in.template chip<A - 1>(g.start), dev);
      else
        eval_into(out, in.chip(g.start, g.dim), dev);
      return dst;
    };
  } else {
    Eigen::DSizes<Eigen::Index, A> strides, offsets, extents = ins;
    for (int i = 0; i < A; ++i) strides[i] = 1, offsets[i] = 0;
    strides[g.dim] = g.step;
    offsets[g.dim] = g.start;
    extents[g.dim] = g.end - g.start;
    // stride() keeps ceil(size / step) elements of a dim: x.slice(d, a, b, k)'s count of [a, b).
    const bool whole = g.start == 0 && g.end == ins[g.dim];
    return [in, out, strides, offsets, extents, whole, dev, dst]() mutable -> const void* {
      if (whole)
        eval_into(out, in.stride(strides), dev);
      else
        eval_into(out, in.slice(offsets, extents).stride(strides), dev);
      return dst;
    };
  }
}

/// A strided scatter into an A-D RowMajor TensorMap over the destination buffer (see the header
/// comment). The expression is built in the timed call, as the other Eigen cases build theirs.
template <class T, int A, bool Select>
runner make_scatter(const workload& w, int threads, const void* src, void* dst) {
  constexpr int O = Select ? A - 1 : A;
  using In = Eigen::TensorMap<Eigen::Tensor<const T, O, Eigen::RowMajor>>;
  using Out = Eigen::TensorMap<Eigen::Tensor<T, A, Eigen::RowMajor>>;
  In in(static_cast<const T*>(src), dsizes<O>(w.out));
  Out out(static_cast<T*>(dst), dsizes<A>(w.in));
  std::shared_ptr<device_holder> dev;
  if (threads > 1) dev = std::make_shared<device_holder>(threads);
  const workload::gather_op g = w.gather;
  const auto outs = dsizes<A>(w.in);
  if constexpr (Select) {
    return [in, out, g, dev, dst]() mutable -> const void* {
      if (g.dim == A - 1)
        eval_into(out.template chip<A - 1>(g.start), in, dev);
      else
        eval_into(out.chip(g.start, g.dim), in, dev);
      return dst;
    };
  } else {
    Eigen::DSizes<Eigen::Index, A> strides, offsets, extents = outs;
    for (int i = 0; i < A; ++i) strides[i] = 1, offsets[i] = 0;
    strides[g.dim] = g.step;
    offsets[g.dim] = g.start;
    extents[g.dim] = g.end - g.start;
    // stride() keeps ceil(size / step) elements of a dim: x.slice(d, a, b, k)'s count of [a, b).
    const bool whole = g.start == 0 && g.end == outs[g.dim], unit = g.step == 1;
    return [in, out, strides, offsets, extents, whole, unit, dev, dst]() mutable -> const void* {
      if (unit)
        eval_into(out.slice(offsets, extents), in, dev);
      else if (whole)
        eval_into(out.stride(strides), in, dev);
      else
        eval_into(out.slice(offsets, extents).stride(strides), in, dev);
      return dst;
    };
  }
}

template <class T>
runner make_scatter_typed(const workload& w, int threads, const void* src, void* dst) {
  return with_view_rank(w, [&]<int A, bool Select>() { return make_scatter<T, A, Select>(w, threads, src, dst); });
}

template <class T>
runner make_typed(const workload& w, int threads, const void* src, void* dst, bool shuffle_only) {
  const std::size_t A = w.in.size(), K = w.view.size(), O = w.out.size();
  if (w.kind == workload::strided_gather) {
    return with_view_rank(w, [&]<int R, bool Select>() { return make_gather<T, R, Select>(w, threads, src, dst); });
  } else if (w.kind == workload::permute_only || shuffle_only) {
    switch (K) {
      case 2: return make<T, 2, 2, 2, true>(w, threads, src, dst);
      case 3: return make<T, 3, 3, 3, true>(w, threads, src, dst);
      case 4: return make<T, 4, 4, 4, true>(w, threads, src, dst);
      case 5: return make<T, 5, 5, 5, true>(w, threads, src, dst);
      case 6: return make<T, 6, 6, 6, true>(w, threads, src, dst);
      default: break;
    }
  } else {
    if (A == 4 && K == 6 && O == 3) return make<T, 4, 6, 3, false>(w, threads, src, dst);
    if (A == 3 && K == 6 && O == 4) return make<T, 3, 6, 4, false>(w, threads, src, dst);
    if (A == 3 && K == 4 && O == 3) return make<T, 3, 4, 3, false>(w, threads, src, dst);
  }
  throw std::runtime_error("no Eigen instantiation for these ranks");
}

}  // namespace

void add_eigen_impls(std::vector<impl>& v) {
  v.push_back({"eigen", true, [](const workload&, int) { return true; },
               [](const workload& w, int t, const void* src, void* dst) {
                 if (w.kind == workload::strided_scatter)
                   return dispatch_esize<true>(w.esize, [&]<class T>(std::type_identity<T>) {
                     return make_scatter_typed<T>(w, t, src, dst);
                   });
                 return dispatch_esize(w.esize, [&]<class T>(std::type_identity<T>) {
                   return make_typed<T>(w, t, src, dst, false);
                 });
               }});
  v.push_back({"eigen_shuffle", true, [](const workload& w, int) { return w.kind == workload::chain; },
               [](const workload& w, int t, const void* src, void* dst) {
                 return dispatch_esize(w.esize, [&]<class T>(std::type_identity<T>) {
                   return make_typed<T>(w, t, src, dst, true);
                 });
               }});
}

}  // namespace lvb
