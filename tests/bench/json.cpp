/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "json.h"

#include <cmath>
#include <cstdio>

namespace bench {

Json &
Json::operator[] (const std::string &key)
{
  for (auto &m : members_)
    if (m.first == key)
      return m.second;
  members_.emplace_back (key, Json ());
  return members_.back ().second;
}

void
Json::push (Json value)
{
  items_.push_back (std::move (value));
}

static void
quote (std::string &out, const std::string &s)
{
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf (buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += (char) c;
        }
    }
  }
  out += '"';
}

void
Json::dump_to (std::string &out, int indent, int depth) const
{
  auto newline = [&] (int d) {
    if (indent > 0) {
      out += '\n';
      out.append ((size_t) (indent * d), ' ');
    }
  };
  switch (type_) {
    case NUL: out += "null"; break;
    case BOOL: out += bool_ ? "true" : "false"; break;
    case NUMBER: {
      if (!std::isfinite (number_)) {
        out += "null";
        break;
      }
      char buf[32];
      std::snprintf (buf, sizeof buf, "%.10g", number_);
      out += buf;
      break;
    }
    case STRING: quote (out, string_); break;
    case ARRAY:
      out += '[';
      for (size_t i = 0; i < items_.size (); i++) {
        if (i)
          out += ',';
        newline (depth + 1);
        items_[i].dump_to (out, indent, depth + 1);
      }
      if (!items_.empty ())
        newline (depth);
      out += ']';
      break;
    case OBJECT:
      out += '{';
      for (size_t i = 0; i < members_.size (); i++) {
        if (i)
          out += ',';
        newline (depth + 1);
        quote (out, members_[i].first);
        out += indent > 0 ? ": " : ":";
        members_[i].second.dump_to (out, indent, depth + 1);
      }
      if (!members_.empty ())
        newline (depth);
      out += '}';
      break;
  }
}

std::string
Json::dump (int indent) const
{
  std::string out;
  dump_to (out, indent, 0);
  return out;
}

}  // namespace bench
