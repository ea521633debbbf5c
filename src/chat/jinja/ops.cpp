// Operators with Python semantics: arithmetic, comparison, membership, slicing, str % args.
#include <cmath>
#include <cstdio>
#include <optional>

#include "chat/jinja/runtime.h"
#include "chat/jinja/text.h"

namespace gguf::jinja {

using detail::binop;
using detail::cmpop;

const char* type_name(const value& v) {
  switch (v.type()) {
    case kind::undefined: return "Undefined";
    case kind::none: return "NoneType";
    case kind::boolean: return "bool";
    case kind::integer: return "int";
    case kind::floating: return "float";
    case kind::string: return "str";
    case kind::list: return v.is_generator() ? "generator" : "list";
    case kind::tuple: return "tuple";
    case kind::dict: return "dict";
    case kind::ns: return "Namespace";
    case kind::callable: return "function";
    case kind::object: return "object";
  }
  return "object";
}

void undefined_error(const value& u) {
  const std::string& h = u.undefined_hint();
  throw raised(h.empty() ? "value is undefined" : h);
}

namespace {

[[noreturn]] void unsupported(const char* op, const value& a, const value& b) {
  throw raised(std::string("unsupported operand type(s) for ") + op + ": '" + type_name(a) + "' and '" +
               type_name(b) + "'");
}

[[noreturn]] void overflow() { throw raised("integer overflow (Python would grow the integer; ours are 64-bit)"); }

int64_t add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) overflow();
  return r;
}
int64_t sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) overflow();
  return r;
}
int64_t mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) overflow();
  return r;
}

value repeat(interp& in, const value& seq, int64_t n) {
  // an empty sequence repeated is empty however large n is (no loop of n empty appends)
  if (n <= 0 || (seq.is_string() ? seq.as_string().empty() : seq.items().empty()))
    return seq.is_string() ? value("") : seq.is_tuple() ? value::make_tuple() : value::make_list();
  if (seq.is_string()) {
    const std::string& s = seq.as_string();
    in.charge_items(static_cast<uint64_t>(n), s.size());
    std::string r;
    r.reserve(s.size() * n);
    for (int64_t i = 0; i < n; ++i) r += s;
    return value(std::move(r));
  }
  const auto& it = seq.items();
  in.charge_items(static_cast<uint64_t>(n), it.size() * sizeof(value));
  std::vector<value> r;
  r.reserve(it.size() * n);
  for (int64_t i = 0; i < n; ++i) r.insert(r.end(), it.begin(), it.end());
  return seq.is_tuple() ? value::make_tuple(std::move(r)) : value::make_list(std::move(r));
}

double py_fmod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  if (m == 0) m = std::copysign(0.0, b);
  return m;
}

}  // namespace

