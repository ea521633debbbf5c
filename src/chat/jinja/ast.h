// The Jinja syntax tree (internal): what the parser builds and the runtime walks.
//
// Names are interned: every identifier the template mentions gets a symbol id (its
// index in program_impl::symbols), so that variable lookup compares integers.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "chat/jinja/jinja.h"

namespace gguf::jinja::detail {

enum class ek : uint8_t {
  literal,   ///< lit
  name,      ///< sym
  list,      ///< args
  tuple,     ///< args
  dict,      ///< args: key, value, key, value, ...
  getattr,   ///< a . name
  getitem,   ///< a [ b ]
  slice,     ///< a:b:c (any may be null), only as getitem's b
  call,      ///< a ( args, kwargs )
  filter,    ///< a | name ( args, kwargs ); a null in a filter block
  test,      ///< a is [not] name ( args, kwargs ); negate
  not_,      ///< not a
  neg,       ///< -a
  pos,       ///< +a
  binop,     ///< a op b: + - * / // % ** ~
  compare,   ///< a ops[0] args[0] ops[1] args[1] ...
  and_,
  or_,
  cond,      ///< a if b else c (c may be null)
};

/// A built-in filter or test (filters.cpp, tests.cpp), resolved by the parser.
using filter_fn = value (*)(interp& in, const value& v, arguments& a);
using test_fn = bool (*)(interp& in, const value& v, arguments& a);
filter_fn find_filter(std::string_view name);
test_fn find_test(std::string_view name);

enum class binop : uint8_t { add, sub, mul, div, floordiv, mod, pow, concat };
enum class cmpop : uint8_t { eq, ne, lt, le, gt, ge, in, notin };

struct expr;
using expr_ptr = std::unique_ptr<expr>;

struct expr {
  ek kind;
  uint32_t line = 0;
  int sym = -1;          ///< name: symbol id
  bool negate = false;   ///< test: `is not`
  binop bop = binop::add;
  value lit;             ///< literal (getattr: the attribute name as a string value)
  std::string name;      ///< getattr / filter / test name
  expr_ptr a, b, c;
  std::vector<expr_ptr> args;
  std::vector<std::pair<std::string, expr_ptr>> kwargs;
  std::vector<cmpop> ops;
  /// getattr, and getitem with a literal string key: what a dict without that key gives
  /// ("'dict object' has no attribute 'k'"), made once by the parser; `dict_key` tells
  /// that the name is not a dict method, so a dict's entry is the answer.
  value dict_miss;
  bool dict_key = false;
  filter_fn filter = nullptr;  ///< filter: the built-in, when the name is known
  test_fn test = nullptr;      ///< test: the built-in, when the name is known
  /// Levels of the tree under and with this node (the parser bounds it: parser::seal), so
  /// that no recursive walk over an expression overflows the stack.
  uint32_t height = 1;
};

enum class sk : uint8_t {
  text,          ///< text
  output,        ///< {{ e }}
  if_,           ///< branches: (cond, body)...; else_body
  for_,          ///< target, e (iterable), cond (filter), body, else_body, recursive
  set,           ///< target = e
  set_block,     ///< target (name) = rendered body, optional filter e (filter chain, a null)
  macro,         ///< name sym, params, body
  call_block,    ///< e (the call), params (caller's), body
  filter_block,  ///< e (filter chain), body
  break_,
  continue_,
  scope,         ///< body in a scope of its own: with (target/e pairs in params), generation
};

struct stmt;
using stmt_ptr = std::unique_ptr<stmt>;
using body = std::vector<stmt_ptr>;

struct param {
  int sym;
  std::string name;
  expr_ptr def;  ///< default value, may be null
  value missing;  ///< what the parameter is when a macro call does not provide it (made once)
};

struct stmt {
  sk kind;
  uint32_t line = 0;
  std::string text;
  expr_ptr e, target, cond;
  std::vector<std::pair<expr_ptr, body>> branches;
  body main, else_body;
  std::vector<param> params;
  int sym = -1;            ///< macro name
  bool recursive = false;
  bool uses_caller = false, uses_varargs = false, uses_kwargs = false;  ///< macro
};

}  // namespace gguf::jinja::detail

namespace gguf::jinja {
struct program_impl {
  std::vector<std::string> symbols;  ///< symbol id -> name
  std::vector<value> defaults;       ///< symbol id -> the global of that name, or an undefined value
  detail::body root;
  size_t source_size = 0;
};
}  // namespace gguf::jinja
