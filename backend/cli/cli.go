// Package cli turns the command line into a Command. It knows nothing of windows or servers: main.go decides
// what to run from the Command it gets back.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Mode is what the binary was asked to do.
type Mode string

const (
	ModeDesktop   Mode = "desktop"    // the window (no subcommand)
	ModeServe     Mode = "serve"      // the room over HTTP, no window
	ModeToolCheck Mode = "tool-check" // voicebox tool check TOOL.json [--args ARGS.json]
	ModeMCP       Mode = "mcp"        // MCP over stdio, forwarding to the running app
	ModeHelp      Mode = "help"
	ModeVersion   Mode = "version"
)

// DefaultAddr is where `voicebox serve` listens unless told otherwise.
const DefaultAddr = "127.0.0.1:8787"

// Command is a parsed command line.
type Command struct {
	Mode      Mode
	Workspace string   // --workspace
	Data      string   // --data
	Addr      string   // serve: --addr
	MCP       bool     // --mcp: also open the MCP door
	Files     []string // desktop: files to open
	Rest      []string // tool check: its own arguments, passed through untouched
	PrintMCP  string   // mcp --print-config: "stdio" (the flag alone), or "http" (--print-config=http); "" without it
}

// ErrUsage marks a command line that cannot be understood; main prints Usage and exits 2.
var ErrUsage = errors.New("usage")

// Usage is printed for --help and for a command line that cannot be understood.
const Usage = `Voicebox: a desktop room for untrusted HTML mini-apps, driven by voice.

  voicebox [--workspace DIR] [--data DIR] [--mcp] [FILE.html | FOLDER ...]
      open the window (files open as mini-apps, a folder as the app of its index.html
      with the files beside it; a running window takes them instead)
  voicebox serve [--addr 127.0.0.1:8787] [--workspace DIR] [--data DIR] [--mcp]
      serve the same room to a browser, with no window
  voicebox tool check TOOL.json [--args ARGS.json]
      check a tool declaration (and arguments) as the host would; prints one JSON line
  voicebox mcp [--data DIR] [--print-config[=http]]
      speak MCP over stdio to the running Voicebox; --print-config prints a client config that runs this
      (it holds no token); =http prints one with the URL and the lasting token, for clients that take a
      URL only (whatever program holds that port while Voicebox does not receives the token)

Environment: VOICEBOX_WORKSPACE, VOICEBOX_DATA_DIR, VOICEBOX_SANDBOX_HOMES (a path list).
`

// Parse reads the arguments after the program name.
func Parse(args []string) (Command, error) {
	if len(args) > 0 {
		switch args[0] {
		case "serve":
			return parseFlags(ModeServe, args[1:], false)
		case "mcp":
			return parseFlags(ModeMCP, args[1:], false)
		case "tool":
			if len(args) < 2 || args[1] != "check" {
				return Command{}, fmt.Errorf("%w: voicebox tool check TOOL.json [--args ARGS.json]", ErrUsage)
			}
			return Command{Mode: ModeToolCheck, Rest: append([]string(nil), args[2:]...)}, nil
		case "help", "-h", "--help", "-help":
			return Command{Mode: ModeHelp}, nil
		case "version", "--version", "-version":
			return Command{Mode: ModeVersion}, nil
		}
	}
	return parseFlags(ModeDesktop, args, true)
}

// parseFlags accepts flags anywhere among the positional arguments, since a desktop launcher passes
// files (Exec=voicebox %F) after whatever flags a person put in front.
func parseFlags(mode Mode, args []string, allowFiles bool) (Command, error) {
	c := Command{Mode: mode}
	fs := flag.NewFlagSet(string(mode), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.Workspace, "workspace", "", "")
	fs.StringVar(&c.Data, "data", "", "")
	fs.BoolVar(&c.MCP, "mcp", false, "")
	if mode == ModeServe {
		fs.StringVar(&c.Addr, "addr", DefaultAddr, "")
	}
	if mode == ModeMCP {
		fs.Var((*printConfig)(&c.PrintMCP), "print-config", "")
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return Command{Mode: ModeHelp}, nil
			}
			return Command{}, fmt.Errorf("%w: %v", ErrUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if !allowFiles {
			return Command{}, fmt.Errorf("%w: unexpected argument %q", ErrUsage, args[0])
		}
		if args[0] == "--" { // everything after -- is a file, even if it looks like a flag
			c.Files = append(c.Files, args[1:]...)
			break
		}
		c.Files = append(c.Files, args[0])
		args = args[1:]
	}
	for _, f := range c.Files {
		if strings.TrimSpace(f) == "" {
			return Command{}, fmt.Errorf("%w: empty file name", ErrUsage)
		}
	}
	return c, nil
}

// printConfig is --print-config: alone it means the stdio form (a boolean flag's "true"); =http and =stdio
// name the form.
type printConfig string

func (p *printConfig) String() string   { return string(*p) }
func (p *printConfig) IsBoolFlag() bool { return true }

func (p *printConfig) Set(v string) error {
	switch v {
	case "true", "stdio":
		*p = "stdio"
	case "http":
		*p = "http"
	case "false":
		*p = ""
	default:
		return fmt.Errorf("--print-config=%s: the forms are stdio (the default) and http", v)
	}
	return nil
}
