// jinja2's built-in filters (jinja2/filters.py, 3.1) and transformers' tojson.
//
// Filters that return generators in jinja2 (map, select, reject, selectattr,
// rejectattr, unique, batch, items, reverse of a list) return value::make_generator
// here: always true, no length, iterable.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "chat/jinja/runtime.h"
#include "chat/jinja/text.h"

namespace gguf::jinja {

using namespace std::string_view_literals;
namespace {

value arg(const arguments& a, size_t i, std::string_view name, const value& def) {
  const value* v = a.get(i, name);
  return v ? *v : def;
}
const value kNone = value::none();
const value kUndef;
const value kFalse = value(false);
const value kEmpty = value("");

// jinja2's make_attrgetter: "a.b.0" → getitem per part (numbers as ints).
value get_path(interp& in, const value& item, const value& attr) {
  if (attr.is_int()) return in.getitem(item, attr);
  const std::string& path = attr.as_string();
  value v = item;
  size_t p = 0;
  for (;;) {
    size_t q = path.find('.', p);
    std::string part = path.substr(p, q == std::string::npos ? std::string::npos : q - p);
    bool num = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    std::optional<int64_t> index = num ? text::parse_digits(part) : std::nullopt;
    if (num && !index) return value::undefined("index " + part + " is out of range");  // Python: no such item
    v = in.getitem(v, index ? value(*index) : value(part));
    if (q == std::string::npos) return v;
    p = q + 1;
  }
}

value ignore_case(const value& v, bool case_sensitive) {
  if (case_sensitive || !v.is_string()) return v;
  const std::string& s = v.as_string();
  // ASCII without capitals is its own lower case
  if (!v.is_markup() && std::none_of(s.begin(), s.end(), [](char c) { return (c >= 'A' && c <= 'Z') || (c & 0x80); })) return v;
  return value(text::to_lower(s));
}

int compare_values(const value& a, const value& b) {
  if (op_compare(detail::cmpop::lt, a, b)) return -1;
  if (op_compare(detail::cmpop::lt, b, a)) return 1;
  return 0;
}

size_t len_of(const value& v) {
  switch (v.type()) {
    case kind::string:
    case kind::tuple:
    case kind::dict:
    case kind::ns:
    case kind::undefined: return v.size();
    case kind::list:
      if (!v.is_generator()) return v.size();
      [[fallthrough]];
    default: throw raised(std::string("object of type '") + type_name(v) + "' has no len()");
  }
}

value f_length(interp&, const value& v, arguments&) { return value(static_cast<int64_t>(len_of(v))); }

value f_default(interp&, const value& v, arguments& a) {
  const value& def = arg(a, 0, "default_value", kEmpty);
  bool boolean = arg(a, 1, "boolean", kFalse).truthy();
  if (v.is_undefined() || (boolean && !v.truthy())) return def;
  return v;
}

value f_tojson(interp& in, const value& v, arguments& a) {
  dumps_options o;
  o.ensure_ascii = arg(a, 0, "ensure_ascii", kFalse).truthy();
  const value& indent = arg(a, 1, "indent", kNone);
  if (indent.is_int() || indent.is_bool()) {
    o.has_indent = true;
    int64_t n = indent.as_int();
    if (n > 1024) in.fail_limit("tojson indent too large");
    o.indent = std::string(n > 0 ? n : 0, ' ');
  } else if (indent.is_string()) {
    o.has_indent = true;
    o.indent = indent.as_string();
  } else if (!indent.is_none()) {
    throw raised("indent must be an int or a str");
  }
  const value& seps = arg(a, 2, "separators", kNone);
  if (seps.is_sequence() && seps.items().size() == 2 && seps.items()[0].is_string() && seps.items()[1].is_string()) {
    o.item_sep = seps.items()[0].as_string();
    o.key_sep = seps.items()[1].as_string();
  } else if (!seps.is_none()) {
    throw raised("separators must be a pair of strings");
  } else if (o.has_indent) {
    o.item_sep = ",";
  }
  o.sort_keys = arg(a, 3, "sort_keys", kFalse).truthy();
  std::string out;
  dumps(out, v, o);
  in.charge(out.size());
  return value(std::move(out));
}

value f_string(interp&, const value& v, arguments&) { return v.is_string() ? v : value(v.str()); }
value f_upper(interp&, const value& v, arguments&) { return value(text::to_upper(v.str())); }
value f_lower(interp&, const value& v, arguments&) { return value(text::to_lower(v.str())); }
// jinja2's do_title (not str.title): words start after `-`, whitespace, `(`, `{`, `[`, `<`;
// each word's first character is uppercased, the rest lowercased.
value f_title(interp&, const value& v, arguments&) {
  auto c = text::cpts(v.str());
  std::string out;
  auto is_sep = [](uint32_t x) { return x == '-' || x == '(' || x == '{' || x == '[' || x == '<' || text::is_space(x); };
  size_t i = 0;
  while (i < c.size()) {
    size_t j = i;
    if (is_sep(c[i])) {
      while (j < c.size() && is_sep(c[j])) ++j;
      out += text::utf8(std::vector<uint32_t>(c.begin() + i, c.begin() + j));
    } else {
      while (j < c.size() && !is_sep(c[j])) ++j;
      std::vector<uint32_t> word(c.begin() + i, c.begin() + j);
      out += text::to_upper(text::utf8({word[0]}));
      out += text::to_lower(text::utf8(std::vector<uint32_t>(word.begin() + 1, word.end())));
    }
    i = j;
  }
  return value(std::move(out));
}
value f_capitalize(interp&, const value& v, arguments&) { return value(text::capitalize(v.str())); }
value f_safe(interp& in, const value& v, arguments&) {
  if (in.llama()) return value(v.str());  // llama.cpp has no markup: safe is the text, unmarked
  return v.is_markup() ? v : value::make_markup(v.str());
}

value f_trim(interp&, const value& v, arguments& a) {
  const value& chars = arg(a, 0, "chars", kNone);
  std::optional<std::string> c;
  if (chars.is_string()) c = chars.as_string();
  if (!v.is_string() || v.is_markup()) return value(text::strip(v.str(), c, true, true));
  std::string t = text::strip(v.as_string(), c, true, true);
  if (t.size() == v.as_string().size()) return v;  // nothing stripped: the same text
  return value(std::move(t));
}

value f_replace(interp& in, const value& v, arguments& a) {
  arguments m;
  m.pos = {arg(a, 0, "old", kEmpty), arg(a, 1, "new", kEmpty)};
  const value& count = arg(a, 2, "count", kNone);
  if (!count.is_none()) m.pos.push_back(count);
  m.pos[0] = value(m.pos[0].str());
  m.pos[1] = value(m.pos[1].str());
  return in.call_method(value(v.str()), "replace", m);
}

value f_indent(interp& in, const value& v, arguments& a) {
  const value& width = arg(a, 0, "width", value(int64_t{4}));
  bool first = arg(a, 1, "first", kFalse).truthy();
  bool blank = arg(a, 2, "blank", kFalse).truthy();
  std::string ind;
  if (width.is_string()) ind = width.as_string();
  else {
    int64_t w = width.as_int();
    if (w > 4096) in.fail_limit("indent width too large");
    ind = std::string(w > 0 ? w : 0, ' ');
  }
  std::string s = v.str() + "\n";
  auto lines = text::splitlines(s, false);
  std::string rv;
  if (blank) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i) rv += "\n" + ind;
      rv += lines[i];
      check_growth(rv.size());
    }
  } else {
    rv = lines.empty() ? "" : lines[0];
    for (size_t i = 1; i < lines.size(); ++i) {
      rv += "\n" + (lines[i].empty() ? "" : ind) + lines[i];
      check_growth(rv.size());
    }
  }
  if (first) rv = ind + rv;
  in.charge(rv.size());
  return value(std::move(rv));
}

