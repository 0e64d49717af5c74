#pragma once
// Errors: the two exception types, the error record the fold produces (constexpr-friendly, no
// strings), and the PyTorch 1.13 message text built from it only when it is thrown.
#include <stdexcept>
#include <string>

#include "../config.hpp"

namespace lazyview {

/// Thrown where PyTorch raises IndexError.
struct index_error : std::out_of_range {
  using std::out_of_range::out_of_range;
};
/// Thrown where PyTorch raises RuntimeError.
struct shape_error : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// What went wrong in a fold step. Each code maps to one PyTorch message (or a lazyview one where
/// PyTorch has none) and, for static chains, to one diagnostic in diag/.
enum class err : unsigned char {
  none,
  numel_mismatch,     ///< a: requested sizes, x: numel
  view_incompatible,  ///< a: input sizes, b: requested sizes
  infer_ambiguous,    ///< a: requested sizes
  two_inferred,       ///< a: requested sizes
  invalid_size,       ///< x: the size
  dim_out_of_range,   ///< x: dim, y: lo, z: hi
  permute_duplicate,  ///< a: dims as given
  expand_mismatch,    ///< a: target, b: input sizes, x: target size, y: existing, z: dim
  expand_leading,     ///< x: size, y: dim
  expand_negative,    ///< x: size, y: dim
  squeeze_not_one,    ///< x: dim, y: size
  narrow_range,       ///< x: start, y: length, z: size
  select_range,       ///< a: input sizes, x: index, y: dim
  slice_step,         ///< x: step
  unfold_size,        ///< x: dim, y: max size, z: size
  unfold_step,        ///< x: step
  diagonal_same,      ///< x: d1, y: d2
  movedim_repeat,     ///< a: dims, x: 0 for source, 1 for destination
  unflatten_sizes,    ///< a: sizes, x: dim, y: dim size
  unflatten_two_inferred,
  flatten_order,      ///< x: start, y: end
  index_range,        ///< x: index, y: dim, z: size
  copy_mismatch,      ///< a: source sizes, b: destination sizes
};

/// An error with the values its message needs. Plain data so it can live in a constexpr fold.
struct error_info {
  err code = err::none;
  int na = 0, nb = 0;
  index_t a[max_rank], b[max_rank];  // only [0, na) and [0, nb) are read
  index_t x = 0, y = 0, z = 0;

  constexpr explicit operator bool() const { return code != err::none; }
};

namespace detail {

inline std::string list_str(const index_t* v, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

}  // namespace detail

/// PyTorch's message for `e` (lazyview's own text where PyTorch has none; see docs/errors.md).
inline std::string message(const error_info& e) {
  using detail::list_str;
  using std::to_string;
  switch (e.code) {
    case err::none: return "";
    case err::numel_mismatch:
      return "shape '" + list_str(e.a, e.na) + "' is invalid for input of size " + to_string(e.x);
    case err::view_incompatible:
      return "view size is not compatible with input tensor's size and stride (at least one dimension "
             "spans across two contiguous subspaces). Use .reshape(...) instead.";
    case err::infer_ambiguous:
      return "cannot reshape tensor of 0 elements into shape " + list_str(e.a, e.na) +
             " because the unspecified dimension size -1 can be any value and is ambiguous";
    case err::two_inferred: return "only one dimension can be inferred";
    case err::invalid_size: return "invalid shape dimension " + to_string(e.x);
    case err::dim_out_of_range:
      return "Dimension out of range (expected to be in range of [" + to_string(e.y) + ", " + to_string(e.z) +
             "], but got " + to_string(e.x) + ")";
    case err::permute_duplicate: return "permute(): duplicate dims are not allowed.";
    case err::expand_mismatch:
      return "The expanded size of the tensor (" + to_string(e.x) + ") must match the existing size (" +
             to_string(e.y) + ") at non-singleton dimension " + to_string(e.z) +
             ".  Target sizes: " + list_str(e.a, e.na) + ".  Tensor sizes: " + list_str(e.b, e.nb);
    case err::expand_leading:
      return "The expanded size of the tensor (" + to_string(e.x) +
             ") isn't allowed in a leading, non-existing dimension " + to_string(e.y);
    case err::expand_negative:
      return "expand(): invalid size " + to_string(e.x) + " at dimension " + to_string(e.y);
    case err::squeeze_not_one:
      return "squeeze(): dimension " + to_string(e.x) + " has size " + to_string(e.y) +
             ", not 1 (lazyview has static rank, so it cannot be a no-op)";
    case err::narrow_range:
      return "start (" + to_string(e.x) + ") + length (" + to_string(e.y) + ") exceeds dimension size (" +
             to_string(e.z) + ").";
    case err::select_range:
      return "select(): index " + to_string(e.x) + " out of range for tensor of size " + list_str(e.a, e.na) +
             " at dimension " + to_string(e.y);
    case err::slice_step: return "slice step must be positive";
    case err::unfold_size:
      return "maximum size for tensor at dimension " + to_string(e.x) + " is " + to_string(e.y) +
             " but size is " + to_string(e.z);
    case err::unfold_step: return "step is " + to_string(e.x) + " but must be > 0";
    case err::diagonal_same:
      return "diagonal dimensions cannot be identical " + to_string(e.x) + ", " + to_string(e.y);
    case err::movedim_repeat:
      return std::string("movedim: repeated dim in `") + (e.x ? "destination" : "source") + "` (" +
             list_str(e.a, e.na) + ")";
    case err::unflatten_sizes:
      return "unflatten: Provided sizes " + list_str(e.a, e.na) + " don't multiply up to the size of dim " +
             to_string(e.x) + " (" + to_string(e.y) + ") in the input tensor";
    case err::unflatten_two_inferred:  // PyTorch 1.13 wraps infer_size's error in this one case
      return "unflatten got an unexpected error:\nonly one dimension can be inferred";
    case err::flatten_order: return "flatten() has invalid args: start_dim cannot come after end_dim";
    case err::index_range:
      return "index " + to_string(e.x) + " is out of bounds for dimension " + to_string(e.y) + " with size " +
             to_string(e.z);
    case err::copy_mismatch:
      return "copy(): source sizes " + list_str(e.a, e.na) + " do not match destination sizes " +
             list_str(e.b, e.nb);
  }
  return "lazyview: unknown error";
}

/// True where PyTorch raises IndexError for this error.
constexpr bool is_index_error(err c) {
  return c == err::dim_out_of_range || c == err::select_range || c == err::index_range;
}

/// Throws the exception PyTorch would raise for `e`.
[[noreturn]] inline void throw_error(const error_info& e) {
  if (is_index_error(e.code)) throw index_error(message(e));
  throw shape_error(message(e));
}

}  // namespace lazyview
