// The Jinja runtime's loops (`for`, loop variables, recursive loops) and macro calls
// (`macro`, `call`, caller).
#include "chat/jinja/runtime.h"

#include <algorithm>

#include "chat/jinja/scope_guard.h"

namespace gguf::jinja {

using namespace std::string_view_literals;

using namespace detail;

// ---- loops ----

struct loop_obj : object {
  interp* in = nullptr;
  const stmt* s = nullptr;
  std::vector<value> items;  // what the loop filtered or iterated, unless `seq` is a list's or tuple's own
  value seq;
  const std::vector<value>& all() const { return seq.is_sequence() ? seq.items() : items; }
  size_t index = 0;
  int depth = 1;
  value last_changed;
  bool has_changed = false;
  ~loop_obj() override {
    release_values(items);
    release_values(last_changed);
  }

  value attr(std::string_view n, interp&) override {
    const std::vector<value>& items = all();
    const int64_t len = static_cast<int64_t>(items.size()), i = static_cast<int64_t>(index);
    if (n == "index"sv) return value(i + 1);
    if (n == "index0"sv) return value(i);
    if (n == "revindex"sv) return value(len - i);
    if (n == "revindex0"sv) return value(len - i - 1);
    if (n == "first"sv) return value(i == 0);
    if (n == "last"sv) return value(i == len - 1);
    if (n == "length"sv) return value(len);
    if (n == "depth"sv) return value(int64_t(depth));
    if (n == "depth0"sv) return value(int64_t(depth - 1));
    if (n == "previtem"sv) return i > 0 ? items[index - 1] : value::undefined("there is no previous item");
    if (n == "nextitem"sv) return i + 1 < len ? items[index + 1] : value::undefined("there is no next item");
    return value::undefined("'LoopContext' object has no attribute '" + std::string(n) + "'");
  }
  bool has_method(std::string_view n) const override { return n == "cycle"sv || n == "changed"sv; }
  value call_method(std::string_view n, arguments& a, interp&) override {
    if (n == "cycle"sv) {
      if (a.pos.empty()) throw raised("no items for cycling given");
      return a.pos[index % a.pos.size()];
    }
    if (n == "changed"sv) {
      value cur = value::make_tuple(a.pos);
      if (!has_changed || !(cur == last_changed)) {
        has_changed = true;
        last_changed = cur;
        return value(true);
      }
      return value(false);
    }
    throw raised("'LoopContext' object has no attribute '" + std::string(n) + "'");
  }
  value call(arguments& a, interp& ip) override {
    if (!s->recursive) throw raised("The loop must have the 'recursive' marker to be called recursively.");
    if (a.pos.size() != 1) throw raised("loop() takes exactly one argument");
    std::string* saved = ip.out_;
    std::string buf;
    ip.out_ = &buf;
    try {
      ip.loop_body(*s, a.pos[0], depth + 1);
    } catch (...) {
      ip.out_ = saved;
      throw;
    }
    ip.out_ = saved;
    return value(std::move(buf));
  }
  bool callable() const override { return true; }
  std::string str() const override { return "<LoopContext " + std::to_string(index + 1) + "/" + std::to_string(all().size()) + ">"; }
};

void interp::loop_body(const stmt& s, const value& iterable, int depth) {
  depth_guard dg(*this);
  auto lp = std::make_shared<loop_obj>();
  lp->in = this;
  lp->s = &s;
  lp->depth = depth;
  std::vector<value> all;
  if (s.cond || !iterable.is_sequence()) all = iterate(iterable);
  else lp->seq = iterable;  // iterated in place
  auto owner = new_frame(frame_);
  frame* nf = owner.get();
  scope_guard g(*this, frame_, std::move(owner));  // sole owner: recycled when done
  const int loop_sym = loop_sym_;
  if (s.cond) {  // the filter runs before the loop: loop.length counts what passes
    for (auto& v : all) {
      step();
      nf->vars.clear();
      assign(*s.target, v);
      if (eval(*s.cond).truthy()) lp->items.push_back(std::move(v));
    }
  } else if (!lp->seq.is_sequence()) {
    lp->items = std::move(all);
  }
  const std::vector<value>& items = lp->all();
  value loop_value = value::make_object(lp);
  bool any = false;
  for (size_t i = 0; i < items.size(); ++i) {
    step();
    any = true;
    lp->index = i;
    nf->vars.clear();
    assign(*s.target, items[i]);
    if (loop_sym >= 0) nf->set(loop_sym, loop_value);
    flow f = exec(s.main);
    if (f == flow::brk) break;
  }
  nf->vars.clear();
  if (!any) exec(s.else_body);
}

std::vector<value> interp::iterate(const value& v) {
  switch (v.type()) {
    case kind::list:
    case kind::tuple: return v.items();
    case kind::dict:
    case kind::ns: {
      std::vector<value> keys;
      keys.reserve(v.entries().size());
      for (const auto& [k, x] : v.entries()) keys.push_back(k);
      return keys;
    }
    case kind::string: {
      const std::string& s = v.as_string();
      std::vector<value> chars;
      charge(s.size() * 40);
      for (size_t i = 0; i < s.size();) {
        size_t n = 1;
        while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xc0) == 0x80) ++n;
        chars.emplace_back(s.substr(i, n));
        i += n;
      }
      return chars;
    }
    case kind::undefined: return {};
    default: throw raised("'" + std::string(type_name(v)) + "' object is not iterable");
  }
}

