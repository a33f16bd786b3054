// lynxsim kv-size: exact KV-cache bytes of a catalog model for each wire format (anchor, residual, total). The
// header line says what a layer holds: K and V per KV head (GQA) or MLA's one latent, and any sliding window. With
// --tp N also what a tensor-parallel replica of N GPUs holds (each KV head, or MLA's latent, on N / kv_shard_heads
// GPUs when N exceeds them, models/arch/kv_replication.hpp) and what crosses the wire to it under
// transfer.replicated_kv send_all and send_once.
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "kernels/kv_format.hpp"
#include "models/arch/attention.hpp"
#include "models/arch/catalog.hpp"
#include "models/arch/kv_replication.hpp"
#include "models/arch/kv_size.hpp"

namespace lynx {

namespace {
struct KvSizeOptions {
  std::string model;
  int64_t tokens = 0;
  std::vector<std::string> formats;
  std::string catalog;
  int64_t tp = 0;  // 0: no tensor-parallel columns
};

std::string per_token(uint64_t bytes, int64_t tokens) {
  char text[64];
  if (bytes % static_cast<uint64_t>(tokens) == 0)
    std::snprintf(text, sizeof text, "%" PRIu64, bytes / static_cast<uint64_t>(tokens));
  else
    std::snprintf(text, sizeof text, "%.3f", static_cast<double>(bytes) / static_cast<double>(tokens));
  return text;
}

void print_model(const ModelSpec& model, int64_t tokens, const std::vector<std::string>& formats, int64_t tp) {
  if (model.attention == AttentionKind::mla)
    std::printf("# %s, %" PRId64 " tokens: %" PRId64 " layers x MLA latent (%" PRId64 " kv_lora_rank + %" PRId64
                " qk_rope_head_dim), held whole on every TP rank",
                model.name.c_str(), tokens, model.n_layers, model.kv_lora_rank, model.qk_rope_head_dim);
  else
    std::printf("# %s, %" PRId64 " tokens: %" PRId64 " layers x (K, V) x %" PRId64 " kv_heads x %" PRId64 " head_dim",
                model.name.c_str(), tokens, model.n_layers, model.n_kv_heads, model.head_dim);
  if (model.sliding_window > 0)
    std::printf("; %" PRId64 " sliding-window layers hold at most %" PRId64 " tokens", sliding_layer_count(model),
                model.sliding_window);
  std::printf("\n");
  const double copies = tp > 0 ? kv_head_copies(kv_shard_heads(model), tp) : 1;
  if (tp > 0)
    std::printf("# tp %" PRId64 ": each KV head held on %g GPU(s); held_bytes = total x %g; wire bytes per "
                "transfer.replicated_kv\n",
                tp, copies, copies);
  std::printf("%-18s %16s %16s %16s %16s %16s %16s %10s", "format", "anchor_B/token", "residual_B/token",
              "total_B/token", "anchor_bytes", "residual_bytes", "total_bytes", "total_GiB");
  if (tp > 0) std::printf(" %16s %16s %16s", "held_bytes", "wire_send_all", "wire_send_once");
  std::printf("\n");
  for (const auto& name : formats) {
    KvFormat format = kv_format_parse(name);
    KvStreamBytes b = model_kv_bytes(model, format, tokens);
    std::printf("%-18s %16s %16s %16s %16" PRIu64 " %16" PRIu64 " %16" PRIu64 " %10.3f", format.name.c_str(),
                per_token(b.anchor, tokens).c_str(), per_token(b.residual, tokens).c_str(),
                per_token(b.total(), tokens).c_str(), b.anchor, b.residual, b.total(),
                static_cast<double>(b.total()) / (1024.0 * 1024.0 * 1024.0));
    if (tp > 0) {
      const double total = static_cast<double>(b.total());
      std::printf(" %16.0f %16.0f %16.0f", total * copies,
                  total * wire_copies(kv_shard_heads(model), tp, ReplicatedKv::send_all),
                  total * wire_copies(kv_shard_heads(model), tp, ReplicatedKv::send_once));
    }
    std::printf("\n");
  }
}

void run_kv_size(const KvSizeOptions& o) {
  std::vector<ModelSpec> catalog = load_model_catalog_with(o.catalog);
  std::vector<std::string> formats = o.formats.empty() ? kv_format_default_names() : o.formats;
  for (const auto& name : formats) kv_format_parse(name);  // reject a bad name before printing anything
  if (o.model.empty()) {
    for (size_t i = 0; i < catalog.size(); ++i) {
      if (i) std::printf("\n");
      if (!catalog[i].unavailable.empty()) {
        std::printf("# %s: unavailable: %s\n", catalog[i].name.c_str(), catalog[i].unavailable.c_str());
        continue;
      }
      print_model(catalog[i], o.tokens, formats, o.tp);
    }
    return;
  }
  print_model(find_model(catalog, o.model), o.tokens, formats, o.tp);
}
}  // namespace

void add_kv_size_command(CLI::App& app) {
  auto options = std::make_shared<KvSizeOptions>();
  CLI::App* cmd = app.add_subcommand("kv-size", "Exact KV-cache bytes per token and in total, for each format");
  cmd->add_option("--model", options->model, "Catalog model name (default: every model)");
  cmd->add_option("--tokens", options->tokens, "Context length in tokens")
      ->required()
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000'000}));  // 1e9 tokens x the largest bytes/token fits uint64
  cmd->add_option("--format", options->formats, "KV format, repeatable (default: a standard set); " +
                                                    kv_format_grammar());
  cmd->add_option("--tp", options->tp,
                  "Tensor-parallel GPUs of a replica: adds the bytes it holds (replicated KV heads) and the bytes "
                  "on the wire under send_all and send_once")
      ->check(CLI::Range(int64_t{1}, int64_t{64}));
  cmd->add_option("--models-catalog", options->catalog, "User model catalog JSON: adds to or overrides the shipped entries by name");
  cmd->callback([options] { run_kv_size(*options); });
}

}  // namespace lynx
