// The harness control: the same command line as the cases, and code that differs from each of
// them only in being correct. It must compile without warnings.
#include <lazyview/lazyview.hpp>

#include <array>

float compile_fail_control(float* p) {
  using lazyview::c;
  auto x = lazyview::from_blob<2, 3, 4>(p);
  auto a = x.view<4, 6>();                       // numel_mismatch, two_inferred, invalid_size
  auto b = x.reshape<-1, 3>();                   // reshape_numel_mismatch, infer_indivisible
  auto d = x.view(c<6>, c<4>);                   // view_c_numel_mismatch
  auto e = lazyview::from_blob<4, 3>(p).t().reshape<12>();  // view_incompatible: reshape may copy
  auto f = x.permute<2, 0, 1>();                 // permute_count, permute_duplicate, permute_dim_out_of_range
  auto g = x.transpose(c<0>, c<2>);              // dim_out_of_range
  auto h = x.select(c<0>, c<1>).narrow(c<1>, c<2>, c<2>);  // index_out_of_range, narrow_out_of_range
  auto i = x.narrow(c<1>, c<0>, c<1>).expand(c<2>, c<5>, c<4>);  // expand_mismatch: a size-1 dim grows
  auto j = x.narrow(c<1>, c<0>, c<1>).squeeze(c<1>);    // squeeze_not_one
  auto z = lazyview::from_blob<0, 4>(p).view<-1, 2>();  // infer_ambiguous: no 0 beside the -1
  auto t = lazyview::from_blob<2, 3>(p).t().contiguous();  // temporary_base: bind the tensor first
  auto u = t.view(6);
  return a(0, 0) + b(0, 0) + d(0, 0) + e(0) + f(0, 0, 0) + g(0, 0, 0) + h(0, 0) + i(0, 0, 0) + j(0, 0) +
         static_cast<float>(z.numel()) + u(0);
}
