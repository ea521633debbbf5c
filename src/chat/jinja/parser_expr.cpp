// The Jinja parser: expressions, following jinja2 3.1's parser.py (operator precedence,
// tuples, test arguments without parentheses, filters, calls, subscripts).
#include <charconv>
#include <cstdlib>
#include <span>

#include "chat/jinja/parser.h"

namespace gguf::jinja::detail {

// Comma-separated items up to the operator `close` (a trailing comma allowed, as jinja2's
// list, dict and call syntax), each read by `item`; consumes `close`.
template <class Item>
void parser::parse_items(std::string_view close, Item item) {
  for (bool first = true; !is_op(close); first = false) {
    if (!first) {
      expect_op(",");
      if (is_op(close)) break;
    }
    item();
  }
  expect_op(close);
}

expr_ptr parser::parse_tuple(bool simplified, bool with_condexpr, std::initializer_list<std::string_view> end_names, bool explicit_paren) {
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
  seal(*t);
  return t;
}

expr_ptr parser::parse_expression(bool with_condexpr) {
  return with_condexpr ? parse_condexpr() : parse_or();
}

expr_ptr parser::parse_condexpr() {
  nest guard(*this);  // `a if b else c if d else ...` recurses once an `else`
  uint32_t line = cur().line;
  expr_ptr e = parse_or();
  while (skip_name("if")) {
    auto c = node(ek::cond, line);
    c->b = parse_or();
    if (skip_name("else")) c->c = parse_condexpr();
    c->a = std::move(e);
    seal(*c);
    e = std::move(c);
  }
  return e;
}

expr_ptr parser::bin(ek k, expr_ptr a, expr_ptr b, uint32_t line) {
  auto e = node(k, line);
  e->a = std::move(a);
  e->b = std::move(b);
  seal(*e);
  return e;
}

// One left-associative precedence level: operand (OP operand)*, OP one of `ops` (a word such
// as `or`, or an operator token); each OP joins the left side so far with the next operand.
template <class Operand>
expr_ptr parser::parse_level(Operand operand, std::span<const level_op> ops) {
  uint32_t line = cur().line;
  expr_ptr e = operand();
  for (;;) {
    const level_op* hit = nullptr;
    for (const level_op& o : ops) {
      if (o.word ? is_name(o.text) : is_op(o.text)) {
        hit = &o;
        break;
      }
    }
    if (!hit) return e;
    next();
    e = bin(hit->kind, std::move(e), operand(), line);
    if (hit->kind == ek::binop) e->bop = hit->bop;
  }
}

expr_ptr parser::parse_or() {
  static constexpr level_op ops[] = {{"or", true, ek::or_}};
  return parse_level([this] { return parse_and(); }, ops);
}

expr_ptr parser::parse_and() {
  static constexpr level_op ops[] = {{"and", true, ek::and_}};
  return parse_level([this] { return parse_not(); }, ops);
}

expr_ptr parser::parse_not() {
  nest guard(*this);
  if (is_name("not")) {
    uint32_t line = cur().line;
    next();
    auto e = node(ek::not_, line);
    e->a = parse_not();
    seal(*e);
    return e;
  }
  return parse_compare();
}

expr_ptr parser::parse_compare() {
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
    seal(*cmp);
  }
  return cmp ? std::move(cmp) : std::move(e);
}

expr_ptr parser::parse_math1() {
  static constexpr level_op ops[] = {{"+", false, ek::binop, binop::add}, {"-", false, ek::binop, binop::sub}};
  return parse_level([this] { return parse_concat(); }, ops);
}

expr_ptr parser::parse_concat() {
  static constexpr level_op ops[] = {{"~", false, ek::binop, binop::concat}};
  return parse_level([this] { return parse_math2(); }, ops);
}

expr_ptr parser::parse_math2() {
  static constexpr level_op ops[] = {{"*", false, ek::binop, binop::mul}, {"/", false, ek::binop, binop::div},
                                     {"//", false, ek::binop, binop::floordiv}, {"%", false, ek::binop, binop::mod}};
  return parse_level([this] { return parse_pow(); }, ops);
}

expr_ptr parser::parse_pow() {
  static constexpr level_op ops[] = {{"**", false, ek::binop, binop::pow}};
  return parse_level([this] { return parse_unary(true); }, ops);
}

