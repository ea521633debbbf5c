// The Jinja parser: tokens → syntax tree, following jinja2 3.1's parser.py (operator
// precedence, tuples, test arguments without parentheses, assignment targets).
#include <charconv>
#include <cstdlib>
#include <unordered_map>

#include "chat/jinja/ast.h"
#include "chat/jinja/lexer.h"
#include "chat/jinja/runtime.h"

namespace gguf::jinja::detail {
namespace {

struct syntax_error {
  uint32_t line, col;
  std::string what;
};

class parser {
 public:
  parser(std::vector<token> toks, program_impl& prog) : t_(std::move(toks)), prog_(prog) {}

  body parse_template() {
    body b = parse_body({});
    if (cur().type != tok::eof) fail("unexpected '" + cur().value + "'");
    return b;
  }

 private:
  std::vector<token> t_;
  size_t i_ = 0;
  program_impl& prog_;
  std::unordered_map<std::string, int> syms_;
  int depth_ = 0;
  int loops_ = 0;  // enclosing for loops (of this macro body): break/continue need one  // nesting of expressions and blocks: bounded, so hostile input can't overflow the stack

  struct nest {
    parser& p;
    explicit nest(parser& q) : p(q) {
      if (++p.depth_ > 300) p.fail("nesting deeper than 300 levels");
    }
    ~nest() { --p.depth_; }
  };

  const token& cur() const { return t_[i_]; }
  const token& peek(size_t n = 1) const { return t_[std::min(i_ + n, t_.size() - 1)]; }
  void next() {
    if (i_ + 1 < t_.size()) ++i_;
  }
  [[noreturn]] void fail(const std::string& what) { throw syntax_error{cur().line, cur().col, what}; }
  [[noreturn]] void fail_at(const token& t, const std::string& what) { throw syntax_error{t.line, t.col, what}; }

  static std::string describe(const token& t) {
    switch (t.type) {
      case tok::eof: return "end of template";
      case tok::block_end: return "end of statement block";
      case tok::var_end: return "end of print statement";
      case tok::block_begin: return "begin of statement block";
      case tok::var_begin: return "begin of print statement";
      case tok::text: return "template data";
      default: return t.value;
    }
  }

  bool is_op(std::string_view op) const { return cur().type == tok::op && cur().value == op; }
  bool is_name(std::string_view n) const { return cur().type == tok::name && cur().value == n; }
  bool skip_op(std::string_view op) {
    if (!is_op(op)) return false;
    next();
    return true;
  }
  bool skip_name(std::string_view n) {
    if (!is_name(n)) return false;
    next();
    return true;
  }
  void expect_op(std::string_view op) {
    if (!skip_op(op)) fail("expected token '" + std::string(op) + "', got '" + describe(cur()) + "'");
  }
  std::string expect_name() {
    if (cur().type != tok::name) fail("expected token 'name', got '" + describe(cur()) + "'");
    std::string n = cur().value;
    next();
    return n;
  }
  void expect_block_end() {
    if (cur().type != tok::block_end) fail("expected token 'end of statement block', got '" + describe(cur()) + "'");
    next();
  }

  int sym(const std::string& n) {
    auto [it, fresh] = syms_.emplace(n, static_cast<int>(prog_.symbols.size()));
    if (fresh) prog_.symbols.push_back(n);
    return it->second;
  }

  expr_ptr node(ek k, uint32_t line) {
    auto e = std::make_unique<expr>();
    e->kind = k;
    e->line = line;
    return e;
  }

  // ---- statements ----

  // Parses until one of `ends` (a block tag name) is the current name after `{%`.
  body parse_body(std::initializer_list<std::string_view> ends) {
    nest guard(*this);
    body b;
    for (;;) {
      const token& t = cur();
      if (t.type == tok::eof) {
        if (ends.size()) {
          std::string list;
          for (auto e : ends) list += (list.empty() ? "'" : " or '") + std::string(e) + "'";
          fail("Unexpected end of template. Jinja was looking for the following tags: " + list + ".");
        }
        return b;
      }
      if (t.type == tok::text) {
        auto s = std::make_unique<stmt>();
        s->kind = sk::text;
        s->line = t.line;
        s->text = t.value;
        b.push_back(std::move(s));
        next();
      } else if (t.type == tok::var_begin) {
        auto s = std::make_unique<stmt>();
        s->kind = sk::output;
        s->line = t.line;
        next();
        s->e = parse_tuple(false, true, {});
        if (cur().type != tok::var_end) fail("expected token 'end of print statement', got '" + describe(cur()) + "'");
        next();
        b.push_back(std::move(s));
      } else if (t.type == tok::block_begin) {
        const token& n = peek();
        if (n.type == tok::name)
          for (auto e : ends)
            if (n.value == e) {
              next();  // now at the end tag's name
              return b;
            }
        next();
        b.push_back(parse_statement());
      } else {
        fail("unexpected '" + describe(t) + "'");
      }
    }
  }

