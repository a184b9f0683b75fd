/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The watchdog of device work: bounded waits, the launches' record and the
 * kept (abandoned or busy) queues. gstclwatchdog.hpp says what it does,
 * docs/reliability.md ("Runaway kernels") what it can and cannot do. */
#include "gstclwatchdog-private.hpp"
#include "gstclbasetransform.h"
#include "gstclmemory.h"
#include "gstcl.hpp"
#include "gstcl-debug.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <list>
#include <map>
#include <mutex>
#include <thread>
#include <pthread.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define GST_CAT_DEFAULT gst_cl_runtime_debug

namespace gstcl {

DeviceTimeout::DeviceTimeout (const std::string &message)
    : cl::Error (CL_OUT_OF_RESOURCES, nullptr),
      message_ (std::make_shared<const std::string> (message))
{
}

const char *
DeviceTimeout::what () const noexcept
{
  return message_->c_str ();
}

WaitCancelled::WaitCancelled ()
    : cl::Error (CL_INVALID_OPERATION, "a wait for the device (ended by a flush or a stop)")
{
}

guint
default_kernel_timeout ()
{
  static const guint ms = [] {
    const gchar *env = g_getenv ("GST_OPENCL_KERNEL_TIMEOUT");
    gchar *end = nullptr;
    const guint64 v = env ? g_ascii_strtoull (env, &end, 10) : 0;
    return env && end != env && *end == '\0' && v <= G_MAXUINT ? (guint) v :
        (guint) GST_CL_DEFAULT_KERNEL_TIMEOUT;
  } ();
  return ms;
}

namespace watchdog {

/* Launches in flight on one queue past which a launch waits for the oldest:
 * a pipeline that never waits for the device (OpenCL memory into a sink
 * that does not map it) would otherwise queue work without bound. */
constexpr size_t kMaxInFlight = 256;
/* How long a context being freed waits for its queue's work before the
 * queue is kept instead (state changes must return in a bounded time). */
constexpr gint64 kGraceUs = 250 * 1000;
/* PoCL compiles a kernel for its work-group size when its first launch
 * starts (a second or more for a large kernel on a busy CPU); its event
 * says CL_SUBMITTED meanwhile and CL_RUNNING from when the kernel runs, so
 * on PoCL a launch's time counts from when it is seen running, and one not
 * seen running (compiling, or waiting for a worker thread) is given this
 * much more. Other drivers compile in the build. */
constexpr gint64 kCompileUs = 60 * G_USEC_PER_SEC;

struct Launch {
  cl::Event done;
  cl::Kernel kernel;
  const char *suffix;   /* enqueue_2d's profile_suffix, or nullptr */
  std::string element;  /* the launching element's name, or empty */
  gint64 timeout_us;    /* 0: none */
  std::shared_ptr<Owner> owner;  /* the launching element, or null */
};

struct QueueWatch {
  cl::CommandQueue queue;
  std::string device;
  std::mutex lock;              /* everything below */
  std::deque<Launch> launches;  /* oldest first; completed ones leave the front */
  gint64 head_since = 0;        /* when launches.front () became the oldest, or the
                                 * last launch was seen complete (empty) */
  gint64 head_running = 0;      /* when the front was first seen CL_RUNNING, or 0 */
  bool compiles_at_launch = false;  /* PoCL: see kCompileUs */
  bool on_host_cores = false;   /* a CPU device: see Wakeup */
  std::atomic<bool> abandoned {false};
  std::string why;              /* set once, when abandoned */
  /* (declared before `kept`: destroyed after the buffers) */
  std::vector<std::shared_ptr<void>> kept_owners;  /* foreign buffers' owners */
  std::vector<cl::Memory> kept; /* buffers freed after that */
};

Owner::Owner (GstElement *e)
{
  g_weak_ref_init (&element, e);
}

Owner::~Owner ()
{
  g_weak_ref_clear (&element);
}

/* ---- pacing ---- */

/* Sleeps of this thread end within ~1 us of when they are asked to, while
 * it lives: Linux adds up to 50 us of "timer slack" to an ordinary thread's
 * sleep so as to batch wake-ups, and two such sleeps a frame took 10 % of a
 * 4K pipeline's frame rate (docs/benchmarks.md). Restores the thread's own
 * slack after. */
class PreciseSleeps {
public:
  PreciseSleeps ()
  {
#ifdef __linux__
    old_ = prctl (PR_GET_TIMERSLACK, 0, 0, 0, 0);
    if (old_ > 1000)
      prctl (PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
#endif
  }
  ~PreciseSleeps ()
  {
#ifdef __linux__
    if (old_ > 1000)
      prctl (PR_SET_TIMERSLACK, (unsigned long) old_, 0, 0, 0);
#endif
  }
  PreciseSleeps (const PreciseSleeps &) = delete;
  PreciseSleeps &operator= (const PreciseSleeps &) = delete;

private:
  int old_ = -1;
};

/* GST_OPENCL_WAIT=spin: waits look again at once instead of sleeping, as
 * a driver's blocking call spins (for comparisons, docs/architecture.md). */
static bool
spin_waits ()
{
  static const bool spin = g_strcmp0 (g_getenv ("GST_OPENCL_WAIT"), "spin") == 0;
  return spin;
}

/* ---- the element of the thread ---- */

static gint64
timeout_us_of (GstElement *element)
{
  const guint ms = element && GST_IS_CL_BASE_TRANSFORM (element) ?
      gst_cl_base_transform_get_kernel_timeout (GST_CL_BASE_TRANSFORM (element)) :
      default_kernel_timeout ();
  return (gint64) ms * 1000;
}

/* The element flushes or stops: its sink pad is flushing (set before
 * GstPad waits for the streaming thread to leave the element). */
static bool
cancelled (GstElement *element)
{
  if (!element || !GST_IS_BASE_TRANSFORM (element))
    return false;
  GstPad *pad = GST_BASE_TRANSFORM_SINK_PAD (element);
  GST_OBJECT_LOCK (pad);
  const bool flushing = GST_PAD_IS_FLUSHING (pad);
  GST_OBJECT_UNLOCK (pad);
  return flushing;
}

/* ---- the record ---- */

static cl_int
status_of (const cl::Event &event)
{
  cl_int status = CL_COMPLETE;
  if (clGetEventInfo (event (), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
          nullptr) != CL_SUCCESS)
    status = CL_INVALID_EVENT;
  return status;
}

/* Drops the completed launches from the front, and notes when the front is
 * first seen running. Under w.lock. */
static void
advance (QueueWatch &w, gint64 now)
{
  while (!w.launches.empty ()) {
    const cl_int status = status_of (w.launches.front ().done);
    if (status > CL_COMPLETE) {
      if (status == CL_RUNNING && !w.head_running)
        w.head_running = now;
      return;
    }
    w.launches.pop_front ();
    w.head_since = now;
    w.head_running = 0;
  }
}

static std::string
kernel_name (const Launch &l)
{
  std::string name = "a kernel";
  try {
    name = l.kernel.getInfo<CL_KERNEL_FUNCTION_NAME> ();
    name.erase (name.find_last_not_of ('\0') + 1);
  } catch (const cl::Error &) {
  }
  return l.suffix ? name + l.suffix : name;
}

/* What a look at a queue found: nothing (empty `why`), or the queue
 * abandoned, by this look (`now`, with the launching element if known) or
 * before. */
struct Verdict {
  std::string why;
  bool now = false;
  std::shared_ptr<Owner> culprit;
};

static Verdict
abandon_locked (QueueWatch &w, const std::string &why, std::shared_ptr<Owner> culprit)
{
  w.why = why;
  w.abandoned = true;
  return {why, true, std::move (culprit)};
}

/* Whether the queue is abandoned, or its oldest launch has run past its
 * timeout (it is then abandoned); a wait whose command is not behind a
 * recorded launch (the record is empty: a transfer) gives up after
 * `fallback_us` of its own. Under w.lock. */
static Verdict
check_locked (QueueWatch &w, gint64 now, gint64 waiting_since, gint64 fallback_us,
    const char *what)
{
  if (w.abandoned)
    return {"The OpenCL queue was abandoned: " + w.why, false, nullptr};
  advance (w, now);
  if (!w.launches.empty ()) {
    const Launch &head = w.launches.front ();
    const bool compiling = w.compiles_at_launch && !w.head_running;
    const gint64 ran = now - (w.head_running ? w.head_running : w.head_since);
    const gint64 allowed = head.timeout_us + (compiling ? kCompileUs : 0);
    if (head.timeout_us > 0 && ran > allowed)
      return abandon_locked (w, "The OpenCL kernel " + kernel_name (head) +
          (head.element.empty () ? std::string () : " of " + head.element) +
          (compiling ? " has not started in " + std::to_string (ran / 1000) + " ms" :
              " has run for " + std::to_string (ran / 1000) + " ms") +
          ", past its kernel-timeout of " + std::to_string (head.timeout_us / 1000) +
          " ms, on " + w.device +
          (what ? std::string (" (waiting for ") + what + ")" : std::string ()), head.owner);
  } else if (what && fallback_us > 0 &&
      now - std::max (waiting_since, w.head_since) > fallback_us) {
    /* Since the wait began, or the last launch ahead completed. */
    return abandon_locked (w, std::string ("The OpenCL device did not complete ") + what +
        " within " + std::to_string (fallback_us / 1000) + " ms, on " + w.device, nullptr);
  }
  return {};
}

/* With no lock held: a queue abandoned by this look is logged and reported
 * by the element whose kernel ran past its time (any thread may be the one
 * that finds out: a producer mapping a frame of the element's pool, a sink);
 * then throws DeviceTimeout. Nothing found: returns. */
static void
act_on (const Verdict &v, const QueueWatch &w)
{
  if (v.why.empty ())
    return;
  if (v.now) {
    GST_ERROR ("%s: the queue on %s is abandoned; its context, queue and buffers are kept "
        "until its work completes, and no element takes that context again", v.why.c_str (),
        w.device.c_str ());
    GstElement *culprit = v.culprit ?
        GST_ELEMENT (g_weak_ref_get (&v.culprit->element)) : nullptr;
    if (culprit) {
      GST_ELEMENT_ERROR (culprit, RESOURCE, FAILED, ("%s", v.why.c_str ()),
          ("the kernel cannot be stopped: its queue is abandoned (a new start takes a new "
              "context)"));
      gst_object_unref (culprit);
    }
  }
  throw DeviceTimeout (v.why);
}

std::shared_ptr<QueueWatch>
watch_queue (const cl::CommandQueue &queue, const std::string &device)
{
  static std::mutex lock;
  /* Never destroyed: kept queues may outlive static destructors. */
  static auto *watches = new std::map<cl_command_queue, std::weak_ptr<QueueWatch>> ();
  std::lock_guard<std::mutex> guard (lock);
  for (auto it = watches->begin (); it != watches->end ();)
    it = it->second.expired () ? watches->erase (it) : std::next (it);
  std::weak_ptr<QueueWatch> &slot = (*watches)[queue ()];
  std::shared_ptr<QueueWatch> w = slot.lock ();
  if (!w) {
    w = std::make_shared<QueueWatch> ();
    w->queue = queue;
    w->device = device;
    w->compiles_at_launch = device.rfind ("Portable Computing Language", 0) == 0;
    try {
      w->on_host_cores = (queue.getInfo<CL_QUEUE_DEVICE> ().getInfo<CL_DEVICE_TYPE> () &
          CL_DEVICE_TYPE_CPU) != 0;
    } catch (const cl::Error &) {
    }
    slot = w;
  }
  return w;
}

/* The watch of a queue known only by its handle (an element's own copy of
 * its context's queue), or null. */
static std::shared_ptr<QueueWatch>
find_watch (const cl::CommandQueue &queue)
{
  return queue () ? watch_queue (queue, "") : nullptr;
}

bool
abandoned (const QueueWatch &w)
{
  return w.abandoned;
}

void
before_launch (QueueWatch &w)
{
  Verdict v;
  {
    std::lock_guard<std::mutex> guard (w.lock);
    v = check_locked (w, g_get_monotonic_time (), 0, 0, nullptr);
  }
  act_on (v, w);
}

void
after_launch (QueueWatch &w, const cl::Kernel &kernel, const char *suffix,
    const cl::Event &event)
{
  GstElement *element = BuildScope::current ();
  Launch launch {event, kernel, suffix, element ? GST_ELEMENT_NAME (element) : "",
      timeout_us_of (element), owner_of (element)};
  cl::Event oldest;
  {
    const gint64 now = g_get_monotonic_time ();
    std::lock_guard<std::mutex> guard (w.lock);
    advance (w, now);
    if (w.launches.empty ()) {
      w.head_since = now;
      w.head_running = 0;
    }
    w.launches.push_back (std::move (launch));
    if (w.launches.size () > kMaxInFlight)
      oldest = w.launches.front ().done;
  }
  if (oldest ())
    wait (&w, w.queue, oldest, "the oldest of too many launches in flight");
}

/* ---- waits ---- */

/* A wait woken by the driver at the event's completion (its callback), on
 * devices whose kernels run on the host's own cores (PoCL on CPUs): a wait
 * that looks every 20 us or more there wakes up dozens of times a frame,
 * each time taking a core from the kernel it waits for (two PoCL threads
 * on two cores, 1080p bilinear: perf showed 10 % of the time in the
 * scheduler). GPU drivers' callbacks come late (tens of microseconds on
 * NVIDIA's), so GPUs keep the paced look. The waiting thread still looks
 * at the watchdog's checks every few milliseconds. The callback holds its
 * own reference: it may run after the wait has ended (or thrown). */
struct Wakeup {
  /* pthread's own, its condition on the monotonic clock: std::condition_variable
   * waits through pthread_cond_clockwait, which Helgrind (3.19) does not
   * know, and a timed wait on the system clock would wait out any step
   * of that clock backwards */
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cond;
  bool done = false;

