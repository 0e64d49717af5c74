// LibTorch (Debian libtorch-dev 1.13), ATen only. Built only when its headers and libraries are
// found at configure time (LAZYVIEW_BENCH_HAVE_TORCH). at::set_num_threads matches the case.
//   torch_reshape:  y = x.view(V).permute(P).reshape(O)  (a new tensor each call, as in PyTorch;
//                   for plain permutations: x.permute(P).contiguous())
//   torch_copy:     out.view(permuted sizes).copy_(x.view(V).permute(P))  into the preallocated buffer
// Strided gathers (slices): torch_reshape is x.select(d, i).contiguous() or x.slice(d, a, b, k).contiguous(),
// torch_copy is out.copy_(x.select(d, i)) or out.copy_(x.slice(d, a, b, k)).
// Strided scatters (scatters): torch_copy is out.select(d, i).copy_(x) or out.slice(d, a, b, k).copy_(x),
// out over the whole destination buffer; torch_reshape has none (a scatter writes an existing tensor).
// bf16 cases use at::kBFloat16 over the same uint16_t storage, u8 cases at::kByte, fp64 at::kDouble.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "common.hpp"

namespace lvb {

namespace {

at::ScalarType scalar_type(int esize) {
  switch (esize) {
    case 4: return at::kFloat;
    case 2: return at::kBFloat16;
    case 1: return at::kByte;
    case 8: return at::kDouble;
    default: throw std::runtime_error("no LibTorch dtype for " + std::to_string(esize) + "-byte elements");
  }
}

/// x.select(dim, start) or x.slice(dim, start, end, step): a strided view, no data moved.
at::Tensor gathered(const at::Tensor& x, const workload::gather_op& g) {
  return g.select ? x.select(g.dim, g.start) : x.slice(g.dim, g.start, g.end, g.step);
}

runner make(const workload& w, int threads, const void* src, void* dst, bool copy) {
  at::set_num_threads(threads);
  const auto opts = at::TensorOptions().dtype(scalar_type(w.esize));
  if (w.kind == workload::strided_scatter) {
    if (!copy) throw std::logic_error("torch_reshape has no scatter");
    const at::Tensor x = at::from_blob(const_cast<void*>(src), w.out, opts);
    at::Tensor y = at::from_blob(dst, w.in, opts);
    const workload::gather_op g = w.gather;
    return [x, y, g, dst]() mutable -> const void* {
      gathered(y, g).copy_(x);
      return dst;
    };
  }
  const at::Tensor x = at::from_blob(const_cast<void*>(src), w.in, opts);
  if (w.kind == workload::strided_gather) {
    const workload::gather_op g = w.gather;
    if (copy) {
      at::Tensor y = at::from_blob(dst, w.out, opts);
      return [x, y, g, dst]() mutable -> const void* {
        y.copy_(gathered(x, g));
        return dst;
      };
    }
    auto hold = std::make_shared<at::Tensor>();
    return [x, g, hold]() -> const void* {
      *hold = at::Tensor();  // as `auto y = ...;` in a loop: the previous result is gone
      *hold = gathered(x, g).contiguous();
      return hold->data_ptr();
    };
  }
  const std::vector<int64_t> perm(w.perm.begin(), w.perm.end());
  const std::vector<int64_t> view = w.view, out = w.out, permuted = w.permuted();
  const bool perm_only = w.kind == workload::permute_only;
  if (copy) {
    at::Tensor y = at::from_blob(dst, permuted, opts);
    return [x, y, perm, view, perm_only, dst]() mutable -> const void* {
      if (perm_only)
        y.copy_(x.permute(perm));
      else
        y.copy_(x.view(view).permute(perm));
      return dst;
    };
  }
  auto hold = std::make_shared<at::Tensor>();
  return [x, perm, view, out, perm_only, hold]() -> const void* {
    *hold = at::Tensor();  // as `auto y = ...;` in a loop: the previous result is gone
    *hold = perm_only ? x.permute(perm).contiguous() : x.view(view).permute(perm).reshape(out);
    return hold->data_ptr();
  };
}

}  // namespace

void add_torch_impls(std::vector<impl>& v) {
  v.push_back({"torch_reshape", true, [](const workload& w, int) { return w.kind != workload::strided_scatter; },
               [](const workload& w, int t, const void* src, void* dst) { return make(w, t, src, dst, false); }});
  v.push_back({"torch_copy", true, [](const workload&, int) { return true; },
               [](const workload& w, int t, const void* src, void* dst) { return make(w, t, src, dst, true); }});
}

}  // namespace lvb
