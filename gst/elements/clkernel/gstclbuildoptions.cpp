/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "gstclbuildoptions.hpp"

#include <cctype>
#include <cstdio>
#include <vector>

namespace clbuildoptions {

/* The OpenCL C 1.2 compiler options without an argument (the spec's 5.6.4),
 * and -cl-uniform-work-group-size, which 2.0 drivers take. */
static const char *const kFlags[] = {
  "-w", "-Werror",
  "-cl-single-precision-constant", "-cl-denorms-are-zero", "-cl-opt-disable",
  "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations",
  "-cl-finite-math-only", "-cl-fast-relaxed-math", "-cl-kernel-arg-info",
  "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-uniform-work-group-size",
};

static bool
is_identifier (const std::string & s)
{
  if (s.empty () || !(std::isalpha ((unsigned char) s[0]) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum ((unsigned char) c) || c == '_'))
      return false;
  return true;
}

/* Printable ASCII that needs no quoting: no quotes, no backslash. */
static bool
is_plain_value (const std::string & s)
{
  for (char c : s)
    if (c <= ' ' || c > '~' || c == '"' || c == '\'' || c == '\\')
      return false;
  return true;
}

static std::string
quoted (const std::string & s)
{
  std::string out = "\"";
  for (char c : s)
    if ((unsigned char) c < ' ' || c == 0x7f) {
      char buf[8];
      snprintf (buf, sizeof (buf), "\\x%02x", (unsigned char) c);
      out += buf;
    } else {
      out += c;
    }
  return out + "\"";
}

/* "" when `def` (what follows -D) is name or name=value. */
static std::string
check_define (const std::string & def)
{
  const size_t eq = def.find ('=');
  const std::string name = def.substr (0, eq);
  if (!is_identifier (name))
    return "-D needs a macro name (a C identifier), then optionally =value; got " +
        quoted (def);
  if (eq != std::string::npos && !is_plain_value (def.substr (eq + 1)))
    return "the value of -D " + name + " has quotes, backslashes or control "
        "characters: " + quoted (def);
  return "";
}

std::string
check (const std::string & options)
{
  std::vector<std::string> words;
  {
    std::string word;
    for (char c : options) {
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
        if (!word.empty ())
          words.push_back (word);
        word.clear ();
      } else {
        word += c;
      }
    }
    if (!word.empty ())
      words.push_back (word);
  }
  for (size_t i = 0; i < words.size (); i++) {
    const std::string &w = words[i];
    if (w == "-D" || w == "-I") {
      if (i + 1 == words.size () || words[i + 1][0] == '-')
        return "option " + w + " needs an argument (" + (w == "-D" ?
            "-D NAME or -D NAME=VALUE" : "-I DIRECTORY") + ")";
      const std::string &arg = words[++i];
      if (w == "-D") {
        std::string why = check_define (arg);
        if (!why.empty ())
          return why;
      } else if (!is_plain_value (arg)) {
        return "the directory of -I has quotes, backslashes or control characters: " +
            quoted (arg);
      }
    } else if (w.compare (0, 2, "-D") == 0) {
      std::string why = check_define (w.substr (2));
      if (!why.empty ())
        return why;
    } else if (w.compare (0, 2, "-I") == 0) {
      if (w[2] == '-' || !is_plain_value (w.substr (2)))
        return "option -I needs a directory: " + quoted (w);
    } else if (w.compare (0, 8, "-cl-std=") == 0 || w == "-cl-std") {
      return "option " + quoted (w) + " is not taken: clkernel builds OpenCL C 1.2 "
          "and sets -cl-std=CL1.2 itself";
    } else {
      bool known = false;
      for (const char *flag : kFlags)
        known = known || w == flag;
      if (!known)
        return "unknown option " + quoted (w) + ": clkernel passes -D, -I, -w, "
            "-Werror and the -cl-* options of OpenCL C 1.2 (such as "
            "-cl-fast-relaxed-math) to the compiler";
    }
  }
  return "";
}

}  // namespace clbuildoptions
