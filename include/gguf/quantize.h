// gguf/quantize.h — quantizing a whole model, as llama.cpp's llama-quantize v0.5.0 does.
//
//   gguf::quantize_options o;
//   o.ftype = gguf::parse_ftype("Q4_K_M")->ftype;
//   o.nthread = 4;
//   auto in = gguf::model_files::open("model-f16.gguf").value();
//   if (auto r = gguf::quantize_model(in, "model-Q4_K_M.gguf", o); !r) report(r.error());
//
// The output is byte-identical to llama-quantize's (src/llama-quant.cpp,
// tools/quantize/quantize.cpp of llama.cpp v0.5.0) for the same input, file type,
// options and importance matrix: the same tensors quantized (llama_tensor_get_type: the
// _S/_M/_L mixes, layer-position, GQA and MoE rules, the fallbacks of rows that do not
// divide into blocks), the same metadata in the same order, the tensors in the loader's
// order (by layer, then name), 32-byte alignment. The rows themselves come from
// gguf::quantize_rows (gguf/quant.h), which matches ggml_quantize_chunk bit for bit, so
// the result does not depend on the thread count. docs/quantize.md has the details.
//
// Writing goes through gguf::safe_output (gguf/output.h): a temporary file beside OUT,
// fsynced and renamed; a killed run leaves nothing (SIGINT/SIGTERM) or an unlocked temp
// file the next run names (SIGKILL). Memory stays bounded: each thread quantizes a few
// rows at a time (at most `window_bytes` of input per step), no tensor is held whole.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"
#include "gguf/format.h"
#include "gguf/model_files.h"
#include "gguf/output.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// One file type llama-quantize offers (its QUANT_OPTIONS table, in its order): the name
/// typed on the command line ("Q4_K_M"), the llama_ftype number written to
/// general.file_type (LLAMA_FTYPE_MOSTLY_Q4_K_M = 15) and llama-quantize's description.
/// "COPY" (ftype 0) copies every tensor unchanged.
struct ftype_info {
  std::string_view name;
  uint32_t ftype = 0;
  std::string_view description;
};

/// The table, in llama-quantize's order (Q4_K, Q3_K and Q5_K are aliases of the _M mixes).
std::span<const ftype_info> quantize_ftypes() noexcept;

/// A file type by name (case-insensitive) or by number, as llama-quantize's
/// try_parse_ftype (a number gives the first row with that ftype; 0 is F32, not COPY).
std::optional<ftype_info> parse_ftype(std::string_view text) noexcept;

/// The type most tensors get for `ftype` (llama_ftype_get_default_type); nullopt for a
/// number that is not a file type llama.cpp writes.
std::optional<ggml_type> ftype_default_type(uint32_t ftype) noexcept;

/// An importance matrix: per tensor name, the mean of the squared activations of each
/// input column (ne[0] values, times n_expert for a 3-D expert tensor), as
/// llama-quantize's load_imatrix normalizes them.
struct importance_matrix {
  std::map<std::string, std::vector<float>> entries;
  std::vector<std::string> datasets;  ///< imatrix.datasets (or the legacy trailer's name)
  int32_t chunk_count = 0;            ///< imatrix.chunk_count (legacy: the trailer's count)
  bool legacy = false;                ///< read from the legacy .dat format
};

/// Reads an imatrix file: GGUF (llama-imatrix's `<name>.in_sum2` / `<name>.counts`
/// tensors, imatrix.datasets/chunk_count/chunk_size keys; each sum divided by its
/// count, 1 where the count is 0) or the legacy binary .dat (int32 count, then per entry
/// int32 name length, name, int32 ncall, int32 nval, nval floats; optional trailer int32
/// chunks, int32 length, dataset name; each value divided by ncall when ncall > 0), as
/// common_imatrix_load + load_imatrix. `include` / `exclude` keep / drop the entries
/// whose name contains one of the strings (--include-weights / --exclude-weights).
/// Errors: io_error (unreadable), invalid_argument naming the file and the reason (no
/// entries, a GGUF imatrix without its metadata keys, sums without counts, non-F32
/// tensors, a truncated .dat).
result<importance_matrix> load_importance_matrix(const std::filesystem::path& path,
                                                 std::span<const std::string> include = {},
                                                 std::span<const std::string> exclude = {});

/// A metadata override of --override-kv KEY=TYPE:VALUE (TYPE int, float, bool or str), as
/// llama.cpp's string_parse_kv_override reads it. llama-quantize writes an int as a
/// uint32 (its absolute value), a float as float32.
struct kv_override {
  std::string key;
  enum class kind { int_, float_, bool_, str } tag = kind::int_;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
};
/// Parses KEY=TYPE:VALUE. Errors: invalid_argument (the reason, as llama.cpp's message).
result<kv_override> parse_kv_override(std::string_view text);

