// Two open-addressing hash tables for the BPE tokenizer's vocabulary and merges. Reading Llama 3's tokenizer.json
// looks up 840,000 strings (each merge's two halves and the token they make) and inserts 280,000 merges; in
// std::unordered_map each lookup chases a bucket, a node and the key's characters through memory, and that took
// two thirds of the time the file took to load. Here a slot is 16 bytes in one array, probed linearly, and a
// string key is compared only when its slot's 32 bits of hash agree.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace attn {

// A string's hash as the bytes of its parts, in order: FNV-1a over each byte, then MurmurHash3's 64-bit finalizer to
// spread FNV's weak low bits over the slot index and the tag. Any split of the same bytes hashes alike, so a merged
// token is found by its two halves without joining them (StringIndex::find(left, right, arena)).
class StringHash {
public:
    StringHash& add(std::string_view s) {
        for (const char c : s) h_ = (h_ ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
        return *this;
    }
    uint64_t value() const {
        uint64_t h = h_;
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
        h *= 0xc4ceb9fe1a85ec53ull;
        return h ^ (h >> 33);
    }

private:
    uint64_t h_ = 0xcbf29ce484222325ull;
};
inline uint64_t hash_bytes(std::string_view s) { return StringHash().add(s).value(); }

// Indices (0 … kMaxIndex) of strings kept back to back in one buffer (an arena), found by the string, or by two
// strings that make it (a merge's halves, unjoined). A slot holds a string of up to 8 bytes itself (84 % of the
// lookups reading Llama 3's file), and where a longer one is in the arena, so that a probe which finds the right
// hash compares the bytes with no second trip through memory for a short string, and no second lookup for a long
// one. The arena is passed to each call (it may have grown, and moved, between two). A table of n strings takes
// 16 × (the power of two ≥ 2n) bytes.
class StringIndex {
public:
    static constexpr uint32_t kNone = UINT32_MAX;
    static constexpr uint32_t kMaxIndex = (1u << 20) - 2;  // (a slot keeps index + 1 in 20 bits)

    void reserve(size_t n) {
        size_t capacity = 16;
        while (capacity < 2 * n) capacity *= 2;
        slots_.assign(capacity, Slot{});
        size_ = 0;
    }
    size_t size() const { return size_; }
    // A first look at the slot where the string of hash h is sought: looking at the slots of many strings before
    // finding them keeps their trips to memory in flight together (the merges' loop, bpe_tokenizer_files.cpp).
    uint32_t touch(uint64_t h) const { return slots_.empty() ? 0 : slots_[h & mask()].tag; }

