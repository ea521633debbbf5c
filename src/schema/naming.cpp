// The GGUF naming convention (spec "GGUF Naming Convention"): parse and suggest.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "gguf/keys.h"
#include "gguf/naming.h"

namespace gguf {
namespace {

using sv = std::string_view;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_alnum_sp(char c) { return is_alpha(c) || is_digit(c) || is_space(c); }
bool all_of(sv s, bool (*pred)(char)) { return std::all_of(s.begin(), s.end(), pred); }

// Consumes \d+ at s[i]; returns false if none.
bool digits(sv s, size_t& i) {
  size_t j = i;
  while (j < s.size() && is_digit(s[j])) ++j;
  if (j == i) return false;
  i = j;
  return true;
}

// (\d+\.)?\d+ at s[i] — a count with an optional decimal part.
bool count(sv s, size_t& i) {
  size_t j = i;
  if (!digits(s, j)) return false;
  if (j < s.size() && s[j] == '.') {
    size_t k = j + 1;
    if (digits(s, k)) j = k;
  }
  i = j;
  return true;
}

// BaseName segments: the first [A-Za-z0-9\s]*, the next ones a word ([A-Za-z\s] then
// [A-Za-z0-9\s]*) or a number ([0-9\s]*).
bool base_segment(sv t, bool first) {
  if (first) return !t.empty() && all_of(t, is_alnum_sp);
  if (t.empty()) return true;
  if (is_alpha(t[0]) || is_space(t[0])) return all_of(t, is_alnum_sp);
  return std::all_of(t.begin(), t.end(), [](char c) { return is_digit(c) || is_space(c); });
}

// SizeLabel head: (\d+x)?(\d+\.)?\d+[A-Za-z]
bool size_head(sv t, uint32_t* experts) {
  size_t i = 0;
  uint32_t ex = 0;
  size_t j = 0;
  if (digits(t, j) && j < t.size() && t[j] == 'x') {
    for (size_t k = 0; k < j; ++k) ex = ex * 10 + static_cast<uint32_t>(t[k] - '0');
    i = j + 1;
  }
  if (!count(t, i)) return false;
  if (i + 1 != t.size() || !is_alpha(t[i])) return false;
  if (experts) *experts = ex;
  return true;
}

// SizeLabel attribute: [A-Za-z]+(\d+\.)?\d+[A-Za-z]+
bool size_attr(sv t) {
  size_t i = 0;
  while (i < t.size() && is_alpha(t[i])) ++i;
  if (i == 0 || !count(t, i)) return false;
  size_t j = i;
  while (j < t.size() && is_alpha(t[j])) ++j;
  return j > i && j == t.size();
}

// v\d+(\.\d+)*
bool version_token(sv t) {
  if (t.size() < 2 || t[0] != 'v') return false;
  size_t i = 1;
  if (!digits(t, i)) return false;
  while (i < t.size()) {
    if (t[i] != '.') return false;
    ++i;
    if (!digits(t, i)) return false;
  }
  return true;
}

bool word_chars(sv t) {  // [\w_]+
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return is_alpha(c) || is_digit(c) || c == '_'; });
}
bool encoding_token(sv t) { return word_chars(t) && t.substr(0, 4) != "LoRA" && t.substr(0, 5) != "vocab"; }
bool shard_digits(sv t, bool strict) {
  return !t.empty() && (!strict || t.size() == 5) && std::all_of(t.begin(), t.end(), is_digit);
}

std::string join(const std::vector<sv>& t, size_t from, size_t to) {
  std::string s;
  for (size_t i = from; i < to; ++i) {
    if (i > from) s += '-';
    s += t[i];
  }
  return s;
}

uint32_t to_u32(sv s) {
  uint64_t v = 0;
  for (char c : s) v = std::min<uint64_t>(v * 10 + static_cast<uint64_t>(c - '0'), 0xFFFFFFFFu);
  return static_cast<uint32_t>(v);
}