struct quantize_options {
  uint32_t ftype = 7;                   ///< llama_ftype (7 = Q8_0)
  bool only_copy = false;               ///< COPY: no tensor changes type
  int nthread = 0;                      ///< 0: the number of cores; results never depend on it
  std::optional<ggml_type> output_tensor_type;    ///< --output-tensor-type
  std::optional<ggml_type> token_embedding_type;  ///< --token-embedding-type
  bool allow_requantize = false;        ///< --allow-requantize
  bool quantize_output_tensor = true;   ///< false: --leave-output-tensor
  bool pure = false;                    ///< --pure: no mixes, every tensor the default type
  bool keep_split = false;              ///< --keep-split: one output shard per input shard
  /// --tensor-type PATTERN=TYPE, in order: the first ECMAScript regex found in the name
  /// wins (patterns are lower-cased, as llama-quantize does). A pattern that is not a
  /// regex makes the plan fail with errc::invalid_argument naming it.
  std::vector<std::pair<std::string, ggml_type>> tensor_types;
  std::vector<int32_t> prune_layers;    ///< --prune-layers (sorted, unique)
  std::vector<kv_override> kv_overrides;  ///< --override-kv, in order
  const importance_matrix* imatrix = nullptr;  ///< --imatrix (after include/exclude)
  std::string imatrix_file;             ///< the path as given: quantize.imatrix.file
  bool force = false;                   ///< replace an existing OUT
  uint64_t window_bytes = 0;            ///< input bytes per step per thread (0: 4 MiB)
  progress_fn progress;                 ///< bytes of input done of the total
};

/// One tensor of the plan.
struct quantize_tensor_plan {
  std::string name;              ///< output name (after --prune-layers renumbering)
  std::string source_name;       ///< name in the input
  std::array<uint64_t, 4> ne{1, 1, 1, 1};
  uint32_t n_dims = 0;
  ggml_type type_in = ggml_type::f32;
  ggml_type type_out = ggml_type::f32;
  uint64_t size_in = 0;           ///< bytes in the input
  uint64_t size_out = 0;          ///< bytes in the output (without padding)
  bool quantized = false;         ///< rows are (re)quantized (type_in != type_out)
  bool requires_imatrix = false;  ///< llama-quantize refuses it without an imatrix
  bool fallback = false;          ///< the chosen type did not fit ne[0]: a fallback type
  uint32_t shard = 0;             ///< output shard (--keep-split), else 0
  const tensor_info* info = nullptr;  ///< the input tensor
  const float* imatrix = nullptr;     ///< its importance matrix entry (ne[0] * ne[2] values), if any
};

/// The whole plan: what quantize_model writes.
struct quantize_plan {
  std::vector<quantize_tensor_plan> tensors;  ///< in output order
  uint32_t ftype = 0;                         ///< written to general.file_type
  uint64_t size_in = 0, size_out = 0;         ///< tensor bytes
  uint64_t n_elements = 0;                    ///< weights in the input
  std::vector<uint64_t> file_sizes;           ///< bytes of each output file
  std::vector<std::filesystem::path> paths;   ///< each output file (empty names for a dry run)
  uint32_t n_fallback = 0;                    ///< tensors that needed a fallback type
  uint32_t n_input_tensors = 0;               ///< tensors in the input
  bool needs_imatrix = false;                 ///< some tensor requires one and none is given
  /// Temp files of killed writers that writing removed (safe_output::stale_temp_files).
  std::vector<std::filesystem::path> stale_temp_files;
};

/// Computes the plan (tensor types and sizes) without writing. `out` names the output
/// (with keep_split: its prefix); it may be empty for a dry run.
/// Errors: invalid_model (unknown architecture or missing hparams, a tensor outside its
/// layers), invalid_argument (invalid ftype; an imatrix entry of the wrong size; an
/// imatrix with non-finite values), unsupported (requantizing without
/// allow_requantize; a type needing an imatrix without one: "this quantization requires
/// an imatrix", naming the tensor and type; a type that cannot be quantized to).
result<quantize_plan> plan_quantize(const model_files& in, const std::filesystem::path& out,
                                    const quantize_options& opts);

/// Plans and writes OUT (see the file comment). Refuses (io_error, before anything is
/// written) an existing OUT without opts.force and an OUT that is one of the inputs.
result<quantize_plan> quantize_model(const model_files& in, const std::filesystem::path& out,
                                     const quantize_options& opts);

}  // namespace gguf
#pragma GCC visibility pop