  Wakeup ()
  {
    pthread_condattr_t attr;
    pthread_condattr_init (&attr);
    pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
    pthread_cond_init (&cond, &attr);
    pthread_condattr_destroy (&attr);
  }
  ~Wakeup ()
  {
    pthread_cond_destroy (&cond);
    pthread_mutex_destroy (&lock);
  }
  Wakeup (const Wakeup &) = delete;
  Wakeup &operator= (const Wakeup &) = delete;

  /* Until done, or for at most `us` microseconds. */
  void wait (gint64 us)
  {
    struct timespec until;
    clock_gettime (CLOCK_MONOTONIC, &until);
    until.tv_nsec += (long) (us % G_USEC_PER_SEC) * 1000;
    until.tv_sec += (time_t) (us / G_USEC_PER_SEC + until.tv_nsec / 1000000000L);
    until.tv_nsec %= 1000000000L;
    pthread_mutex_lock (&lock);
    while (!done && pthread_cond_timedwait (&cond, &lock, &until) == 0) {
    }
    pthread_mutex_unlock (&lock);
  }
};

static void CL_CALLBACK
wake_up (cl_event, cl_int, void *data)
{
  auto *ref = static_cast<std::shared_ptr<Wakeup> *> (data);
  Wakeup &w = **ref;
  pthread_mutex_lock (&w.lock);
  w.done = true;
  pthread_cond_broadcast (&w.cond);   /* (under the lock: Helgrind calls it dubious without) */
  pthread_mutex_unlock (&w.lock);
  delete ref;
}

/* A Wakeup set on `event`, or null where the driver refuses the callback. */
static std::shared_ptr<Wakeup>
wakeup_of (const cl::Event &event)
{
  auto wakeup = std::make_shared<Wakeup> ();
  auto *ref = new std::shared_ptr<Wakeup> (wakeup);
  if (clSetEventCallback (event (), CL_COMPLETE, wake_up, ref) != CL_SUCCESS) {
    delete ref;
    return nullptr;
  }
  return wakeup;
}

static cl_int
wait_slow (QueueWatch *w, const cl::CommandQueue &queue, const cl::Event &event,
    const char *what, const Pacing &pacing)
{
  GstElement *element = BuildScope::current ();
  const gint64 start = g_get_monotonic_time ();
  const gint64 fallback_us = timeout_us_of (element);
  if (queue ())
    queue.flush ();   /* polling does not submit the queue's commands */
  const std::shared_ptr<Wakeup> wakeup = w && w->on_host_cores && !spin_waits () ?
      wakeup_of (event) : nullptr;
  PreciseSleeps precise;
  if (pacing.first_sleep_us > 0 && !spin_waits () && !wakeup)
    g_usleep (pacing.first_sleep_us);
  for (;;) {
    const cl_int status = status_of (event);
    if (status <= CL_COMPLETE)
      return status;
    const gint64 now = g_get_monotonic_time ();
    if (cancelled (element))
      throw WaitCancelled ();
    if (w) {
      Verdict v;
      {
        std::lock_guard<std::mutex> guard (w->lock);
        v = check_locked (*w, now, start, fallback_us, what);
      }
      act_on (v, *w);
    } else if (fallback_us > 0 && now - start > fallback_us) {
      throw DeviceTimeout (std::string ("The OpenCL device did not complete ") + what +
          " within " + std::to_string (fallback_us / 1000) + " ms");
    }
    if (wakeup) {
      wakeup->wait (5000);
    } else if (spin_waits ()) {
      std::this_thread::yield ();
    } else {
      g_usleep (pacing.step_us > 0 ? pacing.step_us : CLAMP ((now - start) / 16, 20, 2000));
    }
  }
}

void
wait (QueueWatch *w, const cl::CommandQueue &queue, const cl::Event &event,
    const char *what, const Pacing &pacing)
{
  if (w && w->abandoned) {
    std::string why;
    {
      std::lock_guard<std::mutex> guard (w->lock);
      why = w->why;
    }
    throw DeviceTimeout ("The OpenCL queue was abandoned: " + why);
  }
  if (!event ())
    return;
  cl_int status = status_of (event);
  if (status > CL_COMPLETE)
    status = wait_slow (w, queue, event, what, pacing);
  if (status < 0)
    throw cl::Error (status, what);
}

/* ---- kept queues ---- */

struct Kept {
  std::shared_ptr<QueueWatch> watch;  /* holds the queue and the kept buffers */
  cl::Context context;
  std::vector<cl::Program> programs;
  cl::Event done;                     /* a marker after the queue's last command */
};

/* (never destroyed either: the reaper thread may still take it at exit) */
static std::mutex &kept_lock = *new std::mutex ();

/* Never destroyed: what a kernel still runs on is not released at exit
 * (where the driver may wait for the kernel, forever); memcheck reports it
 * as still reachable, the leaks tracer does not see it (no GObject). */
static std::list<Kept> &
kept ()
{
  static auto *list = new std::list<Kept> ();
  return *list;
}

static void
release_completed_locked ()
{
  for (auto it = kept ().begin (); it != kept ().end ();) {
    if (it->done () && status_of (it->done) <= CL_COMPLETE) {
      GST_INFO ("the work of a kept queue on %s completed: released",
          it->watch->device.c_str ());
      it = kept ().erase (it);
    } else {
      ++it;
    }
  }
}

void
release_completed ()
{
  std::lock_guard<std::mutex> guard (kept_lock);
  release_completed_locked ();
}

/* Whether the reaper runs (under kept_lock). */
static bool reaping = false;

/* Releases kept queues as their work completes, looking every 20 ms at
 * first and less often the longer they stay (a runaway kernel may run for
 * long); ends when none is left. A queue kept because PoCL was still
 * compiling at a teardown otherwise stayed, with the frames its commands
 * held, until the next context was freed with work in flight. */
static void
start_reaper_locked ()
{
  if (reaping)
    return;
  reaping = true;
  std::thread ([] {
#ifdef __linux__
    prctl (PR_SET_NAME, "clkeptqueues", 0, 0, 0);
#endif
    gint64 pause_us = 20 * 1000;
    for (;;) {
      g_usleep (pause_us);
      pause_us = MIN (pause_us * 2, G_USEC_PER_SEC);
      std::lock_guard<std::mutex> guard (kept_lock);
      release_completed_locked ();
      if (kept ().empty ()) {
        reaping = false;
        return;
      }
    }
  }).detach ();
}

void
keep_buffer (QueueWatch &w, const cl::Memory &buffer)
{
  if (!buffer ())
    return;
  std::lock_guard<std::mutex> guard (w.lock);
  w.kept.push_back (buffer);
}

void
keep_owner (QueueWatch &w, std::shared_ptr<void> owner)
{
  if (!owner)
    return;
  std::lock_guard<std::mutex> guard (w.lock);
  w.kept_owners.push_back (std::move (owner));
}

bool
keep_if_busy (const std::shared_ptr<QueueWatch> &w, const cl::Context &context,
    const std::vector<cl::Program> &programs)
{
  cl::Event done;
  try {
    w->queue.enqueueMarkerWithWaitList (nullptr, &done);
    w->queue.flush ();
  } catch (const cl::Error & e) {
    GST_WARNING ("no marker on the queue being freed: %s", describe (e).c_str ());
  }
  if (!w->abandoned && done ()) {
    const gint64 until = g_get_monotonic_time () + kGraceUs;
    while (status_of (done) > CL_COMPLETE && g_get_monotonic_time () < until)
      g_usleep (1000);
    if (status_of (done) <= CL_COMPLETE) {
      release_completed ();
      return false;
    }
  }
  std::string why;
  size_t buffers;
  {
    std::lock_guard<std::mutex> guard (w->lock);
    why = w->abandoned ? w->why : "its work has not completed " +
        std::to_string (kGraceUs / 1000) + " ms after the context was freed";
    buffers = w->kept.size ();
  }
  GST_WARNING ("keeping an OpenCL queue on %s (%s): its context, queue, %zu programs "
      "and %zu buffers are released when its work completes, never before (at exit: "
      "not at all)", w->device.c_str (), why.c_str (), programs.size (), buffers);
  std::lock_guard<std::mutex> guard (kept_lock);
  kept ().push_back ({w, context, programs, done});
  release_completed_locked ();
  if (!kept ().empty ())
    start_reaper_locked ();
  return true;
}

}  // namespace watchdog

void
wait (GstClContext *ctx, const cl::Event &event, const char *what)
{
  watchdog::wait (watch_of (ctx), queue_of (ctx), event, what);
}

void
wait (const cl::CommandQueue &queue, const cl::Event &event, const char *what)
{
  std::shared_ptr<watchdog::QueueWatch> w = watchdog::find_watch (queue);
  watchdog::wait (w.get (), queue, event, what);
}

void
finish (const cl::CommandQueue &queue, const char *what)
{
  std::shared_ptr<watchdog::QueueWatch> w = watchdog::find_watch (queue);
  if (w && w->abandoned)
    watchdog::wait (w.get (), queue, cl::Event (), what);   /* throws */
  cl::Event done;
  queue.enqueueMarkerWithWaitList (nullptr, &done);
  watchdog::wait (w.get (), queue, done, what);
}

void
finish (GstClContext *ctx, const char *what)
{
  finish (queue_of (ctx), what);
}

bool
abandoned (GstClContext *ctx)
{
  return watchdog::abandoned (*watch_of (ctx));
}

unsigned
kept_queues ()
{
  std::lock_guard<std::mutex> guard (watchdog::kept_lock);
  watchdog::release_completed_locked ();
  return (unsigned) watchdog::kept ().size ();
}

GstFlowReturn
post_exception (GstElement *element, const char *stage)
{
  try {
    throw;
  } catch (const WaitCancelled &) {
    GST_DEBUG_OBJECT (element, "a wait for the device ended by a flush or a stop, while %s",
        stage);
    return GST_FLOW_FLUSHING;
  } catch (const DeviceTimeout & e) {
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED, ("%s", e.what ()),
        ("while %s; the kernel cannot be stopped, its queue is abandoned (a new start takes "
            "a new context)", stage));
  } catch (const BuildError & e) {
    GST_ELEMENT_ERROR (element, LIBRARY, INIT,
        ("Could not build the OpenCL program (%s)", stage), ("%s", e.what ()));
  } catch (const cl::Error & e) {
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED,
        ("OpenCL failure while %s", stage), ("%s", describe (e).c_str ()));
  } catch (const std::exception & e) {
    GST_ELEMENT_ERROR (element, CORE, FAILED, ("Failure while %s: %s", stage, e.what ()),
        (nullptr));
  }
  return GST_FLOW_ERROR;
}

}  // namespace gstcl
