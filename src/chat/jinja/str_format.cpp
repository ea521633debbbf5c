// Python's str.format for templates: replacement fields and the format-spec
// mini-language (fill, align, sign, width, grouping, precision, type).
#include "chat/jinja/str_format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "chat/jinja/text.h"

namespace gguf::jinja {

std::string pad(const std::string& s, int64_t width, char align, const std::string& fill) {
  int64_t n = static_cast<int64_t>(utf8_length(s));
  if (width <= n) return s;
  int64_t total = width - n, left = 0;
  if (align == '>') left = total;
  else if (align == '^') left = total / 2;
  std::string out;
  for (int64_t i = 0; i < left; ++i) out += fill;
  out += s;
  for (int64_t i = 0; i < total - left; ++i) out += fill;
  return out;
}

std::string str_format(interp& in, const std::string& fmt, arguments& a) {
  std::string out;
  size_t auto_idx = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c == '}') {
      if (i + 1 < fmt.size() && fmt[i + 1] == '}') {
        out += '}';
        ++i;
        continue;
      }
      throw raised("Single '}' encountered in format string");
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    size_t e = i + 1;
    int nest = 1;
    while (e < fmt.size() && nest) {
      if (fmt[e] == '{') ++nest;
      if (fmt[e] == '}') --nest;
      if (nest) ++e;
    }
    if (e >= fmt.size()) throw raised("expected '}' before end of string");
    std::string field = fmt.substr(i + 1, e - i - 1);
    i = e;
    std::string spec, conv;
    size_t colon = field.find(':'), bang = field.find('!');
    if (colon != std::string::npos) {
      spec = field.substr(colon + 1);
      field.resize(colon);
    }
    if (bang != std::string::npos && bang < field.size()) {
      conv = field.substr(bang + 1);
      field.resize(bang);
    }
    // field name: first part then .attr / [key]
    size_t p = 0;
    while (p < field.size() && field[p] != '.' && field[p] != '[') ++p;
    std::string first = field.substr(0, p);
    value v;
    if (first.empty()) {
      if (auto_idx >= a.pos.size()) throw raised("Replacement index " + std::to_string(auto_idx) + " out of range for positional args tuple");
      v = a.pos[auto_idx++];
    } else if (std::all_of(first.begin(), first.end(), [](char d) { return std::isdigit(static_cast<unsigned char>(d)); })) {
      const auto idx = text::parse_digits(first);
      if (!idx) throw raised("Too many decimal digits in format string");  // Python's ValueError
      const size_t k = static_cast<size_t>(*idx);
      if (k >= a.pos.size()) throw raised("Replacement index " + first + " out of range for positional args tuple");
      v = a.pos[k];
    } else {
      const value* kv = a.kwarg(first);
      if (!kv) throw raised("'" + first + "'");
      v = *kv;
    }
    while (p < field.size()) {
      if (field[p] == '.') {
        size_t q = p + 1;
        while (q < field.size() && field[q] != '.' && field[q] != '[') ++q;
        v = in.getattr(v, field.substr(p + 1, q - p - 1));
        p = q;
      } else {
        size_t q = field.find(']', p);
        if (q == std::string::npos) throw raised("Missing ']' in format string");
        std::string key = field.substr(p + 1, q - p - 1);
        bool num = !key.empty() && std::all_of(key.begin(), key.end(), [](char d) { return std::isdigit(static_cast<unsigned char>(d)); });
        const auto idx = num ? text::parse_digits(key) : std::nullopt;
        if (num && !idx) throw raised("Too many decimal digits in format string");  // Python's ValueError
        v = in.getitem(v, idx ? value(*idx) : value(key));
        p = q + 1;
      }
    }
    if (v.is_undefined()) undefined_error(v);
    if (conv == "r" || conv == "a") v = value(v.repr());
    else if (conv == "s") v = value(v.str());
    out += format_spec(in, v, spec);
    check_growth(out.size());
  }
  in.charge(out.size());
  return out;
}

