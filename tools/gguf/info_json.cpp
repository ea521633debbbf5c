// The JSON of `gguf info --json`, also served by `gguf serve`'s /api/info.
#include "info_json.h"

#include <map>

#include "gguf/keys.h"
#include "gguf/model.h"
#include "chat_json.h"

namespace gguf::cli {
namespace {

// llama_ftype name of a general.file_type value, "unknown" for an id it does not know.
std::string ftype_name(uint64_t id) {
  auto name = id <= UINT32_MAX ? file_type_name(static_cast<uint32_t>(id)) : std::string_view{};
  return name.empty() ? std::string("unknown") : std::string(name);
}

}  // namespace

nlohmann::ordered_json info_json(const gguf::file& f, const std::string& name, const split_facts& split) {
  // a shard of a split model: its own size; the model is the whole set
  const uint64_t file_size = split.count ? split.own_size : f.size();
  uint64_t n_params = 0, data_bytes = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> by_type;  // name -> (tensors, bytes)
  for (const auto& t : f.tensors()) {
    n_params += t.nelements();
    data_bytes += t.nbytes;
    auto& slot = by_type[std::string(ggml_type_name(t.type))];
    slot.first += 1;
    slot.second += t.nbytes;
  }
  auto str_or_null = [&](std::string_view key) -> nlohmann::ordered_json {
    auto v = f.get_string(key);
    return v ? nlohmann::ordered_json(std::string(*v)) : nlohmann::ordered_json(nullptr);
  };
  auto uint_or_null = [&](std::string_view key) -> nlohmann::ordered_json {
    auto v = f.get_uint(key);
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  };
  uint64_t n_vocab = 0;
  if (auto toks = f.get_array("tokenizer.ggml.tokens")) n_vocab = toks->size();

  nlohmann::ordered_json j;
  j["file"] = name;
  j["file_size"] = file_size;
  if (split.count) j["split"] = {{"count", split.count}, {"no", split.no}, {"total_size", split.total_size}};
  j["version"] = f.version();
  j["byte_order"] = std::string(byte_order_name(f.byte_order()));
  j["alignment"] = f.alignment();
  j["kv_count"] = f.kv_count();
  j["tensor_count"] = f.tensor_count();
  j["metadata_size"] = f.metadata_end();
  j["data_offset"] = f.data_offset();
  j["data_size"] = data_bytes;
  j["architecture"] = str_or_null("general.architecture");
  j["name"] = str_or_null("general.name");
  j["file_type"] = uint_or_null("general.file_type");
  j["file_type_name"] = j["file_type"].is_null()
                            ? nlohmann::ordered_json(nullptr)
                            : nlohmann::ordered_json(ftype_name(j["file_type"].get<uint64_t>()));
  j["quantization_version"] = uint_or_null("general.quantization_version");
  j["parameters"] = n_params;
  j["tokenizer_model"] = str_or_null("tokenizer.ggml.model");
  j["n_vocab"] = n_vocab;
  if (auto m = gguf::model::load(f)) {
    j["hparams"] = nlohmann::ordered_json::parse(hparams_json(m->hparams()));
  } else {
    j["hparams"] = nullptr;
    j["hparams_error"] = m.error().message();
  }
  // the chat template: what llama.cpp detects it as and its capabilities (gguf/chat.h)
  if (auto src = f.get_string("tokenizer.chat_template")) {
    nlohmann::ordered_json ct;
    ct["bytes"] = src->size();
    auto t = chat_template::from_source(std::string(*src));
    if (t) {
      auto d = t->detected_builtin();
      ct["detected_builtin"] = d.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(std::string(d));
      ct["caps"] = chat_caps_json(t->caps());
    } else {
      ct["error"] = t.error().detail;
    }
    j["chat_template"] = std::move(ct);
  } else {
    j["chat_template"] = nullptr;
  }
  auto types = nlohmann::ordered_json::object();
  for (const auto& [name, cb] : by_type) types[name] = {{"tensors", cb.first}, {"bytes", cb.second}};
  j["tensor_types"] = types;

  return j;
}

}  // namespace gguf::cli
