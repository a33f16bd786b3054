// lynxsim export-hf: writes stories260K (the data folder's llama2.c checkpoint) as a small Hugging Face
// LlamaForCausalLM folder (config.json, model.safetensors, and tok512.model as tokenizer.model), with the project's
// own converter (models/decoder/hf_export.hpp, the one the tests use), so that the Hugging Face path of `accuracy`
// and `generate` (--model DIR) can be tried without downloading a checkpoint. The folder is new or holds only
// files this command writes (the output rule, common/output_paths.hpp).
#include <cstdio>
#include <memory>
#include <string>

#include "app/commands.hpp"
#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/output_paths.hpp"
#include "models/decoder/checkpoint.hpp"
#include "models/decoder/hf_export.hpp"
#include "models/decoder/known_files.hpp"

namespace lynx {

namespace {
struct ExportOptions {
  std::string out;
  WeightDtype dtype = WeightDtype::f32;
};

void run_export(const ExportOptions& o) {
  // The SentencePiece model of stories260K's tokenizer (tok512.bin is the same vocabulary in llama2.c's format,
  // which a Hugging Face folder does not hold).
  const std::string model = shipped_model_path(), tokenizer = data_file("models/stories260K/tok512.model");
  OutputPlan plan;
  plan.input_file("stories260K", model);
  plan.input_file("its tokenizer", tokenizer);
  plan.input_shared(OutputPlan::kDataFolder);
  plan.output_folder("--out", o.out, {"config.json", "model.safetensors", "tokenizer.model"});
  plan.check();
  hf_write_from_llama2c(llama_load(model), o.out, o.dtype);
  write_file_atomic(o.out + "/tokenizer.model", read_file(tokenizer));
  std::printf("wrote %s (stories260K as LlamaForCausalLM: config.json, model.safetensors, tokenizer.model)\n"
              "try it: lynxsim accuracy --model %s --stories 10 --out acceptance.json\n",
              o.out.c_str(), o.out.c_str());
}
}  // namespace

void add_export_hf_command(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "export-hf", "Write stories260K (from the data folder) as a small Hugging Face folder to try `accuracy --model "
                   "DIR` and `generate --model DIR` on");
  cmd->add_option("--out", o->out, "Folder to write (created; config.json, model.safetensors, tokenizer.model)")
      ->required();
  const std::map<std::string, WeightDtype> dtypes = {{"f32", WeightDtype::f32}, {"bf16", WeightDtype::bf16}};
  cmd->add_option("--dtype", o->dtype, "Weight type of model.safetensors: f32 or bf16 (default f32, exact)")
      ->transform(CLI::CheckedTransformer(dtypes));
  cmd->callback([o] { run_export(*o); });
}

}  // namespace lynx
