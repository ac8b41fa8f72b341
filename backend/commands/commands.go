// Package commands runs what both of Voicebox's programs run themselves (backend/programs): help, version,
// `voicebox mcp`, and a window start's offer of its files to the window already running. It links no
// server and no window, so voicebox, the program people and MCP clients start (cmd/voicebox), starts in
// milliseconds; the window's program runs the rest (main.go).
package commands

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/voicebox/voicebox/backend/cli"
	"github.com/voicebox/voicebox/backend/config"
	"github.com/voicebox/voicebox/backend/instance"
	"github.com/voicebox/voicebox/backend/mcpproxy"
)

// Start reads the command line and runs it if it is help, version or mcp, then exits; it returns the
// command for the program to run when it is anything else. A command line it cannot read exits 2 with the
// usage.
func Start(version string) cli.Command {
	cmd, err := cli.Parse(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "voicebox: %v\n\n%s", err, cli.Usage)
		os.Exit(2)
	}
	if code, ran := run(cmd, version); ran {
		os.Exit(code)
	}
	return cmd
}

// run runs cmd if it is help, version or mcp, and reports whether it did and with which exit code.
func run(cmd cli.Command, version string) (code int, ran bool) {
	switch cmd.Mode {
	case cli.ModeHelp:
		fmt.Print(cli.Usage)
	case cli.ModeVersion:
		fmt.Println("voicebox", version)
	case cli.ModeMCP:
		return runMCP(cmd, version), true
	default:
		return 0, false
	}
	return 0, true
}

// runMCP is `voicebox mcp`: MCP over stdio, forwarded to the Voicebox running on the same data folder, or
// with --print-config[=http] a ready client config. Nothing but MCP (or the config) may go to stdout.
func runMCP(cmd cli.Command, version string) int {
	paths, err := config.Resolve(cmd.Workspace, cmd.Data, nil)
	if err != nil {
		return Fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return mcpproxy.Command(ctx, paths.Data, cmd.PrintMCP, version, os.Stdin, os.Stdout, os.Stderr)
}

// Window is where a window's start stands once no running window took its files: its folders, the
// working folder its files are relative to, and its single-instance key (instance.ID).
type Window struct {
	Paths config.Paths
	Cwd   string
	ID    string
}

// offeredEnv tells the window's program that voicebox offered this launch's files already (and no window
// took them), so it does not ask the session bus again. Only a shortcut: Wails' own single-instance lock
// still hands a second window's files over.
const offeredEnv = "VOICEBOX_FILES_OFFERED"

// HandOver resolves the folders of a window's start and offers this process's command line to the window
// already running on the same data folder, unless voicebox did (offeredEnv). handed is true when that
// window took it: this launch is done.
func HandOver(cmd cli.Command) (w Window, handed bool, err error) {
	paths, err := config.Resolve(cmd.Workspace, cmd.Data, nil)
	if err != nil {
		return Window{}, false, err
	}
	cwd, _ := os.Getwd()
	w = Window{Paths: paths, Cwd: cwd, ID: instance.ID(paths.Data)}
	if os.Getenv(offeredEnv) == "1" {
		os.Unsetenv(offeredEnv) // not for the processes the window starts
		return w, false, nil
	}
	if instance.HandOver(w.ID, os.Args[1:], cwd) {
		log.Printf("handed %d file(s) to the Voicebox already running on %s", len(cmd.Files), paths.Data)
		return w, true, nil
	}
	return w, false, nil
}

// Fail prints err as the program's error and returns the exit code for it.
func Fail(err error) int {
	fmt.Fprintf(os.Stderr, "voicebox: %v\n", err)
	return 1
}

// Offered marks this process's environment for the window's program it becomes: its files were offered.
func Offered() { os.Setenv(offeredEnv, "1") }
