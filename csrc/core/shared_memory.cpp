#include "core/shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/storage.h"

namespace gradtrack {

// NOTE [Shared memory]
// share_memory_() moves a storage's bytes into a MAP_SHARED mapping of a file
// in memory, as torch's CPU storages do. The Storage object stays the same and
// only its data pointer changes, so every tensor and view over it keeps its
// geometry and version counter. Two ways, torch's two sharing strategies:
//  * by descriptor (file_descriptor): an anonymous memfd. multiprocessing hands
//    the descriptor to the other process over a Unix socket; the kernel frees
//    the memory with the last descriptor and mapping, so nothing can leak.
//  * by name (file_system): a file /dev/shm/gradtrack_<pid>_<n>_<r>. The block's
//    header counts the processes that map it and the last one out unlinks the
//    file. Sending counts the receiver in advance, as it may open the file after
//    the sender's storage is gone. A child made by fork inherits the mapping but
//    is not counted (it may leave by _exit, running no destructor). A process
//    also counts itself out of the blocks it still maps when it exits
//    (release_shared_names, from Python's atexit and multiprocessing's exit
//    finalizers): storages that outlive the interpreter would never do it.
// The memory the storage had before is freed at once, unless something may
// alias it (a numpy array: the storage has a silent-write ledger), then it is
// kept until the storage dies. A registry maps each block to its storage in
// this process, so a block received twice (two views of one storage sent
// apart) is one storage again, as torch's shared cache makes it.
namespace {

struct Entry {
  std::weak_ptr<Storage> storage;
  SharedBlock* block;  // valid while `storage` can be locked
};

struct Registry {
  std::mutex mu;
  std::unordered_map<std::string, Entry> blocks;
};

Registry& registry() {
  static auto* r = new Registry();  // leaked: storages may die at interpreter exit
  return *r;
}

std::string fd_key(int fd) {
  struct stat st{};
  if (fstat(fd, &st) != 0)
    throw Error(str_cat("fstat of a shared-memory descriptor failed: ", std::strerror(errno), " (",
                        errno, ")"));
  return str_cat("fd:", st.st_dev, ":", st.st_ino);
}

std::string shm_path(const std::string& name) { return "/dev/shm/" + name; }

[[noreturn]] void open_failed(const std::string& name, int err) {
  throw Error(str_cat("unable to open shared memory object <", name,
                      "> in read-write mode: ", std::strerror(err), " (", err, ")"));
}

// A new file for a block, opened read-write: a memfd, or a fresh /dev/shm name.
int create_file(bool by_name, std::string* name) {
  if (!by_name) {
    int fd = memfd_create("gradtrack", MFD_CLOEXEC);
    if (fd >= 0) return fd;
  }
  static std::atomic<uint64_t> counter{0};
  std::random_device device;
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string candidate =
        str_cat("gradtrack_", getpid(), "_", counter.fetch_add(1), "_", device() % 1000000000u);
    int fd = open(shm_path(candidate).c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      if (by_name) {
        *name = candidate;
      } else {
        unlink(shm_path(candidate).c_str());  // no memfd: an unlinked file does the same
      }
      return fd;
    }
    if (errno != EEXIST) open_failed("/" + candidate, errno);
  }
  open_failed("/gradtrack_*", EEXIST);
}

void* map_file(int fd, size_t map_bytes, const std::string& label) {
  void* base = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    throw Error(str_cat("unable to mmap ", map_bytes, " bytes from shared memory object <", label,
                        ">: ", std::strerror(errno), " (", errno, ")"));
  }
  return base;
}

void remember(const std::string& key, const std::shared_ptr<Storage>& storage, SharedBlock* block) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.blocks[key] = Entry{storage, block};
}

}  // namespace

SharedBlock::~SharedBlock() {
  if (!key.empty()) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.blocks.find(key);
    if (it != r.blocks.end() && it->second.storage.expired()) r.blocks.erase(it);
  }
  if (base != nullptr) {
    if (!name.empty() && owner == getpid() && refs()->fetch_sub(1) == 1) {
      unlink(shm_path(name).c_str());
    }
    munmap(base, map_bytes);
  }
  if (fd >= 0) close(fd);
  if (retired) retired();
}

int Storage::shared_fd() const { return shared_ ? shared_->fd : -1; }

