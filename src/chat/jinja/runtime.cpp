// The Jinja runtime: statements, expressions and scopes (loops and macros: loops_macros.cpp).
#include "chat/jinja/runtime.h"
#include "chat/jinja/scope_guard.h"

#include <pthread.h>

#include <unordered_set>

#include <algorithm>

namespace gguf::jinja {

using namespace std::string_view_literals;

using namespace detail;

interp::interp(const program_impl& prog, const value& context, const limits& lim)
    : prog_(prog), ctx_(context), lim_(lim) {
  root_.resize(prog.symbols.size());
  for (size_t i = 0; i < prog.symbols.size(); ++i) {
    const std::string& n = prog.symbols[i];
    const value* v = context.find(std::string_view(n));
    root_[i] = v ? *v : prog.defaults[i];
    if (n == "loop"sv) loop_sym_ = static_cast<int>(i);
    if (n == "varargs"sv) varargs_sym_ = static_cast<int>(i);
    if (n == "kwargs"sv) kwargs_sym_ = static_cast<int>(i);
    if (n == "caller"sv) caller_sym_ = static_cast<int>(i);
  }
  frame_ = std::make_shared<frame>();
  stack_floor_ = stack_floor();
}

// The lowest address this thread's stack may reach during a render: its low end plus a
// margin for the natives, the allocator and the error path (more under the sanitizers,
// whose frames are larger). 0 (no check) when the bounds cannot be read.
uintptr_t interp::stack_floor() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr uintptr_t margin = 1u << 20;
#else
  constexpr uintptr_t margin = 256u << 10;
#endif
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  void* lo = nullptr;
  size_t size = 0;
  const int rc = pthread_attr_getstack(&attr, &lo, &size);
  pthread_attr_destroy(&attr);
  if (rc != 0 || lo == nullptr || size <= 2 * margin) return 0;
  return reinterpret_cast<uintptr_t>(lo) + margin;
}

void interp::fail_stack() {
  fail_limit("nesting too deep for the stack (expressions, statements or macro calls)");
}

interp::~interp() {
  // A namespace can hold itself (ns.me = ns, or through a list or a bound method): those
  // that were given such values are emptied here, and the cycles are freed with them.
  for (auto& held : namespaces_) {
    if (held.is_list()) held.mutable_items().clear();
    else held.clear_namespace();
  }
}

std::string interp::run() {
  std::string out;
  out.reserve(prog_.source_size * 2);
  out_ = &out;
  try {
    exec(prog_.root);
  } catch (raised& r) {
    if (r.code == errc::template_error || r.code == errc::limit_exceeded)
      r.msg = "line " + std::to_string(line_) + ": " + r.msg;
    throw;
  }
  return out;
}

void interp::fail_limit(const std::string& what) { throw raised(what, errc::limit_exceeded); }
void interp::fail_steps() { fail_limit("step limit of " + std::to_string(lim_.max_steps) + " reached"); }

void interp::push_depth() {
  if (++depth_ > lim_.max_depth) {
    --depth_;
    fail_limit("recursion limit of " + std::to_string(lim_.max_depth) + " levels reached");
  }
}

void interp::emit(std::string_view s) {
  if (out_->size() + s.size() > lim_.max_output_bytes)
    fail_limit("output limit of " + std::to_string(lim_.max_output_bytes) + " bytes reached");
  out_->append(s);
}

void interp::emit(const value& v) {
  if (v.is_string()) return emit(std::string_view(v.as_string()));
  std::string s;
  v.append_str(s);
  emit(std::string_view(s));
}

value interp::lookup(int sym) {
  for (frame* f = frame_.get(); f; f = f->parent.get())
    if (value* v = f->find(sym)) {
      mark(*v);
      return *v;
    }
  mark(root_[sym]);
  return root_[sym];
}