value op_binary(interp& in, binop op, const value& a, const value& b) {
  if (in.llama() && (op == binop::add || op == binop::concat)) {
    // llama.cpp: a string and none/undefined concatenate with the null side as ""
    bool an = a.is_none() || a.is_undefined(), bn = b.is_none() || b.is_undefined();
    if ((an && b.is_string()) || (bn && a.is_string())) return an ? b : a;
  }
  if (op == binop::concat) {
    if (a.is_string() && b.is_string()) in.charge(a.as_string().size() + b.as_string().size());
    std::string s;
    a.append_str(s);
    b.append_str(s);
    if (!(a.is_string() && b.is_string())) in.charge(s.size());
    return value(std::move(s));
  }
  if (a.is_undefined()) undefined_error(a);
  if (b.is_undefined()) undefined_error(b);
  const bool ints = (a.is_int() || a.is_bool()) && (b.is_int() || b.is_bool());
  const bool nums = a.is_number() && b.is_number();
  switch (op) {
    case binop::add:
      if (ints) return value(add(a.as_int(), b.as_int()));
      if (nums) return value(a.as_double() + b.as_double());
      if (a.is_string() && b.is_string() && (a.is_markup() || b.is_markup())) {
        std::string l = a.is_markup() ? a.as_string() : html_escape(a.as_string());
        std::string r = b.is_markup() ? b.as_string() : html_escape(b.as_string());
        in.charge(l.size() + r.size());
        return value::make_markup(l + r);
      }
      if (a.is_string() && b.is_string()) {
        in.charge(a.as_string().size() + b.as_string().size());
        return value(a.as_string() + b.as_string());
      }
      if ((a.is_list() && b.is_list() && !a.is_generator() && !b.is_generator()) || (a.is_tuple() && b.is_tuple())) {
        in.charge((a.items().size() + b.items().size()) * sizeof(value));
        std::vector<value> items = a.items();
        items.insert(items.end(), b.items().begin(), b.items().end());
        return a.is_tuple() ? value::make_tuple(std::move(items)) : value::make_list(std::move(items));
      }
      if (a.is_string()) throw raised(std::string("can only concatenate str (not \"") + type_name(b) + "\") to str");
      if (a.is_list() || a.is_tuple())
        throw raised(std::string("can only concatenate ") + type_name(a) + " (not \"" + type_name(b) + "\") to " +
                     type_name(a));
      unsupported("+", a, b);
    case binop::sub:
      if (ints) return value(sub(a.as_int(), b.as_int()));
      if (nums) return value(a.as_double() - b.as_double());
      unsupported("-", a, b);
    case binop::mul:
      if (ints) return value(mul(a.as_int(), b.as_int()));
      if (nums) return value(a.as_double() * b.as_double());
      if ((a.is_string() || a.is_sequence()) && (b.is_int() || b.is_bool())) return repeat(in, a, b.as_int());
      if ((b.is_string() || b.is_sequence()) && (a.is_int() || a.is_bool())) return repeat(in, b, a.as_int());
      if (a.is_string() || b.is_string() || a.is_sequence() || b.is_sequence())
        throw raised(std::string("can't multiply sequence by non-int of type '") +
                     type_name(a.is_string() || a.is_sequence() ? b : a) + "'");
      unsupported("*", a, b);
    case binop::div:
      if (nums) {
        if (b.as_double() == 0) throw raised(ints ? "division by zero" : "float division by zero");
        return value(a.as_double() / b.as_double());
      }
      unsupported("/", a, b);
    case binop::floordiv:
      if (ints) {
        int64_t x = a.as_int(), y = b.as_int();
        if (y == 0) throw raised("integer division or modulo by zero");
        if (x == INT64_MIN && y == -1) overflow();
        int64_t q = x / y;
        if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
        return value(q);
      }
      if (nums) {
        double x = a.as_double(), y = b.as_double();
        if (y == 0) throw raised("float floor division by zero");
        return value(std::floor((x - py_fmod(x, y)) / y));
      }
      unsupported("//", a, b);
    case binop::mod:
      if (a.is_markup()) {  // Markup % args escapes the arguments
        auto esc = [](const value& x) { return x.is_string() && !x.is_markup() ? value(html_escape(x.as_string())) : x; };
        value args = b;
        if (b.is_tuple()) {
          std::vector<value> items;
          for (const auto& x : b.items()) items.push_back(esc(x));
          args = value::make_tuple(std::move(items));
        } else {
          args = esc(b);
        }
        return value::make_markup(percent_format(in, a.as_string(), args));
      }
      if (a.is_string()) return value(percent_format(in, a.as_string(), b));
      if (ints) {
        int64_t x = a.as_int(), y = b.as_int();
        if (y == 0) throw raised("integer modulo by zero");
        if (y == -1) return value(int64_t{0});
        int64_t m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) m += y;
        return value(m);
      }
      if (nums) {
        if (b.as_double() == 0) throw raised("float modulo");
        return value(py_fmod(a.as_double(), b.as_double()));
      }
      unsupported("%", a, b);
    case binop::pow:
      if (ints) {
        int64_t base = a.as_int(), e = b.as_int();
        if (e < 0) {
          if (base == 0) throw raised("0.0 cannot be raised to a negative power");
          return value(std::pow(static_cast<double>(base), static_cast<double>(e)));
        }
        int64_t acc = 1;
        while (e > 0) {
          in.step();
          if (e & 1) acc = mul(acc, base);
          e >>= 1;
          if (e) base = mul(base, base);
        }
        return value(acc);
      }
      if (nums) {
        if (a.as_double() == 0 && b.as_double() < 0) throw raised("0.0 cannot be raised to a negative power");
        return value(std::pow(a.as_double(), b.as_double()));
      }
      unsupported("** or pow()", a, b);
    case binop::concat: break;
  }
  return value();
}

