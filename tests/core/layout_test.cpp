// Layout algebra laws: align() and normalize() never change the offset of any index, and align
// groups modes exactly where dim and mode boundaries meet.
#define BOOST_TEST_MODULE core_layout
#include <boost/test/unit_test.hpp>
#include <lazyview/lazyview.hpp>
#include <random>
#include <vector>

using namespace lazyview;

namespace {

// Offset of flat row-major index f over a mode list (the reference semantics of a level).
index_t ref_offset(const std::vector<index_t>& m, const std::vector<index_t>& s, index_t f) {
  index_t off = 0;
  for (int j = static_cast<int>(m.size()) - 1; j >= 0; --j) {
    off += (f % m[j]) * s[j];
    f /= m[j];
  }
  return off;
}

// A random factorisation of n into up to `parts` factors (1s allowed).
std::vector<index_t> factorise(index_t n, int parts, std::mt19937& rng) {
  std::vector<index_t> out;
  for (int i = 0; i + 1 < parts; ++i) {
    std::vector<index_t> divs;
    for (index_t d = 1; d <= n; ++d)
      if (n % d == 0) divs.push_back(d);
    const index_t d = divs[std::uniform_int_distribution<std::size_t>(0, divs.size() - 1)(rng)];
    out.push_back(d);
    n /= d;
  }
  out.push_back(n);
  return out;
}

constexpr index_t sizes_234[] = {2, 3, 4};
constexpr index_t sizes_205[] = {2, 0, 5};
static_assert(product_of(3, [](int i) { return sizes_234[i]; }) == 24);
static_assert(product_of(3, [](int i) { return sizes_205[i]; }) == 0);
static_assert(product_of(0, [](int) -> index_t { return 7; }) == 1);

}  // namespace

BOOST_AUTO_TEST_CASE(align_preserves_offsets_and_groups_on_shared_boundaries) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 3000; ++trial) {
    const int nm = std::uniform_int_distribution<int>(1, 6)(rng);
    std::vector<index_t> m, s;
    index_t numel = 1;
    for (int j = 0; j < nm; ++j) {
      m.push_back(std::uniform_int_distribution<index_t>(1, 6)(rng));
      s.push_back(std::uniform_int_distribution<index_t>(0, 50)(rng));
      numel *= m.back();
    }
    const auto dims = factorise(numel, std::uniform_int_distribution<int>(1, 6)(rng), rng);
    level l;
    for (index_t d : dims) l.isz.push_back(dv(d));
    for (int j = 0; j < nm; ++j) {
      l.msize.push_back(dv(m[j]));
      l.mstride.push_back(dv(s[j]));
    }
    BOOST_REQUIRE(align(l));
    for (index_t f = 0; f < numel; ++f) BOOST_REQUIRE_EQUAL(decompose(l, f, 0, l.msize.n), ref_offset(m, s, f));
    // Every aligned boundary splits the product of modes exactly where the dims split.
    const int r = l.isz.n;
    for (int b = 0; b <= r; ++b) {
      if (l.bound[b] < 0) continue;
      index_t pd = 1, pm = 1;
      for (int k = b; k < r; ++k) pd *= l.isz[k].v;
      for (int j = l.bound[b]; j < l.msize.n; ++j) pm *= l.msize[j].v;
      BOOST_REQUIRE_EQUAL(pd, pm);
    }
    BOOST_REQUIRE(l.bound[0] == 0 && l.bound[r] == l.msize.n);
  }
}

BOOST_AUTO_TEST_CASE(align_splits_flux_groups) {
  // (4,3,16,2,2):(12,2,48,6,1) regrouped as (12,64) -> ((4,3),(16,2,2)).
  level l;
  for (index_t d : {12, 64}) l.isz.push_back(dv(d));
  for (auto [m, s] : std::vector<std::pair<index_t, index_t>>{{4, 12}, {3, 2}, {16, 48}, {2, 6}, {2, 1}}) {
    l.msize.push_back(dv(m));
    l.mstride.push_back(dv(s));
  }
  BOOST_REQUIRE(align(l));
  BOOST_TEST(level_string(l) == "((4,3),(16,2,2)):((12,2),(48,6,1))");
}

BOOST_AUTO_TEST_CASE(align_coalesces_contiguous_modes_within_a_dim) {
  level l;
  l.isz.push_back(dv(24));
  for (auto [m, s] : std::vector<std::pair<index_t, index_t>>{{2, 12}, {3, 4}, {4, 1}}) {
    l.msize.push_back(dv(m));
    l.mstride.push_back(dv(s));
  }
  BOOST_REQUIRE(align(l));
  BOOST_TEST(level_string(l) == "(24):(1)");
}

BOOST_AUTO_TEST_CASE(normalize_folds_permutations_without_moving_data) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 2000; ++trial) {
    const int r = std::uniform_int_distribution<int>(1, 5)(rng);
    shape_vec sz, st;
    std::vector<index_t> sizes;
    for (int k = 0; k < r; ++k) {
      sizes.push_back(std::uniform_int_distribution<index_t>(1, 4)(rng));
      sz.push_back(dv(sizes.back()));
      st.push_back(dv(std::uniform_int_distribution<index_t>(0, 30)(rng)));
    }
    level l;
    set_flat(l, sz, st, dv(0));
    std::vector<int> p(static_cast<std::size_t>(r));
    for (int i = 0; i < r; ++i) p[static_cast<std::size_t>(i)] = i;
    std::shuffle(p.begin(), p.end(), rng);
    l.ident = false;
    for (int i = 0; i < r; ++i) l.perm[i] = static_cast<signed char>(p[static_cast<std::size_t>(i)]);
    level before = l;
    BOOST_REQUIRE(normalize(l));  // flat levels always normalise
    BOOST_REQUIRE(l.ident);
    // every logical index maps to the same offset
    std::vector<index_t> idx(static_cast<std::size_t>(r), 0);
    index_t total = 1;
    for (int i = 0; i < r; ++i) total *= sizes[static_cast<std::size_t>(p[static_cast<std::size_t>(i)])];
    for (index_t f = 0; f < total; ++f) {
      index_t g = f;
      for (int i = r - 1; i >= 0; --i) {
        const index_t n = sizes[static_cast<std::size_t>(p[static_cast<std::size_t>(i)])];
        idx[static_cast<std::size_t>(i)] = g % n;
        g /= n;
      }
      BOOST_REQUIRE_EQUAL(level_offset(l, idx.data()), level_offset(before, idx.data()));
    }
  }
}

BOOST_AUTO_TEST_CASE(printing_marks_static_values) {
  shape_vec sz, st;
  sz.push_back(sv(2));
  sz.push_back(dv(3));
  st.push_back(dv(3));
  st.push_back(sv(1));
  BOOST_TEST(layout_string(sz, st) == "(_2,3):(3,_1)");
}

// product_of (the scalar product that shown numels and plan loop counts use) equals the plain
// product, zeros anywhere included.
BOOST_AUTO_TEST_CASE(product_of_is_the_plain_product) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<index_t> size(0, 6);
  for (int t = 0; t < 2000; ++t) {
    const int n = static_cast<int>(rng() % 9);
    std::vector<index_t> v(static_cast<std::size_t>(n));
    index_t plain = 1;
    for (index_t& x : v) plain *= (x = size(rng));
    BOOST_TEST(product_of(n, [&](int i) { return v[static_cast<std::size_t>(i)]; }) == plain);
  }
}
