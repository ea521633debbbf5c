// gguf/naming.h — the GGUF file naming convention (spec "GGUF Naming Convention"):
//
//   [<Sidecar>-]<BaseName><SizeLabel><FineTune><Version><Encoding><Type><Shard>.gguf
//
// e.g. "Mixtral-8x7B-v0.1-KQ2.gguf", "Grok-100B-v1.0-Q4_0-00003-of-00009.gguf".
// parse_name() reads a file name into its components and says why it does not conform;
// suggest_name() builds the conforming name of a file from its metadata.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"

#pragma GCC visibility push(default)  // public API: exported from the shared library
namespace gguf {

/// The components of a file name. Empty strings for absent components.
struct name_parts {
  std::string sidecar;     ///< "mmproj" or "mtp" (auxiliary module), or empty
  std::string base_name;   ///< e.g. "Hermes-2-Pro-Llama-3"
  std::string size_label;  ///< e.g. "8x7B", "3.8B-ContextLength4k"
  uint32_t expert_count = 0;       ///< the N of "Nx7B", 0 if none
  std::string parameter_count;     ///< e.g. "7B", "3.8B" (count and scale prefix)
  std::string fine_tune;   ///< e.g. "instruct"
  std::string version;     ///< e.g. "v0.1"; "v1.0" when the name has none (see version_given)
  bool version_given = false;
  std::string encoding;    ///< e.g. "Q4_K_M", "F16", "KQ2"
  std::string type;        ///< "LoRA", "vocab", or empty (a model file)
  bool sharded = false;    ///< the name has a Shard component (<ShardNum>-of-<ShardTotal>)
  uint32_t shard = 0;      ///< ShardNum, 0 if the file is not sharded
  uint32_t shard_count = 0;  ///< ShardTotal, 0 if the file is not sharded
};

/// The result of checking a name against the convention.
struct name_check {
  bool conforms = false;            ///< matches the spec's regular expression and shard rules
  std::optional<name_parts> parts;  ///< components, also read (best effort) from a name
                                    ///< that does not conform; empty if nothing fits
  std::vector<std::string> problems;  ///< why it does not conform, one sentence each
};

/// Parses a file name (a path's directories are ignored). Follows the spec's regular
/// expression (components separated by '-': BaseName is the longest run of segments
/// that are words or plain numbers, SizeLabel is `[<experts>x]<count><scale>` with an
/// optional `-<attribute><count><scale>`, Version `v<Major>[.<Minor>...]`), plus the
/// shard rules (5 digits each, ShardNum from 00001 to ShardTotal). A name without a
/// Version is read with Version v1.0, as the spec's examples do, but does not conform.
name_check parse_name(std::string_view filename);

/// The spec's size class of a parameter count: rounded to a scale prefix Q/T/B/M/K,
/// with decimals to keep at least two significant digits (gguf-py's
/// model_weight_count_rounded_notation): 3'800'000'000 -> "3.8B", 260'000 -> "260K",
/// 7'241'732'096 -> "7.2B". With experts: "<experts>x<per-expert count>".
std::string size_label_for(uint64_t parameter_count, uint32_t expert_count = 0);

/// The conforming file name of `f`: BaseName from general.basename (else general.name,
/// else general.architecture; spaces and '/' become '-'), SizeLabel from
/// general.size_label or computed from the tensors' element counts, FineTune from
/// general.finetune, Version from general.version ("v" prefixed; v1.0 if absent or not
/// numeric), Encoding from general.file_type or the most common type of the 2-d
/// tensors, Type "vocab" for a file without tensors. `problems` (optional) receives why
/// the name might still not conform (e.g. no SizeLabel for a vocab file).
std::string suggest_name(const file& f, std::vector<std::string>* problems = nullptr);

}  // namespace gguf
#pragma GCC visibility pop
