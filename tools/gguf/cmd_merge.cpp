// gguf merge FIRST_SHARD OUT [--force] [--dry-run]: the shards of a split model as one
// file (gguf/split.h), after checking every shard (gguf/model_files.h). An existing OUT
// is refused unless --force (gguf-split's merge has lost data by writing over its input).
#include <cinttypes>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "gguf/split.h"
#include "progress.h"

namespace gguf::cli::cmd_merge {
namespace {

int run(int argc, char** argv) {
  CLI::App app{"Merge the shards of a split GGUF model into one file.", "merge"};
  std::string first, out_path;
  write_flags w;
  app.add_option("FIRST_SHARD", first, "a shard of the model (PREFIX-%05d-of-%05d.gguf); the others are found by name")
      ->required();
  app.add_option("OUT", out_path, "merged file to write")->required();
  add_write_options(app, w, "check the shards and print what would be written; write nothing", "replace OUT when it exists");
  const auto& [dry_run, force, break_links] = w;
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (auto rc = refuse_urls("merge", {first, out_path})) return *rc;
  if (auto rc = refuse_stdout_output("merge", out_path)) return *rc;

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
  std::vector<std::filesystem::path> shards;
  for (const auto& s : m->shards()) shards.emplace_back(s.path());
  const uint64_t size = merged_size(*m);
  // Issue 29, item 8: a refusal prints only the refusal; the summary line follows success
  // (or says what a dry run would do, and that OUT exists).
  if (dry_run) {
    auto ok = check_overwrite(out_path, shards, force, false);
    std::printf("%zu shards, %zu tensors -> %s (%" PRIu64 " bytes): would be written%s\n", m->shard_count(),
                m->tensors().size(), out_path.c_str(), size,
                ok ? "" : ("; but " + ok.error().message()).c_str());
    return exit_ok;
  }
  if (auto rc = check_output_path(out_path, shards, force, false)) return *rc;
  output_options o;
  o.expected_size = size;
  o.break_links = break_links;
  o.progress = progress_line("merge " + out_path);
  auto out = safe_output::create(out_path, o);
  if (!out) return report(out_path, out.error());
  say_removed_temp_files(out_path, out->stale_temp_files());
  auto r = write_merged(*m, *out);
  if (!r) return report(r.error().code == errc::io_error ? out_path : first, r.error());
  if (auto c = out->commit(); !c) return report(out_path, c.error());
  std::printf("%zu shards, %zu tensors -> %s (%" PRIu64 " bytes)\n", m->shard_count(), m->tensors().size(),
              out_path.c_str(), size);
  return exit_ok;
}

const registrar reg{"merge", "merge the shards of a split model into one file", run};

}  // namespace
}  // namespace gguf::cli::cmd_merge