// ---- macros ----

value interp::call_macro(const stmt& m, const std::shared_ptr<frame>& closure, arguments& args, const value& caller,
                         bool in_place) {
  if (!closure) throw raised("macro '" + m.text + "' called after the render that defined it");
  depth_guard dg(*this);
  auto owner = new_frame(closure);
  frame* nf = owner.get();
  std::vector<value> varargs;
  const size_t np = m.params.size();
  for (size_t i = 0; i < args.pos.size(); ++i) {
    if (i < np) nf->set(m.params[i].sym, args.pos[i]);
    else varargs.push_back(args.pos[i]);
  }
  value kwargs;  // made when the template names `kwargs` or a keyword has no parameter
  value caller_v = caller;
  for (auto& [k, v] : args.kw) {
    bool found = false;
    for (size_t i = 0; i < np; ++i)
      if (m.params[i].name == k) {
        if (i < args.pos.size())
          throw raised("macro '" + m.text + "' got multiple values for argument '" + k + "'");
        nf->set(m.params[i].sym, v);
        found = true;
      }
    if (found) continue;
    if (k == "caller"sv) {
      caller_v = v;
    } else {
      if (!kwargs.is_dict()) kwargs = value::make_dict();
      kwargs.set(value(k), v);
    }
  }
  scope_guard g(*this, frame_, std::move(owner));  // sole owner: recycled when done
  for (size_t i = args.pos.size(); i < np; ++i) {
    const param& p = m.params[i];
    if (nf->find(p.sym)) continue;
    nf->set(p.sym, p.def ? eval(*p.def) : p.missing);
  }
  if (varargs_sym_ >= 0) nf->set(varargs_sym_, value::make_tuple(varargs));
  if (kwargs_sym_ >= 0) nf->set(kwargs_sym_, kwargs.is_dict() ? kwargs : value::make_dict());
  if (caller_sym_ >= 0) nf->set(caller_sym_, caller_v);
  uint32_t saved_line = line_;
  if (in_place) {
    const size_t before = out_->size();
    exec(m.main);
    line_ = saved_line;
    charge(out_->size() - before);
    return value();
  }
  std::string out = capture(m.main);
  line_ = saved_line;
  charge(out.size());
  return value(std::move(out));
}

value interp::call(const value& f, arguments& args) {
  step();
  switch (f.type()) {
    case kind::callable: return f.fn().call(args, *this);
    case kind::object: return f.obj().call(args, *this);
    case kind::undefined: undefined_error(f);
    default: throw raised("'" + std::string(type_name(f)) + "' object is not callable");
  }
}

}  // namespace gguf::jinja
