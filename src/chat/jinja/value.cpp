#include "chat/jinja/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include <nlohmann/json.hpp>

#include "chat/jinja/runtime.h"
#include "vocab/unicode/unicode.h"

namespace gguf::jinja {


namespace {
using detail::boxed;
using string_box = boxed<std::string>;
using list_box = boxed<std::vector<value>>;
using dict_box = boxed<std::vector<std::pair<value, value>>>;
using function_box = boxed<function_obj>;
using object_box = boxed<std::shared_ptr<object>>;

thread_local interp* g_render = nullptr;
}  // namespace

value object::attr(std::string_view, interp&) { return value::undefined(); }
value object::call(arguments&, interp&) { throw raised("object is not callable"); }
std::string object::str() const { return "<object>"; }
value object::call_method(std::string_view name, arguments&, interp&) {
  throw raised("object has no method '" + std::string(name) + "'");
}

const value* arguments::get(size_t i, std::string_view name) const {
  if (i < pos.size()) return &pos[i];
  return kwarg(name);
}
const value* arguments::kwarg(std::string_view name) const {
  for (const auto& [k, v] : kw)
    if (k == name) return &v;
  return nullptr;
}

counted::counted() noexcept : shared(g_render == nullptr) {}
void value::destroy(counted* p) noexcept { delete p; }

value::value(std::string s) : k_(kind::string), p_(new string_box(std::move(s))) {}

value value::undefined(std::string hint) {
  value v;
  if (!hint.empty()) v.p_ = new string_box(std::move(hint));
  return v;
}
value value::make_list(std::vector<value> items) { return value(kind::list, new list_box(std::move(items))); }
value value::make_tuple(std::vector<value> items) {
  value v = make_list(std::move(items));
  v.k_ = kind::tuple;
  return v;
}
value value::make_generator(std::vector<value> items) {
  value v = make_list(std::move(items));
  v.gen_ = true;
  return v;
}
value value::make_markup(std::string s) {
  value v(std::move(s));
  v.gen_ = true;
  return v;
}
value value::make_group(value grouper, value list) {
  value v = make_tuple({std::move(grouper), std::move(list)});
  v.gen_ = true;
  return v;
}
value value::make_dict() { return value(kind::dict, new dict_box()); }
value value::make_namespace() {
  value v = make_dict();
  v.k_ = kind::ns;
  return v;
}
value value::function(std::string name, native_fn fn) {
  return function(function_obj{std::move(name), std::move(fn), nullptr, {}});
}
value value::function(function_obj f) { return value(kind::callable, new function_box(std::move(f))); }
value value::make_object(std::shared_ptr<object> o) { return value(kind::object, new object_box(std::move(o))); }

std::string& value::unshared_string() noexcept { return static_cast<string_box*>(p_)->v; }
const std::string& value::undefined_hint() const noexcept {
  return k_ == kind::undefined && p_ ? static_cast<const string_box*>(p_)->v : detail::empty_string;
}
std::vector<value>& value::mutable_items() { return static_cast<list_box*>(p_)->v; }
const function_obj& value::fn() const noexcept { return static_cast<const function_box*>(p_)->v; }
object& value::obj() const noexcept { return *static_cast<const object_box*>(p_)->v; }

const value* value::find(std::string_view key) const {
  for (const auto& [k, v] : entries())
    if (k.k_ == kind::string && k.as_string() == key) return &v;
  return nullptr;
}
const value* value::find(const value& key) const {
  if (key.k_ == kind::string) return find(std::string_view(key.as_string()));
  for (const auto& [k, v] : entries())
    if (k == key) return &v;
  return nullptr;
}
void value::set(value key, value v) {
  auto& e = static_cast<dict_box*>(p_)->v;
  for (auto& [k, old] : e)
    if (k == key) {
      old = std::move(v);
      return;
    }
  e.emplace_back(std::move(key), std::move(v));
}
void value::set(std::string_view key, value v) {
  auto& e = static_cast<dict_box*>(p_)->v;
  for (auto& [k, old] : e)
    if (k.k_ == kind::string && k.as_string() == key) {
      old = std::move(v);
      return;
    }
  e.emplace_back(value(std::string(key)), std::move(v));
}
void value::set_new(value key, value v) {
  static_cast<dict_box*>(p_)->v.emplace_back(std::move(key), std::move(v));
}
void value::push_back(value v) { static_cast<list_box*>(p_)->v.push_back(std::move(v)); }
void value::clear_namespace() {
  if (k_ != kind::ns) return;
  std::vector<std::pair<value, value>> gone;
  gone.swap(static_cast<dict_box*>(p_)->v);
  release_values(gone);
}

size_t utf8_length(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

size_t value::size() const {
  switch (k_) {
    case kind::string: return utf8_length(as_string());
    case kind::list:
    case kind::tuple: return items().size();
    case kind::dict:
    case kind::ns: return entries().size();
    default: return 0;
  }
}

bool value::truthy() const {
  switch (k_) {
    case kind::undefined:
    case kind::none: return false;
    case kind::boolean: return u_.b;
    case kind::integer: return u_.i != 0;
    case kind::floating: return u_.d != 0;
    case kind::string: return !as_string().empty();
    case kind::list: return gen_ || !items().empty();
    case kind::tuple: return !items().empty();
    case kind::dict: return !entries().empty();
    default: return true;
  }
}

bool value::same(const value& o) const noexcept {
  if (k_ != o.k_) return false;
  switch (k_) {
    case kind::undefined:
    case kind::none: return true;
    case kind::boolean: return u_.b == o.u_.b;
    case kind::integer: return u_.i == o.u_.i;
    case kind::floating: return u_.d == o.u_.d;
    default: return p_ == o.p_;
  }
}

bool operator==(const value& a, const value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.k_ == kind::floating || b.k_ == kind::floating) return a.as_double() == b.as_double();
    return a.as_int() == b.as_int();
  }
  if (a.k_ != b.k_) return false;
  switch (a.k_) {
    case kind::undefined:
    case kind::none: return true;
    case kind::string: return a.p_ == b.p_ || a.as_string() == b.as_string();
    case kind::list:
    case kind::tuple: {
      if (a.p_ == b.p_) return true;  // Python compares items by identity first
      nesting_guard g(" in comparison");
      const auto &x = a.items(), &y = b.items();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!(x[i] == y[i])) return false;
      return true;
    }
    case kind::dict: {
      if (a.p_ == b.p_) return true;
      if (a.entries().size() != b.entries().size()) return false;
      nesting_guard g(" in comparison");
      for (const auto& [k, v] : a.entries()) {
        const value* o = b.find(k);
        if (!o || !(*o == v)) return false;
      }
      return true;
    }
    default: return a.p_ == b.p_;
  }
}

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view s(buf, r.ptr - buf);
  std::string out;
  if (s[0] == '-') {
    out += '-';
    s.remove_prefix(1);
  }
  size_t e = s.find('e');
  int exp = std::atoi(std::string(s.substr(e + 1)).c_str());
  std::string digits;
  for (char c : s.substr(0, e))
    if (c != '.') digits += c;
  int n = static_cast<int>(digits.size());
  if (exp >= -5 + 1 && exp < 16) {
    int decpt = exp + 1;
    if (decpt <= 0) {
      out += "0." + std::string(-decpt, '0') + digits;
    } else if (decpt >= n) {
      out += digits + std::string(decpt - n, '0') + ".0";
    } else {
      out += digits.substr(0, decpt) + "." + digits.substr(decpt);
    }
  } else {
    out += digits[0];
    if (n > 1) out += "." + digits.substr(1);
    out += exp < 0 ? "e-" : "e+";
    int a = exp < 0 ? -exp : exp;
    if (a < 10) out += '0';
    out += std::to_string(a);
  }
  return out;
}

