// make_quant_fixture: deterministic inputs for the quantize tests and benchmark, the same
// bytes on every machine (integer random numbers, exact conversions, one rounding each).
//
//   make_quant_fixture model OUT.gguf [--embd N --ff N --layers N --vocab N --head N --head-kv N]
//       a small llama (F16 weights, an F32 output.weight and F32 norms); the defaults,
//       n_embd 256, n_ff 256, 2 layers, GQA 4, make every K and IQ type usable without fallbacks
//   make_quant_fixture imatrix MODEL OUT.gguf|OUT.dat
//       an importance matrix for MODEL's 2-D weights (not token_embd, as llama-imatrix),
//       in the GGUF imatrix format or, for a .dat name, the legacy format
//
// scripts/record-quantize.sh runs it to make the inputs it gives llama-quantize;
// tests/cli/test_quantize.cpp runs it to make the same inputs again.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "gguf/file.h"
#include "gguf/writer.h"
#include "splitmix.h"

namespace {

struct rng {
  uint64_t s;
  uint64_t next() { return gguf::test::splitmix64_next(s); }
  // Sum of three uniform 24-bit integers, centred: an exact float of about unit spread;
  // every 61st value is 8x (heavy tails), every 509th is 0.
  float weight(uint64_t i) {
    int64_t v = 0;
    for (int k = 0; k < 3; ++k) v += int64_t(next() >> 40) - (int64_t(1) << 23);
    float f = float(v) * 0x1p-23f;  // exact: |v| < 2^25
    if (i % 509 == 0) return 0.0f;
    if (i % 61 == 0) f *= 8.0f;
    return f;
  }
};

uint16_t f32_to_f16(float f) {  // round to nearest even, finite inputs in range
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  const int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (exp <= 0) {
    if (exp < -10) return uint16_t(sign);
    mant |= 0x800000;
    const uint32_t shift = uint32_t(14 - exp);
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = (uint32_t(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
  return uint16_t(sign | h);
}

struct options {
  uint64_t embd = 256, ff = 256, layers = 2, vocab = 256, head = 4, head_kv = 1;
};

std::vector<std::byte> tensor_bytes(uint64_t seed, uint64_t n, bool f16, float scale) {
  rng r{seed};
  std::vector<std::byte> b(n * (f16 ? 2 : 4));
  for (uint64_t i = 0; i < n; ++i) {
    const float v = r.weight(i) * scale;
    if (f16) {
      const uint16_t h = f32_to_f16(v);
      std::memcpy(b.data() + 2 * i, &h, 2);
    } else {
      std::memcpy(b.data() + 4 * i, &v, 4);
    }
  }
  return b;
}

int make_model(const std::string& out, const options& o) {
  gguf::writer w;
  using gguf::value;
  w.set("general.architecture", value::string("llama")).value();
  w.set("general.name", value::string("quant-fixture")).value();
  w.set("llama.context_length", value::u32(512)).value();
  w.set("llama.embedding_length", value::u32(uint32_t(o.embd))).value();
  w.set("llama.block_count", value::u32(uint32_t(o.layers))).value();
  w.set("llama.feed_forward_length", value::u32(uint32_t(o.ff))).value();
  w.set("llama.rope.dimension_count", value::u32(uint32_t(o.embd / o.head))).value();
  w.set("llama.attention.head_count", value::u32(uint32_t(o.head))).value();
  w.set("llama.attention.head_count_kv", value::u32(uint32_t(o.head_kv))).value();
  w.set("llama.attention.layer_norm_rms_epsilon", value::f32(1e-5f)).value();
  w.set("llama.vocab_size", value::u32(uint32_t(o.vocab))).value();
  w.set("general.file_type", value::u32(1)).value();
  uint64_t seed = 1;
  auto add = [&](const std::string& name, std::vector<uint64_t> ne, bool f16, float scale) {
    uint64_t n = 1;
    for (auto d : ne) n *= d;
    auto t = f16 ? gguf::ggml_type::f16 : gguf::ggml_type::f32;
    w.add_tensor(name, t, ne, tensor_bytes(seed++ * 7919, n, f16, scale)).value();
  };
  const uint64_t kv = o.embd / o.head * o.head_kv;
  add("token_embd.weight", {o.embd, o.vocab}, true, 0.05f);
  for (uint64_t l = 0; l < o.layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    add(p + "attn_norm.weight", {o.embd}, false, 0.25f);
    add(p + "attn_q.weight", {o.embd, o.embd}, true, 0.02f);
    add(p + "attn_k.weight", {o.embd, kv}, true, 0.02f);
    add(p + "attn_v.weight", {o.embd, kv}, true, 0.02f);
    add(p + "attn_output.weight", {o.embd, o.embd}, true, 0.02f);
    add(p + "ffn_norm.weight", {o.embd}, false, 0.25f);
    add(p + "ffn_gate.weight", {o.embd, o.ff}, true, 0.02f);
    add(p + "ffn_up.weight", {o.embd, o.ff}, true, 0.02f);
    add(p + "ffn_down.weight", {o.ff, o.embd}, true, 0.02f);
  }
  add("output_norm.weight", {o.embd}, false, 0.25f);
  add("output.weight", {o.embd, o.vocab}, false, 0.02f);
  if (auto r = w.write_file(out); !r) {
    std::fprintf(stderr, "make_quant_fixture: %s\n", r.error().message().c_str());
    return 1;
  }
  return 0;
}

int make_imatrix(const std::string& model, const std::string& out) {
  auto f = gguf::file::open(model);
  if (!f) {
    std::fprintf(stderr, "make_quant_fixture: %s: %s\n", model.c_str(), f.error().message().c_str());
    return 1;
  }
  struct entry {
    std::string name;
    std::vector<float> values;  // mean squared activations, > 0
  };
  std::vector<entry> entries;
  uint64_t seed = 99;
  for (const auto& t : f->tensors()) {
    if (t.n_dims < 2 || t.name == "token_embd.weight") continue;
    rng r{seed++};
    entry e{std::string(t.name), std::vector<float>(t.ne[0] * t.ne[2])};
    // 1/64 .. 4 in steps of 1/64, every 37th column 16x: an exact float each.
    for (uint64_t i = 0; i < e.values.size(); ++i) {
      e.values[i] = float(1 + (r.next() >> 56)) * 0x1p-6f * (i % 37 == 0 ? 16.0f : 1.0f);
    }
    entries.push_back(std::move(e));
  }
  const int32_t chunks = 10, ncall = 10;
  if (out.size() > 4 && out.substr(out.size() - 4) == ".dat") {
    std::ofstream o(out, std::ios::binary);
    auto i32 = [&](int32_t v) { o.write(reinterpret_cast<const char*>(&v), 4); };
    i32(int32_t(entries.size()));
    for (const auto& e : entries) {
      i32(int32_t(e.name.size()));
      o.write(e.name.data(), std::streamsize(e.name.size()));
      i32(ncall);
      i32(int32_t(e.values.size()));
      for (float v : e.values) {
        const float s = v * float(ncall);  // exact: v has at most 12 significant bits
        o.write(reinterpret_cast<const char*>(&s), 4);
      }
    }
    i32(chunks);
    const std::string ds = "quant-fixture.txt";
    i32(int32_t(ds.size()));
    o.write(ds.data(), std::streamsize(ds.size()));
    return o ? 0 : 1;
  }
  gguf::writer w;
  using gguf::value;
  w.set("general.type", value::string("imatrix")).value();
  const std::string ds[] = {"quant-fixture.txt"};
  w.set("imatrix.datasets", value::string_array(std::span<const std::string>(ds))).value();
  w.set("imatrix.chunk_count", value::u32(uint32_t(chunks))).value();
  w.set("imatrix.chunk_size", value::u32(512)).value();
  for (const auto& e : entries) {
    const float count = float(chunks * 512);
    std::vector<std::byte> sums(e.values.size() * 4), counts(4);
    for (size_t i = 0; i < e.values.size(); ++i) {
      const float s = e.values[i] * count;
      std::memcpy(sums.data() + 4 * i, &s, 4);
    }
    std::memcpy(counts.data(), &count, 4);
    w.add_tensor(e.name + ".in_sum2", gguf::ggml_type::f32, std::vector<uint64_t>{e.values.size(), 1}, std::move(sums))
        .value();
    w.add_tensor(e.name + ".counts", gguf::ggml_type::f32, std::vector<uint64_t>{1, 1}, std::move(counts)).value();
  }
  if (auto r = w.write_file(out); !r) {
    std::fprintf(stderr, "make_quant_fixture: %s\n", r.error().message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "model") == 0) {
    options o;
    for (int i = 3; i + 1 < argc; i += 2) {
      const std::string k = argv[i];
      const uint64_t v = std::stoull(argv[i + 1]);
      if (k == "--embd") o.embd = v;
      else if (k == "--ff") o.ff = v;
      else if (k == "--layers") o.layers = v;
      else if (k == "--vocab") o.vocab = v;
      else if (k == "--head") o.head = v;
      else if (k == "--head-kv") o.head_kv = v;
      else {
        std::fprintf(stderr, "make_quant_fixture: unknown option %s\n", k.c_str());
        return 2;
      }
    }
    return make_model(argv[2], o);
  }
  if (argc == 4 && std::strcmp(argv[1], "imatrix") == 0) return make_imatrix(argv[2], argv[3]);
  std::fprintf(stderr, "usage: make_quant_fixture model OUT.gguf [--embd N ...] | imatrix MODEL OUT.gguf|OUT.dat\n");
  return 2;
}
