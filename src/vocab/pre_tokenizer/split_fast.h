// Hand-written pre-tokenizer splitters (internal). Each takes the code points, the
// current piece lengths, and appends the new piece lengths; each reproduces the decisions
// of the llama.cpp function of the same name (unicode_regex_split_custom_*), which is
// what llama.cpp runs for the corresponding regex (see presets.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gguf::vocab_detail {

using split_fn = void (*)(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out);

/// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)
void split_gpt2(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out);
/// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
void split_llama3(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out);
/// as llama3 with \p{N} instead of \p{N}{1,3}
void split_qwen2(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out);
/// Kimi-K2: [\p{Han}]+ | letters without Han with optional contraction | \p{N}{1,3} | ...
void split_kimi_k2(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out);
/// digit runs split into a leading 1-2 digits and groups of 3 (text before a run joins its first group)
void split_afmoe_digits(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out);
/// [^\n]+|[\n]+
void split_newlines(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out);

}  // namespace gguf::vocab_detail