  stmt_ptr make(sk k, uint32_t line) {
    auto s = std::make_unique<stmt>();
    s->kind = k;
    s->line = line;
    return s;
  }

  stmt_ptr parse_statement() {
    const token& t = cur();
    if (t.type != tok::name) fail("tag name expected");
    std::string n = t.value;
    uint32_t line = t.line;
    next();
    if (n == "if") return parse_if(line);
    if (n == "for") return parse_for(line);
    if (n == "set") return parse_set(line);
    if (n == "macro") return parse_macro(line);
    if (n == "call") return parse_call_block(line);
    if (n == "filter") return parse_filter_block(line);
    if (n == "break" || n == "continue") {
      if (loops_ == 0) fail_at(t_[i_ - 1], "'" + n + "' outside loop");
      auto s = make(n == "break" ? sk::break_ : sk::continue_, line);
      expect_block_end();
      return s;
    }
    if (n == "generation") {
      auto s = make(sk::scope, line);
      expect_block_end();
      s->main = parse_body({"endgeneration"});
      next();
      expect_block_end();
      return s;
    }
    if (n == "with") {
      auto s = make(sk::scope, line);
      while (cur().type != tok::block_end) {
        if (!s->params.empty()) expect_op(",");
        param p;
        p.name = expect_name();
        p.sym = sym(p.name);
        expect_op("=");
        p.def = parse_expression(true);
        s->params.push_back(std::move(p));
      }
      expect_block_end();
      s->main = parse_body({"endwith"});
      next();
      expect_block_end();
      return s;
    }
    static const char* unsupported[] = {"include", "import", "from", "extends", "block", "raw", "autoescape", "do"};
    for (const char* u : unsupported)
      if (n == u) fail_at(t_[i_ - 1], "the '" + n + "' tag is not supported (a chat template has no loader)");
    fail_at(t_[i_ - 1], "Encountered unknown tag '" + n + "'.");
  }

  stmt_ptr parse_if(uint32_t line) {
    auto s = make(sk::if_, line);
    for (;;) {
      expr_ptr cond = parse_tuple(false, false, {});
      expect_block_end();
      body b = parse_body({"elif", "else", "endif"});
      s->branches.emplace_back(std::move(cond), std::move(b));
      std::string tag = cur().value;
      next();
      if (tag == "elif") continue;
      if (tag == "else") {
        expect_block_end();
        s->else_body = parse_body({"endif"});
        next();
      }
      expect_block_end();
      return s;
    }
  }

  stmt_ptr parse_for(uint32_t line) {
    auto s = make(sk::for_, line);
    s->target = parse_assign_target(false, {"in"});
    if (!skip_name("in")) fail("expected token 'in', got '" + describe(cur()) + "'");
    s->e = parse_tuple(false, false, {"recursive"});
    if (skip_name("if")) s->cond = parse_expression(true);
    if (skip_name("recursive")) s->recursive = true;
    expect_block_end();
    ++loops_;
    s->main = parse_body({"endfor", "else"});
    --loops_;
    std::string tag = cur().value;
    next();
    if (tag == "else") {
      expect_block_end();
      s->else_body = parse_body({"endfor"});
      next();
    }
    expect_block_end();
    return s;
  }

  stmt_ptr parse_set(uint32_t line) {
    expr_ptr target = parse_assign_target(true, {});
    if (skip_op("=")) {
      auto s = make(sk::set, line);
      s->target = std::move(target);
      s->e = parse_tuple(false, true, {});
      expect_block_end();
      return s;
    }
    auto s = make(sk::set_block, line);
    s->target = std::move(target);
    if (is_op("|")) s->e = parse_filter_chain(nullptr);
    expect_block_end();
    s->main = parse_body({"endset"});
    next();
    expect_block_end();
    return s;
  }

