#include "attn/special_tokens.hpp"

#include "attn/error.hpp"

#include <algorithm>
#include <deque>

namespace attn {

SpecialTokens::SpecialTokens(std::vector<std::pair<std::string, int32_t>> tokens, const std::string& where)
    : tokens_(std::move(tokens)), states_(1) {
    for (size_t t = 0; t < tokens_.size(); ++t) {
        const std::string& text = tokens_[t].first;
        if (text.empty()) throw Error(where + ": the special token of id " + std::to_string(tokens_[t].second) + " is empty (it would match everywhere)");
        if (text.size() > kMaxBytes) {
            throw Error(where + ": the special token of id " + std::to_string(tokens_[t].second) + " is " + std::to_string(text.size()) +
                        " bytes long, more than the " + std::to_string(kMaxBytes) + " a special token may have");
        }
        // The trie of the reversed tokens.
        int32_t s = 0;
        for (auto c = text.rbegin(); c != text.rend(); ++c) {
            const auto b = static_cast<unsigned char>(*c);
            int32_t n = child(s, b);
            if (n < 0) {
                n = static_cast<int32_t>(states_.size());
                auto& next = states_[static_cast<size_t>(s)].next;
                next.insert(std::lower_bound(next.begin(), next.end(), std::make_pair(b, int32_t{0})), {b, n});
                states_.emplace_back();
            }
            s = n;
        }
        if (states_[static_cast<size_t>(s)].output >= 0) {
            throw Error(where + ": the special token \"" + text.substr(0, 40) + "\" is listed twice (ids " +
                        std::to_string(tokens_[static_cast<size_t>(states_[static_cast<size_t>(s)].output)].second) + " and " +
                        std::to_string(tokens_[t].second) + ")");
        }
        states_[static_cast<size_t>(s)].output = static_cast<int32_t>(t);
    }
    // Failure links, breadth first: a state's output is its own token, else its failure state's (which is shorter).
    std::deque<int32_t> queue;
    for (const auto& [b, n] : states_[0].next) queue.push_back(n);
    while (!queue.empty()) {
        const int32_t s = queue.front();
        queue.pop_front();
        for (const auto& [b, n] : states_[static_cast<size_t>(s)].next) {
            int32_t f = states_[static_cast<size_t>(s)].fail;
            while (f > 0 && child(f, b) < 0) f = states_[static_cast<size_t>(f)].fail;
            const int32_t to = child(f, b);
            State& state = states_[static_cast<size_t>(n)];
            state.fail = to >= 0 && to != n ? to : 0;
            if (state.output < 0) state.output = states_[static_cast<size_t>(state.fail)].output;
            queue.push_back(n);
        }
    }
}

int32_t SpecialTokens::child(int32_t state, unsigned char byte) const {
    const auto& next = states_[static_cast<size_t>(state)].next;
    const auto it = std::lower_bound(next.begin(), next.end(), std::make_pair(byte, int32_t{0}));
    return it != next.end() && it->first == byte ? it->second : -1;
}

int32_t SpecialTokens::step(int32_t state, unsigned char byte) const {
    for (;;) {
        const int32_t n = child(state, byte);
        if (n >= 0) return n;
        if (state == 0) return 0;
        state = states_[static_cast<size_t>(state)].fail;
    }
}

std::vector<std::pair<size_t, int32_t>> SpecialTokens::find_all(const std::string& text) const {
    std::vector<std::pair<size_t, int32_t>> starts;  // backwards: the longest token starting at each byte
    if (tokens_.empty()) return starts;
    int32_t s = 0;
    for (size_t i = text.size(); i-- > 0;) {
        s = step(s, static_cast<unsigned char>(text[i]));
        if (const int32_t t = states_[static_cast<size_t>(s)].output; t >= 0) starts.emplace_back(i, t);
    }
    // Forwards, leftmost first: a match that starts inside the one before it is not a match.
    std::vector<std::pair<size_t, int32_t>> matches;
    size_t free_from = 0;
    for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
        if (it->first < free_from) continue;
        matches.push_back(*it);
        free_from = it->first + tokens_[static_cast<size_t>(it->second)].first.size();
    }
    return matches;
}

}  // namespace attn
