// Package store discovers, classifies, looks up, saves and deletes Voicebox
// mini-apps and pages (seed section 4, "Classification: Mini-Apps vs Pages").
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
//   - Shelf (<Data>/mini-apps): level 0 only; <slug>.html files plus their
//     <slug>.meta.json records. The folder is created lazily by the first save.
//   - Sandbox roots (<Data>/sandboxes, always, plus Roots.SandboxRoots, e.g.
//     from VOICEBOX_SANDBOX_HOMES, read by backend/config): every direct
//     subfolder of a sandbox root is a sandbox home whose folder name is the
//     entry's Sandbox. Depth ≤ 2 relative to each home: home/a.html,
//     home/x/a.html and home/x/y/a.html are listed, home/x/y/z/a.html is not,
//     and a file directly in a sandbox root (not inside a home) is not listed.
//
// A folder that is itself another root (for example a workspace that contains
// the shelf) belongs to that root only and is not walked twice. Roots that do
// not exist yet are allowed and are picked up when they appear (Watch).
//
// # Symlinks
//
// All file access goes through os.Root, so nothing is ever read, written or
// removed through a symlink that points outside its root. Symlinked folders
// are never descended (this also rules out cycles). A symlinked .html file is
// listed only when its target resolves to a regular file inside the same root;
// one pointing outside is not listed at all. Deleting a listed symlinked page
// removes the link itself, never its target.
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
// .meta.json first and the .html last: the .html rename is the commit point.
// A crash before it leaves at most an orphan .meta.json, which discovery
// ignores and the next save of that name overwrites (the name is still free);
// a crash after it leaves a complete app. A re-save of an existing app replaces
// each file atomically, so any crash leaves a readable app with either the old
// or the new content. Deletion removes the .html before the .meta.json for the
// same reason.
package store
