#include "files.hpp"

#include "attn/error.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace attn::cli {

namespace {
// The process's umask (reading it means setting it; set back at once).
mode_t current_umask() {
    const mode_t mask = umask(0);
    umask(mask);
    return mask;
}

const char* kind_of(mode_t mode) {
    return S_ISREG(mode) ? "a regular file" : S_ISLNK(mode) ? "a symbolic link" : S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO"
         : S_ISCHR(mode) || S_ISBLK(mode) ? "a device" : S_ISSOCK(mode) ? "a socket" : "something else";
}

// The signals that end a process politely (Ctrl-C, kill, a closed terminal) held back while it lives: one that
// arrives while a file is written is delivered when the write has finished or been undone, so no temporary file
// is left behind by any exit the process can see coming.
class StopSignalsHeld {
public:
    StopSignalsHeld() {
        sigset_t stop;
        sigemptyset(&stop);
        for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stop, s);
        pthread_sigmask(SIG_BLOCK, &stop, &old_);
    }
    ~StopSignalsHeld() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
    StopSignalsHeld(const StopSignalsHeld&) = delete;
    StopSignalsHeld& operator=(const StopSignalsHeld&) = delete;

private:
    sigset_t old_;
};

std::string directory_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}
}  // namespace

std::string read_file(const std::string& path, uint64_t max_bytes, const char* flag) {
    // Opened without blocking, then looked at: a FIFO given as --data once hung the command for a writer.
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw Error(std::string(flag) + ": cannot open \"" + path + "\": " + std::strerror(errno));
    struct stat info {};
    const auto fail = [&](const std::string& what) {
        close(fd);
        throw Error(std::string(flag) + ": \"" + path + "\" " + what);
    };
    if (fstat(fd, &info) != 0) fail(std::string("cannot be read: ") + std::strerror(errno));
    if (!S_ISREG(info.st_mode)) fail(std::string("is ") + kind_of(info.st_mode) + ", expected a regular file");
    // Refused by its size before it is read: 300 MB of --data was read in full (20 s) before being refused.
    if (static_cast<uint64_t>(info.st_size) > max_bytes) {
        fail("is " + std::to_string(info.st_size) + " bytes, more than the " + std::to_string(max_bytes) + " it may hold");
    }
    std::string bytes(static_cast<size_t>(info.st_size), '\0');
    for (size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail(std::string("cannot be read: ") + std::strerror(errno));
        if (n == 0) fail("became shorter while it was read");
        done += static_cast<size_t>(n);
    }
    close(fd);
    return bytes;
}

void check_writable(const std::string& path, const char* flag) {
    struct stat target {};
    if (lstat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
        throw Error(std::string(flag) + ": refusing to write \"" + path + "\": it is " + kind_of(target.st_mode) +
                    ", and only a regular file is replaced");
    }
    const std::string dir = directory_of(path);
    struct stat d {};
    if (stat(dir.c_str(), &d) != 0) throw Error(std::string(flag) + ": cannot write \"" + path + "\": its directory \"" + dir + "\": " + std::strerror(errno));
    if (!S_ISDIR(d.st_mode)) throw Error(std::string(flag) + ": cannot write \"" + path + "\": \"" + dir + "\" is " + kind_of(d.st_mode) + ", not a directory");
    if (access(dir.c_str(), W_OK | X_OK) != 0) throw Error(std::string(flag) + ": cannot write \"" + path + "\": " + std::strerror(errno) + " in \"" + dir + "\"");
}

void check_directory(const std::string& dir, const char* flag) {
    struct stat d {};
    if (stat(dir.c_str(), &d) != 0) throw Error(std::string(flag) + ": \"" + dir + "\": " + std::strerror(errno));
    if (!S_ISDIR(d.st_mode)) throw Error(std::string(flag) + ": \"" + dir + "\" is " + kind_of(d.st_mode) + ", expected a directory");
    if (access(dir.c_str(), W_OK | X_OK) != 0) throw Error(std::string(flag) + ": cannot write in \"" + dir + "\": " + std::strerror(errno));
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat x {}, y {};
    return stat(a.c_str(), &x) == 0 && stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
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
            throw Error("refusing to write \"" + path + "\": it is " + kind_of(target.st_mode) + ", and only a regular file is replaced");
        }
        // The permission bits, not setuid/setgid: the new file belongs to whoever writes it, and a set-user-ID bit
        // copied onto it (4755) would run it as them.
        mode = target.st_mode & 0777;
    } else if (errno != ENOENT) {
        throw Error("cannot write \"" + path + "\": " + std::strerror(errno));
    }
    const std::string dir = directory_of(path);
    const size_t slash = path.rfind('/');
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    std::string tmp = dir + "/." + base + ".XXXXXX";
    const StopSignalsHeld held;
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
