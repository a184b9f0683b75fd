#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Issue 35 on a GPU host with NVIDIA's driver (docs/interop.md): frames to and
# from the nvcodec elements' CUDA memory without a host trip.
#
#   bash tests/gpu/cuda.sh pack [DIR]   # here, after ninja -C build (DIR: .bundle)
#   bash tests/gpu/cuda.sh run [DIR]    # there, in the repository root (carry DIR)
#
# pack: ../shared/tools/gst-bundle's runtime with the plugin, nvcodec
# (cudaupload, cudadownload, nvh264dec; it brings libgstcuda-1.0), openh264enc
# and h264parse (to make the H.264 input there), test_cuda and the benchmark.
# run, in about 3 minutes:
#   1. what the bridge finds, step by step (GST_DEBUG=clcuda:5: libcuda load,
#      device UUIDs, the trial through shared memory); 1b. the device copies'
#      time a frame at 4K NV12 (the clcuda log's per-frame lines): out with
#      no copy (wrapped), one (GST_OPENCL_CUDA_WRAP=0) and two
#      (GST_OPENCL_CUDA_DIRECT=0);
#   2. test_cuda with GST_OPENCL_EXPECT_CUDA=1 under the leaks tracer: the
#      same bytes as the system path for CUDA in (cudaupload, nvh264dec) and
#      out (cudadownload, the camera path's NV12), no host transfer on the
#      CUDA legs, one device copy a frame in and none out (one with
#      GST_OPENCL_CUDA_WRAP=0, two with GST_OPENCL_CUDA_DIRECT=0), host maps,
#      deep copies and frames kept after their pipeline,
#      caps changes, a flushing seek, EOS, no descriptor left;
#   3. the recipes of docs/interop.md as written;
#   4. the benchmark: the camera and isp cases at 4K, NV12 out in CUDA
#      memory vs system memory, and the bus limits; the CUDA-out cases again
#      with one and two copies a frame;
#   5. NVDEC 1080p H.264 -> clupload -> clsobel -> clconvert -> CUDA memory
#      (NV12): frames/s of
#      N streams at once, for the number of 1080p30 streams one GPU takes
#      (runs that fail say so and give no number).
# A failed pipeline is run again with GST_DEBUG=clcuda:5,GST_CAPS:3 and its
# first ERROR/WARN lines and last lines printed; the end lists the failed
# steps, and the exit status is non-zero if there are any.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
what=${1:?usage: $0 pack|run [DIR]}
dir=${2:-.bundle}

if [ "$what" = pack ]; then
  arch=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
  gstlib=/usr/lib/$arch/gstreamer-1.0
  rm -rf "$dir"
  ../shared/tools/gst-bundle "$dir" build/gst/elements/libgstopencl.so \
    "$gstlib/libgstnvcodec.so" "$gstlib/libgstopenh264.so" "$gstlib/libgstvideoparsersbad.so" "$gstlib/libgstisomp4.so" \
    build/tests/test_cuda build/tests/bench/gst-opencl-bench
  # Opened at run time by the bridge: it must be there even if nvcodec's
  # ldd did not list it.
  [ -e "$dir/lib/libgstcuda-1.0.so.0" ] || cp -L "/usr/lib/$arch/libgstcuda-1.0.so.0" "$dir/lib/"
  g++ -O2 -std=c++17 tests/gpu/cuda_copies.cpp -o "$dir/bin/cuda-copies" -lOpenCL -ldl
  exit 0
fi

