#include "unicode_normalization.hpp"

#include "attn/tokenizer.hpp"
#include "unicode_classes.hpp"
#include "utf8.hpp"

#include <algorithm>

namespace attn {

namespace {
// Hangul syllables decompose and compose by arithmetic (Unicode §3.12).
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

void decompose(char32_t c, std::u32string& out) {
    if (c >= kSBase && c < kSBase + kSCount) {
        const char32_t s = c - kSBase;
        out += kLBase + s / kNCount;
        out += kVBase + (s % kNCount) / kTCount;
        if (s % kTCount) out += kTBase + s % kTCount;
        return;
    }
    const std::u32string_view d = unicode::decomposition(c);
    if (d.empty()) out += c;
    else out += d;
}

char32_t compose_pair(char32_t a, char32_t b) {
    if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount) {
        return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
    }
    if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase && b < kTBase + kTCount) {
        return a + (b - kTBase);
    }
    return unicode::compose(a, b);
}

// NFD of a run of code points: decomposed, then each run of marks sorted by class (stably: equal classes keep
// their order).
std::u32string canonical_decomposition(const std::u32string& in) {
    std::u32string out;
    for (char32_t c : in) decompose(c, out);
    for (size_t i = 0; i < out.size();) {
        if (unicode::combining_rank(out[i]) == 0) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < out.size() && unicode::combining_rank(out[j]) != 0) ++j;
        std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(i), out.begin() + static_cast<std::ptrdiff_t>(j),
                         [](char32_t a, char32_t b) { return unicode::combining_rank(a) < unicode::combining_rank(b); });
        i = j;
    }
    return out;
}

// The canonical composition of an NFD run: a mark joins the last starter unless a character between them is a
// starter or has a class at least its own.
std::u32string canonical_composition(const std::u32string& d) {
    std::u32string out;
    std::ptrdiff_t starter = -1;
    int last = 0;  // the class rank of the last character kept after the starter
    for (char32_t c : d) {
        const int rank = unicode::combining_rank(c);
        if (starter >= 0) {
            const bool adjacent = static_cast<std::ptrdiff_t>(out.size()) - 1 == starter;
            if (adjacent || (last != 0 && last < rank)) {
                if (const char32_t composite = compose_pair(out[static_cast<size_t>(starter)], c)) {
                    out[static_cast<size_t>(starter)] = composite;
                    continue;
                }
            }
        }
        if (rank == 0) starter = static_cast<std::ptrdiff_t>(out.size());
        last = rank;
        out += c;
    }
    return out;
}

// The text's runs of valid UTF-8 normalized by `f`, invalid bytes copied between them. Text below U+0300 has no
// combining marks and no decomposition that NFC keeps, so it is returned as it is.
template <typename F>
std::string normalize(const std::string& text, bool composed, F&& f) {
    const auto* s = reinterpret_cast<const unsigned char*>(text.data());
    bool plain = true;
    for (size_t i = 0; i < text.size() && plain; ++i) plain = s[i] < 0xCC;  // the lead bytes of U+0000–U+02FF
    if (plain && composed) return text;
    std::string out;
    std::u32string run;
    const auto flush = [&] {
        for (char32_t c : f(run)) utf8_append(out, c);
        run.clear();
    };
    for (size_t i = 0; i < text.size();) {
        int len = 0;
        const char32_t c = utf8_decode_at(s, text.size(), i, len);
        if (len == 0) {
            flush();
            out += text[i++];
            continue;
        }
        run += c;
        i += static_cast<size_t>(len);
    }
    flush();
    return out;
}
}  // namespace

std::string nfc(const std::string& text) {
    return normalize(text, true, [](const std::u32string& run) { return canonical_composition(canonical_decomposition(run)); });
}

std::string nfd(const std::string& text) {
    return normalize(text, false, [](const std::u32string& run) { return canonical_decomposition(run); });
}

}  // namespace attn
