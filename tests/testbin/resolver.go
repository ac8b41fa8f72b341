package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// resolverShim wraps the C library's getaddrinfo: every host name a process (or a child it starts, such as
// WebKit's network process) asks to resolve is appended to $VOICEBOX_RESOLVE_LOG, then resolved as usual.
const resolverShim = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res) {
	static int (*real)(const char *, const char *, const struct addrinfo *, struct addrinfo **);
	if (!real) real = dlsym(RTLD_NEXT, "getaddrinfo");
	const char *log = getenv("VOICEBOX_RESOLVE_LOG");
	if (log && node) {
		int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0600);
		if (fd >= 0) {
			char line[300];
			int n = snprintf(line, sizeof line, "%.290s\n", node);
			if (n > 0) write(fd, line, n);
			close(fd);
		}
	}
	return real(node, service, hints, res);
}
`

// Resolver is a record of the host names that processes started with its Env looked up.
type Resolver struct {
	Env []string // LD_PRELOAD and VOICEBOX_RESOLVE_LOG, to add to a command's environment
	log string
}

// ResolverLog builds the getaddrinfo shim with the C compiler (the one cgo uses) and returns the
// environment that records lookups. WebKitGTK resolves through getaddrinfo (GLib's resolver), so this is
// the DNS record for WebKit what Chromium's --log-net-log is for Chromium.
func ResolverLog(t testing.TB) *Resolver {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Fatalf("cc is missing (Debian package gcc): the resolver log is a small C library")
	}
	dir := t.TempDir()
	src, lib := filepath.Join(dir, "resolve.c"), filepath.Join(dir, "resolve.so")
	if err := os.WriteFile(src, []byte(resolverShim), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-o", lib, src, "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("building the resolver log: %v\n%s", err, out)
	}
	r := &Resolver{log: filepath.Join(dir, "lookups.log")}
	r.Env = []string{"LD_PRELOAD=" + lib, "VOICEBOX_RESOLVE_LOG=" + r.log}
	return r
}

// Names returns every host name looked up so far, in order.
func (r *Resolver) Names() []string {
	b, _ := os.ReadFile(r.log)
	return strings.Fields(string(b))
}