  void parse_signature(stmt& s) {
    expect_op("(");
    while (!is_op(")")) {
      if (!s.params.empty()) expect_op(",");
      param p;
      p.name = expect_name();
      p.sym = sym(p.name);
      if (skip_op("=")) p.def = parse_expression(true);
      else {
        for (const auto& q : s.params)
          if (q.def) fail("non-default argument follows default argument");
        p.missing = value::undefined("parameter '" + p.name + "' was not provided");
      }
      s.params.push_back(std::move(p));
    }
    expect_op(")");
  }

  stmt_ptr parse_macro(uint32_t line) {
    auto s = make(sk::macro, line);
    s->text = expect_name();
    s->sym = sym(s->text);
    parse_signature(*s);
    expect_block_end();
    int saved_loops = std::exchange(loops_, 0);
    s->main = parse_body({"endmacro"});
    loops_ = saved_loops;
    next();
    if (cur().type == tok::name && cur().value == s->text) next();
    expect_block_end();
    return s;
  }

  stmt_ptr parse_call_block(uint32_t line) {
    auto s = make(sk::call_block, line);
    if (is_op("(")) parse_signature(*s);
    s->e = parse_expression(true);
    if (s->e->kind != ek::call) fail("expected call");
    expect_block_end();
    int saved_loops = std::exchange(loops_, 0);
    s->main = parse_body({"endcall"});
    loops_ = saved_loops;
    next();
    expect_block_end();
    return s;
  }

  stmt_ptr parse_filter_block(uint32_t line) {
    auto s = make(sk::filter_block, line);
    s->e = parse_filter_chain(nullptr, true);
    expect_block_end();
    s->main = parse_body({"endfilter"});
    next();
    expect_block_end();
    return s;
  }

  // Assignment target: a name, a namespace attribute (ns.x, with_namespace), or a tuple of names.
  expr_ptr parse_assign_target(bool with_namespace, std::initializer_list<std::string_view> end_names) {
    auto one = [&]() -> expr_ptr {
      const token& t = cur();
      if (t.type != tok::name) fail("can't assign to '" + describe(t) + "'");
      std::string n = t.value;
      next();
      if (with_namespace && is_op(".")) {
        next();
        auto e = node(ek::getattr, t.line);
        auto base = node(ek::name, t.line);
        base->sym = sym(n);
        e->a = std::move(base);
        e->name = expect_name();
        return e;
      }
      if (n == "true" || n == "false" || n == "none" || n == "True" || n == "False" || n == "None")
        fail_at(t, "can't assign to '" + n + "'");
      auto e = node(ek::name, t.line);
      e->sym = sym(n);
      return e;
    };
    uint32_t line = cur().line;
    std::vector<expr_ptr> items;
    bool is_tuple = false;
    bool paren = skip_op("(");
    for (;;) {
      if (!items.empty()) {
        if (!skip_op(",")) break;
        is_tuple = true;
      }
      bool end = cur().type == tok::block_end || is_op("=") || is_op(")") || is_op("|");
      for (auto n : end_names)
        if (is_name(n)) end = true;
      if (end) break;
      items.push_back(one());
    }
    if (paren) expect_op(")");
    if (items.empty()) fail("expected an assignment target");
    if (!is_tuple && items.size() == 1) return std::move(items[0]);
    auto t = node(ek::tuple, line);
    t->args = std::move(items);
    return t;
  }

  // ---- expressions ----

  expr_ptr parse_tuple(bool simplified, bool with_condexpr, std::initializer_list<std::string_view> end_names,
                       bool explicit_paren = false) {
    uint32_t line = cur().line;
    std::vector<expr_ptr> items;
    bool is_tuple = false;
    for (;;) {
      if (!items.empty()) expect_op(",");
      bool end = cur().type == tok::var_end || cur().type == tok::block_end || is_op(")");
      for (auto n : end_names)
        if (is_name(n)) end = true;
      if (end) break;
      items.push_back(simplified ? parse_primary() : parse_expression(with_condexpr));
      if (is_op(",")) is_tuple = true;
      else break;
    }
    if (!is_tuple) {
      if (!items.empty()) return std::move(items[0]);
      if (!explicit_paren) fail("Expected an expression, got '" + describe(cur()) + "'");
    }
    auto t = node(ek::tuple, line);
    t->args = std::move(items);
    return t;
  }

