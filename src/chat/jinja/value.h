// gguf::jinja::value — a value with Python's semantics, as jinja2 sees it (internal).
//
// Kinds: undefined (jinja2's default `Undefined`: prints as "", iterates as empty, is
// false, fails on attribute access, arithmetic and JSON), none, boolean, integer (int64;
// overflow is an error where Python would grow), floating (double), string (UTF-8;
// indexing and length count code points), list, tuple, dict (insertion-ordered, keys
// are values), callable (a built-in function, a bound method, a macro), ns (jinja2's
// `namespace()`: a dict whose attributes can be set). Copies are cheap: strings and
// containers are shared, and the sandbox forbids mutating a container (jinja2's
// ImmutableSandboxedEnvironment), so sharing is never observable.
//
// Threads: storage made outside a render (a program's constants, the built-in globals,
// contexts) may be shared by renders on several threads, and its reference count is
// atomic; storage a render makes lives and dies on the render's thread (render() returns
// text, never values), and its count is a plain integer.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gguf::jinja {

class value;
class interp;  // the renderer (runtime.h); natives may use it for limits and errors

/// Positional and keyword arguments of a call.
struct arguments {
  std::vector<value> pos;
  std::vector<std::pair<std::string, value>> kw;
  /// The argument at position `i`, else the keyword `name`, else nullptr.
  const value* get(size_t i, std::string_view name) const;
  const value* kwarg(std::string_view name) const;
};

/// A native function: its arguments, the renderer. Errors: throw jinja::raised (runtime.h).
using native_fn = std::function<value(arguments&, interp&)>;

struct function_obj;
namespace detail {
struct stmt;
struct frame;
}  // namespace detail

/// The shared storage of a string or container value, with its reference count.
struct counted {
  counted() noexcept;  // shared: made while no render runs on this thread
  virtual ~counted() = default;
  counted(const counted&) = delete;
  counted& operator=(const counted&) = delete;
  uint32_t refs = 1;
  const bool shared;
  /// Boxes come from per-thread free lists (value_pool.cpp): a render makes hundreds.
  static void* operator new(size_t n);
  static void operator delete(void* p, size_t n) noexcept;
};

enum class kind : uint8_t { undefined, none, boolean, integer, floating, string, list, tuple, dict, callable, ns, object };

/// A host object with attributes (loop, cycler, joiner, bound methods): kind::object.
struct object {
  virtual ~object() = default;
  /// The attribute `name`, or an undefined value.
  virtual value attr(std::string_view name, interp& in);
  /// Calls the object (errors: jinja::raised).
  virtual value call(arguments& args, interp& in);
  /// What str() prints.
  virtual std::string str() const;
  virtual bool callable() const { return false; }
  /// Methods (`loop.cycle(...)`): whether `name` is one, and calling it.
  virtual bool has_method(std::string_view) const { return false; }
  virtual value call_method(std::string_view name, arguments& args, interp& in);
};

class value {
 public:
  value() noexcept : k_(kind::undefined) {}
  [[gnu::always_inline]] value(const value& o) noexcept : k_(o.k_), gen_(o.gen_), u_(o.u_), p_(o.p_) { retain(); }
  [[gnu::always_inline]] value(value&& o) noexcept : k_(o.k_), gen_(o.gen_), u_(o.u_), p_(o.p_) { o.p_ = nullptr; }
  value& operator=(const value& o) noexcept {
    value t(o);
    swap(t);
    return *this;
  }
  [[gnu::always_inline]] value& operator=(value&& o) noexcept {
    counted* old = p_;  // released last: `o` may live inside it
    k_ = o.k_;
    gen_ = o.gen_;
    u_ = o.u_;
    p_ = o.p_;
    if (&o != this) {
      o.p_ = nullptr;
      release(old);
    }
    return *this;
  }
  [[gnu::always_inline]] ~value() { release(); }
  void swap(value& o) noexcept {
    std::swap(k_, o.k_);
    std::swap(gen_, o.gen_);
    std::swap(u_, o.u_);
    std::swap(p_, o.p_);
  }
  value(std::nullptr_t) noexcept : k_(kind::none) {}  // NOLINT
  value(bool b) noexcept : k_(kind::boolean) { u_.b = b; }  // NOLINT
  value(int v) noexcept : k_(kind::integer) { u_.i = v; }  // NOLINT
  value(int64_t v) noexcept : k_(kind::integer) { u_.i = v; }  // NOLINT
  value(double v) noexcept : k_(kind::floating) { u_.d = v; }  // NOLINT
  value(std::string s);  // NOLINT
  value(std::string_view s) : value(std::string(s)) {}  // NOLINT
  value(const char* s) : value(std::string(s)) {}  // NOLINT

