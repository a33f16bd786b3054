#include "models/decoder/eval_text.hpp"

#include <algorithm>

namespace lynx {

std::vector<std::string> split_stories(const std::string& text) {
  static const std::string separator = "<|endoftext|>";
  static const char* space = " \t\r\n";
  std::vector<std::string> stories;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find(separator, at);
    if (end == std::string::npos) end = text.size();
    std::string piece = text.substr(at, end - at);
    size_t first = piece.find_first_not_of(space);
    if (first != std::string::npos) {
      size_t last = piece.find_last_not_of(space);
      stories.push_back(piece.substr(first, last - first + 1));
    }
    at = end + separator.size();
  }
  return stories;
}

EvalCorpus eval_corpus(const Tokenizer& tokenizer, const std::string& text, int max_stories) {
  EvalCorpus corpus;
  for (const auto& story : split_stories(text)) {
    if (max_stories > 0 && static_cast<int>(corpus.stories.size()) == max_stories) break;
    corpus.stories.push_back(tokenizer_encode(tokenizer, story, false, false));
    corpus.tokens += static_cast<int64_t>(corpus.stories.back().size());
  }
  return corpus;
}

std::vector<std::vector<int>> teacher_forcing_windows(const EvalCorpus& corpus, int window_tokens) {
  std::vector<std::vector<int>> windows;
  for (const auto& story : corpus.stories)
    for (size_t begin = 0; begin < story.size(); begin += static_cast<size_t>(window_tokens)) {
      size_t end = std::min(story.size(), begin + static_cast<size_t>(window_tokens));
      std::vector<int> window{kBosToken};
      window.insert(window.end(), story.begin() + static_cast<std::ptrdiff_t>(begin),
                    story.begin() + static_cast<std::ptrdiff_t>(end));
      windows.push_back(std::move(window));
    }
  return windows;
}

std::vector<Prompt> cut_prompts(const EvalCorpus& corpus, const std::vector<int>& cuts) {
  std::vector<int> sorted = cuts;
  std::sort(sorted.begin(), sorted.end());
  std::vector<Prompt> prompts;
  for (int cut : sorted)
    for (size_t s = 0; s < corpus.stories.size(); ++s) {
      const auto& story = corpus.stories[s];
      if (static_cast<int>(story.size()) < cut) continue;
      Prompt p;
      p.story = static_cast<int>(s);
      p.cut = cut;
      p.tokens.push_back(kBosToken);
      p.tokens.insert(p.tokens.end(), story.begin(), story.begin() + cut);
      prompts.push_back(std::move(p));
    }
  return prompts;
}

}  // namespace lynx
