// The JSON API of `gguf serve` (docs/serve.md): every answer is built from the files
// opened at start-up; no request parameter is ever used as a path.
#include "serve_api.h"

#include <charconv>

#include "diff_json.h"
#include "estimate_json.h"
#include "gguf/diff.h"
#include "gguf/estimate.h"
#include "gguf/model.h"
#include "gguf/naming.h"
#include "gguf/schema.h"
#include "info_json.h"

namespace gguf::cli {
namespace {

using json = nlohmann::ordered_json;
using params_t = std::multimap<std::string, std::string>;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

api_answer fail(int status, const std::string& what) { return {status, dump(json{{"error", what}})}; }

std::optional<std::string> param(const params_t& p, const std::string& name) {
  auto it = p.find(name);
  if (it == p.end()) return std::nullopt;
  return it->second;
}

// An unsigned number parameter: nullopt when absent, error text when malformed or above max.
struct number_param {
  std::optional<uint64_t> value;
  std::string error;
};
number_param number(const params_t& p, const std::string& name, uint64_t max) {
  auto s = param(p, name);
  if (!s) return {};
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
  if (ec != std::errc() || end != s->data() + s->size()) return {std::nullopt, name + " is not a number"};
  if (v > max) return {std::nullopt, name + " is above " + std::to_string(max)};
  return {v, {}};
}

// True when `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 2) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    static constexpr uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

std::string hex_bytes(std::string_view s) {
  static const char digits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (!out.empty()) out += ' ';
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

json tensor_row(const tensor_info& t) {
  json ne = json::array();
  for (uint32_t i = 0; i < t.n_dims; ++i) ne.push_back(t.ne[i]);
  const uint64_t n = t.nelements();
  return {{"name", std::string(t.name)}, {"type", std::string(ggml_type_name(t.type))}, {"ne", ne},
          {"offset", t.offset},         {"nbytes", t.nbytes},
          {"bpw", n ? 8.0 * static_cast<double>(t.nbytes) / static_cast<double>(n) : 0.0}};
}

// A metadata row: scalars whole; strings up to 512 bytes (then "truncated"); arrays their
// first 16 elements.
json kv_row(const kv_ref& kv) {
  json j = {{"key", std::string(kv.key)}, {"type", std::string(value_type_name(kv.value.type()))}};
  if (kv.value.type() == value_type::array) {
    auto a = *kv.value.array();
    j["element_type"] = std::string(value_type_name(a.element_type()));
    j["length"] = a.size();
    j["value"] = value_json(kv.value, 16);
  } else if (kv.value.type() == value_type::string) {
    auto s = *kv.value.get<std::string_view>();
    j["length"] = s.size();
    j["value"] = std::string(s.substr(0, 512));
    if (s.size() > 512) j["truncated"] = true;
  } else {
    j["value"] = value_json(kv.value);
  }
  return j;
}

json naming(const served_file& sf) {
  json j;
  const auto check = parse_name(sf.name);
  j["conforms"] = check.conforms;
  if (check.parts) {
    const auto& p = *check.parts;
    j["parts"] = {{"base_name", p.base_name}, {"size_label", p.size_label}, {"fine_tune", p.fine_tune},
                  {"version", p.version},     {"encoding", p.encoding},     {"type", p.type}};
  }
  j["problems"] = check.problems;
  j["suggested"] = suggest_name(sf.f);
  return j;
}

json diagnostics(const served_file& sf) {
  const auto r = validate(sf.f);
  json list = json::array();
  for (const auto& d : r.diagnostics) {
    list.push_back({{"level", std::string(severity_name(d.level))},
                    {"rule", d.rule},
                    {"subject", d.subject},
                    {"offset", d.offset == no_offset ? json(nullptr) : json(d.offset)},
                    {"message", d.message}});
  }
  return {{"errors", r.count(severity::error)},
          {"warnings", r.count(severity::warning)},
          {"notes", r.count(severity::note)},
          {"diagnostics", std::move(list)}};
}

}  // namespace

serve_api::serve_api(std::vector<std::unique_ptr<served_file>> files, bool diff, serve_limits limits)
    : files_(std::move(files)), diff_(diff), limits_(limits) {}

const result<gguf::vocab>& serve_api::vocab_of(served_file& sf) {
  std::lock_guard heavy(heavy_);
  std::call_once(sf.vocab_once, [&] { sf.vocab = load_vocab(sf.f); });
  return *sf.vocab;
}

std::optional<api_answer> serve_api::refuse_input(served_file& sf, const std::optional<std::string>& input,
                                                  const std::string& name, const char* note, const char* verb) {
  if (!input) return fail(400, name + " is required" + note);
  if (input->size() > limits_.max_tokenize_bytes)
    return fail(413, name + " of " + std::to_string(input->size()) + " bytes " + verb + " above the limit of " +
                         std::to_string(limits_.max_tokenize_bytes));
  const auto& vr = vocab_of(sf);
  if (!vr) return fail(422, vr.error().message());
  return std::nullopt;
}

api_answer serve_api::get(const std::string& path, const params_t& params) {
  if (path == "/api/files") {
    json list = json::array();
    for (size_t i = 0; i < files_.size(); ++i) {
      const auto& sf = *files_[i];
      list.push_back({{"id", i}, {"name", sf.name}, {"size", sf.split.count ? sf.split.total_size : sf.f.size()},
                      {"remote", sf.f.is_remote()}, {"shards", sf.split.count}});
    }
    return {200, dump(json{{"files", list}, {"diff", diff_ && files_.size() >= 2}, {"chat", true}})};
  }
  if (path == "/api/diff") {
    if (!diff_ || files_.size() < 2) return fail(404, "the server was not started with --diff and two files");
    auto a = number(params, "a", files_.size() - 1), b = number(params, "b", files_.size() - 1);
    if (!a.error.empty() || !b.error.empty()) return fail(400, a.error.empty() ? b.error : a.error);
    const auto& fa = *files_[a.value.value_or(0)];
    const auto& fb = *files_[b.value.value_or(1)];
    const bool values = param(params, "values") == "1";
    if (values && (fa.f.is_remote() || fb.f.is_remote()))
      return fail(400, "values are compared for local files only (it reads every tensor)");
    const std::string key = "diff " + std::to_string(a.value.value_or(0)) + " " +
                            std::to_string(b.value.value_or(1)) + (values ? " values" : "");
    {
      std::lock_guard lock(cache_mutex_);
      if (auto it = cache_.find(key); it != cache_.end()) return {200, it->second};
    }
    std::lock_guard heavy(heavy_);
    diff_options o;
    o.values = values;
    o.threads = 2;
    auto d = gguf::diff(fa.f, fb.f, o);
    if (!d) return fail(500, d.error().message());
    json j = diff_json(*d);
    j["a"] = fa.name;
    j["b"] = fb.name;
    std::string body = dump(j);
    std::lock_guard lock(cache_mutex_);
    cache_[key] = body;
    return {200, body};
  }

  // every other endpoint is about one file: ?file=N (default 0)
  auto id = number(params, "file", files_.empty() ? 0 : files_.size() - 1);
  if (!id.error.empty()) return fail(400, id.error);
  if (files_.empty()) return fail(404, "no file");
  auto& sf = *files_[id.value.value_or(0)];
  const std::string cache_key = path + " " + std::to_string(id.value.value_or(0));
  auto cached = [&](auto make) -> api_answer {
    {
      std::lock_guard lock(cache_mutex_);
      if (auto it = cache_.find(cache_key); it != cache_.end()) return {200, it->second};
    }
    std::string body = dump(make());
    std::lock_guard lock(cache_mutex_);
    cache_[cache_key] = body;
    return {200, body};
  };

  if (path == "/api/info") {
    return cached([&] {
      json j = info_json(sf.f, sf.name, sf.split);
      const uint64_t n = j["parameters"], bytes = j["data_size"];
      j["bits_per_weight"] = n ? 8.0 * static_cast<double>(bytes) / static_cast<double>(n) : 0.0;
      j["naming"] = naming(sf);
      return j;
    });
  }
  if (path == "/api/kv") {
    return cached([&] {
      json rows = json::array();
      for (const auto& kv : sf.f.kvs()) rows.push_back(kv_row(kv));
      return json{{"kv", std::move(rows)}};
    });
  }
  if (path == "/api/tensors") {
    return cached([&] {
      json rows = json::array();
      for (const auto& t : sf.f.tensors()) rows.push_back(tensor_row(t));
      return json{{"tensors", std::move(rows)}};
    });
  }
  if (path == "/api/validate") {
    {
      std::lock_guard lock(cache_mutex_);
      if (auto it = cache_.find(cache_key); it != cache_.end()) return {200, it->second};
    }
    std::lock_guard heavy(heavy_);
    return cached([&] { return diagnostics(sf); });
  }
  if (path == "/api/value") {
    auto key = param(params, "key");
    if (!key) return fail(400, "key is required");
    auto v = sf.f.find(*key);
    if (!v) return fail(404, "no key " + *key);
    json j = {{"key", *key}, {"type", std::string(value_type_name(v->type()))}};
    if (v->type() == value_type::string) {
      auto s = *v->get<std::string_view>();
      if (s.size() > limits_.max_value_bytes) return fail(413, "the string is above the limit of this server");
      j["value"] = std::string(s);
    } else if (v->type() == value_type::array) {
      auto a = *v->array();
      auto off = number(params, "offset", a.size());
      auto cnt = number(params, "count", limits_.max_array_slice);
      if (!off.error.empty() || !cnt.error.empty()) return fail(400, off.error.empty() ? cnt.error : off.error);
      const uint64_t first = off.value.value_or(0);
      const uint64_t n = std::min(cnt.value.value_or(limits_.max_array_slice), a.size() - first);
      json values = json::array();
      for (uint64_t i = first; i < first + n; ++i) {
        auto e = a.at(i);
        if (!e) return fail(500, e.error().message());
        values.push_back(value_json(*e, 64));
      }
      j["element_type"] = std::string(value_type_name(a.element_type()));
      j["length"] = a.size();
      j["offset"] = first;
      j["value"] = std::move(values);
    } else {
      j["value"] = value_json(*v);
    }
    return {200, dump(j)};
  }
  if (path == "/api/tokenize") {
    auto text = param(params, "text");
    if (auto refused = refuse_input(sf, text, "text", "", "is")) return *refused;
    const auto& v = *vocab_of(sf);
    auto ids = v.tokenize(*text, param(params, "add_special") != "0", param(params, "parse_special") != "0");
    if (!ids) return fail(422, ids.error().message());
    // pieces: token_to_piece, or null where it is not whole UTF-8 (a byte token) and then
    // its bytes in "bytes" (e.g. "E2 96"); texts: the vocabulary's token texts
    json pieces = json::array(), bytes_of = json::array(), texts = json::array();
    for (int32_t t : *ids) {
      std::string p = v.token_to_piece(t);
      if (valid_utf8(p)) {
        pieces.push_back(std::move(p));
        bytes_of.push_back(nullptr);
      } else {
        pieces.push_back(nullptr);
        bytes_of.push_back(hex_bytes(p));
      }
      texts.push_back(std::string(v.token_text(t)));
    }
    return {200, dump(json{{"ids", *ids}, {"pieces", std::move(pieces)}, {"bytes", std::move(bytes_of)},
                           {"texts", std::move(texts)}})};
  }
  if (path == "/api/chat") {
    // the prompt of a conversation (gguf chat), and its token count (as llama-server
    // tokenizes a prompt: add_special and parse_special on)
    auto messages = param(params, "messages");
    if (auto refused = refuse_input(sf, messages, "messages", " (a JSON array)", "are")) return *refused;
    const auto& vr = vocab_of(sf);
    {
      std::lock_guard heavy(heavy_);
      std::call_once(sf.chat_once, [&] { sf.chat = chat_template::load(sf.f, *vr); });
    }
    if (!*sf.chat) return fail(422, sf.chat->error().message());
    const auto& t = **sf.chat;
    chat_request req;
    req.messages_json = *messages;
    req.add_generation_prompt = param(params, "add_generation_prompt") != "0";
    const auto mode = param(params, "mode") == "server" ? chat_mode::server : chat_mode::transformers;
    result<std::string> prompt = [&] {
      std::lock_guard heavy(heavy_);  // an untrusted template runs under the engine's limits, one at a time
      return t.apply(req, mode);
    }();
    if (!prompt) return fail(422, prompt.error().message());
    auto ids = vr->tokenize(*prompt, true, true);
    if (!ids) return fail(422, ids.error().message());
    const bool from_file = sf.f.find("tokenizer.chat_template").has_value();
    return {200, dump(json{{"prompt", *prompt},
                           {"n_tokens", ids->size()},
                           {"template", from_file                   ? std::string("tokenizer.chat_template")
                                         : t.builtin_name().empty() ? std::string("tokenizer.chat_template.tool_use")
                                                                    : "built-in " + std::string(t.builtin_name())}})};
  }
  if (path == "/api/estimate") {
    auto m = gguf::model::load(sf.f);
    if (!m) return fail(422, m.error().message());
    estimate_params p;
    p.swa_full = false;  // as `gguf estimate` without --swa-full
    auto ctx = number(params, "ctx", limits_.max_ctx);
    auto par = number(params, "parallel", limits_.max_parallel);
    auto gpu = number(params, "gpu_layers", 100000);
    for (const auto* n : {&ctx, &par, &gpu})
      if (!n->error.empty()) return fail(400, n->error);
    p.n_ctx = static_cast<uint32_t>(ctx.value.value_or(0));
    if (par.value) p.n_seq_max = static_cast<uint32_t>(*par.value);
    if (gpu.value) p.n_gpu_layers = static_cast<int32_t>(*gpu.value);
    if (auto tk = param(params, "type_k")) {
      auto t = cache_type(*tk);
      if (!t) return fail(400, "unsupported cache type " + *tk);
      p.type_k = *t;
    }
    if (auto tv = param(params, "type_v")) {
      auto t = cache_type(*tv);
      if (!t) return fail(400, "unsupported cache type " + *tv);
      p.type_v = *t;
    }
    if (auto fa = param(params, "flash_attn")) {
      auto t = flash_attn_from_name(*fa);
      if (!t) return fail(400, "flash_attn takes on, off or auto");
      p.flash_attn = *t;
    }
    return {200, dump(estimate_json(gguf::estimate(*m, p), p))};
  }
  return fail(404, "no such API path");
}

}  // namespace gguf::cli