  expr_ptr parse_expression(bool with_condexpr) { return with_condexpr ? parse_condexpr() : parse_or(); }

  expr_ptr parse_condexpr() {
    uint32_t line = cur().line;
    expr_ptr e = parse_or();
    while (skip_name("if")) {
      auto c = node(ek::cond, line);
      c->b = parse_or();
      if (skip_name("else")) c->c = parse_condexpr();
      c->a = std::move(e);
      e = std::move(c);
    }
    return e;
  }

  expr_ptr bin(ek k, expr_ptr a, expr_ptr b, uint32_t line) {
    auto e = node(k, line);
    e->a = std::move(a);
    e->b = std::move(b);
    return e;
  }

  expr_ptr parse_or() {
    uint32_t line = cur().line;
    expr_ptr e = parse_and();
    while (skip_name("or")) e = bin(ek::or_, std::move(e), parse_and(), line);
    return e;
  }
  expr_ptr parse_and() {
    uint32_t line = cur().line;
    expr_ptr e = parse_not();
    while (skip_name("and")) e = bin(ek::and_, std::move(e), parse_not(), line);
    return e;
  }
  expr_ptr parse_not() {
    nest guard(*this);
    if (is_name("not")) {
      uint32_t line = cur().line;
      next();
      auto e = node(ek::not_, line);
      e->a = parse_not();
      return e;
    }
    return parse_compare();
  }
  expr_ptr parse_compare() {
    uint32_t line = cur().line;
    expr_ptr e = parse_math1();
    expr_ptr cmp;
    for (;;) {
      cmpop op;
      if (cur().type == tok::op && (cur().value == "==" || cur().value == "!=" || cur().value == "<" ||
                                    cur().value == "<=" || cur().value == ">" || cur().value == ">=")) {
        const std::string& v = cur().value;
        op = v == "==" ? cmpop::eq : v == "!=" ? cmpop::ne : v == "<" ? cmpop::lt : v == "<=" ? cmpop::le
             : v == ">" ? cmpop::gt : cmpop::ge;
        next();
      } else if (is_name("in")) {
        op = cmpop::in;
        next();
      } else if (is_name("not") && peek().type == tok::name && peek().value == "in") {
        op = cmpop::notin;
        next();
        next();
      } else {
        break;
      }
      if (!cmp) {
        cmp = node(ek::compare, line);
        cmp->a = std::move(e);
      }
      cmp->ops.push_back(op);
      cmp->args.push_back(parse_math1());
    }
    return cmp ? std::move(cmp) : std::move(e);
  }
  expr_ptr binop_node(binop op, expr_ptr a, expr_ptr b, uint32_t line) {
    auto e = bin(ek::binop, std::move(a), std::move(b), line);
    e->bop = op;
    return e;
  }
  expr_ptr parse_math1() {
    uint32_t line = cur().line;
    expr_ptr e = parse_concat();
    while (is_op("+") || is_op("-")) {
      binop op = cur().value == "+" ? binop::add : binop::sub;
      next();
      e = binop_node(op, std::move(e), parse_concat(), line);
    }
    return e;
  }
  expr_ptr parse_concat() {
    uint32_t line = cur().line;
    expr_ptr e = parse_math2();
    while (skip_op("~")) e = binop_node(binop::concat, std::move(e), parse_math2(), line);
    return e;
  }
  expr_ptr parse_math2() {
    uint32_t line = cur().line;
    expr_ptr e = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      const std::string& v = cur().value;
      binop op = v == "*" ? binop::mul : v == "/" ? binop::div : v == "//" ? binop::floordiv : binop::mod;
      next();
      e = binop_node(op, std::move(e), parse_pow(), line);
    }
    return e;
  }
  expr_ptr parse_pow() {
    uint32_t line = cur().line;
    expr_ptr e = parse_unary(true);
    while (skip_op("**")) e = binop_node(binop::pow, std::move(e), parse_unary(true), line);
    return e;
  }
  expr_ptr parse_unary(bool with_filter) {
    nest guard(*this);
    uint32_t line = cur().line;
    expr_ptr e;
    if (is_op("-") || is_op("+")) {
      bool neg = cur().value == "-";
      next();
      e = node(neg ? ek::neg : ek::pos, line);
      e->a = parse_unary(false);
    } else {
      e = parse_primary();
    }
    e = parse_postfix(std::move(e));
    if (with_filter) e = parse_filter_expr(std::move(e));
    return e;
  }