namespace {
bool printable(uint32_t c) {
  if (c < 0x20 || c == 0x7f) return false;
  if (c < 0x7f) return true;
  if (c <= 0xa0 || c == 0xad) return false;
  if (c == 0x1680 || (c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202f) ||
      (c >= 0x205f && c <= 0x2064) || c == 0x3000 || c == 0xfeff || (c >= 0xd800 && c <= 0xdfff) ||
      (c >= 0xe000 && c <= 0xf8ff) || c == 0xfff9 || c == 0xfffa || c == 0xfffb || c >= 0xf0000)
    return false;
  return true;
}
void append_hex(std::string& out, uint32_t c, int digits) {
  static const char* hx = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) out += hx[(c >> (4 * i)) & 15];
}
}  // namespace

void append_string_repr(std::string& out, std::string_view s) {
  char q = '\'';
  if (s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos) q = '"';
  out += q;
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      if (c == '\\' || c == static_cast<unsigned char>(q)) {
        out += '\\';
        out += char(c);
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else if (c < 0x20 || c == 0x7f) {
        out += "\\x";
        append_hex(out, c, 2);
      } else {
        out += char(c);
      }
      continue;
    }
    uint32_t cpt = 0;
    size_t n = vocab_detail::utf8_decode_strict(s, i, cpt);
    if (n == 0) {  // not UTF-8: shown as the byte (Python would have failed earlier)
      out += "\\x";
      append_hex(out, c, 2);
      ++i;
      continue;
    }
    if (printable(cpt)) {
      out.append(s.substr(i, n));
    } else if (cpt < 0x100) {
      out += "\\x";
      append_hex(out, cpt, 2);
    } else if (cpt < 0x10000) {
      out += "\\u";
      append_hex(out, cpt, 4);
    } else {
      out += "\\U";
      append_hex(out, cpt, 8);
    }
    i += n;
  }
  out += q;
}