std::string Storage::shared_name() const { return shared_ ? shared_->name : std::string(); }

void Storage::add_shared_reference() {
  if (shared_ && !shared_->name.empty()) shared_->refs()->fetch_add(1);
}

void share_storage(const std::shared_ptr<Storage>& storage, bool by_name) {
  if (storage->shared_) return;
  auto block = std::make_unique<SharedBlock>();
  const size_t nbytes = storage->nbytes_;
  block->map_bytes = kSharedHeader + nbytes;
  block->owner = getpid();
  block->fd = create_file(by_name, &block->name);
  const std::string label = block->name.empty() ? "memfd" : "/" + block->name;
  if (ftruncate(block->fd, static_cast<off_t>(block->map_bytes)) != 0) {
    const int err = errno;
    if (!block->name.empty()) unlink(shm_path(block->name).c_str());
    block->name.clear();
    throw Error(str_cat("unable to resize shared memory object <", label, "> to ", block->map_bytes,
                        " bytes: ", std::strerror(err), " (", err, ")"));
  }
  try {
    block->base = map_file(block->fd, block->map_bytes, label);
  } catch (...) {
    if (!block->name.empty()) unlink(shm_path(block->name).c_str());
    block->name.clear();
    throw;
  }
  new (block->base) std::atomic<int64_t>(1);
  char* data = static_cast<char*>(block->base) + kSharedHeader;
  if (nbytes > 0) std::memcpy(data, storage->data_, nbytes);
  if (!block->name.empty()) {
    close(block->fd);
    block->fd = -1;
    block->key = "name:" + block->name;
  } else {
    block->key = fd_key(block->fd);
  }
  std::function<void()> previous = storage->detach_memory();
  if (storage->ledger() != nullptr) {
    block->retired = std::move(previous);
  } else if (previous) {
    previous();
  }
  storage->data_ = data;
  const std::string key = block->key;
  SharedBlock* raw = block.get();
  storage->shared_ = std::move(block);
  remember(key, storage, raw);
}

std::shared_ptr<Storage> open_shared_storage(int fd, const std::string& name, size_t nbytes) {
  const bool by_name = fd < 0;
  const std::string key = by_name ? "name:" + name : fd_key(fd);
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.blocks.find(key);
    if (it != r.blocks.end()) {
      if (auto known = it->second.storage.lock()) {
        // Already mapped here: the reference counted for this receiver is not needed.
        if (by_name) known->shared_->refs()->fetch_sub(1);
        return known;
      }
    }
  }
  auto block = std::make_unique<SharedBlock>();
  block->map_bytes = kSharedHeader + nbytes;
  block->owner = getpid();
  block->key = key;
  const std::string label = by_name ? "/" + name : "memfd";
  int own =
      by_name ? open(shm_path(name).c_str(), O_RDWR | O_CLOEXEC) : fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (own < 0) open_failed(label, errno);
  block->fd = own;
  struct stat st{};
  if (fstat(own, &st) != 0 || static_cast<size_t>(st.st_size) < block->map_bytes) {
    throw Error(str_cat("shared memory object <", label, "> holds ", st.st_size,
                        " bytes, fewer than the ", block->map_bytes, " expected"));
  }
  block->base = map_file(own, block->map_bytes, label);
  if (by_name) {
    block->name = name;  // the sender counted this process in already
    close(own);
    block->fd = -1;
  }
  char* data = static_cast<char*>(block->base) + kSharedHeader;
  auto storage = std::make_shared<Storage>(data, nbytes, 0, [] {});
  SharedBlock* raw = block.get();
  storage->shared_ = std::move(block);
  remember(key, storage, raw);
  return storage;
}

void release_shared_names() {
  std::vector<std::pair<std::shared_ptr<Storage>, SharedBlock*>> alive;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    for (auto& kv : r.blocks)
      if (auto s = kv.second.storage.lock()) alive.emplace_back(std::move(s), kv.second.block);
  }
  const int self = getpid();
  for (auto& [storage, block] : alive) {
    if (block->name.empty() || block->owner != self) continue;
    block->owner = 0;  // counted out: the storage's end will not count out again
    if (block->refs()->fetch_sub(1) == 1) unlink(shm_path(block->name).c_str());
  }
}

}  // namespace gradtrack
