#pragma once
// A fixed-capacity vector of ivals: the fold's storage for sizes and strides. No allocation, so a
// fold is a handful of stores and works inside constant evaluation.
#include "integers.hpp"

namespace lazyview {

template <int N>
struct ivals {
  int n = 0;
  ival v[N > 0 ? N : 1];  // only [0, n) is ever read

  constexpr ival& operator[](int i) { return v[i]; }
  constexpr const ival& operator[](int i) const { return v[i]; }
  constexpr void push_back(ival x) {
    assume_room();
    v[n++] = x;
  }
  constexpr void insert(int at, ival x) {
    assume_room();
    LAZYVIEW_ASSUME(at >= 0 && at <= n);  // callers insert at wrapped dims
    for (int i = n; i > at; --i) v[i] = v[i - 1];
    v[at] = x;
    ++n;
  }
  constexpr void erase(int at) {
    for (int i = at; i + 1 < n; ++i) v[i] = v[i + 1];
    --n;
  }
  /// Callers never exceed N (ranks are checked statically, modes before inserting); saying so
  /// spares g++ -O3 false -Wstringop-overflow warnings.
  constexpr void assume_room() const { LAZYVIEW_ASSUME(n >= 0 && n < (N > 0 ? N : 1)); }
  /// Product of the values (static when every factor is, or when one is a static 0).
  constexpr ival product() const {
    ival p = sv(1);
    for (int i = 0; i < n; ++i) p = p * v[i];
    return p;
  }
};

using shape_vec = ivals<max_rank>;

/// Copies the values of v[0, n) into an error record's list.
// g++ 12 -O3 -march=native, inlining a dynamic node's check into an error path that lists the
// sizes, could not bound n by the rank and warned that entries past it may be read
// uninitialised: a false positive (only [0, n) is written and read). Defining them cost 14 of
// the 58 ns of building a 3-op chain, when its narrow still had no shown rule and went through a
// fold state, so the warning is silenced here instead (tests/headers/warnings_o3.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
constexpr void to_list(const ival* v, int n, index_t* out, int& count) {
  count = n;
  for (int i = 0; i < n && i < max_rank; ++i) out[i] = v[i].v;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
template <int N>
constexpr void to_list(const ivals<N>& s, index_t* out, int& count) {
  to_list(s.v, s.n, out, count);
}

}  // namespace lazyview
