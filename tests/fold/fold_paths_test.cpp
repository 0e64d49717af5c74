// The physical fold's harder paths, each checked by value against op-by-op evaluation (every op
// applied to a materialised contiguous() copy, which is what PyTorch's copies amount to):
// hierarchical dims, div/mod segments, permuted segments and stacked levels.
#define BOOST_TEST_MODULE fold_paths
#include <boost/test/unit_test.hpp>
#include <lazyview/lazyview.hpp>
#include <numeric>
#include <vector>

using namespace lazyview;

namespace {

std::vector<float> iota(std::size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.f);
  return v;
}

template <class A, class B>
void same_values(const A& folded, const B& stepwise) {
  auto x = folded.contiguous();
  BOOST_REQUIRE(x.sizes() == stepwise.sizes());
  for (index_t i = 0; i < x.numel(); ++i) BOOST_REQUIRE_EQUAL(x.data()[i], stepwise.data()[i]);
}

}  // namespace

BOOST_AUTO_TEST_CASE(segment_then_permute_then_reshape_stacks_a_level) {
  auto b = iota(12);
  auto folded = from_blob(b.data(), {12}).view(4, 3).t().reshape(2, 6).t().reshape(3, 4);
  BOOST_TEST(fold(folded).nlev == 2);
  auto s1 = from_blob(b.data(), {12}).view(4, 3).t().contiguous();
  auto s2 = s1.reshape(2, 6).t().contiguous();
  auto s3 = s2.reshape(3, 4).contiguous();
  same_values(folded, s3);
}

BOOST_AUTO_TEST_CASE(slicing_a_hierarchical_dim) {
  auto b = iota(16 * 8 * 6);
  auto pack = from_blob(b.data(), {1, 16, 8, 6}).view(1, 16, 4, 2, 3, 2).permute(0, 2, 4, 1, 3, 5).reshape(1, 12, 64);
  auto folded = pack.slice(2, 3, 50, 5).select(1, -2);
  auto step = pack.contiguous();
  auto step2 = step.slice(2, 3, 50, 5).select(1, -2).contiguous();
  same_values(folded, step2);
  BOOST_TEST(!folded.is_view());
}

BOOST_AUTO_TEST_CASE(select_on_a_hierarchical_dim_needs_no_level) {
  auto b = iota(16 * 8 * 6);
  auto pack = from_blob(b.data(), {1, 16, 8, 6}).view(1, 16, 4, 2, 3, 2).permute(0, 2, 4, 1, 3, 5).reshape(1, 12, 64);
  auto folded = pack.select(2, 37);
  BOOST_TEST(fold(folded).nlev == 1);
  auto step = pack.contiguous();
  same_values(folded, step.select(2, 37).contiguous());
}

BOOST_AUTO_TEST_CASE(expand_diagonal_unfold_after_a_copy) {
  auto b = iota(24);
  auto base = from_blob(b.data(), {2, 3, 4}).permute(2, 0, 1).reshape(4, 6);  // copies in PyTorch
  auto m = base.contiguous();
  same_values(base.unsqueeze(1).expand(4, 3, 6), m.unsqueeze(1).expand(4, 3, 6).contiguous());
  same_values(base.diagonal(1), m.diagonal(1).contiguous());
  same_values(base.unfold(1, 4, 2), m.unfold(1, 4, 2).contiguous());
  auto mt = m.t().contiguous();
  same_values(base.t().reshape(2, 12).narrow(1, 5, 6), mt.reshape(2, 12).narrow(1, 5, 6).contiguous());
}

BOOST_AUTO_TEST_CASE(rules_after_a_copy_follow_the_copy) {
  std::vector<float> b(6);
  // PyTorch: x.t().reshape(6).view(2,3).permute(1,0).view(6) fails at the last view.
  auto ok = from_blob(b.data(), {2, 3}).t().reshape(6).view(2, 3).permute(1, 0);
  BOOST_TEST(!ok.is_view());
  BOOST_TEST((ok.strides() == std::array<index_t, 2>{1, 3}));
  BOOST_CHECK_EXCEPTION(ok.view(6), shape_error, [](const shape_error& e) {
    return std::string(e.what()).starts_with("view size is not compatible with input tensor's size and stride");
  });
}

// A dynamic node keeps what PyTorch shows (fold/shown.hpp); the fold from the base must agree
// with it, for views (where fold() starts from the kept state) and after a copy (where it walks
// the chain from the leaf and rebuilds the physical side).
template <class E>
void kept_matches_the_fold(const E& e) {
  const auto& kept = e.meta;
  const auto f = fold(e);
  BOOST_TEST(kept.view == f.view);
  BOOST_TEST(kept.offset == f.offset.v);
  for (int i = 0; i < E::rank; ++i) {
    BOOST_TEST(kept.sizes[i] == f.sizes[i].v);
    BOOST_TEST(kept.strides[i] == f.strides[i].v);
  }
  BOOST_TEST(e.numel() == f.numel().v);
  BOOST_TEST(e.is_contiguous() == f.contiguous());
}

