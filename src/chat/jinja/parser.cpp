// The Jinja parser: statements (if, for, set, macro, call, filter blocks, assignment
// targets) and the entry point parse_body_of; expressions are in parser_expr.cpp.
#include "chat/jinja/parser.h"

namespace gguf::jinja::detail {

// Parses until one of `ends` (a block tag name) is the current name after `{%`.
body parser::parse_body(std::initializer_list<std::string_view> ends) {
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

stmt_ptr parser::make(sk k, uint32_t line) {
  auto s = std::make_unique<stmt>();
  s->kind = k;
  s->line = line;
  return s;
}

stmt_ptr parser::parse_statement() {
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

stmt_ptr parser::parse_if(uint32_t line) {
  auto s = make(sk::if_, line);
  for (;;) {
    expr_ptr cond = parse_tuple(false, false, {});
    expect_block_end();
    body b = parse_body({"elif", "else", "endif"});
    s->branches.emplace_back(std::move(cond), std::move(b));
    if (is_name("elif")) {
      next();
      continue;
    }
    s->else_body = parse_else("endif");
    return s;
  }
}

stmt_ptr parser::parse_for(uint32_t line) {
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
  s->else_body = parse_else("endfor");
  return s;
}

body parser::parse_else(std::string_view end_tag) {
  body else_body;
  if (skip_name("else")) {
    expect_block_end();
    else_body = parse_body({end_tag});
  }
  next();  // end_tag
  expect_block_end();
  return else_body;
}

stmt_ptr parser::parse_set(uint32_t line) {
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

void parser::parse_signature(stmt& s) {
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

stmt_ptr parser::parse_macro(uint32_t line) {
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

stmt_ptr parser::parse_call_block(uint32_t line) {
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

stmt_ptr parser::parse_filter_block(uint32_t line) {
  auto s = make(sk::filter_block, line);
  s->e = parse_filter_chain(nullptr, true);
  expect_block_end();
  s->main = parse_body({"endfilter"});
  next();
  expect_block_end();
  return s;
}

// Assignment target: a name, a namespace attribute (ns.x, with_namespace), or a tuple of names.
expr_ptr parser::parse_assign_target(bool with_namespace, std::initializer_list<std::string_view> end_names) {
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
      seal(*e);
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
  seal(*t);
  return t;
}

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
