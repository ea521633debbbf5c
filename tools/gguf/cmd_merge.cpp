// gguf merge FIRST_SHARD OUT [--force] [--dry-run]: the shards of a split model as one
// file (gguf/split.h), after checking every shard (gguf/model_files.h). An existing OUT
// is refused unless --force (gguf-split's merge has lost data by writing over its input).
#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "gguf/split.h"
#include "progress.h"

namespace gguf::cli {
namespace {

int run(int argc, char** argv) {
  CLI::App app{"Merge the shards of a split GGUF model into one file.", "merge"};
  std::string first, out_path;
  bool force = false, dry_run = false;
  app.add_option("FIRST_SHARD", first, "a shard of the model (PREFIX-%05d-of-%05d.gguf); the others are found by name")
      ->required();
  app.add_option("OUT", out_path, "merged file to write")->required();
  app.add_flag("--force", force, "replace OUT when it exists");
  app.add_flag("--dry-run", dry_run, "check the shards and print what would be written; write nothing");
  if (auto rc = parse(app, argc, argv)) return *rc;

  auto f = open_input(first);
  if (!f) return report(first, f.error());
  auto info = read_split_info(*f);
  if (!info) return report(first, info.error());
  if (!*info) {
    return report(first, make_error(errc::invalid_argument, no_offset,
                                    "not a shard: no split.count (a split model's shards have split.no, "
                                    "split.count and split.tensors.count)"));
  }
  auto m = model_files::from_file(*f, [](const std::string& p) { return open_input(p); });
  if (!m) return report(first, m.error());
  const uint64_t size = merged_size(*m);
  std::printf("%zu shards, %zu tensors -> %s (%" PRIu64 " bytes)\n", m->shard_count(), m->tensors().size(),
              out_path.c_str(), size);
  if (dry_run) return exit_ok;
  struct stat st {};
  if (!force && ::stat(out_path.c_str(), &st) == 0) {
    return report(out_path, make_error(errc::io_error, no_offset, "exists; not replaced without --force"));
  }
  for (const auto& s : m->shards()) {
    struct stat a {}, b {};
    if (::stat(s.path().c_str(), &a) == 0 && ::stat(out_path.c_str(), &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev) {
      return report(out_path, make_error(errc::invalid_argument, no_offset, "is one of the shards being merged"));
    }
  }
  output_options o;
  o.expected_size = size;
  o.progress = progress_line("merge " + out_path);
  auto out = safe_output::create(out_path, o);
  if (!out) return report(out_path, out.error());
  say_removed_temp_files(out_path, out->stale_temp_files());
  auto r = write_merged(*m, *out);
  if (!r) return report(r.error().code == errc::io_error ? out_path : first, r.error());
  if (auto c = out->commit(); !c) return report(out_path, c.error());
  return exit_ok;
}

const registrar reg{"merge", "merge the shards of a split model into one file", run};

}  // namespace
}  // namespace gguf::cli
