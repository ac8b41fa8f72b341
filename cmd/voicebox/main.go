// Command voicebox is the program people, their desktops and MCP clients start. It runs help, version and
// `voicebox mcp` itself (backend/commands); for the window it first offers the launch's files to the window
// already running, and for that and everything else (serve, tool check) it becomes the window's program,
// voicebox-desktop, in the same process (execve: the same process id, arguments and environment). It links
// neither GTK nor WebKitGTK, whose ~170 libraries cost the dynamic loader ~100 ms of CPU at every start: so
// `voicebox mcp`, which MCP clients start for each session, and a second launch no longer pay it
// (docs/architecture.md, "Two programs").
package main

import (
	"os"
	"syscall"

	"github.com/voicebox/voicebox/backend/cli"
	"github.com/voicebox/voicebox/backend/commands"
	"github.com/voicebox/voicebox/backend/programs"
	"github.com/voicebox/voicebox/backend/trace"
)

// version is set at build time with -ldflags "-X main.version=…", as the window's program's is.
var version = "dev"

func main() {
	trace.Mark("front")
	cmd := commands.Start(version)
	if cmd.Mode == cli.ModeDesktop {
		_, handed, err := commands.HandOver(cmd)
		if err != nil {
			os.Exit(commands.Fail(err))
		}
		if handed {
			os.Exit(0)
		}
		commands.Offered()
	}
	os.Exit(commands.Fail(becomeWindow()))
}

// becomeWindow replaces this process with the window's program, with the same arguments and environment;
// it returns only when it could not.
func becomeWindow() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	prog, err := programs.WindowPath(self)
	if err != nil {
		return err
	}
	return syscall.Exec(prog, append([]string{prog}, os.Args[1:]...), os.Environ())
}