BOOST_AUTO_TEST_CASE(a_node_keeps_what_pytorch_shows) {
  std::vector<float> b(2 * 16 * 8 * 6);
  auto x = from_blob(b.data(), {2, 16, 8, 6});
  auto pack = x.view(2, 16, 4, 2, 3, 2).permute(0, 2, 4, 1, 3, 5);
  kept_matches_the_fold(pack);                                 // a view
  kept_matches_the_fold(pack.select(0, 1).slice(0, 1, 4, 2));  // a view with an offset
  auto packed = pack.reshape(2, 12, 64);
  kept_matches_the_fold(packed);                    // a copy: (12,64) row-major strides
  kept_matches_the_fold(packed.narrow(2, 3, 40));   // ops after the copy follow the copy
  kept_matches_the_fold(packed.transpose(0, 2).unsqueeze(1));
  // a static prefix continued by dynamic ops keeps the static marks of the prefix
  auto mixed = from_blob<2, 3, 4>(b.data()).permute<2, 0, 1>().narrow(1, 0, 1);
  BOOST_TEST(fold(mixed).sizes[0].s);
  BOOST_TEST(!fold(mixed).sizes[1].s);
  kept_matches_the_fold(mixed);
}

BOOST_AUTO_TEST_CASE(errors_are_thrown_at_the_failing_call) {
  std::vector<float> b(24);
  auto x = from_blob(b.data(), {2, 3, 4});
  BOOST_CHECK_EXCEPTION(x.view(5, 5), shape_error,
                        [](const shape_error& e) { return std::string(e.what()) == "shape '[5, 5]' is invalid for input of size 24"; });
  BOOST_CHECK_EXCEPTION(x.permute(0, 0, 1), shape_error,
                        [](const shape_error& e) { return std::string(e.what()) == "permute(): duplicate dims are not allowed."; });
  BOOST_CHECK_EXCEPTION(x.transpose(0, 3), index_error, [](const index_error& e) {
    return std::string(e.what()) == "Dimension out of range (expected to be in range of [-3, 2], but got 3)";
  });
  BOOST_CHECK_EXCEPTION(x.select(0, 5), index_error, [](const index_error& e) {
    return std::string(e.what()) == "select(): index 5 out of range for tensor of size [2, 3, 4] at dimension 0";
  });
  BOOST_CHECK_EXCEPTION(x(0, 3, 0), index_error, [](const index_error& e) {
    return std::string(e.what()) == "index 3 is out of bounds for dimension 1 with size 3";
  });
}

BOOST_AUTO_TEST_CASE(explain_names_the_copy_and_the_plan) {
  std::vector<float> b(12);
  const std::string s = explain(from_blob(b.data(), {12}).view(4, 3).t().reshape(2, 6));
  BOOST_TEST(s.find("(PyTorch: copy)") != std::string::npos);
  BOOST_TEST(s.find("[(2,6) -> (3,4):(1,3)]") != std::string::npos);
  BOOST_TEST(s.find("div/mod") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(level_capacity_counts_the_ops_from_the_first_that_may_copy) {
  // A chain that stays a view folds with one level however long it is; from the first reshape
  // or flatten on, each op may stack one (fold.hpp's levels_of).
  auto b = iota(24);
  auto x = from_blob(b.data(), {24});
  using views = decltype(x.view(4, 6).t().unsqueeze(0).narrow(1, 0, 4).select(0, 0).slice(0, 1, 4, 2));
  static_assert(levels_of<views> == 1);
  using copies = decltype(x.view(4, 6).t().reshape(2, 12).t().reshape(6, 4));
  static_assert(levels_of<copies> == 4);
  using flat = decltype(x.view(4, 6).t().flatten<0, 1>().unsqueeze(0));
  static_assert(levels_of<flat> == 3);
  // A static prefix's capacity never exceeds its continuation's (widen() needs room for it).
  auto s = from_blob<24>(b.data()).view<4, 6>().t().reshape<2, 12>();
  static_assert(levels_of<decltype(s)> == 2 && levels_of<decltype(s.t().reshape(6, 4))> == 4);

  // The chains that stack most stay within their capacity and give the op-by-op values.
  auto deep = x.view(4, 6).t().reshape(2, 12).t().reshape(6, 4).t().reshape(8, 3).t().reshape(4, 6);
  const auto f = fold(deep);
  BOOST_TEST(f.nlev >= 2);
  BOOST_TEST(f.nlev <= decltype(f)::capacity);
  auto s1 = x.view(4, 6).t().contiguous();
  auto s2 = s1.reshape(2, 12).t().contiguous();
  auto s3 = s2.reshape(6, 4).t().contiguous();
  auto s4 = s3.reshape(8, 3).t().contiguous();
  same_values(deep, s4.reshape(4, 6).contiguous());
  auto mixed = s.t().reshape(6, 4).t();
  BOOST_TEST(fold(mixed).nlev <= decltype(fold(mixed))::capacity);
  auto m1 = from_blob(b.data(), {24}).view(4, 6).t().contiguous();
  auto m2 = m1.reshape(2, 12).t().contiguous();
  same_values(mixed, m2.reshape(6, 4).t().contiguous());
}
