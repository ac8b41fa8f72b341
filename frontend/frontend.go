// Package frontend holds the room: the trusted page people use. It is plain HTML, CSS and ES modules with
// no build step, served by Wails in the desktop and by `voicebox serve` to a browser. The sandbox's bridge
// and SDK are not here: they run on a foreign origin and live with the asset server in backend/sandbox.
package frontend

import (
	"embed"
	"io/fs"
)

//go:embed all:room
var files embed.FS

// Room returns the room's files, index.html at the top.
func Room() fs.FS {
	sub, err := fs.Sub(files, "room")
	if err != nil {
		panic(err) // the embed pattern above guarantees the folder
	}
	return sub
}
