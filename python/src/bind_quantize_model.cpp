// ggufkit._core.quantize: a whole model quantized as llama-quantize does (gguf/quantize.h),
// written atomically; the options are llama-quantize's, by their long names.
#include "common.h"
#include "docstrings.h"
#include "gguf/model_files.h"
#include "gguf/quantize.h"

namespace ggufkit {
namespace {

gguf::ggml_type type_named(const std::string& option, const std::string& name) {
  auto t = gguf::ggml_type_from_name(name);
  if (!t) {
    throw gguf::exception(gguf::make_error(gguf::errc::invalid_argument, gguf::no_offset,
                                           option + ": unknown ggml type '" + name + "'"));
  }
  return *t;
}

py::dict quantize(const std::string& in, const std::string& out, const std::string& type, int nthread,
                  bool allow_requantize, bool leave_output_tensor, bool pure, const std::optional<std::string>& imatrix,
                  const std::vector<std::string>& include_weights, const std::vector<std::string>& exclude_weights,
                  const std::optional<std::string>& output_tensor_type, const std::optional<std::string>& token_embedding_type,
                  const std::vector<std::pair<std::string, std::string>>& tensor_types, const std::vector<int32_t>& prune_layers,
                  bool keep_split, const std::vector<std::string>& override_kv, bool dry_run, bool force) {
  auto ft = gguf::parse_ftype(type);
  if (!ft) {
    throw gguf::exception(gguf::make_error(gguf::errc::invalid_argument, gguf::no_offset,
                                           "unknown file type '" + type + "' (one of llama-quantize's: Q4_K_M, Q8_0, ...)"));
  }
  if (!include_weights.empty() && !exclude_weights.empty()) {
    throw gguf::exception(gguf::make_error(gguf::errc::invalid_argument, gguf::no_offset,
                                           "include_weights and exclude_weights cannot be used together"));
  }
  gguf::quantize_options o;
  o.ftype = ft->ftype;
  o.only_copy = ft->name == "COPY";
  o.nthread = nthread;
  o.allow_requantize = allow_requantize;
  o.quantize_output_tensor = !leave_output_tensor;
  o.pure = pure;
  o.keep_split = keep_split;
  o.force = force;
  if (output_tensor_type) o.output_tensor_type = type_named("output_tensor_type", *output_tensor_type);
  if (token_embedding_type) o.token_embedding_type = type_named("token_embedding_type", *token_embedding_type);
  for (const auto& [pattern, t] : tensor_types) {
    std::string p = pattern;
    for (auto& c : p) c = char(std::tolower(uint8_t(c)));
    o.tensor_types.emplace_back(p, type_named("tensor_types", t));
  }
  o.prune_layers = prune_layers;
  std::sort(o.prune_layers.begin(), o.prune_layers.end());
  o.prune_layers.erase(std::unique(o.prune_layers.begin(), o.prune_layers.end()), o.prune_layers.end());
  for (const auto& kv : override_kv) o.kv_overrides.push_back(take(gguf::parse_kv_override(kv)));
  gguf::importance_matrix im;
  if (imatrix) {
    im = take(gguf::load_importance_matrix(*imatrix, include_weights, exclude_weights));
    if (!im.entries.empty()) {
      o.imatrix = &im;
      o.imatrix_file = *imatrix;
    }
  }
  gguf::quantize_plan plan;
  {
    py::gil_scoped_release nogil;
    auto f = gguf::file::open_any(in);
    if (!f) throw gguf::exception(f.error());
    auto m = gguf::model_files::from_file(*f);
    if (!m) throw gguf::exception(m.error());
    auto p = dry_run ? gguf::plan_quantize(*m, {}, o) : gguf::quantize_model(*m, out, o);
    if (!p) throw gguf::exception(p.error());
    plan = std::move(*p);
  }
  py::list tensors;
  for (const auto& t : plan.tensors) {
    py::dict d;
    d["name"] = t.name;
    d["type_in"] = std::string(gguf::ggml_type_name(t.type_in));
    d["type"] = std::string(gguf::ggml_type_name(t.type_out));
    d["size_in"] = t.size_in;
    d["size"] = t.size_out;
    d["fallback"] = t.fallback;
    tensors.append(d);
  }
  py::dict r;
  r["file_type"] = plan.ftype;
  r["tensors"] = tensors;
  r["size_in"] = plan.size_in;
  r["size"] = plan.size_out;
  r["file_sizes"] = plan.file_sizes;
  std::vector<std::string> paths;
  for (const auto& p : plan.paths) paths.push_back(p.string());
  r["paths"] = paths;
  r["n_fallback"] = plan.n_fallback;
  r["needs_imatrix"] = plan.needs_imatrix;
  return r;
}

}  // namespace

void register_quantize_model(py::module_& m) {
  m.def("quantize", &quantize, py::arg("inp"), py::arg("out"), py::arg("type"), py::arg("nthread"),
        py::arg("allow_requantize"), py::arg("leave_output_tensor"), py::arg("pure"), py::arg("imatrix"),
        py::arg("include_weights"), py::arg("exclude_weights"), py::arg("output_tensor_type"),
        py::arg("token_embedding_type"), py::arg("tensor_types"), py::arg("prune_layers"), py::arg("keep_split"),
        py::arg("override_kv"), py::arg("dry_run"), py::arg("force"), doc::quantize);
}

}  // namespace ggufkit
