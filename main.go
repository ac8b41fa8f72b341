// Voicebox: a desktop room for untrusted HTML mini-apps driven by a voice assistant.
// This is the window's program, voicebox-desktop, the one that links GTK and WebKitGTK (app.go). People and
// MCP clients start cmd/voicebox, which runs help, version and `voicebox mcp` itself and starts this program
// for everything else (docs/architecture.md, "Two programs"); started directly, this one runs them all.
// main.go only wires: it reads the command line and hands over to the window (app.go), the browser room
// (backend/host), or one of the small commands.
package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/voicebox/voicebox/backend/cli"
	"github.com/voicebox/voicebox/backend/commands"
	"github.com/voicebox/voicebox/backend/config"
	"github.com/voicebox/voicebox/backend/host"
	"github.com/voicebox/voicebox/backend/httpapi"
	"github.com/voicebox/voicebox/backend/toolcontract"
	"github.com/voicebox/voicebox/backend/trace"
	"github.com/voicebox/voicebox/frontend"
)

//go:embed build/appicon.png
var icon []byte

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	trace.Mark("main")
	cmd := commands.Start(version)
	switch cmd.Mode {
	case cli.ModeToolCheck:
		os.Exit(toolcontract.CheckCommand(cmd.Rest, os.Stdout, os.Stderr))
	case cli.ModeServe:
		os.Exit(serve(cmd))
	default:
		os.Exit(runDesktop(cmd))
	}
}

// openHost resolves the folders from flags, environment and defaults, and opens the host on them.
func openHost(cmd cli.Command, o host.Options) (*host.Host, error) {
	paths, err := config.Resolve(cmd.Workspace, cmd.Data, nil)
	if err != nil {
		return nil, err
	}
	o.Version = version
	return host.New(paths, o)
}

// serveTokenEnv names the environment variable that sets `voicebox serve`'s secret (else it is random).
const serveTokenEnv = "VOICEBOX_SERVE_TOKEN"

// serve runs the room for a browser until interrupted.
func serve(cmd cli.Command) int {
	ln, err := host.Listen(cmd.Addr)
	if err != nil {
		return fail(err)
	}
	h, err := openHost(cmd, host.ServeOptions(ln))
	if err != nil {
		return fail(err)
	}
	defer h.Close()
	secret := os.Getenv(serveTokenEnv)
	if secret == "" {
		secret = httpapi.NewSecret()
	}
	h.StartMCP(cmd.MCP, "serve", version)
	defer h.StopMCP() // removes the discovery file
	if st := h.MCP.Status(); st.Running && st.URL != "" {
		fmt.Printf("Voicebox MCP: %s (`voicebox mcp --print-config` prints a client config)\n", st.URL)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = h.Serve(ctx, ln, frontend.Room(), secret, func(url string) {
		fmt.Printf("Voicebox room: %s\n", url)
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		return fail(err)
	}
	return 0
}

func fail(err error) int { return commands.Fail(err) }
