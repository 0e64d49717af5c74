#pragma once
// PyTorch's shape rules on the strides PyTorch would show: -1 inference (at::infer_size),
// contiguity (c10::_compute_contiguous) and the view rule (at::computeStride).
#include "../core/error.hpp"
#include "../core/small_vec.hpp"
#include <cstdint>
#include <type_traits>

namespace lazyview {

/// Resolves one -1 in `req` against `numel`; on failure fills `e` and returns true (the success
/// path writes nothing but the inferred size: folds call this once per view/reshape).
/// @pre  `req[0, n)` as the caller wrote it. @post on success every entry is >= 0 and multiplies to numel.
/// Example: numel 24, [-1,4] -> [6,4]; numel 24, [5,5] -> numel_mismatch "shape '[5, 5]' ...".
constexpr bool infer_size(ival* req, int n, ival numel, error_info& e) {
  int infer = -1;
  ival newsize = sv(1);
  for (int i = 0; i < n; ++i) {
    if (req[i].v == -1) {
      if (infer >= 0) {
        e.code = err::two_inferred;
        to_list(req, n, e.a, e.na);
        return true;
      }
      infer = i;
    } else if (req[i].v >= 0) {
      newsize = newsize * req[i];
    } else {
      e.code = err::invalid_size;
      e.x = req[i].v;
      return true;
    }
  }
  if (numel == newsize || (infer >= 0 && newsize.v > 0 && numel.v % newsize.v == 0)) {
    if (infer < 0) return false;
    if (newsize.v == 0) {  // numel is 0 too: any size fits the -1
      e.code = err::infer_ambiguous;
      to_list(req, n, e.a, e.na);
      return true;
    }
    req[infer] = numel / newsize;
    return false;
  }
  e.code = err::numel_mismatch;
  to_list(req, n, e.a, e.na);
  e.x = numel.v;
  return true;
}
constexpr bool infer_size(shape_vec& req, ival numel, error_info& e) { return infer_size(req.v, req.n, numel, e); }

/// Row-major strides of `sizes`, PyTorch style (a size-0 or size-1 dim counts as 1 for the dims
/// before it), into out[0, n). Example: (2,3,4) -> (12,4,1); (2,0,3) -> (3,3,1).
constexpr void contiguous_strides(const ival* sizes, int n, ival* out) {
  ival acc = sv(1);
  for (int i = n - 1; i >= 0; --i) {
    out[i] = acc;
    acc = acc * (sizes[i].v > 1 ? sizes[i] : sv(1));
  }
}
constexpr shape_vec contiguous_strides(const shape_vec& sizes) {
  shape_vec st{};
  st.n = sizes.n;
  contiguous_strides(sizes.v, sizes.n, st.v);
  return st;
}

/// PyTorch's is_contiguous: empty tensors always; size-1 dims are ignored.
/// Example: (1,6):(100,1) is contiguous; (2,3):(1,2) is not.
constexpr bool is_contiguous_layout(const shape_vec& sizes, const shape_vec& strides) {
  index_t expected = 1;
  for (int i = 0; i < sizes.n; ++i)
    if (sizes[i].v == 0) return true;
  for (int i = sizes.n - 1; i >= 0; --i) {
    if (sizes[i].v == 1) continue;
    if (strides[i].v != expected) return false;
    expected *= sizes[i].v;
  }
  return true;
}

/// Where the view rule failed: which new dim straddles which chunk of old dims.
struct view_rule_status {
  bool ok = false;
  int bad_new_dim = -1;                   ///< the new dim that does not fit inside one chunk
  int chunk_first = -1, chunk_last = -1;  ///< the old chunk (dims) it was being matched against
};

/// at::computeStride on spans: strides for viewing (old_sz, old_st)[0, on) as new_sz[0, nn), written
/// to out[0, nn) (which may not alias the inputs), if every new dim lies inside one run of mutually
/// contiguous old dims. @pre numel(new_sz) == numel(old_sz).
/// Example: (2,4,3):(12,1,4) as (2,1,4,3) -> (12,4,1,4); (4,6):(6,1) sliced to (4,4):(6,1) as
/// (16) -> fails (new dim 0 spans chunks {0} and {1}).
constexpr view_rule_status compute_stride(const ival* old_sz, const ival* old_st, int on, const ival* new_sz, int nn,
                                          ival* out) {
  view_rule_status r;
  if (on == 0) {
    for (int i = 0; i < nn; ++i) out[i] = sv(1);
    r.ok = true;
    return r;
  }
  ival numel = sv(1);
  for (int i = 0; i < on; ++i) numel = numel * old_sz[i];
  if (numel.v == 0) {
    bool same = on == nn;
    for (int i = 0; same && i < on; ++i) same = old_sz[i].v == new_sz[i].v;
    if (same)
      for (int i = 0; i < nn; ++i) out[i] = old_st[i];
    else
      contiguous_strides(new_sz, nn, out);
    r.ok = true;
    return r;
  }
  int v = nn - 1;
  ival base = old_st[on - 1];
  ival t_cnt = sv(1), v_cnt = sv(1);
  int chunk_last = on - 1;
  for (int t = on - 1; t >= 0; --t) {
    t_cnt = t_cnt * old_sz[t];
    bool chunk_ends = t == 0 || (old_sz[t - 1].v != 1 && old_st[t - 1].v != t_cnt.v * base.v);
    if (!chunk_ends) continue;
    while (v >= 0 && (v_cnt.v < t_cnt.v || new_sz[v].v == 1)) {
      out[v] = v_cnt * base;
      v_cnt = v_cnt * new_sz[v];
      --v;
    }
    if (v_cnt.v != t_cnt.v) {
      r.bad_new_dim = v + 1;
      r.chunk_first = t;
      r.chunk_last = chunk_last;
      return r;
    }
    if (t > 0) {
      base = old_st[t - 1];
      t_cnt = sv(1);
      v_cnt = sv(1);
      chunk_last = t - 1;
    }
  }
  if (v != -1) {
    r.bad_new_dim = v;
    return r;
  }
  r.ok = true;
  return r;
}

/// Outcome of the view rule with the strides it found.
struct view_rule_result : view_rule_status {
  shape_vec strides;  // [0, n) only; zeroed only where a constant expression needs it
};

/// at::computeStride on shape vectors. Example: see the span form above.
constexpr view_rule_result compute_stride(const shape_vec& old_sz, const shape_vec& old_st, const shape_vec& new_sz) {
  view_rule_result r;
  if (std::is_constant_evaluated()) r.strides = shape_vec{};
  r.strides.n = new_sz.n;
  static_cast<view_rule_status&>(r) = compute_stride(old_sz.v, old_st.v, old_sz.n, new_sz.v, new_sz.n, r.strides.v);
  return r;
}

namespace detail {

/// d wrapped into [0, n) as PyTorch wraps a dim (a 0-d tensor takes -1 and 0), or -1 where
/// wrap_dim raises. Example: (-1, 3) -> 2; (3, 3) -> -1; (-1, 0) -> 0.
constexpr index_t wrapped(index_t d, index_t n) {
  const index_t m = n > 0 ? n : 1;
  const index_t w = d < 0 ? d + m : d;
  return static_cast<std::uint64_t>(w) < static_cast<std::uint64_t>(m) ? w : -1;  // 0 <= w < m
}

}  // namespace detail

/// maybe_wrap_dim: maps d in [-n, n-1] to [0, n-1] (a 0-d tensor wraps as if it had one dim).
/// On failure fills the PyTorch IndexError and returns -1.
constexpr index_t wrap_dim(index_t d, int n, error_info& e) {
  const index_t w = detail::wrapped(d, n);
  if (w < 0) {
    const index_t m = n > 0 ? n : 1;
    e.code = err::dim_out_of_range;
    e.x = d;
    e.y = -m;
    e.z = m - 1;
  }
  return w;
}

}  // namespace lazyview