// Encoding? Type? Shard? filling all of t[k..n). Greedy: present before absent.
bool match_tail(const std::vector<sv>& t, size_t k, bool strict, name_parts& p) {
  size_t n = t.size();
  for (int enc = 1; enc >= 0; --enc) {
    size_t i = k;
    if (enc) {
      if (i >= n || !encoding_token(t[i])) continue;
      ++i;
    }
    for (int typ = 1; typ >= 0; --typ) {
      size_t j = i;
      if (typ) {
        if (j >= n || (t[j] != "LoRA" && t[j] != "vocab")) continue;
        ++j;
      }
      bool shard = j + 3 == n && shard_digits(t[j], strict) && t[j + 1] == "of" && shard_digits(t[j + 2], strict);
      if (!shard && j != n) continue;
      p.encoding = enc ? std::string(t[k]) : std::string();
      p.type = typ ? std::string(t[i]) : std::string();
      p.sharded = shard;
      p.shard = shard ? to_u32(t[j]) : 0;
      p.shard_count = shard ? to_u32(t[j + 2]) : 0;
      return true;
    }
  }
  return false;
}

// BaseName-SizeLabel[-FineTune]-Version tail, on t[s..n). With `need_version` false the
// Version is absent and no FineTune is read (it cannot be told from an Encoding).
std::optional<name_parts> match(const std::vector<sv>& t, size_t s, bool need_version, bool strict_shard) {
  size_t n = t.size();
  // The longest BaseName first (the regex's greedy group), then shorter ones.
  size_t max_b = s;
  while (max_b < n && base_segment(t[max_b], max_b == s)) ++max_b;
  for (size_t b = max_b; b > s; --b) {
    for (int attr = 1; attr >= 0; --attr) {
      size_t sl = b, sl_end = b + 1 + static_cast<size_t>(attr);
      if (sl_end > n) continue;
      name_parts p;
      if (!size_head(t[sl], &p.expert_count)) continue;
      if (attr && !size_attr(t[sl + 1])) continue;
      p.base_name = join(t, s, b);
      p.size_label = join(t, sl, sl_end);
      sv head = t[sl];
      size_t x = head.find('x');
      p.parameter_count = std::string(p.expert_count && x != sv::npos ? head.substr(x + 1) : head);
      if (!need_version) {
        if (match_tail(t, sl_end, strict_shard, p)) {
          p.version = "v1.0";
          return p;
        }
        continue;
      }
      // FineTune greedy: the latest Version position first, then no FineTune.
      for (size_t v = n; v-- > sl_end;) {
        if (!version_token(t[v])) continue;
        bool ft_ok = true;
        for (size_t i = sl_end; i < v; ++i) ft_ok = ft_ok && !t[i].empty() && all_of(t[i], is_alnum_sp);
        if (!ft_ok) continue;
        name_parts q = p;
        if (!match_tail(t, v + 1, strict_shard, q)) continue;
        q.fine_tune = join(t, sl_end, v);
        q.version = std::string(t[v]);
        q.version_given = true;
        return q;
      }
    }
  }
  // A vocabulary-only file has no parameters to count: BaseName-Version[-Encoding]-vocab
  // [-Shard] (the spec's regular expression makes SizeLabel optional; suggest_name
  // writes such names).
  if (need_version) {
    for (size_t b = std::min(max_b, n - 1); b > s; --b) {
      if (!version_token(t[b])) continue;
      name_parts q;
      if (!match_tail(t, b + 1, strict_shard, q) || q.type != "vocab") continue;
      q.base_name = join(t, s, b);
      q.version = std::string(t[b]);
      q.version_given = true;
      return q;
    }
  }
  return std::nullopt;
}

