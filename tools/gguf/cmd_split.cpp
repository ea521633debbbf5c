// gguf split IN OUT_PREFIX (--split-max-tensors N | --split-max-size N(M|G))
//           [--no-tensor-first-split] [--dry-run]
// Shards PREFIX-00001-of-0000N.gguf ... equal to llama.cpp's gguf-split's, byte for byte
// (gguf/split.h); the plan is printed as gguf-split prints it.
#include <sys/resource.h>

#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "gguf/split.h"
#include "progress.h"

namespace gguf::cli::cmd_split {
namespace {

// Each shard's temp file stays open (and locked) until all are committed: lets a split
// into more shards than the soft limit of open files allows use up to the hard limit.
void raise_open_file_limit(size_t want) {
  rlimit l{};
  if (::getrlimit(RLIMIT_NOFILE, &l) != 0 || l.rlim_cur >= want) return;
  l.rlim_cur = l.rlim_max == RLIM_INFINITY ? want : std::min<rlim_t>(want, l.rlim_max);
  ::setrlimit(RLIMIT_NOFILE, &l);
}

// gguf-split's split_str_to_n_bytes: an integer and M (10^6) or G (10^9).
std::optional<uint64_t> parse_size(const std::string& s, std::string& why) {
  if (s.empty() || (s.back() != 'M' && s.back() != 'G')) {
    why = "supported units are M (megabytes) or G (gigabytes), as in '500M' or '4G'";
    return std::nullopt;
  }
  uint64_t n = 0;
  const std::string digits = s.substr(0, s.size() - 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) {
    why = "size must be a positive integer followed by M or G";
    return std::nullopt;
  }
  n = std::stoull(digits);
  if (n == 0) {
    why = "size must be a positive value";
    return std::nullopt;
  }
  return n * (s.back() == 'M' ? 1000000ull : 1000000000ull);
}

int run(int argc, char** argv) {
  CLI::App app{"Split a GGUF model into shards, as llama.cpp's gguf-split does (same bytes).", "split"};
  std::string in, prefix, max_size;
  uint32_t max_tensors = 128;
  bool no_first = false;
  write_flags w;
  app.add_option("IN", in, "GGUF file to split")->required();
  app.add_option("OUT_PREFIX", prefix, "shards are written to OUT_PREFIX-%05d-of-%05d.gguf")->required();
  auto* mt = app.add_option("--split-max-tensors", max_tensors, "at most N tensors per shard (default 128)")
                 ->check(CLI::Range(1u, 0x7fffffffu));
  auto* ms = app.add_option("--split-max-size", max_size, "at most N(M|G) bytes of tensor data per shard (M = 10^6, G = 10^9)");
  mt->excludes(ms);
  app.add_flag("--no-tensor-first-split", no_first, "the first shard holds the metadata only");
  add_write_options(app, w, "print the plan; write nothing", "replace shard files that exist (never IN itself)");
  const auto& [dry_run, force, break_links] = w;
  if (auto rc = parse(app, argc, argv)) return *rc;
  if (auto rc = refuse_urls("split", {in, prefix})) return *rc;

  split_options o;
  o.max_tensors = max_tensors;
  o.no_tensor_first_split = no_first;
  if (!max_size.empty()) {
    std::string why;
    auto n = parse_size(max_size, why);
    if (!n) {
      std::cerr << "gguf split: --split-max-size " << max_size << ": " << why << "\n";
      return exit_usage;
    }
    o.max_bytes = *n;
  }
  auto f = open_input(in);
  if (!f) return report(in, f.error());
  auto plan = plan_split(*f, o);
  if (!plan) return report(in, plan.error());
  const size_t n = plan->shards.size();
  auto shard_path = [&](size_t i) { return split_path(prefix, static_cast<uint32_t>(i), static_cast<uint32_t>(n)); };
  // Issue 29, item 9: the overwrite policy, checked for every shard before the plan is
  // printed (a shard onto IN itself is refused even with --force).
  const std::vector<std::filesystem::path> inputs{in};
  for (size_t i = 0; i < n && !dry_run; ++i) {
    if (auto rc = check_output_path(shard_path(i), inputs, force, false)) return *rc;
  }
  // gguf-split's print_info: metadata size plus unpadded tensor bytes, in whole 10^6 bytes.
  std::printf("n_split: %zu\n", n);
  for (size_t i = 0; i < n; ++i) {
    const auto& s = plan->shards[i];
    std::printf("split %05zu: n_tensors = %zu, total_size = %" PRIu64 "M\n", i + 1, s.tensors.size(),
                (s.metadata_size + s.tensor_bytes) / 1000 / 1000);
  }
  for (size_t i = 0; i < n; ++i) {
    std::printf("%s  %" PRIu64 " bytes\n", shard_path(i).c_str(), plan->shards[i].file_size);
  }
  if (dry_run) {
    std::fflush(stdout);
    for (size_t i = 0; i < n; ++i) {
      if (auto ok = check_overwrite(shard_path(i), inputs, force, false); !ok)
        std::fprintf(stderr, "gguf split: note: %s\n", ok.error().message().c_str());
    }
    return exit_ok;
  }
  uint64_t total = 0, done_before = 0;
  for (const auto& s : plan->shards) total += s.file_size;
  auto bar = progress_line("split " + prefix);
  // Every shard is written whole before any is renamed into place: a split that fails
  // part way replaces no shard (an older set of the same name would otherwise become a
  // mix of two models that reads as one).
  raise_open_file_limit(n + 64);
  std::vector<safe_output> outs;
  for (size_t i = 0; i < n; ++i) {
    const std::string path = shard_path(i);
    output_options oo;
    oo.break_links = break_links;
    oo.expected_size = plan->shards[i].file_size;
    if (bar) oo.progress = [&](uint64_t done, uint64_t) { bar(done_before + done, total); };
    auto out = safe_output::create(path, oo);
    if (!out) return report(path, out.error());
    say_removed_temp_files(path, out->stale_temp_files());
    auto r = write_shard(*f, *plan, i, *out);
    if (!r) return report(r.error().code == errc::io_error ? path : in, r.error());
    if (auto c = out->finish(); !c) return report(path, c.error());
    done_before += plan->shards[i].file_size;
    outs.push_back(std::move(*out));
  }
  size_t failed = 0;  // the shard whose check or rename failed: the file the error names
  if (auto c = safe_output::commit_set(outs, failed); !c) {
    const int code = report(shard_path(failed), c.error());
    // shards of the new set in place without its first one: only a forced rerun completes it
    std::error_code ec;
    bool others = false;
    for (size_t i = 1; i < n && !others; ++i) others = std::filesystem::exists(shard_path(i), ec);
    if (others && !std::filesystem::exists(shard_path(0), ec))
      std::fprintf(stderr, "gguf split: note: run the same command with --force to complete the set\n");
    return code;
  }
  std::fprintf(stderr, "gguf split: %zu shards written with a total of %u tensors\n", n, plan->tensor_count);
  return exit_ok;
}

const registrar reg{"split", "split a model into shards (as llama.cpp's gguf-split)", run};

}  // namespace
}  // namespace gguf::cli::cmd_split
