// Voicebox: a desktop room for untrusted HTML mini-apps driven by a voice assistant.
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
	"github.com/voicebox/voicebox/backend/config"
	"github.com/voicebox/voicebox/backend/host"
	"github.com/voicebox/voicebox/backend/httpapi"
	"github.com/voicebox/voicebox/backend/mcpserver"
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
	cmd, err := cli.Parse(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "voicebox: %v\n\n%s", err, cli.Usage)
		os.Exit(2)
	}
	switch cmd.Mode {
	case cli.ModeHelp:
		fmt.Print(cli.Usage)
	case cli.ModeVersion:
		fmt.Println("voicebox", version)
	case cli.ModeToolCheck:
		os.Exit(toolcontract.CheckCommand(cmd.Rest, os.Stdout, os.Stderr))
	case cli.ModeServe:
		os.Exit(serve(cmd))
	case cli.ModeMCP:
		os.Exit(runMCP(cmd))
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
	if st := h.MCP.Status(); st.Running {
		fmt.Printf("Voicebox MCP: %s (bearer token in Settings › MCP; `voicebox mcp --print-config` prints a client config)\n", st.URL)
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

// runMCP is `voicebox mcp`: MCP over stdio, forwarded to the Voicebox running on the same data folder, or
// with --print-config a ready client config. Nothing but MCP may go to stdout.
func runMCP(cmd cli.Command) int {
	paths, err := config.Resolve(cmd.Workspace, cmd.Data, nil)
	if err != nil {
		return fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mcpserver.Command(ctx, paths.Data, cmd.PrintMCP, version, os.Stdin, os.Stdout, os.Stderr)
}

func fail(err error) int {
	fmt.Fprintf(os.Stderr, "voicebox: %v\n", err)
	return 1
}