void interp::mark_deep(const value& v) {
  if (!track_) return;
  // without recursion, each container once: a value may be nested deeper than the stack
  // takes, or hold itself (ns.a = ns)
  std::vector<const value*> todo{&v};
  std::unordered_set<const void*> seen;
  while (!todo.empty()) {
    const value* x = todo.back();
    todo.pop_back();
    mark(*x);
    if (x->identity() && !seen.insert(x->identity()).second) continue;
    for (const auto& y : x->items()) todo.push_back(&y);
    for (const auto& [k, y] : x->entries()) {
      todo.push_back(&k);
      todo.push_back(&y);
    }
  }
}

void interp::emit_concat(const expr& e) {
  // {{ a ~ b ~ c }}: eval() would build the joined string, then emit() print it. Here the
  // string pieces are printed one after the other instead, with eval()'s steps, order of
  // evaluation and memory charges (each step of the chain charges its result's length);
  // from the first piece that is not a string on, the text is joined as eval() joins it.
  constexpr size_t kMax = 8;
  const expr* spine[kMax];
  size_t d = 0;
  for (const expr* x = &e; x->kind == ek::binop && x->bop == binop::concat; x = x->a.get()) {
    if (d == kMax) {
      value tmp;
      return emit(peek(e, tmp));
    }
    spine[d++] = x;
  }
  for (size_t i = 0; i < d; ++i) step();  // eval() of each `~` node
  value parts[kMax + 1];
  size_t n = 0, len = 0;
  std::string joined;
  bool is_joined = false;
  value left = eval(*spine[d - 1]->a);
  if (left.is_string()) {
    len = left.as_string().size();
    parts[n++] = std::move(left);
  }
  for (size_t i = d; i-- > 0;) {
    value tmp;
    const value& b = peek(*spine[i]->b, tmp);
    if (!is_joined && n > 0 && b.is_string()) {
      charge(len + b.as_string().size());
      len += b.as_string().size();
      parts[n++] = b;
      continue;
    }
    if (!is_joined) {  // as op_binary: str() of the left side, then of the right one
      if (n == 0) left.append_str(joined);
      for (size_t k = 0; k < n; ++k) joined += parts[k].as_string();
      is_joined = true;
    }
    if (b.is_string()) {
      charge(joined.size() + b.as_string().size());
      joined += b.as_string();
    } else {
      b.append_str(joined);
      charge(joined.size());
    }
  }
  if (is_joined) return emit(std::string_view(joined));
  for (size_t i = 0; i < n; ++i) emit(std::string_view(parts[i].as_string()));
}

std::string interp::capture(const body& b) {
  std::string buf;
  std::string* saved = out_;
  out_ = &buf;
  try {
    exec(b);
  } catch (...) {
    out_ = saved;
    throw;
  }
  out_ = saved;
  return buf;
}

// ---- statements ----

interp::flow interp::exec(const body& b) {
  for (const auto& s : b) {
    flow f = exec_stmt(*s);
    if (f != flow::normal) return f;
  }
  return flow::normal;
}

namespace {
// `caller` in a macro called without a call block (one value, shared by every call).
const value& no_caller() {
  static const value v = [] {
    growth_scope shared;  // made during a render, kept for all threads
    return value::undefined("'caller' is undefined");
  }();
  return v;
}

}  // namespace

std::shared_ptr<frame> interp::new_frame(std::shared_ptr<frame> parent) {
  std::shared_ptr<frame> f;
  if (!pool_.empty()) {
    f = std::move(pool_.back());
    pool_.pop_back();
  } else {
    f = std::make_shared<frame>();
  }
  f->parent = std::move(parent);
  return f;
}

void interp::recycle(std::shared_ptr<frame> f) {
  if (f && f.use_count() == 1 && pool_.size() < 64) {
    f->vars.clear();
    f->parent.reset();
    pool_.push_back(std::move(f));
  }
}

