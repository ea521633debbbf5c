// The Jinja lexer (internal): template source → tokens, with jinja2's whitespace rules.
//
// Follows jinja2 3.1's lexer.py: newlines (\r\n, \r, \n) are normalized to \n and one
// trailing newline is dropped unless keep_trailing_newline; `{%-`/`{{-`/`{#-` strip all
// whitespace before the tag and `-%}`/`-}}`/`-#}` all whitespace after; trim_blocks
// drops one \n after `%}` and `#}` (not after `+%}`); lstrip_blocks strips spaces and
// tabs before `{%`/`{#` when only whitespace precedes them on their line (not for
// `{%+`, not for `{{`); `{% raw %}...{% endraw %}` is text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chat/jinja/jinja.h"

namespace gguf::jinja::detail {

enum class tok : uint8_t {
  text,         ///< template data (already whitespace-controlled)
  var_begin,    ///< {{
  var_end,      ///< }}
  block_begin,  ///< {%
  block_end,    ///< %}
  name,
  string,       ///< value: the unescaped string
  integer,      ///< value: the digits (underscores removed), base prefix kept
  floating,
  op,           ///< value: the operator's text
  eof,
};

struct token {
  tok type;
  uint32_t line;
  uint32_t col;
  std::string value;
};

/// Tokens of `source`, ending with tok::eof. Errors: errc::invalid_template.
result<std::vector<token>> lex(std::string_view source, const options& opts);

/// Python's str.isspace() for one code point.
bool is_py_space(uint32_t cpt) noexcept;

}  // namespace gguf::jinja::detail
