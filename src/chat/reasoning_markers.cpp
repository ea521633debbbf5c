// Reasoning markers by differential analysis (see reasoning_markers.h). Follows llama.cpp v0.5.0
// common/chat-diff-analyzer.cpp (analyze_reasoning, the workarounds) and
// common/chat-auto-parser-helpers.cpp (segmentize_markers, calculate_diff_split), including the
// quirks of their matching, since the markers found decide the bytes of llama-server's prompt.
#include "chat/reasoning_markers.h"

#include <algorithm>

namespace gguf::chat_detail {
namespace {

using ojson = nlohmann::ordered_json;

// The probe texts of the analysis.
constexpr std::string_view user_text = "U_USER_MSG Hello END_U";
constexpr std::string_view assistant_text = "A_ASST_MSG I can help END_A";
constexpr std::string_view thinking_text = "REASON_PART I am thinking END_R";
constexpr std::string_view fun_first = "FFF_FIRST_FUN_F", fun_second = "SSS_SECOND_FUN_S";
constexpr std::string_view arg_first = "AA_ARG_FST_AA", arg_second = "BB_ARG_SND_BB";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

bool ends_with(std::string_view s, std::string_view end) {
  return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

size_t skip_space(std::string_view s, size_t p) {
  while (p < s.size() && is_space(s[p])) ++p;
  return p;
}

// The end of a marker starting at p ("<" to the first ">", or "[" to the first "]"), or npos.
size_t marker_end(std::string_view s, size_t p) {
  if (p >= s.size() || (s[p] != '<' && s[p] != '[')) return std::string_view::npos;
  size_t close = s.find(s[p] == '<' ? '>' : ']', p + 1);
  return close == std::string_view::npos ? close : close + 1;
}

std::vector<text_segment> without_blank(const std::vector<text_segment>& segs) {
  std::vector<text_segment> out;
  for (const auto& s : segs)
    if (!trim_ascii_space(s.value).empty()) out.push_back(s);
  return out;
}

struct tags {
  bool ok = false;
  std::string pre, post;
};

// First position where  MARKER SPACE* R  (SPACE* MARKER SPACE*)  matches: the wrapped parse.
// `space_in_post`: the space before the closing marker belongs to `post` (presence analysis) or
// not (scope analysis).
tags find_wrapped(std::string_view s, std::string_view r, bool space_in_post) {
  for (size_t i = 0; i < s.size(); ++i) {
    size_t m = marker_end(s, i);
    if (m == std::string_view::npos) continue;
    size_t at = skip_space(s, m);
    if (s.substr(at, r.size()) != r) continue;
    size_t after = at + r.size();
    size_t close_at = skip_space(s, after);
    size_t close = marker_end(s, close_at);
    if (close == std::string_view::npos) continue;
    size_t post_end = skip_space(s, close);
    size_t post_begin = space_in_post ? after : close_at;
    return {true, std::string(s.substr(i, at - i)), std::string(s.substr(post_begin, post_end - post_begin))};
  }
  return {};
}

// First occurrence of R, then an optional  MARKER SPACE*  after spaces: the delimiter parse.
tags find_delimited(std::string_view s, std::string_view r) {
  size_t at = s.find(r);
  if (at == std::string_view::npos) return {};
  size_t p = skip_space(s, at + r.size());
  size_t close = marker_end(s, p);
  if (close == std::string_view::npos) return {true, "", ""};
  return {true, "", std::string(s.substr(p, skip_space(s, close) - p))};
}

ojson user_message() { return {{"role", "user"}, {"content", user_text}}; }

ojson probe_tools() {
  ojson params = {{"type", "object"},
                  {"properties",
                   {{arg_first, {{"type", "string"}, {"description", "First argument"}}},
                    {arg_second, {{"type", "string"}, {"description", "Second argument"}}}}},
                  {"required", ojson::array()}};
  return ojson::array(
      {{{"type", "function"}, {"function", {{"name", fun_first}, {"description", "Test function foo"}, {"parameters", params}}}},
       {{"type", "function"},
        {"function", {{"name", fun_second}, {"description", "Test function bar"}, {"parameters", params}}}}});
}

struct analysis {
  const probe_render& render;
  reasoning_markers m;

  // reasoning_content in the last assistant turn: the markers around it.
  void presence() {
    ojson plain = {{"role", "assistant"}, {"content", assistant_text}};
    ojson with = plain;
    with["reasoning_content"] = thinking_text;
    auto a = render(ojson::array({user_message(), plain}), nullptr, false, true);
    auto b = render(ojson::array({user_message(), with}), nullptr, false, true);
    if (!a || !b) return;
    auto d = diff_by_markers(*a, *b);
    if (d.right.empty() || d.right.find(thinking_text) == std::string::npos) return;
    tags t = find_wrapped(*b, thinking_text, true);
    if (!t.ok) t = find_delimited(*b, thinking_text);
    if (!t.ok) return;
    if (!t.pre.empty() && !t.post.empty()) {
      m.mode = reasoning_mode::tag_based, m.start = t.pre, m.end = t.post;
    } else if (!t.post.empty()) {
      m.mode = reasoning_mode::tag_based, m.end = t.post;
    }
  }

  // enable_thinking off vs on in the generation prompt.
  void thinking_switch() {
    auto a = render(ojson::array({user_message()}), nullptr, true, false);
    auto b = render(ojson::array({user_message()}), nullptr, true, true);
    if (!a || !b) return;
    auto d = diff_by_markers(*a, *b);
    std::string left = trim_ascii_space(d.left), right = trim_ascii_space(d.right);
    if (left.empty() && !d.right.empty()) {
      if (!right.empty() && ends_with(*b, right) && m.start.empty()) {
        m.start = d.right;
        m.mode = reasoning_mode::tag_based;
      }
    } else if (right.empty() && !d.left.empty()) {
      if (!left.empty() && ends_with(*a, left) && m.end.empty()) {
        auto seg = without_blank(segment_markers(*a));
        if (seg.size() >= 2 && seg.back().value == left && seg[seg.size() - 2].marker) m.start = seg[seg.size() - 2].value;
        m.end = d.left;
        m.mode = reasoning_mode::tag_based;
      }
    } else if (!left.empty() && !right.empty()) {
      // the tail of one output found in the other, followed by a pair of markers
      constexpr size_t anchor_len = 64;
      for (int dir = 0; dir < 2; ++dir) {
        const std::string& base = dir == 0 ? *b : *a;
        const std::string& extended = dir == 0 ? *a : *b;
        size_t len = std::min(base.size(), anchor_len);
        size_t pos = extended.rfind(base.substr(base.size() - len));
        if (pos == std::string::npos || pos + len >= extended.size()) continue;
        std::string extra = trim_ascii_space(std::string_view(extended).substr(pos + len));
        if (extra.empty()) continue;
        auto seg = without_blank(segment_markers(extra));
        if (seg.size() == 2 && seg[0].marker && seg[1].marker) {
          if (m.start.empty()) m.start = seg[0].value;
          if (m.end.empty()) m.end = seg[1].value;
          m.mode = reasoning_mode::tag_based;
          break;
        }
      }
    }
    if (m.mode == reasoning_mode::none && m.start.empty() && !m.end.empty()) m.mode = reasoning_mode::tag_based;
  }

  // reasoning shown only before tool calls?
  void scope() {
    ojson with_content = {{"role", "assistant"}, {"content", assistant_text}, {"reasoning_content", thinking_text}};
    ojson call = {{"id", "call00001"},
                  {"type", "function"},
                  {"function", {{"name", fun_first}, {"arguments", {{arg_first, "VVVV"}, {arg_second, "XXXX"}}}}}};
    ojson with_call = {{"role", "assistant"},
                       {"content", nullptr},
                       {"reasoning_content", thinking_text},
                       {"tool_calls", ojson::array({call})}};
    auto tools = probe_tools();
    auto a = render(ojson::array({user_message(), with_content}), tools, false, true);
    auto b = render(ojson::array({user_message(), with_call}), tools, false, true);
    if (!a || !b) return;
    if (a->find(thinking_text) != std::string::npos || b->find(thinking_text) == std::string::npos) return;
    m.mode = reasoning_mode::tools_only;
    tags t = find_wrapped(*b, thinking_text, false);
    if (t.ok) {
      m.start = t.pre, m.end = t.post;
      return;
    }
    t = find_delimited(*b, thinking_text);
    if (t.ok) m.end = t.post;
    else m.mode = reasoning_mode::none;
  }
};

bool has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

}  // namespace

std::string trim_ascii_space(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<text_segment> segment_markers(std::string_view text) {
  std::vector<text_segment> out;
  size_t border = 0;
  char opener = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (!opener && (c == '<' || c == '[')) {
      if (border < i) out.push_back({false, std::string(text.substr(border, i - border))});
      border = i;
      opener = c;
    } else if (opener && c == (opener == '<' ? '>' : ']')) {
      out.push_back({true, std::string(text.substr(border, i + 1 - border))});
      border = i + 1;
      opener = 0;
    }
  }
  if (border < text.size()) out.push_back({false, std::string(text.substr(border))});
  return out;
}

marker_diff diff_by_markers(const std::string& left, const std::string& right) {
  marker_diff d;
  const auto L = segment_markers(left), R = segment_markers(right);
  if (L.empty()) {
    d.right = right;
    return d;
  }
  if (R.empty()) {
    d.left = left;
    return d;
  }
  // Whole segments are taken from both ends alternately while they agree; then the texts left
  // in the middle share a character prefix/suffix only where both ends are plain text.
  size_t ls = 0, le = L.size() - 1, rs = 0, re = R.size() - 1;
  bool left_done = false, right_done = false;
  while (ls != le && rs != re) {
    bool moved = false;
    if (L[ls] == R[rs]) d.prefix += L[ls].value, ++ls, ++rs, moved = true;
    if (L[le] == R[re]) {
      d.suffix = L[le].value + d.suffix;
      if (ls != le) --le;
      else left_done = true;
      if (rs != re) --re;
      else right_done = true;
      moved = true;
    }
    if (!moved) break;
  }
  if (ls == le && rs != re) {
    if (L[ls] == R[re]) d.suffix = R[re].value + d.suffix, --re, left_done = true;
    else if (L[ls] == R[rs]) d.prefix += R[rs].value, ++rs, left_done = true;
  } else if (rs == re && ls != le) {
    if (L[le] == R[rs]) d.suffix = L[le].value + d.suffix, --le, right_done = true;
    else if (L[ls] == R[rs]) d.prefix += L[ls].value, ++ls, right_done = true;
  } else if (ls == le && rs == re && L[ls] == R[rs] && L[ls].marker) {
    d.prefix += R[rs].value;
    left_done = right_done = true;
  }
  const bool text_suffix = !L[le].marker && !R[re].marker;
  const bool text_prefix = !R[rs].marker && !L[ls].marker;
  auto join = [](const std::vector<text_segment>& s, size_t from, size_t to) {
    std::string out;
    for (size_t i = from; i < to; ++i) out += s[i].value;
    return out;
  };
  const std::string rl = join(L, ls, left_done ? le : le + 1), rr = join(R, rs, right_done ? re : re + 1);
  size_t suffix_len = 0, prefix_len = 0;
  if (text_suffix)
    while (suffix_len < std::min(rl.size(), rr.size()) && rl[rl.size() - 1 - suffix_len] == rr[rr.size() - 1 - suffix_len])
      ++suffix_len;
  if (text_prefix) {
    size_t n = std::min(rl.size(), rr.size()) - suffix_len;
    while (prefix_len < n && rl[prefix_len] == rr[prefix_len]) ++prefix_len;
  }
  d.prefix += rl.substr(0, prefix_len);
  d.suffix = rl.substr(rl.size() - suffix_len) + d.suffix;
  d.left = rl.substr(prefix_len, rl.size() - prefix_len - suffix_len);
  d.right = rr.substr(prefix_len, rr.size() - prefix_len - suffix_len);
  if (d.left.empty() && d.right.empty()) {
    d.prefix = left;
    d.suffix.clear();
  }
  if (d.left.empty() && !d.right.empty() && right.compare(0, left.size(), left) == 0 && left.size() <= right.size()) {
    d.prefix = left;
    d.suffix.clear();
    d.right = right.substr(left.size());
  }
  return d;
}

reasoning_markers analyze_reasoning_markers(const probe_render& render, bool supports_tool_calls, std::string_view source) {
  analysis a{render, {}};
  a.presence();
  a.thinking_switch();
  if (supports_tool_calls) a.scope();
  reasoning_markers& m = a.m;
  // The autoparser's workarounds for named templates, in its order.
  if (has(source, "content.split('</think>')") && !has(source, "reasoning_content") && !has(source, "<SPECIAL_12>") &&
      m.mode == reasoning_mode::none)
    m = {reasoning_mode::tag_based, "<think>", "</think>"};  // old Qwen / DeepSeek thinking templates
  if (has(source, "Write your thoughts between <think></think> and write your response between <response></response>"))
    m = {reasoning_mode::tag_based, "<think>", "</think>"};  // Granite 3.3
  if (has(source, "<SPECIAL_10>") && has(source, "<SPECIAL_11>") && has(source, "<SPECIAL_12>") &&
      has(source, "<TOOL_RESPONSE>"))
    m = {reasoning_mode::tag_based, "<think>\n", "</think>"};  // Nemotron Nano v2
  if (has(source, "laguna_glm_thinking")) m.start = trim_ascii_space(m.start), m.end = trim_ascii_space(m.end);
  return m;
}

}  // namespace gguf::chat_detail
