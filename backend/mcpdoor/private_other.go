//go:build !unix

package mcpdoor

// checkPrivate has no owner and mode to read where files have no Unix modes (Windows: the folder's ACL,
// inherited from the person's profile, decides; docs/platforms.md).
func checkPrivate(string) error { return nil }
