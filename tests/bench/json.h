/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A minimal JSON value for the benchmark's report: build a tree, dump it.
 * Non-finite numbers are written as null. */
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace bench {

class Json {
public:
  enum Type { NUL, BOOL, NUMBER, STRING, ARRAY, OBJECT };

  Json () = default;
  Json (bool b) : type_ (BOOL), bool_ (b) {}
  Json (double d) : type_ (NUMBER), number_ (d) {}
  Json (int i) : type_ (NUMBER), number_ (i) {}
  Json (unsigned i) : type_ (NUMBER), number_ (i) {}
  Json (long i) : type_ (NUMBER), number_ ((double) i) {}
  Json (unsigned long i) : type_ (NUMBER), number_ ((double) i) {}
  Json (long long i) : type_ (NUMBER), number_ ((double) i) {}
  Json (unsigned long long i) : type_ (NUMBER), number_ ((double) i) {}
  Json (const char *s) : type_ (s ? STRING : NUL), string_ (s ? s : "") {}
  Json (std::string s) : type_ (STRING), string_ (std::move (s)) {}

  static Json object () { Json j; j.type_ = OBJECT; return j; }
  static Json array () { Json j; j.type_ = ARRAY; return j; }

  Type type () const { return type_; }
  /* Object member, added (as null) when missing. */
  Json &operator[] (const std::string &key);
  /* Appends to an array. */
  void push (Json value);

  std::string dump (int indent = 0) const;

private:
  void dump_to (std::string &out, int indent, int depth) const;

  Type type_ = NUL;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<std::pair<std::string, Json>> members_;  /* objects, in insertion order */
  std::vector<Json> items_;                             /* arrays */
};

}  // namespace bench
