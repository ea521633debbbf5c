#include "chat/jinja/text.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "chat/jinja/lexer.h"
#include "vocab/unicode/unicode.h"

namespace gguf::jinja::text {

namespace vd = vocab_detail;

namespace {
// Calls each(byte offset, code point) for the code points of `s`, decoded leniently (a
// malformed byte is one U+FFFD): the one decoding loop of cpts and cpt_offsets.
template <class F>
void each_cpt(std::string_view s, F&& each) {
  for (size_t i = 0; i < s.size();) {
    uint32_t c = 0;
    size_t n = vd::utf8_decode_lenient(s, i, c);
    if (n == 0) n = 1;
    each(i, c);
    i += n;
  }
}
}  // namespace

std::vector<uint32_t> cpts(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  each_cpt(s, [&](size_t, uint32_t c) { out.push_back(c); });
  return out;
}

std::optional<int64_t> parse_digits(std::string_view digits) noexcept {
  if (digits.empty()) return std::nullopt;
  int64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) return std::nullopt;
  }
  return v;
}

size_t find(std::string_view hay, std::string_view needle, size_t pos) {
  if (pos > hay.size()) return std::string_view::npos;
  if (needle.empty()) return pos;
  // small searches (at most 2^20 byte compares even at worst): string_view::find (memchr
  // and memcmp) is quicker than memmem's set-up, which a template's `in` tests call often
  if ((hay.size() - pos) * needle.size() <= (size_t{1} << 20)) return hay.find(needle, pos);
  const void* f = memmem(hay.data() + pos, hay.size() - pos, needle.data(), needle.size());
  return f ? static_cast<size_t>(static_cast<const char*>(f) - hay.data()) : std::string_view::npos;
}

size_t rfind(std::string_view hay, std::string_view needle, size_t pos) {
  // short needles: string_view::rfind compares at most needle.size() bytes per position
  if (needle.size() <= 32) return hay.rfind(needle, pos);
  if (needle.size() > hay.size()) return std::string_view::npos;
  const size_t end = std::min(pos, hay.size() - needle.size()) + needle.size();  // bytes searched
  std::string rh(hay.rend() - end, hay.rend()), rn(needle.rbegin(), needle.rend());
  size_t f = text::find(rh, rn);
  return f == std::string_view::npos ? f : end - f - needle.size();
}

std::vector<size_t> cpt_offsets(std::string_view s) {
  std::vector<size_t> out;
  out.reserve(s.size() + 1);
  each_cpt(s, [&](size_t at, uint32_t) { out.push_back(at); });
  out.push_back(s.size());
  return out;
}

std::string utf8(const std::vector<uint32_t>& c) {
  std::string s;
  s.reserve(c.size());
  for (uint32_t x : c) vd::append_utf8(s, x);
  return s;
}

uint32_t lower(uint32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  return vd::to_lower(c);
}

namespace {
const std::unordered_map<uint32_t, uint32_t>& upper_table() {
  static const std::unordered_map<uint32_t, uint32_t> table = [] {
    std::unordered_map<uint32_t, uint32_t> t;
    for (uint32_t c = 0x80; c < 0x20000; ++c) {
      uint32_t l = vd::to_lower(c);
      if (l != c && !t.count(l)) t.emplace(l, c);
    }
    return t;
  }();
  return table;
}
}  // namespace

uint32_t upper(uint32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z' ? c - 32 : c;
  if (uint32_t l = vd::to_lower(c); l != c) c = l;  // title case (U+01C5) -> its upper case
  const auto& t = upper_table();
  auto it = t.find(c);
  return it == t.end() ? c : it->second;
}

bool is_cased_upper(uint32_t c) { return c < 0x80 ? (c >= 'A' && c <= 'Z') : vd::flags_of(c).is_uppercase(); }
bool is_cased_lower(uint32_t c) { return c < 0x80 ? (c >= 'a' && c <= 'z') : vd::flags_of(c).is_lowercase(); }
bool is_alpha(uint32_t c) {
  return c < 0x80 ? ((c | 32) >= 'a' && (c | 32) <= 'z') : vd::flags_of(c).is_letter();
}
bool is_digit(uint32_t c) { return c < 0x80 ? (c >= '0' && c <= '9') : vd::flags_of(c).is_number(); }
bool is_space(uint32_t c) { return detail::is_py_space(c); }

namespace {
// Python's full (one-to-many) uppercase mappings that templates may meet.
const char* special_upper(uint32_t c) {
  switch (c) {
    case 0xdf: return "SS";
    case 0xfb00: return "FF";
    case 0xfb01: return "FI";
    case 0xfb02: return "FL";
    case 0xfb03: return "FFI";
    case 0xfb04: return "FFL";
    case 0xfb05:
    case 0xfb06: return "ST";
    case 0x149: return "\u02bcN";
    default: return nullptr;
  }
}
bool cased(uint32_t c) { return is_cased_upper(c) || is_cased_lower(c) || vd::flags_of(c).is_letter(); }
}  // namespace

std::string to_upper(std::string_view s) {
  std::string out(s);
  bool ascii = true;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) >= 0x80) ascii = false;
    else if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  }
  if (ascii) return out;
  std::string r;
  for (uint32_t c : cpts(s)) {
    if (const char* sp = special_upper(c)) r += c == 0x149 ? "\xca\xbcN" : sp;
    else vd::append_utf8(r, upper(c));
  }
  return r;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  bool ascii = true;
  for (char& c : out) {
    if (static_cast<unsigned char>(c) >= 0x80) ascii = false;
    else if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  if (ascii) return out;
  auto v = cpts(s);
  std::vector<uint32_t> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    // Python's final sigma: after a cased letter and not before one
    if (v[i] == 0x3a3 && i > 0 && cased(v[i - 1]) && !(i + 1 < v.size() && cased(v[i + 1]))) r[i] = 0x3c2;
    else r[i] = lower(v[i]);
  }
  return utf8(r);
}

