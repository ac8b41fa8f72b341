//go:build linux && cgo

package guard

/*
#cgo pkg-config: webkit2gtk-4.1 gtk+-3.0
#include <stdlib.h>
#include "guard.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"time"
	"unsafe"

	"github.com/voicebox/voicebox/backend/guard/internal/procs"
)

// Install must be called on the main goroutine before wails.Run. It only
// registers a GTK emission hook; the guard takes effect when Wails packs its
// web view, before the first navigation. Active reports whether it did.
func Install(o Options) error {
	if !installed.CompareAndSwap(false, true) {
		return errors.New("guard: Install called twice")
	}
	origin, err := normalizeOrigin(o.RoomOrigin)
	if err != nil {
		installed.Store(false)
		return err
	}
	o.RoomOrigin = origin
	opts = o
	if o.Disabled {
		logf("DISABLED (%s=1): every frame can post Wails IPC", UnsafeNoGuardEnv)
		return nil
	}
	ping := durMS(o.PingInterval, 100*time.Millisecond)
	hang := durMS(o.HangAfter, 2*time.Second)
	if ping == 0 || hang == 0 {
		ping, hang = 0, 0
	}
	hangCPU := durMS(o.HangCPU, time.Second)

	js := scriptsFor(origin)
	var cstrs []*C.char
	cs := func(s string) *C.char { c := C.CString(s); cstrs = append(cstrs, c); return c }
	defer func() {
		for _, c := range cstrs {
			C.free(unsafe.Pointer(c))
		}
	}()
	mock := C.int(0)
	if os.Getenv(MockCaptureEnv) == "1" {
		mock = 1
	}
	waitsCount := C.int(0)
	if o.CPUWaitCounts {
		waitsCount = 1
	}
	if rc := C.vbg_install(cs(origin), cs(worldName), cs(js.forwarder), cs(js.page), cs(js.takeMic), mock, C.uint(ping), C.uint(hang), C.uint(hangCPU), waitsCount, C.uint(CrashRestarts)); rc != 0 {
		return fmt.Errorf("guard: could not install the GTK hook (%d)", int(rc))
	}
	return nil
}

//export voiceboxGuardState
func voiceboxGuardState(ok C.int) {
	active.Store(ok != 0)
	if ok != 0 {
		logf("active: IPC confined to %s", opts.RoomOrigin)
	} else {
		logf("NOT active: IPC is off")
	}
}

//export voiceboxGuardLog
func voiceboxGuardLog(msg *C.char) {
	logf("%s", C.GoString(msg))
}

//export voiceboxGuardExternal
func voiceboxGuardExternal(uri *C.char) {
	go external(C.GoString(uri))
}

//export voiceboxGuardRecovering
func voiceboxGuardRecovering(reason *C.char) {
	recovering(C.GoString(reason))
}

//export voiceboxGuardGaveUp
func voiceboxGuardGaveUp() {
	go gaveUp()
}

//export voiceboxGuardFileDrop
func voiceboxGuardFileDrop(paths **C.char, n C.int) {
	list := make([]string, 0, int(n))
	for _, p := range unsafe.Slice(paths, int(n)) {
		list = append(list, C.GoString(p))
	}
	go fileDrop(list)
}

// webProcessName is how /proc names WebKitGTK's web processes (15 bytes at most).
const webProcessName = "WebKitWebProces"

// webWaits is the watchdog's look at the web processes from one tick to the next (GTK thread only).
var webWaits procs.WaitWatch

// voiceboxGuardWebSample tells the watchdog how long the web processes' main threads have run on a CPU
// (*ranMS) and whether any of their threads waits for a CPU or the disk (*waiting). 0: no web process.
//
//export voiceboxGuardWebSample
func voiceboxGuardWebSample(ranMS *C.longlong, waiting *C.int) C.int {
	pids := procs.Children(os.Getpid(), webProcessName)
	var ran time.Duration
	found := false
	for _, pid := range pids {
		if d, ok := procs.MainThreadCPU(pid); ok {
			ran += d
			found = true
		}
	}
	if !found {
		return 0
	}
	*ranMS, *waiting = C.longlong(ran.Milliseconds()), 0
	if webWaits.Waiting(pids) {
		*waiting = 1
	}
	return 1
}

// WebMemory is how much of the web processes' memory is in RAM now (their resident sets, bytes): what the
// watchdog tells the person a web process held before it failed (backend/recovery). ok is false when there
// is no web process. It reads /proc only: any goroutine may call it.
func WebMemory() (bytes int64, ok bool) {
	for _, pid := range procs.Children(os.Getpid(), webProcessName) {
		if n, found := procs.Resident(pid); found {
			bytes, ok = bytes+n, true
		}
	}
	return bytes, ok
}

//export voiceboxGuardDownloadLimit
func voiceboxGuardDownloadLimit() C.ulonglong { return C.ulonglong(opts.MaxDownloadBytes) }

// voiceboxGuardDownload hands Go a download by navigation (blobdownload.c): the path of its bytes, which Go
// owns from here with the private folder they are in, and the name WebKit suggested; or a refusal.
//
//export voiceboxGuardDownload
func voiceboxGuardDownload(path, name, code, message *C.char) {
	d := Download{Path: cstr(path), Name: cstr(name), Refused: cstr(code), Message: cstr(message)}
	go download(d)
}

func cstr(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

//export voiceboxGuardRecovered
func voiceboxGuardRecovered(ms C.int) {
	go recovered()
}
