// The reasoning markers of a template as llama.cpp v0.5.0's differential autoparser learns them
// (common/chat-diff-analyzer.cpp, analyze_reasoning): the template is rendered on small probe
// conversations that differ in one thing (reasoning_content present, enable_thinking on/off,
// reasoning before a tool call) and the markers around the probe's reasoning text are read off
// the difference. llama-server uses them for two things we reproduce: whether the template
// "supports thinking" (enable_thinking's default, common_chat_templates_support_enable_thinking)
// and the text it puts between the generation prompt and a continued assistant message.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gguf::chat_detail {

enum class reasoning_mode { none, tag_based, tools_only };

struct reasoning_markers {
  reasoning_mode mode = reasoning_mode::none;
  std::string start;  ///< as rendered, whitespace included ("" when only an end marker shows)
  std::string end;
};

/// Renders the template for the analysis (llama.cpp's autoparser::apply_template): the
/// messages, the tools (null: none), add_generation_prompt, enable_thinking; nullopt when the
/// template raises.
using probe_render = std::function<std::optional<std::string>(const nlohmann::ordered_json& messages,
                                                              const nlohmann::ordered_json& tools, bool add_generation_prompt,
                                                              bool enable_thinking)>;

/// analyze_reasoning plus the autoparser's workarounds that set reasoning markers for named
/// templates (old Qwen/DeepSeek thinking, Granite 3.3, Nemotron Nano v2, Laguna), keyed on `source`.
reasoning_markers analyze_reasoning_markers(const probe_render& render, bool supports_tool_calls,
                                            std::string_view source);

// The text-diff helpers the analysis uses (chat-auto-parser-helpers), exposed for tests.

/// A run of text: a marker ("<...>" or "[...]") or the text between markers.
struct text_segment {
  bool marker = false;
  std::string value;
  bool operator==(const text_segment&) const = default;
};

std::vector<text_segment> segment_markers(std::string_view text);

/// The common prefix, common suffix and the differing middles of two renderings, with prefix and
/// suffix aligned to whole markers where the texts are marker-structured.
struct marker_diff {
  std::string prefix, suffix, left, right;
};

marker_diff diff_by_markers(const std::string& left, const std::string& right);

/// Leading and trailing ASCII whitespace removed (isspace in the C locale).
std::string trim_ascii_space(std::string_view s);

}  // namespace gguf::chat_detail
