// Reading hparams from `[arch].*` keys, in the order and with the defaults of llama.cpp's
// llama_model::load_hparams (src/llama-model.cpp): common keys, then the architecture's.
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>

#include "arch.h"
#include "gguf/keys.h"

namespace gguf {

std::string_view rope_scaling_type_name(rope_scaling_type t) noexcept {
  switch (t) {
    case rope_scaling_type::none: return "none";
    case rope_scaling_type::linear: return "linear";
    case rope_scaling_type::yarn: return "yarn";
    case rope_scaling_type::longrope: return "longrope";
  }
  return "";
}

namespace {

using detail::key_spec;

/// Reads the keys of one architecture, collecting nothing: the first problem is the error.
class key_reader {
 public:
  /// `arch` is the architecture name, `infix` what follows it in the key names read
  /// ("encoder." for whisper's common keys).
  key_reader(const file& f, std::string_view arch, std::string_view infix, bool vocab_only)
      : f_(f), prefix_(std::string(arch) + "." + std::string(infix)), infix_(infix), vocab_only_(vocab_only),
        schema_(find_architecture(arch)) {}

  /// Whether `suffix` is required: the schema layer's row of the architecture says so
  /// (keys.h; for the spec-only architectures rwkv and whisper, the spec's list), or the
  /// binding's condition holds (deepseek2's q_lora_rank).
  bool required(const key_spec& spec, const hparams& hp) const {
    if (spec.required_if && spec.required_if(hp)) return true;
    if (!schema_) return false;
    std::string full = std::string(infix_) + std::string(spec.suffix);
    for (auto k : schema_->required.empty() ? schema_->spec_required : schema_->required) {
      if (k == full) return true;
    }
    return false;
  }

  std::string key(std::string_view suffix) const { return prefix_ + std::string(suffix); }

  /// Missing key: an error when `required` and the file is not vocab-only.
  result<std::optional<value_ref>> find(std::string_view suffix, bool required) const {
    std::string k = key(suffix);
    auto v = f_.find(k);
    if (!v && required && !vocab_only_) {
      return make_error(errc::invalid_model, no_offset, "missing required key", k);
    }
    return v;
  }

  /// A count: any integer type whose value fits uint32 (the spec lets counts be uint32 or
  /// uint64; llama.cpp stores them as uint32).
  result<uint32_t> as_u32(const value_ref& v, const std::string& k) const {
    if (!is_integer_type(v.type())) {
      return make_error(errc::invalid_model, v.offset(),
                        "expected an integer, got " + std::string(value_type_name(v.type())), k);
    }
    auto n = v.to_uint64();
    if (!n) return make_error(errc::invalid_model, v.offset(), "negative value where a count is expected", k);
    if (*n > std::numeric_limits<uint32_t>::max()) {
      return make_error(errc::invalid_model, v.offset(), "value " + std::to_string(*n) + " above 2^32-1", k);
    }
    return static_cast<uint32_t>(*n);
  }

  result<float> as_f32(const value_ref& v, const std::string& k) const {
    if (v.type() != value_type::float32 && v.type() != value_type::float64) {
      return make_error(errc::invalid_model, v.offset(),
                        "expected float32, got " + std::string(value_type_name(v.type())), k);
    }
    double d = *v.to_double();
    if (!std::isfinite(d)) return make_error(errc::invalid_model, v.offset(), "value is not finite", k);
    return static_cast<float>(d);
  }

  /// The value as the field type T of a key_spec (see key_spec for the rules).
  template <class T>
  result<T> as(const value_ref& v, const std::string& k) const {
    if constexpr (std::is_same_v<T, uint32_t>) {
      return as_u32(v, k);
    } else if constexpr (std::is_same_v<T, int32_t>) {
      if (!is_integer_type(v.type())) return make_error(errc::invalid_model, v.offset(), "expected an integer", k);
      auto n = v.to_int64();
      if (!n || *n < std::numeric_limits<int32_t>::min() || *n > std::numeric_limits<uint32_t>::max()) {
        return make_error(errc::invalid_model, v.offset(), "value outside the 32-bit range", k);
      }
      return static_cast<int32_t>(static_cast<uint32_t>(*n));  // llama.cpp reads uint32
    } else if constexpr (std::is_same_v<T, float>) {
      return as_f32(v, k);
    } else {
      static_assert(std::is_same_v<T, bool>);
      auto b = v.get<bool>();
      if (!b) {
        return make_error(errc::invalid_model, v.offset(),
                          "expected bool, got " + std::string(value_type_name(v.type())), k);
      }
      return *b;
    }
  }