  expr_ptr parse_primary() {
    const token& t = cur();
    uint32_t line = t.line;
    switch (t.type) {
      case tok::name: {
        std::string n = t.value;
        next();
        auto e = node(ek::literal, line);
        if (n == "true" || n == "True") e->lit = value(true);
        else if (n == "false" || n == "False") e->lit = value(false);
        else if (n == "none" || n == "None") e->lit = value::none();
        else {
          e->kind = ek::name;
          e->sym = sym(n);
          e->name = n;
        }
        return e;
      }
      case tok::string: {
        std::string s;
        while (cur().type == tok::string) {
          s += cur().value;
          next();
        }
        auto e = node(ek::literal, line);
        e->lit = value(std::move(s));
        return e;
      }
      case tok::integer: {
        auto e = node(ek::literal, line);
        const std::string& v = t.value;
        int base = 10;
        size_t off = 0;
        if (v.size() > 1 && v[0] == '0' && std::isalpha(static_cast<unsigned char>(v[1]))) {
          char b = static_cast<char>(std::tolower(v[1]));
          base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
          off = 2;
        }
        int64_t x = 0;
        auto r = std::from_chars(v.data() + off, v.data() + v.size(), x, base);
        if (r.ec != std::errc()) {
          // Python ints grow; ours are 64-bit: a bigger literal becomes a float.
          e->lit = value(std::strtod(v.c_str(), nullptr));
        } else {
          e->lit = value(x);
        }
        next();
        return e;
      }
      case tok::floating: {
        auto e = node(ek::literal, line);
        e->lit = value(std::strtod(t.value.c_str(), nullptr));
        next();
        return e;
      }
      case tok::op:
        if (t.value == "(") {
          next();
          auto e = parse_tuple(false, true, {}, true);
          expect_op(")");
          return e;
        }
        if (t.value == "[") {
          next();
          auto e = node(ek::list, line);
          while (!is_op("]")) {
            if (!e->args.empty()) expect_op(",");
            if (is_op("]")) break;
            e->args.push_back(parse_expression(true));
          }
          expect_op("]");
          return e;
        }
        if (t.value == "{") {
          next();
          auto e = node(ek::dict, line);
          while (!is_op("}")) {
            if (!e->args.empty()) expect_op(",");
            if (is_op("}")) break;
            e->args.push_back(parse_expression(true));
            expect_op(":");
            e->args.push_back(parse_expression(true));
          }
          expect_op("}");
          return e;
        }
        break;
      default: break;
    }
    fail("unexpected '" + describe(t) + "'");
  }

  // dict fast path of `x.name` / `x['name']` (runtime.cpp): not a dict method, and the miss
  static void prepare_dict_access(expr& g, const std::string& key) {
    static const char* const methods[] = {"copy", "get", "items", "keys", "values", "clear",
                                          "pop", "popitem", "setdefault", "update", "fromkeys"};
    g.dict_key = true;
    for (const char* m : methods)
      if (key == m) g.dict_key = false;
    g.dict_miss = value::undefined("'dict object' has no attribute '" + key + "'");
  }

  expr_ptr parse_postfix(expr_ptr e) {
    for (;;) {
      uint32_t line = cur().line;
      if (is_op(".")) {
        next();
        if (cur().type == tok::name) {
          auto g = node(ek::getattr, line);
          g->a = std::move(e);
          g->name = cur().value;
          g->lit = value(g->name);  // the name as a key, for `set ns.name = ...`
          prepare_dict_access(*g, g->name);
          next();
          e = std::move(g);
        } else if (cur().type == tok::integer) {
          auto g = node(ek::getitem, line);
          g->a = std::move(e);
          g->b = node(ek::literal, line);
          g->b->lit = value(static_cast<int64_t>(std::strtoll(cur().value.c_str(), nullptr, 10)));
          next();
          e = std::move(g);
        } else {
          fail("expected name or number");
        }
      } else if (is_op("[")) {
        next();
        auto g = node(ek::getitem, line);
        g->a = std::move(e);
        std::vector<expr_ptr> idx;
        bool tuple = false;
        while (!is_op("]")) {
          if (!idx.empty()) {
            expect_op(",");
            tuple = true;
          }
          idx.push_back(parse_subscribed());
        }
        expect_op("]");
        if (idx.empty()) fail("expected subscript expression");
        if (tuple) {
          g->b = node(ek::tuple, line);
          g->b->args = std::move(idx);
        } else {
          g->b = std::move(idx[0]);
          if (g->b->kind == ek::literal && g->b->lit.is_string()) prepare_dict_access(*g, g->b->lit.as_string());
        }
        e = std::move(g);
      } else if (is_op("(")) {
        e = parse_call(std::move(e));
      } else {
        return e;
      }
    }
  }

