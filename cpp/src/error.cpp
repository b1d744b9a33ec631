#include "attn/error.hpp"

#include <algorithm>

namespace attn {

namespace {
// A name without its case and word separators: top_p, topP and top-p are one name (a transformers user writes
// the snake_case of generation_config.json where the JS API takes camelCase).
std::string folded(const std::string& name) {
    std::string out;
    for (const char c : name) {
        if (c == '_' || c == '-') continue;
        out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    return out;
}
}  // namespace

std::string nearest_name(const std::string& name, const std::vector<std::string>& known) {
    for (const std::string& k : known) {
        if (folded(k) == folded(name)) return k;
    }
    // Levenshtein distance of the folded names; a name within a third of its length (at least 2 edits) is "near".
    auto distance = [](const std::string& a, const std::string& b) {
        std::vector<size_t> row(b.size() + 1);
        for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
        for (size_t i = 1; i <= a.size(); ++i) {
            size_t diagonal = row[0];
            row[0] = i;
            for (size_t j = 1; j <= b.size(); ++j) {
                const size_t up = row[j];
                row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
                diagonal = up;
            }
        }
        return row[b.size()];
    };
    std::string best;
    size_t best_distance = std::max<size_t>(2, name.size() / 3) + 1;
    for (const std::string& k : known) {
        const size_t d = distance(folded(name), folded(k));
        if (d < best_distance) {
            best = k;
            best_distance = d;
        }
    }
    return best;
}

}  // namespace attn
