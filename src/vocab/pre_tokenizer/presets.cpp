// The pre-tokenizer presets and the tokenizer.ggml.pre names that select them: data
// transcribed from llama.cpp src/llama-vocab.cpp (llm_tokenizer_bpe's regex lists and
// llama_vocab::impl::load's name -> pre type mapping and flags). One row per preset,
// one row per name; adding a pre-tokenizer is adding rows here.
#include <array>

#include "vocab/pre_tokenizer/pre_tokenizer.h"

namespace gguf::vocab_detail {
namespace {

using sk = split_kind;

// Shared regexes (exact strings of llama.cpp; the fast path is the one llama.cpp uses
// for that exact string).
constexpr std::string_view re_gpt2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";
constexpr std::string_view re_llama3 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr std::string_view re_qwen2 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr std::string_view re_gpt4o =
    "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'["
    "lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV]"
    "[eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr std::string_view re_deepseek3_main =
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| "
    "?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";
constexpr std::string_view re_cjk_kana = "[一-龥぀-ゟ゠-ヿ]+";
constexpr std::string_view re_poro = " ?[^(\\s|.,!?…。，、।۔،)]+";
constexpr std::string_view re_newlines = "[^\\n]+|[\\n]+";

constexpr split_rule r_default[] = {{"[\\p{P}\\$\\+<=>\\^~\\|]+"},
                                    {re_gpt2, sk::gpt2},
                                    {"\\p{N}+"},
                                    {"[0-9][0-9][0-9]"}};
constexpr split_rule r_llama3[] = {{re_llama3, sk::llama3}};
constexpr split_rule r_jais2[] = {
    {"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
     "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s{512}(?!\\S)|\\s{256}(?!\\S)|\\s{128}(?!\\S)|\\s{64}(?!\\S)|\\s{32}(?!"
     "\\S)|\\s{16}(?!\\S)|\\s{8}(?!\\S)|\\s{4}(?!\\S)|\\s{1,2}(?!\\S)|\\s{1}"}};
constexpr split_rule r_deepseek_llm[] = {
    {"[\r\n]"},
    {"\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+"},
    {"\\s?[!-/:-~！-／：-～‘-‟　-。]+"},
    {"\\s+$"},
    {"[一-龥ࠀ-一가-퟿]+"},
    {"\\p{N}+"}};
constexpr split_rule r_deepseek3[] = {{"\\p{N}{1,3}"}, {re_cjk_kana}, {re_deepseek3_main}};
constexpr split_rule r_spark2_5[] = {
    {"\\p{N}{1,3}"},
    {re_cjk_kana},
    {"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| "
     "?[\\p{P}\\p{S}]+|[\r\n]|\\s+(?!\\S)|\\s+"},
    {"\\p{N}"}};
constexpr split_rule r_youtu[] = {
    {"[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+"},
    {"[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'["
     "vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{"
     "M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|"
     "\\s+(?!\\S)|\\s+"}};
constexpr split_rule r_deepseek_coder[] = {
    {"[\r\n]"}, {"\\s?\\p{L}+"}, {"\\s?\\p{P}+"}, {"[一-龥ࠀ-一가-퟿]+"}, {"\\p{N}"}};
constexpr split_rule r_falcon[] = {{"[\\p{P}\\$\\+<=>\\^~\\|`]+"}, {re_gpt2, sk::gpt2}, {"[0-9][0-9][0-9]"}};
constexpr split_rule r_starcoder[] = {{"\\p{N}"}, {re_gpt2, sk::gpt2}};
constexpr split_rule r_gpt2[] = {{re_gpt2, sk::gpt2}};
constexpr split_rule r_qwen2[] = {{re_qwen2, sk::qwen2}};
constexpr split_rule r_qwen35[] = {
    {"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| "
     "?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}};
constexpr split_rule r_poro[] = {{re_poro}};
constexpr split_rule r_viking[] = {{re_poro}, {"\\p{N}"}};
constexpr split_rule r_tekken[] = {
    {"[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+(("
     "?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}};
constexpr split_rule r_chameleon[] = {{"<sentinel:[0-9]+>"},
                                      {"(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z"},
                                      {"([\\t\\n]|    |  )"},
                                      {"\\p{N}"},
                                      {"[\\p{P}!-/:-@\\[-`{-~]"},
                                      {re_gpt2, sk::gpt2}};
constexpr split_rule r_gpt4o[] = {{re_gpt4o}};
constexpr split_rule r_granite_emb_multi[] = {
    {"[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))*((?=[\\p{L}\\p{M}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]"
     "|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))+((?=[\\p{L}\\p{M}])([^A-Z]))*(?:'[sS]|'"
     "[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!"
     "\\S)|\\s+"}};
constexpr split_rule r_tiny_aya[] = {
    {"\\d{1,3}(?=(?:\\d{3})*\\b)", sk::afmoe_digits},
    {"[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'["
     "vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{"
     "M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r"
     "\\n]+|\\s+(?!\\S)|\\s+"}};
constexpr split_rule r_kimi_k2[] = {{"\\p{Han}+", sk::kimi_k2}};
constexpr split_rule r_superbpe[] = {{"\\p{N}+"}, {"(?=(\\d{3})+(?!\\d))"}};
constexpr split_rule r_bailingmoe[] = {
    {"'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*["
     "\\r\\n]|\\s+(?!\\S)|\\s+"}};
constexpr split_rule r_seed_coder[] = {
    {"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| "
     "?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}};
constexpr split_rule r_ufakzeka[] = {
    {"[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}};
constexpr split_rule r_afmoe[] = {
    {"\\p{AFMoE_digits}", sk::afmoe_digits},
    {"[一-鿿㐀-䶿豈-﫿぀-ゟ゠-ヿ･-ﾟ⼀-⿟เ-๿຀-໿ក-៿က-႟ꩠ-ꩿꧠ-꧿가-힯ᄀ-ᇿ]+"},
    {"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| "
     "?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}};
constexpr split_rule r_laguna[] = {{re_newlines, sk::newlines}, {re_qwen2, sk::qwen2}};
constexpr split_rule r_exaone_moe[] = {
    {"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M}*(?: "
     "\\p{L}\\p{M}*)*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]?|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+"}};
constexpr split_rule r_newlines[] = {{re_newlines, sk::newlines}};
constexpr split_rule r_minicpm5[] = {
    {"\\p{N}{1,3}"},
    {"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}+| "
     "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}};
constexpr split_rule r_whitespace[] = {{"\\S+"}};

// Preset rows. Several llama.cpp pre types share one regex list; they keep their own
// row so that the id names what llama.cpp calls them.
const pre_preset presets[] = {
    {"default", r_default},
    {"llama3", r_llama3},
    {"jais2", r_jais2},
    {"dbrx", r_llama3},
    {"smaug", r_llama3},
    {"deepseek-llm", r_deepseek_llm},
    {"deepseek3-llm", r_deepseek3},
    {"hunyuan-dense", r_deepseek3},
    {"joyai-llm", r_deepseek3},
    {"hy-v4", r_deepseek3},
    {"spark2_5", r_spark2_5},
    {"youtu", r_youtu},
    {"deepseek-coder", r_deepseek_coder},
    {"falcon", r_falcon},
    {"starcoder", r_starcoder},
    {"refact", r_starcoder},
    {"command-r", r_starcoder},
    {"smollm", r_starcoder},
    {"codeshell", r_starcoder},
    {"exaone", r_starcoder},
    {"minerva", r_starcoder},
    {"mellum2", r_starcoder},
    {"gpt2", r_gpt2},
    {"mpt", r_gpt2},
    {"olmo", r_gpt2},
    {"jais", r_gpt2},
    {"trillion", r_gpt2},
    {"granite-docling", r_gpt2},
    {"stablelm2", r_qwen2},
    {"qwen2", r_qwen2},
    {"hunyuan", r_qwen2},
    {"solar-open", r_qwen2},
    {"qwen35", r_qwen35},
    {"poro", r_poro},
    {"bloom", r_poro},
    {"gpt3-finnish", r_poro},
    {"chatglm4", r_llama3},
    {"viking", r_viking},
    {"tekken", r_tekken},
    {"chameleon", r_chameleon},
    {"gpt4o", r_gpt4o},
    {"minimax-m2", r_gpt4o},
    {"granite-emb-multi", r_granite_emb_multi},
    {"tiny-aya", r_tiny_aya},
    {"kimi-k2", r_kimi_k2},
    {"superbpe", r_superbpe},
    {"bailingmoe", r_bailingmoe},
    {"seed-coder", r_seed_coder},
    {"ufakzeka", r_ufakzeka},
    {"grok-2", r_qwen2},
    {"afmoe", r_afmoe},
    {"laguna", r_laguna},
    {"exaone-moe", r_exaone_moe},
    {.id = "gemma4", .rules = r_newlines, .byte_encode = false, .newline_runs_whole = true, .force_add_bos = true},
    {"sarvam-moe", r_newlines, false},
    {"minicpm5", r_minicpm5},
    {.id = "whitespace", .rules = r_whitespace, .byte_encode = false, .keep_case = true},
};

constexpr size_t n_presets = sizeof(presets) / sizeof(presets[0]);

consteval size_t idx(std::string_view id) {
  // compile-time lookup keeps the name table below readable and checked
  constexpr std::string_view ids[] = {
      "default", "llama3", "jais2", "dbrx", "smaug", "deepseek-llm", "deepseek3-llm", "hunyuan-dense",
      "joyai-llm", "hy-v4", "spark2_5", "youtu", "deepseek-coder", "falcon", "starcoder", "refact",
      "command-r", "smollm", "codeshell", "exaone", "minerva", "mellum2", "gpt2", "mpt",
      "olmo", "jais", "trillion", "granite-docling", "stablelm2", "qwen2", "hunyuan", "solar-open",
      "qwen35", "poro", "bloom", "gpt3-finnish", "chatglm4", "viking", "tekken", "chameleon",
      "gpt4o", "minimax-m2", "granite-emb-multi", "tiny-aya", "kimi-k2", "superbpe", "bailingmoe", "seed-coder",
      "ufakzeka", "grok-2", "afmoe", "laguna", "exaone-moe", "gemma4", "sarvam-moe", "minicpm5",
      "whitespace"};
  for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); ++i)
    if (ids[i] == id) return i;
  throw "unknown preset id";
}

constexpr uint8_t K = pre_keep_spaces, IM = pre_ignore_merges, BOS = pre_add_bos, SEP = pre_add_sep,
                  ESC = pre_escape_ws, NOBOS = pre_no_bos;

#define P(id) &presets[idx(id)]
// tokenizer.ggml.pre value -> preset and flags (llama_vocab::impl::load).
const pre_name names[] = {
    {"default", P("default"), 0},
    {"minicpm5", P("minicpm5"), IM},
    {"llama3", P("llama3"), IM | BOS},
    {"llama-v3", P("llama3"), IM | BOS},
    {"llama-bpe", P("llama3"), IM | BOS},
    {"falcon3", P("llama3"), IM | BOS},
    {"falcon-h1", P("llama3"), IM | BOS},
    {"pixtral", P("llama3"), IM | BOS},
    {"midm-2.0", P("llama3"), IM | BOS},
    {"lfm2", P("llama3"), IM | BOS},
    {"jina-v5-nano", P("llama3"), IM | BOS},
    {"deepseek-llm", P("deepseek-llm"), K},
    {"deepseek-coder", P("deepseek-coder"), K},
    {"deepseek-v3", P("deepseek3-llm"), K},
    {"spark2_5", P("spark2_5"), K},
    {"youtu", P("youtu"), K | IM},
    {"falcon", P("falcon"), 0},
    {"mpt", P("mpt"), 0},
    {"starcoder", P("starcoder"), 0},
    {"gpt-2", P("gpt2"), 0},
    {"phi-2", P("gpt2"), 0},
    {"jina-es", P("gpt2"), 0},
    {"jina-de", P("gpt2"), 0},
    {"gigachat", P("gpt2"), 0},
    {"jina-v2-es", P("gpt2"), 0},
    {"jina-v2-de", P("gpt2"), 0},
    {"a.x-4.0", P("gpt2"), 0},
    {"mellum", P("gpt2"), 0},
    {"modern-bert", P("gpt2"), 0},
    {"jais-2", P("jais2"), 0},
    {"gemma4", P("gemma4"), ESC},
    {"granite-embed-multi-311m", P("gemma4"), ESC},
    {"sarvam-moe", P("sarvam-moe"), ESC | K},
    {"jina-v1-en", P("gpt2"), SEP},
    {"jina-v2-code", P("gpt2"), SEP},
    {"roberta-bpe", P("gpt2"), SEP},
    {"whitespace", P("whitespace"), 0},
    {"refact", P("refact"), 0},
    {"command-r", P("command-r"), K},
    {"qwen2", P("qwen2"), K},
    {"deepseek-r1-qwen", P("qwen2"), K},
    {"kormo", P("qwen2"), K},
    {"f2llmv2", P("qwen2"), K},
    {"qwen35", P("qwen35"), K},
    {"stablelm2", P("stablelm2"), 0},
    {"olmo", P("olmo"), 0},
    {"dbrx", P("dbrx"), 0},
    {"smaug-bpe", P("smaug"), 0},
    {"poro-chat", P("poro"), K},
    {"glm4", P("chatglm4"), NOBOS},
    {"chatglm-bpe", P("chatglm4"), NOBOS},
    {"viking", P("viking"), K},
    {"jais", P("jais"), 0},
    {"tekken", P("tekken"), K | IM | BOS},
    {"smollm", P("smollm"), K},
    {"codeshell", P("codeshell"), 0},
    {"bloom", P("bloom"), 0},
    {"gpt3-finnish", P("gpt3-finnish"), 0},
    {"exaone", P("exaone"), 0},
    {"exaone4", P("gpt2"), 0},
    {"exaone-moe", P("exaone-moe"), 0},
    {"chameleon", P("chameleon"), BOS | K},
    {"minerva-7b", P("minerva"), 0},
    {"megrez", P("qwen2"), 0},
    {"gpt-4o", P("gpt4o"), K},
    {"llama4", P("gpt4o"), K},
    {"kanana2", P("gpt4o"), K},
    {"talkie", P("gpt4o"), K},
    {"granite-embed-multi-97m", P("granite-emb-multi"), K | IM},
    {"tiny_aya", P("tiny-aya"), K},
    {"cohere2moe", P("tiny-aya"), K},
    {"superbpe", P("superbpe"), K},
    {"trillion", P("trillion"), K},
    {"granite-docling", P("granite-docling"), K},
    {"bailingmoe", P("bailingmoe"), K},
    {"bailingmoe2", P("bailingmoe"), K},
    {"llada-moe", P("bailingmoe"), K},
    {"seed-coder", P("seed-coder"), K},
    {"hunyuan", P("hunyuan"), K},
    {"hunyuan-dense", P("hunyuan-dense"), K},
    {"hy_v4", P("hy-v4"), K},
    {"joyai-llm", P("joyai-llm"), K},
    {"kimi-k2", P("kimi-k2"), K | pre_merges_optional},
    {"ufakzeka", P("ufakzeka"), K},
    {"grok-2", P("grok-2"), K},
    {"afmoe", P("afmoe"), K},
    {"laguna", P("laguna"), K},
    {"minimax-m2", P("minimax-m2"), K},
    {"solar-open", P("solar-open"), K},
    {"mellum2", P("mellum2"), 0},
};
#undef P

static_assert(n_presets == 57);

}  // namespace

std::span<const pre_preset> all_presets() { return presets; }
std::span<const pre_name> all_pre_names() { return names; }

const pre_name* find_pre_name(std::string_view name) {
  for (const auto& n : names)
    if (n.name == name) return &n;
  return nullptr;
}

const pre_preset& default_preset() { return presets[0]; }

}  // namespace gguf::vocab_detail