value f_join(interp& in, const value& v, arguments& a) {
  const value& d = arg(a, 0, "d", kEmpty);
  const value& attr = arg(a, 1, "attribute", kNone);
  std::string sep = d.str(), out;
  bool first = true;
  for (const auto& x : in.iterate(v)) {
    if (!first) out += sep;
    first = false;
    (attr.is_none() ? x : get_path(in, x, attr)).append_str(out);
    check_growth(out.size());
  }
  in.charge(out.size());
  return value(std::move(out));
}

value f_list(interp& in, const value& v, arguments&) { return value::make_list(in.iterate(v)); }

value f_first(interp& in, const value& v, arguments&) {
  auto it = in.iterate(v);
  return it.empty() ? value::undefined("No first item, sequence was empty.") : it.front();
}
value f_last(interp& in, const value& v, arguments&) {
  if (v.is_generator()) throw raised("'generator' object is not reversible");
  auto it = in.iterate(v);
  return it.empty() ? value::undefined("No last item, sequence was empty.") : it.back();
}

value f_items(interp& in, const value& v, arguments&) {
  if (v.is_undefined()) return in.generator({});
  if (!v.is_dict() && !v.is_namespace()) throw raised("Can only get item pairs from a mapping.");
  std::vector<value> out;
  for (const auto& [k, x] : v.entries()) out.push_back(value::make_tuple({k, x}));
  in.charge(out.size() * sizeof(value) * 3);
  return in.generator(std::move(out));
}

