// The Jinja runtime (internal): walks a program_impl's tree with a context and limits.
//
// Errors inside a render are C++ exceptions of type `raised` (thrown by the runtime,
// filters, tests, methods and natives), caught once at render()'s boundary and turned
// into a gguf::error that names the template line.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "chat/jinja/ast.h"
#include "chat/jinja/jinja.h"

namespace gguf::jinja {

/// An error raised while rendering: jinja2's exception message, and our error code
/// (template_error, or limit_exceeded for the limits).
struct raised : std::exception {
  std::string msg;
  errc code = errc::template_error;
  explicit raised(std::string m, errc c = errc::template_error) : msg(std::move(m)), code(c) {}
  const char* what() const noexcept override { return msg.c_str(); }
};

namespace detail {

/// Variables of one scope; scopes chain to their parent (macros: to where they were defined).
struct frame {
  std::shared_ptr<frame> parent;
  std::vector<std::pair<int, value>> vars;
  value* find(int sym) {
    for (auto& [s, v] : vars)
      if (s == sym) return &v;
    return nullptr;
  }
  void set(int sym, value v) {
    if (value* p = find(sym)) *p = std::move(v);
    else vars.emplace_back(sym, std::move(v));
  }
};

/// The default globals (globals.cpp): range, dict, namespace, cycler, joiner,
/// raise_exception, strftime_now.
const value* find_global(std::string_view name);

/// Parses the body of a template (parser.cpp).
result<body> parse_body_of(std::string_view source, const options& opts, program_impl& prog);

}  // namespace detail

/// Python type name of a value ("str", "int", "dict", "NoneType", ...).
const char* type_name(const value& v);
/// Number of code points of a UTF-8 string.
size_t utf8_length(std::string_view s);

class interp {
 public:
  interp(const program_impl& prog, const value& context, const limits& lim);
  ~interp();
  interp(const interp&) = delete;
  interp& operator=(const interp&) = delete;
  /// Keeps a namespace that was given a container, object or callable, or a list that
  /// was (llama.cpp's append): the only ways a value can come to hold itself (ns.me = ns,
  /// x.append(x)). Emptied when the render ends, which frees such cycles. Those given plain
  /// values are not kept (freed as they go).
  void may_hold_itself(const value& holder) {
    if (kept_ids_.insert(holder.identity()).second) namespaces_.push_back(holder);
  }
  /// Renders the whole program. Throws raised.
  std::string run();

  // -- for builtins --
  /// One step of fuel; throws when the budget is spent.
  void step() {
    if (++steps_ > lim_.max_steps) [[unlikely]] fail_steps();
    check_stack();
  }
  [[noreturn, gnu::noinline]] void fail_steps();
  /// Every recursion of the engine (expressions, statements, macro calls, and their
  /// products) passes here: past what this thread's stack can take, less a margin, the
  /// render ends with a limit error instead of overflowing (a template can nest deep enough
  /// through recursive macros whose expressions are each within the parser's bounds).
  void check_stack() {
    char here;
    if (reinterpret_cast<uintptr_t>(&here) < stack_floor_) [[unlikely]] fail_stack();
  }
  [[noreturn, gnu::noinline]] void fail_stack();
  static uintptr_t stack_floor();
  /// Accounts `bytes` of new strings or containers.
  void charge(uint64_t bytes) {
    mem_ += bytes;
    if (mem_ > lim_.max_memory_bytes)
      fail_limit("memory limit of " + std::to_string(lim_.max_memory_bytes) + " bytes reached");
  }
  /// Accounts `count` new items of `size` bytes each, before they are made (no overflow).
  void charge_items(uint64_t count, uint64_t size) {
    if (size && count > lim_.max_memory_bytes / size)
      fail_limit("memory limit of " + std::to_string(lim_.max_memory_bytes) + " bytes reached");
    charge(count * size);
  }
  [[noreturn]] void fail_limit(const std::string& what);
  /// Calls a callable (function, macro, object). Throws raised.
  value call(const value& f, arguments& args);
  /// `obj.name` with jinja2's sandboxed getattr (attribute, then item).
  value getattr(const value& obj, std::string_view name);
  /// `obj[key]` (item, then attribute), slices excluded.
  value getitem(const value& obj, const value& key);
  /// A method call `obj.name(args)` (str, dict, list methods; loop.cycle ...).
  value call_method(const value& obj, std::string_view name, arguments& args);
  /// Runs a test by name (select/reject filters).
  bool run_test(std::string_view name, const value& v, arguments& args);
  /// Runs a filter by name (map filter).
  value run_filter(std::string_view name, const value& v, arguments& args);
  /// The items iteration yields: list/tuple items, dict keys, string characters; undefined: none.
  std::vector<value> iterate(const value& v);
  const limits& lims() const { return lim_; }
  bool llama() const { return lim_.dialect == dialect::llama_cpp; }
  /// What select/map/... return: a generator (jinja2) or a list (llama.cpp).
  value generator(std::vector<value> items) const {
    return llama() ? value::make_list(std::move(items)) : value::make_generator(std::move(items));
  }
  void set_usage(usage* u) { track_ = u; }
  /// Usage tracking (caps probes): marks a value used, with an optional op name.
  void mark(const value& v) {
    if (track_ && v.identity()) track_->used.insert(v.identity());
  }
  void mark(const value& v, const std::string& op) {
    if (track_ && v.identity()) {
      track_->used.insert(v.identity());
      track_->ops[v.identity()].insert(op);
    }
  }
  void mark_deep(const value& v);
  bool tracking() const { return track_ != nullptr; }

