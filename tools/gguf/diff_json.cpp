#include "diff_json.h"

#include <cmath>

#include "commands.h"

namespace gguf::cli {
namespace {

using json = nlohmann::ordered_json;

json number_or_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

json side_value(const value_ref& v, std::optional<uint64_t> index) {
  if (v.type() != value_type::array) return value_json(v);
  auto a = *v.array();
  json j = {{"type", "array"},
            {"element_type", std::string(value_type_name(a.element_type()))},
            {"length", a.size()}};
  if (index && *index < a.size()) j["at_index"] = value_json(*a.at(*index), 8);
  return j;
}

json tensor_side(const tensor_info& t) {
  json ne = json::array();
  for (uint32_t i = 0; i < t.n_dims; ++i) ne.push_back(t.ne[i]);
  return {{"type", std::string(ggml_type_name(t.type))}, {"ne", ne}, {"offset", t.offset}, {"nbytes", t.nbytes}};
}

}  // namespace

json diff_json(const diff_result& d) {
  json kv = json::array();
  for (const auto& k : d.kv) {
    json e = {{"key", k.key}, {"status", std::string(diff_status_name(k.status))}};
    e["a"] = k.a ? side_value(*k.a, k.first_diff_index) : json(nullptr);
    e["b"] = k.b ? side_value(*k.b, k.first_diff_index) : json(nullptr);
    if (k.a && k.b && k.a->type() != k.b->type()) {
      e["a_type"] = std::string(value_type_name(k.a->type()));
      e["b_type"] = std::string(value_type_name(k.b->type()));
    }
    if (k.first_diff_index) e["index"] = *k.first_diff_index;
    kv.push_back(std::move(e));
  }
  json tensors = json::array();
  for (const auto& t : d.tensors) {
    json e = {{"name", t.name}, {"status", std::string(diff_status_name(t.status))}};
    e["a"] = t.a ? tensor_side(*t.a) : json(nullptr);
    e["b"] = t.b ? tensor_side(*t.b) : json(nullptr);
    if (t.status == diff_status::changed) {
      e["type_changed"] = t.type_changed;
      e["shape_changed"] = t.shape_changed;
      e["bytes_equal"] = t.data_equal;
    }
    e["nmse"] = t.nmse ? number_or_null(*t.nmse) : json(nullptr);
    e["max_abs"] = t.max_abs ? number_or_null(*t.max_abs) : json(nullptr);
    tensors.push_back(std::move(e));
  }
  return {{"same", d.same()}, {"kv", std::move(kv)}, {"tensors", std::move(tensors)}};
}

std::string value_line(const value_ref& v, size_t max_chars) {
  if (v.type() == value_type::array) {
    auto a = *v.array();
    return "array[" + std::string(value_type_name(a.element_type())) + "] of " + std::to_string(a.size());
  }
  if (v.type() == value_type::string) {
    auto s = std::string(*v.get<std::string_view>());
    if (s.size() <= max_chars) return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
    return json(s.substr(0, max_chars)).dump(-1, ' ', false, json::error_handler_t::replace) + "... (" +
           std::to_string(s.size()) + " bytes)";
  }
  return value_json(v).dump();
}

std::string tensor_line(const tensor_info& t) {
  std::string s = std::string(ggml_type_name(t.type)) + " [";
  for (uint32_t i = 0; i < t.n_dims; ++i) s += (i ? ", " : "") + std::to_string(t.ne[i]);
  return s + "]";
}

}  // namespace gguf::cli
