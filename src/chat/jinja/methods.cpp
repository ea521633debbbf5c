// Attribute and item access under jinja2's ImmutableSandboxedEnvironment, and the
// methods of str, dict and list that templates call.
//
// jinja2's `obj.name` tries the Python attribute first, then the item; `obj[key]` the
// item first, then the attribute. So `message.items` is the dict method, not a key named
// "items". The sandbox refuses methods that mutate a list or dict (append, pop, update,
// ...): jinja2 raises SecurityError when such a method is called, and so do we.
#include <optional>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "chat/jinja/runtime.h"
#include "chat/jinja/str_format.h"
#include "chat/jinja/text.h"

namespace gguf::jinja {

using namespace std::string_view_literals;

namespace {

constexpr std::string_view str_methods[] = {
    "capitalize", "casefold", "center", "count", "endswith", "find", "format", "index", "isalnum", "isalpha",
    "isdecimal", "isdigit", "islower", "isnumeric", "isspace", "istitle", "isupper", "join", "ljust", "lower",
    "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition",
    "rsplit", "rstrip", "split", "splitlines", "startswith", "strip", "swapcase", "title", "upper", "zfill"};
constexpr std::string_view dict_safe[] = {"copy", "get", "items", "keys", "values"};
constexpr std::string_view dict_unsafe[] = {"clear", "pop", "popitem", "setdefault", "update"};
// jinja2 3.1's sandbox lists MutableSequence's append, extend, insert, remove, reverse,
// sort as unsafe, not pop and clear: those two work (and change the list, shared as in Python).
constexpr std::string_view list_safe[] = {"copy", "count", "index", "pop", "clear"};
constexpr std::string_view list_unsafe[] = {"append", "extend", "insert", "remove", "reverse", "sort"};

template <size_t N>
bool in_set(const std::string_view (&set)[N], std::string_view n) {
  for (std::string_view s : set)
    if (n == s) return true;
  return false;
}

std::string obj_repr(const value& v) {
  if (v.is_none()) return "'None'";
  return std::string("'") + type_name(v) + " object'";
}

value no_element(const value& obj, const value& key) {
  std::string t = obj.is_none() ? "None" : std::string(type_name(obj)) + " object";
  return value::undefined(t + " has no element " + key.repr());
}

value no_attr(const value& obj, std::string_view name) {
  return value::undefined(obj_repr(obj) + " has no attribute '" + std::string(name) + "'");
}

value unsafe(const value& obj, std::string_view name) {
  return value::undefined("access to attribute '" + std::string(name) + "' of '" + type_name(obj) +
                          "' object is unsafe.");
}

struct bound_method : object {
  value self;
  std::string name;
  ~bound_method() override { release_values(self); }
  value call(arguments& a, interp& in) override { return in.call_method(self, name, a); }
  std::string str() const override {
    return "<built-in method " + name + " of " + type_name(self) + " object>";
  }
  bool callable() const override { return true; }
};

value bind(const value& self, std::string_view name) {
  auto b = std::make_shared<bound_method>();
  b->self = self;
  b->name = std::string(name);
  return value::make_object(std::move(b));
}

// A Python method's positional argument with a default.
value arg(const arguments& a, size_t i, const value& def = value()) { return i < a.pos.size() ? a.pos[i] : def; }

std::optional<std::string> opt_str(const value& v, const char* what) {
  if (v.is_none() || v.is_undefined()) return std::nullopt;
  if (!v.is_string()) throw raised(std::string(what) + " arg must be None or str");
  return v.as_string();
}

int64_t int_arg(const value& v, int64_t def) {
  if (v.is_undefined() || v.is_none()) return def;
  if (!v.is_int() && !v.is_bool())
    throw raised(std::string("'") + type_name(v) + "' object cannot be interpreted as an integer");
  return v.as_int();
}

value str_list(std::vector<std::string> parts, interp& in) {
  std::vector<value> items;
  items.reserve(parts.size());
  for (auto& p : parts) items.emplace_back(std::move(p));
  in.charge(items.size() * sizeof(value));
  return value::make_list(std::move(items));
}

}  // namespace

value interp::getattr(const value& obj, std::string_view name) {
  switch (obj.type()) {
    case kind::undefined:
      if (llama()) return value::undefined(obj.undefined_hint());
      undefined_error(obj);
    case kind::dict:
      if (in_set(dict_safe, name)) return bind(obj, name);
      if (in_set(dict_unsafe, name)) return unsafe(obj, name);
      if (const value* v = obj.find(name)) return *v;
      return no_attr(obj, name);
    case kind::ns:
      if (const value* v = obj.find(name)) return *v;
      return value::undefined("'Namespace' object has no attribute '" + std::string(name) + "'");
    case kind::string:
      if (in_set(str_methods, name)) return bind(obj, name);
      return no_attr(obj, name);
    case kind::list:
      if (in_set(list_safe, name)) return bind(obj, name);
      if (in_set(list_unsafe, name)) return unsafe(obj, name);
      return no_attr(obj, name);
    case kind::tuple:
      if (name == "count"sv || name == "index"sv) return bind(obj, name);
      if (obj.is_group() && name == "grouper"sv) return obj.items()[0];
      if (obj.is_group() && name == "list"sv) return obj.items()[1];
      return no_attr(obj, name);
    case kind::object: {
      if (obj.obj().has_method(name)) return bind(obj, name);
      return obj.obj().attr(name, *this);
    }
    case kind::integer:
    case kind::boolean:
      if (name == "real"sv || name == "numerator"sv) return value(obj.as_int());
      if (name == "imag"sv) return value(int64_t{0});
      if (name == "denominator"sv) return value(int64_t{1});
      return no_attr(obj, name);
    case kind::floating:
      if (name == "real"sv) return obj;
      if (name == "imag"sv) return value(0.0);
      return no_attr(obj, name);
    default: return no_attr(obj, name);
  }
}

value interp::getitem(const value& obj, const value& key) {
  switch (obj.type()) {
    case kind::undefined:
      if (llama()) return value::undefined(obj.undefined_hint());
      undefined_error(obj);
    case kind::dict:
    case kind::ns:
      if (const value* v = obj.find(key)) return *v;
      if (key.is_string()) return getattr(obj, key.as_string());
      return no_element(obj, key);
    case kind::list:
    case kind::tuple:
    case kind::string: {
      if (key.is_string()) return getattr(obj, key.as_string());
      if (!key.is_int() && !key.is_bool()) {
        if (key.is_undefined()) undefined_error(key);
        return no_element(obj, key);
      }
      int64_t i = key.as_int();
      if (obj.is_string()) {
        const std::string& s = obj.as_string();
        auto cp = text::cpts(s);
        int64_t n = static_cast<int64_t>(cp.size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) return no_element(obj, key);
        return value(text::utf8({cp[i]}));
      }
      if (obj.is_generator()) throw raised("'generator' object is not subscriptable");
      const auto& it = obj.items();
      int64_t n = static_cast<int64_t>(it.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) return no_element(obj, key);
      return it[i];
    }
    case kind::object:
      if (key.is_string()) return obj.obj().attr(key.as_string(), *this);
      return no_element(obj, key);
    default:
      if (key.is_string()) return no_attr(obj, key.as_string());
      return no_element(obj, key);
  }
}

namespace {

value string_method(interp& in, const std::string& s, std::string_view n, arguments& a) {
  if (n == "strip"sv || n == "lstrip"sv || n == "rstrip"sv) {
    auto chars = opt_str(arg(a, 0), n == "strip"sv ? "strip" : n == "lstrip"sv ? "lstrip" : "rstrip");
    return value(text::strip(s, chars, n != "rstrip", n != "lstrip"));
  }
  if (n == "split"sv || n == "rsplit"sv) {
    const value* sv = a.get(0, "sep");
    auto sep = opt_str(sv ? *sv : value::none(), "sep");
    if (sep && sep->empty()) throw raised("empty separator");
    const value* m = a.get(1, "maxsplit");
    return str_list(text::split(s, sep, m ? int_arg(*m, -1) : -1, n == "rsplit"sv), in);
  }
  if (n == "splitlines"sv) {
    const value* k = a.get(0, "keepends");
    return str_list(text::splitlines(s, k && k->truthy()), in);
  }
  if (n == "startswith"sv || n == "endswith"sv) {
    const value& p = arg(a, 0);
    std::vector<std::string> cands;
    if (p.is_string()) cands.push_back(p.as_string());
    else if (p.is_tuple())
      for (const auto& x : p.items()) {
        if (!x.is_string()) throw raised("tuple for " + std::string(n) + " must only contain str");
        cands.push_back(x.as_string());
      }
    else
      throw raised(std::string(n) + " first arg must be str or a tuple of str, not " + type_name(p));
    for (const auto& c : cands) {
      if (n == "startswith"sv ? s.compare(0, c.size(), c) == 0 && s.size() >= c.size()
                            : s.size() >= c.size() && s.compare(s.size() - c.size(), c.size(), c) == 0)
        return value(true);
    }
    return value(false);
  }
  if (n == "upper"sv) return value(text::to_upper(s));
  if (n == "lower"sv || n == "casefold"sv) return value(text::to_lower(s));
  if (n == "title"sv) return value(text::to_title(s));
  if (n == "capitalize"sv) return value(text::capitalize(s));
  if (n == "swapcase"sv) {
    auto v = text::cpts(s);
    for (auto& c : v) c = text::is_cased_upper(c) ? text::lower(c) : text::upper(c);
    return value(text::utf8(v));
  }
  if (n == "replace"sv) {
    const value &o = arg(a, 0), &w = arg(a, 1);
    if (!o.is_string() || !w.is_string()) throw raised("replace() argument must be str");
    int64_t count = int_arg(arg(a, 2), -1);
    const std::string &from = o.as_string(), &to = w.as_string();
    std::string out;
    if (from.empty()) {
      auto v = text::cpts(s);
      int64_t done = 0;
      for (size_t i = 0; i <= v.size(); ++i) {
        if (count < 0 || done < count) out += to, ++done;
        if (i < v.size()) out += text::utf8({v[i]});
        check_growth(out.size());
      }
    } else {
      size_t pos = 0;
      int64_t done = 0;
      for (;;) {
        size_t f = count >= 0 && done >= count ? std::string::npos : text::find(s, from, pos);
        if (f == std::string::npos) break;
        out.append(s, pos, f - pos);
        out += to;
        in.charge(to.size());
        pos = f + from.size();
        ++done;
      }
      out.append(s, pos);
    }
    in.charge(out.size());
    return value(std::move(out));
  }
  if (n == "find"sv || n == "rfind"sv || n == "index"sv || n == "rindex"sv || n == "count"sv) {
    const value& sub = arg(a, 0);
    if (!sub.is_string()) throw raised("must be str, not " + std::string(type_name(sub)));
    const std::string& t = sub.as_string();
    // start/end in code points
    const auto off = text::cpt_offsets(s);
    int64_t len = static_cast<int64_t>(off.size()) - 1;
    auto norm = [&](int64_t x) { return x < 0 ? std::max<int64_t>(0, x + len) : std::min(x, len); };
    int64_t st = norm(int_arg(arg(a, 1), 0)), en = norm(int_arg(arg(a, 2), len));
    size_t bs = off[st], be = std::max(bs, off[std::max(st, en)]);
    std::string_view win(s.data() + bs, be - bs);
    if (n == "count"sv) {
      if (t.empty()) return value(st > en ? int64_t{0} : en - st + 1);
      int64_t c = 0;
      for (size_t p = text::find(win, t); p != std::string_view::npos; p = text::find(win, t, p + t.size())) ++c;
      return value(c);
    }
    size_t f = n[0] == 'r' ? text::rfind(win, t) : text::find(win, t);
    if (f == std::string_view::npos) {
      if (n == "index"sv || n == "rindex"sv) throw raised("substring not found");
      return value(int64_t{-1});
    }
    return value(static_cast<int64_t>(std::lower_bound(off.begin(), off.end(), bs + f) - off.begin()));
  }
  if (n == "join"sv) {
    std::string out;
    bool first = true;
    for (const auto& x : in.iterate(arg(a, 0))) {
      if (!x.is_string())
        throw raised("sequence item: expected str instance, " + std::string(type_name(x)) + " found");
      if (!first) out += s;
      first = false;
      out += x.as_string();
      check_growth(out.size());
    }
    in.charge(out.size());
    return value(std::move(out));
  }
  if (n == "format"sv) return value(str_format(in, s, a));
  if (n == "center"sv || n == "ljust"sv || n == "rjust"sv) {
    int64_t w = int_arg(arg(a, 0), 0);
    if (w > (1 << 20)) in.fail_limit("width too large");
    // Python's fill is one character (a longer one would also repeat up to the width)
    std::string fill = " ";
    if (const value fv = arg(a, 1); !fv.is_undefined()) {
      if (!fv.is_string()) throw raised(std::string("The fill character must be a unicode character, not ") + type_name(fv));
      if (utf8_length(fv.as_string()) != 1) throw raised("The fill character must be exactly one character long");
      fill = fv.as_string();
    }
    char align = n == "center"sv ? '^' : n == "ljust"sv ? '<' : '>';
    if (n == "center"sv) {  // Python centers with the extra space on the right when odd... on the left when the width is odd
      int64_t len = static_cast<int64_t>(utf8_length(s));
      if (w <= len) return value(s);
      int64_t total = w - len, left = total / 2 + (total & w & 1);
      std::string out;
      for (int64_t i = 0; i < left; ++i) out += fill;
      out += s;
      for (int64_t i = 0; i < total - left; ++i) out += fill;
      return value(std::move(out));
    }
    return value(pad(s, w, align, fill));
  }
  if (n == "zfill"sv) {
    int64_t w = int_arg(arg(a, 0), 0);
    if (w > (1 << 20)) in.fail_limit("width too large");
    int64_t len = static_cast<int64_t>(utf8_length(s));
    if (w <= len) return value(s);
    size_t sign = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    return value(s.substr(0, sign) + std::string(w - len, '0') + s.substr(sign));
  }
  if (n == "partition"sv || n == "rpartition"sv) {
    const value& sep = arg(a, 0);
    if (!sep.is_string() || sep.as_string().empty()) throw raised("empty separator");
    const std::string& d = sep.as_string();
    size_t f = n == "partition"sv ? text::find(s, d) : text::rfind(s, d);
    if (f == std::string::npos)
      return n == "partition"sv ? value::make_tuple({value(s), value(""), value("")})
                              : value::make_tuple({value(""), value(""), value(s)});
    return value::make_tuple({value(s.substr(0, f)), value(d), value(s.substr(f + d.size()))});
  }
  if (n == "removeprefix"sv || n == "removesuffix"sv) {
    const value& x = arg(a, 0);
    if (!x.is_string()) throw raised(std::string(n) + "() argument must be str");
    const std::string& p = x.as_string();
    if (n == "removeprefix"sv && s.compare(0, p.size(), p) == 0 && s.size() >= p.size()) return value(s.substr(p.size()));
    if (n == "removesuffix"sv && s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0)
      return value(s.substr(0, s.size() - p.size()));
    return value(s);
  }
  auto all_of = [&](bool (*pred)(uint32_t)) {
    auto v = text::cpts(s);
    return value(!v.empty() && std::all_of(v.begin(), v.end(), pred));
  };
  if (n == "isalpha"sv) return all_of(text::is_alpha);
  if (n == "isdigit"sv || n == "isdecimal"sv || n == "isnumeric"sv) return all_of(text::is_digit);
  if (n == "isspace"sv) return all_of(text::is_space);
  if (n == "isalnum"sv) return all_of([](uint32_t c) { return text::is_alpha(c) || text::is_digit(c); });
  if (n == "islower"sv || n == "isupper"sv) {
    auto v = text::cpts(s);
    bool any = false;
    for (uint32_t c : v) {
      if (text::is_cased_upper(c)) {
        if (n == "islower"sv) return value(false);
        any = true;
      } else if (text::is_cased_lower(c)) {
        if (n == "isupper"sv) return value(false);
        any = true;
      }
    }
    return value(any);
  }
  if (n == "istitle"sv) return value(!s.empty() && text::to_title(s) == s && text::to_lower(s) != s);
  throw raised("'str' object has no attribute '" + std::string(n) + "'");
}

}  // namespace

// llama.cpp's methods of undefined and none (value_undefined_t / value_none_t::get_builtins):
// empty results instead of errors. nullopt: not one of them.
static std::optional<value> llama_empty_method(const value& obj, std::string_view name) {
  static constexpr std::string_view to_list[] = {"items", "map", "reject", "rejectattr", "select", "selectattr", "unique"};
  if (in_set(to_list, name)) return value::make_list();
  if (obj.is_none()) {
    if (name == "string"sv || name == "safe"sv) return value("None");
    if (name == "tojson"sv) return value("null");
    return std::nullopt;
  }
  static constexpr std::string_view undef_list[] = {"list", "reverse", "sort"};
  static constexpr std::string_view undef_str[] = {"capitalize", "join", "lower", "replace", "safe", "string",
                                                   "strip", "title", "truncate", "upper"};
  static constexpr std::string_view undef_int[] = {"length", "sum", "wordcount"};
  static constexpr std::string_view undef_undef[] = {"first", "last", "max", "min"};
  if (in_set(undef_list, name)) return value::make_list();
  if (in_set(undef_str, name)) return value("");
  if (in_set(undef_int, name)) return value(int64_t{0});
  if (in_set(undef_undef, name)) return value::undefined(std::string(name));
  return std::nullopt;
}

value interp::call_method(const value& obj, std::string_view name, arguments& a) {
  step();
  if (llama() && (obj.is_undefined() || obj.is_none()))
    if (auto v = llama_empty_method(obj, name)) return *v;
  switch (obj.type()) {
    case kind::undefined: undefined_error(obj);
    case kind::string:
      if (in_set(str_methods, name)) return string_method(*this, obj.as_string(), name, a);
      break;
    case kind::dict:
      if (name == "get"sv) {
        const value* k = a.get(0, "key");
        if (!k) throw raised("get expected at least 1 argument, got 0");
        if (const value* v = obj.find(*k)) return *v;
        const value* d = a.get(1, "default");
        return d ? *d : value::none();
      }
      if (name == "items"sv || name == "keys"sv || name == "values"sv) {
        std::vector<value> out;
        out.reserve(obj.entries().size());
        for (const auto& [k, v] : obj.entries())
          out.push_back(name == "items"sv ? value::make_tuple({k, v}) : name == "keys"sv ? k : v);
        charge(out.size() * sizeof(value) * 3);
        return value::make_list(std::move(out));
      }
      if (name == "copy"sv) {
        value d = value::make_dict();
        for (const auto& [k, v] : obj.entries()) d.set(k, v);
        return d;
      }
      if (in_set(dict_unsafe, name)) undefined_error(unsafe(obj, name));
      break;
    case kind::list:
    case kind::tuple:
      if (name == "count"sv || name == "index"sv) {
        const value& x = arg(a, 0);
        int64_t c = 0, i = 0;
        for (const auto& v : obj.items()) {
          if (v == x) {
            if (name == "index"sv) return value(i);
            ++c;
          }
          ++i;
        }
        if (name == "index"sv) throw raised(x.repr() + " is not in list");
        return value(c);
      }
      if (obj.is_list() && name == "copy"sv) return value::make_list(obj.items());
      if (obj.is_list() && name == "append"sv && llama()) {
        if (a.pos.size() != 1) throw raised("append: expects one argument");
        charge(sizeof(value));
        const_cast<value&>(obj).mutable_items().push_back(a.pos[0]);
        if (holds_values(a.pos[0]) || a.pos[0].is_callable()) may_hold_itself(obj);  // x.append(x)
        return obj;
      }
      if (obj.is_list() && name == "clear"sv) {
        const_cast<value&>(obj).mutable_items().clear();
        return value::none();
      }
      if (obj.is_list() && name == "pop"sv) {
        auto& it = const_cast<value&>(obj).mutable_items();
        if (it.empty()) throw raised("pop from empty list");
        int64_t n = static_cast<int64_t>(it.size());
        int64_t i = int_arg(arg(a, 0), -1);
        if (i < 0) i += n;
        if (i < 0 || i >= n) throw raised("pop index out of range");
        value r = it[i];
        it.erase(it.begin() + i);
        return r;
      }
      if (obj.is_list() && in_set(list_unsafe, name)) undefined_error(unsafe(obj, name));
      break;
    case kind::object:
      if (obj.obj().has_method(name)) return obj.obj().call_method(name, a, *this);
      break;
    default: break;
  }
  return call(getattr(obj, name), a);
}

}  // namespace gguf::jinja