    // The index of s, or kNone.
    uint32_t find(std::string_view s, const char* arena) const { return find(s, {}, hash_bytes(s), arena); }
    // The index of the string `first` then `second` (not joined: a merge's halves), or kNone, given its hash
    // (StringHash().add(first).add(second).value()).
    uint32_t find(std::string_view first, std::string_view second, uint64_t h, const char* arena) const {
        if (slots_.empty()) return kNone;
        const auto tag = static_cast<uint32_t>(h >> 32);
        const Key key = key_of(first, second);
        for (size_t at = h & mask(); slots_[at].meta != 0; at = (at + 1) & mask()) {
            const Slot& slot = slots_[at];
            if (slot.tag == tag && holds(slot, first, second, key, arena)) return (slot.meta >> kSizeBits) - 1;
        }
        return kNone;
    }
    // Adds index i (at most kMaxIndex) for the string arena[begin, begin + size); false (nothing added) when an equal
    // string is there.
    bool insert(uint32_t i, uint32_t begin, uint32_t size, const char* arena) {
        if (2 * (size_ + 1) > slots_.size()) grow(arena);
        const std::string_view s(arena + begin, size);
        const uint64_t h = hash_bytes(s);
        const auto tag = static_cast<uint32_t>(h >> 32);
        const Key key = key_of(s, {});
        size_t at = h & mask();
        for (; slots_[at].meta != 0; at = (at + 1) & mask()) {
            const Slot& slot = slots_[at];
            if (slot.tag == tag && holds(slot, s, {}, key, arena)) return false;
        }
        Slot& slot = slots_[at];
        slot.tag = tag;
        slot.meta = (i + 1) << kSizeBits | key.size;
        if (key.size == kFar) slot.payload = uint64_t{size} << 32 | begin;
        else slot.payload = key.bytes;
        ++size_;
        return true;
    }

private:
    static constexpr uint32_t kSizeBits = 12, kFar = (1u << kSizeBits) - 1;  // kFar: a string of more than 8 bytes
    struct Slot {
        uint32_t tag = 0;      // the hash's high half
        uint32_t meta = 0;     // (index + 1) << kSizeBits | the size (≤ 8), or kFar; 0: empty
        uint64_t payload = 0;  // the string's bytes, zero-padded; or kFar's (size << 32 | begin in the arena)
    };
    struct Key {
        uint32_t size;   // ≤ 8, or kFar
        uint64_t bytes;  // a short string's bytes, zero-padded
    };
    // (Bytes shifted in one at a time: a memcpy of a size not known when compiling is a call in WebAssembly.)
    static Key key_of(std::string_view first, std::string_view second) {
        if (first.size() + second.size() > 8) return {kFar, 0};
        Key k{static_cast<uint32_t>(first.size() + second.size()), 0};
        unsigned shift = 0;
        for (const std::string_view part : {first, second}) {
            for (const char c : part) {
                k.bytes |= uint64_t{static_cast<unsigned char>(c)} << shift;
                shift += 8;
            }
        }
        return k;
    }
    static bool holds(const Slot& slot, std::string_view first, std::string_view second, const Key& key, const char* arena) {
        if ((slot.meta & kFar) != key.size) return false;
        if (key.size != kFar) return slot.payload == key.bytes;
        const auto size = static_cast<uint32_t>(slot.payload >> 32), begin = static_cast<uint32_t>(slot.payload);
        return size == first.size() + second.size() && std::memcmp(arena + begin, first.data(), first.size()) == 0 &&
               std::memcmp(arena + begin + first.size(), second.data(), second.size()) == 0;
    }
    static uint64_t hash_of(const Slot& slot, const char* arena) {
        if ((slot.meta & kFar) == kFar) return hash_bytes(std::string_view(arena + static_cast<uint32_t>(slot.payload), static_cast<uint32_t>(slot.payload >> 32)));
        char bytes[8];
        for (uint32_t k = 0; k < (slot.meta & kFar); ++k) bytes[k] = static_cast<char>(slot.payload >> (8 * k));
        return hash_bytes(std::string_view(bytes, slot.meta & kFar));
    }
    size_t mask() const { return slots_.size() - 1; }
    // Doubles the table: each slot moves to where its string's hash puts it (rehashed: the tag is only half of it).
    void grow(const char* arena) {
        std::vector<Slot> old;
        old.swap(slots_);
        reserve(old.empty() ? 8 : old.size());
        for (const Slot& slot : old) {
            if (slot.meta == 0) continue;
            size_t at = hash_of(slot, arena) & mask();
            while (slots_[at].meta != 0) at = (at + 1) & mask();
            slots_[at] = slot;
            ++size_;
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

    // Room for n merges at most 2/3 full: Llama 3's 280,147 take 512 Ki slots (8 MiB) rather than twice that at half
    // full, and reading its file touches half as much memory; a lookup while encoding probes a little further.
    void reserve(size_t n) {
        size_t capacity = 16;
        while (2 * capacity < 3 * n) capacity *= 2;
        slots_.assign(capacity, Slot{0, {0, -1}});
        size_ = 0;
    }
    // Sets the pair's merge (a pair given twice keeps the last).
    void set(uint64_t pair, Merge m) {
        if (3 * (size_ + 1) > 2 * slots_.size()) grow();
        Slot& s = slot_of(pair);
        if (s.merge.merged < 0) ++size_;
        s = {pair, m};
    }
    // A first look at the pair's slot, as StringIndex::touch.
    int32_t touch(uint64_t pair) const { return slots_.empty() ? 0 : slots_[home(pair)].merge.rank; }
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
    size_t home(uint64_t pair) const { return (pair * 0x9E3779B97F4A7C15ull) >> 20 & (slots_.size() - 1); }  // Fibonacci hashing: ids are small and dense
    Slot& slot_of(uint64_t pair) {
        const size_t mask = slots_.size() - 1;
        size_t at = home(pair);
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