std::string to_title(std::string_view s) {
  auto v = cpts(s);
  bool prev_cased = false;
  for (auto& c : v) {
    bool cased = is_cased_upper(c) || is_cased_lower(c) || upper(c) != c || lower(c) != c;
    c = prev_cased ? lower(c) : upper(c);
    prev_cased = cased;
  }
  return utf8(v);
}

std::string capitalize(std::string_view s) {
  auto v = cpts(s);
  if (v.empty()) return {};
  return to_upper(utf8({v[0]})) + to_lower(utf8(std::vector<uint32_t>(v.begin() + 1, v.end())));
}

std::string strip(std::string_view s, const std::optional<std::string>& chars, bool left, bool right) {
  if (!chars) {  // ASCII fast path: stop at the first byte that is not ASCII whitespace
    size_t b = 0, e = s.size();
    auto ascii_space = [](unsigned char c) { return c < 0x80 && detail::is_py_space(c); };
    if (left)
      while (b < e && ascii_space(static_cast<unsigned char>(s[b]))) ++b;
    if (right)
      while (e > b && ascii_space(static_cast<unsigned char>(s[e - 1]))) --e;
    bool edge_ascii = (!left || b == e || static_cast<unsigned char>(s[b]) < 0x80) &&
                      (!right || b == e || static_cast<unsigned char>(s[e - 1]) < 0x80);
    if (edge_ascii) return std::string(s.substr(b, e - b));
  }
  auto v = cpts(s);
  std::vector<uint32_t> set;
  if (chars) set = cpts(*chars);
  auto strip_it = [&](uint32_t c) {
    return chars ? std::find(set.begin(), set.end(), c) != set.end() : is_space(c);
  };
  size_t b = 0, e = v.size();
  if (left)
    while (b < e && strip_it(v[b])) ++b;
  if (right)
    while (e > b && strip_it(v[e - 1])) --e;
  if (b == 0 && e == v.size()) return std::string(s);
  return utf8(std::vector<uint32_t>(v.begin() + b, v.begin() + e));
}

std::vector<std::string> split(std::string_view s, const std::optional<std::string>& sep, int64_t maxsplit,
                               bool from_right) {
  std::vector<std::string> out;
  if (sep) {
    const std::string& d = *sep;
    if (!from_right) {
      size_t pos = 0;
      while (maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) {
        size_t f = text::find(s, d, pos);
        if (f == std::string_view::npos) break;
        out.emplace_back(s.substr(pos, f - pos));
        pos = f + d.size();
      }
      out.emplace_back(s.substr(pos));
    } else {
      // from the right: the first matches in the reversed string (one copy, not one a piece)
      const std::string rs(s.rbegin(), s.rend()), rd(d.rbegin(), d.rend());
      size_t end = s.size(), rpos = 0;
      while (maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) {
        size_t rf = text::find(rs, rd, rpos);
        if (rf == std::string_view::npos || d.empty()) break;
        size_t f = s.size() - rf - d.size();
        out.emplace_back(s.substr(f + d.size(), end - f - d.size()));
        end = f;
        rpos = rf + d.size();
      }
      out.emplace_back(s.substr(0, end));
      std::reverse(out.begin(), out.end());
    }
    return out;
  }
  // runs of whitespace; no empty strings
  auto v = cpts(s);
  if (!from_right) {
    size_t i = 0;
    while (i < v.size()) {
      while (i < v.size() && is_space(v[i])) ++i;
      if (i >= v.size()) break;
      if (maxsplit >= 0 && static_cast<int64_t>(out.size()) >= maxsplit) {
        size_t e = v.size();
        while (e > i && is_space(v[e - 1])) --e;
        out.push_back(utf8(std::vector<uint32_t>(v.begin() + i, v.begin() + e)));
        break;
      }
      size_t j = i;
      while (j < v.size() && !is_space(v[j])) ++j;
      out.push_back(utf8(std::vector<uint32_t>(v.begin() + i, v.begin() + j)));
      i = j;
    }
  } else {
    size_t i = v.size();
    while (i > 0) {
      while (i > 0 && is_space(v[i - 1])) --i;
      if (i == 0) break;
      if (maxsplit >= 0 && static_cast<int64_t>(out.size()) >= maxsplit) {
        size_t b = 0;
        while (b < i && is_space(v[b])) ++b;
        out.push_back(utf8(std::vector<uint32_t>(v.begin() + b, v.begin() + i)));
        break;
      }
      size_t j = i;
      while (j > 0 && !is_space(v[j - 1])) --j;
      out.push_back(utf8(std::vector<uint32_t>(v.begin() + j, v.begin() + i)));
      i = j;
    }
    std::reverse(out.begin(), out.end());
  }
  return out;
}

std::vector<std::string> splitlines(std::string_view s, bool keepends) {
  std::vector<std::string> out;
  auto v = cpts(s);
  size_t start = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t c = v[i];
    bool br = c == '\n' || c == '\r' || c == 0x0b || c == 0x0c || c == 0x1c || c == 0x1d || c == 0x1e ||
              c == 0x85 || c == 0x2028 || c == 0x2029;
    if (!br) continue;
    size_t end = i + 1;
    if (c == '\r' && i + 1 < v.size() && v[i + 1] == '\n') end = i + 2;
    out.push_back(utf8(std::vector<uint32_t>(v.begin() + start, v.begin() + (keepends ? end : i))));
    start = end;
    i = end - 1;
  }
  if (start < v.size()) out.push_back(utf8(std::vector<uint32_t>(v.begin() + start, v.end())));
  return out;
}

}  // namespace gguf::jinja::text
