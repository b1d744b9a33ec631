// Two open-addressing hash tables for the BPE tokenizer's vocabulary and merges. Reading Llama 3's tokenizer.json
// looks up 840,000 strings (each merge's two halves and the token they make) and inserts 280,000 merges; in
// std::unordered_map each lookup chases a bucket, a node and the key's characters through memory, and that took
// two thirds of the time the file took to load. Here a slot is 8 or 16 bytes in one array, probed linearly, and
// a string key is compared only when its slot's 32 bits of hash agree.
#pragma once

// xxHash header-only, as checkpoint.cpp uses it (CMakeLists.txt: no library to link).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace attn {

inline uint64_t hash_bytes(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

// Indices (0 … 2³²−2) of strings that live elsewhere, found by the string: `key(i)` gives string i. A table of n
// strings takes 8 × (the power of two ≥ 2n) bytes.
class StringIndex {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    void reserve(size_t n) {
        size_t capacity = 16;
        while (capacity < 2 * n) capacity *= 2;
        slots_.assign(capacity, 0);
        size_ = 0;
    }
    size_t size() const { return size_; }

    // The index of s, or kNone.
    template <typename Key>
    uint32_t find(std::string_view s, const Key& key) const {
        if (slots_.empty()) return kNone;
        const uint64_t h = hash_bytes(s);
        const auto tag = static_cast<uint32_t>(h >> 32);
        for (size_t at = h & mask(); slots_[at] != 0; at = (at + 1) & mask()) {
            const uint64_t slot = slots_[at];
            const auto i = static_cast<uint32_t>(slot) - 1;
            if (static_cast<uint32_t>(slot >> 32) == tag && key(i) == s) return i;
        }
        return kNone;
    }
    // Adds index i under key(i); false (nothing added) when an equal string is there already.
    template <typename Key>
    bool insert(uint32_t i, const Key& key) {
        if (2 * (size_ + 1) > slots_.size()) grow(key);
        const std::string_view s = key(i);
        const uint64_t h = hash_bytes(s);
        const auto tag = static_cast<uint32_t>(h >> 32);
        size_t at = h & mask();
        for (; slots_[at] != 0; at = (at + 1) & mask()) {
            const uint64_t slot = slots_[at];
            if (static_cast<uint32_t>(slot >> 32) == tag && key(static_cast<uint32_t>(slot) - 1) == s) return false;
        }
        slots_[at] = (uint64_t{tag} << 32) | (i + 1);
        ++size_;
        return true;
    }

private:
    size_t mask() const { return slots_.size() - 1; }
    template <typename Key>
    void grow(const Key& key) {
        std::vector<uint64_t> old;
        old.swap(slots_);
        reserve(old.empty() ? 8 : old.size());
        for (const uint64_t slot : old) {
            if (slot != 0) insert(static_cast<uint32_t>(slot) - 1, key);
        }
    }

    std::vector<uint64_t> slots_;  // (hash >> 32) << 32 | (index + 1); 0: empty
    size_t size_ = 0;
};

// A map from a pair of token ids (packed in 64 bits) to a merge's rank and the token it makes.
class MergeTable {
public:
    struct Merge {
        int32_t rank, merged;
    };

    void reserve(size_t n) {
        size_t capacity = 16;
        while (capacity < 2 * n) capacity *= 2;
        slots_.assign(capacity, Slot{0, {0, -1}});
        size_ = 0;
    }
    // Sets the pair's merge (a pair given twice keeps the last).
    void set(uint64_t pair, Merge m) {
        if (2 * (size_ + 1) > slots_.size()) grow();
        Slot& s = slot_of(pair);
        if (s.merge.merged < 0) ++size_;
        s = {pair, m};
    }
    const Merge* find(uint64_t pair) const {
        if (slots_.empty()) return nullptr;
        const Slot& s = const_cast<MergeTable*>(this)->slot_of(pair);
        return s.merge.merged < 0 ? nullptr : &s.merge;
    }

private:
    struct Slot {
        uint64_t pair;
        Merge merge;  // merged −1: empty
    };
    Slot& slot_of(uint64_t pair) {
        const size_t mask = slots_.size() - 1;
        size_t at = (pair * 0x9E3779B97F4A7C15ull) >> 20 & mask;  // Fibonacci hashing: ids are small and dense
        while (slots_[at].merge.merged >= 0 && slots_[at].pair != pair) at = (at + 1) & mask;
        return slots_[at];
    }
    void grow() {
        std::vector<Slot> old;
        old.swap(slots_);
        reserve(old.empty() ? 8 : old.size());
        for (const Slot& s : old) {
            if (s.merge.merged >= 0) set(s.pair, s.merge);
        }
    }

    std::vector<Slot> slots_;
    size_t size_ = 0;
};

}  // namespace attn
