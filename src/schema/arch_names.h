// The names (general.architecture values) of the built-in architecture rows (internal):
// the schema's facts rows (keys.cpp, arch_table) and the model layer's binding rows
// (src/model/arch_table.cpp) both name their rows with these constants, so that each name
// is written once and a binding row cannot name an architecture the schema lacks.
#pragma once

#include <string_view>

namespace gguf::arch_names {

inline constexpr std::string_view llama = "llama";
inline constexpr std::string_view mpt = "mpt";
inline constexpr std::string_view gptneox = "gptneox";
inline constexpr std::string_view gptj = "gptj";
inline constexpr std::string_view gpt2 = "gpt2";
inline constexpr std::string_view bloom = "bloom";
inline constexpr std::string_view falcon = "falcon";
inline constexpr std::string_view mamba = "mamba";
inline constexpr std::string_view rwkv = "rwkv";
inline constexpr std::string_view whisper = "whisper";
inline constexpr std::string_view qwen2 = "qwen2";
inline constexpr std::string_view qwen3 = "qwen3";
inline constexpr std::string_view phi3 = "phi3";
inline constexpr std::string_view gemma = "gemma";
inline constexpr std::string_view gemma2 = "gemma2";
inline constexpr std::string_view gemma3 = "gemma3";
inline constexpr std::string_view gemma4 = "gemma4";
inline constexpr std::string_view starcoder2 = "starcoder2";
inline constexpr std::string_view bert = "bert";
inline constexpr std::string_view nomic_bert = "nomic-bert";
inline constexpr std::string_view nomic_bert_moe = "nomic-bert-moe";
inline constexpr std::string_view t5 = "t5";
inline constexpr std::string_view command_r = "command-r";
inline constexpr std::string_view deepseek2 = "deepseek2";
inline constexpr std::string_view mamba2 = "mamba2";
inline constexpr std::string_view rwkv6 = "rwkv6";
inline constexpr std::string_view rwkv7 = "rwkv7";
inline constexpr std::string_view baichuan = "baichuan";
inline constexpr std::string_view refact = "refact";
inline constexpr std::string_view qwen2moe = "qwen2moe";

}  // namespace gguf::arch_names
