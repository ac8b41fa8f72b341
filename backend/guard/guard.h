// Package guard (Linux): confines Wails' IPC handler to the room.
#ifndef VOICEBOX_GUARD_H
#define VOICEBOX_GUARD_H

// vbg_install adds the GTK emission hook that guards the first WebKitWebView
// that gets a parent. Returns 0 on success, a negative value on failure.
// The scripts are the guard's JavaScript, applied to their arguments in
// guard.go (forwarder.js, page.js, takemic.js).
int vbg_install(const char *room_origin, const char *world_name,
                const char *forwarder_js, const char *page_js, const char *take_mic_js,
                int mock_capture, unsigned int ping_ms, unsigned int hang_ms,
                unsigned int hang_cpu_ms, int cpu_wait_counts, unsigned int crash_restarts);

// vbg_guard_drops replaces Wails' file-drop handlers on the web view (drops.c).
struct _WebKitWebView;
void vbg_guard_drops(struct _WebKitWebView *wv);

// Downloads by navigation to a blob: URL (blobdownload.c): vbg_guard_downloads takes the web view's
// downloads (bounded by Options.MaxDownloadBytes); on_decide_policy hands every navigation for which
// vbg_is_blob is true to vbg_decide_blob_navigation.
struct _WebKitPolicyDecision;
struct _WebKitNavigationAction;
void vbg_guard_downloads(struct _WebKitWebView *wv);
int vbg_is_blob(const char *uri);
void vbg_decide_blob_navigation(struct _WebKitPolicyDecision *d, struct _WebKitNavigationAction *a, const char *uri);

#endif
