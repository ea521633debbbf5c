// gguf/diff.h — what differs between two GGUF files (or split models read as one).
//
//   auto a = gguf::file::open("before.gguf").value();
//   auto b = gguf::file::open("after.gguf").value();
//   gguf::diff_options o;
//   o.values = true;                         // also NMSE / max |a - b| after dequantization
//   auto d = gguf::diff(a, b, o).value();
//   for (const auto& k : d.kv) std::cout << k.key << " " << gguf::diff_status_name(k.status) << "\n";
//   d.same();                                 // true: exit 0 of `gguf diff`, as diff(1)
//
// Metadata is compared key by key (type and value; arrays element by element, giving the
// first differing index). Tensors are matched by name and compared by type, shape and
// data bytes; the offset and the order of tensors in the file are reported but are not a
// difference (a split model and its merged file hold the same model at other offsets).
// The keys split.no, split.count and split.tensors.count describe how a model is cut
// into files, not the model, and are not compared.
//
// With `values`, each changed tensor whose shape is the same on both sides and whose types
// can both be dequantized (gguf/quant.h) gets
//   nmse    = sum_i (b_i - a_i)^2 / sum_i a_i^2    (sums in double; 0 when both are 0,
//                                                  +inf when only the denominator is)
//   max_abs = max_i |b_i - a_i|
// over the float32 values ggml's to_float gives, A as the reference. The data is streamed
// in chunks of rows (memory: 2 * chunk_elements floats per thread), on `threads` threads;
// the sums are combined in a fixed order, so the result does not depend on the thread count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

enum class diff_status : uint8_t { added, removed, changed };

/// "added", "removed", "changed".
std::string_view diff_status_name(diff_status s) noexcept;

/// One metadata key that differs. `a` / `b` are views into the files given to diff()
/// (valid while they live); empty for the side that lacks the key.
struct kv_diff {
  std::string key;
  diff_status status = diff_status::changed;
  std::optional<value_ref> a, b;
  /// changed arrays of the same element type: the first index whose elements differ
  /// (the shorter length when one array is a prefix of the other).
  std::optional<uint64_t> first_diff_index;
};

/// One tensor that differs. `a` / `b` point into the files given to diff(); nullptr for
/// the side that lacks the tensor.
struct tensor_diff {
  std::string name;
  diff_status status = diff_status::changed;
  const tensor_info* a = nullptr;
  const tensor_info* b = nullptr;
  bool type_changed = false;
  bool shape_changed = false;
  bool data_equal = false;  ///< same type, shape and data bytes (then it is not listed)
  /// With diff_options::values, where both shapes agree and both types dequantize.
  std::optional<double> nmse;
  std::optional<double> max_abs;
};

struct diff_options {
  bool values = false;               ///< compute nmse / max_abs of changed tensors
  unsigned threads = 0;              ///< 0 = std::thread::hardware_concurrency()
  uint64_t chunk_elements = 1 << 20; ///< floats per side dequantized at once (rounded to whole rows)
};

struct diff_result {
  std::vector<kv_diff> kv;          ///< in A's key order, then B's keys A lacks
  std::vector<tensor_diff> tensors; ///< in A's tensor order, then B's tensors A lacks
  bool same() const noexcept { return kv.empty() && tensors.empty(); }
};

/// Compares `a` with `b` as described above. Remote files are fetched chunk by chunk
/// (file::fetch) and released after use. Errors: those of file::fetch (io_error) and of
/// dequantize_row, naming the file and the tensor.
result<diff_result> diff(const file& a, const file& b, const diff_options& options = {});

/// True when the two metadata values have the same type and value; for arrays of the same
/// element type that differ, `first_diff` (if given) receives the first differing index.
bool same_value(const value_ref& a, const value_ref& b, std::optional<uint64_t>* first_diff = nullptr);

}  // namespace gguf
#pragma GCC visibility pop