  static value none() { return value(nullptr); }
  /// An undefined value; `hint` is what jinja2 would say when it is used ("'x' is undefined").
  static value undefined(std::string hint = {});
  static value make_list(std::vector<value> items = {});
  static value make_tuple(std::vector<value> items = {});
  /// A list that came from a generator (select, map, ...): jinja2 returns a generator
  /// there, which is always true, has no length and prints as "<generator object ...>".
  static value make_generator(std::vector<value> items);
  static value make_dict();
  static value make_namespace();
  static value function(std::string name, native_fn fn);
  static value function(function_obj f);
  static value make_object(std::shared_ptr<object> o);

  /// From JSON: null, bool, integers (unsigned above INT64_MAX become float), floats,
  /// strings, arrays (lists), objects (dicts, in the JSON object's order: nlohmann::json
  /// sorts keys, nlohmann::ordered_json keeps them as written).
  static value from_json(const nlohmann::json& j);
  /// The same, keeping the document's key order (what transformers passes along):
  /// parse with nlohmann::ordered_json::parse for byte-exact renders of dicts.
  static value from_json(const nlohmann::ordered_json& j);

  kind type() const noexcept { return k_; }
  bool is_undefined() const noexcept { return k_ == kind::undefined; }
  bool is_none() const noexcept { return k_ == kind::none; }
  bool is_bool() const noexcept { return k_ == kind::boolean; }
  bool is_int() const noexcept { return k_ == kind::integer; }
  bool is_float() const noexcept { return k_ == kind::floating; }
  bool is_number() const noexcept { return k_ == kind::integer || k_ == kind::floating || k_ == kind::boolean; }
  bool is_string() const noexcept { return k_ == kind::string; }
  bool is_list() const noexcept { return k_ == kind::list; }
  bool is_tuple() const noexcept { return k_ == kind::tuple; }
  bool is_sequence() const noexcept { return k_ == kind::list || k_ == kind::tuple; }
  bool is_dict() const noexcept { return k_ == kind::dict; }
  bool is_namespace() const noexcept { return k_ == kind::ns; }
  bool is_callable() const noexcept { return k_ == kind::callable; }
  bool is_object() const noexcept { return k_ == kind::object; }
  bool is_generator() const noexcept { return k_ == kind::list && gen_; }
  /// A string marked safe (jinja2's Markup, from |safe or |escape): `markup + str`
  /// HTML-escapes the plain side, as Markup.__add__ does.
  bool is_markup() const noexcept { return k_ == kind::string && gen_; }
  static value make_markup(std::string s);
  /// groupby's (grouper, list) pair: a tuple that also answers .grouper and .list.
  static value make_group(value grouper, value list);
  bool is_group() const noexcept { return k_ == kind::tuple && gen_; }

  bool as_bool() const noexcept { return u_.b; }
  int64_t as_int() const noexcept { return k_ == kind::boolean ? int64_t(u_.b) : u_.i; }
  double as_double() const noexcept {
    return k_ == kind::floating ? u_.d : static_cast<double>(as_int());
  }
  /// The string of a string value (empty for other kinds).
  const std::string& as_string() const noexcept;
  /// The items of a list or tuple (empty for other kinds).
  const std::vector<value>& items() const noexcept;
  /// Mutable items of a list or tuple the caller just made (not shared yet).
  std::vector<value>& mutable_items();
  /// A plain string (not Markup) that no other value shares: the caller may change it in place.
  bool is_unshared_string() const noexcept {
    return k_ == kind::string && !gen_ && (p_->shared ? __atomic_load_n(&p_->refs, __ATOMIC_ACQUIRE) : p_->refs) == 1;
  }
  /// The text of a string for which is_unshared_string() holds.
  std::string& unshared_string() noexcept;
  /// The entries of a dict or namespace, in order.
  const std::vector<std::pair<value, value>>& entries() const noexcept;
  /// The undefined value's hint (what is undefined).
  const std::string& undefined_hint() const noexcept;
  const function_obj& fn() const noexcept;
  object& obj() const noexcept;

