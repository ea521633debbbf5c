// The Jinja parser (internal): tokens → syntax tree, following jinja2 3.1's parser.py.
// One class, two files: parser.cpp (statements, the entry point) and parser_expr.cpp
// (expressions: operator precedence, tuples, test arguments without parentheses).
#pragma once

#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "chat/jinja/ast.h"
#include "chat/jinja/lexer.h"
#include "chat/jinja/runtime.h"

namespace gguf::jinja::detail {

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

  /// Most levels an expression may have: chains (a ~ b ~ ..., x|f|g..., x.a.b..., `if else`)
  /// grow it one level a link, without the nesting that `nest` bounds; evaluation, analysis
  /// and destruction recurse once a level.
  static constexpr uint32_t max_expr_height = 1000;
  /// Sets e.height from its children (complete before it) and refuses past max_expr_height.
  expr& seal(expr& e) {
    uint32_t h = 0;
    auto take = [&h](const expr_ptr& c) {
      if (c && c->height > h) h = c->height;
    };
    take(e.a);
    take(e.b);
    take(e.c);
    for (const auto& c : e.args) take(c);
    for (const auto& kv : e.kwargs) take(kv.second);
    e.height = h + 1;
    if (e.height > max_expr_height)
      fail("expression nested deeper than " + std::to_string(max_expr_height) + " levels");
    return e;
  }
  expr_ptr node(ek k, uint32_t line) {
    auto e = std::make_unique<expr>();
    e->kind = k;
    e->line = line;
    return e;
  }

  // ---- statements (parser.cpp) ----

  // Parses until one of `ends` (a block tag name) is the current name after `{%`.
  body parse_body(std::initializer_list<std::string_view> ends);
  stmt_ptr make(sk k, uint32_t line);
  stmt_ptr parse_statement();
  stmt_ptr parse_if(uint32_t line);
  stmt_ptr parse_for(uint32_t line);
  /// At the tag that ended a block's body: `else` and its body up to end_tag, if there; then
  /// end_tag and its block end (parse_if, parse_for). The else body, empty without `else`.
  body parse_else(std::string_view end_tag);
  stmt_ptr parse_set(uint32_t line);
  void parse_signature(stmt& s);
  stmt_ptr parse_macro(uint32_t line);
  stmt_ptr parse_call_block(uint32_t line);
  stmt_ptr parse_filter_block(uint32_t line);
  // Assignment target: a name, a namespace attribute (ns.x, with_namespace), or a tuple of names.
  expr_ptr parse_assign_target(bool with_namespace, std::initializer_list<std::string_view> end_names);

  // ---- expressions (parser_expr.cpp) ----

  expr_ptr parse_tuple(bool simplified, bool with_condexpr, std::initializer_list<std::string_view> end_names,
                       bool explicit_paren = false);
  expr_ptr parse_expression(bool with_condexpr);
  expr_ptr parse_condexpr();
  expr_ptr bin(ek k, expr_ptr a, expr_ptr b, uint32_t line);
  expr_ptr parse_or();
  expr_ptr parse_and();
  expr_ptr parse_not();
  expr_ptr parse_compare();
  /// An operator of a precedence level (parse_level): a word (`or`) or an operator token (`+`),
  /// and the node it makes (kind; bop when kind is ek::binop).
  struct level_op {
    std::string_view text;
    bool word;
    ek kind;
    binop bop = binop::add;
  };
  template <class Operand>
  expr_ptr parse_level(Operand operand, std::span<const level_op> ops);
  template <class Item>
  void parse_items(std::string_view close, Item item);
  expr_ptr parse_math1();
  expr_ptr parse_concat();
  expr_ptr parse_math2();
  expr_ptr parse_pow();
  expr_ptr parse_unary(bool with_filter);
  expr_ptr parse_primary();
  // dict fast path of `x.name` / `x['name']` (runtime.cpp): not a dict method, and the miss
  static void prepare_dict_access(expr& g, const std::string& key);
  expr_ptr parse_postfix(expr_ptr e);
  expr_ptr parse_subscribed();
  void parse_call_args(expr& e);
  expr_ptr parse_call(expr_ptr callee);
  std::string expect_dotted_name();
  expr_ptr parse_one_filter(expr_ptr operand);
  // `| f(...) | g` with a null operand (filter blocks, block set).
  expr_ptr parse_filter_chain(expr_ptr operand, bool first_without_pipe = false);
  expr_ptr parse_filter_expr(expr_ptr e);
};

}  // namespace gguf::jinja::detail
