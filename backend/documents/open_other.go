//go:build !unix

package documents

import "os"

const openFlags = os.O_RDONLY
