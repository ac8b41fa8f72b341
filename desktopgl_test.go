package main

import (
	"os"
	"slices"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

func TestGLEnv(t *testing.T) {
	names := func(env [][2]string) []string {
		var out []string
		for _, kv := range env {
			out = append(out, kv[0]+"="+kv[1])
		}
		return out
	}
	render := noRenderNodeEnv[0] + "=" + os.DevNull
	for _, c := range []struct {
		policy linux.WebviewGpuPolicy
		nodes  []string
		want   []string
	}{
		{linux.WebviewGpuPolicyNever, nil, []string{"GDK_GL=disable", "WEBKIT_DISABLE_DMABUF_RENDERER=1", render}},
		{linux.WebviewGpuPolicyNever, []string{"/dev/dri/renderD128"}, []string{"GDK_GL=disable", "WEBKIT_DISABLE_DMABUF_RENDERER=1"}},
		{linux.WebviewGpuPolicyOnDemand, nil, []string{render}},
		{linux.WebviewGpuPolicyOnDemand, []string{"/dev/dri/renderD128"}, nil},
	} {
		if got := names(glEnv(c.policy, c.nodes)); !slices.Equal(got, c.want) {
			t.Errorf("glEnv(%v, %v) = %v, want %v", c.policy, c.nodes, got, c.want)
		}
	}
}

// A value the person set, even empty, stays; the rest is set.
func TestSkipUnusedGLKeepsThePersonsValues(t *testing.T) {
	t.Setenv(noRenderNodeEnv[0], "")
	t.Setenv("GDK_GL", "")
	os.Unsetenv("GDK_GL") // t.Setenv restores it after the test
	t.Setenv("WEBKIT_DISABLE_DMABUF_RENDERER", "0")
	if set := skipUnusedGL(linux.WebviewGpuPolicyNever, nil); !slices.Equal(set, []string{"GDK_GL"}) {
		t.Errorf("skipUnusedGL set %v, want only GDK_GL", set)
	}
	for k, want := range map[string]string{noRenderNodeEnv[0]: "", "GDK_GL": "disable", "WEBKIT_DISABLE_DMABUF_RENDERER": "0"} {
		if got, ok := os.LookupEnv(k); !ok || got != want {
			t.Errorf("%s = %q (set %v), want %q", k, got, ok, want)
		}
	}
}
