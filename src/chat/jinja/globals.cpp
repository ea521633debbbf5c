// The default globals: jinja2's (range, dict, namespace, cycler, joiner) with the
// sandbox's range limit, and transformers' raise_exception and strftime_now.
#include <cstdlib>
#include <ctime>
#include <string>
#include <unordered_map>

#include "chat/jinja/runtime.h"

namespace gguf::jinja {

using namespace std::string_view_literals;
namespace {

// jinja2.sandbox.MAX_RANGE
constexpr int64_t max_range = 100000;

value g_range(arguments& a, interp& in) {
  for (const auto& v : a.pos)
    if (!v.is_int() && !v.is_bool())
      throw raised(std::string("'") + type_name(v) + "' object cannot be interpreted as an integer");
  int64_t start = 0, stop = 0, step = 1;
  if (a.pos.size() == 1) stop = a.pos[0].as_int();
  else if (a.pos.size() >= 2) {
    start = a.pos[0].as_int();
    stop = a.pos[1].as_int();
    if (a.pos.size() >= 3) step = a.pos[2].as_int();
  } else {
    throw raised("range expected at least 1 argument, got 0");
  }
  if (step == 0) throw raised("range() arg 3 must not be zero");
  __int128 n = step > 0 ? (static_cast<__int128>(stop) - start + step - 1) / step
                        : (static_cast<__int128>(start) - stop - step - 1) / -step;
  if (n < 0) n = 0;
  if (n > max_range) throw raised("Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  in.charge(static_cast<uint64_t>(n) * sizeof(value));
  std::vector<value> items;
  items.reserve(static_cast<size_t>(n));
  for (int64_t i = 0, x = start; i < n; ++i, x += step) items.emplace_back(x);
  return value::make_list(std::move(items));
}

// dict(...) and namespace(...): entries of mappings given positionally, then keywords
value fill(value d, const arguments& a) {
  for (const auto& p : a.pos)
    for (const auto& [k, v] : p.entries()) d.set(k, v);
  for (const auto& [k, v] : a.kw) d.set(value(k), v);
  return d;
}
value g_dict(arguments& a, interp&) { return fill(value::make_dict(), a); }
value g_namespace(arguments& a, interp&) { return fill(value::make_namespace(), a); }

value g_raise_exception(arguments& a, interp&) {
  throw raised(a.pos.empty() ? std::string() : a.pos[0].str());
}

// datetime.now().strftime(fmt); the time is SOURCE_DATE_EPOCH (UTC) when that is set,
// so that a render is reproducible.
value g_strftime_now(arguments& a, interp&) {
  std::string fmt = a.pos.empty() ? std::string() : a.pos[0].str();
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH"); e && *e) {
    t = static_cast<std::time_t>(std::strtoll(e, nullptr, 10));
    gmtime_r(&t, &tm);
  } else {
    localtime_r(&t, &tm);
  }
  if (fmt.empty()) return value("");
  std::string out(fmt.size() * 8 + 64, '\0');
  size_t n = std::strftime(out.data(), out.size(), fmt.c_str(), &tm);
  out.resize(n);
  return value(std::move(out));
}

struct cycler_obj : object {
  std::vector<value> items;
  size_t pos = 0;
  ~cycler_obj() override { release_values(items); }
  value attr(std::string_view n, interp&) override {
    if (n == "current"sv) return items[pos];
    return value::undefined("'Cycler' object has no attribute '" + std::string(n) + "'");
  }
  bool has_method(std::string_view n) const override { return n == "next"sv || n == "reset"sv; }
  value call_method(std::string_view n, arguments&, interp&) override {
    if (n == "reset"sv) {
      pos = 0;
      return value::none();
    }
    value v = items[pos];
    pos = (pos + 1) % items.size();
    return v;
  }
};

value g_cycler(arguments& a, interp&) {
  if (a.pos.empty()) throw raised("at least one item has to be provided");
  auto c = std::make_shared<cycler_obj>();
  c->items = a.pos;
  return value::make_object(std::move(c));
}

struct joiner_obj : object {
  std::string sep;
  bool used = false;
  value call(arguments&, interp&) override {
    if (!used) {
      used = true;
      return value("");
    }
    return value(sep);
  }
  bool callable() const override { return true; }
};

value g_joiner(arguments& a, interp&) {
  auto j = std::make_shared<joiner_obj>();
  const value* s = a.get(0, "sep");
  j->sep = s ? s->str() : ", ";
  return value::make_object(std::move(j));
}

const std::unordered_map<std::string_view, value>& globals() {
  static const std::unordered_map<std::string_view, value> table = [] {
    growth_scope shared;  // shared by every render, on every thread
    return std::unordered_map<std::string_view, value>{
      {"range", value::function("function range", g_range)},
      {"dict", value::function("function dict", g_dict)},
      {"namespace", value::function("function namespace", g_namespace)},
      {"cycler", value::function("function cycler", g_cycler)},
      {"joiner", value::function("function joiner", g_joiner)},
      {"raise_exception", value::function("function raise_exception", g_raise_exception)},
      {"strftime_now", value::function("function strftime_now", g_strftime_now)},
    };
  }();
  return table;
}

}  // namespace

const value* detail::find_global(std::string_view name) {
  const auto& g = globals();
  auto it = g.find(name);
  return it == g.end() ? nullptr : &it->second;
}

}  // namespace gguf::jinja
