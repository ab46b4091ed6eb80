#include "distbench/api/time_zone.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "civil_time.h"
#include "posix_tz_rule.h"

namespace distbench::api {

struct TimeZone::Data {
  struct Type {
    int64_t offset;  // seconds east of UTC
    bool dst;
  };
  std::string name;
  std::vector<int64_t> transitions;    // Unix seconds, ascending
  std::vector<std::size_t> typeIndex;  // the type in effect from each transition on
  std::vector<Type> types;
  std::optional<detail::PosixTzRule> footer;

  int64_t offsetAt(int64_t t) const {
    if (transitions.empty() || t >= transitions.back()) {
      if (footer) return footer->offsetAt(t);
      if (transitions.empty()) return types.front().offset;
    }
    // Before the first transition the first type applies (RFC 8536 3.2).
    if (t < transitions.front()) return types.front().offset;
    const auto after = std::upper_bound(transitions.begin(), transitions.end(), t);
    return types[typeIndex[static_cast<std::size_t>(after - transitions.begin()) - 1]].offset;
  }
};

namespace {

std::string zoneDirectory() {
  const char* dir = std::getenv("TZDIR");
  return dir && *dir ? dir : "/usr/share/zoneinfo";
}

// A zone name is a relative path of plain components inside the database,
// so spec.timeZone can never name a file elsewhere.
bool isZoneName(const std::string& name) {
  if (name.empty() || name.size() > 255 || name.front() == '/' || name.back() == '/') return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = name.find('/', start);
    const std::string part = name.substr(start, slash == std::string::npos ? slash : slash - start);
    if (part.empty() || part == "." || part == ".." || part.front() == '-') return false;
    for (char c : part) {
      const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '+' || c == '.';
      if (!ok) return false;
    }
    if (slash == std::string::npos) return true;
    start = slash + 1;
  }
}

class Bytes {
 public:
  explicit Bytes(const std::string& data) : data_(data) {}
  bool has(std::size_t n) const { return n <= data_.size() - at_; }
  void skip(std::size_t n) { at_ += n; }
  std::size_t position() const { return at_; }
  int64_t signedBigEndian(int width) {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) v = (v << 8) | static_cast<unsigned char>(data_[at_++]);
    if (width < 8 && (v >> (8 * width - 1)) != 0) v |= ~uint64_t{0} << (8 * width);
    return static_cast<int64_t>(v);
  }
  unsigned char byte() { return static_cast<unsigned char>(data_[at_++]); }

 private:
  const std::string& data_;
  std::size_t at_ = 0;
};

struct Header {
  char version;
  int64_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
};

std::optional<Header> readHeader(Bytes& in) {
  if (!in.has(44)) return std::nullopt;
  std::string magic;
  for (int i = 0; i < 4; ++i) magic += static_cast<char>(in.byte());
  if (magic != "TZif") return std::nullopt;
  Header h{};
  h.version = static_cast<char>(in.byte());
  in.skip(15);
  h.isutcnt = in.signedBigEndian(4);
  h.isstdcnt = in.signedBigEndian(4);
  h.leapcnt = in.signedBigEndian(4);
  h.timecnt = in.signedBigEndian(4);
  h.typecnt = in.signedBigEndian(4);
  h.charcnt = in.signedBigEndian(4);
  for (int64_t n : {h.isutcnt, h.isstdcnt, h.leapcnt, h.timecnt, h.typecnt, h.charcnt}) {
    if (n < 0 || n > (1 << 20)) return std::nullopt;
  }
  if (h.typecnt < 1) return std::nullopt;
  return h;
}

std::size_t blockSize(const Header& h, int timeWidth) {
  return static_cast<std::size_t>(h.timecnt * timeWidth + h.timecnt + h.typecnt * 6 + h.charcnt +
                                  h.leapcnt * (timeWidth + 4) + h.isstdcnt + h.isutcnt);
}

