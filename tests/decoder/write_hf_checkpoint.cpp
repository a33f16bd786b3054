// Writes the Hugging Face folders and pre-tokenized text the CLI tests use (tests/cli/hf_model_check.sh), with
// the project's own converter (hf_export.hpp); never committed, written into the build tree at test time.
//   write_hf_checkpoint stories260k DIR F32|BF16 [tokenizer]
//                                                     stories260K as a LlamaForCausalLM folder (with tok512.model
//                                                     as its tokenizer.model)
//   write_hf_checkpoint ids OUT STORIES               the first STORIES stories of the evaluation text as token
//                                                     ids (tok512.model), as a user's own tokenizer would write
#include <cstdio>
#include <string>

#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "models/decoder/eval_text.hpp"
#include "models/decoder/hf_export.hpp"
#include "models/decoder/known_files.hpp"
#include "models/decoder/sp_tokenizer.hpp"

using namespace lynx;

int main(int argc, char** argv) {
  try {
    const std::string what = argc > 1 ? argv[1] : "";
    if (what == "stories260k" && (argc == 4 || argc == 5)) {
      const std::string dtype = argv[3];
      hf_write_from_llama2c(llama_load(shipped_model_path()), argv[2],
                            dtype == "BF16" ? WeightDtype::bf16 : WeightDtype::f32);
      if (argc == 5)
        write_file_atomic(std::string(argv[2]) + "/tokenizer.model", read_file(data_file("models/stories260K/tok512.model")));
      return 0;
    }
    if (what == "ids" && argc == 4) {
      SpTokenizer sp(data_file("models/stories260K/tok512.model"));
      const int stories = std::stoi(argv[3]);
      std::string out;
      int n = 0;
      for (const auto& story : split_stories(read_file(shipped_text_path()))) {
        if (n++ == stories) break;
        const std::vector<int> ids = sp.encode(story);
        for (size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + std::to_string(ids[i]);
        out += "\n";
      }
      write_file_atomic(argv[2], out);
      return 0;
    }
    std::fprintf(stderr, "usage: write_hf_checkpoint stories260k DIR F32|BF16 [tokenizer] | ids OUT STORIES\n");
    return 2;
  } catch (const LynxError& e) {
    std::fprintf(stderr, "write_hf_checkpoint: %s\n", e.what());
    return 2;
  }
}