interp::flow interp::exec_stmt(const stmt& s) {
  step();
  line_ = s.line;
  switch (s.kind) {
    case sk::text: emit(std::string_view(s.text)); return flow::normal;
    case sk::output: {
      if (s.e->kind == ek::binop && s.e->bop == binop::concat && !track_ && !llama()) return emit_concat(*s.e), flow::normal;
      if (s.e->kind == ek::call && s.e->a->kind != ek::getattr && !track_) {
        // {{ m(...) }}: eval()'s steps and order; a macro prints its output in place
        // instead of returning it as a string to print (the same bytes and charges)
        step();
        value f = eval(*s.e->a);
        arguments a;
        eval_args(*s.e, a);
        if (f.is_callable() && f.fn().macro) {
          step();  // call()'s
          call_macro(*f.fn().macro, f.fn().closure.lock(), a, no_caller(), true);
        } else {
          emit(call(f, a));
        }
        return flow::normal;
      }
      value tmp;
      emit(peek(*s.e, tmp));
      return flow::normal;
    }
    case sk::if_:
      for (const auto& [cond, b] : s.branches) {
        line_ = cond->line;
        value tmp;
        if (peek(*cond, tmp).truthy()) return exec(b);
      }
      return exec(s.else_body);
    case sk::for_: {
      value it = eval(*s.e);
      if (track_) {
        mark(it, "array_access");
        if (it.is_dict()) mark(it, "object_access");
      }
      loop_body(s, it, 1);
      return flow::normal;
    }
    case sk::set: {
      value tmp;
      assign(*s.target, peek(*s.e, tmp));  // assign copies before it changes a scope
      return flow::normal;
    }
    case sk::set_block: {
      value v(capture(s.main));
      if (s.e) v = apply_filter(*s.e, v);
      assign(*s.target, v);
      return flow::normal;
    }
    case sk::macro: {
      // The macro holds its scope weakly (the scope holds the macro: no cycle); the
      // render keeps the scope alive until it ends.
      keep_scope();
      std::weak_ptr<frame> closure = frame_;
      const stmt* m = &s;
      value fn = value::function(function_obj{"Macro '" + s.text + "'",
                                              [m, closure](arguments& a, interp& in) {
                                                return in.call_macro(*m, closure.lock(), a, no_caller());
                                              },
                                              m, closure});
      frame_->set(s.sym, fn);
      return flow::normal;
    }
    case sk::call_block: {
      keep_scope();
      std::weak_ptr<frame> closure = frame_;
      const stmt* cb = &s;
      value caller = value::function(function_obj{"Macro 'caller'",
                                                  [cb, closure](arguments& a, interp& in) {
                                                    return in.call_macro(*cb, closure.lock(), a, no_caller());
                                                  },
                                                  cb, closure});
      const expr& call = *s.e;
      arguments a;
      eval_args(call, a);
      a.kw.emplace_back("caller", caller);
      value callee = eval(*call.a);
      emit(this->call(callee, a));
      return flow::normal;
    }
    case sk::filter_block: {
      value v(capture(s.main));
      emit(apply_filter(*s.e, v));
      return flow::normal;
    }
    case sk::break_: return flow::brk;
    case sk::continue_: return flow::cont;
    case sk::scope: {
      auto owner = new_frame(frame_);
      frame* nf = owner.get();
      for (const auto& p : s.params) nf->set(p.sym, eval(*p.def));
      scope_guard g(*this, frame_, std::move(owner));  // sole owner: recycled when done
      return exec(s.main);
    }
  }
  return flow::normal;
}

void interp::assign(const expr& target, const value& v) {
  if (target.kind == ek::name) {
    frame_->set(target.sym, v);
  } else if (target.kind == ek::getattr) {
    value ns = lookup(target.a->sym);
    if (!ns.is_namespace()) throw raised("can only set attributes of a namespace() object");
    // namespaces are shared on purpose: set() changes the one the template made
    const_cast<value&>(ns).set(std::string_view(target.name), v);
    if (holds_values(v) || v.is_callable()) may_hold_itself(ns);
  } else if (target.kind == ek::tuple) {
    std::vector<value> made;  // a list or tuple unpacks from its own items
    if (!v.is_sequence()) made = iterate(v);
    const std::vector<value>& items = v.is_sequence() ? v.items() : made;
    if (items.size() != target.args.size())
      throw raised(items.size() > target.args.size()
                       ? "too many values to unpack (expected " + std::to_string(target.args.size()) + ")"
                       : "not enough values to unpack (expected " + std::to_string(target.args.size()) + ", got " +
                             std::to_string(items.size()) + ")");
    for (size_t i = 0; i < items.size(); ++i) assign(*target.args[i], items[i]);
  }
}