value f_int(interp&, const value& v, arguments& a) {
  const value& def = arg(a, 0, "default", value(int64_t{0}));
  int base = static_cast<int>(arg(a, 1, "base", value(int64_t{10})).as_int());
  if (v.is_undefined()) undefined_error(v);  // int(Undefined) raises; do_int catches only ValueError/TypeError
  if (v.is_int()) return v;
  if (v.is_bool()) return value(v.as_int());
  if (v.is_float()) {
    double d = v.as_double();
    if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) return def;
    return value(static_cast<int64_t>(d));
  }
  if (v.is_string()) {
    std::string s = text::strip(v.as_string(), std::nullopt, true, true);
    std::erase(s, '_');
    if (!s.empty()) {
      char* end = nullptr;
      errno = 0;
      long long x = std::strtoll(s.c_str(), &end, base);
      if (end && *end == 0 && errno == 0) return value(static_cast<int64_t>(x));
      end = nullptr;
      double d = std::strtod(s.c_str(), &end);
      if (end && *end == 0 && std::isfinite(d) && std::fabs(d) < 9.2e18) return value(static_cast<int64_t>(d));
    }
  }
  return def;
}

value f_float(interp&, const value& v, arguments& a) {
  const value def = arg(a, 0, "default", value(0.0));
  if (v.is_undefined()) undefined_error(v);
  if (v.is_number()) return value(v.as_double());
  if (v.is_string()) {
    std::string s = text::strip(v.as_string(), std::nullopt, true, true);
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && end && *end == 0) return value(d);
  }
  return def;
}

value f_abs(interp&, const value& v, arguments&) {
  if (v.is_float()) return value(std::fabs(v.as_double()));
  if (v.is_int() || v.is_bool()) {
    if (v.as_int() == INT64_MIN) throw raised("integer overflow");
    return value(v.as_int() < 0 ? -v.as_int() : v.as_int());
  }
  throw raised(std::string("bad operand type for abs(): '") + type_name(v) + "'");
}

value f_round(interp&, const value& v, arguments& a) {
  int64_t prec = arg(a, 0, "precision", value(int64_t{0})).as_int();
  std::string method = arg(a, 1, "method", value("common")).str();
  if (!v.is_number()) throw raised("type " + std::string(type_name(v)) + " doesn't define __round__ method");
  if (method == "common"sv && (v.is_int() || v.is_bool()) && prec >= 0) return value(v.as_int());
  double x = v.as_double(), m = std::pow(10.0, static_cast<double>(prec));
  if (method == "common"sv) {
    // Python's round() is round-half-even on the exact decimal value; jinja2's "common" calls it
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(std::clamp<int64_t>(prec, 0, 30)), x);
    return value(prec >= 0 ? std::strtod(buf, nullptr) : std::nearbyint(x * m) / m);
  }
  if (method == "ceil"sv) return value(std::ceil(x * m) / m);
  if (method == "floor"sv) return value(std::floor(x * m) / m);
  throw raised("method must be common, ceil or floor");
}

value f_format(interp& in, const value& v, arguments& a) {
  if (!a.kw.empty()) {
    value d = value::make_dict();
    for (auto& [k, x] : a.kw) d.set(value(k), x);
    return value(percent_format(in, v.str(), d));
  }
  return value(percent_format(in, v.str(), value::make_tuple(a.pos)));
}

