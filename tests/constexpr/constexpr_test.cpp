// Static chains fold at compile time: layouts, view-ness and errors are constants, proved with
// static_assert. The Boost test cases re-check a few at run time so the runner has something to
// count and the dynamic path is compared with the static one.
#define BOOST_TEST_MODULE constexpr_fold
#include <boost/test/unit_test.hpp>
#include <lazyview/lazyview.hpp>

using namespace lazyview;

namespace {

float buf[16 * 8 * 6];

// FLUX _pack_latents at (B,C,H,W) = (1,16,8,6).
constexpr auto pack = from_blob<1, 16, 8, 6>(buf).view<1, 16, 4, 2, 3, 2>().permute<0, 2, 4, 1, 3, 5>().reshape<1, 12, 64>();
constexpr const auto& pack_fold = fold(pack);

// A static chain stores only the base pointer.
static_assert(sizeof(pack) == sizeof(float*), "a static chain stores only its pointer");
static_assert(decltype(pack)::is_static);

// PyTorch: (1,12,64):(768,64,1), a copy.
static_assert(!pack.is_view());
static_assert(pack.is_contiguous());
static_assert(pack.sizes() == std::array<index_t, 3>{1, 12, 64});
static_assert(pack.strides() == std::array<index_t, 3>{768, 64, 1});

// Physically: (_1,(_4,_3),(_16,_2,_2)):(_0,(_12,_2),(_48,_6,_1)), one level, all static.
constexpr bool modes_are(const level& l, std::initializer_list<index_t> m, std::initializer_list<index_t> st) {
  if (static_cast<int>(m.size()) != l.msize.n) return false;
  int i = 0;
  for (auto [a, b] = std::pair{m.begin(), st.begin()}; a != m.end(); ++a, ++b, ++i)
    if (l.msize[i].v != *a || l.mstride[i].v != *b || !l.msize[i].s || !l.mstride[i].s) return false;
  return true;
}
static_assert(pack_fold.nlev == 1);
static_assert(modes_are(pack_fold.top(), {4, 3, 16, 2, 2}, {12, 2, 48, 6, 1}));
static_assert(pack_fold.top().bound[1] == 0 && pack_fold.top().bound[2] == 2 && pack_fold.top().bound[3] == 5);

// Unpack of the packed tensor's memory round-trips: (1,16,8,6) with the inverse layout.
float packed[16 * 8 * 6];
constexpr auto unpack =
    from_blob<1, 12, 64>(packed).view<1, 4, 3, 16, 2, 2>().permute<0, 3, 1, 4, 2, 5>().reshape<1, 16, 8, 6>();
static_assert(!unpack.is_view());
static_assert(fold(unpack).nlev == 1);
static_assert(modes_are(fold(unpack).top(), {16, 4, 2, 3, 2}, {4, 192, 2, 64, 1}));

// A chain that stays a view keeps flat static strides.
constexpr auto pure = from_blob<2, 3, 4>(buf).permute<2, 0, 1>().unsqueeze(c<1>).select(c<0>, c<1>);
static_assert(pure.is_view());
static_assert(pure.sizes() == std::array<index_t, 3>{1, 2, 3});
static_assert(pure.strides() == std::array<index_t, 3>{24, 12, 4});
static_assert(fold(pure).offset.v == 1 && fold(pure).offset.s);

// The agents example: -1 inferred statically; reshape(6,7,50,6).permute(0,2,1,3) is a view,
// the last reshape copies.
constexpr auto agents = from_blob<42, 50, 6>(buf).reshape<6, 7, 50, 6>().permute<0, 2, 1, 3>().reshape<6, 50, -1>();
static_assert(agents.sizes() == std::array<index_t, 3>{6, 50, 42});
static_assert(!agents.is_view());

// A new dim cutting inside an old one: a div/mod segment, bounded by aligned ends only.
constexpr auto cut = from_blob<12>(buf).view<4, 3>().t().reshape<2, 6>();
static_assert(!cut.is_view());
static_assert(fold(cut).top().bound[0] == 0 && fold(cut).top().bound[1] == -1 && fold(cut).top().bound[2] == 2);

// PyTorch's view rule (semantics-and-peers §A.2), as constants.
constexpr shape_vec sv_of(std::initializer_list<index_t> v) {
  shape_vec s{};
  for (index_t x : v) s.push_back(lazyview::sv(x));
  return s;
}
constexpr bool strides_are(const view_rule_result& r, std::initializer_list<index_t> st) {
  if (!r.ok || r.strides.n != static_cast<int>(st.size())) return false;
  int i = 0;
  for (index_t x : st)
    if (r.strides[i++].v != x) return false;
  return true;
}
static_assert(strides_are(compute_stride(sv_of({2, 4, 3}), sv_of({12, 1, 4}), sv_of({2, 1, 4, 3})), {12, 4, 1, 4}));
static_assert(strides_are(compute_stride(sv_of({2, 4, 3}), sv_of({12, 1, 4}), sv_of({2, 4, 3, 1})), {12, 1, 4, 4}));
static_assert(strides_are(compute_stride(sv_of({2, 4, 3}), sv_of({12, 1, 4}), sv_of({1, 2, 4, 3})), {24, 12, 1, 4}));
static_assert(strides_are(compute_stride(sv_of({3, 4}), sv_of({1, 0}), sv_of({3, 2, 2})), {1, 0, 0}));
static_assert(!compute_stride(sv_of({3, 4}), sv_of({1, 0}), sv_of({12})).ok);
static_assert(strides_are(compute_stride(sv_of({4, 4}), sv_of({6, 1}), sv_of({4, 2, 2})), {6, 2, 1}));
static_assert(strides_are(compute_stride(sv_of({4, 4}), sv_of({6, 1}), sv_of({2, 2, 4})), {12, 6, 1}));
static_assert(!compute_stride(sv_of({4, 4}), sv_of({6, 1}), sv_of({16})).ok);
static_assert(strides_are(compute_stride(sv_of({0, 4, 3}), sv_of({12, 3, 1}), sv_of({4, 0, 3})), {3, 3, 1}));
static_assert(strides_are(compute_stride(sv_of({0, 4, 3}), sv_of({12, 3, 1}), sv_of({12, 0})), {1, 1}));

// -1 inference and its errors.
constexpr error_info infer(std::initializer_list<index_t> req, index_t numel) {
  shape_vec s{};
  for (index_t x : req) s.push_back(dv(x));
  error_info e{};
  infer_size(s, dv(numel), e);
  return e;
}
static_assert(!infer({-1, 4}, 24));
static_assert(infer({5, 5}, 24).code == err::numel_mismatch);
static_assert(infer({-1, -1}, 24).code == err::two_inferred);
static_assert(infer({-2, 12}, 24).code == err::invalid_size);
static_assert(infer({-1, 0}, 0).code == err::infer_ambiguous);
static_assert(infer({-1, 5}, 24).code == err::numel_mismatch);

// Staticness: static in, static out; a dynamic size makes products dynamic, a static 0 stays 0.
static_assert((sv(2) * sv(3)).s && !(sv(2) * dv(3)).s && (sv(0) * dv(3)).s);

}  // namespace

BOOST_AUTO_TEST_CASE(static_and_dynamic_folds_agree) {
  auto dyn = from_blob(buf, {1, 16, 8, 6}).view(1, 16, 4, 2, 3, 2).permute(0, 2, 4, 1, 3, 5).reshape(1, 12, 64);
  const auto d = fold(dyn);
  BOOST_TEST(d.view == pack_fold.view);
  BOOST_TEST(physical_string(d) == "(1,(4,3),(16,2,2)):(0,(12,2),(48,6,1))");
  BOOST_TEST(physical_string(pack_fold) == "(_1,(_4,_3),(_16,_2,_2)):(_0,(_12,_2),(_48,_6,_1))");
}

BOOST_AUTO_TEST_CASE(mixed_static_and_dynamic_sizes) {
  const index_t n = 12;
  auto e = from_blob(buf, {24}).view(c<2>, n);
  const auto s = fold(e);
  BOOST_TEST(s.sizes[0].s);
  BOOST_TEST(!s.sizes[1].s);
  BOOST_TEST(layout_string(s.sizes, s.strides) == "(_2,12):(12,1)");
}
