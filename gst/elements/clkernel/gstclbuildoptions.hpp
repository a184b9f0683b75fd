/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The build options clkernel passes to the OpenCL compiler. Drivers parse
 * them with little care: PoCL dies (SIGSEGV) on a -D or -I without its
 * argument. So only options of the OpenCL C 1.2 compiler, each well formed,
 * reach the driver. */
#pragma once

#include <string>

namespace clbuildoptions {

/* "" when every option of `options` (separated by white space) is one of
 *   -D name, -Dname, -D name=value, -Dname=value   (name a C identifier;
 *                          value without quotes, backslashes or controls)
 *   -I dir, -Idir          (dir not starting with '-')
 *   -w, -Werror, and the -cl-* options of OpenCL C 1.2 (-cl-fast-relaxed-math,
 *   -cl-mad-enable, ...; not -cl-std, which clkernel sets itself),
 * else why not, naming the first bad option. */
std::string check (const std::string & options);

}  // namespace clbuildoptions
