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

// Indices (0 … 2³²−2) of strings kept back to back in one buffer (an arena), found by the string. A slot holds
// where its string is in the arena as well as its index, so a probe that finds the right hash compares the bytes at
// once, with no second lookup; the arena is passed to each call (it may have grown, and moved, between two). A
// table of n strings takes 16 × (the power of two ≥ 2n) bytes.
class StringIndex {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    void reserve(size_t n) {
        size_t capacity = 16;
        while (capacity < 2 * n) capacity *= 2;
        slots_.assign(capacity, Slot{});
        size_ = 0;
    }
    size_t size() const { return size_; }

    // The index of s, or kNone.
    uint32_t find(std::string_view s, const char* arena) const {
        if (slots_.empty()) return kNone;
        const uint64_t h = hash_bytes(s);
        const auto tag = static_cast<uint32_t>(h >> 32);
        for (size_t at = h & mask(); slots_[at].index != 0; at = (at + 1) & mask()) {
            const Slot& slot = slots_[at];
            if (slot.tag == tag && slot.size == s.size() && std::string_view(arena + slot.begin, slot.size) == s) return slot.index - 1;
        }
        return kNone;
    }
    // Adds index i for the string arena[begin, begin + size); false (nothing added) when an equal string is there.
    bool insert(uint32_t i, uint32_t begin, uint32_t size, const char* arena) {
        if (2 * (size_ + 1) > slots_.size()) grow(arena);
        const std::string_view s(arena + begin, size);
        const uint64_t h = hash_bytes(s);
        const auto tag = static_cast<uint32_t>(h >> 32);
        size_t at = h & mask();
        for (; slots_[at].index != 0; at = (at + 1) & mask()) {
            const Slot& slot = slots_[at];
            if (slot.tag == tag && slot.size == size && std::string_view(arena + slot.begin, slot.size) == s) return false;
        }
        slots_[at] = {tag, i + 1, begin, size};
        ++size_;
        return true;
    }

private:
    struct Slot {
        uint32_t tag = 0, index = 0;  // the hash's high half; the index + 1 (0: empty)
        uint32_t begin = 0, size = 0;  // the string in the arena
    };
    size_t mask() const { return slots_.size() - 1; }
    // Doubles the table: each slot moves to where its string's hash puts it (rehashed: the tag is only half of it).
    void grow(const char* arena) {
        std::vector<Slot> old;
        old.swap(slots_);
        reserve(old.empty() ? 8 : old.size());
        for (const Slot& slot : old) {
            if (slot.index != 0) insert(slot.index - 1, slot.begin, slot.size, arena);
        }
    }

    std::vector<Slot> slots_;
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
