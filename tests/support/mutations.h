// Mutations of a real GGUF file, described as JSON, applied with gguf::writer: the
// cases of the loader differential (issue 29, item 4). The recording driver
// (scripts/llama_loader_diff.cpp, linked against llama.cpp) and the replaying test
// (tests/cli/test_validate_loader.cpp) build each mutated file with this same code.
//
// A case: {"name", "base" (a file under the test data folder), "ops": [...]}, ops in order:
//   {"op": "remove", "key": K}
//   {"op": "set", "key": K, "type": T, "value": V}  T a GGUF value type name; V a JSON
//        scalar, or an array for "array:ELEM" (e.g. "array:int32", "array:string")
//   {"op": "truncate", "key": K, "length": N}       keep the first N elements of an array
//   {"op": "set_element", "key": K, "index": I, "value": V}   one element of a string or
//        int32/float32 array
//   {"op": "drop_tensor", "name": T}
//   {"op": "reshape", "name": T, "ne": [...]}        zero-filled data of the new shape
//   {"op": "retype", "name": T, "type": ggml type name}   zero-filled data
#pragma once

#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gguf/file.h"
#include "gguf/format.h"
#include "gguf/writer.h"

namespace gguf::test {

namespace mutation_detail {

inline result<value> json_value(const std::string& type, const nlohmann::json& v) {
  auto bad = [&](const std::string& why) { return make_error(errc::invalid_argument, no_offset, why); };
  if (type.rfind("array:", 0) == 0) {
    const std::string elem = type.substr(6);
    if (!v.is_array()) return bad("array value expected");
    if (elem == "string") {
      std::vector<std::string> s;
      for (const auto& e : v) s.push_back(e.get<std::string>());
      return value::string_array(std::span<const std::string>(s));
    }
    auto t = value_type_from_name(elem);
    if (!t) return bad("unknown element type " + elem);
    std::string payload;
    for (const auto& e : v) {
      auto x = value::parse(*t, e.is_string() ? e.get<std::string>() : e.dump());
      if (!x) return x.error();
      payload += x->payload();
    }
    return value::raw_array(*t, v.size(), std::move(payload));
  }
  auto t = value_type_from_name(type);
  if (!t) return bad("unknown type " + type);
  if (*t == value_type::string) return value::string(v.get<std::string>());
  if (*t == value_type::boolean) return value::boolean(v.get<bool>());
  return value::parse(*t, v.is_string() ? v.get<std::string>() : v.dump());
}

// The elements of an array value as values (one level), for truncate / set_element.
inline std::vector<value> elements(const value_ref& v) {
  std::vector<value> out;
  auto a = v.array();
  if (!a) return out;
  for (uint64_t i = 0; i < a->size(); ++i) out.push_back(value::copy_of(*a->at(i)));
  return out;
}

inline value rebuild(value_type elem, const std::vector<value>& elems) {
  if (elem == value_type::string) {
    std::vector<std::string> s;
    for (const auto& e : elems) s.push_back(e.payload().substr(8));  // u64 length, then bytes
    return value::string_array(std::span<const std::string>(s));
  }
  std::string payload;
  for (const auto& e : elems) payload += e.payload();
  return value::raw_array(elem, elems.size(), std::move(payload));
}

}  // namespace mutation_detail

/// The bytes of `base` with `ops` applied (see the header comment). Errors:
/// invalid_argument for an op that does not apply (absent key or tensor, bad value).
inline result<std::vector<std::byte>> apply_mutations(const file& base, const nlohmann::json& ops) {
  using namespace mutation_detail;
  auto bad = [&](const std::string& why) { return make_error(errc::invalid_argument, no_offset, why); };
  auto w = writer::from_file(base);
  // tensors are rebuilt in order when an op touches them
  struct tensor_plan {
    std::string name;
    ggml_type type;
    std::vector<uint64_t> ne;
    std::span<const std::byte> data;
    bool zero = false, drop = false;
  };
  std::vector<tensor_plan> plan;
  for (const auto& t : base.tensors())
    plan.push_back({std::string(t.name), t.type, std::vector<uint64_t>(t.ne.begin(), t.ne.begin() + t.n_dims), t.data});
  bool tensors_changed = false;
  auto find_tensor = [&](const std::string& n) -> tensor_plan* {
    for (auto& p : plan)
      if (p.name == n) return &p;
    return nullptr;
  };
  for (const auto& op : ops) {
    const std::string kind = op.at("op");
    if (kind == "remove") {
      if (!w.remove(op.at("key").get<std::string>())) return bad("no key " + op.at("key").get<std::string>());
    } else if (kind == "set") {
      auto v = json_value(op.at("type"), op.at("value"));
      if (!v) return v.error();
      if (auto r = w.set(op.at("key").get<std::string>(), std::move(*v)); !r) return r.error();
    } else if (kind == "truncate" || kind == "set_element") {
      const std::string key = op.at("key");
      auto old = base.find(key);
      if (!old || old->type() != value_type::array) return bad("no array " + key);
      const value_type elem = old->array()->element_type();
      auto elems = elements(*old);
      if (kind == "truncate") {
        elems.resize(std::min<size_t>(elems.size(), op.at("length").get<size_t>()));
      } else {
        const size_t i = op.at("index");
        if (i >= elems.size()) return bad("index past the array");
        auto v = json_value(std::string(value_type_name(elem)), op.at("value"));
        if (!v) return v.error();
        elems[i] = std::move(*v);
      }
      if (auto r = w.set(key, rebuild(elem, elems)); !r) return r.error();
    } else if (kind == "drop_tensor" || kind == "reshape" || kind == "retype") {
      tensor_plan* p = find_tensor(op.at("name"));
      if (!p) return bad("no tensor " + op.at("name").get<std::string>());
      tensors_changed = true;
      if (kind == "drop_tensor") p->drop = true;
      if (kind == "reshape") p->ne = op.at("ne").get<std::vector<uint64_t>>(), p->zero = true;
      if (kind == "retype") {
        auto t = ggml_type_from_name(op.at("type").get<std::string>());
        if (!t) return bad("unknown ggml type");
        p->type = *t, p->zero = true;
      }
    } else {
      return bad("unknown op " + kind);
    }
  }
  if (!tensors_changed) return w.to_bytes();
  writer out;
  // the metadata as mutated, then the tensors as planned
  auto mutated = file::from_buffer(w.to_bytes());
  if (!mutated) return mutated.error();
  for (const auto& kv : mutated->kvs())
    if (auto r = out.set(kv.key, value::copy_of(kv.value)); !r) return r.error();
  std::vector<std::vector<std::byte>> owned;
  for (const auto& p : plan) {
    if (p.drop) continue;
    if (p.zero) {
      auto n = ggml_nbytes(p.type, p.ne.data(), static_cast<uint32_t>(p.ne.size()));
      if (!n) return n.error();
      if (auto r = out.add_tensor(p.name, p.type, p.ne, std::vector<std::byte>(*n)); !r) return r.error();
    } else if (auto r = out.add_tensor(p.name, p.type, p.ne, p.data); !r) {
      return r.error();
    }
  }
  return out.to_bytes();
}

}  // namespace gguf::test