// Throws std::runtime_error with what is wrong with the file.
std::shared_ptr<TimeZone::Data> parseTzif(const std::string& name, const std::string& bytes) {
  auto bad = [](const std::string& why) { return std::runtime_error("not a TZif file: " + why); };
  Bytes in(bytes);
  std::optional<Header> header = readHeader(in);
  if (!header) throw bad("bad header");
  int width = 4;
  if (header->version >= '2') {
    // Skip the 32-bit block: the 64-bit one after it is complete.
    if (!in.has(blockSize(*header, 4))) throw bad("truncated");
    in.skip(blockSize(*header, 4));
    header = readHeader(in);
    if (!header) throw bad("bad second header");
    width = 8;
  }
  const Header& h = *header;
  if (!in.has(blockSize(h, width))) throw bad("truncated");
  auto data = std::make_shared<TimeZone::Data>();
  data->name = name;
  for (int64_t i = 0; i < h.timecnt; ++i) {
    data->transitions.push_back(in.signedBigEndian(width));
    if (i > 0 && data->transitions[i] <= data->transitions[i - 1]) throw bad("unsorted transitions");
  }
  for (int64_t i = 0; i < h.timecnt; ++i) {
    const std::size_t index = in.byte();
    if (index >= static_cast<std::size_t>(h.typecnt)) throw bad("bad type index");
    data->typeIndex.push_back(index);
  }
  for (int64_t i = 0; i < h.typecnt; ++i) {
    const int64_t offset = in.signedBigEndian(4);
    const bool dst = in.byte() != 0;
    in.skip(1);  // abbreviation index
    if (offset < -25 * 3600 || offset > 26 * 3600) throw bad("offset out of range");
    data->types.push_back({offset, dst});
  }
  in.skip(static_cast<std::size_t>(h.charcnt + h.leapcnt * (width + 4) + h.isstdcnt + h.isutcnt));
  if (width == 8) {
    // Footer: "\n<TZ string>\n"; an empty string means no rule.
    const std::size_t open = in.position();
    if (open < bytes.size() && bytes[open] == '\n') {
      const std::size_t close = bytes.find('\n', open + 1);
      if (close == std::string::npos) throw bad("unterminated footer");
      const std::string tz = bytes.substr(open + 1, close - open - 1);
      if (!tz.empty()) {
        data->footer = detail::PosixTzRule::parse(tz);
        if (!data->footer) throw bad("unsupported footer rule \"" + tz + "\"");
      }
    }
  }
  return data;
}

std::string readFile(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) throw std::runtime_error(std::strerror(errno));
  std::string text;
  char buffer[16384];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
    text.append(buffer, n);
    if (text.size() > (1 << 20)) throw std::runtime_error("larger than 1 MiB");
  }
  if (std::ferror(file.get())) throw std::runtime_error(std::strerror(errno));
  return text;
}

}  // namespace

TimeZone TimeZone::utc() {
  static const std::shared_ptr<const Data> kUtc = [] {
    auto data = std::make_shared<Data>();
    data->name = "UTC";
    data->types.push_back({0, false});
    return data;
  }();
  return TimeZone(kUtc);
}

TimeZone TimeZone::load(const std::string& name) {
  if (name == "UTC") return utc();
  if (!isZoneName(name)) {
    throw std::invalid_argument("unknown time zone \"" + name +
                                "\": not an IANA zone name such as Europe/Berlin");
  }
  const std::string path = zoneDirectory() + "/" + name;
  try {
    return TimeZone(parseTzif(name, readFile(path)));
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument("unknown time zone \"" + name + "\": " + path + ": " + e.what());
  }
}

const std::string& TimeZone::name() const { return data_->name; }

int64_t TimeZone::offsetAt(int64_t unixSeconds) const { return data_->offsetAt(unixSeconds); }

int64_t TimeZone::offsetAt(SystemTime instant) const { return offsetAt(toUnixSeconds(instant)); }

LocalSeconds TimeZone::toLocal(SystemTime instant) const {
  const int64_t t = toUnixSeconds(instant);
  return t + offsetAt(t);
}

std::vector<SystemTime> TimeZone::fromLocal(LocalSeconds local) const {
  // An instant U shows `local` when U + offsetAt(U) == local. Offsets are
  // within a day of zero, and real zones change them at most once in any
  // two days, so the offsets in effect a day either side are the only ones
  // that can solve it.
  std::vector<int64_t> offsets = {offsetAt(local - detail::kSecondsPerDay), offsetAt(local),
                                  offsetAt(local + detail::kSecondsPerDay)};
  for (std::size_t i = 0, n = offsets.size(); i < n; ++i) offsets.push_back(offsetAt(local - offsets[i]));
  std::vector<int64_t> solutions;
  for (int64_t offset : offsets) {
    if (offsetAt(local - offset) == offset) solutions.push_back(local - offset);
  }
  std::sort(solutions.begin(), solutions.end());
  solutions.erase(std::unique(solutions.begin(), solutions.end()), solutions.end());
  std::vector<SystemTime> instants;
  for (int64_t s : solutions) instants.push_back(fromUnixSeconds(s));
  return instants;
}

int64_t toUnixSeconds(SystemTime instant) {
  return std::chrono::floor<std::chrono::seconds>(instant.time_since_epoch()).count();
}

SystemTime fromUnixSeconds(int64_t seconds) {
  return SystemTime(std::chrono::duration_cast<SystemTime::duration>(std::chrono::seconds(seconds)));
}

}  // namespace distbench::api
