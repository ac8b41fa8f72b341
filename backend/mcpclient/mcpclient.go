// Package mcpclient makes Voicebox an MCP Apps host (SEP-1865, stable 2026-01-26): it runs the person's MCP
// servers, offers their tools to the voice by name, and reads their views (the ui:// HTML resources) for
// the room to show as mini-apps. See docs/mcp-apps.md.
//
// What lives here:
//
//   - the list of servers, <data>/mcp-servers.json (the "mcpServers" shape of Claude Desktop), read,
//     validated and written atomically with mode 0600 (config.go), and an import of Claude Desktop's own
//     file that runs only when called (claude.go);
//   - the Manager, which starts the servers the list turns on (stdio or Streamable HTTP), shows each one's
//     state, restarts a crashed one a bounded number of times, refreshes tools on tools/list_changed and
//     stops every server it started on Close (manager.go);
//   - each server tool as Voicebox sees it: its visibility ("model", "app"), its view, its input schema
//     compiled once with jsonschema/v5 (tools.go), the name the voice calls it by and a declaration each
//     voice provider accepts (declare.go);
//   - views read with resources/read: text or base64 blob, text/html;profile=mcp-app, and their _meta.ui
//     (CSP domains, permissions, domain, prefersBorder), bounded by MaxViewBytes (views.go).
//
// Nothing here starts a server because an app, a view or a model asked: only the person's list does.
// Refusals are *toolcontract.Refusal with codes from toolcontract or the Code* constants below.
package mcpclient

import (
	"time"

	"github.com/voicebox/voicebox/backend/mcpdoor"
)

// FileName is the list of servers inside the data folder.
const FileName = "mcp-servers.json"

// UIExtension is the MCP Apps extension's identifier, negotiated in capabilities.extensions.
const UIExtension = "io.modelcontextprotocol/ui"

// ViewMIMEType is the one content type of a view this host renders.
const ViewMIMEType = "text/html;profile=mcp-app"

// ProtocolVersion is what the client asks for in initialize: the newest session-based version, as the
// door does (mcpdoor.ProtocolVersions), so every server sees an initialize carrying the ui extension and
// keeps a stream open for tools/list_changed. Newer servers negotiate down to it.
var ProtocolVersion = mcpdoor.ProtocolVersions[0]

// Bounds (docs/mcp-apps.md, "Bounds").
const (
	// MaxViewBytes bounds a view's HTML after base64 decoding. Views are 0.2–0.5 MB in practice and several
	// MB must open; 8 MiB leaves room while one base64 message (4/3 of it, plus JSON) stays under
	// MaxMessageBytes.
	MaxViewBytes = 8 << 20
	// MaxMessageBytes bounds one message from a server: the Go SDK's own frame bound on stdio and SSE, and
	// ours on a plain JSON response of Streamable HTTP.
	MaxMessageBytes = 16 << 20
	// MaxResultBytes bounds a tool result (as JSON) that CallTool hands on. A voice answer has its own,
	// smaller budget (toolcontract.MaxOutputBytes); a view may take more.
	MaxResultBytes = 1 << 20
	// MaxFileBytes bounds mcp-servers.json (and Claude Desktop's file) when read.
	MaxFileBytes = 1 << 20
	// MaxServers bounds the list.
	MaxServers = 64
	// MaxToolsPerServer bounds how many tools of one server are kept; the rest are ignored (the state says so).
	MaxToolsPerServer = 256
	// MaxSchemaBytes bounds one tool's input schema; a larger one makes the tool uncallable.
	MaxSchemaBytes = 256 << 10
	// MaxDescriptionBytes bounds a tool's description as declared to a voice provider (cut, not refused).
	MaxDescriptionBytes = 2048
	// MaxStderrBytes is how much of a stdio server's stderr is kept (the newest bytes).
	MaxStderrBytes = 64 << 10
	// StderrTailLines is how many of its last lines Status shows.
	StderrTailLines = 40
	// MaxDomains bounds each list of CSP domains in a view's _meta.ui or a consent.
	MaxDomains = 32
)

// Defaults of Options.
const (
	// DefaultMaxRestarts is how many times a crashed server is started again before it stays failed
	// until the person restarts it.
	DefaultMaxRestarts = 3
	// DefaultConnectTimeout is a backstop for a server's start (a first npx run downloads its package).
	DefaultConnectTimeout = 2 * time.Minute
	// DefaultCallTimeout bounds one tools/call or resources/read when the caller's context has no deadline.
	DefaultCallTimeout = 2 * time.Minute
	// DefaultStopGrace is how long a stdio server has to exit after its stdin closes, and again after
	// SIGTERM, before its process group is killed.
	DefaultStopGrace = 2 * time.Second
)

// Refusal codes of this package, beside toolcontract's (unknown-tool, the argument codes, tool-timeout,
// output-over-budget, cancelled, invalid-tool-arguments). The room's sentences for them belong in
// frontend/room/src/errortext.js.
const (
	CodeServerInvalid  = "mcp-server-invalid"   // a server's entry in the list is not valid (path says where)
	CodeServerExists   = "mcp-server-exists"    // Add with a name the list already has
	CodeServerUnknown  = "mcp-server-unknown"   // no server of that name in the list
	CodeServerNotReady = "mcp-server-not-ready" // the server is starting, failed or turned off
	CodeServerError    = "mcp-server-error"     // the server answered a request with an error, or went away during it
	CodeServersFile    = "mcp-servers-file"     // mcp-servers.json could not be read or written
	CodeNotVisible     = "mcp-tool-not-visible" // the tool's visibility does not include this caller
	CodeCrossServer    = "mcp-cross-server"     // a view asked for another server's tool or view
	CodeToolUnusable   = "mcp-tool-unusable"    // the tool's input schema does not compile (its Problem says why)
	CodeViewInvalid    = "mcp-view-invalid"     // not a ui:// view of text/html;profile=mcp-app with text or blob
	CodeViewTooLarge   = "mcp-view-too-large"   // the view is over MaxViewBytes
	CodeImportNotFound = "mcp-import-not-found" // no Claude Desktop configuration where it would be
)

// Codes lists this package's refusal codes (for the room's table of sentences).
func Codes() []string {
	return []string{CodeServerInvalid, CodeServerExists, CodeServerUnknown, CodeServerNotReady, CodeServerError,
		CodeServersFile, CodeNotVisible, CodeCrossServer, CodeToolUnusable, CodeViewInvalid, CodeViewTooLarge,
		CodeImportNotFound}
}

// Caller says who asks the Manager to call a tool: an agent (the voice model, or an MCP client through the
// door), which may call only tools whose visibility includes "model", or a view of one server, which may
// call only that server's tools whose visibility includes "app".
type Caller struct {
	// View is the server whose view asks; "" means the model.
	View string
}

// Model is the caller for the voice model (and agents like it).
var Model = Caller{}

// ViewOf is the caller for a view of server.
func ViewOf(server string) Caller { return Caller{View: server} }

// IsView reports whether the caller is a view.
func (c Caller) IsView() bool { return c.View != "" }
