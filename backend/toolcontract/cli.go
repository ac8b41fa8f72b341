package toolcontract

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxCheckFile bounds what the CLI reads from one file or stdin (a
// declaration or arguments far larger than any limit are refused anyway).
const maxCheckFile = 4 << 20

const checkUsage = `usage: voicebox tool check TOOL.json [--args ARGS.json]

Validates a Web MCP tool declaration (and, with --args, a JSON arguments
object against it) exactly as the Voicebox host does. Use - for stdin.
Prints one JSON line: {"ok":true} or
{"ok":false,"refused":"<code>","path":"<json pointer>","message":"..."}.
Exit status: 0 ok, 1 refused, 2 usage or file error.
`

// CheckCommand implements `voicebox tool check TOOL.json [--args ARGS.json]`.
// args are the arguments after "tool check". Stdin is os.Stdin.
func CheckCommand(args []string, stdout, stderr io.Writer) int {
	return checkCommand(args, os.Stdin, stdout, stderr)
}

func checkCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var toolPath, argsPath string
	haveArgs := false
	usage := func(format string, a ...any) int {
		if format != "" {
			fmt.Fprintf(stderr, "voicebox tool check: "+format+"\n", a...)
		}
		fmt.Fprint(stderr, checkUsage)
		return 2
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help" || a == "-help":
			fmt.Fprint(stdout, checkUsage)
			return 0
		case a == "--args" || a == "-args":
			if i+1 >= len(args) {
				return usage("--args needs a file")
			}
			if haveArgs {
				return usage("--args given twice")
			}
			i++
			argsPath, haveArgs = args[i], true
		case strings.HasPrefix(a, "--args=") || strings.HasPrefix(a, "-args="):
			if haveArgs {
				return usage("--args given twice")
			}
			argsPath, haveArgs = a[strings.IndexByte(a, '=')+1:], true
		case a == "--":
			if i+1 != len(args)-1 || toolPath != "" {
				return usage("expected exactly one TOOL.json")
			}
			toolPath = args[i+1]
			i++
		case strings.HasPrefix(a, "-") && a != "-":
			return usage("unknown flag %s", a)
		default:
			if toolPath != "" {
				return usage("expected exactly one TOOL.json")
			}
			toolPath = a
		}
	}
	if toolPath == "" {
		return usage("missing TOOL.json")
	}
	if haveArgs && argsPath == "" {
		return usage("--args needs a file")
	}
	if toolPath == "-" && argsPath == "-" {
		return usage("only one of TOOL.json and ARGS.json can be stdin")
	}
	read := func(path string) ([]byte, error) {
		var r io.Reader = stdin
		if path != "-" {
			f, err := os.Open(path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			r = f
		}
		b, err := io.ReadAll(io.LimitReader(r, maxCheckFile+1))
		if err == nil && len(b) > maxCheckFile {
			err = fmt.Errorf("%s: larger than %d bytes", path, maxCheckFile)
		}
		return b, err
	}
	toolRaw, err := read(toolPath)
	if err != nil {
		fmt.Fprintf(stderr, "voicebox tool check: %v\n", err)
		return 2
	}
	var argsRaw []byte
	if haveArgs {
		if argsRaw, err = read(argsPath); err != nil {
			fmt.Fprintf(stderr, "voicebox tool check: %v\n", err)
			return 2
		}
	}
	tool, r := ValidateTool(toolRaw)
	if r == nil && haveArgs {
		r = tool.ValidateArgs(argsRaw)
	}
	type result struct {
		OK bool `json:"ok"`
		*Refusal
	}
	line, _ := json.Marshal(result{OK: r == nil, Refusal: r})
	fmt.Fprintf(stdout, "%s\n", line)
	if r != nil {
		return 1
	}
	return 0
}