void value::append_str(std::string& out) const {
  switch (k_) {
    case kind::undefined: return;
    case kind::string: out += as_string(); return;
    case kind::callable: out += "<" + fn().name + ">"; return;
    case kind::object: out += obj().str(); return;
    default: append_repr(out);
  }
}

std::string value::str() const {
  if (k_ == kind::string) return as_string();
  std::string s;
  append_str(s);
  return s;
}

namespace {
thread_local std::vector<const void*> g_in_repr;  // containers whose repr is being written
struct repr_enter {
  bool again;
  explicit repr_enter(const void* id) : again(std::find(g_in_repr.begin(), g_in_repr.end(), id) != g_in_repr.end()) {
    if (!again) g_in_repr.push_back(id);
  }
  ~repr_enter() {
    if (!again) g_in_repr.pop_back();
  }
};
}  // namespace

void value::append_repr(std::string& out) const {
  switch (k_) {
    case kind::undefined: out += "Undefined"; return;
    case kind::none: out += "None"; return;
    case kind::boolean: out += u_.b ? "True" : "False"; return;
    case kind::integer: out += std::to_string(u_.i); return;
    case kind::floating: out += float_repr(u_.d); return;
    case kind::string: append_string_repr(out, as_string()); return;
    case kind::list:
    case kind::tuple: {
      if (gen_ && k_ == kind::list) {
        out += "<generator object>";
        return;
      }
      bool t = k_ == kind::tuple;
      nesting_guard g(" while getting the repr of an object");
      repr_enter self(p_);
      if (self.again && !t) {  // a list that holds itself (through a namespace)
        out += "[...]";
        return;
      }
      out += t ? '(' : '[';
      const auto& it = items();
      for (size_t i = 0; i < it.size(); ++i) {
        if (i) out += ", ";
        it[i].append_repr(out);
        check_growth(out.size());
      }
      if (t && it.size() == 1) out += ',';
      out += t ? ')' : ']';
      return;
    }
    case kind::dict:
    case kind::ns: {
      if (k_ == kind::ns) out += "<Namespace ";
      nesting_guard g(" while getting the repr of an object");
      repr_enter self(p_);
      if (self.again) {  // a namespace that holds itself: its dict prints as {...}
        out += "{...}";
        if (k_ == kind::ns) out += '>';
        return;
      }
      out += '{';
      bool first = true;
      for (const auto& [k, v] : entries()) {
        if (!first) out += ", ";
        first = false;
        k.append_repr(out);
        out += ": ";
        v.append_repr(out);
        check_growth(out.size());
      }
      out += '}';
      if (k_ == kind::ns) out += '>';
      return;
    }
    case kind::callable: out += "<" + fn().name + ">"; return;
    case kind::object: out += obj().str(); return;
  }
}

std::string value::repr() const {
  std::string s;
  append_repr(s);
  return s;
}

template <class J>
value value_from_json(const J& j) {
  switch (j.type()) {
    case J::value_t::null: return value::none();
    case J::value_t::boolean: return value(j.template get<bool>());
    case J::value_t::number_integer: return value(j.template get<int64_t>());
    case J::value_t::number_unsigned: {
      auto u = j.template get<uint64_t>();
      if (u <= static_cast<uint64_t>(INT64_MAX)) return value(static_cast<int64_t>(u));
      return value(static_cast<double>(u));
    }
    case J::value_t::number_float: return value(j.template get<double>());
    case J::value_t::string: return value(j.template get_ref<const std::string&>());
    case J::value_t::array: {
      std::vector<value> items;
      items.reserve(j.size());
      for (const auto& e : j) items.push_back(value_from_json(e));
      return value::make_list(std::move(items));
    }
    case J::value_t::object: {
      value d = value::make_dict();
      for (const auto& [k, v] : j.items()) d.set_new(value(k), value_from_json(v));
      return d;
    }
    default: return value::none();
  }
}

value value::from_json(const nlohmann::json& j) { return value_from_json(j); }
value value::from_json(const nlohmann::ordered_json& j) { return value_from_json(j); }