expr_ptr parser::parse_unary(bool with_filter) {
  nest guard(*this);
  uint32_t line = cur().line;
  expr_ptr e;
  if (is_op("-") || is_op("+")) {
    bool neg = cur().value == "-";
    next();
    e = node(neg ? ek::neg : ek::pos, line);
    e->a = parse_unary(false);
    seal(*e);
  } else {
    e = parse_primary();
  }
  e = parse_postfix(std::move(e));
  if (with_filter) e = parse_filter_expr(std::move(e));
  return e;
}

expr_ptr parser::parse_primary() {
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
        parse_items("]", [&] { e->args.push_back(parse_expression(true)); });
        seal(*e);
        return e;
      }
      if (t.value == "{") {
        next();
        auto e = node(ek::dict, line);
        parse_items("}", [&] {
          e->args.push_back(parse_expression(true));
          expect_op(":");
          e->args.push_back(parse_expression(true));
        });
        seal(*e);
        return e;
      }
      break;
    default: break;
  }
  fail("unexpected '" + describe(t) + "'");
}

// dict fast path of `x.name` / `x['name']` (runtime.cpp): not a dict method, and the miss
void parser::prepare_dict_access(expr& g, const std::string& key) {
  static const char* const methods[] = {"copy", "get", "items", "keys", "values", "clear",
                                        "pop", "popitem", "setdefault", "update", "fromkeys"};
  g.dict_key = true;
  for (const char* m : methods)
    if (key == m) g.dict_key = false;
  g.dict_miss = value::undefined("'dict object' has no attribute '" + key + "'");
}

expr_ptr parser::parse_postfix(expr_ptr e) {
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
        seal(*g);
        e = std::move(g);
      } else if (cur().type == tok::integer) {
        auto g = node(ek::getitem, line);
        g->a = std::move(e);
        g->b = node(ek::literal, line);
        g->b->lit = value(static_cast<int64_t>(std::strtoll(cur().value.c_str(), nullptr, 10)));
        next();
        seal(*g);
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
        seal(*g->b);
      } else {
        g->b = std::move(idx[0]);
        if (g->b->kind == ek::literal && g->b->lit.is_string()) prepare_dict_access(*g, g->b->lit.as_string());
      }
      seal(*g);
      e = std::move(g);
    } else if (is_op("(")) {
      e = parse_call(std::move(e));
    } else {
      return e;
    }
  }
}

expr_ptr parser::parse_subscribed() {
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
  seal(*s);
  return s;
}

void parser::parse_call_args(expr& e) {
  expect_op("(");
  bool kw = false;
  parse_items(")", [&] {
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
  });
}

expr_ptr parser::parse_call(expr_ptr callee) {
  auto e = node(ek::call, cur().line);
  e->a = std::move(callee);
  parse_call_args(*e);
  seal(*e);
  return e;
}

// A filter's or test's name: `name` or `a.b.c`.
std::string parser::expect_dotted_name() {
  std::string n = expect_name();
  while (is_op(".")) {
    next();
    n += '.';  // two appends: "." + name trips GCC 12's -Wrestrict false positive (parse_filter_expr)
    n += expect_name();
  }
  return n;
}

expr_ptr parser::parse_one_filter(expr_ptr operand) {
  uint32_t line = cur().line;
  auto f = node(ek::filter, line);
  f->name = expect_dotted_name();
  f->a = std::move(operand);
  f->filter = find_filter(f->name);  // unknown: an error when it runs, as jinja2 in a branch not taken
  if (is_op("(")) parse_call_args(*f);
  seal(*f);
  return f;
}

// `| f(...) | g` with a null operand (filter blocks, block set).
expr_ptr parser::parse_filter_chain(expr_ptr operand, bool first_without_pipe) {
  expr_ptr e = std::move(operand);
  if (first_without_pipe) e = parse_one_filter(std::move(e));
  while (skip_op("|")) e = parse_one_filter(std::move(e));
  return e;
}

expr_ptr parser::parse_filter_expr(expr_ptr e) {
  for (;;) {
    if (skip_op("|")) {
      e = parse_one_filter(std::move(e));
    } else if (is_name("is")) {
      uint32_t line = cur().line;
      next();
      auto t = node(ek::test, line);
      if (skip_name("not")) t->negate = true;
      t->name = expect_dotted_name();
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
      seal(*t);
      e = std::move(t);
    } else if (is_op("(")) {
      e = parse_call(std::move(e));
    } else {
      return e;
    }
  }
}

}  // namespace gguf::jinja::detail