value f_escape(interp& in, const value& v, arguments&) {
  if (v.is_markup()) return v;
  std::string out = html_escape(v.str());
  in.charge(out.size());
  return value::make_markup(std::move(out));
}

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// select / reject / selectattr / rejectattr
value select_impl(interp& in, const value& v, arguments& a, bool attr, bool keep) {
  size_t off = 0;
  value attr_name;
  if (attr) {
    if (a.pos.empty()) throw raised("Missing parameter for attribute name");
    attr_name = a.pos[0];
    off = 1;
  }
  std::string test;
  arguments targs;
  bool has_test = a.pos.size() > off;
  if (has_test) {
    test = a.pos[off].str();
    targs.pos.assign(a.pos.begin() + off + 1, a.pos.end());
    targs.kw = a.kw;
  }
  std::vector<value> out;
  if (!v.truthy()) return in.generator({});  // jinja2: `if value:` before iterating
  for (const auto& x : in.iterate(v)) {
    in.step();
    value t = attr ? get_path(in, x, attr_name) : x;
    bool r = has_test ? in.run_test(test, t, targs) : t.truthy();
    if (r == keep) out.push_back(x);
  }
  return in.generator(std::move(out));
}
value f_select(interp& in, const value& v, arguments& a) { return select_impl(in, v, a, false, true); }
value f_reject(interp& in, const value& v, arguments& a) { return select_impl(in, v, a, false, false); }
value f_selectattr(interp& in, const value& v, arguments& a) { return select_impl(in, v, a, true, true); }
value f_rejectattr(interp& in, const value& v, arguments& a) { return select_impl(in, v, a, true, false); }

value f_map(interp& in, const value& v, arguments& a) {
  std::vector<value> out;
  if (!v.truthy()) return in.generator({});  // jinja2: `if value:` before iterating
  const value* attr = a.kwarg("attribute");
  if (attr) {
    const value* def = a.kwarg("default");
    for (const auto& x : in.iterate(v)) {
      in.step();
      value r = get_path(in, x, *attr);
      out.push_back(r.is_undefined() && def ? *def : r);
    }
    return in.generator(std::move(out));
  }
  if (a.pos.empty()) return in.generator(in.iterate(v));
  std::string name = a.pos[0].str();
  arguments fargs;
  fargs.pos.assign(a.pos.begin() + 1, a.pos.end());
  fargs.kw = a.kw;
  for (const auto& x : in.iterate(v)) {
    in.step();
    arguments copy = fargs;
    out.push_back(in.run_filter(name, x, copy));
  }
  return in.generator(std::move(out));
}

std::vector<value> sorted(interp& in, std::vector<value> items, bool reverse, bool cs, const value& attr) {
  std::vector<std::pair<value, value>> keyed;
  for (auto& x : items) keyed.emplace_back(ignore_case(attr.is_none() ? x : get_path(in, x, attr), cs), x);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& p, const auto& q) {
    return reverse ? compare_values(q.first, p.first) < 0 : compare_values(p.first, q.first) < 0;
  });
  std::vector<value> out;
  for (auto& [k, x] : keyed) out.push_back(std::move(x));
  return out;
}

value f_sort(interp& in, const value& v, arguments& a) {
  bool rev = arg(a, 0, "reverse", kFalse).truthy();
  bool cs = arg(a, 1, "case_sensitive", kFalse).truthy();
  return value::make_list(sorted(in, in.iterate(v), rev, cs, arg(a, 2, "attribute", kNone)));
}