  result<bool> read(const key_spec& spec, hparams& hp) const {
    auto found = find(spec.suffix, required(spec, hp));
    if (!found) return found.error();
    if (!*found) return false;
    const value_ref& v = **found;
    std::string k = key(spec.suffix);
    return std::visit(
        [&](auto field) -> result<bool> {
          auto x = as<std::remove_reference_t<decltype(hp.*field)>>(v, k);
          if (!x) return x.error();
          hp.*field = *x;
          return true;
        },
        spec.into);
  }

  /// llama.cpp get_key_or_arr: a scalar fills every layer; an array gives one value per
  /// layer and must have n_layer elements. Returns whether the key is present.
  result<bool> read_per_layer(std::string_view suffix, uint32_t n_layer, std::vector<uint32_t>& out) const {
    auto found = find(suffix, false);
    if (!found) return found.error();
    if (!*found) return false;
    const value_ref& v = **found;
    std::string k = key(suffix);
    if (v.type() != value_type::array) {
      auto n = as_u32(v, k);
      if (!n) return n.error();
      out.assign(std::max<uint32_t>(n_layer, 1), *n);
      return true;
    }
    auto a = *v.array();
    if (!is_integer_type(a.element_type())) {
      return make_error(errc::invalid_model, v.offset(),
                        "expected an array of integers, got one of " + std::string(value_type_name(a.element_type())), k);
    }
    // A vocab-only file may have no block_count: then any length is taken.
    if (auto ok = check_layer_array(v, a.size(), n_layer, vocab_only_ && n_layer == 0, k); !ok) return ok.error();
    out.assign(a.size(), 0);
    for (uint64_t i = 0; i < a.size(); ++i) {
      auto e = a.at(i);
      if (!e) return e.error();
      auto n = as_u32(*e, k);
      if (!n) return n.error();
      out[i] = *n;
    }
    if (out.empty()) out.assign(1, 0);
    return true;
  }

  /// A per-layer array has at most max_layers elements and, unless `any_length`, exactly
  /// n_layer (llama.cpp get_key_or_arr: "wrong array length").
  static result<void> check_layer_array(const value_ref& v, uint64_t size, uint32_t n_layer, bool any_length,
                                        const std::string& k) {
    if (size > max_layers) {
      return make_error(errc::invalid_model, v.offset(),
                        "array of " + std::to_string(size) + " elements, more than " + std::to_string(max_layers) + " layers", k);
    }
    if (size != n_layer && !any_length) {
      return make_error(errc::invalid_model, v.offset(),
                        "wrong array length; expected " + std::to_string(n_layer) + " (block_count), got " +
                            std::to_string(size), k);
    }
    return {};
  }

  /// get_key_or_arr of per-layer flags (llama.cpp swa_layers): a bool or integer scalar
  /// sets every layer, an array of bools or integers gives one flag per layer and must
  /// have n_layer elements. Returns whether the key is present.
  result<bool> read_layer_flags(std::string_view suffix, uint32_t n_layer, bool required,
                                std::vector<uint8_t>& out) const {
    auto found = find(suffix, required);
    if (!found) return found.error();
    if (!*found) return false;
    const value_ref& v = **found;
    std::string k = key(suffix);
    auto flag = [&](const value_ref& e) -> result<uint8_t> {
      if (e.type() == value_type::boolean) return static_cast<uint8_t>(*e.get<bool>() ? 1 : 0);
      if (is_integer_type(e.type())) {
        auto u = e.to_uint64();  // no value: a negative integer, so not zero
        return static_cast<uint8_t>(!u || *u != 0 ? 1 : 0);
      }
      return make_error(errc::invalid_model, v.offset(),
                        "expected bool or an integer, got " + std::string(value_type_name(e.type())), k);
    };
    if (v.type() != value_type::array) {
      auto b = flag(v);
      if (!b) return b.error();
      out.assign(n_layer, *b);
      return true;
    }
    auto a = *v.array();
    if (auto ok = check_layer_array(v, a.size(), n_layer, false, k); !ok) return ok.error();
    out.assign(a.size(), 0);
    for (uint64_t i = 0; i < a.size(); ++i) {
      auto e = a.at(i);
      if (!e) return e.error();
      auto b = flag(*e);
      if (!b) return b.error();
      out[i] = *b;
    }
    return true;
  }

