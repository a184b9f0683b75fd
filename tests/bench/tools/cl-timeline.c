/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cl-timeline: a device timeline of any OpenCL program, by LD_PRELOAD
 * (docs/benchmarks.md, "How to run"). Every command queue is made with
 * profiling on; the commands enqueued from the CLTL_SKIP'th (default 0),
 * CLTL_COUNT of them (default 3000), keep their events, and the host's
 * waits (clFinish, clWaitForEvents, blocking reads, writes and maps) their
 * wall times. At exit the events' QUEUED / SUBMIT / START / END times go to
 * CLTL_OUT (default cl-timeline.csv; a "%p" in it: the process id, and no
 * file for a process without commands), one line a command:
 *
 *   kind,queue,label,bytes,host_ns,call_ns,queued,submit,start,end
 *
 * kind `cmd` (a command: its queue's number, a kernel's name or the
 * command's, the bytes it moves) or `wait` (a host wait or clFlush: host_ns
 * its start on CLOCK_MONOTONIC, `end` - `start` its length in the same
 * clock, the device columns 0). `host_ns` of a command is when it was
 * enqueued on CLOCK_MONOTONIC, `call_ns` the time the enqueue call took; the device times are the implementation's own clock
 * (cl-timeline.py lines both up by the commands' QUEUED times). Not built
 * by meson:
 *
 *   gcc -O2 -shared -fPIC tests/bench/tools/cl-timeline.c -o cl-timeline.so -ldl
 *   CLTL_SKIP=2000 CLTL_OUT=t.csv LD_PRELOAD=$PWD/cl-timeline.so gst-opencl-bench ...
 *   python3 tests/bench/tools/cl-timeline.py t.csv
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  int wait;                     /* a host wait, not a command */
  int queue;
  char label[48];
  size_t bytes;
  unsigned long long host_ns, host_end;   /* a command: its enqueue call */
  cl_event event;
} Record;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Record *records;
static long n_records, skip = -1, count, seen;
static cl_command_queue queues[64];
static int n_queues;

static unsigned long long
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (unsigned long long) ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void *
real (const char *name)
{
  void *f = dlsym (RTLD_NEXT, name);
  if (!f) {
    fprintf (stderr, "cl-timeline: no %s\n", name);
    abort ();
  }
  return f;
}

static void
setup_locked (void)
{
  if (skip >= 0)
    return;
  skip = getenv ("CLTL_SKIP") ? atol (getenv ("CLTL_SKIP")) : 0;
  count = getenv ("CLTL_COUNT") ? atol (getenv ("CLTL_COUNT")) : 3000;
  records = calloc (count > 0 ? count : 1, sizeof (Record));
}

static int
queue_number (cl_command_queue q)
{
  for (int i = 0; i < n_queues; i++)
    if (queues[i] == q)
      return i;
  if (n_queues < 64)
    queues[n_queues++] = q;
  return n_queues - 1;
}

/* The slot for the next command or wait, or NULL outside the window. */
static Record *
take_slot (void)
{
  setup_locked ();
  long i = seen++ - skip;
  if (i < 0 || i >= count)
    return NULL;
  n_records = i + 1;
  return &records[i];
}

/* Keeps `*event` (the caller's, retained; or ours, owned) for a command. */
static void
keep_command (cl_command_queue q, const char *label, size_t bytes, unsigned long long t,
    cl_event *event, cl_event own, cl_int err)
{
  unsigned long long t1 = now_ns ();
  pthread_mutex_lock (&lock);
  Record *r = err == CL_SUCCESS ? take_slot () : NULL;
  if (r) {
    r->queue = queue_number (q);
    snprintf (r->label, sizeof r->label, "%s", label);
    r->bytes = bytes;
    r->host_ns = t;
    r->host_end = t1;
    r->event = event ? *event : own;
    if (event)
      clRetainEvent (*event);
    own = NULL;
  }
  pthread_mutex_unlock (&lock);
  if (own && err == CL_SUCCESS)
    clReleaseEvent (own);
}

static void
keep_wait (const char *label, unsigned long long t0)
{
  unsigned long long t1 = now_ns ();
  pthread_mutex_lock (&lock);
  Record *r = take_slot ();
  if (r) {
    r->wait = 1;
    snprintf (r->label, sizeof r->label, "%s", label);
    r->host_ns = t0;
    r->host_end = t1;
  }
  pthread_mutex_unlock (&lock);
}

/* A kernel's name, looked up once (the driver's string query is slow). */
static const char *
kernel_name (cl_kernel k)
{
  static struct { cl_kernel k; char name[48]; } cache[256];
  static int n;
  static pthread_mutex_t names = PTHREAD_MUTEX_INITIALIZER;
  const char *found = NULL;
  pthread_mutex_lock (&names);
  for (int i = 0; i < n && !found; i++)
    if (cache[i].k == k)
      found = cache[i].name;
  if (!found) {
    int i = n < 256 ? n++ : 255;
    cache[i].k = k;
    snprintf (cache[i].name, sizeof cache[i].name, "kernel");
    clGetKernelInfo (k, CL_KERNEL_FUNCTION_NAME, sizeof cache[i].name, cache[i].name, NULL);
    cache[i].name[sizeof cache[i].name - 1] = 0;
    found = cache[i].name;
  }
  pthread_mutex_unlock (&names);
  return found;
}