  expr_ptr parse_subscribed() {
    uint32_t line = cur().line;
    expr_ptr first;
    if (!is_op(":")) {
      first = parse_expression(true);
      if (!is_op(":")) return first;
    }
    next();  // ':'
    auto s = node(ek::slice, line);
    s->a = std::move(first);
    if (!is_op("]") && !is_op(",") && !is_op(":")) s->b = parse_expression(true);
    if (skip_op(":"))
      if (!is_op("]") && !is_op(",")) s->c = parse_expression(true);
    return s;
  }

  void parse_call_args(expr& e) {
    expect_op("(");
    bool kw = false;
    while (!is_op(")")) {
      if (!e.args.empty() || !e.kwargs.empty()) {
        expect_op(",");
        if (is_op(")")) break;
      }
      if (is_op("*") || is_op("**")) fail("*args and **kwargs in calls are not supported");
      if (cur().type == tok::name && peek().type == tok::op && peek().value == "=") {
        std::string k = cur().value;
        next();
        next();
        e.kwargs.emplace_back(std::move(k), parse_expression(true));
        kw = true;
      } else {
        if (kw) fail("Invalid argument syntax");
        e.args.push_back(parse_expression(true));
      }
    }
    expect_op(")");
  }

  expr_ptr parse_call(expr_ptr callee) {
    auto e = node(ek::call, cur().line);
    e->a = std::move(callee);
    parse_call_args(*e);
    return e;
  }

  expr_ptr parse_one_filter(expr_ptr operand) {
    uint32_t line = cur().line;
    auto f = node(ek::filter, line);
    f->name = expect_name();
    while (is_op(".")) {
      next();
      f->name += "." + expect_name();
    }
    f->a = std::move(operand);
    f->filter = find_filter(f->name);  // unknown: an error when it runs, as jinja2 in a branch not taken
    if (is_op("(")) parse_call_args(*f);
    return f;
  }

  // `| f(...) | g` with a null operand (filter blocks, block set).
  expr_ptr parse_filter_chain(expr_ptr operand, bool first_without_pipe = false) {
    expr_ptr e = std::move(operand);
    if (first_without_pipe) e = parse_one_filter(std::move(e));
    while (skip_op("|")) e = parse_one_filter(std::move(e));
    return e;
  }

  expr_ptr parse_filter_expr(expr_ptr e) {
    for (;;) {
      if (skip_op("|")) {
        e = parse_one_filter(std::move(e));
      } else if (is_name("is")) {
        uint32_t line = cur().line;
        next();
        auto t = node(ek::test, line);
        if (skip_name("not")) t->negate = true;
        t->name = expect_name();
        while (is_op(".")) {
          next();
          t->name += "." + expect_name();
        }
        t->a = std::move(e);
        t->test = find_test(t->name);
        if (is_op("(")) {
          parse_call_args(*t);
        } else if ((cur().type == tok::name || cur().type == tok::string || cur().type == tok::integer ||
                    cur().type == tok::floating || is_op("(") || is_op("[") || is_op("{")) &&
                   !is_name("else") && !is_name("or") && !is_name("and")) {
          if (is_name("is")) fail("You cannot chain multiple tests with is");
          t->args.push_back(parse_postfix(parse_primary()));
        }
        e = std::move(t);
      } else if (is_op("(")) {
        e = parse_call(std::move(e));
      } else {
        return e;
      }
    }
  }
};

}  // namespace

result<body> parse_body_of(std::string_view source, const options& opts, program_impl& prog) {
  auto toks = lex(source, opts);
  if (!toks) return toks.error();
  try {
    parser p(std::move(*toks), prog);
    return p.parse_template();
  } catch (const syntax_error& e) {
    return make_error(errc::invalid_template, no_offset,
                      "line " + std::to_string(e.line) + ", column " + std::to_string(e.col) + ": " + e.what);
  }
}

}  // namespace gguf::jinja::detail