  /// Dict / namespace lookup by key (Python equality of keys); nullptr when absent.
  const value* find(const value& key) const;
  const value* find(std::string_view key) const;
  /// Sets a key of a dict or namespace (replaces an existing one in place).
  void set(value key, value v);
  /// set(value(key), v), making the key only when it is new.
  void set(std::string_view key, value v);
  /// Appends a key known to be absent (JSON objects have unique keys).
  void set_new(value key, value v);
  /// Appends to a list the caller owns.
  void push_back(value v);
  /// Empties a namespace (the end of the render that made it: a namespace can hold itself).
  void clear_namespace();
  /// Number of items (list, tuple, dict, namespace), code points (string), else 0.
  size_t size() const;

  /// Python truthiness.
  bool truthy() const;
  /// Python str(): the text `{{ x }}` prints ("None", "True", "[1, 'a']", "1.0").
  std::string str() const;
  void append_str(std::string& out) const;
  /// Python repr().
  std::string repr() const;
  void append_repr(std::string& out) const;

  /// Python ==.
  friend bool operator==(const value& a, const value& b);
  /// The shared storage of a string or container (nullptr for scalars): its identity.
  const void* identity() const noexcept { return p_; }
  /// Python `a is b` approximation: same kind and (for containers) same object.
  bool same(const value& o) const noexcept;

 private:
  kind k_;
  bool gen_ = false;  // list: a generator; string: Markup
  union {
    bool b;
    int64_t i;
    double d;
  } u_{};
  counted* p_ = nullptr;  // by kind: a string, items, entries, function_obj, object

  /// A value of kind k owning the new box p (make_list, make_dict, function, make_object).
  value(kind k, counted* p) noexcept : k_(k), p_(p) {}

  [[gnu::always_inline]] void retain() const noexcept {
    if (!p_) return;
    if (p_->shared) __atomic_add_fetch(&p_->refs, 1, __ATOMIC_RELAXED);
    else ++p_->refs;
  }
  [[gnu::always_inline]] void release() noexcept { release(p_); }
  [[gnu::always_inline]] static void release(counted* p) noexcept {
    if (p && (p->shared ? __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0 : --p->refs == 0)) destroy(p);
  }
  [[gnu::noinline]] static void destroy(counted* p) noexcept;
};

struct function_obj {
  std::string name;
  native_fn call;
  /// A macro (or a call block's `caller`): its definition and the scope it was defined
  /// in, so that `{{ m(...) }}` can print the macro's output in place (runtime.cpp).
  const detail::stmt* macro = nullptr;
  std::weak_ptr<detail::frame> closure;
};

void release_values(std::vector<value>& held) noexcept;
void release_values(std::vector<std::pair<value, value>>& held) noexcept;

namespace detail {
/// Whether a container's items may be destroyed inside its destructor (fewer than 64
/// such destructions under way on this thread); then shallow_release_leave() after.
bool shallow_release_enter() noexcept;
void shallow_release_leave() noexcept;
/// The storage of each kind of value (value::p_). Lists' and dicts' items are released
/// one level at a time (release_values).
template <class T>
struct boxed final : counted {
  template <class... A>
  explicit boxed(A&&... a) : v(std::forward<A>(a)...) {}
  ~boxed() override {
    if constexpr (std::is_same_v<T, std::vector<value>> || std::is_same_v<T, std::vector<std::pair<value, value>>>) {
      if (shallow_release_enter()) {  // a few levels deep: the items go now, as usual
        v.clear();
        shallow_release_leave();
      } else {
        release_values(v);
      }
    }
  }
  T v;
};
inline const std::string empty_string;
inline const std::vector<value> empty_items;
inline const std::vector<std::pair<value, value>> empty_entries;
}  // namespace detail