value f_dictsort(interp&, const value& v, arguments& a) {
  bool cs = arg(a, 0, "case_sensitive", kFalse).truthy();
  const value* by_arg = a.get(1, "by");
  std::string by = by_arg ? by_arg->str() : std::string("key");
  bool rev = arg(a, 2, "reverse", kFalse).truthy();
  if (!v.is_dict()) throw raised("dictsort filter: value must be a dict");
  size_t pos = by == "key"sv ? 0 : by == "value"sv ? 1 : 2;
  if (pos == 2) throw raised("You can only sort by either \"key\" or \"value\"");
  // Python's sorted(): stable, also when reversed. The sort keys are made once per item,
  // and a few items (the usual dict) are ordered by insertion, without a merge buffer.
  const auto& entries = v.entries();
  std::vector<std::pair<value, size_t>> keyed;
  keyed.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i)
    keyed.emplace_back(ignore_case(pos == 0 ? entries[i].first : entries[i].second, cs), i);
  auto before = [&](const std::pair<value, size_t>& p, const std::pair<value, size_t>& q) {
    int c = compare_values(p.first, q.first);
    return rev ? c > 0 : c < 0;
  };
  if (keyed.size() <= 16) {
    for (size_t i = 1; i < keyed.size(); ++i)
      for (size_t j = i; j > 0 && before(keyed[j], keyed[j - 1]); --j) std::swap(keyed[j], keyed[j - 1]);
  } else {
    std::stable_sort(keyed.begin(), keyed.end(), before);
  }
  std::vector<value> items;
  items.reserve(keyed.size());
  for (const auto& [key, i] : keyed) items.push_back(value::make_tuple({entries[i].first, entries[i].second}));
  return value::make_list(std::move(items));
}

value f_unique(interp& in, const value& v, arguments& a) {
  bool cs = arg(a, 0, "case_sensitive", kFalse).truthy();
  const value& attr = arg(a, 1, "attribute", kNone);
  std::vector<value> seen, out;
  for (const auto& x : in.iterate(v)) {
    in.step();
    value k = ignore_case(attr.is_none() ? x : get_path(in, x, attr), cs);
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
    seen.push_back(k);
    out.push_back(x);
  }
  return in.generator(std::move(out));
}

value f_reverse(interp& in, const value& v, arguments&) {
  if (v.is_string()) {
    auto c = text::cpts(v.as_string());
    std::reverse(c.begin(), c.end());
    return value(text::utf8(c));
  }
  auto it = in.iterate(v);
  std::reverse(it.begin(), it.end());
  return in.generator(std::move(it));
}

value minmax(interp& in, const value& v, arguments& a, bool want_max) {
  bool cs = arg(a, 0, "case_sensitive", kFalse).truthy();
  const value& attr = arg(a, 1, "attribute", kNone);
  auto it = in.iterate(v);
  if (it.empty()) return value::undefined("No aggregated item, sequence was empty.");
  size_t best = 0;
  value bk = ignore_case(attr.is_none() ? it[0] : get_path(in, it[0], attr), cs);
  for (size_t i = 1; i < it.size(); ++i) {
    value k = ignore_case(attr.is_none() ? it[i] : get_path(in, it[i], attr), cs);
    int c = compare_values(k, bk);
    if (want_max ? c > 0 : c < 0) best = i, bk = k;
  }
  return it[best];
}
value f_max(interp& in, const value& v, arguments& a) { return minmax(in, v, a, true); }
value f_min(interp& in, const value& v, arguments& a) { return minmax(in, v, a, false); }

value f_sum(interp& in, const value& v, arguments& a) {
  const value& attr = arg(a, 0, "attribute", kNone);
  value acc = arg(a, 1, "start", value(int64_t{0}));
  for (const auto& x : in.iterate(v)) acc = op_binary(in, detail::binop::add, acc, attr.is_none() ? x : get_path(in, x, attr));
  return acc;
}

value f_batch(interp& in, const value& v, arguments& a) {
  int64_t n = arg(a, 0, "linecount", value(int64_t{1})).as_int();
  if (n <= 0) throw raised("batch size must be positive");
  const value* fill = a.get(1, "fill_with");
  std::vector<value> out, cur;
  for (const auto& x : in.iterate(v)) {
    cur.push_back(x);
    if (static_cast<int64_t>(cur.size()) == n) out.push_back(value::make_list(std::move(cur))), cur.clear();
  }
  if (!cur.empty()) {
    if (fill && !fill->is_none()) {
      in.charge_items(static_cast<uint64_t>(n) - cur.size(), sizeof(value));
      while (static_cast<int64_t>(cur.size()) < n) cur.push_back(*fill);
    }
    out.push_back(value::make_list(std::move(cur)));
  }
  return in.generator(std::move(out));
}

// jinja2's attr filter: the Python attribute only (a dict's methods, not its keys)
value f_attr(interp& in, const value& v, arguments& a) {
  std::string name = arg(a, 0, "name", kEmpty).str();
  if (v.is_dict()) {
    value r = in.getattr(v, name);
    if (r.is_object() || (r.is_undefined() && !r.undefined_hint().starts_with("'dict object'"))) return r;
    return value::undefined("'dict object' has no attribute '" + name + "'");
  }
  return in.getattr(v, name);
}