namespace {
std::string json_key(const value& k) {
  switch (k.type()) {
    case kind::string: return k.as_string();
    case kind::integer: return std::to_string(k.as_int());
    case kind::floating: return float_repr(k.as_double());
    case kind::boolean: return k.as_bool() ? "true" : "false";
    case kind::none: return "null";
    default: throw raised("keys must be str, int, float, bool or None, not " + k.repr());
  }
}
const char* json_type_name(const value& v) {
  switch (v.type()) {
    case kind::undefined: return "Undefined";
    case kind::ns: return "Namespace";
    case kind::callable: return "function";
    default: return "object";
  }
}
}  // namespace

void check_growth(size_t bytes) {
  if (!g_render) return;
  g_render->step();
  uint64_t cap = g_render->lims().max_memory_bytes;
  if (bytes > cap) g_render->fail_limit("memory limit of " + std::to_string(cap) + " bytes reached (one string)");
}

growth_scope::growth_scope(interp& in) : prev_(g_render) { g_render = &in; }
growth_scope::growth_scope() : prev_(g_render) { g_render = nullptr; }
growth_scope::~growth_scope() { g_render = prev_; }

void dumps(std::string& out, const value& v, const dumps_options& o, int depth) {
  if (depth > 512) throw raised("maximum recursion depth exceeded while encoding a JSON object");
  check_growth(out.size());
  auto newline = [&](int level) {
    out += '\n';
    for (int i = 0; i < level; ++i) out += o.indent;
    check_growth(out.size());
  };
  switch (v.type()) {
    case kind::none: out += "null"; return;
    case kind::boolean: out += v.as_bool() ? "true" : "false"; return;
    case kind::integer: out += std::to_string(v.as_int()); return;
    case kind::floating: {
      double d = v.as_double();
      if (std::isnan(d)) out += "NaN";
      else if (std::isinf(d)) out += d < 0 ? "-Infinity" : "Infinity";
      else out += float_repr(d);
      return;
    }
    case kind::string: {
      const std::string& s = v.as_string();
      out += '"';
      for (size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
          case '"': out += "\\\""; break;
          case '\\': out += "\\\\"; break;
          case '\n': out += "\\n"; break;
          case '\r': out += "\\r"; break;
          case '\t': out += "\\t"; break;
          case '\b': out += "\\b"; break;
          case '\f': out += "\\f"; break;
          default:
            if (c < 0x20) {
              out += "\\u00";
              append_hex(out, c, 2);
            } else if (c >= 0x80 && o.ensure_ascii) {
              uint32_t cpt = 0;
              size_t n = vocab_detail::utf8_decode_lenient(s, i, cpt);
              if (cpt >= 0x10000) {
                cpt -= 0x10000;
                out += "\\u";
                append_hex(out, 0xd800 + (cpt >> 10), 4);
                out += "\\u";
                append_hex(out, 0xdc00 + (cpt & 0x3ff), 4);
              } else {
                out += "\\u";
                append_hex(out, cpt, 4);
              }
              i += n - 1;
            } else {
              out += char(c);
            }
        }
      }
      out += '"';
      return;
    }
    case kind::list:
    case kind::tuple: {
      if (v.is_generator()) throw raised("Object of type generator is not JSON serializable");
      const auto& it = v.items();
      if (it.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (size_t i = 0; i < it.size(); ++i) {
        if (i) out += o.item_sep;
        if (o.has_indent) newline(depth + 1);
        dumps(out, it[i], o, depth + 1);
      }
      if (o.has_indent) newline(depth);
      out += ']';
      return;
    }
    case kind::dict: {
      const auto& e = v.entries();
      if (e.empty()) {
        out += "{}";
        return;
      }
      std::vector<std::pair<std::string, const value*>> kv;
      kv.reserve(e.size());
      for (const auto& [k, x] : e) kv.emplace_back(json_key(k), &x);
      if (o.sort_keys)
        std::stable_sort(kv.begin(), kv.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      out += '{';
      for (size_t i = 0; i < kv.size(); ++i) {
        if (i) out += o.item_sep;
        if (o.has_indent) newline(depth + 1);
        dumps(out, value(kv[i].first), o, depth + 1);
        out += o.key_sep;
        dumps(out, *kv[i].second, o, depth + 1);
      }
      if (o.has_indent) newline(depth);
      out += '}';
      return;
    }
    default: throw raised(std::string("Object of type ") + json_type_name(v) + " is not JSON serializable");
  }
}

}  // namespace gguf::jinja
