// The special tokens of a loaded vocabulary: llama.cpp's load-time attribute fix-ups (special
// tokens detected by their text, the end-of-generation list, per-model lstrip/rstrip) and
// its special-token cache with the partition's candidate index (see vocab_impl.h).
#include <algorithm>
#include <cctype>
#include <cstring>

#include "vocab/vocab_impl.h"

namespace gguf {

// Special tokens found by their text, the control/unused/EOG fix-ups (llama.cpp's
// "auto-detect special tokens by text" block). Tokens are visited in id order.
void vocab::impl::fix_up_attrs() {
  using namespace vocab_detail;
  impl& v = *this;
  auto& d = v.d;
  const auto force_control = [&](int32_t id) {
    auto& a = d.attrs[id];
    if (!(a & attr_control)) {
      v.warnings.push_back("control-looking token " + std::to_string(id) + " '" + std::string(d.tokens[id].text) +
                           "' was not control-type; its type is overridden");
      a = uint16_t(a | attr_control);
    }
  };
  using list = std::initializer_list<std::string_view>;
  struct detect {
    int32_t& id;
    list texts;
  };
  const detect detects[] = {
      {d.eot, {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>",
               "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"}},
      {d.eom, {"<|eom_id|>"}},
      {v.fim_pre, {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>", "<|code_prefix|>", "<|prefix|>"}},
      {v.fim_suf, {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>", "<|code_suffix|>", "<|suffix|>"}},
      {v.fim_mid, {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>", "<|code_middle|>", "<|middle|>"}},
      {v.fim_pad, {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}},
      {v.fim_rep, {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}},
      {v.fim_sep, {"<|file_sep|>"}},
  };
  const list eog_texts = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
                          "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
                          "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
                          "<｜end▁of▁sentence｜>", "[e~["};
  const int32_t n = int32_t(d.tokens.size());
  // Every text is looked up in the token map (texts are unique); the matches are then
  // applied in id order, as llama.cpp's scan over the ids does.
  const list user_texts = {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"};
  // The ids of all these texts at once, in the order above: on a cache hit from the
  // compiled cache (some 80 lookups at random pages of the mapped token map otherwise).
  std::vector<std::string_view> texts;
  for (const auto& det : detects) texts.insert(texts.end(), det.texts.begin(), det.texts.end());
  texts.insert(texts.end(), eog_texts.begin(), eog_texts.end());
  texts.insert(texts.end(), user_texts.begin(), user_texts.end());
  load_or_build(
      d.cache, "special.text_ids",
      [&](table_reader& r) {
        std::span<const int32_t> ids;
        if (!r.get(ids) || ids.size() != texts.size()) return false;
        for (int32_t id : ids)
          if (id < -1 || id >= n) return false;
        fixed_text_ids.assign(ids.begin(), ids.end());
        return true;
      },
      [&] {
        fixed_text_ids.clear();
        for (std::string_view t : texts) fixed_text_ids.push_back(d.find(t));
      },
      [&](table_writer& w) { w.put(std::span<const int32_t>(fixed_text_ids)); });
  size_t next_text = 0;  // the ids are taken in the order of `texts`
  const auto find = [&] { return fixed_text_ids[next_text++]; };
  std::vector<std::pair<int32_t, size_t>> found;  // {id, index of its detect}
  for (size_t k = 0; k < std::size(detects); ++k) {
    const bool wanted = detects[k].id == no_token;
    for (size_t j = 0; j < detects[k].texts.size(); ++j)
      if (const int32_t id = find(); wanted && id >= 0) found.push_back({id, k});
  }
  std::sort(found.begin(), found.end());
  for (const auto& [id, k] : found) {
    if (detects[k].id != no_token) continue;  // a lower id of the same list came first
    detects[k].id = id;
    force_control(id);
  }
  for (int32_t id = 0; id < n; ++id) {
    if ((d.attrs[id] & attr_control) && d.tokens[id].text.find("unused") != std::string_view::npos)
      d.attrs[id] = uint16_t(d.attrs[id] | attr_unused);
  }
  std::vector<int32_t> eog;
  for (int32_t id : {v.fim_pad, v.fim_rep, v.fim_sep})
    if (id != no_token) eog.push_back(id);
  std::vector<int32_t> eog_found;
  for (size_t j = 0; j < eog_texts.size(); ++j)
    if (const int32_t id = find(); id >= 0) eog_found.push_back(id);
  std::sort(eog_found.begin(), eog_found.end());
  for (int32_t id : eog_found) {
    eog.push_back(id);
    force_control(id);
  }
  for (size_t j = 0; j < user_texts.size(); ++j)
    if (const int32_t id = find(); id >= 0) d.attrs[id] = attr_user_defined;
  for (int32_t id : {d.eos, d.eot, d.eom}) {
    if (id != no_token && std::find(eog.begin(), eog.end(), id) == eog.end()) {
      eog.push_back(id);
      v.warnings.push_back("special token " + std::to_string(id) + " is not in the end-of-generation list; added");
    }
  }
  std::sort(eog.begin(), eog.end());
  eog.erase(std::unique(eog.begin(), eog.end()), eog.end());
  const auto text_of = [&](int32_t id) { return (id >= 0 && id < n) ? d.tokens[id].text : std::string_view{}; };
  const auto has_text = [&](std::string_view s) {
    return std::any_of(eog.begin(), eog.end(), [&](int32_t id) { return text_of(id) == s; });
  };
  // o200k_harmony / solar-open: "<|end|>" is not end-of-generation there.
  if ((has_text("<|return|>") && has_text("<|call|>") && has_text("<|end|>")) ||
      (has_text("<|calls|>") && has_text("<|flush|>") && has_text("<|end|>"))) {
    for (auto it = eog.begin(); it != eog.end(); ++it)
      if (text_of(*it) == "<|end|>") {
        d.attrs[*it] = attr_user_defined;
        eog.erase(it);
        break;
      }
  }
  // gemma4 / paddleocr: "</s>" is not end-of-generation when "<|tool_response>" is.
  if (has_text("<|tool_response>") && has_text("</s>")) {
    for (auto it = eog.begin(); it != eog.end(); ++it)
      if (text_of(*it) == "</s>") {
        d.attrs[*it] = attr_normal;
        eog.erase(it);
        break;
      }
  }
  v.eog = std::move(eog);
}

namespace {

std::string lower_ascii(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A string key's value; "" when it is absent or not a string.
std::string string_or_empty(const gguf::file& f, std::string_view key) {
  const auto v = f.find(key);
  if (!v) return {};
  const auto s = v->get<std::string_view>();
  return s ? std::string(*s) : std::string();
}

}  // namespace

// Per-model lstrip/rstrip attributes (llama.cpp sets them by name, not from the file).
void vocab::impl::set_strip_attrs() {
  using namespace vocab_detail;
  impl& v = *this;
  auto& d = v.d;
  std::string name = lower_ascii(string_or_empty(file, "general.name"));
  const std::string pre = string_or_empty(file, "tokenizer.ggml.pre");
  const std::string arch = string_or_empty(file, "general.architecture");
  const auto contains_any = [](const std::string& s, std::initializer_list<std::string_view> subs) {
    return std::any_of(subs.begin(), subs.end(), [&](std::string_view x) { return s.find(x) != std::string::npos; });
  };
  const auto set = [&](std::string_view text, uint32_t attr, bool on) {
    const int32_t id = d.find(text);
    if (id < 0) return;
    auto& a = d.attrs[id];
    a = uint16_t(on ? (a | attr) : (a & ~attr));
  };
  if (contains_any(pre, {"jina-v2-de", "jina-v2-es", "jina-v2-code"}) || contains_any(arch, {"nomic-bert-moe", "jina-bert-v3"})) {
    if (d.find("<mask>") < 0) v.warnings.push_back("mask token is missing in vocab");
    set("<mask>", attr_lstrip, true);
  } else if (contains_any(name, {"phi-3", "phi3"})) {
    for (int32_t id : v.special_cache) d.attrs[id] = uint16_t(d.attrs[id] | attr_rstrip);
    set("</s>", attr_rstrip, true);
    for (std::string_view t : {"<unk>", "<s>", "<|endoftext|>"}) set(t, attr_rstrip, false);
  } else if (contains_any(name, {"modern-bert"})) {
    set("[MASK]", attr_lstrip, true);
  }
}

void vocab::impl::build_special_index() {
  using namespace vocab_detail;
  special_cache.clear();
  const int32_t n = int32_t(d.tokens.size());
  for (int32_t id = 0; id < n; ++id)
    if (d.attrs[id] & (attr_control | attr_user_defined | attr_unknown)) special_cache.push_back(id);
  std::sort(special_cache.begin(), special_cache.end(),
            [&](int32_t a, int32_t b) { return d.tokens[a].text.size() > d.tokens[b].text.size(); });
  plain_special = std::any_of(special_cache.begin(), special_cache.end(),
                              [&](int32_t id) { return !(d.attrs[id] & (attr_control | attr_unknown)); });
  for (auto& s : single_byte) s.clear();
  pair_bits.assign(1024, 0);
  const auto key = [&](std::string_view t) { return (uint32_t(uint8_t(t[0])) << 8) | uint8_t(t[1]); };
  std::vector<std::pair<uint32_t, uint32_t>> keyed;  // {key, index}
  for (uint32_t i = 0; i < special_cache.size(); ++i) {
    const std::string_view t = d.tokens[special_cache[i]].text;
    if (t.size() == 1) single_byte[uint8_t(t[0])].push_back(i);
    else if (t.size() >= 2) keyed.push_back({key(t), i});
  }
  std::sort(keyed.begin(), keyed.end());
  bucket_keys.clear();
  bucket_items.clear();
  for (const auto& [k, i] : keyed) {
    bucket_keys.push_back(uint16_t(k));
    bucket_items.push_back(i);
    pair_bits[k >> 6] |= uint64_t{1} << (k & 63);
  }
}

}  // namespace gguf
