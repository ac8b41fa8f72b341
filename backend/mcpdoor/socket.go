package mcpdoor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// The stdio form's channel (docs/sandbox.md, "Ports and credentials"). `voicebox mcp` reaches the running
// Voicebox through a Unix socket in a folder of the data folder that only this user may enter, not through
// the TCP port: a port is anyone's to take once Voicebox lets it go (a crash leaves the discovery file
// behind), and any local user can connect to one. The folder's mode (0700) decides who can open the
// socket; the forwarder checks that mode and its owner before it sends anything, and never falls back to
// the TCP port when the socket does not answer.

// SocketHost is the Host of requests over the socket (the server checks it as it checks a port's).
const SocketHost = "voicebox-mcp.sock"

// SocketDir is the private folder (0700) that holds the MCP server's socket.
func SocketDir(dataDir string) string { return filepath.Join(dataDir, "sockets") }

// SocketPath is the MCP server's socket.
func SocketPath(dataDir string) string { return filepath.Join(SocketDir(dataDir), "mcp.sock") }

// ListenSocket opens the MCP server's socket: SocketDir made (or made again) 0700, a socket that no server
// answers any more (one that died) replaced, the socket itself 0600. A socket that answers belongs to
// another Voicebox on the same data folder, which keeps it.
func ListenSocket(dataDir string) (net.Listener, error) {
	dir := SocketDir(dataDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	if err := checkPrivate(dir); err != nil {
		return nil, err
	}
	path := SocketPath(dataDir)
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("mcp: %s is not a socket; remove it", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("mcp: another Voicebox serves MCP on this data folder (%s)", path)
		}
		_ = os.Remove(path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("mcp: the socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("mcp: %w", err)
	}
	return ln, nil
}

// SocketTransport reaches the socket at path, whatever the request's URL names; it checks first that the
// socket's folder is this user's alone.
func SocketTransport(path string) (http.RoundTripper, error) {
	if err := checkPrivate(filepath.Dir(path)); err != nil {
		return nil, err
	}
	t := pooled.Clone()
	t.Proxy = nil
	t.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
	return t, nil
}

// errNotPrivate refuses a socket folder another user could enter or replace.
var errNotPrivate = errors.New("is not this user's alone (owner, mode 0700)")
