// A dynamic node computes PyTorch's side of every op by the shown-only rules of
// fold/shown_ops.hpp and fold/shown_dim_ops.hpp, and of every failing call by the full fold. The
// two must agree on everything a node keeps: sizes, strides, offset, the view flag, emptiness and
// which values are static (explain() prints those). Each case here runs both on a random shown
// state, static flags and argument kinds mixed, and compares them field by field; where the full
// rule raises, the shown-only rule must decline, so that the full one throws PyTorch's message
// (the reshape family also declines on tensors with no elements).
#define BOOST_TEST_MODULE shown_paths
#include <boost/test/unit_test.hpp>
#include <lazyview/lazyview.hpp>

#include <array>
#include <cstdint>
#include <random>
#include <type_traits>

using namespace lazyview;

namespace {

std::mt19937_64 rng(20261123);

index_t pick(index_t lo, index_t hi) { return std::uniform_int_distribution<index_t>(lo, hi)(rng); }
bool coin(int percent) { return pick(0, 99) < percent; }

/// A random shown state of rank R: small sizes (some 0 or 1), strides contiguous, permuted,
/// broadcast (0) or arbitrary, random static flags.
template <int R>
shown<R> random_shown() {
  shown<R> m;
  index_t acc = 1;
  bool empty = false;
  for (int i = R - 1; i >= 0; --i) {
    m.sizes[i] = coin(5) ? 0 : pick(1, 4);
    empty |= m.sizes[i] == 0;
    const int kind = static_cast<int>(pick(0, 3));
    m.strides[i] = kind == 0 ? acc : kind == 1 ? 0 : kind == 2 ? pick(1, 40) : acc * pick(1, 3);
    acc *= m.sizes[i] > 1 ? m.sizes[i] : 1;
  }
  m.offset = pick(0, 9);
  m.statics = static_cast<std::uint32_t>(pick(0, (index_t{1} << (2 * R + 1)) - 1));
  if (coin(40)) m.statics = 0;
  m.view = !coin(20);
  m.empty = empty;
  return m;
}

ival random_arg(index_t v) { return ival{v, coin(30)}; }

/// Sizes for a view of `numel` elements into N dims: usually a factorisation (sometimes with a
/// -1), sometimes wrong (a bad count, two -1, a negative size).
template <int N>
std::array<ival, N> random_request(index_t numel) {
  std::array<ival, N> r{};
  index_t left = numel;
  for (int i = 0; i < N; ++i) {
    index_t s = 1;
    if (i == N - 1) {
      s = left;
    } else if (left > 1) {
      for (int t = 0; t < 4; ++t) {
        const index_t c = pick(1, left);
        if (left % c == 0) s = c;
      }
    } else if (left == 0 && coin(50)) {
      s = 0;
    }
    if (left != 0) left /= s;
    r[static_cast<std::size_t>(i)] = random_arg(s);
  }
  if (N > 0 && coin(30)) r[static_cast<std::size_t>(pick(0, N - 1))].v = -1;
  if (N > 1 && coin(5)) r[0].v = r[1].v = -1;
  if (N > 0 && coin(5)) r[static_cast<std::size_t>(pick(0, N - 1))].v = pick(-3, 7);
  return r;
}

template <int R>
void require_equal(const shown<R>& a, const shown<R>& b) {
  for (int i = 0; i < R; ++i) {
    BOOST_REQUIRE_EQUAL(a.sizes[i], b.sizes[i]);
    BOOST_REQUIRE_EQUAL(a.strides[i], b.strides[i]);
  }
  BOOST_REQUIRE_EQUAL(a.offset, b.offset);
  BOOST_REQUIRE_EQUAL(a.statics, b.statics);
  BOOST_REQUIRE_EQUAL(a.view, b.view);
  BOOST_REQUIRE_EQUAL(a.empty, b.empty);
}

/// Runs Tag both ways on `in` with arguments a[0, n); returns whether the full rule succeeded.
template <class Tag, int Ri, int Ro>
bool both_ways(const shown<Ri>& in, const ival* a, int n) {
  fold_state<0> s;
  load_shown(s, in);
  shape_vec args{};
  for (int i = 0; i < n; ++i) args.push_back(a[i]);
  Tag::apply(s, args);
  ival fast_args[max_rank + 1];
  for (int i = 0; i < n; ++i) fast_args[i] = a[i];
  shown<Ro> fast;
  const bool fast_ok = Tag::apply_shown(in, fast_args, fast);
  if (s.error) {
    BOOST_REQUIRE(!fast_ok);
    return false;
  }
  // the reshape family leaves tensors with no elements to the full rule
  constexpr bool reshapes = std::is_same_v<Tag, tags::view> || std::is_same_v<Tag, tags::reshape> ||
                            std::is_same_v<Tag, tags::flatten> || std::is_same_v<Tag, tags::unflatten>;
  const bool may_decline = reshapes && in.numel() == 0;
  BOOST_REQUIRE(fast_ok || may_decline);
  if (!fast_ok) return true;
  require_equal(to_shown<Ro>(s), fast);
  return true;
}

template <int Ri, int Ro>
int reshapes(int cases) {
  int ok = 0;
  for (int k = 0; k < cases; ++k) {
    const shown<Ri> in = random_shown<Ri>();
    const auto req = random_request<Ro>(in.numel());
    ok += both_ways<tags::view, Ri, Ro>(in, req.data(), Ro);
    ok += both_ways<tags::reshape, Ri, Ro>(in, req.data(), Ro);
  }
  return ok;
}

template <int R>
int permutes(int cases) {
  int ok = 0;
  for (int k = 0; k < cases; ++k) {
    const shown<R> in = random_shown<R>();
    std::array<ival, R> p{};
    for (int i = 0; i < R; ++i) p[static_cast<std::size_t>(i)] = random_arg(i);
    std::shuffle(p.begin(), p.end(), rng);
    for (auto& d : p)
      if (coin(30)) d.v -= R;  // negative dims count from the end
    if (R > 0 && coin(10)) p[static_cast<std::size_t>(pick(0, R - 1))].v = pick(-R - 2, R + 1);  // out of range or repeated
    ok += both_ways<tags::permute, R, R>(in, p.data(), R);
    const ival ab[2] = {random_arg(pick(-R - 1, R)), random_arg(pick(-R - 1, R))};
    ok += both_ways<tags::transpose, R, R>(in, ab, 2);
    if constexpr (R <= 2) ok += both_ways<tags::t, R, R>(in, ab, 0);
  }
  return ok;
}

/// A dim for rank R: usually in range (either sign), sometimes just outside it.
index_t random_dim(int R) { return coin(10) ? pick(-R - 2, R + 1) : pick(-(R > 0 ? R : 1), (R > 0 ? R : 1) - 1); }

/// The size of wrapped dim d of `in`, or 3 where d is out of range.
template <int R>
index_t size_at(const shown<R>& in, index_t d) {
  const index_t w = d < 0 ? d + R : d;
  return w >= 0 && w < R ? in.sizes[static_cast<std::size_t>(w)] : 3;
}

/// select, slice, narrow, squeeze, unsqueeze, movedim, diagonal and unfold on rank R.
template <int R>
int dim_ops(int cases) {
  int ok = 0;
  for (int k = 0; k < cases; ++k) {
    shown<R> in = random_shown<R>();
    const index_t d = random_dim(R);
    const index_t n = size_at(in, d);
    if constexpr (R >= 1) {
      const ival sel[2] = {random_arg(d), random_arg(pick(-n - 1, n))};
      ok += both_ways<tags::select, R, R - 1>(in, sel, 2);
      const index_t big = coin(10) ? INT64_MAX : pick(-n - 2, n + 2);
      const ival sl[4] = {random_arg(d), random_arg(coin(10) ? -big : pick(-n - 2, n + 2)), random_arg(big),
                          random_arg(coin(5) ? pick(-1, 0) : pick(1, 3))};
      ok += both_ways<tags::slice, R, R>(in, sl, 4);
      const ival nw[3] = {random_arg(d), random_arg(pick(-n - 1, n + 1)), random_arg(pick(-1, n + 1))};
      ok += both_ways<tags::narrow, R, R>(in, nw, 3);
      shown<R> one = in;  // squeeze mostly meets a size-1 dim
      const index_t w = d < 0 ? d + R : d;
      if (w >= 0 && w < R && coin(80)) {
        one.sizes[static_cast<std::size_t>(w)] = 1;
        one.empty = one.numel() == 0;
      }
      const ival sq[1] = {random_arg(d)};
      ok += both_ways<tags::squeeze, R, R - 1>(one, sq, 1);
      const ival un[3] = {random_arg(d), random_arg(pick(-1, n + 1)), random_arg(coin(5) ? pick(-1, 0) : pick(1, 3))};
      ok += both_ways<tags::unfold, R, R + 1>(in, un, 3);
    } else {
      const ival un[3] = {random_arg(d), random_arg(pick(-1, 2)), random_arg(pick(-1, 2))};
      ok += both_ways<tags::unfold, R, R + 1>(in, un, 3);
    }
    const ival uq[1] = {random_arg(coin(10) ? pick(-R - 3, R + 2) : pick(-R - 1, R))};
    ok += both_ways<tags::unsqueeze, R, R + 1>(in, uq, 1);
    const ival mv[2] = {random_arg(d), random_arg(random_dim(R))};
    ok += both_ways<tags::movedim, R, R>(in, mv, 2);
    if constexpr (R >= 2) {
      const ival dg[3] = {random_arg(pick(-5, 5)), random_arg(d), random_arg(random_dim(R))};
      ok += both_ways<tags::diagonal, R, R - 1>(in, dg, 3);
    }
  }
  return ok;
}

/// expand of rank Ri to Ro sizes: kept (-1 or the size), grown from 1, or wrong.
template <int Ri, int Ro>
int expands(int cases) {
  int ok = 0;
  for (int k = 0; k < cases; ++k) {
    const shown<Ri> in = random_shown<Ri>();
    std::array<ival, Ro> t{};
    for (int i = 0; i < Ro; ++i) {
      const int d = i - (Ro - Ri);
      const index_t size = d >= 0 ? in.sizes[static_cast<std::size_t>(d)] : 1;
      index_t v = size == 1 ? pick(0, 4) : size;
      if (coin(30)) v = -1;
      if (coin(5)) v = pick(-2, 5);
      t[static_cast<std::size_t>(i)] = random_arg(v);
    }
    ok += both_ways<tags::expand, Ri, Ro>(in, t.data(), Ro);
  }
  return ok;
}

/// flatten(A, B) of rank Ri (the result rank depends on the dims, as the op's type says).
template <int Ri, index_t A, index_t B>
int flattens(int cases) {
  using Tup = hana::basic_tuple<norm_t<decltype(c<A>)>, norm_t<decltype(c<B>)>>;
  constexpr int Ro = tags::flatten::out_rank<Ri, Tup>;
  int ok = 0;
  for (int k = 0; k < cases; ++k) {
    const shown<Ri> in = random_shown<Ri>();
    const ival ab[2] = {sv(A), sv(B)};
    ok += both_ways<tags::flatten, Ri, Ro>(in, ab, 2);
  }
  return ok;
}

/// unflatten of a dim of rank Ri into Ro - Ri + 1 parts.
template <int Ri, int Ro>
int unflattens(int cases) {
  constexpr int np = Ro - Ri + 1;
  int ok = 0;
  for (int k = 0; k < cases; ++k) {
    const shown<Ri> in = random_shown<Ri>();
    const index_t d = random_dim(Ri);
    const auto parts = random_request<np>(size_at(in, d));
    ival a[np + 1];
    a[0] = random_arg(d);
    for (int i = 0; i < np; ++i) a[i + 1] = parts[static_cast<std::size_t>(i)];
    ok += both_ways<tags::unflatten, Ri, Ro>(in, a, np + 1);
  }
  return ok;
}

}  // namespace

