package desktop

// GL in the real binary: a mini-app draws with WebGL and reads its pixels back, and the window's own process
// never loads Mesa on a machine with no DRM render node (desktopgl.go; docs/performance.md, "What waits").
// This session's Xvfb has no /dev/dri, as the VMs and remote desktops the choice is for.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// glPage clears a WebGL canvas to a colour the test picks, reads a pixel back, and draws on a 2D canvas too.
const glPage = `<!doctype html><title>Desk GL</title>
<canvas id="gl" width="8" height="8"></canvas><canvas id="c2" width="8" height="8"></canvas>
<script>
webMcp.registerTool({name: "draw", description: "Clear to a colour and read it back",
  parameters: {type: "object", properties: {r: {type: "integer"}, g: {type: "integer"}, b: {type: "integer"}}, required: ["r", "g", "b"]},
  execute: ({r, g, b}) => {
    const out = {};
    const gl = document.getElementById("gl").getContext("webgl");
    if (gl) {
      gl.clearColor(r / 255, g / 255, b / 255, 1);
      gl.clear(gl.COLOR_BUFFER_BIT);
      const px = new Uint8Array(4);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
      out.webgl = Array.from(px.slice(0, 3));
      out.renderer = gl.getParameter(gl.RENDERER);
    }
    const c = document.getElementById("c2").getContext("2d");
    c.fillStyle = "rgb(" + r + "," + g + "," + b + ")";
    c.fillRect(0, 0, 8, 8);
    out.canvas = Array.from(c.getImageData(0, 0, 1, 1).data.slice(0, 3));
    return out;
  }});
</script>`

// mapsMesa says whether process pid has Mesa's LLVM mapped.
func mapsMesa(t *testing.T, pid int) bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "maps"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(raw), "libLLVM")
}

// TestWebGLWithoutMesaInTheWindow: WebGL and canvas draw what the app asks in the web process, while the
// window's process has no Mesa in it. Control: the person's own (empty) WEBKIT_WEB_RENDER_DEVICE_FILE, which
// Voicebox leaves alone, lets WebKit look for a render node through EGL, and then the window's process has
// Mesa's LLVM mapped: the check can see it.
func TestWebGLWithoutMesaInTheWindow(t *testing.T) {
	if nodes, _ := filepath.Glob("/dev/dri/renderD*"); len(nodes) > 0 {
		t.Skipf("this machine has DRM render nodes (%v): WebKit chooses among them and the window's process sets up EGL to", nodes)
	}
	s := startSession(t)
	for _, c := range []struct {
		name string
		env  []string
		mesa bool
	}{
		{"default", nil, false},
		{"control: WebKit searches for a render node", []string{"WEBKIT_WEB_RENDER_DEVICE_FILE="}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBox(t, s, map[string]string{"gl.html": glPage})
			b.start(t, c.env)
			cs := b.mcpClient(t)
			a := launchApp(t, cs, "gl.html")
			text, refused := toolText(t, cs, 10*time.Second, toolNamed(t, a, "draw"), map[string]any{"r": 23, "g": 181, "b": 77})
			var got struct {
				WebGL, Canvas []int
				Renderer      string
			}
			if refused || json.Unmarshal([]byte(text), &got) != nil {
				t.Fatalf("draw: %s (refused %v)", text, refused)
			}
			want := []int{23, 181, 77}
			if !slices.Equal(got.WebGL, want) || !slices.Equal(got.Canvas, want) {
				t.Fatalf("drew %v, read back WebGL %v (renderer %q), canvas %v", want, got.WebGL, got.Renderer, got.Canvas)
			}
			if m := mapsMesa(t, b.cmd.Process.Pid); m != c.mesa {
				t.Fatalf("the window's process has Mesa's LLVM mapped: %v, want %v", m, c.mesa)
			}
			t.Logf("WebGL through %q; the window's process maps Mesa: %v", got.Renderer, c.mesa)
		})
	}
}
