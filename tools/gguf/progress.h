// What commands that write files say on standard error: a progress line for big files
// (only when stderr is a terminal): "LABEL  42% 1.23/2.93 GB"; the temporary files of
// killed runs that a write removed.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "gguf/output.h"

namespace gguf::cli {

/// A progress callback printing `label` and the share written; empty when stderr is not
/// a terminal (scripts and tests get no control characters).
inline progress_fn progress_line(std::string label) {
  if (!::isatty(2)) return {};
  return [label = std::move(label)](uint64_t done, uint64_t total) {
    if (total == 0) {
      std::fprintf(stderr, "\r%s  %.2f GB", label.c_str(), static_cast<double>(done) / 1e9);
    } else {
      std::fprintf(stderr, "\r%s  %3d%% %.2f/%.2f GB", label.c_str(), static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)),
                   static_cast<double>(done) / 1e9, static_cast<double>(total) / 1e9);
    }
    if (total != 0 && done >= total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
}

/// One line naming the temporary files of interrupted writes that a write beside `path`
/// removed (safe_output::stale_temp_files, edit_report::stale_temp_files); nothing when
/// there are none. `dry_run`: they would be removed.
inline void say_removed_temp_files(const std::string& path, const std::vector<std::filesystem::path>& files,
                                   bool dry_run = false) {
  if (files.empty()) return;
  std::string names;
  for (const auto& f : files) names += (names.empty() ? "" : ", ") + f.string();
  std::fprintf(stderr, "gguf: %s: %s %zu temporary file%s left by interrupted writes: %s\n", path.c_str(),
               dry_run ? "would remove" : "removed", files.size(), files.size() == 1 ? "" : "s", names.c_str());
}

}  // namespace gguf::cli