# shellcheck source=/dev/null
source "$dir/env.sh"
# libcuda.so.1 (NVIDIA's driver), wherever the host keeps it.
for d in /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64; do
  [ -e "$d/libcuda.so.1" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d" && break
done
export GST_REGISTRY_1_0=/tmp/gst-opencl-cuda-registry.bin GST_DEBUG_NO_COLOR=1
tmp=$(mktemp -d)
failed=()
step() { echo; echo "=== $* ($(date +%T))"; cur="$*"; }
fail() { echo "FAILED: $*"; failed+=("${cur%% *} $*"); }
# A pipeline that failed, run again with the bridge's and the caps' logs:
# its first ERROR and WARN lines, then the log's tail.
diagnose() {
  GST_DEBUG='*:2,clcuda:5,GST_CAPS:3,clupload:5,cldownload:5' timeout 20 gst-launch-1.0 "$@" \
    >"$tmp/diag" 2>&1
  echo "  --- again with GST_DEBUG=*:2,clcuda:5,GST_CAPS:3 (exit status $?): first ERROR/WARN lines"
  grep -E 'ERROR|WARN|erroneous' "$tmp/diag" | grep -v -E 'nvenc|nvh26.encoder|cudanvrtc|gldisplay|gleglgbm' |
    head -12 | cut -c1-400 | sed 's/^/  /'
  echo "  --- its last lines"
  tail -12 "$tmp/diag" | cut -c1-400 | sed 's/^/  /'
}

step "1. what the bridge finds"
nvidia-smi -L 2>/dev/null
gst-inspect-1.0 nvcodec 2>&1 | grep -E 'cudaupload|cudadownload|nvh264dec|nvh264enc'
gst-inspect-1.0 clupload | grep -c 'CUDAMemory' | sed 's/^/clupload templates with CUDAMemory: /'
# shellcheck disable=SC2054  # (caps, not array elements)
# (the caps after cudaupload: without them it passes system memory through)
first=(videotestsrc num-buffers=2 ! video/x-raw,format=NV12,width=64,height=48 ! cudaupload !
  'video/x-raw(memory:CUDAMemory)' ! clupload ! cldownload ! 'video/x-raw(memory:CUDAMemory)' !
  cudadownload ! fakesink)
# (GST_CONTEXT: whether clupload and cldownload found the nvcodec elements'
# CUDA context, "found context", or made one, "posting have context")
GST_DEBUG=clcuda:5,GST_CONTEXT:4 timeout 30 gst-launch-1.0 "${first[@]}" 2>&1 |
  grep -E 'clcuda|GST_CONTEXT.*(CUDA|cuda|found context|have context)|ERROR|WARN|EOS' |
  sed 's/^.*\(clcuda\|GST_CONTEXT\) /\1 /' | head -60
rc=${PIPESTATUS[0]}
echo "exit status $rc"
[ "$rc" -eq 0 ] || { fail "cudaupload ! clupload ! cldownload ! cudadownload"; diagnose "${first[@]}"; }

step "1b. what each leg costs: the device copies alone (cuda-copies), then 4K NV12, 100 frames in and out of CUDA memory"
timeout 60 "$dir/bin/cuda-copies" 100
# Out to CUDA: no copy (wrapped: the OpenCL frame is shared memory handed on
# as CUDA memory, the default), one (GST_OPENCL_CUDA_WRAP=0), two
# (GST_OPENCL_CUDA_DIRECT=0: through a shared buffer and clEnqueueCopyBuffer);
# in from CUDA: one copy, two with DIRECT=0. "direct" and "wrapped" count the
# frames of each kind (100 each way).
for mode in "1 1" "0 1" "1 0"; do
  read -r wrap direct <<<"$mode"
  GST_OPENCL_CUDA_WRAP=$wrap GST_OPENCL_CUDA_DIRECT=$direct GST_DEBUG=clcuda:6 timeout 30 \
    gst-launch-1.0 -q videotestsrc num-buffers=100 ! video/x-raw,format=NV12,width=3840,height=2160 ! \
    cudaupload ! 'video/x-raw(memory:CUDAMemory)' ! clupload ! cldownload ! \
    'video/x-raw(memory:CUDAMemory)' ! fakesink sync=false 2>&1 | \
    awk -v mode="GST_OPENCL_CUDA_WRAP=$wrap GST_OPENCL_CUDA_DIRECT=$direct" '
    /bytes: CUDA -> OpenCL/ { n1++; if (/\(direct\)/) d++; if (n1 > 5) {
        for (i = 2; i <= NF; i++) if ($i == "copy" && $(i-1) == "CUDA") a += $(i+1); na++ } }
    /bytes: OpenCL -> CUDA/ { n2++; if (/\(direct\)/) d++; if (/\(wrapped/) w++; if (n2 > 5) {
        for (i = 2; i <= NF; i++) { if ($i == "queue") b += $(i+1);
          if ($i == "copy" && $(i-1) == "CUDA") c += $(i+1) }; nb++ } }
    END { printf "%s: %d frames in, %d out, %d direct, %d wrapped\n", mode, n1, n2, d, w;
          if (na) printf "  CUDA -> OpenCL: CUDA copy %.0f us a frame (%d frames)\n", a / na, na;
          if (nb) printf "  OpenCL -> CUDA: OpenCL copy (none if direct) and queue %.0f us, CUDA copy %.0f us a frame (%d frames)\n", b / nb, c / nb, nb;
          if (!na && !nb) print "  no clcuda frame logs" }'
done

step "H.264 input (openh264enc)"
# FILE FRAMES WIDTH HEIGHT PATTERN BITRATE [MUXER]: an H.264 file, checked
# by counting its access units. openh264enc's drain at EOS calls
# EncodeFrame with no picture, which OpenH264 logs as "cmInitParaError":
# harmless, and filtered out here.
make_h264() {
  local out=$1 n=$2 w=$3 h=$4 pattern=$5 rate=$6 mux=${7:-}
  # shellcheck disable=SC2054
  local tail=(video/x-h264,stream-format=byte-stream,alignment=au ! filesink location="$out")
  [ -n "$mux" ] && tail=("$mux" ! filesink location="$out")
  timeout 60 gst-launch-1.0 -q videotestsrc num-buffers="$n" pattern="$pattern" ! \
    video/x-raw,format=I420,width="$w",height="$h",framerate=30/1 ! \
    openh264enc bitrate="$rate" gop-size=30 ! h264parse ! "${tail[@]}" 2>&1 |
    grep -v 'cmInitParaError' | head -5
  local rc=${PIPESTATUS[0]} demux=()
  [ -n "$mux" ] && demux=(qtdemux !)
  local got
  got=$(timeout 30 gst-launch-1.0 -v filesrc location="$out" ! "${demux[@]}" h264parse ! \
    video/x-h264,alignment=au ! fakesink silent=false 2>/dev/null | grep -c 'chain')
  echo "$(basename "$out"): exit status $rc, $(stat -c %s "$out" 2>/dev/null || echo 0) bytes, $got of $n frames"
  if [ "$rc" -ne 0 ] || [ "$got" -ne "$n" ]; then
    fail "H.264 input $(basename "$out") ($got of $n frames)"
  fi
}
make_h264 "$tmp/small.h264" 60 640 360 ball 2000000
make_h264 "$tmp/1080p.h264" 450 1920 1080 smpte 8000000

step "2. test_cuda (leaks tracer on)"
GST_OPENCL_EXPECT_CUDA=1 GST_OPENCL_TEST_H264="$tmp/small.h264" CK_DEFAULT_TIMEOUT=300 \
  GST_TRACERS=leaks GST_DEBUG='*:1,GST_TRACER:7,leaks:5,clcuda:4,check:4' \
  GST_DEBUG_FILE="$tmp/test.log" timeout 200 "$dir/bin/test_cuda"
rc=$?
echo "test_cuda: exit status $rc"
if [ "$rc" -ne 0 ]; then
  fail "test_cuda (exit status $rc)"
  echo "--- the first ERROR and WARN lines of its log"
  # (nvcodec's registration on a GPU without NVENC or NVRTC, and GL without
  # a display, log errors of their own at every start: left out)
  grep -E ' (ERROR|WARN) ' "$tmp/test.log" | grep -v -E 'GST_TRACER|nvenc|nvh26.encoder|cudanvrtc|gldisplay|gleglgbm' |
    head -15 | cut -c1-400
  grep -E 'check.*(fail|Failure)|test_cuda.cpp:[0-9]+:F:' "$tmp/test.log" | head -5 | cut -c1-600
fi
grep -E 'test_cuda.cpp|clcuda' "$tmp/test.log" | grep -E 'INFO|WARN|ERROR' | \
  sed 's/^.*\(test_cuda.cpp\|gstclcuda.cpp\)/\1/' | sort | uniq -c | sort -rn | head -40
echo "objects alive at exit: $(grep -c 'object-alive, type-name=(string)[A-Za-z]' "$tmp/test.log")"
grep 'object-alive, type-name=(string)[A-Za-z]' "$tmp/test.log" | head -10

step "3. the recipes of docs/interop.md"
run() {
  echo "\$ gst-launch-1.0 $*"
  timeout 30 gst-launch-1.0 -q "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  echo "  exit status $rc"
  grep -E 'ERROR|WARN' "$tmp/err" | head -5
  [ "$rc" -eq 0 ] || { fail "recipe: $(echo "$*" | cut -c1-120)"; diagnose "$@"; }
}
make_h264 "$tmp/in.mp4" 30 320 240 ball 1000000 mp4mux
run filesrc location="$tmp/in.mp4" ! qtdemux ! h264parse ! nvh264dec ! \
  clupload ! clsobel ! cldownload ! fakesink
run filesrc location="$tmp/in.mp4" ! qtdemux ! h264parse ! nvh264dec ! \
  clupload ! clconvolve kernel="<1,2,1,2,4,2,1,2,1>" ! \
  cldownload ! "video/x-raw(memory:CUDAMemory)" ! cudadownload ! fakesink
# The camera recipe with nvh264enc: the H100 has no NVENC; its CUDA half:
gst-launch-1.0 -q videotestsrc num-buffers=30 ! video/x-raw,format=GRAY16_LE,width=1920,height=1080 ! \
  filesink location="$tmp/raw.gray16" 2>/dev/null
run filesrc location="$tmp/raw.gray16" blocksize=$((1920 * 1080 * 2)) ! \
  capsfilter caps=video/x-bayer,format=rggb12le,width=1920,height=1080,framerate=30/1 ! clupload ! \
  cldebayer black-level=256 white-balance=auto ! "video/x-raw(memory:OpenCLMemory),format=NV12" ! \
  cldownload ! "video/x-raw(memory:CUDAMemory),format=NV12" ! cudadownload ! fakesink
gst-inspect-1.0 nvh264enc >/dev/null 2>&1 && run filesrc location="$tmp/raw.gray16" \
  blocksize=$((1920 * 1080 * 2)) ! \
  capsfilter caps=video/x-bayer,format=rggb12le,width=1920,height=1080,framerate=30/1 ! clupload ! \
  cldebayer black-level=256 white-balance=auto ! "video/x-raw(memory:OpenCLMemory),format=NV12" ! \
  cldownload ! "video/x-raw(memory:CUDAMemory),format=NV12" ! nvh264enc ! h264parse ! \
  filesink location="$tmp/camera.h264"

step "4. benchmark: the camera path at 4K, NV12 out in CUDA vs system memory"
timeout 90 "$dir/bin/gst-opencl-bench" --sizes 4k --repeats 1 --frames 120 --concurrent 0 \
  --only 'cldebayer camera rggb12le>NV12,cldebayer isp rggb12le>NV12' \
  --markdown "$tmp/bench.md" --json "$tmp/bench.json" 2>&1 | tail -3
cat "$tmp/bench.md"
mkdir -p "${OUT:-$tmp}" && cp "$tmp/bench.json" "$tmp/bench.md" "${OUT:-$tmp}/" 2>/dev/null
for mode in "GST_OPENCL_CUDA_WRAP=0:one copy" "GST_OPENCL_CUDA_DIRECT=0:two copies"; do
  echo "--- the CUDA-out cases again with ${mode#*:} a frame (${mode%%:*}), for comparison"
  env "${mode%%:*}" timeout 90 "$dir/bin/gst-opencl-bench" --sizes 4k --repeats 1 --frames 120 \
    --concurrent 0 --only 'rggb12le>NV12 CUDA out,rggb12le>NV12 queue CUDA out' \
    --markdown "$tmp/bench2.md" 2>&1 | tail -3
  cat "$tmp/bench2.md"
done

step "5. NVDEC 1080p -> clupload -> clsobel -> clconvert -> CUDA memory (NV12), N streams at once"
# Only runs that reached EOS count; a failed one says so, with its errors
# (the first failure again with the logs).
# (clsobel gives GRAY8, which 1.22's CUDA memory cannot hold: clconvert
# makes the NV12 that an encoder takes)
chain=(filesrc location="$tmp/1080p.h264" ! h264parse ! nvh264dec ! clupload ! clsobel !
  clconvert ! 'video/x-raw(memory:OpenCLMemory),format=NV12' ! cldownload !
  'video/x-raw(memory:CUDAMemory),format=NV12' ! fakesink sync=false)
measured=0 diagnosed=""
for n in 1 8 16 32; do
  chains=()
  for _ in $(seq "$n"); do chains+=("${chain[@]}"); done
  start=$(date +%s%N)
  timeout 60 gst-launch-1.0 -q "${chains[@]}" >"$tmp/err" 2>&1
  rc=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ "$rc" -ne 0 ]; then
    echo "$n streams: FAILED, exit status $rc after $ms ms (no frames/s)"
    grep -E 'ERROR|WARN|erroneous' "$tmp/err" | head -3 | cut -c1-400
    [ -n "$diagnosed" ] || { diagnose "${chain[@]}"; diagnosed=1; }
    continue
  fi
  measured=$((measured + 1))
  fps=$(( n * 450 * 1000 / (ms > 0 ? ms : 1) ))
  echo "$n streams x 450 frames: $ms ms (start-up included), $fps frames/s in all (1080p30 streams: $(( fps / 30 )))"
done
[ "$measured" -eq 4 ] || fail "NVDEC streams: $measured of 4 counts ran"

echo
echo "=== summary ($(date +%T)): ${#failed[@]} failure(s)"
for f in "${failed[@]}"; do echo "  step $f"; done
rm -rf "$tmp"
[ "${#failed[@]}" -eq 0 ]
