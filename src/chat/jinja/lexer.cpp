#include "chat/jinja/lexer.h"

#include <cstring>

#include "vocab/unicode/unicode.h"

namespace gguf::jinja::detail {

bool is_py_space(uint32_t c) noexcept {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  return c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
         c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

namespace {

// Length of the whitespace code point at s[i], 0 when none.
size_t space_at(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return is_py_space(c) ? 1 : 0;
  uint32_t cpt = 0;
  size_t n = vocab_detail::utf8_decode_strict(s, i, cpt);
  return n && is_py_space(cpt) ? n : 0;
}

size_t skip_space(std::string_view s, size_t i) {
  while (i < s.size()) {
    size_t n = space_at(s, i);
    if (!n) break;
    i += n;
  }
  return i;
}

// Start of the trailing whitespace of s (Python's rstrip()).
size_t rstrip_pos(std::string_view s) {
  size_t end = s.size();
  while (end > 0) {
    size_t b = end - 1;
    while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xc0) == 0x80) --b;
    if (space_at(s, b) != end - b) break;
    end = b;
  }
  return end;
}

bool all_space(std::string_view s) {
  return !s.empty() && skip_space(s, 0) == s.size();
}

struct lexer {
  std::string src;
  options opts;
  std::vector<token> out;
  size_t pos = 0;
  uint32_t line = 1;
  size_t line_start = 0;
  bool line_starting = true;

  gguf::error fail(size_t at, const std::string& what) {
    uint32_t l = 1;
    size_t ls = 0;
    for (size_t i = 0; i < at && i < src.size(); ++i)
      if (src[i] == '\n') ++l, ls = i + 1;
    return make_error(errc::invalid_template, no_offset,
                      "line " + std::to_string(l) + ", column " + std::to_string(at - ls + 1) + ": " + what);
  }

  void advance_to(size_t p) {
    for (size_t i = pos; i < p; ++i)
      if (src[i] == '\n') ++line, line_start = i + 1;
    pos = p;
  }

  void push(tok t, size_t at, std::string v = {}) {
    uint32_t l = line;
    size_t ls = line_start;
    for (size_t i = pos; i < at; ++i)
      if (src[i] == '\n') ++l, ls = i + 1;
    out.push_back({t, l, static_cast<uint32_t>(at - ls + 1), std::move(v)});
  }

  // The text before a tag, whitespace-controlled by the tag's sign.
  void emit_text(size_t start, size_t end, char sign, bool lstrip_ok) {
    std::string_view text(src.data() + start, end - start);
    if (sign == '-') {
      text = text.substr(0, rstrip_pos(text));
    } else if (sign != '+' && opts.lstrip_blocks && lstrip_ok) {
      size_t l_pos = text.rfind('\n');
      l_pos = l_pos == std::string_view::npos ? 0 : l_pos + 1;
      if ((l_pos > 0 || line_starting) && all_space(text.substr(l_pos))) text = text.substr(0, l_pos);
    }
    if (!text.empty()) push(tok::text, start, std::string(text));
  }

  // After `%}`/`#}`/`}}` at p (p points past the closing chars): the whitespace rule.
  size_t after_end(size_t p, char sign, bool trim) {
    if (sign == '-') return skip_space(src, p);
    if (sign != '+' && trim && opts.trim_blocks && p < src.size() && src[p] == '\n') return p + 1;
    return p;
  }

