// Loading a vocabulary from the tokenizer.ggml.* keys: llama.cpp's
// llama_vocab::impl::load, step by step (model type and defaults, pre-tokenizer and its
// flags, tokens, special ids, add_* flags; the load-time attribute fix-ups and the special
// token cache are in special_tokens.cpp). Every deviation from llama.cpp is an error value where llama.cpp would
// throw, or a warning where it would log.
#include <algorithm>
#include <bit>
#include <array>
#include <cstring>

#include "vocab/pre_tokenizer/pre_tokenizer.h"
#include "vocab/runtime/prefault.h"
#include "vocab/vocab_impl.h"

namespace gguf {
namespace {

using vocab_detail::attr_byte;
using vocab_detail::attr_control;
using vocab_detail::attr_lstrip;
using vocab_detail::attr_normal;
using vocab_detail::attr_rstrip;
using vocab_detail::attr_undefined;
using vocab_detail::attr_unknown;
using vocab_detail::attr_unused;
using vocab_detail::attr_user_defined;
using vocab_detail::no_token;
using vocab_detail::find_pre_name;
using vocab_detail::pre_name;
using vocab_detail::token_type;
using vocab_detail::pre_keep_spaces;
using vocab_detail::pre_ignore_merges;
using vocab_detail::pre_add_bos;
using vocab_detail::pre_add_sep;
using vocab_detail::pre_escape_ws;
using vocab_detail::pre_no_bos;
using vocab_detail::pre_merges_optional;
using vocab_data_t = vocab_detail::vocab_data;

gguf::error vocab_error(errc code, std::string what, std::string_view key = {}, uint64_t offset = no_offset) {
  return make_error(code, offset, std::move(what), std::string(key));
}

// Optional typed key readers: absent -> nullopt-like `false`; wrong type -> error.
struct keys {
  const file& f;
  result<bool> get_string(std::string_view key, std::string& out) const {
    auto v = f.find(key);
    if (!v) return false;
    auto s = v->get<std::string_view>();
    if (!s) return vocab_error(errc::type_mismatch, "expected a string", key, v->offset());
    out.assign(*s);
    return true;
  }
  result<bool> get_bool(std::string_view key, bool& out) const {
    auto v = f.find(key);
    if (!v) return false;
    auto b = v->get<bool>();
    if (!b) return vocab_error(errc::type_mismatch, "expected a bool", key, v->offset());
    out = *b;
    return true;
  }
  result<std::optional<array_ref>> get_array(std::string_view key) const {
    auto v = f.find(key);
    if (!v) return std::optional<array_ref>{};
    auto a = v->array();
    if (!a) return vocab_error(errc::type_mismatch, "expected an array", key, v->offset());
    return std::optional<array_ref>{*a};
  }
};

constexpr uint32_t attr_of_type(int32_t t) {
  switch (t) {
    case 1: return attr_normal;
    case 2: return attr_unknown;
    case 3: return attr_control;
    case 4: return attr_user_defined;
    case 5: return attr_unused;
    case 6: return attr_byte;
    default: return attr_undefined;
  }
}

#define TRY(expr)                              \
  do {                                         \
    auto r_ = (expr);                          \
    if (!r_) return std::move(r_).error();     \
  } while (0)

// tokenizer.ggml.model -> its row; the row's defaults (special ids and flags).
result<void> read_model(vocab::impl& v, const keys& k, std::span<const tokenizer_model_info> models,
                        std::span<const vocab_detail::model_row> rows, std::string& pre_key, bool& has_pre) {
  auto& d = v.d;
  bool has_model = false;
  {
    auto r = k.get_string("tokenizer.ggml.model", v.model_name);
    if (!r) return std::move(r).error();
    has_model = *r;
  }
  {
    auto r = k.get_string("tokenizer.ggml.pre", pre_key);
    if (!r) return std::move(r).error();
    has_pre = *r;
  }
  const std::string& m = v.model_name;
  const std::string_view name = has_model ? std::string_view(m) : std::string_view("none");
  const tokenizer_model_info* info = nullptr;
  for (const auto& row : models)
    for (std::string_view n : row.names)
      if (!info && !n.empty() && n == name) info = &row;
  if (!info || !info->supported)
    return vocab_error(errc::unsupported, "unsupported tokenizer '" + m + "'", "tokenizer.ggml.model");
  v.info = info;
  d.type = info->type;
  d.bos = info->bos, d.eos = info->eos, d.unk = info->unk, d.sep = info->sep, d.pad = info->pad, d.mask = info->mask;
  d.add_bos = info->add_bos, d.add_eos = info->add_eos, d.add_sep = info->add_sep;
  d.add_space_prefix = info->add_space_prefix, d.clean_spaces = info->clean_spaces;
  d.escape_whitespaces = info->escape_whitespaces;
  if (!info->forced_pre.empty()) {
    pre_key = info->forced_pre;
    has_pre = true;
  }
  for (const auto& row : rows)
    if (row.type == info->type) v.row = &row;
  if (!v.row && !info->no_vocab)
    return vocab_error(errc::unsupported, "unsupported tokenizer '" + m + "'", "tokenizer.ggml.model");
  return {};
}

// tokenizer.ggml.pre: for a model that reads it, the pre-tokenizer row and the flags it
// sets; then the keys that override the defaults.
result<void> read_pre(vocab::impl& v, const std::string& pre_key, bool has_pre) {
  auto& d = v.d;
  if (v.info->reads_pre || !v.info->forced_pre.empty()) {
    const pre_name* row = nullptr;
    if (!has_pre || pre_key.empty()) {
      v.warnings.push_back("missing pre-tokenizer type (tokenizer.ggml.pre), using 'default'; generation quality will be degraded");
      row = find_pre_name("default");
    } else {
      row = find_pre_name(pre_key);
      if (!row)
        return vocab_error(errc::unsupported, "unknown pre-tokenizer type '" + pre_key + "'", "tokenizer.ggml.pre");
    }
    v.pre = row->name;
    d.pre = row->name;
    d.preset = row->preset;
    v.pre_type = row->preset->id;
    v.pre_flags = row->flags;
    if (row->flags & pre_keep_spaces) d.clean_spaces = false;
    if (row->flags & pre_ignore_merges) d.ignore_merges = true;
    if (row->flags & pre_add_bos) d.add_bos = true;
    if (row->flags & pre_add_sep) d.add_sep = true;
    if (row->flags & pre_escape_ws) d.escape_whitespaces = true;
    if (row->flags & pre_no_bos) d.bos = no_token;
    if (row->preset->keep_case) d.lowercase = false;
  } else if (has_pre) {
    v.pre = pre_key;
    d.pre = pre_key;
  }
  const keys k{v.file};
  auto ra = k.get_bool("tokenizer.ggml.add_space_prefix", d.add_space_prefix);
  if (!ra) return std::move(ra).error();
  auto rw = k.get_bool("tokenizer.ggml.remove_extra_whitespaces", d.remove_extra_whitespaces);
  if (!rw) return std::move(rw).error();
  return {};
}

result<void> read_merges(vocab::impl& v, const keys& k) {
  auto& d = v.d;
  auto ma = k.get_array("tokenizer.ggml.merges");
  if (!ma) return std::move(ma).error();
  if (!*ma) {
    if (v.pre_flags & pre_merges_optional) return {};
    return vocab_error(errc::invalid_vocab, "cannot find tokenizer merges", "tokenizer.ggml.merges");
  }
  const array_ref a = **ma;
  if (a.element_type() != value_type::string)
    return vocab_error(errc::type_mismatch, "expected an array of strings", "tokenizer.ggml.merges", a.offset());
  if (a.size() > uint64_t(INT32_MAX))
    return vocab_error(errc::limit_exceeded, "too many merges", "tokenizer.ggml.merges", a.offset());
  d.merges = a;  // the merge table reads the rules in place (bpe.cpp)
  return {};
}

// The compiled cache's "tokens.text" table: the token count, then where each token's text
// starts, in bytes from the array's first element (u32), and one more entry where a next
// one would start: text i is [starts[i], starts[i + 1] - w) with w = starts[0], the width
// of the length before each string (4 or 8). Empty when the places are not kept (an empty
// token, whose text the loader makes up; texts outside the file's bytes or past 4 GiB):
// such a vocabulary walks its array on every load.
//
// After the walk of a miss: the places of d.tokens' texts into d.text_starts (empty when
// they cannot be kept), for the writer.
void keep_text_starts(vocab_data_t& d, uint64_t array_at, size_t n_empty) {
  d.text_starts.clear();
  const size_t n = d.tokens.size();
  const auto* file = reinterpret_cast<const char*>(d.file_bytes.data());
  if (n_empty || n == 0 || array_at >= d.file_bytes.size()) return;
  const char* base = file + array_at;
  const uint64_t room = d.file_bytes.size() - array_at;
  const auto at = [&](size_t i) {  // (a text before base: a huge value, never `next`)
    return uint64_t(reinterpret_cast<uintptr_t>(d.tokens[i].text.data()) - reinterpret_cast<uintptr_t>(base));
  };
  const uint64_t w = at(0);
  if (w != 4 && w != 8) return;
  uint64_t next = w;  // where text i must start: right after the length before it
  std::vector<uint32_t> starts(n + 1);
  for (size_t i = 0; i < n; ++i) {
    const std::string_view t = d.tokens[i].text;
    if (at(i) != next || t.size() > room || at(i) > room - t.size()) return;
    starts[i] = uint32_t(next);
    next += t.size() + w;
    if (next > UINT32_MAX) return;
  }
  starts[n] = uint32_t(next);
  d.text_starts = std::move(starts);
}

// The scores and types of a token array, in place in the file when its byte order is
// the host's, else decoded (read_tokens).
struct token_columns {
  const std::byte* scores = nullptr;  // float32 or int32 elements, host order
  bool scores_int = false;
  const std::byte* types = nullptr;  // int32 elements, host order
  bool in_file = false;              // both point into the file (or are null)
};

// vocab_data::facts from the score and type columns (8 bytes a token, not the 24 of the
// token table).
vocab_data_t::token_facts facts_of_columns(size_t n, const token_columns& cols) {
  vocab_data_t::token_facts facts;
  for (size_t i = 0; i < n; ++i) {
    const auto t = vocab_detail::token_table::from_columns({}, i, cols.scores, cols.scores_int, cols.types);
    if (t.type == token_type::normal) facts.min_normal_score = std::min(facts.min_normal_score, t.score);
    else if (t.type == token_type::user_defined) facts.user_defined.push_back(int32_t(i));
  }
  return facts;
}

// On a hit: the token table placed over the file (token_table.h) from the texts' places
// (tokens.text), the attributes from the types. False when the table does not fit this
// file (the load then starts over without the cache); true with `placed` false when it
// holds no places, or the columns are not in the file (walk the array instead).
bool place_texts(vocab_detail::table_reader& r, vocab_data_t& d, uint64_t array_at, size_t n,
                 const token_columns& cols, bool& placed) {
  uint64_t count = 0;
  std::span<const uint32_t> starts;
  if (!r.get_value(count) || !r.get(starts) || count != n) return false;
  placed = false;
  if (starts.empty() || !cols.in_file) return true;
  if (starts.size() != n + 1 || array_at >= d.file_bytes.size()) return false;
  const uint64_t w = starts[0];
  const uint64_t room = d.file_bytes.size() - array_at;
  if ((w != 4 && w != 8) || starts[n] < w || starts[n] - w > room) return false;
  // every text non-empty, each after the one before: all inside the file's bytes
  uint64_t max_len = 0;
  bool ordered = true;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t at = starts[i], next = starts[i + 1];
    ordered &= next >= at + w + 1;
    max_len = std::max(max_len, next - w - at);
  }
  if (!ordered) return false;
  d.attrs.resize(n);
  if (cols.types) {
    for (size_t i = 0; i < n; ++i) {
      int32_t y;
      std::memcpy(&y, cols.types + 4 * i, 4);
      d.attrs[i] = uint16_t(attr_of_type(y));
    }
  } else {
    std::fill(d.attrs.begin(), d.attrs.end(), uint16_t(attr_normal));
  }
  d.max_token_len = uint32_t(max_len);
  d.tokens.place(n, reinterpret_cast<const char*>(d.file_bytes.data()) + array_at, starts.data(), uint32_t(w),
                 cols.scores, cols.scores_int, cols.types);
  placed = true;
  return true;
}

result<void> read_tokens(vocab::impl& v, const keys& k) {
  auto& d = v.d;
  auto ta = k.get_array("tokenizer.ggml.tokens");
  if (!ta) return std::move(ta).error();
  if (!*ta) return vocab_error(errc::invalid_vocab, "cannot find tokenizer vocab", "tokenizer.ggml.tokens");
  const array_ref toks = **ta;
  if (toks.element_type() != value_type::string)
    return vocab_error(errc::type_mismatch, "expected an array of strings", "tokenizer.ggml.tokens", toks.offset());
  if (toks.size() > uint64_t(INT32_MAX))
    return vocab_error(errc::limit_exceeded, "too many tokens", "tokenizer.ggml.tokens", toks.offset());
  const size_t n = size_t(toks.size());

  // Scores and types are read in place when the file's byte order is the host's (the
  // common case), else decoded into a vector first.
  const bool host_order = (v.file.byte_order() == byte_order::little) == (std::endian::native == std::endian::little);
  std::vector<float> scores_buf;
  std::vector<int32_t> types_buf;
  const std::byte* scores_raw = nullptr;  // float32 or int32 elements, host order
  bool scores_int = false;
  {
    auto sa = k.get_array("tokenizer.ggml.scores");
    if (!sa) return std::move(sa).error();
    if (*sa) {
      const array_ref a = **sa;
      if (a.size() < n)
        return vocab_error(errc::invalid_vocab, "fewer scores than tokens", "tokenizer.ggml.scores", a.offset());
      if (a.element_type() != value_type::float32 && a.element_type() != value_type::int32)
        return vocab_error(errc::type_mismatch, "expected float32 or int32 scores", "tokenizer.ggml.scores", a.offset());
      scores_int = a.element_type() == value_type::int32;
      if (host_order) {
        scores_raw = a.raw().data();
      } else if (scores_int) {
        auto s = a.to_vector<int32_t>();
        if (!s) return std::move(s).error();
        scores_buf.assign(s->begin(), s->end());
        scores_int = false;
        scores_raw = reinterpret_cast<const std::byte*>(scores_buf.data());
      } else {
        auto s = a.to_vector<float>();
        if (!s) return std::move(s).error();
        scores_buf = std::move(*s);
        scores_raw = reinterpret_cast<const std::byte*>(scores_buf.data());
      }
    }
  }
  const std::byte* types_raw = nullptr;  // int32 elements, host order
  {
    auto ya = k.get_array("tokenizer.ggml.token_type");
    if (!ya) return std::move(ya).error();
    if (*ya) {
      const array_ref a = **ya;
      if (a.element_type() != value_type::int32)
        return vocab_error(errc::type_mismatch, "expected int32 token types", "tokenizer.ggml.token_type", a.offset());
      if (a.size() < n)
        return vocab_error(errc::invalid_vocab, "fewer token types than tokens", "tokenizer.ggml.token_type", a.offset());
      if (host_order) {
        types_raw = a.raw().data();
      } else {
        auto t = a.to_vector<int32_t>();
        if (!t) return std::move(t).error();
        types_buf = std::move(*t);
        types_raw = reinterpret_cast<const std::byte*>(types_buf.data());
      }
    }
  }

  // One pass: text, score, type and attributes of each token.
  size_t n_empty = 0;
  uint32_t max_len = 0;
  vocab_detail::table_vector<vocab_detail::token_data>* built_tokens = nullptr;  // (set by begin)
  const auto begin = [&] {  // (again after a cached table that did not fit)
    auto& built = d.tokens.built();
    built_tokens = &built;
    built.clear();
    vocab_detail::prefaulted_reserve(built, n);  // 24 bytes a token: one call instead of a fault per page
    d.attrs.assign(n, uint16_t(attr_normal));
    n_empty = 0, max_len = 0;
  };
  const auto add = [&](uint64_t i, std::string_view s) {
    const auto t = vocab_detail::token_table::from_columns(s, i, scores_raw, scores_int, types_raw);
    if (s.empty()) ++n_empty;
    max_len = std::max<uint32_t>(max_len, uint32_t(s.size()));
    if (types_raw) d.attrs[i] = uint16_t(attr_of_type(int32_t(t.type)));
    built_tokens->push_back(t);  // (the vector itself: token_table::push_back marks the form at every call)
  };
  const auto walk = [&]() -> result<void> {  // the array's strings, one after the other
    begin();
    return toks.for_each_string(add);
  };
  // On a hit, the table placed over the file from the texts' places in the compiled cache
  // (no walk, no array written); else walked, and the places saved.
  const token_columns cols{scores_raw, scores_int, types_raw, host_order};
  bool placed = false;
  result<void> walked;
  vocab_detail::load_or_build(
      d.cache, "tokens.text",
      [&](vocab_detail::table_reader& r) { return place_texts(r, d, toks.offset(), n, cols, placed); },
      [&] {
        walked = walk();
        if (walked && d.cache) keep_text_starts(d, toks.offset(), n_empty);
      },
      [&](vocab_detail::table_writer& w) {
        w.put_value(uint64_t(n));
        w.put(std::span<const uint32_t>(d.text_starts));
      });
  if (d.cache && d.cache->hit() && !placed) walked = walk();  // a vocabulary whose places were not kept
  if (!walked) return std::move(walked).error();
  if (!placed) d.max_token_len = max_len;
  if (d.type == vocab_type::ugm) d.facts = facts_of_columns(n, cols);  // (only the lazy UGM model reads them)
  if (n_empty) {
    d.owned_text.reserve(n_empty);  // views into owned_text stay valid: no reallocation below
    for (size_t i = 0; i < n; ++i) {
      auto& t = d.tokens.mut(i);
      if (!t.text.empty()) continue;
      v.warnings.push_back("empty token at index " + std::to_string(i));
      d.owned_text.push_back("[EMPTY_" + std::to_string(i) + "]");
      t.text = d.owned_text.back();
      d.max_token_len = std::max<uint32_t>(d.max_token_len, uint32_t(t.text.size()));
    }
  }
  size_t dup = n;  // the first duplicate text's id (a cached map was built from a vocabulary without)
  vocab_detail::load_or_build(
      d.cache, "tokens.map", [&](vocab_detail::table_reader& r) { return d.token_to_id.load(r, d.tokens); },
      [&] { dup = d.token_to_id.build(d.tokens, d.file_bytes); },
      [&](vocab_detail::table_writer& w) { d.token_to_id.save(w); });
  if (dup < n) {
    const std::string_view t = d.tokens[dup].text;
    return vocab_error(errc::invalid_vocab,
                       "duplicate token in vocabulary: '" + std::string(t) + "' has ids " +
                           std::to_string(d.token_to_id.find_id(t)) + " and " + std::to_string(dup),
                       "tokenizer.ggml.tokens");
  }
  return {};
}

result<void> read_special_ids(vocab::impl& v, const keys& k) {
  auto& d = v.d;
  const size_t n = d.tokens.size();
  struct row {
    std::string_view key;
    int32_t& id;
  };
  const row rows[] = {
      {"tokenizer.ggml.bos_token_id", d.bos},         {"tokenizer.ggml.eos_token_id", d.eos},
      {"tokenizer.ggml.eot_token_id", d.eot},         {"tokenizer.ggml.eom_token_id", d.eom},
      {"tokenizer.ggml.unknown_token_id", d.unk},     {"tokenizer.ggml.seperator_token_id", d.sep},
      {"tokenizer.ggml.padding_token_id", d.pad},     {"tokenizer.ggml.mask_token_id", d.mask},
      {"tokenizer.ggml.fim_pre_token_id", v.fim_pre}, {"tokenizer.ggml.fim_suf_token_id", v.fim_suf},
      {"tokenizer.ggml.fim_mid_token_id", v.fim_mid}, {"tokenizer.ggml.fim_pad_token_id", v.fim_pad},
      {"tokenizer.ggml.fim_rep_token_id", v.fim_rep}, {"tokenizer.ggml.fim_sep_token_id", v.fim_sep},
      {"tokenizer.ggml.prefix_token_id", v.fim_pre},  {"tokenizer.ggml.suffix_token_id", v.fim_suf},
      {"tokenizer.ggml.middle_token_id", v.fim_mid},
  };
  for (const auto& r : rows) {
    if (r.id >= 0 && size_t(r.id) >= n) {
      v.warnings.push_back("default special token '" + std::string(r.key) + "' = " + std::to_string(r.id) +
                           " out of vocab range, disabling");
      r.id = no_token;
    }
    auto val = k.f.find(r.key);
    if (!val) continue;
    auto u = val->to_uint64();
    if (!u || *u >= n) {
      v.warnings.push_back("bad special token: '" + std::string(r.key) + "', using default id " + std::to_string(r.id));
      continue;
    }
    r.id = int32_t(*u);
  }
  bool b = false;
  auto rb = k.get_bool("tokenizer.ggml.add_bos_token", b);
  if (!rb) return std::move(rb).error();
  if (*rb) d.add_bos = b;
  auto re = k.get_bool("tokenizer.ggml.add_eos_token", b);
  if (!re) return std::move(re).error();
  if (*re) d.add_eos = b;
  auto rs = k.get_bool("tokenizer.ggml.add_sep_token", b);
  if (!rs) return std::move(rs).error();
  if (*rs) d.add_sep = b;
  if (d.preset && d.preset->force_add_bos && !d.add_bos) {
    d.add_bos = true;
    v.warnings.push_back("override 'tokenizer.ggml.add_bos_token' to 'true' for Gemma4");
  }
  // add_bos / add_eos / add_sep without the id load (llama.cpp loads such a file too); only
  // tokenizing with add_special needs the id, and vocab::tokenize reports it missing there.

  auto rl = k.get_bool("tokenizer.ggml.normalizer.lowercase", d.lowercase);
  if (!rl) return std::move(rl).error();
  d.strip_accents = d.lowercase;
  auto ra = k.get_bool("tokenizer.ggml.normalizer.strip_accents", d.strip_accents);
  if (!ra) return std::move(ra).error();
  return {};
}

}  // namespace