// ---- expressions ----

void interp::eval_args(const expr& e, arguments& a) {
  a.pos.reserve(e.args.size());
  for (const auto& x : e.args) a.pos.push_back(eval(*x));
  for (const auto& [k, x] : e.kwargs) a.kw.emplace_back(k, eval(*x));
}

value interp::apply_filter(const expr& e, const value& operand) {
  // a chain made by a filter block: the innermost filter (null operand) applies first
  value v = e.a ? apply_filter(*e.a, operand) : operand;
  arguments a;
  eval_args(e, a);
  return run_filter(e.name, v, a);
}

value interp::run_filter(std::string_view name, const value& v, arguments& a) {
  if (track_) {
    mark(v, std::string(name));
    if (name == "tojson"sv || (name == "string"sv && (v.is_sequence() || v.is_dict()))) mark_deep(v);
  }
  filter_fn f = find_filter(name);
  if (!f) throw raised("No filter named '" + std::string(name) + "'.");
  return f(*this, v, a);
}

bool interp::run_test(std::string_view name, const value& v, arguments& a) {
  if (track_) mark(v, "test_is_" + std::string(name));
  test_fn t = find_test(name);
  if (!t) throw raised("No test named '" + std::string(name) + "'.");
  return t(*this, v, a);
}

value interp::eval(const expr& e) {
  step();
  switch (e.kind) {
    case ek::literal: return e.lit;
    case ek::name: return lookup(e.sym);
    case ek::list:
    case ek::tuple: {
      std::vector<value> items;
      items.reserve(e.args.size());
      for (const auto& x : e.args) items.push_back(eval(*x));
      charge(items.size() * sizeof(value));
      return e.kind == ek::list ? value::make_list(std::move(items)) : value::make_tuple(std::move(items));
    }
    case ek::dict: {
      value d = value::make_dict();
      for (size_t i = 0; i + 1 < e.args.size(); i += 2) d.set(eval(*e.args[i]), eval(*e.args[i + 1]));
      charge(e.args.size() * sizeof(value));
      return d;
    }
    case ek::getattr: {
      if (!track_) {
        value tmp;
        const value& r = peek_member(e, tmp);
        if (&r == &tmp) return tmp;
        return r;
      }
      value obj = eval(*e.a);
      mark(obj, e.name);
      value r = getattr(obj, e.name);
      mark(r);
      return r;
    }
    case ek::getitem: {
      if (!track_ && e.b->kind == ek::literal) {
        value tmp;
        const value& r = peek_member(e, tmp);
        if (&r == &tmp) return tmp;
        return r;
      }
      value obj = eval(*e.a);
      if (e.b->kind == ek::slice) {
        const expr& s = *e.b;
        mark(obj, "slice");
        return op_slice(*this, obj, s.a ? eval(*s.a) : value::none(), s.b ? eval(*s.b) : value::none(),
                        s.c ? eval(*s.c) : value::none());
      }
      value key = eval(*e.b);
      if (!track_) return getitem(obj, key);
      value r = getitem(obj, key);
      mark(obj, key.is_int() ? "array_access" : key.is_string() ? "object_access" : "item");
      mark(r);
      return r;
    }
    case ek::slice: throw raised("a slice outside of a subscript");
    case ek::call: {
      arguments a;
      if (e.a->kind == ek::getattr) {
        value obj = eval(*e.a->a);
        mark(obj, e.a->name);
        eval_args(e, a);
        return call_method(obj, e.a->name, a);
      }
      value f = eval(*e.a);
      eval_args(e, a);
      return call(f, a);
    }
    case ek::filter: {
      value v = e.a ? eval(*e.a) : value();
      arguments a;
      eval_args(e, a);
      if (e.filter && !track_) return e.filter(*this, v, a);
      return run_filter(e.name, v, a);
    }
    case ek::test: {
      value tmp;
      const value& v = e.args.empty() && e.kwargs.empty() ? peek(*e.a, tmp) : (tmp = eval(*e.a));
      arguments a;
      eval_args(e, a);
      bool r = e.test && !track_ ? e.test(*this, v, a) : run_test(e.name, v, a);
      return value(e.negate ? !r : r);
    }
    case ek::not_: {
      value tmp;
      return value(!peek(*e.a, tmp).truthy());
    }
    case ek::neg:
    case ek::pos: {
      value v = eval(*e.a);
      if (v.is_undefined()) undefined_error(v);
      if (!v.is_number()) throw raised("bad operand type for unary " + std::string(e.kind == ek::neg ? "-" : "+") + ": '" + type_name(v) + "'");
      if (e.kind == ek::pos) return v.is_bool() ? value(v.as_int()) : v;
      if (v.is_float()) return value(-v.as_double());
      if (v.as_int() == INT64_MIN) throw raised("integer overflow");
      return value(-v.as_int());
    }
    case ek::binop: {
      value a = eval(*e.a);
      value tmp;
      const value& b = peek(*e.b, tmp);
      // `x ~ y ~ z`, `x + y + z` on strings: the left side a string only this expression holds
      // (made by the previous step of the chain, a macro call, a filter) grows in place; the
      // result and the memory accounting are op_binary's
      if ((e.bop == binop::concat || e.bop == binop::add) && !track_ && a.is_unshared_string() && b.is_string() &&
          !b.is_markup()) {
        charge(a.as_string().size() + b.as_string().size());
        a.unshared_string() += b.as_string();
        return a;
      }
      return op_binary(*this, e.bop, a, b);
    }
    case ek::compare: {
      value left = eval(*e.a);
      for (size_t i = 0; i < e.ops.size(); ++i) {
        value right = eval(*e.args[i]);
        if (!op_compare(e.ops[i], left, right)) return value(false);
        left = std::move(right);
      }
      return value(true);
    }
    case ek::and_: {
      value tmp;
      const value& a = peek(*e.a, tmp);
      if (a.truthy()) return eval(*e.b);
      if (&a == &tmp) return tmp;
      return a;
    }
    case ek::or_: {
      value tmp;
      const value& a = peek(*e.a, tmp);
      if (!a.truthy()) return eval(*e.b);
      if (&a == &tmp) return tmp;
      return a;
    }
    case ek::cond:
      if (eval(*e.b).truthy()) return eval(*e.a);
      return e.c ? eval(*e.c) : value::undefined("the inline if-expression on line " + std::to_string(e.line) +
                                                  " evaluated to false and no else section was defined.");
  }
  return value();
}

