//go:build unix

package documents

import "syscall"

// openFlags keep a FIFO swapped in for an opened file from blocking the open; Read then refuses it.
const openFlags = syscall.O_RDONLY | syscall.O_NONBLOCK