  result<void> run();
  result<void> tag_tokens(bool block);
  result<void> raw(size_t body_start);
};

result<void> lexer::run() {
  while (pos < src.size()) {
    size_t t = src.find('{', pos);
    while (t != std::string::npos && t + 1 < src.size() && src[t + 1] != '{' && src[t + 1] != '%' &&
           src[t + 1] != '#')
      t = src.find('{', t + 1);
    if (t == std::string::npos || t + 1 >= src.size()) {
      push(tok::text, pos, src.substr(pos));
      advance_to(src.size());
      break;
    }
    char kind = src[t + 1];
    char sign = t + 2 < src.size() && (src[t + 2] == '-' || src[t + 2] == '+') ? src[t + 2] : 0;
    size_t inner = t + 2 + (sign ? 1 : 0);
    if (kind == '%') {  // {% raw %}?
      size_t q = skip_space(src, inner);
      if (src.compare(q, 3, "raw") == 0) {
        size_t r = skip_space(src, q + 3);
        bool dash = r < src.size() && src[r] == '-';
        if (src.compare(r + (dash ? 1 : 0), 2, "%}") == 0) {
          emit_text(pos, t, sign, true);
          size_t body = r + (dash ? 1 : 0) + 2;
          if (dash) body = skip_space(src, body);
          advance_to(body);
          if (auto r2 = raw(body); !r2) return r2;
          continue;
        }
      }
    }
    emit_text(pos, t, sign, kind != '{');
    advance_to(t);
    if (kind == '#') {
      size_t e = src.find("#}", inner);
      if (e == std::string::npos) return fail(t, "Missing end of comment tag");
      char esign = e > inner && (src[e - 1] == '-' || src[e - 1] == '+') ? src[e - 1] : 0;
      size_t p = after_end(e + 2, esign, true);
      line_starting = p > 0 && src[p - 1] == '\n';
      advance_to(p);
      continue;
    }
    push(kind == '%' ? tok::block_begin : tok::var_begin, t);
    advance_to(inner);
    if (auto r = tag_tokens(kind == '%'); !r) return r;
  }
  push(tok::eof, pos);
  return {};
}

// {% raw %}body{% endraw %}: body is text; the endraw tag's sign strips before it.
result<void> lexer::raw(size_t body) {
  size_t s = body;
  for (;;) {
    size_t t = src.find("{%", s);
    if (t == std::string::npos) return fail(body, "Missing end of raw directive");
    size_t q = t + 2;
    char sign = q < src.size() && (src[q] == '-' || src[q] == '+') ? src[q] : 0;
    q = skip_space(src, q + (sign ? 1 : 0));
    if (src.compare(q, 6, "endraw") != 0) {
      s = t + 2;
      continue;
    }
    q = skip_space(src, q + 6);
    char esign = 0;
    if (q < src.size() && (src[q] == '-' || src[q] == '+')) esign = src[q++];
    if (src.compare(q, 2, "%}") != 0) {
      s = t + 2;
      continue;
    }
    line_starting = false;
    emit_text(body, t, sign, true);
    size_t p = after_end(q + 2, esign, true);
    line_starting = p > 0 && src[p - 1] == '\n';
    advance_to(p);
    return {};
  }
}

bool is_name_start(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool is_name_char(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

result<void> lexer::tag_tokens(bool block) {
  std::vector<char> balance;
  for (;;) {
    pos = pos;  // (tokens below advance with advance_to)
    size_t p = skip_space(src, pos);
    advance_to(p);
    if (p >= src.size()) return fail(p, block ? "unexpected end of template, expected '%}'" : "unexpected end of template, expected '}}'");
    if (balance.empty()) {
      // end of the tag
      char sign = src[p] == '-' || src[p] == '+' ? src[p] : 0;
      if (block && sign != '-' && src[p] == '%' && p + 1 < src.size() && src[p + 1] == '}') sign = 0;
      size_t q = p + (sign ? 1 : 0);
      bool end = block ? src.compare(q, 2, "%}") == 0 : src.compare(q, 2, "}}") == 0;
      if (end && (sign != '+' || block)) {
        push(block ? tok::block_end : tok::var_end, p);
        size_t after = after_end(q + 2, sign, block);
        line_starting = after > 0 && src[after - 1] == '\n';
        advance_to(after);
        return {};
      }
    }
    unsigned char c = static_cast<unsigned char>(src[p]);
    // numbers
    if (std::isdigit(c)) {
      size_t q = p;
      bool is_float = false;
      auto digits = [&](size_t i) {
        size_t j = i;
        while (j < src.size() && (std::isdigit(static_cast<unsigned char>(src[j])) ||
                                  (src[j] == '_' && j > i && j + 1 < src.size() && std::isdigit(static_cast<unsigned char>(src[j + 1])))))
          ++j;
        return j;
      };
      std::string text;
      if (c == '0' && q + 1 < src.size() && std::strchr("xXoObB", src[q + 1])) {
        size_t j = q + 2;
        while (j < src.size() && (std::isxdigit(static_cast<unsigned char>(src[j])) || src[j] == '_')) ++j;
        text = src.substr(q, j - q);
        q = j;
      } else {
        q = digits(p);
        bool after_dot = p > 0 && src[p - 1] == '.';
        if (!after_dot && q + 1 < src.size() && src[q] == '.' && std::isdigit(static_cast<unsigned char>(src[q + 1]))) {
          q = digits(q + 1);
          is_float = true;
        }
        if (!after_dot && q < src.size() && (src[q] == 'e' || src[q] == 'E')) {
          size_t j = q + 1;
          if (j < src.size() && (src[j] == '+' || src[j] == '-')) ++j;
          if (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) {
            q = digits(j);
            is_float = true;
          }
        }
        text = src.substr(p, q - p);
      }
      std::erase(text, '_');
      push(is_float ? tok::floating : tok::integer, p, std::move(text));
      advance_to(q);
      continue;
    }
    if (is_name_start(c)) {
      size_t q = p;
      while (q < src.size() && is_name_char(static_cast<unsigned char>(src[q]))) ++q;
      push(tok::name, p, src.substr(p, q - p));
      advance_to(q);
      continue;
    }
    if (c == '\'' || c == '"') {
      std::string v;
      size_t q = p + 1;
      for (;;) {
        if (q >= src.size()) return fail(p, "unexpected char '" + std::string(1, char(c)) + "'");
        char d = src[q];
        if (d == char(c)) break;
        if (d != '\\') {
          v += d;
          ++q;
          continue;
        }
        if (q + 1 >= src.size()) return fail(p, "unexpected char '" + std::string(1, char(c)) + "'");
        char e = src[q + 1];
        q += 2;
        auto hex = [&](int n) -> long {
          if (q + n > src.size()) return -1;
          long r = 0;
          for (int i = 0; i < n; ++i) {
            char h = src[q + i];
            if (!std::isxdigit(static_cast<unsigned char>(h))) return -1;
            r = r * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
          }
          q += n;
          return r;
        };
        switch (e) {
          case '\n': break;
          case '\\': v += '\\'; break;
          case '\'': v += '\''; break;
          case '"': v += '"'; break;
          case 'a': v += '\a'; break;
          case 'b': v += '\b'; break;
          case 'f': v += '\f'; break;
          case 'n': v += '\n'; break;
          case 'r': v += '\r'; break;
          case 't': v += '\t'; break;
          case 'v': v += '\v'; break;
          case 'x': case 'u': case 'U': {
            long h = hex(e == 'x' ? 2 : e == 'u' ? 4 : 8);
            if (h < 0 || h > 0x10ffff) return fail(p, "truncated \\" + std::string(1, e) + " escape");
            vocab_detail::append_utf8(v, static_cast<uint32_t>(h));
            break;
          }
          default:
            if (e >= '0' && e <= '7') {
              uint32_t o = e - '0';
              for (int i = 0; i < 2 && q < src.size() && src[q] >= '0' && src[q] <= '7'; ++i) o = o * 8 + (src[q++] - '0');
              vocab_detail::append_utf8(v, o);
            } else {
              v += '\\';
              v += e;
            }
        }
      }
      push(tok::string, p, std::move(v));
      advance_to(q + 1);
      continue;
    }
    static const char* ops2[] = {"//", "**", "==", "!=", ">=", "<="};
    std::string op;
    for (const char* o : ops2)
      if (src.compare(p, 2, o) == 0) op = o;
    if (op.empty()) {
      if (!std::strchr("+-/*%~[](){}<>=.:|,;", c)) return fail(p, std::string("unexpected char '") + char(c) + "'");
      op = std::string(1, char(c));
      if (c == '(' || c == '[' || c == '{') balance.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
      if (c == ')' || c == ']' || c == '}') {
        if (balance.empty()) return fail(p, "unexpected '" + op + "'");
        if (balance.back() != char(c))
          return fail(p, "unexpected '" + op + "', expected '" + std::string(1, balance.back()) + "'");
        balance.pop_back();
      }
    }
    push(tok::op, p, op);
    advance_to(p + op.size());
  }
}

}  // namespace

result<std::vector<token>> lex(std::string_view source, const options& opts) {
  lexer lx;
  lx.opts = opts;
  lx.src.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      lx.src += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      lx.src += source[i];
    }
  }
  if (!opts.keep_trailing_newline && !lx.src.empty() && lx.src.back() == '\n') lx.src.pop_back();
  if (auto r = lx.run(); !r) return r.error();
  return std::move(lx.out);
}

}  // namespace gguf::jinja::detail