/* clFlush and clFinish: host waits (their wall time). */
#define QUEUE_CALL(NAME, LABEL)                                              \
  cl_int NAME (cl_command_queue q)                                           \
  {                                                                          \
    static cl_int (*f) (cl_command_queue);                                   \
    if (!f)                                                                  \
      f = real (#NAME);                                                      \
    unsigned long long t = now_ns ();                                        \
    cl_int err = f (q);                                                      \
    keep_wait (LABEL, t);                                                    \
    return err;                                                              \
  }

QUEUE_CALL (clFlush, "flush")
QUEUE_CALL (clFinish, "finish")

cl_command_queue
clCreateCommandQueue (cl_context c, cl_device_id d, cl_command_queue_properties p, cl_int *e)
{
  static cl_command_queue (*f) (cl_context, cl_device_id, cl_command_queue_properties, cl_int *);
  if (!f)
    f = real ("clCreateCommandQueue");
  return f (c, d, p | CL_QUEUE_PROFILING_ENABLE, e);
}

cl_command_queue
clCreateCommandQueueWithProperties (cl_context c, cl_device_id d,
    const cl_queue_properties *props, cl_int *e)
{
  static cl_command_queue (*f) (cl_context, cl_device_id, const cl_queue_properties *, cl_int *);
  if (!f)
    f = real ("clCreateCommandQueueWithProperties");
  cl_queue_properties p[32];
  int n = 0, found = 0;
  for (; props && props[0] && n < 28; props += 2) {
    p[n++] = props[0];
    p[n++] = props[0] == CL_QUEUE_PROPERTIES ? (props[1] | CL_QUEUE_PROFILING_ENABLE) : props[1];
    found |= props[0] == CL_QUEUE_PROPERTIES;
  }
  if (!found) {
    p[n++] = CL_QUEUE_PROPERTIES;
    p[n++] = CL_QUEUE_PROFILING_ENABLE;
  }
  p[n] = 0;
  return f (c, d, p, e);
}

cl_int
clEnqueueNDRangeKernel (cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
    const size_t *gws, const size_t *lws, cl_uint nw, const cl_event *wl, cl_event *ev)
{
  static cl_int (*f) (cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
      const size_t *, cl_uint, const cl_event *, cl_event *);
  if (!f)
    f = real ("clEnqueueNDRangeKernel");
  cl_event own = NULL;
  unsigned long long t = now_ns ();
  cl_int err = f (q, k, dim, off, gws, lws, nw, wl, ev ? ev : &own);
  keep_command (q, kernel_name (k), 0, t, ev, own, err);
  return err;
}

#define BUFFER_CALL(NAME, LABEL, BLOCKING, BYTES, PARAMS, ARGS)               \
  cl_int NAME PARAMS                                                         \
  {                                                                          \
    static cl_int (*f) PARAMS;                                               \
    if (!f)                                                                  \
      f = real (#NAME);                                                      \
    cl_event own = NULL;                                                     \
    unsigned long long t = now_ns ();                                        \
    cl_int err = f ARGS;                                                     \
    keep_command (q, LABEL, BYTES, t, ev, own, err);                         \
    if (BLOCKING)                                                            \
      keep_wait ("blocking " LABEL, t);                                      \
    return err;                                                              \
  }

BUFFER_CALL (clEnqueueWriteBuffer, "write", b, n,
    (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t n, const void *p, cl_uint nw,
        const cl_event *wl, cl_event *ev),
    (q, m, b, o, n, p, nw, wl, ev ? ev : &own))
BUFFER_CALL (clEnqueueReadBuffer, "read", b, n,
    (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t n, void *p, cl_uint nw,
        const cl_event *wl, cl_event *ev),
    (q, m, b, o, n, p, nw, wl, ev ? ev : &own))
BUFFER_CALL (clEnqueueWriteBufferRect, "write rect", b, r[0] * r[1] * r[2],
    (cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho,
        const size_t *r, size_t brp, size_t bsp, size_t hrp, size_t hsp, const void *p,
        cl_uint nw, const cl_event *wl, cl_event *ev),
    (q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, nw, wl, ev ? ev : &own))
BUFFER_CALL (clEnqueueReadBufferRect, "read rect", b, r[0] * r[1] * r[2],
    (cl_command_queue q, cl_mem m, cl_bool b, const size_t *bo, const size_t *ho,
        const size_t *r, size_t brp, size_t bsp, size_t hrp, size_t hsp, void *p,
        cl_uint nw, const cl_event *wl, cl_event *ev),
    (q, m, b, bo, ho, r, brp, bsp, hrp, hsp, p, nw, wl, ev ? ev : &own))
BUFFER_CALL (clEnqueueCopyBuffer, "copy", 0, n,
    (cl_command_queue q, cl_mem s, cl_mem d, size_t so, size_t dof, size_t n, cl_uint nw,
        const cl_event *wl, cl_event *ev),
    (q, s, d, so, dof, n, nw, wl, ev ? ev : &own))
BUFFER_CALL (clEnqueueFillBuffer, "fill", 0, n,
    (cl_command_queue q, cl_mem m, const void *pat, size_t ps, size_t o, size_t n, cl_uint nw,
        const cl_event *wl, cl_event *ev),
    (q, m, pat, ps, o, n, nw, wl, ev ? ev : &own))
BUFFER_CALL (clEnqueueUnmapMemObject, "unmap", 0, 0,
    (cl_command_queue q, cl_mem m, void *p, cl_uint nw, const cl_event *wl, cl_event *ev),
    (q, m, p, nw, wl, ev ? ev : &own))
BUFFER_CALL (clEnqueueMarkerWithWaitList, "marker", 0, 0,
    (cl_command_queue q, cl_uint nw, const cl_event *wl, cl_event *ev),
    (q, nw, wl, ev ? ev : &own))
BUFFER_CALL (clEnqueueBarrierWithWaitList, "barrier", 0, 0,
    (cl_command_queue q, cl_uint nw, const cl_event *wl, cl_event *ev),
    (q, nw, wl, ev ? ev : &own))

void *
clEnqueueMapBuffer (cl_command_queue q, cl_mem m, cl_bool b, cl_map_flags fl, size_t o,
    size_t n, cl_uint nw, const cl_event *wl, cl_event *ev, cl_int *e)
{
  static void *(*f) (cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint,
      const cl_event *, cl_event *, cl_int *);
  if (!f)
    f = real ("clEnqueueMapBuffer");
  cl_event own = NULL;
  cl_int err = CL_SUCCESS;
  unsigned long long t = now_ns ();
  void *p = f (q, m, b, fl, o, n, nw, wl, ev ? ev : &own, &err);
  if (e)
    *e = err;
  keep_command (q, "map", n, t, ev, own, err);
  if (b)
    keep_wait ("blocking map", t);
  return p;
}


cl_int
clWaitForEvents (cl_uint n, const cl_event *l)
{
  static cl_int (*f) (cl_uint, const cl_event *);
  if (!f)
    f = real ("clWaitForEvents");
  unsigned long long t = now_ns ();
  cl_int err = f (n, l);
  keep_wait ("wait events", t);
  return err;
}

__attribute__ ((destructor)) static void
write_out (void)
{
  const char *path = getenv ("CLTL_OUT") ? getenv ("CLTL_OUT") : "cl-timeline.csv";
  /* "%p" in the name: the process id (a test's forked children, a plugin
   * scanner: each its own file) */
  char name[4096];
  const char *p = strstr (path, "%p");
  if (p)
    snprintf (name, sizeof name, "%.*s%ld%s", (int) (p - path), path, (long) getpid (), p + 2);
  else
    snprintf (name, sizeof name, "%s", path);
  if (n_records == 0 && p)
    return;   /* no commands: no file */
  FILE *out = fopen (name, "w");
  if (!out)
    return;
  fprintf (out, "kind,queue,label,bytes,host_ns,call_ns,queued,submit,start,end\n");
  for (long i = 0; i < n_records; i++) {
    Record *r = &records[i];
    if (r->wait) {
      fprintf (out, "wait,-1,%s,0,%llu,%llu,0,0,%llu,%llu\n", r->label, r->host_ns,
          r->host_end - r->host_ns, r->host_ns, r->host_end);
      continue;
    }
    cl_ulong t[4] = { 0, 0, 0, 0 };
    cl_int status = -1;
    clGetEventInfo (r->event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    if (status == CL_COMPLETE) {
      clGetEventProfilingInfo (r->event, CL_PROFILING_COMMAND_QUEUED, 8, &t[0], NULL);
      clGetEventProfilingInfo (r->event, CL_PROFILING_COMMAND_SUBMIT, 8, &t[1], NULL);
      clGetEventProfilingInfo (r->event, CL_PROFILING_COMMAND_START, 8, &t[2], NULL);
      clGetEventProfilingInfo (r->event, CL_PROFILING_COMMAND_END, 8, &t[3], NULL);
    }
    fprintf (out, "cmd,%d,%s,%zu,%llu,%llu,%llu,%llu,%llu,%llu\n", r->queue, r->label, r->bytes,
        r->host_ns, r->host_end - r->host_ns, (unsigned long long) t[0], (unsigned long long) t[1],
        (unsigned long long) t[2], (unsigned long long) t[3]);
  }
  fclose (out);
}
