// Notebook 000's attention weights, then the package's pretrained model
// choosing the next word, with the installed C++ library; given a Hugging Face
// GPT-2 folder too (config.json, model.safetensors, and vocab.json + merges.txt
// or tokenizer.json), that model's next token, loaded in one call.
#include <attn/attn.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
    if (argc != 2 && argc != 3) {
        std::fprintf(stderr, "usage: %s MODEL.safetensors [GPT2_FOLDER]\n", argv[0]);
        return 2;
    }
    // "Your journey starts with one step", three numbers per word.
    const attn::Tensor inputs({6, 3}, {0.43f, 0.15f, 0.89f, 0.55f, 0.87f, 0.66f, 0.57f, 0.85f, 0.64f,
                                       0.22f, 0.58f, 0.33f, 0.77f, 0.25f, 0.10f, 0.05f, 0.80f, 0.55f});
    const attn::Tensor weights = attn::softmax(attn::attention_scores_for_query(inputs, 1));
    for (int64_t j = 0; j < weights.numel(); ++j) std::printf("%.4f ", weights[j]);
    std::printf("\n");

    try {
        std::ifstream file(argv[1], std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        attn::Checkpoint checkpoint = attn::load_checkpoint(bytes);
        const std::vector<int64_t> prompt = checkpoint.tokenizer.encode("The cats, which slept near the dog,");
        attn::GenerateOptions greedy;
        greedy.max_new_tokens = 1;
        greedy.sampling.temperature = 0;  // the likeliest word
        const std::vector<int64_t> ids = attn::generate(checkpoint.model, prompt, /*B=*/1, greedy);
        std::printf("%s\n", checkpoint.tokenizer.decode({ids.back()}).c_str());

        if (argc == 3) {
            attn::Pretrained gpt2 = attn::load_pretrained(argv[2]);  // config, tokenizer and weights, checked
            const auto& bpe = std::get<attn::BPETokenizer>(gpt2.tokenizer);
            const std::vector<int64_t> next = attn::generate(gpt2.model, bpe.encode("The cat sat on the"), 1, greedy);
            std::printf("%s\n", bpe.decode({next.back()}).c_str());
        }
    } catch (const attn::Error& e) {  // a missing or damaged file: a message, not a crash
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