namespace {
// <0, 0, >0; throws for unorderable types.
int order(const value& a, const value& b, const char* op) {
  if (a.is_undefined()) undefined_error(a);
  if (b.is_undefined()) undefined_error(b);
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) {
      double x = a.as_double(), y = b.as_double();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    int64_t x = a.as_int(), y = b.as_int();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_string() && b.is_string()) return a.as_string().compare(b.as_string());
  if ((a.is_list() && b.is_list()) || (a.is_tuple() && b.is_tuple())) {
    nesting_guard g(" in comparison");
    const auto &x = a.items(), &y = b.items();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (x[i] == y[i]) continue;
      return order(x[i], y[i], op);
    }
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  throw raised(std::string("'") + op + "' not supported between instances of '" + type_name(a) + "' and '" +
               type_name(b) + "'");
}
}  // namespace

bool op_contains(const value& c, const value& item) {
  switch (c.type()) {
    case kind::string:
      if (!item.is_string())
        throw raised(std::string("'in <string>' requires string as left operand, not ") + type_name(item));
      return text::find(c.as_string(), item.as_string()) != std::string::npos;
    case kind::list:
    case kind::tuple:
      for (const auto& v : c.items())
        if (v == item) return true;
      return false;
    case kind::dict:
    case kind::ns: return c.find(item) != nullptr;
    case kind::undefined: return false;
    default: throw raised(std::string("argument of type '") + type_name(c) + "' is not iterable");
  }
}

bool op_compare(cmpop op, const value& a, const value& b) {
  switch (op) {
    case cmpop::eq: return a == b;
    case cmpop::ne: return !(a == b);
    case cmpop::lt: return order(a, b, "<") < 0;
    case cmpop::le: return order(a, b, "<=") <= 0;
    case cmpop::gt: return order(a, b, ">") > 0;
    case cmpop::ge: return order(a, b, ">=") >= 0;
    case cmpop::in: return op_contains(b, a);
    case cmpop::notin: return !op_contains(b, a);
  }
  return false;
}

value op_slice(interp& in, const value& a, const value& start, const value& stop, const value& step_v) {
  auto as_index = [](const value& v, const char* what) -> std::optional<int64_t> {
    if (v.is_none() || v.is_undefined()) return std::nullopt;
    if (v.is_int() || v.is_bool()) return v.as_int();
    throw raised(std::string("slice ") + what + " must be an integer or None");
  };
  int64_t step = as_index(step_v, "indices").value_or(1);
  if (step == 0) throw raised("slice step cannot be zero");
  if (a.is_undefined()) undefined_error(a);
  // code points of a string, items of a sequence
  std::vector<std::string_view> cps;
  const bool is_str = a.is_string();
  if (is_str) {
    const std::string& s = a.as_string();
    for (size_t i = 0; i < s.size();) {
      size_t n = 1;
      while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xc0) == 0x80) ++n;
      cps.emplace_back(s.data() + i, n);
      i += n;
    }
  } else if (!a.is_sequence()) {
    throw raised(std::string("'") + type_name(a) + "' object is not subscriptable");
  }
  const int64_t len = is_str ? static_cast<int64_t>(cps.size()) : static_cast<int64_t>(a.items().size());
  auto clamp = [&](std::optional<int64_t> v, int64_t def) {
    if (!v) return def;
    int64_t x = *v;
    if (x < 0) x += len;
    if (step > 0) return std::clamp<int64_t>(x, 0, len);
    return std::clamp<int64_t>(x, -1, len - 1);
  };
  int64_t lo = clamp(as_index(start, "indices"), step > 0 ? 0 : len - 1);
  int64_t hi = clamp(as_index(stop, "indices"), step > 0 ? len : -1);
  std::string s;
  std::vector<value> items;
  for (int64_t i = lo; step > 0 ? i < hi : i > hi; i += step) {
    in.step();
    if (is_str) s += cps[i];
    else items.push_back(a.items()[i]);
  }
  if (is_str) return value(std::move(s));
  in.charge(items.size() * sizeof(value));
  return a.is_tuple() ? value::make_tuple(std::move(items)) : value::make_list(std::move(items));
}

// ---- str % args ----

