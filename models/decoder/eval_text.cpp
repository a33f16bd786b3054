#include "models/decoder/eval_text.hpp"

#include <algorithm>

#include "common/error.hpp"

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
  return eval_corpus([&](const std::string& story) { return tokenizer_encode(tokenizer, story, false, false); }, text,
                     max_stories, kBosToken);
}

EvalCorpus eval_corpus(const std::function<std::vector<int>(const std::string&)>& encode, const std::string& text,
                       int max_stories, int bos) {
  EvalCorpus corpus;
  corpus.bos = bos;
  for (const auto& story : split_stories(text)) {
    if (max_stories > 0 && static_cast<int>(corpus.stories.size()) == max_stories) break;
    corpus.stories.push_back(encode(story));
    corpus.tokens += static_cast<int64_t>(corpus.stories.back().size());
  }
  return corpus;
}

EvalCorpus eval_corpus_from_ids(const std::string& contents, const std::string& path, int vocab_size,
                                int max_stories, int bos) {
  EvalCorpus corpus;
  corpus.bos = bos;
  size_t at = 0;
  int line = 0;
  while (at < contents.size()) {
    size_t end = contents.find('\n', at);
    if (end == std::string::npos) end = contents.size();
    ++line;
    std::vector<int> ids;
    for (size_t i = at; i < end;) {
      const char ch = contents[i];
      if (ch == ' ' || ch == '\t' || ch == '\r' || ch == ',') {
        ++i;
        continue;
      }
      if (ch < '0' || ch > '9')
        throw_error("%s:%d: column %zu: expected token ids (decimal integers separated by spaces, one story per "
                    "line), got '%c'",
                    path.c_str(), line, i - at + 1, ch);
      int64_t id = 0;
      const size_t start = i;
      while (i < end && contents[i] >= '0' && contents[i] <= '9') {
        id = id * 10 + (contents[i] - '0');
        if (id >= vocab_size)
          throw_error("%s:%d: column %zu: token id %s... is outside the model's vocabulary of %d", path.c_str(), line,
                      start - at + 1, contents.substr(start, i - start + 1).c_str(), vocab_size);
        ++i;
      }
      ids.push_back(static_cast<int>(id));
    }
    at = end + 1;
    if (ids.empty()) continue;
    if (max_stories > 0 && static_cast<int>(corpus.stories.size()) == max_stories) break;
    corpus.tokens += static_cast<int64_t>(ids.size());
    corpus.stories.push_back(std::move(ids));
  }
  return corpus;
}

std::vector<std::vector<int>> teacher_forcing_windows(const EvalCorpus& corpus, int window_tokens) {
  std::vector<std::vector<int>> windows;
  for (const auto& story : corpus.stories)
    for (size_t begin = 0; begin < story.size(); begin += static_cast<size_t>(window_tokens)) {
      size_t end = std::min(story.size(), begin + static_cast<size_t>(window_tokens));
      std::vector<int> window{corpus.bos};
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
      p.tokens.push_back(corpus.bos);
      p.tokens.insert(p.tokens.end(), story.begin(), story.begin() + cut);
      prompts.push_back(std::move(p));
    }
  return prompts;
}

}  // namespace lynx
