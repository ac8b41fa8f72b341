// Package store discovers, classifies, looks up, saves and deletes Voicebox
// mini-apps and pages, by the rules below.
//
// # Roots and depth
//
// Three kinds of root are walked; only files whose name ends in ".html"
// (ASCII case-insensitive) are listed. Names starting with "." (hidden files,
// and the store's own temp files) are never listed, and hidden folders are
// never entered. "Level" below counts the folders between the root and the
// file: root/a.html is level 0, root/x/a.html level 1.
//
//   - Workspace (Roots.Workspace, switchable with SetWorkspace), depth ≤ 1:
//     files at level 0 and 1, i.e. in the workspace folder itself and in its
//     direct subfolders. workspace/x/y/a.html is not listed.
//   - Shelf (<Data>/mini-apps): <slug>.html files plus their <slug>.meta.json
//     records at level 0, and the copies of folder apps, <slug>/index.html
//     (level 1, nothing else there is listed). The folder is created lazily by
//     the first save.
//   - Sandbox roots (<Data>/sandboxes, always, plus Roots.SandboxRoots, e.g.
//     from VOICEBOX_SANDBOX_HOMES, read by backend/config): every direct
//     subfolder of a sandbox root is a sandbox home whose folder name is the
//     entry's Sandbox. Depth ≤ 2 relative to each home: home/a.html,
//     home/x/a.html and home/x/y/a.html are listed, home/x/y/z/a.html is not,
//     and a file directly in a sandbox root (not inside a home) is not listed.
//
// Scans read at most maxDirEntries (10,000) entries of any one folder, so a
// folder of 100,000 files costs what one of 10,000 does; pages past the
// bound are not listed (an app folder's index.html still is: it is looked up
// by name).
//
// A folder that is itself another root (for example a workspace that contains
// the shelf) belongs to that root only and is not walked twice. Roots that do
// not exist yet are allowed and are picked up when they appear (Watch).
//
// # Folder apps
//
// A page may come with files beside it (scripts, modules, styles, images,
// fonts, media, .wasm, JSON). A folder app is a folder that holds an
// index.html (FolderEntry) and sits where folders can be apps: a direct
// subfolder of the workspace (workspace/pizza/index.html: found because the
// workspace's depth is 1) or of the shelf (the copy a save made). It owns
// the whole folder and everything below it, and is listed once, by its
// index.html, named after the folder (slug, id, and title when the page has
// none); the folder's other pages are its own pages, not entries. Everything
// else owns nothing but itself: a page at the top of the workspace (even one
// called index.html: its siblings are other apps' files and the person's),
// a page in a subfolder without index.html, a single page on the shelf, and
// every sandbox page. The rule is the index.html, not the folder, so a
// person's folder of loose pages never hands one page the others.
//
// A file the person opened (backend/documents) owns its folder only when
// the person made that folder an app (DocumentFolder): they opened the
// folder itself (File › Open Folder as App…, a folder dropped on the window
// or named on the command line), or the index.html lies below the
// workspace, the shelf or a sandbox root. An index.html opened from
// anywhere else (~/Downloads) owns nothing but itself: the files beside it
// are the person's. An owned folder must still look like an app's
// (CheckAppFolder): not the home folder, not a file system root, and within
// the shelf-copy bounds below (walked without reading content).
//
// GetApp opens the folder once, at launch, through the root it was found
// in (os.Root.OpenRoot), so a folder later renamed or replaced by a link is
// not followed; Folder.Open then opens each file through it at request time
// (live edits show on reload) and decides from the open file: dotfiles and
// any ".." refused by name, links out of the folder and loops by os.Root,
// FIFOs opened without blocking and refused by type, files over
// MaxFolderFileBytes (32 MiB) refused unread. A file swapped for a link or a
// FIFO between a listing and a read is refused, since there is no separate
// check. A link inside the folder is served as its target (the folder's
// author made it).
//
// Saving a folder app copies what the app may load (dotfiles left out) to
// the shelf folder <slug>/ beside its record <slug>.meta.json. The folder is
// walked first, reading at most MaxFolderFiles (2,000) entries, up to
// maxFolderDepth (16) levels and MaxFolderBytes (64 MiB): over a bound the
// save is refused folder-too-large, and a FIFO, device, socket, link out,
// link loop or link to a folder unsupported-file, a file over the per-file
// bound file-too-large, all with nothing written. The copy is written under
// a hidden temporary name in the shelf and renamed into place (exchanged in
// one step with the previous copy on Linux, renameat2 RENAME_EXCHANGE): that
// rename is the commit point, after the record. <slug>.html and <slug>/ are
// one name: a save needs both free, and if both exist the .html is the app
// and the folder beside it is not listed.
//
// Deleting a shelf folder app moves its folder to the trash in one rename
// (so a crash leaves it whole, in its place or in the trash) with its record.
// Deleting a workspace folder app, page or proven app, takes its own
// index.html as for any workspace entry, never the rest of the person's
// folder.
//
// # Symlinks
//
// All file access goes through os.Root, so nothing is ever read, written or
// removed through a symlink that points outside its root. Symlinked folders
// are never descended (this also rules out cycles). A symlinked .html file is
// listed only when its target resolves to a regular file inside the same root;
// one pointing outside is not listed at all. Deleting a listed symlinked page
// moves the link itself to the trash, never its target.
//
// # Kind, proof and identity
//
// A shelf file is an app; a sandbox file is a page; a workspace file is a page
// unless a shelf record's workspacePath equals its own relative path (slash
// separated, relative to the workspace). A record written by this package also
// carries workspaceRoot; when present it must name the current workspace too,
// so opening another folder that happens to contain a file with the same
// relative path never makes that file an app (it stays a page and the shelf
// app is listed as a shelf app). A legacy record (no workspacePath) proves
// nothing, whatever the bytes or appId. A proven workspace file is listed
// once, as the app (the record's appId and title, source "workspace", its own
// storagePath), and the shelf copy is not listed a second time. If two
// records claim the same file, the one whose shelf file name sorts first wins.
//
// Apps are app_<slug> (or the record's appId when it is a well-formed app_
// id), pages page_<slug>. No two entries share an id: every entry first asks
// for its natural id; when several ask for the same one, they are ordered
// apps before pages, then workspace, shelf, sandbox, then by sandbox root,
// sandbox name and slash path, and the first keeps it; the others get
// <id>-2, <id>-3, … skipping any id that some entry asks for naturally. The
// rule depends only on the set of files, so it is deterministic.
//
// # Lookup
//
// Resolve tries, in order, (1) the exact id, (2) the file name (or the
// workspace-relative path), (3) the slug of the reference, (4) the title,
// case-insensitively. The first step that matches anything decides; within
// that step an app outranks a page, then the id order above applies.
//
// # Saving, deletion, crash safety
//
// See SaveRef, SaveHTML and Delete. Every write is atomic (temp file in the
// same folder, fsync, rename, fsync of the folder). A save writes the
// .meta.json first and the .html (or a folder app's folder) last: that
// rename is the commit point.
// A crash before it leaves at most an orphan .meta.json, which discovery
// ignores and the next save of that name overwrites (the name is still free);
// a crash after it leaves a complete app. A re-save of an existing app replaces
// each file atomically, so any crash leaves a readable app with either the old
// or the new content. Deletion removes the .html before the .meta.json for the
// same reason. Deletion moves each artifact to a trash can instead of
// unlinking it and Restore undoes one delete (trash.go, docs/trash.md).
package store
