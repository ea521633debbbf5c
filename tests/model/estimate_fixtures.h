// Handcrafted model files for the memory estimate: architectures whose caches differ from
// llama's (sliding-window, shared-KV, MLA, recurrent, none), small enough to write in a
// test. Each has a self-contained SPM vocabulary (300 tokens) and every tensor the model
// layer's table requires for its hparams, in f32 with deterministic pseudo-random values,
// so that llama.cpp loads them (scripts/record-estimate.sh measures them with it).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gguf::test {

/// Writes the fixtures into `dir` (created); returns their paths. Throws on a write error.
std::vector<std::filesystem::path> write_estimate_fixtures(const std::filesystem::path& dir);

}  // namespace gguf::test
