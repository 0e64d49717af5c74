#pragma once
// explain(e): what each op did, in layout notation; whether the result is a view and, if not,
// which dims of which op broke it and why; and the copy plan evaluation will run.
#include <string>

#include "../eval/copy.hpp"
#include "print.hpp"

namespace lazyview {

namespace detail {

template <class E>
std::string op_label(const E& e) {
  if constexpr (E::depth == 0) {
    return E::is_static ? "from_blob<static>" : "from_blob";
  } else {
    return e.op.str();
  }
}

/// Why op `e` (a reshape-family node) made PyTorch copy, from its child's PyTorch layout.
template <class E>
std::string copy_reason(const E& e) {
  decltype(auto) before = fold(e.child);
  decltype(auto) after = fold(e);
  const view_rule_result r = compute_stride(before.sizes, before.strides, after.sizes);
  if (r.ok) return "";
  std::string s = "PyTorch copies here: ";
  if (r.bad_new_dim >= 0 && r.chunk_first >= 0) {
    s += "new dim " + std::to_string(r.bad_new_dim) + " (size " + to_string(after.sizes[r.bad_new_dim]) +
         ") spans old dims that are not one contiguous run: the run ends at old dim " +
         std::to_string(r.chunk_first) + " (size " + to_string(before.sizes[r.chunk_first]) + ", stride " +
         to_string(before.strides[r.chunk_first]) + ")";
    if (r.chunk_first > 0)
      s += ", and old dim " + std::to_string(r.chunk_first - 1) + " has stride " +
           to_string(before.strides[r.chunk_first - 1]) + ", not size*stride of the dims inside it";
  } else {
    s += "the new sizes do not line up with the old contiguous runs";
  }
  return s;
}

template <class E>
void explain_into(const E& e, std::string& out, int& step) {
  if constexpr (E::depth > 0) explain_into(e.child, out, step);
  decltype(auto) s = fold(e);
  std::string line = "  " + std::to_string(step) + ". " + op_label(e);
  while (line.size() < 34) line += ' ';
  line += " -> " + layout_string(s.sizes, s.strides);
  line += s.view ? "  view" : "  (PyTorch: copy)";
  out += line + "\n";
  if constexpr (E::depth > 0) {
    decltype(auto) c = fold(e.child);
    if (c.view && !s.view) out += "       " + copy_reason(e) + "\n";
    if (!s.view) out += "       physical: " + physical_string(s) + "\n";
  }
  ++step;
}

}  // namespace detail

/// A human-readable account of e: each op with its PyTorch layout (and, past a copy, the
/// physical layout lazyview reads), whether the result is a view, and the evaluation plan.
template <class E>
std::string explain(const E& expr) {
  const auto& e = detail::chain_of(expr);
  using X = std::remove_cvref_t<decltype(e)>;
  std::string out = "lazyview::explain\n";
  int step = 0;
  detail::explain_into(e, out, step);
  decltype(auto) s = fold(e);
  out += "result: " + layout_string(s.sizes, s.strides) + (s.view ? ", a view of the base" : ", not a view");
  out += std::string(", is_contiguous ") + (s.contiguous() ? "yes" : "no");
  out += std::string(", ") + (X::is_static ? "folded at compile time" : "folded at run time") + "\n";
  out += "physical layout: " + physical_string(s) + "\n";
  if (s.empty || s.numel().v == 0) {
    out += "plan: nothing to copy (no elements)\n";
    return out;
  }
  out += "plan (contiguous()): " + plan_string(contiguous_plan(physical(s))) + "\n";
  return out;
}

}  // namespace lazyview
