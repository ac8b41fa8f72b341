package main

import (
	"fmt"
	"log"
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/voicebox/voicebox/backend/events"
	"github.com/voicebox/voicebox/frontend"
)

// The window's menu. Its items and accelerators come from the room's one list of shortcuts
// (frontend/room/shortcuts.json): each entry with a "menu" is an item of that menu, in the list's order.
// The items Go does itself (the native dialogs, Save, Quit) run here; every other one is sent to the room
// as a menu:shortcut event, which runs it as the same key does in `voicebox serve` (room/src/shortcuts.js).
// A menu accelerator reaches the window even while a mini-app has the keyboard.

// menuBreaks are the items a separator goes before.
var menuBreaks = map[string]bool{"save-page": true, "settings": true, "quit": true}

func (a *App) menu() *menu.Menu {
	list, err := frontend.Shortcuts()
	if err != nil {
		log.Printf("menu: %v", err) // frontend's tests keep the embedded list valid
	}
	native := map[string]func(){
		"open-folder": func() { a.openFolder() },
		"open-file":   func() { a.openFiles() },
		// the only way, beside a folder dropped or named on the command line, that a page owns the files
		// beside it outside the workspace (docs/sandbox.md, "Folder apps")
		"open-folder-app": func() { a.openFolderApp() },
		"save-page":       func() { a.host.Bus.Publish(events.SavePage, nil) },
		"quit":            func() { runtime.Quit(a.ctx) },
	}
	items := func(name string) *menu.Menu {
		sub := menu.NewMenu()
		for _, s := range list {
			if s.Menu != name {
				continue
			}
			if menuBreaks[s.ID] && len(sub.Items) > 0 {
				sub.AddSeparator()
			}
			run := native[s.ID]
			if run == nil {
				id := s.ID
				run = func() { a.host.Bus.Publish(events.MenuShortcut, map[string]string{"id": id}) }
			}
			sub.AddText(menuLabel(s), accelerator(s), func(*menu.CallbackData) { run() })
		}
		return sub
	}
	m := menu.NewMenu()
	m.Append(menu.SubMenu("File", items("File")))
	m.Append(a.editMenu())
	m.Append(menu.SubMenu("View", items("View")))
	help := items("Help")
	help.AddText("About Voicebox", nil, func(*menu.CallbackData) {
		_, _ = runtime.MessageDialog(a.ctx, runtime.MessageDialogOptions{
			Type:    runtime.InfoDialog,
			Title:   "About Voicebox",
			Message: fmt.Sprintf("Voicebox %s\nA room for untrusted HTML mini-apps, driven by voice.\n\nWorkspace: %s\nData: %s", version, a.host.Store.Workspace(), a.host.Paths.Data),
		})
	})
	m.Append(menu.SubMenu("Help", help))
	return m
}

// menuLabel is an item's label: the list's, without what it adds in parentheses.
func menuLabel(s frontend.Shortcut) string {
	if i := strings.Index(s.Label, " ("); i > 0 {
		return s.Label[:i]
	}
	return s.Label
}

// accelerator turns "Ctrl+Shift+O" into Wails' accelerator (Ctrl is Cmd on macOS); nil when it cannot.
func accelerator(s frontend.Shortcut) *keys.Accelerator {
	mods, key, err := s.Split()
	if err != nil {
		return nil
	}
	spec := make([]string, 0, len(mods)+1)
	for _, m := range mods {
		spec = append(spec, map[string]string{"Ctrl": "cmdorctrl", "Alt": "optionoralt", "Shift": "shift"}[m])
	}
	acc, err := keys.Parse(strings.Join(append(spec, strings.ToLower(key)), "+"))
	if err != nil {
		return nil
	}
	return acc
}

// editMenu is the platform's own Edit menu on macOS. Elsewhere Wails has no roles, so the items run the
// editing command in the room; they carry no accelerators, so Ctrl+C and friends still reach the webview
// (and the mini-app that has focus) untouched.
func (a *App) editMenu() *menu.MenuItem {
	if goruntime.GOOS == "darwin" {
		return menu.EditMenu()
	}
	edit := menu.NewMenu()
	for _, item := range []struct{ label, command string }{
		{"Undo", "undo"}, {"Redo", "redo"}, {"", ""},
		{"Cut", "cut"}, {"Copy", "copy"}, {"Paste", "paste"}, {"", ""}, {"Select All", "selectAll"},
	} {
		if item.label == "" {
			edit.AddSeparator()
			continue
		}
		command := item.command
		edit.AddText(item.label, nil, func(*menu.CallbackData) {
			runtime.WindowExecJS(a.ctx, "document.execCommand("+strconv.Quote(command)+")")
		})
	}
	return menu.SubMenu("Edit", edit)
}
