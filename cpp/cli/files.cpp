#include "files.hpp"

#include "attn/error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace attn::cli {

namespace {
// The process's umask (reading it means setting it; set back at once).
mode_t current_umask() {
    const mode_t mask = umask(0);
    umask(mask);
    return mask;
}

}  // namespace

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw Error("cannot open \"" + path + "\"");
    // Read at its size in one allocation: a corpus is held once, not in a growing stream and a copy of it.
    const std::streamoff size = in.tellg();
    if (size < 0) throw Error("cannot read \"" + path + "\"");
    std::string bytes(static_cast<size_t>(size), '\0');
    in.seekg(0);
    if (!in.read(bytes.data(), size)) throw Error("cannot read \"" + path + "\"");
    return bytes;
}

// Writes a file as careful tools do, so that a save can never destroy what it
// replaces: only a regular file (or nothing) at `path` is replaced, never a
// device, FIFO, directory or symlink; the bytes go to a new file created
// exclusively (O_EXCL, an unpredictable name, no symlink followed) in the same
// directory, with the replaced file's mode, synced, then renamed over `path`;
// on any failure the temporary file is removed and `path` is left as it was.
void write_file(const std::string& path, const std::string& bytes) {
    struct stat target {};
    mode_t mode = 0666 & ~current_umask();
    if (lstat(path.c_str(), &target) == 0) {
        if (!S_ISREG(target.st_mode)) {
            const char* what = S_ISLNK(target.st_mode) ? "a symbolic link" : S_ISDIR(target.st_mode) ? "a directory"
                             : S_ISFIFO(target.st_mode) ? "a FIFO" : S_ISCHR(target.st_mode) || S_ISBLK(target.st_mode) ? "a device"
                                                                                                           : "not a regular file";
            throw Error("refusing to write \"" + path + "\": it is " + what + ", and only a regular file is replaced");
        }
        mode = target.st_mode & 07777;
    } else if (errno != ENOENT) {
        throw Error("cannot write \"" + path + "\": " + std::strerror(errno));
    }
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    std::string tmp = dir + "/." + base + ".XXXXXX";
    const int fd = mkstemp(tmp.data());  // O_CREAT | O_EXCL, mode 0600
    if (fd < 0) throw Error("cannot create a temporary file in \"" + dir + "\": " + std::strerror(errno));
    const auto give_up = [&](const std::string& what) {
        const std::string reason = std::strerror(errno);
        close(fd);
        unlink(tmp.c_str());
        throw Error(what + " \"" + path + "\" failed: " + reason + "; it was left as it was");
    };
    for (size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            give_up("writing");
        }
        done += static_cast<size_t>(n);
    }
    if (fchmod(fd, mode) != 0 || fsync(fd) != 0) give_up("writing");
    if (close(fd) != 0) {
        unlink(tmp.c_str());
        throw Error("writing \"" + path + "\" failed: " + std::strerror(errno) + "; it was left as it was");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        unlink(tmp.c_str());
        throw Error("cannot replace \"" + path + "\": " + reason + "; it was left as it was");
    }
    // The rename itself survives a crash once the directory is synced.
    const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
}

}  // namespace attn::cli
