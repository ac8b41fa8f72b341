package main

import (
	"os"
	"path/filepath"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// What the window's process is told about GL before GTK and WebKit start: docs/performance.md, "What waits".

// GPUEnv set to "1" gives the web view Wails' own GPU policy (on demand) back.
const GPUEnv = "VOICEBOX_GPU"

// webviewGPU is the web view's hardware acceleration policy: never, unless VOICEBOX_GPU=1. Accelerated
// compositing rasterizes the room and every app frame through GL; without a GPU (Mesa's llvmpipe: a VM, a
// remote desktop, Xvfb) that took ~40% of the start's CPU and half the web process's memory, for a room of
// documents that paints as well without it (WebGL and canvas included). docs/performance.md has the figures.
func webviewGPU() linux.WebviewGpuPolicy {
	if os.Getenv(GPUEnv) == "1" {
		return linux.WebviewGpuPolicyOnDemand
	}
	return linux.WebviewGpuPolicyNever
}

// noGLEnv is what the window's own process is told when the web view composites nothing (webviewGPU):
// GDK probes GLX when it opens the display, and WebKit's DMA-BUF renderer sets up EGL, both only to draw
// composited frames, which never come. Loading Mesa for them (llvmpipe and its LLVM, without a GPU) took
// ~120 ms of every start before the web view existed. The web process keeps its own GL (WebGL).
var noGLEnv = [][2]string{{"GDK_GL", "disable"}, {"WEBKIT_DISABLE_DMABUF_RENDERER", "1"}}

// noRenderNodeEnv tells WebKit which DRM render node the web process draws with where the machine has none.
// Unless told, the window's process looks for one by setting up EGL (Mesa and its LLVM again) on the GTK
// thread right after it launches the web process, which then waits for that thread: ~200 ms before the
// window showed on this machine. With no render node under /dev/dri that search can only come back empty;
// a file that is no render node ends it at once with the same outcome (the web process finds no DRM device
// and draws WebGL through Mesa's surfaceless platform, as before). Where a render node exists, WebKit
// chooses among them itself (which GPU drives the display is EGL's to say).
var noRenderNodeEnv = [2]string{"WEBKIT_WEB_RENDER_DEVICE_FILE", os.DevNull}

// renderNodes are the machine's DRM render nodes.
func renderNodes() []string {
	nodes, _ := filepath.Glob("/dev/dri/renderD*")
	return nodes
}

// glEnv is what skipUnusedGL sets, for a web view under policy on a machine with these render nodes.
func glEnv(policy linux.WebviewGpuPolicy, nodes []string) [][2]string {
	var env [][2]string
	if policy == linux.WebviewGpuPolicyNever {
		env = append(env, noGLEnv...)
	}
	if len(nodes) == 0 {
		env = append(env, noRenderNodeEnv)
	}
	return env
}

// skipUnusedGL sets glEnv; it must run before GTK and WebKit start. A value the person set stays. It returns
// the names it set: this process's choices for its own WebKit, which a program it starts must not inherit
// (guard.Options.OpenerUnset: the person's browser keeps its GL).
func skipUnusedGL(policy linux.WebviewGpuPolicy, nodes []string) (set []string) {
	for _, kv := range glEnv(policy, nodes) {
		if _, had := os.LookupEnv(kv[0]); !had {
			os.Setenv(kv[0], kv[1])
			set = append(set, kv[0])
		}
	}
	return set
}
