// jinja2's built-in tests (jinja2/tests.py, 3.1): `x is defined`, `x is string`, ...
#include <cmath>

#include "chat/jinja/runtime.h"
#include "chat/jinja/text.h"

namespace gguf::jinja {
namespace {

const value& arg0(arguments& a) {
  static const value undef;
  return a.pos.empty() ? (a.kw.empty() ? undef : a.kw[0].second) : a.pos[0];
}

bool t_defined(interp&, const value& v, arguments&) { return !v.is_undefined(); }
bool t_undefined(interp&, const value& v, arguments&) { return v.is_undefined(); }
bool t_none(interp&, const value& v, arguments&) { return v.is_none(); }
bool t_boolean(interp&, const value& v, arguments&) { return v.is_bool(); }
bool t_true(interp&, const value& v, arguments&) { return v.is_bool() && v.as_bool(); }
bool t_false(interp&, const value& v, arguments&) { return v.is_bool() && !v.as_bool(); }
bool t_integer(interp&, const value& v, arguments&) { return v.is_int(); }
bool t_float(interp&, const value& v, arguments&) { return v.is_float(); }
bool t_number(interp&, const value& v, arguments&) { return v.is_number(); }
bool t_string(interp&, const value& v, arguments&) { return v.is_string(); }
bool t_mapping(interp&, const value& v, arguments&) { return v.is_dict(); }
// iter() works on Undefined too (it iterates as empty)
bool t_iterable(interp&, const value& v, arguments&) {
  return v.is_string() || v.is_list() || v.is_tuple() || v.is_dict() || v.is_undefined();
}
// len() and __getitem__: str, list, tuple, dict, and Undefined (which defines both)
bool t_sequence(interp&, const value& v, arguments&) {
  return v.is_string() || (v.is_list() && !v.is_generator()) || v.is_tuple() || v.is_dict() || v.is_undefined();
}
bool t_callable(interp&, const value& v, arguments&) {
  return v.is_callable() || (v.is_object() && v.obj().callable());
}
bool t_escaped(interp&, const value&, arguments&) { return false; }

int64_t int_of(const value& v, const char* what) {
  if (v.is_undefined()) undefined_error(v);
  if (!v.is_number()) throw raised(std::string("not all arguments converted during string formatting (") + what + ")");
  return v.is_float() ? static_cast<int64_t>(v.as_double()) : v.as_int();
}
bool t_odd(interp&, const value& v, arguments&) {
  if (v.is_float()) return std::fmod(v.as_double(), 2.0) == 1 || std::fmod(v.as_double(), 2.0) == -1;
  int64_t x = int_of(v, "odd");
  return ((x % 2) + 2) % 2 == 1;
}
bool t_even(interp&, const value& v, arguments&) {
  if (v.is_float()) return std::fmod(v.as_double(), 2.0) == 0;
  return int_of(v, "even") % 2 == 0;
}
bool t_divisibleby(interp&, const value& v, arguments& a) {
  if (v.is_undefined()) undefined_error(v);
  int64_t d = int_of(arg0(a), "divisibleby");
  if (d == 0) throw raised("integer division or modulo by zero");
  return int_of(v, "divisibleby") % d == 0;
}
bool t_eq(interp&, const value& v, arguments& a) { return v == arg0(a); }
bool t_ne(interp&, const value& v, arguments& a) { return !(v == arg0(a)); }
bool t_lt(interp&, const value& v, arguments& a) { return op_compare(detail::cmpop::lt, v, arg0(a)); }
bool t_le(interp&, const value& v, arguments& a) { return op_compare(detail::cmpop::le, v, arg0(a)); }
bool t_gt(interp&, const value& v, arguments& a) { return op_compare(detail::cmpop::gt, v, arg0(a)); }
bool t_ge(interp&, const value& v, arguments& a) { return op_compare(detail::cmpop::ge, v, arg0(a)); }
bool t_in(interp&, const value& v, arguments& a) { return op_contains(arg0(a), v); }
bool t_sameas(interp&, const value& v, arguments& a) { return v.same(arg0(a)); }
bool t_lower(interp&, const value& v, arguments&) {
  std::string s = v.str();
  return text::to_lower(s) == s && text::to_upper(s) != s;
}
bool t_upper(interp&, const value& v, arguments&) {
  std::string s = v.str();
  return text::to_upper(s) == s && text::to_lower(s) != s;
}
bool t_filter(interp&, const value& v, arguments&) { return v.is_string() && detail::find_filter(v.as_string()); }
bool t_test(interp&, const value& v, arguments&) { return v.is_string() && detail::find_test(v.as_string()); }

struct test_row {
  std::string_view name;
  detail::test_fn fn;
};
const test_row test_table[] = {
    {"defined", t_defined},   {"undefined", t_undefined}, {"none", t_none},       {"boolean", t_boolean},
    {"true", t_true},         {"false", t_false},         {"integer", t_integer}, {"float", t_float},
    {"number", t_number},     {"string", t_string},       {"mapping", t_mapping}, {"iterable", t_iterable},
    {"sequence", t_sequence}, {"callable", t_callable},   {"escaped", t_escaped}, {"odd", t_odd},
    {"even", t_even},         {"divisibleby", t_divisibleby}, {"eq", t_eq},       {"equalto", t_eq},
    {"==", t_eq},             {"ne", t_ne},               {"!=", t_ne},           {"lt", t_lt},
    {"lessthan", t_lt},       {"<", t_lt},                {"le", t_le},           {"<=", t_le},
    {"gt", t_gt},             {"greaterthan", t_gt},      {">", t_gt},            {"ge", t_ge},
    {">=", t_ge},             {"in", t_in},               {"sameas", t_sameas},   {"lower", t_lower},
    {"upper", t_upper},       {"filter", t_filter},       {"test", t_test},
};

}  // namespace

detail::test_fn detail::find_test(std::string_view name) {
  for (const auto& r : test_table)
    if (name == r.name) return r.fn;
  return nullptr;
}

}  // namespace gguf::jinja