  const file& f() const { return f_; }
  bool vocab_only() const { return vocab_only_; }

 private:
  const file& f_;
  std::string prefix_;
  std::string_view infix_;
  bool vocab_only_;
  const arch_info* schema_;
};

gguf::error model_error(const value_ref* v, std::string key, std::string detail) {
  return make_error(errc::invalid_model, v ? v->offset() : no_offset, std::move(detail), std::move(key));
}

/// Number of blocks the tensors cover: 1 + the largest N of "blk.N." (also "enc.blk.N.",
/// "dec.blk.N."); 0 when no tensor is in a block.
uint32_t blocks_in_tensors(const file& f) {
  uint64_t n = 0;
  for (const auto& t : f.tensors()) {
    std::string_view s = t.name;
    if (s.starts_with("enc.") || s.starts_with("dec.")) s.remove_prefix(4);
    if (!s.starts_with("blk.")) continue;
    s.remove_prefix(4);
    uint64_t il = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), il);
    if (ec != std::errc{} || p == s.data() || p == s.data() + s.size() || *p != '.') continue;
    n = std::max(n, il + 1);
  }
  return static_cast<uint32_t>(std::min<uint64_t>(n, std::numeric_limits<uint32_t>::max()));
}

}  // namespace

result<gguf::hparams> load_hparams(const file& f, const architecture& arch) {
  const detail::arch_row& row = *arch.row;
  hparams hp;
  hp.vocab_only = f.tensor_count() == 0;
  key_reader r(f, row.name, row.key_infix, hp.vocab_only);
  using detail::bind_key;

  // Common keys (llama.cpp reads these for every architecture).
  for (const key_spec& k : {bind_key("context_length", &hparams::n_ctx_train),
                            bind_key("embedding_length", &hparams::n_embd),
                            bind_key("block_count", &hparams::n_layer),
                            bind_key("expert_count", &hparams::n_expert),
                            bind_key("expert_used_count", &hparams::n_expert_used)}) {
    if (auto ok = r.read(k, hp); !ok) return ok.error();
  }
  auto value_of = [&](std::string_view suffix) { return f.find(r.key(suffix)); };
  if (hp.n_layer > max_layers) {
    auto v = value_of("block_count");
    return model_error(v ? &*v : nullptr, r.key("block_count"),
                       "block_count " + std::to_string(hp.n_layer) + " above " + std::to_string(max_layers));
  }
  if (hp.n_expert > max_experts) {
    auto v = value_of("expert_count");
    return model_error(&*v, r.key("expert_count"), "expert_count " + std::to_string(hp.n_expert) +
                                                       " above " + std::to_string(max_experts));
  }
  if (hp.n_expert_used > hp.n_expert) {
    auto v = value_of("expert_used_count");
    return model_error(&*v, r.key("expert_used_count"),
                       "expert_used_count " + std::to_string(hp.n_expert_used) + " above expert_count " +
                           std::to_string(hp.n_expert));
  }
  if (hp.n_expert > 0 && hp.n_expert_used == 0 && !hp.vocab_only) {
    auto v = value_of("expert_count");
    return model_error(&*v, r.key("expert_used_count"), "expert_count > 0 needs expert_used_count > 0");
  }

  const uint32_t n_slots = std::max<uint32_t>(hp.n_layer, 1);
  hp.n_ff_arr.assign(n_slots, 0);
  hp.n_head_arr.assign(n_slots, 0);
  if (auto ok = r.read_per_layer("feed_forward_length", hp.n_layer, hp.n_ff_arr); !ok) return ok.error();
  if (auto ok = r.read_per_layer("attention.head_count", hp.n_layer, hp.n_head_arr); !ok) return ok.error();
  hp.n_head_kv_arr = hp.n_head_arr;  // llama.cpp: n_head_kv defaults to n_head
  if (auto ok = r.read_per_layer("attention.head_count_kv", hp.n_layer, hp.n_head_kv_arr); !ok) return ok.error();

  if (auto ok = r.read(bind_key("rope.scaling.finetuned", &hparams::rope_finetuned), hp); !ok) return ok.error();
  hp.n_ctx_orig_yarn = hp.n_ctx_train;
  if (auto ok = r.read(bind_key("rope.scaling.original_context_length", &hparams::n_ctx_orig_yarn), hp); !ok)
    return ok.error();
  if (auto ok = r.read(bind_key("rope.freq_base", &hparams::rope_freq_base_train), hp); !ok) return ok.error();
  hp.rope_freq_base_train_swa = hp.rope_freq_base_train;  // llama.cpp: SWA layers default to the same

  if (auto v = value_of("rope.scaling.type")) {
    auto s = v->get<std::string_view>();
    if (!s) return model_error(&*v, r.key("rope.scaling.type"), "expected a string");
    bool known = false;
    for (auto t : {rope_scaling_type::none, rope_scaling_type::linear, rope_scaling_type::yarn,
                   rope_scaling_type::longrope}) {
      if (*s == rope_scaling_type_name(t)) hp.rope_scaling_type_train = t, known = true;
    }
    if (!known) return model_error(&*v, r.key("rope.scaling.type"), "unknown rope scaling type '" + std::string(*s) + "'");
  }
  // rope_freq_scale is the inverse of rope.scaling.factor, or of the old rope.scale_linear.
  float ropescale = 0.0f;
  for (std::string_view suffix : {"rope.scaling.factor", "rope.scale_linear"}) {
    if (auto v = value_of(suffix)) {
      auto x = r.as_f32(*v, r.key(suffix));
      if (!x) return x.error();
      ropescale = *x;
      break;
    }
  }
  hp.rope_freq_scale_train = ropescale == 0.0f ? 1.0f : 1.0f / ropescale;
  if (auto ok = r.read(bind_key("rope.scaling.attn_factor", &hparams::rope_attn_factor), hp); !ok)
    return ok.error();

  if (hp.n_head() > 0) {
    auto key_length = value_of("attention.key_length");
    if (!key_length && hp.n_embd > 0) {
      for (uint32_t il = 0; il < hp.n_head_arr.size(); ++il) {
        uint32_t nh = hp.n_head_arr[il];
        if (nh > 0 && hp.n_embd % nh != 0) {
          auto v = value_of("attention.head_count");
          return model_error(&*v, r.key("attention.head_count"),
                             "embedding_length " + std::to_string(hp.n_embd) + " is not divisible by head_count " +
                                 std::to_string(nh) + " (and attention.key_length is absent)");
        }
      }
    }
    hp.n_embd_head_k_full = hp.n_embd / hp.n_head();
    hp.n_embd_head_v_full = hp.n_embd / hp.n_head();
    if (auto ok = r.read(bind_key("attention.key_length", &hparams::n_embd_head_k_full), hp); !ok) return ok.error();
    if (auto ok = r.read(bind_key("attention.value_length", &hparams::n_embd_head_v_full), hp); !ok)
      return ok.error();
    hp.n_rot_full = hp.n_embd_head_k_full;
    if (auto ok = r.read(bind_key("rope.dimension_count", &hparams::n_rot_full), hp); !ok) return ok.error();
    if (row.check_n_rot && hp.n_rot_full != hp.n_embd_head_k_full) {
      auto v = value_of("rope.dimension_count");
      return model_error(v ? &*v : nullptr, r.key("rope.dimension_count"),
                         "invalid n_rot " + std::to_string(hp.n_rot_full) + ", expected " + std::to_string(hp.n_embd_head_k_full));
    }
  }

  // Head sizes and rotary dimensions of sliding-window layers default to the full ones.
  hp.n_embd_head_k_swa = hp.n_embd_head_k_full;
  hp.n_embd_head_v_swa = hp.n_embd_head_v_full;
  hp.n_rot_swa = hp.n_rot_full;
  for (const key_spec& k : {bind_key("attention.key_length_swa", &hparams::n_embd_head_k_swa),
                            bind_key("attention.value_length_swa", &hparams::n_embd_head_v_swa),
                            bind_key("rope.dimension_count_swa", &hparams::n_rot_swa)}) {
    if (auto ok = r.read(k, hp); !ok) return ok.error();
  }

  // n_vocab: [arch].vocab_size, else the number of tokens.
  if (auto ok = r.read(bind_key("vocab_size", &hparams::n_vocab), hp); !ok) return ok.error();
  if (!f.find(r.key("vocab_size"))) {
    if (auto tokens = f.find("tokenizer.ggml.tokens"); tokens && tokens->type() == value_type::array) {
      uint64_t n = tokens->array()->size();
      hp.n_vocab = static_cast<uint32_t>(std::min<uint64_t>(n, std::numeric_limits<uint32_t>::max()));
    }
  }

  // The architecture's own keys (named from "<arch>.", without the infix).
  key_reader ra(f, row.name, "", hp.vocab_only);
  if (row.defaults) row.defaults(hp);
  if (row.swa_layers_key) {
    // gemma4: which layers use the sliding window, and how many trailing layers share K/V.
    auto pattern = ra.read_layer_flags("attention.sliding_window_pattern", hp.n_layer,
                                       ra.required(key_spec{"attention.sliding_window_pattern"}, hp),
                                       hp.swa_layers);
    if (!pattern) return pattern.error();
    uint32_t n_kv_shared = 0;
    auto shared = ra.find("attention.shared_kv_layers", false);
    if (!shared) return shared.error();
    if (*shared) {
      auto n = ra.as_u32(**shared, ra.key("attention.shared_kv_layers"));
      if (!n) return n.error();
      if (*n > hp.n_layer) {
        return model_error(&**shared, ra.key("attention.shared_kv_layers"),
                           "shared_kv_layers " + std::to_string(*n) + " above block_count " + std::to_string(hp.n_layer));
      }
      n_kv_shared = *n;
    }
    hp.n_layer_kv_from_start = static_cast<int32_t>(hp.n_layer - n_kv_shared);
  }
  for (const key_spec& k : row.keys) {
    if (auto ok = ra.read(k, hp); !ok) return ok.error();
  }
  if (row.finish) row.finish(hp);
  for (const key_spec& k : row.keys) {
    auto* eps = std::get_if<float hparams::*>(&k.into);
    if (eps && k.suffix.find("epsilon") != std::string_view::npos && hp.**eps < 0.0f) {
      auto v = f.find(ra.key(k.suffix));
      return model_error(v ? &*v : nullptr, ra.key(k.suffix), "negative epsilon");
    }
  }

  // rwkv (spec): "architecture_version ... The only allowed value currently is 4."
  if (auto v = f.find(ra.key("architecture_version")); v && row.name == "rwkv" && hp.architecture_version != 4) {
    return model_error(&*v, ra.key("architecture_version"),
                       "RWKV version " + std::to_string(hp.architecture_version) + "; the spec allows only 4");
  }

  // t5's decoder_block_count: the same bounds as block_count.
  if (hp.dec_n_layer > max_layers) {
    auto v = f.find(ra.key("decoder_block_count"));
    return model_error(v ? &*v : nullptr, ra.key("decoder_block_count"),
                       "decoder_block_count " + std::to_string(hp.dec_n_layer) + " above " + std::to_string(max_layers));
  }

  // The layer count must not exceed the blocks the tensors describe.
  if (!hp.vocab_only && row.key_infix.empty()) {
    uint32_t blocks = blocks_in_tensors(f);
    if (hp.n_layer > blocks) {
      auto v = value_of("block_count");
      return model_error(v ? &*v : nullptr, r.key("block_count"),
                         "block_count " + std::to_string(hp.n_layer) + " but the tensors cover " +
                             std::to_string(blocks) + " blocks");
    }
  }
  return hp;
}

}  // namespace gguf