const value& interp::peek(const expr& e, value& tmp) {
  check_stack();  // (peek and peek_member recurse along a.b.c without step())
  if (track_) return tmp = eval(e);
  switch (e.kind) {
    case ek::name: {
      step();
      for (frame* f = frame_.get(); f; f = f->parent.get())
        if (value* v = f->find(e.sym)) return *v;
      return root_[e.sym];
    }
    case ek::getattr:
      step();
      return peek_member(e, tmp);
    case ek::getitem:
      if (e.b->kind != ek::literal) break;
      step();
      return peek_member(e, tmp);
    default: break;
  }
  return tmp = eval(e);
}

const value& interp::peek_member(const expr& e, value& tmp) {
  const value& obj = peek(*e.a, tmp);
  if (e.kind == ek::getattr) {
    if (obj.is_dict() && e.dict_key) {
      const value* v = obj.find(std::string_view(e.name));
      return v ? *v : e.dict_miss;
    }
    if (obj.is_namespace())
      if (const value* v = obj.find(std::string_view(e.name))) return *v;
    return tmp = getattr(obj, e.name);
  }
  if (obj.is_dict() && e.dict_key) {
    const value* v = obj.find(std::string_view(e.b->lit.as_string()));
    return v ? *v : e.dict_miss;
  }
  step();  // the key, as eval() of the literal counts it
  return tmp = getitem(obj, e.b->lit);
}

}  // namespace gguf::jinja
