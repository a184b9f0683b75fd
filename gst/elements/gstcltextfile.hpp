/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The line-oriented text files the elements read (lens-shading grids,
 * `.cube` LUTs): a line's words before its `#` comment, numbers through
 * from_chars (an application's locale, a decimal comma, changes nothing),
 * and the error that names the file and line. */
#pragma once

#include <algorithm>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace gstcl {

/* A bad file: what() is "<name>:<line>: <message>" (line 0 for I/O errors). */
struct TextFileError : std::runtime_error {
  int line;
  TextFileError (const std::string & name, int line, const std::string & msg)
      : std::runtime_error (name + ":" + std::to_string (line) + ": " + msg), line (line) {}
};

/* The whitespace-separated words of a line before its comment. */
inline std::vector<std::string>
text_words (const std::string & line)
{
  std::vector<std::string> out;
  const size_t end = std::min (line.find ('#'), line.size ());
  size_t i = 0;
  while (i < end) {
    while (i < end && std::strchr (" \t\r\f\v", line[i]))
      i++;
    size_t j = i;
    while (j < end && !std::strchr (" \t\r\f\v", line[j]))
      j++;
    if (j > i)
      out.push_back (line.substr (i, j - i));
    i = j;
  }
  return out;
}

/* The whole word as a number, a leading '+' allowed: no error,
 * result_out_of_range, or invalid_argument (not a number, or more after
 * it). */
template <typename T>
std::errc
parse_number (const std::string & word, T & value)
{
  const char *first = word.data (), *last = first + word.size ();
  if (first != last && *first == '+')
    first++;
  auto [ptr, ec] = std::from_chars (first, last, value);
  return ec == std::errc () && ptr != last ? std::errc::invalid_argument : ec;
}

}  // namespace gstcl