std::string percent_format(interp& in, const std::string& fmt, const value& args) {
  std::vector<value> pos;
  const value* mapping = nullptr;
  if (args.is_tuple()) pos = args.items();
  else if (args.is_dict()) mapping = &args, pos.push_back(args);
  else pos.push_back(args);
  size_t next = 0;
  bool used_mapping = false;
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c != '%') {
      out += c;
      continue;
    }
    if (++i >= fmt.size()) throw raised("incomplete format");
    const value* arg = nullptr;
    if (fmt[i] == '(') {
      size_t e = fmt.find(')', i);
      if (e == std::string::npos) throw raised("incomplete format key");
      if (!mapping) throw raised("format requires a mapping");
      std::string key = fmt.substr(i + 1, e - i - 1);
      arg = mapping->find(std::string_view(key));
      if (!arg) throw raised("'" + key + "'");
      used_mapping = true;
      i = e + 1;
    }
    std::string flags;
    while (i < fmt.size() && std::string_view("-+ #0").find(fmt[i]) != std::string_view::npos) flags += fmt[i++];
    auto number = [&](std::string& into) {
      if (i < fmt.size() && fmt[i] == '*') {
        if (next >= pos.size()) throw raised("not enough arguments for format string");
        into = std::to_string(pos[next++].as_int());
        ++i;
        return;
      }
      while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) into += fmt[i++];
    };
    std::string width, prec;
    number(width);
    bool has_prec = false;
    if (i < fmt.size() && fmt[i] == '.') {
      ++i;
      has_prec = true;
      number(prec);
    }
    while (i < fmt.size() && (fmt[i] == 'l' || fmt[i] == 'h' || fmt[i] == 'L')) ++i;
    if (i >= fmt.size()) throw raised("incomplete format");
    char t = fmt[i];
    if (t == '%') {
      out += '%';
      continue;
    }
    if (!arg) {
      if (next >= pos.size()) throw raised("not enough arguments for format string");
      arg = &pos[next++];
    }
    std::string piece;
    if (t == 's' || t == 'r' || t == 'a') {
      piece = t == 's' ? arg->str() : arg->repr();
      if (has_prec) {
        const auto pv = prec.empty() ? std::optional<int64_t>(0) : text::parse_digits(prec);
        if (!pv || *pv > INT32_MAX) throw raised("precision too big");  // Python's ValueError
        if (*pv > (1 << 20)) in.fail_limit("format precision too large");
        size_t p = static_cast<size_t>(*pv), n = 0, k = 0;
        while (k < piece.size() && n < p) {
          ++k;
          while (k < piece.size() && (static_cast<unsigned char>(piece[k]) & 0xc0) == 0x80) ++k;
          ++n;
        }
        piece.resize(k);
      }
    } else if (std::string_view("diuxXoeEfFgGc").find(t) != std::string_view::npos) {
      if (!arg->is_number()) {
        if (arg->is_undefined()) undefined_error(*arg);
        throw raised(std::string("%") + t + " format: a " + (t == 'x' || t == 'X' || t == 'o' || t == 'c' ? "integer" : "real number") +
                     " is required, not " + type_name(*arg));
      }
      std::string spec = "%" + flags + (has_prec ? "." + (prec.empty() ? std::string("0") : prec) : "");
      char buf[512];
      if (t == 'd' || t == 'i' || t == 'u' || t == 'x' || t == 'X' || t == 'o' || t == 'c') {
        long long v = arg->is_float() ? static_cast<long long>(std::trunc(arg->as_double())) : arg->as_int();
        if (t == 'c') {
          piece = std::string(1, static_cast<char>(v));
        } else {
          std::snprintf(buf, sizeof buf, (spec + "ll" + (t == 'i' || t == 'u' ? 'd' : t)).c_str(), v);
          piece = buf;
        }
      } else {
        std::snprintf(buf, sizeof buf, (spec + t).c_str(), arg->as_double());
        piece = buf;
      }
    } else {
      throw raised(std::string("unsupported format character '") + t + "'");
    }
    const auto wv = width.empty() ? std::optional<int64_t>(0) : text::parse_digits(width);
    if (!wv || *wv > INT32_MAX) throw raised("width too big");  // Python's ValueError
    if (*wv > (1 << 20)) in.fail_limit("format width too large");
    size_t w = static_cast<size_t>(*wv);
    size_t n = utf8_length(piece);
    if (n < w) {
      bool left = flags.find('-') != std::string::npos;
      bool zero = flags.find('0') != std::string::npos && t != 's' && t != 'r';
      if (left) piece += std::string(w - n, ' ');
      else if (zero) {
        size_t signpos = !piece.empty() && (piece[0] == '-' || piece[0] == '+' || piece[0] == ' ') ? 1 : 0;
        piece.insert(signpos, std::string(w - n, '0'));
      } else piece.insert(0, std::string(w - n, ' '));
    }
    out += piece;
    check_growth(out.size());
  }
  if (!used_mapping && !mapping && next < pos.size()) throw raised("not all arguments converted during string formatting");
  in.charge(out.size());
  return out;
}

}  // namespace gguf::jinja