BOOST_AUTO_TEST_CASE(view_and_reshape_agree_with_the_full_fold) {
  int ok = 0;
  ok += reshapes<0, 0>(200) + reshapes<0, 2>(200) + reshapes<1, 3>(3000);
  ok += reshapes<2, 1>(3000) + reshapes<2, 4>(3000) + reshapes<3, 2>(3000);
  ok += reshapes<3, 3>(3000) + reshapes<4, 6>(3000) + reshapes<6, 3>(3000);
  // most cases reach a result (views, copies, -1 resolved), the rest raise
  BOOST_TEST(ok > 20000);
}

BOOST_AUTO_TEST_CASE(permute_transpose_and_t_agree_with_the_full_fold) {
  int ok = permutes<0>(100) + permutes<1>(1000) + permutes<2>(3000) + permutes<3>(3000);
  ok += permutes<4>(3000) + permutes<6>(3000);
  BOOST_TEST(ok > 15000);
}

BOOST_AUTO_TEST_CASE(dim_local_ops_agree_with_the_full_fold) {
  int ok = dim_ops<0>(300) + dim_ops<1>(2000) + dim_ops<2>(3000) + dim_ops<3>(3000);
  ok += dim_ops<4>(3000) + dim_ops<6>(2000) + dim_ops<7>(1000);
  BOOST_TEST(ok > 70000);
}

