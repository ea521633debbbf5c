// Importance matrices (llama.cpp common/imatrix-loader.cpp + tools/quantize load_imatrix
// and prepare_imatrix of v0.5.0) and --override-kv parsing (common string_parse_kv_override).
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "gguf/quantize.h"

namespace gguf {

namespace {

error bad(const std::filesystem::path& p, std::string what, uint64_t offset = no_offset) {
  return make_error(errc::invalid_argument, offset, p.string() + ": " + std::move(what));
}

bool remove_suffix(std::string& s, std::string_view suffix) {
  if (s.size() < suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  s.resize(s.size() - suffix.size());
  return true;
}

result<std::vector<float>> floats_of(const tensor_info& t, const std::filesystem::path& p) {
  std::vector<float> v(t.nelements());
  if (t.data.size() != v.size() * sizeof(float)) return bad(p, "tensor " + std::string(t.name) + " is truncated");
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

// GGUF imatrix (llama-imatrix's current format); the values still raw sums and counts.
result<importance_matrix> load_gguf(const std::filesystem::path& path) {
  auto f = file::open(path);
  if (!f) return f.error();
  if (f->tensors().empty()) return bad(path, "no data in the imatrix");
  importance_matrix m;
  const auto ds = f->find("imatrix.datasets");
  if (ds && ds->type() == value_type::array) {
    auto a = *ds->array();
    if (a.element_type() == value_type::string) {
      (void)a.for_each_string([&](uint64_t, std::string_view s) { m.datasets.emplace_back(s); });
    }
  }
  const auto cc = f->find("imatrix.chunk_count");
  const auto cs = f->find("imatrix.chunk_size");
  if (!ds || !cc || !cs) {
    return bad(path, "missing imatrix metadata (imatrix.datasets, imatrix.chunk_count, imatrix.chunk_size)");
  }
  if (auto n = f->get_uint("imatrix.chunk_count")) m.chunk_count = int32_t(*n);
  std::map<std::string, std::pair<const tensor_info*, const tensor_info*>> pairs;
  for (const auto& t : f->tensors()) {
    std::string name(t.name);
    if (name.empty()) continue;
    if (remove_suffix(name, ".in_sum2")) pairs[name].first = &t;
    else if (remove_suffix(name, ".counts")) pairs[name].second = &t;
  }
  for (const auto& [name, sc] : pairs) {
    if (!sc.first || !sc.second) return bad(path, "mismatched sums and counts for " + name);
    if (sc.first->type != ggml_type::f32 || sc.second->type != ggml_type::f32) {
      return bad(path, "sums and counts for " + name + " must be F32");
    }
    auto sums = floats_of(*sc.first, path);
    if (!sums) return sums.error();
    auto counts = floats_of(*sc.second, path);
    if (!counts) return counts.error();
    const size_t nc = counts->size();
    if (nc == 0 || sums->size() % nc != 0) return bad(path, "sums of " + name + " do not divide into its counts");
    const size_t ne0 = sums->size() / nc;
    auto& e = m.entries[name];
    e.resize(sums->size());
    for (size_t j = 0; j < nc; ++j) {
      const float count = float(std::lround((*counts)[j]));
      for (size_t i = 0; i < ne0; ++i) e[j * ne0 + i] = count > 0.0f ? (*sums)[j * ne0 + i] / count : 1.0f;
    }
  }
  return m;
}

// The legacy .dat of older llama-imatrix builds.
result<importance_matrix> load_legacy(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(errc::io_error, no_offset, "cannot read " + path.string() + ": " + std::strerror(errno));
  auto i32 = [&](int32_t& v) { return bool(in.read(reinterpret_cast<char*>(&v), 4)); };
  importance_matrix m;
  m.legacy = true;
  int32_t n_entries = 0;
  if (!i32(n_entries) || n_entries < 1) return bad(path, "no data in the imatrix (neither GGUF nor a legacy .dat)", 0);
  for (int32_t k = 0; k < n_entries; ++k) {
    int32_t len = 0;
    const auto at = uint64_t(in.tellg());
    if (!i32(len) || len < 0 || len > (1 << 20)) return bad(path, "bad name length of entry " + std::to_string(k + 1), at);
    std::string name(size_t(len), '\0');
    if (!in.read(name.data(), len)) return bad(path, "failed reading name for entry " + std::to_string(k + 1), at);
    name.resize(std::strlen(name.c_str()));
    int32_t ncall = 0, nval = 0;
    if (!i32(ncall) || !i32(nval) || nval < 1 || nval > (1 << 28)) {
      return bad(path, "failed reading number of values for entry " + std::to_string(k + 1), at);
    }
    std::vector<float> sums(static_cast<size_t>(nval));
    if (!in.read(reinterpret_cast<char*>(sums.data()), std::streamsize(nval) * 4)) {
      return bad(path, "failed reading data for entry " + std::to_string(k + 1), at);
    }
    auto& e = m.entries[name];
    e.resize(sums.size());
    for (size_t i = 0; i < sums.size(); ++i) e[i] = ncall > 0 ? sums[i] / float(int64_t(ncall)) : sums[i];
  }
  if (in.peek() != std::char_traits<char>::eof()) {
    int32_t n_calls = 0;
    const bool ok = i32(n_calls);
    m.chunk_count = n_calls;
    int32_t len = 0;
    if (ok && i32(len) && len > 0 && len <= (1 << 20)) {
      std::string ds(size_t(len), '\0');
      if (in.read(ds.data(), len)) m.datasets.push_back(ds.substr(0, std::strlen(ds.c_str())));
    }
  }
  return m;
}

}  // namespace

result<importance_matrix> load_importance_matrix(const std::filesystem::path& path, std::span<const std::string> include,
                                                 std::span<const std::string> exclude) {
  char magic[4] = {};
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(errc::io_error, no_offset, "cannot read " + path.string() + ": " + std::strerror(errno));
    in.read(magic, 4);
  }
  auto m = std::memcmp(magic, "GGUF", 4) == 0 ? load_gguf(path) : load_legacy(path);
  if (!m) return m;
  for (const auto& part : exclude) {
    std::erase_if(m->entries, [&](const auto& e) { return e.first.find(part) != std::string::npos; });
  }
  if (!include.empty()) {
    decltype(m->entries) kept;
    for (const auto& part : include) {
      for (auto& e : m->entries) {
        if (e.first.find(part) != std::string::npos) kept.emplace(e.first, e.second);
      }
    }
    m->entries = std::move(kept);
  }
  return m;
}

result<kv_override> parse_kv_override(std::string_view text) {
  const auto eq = text.find('=');
  auto fail = [&](std::string why) {
    return make_error(errc::invalid_argument, no_offset, why + " '" + std::string(text) + "'");
  };
  if (eq == std::string_view::npos || eq >= 128) return fail("malformed KV override");
  kv_override o;
  o.key = std::string(text.substr(0, eq));
  const std::string rest(text.substr(eq + 1));
  auto starts = [&](std::string_view p) { return rest.compare(0, p.size(), p) == 0; };
  if (starts("int:")) {
    o.tag = kv_override::kind::int_;
    o.i = std::atol(rest.c_str() + 4);
  } else if (starts("float:")) {
    o.tag = kv_override::kind::float_;
    o.f = std::atof(rest.c_str() + 6);
  } else if (starts("bool:")) {
    o.tag = kv_override::kind::bool_;
    const std::string v = rest.substr(5);
    if (v == "true") o.b = true;
    else if (v == "false") o.b = false;
    else return fail("invalid boolean value for KV override");
  } else if (starts("str:")) {
    o.tag = kv_override::kind::str;
    o.s = rest.substr(4);
    if (o.s.size() > 127) return fail("malformed KV override, value cannot exceed 127 chars:");
  } else {
    return fail("invalid type for KV override");
  }
  return o;
}

}  // namespace gguf