inline const std::string& value::as_string() const noexcept {
  return k_ == kind::string ? static_cast<const detail::boxed<std::string>*>(p_)->v : detail::empty_string;
}
inline const std::vector<value>& value::items() const noexcept {
  return k_ == kind::list || k_ == kind::tuple ? static_cast<const detail::boxed<std::vector<value>>*>(p_)->v
                                               : detail::empty_items;
}
inline const std::vector<std::pair<value, value>>& value::entries() const noexcept {
  return k_ == kind::dict || k_ == kind::ns
             ? static_cast<const detail::boxed<std::vector<std::pair<value, value>>>*>(p_)->v
             : detail::empty_entries;
}

/// Python's repr() of a float ("1.0", "1e-05", "1e+16", "inf", "nan").
std::string float_repr(double d);
/// Python's repr() of a str.
void append_string_repr(std::string& out, std::string_view s);

/// json.dumps(v, ensure_ascii=False, indent, separators, sort_keys) as transformers'
/// tojson filter calls it. indent: "" for none, else the indent string (an int indent is
/// that many spaces). item_sep/key_sep: Python's defaults (", " or "," with indent; ": ").
struct dumps_options {
  bool has_indent = false;
  std::string indent;
  std::string item_sep = ", ";
  std::string key_sep = ": ";
  bool sort_keys = false;
  bool ensure_ascii = false;
};
/// Destroys values held by a container or object that is being destroyed, one level at a
/// time (Python's "trashcan"): a chain of containers a million deep (a list in a list ...,
/// built through a namespace in a loop) would otherwise overflow the stack in recursive
/// destructors. Containers' and objects' destructors call it on what they hold.
void release_values(std::vector<value>& held) noexcept;
void release_values(std::vector<std::pair<value, value>>& held) noexcept;
void release_values(value& held) noexcept;
/// A list, tuple, dict, namespace or host object: a value that holds other values.
bool holds_values(const value& v) noexcept;

/// One level of the engine's recursive walks over values (repr, ==, ordering): past
/// Python's recursion limit (1000) it throws jinja::raised with RecursionError's message
/// ("maximum recursion depth exceeded" + `what`) instead of overflowing the stack.
class nesting_guard {
 public:
  explicit nesting_guard(const char* what);
  ~nesting_guard();
  nesting_guard(const nesting_guard&) = delete;
  nesting_guard& operator=(const nesting_guard&) = delete;
};

/// Accounts one piece of text built from other values while a render runs on this
/// thread: one step of the render's fuel (limits::max_steps), and `bytes` (the text so far)
/// against its memory limit (limits::max_memory_bytes) for one string. Python bounds
/// neither; without them a few shared containers (`[[x] * 100] * 100 ...`) or a long
/// separator repeated by join, replace, indent or format would need gigabytes and minutes
/// before the memory accounting sees the result. Called by repr/str of containers, dumps,
/// and the builtins whose output can outgrow their inputs many times. Outside a render it
/// does nothing.
/// Throws jinja::raised (errc::limit_exceeded) when either limit is reached.
void check_growth(size_t bytes);
/// Makes `in` the render that check_growth accounts to on this thread, for its lifetime
/// (the previous one comes back after).
class growth_scope {
 public:
  explicit growth_scope(interp& in);
  /// No render on this thread for the scope's lifetime: what is made in it may be shared
  /// by threads (a function-local static made on first use during a render).
  growth_scope();
  ~growth_scope();
  growth_scope(const growth_scope&) = delete;
  growth_scope& operator=(const growth_scope&) = delete;

 private:
  interp* prev_;
};

/// Throws jinja::raised on what json.dumps refuses (undefined, callables).
void dumps(std::string& out, const value& v, const dumps_options& o, int depth = 0);

}  // namespace gguf::jinja
