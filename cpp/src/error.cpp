#include "attn/error.hpp"

#include <algorithm>

namespace attn {

std::string nearest_name(const std::string& name, const std::vector<std::string>& known) {
    // Levenshtein distance; a name within a third of its length (at least 2 edits) is "near".
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
        const size_t d = distance(name, k);
        if (d < best_distance) {
            best = k;
            best_distance = d;
        }
    }
    return best;
}

}  // namespace attn