// groupby(attribute, default=None, case_sensitive=False): (grouper, list) pairs sorted by
// the key; the pairs answer .grouper and .list as jinja2's _GroupTuple does.
value f_groupby(interp& in, const value& v, arguments& a) {
  const value attr = arg(a, 0, "attribute", kNone);
  const value def = arg(a, 1, "default", kNone);
  bool cs = arg(a, 2, "case_sensitive", kFalse).truthy();
  std::vector<std::pair<value, value>> keyed;
  for (const auto& x : in.iterate(v)) {
    value k = get_path(in, x, attr);
    if (k.is_undefined() && !def.is_none()) k = def;
    keyed.emplace_back(ignore_case(k, cs), x);
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& p, const auto& q) { return compare_values(p.first, q.first) < 0; });
  std::vector<value> groups;
  for (size_t i = 0; i < keyed.size();) {
    size_t j = i;
    std::vector<value> members;
    while (j < keyed.size() && keyed[j].first == keyed[i].first) members.push_back(keyed[j++].second);
    value g = value::make_group(keyed[i].first, value::make_list(std::move(members)));
    groups.push_back(std::move(g));
    i = j;
  }
  return value::make_list(std::move(groups));
}

value f_center(interp& in, const value& v, arguments& a) {
  arguments m;
  m.pos = {arg(a, 0, "width", value(int64_t{80}))};
  return in.call_method(value(v.str()), "center", m);
}

value f_wordcount(interp&, const value& v, arguments&) {
  return value(static_cast<int64_t>(text::split(v.str(), std::nullopt, -1).size()));
}

value f_truncate(interp&, const value& v, arguments& a) {
  std::string s = v.str();
  int64_t length = arg(a, 0, "length", value(int64_t{255})).as_int();
  bool killwords = arg(a, 1, "killwords", kFalse).truthy();
  std::string end = arg(a, 2, "end", value("...")).str();
  int64_t leeway = arg(a, 3, "leeway", value(int64_t{5})).as_int();
  auto c = text::cpts(s);
  int64_t n = static_cast<int64_t>(c.size()), el = static_cast<int64_t>(utf8_length(end));
  if (n <= length + leeway) return value(s);
  c.resize(std::max<int64_t>(0, length - el));
  std::string r = text::utf8(c);
  if (killwords) return value(r + end);
  size_t sp = r.rfind(' ');
  if (sp != std::string::npos) r.resize(sp);
  return value(r + end);
}

struct filter_row {
  std::string_view name;
  detail::filter_fn fn;
};
const filter_row filter_table[] = {
    {"abs", f_abs},           {"attr", f_attr},         {"batch", f_batch},       {"capitalize", f_capitalize},
    {"center", f_center},     {"count", f_length},      {"d", f_default},         {"default", f_default},
    {"dictsort", f_dictsort}, {"e", f_escape},          {"escape", f_escape},     {"first", f_first},
    {"float", f_float},       {"groupby", f_groupby},       {"forceescape", f_escape},{"format", f_format},     {"indent", f_indent},
    {"int", f_int},           {"items", f_items},       {"join", f_join},         {"last", f_last},
    {"length", f_length},     {"list", f_list},         {"lower", f_lower},       {"map", f_map},
    {"max", f_max},           {"min", f_min},           {"reject", f_reject},     {"rejectattr", f_rejectattr},
    {"replace", f_replace},   {"reverse", f_reverse},   {"round", f_round},       {"safe", f_safe},
    {"select", f_select},     {"selectattr", f_selectattr}, {"sort", f_sort},     {"string", f_string},
    {"sum", f_sum},           {"title", f_title},       {"tojson", f_tojson},     {"trim", f_trim},
    {"truncate", f_truncate}, {"unique", f_unique},     {"upper", f_upper},       {"wordcount", f_wordcount},
};

}  // namespace

detail::filter_fn detail::find_filter(std::string_view name) {
  for (const auto& r : filter_table)
    if (name == r.name) return r.fn;
  return nullptr;
}

}  // namespace gguf::jinja
