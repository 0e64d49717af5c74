#pragma once
// Layout notation: (2,3):(3,1); `_` marks static values ((_2,_3):(_3,_1)); a hierarchical dim
// nests ((4,3):(12,2)); a segment of dims evaluated with div/mod prints as
// [(2,6) -> (3,4):(1,3)]; stacked levels are joined by ∘, the upper level first.
#include <iosfwd>
#include <string>

#include "../eval/plan.hpp"

namespace lazyview {

/// "_2" for a static 2, "2" for a dynamic one.
// (Strings are built with +=: g++ 12 -O3 warns falsely (-Wrestrict) on "literal" + std::string.)
inline std::string to_string(ival v) {
  std::string s = v.s ? "_" : "";
  s += std::to_string(v.v);
  return s;
}

/// "(2,3)" (a single value prints bare when `bare_single`).
template <int N>
std::string tuple_string(const ivals<N>& v, int first, int last, bool bare_single) {
  if (bare_single && last - first == 1) return to_string(v[first]);
  std::string s = "(";
  for (int i = first; i < last; ++i) {
    if (i > first) s += ',';
    s += to_string(v[i]);
  }
  return s + ")";
}

/// Flat sizes:strides as PyTorch shows them. Example: (2,3):(3,1).
inline std::string layout_string(const shape_vec& sizes, const shape_vec& strides) {
  return tuple_string(sizes, 0, sizes.n, false) + ":" + tuple_string(strides, 0, strides.n, false);
}

/// One level in layout notation (internal order; a permutation is printed after it).
inline std::string level_string(const level& l) {
  const int r = l.rank();
  bool has_segment = false;
  for (int k = 0; k <= r; ++k) has_segment = has_segment || l.bound[k] < 0;
  std::string out;
  auto group = [&](int k, std::string& shape, std::string& stride) {
    const int m0 = l.bound[k], m1 = l.bound[k + 1];
    if (m1 == m0) {
      shape = to_string(l.isz[k]);
      stride = to_string(ival{0, l.isz[k].s});
    } else {
      shape = tuple_string(l.msize, m0, m1, true);
      stride = tuple_string(l.mstride, m0, m1, true);
    }
  };
  if (!has_segment) {
    std::string sh = "(", st = "(";
    for (int k = 0; k < r; ++k) {
      std::string a, b;
      group(k, a, b);
      sh += (k ? "," : "") + a;
      st += (k ? "," : "") + b;
    }
    out = sh + "):" + st + ")";
  } else {
    out = "(";
    int k = 0;
    bool firstg = true;
    while (k < r) {
      out += firstg ? "" : ", ";
      firstg = false;
      int first, last;
      segment_of(l, k, first, last);
      if (last - first == 1) {
        std::string a, b;
        group(k, a, b);
        out += a + ":" + b;
      } else {
        out += "[" + tuple_string(l.isz, first, last, false) + " -> " +
               tuple_string(l.msize, l.bound[first], l.bound[last], false) + ":" +
               tuple_string(l.mstride, l.bound[first], l.bound[last], false) + "]";
      }
      k = last;
    }
    out += ")";
  }
  if (!l.ident) {
    out += ".permute(";
    for (int i = 0; i < r; ++i) out += (i ? "," : "") + std::to_string(l.perm[i]);
    out += ")";
  }
  if (l.offset.v != 0) out += "+" + to_string(l.offset);
  return out;
}

/// The physical layout of a fold: levels joined by ∘, the one applied to logical dims first.
template <int L>
std::string physical_string(const fold_state<L>& state) {
  if (state.empty) return layout_string(state.sizes, state.strides) + " (empty)";
  const fold_state<L> s = physical(state);
  std::string out;
  for (int k = s.nlev - 1; k >= 0; --k) out += level_string(s.lv[k]) + (k ? " ∘ " : "");
  return out;
}

template <int L>
std::ostream& operator<<(std::ostream& os, const fold_state<L>& s) {
  return os << physical_string(s);
}
inline std::ostream& operator<<(std::ostream& os, const level& l) { return os << level_string(l); }

/// The plan as loops "n:src_stride:dst_stride", outermost first; segments as "seg[...]".
inline std::string plan_string(const copy_plan& p) {
  std::string out = "loops (size:src stride:dst stride, outermost first): ";
  if (p.nloops == 0) out += "one element";
  for (int k = 0; k < p.nloops; ++k) {
    const loop_dim& d = p.loops[k];
    out += k ? " " : "";
    if (d.seg < 0) {
      out += std::to_string(d.n) + ":" + std::to_string(d.ss) + ":" + std::to_string(d.ds);
    } else {
      const segment& g = p.segs[d.seg];
      out += std::to_string(d.n) + ":div/mod over (";
      for (int m = 0; m < g.ns; ++m) {
        if (m) out += ',';
        out += std::to_string(g.sm[m]);
      }
      out += "):(";
      for (int m = 0; m < g.ns; ++m) {
        if (m) out += ',';
        out += std::to_string(g.sst[m]);
      }
      out += ")";
    }
  }
  if (p.nloops > 0) {
    const loop_dim& in = p.loops[p.nloops - 1];
    if (in.seg < 0 && in.ss == 1 && in.ds == 1)
      out += "; inner run of " + std::to_string(in.n) + " contiguous elements on both sides";
  }
  if (p.mapped) out += "; source offsets mapped through the lower levels per element";
  return out;
}

}  // namespace lazyview
