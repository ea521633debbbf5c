// validate(): format notes and the key rules (spec "Standardized key-value pairs"),
// per-architecture required keys, general.file_type consistency. Tokenizer and tensor
// rules live in validate_tokenizer.cpp and validate_tensors.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include "gguf/keys.h"
#include "gguf/schema.h"
#include "schema/checker.h"

namespace gguf {

std::string_view severity_name(severity s) noexcept {
  switch (s) {
    case severity::note: return "note";
    case severity::warning: return "warning";
    case severity::error: return "error";
  }
  return "error";
}

size_t report::count(severity s) const noexcept {
  return static_cast<size_t>(
      std::count_if(diagnostics.begin(), diagnostics.end(), [s](const diagnostic& d) { return d.level == s; }));
}

bool report::passes(bool strict) const noexcept {
  return !has_errors() && (!strict || count(severity::warning) == 0);
}

namespace {

using detail::checker;

std::string type_text(const value_ref& v) {
  if (v.type() != value_type::array) return std::string(value_type_name(v.type()));
  auto a = v.array();
  if (!a) return "array";
  return "array[" + std::string(value_type_name(a->element_type())) + "]";
}

bool is_lower_snake(std::string_view seg, bool allow_dash) {
  if (seg.empty()) return false;
  for (char ch : seg) {
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || (allow_dash && ch == '-');
    if (!ok) return false;
  }
  return true;
}

// Spec: "It must be a hierarchical key, where each segment is lower_snake_case and
// separated by a '.'". llama.cpp's own architecture names contain '-' ("command-r"), so
// the segment equal to general.architecture may.
void check_key_name(checker& c, const kv_ref& kv) {
  std::string_view key = kv.key;
  size_t start = 0;
  bool first = true;
  while (true) {
    size_t dot = key.find('.', start);
    std::string_view seg = key.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    bool allow_dash = first && !c.arch.empty() && seg == c.arch;
    if (!is_lower_snake(seg, allow_dash)) {
      c.add(severity::warning, "key.name", key, kv.offset,
            seg.empty() ? "empty segment: keys are lower_snake_case segments separated by '.'"
                        : "segment '" + std::string(seg) + "' is not lower_snake_case ([a-z0-9_])");
      return;
    }
    if (dot == std::string_view::npos) break;
    start = dot + 1;
    first = false;
  }
  if (key.find('.') == std::string_view::npos)
    c.add(severity::warning, "key.namespace", key, kv.offset,
          "key has no namespace: community keys should be prefixed with the community name (e.g. 'rustformers.')");
}

void check_key_type(checker& c, const kv_ref& kv) {
  const key_info* info = find_standard_key(kv.key, c.arch);
  if (!info) return;
  value_type t = kv.value.type();
  bool ok = (info->types & type_bit(t)) != 0;
  if (ok && t == value_type::array && info->element_types != 0) {
    auto a = kv.value.array();
    ok = a && a->nesting() == 1 && (info->element_types & type_bit(a->element_type())) != 0;
  }
  if (!ok)
    c.add(severity::error, "key.type", kv.key, kv.value.offset(),
          "value type " + type_text(kv.value) + ", expected " + std::string(info->spec_type) +
              ((info->types & count_types) == count_types ? " (uint32 accepted)" : ""));
  // The model loader refuses a non-finite hparam (llama.cpp computes with it: a nan
  // epsilon or rope base gives nan activations).
  if (ok && (t == value_type::float32 || t == value_type::float64)) {
    double d = *kv.value.to_double();
    if (!std::isfinite(d))
      c.add(severity::error, "key.not_finite", kv.key, kv.value.offset(),
            "value is " + std::string(std::isnan(d) ? "nan" : d > 0 ? "inf" : "-inf") +
                " (the model loader refuses a value that is not finite)");
  }
}

bool any_quantized(const file& f) {
  for (const auto& t : f.tensors()) {
    const auto* tr = ggml_type_traits(t.type);
    if (tr && tr->quantized) return true;
  }
  return false;
}

void check_general(checker& c) {
  const file& f = c.f;
  const kv_ref* arch = c.kv("general.architecture");
  if (!arch) {
    c.add(severity::error, "key.required", "general.architecture", no_offset,
          "general.architecture is missing (spec: required; llama.cpp cannot load the file without it)");
  } else if (auto s = arch->value.get<std::string_view>(); s) {
    bool plain = is_lower_snake(*s, false) && s->find('_') == std::string_view::npos;
    if (!plain && !find_architecture(*s))
      c.add(severity::warning, "key.architecture", "general.architecture", arch->value.offset(),
            "architecture '" + std::string(*s) + "' has characters outside [a-z0-9] (spec: lowercase ASCII, [a-z0-9]+)");
  }

  if (const kv_ref* al = c.kv("general.alignment")) {
    if (auto v = al->value.get<uint32_t>(); v && *v % 8 != 0)
      c.add(severity::warning, "key.alignment", "general.alignment", al->value.offset(),
            "alignment " + std::to_string(*v) + " is not a multiple of 8 (spec: must be a multiple of 8)");
  }

  if (any_quantized(f) && !c.kv("general.quantization_version"))
    c.add(severity::warning, "key.quantization_version", "general.quantization_version", no_offset,
          "general.quantization_version is missing although tensors are quantized (spec: must be present then)");

  const kv_ref* ft = c.kv("general.file_type");
  if (!ft) return;
  auto id = ft->value.get<uint32_t>();
  if (!id) return;  // key.type reports it
  const file_type_info* info = find_file_type(*id);
  if (!info) {
    c.add(severity::warning, "key.file_type", "general.file_type", ft->value.offset(),
          "file type " + std::to_string(*id) + " is not a llama_ftype value (unknown or retired)");
    return;
  }
  if (f.tensor_count() == 0) return;
  bool has_main = false, all_f32 = true;
  std::string seen;
  for (const auto& t : f.tensors()) {
    if (t.type != ggml_type::f32) all_f32 = false;
    if (t.n_dims >= 2 && t.type == info->main_type) has_main = true;
  }
  bool consistent = info->id == 0 ? all_f32 : has_main;
  if (!consistent)
    c.add(severity::warning, "key.file_type", "general.file_type", ft->value.offset(),
          "file type " + std::string(info->name) + " but " +
              (info->id == 0 ? std::string("not every tensor is f32")
                             : "no 2-d tensor has type " + std::string(ggml_type_name(info->main_type))));
}

void check_architecture(checker& c) {
  if (c.arch.empty()) return;
  const arch_info* a = find_architecture(c.arch);
  if (!a || !a->validated) {
    c.add(severity::note, "arch.unknown", "general.architecture", no_offset,
          "architecture '" + std::string(c.arch) +
              "' has no row in the key table: its required keys and tensor names are not checked");
    return;
  }
  bool vocab_only = c.f.tensor_count() == 0;
  std::string prefix = std::string(c.arch) + ".";
  for (std::string_view suffix : a->required) {
    std::string key = prefix + std::string(suffix);
    if (c.kv(key)) continue;
    if (vocab_only)
      c.add(severity::warning, "arch.required", key, no_offset,
            key + " is missing: llama.cpp needs it to load the model (this file has no tensors; it loads "
                  "as vocabulary only)");
    else
      c.add(severity::error, "arch.required", key, no_offset,
            key + " is missing: llama.cpp's loader requires it for architecture " + std::string(c.arch));
  }
  for (std::string_view suffix : a->spec_required) {
    std::string key = prefix + std::string(suffix);
    if (!c.kv(key))
      c.add(severity::warning, "arch.spec", key, no_offset,
            key + " is missing: the spec's section for " + std::string(c.arch) +
                " lists it as required (llama.cpp does not read it as required)");
  }
}

void check_format(checker& c) {
  const file& f = c.f;
  if (f.version() == 1)
    c.add(severity::note, "format.version", {}, 4,
          "GGUF v1: 32-bit counts and lengths (llama.cpp no longer reads v1; re-save as v3)");
  else if (f.version() == 2)
    c.add(severity::note, "format.version", {}, 4, "GGUF v2: 64-bit counts, the v3 layout without big-endian support");
  if (f.byte_order() == byte_order::big)
    c.add(severity::note, "format.byte_order", {}, 4,
          "big-endian file: every number is stored big-endian (llama.cpp refuses it on little-endian hosts)");
  if (f.tensor_count() == 0)
    c.add(severity::note, "format.vocab_only", {}, no_offset,
          "no tensors: a vocabulary/metadata-only file (naming convention Type 'vocab')");
}

}  // namespace

report validate(const file& f) { return validate(f, validate_options{}); }

report validate(const file& f, const validate_options& options) {
  report r;
  r.path = f.path();
  r.version = f.version();
  r.byte_order = f.byte_order();
  checker c{f, r.diagnostics, {}, &options};
  if (auto a = f.find("general.architecture"))
    if (auto s = a->get<std::string_view>()) c.arch = *s;

  check_format(c);
  const bool later_shard = detail::check_split(c);
  for (const auto& kv : f.kvs()) {
    check_key_name(c, kv);
    check_key_type(c, kv);
    std::string now = renamed_key_for(kv.key, c.arch);
    if (!now.empty())
      c.add(severity::warning, "key.renamed", kv.key, kv.offset,
            "draft key name of the 2023 GGUF proposal; the current name is " + now);
  }
  if (!later_shard) {
    check_general(c);
    check_architecture(c);
    detail::check_tokenizer(c);
  }
  detail::check_utf8(c);
  detail::check_tensors(c);
  return r;
}

std::vector<diagnostic> new_errors(const report& before, const report& after) {
  std::set<std::pair<std::string, std::string>> had;
  for (const auto& d : before.diagnostics)
    if (d.level == severity::error) had.emplace(d.rule, d.subject);
  std::vector<diagnostic> out;
  for (const auto& d : after.diagnostics)
    if (d.level == severity::error && !had.count({d.rule, d.subject})) out.push_back(d);
  return out;
}

report structure_report(std::string path, const gguf::error& e) {
  report r;
  r.path = std::move(path);
  diagnostic d;
  d.level = severity::error;
  d.rule = "structure." + std::string(error_name(e.code));
  d.subject = e.subject;
  d.subject_is_tensor = e.subject_is_tensor;
  d.offset = e.offset;
  d.message = e.detail.empty() ? std::string(error_message(e.code)) : e.detail;
  d.code = e.code;
  r.diagnostics.push_back(std::move(d));
  return r;
}

result<report> validate_file(const std::filesystem::path& path, const reader_limits& limits) {
  auto f = file::open(path, limits);
  if (!f) {
    if (f.error().code == errc::io_error) return f.error();
    return structure_report(path.string(), f.error());
  }
  return validate(*f);
}

report validate_bytes(std::span<const std::byte> bytes, std::string name, const reader_limits& limits) {
  auto f = file::from_bytes(bytes, limits, name);
  if (!f) return structure_report(std::move(name), f.error());
  return validate(*f);
}

}  // namespace gguf