std::string format_spec(interp& in, const value& v, const std::string& spec) {
  if (spec.empty()) return v.str();
  // [[fill]align][sign][#][0][width][,_][.precision][type]
  size_t i = 0;
  std::string fill = " ";
  char align = 0;
  auto cp_len = [&](size_t at) {
    size_t n = 1;
    while (at + n < spec.size() && (static_cast<unsigned char>(spec[at + n]) & 0xc0) == 0x80) ++n;
    return n;
  };
  size_t fl = spec.empty() ? 0 : cp_len(0);
  if (fl < spec.size() && std::strchr("<>^=", spec[fl])) {
    fill = spec.substr(0, fl);
    align = spec[fl];
    i = fl + 1;
  } else if (std::strchr("<>^=", spec[0])) {
    align = spec[0];
    i = 1;
  }
  char sign = 0;
  if (i < spec.size() && std::strchr("+- ", spec[i])) sign = spec[i++];
  bool alt = false;
  if (i < spec.size() && spec[i] == '#') alt = true, ++i;
  if (i < spec.size() && spec[i] == '0') {
    if (!align) fill = "0", align = '=';
    ++i;
  }
  // digits read as text first: a run past int64 is Python's "Too many decimal digits in
  // format string", not a signed overflow
  auto digits = [&]() {
    size_t b = i;
    while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) ++i;
    if (b == i) return int64_t{0};
    auto n = text::parse_digits(std::string_view(spec).substr(b, i - b));
    if (!n || *n > INT32_MAX) throw raised("Too many decimal digits in format string");
    return *n;
  };
  int64_t width = digits();
  if (width > (1 << 20)) in.fail_limit("format width too large");
  char group = 0;
  if (i < spec.size() && (spec[i] == ',' || spec[i] == '_')) group = spec[i++];
  int prec = -1;
  if (i < spec.size() && spec[i] == '.') {
    ++i;
    const int64_t p = digits();
    if (p > (1 << 20)) in.fail_limit("format precision too large");
    prec = static_cast<int>(p);
  }
  char type = i < spec.size() ? spec[i] : 0;
  std::string body;
  if (v.is_string()) {
    if (type && type != 's') throw raised(std::string("Unknown format code '") + type + "' for object of type 'str'");
    body = v.as_string();
    if (prec >= 0) body = text::utf8([&] { auto c = text::cpts(body); c.resize(std::min<size_t>(c.size(), prec)); return c; }());
    return pad(body, width, align ? (align == '=' ? '<' : align) : '<', fill);
  }
  if (!v.is_number()) return pad(v.str(), width, align ? align : '<', fill);
  bool neg = false;
  char buf[512];
  if (type == 0 && v.is_float() && prec < 0) {
    body = float_repr(v.as_double());
  } else if (type == 0 || type == 'd' || type == 'n' || type == 'x' || type == 'X' || type == 'o' || type == 'b') {
    if (v.is_float() && type != 0) throw raised(std::string("Unknown format code '") + type + "' for object of type 'float'");
    if (v.is_float()) {
      std::snprintf(buf, sizeof buf, "%.*g", prec, v.as_double());
      body = buf;
    } else {
      int64_t x = v.as_int();
      neg = x < 0;
      uint64_t u = neg ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
      if (type == 'x' || type == 'X' || type == 'o') {
        std::snprintf(buf, sizeof buf, type == 'x' ? "%llx" : type == 'X' ? "%llX" : "%llo", static_cast<unsigned long long>(u));
        body = (alt ? (type == 'o' ? "0o" : type == 'x' ? "0x" : "0X") : "") + std::string(buf);
      } else if (type == 'b') {
        body.clear();
        do body.insert(body.begin(), char('0' + (u & 1))); while (u >>= 1);
        if (alt) body = "0b" + body;
      } else {
        body = std::to_string(u);
      }
    }
  } else if (std::strchr("eEfFgG%", type)) {
    double d = v.as_double();
    neg = std::signbit(d) && !std::isnan(d);
    if (neg) d = -d;
    if (type == '%') d *= 100;
    std::string f = std::string("%") + (alt ? "#" : "") + "." + std::to_string(prec < 0 ? 6 : prec) + (type == '%' ? 'f' : type);
    std::snprintf(buf, sizeof buf, f.c_str(), d);
    body = buf;
    if (type == '%') body += '%';
  } else {
    throw raised(std::string("Unknown format code '") + type + "' for object of type '" + type_name(v) + "'");
  }
  if (!body.empty() && body[0] == '-') neg = true, body.erase(0, 1);
  if (group) {
    size_t dot = body.find_first_not_of("0123456789");
    if (dot == std::string::npos) dot = body.size();
    std::string g;
    for (size_t k = 0; k < dot; ++k) {
      if (k && (dot - k) % 3 == 0) g += group;
      g += body[k];
    }
    body = g + body.substr(dot);
  }
  std::string sgn = neg ? "-" : sign == '+' ? "+" : sign == ' ' ? " " : "";
  if (align == '=') {
    int64_t n = static_cast<int64_t>(utf8_length(body) + sgn.size());
    std::string f;
    for (int64_t k = n; k < width; ++k) f += fill;
    return sgn + f + body;
  }
  return pad(sgn + body, width, align ? align : '>', fill);
}

}  // namespace gguf::jinja