std::string sanitize(sv s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '/' || c == '\\' || c == ':' || c == '_' || c == '.') c = '-';
    if (!is_alpha(c) && !is_digit(c) && c != '-') continue;
    if (c == '-' && (out.empty() || out.back() == '-')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace

name_check parse_name(std::string_view filename) {
  name_check r;
  size_t slash = filename.find_last_of("/\\");
  sv name = slash == sv::npos ? filename : filename.substr(slash + 1);
  sv stem = name;
  bool ext = name.size() > 5 && name.substr(name.size() - 5) == ".gguf";
  if (ext) stem.remove_suffix(5);
  else r.problems.push_back("the name does not end in .gguf");

  std::vector<sv> t;
  for (size_t i = 0;;) {
    size_t d = stem.find('-', i);
    t.push_back(stem.substr(i, d == sv::npos ? sv::npos : d - i));
    if (d == sv::npos) break;
    i = d + 1;
  }
  bool sidecar = t.size() > 1 && (t[0] == "mmproj" || t[0] == "mtp");

  auto attempt = [&](bool need_version, bool strict_shard) -> std::optional<name_parts> {
    if (sidecar) {
      if (auto p = match(t, 1, need_version, strict_shard)) {
        p->sidecar = std::string(t[0]);
        return p;
      }
    }
    return match(t, 0, need_version, strict_shard);
  };

  if (auto p = attempt(true, true)) {
    r.parts = std::move(p);
  } else if (auto q = attempt(true, false)) {
    r.parts = std::move(q);
    r.problems.push_back("Shard must be <ShardNum>-of-<ShardTotal> with 5 digits each (e.g. 00001-of-00003)");
  } else if (auto v = attempt(false, false)) {
    r.parts = std::move(v);
    r.problems.push_back("no Version component (v<Major>.<Minor>); v1.0 assumed — without it an Encoding can be "
                         "mistaken for a FineTune");
    if (v->shard && (t.back().size() != 5 || t[t.size() - 3].size() != 5))
      r.problems.push_back("Shard must be <ShardNum>-of-<ShardTotal> with 5 digits each (e.g. 00001-of-00003)");
  } else {
    bool has_version = std::any_of(t.begin(), t.end(), version_token);
    bool has_size = std::any_of(t.begin(), t.end(), [](sv x) { return size_head(x, nullptr); });
    if (!has_size) r.problems.push_back("no SizeLabel component (<expertCount>x<count><scale>, e.g. 7B or 8x7B)");
    if (!has_version) r.problems.push_back("no Version component (v<Major>.<Minor>)");
    if (has_size && has_version)
      r.problems.push_back("components out of order: expected <BaseName>-<SizeLabel>[-<FineTune>]-<Version>"
                           "[-<Encoding>][-<Type>][-<Shard>].gguf");
  }
  if (r.parts && r.parts->sharded) {
    if (r.parts->shard_count == 0) r.problems.push_back("ShardTotal is at least 00001, not 00000");
    if (r.parts->shard == 0) r.problems.push_back("ShardNum starts at 00001, not 00000");
    if (r.parts->shard > r.parts->shard_count) r.problems.push_back("ShardNum is greater than ShardTotal");
  }
  r.conforms = r.problems.empty();
  return r;
}

std::string size_label_for(uint64_t n, uint32_t experts) {
  double x = static_cast<double>(n);
  double scaled;
  char suffix;
  if (x > 1e15) { scaled = x * 1e-15; suffix = 'Q'; }
  else if (x > 1e12) { scaled = x * 1e-12; suffix = 'T'; }
  else if (x > 1e9) { scaled = x * 1e-9; suffix = 'B'; }
  else if (x > 1e6) { scaled = x * 1e-6; suffix = 'M'; }
  else { scaled = x * 1e-3; suffix = 'K'; }
  // Decimals so that at least two digits show: round(scaled) has `d` significant
  // digits (0 for a value that rounds to 0), fix = max(2 - d, 0).
  double rounded = std::nearbyint(scaled);
  int d = 0;
  for (double v = rounded; v >= 1.0; v /= 10.0) ++d;
  int fix = std::max(2 - d, 0);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%c", fix, scaled, suffix);
  return experts ? std::to_string(experts) + "x" + buf : std::string(buf);
}

std::string suggest_name(const file& f, std::vector<std::string>* problems) {
  auto str = [&](sv key) -> std::string {
    auto v = f.find(key);
    if (!v) return {};
    auto s = v->get<std::string_view>();
    return s ? std::string(*s) : std::string();
  };
  std::string arch = str("general.architecture");
  std::string base = sanitize(str("general.basename"));
  if (base.empty()) base = sanitize(str("general.name"));
  if (base.empty()) base = sanitize(arch);
  // Only segments the BaseName may hold (a later segment that starts with a digit must
  // be all digits): "47b68-47b68" keeps "47b68".
  {
    std::string kept;
    size_t i = 0;
    while (i <= base.size()) {
      size_t d = std::min(base.find('-', i), base.size());
      sv seg = sv(base).substr(i, d - i);
      if (base_segment(seg, kept.empty()) && !seg.empty()) kept += (kept.empty() ? "" : "-") + std::string(seg);
      i = d + 1;
    }
    base = kept;
  }
  if (base.empty()) base = "ggml-model";
  std::string name = base;

  std::string size = str("general.size_label");
  if (size.empty() && f.tensor_count() > 0) {
    uint64_t experts = 0;
    if (auto e = f.find(arch + ".expert_count")) experts = e->to_uint64().value_or(0);
    uint64_t shared = 0, expert_params = 0;
    for (const auto& t : f.tensors()) {
      if (t.name.find("_exps.") != sv::npos && t.n_dims >= 3 && t.ne[2] > 0)
        expert_params += t.nelements() / t.ne[2];
      else
        shared += t.nelements();
    }
    size = size_label_for(shared + expert_params, expert_params ? static_cast<uint32_t>(experts) : 0);
  }
  if (!size.empty()) name += "-" + size;

  // FineTune follows a SizeLabel (spec regex): a file without one (vocab) has none.
  std::string ft = sanitize(str("general.finetune"));
  if (!ft.empty() && !size.empty()) name += "-" + ft;

  std::string ver = str("general.version");
  std::string v = !ver.empty() && (ver[0] == 'v' || ver[0] == 'V') ? "v" + ver.substr(1) : "v" + ver;
  if (ver.empty() || !version_token(v)) {
    if (!ver.empty() && problems)
      problems->push_back("general.version '" + ver + "' is not of the form <Major>.<Minor>; v1.0 used");
    v = "v1.0";
  }
  name += "-" + v;

  // Encoding: the file type when the tensors agree with it, else the most common type
  // of the 2-d tensors.
  if (f.tensor_count() > 0) {
    std::map<ggml_type, uint64_t> counts;
    for (const auto& t : f.tensors())
      if (t.n_dims >= 2) counts[t.type] += t.nelements();
    std::string enc;
    if (auto ftv = f.find("general.file_type"))
      if (auto id = ftv->get<uint32_t>())
        if (const auto* info = find_file_type(*id); info && counts.count(info->main_type)) enc = info->label;
    if (enc.empty() && !counts.empty()) {
      auto best = std::max_element(counts.begin(), counts.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
      enc = std::string(ggml_type_name(best->first));
      std::transform(enc.begin(), enc.end(), enc.begin(), [](char c) { return c >= 'a' && c <= 'z' ? c - 32 : c; });
    }
    if (!enc.empty()) name += "-" + enc;
  }
  if (f.tensor_count() == 0) name += "-vocab";
  else if (str("general.type") == "adapter") name += "-LoRA";

  if (auto cnt = f.find("split.count")) {
    uint64_t c = cnt->to_uint64().value_or(0), no = 0;
    if (auto n = f.find("split.no")) no = n->to_uint64().value_or(0);
    if (c > 1 && c <= 99999 && no < c) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "-%05llu-of-%05llu", static_cast<unsigned long long>(no + 1),
                    static_cast<unsigned long long>(c));
      name += buf;
    }
  }
  name += ".gguf";
  if (problems) {
    auto check = parse_name(name);
    for (auto& p : check.problems) problems->push_back(p);
  }
  return name;
}

}  // namespace gguf
