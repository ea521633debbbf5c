// Internal: the values pass of gguf::diff (diff_values.cpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include "gguf/diff.h"

namespace gguf::detail {

/// A pair of tensors of the same shape whose values are compared.
struct values_job_tensor {
  size_t index = 0;  ///< into diff_result::tensors
  const tensor_info* a = nullptr;
  const tensor_info* b = nullptr;
  bool only_equality = false;  ///< asked only whether the values are equal (other byte order)
};

/// Sums over a tensor (or a chunk of it), combined in a fixed order.
struct value_stats {
  double err2 = 0;   ///< sum (b - a)^2
  double ref2 = 0;   ///< sum a^2
  double max_abs = 0;
  bool bits_equal = true;  ///< every float equal bit for bit
  double nmse() const {
    if (ref2 > 0) return err2 / ref2;
    return err2 == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  }
};

/// The value_stats of each tensor pair, in the order given, streamed in chunks of whole
/// rows on options.threads threads.
result<std::vector<value_stats>> compare_values(const file& a, const file& b,
                                                std::span<const values_job_tensor> work,
                                                const diff_options& options);

}  // namespace gguf::detail