BOOST_AUTO_TEST_CASE(expand_agrees_with_the_full_fold) {
  int ok = expands<0, 0>(100) + expands<0, 2>(500) + expands<1, 1>(2000) + expands<1, 3>(2000);
  ok += expands<2, 2>(3000) + expands<2, 4>(3000) + expands<3, 5>(3000) + expands<4, 4>(3000);
  BOOST_TEST(ok > 8000);
}

BOOST_AUTO_TEST_CASE(flatten_and_unflatten_agree_with_the_full_fold) {
  int ok = flattens<0, 0, -1>(200) + flattens<1, 0, 0>(500) + flattens<2, 0, 1>(2000);
  ok += flattens<3, 1, 2>(2000) + flattens<3, 0, -1>(2000) + flattens<4, -3, -2>(2000);
  ok += flattens<4, 2, 2>(500) + flattens<4, 2, 1>(200) + flattens<3, 0, 5>(200);
  ok += unflattens<1, 1>(500) + unflattens<1, 3>(2000) + unflattens<2, 3>(2000);
  ok += unflattens<3, 5>(2000) + unflattens<4, 4>(1000) + unflattens<4, 6>(2000);
  BOOST_TEST(ok > 10000);
}

BOOST_AUTO_TEST_CASE(a_dynamic_chain_keeps_what_the_full_fold_shows) {
  // the nodes' kept states (shown-only rules) against a fold of the same chain from its leaf
  float b[2 * 3 * 4 * 5];
  auto e = from_blob(b, {2, 3, 4, 5}).view(6, -1, 5).permute(2, 0, 1).transpose(0, c<2>).reshape(c<4>, -1);
  const auto full = fold(e);
  const auto kept = shown_of(e);
  require_equal(kept, to_shown<2>(full));
  BOOST_TEST(!e.is_view());
  auto v = from_blob<2, 3, 4>(b).view(6, c<4>).t();
  require_equal(shown_of(v), to_shown<2>(fold(v)));
  // the stride of 6 comes from static values only (the static leaf's strides, c<4>), so it is static
  BOOST_TEST(layout_string(fold(v).sizes, fold(v).strides) == "(_4,6):(_1,_4)");
  // select(d, -1) counts back from the size: its offset is static only where the size is
  auto w = from_blob<2, 3, 4>(b).view(c<2>, 3, c<4>).select(c<1>, c<-1>);  // size 3 dynamic
  require_equal(shown_of(w), to_shown<2>(fold(w)));
  BOOST_TEST(shown_of(w).offset == 8);
  BOOST_TEST((shown_of(w).statics >> 4 & 1u) == 0u);
  auto u = from_blob<2, 3, 4>(b).view(2, c<3>, c<4>).select(c<1>, c<-1>);  // size 3 static
  BOOST_TEST(shown_of(u).offset == 8);
  BOOST_TEST((shown_of(u).statics >> 4 & 1u) == 1u);
}

BOOST_AUTO_TEST_CASE(failing_calls_still_throw_pytorchs_message) {
  float b[24];
  auto x = from_blob(b, {2, 3, 4});
  BOOST_CHECK_EXCEPTION((void)x.view(5, -1), shape_error, [](const shape_error& e) {
    return std::string(e.what()) == "shape '[5, -1]' is invalid for input of size 24";
  });
  BOOST_CHECK_EXCEPTION((void)x.permute(0, 0, 1), shape_error, [](const shape_error& e) {
    return std::string(e.what()) == "permute(): duplicate dims are not allowed.";
  });
  BOOST_CHECK_THROW((void)x.transpose(0, 3), index_error);
  BOOST_CHECK_THROW((void)x.permute(1, 2, 0).view(24), shape_error);
}