namespace {
result<std::shared_ptr<vocab::impl>> load_with(const gguf::file& f, std::span<const tokenizer_model_info> models,
                                               std::span<const vocab_detail::model_row> rows,
                                               std::unique_ptr<vocab_detail::table_cache> cache);
}  // namespace

result<std::shared_ptr<vocab::impl>> vocab::impl::load(const gguf::file& f, std::span<const tokenizer_model_info> models,
                                                       std::span<const vocab_detail::model_row> rows,
                                                       const vocab_load_options& options) {
  using vocab_detail::table_cache;
  auto cache = table_cache::open(options.cache_dir, f);
  const bool was_hit = cache && cache->hit();
  auto p = load_with(f, models, rows, std::move(cache));
  if (!p || !was_hit || (*p)->cache) return p;
  // a cache file whose tables did not fit: build everything and write it anew
  return load_with(f, models, rows, table_cache::open(options.cache_dir, f, /*ignore_existing=*/true));
}

namespace {
result<std::shared_ptr<vocab::impl>> load_with(const gguf::file& f, std::span<const tokenizer_model_info> models,
                                               std::span<const vocab_detail::model_row> rows,
                                               std::unique_ptr<vocab_detail::table_cache> cache) {
  using namespace vocab_detail;
  using impl = vocab::impl;
  auto p = std::make_shared<impl>(f);
  p->d.cache = cache.get();
  struct detach {  // the cache is only read while loading
    vocab_data& d;
    ~detach() { d.cache = nullptr; }
  } detach_cache{p->d};
  const keys k{p->file};
  std::string pre_key;
  bool has_pre = false;
  TRY(read_model(*p, k, models, rows, pre_key, has_pre));
  if (p->info->no_vocab) {  // tokenizer.ggml.model none / no_vocab / absent
    p->d.nl = no_token;
    return p;
  }
  TRY(read_pre(*p, pre_key, has_pre));
  p->d.file_bytes = p->file.bytes();
  // on a cache hit the merge table holds each rule's place in the file: no need to read
  // the merges (a table that does not fit restarts the load without the cache)
  if (p->info->merges && !(cache && cache->hit())) TRY(read_merges(*p, k));
  if (p->info->charsmap) {
    auto ca = k.get_array("tokenizer.ggml.precompiled_charsmap");
    if (!ca) return std::move(ca).error();
    if (*ca) {
      const array_ref a = **ca;
      if (a.element_type() != value_type::uint8 && a.element_type() != value_type::int8)
        return vocab_error(errc::type_mismatch, "expected a uint8 or int8 array", "tokenizer.ggml.precompiled_charsmap", a.offset());
      p->d.precompiled_charsmap = a.raw();
      // llama.cpp v0.5.0 refuses a charsmap without room for its header, or whose XCDA
      // blob leaves no replacement bytes (llama_vocab::load; issue 29, item 4).
      const auto cm = a.raw();
      if (cm.size() < 4)
        return vocab_error(errc::invalid_vocab, "precompiled_charsmap too small for xcda_blob_size header",
                           "tokenizer.ggml.precompiled_charsmap", a.offset());
      const auto* b = reinterpret_cast<const unsigned char*>(cm.data());
      const uint64_t xcda = uint64_t(b[0]) | uint64_t(b[1]) << 8 | uint64_t(b[2]) << 16 | uint64_t(b[3]) << 24;
      if (xcda + 4 >= cm.size())
        return vocab_error(errc::invalid_vocab,
                           "index out of array bounds in precompiled charsmap (XCDA blob of " + std::to_string(xcda) +
                               " bytes in " + std::to_string(cm.size()) + ")",
                           "tokenizer.ggml.precompiled_charsmap", a.offset());
    }
  }
  TRY(read_tokens(*p, k));
  TRY(read_special_ids(*p, k));
  try {
    p->model = p->row->make(p->d);
  } catch (const std::exception& e) {
    return vocab_error(errc::invalid_vocab, std::string("cannot build the tokenizer: ") + e.what(), "tokenizer.ggml.model");
  }
  p->fix_up_attrs();
  // llama.cpp builds every token's piece at load, and token_to_byte aborts (GGML_ABORT)
  // for a WPM vocabulary: a byte token there makes a file it cannot load (issue 29, item 4).
  if (p->d.type == vocab_type::wpm) {
    for (size_t i = 0; i < p->d.attrs.size(); ++i)
      if (p->d.attrs[i] & attr_byte)
        return vocab_error(errc::invalid_vocab,
                           "token " + std::to_string(i) +
                               " is a byte token (type 6) in a WPM (bert) vocabulary: llama.cpp aborts on it "
                               "(token_to_byte)",
                           "tokenizer.ggml.token_type");
  }
  p->build_special_index();
  p->set_strip_attrs();
  // newline token (llama.cpp linefeed_id)
  auto& d = p->d;
  switch (p->row->newline) {
    case newline_rule::byte_token:
      d.nl = d.find("<0x0A>");
      if (d.nl < 0) d.nl = d.find("\n");
      break;
    case newline_rule::pad: d.nl = no_token; break;
    case newline_rule::first_id: d.nl = p->first_model_id("\n"); break;
  }
  if (d.nl < 0) d.nl = d.pad;
  if (cache) {
    if (cache->hit()) p->cache = std::move(cache);  // the tables view its mapping
    else cache->commit();                            // a miss: save what was built
    d.text_starts = {};                              // (only kept for the write)
  }
  return p;
}
}  // namespace

result<vocab> vocab::load(const file& f) { return load(f, vocab_load_options{}); }

result<vocab> vocab::load(const file& f, const vocab_load_options& options) {
  auto p = impl::load(f, tokenizer_models(), vocab_detail::model_table(), options);
  if (!p) return std::move(p).error();
  return vocab(std::move(*p));
}

bool vocab::from_cache() const noexcept { return impl_->cache != nullptr; }

std::string default_tokenizer_cache_dir() { return vocab_detail::default_cache_dir(); }

}  // namespace gguf