  // -- macros and loops (runtime.cpp) --
  /// `in_place`: the macro's output goes to the current output (and none is returned).
  value call_macro(const detail::stmt& m, const std::shared_ptr<detail::frame>& closure, arguments& args,
                   const value& caller, bool in_place = false);
  void loop_body(const detail::stmt& s, const value& iterable, int depth);
  std::string capture(const detail::body& b);
  /// A scope (from the pool when one is free) and its return to the pool.
  std::shared_ptr<detail::frame> new_frame(std::shared_ptr<detail::frame> parent);
  void recycle(std::shared_ptr<detail::frame> f);

 private:
  enum class flow { normal, brk, cont };
  friend struct loop_obj;

  const program_impl& prog_;
  const value& ctx_;
  limits lim_;
  uint64_t steps_ = 0, mem_ = 0;
  uint32_t depth_ = 0;
  uintptr_t stack_floor_ = 0;  ///< lowest stack address a render may reach (check_stack)
  uint32_t line_ = 0;
  usage* track_ = nullptr;
  std::string* out_ = nullptr;
  std::shared_ptr<detail::frame> frame_;
  std::vector<std::shared_ptr<detail::frame>> kept_;
  std::vector<std::shared_ptr<detail::frame>> pool_;  // finished scopes, reused  // scopes that define macros, alive until the render ends
  void keep_scope() {
    if (kept_.empty() || kept_.back() != frame_) kept_.push_back(frame_);
  }
  std::vector<value> root_;  // symbol id -> context value or global
  std::vector<value> namespaces_;  // may_hold_itself (namespaces and lists)
  std::unordered_set<const void*> kept_ids_;  // their identities
  int loop_sym_ = -1, varargs_sym_ = -1, kwargs_sym_ = -1, caller_sym_ = -1;

  flow exec(const detail::body& b);
  flow exec_stmt(const detail::stmt& s);
  value eval(const detail::expr& e);
  /// eval() without the copy where the value already lives (a variable; a dict's or
  /// namespace's entry reached from one by a constant key); else eval()'s result kept in
  /// `tmp`. The same steps and errors as eval(). The reference lasts until a statement
  /// or template code runs: callers use it before they evaluate anything else.
  const value& peek(const detail::expr& e, value& tmp);
  /// peek() of a getattr, or of a getitem with a literal key, whose step is taken.
  const value& peek_member(const detail::expr& e, value& tmp);
  value lookup(int sym);
  void assign(const detail::expr& target, const value& v);
  void emit(const value& v);
  void emit(std::string_view s);
  /// exec_stmt of `{{ a ~ b ~ ... }}`: prints the pieces without joining them.
  void emit_concat(const detail::expr& e);
  value apply_filter(const detail::expr& e, const value& operand);
  void eval_args(const detail::expr& e, arguments& a);
  void push_depth();
  void pop_depth() { --depth_; }
  /// One level of macro call / recursive loop for the scope of the guard.
  struct depth_guard {
    interp& i;
    explicit depth_guard(interp& in) : i(in) { i.push_depth(); }
    ~depth_guard() { i.pop_depth(); }
  };
};

// Operators (ops.cpp): Python semantics; throw raised on type errors.
value op_binary(interp& in, detail::binop op, const value& a, const value& b);
bool op_compare(detail::cmpop op, const value& a, const value& b);
bool op_contains(const value& container, const value& item);
/// a[start:stop:step] on strings, lists and tuples.
value op_slice(interp& in, const value& a, const value& start, const value& stop, const value& step);
/// Python's str % args.
std::string percent_format(interp& in, const std::string& fmt, const value& args);
/// Markup's escape: & < > " ' as HTML entities.
std::string html_escape(std::string_view s);
/// Raises the error an undefined value gives when used.
[[noreturn]] void undefined_error(const value& u);

}  // namespace gguf::jinja
